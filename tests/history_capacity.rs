//! History capacity (docs/architecture.md, "History capacity"): the recommendation and
//! scale-event rings are fixed-size. While the capacity suffices, decisions equal upstream's
//! unbounded lists; when it does not, the engine folds the oldest entries into a conservative
//! summary and says so in `Decision::history_overflowed`.
//!
//! The randomized runs drive a small autoscaler and a reference that never folds through one
//! closed loop, `testkit::capacity::closed_loop`, which asserts at every step:
//! (a) `history_overflowed == false` => the small decision equals the reference's (desired
//!     replicas, rescale, reason, proposal, stabilized value, limit, conditions);
//! (b) `history_overflowed == true` => the small desired count lies between the current count
//!     and the reference's desired count, inclusive: it never moves further, nor the other way;
//! and the reference never reports an overflow (its module docs say why the small one drives).

use hpa::history::{DEFAULT_EVENT_BYTES, DEFAULT_RECOMMENDATION_BYTES, GUARANTEED_REPLICAS};
use hpa::spec::{Behavior, PolicyType, ScalingPolicy, ScalingRules, SelectPolicy};
use hpa::{Autoscaler, Duration, Hpa, HpaSpec, Instant, MetricValues, Observation, Settings};
use testkit::capacity::{self, closed_loop, summary, Outcome, Stats, StepInput, REFERENCE};
use testkit::Rng;

const MIN: i32 = 1;
const MAX: i32 = 40;

fn spec(behavior: Option<Behavior<'static>>) -> HpaSpec<'static> {
    spec_up_to(behavior, MAX)
}

fn spec_up_to(behavior: Option<Behavior<'static>>, max_replicas: i32) -> HpaSpec<'static> {
    capacity::spec(MIN, max_replicas, behavior)
}

const fn policy(type_: PolicyType, value: i32, period_seconds: i32) -> ScalingPolicy {
    ScalingPolicy {
        type_,
        value,
        period_seconds,
    }
}

static UP_MAX: [ScalingPolicy; 2] = [
    policy(PolicyType::Pods, 4, 300),
    policy(PolicyType::Percent, 50, 300),
];
static DOWN_MAX: [ScalingPolicy; 2] = [
    policy(PolicyType::Pods, 3, 300),
    policy(PolicyType::Percent, 20, 300),
];
static UP_MIN: [ScalingPolicy; 2] = [
    policy(PolicyType::Percent, 100, 60),
    policy(PolicyType::Pods, 6, 600),
];
static DOWN_MIN: [ScalingPolicy; 2] = [
    policy(PolicyType::Percent, 50, 120),
    policy(PolicyType::Pods, 5, 900),
];
static LONG: [ScalingPolicy; 2] = [
    policy(PolicyType::Pods, 5, 1800),
    policy(PolicyType::Percent, 30, 1800),
];

fn rules(
    window: Option<i32>,
    select: SelectPolicy,
    policies: &'static [ScalingPolicy],
) -> Option<ScalingRules<'static>> {
    Some(ScalingRules {
        stabilization_window_seconds: window,
        select_policy: Some(select),
        policies: Some(policies),
        tolerance: None,
    })
}

/// The behaviors the randomized runs use: windows and periods far longer than what 20 bytes of
/// recommendations / 10 bytes of scale events (about 8 and 4 entries at a 15 s period) hold.
fn behaviors() -> Vec<(&'static str, Behavior<'static>)> {
    vec![
        (
            "up 120 s / down 600 s, Max of Pods and Percent per 300 s",
            Behavior {
                scale_up: rules(Some(120), SelectPolicy::Max, &UP_MAX),
                scale_down: rules(Some(600), SelectPolicy::Max, &DOWN_MAX),
            },
        ),
        (
            "up 0 s / down default (300 s), Min of policies with 60-900 s periods",
            Behavior {
                scale_up: rules(None, SelectPolicy::Min, &UP_MIN),
                scale_down: rules(None, SelectPolicy::Min, &DOWN_MIN),
            },
        ),
        (
            "up 900 s / down 3600 s, 1800 s periods",
            Behavior {
                scale_up: rules(Some(900), SelectPolicy::Max, &LONG),
                scale_down: rules(Some(3600), SelectPolicy::Max, &LONG),
            },
        ),
        (
            "windows 0, 1800 s periods (policies only)",
            Behavior {
                scale_up: rules(Some(0), SelectPolicy::Max, &LONG),
                scale_down: rules(Some(0), SelectPolicy::Min, &LONG),
            },
        ),
    ]
}

/// Drives a small autoscaler and the reference through one random sequence.
fn drive<const R: usize, const E: usize>(
    behavior: Option<Behavior<'static>>,
    settings: &Settings,
    seed: u64,
    steps: usize,
) -> Stats {
    let spec = spec(behavior);
    let hpa = Hpa::new(&spec, settings).expect("valid spec");
    let mut rng = Rng::new(seed);
    let mut now: i64 = rng.range(-1_000_000, 1_000_000);
    let mut load: i64 = 5_000;
    closed_loop::<R, E>(&hpa, settings, &format!("seed {seed:#x}"), 5, steps, |_| {
        // Time: mostly the 15 s sync period, sometimes irregular, rarely a long pause.
        now += match rng.next_u64() % 20 {
            0 => rng.range(601, 2_000) * 1000,
            1..=4 => rng.range(1_000, 40_000),
            _ => 15_000,
        };
        // Load: a random walk with jumps; the proposal is ceil(load / 1000) outside the band.
        load = if rng.chance(12) {
            rng.range(0, 45_000)
        } else {
            (load + rng.range(-4_000, 4_000)).clamp(0, 45_000)
        };
        // Someone else changes the replica count now and then (no scale event).
        let set_replicas = rng.chance(4).then(|| rng.range32(MIN, MAX));
        let outcome = match rng.next_u64() % 20 {
            0 => Outcome::Failed,
            1 => Outcome::Unreported,
            _ => Outcome::Succeeded,
        };
        StepInput {
            now,
            load,
            set_replicas,
            outcome,
        }
    })
}

const SEEDS: [u64; 4] = [
    0x5EED_0001,
    0x5EED_0002,
    0xDEAD_BEEF_CAFE_F00D,
    0x0123_4567_89AB_CDEF,
];

/// The random runs' seeds: under Miri, which interprets each evaluation thousands of times
/// slower, the first one only.
fn seeds() -> &'static [u64] {
    if cfg!(miri) {
        &SEEDS[..1]
    } else {
        &SEEDS
    }
}

