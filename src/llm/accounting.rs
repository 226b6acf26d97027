//! Token accounting: counts from the server's `usage` when it sends one, else
//! estimated locally with tiktoken's o200k vocabulary; costs from a price
//! table the user can edit; and the [`CallLog`] every call is recorded in.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::settings::SettingsError;
use super::types::{ChatRequest, ChatResponse, Usage};
use crate::workspace::ModelCallRecord;

/// The user's price table, in the config folder.
pub const PRICES_FILE: &str = "prices.toml";
const BUILTIN_PRICES: &str = include_str!("prices.toml");

/// Where model calls are recorded. Implementations must be quick: they run
/// between attempts of a call.
pub trait CallLog: Send + Sync {
    fn record(&self, call: &ModelCallRecord);
}

/// The most one attempt can spend: its whole prompt and its longest answer,
/// and what they cost when the model is priced.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Hold {
    pub tokens: u64,
    pub cost_usd: Option<f64>,
}

/// The caps a call must fit under before it starts. The client holds each
/// attempt's worst case ([`Hold`]) from just before it is sent until it is
/// recorded, so calls in flight together can never cross a cap between
/// them; what the attempt really spent reaches the gate through its
/// [`CallLog`] record before the hold is let go.
pub trait SpendGate: Send + Sync {
    /// Hold `hold` for an attempt about to be sent, or say why it may not be.
    fn reserve(&self, hold: Hold) -> Result<(), String>;
    /// Let go of a hold once its attempt is recorded.
    fn release(&self, hold: Hold);
}

#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// US dollars per million input tokens.
    pub input: f64,
    /// US dollars per million output tokens.
    pub output: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceTable {
    #[serde(default)]
    models: BTreeMap<String, Price>,
}

impl PriceTable {
    /// The built-in table (see `src/llm/prices.toml`).
    pub fn builtin() -> Self {
        toml::from_str(BUILTIN_PRICES).unwrap_or_default()
    }

    /// The built-in table overlaid with the user's `prices.toml`, if any.
    pub fn load(config_dir: &Path) -> Result<Self, SettingsError> {
        let mut table = Self::builtin();
        let path = config_dir.join(PRICES_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let user: Self = toml::from_str(&text).map_err(|e| SettingsError::Parse {
                    path,
                    message: e.message().to_owned(),
                })?;
                table.models.extend(user.models);
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(SettingsError::Read { path, source }),
        }
        Ok(table)
    }

    /// The price of a model: an exact entry, else the longest entry that is a
    /// prefix of the id ending at a `-` or `:`.
    pub fn price(&self, model: &str) -> Option<Price> {
        if let Some(price) = self.models.get(model) {
            return Some(*price);
        }
        self.models
            .iter()
            .filter(|(key, _)| {
                model.starts_with(key.as_str())
                    && matches!(model.as_bytes().get(key.len()), Some(b'-' | b':'))
            })
            .max_by_key(|(key, _)| key.len())
            .map(|(_, price)| *price)
    }

    pub fn cost(&self, model: &str, usage: Usage) -> Option<f64> {
        self.price(model).map(|p| {
            (usage.input_tokens as f64 * p.input + usage.output_tokens as f64 * p.output) / 1e6
        })
    }
}

/// Tokens in a text by the o200k vocabulary (GPT-4o's); for other models'
/// vocabularies it is an estimate within a few percent.
pub fn count_tokens(text: &str) -> u64 {
    tiktoken_rs::o200k_base_singleton()
        .encode_with_special_tokens(text)
        .len() as u64
}

/// Per-message framing tokens OpenAI documents for chat formats.
const TOKENS_PER_MESSAGE: u64 = 4;

/// Estimated usage of an exchange, for servers that send none.
pub fn estimate_usage(request: &ChatRequest, answer: Option<&ChatResponse>) -> Usage {
    let mut input: u64 = request
        .messages
        .iter()
        .map(|m| {
            TOKENS_PER_MESSAGE
                + count_tokens(&m.content)
                + m.tool_calls
                    .iter()
                    .map(|c| count_tokens(&c.name) + count_tokens(&c.arguments.to_string()))
                    .sum::<u64>()
        })
        .sum();
    for tool in &request.tools {
        input += count_tokens(&tool.name)
            + count_tokens(&tool.description)
            + count_tokens(&tool.parameters.to_string());
    }
    let output = answer.map_or(0, |a| {
        count_tokens(&a.text)
            + count_tokens(&a.reasoning)
            + a.tool_calls
                .iter()
                .map(|c| count_tokens(&c.name) + count_tokens(&c.arguments.to_string()))
                .sum::<u64>()
    });
    Usage {
        input_tokens: input,
        output_tokens: output,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::Message;

    #[test]
    fn prices_match_exactly_or_by_prefix_and_user_entries_win() {
        let table = PriceTable::builtin();
        let mini = table.price("gpt-4o-mini-2024-07-18").unwrap();
        assert_eq!(mini, table.price("gpt-4o-mini").unwrap());
        assert_ne!(mini, table.price("gpt-4o").unwrap());
        assert_eq!(table.price("gpt-4omni"), None);
        assert_eq!(table.price("qwen3:8b"), None);
        let usage = Usage {
            input_tokens: 1_000_000,
            output_tokens: 500_000,
        };
        assert_eq!(table.cost("gpt-4o", usage), Some(2.5 + 5.0));

        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(PRICES_FILE),
            "[models.\"qwen3\"]\ninput = 0\noutput = 0\n[models.\"gpt-4o\"]\ninput = 1\noutput = 1\n",
        )
        .unwrap();
        let table = PriceTable::load(dir.path()).unwrap();
        assert_eq!(table.cost("qwen3:8b", usage), Some(0.0));
        assert_eq!(table.cost("gpt-4o", usage), Some(1.5));
    }

    #[test]
    fn estimates_grow_with_the_conversation() {
        let short = ChatRequest {
            model: "m".into(),
            messages: vec![Message::user("Hello there")],
            tools: Vec::new(),
            tool_choice: None,
            max_tokens: None,
            stream: false,
            response_format: None,
            cache_prefix: false,
            affinity: None,
        };
        let mut long = short.clone();
        long.messages.push(Message::user(
            "A much longer message about learned index structures.",
        ));
        let (a, b) = (estimate_usage(&short, None), estimate_usage(&long, None));
        assert!(a.input_tokens >= 2 + TOKENS_PER_MESSAGE);
        assert!(b.input_tokens > a.input_tokens + 5);
        assert_eq!(a.output_tokens, 0);
    }
}
