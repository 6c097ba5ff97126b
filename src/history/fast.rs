//! The hosts' fast forms of the scans, compiled where [`FAST_FORMS`] holds (64-bit pointers,
//! where the scans are the hot path): skipping a varint without decoding it, walking to a
//! window's first entry from the newest end, reading runs of entries a block at a time, and
//! reading both windows of a behavior stabilization in one pass. Each gives the result of the
//! plain form in [`super::codec`], [`super::ring`], [`super::scan`] or [`History::stabilize`],
//! which small targets compile instead (less code); the tests here compare the two.
//!
//! [`FAST_FORMS`]: crate::tuning::FAST_FORMS
//! [`History::stabilize`]: super::History::stabilize

use super::codec::{gap_from_code, take_back, unzigzag32};
use super::ring::{Region, Ring};
use super::scan::{folded_in, scan, Totals, WindowBounds};
use super::summary::Generations;

/// [`super::codec::skip_varint`] without decoding.
#[inline]
pub(super) fn skip_varint(rest: &mut &[u8]) -> bool {
    while let Some((&b, after)) = rest.split_first() {
        *rest = after;
        if b < 0x80 {
            return true;
        }
    }
    false
}

/// [`Region::seek`] walking from the newest entry (at `back`) of `live`, for an instant `from`
/// after the oldest entry and not after the newest: the entry at `at` is not before `from`;
/// stops at the first one whose predecessor is.
pub(super) fn seek_from_newest(live: &[u8], back: i64, from: i64) -> usize {
    let mut rest = live;
    let mut at = back;
    loop {
        let _ = take_back(&mut rest);
        let Some(code) = take_back(&mut rest) else {
            return 0;
        };
        at = at.wrapping_sub_unsigned(gap_from_code(code));
        if at < from {
            return rest.len();
        }
    }
}

/// [`super::scan::totals`] with each kind of scan in its own loop (`sums` is tested once, not
/// at every value: a stabilization over a full ring reads hundreds), and recommendations read
/// a run at a time where they can be (see [`read_run`]).
pub(super) fn totals(
    region: &Region,
    bytes: &[u8],
    start: usize,
    end: usize,
    sums: bool,
) -> Totals {
    // Constants: each call below is a loop without the test. Scale events (the sums) code a
    // slot with each change: no run layout fits them, and their rings are short.
    if sums {
        return scan(region, bytes, start, end, true, |_, _| {});
    }
    let mut one_by_one = 0_u8;
    scan(region, bytes, start, end, false, |rest, t| {
        // After a failed look for a run, a few entries one by one before the next look.
        if one_by_one > 0 {
            one_by_one = one_by_one.saturating_sub(1);
        } else {
            one_by_one = 4;
            read_run(rest, t);
        }
    })
}

/// Adds the recommendations of the run of entries at the start of `rest` (from a gap on) to
/// `t` and moves past them: runs of entries with two-byte gaps (6.8 s to 23.1 s) and values of
/// one byte (below 64) or two (up to 8,191), laid out like the first one, go 24 bytes, 8 or 6
/// entries, at a time while their high bits are the layout's.
#[inline(always)]
fn read_run(rest: &mut &[u8], t: &mut Totals) {
    match *rest {
        [g, h, v, ..] if *g >= 0x80 && *h < 0x80 && *v < 0x80 => {
            // One-byte values (below 64): high bits on bytes 0, 3, 6, ...
            while let Some((block, after)) = rest.split_first_chunk::<24>() {
                if !high_bits_are(block, HIGH_BITS_GAP_VALUE) {
                    break;
                }
                for value in block.iter().skip(2).step_by(3) {
                    t.add(unzigzag32(u32::from(*value)));
                }
                *rest = after;
            }
        }
        [g, h, ..] if *g >= 0x80 && *h < 0x80 => {
            // Two-byte values (64 to 8,191): high bits on bytes 0, 2, 4, ...
            while let Some((block, after)) = rest.split_first_chunk::<24>() {
                if !high_bits_are(block, [0x0080_0080_0080_0080; 3]) {
                    break;
                }
                for entry in block.chunks_exact(4) {
                    if let [_, _, low, high] = *entry {
                        t.add(unzigzag32(
                            u32::from(low & 0x7f) | u32::from(high).wrapping_shl(7),
                        ));
                    }
                }
                *rest = after;
            }
        }
        _ => {}
    }
}

/// The high bit of each byte of a `u64`: set on all bytes of a varint but its last.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// The high bits of 24 bytes of entries with two-byte gaps and one-byte values (each gap's
/// first byte: bytes 0, 3, 6, ...), as little-endian words.
const HIGH_BITS_GAP_VALUE: [u64; 3] = [
    0x0080_0000_8000_0080,
    0x8000_0080_0000_8000,
    0x0000_8000_0080_0000,
];

