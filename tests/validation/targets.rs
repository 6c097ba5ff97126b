//! Metric targets (validateMetricTarget).

use hpa::spec::{MetricSourceType, MetricTarget, MetricTargetType};
use hpa::validation::{validate_spec_with, Unrecognized, ValidationError};

use super::{assert_err, container, external, object, pods, resource, spec, target, value_target};

#[test]
fn target_type_required() {
    let metrics = [external(
        "somemetric",
        target(None, Some("300m"), None, None),
    )];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].external.target.type: Required value: must specify a metric target type",
    );
    let metrics = [external("somemetric", target(None, None, None, None))];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].external.target.type: Required value: must specify a metric target type",
    );
}

#[test]
fn target_type_invalid() {
    let metrics = [external("somemetric", value_target("300m"))];
    let unknown = [Unrecognized::TargetType {
        metric: 0,
        source: MetricSourceType::External,
        value: "boogity",
    }];
    let e = validate_spec_with(&spec(&metrics), false, &unknown).unwrap_err();
    assert_eq!(
        e.to_string(),
        "spec.metrics[0].external.target.type: Invalid value: \"boogity\": must be either \
         Utilization, Value, or AverageValue"
    );
    assert_eq!(
        e,
        ValidationError::unsupported_target_type(0, MetricSourceType::External, "boogity")
    );
    // An empty string is a missing type.
    let unknown = [Unrecognized::TargetType {
        metric: 0,
        source: MetricSourceType::External,
        value: "",
    }];
    assert_eq!(
        validate_spec_with(&spec(&metrics), false, &unknown)
            .unwrap_err()
            .to_string(),
        "spec.metrics[0].external.target.type: Required value: must specify a metric target type"
    );
}

#[test]
fn target_value_must_be_positive() {
    let t = MetricTargetType::Value;
    let cases = [
        (
            external("somemetric", target(Some(t), Some("-300m"), None, None)),
            "spec.metrics[0].external.target.value: Invalid value: -300m: must be positive",
        ),
        (
            external("somemetric", target(Some(t), None, Some("-300m"), None)),
            "spec.metrics[0].external.target.averageValue: Invalid value: -300m: must be positive",
        ),
        (
            external("somemetric", target(Some(t), Some("0"), None, None)),
            "spec.metrics[0].external.target.value: Invalid value: 0: must be positive",
        ),
        (
            object(
                "Deployment",
                "web",
                "hits",
                target(Some(t), Some("-1"), None, None),
            ),
            "spec.metrics[0].object.target.value: Invalid value: -1: must be positive",
        ),
        (
            pods("qps", target(Some(t), None, Some("0"), None)),
            "spec.metrics[0].pods.target.averageValue: Invalid value: 0: must be positive",
        ),
        (
            resource("memory", target(Some(t), None, Some("-1Gi"), None)),
            "spec.metrics[0].resource.target.averageValue: Invalid value: -1Gi: must be positive",
        ),
    ];
    for (m, expected) in cases {
        let metrics = [m];
        assert_err(&spec(&metrics), expected);
    }
}

#[test]
fn target_utilization_must_be_positive() {
    let metrics = [resource("cpu", MetricTarget::utilization(-10))];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].resource.target.averageUtilization: Invalid value: -10: must be \
         greater than 0",
    );
    let metrics = [container(
        "cpu",
        "test-application",
        MetricTarget::utilization(0),
    )];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].containerResource.target.averageUtilization: Invalid value: 0: must \
         be greater than 0",
    );
}
