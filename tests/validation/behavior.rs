//! Behavior (validateBehavior / validateScalingRules / validateScalingPolicy).

use hpa::spec::{MetricSpec, PolicyType, ScalingRules, SelectPolicy};
use hpa::validation::{validate_spec_with, Direction, Unrecognized, ValidationError};

use super::{
    cpu70, err, leak, ok, policy, q, rules, with_down, with_up, ONE_POLICY, SIMPLE_POLICIES,
};

fn behavior_err(direction: Direction, r: ScalingRules<'static>) -> String {
    static METRICS: std::sync::OnceLock<[MetricSpec<'static>; 1]> = std::sync::OnceLock::new();
    let metrics = METRICS.get_or_init(|| [cpu70()]);
    let s = match direction {
        Direction::ScaleUp => with_up(metrics, r),
        Direction::ScaleDown => with_down(metrics, r),
    };
    err(&s, false)
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
