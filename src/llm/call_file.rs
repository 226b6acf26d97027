//! Recording model calls in a workspace's `model-calls.jsonl` without slowing
//! the calls: records go over a channel to one writer thread, which appends
//! and syncs them in arrival order (and then runs an optional hook with the
//! line's number, which the commands layer uses to mirror it in the index).
//! [`FileCallLog::flush`] waits until every record sent so far is written (a
//! run calls it before it reports done).

use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, PoisonError};

use super::accounting::CallLog;
use crate::workspace::{ModelCallRecord, Workspace};

enum Message {
    Record(Box<ModelCallRecord>),
    Flush(Sender<()>),
    /// Write what is queued, let go of the workspace, and stop.
    Close(Sender<()>),
}

pub struct FileCallLog {
    /// The writer thread ends when the last sender is dropped.
    tx: Mutex<Sender<Message>>,
}

/// Runs on the writer thread after a record is appended as line `seq` (from 1).
pub type AfterWrite = Box<dyn FnMut(u64, &ModelCallRecord) + Send>;

impl FileCallLog {
    pub fn start(workspace: Workspace) -> Arc<Self> {
        Self::start_with(workspace, 0, None)
    }

    /// A log whose file already holds `lines` records, running `after` for
    /// each record it writes.
    pub fn start_with(
        workspace: Workspace,
        lines: u64,
        mut after: Option<AfterWrite>,
    ) -> Arc<Self> {
        let (tx, rx) = mpsc::channel::<Message>();
        std::thread::spawn(move || {
            let mut seq = lines;
            for message in rx {
                match message {
                    Message::Record(record) => match workspace.log_model_call(&record) {
                        Ok(()) => {
                            seq += 1;
                            if let Some(after) = after.as_mut() {
                                after(seq, &record);
                            }
                        }
                        Err(e) => {
                            tracing::warn!(error = %e, "could not log a model call in the workspace");
                        }
                    },
                    Message::Flush(done) => {
                        let _ = done.send(());
                    }
                    Message::Close(done) => {
                        // The workspace (and its lock) is let go before the
                        // caller hears back, so it can be opened again at once.
                        drop(workspace);
                        let _ = done.send(());
                        return;
                    }
                }
            }
        });
        Arc::new(Self { tx: Mutex::new(tx) })
    }

    /// Wait until every record sent before this call is written. Blocking.
    pub fn flush(&self) {
        self.wait_for(Message::Flush);
    }

    /// Write every queued record and let go of the workspace: a run's last
    /// word, so that the workspace can be opened again at once. Records after
    /// this are dropped with a warning.
    pub fn close(&self) {
        self.wait_for(Message::Close);
    }

    fn wait_for(&self, message: fn(Sender<()>) -> Message) {
        let (done, wait) = mpsc::channel();
        let sent = self
            .tx
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .send(message(done));
        if sent.is_ok() {
            let _ = wait.recv();
        }
    }
}

impl CallLog for FileCallLog {
    fn record(&self, call: &ModelCallRecord) {
        let sent = self
            .tx
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .send(Message::Record(Box::new(call.clone())));
        if sent.is_err() {
            tracing::warn!("the model-call writer has stopped; a call was not logged");
        }
    }
}

/// Several logs as one.
pub struct CallLogs(pub Vec<Arc<dyn CallLog>>);

impl CallLog for CallLogs {
    fn record(&self, call: &ModelCallRecord) {
        for log in &self.0 {
            log.record(call);
        }
    }
}
