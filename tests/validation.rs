//! API validation: one test per rule with Kubernetes' exact error text, specs that must pass,
//! and a good part of upstream's `pkg/apis/autoscaling/validation/validation_test.go` cases
//! mirrored (there the expected text is a substring; here it is the whole message); then specs
//! with several errors and the whole ordered list the API server reports for them.

use hpa::quantity::Quantity;
use hpa::spec::{
    Behavior, ContainerResourceMetricSource, CrossVersionObjectReference, ExternalMetricSource,
    HpaSpec, MetricIdentifier, MetricSourceType, MetricSpec, MetricTarget, MetricTargetType,
    ObjectMetricSource, PodsMetricSource, PolicyType, ResourceMetricSource, ScalingPolicy,
    ScalingRules, SelectPolicy,
};
use hpa::validation::{
    validate_spec, validate_spec_each, validate_spec_with, BadValue, Detail, Direction, ErrorType,
    FieldPath, Segment, Unrecognized, ValidationError, MAX_VALUE_LEN,
};

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

// ---------------------------------------------------------------------------------------------
// Specs that must pass
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Replica bounds
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Scale target reference (ValidateCrossVersionObjectReference)
// ---------------------------------------------------------------------------------------------

fn with_target(
    kind: &'static str,
    name: &'static str,
    api_version: &'static str,
) -> HpaSpec<'static> {
    static METRICS: std::sync::OnceLock<[MetricSpec<'static>; 1]> = std::sync::OnceLock::new();
    let metrics = METRICS.get_or_init(|| [cpu70()]);
    HpaSpec {
        scale_target_ref: Some(CrossVersionObjectReference {
            kind,
            name,
            api_version,
        }),
        ..spec(metrics)
    }
}

#[test]
fn scale_target_kind_required() {
    assert_err(
        &with_target("", "myrc", ""),
        "spec.scaleTargetRef.kind: Required value",
    );
}

#[test]
fn scale_target_kind_invalid() {
    assert_err(
        &with_target("..", "myrc", ""),
        "spec.scaleTargetRef.kind: Invalid value: \"..\": may not be '..'",
    );
    assert_err(
        &with_target(".", "myrc", "apps/v1"),
        "spec.scaleTargetRef.kind: Invalid value: \".\": may not be '.'",
    );
}

#[test]
fn scale_target_name_required() {
    assert_err(
        &with_target("ReplicationController", "", ""),
        "spec.scaleTargetRef.name: Required value",
    );
}

#[test]
fn scale_target_name_invalid() {
    assert_err(
        &with_target("ReplicationController", "..", ""),
        "spec.scaleTargetRef.name: Invalid value: \"..\": may not be '..'",
    );
    // Both '/' and '%' are reported; '/' first.
    assert_err(
        &with_target("Deployment", "a%b/c", "apps/v1"),
        "spec.scaleTargetRef.name: Invalid value: \"a%b/c\": may not contain '/'",
    );
    assert_err(
        &with_target("Deployment", "a%b", "apps/v1"),
        "spec.scaleTargetRef.name: Invalid value: \"a%b\": may not contain '%'",
    );
}

#[test]
fn scale_target_api_version() {
    // Only ReplicationController (core v1) may leave out the API group.
    assert_err(
        &with_target("Deployment", "web", ""),
        "spec.scaleTargetRef.apiVersion: Invalid value: \"\": apiVersion must specify API group",
    );
    assert_err(
        &with_target("Deployment", "web", "v1"),
        "spec.scaleTargetRef.apiVersion: Invalid value: \"v1\": apiVersion must specify API group",
    );
    assert_err(
        &with_target("Deployment", "web", "apps/v1/v2"),
        "spec.scaleTargetRef.apiVersion: Invalid value: \"apps/v1/v2\": unexpected \
         GroupVersion string: apps/v1/v2",
    );
    ok(&with_target("ReplicationController", "myrc", "v1"), false);
    ok(&with_target("ReplicationController", "myrc", ""), false);
}

// ---------------------------------------------------------------------------------------------
// Metric type and source population
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Metric targets (validateMetricTarget)
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Resource and ContainerResource sources
// ---------------------------------------------------------------------------------------------

#[test]
fn resource_name_required() {
    let metrics = [resource("", MetricTarget::utilization(70))];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].resource.name: Required value: must specify a resource name",
    );
    let metrics = [container(
        "",
        "test-application",
        MetricTarget::utilization(70),
    )];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].containerResource.name: Required value: must specify a resource name",
    );
}

