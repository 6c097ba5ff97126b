//! Traces for `hpa replay` (trace format v1, `docs/spec/trace-format.md`).
//!
//! A trace is read in two passes, and the whole document is checked before anything is
//! replayed:
//!
//! 1. **Parsing** into a private raw model with serde. Every struct takes a map only (not
//!    serde's positional sequence form) and denies unknown fields (inside `hpa` too, with the
//!    `autoscaling/v2` schema), serde's derive rejects duplicate
//!    fields and the `StrictMap` type rejects duplicate keys in maps (`samples`, `requests`,
//!    `containers`, `matchLabels`); the untyped parts of `metadata` and `status` are walked by
//!    `AnyValue`, which rejects duplicate keys too. Integer fields take integers only
//!    (`15000.0` is an error; JSON has no NaN or Infinity). Quantities and the controller's
//!    numbers keep their exact decimal text: JSON numbers through serde_json's
//!    `arbitrary_precision`, YAML scalars through their own text. `serde_path_to_error` names
//!    the failing field.
//! 2. **Conversion** into the engine's types with the format's checks (quantities, step order,
//!    replica ranges, pod and container names, one metric entry per spec metric with the shape
//!    its type needs, controller durations and tolerance), then the API server's validation of
//!    the spec through [`Hpa::new`], reported under `hpa.`. Enum strings the typed spec cannot
//!    hold (an unknown metric type, an empty `selectPolicy`, ...) are handed to
//!    [`validate_spec_each`], so the errors are the ones upstream would report, in its order; a
//!    trace reports the first of them.
//!
//! The engine borrows everything it reads, so a [`Trace`] keeps an owned model and builds the
//! borrowed views ([`HpaSpec`], [`Observation`]) in a caller-supplied [`Bump`] arena.
//!
//! The document format is chosen by the file name: `.yaml` and `.yml` (any case) are YAML,
//! everything else is JSON (see [`Format::from_path`]).
//!
//! # Layers
//!
//! One private module per layer, in the order a document goes through them:
//!
//! - this file: the public API ([`load`], [`parse`], the manifest loaders, [`TraceError`],
//!   [`Format`], [`Trace`], [`StepView`], [`Manifest`]);
//! - `strict`: the rules every field is read by (duplicate keys, maps only, exact number
//!   text, error paths), and the JSON and YAML entry points;
//! - `raw`: the serde types mirroring the document;
//! - `convert`, with `controller`, `spec` and `steps`: the raw model into the owned one, with
//!   every check and its field path;
//! - `owned`: the checked model a [`Trace`] and a [`Manifest`] keep;
//! - `view`: the owned model lent to the engine ([`Trace::spec`], [`Trace::step_view`]);
//! - `replay`: the loop that feeds the steps to an autoscaler ([`Trace::replay_from`]).
//!
//! `selector` (`cli/src/selector.rs`) is how upstream prints and converts a metric's label
//! selector; `test_support` holds what the modules' tests share.
//!
//! [`Hpa::new`]: hpa::defaults::Hpa::new
//! [`validate_spec_each`]: hpa::validation::validate_spec_each
//! [`HpaSpec`]: hpa::spec::HpaSpec
//! [`Bump`]: bumpalo::Bump

mod cluster;
mod convert;
mod manifests;
mod owned;
mod raw;
mod replay;
pub mod source;
mod strict;
mod versions;
mod view;

#[cfg(test)]
mod test_support;

// `cli/src/selector.rs` is a child of this module so that `main.rs` only declares `trace`.
#[path = "selector.rs"]
mod selector;

use std::fmt;
use std::path::Path;

use hpa::input::Observation;
use hpa::settings::Settings;

pub use self::cluster::{Cluster, Gate, NEWEST_MINOR, OLDEST_MINOR};
pub use self::manifests::{parse_manifests, Entry, Outcome};
pub use self::versions::ApiVersion;

