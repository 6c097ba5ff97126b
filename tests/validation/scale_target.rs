//! Scale target reference (ValidateCrossVersionObjectReference).

use hpa::spec::{CrossVersionObjectReference, HpaSpec, MetricSpec};

use super::{assert_err, cpu70, ok, spec};

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
