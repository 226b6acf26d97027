//! One agent task's steps, from its first prompt to its end. A step is a few
//! named moves: build the prompt from the workspace and the last k actions,
//! ask the model (with one path for a prompt over its window: shrink and ask
//! again), and run the calls it made. Each move says in a type whether the
//! task goes on or how it ended.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::context::{self, Turn};
use super::events::RunEvent;
use super::graph::{TaskNode, TaskState, task_folder};
use super::runtime::{Runtime, RuntimeError, TaskOutcome};
use super::runtime_tools::finish_output;
use super::snapshot;
use super::spec::{AgentSpec, FINISH_TOOL, NOTES_TOOL};
use super::text_calls;
use crate::llm::accounting::count_tokens;
use crate::llm::{
    ChatRequest, ChatResponse, LlmError, Message, ModelClient, ModelSettings, ToolCall, ToolChoice,
    ToolDef,
};
use crate::tools::{Actor, Recovery, Registry, ToolContext, ToolError};

/// How many times a step is retried with a smaller prompt after an overflow.
const MAX_SHRINKS: u32 = 3;
/// Tools a consolidation turn offers: the agent rewrites its files, nothing else.
const CONSOLIDATION_TOOLS: [&str; 4] = [NOTES_TOOL, "write_todos", "read_todos", "read_file"];

/// How a task ended: its state and the output that says what happened.
struct Ended(TaskState, String);

/// What asking the model for a step came to.
enum Asked {
    Answer(ChatResponse),
    /// The prompt was over the model's window: the step is built again smaller.
    Shrunk,
    Ended(Ended),
}

/// What one tool call came to, for the loop.
enum CallOutcome {
    /// Done, or refused with a message the model can act on.
    GoOn,
    /// `finish` accepted: the agent's final answer.
    Finished(String),
    /// The task cannot go on.
    Ended(Ended),
}

/// A task's state between steps.
struct Task<'a> {
    spec: &'a AgentSpec,
    node: &'a TaskNode,
    settings: ModelSettings,
    actor: Actor,
    tools: Vec<ToolDef>,
    tools_tokens: u64,
    /// The prompt budget, smaller after each overflow.
    budget: u32,
    shrinks: u32,
    /// The last answer called no tool: this step says so.
    nudge: bool,
}

impl Task<'_> {
    fn turn(&self) -> Turn {
        if self.nudge {
            Turn::Nudge
        } else if self.spec.consolidate_every > 0
            && self
                .actor
                .step
                .is_multiple_of(self.spec.consolidate_every as u64)
        {
            Turn::Consolidation
        } else {
            Turn::Work
        }
    }

    fn offered(&self, turn: Turn) -> Vec<ToolDef> {
        match turn {
            Turn::Consolidation => self
                .tools
                .iter()
                .filter(|t| CONSOLIDATION_TOOLS.contains(&t.name.as_str()))
                .cloned()
                .collect(),
            _ => self.tools.clone(),
        }
    }

    fn outcome(&self, Ended(status, output): Ended) -> TaskOutcome {
        TaskOutcome {
            task_id: self.node.id.clone(),
            agent: self.spec.name.clone(),
            status,
            output,
            steps: self.actor.step,
        }
    }
}

impl Runtime {
    pub(super) async fn step_loop(
        self: &Arc<Self>,
        spec: &AgentSpec,
        client: &Arc<ModelClient>,
        node: &TaskNode,
    ) -> Result<TaskOutcome, RuntimeError> {
        let folder = task_folder(&node.id)?;
        self.workspace.create_dir_all(&folder)?;
        let registry = self.registry_for(spec);
        let tools = registry.specs();
        let tools_tokens = count_tokens(&serde_json::to_string(&tools).unwrap_or_default());
        let settings = client.settings().clone();
        let mut task = Task {
            spec,
            node,
            budget: window_budget(spec, &client.prompt_settings(), tools_tokens, &node.input),
            settings,
            actor: Actor {
                agent: spec.name.clone(),
                task: node.id.clone(),
                step: node.steps,
                folder,
            },
            tools,
            tools_tokens,
            shrinks: 0,
            nudge: false,
        };
        loop {
            if let Some(ended) = self.ended_before_step(&task)? {
                return Ok(task.outcome(ended));
            }
            task.actor.step += 1;
            let turn = task.turn();
            let offered = task.offered(turn);
            let request = match self.build_request(&task, turn, &offered).await? {
                Ok(request) => request,
                Err(ended) => {
                    task.actor.step -= 1;
                    return Ok(task.outcome(ended));
                }
            };
            let answer = match self.ask(client, &request, &mut task).await {
                Asked::Answer(answer) => answer,
                Asked::Shrunk => {
                    task.actor.step -= 1;
                    continue;
                }
                Asked::Ended(ended) => return Ok(task.outcome(ended)),
            };
            let calls = self.calls_in(&answer, &offered);
            if calls.is_empty() {
                if task.nudge {
                    let said = answer.text.trim();
                    return Ok(task.outcome(Ended(
                        TaskState::NoToolCall,
                        format!(
                            "answered twice without calling a tool; its last answer: {}",
                            if said.is_empty() { "(empty)" } else { said }
                        ),
                    )));
                }
                self.stats.nudges.fetch_add(1, Ordering::Relaxed);
                task.nudge = true;
                continue;
            }
            task.nudge = false;
            if let Some(ended) = self.run_calls(&registry, &task, &offered, calls).await {
                return Ok(task.outcome(ended));
            }
        }
    }