#[test]
fn resource_needs_utilization_or_average_value() {
    let t = target(Some(MetricTargetType::Value), None, None, None);
    let metrics = [resource("cpu", t)];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].resource.target.averageUtilization: Required value: must set either a \
         target raw value or a target utilization",
    );
    let metrics = [container("cpu", "test-application", t)];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].containerResource.target.averageUtilization: Required value: must set \
         either a target raw value or a target utilization",
    );
    // A `value` does not count.
    let t = target(Some(MetricTargetType::Value), Some("1"), None, None);
    let metrics = [resource("cpu", t)];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].resource.target.averageUtilization: Required value: must set either a \
         target raw value or a target utilization",
    );
}

#[test]
fn resource_may_not_set_both_utilization_and_average_value() {
    let t = target(
        Some(MetricTargetType::Utilization),
        None,
        Some("300m"),
        Some(70),
    );
    let metrics = [resource("cpu", t)];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].resource.target.averageValue: Forbidden: may not set both a target raw \
         value and a target utilization",
    );
    let metrics = [container("cpu", "test-application", t)];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].containerResource.target.averageValue: Forbidden: may not set both a \
         target raw value and a target utilization",
    );
}

#[test]
fn container_resource_name_must_be_standard_or_qualified() {
    let cases = [
        (
            "InvalidResource",
            "Invalid value: InvalidResource: must be a standard resource type or fully qualified",
        ),
        (
            "pods",
            "Invalid value: pods: must be a standard resource for containers",
        ),
        (
            "requests.example.com/foo",
            "Invalid value: requests.example.com/foo: doesn't follow extended resource name \
             standard",
        ),
        (
            "-cpu",
            "Invalid value: -cpu: name part must consist of alphanumeric characters, '-', '_' or \
             '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or \
             'my.name',  or '123-abc', regex used for validation is \
             '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ),
        (
            "Foo_Bar/x",
            "Invalid value: Foo_Bar/x: prefix part a lowercase RFC 1123 subdomain must consist \
             of lower case alphanumeric characters, '-' or '.', and must start and end with an \
             alphanumeric character (e.g. 'example.com', regex used for validation is \
             '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ),
        ("/x", "Invalid value: /x: prefix part must be non-empty"),
        (
            "example.com/",
            "Invalid value: example.com/: name part must be non-empty",
        ),
        (
            "a/b/c",
            "Invalid value: a/b/c: a valid label key must consist of alphanumeric characters, \
             '-', '_' or '.', and must start and end with an alphanumeric character (e.g. \
             'MyName',  or 'my.name',  or '123-abc', regex used for validation is \
             '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix \
             and '/' (e.g. 'example.com/MyName')",
        ),
    ];
    for (name, message) in cases {
        let metrics = [container(
            name,
            "test-application",
            MetricTarget::utilization(70),
        )];
        assert_err(
            &spec(&metrics),
            &format!("spec.metrics[0].containerResource.name: {message}"),
        );
    }
    let long = "x".repeat(64);
    let long: &'static str = Box::leak(long.into_boxed_str());
    let metrics = [container(long, "app", MetricTarget::utilization(70))];
    assert_err(
        &spec(&metrics),
        &format!(
            "spec.metrics[0].containerResource.name: Invalid value: {long}: name part must be no \
             more than 63 characters"
        ),
    );
}

#[test]
fn container_required() {
    let metrics = [container("cpu", "", MetricTarget::utilization(-10))];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].containerResource.container: Required value: must specify a container",
    );
}

#[test]
fn container_must_be_a_dns_label() {
    let regex_message = "a lowercase RFC 1123 label must consist of lower case alphanumeric \
                         characters or '-', and must start and end with an alphanumeric \
                         character (e.g. 'my-name',  or '123-abc', regex used for validation is \
                         '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
    let metrics = [container("cpu", "---***", MetricTarget::utilization(-10))];
    assert_err(
        &spec(&metrics),
        &format!(
            "spec.metrics[0].containerResource.container: Invalid value: \"---***\": \
             {regex_message}"
        ),
    );
    let metrics = [container("cpu", "Web", MetricTarget::utilization(10))];
    assert_err(
        &spec(&metrics),
        &format!(
            "spec.metrics[0].containerResource.container: Invalid value: \"Web\": {regex_message}"
        ),
    );
    let metrics = [container("cpu", "my.app", MetricTarget::utilization(10))];
    assert_err(
        &spec(&metrics),
        "spec.metrics[0].containerResource.container: Invalid value: \"my.app\": must not \
         contain dots",
    );
    let long: &'static str = Box::leak("a".repeat(64).into_boxed_str());
    let metrics = [container("cpu", long, MetricTarget::utilization(10))];
    assert_err(
        &spec(&metrics),
        &format!(
            "spec.metrics[0].containerResource.container: Invalid value: \"{long}\": must be \
             no more than 63 characters"
        ),
    );
    let max: &'static str = Box::leak("a".repeat(63).into_boxed_str());
    let metrics = [container("cpu", max, MetricTarget::utilization(10))];
    ok(&spec(&metrics), false);
}

