//! `Autoscaler::evaluate` on an arbitrary spec (valid or not) and an arbitrary sequence of
//! observations and rescale reports. Never panics, and:
//!
//! * malformed input (too many metrics, a metric count mismatch, negative replicas, time
//!   going backwards) returns exactly the expected error and changes nothing;
//! * well-formed input returns `Ok`, in the branch docs/spec/reconcile.md#branches prescribes;
//!   failed metrics never rescale and keep `desiredReplicas`; otherwise
//!   `rescale == (desired != current)`;
//! * for a spec the API server accepts (`Hpa::new`), with current in [min, max]: desired in
//!   [min, max]; with a behavior, desired between current and the proposal; without one,
//!   desired >= min(current, proposal) and within the legacy 2x/+4 limit; a Disabled
//!   direction is never taken;
//! * the run is deterministic, and an autoscaler cloned mid-sequence continues identically
//!   (also with tiny history rings, where folding kicks in).
#![no_main]

use arbitrary::Arbitrary;
use hpa::autoscaler::{LimitedBy, DEFAULT_EVENT_BYTES, DEFAULT_RECOMMENDATION_BYTES};
use hpa::conditions::{ConditionType, Reason};
use hpa::input::{
    ConditionStatus, Container, ContainerKind, ContainerUsage, PodPhase, ReadyCondition,
    ResourceRequest,
};
use hpa::metrics::{MetricOutcome, MAX_METRICS};
use hpa::spec::{
    Behavior, ContainerResourceMetricSource, CrossVersionObjectReference, ExternalMetricSource,
    MetricIdentifier, MetricSourceType, MetricSpec, MetricTarget, MetricTargetType,
    ObjectMetricSource, PodsMetricSource, PolicyType, ResourceMetricSource, ScalingPolicy,
    ScalingRules, SelectPolicy,
};
use hpa::Tolerance;
use hpa::{Arithmetic, Autoscaler, Decision, Duration, EvaluateError, Hpa, HpaSpec, Instant};
use hpa::{MetricValues, Observation, Pod, PodSamples, Quantity, Sample, Settings, Status};
use libfuzzer_sys::fuzz_target;

// ---------------------------------------------------------------------------------------------
// The fuzzer's input

