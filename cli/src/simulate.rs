//! `hpa simulate`: a closed-loop simulation of an HPA on a load, with a simple pool model.
//!
//! # The pool model
//!
//! * **Clock.** The run lasts from the load's first row to its last. The engine evaluates at
//!   `0, P, 2P, ...` (P = the sync period, 15 s by default) before the end; the state right
//!   after an evaluation holds until the next one (the last period ends with the load).
//! * **Demand.** Each metric reads one column of the load, interpolated linearly at each
//!   evaluation (see `csv_load`). Its unit is the metric's: cores for `cpu`, bytes for
//!   `memory`, the metric's own unit for Pods, Object and External metrics.
//! * **Pods.** A rescale takes effect at once: new pods are created at the evaluation time
//!   and become ready after the start-up delay (30 s by default); until then they are
//!   `Pending`, which the HPA counts as unready (left out of averages, counted as using
//!   nothing when scaling up). A scale-down removes the newest pods first, so pods still
//!   starting go before ready ones (as a ReplicaSet chooses). Every pod has one container per
//!   container the ContainerResource metrics name (in the order they first name them), or one
//!   container `app` when none does; each container requests the `--pod-request` resources
//!   (default `cpu=1`, `memory=1Gi`), so a Resource metric's utilization is against their
//!   sum, as upstream adds a pod's containers' requests. With `--pod-template` the pods have
//!   its containers, sidecars and requests instead (`crate::pod_template`). At the start the
//!   pool holds the initial replicas, ready for an hour.
//! * **Samples.** Each evaluation sees, per metric:
//!   - Resource and ContainerResource (Utilization or AverageValue), Pods (AverageValue): the
//!     demand spread evenly over the ready pods; each ready pod reports its share as its
//!     sample (usage in the resource's unit, or the Pods metric's value), taken at the
//!     evaluation time with a 60 s window. A ContainerResource metric's sample lists its own
//!     container's usage only: the engine reads the named container and counts a pod whose
//!     sample lacks it as missing (docs/spec/trace-format.md#rule-7), so each such metric sees its
//!     container whatever the others name. Pending pods report nothing. For `cpu` the
//!     controller's readiness rules apply as upstream: a pod ready for less than a sample
//!     window during its first 5 minutes is left out.
//!   - Object and External with a **Value** target: the demand divided by the ready pods (an
//!     intensive metric, such as a backlog per consumer, which falls as pods are added: the
//!     assumption behind upstream's Value formula); the whole demand when no pod is ready.
//!   - Object and External with an **AverageValue** target: the demand itself (a total, such
//!     as a queue length), which the HPA divides by the target.
//!   - With `--noise F`, every sample (every pod's, every object or external value) is
//!     multiplied by `1 + e`, `e` uniform in `[-F, F]`, drawn from a generator seeded by
//!     `--seed`: the same inputs give the same run.
//! * **Capacity at target.** One pod takes `request x utilization / 100` (Utilization) or
//!   the target value (AverageValue, Value) of demand at target. `needed = demand /
//!   capacity`, the largest over the metrics, is what the plot shows as "pods needed".
//!
//! # The summary
//!
//! * pod-seconds: the sum over periods of the pods that exist (starting or ready) times the
//!   period's length;
//! * time above target: the periods in which some metric's demand per ready pod exceeds one
//!   pod's capacity at target (every period without a ready pod and with demand counts);
//! * peak under-provisioning: the largest `ceil(needed) - ready pods`, and when;
//!   under-provisioned pod-seconds: that shortfall summed over periods;
//! * scale events: rescales, up and down; direction reversals: rescales in the direction
//!   opposite to the previous rescale (flapping).

use std::fmt::Write as _;

use bumpalo::Bump;
use hpa::input::{
    ContainerUsage, MetricValues, MetricValuesOf, Observation, ObservationOf, Pod, PodSamples,
    PodSamplesOf, Sample,
};
use hpa::metrics::{MetricName, MetricOutcome, MAX_METRICS};
use hpa::settings::Settings;
use hpa::spec::{MetricSourceType, MetricSpec};
use hpa::time::{Duration, Instant};
use hpa::{Autoscaler, Decision, Hpa, Quantity};

use self::pool::{PoolPod, PoolSample};
use crate::csv_load::Load;
use crate::explain::{self, EventLog, Target};
use crate::noise::Noise;
use crate::pod_template::{PodTemplate, RequestProblem};
use crate::trace::Manifest;

mod pool;

/// The most pods the pool model holds (a guard against runaway specs).
pub const MAX_PODS: i32 = 1_000_000;
/// The most evaluations one run makes.
pub const MAX_STEPS: usize = 5_000_000;
/// How long the initial pods have been ready at the start of a run.
const INITIAL_AGE_MS: i64 = 3_600_000;
/// The metrics API window of every sample.
const SAMPLE_WINDOW: Duration = Duration::from_secs(60);

/// Which steps get an explanation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Explain {
    /// None.
    None,
    /// Every step.
    All,
    /// The steps whose period contains one of these times (ms from the start).
    At(Vec<i64>),
}

/// Controller settings and pool parameters of a simulation.
#[derive(Clone, Debug)]
pub struct Options {
    /// The controller settings (tolerance, windows, arithmetic).
    pub settings: Settings,
    /// Sync period, ms.
    pub sync_period: i64,
    /// Time from a pod's creation to its readiness, ms.
    pub startup_delay: i64,
    /// Noise amplitude in parts per million, 0 (none) to 10^6.
    pub noise_ppm: i64,
    /// Noise seed.
    pub seed: u64,
    /// Replicas at the start; `None`: what the first demand needs, within the HPA's range.
    pub initial_replicas: Option<i32>,
    /// Each container's requests (resource, quantity) without a pod template.
    pub requests: Vec<(String, Quantity)>,
    /// The pods' containers and requests (`--pod-template`), instead of `requests`.
    pub pod_template: Option<PodTemplate>,
    /// Steps to explain.
    pub explain: Explain,
    /// Stop the run once it is past one of these limits (`hpa tune --prune`).
    pub stop: Option<Limits>,
}

