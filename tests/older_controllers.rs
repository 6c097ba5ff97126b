//! The controllers of older releases (`Settings::controller`, feature `older-controllers`):
//! for each rule of docs/spec/releases.md#rules a scenario where the older and the newer rule
//! decide differently, with the last release of the older rule, the first of the newer one and
//! the newest. The expected values are worked out by hand from upstream's rules in each test's
//! comments.

use hpa::conditions::Conditions;
use hpa::defaults::{ResolvedBehavior, ResolvedRules};
use hpa::history::{History, ScaleEvent};
use hpa::input::ContainerUsage;
use hpa::metrics::Tolerances;
use hpa::normalize::{self, Bounds};
use hpa::settings::ControllerRelease;
use hpa::spec::{MetricSpec, MetricTarget, PolicyType, ScalingPolicy, SelectPolicy};
use hpa::{Arithmetic, Instant, MetricValues};
use hpa::{Pod, PodSamples, Quantity, Sample, Settings, Tolerance};
use testkit::pods::{pods, sample};

/// Settings of Kubernetes 1.`minor` (the newest for `None`), in `arithmetic`.
fn settings(minor: Option<u8>, arithmetic: Arithmetic) -> Settings {
    Settings {
        controller: minor.map_or(ControllerRelease::NEWEST, ControllerRelease::kubernetes),
        arithmetic,
        ..Settings::DEFAULT
    }
}

