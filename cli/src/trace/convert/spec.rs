//! `hpa.spec`: converted into the owned spec, then validated as the API server would (after
//! defaulting). Enum strings the typed spec cannot hold are collected as they are met and
//! handed to [`validate_spec_each`], so that the errors are upstream's, in its order. Apart
//! because it is the part a standalone manifest (`hpa validate`, `hpa simulate`) shares with a
//! trace, and the one checked by upstream's rules rather than the trace format's.

use bumpalo::Bump;
use hpa::defaults::Hpa;
use hpa::settings::Settings;
use hpa::spec::{
    MetricSourceType, MetricTarget, MetricTargetType, PolicyType, ScalingPolicy, SelectPolicy,
};
use hpa::validation::{source_field_name, validate_spec_each, Direction, Unrecognized};

use super::{quantity, validation_error};
use crate::trace::first_error;
use crate::trace::owned::{
    OwnedBehavior, OwnedIdentifier, OwnedMetric, OwnedRef, OwnedRules, OwnedSpec,
};
use crate::trace::raw::{RawIdentifier, RawMetricSpec, RawObjectRef, RawRules, RawSpec, RawTarget};
use crate::trace::selector::{LabelSelector, Requirement};
use crate::trace::{Cluster, TraceError};

fn convert_ref(raw: RawObjectRef) -> OwnedRef {
    OwnedRef {
        kind: raw.kind.unwrap_or_default(),
        name: raw.name.unwrap_or_default(),
        api_version: raw.api_version.unwrap_or_default(),
    }
}

fn convert_identifier(raw: Option<RawIdentifier>) -> OwnedIdentifier {
    let raw = raw.unwrap_or_default();
    let selector = raw.selector.map(|s| LabelSelector {
        match_labels: s.match_labels.unwrap_or_default().0,
        match_expressions: s
            .match_expressions
            .unwrap_or_default()
            .into_iter()
            .map(|r| Requirement {
                key: r.key.unwrap_or_default(),
                operator: r.operator.unwrap_or_default(),
                values: r.values.unwrap_or_default(),
            })
            .collect(),
    });
    OwnedIdentifier {
        name: raw.name.unwrap_or_default(),
        selector_invalid: selector.as_ref().is_some_and(|s| !s.converts()),
        selector: selector.as_ref().map(LabelSelector::render),
    }
}

/// A string of the spec that the typed model cannot hold (owned form of [`Unrecognized`]).
#[derive(Debug)]
enum OwnedUnrecognized {
    MetricType {
        metric: usize,
        value: String,
    },
    TargetType {
        metric: usize,
        source: MetricSourceType,
        value: String,
    },
    SelectPolicy {
        direction: Direction,
        value: String,
    },
    PolicyType {
        direction: Direction,
        policy: usize,
        value: String,
    },
}

impl OwnedUnrecognized {
    fn view(&self) -> Unrecognized<'_> {
        match self {
            OwnedUnrecognized::MetricType { metric, value } => Unrecognized::MetricType {
                metric: *metric,
                value,
            },
            OwnedUnrecognized::TargetType {
                metric,
                source,
                value,
            } => Unrecognized::TargetType {
                metric: *metric,
                source: *source,
                value,
            },
            OwnedUnrecognized::SelectPolicy { direction, value } => Unrecognized::SelectPolicy {
                direction: *direction,
                value,
            },
            OwnedUnrecognized::PolicyType {
                direction,
                policy,
                value,
            } => Unrecognized::PolicyType {
                direction: *direction,
                policy: *policy,
                value,
            },
        }
    }
}

/// Converts `hpa.spec`, collecting the enum strings the typed model cannot hold; validation
/// reports them at their place in upstream's order.
struct SpecConverter {
    unrecognized: Vec<OwnedUnrecognized>,
    /// Prefix of the field paths in errors ([`TRACE_PREFIX`](super::TRACE_PREFIX) or empty).
    prefix: &'static str,
}

