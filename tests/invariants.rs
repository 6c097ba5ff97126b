//! Randomized properties of `Autoscaler::evaluate` over random valid specs and random
//! observations (testkit's deterministic generator, fixed seeds).
//!
//! Generated: all five metric sources with every target type, random behaviors (windows,
//! Max/Min/Disabled, Pods/Percent policies, per-direction tolerances), random controller
//! settings (arithmetic mode, tolerance, gates, legacy factors), pods in every phase and
//! readiness state with regular, sidecar and init containers, missing requests and pod-level
//! requests, samples that are missing, orphaned, stale, negative or extreme, fetch errors and
//! wrongly shaped values, replica counts including 0 and `i32::MAX`, and time steps from 0 ms
//! to 2^40 ms.
//!
//! Asserted for every evaluation (docs/spec/reconcile.md names the branches R5/R6):
//! * a well-formed observation gives `Ok`;
//! * the branch: current 0 without scale-from-zero -> 0, no rescale (R5); current above max
//!   -> max; current below min -> min; otherwise metrics are evaluated (one outcome per
//!   metric);
//! * a failed metric set (all invalid, or some invalid and the rest proposing less than
//!   current, docs/spec/metrics.md#combination) -> no rescale, `desiredReplicas` keeps its previous
//!   value;
//! * otherwise `rescale == (desired != current)`, and with min <= max and current in
//!   [min, max] (or 0 with scale-from-zero): desired in [min, max]; with a behavior and
//!   current >= 1, desired between current and `max(proposal, 0)` (stabilization and policies
//!   only ever hold back, docs/spec/normalization.md#behavior); without one, desired >=
//!   min(current, proposal) and desired <= max(current, factor * current, minimum)
//!   (docs/spec/normalization.md#legacy); `selectPolicy: Disabled` forbids moving in that
//!   direction;
//! * reporting the rescale updates the status as R7 says (desiredReplicas, lastScaleTime,
//!   ScaledToZero).
//!
//! And over whole sequences: replaying gives identical decisions and states (determinism),
//! and an autoscaler cloned mid-sequence continues exactly like the original, as does one
//! saved and restored (docs/spec/snapshot.md) before that step and again after every
//! evaluation, before its rescale is reported; each restored state saves to the same bytes. Bad inputs
//! (time going backwards, metric count mismatch, negative replicas, too many metrics) return
//! their error and change nothing.

use hpa::autoscaler::{LimitedBy, DEFAULT_EVENT_BYTES, DEFAULT_RECOMMENDATION_BYTES};
use hpa::conditions::{ConditionType, Reason};
use hpa::input::{
    ConditionStatus, ContainerKind, ContainerUsage, PodPhase, ReadyCondition, ResourceRequest,
};
use hpa::metrics::MAX_METRICS;
use hpa::spec::{
    Behavior, CrossVersionObjectReference, MetricIdentifier, MetricSourceType, MetricSpec,
    MetricTarget, MetricTargetType, PolicyType, ScalingPolicy, SelectPolicy,
};
use hpa::{Arithmetic, Autoscaler, Duration, EvaluateError, Hpa, HpaSpec, Instant};
use hpa::{MetricValues, Observation, Quantity, Settings, Tolerance};
use testkit::invariants::{check_decision, state};
use testkit::model::{
    with_observation, BehaviorModel, ContainerModel, Outcome, PodModel, RulesModel, SampleModel,
    Step, ValuesModel,
};
use testkit::Rng;

// ---------------------------------------------------------------------------------------------
// A generated sequence (owned models, testkit::model; the engine's borrowed inputs are built
// from them per step).

const POD_NAMES: [&str; 10] = ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9"];
const CONTAINER_NAMES: [&str; 3] = ["app", "sidecar", "init"];

struct Case {
    name: String,
    valid: bool,
    min: Option<i32>,
    max: i32,
    metrics: Vec<MetricSpec<'static>>,
    behavior: Option<BehaviorModel>,
    settings: Settings,
    /// Start with a `ScaledToZero: True` condition (a restored status).
    scaled_to_zero: bool,
    steps: Vec<Step>,
}

