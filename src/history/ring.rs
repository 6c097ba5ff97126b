//! A time-ordered ring of variable-length entries in a fixed byte array (module docs,
//! "Encoding"): appending, taking the oldest, iterating, and finding the first entry of a
//! window.

use core::fmt;

use super::codec::{gap_code, gap_from_code, put_varint_min, skip_varint, take_front};
use super::fast;
use super::MAX_ENTRY_BYTES;
use crate::tuning::FAST_FORMS;

/// A time-ordered ring of `(instant, value)` entries in `N` bytes (see the module docs). The
/// code works on [`Region`] and a byte slice, so that it is shared by every capacity.
#[derive(Clone)]
#[repr(C)]
pub(super) struct Ring<const N: usize> {
    pub(super) region: Region,
    pub(super) bytes: [u8; N],
}

impl<const N: usize> Ring<N> {
    /// Positions are `u32`.
    const CAPACITY_FITS: () = assert!(N <= u32::MAX as usize, "a ring holds at most 4 GiB");

    pub(super) const fn new() -> Self {
        // Evaluated at compile time for each capacity in use.
        #[allow(clippy::let_unit_value)]
        let () = Self::CAPACITY_FITS;
        Ring {
            region: Region {
                front: 0,
                back: 0,
                head: 0,
                tail: 0,
            },
            bytes: [0; N],
        }
    }

    #[inline]
    pub(super) fn live(&self) -> &[u8] {
        self.region.live(&self.bytes)
    }

    pub(super) fn used(&self) -> usize {
        self.region.used()
    }

    #[cfg(test)]
    pub(super) fn push(&mut self, at: i64, code: u64) -> bool {
        self.region.push(&mut self.bytes, at, code)
    }

    #[cfg(test)]
    pub(super) fn pop_front(&mut self) -> Option<(i64, u64)> {
        self.region.pop_front(&self.bytes)
    }

    #[cfg(test)]
    pub(super) fn seek(&self, from: i64) -> usize {
        self.region.seek(&self.bytes, from)
    }

    /// The entries as `(instant, value code)`, oldest first.
    pub(super) fn iter(&self) -> RingIter<'_> {
        RingIter {
            rest: self.live(),
            at: self.region.front,
            first: true,
        }
    }
}

impl<const N: usize> fmt::Debug for Ring<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.live()).finish()
    }
}

/// Where a ring's entries are in its bytes, and their oldest and newest instants.
#[derive(Clone, Copy)]
#[repr(C)]
pub(super) struct Region {
    /// Instants of the oldest and newest entries (meaningless when empty).
    pub(super) front: i64,
    pub(super) back: i64,
    /// The live bytes are `bytes[head..tail]`; empty when equal.
    pub(super) head: u32,
    pub(super) tail: u32,
}

