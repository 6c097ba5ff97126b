//! The `hpa simulate`, `hpa validate` and human `hpa replay` commands: argument parsing,
//! input checks, output. The model lives in [`crate::simulate`], the picture in
//! [`crate::plot`], the explanations in [`crate::explain`].
//!
//! Every input (flags, manifests, load, plot path) is checked before the first evaluation;
//! everything is computed before anything is written, and the plot is written to a temporary
//! file renamed into place, so a failure leaves no half-written output.

use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bumpalo::Bump;
use clap::{Args, ValueEnum};
use hpa::settings::{Arithmetic, Settings};
use hpa::time::Duration;
use hpa::Tolerance;
use hpa::{Autoscaler, Quantity};

use crate::csv_load::{self, Load};
use crate::explain::{self, EventLog};
use crate::plot;
use crate::pod_template::{self, TemplateGates};
use crate::prometheus_load::SeriesSpec;
use crate::recorded::{self, Recorded};
use crate::simulate::{self, Clock, Explain, Options, Run};
use crate::trace::{self, ApiVersion, Cluster, Gate, Manifest, Outcome, Trace};

/// Exit status for invalid input (as `hpa replay`).
const EXIT_INVALID: u8 = 2;

/// `--arithmetic`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ArithmeticArg {
    /// Reproduce upstream's float64 results bit for bit.
    Kubernetes,
    /// Exact rational arithmetic.
    Exact,
}

/// `--kubernetes-version` and `--feature-gates` of `hpa validate`, `hpa replay` and `hpa
/// simulate` (docs/kubernetes-versions.md).
#[derive(Args, Debug, Default)]
pub struct ClusterArgs {
    /// The Kubernetes release whose API server and controller to reproduce, from 1.23 to the
    /// newest followed (default: the newest).
    #[arg(long, value_name = "X.Y")]
    pub kubernetes_version: Option<String>,
    /// Feature gates as kube-controller-manager takes them (HPAScaleToZero,
    /// HPAConfigurableTolerance, HPAContainerMetrics, PodLevelResources, ...; default: the
    /// release's defaults).
    #[arg(long, value_name = "NAME=BOOL,...")]
    pub feature_gates: Option<String>,
}

impl ClusterArgs {
    /// The cluster these flags name.
    ///
    /// # Errors
    ///
    /// The flag at fault and why.
    pub fn cluster(&self) -> Result<Cluster, String> {
        let gates = self.feature_gates.as_deref();
        Cluster::new(self.kubernetes_version.as_deref(), gates).map_err(|e| {
            let flag = if e.contains("Kubernetes version") || e.contains("is not supported") {
                "--kubernetes-version"
            } else {
                "--feature-gates"
            };
            format!("{flag}: {e}")
        })
    }
}

/// `hpa simulate` arguments.
#[derive(Args, Debug)]
pub struct SimulateArgs {
    /// The HPA: an autoscaling/v2 HorizontalPodAutoscaler manifest (YAML for .yaml/.yml,
    /// else JSON).
    #[arg(long = "hpa", value_name = "MANIFEST")]
    pub hpa: PathBuf,
    #[command(flatten)]
    pub pool: PoolArgs,
    /// A second manifest run on the same load; the summaries are printed side by side.
    #[arg(long, value_name = "OTHER_MANIFEST")]
    pub compare: Option<PathBuf>,
    /// Replica counts recorded from the cluster on the same clock as the load (a CSV
    /// `time,replicas` or a Prometheus range-query result, such as kube-state-metrics'
    /// `kube_deployment_status_replicas`), compared with the simulated counts.
    #[arg(long, value_name = "RECORDING.csv|RECORDING.json")]
    pub replicas: Option<PathBuf>,
    /// The recording's series in a Prometheus result of several: an EXPR as in `--series`,
    /// such as `sum({deployment="web"})`.
    #[arg(long = "replicas-series", value_name = "EXPR", requires = "replicas")]
    pub replicas_series: Option<String>,
    /// Draw demand, pods and metrics against their targets into this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Explain every step (long for long runs).
    #[arg(long)]
    pub explain: bool,
    /// Explain the step at this time since the start (`1:30:00`, `90m`; repeatable).
    #[arg(long = "explain-at", value_name = "TIME")]
    pub explain_at: Vec<String>,
    /// Print the summary only, without the events.
    #[arg(long)]
    pub no_events: bool,
}