use self::convert::convert_trace;
use self::owned::{OwnedSpec, OwnedStep};
use self::source::{check_nesting, read_source, MAX_DATA_BYTES, MAX_MANIFEST_BYTES};
use self::strict::{parse_json, parse_yaml};

/// Why a trace was rejected: the field at fault and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// Field path such as `steps[3].pods[0].phase` or `hpa.spec.metrics[0].type`; empty when
    /// the error concerns the document as a whole (unreadable file, malformed JSON at the top).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl TraceError {
    fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        TraceError {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for TraceError {}

/// The syntax of a trace document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// JSON.
    Json,
    /// YAML 1.2 with the same structure as the JSON document.
    Yaml,
}

impl Format {
    /// YAML for file names ending in `.yaml` or `.yml` (any case), JSON otherwise.
    pub fn from_path(path: &Path) -> Format {
        let is_yaml = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"));
        if is_yaml {
            Format::Yaml
        } else {
            Format::Json
        }
    }
}

/// A checked trace: controller settings, the HPA spec and the steps, ready to replay.
#[derive(Clone, Debug)]
pub struct Trace {
    /// The controller settings (`controller` block, defaults are kube-controller-manager's).
    pub settings: Settings,
    /// The release and gates the trace was checked for, HPAScaleToZero as its `controller`
    /// block records it.
    pub cluster: Cluster,
    /// Whether `hpa.status.conditions` holds `ScaledToZero` with status `True` (the seed of
    /// that flag).
    pub scaled_to_zero: bool,
    /// `hpa.metadata.name`, or `""`.
    #[allow(dead_code)] // For callers that label their output; `hpa replay` does not.
    pub name: String,
    spec: OwnedSpec,
    steps: Vec<OwnedStep>,
}

/// One step of a trace, borrowed from the [`Trace`] and an arena.
#[derive(Clone, Copy, Debug)]
pub struct StepView<'b> {
    /// What the engine evaluates (its `now` is the step's `at`, in trace milliseconds).
    pub observation: Observation<'b>,
    /// `applied`: whether setting the new replica count succeeds.
    pub applied: bool,
}

/// Reads and checks the trace at `path` (YAML or JSON by its extension, see
/// [`Format::from_path`]; `-` reads standard input), at most [`MAX_DATA_BYTES`] long.
///
/// # Errors
///
/// A [`TraceError`] naming the first field at fault, or the file when it cannot be read.
pub fn load(path: &Path) -> Result<Trace, TraceError> {
    load_for(path, &Cluster::NEWEST)
}

/// [`load`] for a cluster of another release or other gates: its validation, and its gates in
/// the trace's settings (a trace's `controller.scaleToZero` is the HPAScaleToZero it recorded).
///
/// # Errors
///
/// A [`TraceError`] naming the first field at fault, or the file when it cannot be read.
pub fn load_for(path: &Path, cluster: &Cluster) -> Result<Trace, TraceError> {
    let source = read_source(path, MAX_DATA_BYTES)?;
    parse_for(&source.text, source.format, cluster)
}

/// Parses and checks a trace document (nested at most [`source::MAX_NESTING`] deep).
///
/// # Errors
///
/// A [`TraceError`] naming the first field at fault.
pub fn parse(text: &str, format: Format) -> Result<Trace, TraceError> {
    parse_for(text, format, &Cluster::NEWEST)
}

/// [`parse`] for `cluster` (see [`load_for`]).
///
/// # Errors
///
/// A [`TraceError`] naming the first field at fault.
pub fn parse_for(text: &str, format: Format, cluster: &Cluster) -> Result<Trace, TraceError> {
    check_nesting(text, format)?;
    let raw = match format {
        Format::Json => parse_json(text)?,
        Format::Yaml => parse_yaml(text)?,
    };
    convert_trace(raw, cluster)
}

