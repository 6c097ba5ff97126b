//! The walk over a spec that applies upstream's rules in the order upstream appends its errors.

use super::error::{metric_path, rules_path};
use super::names::{
    count_byte, for_each_container_resource_name_error, for_each_dns1123_label_error,
    for_each_path_segment_name_error, split_once_byte,
};
use super::{
    source_field_name, BadValue, Detail, Direction, FieldPath, Flow, NamePart, Sink,
    SupportedValues, Unrecognized, ValidationError, GO_ON, MAX_PERIOD_SECONDS,
    MAX_STABILIZATION_WINDOW_SECONDS,
};
use crate::spec::{
    CrossVersionObjectReference, HpaSpec, MetricIdentifier, MetricSourceType, MetricSpec,
    MetricTarget, ScalingRules,
};

/// `validateHorizontalPodAutoscalerSpec`: replica bounds, `scaleTargetRef`, `metrics`,
/// `behavior`, in that order.
pub(super) fn walk_spec(
    spec: &HpaSpec<'_>,
    scale_to_zero: bool,
    unrecognized: &[Unrecognized<'_>],
    sink: &mut Sink<'_>,
) -> Flow {
    let spec_path = || FieldPath::root("spec");
    let lower_bound: i32 = if scale_to_zero { 0 } else { 1 };
    // API defaulting sets an absent `minReplicas` to 1 before validation.
    let min = spec.min_replicas.unwrap_or(1);
    if min < lower_bound {
        sink.report(ValidationError::invalid(
            spec_path().child("minReplicas"),
            BadValue::Int(i64::from(min)),
            Detail::GreaterThanOrEqualTo(i64::from(lower_bound)),
        ))?;
    }
    if spec.max_replicas < 1 {
        sink.report(ValidationError::invalid(
            spec_path().child("maxReplicas"),
            BadValue::Int(i64::from(spec.max_replicas)),
            Detail::GreaterThan0,
        ))?;
    }
    if spec.max_replicas < min {
        sink.report(ValidationError::invalid(
            spec_path().child("maxReplicas"),
            BadValue::Int(i64::from(spec.max_replicas)),
            Detail::GreaterThanOrEqualToMinReplicas,
        ))?;
    }
    if let Some(target) = &spec.scale_target_ref {
        // The core API's only scalable kind may omit the API group (registry strategy).
        let allow_empty_group = target.kind == "ReplicationController";
        walk_object_reference(
            target,
            || spec_path().child("scaleTargetRef"),
            allow_empty_group,
            sink,
        )?;
    }
    walk_metrics(spec.metrics, spec.min_replicas, unrecognized, sink)?;
    if let Some(behavior) = &spec.behavior {
        walk_rules(
            behavior.scale_up.as_ref(),
            Direction::ScaleUp,
            unrecognized,
            sink,
        )?;
        walk_rules(
            behavior.scale_down.as_ref(),
            Direction::ScaleDown,
            unrecognized,
            sink,
        )?;
    }
    GO_ON
}

/// `validateMetrics`: each metric, then the scale-to-zero rule.
fn walk_metrics(
    metrics: &[MetricSpec<'_>],
    min_replicas: Option<i32>,
    unrecognized: &[Unrecognized<'_>],
    sink: &mut Sink<'_>,
) -> Flow {
    let mut has_object_or_external = false;
    for (index, metric) in metrics.iter().enumerate() {
        let unknown_type = unknown_metric_type(index, unrecognized);
        walk_metric(index, metric, unknown_type, unrecognized, sink)?;
        // Upstream looks at `type` only, valid or not; an unknown string is neither.
        if unknown_type.is_none()
            && matches!(
                metric.type_,
                Some(MetricSourceType::Object) | Some(MetricSourceType::External)
            )
        {
            has_object_or_external = true;
        }
    }
    if min_replicas == Some(0) && !has_object_or_external {
        sink.report(ValidationError::forbidden(
            FieldPath::root("spec").child("metrics"),
            Detail::ObjectOrExternalMetricForScaleToZero,
        ))?;
    }
    GO_ON
}

fn unknown_metric_type<'u>(index: usize, unrecognized: &[Unrecognized<'u>]) -> Option<&'u str> {
    unrecognized.iter().find_map(|u| match *u {
        Unrecognized::MetricType { metric, value } if metric == index => Some(value),
        _ => None,
    })
}

/// The sources of a metric in the order upstream examines them.
const SOURCE_ORDER: [MetricSourceType; 5] = [
    MetricSourceType::Object,
    MetricSourceType::External,
    MetricSourceType::Pods,
    MetricSourceType::Resource,
    MetricSourceType::ContainerResource,
];