// ---------------------------------------------------------------------------------------------
// Generators

fn positive_quantity(rng: &mut Rng) -> Quantity {
    match rng.next_u64() % 10 {
        0 => Quantity::from_milli(1),
        1 => Quantity::from_milli(i64::MAX),
        2 => Quantity::parse("1Gi").unwrap(),
        3 => Quantity::parse("0.0005").unwrap(), // MilliValue rounds up to 1
        4 => Quantity::from_milli(rng.range(1, 1 << 40)),
        _ => Quantity::from_milli(rng.range(1, 5000)),
    }
}

fn target(rng: &mut Rng, utilization: bool, value: bool, average: bool) -> MetricTarget {
    let mut kinds = Vec::new();
    if utilization {
        kinds.push(MetricTargetType::Utilization);
    }
    if value {
        kinds.push(MetricTargetType::Value);
    }
    if average {
        kinds.push(MetricTargetType::AverageValue);
    }
    match rng.pick(&kinds) {
        MetricTargetType::Utilization => MetricTarget::utilization(match rng.next_u64() % 8 {
            0 => 1,
            1 => i32::MAX,
            _ => rng.range32(1, 200),
        }),
        MetricTargetType::Value => MetricTarget::value(positive_quantity(rng)),
        MetricTargetType::AverageValue => MetricTarget::average_value(positive_quantity(rng)),
    }
}

fn identifier(rng: &mut Rng) -> MetricIdentifier<'static> {
    MetricIdentifier {
        name: rng.pick(&["rps", "queue_length", "latency"]),
        selector: rng
            .chance(30)
            .then_some("&LabelSelector{MatchLabels:map[queue:orders],MatchExpressions:[],}"),
        selector_invalid: false,
    }
}

fn metric(rng: &mut Rng) -> MetricSpec<'static> {
    let described = CrossVersionObjectReference {
        kind: "Service",
        name: "front",
        api_version: "v1",
    };
    match rng.next_u64() % 5 {
        0 => MetricSpec::resource(rng.pick(&["cpu", "memory"]), target(rng, true, false, true)),
        1 => MetricSpec::container_resource(
            rng.pick(&["cpu", "memory"]),
            rng.pick(&["app", "sidecar", "absent"]),
            target(rng, true, false, true),
        ),
        2 => MetricSpec::pods(identifier(rng), target(rng, false, false, true)),
        3 => MetricSpec::object(described, identifier(rng), target(rng, false, true, true)),
        _ => MetricSpec::external(identifier(rng), target(rng, false, true, true)),
    }
}

fn tolerance_quantity(rng: &mut Rng) -> Quantity {
    Quantity::parse(rng.pick(&["0", "0.05", "0.1", "0.18", "0.35", "0.36", "10", "1m"])).unwrap()
}

fn rules_model(rng: &mut Rng) -> RulesModel {
    RulesModel {
        window: rng.chance(60).then(|| match rng.next_u64() % 4 {
            0 => 0,
            1 => 3600,
            _ => rng.range32(0, 900),
        }),
        select: rng
            .chance(60)
            .then(|| rng.pick(&[SelectPolicy::Max, SelectPolicy::Min, SelectPolicy::Disabled])),
        policies: rng.chance(70).then(|| {
            (0..rng.range(1, 3))
                .map(|_| ScalingPolicy {
                    type_: rng.pick(&[PolicyType::Pods, PolicyType::Percent]),
                    value: match rng.next_u64() % 10 {
                        0 => i32::MAX,
                        1 => 1,
                        _ => rng.range32(1, 400),
                    },
                    period_seconds: match rng.next_u64() % 5 {
                        0 => 1800,
                        1 => 1,
                        _ => rng.range32(1, 600),
                    },
                })
                .collect()
        }),
        tolerance: rng.chance(30).then(|| tolerance_quantity(rng)),
    }
}

