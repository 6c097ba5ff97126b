//! The window scans: the cutoff of a window or period, and what its entries, stored and
//! folded, add up to.

use super::codec::{event_change, skip_varint, take_front, unzigzag, unzigzag32, HIGH_BITS};
use super::ring::{Region, BOTH_ENDS};
use super::summary::{Generations, Kind};
use crate::time::{Duration, Instant};

/// Whether [`totals`] reads runs of entries a block at a time: on 64-bit hosts, where the
/// scans are the hot path. Small targets read every entry one by one: less code.
pub(super) const RUNS: bool = cfg!(target_pointer_width = "64");

/// What the values of some entries add up to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Totals {
    /// The lowest and highest value (`i32::MAX` and `i32::MIN` without entries).
    pub(super) low: i32,
    pub(super) high: i32,
    /// The sums of the positive values and of the negated negative ones, if asked for,
    /// saturated to `i32::MAX`: every term is non-negative, so saturating each addition
    /// equals saturating the exact sum (which is all [`History::changes_in_period`] keeps),
    /// and 32-bit sums take less code than 64-bit ones on a 32-bit target.
    pub(super) added: i32,
    pub(super) deleted: i32,
    pub(super) sums: bool,
}

impl Totals {
    fn add(&mut self, value: i32) {
        self.low = self.low.min(value);
        self.high = self.high.max(value);
        if self.sums {
            if value > 0 {
                self.added = self.added.saturating_add(value);
            } else {
                // `-i32::MIN` saturates, as the sum does.
                self.deleted = self.deleted.saturating_sub(value);
            }
        }
    }
}

/// The totals of the entries of `region` in `bytes` from byte offset `start` of its live
/// bytes (from [`Ring::seek`]) to `end`, oldest first (`added` and `deleted` only if `sums`,
/// which only scale events ask for: their codes are read with [`event_change`]).
/// One function serves every scan: the stabilizations read `low` and `high`, the policy
/// periods `added` and `deleted`.
///
/// With `RUNS` (see [`RUNS`]), runs of entries with two-byte gaps (6.8 s to 23.1 s) and
/// values of one byte (below 64) or two (up to 8,191) go 24 bytes, 8 or 6 entries, at a time,
/// and each kind of scan has its own loop: `sums` is tested once, not at every value (a
/// stabilization over a full ring reads hundreds). Small targets keep one loop: less code.
pub(super) fn totals<const RUNS: bool>(
    region: &Region,
    bytes: &[u8],
    start: usize,
    end: usize,
    sums: bool,
) -> Totals {
    if RUNS {
        // Constants: each call below is a loop without the test. Scale events (the sums) code
        // a slot with each change: no run layout fits them, and their rings are short.
        if sums {
            scan::<false>(region, bytes, start, end, true)
        } else {
            scan::<RUNS>(region, bytes, start, end, false)
        }
    } else {
        scan::<RUNS>(region, bytes, start, end, sums)
    }
}

/// The body of [`totals`], inlined into each of its calls.
#[inline(always)]
fn scan<const RUNS: bool>(
    region: &Region,
    bytes: &[u8],
    start: usize,
    end: usize,
    sums: bool,
) -> Totals {
    let mut t = Totals {
        low: i32::MAX,
        high: i32::MIN,
        added: 0,
        deleted: 0,
        sums,
    };
    let Some(mut rest) = region.live(bytes).get(start..end) else {
        return t;
    };
    // Every entry but the oldest starts with its gap.
    if start != 0 && !skip_varint(&mut rest) {
        return t;
    }
    let mut one_by_one = 0_u8;
    loop {
        let Some(code) = take_front(&mut rest) else {
            return t;
        };
        t.add(if sums {
            event_change(code)
        } else {
            unzigzag(code)
        });
        // After a failed look for a run, a few entries one by one before the next look.
        if !RUNS || one_by_one > 0 {
            one_by_one = one_by_one.saturating_sub(1);
            if !skip_varint(&mut rest) {
                return t;
            }
            continue;
        }
        one_by_one = 4;
        // A run of entries with two-byte gaps, laid out like the next one: 24 bytes at a time
        // while their high bits are the layout's.
        match rest {
            [g, h, v, ..] if *g >= 0x80 && *h < 0x80 && *v < 0x80 => {
                // One-byte values (below 64): high bits on bytes 0, 3, 6, ...
                while let Some((block, after)) = rest.split_first_chunk::<24>() {
                    if !high_bits_are(block, HIGH_BITS_GAP_VALUE) {
                        break;
                    }
                    for value in block.iter().skip(2).step_by(3) {
                        t.add(unzigzag32(u32::from(*value)));
                    }
                    rest = after;
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
                    rest = after;
                }
            }
            _ => {}
        }
        if !skip_varint(&mut rest) {
            return t;
        }
    }
}

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