/// A checked standalone HorizontalPodAutoscaler manifest (`hpa validate`, `hpa simulate`): an
/// object of any API version served for it, parsed as strictly as a trace's `hpa` (unknown
/// fields, duplicate keys, and the value types of `metadata` and `status` too), converted to
/// `autoscaling/v2` and validated as the API server would. Error paths have no `hpa.` prefix
/// (`spec.minReplicas`, as `kubectl apply` reports them). Unlike in a trace, `metadata.name`
/// and `spec.scaleTargetRef` are required, as for any object sent to the API server.
#[derive(Clone, Debug)]
pub struct Manifest {
    /// `metadata.name` (empty when only `generateName` is set).
    pub name: String,
    /// The API version the object was written in.
    pub api_version: ApiVersion,
    spec: OwnedSpec,
}

/// Reads and checks the one HorizontalPodAutoscaler of the manifest file at `path` (YAML or
/// JSON by its extension, see [`Format::from_path`]; `-` reads standard input), as `cluster`'s
/// API server reads it.
///
/// # Errors
///
/// A [`TraceError`] naming the first field at fault, or the file when it cannot be read.
pub fn load_manifest(path: &Path, cluster: &Cluster) -> Result<Manifest, TraceError> {
    load_manifest_all(path, cluster).map_err(first_error)
}

/// [`load_manifest`] reporting every error: all of the API server's validation errors of the
/// spec, in its order (as `kubectl apply` prints them). A document that cannot be read, parsed or converted has one error, as do a
/// wrong `apiVersion` or `kind` and a missing `metadata.name` (which `kubectl apply` refuses
/// before sending anything).
///
/// # Errors
///
/// Every [`TraceError`], in order; never an empty list.
pub fn load_manifest_all(path: &Path, cluster: &Cluster) -> Result<Manifest, Vec<TraceError>> {
    let source = read_source(path, MAX_MANIFEST_BYTES).map_err(|e| vec![e])?;
    parse_manifest_all(&source.text, source.format, cluster)
}

/// Reads every object of the manifest file at `path` (see [`parse_manifests`]).
///
/// # Errors
///
/// The file cannot be read, or a document in it cannot be parsed at all.
pub fn load_manifests(path: &Path, cluster: &Cluster) -> Result<Vec<Entry>, TraceError> {
    let source = read_source(path, MAX_MANIFEST_BYTES)?;
    parse_manifests(&source.text, source.format, cluster)
}

/// Parses and checks a manifest document (see [`Manifest`]).
///
/// # Errors
///
/// A [`TraceError`] naming the first field at fault.
pub fn parse_manifest(
    text: &str,
    format: Format,
    cluster: &Cluster,
) -> Result<Manifest, TraceError> {
    parse_manifest_all(text, format, cluster).map_err(first_error)
}

/// [`parse_manifest`] reporting every error (see [`load_manifest_all`]): the text must hold
/// exactly one HorizontalPodAutoscaler (objects of other kinds are skipped).
///
/// # Errors
///
/// Every [`TraceError`], in order; never an empty list.
pub fn parse_manifest_all(
    text: &str,
    format: Format,
    cluster: &Cluster,
) -> Result<Manifest, Vec<TraceError>> {
    let entries = parse_manifests(text, format, cluster).map_err(|e| vec![e])?;
    let mut skipped = Vec::new();
    let mut hpas = Vec::new();
    for entry in entries {
        match entry.outcome {
            Outcome::Skipped { ref kind } => skipped.push(format!("a {kind}")),
            _ => hpas.push(entry),
        }
    }
    let several = hpas.len() > 1;
    match (hpas.pop(), several) {
        (None, _) => {
            let found = if skipped.is_empty() {
                String::new()
            } else {
                format!(" (found {})", skipped.join(", "))
            };
            Err(vec![TraceError::new(
                "",
                format!("no HorizontalPodAutoscaler{found}"),
            )])
        }
        (Some(last), true) => Err(vec![TraceError::new(
            "",
            format!(
                "{} HorizontalPodAutoscalers (the last is {}); one is needed here",
                hpas.len().saturating_add(1),
                last.label()
            ),
        )]),
        (Some(entry), false) => match entry.outcome {
            Outcome::Valid { manifest, .. } => Ok(*manifest),
            Outcome::Invalid(errors) if entry.place.is_empty() => Err(errors),
            Outcome::Invalid(errors) => {
                let place = entry.place;
                Err(errors
                    .into_iter()
                    .map(|e| TraceError::new(format!("{place}: {}", e.path), e.message))
                    .collect())
            }
            Outcome::Skipped { .. } => Err(vec![TraceError::new("", "no HorizontalPodAutoscaler")]),
        },
    }
}

