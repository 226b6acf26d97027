//! `quire-bench eval screening`: the validation flow replayed on a labelled
//! corpus. The topic of each paper in manifest.tsv stands in for the
//! researcher's labels (a paper of the question's topic is relevant). For each
//! question, the offline engine scores every readable paper; then, as the app
//! would, a sample of 20, 30 or 50 is proposed and "labelled", and assessed
//! by the app's own code: the cut-offs fitted on half the sample (and checked
//! on the other half) are applied to the whole collection, and the sample's
//! estimate of recall for the whole review is set against the true recall.
//! Each row is measured on the whole collection (so it shows what
//! calibrating on a sample does to the papers nobody labelled), averaged over
//! seeds, with the worst seed's recall beside the mean; "estimate covers"
//! counts the seeds whose 95% interval held the true recall at the default
//! cut-offs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use quire::agent::NoEvents;
use quire::review::engine::agent as agent_engine;
use quire::review::{EngineKind, ReviewSpec};
use quire::workspace::{PaperRecord, Workspace};
use tokio_util::sync::CancellationToken;

use quire::offline;
use quire::review::validation::calibrate::Cutoffs;
use quire::review::validation::metrics::{Confusion, wss_at_95};
use quire::review::validation::sample::propose;
use quire::review::validation::{DEFAULT_TARGET, Judged, ValidationFile, assess_scored};

use super::agent_rig::{Server, corpus_texts, scripted_setup, synthetic_workspace};
use super::eval::DevCorpus;

const SAMPLE_SIZES: [usize; 3] = [20, 30, 50];
const SEEDS: usize = 10;

pub(crate) async fn run(corpus: &Path) -> Result<(), String> {
    let dev = DevCorpus::load(corpus).await?;
    let manifest = manifest_topics(corpus)?;
    let readable: Vec<usize> = (0..dev.found.len())
        .filter(|&i| dev.extracted[i].status.is_readable())
        .collect();
    let papers = dev.papers();
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let texts = corpus_texts(&corpus.join("dev"), scratch.path()).await?;
    let server = Server::start(0, 8, None, None)?;
    println!(
        "{} readable papers; labels: manifest.tsv topics; target recall {DEFAULT_TARGET}; figures on the whole \
         collection, mean of {SEEDS} seeds (worst seed's recall in brackets). Engines: offline, and the agent \
         engine with the scripted reader (it scores the share of the question's terms found in the text).\n",
        readable.len()
    );
    println!(
        "| topic | engine | relevant | cut-offs | recall | specificity | precision | kappa | WSS@95 | lost | sample supports exclusion | estimate covers |"
    );
    println!("|---|---|---:|---|---|---:|---:|---:|---:|---:|---|---|");
    for (topic, question) in &dev.questions {
        let findings = offline::review(question, &[], &papers);
        let offline: Vec<Judged> = readable
            .iter()
            .map(|&i| {
                let key = relative_key(&dev.found[i]);
                Judged {
                    relevant: manifest.get(&key).is_some_and(|t| t == topic),
                    id: key,
                    score: findings[i].score,
                    by_criterion: false,
                }
            })
            .collect();
        print_rows(topic, "offline", &offline);
        let scored = scripted_scores(&server, &texts, topic, question, scratch.path()).await?;
        let scripted: Vec<Judged> = scored
            .into_iter()
            .map(|(file, score)| {
                let key = relative_key(&file);
                Judged {
                    relevant: manifest.get(&key).is_some_and(|t| t == topic),
                    id: key,
                    score,
                    by_criterion: false,
                }
            })
            .collect();
        print_rows(topic, "scripted reader", &scripted);
    }
    Ok(())
}

