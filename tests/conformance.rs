//! Conformance with the upstream Kubernetes HPA unit tests.
//!
//! `tests/conformance/replica_calc.json` (replica_calculator_test.go) and
//! `tests/conformance/normalization.json` (horizontal_test.go, defaults_test.go) hold the
//! inputs and expectations of upstream's tests as data; their schema is documented inside the
//! files (`harness_defaults`, `family_docs`, per-case `notes`) and in
//! `/work/shared/conformance/README.md`. Every case of both files (`cases`, `aux_cases`, every
//! family, `superseded_cases` too) is mapped onto the engine's public API and compared with
//! upstream's expectation. `tests/conformance/shapes/` holds synthetic vectors in the same
//! schema (not upstream's: their notes give the reasoning) for shapes upstream's data may take
//! that the bundled files may lack: null metric fields of a pod, metrics entries without the
//! metric's container or resource, targets without a type. When `HPA_CONFORMANCE_DIR` is set,
//! the files of the same names in that directory are run as well (a missing file there is an
//! error).
//!
//! Conventions of the vectors: times are signed second offsets from "now" (0), Go's zero time
//! is `-63914313600`; the engine counts milliseconds (`Instant(s * 1000)`). Quantities are
//! integer milli-units (`Quantity::from_milli`). Integers are read exactly (`as_i64`), never
//! through a float; decimal fractions (tolerances) are read from the number's text.
//!
//! A case that exercises what only a Kubernetes controller has (a scale GET failure, selector
//! parsing or overlap between HPAs, an HPA that API validation rejects, the 1000-HPA throughput
//! test) is listed as not applicable with its reason and never counted as passed.
//! Controller-only assertions of otherwise applicable controller scenarios are not compared:
//! `status_updated` (whether the controller writes the HPA status: the engine has no status
//! write), `monitor` (Prometheus metrics) and `rate_limiter`; the engine's decision, the
//! resulting `status.desiredReplicas`, the scale update and the ordered conditions are. A
//! `partial` line names each case whose main assertion is such a controller-only one.
//!
//! The output (one line per not-applicable case, per-family counts, then `N passed, M failed`
//! and `K not applicable`) is written straight to stdout so that it shows without
//! `--nocapture`. Vectors are leaked (`Box::leak`) so that the engine's borrowed views can
//! point into them for the whole test: a few megabytes, once.

use std::collections::BTreeMap;
use std::fmt::{Debug, Write as _};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use hpa::arith::Tolerances;
use hpa::autoscaler::{Autoscaler, Decision};
use hpa::calculator::CalcContext;
use hpa::conditions::{ConditionType, Conditions, Reason};
use hpa::defaults::{
    resolve_behavior, Hpa, ResolvedBehavior, ResolvedRules, DEFAULT_SCALE_DOWN_POLICIES,
    DEFAULT_SCALE_UP_POLICIES,
};
use hpa::history::{
    Direction, History, LoadError, ScaleEvent, DEFAULT_EVENT_BYTES, DEFAULT_RECOMMENDATION_BYTES,
};
use hpa::input::{
    ConditionStatus, Container, ContainerKind, ContainerUsage, MetricValues, Observation, Pod,
    PodPhase, PodSamples, ReadyCondition, ResourceRequest, Sample,
};
use hpa::metrics::{evaluate_metric, MetricOutcome};
use hpa::normalize::{self, Bounds};
use hpa::pods::{group_pod, pod_request, PodGroup, Readiness};
use hpa::quantity::{build_quantity_milli, Format, Quantity};
use hpa::settings::{Arithmetic, Settings};
use hpa::spec::{
    Behavior, CrossVersionObjectReference, HpaSpec, MetricIdentifier, MetricSourceType, MetricSpec,
    MetricTarget, MetricTargetType, PolicyType, ScalingPolicy, ScalingRules, SelectPolicy,
};
use hpa::time::{Duration, Instant};
use hpa::tolerance::Tolerance;

/// The history capacities used throughout (the engine's defaults).
type Hist = History<DEFAULT_RECOMMENDATION_BYTES, DEFAULT_EVENT_BYTES>;

/// Mapping errors (a vector the runner cannot read) fail the case with this text.
#[path = "support/case_json.rs"]
mod case_json;
use case_json::*;

/// What one case came to.
enum Outcome {
    Pass,
    Fail(String),
    NotApplicable(String),
}

fn na(reason: impl Into<String>) -> R<Outcome> {
    Ok(Outcome::NotApplicable(reason.into()))
}

/// Collects every mismatch of one case.
#[derive(Default)]
struct Diff(Vec<String>);

impl Diff {
    fn eq<T: PartialEq + Debug>(&mut self, what: &str, expected: T, actual: T) {
        if expected != actual {
            self.0
                .push(format!("{what}: expected {expected:?}, got {actual:?}"));
        }
    }

    fn fail(&mut self, msg: impl Into<String>) {
        self.0.push(msg.into());
    }

    fn outcome(self) -> R<Outcome> {
        if self.0.is_empty() {
            Ok(Outcome::Pass)
        } else {
            Ok(Outcome::Fail(self.0.join("; ")))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// JSON access (exact integers, decimal text for fractions) and leaking.

fn is_null(v: &Value, key: &str) -> bool {
    v.get(key).is_none_or(Value::is_null)
}

fn flag(v: &Value, key: &str) -> R<bool> {
    get(v, key)?
        .as_bool()
        .ok_or_else(|| format!("`{key}` is not a boolean"))
}

fn opt_flag(v: &Value, key: &str) -> R<Option<bool>> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(x) => x
            .as_bool()
            .map(Some)
            .ok_or_else(|| format!("`{key}` is not a boolean")),
    }
}

fn opt_list(v: &'static Value, key: &str) -> R<Option<&'static [Value]>> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(x) => x
            .as_array()
            .map(|a| Some(a.as_slice()))
            .ok_or_else(|| format!("`{key}` is not a list")),
    }
}

/// A whole number possibly written as a float (`8.0`).
fn whole(v: &Value, key: &str) -> R<i32> {
    let (m, e) = decimal(get(v, key)?, key)?;
    if e < 0 {
        return Err(format!("`{key}` is not a whole number"));
    }
    let value = m
        .checked_mul(10_i128.checked_pow(e.unsigned_abs()).ok_or("too large")?)
        .ok_or("too large")?;
    i32::try_from(value).map_err(|_| format!("`{key}` does not fit an int32"))
}

fn secs(s: i64) -> Duration {
    Duration::from_secs(s)
}

// ---------------------------------------------------------------------------------------------
// Shared model pieces.

const CONDITION_TYPES: [ConditionType; 4] = [
    ConditionType::AbleToScale,
    ConditionType::ScalingActive,
    ConditionType::ScalingLimited,
    ConditionType::ScaledToZero,
];

const REASONS: [Reason; 20] = [
    Reason::SucceededGetScale,
    Reason::ScaleDownStabilized,
    Reason::ScaleUpStabilized,
    Reason::ReadyForNewScale,
    Reason::SucceededRescale,
    Reason::FailedUpdateScale,
    Reason::ScalingDisabled,
    Reason::FailedGetResourceMetric,
    Reason::FailedGetContainerResourceMetric,
    Reason::FailedGetPodsMetric,
    Reason::FailedGetObjectMetric,
    Reason::FailedGetExternalMetric,
    Reason::ValidMetricFound,
    Reason::TooManyReplicas,
    Reason::TooFewReplicas,
    Reason::ScaleUpLimit,
    Reason::ScaleDownLimit,
    Reason::DesiredWithinRange,
    Reason::ScaledToZero,
    Reason::NotScaledToZero,
];

fn condition_type(s: &str) -> R<ConditionType> {
    CONDITION_TYPES
        .into_iter()
        .find(|t| t.as_str() == s)
        .ok_or_else(|| format!("condition type {s:?} unknown to the engine"))
}

fn reason(s: &str) -> R<Reason> {
    REASONS
        .into_iter()
        .find(|r| r.as_str() == s)
        .ok_or_else(|| format!("condition reason {s:?} unknown to the engine"))
}

fn select_policy(s: &str) -> R<SelectPolicy> {
    match s {
        "Max" => Ok(SelectPolicy::Max),
        "Min" => Ok(SelectPolicy::Min),
        "Disabled" => Ok(SelectPolicy::Disabled),
        other => Err(format!("unknown selectPolicy {other:?}")),
    }
}

