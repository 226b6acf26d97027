//! The JSON body a chat request is sent as, in the profile's protocol: what
//! the provider posts, and what a batch file line carries (so both send the
//! same request, and a batch's request id names what an interactive call
//! would have sent).

use serde_json::Value;

use super::settings::{ModelSettings, Protocol};
use super::types::ChatRequest;
use super::{anthropic, openai};

/// The JSON body `request` is sent as under `settings`: its model (the
/// profile's unless it names one), its answer capped by the profile's.
pub fn wire_body(settings: &ModelSettings, request: &ChatRequest, stream: bool) -> Value {
    let mut request = request.clone();
    request.stream = stream;
    if request.model.is_empty() {
        request.model = settings.model.clone();
    }
    let cap = settings.max_output_tokens;
    request.max_tokens = Some(request.max_tokens.map_or(cap, |m| m.min(cap)));
    match settings.protocol {
        Protocol::Openai => openai::request_body(&request),
        Protocol::Anthropic => anthropic::request_body(&request),
    }
}
