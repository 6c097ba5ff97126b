//! Scale events as upstream's lists keep them (docs/spec/history.md#scale-events), through
//! `Autoscaler`: a new event overwrites the last outdated event of its direction's list, and an
//! overwritten event is gone for good, also for the other direction's policies, whose periods may
//! be longer. A failed rescale stores nothing. (`hpa::history`'s unit tests compare the lists
//! themselves with a model of upstream's code over random histories; `tests/upstream-traces`
//! replays whole traces against upstream's controller.)

use hpa::conditions::{ConditionStatus, ConditionType, Reason};
use hpa::history::{Direction, ScaleEvent};
use hpa::spec::{
    Behavior, MetricIdentifier, MetricSpec, MetricTarget, PolicyType, ScalingPolicy, ScalingRules,
    SelectPolicy,
};
use hpa::{Autoscaler, Decision, Hpa, HpaSpec, Instant, MetricValues, Observation};
use hpa::{Quantity, Settings};

/// One External metric with an AverageValue target of 1: outside the tolerance band the
/// proposal is `ceil(value)`.
static METRICS: [MetricSpec<'static>; 1] = [MetricSpec::external(
    MetricIdentifier::named("queue"),
    MetricTarget::average_value(Quantity::from_milli(1000)),
)];

/// Scale up by 1 pod per 15 s, down by 1 pod per 600 s.
static UP: [ScalingPolicy; 1] = [ScalingPolicy {
    type_: PolicyType::Pods,
    value: 1,
    period_seconds: 15,
}];
static DOWN: [ScalingPolicy; 1] = [ScalingPolicy {
    type_: PolicyType::Pods,
    value: 1,
    period_seconds: 600,
}];

const fn rules(policies: &'static [ScalingPolicy]) -> Option<ScalingRules<'static>> {
    Some(ScalingRules {
        stabilization_window_seconds: Some(0),
        select_policy: Some(SelectPolicy::Max),
        policies: Some(policies),
        tolerance: None,
    })
}

static SPEC: HpaSpec<'static> = HpaSpec {
    min_replicas: Some(1),
    max_replicas: 10,
    metrics: &METRICS,
    behavior: Some(Behavior {
        scale_up: rules(&UP),
        scale_down: rules(&DOWN),
    }),
    scale_target_ref: None,
};

/// Evaluates at `at_s` seconds with `current` replicas and a proposal of `proposal`.
fn step(a: &mut Autoscaler, at_s: i64, current: i32, proposal: i64) -> Decision<'static> {
    let hpa = Hpa::new(&SPEC, &Settings::DEFAULT).unwrap();
    let values = Box::leak(Box::new([proposal * 1000]));
    let metrics = Box::leak(Box::new([MetricValues::External(values)]));
    let obs = Observation {
        now: Instant(at_s * 1000),
        replicas: current,
        status_replicas: current,
        pods: &[],
        metrics,
    };
    a.evaluate(&hpa, &Settings::DEFAULT, &obs).unwrap()
}

fn scaling_limited(d: &Decision<'_>) -> (ConditionStatus, Reason) {
    let c = d.conditions.get(ConditionType::ScalingLimited).unwrap();
    (c.status, c.reason)
}

/// Scale-ups 2 -> 3 at 0 s and 3 -> 4 at 60 s: the first is outdated for the 15 s scale-up
/// period when the second is stored, so the second overwrites it. At 120 s with a proposal of
/// 1, the 600 s scale-down policy counts only the second: the period starts at 4 - 1 = 3, and
/// the limit is 2 (upstream's answer; counting both would give 1).
#[test]
fn an_overwritten_scale_up_no_longer_limits_a_scale_down() {
    let mut a = Autoscaler::new();
    for (at, current, to) in [(0, 2, 3), (60, 3, 4)] {
        let d = step(&mut a, at, current, 10);
        assert_eq!((d.rescale, d.desired_replicas), (true, to));
        assert!(a.rescale_succeeded());
    }
    let list: Vec<_> = a.history().scale_event_list(Direction::Up).collect();
    let second = ScaleEvent {
        change: 1,
        at: Instant(60_000),
        outdated: false,
    };
    assert_eq!(list, [Some(second)]);
    let d = step(&mut a, 120, 4, 1);
    assert_eq!((d.rescale, d.desired_replicas), (true, 2));
    assert_eq!(
        scaling_limited(&d),
        (ConditionStatus::True, Reason::ScaleDownLimit)
    );
    assert!(!d.history_overflowed);
}

/// The same with the second rescale failing (`applied: false` in a trace): no event is stored,
/// so the first one stays and counts for the 600 s period: at 120 s with 3 replicas the period
/// starts at 3 - 1 = 2, the limit is 1, and `minReplicas` (1) is what holds.
#[test]
fn a_failed_rescale_stores_no_event() {
    let mut a = Autoscaler::new();
    let d = step(&mut a, 0, 2, 10);
    assert_eq!(d.desired_replicas, 3);
    assert!(a.rescale_succeeded());
    let d = step(&mut a, 60, 3, 10);
    assert_eq!((d.rescale, d.desired_replicas), (true, 4));
    assert!(a.rescale_failed());
    let first = ScaleEvent {
        change: 1,
        at: Instant(0),
        outdated: false,
    };
    let list: Vec<_> = a.history().scale_event_list(Direction::Up).collect();
    assert_eq!(list, [Some(first)]);
    let d = step(&mut a, 120, 3, 1);
    assert_eq!((d.rescale, d.desired_replicas), (true, 1));
    assert_eq!(
        scaling_limited(&d),
        (ConditionStatus::False, Reason::DesiredWithinRange)
    );
}

/// Scale-ups every 15 s under the 15 s period: an event exactly 15 s old is not outdated (it is
/// not before `now - 15 s`), so the second is appended; from then on each new event overwrites
/// the one outdated slot, which alternates: the list is no longer in time order.
#[test]
fn slots_are_reused_out_of_time_order() {
    let mut a = Autoscaler::new();
    let event = |at_s: i64, outdated| {
        Some(ScaleEvent {
            change: 1,
            at: Instant(at_s * 1000),
            outdated,
        })
    };
    let expected = [
        vec![event(0, false)],
        vec![event(0, false), event(15, false)],
        vec![event(30, false), event(15, false)],
        vec![event(30, false), event(45, false)],
        vec![event(60, false), event(45, false)],
    ];
    let mut current = 1;
    for (i, expected) in expected.iter().enumerate() {
        let d = step(&mut a, 15 * i as i64, current, 10);
        assert_eq!(d.desired_replicas, current + 1, "step {i}");
        assert!(a.rescale_succeeded());
        current += 1;
        let list: Vec<_> = a.history().scale_event_list(Direction::Up).collect();
        assert_eq!(&list, expected, "step {i}");
    }
    // At 75 s the event of 45 s is the one outdated (before 60 s): overwritten.
    let d = step(&mut a, 75, current, 10);
    assert!(a.rescale_succeeded());
    assert_eq!(d.desired_replicas, current + 1);
    current += 1;
    let list: Vec<_> = a.history().scale_event_list(Direction::Up).collect();
    assert_eq!(list, [event(60, false), event(75, false)]);
    // At 130 s both are outdated: the last slot is overwritten and the first keeps its flag.
    let d = step(&mut a, 130, current, 10);
    assert!(a.rescale_succeeded());
    assert_eq!(d.desired_replicas, current + 1);
    let list: Vec<_> = a.history().scale_event_list(Direction::Up).collect();
    assert_eq!(list, [event(60, true), event(130, false)]);
}
