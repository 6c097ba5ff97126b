//! The replica calculator cases of replica_calc.json, read whole: `cases` ([`CalcCase`]) and
//! the `aux_cases` kinds `group_pods` ([`GroupPodsCase`]) and `calculate_requests`
//! ([`RequestsCase`]).

use std::collections::BTreeMap;

use hpa::input::{Container, ContainerKind, MetricValues, Observation, Pod, PodPhase};
use hpa::input::{PodSamples, ReadyCondition, Sample};
use hpa::metrics::{
    evaluate_metric, pod_request, CalcContext, MetricOutcome, Readiness, RequestError, Tolerances,
};
use hpa::settings::Settings;
use hpa::time::Duration;
use hpa::Tolerance;
use serde_json::Value;

use super::*;

/// A `cases` entry of replica_calc.json: one metric through `evaluate_metric`.
pub struct CalcCase {
    pub spec: &'static MetricSpec<'static>,
    pub current: i32,
    pub now: Instant,
    pub pods: &'static [Pod<'static>],
    /// The metric's values (one entry).
    pub values: &'static [MetricValues<'static>],
    pub settings: Settings,
    pub tolerances: Tolerances,
    pub expect: CalcExpect,
}

/// What upstream expects of a [`CalcCase`].
pub enum CalcExpect {
    /// An error whose text contains this.
    Error(&'static str),
    Proposal {
        replicas: Option<i32>,
        utilization_percent: Option<i32>,
        /// The raw value is the metric's value (Object/External value targets, a sum), not the
        /// per-pod average.
        raw_is_value: bool,
        raw_value_milli: Option<i64>,
    },
}

impl CalcCase {
    pub fn read(c: &'static Value) -> R<CalcCase> {
        let m = get(c, "metric")?;
        let source = text(m, "source")?;
        let spec = calc_metric_spec(m)?;
        let resource: &'static str = match source {
            "Resource" | "ContainerResource" => text(m, "name")?,
            _ => "cpu",
        };
        let container = spec.container_resource.map(|r| r.container);
        let (pods, per_pod, orphans) = calc_pods(c, source, resource, container)?;
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
        let settings = Settings {
            tolerance: match c.get("tolerance") {
                Some(t) if !t.is_null() => tolerance(t, "tolerance")?,
                _ => Tolerance::DEFAULT,
            },
            cpu_initialization_period: Duration::from_secs(int(c, "cpu_initialization_period_s")?),
            initial_readiness_delay: Duration::from_secs(int(c, "initial_readiness_delay_s")?),
            ..Settings::DEFAULT
        };
        let tols = get(c, "tolerances")?;
        let e = get(c, "expect")?;
        let expect = match opt_text(e, "error")? {
            Some(sub) => CalcExpect::Error(sub),
            None => {
                let kind = text(e, "raw_value_kind")?;
                CalcExpect::Proposal {
                    replicas: opt_int32(e, "replicas")?,
                    utilization_percent: opt_int32(e, "utilization_percent")?,
                    raw_is_value: kind == "object_value_milli" || kind.starts_with("sum("),
                    raw_value_milli: opt_int(e, "raw_value_milli")?,
                }
            }
        };
        Ok(CalcCase {
            spec,
            current: int32(c, "current_replicas")?,
            now: at(int(c, "now")?),
            pods: leak(pods),
            values: leak(vec![values]),
            settings,
            tolerances: Tolerances {
                down: tolerance(get(tols, "scale_down")?, "tolerances.scale_down")?,
                up: tolerance(get(tols, "scale_up")?, "tolerances.scale_up")?,
            },
            expect,
        })
    }

    /// The metric's outcome; the calculator tests pass the current replica count as
    /// `statusReplicas`.
    pub fn evaluate(&self) -> MetricOutcome<'static> {
        let obs = Observation {
            now: self.now,
            replicas: self.current,
            status_replicas: self.current,
            pods: self.pods,
            metrics: self.values,
        };
        let ctx = CalcContext {
            obs: &obs,
            settings: &self.settings,
            tolerances: self.tolerances,
            current: self.current,
        };
        evaluate_metric(&ctx, self.spec, &self.values[0])
    }
}