/// The load, the pool model and the controller: the flags `hpa simulate` and `hpa tune` share.
#[derive(Args, Debug)]
pub struct PoolArgs {
    /// The load: a CSV time series `time,<demand column>...` (time in seconds), or a
    /// Prometheus range-query result (the JSON of /api/v1/query_range).
    #[arg(long, value_name = "LOAD.csv|LOAD.json")]
    pub load: PathBuf,
    /// A load column from a Prometheus result: NAME=EXPR, the metric NAME fed by the series
    /// EXPR selects, such as `cpu=sum({deployment="web"})` (sum, max, min, avg; matchers = and
    /// !=) or `queue={queue="orders"}` (one series). Repeatable.
    #[arg(long = "series", value_name = "NAME=EXPR")]
    pub series: Vec<String>,
    /// The controller's sync period (`15s`, `1m`, `500ms`; a bare number is seconds).
    #[arg(long, value_name = "DURATION", default_value = "15s")]
    pub sync_period: String,
    /// Time from a pod's creation to its readiness.
    #[arg(long, value_name = "DURATION", default_value = "30s")]
    pub startup_delay: String,
    /// The controller's tolerance (--horizontal-pod-autoscaler-tolerance).
    #[arg(long, value_name = "DECIMAL", default_value = "0.1")]
    pub tolerance: String,
    /// The legacy downscale window and the behavior default
    /// (--horizontal-pod-autoscaler-downscale-stabilization).
    #[arg(long, value_name = "DURATION", default_value = "5m")]
    pub downscale_stabilization: String,
    /// CPU readiness rules (--horizontal-pod-autoscaler-cpu-initialization-period).
    #[arg(long, value_name = "DURATION", default_value = "5m")]
    pub cpu_initialization_period: String,
    /// CPU readiness rules (--horizontal-pod-autoscaler-initial-readiness-delay).
    #[arg(long, value_name = "DURATION", default_value = "30s")]
    pub initial_readiness_delay: String,
    /// Arithmetic of the engine.
    #[arg(long, value_enum, default_value_t = ArithmeticArg::Kubernetes)]
    pub arithmetic: ArithmeticArg,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// Seed of the per-pod noise (`hpa tune`: of the search too).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Per-sample noise: each sample is multiplied by 1 + e, e uniform in [-F, F].
    #[arg(long, value_name = "F", default_value = "0")]
    pub noise: String,
    /// Replicas at the start (default: what the first demand needs, within min/max).
    #[arg(long, value_name = "N")]
    pub initial_replicas: Option<i32>,
    /// Each container's request, for Utilization targets (repeatable; defaults cpu=1,
    /// memory=1Gi). Pods have one container per container a metric names, else one.
    #[arg(long = "pod-request", value_name = "RESOURCE=QUANTITY")]
    pub pod_request: Vec<String>,
    /// The pods' containers and their requests from a Pod (v1) or Deployment (apps/v1)
    /// manifest, sidecars (init containers with restartPolicy: Always) included, instead of
    /// --pod-request.
    #[arg(long, value_name = "MANIFEST", conflicts_with = "pod_request")]
    pub pod_template: Option<PathBuf>,
}

