//! The scripted reader's answers, request by request.

use super::*;
use crate::request::Protocol;

fn request(body: Value) -> RecordedRequest {
    RecordedRequest {
        protocol: Protocol::OpenAi,
        path: "/v1/chat/completions".into(),
        headers: Vec::new(),
        body,
    }
}

const PAPER: &str = "=== page 1 ===\nLearned Index Structures\nWe replace B-trees with learned models of the key distribution. \
    The models predict the position of a key in a sorted array.\n=== page 2 ===\nOn real datasets the learned index \
    is faster than a B-tree and uses less memory. Range queries remain supported by a final local search.\n";

#[test]
fn answers_a_reading_request_from_the_text_with_real_quotes() {
    let body = json!({"model": "m", "messages": [
        {"role": "system", "content": "Read the paper and answer in JSON."},
        {"role": "user", "content": format!("Question: Can learned models replace B-tree index structures?\n\n{PAPER}")},
    ]});
    let (text, calls) = answer(&request(body));
    assert!(calls.is_empty());
    let v: Value = serde_json::from_str(&text).unwrap();
    assert!(
        v["summary"]
            .as_str()
            .unwrap()
            .starts_with("We replace B-trees")
    );
    let score = v["score"].as_f64().unwrap();
    assert!(score >= 5.0, "most question terms occur: {score}");
    for q in v["quotes"].as_array().unwrap() {
        let page = q["page"].as_u64().unwrap() as u32;
        let text = q["text"].as_str().unwrap();
        let page_text = split_pages(PAPER)
            .into_iter()
            .find(|(n, _)| *n == page)
            .unwrap()
            .1
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(page_text.contains(text), "{text:?} is on page {page}");
    }
}

#[test]
fn an_unrelated_question_scores_low() {
    let body = json!({"model": "m", "messages": [
        {"role": "user", "content": format!("Question: protein folding with molecular dynamics\n{PAPER}")},
    ]});
    let (text, _) = answer(&request(body));
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["score"], json!(0.0));
    assert!(v["quotes"].as_array().unwrap().is_empty());
}

#[test]
fn fills_a_result_tool_by_its_schema() {
    let tool = json!({"type": "function", "function": {"name": "submit_assessment", "description": "", "parameters": {
        "type": "object",
        "properties": {
            "summary": {"type": "string"},
            "relevance": {"type": "integer", "minimum": 1, "maximum": 5},
            "why": {"type": "string"},
            "evidence": {"type": "array", "items": {"type": "object", "properties": {"quote": {"type": "string"}, "page": {"type": "integer"}}}}
        }
    }}});
    let body = json!({"model": "m", "tools": [tool], "messages": [
        {"role": "user", "content": format!("Review question: learned index structures\n{PAPER}")},
    ]});
    let (_, calls) = answer(&request(body));
    assert_eq!(calls.len(), 1);
    let args: Value = serde_json::from_str(&calls[0].arguments).unwrap();
    assert_eq!(args["relevance"], json!(5));
    assert!(args["why"].as_str().unwrap().contains("learned"));
    assert!(args["evidence"][0]["page"].as_u64().is_some());
}

#[test]
fn follows_the_todo_list_and_skips_what_it_already_did() {
    let tools = json!([
        {"type": "function", "function": {"name": "read_file", "description": "", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}},
        {"type": "function", "function": {"name": "grep", "description": "", "parameters": {"type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]}}},
    ]);
    let todo = "- [x] read_file task.json\n- [ ] read_file papers/a/text.md\n- [ ] grep for \"B-tree\" in the papers";
    let first =
        json!({"model": "m", "tools": tools, "messages": [{"role": "user", "content": todo}]});
    let (_, calls) = answer(&request(first));
    assert_eq!(calls[0].name, "read_file");
    assert_eq!(calls[0].arguments, r#"{"path":"papers/a/text.md"}"#);
    let second = json!({"model": "m", "tools": tools, "messages": [
        {"role": "user", "content": todo},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"papers/a/text.md\"}"}}]},
        {"role": "tool", "tool_call_id": "1", "content": "some text"},
    ]});
    let (_, calls) = answer(&request(second));
    assert_eq!(calls[0].name, "grep");
    assert_eq!(calls[0].arguments, r#"{"pattern":"B-tree"}"#);
}