#[derive(Arbitrary, Debug)]
enum Q {
    Milli(i64),
    Units(i16),
    Text(String),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum TargetType {
    Utilization,
    Value,
    AverageValue,
    Unset,
}

#[derive(Arbitrary, Debug)]
struct Target {
    type_: TargetType,
    value: Option<Q>,
    average_value: Option<Q>,
    average_utilization: Option<i32>,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Source {
    Resource,
    ContainerResource,
    Pods,
    Object,
    External,
    Unset,
}

#[derive(Arbitrary, Debug)]
struct Metric {
    source: Source,
    resource: u8,
    container: u8,
    name: u8,
    selector: bool,
    selector_invalid: bool,
    target: Target,
    /// Also populate a source field that does not match the type (invalid).
    extra_field: bool,
}

#[derive(Arbitrary, Debug)]
struct Policy {
    percent: bool,
    value: i32,
    period_seconds: i32,
}

#[derive(Arbitrary, Debug)]
struct Rules {
    window: Option<i32>,
    select: Option<u8>,
    policies: Option<Vec<Policy>>,
    tolerance: Option<Q>,
}

#[derive(Arbitrary, Debug)]
struct SettingsModel {
    exact: bool,
    tolerance: Option<(u16, i8)>,
    downscale_window_ms: Option<u32>,
    cpu_initialization_s: Option<u16>,
    readiness_delay_s: Option<u16>,
    scale_to_zero: bool,
    configurable_tolerance: bool,
    legacy_factor: Option<u8>,
    legacy_minimum: Option<u8>,
}

#[derive(Arbitrary, Debug)]
struct ContainerModel {
    name: u8,
    kind: u8,
    requests: Vec<(u8, Q)>,
}

#[derive(Arbitrary, Debug)]
struct PodModel {
    phase: u8,
    ready: Option<(u8, Option<i32>)>,
    start_offset_ms: Option<i32>,
    deleted: bool,
    containers: Vec<ContainerModel>,
    requests: Option<Vec<(u8, Q)>>,
}

#[derive(Arbitrary, Debug)]
struct SampleModel {
    milli: i64,
    age_ms: i32,
    window_s: u8,
    containers: Vec<(u8, i64)>,
}

#[derive(Arbitrary, Debug)]
enum ValuesModel {
    Pods {
        per_pod: Vec<Option<SampleModel>>,
        orphans: Vec<SampleModel>,
    },
    Object(i64),
    External(Vec<i64>),
    Error,
}

#[derive(Arbitrary, Debug)]
struct Step {
    /// Milliseconds after the previous step (negative: time going backwards).
    dt: i64,
    replicas: Option<i32>,
    status_replicas: Option<i32>,
    pods: Vec<PodModel>,
    values: Vec<ValuesModel>,
    /// Pass one metric value too many (a malformed observation).
    extra_value: bool,
    outcome: u8,
    /// Repeat this step (`repeat % 8` more times, `dt` apart, closed loop): long sequences
    /// from short inputs.
    repeat: u8,
}

#[derive(Arbitrary, Debug)]
struct Input {
    min: Option<i32>,
    max: i32,
    metrics: Vec<Metric>,
    behavior: Option<(Option<Rules>, Option<Rules>)>,
    settings: SettingsModel,
    scaled_to_zero: bool,
    start: i64,
    clone_at: u8,
    steps: Vec<Step>,
}

// ---------------------------------------------------------------------------------------------
// Building the engine's inputs

const NAMES: [&str; 10] = ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9"];
const RESOURCES: [&str; 4] = ["cpu", "memory", "hugepages-2Mi", "Not A Name"];
const CONTAINERS: [&str; 4] = ["app", "sidecar", "init", "Bad_Name"];
const METRIC_NAMES: [&str; 3] = ["rps", "queue_length", ""];

fn pick<T: Copy>(items: &[T], i: u8) -> T {
    items[usize::from(i) % items.len()]
}

fn quantity(q: &Q) -> Option<Quantity> {
    match q {
        Q::Milli(m) => Some(Quantity::from_milli(*m)),
        Q::Units(u) => Some(Quantity::from_int(
            i64::from(*u),
            hpa::quantity::Format::DecimalSI,
        )),
        Q::Text(t) => Quantity::parse(t).ok(),
    }
}

fn target(t: &Target) -> MetricTarget {
    MetricTarget {
        type_: match t.type_ {
            TargetType::Utilization => Some(MetricTargetType::Utilization),
            TargetType::Value => Some(MetricTargetType::Value),
            TargetType::AverageValue => Some(MetricTargetType::AverageValue),
            TargetType::Unset => None,
        },
        value: t.value.as_ref().and_then(quantity),
        average_value: t.average_value.as_ref().and_then(quantity),
        average_utilization: t.average_utilization,
    }
}

fn metric(m: &Metric) -> MetricSpec<'static> {
    let identifier = MetricIdentifier {
        name: pick(&METRIC_NAMES, m.name),
        selector: m
            .selector
            .then_some("&LabelSelector{MatchLabels:map[a:b],}"),
        selector_invalid: m.selector_invalid,
    };
    let t = target(&m.target);
    let resource = pick(&RESOURCES, m.resource);
    let described = CrossVersionObjectReference {
        kind: "Service",
        name: "front",
        api_version: "v1",
    };
    let mut spec = MetricSpec::default();
    let all = m.extra_field;
    let source = m.source;
    if all || matches!(source, Source::Resource) {
        spec.resource = Some(ResourceMetricSource {
            name: resource,
            target: t,
        });
    }
    if all || matches!(source, Source::ContainerResource) {
        spec.container_resource = Some(ContainerResourceMetricSource {
            name: resource,
            container: pick(&CONTAINERS, m.container),
            target: t,
        });
    }
    if all || matches!(source, Source::Pods) {
        spec.pods = Some(PodsMetricSource {
            metric: identifier,
            target: t,
        });
    }
    if all || matches!(source, Source::Object) {
        spec.object = Some(ObjectMetricSource {
            described_object: described,
            metric: identifier,
            target: t,
        });
    }
    if all || matches!(source, Source::External) {
        spec.external = Some(ExternalMetricSource {
            metric: identifier,
            target: t,
        });
    }
    spec.type_ = match source {
        Source::Resource => Some(MetricSourceType::Resource),
        Source::ContainerResource => Some(MetricSourceType::ContainerResource),
        Source::Pods => Some(MetricSourceType::Pods),
        Source::Object => Some(MetricSourceType::Object),
        Source::External => Some(MetricSourceType::External),
        Source::Unset => None,
    };
    spec
}

struct RulesOwned {
    window: Option<i32>,
    select: Option<SelectPolicy>,
    policies: Option<Vec<ScalingPolicy>>,
    tolerance: Option<Quantity>,
}

fn rules_owned(r: &Rules) -> RulesOwned {
    RulesOwned {
        window: r.window,
        select: r.select.map(|s| {
            pick(
                &[SelectPolicy::Max, SelectPolicy::Min, SelectPolicy::Disabled],
                s,
            )
        }),
        policies: r.policies.as_ref().map(|ps| {
            ps.iter()
                .take(4)
                .map(|p| ScalingPolicy {
                    type_: if p.percent {
                        PolicyType::Percent
                    } else {
                        PolicyType::Pods
                    },
                    value: p.value,
                    period_seconds: p.period_seconds,
                })
                .collect()
        }),
        tolerance: r.tolerance.as_ref().and_then(quantity),
    }
}

fn rules(r: &Option<RulesOwned>) -> Option<ScalingRules<'_>> {
    r.as_ref().map(|r| ScalingRules {
        stabilization_window_seconds: r.window,
        select_policy: r.select,
        policies: r.policies.as_deref(),
        tolerance: r.tolerance,
    })
}