/// The first of a list of errors that is never empty.
fn first_error(errors: Vec<TraceError>) -> TraceError {
    errors
        .into_iter()
        .next()
        .unwrap_or_else(|| TraceError::new("", "invalid manifest"))
}

#[cfg(test)]
mod tests {
    use bumpalo::Bump;
    use hpa::defaults::Hpa;
    use hpa::input::{
        ConditionStatus, ContainerKind, ContainerUsage, MetricValues, PodPhase, PodSamples,
        ReadyCondition, Sample,
    };
    use hpa::spec::{PolicyType, ScalingPolicy, SelectPolicy};
    use hpa::time::{Duration, Instant};

    use super::test_support::{json, yaml, BASE};
    use super::*;

    /// The document example of the format, completed into a valid trace.
    const EXAMPLE_JSON: &str = r#"{
  "hpa": { "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
           "metadata": { "name": "worker", "namespace": "default", "labels": { "app": "worker" },
                         "annotations": {}, "uid": "1234", "resourceVersion": "7",
                         "generation": 2, "creationTimestamp": "2024-01-01T00:00:00Z" },
           "spec": {
             "scaleTargetRef": { "apiVersion": "apps/v1", "kind": "Deployment", "name": "worker" },
             "minReplicas": 1, "maxReplicas": 10,
             "metrics": [
               { "type": "Resource",
                 "resource": { "name": "cpu", "target": { "type": "Utilization", "averageUtilization": 50 } } },
               { "type": "Object",
                 "object": { "describedObject": { "apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "name": "main" },
                             "metric": { "name": "requests-per-second" },
                             "target": { "type": "Value", "value": "10k" } } },
               { "type": "External",
                 "external": { "metric": { "name": "queue_messages",
                                           "selector": { "matchLabels": { "queue": "jobs", "env": "prod" } } },
                               "target": { "type": "AverageValue", "averageValue": 30 } } },
               { "type": "Pods",
                 "pods": { "metric": { "name": "packets-per-second" },
                           "target": { "type": "AverageValue", "averageValue": "1k" } } }
             ],
             "behavior": {
               "scaleUp": { "selectPolicy": "Max", "tolerance": "0.05" },
               "scaleDown": { "stabilizationWindowSeconds": 300,
                              "policies": [ { "type": "Percent", "value": 100, "periodSeconds": 15 } ] }
             },
             "syncPeriodSeconds": 15
           },
           "status": { "currentReplicas": 3, "desiredReplicas": 3,
                       "conditions": [ { "type": "ScaledToZero", "status": "True", "reason": "ScaledToZero",
                                         "lastTransitionTime": "2024-01-01T00:00:00Z" } ] } },
  "controller": {
    "tolerance": 0.1,
    "downscaleStabilizationWindowSeconds": 300,
    "cpuInitializationPeriodSeconds": 300,
    "initialReadinessDelaySeconds": 30,
    "scaleToZero": true,
    "arithmetic": "kubernetes"
  },
  "steps": [
    {
      "at": 15000,
      "replicas": 3,
      "statusReplicas": 3,
      "pods": [
        { "name": "worker-0", "phase": "Running", "ready": "True",
          "readyTransitionTime": -50000, "startTime": -60000, "deleted": false,
          "containers": [ { "name": "app", "requests": { "cpu": "500m", "memory": "256Mi" } },
                          { "name": "sidecar", "requests": { "cpu": "100m" }, "restartableInit": true } ] }
      ],
      "metrics": [
        { "samples": { "worker-0": { "value": "420m", "timestamp": 14000, "window": 60000,
                                     "containers": { "app": "400m", "sidecar": "20m" } } } },
        { "value": "80" },
        { "values": [ "30", "50" ] },
        { "error": "custom metrics adapter unavailable" }
      ],
      "applied": true
    },
    {
      "at": 15000,
      "replicas": 2,
      "pods": [ { "name": "b" }, { "name": "a", "phase": "Pending", "ready": "False", "deleted": true,
                  "requests": { "cpu": 1 } } ],
      "metrics": [
        { "samples": { "zz": { "value": 0.1 }, "a": { "containers": { "c": "1", "d": "250m" } },
                       "orphan": { "value": "1m" } } },
        { "error": "boom" },
        { "values": [] },
        { "samples": {} }
      ],
      "applied": false
    }
  ]
}"#;

