//! Specs that must pass.

use hpa::spec::{
    Behavior, CrossVersionObjectReference, HpaSpec, MetricIdentifier, MetricSpec, MetricTarget,
    MetricTargetType, PolicyType, ScalingPolicy, ScalingRules, SelectPolicy,
};

use super::{
    average_target, container, cpu70, err, external, object, ok, pods, policy, q, resource, rules,
    spec, target, value_target, with_down, with_up, ONE_POLICY, SIMPLE_POLICIES,
};

#[test]
fn upstream_success_cases_pass() {
    let cases: Vec<Vec<MetricSpec<'static>>> = vec![
        vec![cpu70()],
        vec![],
        vec![resource("cpu", average_target("300m"))],
        vec![pods("somemetric", average_target("300m"))],
        vec![container(
            "cpu",
            "test-container",
            MetricTarget::utilization(70),
        )],
        vec![container("cpu", "test-container", average_target("300m"))],
        vec![object(
            "ReplicationController",
            "myrc",
            "somemetric",
            value_target("300m"),
        )],
        vec![external("somemetric", value_target("300m"))],
        vec![external("somemetric", average_target("300m"))],
    ];
    for metrics in &cases {
        ok(&spec(metrics), false);
        ok(&spec(metrics), true);
    }
}

#[test]
fn no_scale_target_ref_is_not_checked() {
    let metrics = [cpu70()];
    ok(
        &HpaSpec {
            scale_target_ref: None,
            ..spec(&metrics)
        },
        false,
    );
}

#[test]
fn absent_min_replicas_defaults_to_one() {
    let metrics = [cpu70()];
    ok(
        &HpaSpec {
            min_replicas: None,
            max_replicas: 1,
            ..spec(&metrics)
        },
        false,
    );
}

#[test]
fn scale_target_with_api_group_passes() {
    let metrics = [cpu70()];
    ok(
        &HpaSpec {
            scale_target_ref: Some(CrossVersionObjectReference {
                kind: "Deployment",
                name: "web",
                api_version: "apps/v1",
            }),
            ..spec(&metrics)
        },
        false,
    );
}

#[test]
fn upstream_behavior_success_cases_pass() {
    let metrics = [cpu70()];
    const FOUR: [ScalingPolicy; 4] = [
        ScalingPolicy {
            type_: PolicyType::Pods,
            value: 1,
            period_seconds: 2,
        },
        ScalingPolicy {
            type_: PolicyType::Percent,
            value: 3,
            period_seconds: 4,
        },
        ScalingPolicy {
            type_: PolicyType::Pods,
            value: 5,
            period_seconds: 6,
        },
        ScalingPolicy {
            type_: PolicyType::Percent,
            value: 7,
            period_seconds: 8,
        },
    ];
    let behaviors = [
        Behavior {
            scale_up: None,
            scale_down: None,
        },
        Behavior {
            scale_up: Some(ScalingRules {
                stabilization_window_seconds: Some(3600),
                select_policy: Some(SelectPolicy::Min),
                policies: Some(&SIMPLE_POLICIES),
                tolerance: None,
            }),
            scale_down: Some(ScalingRules {
                stabilization_window_seconds: Some(0),
                select_policy: Some(SelectPolicy::Disabled),
                policies: Some(&SIMPLE_POLICIES),
                tolerance: None,
            }),
        },
        Behavior {
            scale_up: Some(ScalingRules {
                stabilization_window_seconds: Some(120),
                select_policy: Some(SelectPolicy::Max),
                policies: Some(&FOUR),
                tolerance: None,
            }),
            scale_down: Some(ScalingRules {
                stabilization_window_seconds: Some(120),
                select_policy: Some(SelectPolicy::Max),
                policies: Some(&FOUR),
                tolerance: None,
            }),
        },
    ];
    for b in behaviors {
        ok(
            &HpaSpec {
                behavior: Some(b),
                ..spec(&metrics)
            },
            false,
        );
    }
}

