//! normalization.json: controller scenarios, one reconcile (or several) of an HPA against
//! fake Kubernetes clients, through `Autoscaler::evaluate`.

use hpa::autoscaler::{Autoscaler, Decision};
use hpa::conditions::{ConditionType, Reason};
use hpa::defaults::{resolve_behavior, Hpa};
use hpa::input::Observation;
use hpa::metrics::MetricOutcome;
use hpa::settings::{Arithmetic, Settings};
use hpa::spec::{CrossVersionObjectReference, HpaSpec, MetricSourceType, MetricSpec};
use hpa::time::Instant;
use serde_json::Value;
use testkit::conformance::*;

use crate::controller_inputs::*;
use crate::rules::*;
use crate::{na, opt_list, secs, whole, Diff, Outcome};

fn condition_type(s: &str) -> R<ConditionType> {
    ConditionType::ALL
        .into_iter()
        .find(|t| t.as_str() == s)
        .ok_or_else(|| format!("condition type {s:?} unknown to the engine"))
}

fn reason(s: &str) -> R<Reason> {
    Reason::ALL
        .into_iter()
        .find(|r| r.as_str() == s)
        .ok_or_else(|| format!("condition reason {s:?} unknown to the engine"))
}

#[allow(clippy::needless_update)] // needless only without the core's optional features
pub fn run_controller(c: &'static Value) -> R<Outcome> {
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
        // The fields of optional features (`older-controllers`): the newest controller.
        ..Settings::DEFAULT
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
pub fn controller_only_note(c: &Value) -> Option<String> {
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
