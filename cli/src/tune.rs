//! `hpa tune`: searches the `behavior` settings of an HPA (and optionally its replica range)
//! for the fewest pod-hours on a load, subject to at most a share of the time above target
//! and at most a number of direction reversals a day, with `hpa simulate`'s model
//! ([`crate::simulate`]).
//!
//! - [`space`]: the parameters and their values (`--space FILE`, or defaults);
//! - [`search`]: which points are simulated (grid, or random sampling then local refinement),
//!   the ranking and the Pareto front;
//! - `manifest`: the manifests simulated and written (the input's object with the setting);
//! - `plot`: the picture of the front (`--plot`).
//!
//! Each round of the search is simulated on `--threads` scoped threads that take the points in
//! turn; the summaries are put back in the points' order, so the output is the same byte for
//! byte whatever the number of threads.

mod manifest;
mod plot;
pub mod search;
pub mod space;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

use bumpalo::Bump;
use clap::Args;

use crate::csv_load::Load;
use crate::explain;
use crate::simulate::{self, Clock, Options, Run, Summary};
use crate::simulate_cmd::{self, print_all, PoolArgs};
use crate::trace::{self, Cluster, Format, Gate, Manifest};

use self::manifest::Base;
use self::search::{Objective, Tried};
use self::space::{Point, Space};

/// Exit status for invalid input (as `hpa simulate`).
const EXIT_INVALID: u8 = 2;
/// The most candidates one run simulates.
const MAX_CANDIDATES: usize = 100_000;
/// The most rows of the Pareto front printed; a longer front is thinned.
const FRONT_ROWS: usize = 20;

/// `hpa tune` arguments.
#[derive(Args, Debug)]
pub struct TuneArgs {
    /// The HPA to tune: an autoscaling/v2 (or v2beta2) HorizontalPodAutoscaler manifest.
    #[arg(long = "hpa", value_name = "MANIFEST")]
    pub hpa: PathBuf,
    #[command(flatten)]
    pub pool: PoolArgs,
    /// The search space (YAML or JSON): per parameter a list of values or {min, max, step};
    /// parameters it does not name keep their defaults (docs/tune.md).
    #[arg(long, value_name = "FILE")]
    pub space: Option<PathBuf>,
    /// How many settings to simulate at most.
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub candidates: usize,
    /// The constraint on the time above target, in percent of the run.
    #[arg(long, value_name = "PERCENT", default_value = "5")]
    pub max_above: String,
    /// The constraint on direction reversals (flapping), per day of load.
    #[arg(long, value_name = "N", default_value_t = 24)]
    pub max_reversals_per_day: u64,
    /// Threads simulating the candidates (default: the cores available); the output does not
    /// depend on it.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Write the chosen manifest (autoscaling/v2 YAML with a comment block) to this file.
    #[arg(long, value_name = "FILE.yaml")]
    pub out: Option<PathBuf>,
    /// Stop simulating a setting once it breaks a constraint: much faster when most settings
    /// do, but those settings are left out of the Pareto front and the plot.
    #[arg(long)]
    pub prune: bool,
    /// Draw the candidates, the Pareto front, the input and the chosen point into this SVG.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
}

/// What every candidate's simulation shares.
struct Context<'a> {
    base: &'a Base,
    space: &'a Space,
    cluster: &'a Cluster,
    load: &'a Load,
    clock: &'a Clock,
    demand: &'a [Vec<i64>],
    opts: &'a Options,
    path: String,
}

