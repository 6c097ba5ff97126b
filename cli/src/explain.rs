//! Human explanations of decisions, for `hpa replay` and `hpa simulate`.
//!
//! Two views:
//!
//! * **Events**, in the style of `kubectl describe hpa`: `SuccessfulRescale` with upstream's
//!   message `New size: 5; reason: cpu resource utilization (percentage of request) above
//!   target`, the per-metric `FailedGet*Metric` warnings, `FailedComputeMetricsReplicas` and
//!   `FailedRescale`. An event repeated at every step is shown once with its count, as kubectl
//!   aggregates events.
//! * **Explanations** of single steps: each metric's current value against its target, the
//!   usage ratio and the tolerance band, its proposal; the combined proposal; the
//!   stabilization bounds; the rate limit with the policy that set it and that policy's
//!   period-start replicas; min/max; the result and the rule that limited it. Everything comes
//!   from the engine's [`Decision`]: these lines describe what the engine computed, they do
//!   not compute anything themselves (the printed ratio is rounded for reading; the engine's
//!   comparison is exact).

use std::collections::HashMap;
use std::fmt::Write as _;

use hpa::autoscaler::tolerances;
use hpa::conditions::ConditionType;
use hpa::metrics::{reading, MetricOutcome, MetricProposal, Reading};
use hpa::normalize::RateLimit;
use hpa::quantity::{build_quantity_milli, Format};
use hpa::settings::Settings;
use hpa::spec::{MetricSourceType, MetricSpec, MetricTargetType, PolicyType, SelectPolicy};
use hpa::Tolerance;
use hpa::{Decision, Hpa, LimitedBy, Observation, RescaleReason};

/// One event, as `kubectl describe hpa` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    /// `Warning` when true, `Normal` otherwise.
    pub warning: bool,
    /// The event reason (`SuccessfulRescale`, ...).
    pub reason: &'static str,
    /// The event message.
    pub message: String,
}

/// The events the upstream controller records for one reconcile. `applied` says whether the
/// decided rescale succeeded.
pub fn events(decision: &Decision<'_>, applied: bool) -> Vec<Event> {
    let mut out = Vec::new();
    for outcome in &decision.metrics {
        if let MetricOutcome::Error(e) = outcome {
            out.push(Event {
                warning: true,
                reason: e.reason().as_str(),
                message: e.to_string(),
            });
        }
    }
    if decision.limited_by == LimitedBy::InvalidMetrics {
        if let Some(error) = &decision.metrics_error {
            out.push(Event {
                warning: true,
                reason: "FailedComputeMetricsReplicas",
                message: error.to_string(),
            });
        }
    }
    if decision.rescale {
        let reason = decision.reason.to_string();
        out.push(if applied {
            Event {
                warning: false,
                reason: "SuccessfulRescale",
                message: format!("New size: {}; reason: {reason}", decision.desired_replicas),
            }
        } else {
            Event {
                warning: true,
                reason: "FailedRescale",
                message: format!(
                    "New size: {}; reason: {reason}; error: the update of the scale target failed",
                    decision.desired_replicas
                ),
            }
        });
    }
    out
}

/// `1 replica`, `3 replicas`.
pub fn replicas(n: i32) -> String {
    if n == 1 {
        "1 replica".to_owned()
    } else {
        format!("{n} replicas")
    }
}

/// A time on the run's clock: `H:MM:SS`, with milliseconds when not whole (`-0:00:01.500`).
pub fn time(ms: i64) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    let abs = ms.unsigned_abs();
    let (secs, milli) = (abs / 1000, abs % 1000);
    let text = format!(
        "{sign}{}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    if milli == 0 {
        text
    } else {
        format!("{text}.{milli:03}")
    }
}

/// Durations in seconds as controller flags print them (`300s`, `1.5s`).
pub fn seconds(ms: i64) -> String {
    if ms % 1000 == 0 {
        format!("{}s", ms / 1000)
    } else {
        format!("{}s", ms as f64 / 1000.0)
    }
}

