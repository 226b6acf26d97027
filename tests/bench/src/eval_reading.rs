//! `quire-bench eval reading`: what a researcher reads first in an offline
//! review, measured. For the papers of a hand-checked metadata table, the
//! offline engine's summary sentences, key points and evidence quotes are
//! checked for text that is not the paper's own argument: its title block,
//! its page furniture, its reference list. The engine is run twice side by
//! side, on the pages as printed (what it read before zones) and on the
//! zones' content (what it reads now); the metadata scores follow.
//!
//! The checks ([`testkit::own_words`]) do not use the zones they judge.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use clap::Args;
use quire::offline::{self, Findings, Paper};
use quire::pdf::ingest::{IngestOptions, extract_all};
use quire::pdf::sha256_file;
use quire::pdf::zones::Zones;
use testkit::own_words::{Flags, PrintedPaper};

#[derive(Args)]
pub(crate) struct ReadingEvalArgs {
    /// The hand-checked table (as `eval metadata` reads it); its file paths
    /// are relative to its folder.
    #[arg(long, default_value = "../shared/corpus/metadata.tsv")]
    truth: PathBuf,
    /// The review question. Default: the topic's question from
    /// questions.tsv beside the table, else a question any paper answers.
    #[arg(long)]
    question: Option<String>,
    /// Print the first summary sentence of this many papers, before and
    /// after, and every contaminated item found after.
    #[arg(long, default_value_t = 0)]
    show: usize,
}

#[derive(Args)]
pub(crate) struct ZonesArgs {
    /// The PDF to show.
    pdf: PathBuf,
}

/// `quire-bench zones FILE`: every line with its zone.
pub(crate) async fn show_zones(args: ZonesArgs) -> std::process::ExitCode {
    let sha = match sha256_file(&args.pdf) {
        Ok(sha) => sha,
        Err(e) => {
            eprintln!("error: {}: {e}", args.pdf.display());
            return std::process::ExitCode::FAILURE;
        }
    };
    let Ok(exe) = std::env::current_exe() else {
        return std::process::ExitCode::FAILURE;
    };
    let options = IngestOptions::new(exe);
    let extracted = extract_all(vec![(args.pdf.clone(), sha)], &options, |_, _| {}).await;
    let Some(ex) = extracted.first() else {
        return std::process::ExitCode::FAILURE;
    };
    let zones = Zones::of(&ex.pages);
    for (p, page) in ex.pages.iter().enumerate() {
        println!("=== page {} ===", p + 1);
        for (l, line) in page.lines().enumerate() {
            let zone = zones
                .zone(p, l)
                .map_or("?".to_owned(), |z| format!("{z:?}"));
            println!("{zone:>16} | {line}");
        }
    }
    std::process::ExitCode::SUCCESS
}

/// A question every paper answers in part, for a table with no topics.
const ANY_PAPER_QUESTION: &str = "What methods do the papers propose and how are they evaluated?";

/// Counts over one kind of output (summary sentences, key points, evidence).
#[derive(Default)]
struct Tally {
    items: usize,
    title_block: usize,
    furniture: usize,
    references: usize,
    any: usize,
}

impl Tally {
    fn add(&mut self, f: Flags) {
        self.items += 1;
        self.title_block += usize::from(f.title_block);
        self.furniture += usize::from(f.furniture);
        self.references += usize::from(f.references);
        self.any += usize::from(f.any());
    }

    fn row(&self, what: &str) -> String {
        let share = |n: usize| 100.0 * n as f64 / self.items.max(1) as f64;
        format!(
            "| {what} | {} | {} ({:.1}%) | {} ({:.1}%) | {} ({:.1}%) | {} ({:.1}%) |",
            self.items,
            self.title_block,
            share(self.title_block),
            self.furniture,
            share(self.furniture),
            self.references,
            share(self.references),
            self.any,
            share(self.any)
        )
    }
}

/// One paper with what the checks need to know of it.
struct Checked {
    file: String,
    title: String,
    printed: Vec<String>,
    checks: PrintedPaper,
    /// The topic folder (`dev/<topic>/...`), for its question.
    topic: String,
}