fn settings(rng: &mut Rng) -> Settings {
    let mut s = Settings::DEFAULT;
    // The draw is made either way, so that a seed gives the same sequence with or without
    // the `exact` feature (which exact mode needs).
    if rng.chance(50) && cfg!(feature = "exact") {
        s.arithmetic = Arithmetic::Exact;
    }
    if rng.chance(30) {
        s.tolerance = rng.pick(&[
            Tolerance::from_decimal(0, 0).unwrap(),
            Tolerance::from_decimal(5, -2).unwrap(),
            Tolerance::from_decimal(25, -2).unwrap(),
            Tolerance::from_decimal(3, 0).unwrap(),
        ]);
    }
    if rng.chance(20) {
        s.downscale_stabilization_window = Duration::from_millis(rng.range(0, 900_000));
    }
    if rng.chance(20) {
        s.cpu_initialization_period = Duration::from_secs(rng.range(0, 600));
        s.initial_readiness_delay = Duration::from_secs(rng.range(0, 60));
    }
    s.scale_to_zero = rng.chance(80);
    s.configurable_tolerance = rng.chance(80);
    if rng.chance(20) {
        // Upstream's unit tests run with a factor of 8.
        s.legacy_scale_up_factor = 8;
    }
    s
}

fn request(rng: &mut Rng, resource: &'static str) -> ResourceRequest<'static> {
    ResourceRequest {
        resource,
        quantity: match rng.next_u64() % 12 {
            0 => Quantity::from_milli(0),
            1 => Quantity::from_milli(i64::MAX),
            2 => Quantity::parse("0.0005").unwrap(),
            _ => Quantity::from_milli(rng.range(1, 4000)),
        },
    }
}

fn requests(rng: &mut Rng) -> Vec<ResourceRequest<'static>> {
    let mut list = Vec::new();
    for resource in ["cpu", "memory"] {
        if rng.chance(85) {
            list.push(request(rng, resource));
        }
    }
    list
}

fn offset_instant(now: Instant, rng: &mut Rng, lo: i64, hi: i64) -> Instant {
    Instant(now.millis().saturating_add(rng.range(lo, hi)))
}

fn pod(rng: &mut Rng, i: usize, now: Instant) -> PodModel {
    let mut containers = vec![ContainerModel {
        name: "app",
        kind: ContainerKind::Regular,
        requests: requests(rng),
    }];
    if rng.chance(30) {
        containers.push(ContainerModel {
            name: "sidecar",
            kind: ContainerKind::RestartableInit,
            requests: requests(rng),
        });
    }
    if rng.chance(20) {
        containers.insert(
            0,
            ContainerModel {
                name: "init",
                kind: ContainerKind::Init,
                requests: requests(rng),
            },
        );
    }
    if rng.chance(3) {
        containers.clear();
    }
    PodModel {
        name: POD_NAMES[i],
        phase: match rng.next_u64() % 20 {
            0 => PodPhase::Pending,
            1 => PodPhase::Failed,
            2 => PodPhase::Succeeded,
            3 => PodPhase::Unknown,
            _ => PodPhase::Running,
        },
        ready: rng.chance(90).then(|| ReadyCondition {
            status: match rng.next_u64() % 10 {
                0 => ConditionStatus::False,
                1 => ConditionStatus::Unknown,
                _ => ConditionStatus::True,
            },
            last_transition: rng
                .chance(90)
                .then(|| offset_instant(now, rng, -1_200_000, 0)),
        }),
        start_time: rng
            .chance(95)
            .then(|| offset_instant(now, rng, -1_500_000, 10_000)),
        deleted: rng.chance(5),
        containers,
        requests: rng.chance(15).then(|| requests(rng)),
    }
}

fn usage(rng: &mut Rng) -> i64 {
    match rng.next_u64() % 40 {
        0 => i64::MAX,
        1 => i64::MIN,
        2 => -rng.range(1, 1000),
        3 => 0,
        _ => rng.range(0, 3000),
    }
}

fn sample(rng: &mut Rng, now: Instant) -> SampleModel {
    let mut containers = Vec::new();
    for name in CONTAINER_NAMES {
        if rng.chance(80) {
            containers.push(ContainerUsage {
                name,
                milli: usage(rng),
            });
        }
    }
    SampleModel {
        milli: usage(rng),
        timestamp: offset_instant(now, rng, -120_000, 0),
        window: Duration::from_secs(rng.pick(&[0, 15, 30, 60])),
        containers,
    }
}

