//! The conversion (pass 2): the raw model into the owned one, with the format's checks and the
//! API server's validation of the spec; each error is a [`TraceError`] naming its field path.
//!
//! This file converts the document as a whole (a trace, or a standalone manifest) and holds
//! what its parts share: the type meta check, quantities, the paths of validation errors. The
//! parts are converted in modules of their own, as the format describes them: [`controller`]
//! (exact decimals into settings), [`spec`] (`hpa.spec` and its validation, in upstream's
//! order) and [`steps`] (pods, samples and metric entries against the spec's metric types).
//! The conversion is apart from parsing so that every check that gives a value meaning is
//! here, after the document's shape is known to be right.

mod controller;
mod spec;
mod steps;

use hpa::input::ContainerKind;
use hpa::quantity::Quantity;
use hpa::spec::MetricSourceType;
use hpa::validation::ValidationError;

use self::controller::convert_controller;
use self::spec::{checked_spec, checked_spec_all};
use self::steps::convert_step;
use super::raw::{RawObjectRef, RawTrace, RawTraceHpa};
use super::strict::QuantityText;
use super::versions::{ApiVersion, RawHpa};
use super::{Cluster, Gate, Manifest, Trace, TraceError};

/// Upstream's `field.NotSupported` message (for `apiVersion` and `kind`).
pub(super) fn not_supported(value: &str, supported: &[&str]) -> String {
    let quoted: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
    format!(
        "Unsupported value: {value:?}: supported values: {}",
        quoted.join(", ")
    )
}

/// A trace's `hpa.apiVersion` and `hpa.kind`, when present, name an autoscaling/v2
/// HorizontalPodAutoscaler (docs/spec/trace-format.md#rule-20); a manifest's are looked at
/// before it is parsed ([`super::manifests`]).
fn check_type_meta(hpa: &RawTraceHpa) -> Result<(), TraceError> {
    if let Some(api_version) = hpa.api_version.as_deref() {
        if api_version != "autoscaling/v2" {
            return Err(TraceError::new(
                format!("{TRACE_PREFIX}apiVersion"),
                not_supported(api_version, &["autoscaling/v2"]),
            ));
        }
    }
    if let Some(kind) = hpa.kind.as_deref() {
        if kind != "HorizontalPodAutoscaler" {
            return Err(TraceError::new(
                format!("{TRACE_PREFIX}kind"),
                not_supported(kind, &["HorizontalPodAutoscaler"]),
            ));
        }
    }
    Ok(())
}

/// A trace: the controller settings, the `hpa` object (type meta, name, the ScaledToZero seed,
/// the spec) and the steps, which must come in `at` order, for `cluster` (its validation and
/// gates; the trace's `controller.scaleToZero`, when present, is the HPAScaleToZero it
/// recorded).
pub(super) fn convert_trace(raw: RawTrace, cluster: &Cluster) -> Result<Trace, TraceError> {
    let controller = raw.controller.unwrap_or_default();
    let cluster = match controller.scale_to_zero {
        Some(on) => cluster
            .with_recorded_scale_to_zero(on)
            .map_err(|e| TraceError::new("controller.scaleToZero", e))?,
        None => cluster.clone(),
    };
    let settings = cluster.settings(convert_controller(controller)?);
    let hpa = raw.hpa;
    check_type_meta(&hpa)?;
    let name = hpa.metadata.and_then(|m| m.name).unwrap_or_default();
    let scaled_to_zero = hpa
        .status
        .and_then(|s| s.conditions)
        .unwrap_or_default()
        .iter()
        .any(|c| c.type_.as_deref() == Some("ScaledToZero") && c.status.as_deref() == Some("True"));

    let mut raw_spec = hpa.spec.unwrap_or_default().into();
    cluster.prepare_spec(&mut raw_spec, TRACE_PREFIX)?;
    let spec = checked_spec(raw_spec, &cluster, TRACE_PREFIX)?;
    // After API defaulting an empty `metrics` is one cpu Resource metric.
    let metric_types: Vec<MetricSourceType> = if spec.metrics.is_empty() {
        vec![MetricSourceType::Resource]
    } else {
        spec.metrics
            .iter()
            .enumerate()
            .map(|(i, m)| {
                m.type_.ok_or_else(|| {
                    TraceError::new(
                        format!("hpa.spec.metrics[{i}].type"),
                        "Required value: must specify a metric source type",
                    )
                })
            })
            .collect::<Result<_, _>>()?
    };

    let mut steps = Vec::with_capacity(raw.steps.len());
    let mut previous_at: Option<i64> = None;
    for (i, step) in raw.steps.into_iter().enumerate() {
        if let Some(previous) = previous_at.filter(|previous| step.at < *previous) {
            return Err(TraceError::new(
                format!("steps[{i}].at"),
                format!(
                    "steps must be in non-decreasing `at` order: {} is earlier than the \
                     previous step's {previous}",
                    step.at
                ),
            ));
        }
        previous_at = Some(step.at);
        steps.push(convert_step(
            i,
            step,
            &metric_types,
            spec.metrics.is_empty(),
        )?);
    }
    if !cluster.enabled(Gate::SidecarContainers) {
        // Without the gate the API server drops an init container's `restartPolicy`: a
        // sidecar is a plain init container, whose requests the controller does not count.
        for container in steps
            .iter_mut()
            .flat_map(|step| step.pods.iter_mut())
            .flat_map(|pod| pod.containers.iter_mut())
            .filter(|c| c.kind == ContainerKind::RestartableInit)
        {
            container.kind = ContainerKind::Init;
        }
    }
    if !cluster.enabled(Gate::PodLevelResources) {
        // Without the gate a pod has no pod-level resources: the API server drops them.
        for pod in steps.iter_mut().flat_map(|step| step.pods.iter_mut()) {
            pod.requests = None;
        }
    }
    Ok(Trace {
        settings,
        cluster,
        scaled_to_zero,
        name,
        spec,
        steps,
    })
}