/// A random run's steps: a twentieth under Miri.
fn steps(full: usize) -> usize {
    if cfg!(miri) {
        full / 20
    } else {
        full
    }
}

/// A legacy run's steps under Miri: one and a half 300 s windows at 15 s. A folded
/// recommendation shapes a legacy decision only once the window's start has moved past the
/// fold, so a run shorter than the window (a twentieth of 200 steps is 10) folds without ever
/// overflowing, and the test would prove nothing.
fn legacy_steps(full: usize) -> usize {
    if cfg!(miri) {
        30
    } else {
        full
    }
}

#[test]
fn small_rings_with_behavior_equal_upstream_or_hold_back() {
    let settings = Settings::DEFAULT;
    for (name, behavior) in behaviors() {
        let mut total = Stats::default();
        for &seed in seeds() {
            for stats in [
                drive::<20, 10>(Some(behavior), &settings, seed, steps(300)),
                drive::<8, 5>(Some(behavior), &settings, seed ^ 0xA5A5, steps(200)),
                drive::<60, 30>(Some(behavior), &settings, seed ^ 0x5A5A, steps(200)),
            ] {
                total.steps += stats.steps;
                total.overflowed += stats.overflowed;
                total.held_back += stats.held_back;
            }
        }
        println!("{name}: {total:?}");
        // The runs must exercise both sides of the contract.
        assert!(total.overflowed > 0, "{name}: no overflow exercised");
        assert!(
            total.overflowed < total.steps,
            "{name}: nothing but overflow"
        );
    }
}