    /// The same trace in YAML.
    const EXAMPLE_YAML: &str = r#"
hpa:
  apiVersion: autoscaling/v2
  kind: HorizontalPodAutoscaler
  metadata:
    name: worker
    namespace: default
    labels: {app: worker}
    annotations: {}
    uid: "1234"
    resourceVersion: "7"
    generation: 2
    creationTimestamp: "2024-01-01T00:00:00Z"
  spec:
    scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: worker}
    minReplicas: 1
    maxReplicas: 10
    metrics:
    - type: Resource
      resource:
        name: cpu
        target: {type: Utilization, averageUtilization: 50}
    - type: Object
      object:
        describedObject: {apiVersion: networking.k8s.io/v1, kind: Ingress, name: main}
        metric: {name: requests-per-second}
        target: {type: Value, value: 10k}
    - type: External
      external:
        metric:
          name: queue_messages
          selector:
            matchLabels: {queue: jobs, env: prod}
        target: {type: AverageValue, averageValue: 30}
    - type: Pods
      pods:
        metric: {name: packets-per-second}
        target: {type: AverageValue, averageValue: 1k}
    behavior:
      scaleUp: {selectPolicy: Max, tolerance: "0.05"}
      scaleDown:
        stabilizationWindowSeconds: 300
        policies:
        - {type: Percent, value: 100, periodSeconds: 15}
    syncPeriodSeconds: 15
  status:
    currentReplicas: 3
    desiredReplicas: 3
    conditions:
    - type: ScaledToZero
      status: "True"
      reason: ScaledToZero
      lastTransitionTime: "2024-01-01T00:00:00Z"
controller:
  tolerance: 0.1
  downscaleStabilizationWindowSeconds: 300
  cpuInitializationPeriodSeconds: 300
  initialReadinessDelaySeconds: 30
  scaleToZero: true
  arithmetic: kubernetes
steps:
- at: 15000
  replicas: 3
  statusReplicas: 3
  pods:
  - name: worker-0
    phase: Running
    ready: "True"
    readyTransitionTime: -50000
    startTime: -60000
    deleted: false
    containers:
    - {name: app, requests: {cpu: 500m, memory: 256Mi}}
    - {name: sidecar, requests: {cpu: 100m}, restartableInit: true}
  metrics:
  - samples:
      worker-0:
        value: 420m
        timestamp: 14000
        window: 60000
        containers: {app: 400m, sidecar: 20m}
  - value: "80"
  - values: ["30", "50"]
  - error: custom metrics adapter unavailable
  applied: true
- at: 15000
  replicas: 2
  pods:
  - name: b
  - {name: a, phase: Pending, ready: "False", deleted: true, requests: {cpu: 1}}
  metrics:
  - samples:
      zz: {value: 0.1}
      a: {containers: {c: "1", d: 250m}}
      orphan: {value: 1m}
  - error: boom
  - values: []
  - samples: {}
  applied: false