fn settings(s: &SettingsModel) -> Settings {
    let mut out = Settings::DEFAULT;
    if s.exact {
        out.arithmetic = Arithmetic::Exact;
    }
    if let Some(t) = s
        .tolerance
        .and_then(|(m, e)| Tolerance::from_decimal(u64::from(m), i32::from(e)))
    {
        out.tolerance = t;
    }
    if let Some(w) = s.downscale_window_ms {
        out.downscale_stabilization_window = Duration::from_millis(i64::from(w));
    }
    if let Some(c) = s.cpu_initialization_s {
        out.cpu_initialization_period = Duration::from_secs(i64::from(c));
    }
    if let Some(d) = s.readiness_delay_s {
        out.initial_readiness_delay = Duration::from_secs(i64::from(d));
    }
    out.scale_to_zero = s.scale_to_zero;
    out.configurable_tolerance = s.configurable_tolerance;
    if let Some(f) = s.legacy_factor {
        // Upstream's constant is 2 (8 in its unit tests); a factor below 1 would make the
        // "scale-up limit" a scale-down, which no controller is configured with.
        out.legacy_scale_up_factor = 1 + i32::from(f % 15);
    }
    if let Some(m) = s.legacy_minimum {
        out.legacy_scale_up_minimum = i32::from(m % 16);
    }
    out
}

fn request_list(list: &[(u8, Q)]) -> Vec<ResourceRequest<'static>> {
    list.iter()
        .take(4)
        .filter_map(|(r, q)| {
            quantity(q).map(|quantity| ResourceRequest {
                resource: pick(&RESOURCES, *r),
                quantity,
            })
        })
        .collect()
}

struct PodOwned {
    phase: PodPhase,
    ready: Option<ReadyCondition>,
    start_time: Option<Instant>,
    deleted: bool,
    containers: Vec<(&'static str, ContainerKind, Vec<ResourceRequest<'static>>)>,
    requests: Option<Vec<ResourceRequest<'static>>>,
}

fn offset(now: Instant, ms: i64) -> Instant {
    Instant(now.millis().saturating_add(ms))
}

fn pod_owned(p: &PodModel, now: Instant) -> PodOwned {
    PodOwned {
        phase: pick(
            &[
                PodPhase::Running,
                PodPhase::Pending,
                PodPhase::Succeeded,
                PodPhase::Failed,
                PodPhase::Unknown,
            ],
            p.phase,
        ),
        ready: p.ready.map(|(s, t)| ReadyCondition {
            status: pick(
                &[
                    ConditionStatus::True,
                    ConditionStatus::False,
                    ConditionStatus::Unknown,
                ],
                s,
            ),
            last_transition: t.map(|t| offset(now, i64::from(t))),
        }),
        start_time: p.start_offset_ms.map(|t| offset(now, i64::from(t))),
        deleted: p.deleted,
        containers: p
            .containers
            .iter()
            .take(4)
            .map(|c| {
                (
                    pick(&CONTAINERS, c.name),
                    pick(
                        &[
                            ContainerKind::Regular,
                            ContainerKind::RestartableInit,
                            ContainerKind::Init,
                        ],
                        c.kind,
                    ),
                    request_list(&c.requests),
                )
            })
            .collect(),
        requests: p.requests.as_deref().map(request_list),
    }
}