/// A standalone manifest ([`Manifest`]), in `autoscaling/v2` (converted from the version it
/// was written in): a name, a scale target reference (an absent one is validated as empty),
/// then the spec with every validation error of `cluster`'s API server; with the notes of the
/// fields that server drops.
pub(super) fn convert_manifest(
    raw: RawHpa,
    cluster: &Cluster,
) -> Result<(Manifest, Vec<String>), Vec<TraceError>> {
    let metadata = raw.metadata;
    let has_generate_name = metadata.as_ref().is_some_and(|m| m.generate_name.is_some());
    let name = metadata.and_then(|m| m.name).unwrap_or_default();
    if name.is_empty() && !has_generate_name {
        return Err(vec![TraceError::new(
            "metadata.name",
            "Required value: name or generateName is required",
        )]);
    }
    let mut raw_spec = raw.spec.unwrap_or_default();
    // Required by the API: an absent reference is validated as an empty one.
    raw_spec
        .scale_target_ref
        .get_or_insert_with(RawObjectRef::default);
    let notes = cluster
        .prepare_spec(&mut raw_spec, "")
        .map_err(|e| vec![e])?;
    let spec = checked_spec_all(raw_spec, cluster, "")?;
    let manifest = Manifest {
        name,
        api_version: ApiVersion::V2,
        spec,
    };
    Ok((manifest, notes))
}

/// Field paths of the HPA inside a trace start with `hpa.`; a standalone manifest's have no
/// prefix (`spec.minReplicas`, as the API server reports them).
const TRACE_PREFIX: &str = "hpa.";

/// A validation error under `prefix` (its text is `<field>: <detail>`).
fn validation_error(e: &ValidationError, prefix: &str) -> TraceError {
    let field = e.field.to_string();
    let text = e.to_string();
    let message = text
        .strip_prefix(&format!("{field}: "))
        .unwrap_or(&text)
        .to_owned();
    TraceError::new(format!("{prefix}{field}"), message)
}

fn quantity(path: &str, text: &QuantityText) -> Result<Quantity, TraceError> {
    Quantity::parse(&text.0)
        .map_err(|e| TraceError::new(path, format!("invalid quantity {:?}: {e}", text.0)))
}

#[cfg(test)]
mod tests {
    use bumpalo::Bump;
    use hpa::input::MetricValues;

    use crate::trace::test_support::{assert_error, base_with, json};

    #[test]
    fn steps_in_order() {
        let step = r#"{"at": 5, "replicas": 1, "pods": [], "metrics": [{"error": "x"}]}"#;
        let text =
            base_with(r#""at": 0"#, r#""at": 10"#).replacen("]}]}", &format!("]}}, {step}]}}"), 1);
        assert_error(
            json(&text),
            "steps[1].at",
            "steps must be in non-decreasing `at` order: 5 is earlier than the previous step's 10",
        );
        // Equal times are fine.
        let equal = text.replacen(r#""at": 10"#, r#""at": 5"#, 1);
        assert_eq!(json(&equal).unwrap().steps(), 2);
    }

    #[test]
    fn quantities() {
        assert_error(
            json(&base_with(r#""100m""#, r#""1.2.3""#)),
            "steps[0].metrics[0].samples.p0.value",
            "invalid quantity \"1.2.3\": quantities must match the regular expression",
        );
        assert_error(
            json(&base_with(r#""100m""#, r#""""#)),
            "steps[0].metrics[0].samples.p0.value",
            "invalid quantity \"\"",
        );
        assert_error(
            json(&base_with(r#""100m""#, "true")),
            "steps[0].metrics[0].samples.p0.value",
            "invalid type: boolean `true`, expected a quantity",
        );
        assert_error(
            json(&base_with(
                r#""averageUtilization": 50"#,
                r#""averageUtilization": 50, "averageValue": "x""#,
            )),
            "hpa.spec.metrics[0].resource.target.averageValue",
            "invalid quantity \"x\"",
        );
        // JSON numbers are read from their decimal text, rounding up to milli-units.
        let exact = |value: &str| {
            let trace = json(&base_with(r#""100m""#, value)).unwrap();
            let arena = Bump::new();
            let MetricValues::Pods(s) = trace.step_view(0, &arena).unwrap().observation.metrics[0]
            else {
                panic!("expected samples")
            };
            s.per_pod[0].unwrap().milli
        };
        assert_eq!(exact("0.1"), 100);
        assert_eq!(exact("0.0001"), 1);
        assert_eq!(exact("1e3"), 1_000_000);
        assert_eq!(exact("-0"), 0);
        assert_eq!(exact("100000000000000000000000"), i64::MAX);
        assert_eq!(exact("\" 250m \""), 250);
    }
}
