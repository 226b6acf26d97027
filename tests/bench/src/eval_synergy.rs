//! `quire-bench eval synergy`: title/abstract screening replayed on public
//! labelled sets (SYNERGY, ASReview's benchmark), as ASReview's simulation
//! does: one included and one excluded record are known at the start, then
//! records are labelled in the tool's order, learning after every label,
//! until every included one is found. Many seeds (a seed picks the two prior
//! records). Side by side in one run, on the same CSV and the same priors:
//! Quire learning from the labels; Quire learning with the review question
//! counted as one more include; the question alone with no labels (the
//! offline engine's score, no learning); and `asreview simulate` (ASReview
//! LAB's default model, in a virtual environment this command makes under
//! `target/asreview`). Every tool's order is measured by the same code
//! ([`quire::screening::metrics`]): WSS@95, recall after screening 10% and
//! 25%, and the average time to discovery.

use std::path::{Path, PathBuf};
use std::time::Instant;

use quire::offline::{self, Paper};
use quire::screening::Ranker;
use quire::screening::metrics::{Figures, figures};
use quire::screening::stopping::stopping;

#[derive(clap::Args)]
pub(crate) struct SynergyArgs {
    /// The folder of SYNERGY CSVs (record_id, title, abstract, ...,
    /// label_included) and questions.tsv.
    #[arg(long, default_value = "../shared/bench/synergy")]
    dir: PathBuf,
    /// Runs per set, each with its own two prior records.
    #[arg(long, default_value_t = 10)]
    seeds: u64,
    /// Of those, how many ASReview also runs (it is slower); 0 leaves it out.
    #[arg(long, default_value_t = 3)]
    asreview_seeds: u64,
    /// Only these sets (file stems); default every CSV in the folder.
    #[arg(long)]
    set: Vec<String>,
}

/// One labelled record.
struct Record {
    text: String,
    title: String,
    included: bool,
}

/// A set: its records and, from questions.tsv, its review question.
struct Set {
    name: String,
    csv: PathBuf,
    records: Vec<Record>,
    question: Option<String>,
}

fn load(csv: &Path, questions: &[(String, String)]) -> Result<Set, String> {
    let name = csv
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_owned();
    let mut reader = csv::Reader::from_path(csv).map_err(|e| format!("{}: {e}", csv.display()))?;
    let headers = reader.headers().map_err(|e| e.to_string())?.clone();
    let column = |want: &str| {
        headers
            .iter()
            .position(|h| h == want)
            .ok_or_else(|| format!("{}: no column {want:?}", csv.display()))
    };
    let (title, abstract_, label) = (
        column("title")?,
        column("abstract")?,
        column("label_included")?,
    );
    let mut records = Vec::new();
    for row in reader.records() {
        let row = row.map_err(|e| format!("{}: {e}", csv.display()))?;
        let t = row.get(title).unwrap_or_default().to_owned();
        let a = row.get(abstract_).unwrap_or_default();
        records.push(Record {
            text: format!("{t}. {a}"),
            title: t,
            included: row.get(label).unwrap_or_default().trim() == "1",
        });
    }
    let question = questions
        .iter()
        .find(|(set, _)| *set == name)
        .map(|(_, q)| q.clone());
    Ok(Set {
        name,
        csv: csv.to_owned(),
        records,
        question,
    })
}

/// questions.tsv: set, records, included, question.
fn questions(dir: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(dir.join("questions.tsv")).unwrap_or_default();
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Some((f.first()?.to_string(), f.get(3)?.to_string()))
        })
        .collect()
}

/// The two prior records of seed `seed`: one included, one not.
fn priors(set: &Set, seed: u64) -> (usize, usize) {
    let mut rng = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0xdead_beef;
    let mut pick = |want: bool| {
        let pool: Vec<usize> = (0..set.records.len())
            .filter(|&i| set.records[i].included == want)
            .collect();
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        pool[(rng % pool.len() as u64) as usize]
    };
    (pick(true), pick(false))
}

/// The figures of an order of record indices that leaves out the priors.
fn measure(set: &Set, order: &[usize]) -> Figures {
    let labels: Vec<bool> = order.iter().map(|&i| set.records[i].included).collect();
    let includes = set.records.iter().filter(|r| r.included).count();
    figures(&labels, set.records.len() - 2, includes - 1)
}

/// Quire's active learning from the priors until every include is found
/// and, when `until_stopped`, on until the stopping criterion says stop:
/// the order screened after the priors, and how many of it were screened
/// when the criterion said stop (if it did).
fn learn(
    set: &Set,
    ranker: &Ranker,
    (include, exclude): (usize, usize),
    until_stopped: bool,
) -> (Vec<usize>, Option<usize>) {
    let mut labels = vec![None; set.records.len()];
    labels[include] = Some(true);
    labels[exclude] = Some(false);
    let mut left = set.records.iter().filter(|r| r.included).count() - 1;
    let mut order = Vec::new();
    let mut screened = Vec::new();
    let mut stopped = None;
    while left > 0 || (until_stopped && stopped.is_none()) {
        let Some(next) = ranker.next(&labels) else {
            break;
        };
        let included = set.records[next].included;
        labels[next] = Some(included);
        left -= usize::from(included);
        order.push(next);
        screened.push(included);
        if until_stopped && stopped.is_none() {
            let s = stopping(&[true, false], &screened, set.records.len(), 0.95, 0.95);
            if s.p.is_some_and(|p| p < 0.05) {
                stopped = Some(order.len());
            }
        }
    }
    (order, stopped)
}