/// Whether the high bits of `block` (three little-endian words) are `high`. Word by word:
/// comparing arrays would go through memory.
fn high_bits_are(block: &[u8; 24], high: [u64; 3]) -> bool {
    let word = |i: usize| {
        block
            .get(i..i.saturating_add(8))
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            .map_or(0, u64::from_le_bytes)
            & HIGH_BITS
    };
    let [a, b, c] = high;
    word(0) == a && word(8) == b && word(16) == c
}

/// The [`WindowBounds`] of a behavior stabilization's windows of recommendations, the
/// scale-up one from `up_from` and the scale-down one from `down_from`, in one pass: the
/// longer window's own part, then the part both windows cover.
pub(super) fn stabilization_bounds<const N: usize>(
    ring: &Ring<N>,
    folded: &Generations,
    up_from: Option<i64>,
    down_from: Option<i64>,
) -> WindowBounds {
    let end = ring.used();
    let (up_start, down_start) = (
        up_from.map_or(end, |from| ring.seek(from)),
        down_from.map_or(end, |from| ring.seek(from)),
    );
    let both = up_start.max(down_start);
    let shorter = ring.totals(both, end, false);
    let longer = ring.totals(up_start.min(down_start), both, false);
    let (mut low, mut high) = (shorter.low, shorter.high);
    if up_start < both {
        low = low.min(longer.low);
    } else {
        high = high.max(longer.high);
    }
    let (folded_low, _, _) = folded_in(folded, false, up_from);
    let (_, folded_high, _) = folded_in(folded, false, down_from);
    WindowBounds {
        low,
        high,
        folded_low,
        folded_high,
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use crate::history::codec::{put_varint_min, take_front, zigzag};
    use crate::history::scan::first_after;
    use crate::history::{History, Stabilization, Stabilized};
    use crate::time::{Duration, Instant};
    use testkit::Rng;

    /// Blocks of entries with two-byte gaps have the high bits `totals` looks for (a wrong
    /// pattern would only send the runs one by one).
    #[test]
    fn run_patterns_match_their_layouts() {
        for gap in [15_000, 15_100, 14_000, 23_000] {
            for (value, high) in [(5, HIGH_BITS_GAP_VALUE), (-100, [0x0080_0080_0080_0080; 3])] {
                let mut ring: Ring<64> = Ring::new();
                for i in 0..12 {
                    assert!(ring.push(i * gap, zigzag(value)));
                }
                // From the second entry on: a gap first.
                let mut rest = ring.live();
                assert!(skip_varint(&mut rest));
                let block = rest.first_chunk::<24>().unwrap();
                assert!(high_bits_are(block, high), "{gap} {value}");
            }
        }
    }

    /// Both forms of `skip_varint` move past the same bytes, and fail at the end.
    #[test]
    fn skipping_by_bytes_equals_skipping_by_decoding() {
        let mut rng = Rng::new(0x5c);
        for _ in 0..1000 {
            let mut bytes = [0_u8; 64];
            let mut out = bytes.iter_mut();
            let min = |rng: &mut Rng| 1 + u8::try_from(rng.below(2)).unwrap();
            while put_varint_min(&mut out, rng.next_u64() >> rng.below(64), min(&mut rng)) {}
            // The last varint may be cut short: both then fail.
            let (mut by_bytes, mut by_decoding) = (&bytes[..], &bytes[..]);
            loop {
                let skipped = skip_varint(&mut by_bytes);
                assert_eq!(skipped, take_front(&mut by_decoding).is_some());
                if !skipped {
                    break;
                }
                assert_eq!(by_bytes, by_decoding);
            }
        }
    }

    /// The behavior stabilization of small targets (each window with `window`) equals the
    /// host's one pass, with and without folded recommendations.
    #[test]
    fn window_by_window_equals_one_pass() {
        let mut rng = Rng::new(0x77);
        let mut h: History<64, 16> = History::new();
        let mut at = 0_i64;
        let windows = [0, 15, 60, 300, 600].map(Duration::from_secs);
        for _ in 0..3000 {
            at += i64::try_from(rng.below(40_000)).unwrap();
            let now = Instant(at);
            let desired = i32::try_from(rng.below(200)).unwrap() - 20;
            let current = i32::try_from(rng.below(200)).unwrap() - 20;
            let up = windows[usize::try_from(rng.below(5)).unwrap()];
            let down = windows[usize::try_from(rng.below(5)).unwrap()];
            let s = h.stabilize(desired, current, now, Stabilization::Behavior(up, down));
            let u = h.recommendation_window(first_after(now, up));
            let d = h.recommendation_window(first_after(now, down));
            let (exact_up, exact_down) = (desired.min(u.stored.low), desired.max(d.stored.high));
            let (low, high) = (exact_up.min(u.folded_a), exact_down.max(d.folded_b));
            let replicas = current.max(low).min(high);
            let overflowed = replicas != current.max(exact_up).min(exact_down);
            let expected = Stabilized {
                replicas,
                overflowed,
                low,
                high,
            };
            assert_eq!(s, expected);
            h.push_recommendation(desired, now, Duration::from_secs(600));
        }
        assert!(h.has_folded());
    }
}
