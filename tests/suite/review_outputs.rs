//! What an agent review writes beyond the per-paper results: a synthesis that
//! names every included paper however many there are, and the title and
//! authors a reader read on page one where the page bears them out.

use quire::agent::EventLog;
use quire::review::{ReviewStatus, Verdict};
use quire::workspace::{Workspace, WsPath};
use testkit::ServerOptions;

use super::agent_review::{PROSE, Rig, results};
use super::support::dev_pdfs;

#[tokio::test]
async fn the_synthesis_names_every_included_paper_however_many_and_a_rerun_reuses_its_digests() {
    let mut rig = Rig::new(
        &dev_pdfs("distributed-systems", 30),
        ServerOptions::default(),
    )
    .await;
    // A broad question, so that most papers are included.
    rig.question =
        "What do these papers report about systems, data, servers and their performance?";
    let summary = rig.run(EventLog::new()).await;
    assert_eq!(summary.status, ReviewStatus::Done);
    let ws = Workspace::open_read_only(&rig.workspace()).unwrap();
    let included: Vec<String> = ws
        .papers()
        .unwrap()
        .iter()
        .filter(|p| {
            results(&ws)
                .iter()
                .any(|(t, r, _)| Some(t) == p.title.as_ref() && r.verdict == Verdict::Include)
        })
        .map(quire::review::engine::agent::synthesis::citation_title)
        .collect();
    let groups = included
        .len()
        .div_ceil(quire::review::engine::agent::synthesis::GROUP_PAPERS);
    assert!(groups >= 2, "{} included papers", included.len());

    // One isolated digest call per group, none holding more than a group.
    let digest_calls: Vec<_> = rig
        .server
        .requests()
        .into_iter()
        .filter(|r| {
            r.tools().is_empty()
                && r.turns().iter().any(|t| {
                    t.role == "user" && t.text.contains(" included papers, best score first.")
                })
        })
        .collect();
    assert_eq!(digest_calls.len(), groups);
    for call in &digest_calls {
        let user = call.turns().into_iter().find(|t| t.role == "user").unwrap();
        let listed = user.text.lines().filter(|l| l.starts_with("- *")).count();
        assert!(
            (1..=quire::review::engine::agent::synthesis::GROUP_PAPERS).contains(&listed),
            "{listed}"
        );
    }

    // The writer's overview comes first, then every included paper is named.
    let synthesis = ws
        .read_string(&WsPath::parse("synthesis.md").unwrap())
        .unwrap();
    let heading = synthesis
        .find("## The included papers, group by group")
        .expect("the digests follow the overview");
    assert!(heading > 0, "the writer's overview is kept: {synthesis}");
    let squeezed = synthesis
        .replace('*', "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    for title in &included {
        let title = title
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase();
        assert!(squeezed.contains(&title), "{title} is not in the synthesis");
    }
    // The digests themselves name every paper: none had to be listed after
    // its digest, and none was thrown out.
    assert!(
        !synthesis.contains("Also included in this group"),
        "{synthesis}"
    );
    assert!(
        !synthesis.contains("No digest of this group"),
        "{synthesis}"
    );
    let report = std::fs::read_to_string(&summary.report).unwrap();
    assert!(report.contains("### The included papers, group by group"));
    drop(ws);

    // A rerun over the same results asks for no digest again.
    let before = rig.server.requests().len();
    let again = rig.run(EventLog::new()).await;
    assert_eq!(again.status, ReviewStatus::Done);
    let asked_again = rig.server.requests()[before..]
        .iter()
        .filter(|r| {
            r.turns()
                .iter()
                .any(|t| t.text.contains(" included papers, best score first."))
        })
        .count();
    assert_eq!(asked_again, 0);
    let ws = Workspace::open_read_only(&rig.workspace()).unwrap();
    let rewritten = ws
        .read_string(&WsPath::parse("synthesis.md").unwrap())
        .unwrap();
    assert_eq!(
        rewritten
            .matches("## The included papers, group by group")
            .count(),
        1
    );
    drop(ws);

    // The groups are digested all at once, so each must fit beside the
    // others: under a cap with room for one group's worst case but not for
    // both, the synthesis stops before asking (never a group "failed" by a
    // call the client held back), and no cap is crossed.
    let ws = Workspace::open(&rig.workspace()).unwrap();
    std::fs::remove_dir_all(rig.workspace().join(quire::workspace::layout::DIGESTS_DIR)).unwrap();
    let cap = 4_000;
    let (client, budget) =
        super::support::capped_client(rig.settings.clone(), Some(rig.key.clone()), cap);
    let spec = quire::review::ReviewSpec {
        question: rig.question.into(),
        criteria: Vec::new(),
        engine: quire::review::EngineKind::Agent,
        protocol: None,
    };
    let papers = ws.papers().unwrap();
    let (_, digested) = quire::review::engine::agent::synthesis::digest_included(
        &ws,
        &spec,
        &papers,
        &client,
        &budget,
        &tokio_util::sync::CancellationToken::new(),
    )
    .await
    .unwrap();
    let (input, output) = budget.tokens();
    eprintln!(
        "synthesis digests: {} tokens spent under a cap of {cap}; overshoot {}",
        input + output,
        (input + output).saturating_sub(cap)
    );
    assert!(input + output <= cap);
    assert!(digested.stopped.is_some(), "{digested:?}");
}