struct SampleOwned {
    milli: i64,
    timestamp: Instant,
    window: Duration,
    containers: Vec<ContainerUsage<'static>>,
}

fn sample_owned(s: &SampleModel, now: Instant) -> SampleOwned {
    SampleOwned {
        milli: s.milli,
        timestamp: offset(now, -i64::from(s.age_ms)),
        window: Duration::from_secs(i64::from(s.window_s)),
        containers: s
            .containers
            .iter()
            .take(4)
            .map(|(n, milli)| ContainerUsage {
                name: pick(&CONTAINERS, *n),
                milli: *milli,
            })
            .collect(),
    }
}

fn sample(s: &SampleOwned) -> Sample<'_> {
    Sample {
        milli: s.milli,
        timestamp: s.timestamp,
        window: s.window,
        containers: &s.containers,
    }
}

enum ValuesOwned {
    Pods(Vec<Option<SampleOwned>>, Vec<SampleOwned>),
    Object(i64),
    External(Vec<i64>),
    Error,
}

fn values_owned(v: &ValuesModel, now: Instant) -> ValuesOwned {
    match v {
        ValuesModel::Pods { per_pod, orphans } => ValuesOwned::Pods(
            per_pod
                .iter()
                .take(11)
                .map(|s| s.as_ref().map(|s| sample_owned(s, now)))
                .collect(),
            orphans
                .iter()
                .take(3)
                .map(|s| sample_owned(s, now))
                .collect(),
        ),
        ValuesModel::Object(x) => ValuesOwned::Object(*x),
        ValuesModel::External(xs) => ValuesOwned::External(xs.iter().take(5).copied().collect()),
        ValuesModel::Error => ValuesOwned::Error,
    }
}

/// One step's owned inputs.
struct StepOwned {
    now: Instant,
    replicas: Option<i32>,
    status_replicas: Option<i32>,
    pods: Vec<PodOwned>,
    values: Vec<ValuesOwned>,
    outcome: u8,
}

