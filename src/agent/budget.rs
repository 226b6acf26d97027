//! What a run has spent, and the caps it must stay under.
//!
//! The budget is a [`CallLog`]: it sees every model call's tokens and cost as
//! the client records them. Before each call the runtime asks whether the call
//! could cross a cap; if so the run stops cleanly, resumable with a higher cap.
//! A run that cannot keep what it reads (a full disk) is halted the same way.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::llm::accounting::CallLog;
use crate::workspace::ModelCallRecord;

use super::events::{EventSink, RunEvent};

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Caps {
    pub max_tokens: Option<u64>,
    pub max_cost_usd: Option<f64>,
}

#[derive(Debug, Default)]
pub struct Budget {
    caps: Caps,
    input_tokens: AtomicU64,
    output_tokens: AtomicU64,
    calls: AtomicU64,
    /// Sum of priced calls; `priced` says whether any call had a price.
    cost: Mutex<(f64, bool)>,
    /// Why the run cannot go on whatever the caps (a workspace write failed):
    /// every later call is refused with it.
    halted: Mutex<Option<String>>,
}

/// Why the next call may not be made.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct OverBudget(pub String);

impl Budget {
    pub fn new(caps: Caps) -> Self {
        Self {
            caps,
            ..Self::default()
        }
    }

    pub fn tokens(&self) -> (u64, u64) {
        (
            self.input_tokens.load(Ordering::SeqCst),
            self.output_tokens.load(Ordering::SeqCst),
        )
    }

    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::SeqCst)
    }

    /// Dollars spent so far; `None` while no call had a price.
    pub fn cost(&self) -> Option<f64> {
        let (cost, priced) = *self.cost.lock().unwrap_or_else(|e| e.into_inner());
        priced.then_some(cost)
    }

    /// Refuse every later call, with `reason`: what was spent is kept, and
    /// spending more would only lose its results too. The first reason stays.
    pub fn halt(&self, reason: String) {
        let mut halted = self.halted.lock().unwrap_or_else(|e| e.into_inner());
        halted.get_or_insert(reason);
    }

    pub fn halted(&self) -> Option<String> {
        self.halted
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// May a call of about `input` prompt tokens and up to `output` answer
    /// tokens be made without crossing a cap?
    pub fn check(&self, input: u64, output: u64) -> Result<(), OverBudget> {
        if let Some(reason) = self.halted() {
            return Err(OverBudget(reason));
        }
        let (used_in, used_out) = self.tokens();
        let used = used_in + used_out;
        if let Some(max) = self.caps.max_tokens
            && used + input + output > max
        {
            return Err(OverBudget(format!(
                "the token cap of {max} would be crossed: {used} used, the next call takes up to {}",
                input + output
            )));
        }
        if let (Some(max), Some(spent)) = (self.caps.max_cost_usd, self.cost()) {
            // The next call costs about what an average token has cost so far.
            let per_token = if used > 0 { spent / used as f64 } else { 0.0 };
            let next = per_token * (input + output) as f64;
            if spent + next > max {
                return Err(OverBudget(format!(
                    "the cost cap of ${max:.2} would be crossed: ${spent:.4} spent, the next call about ${next:.4}"
                )));
            }
        }
        Ok(())
    }

    pub fn usage_event(&self) -> RunEvent {
        let (input_tokens, output_tokens) = self.tokens();
        RunEvent::Usage {
            input_tokens,
            output_tokens,
            cost_usd: self.cost(),
            model_calls: self.calls(),
        }
    }
}

impl CallLog for Budget {
    fn record(&self, call: &ModelCallRecord) {
        self.input_tokens
            .fetch_add(call.input_tokens, Ordering::SeqCst);
        self.output_tokens
            .fetch_add(call.output_tokens, Ordering::SeqCst);
        self.calls.fetch_add(1, Ordering::SeqCst);
        if let Some(cost) = call.cost_usd {
            let mut total = self.cost.lock().unwrap_or_else(|e| e.into_inner());
            total.0 += cost;
            total.1 = true;
        }
    }
}

/// Emits a usage event after every recorded call.
pub struct UsageReporter {
    pub budget: std::sync::Arc<Budget>,
    pub events: std::sync::Arc<dyn EventSink>,
}

impl CallLog for UsageReporter {
    fn record(&self, _call: &ModelCallRecord) {
        self.events.emit(self.budget.usage_event());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(input: u64, output: u64, cost: Option<f64>) -> ModelCallRecord {
        ModelCallRecord {
            at: String::new(),
            profile: "p".into(),
            protocol: "openai".into(),
            model: "m".into(),
            purpose: "t".into(),
            attempt: 1,
            outcome: "ok".into(),
            streamed: false,
            input_tokens: input,
            output_tokens: output,
            tokens_estimated: false,
            latency_ms: 1,
            cost_usd: cost,
        }
    }

    #[test]
    fn a_call_that_would_cross_a_cap_is_refused_before_it_is_made() {
        let budget = Budget::new(Caps {
            max_tokens: Some(1000),
            max_cost_usd: Some(0.01),
        });
        budget.record(&call(600, 100, Some(0.007)));
        assert!(budget.check(200, 50).is_ok());
        let err = budget.check(250, 100).unwrap_err();
        assert!(err.0.contains("token cap of 1000"), "{err}");
        // 0.007 for 700 tokens: 250 more would cost 0.0025 -> 0.0095, fine;
        // 400 more would cost 0.004 -> 0.011, over.
        let caps_cost = Budget::new(Caps {
            max_tokens: None,
            max_cost_usd: Some(0.01),
        });
        caps_cost.record(&call(600, 100, Some(0.007)));
        assert!(caps_cost.check(200, 50).is_ok());
        assert!(
            caps_cost
                .check(300, 100)
                .unwrap_err()
                .0
                .contains("cost cap")
        );
    }

    #[test]
    fn a_halted_run_refuses_every_call_with_the_first_reason() {
        let budget = Budget::new(Caps::default());
        assert!(budget.check(1, 1).is_ok());
        budget.halt("the disk is full".into());
        budget.halt("a later write failed too".into());
        assert_eq!(budget.check(0, 0).unwrap_err().0, "the disk is full");
    }
}
