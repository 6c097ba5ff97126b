//! API validation: one test per rule with Kubernetes' exact error text, specs that must pass,
//! and a good part of upstream's `pkg/apis/autoscaling/validation/validation_test.go` cases
//! mirrored (there the expected text is a substring; here it is the whole message); then specs
//! with several errors and the whole ordered list the API server reports for them.

use hpa::quantity::Quantity;
use hpa::spec::{
    Behavior, CrossVersionObjectReference, HpaSpec, MetricIdentifier, MetricSpec, MetricTarget,
    MetricTargetType, PolicyType, ScalingPolicy, ScalingRules,
};
use hpa::validation::validate_spec;

mod behavior;
mod bounds;
mod every_error;
mod metric_type;
mod order;
mod passing;
mod rendering;
mod resource_sources;
mod scale_target;
mod targets;
mod value_sources;

fn q(s: &str) -> Quantity {
    Quantity::parse(s).expect("valid quantity")
}

const RC: CrossVersionObjectReference<'static> = CrossVersionObjectReference {
    kind: "ReplicationController",
    name: "myrc",
    api_version: "",
};

fn cpu70() -> MetricSpec<'static> {
    MetricSpec::resource("cpu", MetricTarget::utilization(70))
}

/// `minReplicas: 1, maxReplicas: 5`, scale target `ReplicationController/myrc`.
fn spec<'a>(metrics: &'a [MetricSpec<'a>]) -> HpaSpec<'a> {
    HpaSpec {
        min_replicas: Some(1),
        max_replicas: 5,
        metrics,
        behavior: None,
        scale_target_ref: Some(RC),
    }
}

fn ok(spec: &HpaSpec<'_>, scale_to_zero: bool) {
    if let Err(e) = validate_spec(spec, scale_to_zero) {
        panic!("expected success, got {e}");
    }
}

fn err(spec: &HpaSpec<'_>, scale_to_zero: bool) -> String {
    match validate_spec(spec, scale_to_zero) {
        Ok(()) => panic!("expected an error for {spec:?}"),
        Err(e) => e.to_string(),
    }
}

fn assert_err(spec: &HpaSpec<'_>, expected: &str) {
    assert_eq!(err(spec, false), expected);
}

fn target(
    type_: Option<MetricTargetType>,
    value: Option<&str>,
    average_value: Option<&str>,
    average_utilization: Option<i32>,
) -> MetricTarget {
    MetricTarget {
        type_,
        value: value.map(q),
        average_value: average_value.map(q),
        average_utilization,
    }
}

fn resource(name: &'static str, t: MetricTarget) -> MetricSpec<'static> {
    MetricSpec::resource(name, t)
}

fn container(name: &'static str, container: &'static str, t: MetricTarget) -> MetricSpec<'static> {
    MetricSpec::container_resource(name, container, t)
}

fn pods(name: &'static str, t: MetricTarget) -> MetricSpec<'static> {
    MetricSpec::pods(MetricIdentifier::named(name), t)
}

fn object(
    kind: &'static str,
    name: &'static str,
    metric: &'static str,
    t: MetricTarget,
) -> MetricSpec<'static> {
    MetricSpec::object(
        CrossVersionObjectReference {
            kind,
            name,
            api_version: "",
        },
        MetricIdentifier::named(metric),
        t,
    )
}

fn external(metric: &'static str, t: MetricTarget) -> MetricSpec<'static> {
    MetricSpec::external(
        MetricIdentifier {
            name: metric,
            selector: Some("&LabelSelector{MatchLabels:map[string]string{label: value,},}"),
            selector_invalid: false,
        },
        t,
    )
}

fn value_target(v: &str) -> MetricTarget {
    MetricTarget::value(q(v))
}

fn average_target(v: &str) -> MetricTarget {
    MetricTarget::average_value(q(v))
}

const SIMPLE_POLICIES: [ScalingPolicy; 2] = [
    ScalingPolicy {
        type_: PolicyType::Percent,
        value: 10,
        period_seconds: 1,
    },
    ScalingPolicy {
        type_: PolicyType::Pods,
        value: 1,
        period_seconds: 1800,
    },
];

const ONE_POLICY: [ScalingPolicy; 1] = [ScalingPolicy {
    type_: PolicyType::Pods,
    value: 1,
    period_seconds: 1800,
}];

fn rules(policies: Option<&'static [ScalingPolicy]>) -> ScalingRules<'static> {
    ScalingRules {
        stabilization_window_seconds: None,
        select_policy: None,
        policies,
        tolerance: None,
    }
}

fn with_up<'a>(metrics: &'a [MetricSpec<'a>], up: ScalingRules<'a>) -> HpaSpec<'a> {
    HpaSpec {
        behavior: Some(Behavior {
            scale_up: Some(up),
            scale_down: None,
        }),
        ..spec(metrics)
    }
}

fn with_down<'a>(metrics: &'a [MetricSpec<'a>], down: ScalingRules<'a>) -> HpaSpec<'a> {
    HpaSpec {
        behavior: Some(Behavior {
            scale_up: None,
            scale_down: Some(down),
        }),
        ..spec(metrics)
    }
}

fn policy(type_: PolicyType, value: i32, period_seconds: i32) -> ScalingPolicy {
    ScalingPolicy {
        type_,
        value,
        period_seconds,
    }
}

fn leak(p: Vec<ScalingPolicy>) -> &'static [ScalingPolicy] {
    Box::leak(p.into_boxed_slice())
}