fn with_observation<T>(
    step: &StepOwned,
    replicas: i32,
    status_replicas: i32,
    f: impl FnOnce(&Observation<'_>) -> T,
) -> T {
    let containers: Vec<Vec<Container<'_>>> = step
        .pods
        .iter()
        .map(|p| {
            p.containers
                .iter()
                .map(|(name, kind, requests)| Container {
                    name,
                    kind: *kind,
                    requests,
                })
                .collect()
        })
        .collect();
    let pods: Vec<Pod<'_>> = step
        .pods
        .iter()
        .zip(&containers)
        .enumerate()
        .map(|(i, (p, cs))| Pod {
            name: NAMES[i % NAMES.len()],
            phase: p.phase,
            ready: p.ready,
            start_time: p.start_time,
            deleted: p.deleted,
            containers: cs,
            requests: p.requests.as_deref(),
        })
        .collect();
    let samples: Vec<(Vec<Option<Sample<'_>>>, Vec<Sample<'_>>)> = step
        .values
        .iter()
        .map(|v| match v {
            ValuesOwned::Pods(per_pod, orphans) => (
                per_pod.iter().map(|s| s.as_ref().map(sample)).collect(),
                orphans.iter().map(sample).collect(),
            ),
            _ => (Vec::new(), Vec::new()),
        })
        .collect();
    let values: Vec<MetricValues<'_>> = step
        .values
        .iter()
        .zip(&samples)
        .map(|(v, (per_pod, orphans))| match v {
            ValuesOwned::Pods(..) => MetricValues::Pods(PodSamples { per_pod, orphans }),
            ValuesOwned::Object(x) => MetricValues::Object(*x),
            ValuesOwned::External(xs) => MetricValues::External(xs),
            ValuesOwned::Error => MetricValues::Error("adapter unavailable"),
        })
        .collect();
    f(&Observation {
        now: step.now,
        replicas,
        status_replicas,
        pods: &pods,
        metrics: &values,
    })
}

// ---------------------------------------------------------------------------------------------
// Properties

fn state<const R: usize, const E: usize>(a: &Autoscaler<R, E>) -> String {
    format!(
        "{:?} pending={} recommendations={:?} events={:?}",
        a.status(),
        a.rescale_pending(),
        a.history().recommendations().collect::<Vec<_>>(),
        a.history().scale_events().collect::<Vec<_>>()
    )
}

fn scaled_to_zero(status: &Status) -> bool {
    status
        .conditions
        .get(ConditionType::ScaledToZero)
        .is_some_and(|c| c.status == ConditionStatus::True)
}

fn check_decision(
    hpa: &Hpa<'_>,
    settings: &Settings,
    valid: bool,
    before: &Status,
    d: &Decision<'_>,
    current: i32,
) {
    let (min, max) = (hpa.min_replicas(), hpa.max_replicas());
    let stz = settings.scale_to_zero && scaled_to_zero(before);
    let can_scale_from_zero = stz && hpa.has_object_or_external_metric();
    let computes_at_zero = (min != 0 && stz) || can_scale_from_zero;
    assert_eq!(d.current_replicas, current);
    assert!(!d.rescale || d.desired_replicas != current);
    if current == 0 && !computes_at_zero {
        assert_eq!(
            (d.desired_replicas, d.rescale, d.limited_by),
            (0, false, LimitedBy::ScalingDisabled)
        );
        return;
    }
    if current != 0 && current > max {
        assert_eq!(
            (d.desired_replicas, d.rescale, d.proposal),
            (max, true, None)
        );
        return;
    }
    if current != 0 && current < min {
        assert_eq!(
            (d.desired_replicas, d.rescale, d.proposal),
            (min, true, None)
        );
        return;
    }
    assert_eq!(d.metrics.len(), hpa.metrics().len());
    let mut combined = 0;
    let mut invalid = 0;
    for outcome in &d.metrics {
        match outcome {
            MetricOutcome::Proposal(p) => {
                if combined == 0 || p.replicas > combined {
                    combined = p.replicas;
                }
            }
            MetricOutcome::Error(_) => invalid += 1,
        }
    }
    let failed = invalid == d.metrics.len() || (invalid > 0 && combined < current);
    assert_eq!(d.limited_by == LimitedBy::InvalidMetrics, failed);
    if failed {
        assert!(!d.rescale);
        assert_eq!(d.desired_replicas, before.desired_replicas);
        return;
    }
    assert_eq!(d.proposal, Some(combined));
    assert_eq!(d.rescale, d.desired_replicas != current);
    if !valid || min > max {
        return;
    }
    let desired = d.desired_replicas;
    let proposed = combined.max(0);
    assert!((min..=max).contains(&desired), "desired outside [min, max]");
    if current == 0 {
        return;
    }
    match hpa.behavior() {
        Some(b) => {
            assert!((current.min(proposed)..=current.max(proposed)).contains(&desired));
            if b.scale_up.select_policy == SelectPolicy::Disabled {
                assert!(desired <= current);
            }
            if b.scale_down.select_policy == SelectPolicy::Disabled {
                assert!(desired >= current);
            }
        }
        None => {
            assert!(
                desired >= current.min(proposed),
                "legacy below the proposal: {d:?}\n{settings:?}\nmin {min} max {max}"
            );
            let limit = (i64::from(settings.legacy_scale_up_factor) * i64::from(current))
                .max(i64::from(settings.legacy_scale_up_minimum))
                .max(i64::from(current));
            assert!(i64::from(desired) <= limit);
        }
    }
}

fn run<const R: usize, const E: usize>(
    hpa: &Hpa<'_>,
    settings: &Settings,
    valid: bool,
    restored_scaled_to_zero: bool,
    steps: &[StepOwned],
    clone_at: usize,
) -> Vec<String> {
    let mut a: Autoscaler<R, E> = Autoscaler::new();
    if restored_scaled_to_zero {
        a.status_mut().conditions.set(
            ConditionType::ScaledToZero,
            ConditionStatus::True,
            Reason::ScaledToZero,
        );
    }
    let mut twin: Option<Autoscaler<R, E>> = None;
    let mut latest: Option<Instant> = None;
    let mut replicas = 3;
    let mut trace = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        if i == clone_at {
            twin = Some(a.clone());
        }
        let current = step.replicas.unwrap_or(replicas);
        let status_replicas = step.status_replicas.unwrap_or(current);
        let before = a.clone();
        let expected_error = if hpa.metrics().len() > MAX_METRICS {
            Some(EvaluateError::TooManyMetrics {
                count: hpa.metrics().len(),
            })
        } else if step.values.len() != hpa.metrics().len() {
            Some(EvaluateError::MetricCountMismatch {
                expected: hpa.metrics().len(),
                got: step.values.len(),
            })
        } else if current < 0 || status_replicas < 0 {
            Some(EvaluateError::NegativeReplicas)
        } else {
            latest
                .filter(|l| step.now < *l)
                .map(|l| EvaluateError::TimeWentBackwards {
                    last: l.millis(),
                    now: step.now.millis(),
                })
        };
        let result = with_observation(step, current, status_replicas, |obs| {
            let result = a.evaluate(hpa, settings, obs);
            if let Some(t) = twin.as_mut() {
                let other = t.evaluate(hpa, settings, obs);
                assert_eq!(
                    format!("{other:?}"),
                    format!("{result:?}"),
                    "the clone diverged"
                );
            }
            match result {
                Ok(d) => {
                    assert_eq!(expected_error, None, "accepted: {d:?}");
                    check_decision(hpa, settings, valid, before.status(), &d, current);
                    trace.push(format!("{d:?}"));
                    Ok((d.desired_replicas, d.rescale))
                }
                Err(e) => Err(e),
            }
        });
        match result {
            Err(e) => {
                assert_eq!(Some(e), expected_error);
                assert_eq!(state(&a), state(&before), "an error changed the state");
                trace.push(format!("{e:?}"));
            }
            Ok((desired, rescale)) => {
                latest = Some(step.now);
                match step.outcome % 4 {
                    0 => {
                        assert_eq!(a.rescale_failed(), rescale);
                        if let Some(t) = twin.as_mut() {
                            t.rescale_failed();
                        }
                    }
                    1 => assert_eq!(a.rescale_pending(), rescale),
                    _ => {
                        assert_eq!(a.rescale_succeeded(), rescale);
                        if let Some(t) = twin.as_mut() {
                            t.rescale_succeeded();
                        }
                        if rescale {
                            assert_eq!(a.status().desired_replicas, desired);
                            replicas = desired;
                        }
                    }
                }
            }
        }
        if let Some(t) = &twin {
            assert_eq!(state(t), state(&a), "the clone's state diverged");
        }
        trace.push(state(&a));
    }
    trace
}