/// A duration: `15`, `15s`, `1.5s`, `500ms`, `5m`, `1h30m`, `2d` (a bare number is seconds),
/// or a clock time `H:MM:SS` / `MM:SS`, in milliseconds.
///
/// # Errors
///
/// A message naming the text.
pub fn parse_duration(text: &str) -> Result<i64, String> {
    let bad =
        || format!("invalid duration {text:?}: expected e.g. 15s, 500ms, 5m, 1h30m or 1:30:00");
    let t = text.trim();
    if t.is_empty() {
        return Err(bad());
    }
    if t.contains(':') {
        let parts: Vec<&str> = t.split(':').collect();
        if parts.len() > 3 {
            return Err(bad());
        }
        let mut ms: i64 = 0;
        for (i, part) in parts.iter().enumerate() {
            let last = i.saturating_add(1) == parts.len();
            let value = if last {
                parse_number_ms(part).ok_or_else(bad)?
            } else {
                part.parse::<i64>()
                    .ok()
                    .filter(|_| part.bytes().all(|b| b.is_ascii_digit()))
                    .ok_or_else(bad)?
                    .checked_mul(1000)
                    .ok_or_else(bad)?
            };
            ms = ms
                .checked_mul(if i == 0 { 1 } else { 60 })
                .ok_or_else(bad)?;
            ms = ms.checked_add(value).ok_or_else(bad)?;
        }
        return Ok(ms);
    }
    if let Some(ms) = parse_number_ms(t) {
        return Ok(ms);
    }
    let mut rest = t;
    let mut total: i64 = 0;
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(bad)?;
        let (number, tail) = rest.split_at(number_len);
        let unit_len = tail
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(tail.len());
        let (unit, tail) = tail.split_at(unit_len);
        let factor: i128 = match unit {
            "ms" => 1,
            "s" => 1000,
            "m" => 60_000,
            "h" => 3_600_000,
            "d" => 86_400_000,
            _ => return Err(bad()),
        };
        let ms = parse_number_ms(number).ok_or_else(bad)?;
        // `ms` is the number times 1000; scale by the unit in milliseconds (an i64 times a
        // unit fits i128).
        let scaled = i128::from(ms).saturating_mul(factor);
        if scaled % 1000 != 0 {
            return Err(format!("{text:?} is not a whole number of milliseconds"));
        }
        let value = scaled / 1000;
        total = total
            .checked_add(i64::try_from(value).map_err(|_| bad())?)
            .ok_or_else(bad)?;
        rest = tail;
    }
    Ok(total)
}

/// A non-negative decimal number (at most 3 decimals) in thousandths: seconds in
/// milliseconds, `0.05` as 50.
pub(crate) fn parse_number_ms(text: &str) -> Option<i64> {
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    if (whole.is_empty() && frac.is_empty())
        || frac.len() > 3
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let whole: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let frac: i64 = format!("{frac:0<3}").parse().ok()?;
    whole.checked_mul(1000)?.checked_add(frac)
}

/// A non-negative decimal (`0.1`, `0.05`, `1e-1`) as the exact `(mantissa, exp10)`.
fn parse_decimal(text: &str) -> Option<(u64, i32)> {
    let (mantissa, exp) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().ok()?),
        None => (text, 0),
    };
    let (whole, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if (whole.is_empty() && frac.is_empty())
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let digits = format!("{whole}{frac}");
    let digits = digits.trim_start_matches('0');
    let m: u64 = if digits.is_empty() {
        0
    } else {
        digits.parse().ok()?
    };
    let exp10 = exp.checked_sub(i32::try_from(frac.len()).ok()?)?;
    Some((m, exp10))
}