    /// Cancelled, or out of steps: the task ends before another step.
    fn ended_before_step(&self, task: &Task<'_>) -> Result<Option<Ended>, RuntimeError> {
        if self.cancel.is_cancelled() {
            return Ok(Some(Ended(
                TaskState::Cancelled,
                "the run was cancelled".into(),
            )));
        }
        if task.actor.step >= task.spec.step_limit as u64 {
            let output = self.stopped_output(task.spec, &task.actor)?;
            return Ok(Some(Ended(TaskState::StepLimit, output)));
        }
        Ok(None)
    }

    /// The step's request, rebuilt from the workspace; `Err` when the call
    /// would cross a budget cap.
    async fn build_request(
        &self,
        task: &Task<'_>,
        turn: Turn,
        offered: &[ToolDef],
    ) -> Result<Result<ChatRequest, Ended>, RuntimeError> {
        let prompt = self.prompt(task, turn).await?;
        let prompt_tokens = prompt.total_tokens() + task.tools_tokens;
        self.events.emit(RunEvent::AgentStep {
            task: task.node.id.clone(),
            agent: task.spec.name.clone(),
            step: task.actor.step,
            prompt_tokens,
            stable_tokens: prompt.stable_tokens() + task.tools_tokens,
            consolidation: turn == Turn::Consolidation,
        });
        let settings = &task.settings;
        if let Err(over) = self
            .budget
            .check(prompt_tokens, settings.max_output_tokens as u64)
        {
            return Ok(Err(Ended(TaskState::BudgetExhausted, over.0)));
        }
        self.stats.steps.fetch_add(1, Ordering::Relaxed);
        if turn == Turn::Consolidation {
            self.stats.consolidations.fetch_add(1, Ordering::Relaxed);
        }
        Ok(Ok(ChatRequest {
            model: String::new(),
            messages: vec![Message::system(prompt.system), Message::user(prompt.user)],
            tools: offered.to_vec(),
            tool_choice: Some(ToolChoice::Auto),
            max_tokens: Some(settings.max_output_tokens),
            stream: settings.stream && settings.stream_tool_turns,
            response_format: None,
            cache_prefix: true,
            // A task's steps share its growing prefix: one endpoint keeps it cached.
            affinity: Some(task.node.id.to_string()),
        }))
    }

    /// Ask the model. A prompt over its window, said (HTTP 400) or done (a
    /// prompt the server cut), shrinks the budget for the step built again.
    async fn ask(&self, client: &ModelClient, request: &ChatRequest, task: &mut Task<'_>) -> Asked {
        let purpose = format!("agent {} step {}", task.spec.name, task.actor.step);
        match client.complete(request, &purpose, &self.cancel).await {
            Ok(answer) => {
                task.shrinks = 0;
                Asked::Answer(answer)
            }
            Err(e) if e.is_overflow() && task.shrinks < MAX_SHRINKS => {
                tracing::warn!(agent = %task.spec.name, step = task.actor.step, error = %e, "prompt over the model's window; shrinking");
                self.stats.overflows.fetch_add(1, Ordering::Relaxed);
                task.shrinks += 1;
                task.budget = (task.budget * 6 / 10).max(300);
                Asked::Shrunk
            }
            Err(LlmError::Cancelled) => {
                task.actor.step -= 1;
                Asked::Ended(Ended(TaskState::Cancelled, "the run was cancelled".into()))
            }
            // Refused before it was sent: calls in flight hold the room left.
            Err(LlmError::OverBudget(reason)) => {
                Asked::Ended(Ended(TaskState::BudgetExhausted, reason))
            }
            Err(e) => Asked::Ended(Ended(
                TaskState::Failed,
                format!("the model call failed at step {}: {e}", task.actor.step),
            )),
        }
    }

    /// The answer's tool calls, or those a local model wrote as text.
    fn calls_in(&self, answer: &ChatResponse, offered: &[ToolDef]) -> Vec<ToolCall> {
        if !answer.tool_calls.is_empty() {
            return answer.tool_calls.clone();
        }
        let calls = text_calls::parse(&answer.text, offered);
        self.stats
            .text_tool_calls
            .fetch_add(calls.len() as u64, Ordering::Relaxed);
        calls
    }