/// The lowest instant strictly after `now - window` when `after`, else not before it; `None`
/// when no `i64` instant is. Not inlined on small targets: one routine for every window.
#[cfg_attr(not(target_pointer_width = "64"), inline(never))]
fn first_in(now: Instant, window: Duration, after: bool) -> Option<i64> {
    match now.millis().checked_sub(window.as_millis()) {
        Some(cutoff) => cutoff.checked_add(i64::from(after)),
        // Below every instant when the window is positive, above every one otherwise.
        None => (window.as_millis() > 0).then_some(i64::MIN),
    }
}

/// The lowest instant strictly after `now - window`, `None` when no `i64` instant is.
#[inline(always)]
pub(super) fn first_after(now: Instant, window: Duration) -> Option<i64> {
    first_in(now, window, true)
}

/// The lowest instant not before `now - window`, `None` when no `i64` instant is.
#[inline(always)]
pub(super) fn first_not_before(now: Instant, window: Duration) -> Option<i64> {
    first_in(now, window, false)
}

/// What the entries of a window add up to: the stored ones, and the folded ones merged as
/// their ring's kind (see [`Summary::merge`]). `repr(C)`: [`totals`] writes `stored` in
/// place.
#[repr(C)]
pub(super) struct Window {
    pub(super) stored: Totals,
    /// The lowest (`a`) and highest (`b`) folded recommendation, or the replicas added (`a`)
    /// and deleted (`b`) by folded events: `i32::MAX`, `i32::MIN` or zeros without any.
    pub(super) folded_a: i32,
    pub(super) folded_b: i32,
    /// Some summary falls in the window.
    pub(super) any_folded: bool,
}

/// The [`Window`] of the entries of a ring of `kind` not before `from` (none for `None`):
/// `added` and `deleted` only for events. Not inlined on small targets: one routine for the
/// stabilizations and the policy periods.
#[cfg_attr(not(target_pointer_width = "64"), inline(never))]
pub(super) fn window(
    region: &Region,
    bytes: &[u8],
    generations: &Generations,
    kind: Kind,
    from: Option<i64>,
) -> Window {
    let end = region.used();
    let events = kind == Kind::Events;
    let start = from.map_or(end, |from| region.seek::<BOTH_ENDS>(bytes, from));
    let (folded_a, folded_b, any_folded) = folded_in(generations, events, from);
    // While events are folded, their slots count as free (module docs, "Overflow"): upstream
    // may have overwritten another event than the ring did, so every period is reported.
    let any_folded = any_folded || (events && generations.len != 0);
    Window {
        stored: totals::<RUNS>(region, bytes, start, end, events),
        folded_a,
        folded_b,
        any_folded,
    }
}

/// The [`Window`] fields of the summaries not before `from` (none for `None`), merged as
/// events (`events`: sums) or recommendations (minimum and maximum), and whether there is
/// any: the one statement of that rule.
#[inline(always)]
pub(super) fn folded_in(
    generations: &Generations,
    events: bool,
    from: Option<i64>,
) -> (i32, i32, bool) {
    // The identity of the merge: no minimum and maximum, or zero sums.
    let (mut a, mut b) = if events { (0, 0) } else { (i32::MAX, i32::MIN) };
    let mut any = false;
    for g in generations.iter() {
        if from.is_some_and(|from| g.at >= from) {
            any = true;
            if events {
                a = a.saturating_add(g.a);
                b = b.saturating_add(g.b);
            } else {
                a = a.min(g.a);
                b = b.max(g.b);
            }
        }
    }
    (a, b, any)
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::indexing_slicing
)]
mod tests {
    extern crate std;

    use super::*;
    use crate::history::codec::zigzag;
    use crate::history::ring::Ring;

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
}
