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
//!   (also with tiny history rings, where folding kicks in);
//! * long runs (up to 2,000 evaluations 1 to 30 s apart, loads up to 30,000 replicas' worth)
//!   fill the default rings: against a reference that never folds
//!   (`testkit::capacity::closed_loop`), a decision without `history_overflowed` equals the
//!   reference's, and one with it lies between the current count and the reference's
//!   (docs/spec/history.md#capacity);
//! * the two arithmetic modes agree where the spec makes them agree. Exact mode evaluates
//!   only the float64 expressions of docs/spec/arithmetic.md#exact-mode in rationals; integer
//!   steps, refusals and branches stay as upstream. So, run in lockstep (the same steps, the
//!   Kubernetes decisions applied to both) for as long as the two states are equal: both
//!   refuse the same input with the same error; a decision without metrics (the branches
//!   before docs/spec/reconcile.md#metric-branch) is the same; the same metrics fail with the
//!   same error; and equal combined proposals give the same decision when normalization has
//!   no float64 expression (the legacy path, docs/spec/arithmetic.md's table, or policies of
//!   type Pods only: the Percent limits are quirks 3 and 4). Nothing is asserted about the
//!   proposals themselves, which the quirks (ratio x pods, tolerance bounds) let differ, nor
//!   once the states differ.
//!
//! The owned models and the per-decision checks are `testkit`'s (`model`, `invariants`), which
//! `tests/invariants.rs` runs on generated sequences too.
#![no_main]

use hpa::autoscaler::{DEFAULT_EVENT_BYTES, DEFAULT_RECOMMENDATION_BYTES};
use hpa::conditions::{ConditionType, Reason};
use hpa::input::{
    ConditionStatus, ContainerKind, ContainerUsage, PodPhase, ReadyCondition, ResourceRequest,
};
use hpa::metrics::{MetricOutcome, MAX_METRICS};
use hpa::spec::{
    ContainerResourceMetricSource, CrossVersionObjectReference, ExternalMetricSource,
    MetricIdentifier, MetricSourceType, MetricSpec, MetricTarget, MetricTargetType,
    ObjectMetricSource, PodsMetricSource, PolicyType, ResourceMetricSource, ScalingPolicy,
    SelectPolicy,
};
use hpa::Tolerance;
use hpa::{Arithmetic, Autoscaler, Duration, EvaluateError, Hpa, HpaSpec, Instant};
use hpa::{Quantity, Settings};
use hpa_fuzz::evaluate::*;
use libfuzzer_sys::fuzz_target;
use testkit::capacity::{self, closed_loop, StepInput};
use testkit::invariants::{check_decision, state};
use testkit::model::{self, with_observation, BehaviorModel, Outcome, RulesModel};
use testkit::Rng;

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

