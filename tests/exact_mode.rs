//! The two arithmetic modes (`Settings::arithmetic`) on the float64 quirks of the algorithm
//! (docs/spec/arithmetic.md#quirks): `Kubernetes` reproduces upstream's IEEE binary64 expressions,
//! `Exact` evaluates the same expressions in rationals.
//!
//! Expectations come from the spec's worked numbers. The randomized tests use two independent
//! references: the host's `f64` evaluating upstream's expressions in upstream's order (Go's
//! float64 is the same IEEE binary64) for `Kubernetes`, and `i128` rationals for `Exact`.

use hpa::defaults::ResolvedRules;
use hpa::history::{History, ScaleEvent};
use hpa::metrics::Tolerances;
use hpa::normalize::{scale_down_limit, scale_up_limit};
use hpa::spec::{
    Behavior, CrossVersionObjectReference, MetricIdentifier, MetricSpec, MetricTarget, PolicyType,
    ScalingPolicy, ScalingRules, SelectPolicy,
};
use hpa::{Arithmetic, Autoscaler, Hpa, HpaSpec, Instant, MetricValues, Observation};
use hpa::{Pod, PodSamples, Quantity, Sample, Settings, Tolerance};
use testkit::pods::{outcome, pod, sample};
use testkit::Rng;

const MODES: [Arithmetic; 2] = [Arithmetic::Kubernetes, Arithmetic::Exact];

fn settings(arithmetic: Arithmetic) -> Settings {
    Settings {
        arithmetic,
        ..Settings::DEFAULT
    }
}

// ---------------------------------------------------------------------------------------------
// Pods and observations

/// A pod counted by every calculator, requesting 1 CPU (testkit's fixture).
const POD: Pod<'static> = pod("worker");

/// A sample of `milli` CPU taken now.
fn cpu_sample(milli: i64) -> Option<Sample<'static>> {
    Some(sample(milli, &[]))
}

fn tolerance(q: &str) -> Tolerance {
    Tolerance::from_quantity(&Quantity::parse(q).unwrap()).unwrap()
}

/// The proposal of one metric for `n` pods (current = status = n) under `tol`.
fn proposal(
    mode: Arithmetic,
    metric: &MetricSpec<'_>,
    values: &MetricValues<'_>,
    n: usize,
    tol: Tolerances,
) -> i32 {
    let pods = vec![POD; n];
    outcome(&settings(mode), tol, metric, &pods, values)
        .unwrap_or_else(|e| panic!("metric failed: {e}"))
}

const DEFAULT_TOLERANCES: Tolerances = Tolerances {
    down: Tolerance::DEFAULT,
    up: Tolerance::DEFAULT,
};

/// `n` pods each using `util` % of their 1-CPU request, against a `target` % utilization
/// target: the utilization is exactly `util` (docs/spec/calculator.md#utilization, step d) and the
/// ratio `util / target`.
fn utilization_proposal(
    mode: Arithmetic,
    n: usize,
    util: i64,
    target: i32,
    tol: Tolerances,
) -> i32 {
    let metric = MetricSpec::resource("cpu", MetricTarget::utilization(target));
    let samples = vec![cpu_sample(util * 10); n];
    let values = MetricValues::Pods(PodSamples {
        per_pod: &samples,
        orphans: &[],
    });
    proposal(mode, &metric, &values, n, tol)
}

/// The same through the whole engine (`Autoscaler::evaluate`, no behavior): the decision's
/// combined proposal.
fn evaluate_utilization(mode: Arithmetic, n: usize, util: i64, target: i32) -> Option<i32> {
    let metrics = [MetricSpec::resource(
        "cpu",
        MetricTarget::utilization(target),
    )];
    let spec = HpaSpec {
        min_replicas: Some(1),
        max_replicas: 1000,
        metrics: &metrics,
        behavior: None,
        scale_target_ref: None,
    };
    let settings = settings(mode);
    let hpa = Hpa::new(&spec, &settings).unwrap();
    let pods = vec![POD; n];
    let samples = vec![cpu_sample(util * 10); n];
    let values = [MetricValues::Pods(PodSamples {
        per_pod: &samples,
        orphans: &[],
    })];
    let replicas = i32::try_from(n).unwrap();
    let obs = Observation {
        now: Instant(0),
        replicas,
        status_replicas: replicas,
        pods: &pods,
        metrics: &values,
    };
    let mut autoscaler: Autoscaler = Autoscaler::new();
    let decision = autoscaler.evaluate(&hpa, &settings, &obs).unwrap();
    decision.proposal
}