fn values(rng: &mut Rng, metric: &MetricSpec<'_>, pods: usize, now: Instant) -> ValuesModel {
    if rng.chance(4) {
        return ValuesModel::Error;
    }
    let mut kind = metric.type_.unwrap_or(MetricSourceType::External);
    if rng.chance(2) {
        // Values of the wrong shape for this metric.
        kind = rng.pick(&[
            MetricSourceType::Pods,
            MetricSourceType::Object,
            MetricSourceType::External,
        ]);
    }
    match kind {
        MetricSourceType::Object => {
            ValuesModel::Object(usage(rng).saturating_mul(rng.range(1, 20)))
        }
        MetricSourceType::External => ValuesModel::External(
            (0..rng.range(0, 3))
                .map(|_| usage(rng).saturating_mul(rng.range(1, 20)))
                .collect(),
        ),
        _ => {
            // Rarely a per-pod list that does not line up with the pods.
            let slots = if rng.chance(2) { pods + 1 } else { pods };
            ValuesModel::Pods {
                per_pod: (0..slots)
                    .map(|_| rng.chance(85).then(|| sample(rng, now)))
                    .collect(),
                orphans: (0..rng.range(0, 2)).map(|_| sample(rng, now)).collect(),
            }
        }
    }
}

fn replica_count(rng: &mut Rng, max: i32) -> i32 {
    match rng.next_u64() % 12 {
        0 => 0,
        1 => i32::MAX,
        2 => max.saturating_add(rng.range32(1, 5)),
        _ => rng.range32(1, 40),
    }
}

fn case(seed: u64, steps: usize) -> Case {
    let mut rng = Rng::new(seed);
    let count = if rng.chance(80) { 1 } else { rng.index(3) + 2 };
    let mut metrics: Vec<MetricSpec<'static>> = (0..count).map(|_| metric(&mut rng)).collect();
    let settings = settings(&mut rng);
    let has_obj_ext = metrics.iter().any(|m| {
        matches!(
            m.type_,
            Some(MetricSourceType::Object | MetricSourceType::External)
        )
    });
    let min = match rng.next_u64() % 10 {
        0 => None,
        1 | 2 if has_obj_ext && settings.scale_to_zero => Some(0),
        3 => Some(rng.range32(2, 10)),
        _ => Some(1),
    };
    let floor = min.unwrap_or(1).max(1);
    let max = match rng.next_u64() % 15 {
        0 => i32::MAX,
        1 => floor,
        _ => floor.saturating_add(rng.range32(0, 50)),
    };
    let behavior = rng.chance(70).then(|| BehaviorModel {
        up: rng.chance(70).then(|| rules_model(&mut rng)),
        down: rng.chance(70).then(|| rules_model(&mut rng)),
    });
    // A few specs the API server would reject, through `Hpa::from_stored` (a stored object, or
    // a controller test's): the engine must still behave.
    let valid = !rng.chance(5);
    let (min, max) = if valid {
        (min, max)
    } else {
        match rng.next_u64() % 4 {
            0 => {
                // A target whose type does not match its populated field.
                metrics[0] = MetricSpec::external(
                    identifier(&mut rng),
                    MetricTarget {
                        type_: Some(MetricTargetType::Utilization),
                        value: None,
                        average_value: None,
                        average_utilization: Some(50),
                    },
                );
                (min, max)
            }
            1 => (Some(10), 3),
            2 => (Some(0), max),
            _ => {
                metrics[0].type_ = None;
                (min, max)
            }
        }
    };
    let scaled_to_zero = rng.chance(15);

    let mut now = Instant(match rng.next_u64() % 10 {
        0 => i64::MIN,
        1 => i64::MAX - (1 << 45),
        _ => rng.range(-(1 << 40), 1 << 40),
    });
    let steps = (0..steps)
        .map(|_| {
            now = Instant(now.millis().saturating_add(match rng.next_u64() % 20 {
                0 => 0,
                1 => 1 << 40,
                2 => rng.range(1, 14_999),
                3 => rng.range(15_001, 700_000),
                _ => 15_000,
            }));
            let pods: Vec<PodModel> = (0..rng.index(9)).map(|i| pod(&mut rng, i, now)).collect();
            let values = metrics
                .iter()
                .map(|m| values(&mut rng, m, pods.len(), now))
                .collect();
            Step {
                now,
                replicas: rng.chance(25).then(|| replica_count(&mut rng, max)),
                status_replicas: rng.chance(15).then(|| replica_count(&mut rng, max)),
                pods,
                values,
                outcome: match rng.next_u64() % 20 {
                    0 | 1 => Outcome::Failed,
                    2..=4 => Outcome::Unreported,
                    _ => Outcome::Succeeded,
                },
            }
        })
        .collect();
    Case {
        name: format!("seed {seed:#x}"),
        valid,
        min,
        max,
        metrics,
        behavior,
        settings,
        scaled_to_zero,
        steps,
    }
}