#[tokio::test]
async fn the_title_and_authors_the_reader_reads_on_page_one_stand_where_the_page_bears_them_out() {
    let rig = Rig::new(&[], ServerOptions::default()).await;
    std::fs::write(
        rig.folder.path().join("draft.pdf"),
        super::support::pdf_with_pages(&[
            &format!(
                "JOURNAL OF REPLICATION 12(3)\nReplicated Logs Under Attack\nAda Lovelace and Charles Babbage\n{PROSE}"
            ),
            PROSE,
        ]),
    )
    .unwrap();
    let summary = rig.run(EventLog::new()).await;
    assert_eq!(summary.status, ReviewStatus::Done);

    let ws = Workspace::open_read_only(&rig.workspace()).unwrap();
    let extracted = ws.papers().unwrap().remove(0);
    let paper = quire::review::corrections::corrected(&ws)
        .unwrap()
        .remove(0);
    eprintln!(
        "extraction read {:?} by {:?}",
        extracted.title, extracted.meta.authors
    );
    assert_eq!(paper.title.as_deref(), Some("Replicated Logs Under Attack"));
    let authors: Vec<String> = paper.meta.authors.iter().map(|a| a.display()).collect();
    assert_eq!(authors, ["Ada Lovelace", "Charles Babbage"]);
    for field in [
        quire::workspace::MetaField::Title,
        quire::workspace::MetaField::Authors,
    ] {
        assert_eq!(
            paper.meta.sources.get(&field),
            Some(&quire::workspace::Origin::Reader),
            "{field:?}"
        );
    }
    let report = std::fs::read_to_string(&summary.report).unwrap();
    assert!(report.contains("Replicated Logs Under Attack"), "{report}");
}

#[test]
fn a_title_that_would_run_as_a_spreadsheet_formula_is_exported_as_text() {
    let data = tempfile::tempdir().unwrap();
    let folder = super::support::folder_of(&dev_pdfs("databases", 2));
    let question = "How do databases recover from crashes?";
    let ws = super::support::offline_review(data.path(), folder.path(), question);
    let review = super::support::quire_json(
        data.path(),
        &[
            "review",
            folder.path().to_str().unwrap(),
            "-q",
            question,
            "--json",
        ],
    );
    let id = &review["papers"][0]["sha256"].as_str().unwrap()[..12];
    let hostile = "=HYPERLINK(\"http://evil.example\",\"Click\")";
    super::support::quire_json(data.path(), &["meta", "set", &ws, id, "--title", hostile]);
    // The next run writes the exports again, with the corrected title.
    super::support::offline_review(data.path(), folder.path(), question);
    let csv = std::fs::read_to_string(std::path::Path::new(&ws).join("report.csv")).unwrap();
    assert!(
        csv.contains("\"'=HYPERLINK(\"\"http://evil.example\"\",\"\"Click\"\")\""),
        "{csv}"
    );
    assert!(!csv.contains(",\"=HYPERLINK"), "{csv}");
}