// ---------------------------------------------------------------------------------------------
// References

/// Upstream's `within` with the default tolerance and `int32(ceil(ratio * float64(n)))`, in
/// host binary64 (docs/spec/calculator.md#utilization step f, docs/spec/calculator.md#tolerances).
fn float_utilization_reference(n: i64, util: i64, target: i64) -> i32 {
    let ratio = util as f64 / target as f64;
    // (1.0 - down) <= ratio && ratio <= (1.0 + up)
    if (1.0 - 0.1..=1.0 + 0.1).contains(&ratio) {
        return i32::try_from(n).unwrap();
    }
    (ratio * n as f64).ceil() as i32
}

/// The same in exact rationals: `0.9 <= util/target <= 1.1`, else `ceil(util * n / target)`.
fn exact_utilization_reference(n: i64, util: i64, target: i64) -> i32 {
    let (u, t, n) = (i128::from(util), i128::from(target), i128::from(n));
    if 9 * t <= 10 * u && 10 * u <= 11 * t {
        return i32::try_from(n).unwrap();
    }
    i32::try_from((u * n + t - 1) / t).unwrap()
}

// ---------------------------------------------------------------------------------------------
// Ratio x pods: docs/spec/arithmetic.md#ratio-times-pods,
// docs/spec/arithmetic.md#ratio-1-1-times-10

/// docs/spec/arithmetic.md#ratio-times-pods: 25 pods at 28 % of a 100 % target is
/// ceil(7.000000000000001) = 8 upstream, 7 exactly; and the other listed cases.
#[test]
fn ratio_times_pods_rounds_up_past_an_exact_integer_in_kubernetes_mode() {
    // (pods, utilization, target, kubernetes, exact), from
    // docs/spec/arithmetic.md#ratio-times-pods.
    for (n, util, target, kubernetes, exact) in [
        (25, 28, 100, 8, 7),
        (25, 14, 50, 8, 7),
        (15, 124, 60, 32, 31),
        (25, 176, 80, 56, 55),
    ] {
        // The host's binary64 agrees with the spec's numbers.
        assert_eq!(
            float_utilization_reference(n, util, i64::from(target)),
            kubernetes
        );
        assert_eq!(
            exact_utilization_reference(n, util, i64::from(target)),
            exact
        );
        let n = usize::try_from(n).unwrap();
        for (mode, expected) in [
            (Arithmetic::Kubernetes, kubernetes),
            (Arithmetic::Exact, exact),
        ] {
            assert_eq!(
                evaluate_utilization(mode, n, util, target),
                Some(expected),
                "{mode:?}: {n} pods at {util} % vs {target} %"
            );
        }
    }
}

/// docs/spec/arithmetic.md#ratio-1-1-times-10: 10 pods at ratio 1.1 give 11, not 12, in both modes
/// (`1.1 * 10` rounds to exactly 11.0). With the default tolerance 1.1 is inside the band
/// (docs/spec/arithmetic.md#plus-10-percent), so the tolerance is 0 here.
#[test]
fn ratio_1_1_times_10_pods_is_11_in_both_modes() {
    let zero = Tolerance::from_decimal(0, 0).unwrap();
    let tol = Tolerances {
        down: zero,
        up: zero,
    };
    for mode in MODES {
        assert_eq!(
            utilization_proposal(mode, 10, 110, 100, tol),
            11,
            "{mode:?}"
        );
    }
}

