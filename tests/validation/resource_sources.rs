//! Resource and ContainerResource sources.

use hpa::spec::{MetricTarget, MetricTargetType};

use super::{assert_err, container, ok, resource, spec, target};

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