// ---------------------------------------------------------------------------------------------
// Pods, Object and External sources
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Behavior (validateBehavior / validateScalingRules / validateScalingPolicy)
// ---------------------------------------------------------------------------------------------

fn behavior_err(direction: Direction, r: ScalingRules<'static>) -> String {
    static METRICS: std::sync::OnceLock<[MetricSpec<'static>; 1]> = std::sync::OnceLock::new();
    let metrics = METRICS.get_or_init(|| [cpu70()]);
    let s = match direction {
        Direction::ScaleUp => with_up(metrics, r),
        Direction::ScaleDown => with_down(metrics, r),
    };
    err(&s, false)
}

fn leak(p: Vec<ScalingPolicy>) -> &'static [ScalingPolicy] {
    Box::leak(p.into_boxed_slice())
}

#[test]
fn behavior_rules_per_direction() {
    for d in [Direction::ScaleUp, Direction::ScaleDown] {
        let dir = d.field_name();
        let cases: Vec<(ScalingRules<'static>, String)> = vec![
            (
                ScalingRules {
                    select_policy: Some(SelectPolicy::Min),
                    ..rules(Some(&[]))
                },
                format!("spec.behavior.{dir}.policies: Required value: must specify at least one Policy"),
            ),
            (
                ScalingRules {
                    stabilization_window_seconds: Some(3601),
                    select_policy: Some(SelectPolicy::Min),
                    ..rules(Some(&SIMPLE_POLICIES))
                },
                format!(
                    "spec.behavior.{dir}.stabilizationWindowSeconds: Invalid value: 3601: must be \
                     less than or equal to 3600"
                ),
            ),
            (
                ScalingRules {
                    stabilization_window_seconds: Some(-1),
                    ..rules(Some(&SIMPLE_POLICIES))
                },
                format!(
                    "spec.behavior.{dir}.stabilizationWindowSeconds: Invalid value: -1: must be \
                     greater than or equal to zero"
                ),
            ),
            (
                rules(Some(leak(vec![policy(PolicyType::Pods, 7, 1801)]))),
                format!(
                    "spec.behavior.{dir}.policies[0].periodSeconds: Invalid value: 1801: must be \
                     less than or equal to 1800"
                ),
            ),
            (
                rules(Some(leak(vec![policy(PolicyType::Pods, 8, 0)]))),
                format!(
                    "spec.behavior.{dir}.policies[0].periodSeconds: Invalid value: 0: must be \
                     greater than zero"
                ),
            ),
            (
                rules(Some(leak(vec![policy(PolicyType::Pods, 0, 8)]))),
                format!(
                    "spec.behavior.{dir}.policies[0].value: Invalid value: 0: must be greater \
                     than zero"
                ),
            ),
            (
                rules(Some(leak(vec![policy(PolicyType::Pods, 1, -1)]))),
                format!(
                    "spec.behavior.{dir}.policies[0].periodSeconds: Invalid value: -1: must be \
                     greater than zero"
                ),
            ),
            (
                rules(Some(leak(vec![policy(PolicyType::Percent, -1, 1)]))),
                format!(
                    "spec.behavior.{dir}.policies[0].value: Invalid value: -1: must be greater \
                     than zero"
                ),
            ),
            (
                rules(Some(leak(vec![
                    policy(PolicyType::Pods, 1, 15),
                    policy(PolicyType::Percent, 100, 15),
                    policy(PolicyType::Percent, 100, 0),
                ]))),
                format!(
                    "spec.behavior.{dir}.policies[2].periodSeconds: Invalid value: 0: must be \
                     greater than zero"
                ),
            ),
            (
                ScalingRules {
                    tolerance: Some(q("-0.001")),
                    ..rules(Some(&ONE_POLICY))
                },
                format!(
                    "spec.behavior.{dir}.tolerance: Invalid value: -1m: must be greater or equal \
                     to zero"
                ),
            ),
            (
                ScalingRules {
                    tolerance: Some(q("-10m")),
                    ..rules(Some(&ONE_POLICY))
                },
                format!(
                    "spec.behavior.{dir}.tolerance: Invalid value: -10m: must be greater or equal \
                     to zero"
                ),
            ),
        ];
        for (r, expected) in cases {
            assert_eq!(behavior_err(d, r), expected);
        }
    }
}