/// Where the stopping criterion stopped, over runs.
#[derive(Default)]
struct StopTally {
    runs: usize,
    /// Share of the records screened at the stop (priors included).
    screened: f64,
    recall: f64,
    least_recall: Option<f64>,
    short: usize,
    /// Records screened past the point where 95% of the includes were found.
    beyond_95: f64,
}

impl StopTally {
    fn add(&mut self, set: &Set, order: &[usize], stopped: Option<usize>) {
        let total = set.records.len();
        let includes = set.records.iter().filter(|r| r.included).count();
        let at = stopped.unwrap_or(order.len());
        let found = 1 + order[..at]
            .iter()
            .filter(|&&i| set.records[i].included)
            .count();
        let recall = found as f64 / includes as f64;
        let target = (0.95 * includes as f64).ceil() as usize;
        let mut so_far = 1;
        let at_95 = order
            .iter()
            .position(|&i| {
                so_far += usize::from(set.records[i].included);
                so_far >= target
            })
            .map_or(order.len(), |p| p + 1);
        self.runs += 1;
        self.screened += (at + 2) as f64 / total as f64;
        self.recall += recall;
        self.least_recall = Some(self.least_recall.map_or(recall, |r: f64| r.min(recall)));
        self.short += usize::from(recall < 0.95);
        self.beyond_95 += at.saturating_sub(at_95) as f64;
    }

    fn line(&self, set: &str) -> String {
        let n = self.runs.max(1) as f64;
        format!(
            "{set:<36} {:>4} {:>9.3} {:>9.3} {:>9.3} {:>6} {:>10.0}",
            self.runs,
            self.screened / n,
            self.recall / n,
            self.least_recall.unwrap_or(0.0),
            self.short,
            self.beyond_95 / n
        )
    }
}

/// The offline engine's score alone: the question, no labels.
fn question_alone(set: &Set, question: &str, (a, b): (usize, usize)) -> Vec<usize> {
    let pages: Vec<Vec<String>> = set.records.iter().map(|r| vec![r.text.clone()]).collect();
    let papers: Vec<Paper<'_>> = set
        .records
        .iter()
        .zip(&pages)
        .map(|(r, p)| Paper {
            title: Some(&r.title),
            pages: p,
        })
        .collect();
    let scores: Vec<f64> = offline::review(question, &[], &papers)
        .into_iter()
        .map(|f| f.score)
        .collect();
    let mut order: Vec<usize> = (0..set.records.len())
        .filter(|&i| i != a && i != b)
        .collect();
    order.sort_by(|&x, &y| scores[y].total_cmp(&scores[x]).then(x.cmp(&y)));
    order
}

/// Sums of figures, for means.
#[derive(Default)]
struct Tally {
    runs: usize,
    wss: f64,
    r10: f64,
    r25: f64,
    atd: f64,
    seconds: f64,
}

impl Tally {
    fn add(&mut self, f: &Figures, seconds: f64) {
        self.runs += 1;
        self.wss += f.wss95;
        self.r10 += f.recall_10;
        self.r25 += f.recall_25;
        self.atd += f.atd;
        self.seconds += seconds;
    }

    fn line(&self, set: &str, tool: &str) -> String {
        if self.runs == 0 {
            return format!("{set:<36} {tool:<26} (not run)");
        }
        let n = self.runs as f64;
        format!(
            "{set:<36} {tool:<26} {:>4} {:>7.3} {:>7.3} {:>7.3} {:>7.3} {:>9.2}",
            self.runs,
            self.wss / n,
            self.r10 / n,
            self.r25 / n,
            self.atd / n,
            self.seconds / n
        )
    }
}