#[test]
fn small_rings_on_the_legacy_path_equal_upstream_or_hold_back() {
    // No behavior: the 300 s downscale window (controller flag), the 2x/+4 scale-up limit,
    // no scale events. 20 bytes of recommendations at 15 s cover about 120 s of the window.
    let settings = Settings::DEFAULT;
    let mut total = Stats::default();
    for &seed in seeds() {
        for stats in [
            drive::<20, 10>(None, &settings, seed, legacy_steps(400)),
            drive::<5, 3>(None, &settings, seed ^ 0x77, legacy_steps(200)),
        ] {
            total.steps += stats.steps;
            total.overflowed += stats.overflowed;
            total.held_back += stats.held_back;
        }
    }
    // A longer legacy window than the retention of the default rings (3600 s).
    let long = Settings {
        downscale_stabilization_window: Duration::from_secs(5400),
        ..Settings::DEFAULT
    };
    for &seed in seeds() {
        let stats = drive::<40, 10>(None, &long, seed, steps(300));
        total.steps += stats.steps;
        total.overflowed += stats.overflowed;
        total.held_back += stats.held_back;
    }
    println!("legacy: {total:?}");
    assert!(total.overflowed > 0, "no overflow exercised");
    assert!(total.overflowed < total.steps, "nothing but overflow");
}

#[test]
#[cfg(feature = "exact")]
fn exact_arithmetic_mode_keeps_the_contract() {
    let settings = Settings {
        arithmetic: hpa::Arithmetic::Exact,
        ..Settings::DEFAULT
    };
    let (_, behavior) = behaviors()[0];
    for &seed in seeds() {
        drive::<20, 10>(Some(behavior), &settings, seed, steps(200));
        drive::<20, 10>(None, &settings, seed, steps(200));
    }
}

/// Runs the default-capacity autoscaler and the reference on the same closed loop (the
/// default one's decisions applied) at an exact 15 s period; returns the number of rescales
/// and the number of overflowed decisions of a third, deliberately too small autoscaler on
/// the same inputs (it only shows that the run does fill the rings).
fn default_capacity_run<const R: usize, const E: usize>(
    behavior: Behavior<'static>,
    steps: usize,
    load_at: impl Fn(usize, &mut Rng) -> i64,
) -> (usize, usize) {
    let settings = Settings::DEFAULT;
    let spec = spec(Some(behavior));
    let hpa = Hpa::new(&spec, &settings).expect("valid spec");
    let mut default: Autoscaler = Autoscaler::new();
    let mut reference: Autoscaler<REFERENCE, REFERENCE> = Autoscaler::new();
    let mut too_small: Autoscaler<R, E> = Autoscaler::new();
    let mut rng = Rng::new(0xC0FF_EE00);
    let mut replicas = 10;
    let mut rescales = 0;
    let mut too_small_overflows = 0;
    for step in 0..steps {
        let now = 15_000 * i64::try_from(step).unwrap();
        let values = [load_at(step, &mut rng)];
        let metrics = [MetricValues::External(&values)];
        let obs = Observation {
            now: Instant(now),
            replicas,
            status_replicas: replicas,
            pods: &[],
            metrics: &metrics,
        };
        let d = default.evaluate(&hpa, &settings, &obs).unwrap();
        let r = reference.evaluate(&hpa, &settings, &obs).unwrap();
        assert!(
            !d.history_overflowed,
            "step {step}: the default capacities must hold this history"
        );
        assert!(!default.history().has_folded(), "step {step}");
        assert_eq!(summary(&d), summary(&r), "step {step}");
        let t = too_small.evaluate(&hpa, &settings, &obs).unwrap();
        too_small_overflows += usize::from(t.history_overflowed);
        if d.rescale {
            rescales += 1;
            replicas = d.desired_replicas;
            default.rescale_succeeded();
            reference.rescale_succeeded();
        }
        if t.rescale {
            // The too-small one sees the same observations and is only a sensor that the run
            // fills the rings (its recorded changes need not be the applied ones).
            too_small.rescale_succeeded();
        }
    }
    (rescales, too_small_overflows)
}