/// The rows of one engine on one topic: the default cut-offs, then those
/// calibrated on samples of each size.
fn print_rows(topic: &str, engine: &str, judged: &[Judged]) {
    let relevant = judged.iter().filter(|j| j.relevant).count();
    let wss = wss_at_95(judged).map_or("-".to_owned(), |w| format!("{w:.2}"));
    let row = |label: &str, results: &[(Cutoffs, Option<String>)]| {
        let confusions: Vec<Confusion> = results
            .iter()
            .map(|(cut, _)| Confusion::of(judged, cut.maybe))
            .collect();
        let mean = |f: &dyn Fn(&Confusion) -> Option<f64>| -> String {
            let values: Vec<f64> = confusions.iter().filter_map(f).collect();
            if values.is_empty() {
                "-".to_owned()
            } else {
                format!("{:.2}", values.iter().sum::<f64>() / values.len() as f64)
            }
        };
        let worst_recall = confusions
            .iter()
            .filter_map(|c| c.recall().map(|r| r.value))
            .fold(1.0, f64::min);
        let lost: f64 = confusions
            .iter()
            .map(|c| c.false_negative as f64)
            .sum::<f64>()
            / confusions.len() as f64;
        let notes: Vec<&str> = results.iter().filter_map(|r| r.1.as_deref()).collect();
        let notes = notes.first().copied().unwrap_or("- | -");
        println!(
            "| {topic} | {engine} | {relevant} | {label} | {} ({worst_recall:.2}) | {} | {} | {} | {wss} | {lost:.1} | {notes} |",
            mean(&|c| c.recall().map(|r| r.value)),
            mean(&|c| c.specificity().map(|r| r.value)),
            mean(&|c| c.precision().map(|r| r.value)),
            mean(&|c| c.kappa()),
        );
    };
    row("default 6.5 / 4.0", &[(Cutoffs::DEFAULT, None)]);
    let scored: Vec<(String, f64)> = judged.iter().map(|j| (j.id.clone(), j.score)).collect();
    let true_recall = Confusion::of(judged, Cutoffs::DEFAULT.maybe)
        .recall()
        .map(|r| r.value);
    for size in SAMPLE_SIZES {
        let mut results = Vec::new();
        let (mut supporting_seeds, mut covered, mut estimated, mut beyond) = (0, 0, 0, 0);
        let mut needed = Vec::new();
        for seed in 0..SEEDS {
            let seed = format!("eval-{seed}");
            let (frame, sample) = propose(&scored, size, &Cutoffs::DEFAULT, &seed);
            let file = ValidationFile {
                sample,
                seed,
                frame: Some(frame),
                ..ValidationFile::default()
            };
            let labelled: Vec<Judged> = judged
                .iter()
                .filter(|j| file.sample.contains(&j.id))
                .cloned()
                .collect();
            // No criteria here: nothing is excluded by one.
            let a = assess_scored(&scored, &Default::default(), &labelled, &file);
            // A sample with too few relevant papers cannot calibrate: the defaults stand.
            let cut = a.proposed.unwrap_or(Cutoffs::DEFAULT);
            if a.support.supported {
                supporting_seeds += 1;
            }
            if a.support.beyond_reach {
                beyond += 1;
            } else if !a.support.supported {
                needed.push(a.support.more.iter().map(|m| m.count).sum::<usize>());
            }
            if let (Some(r), Some(truth)) = (a.estimate.and_then(|e| e.recall), true_recall) {
                estimated += 1;
                if r.low <= truth && truth <= r.high {
                    covered += 1;
                }
            }
            results.push((cut, None));
        }
        needed.sort_unstable();
        let more = needed
            .get(needed.len() / 2)
            .map_or("-".to_owned(), |m| m.to_string());
        let summary = format!(
            "{supporting_seeds} of {SEEDS} seeds; {beyond} beyond reach (the sample shows papers lost); median {more} more labels for the rest | {covered} of {estimated}"
        );
        results[0].1 = Some(summary);
        let mean_cut = results.iter().map(|r| r.0.maybe).sum::<f64>() / results.len() as f64;
        row(
            &format!("calibrated on {size} (maybe from {mean_cut:.1})"),
            &results,
        );
    }
}

/// Each paper's score by the agent engine with the scripted reader, from a
/// real review of the corpus texts on `question`.
async fn scripted_scores(
    server: &Server,
    texts: &[(PaperRecord, Vec<String>)],
    topic: &str,
    question: &str,
    scratch: &Path,
) -> Result<Vec<(PathBuf, f64)>, String> {
    let root = scratch.join(format!("scripted-{topic}"));
    synthetic_workspace(&root, texts, texts.len(), false)?;
    let ws = Workspace::open(&root).map_err(|e| e.to_string())?;
    let setup = scripted_setup(&server.base_url, 8, 32_768, None)?;
    let spec = ReviewSpec {
        question: question.to_owned(),
        criteria: Vec::new(),
        engine: EngineKind::Agent,
        protocol: None,
    };
    let ran = agent_engine::run_review(
        &ws,
        &spec,
        &setup,
        Arc::new(NoEvents),
        CancellationToken::new(),
    )
    .await
    .map_err(|e| e.to_string())?;
    // The synthetic workspace holds the texts in order, under ids of their index.
    let papers = ws.papers().map_err(|e| e.to_string())?;
    Ok(papers
        .iter()
        .zip(texts)
        .filter_map(|(p, (original, _))| {
            Some((original.file.clone(), ran.results.get(&p.id)?.score))
        })
        .collect())
}

/// `dev/<topic>/<file>.pdf` -> topic, from manifest.tsv.
fn manifest_topics(corpus: &Path) -> Result<BTreeMap<String, String>, String> {
    let text = std::fs::read_to_string(corpus.join("manifest.tsv"))
        .map_err(|e| format!("manifest.tsv: {e}"))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or(format!("manifest.tsv has no {name} column"))
    };
    let (file, topic) = (column("file")?, column("topic")?);
    Ok(lines
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('\t').collect();
            Some((cells.get(file)?.to_string(), cells.get(topic)?.to_string()))
        })
        .collect())
}

/// A paper's path as manifest.tsv writes it, `dev/<topic>/<file>`, from its
/// last two components (the review may have canonicalised the rest).
fn relative_key(path: &Path) -> String {
    let name = |p: Option<&Path>| {
        p.and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    format!("dev/{}/{}", name(path.parent()), name(Some(path)))
}
