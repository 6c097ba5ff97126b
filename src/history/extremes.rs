//! The stabilization windows' extremes, kept between evaluations
//! (docs/spec/history.md#window-extremes): the lowest recommendation of the last scale-up
//! window and the highest of the last scale-down (or legacy) window, each with the newest
//! entry that holds it. A window only moves forward in time, so while that entry is still in
//! the window the extreme is unchanged by the entries that left it, and a new entry updates it
//! in one compare: an evaluation scans its window only when the entry holding the extreme
//! leaves it or the window grows.

use super::scan::Totals;
use crate::fingerprint::Fingerprint;

/// Which extreme of a window; its number is its index in [`Extremes`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Bound {
    /// The lowest recommendation (the scale-up window).
    Low = 0,
    /// The highest recommendation (the scale-down or legacy window).
    High = 1,
}

impl Bound {
    /// The order key of `value`: the highest key is the extreme. Flipping every bit reverses
    /// the order without overflow: one compare serves both bounds (less code than a branch on
    /// the bound at every entry). Its own inverse: the key of a key is the value.
    pub(super) fn key(self, value: i32) -> i32 {
        match self {
            Bound::Low => !value,
            Bound::High => value,
        }
    }

    /// Of a summary's lowest (`low`) and highest (`high`) value, the one of this bound.
    pub(super) fn of(self, low: i32, high: i32) -> i32 {
        match self {
            Bound::Low => low,
            Bound::High => high,
        }
    }
}

/// One window's extreme. Instants are milliseconds relative to the ring's newest entry
/// (`Region::back`, never after it), in 32 bits: 32-bit arithmetic is one instruction an
/// operation on a 32-bit target, and the windows are at most an hour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub(super) struct Extreme {
    /// The last instant before the window it was found for (negative: the window's first
    /// instant is not after the newest entry); [`Extreme::UNKNOWN`] when none is kept (a new or
    /// restored history, after a fold, or a window that did not fit 32 bits). The other fields
    /// of an extreme not kept mean nothing: they are left as they were (one store, not three).
    before: i32,
    /// The instant of the newest entry holding the extreme, after `before`.
    holder: i32,
    /// The extreme's order key ([`Bound::key`]) among the entries after `before`.
    key: i32,
}

impl Extreme {
    /// `before` of an extreme that is not kept: zero, after every window's `before`, so that
    /// nothing kept is all zeros, like the rest of a new state (a `static` state then takes no
    /// flash: it goes to `.bss`).
    const UNKNOWN: i32 = 0;
    const NONE: Extreme = Extreme {
        before: Self::UNKNOWN,
        holder: 0,
        key: 0,
    };

    /// The newest entry moved `gap` ms later (not negative), with order key `key`: it is in the
    /// window (whose first instant is not after the previous newest entry). Out of line: one
    /// copy for both bounds (32 bytes less code on a Cortex-M0).
    #[inline(never)]
    fn push(&mut self, gap: i32, key: i32) {
        // The instants that stay in 32 bits when moved `gap` ms back are not below `floor`: the
        // others are too old to say (found again by the next scan).
        let floor = i32::MIN.wrapping_add(gap);
        let newer = key >= self.key;
        let kept = self.before != Self::UNKNOWN && self.before >= floor;
        if kept && (newer || self.holder >= floor) {
            self.before = self.before.wrapping_sub(gap);
            if newer {
                (self.holder, self.key) = (0, key);
            } else {
                self.holder = self.holder.wrapping_sub(gap);
            }
        } else {
            self.before = Self::UNKNOWN;
        }
    }
}

/// The extremes of both stabilization windows, indexed by [`Bound`] (an index, not a match:
/// one address computation). Plain data, like the rest of the state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub(super) struct Extremes([Extreme; 2]);

impl Extremes {
    /// Nothing kept.
    pub(super) const NONE: Extremes = Extremes([Extreme::NONE; 2]);

    /// Adds every field to `f`.
    pub(super) fn fingerprint(&self, f: &mut Fingerprint) {
        for e in self.0 {
            f.word(u64::from(e.before.cast_unsigned()) << 32 | u64::from(e.holder.cast_unsigned()));
            f.word(u64::from(e.key.cast_unsigned()));
        }
    }

    /// Nothing kept any more (see [`Extreme::before`]).
    pub(super) fn forget(&mut self) {
        for kept in &mut self.0 {
            kept.before = Extreme::UNKNOWN;
        }
    }

    /// A recommendation of `value` was appended `gap` ms after the newest entry, with nothing
    /// folded.
    pub(super) fn push(&mut self, gap: u64, value: i32) {
        let Ok(gap) = i32::try_from(gap) else {
            // Every kept instant is now too old to say in 32 bits.
            self.forget();
            return;
        };
        let [low, high] = &mut self.0;
        low.push(gap, Bound::Low.key(value));
        high.push(gap, Bound::High.key(value));
    }