#[test]
fn stabilization_window_bounds_are_inclusive() {
    let metrics = [cpu70()];
    for w in [0, 3600] {
        let r = ScalingRules {
            stabilization_window_seconds: Some(w),
            ..rules(None)
        };
        ok(&with_up(&metrics, r), false);
        ok(&with_down(&metrics, r), false);
    }
    for p in [1, 1800] {
        ok(
            &with_up(
                &metrics,
                rules(Some(leak(vec![policy(PolicyType::Pods, 1, p)]))),
            ),
            false,
        );
    }
}

#[test]
fn select_policy_unsupported() {
    let metrics = [cpu70()];
    for d in [Direction::ScaleUp, Direction::ScaleDown] {
        let s = match d {
            Direction::ScaleUp => with_up(&metrics, rules(Some(&SIMPLE_POLICIES))),
            Direction::ScaleDown => with_down(&metrics, rules(Some(&SIMPLE_POLICIES))),
        };
        for value in ["incorrect", ""] {
            let unknown = [Unrecognized::SelectPolicy {
                direction: d,
                value,
            }];
            let e = validate_spec_with(&s, false, &unknown).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "spec.behavior.{}.selectPolicy: Unsupported value: \"{value}\": supported \
                     values: \"Disabled\", \"Max\", \"Min\"",
                    d.field_name()
                )
            );
            assert_eq!(e, ValidationError::unsupported_select_policy(d, value));
        }
    }
}

#[test]
fn policy_type_unsupported() {
    let metrics = [cpu70()];
    let s = with_down(&metrics, rules(Some(&SIMPLE_POLICIES)));
    let unknown = [Unrecognized::PolicyType {
        direction: Direction::ScaleDown,
        policy: 1,
        value: "hm",
    }];
    let e = validate_spec_with(&s, false, &unknown).unwrap_err();
    assert_eq!(
        e.to_string(),
        "spec.behavior.scaleDown.policies[1].type: Unsupported value: \"hm\": supported values: \
         \"Percent\", \"Pods\""
    );
    assert_eq!(
        e,
        ValidationError::unsupported_policy_type(Direction::ScaleDown, 1, "hm")
    );
    // The type is checked before the policy's value.
    let s = with_up(
        &metrics,
        rules(Some(leak(vec![policy(PolicyType::Pods, 0, 0)]))),
    );
    let unknown = [Unrecognized::PolicyType {
        direction: Direction::ScaleUp,
        policy: 0,
        value: "hm",
    }];
    assert_eq!(
        validate_spec_with(&s, false, &unknown)
            .unwrap_err()
            .to_string(),
        "spec.behavior.scaleUp.policies[0].type: Unsupported value: \"hm\": supported values: \
         \"Percent\", \"Pods\""
    );
}

#[test]
fn empty_policies_with_tolerance_or_window_report_the_policies() {
    // Upstream: { tolerance: 1m, stabilizationWindowSeconds: 60 } without policies.
    let r = ScalingRules {
        stabilization_window_seconds: Some(60),
        tolerance: Some(q("1m")),
        ..rules(Some(&[]))
    };
    assert_eq!(
        behavior_err(Direction::ScaleUp, r),
        "spec.behavior.scaleUp.policies: Required value: must specify at least one Policy"
    );
}

// ---------------------------------------------------------------------------------------------
// Error order across the spec
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Every error (validate_spec_each): the API server's whole list, in its order
// ---------------------------------------------------------------------------------------------