/// Limits past which a run that is only scored stops early: its figures can only grow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most time above target, ms.
    pub above_ms: i64,
    /// The most direction reversals.
    pub reversals: usize,
}

/// The evaluation times of a run.
#[derive(Clone, Debug)]
pub struct Clock {
    /// Evaluation times, ms from the load's start.
    pub times: Vec<i64>,
    /// Length of each period, ms.
    pub lengths: Vec<i64>,
    /// The load's start, ms on the load's clock.
    pub origin: i64,
    /// Run length, ms.
    pub duration: i64,
}

impl Clock {
    /// Evaluations every `period` ms over the load.
    ///
    /// # Errors
    ///
    /// Too many steps.
    pub fn new(load: &Load, period: i64) -> Result<Clock, String> {
        let duration = load.end().saturating_sub(load.start());
        // A period longer than the load is one evaluation.
        let period_ms = u64::try_from(period).unwrap_or(0).max(1);
        let steps = u64::try_from(duration)
            .unwrap_or(0)
            .div_ceil(period_ms)
            .max(1);
        let steps = usize::try_from(steps).unwrap_or(usize::MAX);
        if steps > MAX_STEPS {
            return Err(format!(
                "{}: {} at a {} sync period is {steps} evaluations; at most {MAX_STEPS} are \
                 supported",
                load.name,
                explain::time(duration),
                explain::seconds(period)
            ));
        }
        let times: Vec<i64> = (0..steps)
            .map(|k| i64::try_from(k).unwrap_or(i64::MAX).saturating_mul(period))
            .collect();
        let lengths = times
            .iter()
            .map(|t| period.min(duration.saturating_sub(*t)))
            .collect();
        Ok(Clock {
            times,
            lengths,
            origin: load.start(),
            duration,
        })
    }

    /// Absolute load times of the evaluations.
    pub fn absolute(&self) -> Vec<i64> {
        self.times
            .iter()
            .map(|t| t.saturating_add(self.origin))
            .collect()
    }
}

/// How the pool model feeds a metric.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Feed {
    /// Per-pod samples: the demand spread over the ready pods (named container, if any).
    PodShare { container: Option<String> },
    /// One value: demand per ready pod (Object/External Value).
    PerReadyPod { external: bool },
    /// One value: the demand (Object/External AverageValue).
    Total { external: bool },
}

/// One metric of a plan.
#[derive(Clone, Debug)]
pub struct MetricPlan {
    /// Upstream's name of the metric (`cpu resource utilization (percentage of request)`).
    pub name: String,
    /// Short name for plots and columns (`cpu`, `queue_length`).
    pub key: String,
    /// What the plots call it, by its source: upstream's name calls an AverageValue Object
    /// metric an "external metric", which a reader of the plot would take literally.
    pub title: String,
    /// The load column it reads.
    pub column: usize,
    /// The target in the unit of the HPA's current value (percent for utilization).
    pub target: f64,
    /// Unit of the current value: `%` or empty.
    pub unit: &'static str,
    /// Unit of the demand: `cores` for cpu, `bytes` for memory, else empty (the metric's).
    pub demand_unit: &'static str,
    feed: Feed,
    /// One pod's demand at target, in milli-units: `capacity.0 / capacity.1`.
    capacity: (i128, i128),
}

/// A checked HPA ready to simulate.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Label in tables and plots (the manifest's name).
    pub label: String,
    /// The manifest file.
    pub path: String,
    /// The metrics.
    pub metrics: Vec<MetricPlan>,
    /// Each pod's containers (see the module documentation).
    template: PodTemplate,
    min: i32,
    max: i32,
}

/// The name a load column may use for a metric: the resource or the metric's name.
fn metric_key(spec: &MetricSpec<'_>) -> String {
    match spec.type_ {
        Some(MetricSourceType::Resource) => spec.resource.map(|r| r.name),
        Some(MetricSourceType::ContainerResource) => spec.container_resource.map(|r| r.name),
        Some(MetricSourceType::Pods) => spec.pods.map(|p| p.metric.name),
        Some(MetricSourceType::Object) => spec.object.map(|o| o.metric.name),
        Some(MetricSourceType::External) => spec.external.map(|e| e.metric.name),
        None => None,
    }
    .unwrap_or("")
    .to_owned()
}

/// A metric's plot title: its source in words, then its name (upstream's name for resources).
fn metric_title(spec: &MetricSpec<'_>, upstream: &str) -> String {
    match spec.type_ {
        Some(MetricSourceType::Object) => spec.object.map(|o| {
            format!(
                "object metric {} of {}/{}",
                o.metric.name, o.described_object.kind, o.described_object.name
            )
        }),
        Some(MetricSourceType::External) => spec
            .external
            .map(|e| format!("external metric {}", e.metric.name)),
        Some(MetricSourceType::Pods) => spec.pods.map(|p| format!("pods metric {}", p.metric.name)),
        Some(MetricSourceType::ContainerResource) => spec
            .container_resource
            .map(|c| format!("{upstream} of container {}", c.container)),
        _ => None,
    }
    .unwrap_or_else(|| upstream.to_owned())
}

