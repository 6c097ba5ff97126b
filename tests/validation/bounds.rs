//! Replica bounds.

use hpa::spec::{CrossVersionObjectReference, HpaSpec, MetricSpec};

use super::{assert_err, average_target, cpu70, err, pods, rules, spec, with_up};

#[test]
fn min_replicas_below_one() {
    let metrics = [cpu70()];
    let s = HpaSpec {
        min_replicas: Some(-1),
        ..spec(&metrics)
    };
    assert_eq!(
        err(&s, false),
        "spec.minReplicas: Invalid value: -1: must be greater than or equal to 1"
    );
    assert_eq!(
        err(&s, true),
        "spec.minReplicas: Invalid value: -1: must be greater than or equal to 0"
    );
}

#[test]
fn max_replicas_below_one() {
    let metrics = [cpu70()];
    for max in [0, -3] {
        assert_err(
            &HpaSpec {
                min_replicas: None,
                max_replicas: max,
                ..spec(&metrics)
            },
            &format!("spec.maxReplicas: Invalid value: {max}: must be greater than 0"),
        );
    }
    // Both maxReplicas errors apply; "greater than 0" comes first.
    assert_err(
        &HpaSpec {
            max_replicas: 0,
            ..spec(&metrics)
        },
        "spec.maxReplicas: Invalid value: 0: must be greater than 0",
    );
}

#[test]
fn max_replicas_below_min_replicas() {
    let metrics = [cpu70()];
    assert_err(
        &HpaSpec {
            min_replicas: Some(7),
            max_replicas: 5,
            ..spec(&metrics)
        },
        "spec.maxReplicas: Invalid value: 5: must be greater than or equal to `minReplicas`",
    );
}

#[test]
fn zero_min_replicas_needs_object_or_external_metric() {
    let expected = "spec.metrics: Forbidden: must specify at least one Object or External \
                    metric to support scaling to zero replicas";
    let metrics = [cpu70(), pods("qps", average_target("10"))];
    let s = HpaSpec {
        min_replicas: Some(0),
        ..spec(&metrics)
    };
    assert_eq!(err(&s, true), expected);
    // No metrics defaults to cpu, which is not enough either.
    let s = HpaSpec {
        min_replicas: Some(0),
        ..spec(&[])
    };
    assert_eq!(err(&s, true), expected);
}

#[test]
fn min_replicas_is_reported_before_everything_else() {
    let metrics = [MetricSpec::default()];
    let s = HpaSpec {
        min_replicas: Some(-1),
        max_replicas: 0,
        scale_target_ref: Some(CrossVersionObjectReference {
            kind: "",
            name: "",
            api_version: "",
        }),
        ..with_up(&metrics, rules(Some(&[])))
    };
    assert_eq!(
        err(&s, false),
        "spec.minReplicas: Invalid value: -1: must be greater than or equal to 1"
    );
}