/// docs/spec/arithmetic.md#plus-10-percent: exactly +10 % (and -10 %) is inside the default
/// tolerance in both modes.
#[test]
fn exactly_ten_percent_off_target_is_within_the_default_tolerance() {
    for mode in MODES {
        assert_eq!(
            utilization_proposal(mode, 10, 110, 100, DEFAULT_TOLERANCES),
            10
        );
        assert_eq!(
            utilization_proposal(mode, 10, 90, 100, DEFAULT_TOLERANCES),
            10
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Percent policies: docs/spec/arithmetic.md#quirks, items 2 to 4

fn rules(policies: &[ScalingPolicy]) -> ResolvedRules<'_> {
    ResolvedRules {
        stabilization_window_seconds: Some(0),
        select_policy: SelectPolicy::Max,
        policies,
        tolerance: None,
    }
}

fn percent(value: i32, period_seconds: i32) -> [ScalingPolicy; 1] {
    [ScalingPolicy {
        type_: PolicyType::Percent,
        value,
        period_seconds,
    }]
}

/// The Percent scale-up limit from `current` with no scale event in the period.
fn up_limit(mode: Arithmetic, current: i32, value: i32) -> i32 {
    let history: History<4, 4> = History::new();
    scale_up_limit(
        &history,
        &rules(&percent(value, 60)),
        current,
        Instant(0),
        mode,
    )
    .0
}

fn down_limit(mode: Arithmetic, current: i32, value: i32) -> i32 {
    let history: History<4, 4> = History::new();
    scale_down_limit(
        &history,
        &rules(&percent(value, 60)),
        current,
        Instant(0),
        mode,
    )
    .0
}

/// docs/spec/arithmetic.md#percent-up-10-from-10 and docs/spec/arithmetic.md#percent-up-overshoot:
/// `ceil(float64(start) * (1 + float64(p)/100))`.
#[test]
fn percent_scale_up_limits() {
    // (start, percent, kubernetes, exact)
    for (start, p, kubernetes, exact) in [
        (10, 10, 11, 11), // 16.2: 10 * 1.1000000000000000888 rounds to exactly 11.0
        (25, 12, 29, 28), // 16.3: ceil(28.000000000000004)
        (225, 8, 244, 243),
        (1900, 7, 2034, 2033),
    ] {
        assert_eq!(up_limit(Arithmetic::Kubernetes, start, p), kubernetes);
        assert_eq!(up_limit(Arithmetic::Exact, start, p), exact);
    }
}

/// docs/spec/arithmetic.md#percent-down-undershoot: `int32(float64(start) * (1 - float64(p)/100))`
/// truncates a product a hair below an integer.
#[test]
fn percent_scale_down_limits() {
    for (start, p, kubernetes, exact) in [
        (10, 80, 1, 2),
        (5, 80, 0, 1),
        (10, 90, 0, 1),
        (25, 56, 10, 11),
    ] {
        assert_eq!(down_limit(Arithmetic::Kubernetes, start, p), kubernetes);
        assert_eq!(down_limit(Arithmetic::Exact, start, p), exact);
    }
}

/// docs/spec/arithmetic.md#percent-up-overshoot and docs/spec/arithmetic.md#percent-down-undershoot
/// give the number of disagreements over whole ranges: 4,766 Percent scale-up limits for N <= 2000,
/// p <= 1000, and 1,304 scale-down limits for N <= 2000, p < 100. Each limit is also checked
/// against both references.
#[test]
fn percent_policy_disagreements_match_the_spec_counts() {
    let history: History<4, 4> = History::new();
    // Miri, which interprets each limit in about a third of a second, takes a grid through
    // both ranges: every 111th (up) or 33rd (down) percentage and the counts 0, 1,000 and
    // 2,000 (where `N × p` is a whole number of hundreds, so that the disagreements come up),
    // with the counts of disagreements on that grid (2 of 30 limits up, 4 of 9 down).
    let (up_stride, down_stride, n_stride, up_count, down_count) = if cfg!(miri) {
        (111, 33, 1000, 2, 4)
    } else {
        (1, 1, 1, 4766, 1304)
    };
    let mut up_mismatches = 0;
    for p in (1..=1000).step_by(up_stride) {
        let policies = percent(p, 60);
        let rules = rules(&policies);
        let factor = 1.0 + f64::from(p) / 100.0;
        for n in (0..=2000).step_by(n_stride) {
            let k = scale_up_limit(&history, &rules, n, Instant(0), Arithmetic::Kubernetes).0;
            let e = scale_up_limit(&history, &rules, n, Instant(0), Arithmetic::Exact).0;
            assert_eq!(k, (f64::from(n) * factor).ceil() as i32, "up {n} at {p} %");
            let exact = (i64::from(n) * i64::from(100 + p) + 99) / 100;
            assert_eq!(i64::from(e), exact, "up {n} at {p} %");
            up_mismatches += usize::from(k != e);
        }
    }
    assert_eq!(up_mismatches, up_count);

    let mut down_mismatches = 0;
    for p in (1..100).step_by(down_stride) {
        let policies = percent(p, 60);
        let rules = rules(&policies);
        let factor = 1.0 - f64::from(p) / 100.0;
        for n in (0..=2000).step_by(n_stride) {
            let k = scale_down_limit(&history, &rules, n, Instant(0), Arithmetic::Kubernetes).0;
            let e = scale_down_limit(&history, &rules, n, Instant(0), Arithmetic::Exact).0;
            assert_eq!(k, (f64::from(n) * factor) as i32, "down {n} at {p} %");
            assert_eq!(i64::from(e), i64::from(n) * i64::from(100 - p) / 100);
            down_mismatches += usize::from(k != e);
        }
    }
    assert_eq!(down_mismatches, down_count);
}

/// The policy's start is `current - added + deleted` over the period
/// (docs/spec/normalization.md#period-start): with a loaded history of scale events the same quirks
/// appear at other current counts.
#[test]
fn percent_limits_from_a_loaded_history() {
    // 30 replicas after a +5 scale-up 10 s ago: the 60 s period starts at 25 -> 29 vs 28.
    let event = |change, at| {
        Some(ScaleEvent {
            change,
            at: Instant(at),
            outdated: false,
        })
    };
    let mut history: History<16, 16> = History::new();
    history
        .load(true, &[(30, Instant(-10_000))], &[event(5, -10_000)], &[])
        .unwrap();
    let policies = percent(12, 60);
    let up = |mode| scale_up_limit(&history, &rules(&policies), 30, Instant(0), mode);
    assert_eq!(up(Arithmetic::Kubernetes), (29, false));
    assert_eq!(up(Arithmetic::Exact), (28, false));
    // An event older than the period does not count: the start is 30 -> ceil(33.6) = 34.
    let later = |mode| scale_up_limit(&history, &rules(&policies), 30, Instant(60_000), mode);
    assert_eq!(later(Arithmetic::Kubernetes), (34, false));
    assert_eq!(later(Arithmetic::Exact), (34, false));

    // 7 replicas after a 10 -> 7 scale-down 5 s ago: the start is 10 -> 1 vs 2 at 80 %.
    let mut history: History<16, 16> = History::new();
    history
        .load(true, &[(7, Instant(-5_000))], &[], &[event(3, -5_000)])
        .unwrap();
    let policies = percent(80, 60);
    let down = |mode| scale_down_limit(&history, &rules(&policies), 7, Instant(0), mode);
    assert_eq!(down(Arithmetic::Kubernetes), (1, false));
    assert_eq!(down(Arithmetic::Exact), (2, false));
}

/// The Percent quirks through `Autoscaler::evaluate`: 25 replicas with a "Percent 12" scale-up
/// policy and a large load go to 29 (28 exactly); 10 replicas with "Percent 80" scale-down and
/// no load go to 1 (2 exactly). The External AverageValue metric proposes ceil(value/target).
#[test]
fn percent_quirks_through_the_engine() {
    static METRICS: [MetricSpec<'static>; 1] = [MetricSpec::external(
        MetricIdentifier::named("queue"),
        MetricTarget::average_value(Quantity::from_milli(1000)),
    )];
    let up = percent(12, 60);
    let down = percent(80, 60);
    let behavior = Behavior {
        scale_up: Some(ScalingRules {
            policies: Some(&up),
            ..ScalingRules::default()
        }),
        scale_down: Some(ScalingRules {
            stabilization_window_seconds: Some(0),
            policies: Some(&down),
            ..ScalingRules::default()
        }),
    };
    let spec = HpaSpec {
        min_replicas: Some(1),
        max_replicas: 100,
        metrics: &METRICS,
        behavior: Some(behavior),
        scale_target_ref: None,
    };
    // (current, load in replicas, kubernetes, exact)
    for (current, load, kubernetes, exact) in [(25, 90, 29, 28), (10, 1, 1, 2)] {
        for (mode, expected) in [
            (Arithmetic::Kubernetes, kubernetes),
            (Arithmetic::Exact, exact),
        ] {
            let settings = settings(mode);
            let hpa = Hpa::new(&spec, &settings).unwrap();
            let values = [load * 1000];
            let metrics = [MetricValues::External(&values)];
            let obs = Observation {
                now: Instant(0),
                replicas: current,
                status_replicas: current,
                pods: &[],
                metrics: &metrics,
            };
            let mut autoscaler: Autoscaler = Autoscaler::new();
            let d = autoscaler.evaluate(&hpa, &settings, &obs).unwrap();
            assert_eq!(d.proposal, Some(i32::try_from(load).unwrap()));
            assert_eq!(d.desired_replicas, expected, "{mode:?} from {current}");
            assert!(d.rescale);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Tolerance bounds: docs/spec/arithmetic.md#tolerance-bounds

/// One evaluation with per-direction tolerances from the HPA's behavior (quantities, as the
/// API stores them), 10 pods at `util` % of a `target` % target. Returns the proposal and the
/// decided count.
fn evaluate_with_tolerances(
    mode: Arithmetic,
    down: &str,
    up: &str,
    util: i64,
    target: i32,
) -> (Option<i32>, i32) {
    let metrics = [MetricSpec::resource(
        "cpu",
        MetricTarget::utilization(target),
    )];
    let behavior = Behavior {
        scale_up: Some(ScalingRules {
            tolerance: Some(Quantity::parse(up).unwrap()),
            ..ScalingRules::default()
        }),
        scale_down: Some(ScalingRules {
            stabilization_window_seconds: Some(0),
            tolerance: Some(Quantity::parse(down).unwrap()),
            ..ScalingRules::default()
        }),
    };
    let spec = HpaSpec {
        min_replicas: Some(1),
        max_replicas: 100,
        metrics: &metrics,
        behavior: Some(behavior),
        scale_target_ref: None,
    };
    let settings = settings(mode);
    let hpa = Hpa::new(&spec, &settings).unwrap();
    let pods = vec![POD; 10];
    let samples = vec![cpu_sample(util * 10); 10];
    let values = [MetricValues::Pods(PodSamples {
        per_pod: &samples,
        orphans: &[],
    })];
    let obs = Observation {
        now: Instant(0),
        replicas: 10,
        status_replicas: 10,
        pods: &pods,
        metrics: &values,
    };
    let mut autoscaler: Autoscaler = Autoscaler::new();
    let d = autoscaler.evaluate(&hpa, &settings, &obs).unwrap();
    (d.proposal, d.desired_replicas)
}

/// docs/spec/arithmetic.md#tolerance-bounds: `1 - 0.18` is 0.8200000000000001, so 41 %/50 %
/// (exactly 0.82) is outside a "0.18" scale-down tolerance upstream: 10 pods propose ceil(0.82 *
/// 10) = 9. Exactly, 0.82 is on the bound, which is inclusive: no change. Likewise `1 + 0.36` is
/// 1.3599999999999999 and 34/25 = 1.36 scales up to ceil(13.600000000000001) = 14 upstream, stays
/// at 10 exactly.
#[test]
fn tolerance_bounds_with_non_default_tolerances() {
    // The host's binary64 shows the same bounds (black_box: evaluated at run time).
    let f = std::hint::black_box::<f64>;
    assert!(f(41.0) / f(50.0) < f(1.0) - f(0.18));
    assert!(f(34.0) / f(25.0) > f(1.0) + f(0.36));
    assert_eq!(
        evaluate_with_tolerances(Arithmetic::Kubernetes, "0.18", "0.1", 41, 50),
        (Some(9), 9)
    );
    assert_eq!(
        evaluate_with_tolerances(Arithmetic::Exact, "0.18", "0.1", 41, 50),
        (Some(10), 10)
    );
    assert_eq!(
        evaluate_with_tolerances(Arithmetic::Kubernetes, "0.1", "0.36", 34, 25),
        (Some(14), 14)
    );
    assert_eq!(
        evaluate_with_tolerances(Arithmetic::Exact, "0.1", "0.36", 34, 25),
        (Some(10), 10)
    );
    // The same pairs with the tolerances given to the calculator directly.
    let tol = Tolerances {
        down: tolerance("0.18"),
        up: tolerance("0.36"),
    };
    assert_eq!(
        utilization_proposal(Arithmetic::Kubernetes, 10, 41, 50, tol),
        9
    );
    assert_eq!(utilization_proposal(Arithmetic::Exact, 10, 41, 50, tol), 10);
    assert_eq!(
        utilization_proposal(Arithmetic::Kubernetes, 10, 34, 25, tol),
        14
    );
    assert_eq!(utilization_proposal(Arithmetic::Exact, 10, 34, 25, tol), 10);
    // "0.35" reads as 0.35000000000000003 but 1 + that is 1.35 again: 27/20 is inside in
    // both modes.
    let tol = Tolerances {
        down: Tolerance::DEFAULT,
        up: tolerance("0.35"),
    };
    for mode in MODES {
        assert_eq!(utilization_proposal(mode, 10, 27, 20, tol), 10, "{mode:?}");
    }
}

/// docs/spec/arithmetic.md#tolerance-bounds: the default 0.1 has no boundary error: every ratio
/// exactly 0.9 or 1.1 is inside the band in both modes, and one percent beyond it is outside in
/// both (20 pods: a ratio outside the band then always proposes another count).
#[test]
fn default_tolerance_has_no_boundary_error() {
    // Miri, which interprets each proposal in about a second, takes every 14th target: 10,
    // 150 and 290 (multiples of 10, so that the utilizations are exactly 0.9 and 1.1 of them).
    for target in (10..=300).step_by(if cfg!(miri) { 140 } else { 10 }) {
        let t = i64::from(target);
        for util in [t * 9 / 10, t * 11 / 10] {
            for mode in MODES {
                assert_eq!(
                    utilization_proposal(mode, 20, util, target, DEFAULT_TOLERANCES),
                    20,
                    "{mode:?}: {util}/{target}"
                );
            }
        }
        for util in [t * 9 / 10 - 1, t * 11 / 10 + 1] {
            let k =
                utilization_proposal(Arithmetic::Kubernetes, 20, util, target, DEFAULT_TOLERANCES);
            let e = utilization_proposal(Arithmetic::Exact, 20, util, target, DEFAULT_TOLERANCES);
            assert_ne!(k, 20, "{util}/{target} is outside the band");
            assert_ne!(e, 20, "{util}/{target} is outside the band");
            assert_eq!(k, float_utilization_reference(20, util, t));
            assert_eq!(e, exact_utilization_reference(20, util, t));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Per-pod Object/External ratios: docs/spec/arithmetic.md#per-pod-ratios

fn external_average(target_milli: i64) -> MetricSpec<'static> {
    MetricSpec::external(
        MetricIdentifier::named("queue"),
        MetricTarget::average_value(Quantity::from_milli(target_milli)),
    )
}

/// docs/spec/arithmetic.md#per-pod-ratios: with the default tolerance, per-pod ratios
/// `v / (t * replicas)` exactly on the band's edges (0.9 and 1.1) are inside in both modes for
/// t < 60, replicas < 40: the proposal is the status replica count.
#[test]
fn per_pod_ratios_have_no_boundary_disagreement() {
    // Miri, which interprets each proposal in about a second, takes a grid of targets and
    // replica counts: every 11th target and 7th count, 6 pairs on the band's edges (24
    // proposals) instead of 120 on the grid of every 4th and 3rd.
    let (t_stride, r_stride) = if cfg!(miri) { (11, 7) } else { (1, 1) };
    for t in (1..60_i64).step_by(t_stride) {
        let metric = external_average(t);
        for r in (1..40_i64).step_by(r_stride) {
            for tenths in [9, 11] {
                if (t * r * tenths) % 10 != 0 {
                    continue;
                }
                let v = [t * r * tenths / 10];
                let values = MetricValues::External(&v);
                for mode in MODES {
                    let n = usize::try_from(r).unwrap();
                    assert_eq!(
                        proposal(mode, &metric, &values, n, DEFAULT_TOLERANCES),
                        i32::try_from(r).unwrap(),
                        "{mode:?}: {}/({t}*{r})",
                        v[0]
                    );
                }
            }
        }
    }
}

/// docs/spec/arithmetic.md#per-pod-ratios: `ceil(float64(v) / float64(t))` is exact below 2^53
/// milli-units; above, the conversion of `v` loses precision. v = 2^62 + 1, t = 2^32: float64(v) is
/// 2^62, so upstream proposes 2^30; the exact quotient is a hair above 2^30, so 2^30 + 1.
#[test]
fn external_per_pod_beyond_2_pow_53() {
    let metric = external_average(1 << 32);
    let v = [(1_i64 << 62) + 1];
    let values = MetricValues::External(&v);
    assert_eq!(
        proposal(
            Arithmetic::Kubernetes,
            &metric,
            &values,
            1,
            DEFAULT_TOLERANCES
        ),
        1 << 30
    );
    assert_eq!(
        proposal(Arithmetic::Exact, &metric, &values, 1, DEFAULT_TOLERANCES),
        (1 << 30) + 1
    );
    // Below 2^53 both are exact.
    let v = [(1_i64 << 52) + 1];
    let values = MetricValues::External(&v);
    for mode in MODES {
        assert_eq!(
            proposal(mode, &metric, &values, 1, DEFAULT_TOLERANCES),
            (1 << 20) + 1
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Randomized

/// Thousands of utilization cases: `Kubernetes` equals upstream's float64 expression, `Exact`
/// equals the rational `ceil(util / target * pods)` (or the pod count inside the band), and
/// where the exact quotient is not an integer (so at least 1/target away from one) the modes
/// agree. Where it is an integer, float64 can only land on it or a hair above.
#[test]
fn randomized_utilization_modes_and_references() {
    let mut rng = Rng::new(0xE8AC_7000);
    let (mut agree, mut differ) = (0, 0);
    // Miri interprets each case in seconds: every third of the first 80 cases (all drawn,
    // so that the sample holds the first float64 overshoot, the 79th case; 60 random cases
    // held none and failed the test).
    let (cases, stride) = if cfg!(miri) { (80, 3) } else { (4000, 1) };
    let mut evaluated = 0;
    for i in 0..cases {
        let n = rng.range(1, 120);
        let util = rng.range(0, 600);
        let target = rng.range(1, 200);
        if i % stride != 0 {
            continue;
        }
        evaluated += 1;
        let target32 = i32::try_from(target).unwrap();
        let pods = usize::try_from(n).unwrap();
        let k = utilization_proposal(
            Arithmetic::Kubernetes,
            pods,
            util,
            target32,
            DEFAULT_TOLERANCES,
        );
        let e = utilization_proposal(Arithmetic::Exact, pods, util, target32, DEFAULT_TOLERANCES);
        let case = format!("{n} pods at {util} % vs {target} %");
        assert_eq!(k, float_utilization_reference(n, util, target), "{case}");
        assert_eq!(e, exact_utilization_reference(n, util, target), "{case}");
        // 0.9 and 1.1 are exact in float64 terms (docs/spec/arithmetic.md#tolerance-bounds), so the
        // band never disagrees.
        let inside = 9 * target <= 10 * util && 10 * util <= 11 * target;
        if inside || (util * n) % target != 0 {
            assert_eq!(k, e, "{case}");
            agree += 1;
        } else {
            assert!(k == e || k == e + 1, "{case}: {k} vs {e}");
            differ += usize::from(k != e);
        }
    }
    assert!(agree > evaluated * 3 / 4);
    assert!(
        differ > 0,
        "the sample should contain some float64 overshoots"
    );
}

/// Object Value targets: `ceil(value / target * readyPods)` (docs/spec/calculator.md#object-value)
/// against both references, over random milli-values.
#[test]
fn randomized_object_value_modes_and_references() {
    let described = CrossVersionObjectReference {
        kind: "Service",
        name: "front",
        api_version: "v1",
    };
    let mut rng = Rng::new(0x0B1E_C700);
    // Miri interprets each case in seconds: 20 cases.
    for _ in 0..if cfg!(miri) { 20 } else { 4000 } {
        let n = rng.range(1, 60);
        let target = rng.range(1, 100_000);
        let value = rng.range(0, 10 * target);
        let metric = MetricSpec::object(
            described,
            MetricIdentifier::named("rps"),
            MetricTarget::value(Quantity::from_milli(target)),
        );
        let values = MetricValues::Object(value);
        let pods = usize::try_from(n).unwrap();
        let k = proposal(
            Arithmetic::Kubernetes,
            &metric,
            &values,
            pods,
            DEFAULT_TOLERANCES,
        );
        let e = proposal(
            Arithmetic::Exact,
            &metric,
            &values,
            pods,
            DEFAULT_TOLERANCES,
        );
        let ratio = value as f64 / target as f64;
        let float = if (1.0 - 0.1..=1.0 + 0.1).contains(&ratio) {
            n
        } else {
            (ratio * n as f64).ceil() as i64
        };
        let (v, t, m) = (i128::from(value), i128::from(target), i128::from(n));
        let exact = if 9 * t <= 10 * v && 10 * v <= 11 * t {
            m
        } else {
            (v * m + t - 1) / t
        };
        let case = format!("{value}m / {target}m x {n}");
        assert_eq!(i64::from(k), float, "{case}");
        assert_eq!(i128::from(e), exact, "{case}");
        if (v * m) % t != 0 {
            assert_eq!(k, e, "{case}");
        }
    }
}