// ---------------------------------------------------------------------------------------------
// Building the engine's borrowed inputs

fn spec(case: &Case) -> HpaSpec<'_> {
    HpaSpec {
        min_replicas: case.min,
        max_replicas: case.max,
        metrics: &case.metrics,
        behavior: case.behavior.as_ref().map(BehaviorModel::view),
        scale_target_ref: None,
    }
}

fn hpa<'a>(case: &Case, spec: &HpaSpec<'a>) -> Hpa<'a> {
    if case.valid {
        match Hpa::new(spec, &case.settings) {
            Ok(h) => h,
            Err(e) => panic!("{}: the generated spec should be valid: {e:?}", case.name),
        }
    } else {
        Hpa::from_stored(spec)
    }
}

// ---------------------------------------------------------------------------------------------
// Properties

/// How often each kind of decision occurred (the test asserts the generator reaches them).
#[derive(Default, Debug)]
struct Coverage {
    limited_by: std::collections::BTreeMap<String, usize>,
    behavior_checked: usize,
    legacy_checked: usize,
    rescales: usize,
    overflowed: usize,
}

/// `a` saved at `now` and restored on the same clock; the restored state saves to the same
/// bytes.
fn through_snapshot<const R: usize, const E: usize>(
    a: &Autoscaler<R, E>,
    now: Instant,
) -> Autoscaler<R, E> {
    let mut bytes = vec![0; Autoscaler::<R, E>::SNAPSHOT_MAX_BYTES];
    let len = a.save(now, &mut bytes).unwrap();
    bytes.truncate(len);
    let mut restored = Autoscaler::new();
    restored.restore(&bytes, now).unwrap();
    let mut again = vec![0; len];
    assert_eq!(restored.save(now, &mut again), Ok(len));
    assert_eq!(again, bytes);
    restored
}

/// How the twin of [`run`] is made.
#[derive(Clone, Copy, PartialEq)]
enum Twin {
    Clone,
    /// Saved and restored before the step, and after every evaluation.
    Snapshot,
}