    /// Run a step's calls in order; `Some` when one of them ended the task.
    async fn run_calls(
        &self,
        registry: &Registry,
        task: &Task<'_>,
        offered: &[ToolDef],
        calls: Vec<ToolCall>,
    ) -> Option<Ended> {
        let ctx = ToolContext::new(self.workspace.clone(), self.tool_settings.clone())
            .for_step(task.actor.clone());
        for call in calls {
            match self.run_call(registry, &ctx, offered, &call).await {
                CallOutcome::GoOn => {}
                CallOutcome::Finished(output) => return Some(Ended(TaskState::Finished, output)),
                CallOutcome::Ended(ended) => return Some(ended),
            }
            if self.cancel.is_cancelled() {
                break;
            }
        }
        None
    }

    /// Run one call and say what it means for the task.
    async fn run_call(
        &self,
        registry: &Registry,
        ctx: &ToolContext,
        offered: &[ToolDef],
        call: &ToolCall,
    ) -> CallOutcome {
        // A tool this turn did not offer (a consolidation turn offers few) is
        // answered like an unknown one, listing what was offered.
        let result = if offered.iter().any(|t| t.name == call.name) {
            registry.call(ctx, &call.name, call.arguments.clone()).await
        } else {
            let problem = crate::llm::tool_calls::CallProblem::UnknownTool {
                offered: offered.iter().map(|t| t.name.clone()).collect(),
            };
            let error = ToolError::new("unknown_tool", problem.describe(&call.name));
            let record = crate::workspace::ActionRecord::new(
                &call.name,
                &call.arguments,
                Err((&error.code, &error.message)),
            );
            if let Some(actor) = &ctx.actor {
                let record = record.by(&actor.agent, &actor.task, actor.step);
                if let Ok(log) = actor.action_log() {
                    let _ = self.workspace.append_action(&log, &record);
                }
            }
            Err(error)
        };
        self.stats.tool_calls.fetch_add(1, Ordering::Relaxed);
        let (ok, summary) = match &result {
            Ok(text) => (true, text.lines().next().unwrap_or_default().to_owned()),
            Err(e) => (false, format!("error[{}]: {}", e.code, e.message)),
        };
        if let Some(actor) = &ctx.actor {
            self.events.emit(RunEvent::ToolCall {
                task: actor.task.clone(),
                agent: actor.agent.clone(),
                step: actor.step,
                tool: call.name.clone(),
                ok,
                summary: summary.chars().take(200).collect(),
            });
        }
        match result {
            Ok(_) if call.name == FINISH_TOOL => {
                CallOutcome::Finished(finish_output(&call.arguments))
            }
            Ok(_) => CallOutcome::GoOn,
            Err(e) => match e.recovery {
                Recovery::Retry => CallOutcome::GoOn,
                // A spending cap: resumable with a higher one.
                Recovery::Exhausted => CallOutcome::Ended(Ended(
                    TaskState::BudgetExhausted,
                    format!("{} failed: {}", call.name, e.message),
                )),
                // Nothing the model does can fix it (the disk failed).
                Recovery::Fatal => CallOutcome::Ended(Ended(
                    TaskState::Failed,
                    format!("{} failed: {}", call.name, e.message),
                )),
            },
        }
    }

    async fn prompt(&self, task: &Task<'_>, turn: Turn) -> Result<context::Prompt, RuntimeError> {
        let ws = self.workspace.clone();
        let toolbox = self.toolbox.clone();
        let spec = task.spec;
        let (who, k, agent) = (task.actor.clone(), spec.action_window, spec.name.clone());
        let (snap, progress) = tokio::task::spawn_blocking(move || {
            let snap = snapshot::gather(&ws, &who, k);
            (snap, toolbox.progress(&ws, &agent))
        })
        .await
        .map_err(|e| RuntimeError::Internal(e.to_string()))?;
        let snap = snap?;
        Ok(context::build(&snap.context_input(
            spec,
            &task.node.input,
            &progress,
            task.actor.step,
            turn,
            task.budget,
        )))
    }

    /// The output of a task stopped at its step limit: what it was doing.
    fn stopped_output(&self, spec: &AgentSpec, actor: &Actor) -> Result<String, RuntimeError> {
        let recent = self.workspace.last_actions(&actor.action_log()?, 3)?;
        let last: Vec<String> = recent
            .iter()
            .map(|a| format!("{} → {}", a.tool, a.summary))
            .collect();
        Ok(format!(
            "stopped at its step limit of {} steps before it called finish. Its last actions: {}. Its notes and todo list are in {}.",
            spec.step_limit,
            if last.is_empty() {
                "none".into()
            } else {
                last.join("; ")
            },
            actor.folder
        ))
    }
}

/// The prompt budget: the spec's, but never more than the model's window
/// leaves after the answer, the tool specs, the system prompt and the task.
fn window_budget(spec: &AgentSpec, settings: &ModelSettings, tools_tokens: u64, task: &str) -> u32 {
    let fixed = tools_tokens
        + count_tokens(&spec.system_prompt)
        + count_tokens(context::RUNTIME_RULES)
        + count_tokens(task)
        // Headings, the instruction and per-message framing.
        + 300;
    let room = (settings.context_window as u64)
        .saturating_sub(settings.max_output_tokens as u64)
        .saturating_sub(fixed);
    (spec.prompt_budget as u64).min(room).max(300) as u32
}
