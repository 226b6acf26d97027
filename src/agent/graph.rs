//! The task graph, `tasks.json`: one entry per agent task with its parent, so
//! the hierarchy of a run can be read back from the workspace (and resumed).
//!
//! Each task has a folder `tasks/<id>/` holding its action log, todo list,
//! notes and final output. The graph file is small (one entry per agent call,
//! not per step) and rewritten atomically on every change.

use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use crate::workspace::records::now_rfc3339;
use crate::workspace::{Workspace, WorkspaceError, WsPath, layout};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskState {
    Running,
    /// Called finish; its output is the result.
    Finished,
    /// Ran out of steps; its output says so.
    StepLimit,
    /// Twice answered without calling a tool.
    NoToolCall,
    /// A model error it could not recover from.
    Failed,
    Cancelled,
    /// A budget cap stopped it before the next call.
    BudgetExhausted,
    /// Was running when the process died; a resumed run took over.
    Interrupted,
}

impl TaskState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Finished => "finished",
            Self::StepLimit => "step_limit",
            Self::NoToolCall => "no_tool_call",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
            Self::BudgetExhausted => "budget_exhausted",
            Self::Interrupted => "interrupted",
        }
    }
}

/// One node of the graph.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskNode {
    pub id: String,
    pub parent: Option<String>,
    pub agent: String,
    /// The task text the agent was given.
    pub input: String,
    pub status: TaskState,
    /// `tasks/<id>/output.md` once the task ended.
    pub result_path: Option<String>,
    pub steps: u64,
    pub started_at: String,
    pub updated_at: String,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct GraphFile {
    tasks: Vec<TaskNode>,
}

/// The graph of one workspace; clones share it.
#[derive(Clone)]
pub struct TaskGraph {
    ws: Workspace,
    /// Held only while a node changes and the file is rewritten, never across
    /// an `.await`.
    nodes: Arc<Mutex<GraphFile>>,
}

impl TaskGraph {
    /// Load `tasks.json`; tasks still marked running belong to a run that died,
    /// and are marked interrupted.
    pub fn open(ws: &Workspace) -> Result<Self, WorkspaceError> {
        let path = WsPath::parse(layout::TASKS_FILE)?;
        let mut file: GraphFile = match ws.read_json(&path) {
            Ok(file) => file,
            Err(WorkspaceError::NotFound { .. }) => GraphFile::default(),
            Err(e) => return Err(e),
        };
        let mut changed = false;
        for node in &mut file.tasks {
            if node.status == TaskState::Running {
                node.status = TaskState::Interrupted;
                changed = true;
            }
        }
        let graph = Self {
            ws: ws.clone(),
            nodes: Arc::new(Mutex::new(file)),
        };
        if changed {
            graph.save(&graph.lock())?;
        }
        Ok(graph)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, GraphFile> {
        self.nodes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn save(&self, file: &GraphFile) -> Result<(), WorkspaceError> {
        self.ws
            .write_json(&WsPath::parse(layout::TASKS_FILE)?, file)
    }

    /// Take up the interrupted task of a dead run that had the same parent,
    /// agent and input (with its folder, todos, notes and step count), or else
    /// add a new running task.
    pub fn start_or_resume(
        &self,
        parent: Option<&str>,
        agent: &str,
        input: &str,
    ) -> Result<TaskNode, WorkspaceError> {
        {
            let mut file = self.lock();
            let found = file.tasks.iter_mut().find(|n| {
                n.status == TaskState::Interrupted
                    && n.parent.as_deref() == parent
                    && n.agent == agent
                    && n.input == input
            });
            if let Some(node) = found {
                node.status = TaskState::Running;
                node.steps = self.steps_logged(&node.id)?;
                node.updated_at = now_rfc3339();
                let node = node.clone();
                self.save(&file)?;
                return Ok(node);
            }
        }
        self.start(parent, agent, input)
    }

    /// The last step recorded in a task's action log.
    fn steps_logged(&self, id: &str) -> Result<u64, WorkspaceError> {
        let log = task_folder(id)?.join(layout::ACTIONS_FILE)?;
        Ok(self
            .ws
            .last_actions(&log, 1)?
            .last()
            .and_then(|a| a.step)
            .unwrap_or(0))
    }

    /// Add a running task and return it.
    pub fn start(
        &self,
        parent: Option<&str>,
        agent: &str,
        input: &str,
    ) -> Result<TaskNode, WorkspaceError> {
        let mut file = self.lock();
        let ordinal = file.tasks.len() + 1;
        let now = now_rfc3339();
        let node = TaskNode {
            id: format!("t{ordinal:04}-{agent}"),
            parent: parent.map(str::to_owned),
            agent: agent.to_owned(),
            input: input.to_owned(),
            status: TaskState::Running,
            result_path: None,
            steps: 0,
            started_at: now.clone(),
            updated_at: now,
        };
        file.tasks.push(node.clone());
        self.save(&file)?;
        Ok(node)
    }

    /// Record the end of a task.
    pub fn end(
        &self,
        id: &str,
        status: TaskState,
        steps: u64,
        result_path: Option<String>,
    ) -> Result<(), WorkspaceError> {
        let mut file = self.lock();
        if let Some(node) = file.tasks.iter_mut().find(|n| n.id == id) {
            node.status = status;
            node.steps = steps;
            node.result_path = result_path;
            node.updated_at = now_rfc3339();
        }
        self.save(&file)
    }

    pub fn nodes(&self) -> Vec<TaskNode> {
        self.lock().tasks.clone()
    }
}

/// `tasks/<id>`.
pub fn task_folder(id: &str) -> Result<WsPath, WorkspaceError> {
    WsPath::from_parts([layout::TASKS_DIR, id])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_left_running_by_a_dead_run_reads_back_as_interrupted() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open_or_init(dir.path()).unwrap();
        let graph = TaskGraph::open(&ws).unwrap();
        let root = graph.start(None, "planner", "review").unwrap();
        let child = graph.start(Some(&root.id), "reviewer", "read all").unwrap();
        graph
            .end(&child.id, TaskState::Finished, 4, Some("x".into()))
            .unwrap();
        drop(graph);
        let graph = TaskGraph::open(&ws).unwrap();
        let nodes = graph.nodes();
        assert_eq!(nodes[0].status, TaskState::Interrupted);
        assert_eq!(nodes[1].status, TaskState::Finished);
        assert_eq!(nodes[1].parent.as_deref(), Some(root.id.as_str()));
        let resumed = graph.start_or_resume(None, "planner", "review").unwrap();
        assert_eq!(
            resumed.id, root.id,
            "the interrupted task is taken up again"
        );
        let other = graph.start_or_resume(None, "planner", "another").unwrap();
        assert_ne!(other.id, root.id);
    }
}
