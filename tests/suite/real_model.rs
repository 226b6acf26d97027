//! The real-model tier: a review (protocol drafted and approved, reading,
//! synthesis), an Ask and a table fill on three short dev papers, run by the
//! `quire` binary against a real small model (Gemma 3 270M on llama.cpp's
//! server), asserting only what must hold for any model however weak: the
//! run ends by itself, every paper has a result or a stated reason, every
//! kept quote is on its page (by poppler, apart from Quire's check), no
//! incoherent result is kept, the flow adds up and the exit code tells the
//! truth. It prints what the model did, for the closing notes.
//!
//! Ignored by default: `scripts/real-model` fetches and builds the server and
//! the model (cached under `target/real-model`) and `scripts/test` runs this
//! with `QUIRE_REAL_MODEL_DIR` pointing there.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use testkit::quote_match::on_pdf_page;

use quire::review::Verdict;
use quire::workspace::{ModelCallRecord, Workspace, WsPath};

use super::support::{folder_of, quire_await, quire_review};

const QUESTION: &str = "How do distributed systems stay consistent and recover when parts fail?";

/// The papers: short ones, one per topic, so a 270M model on two cores
/// reads them in minutes.
fn papers() -> Vec<PathBuf> {
    let corpus = super::support::corpus().join("dev");
    let papers = [
        "distributed-systems/self-stabilizing-systems-in-spite-of-distributed-control.pdf",
        "databases/eventually-consistent.pdf",
        "machine-learning/2016-mtcnn.pdf",
    ]
    .map(|p| corpus.join(p));
    for p in &papers {
        assert!(
            p.is_file(),
            "{} is missing from the shared corpus",
            p.display()
        );
    }
    papers.to_vec()
}

/// llama.cpp's server on a free local port, killed when dropped.
struct LlamaServer {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl LlamaServer {
    /// Start `dir/llama-server` on `dir/gemma.gguf` and wait until it says
    /// it is ready (its `/health` answers 200 once the model is loaded).
    fn start(dir: &Path, log_dir: &Path) -> Self {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let log = log_dir.join("llama-server.log");
        let out = std::fs::File::create(&log).unwrap();
        let child = Command::new(dir.join("llama-server"))
            .arg("-m")
            .arg(dir.join("gemma.gguf"))
            .args(["--alias", "gemma3-270m", "--host", "127.0.0.1"])
            .args(["--port", &port.to_string()])
            // Two slots share the context: 8,192 tokens each.
            .args(["-c", "16384", "-np", "2", "--jinja"])
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .stdin(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", dir.join("llama-server").display()));
        let mut server = Self { child, port, log };
        server.wait_ready();
        server
    }

    fn wait_ready(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(180);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("llama-server exited ({status}): {}", self.log_tail());
            }
            if self.health() == Some(200) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "llama-server not ready after 180 s: {}",
                self.log_tail()
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// The status code of `GET /health`, if it answers.
    fn health(&self) -> Option<u16> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).ok()?;
        stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
        stream
            .write_all(b"GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            .ok()?;
        let mut head = String::new();
        stream.read_to_string(&mut head).ok()?;
        head.split_whitespace().nth(1)?.parse().ok()
    }

    fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A config folder with one profile for the server, sized as a user with
/// this model would set it: a slot's window, short answers, both slots used.
fn config_for(server: &LlamaServer) -> tempfile::TempDir {
    let config = tempfile::tempdir().unwrap();
    std::fs::write(
        config.path().join("models.toml"),
        format!(
            "default = \"gemma\"\n\n[profiles.gemma]\nbase_url = \"{}\"\nmodel = \"gemma3-270m\"\ncontext_window = 8192\nmax_output_tokens = 768\nconcurrency = 2\nrequest_timeout_secs = 600\n",
            server.base_url()
        ),
    )
    .unwrap();
    config
}

fn stdout_json(out: &Output, what: &str) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{what} printed no JSON ({e}); exit {:?}; stderr: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The exit code `quire review` owes a run that ended with `status`.
fn exit_code_for(status: &str) -> i32 {
    match status {
        "done" | "cancelled" | "stopped" | "pilot" => 0,
        "incomplete" => 3,
        _ => 1,
    }
}

/// The source PDF of each paper of the workspace, by id.
fn sources(ws: &Workspace) -> BTreeMap<String, PathBuf> {
    ws.papers()
        .unwrap()
        .into_iter()
        .map(|p| (p.id.0, p.file))
        .collect()
}

/// Whether `quote` is on page `page` of `pdf`, as poppler reads it.
fn on_page(quote: &str, pdf: &Path, page: u64) -> bool {
    u32::try_from(page).is_ok_and(|n| n >= 1 && on_pdf_page(quote, pdf, n))
}

/// A result kept for a paper could stand, by rules written here apart from
/// Quire's coherence check: a score on the scale, a verdict no more than
/// one band from its score unless it excludes by a criterion, a rationale
/// and a summary in words, and a quote behind any score above the exclude
/// band.
fn assert_coherent(title: &str, result: &quire::review::PaperResult) {
    let band = |v: Verdict| match v {
        Verdict::Include => 0u8,
        Verdict::Maybe => 1,
        Verdict::Exclude => 2,
    };
    assert!(
        (0.0..=10.0).contains(&result.score),
        "{title}: score {} off the scale",
        result.score
    );
    let earned = Verdict::from_score(result.score);
    assert!(
        result.excluded_by.is_some() || band(result.verdict).abs_diff(band(earned)) < 2,
        "{title}: verdict {:?} on score {}",
        result.verdict,
        result.score
    );
    assert!(
        result.rationale.split_whitespace().count() >= 3,
        "{title}: rationale {:?}",
        result.rationale
    );
    let summary_words: usize = result
        .summary
        .iter()
        .map(|s| s.text.split_whitespace().count())
        .sum();
    assert!(summary_words >= 5, "{title}: summary {:?}", result.summary);
    assert!(
        earned == Verdict::Exclude || !result.evidence.is_empty(),
        "{title}: a score of {} with no evidence",
        result.score
    );
}

/// Model calls by outcome, and tokens in and out, from the workspace's log.
fn calls(ws: &Path) -> (BTreeMap<String, usize>, u64, u64) {
    let text = std::fs::read_to_string(ws.join("model-calls.jsonl")).unwrap_or_default();
    let mut outcomes = BTreeMap::new();
    let (mut input, mut output) = (0, 0);
    for line in text.lines() {
        let call: ModelCallRecord = serde_json::from_str(line).unwrap();
        *outcomes
            .entry(format!("{}:{}", call.purpose, call.outcome))
            .or_insert(0) += 1;
        input += call.input_tokens;
        output += call.output_tokens;
    }
    (outcomes, input, output)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a real model server: scripts/real-model, then QUIRE_REAL_MODEL_DIR"]
async fn a_real_small_model_reviews_asks_and_fills_a_table_and_everything_it_keeps_holds() {
    let dir = PathBuf::from(
        std::env::var("QUIRE_REAL_MODEL_DIR")
            .expect("QUIRE_REAL_MODEL_DIR names the folder scripts/real-model printed"),
    );
    let logs = tempfile::tempdir().unwrap();
    let server = LlamaServer::start(&dir, logs.path());
    let config = config_for(&server);
    let folder = folder_of(&papers());
    let data = tempfile::tempdir().unwrap();
    let ws_path = data.path().join("review");
    let (c, d) = (config.path(), data.path());

    // The review: the model drafts the protocol, it is approved as drafted,
    // and the agents read every paper.
    let started = Instant::now();
    let out = quire_review(
        folder.path(),
        QUESTION,
        c,
        d,
        &["--workspace", ws_path.to_str().unwrap(), "--json"],
    )
    .await;
    let review_time = started.elapsed();
    let summary = stdout_json(&out, "quire review");
    let status = summary["status"].as_str().unwrap().to_owned();
    assert!(
        ["done", "incomplete", "failed"].contains(&status.as_str()),
        "a run nobody stopped ends by itself: {status}"
    );
    assert_eq!(
        out.status.code(),
        Some(exit_code_for(&status)),
        "the exit code of a {status} run; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The flow adds up, and the status is what the counts say.
    let counts = &summary["counts"];
    let n = |k: &str| counts[k].as_u64().unwrap();
    assert_eq!(n("screened"), 3, "{counts}");
    assert_eq!(
        n("included") + n("maybe") + n("excluded") + n("notScored"),
        n("screened"),
        "{counts}"
    );
    let expected_status = match n("notScored") {
        0 => "done",
        k if k == n("screened") => "failed",
        _ => "incomplete",
    };
    assert_eq!(status, expected_status, "{counts}");

    // Every paper has a result or a stated reason.
    let ws = Workspace::open_read_only(&ws_path).unwrap();
    let pdfs = sources(&ws);
    let mut quotes_checked = 0;
    let mut sample = Vec::new();
    for line in summary["papers"].as_array().unwrap() {
        let title = line["title"].as_str().unwrap_or("(untitled)").to_owned();
        if line["score"].is_null() {
            let reason = line["notScored"].as_str().unwrap_or_default();
            assert!(
                reason.split_whitespace().count() >= 3,
                "{title}: no score and no reason: {line}"
            );
            sample.push(format!("- {title}: not scored — {reason}"));
            continue;
        }
        let id = ws
            .papers()
            .unwrap()
            .into_iter()
            .find(|p| p.sha256 == line["sha256"].as_str().unwrap())
            .unwrap()
            .id;
        let result: quire::review::PaperResult = ws
            .read_json(&WsPath::from_parts(["papers", &id.0, "result.json"]).unwrap())
            .unwrap();
        assert_coherent(&title, &result);
        let pdf = &pdfs[&id.0];
        for quote in &result.evidence {
            assert!(
                on_page(&quote.text, pdf, quote.page as u64),
                "{title}: kept quote {:?} is not on page {} by poppler",
                quote.text,
                quote.page
            );
            quotes_checked += 1;
        }
        sample.push(format!(
            "- {title}: {:?} {} — {}{}",
            result.verdict,
            result.score,
            result.rationale,
            result
                .evidence
                .first()
                .map(|q| format!(" — “{}” p. {}", q.text, q.page))
                .unwrap_or_default()
        ));
    }
    let report = std::fs::read_to_string(ws_path.join("report.md")).unwrap();
    let agent = &summary["agent"];
    let undriven: Vec<String> = agent["undriven"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let synthesis = report.contains("## Synthesis");
    assert!(
        synthesis
            || n("included") + n("maybe") == 0
            || undriven.iter().any(|s| s.contains("synthesis")),
        "papers were kept but the report has no synthesis and says not why: {undriven:?}"
    );
    let (review_calls, review_in, review_out) = calls(&ws_path);

    // Ask: an answer whose every source is on its page, or a stated failure.
    let started = Instant::now();
    let out = quire_await(
        c,
        d,
        &[
            "ask-papers",
            ws_path.to_str().unwrap(),
            "What happens when a node fails?",
            "--papers",
            "all",
            "--json",
        ],
    )
    .await;
    let ask_time = started.elapsed();
    let ask = stdout_json(&out, "quire ask-papers");
    let ask_status = ask["status"].as_str().unwrap();
    assert_eq!(
        out.status.success(),
        ask_status == "done",
        "ask ended {ask_status}; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        ["done", "failed"].contains(&ask_status),
        "an ask nobody stopped ends by itself: {ask_status}"
    );
    for source in ask["sources"].as_array().unwrap() {
        let pdf = &pdfs[source["paper"].as_str().unwrap()];
        let quote = source["quote"].as_str().unwrap();
        let page = source["page"].as_u64().unwrap();
        assert!(
            on_page(quote, pdf, page),
            "ask source {quote:?} is not on page {page} by poppler"
        );
    }
    let coverage = &ask["coverage"];
    assert_eq!(coverage["considered"], 3, "{coverage}");
    if ask_status == "failed" {
        assert!(
            ask["stopped"].as_str().is_some_and(|s| !s.is_empty()),
            "a failed ask says why: {ask}"
        );
    }

    // The table: two columns filled; every quoted cell on its page.
    let columns = quire_await(
        c,
        d,
        &[
            "table",
            "columns",
            ws_path.to_str().unwrap(),
            "--template",
            "dataset",
            "--template",
            "sample-size",
        ],
    )
    .await;
    assert!(columns.status.success(), "{columns:?}");
    let started = Instant::now();
    let out = quire_await(
        c,
        d,
        &[
            "table",
            "fill",
            ws_path.to_str().unwrap(),
            "--papers",
            "all",
            "--json",
        ],
    )
    .await;
    let fill_time = started.elapsed();
    let fill = stdout_json(&out, "quire table fill");
    assert_eq!(fill["papers"], 3, "{fill}");
    assert_eq!(
        out.status.success(),
        fill["failure"].is_null(),
        "the fill's exit code says whether it failed: {fill}"
    );
    let failed = fill["failed"].as_array().unwrap();
    assert!(
        fill["stopped"].is_null(),
        "a fill nobody stopped ends by itself: {fill}"
    );
    assert_eq!(
        fill["read"].as_u64().unwrap() + failed.len() as u64,
        3,
        "every paper is read or says why it failed: {fill}"
    );
    for f in failed {
        assert!(
            f[1].as_str().is_some_and(|r| !r.is_empty()),
            "a failed paper says why: {f}"
        );
    }
    let shown = quire_await(
        c,
        d,
        &[
            "table",
            "show",
            ws_path.to_str().unwrap(),
            "--papers",
            "all",
            "--format",
            "json",
        ],
    )
    .await;
    let table: Value = stdout_json(&shown, "quire table show");
    let (mut cells, mut quoted, mut unsure) = (0, 0, 0);
    let mut cell_sample = Vec::new();
    for row in table["rows"].as_array().unwrap() {
        let pdf = &pdfs[row["paper"].as_str().unwrap()];
        for cell in row["cells"].as_array().unwrap() {
            if cell["value"].is_null() {
                continue;
            }
            cells += 1;
            unsure += usize::from(cell["lowConfidence"] == true);
            if let (Some(quote), Some(page)) = (cell["quote"].as_str(), cell["page"].as_u64()) {
                assert!(
                    on_page(quote, pdf, page),
                    "cell quote {quote:?} is not on page {page} by poppler"
                );
                quoted += 1;
            }
            if cell_sample.len() < 4 {
                cell_sample.push(format!(
                    "- {}: {}{}",
                    row["title"].as_str().unwrap_or_default(),
                    cell["value"],
                    if cell["lowConfidence"] == true {
                        " (unsure)"
                    } else {
                        ""
                    }
                ));
            }
        }
    }
    let (all_calls, all_in, all_out) = calls(&ws_path);

    println!("real model: gemma3-270m on llama.cpp, 3 papers");
    println!(
        "review: {status} (exit {:?}) in {:.0} s; included {}, maybe {}, excluded {}, not scored {}; {} kept quotes on their pages by poppler; synthesis: {}; planner: {}; undriven: {undriven:?}",
        exit_code_for(&status),
        review_time.as_secs_f64(),
        n("included"),
        n("maybe"),
        n("excluded"),
        n("notScored"),
        quotes_checked,
        if synthesis { "written" } else { "none" },
        agent["planner"]
    );
    println!("review calls: {review_calls:?}; tokens {review_in} in / {review_out} out");
    println!(
        "ask: {ask_status} in {:.0} s; read {}, contributed {}, sources {}, quotes dropped {}, failed {}",
        ask_time.as_secs_f64(),
        coverage["read"],
        coverage["contributed"],
        ask["sources"].as_array().unwrap().len(),
        coverage["quotesDropped"],
        coverage["failed"]
    );
    println!(
        "table: in {:.0} s; {} cells with a value, {quoted} quoted (all on their pages), {unsure} unsure; {} papers failed",
        fill_time.as_secs_f64(),
        cells,
        failed.len()
    );
    println!("all calls: {all_calls:?}; tokens {all_in} in / {all_out} out");
    println!("sample of results:\n{}", sample.join("\n"));
    println!("sample of cells:\n{}", cell_sample.join("\n"));
    println!("ask answer: {}", ask["answer"].as_str().unwrap_or_default());
}
