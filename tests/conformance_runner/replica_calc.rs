//! replica_calc.json: `cases` (one metric through `evaluate_metric`) and `aux_cases`
//! (`group_pods`, `calculate_requests`). The inputs are read by `testkit::conformance`, which
//! the firmware's build script encodes the same cases with.

use hpa::metrics::{group_pod, MetricOutcome, PodGroup};
use serde_json::Value;
use testkit::conformance::{
    int, CalcCase, CalcExpect, GroupPodsCase, RequestsCase, RequestsExpect, R,
};

use crate::{Diff, Outcome};

pub fn run_replica_calc_case(c: &'static Value) -> R<Outcome> {
    let case = CalcCase::read(c)?;
    let mut diff = Diff::default();
    diff.eq(
        "pod_count",
        int(c, "pod_count")?,
        i64::try_from(case.pods.len()).unwrap_or(-1),
    );
    let outcome = case.evaluate();
    match (case.expect, outcome) {
        (CalcExpect::Error(sub), MetricOutcome::Error(err)) => {
            let text = err.to_string();
            if !text.contains(sub) {
                diff.fail(format!(
                    "error: expected text containing {sub:?}, got {text:?}"
                ));
            }
        }
        (CalcExpect::Error(sub), MetricOutcome::Proposal(p)) => diff.fail(format!(
            "expected an error containing {sub:?}, got a proposal of {} replicas",
            p.replicas
        )),
        (CalcExpect::Proposal { .. }, MetricOutcome::Error(err)) => {
            diff.fail(format!("unexpected error: {err}"))
        }
        (
            CalcExpect::Proposal {
                replicas,
                utilization_percent,
                raw_is_value,
                raw_value_milli,
            },
            MetricOutcome::Proposal(p),
        ) => {
            diff.eq("replicas", replicas, Some(p.replicas));
            diff.eq(
                "utilization_percent",
                utilization_percent,
                p.average_utilization,
            );
            // The value (Object/External value targets) or the per-pod average.
            let raw = if raw_is_value {
                p.value
            } else {
                p.average_value
            };
            diff.eq("raw_value_milli", raw_value_milli, raw);
            // `timestamp_s` is not compared: the engine returns no metric timestamp (upstream
            // uses it for the status only).
        }
    }
    diff.outcome()
}

pub fn run_group_pods(c: &'static Value) -> R<Outcome> {
    let case = GroupPodsCase::read(c)?;
    let (mut ready, mut unready, mut missing, mut ignored) = (0_i64, vec![], vec![], vec![]);
    for (pod, sample) in &case.pods {
        match group_pod(pod, sample.as_ref(), &case.readiness) {
            PodGroup::Ready => ready += 1,
            PodGroup::Unready => unready.push(pod.name),
            PodGroup::Missing => missing.push(pod.name),
            PodGroup::Ignored => ignored.push(pod.name),
        }
    }
    let sorted = |mut names: Vec<&'static str>| {
        names.sort_unstable();
        names
    };
    let e = case.expect;
    let mut diff = Diff::default();
    diff.eq("ready_pod_count", e.ready_pod_count, ready);
    diff.eq("unready_pods", sorted(e.unready), sorted(unready));
    diff.eq("missing_pods", sorted(e.missing), sorted(missing));
    diff.eq("ignored_pods", sorted(e.ignored), sorted(ignored));
    diff.outcome()
}

pub fn run_calculate_requests(c: &'static Value) -> R<Outcome> {
    let case = RequestsCase::read(c)?;
    let requests = case.requests();
    let mut diff = Diff::default();
    match (case.expect, requests) {
        (RequestsExpect::Error(want), Err(have)) => {
            let have = have.to_string();
            if !have.contains(want) {
                diff.fail(format!("error: expected {want:?}, got {have:?}"));
            }
        }
        (RequestsExpect::Error(want), Ok(got)) => {
            diff.fail(format!("expected error {want:?}, got {got:?}"))
        }
        (RequestsExpect::Requests(_), Err(have)) => {
            diff.fail(format!("unexpected error {:?}", have.to_string()))
        }
        (RequestsExpect::Requests(want), Ok(got)) => diff.eq("requests_milli", want, got),
    }
    diff.outcome()
}