fn source_present(metric: &MetricSpec<'_>, source: MetricSourceType) -> bool {
    match source {
        MetricSourceType::Object => metric.object.is_some(),
        MetricSourceType::Pods => metric.pods.is_some(),
        MetricSourceType::Resource => metric.resource.is_some(),
        MetricSourceType::ContainerResource => metric.container_resource.is_some(),
        MetricSourceType::External => metric.external.is_some(),
    }
}

/// `validateMetricSpec`.
fn walk_metric(
    index: usize,
    metric: &MetricSpec<'_>,
    unknown_type: Option<&str>,
    unrecognized: &[Unrecognized<'_>],
    sink: &mut Sink<'_>,
) -> Flow {
    let type_path = || metric_path(index).child("type");
    // An unrecognized string replaces the typed field; a missing type is the empty string.
    let type_ = if unknown_type.is_some() {
        None
    } else {
        metric.type_
    };
    let type_text = match (unknown_type, type_) {
        (Some(value), _) => Some(value),
        (None, None) => Some(""),
        (None, Some(_)) => None,
    };
    if let Some(value) = type_text {
        // Upstream: Required for "", then Unsupported for any string outside the enumeration,
        // "" included.
        if value.is_empty() {
            sink.report(ValidationError::required(
                type_path(),
                Detail::MetricSourceTypeRequired,
            ))?;
        }
        sink.report(ValidationError::unsupported(
            type_path(),
            value,
            SupportedValues::MetricSourceTypes,
        ))?;
    }

    // Only the first populated source (in upstream's order) is validated in depth, whether or
    // not it is the one `type` names.
    if let Some(first) = SOURCE_ORDER
        .iter()
        .copied()
        .find(|s| source_present(metric, *s))
    {
        let unknown_target = unrecognized.iter().find_map(|u| match *u {
            Unrecognized::TargetType {
                metric: m,
                source: s,
                value,
            } if m == index && s == first => Some(value),
            _ => None,
        });
        walk_source(index, metric, first, unknown_target, sink)?;
    }

    let source_path =
        |source: MetricSourceType| metric_path(index).child(source_field_name(source));
    if let Some(type_) = type_ {
        if !source_present(metric, type_) {
            sink.report(ValidationError::required(
                source_path(type_),
                Detail::PopulateMetricSource,
            ))?;
        }
    }
    // (For a type outside the enumeration upstream appends the Unsupported error once more
    // here; `ToAggregate` and kubectl drop the repetition, and so does this walk.)
    let populated = SOURCE_ORDER
        .iter()
        .filter(|s| source_present(metric, **s))
        .count();
    if populated != 1 {
        // Upstream lists them in Go map order; upstream's examination order is used here.
        for extra in SOURCE_ORDER
            .iter()
            .copied()
            .filter(|s| Some(*s) != type_ && source_present(metric, *s))
        {
            sink.report(ValidationError::forbidden(
                source_path(extra),
                Detail::PopulateMetricSourceOnly,
            ))?;
        }
    }
    GO_ON
}

/// `validateObjectSource`, `validateExternalSource`, `validatePodsSource`,
/// `validateResourceSource` or `validateContainerResourceSource` for `source`.
fn walk_source(
    index: usize,
    metric: &MetricSpec<'_>,
    source: MetricSourceType,
    unknown_target: Option<&str>,
    sink: &mut Sink<'_>,
) -> Flow {
    let path = || metric_path(index).child(source_field_name(source));
    let target_path = || path().child("target");
    match source {
        MetricSourceType::Object => {
            if let Some(src) = &metric.object {
                walk_object_reference(
                    &src.described_object,
                    || path().child("describedObject"),
                    true,
                    sink,
                )?;
                walk_metric_identifier(&src.metric, || path().child("metric"), sink)?;
                walk_target(&src.target, target_path, unknown_target, sink)?;
                if src.target.value.is_none() && src.target.average_value.is_none() {
                    sink.report(ValidationError::required(
                        target_path().child("averageValue"),
                        Detail::ObjectValueOrAverageValueRequired,
                    ))?;
                }
            }
        }
        MetricSourceType::External => {
            if let Some(src) = &metric.external {
                walk_metric_identifier(&src.metric, || path().child("metric"), sink)?;
                walk_target(&src.target, target_path, unknown_target, sink)?;
                match (&src.target.value, &src.target.average_value) {
                    (None, None) => sink.report(ValidationError::required(
                        target_path().child("averageValue"),
                        Detail::ExternalValueOrAverageValueRequired,
                    ))?,
                    (Some(_), Some(_)) => sink.report(ValidationError::forbidden(
                        target_path().child("value"),
                        Detail::ExternalValueAndAverageValueForbidden,
                    ))?,
                    _ => {}
                }
            }
        }
        MetricSourceType::Pods => {
            if let Some(src) = &metric.pods {
                walk_metric_identifier(&src.metric, || path().child("metric"), sink)?;
                walk_target(&src.target, target_path, unknown_target, sink)?;
                if src.target.average_value.is_none() {
                    sink.report(ValidationError::required(
                        target_path().child("averageValue"),
                        Detail::PodsAverageValueRequired,
                    ))?;
                }
            }
        }
        MetricSourceType::Resource => {
            if let Some(src) = &metric.resource {
                // Presence only: upstream does not check a Resource metric's name format.
                if src.name.is_empty() {
                    sink.report(ValidationError::required(
                        path().child("name"),
                        Detail::ResourceNameRequired,
                    ))?;
                }
                walk_target(&src.target, target_path, unknown_target, sink)?;
                walk_raw_or_utilization(&src.target, target_path, sink)?;
            }
        }
        MetricSourceType::ContainerResource => {
            if let Some(src) = &metric.container_resource {
                if src.name.is_empty() {
                    sink.report(ValidationError::required(
                        path().child("name"),
                        Detail::ResourceNameRequired,
                    ))?;
                } else {
                    for_each_container_resource_name_error(src.name, |detail| {
                        sink.report(ValidationError::invalid(
                            path().child("name"),
                            BadValue::name(src.name),
                            detail,
                        ))
                    })?;
                }
                if src.container.is_empty() {
                    sink.report(ValidationError::required(
                        path().child("container"),
                        Detail::ContainerRequired,
                    ))?;
                } else {
                    for_each_dns1123_label_error(src.container, |rule| {
                        sink.report(ValidationError::invalid(
                            path().child("container"),
                            BadValue::str(src.container),
                            Detail::Name(NamePart::Whole, rule),
                        ))
                    })?;
                }
                walk_target(&src.target, target_path, unknown_target, sink)?;
                walk_raw_or_utilization(&src.target, target_path, sink)?;
            }
        }
    }
    GO_ON
}

/// The Resource and ContainerResource rule: exactly one of `averageUtilization` and
/// `averageValue`.
fn walk_raw_or_utilization(
    target: &MetricTarget,
    path: impl Fn() -> FieldPath,
    sink: &mut Sink<'_>,
) -> Flow {
    match (&target.average_utilization, &target.average_value) {
        (None, None) => sink.report(ValidationError::required(
            path().child("averageUtilization"),
            Detail::RawValueOrUtilizationRequired,
        )),
        (Some(_), Some(_)) => sink.report(ValidationError::forbidden(
            path().child("averageValue"),
            Detail::RawValueAndUtilizationForbidden,
        )),
        _ => GO_ON,
    }
}

/// `validateMetricTarget`: every check runs.
fn walk_target(
    target: &MetricTarget,
    path: impl Fn() -> FieldPath,
    unknown_type: Option<&str>,
    sink: &mut Sink<'_>,
) -> Flow {
    // An unrecognized string replaces the typed field; a missing type is the empty string.
    let type_text = match (unknown_type, target.type_) {
        (Some(value), _) => Some(value),
        (None, None) => Some(""),
        (None, Some(_)) => None,
    };
    if let Some(value) = type_text {
        if value.is_empty() {
            sink.report(ValidationError::required(
                path().child("type"),
                Detail::TargetTypeRequired,
            ))?;
        }
        // "" is not one of the three types either.
        sink.report(ValidationError::invalid(
            path().child("type"),
            BadValue::str(value),
            Detail::TargetTypeInvalid,
        ))?;
    }
    if let Some(q) = &target.value {
        if q.signum() != 1 {
            sink.report(ValidationError::invalid(
                path().child("value"),
                BadValue::Quantity(*q),
                Detail::MustBePositive,
            ))?;
        }
    }
    if let Some(q) = &target.average_value {
        if q.signum() != 1 {
            sink.report(ValidationError::invalid(
                path().child("averageValue"),
                BadValue::Quantity(*q),
                Detail::MustBePositive,
            ))?;
        }
    }
    if let Some(u) = target.average_utilization {
        if u < 1 {
            sink.report(ValidationError::invalid(
                path().child("averageUtilization"),
                BadValue::Int(i64::from(u)),
                Detail::GreaterThan0,
            ))?;
        }
    }
    GO_ON
}

/// `validateMetricIdentifier`: a name, which must be a valid path segment.
fn walk_metric_identifier(
    id: &MetricIdentifier<'_>,
    path: impl Fn() -> FieldPath,
    sink: &mut Sink<'_>,
) -> Flow {
    if id.name.is_empty() {
        return sink.report(ValidationError::required(
            path().child("name"),
            Detail::MetricNameRequired,
        ));
    }
    for_each_path_segment_name_error(id.name, |detail| {
        sink.report(ValidationError::invalid(
            path().child("name"),
            BadValue::str(id.name),
            detail,
        ))
    })
}

/// `ValidateCrossVersionObjectReference`: kind and name required and valid path segments, and
/// `apiVersion` a valid group/version with a group unless `allow_empty_group`. The three are
/// checked independently.
fn walk_object_reference(
    reference: &CrossVersionObjectReference<'_>,
    path: impl Fn() -> FieldPath,
    allow_empty_group: bool,
    sink: &mut Sink<'_>,
) -> Flow {
    for (field, value) in [("kind", reference.kind), ("name", reference.name)] {
        if value.is_empty() {
            sink.report(ValidationError::required(path().child(field), Detail::None))?;
        } else {
            for_each_path_segment_name_error(value, |detail| {
                sink.report(ValidationError::invalid(
                    path().child(field),
                    BadValue::str(value),
                    detail,
                ))
            })?;
        }
    }
    let api_version = reference.api_version;
    let detail = match count_byte(api_version, b'/') {
        0 => (!allow_empty_group).then_some(Detail::ApiGroupRequired),
        1 => {
            let group = split_once_byte(api_version, b'/').map_or("", |(group, _)| group);
            (group.is_empty() && !allow_empty_group).then_some(Detail::ApiGroupRequired)
        }
        _ => Some(Detail::UnexpectedGroupVersion),
    };
    match detail {
        Some(detail) => sink.report(ValidationError::invalid(
            path().child("apiVersion"),
            BadValue::str(api_version),
            detail,
        )),
        None => GO_ON,
    }
}

/// `validateScalingRules` with `validateScalingPolicy` for each policy: every check runs.
fn walk_rules(
    rules: Option<&ScalingRules<'_>>,
    direction: Direction,
    unrecognized: &[Unrecognized<'_>],
    sink: &mut Sink<'_>,
) -> Flow {
    let Some(rules) = rules else {
        // Absent rules are completed with the defaults, which are valid.
        return GO_ON;
    };
    let path = || rules_path(direction);
    if let Some(window) = rules.stabilization_window_seconds {
        if window < 0 {
            sink.report(ValidationError::invalid(
                path().child("stabilizationWindowSeconds"),
                BadValue::Int(i64::from(window)),
                Detail::GreaterThanOrEqualToZero,
            ))?;
        }
        if window > MAX_STABILIZATION_WINDOW_SECONDS {
            sink.report(ValidationError::invalid(
                path().child("stabilizationWindowSeconds"),
                BadValue::Int(i64::from(window)),
                Detail::LessThanOrEqualTo(i64::from(MAX_STABILIZATION_WINDOW_SECONDS)),
            ))?;
        }
    }
    let unknown_select = unrecognized.iter().find_map(|u| match *u {
        Unrecognized::SelectPolicy {
            direction: d,
            value,
        } if d == direction => Some(value),
        _ => None,
    });
    if let Some(value) = unknown_select {
        sink.report(ValidationError::unsupported_select_policy(direction, value))?;
    }
    // Absent policies are completed with the defaults; `policies: []` is kept and rejected.
    if let Some(policies) = rules.policies {
        if policies.is_empty() {
            sink.report(ValidationError::required(
                path().child("policies"),
                Detail::AtLeastOnePolicy,
            ))?;
        }
        for (index, policy) in policies.iter().enumerate() {
            let policy_path = || path().child("policies").index(index);
            let unknown_type = unrecognized.iter().find_map(|u| match *u {
                Unrecognized::PolicyType {
                    direction: d,
                    policy: p,
                    value,
                } if d == direction && p == index => Some(value),
                _ => None,
            });
            if let Some(value) = unknown_type {
                sink.report(ValidationError::unsupported_policy_type(
                    direction, index, value,
                ))?;
            }
            if policy.value <= 0 {
                sink.report(ValidationError::invalid(
                    policy_path().child("value"),
                    BadValue::Int(i64::from(policy.value)),
                    Detail::GreaterThanZero,
                ))?;
            }
            if policy.period_seconds <= 0 {
                sink.report(ValidationError::invalid(
                    policy_path().child("periodSeconds"),
                    BadValue::Int(i64::from(policy.period_seconds)),
                    Detail::GreaterThanZero,
                ))?;
            }
            if policy.period_seconds > MAX_PERIOD_SECONDS {
                sink.report(ValidationError::invalid(
                    policy_path().child("periodSeconds"),
                    BadValue::Int(i64::from(policy.period_seconds)),
                    Detail::LessThanOrEqualTo(i64::from(MAX_PERIOD_SECONDS)),
                ))?;
            }
        }
    }
    if let Some(tolerance) = &rules.tolerance {
        if tolerance.signum() < 0 {
            sink.report(ValidationError::invalid(
                path().child("tolerance"),
                BadValue::Quantity(*tolerance),
                Detail::ToleranceNotNegative,
            ))?;
        }
    }
    GO_ON
}
