//! `Autoscaler::load_history` (upstream's history: recommendations in any order, the two
//! scale-event lists slot by slot) on arbitrary lists, then a few evaluations. Never panics,
//! and:
//!
//! * a load is refused exactly when `History::load` says: the first list (scale-up first) with
//!   a change that is not positive (`ChangeNotPositive`, its first such slot), or with an
//!   event that is not outdated older than an outdated one (`OutdatedNotOldest`); small rings
//!   and the reference refuse alike, and a refused load changes nothing;
//! * an accepted load: the recommendations' order does not matter (at distinct instants); the
//!   next evaluation may not be earlier than the newest loaded instant (`TimeWentBackwards`,
//!   nothing changed); and loaded into rings of 64 and 24 bytes, which fold, against a
//!   reference that never folds (`testkit::capacity`), each evaluation until the two counts
//!   part keeps docs/spec/history.md#capacity: without `history_overflowed` the decision is
//!   the reference's, with it the desired count lies between the current count and the
//!   reference's (and the reference then takes the small rings' status, whose conditions an
//!   overflowed decision may have set otherwise).
#![no_main]

use hpa::history::{Direction, LoadError, ScaleEvent};
use hpa::spec::{Behavior, PolicyType, ScalingPolicy, ScalingRules, SelectPolicy};
use hpa::{Autoscaler, EvaluateError, Hpa, Instant, MetricValues, Observation, Settings};
use hpa_fuzz::load_history::{Event, Input};
use libfuzzer_sys::fuzz_target;
use testkit::capacity::{self, summary, REFERENCE};
use testkit::invariants::state;

type Small = Autoscaler<64, 24>;
type Reference = Autoscaler<REFERENCE, REFERENCE>;

/// `minReplicas` of every spec.
const MIN_REPLICAS: i32 = 1;

/// The instant of the load (ms): the loaded entries are older.
const LOADED_AT: i64 = 100_000_000;

static PODS_UP: [ScalingPolicy; 1] = [ScalingPolicy {
    type_: PolicyType::Pods,
    value: 4,
    period_seconds: 60,
}];
static PERCENT_DOWN: [ScalingPolicy; 2] = [
    ScalingPolicy {
        type_: PolicyType::Percent,
        value: 10,
        period_seconds: 60,
    },
    ScalingPolicy {
        type_: PolicyType::Pods,
        value: 2,
        period_seconds: 120,
    },
];

fn behavior(choice: u8) -> Option<Behavior<'static>> {
    let direction_rules = |window, select, policies| {
        Some(ScalingRules {
            stabilization_window_seconds: Some(window),
            select_policy: Some(select),
            policies: Some(policies),
            tolerance: None,
        })
    };
    match choice % 4 {
        0 => None,
        // Upstream's defaults.
        1 => Some(Behavior {
            scale_up: None,
            scale_down: None,
        }),
        2 => Some(Behavior {
            scale_up: direction_rules(0, SelectPolicy::Max, &PODS_UP),
            scale_down: direction_rules(300, SelectPolicy::Min, &PERCENT_DOWN),
        }),
        _ => Some(Behavior {
            scale_up: direction_rules(120, SelectPolicy::Min, &PERCENT_DOWN),
            scale_down: direction_rules(0, SelectPolicy::Max, &PODS_UP),
        }),
    }
}

fn events(list: &[Option<Event>]) -> Vec<Option<ScaleEvent>> {
    list.iter()
        .take(32)
        .map(|e| {
            e.as_ref().map(|e| ScaleEvent {
                change: i32::from(e.change),
                at: Instant(LOADED_AT - 1000 * i64::from(e.age_s)),
                outdated: e.outdated,
            })
        })
        .collect()
}

/// What `History::load` documents it refuses.
fn expected(up: &[Option<ScaleEvent>], down: &[Option<ScaleEvent>]) -> Result<(), LoadError> {
    for (list, events) in [(Direction::Up, up), (Direction::Down, down)] {
        let present = || {
            events
                .iter()
                .enumerate()
                .filter_map(|(i, e)| Some((i, (*e)?)))
        };
        if let Some((slot, _)) = present().find(|(_, e)| e.change <= 0) {
            return Err(LoadError::ChangeNotPositive { list, slot });
        }
        let newest_outdated = present()
            .filter(|(_, e)| e.outdated)
            .map(|(_, e)| e.at.millis())
            .max();
        if let Some((slot, _)) = present()
            .find(|(_, e)| !e.outdated && newest_outdated.is_some_and(|o| e.at.millis() <= o))
        {
            return Err(LoadError::OutdatedNotOldest { list, slot });
        }
    }
    Ok(())
}

