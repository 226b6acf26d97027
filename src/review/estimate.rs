//! What an agent review will cost before it spends anything: papers and their
//! tokens, the model calls it expects, tokens in and out, the cost from the
//! price table, and the time at the profile's concurrency.
//!
//! Computed from the extracted texts (extraction needs no model) with the same
//! chunking the reader uses, and from what the agents' prompts are bounded by:
//! every agent step costs at most its prompt budget plus its fixed part.
//!
//! The synthesis adds a call per group of included papers
//! ([`synthesis::GROUP_PAPERS`]), counted as if every paper were included.
//!
//! Two figures come out: what the run is expected to spend when the model
//! answers well, and an upper bound for a model that needs every second chance
//! Quire gives it: each part's answer retried once as malformed (the retry
//! carries the first answer), each paper asked again once for coherence, each
//! failed paper read again by the sweep, every answer as long as the output
//! cap allows, and the agents at twice their planned steps. A model that loops
//! beyond that is stopped only by `--max-tokens`, which the bound says.

use serde::Serialize;

use super::dual::{Policy, Slot};
use super::engine::agent::{Coverage, MAX_ATTEMPTS, TOOL_NAMES, synthesis};
use super::reading::{PaperInput, chunk_budget, chunks, fingerprint};
use super::{ReviewError, ReviewSpec, paper_text};
use crate::agent::{AgentSet, AgentSpec};
use crate::llm::ModelSettings;
use crate::llm::Usage;
use crate::llm::accounting::{PriceTable, count_tokens};
use crate::llm::batch::{BATCH_PRICE_SHARE, BATCH_WINDOW_HOURS};
use crate::workspace::{PaperRecord, Workspace};

/// Tokens of a reader's answer, about.
const READER_ANSWER_TOKENS: u64 = 700;
/// Tokens of an agent step's answer (one or two tool calls), about.
const AGENT_ANSWER_TOKENS: u64 = 150;
/// Agent steps besides reading: the planner's (todos, plan, delegating,
/// checking) and the writer's (digests, synthesis, finish), about.
const FIXED_AGENT_STEPS: u64 = 16;

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Estimate {
    pub model: String,
    pub readable: usize,
    pub already_reviewed: usize,
    pub to_read: usize,
    pub paper_tokens: u64,
    /// What the run is expected to spend when the model answers well.
    #[serde(flatten)]
    pub expected: Spend,
    /// The upper bound: every retry, re-ask and second attempt taken.
    pub at_most: Spend,
    /// What the run takes with dual reading, per policy (the second
    /// reading priced as the first model's).
    pub policies: Vec<PolicySpend>,
    pub concurrency: usize,
    /// Model calls one after another, at the profile's concurrency.
    pub serial_rounds: u64,
    /// Wall time at [`ASSUMED_CALL_SECONDS`] a round.
    pub seconds: f64,
    /// The expected run with its readings sent as a batch (`--batch`).
    pub batch: BatchPrice,
}

/// A run whose readings go through a Batch API: the readings at the batch
/// price, the rest as ever, and the window a round of them is answered in
/// (re-asks, when answers need them, go in a round after).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct BatchPrice {
    /// `None` when the model has no price in the table.
    pub cost_usd: Option<f64>,
    /// The provider's window: a round of readings is answered within it.
    pub wait_hours: u32,
}

/// Model calls and tokens a run spends, and their cost.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Spend {
    pub reader_calls: u64,
    pub agent_steps: u64,
    /// The synthesis's calls, one per group of included papers.
    pub digest_calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// `None` when the model has no price in the table.
    pub cost_usd: Option<f64>,
}

/// A dual-reading policy's whole run: the single reading's spend plus the
/// second readings (and, for the tie-breaker, third readings).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PolicySpend {
    pub policy: Policy,
    pub expected: Spend,
    pub at_most: Spend,
}

/// The share of papers two independent readings are taken to disagree on,
/// for the tie-breaker's expected third readings: about what human
/// screening pairs show (kappa around 0.8 at the usual inclusion rates).
pub const ASSUMED_DISAGREEMENT: f64 = 0.15;

/// What reading some papers costs: their text, the calls, the tokens in,
/// and the same at worst.
#[derive(Clone, Copy, Debug, Default)]
struct ReaderCost {
    text: u64,
    calls: u64,
    input: u64,
    worst_calls: u64,
    worst_input: u64,
}

impl std::ops::Add for ReaderCost {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Self {
            text: self.text + o.text,
            calls: self.calls + o.calls,
            input: self.input + o.input,
            worst_calls: self.worst_calls + o.worst_calls,
            worst_input: self.worst_input + o.worst_input,
        }
    }
}