/// The load column of metric `index`: the only column of a one-column load for a one-metric
/// HPA, else the column named `metrics[index]` or after the metric (see [`metric_key`]). An
/// HPA of several metrics needs named columns: one column feeding them all would give a memory
/// metric the cpu demand as bytes.
fn column_for(
    index: usize,
    spec: &MetricSpec<'_>,
    all: &[MetricSpec<'_>],
    load: &Load,
    manifest: &str,
) -> Result<usize, String> {
    if load.columns.len() == 1 && all.len() == 1 {
        return Ok(0);
    }
    let by_index = format!("metrics[{index}]");
    if let Some(c) = load.columns.iter().position(|c| *c == by_index) {
        return Ok(c);
    }
    let key = metric_key(spec);
    let shared = all.iter().filter(|m| metric_key(m) == key).count() > 1;
    match load.columns.iter().position(|c| *c == key) {
        Some(c) if !shared => Ok(c),
        Some(_) => Err(format!(
            "{manifest}: spec.metrics[{index}] ({}) shares the name `{key}` with another metric: \
             name its column in {} `{by_index}`",
            MetricName(spec),
            load.name
        )),
        None => Err(format!(
            "{manifest}: {} has no column for spec.metrics[{index}] ({}): add a column named \
             `{key}` or `{by_index}` (columns: {})",
            load.name,
            MetricName(spec),
            load.columns.join(", ")
        )),
    }
}

/// Checks `manifest` against the load and the pool options, before anything runs.
///
/// # Errors
///
/// A message naming the manifest, the metric and what is missing.
pub fn plan(manifest: &Manifest, path: &str, load: &Load, opts: &Options) -> Result<Plan, String> {
    let arena = Bump::new();
    let spec = manifest.spec(&arena);
    let hpa = Hpa::new(&spec, &opts.settings).map_err(|e| format!("{path}: {e}"))?;
    let specs = hpa.metrics();
    let template = match &opts.pod_template {
        Some(template) => template.clone(),
        None => {
            let mut containers: Vec<String> = Vec::new();
            for c in specs.iter().filter_map(|m| m.container_resource) {
                if !containers.iter().any(|n| n == c.container) {
                    containers.push(c.container.to_owned());
                }
            }
            if containers.is_empty() {
                containers.push("app".to_owned());
            }
            PodTemplate::uniform(&containers, &opts.requests)
        }
    };
    let mut metrics = Vec::with_capacity(specs.len());
    for (i, spec) in specs.iter().enumerate() {
        let column = column_for(i, spec, specs, load, path)?;
        let name = MetricName(spec).to_string();
        let source = spec.type_;
        let fail = |what: &str| format!("{path}: spec.metrics[{i}] ({name}): {what}");
        let (feed, capacity, target, unit) = match (source, explain::target(spec)) {
            (_, Target::Invalid) | (None, _) => {
                return Err(fail("has no usable target, the pool model cannot feed it"))
            }
            (Some(MetricSourceType::Resource | MetricSourceType::ContainerResource), t) => {
                let resource = explain::resource_name(spec).unwrap_or("");
                let named = spec.container_resource.map(|c| c.container);
                if let Some(c) = named.filter(|c| !template.has(c)) {
                    return Err(fail(&format!(
                        "{} has no container `{c}` (containers: {})",
                        template.file.as_deref().unwrap_or("the pod"),
                        template.names()
                    )));
                }
                // The request the utilization is of: the named container's, or the pod's.
                let request = template.request(named, resource).map_err(|problem| {
                    let file = template.file.as_deref().unwrap_or("");
                    fail(&match problem {
                        RequestProblem::NoRequest => format!(
                            "a Utilization target needs the pods' request: pass \
                             --pod-request {resource}=QUANTITY"
                        ),
                        RequestProblem::Missing(c) => format!(
                            "a Utilization target needs the pods' request: container `{c}` \
                             of {file} has no {resource} request"
                        ),
                        RequestProblem::NoContainer(c) => format!("no container `{c}`"),
                        RequestProblem::MissingPodLevel => format!(
                            "a Utilization target needs the pods' request: {file} sets \
                             pod-level requests without {resource}, and no container \
                             requests it"
                        ),
                    })
                });
                let feed = Feed::PodShare {
                    container: named.map(str::to_owned),
                };
                match t {
                    Target::Utilization(percent) => {
                        let request = request?;
                        if request <= 0 {
                            return Err(fail(&format!(
                                "the pods' {resource} request must be positive"
                            )));
                        }
                        let request = i128::from(request);
                        (
                            feed,
                            (request.saturating_mul(i128::from(percent)), 100),
                            f64::from(percent),
                            "%",
                        )
                    }
                    Target::AverageValue(v) => (feed, (i128::from(v), 1), v as f64 / 1000.0, ""),
                    _ => return Err(fail("has no usable target")),
                }
            }
            (Some(MetricSourceType::Pods), Target::AverageValue(v)) => (
                Feed::PodShare { container: None },
                (i128::from(v), 1),
                v as f64 / 1000.0,
                "",
            ),
            (Some(s @ (MetricSourceType::Object | MetricSourceType::External)), t) => {
                let external = s == MetricSourceType::External;
                match t {
                    Target::Value(v) => (
                        Feed::PerReadyPod { external },
                        (i128::from(v), 1),
                        v as f64 / 1000.0,
                        "",
                    ),
                    Target::AverageValue(v) => (
                        Feed::Total { external },
                        (i128::from(v), 1),
                        v as f64 / 1000.0,
                        "",
                    ),
                    _ => return Err(fail("has no usable target")),
                }
            }
            (Some(MetricSourceType::Pods), _) => return Err(fail("has no usable target")),
        };
        if capacity.0 <= 0 {
            return Err(fail("its target must be positive for the pool model"));
        }
        let demand_unit = match explain::resource_name(spec) {
            Some("cpu") => "cores",
            Some("memory") => "bytes",
            _ => "",
        };
        metrics.push(MetricPlan {
            demand_unit,
            title: metric_title(spec, &name),
            name,
            key: metric_key(spec),
            column,
            target,
            unit,
            feed,
            capacity,
        });
    }
    let label = if manifest.name.is_empty() {
        path.to_owned()
    } else {
        manifest.name.clone()
    };
    Ok(Plan {
        label,
        path: path.to_owned(),
        metrics,
        template,
        min: hpa.min_replicas(),
        max: hpa.max_replicas(),
    })
}

/// What one run produced.
#[derive(Clone, Debug)]
pub struct Run {
    /// The plan it ran.
    pub plan: Plan,
    /// Replicas at the start.
    pub initial_replicas: i32,
    /// Per step, after the decision was applied: the pods (spec replicas).
    pub replicas: Vec<i32>,
    /// Per step, after the decision was applied: the ready pods.
    pub ready: Vec<i32>,
    /// Per step: pods needed at target (the largest over the metrics).
    pub needed: Vec<f64>,
    /// `current[m][k]`: metric `m`'s current value as the HPA measured it at step `k`
    /// (percent for utilization, units otherwise), `None` when it failed.
    pub current: Vec<Vec<Option<f64>>>,
    /// The events.
    pub events: EventLog,
    /// Explained steps: time and lines.
    pub explanations: Vec<(i64, String, Vec<String>)>,
    /// The summary.
    pub summary: Summary,
}

/// The numbers of a run (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Run length, ms.
    pub duration_ms: i64,
    /// Evaluations.
    pub steps: usize,
    /// Σ pods x period, pod-milliseconds.
    pub pod_ms: i128,
    /// Most pods at once.
    pub max_pods: i32,
    /// Time above target, ms.
    pub above_ms: i64,
    /// Largest `ceil(needed) - ready`, and its time (ms).
    pub peak_under: i64,
    /// When the peak was first reached.
    pub peak_under_at: i64,
    /// Σ shortfall x period, pod-milliseconds.
    pub under_pod_ms: i128,
    /// Rescales up.
    pub scale_ups: usize,
    /// Rescales down.
    pub scale_downs: usize,
    /// Rescales opposite to the previous one.
    pub reversals: usize,
    /// Steps whose metrics failed (no decision).
    pub failed_steps: usize,
    /// Steps a full history ring influenced.
    pub overflowed_steps: usize,
    /// When the run stopped early, past [`Options::stop`]'s limits: the end of the last
    /// period it accounted for (ms), if it did.
    pub stopped_at: Option<i64>,
}

