//! The protocol gate of an agent review, end to end through the CLI against
//! the scripted model server: a draft and no reading before approval, the
//! researcher's edited text given to the reader with every paper, a pilot,
//! the rest read without redoing the pilot, and the report naming it all.

use std::path::{Path, PathBuf};

use serde_json::Value;
use testkit::{ScriptedServer, ServerOptions};

use super::agent_review::reader_calls;
use super::support::{dev_pdfs, folder_of, quire_agent_review, scripted_config};

const QUESTION: &str = "How do databases recover from crashes and keep transactions durable?";
/// A line only the researcher's edit has, so the reader's prompts show
/// which text they were given.
const EDIT: &str = "- Papers that only simulate crashes count at most 5-6.";

fn protocol_file(ws: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(ws.join("protocol.json")).unwrap()).unwrap()
}

fn results_in(ws: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(ws.join("papers"))
        .unwrap()
        .map(|e| e.unwrap().path().join("result.json"))
        .filter(|p| p.exists())
        .collect()
}

fn stdout_json(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[tokio::test]
async fn no_paper_is_read_before_the_researcher_approves_the_protocol_the_reader_then_gets() {
    let server = ScriptedServer::start(ServerOptions::default())
        .await
        .unwrap();
    let config = scripted_config(&server.base_url(), "");
    let data = tempfile::tempdir().unwrap();
    let folder = folder_of(&dev_pdfs("databases", 4));
    let ws = data.path().join("ws");
    let ws_arg = ws.to_str().unwrap().to_owned();
    let review = async |extra: &[&str]| {
        let mut args = vec!["--workspace", ws_arg.as_str()];
        args.extend_from_slice(extra);
        quire_agent_review(folder.path(), QUESTION, config.path(), data.path(), &args).await
    };

    // 1. No approval: the planner's draft is printed and nothing is read.
    let first = review(&[]).await;
    assert_eq!(
        first.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let draft = String::from_utf8_lossy(&first.stdout).into_owned();
    assert!(draft.contains("## Scores"), "{draft}");
    assert!(draft.contains("recover from crashes"), "{draft}");
    assert!(String::from_utf8_lossy(&first.stderr).contains("--approve"));
    assert_eq!(server.requests().len(), 1, "one call: the draft");
    assert!(reader_calls(&server.requests()).is_empty());
    assert!(results_in(&ws).is_empty(), "no paper was read");
    let history = protocol_file(&ws)["history"].clone();
    assert_eq!(history.as_array().unwrap().len(), 1);
    assert_eq!(history[0]["event"], "drafted");
    assert_eq!(history[0]["origin"], "drafted");
    assert_eq!(history[0]["model"], "scripted-reader");

    // A hash that is not the shown draft's approves nothing.
    let wrong = review(&["--approve", "deadbeef"]).await;
    assert!(!wrong.status.success());
    let said = String::from_utf8_lossy(&wrong.stderr);
    assert!(said.contains("protocol_mismatch"), "{said}");
    let shown_hash = history[0]["hash"].as_str().unwrap_or_default().to_owned();
    assert!(
        said.contains(&shown_hash),
        "the error names the draft's hash: {said}"
    );
    assert!(results_in(&ws).is_empty(), "no paper was read");
    assert!(protocol_file(&ws)["approved"].is_null(), "nothing approved");

    // 2. The researcher edits the draft, approves it from a file and runs a
    // pilot on two papers.
    let edited = data.path().join("protocol.md");
    std::fs::write(&edited, format!("{}\n{EDIT}\n", draft.trim())).unwrap();
    let pilot = stdout_json(
        &review(&[
            "--protocol",
            edited.to_str().unwrap(),
            "--pilot",
            "2",
            "--json",
        ])
        .await,
    );
    assert_eq!(pilot["status"], "pilot");
    assert_eq!(pilot["agent"]["coveredByPilot"], 2);
    assert_eq!(results_in(&ws).len(), 2);
    let reads = server.requests();
    let reader_prompts: Vec<String> = reads
        .iter()
        .filter_map(|r| {
            let turns = r.turns();
            let user = turns.iter().find(|t| t.role == "user")?;
            user.text
                .contains("=== page 1 ===")
                .then(|| user.text.clone())
        })
        .collect();
    assert!(!reader_prompts.is_empty());
    assert!(
        reader_prompts
            .iter()
            .all(|p| p.contains("<protocol>") && p.contains(EDIT)),
        "every reading carries the approved, edited text"
    );
    let file = protocol_file(&ws);
    let history = file["history"].as_array().unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(history[1]["event"], "approved");
    assert_eq!(history[1]["origin"], "researcher");
    let hash = history[1]["hash"].as_str().unwrap().to_owned();
    assert_ne!(history[0]["hash"], history[1]["hash"]);
    assert_eq!(file["pilots"][0]["hash"], hash.as_str());
    assert_eq!(file["pilots"][0]["papers"].as_array().unwrap().len(), 2);
    // The agents read the approved text and cannot write it.
    assert!(
        std::fs::read_to_string(ws.join("protocol.md"))
            .unwrap()
            .contains(EDIT)
    );

    // 3. Without flags the approved protocol stands: the rest is read, and
    // the pilot's papers are not read again.
    let pilot_reads = reader_calls(&server.requests());
    let rest = stdout_json(&review(&["--json"]).await);
    assert_eq!(rest["status"], "done");
    assert_eq!(results_in(&ws).len(), 4);
    let all_reads = reader_calls(&server.requests());
    for (title, n) in &pilot_reads {
        assert_eq!(all_reads[title], *n, "{title} was read again");
    }
    assert_eq!(all_reads.len(), 4);

    // 4. The report names the protocol, its authorship, hash and pilot, and
    // quotes the text the reader got.
    let report = std::fs::read_to_string(ws.join("report.md")).unwrap();
    assert!(report.contains("## Protocol"), "{report}");
    assert!(
        report.contains("drafted by scripted-reader, edited and approved by the researcher"),
        "{report}"
    );
    assert!(report.contains(&format!("version `{hash}`")), "{report}");
    assert!(
        report.contains("A pilot read 2 papers under it"),
        "{report}"
    );
    assert!(report.contains(&format!("> {EDIT}")), "{report}");
    let methods = report
        .lines()
        .find(|l| l.starts_with("> We screened"))
        .unwrap();
    assert!(
        methods.contains(&format!("(version {hash}), after a pilot on 2 papers")),
        "{methods}"
    );

    // 5. A changed protocol makes every earlier reading stale: a pilot of
    // one under the new text reads a paper again, and the estimate counts
    // only that one as reviewed.
    let before = stdout_json(&review(&["--estimate", "--json"]).await);
    assert_eq!(before["alreadyReviewed"], 4);
    std::fs::write(&edited, format!("{}\n- One more rule.\n", draft.trim())).unwrap();
    let again = stdout_json(
        &review(&[
            "--protocol",
            edited.to_str().unwrap(),
            "--pilot",
            "1",
            "--json",
        ])
        .await,
    );
    assert_eq!(again["status"], "pilot");
    let reread = reader_calls(&server.requests());
    assert_eq!(
        reread.values().sum::<usize>(),
        all_reads.values().sum::<usize>() + 1
    );
    let after = stdout_json(&review(&["--estimate", "--json"]).await);
    assert_eq!(after["alreadyReviewed"], 1);
}

#[tokio::test]
async fn a_pilot_that_scores_none_of_its_papers_ends_failed() {
    // Every reading answer is broken JSON, asked again or not.
    let server = ScriptedServer::start(ServerOptions {
        policy: testkit::Policy::Fallible {
            seed: 3,
            rate: 1.0,
            only: &[testkit::Mistake::InvalidJson],
        },
        ..ServerOptions::default()
    })
    .await
    .unwrap();
    let config = scripted_config(&server.base_url(), "");
    let data = tempfile::tempdir().unwrap();
    let folder = folder_of(&dev_pdfs("databases", 4));
    let ws = data.path().join("ws");
    let protocol = data.path().join("protocol.md");
    std::fs::write(&protocol, format!("# Protocol\n\n{EDIT}\n")).unwrap();
    let args = [
        "--workspace",
        ws.to_str().unwrap(),
        "--protocol",
        protocol.to_str().unwrap(),
        "--pilot",
        "2",
    ];
    let out = quire_agent_review(folder.path(), QUESTION, config.path(), data.path(), &args).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("Status: failed: the pilot could score none of the papers it read"),
        "{stdout}"
    );
    assert!(results_in(&ws).is_empty());
}
