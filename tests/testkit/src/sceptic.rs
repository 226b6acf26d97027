//! How the scripted server reads as a stricter screener ([`crate::Policy::Sceptic`]):
//! the diligent reading, with the benefit of the doubt taken away. A second
//! reader that disagrees with the first, as a different model does.

use serde_json::{Value, json};

/// A stricter screener's version of a reading's JSON answer: a score under 8
/// loses 4 points (not below 0), and the verdict follows the score.
pub fn sterner(answer: &str) -> String {
    let Ok(Value::Object(mut object)) = serde_json::from_str(answer) else {
        return answer.to_owned();
    };
    let Some(score) = object.get("score").and_then(Value::as_f64) else {
        return answer.to_owned();
    };
    if score >= 8.0 {
        return answer.to_owned();
    }
    let stern = (score - 4.0).max(0.0);
    let verdict = if stern >= 6.5 {
        "include"
    } else if stern >= 4.0 {
        "maybe"
    } else {
        "exclude"
    };
    object.insert("score".into(), json!(stern));
    object.insert("verdict".into(), json!(verdict));
    if let Some(Value::String(rationale)) = object.get_mut("rationale") {
        *rationale =
            format!("Read strictly, the paper does not answer the question squarely. {rationale}");
    }
    Value::Object(object).to_string()
}