/// Every error `validate_spec_each` reports, as text; checks the count it returns and that the
/// first-error forms return the first of them.
fn all_errors(
    spec: &HpaSpec<'_>,
    scale_to_zero: bool,
    unknown: &[Unrecognized<'_>],
) -> Vec<String> {
    let mut errors: Vec<ValidationError> = Vec::new();
    let count = validate_spec_each(spec, scale_to_zero, unknown, &mut |e| {
        errors.push(e.clone())
    });
    assert_eq!(count, errors.len());
    match validate_spec_with(spec, scale_to_zero, unknown) {
        Ok(()) => assert!(errors.is_empty(), "{errors:?}"),
        Err(first) => assert_eq!(Some(&first), errors.first()),
    }
    if unknown.is_empty() {
        assert_eq!(
            validate_spec(spec, scale_to_zero).err().as_ref(),
            errors.first()
        );
    }
    errors.iter().map(ToString::to_string).collect()
}

#[test]
fn a_valid_spec_has_no_errors_and_the_visitor_is_not_called() {
    let metrics = [cpu70(), external("queue", average_target("30"))];
    let s = with_down(&metrics, rules(Some(&SIMPLE_POLICIES)));
    let count = validate_spec_each(&s, false, &[], &mut |e| panic!("unexpected {e}"));
    assert_eq!(count, 0);
}

#[test]
fn errors_across_fields_are_all_reported_in_order() {
    // minReplicas, maxReplicas, a metric target, a scale-up policy, a scale-down tolerance.
    let metrics = [
        resource("cpu", MetricTarget::utilization(0)),
        pods("qps", average_target("100m")),
    ];
    let s = HpaSpec {
        min_replicas: Some(-1),
        max_replicas: -2,
        behavior: Some(Behavior {
            scale_up: Some(rules(Some(leak(vec![policy(PolicyType::Pods, 0, 1801)])))),
            scale_down: Some(ScalingRules {
                tolerance: Some(q("-0.05")),
                ..rules(Some(&ONE_POLICY))
            }),
        }),
        ..spec(&metrics)
    };
    assert_eq!(
        all_errors(&s, false, &[]),
        [
            "spec.minReplicas: Invalid value: -1: must be greater than or equal to 1",
            "spec.maxReplicas: Invalid value: -2: must be greater than 0",
            "spec.maxReplicas: Invalid value: -2: must be greater than or equal to `minReplicas`",
            "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be \
             greater than 0",
            "spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than \
             zero",
            "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 1801: must be less \
             than or equal to 1800",
            "spec.behavior.scaleDown.tolerance: Invalid value: -50m: must be greater or equal to \
             zero",
        ]
    );
    // With the HPAScaleToZero gate the bound is 0, and minReplicas -1 is still below it.
    assert_eq!(
        all_errors(&s, true, &[]).first().map(String::as_str),
        Some("spec.minReplicas: Invalid value: -1: must be greater than or equal to 0")
    );
}

#[test]
fn an_absent_min_replicas_is_the_default_one_for_the_max_check() {
    // API defaulting sets minReplicas to 1 before validation, so maxReplicas 0 breaks both rules.
    let metrics = [cpu70()];
    let s = HpaSpec {
        min_replicas: None,
        max_replicas: 0,
        ..spec(&metrics)
    };
    assert_eq!(
        all_errors(&s, false, &[]),
        [
            "spec.maxReplicas: Invalid value: 0: must be greater than 0",
            "spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`",
        ]
    );
}

#[test]
fn zero_min_replicas_without_the_gate_breaks_two_rules() {
    let metrics = [cpu70()];
    let s = HpaSpec {
        min_replicas: Some(0),
        ..spec(&metrics)
    };
    assert_eq!(
        all_errors(&s, false, &[]),
        [
            "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
            "spec.metrics: Forbidden: must specify at least one Object or External metric to \
             support scaling to zero replicas",
        ]
    );
}

#[test]
fn a_metric_without_type_is_still_checked() {
    // Upstream: Required, then Unsupported (for ""), then the first populated source (pods comes
    // before resource), then Forbidden for every populated source, none being the expected one.
    let metrics = [MetricSpec {
        type_: None,
        pods: Some(PodsMetricSource {
            metric: MetricIdentifier::named(""),
            target: average_target("1"),
        }),
        ..resource("", target(None, None, None, None))
    }];
    let supported = "supported values: \"ContainerResource\", \"External\", \"Object\", \
                     \"Pods\", \"Resource\"";
    assert_eq!(
        all_errors(&spec(&metrics), false, &[]),
        [
            "spec.metrics[0].type: Required value: must specify a metric source type".to_owned(),
            format!("spec.metrics[0].type: Unsupported value: \"\": {supported}"),
            "spec.metrics[0].pods.metric.name: Required value: must specify a metric name"
                .to_owned(),
            "spec.metrics[0].pods: Forbidden: must populate the given metric source only"
                .to_owned(),
            "spec.metrics[0].resource: Forbidden: must populate the given metric source only"
                .to_owned(),
        ]
    );
    // The same for an empty string passed as unrecognized.
    let metrics = [resource("cpu", MetricTarget::utilization(50))];
    let unknown = [Unrecognized::MetricType {
        metric: 0,
        value: "",
    }];
    assert_eq!(
        all_errors(&spec(&metrics), false, &unknown),
        [
            "spec.metrics[0].type: Required value: must specify a metric source type".to_owned(),
            format!("spec.metrics[0].type: Unsupported value: \"\": {supported}"),
        ]
    );
}

#[test]
fn a_missing_source_and_extra_sources_are_all_reported() {
    // `type: Pods` with object, external and resource populated: the object is validated, pods
    // is required, the other three are forbidden in upstream's examination order.
    let m = MetricSpec {
        type_: Some(MetricSourceType::Pods),
        object: Some(ObjectMetricSource {
            described_object: RC,
            metric: MetricIdentifier::named("hits"),
            target: target(Some(MetricTargetType::Value), None, None, None),
        }),
        external: Some(ExternalMetricSource {
            metric: MetricIdentifier::named(""),
            target: value_target("1"),
        }),
        resource: Some(ResourceMetricSource {
            name: "",
            target: MetricTarget::utilization(0),
        }),
        ..MetricSpec::default()
    };
    let metrics = [m];
    assert_eq!(
        all_errors(&spec(&metrics), false, &[]),
        [
            "spec.metrics[0].object.target.averageValue: Required value: must set either a \
             target value or averageValue",
            "spec.metrics[0].pods: Required value: must populate information for the given \
             metric source",
            "spec.metrics[0].object: Forbidden: must populate the given metric source only",
            "spec.metrics[0].external: Forbidden: must populate the given metric source only",
            "spec.metrics[0].resource: Forbidden: must populate the given metric source only",
        ]
    );
}

#[test]
fn target_and_container_resource_errors_accumulate() {
    let metrics = [container(
        "InvalidResource",
        "My.App",
        target(None, Some("-1"), None, None),
    )];
    let path = "spec.metrics[0].containerResource";
    assert_eq!(
        all_errors(&spec(&metrics), false, &[]),
        [
            format!(
                "{path}.name: Invalid value: InvalidResource: must be a standard resource type \
                 or fully qualified"
            ),
            format!(
                "{path}.name: Invalid value: InvalidResource: must be a standard resource for \
                 containers"
            ),
            format!(
                "{path}.container: Invalid value: \"My.App\": a lowercase RFC 1123 label must \
                 consist of lower case alphanumeric characters or '-', and must start and end \
                 with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for \
                 validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
            ),
            format!("{path}.target.type: Required value: must specify a metric target type"),
            format!(
                "{path}.target.type: Invalid value: \"\": must be either Utilization, Value, or \
                 AverageValue"
            ),
            format!("{path}.target.value: Invalid value: -1: must be positive"),
            format!(
                "{path}.target.averageUtilization: Required value: must set either a target raw \
                 value or a target utilization"
            ),
        ]
    );
    // A container name that is too long and not a label: both messages.
    let long: &'static str = Box::leak(format!("{}_", "a".repeat(63)).into_boxed_str());
    let metrics = [container("cpu", long, MetricTarget::utilization(50))];
    let errors = all_errors(&spec(&metrics), false, &[]);
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].ends_with("\": must be no more than 63 characters"));
    assert!(errors[1].contains("\": a lowercase RFC 1123 label must consist"));
}

