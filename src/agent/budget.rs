//! What a run has spent, and the caps it must stay under.
//!
//! The budget is a [`CallLog`]: it sees every model call's tokens and cost as
//! the client records them. It is also the client's [`SpendGate`]: each
//! attempt holds its worst case (whole prompt, longest answer) from just
//! before it is sent until it is recorded, so calls in flight together can
//! never cross a cap between them. Before each piece of work the run asks
//! [`Budget::check`], which counts those holds too; if the work could cross
//! a cap the run stops cleanly, resumable with a higher cap. A run that
//! cannot keep what it reads (a full disk) is halted the same way.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::llm::accounting::{CallLog, Hold, SpendGate};
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
    /// What the calls in flight may still spend: tokens, and dollars where priced.
    held: Mutex<(u64, f64)>,
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
    /// tokens be made without crossing a cap, beside the calls in flight?
    pub fn check(&self, input: u64, output: u64) -> Result<(), OverBudget> {
        let (used_in, used_out) = self.tokens();
        let used = used_in + used_out;
        // The next call costs about what an average token has cost so far.
        let per_token = match self.cost() {
            Some(spent) if used > 0 => Some(spent / used as f64),
            _ => None,
        };
        self.fits(
            *lock(&self.held),
            Hold {
                tokens: input + output,
                cost_usd: per_token.map(|p| p * (input + output) as f64),
            },
        )
        .map_err(OverBudget)
    }

    /// May work whose worst case is `ahead` (a batch's lines, summed) be
    /// paid for now, beside what is spent and what calls in flight hold?
    /// Unlike [`Self::check`], the price is the caller's, from the price
    /// table: at the start of a run nothing is spent to price from.
    pub fn check_hold(&self, ahead: Hold) -> Result<(), OverBudget> {
        self.fits(*lock(&self.held), ahead).map_err(OverBudget)
    }

    /// Whether `next` fits under the caps beside what is spent and `held`.
    fn fits(&self, (held_tokens, held_cost): (u64, f64), next: Hold) -> Result<(), String> {
        if let Some(reason) = self.halted() {
            return Err(reason);
        }
        let (used_in, used_out) = self.tokens();
        let used = used_in + used_out;
        if let Some(max) = self.caps.max_tokens
            && used + held_tokens + next.tokens > max
        {
            return Err(format!(
                "the token cap of {max} would be crossed: {used} used, {held_tokens} held by calls in flight, the next call takes up to {}",
                next.tokens
            ));
        }
        if let Some(max) = self.caps.max_cost_usd {
            let spent = self.cost().unwrap_or(0.0);
            let next_cost = next.cost_usd.unwrap_or(0.0);
            if spent + held_cost + next_cost > max {
                return Err(format!(
                    "the cost cap of ${max:.2} would be crossed: ${spent:.4} spent, ${held_cost:.4} held by calls in flight, the next call up to ${next_cost:.4}"
                ));
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

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl SpendGate for Budget {
    fn reserve(&self, hold: Hold) -> Result<(), String> {
        // Checked and held under one lock, so two calls cannot both fit in
        // the room left for one.
        let mut held = lock(&self.held);
        self.fits(*held, hold)?;
        held.0 += hold.tokens;
        held.1 += hold.cost_usd.unwrap_or(0.0);
        Ok(())
    }

    fn release(&self, hold: Hold) {
        let mut held = lock(&self.held);
        held.0 = held.0.saturating_sub(hold.tokens);
        held.1 = (held.1 - hold.cost_usd.unwrap_or(0.0)).max(0.0);
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
            endpoint: None,
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
