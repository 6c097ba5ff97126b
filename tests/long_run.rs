//! A year of evaluations at the 15 s sync period (2,102,400) with the default history rings,
//! against a reference that never folds (`testkit::capacity::closed_loop`, which asserts
//! "conservative when full" at every step, docs/spec/history.md#capacity): no panic, every
//! desired count within `[minReplicas, maxReplicas]`, memory that does not grow with the run,
//! and the overflow reported when peaks beyond `GUARANTEED_REPLICAS` fill the rings.
//!
//! The load is a daily cycle with noise, and twice a week a two-hour burst of random loads and
//! manual scales between 9,000 and 16,000 replicas (beyond the 8,191 the default rings
//! guarantee), where the rings fold and some decisions are shaped by the folded summaries. CI runs 30 days (172,800 evaluations); the full year:
//! `HPA_LONG_RUN_EVALUATIONS=2102400 cargo test -p hpa --profile quick --test long_run -- --nocapture`
//! (docs/testing.md gives its figures). Debug builds run 2 days and Miri 10 minutes.

use std::time::Instant as Clock;

use hpa::history::GUARANTEED_REPLICAS;
use hpa::spec::{Behavior, PolicyType, ScalingPolicy, ScalingRules, SelectPolicy};
use hpa::{Autoscaler, Hpa, Settings};
use testkit::capacity::{self, closed_loop, Outcome, StepInput};
use testkit::Rng;

const PERIOD_MS: i64 = 15_000;
const DAY: i64 = 24 * 3600 * 1000 / PERIOD_MS;
const MIN: i32 = 2;
const MAX: i32 = 16_000;

/// Evaluations to run: `HPA_LONG_RUN_EVALUATIONS`, else 30 days (2 in debug builds, 10 minutes
/// under Miri, which interprets each evaluation).
fn evaluations() -> usize {
    let default = if cfg!(miri) {
        40
    } else if cfg!(debug_assertions) {
        2 * DAY as usize
    } else {
        30 * DAY as usize
    };
    std::env::var("HPA_LONG_RUN_EVALUATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The process's peak resident memory in KiB (Linux), or `None`.
fn peak_rss_kib() -> Option<u64> {
    if cfg!(miri) {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

static UP: [ScalingPolicy; 2] = [
    ScalingPolicy {
        type_: PolicyType::Percent,
        value: 100,
        period_seconds: 15,
    },
    ScalingPolicy {
        type_: PolicyType::Pods,
        value: 4,
        period_seconds: 15,
    },
];
static DOWN: [ScalingPolicy; 1] = [ScalingPolicy {
    type_: PolicyType::Percent,
    value: 10,
    period_seconds: 60,
}];

#[test]
fn a_year_at_15_s_stays_bounded_and_reports_its_overflows() {
    let behavior = Behavior {
        scale_up: Some(ScalingRules {
            stabilization_window_seconds: Some(0),
            select_policy: Some(SelectPolicy::Max),
            policies: Some(&UP),
            tolerance: None,
        }),
        scale_down: Some(ScalingRules {
            // The longest window: entries folded during a burst are still inside it.
            stabilization_window_seconds: Some(3600),
            select_policy: Some(SelectPolicy::Max),
            policies: Some(&DOWN),
            tolerance: None,
        }),
    };
    let spec = capacity::spec(MIN, MAX, Some(behavior));
    let settings = Settings::DEFAULT;
    let hpa = Hpa::new(&spec, &settings).expect("valid spec");
    let steps = evaluations();
    let mut rng = Rng::new(0x1EA5_0365);
    let started = Clock::now();
    let mut early_rss = None;
    let stats = closed_loop::<
        { hpa::history::DEFAULT_RECOMMENDATION_BYTES },
        { hpa::history::DEFAULT_EVENT_BYTES },
    >(&hpa, &settings, "year", MIN, steps, |step| {
        let step = step as i64;
        if step == DAY {
            early_rss = peak_rss_kib();
        }
        // A daily cycle between about 200 and 3,200 replicas' worth, noise of 5 %, and every
        // 3.5 days from the second hour a two-hour burst between 9,000 and 15,000.
        let phase = (step % DAY) as f64 / DAY as f64;
        let daily = 200.0 + 3_000.0 * (1.0 - (phase * std::f64::consts::TAU).cos()) / 2.0;
        let since_burst = (step - 480) % (7 * DAY / 2);
        let burst = (0..480).contains(&since_burst);
        let replicas = if burst {
            rng.range(9_000, 15_000) as f64
        } else {
            daily
        };
        let noise = 1.0 + (rng.range(-50, 50) as f64) / 1000.0;
        StepInput {
            now: step * PERIOD_MS,
            load: (replicas * noise * 1000.0) as i64,
            // During a burst someone else also sets the count now and then (a manual scale).
            set_replicas: (burst && rng.chance(50)).then(|| rng.range32(9_000, MAX)),
            outcome: match rng.below(200) {
                0 | 1 => Outcome::Failed,
                2 => Outcome::Unreported,
                _ => Outcome::Succeeded,
            },
        }
    });
    let elapsed = started.elapsed();
    let (lo, hi) = stats.desired_range.expect("some decision");
    println!(
        "{steps} evaluations ({:.1} days) in {:.2} s: {} overflowed, {} held back, desired \
         {lo}..={hi}, ring bytes at most {} and {}, peak RSS {:?} KiB after a day, {:?} KiB at \
         the end; {} bytes of autoscaler",
        steps as f64 / DAY as f64,
        elapsed.as_secs_f64(),
        stats.overflowed,
        stats.held_back,
        stats.peak_recommendation_bytes,
        stats.peak_event_bytes,
        early_rss,
        peak_rss_kib(),
        std::mem::size_of::<Autoscaler>(),
    );
    assert_eq!(stats.steps, steps);
    assert!(MIN <= lo && hi <= MAX, "desired {lo}..={hi}");
    if steps as i64 >= 960 {
        // The first burst (from the second hour) goes beyond the guaranteed counts: the rings
        // fold.
        const _: () = assert!(GUARANTEED_REPLICAS < 9_000);
        assert!(stats.folded, "{stats:?}");
        assert!(stats.overflowed < stats.steps, "{stats:?}");
    }
    if steps as i64 >= 30 * DAY {
        // Over a month of bursts some decisions are shaped by the folded summaries, and say so
        // (`closed_loop` checked each against the reference).
        assert!(stats.overflowed > 0, "{stats:?}");
    }
    if let (Some(early), Some(end)) = (early_rss, peak_rss_kib()) {
        // The autoscaler is fixed-size: after the first day the process's peak stays put (a
        // little room for the test harness's own output).
        assert!(
            end <= early + 1024,
            "peak RSS grew from {early} KiB to {end} KiB"
        );
    }
}