fn observe<T>(now: i64, replicas: i32, load: i64, f: impl FnOnce(&Observation<'_>) -> T) -> T {
    let values = [load];
    let metrics = [MetricValues::External(&values)];
    f(&Observation {
        now: Instant(now),
        replicas,
        status_replicas: replicas,
        pods: &[],
        metrics: &metrics,
    })
}

fuzz_target!(|input: Input| {
    let max = 1 + i32::from(input.max % 500);
    let spec = capacity::spec(MIN_REPLICAS, max, behavior(input.behavior));
    let settings = Settings::DEFAULT;
    let hpa = Hpa::new(&spec, &settings).expect("a valid spec");
    let recommendations: Vec<(i32, Instant)> = input
        .recommendations
        .iter()
        .take(64)
        .map(|&(r, age)| (i32::from(r), Instant(LOADED_AT - 1000 * i64::from(age))))
        .collect();
    let (up, down) = (events(&input.scale_up), events(&input.scale_down));

    // Both evaluated once before (older than anything loaded), so that a refused load has a
    // state to keep.
    let mut small = Small::new();
    let mut reference = Reference::new();
    let mut replicas = 2;
    let first = LOADED_AT - 70_000_000;
    observe(first, replicas, 5_000, |obs| {
        small.evaluate(&hpa, &settings, obs).expect("valid input");
        reference
            .evaluate(&hpa, &settings, obs)
            .expect("valid input");
    });
    let (small_before, reference_before) = (state(&small), state(&reference));

    let result = small.load_history(input.seeded, &recommendations, &up, &down);
    assert_eq!(result, expected(&up, &down));
    assert_eq!(
        reference.load_history(input.seeded, &recommendations, &up, &down),
        result
    );
    if result.is_err() {
        assert_eq!(
            state(&small),
            small_before,
            "a refused load changed the state"
        );
        assert_eq!(state(&reference), reference_before);
        return;
    }
    assert!(!reference.history().has_folded(), "the reference folded");

    let mut instants: Vec<i64> = recommendations.iter().map(|(_, at)| at.millis()).collect();
    instants.sort_unstable();
    if instants.windows(2).all(|w| w[0] != w[1]) {
        let reversed: Vec<(i32, Instant)> = recommendations.iter().rev().copied().collect();
        let mut other = Small::new();
        observe(first, 2, 5_000, |obs| {
            other.evaluate(&hpa, &settings, obs).expect("valid input");
        });
        other
            .load_history(input.seeded, &reversed, &up, &down)
            .expect("the same lists load");
        assert_eq!(state(&other), state(&small), "the order mattered");
    }

    let newest = recommendations
        .iter()
        .map(|&(_, at)| at)
        .chain(up.iter().chain(&down).flatten().map(|e| e.at))
        .map(Instant::millis)
        .max()
        .unwrap_or(first)
        .max(first);
    if newest > first {
        let loaded = state(&small);
        let refused = observe(newest - 1, replicas, 5_000, |obs| {
            small.evaluate(&hpa, &settings, obs).map(|_| ())
        });
        assert_eq!(
            refused,
            Err(EvaluateError::TimeWentBackwards {
                last: newest,
                now: newest - 1
            })
        );
        assert_eq!(state(&small), loaded);
    }

    let mut now = newest;
    for (i, step) in input.steps.iter().take(24).enumerate() {
        now += 1000 * i64::from(step.dt_s);
        if let Some(r) = step.replicas {
            replicas = i32::from(r);
        }
        let load = 1000 * i64::from(step.load);
        let (desired, rescale, same, overflowed) = observe(now, replicas, load, |obs| {
            let s = small.evaluate(&hpa, &settings, obs).expect("valid input");
            let r = reference
                .evaluate(&hpa, &settings, obs)
                .expect("valid input");
            let context = || {
                format!(
                    "step {i}, current {replicas}\n  small:     {}\n  reference: {}",
                    summary(&s),
                    summary(&r)
                )
            };
            assert!(!r.history_overflowed, "{}", context());
            if s.history_overflowed {
                let (lo, hi) = (
                    replicas.min(r.desired_replicas),
                    replicas.max(r.desired_replicas),
                );
                assert!((lo..=hi).contains(&s.desired_replicas), "{}", context());
            } else {
                assert_eq!(summary(&s), summary(&r), "{}", context());
            }
            let same = s.desired_replicas == r.desired_replicas && s.rescale == r.rescale;
            (s.desired_replicas, s.rescale, same, s.history_overflowed)
        });
        if !same {
            break;
        }
        // An overflowed decision with the reference's count may still set other conditions
        // (ScalingLimited), which later evaluations can keep (while the count is outside [min,
        // max]): the reference takes the small rings' status, as testkit::capacity's closed
        // loop aligns it, so that what is compared next is the history's effect alone.
        if small.status() != reference.status() {
            assert!(
                overflowed,
                "step {i}: the statuses part without an overflow"
            );
            reference.set_status(&small.status());
        }
        if step.succeeded {
            small.rescale_succeeded();
            reference.rescale_succeeded();
            if rescale {
                replicas = desired;
            }
        } else {
            small.rescale_failed();
            reference.rescale_failed();
        }
    }
});
