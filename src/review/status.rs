//! How a review run ended, as one type from the engine to the exit code: the
//! engine says whether it went to its end ([`Outcome`]); with the papers'
//! counts that becomes the run's [`ReviewStatus`], which the run record, the
//! task, `--json`, the app and the CLI's exit code all read.

use serde::Serialize;

use crate::workspace::{RunStatus, TaskStatus};

/// How an engine's pass ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It went to its end.
    Done,
    /// The researcher cancelled it.
    Cancelled,
    /// A cap, or a write that failed, stopped it before its end; the reason
    /// says which. Running it again resumes.
    Stopped(String),
    /// A pilot read the papers it was asked to, and stopped there; `scored`
    /// of its `read` papers have a result.
    Pilot { read: usize, scored: usize },
}

impl Outcome {
    /// Why it stopped early, in words (`None` when it went to its end).
    pub fn reason(&self) -> Option<&str> {
        match self {
            Self::Done => None,
            Self::Cancelled => Some("cancelled"),
            Self::Stopped(reason) => Some(reason),
            Self::Pilot { .. } => Some("a pilot"),
        }
    }
}

/// How a review run ended, as its summary reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReviewStatus {
    /// Every readable paper scored.
    Done,
    /// The run went to its end, but some papers could not be scored (each
    /// says why).
    Incomplete,
    /// The run went to its end and no paper could be scored.
    Failed,
    Cancelled,
    /// Stopped at a cap or by a failed write; resumable.
    Stopped,
    /// A pilot read the papers asked for; running the review reads the rest.
    Pilot,
}

impl ReviewStatus {
    /// The status of a run whose engine ended with `outcome`, with
    /// `not_scored` of its `screened` papers left without a score.
    pub fn of(outcome: &Outcome, screened: usize, not_scored: usize) -> Self {
        match outcome {
            Outcome::Cancelled => Self::Cancelled,
            Outcome::Stopped(_) => Self::Stopped,
            // A pilot that scored none of its papers shows nothing to check.
            Outcome::Pilot { read, scored: 0 } if *read > 0 => Self::Failed,
            Outcome::Pilot { .. } => Self::Pilot,
            Outcome::Done if not_scored > 0 && not_scored == screened => Self::Failed,
            Outcome::Done if not_scored > 0 => Self::Incomplete,
            Outcome::Done => Self::Done,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Done => "done",
            Self::Incomplete => "incomplete",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
            Self::Stopped => "stopped",
            Self::Pilot => "pilot",
        }
    }

    /// What the run record and the task keep. A run with some papers
    /// unscored did its work: the papers say why each one failed.
    pub fn recorded(self) -> (RunStatus, TaskStatus) {
        match self {
            Self::Done | Self::Incomplete => (RunStatus::Done, TaskStatus::Done),
            Self::Failed => (RunStatus::Failed, TaskStatus::Failed),
            Self::Cancelled => (RunStatus::Cancelled, TaskStatus::Cancelled),
            Self::Stopped => (RunStatus::Stopped, TaskStatus::Stopped),
            Self::Pilot => (RunStatus::Pilot, TaskStatus::Pilot),
        }
    }

    /// Whether running the same review again takes it up where it ended.
    pub fn resumes(self) -> bool {
        matches!(self, Self::Cancelled | Self::Stopped | Self::Pilot)
    }
}

impl std::fmt::Display for ReviewStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_stop_is_stopped_not_failed_and_unscored_papers_are_counted() {
        let stopped = ReviewStatus::of(&Outcome::Stopped("the token cap".into()), 5, 5);
        assert_eq!(stopped, ReviewStatus::Stopped);
        assert_eq!(
            stopped.recorded(),
            (RunStatus::Stopped, TaskStatus::Stopped)
        );
        assert!(stopped.resumes());
        assert_eq!(ReviewStatus::of(&Outcome::Done, 5, 0), ReviewStatus::Done);
        assert_eq!(
            ReviewStatus::of(&Outcome::Done, 5, 2),
            ReviewStatus::Incomplete
        );
        assert_eq!(ReviewStatus::of(&Outcome::Done, 5, 5), ReviewStatus::Failed);
        // A pilot's unread papers are unscored by design; its own count.
        let pilot = |scored| Outcome::Pilot { read: 2, scored };
        assert_eq!(ReviewStatus::of(&pilot(1), 10, 9), ReviewStatus::Pilot);
        assert_eq!(ReviewStatus::of(&pilot(0), 10, 10), ReviewStatus::Failed);
        assert_eq!(
            serde_json::to_value(ReviewStatus::Incomplete).unwrap(),
            "incomplete"
        );
    }
}