/// Reads the flags into simulation options (explaining nothing).
fn options(args: &PoolArgs, cluster: &Cluster) -> Result<Options, String> {
    let flag = |name: &str, e: String| format!("--{name}: {e}");
    let duration = |name: &str, text: &str| parse_duration(text).map_err(|e| flag(name, e));
    let sync_period = duration("sync-period", &args.sync_period)?;
    if sync_period <= 0 {
        return Err("--sync-period: must be positive".to_owned());
    }
    let mut settings = Settings::DEFAULT;
    let (mantissa, exp10) = parse_decimal(&args.tolerance).ok_or_else(|| {
        format!(
            "--tolerance: invalid number {:?}: expected a non-negative decimal such as 0.1",
            args.tolerance
        )
    })?;
    settings.tolerance = Tolerance::from_decimal(mantissa, exp10)
        .ok_or_else(|| format!("--tolerance: {} is beyond float64's range", args.tolerance))?;
    settings.downscale_stabilization_window = Duration::from_millis(duration(
        "downscale-stabilization",
        &args.downscale_stabilization,
    )?);
    settings.cpu_initialization_period = Duration::from_millis(duration(
        "cpu-initialization-period",
        &args.cpu_initialization_period,
    )?);
    settings.initial_readiness_delay = Duration::from_millis(duration(
        "initial-readiness-delay",
        &args.initial_readiness_delay,
    )?);
    settings.arithmetic = match args.arithmetic {
        ArithmeticArg::Kubernetes => Arithmetic::Kubernetes,
        ArithmeticArg::Exact => Arithmetic::Exact,
    };
    let noise: f64 = args
        .noise
        .parse()
        .ok()
        .filter(|n: &f64| (0.0..=1.0).contains(n))
        .ok_or_else(|| {
            format!(
                "--noise: expected a fraction between 0 and 1, got {:?}",
                args.noise
            )
        })?;
    let mut requests: Vec<(String, Quantity)> = vec![
        ("cpu".to_owned(), Quantity::from_milli(1000)),
        (
            "memory".to_owned(),
            Quantity::parse("1Gi").map_err(|e| e.to_string())?,
        ),
    ];
    for text in &args.pod_request {
        let (resource, quantity) = text
            .split_once('=')
            .ok_or_else(|| format!("--pod-request: expected RESOURCE=QUANTITY, got {text:?}"))?;
        let q = Quantity::parse(quantity.trim())
            .map_err(|e| format!("--pod-request {text}: invalid quantity: {e}"))?;
        if q.signum() <= 0 {
            return Err(format!(
                "--pod-request {text}: the request must be positive"
            ));
        }
        let resource = resource.trim().to_owned();
        match requests.iter_mut().find(|(r, _)| *r == resource) {
            Some(entry) => entry.1 = q,
            None => requests.push((resource, q)),
        }
    }
    if let Some(n) = args.initial_replicas {
        if !(0..=simulate::MAX_PODS).contains(&n) {
            return Err(format!(
                "--initial-replicas: must be between 0 and {}",
                simulate::MAX_PODS
            ));
        }
    }
    // In [0, 10^6]: `noise` is in [0, 1].
    #[allow(clippy::cast_possible_truncation)]
    let noise_ppm = (noise * 1_000_000.0).round() as i64;
    let pod_template = match &args.pod_template {
        Some(path) => Some(
            pod_template::load(
                path,
                TemplateGates {
                    pod_level_resources: cluster.enabled(Gate::PodLevelResources),
                    sidecar_containers: cluster.enabled(Gate::SidecarContainers),
                },
            )
            .map_err(|e| format!("--pod-template {e}"))?,
        ),
        None => None,
    };
    Ok(Options {
        settings,
        sync_period,
        startup_delay: duration("startup-delay", &args.startup_delay)?,
        noise_ppm,
        seed: args.seed,
        initial_replicas: args.initial_replicas,
        requests,
        pod_template,
        explain: Explain::None,
        stop: None,
    })
}

/// `--explain` and `--explain-at`.
fn explain_steps(args: &SimulateArgs) -> Result<Explain, String> {
    if args.explain {
        return Ok(Explain::All);
    }
    if args.explain_at.is_empty() {
        return Ok(Explain::None);
    }
    let times = args
        .explain_at
        .iter()
        .map(|t| parse_duration(t).map_err(|e| format!("--explain-at: {e}")))
        .collect::<Result<_, _>>()?;
    Ok(Explain::At(times))
}

/// Everything checked before the first evaluation.
pub struct Inputs {
    /// The pool and controller options.
    pub opts: Options,
    /// The release and gates assumed.
    pub cluster: Cluster,
    /// The manifests, each with its plan.
    pub manifests: Vec<(Manifest, simulate::Plan)>,
    /// The load.
    pub load: Load,
}