impl SpecConverter {
    fn target(
        &mut self,
        metric: usize,
        source: MetricSourceType,
        raw: Option<RawTarget>,
    ) -> Result<MetricTarget, TraceError> {
        let path = format!(
            "{}spec.metrics[{metric}].{}.target",
            self.prefix,
            source_field_name(source)
        );
        let raw = raw.unwrap_or_default();
        let type_ = match raw.type_.as_deref() {
            None | Some("") => None,
            Some("Utilization") => Some(MetricTargetType::Utilization),
            Some("Value") => Some(MetricTargetType::Value),
            Some("AverageValue") => Some(MetricTargetType::AverageValue),
            Some(other) => {
                self.unrecognized.push(OwnedUnrecognized::TargetType {
                    metric,
                    source,
                    value: other.to_owned(),
                });
                None
            }
        };
        Ok(MetricTarget {
            type_,
            value: raw
                .value
                .as_ref()
                .map(|q| quantity(&format!("{path}.value"), q))
                .transpose()?,
            average_value: raw
                .average_value
                .as_ref()
                .map(|q| quantity(&format!("{path}.averageValue"), q))
                .transpose()?,
            average_utilization: raw.average_utilization,
        })
    }

    fn metric(&mut self, index: usize, raw: RawMetricSpec) -> Result<OwnedMetric, TraceError> {
        let type_ = match raw.type_.as_deref() {
            None | Some("") => None,
            Some("Object") => Some(MetricSourceType::Object),
            Some("Pods") => Some(MetricSourceType::Pods),
            Some("Resource") => Some(MetricSourceType::Resource),
            Some("ContainerResource") => Some(MetricSourceType::ContainerResource),
            Some("External") => Some(MetricSourceType::External),
            Some(other) => {
                self.unrecognized.push(OwnedUnrecognized::MetricType {
                    metric: index,
                    value: other.to_owned(),
                });
                None
            }
        };
        let object = match raw.object {
            Some(o) => Some((
                convert_ref(o.described_object.unwrap_or_default()),
                convert_identifier(o.metric),
                self.target(index, MetricSourceType::Object, o.target)?,
            )),
            None => None,
        };
        let pods = match raw.pods {
            Some(p) => Some((
                convert_identifier(p.metric),
                self.target(index, MetricSourceType::Pods, p.target)?,
            )),
            None => None,
        };
        let resource = match raw.resource {
            Some(r) => Some((
                r.name.unwrap_or_default(),
                self.target(index, MetricSourceType::Resource, r.target)?,
            )),
            None => None,
        };
        let container_resource = match raw.container_resource {
            Some(r) => Some((
                r.name.unwrap_or_default(),
                r.container.unwrap_or_default(),
                self.target(index, MetricSourceType::ContainerResource, r.target)?,
            )),
            None => None,
        };
        let external = match raw.external {
            Some(e) => Some((
                convert_identifier(e.metric),
                self.target(index, MetricSourceType::External, e.target)?,
            )),
            None => None,
        };
        Ok(OwnedMetric {
            type_,
            object,
            pods,
            resource,
            container_resource,
            external,
        })
    }

    fn rules(&mut self, direction: Direction, raw: RawRules) -> Result<OwnedRules, TraceError> {
        let select_policy = match raw.select_policy.as_deref() {
            None => None,
            Some("Max") => Some(SelectPolicy::Max),
            Some("Min") => Some(SelectPolicy::Min),
            Some("Disabled") => Some(SelectPolicy::Disabled),
            Some(other) => {
                self.unrecognized.push(OwnedUnrecognized::SelectPolicy {
                    direction,
                    value: other.to_owned(),
                });
                None
            }
        };
        let policies = raw.policies.map(|policies| {
            policies
                .into_iter()
                .enumerate()
                .map(|(policy, p)| {
                    let type_ = match p.type_.as_deref().unwrap_or("") {
                        "Pods" => PolicyType::Pods,
                        "Percent" => PolicyType::Percent,
                        other => {
                            self.unrecognized.push(OwnedUnrecognized::PolicyType {
                                direction,
                                policy,
                                value: other.to_owned(),
                            });
                            // A placeholder: validation reports the string at this place.
                            PolicyType::Pods
                        }
                    };
                    ScalingPolicy {
                        type_,
                        // Go decodes absent integers as 0, which validation rejects.
                        value: p.value.unwrap_or(0),
                        period_seconds: p.period_seconds.unwrap_or(0),
                    }
                })
                .collect()
        });
        let path = format!(
            "{}spec.behavior.{}.tolerance",
            self.prefix,
            direction.field_name()
        );
        Ok(OwnedRules {
            stabilization_window_seconds: raw.stabilization_window_seconds,
            select_policy,
            policies,
            tolerance: raw
                .tolerance
                .as_ref()
                .map(|q| quantity(&path, q))
                .transpose()?,
        })
    }