impl Context<'_> {
    /// The manifest and plan at `point`, labelled `label`.
    fn manifest(&self, point: &[u16]) -> Result<(String, Manifest, simulate::Plan), String> {
        let what = || format!("the setting {}", self.space.describe(point));
        let text = self.base.yaml(&self.space.setting(point))?;
        let manifest = trace::parse_manifest(&text, Format::Yaml, self.cluster)
            .map_err(|e| format!("{}: {e}", what()))?;
        let plan = simulate::plan(&manifest, &self.path, self.load, self.opts)
            .map_err(|e| format!("{}: {e}", what()))?;
        Ok((text, manifest, plan))
    }

    /// The summary of the run at `point` (nothing else of it is read).
    fn score(&self, point: &[u16]) -> Result<Summary, String> {
        let (_, manifest, plan) = self.manifest(point)?;
        simulate::score(&manifest, &plan, self.clock, self.demand, self.opts)
    }

    /// Simulates `points` on `threads` threads; the summaries in the points' order, or the
    /// first point's error.
    fn evaluate(
        &self,
        points: &[Point],
        threads: usize,
        bar: &indicatif::ProgressBar,
    ) -> Result<Vec<Summary>, String> {
        let next = AtomicUsize::new(0);
        let workers = threads.min(points.len()).max(1);
        let mut results: Vec<(usize, Result<Summary, String>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    scope.spawn(|| {
                        let mut mine = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(point) = points.get(i) else { break };
                            mine.push((i, self.score(point)));
                            bar.inc(1);
                        }
                        mine
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_default())
                .collect()
        });
        results.sort_by_key(|(i, _)| *i);
        if results.len() != points.len() {
            return Err("a simulation thread panicked".to_owned());
        }
        results.into_iter().map(|(_, r)| r).collect()
    }
}

/// `5`, `2.5` percent in thousandths of a percent, within [0, 100].
fn parse_percent(text: &str) -> Result<i64, String> {
    simulate_cmd::parse_number_ms(text.trim())
        .filter(|v| *v <= 100_000)
        .ok_or_else(|| {
            format!("--max-above: expected a percentage between 0 and 100, got {text:?}")
        })
}

/// The objective in words.
fn objective_text(objective: &Objective) -> String {
    format!(
        "minimise pod-hours subject to time above target <= {} % and at most {} direction \
         reversals a day",
        space::milli_text(objective.max_above_milli_percent),
        objective.max_reversals_per_day
    )
}

/// `14 (2.1/day)`.
fn reversals_text(s: &Summary) -> String {
    let per_day = s.reversals as f64 * 86_400_000.0 / s.duration_ms.max(1) as f64;
    format!("{} ({}/day)", s.reversals, explain::decimal(per_day, 1))
}

fn hours_text(s: &Summary) -> String {
    explain::decimal(s.pod_ms as f64 / 3_600_000.0, 1)
}

/// Which constraints `s` breaks, in words; `met` when none.
fn constraints_text(objective: &Objective, s: &Summary) -> &'static str {
    let breaks = objective.breaks(s);
    match (breaks.above, breaks.reversals) {
        (false, false) => "met",
        (true, false) => "above target",
        (false, true) => "reversals",
        (true, true) => "above target, reversals",
    }
}