/// (c) The default capacities hold a 3600 s window at 15 s: an hour and a half of random
/// load, both windows at the API maximum, never reports an overflow and equals upstream.
/// (Under Miri, which interprets each evaluation thousands of times slower, windows of 300 s
/// and a too-small ring to match: the same run, an eighth as long.)
#[test]
fn default_capacities_hold_a_3600_s_window_at_15_s() {
    static P: [ScalingPolicy; 1] = [policy(PolicyType::Percent, 100, 15)];
    const WINDOW: i32 = if cfg!(miri) { 300 } else { 3600 };
    const TOO_SMALL: usize = if cfg!(miri) { 50 } else { 400 };
    let behavior = Behavior {
        scale_up: rules(Some(WINDOW), SelectPolicy::Max, &P),
        scale_down: rules(Some(WINDOW), SelectPolicy::Max, &P),
    };
    let steps = WINDOW as usize / 15 * 3 / 2 + 1;
    // A noisy triangle: rising for 45 minutes, then falling, so that the oldest entries of
    // the windows are the ones that matter.
    let mid = i64::try_from(steps / 2).unwrap();
    let (_, too_small) = default_capacity_run::<TOO_SMALL, 512>(behavior, steps, |step, rng| {
        let distance = (i64::try_from(step).unwrap() - mid).abs();
        (40_000 * (mid - distance) / mid + rng.range(-3_000, 3_000)).max(0)
    });
    assert!(
        too_small > 0,
        "{TOO_SMALL} bytes of recommendations must not suffice, or the run proves nothing"
    );
}

/// (c) `DEFAULT_EVENT_BYTES` holds 1800 s of scale events at one per 15 s: a sequence that
/// rescales at every step for more than 1800 s against 1800 s policy periods. (Under Miri,
/// which interprets each evaluation thousands of times slower, periods of 300 s and a
/// too-small ring to match: the same run, a sixth as long.)
#[test]
fn default_capacities_hold_1800_s_of_scale_events_at_15_s() {
    const PERIOD: i32 = if cfg!(miri) { 300 } else { 1800 };
    const TOO_SMALL: usize = if cfg!(miri) { 40 } else { 200 };
    static UP: [ScalingPolicy; 2] = [
        policy(PolicyType::Pods, 12, PERIOD),
        policy(PolicyType::Percent, 20, PERIOD),
    ];
    static DOWN: [ScalingPolicy; 1] = [policy(PolicyType::Pods, 12, PERIOD)];
    let behavior = Behavior {
        scale_up: rules(Some(0), SelectPolicy::Max, &UP),
        scale_down: rules(Some(0), SelectPolicy::Max, &DOWN),
    };
    // The load alternates between 3 and 30 replicas' worth: every step is a rescale, and the
    // period budgets (which count every event of the last 1800 s) shape each one.
    let steps = PERIOD as usize / 15 * 2;
    let (rescales, too_small) =
        default_capacity_run::<1024, TOO_SMALL>(behavior, steps, |step, _| {
            if step % 2 == 0 {
                30_000
            } else {
                3_000
            }
        });
    assert_eq!(rescales, steps, "the sequence must rescale at every step");
    assert!(
        too_small > 0,
        "{TOO_SMALL} bytes of scale events must not suffice, or the run proves nothing"
    );
}

/// The evaluation timing that fills the rings most while evaluations are at least 15 s apart
/// (`hpa::history`, "Capacity guarantee"): every 15 s. A gap costs at least two bytes, and
/// the shortest gap of three bytes is 23.192 s: longer gaps cost more time than they save.
const ADVERSARIAL_GAP: i64 = 15_000;

/// Worst-case bytes of the module docs: 967 of recommendations (the seed, the first
/// recommendation at the same instant with a three-byte zero gap, 240 gaps of two bytes,
/// values of two bytes) and 603 of scale events (121 events, 120 gaps, each event with its
/// one-byte list slot).
const WORST_RECOMMENDATION_BYTES: usize = 2 + (3 + 2) + 240 * (2 + 2);
const WORST_EVENT_BYTES: usize = (2 + 1) + 120 * (2 + 2 + 1);

