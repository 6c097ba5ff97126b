//! `hpa`: host tools for the hpa engine.
//!
//! `hpa replay TRACE` replays a recorded trace (trace format v1) through the engine and prints
//! one JSON line per step on standard output.

mod output;
mod trace;

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bumpalo::Bump;
use clap::{Parser, Subcommand};
use hpa::conditions::{ConditionStatus, ConditionType, Reason};
use hpa::{Autoscaler, Hpa};

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
    },
}

/// Exit status for an invalid trace (trace format rule 23).
const EXIT_INVALID: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Replay { trace } => replay(&trace),
    }
}

fn replay(path: &Path) -> ExitCode {
    let trace = match trace::load(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("hpa replay: {e}");
            return ExitCode::from(EXIT_INVALID);
        }
    };
    let mut lines = Vec::with_capacity(trace.steps());
    // Everything is computed before anything is printed, so a failure prints nothing.
    match run(&trace, &mut lines) {
        Ok(()) => {}
        Err(message) => {
            eprintln!("hpa replay: {message}");
            return ExitCode::from(EXIT_INVALID);
        }
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

/// Replays every step into `lines`.
fn run(trace: &trace::Trace, lines: &mut Vec<String>) -> Result<(), String> {
    let spec_arena = Bump::new();
    let spec = trace.spec(&spec_arena);
    let hpa = Hpa::new(&spec, &trace.settings).map_err(|e| format!("hpa.{e}"))?;
    let mut autoscaler: Autoscaler = Autoscaler::new();
    if trace.scaled_to_zero {
        autoscaler.status_mut().conditions.set(
            ConditionType::ScaledToZero,
            ConditionStatus::True,
            Reason::ScaledToZero,
        );
    }
    let mut arena = Bump::new();
    for i in 0..trace.steps() {
        arena.reset();
        let step = trace.step_view(i, &arena);
        let decision = autoscaler
            .evaluate(&hpa, &trace.settings, &step.observation)
            .map_err(|e| format!("steps[{i}]: {e}"))?;
        if decision.rescale {
            if step.applied {
                autoscaler.rescale_succeeded();
            } else {
                autoscaler.rescale_failed();
            }
        }
        let line = output::StepLine::new(&decision, autoscaler.status());
        lines.push(serde_json::to_string(&line).map_err(|e| e.to_string())?);
    }
    Ok(())
}