fn policies(list: &'static [Value]) -> R<&'static [ScalingPolicy]> {
    let mut out = Vec::new();
    for p in list {
        out.push(ScalingPolicy {
            type_: match text(p, "type")? {
                "Pods" => PolicyType::Pods,
                "Percent" => PolicyType::Percent,
                other => return Err(format!("unknown policy type {other:?}")),
            },
            value: int32(p, "value")?,
            period_seconds: int32(p, "period_s")?,
        });
    }
    Ok(leak(out))
}

fn behavior_tolerance(milli: Option<i64>) -> R<Option<Tolerance>> {
    milli
        .map(|m| {
            Tolerance::from_quantity(&Quantity::from_milli(m))
                .ok_or_else(|| format!("tolerance {m}m is not a valid tolerance"))
        })
        .transpose()
}

/// Rules as the user wrote them (`*_specified`: null fields unset).
fn scaling_rules(v: &'static Value) -> R<ScalingRules<'static>> {
    Ok(ScalingRules {
        stabilization_window_seconds: opt_int32(v, "stabilization_window_s")?,
        select_policy: opt_text(v, "select_policy")?
            .map(select_policy)
            .transpose()?,
        policies: opt_list(v, "policies")?.map(policies).transpose()?,
        tolerance: opt_int(v, "tolerance_milli")?.map(Quantity::from_milli),
    })
}

/// Rules after API defaulting, as the vectors spell them.
fn resolved_rules(v: &'static Value) -> R<ResolvedRules<'static>> {
    Ok(ResolvedRules {
        stabilization_window_seconds: opt_int32(v, "stabilization_window_s")?,
        select_policy: select_policy(text(v, "select_policy")?)?,
        policies: policies(list(v, "policies")?)?,
        tolerance: behavior_tolerance(opt_int(v, "tolerance_milli")?)?,
    })
}

fn resolved_behavior(v: &'static Value) -> R<ResolvedBehavior<'static>> {
    Ok(ResolvedBehavior {
        scale_up: resolved_rules(get(v, "scale_up")?)?,
        scale_down: resolved_rules(get(v, "scale_down")?)?,
    })
}

fn behavior_specified(v: &'static Value) -> R<Behavior<'static>> {
    let dir = |k: &str| -> R<Option<ScalingRules<'static>>> {
        match v.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(r) => scaling_rules(r).map(Some),
        }
    };
    Ok(Behavior {
        scale_up: dir("scale_up")?,
        scale_down: dir("scale_down")?,
    })
}

/// `[{replicas|replica_change, timestamp_s}]` as `(value, instant)` in time order (stable):
/// upstream's lists are in slot order, which its slot reuse scrambles; only values and
/// timestamps decide anything, and `History::load` wants time order.
fn timed(list: &'static [Value], value_key: &str) -> R<Vec<(i32, Instant)>> {
    let mut out = Vec::new();
    for e in list {
        out.push((int32(e, value_key)?, at(int(e, "timestamp_s")?)));
    }
    out.sort_by_key(|&(_, t)| t);
    Ok(out)
}

/// One of upstream's scale-event lists, slot by slot (`outdated` defaults to false).
fn event_list(list: &'static [Value]) -> R<Vec<Option<ScaleEvent>>> {
    let mut out = Vec::new();
    for e in list {
        out.push(Some(ScaleEvent {
            change: int32(e, "replica_change")?,
            at: at(int(e, "timestamp_s")?),
            outdated: match e.get("outdated") {
                Some(_) => flag(e, "outdated")?,
                None => false,
            },
        }));
    }
    Ok(out)
}

/// A loaded history, which must be one upstream can have.
fn loaded(result: Result<(), LoadError>) -> R<()> {
    result.map_err(|e| format!("history: {e}"))
}

fn sum_usage(u: &[ContainerUsage<'_>]) -> i64 {
    u.iter().map(|c| c.milli).sum()
}

// ---------------------------------------------------------------------------------------------
// replica_calc.json: `cases`.

fn run_replica_calc_case(c: &'static Value) -> R<Outcome> {
    let m = get(c, "metric")?;
    let source = text(m, "source")?;
    let spec = calc_metric_spec(m)?;
    let resource: &'static str = match source {
        "Resource" | "ContainerResource" => text(m, "name")?,
        _ => "cpu",
    };
    let current = int32(c, "current_replicas")?;
    let now = at(int(c, "now")?);
    let container = spec.container_resource.map(|r| r.container);
    let (pods, per_pod, orphans) = calc_pods(c, source, resource, container)?;
    let mut diff = Diff::default();
    diff.eq(
        "pod_count",
        int(c, "pod_count")?,
        i64::try_from(pods.len()).unwrap_or(-1),
    );

    let values = match source {
        "Object" => MetricValues::Object(int(c, "object_value_milli")?),
        "External" => {
            let mut vs = Vec::new();
            for v in list(c, "external_values_milli")? {
                vs.push(int_value(v, "external_values_milli")?);
            }
            MetricValues::External(leak(vs))
        }
        _ => MetricValues::Pods(PodSamples {
            per_pod: leak(per_pod),
            orphans: leak(orphans),
        }),
    };
    let values: &'static MetricValues<'static> = Box::leak(Box::new(values));
    let pods = leak(pods);
    let obs = Observation {
        now,
        replicas: current,
        // The calculator tests pass the current replica count as `statusReplicas`.
        status_replicas: current,
        pods,
        metrics: std::slice::from_ref(values),
    };
    let settings = Settings {
        tolerance: match c.get("tolerance") {
            Some(t) if !t.is_null() => tolerance(t, "tolerance")?,
            _ => Tolerance::DEFAULT,
        },
        cpu_initialization_period: secs(int(c, "cpu_initialization_period_s")?),
        initial_readiness_delay: secs(int(c, "initial_readiness_delay_s")?),
        ..Settings::DEFAULT
    };
    let tols = get(c, "tolerances")?;
    let ctx = CalcContext {
        obs: &obs,
        settings: &settings,
        tolerances: Tolerances {
            down: tolerance(get(tols, "scale_down")?, "tolerances.scale_down")?,
            up: tolerance(get(tols, "scale_up")?, "tolerances.scale_up")?,
        },
        current,
    };
    let outcome = evaluate_metric(&ctx, spec, values);

    let e = get(c, "expect")?;
    match (opt_text(e, "error")?, outcome) {
        (Some(sub), MetricOutcome::Error(err)) => {
            let text = err.to_string();
            if !text.contains(sub) {
                diff.fail(format!(
                    "error: expected text containing {sub:?}, got {text:?}"
                ));
            }
        }
        (Some(sub), MetricOutcome::Proposal(p)) => diff.fail(format!(
            "expected an error containing {sub:?}, got a proposal of {} replicas",
            p.replicas
        )),
        (None, MetricOutcome::Error(err)) => diff.fail(format!("unexpected error: {err}")),
        (None, MetricOutcome::Proposal(p)) => {
            diff.eq("replicas", opt_int32(e, "replicas")?, Some(p.replicas));
            diff.eq(
                "utilization_percent",
                opt_int32(e, "utilization_percent")?,
                p.average_utilization,
            );
            // The value (Object/External value targets) or the per-pod average.
            let kind = text(e, "raw_value_kind")?;
            let raw = if kind == "object_value_milli" || kind.starts_with("sum(") {
                p.value
            } else {
                p.average_value
            };
            diff.eq("raw_value_milli", opt_int(e, "raw_value_milli")?, raw);
            // `timestamp_s` is not compared: the engine returns no metric timestamp (upstream
            // uses it for the status only).
        }
    }
    diff.outcome()
}

// ---------------------------------------------------------------------------------------------
// replica_calc.json: `aux_cases`.

fn run_group_pods(c: &'static Value) -> R<Outcome> {
    let resource = text(c, "resource")?;
    let rules = Readiness {
        cpu: resource == "cpu",
        cpu_initialization_period: secs(int(c, "cpu_initialization_period_s")?),
        initial_readiness_delay: secs(int(c, "initial_readiness_delay_s")?),
        now: at(int(c, "now")?),
    };
    let metrics = obj(c, "metrics")?;
    let (mut ready, mut unready, mut missing, mut ignored) = (0_i64, vec![], vec![], vec![]);
    for p in list(c, "pods")? {
        let name = text(p, "name")?;
        let ready_condition = match p.get("ready_condition") {
            None | Some(Value::Null) => None,
            Some(rc) => Some(ReadyCondition {
                status: condition_status(get(rc, "status")?)?,
                last_transition: opt_int(rc, "last_transition_time_s")?.map(at),
            }),
        };
        let pod = Pod {
            name,
            phase: phase(opt_text(p, "phase")?)?,
            ready: ready_condition,
            start_time: opt_int(p, "start_time_s")?.map(at),
            deleted: !is_null(p, "deletion_timestamp_s"),
            containers: &[],
            requests: None,
        };
        let sample = group_sample(metrics, name)?;
        match group_pod(&pod, sample.as_ref(), &rules) {
            PodGroup::Ready => ready += 1,
            PodGroup::Unready => unready.push(name),
            PodGroup::Missing => missing.push(name),
            PodGroup::Ignored => ignored.push(name),
        }
    }
    let names = |key: &str| -> R<Vec<&'static str>> {
        let mut v = Vec::new();
        for n in list(get(c, "expect")?, key)? {
            v.push(n.as_str().ok_or("pod name is not a string")?);
        }
        v.sort_unstable();
        Ok(v)
    };
    unready.sort_unstable();
    missing.sort_unstable();
    ignored.sort_unstable();
    let mut diff = Diff::default();
    diff.eq(
        "ready_pod_count",
        int(get(c, "expect")?, "ready_pod_count")?,
        ready,
    );
    diff.eq("unready_pods", names("unready_pods")?, unready);
    diff.eq("missing_pods", names("missing_pods")?, missing);
    diff.eq("ignored_pods", names("ignored_pods")?, ignored);
    diff.outcome()
}

fn request_list(m: &'static Map<String, Value>) -> R<&'static [ResourceRequest<'static>]> {
    let mut out = Vec::new();
    for (k, v) in m {
        out.push(ResourceRequest {
            resource: k.as_str(),
            quantity: Quantity::from_milli(int_value(v, k)?),
        });
    }
    Ok(leak(out))
}

fn run_calculate_requests(c: &'static Value) -> R<Outcome> {
    let resource = text(c, "resource")?;
    let pod_level_gate = flag(c, "pod_level_resources_feature_enabled")?;
    let container = Some(text(c, "container")?).filter(|s| !s.is_empty());
    let mut got: BTreeMap<&'static str, i64> = BTreeMap::new();
    let mut error = None;
    for p in list(c, "pods")? {
        let mut containers = Vec::new();
        for ct in list(p, "containers")? {
            containers.push(Container {
                name: text(ct, "name")?,
                kind: ContainerKind::Regular,
                requests: request_list(obj(ct, "requests_milli")?)?,
            });
        }
        for ct in list(p, "init_containers")? {
            let kind = match opt_text(ct, "restart_policy")? {
                Some("Always") => ContainerKind::RestartableInit,
                _ => ContainerKind::Init,
            };
            containers.push(Container {
                name: text(ct, "name")?,
                kind,
                requests: request_list(obj(ct, "requests_milli")?)?,
            });
        }
        // With the PodLevelResources gate off the pod-level requests are not looked at.
        let requests = match (pod_level_gate, opt_obj(p, "pod_level_requests_milli")?) {
            (true, Some(m)) => Some(request_list(m)?),
            _ => None,
        };
        let pod = Pod {
            name: text(p, "name")?,
            phase: PodPhase::Running,
            ready: None,
            start_time: None,
            deleted: false,
            containers: leak(containers),
            requests,
        };
        // Upstream's calculateRequests stops at the first error.
        match pod_request(&pod, container, resource) {
            Ok(v) => {
                got.insert(pod.name, v);
            }
            Err(e) => {
                error = Some(e.to_string());
                break;
            }
        }
    }
    let e = get(c, "expect")?;
    let mut diff = Diff::default();
    match (opt_text(e, "error")?, error) {
        (Some(want), Some(have)) => {
            if !have.contains(want) {
                diff.fail(format!("error: expected {want:?}, got {have:?}"));
            }
        }
        (Some(want), None) => diff.fail(format!("expected error {want:?}, got {got:?}")),
        (None, Some(have)) => diff.fail(format!("unexpected error {have:?}")),
        (None, None) => {
            let mut want = BTreeMap::new();
            for (k, v) in obj(e, "requests_milli")? {
                want.insert(k.as_str(), int_value(v, k)?);
            }
            diff.eq("requests_milli", want, got);
        }
    }
    diff.outcome()
}

// ---------------------------------------------------------------------------------------------
// normalization.json: unit families.

fn behavior_with_windows(up: i32, down: i32) -> ResolvedBehavior<'static> {
    ResolvedBehavior {
        scale_up: ResolvedRules {
            stabilization_window_seconds: Some(up),
            select_policy: SelectPolicy::Max,
            policies: &DEFAULT_SCALE_UP_POLICIES,
            tolerance: None,
        },
        scale_down: ResolvedRules {
            stabilization_window_seconds: Some(down),
            select_policy: SelectPolicy::Max,
            policies: &DEFAULT_SCALE_DOWN_POLICIES,
            tolerance: None,
        },
    }
}

/// `stabilizeRecommendationWithBehaviors` through `normalize::with_behavior` (its stabilized
/// value; the rate limits that follow in that function are not part of upstream's function).
///
/// `recommendations_after`: upstream overwrites the last entry older than BOTH windows in
/// place (or appends), while the engine appends and drops only entries that no window can
/// reach any more (older than 3600 s). So the lists are compared as the multiset of entries
/// that are not older than both windows, which includes the new `(desired, now)` entry; the
/// old entries upstream keeps are never looked at again by either.
fn run_stabilize_with_behaviors(c: &'static Value) -> R<Outcome> {
    let i = get(c, "inputs")?;
    let recs = timed(list(i, "recommendations")?, "replicas")?;
    let up = int32(i, "scale_up_stabilization_window_s")?;
    let down = int32(i, "scale_down_stabilization_window_s")?;
    let current = int32(i, "current_replicas")?;
    let desired = int32(i, "desired_replicas")?;
    let now = Instant(0);
    let mut h = Hist::new();
    loaded(h.load(true, &recs, &[], &[]))?;
    let mut conditions = Conditions::new();
    let n = normalize::with_behavior(
        &mut h,
        &Settings::DEFAULT,
        &behavior_with_windows(up, down),
        &mut conditions,
        Bounds {
            current,
            min: 0,
            max: i32::MAX,
            now,
        },
        desired,
    );
    let e = get(c, "expect")?;
    let mut diff = Diff::default();
    diff.eq("recommendation", int32(e, "recommendation")?, n.stabilized);
    if let Some(after) = opt_list(e, "recommendations_after")? {
        let old = |t: Instant| {
            t.is_before_cutoff(now, secs(i64::from(up)))
                && t.is_before_cutoff(now, secs(i64::from(down)))
        };
        let mut want: Vec<(i32, Instant)> = timed(after, "replicas")?
            .into_iter()
            .filter(|&(_, t)| !old(t))
            .collect();
        let mut have: Vec<(i32, Instant)> = h.recommendations().filter(|&(_, t)| !old(t)).collect();
        want.sort_unstable();
        have.sort_unstable();
        diff.eq("recommendations not older than both windows", want, have);
    }
    diff.outcome()
}

/// `stabilizeRecommendation` (legacy) through `normalize::legacy`.
///
/// `recommendations_len_after`: upstream overwrites the last entry older than the window in
/// place, the engine appends and keeps old entries until its 3600 s retention. Upstream's
/// length is `in-window entries + new entry + (old entries − 1 reused slot)`; the engine's
/// in-window count after the call must equal that length minus the old entries upstream
/// keeps, `max(old − 1, 0)` (with no old entry this is the plain length).
fn run_normalize_legacy(c: &'static Value) -> R<Outcome> {
    let i = get(c, "inputs")?;
    let recs = timed(list(i, "recommendations")?, "replicas")?;
    let window = secs(int(i, "downscale_stabilization_window_s")?);
    let desired = int32(i, "desired_replicas")?;
    let now = Instant(0);
    let mut h = Hist::new();
    loaded(h.load(true, &recs, &[], &[]))?;
    let settings = Settings {
        downscale_stabilization_window: window,
        ..Settings::DEFAULT
    };
    let mut conditions = Conditions::new();
    let n = normalize::legacy(
        &mut h,
        &settings,
        &mut conditions,
        Bounds {
            current: desired,
            min: 0,
            max: i32::MAX,
            now,
        },
        desired,
    );
    let e = get(c, "expect")?;
    let mut diff = Diff::default();
    diff.eq("recommendation", int32(e, "recommendation")?, n.stabilized);
    let old_before = recs
        .iter()
        .filter(|&&(_, t)| t.is_before_cutoff(now, window))
        .count();
    let kept_old = old_before.saturating_sub(1);
    let len_after =
        usize::try_from(int(e, "recommendations_len_after")?).map_err(|e| e.to_string())?;
    let in_window_after = h
        .recommendations()
        .filter(|&(_, t)| !t.is_before_cutoff(now, window))
        .count();
    diff.eq(
        "recommendations after (in window; upstream length minus the old slots it keeps)",
        len_after.saturating_sub(kept_old),
        in_window_after,
    );
    diff.outcome()
}

/// `convertDesiredReplicasWithBehaviorRate` through `normalize::with_behavior`: the case's
/// defaulted rules with both stabilization windows set to 0 and an empty recommendation
/// history, so stabilization returns the desired count unchanged and only the rate limits and
/// min/max decide; the past scale events are loaded into the history. Also checks that API
/// defaulting of the rules as written gives the defaulted rules of the vector.
fn run_scaling_with_rules(c: &'static Value) -> R<Outcome> {
    let i = get(c, "inputs")?;
    let mut up = resolved_rules(get(i, "scale_up_rules")?)?;
    let mut down = resolved_rules(get(i, "scale_down_rules")?)?;
    let mut diff = Diff::default();
    let specified = Behavior {
        scale_up: match i.get("scale_up_rules_specified") {
            Some(v) if !v.is_null() => Some(scaling_rules(v)?),
            _ => None,
        },
        scale_down: match i.get("scale_down_rules_specified") {
            Some(v) if !v.is_null() => Some(scaling_rules(v)?),
            _ => None,
        },
    };
    diff.eq(
        "API defaulting of the rules as written",
        ResolvedBehavior {
            scale_up: up,
            scale_down: down,
        },
        resolve_behavior(&specified),
    );
    up.stabilization_window_seconds = Some(0);
    down.stabilization_window_seconds = Some(0);
    let behavior = ResolvedBehavior {
        scale_up: up,
        scale_down: down,
    };
    let mut h = Hist::new();
    loaded(h.load(
        true,
        &[],
        &event_list(list(i, "scale_up_events")?)?,
        &event_list(list(i, "scale_down_events")?)?,
    ))?;
    let mut conditions = Conditions::new();
    let n = normalize::with_behavior(
        &mut h,
        &Settings::DEFAULT,
        &behavior,
        &mut conditions,
        Bounds {
            current: int32(i, "current_replicas")?,
            min: int32(i, "min_replicas")?,
            max: int32(i, "max_replicas")?,
            now: Instant(0),
        },
        int32(i, "desired_replicas")?,
    );
    let e = get(c, "expect")?;
    diff.eq("replicas", int32(e, "replicas")?, n.replicas);
    diff.eq("reason", text(e, "reason")?, n.limit.as_str());
    diff.outcome()
}

fn run_scale_limits(c: &'static Value) -> R<Outcome> {
    let i = get(c, "inputs")?;
    let rules = resolved_rules(get(i, "rules")?)?;
    let mut h = Hist::new();
    loaded(h.load(
        true,
        &[],
        &event_list(list(i, "scale_up_events")?)?,
        &event_list(list(i, "scale_down_events")?)?,
    ))?;
    let current = int32(i, "current_replicas")?;
    let now = Instant(0);
    let (limit, _) = match text(i, "direction")? {
        "up" => normalize::scale_up_limit(&h, &rules, current, now, Arithmetic::Kubernetes),
        "down" => normalize::scale_down_limit(&h, &rules, current, now, Arithmetic::Kubernetes),
        other => return Err(format!("unknown direction {other:?}")),
    };
    let mut diff = Diff::default();
    diff.eq("limit", int32(get(c, "expect")?, "limit")?, limit);
    diff.outcome()
}

/// `getReplicasChangePerPeriod` then `storeScaleEvent`, for both directions, through the
/// public API: the previous events are loaded into an HPA's history; the change in the period
/// is read as the period-start replicas of a `Pods 0 per period` policy
/// (`current − added + deleted`); the event is stored by a real rescale (an HPA whose min/max
/// force `prev → new`, reported with `rescale_succeeded`).
///
/// `events_after`: upstream's list after storing, slot by slot: each slot's change and
/// outdated flag (docs/spec/history.md#scale-events: the events before `now - longest period`
/// become outdated and the last outdated slot is overwritten, or the event is appended).
fn run_store_scale_events(c: &'static Value) -> R<Outcome> {
    let i = get(c, "inputs")?;
    let e = get(c, "expect")?;
    let previous = event_list(list(i, "previous_events")?)?;
    let query_period = int32(i, "period_s_for_change_query")?;
    let mut want_after = Vec::new();
    for ev in list(e, "events_after")? {
        want_after.push(Some((int32(ev, "replica_change")?, flag(ev, "outdated")?)));
    }
    let want_change = int32(e, "replicas_change_in_period_before")?;
    let now = Instant(0);
    let mut diff = Diff::default();

    for (call_key, up) in [("scale_up_call", true), ("scale_down_call", false)] {
        let call = get(i, call_key)?;
        let prev = int32(call, "prev_replicas")?;
        let new = int32(call, "new_replicas")?;
        let label = if up { "scale-up" } else { "scale-down" };
        let mut a: Autoscaler = Autoscaler::new();
        let (ups, downs) = if up {
            (&previous[..], &[][..])
        } else {
            (&[][..], &previous[..])
        };
        loaded(a.load_history(true, &[], ups, downs))?;

        // Change in the period, before storing.
        let probe = ResolvedRules {
            stabilization_window_seconds: Some(0),
            select_policy: SelectPolicy::Max,
            policies: leak(vec![ScalingPolicy {
                type_: PolicyType::Pods,
                value: 0,
                period_seconds: query_period,
            }]),
            tolerance: None,
        };
        let change = if up {
            let (start, _) =
                normalize::scale_up_limit(a.history(), &probe, prev, now, Arithmetic::Kubernetes);
            prev - start
        } else {
            let (start, _) =
                normalize::scale_down_limit(a.history(), &probe, prev, now, Arithmetic::Kubernetes);
            start - prev
        };
        diff.eq(
            &format!("{label}: replicas_change_in_period_before"),
            want_change,
            change,
        );

        // Store through a rescale `prev -> new`.
        let behavior = match get(call, "behavior")? {
            Value::Null => None,
            b => Some(behavior_specified(b)?),
        };
        let (min, max) = if up { (new, new) } else { (1, new) };
        let spec = HpaSpec {
            min_replicas: Some(min),
            max_replicas: max,
            metrics: &[],
            behavior,
            scale_target_ref: None,
        };
        let hpa = Hpa::new(&spec, &Settings::DEFAULT).map_err(|e| e.to_string())?;
        let obs = Observation {
            now,
            replicas: prev,
            status_replicas: prev,
            pods: &[],
            metrics: &[MetricValues::Error("not read: replicas outside [min, max]")],
        };
        let d = a
            .evaluate(&hpa, &Settings::DEFAULT, &obs)
            .map_err(|e| e.to_string())?;
        diff.eq(
            &format!("{label}: rescale to"),
            Some(new),
            d.rescale.then_some(d.desired_replicas),
        );
        a.rescale_succeeded();
        let direction = if up { Direction::Up } else { Direction::Down };
        let have: Vec<Option<(i32, bool)>> = a
            .history()
            .scale_event_list(direction)
            .map(|e| e.map(|e| (e.change, e.outdated)))
            .collect();
        diff.eq(
            &format!("{label}: the list after storing (change, outdated)"),
            want_after.clone(),
            have,
        );
    }
    diff.outcome()
}

/// `convertDesiredReplicasWithRules` (legacy limits) through `normalize::legacy` with an
/// empty history (so the stabilized value is the desired count) and the case's factor/minimum.
fn run_convert_with_rules(c: &'static Value) -> R<Outcome> {
    let i = get(c, "inputs")?;
    let settings = Settings {
        legacy_scale_up_factor: whole(i, "scale_up_limit_factor")?,
        legacy_scale_up_minimum: whole(i, "scale_up_limit_minimum")?,
        ..Settings::DEFAULT
    };
    let mut h = Hist::new();
    loaded(h.load(true, &[], &[], &[]))?;
    let mut conditions = Conditions::new();
    let n = normalize::legacy(
        &mut h,
        &settings,
        &mut conditions,
        Bounds {
            current: int32(i, "current_replicas")?,
            min: int32(i, "min_replicas")?,
            max: int32(i, "max_replicas")?,
            now: Instant(0),
        },
        int32(i, "desired_replicas")?,
    );
    let e = get(c, "expect")?;
    let mut diff = Diff::default();
    diff.eq("replicas", int32(e, "replicas")?, n.replicas);
    diff.eq("reason", text(e, "reason")?, n.limit.as_str());
    diff.outcome()
}

fn run_behavior_defaulting(c: &'static Value) -> R<Outcome> {
    let i = get(c, "inputs")?;
    let rules = scaling_rules(get(i, "rules_specified")?)?;
    let up = match text(i, "direction")? {
        "up" => true,
        "down" => false,
        other => return Err(format!("unknown direction {other:?}")),
    };
    let b = resolve_behavior(&if up {
        Behavior {
            scale_up: Some(rules),
            scale_down: None,
        }
    } else {
        Behavior {
            scale_up: None,
            scale_down: Some(rules),
        }
    });
    let got = if up { b.scale_up } else { b.scale_down };
    let e = get(c, "expect")?;
    let mut diff = Diff::default();
    diff.eq("policies", policies(list(e, "policies")?)?, got.policies);
    diff.eq(
        "stabilization_window_s",
        opt_int32(e, "stabilization_window_s")?,
        got.stabilization_window_seconds,
    );
    diff.eq(
        "select_policy",
        select_policy(text(e, "select_policy")?)?,
        got.select_policy,
    );
    diff.eq("tolerance", None, got.tolerance);
    diff.outcome()
}

fn run_build_quantity(c: &'static Value) -> R<Outcome> {
    let i = get(c, "inputs")?;
    let format = if text(i, "resource_name")? == "memory" {
        Format::BinarySI
    } else {
        Format::DecimalSI
    };
    let q = build_quantity_milli(int(i, "raw_proposal_milli")?, format);
    let e = get(c, "expect")?;
    let mut diff = Diff::default();
    diff.eq("value_milli", int(e, "value_milli")?, q.milli_value());
    diff.eq("format", text(e, "format")?, q.format().as_str());
    diff.outcome()
}

// ---------------------------------------------------------------------------------------------
// normalization.json: controller scenarios.

/// A label selector of equality terms (`k=v`, `k==v`, `k!=v`); `None` if it does not parse as
/// one (the only selectors the vectors use).
fn parse_selector(s: &str) -> Option<Vec<(String, bool, String)>> {
    let ok = |t: &str| {
        !t.is_empty()
            && t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-/".contains(&b))
    };
    let mut out = Vec::new();
    for term in s.split(',') {
        let term = term.trim();
        let (k, eq, v) = if let Some((k, v)) = term.split_once("!=") {
            (k, false, v)
        } else if let Some((k, v)) = term.split_once("==") {
            (k, true, v)
        } else {
            let (k, v) = term.split_once('=')?;
            (k, true, v)
        };
        if !ok(k.trim()) || !(v.trim().is_empty() || ok(v.trim())) {
            return None;
        }
        out.push((k.trim().to_string(), eq, v.trim().to_string()));
    }
    Some(out)
}

/// A controller scenario's metric target. A `type` of null (or no target) is a target without
/// a type, as upstream's harness builds when a case sets no CPU target and no metric (the API
/// would reject it; the controller evaluates nothing while the replica count is outside
/// min/max, and fails the metric inside).
fn controller_target(t: Option<&'static Value>) -> R<MetricTarget> {
    let Some(t) = t.filter(|t| !t.is_null()) else {
        return Ok(typeless_target(None, None, None));
    };
    let mut target = typeless_target(
        opt_int(t, "value_milli")?,
        opt_int(t, "average_value_milli")?,
        opt_int32(t, "average_utilization")?,
    );
    target.type_ = match opt_text(t, "type")? {
        None => None,
        Some("Utilization") => Some(MetricTargetType::Utilization),
        Some("Value") => Some(MetricTargetType::Value),
        Some("AverageValue") => Some(MetricTargetType::AverageValue),
        Some(other) => return Err(format!("unknown target type {other:?}")),
    };
    Ok(target)
}

fn identifier(m: &'static Value) -> R<MetricIdentifier<'static>> {
    Ok(MetricIdentifier {
        name: text(m, "name")?,
        selector: selector_text(m.get("selector"))?,
        selector_invalid: false,
    })
}

/// A controller-scenario metric spec; `Ok(None)` for a source type the API does not know.
fn controller_metric(m: &'static Value) -> R<Option<MetricSpec<'static>>> {
    Ok(Some(match text(m, "type")? {
        "Resource" => {
            let r = get(m, "resource")?;
            MetricSpec::resource(text(r, "name")?, controller_target(r.get("target"))?)
        }
        "ContainerResource" => {
            let r = get(m, "container_resource")?;
            MetricSpec::container_resource(
                text(r, "name")?,
                text(r, "container")?,
                controller_target(r.get("target"))?,
            )
        }
        "Pods" => {
            let p = get(m, "pods")?;
            MetricSpec::pods(
                identifier(get(p, "metric")?)?,
                controller_target(p.get("target"))?,
            )
        }
        "Object" => {
            let o = get(m, "object")?;
            let d = get(o, "described_object")?;
            MetricSpec::object(
                CrossVersionObjectReference {
                    kind: text(d, "kind")?,
                    name: text(d, "name")?,
                    api_version: text(d, "api_version")?,
                },
                identifier(get(o, "metric")?)?,
                controller_target(o.get("target"))?,
            )
        }
        "External" => {
            let x = get(m, "external")?;
            MetricSpec::external(
                identifier(get(x, "metric")?)?,
                controller_target(x.get("target"))?,
            )
        }
        _ => return Ok(None),
    }))
}

fn controller_pod(p: &'static Value) -> R<Pod<'static>> {
    let ready = opt_flag(p, "ready")?.map(|r| -> R<ReadyCondition> {
        Ok(ReadyCondition {
            status: if r {
                ConditionStatus::True
            } else {
                ConditionStatus::False
            },
            last_transition: opt_int(p, "ready_transition_time_s")?.map(at),
        })
    });
    Ok(Pod {
        name: text(p, "name")?,
        phase: phase(opt_text(p, "phase")?)?,
        ready: ready.transpose()?,
        start_time: opt_int(p, "start_time_s")?.map(at),
        deleted: flag(p, "deleted")? || !is_null(p, "deletion_timestamp_s"),
        containers: fixed_containers(obj(p, "requests_milli")?, "cpu")?,
        requests: None,
    })
}

/// Samples in pod order plus orphans, from `(pod name, sample)` entries.
fn pod_samples(
    pods: &[Pod<'static>],
    entries: Vec<(&'static str, Sample<'static>)>,
) -> MetricValues<'static> {
    let per_pod = pods
        .iter()
        .map(|p| entries.iter().find(|(n, _)| *n == p.name).map(|&(_, s)| s))
        .collect();
    let orphans = entries
        .iter()
        .filter(|(n, _)| !pods.iter().any(|p| p.name == *n))
        .map(|&(_, s)| s)
        .collect();
    MetricValues::Pods(PodSamples {
        per_pod: leak(per_pod),
        orphans: leak(orphans),
    })
}

/// One pod's entry of the fake resource metrics API (a PodMetrics item) as the metrics client
/// reads it (docs/spec/metrics.md#metrics-apis); its containers are those listed for any resource.
/// Resource metrics: the sum of the containers' usage of `key`'s resource, no sample when the entry
/// lists no container or one lacks that resource. ContainerResource metrics: the entry whole, in
/// which the engine looks the named container up (an entry without it is a pod without a sample, as
/// upstream's since PR #127193, while the API still counts as having answered).
fn resource_sample(
    e: &'static Value,
    key: &str,
    container: Option<&'static str>,
) -> R<Option<Sample<'static>>> {
    let containers = match opt_obj(e, key)? {
        Some(m) => usages(m)?,
        None => &[],
    };
    let mut listed: Vec<&str> = containers.iter().map(|u| u.name).collect();
    for other in ["cpu_milli", "memory_milli"] {
        for k in opt_obj(e, other)?.into_iter().flat_map(|m| m.keys()) {
            if !listed.contains(&k.as_str()) {
                listed.push(k);
            }
        }
    }
    let value = match container {
        Some(name) => containers.iter().find(|u| u.name == name).map(|u| u.milli),
        None => {
            (!listed.is_empty() && listed.len() == containers.len()).then(|| sum_usage(containers))
        }
    };
    if value.is_none() && container.is_none() {
        return Ok(None);
    }
    entry_sample(e, value, ("timestamp_s", "window_s"), containers).map(Some)
}

/// What the fake metrics clients return for one metric of the HPA.
fn controller_values(
    spec: &MetricSpec<'static>,
    sources: &'static Value,
    pods: &[Pod<'static>],
) -> R<MetricValues<'static>> {
    let failed = |src: &'static Value, what: &'static str| -> R<Option<MetricValues<'static>>> {
        Ok(flag(src, "error")?.then_some(MetricValues::Error(what)))
    };
    match spec.type_ {
        Some(MetricSourceType::Resource) | Some(MetricSourceType::ContainerResource) => {
            let src = get(sources, "resource")?;
            if let Some(v) = failed(src, "the fake resource metrics client failed")? {
                return Ok(v);
            }
            let resource = spec
                .resource
                .map(|r| r.name)
                .or(spec.container_resource.map(|r| r.name))
                .ok_or("resource metric without source")?;
            let key = match resource {
                "cpu" => "cpu_milli",
                "memory" => "memory_milli",
                other => return Err(format!("no fake metrics for resource {other:?}")),
            };
            let container = spec.container_resource.map(|r| r.container);
            let mut entries = Vec::new();
            for e in list(src, "pods")? {
                if let Some(sample) = resource_sample(e, key, container)? {
                    entries.push((text(e, "pod")?, sample));
                }
            }
            Ok(pod_samples(pods, entries))
        }
        Some(MetricSourceType::Pods) => {
            let src = get(sources, "custom_pods")?;
            if let Some(v) = failed(src, "the fake custom metrics client failed")? {
                return Ok(v);
            }
            let name = spec.pods.map(|p| p.metric.name).unwrap_or_default();
            let mut entries = Vec::new();
            for e in list(src, "items")? {
                // A null value: the adapter has no value for that pod.
                if text(e, "metric")? != name || is_null(e, "value_milli") {
                    continue;
                }
                entries.push((
                    text(e, "pod")?,
                    Sample {
                        milli: int(e, "value_milli")?,
                        timestamp: at(int(e, "timestamp_s")?),
                        // The metrics client's default window when WindowSeconds is unset.
                        window: secs(opt_int(e, "window_s")?.unwrap_or(60)),
                        containers: &[],
                    },
                ));
            }
            Ok(pod_samples(pods, entries))
        }
        Some(MetricSourceType::Object) => {
            let src = get(sources, "custom_object")?;
            if let Some(v) = failed(src, "the fake custom metrics client failed")? {
                return Ok(v);
            }
            let name = spec.object.map(|o| o.metric.name).unwrap_or_default();
            if text(src, "metric")? != name {
                return Err(format!(
                    "custom_object serves {:?}, not {name:?}",
                    text(src, "metric")?
                ));
            }
            Ok(MetricValues::Object(int(src, "value_milli")?))
        }
        Some(MetricSourceType::External) => {
            let src = get(sources, "external")?;
            if let Some(v) = failed(src, "the fake external metrics client failed")? {
                return Ok(v);
            }
            let name = spec.external.map(|x| x.metric.name).unwrap_or_default();
            let mut values = Vec::new();
            for e in list(src, "items")? {
                if text(e, "metric")? == name {
                    values.push(int(e, "value_milli")?);
                }
            }
            Ok(MetricValues::External(leak(values)))
        }
        // An unknown source type fails before any metrics client is asked.
        None => Ok(MetricValues::External(&[])),
    }
}

fn run_controller(c: &'static Value) -> R<Outcome> {
    let i = get(c, "inputs")?;
    let Some(hpa_v) = i.get("hpa") else {
        let n = opt_int(i, "hpa_count")?.unwrap_or(0);
        return na(format!(
            "{n} HPAs at once is a controller throughput test (template schema; upstream asserts \
             only that every HPA gets a status update within 15 s and the HPA-count gauge)"
        ));
    };
    let faults = get(i, "api_faults")?;
    if opt_text(faults, "scale_get")?.is_some() {
        return na(
            "reading the scale subresource fails (FailedGetScale): only a Kubernetes API \
             client can fail there; the engine is handed the replica counts",
        );
    }
    if let Some(f) = opt_text(faults, "hpa_status_update")? {
        return na(format!(
            "the HPA status update fails ({f}): the status write is the controller's"
        ));
    }
    let scale = get(i, "scale")?;
    let selector = text(scale, "selector")?;
    if selector.is_empty() {
        return na(
            "the scale subresource has no selector (InvalidSelector): selecting the pods is \
             the caller's job, the engine is handed the selected pods",
        );
    }
    let Some(selector) = parse_selector(selector) else {
        return na(format!(
            "the scale selector {selector:?} does not parse (InvalidSelector): selector parsing \
             is the caller's job, the engine is handed the selected pods"
        ));
    };
    let ctl = get(i, "controller")?;
    if let Some(other) = list(ctl, "registered_hpa_selectors")?.first() {
        return na(format!(
            "another HPA ({}) is registered with a selector that may overlap \
             (AmbiguousSelector): overlap between HPAs is a controller-wide check",
            text(other, "hpa")?
        ));
    }
    let mut metrics = Vec::new();
    // A source type the API does not know is a metric without type (`MetricSpec::default()`):
    // validation rejects it, a stored object runs with InvalidMetricSourceType.
    let mut unknown_type = false;
    for m in list(hpa_v, "metrics")? {
        match controller_metric(m)? {
            Some(spec) => metrics.push(spec),
            None => {
                unknown_type = true;
                metrics.push(MetricSpec::default());
            }
        }
    }
    let scale_update = opt_text(faults, "scale_update")?;
    let update_succeeds = match scale_update {
        None => true,
        // The first update returns 409 Conflict; upstream re-reads the scale and retries.
        Some("conflict_once") => true,
        Some("error") => false,
        Some(other) => return Err(format!("unknown scale_update fault {other:?}")),
    };

    // Settings and gates.
    let mut scale_to_zero = false;
    let mut configurable_tolerance = true;
    if let Some(gates) = opt_obj(ctl, "feature_gates")? {
        for (k, v) in gates {
            let on = v.as_bool().ok_or("feature gate value is not a boolean")?;
            match k.as_str() {
                "HPAScaleToZero" => scale_to_zero = on,
                "HPAConfigurableTolerance" => configurable_tolerance = on,
                // Spec changes enqueue immediately / observedGeneration: bookkeeping only.
                "HPAGeneration" => {}
                other => return Err(format!("unknown feature gate {other:?}")),
            }
        }
    }
    let settings = Settings {
        tolerance: tolerance(get(ctl, "tolerance")?, "tolerance")?,
        downscale_stabilization_window: secs(int(ctl, "downscale_stabilization_window_s")?),
        cpu_initialization_period: secs(int(ctl, "cpu_initialization_period_s")?),
        initial_readiness_delay: secs(int(ctl, "delay_of_initial_readiness_status_s")?),
        scale_to_zero,
        configurable_tolerance,
        arithmetic: Arithmetic::Kubernetes,
        legacy_scale_up_factor: whole(ctl, "scale_up_limit_factor")?,
        legacy_scale_up_minimum: whole(ctl, "scale_up_limit_minimum")?,
    };

    // The HPA.
    let mut diff = Diff::default();
    let behavior = match hpa_v.get("behavior_specified") {
        Some(b) if !b.is_null() => Some(behavior_specified(b)?),
        _ => None,
    };
    let expected_behavior = match hpa_v.get("behavior") {
        Some(b) if !b.is_null() => Some(resolved_behavior(b)?),
        _ => None,
    };
    diff.eq(
        "behavior after API defaulting",
        expected_behavior,
        behavior.as_ref().map(resolve_behavior),
    );
    let target = get(hpa_v, "scale_target_ref")?;
    let min_replicas = opt_int32(hpa_v, "min_replicas")?;
    let spec: &'static HpaSpec<'static> = Box::leak(Box::new(HpaSpec {
        min_replicas,
        max_replicas: int32(hpa_v, "max_replicas")?,
        metrics: leak(metrics),
        behavior,
        scale_target_ref: Some(CrossVersionObjectReference {
            kind: text(target, "kind")?,
            name: text(target, "name")?,
            api_version: text(target, "api_version")?,
        }),
    }));
    // Upstream's test objects never pass the API server. Validation is run as for an object
    // already stored with `minReplicas: 0` (which the API keeps when HPAScaleToZero is turned
    // off later), i.e. with the gate's lower bound 0; the case's gates then drive the reconcile.
    let api_rejects = min_replicas == Some(0)
        && !spec.metrics.iter().any(|m| {
            matches!(
                m.type_,
                Some(MetricSourceType::Object) | Some(MetricSourceType::External)
            )
        });
    let validation_settings = Settings {
        scale_to_zero: true,
        ..settings
    };
    // A target without a type (upstream's harness builds one when a case sets neither a CPU
    // target nor a metric): validation rejects it, the stored object runs.
    let typeless = spec.metrics.iter().any(|m| {
        let target = match m.type_ {
            Some(MetricSourceType::Resource) => m.resource.map(|r| r.target),
            Some(MetricSourceType::ContainerResource) => m.container_resource.map(|r| r.target),
            Some(MetricSourceType::Pods) => m.pods.map(|p| p.target),
            Some(MetricSourceType::Object) => m.object.map(|o| o.target),
            Some(MetricSourceType::External) => m.external.map(|x| x.target),
            None => None,
        };
        target.is_some_and(|t| t.type_.is_none())
    });
    // What validation must reject (the text its error holds) in an object that upstream's
    // fake client stores anyway: the controller then runs it.
    let stored = match (unknown_type, typeless) {
        (true, _) => Some(("type", "a metric without a source type")),
        (false, true) => Some((
            "must specify a metric target type",
            "a metric target without a type",
        )),
        (false, false) => None,
    };
    let hpa = match (Hpa::new(spec, &validation_settings), api_rejects) {
        (Err(e), _) if stored.is_some() => {
            if let Some((text, what)) = stored.filter(|(text, _)| !e.to_string().contains(text)) {
                return Ok(Outcome::Fail(format!(
                    "Hpa::new rejected {what} without saying {text:?}: {e}"
                )));
            }
            Hpa::from_stored(spec)
        }
        (Ok(_), _) if stored.is_some() => {
            let what = stored.map(|(_, what)| what).unwrap_or_default();
            return Ok(Outcome::Fail(format!("Hpa::new accepted {what}")));
        }
        (Ok(h), false) => h,
        // The API server rejects this object; upstream's fake client stores it anyway. Check
        // the rejection, then run it as a stored object, as the controller would.
        (Err(e), true)
            if e.to_string()
                .contains("must specify at least one Object or External metric") =>
        {
            Hpa::from_stored(spec)
        }
        (Ok(_), true) => {
            return Ok(Outcome::Fail(
                "Hpa::new accepted minReplicas 0 without an Object or External metric, which \
                 the API rejects"
                    .into(),
            ))
        }
        (Err(e), _) => return Ok(Outcome::Fail(format!("Hpa::new rejected the HPA: {e}"))),
    };

    // Pods (the fake lister returns the pods matching the scale's selector) and metrics.
    let mut pods = Vec::new();
    for p in list(i, "pods")? {
        let labels = obj(p, "labels")?;
        let selected = selector.iter().all(|(k, eq, v)| {
            let has = labels.get(k).and_then(Value::as_str) == Some(v.as_str());
            has == *eq
        });
        if selected {
            pods.push(controller_pod(p)?);
        }
    }
    let pods = leak(pods);
    let sources = get(i, "metric_sources")?;
    let mut values = Vec::new();
    for m in spec.metrics {
        values.push(controller_values(m, sources, pods)?);
    }
    let values = leak(values);

    // The controller's state for this HPA.
    let mut a: Autoscaler = Autoscaler::new();
    let ups = event_list(list(ctl, "scale_up_events")?)?;
    let downs = event_list(list(ctl, "scale_down_events")?)?;
    match opt_list(ctl, "recommendations")? {
        // No history for the key: the first reconcile records {spec replicas, now}.
        None => {
            if !ups.is_empty() || !downs.is_empty() {
                loaded(a.load_history(false, &[], &ups, &downs))?;
            }
        }
        // An existing (possibly empty) history.
        Some(recs) => loaded(a.load_history(true, &timed(recs, "replicas")?, &ups, &downs))?,
    }
    let st = get(hpa_v, "status")?;
    a.status_mut().desired_replicas = int32(st, "desired_replicas")?;
    a.status_mut().last_scale_time = opt_int(st, "last_scale_time_s")?.map(at);
    for cond in list(st, "conditions")? {
        let (t, s, r) = (
            condition_type(text(cond, "type")?)?,
            condition_status(get(cond, "status")?)?,
            reason(text(cond, "reason")?)?,
        );
        a.status_mut().conditions.set(t, s, r);
    }

    // Reconcile (several times at the resync period when upstream asserts several).
    let e = get(c, "expect")?;
    let monitor = e.get("monitor").filter(|m| !m.is_null());
    let reconciles = match monitor {
        Some(m) => opt_int(m, "min_reconciliations")?.unwrap_or(1).max(1),
        None => 1,
    };
    let resync_ms = int(ctl, "resync_period_ms")?;
    let mut current = int32(scale, "spec_replicas")?;
    let status_replicas = int32(scale, "status_replicas")?;
    let mut last: Option<(Decision<'static>, bool)> = None;
    for k in 0..reconciles {
        let obs: &'static Observation<'static> = Box::leak(Box::new(Observation {
            now: Instant(k.saturating_mul(resync_ms)),
            replicas: current,
            status_replicas,
            pods,
            metrics: values,
        }));
        let d = a
            .evaluate(&hpa, &settings, obs)
            .map_err(|e| format!("evaluate refused the input: {e}"))?;
        let mut updated = false;
        if d.rescale {
            if update_succeeds {
                a.rescale_succeeded();
                updated = true;
                current = d.desired_replicas;
            } else {
                a.rescale_failed();
            }
        }
        last = Some((d, updated));
    }
    let (d, updated) = last.ok_or("no reconcile ran")?;

    diff.eq(
        "desired_replicas",
        int32(e, "desired_replicas")?,
        a.status().desired_replicas,
    );
    diff.eq("scale_updated", flag(e, "scale_updated")?, updated);
    let mut want = Vec::new();
    for cond in list(e, "conditions")? {
        want.push(format!(
            "{}={}/{}",
            text(cond, "type")?,
            condition_status(get(cond, "status")?)?.as_str(),
            text(cond, "reason")?
        ));
    }
    let have: Vec<String> = a
        .status()
        .conditions
        .iter()
        .map(|c| {
            format!(
                "{}={}/{}",
                c.type_.as_str(),
                c.status.as_str(),
                c.reason.as_str()
            )
        })
        .collect();
    diff.eq("conditions", want, have);
    if let Some(util) = opt_int32(e, "cpu_utilization_percent")? {
        let got = d.metrics.iter().find_map(|o| match o {
            MetricOutcome::Proposal(p) if p.spec.resource.is_some_and(|r| r.name == "cpu") => {
                p.average_utilization
            }
            _ => None,
        });
        diff.eq("cpu_utilization_percent", Some(util), got);
    }
    if let Some(events) = opt_list(e, "events")? {
        let mut want = Vec::new();
        for ev in events {
            want.push(format!(
                "{} {}: {}",
                text(ev, "type")?,
                text(ev, "reason")?,
                text(ev, "message")?
            ));
        }
        let have: Vec<String> = if updated {
            vec![format!(
                "Normal SuccessfulRescale: New size: {}; reason: {}",
                d.desired_replicas, d.reason
            )]
        } else {
            Vec::new()
        };
        diff.eq("events", want, have);
    }
    diff.outcome()
}

/// Why a controller scenario's main assertion is one the engine cannot make (printed as a
/// `partial` line; the rest of the case is still compared).
fn controller_only_note(c: &Value) -> Option<String> {
    let e = c.get("expect")?;
    let mut parts = Vec::new();
    if e.get("status_updated").and_then(Value::as_bool) == Some(false) {
        parts.push(
            "status-update suppression (status_updated = false) is the controller's write path",
        );
    }
    if let Some(m) = e.get("monitor") {
        if m.get("reconciliation_duration_recorded").is_some()
            || m.get("min_reconciliations").is_some()
        {
            parts
                .push("the monitor metrics (reconciliation counts/durations) are the controller's");
        }
    }
    (!parts.is_empty()).then(|| {
        format!(
            "{}; desired replicas, scale update and conditions compared",
            parts.join("; ")
        )
    })
}

// ---------------------------------------------------------------------------------------------
// Driver.

#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
    na: usize,
}

#[derive(Default)]
struct Report {
    /// (file label, family) -> counts, in first-seen order.
    families: Vec<((String, String), Tally)>,
    failures: Vec<String>,
    lines: Vec<String>,
}

impl Report {
    fn tally(&mut self, file: &str, family: &str) -> &mut Tally {
        let key = (file.to_string(), family.to_string());
        let idx = match self.families.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                self.families.push((key, Tally::default()));
                self.families.len() - 1
            }
        };
        &mut self.families[idx].1
    }

    fn record(&mut self, file: &str, family: &str, name: &str, outcome: R<Outcome>) {
        let outcome =
            outcome.unwrap_or_else(|e| Outcome::Fail(format!("cannot map the vector: {e}")));
        match outcome {
            Outcome::Pass => self.tally(file, family).passed += 1,
            Outcome::Fail(msg) => {
                self.tally(file, family).failed += 1;
                self.failures
                    .push(format!("FAIL {file} {family} {name}: {msg}"));
            }
            Outcome::NotApplicable(reason) => {
                self.tally(file, family).na += 1;
                self.lines.push(format!("n/a {name}: {reason}"));
            }
        }
    }

    fn error(&mut self, file: &str, family: &str, msg: String) {
        self.tally(file, family).failed += 1;
        self.failures.push(format!("FAIL {file} {family}: {msg}"));
    }
}

fn load(path: &Path) -> R<&'static Value> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not valid JSON: {e}", path.display()))?;
    Ok(Box::leak(Box::new(v)))
}