/// Rescales counted by direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Increases.
    pub ups: usize,
    /// Decreases.
    pub downs: usize,
    /// Changes opposite to the previous one.
    pub reversals: usize,
    /// The previous change's direction (up).
    last_up: Option<bool>,
}

impl Changes {
    /// Counts a change up (`up`) or down.
    pub fn record(&mut self, up: bool) {
        if up {
            self.ups = self.ups.saturating_add(1);
        } else {
            self.downs = self.downs.saturating_add(1);
        }
        if self.last_up.is_some_and(|last| last != up) {
            self.reversals = self.reversals.saturating_add(1);
        }
        self.last_up = Some(up);
    }
}

/// `ceil(num / den)` for a positive `den` (a capacity); 0 for no demand.
fn ceil_div(num: i128, den: i128) -> i128 {
    if num <= 0 || den <= 0 {
        return 0;
    }
    i128::try_from(num.unsigned_abs().div_ceil(den.unsigned_abs())).unwrap_or(i128::MAX)
}

/// `put(slot, sample)` for each slot: `demand` spread evenly over the slots (the first
/// `demand % slots` take one more than the others), with noise.
fn spread<T>(noise: &mut Noise, demand: i64, slots: &mut [T], mut put: impl FnMut(&mut T, i64)) {
    let Ok(count) = i64::try_from(slots.len()) else {
        return;
    };
    if count == 0 {
        return;
    }
    let (Some(share), Some(rest)) = (demand.checked_div(count), demand.checked_rem(count)) else {
        return;
    };
    let (more, others) = slots.split_at_mut(usize::try_from(rest).unwrap_or(0));
    noise.apply_each(share.saturating_add(1), more, &mut put);
    noise.apply_each(share, others, put);
}

/// Runs one plan. `demand[c]` is load column `c` at each evaluation; `tick` is called every
/// few hundred steps with the number of steps done since the last call.
///
/// # Errors
///
/// A message when the engine refuses an input or the pool outgrows [`MAX_PODS`].
pub fn run(
    manifest: &Manifest,
    plan: &Plan,
    clock: &Clock,
    demand: &[Vec<i64>],
    opts: &Options,
    tick: &(dyn Fn(u64) + Sync),
) -> Result<Run, String> {
    run_job(&Job {
        manifest,
        plan,
        clock,
        demand,
        opts,
        tick,
        record: Record::All,
    })
}

/// [`run`]'s summary only: the same run without the series and events [`Run`] records per
/// step (`hpa tune` scores thousands of runs by their summaries alone).
///
/// # Errors
///
/// As [`run`].
pub fn score(
    manifest: &Manifest,
    plan: &Plan,
    clock: &Clock,
    demand: &[Vec<i64>],
    opts: &Options,
) -> Result<Summary, String> {
    run_job(&Job {
        manifest,
        plan,
        clock,
        demand,
        opts,
        tick: &|_| {},
        record: Record::Summary,
    })
    .map(|r| r.summary)
}