#[test]
fn every_label_key_message_is_reported() {
    let subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric \
                     characters, '-' or '.', and must start and end with an alphanumeric \
                     character (e.g. 'example.com', regex used for validation is \
                     '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    let label_key = "must consist of alphanumeric characters, '-', '_' or '.', and must start \
                     and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or \
                     '123-abc', regex used for validation is \
                     '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    let cases: [(&'static str, Vec<String>); 3] = [
        (
            // Prefix and name both wrong; an empty name fails the format too; then the
            // extended-resource rule, which upstream checks either way.
            "Foo_Bar/",
            vec![
                format!("prefix part {subdomain}"),
                "name part must be non-empty".to_owned(),
                format!("name part {label_key}"),
                "doesn't follow extended resource name standard".to_owned(),
            ],
        ),
        (
            // Not a label key: the standard-resource check is skipped, the container one is not.
            "-cpu",
            vec![
                format!("name part {label_key}"),
                "must be a standard resource for containers".to_owned(),
            ],
        ),
        (
            "a/b/c",
            vec![
                format!(
                    "a valid label key {label_key} with an optional DNS subdomain prefix and \
                     '/' (e.g. 'example.com/MyName')"
                ),
                "doesn't follow extended resource name standard".to_owned(),
            ],
        ),
    ];
    for (name, messages) in cases {
        let metrics = [container(name, "app", MetricTarget::utilization(50))];
        let expected: Vec<String> = messages
            .iter()
            .map(|m| format!("spec.metrics[0].containerResource.name: Invalid value: {name}: {m}"))
            .collect();
        assert_eq!(all_errors(&spec(&metrics), false, &[]), expected);
    }
}

#[test]
fn object_reference_errors_accumulate() {
    let metrics = [MetricSpec::object(
        CrossVersionObjectReference {
            kind: "..",
            name: "",
            api_version: "x/y/z",
        },
        MetricIdentifier::named("a/%b"),
        value_target("1"),
    )];
    let s = HpaSpec {
        scale_target_ref: Some(CrossVersionObjectReference {
            kind: "",
            name: "a%b/c",
            api_version: "v1",
        }),
        ..spec(&metrics)
    };
    assert_eq!(
        all_errors(&s, false, &[]),
        [
            "spec.scaleTargetRef.kind: Required value",
            "spec.scaleTargetRef.name: Invalid value: \"a%b/c\": may not contain '/'",
            "spec.scaleTargetRef.name: Invalid value: \"a%b/c\": may not contain '%'",
            "spec.scaleTargetRef.apiVersion: Invalid value: \"v1\": apiVersion must specify API \
             group",
            "spec.metrics[0].object.describedObject.kind: Invalid value: \"..\": may not be '..'",
            "spec.metrics[0].object.describedObject.name: Required value",
            "spec.metrics[0].object.describedObject.apiVersion: Invalid value: \"x/y/z\": \
             unexpected GroupVersion string: x/y/z",
            "spec.metrics[0].object.metric.name: Invalid value: \"a/%b\": may not contain '/'",
            "spec.metrics[0].object.metric.name: Invalid value: \"a/%b\": may not contain '%'",
        ]
    );
}

#[test]
fn unrecognized_strings_do_not_stop_the_walk() {
    // An unknown metric type, select policy and policy type are each one error among the rest.
    let metrics = [resource("", MetricTarget::utilization(70))];
    let s = HpaSpec {
        min_replicas: Some(0),
        ..with_up(
            &metrics,
            ScalingRules {
                stabilization_window_seconds: Some(-5),
                ..rules(Some(leak(vec![policy(PolicyType::Pods, 0, 0)])))
            },
        )
    };
    let unknown = [
        Unrecognized::SelectPolicy {
            direction: Direction::ScaleUp,
            value: "Fastest",
        },
        Unrecognized::MetricType {
            metric: 0,
            value: "Foo",
        },
        Unrecognized::PolicyType {
            direction: Direction::ScaleUp,
            policy: 0,
            value: "hm",
        },
    ];
    assert_eq!(
        all_errors(&s, true, &unknown),
        [
            // The Unsupported error upstream appends a second time for this metric is reported
            // once, as the API server's message and kubectl print it.
            "spec.metrics[0].type: Unsupported value: \"Foo\": supported values: \
             \"ContainerResource\", \"External\", \"Object\", \"Pods\", \"Resource\"",
            "spec.metrics[0].resource.name: Required value: must specify a resource name",
            "spec.metrics: Forbidden: must specify at least one Object or External metric to \
             support scaling to zero replicas",
            "spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: -5: must be \
             greater than or equal to zero",
            "spec.behavior.scaleUp.selectPolicy: Unsupported value: \"Fastest\": supported \
             values: \"Disabled\", \"Max\", \"Min\"",
            "spec.behavior.scaleUp.policies[0].type: Unsupported value: \"hm\": supported \
             values: \"Percent\", \"Pods\"",
            "spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than \
             zero",
            "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 0: must be greater \
             than zero",
        ]
    );
}

#[test]
fn empty_policies_and_a_negative_tolerance_are_both_reported() {
    let r = ScalingRules {
        stabilization_window_seconds: Some(4000),
        tolerance: Some(q("-1")),
        ..rules(Some(&[]))
    };
    let metrics = [cpu70()];
    assert_eq!(
        all_errors(&with_down(&metrics, r), false, &[]),
        [
            "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 4000: must be \
             less than or equal to 3600",
            "spec.behavior.scaleDown.policies: Required value: must specify at least one Policy",
            "spec.behavior.scaleDown.tolerance: Invalid value: -1: must be greater or equal to \
             zero",
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------

#[test]
fn field_path_renders_like_kubernetes() {
    let p = FieldPath::root("spec")
        .child("metrics")
        .index(2)
        .child("resource")
        .child("target")
        .child("averageUtilization");
    assert_eq!(
        p.to_string(),
        "spec.metrics[2].resource.target.averageUtilization"
    );
    assert_eq!(
        p.segments().get(2),
        Some(&Segment::Index(2)),
        "segments are exposed"
    );
    assert_eq!(
        FieldPath::default().index(0).child("x").to_string(),
        "[0].x"
    );
}

#[test]
fn values_render_like_go() {
    assert_eq!(BadValue::Int(-3).to_string(), "-3");
    assert_eq!(BadValue::str("Foo").to_string(), "\"Foo\"");
    assert_eq!(
        BadValue::str("a\"b\\c\nd\te\u{1}\u{7f}é").to_string(),
        "\"a\\\"b\\\\c\\nd\\te\\x01\\x7fé\""
    );
    assert_eq!(
        BadValue::name("InvalidResource").to_string(),
        "InvalidResource"
    );
    assert_eq!(BadValue::Quantity(q("-0.3")).to_string(), "-300m");
    assert_eq!(BadValue::None.to_string(), "null");
    let long = "x".repeat(MAX_VALUE_LEN + 10);
    let shown = BadValue::str(&long).to_string();
    assert_eq!(
        shown.len(),
        MAX_VALUE_LEN + 5,
        "kept text, quotes and the ellipsis"
    );
    assert!(shown.ends_with("x...\""));
}

#[test]
fn error_text_omits_the_value_for_required_and_forbidden() {
    let e = ValidationError::required(FieldPath::root("spec").child("x"), Detail::None);
    assert_eq!(e.to_string(), "spec.x: Required value");
    let e = ValidationError::forbidden(
        FieldPath::root("spec").child("metrics"),
        Detail::PopulateMetricSourceOnly,
    );
    assert_eq!(
        e.to_string(),
        "spec.metrics: Forbidden: must populate the given metric source only"
    );
    let e = ValidationError::invalid(
        FieldPath::root("spec").child("minReplicas"),
        BadValue::Int(0),
        Detail::GreaterThanOrEqualTo(1),
    );
    assert_eq!(
        e.to_string(),
        "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1"
    );
    assert_eq!(e.kind.as_str(), "Invalid value");
    assert_eq!(e.value, BadValue::Int(0));
}

#[test]
fn constructors_for_unrecognized_strings() {
    assert_eq!(
        ValidationError::unsupported_metric_type(2, "Foo").to_string(),
        "spec.metrics[2].type: Unsupported value: \"Foo\": supported values: \
         \"ContainerResource\", \"External\", \"Object\", \"Pods\", \"Resource\""
    );
    assert_eq!(
        ValidationError::unsupported_metric_type(0, "").to_string(),
        "spec.metrics[0].type: Required value: must specify a metric source type"
    );
    assert_eq!(
        ValidationError::unsupported_target_type(1, MetricSourceType::ContainerResource, "Avg")
            .to_string(),
        "spec.metrics[1].containerResource.target.type: Invalid value: \"Avg\": must be either \
         Utilization, Value, or AverageValue"
    );
    assert_eq!(
        ValidationError::unsupported_select_policy(Direction::ScaleDown, "max").to_string(),
        "spec.behavior.scaleDown.selectPolicy: Unsupported value: \"max\": supported values: \
         \"Disabled\", \"Max\", \"Min\""
    );
    assert_eq!(
        ValidationError::unsupported_policy_type(Direction::ScaleUp, 3, "pods").to_string(),
        "spec.behavior.scaleUp.policies[3].type: Unsupported value: \"pods\": supported values: \
         \"Percent\", \"Pods\""
    );
    let u = Unrecognized::PolicyType {
        direction: Direction::ScaleUp,
        policy: 3,
        value: "pods",
    };
    assert_eq!(
        u.to_error(),
        ValidationError::unsupported_policy_type(Direction::ScaleUp, 3, "pods")
    );
}

#[test]
fn more_metrics_than_the_engine_holds_is_a_clear_error() {
    use hpa::spec::{MetricSpec, MetricTarget};
    let metrics = [MetricSpec::resource("cpu", MetricTarget::utilization(50)); 9];
    let spec = hpa::HpaSpec {
        min_replicas: Some(1),
        max_replicas: 5,
        metrics: &metrics,
        behavior: None,
        scale_target_ref: None,
    };
    let err = hpa::Hpa::new(&spec, &hpa::Settings::DEFAULT).expect_err("9 metrics");
    assert_eq!(
        err.to_string(),
        "spec.metrics: Too many: 9: must have at most 8 items"
    );
}