fn case_name(c: &Value) -> String {
    c.get("name")
        .and_then(Value::as_str)
        .unwrap_or("<unnamed>")
        .to_string()
}

fn run_replica_calc_file(report: &mut Report, label: &str, path: &Path) {
    let root = match load(path) {
        Ok(v) => v,
        Err(e) => return report.error(label, "file", e),
    };
    for (family, key) in [("cases", "cases"), ("aux_cases", "aux_cases")] {
        let cases = match root.get(key) {
            None | Some(Value::Null) => continue,
            Some(Value::Array(a)) => a,
            Some(_) => {
                report.error(label, family, format!("`{key}` is not a list"));
                continue;
            }
        };
        for c in cases {
            let name = case_name(c);
            let (fam, outcome) = if key == "cases" {
                ("cases".to_string(), run_replica_calc_case(c))
            } else {
                let kind = c.get("kind").and_then(Value::as_str).unwrap_or("");
                let outcome = match kind {
                    "group_pods" => run_group_pods(c),
                    "calculate_requests" => run_calculate_requests(c),
                    other => Err(format!("unknown aux case kind {other:?}")),
                };
                (format!("aux_cases/{kind}"), outcome)
            };
            report.record(label, &fam, &name, outcome);
        }
    }
    for key in root
        .as_object()
        .map(|m| m.keys().collect::<Vec<_>>())
        .unwrap_or_default()
    {
        if !["source", "harness_defaults", "cases", "aux_cases"].contains(&key.as_str()) {
            report.error(
                label,
                key,
                format!("unknown top-level key `{key}`: no runner for it"),
            );
        }
    }
}