/// What a run records besides its summary.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Record {
    /// The series, the events and the explanations of [`Run`].
    All,
    /// Nothing: the series and the events stay empty (explanations are still as
    /// [`Options::explain`] asks).
    Summary,
}

/// One run's inputs (the arguments of [`run`]) and what it records.
struct Job<'j> {
    manifest: &'j Manifest,
    plan: &'j Plan,
    clock: &'j Clock,
    demand: &'j [Vec<i64>],
    opts: &'j Options,
    tick: &'j (dyn Fn(u64) + Sync),
    record: Record,
}

fn run_job(job: &Job<'_>) -> Result<Run, String> {
    // Histories that cover the longest window (3600 s) and policy period (1800 s) at this
    // sync period, with the first evaluation's extra entry, whatever the replica counts: an
    // entry takes at most 8 bytes while its gap is under 35 minutes (a longer gap leaves
    // fewer entries in the window).
    const ENTRY: usize = 8;
    if job.opts.sync_period >= 15_000 {
        run_with::<{ 242 * ENTRY }, { 122 * ENTRY }>(job)
    } else if job.opts.sync_period >= 1_000 {
        run_with::<{ 3602 * ENTRY }, { 1802 * ENTRY }>(job)
    } else {
        run_with::<{ 36_002 * ENTRY }, { 18_002 * ENTRY }>(job)
    }
}