/// One metric's outcome over `pods` with the settings' tolerance both ways.
fn outcome(
    settings: &Settings,
    metric: &MetricSpec<'_>,
    pods: &[Pod<'_>],
    samples: &PodSamples<'_>,
) -> Result<i32, String> {
    let tolerances = Tolerances {
        down: settings.tolerance,
        up: settings.tolerance,
    };
    testkit::pods::outcome(
        settings,
        tolerances,
        metric,
        pods,
        &MetricValues::Pods(*samples),
    )
}

/// [`outcome`] in kubernetes arithmetic in 1.`minor`, without samples of unlisted pods.
fn decide(
    minor: Option<u8>,
    metric: &MetricSpec<'_>,
    pods: &[Pod<'_>],
    per_pod: &[Option<Sample<'_>>],
) -> Result<i32, String> {
    let samples = PodSamples {
        per_pod,
        orphans: &[],
    };
    outcome(
        &settings(minor, Arithmetic::Kubernetes),
        metric,
        pods,
        &samples,
    )
}

#[test]
fn a_release_is_clamped_to_the_releases_followed() {
    assert_eq!(ControllerRelease::kubernetes(30).minor(), 30);
    assert_eq!(ControllerRelease::kubernetes(99), ControllerRelease::NEWEST);
    assert_eq!(ControllerRelease::kubernetes(12).minor(), 23);
    assert_eq!(Settings::DEFAULT.controller, ControllerRelease::NEWEST);
    assert_eq!(ControllerRelease::default(), ControllerRelease::NEWEST);
}

/// docs/spec/releases.md#tolerance-test. Ten pods at 1100m of a 1000m request against a 100 %
/// target: utilization `110 × 10 / 10` = 110 %, ratio `float64(110) / float64(100)` = 1.1 (the
/// float64 nearest, 1.100000000000000088). Before 1.33 (`|1 - r| <= t`): `1.0 - 1.1` =
/// -0.10000000000000009, whose absolute value exceeds 0.1 (0.1000000000000000055): outside, so
/// `ceil(1.1 × 10)`; `1.1 × 10` rounds to exactly 11.0 (docs/spec/arithmetic.md#ratio-1-1-times-10),
/// so 11. From 1.33 (band): `1.1 <= 1.0 + 0.1`, the same float64: inside, 10. At 90 % both hold
/// (`1.0 - 0.9` = 0.09999999999999998 <= 0.1, and `0.9 >= 1.0 - 0.1` = 0.9). Exact arithmetic
/// has one band for both tests: 10.
#[test]
fn tolerance_distance_before_1_33_and_band_since() {
    let metric = MetricSpec::resource("cpu", MetricTarget::utilization(100));
    let pods = pods(10);
    let at = |milli: i64, minor: Option<u8>, arithmetic| {
        let per_pod = vec![Some(sample(milli, &[])); 10];
        let samples = PodSamples {
            per_pod: &per_pod,
            orphans: &[],
        };
        outcome(&settings(minor, arithmetic), &metric, &pods, &samples).unwrap()
    };
    let kubernetes = Arithmetic::Kubernetes;
    assert_eq!(at(1100, Some(23), kubernetes), 11);
    assert_eq!(at(1100, Some(32), kubernetes), 11);
    assert_eq!(at(1100, Some(33), kubernetes), 10);
    assert_eq!(at(1100, None, kubernetes), 10);
    assert_eq!(at(900, Some(32), kubernetes), 10);
    assert_eq!(at(900, None, kubernetes), 10);
    // Just outside on both sides, every release scales: 111 % → ceil(1.11 × 10) = 12,
    // 89 % → ceil(0.89 × 10) = 9.
    assert_eq!(at(1110, Some(32), kubernetes), 12);
    assert_eq!(at(890, Some(32), kubernetes), 9);
    #[cfg(feature = "exact")]
    {
        assert_eq!(at(1100, Some(32), Arithmetic::Exact), 10);
        assert_eq!(at(1110, Some(32), Arithmetic::Exact), 12);
    }
}

/// The distance test uses the controller's flag: with a 0.05 flag, 107 % is outside before
/// 1.33 (`|1 - 1.07|` = 0.07000000000000006 > 0.05) and scales to `ceil(1.07 × 10)` =
/// ceil(10.700000000000001) = 11, as the band does from 1.33.
#[test]
fn the_distance_test_takes_the_controller_flag() {
    let metric = MetricSpec::resource("cpu", MetricTarget::utilization(100));
    let pods = pods(10);
    let per_pod = vec![Some(sample(1070, &[])); 10];
    let samples = PodSamples {
        per_pod: &per_pod,
        orphans: &[],
    };
    let tolerance = Tolerance::from_decimal(5, -2).unwrap();
    for minor in [Some(32), None] {
        let s = Settings {
            tolerance,
            ..settings(minor, Arithmetic::Kubernetes)
        };
        assert_eq!(outcome(&s, &metric, &pods, &samples), Ok(11), "{minor:?}");
    }
}

/// docs/spec/releases.md#missing-pod-fill. Four pods requesting 1000m against a 200 % target;
/// three report 1000m, one has no sample (missing). First pass: utilization `3000 × 100 / 3000`
/// = 100 %, ratio 100 / 200 = 0.5 < 1, so the missing pod is filled in (step g).
/// Before 1.26, with its request, 1000m: `4000 × 100 / 4000` = 100 %, new ratio 0.5, outside the
/// band, no flip, `ceil(0.5 × 4)` = 2. From 1.26, with `1000 × max(100, 200) / 100` = 2000m:
/// `5000 × 100 / 4000` = 125 %, new ratio 0.625, `ceil(0.625 × 4)` = ceil(2.5) = 3.
#[test]
fn missing_pods_at_their_request_before_1_26() {
    let metric = MetricSpec::resource("cpu", MetricTarget::utilization(200));
    let pods = pods(4);
    let per_pod = [
        Some(sample(1000, &[])),
        Some(sample(1000, &[])),
        Some(sample(1000, &[])),
        None,
    ];
    let at = |minor| decide(minor, &metric, &pods, &per_pod);
    assert_eq!(at(Some(23)), Ok(2));
    assert_eq!(at(Some(25)), Ok(2));
    assert_eq!(at(Some(26)), Ok(3));
    assert_eq!(at(None), Ok(3));
    // At a target of 100 % or less both fill in the request: the same decision.
    let metric = MetricSpec::resource("cpu", MetricTarget::utilization(100));
    let at = |minor| decide(minor, &metric, &pods, &per_pod);
    assert_eq!(at(Some(25)), at(None));
}

/// docs/spec/releases.md#plain-missing-at-one, the scale-down direction. An average-value
/// target of 500m cpu (`calcPlainMetricReplicas`, as for Pods metrics) over six pods: four
/// report 500m, 500m, 501m and 502m, two have no sample (missing). First pass: the average
/// `2003 / 4` = 500 (truncating), ratio `500 / 500` = exactly 1.0, so the second pass runs
/// (missing pods). Before 1.28 the missing pods are filled in with 0 (the branch for every
/// ratio not below 1): `2003 / 6` = 333, new ratio 0.666, outside the tolerance, no flip from
/// a ratio of 1, `ceil(0.666 × 6)` = ceil(3.996) = 4, not above the current 6: 4. From 1.28
/// nothing is filled in at exactly 1: the new ratio is 1.0 again, within the tolerance: 6.
#[test]
fn missing_pods_at_zero_at_a_ratio_of_one_before_1_28() {
    let metric = MetricSpec::resource(
        "cpu",
        MetricTarget::average_value(Quantity::from_milli(500)),
    );
    let pods = pods(6);
    let per_pod = [
        Some(sample(500, &[])),
        Some(sample(500, &[])),
        Some(sample(501, &[])),
        Some(sample(502, &[])),
        None,
        None,
    ];
    let at = |minor| decide(minor, &metric, &pods, &per_pod);
    assert_eq!(at(Some(23)), Ok(4));
    assert_eq!(at(Some(27)), Ok(4));
    assert_eq!(at(Some(28)), Ok(6));
    assert_eq!(at(None), Ok(6));
    // A utilization target at exactly 1 never filled missing pods in (`GetResourceReplicas`
    // has had `else if usageRatio > 1.0` since 1.5): 1000m requests at 50 % and the same
    // usage: `2003 × 100 / 4000` = 50 %, ratio 1.0, the same map again: 6 in every release.
    let metric = MetricSpec::resource("cpu", MetricTarget::utilization(50));
    let at = |minor| decide(minor, &metric, &pods, &per_pod);
    assert_eq!(at(Some(23)), Ok(6));
    assert_eq!(at(None), Ok(6));
}

/// docs/spec/releases.md#plain-missing-at-one, the scale-up direction: the older rule changes
/// nothing there. The same six pods with the four samples at 1000m: ratio `1000 / 500` = 2 > 1,
/// and every release fills the missing pods in with 0: `4000 / 6` = 666, new ratio 1.332,
/// `ceil(1.332 × 6)` = ceil(7.992) = 8. Below the target (250m each, ratio 0.5) every release
/// fills in the target: `(1000 + 1000) / 6` = 333, `ceil(0.666 × 6)` = 4. At exactly 1 the
/// older fill can only lower the ratio (the new average is below the target), so an older
/// controller never proposes more than the newer one there.
#[test]
fn missing_pods_above_and_below_one_alike_in_every_release() {
    let metric = MetricSpec::resource(
        "cpu",
        MetricTarget::average_value(Quantity::from_milli(500)),
    );
    let pods = pods(6);
    let four_at = |milli| {
        let mut per_pod = vec![Some(sample(milli, &[])); 4];
        per_pod.extend([None, None]);
        per_pod
    };
    let (above, below) = (four_at(1000), four_at(250));
    for minor in [Some(23), Some(27), Some(28), None] {
        assert_eq!(decide(minor, &metric, &pods, &above), Ok(8), "{minor:?}");
        assert_eq!(decide(minor, &metric, &pods, &below), Ok(4), "{minor:?}");
    }
}

static APP_1500: [ContainerUsage<'static>; 1] = [ContainerUsage {
    name: "app",
    milli: 1500,
}];
static PROXY_ONLY: [ContainerUsage<'static>; 1] = [ContainerUsage {
    name: "proxy",
    milli: 30,
}];

/// docs/spec/releases.md#missing-container. A ContainerResource metric of `app` at 50 % over
/// three pods (1000m requests); p0 and p1 report app at 1500m, p2's metrics have only `proxy`.
/// Before the newest: the metrics client fails the metric, naming p2. The newest: p2 is a
/// missing pod. First pass `3000 × 100 / 2000` = 150 %, ratio 3 > 1, so p2 counts as 0:
/// `3000 × 100 / 3000` = 100 %, new ratio 2, `ceil(2 × 3)` = 6.
#[test]
fn a_missing_container_fails_the_metric_before_the_newest() {
    let metric = MetricSpec::container_resource("cpu", "app", MetricTarget::utilization(50));
    let pods = pods(3);
    let per_pod = [
        Some(sample(1530, &APP_1500)),
        Some(sample(1530, &APP_1500)),
        Some(sample(30, &PROXY_ONLY)),
    ];
    let at = |minor| decide(minor, &metric, &pods, &per_pod);
    let error = "failed to get app container metric value: failed to get cpu utilization: \
                 unable to get metrics for resource cpu: failed to get container metrics: \
                 container app not present in metrics for pod p2";
    assert_eq!(at(Some(23)), Err(error.to_owned()));
    assert_eq!(at(Some(36)), Err(error.to_owned()));
    assert_eq!(at(Some(37)), Ok(6));
    assert_eq!(at(None), Ok(6));

    // A sample of a pod that is not listed counts too (upstream checks every sample returned).
    let per_pod = [Some(sample(1530, &APP_1500)), Some(sample(1530, &APP_1500))];
    let orphans = [sample(30, &PROXY_ONLY)];
    let samples = PodSamples {
        per_pod: &per_pod,
        orphans: &orphans,
    };
    let pods = &pods[..2];
    let old = outcome(
        &settings(Some(30), Arithmetic::Kubernetes),
        &metric,
        pods,
        &samples,
    );
    assert!(old.unwrap_err().ends_with("for an unlisted pod"));
    // The newest: the orphan has no value for `app` and is left out: 150 %, ratio 3,
    // `ceil(3 × 2)` = 6.
    let newest = outcome(
        &settings(None, Arithmetic::Kubernetes),
        &metric,
        pods,
        &samples,
    );
    assert_eq!(newest, Ok(6));

    // A Resource metric reads the pod's sum: no container is looked for in any release.
    let metric = MetricSpec::resource("cpu", MetricTarget::utilization(50));
    let per_pod = [Some(sample(1530, &APP_1500)), Some(sample(30, &PROXY_ONLY))];
    let at = |minor| decide(minor, &metric, pods, &per_pod);
    assert_eq!(at(Some(30)), at(None));
    assert!(at(Some(30)).is_ok());
}

fn rules(policies: &[ScalingPolicy]) -> ResolvedRules<'_> {
    ResolvedRules {
        stabilization_window_seconds: Some(0),
        select_policy: SelectPolicy::Max,
        policies,
        tolerance: None,
    }
}

