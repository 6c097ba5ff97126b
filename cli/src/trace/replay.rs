//! The replay loop `hpa replay` runs: one autoscaler (new, its ScaledToZero flag seeded from
//! the trace, or restored from a snapshot), evaluating every step's view and told the outcome
//! of each rescale.
//!
//! Apart from the views because it drives the engine (its status and the rescale protocol)
//! where the views only map data; the JSON lines, the digest and the text timeline are all
//! printed from this one loop.

use bumpalo::Bump;
use hpa::conditions::{ConditionType, Reason};
use hpa::defaults::Hpa;
use hpa::input::ConditionStatus;
use hpa::{Autoscaler, Decision, Status};

use super::{StepView, Trace};

impl Trace {
    /// A new autoscaler, its ScaledToZero flag seeded from `hpa.status`
    /// (docs/spec/trace-format.md#document): where a replay starts unless it restores a state.
    pub fn new_autoscaler(&self) -> Autoscaler {
        let mut autoscaler: Autoscaler = Autoscaler::new();
        if self.scaled_to_zero {
            autoscaler.status_mut().conditions.set(
                ConditionType::ScaledToZero,
                ConditionStatus::True,
                Reason::ScaledToZero,
            );
        }
        autoscaler
    }

    /// Replays every step through `autoscaler` (a new one, or one restored from a snapshot):
    /// evaluates each step, reports the rescale outcome (`applied`), then calls `on_step` with
    /// the step, its decision, the HPA and the status after the report. `autoscaler` is left as
    /// the last step left it.
    ///
    /// # Errors
    ///
    /// The engine refused a step (`steps[i]: ...`), or `on_step` failed.
    pub fn replay_from(
        &self,
        autoscaler: &mut Autoscaler,
        mut on_step: impl FnMut(
            usize,
            &StepView<'_>,
            &Decision<'_>,
            &Hpa<'_>,
            &Status,
        ) -> Result<(), String>,
    ) -> Result<(), String> {
        let spec_arena = Bump::new();
        let spec = self.spec(&spec_arena);
        let hpa = Hpa::new(&spec, &self.settings).map_err(|e| format!("hpa.{e}"))?;
        let mut arena = Bump::new();
        for i in 0..self.steps() {
            arena.reset();
            let Some(step) = self.step_view(i, &arena) else {
                break;
            };
            let decision = autoscaler
                .evaluate(&hpa, &self.settings, &step.observation)
                .map_err(|e| format!("steps[{i}]: {e}"))?;
            if decision.rescale {
                if step.applied {
                    autoscaler.rescale_succeeded();
                } else {
                    autoscaler.rescale_failed();
                }
            }
            on_step(i, &step, &decision, &hpa, &autoscaler.status())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::trace::test_support::json;

    /// `hpa replay`'s JSON lines for a trace.
    fn replay_lines(text: &str) -> Vec<String> {
        let mut lines = Vec::new();
        let trace = json(text).unwrap();
        trace
            .replay_from(
                &mut trace.new_autoscaler(),
                |_, step, decision, _, status| {
                    let line = crate::output::StepLine::new(
                        decision,
                        status,
                        &step.observation,
                        &trace.settings,
                    );
                    lines.push(serde_json::to_string(&line).unwrap());
                    Ok(())
                },
            )
            .unwrap();
        lines
    }

    /// The `desiredReplicas` of a JSON line.
    fn desired_replicas(line: &str) -> i64 {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        v["desiredReplicas"].as_i64().unwrap()
    }

    /// A ContainerResource trace: three pods, `p2`'s sample of the first step and an orphan
    /// sample replaced by `$P2` and `$ORPHAN`, and a second step whose samples all lack `app`.
    const CONTAINER_TRACE: &str = r#"{"hpa": {"spec": {"maxReplicas": 10, "metrics": [
  {"type": "ContainerResource", "containerResource": {"name": "cpu", "container": "app",
   "target": {"type": "Utilization", "averageUtilization": 50}}}]}},
 "steps": [
  {"at": 0, "replicas": 3, "pods": [
     {"name": "p0", "ready": "True", "startTime": -900000,
      "containers": [{"name": "app", "requests": {"cpu": "500m"}}, {"name": "sidecar"}]},
     {"name": "p1", "ready": "True", "startTime": -900000,
      "containers": [{"name": "app", "requests": {"cpu": "500m"}}, {"name": "sidecar"}]},
     {"name": "p2", "ready": "True", "startTime": -900000,
      "containers": [{"name": "app", "requests": {"cpu": "500m"}}, {"name": "sidecar"}]}],
   "metrics": [{"samples": {"p0": {"containers": {"app": "400m", "sidecar": "9"}},
                            "p1": {"containers": {"app": "450m"}} $P2 $ORPHAN}}]},
  {"at": 15000, "replicas": 3, "pods": [
     {"name": "p0", "containers": [{"name": "app", "requests": {"cpu": "500m"}}]}],
   "metrics": [{"samples": {"p0": {"containers": {}, "value": "1"},
                            "gone": {"containers": {"sidecar": "1"}}}}]}]}"#;

    /// docs/spec/trace-format.md#rule-7: a ContainerResource sample without the metric's
    /// container (an empty `containers`, other containers only, a `value` only) is a pod with
    /// no sample: the replay is the one of the same trace without that sample. An orphan
    /// sample without the container does not count either; when no sample has the container,
    /// the metric fails as upstream's does.
    #[test]
    fn container_resource_sample_without_the_container_is_a_missing_pod() {
        let trace = |p2: &str, orphan: &str| {
            CONTAINER_TRACE
                .replace("$P2", p2)
                .replace("$ORPHAN", orphan)
        };
        let absent = replay_lines(&trace("", ""));
        // p2 missing: counted as using nothing while scaling up, (400m + 450m + 0) / 1500m of
        // requests is 56 % against 50 %, 3 → 4.
        assert_eq!(desired_replicas(&absent[0]), 4);
        for p2 in [
            r#", "p2": {"containers": {}}"#,
            r#", "p2": {"containers": {"sidecar": "2"}, "timestamp": -5}"#,
            r#", "p2": {"value": "2", "window": 30000}"#,
        ] {
            for orphan in [
                "",
                r#", "gone": {"containers": {"sidecar": "2"}, "value": "7"}"#,
            ] {
                assert_eq!(replay_lines(&trace(p2, orphan)), absent, "{p2} {orphan}");
            }
        }
        // The same sample with the container does count.
        let present = replay_lines(&trace(r#", "p2": {"containers": {"app": "2"}}"#, ""));
        assert_ne!(present[0], absent[0]);
        assert!(
            absent[1].contains(
                "failed to get cpu utilization: did not receive metrics for targeted pods \
                 (pods might be unready)"
            ),
            "{}",
            absent[1]
        );
    }

    /// A Resource sample with neither `value` nor container usage replays as no sample.
    #[test]
    fn resource_sample_without_usage_is_a_missing_pod() {
        let two = |p1: &str| {
            format!(
                r#"{{"hpa": {{"spec": {{"maxReplicas": 10, "metrics": [{{"type": "Resource",
  "resource": {{"name": "memory", "target": {{"type": "AverageValue", "averageValue": "1"}}}}}}]}}}},
 "steps": [{{"at": 0, "replicas": 2, "pods": [{{"name": "p0"}}, {{"name": "p1"}}],
   "metrics": [{{"samples": {{"p0": {{"value": "3"}} {p1}}}}}]}}]}}"#
            )
        };
        let absent = replay_lines(&two(""));
        // p1 missing: counted at 0 while scaling up, (3 + 0) / 2 against 1, 2 → 3.
        assert_eq!(desired_replicas(&absent[0]), 3);
        for p1 in [
            r#", "p1": {"containers": {}}"#,
            r#", "p1": {"timestamp": 0}"#,
        ] {
            assert_eq!(replay_lines(&two(p1)), absent, "{p1}");
        }
    }
}
