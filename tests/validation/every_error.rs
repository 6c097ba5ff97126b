//! Every error (validate_spec_each): the API server's whole list, in its order.

use hpa::spec::{
    Behavior, CrossVersionObjectReference, ExternalMetricSource, HpaSpec, MetricIdentifier,
    MetricSourceType, MetricSpec, MetricTarget, MetricTargetType, ObjectMetricSource,
    PodsMetricSource, PolicyType, ResourceMetricSource, ScalingRules,
};
use hpa::validation::{
    validate_spec, validate_spec_each, validate_spec_with, Direction, Unrecognized, ValidationError,
};

use super::{
    average_target, container, cpu70, external, leak, pods, policy, q, resource, rules, spec,
    target, value_target, with_down, with_up, ONE_POLICY, RC, SIMPLE_POLICIES,
};

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