impl ReaderCost {
    /// A share of this reading's spend, expected and at worst.
    fn spend(self, share: f64, max_output: u64) -> (Spend, Spend) {
        let part = |n: u64| (n as f64 * share).ceil() as u64;
        let expected = Spend {
            reader_calls: part(self.calls),
            agent_steps: 0,
            digest_calls: 0,
            input_tokens: part(self.input),
            output_tokens: part(self.calls * READER_ANSWER_TOKENS),
            cost_usd: None,
        };
        let at_most = Spend {
            reader_calls: self.worst_calls,
            agent_steps: 0,
            digest_calls: 0,
            input_tokens: self.worst_input,
            output_tokens: self.worst_calls * max_output,
            cost_usd: None,
        };
        (expected, at_most)
    }
}

/// Per paper, the worst case: every part asked twice (a malformed answer is
/// retried with the answer in the prompt), plus one re-ask of its largest
/// part, also twice; all of it once more if the paper fails and is read again.
fn reader_cost(
    ws: &Workspace,
    spec: &ReviewSpec,
    settings: &ModelSettings,
    reader: &AgentSpec,
    paper: &PaperRecord,
) -> Result<ReaderCost, ReviewError> {
    let max_output = settings.max_output_tokens as u64;
    let text = paper_text::load_text(ws, &paper.id)?.unwrap_or_default();
    let input = PaperInput::for_review(spec, paper.title.as_deref(), &text);
    let pages = &text.for_reader;
    let parts = chunks::split(pages, chunk_budget(settings, reader, &input));
    let text: u64 = pages.iter().map(|p| count_tokens(p)).sum();
    let fixed = count_tokens(&reader.system_prompt) + 200;
    let retry = fixed + max_output + RETRY_TURN_TOKENS;
    let largest = parts
        .iter()
        .map(|p| count_tokens(&p.text))
        .max()
        .unwrap_or(0);
    let attempts = MAX_ATTEMPTS as u64;
    let n = parts.len() as u64;
    Ok(ReaderCost {
        text,
        calls: n,
        input: text + n * fixed,
        worst_calls: attempts * (2 * n + 2),
        worst_input: attempts
            * (2 * (text + n * fixed)
                + n * (max_output + RETRY_TURN_TOKENS)
                + 2 * (largest + fixed)
                + retry),
    })
}

/// Each dual-reading policy's run: the second reading of every paper that
/// lacks one; for the tie-breaker, a third reading of the papers the two
/// disagree on ([`ASSUMED_DISAGREEMENT`] of them expected, all at most).
fn dual_costs(
    ws: &Workspace,
    spec: &ReviewSpec,
    settings: &ModelSettings,
    prices: &PriceTable,
    reader: &AgentSpec,
    coverage: &Coverage,
    (single, single_worst): (&Spend, &Spend),
) -> Result<Vec<PolicySpend>, ReviewError> {
    let max_output = settings.max_output_tokens as u64;
    let with = |slot: Slot| {
        let mut spec = reader.clone();
        spec.system_prompt.push_str(slot.instructions());
        spec
    };
    let (second_reader, third_reader) = (with(Slot::Second), with(Slot::Tiebreak));
    let done = Coverage::load_slot(
        ws,
        spec,
        &fingerprint(&settings.model, &second_reader),
        Slot::Second,
    )?
    .done;
    let (mut second, mut third) = (ReaderCost::default(), ReaderCost::default());
    for paper in coverage.readable.values() {
        if !done.contains(&paper.id) {
            second = second + reader_cost(ws, spec, settings, &second_reader, paper)?;
        }
        third = third + reader_cost(ws, spec, settings, &third_reader, paper)?;
    }
    let priced = |s: Spend| Spend {
        cost_usd: prices.cost(
            &settings.model,
            Usage {
                input_tokens: s.input_tokens,
                output_tokens: s.output_tokens,
            },
        ),
        ..s
    };
    let plus = |a: &Spend, b: &Spend| {
        priced(Spend {
            reader_calls: a.reader_calls + b.reader_calls,
            agent_steps: a.agent_steps + b.agent_steps,
            digest_calls: a.digest_calls + b.digest_calls,
            input_tokens: a.input_tokens + b.input_tokens,
            output_tokens: a.output_tokens + b.output_tokens,
            cost_usd: None,
        })
    };
    let (second_expected, second_worst) = second.spend(1.0, max_output);
    let (third_expected, third_worst) = third.spend(ASSUMED_DISAGREEMENT, max_output);
    Ok(Policy::ALL
        .into_iter()
        .map(|policy| {
            let (mut expected, mut at_most) = (
                plus(single, &second_expected),
                plus(single_worst, &second_worst),
            );
            if policy == Policy::TieBreaker {
                expected = plus(&expected, &third_expected);
                at_most = plus(&at_most, &third_worst);
            }
            PolicySpend {
                policy,
                expected,
                at_most,
            }
        })
        .collect())
}