    fn spec(&mut self, raw: RawSpec) -> Result<OwnedSpec, TraceError> {
        let metrics = raw
            .metrics
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(i, m)| self.metric(i, m))
            .collect::<Result<Vec<_>, _>>()?;
        let behavior = match raw.behavior {
            None => None,
            Some(b) => Some(OwnedBehavior {
                scale_up: b
                    .scale_up
                    .map(|r| self.rules(Direction::ScaleUp, r))
                    .transpose()?,
                scale_down: b
                    .scale_down
                    .map(|r| self.rules(Direction::ScaleDown, r))
                    .transpose()?,
            }),
        };
        Ok(OwnedSpec {
            min_replicas: raw.min_replicas,
            // Go decodes an absent `maxReplicas` as 0, which validation rejects.
            max_replicas: raw.max_replicas.unwrap_or(0),
            metrics,
            behavior,
            scale_target_ref: raw.scale_target_ref.map(convert_ref),
        })
    }
}

/// Converts and validates `hpa.spec` as `cluster`'s API server would (after defaulting, and
/// after [`Cluster::prepare_spec`]); error paths start with `prefix`. The error is the first
/// one [`checked_spec_all`] lists.
pub(super) fn checked_spec(
    raw: RawSpec,
    cluster: &Cluster,
    prefix: &'static str,
) -> Result<OwnedSpec, TraceError> {
    checked_spec_all(raw, cluster, prefix).map_err(first_error)
}

/// [`checked_spec`] with every error: a conversion error alone, or the API server's
/// validation errors in its order ([`validate_spec_each`]); for a spec without any, an
/// unrecognized string that validation did not reach, or else the engine's limit on the
/// number of metrics ([`Hpa::new`]).
pub(super) fn checked_spec_all(
    raw: RawSpec,
    cluster: &Cluster,
    prefix: &'static str,
) -> Result<OwnedSpec, Vec<TraceError>> {
    let settings = &cluster.settings(Settings::DEFAULT);
    let mut converter = SpecConverter {
        unrecognized: Vec::new(),
        prefix,
    };
    let mut spec = converter.spec(raw).map_err(|e| vec![e])?;
    let unrecognized: Vec<Unrecognized<'_>> = converter
        .unrecognized
        .iter()
        .map(OwnedUnrecognized::view)
        .collect();
    let mut errors = Vec::new();
    {
        let arena = Bump::new();
        let view = spec.view(&arena);
        validate_spec_each(&view, settings.scale_to_zero, &unrecognized, &mut |e| {
            errors.push(validation_error(e, prefix));
        });
    }
    cluster.adjust_errors(&mut errors);
    if errors.is_empty() {
        // Validation reports every unrecognized string it reaches; one it does not reach is
        // still a value the engine cannot run with.
        if let Some(first) = unrecognized.first() {
            errors.push(validation_error(&first.to_error(), prefix));
        }
    }
    if errors.is_empty() {
        if !cluster.checks_api_versions() {
            forget_api_versions(&mut spec);
        }
        // The engine's own limit on the number of metrics, which `Hpa::new` checks once the
        // spec passes validation.
        let arena = Bump::new();
        if let Err(e) = Hpa::new(&spec.view(&arena), settings) {
            errors.push(validation_error(&e, prefix));
        }
    }
    if errors.is_empty() {
        Ok(spec)
    } else {
        Err(errors)
    }
}

