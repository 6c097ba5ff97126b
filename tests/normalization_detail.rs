//! `Decision::normalization`: the stabilization bounds and the rate limit (with the policy that
//! set it and its period-start replicas) that explanations print, checked by hand on small
//! sequences. The values are copies of what normalization computes; the conformance suite
//! checks that the decisions themselves are upstream's.

use hpa::normalize::{NormalizationDetail, RateLimit};
use hpa::spec::{
    Behavior, MetricIdentifier, MetricSpec, MetricTarget, PolicyType, ScalingPolicy, ScalingRules,
    SelectPolicy,
};
use hpa::{Autoscaler, Hpa, HpaSpec, Instant, MetricValues, Observation};
use hpa::{Quantity, Settings};

/// One External metric with an AverageValue target of 1: outside the tolerance band the
/// proposal is `ceil(value)`, whatever the pods.
static METRICS: [MetricSpec<'static>; 1] = [MetricSpec::external(
    MetricIdentifier::named("queue"),
    MetricTarget::average_value(Quantity::from_milli(1000)),
)];

static UP: [ScalingPolicy; 2] = [
    ScalingPolicy {
        type_: PolicyType::Pods,
        value: 2,
        period_seconds: 60,
    },
    ScalingPolicy {
        type_: PolicyType::Percent,
        value: 50,
        period_seconds: 60,
    },
];

static DOWN: [ScalingPolicy; 1] = [ScalingPolicy {
    type_: PolicyType::Pods,
    value: 1,
    period_seconds: 30,
}];

