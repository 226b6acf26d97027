//! What asking a question, or filling the table, would take before anything
//! is spent: the papers still to read (cached answers and current cells
//! cost nothing), their calls (one per page-aligned part), tokens in and
//! out, and the cost from the price table; and the same with the papers'
//! calls sent as a batch.

use serde::Serialize;

use crate::llm::accounting::{PriceTable, count_tokens};
use crate::llm::batch::{BATCH_PRICE_SHARE, BATCH_WINDOW_HOURS};
use crate::llm::{ModelSettings, Usage};
use crate::review::estimate::BatchPrice;
use crate::review::reading::chunks;
use crate::workspace::PaperRecord;

/// Tokens of a per-paper answer or a row of cells, about.
const ANSWER_TOKENS: u64 = 500;
/// Instructions and framing of each call, about.
const FIXED_TOKENS: u64 = 900;

/// What a run would spend.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "WorkEstimate"))]
pub struct Estimate {
    pub papers: usize,
    /// Papers already answered (or current), which cost nothing.
    pub reused: usize,
    pub calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// `None` when the model has no price in the table.
    pub cost_usd: Option<f64>,
    /// The papers' calls sent as a batch (`--batch`), the composing as ever.
    pub batch: BatchPrice,
}

impl Estimate {
    /// Count one paper still to read.
    pub fn add_paper(&mut self, settings: &ModelSettings, pages: &[String]) {
        let budget = chunks::text_budget(settings, FIXED_TOKENS);
        let parts = chunks::split(pages, budget).len().max(1) as u64;
        let text: u64 = pages.iter().map(|p| count_tokens(p)).sum();
        self.papers += 1;
        self.calls += parts;
        self.input_tokens += text + parts * FIXED_TOKENS;
        self.output_tokens += parts * ANSWER_TOKENS;
    }

    /// Add the composing calls of `sources` expected sources and price it all.
    pub fn finish(mut self, model: &str, prices: &PriceTable, composing: u64) -> Self {
        let papers_cost = prices.cost(
            model,
            Usage {
                input_tokens: self.input_tokens,
                output_tokens: self.output_tokens,
            },
        );
        self.calls += composing;
        self.input_tokens += composing * (super::compose::CALL_BUDGET_TOKENS + 300);
        self.output_tokens += composing * 400;
        self.cost_usd = prices.cost(
            model,
            Usage {
                input_tokens: self.input_tokens,
                output_tokens: self.output_tokens,
            },
        );
        self.batch = BatchPrice {
            cost_usd: self
                .cost_usd
                .zip(papers_cost)
                .map(|(all, papers)| all - papers * (1.0 - BATCH_PRICE_SHARE)),
            wait_hours: BATCH_WINDOW_HOURS,
        };
        self
    }
}

/// Papers of `chosen` not yet answered, counted into an estimate.
pub fn of_papers<'a>(
    settings: &ModelSettings,
    papers: impl Iterator<Item = (&'a PaperRecord, &'a [String], bool)>,
) -> Estimate {
    let mut estimate = Estimate::default();
    for (_, pages, done) in papers {
        if done {
            estimate.reused += 1;
        } else {
            estimate.add_paper(settings, pages);
        }
    }
    estimate
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_a_batch_the_papers_calls_cost_half_and_the_composing_as_ever() {
        let settings = ModelSettings {
            model: "gpt-4o-mini".into(),
            ..ModelSettings::default()
        };
        let prices = PriceTable::builtin();
        let pages = vec!["Write-ahead logging makes commits durable. ".repeat(400)];
        let mut papers_only = Estimate::default();
        papers_only.add_paper(&settings, &pages);
        papers_only.add_paper(&settings, &pages);
        let with_composing = papers_only.clone().finish(&settings.model, &prices, 1);
        let papers_only = papers_only.finish(&settings.model, &prices, 0);
        let (all, papers) = (
            with_composing.cost_usd.unwrap(),
            papers_only.cost_usd.unwrap(),
        );
        let composing = all - papers;
        assert!(composing > 0.0 && papers > 0.0);
        let batch = with_composing.batch.cost_usd.unwrap();
        assert!(
            (batch - (papers * 0.5 + composing)).abs() < 1e-12,
            "{batch} vs {papers}/2 + {composing}"
        );
        assert_eq!(with_composing.batch.wait_hours, 24);

        let unpriced = Estimate::default().finish("no-such-model", &prices, 1);
        assert_eq!(unpriced.batch.cost_usd, None);
    }
}