/// The scale of issue kubernetes/kubernetes#108354: 4 replicas scaled up by 4 to 8 thirty
/// seconds ago, then down by 2 to 6 twenty seconds ago; now 6 replicas.
fn issue_108354_history() -> History<16, 16> {
    let event = |change, at| {
        Some(ScaleEvent {
            change,
            at: Instant(at),
            outdated: false,
        })
    };
    let mut history = History::new();
    history
        .load(true, &[], &[event(4, -30_000)], &[event(2, -20_000)])
        .unwrap();
    history
}

/// The normalized replicas from 6 toward `desired` with `behavior`, in 1.`minor`.
fn normalized(minor: Option<u8>, behavior: &ResolvedBehavior<'_>, desired: i32) -> i32 {
    let mut history = issue_108354_history();
    let settings = settings(minor, Arithmetic::Kubernetes);
    let mut conditions = Conditions::new();
    let bounds = Bounds {
        current: 6,
        min: 1,
        max: 20,
        now: Instant(0),
    };
    normalize::with_behavior(
        &mut history,
        &settings,
        behavior,
        &mut conditions,
        bounds,
        desired,
    )
    .replicas
}

/// docs/spec/releases.md#period-start, issue kubernetes/kubernetes#108354's own numbers: a
/// scale-up policy of 300 % per 300 s, and a proposal of 24 (max 20). Before 1.25 the period
/// starts at `current − added` = 6 − 4 = 2: `ceil(2 × (1 + 300/100))` = 8. From 1.25 at
/// `6 − 4 + 2` = 4: `ceil(4 × 4)` = 16 (under the max of 20). A scale-down policy of 2 pods per
/// 60 s toward 1: before 1.25 the start is `current + deleted` = 8, `8 − 2` = 6, not below the
/// current 6: it holds; from 1.25 it is 4, `4 − 2` = 2.
#[test]
fn period_start_counts_one_direction_before_1_25() {
    let up = [ScalingPolicy {
        type_: PolicyType::Percent,
        value: 300,
        period_seconds: 300,
    }];
    let down = [ScalingPolicy {
        type_: PolicyType::Pods,
        value: 2,
        period_seconds: 60,
    }];
    let behavior = ResolvedBehavior {
        scale_up: rules(&up),
        scale_down: rules(&down),
    };
    assert_eq!(normalized(Some(23), &behavior, 24), 8);
    assert_eq!(normalized(Some(24), &behavior, 24), 8);
    assert_eq!(normalized(Some(25), &behavior, 24), 16);
    assert_eq!(normalized(None, &behavior, 24), 16);
    assert_eq!(normalized(Some(24), &behavior, 1), 6);
    assert_eq!(normalized(Some(25), &behavior, 1), 2);
    assert_eq!(normalized(None, &behavior, 1), 2);
}