impl Region {
    /// The live bytes. Out of line on small targets: one copy of its bounds checks (12 bytes
    /// less code on a Cortex-M0).
    // The attribute states `crate::tuning::FAST_FORMS`'s choice (attributes cannot read it).
    #[cfg_attr(not(target_pointer_width = "64"), inline(never))]
    pub(super) fn live<'a>(&self, bytes: &'a [u8]) -> &'a [u8] {
        bytes
            .get(self.head as usize..self.tail as usize)
            .unwrap_or(&[])
    }

    pub(super) fn is_empty(&self) -> bool {
        self.head == self.tail
    }

    pub(super) fn used(&self) -> usize {
        self.tail.saturating_sub(self.head) as usize
    }

    /// Appends `(at, code)` to `bytes` if it fits, and returns whether it did. An entry
    /// earlier than the newest one is recorded at the newest one's instant (the rings are
    /// time-ordered; the engine never goes back in time).
    pub(super) fn push(&mut self, bytes: &mut [u8], at: i64, code: u64) -> bool {
        let (head, tail) = (self.head as usize, self.tail as usize);
        if bytes.len().saturating_sub(tail) < MAX_ENTRY_BYTES && head > 0 {
            // Move the live bytes to the start, front to back, when the longest entry might
            // not fit at the end (the entry is written in place, its length unknown before):
            // amortized over the entries appended since. A checked byte loop: `copy_within`
            // would link a bounds-check panic, and a loop the compiler turns into `memmove`
            // links 1.3 KB on targets that need no `memmove` otherwise.
            let live = tail.saturating_sub(head);
            for i in 0..live {
                if let Some(&b) = bytes.get(head.saturating_add(i)) {
                    if let Some(slot) = bytes.get_mut(i) {
                        *slot = b;
                    }
                }
            }
            self.head = 0;
            self.tail = u32::try_from(live).unwrap_or(u32::MAX);
        }
        // Written after the live bytes; it fits if it is written whole (then it fits as well
        // after any compaction, which leaves the live bytes at the start).
        let free = bytes.get_mut(self.tail as usize..).unwrap_or(&mut []);
        let room = free.len();
        let mut out = free.iter_mut();
        let at = if self.is_empty() {
            at
        } else {
            let at = at.max(self.back);
            if !put_varint_min(&mut out, gap_code(at.abs_diff(self.back)), 2) {
                return false;
            }
            at
        };
        if !put_varint_min(&mut out, code, 1) {
            return false;
        }
        let len = room.saturating_sub(out.len());
        if self.is_empty() {
            self.front = at;
        }
        self.back = at;
        self.tail = self
            .tail
            .saturating_add(u32::try_from(len).unwrap_or(u32::MAX));
        true
    }

    /// Removes and returns the oldest entry.
    pub(super) fn pop_front(&mut self, bytes: &[u8]) -> Option<(i64, u64)> {
        let mut rest = self.live(bytes);
        let code = take_front(&mut rest)?;
        let at = self.front;
        match take_front(&mut rest) {
            Some(code) => {
                // Exact: the gaps add up to `back - front`, which fits.
                self.front = self.front.wrapping_add_unsigned(gap_from_code(code));
                // The live bytes end at `tail`.
                self.head = self
                    .tail
                    .saturating_sub(u32::try_from(rest.len()).unwrap_or(u32::MAX));
            }
            None => {
                self.head = 0;
                self.tail = 0;
            }
        }
        Some((at, code))
    }

    /// The byte offset (into the live bytes) of the oldest entry not before `from`: the
    /// length of the live bytes when there is none. Walks from the oldest entry; on hosts
    /// (`FAST_FORMS`) from the end nearer in time ([`fast::seek_from_newest`]), so that a
    /// window covering most of the ring costs little more than one covering a few entries.
    pub(super) fn seek(&self, bytes: &[u8], from: i64) -> usize {
        // An empty ring has no live bytes: every path below gives 0.
        let live = self.live(bytes);
        if from <= self.front {
            return 0;
        }
        if from > self.back {
            return live.len();
        }
        if FAST_FORMS && self.back.abs_diff(from) < from.abs_diff(self.front) {
            return fast::seek_from_newest(live, self.back, from);
        }
        seek_from_oldest(live, self.front, from)
    }
}

/// [`Region::seek`] walking from the oldest entry (at `front`) of `live`, for an instant
/// `from` after it: skips the oldest entry's value, then each entry's gap and value.
fn seek_from_oldest(live: &[u8], front: i64, from: i64) -> usize {
    let mut rest = live;
    let mut at = front;
    skip_varint(&mut rest);
    loop {
        let start = live.len().saturating_sub(rest.len());
        let Some(code) = take_front(&mut rest) else {
            return live.len();
        };
        at = at.wrapping_add_unsigned(gap_from_code(code));
        if at >= from {
            return start;
        }
        skip_varint(&mut rest);
    }
}

/// Iterator over a ring's entries as `(instant, value code)`, oldest first.
pub(super) struct RingIter<'a> {
    rest: &'a [u8],
    at: i64,
    first: bool,
}