/// A closed loop at the adversarial timing under `behavior`, with replica counts from `low`
/// up to `high` (`maxReplicas`): `input(step)` gives the load in replicas and the replica count
/// someone else sets.
fn adversarial_run<const R: usize, const E: usize>(
    behavior: Behavior<'static>,
    (low, high): (i32, i32),
    steps: usize,
    mut input: impl FnMut(usize) -> (i64, Option<i32>),
) -> Stats {
    let spec = spec_up_to(Some(behavior), high);
    let settings = Settings::DEFAULT;
    let hpa = Hpa::new(&spec, &settings).expect("valid spec");
    let label = format!("rings of {R}/{E} bytes, replicas {low}..={high}");
    let mut now = -77_000;
    closed_loop::<R, E>(&hpa, &settings, &label, low, steps, |step| {
        if step > 0 {
            now += ADVERSARIAL_GAP;
        }
        let (load, set_replicas) = input(step);
        StepInput {
            now,
            load: load * 1000,
            set_replicas,
            outcome: Outcome::Succeeded,
        }
    })
}

/// Rescales at every step between replica counts of at least `low` and at most `high`, at
/// the adversarial timing: the load alternates between `high` and `low` replicas' worth, the
/// windows are 0 and the 1800 s Percent policies bind or not depending on the oldest events
/// of their period (scale-up to 101 times the period-start count, scale-down by 100 %).
fn worst_case_loop<const R: usize, const E: usize>(low: i32, high: i32, steps: usize) -> Stats {
    static UP: [ScalingPolicy; 1] = [policy(PolicyType::Percent, 10_000, 1800)];
    static DOWN: [ScalingPolicy; 1] = [policy(PolicyType::Percent, 100, 1800)];
    let behavior = Behavior {
        scale_up: rules(Some(0), SelectPolicy::Max, &UP),
        scale_down: rules(Some(0), SelectPolicy::Max, &DOWN),
    };
    adversarial_run::<R, E>(behavior, (low, high), steps, |step| {
        let replicas = if step % 2 == 0 { high } else { low };
        (i64::from(replicas), None)
    })
}

/// Both windows at 3600 s at the adversarial timing: the replica count is set by someone else
/// at every step and the load is random, both between `low` and `high`, so that each decision
/// clamps the current count into the lowest and highest recommendation of the whole window.
fn worst_case_windows<const R: usize, const E: usize>(low: i32, high: i32, steps: usize) -> Stats {
    static P: [ScalingPolicy; 1] = [policy(PolicyType::Percent, 10_000, 15)];
    let behavior = Behavior {
        scale_up: rules(Some(3600), SelectPolicy::Max, &P),
        scale_down: rules(Some(3600), SelectPolicy::Max, &P),
    };
    let mut rng = Rng::new(0x3600_0015);
    let (lo, hi) = (i64::from(low), i64::from(high));
    adversarial_run::<R, E>(behavior, (low, high), steps, |_| {
        let load = rng.range(lo, hi);
        (load, Some(i32::try_from(rng.range(lo, hi)).unwrap()))
    })
}