/// A spec validated by a release that does not check the `apiVersion` of object references
/// (before 1.34), made one the engine's newer rules accept: the engine never reads these
/// references, and `Hpa::new` would refuse them again.
fn forget_api_versions(spec: &mut OwnedSpec) {
    spec.scale_target_ref = None;
    for metric in &mut spec.metrics {
        if let Some((described, _, _)) = &mut metric.object {
            described.api_version.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use bumpalo::Bump;

    use crate::trace::test_support::{assert_error, base_with, json};

    #[test]
    fn api_validation() {
        let with_controller = |text: String, controller: &str| {
            text.replacen(
                r#""steps""#,
                &format!(r#""controller": {controller}, "steps""#),
                1,
            )
        };
        assert_error(
            json(&with_controller(
                base_with(
                    r#""maxReplicas": 10"#,
                    r#""minReplicas": 0, "maxReplicas": 10"#,
                ),
                r#"{"scaleToZero": false}"#,
            )),
            "hpa.spec.minReplicas",
            "Invalid value: 0: must be greater than or equal to 1",
        );
        let behavior = |rules: &str| {
            json(&base_with(
                r#""maxReplicas": 10"#,
                &format!(r#""maxReplicas": 10, "behavior": {rules}"#),
            ))
        };
        assert_error(
            behavior(r#"{"scaleUp": {"policies": []}}"#),
            "hpa.spec.behavior.scaleUp.policies",
            "Required value: must specify at least one Policy",
        );
        assert!(behavior(r#"{"scaleUp": {"policies": null}}"#).is_ok());
        assert_error(
            behavior(r#"{"scaleDown": {"selectPolicy": ""}}"#),
            "hpa.spec.behavior.scaleDown.selectPolicy",
            r#"Unsupported value: "": supported values: "Disabled", "Max", "Min""#,
        );
        assert_error(
            behavior(r#"{"scaleDown": {"policies": [{"value": 1, "periodSeconds": 1}]}}"#),
            "hpa.spec.behavior.scaleDown.policies[0].type",
            r#"Unsupported value: "": supported values: "Percent", "Pods""#,
        );
        assert!(behavior(r#"{"scaleDown": {"policies": [{"type": "Percent", "value": 400, "periodSeconds": 1}]}}"#).is_ok());
        assert_error(
            json(&base_with(r#""type": "Resource""#, r#""type": "Foo""#)),
            "hpa.spec.metrics[0].type",
            r#"Unsupported value: "Foo": supported values: "ContainerResource", "External", "Object", "Pods", "Resource""#,
        );
        assert_error(
            json(&base_with(
                r#""type": "Utilization""#,
                r#""type": "Percent""#,
            )),
            "hpa.spec.metrics[0].resource.target.type",
            r#"Invalid value: "Percent": must be either Utilization, Value, or AverageValue"#,
        );
        // Upstream's order: minReplicas is reported before a later unknown metric type.
        assert_error(
            json(&with_controller(
                base_with(r#""type": "Resource""#, r#""type": "Foo""#).replacen(
                    r#""maxReplicas": 10"#,
                    r#""minReplicas": 0, "maxReplicas": 10"#,
                    1,
                ),
                r#"{"scaleToZero": false}"#,
            )),
            "hpa.spec.minReplicas",
            "Invalid value: 0",
        );
        assert_error(
            json(&base_with(
                r#"{"metadata""#,
                r#"{"apiVersion": "autoscaling/v1", "metadata""#,
            )),
            "hpa.apiVersion",
            r#"Unsupported value: "autoscaling/v1": supported values: "autoscaling/v2""#,
        );
        assert_error(
            json(&base_with(
                r#"{"metadata""#,
                r#"{"kind": "Deployment", "metadata""#,
            )),
            "hpa.kind",
            r#"Unsupported value: "Deployment""#,
        );
    }

    #[test]
    fn metric_selectors() {
        let selector = |sel: &str| {
            let text = base_with(
                r#"{"type": "Resource",
    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}"#,
                &format!(
                    r#"{{"type": "Pods", "pods": {{"metric": {{"name": "qps", "selector": {sel}}},
    "target": {{"type": "AverageValue", "averageValue": "1"}}}}}}"#
                ),
            );
            let trace = json(&text).unwrap();
            let arena = Bump::new();
            let id = trace.spec(&arena).metrics[0].pods.unwrap().metric;
            (id.selector.map(str::to_owned), id.selector_invalid)
        };
        assert_eq!(selector("null"), (None, false));
        assert_eq!(
            selector("{}"),
            (
                Some(
                    "&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}"
                        .to_owned()
                ),
                false
            )
        );
        assert_eq!(
            selector(r#"{"matchExpressions": [{"key": "k", "operator": "In", "values": ["a", "b"]}]}"#),
            (
                Some(
                    "&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:k,Operator:In,Values:[a b],},},}"
                        .to_owned()
                ),
                false
            )
        );
        assert!(
            selector(r#"{"matchExpressions": [{"key": "k", "operator": "Gt", "values": ["1"]}]}"#)
                .1
        );
        assert!(selector(r#"{"matchExpressions": [{"key": "k", "operator": "In"}]}"#).1);
        assert!(selector(r#"{"matchLabels": {"k": "bad value"}}"#).1);
    }
}