    /// The order key ([`Bound::key`]) of the `bound` of the recommendations not before
    /// `first`, an instant not after the newest one (`back`): kept, or found by `scan` (the
    /// [`Totals`] of those recommendations) and then kept.
    pub(super) fn bound(
        &mut self,
        bound: Bound,
        back: i64,
        first: i64,
        scan: impl FnOnce() -> Totals,
    ) -> i32 {
        let Some(kept) = self.0.get_mut(bound as usize) else {
            return scan().key;
        };
        // `first - back`, not positive, or `i32::MIN` when it does not fit 32 bits (a negation
        // of at most `i32::MAX` is never `i32::MIN`): before every kept `before`.
        let relative = i32::try_from(back.abs_diff(first)).map_or(i32::MIN, i32::wrapping_neg);
        // Not after `UNKNOWN`: nothing kept is used.
        if kept.before < relative && relative <= kept.holder {
            return kept.key;
        }
        let Totals { key, age, .. } = scan();
        let age = i32::try_from(age).ok().filter(|_| relative != i32::MIN);
        match age {
            Some(age) => {
                *kept = Extreme {
                    before: relative.wrapping_sub(1),
                    holder: age.wrapping_neg(),
                    key,
                };
            }
            None => kept.before = Extreme::UNKNOWN,
        }
        key
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::*;
    use crate::history::codec::zigzag;
    use crate::history::ring::Ring;
    use crate::history::scan::totals;
    use crate::history::summary::Kind;
    use testkit::Rng;

    /// Kept extremes against a scan of a list, over random windows that move forward, grow
    /// and shrink, entries that leave by age, values with long runs of rises and falls, and
    /// gaps up to past the 32-bit range.
    #[test]
    fn kept_extremes_equal_a_scan() {
        let mut rng = Rng::new(0xE7);
        let (mut queries, mut scans) = (0_u32, 0_u32);
        // Under Miri, which interprets each step in a fraction of a second, one round of 40
        // steps per window: entries still leave by age (the short windows) and the kept
        // extremes still serve the long ones; the ring fills and wraps in the full run.
        let (rounds, steps) = if cfg!(miri) { (7, 40) } else { (300, 400) };
        for round in 0..rounds {
            let mut ring: Ring<256> = Ring::new();
            let mut extremes = Extremes::NONE;
            let mut list: Vec<(i64, i32)> = Vec::new();
            let mut at = i64::try_from(rng.below(1 << 40)).unwrap() - (1 << 39);
            let mut value = 10_i32;
            let windows = [0_i64, 1, 15_000, 300_000, 3_600_000, 1 << 31, i64::MAX];
            let mut window = windows[round % windows.len()];
            for _ in 0..steps {
                let gap = match rng.below(10) {
                    0 => 0,
                    1 => rng.below(1 << 33),
                    _ => 14_000 + rng.below(2_000),
                };
                at = at.saturating_add_unsigned(gap);
                value = match rng.below(6) {
                    0 => i32::try_from(rng.below(100)).unwrap(),
                    1 | 2 => value.saturating_add(1),
                    3 | 4 => value.saturating_sub(1),
                    _ => value,
                };
                // Entries leave by age (the retention), or when the ring is full.
                let before = ring.region.back;
                let had = !ring.region.is_empty();
                while !ring.push(at, zigzag(value)) {
                    ring.pop_front();
                    list.remove(0);
                }
                if had {
                    extremes.push(ring.region.back.abs_diff(before), value);
                } else {
                    extremes = Extremes::NONE;
                }
                list.push((ring.region.back, value));
                if rng.below(20) == 0 {
                    window = windows[usize::try_from(rng.below(7)).unwrap()];
                }
                let back = ring.region.back;
                for (bound, offset) in [(Bound::Low, 0), (Bound::High, 1)] {
                    let first = back.saturating_sub(window).saturating_add(offset);
                    if first > back {
                        continue;
                    }
                    let kept: Vec<i32> =
                        list.iter().filter(|e| e.0 >= first).map(|e| e.1).collect();
                    let expected = match bound {
                        Bound::Low => kept.iter().min(),
                        Bound::High => kept.iter().max(),
                    };
                    let region = ring.region;
                    // Windows of many entries, where keeping pays.
                    let counted = (300_000..=3_600_000).contains(&window);
                    let got = extremes.bound(bound, back, first, || {
                        scans += u32::from(counted);
                        totals(
                            &region,
                            &ring.bytes,
                            Some(first),
                            Kind::Recommendations,
                            bound,
                        )
                    });
                    assert_eq!(
                        Some(&bound.key(got)),
                        expected,
                        "round {round}, window {window}"
                    );
                    queries += u32::from(counted);
                }
            }
        }
        // The kept extremes are used: most queries of long windows scan nothing.
        std::println!("{scans} scans for {queries} queries");
        assert!(scans * 4 < queries, "{scans} scans for {queries} queries");
    }
}