/// The capacity guarantee at its bound: at the adversarial timing, with replica counts (and
/// so changes) of two-byte codes up to `GUARANTEED_REPLICAS`, the default rings reach exactly
/// the documented worst case, never fold, and every decision equals upstream's; so do rings
/// of exactly the worst-case size.
// Not under Miri: the worst case is the hour of retention full, 241 evaluations a run at
// least, and Miri interprets each (with the reference's) in a fraction of a second: the four
// runs here and the three below would take half an hour. The folds, the overflows and the
// default rings run under Miri in the shrunk tests above (docs/testing.md#miri).
#[test]
#[cfg_attr(
    miri,
    ignore = "cannot shrink below the hour of retention: 241 steps a run"
)]
fn the_default_capacities_hold_the_worst_case() {
    const _: () = assert!(WORST_RECOMMENDATION_BYTES == 967 && WORST_EVENT_BYTES == 603);
    const _: () = assert!(WORST_RECOMMENDATION_BYTES <= DEFAULT_RECOMMENDATION_BYTES);
    const _: () = assert!(WORST_EVENT_BYTES <= DEFAULT_EVENT_BYTES);
    // Two and a half hours: the windows fill, slide, and the seed leaves.
    let steps = 600;
    // 64 is the smallest count whose zigzag code takes two bytes.
    let (low, high) = (64, GUARANTEED_REPLICAS);
    let loops = [
        worst_case_loop::<DEFAULT_RECOMMENDATION_BYTES, DEFAULT_EVENT_BYTES>(low, high, steps),
        worst_case_loop::<WORST_RECOMMENDATION_BYTES, WORST_EVENT_BYTES>(low, high, steps),
    ];
    let windows = [
        worst_case_windows::<DEFAULT_RECOMMENDATION_BYTES, DEFAULT_EVENT_BYTES>(low, high, steps),
        worst_case_windows::<WORST_RECOMMENDATION_BYTES, WORST_EVENT_BYTES>(low, high, steps),
    ];
    for stats in loops.iter().chain(&windows) {
        assert_eq!(stats.overflowed, 0, "{stats:?}");
        assert!(!stats.folded, "{stats:?}");
        assert_eq!(
            stats.peak_recommendation_bytes, WORST_RECOMMENDATION_BYTES,
            "the run must reach the worst case: {stats:?}"
        );
    }
    for stats in &loops {
        assert_eq!(stats.peak_event_bytes, WORST_EVENT_BYTES, "{stats:?}");
    }
}

/// Just beyond the bound: rings one byte smaller than the worst case fold (here only the
/// oldest entry at the peak, which no later evaluation looks at: the decisions stay exact, as
/// `closed_loop` checks at every step), and replica counts above `GUARANTEED_REPLICAS`
/// (three-byte codes) overflow the default rings, which then report the decisions the folded
/// entries shaped, every one between the current count and upstream's.
#[test]
#[cfg_attr(
    miri,
    ignore = "cannot shrink below the hour of retention: 241 steps a run"
)]
fn beyond_the_worst_case_the_rings_fold_and_report() {
    let steps = 600;
    let tight = worst_case_loop::<{ WORST_RECOMMENDATION_BYTES - 1 }, { WORST_EVENT_BYTES - 1 }>(
        64,
        GUARANTEED_REPLICAS,
        steps,
    );
    assert!(tight.folded, "{tight:?}");

    let beyond = GUARANTEED_REPLICAS + 1;
    let big = worst_case_loop::<DEFAULT_RECOMMENDATION_BYTES, DEFAULT_EVENT_BYTES>(
        beyond,
        4 * beyond,
        steps,
    );
    assert!(big.folded && big.overflowed > 0, "{big:?}");
    let windows = worst_case_windows::<DEFAULT_RECOMMENDATION_BYTES, DEFAULT_EVENT_BYTES>(
        beyond,
        4 * beyond,
        steps,
    );
    assert!(windows.folded && windows.overflowed > 0, "{windows:?}");
    println!("one byte less: {tight:?}\nbeyond: {big:?}\nwindows beyond: {windows:?}");
}

/// One evaluation of `autoscaler` at `now_s` seconds with the given replica count and a load
/// of `proposal` replicas' worth (the External AverageValue target is 1).
fn step<'a, const R: usize, const E: usize>(
    autoscaler: &mut Autoscaler<R, E>,
    hpa: &Hpa<'a>,
    now_s: i64,
    replicas: i32,
    proposal: i64,
) -> (i32, bool) {
    let values = [proposal * 1000];
    let metrics = [MetricValues::External(&values)];
    let obs = Observation {
        now: Instant(now_s * 1000),
        replicas,
        status_replicas: replicas,
        pods: &[],
        metrics: &metrics,
    };
    let settings = Settings::DEFAULT;
    let d = autoscaler.evaluate(hpa, &settings, &obs).unwrap();
    if d.rescale {
        autoscaler.rescale_succeeded();
    }
    (d.desired_replicas, d.history_overflowed)
}