fn spec(behavior: Option<Behavior<'static>>) -> HpaSpec<'static> {
    HpaSpec {
        min_replicas: Some(1),
        max_replicas: 100,
        metrics: &METRICS,
        behavior,
        scale_target_ref: None,
    }
}

/// What the tests look at in a decision.
struct Out {
    desired_replicas: i32,
    rescale: bool,
    stabilized: Option<i32>,
    normalization: Option<NormalizationDetail>,
}

/// Evaluates at `at_s` seconds with `current` replicas and a queue of `values`; applies a
/// rescale.
fn step(
    autoscaler: &mut Autoscaler,
    hpa: &Hpa<'_>,
    at_s: i64,
    current: i32,
    values: &[i64],
) -> Out {
    let metrics = [MetricValues::External(values)];
    let obs = Observation {
        now: Instant(at_s * 1000),
        replicas: current,
        status_replicas: current,
        pods: &[],
        metrics: &metrics,
    };
    let decision = autoscaler
        .evaluate(hpa, &Settings::DEFAULT, &obs)
        .expect("valid input");
    if decision.rescale {
        autoscaler.rescale_succeeded();
    }
    Out {
        desired_replicas: decision.desired_replicas,
        rescale: decision.rescale,
        stabilized: decision.stabilized,
        normalization: decision.normalization,
    }
}

#[test]
fn behavior_reports_bounds_policy_and_period_start() {
    let behavior = Behavior {
        scale_up: Some(ScalingRules {
            stabilization_window_seconds: Some(0),
            select_policy: Some(SelectPolicy::Max),
            policies: Some(&UP),
            tolerance: None,
        }),
        scale_down: Some(ScalingRules {
            stabilization_window_seconds: Some(30),
            select_policy: None,
            policies: Some(&DOWN),
            tolerance: None,
        }),
    };
    let spec = spec(Some(behavior));
    let hpa = Hpa::new(&spec, &Settings::DEFAULT).expect("valid spec");
    let mut a: Autoscaler = Autoscaler::new();
    let twenty = [20_000];

    // 4 -> proposal 20; both policies allow 6 from 4 (4 + 2, ceil(4 x 1.5)): the first wins.
    let d = step(&mut a, &hpa, 0, 4, &twenty);
    assert_eq!(d.desired_replicas, 6);
    assert_eq!(
        d.normalization,
        Some(NormalizationDetail {
            stabilization_low: 20,
            stabilization_high: 20,
            rate_limit: Some(RateLimit {
                scale_up: true,
                replicas: 6,
                policy: Some(0),
                period_start: 4,
            }),
        })
    );

    // 15 s later: the +2 event is inside both periods, the period starts at 4 again.
    let d = step(&mut a, &hpa, 15, 6, &twenty);
    assert!(!d.rescale);
    let limit = d.normalization.and_then(|n| n.rate_limit).expect("a limit");
    assert_eq!(
        (limit.replicas, limit.policy, limit.period_start),
        (6, Some(0), 4)
    );

    // 61 s: the event has left the 60 s periods; from 6, Percent 50 (9) beats Pods 2 (8).
    let d = step(&mut a, &hpa, 61, 6, &twenty);
    assert_eq!(d.desired_replicas, 9);
    let limit = d.normalization.and_then(|n| n.rate_limit).expect("a limit");
    assert_eq!(
        (limit.replicas, limit.policy, limit.period_start),
        (9, Some(1), 6)
    );

    // The queue empties: proposal 1, held by the 30 s scale-down window at 20 (the highest
    // proposal in it), then limited to one pod per 30 s.
    let one = [1000];
    let d = step(&mut a, &hpa, 76, 9, &one);
    let n = d.normalization.expect("normalized");
    assert_eq!((n.stabilization_low, n.stabilization_high), (1, 20));
    assert_eq!(d.stabilized, Some(9));
    assert_eq!(n.rate_limit, None, "no travel, no rate limit");
    let d = step(&mut a, &hpa, 92, 9, &one);
    let n = d.normalization.expect("normalized");
    assert_eq!((n.stabilization_low, n.stabilization_high), (1, 1));
    assert_eq!(
        n.rate_limit,
        Some(RateLimit {
            scale_up: false,
            replicas: 8,
            policy: Some(0),
            period_start: 9,
        })
    );
    assert_eq!(d.desired_replicas, 8);
    // 10 s later the -1 event is in the 30 s period: the period started at 9, floor 8.
    let d = step(&mut a, &hpa, 102, 8, &one);
    let limit = d.normalization.and_then(|n| n.rate_limit).expect("a limit");
    assert_eq!((limit.replicas, limit.period_start), (8, 9));
    assert!(!d.rescale);
}

#[test]
fn disabled_direction_and_legacy_rule() {
    let behavior = Behavior {
        scale_up: Some(ScalingRules {
            stabilization_window_seconds: None,
            select_policy: Some(SelectPolicy::Disabled),
            policies: None,
            tolerance: None,
        }),
        scale_down: None,
    };
    let spec_disabled = spec(Some(behavior));
    let hpa = Hpa::new(&spec_disabled, &Settings::DEFAULT).expect("valid spec");
    let mut a: Autoscaler = Autoscaler::new();
    let d = step(&mut a, &hpa, 0, 4, &[20_000]);
    assert_eq!(d.desired_replicas, 4);
    let limit = d.normalization.and_then(|n| n.rate_limit).expect("a limit");
    assert_eq!(
        limit,
        RateLimit {
            scale_up: true,
            replicas: 4,
            policy: None,
            period_start: 4,
        }
    );

    // No behavior: the legacy max(2 x current, 4) limit; stabilization is the highest
    // recommendation in the window (the proposal itself here).
    let spec_legacy = spec(None);
    let hpa = Hpa::new(&spec_legacy, &Settings::DEFAULT).expect("valid spec");
    let mut a: Autoscaler = Autoscaler::new();
    let d = step(&mut a, &hpa, 0, 3, &[20_000]);
    assert_eq!(d.desired_replicas, 6);
    assert_eq!(
        d.normalization,
        Some(NormalizationDetail {
            stabilization_low: 20,
            stabilization_high: 20,
            rate_limit: Some(RateLimit {
                scale_up: true,
                replicas: 6,
                policy: None,
                period_start: 3,
            }),
        })
    );
    // No normalization, no detail: a count above maxReplicas is corrected directly.
    let d = step(&mut a, &hpa, 15, 150, &[20_000]);
    assert_eq!(d.desired_replicas, 100);
    assert_eq!(d.normalization, None);
}
