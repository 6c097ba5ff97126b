//! Error order across the spec.

use hpa::spec::{
    Behavior, CrossVersionObjectReference, HpaSpec, MetricSourceType, MetricTarget,
    MetricTargetType, ScalingRules,
};
use hpa::validation::{validate_spec_with, Direction, Unrecognized};

use super::{assert_err, cpu70, err, resource, rules, spec, target, with_up};

#[test]
fn errors_follow_field_order() {
    let bad_metric = [resource("", MetricTarget::utilization(70))];
    let bad_rules = rules(Some(&[]));
    // maxReplicas before scaleTargetRef.
    let s = HpaSpec {
        max_replicas: 0,
        scale_target_ref: Some(CrossVersionObjectReference {
            kind: "",
            name: "x",
            api_version: "",
        }),
        ..spec(&bad_metric)
    };
    assert_eq!(
        err(&s, false),
        "spec.maxReplicas: Invalid value: 0: must be greater than 0"
    );
    // scaleTargetRef before metrics.
    let s = HpaSpec {
        scale_target_ref: Some(CrossVersionObjectReference {
            kind: "",
            name: "x",
            api_version: "",
        }),
        ..spec(&bad_metric)
    };
    assert_eq!(err(&s, false), "spec.scaleTargetRef.kind: Required value");
    // metrics before behavior.
    assert_eq!(
        err(&with_up(&bad_metric, bad_rules), false),
        "spec.metrics[0].resource.name: Required value: must specify a resource name"
    );
    // The scale-to-zero check comes after every metric, before behavior.
    let metrics = [cpu70()];
    let s = HpaSpec {
        min_replicas: Some(0),
        ..with_up(&metrics, bad_rules)
    };
    assert_eq!(
        err(&s, true),
        "spec.metrics: Forbidden: must specify at least one Object or External metric to \
         support scaling to zero replicas"
    );
    // scaleUp before scaleDown.
    let s = HpaSpec {
        behavior: Some(Behavior {
            scale_up: Some(ScalingRules {
                stabilization_window_seconds: Some(4000),
                ..rules(None)
            }),
            scale_down: Some(bad_rules),
        }),
        ..spec(&metrics)
    };
    assert_eq!(
        err(&s, false),
        "spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 4000: must be less \
         than or equal to 3600"
    );
    // Within a metric: the target type before values, values before utilization.
    let metrics = [resource(
        "cpu",
        target(None, Some("-1"), Some("-2"), Some(0)),
    )];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].resource.target.type: Required value: must specify a metric target type",
    );
    let metrics = [resource(
        "cpu",
        target(
            Some(MetricTargetType::Value),
            Some("-1"),
            Some("-2"),
            Some(0),
        ),
    )];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].resource.target.value: Invalid value: -1: must be positive",
    );
}

#[test]
fn unrecognized_values_are_reported_in_order() {
    let metrics = [resource("", MetricTarget::utilization(70)), cpu70()];
    let unknown = [Unrecognized::MetricType {
        metric: 1,
        value: "Foo",
    }];
    // metrics[0] comes first.
    assert_eq!(
        validate_spec_with(&spec(&metrics), false, &unknown)
            .unwrap_err()
            .to_string(),
        "spec.metrics[0].resource.name: Required value: must specify a resource name"
    );
    let metrics = [cpu70(), cpu70()];
    assert_eq!(
        validate_spec_with(&spec(&metrics), false, &unknown)
            .unwrap_err()
            .to_string(),
        "spec.metrics[1].type: Unsupported value: \"Foo\": supported values: \
         \"ContainerResource\", \"External\", \"Object\", \"Pods\", \"Resource\""
    );
    // A later select policy does not preempt an earlier metric error, nor a window error.
    let s = with_up(
        &metrics,
        ScalingRules {
            stabilization_window_seconds: Some(-5),
            ..rules(None)
        },
    );
    let unknown = [Unrecognized::SelectPolicy {
        direction: Direction::ScaleUp,
        value: "Foo",
    }];
    assert_eq!(
        validate_spec_with(&s, false, &unknown)
            .unwrap_err()
            .to_string(),
        "spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: -5: must be greater \
         than or equal to zero"
    );
    // A target type entry for a source that is not validated is ignored.
    let unknown = [Unrecognized::TargetType {
        metric: 0,
        source: MetricSourceType::Pods,
        value: "Foo",
    }];
    assert!(validate_spec_with(&spec(&metrics), false, &unknown).is_ok());
    // An empty metric type string is a missing type.
    let unknown = [Unrecognized::MetricType {
        metric: 0,
        value: "",
    }];
    assert_eq!(
        validate_spec_with(&spec(&metrics), false, &unknown)
            .unwrap_err()
            .to_string(),
        "spec.metrics[0].type: Required value: must specify a metric source type"
    );
}
