//! Pods, Object and External sources.

use hpa::spec::{
    ContainerResourceMetricSource, CrossVersionObjectReference, ExternalMetricSource,
    MetricIdentifier, MetricSourceType, MetricSpec, MetricTargetType, ObjectMetricSource,
    ResourceMetricSource,
};

use super::{
    assert_err, average_target, external, object, ok, pods, spec, target, value_target, RC,
};

#[test]
fn metric_name_required() {
    let cases = [
        (
            pods(
                "",
                target(Some(MetricTargetType::Value), None, Some("100m"), None),
            ),
            "spec.metrics[0].pods.metric.name: Required value: must specify a metric name",
        ),
        (
            object("ReplicationController", "myrc", "", value_target("100m")),
            "spec.metrics[0].object.metric.name: Required value: must specify a metric name",
        ),
        (
            external("", value_target("300m")),
            "spec.metrics[0].external.metric.name: Required value: must specify a metric name",
        ),
    ];
    for (m, expected) in cases {
        let metrics = [m];
        assert_err(&spec(&metrics), expected);
    }
}

#[test]
fn metric_name_must_be_a_path_segment() {
    let metrics = [external("foo/../", value_target("300m"))];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].external.metric.name: Invalid value: \"foo/../\": may not contain '/'",
    );
    let metrics = [pods("..", average_target("1"))];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].pods.metric.name: Invalid value: \"..\": may not be '..'",
    );
    let metrics = [object("Deployment", "web", "50%", value_target("1"))];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].object.metric.name: Invalid value: \"50%\": may not contain '%'",
    );
}

#[test]
fn pods_average_value_required() {
    let metrics = [pods(
        "somemetric",
        target(Some(MetricTargetType::Value), None, None, None),
    )];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].pods.target.averageValue: Required value: must specify a positive \
         target averageValue",
    );
    // A `value` does not count.
    let metrics = [pods("somemetric", value_target("1"))];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].pods.target.averageValue: Required value: must specify a positive \
         target averageValue",
    );
}

#[test]
fn object_value_or_average_value_required() {
    let metrics = [object(
        "ReplicationController",
        "myrc",
        "somemetric",
        target(Some(MetricTargetType::Value), None, None, None),
    )];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].object.target.averageValue: Required value: must set either a target \
         value or averageValue",
    );
    // Both set is allowed for Object.
    let metrics = [object(
        "ReplicationController",
        "myrc",
        "somemetric",
        target(Some(MetricTargetType::Value), Some("1"), Some("2"), None),
    )];
    ok(&spec(&metrics), false);
}

#[test]
fn object_described_object() {
    let metrics = [object("", "myrc", "somemetric", value_target("100m"))];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].object.describedObject.kind: Required value",
    );
    let metrics = [object(
        "ReplicationController",
        "",
        "somemetric",
        value_target("100m"),
    )];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].object.describedObject.name: Required value",
    );
    let metrics = [object(
        "Deployment",
        "a/b",
        "somemetric",
        value_target("100m"),
    )];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].object.describedObject.name: Invalid value: \"a/b\": may not contain '/'",
    );
    let metrics = [MetricSpec::object(
        CrossVersionObjectReference {
            kind: "Deployment",
            name: "web",
            api_version: "apps/v1/v2",
        },
        MetricIdentifier::named("hits"),
        value_target("1"),
    )];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].object.describedObject.apiVersion: Invalid value: \"apps/v1/v2\": \
         unexpected GroupVersion string: apps/v1/v2",
    );
}

#[test]
fn external_value_or_average_value_required() {
    let metrics = [external(
        "somemetric",
        target(Some(MetricTargetType::Value), None, None, None),
    )];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].external.target.averageValue: Required value: must set either a target \
         value for metric or a per-pod target",
    );
}

#[test]
fn external_may_not_set_both_values() {
    let metrics = [external(
        "somemetric",
        target(
            Some(MetricTargetType::Value),
            Some("300m"),
            Some("300m"),
            None,
        ),
    )];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].external.target.value: Forbidden: may not set both a target value for \
         metric and a per-pod target",
    );
}

#[test]
fn external_source_fields() {
    // Sanity: the struct literal form works the same as the helper.
    let metrics = [MetricSpec {
        type_: Some(MetricSourceType::External),
        external: Some(ExternalMetricSource {
            metric: MetricIdentifier::named("queue"),
            target: average_target("-1"),
        }),
        ..MetricSpec::default()
    }];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].external.target.averageValue: Invalid value: -1: must be positive",
    );
    let _ = (
        ObjectMetricSource {
            described_object: RC,
            metric: MetricIdentifier::named("x"),
            target: value_target("1"),
        },
        ResourceMetricSource {
            name: "cpu",
            target: value_target("1"),
        },
        ContainerResourceMetricSource {
            name: "cpu",
            container: "c",
            target: value_target("1"),
        },
    );
}