/// Scale-down events folded out of a one-event ring must not silently shrink a later
/// scale-up budget. Upstream (docs/spec/normalization.md#scale-up-limit): 10 -> 8 at 0 s, 8 -> 6 at
/// 15 s, then at 30 s with a proposal of 20 and a "Pods 2 per 300 s" policy the period-start count
/// is `6 - 0 + (2 + 2) = 10`, so the limit is 12. If the engine gives less, the decision was shaped
/// by the fold and must say so. (The second step is reported too: once an event is folded, its list
/// slot is unknown, so every policy limit says the history overflowed.)
#[test]
fn folded_scale_downs_shaping_a_scale_up_are_reported() {
    static UP: [ScalingPolicy; 1] = [policy(PolicyType::Pods, 2, 300)];
    static DOWN: [ScalingPolicy; 1] = [policy(PolicyType::Pods, 100, 15)];
    let spec = spec(Some(Behavior {
        scale_up: rules(Some(0), SelectPolicy::Max, &UP),
        scale_down: rules(Some(0), SelectPolicy::Max, &DOWN),
    }));
    let hpa = Hpa::new(&spec, &Settings::DEFAULT).unwrap();
    let mut small: Autoscaler<8, 1> = Autoscaler::new();
    assert_eq!(step(&mut small, &hpa, 0, 10, 8), (8, false));
    assert_eq!(step(&mut small, &hpa, 15, 8, 6), (6, true));
    let (desired, overflowed) = step(&mut small, &hpa, 30, 6, 20);
    assert!(
        desired == 12 || overflowed,
        "desired {desired} (upstream: 12) without history_overflowed"
    );
    assert!((6..=12).contains(&desired));
}

/// Legacy path, two recommendations: a stale high recommendation folded into the summary must
/// not scale the target up. Upstream (docs/spec/normalization.md#legacy): 10 replicas and a
/// proposal of 30 at 0 s give 20 (the 2x limit); at 400 s, 415 s and 430 s the proposal is 3 and
/// the 300 s window holds only proposals of 3, so upstream goes to 3 and stays there.
#[test]
fn a_folded_legacy_recommendation_never_scales_up() {
    let spec = spec(None);
    let hpa = Hpa::new(&spec, &Settings::DEFAULT).unwrap();
    let mut small: Autoscaler<2, 1> = Autoscaler::new();
    assert_eq!(step(&mut small, &hpa, 0, 10, 30).0, 20);
    assert_eq!(step(&mut small, &hpa, 400, 20, 3).0, 3);
    let mut replicas = 3;
    for now in [415, 430, 445, 460] {
        let (desired, _) = step(&mut small, &hpa, now, replicas, 3);
        assert!(
            desired <= replicas,
            "at {now} s: {replicas} -> {desired} although upstream stays at 3"
        );
        replicas = desired;
    }
}

/// A folded value stays visible at most one generation span (retention / 15, 240 s at the
/// default retention) longer than upstream's, even while the ring overflows on every
/// evaluation. Here one spike to 30 is followed by two hours of a constant load of 5:
/// upstream (docs/spec/normalization.md#behavior-stabilization, 300 s window) is back at 5 after
/// about 5 minutes; a ring of 8 recommendations at 15 s gets there too, at most one span later.
#[test]
fn a_folded_spike_expires_after_continuous_overflow() {
    static P: [ScalingPolicy; 1] = [policy(PolicyType::Percent, 100, 15)];
    let spec = spec(Some(Behavior {
        scale_up: rules(Some(0), SelectPolicy::Max, &P),
        scale_down: rules(Some(300), SelectPolicy::Max, &P),
    }));
    let hpa = Hpa::new(&spec, &Settings::DEFAULT).unwrap();
    let mut small: Autoscaler<8, 4> = Autoscaler::new();
    let mut reference: Autoscaler<REFERENCE, REFERENCE> = Autoscaler::new();
    let (mut s, mut r) = (10, 10);
    // Under Miri, which interprets each evaluation thousands of times slower, 20 minutes: the
    // window and one span more are 9.
    for i in 0..if cfg!(miri) { 80 } else { 480 } {
        let proposal = if i == 0 { 30 } else { 5 };
        s = step(&mut small, &hpa, i * 15, s, proposal).0;
        r = step(&mut reference, &hpa, i * 15, r, proposal).0;
    }
    assert_eq!(r, 5, "upstream is back at the load's count");
    assert_eq!(s, r, "the small ring still holds the spike after two hours");
}