fn rules_model(r: &Rules) -> RulesModel {
    RulesModel {
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

fn settings(s: &SettingsInput) -> Settings {
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

fn offset(now: Instant, ms: i64) -> Instant {
    Instant(now.millis().saturating_add(ms))
}

fn pod_model(p: &PodInput, i: usize, now: Instant) -> model::PodModel {
    model::PodModel {
        name: NAMES[i % NAMES.len()],
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
            .map(|c| model::ContainerModel {
                name: pick(&CONTAINERS, c.name),
                kind: pick(
                    &[
                        ContainerKind::Regular,
                        ContainerKind::RestartableInit,
                        ContainerKind::Init,
                    ],
                    c.kind,
                ),
                requests: request_list(&c.requests),
            })
            .collect(),
        requests: p.requests.as_deref().map(request_list),
    }
}

fn sample_model(s: &SampleInput, now: Instant) -> model::SampleModel {
    model::SampleModel {
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

fn values_model(v: &ValuesInput, now: Instant) -> model::ValuesModel {
    match v {
        ValuesInput::Pods { per_pod, orphans } => model::ValuesModel::Pods {
            per_pod: per_pod
                .iter()
                .take(11)
                .map(|s| s.as_ref().map(|s| sample_model(s, now)))
                .collect(),
            orphans: orphans
                .iter()
                .take(3)
                .map(|s| sample_model(s, now))
                .collect(),
        },
        ValuesInput::Object(x) => model::ValuesModel::Object(*x),
        ValuesInput::External(xs) => {
            model::ValuesModel::External(xs.iter().take(5).copied().collect())
        }
        ValuesInput::Error => model::ValuesModel::Error,
    }
}

// ---------------------------------------------------------------------------------------------
// Properties

fn run<const R: usize, const E: usize>(
    hpa: &Hpa<'_>,
    settings: &Settings,
    valid: bool,
    restored_scaled_to_zero: bool,
    steps: &[model::Step],
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
                    let context = || format!("step {i}: {d:?}\n{settings:?}");
                    check_decision(
                        hpa,
                        settings,
                        valid,
                        &before.status(),
                        &d,
                        current,
                        &context,
                    );
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
                match step.outcome {
                    Outcome::Failed => {
                        assert_eq!(a.rescale_failed(), rescale);
                        if let Some(t) = twin.as_mut() {
                            t.rescale_failed();
                        }
                    }
                    Outcome::Unreported => assert_eq!(a.rescale_pending(), rescale),
                    Outcome::Succeeded => {
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
    let behavior: Option<BehaviorModel> = input.behavior.as_ref().map(|(up, down)| BehaviorModel {
        up: up.as_ref().map(rules_model),
        down: down.as_ref().map(rules_model),
    });
    let spec = HpaSpec {
        min_replicas: input.min,
        max_replicas: input.max,
        metrics: &metrics,
        behavior: behavior.as_ref().map(BehaviorModel::view),
        scale_target_ref: None,
    };
    let settings = settings(&input.settings);
    let (hpa, valid) = match Hpa::new(&spec, &settings) {
        Ok(h) => (h, true),
        Err(_) => (Hpa::from_stored(&spec), false),
    };
    let mut now = Instant(input.start);
    let steps: Vec<model::Step> = input
        .steps
        .iter()
        .flat_map(|s| (0..=s.repeat % 8).map(move |k| (s, k == 0)))
        .take(32)
        .map(|(s, first)| {
            now = Instant(now.millis().saturating_add(s.dt));
            let mut values: Vec<model::ValuesModel> = s
                .values
                .iter()
                .take(hpa.metrics().len())
                .map(|v| values_model(v, now))
                .collect();
            while values.len() < hpa.metrics().len() {
                values.push(model::ValuesModel::Error);
            }
            if s.extra_value {
                values.push(model::ValuesModel::Object(1));
            }
            model::Step {
                now,
                // Repetitions follow the closed loop.
                replicas: s.replicas.filter(|_| first),
                status_replicas: s.status_replicas.filter(|_| first),
                pods: s
                    .pods
                    .iter()
                    .take(10)
                    .enumerate()
                    .map(|(i, p)| pod_model(p, i, now))
                    .collect(),
                values,
                outcome: match s.outcome % 4 {
                    0 => Outcome::Failed,
                    1 => Outcome::Unreported,
                    _ => Outcome::Succeeded,
                },
            }
        })
        .collect();
    let clone_at = usize::from(input.clone_at) % (steps.len() + 1);
    let stz = input.scaled_to_zero;
    let first = run::<DEFAULT_RECOMMENDATION_BYTES, DEFAULT_EVENT_BYTES>(
        &hpa, &settings, valid, stz, &steps, clone_at,
    );
    let again = run::<DEFAULT_RECOMMENDATION_BYTES, DEFAULT_EVENT_BYTES>(
        &hpa,
        &settings,
        valid,
        stz,
        &steps,
        steps.len(),
    );
    assert_eq!(first, again, "not deterministic");
    run::<8, 6>(&hpa, &settings, valid, stz, &steps, clone_at);
    compare_modes(&hpa, &settings, stz, &steps);
    if let Some(long) = &input.long {
        long_run(&input, &behavior, &settings, long);
    }
});

/// Kubernetes and exact arithmetic in lockstep while their states are equal (module docs).
fn compare_modes(
    hpa: &Hpa<'_>,
    settings: &Settings,
    restored_scaled_to_zero: bool,
    steps: &[model::Step],
) {
    let [kubernetes, exact] =
        [Arithmetic::Kubernetes, Arithmetic::Exact].map(|arithmetic| Settings {
            arithmetic,
            ..*settings
        });
    // Normalization without a float64 expression: the legacy path, or Pods policies only.
    let integer_normalization = hpa.behavior().is_none_or(|b| {
        [&b.scale_up, &b.scale_down]
            .iter()
            .all(|r| r.policies.iter().all(|p| p.type_ == PolicyType::Pods))
    });
    let mut k: Autoscaler = Autoscaler::new();
    if restored_scaled_to_zero {
        k.status_mut().conditions.set(
            ConditionType::ScaledToZero,
            ConditionStatus::True,
            Reason::ScaledToZero,
        );
    }
    let mut e = k.clone();
    let mut replicas = 3;
    for (i, step) in steps.iter().enumerate() {
        if state(&k) != state(&e) {
            return;
        }
        let current = step.replicas.unwrap_or(replicas);
        let status_replicas = step.status_replicas.unwrap_or(current);
        let outcome = with_observation(step, current, status_replicas, |obs| {
            let dk = k.evaluate(hpa, &kubernetes, obs);
            let de = e.evaluate(hpa, &exact, obs);
            let context = || format!("step {i}\nkubernetes: {dk:?}\nexact: {de:?}");
            let (dk, de) = match (&dk, &de) {
                (Ok(dk), Ok(de)) => (dk, de),
                (Err(a), Err(b)) => {
                    assert_eq!(a, b, "the modes refuse differently: {}", context());
                    return None;
                }
                _ => panic!("one mode refused: {}", context()),
            };
            if dk.metrics.is_empty() || de.metrics.is_empty() {
                assert_eq!(format!("{dk:?}"), format!("{de:?}"), "{}", context());
            }
            let failures = |d: &hpa::Decision<'_>| {
                d.metrics
                    .iter()
                    .map(|m| match m {
                        MetricOutcome::Error(e) => Some(format!("{e:?}")),
                        MetricOutcome::Proposal(_) => None,
                    })
                    .collect::<Vec<_>>()
            };
            assert_eq!(failures(dk), failures(de), "failed metrics: {}", context());
            if dk.proposal == de.proposal && integer_normalization {
                assert_eq!(
                    (dk.desired_replicas, dk.rescale),
                    (de.desired_replicas, de.rescale),
                    "{}",
                    context()
                );
            }
            Some((dk.desired_replicas, dk.rescale, de.rescale))
        });
        let Some((desired, rescale_k, rescale_e)) = outcome else {
            continue;
        };
        match step.outcome {
            Outcome::Failed => {
                k.rescale_failed();
                e.rescale_failed();
            }
            Outcome::Unreported => {}
            Outcome::Succeeded => {
                k.rescale_succeeded();
                e.rescale_succeeded();
                if rescale_k {
                    replicas = desired;
                }
            }
        }
        if rescale_k != rescale_e {
            return;
        }
    }
}

/// The default rings against the reference on a long loop (see the module docs).
fn long_run(input: &Input, behavior: &Option<BehaviorModel>, settings: &Settings, long: &LongRun) {
    let min = input.min.unwrap_or(1).clamp(1, 100);
    let max = input.max.clamp(min, 40_000);
    let spec = capacity::spec(min, max, behavior.as_ref().map(BehaviorModel::view));
    // The reference holds 3600 s of history at 1 s (docs/spec/history.md#recommendations keeps
    // a longer legacy window whole, which it would not hold).
    let settings = &Settings {
        downscale_stabilization_window: settings
            .downscale_stabilization_window
            .min(Duration::from_secs(3600)),
        ..*settings
    };
    let Ok(hpa) = Hpa::new(&spec, settings) else {
        return;
    };
    let evaluations = 200 + usize::from(long.evaluations) % 1_801;
    let period = 1_000 + i64::from(long.period_ms) % 29_001;
    let high = 1 + i64::from(long.high) % 30_000;
    let set_percent = u64::from(long.set_percent % 101);
    let mut rng = Rng::new(long.seed);
    let mut load = rng.range(0, high) * 1000;
    let mut now = input.start.clamp(-1 << 50, 1 << 50);
    closed_loop::<DEFAULT_RECOMMENDATION_BYTES, DEFAULT_EVENT_BYTES>(
        &hpa,
        settings,
        "long run",
        min,
        evaluations,
        |_| {
            now += period;
            load = if rng.chance(10) {
                rng.range(0, high) * 1000
            } else {
                (load + rng.range(-high * 100, high * 100)).clamp(0, high * 1000)
            };
            StepInput {
                now,
                load,
                set_replicas: rng.chance(set_percent).then(|| rng.range32(min, max)),
                outcome: match rng.below(20) {
                    0 => capacity::Outcome::Failed,
                    1 => capacity::Outcome::Unreported,
                    _ => capacity::Outcome::Succeeded,
                },
            }
        },
    );
}
