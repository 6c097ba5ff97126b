//! Metric type and source population.

use hpa::spec::{MetricIdentifier, MetricSourceType, MetricSpec, MetricTarget, PodsMetricSource};
use hpa::validation::{validate_spec_with, ErrorType, Unrecognized, ValidationError};

use super::{
    assert_err, average_target, container, cpu70, external, object, pods, resource, spec,
    value_target,
};

#[test]
fn metric_type_required() {
    let metrics = [MetricSpec::default()];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].type: Required value: must specify a metric source type",
    );
    // Also when a source is populated.
    let metrics = [MetricSpec {
        type_: None,
        ..cpu70()
    }];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].type: Required value: must specify a metric source type",
    );
}

#[test]
fn metric_type_unsupported() {
    let metrics = [MetricSpec::default()];
    let unknown = [Unrecognized::MetricType {
        metric: 0,
        value: "InvalidType",
    }];
    let e = validate_spec_with(&spec(&metrics), false, &unknown).unwrap_err();
    assert_eq!(
        e.to_string(),
        "spec.metrics[0].type: Unsupported value: \"InvalidType\": supported values: \
         \"ContainerResource\", \"External\", \"Object\", \"Pods\", \"Resource\""
    );
    assert_eq!(
        e,
        ValidationError::unsupported_metric_type(0, "InvalidType")
    );
    assert_eq!(e.kind, ErrorType::Unsupported);
}

#[test]
fn only_the_given_metric_source_may_be_populated() {
    let metrics = [MetricSpec {
        pods: Some(PodsMetricSource {
            metric: MetricIdentifier::named("somemetric"),
            target: average_target("100m"),
        }),
        ..resource("cpu", average_target("100m"))
    }];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].pods: Forbidden: must populate the given metric source only",
    );
}

#[test]
fn the_first_populated_source_is_validated_before_population_errors() {
    // Upstream validates the first populated source (object, external, pods, resource,
    // containerResource order) even when it is not the one `type` names.
    let metrics = [MetricSpec {
        pods: Some(PodsMetricSource {
            metric: MetricIdentifier::named(""),
            target: average_target("100m"),
        }),
        ..resource("cpu", average_target("100m"))
    }];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].pods.metric.name: Required value: must specify a metric name",
    );
}

#[test]
fn matching_metric_source_required() {
    // Upstream's cross-check: each source spec with each other type.
    let sources: [(MetricSourceType, MetricSpec<'static>); 5] = [
        (
            MetricSourceType::Resource,
            resource("cpu", average_target("100m")),
        ),
        (
            MetricSourceType::ContainerResource,
            container("cpu", "test-application", average_target("100m")),
        ),
        (
            MetricSourceType::Pods,
            pods("somemetric", average_target("100m")),
        ),
        (
            MetricSourceType::Object,
            object(
                "ReplicationController",
                "myrc",
                "somemetric",
                value_target("100m"),
            ),
        ),
        (
            MetricSourceType::External,
            external("somemetric", value_target("100m")),
        ),
    ];
    for (correct, source) in &sources {
        for (incorrect, _) in &sources {
            if correct == incorrect {
                continue;
            }
            let metrics = [MetricSpec {
                type_: Some(*incorrect),
                ..*source
            }];
            let field = hpa::validation::source_field_name(*incorrect);
            assert_err(
                &spec(&metrics),
                &format!(
                    "spec.metrics[0].{field}: Required value: must populate information for \
                     the given metric source"
                ),
            );
        }
    }
}

#[test]
fn metric_errors_carry_their_index() {
    let metrics = [
        cpu70(),
        cpu70(),
        resource("", MetricTarget::utilization(50)),
    ];
    assert_err(
        &spec(&metrics),
        "spec.metrics[2].resource.name: Required value: must specify a resource name",
    );
}
