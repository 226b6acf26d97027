//! Dual reading end to end through the CLI: every paper read a second time by
//! another model server (a real HTTP server with its own answers), the third
//! reading where they disagree, the policies' verdicts, the agreement in the
//! report, and no reading made twice.

use std::path::Path;

use serde_json::Value;
use testkit::{ScriptedServer, ServerOptions, Step};

use super::agent_review::reader_calls;
use super::support::{dev_pdfs, folder_of, quire_review};

const QUESTION: &str = "How do databases recover from crashes and keep transactions durable?";

/// A second screener that excludes everything, in the reader's JSON shape:
/// whatever the first reading keeps is a disagreement.
fn excluding_answer() -> Step {
    Step::text(
        r#"{"summary": "The paper studies a subject other than the review question and reports its own results on it.", "key_points": [], "score": 1, "verdict": "exclude", "rationale": "It does not address how databases recover from crashes.", "evidence": [], "criteria": []}"#,
    )
}

fn config_with_two_profiles(first: &str, second: &str) -> tempfile::TempDir {
    let config = tempfile::tempdir().unwrap();
    std::fs::write(
        config.path().join("models.toml"),
        format!(
            "default = \"scripted\"\n\n[profiles.scripted]\nbase_url = \"{first}\"\nmodel = \"scripted-reader\"\n\n[profiles.strict]\nbase_url = \"{second}\"\nmodel = \"strict-screener\"\n"
        ),
    )
    .unwrap();
    config
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn verdicts(summary: &Value) -> Vec<(String, String)> {
    summary["papers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["verdict"].is_string())
        .map(|p| {
            (
                p["sha256"].as_str().unwrap()[..16].to_owned(),
                p["verdict"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn each_paper_is_read_twice_and_disagreements_are_settled_by_the_policy_chosen() {
    let first = ScriptedServer::start(ServerOptions::default())
        .await
        .unwrap();
    let second = ScriptedServer::start(ServerOptions::default())
        .await
        .unwrap();
    second.push((0..200).map(|_| excluding_answer()));
    let config = config_with_two_profiles(&first.base_url(), &second.base_url());
    let data = tempfile::tempdir().unwrap();
    let mut pdfs = dev_pdfs("databases", 3);
    pdfs.extend(dev_pdfs("machine-learning", 2));
    let folder = folder_of(&pdfs);
    let ws = data.path().join("ws");
    let ws_arg = ws.to_str().unwrap().to_owned();
    let review = async |extra: &[&str]| {
        let mut args = vec!["--workspace", ws_arg.as_str(), "--json"];
        args.extend_from_slice(extra);
        let out = quire_review(folder.path(), QUESTION, config.path(), data.path(), &args).await;
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };

    // Before the run, the estimate prices each policy: a second reading
    // costs about as much again, a tie-breaker more.
    let estimate = review(&["--estimate"]).await;
    let policies = estimate["policies"].as_array().unwrap();
    assert_eq!(policies.len(), 3);
    let calls = |p: &Value| p["expected"]["readerCalls"].as_u64().unwrap();
    let single = estimate["readerCalls"].as_u64().unwrap();
    let agree = policies
        .iter()
        .find(|p| p["policy"] == "agree-to-exclude")
        .unwrap();
    let tie = policies
        .iter()
        .find(|p| p["policy"] == "tie-breaker")
        .unwrap();
    assert!(calls(agree) >= 2 * single - 1, "{estimate}");
    assert!(calls(tie) > calls(agree), "{estimate}");
    assert!(tie["atMost"]["readerCalls"].as_u64() > agree["atMost"]["readerCalls"].as_u64());

    // The tie-breaker: the second reading by another model excludes every
    // paper; a third reading decides each paper the first kept.
    let run = review(&["--dual", "tie-breaker", "--second-profile", "strict"]).await;
    assert_eq!(run["status"], "done");
    let papers = ws.join("papers");
    let ids: Vec<String> = std::fs::read_dir(&papers)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let mut kept_first = Vec::new();
    for id in &ids {
        let dir = papers.join(id);
        let first_reading = read_json(&dir.join("result.json"));
        let second_reading = read_json(&dir.join("result.b.json"));
        assert_eq!(second_reading["verdict"], "exclude");
        assert_eq!(second_reading["provenance"]["model"], "strict-screener");
        assert_eq!(second_reading["provenance"]["coveredBy"], "second reading");
        let kept = first_reading["verdict"] != "exclude";
        assert_eq!(
            dir.join("result.c.json").exists(),
            kept,
            "a third reading exactly where the two disagree ({id})"
        );
        if kept {
            kept_first.push(id.clone());
        }
    }
    assert!(!kept_first.is_empty(), "the first reader keeps some papers");
    assert!(kept_first.len() < ids.len(), "and excludes some");
    // The third reading (the first model, reading again on its own) keeps
    // them: two of three.
    let shown = verdicts(&run);
    for (id, verdict) in &shown {
        assert_eq!(
            verdict != "exclude",
            kept_first.contains(id),
            "{id}: {verdict}"
        );
    }
    let report = std::fs::read_to_string(ws.join("report.md")).unwrap();
    assert!(report.contains("## Dual reading"), "{report}");
    assert!(
        report.contains("(the second reading by strict-screener)"),
        "{report}"
    );
    assert!(
        report.contains(&format!(
            "| Decided by a third reading | {} |",
            kept_first.len()
        )),
        "{report}"
    );
    // The strict screener excludes every paper: kappa's formula would say
    // 0.00 ("no agreement beyond chance"); it is not defined, and says why.
    assert!(
        report.contains(
            "Cohen's kappa, maybe counting as include): not defined: the second reading excluded \
             every paper"
        ),
        "{report}"
    );
    let methods = report
        .lines()
        .find(|l| l.starts_with("> We screened"))
        .unwrap();
    assert!(
        methods.contains("Each of the 5 papers was read twice, independently"),
        "{methods}"
    );
    assert!(
        methods.contains("a third independent reading decided"),
        "{methods}"
    );

    // Resuming, or changing the policy, reads nothing again.
    let (first_reads, second_calls) = (reader_calls(&first.requests()), second.requests().len());
    let flag = review(&["--dual", "flag", "--second-profile", "strict"]).await;
    assert_eq!(reader_calls(&first.requests()), first_reads);
    assert_eq!(second.requests().len(), second_calls);
    for (id, verdict) in verdicts(&flag) {
        let expected = if kept_first.contains(&id) {
            "maybe"
        } else {
            "exclude"
        };
        assert_eq!(
            verdict, expected,
            "flag: a disagreement waits for the researcher ({id})"
        );
    }
    let agree = review(&["--dual", "agree-to-exclude", "--second-profile", "strict"]).await;
    assert_eq!(verdicts(&agree), shown, "excluded only when both exclude");
    assert_eq!(reader_calls(&first.requests()), first_reads);

    // Without --dual the first reading stands alone again; the second
    // readings stay on disk for a later dual run.
    let single = review(&[]).await;
    assert!(!ws.join("dual.json").exists());
    assert!(
        ws.join("papers")
            .join(&ids[0])
            .join("result.b.json")
            .exists()
    );
    let report = std::fs::read_to_string(ws.join("report.md")).unwrap();
    assert!(!report.contains("## Dual reading"));
    assert_eq!(verdicts(&single).len(), ids.len());
}
