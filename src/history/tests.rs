//! The history as a whole: the capacity guarantee and the windows against a list model.

extern crate std;
use std::vec::Vec;

use super::codec::{gap_code, gap_len, varint_len, PERIOD_MS};
use super::summary::Summary;
use super::*;
use testkit::Rng;

/// The most bytes a ring can hold for a closed window of `window` ms at gaps of at least
/// 15 s, with `value_bytes` per value (the oldest entry has no gap): exhaustive over how
/// many gaps take each code length, each at the shortest gap of that length (a longer one
/// only uses up time). Two-byte gaps, the cheapest in time, fill what is left.
fn worst_case(window: u64, value_bytes: usize) -> usize {
    // Under Miri, which interprets each gap's code in milliseconds (the shortest four-byte
    // gap is 2^21 ms), in strides of 16,384 ms, then of 128 ms through the last stride, then
    // of 1 ms: from the period up the codes, and so their lengths, only grow with the gap.
    let strides: &[u64] = if cfg!(miri) { &[16_384, 128, 1] } else { &[1] };
    let shortest = |len: usize| {
        let mut first = PERIOD_MS;
        for &stride in strides {
            let past = (first..)
                .step_by(usize::try_from(stride).unwrap())
                .find(|&g| gap_len(gap_code(g)) >= len)
                .unwrap();
            first = past.saturating_sub(stride - 1).max(first);
        }
        assert_eq!(gap_len(gap_code(first)), len);
        first
    };
    let (s2, s3, s4) = (shortest(2), shortest(3), shortest(4));
    assert_eq!(s2, PERIOD_MS);
    assert!(
        s4 > window / 2 && 1 << 28 > window,
        "no other lengths matter"
    );
    let mut best = 0;
    for n4 in 0..=window / s4 {
        let left = window - n4 * s4;
        for n3 in 0..=left / s3 {
            let n2 = (left - n3 * s3) / s2;
            let bytes = value_bytes
                + [(n2, 2), (n3, 3), (n4, 4)]
                    .iter()
                    .map(|&(n, len)| usize::try_from(n).unwrap() * (len + value_bytes))
                    .sum::<usize>();
            best = best.max(bytes);
        }
    }
    best
}

/// The capacity guarantee of the module docs, computed: with two-byte values the worst
/// case is 962 + 5 (the first evaluation's second entry at the same instant: a three-byte
/// zero gap and a value) bytes of recommendations and 603 of scale events (a one-byte list
/// slot after each value: at most 121 events in 1800 s, so slots below 128), within the
/// defaults; with three-byte values (counts above 8,191) it is not.
#[test]
fn the_worst_case_fits_the_default_capacities() {
    let seed = gap_len(gap_code(0)) + 2;
    let slot = varint_len(120);
    assert_eq!(slot, 1);
    let recommendations = worst_case(3_600_000, 2) + seed;
    let events = worst_case(1_800_000, 2 + slot);
    assert_eq!((recommendations, events), (967, 603));
    assert!(recommendations <= DEFAULT_RECOMMENDATION_BYTES);
    assert!(events <= DEFAULT_EVENT_BYTES);
    assert!(worst_case(3_600_000, 3) + seed > DEFAULT_RECOMMENDATION_BYTES);
    assert!(worst_case(1_800_000, 3 + slot) > DEFAULT_EVENT_BYTES);
    // Typical entries: 15 s, fewer than 64 replicas.
    assert_eq!(gap_len(gap_code(15_000)) + varint_len(zigzag(63)), 3);
}

/// Random timings at least 15 s apart and counts up to 8,191: the default rings never
/// fold and never hold more than the worst case.
#[test]
fn random_timings_never_fold_at_the_defaults() {
    let mut rng = Rng::new(0x15);
    let mut h: History<DEFAULT_RECOMMENDATION_BYTES, DEFAULT_EVENT_BYTES> = History::new();
    let mut at = -5_000_000_i64;
    let mut replicas = 1;
    let retention = BEHAVIOR_WINDOW_LIMIT;
    let span = GUARANTEED_REPLICAS;
    // Under Miri, which interprets each step thousands of times slower, 300 steps: the ring
    // still fills (an hour of entries) and wraps around.
    for step in 0..if cfg!(miri) { 300 } else { 20_000 } {
        at += i64::try_from(match rng.below(4) {
            0 => 15_000 + rng.below(100),
            1 => 15_000 + rng.below(10_000),
            2 => 15_000 + rng.below(200_000),
            _ => 15_000,
        })
        .unwrap();
        let now = Instant(at);
        h.seed(replicas, now, retention);
        let desired = i32::try_from(rng.below(u64::try_from(span).unwrap() + 1)).unwrap();
        let window = Duration::from_secs(3600);
        h.stabilize(
            desired,
            replicas,
            now,
            Stabilization::Behavior(window, window),
        );
        h.push_recommendation(desired, now, retention);
        if rng.below(3) != 0 && desired != replicas {
            let longest = [15, 60, 600, 1800][usize::try_from(rng.below(4)).unwrap()];
            h.record_scale_event(replicas, desired, now, longest);
            replicas = desired;
        }
        assert!(!h.has_folded(), "step {step}");
        let (r, e) = h.bytes_used();
        assert!(r <= 967 && e <= 603, "step {step}: {r} {e}");
    }
}