fn run_with<const R: usize, const E: usize>(job: &Job<'_>) -> Result<Run, String> {
    let &Job {
        manifest,
        plan,
        clock,
        demand,
        opts,
        tick,
        record,
    } = job;
    let recording = record == Record::All;
    let arena = Bump::new();
    let spec = manifest.spec(&arena);
    let settings = opts.settings;
    let hpa = Hpa::new(&spec, &settings).map_err(|e| format!("{}: {e}", plan.path))?;
    let metric_count = plan.metrics.len();
    if metric_count > MAX_METRICS {
        return Err(format!("{}: too many metrics", plan.path));
    }
    let steps = clock.times.len();

    // The pod template: the plan's containers with their requests.
    let requests = plan.template.engine_requests();
    let containers = plan.template.engine_containers(&requests);
    let pod_requests = plan.template.engine_pod_requests();
    // The pods, as the engine reads them (`pool`).
    let shape = pool::Shape {
        containers: &containers,
        requests: pod_requests.as_deref(),
        startup_delay: opts.startup_delay,
    };

    // Demand of a load column at step `k`: every metric's column has a value per step.
    for metric in &plan.metrics {
        if demand.get(metric.column).is_none_or(|c| c.len() < steps) {
            return Err(format!(
                "{}: no demand for {} at every evaluation",
                plan.path, metric.name
            ));
        }
    }
    let demand_at = |column: usize, k: usize| {
        demand
            .get(column)
            .and_then(|c| c.get(k))
            .copied()
            .unwrap_or(0)
    };

    // Needed pods at each step (from the demand only).
    let needed_at = |k: usize| -> (f64, i128) {
        let mut most = 0.0f64;
        let mut most_ceil = 0i128;
        for m in &plan.metrics {
            let d = i128::from(demand_at(m.column, k));
            let (num, den) = m.capacity;
            most = most.max(d as f64 * den as f64 / num as f64);
            most_ceil = most_ceil.max(ceil_div(d.saturating_mul(den), num));
        }
        (most, most_ceil)
    };

    let initial = match opts.initial_replicas {
        Some(n) => n,
        None => {
            let (_, need) = needed_at(0);
            let floor = i128::from(plan.min.max(1));
            i32::try_from(need.clamp(floor, i128::from(plan.max.max(1)))).unwrap_or(plan.max)
        }
    };
    if initial > MAX_PODS {
        return Err(format!(
            "{}: {initial} initial replicas; the pool model holds at most {MAX_PODS} pods",
            plan.path
        ));
    }

    // The pods, oldest first.
    let mut pods: Vec<PoolPod<'_>> = Vec::new();
    for _ in 0..initial {
        pods.push(PoolPod::ready(&shape, -INITIAL_AGE_MS));
    }
    let mut ready = pods.len();
    // The ready count the pods' alike declarations were last written for.
    let mut declared = None;
    let mut autoscaler: Autoscaler<R, E> = Autoscaler::new();
    let mut noise = Noise::new(opts.seed, opts.noise_ppm);

    // Per metric, what it feeds the engine: sample buffers (pod-based metrics without a named
    // container), container usage (ContainerResource metrics) or one value.
    let mut feeds: Vec<FeedBuffers<'_>> = vec![FeedBuffers::default(); metric_count];

    let series = if recording { steps } else { 0 };
    let mut out = Run {
        plan: plan.clone(),
        initial_replicas: initial,
        replicas: Vec::with_capacity(series),
        ready: Vec::with_capacity(series),
        needed: Vec::with_capacity(series),
        current: if recording {
            vec![Vec::with_capacity(steps); metric_count]
        } else {
            Vec::new()
        },
        events: EventLog::default(),
        explanations: Vec::new(),
        summary: Summary {
            duration_ms: clock.duration,
            steps,
            ..Summary::default()
        },
    };
    let mut changes = Changes::default();
    let mut pending_ticks = 0u64;

    for (k, (&now, &length)) in clock.times.iter().zip(&clock.lengths).enumerate() {
        // Pods become ready in creation order.
        while let Some(pod) = pods.get_mut(ready) {
            if pod.created.saturating_add(opts.startup_delay) > now {
                break;
            }
            *pod = PoolPod::ready(&shape, pod.created);
            ready = ready.saturating_add(1);
        }
        if declared != Some(ready) {
            pool::declare_alike(&mut pods, ready);
            declared = Some(ready);
        }
        debug_assert!(
            hpa::input::alike_declarations_hold(&pods),
            "step {k}: a false alike declaration"
        );
        let ready_i64 = i64::try_from(ready).unwrap_or(i64::MAX);

        // Samples and values.
        for (metric, feed) in plan.metrics.iter().zip(&mut feeds) {
            let d = demand_at(metric.column, k);
            match &metric.feed {
                Feed::PodShare { container } => match container {
                    None => {
                        // Every slot written once: the ready pods' samples, then none for
                        // the pending pods.
                        let buf = &mut feed.samples;
                        buf.resize(pods.len(), PoolSample::Missing);
                        let (samples, pending) = buf.split_at_mut(ready);
                        spread(&mut noise, d, samples, |slot, milli| {
                            *slot = PoolSample::Pod(milli);
                        });
                        pending.fill(PoolSample::Missing);
                    }
                    Some(name) => {
                        let u = &mut feed.usage;
                        u.resize(ready, ContainerUsage { name, milli: 0 });
                        spread(&mut noise, d, u, |slot, milli| {
                            *slot = ContainerUsage { name, milli };
                        });
                    }
                },
                Feed::PerReadyPod { .. } => {
                    let v = d.checked_div(ready_i64).unwrap_or(d);
                    feed.value = noise.apply(v);
                }
                Feed::Total { .. } => feed.value = noise.apply(d),
            }
        }
        // A ContainerResource metric's samples list its container's usage, which `feeds`
        // holds for this step only: built at each step. The other metrics' samples and values
        // are in `feeds`, and the values in an array: nothing else allocated per step.
        let container_samples: [Vec<PoolSample<'_>>; MAX_METRICS] =
            std::array::from_fn(|m| {
                match (plan.metrics.get(m).map(|metric| &metric.feed), feeds.get(m)) {
                    (Some(Feed::PodShare { container: Some(_) }), Some(feed)) => {
                        let mut v: Vec<PoolSample<'_>> =
                            feed.usage.iter().map(PoolSample::Container).collect();
                        v.resize(pods.len(), PoolSample::Missing);
                        v
                    }
                    _ => Vec::new(),
                }
            });
        let values: [PoolValues<'_>; MAX_METRICS] = std::array::from_fn(|m| {
            let (Some(metric), Some(feed), Some(container_samples)) =
                (plan.metrics.get(m), feeds.get(m), container_samples.get(m))
            else {
                return MetricValuesOf::Object(0);
            };
            match &metric.feed {
                Feed::PodShare { container: None } => MetricValuesOf::Pods(PodSamplesOf {
                    per_pod: &feed.samples,
                    orphans: &[],
                }),
                Feed::PodShare { container: Some(_) } => MetricValuesOf::Pods(PodSamplesOf {
                    per_pod: container_samples,
                    orphans: &[],
                }),
                Feed::PerReadyPod { external: true } | Feed::Total { external: true } => {
                    MetricValuesOf::External(std::slice::from_ref(&feed.value))
                }
                Feed::PerReadyPod { external: false } | Feed::Total { external: false } => {
                    MetricValuesOf::Object(feed.value)
                }
            }
        });
        let values = values.get(..metric_count).unwrap_or_default();
        let replicas = i32::try_from(pods.len()).unwrap_or(i32::MAX);
        let obs = ObservationOf {
            now: Instant(now),
            replicas,
            status_replicas: replicas,
            pods: &pods,
            metrics: values,
        };
        let decision = autoscaler
            .evaluate(&hpa, &settings, &obs)
            .map_err(|e| format!("{} at {}: {e}", plan.path, explain::time(now)))?;

        for (m, outcome) in decision.metrics.iter().enumerate() {
            let value = match outcome {
                MetricOutcome::Proposal(p) => match (p.average_utilization, p.value) {
                    (Some(u), _) => Some(f64::from(u)),
                    (None, Some(v)) => Some(v as f64 / 1000.0),
                    // An average over zero pods (scaling from zero) is the engine's saturated
                    // i64::MAX: no point on the plot rather than an axis running to 9e15.
                    (None, None) => p
                        .average_value
                        .filter(|v| *v != i64::MAX)
                        .map(|v| v as f64 / 1000.0),
                },
                MetricOutcome::Error(_) => None,
            };
            if let Some(series) = out.current.get_mut(m) {
                series.push(value);
            }
        }
        for series in out.current.iter_mut().skip(decision.metrics.len()) {
            series.push(None);
        }
        if recording {
            out.events.add(k, now, explain::events(&decision, true));
        }
        let explain_this = match &opts.explain {
            Explain::None => false,
            Explain::All => true,
            Explain::At(times) => times
                .iter()
                .any(|t| *t >= now && *t < now.saturating_add(length.max(1))),
        };
        if explain_this {
            out.explanations.push((
                now,
                explain::step_header(now, &decision),
                explain_step(&decision, &hpa, &settings, &obs),
            ));
        }
        let summary = &mut out.summary;
        if decision.limited_by == hpa::LimitedBy::InvalidMetrics {
            summary.failed_steps = summary.failed_steps.saturating_add(1);
        }
        if decision.history_overflowed {
            summary.overflowed_steps = summary.overflowed_steps.saturating_add(1);
        }

        // Apply.
        if decision.rescale {
            let target = decision.desired_replicas;
            let up = target > decision.current_replicas;
            if target > MAX_PODS {
                return Err(format!(
                    "{} at {}: the HPA asks for {target} pods; the pool model holds at most \
                     {MAX_PODS}",
                    plan.path,
                    explain::time(now)
                ));
            }
            drop(decision);
            autoscaler.rescale_succeeded();
            let target = usize::try_from(target.max(0)).unwrap_or(0);
            if target > pods.len() {
                while pods.len() < target {
                    pods.push(PoolPod::pending(&shape, now));
                }
            } else {
                pods.truncate(target);
                ready = ready.min(target);
            }
            changes.record(up);
            summary.scale_ups = changes.ups;
            summary.scale_downs = changes.downs;
            summary.reversals = changes.reversals;
        }

        // Account for the period.
        let pods_now = i32::try_from(pods.len()).unwrap_or(i32::MAX);
        let ready_now = i32::try_from(ready).unwrap_or(i32::MAX);
        let (needed, needed_ceil) = needed_at(k);
        let shortfall = needed_ceil.saturating_sub(i128::from(ready_now)).max(0);
        let summary = &mut out.summary;
        summary.pod_ms = summary
            .pod_ms
            .saturating_add(i128::from(pods_now).saturating_mul(i128::from(length)));
        summary.max_pods = summary.max_pods.max(pods_now);
        if shortfall > 0 {
            summary.above_ms = summary.above_ms.saturating_add(length);
            summary.under_pod_ms = summary
                .under_pod_ms
                .saturating_add(shortfall.saturating_mul(i128::from(length)));
            let shortfall = i64::try_from(shortfall).unwrap_or(i64::MAX);
            if shortfall > summary.peak_under {
                summary.peak_under = shortfall;
                summary.peak_under_at = now;
            }
        }
        if recording {
            out.replicas.push(pods_now);
            out.ready.push(ready_now);
            out.needed.push(needed);
        }
        if let Some(limits) = opts.stop {
            let summary = &mut out.summary;
            if summary.above_ms > limits.above_ms || summary.reversals > limits.reversals {
                summary.stopped_at = Some(now.saturating_add(length));
                break;
            }
        }

        pending_ticks = pending_ticks.saturating_add(1);
        if pending_ticks == 512 {
            tick(pending_ticks);
            pending_ticks = 0;
        }
    }
    tick(pending_ticks);
    out.summary.max_pods = out.summary.max_pods.max(initial);
    Ok(out)
}