fuzz_target!(|input: Input| {
    let metrics: Vec<MetricSpec<'static>> = input
        .metrics
        .iter()
        .take(MAX_METRICS + 1)
        .map(metric)
        .collect();
    let behavior: Option<(Option<RulesOwned>, Option<RulesOwned>)> = input
        .behavior
        .as_ref()
        .map(|(up, down)| (up.as_ref().map(rules_owned), down.as_ref().map(rules_owned)));
    let spec = HpaSpec {
        min_replicas: input.min,
        max_replicas: input.max,
        metrics: &metrics,
        behavior: behavior.as_ref().map(|(up, down)| Behavior {
            scale_up: rules(up),
            scale_down: rules(down),
        }),
        scale_target_ref: None,
    };
    let settings = settings(&input.settings);
    let (hpa, valid) = match Hpa::new(&spec, &settings) {
        Ok(h) => (h, true),
        Err(_) => (Hpa::from_stored(&spec), false),
    };
    let mut now = Instant(input.start);
    let steps: Vec<StepOwned> = input
        .steps
        .iter()
        .flat_map(|s| (0..=s.repeat % 8).map(move |k| (s, k == 0)))
        .take(32)
        .map(|(s, first)| {
            now = Instant(now.millis().saturating_add(s.dt));
            let mut values: Vec<ValuesOwned> = s
                .values
                .iter()
                .take(hpa.metrics().len())
                .map(|v| values_owned(v, now))
                .collect();
            while values.len() < hpa.metrics().len() {
                values.push(ValuesOwned::Error);
            }
            if s.extra_value {
                values.push(ValuesOwned::Object(1));
            }
            StepOwned {
                now,
                // Repetitions follow the closed loop.
                replicas: s.replicas.filter(|_| first),
                status_replicas: s.status_replicas.filter(|_| first),
                pods: s.pods.iter().take(10).map(|p| pod_owned(p, now)).collect(),
                values,
                outcome: s.outcome,
            }
        })
        .collect();
    let clone_at = usize::from(input.clone_at) % (steps.len() + 1);
    let stz = input.scaled_to_zero;
    let first = run::<DEFAULT_RECOMMENDATION_BYTES, DEFAULT_EVENT_BYTES>(&hpa, &settings, valid, stz, &steps, clone_at);
    let again = run::<DEFAULT_RECOMMENDATION_BYTES, DEFAULT_EVENT_BYTES>(&hpa, &settings, valid, stz, &steps, steps.len());
    assert_eq!(first, again, "not deterministic");
    run::<8, 6>(&hpa, &settings, valid, stz, &steps, clone_at);
});
