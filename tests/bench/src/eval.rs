//! `quire-bench eval`: ranking quality of the offline engine on a labelled corpus.
//! For each question of `questions.tsv`, the papers of its topic count as
//! relevant and the rest as not; prints ROC-AUC per question, and the title
//! accuracy of the metadata reader against the title slugs in the file names.
//! `quire-bench eval metadata` measures the metadata against a hand-checked table.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use quire::offline::{self, Paper};
use quire::pdf::ingest::{IngestOptions, extract_all};
use quire::pdf::metadata::read_metadata;
use quire::pdf::{find_pdfs, sha256_file};

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct EvalArgs {
    #[command(subcommand)]
    command: Option<EvalCommand>,
    /// The corpus folder: dev/<topic>/*.pdf and questions.tsv.
    #[arg(long, default_value = "../shared/corpus")]
    corpus: PathBuf,
}

#[derive(clap::Subcommand)]
enum EvalCommand {
    /// Title, first-author and year accuracy of the metadata read from the
    /// PDFs against a hand-checked table, with every miss.
    Metadata(super::eval_metadata::MetadataEvalArgs),
    /// What the offline review shows first: the share of summary sentences,
    /// key points and evidence quotes holding title-block, running-head or
    /// reference-list text, read from the pages as printed and from the
    /// zones' content side by side; then the metadata scores.
    Reading(super::eval_reading::ReadingEvalArgs),
    /// The validation flow replayed with the corpus topics as labels: recall,
    /// specificity, kappa, WSS@95 and lost papers at the default cut-offs and
    /// at cut-offs calibrated on samples of 20, 30 and 50.
    Screening,
    /// Asking the papers: recall of the papers that answer (judged by
    /// reading them, `data/ask-truth.tsv`) among the papers the answer cites.
    Ask(super::eval_ask::AskEvalArgs),
    /// Title/abstract screening that learns, replayed on labelled SYNERGY
    /// sets beside ASReview LAB: WSS@95, recall at 10% and 25%, time to
    /// discovery.
    Synergy(super::eval_synergy::SynergyArgs),
}

pub(crate) async fn run(args: EvalArgs) -> ExitCode {
    let outcome = match args.command {
        Some(EvalCommand::Metadata(metadata)) => super::eval_metadata::run(metadata).await,
        Some(EvalCommand::Reading(reading)) => super::eval_reading::run(reading).await,
        Some(EvalCommand::Screening) => super::eval_screening::run(&args.corpus).await,
        Some(EvalCommand::Ask(ask)) => super::eval_ask::run(&args.corpus, ask).await,
        Some(EvalCommand::Synergy(synergy)) => super::eval_synergy::run(synergy).await,
        None => evaluate(&args.corpus).await,
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The dev corpus extracted (from the text cache when it can be): each
/// readable-or-not paper with its topic folder and the title read from it.
pub(crate) struct DevCorpus {
    pub found: Vec<PathBuf>,
    pub extracted: Vec<quire::pdf::ingest::Extracted>,
    pub titles: Vec<Option<String>>,
    /// The topic folder of each paper (`dev/<topic>/`), as manifest.tsv lists it.
    pub topics: Vec<String>,
    /// The review questions of questions.tsv: (topic, question).
    pub questions: Vec<(String, String)>,
}

impl DevCorpus {
    pub(crate) async fn load(corpus: &Path) -> Result<Self, String> {
        let questions = std::fs::read_to_string(corpus.join("questions.tsv"))
            .map_err(|e| format!("questions.tsv: {e}"))?
            .lines()
            .skip(1)
            .filter_map(|l| l.split_once('\t'))
            .map(|(t, q)| (t.to_owned(), q.to_owned()))
            .collect();
        let found = find_pdfs(&corpus.join("dev")).map_err(|e| e.to_string())?;
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let mut options = IngestOptions::new(exe);
        let paths = crate::default_paths()?;
        options.cache_dir = Some(paths.data_dir.join("cache").join("text"));
        let files: Vec<(PathBuf, String)> = found
            .iter()
            .map(|f| (f.path.clone(), sha256_file(&f.path).unwrap_or_default()))
            .collect();
        let extracted = extract_all(files, &options, |_, _| {}).await;
        let topics = found
            .iter()
            .map(|f| {
                f.path
                    .parent()
                    .and_then(|p| p.file_name())
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            })
            .collect();
        let titles = extracted
            .iter()
            .map(|ex| read_metadata(&ex.info, &ex.pages, &ex.head).title)
            .collect();
        Ok(Self {
            found: found.into_iter().map(|f| f.path).collect(),
            extracted,
            titles,
            topics,
            questions,
        })
    }

    /// Every paper as the offline engine takes it.
    pub(crate) fn papers(&self) -> Vec<Paper<'_>> {
        self.extracted
            .iter()
            .zip(&self.titles)
            .map(|(ex, t)| Paper {
                title: t.as_deref(),
                pages: &ex.pages,
            })
            .collect()
    }
}

async fn evaluate(corpus: &Path) -> Result<(), String> {
    let dev = DevCorpus::load(corpus).await?;
    let mut title_hits = 0;
    let mut readable = 0;
    for ((path, ex), title) in dev.found.iter().zip(&dev.extracted).zip(&dev.titles) {
        if ex.status.is_readable() {
            readable += 1;
            let slug = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            if title.as_deref().is_some_and(|t| title_matches(t, &slug)) {
                title_hits += 1;
            }
        }
    }
    let papers = dev.papers();
    let topics = &dev.topics;

    println!("| topic | question | papers (relevant) | ROC-AUC |");
    println!("|---|---|---|---|");
    for (topic, question) in &dev.questions {
        let findings = offline::review(question, &[], &papers);
        let labelled: Vec<(f64, bool)> = findings
            .iter()
            .zip(topics)
            .map(|(f, t)| (f.score, t == topic))
            .collect();
        let relevant = labelled.iter().filter(|l| l.1).count();
        println!(
            "| {topic} | {question} | {} ({relevant}) | {:.3} |",
            labelled.len(),
            roc_auc(&labelled)
        );
    }
    println!(
        "\ntitle accuracy: {title_hits} of {readable} readable papers ({:.1}%) match their file-name slug",
        100.0 * title_hits as f64 / readable.max(1) as f64
    );
    Ok(())
}

/// The probability that a random relevant paper outscores a random irrelevant
/// one (ties count half).
pub(crate) fn roc_auc(scored: &[(f64, bool)]) -> f64 {
    let (mut wins, mut pairs) = (0.0, 0.0);
    for (s_pos, _) in scored.iter().filter(|s| s.1) {
        for (s_neg, _) in scored.iter().filter(|s| !s.1) {
            pairs += 1.0;
            if s_pos > s_neg {
                wins += 1.0;
            } else if s_pos == s_neg {
                wins += 0.5;
            }
        }
    }
    if pairs == 0.0 { 0.0 } else { wins / pairs }
}

/// A title matches a slug when their words agree (the slug may be cut short).
fn title_matches(title: &str, slug: &str) -> bool {
    let words = |s: &str| -> Vec<String> {
        s.to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let t = words(title);
    let s = words(slug);
    if t.is_empty() || s.is_empty() {
        return false;
    }
    let shared = s.iter().filter(|w| t.contains(w)).count();
    shared as f64 >= 0.8 * s.len().min(t.len()) as f64
}