/// Runs a case once; returns the trace of decisions and states. With `clone_at`, an
/// autoscaler cloned (or restored from a snapshot) before that step continues alongside and
/// must match at every step.
fn run<const R: usize, const E: usize>(
    case: &Case,
    clone_at: Option<(usize, Twin)>,
    coverage: &mut Coverage,
) -> Vec<String> {
    let spec = spec(case);
    let hpa = hpa(case, &spec);
    let settings = &case.settings;
    let mut a: Autoscaler<R, E> = Autoscaler::new();
    if case.scaled_to_zero {
        a.status_mut().conditions.set(
            ConditionType::ScaledToZero,
            ConditionStatus::True,
            Reason::ScaledToZero,
        );
    }
    let mut twin: Option<Autoscaler<R, E>> = None;
    let mut trace = Vec::new();
    let mut replicas = 3;
    for (i, step) in case.steps.iter().enumerate() {
        let twin_kind = clone_at.map(|(_, kind)| kind);
        if clone_at.is_some_and(|(at, _)| at == i) {
            twin = Some(match twin_kind {
                Some(Twin::Snapshot) => through_snapshot(&a, step.now),
                _ => a.clone(),
            });
        }
        let current = step.replicas.unwrap_or(replicas);
        let status_replicas = step.status_replicas.unwrap_or(current);
        let before = a.clone();
        let context = || {
            format!(
                "{}, step {i}: now {:?}, current {current}, status {status_replicas}, min {:?}, max {}, behavior {}, settings {:?}",
                case.name,
                step.now,
                case.min,
                case.max,
                case.behavior.is_some(),
                case.settings
            )
        };
        let (line, desired, rescale, metrics_failed) =
            with_observation(step, current, status_replicas, |obs| {
                let d = match a.evaluate(&hpa, settings, obs) {
                    Ok(d) => d,
                    Err(e) => panic!(
                        "a well-formed observation was refused ({e:?}): {}",
                        context()
                    ),
                };
                let ctx = || format!("{}\n  decision: {d:?}", context());
                check_decision(
                    &hpa,
                    settings,
                    case.valid,
                    &before.status(),
                    &d,
                    current,
                    &ctx,
                );
                *coverage
                    .limited_by
                    .entry(format!("{:?}", d.limited_by))
                    .or_default() += 1;
                coverage.rescales += usize::from(d.rescale);
                coverage.overflowed += usize::from(d.history_overflowed);
                let in_range = (hpa.min_replicas()..=hpa.max_replicas()).contains(&current);
                if d.proposal.is_some() && case.valid && current > 0 && in_range {
                    match hpa.behavior() {
                        Some(_) => coverage.behavior_checked += 1,
                        None => coverage.legacy_checked += 1,
                    }
                }
                if let Some(t) = twin.as_mut() {
                    let dt = t.evaluate(&hpa, settings, obs).unwrap();
                    assert_eq!(format!("{dt:?}"), format!("{d:?}"), "clone: {}", context());
                    if twin_kind == Some(Twin::Snapshot) {
                        *t = through_snapshot(t, step.now);
                    }
                }
                (
                    format!("{d:?}"),
                    d.desired_replicas,
                    d.rescale,
                    d.limited_by == LimitedBy::InvalidMetrics,
                )
            });
        trace.push(line);
        // Report the outcome.
        match step.outcome {
            Outcome::Succeeded => {
                assert_eq!(a.rescale_succeeded(), rescale, "{}", context());
                if rescale {
                    let status = a.status();
                    assert_eq!(status.desired_replicas, desired, "{}", context());
                    assert_eq!(status.last_scale_time, Some(step.now), "{}", context());
                    let stz = status.conditions.get(ConditionType::ScaledToZero);
                    if case.settings.scale_to_zero {
                        let expected = current > 0
                            && desired == 0
                            && hpa.min_replicas() == 0
                            && hpa.has_object_or_external_metric();
                        assert_eq!(
                            stz.map(|c| c.status),
                            Some(if expected {
                                ConditionStatus::True
                            } else {
                                ConditionStatus::False
                            }),
                            "{}",
                            context()
                        );
                    } else {
                        assert!(stz.is_none(), "{}", context());
                    }
                    replicas = desired;
                }
            }
            Outcome::Failed => {
                assert_eq!(a.rescale_failed(), rescale, "{}", context());
                if rescale {
                    let able = a.status().conditions.get(ConditionType::AbleToScale);
                    assert_eq!(
                        able.map(|c| (c.status, c.reason)),
                        Some((ConditionStatus::False, Reason::FailedUpdateScale))
                    );
                }
            }
            Outcome::Unreported => {
                assert_eq!(a.rescale_pending(), rescale, "{}", context());
            }
        }
        if metrics_failed {
            assert_eq!(
                a.status().desired_replicas,
                before.status().desired_replicas,
                "failed metrics keep desiredReplicas: {}",
                context()
            );
        } else if !rescale {
            assert_eq!(
                a.status().desired_replicas,
                current,
                "without a rescale desiredReplicas is the current count: {}",
                context()
            );
        }
        if let Some(t) = twin.as_mut() {
            match step.outcome {
                Outcome::Succeeded => {
                    t.rescale_succeeded();
                }
                Outcome::Failed => {
                    t.rescale_failed();
                }
                Outcome::Unreported => {}
            }
            assert_eq!(state(t), state(&a), "clone state: {}", context());
        }
        trace.push(state(&a));
    }
    trace
}