/// The table of the Pareto front, `chosen` marked.
fn front_table(
    tried: &Tried,
    space: &Space,
    objective: &Objective,
    front: &[usize],
    chosen: Option<usize>,
) -> String {
    let step = front.len().div_ceil(FRONT_ROWS).max(1);
    let shown: Vec<usize> = front
        .iter()
        .enumerate()
        .filter(|(k, i)| k.is_multiple_of(step) || Some(**i) == chosen)
        .map(|(_, i)| *i)
        .collect();
    let header = [
        "",
        "#",
        "pod-hours",
        "above target",
        "under-provisioned pod-s",
        "reversals",
        "constraints",
        "settings",
    ];
    let mut rows: Vec<[String; 8]> = Vec::new();
    for &i in &shown {
        let (Some(s), Some(point)) = (tried.summaries.get(i), tried.points.get(i)) else {
            continue;
        };
        rows.push([
            if Some(i) == chosen { "*" } else { "" }.to_owned(),
            i.saturating_add(1).to_string(),
            hours_text(s),
            simulate::percent(s.above_ms, s.duration_ms),
            simulate::pod_seconds(s.under_pod_ms),
            reversals_text(s),
            constraints_text(objective, s).to_owned(),
            space.describe(point),
        ]);
    }
    let mut widths = header.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[&str]| {
        let mut text = String::from(" ");
        for (k, (cell, w)) in cells.iter().zip(widths).enumerate() {
            // Numbers right-aligned, words left-aligned.
            if (1..=5).contains(&k) {
                let _ = write!(text, " {cell:>w$}");
            } else {
                let _ = write!(text, " {cell:w$}");
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(&header);
    for row in &rows {
        let cells: Vec<&str> = row.iter().map(String::as_str).collect();
        line(&cells);
    }
    if shown.len() < front.len() {
        let _ = writeln!(
            out,
            "  ({} of the {} points of the front shown: one in {step}, and the chosen)",
            shown.len(),
            front.len()
        );
    }
    out
}

fn fail(message: String, code: u8) -> ExitCode {
    eprintln!("hpa tune: {message}");
    ExitCode::from(code)
}

/// `hpa tune`.
pub fn tune(args: &TuneArgs) -> ExitCode {
    match tune_text(args) {
        Ok(Outcome::Chosen(text)) => print_all(&text),
        Ok(Outcome::Infeasible(text, message)) => {
            let printed = print_all(&text);
            if printed != ExitCode::SUCCESS {
                return printed;
            }
            fail(message, 1)
        }
        Err((message, code)) => fail(message, code),
    }
}

enum Outcome {
    /// The output; the files were written.
    Chosen(String),
    /// The output, and why nothing was chosen.
    Infeasible(String, String),
}

/// Checks the flags that `hpa simulate` does not have.
fn check_args(args: &TuneArgs) -> Result<(Objective, usize), String> {
    if args.candidates == 0 || args.candidates > MAX_CANDIDATES {
        return Err(format!(
            "--candidates: must be between 1 and {MAX_CANDIDATES}, got {}",
            args.candidates
        ));
    }
    let threads = match args.threads {
        Some(0) => return Err("--threads: must be at least 1".to_owned()),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, usize::from),
    };
    let objective = Objective {
        max_above_milli_percent: parse_percent(&args.max_above)?,
        max_reversals_per_day: args.max_reversals_per_day,
    };
    if let Some(out) = &args.out {
        simulate_cmd::check_directory("--out", out)?;
    }
    Ok((objective, threads))
}

fn tune_text(args: &TuneArgs) -> Result<Outcome, (String, u8)> {
    let invalid = |e: String| (e, EXIT_INVALID);
    let (objective, threads) = check_args(args).map_err(invalid)?;
    let simulate_cmd::Inputs {
        opts,
        cluster,
        manifests,
        load,
    } = simulate_cmd::inputs(
        &args.pool,
        std::slice::from_ref(&args.hpa),
        args.plot.as_deref(),
    )
    .map_err(invalid)?;
    let Some((input, input_plan)) = manifests.into_iter().next() else {
        return Err(invalid("no manifest".to_owned()));
    };
    let base = Base::load(&args.hpa).map_err(invalid)?;
    let (input_min, input_max) = {
        let arena = Bump::new();
        let spec = input.spec(&arena);
        (
            i64::from(spec.min_replicas.unwrap_or(1)),
            i64::from(spec.max_replicas),
        )
    };
    let space_text = match &args.space {
        Some(path) => Some(
            trace::source::read_source(path, trace::source::MAX_MANIFEST_BYTES)
                .map_err(|e| invalid(format!("--space {}: {e}", path.display())))?,
        ),
        None => None,
    };
    let space = Space::new(
        space_text
            .as_ref()
            .map(|s| (s.name.as_str(), s.text.as_str())),
        cluster.enabled(Gate::HpaConfigurableTolerance),
        input_min,
        input_max,
    )
    .map_err(invalid)?;
    let clock = Clock::new(&load, opts.sync_period).map_err(invalid)?;
    let demand = load.resample(&clock.absolute());
    let mut candidate_opts = opts.clone();
    if args.prune {
        candidate_opts.stop = Some(objective.limits(clock.duration));
    }
    let ctx = Context {
        base: &base,
        space: &space,
        cluster: &cluster,
        load: &load,
        clock: &clock,
        demand: &demand,
        opts: &candidate_opts,
        path: args.hpa.display().to_string(),
    };

    let bar = simulate_cmd::progress_bar(
        u64::try_from(args.candidates.saturating_add(1)).unwrap_or(u64::MAX),
        true,
        "simulating {pos}/{len} settings",
    );
    let input_run =
        simulate::run(&input, &input_plan, &clock, &demand, &opts, &|_| {}).map_err(invalid)?;
    bar.inc(1);
    let tried = search::search(
        &space,
        args.candidates,
        args.pool.seed,
        &objective,
        &mut |points| ctx.evaluate(points, threads, &bar),
    )
    .map_err(invalid)?;
    bar.finish_and_clear();

    let order = objective.rank(&tried.summaries);
    let best = order.first().copied();
    let chosen = best.filter(|&i| {
        tried
            .summaries
            .get(i)
            .is_some_and(|s| objective.feasible(s))
    });
    let front = search::pareto(&tried.summaries);

    let mut out = simulate_cmd::header("hpa tune", &load, &clock, &opts, &cluster);
    let method = if tried.method.grid {
        format!("the whole space ({} settings)", tried.points.len())
    } else {
        format!(
            "{} of about {} settings ({} at random, {} refining the best), seed {}",
            tried.points.len(),
            space_size_text(space.size()),
            tried.method.random,
            tried.method.refined,
            args.pool.seed
        )
    };
    let stopped = tried
        .summaries
        .iter()
        .filter(|s| s.stopped_at.is_some())
        .count();
    let pruned = if args.prune {
        format!("; {stopped} stopped early for breaking a constraint (--prune)")
    } else {
        String::new()
    };
    let _ = writeln!(out, "search: {method}{pruned}");
    let _ = writeln!(out, "objective: {}", objective_text(&objective));
    let _ = writeln!(
        out,
        "\nPareto front ({} of {} settings: none better in pod-hours, time above target, \
         under-provisioned pod-seconds and reversals at once; * chosen):",
        front.len(),
        tried.points.len()
    );
    out.push_str(&front_table(&tried, &space, &objective, &front, chosen));

    let Some(chosen) = chosen else {
        let message = infeasible_message(&objective, &tried, &space, best);
        return Ok(Outcome::Infeasible(out, message));
    };
    let point = tried.points.get(chosen).cloned().unwrap_or_default();
    let (text, manifest, mut plan) = ctx.manifest(&point).map_err(invalid)?;
    let chosen_run =
        simulate::run(&manifest, &plan, &clock, &demand, &opts, &|_| {}).map_err(invalid)?;
    let _ = writeln!(
        out,
        "\nChosen: setting #{} of {}, the fewest pod-hours meeting the constraints:\n  {}",
        chosen.saturating_add(1),
        tried.points.len(),
        space.describe(&point)
    );
    let mut input_run = input_run;
    input_run.plan.label = "input".to_owned();
    plan.label = "tuned".to_owned();
    plan.path = args.out.as_ref().map_or_else(
        || "(--out not given)".to_owned(),
        |p| p.display().to_string(),
    );
    let chosen_run = Run { plan, ..chosen_run };
    let _ = writeln!(out, "\nSummary on the same load:");
    out.push_str(&simulate::summary_table(&[
        input_run.clone(),
        chosen_run.clone(),
    ]));

    if let Some(path) = &args.plot {
        let svg = plot::render(&plot::Picture {
            tried: &tried,
            front: &front,
            objective: &objective,
            input: &input_run.summary,
            chosen,
            title: format!("hpa tune: {} on {}", args.hpa.display(), load.name),
        })
        .map_err(|e| (e, 1))?;
        simulate_cmd::write_atomically(path, svg.as_bytes())
            .map_err(|e| (format!("--plot {}: {e}", path.display()), 1))?;
    }
    if let Some(path) = &args.out {
        let lines = comment_lines(
            args,
            &objective,
            &load,
            &tried,
            &input_run,
            &chosen_run,
            &opts,
        );
        let file = format!("{}{text}", manifest::comment_block(&lines));
        simulate_cmd::write_atomically(path, file.as_bytes())
            .map_err(|e| (format!("--out {}: {e}", path.display()), 1))?;
    }
    Ok(Outcome::Chosen(out))
}

/// `1.2e9`, or the number itself under a million.
fn space_size_text(size: u128) -> String {
    if size < 1_000_000 {
        return size.to_string();
    }
    let digits = size.to_string();
    let exponent = digits.len().saturating_sub(1);
    let mut chars = digits.chars();
    let first = chars.next().unwrap_or('0');
    let second = chars.next().unwrap_or('0');
    format!("{first}.{second}e{exponent}")
}

/// Why no setting meets the constraints, with the closest one.
fn infeasible_message(
    objective: &Objective,
    tried: &Tried,
    space: &Space,
    best: Option<usize>,
) -> String {
    let mut message = format!(
        "no setting of the {} simulated meets the constraints",
        tried.points.len()
    );
    let (Some(s), Some(point)) = (
        best.and_then(|i| tried.summaries.get(i)),
        best.and_then(|i| tried.points.get(i)),
    ) else {
        return message;
    };
    let breaks = objective.breaks(s);
    let mut broken = Vec::new();
    if breaks.above {
        broken.push(format!(
            "time above target {} > --max-above {} %",
            simulate::percent(s.above_ms, s.duration_ms),
            space::milli_text(objective.max_above_milli_percent)
        ));
    }
    if breaks.reversals {
        broken.push(format!(
            "direction reversals {} > --max-reversals-per-day {}",
            reversals_text(s),
            objective.max_reversals_per_day
        ));
    }
    let figures = match s.stopped_at {
        Some(at) => format!("stopped at {} by --prune", explain::time(at)),
        None => format!("{} pod-hours", hours_text(s)),
    };
    let _ = write!(
        message,
        "; the closest ({}) has {}, {figures}; relax the constraint or widen --space",
        space.describe(point),
        broken.join(" and "),
    );
    message
}

/// The comment block of the written manifest.
fn comment_lines(
    args: &TuneArgs,
    objective: &Objective,
    load: &Load,
    tried: &Tried,
    input: &Run,
    chosen: &Run,
    opts: &Options,
) -> Vec<String> {
    let (a, b) = (&input.summary, &chosen.summary);
    vec![
        format!(
            "Tuned by `hpa tune` (hpa {}) from {}.",
            env!("CARGO_PKG_VERSION"),
            args.hpa.display()
        ),
        format!("Objective: {}.", objective_text(objective)),
        format!(
            "Load: {}, {} long, an evaluation every {}; {}.",
            load.name,
            explain::time(a.duration_ms),
            explain::seconds(opts.sync_period),
            simulate_cmd::pool_line(opts)
        ),
        format!(
            "Search: {} settings simulated, seed {}.",
            tried.points.len(),
            args.pool.seed
        ),
        "On that load, input -> tuned:".to_owned(),
        format!("  pod-hours {} -> {}", hours_text(a), hours_text(b)),
        format!(
            "  time above target {} -> {}",
            simulate::percent(a.above_ms, a.duration_ms),
            simulate::percent(b.above_ms, b.duration_ms)
        ),
        format!(
            "  under-provisioned pod-seconds {} -> {}",
            simulate::pod_seconds(a.under_pod_ms),
            simulate::pod_seconds(b.under_pod_ms)
        ),
        format!(
            "  direction reversals {} -> {}",
            reversals_text(a),
            reversals_text(b)
        ),
    ]
}