/// Reads and checks the cluster, the options, the manifests at `paths` and the load; an SVG
/// `plot` path is checked too, before anything runs.
///
/// # Errors
///
/// The flag or file at fault and why.
pub fn inputs(args: &PoolArgs, paths: &[PathBuf], plot: Option<&Path>) -> Result<Inputs, String> {
    let cluster = args.cluster.cluster()?;
    let mut opts = options(args, &cluster)?;
    opts.settings = cluster.settings(opts.settings);
    let mut manifests = Vec::new();
    for path in paths {
        let manifest =
            trace::load_manifest(path, &cluster).map_err(|e| format!("{}: {e}", path.display()))?;
        manifests.push((path.display().to_string(), manifest));
    }
    let series = args
        .series
        .iter()
        .map(|text| SeriesSpec::parse(text).map_err(|e| format!("--series: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let load = csv_load::load(&args.load, &series).map_err(|e| e.to_string())?;
    if let Some(plot) = plot {
        check_svg_path("--plot", plot)?;
    }
    let mut planned = Vec::new();
    for (path, manifest) in manifests {
        let plan = simulate::plan(&manifest, &path, &load, &opts)?;
        planned.push((manifest, plan));
    }
    if matches!(planned.as_slice(), [(_, a), (_, b)] if a.label == b.label) {
        for (_, plan) in &mut planned {
            plan.label = plan.path.clone();
        }
    }
    Ok(Inputs {
        opts,
        cluster,
        manifests: planned,
        load,
    })
}

/// Refuses an output path that is not `*.svg` or whose directory does not exist.
///
/// # Errors
///
/// `flag` and the path, with why.
pub fn check_svg_path(flag: &str, path: &Path) -> Result<(), String> {
    let is_svg = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"));
    if !is_svg {
        return Err(format!(
            "{flag} {}: the plot is an SVG file: name it *.svg",
            path.display()
        ));
    }
    check_directory(flag, path)
}

/// Refuses an output path whose directory does not exist.
///
/// # Errors
///
/// `flag` and the path, with why.
pub fn check_directory(flag: &str, path: &Path) -> Result<(), String> {
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(dir) = parent {
        if !dir.is_dir() {
            return Err(format!(
                "{flag} {}: the directory {} does not exist",
                path.display(),
                dir.display()
            ));
        }
    }
    Ok(())
}

/// The lines that open the output of `command`: the load and clock, the pool, the controller
/// and the cluster.
pub(crate) fn header(
    command: &str,
    load: &Load,
    clock: &Clock,
    opts: &Options,
    cluster: &Cluster,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{command}: {} from {} to {} ({} evaluations every {})",
        load.name,
        explain::time(0),
        explain::time(clock.duration),
        clock.times.len(),
        explain::seconds(opts.sync_period)
    );
    let _ = writeln!(out, "{}", pool_line(opts));
    let _ = writeln!(out, "{}", settings_line(opts));
    let _ = writeln!(out, "cluster: {cluster}");
    out
}

pub(crate) fn settings_line(opts: &Options) -> String {
    let s = &opts.settings;
    let (m, e) = s.tolerance.decimal();
    let tolerance = explain::decimal(m as f64 * 10f64.powi(e), 9);
    let arithmetic = match s.arithmetic {
        Arithmetic::Kubernetes => "kubernetes",
        Arithmetic::Exact => "exact",
    };
    format!(
        "controller: tolerance {tolerance}, downscale stabilization {}, cpu initialization {}, \
         initial readiness delay {}, arithmetic {arithmetic}",
        explain::seconds(s.downscale_stabilization_window.as_millis()),
        explain::seconds(s.cpu_initialization_period.as_millis()),
        explain::seconds(s.initial_readiness_delay.as_millis()),
    )
}

pub(crate) fn pool_line(opts: &Options) -> String {
    let requests = match &opts.pod_template {
        Some(template) => format!(
            "pod template {} ({})",
            template.file.as_deref().unwrap_or(""),
            template.describe()
        ),
        None => {
            let requests: Vec<String> = opts
                .requests
                .iter()
                .map(|(r, q)| format!("{r}={q}"))
                .collect();
            format!("requests {}", requests.join(" "))
        }
    };
    format!(
        "pool: start-up delay {}, {requests}, noise {}, seed {}",
        explain::seconds(opts.startup_delay),
        explain::decimal(opts.noise_ppm as f64 / 1_000_000.0, 6),
        opts.seed
    )
}

/// A progress bar of `total` steps on standard error when it is a terminal and `shown`, else
/// a hidden one; `what` describes the count (`simulating {pos}/{len} evaluations`).
pub fn progress_bar(total: u64, shown: bool, what: &str) -> indicatif::ProgressBar {
    if !(shown && std::io::stderr().is_terminal()) {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(total);
    let template = format!("{{spinner}} {what} [{{bar:30}}] {{eta}} left");
    if let Ok(style) = indicatif::ProgressStyle::with_template(&template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// [`inputs`] with the manifests, explanations and recorded replica counts of `hpa simulate`.
fn simulate_inputs(args: &SimulateArgs) -> Result<(Inputs, Option<Recorded>), String> {
    let explain = explain_steps(args)?;
    let mut paths = vec![args.hpa.clone()];
    paths.extend(args.compare.clone());
    let mut inputs = inputs(&args.pool, &paths, args.plot.as_deref())?;
    inputs.opts.explain = explain;
    let recorded = args
        .replicas
        .as_deref()
        .map(|path| recorded::load(path, args.replicas_series.as_deref()))
        .transpose()?;
    Ok((inputs, recorded))
}

/// `hpa simulate`.
pub fn simulate(args: &SimulateArgs) -> ExitCode {
    let fail = |message: String, code: u8| {
        eprintln!("hpa simulate: {message}");
        ExitCode::from(code)
    };
    let (
        Inputs {
            opts,
            cluster,
            manifests,
            load,
        },
        recorded,
    ) = match simulate_inputs(args) {
        Ok(i) => i,
        Err(e) => return fail(e, EXIT_INVALID),
    };
    let clock = match Clock::new(&load, opts.sync_period) {
        Ok(c) => c,
        Err(e) => return fail(e, EXIT_INVALID),
    };
    // A recording that covers none of the run is refused before the run, not after.
    if let Some(Err(e)) = recorded
        .as_ref()
        .map(|r| recorded::covered_steps(r, &clock))
    {
        return fail(e, EXIT_INVALID);
    }
    let demand = load.resample(&clock.absolute());

    let total =
        u64::try_from(clock.times.len().saturating_mul(manifests.len())).unwrap_or(u64::MAX);
    let bar = progress_bar(total, total >= 20_000, "simulating {pos}/{len} evaluations");
    let tick = |n: u64| bar.inc(n);
    let results: Vec<Result<Run, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = manifests
            .iter()
            .map(|(manifest, plan)| {
                let (clock, demand, opts, tick) = (&clock, &demand, &opts, &tick);
                scope.spawn(move || simulate::run(manifest, plan, clock, demand, opts, tick))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("the simulation thread panicked".to_owned()))
            })
            .collect()
    });
    bar.finish_and_clear();
    let mut runs = Vec::new();
    for r in results {
        match r {
            Ok(run) => runs.push(run),
            Err(e) => return fail(e, EXIT_INVALID),
        }
    }

    // The text.
    let mut out = header("hpa simulate", &load, &clock, &opts, &cluster);
    if !args.no_events {
        for run in &runs {
            let _ = writeln!(out, "\nEvents of {} ({}):", run.plan.label, run.plan.path);
            render_events(&run.events, &mut out);
        }
    }
    for run in runs.iter().filter(|r| !r.explanations.is_empty()) {
        let _ = writeln!(out, "\nSteps of {} explained:", run.plan.label);
        for (_, header, lines) in &run.explanations {
            let _ = writeln!(out, "  {header}");
            for line in lines {
                let _ = writeln!(out, "    {line}");
            }
        }
    }
    let _ = writeln!(out, "\nSummary:");
    out.push_str(&simulate::summary_table(&runs));
    if let Some(recorded) = &recorded {
        match recorded::compare(recorded, &runs, &clock) {
            Ok(report) => out.push_str(&recorded::table(recorded, &report, &runs, clock.duration)),
            Err(e) => return fail(e, EXIT_INVALID),
        }
    }

    // The plot, then the text: a failure leaves neither half-written.
    if let Some(path) = &args.plot {
        let subtitle = format!("{}; {}", pool_line(&opts), settings_line(&opts));
        let svg = match plot::render(&runs, &clock, &load, &demand, recorded.as_ref(), &subtitle) {
            Ok(svg) => svg,
            Err(e) => return fail(e, 1),
        };
        if let Err(e) = write_atomically(path, svg.as_bytes()) {
            return fail(format!("--plot {}: {e}", path.display()), 1);
        }
    }
    print_all(&out)
}

fn render_events(log: &EventLog, out: &mut String) {
    if log.is_empty() {
        out.push_str("  (none)\n");
    } else {
        log.render(out, "  ");
    }
}

/// Writes `bytes` to a temporary file next to `path`, then renames it into place, so that a
/// crash leaves the old file or the new one, never half of one.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Prints `text` on standard output; exit status 1 if it cannot be written.
pub fn print_all(text: &str) -> ExitCode {
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    if lock
        .write_all(text.as_bytes())
        .and_then(|()| lock.flush())
        .is_err()
    {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// `hpa validate MANIFEST`: every object of the file checked (docs/spec/manifests.md): for a
/// valid HorizontalPodAutoscaler a confirmation on standard output, for an invalid one every
/// Kubernetes validation message with its field path, one per line on standard error, named
/// by the object's place and name when the file holds several; objects of other kinds are
/// skipped with a note. The first line of standard output names the release and gates assumed.
/// Exit status 1 when an object is invalid or the file holds no HorizontalPodAutoscaler.
pub fn validate(path: &Path, cluster: &Cluster) -> ExitCode {
    let entries = match trace::load_manifests(path, cluster) {
        Ok(entries) => entries,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(1);
        }
    };
    let name = if trace::source::is_stdin(path) {
        "standard input".to_owned()
    } else {
        path.display().to_string()
    };
    let mut out = format!("{name}: assuming {cluster}\n");
    let mut failed = false;
    let mut hpas = 0usize;
    let mut skipped = Vec::new();
    for entry in &entries {
        let place = if entry.place.is_empty() {
            String::new()
        } else {
            format!("{}: ", entry.place)
        };
        match &entry.outcome {
            Outcome::Valid { manifest, notes } => {
                hpas = hpas.saturating_add(1);
                for note in notes {
                    eprintln!("{name}: {place}warning: {note}");
                }
                let _ = writeln!(out, "{name}: {place}{}", summary(manifest));
            }
            Outcome::Invalid(errors) => {
                hpas = hpas.saturating_add(1);
                failed = true;
                // One `<field path>: <message>` line per error, in the API server's order, as
                // `kubectl apply` lists the field errors of a rejected object.
                let label = if entry.place.is_empty() {
                    String::new()
                } else {
                    entry.label()
                };
                for e in errors {
                    if label.is_empty() {
                        eprintln!("{e}");
                    } else {
                        eprintln!("{label}: {e}");
                    }
                }
            }
            Outcome::Skipped { kind } => {
                let what = if kind.is_empty() {
                    "an object without a kind".to_owned()
                } else {
                    format!("a {kind}")
                };
                skipped.push(what.clone());
                let _ = writeln!(
                    out,
                    "{name}: {place}skipped {what}, not a HorizontalPodAutoscaler"
                );
            }
        }
    }
    if hpas == 0 {
        let found = if skipped.is_empty() {
            String::new()
        } else {
            format!(" (found {})", skipped.join(", "))
        };
        eprintln!("{name}: no HorizontalPodAutoscaler{found}");
        failed = true;
    }
    let printed = print_all(&out);
    if failed {
        ExitCode::from(1)
    } else {
        printed
    }
}

/// What `hpa validate` says of a valid HorizontalPodAutoscaler.
fn summary(manifest: &Manifest) -> String {
    let arena = Bump::new();
    let spec = manifest.spec(&arena);
    let count = spec.metrics.len().max(1);
    let metrics = if count == 1 { "metric" } else { "metrics" };
    let behavior = if spec.behavior.is_some() {
        "with behavior"
    } else {
        "without behavior (legacy scaling rules)"
    };
    let default = if spec.metrics.is_empty() {
        " (the default cpu 80 %)"
    } else {
        ""
    };
    let converted = if manifest.api_version == ApiVersion::V2 {
        String::new()
    } else {
        format!(" (converted from {})", manifest.api_version)
    };
    format!(
        "valid autoscaling/v2 HorizontalPodAutoscaler {:?}{converted}: {count} {metrics}{default}, \
         replicas {} to {}, {behavior}",
        manifest.name,
        spec.min_replicas.unwrap_or(1),
        spec.max_replicas
    )
}

/// `hpa replay --events/--explain`: the human timeline of a trace instead of JSON lines,
/// replayed from `autoscaler` (new, or restored by `--restore-state`), which is left as the last
/// step left it.
///
/// # Errors
///
/// The engine refused a step (as the JSON replay reports it).
pub fn replay_text(
    trace: &Trace,
    autoscaler: &mut Autoscaler,
    events: bool,
    explain_steps: bool,
) -> Result<String, String> {
    let mut log = EventLog::default();
    let mut steps = String::new();
    trace.replay_from(autoscaler, |i, step, decision, hpa, _| {
        let at = step.observation.now.millis();
        log.add(i, at, explain::events(decision, step.applied));
        if explain_steps {
            let _ = writeln!(
                steps,
                "  steps[{i}] at {}",
                explain::step_header(at, decision)
            );
            for line in explain::explain(decision, hpa, &trace.settings, &step.observation) {
                let _ = writeln!(steps, "    {line}");
            }
        }
        Ok(())
    })?;
    let mut out = String::new();
    if events {
        out.push_str("Events:\n");
        render_events(&log, &mut out);
    }
    if explain_steps {
        if events {
            out.push('\n');
        }
        out.push_str("Steps:\n");
        out.push_str(&steps);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `hpa replay --events --explain` on the bundled trace whose samples lack the metric's
    /// container: those pods are missing (filled in as upstream fills missing pods), and a
    /// step where no pod's sample has the container fails that metric.
    #[test]
    fn human_replay_of_samples_without_the_container() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/traces/container-missing.json");
        let trace = trace::load(&path).unwrap();
        let text = replay_text(&trace, &mut trace.new_autoscaler(), true, true).unwrap();
        let error = "failed to get app container metric value: failed to get cpu utilization: \
                     did not receive metrics for targeted pods (pods might be unready)";
        for line in [
            "  0:00:00  Normal   SuccessfulRescale                 New size: 5; reason: cpu \
             container resource utilization (percentage of request) above target",
            &format!("  0:01:00  Warning  FailedGetContainerResourceMetric  {error}"),
            // Two pods without `app`, counted as using nothing while scaling up: 82 % of the
            // ready pods' requests becomes 49 %, below the target, so no change.
            "  steps[1] at 0:00:15  5 replicas, no change",
            "    cpu container resource utilization (percentage of request): 82% of request, \
             average 410m vs target 60%: ratio 1.367, tolerance band [0.9, 1.1] -> proposes 5",
            // web-1 without `app` counts as using its request while scaling down.
            "    cpu container resource utilization (percentage of request): 10% of request, \
             average 50m vs target 60%: ratio 0.167, tolerance band [0.9, 1.1] -> proposes 2",
            &format!(
                "    cpu container resource utilization (percentage of request): error: {error}"
            ),
        ] {
            assert!(
                text.contains(&format!("{line}\n")),
                "{line:?} not in\n{text}"
            );
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("15"), Ok(15_000));
        assert_eq!(parse_duration("15s"), Ok(15_000));
        assert_eq!(parse_duration("1.5s"), Ok(1500));
        assert_eq!(parse_duration("500ms"), Ok(500));
        assert_eq!(parse_duration("5m"), Ok(300_000));
        assert_eq!(parse_duration("1h30m"), Ok(5_400_000));
        assert_eq!(parse_duration("1:30:00"), Ok(5_400_000));
        assert_eq!(parse_duration("2:30"), Ok(150_000));
        assert_eq!(parse_duration("0.5m"), Ok(30_000));
        assert!(parse_duration("5x").is_err());
        assert!(parse_duration("").is_err());
        assert!(parse_duration("-5s").is_err());
        assert!(parse_duration("0.0001s").is_err());
    }

    #[test]
    fn decimals() {
        assert_eq!(parse_decimal("0.1"), Some((1, -1)));
        assert_eq!(parse_decimal("0.05"), Some((5, -2)));
        assert_eq!(parse_decimal("1e-1"), Some((1, -1)));
        assert_eq!(parse_decimal("0"), Some((0, 0)));
        assert_eq!(parse_decimal("-0.1"), None);
        assert_eq!(parse_decimal("abc"), None);
    }
}