"#;

    #[test]
    fn base_is_valid() {
        let trace = json(BASE).unwrap();
        assert_eq!(trace.name, "w");
        assert_eq!(trace.steps(), 1);
        assert!(!trace.scaled_to_zero);
        assert_eq!(trace.settings, Settings::DEFAULT);
    }

    fn check_example(trace: &Trace) {
        assert_eq!(trace.name, "worker");
        assert!(trace.scaled_to_zero);
        assert_eq!(trace.settings, Settings::DEFAULT);
        assert_eq!(trace.steps(), 2);

        let arena = Bump::new();
        let spec = trace.spec(&arena);
        assert_eq!(spec.min_replicas, Some(1));
        assert_eq!(spec.max_replicas, 10);
        assert_eq!(spec.metrics.len(), 4);
        let external = spec.metrics[2].external.unwrap();
        assert_eq!(external.metric.name, "queue_messages");
        assert_eq!(
            external.metric.selector,
            Some(
                "&LabelSelector{MatchLabels:map[string]string{env: prod,queue: jobs,},\
                 MatchExpressions:[]LabelSelectorRequirement{},}"
            )
        );
        assert!(!external.metric.selector_invalid);
        assert_eq!(external.target.average_value.unwrap().milli_value(), 30_000);
        let object = spec.metrics[1].object.unwrap();
        assert_eq!(object.described_object.kind, "Ingress");
        assert_eq!(object.target.value.unwrap().milli_value(), 10_000_000);
        let behavior = spec.behavior.unwrap();
        let up = behavior.scale_up.unwrap();
        assert_eq!(up.select_policy, Some(SelectPolicy::Max));
        assert_eq!(up.tolerance.unwrap().milli_value(), 50);
        assert_eq!(up.policies, None);
        let down = behavior.scale_down.unwrap();
        assert_eq!(
            down.policies,
            Some(
                &[ScalingPolicy {
                    type_: PolicyType::Percent,
                    value: 100,
                    period_seconds: 15
                }][..]
            )
        );
        assert_eq!(spec.scale_target_ref.unwrap().name, "worker");
        assert!(Hpa::new(&spec, &trace.settings).is_ok());

        let step = trace.step_view(0, &arena).unwrap();
        assert!(step.applied);
        let obs = step.observation;
        assert_eq!(obs.now, Instant(15_000));
        assert_eq!((obs.replicas, obs.status_replicas), (3, 3));
        let pod = obs.pods[0];
        assert_eq!(pod.name, "worker-0");
        assert_eq!(pod.phase, PodPhase::Running);
        assert_eq!(
            pod.ready,
            Some(ReadyCondition {
                status: ConditionStatus::True,
                last_transition: Some(Instant(-50_000)),
            })
        );
        assert_eq!(pod.start_time, Some(Instant(-60_000)));
        assert!(!pod.deleted);
        assert_eq!(pod.requests, None);
        assert_eq!(pod.containers.len(), 2);
        assert_eq!(pod.containers[0].kind, ContainerKind::Regular);
        assert_eq!(pod.containers[1].kind, ContainerKind::RestartableInit);
        assert_eq!(pod.containers[0].requests[0].resource, "cpu");
        assert_eq!(pod.containers[0].requests[0].quantity.milli_value(), 500);
        assert_eq!(pod.containers[0].requests[1].resource, "memory");
        assert_eq!(
            pod.containers[0].requests[1].quantity.milli_value(),
            256 * 1024 * 1024 * 1000
        );
        let MetricValues::Pods(samples) = obs.metrics[0] else {
            panic!("expected samples");
        };
        assert_eq!(samples.orphans, &[]);
        assert_eq!(
            samples.per_pod,
            &[Some(Sample {
                milli: 420,
                timestamp: Instant(14_000),
                window: Duration(60_000),
                containers: &[
                    ContainerUsage {
                        name: "app",
                        milli: 400
                    },
                    ContainerUsage {
                        name: "sidecar",
                        milli: 20
                    }
                ],
            })]
        );
        assert_eq!(obs.metrics[1], MetricValues::Object(80_000));
        assert_eq!(obs.metrics[2], MetricValues::External(&[30_000, 50_000]));
        assert_eq!(
            obs.metrics[3],
            MetricValues::Error("custom metrics adapter unavailable")
        );

        let step = trace.step_view(1, &arena).unwrap();
        assert!(!step.applied);
        let obs = step.observation;
        assert_eq!((obs.replicas, obs.status_replicas), (2, 2));
        assert_eq!(obs.pods[0].phase, PodPhase::Running);
        assert_eq!(obs.pods[0].ready, None);
        assert_eq!(obs.pods[1].phase, PodPhase::Pending);
        assert!(obs.pods[1].deleted);
        assert_eq!(
            obs.pods[1].ready,
            Some(ReadyCondition {
                status: ConditionStatus::False,
                last_transition: None,
            })
        );
        assert_eq!(
            obs.pods[1].requests.unwrap()[0].quantity.milli_value(),
            1000
        );
        let MetricValues::Pods(samples) = obs.metrics[0] else {
            panic!("expected samples");
        };
        // `b` has no sample; `a` sums its containers; orphans sorted by name.
        assert_eq!(samples.per_pod[0], None);
        let a = samples.per_pod[1].unwrap();
        assert_eq!(a.milli, 1250);
        assert_eq!(a.timestamp, Instant(15_000));
        assert_eq!(a.window, Duration(60_000));
        let orphans: Vec<i64> = samples.orphans.iter().map(|s| s.milli).collect();
        assert_eq!(orphans, [1, 100]);
        assert_eq!(obs.metrics[1], MetricValues::Error("boom"));
        assert_eq!(obs.metrics[2], MetricValues::External(&[]));
        assert_eq!(
            obs.metrics[3],
            MetricValues::Pods(PodSamples {
                per_pod: &[None, None],
                orphans: &[],
            })
        );
    }

    #[test]
    fn document_example_json() {
        check_example(&json(EXAMPLE_JSON).unwrap());
    }

    #[test]
    fn document_example_yaml() {
        let from_yaml = yaml(EXAMPLE_YAML).unwrap();
        check_example(&from_yaml);
        let from_json = json(EXAMPLE_JSON).unwrap();
        let (a, b) = (Bump::new(), Bump::new());
        assert_eq!(
            format!("{:?}", from_yaml.spec(&a)),
            format!("{:?}", from_json.spec(&b))
        );
        for i in 0..from_json.steps() {
            assert_eq!(
                format!("{:?}", from_yaml.step_view(i, &a).unwrap()),
                format!("{:?}", from_json.step_view(i, &b).unwrap())
            );
        }
    }

    #[test]
    fn load_picks_the_format_by_extension() {
        let dir = std::env::temp_dir().join(format!("hpa-trace-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let yaml_path = dir.join("trace.YML");
        std::fs::write(&yaml_path, EXAMPLE_YAML).unwrap();
        let json_path = dir.join("trace.json");
        std::fs::write(&json_path, EXAMPLE_JSON).unwrap();
        check_example(&load(&yaml_path).unwrap());
        check_example(&load(&json_path).unwrap());
        let missing = load(&dir.join("missing.json")).unwrap_err();
        assert_eq!(missing.path, "");
        assert!(missing.message.starts_with("cannot read "));
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(Format::from_path(Path::new("a.yaml")), Format::Yaml);
        assert_eq!(Format::from_path(Path::new("a.trace")), Format::Json);
    }

    #[test]
    fn error_display() {
        let e = TraceError::new("steps[0].at", "boom");
        assert_eq!(e.to_string(), "steps[0].at: boom");
        assert_eq!(TraceError::new("", "boom").to_string(), "boom");
    }
}