/// An `aux_cases` entry of kind `group_pods`: each pod with its sample, grouped by
/// `hpa::metrics::group_pod`.
pub struct GroupPodsCase {
    pub readiness: Readiness,
    pub pods: Vec<(Pod<'static>, Option<Sample<'static>>)>,
    pub expect: GroupPodsExpect,
}

/// The groups upstream expects, names in the file's order.
pub struct GroupPodsExpect {
    pub ready_pod_count: i64,
    pub unready: Vec<&'static str>,
    pub missing: Vec<&'static str>,
    pub ignored: Vec<&'static str>,
}

impl GroupPodsCase {
    pub fn read(c: &'static Value) -> R<GroupPodsCase> {
        let metrics = obj(c, "metrics")?;
        let mut pods = Vec::new();
        for p in list(c, "pods")? {
            let name = text(p, "name")?;
            let ready = match p.get("ready_condition") {
                None | Some(Value::Null) => None,
                Some(rc) => Some(ReadyCondition {
                    status: condition_status(get(rc, "status")?)?,
                    last_transition: opt_int(rc, "last_transition_time_s")?.map(at),
                }),
            };
            let pod = Pod {
                name,
                phase: phase(opt_text(p, "phase")?)?,
                ready,
                start_time: opt_int(p, "start_time_s")?.map(at),
                deleted: !is_null(p, "deletion_timestamp_s"),
                containers: &[],
                requests: None,
            };
            pods.push((pod, group_sample(metrics, name)?));
        }
        let e = get(c, "expect")?;
        let names = |key: &str| -> R<Vec<&'static str>> {
            let mut v = Vec::new();
            for n in list(e, key)? {
                v.push(n.as_str().ok_or("pod name is not a string")?);
            }
            Ok(v)
        };
        Ok(GroupPodsCase {
            readiness: Readiness {
                cpu: text(c, "resource")? == "cpu",
                cpu_initialization_period: Duration::from_secs(int(
                    c,
                    "cpu_initialization_period_s",
                )?),
                initial_readiness_delay: Duration::from_secs(int(c, "initial_readiness_delay_s")?),
                now: at(int(c, "now")?),
            },
            pods,
            expect: GroupPodsExpect {
                ready_pod_count: int(e, "ready_pod_count")?,
                unready: names("unready_pods")?,
                missing: names("missing_pods")?,
                ignored: names("ignored_pods")?,
            },
        })
    }
}

/// An `aux_cases` entry of kind `calculate_requests`: each pod's request for a resource
/// (`hpa::metrics::pod_request`).
pub struct RequestsCase {
    pub resource: &'static str,
    /// A ContainerResource metric's container.
    pub container: Option<&'static str>,
    pub pods: Vec<Pod<'static>>,
    pub expect: RequestsExpect,
}

/// What upstream expects of a [`RequestsCase`].
pub enum RequestsExpect {
    /// An error whose text contains this.
    Error(&'static str),
    /// Each pod's request, milli-units.
    Requests(BTreeMap<&'static str, i64>),
}

impl RequestsCase {
    pub fn read(c: &'static Value) -> R<RequestsCase> {
        let pod_level_gate = flag(c, "pod_level_resources_feature_enabled")?;
        let mut pods = Vec::new();
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
            pods.push(Pod {
                name: text(p, "name")?,
                phase: PodPhase::Running,
                ready: None,
                start_time: None,
                deleted: false,
                containers: leak(containers),
                requests,
            });
        }
        let e = get(c, "expect")?;
        let expect = match opt_text(e, "error")? {
            Some(want) => RequestsExpect::Error(want),
            None => {
                let mut want = BTreeMap::new();
                for (k, v) in obj(e, "requests_milli")? {
                    want.insert(k.as_str(), int_value(v, k)?);
                }
                RequestsExpect::Requests(want)
            }
        };
        Ok(RequestsCase {
            resource: text(c, "resource")?,
            container: Some(text(c, "container")?).filter(|s| !s.is_empty()),
            pods,
            expect,
        })
    }

    /// Each pod's request, or the first error: upstream's calculateRequests stops there.
    pub fn requests(&self) -> Result<BTreeMap<&'static str, i64>, RequestError<'static>> {
        let mut got = BTreeMap::new();
        for pod in &self.pods {
            got.insert(pod.name, pod_request(pod, self.container, self.resource)?);
        }
        Ok(got)
    }
}