/// The words of the retry turns a malformed or incoherent answer adds, about.
const RETRY_TURN_TOKENS: u64 = 80;

/// What a model call is taken to last for the time estimate: a mid-sized
/// hosted or local model answering a few thousand tokens of paper.
pub const ASSUMED_CALL_SECONDS: f64 = 8.0;

pub fn estimate(
    ws: &Workspace,
    spec: &ReviewSpec,
    settings: &ModelSettings,
    prices: &PriceTable,
) -> Result<Estimate, ReviewError> {
    let agents = AgentSet::load(Some(ws), &TOOL_NAMES).map_err(crate::agent::RuntimeError::from)?;
    let reader = agents
        .get("reader")
        .map_err(crate::agent::RuntimeError::from)?;
    let reviewer = agents
        .get("reviewer")
        .map_err(crate::agent::RuntimeError::from)?;
    let coverage = Coverage::load(ws, spec, &fingerprint(&settings.model, reader))?;
    let open: Vec<_> = coverage.missing();
    let mut first = ReaderCost::default();
    for paper in &open {
        first = first + reader_cost(ws, spec, settings, reader, paper)?;
    }
    let ReaderCost {
        text: paper_tokens,
        calls: reader_calls,
        input: reader_input,
        worst_calls,
        worst_input,
    } = first;
    let max_output = settings.max_output_tokens as u64;
    let batch = super::engine::agent::batch_size(settings.total_concurrency()) as u64;
    let batches = (open.len() as u64).div_ceil(batch);
    // A list and a read per batch, a consolidation every tenth step.
    let reading_steps = batches * 2;
    let agent_steps = (FIXED_AGENT_STEPS + reading_steps) * 11 / 10;
    let per_step = reviewer.prompt_budget as u64 + count_tokens(&reviewer.system_prompt) + 2_500; // tool specs, task and headings
    // The synthesis's digests: a call per group of included papers, counted
    // as if every readable paper were included (known only once read).
    let digest_calls = (coverage.readable.len() as u64).div_ceil(synthesis::GROUP_PAPERS as u64);
    let digest_input = count_tokens(synthesis::SYSTEM_PROMPT)
        + synthesis::GROUP_PAPERS as u64 * synthesis::LINE_TOKENS;
    let digest_output = synthesis::MAX_DIGEST_TOKENS as u64;
    let input_tokens = reader_input + agent_steps * per_step + digest_calls * digest_input;
    let output_tokens = reader_calls * READER_ANSWER_TOKENS
        + agent_steps * AGENT_ANSWER_TOKENS
        + digest_calls * digest_output / 2;
    let cost_usd = prices.cost(
        &settings.model,
        Usage {
            input_tokens,
            output_tokens,
        },
    );
    // At most: every digest asked again, with its first answer in the prompt.
    let worst_steps = agent_steps * 2;
    let worst_input = worst_input
        + worst_steps * per_step
        + digest_calls * (2 * digest_input + digest_output + RETRY_TURN_TOKENS);
    let worst_output = (worst_calls + worst_steps) * max_output + 2 * digest_calls * digest_output;
    let at_most = Spend {
        reader_calls: worst_calls,
        agent_steps: worst_steps,
        digest_calls: 2 * digest_calls,
        input_tokens: worst_input,
        output_tokens: worst_output,
        cost_usd: prices.cost(
            &settings.model,
            Usage {
                input_tokens: worst_input,
                output_tokens: worst_output,
            },
        ),
    };
    let readings_cost = prices.cost(
        &settings.model,
        Usage {
            input_tokens: reader_input,
            output_tokens: reader_calls * READER_ANSWER_TOKENS,
        },
    );
    let batch = BatchPrice {
        cost_usd: cost_usd
            .zip(readings_cost)
            .map(|(all, readings)| all - readings * (1.0 - BATCH_PRICE_SHARE)),
        wait_hours: BATCH_WINDOW_HOURS,
    };
    let concurrency = settings.total_concurrency().max(1);
    let serial_rounds = agent_steps + (reader_calls + digest_calls).div_ceil(concurrency as u64);
    let expected = Spend {
        reader_calls,
        agent_steps,
        digest_calls,
        input_tokens,
        output_tokens,
        cost_usd,
    };
    let policies = dual_costs(
        ws,
        spec,
        settings,
        prices,
        reader,
        &coverage,
        (&expected, &at_most),
    )?;
    Ok(Estimate {
        model: settings.model.clone(),
        readable: coverage.readable.len(),
        already_reviewed: coverage.done.len(),
        to_read: open.len(),
        paper_tokens,
        expected,
        at_most,
        policies,
        concurrency,
        serial_rounds,
        seconds: serial_rounds as f64 * ASSUMED_CALL_SECONDS,
        batch,
    })
}