/// The values of one metric as the pool hands them to the engine.
type PoolValues<'a> = MetricValuesOf<'a, PoolSample<'a>, PoolSample<'a>>;

/// [`explain::explain`] of a step the engine evaluated on the pool's pods and samples: on the
/// same pods and samples as the core's structs.
fn explain_step(
    decision: &Decision<'_>,
    hpa: &Hpa<'_>,
    settings: &Settings,
    obs: &ObservationOf<'_, PoolPod<'_>, PoolSample<'_>, PoolSample<'_>>,
) -> Vec<String> {
    let pods: Vec<Pod<'_>> = obs.pods.iter().map(PoolPod::native).collect();
    let slots: Vec<Vec<Option<Sample<'_>>>> = obs
        .metrics
        .iter()
        .map(|values| match values {
            MetricValuesOf::Pods(samples) => samples
                .per_pod
                .iter()
                .map(|slot| slot.native(obs.now))
                .collect(),
            _ => Vec::new(),
        })
        .collect();
    let metrics: Vec<MetricValues<'_>> = obs
        .metrics
        .iter()
        .zip(&slots)
        .map(|(values, per_pod)| match *values {
            // The pool lists no orphan samples.
            MetricValuesOf::Pods(_) => MetricValues::Pods(PodSamples {
                per_pod,
                orphans: &[],
            }),
            MetricValuesOf::Object(v) => MetricValues::Object(v),
            MetricValuesOf::External(v) => MetricValues::External(v),
            MetricValuesOf::Error(e) => MetricValues::Error(e),
        })
        .collect();
    let native = Observation {
        now: obs.now,
        replicas: obs.replicas,
        status_replicas: obs.status_replicas,
        pods: &pods,
        metrics: &metrics,
    };
    explain::explain(decision, hpa, settings, &native)
}

/// What one metric hands the engine at a step, kept between steps to reuse the memory.
#[derive(Clone, Default)]
struct FeedBuffers<'a> {
    /// Per pod, its sample (pod-based metrics without a named container).
    samples: Vec<PoolSample<'static>>,
    /// Per ready pod, its named container's usage (ContainerResource metrics).
    usage: Vec<ContainerUsage<'a>>,
    /// The value of an Object or External metric.
    value: i64,
}

/// Pod-milliseconds as pod-seconds (`1234`, `1234.5`).
pub(crate) fn pod_seconds(pod_ms: i128) -> String {
    let whole = pod_ms / 1000;
    let frac = pod_ms % 1000;
    let mut text = group(whole);
    if frac != 0 {
        let f = format!("{frac:03}");
        text.push('.');
        text.push_str(f.trim_end_matches('0'));
    }
    text
}

/// `1234567` as `1,234,567`.
fn group(n: i128) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && digits.len().saturating_sub(i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}

/// `part` of `whole` in percent, one decimal (`33.3 %`).
pub(crate) fn percent(part: i64, whole: i64) -> String {
    if whole <= 0 {
        return "0 %".to_owned();
    }
    format!(
        "{} %",
        explain::decimal(part as f64 * 100.0 / whole as f64, 1)
    )
}

