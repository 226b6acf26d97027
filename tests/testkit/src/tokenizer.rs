//! How the server counts a prompt's tokens. A real tokenizer is not Quire's
//! estimate: Gemma's or Llama 3's large vocabularies count English at five to
//! seven bytes a token, code and symbols go at two or three, and a chat
//! template may leave the tool schemas out of the prompt altogether. A server
//! that counts exactly as Quire estimates can never show a check that
//! mistakes another tokenizer for a cut prompt; these can.

use crate::request::RecordedRequest;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tokenizer {
    /// Bytes of text one token stands for on average.
    pub bytes_per_token: f64,
    /// Whether the chat template renders the tool schemas into the prompt.
    pub renders_tools: bool,
}

impl Tokenizer {
    /// A token per four bytes of every turn plus the tool specs (close to a
    /// BPE tokenizer on English and JSON).
    pub const QUARTER: Tokenizer = Tokenizer {
        bytes_per_token: 4.0,
        renders_tools: true,
    };
    /// A large vocabulary (Gemma 3's 262k entries) and a template that drops
    /// the tool schemas: far fewer tokens than bytes over four.
    pub const DENSE: Tokenizer = Tokenizer {
        bytes_per_token: 6.5,
        renders_tools: false,
    };
    /// A small vocabulary on symbol-heavy text: more tokens than bytes over four.
    pub const SPARSE: Tokenizer = Tokenizer {
        bytes_per_token: 2.5,
        renders_tools: true,
    };

    /// The prompt's tokens by this tokenizer.
    pub fn count(&self, request: &RecordedRequest) -> u64 {
        let turns: usize = request.turns().iter().map(|t| t.text.len()).sum();
        let tools = if self.renders_tools {
            request
                .body
                .get("tools")
                .map(|t| t.to_string().len())
                .unwrap_or(0)
        } else {
            0
        };
        self.tokens_of((turns + tools) as u64)
    }

    /// Tokens in `bytes` bytes of text.
    pub fn tokens_of(&self, bytes: u64) -> u64 {
        (bytes as f64 / self.bytes_per_token).ceil() as u64
    }

    /// Bytes of text that `tokens` tokens stand for.
    pub fn bytes_of(&self, tokens: u64) -> usize {
        (tokens as f64 * self.bytes_per_token).ceil() as usize
    }
}

impl Default for Tokenizer {
    fn default() -> Self {
        Self::QUARTER
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(text: &str, tools: bool) -> RecordedRequest {
        let mut body = json!({"messages": [{"role": "user", "content": text}]});
        if tools {
            body["tools"] = json!([{"type": "function", "function": {"name": "ls", "description": "x".repeat(400), "parameters": {}}}]);
        }
        RecordedRequest {
            protocol: crate::Protocol::OpenAi,
            path: "/v1/chat/completions".into(),
            headers: Vec::new(),
            body,
        }
    }

    #[test]
    fn the_tokenizers_count_the_same_prompt_differently() {
        let r = request(&"word ".repeat(400), true);
        let (quarter, dense, sparse) = (
            Tokenizer::QUARTER.count(&r),
            Tokenizer::DENSE.count(&r),
            Tokenizer::SPARSE.count(&r),
        );
        assert!(dense * 2 < quarter, "{dense} vs {quarter}");
        assert!(sparse > quarter * 3 / 2, "{sparse} vs {quarter}");
        // The dense template leaves the tools out.
        assert_eq!(
            dense,
            Tokenizer::DENSE.count(&request(&"word ".repeat(400), false))
        );
    }
}
