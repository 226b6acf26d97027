//! Extraction in a child process. Parsers panic, loop forever and allocate
//! gigabytes on hostile files; an allocation failure aborts the process (it is
//! not a panic) and a looping thread cannot be killed. So each extraction runs in
//! a short-lived worker: the host binary re-executes itself with
//! [`WORKER_ARG`], the worker caps its own address space (RLIMIT_AS), catches
//! panics, and prints one JSON reply; the parent enforces a time limit and treats
//! any other ending as a crash.

use std::io::Write;
use std::path::Path;
use std::process::{ExitCode, Stdio};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::engines::{self, Engine, EngineFailure, RawText};

/// The first argument that turns a Quire binary into an extraction worker.
pub const WORKER_ARG: &str = "__extract-worker";

/// The worker's stack: deeply nested PDF objects recurse deeply in parsers.
const WORKER_STACK_BYTES: usize = 256 * 1024 * 1024;

/// Bounds on one extraction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkerLimits {
    pub timeout: Duration,
    /// The time limit of an OCR run, which renders and reads every page.
    pub ocr_timeout: Duration,
    /// Address-space cap of the worker process.
    pub memory_bytes: u64,
    pub max_pages: usize,
}

impl Default for WorkerLimits {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(60),
            ocr_timeout: super::ocr::time_limit(),
            memory_bytes: 2 << 30,
            max_pages: 1500,
        }
    }
}

/// What the worker printed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum WorkerReply {
    Text { raw: RawText },
    Failed { failure: EngineFailure },
    Panicked { message: String },
}

/// How a worker run ended, as the parent saw it.
#[derive(Clone, Debug, PartialEq)]
pub enum WorkerOutcome {
    Reply(WorkerReply),
    TimedOut,
    /// Killed by a signal, aborted (e.g. out of memory), or printed garbage.
    Crashed {
        detail: String,
    },
}

/// Run one extraction in a worker process. With `scratch`, the worker's
/// temporary files (OCR's page images) go in that folder, which the caller
/// owns and removes however the worker ends: a worker killed at its time
/// limit cannot clean up after itself.
pub async fn run_worker(
    exe: &Path,
    engine: Engine,
    pdf: &Path,
    limits: WorkerLimits,
    scratch: Option<&Path>,
) -> WorkerOutcome {
    let mut command = tokio::process::Command::new(exe);
    if let Some(dir) = scratch {
        command.env("TMPDIR", dir);
    }
    command
        .arg(WORKER_ARG)
        .arg(engine.name())
        .arg(pdf)
        .arg(limits.max_pages.to_string())
        .arg(limits.memory_bytes.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    // Its own process group, so that at its time limit the programs it
    // started (pdftoppm, tesseract) are killed with it.
    #[cfg(unix)]
    command.process_group(0);
    let child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            return WorkerOutcome::Crashed {
                detail: format!("cannot start the extraction worker: {e}"),
            };
        }
    };
    let group = child.id();
    // On timeout the future is dropped and kill_on_drop ends the worker.
    let output = match tokio::time::timeout(limits.timeout, child.wait_with_output()).await {
        Err(_) => {
            kill_group(group);
            return WorkerOutcome::TimedOut;
        }
        Ok(Err(e)) => {
            return WorkerOutcome::Crashed {
                detail: e.to_string(),
            };
        }
        Ok(Ok(output)) => output,
    };
    match serde_json::from_slice::<WorkerReply>(&output.stdout) {
        Ok(reply) => WorkerOutcome::Reply(reply),
        Err(_) => WorkerOutcome::Crashed {
            detail: describe_exit(&output.status),
        },
    }
}

/// SIGKILL to every process of the worker's group: what it started lives on
/// otherwise, using a core, after the worker is gone.
fn kill_group(group: Option<u32>) {
    #[cfg(unix)]
    if let Some(group) = group {
        // `kill` rather than libc: the crate has no unsafe code.
        let _ = std::process::Command::new("kill")
            .args(["-KILL", "--", &format!("-{group}")])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    #[cfg(not(unix))]
    let _ = group;
}

fn describe_exit(status: &std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        match status.signal() {
            Some(6) => {
                return "the parser aborted (most likely it ran out of its memory limit)".into();
            }
            Some(11) => {
                return "the parser crashed (segmentation fault, e.g. a stack overflow)".into();
            }
            Some(signal) => return format!("the parser was killed by signal {signal}"),
            None => {}
        }
    }
    format!("the parser exited with {status} without an answer")
}

/// Call first thing in `main` of every binary that hosts Quire's core: when the
/// process was started as a worker it does the work and returns the exit code.
pub fn run_worker_if_requested() -> Option<ExitCode> {
    // `args_os`: the PDF's path need not be valid UTF-8 (`args` would panic).
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).and_then(|a| a.to_str()) != Some(WORKER_ARG) {
        return None;
    }
    Some(worker_main(&args[2..]))
}

fn worker_main(args: &[std::ffi::OsString]) -> ExitCode {
    let text = |i: usize| args.get(i).and_then(|a| a.to_str());
    let (Some(engine), Some(path), Some(max_pages), Some(memory)) = (
        text(0).and_then(Engine::parse),
        args.get(1),
        text(2).and_then(|a| a.parse::<usize>().ok()),
        text(3).and_then(|a| a.parse::<u64>().ok()),
    ) else {
        return ExitCode::from(2);
    };
    // Best effort: without the cap the parent's timeout still bounds the damage.
    let _ = rlimit::setrlimit(rlimit::Resource::AS, memory, memory);
    let reply = match std::fs::read(path) {
        Err(e) => WorkerReply::Failed {
            failure: EngineFailure::Damaged {
                reason: format!("cannot read: {e}"),
            },
        },
        Ok(bytes) => extract_catching_panics(engine, bytes, max_pages),
    };
    let mut stdout = std::io::stdout().lock();
    match serde_json::to_writer(&mut stdout, &reply) {
        Ok(()) if stdout.flush().is_ok() => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    }
}

fn extract_catching_panics(engine: Engine, bytes: Vec<u8>, max_pages: usize) -> WorkerReply {
    // Keep panic messages out of stderr; the reply carries them.
    std::panic::set_hook(Box::new(|_| {}));
    let handle = std::thread::Builder::new()
        .stack_size(WORKER_STACK_BYTES)
        .spawn(move || {
            std::panic::catch_unwind(move || engines::extract(engine, bytes, max_pages))
        });
    let joined = match handle {
        Ok(handle) => handle.join(),
        Err(e) => {
            return WorkerReply::Panicked {
                message: format!("cannot start the extraction thread: {e}"),
            };
        }
    };
    match joined {
        Ok(Ok(Ok(raw))) => WorkerReply::Text { raw },
        Ok(Ok(Err(failure))) => WorkerReply::Failed { failure },
        Ok(Err(panic)) | Err(panic) => WorkerReply::Panicked {
            message: panic_message(&panic),
        },
    }
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(text) = panic.downcast_ref::<&str>() {
        return (*text).to_owned();
    }
    if let Some(text) = panic.downcast_ref::<String>() {
        return text.clone();
    }
    "the parser panicked".to_owned()
}