#[test]
fn absent_policies_get_the_defaults() {
    let metrics = [cpu70()];
    let up = ScalingRules {
        stabilization_window_seconds: Some(60),
        select_policy: Some(SelectPolicy::Max),
        policies: None,
        tolerance: Some(q("0.05")),
    };
    ok(&with_up(&metrics, up), false);
    ok(&with_down(&metrics, up), false);
}

#[test]
fn percent_above_100_is_valid() {
    let metrics = [cpu70()];
    static P: [ScalingPolicy; 1] = [ScalingPolicy {
        type_: PolicyType::Percent,
        value: 500,
        period_seconds: 60,
    }];
    ok(&with_up(&metrics, rules(Some(&P))), false);
    ok(&with_down(&metrics, rules(Some(&P))), false);
}

#[test]
fn many_policies_are_valid() {
    let metrics = [cpu70()];
    let many: Vec<ScalingPolicy> = (1..=200)
        .map(|i| policy(PolicyType::Pods, i, i % 1800 + 1))
        .collect();
    let many: &'static [ScalingPolicy] = Box::leak(many.into_boxed_slice());
    ok(&with_up(&metrics, rules(Some(many))), false);
    ok(&with_down(&metrics, rules(Some(many))), false);
}

#[test]
fn upstream_tolerance_success_cases_pass() {
    let metrics = [cpu70()];
    for t in ["0.1", "10", "0", "100m", "1m", "0.0"] {
        let down = ScalingRules {
            tolerance: Some(q(t)),
            ..rules(Some(&ONE_POLICY))
        };
        ok(&with_down(&metrics, down), false);
        ok(&with_up(&metrics, down), false);
    }
    ok(&with_down(&metrics, rules(Some(&ONE_POLICY))), false);
}

#[test]
fn zero_min_replicas_with_object_or_external_metric_and_scale_to_zero() {
    let cases = [
        object(
            "ReplicationController",
            "myrc",
            "somemetric",
            value_target("300m"),
        ),
        external("somemetric", average_target("300m")),
    ];
    for m in cases {
        let metrics = [m];
        let s = HpaSpec {
            min_replicas: Some(0),
            ..spec(&metrics)
        };
        ok(&s, true);
        // Upstream: with the gate off, 0 is below the lower bound.
        assert_eq!(
            err(&s, false),
            "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1"
        );
    }
    // An Object or External metric anywhere in the list is enough.
    let metrics = [cpu70(), external("queue", average_target("30"))];
    ok(
        &HpaSpec {
            min_replicas: Some(0),
            ..spec(&metrics)
        },
        true,
    );
}

#[test]
fn valid_container_resource_names() {
    for name in [
        "cpu",
        "memory",
        "ephemeral-storage",
        "hugepages-2Mi",
        "example.com/foo",
        "example.com/Foo_bar",
        "kubernetes.io/something",
    ] {
        let metrics = [container(name, "app", MetricTarget::utilization(50))];
        ok(&spec(&metrics), false);
    }
}

#[test]
fn resource_source_name_is_only_required() {
    // Upstream checks the Resource name for presence only; the metric fails at run time.
    let metrics = [resource("InvalidResource", MetricTarget::utilization(50))];
    ok(&spec(&metrics), false);
}

#[test]
fn object_described_object_may_omit_api_group() {
    let metrics = [MetricSpec::object(
        CrossVersionObjectReference {
            kind: "Service",
            name: "frontend",
            api_version: "v1",
        },
        MetricIdentifier::named("requests-per-second"),
        value_target("2k"),
    )];
    ok(&spec(&metrics), false);
}

#[test]
fn target_type_is_not_matched_against_populated_fields() {
    // docs/spec/validation.md#metric-targets: the validator does not check that the populated field
    // matches.
    let metrics = [object(
        "Deployment",
        "web",
        "hits",
        target(Some(MetricTargetType::Utilization), Some("1"), None, None),
    )];
    ok(&spec(&metrics), false);
}