/// Both stabilizations and the policy periods against a list model: the stored entries
/// and the kept summaries, each counted when its instant is in the window (computed in
/// `i128`), with and without folded entries, over windows of every kind.
#[test]
fn windows_equal_a_list_model() {
    let mut rng = Rng::new(0x3d);
    let mut h: History<48, 12> = History::new();
    let mut at = i64::MIN + 100_000;
    let windows = [0, 1, 14_999, 15_000, 60_000, 600_000, i64::MAX, -5].map(Duration);
    let pick = |rng: &mut Rng| windows[usize::try_from(rng.below(8)).unwrap()];
    let in_window = |at: i64, now: Instant, window: Duration, after: bool| {
        let cutoff = i128::from(now.millis()) - i128::from(window.as_millis());
        let at = i128::from(at);
        if after {
            at > cutoff
        } else {
            at >= cutoff
        }
    };
    // Under Miri (thousands of times slower) 100 rounds, enough for the tiny rings to fold.
    for round in 0..if cfg!(miri) { 100 } else { 4000 } {
        // Mostly around the period, now and then far apart (also across the i64 range).
        at = at.saturating_add(match rng.below(16) {
            0 => i64::try_from(rng.next_u64() >> 2).unwrap(),
            1 => 0,
            _ => i64::try_from(rng.below(40_000)).unwrap(),
        });
        let now = Instant(at);
        let desired = i32::try_from(rng.below(300)).unwrap() - 100;
        let current = i32::try_from(rng.below(300)).unwrap() - 100;
        let stored: Vec<(i32, Instant)> = h.recommendations().collect();
        let folded: Vec<Summary> = h.folded_recommendations.iter().copied().collect();
        // Stored and folded bounds of a window: (min, max, folded min, folded max).
        let bounds = |window: Duration, after: bool| {
            let mut b = (i32::MAX, i32::MIN, i32::MAX, i32::MIN);
            for &(v, t) in &stored {
                if in_window(t.millis(), now, window, after) {
                    (b.0, b.1) = (b.0.min(v), b.1.max(v));
                }
            }
            for g in &folded {
                if in_window(g.at, now, window, after) {
                    (b.2, b.3) = (b.2.min(g.a), b.3.max(g.b));
                }
            }
            b
        };
        let clamp = |low: i32, high: i32| current.max(low).min(high);
        // Legacy.
        let window = pick(&mut rng);
        let (_, max, _, folded_max) = bounds(window, false);
        let low = desired.max(max);
        let high = low.max(folded_max);
        let expected = Stabilized {
            replicas: clamp(low, high),
            overflowed: high != low,
            low,
            high,
        };
        let legacy = h.stabilize(desired, current, now, Stabilization::Legacy(window));
        assert_eq!(legacy, expected, "round {round}");
        // Behavior.
        let (up, down) = (pick(&mut rng), pick(&mut rng));
        let (min, _, folded_min, _) = bounds(up, true);
        let (_, max, _, folded_max) = bounds(down, true);
        let (exact_low, exact_high) = (desired.min(min), desired.max(max));
        let (low, high) = (exact_low.min(folded_min), exact_high.max(folded_max));
        let expected = Stabilized {
            replicas: clamp(low, high),
            overflowed: clamp(low, high) != clamp(exact_low, exact_high),
            low,
            high,
        };
        let behavior = h.stabilize(desired, current, now, Stabilization::Behavior(up, down));
        assert_eq!(behavior, expected, "round {round}");
        // Policy periods.
        let period = pick(&mut rng);
        for direction in [Direction::Up, Direction::Down] {
            let (mut added, mut deleted, mut overflowed) = (0_i64, 0_i64, false);
            for (change, t) in h.scale_events() {
                if in_window(t.millis(), now, period, true) {
                    if change > 0 {
                        added += i64::from(change);
                    } else {
                        deleted -= i64::from(change);
                    }
                }
            }
            // Folded events leave their slots' contents unknown.
            overflowed |= h.folded_events.len != 0;
            for g in h.folded_events.iter() {
                if in_window(g.at, now, period, true) {
                    match direction {
                        Direction::Up => added += i64::from(g.a),
                        Direction::Down => deleted += i64::from(g.b),
                    }
                }
            }
            let clamp = |sum: i64| i32::try_from(sum).unwrap_or(i32::MAX);
            let expected = PeriodChanges {
                added: clamp(added),
                deleted: clamp(deleted),
                overflowed,
            };
            assert_eq!(h.changes_in_period(now, period, direction), expected);
        }
        h.push_recommendation(desired, now, Duration::from_secs(600));
        if rng.below(2) == 0 {
            // Now and then a change too large for two bytes, or the most extreme ones.
            let change = match rng.below(8) {
                0 => i32::MAX,
                1 => i32::MIN,
                2 => 100_000,
                _ => i32::try_from(rng.below(200)).unwrap() - 100,
            };
            let longest = [0, 1, 15, 600, 1800, i32::MAX][usize::try_from(rng.below(6)).unwrap()];
            h.record_scale_event(0, change, now, longest);
        }
    }
    assert!(h.has_folded());
}

#[test]
fn an_entry_larger_than_the_ring_is_folded_and_counted() {
    let mut h: History<2, 1> = History::new();
    // 100 takes two bytes.
    h.record_scale_event(0, 100, Instant(0), 60);
    assert!(h.has_folded());
    let c = h.changes_in_period(Instant(10_000), Duration::from_secs(60), Direction::Up);
    assert_eq!(
        c,
        PeriodChanges {
            added: 100,
            deleted: 0,
            overflowed: true
        }
    );
    h.seed(100_000, Instant(5), BEHAVIOR_WINDOW_LIMIT);
    assert_eq!(h.recommendation_count(), 0);
}
