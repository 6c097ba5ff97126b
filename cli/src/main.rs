//! `hpa`: host tools for the hpa engine.
//!
//! `hpa replay TRACE` replays a recorded trace (trace format v1) through the engine and prints
//! one JSON line per step on standard output; with `--digest` it prints one line
//! `digest <trace-name> <hex>` instead (the decision digest of `hpa::digest`).
//!
//! `hpa simulate --hpa MANIFEST --load LOAD.csv` runs an HPA on a load with a pool model;
//! `hpa validate MANIFEST` checks a manifest; `hpa replay --events/--explain` prints a human
//! timeline (see `hpa_cli::simulate_cmd`).

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use hpa::digest::Digest;
use hpa_cli::{output, trace};

#[derive(Parser)]
#[command(
    name = "hpa",
    version,
    about = "The Kubernetes HPA's decisions, offline"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Replay a trace and print one JSON line per step.
    Replay {
        /// The trace (JSON, or YAML for .yaml/.yml files).
        trace: PathBuf,
        /// Print only `digest <trace-name> <hex>`: the 64-bit decision digest
        /// (`hpa::digest`), as the firmware in examples/firmware prints it.
        #[arg(long)]
        digest: bool,
        /// Print the events in the style of `kubectl describe hpa` instead of JSON lines.
        #[arg(long, conflicts_with = "digest")]
        events: bool,
        /// Explain every step (metrics against targets, tolerance band, stabilization bounds,
        /// rate limit, min/max) instead of printing JSON lines.
        #[arg(long, conflicts_with = "digest")]
        explain: bool,
    },
    /// Simulate an HPA on a load (closed loop): events, explanations, a summary and a plot.
    Simulate(Box<hpa_cli::simulate_cmd::SimulateArgs>),
    /// Validate a HorizontalPodAutoscaler manifest as the API server would; exit 1 on error.
    Validate {
        /// The manifest (YAML for .yaml/.yml, else JSON).
        manifest: PathBuf,
    },
}

/// Exit status for an invalid trace (docs/spec/trace-format.md#rule-23).
const EXIT_INVALID: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        // A replay for a person (`--events`, `--explain`); the plain one below prints JSON lines
        // or the digest.
        Command::Replay {
            trace,
            events,
            explain,
            ..
        } if events || explain => hpa_cli::simulate_cmd::replay_human(&trace, events, explain),
        Command::Simulate(args) => hpa_cli::simulate_cmd::simulate(&args),
        Command::Validate { manifest } => hpa_cli::simulate_cmd::validate(&manifest),
        Command::Replay { trace, digest, .. } => replay(&trace, digest),
    }
}

fn replay(path: &Path, digest: bool) -> ExitCode {
    let trace = match trace::load(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("hpa replay: {e}");
            return ExitCode::from(EXIT_INVALID);
        }
    };
    let mut fold = Digest::new();
    // Everything is computed before anything is printed, so a failure prints nothing.
    let mut lines = match output::replay_lines(&trace, &mut fold) {
        Ok(lines) => lines,
        Err(message) => {
            eprintln!("hpa replay: {message}");
            return ExitCode::from(EXIT_INVALID);
        }
    };
    if digest {
        // The trace's name is its file stem, as the firmware names the traces it bundles.
        let name = path.file_stem().unwrap_or_default().to_string_lossy();
        let hex = fold.hex();
        lines = vec![format!("digest {name} {}", String::from_utf8_lossy(&hex))];
    }
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for line in &lines {
        if writeln!(out, "{line}").is_err() {
            return ExitCode::FAILURE;
        }
    }
    if out.flush().is_err() {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