fn run_family_case(family: &str, c: &'static Value) -> R<Outcome> {
    match family {
        "stabilize_recommendation_with_behaviors" => run_stabilize_with_behaviors(c),
        "scaling_with_rules" => run_scaling_with_rules(c),
        "scale_limits" => run_scale_limits(c),
        "store_scale_events" => run_store_scale_events(c),
        "normalize_desired_replicas_legacy" => run_normalize_legacy(c),
        "convert_desired_replicas_with_rules" => run_convert_with_rules(c),
        "behavior_defaulting" => run_behavior_defaulting(c),
        "build_quantity" => run_build_quantity(c),
        "controller_scenarios" | "controller_scenario" => run_controller(c),
        other => Err(format!("no runner for family {other:?}")),
    }
}

fn run_normalization_file(report: &mut Report, label: &str, path: &Path) {
    let root = match load(path) {
        Ok(v) => v,
        Err(e) => return report.error(label, "file", e),
    };
    let Some(families) = root.get("families").and_then(Value::as_object) else {
        return report.error(
            label,
            "families",
            "`families` is missing or not an object".into(),
        );
    };
    for (family, cases) in families {
        let Some(cases) = cases.as_array() else {
            report.error(label, family, "not a list".into());
            continue;
        };
        for c in cases {
            let name = case_name(c);
            let kind = if family == "superseded_cases" {
                c.get("kind").and_then(Value::as_str).unwrap_or("")
            } else {
                family.as_str()
            };
            let outcome = run_family_case(kind, c);
            if matches!(outcome, Ok(Outcome::Pass) | Ok(Outcome::Fail(_)))
                && (kind == "controller_scenarios" || kind == "controller_scenario")
            {
                if let Some(note) = controller_only_note(c) {
                    report.lines.push(format!("partial {name}: {note}"));
                }
            }
            report.record(label, family, &name, outcome);
        }
    }
}

