//! The JSON lines `hpa replay` prints, one per step (docs/spec/trace-format.md#output).

use hpa::conditions::Conditions;
use hpa::digest::Digest;
use hpa::metrics::{reading, MetricOutcome, MetricProposal, Reading};
use hpa::quantity::{build_quantity_milli, Format};
use hpa::spec::MetricSourceType;
use hpa::{Autoscaler, Decision, LimitedBy, Observation, Settings, Status};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use crate::trace::Trace;

/// One output line. Field order is the format's: the required fields first.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepLine {
    at: i64,
    replicas: i32,
    desired_replicas: i32,
    rescale: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(serialize_with = "conditions_map")]
    conditions: Conditions,
    metrics: Vec<MetricLine>,
    limited_by: &'static str,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    history_overflowed: bool,
}

/// One metric's entry: its proposal and current value, or its error.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricLine {
    #[serde(skip_serializing_if = "Option::is_none")]
    replicas: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    current_average_utilization: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    current_average_value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    current_value: Option<String>,
    /// A reading upstream's arithmetic took as it is (`negative`, `treatedAsOverflow`);
    /// absent when plain.
    #[serde(skip_serializing_if = "Option::is_none")]
    reading: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

fn conditions_map<S: Serializer>(conditions: &Conditions, s: S) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(None)?;
    for c in conditions.iter() {
        map.serialize_entry(c.type_.as_str(), &[c.status.as_str(), c.reason.as_str()])?;
    }
    map.end()
}

/// `buildQuantity`: memory in BinarySI, everything else in DecimalSI.
fn quantity_text(p: &MetricProposal<'_>, milli: i64) -> String {
    let resource = match p.spec.type_ {
        Some(MetricSourceType::Resource) => p.spec.resource.map(|r| r.name),
        Some(MetricSourceType::ContainerResource) => p.spec.container_resource.map(|r| r.name),
        _ => None,
    };
    let format = if resource == Some("memory") {
        Format::BinarySI
    } else {
        Format::DecimalSI
    };
    build_quantity_milli(milli, format).to_string()
}

fn metric_line(outcome: &MetricOutcome<'_>, reading: Reading) -> MetricLine {
    match outcome {
        MetricOutcome::Proposal(p) => MetricLine {
            replicas: Some(p.replicas),
            current_average_utilization: p.average_utilization,
            current_average_value: p.average_value.map(|v| quantity_text(p, v)),
            current_value: p.value.map(|v| quantity_text(p, v)),
            reading: (reading != Reading::Plain).then_some(reading.as_str()),
            error: None,
        },
        MetricOutcome::Error(e) => MetricLine {
            replicas: None,
            current_average_utilization: None,
            current_average_value: None,
            current_value: None,
            reading: None,
            error: Some(e.to_string()),
        },
    }
}

fn limited_by(l: LimitedBy) -> &'static str {
    match l {
        LimitedBy::Nothing => "nothing",
        LimitedBy::Tolerance => "tolerance",
        LimitedBy::Stabilization => "stabilization",
        LimitedBy::RatePolicy => "ratePolicy",
        LimitedBy::MinReplicas => "minReplicas",
        LimitedBy::MaxReplicas => "maxReplicas",
        LimitedBy::InvalidMetrics => "invalidMetrics",
        LimitedBy::ScalingDisabled => "scalingDisabled",
    }
}

impl StepLine {
    /// The line for a step: the decision, and the status after the rescale was reported;
    /// `obs` and `settings`, what was evaluated, for each metric's [`Reading`].
    pub fn new(
        decision: &Decision<'_>,
        status: &Status,
        obs: &Observation<'_>,
        settings: &Settings,
    ) -> StepLine {
        let reason = decision.reason.to_string();
        StepLine {
            at: decision.at.millis(),
            replicas: decision.current_replicas,
            desired_replicas: status.desired_replicas,
            rescale: decision.rescale,
            // Upstream's rescale reason, shown when the step rescales.
            reason: (decision.rescale && !reason.is_empty()).then_some(reason),
            conditions: status.conditions.clone(),
            metrics: decision
                .metrics
                .iter()
                .zip(obs.metrics)
                .map(|(m, values)| {
                    let spec = match m {
                        MetricOutcome::Proposal(p) => p.spec,
                        MetricOutcome::Error(e) => e.spec,
                    };
                    metric_line(m, reading(spec, values, obs, settings))
                })
                .collect(),
            limited_by: limited_by(decision.limited_by),
            history_overflowed: decision.history_overflowed,
        }
    }
}

/// `hpa replay`: every step's JSON line, each decision also folded into `digest` (for
/// `--digest`). Shared with the tests that judge the binary's output (tests/upstream-traces).
///
/// # Errors
///
/// The engine refused a step (see [`Trace::replay_from`]).
pub fn replay_lines(trace: &Trace, digest: &mut Digest) -> Result<Vec<String>, String> {
    replay_lines_from(trace, &mut trace.new_autoscaler(), digest)
}

/// [`replay_lines`] from `autoscaler` (restored from a snapshot by `--restore-state`), which is
/// left as the last step left it (for `--save-state`).
///
/// # Errors
///
/// The engine refused a step (see [`Trace::replay_from`]).
pub fn replay_lines_from(
    trace: &Trace,
    autoscaler: &mut Autoscaler,
    digest: &mut Digest,
) -> Result<Vec<String>, String> {
    let mut lines = Vec::with_capacity(trace.steps());
    trace.replay_from(autoscaler, |_, step, decision, _, status| {
        digest.step(decision, status);
        let line = StepLine::new(decision, status, &step.observation, &trace.settings);
        lines.push(serde_json::to_string(&line).map_err(|e| e.to_string())?);
        Ok(())
    })?;
    Ok(lines)
}