#[test]
fn random_sequences_keep_the_invariants_and_are_deterministic() {
    let mut evaluations = 0;
    let mut coverage = Coverage::default();
    let mut small = Coverage::default();
    // Miri interprets each evaluation thousands of times slower: 2 sequences of 8 steps there
    // (one with a cloned twin, one with a restored one), and the coverage floors below scaled
    // to them (rounded down).
    let (sequences, steps) = if cfg!(miri) { (2, 8) } else { (2000, 24) };
    let floor = |full: usize| full * sequences / 2000;
    for k in 0..sequences as u64 {
        let seed = 0x1_0000 + k;
        let model = case(seed, steps);
        let clone_at = usize::try_from(seed % steps as u64).unwrap();
        let twin = if k % 2 == 0 {
            Twin::Clone
        } else {
            Twin::Snapshot
        };
        let first = run::<DEFAULT_RECOMMENDATION_BYTES, DEFAULT_EVENT_BYTES>(
            &model,
            Some((clone_at, twin)),
            &mut coverage,
        );
        // A fresh replay from a freshly generated (equal) case.
        let again = run::<DEFAULT_RECOMMENDATION_BYTES, DEFAULT_EVENT_BYTES>(
            &case(seed, steps),
            None,
            &mut Coverage::default(),
        );
        assert_eq!(first, again, "{}: replay differs", model.name);
        // Tiny rings (a few entries): folding must keep every invariant too.
        run::<8, 6>(&model, Some((clone_at, twin)), &mut small);
        evaluations += 5 * steps - 2 * clone_at;
    }
    println!("{evaluations} evaluations; {coverage:?}; rings of 8/6 bytes: {small:?}");
    assert!(small.overflowed >= floor(500), "{small:?}");
    // The generator reaches every kind of decision, and often enough the range checks.
    for kind in [
        "Nothing",
        "Tolerance",
        "Stabilization",
        "RatePolicy",
        "MinReplicas",
        "MaxReplicas",
        "InvalidMetrics",
        "ScalingDisabled",
    ] {
        let n = coverage.limited_by.get(kind).copied().unwrap_or(0);
        assert!(
            n >= floor(50),
            "only {n} decisions limited by {kind}: {coverage:?}"
        );
    }
    assert!(coverage.behavior_checked >= floor(2000), "{coverage:?}");
    assert!(coverage.legacy_checked >= floor(1000), "{coverage:?}");
    assert!(coverage.rescales >= floor(2000), "{coverage:?}");
}

// ---------------------------------------------------------------------------------------------
// Bad inputs

static EXTERNAL: [MetricSpec<'static>; 1] = [MetricSpec::external(
    MetricIdentifier::named("queue"),
    MetricTarget::average_value(Quantity::from_milli(1000)),
)];

fn external_observation<'a>(
    now: i64,
    replicas: i32,
    values: &'a [MetricValues<'a>],
) -> Observation<'a> {
    Observation {
        now: Instant(now),
        replicas,
        status_replicas: replicas,
        pods: &[],
        metrics: values,
    }
}

/// A state with history (recommendations and scale events) and a pending rescale.
fn busy_autoscaler(hpa: &Hpa<'_>, settings: &Settings) -> Autoscaler {
    let mut a: Autoscaler = Autoscaler::new();
    let mut replicas = 2;
    for (i, load) in [9_000_i64, 14_000, 25_000, 40_000].into_iter().enumerate() {
        let v = [load];
        let values = [MetricValues::External(&v)];
        let now = i64::try_from(i).unwrap() * 15_000;
        let d = a
            .evaluate(hpa, settings, &external_observation(now, replicas, &values))
            .unwrap();
        assert!(d.rescale);
        replicas = d.desired_replicas;
        if i < 3 {
            assert!(a.rescale_succeeded());
        }
    }
    assert!(a.rescale_pending());
    assert!(a.history().scale_events().count() > 0);
    a
}