#[test]
fn conformance() {
    let started = std::time::Instant::now();
    let mut report = Report::default();
    let mut dirs: Vec<(String, PathBuf)> = ["tests/conformance", "tests/conformance/shapes"]
        .into_iter()
        .map(|d| (d.into(), PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(d)))
        .collect();
    if let Some(dir) = std::env::var_os("HPA_CONFORMANCE_DIR") {
        let dir = PathBuf::from(dir);
        dirs.push((dir.display().to_string(), dir));
    }
    for (dir_label, dir) in &dirs {
        for file in ["replica_calc.json", "normalization.json"] {
            let path = dir.join(file);
            let label = format!("{dir_label}/{file}");
            if !path.is_file() {
                report.error(
                    &label,
                    "file",
                    format!(
                        "{file} is missing from {} (HPA_CONFORMANCE_DIR must hold both files)",
                        dir.display()
                    ),
                );
                continue;
            }
            if file == "replica_calc.json" {
                run_replica_calc_file(&mut report, &label, &path);
            } else {
                run_normalization_file(&mut report, &label, &path);
            }
        }
    }

    let mut out = String::new();
    for line in &report.lines {
        let _ = writeln!(out, "{line}");
    }
    let (mut passed, mut failed, mut na) = (0, 0, 0);
    for ((file, family), t) in &report.families {
        let _ = writeln!(
            out,
            "{file} {family}: {} passed, {} failed, {} not applicable",
            t.passed, t.failed, t.na
        );
        passed += t.passed;
        failed += t.failed;
        na += t.na;
    }
    for f in &report.failures {
        let _ = writeln!(out, "{f}");
    }
    let _ = writeln!(out, "({:.1} s)", started.elapsed().as_secs_f64());
    let _ = writeln!(out, "{passed} passed, {failed} failed");
    let _ = writeln!(out, "{na} not applicable");
    // Straight to stdout: the test harness captures `print!` but not direct writes.
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(out.as_bytes());
    let _ = stdout.flush();
    assert!(
        report.failures.is_empty(),
        "{failed} conformance case(s) failed:\n{}",
        report.failures.join("\n")
    );
}
