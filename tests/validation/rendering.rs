//! Rendering: field paths, values and whole error texts, as Go prints them.

use hpa::spec::MetricSourceType;
use hpa::validation::{
    BadValue, Detail, Direction, FieldPath, Segment, Unrecognized, ValidationError, MAX_VALUE_LEN,
};

use super::q;

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
