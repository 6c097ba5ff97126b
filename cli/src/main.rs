//! `hpa`: host tools for the hpa engine.
//!
//! `hpa replay TRACE` replays a recorded trace (trace format v1) through the engine and prints
//! one JSON line per step on standard output; with `--digest` it prints one line
//! `digest <trace-name> <hex>` instead (the decision digest of `hpa::digest`).
//!
//! `--restore-state FILE` starts the replay from a saved autoscaler and `--save-state FILE` saves
//! the one it leaves (`hpa_cli::state`, docs/spec/snapshot.md).
//!
//! `hpa simulate --hpa MANIFEST --load LOAD.csv` runs an HPA on a load with a pool model;
//! `hpa tune --hpa MANIFEST --load LOAD.csv` searches its behavior settings (see
//! `hpa_cli::tune`); `hpa validate MANIFEST` checks a manifest; `hpa replay --events/--explain` prints a human
//! timeline (see `hpa_cli::simulate_cmd`).

// As in the library (cli/src/lib.rs).
#![deny(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::unreachable,
    clippy::todo,
    clippy::unimplemented,
    clippy::panic_in_result_fn,
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss
)]

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use hpa::digest::Digest;
use hpa::Autoscaler;
use hpa_cli::simulate_cmd::ClusterArgs;
use hpa_cli::{output, simulate_cmd, state, trace};

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
    Replay(ReplayArgs),
    /// Simulate an HPA on a load (closed loop): events, explanations, a summary and a plot.
    Simulate(Box<hpa_cli::simulate_cmd::SimulateArgs>),
    /// Search an HPA's behavior settings for the fewest pod-hours on a load, under constraints
    /// on the time above target and on flapping; write the chosen manifest.
    Tune(Box<hpa_cli::tune::TuneArgs>),
    /// Validate a HorizontalPodAutoscaler manifest as the API server would; exit 1 on error.
    Validate {
        /// The manifest (YAML for .yaml/.yml, else JSON; `-` reads standard input, YAML or
        /// JSON by its first character). Several objects: `---`-separated YAML documents, or
        /// `kind: List`; objects of other kinds are skipped.
        manifest: PathBuf,
        #[command(flatten)]
        cluster: ClusterArgs,
    },
}

#[derive(Args)]
struct ReplayArgs {
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
    /// After the last step, save the autoscaler's state (its status and history) into FILE as
    /// a binary snapshot (docs/spec/snapshot.md), at the last step's time. The file is replaced
    /// atomically; exit status 1 if it cannot be written.
    #[arg(long, value_name = "FILE")]
    save_state: Option<PathBuf>,
    /// Start from the state saved in FILE (by --save-state, or a snapshot from the C or Rust
    /// API) instead of a new autoscaler. The trace's hpa.status must not seed ScaledToZero then.
    #[arg(long, value_name = "FILE")]
    restore_state: Option<PathBuf>,
    /// Where the snapshot's save moment goes on the trace's clock, in milliseconds. Default:
    /// the first step's time, as if the device rebooted just before it: the time between the
    /// save and the restore counts as none. To continue a trace split at a step, pass the first
    /// part's last step's time.
    #[arg(
        long,
        value_name = "MS",
        requires = "restore_state",
        allow_negative_numbers = true
    )]
    restore_at: Option<i64>,
    #[command(flatten)]
    cluster: ClusterArgs,
}

/// Exit status for an invalid trace (docs/spec/trace-format.md#rule-23) or state file.
const EXIT_INVALID: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Replay(args) => replay(&args),
        Command::Simulate(args) => hpa_cli::simulate_cmd::simulate(&args),
        Command::Tune(args) => hpa_cli::tune::tune(&args),
        Command::Validate { manifest, cluster } => match cluster.cluster() {
            Ok(cluster) => simulate_cmd::validate(&manifest, &cluster),
            Err(e) => {
                eprintln!("hpa validate: {e}");
                ExitCode::from(EXIT_INVALID)
            }
        },
    }
}

fn replay(args: &ReplayArgs) -> ExitCode {
    let fail = |message: String, code: u8| {
        eprintln!("hpa replay: {message}");
        ExitCode::from(code)
    };
    let cluster = match args.cluster.cluster() {
        Ok(c) => c,
        Err(e) => return fail(e, EXIT_INVALID),
    };
    let trace = match trace::load_for(&args.trace, &cluster) {
        Ok(t) => t,
        Err(e) => return fail(e.to_string(), EXIT_INVALID),
    };
    let restore = args.restore_state.as_deref().map(|path| state::Restore {
        path,
        at: args.restore_at,
    });
    let mut autoscaler = match state::start(&trace, restore) {
        Ok(a) => a,
        Err(e) => return fail(e, EXIT_INVALID),
    };
    // Everything is computed before anything is printed, so a failure prints nothing.
    let text = match replay_text(args, &trace, &mut autoscaler) {
        Ok(text) => text,
        Err(e) => return fail(e, EXIT_INVALID),
    };
    if let Some(path) = &args.save_state {
        let now = state::save_at(&trace, restore);
        if let Err(e) = state::save(path, &autoscaler, now) {
            return fail(e, 1);
        }
    }
    // The JSON lines are the trace format's contract: the cluster assumed goes to standard
    // error, with HPAScaleToZero as the trace's controller block may have recorded it.
    eprintln!("hpa replay: assuming {}", trace.cluster);
    simulate_cmd::print_all(&text)
}

/// What `hpa replay` prints: the JSON lines, the digest, or the human timeline.
fn replay_text(
    args: &ReplayArgs,
    trace: &trace::Trace,
    autoscaler: &mut Autoscaler,
) -> Result<String, String> {
    if args.events || args.explain {
        return simulate_cmd::replay_text(trace, autoscaler, args.events, args.explain);
    }
    let mut fold = Digest::new();
    let lines = output::replay_lines_from(trace, autoscaler, &mut fold)?;
    if args.digest {
        // The trace's name is its file stem, as the firmware names the traces it bundles.
        let name = args.trace.file_stem().unwrap_or_default().to_string_lossy();
        let hex = fold.hex();
        return Ok(format!("digest {name} {}\n", String::from_utf8_lossy(&hex)));
    }
    let mut text = String::new();
    for line in lines {
        text.push_str(&line);
        text.push('\n');
    }
    Ok(text)
}