impl Iterator for RingIter<'_> {
    type Item = (i64, u64);

    fn next(&mut self) -> Option<(i64, u64)> {
        if !self.first {
            let code = take_front(&mut self.rest)?;
            self.at = self.at.wrapping_add_unsigned(gap_from_code(code));
        }
        self.first = false;
        Some((self.at, take_front(&mut self.rest)?))
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::collections::VecDeque;
    use std::vec::Vec;

    use super::*;
    use crate::history::codec::{event_change, event_code, event_slot, zigzag};
    use crate::history::extremes::Bound;
    use crate::history::scan::{totals, Changes};
    use crate::history::summary::Kind;
    use testkit::Rng;

    /// A gap for the model test: around the period, zero, long, or anything up to the rest of
    /// the `i64` range.
    fn random_gap(rng: &mut Rng, at: i64) -> u64 {
        let room = i64::MAX.abs_diff(at);
        let gap = match rng.below(8) {
            0 => 0,
            1 => 15_000,
            2 | 3 => 14_900 + rng.below(200),
            4 => rng.below(40_000),
            5 => rng.below(1 << 30),
            6 => rng.next_u64(),
            _ => rng.below(3),
        };
        gap.min(room)
    }

    /// The sums of the scale-event changes of `entries`, by the definition.
    fn model_changes(entries: impl Iterator<Item = i32>) -> Changes {
        let (mut added, mut deleted) = (0_i64, 0_i64);
        for v in entries {
            if v > 0 {
                added += i64::from(v);
            } else {
                deleted -= i64::from(v);
            }
        }
        Changes {
            added: crate::arith::clamp_i32(i128::from(added)),
            deleted: crate::arith::clamp_i32(i128::from(deleted)),
        }
    }

    /// A ring against a list: pushes, pops when full, the oldest-first iteration and the
    /// newest-first scans from every cutoff, over the whole `i64` time range and any value;
    /// every other round a ring of scale events, whose codes hold a list slot too.
    #[test]
    fn a_ring_equals_a_list() {
        let mut rng = Rng::new(0x41);
        // Under Miri, which interprets each step (scans from every cutoff) in seconds, 8
        // rounds of 12 steps, each scanning from every third cutoff (both ends of time among
        // them, and entries' instants and the instants after them alike): every combination
        // of kind, steadiness and value width still runs (they repeat every 8 rounds), and
        // the 80-byte rings wrap in the rounds of wide gaps and values.
        let (rounds, steps, cutoff_stride) = if cfg!(miri) {
            (8, 12, 3)
        } else {
            (200, 300, 1)
        };
        for round in 0..rounds {
            let events = round % 2 == 1;
            let kind = if events {
                Kind::Events
            } else {
                Kind::Recommendations
            };
            let mut ring: Ring<80> = Ring::new();
            let mut list: VecDeque<(i64, u64)> = VecDeque::new();
            let mut at = if round % 3 == 0 {
                i64::MIN
            } else {
                i64::try_from(rng.next_u64() >> 2).unwrap() - (1 << 61)
            };
            // Some rounds are mostly steady (one- or two-byte gaps, small values), so that the
            // block paths of `totals` run, and are disturbed now and then.
            let steady = [None, Some(15_000), Some(15_100), Some(14_990)][round / 2 % 4];
            // One- or two-byte values.
            let span = if round % 8 < 4 { 64 } else { 8192 };
            for _ in 0..steps {
                let disturbed = rng.below(16) == 0;
                let gap = match steady {
                    Some(gap) if !disturbed => gap.min(i64::MAX.abs_diff(at)),
                    _ => random_gap(&mut rng, at),
                };
                at = at.saturating_add_unsigned(gap);
                let value = match rng.below(4) {
                    _ if steady.is_some() && !disturbed => {
                        i32::try_from(rng.below(2 * span)).unwrap() - i32::try_from(span).unwrap()
                    }
                    0 => i32::try_from(rng.below(64)).unwrap(),
                    1 => i32::try_from(rng.below(20_000)).unwrap() - 10_000,
                    _ => u32::try_from(rng.next_u64() >> 32).unwrap().cast_signed(),
                };
                let code = if events {
                    let slot = u32::try_from(rng.below(128)).unwrap();
                    let code = event_code(value, slot);
                    assert_eq!((event_change(code), event_slot(code)), (value, slot));
                    code
                } else {
                    zigzag(value)
                };
                while !ring.push(at, code) {
                    assert_eq!(ring.pop_front(), list.pop_front());
                }
                list.push_back((at, code));
                assert!(ring.used() <= 80);
                assert_eq!(ring.iter().collect::<Vec<_>>(), Vec::from(list.clone()));
                if rng.below(5) == 0 {
                    assert_eq!(ring.pop_front(), list.pop_front());
                }
                let cutoffs: Vec<i64> = [i64::MIN, i64::MAX]
                    .into_iter()
                    .chain(list.iter().flat_map(|e| [e.0, e.0.saturating_add(1)]))
                    .collect();
                for &from in cutoffs.iter().step_by(cutoff_stride) {
                    let start = ring.seek(from);
                    let region = &ring.region;
                    // From the oldest (the form of small targets) and from the newest.
                    if region.front < from && from <= region.back {
                        assert_eq!(seek_from_oldest(ring.live(), region.front, from), start);
                        let newest = fast::seek_from_newest(ring.live(), region.back, from);
                        assert_eq!(newest, start);
                    }
                    let kept = list.iter().filter(|e| e.0 >= from);
                    assert_eq!(
                        ring.iter().skip_while(|e| e.0 < from).count(),
                        kept.clone().count()
                    );
                    if events {
                        let expected = model_changes(kept.map(|&(_, code)| kind.value(code)));
                        let got =
                            totals(region, &ring.bytes, Some(from), kind, Bound::High).changes;
                        assert_eq!(got, expected, "from {from}");
                    } else if let Some(&(newest, _)) = list.back() {
                        // The extremes, and how old their newest holders are.
                        for bound in [Bound::Low, Bound::High] {
                            let t = totals(region, &ring.bytes, Some(from), kind, bound);
                            let holder = kept
                                .clone()
                                .rfind(|&&(_, code)| bound.key(kind.value(code)) == t.key);
                            let best = kept.clone().map(|&(_, code)| bound.key(kind.value(code)));
                            // Without entries: the lowest key, and no age.
                            assert_eq!(t.key, best.max().unwrap_or(i32::MIN), "from {from}");
                            let age = holder.map_or(0, |&(at, _)| newest.abs_diff(at));
                            let age = u32::try_from(age).unwrap_or(u32::MAX);
                            assert_eq!(t.age, age, "from {from}");
                        }
                    }
                }
            }
        }
    }
}
