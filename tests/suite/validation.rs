//! Screening validation from the command line, on a real offline review:
//! a blind sample, the researcher's labels, and what they show of the engine.

use std::path::Path;

use super::support::{dev_pdfs, folder_of, quire_bin, quire_json as quire};

#[test]
fn labels_on_a_blind_sample_give_recall_kappa_and_the_lost_papers() {
    let mut pdfs = dev_pdfs("distributed-systems", 4);
    pdfs.extend(dev_pdfs("programming-languages", 3));
    let folder = folder_of(&pdfs);
    let data = tempfile::tempdir().unwrap();
    let folder_arg = folder.path().to_str().unwrap();
    let review = quire(
        data.path(),
        &[
            "review",
            folder_arg,
            "--question",
            "How do distributed systems reach consensus, replicate state and tolerate failures?",
            "--json",
        ],
    );
    let ws = review["workspace"].as_str().unwrap().to_owned();

    // A sample of 5, listed without scores.
    let view = quire(data.path(), &["validate", &ws, "--sample", "5", "--json"]);
    let to_label = view["toLabel"].as_array().unwrap();
    assert_eq!(to_label.len(), 5);
    assert!(to_label.iter().all(|p| p.get("score").is_none()));
    assert_eq!(view["assessment"]["labelled"], 0);
    assert_eq!(view["assessment"]["calibrated"], false);

    // No labels, nothing to calibrate on: refused, and nothing changes.
    let refused = std::process::Command::new(quire_bin())
        .args(["validate", &ws, "--apply"])
        .env("QUIRE_DATA_DIR", data.path())
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("label more of the sample first"));

    // The researcher labels every sampled paper by its topic folder.
    let papers = review["papers"].as_array().unwrap();
    // The researcher's call: a paper of the question's topic is relevant.
    let on_topic = |paper: &serde_json::Value| {
        pdfs.iter().take(4).any(|pdf| {
            paper["file"]
                .as_str()
                .unwrap()
                .ends_with(pdf.file_name().unwrap().to_str().unwrap())
        })
    };
    let verdict_for = |on_topic: bool| if on_topic { "include" } else { "exclude" };
    let mut expected_lost = Vec::new();
    let (mut relevant, mut kept_relevant) = (0, 0);
    for sampled in to_label {
        let id = sampled["id"].as_str().unwrap();
        // A paper's id is the start of its SHA-256.
        let paper = papers
            .iter()
            .find(|p| p["sha256"].as_str().unwrap().starts_with(id))
            .unwrap();
        let relevant_here = on_topic(paper);
        quire(
            data.path(),
            &["label", &ws, id, "--verdict", verdict_for(relevant_here)],
        );
        if relevant_here {
            relevant += 1;
            if paper["score"].as_f64().unwrap() >= 4.0 {
                kept_relevant += 1;
            } else {
                expected_lost.push(id.to_owned());
            }
        }
    }

    let view = quire(data.path(), &["validate", &ws, "--json"]);
    let a = &view["assessment"];
    assert_eq!(view["toLabel"].as_array().unwrap().len(), 0);
    assert_eq!(
        (&a["labelled"], &a["sampleLabelled"]),
        (&5.into(), &5.into())
    );
    assert_eq!(a["relevant"], relevant);
    assert_eq!(a["confusion"]["truePositive"], kept_relevant);
    let lost: Vec<String> = a["lost"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(lost.len(), expected_lost.len());
    assert!(expected_lost.iter().all(|id| lost.contains(id)));
    // The estimate speaks for all 7 papers from the 5 labels, and the claim
    // follows its one-sided bound.
    let estimate = &a["estimate"];
    assert_eq!(
        (&estimate["labels"], &estimate["papers"]),
        (&5.into(), &7.into()),
        "{a:#}"
    );
    let bound = estimate["lowerBound"].as_f64().unwrap();
    assert_eq!(a["support"]["supported"], bound >= 0.95, "{a:#}");
    let markdown = view["markdown"].as_str().unwrap();
    assert!(markdown.contains("## Screening validation"));
    assert!(
        markdown.contains("**For the whole review, from the validation sample.**"),
        "{markdown}"
    );
    assert!(
        markdown.contains("**Agreement on the sample's 5 labelled papers**"),
        "{markdown}"
    );

    // Label the two papers outside the sample as well (4 relevant in all):
    // labels given while browsing are shown as such and enter no estimate.
    for paper in papers {
        let id = &paper["sha256"].as_str().unwrap()[..16];
        if to_label.iter().any(|p| p["id"] == id) {
            continue;
        }
        quire(
            data.path(),
            &["label", &ws, id, "--verdict", verdict_for(on_topic(paper))],
        );
    }
    let view = quire(data.path(), &["validate", &ws, "--json"]);
    let a = &view["assessment"];
    assert_eq!(
        (&a["labelled"], &a["browsingLabelled"]),
        (&7.into(), &2.into())
    );
    assert_eq!(a["estimate"]["labels"], 5);
    assert!(
        view["markdown"]
            .as_str()
            .unwrap()
            .contains("Labelled while browsing, not a sample: 2 papers"),
        "{}",
        view["markdown"]
    );

    // The whole review as the sample: cut-offs are fitted on half of it.
    // Whether that half holds the three relevant papers they need depends
    // on the draw; either way the verdicts on disk follow the cut-offs in
    // force.
    quire(data.path(), &["validate", &ws, "--sample", "7", "--json"]);
    let tried = std::process::Command::new(quire_bin())
        .args(["validate", &ws, "--apply", "--json"])
        .env("QUIRE_DATA_DIR", data.path())
        .output()
        .unwrap();
    let in_force = if tried.status.success() {
        let applied: serde_json::Value = serde_json::from_slice(&tried.stdout).unwrap();
        assert_eq!(applied["assessment"]["calibrated"], true);
        let fitted = applied["assessment"]["fittedLabels"].as_u64().unwrap();
        assert!(fitted >= 3, "{applied:#}");
        // The labels the cut-offs were fitted on count in no figure at them.
        let c = &applied["assessment"]["confusion"];
        let counted: u64 = [
            "truePositive",
            "falseNegative",
            "falsePositive",
            "trueNegative",
        ]
        .iter()
        .map(|k| c[k].as_u64().unwrap())
        .sum();
        assert_eq!(counted, 7 - fitted, "{applied:#}");
        let report = std::fs::read_to_string(Path::new(&ws).join("report.md")).unwrap();
        assert!(
            report.contains(&format!("these cut-offs were fitted on {fitted} labelled papers of half the validation sample")),
            "{report}"
        );
        applied["assessment"]["cutoffs"].clone()
    } else {
        let stderr = String::from_utf8_lossy(&tried.stderr);
        assert!(stderr.contains("half of the validation sample"), "{stderr}");
        serde_json::json!({"include": 6.5, "maybe": 4.0})
    };
    let (include, maybe) = (
        in_force["include"].as_f64().unwrap(),
        in_force["maybe"].as_f64().unwrap(),
    );
    // The exports on disk show each paper's verdict by the cut-offs in force.
    // Read as a spreadsheet would (RFC 4180: titles hold commas).
    let mut csv = csv::Reader::from_path(Path::new(&ws).join("report.csv")).unwrap();
    let header = csv.headers().unwrap().clone();
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (score_at, verdict_at) = (column("score"), column("verdict"));
    let mut rows = 0;
    for record in csv.records() {
        let record = record.unwrap();
        let score: f64 = record[score_at].parse().unwrap();
        let expected = if score >= include {
            "include"
        } else if score >= maybe {
            "maybe"
        } else {
            "exclude"
        };
        assert_eq!(&record[verdict_at], expected, "{record:?}");
        rows += 1;
    }
    assert_eq!(rows, 7);
    // Reset: the defaults again.
    let reset = quire(data.path(), &["validate", &ws, "--reset", "--json"]);
    assert_eq!(reset["assessment"]["calibrated"], false);
    assert_eq!(reset["assessment"]["cutoffs"]["maybe"], 4.0);
    // Reset writes the exports again; the Methods paragraph says what the
    // sample showed.
    let report = std::fs::read_to_string(Path::new(&ws).join("report.md")).unwrap();
    assert!(
        report
            .contains("The researcher labelled a stratified random sample of the papers screened"),
        "{report}"
    );

    // The PRISMA counts written beside the report: every paper labelled, so
    // the researcher decided each and automation excluded none.
    let mut flow = csv::Reader::from_path(Path::new(&ws).join("prisma-flow.csv")).unwrap();
    let counts: Vec<(String, String, usize)> = flow
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[0].to_owned(), r[1].to_owned(), r[2].parse().unwrap())
        })
        .collect();
    let stage = |name: &str| {
        counts
            .iter()
            .filter(|c| c.0 == name)
            .map(|c| c.2)
            .sum::<usize>()
    };
    assert_eq!(stage("identified"), 7);
    assert_eq!(stage("screened"), 7);
    assert_eq!(stage("excluded_by_automation"), 0);
    assert_eq!(stage("excluded_by_researcher"), 3);
    assert_eq!(stage("included"), 4);
    assert_eq!(stage("included_by_researcher"), 4);
    assert_eq!(
        stage("excluded_reason"),
        3,
        "every exclusion has its reason"
    );

    // A target outside (0.5, 1) is refused with its reason.
    let refused = std::process::Command::new(quire_bin())
        .args(["validate", &ws, "--target", "1.2"])
        .env("QUIRE_DATA_DIR", data.path())
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("target recall"));
}

#[test]
fn kappa_with_every_label_on_one_side_is_not_defined_and_says_why() {
    let data = tempfile::tempdir().unwrap();
    let folder = folder_of(&dev_pdfs("databases", 3));
    let ws = super::support::offline_review(
        data.path(),
        folder.path(),
        "How do databases recover from crashes?",
    );
    let papers: Vec<String> = std::fs::read_dir(Path::new(&ws).join("papers"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    // The researcher finds every paper of a sample relevant: nothing to
    // agree on.
    quire(data.path(), &["validate", &ws, "--sample", "3", "--json"]);
    for paper in &papers {
        quire(data.path(), &["label", &ws, paper, "--verdict", "include"]);
    }
    let view = quire(data.path(), &["validate", &ws, "--json"]);
    let a = &view["assessment"];
    assert_eq!(a["labelled"], 3, "{a:#}");
    assert!(a["kappa"].is_null(), "{a:#}");
    let why = a["kappaUndefined"].as_str().unwrap();
    assert!(why.contains("the researcher kept every paper"), "{why}");
    let markdown = view["markdown"].as_str().unwrap();
    assert!(
        markdown.contains("Cohen's kappa: not defined: the researcher kept every paper"),
        "{markdown}"
    );
}