/// Events of a run, collected step by step; an event that recurs at consecutive steps is
/// merged into one row with a count.
#[derive(Clone, Debug, Default)]
pub struct EventLog {
    rows: Vec<Row>,
    /// Open row of each event and the last step it was seen at.
    open: HashMap<Event, (usize, usize)>,
}

#[derive(Clone, Debug)]
struct Row {
    first: i64,
    last: i64,
    count: usize,
    event: Event,
}

impl EventLog {
    /// Adds the events of step `step` (steps are numbered consecutively) taken at `at` ms.
    pub fn add(&mut self, step: usize, at: i64, events: Vec<Event>) {
        for event in events {
            match self.open.get_mut(&event) {
                Some((row, last_step))
                    if last_step.checked_add(1) == Some(step) || *last_step == step =>
                {
                    // `open` holds indexes of `rows`, which only grows.
                    if let Some(row) = self.rows.get_mut(*row) {
                        row.count = row.count.saturating_add(1);
                        row.last = at;
                    }
                    *last_step = step;
                }
                _ => {
                    self.open.insert(event.clone(), (self.rows.len(), step));
                    self.rows.push(Row {
                        first: at,
                        last: at,
                        count: 1,
                        event,
                    });
                }
            }
        }
    }

    /// Whether no event was recorded.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// The table, one row per (merged) event, `indent` before each line.
    pub fn render(&self, out: &mut String, indent: &str) {
        let at: Vec<String> = self.rows.iter().map(|r| time(r.first)).collect();
        let at_width = at.iter().map(String::len).max().unwrap_or(0).max(2);
        let reason_width = self
            .rows
            .iter()
            .map(|r| r.event.reason.len())
            .max()
            .unwrap_or(0)
            .max(6);
        let _ = writeln!(
            out,
            "{indent}{:at_width$}  {:7}  {:reason_width$}  Message",
            "At", "Type", "Reason"
        );
        let _ = writeln!(
            out,
            "{indent}{:at_width$}  {:7}  {:reason_width$}  -------",
            "--", "----", "------"
        );
        for (row, at) in self.rows.iter().zip(&at) {
            let kind = if row.event.warning {
                "Warning"
            } else {
                "Normal"
            };
            let _ = write!(
                out,
                "{indent}{at:at_width$}  {kind:7}  {:reason_width$}  {}",
                row.event.reason, row.event.message
            );
            if row.count > 1 {
                let _ = write!(out, " (x{} until {})", row.count, time(row.last));
            }
            out.push('\n');
        }
    }
}

/// A metric's target as the engine reads it (docs/spec/metrics.md#target-routing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// `averageUtilization` in percent of the request (Resource, ContainerResource).
    Utilization(i32),
    /// `averageValue` in milli-units: per pod for Resource, ContainerResource and Pods; the
    /// value divided by the replicas for Object and External.
    AverageValue(i64),
    /// `value` in milli-units (Object, External).
    Value(i64),
    /// No usable target (the metric fails at run time).
    Invalid,
}

/// The target the engine evaluates for `spec`.
pub fn target(spec: &MetricSpec<'_>) -> Target {
    let milli = |q: Option<hpa::Quantity>| q.map(|q| q.milli_value());
    let resource =
        |t: &hpa::spec::MetricTarget| match (milli(t.average_value), t.average_utilization) {
            (Some(v), _) => Target::AverageValue(v),
            (None, Some(p)) => Target::Utilization(p),
            _ => Target::Invalid,
        };
    match spec.type_ {
        Some(MetricSourceType::Resource) => spec
            .resource
            .map_or(Target::Invalid, |r| resource(&r.target)),
        Some(MetricSourceType::ContainerResource) => spec
            .container_resource
            .map_or(Target::Invalid, |r| resource(&r.target)),
        Some(MetricSourceType::Pods) => spec
            .pods
            .and_then(|p| milli(p.target.average_value))
            .map_or(Target::Invalid, Target::AverageValue),
        Some(MetricSourceType::Object) => match spec.object {
            Some(o) => match (
                o.target.type_,
                milli(o.target.value),
                milli(o.target.average_value),
            ) {
                (Some(MetricTargetType::Value), Some(v), _) => Target::Value(v),
                (Some(MetricTargetType::AverageValue), _, Some(v)) => Target::AverageValue(v),
                _ => Target::Invalid,
            },
            None => Target::Invalid,
        },
        Some(MetricSourceType::External) => match spec.external {
            Some(e) => match (milli(e.target.average_value), milli(e.target.value)) {
                (Some(v), _) => Target::AverageValue(v),
                (None, Some(v)) => Target::Value(v),
                _ => Target::Invalid,
            },
            None => Target::Invalid,
        },
        None => Target::Invalid,
    }
}