/// The summary table of one or more runs, side by side.
pub fn summary_table(runs: &[Run]) -> String {
    let mut rows: Vec<(&str, Vec<String>)> = Vec::new();
    let mut row = |name: &'static str, f: &dyn Fn(&Run) -> String| {
        rows.push((name, runs.iter().map(f).collect()));
    };
    row("manifest", &|r| r.plan.path.clone());
    row("initial replicas", &|r| r.initial_replicas.to_string());
    row("pod-seconds", &|r| {
        let hours = r.summary.pod_ms as f64 / 3_600_000.0;
        format!(
            "{} ({} pod-hours)",
            pod_seconds(r.summary.pod_ms),
            explain::decimal(hours, 1)
        )
    });
    row("mean pods", &|r| {
        let d = r.summary.duration_ms.max(1);
        explain::decimal(r.summary.pod_ms as f64 / d as f64, 2)
    });
    row("max pods", &|r| r.summary.max_pods.to_string());
    row("time above target", &|r| {
        format!(
            "{} ({})",
            explain::time(r.summary.above_ms),
            percent(r.summary.above_ms, r.summary.duration_ms)
        )
    });
    row("peak under-provisioning", &|r| {
        if r.summary.peak_under == 0 {
            "0 pods".to_owned()
        } else {
            format!(
                "{} pods at {}",
                r.summary.peak_under,
                explain::time(r.summary.peak_under_at)
            )
        }
    });
    row("under-provisioned pod-seconds", &|r| {
        pod_seconds(r.summary.under_pod_ms)
    });
    row("scale events", &|r| {
        format!(
            "{} ({} up, {} down)",
            r.summary.scale_ups.saturating_add(r.summary.scale_downs),
            r.summary.scale_ups,
            r.summary.scale_downs
        )
    });
    row("direction reversals", &|r| r.summary.reversals.to_string());
    if runs.iter().any(|r| r.summary.failed_steps > 0) {
        row("steps with failed metrics", &|r| {
            r.summary.failed_steps.to_string()
        });
    }
    if runs.iter().any(|r| r.summary.overflowed_steps > 0) {
        row("steps held by a full history", &|r| {
            r.summary.overflowed_steps.to_string()
        });
    }
    let labels: Vec<&str> = runs.iter().map(|r| r.plan.label.as_str()).collect();
    columns_table(&labels, &rows)
}

/// A table of named rows with one column per label, indented by two spaces, each column as
/// wide as its widest cell.
pub(crate) fn columns_table(labels: &[&str], rows: &[(&str, Vec<String>)]) -> String {
    let name_width = rows.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    let widths: Vec<usize> = labels
        .iter()
        .enumerate()
        .map(|(i, label)| {
            rows.iter()
                .filter_map(|(_, cells)| cells.get(i))
                .map(String::len)
                .chain(std::iter::once(label.len()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let mut line = format!("  {:name_width$}", "");
    for (label, width) in labels.iter().zip(&widths) {
        let _ = write!(line, "  {label:width$}");
    }
    out.push_str(line.trim_end());
    out.push('\n');
    for (name, cells) in rows {
        let mut line = format!("  {name:name_width$}");
        for (cell, width) in cells.iter().zip(&widths) {
            let _ = write!(line, "  {cell:width$}");
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formatting() {
        assert_eq!(group(1_234_567), "1,234,567");
        assert_eq!(group(123), "123");
        assert_eq!(pod_seconds(1_234_500), "1,234.5");
        assert_eq!(pod_seconds(15_000), "15");
        assert_eq!(percent(1, 3), "33.3 %");
    }

    /// ContainerResource metrics that name different containers: every pod has both, each
    /// metric's samples hold its own container's usage and its utilization is of that
    /// container's request; a Resource metric's is of the pod's (both containers).
    #[test]
    fn metrics_naming_different_containers_each_see_their_container() {
        let manifest = crate::trace::parse_manifest(
            r#"
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 20
  metrics:
    - type: ContainerResource
      containerResource: {name: cpu, container: app, target: {type: Utilization, averageUtilization: 50}}
    - type: ContainerResource
      containerResource: {name: cpu, container: sidecar, target: {type: Utilization, averageUtilization: 50}}
    - type: Resource
      resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
    - type: ContainerResource
      containerResource: {name: memory, container: app, target: {type: AverageValue, averageValue: 1Gi}}
"#,
            crate::trace::Format::Yaml,
            &crate::trace::Cluster::NEWEST,
        )
        .unwrap();
        // 4 pods: app at 2 cores (50 % of its 1-core request each), the sidecar at 4 (100 %),
        // the pod at 4 (50 % of 2 cores), app memory at 4Gi (1Gi each).
        let load = crate::csv_load::parse(
            "time,metrics[0],metrics[1],metrics[2],metrics[3]\n0,2,4,4,4294967296\n\
             60,2,4,4,4294967296\n",
            "load.csv",
        )
        .unwrap();
        let opts = Options {
            settings: Settings::DEFAULT,
            sync_period: 15_000,
            startup_delay: 30_000,
            noise_ppm: 0,
            seed: 0,
            initial_replicas: Some(4),
            requests: vec![
                ("cpu".to_owned(), Quantity::parse("1").unwrap()),
                ("memory".to_owned(), Quantity::parse("1Gi").unwrap()),
            ],
            explain: Explain::None,
            pod_template: None,
            stop: None,
        };
        let plan = plan(&manifest, "hpa.yaml", &load, &opts).unwrap();
        assert_eq!(plan.template.names(), "app, sidecar");
        let clock = Clock::new(&load, opts.sync_period).unwrap();
        let demand = load.resample(&clock.absolute());
        let run = run(&manifest, &plan, &clock, &demand, &opts, &|_| {}).unwrap();
        let first: Vec<Option<f64>> = run.current.iter().map(|m| m[0]).collect();
        assert_eq!(
            first,
            [Some(50.0), Some(100.0), Some(50.0), Some(1_073_741_824.0)]
        );
        // The sidecar's 100 % against 50 % doubles the pool.
        assert_eq!(run.replicas[0], 8);
    }
}
