//! The screening queue as the app and `quire screen` use it: where
//! screening stands and the next papers, best first, again after every
//! label. A review's queue (its papers' features) is built once and kept in
//! the process while its papers and question stay as they were, so the next
//! paper is ready within milliseconds of a label, not the seconds a build
//! of ten thousand records takes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use serde::Deserialize;

use super::{AppContext, CommandError, ErrorKind};
use crate::blocking::blocking;
use crate::review::queue::{Queue, ScreeningView, save_ranking};
use crate::workspace::records::now_rfc3339;
use crate::workspace::{TaskStatus, Workspace, WorkspaceError, layout};

/// Papers served at once when the caller does not say.
const DEFAULT_COUNT: usize = 5;

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
// What the command accepts: a missing Option field reads as None.
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct ScreeningParams {
    #[cfg_attr(test, ts(type = "string"))]
    pub workspace: PathBuf,
    /// How many of the next papers to return (default 5).
    pub count: Option<usize>,
    /// The review question, for a review that has none yet (or has not
    /// run): saved as the review's, and the order follows it.
    pub question: Option<String>,
    /// Words to find papers by (title and abstract), for labelling one the
    /// researcher knows; the view's `found`.
    pub find: Option<String>,
}

/// Papers found at most, for one search.
const FOUND_COUNT: usize = 10;

/// What a built queue was built from: the papers folder and the task file
/// as they were (a new paper or a new question changes one of them).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Built {
    papers: Option<SystemTime>,
    task: Option<(SystemTime, u64)>,
}

impl Built {
    fn of(root: &Path) -> Self {
        let meta = |p: PathBuf| std::fs::metadata(p).ok();
        Self {
            papers: meta(root.join(layout::PAPERS_DIR)).and_then(|m| m.modified().ok()),
            task: meta(root.join(layout::TASK_FILE))
                .and_then(|m| Some((m.modified().ok()?, m.len()))),
        }
    }
}

/// A built queue and what it was built from.
type Held = (Built, Arc<Queue>);

/// The queues built in this process, by workspace root.
#[derive(Clone, Default)]
pub struct QueueCache(Arc<Mutex<HashMap<PathBuf, Held>>>);

impl std::fmt::Debug for QueueCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let held = self.0.lock().map_or(0, |q| q.len());
        write!(f, "QueueCache({held} queues)")
    }
}

impl QueueCache {
    /// Build `root`'s queue again on its next use: its papers changed
    /// (an import, an extraction, a run).
    pub(crate) fn forget(&self, root: &Path) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(root);
    }

    /// The queue of `ws`, built again only when its papers or question changed.
    fn get(&self, ws: &Workspace) -> Result<Arc<Queue>, CommandError> {
        let root = ws.root().to_path_buf();
        let built = Built::of(&root);
        let mut queues = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((when, queue)) = queues.get(&root)
            && *when == built
        {
            return Ok(queue.clone());
        }
        let queue = Arc::new(Queue::build(ws)?);
        queues.insert(root, (built, queue.clone()));
        Ok(queue)
    }
}

/// Where screening stands in the review and the next papers to screen. The
/// ranking is saved in `screening.json` unless a run holds the review (its
/// labels cannot change meanwhile).
pub async fn screening_next(
    ctx: &AppContext,
    params: ScreeningParams,
) -> Result<ScreeningView, CommandError> {
    let queues = ctx.queues().clone();
    blocking(move || {
        let (ws, writable) = match Workspace::open(&params.workspace) {
            Ok(ws) => (ws, true),
            Err(WorkspaceError::Locked { .. }) => {
                (Workspace::open_read_only(&params.workspace)?, false)
            }
            Err(e) => return Err(e.into()),
        };
        if let Some(question) = params.question.as_deref() {
            set_question(&ws, question, writable)?;
        }
        let queue = queues.get(&ws)?;
        let given = queue.labels(&ws)?;
        let (mut view, ranking) = queue.view(&given, params.count.unwrap_or(DEFAULT_COUNT));
        if let Some(words) = params.find.as_deref() {
            view.found = queue.find(&given, words, FOUND_COUNT);
        }
        if writable {
            save_ranking(&ws, &ranking)?;
        } else {
            // Not kept, so no label could prove it: no serve.
            view.serve = None;
        }
        Ok(view)
    })
    .await
}

/// Make `question` the review's, when it has none or has not run yet; a
/// review that ran keeps its question (its results were read under it).
fn set_question(ws: &Workspace, question: &str, writable: bool) -> Result<(), CommandError> {
    let question = question.trim();
    let mut task = ws.task()?;
    if question.is_empty() || task.question.as_deref() == Some(question) {
        return Ok(());
    }
    if task.status != TaskStatus::New || !writable {
        return Err(CommandError::new(
            ErrorKind::InvalidInput,
            "question_fixed",
            format!(
                "this review was run under the question {:?}; the screening order follows it (run the review with a new question to change it)",
                task.question.as_deref().unwrap_or("")
            ),
        ));
    }
    task.question = Some(question.to_owned());
    task.updated_at = now_rfc3339();
    ws.save_task(&task)?;
    Ok(())
}