/// The resource a Resource or ContainerResource metric reads.
pub fn resource_name<'a>(spec: &MetricSpec<'a>) -> Option<&'a str> {
    match spec.type_ {
        Some(MetricSourceType::Resource) => spec.resource.map(|r| r.name),
        Some(MetricSourceType::ContainerResource) => spec.container_resource.map(|r| r.name),
        _ => None,
    }
}

/// A milli-value as upstream prints it for this metric (memory in binary suffixes).
pub fn quantity(spec: &MetricSpec<'_>, milli: i64) -> String {
    let format = if resource_name(spec) == Some("memory") {
        Format::BinarySI
    } else {
        Format::DecimalSI
    };
    build_quantity_milli(milli, format).to_string()
}

/// A number for reading: at most `digits` decimals, trailing zeros removed.
pub fn decimal(x: f64, digits: usize) -> String {
    let text = format!("{x:.digits$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

fn tolerance_value(t: Tolerance) -> f64 {
    let (mantissa, exp10) = t.decimal();
    mantissa as f64 * 10f64.powi(exp10)
}

/// The name, current value, target and ratio of one proposal.
fn metric_line(p: &MetricProposal<'_>, band: (f64, f64), current: i32, reading: Reading) -> String {
    let spec = p.spec;
    let name = p.name();
    let (now, goal, ratio) = match target(spec) {
        Target::Utilization(percent) => {
            let util = p.average_utilization.unwrap_or(0);
            let average = p
                .average_value
                .map(|v| format!(", average {}", quantity(spec, v)))
                .unwrap_or_default();
            (
                format!("{util}% of request{average}"),
                format!("{percent}%"),
                f64::from(util) / f64::from(percent),
            )
        }
        Target::AverageValue(t) => {
            let v = p.average_value.unwrap_or(0);
            // Over zero pods the average saturates: say so rather than print 9223372036854775807m.
            let average = if v == i64::MAX && current == 0 {
                "average over no pods".to_owned()
            } else {
                format!("average {}", quantity(spec, v))
            };
            (average, quantity(spec, t), v as f64 / t as f64)
        }
        Target::Value(t) => {
            let v = p.value.unwrap_or(0);
            (
                format!("value {}", quantity(spec, v)),
                quantity(spec, t),
                v as f64 / t as f64,
            )
        }
        Target::Invalid => (String::new(), String::new(), f64::NAN),
    };
    let outcome = if p.within_tolerance && (band.0..=band.1).contains(&ratio) {
        format!(": inside, keeps {current}")
    } else if p.within_tolerance {
        // The engine's second pass (unready pods counted as idle, missing pods filled in)
        // brought the ratio inside the band.
        format!(
            "; with the unready and missing pods counted the ratio falls inside the band: \
             keeps {current}"
        )
    } else {
        format!(" -> proposes {}", p.replicas)
    };
    // Upstream's arithmetic on out-of-the-ordinary readings, which the engine keeps.
    let reading = match reading {
        Reading::Plain => "",
        Reading::Negative => {
            " (a reading or request was negative: computed with as it is, as upstream does)"
        }
        Reading::TreatedAsOverflow => {
            " (upstream's guard took the series sum as MaxInt64: a negative entry or an int64 \
             overflow; the proposal is the largest count)"
        }
    };
    format!(
        "{name}: {now} vs target {goal}: ratio {}, tolerance band [{}, {}]{outcome}{reading}",
        decimal(ratio, 3),
        decimal(band.0, 6),
        decimal(band.1, 6),
    )
}

fn policy_text(hpa: &Hpa<'_>, limit: &RateLimit) -> String {
    let Some(behavior) = hpa.behavior() else {
        return String::new();
    };
    let rules = if limit.scale_up {
        &behavior.scale_up
    } else {
        &behavior.scale_down
    };
    let select = match rules.select_policy {
        SelectPolicy::Max => "Max",
        SelectPolicy::Min => "Min",
        SelectPolicy::Disabled => "Disabled",
    };
    match limit
        .policy
        .and_then(|i| rules.policies.get(i).map(|p| (i, p)))
    {
        Some((i, p)) => {
            let kind = match p.type_ {
                PolicyType::Pods => format!("Pods {}", p.value),
                PolicyType::Percent => format!("Percent {}", p.value),
            };
            format!(
                "{kind} per {}s from {} at the start of its period: policies[{i}], \
                 selectPolicy {select}",
                p.period_seconds,
                replicas(limit.period_start)
            )
        }
        None => format!("selectPolicy {select}"),
    }
}

/// Why `decision` (of `obs`) is what it is, one line per stage (no indentation, no trailing
/// newline).
pub fn explain(
    decision: &Decision<'_>,
    hpa: &Hpa<'_>,
    settings: &Settings,
    obs: &Observation<'_>,
) -> Vec<String> {
    let mut lines = Vec::new();
    let current = decision.current_replicas;
    let (min, max) = (hpa.min_replicas(), hpa.max_replicas());
    match decision.limited_by {
        LimitedBy::ScalingDisabled => {
            lines.push(
                "the target has 0 replicas and the HPA did not scale it there: scaling is \
                 disabled (ScalingActive False/ScalingDisabled)"
                    .to_owned(),
            );
            return lines;
        }
        _ if decision.metrics.is_empty() => {
            let text = match decision.reason {
                RescaleReason::AboveMaxReplicas => {
                    format!("{current} replicas are above maxReplicas {max}: set to {max} without evaluating the metrics")
                }
                RescaleReason::BelowMinReplicas => {
                    format!("{current} replicas are below minReplicas {min}: set to {min} without evaluating the metrics")
                }
                _ => "no metric was evaluated".to_owned(),
            };
            lines.push(text);
            return lines;
        }
        _ => {}
    }
    let t = tolerances(hpa, settings);
    let band = (1.0 - tolerance_value(t.down), 1.0 + tolerance_value(t.up));
    for (outcome, values) in decision.metrics.iter().zip(obs.metrics) {
        match outcome {
            MetricOutcome::Proposal(p) => {
                let reading = reading(p.spec, values, obs, settings);
                lines.push(metric_line(p, band, current, reading));
            }
            MetricOutcome::Error(e) => {
                lines.push(format!("{}: error: {e}", hpa::metrics::MetricName(e.spec)))
            }
        }
    }
    if decision.limited_by == LimitedBy::InvalidMetrics {
        let why = decision
            .metrics_error
            .map(|e| e.to_string())
            .unwrap_or_default();
        lines.push(format!(
            "no decision, desiredReplicas stays {}: {why}",
            decision.desired_replicas
        ));
        return lines;
    }
    if let Some(proposal) = decision.proposal {
        let from = match decision.reason {
            RescaleReason::AboveTarget(name) if decision.metrics.len() > 1 => {
                format!(" ({name})")
            }
            _ => String::new(),
        };
        let several = if decision.metrics.len() > 1 {
            "the largest proposal"
        } else {
            "proposal"
        };
        lines.push(format!("{several}: {proposal}{from}"));
    }
    if let (Some(stabilized), Some(n)) = (decision.stabilized, decision.normalization) {
        match hpa.behavior() {
            Some(b) => {
                let up = b.scale_up.stabilization_window_seconds.unwrap_or(0);
                let down = b.scale_down.stabilization_window_seconds.map_or(
                    settings.downscale_stabilization_window.whole_secs(),
                    i64::from,
                );
                lines.push(format!(
                    "stabilization: {current} clamped into [{}, {}] -> {stabilized} (lowest \
                     proposal over the last {up}s, highest over the last {down}s)",
                    n.stabilization_low, n.stabilization_high
                ));
            }
            None => lines.push(format!(
                "stabilization: highest proposal over the last {} -> {stabilized}",
                seconds(settings.downscale_stabilization_window.as_millis())
            )),
        }
        if let Some(limit) = n.rate_limit {
            let direction = if limit.scale_up {
                "scale-up"
            } else {
                "scale-down"
            };
            let how = if hpa.behavior().is_some() {
                policy_text(hpa, &limit)
            } else {
                format!(
                    "no behavior: max({} x {current}, {})",
                    settings.legacy_scale_up_factor, settings.legacy_scale_up_minimum
                )
            };
            let bound = if limit.scale_up {
                "at most"
            } else {
                "at least"
            };
            let joiner = if hpa.behavior().is_some() {
                " = "
            } else {
                ", "
            };
            lines.push(format!(
                "{direction} limit: {bound} {}{joiner}{how}",
                limit.replicas
            ));
        }
        lines.push(format!("replica range: [{min}, {max}]"));
    }
    let limited = match decision.limited_by {
        LimitedBy::Nothing => "nothing",
        LimitedBy::Tolerance => "the tolerance",
        LimitedBy::Stabilization => "stabilization",
        LimitedBy::RatePolicy => "the rate limit",
        LimitedBy::MinReplicas => "minReplicas",
        LimitedBy::MaxReplicas => "maxReplicas",
        LimitedBy::InvalidMetrics => "invalid metrics",
        LimitedBy::ScalingDisabled => "scaling disabled",
    };
    let condition = decision
        .conditions
        .get(ConditionType::ScalingLimited)
        .map(|c| {
            format!(
                "; ScalingLimited {}/{}",
                c.status.as_str(),
                c.reason.as_str()
            )
        })
        .unwrap_or_default();
    let change = if decision.rescale {
        format!("rescale {current} -> {}", decision.desired_replicas)
    } else {
        format!("stays at {current}")
    };
    let overflow = if decision.history_overflowed {
        "; a full history ring held it back"
    } else {
        ""
    };
    lines.push(format!(
        "result: {change} (limited by {limited}{condition}{overflow})"
    ));
    lines
}

/// The header line of a step's explanation.
pub fn step_header(at: i64, decision: &Decision<'_>) -> String {
    let change = if decision.rescale {
        format!(
            "{} -> {}",
            decision.current_replicas,
            replicas(decision.desired_replicas)
        )
    } else {
        format!("{}, no change", replicas(decision.current_replicas))
    };
    format!("{}  {change}", time(at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times() {
        assert_eq!(time(0), "0:00:00");
        assert_eq!(time(90_000), "0:01:30");
        assert_eq!(time(604_800_000), "168:00:00");
        assert_eq!(time(-1500), "-0:00:01.500");
        assert_eq!(seconds(300_000), "300s");
        assert_eq!(seconds(1500), "1.5s");
        assert_eq!(decimal(1.0 / 0.6, 3), "1.667");
        assert_eq!(decimal(0.9, 6), "0.9");
        assert_eq!(decimal(2.0, 3), "2");
    }

    #[test]
    fn repeated_events_merge() {
        let e = |m: &str| Event {
            warning: true,
            reason: "FailedGetPodsMetric",
            message: m.to_owned(),
        };
        let mut log = EventLog::default();
        log.add(0, 0, vec![e("a")]);
        log.add(1, 15_000, vec![e("a")]);
        log.add(2, 30_000, vec![e("a")]);
        log.add(4, 60_000, vec![e("a")]);
        assert_eq!(log.len(), 2);
        let mut out = String::new();
        log.render(&mut out, "  ");
        assert_eq!(
            out,
            "  At       Type     Reason               Message\n\
             \x20 --       ----     ------               -------\n\
             \x20 0:00:00  Warning  FailedGetPodsMetric  a (x3 until 0:00:30)\n\
             \x20 0:01:00  Warning  FailedGetPodsMetric  a\n"
        );
    }
}