#[test]
fn bad_inputs_return_errors_and_change_nothing() {
    let settings = Settings::DEFAULT;
    let spec = HpaSpec {
        min_replicas: Some(1),
        max_replicas: 50,
        metrics: &EXTERNAL,
        behavior: Some(Behavior::default()),
        scale_target_ref: None,
    };
    let hpa = Hpa::new(&spec, &settings).unwrap();
    let mut a = busy_autoscaler(&hpa, &settings);
    let snapshot = state(&a);
    let v = [5_000];
    let values = [MetricValues::External(&v)];

    // Time going backwards: the last evaluation was at 45 s.
    let err = a
        .evaluate(&hpa, &settings, &external_observation(44_999, 5, &values))
        .unwrap_err();
    assert_eq!(
        err,
        EvaluateError::TimeWentBackwards {
            last: 45_000,
            now: 44_999
        }
    );
    assert_eq!(state(&a), snapshot);

    // One metric in the spec, none or two in the observation.
    for metrics in [&values[..0], &[values[0], values[0]][..]] {
        let err = a
            .evaluate(&hpa, &settings, &external_observation(60_000, 5, metrics))
            .unwrap_err();
        assert_eq!(
            err,
            EvaluateError::MetricCountMismatch {
                expected: 1,
                got: metrics.len()
            }
        );
        assert_eq!(state(&a), snapshot);
    }

    // Negative replica counts.
    for (replicas, status_replicas) in [(-1, 5), (5, -1), (i32::MIN, i32::MIN)] {
        let obs = Observation {
            status_replicas,
            ..external_observation(60_000, replicas, &values)
        };
        assert_eq!(
            a.evaluate(&hpa, &settings, &obs).unwrap_err(),
            EvaluateError::NegativeReplicas
        );
        assert_eq!(state(&a), snapshot);
    }

    // More metrics than the engine holds (a stored spec; validation has no such limit).
    let many = [EXTERNAL[0]; MAX_METRICS + 1];
    let values_many = [values[0]; MAX_METRICS + 1];
    let big = HpaSpec {
        metrics: &many,
        ..spec
    };
    let big = Hpa::from_stored(&big);
    assert_eq!(
        a.evaluate(
            &big,
            &settings,
            &external_observation(60_000, 5, &values_many)
        )
        .unwrap_err(),
        EvaluateError::TooManyMetrics {
            count: MAX_METRICS + 1
        }
    );
    assert_eq!(state(&a), snapshot);

    // The same instant again is not "backwards", and the state then moves on.
    a.evaluate(&hpa, &settings, &external_observation(45_000, 5, &values))
        .unwrap();
}

/// "`now` is earlier than a previous evaluation's" holds for every previous evaluation,
/// including those that recorded nothing in the history: an out-of-range correction (R5),
/// scaling disabled at zero, and failed metrics.
#[test]
fn time_going_backwards_is_refused_after_every_kind_of_evaluation() {
    let settings = Settings::DEFAULT;
    let spec = HpaSpec {
        min_replicas: Some(2),
        max_replicas: 10,
        metrics: &EXTERNAL,
        behavior: None,
        scale_target_ref: None,
    };
    let hpa = Hpa::new(&spec, &settings).unwrap();
    let v = [5_000];
    let ok = [MetricValues::External(&v)];
    let failing = [MetricValues::Error("adapter down")];
    for (replicas, values) in [(20, &ok), (1, &ok), (0, &ok), (5, &failing)] {
        let mut a: Autoscaler = Autoscaler::new();
        a.evaluate(&hpa, &settings, &external_observation(0, 5, &ok))
            .unwrap();
        a.evaluate(
            &hpa,
            &settings,
            &external_observation(100_000, replicas, values),
        )
        .unwrap();
        let snapshot = state(&a);
        let result = a.evaluate(&hpa, &settings, &external_observation(50_000, 5, &ok));
        assert_eq!(
            result.map(|d| d.desired_replicas),
            Err(EvaluateError::TimeWentBackwards {
                last: 100_000,
                now: 50_000
            }),
            "after an evaluation with {replicas} replicas"
        );
        assert_eq!(state(&a), snapshot);
    }
}