pub(crate) async fn run(args: ReadingEvalArgs) -> Result<(), String> {
    let table = std::fs::read_to_string(&args.truth)
        .map_err(|e| format!("{}: {e}", args.truth.display()))?;
    let base = args.truth.parent().unwrap_or(Path::new(".")).to_owned();
    let rows = super::eval_metadata::parse_table(&table)?;
    let mut files = Vec::new();
    for row in &rows {
        let path = base.join(&row.file);
        let sha = sha256_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        files.push((path, sha));
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut options = IngestOptions::new(exe);
    options.cache_dir = Some(crate::default_paths()?.data_dir.join("cache").join("text"));
    let extracted = extract_all(files, &options, |_, _| {}).await;

    let papers: Vec<Checked> = rows
        .iter()
        .zip(&extracted)
        .filter(|(_, ex)| ex.status.is_readable())
        .map(|(row, ex)| Checked {
            file: row.file.clone(),
            title: row.title.clone(),
            checks: PrintedPaper::new(&row.title, &ex.pages),
            printed: ex.pages.clone(),
            topic: row.file.split('/').nth(1).unwrap_or("").to_owned(),
        })
        .collect();
    let questions = topic_questions(&base);
    let mut by_question: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, p) in papers.iter().enumerate() {
        let q = args
            .question
            .clone()
            .or_else(|| questions.get(&p.topic).cloned())
            .unwrap_or_else(|| ANY_PAPER_QUESTION.to_owned());
        by_question.entry(q).or_default().push(i);
    }
    let contents: Vec<Vec<String>> = papers
        .iter()
        .map(|p| Zones::of(&p.printed).content(&p.printed))
        .collect();

    println!(
        "what the offline review shows of {} readable papers ({})",
        papers.len(),
        args.truth.display()
    );
    println!(
        "| read from | output | items | title block | running head or page number | references | any |"
    );
    println!("|---|---|---|---|---|---|---|");
    let mut first_sentences: Vec<Vec<String>> = vec![Vec::new(); papers.len()];
    for (label, use_zones) in [("pages as printed", false), ("zones' content", true)] {
        let mut tallies: [Tally; 4] = Default::default();
        let mut shown = Vec::new();
        for (question, members) in &by_question {
            let inputs: Vec<Paper<'_>> = members
                .iter()
                .map(|&i| Paper {
                    title: Some(papers[i].title.as_str()),
                    pages: if use_zones {
                        &contents[i]
                    } else {
                        &papers[i].printed
                    },
                })
                .collect();
            let findings = offline::review(question, &[], &inputs);
            for (&i, f) in members.iter().zip(&findings) {
                tally_paper(&papers[i], f, &mut tallies, &mut shown, use_zones);
                first_sentences[i].push(
                    f.summary
                        .first()
                        .map(|q| format!("{} (p. {})", q.text, q.page))
                        .unwrap_or_else(|| "(no summary)".to_owned()),
                );
            }
        }
        for (name, tally) in [
            "summary sentences",
            "first summary sentences",
            "key points",
            "evidence quotes",
        ]
        .iter()
        .zip(&tallies)
        {
            println!("| {label} | {}", &tally.row(name)[2..]);
        }
        if use_zones && args.show > 0 {
            println!("\ncontaminated items read from the zones' content:");
            for line in &shown {
                println!("  {line}");
            }
        }
    }
    if args.show > 0 {
        println!("\nfirst summary sentences, as printed -> from the zones' content:");
        for (p, s) in papers.iter().zip(&first_sentences).take(args.show) {
            println!("  {}", p.file);
            for (label, text) in ["before", "after"].iter().zip(s) {
                println!("    {label}: {text}");
            }
        }
    }
    println!();
    super::eval_metadata::run(super::eval_metadata::MetadataEvalArgs {
        truth: args.truth,
        misses: if args.show > 0 { 200 } else { 0 },
    })
    .await
}

fn tally_paper(
    paper: &Checked,
    findings: &Findings,
    tallies: &mut [Tally; 4],
    shown: &mut Vec<String>,
    keep: bool,
) {
    let mut note = |kind: &str, text: &str, f: Flags| {
        if keep && f.any() {
            shown.push(format!("{} [{kind}] {text}", paper.file));
        }
    };
    for (n, s) in findings.summary.iter().enumerate() {
        let f = paper.checks.flags(&s.text, s.page);
        tallies[0].add(f);
        if n == 0 {
            tallies[1].add(f);
        }
        note("summary", &s.text, f);
    }
    for k in &findings.key_points {
        // A key point ends with its page: "... (p. 3)".
        let page = k
            .rsplit_once("(p. ")
            .and_then(|(_, p)| p.trim_end_matches(')').parse().ok())
            .unwrap_or(1);
        let f = paper.checks.flags(k, page);
        tallies[2].add(f);
        note("key point", k, f);
    }
    for q in &findings.evidence {
        let f = paper.checks.flags(&q.text, q.page);
        tallies[3].add(f);
        note("evidence", &q.text, f);
    }
}

/// The question of each topic, from questions.tsv beside the table.
fn topic_questions(base: &Path) -> HashMap<String, String> {
    std::fs::read_to_string(base.join("questions.tsv"))
        .map(|t| {
            t.lines()
                .skip(1)
                .filter_map(|l| l.split_once('\t'))
                .map(|(t, q)| (t.to_owned(), q.to_owned()))
                .collect()
        })
        .unwrap_or_default()
}
