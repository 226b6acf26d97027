//! `quire tool` and `quire tools`: run one agent tool by hand, or list them. This is
//! how tools are exercised outside an agent, by people and by outside checks.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use quire::tools::{Registry, ToolContext, ToolSettings};
use quire::workspace::Workspace;

/// Exit status when a tool refuses (its error code is on stderr); 1 is for usage
/// and setup errors.
const EXIT_TOOL_REFUSED: u8 = 2;

#[derive(Args)]
pub(crate) struct ToolArgs {
    /// The tool to run, e.g. read_file (see `quire tools`).
    name: String,
    /// The workspace folder; created with the standard layout if missing.
    #[arg(long)]
    workspace: PathBuf,
    /// The tool's arguments as a JSON object.
    #[arg(long, default_value = "{}")]
    args: String,
    /// Outputs larger than this many bytes are saved to tool-results/ instead.
    #[arg(long, env = "QUIRE_OFFLOAD_BYTES")]
    offload_bytes: Option<usize>,
}

pub(crate) async fn run(args: ToolArgs) -> ExitCode {
    let json: serde_json::Value = match serde_json::from_str(&args.args) {
        Ok(value) => value,
        Err(e) => {
            eprintln!("error[invalid_arguments]: --args is not valid JSON: {e}");
            return ExitCode::from(EXIT_TOOL_REFUSED);
        }
    };
    let workspace = match Workspace::open_or_init(&args.workspace) {
        Ok(ws) => ws,
        Err(e) => {
            eprintln!("error[{}]: {e}", e.code());
            return ExitCode::FAILURE;
        }
    };
    let mut settings = ToolSettings::default();
    if let Some(bytes) = args.offload_bytes {
        settings.offload_bytes = bytes;
    }
    let ctx = ToolContext::new(workspace, settings);
    match Registry::with_builtins().call(&ctx, &args.name, json).await {
        Ok(text) => {
            out!("{text}");
            if !text.ends_with('\n') {
                outln!();
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error[{}]: {}", e.code, e.message);
            ExitCode::from(EXIT_TOOL_REFUSED)
        }
    }
}

pub(crate) fn list(json: bool) -> ExitCode {
    let specs = Registry::with_builtins().specs();
    if json {
        match serde_json::to_string_pretty(&specs) {
            Ok(text) => outln!("{text}"),
            Err(e) => {
                eprintln!("error[internal_error]: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        for spec in specs {
            outln!("{:<12} {}", spec.name, spec.description);
        }
    }
    ExitCode::SUCCESS
}