pub(crate) async fn run(args: SynergyArgs) -> Result<(), String> {
    let questions = questions(&args.dir);
    let mut csvs: Vec<PathBuf> = std::fs::read_dir(&args.dir)
        .map_err(|e| format!("{}: {e}", args.dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .filter(|p| {
            args.set.is_empty()
                || p.file_stem()
                    .and_then(|s| s.to_str())
                    .is_some_and(|s| args.set.iter().any(|w| w == s))
        })
        .collect();
    csvs.sort();
    if csvs.is_empty() {
        return Err(format!("no CSV in {}", args.dir.display()));
    }
    let asreview = if args.asreview_seeds > 0 {
        Some(crate::asreview::Asreview::install()?)
    } else {
        None
    };
    println!(
        "{:<36} {:<26} {:>4} {:>7} {:>7} {:>7} {:>7} {:>9}",
        "set", "tool", "runs", "WSS@95", "rec@10", "rec@25", "ATD", "s a run"
    );
    let mut stop_lines = Vec::new();
    for csv in &csvs {
        let set = load(csv, &questions)?;
        let includes = set.records.iter().filter(|r| r.included).count();
        if includes < 2 {
            println!("{:<36} fewer than 2 includes: left out", set.name);
            continue;
        }
        let mut tallies: Vec<(&str, Tally)> = vec![
            ("quire: labels", Tally::default()),
            ("quire: labels + question", Tally::default()),
            ("question alone (offline)", Tally::default()),
            ("asreview elas_u4", Tally::default()),
        ];
        let texts: Vec<&str> = set.records.iter().map(|r| r.text.as_str()).collect();
        let plain = Ranker::new(&texts, None);
        let with_question = set
            .question
            .as_deref()
            .map(|q| Ranker::new(&texts, Some(q)));
        let mut stops = StopTally::default();
        for seed in 0..args.seeds {
            let prior = priors(&set, seed);
            let started = Instant::now();
            let (order, stopped) = learn(&set, &plain, prior, true);
            tallies[0]
                .1
                .add(&measure(&set, &order), started.elapsed().as_secs_f64());
            stops.add(&set, &order, stopped);
            if let (Some(ranker), Some(question)) = (&with_question, &set.question) {
                let started = Instant::now();
                let (order, _) = learn(&set, ranker, prior, false);
                tallies[1]
                    .1
                    .add(&measure(&set, &order), started.elapsed().as_secs_f64());
                let started = Instant::now();
                let order = question_alone(&set, question, prior);
                tallies[2]
                    .1
                    .add(&measure(&set, &order), started.elapsed().as_secs_f64());
            }
            if let Some(asreview) = &asreview
                && seed < args.asreview_seeds
            {
                let started = Instant::now();
                let screened = asreview.simulate(&set.csv, prior, seed)?;
                for &(i, label) in &screened {
                    if set.records.get(i).map(|r| r.included) != Some(label) {
                        return Err(format!(
                            "ASReview's record {i} of {} is not the row Quire read as {i}",
                            set.name
                        ));
                    }
                }
                let order: Vec<usize> = screened.into_iter().map(|(i, _)| i).collect();
                tallies[3]
                    .1
                    .add(&measure(&set, &order), started.elapsed().as_secs_f64());
            }
        }
        let label = format!("{} ({}/{includes})", set.name, set.records.len());
        for (tool, tally) in &tallies {
            println!("{}", tally.line(&label, tool));
        }
        stop_lines.push(stops.line(&label));
    }
    println!(
        "\nStopping by Callaghan & Müller-Hansen's criterion (target recall 95%, 95% confidence), Quire learning from labels:"
    );
    println!(
        "{:<36} {:>4} {:>9} {:>9} {:>9} {:>6} {:>10}",
        "set", "runs", "screened", "recall", "least", "short", "past 95%"
    );
    for line in &stop_lines {
        println!("{line}");
    }
    println!(
        "screened: mean share of records screened when it said stop; recall: mean recall then (least: the worst run); short: runs stopped below 95% recall (the criterion allows 5%); past 95%: records screened after 95% were found, the price of the guarantee."
    );
    let sets: Vec<Set> = csvs
        .iter()
        .map(|c| load(c, &questions))
        .collect::<Result<_, _>>()?;
    queue_latency(&sets, 10_000);
    println!(
        "WSS@95: share of records left unscreened at 95% recall, less 5% (higher is better); rec@10/25: recall after screening 10%/25%; ATD: mean share screened when an include is found (lower is better). Priors left out of every figure."
    );
    Ok(())
}

/// How long the queue takes to serve the next record after a label, at
/// `size` records (the sets' records repeated to that many), over the first
/// 100 labels in the learned order; and how long the features take.
fn queue_latency(sets: &[Set], size: usize) {
    let pool: Vec<&Record> = sets.iter().flat_map(|s| &s.records).collect();
    if pool.is_empty() {
        return;
    }
    let records: Vec<&Record> = pool.iter().cycle().take(size).copied().collect();
    let texts: Vec<&str> = records.iter().map(|r| r.text.as_str()).collect();
    let started = Instant::now();
    let ranker = Ranker::new(&texts, None);
    let build = started.elapsed();
    let mut labels = vec![None; records.len()];
    let first_include = records.iter().position(|r| r.included).unwrap_or(0);
    let first_exclude = records.iter().position(|r| !r.included).unwrap_or(1);
    labels[first_include] = Some(true);
    labels[first_exclude] = Some(false);
    let mut times = Vec::new();
    for _ in 0..100 {
        let started = Instant::now();
        let Some(next) = ranker.next(&labels) else {
            break;
        };
        times.push(started.elapsed().as_secs_f64() * 1000.0);
        labels[next] = Some(records[next].included);
    }
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    println!(
        "queue at {} records: features built in {:.0} ms; next record after a label: median {:.1} ms, 95th percentile {:.1} ms, max {:.1} ms (goal: 100 ms)",
        records.len(),
        build.as_secs_f64() * 1000.0,
        at(0.5),
        at(0.95),
        at(1.0)
    );
}
