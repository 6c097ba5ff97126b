//! Recommendation and scale-event history in fixed-capacity byte rings. The rules are stated
//! in `docs/spec/history.md`; this says how the rings hold them.
//!
//! Upstream keeps three unbounded lists per HPA: recommendations, scale-up events and
//! scale-down events, each reusing "old" slots in place. For recommendations only the
//! timestamps and values decide anything; for scale events the slots matter too (see "Scale
//! events" below). Here the recommendations and the events each live in a time-ordered ring of
//! variable-length entries in a fixed byte array (`R` bytes of recommendations, `E` bytes of
//! scale events) that drops entries no valid spec can ever count again (recommendations older
//! than the longest possible window, scale events older than the longest possible policy
//! period, 1800 s). While a ring has room, every decision equals the one upstream's lists
//! give.
//!
//! # Encoding
//!
//! A ring's header holds the instants (`i64` milliseconds) of its oldest and newest entries;
//! each entry is two varints (LEB128: 7 bits a byte, the high bit set on all bytes but the
//! last): the gap in milliseconds since the previous entry of the ring, then the value code. A
//! recommendation's code is its replica count zigzag-encoded; a scale event's is its signed
//! replica change zigzag-encoded, shifted left by `SLOT_BITS` (7) over its slot in its list
//! (`event_code`). The oldest entry has no gap (its instant is in the header), and when it
//! leaves, the next entry's gap moves into the header. The gap is coded around the 15 s sync
//! period: gaps below 30 s are stored as the zigzag of `gap - 15 s`, in two bytes from 6.808 s
//! to 23.191 s (a code below 128 gets a zero second byte); longer gaps are stored as they are
//! (three bytes up to 35 minutes). Always two bytes, not one near 15 s: so the length of an
//! entry does not follow the timing's jitter, and runs of entries are read several at a time
//! (a one-byte form for 15 s ± 63 ms would save a byte an entry, and made a 3600 s scan twice
//! as slow with ±100 ms of jitter). A typical recommendation (15 s period, fewer than 64
//! replicas) is 3 bytes, 4 with 64 to 8,191 replicas; a scale event is 4 bytes for a change
//! below 64, 5 up to 8,191.
//!
//! Entries stay contiguous: the live bytes are `bytes[head..tail]`, appended at `tail` and
//! taken from `head`, and moved back to the start when the longest entry might not fit at the
//! end (a `heapless::Deque<u8, N>` would wrap entries around its end, so that every decode
//! would check for the wrap; `heapless` still holds the engine's other fixed lists). The code
//! works on byte slices, shared by every capacity. A scan first finds the oldest entry of its
//! window or period by adding up gaps from the end nearer in time (few entries for a short
//! window, none when the window covers the whole ring), then reads only the values from there
//! on: recommendations in runs of two-byte gaps with one- or two-byte values 24 bytes (8 or 6
//! entries) at a time, other entries one by one (on 64-bit hosts; smaller targets read every
//! entry one by one, which takes less code).
//!
//! # Scale events
//!
//! Upstream's `storeScaleEvent` (docs/spec/history.md#scale-events) first marks the events of the
//! change's direction before `now - longest policy period` (of that direction) as outdated, a flag
//! it never clears, then overwrites the last outdated slot of that direction's list, or appends
//! when none is outdated. An overwritten event is gone for good, also for the other direction's
//! policies, which read both lists with their own, possibly longer, periods. Which event goes
//! depends on the slots, and the slots are not in time order. So each event in the ring carries its
//! slot, and `EventLists` holds the rest of upstream's lists: each list's length, and the latest
//! cutoff of its stores (the flagged events are exactly those before it). A slot that no ring entry
//! holds holds an event older than the retention: outdated, counted by no period. The event a store
//! overwrites keeps its place in the ring with a change of 0 (its code zeroed in place, same
//! length), and expires with its neighbours. A failed rescale stores nothing. The unit tests
//! compare this with a model of upstream's lists over random stores (with periods that change
//! between them, as when an HPA is edited).
//!
//! # Capacity guarantee
//!
//! At the defaults ([`DEFAULT_RECOMMENDATION_BYTES`], [`DEFAULT_EVENT_BYTES`]) nothing is ever
//! folded, and every result equals upstream's, when evaluations are at least 15 s apart and
//! replica counts are at most [`GUARANTEED_REPLICAS`] (8,191; replica changes are then at
//! most 8,191 too), with the default legacy window (any window up to 3600 s). The worst case
//! over all such timings: a ring holds the entries of a closed window (3600 s of
//! recommendations, 1800 s of events), each value takes 2 bytes (3 for an event: its change
//! and its slot, below 128 as a list holds at most 121 events younger than 1800 s), and every
//! gap is 15 s (two bytes; the shortest three-byte gap, 23.192 s, costs more time than its
//! byte is worth). That is 962 bytes of recommendations, plus 5 for the first evaluation's two
//! entries at one instant (the seeded current count and the first recommendation, a
//! three-byte zero gap), and 603 bytes of events (121 events). 8,191 is as far as the
//! defaults go: one more byte a value would need 1,209 and 724 bytes. The unit tests below
//! compute these figures over every timing; `tests/history_capacity.rs` drives the engine
//! through the worst case (the rings reach exactly 967 and 603 bytes, fold nothing and equal
//! upstream), and through rings one byte smaller and counts above 8,191, which fold
//! (conservatively, and reported whenever a folded entry changed a result). Typical histories
//! fit longer: at 3 bytes an entry, the default rings hold 333 recommendations (83 minutes at
//! 15 s); at 4 bytes, 152 scale events (38 minutes of a rescale every 15 s; rescales are
//! usually much sparser).
//!
//! # Overflow
//!
//! When an entry does not fit, the oldest entries are folded into a summary instead of being
//! lost. Summaries come in up to [`GENERATIONS`] generations per ring, each covering one cell
//! of a grid of spans 1/7 of the retention (515 s of recommendations, 258 s of events at the
//! defaults): recommendations keep their minimum and maximum with the newest folded instant,
//! events their sums. A folded entry therefore stays visible less than one span longer than
//! upstream's would, which only ever holds the replica count back (more stabilization, smaller
//! scale-up and scale-down budgets): the conservative choice. When a new generation is needed
//! and all are in use, the oldest one is merged into the next (at one retention for every
//! call, the oldest is then older than the whole retention span, but a merge stays
//! conservative whatever the spans were). Every result that a summary influenced is reported
//! as `overflowed`. A folded event's slot counts as free (outdated), where upstream may still
//! hold a recent event, so a later store may overwrite another event than upstream's: while
//! any event is folded, every policy period is reported as `overflowed`. An event whose slot
//! does not fit 7 bits (a list of more than 128 events younger than its longest period, only
//! possible with evaluations less than 15 s apart) is folded too.

use core::fmt;

use crate::time::{Duration, Instant, ZeroIsMin};

/// The longest policy period Kubernetes accepts; older events never count again.
pub(crate) const EVENT_RETENTION: Duration = Duration::from_secs(1800);

/// The longest behavior stabilization window Kubernetes accepts.
pub(crate) const BEHAVIOR_WINDOW_LIMIT: Duration = Duration::from_secs(3600);

/// Default recommendation ring capacity in bytes: every recommendation of a 3600 s window
/// (967 bytes at worst, see the module docs), with room to spare.
pub const DEFAULT_RECOMMENDATION_BYTES: usize = 1000;

/// Default scale-event ring capacity in bytes: every scale event of the longest policy period
/// (1800 s; 482 bytes at worst), with room to spare.
pub const DEFAULT_EVENT_BYTES: usize = 608;

/// The largest replica count (and replica change) the default capacities are guaranteed to
/// hold without folding, at evaluations at least 15 s apart: its zigzag code has two bytes.
pub const GUARANTEED_REPLICAS: i32 = 8191;

/// The most bytes one entry takes: a 64-bit gap (10 bytes) and a value code of up to 39 bits
/// (6 bytes: a scale event's 32-bit change and 7-bit list slot).
pub const MAX_ENTRY_BYTES: usize = 16;

/// How many summary generations each ring keeps.
pub const GENERATIONS: usize = 8;

/// The sync period gaps are coded around (the controller's default).
const PERIOD_MS: u64 = 15_000;

/// [`PERIOD_MS`] for the 32-bit arithmetic of the short codes.
const PERIOD_MS_I32: i32 = PERIOD_MS as i32;

/// Gaps and codes below this are short (see [`gap_code`]).
const SHORT: u32 = 2 * PERIOD_MS as u32;

/// Gaps near the sync period get the short codes: a gap below `2 * PERIOD_MS` is coded as
/// the zigzag of `gap - PERIOD_MS` (codes below 30000), a longer gap as itself. A bijection
/// on `u64`. The short codes in 32 bits: 64-bit arithmetic is several instructions an
/// operation on a 32-bit target.
fn gap_code(gap: u64) -> u64 {
    match u32::try_from(gap) {
        // Cannot overflow: `gap` is below 2 * PERIOD_MS.
        Ok(short) if short < SHORT => zigzag(short.cast_signed().wrapping_sub(PERIOD_MS_I32)),
        _ => gap,
    }
}

/// The inverse of [`gap_code`].
fn gap_from_code(code: u64) -> u64 {
    match u32::try_from(code) {
        // Cannot overflow: the result is below 2 * PERIOD_MS, and not negative.
        Ok(short) if short < SHORT => u64::from(
            unzigzag32(short)
                .wrapping_add(PERIOD_MS_I32)
                .cast_unsigned(),
        ),
        _ => code,
    }
}

/// Small magnitudes of either sign get small codes: 0, -1, 1, -2, ... become 0, 1, 2, 3, ...
fn zigzag(v: i32) -> u64 {
    let bits = v.cast_unsigned();
    let sign = if v < 0 { u32::MAX } else { 0 };
    u64::from(bits.wrapping_shl(1) ^ sign)
}

/// The inverse of [`zigzag`] (codes come from it: they fit 32 bits, so the low 32 bits are
/// the code; no compare of the high word).
fn unzigzag(code: u64) -> i32 {
    unzigzag32(code as u32)
}

/// [`unzigzag`] of a code known to fit 32 bits.
#[inline(always)]
fn unzigzag32(code: u32) -> i32 {
    (code.wrapping_shr(1) ^ (code & 1).wrapping_neg()).cast_signed()
}

/// The bytes `v` takes as a varint of at least `min` bytes, as [`put_varint_min`] writes it.
#[cfg(test)]
fn written_len(v: u64, min: u8) -> usize {
    let mut bytes = [0; MAX_ENTRY_BYTES];
    let mut out = bytes.iter_mut();
    assert!(put_varint_min(&mut out, v, min));
    MAX_ENTRY_BYTES.saturating_sub(out.len())
}

/// The bytes `v` takes as a varint, as written.
#[cfg(test)]
fn varint_len(v: u64) -> usize {
    written_len(v, 1)
}

/// The bytes a gap code takes as written: its varint, but at least two bytes, so that the
/// usual gaps all have the same length (see the module docs).
#[cfg(test)]
fn gap_len(code: u64) -> usize {
    written_len(code, 2)
}

/// Writes a gap code as a varint of at least two bytes: a one-byte code gets a zero second
/// byte (a longer form of the same LEB128 number, which every decoder here reads).
#[cfg(test)]
fn put_gap(out: &mut core::slice::IterMut<'_, u8>, code: u64) {
    assert!(put_varint_min(out, code, 2));
}

/// Writes `v` as a varint into the next bytes of `out`.
#[cfg(test)]
fn put_varint(out: &mut core::slice::IterMut<'_, u8>, v: u64) {
    assert!(put_varint_min(out, v, 1));
}

/// Writes `v` as a varint of at least `min` bytes (zero high groups as needed) into the next
/// bytes of `out`; false if they ran out. One routine for gaps and values.
fn put_varint_min(out: &mut core::slice::IterMut<'_, u8>, mut v: u64, mut min: u8) -> bool {
    for slot in out {
        let low = u8::try_from(v & 0x7f).unwrap_or(0);
        v = v.wrapping_shr(7);
        min = min.saturating_sub(1);
        let more = v != 0 || min > 0;
        *slot = if more { low | 0x80 } else { low };
        if !more {
            return true;
        }
    }
    false
}

/// The high bit of each byte of a `u64`: set on all bytes of a varint but its last.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// Moves past the varint at the start of `rest`; false at the end. On small targets the
/// decoder does it (one routine less); the host skips without decoding.
#[inline]
fn skip_varint(rest: &mut &[u8]) -> bool {
    if cfg!(target_pointer_width = "64") {
        skip_varint_bytes(rest)
    } else {
        take_front(rest).is_some()
    }
}

/// [`skip_varint`] without decoding.
#[inline]
fn skip_varint_bytes(rest: &mut &[u8]) -> bool {
    while let Some((&b, after)) = rest.split_first() {
        *rest = after;
        if b < 0x80 {
            return true;
        }
    }
    false
}

/// Decodes the varint at the start of `rest` and moves past it.
#[inline]
fn take_front(rest: &mut &[u8]) -> Option<u64> {
    let (&first, after) = rest.split_first()?;
    if first < 0x80 {
        *rest = after;
        return Some(u64::from(first));
    }
    take_front_long(rest)
}

/// [`take_front`] past its first byte.
fn take_front_long(rest: &mut &[u8]) -> Option<u64> {
    let end = rest.iter().position(|&b| b < 0x80)?;
    let (varint, after) = rest.split_at_checked(end.saturating_add(1))?;
    *rest = after;
    Some(varint_value(varint))
}

/// Decodes the varint at the end of `rest` and moves before it: its last byte is the one with
/// the high bit clear, its earlier bytes are the ones before it with the high bit set.
fn take_back(rest: &mut &[u8]) -> Option<u64> {
    let (_, before) = rest.split_last()?;
    let start = before
        .iter()
        .rposition(|&b| b < 0x80)
        .map_or(0, |i| i.saturating_add(1));
    let (before, varint) = rest.split_at_checked(start)?;
    *rest = before;
    Some(varint_value(varint))
}

/// The value of the varint `varint`, from its last byte on: shifts by a constant, which a
/// 32-bit target does inline (a variable 64-bit shift is a call).
fn varint_value(varint: &[u8]) -> u64 {
    // At most 10 bytes: the first group shifted in ends at bit 63.
    varint
        .iter()
        .rev()
        .fold(0, |v, &b| v.wrapping_shl(7) | u64::from(b & 0x7f))
}

/// A time-ordered ring of `(instant, value)` entries in `N` bytes (see the module docs). The
/// code works on [`Region`] and a byte slice, so that it is shared by every capacity.
#[derive(Clone)]
struct Ring<const N: usize> {
    region: Region,
    bytes: [u8; N],
}

impl<const N: usize> Ring<N> {
    /// Positions are `u32`.
    const CAPACITY_FITS: () = assert!(N <= u32::MAX as usize, "a ring holds at most 4 GiB");

    const fn new() -> Self {
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
    fn live(&self) -> &[u8] {
        self.region.live(&self.bytes)
    }

    fn used(&self) -> usize {
        self.region.used()
    }

    #[cfg(test)]
    fn push(&mut self, at: i64, code: u64) -> bool {
        self.region.push(&mut self.bytes, at, code)
    }

    #[cfg(test)]
    fn pop_front(&mut self) -> Option<(i64, u64)> {
        self.region.pop_front(&self.bytes)
    }

    #[inline]
    fn seek(&self, from: i64) -> usize {
        self.region.seek::<BOTH_ENDS>(&self.bytes, from)
    }

    /// The totals of the entries from byte offset `start` (from [`Ring::seek`]) to `end`.
    #[inline]
    fn totals(&self, start: usize, end: usize, sums: bool) -> Totals {
        totals::<RUNS>(&self.region, &self.bytes, start, end, sums)
    }

    /// The entries as `(instant, value code)`, oldest first.
    fn iter(&self) -> RingIter<'_> {
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
struct Region {
    /// Instants of the oldest and newest entries (meaningless when empty).
    front: i64,
    back: i64,
    /// The live bytes are `bytes[head..tail]`; empty when equal.
    head: u32,
    tail: u32,
}

impl Region {
    fn live<'a>(&self, bytes: &'a [u8]) -> &'a [u8] {
        bytes
            .get(self.head as usize..self.tail as usize)
            .unwrap_or(&[])
    }

    fn is_empty(&self) -> bool {
        self.head == self.tail
    }

    fn used(&self) -> usize {
        self.tail.saturating_sub(self.head) as usize
    }

    /// Appends `(at, code)` to `bytes` if it fits, and returns whether it did. An entry
    /// earlier than the newest one is recorded at the newest one's instant (the rings are
    /// time-ordered; the engine never goes back in time).
    fn push(&mut self, bytes: &mut [u8], at: i64, code: u64) -> bool {
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
    fn pop_front(&mut self, bytes: &[u8]) -> Option<(i64, u64)> {
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
    /// length of the live bytes when there is none. With `BOTH_ENDS` (see [`BOTH_ENDS`]),
    /// walks from the end nearer in time, so that a window covering most of the ring costs
    /// little more than one covering a few entries; without, from the oldest entry.
    fn seek<const BOTH_ENDS: bool>(&self, bytes: &[u8], from: i64) -> usize {
        // An empty ring has no live bytes: every path below gives 0.
        let live = self.live(bytes);
        if from <= self.front {
            return 0;
        }
        if from > self.back {
            return live.len();
        }
        let mut rest = live;
        if !BOTH_ENDS || from.abs_diff(self.front) <= self.back.abs_diff(from) {
            // Oldest first: skip the front's value, then each entry's gap and value.
            let mut at = self.front;
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
        } else {
            // Newest first: the entry at `at` is not before `from`; stop at the first one
            // whose predecessor is.
            let mut at = self.back;
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
    }
}

/// Iterator over a ring's entries as `(instant, value code)`, oldest first.
struct RingIter<'a> {
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

/// Bits of a scale event's code that hold its list slot (see [`event_code`]).
const SLOT_BITS: u32 = 7;

/// The value code of a scale event: its change zigzag-coded, above its list slot (below
/// `1 << SLOT_BITS`). One varint, as a recommendation's value: the ring code is shared, and an
/// event of a change below 64 in a slot below 128 takes two bytes, as with the slot apart.
fn event_code(change: i32, slot: u32) -> u64 {
    zigzag(change).wrapping_shl(SLOT_BITS) | u64::from(slot)
}

/// The change of a scale event's code (0 for an overwritten event).
fn event_change(code: u64) -> i32 {
    unzigzag(code.wrapping_shr(SLOT_BITS))
}

/// The list slot of a scale event's code.
fn event_slot(code: u64) -> u32 {
    (code & ((1 << SLOT_BITS) - 1)) as u32
}

/// Whether [`Region::seek`] may walk from the newest entry: on 64-bit hosts, where it keeps
/// short windows and periods cheap. Small targets always walk from the oldest: less code.
const BOTH_ENDS: bool = cfg!(target_pointer_width = "64");

/// Whether [`totals`] reads runs of entries a block at a time: on 64-bit hosts, where the
/// scans are the hot path. Small targets read every entry one by one: less code.
const RUNS: bool = cfg!(target_pointer_width = "64");

/// What the values of some entries add up to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Totals {
    /// The lowest and highest value (`i32::MAX` and `i32::MIN` without entries).
    low: i32,
    high: i32,
    /// The sums of the positive values and of the negated negative ones, if asked for,
    /// saturated to `i32::MAX`: every term is non-negative, so saturating each addition
    /// equals saturating the exact sum (which is all [`History::changes_in_period`] keeps),
    /// and 32-bit sums take less code than 64-bit ones on a 32-bit target.
    added: i32,
    deleted: i32,
    sums: bool,
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
fn totals<const RUNS: bool>(
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

/// What one generation of folded (evicted) entries still contributes: for recommendations
/// the lowest (`a`) and highest (`b`) replicas, for scale events the replicas added (`a`) and
/// deleted (`b`); `at` is the newest folded instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Summary {
    at: i64,
    a: i32,
    b: i32,
}

impl Summary {
    const EMPTY: Summary = Summary { at: 0, a: 0, b: 0 };

    fn recommendation(at: i64, replicas: i32) -> Summary {
        Summary {
            at,
            a: replicas,
            b: replicas,
        }
    }

    fn event(at: i64, change: i32) -> Summary {
        let (added, deleted) = if change > 0 {
            (change, 0)
        } else {
            (0, change.saturating_neg())
        };
        Summary {
            at,
            a: added,
            b: deleted,
        }
    }

    fn merge_recommendations(&mut self, other: Summary) {
        self.at = self.at.max(other.at);
        self.a = self.a.min(other.a);
        self.b = self.b.max(other.b);
    }

    fn merge_events(&mut self, other: Summary) {
        self.at = self.at.max(other.at);
        self.a = self.a.saturating_add(other.a);
        self.b = self.b.saturating_add(other.b);
    }
}

/// Which list a ring holds: how its evicted entries are summarized.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Recommendations,
    Events,
}

impl Kind {
    /// The value of an entry's code.
    fn value(self, code: u64) -> i32 {
        match self {
            Kind::Recommendations => unzigzag(code),
            Kind::Events => event_change(code),
        }
    }
}

impl Summary {
    fn start(kind: Kind, at: i64, value: i32) -> Summary {
        match kind {
            Kind::Recommendations => Summary::recommendation(at, value),
            Kind::Events => Summary::event(at, value),
        }
    }

    fn merge(&mut self, kind: Kind, other: Summary) {
        match kind {
            Kind::Recommendations => self.merge_recommendations(other),
            Kind::Events => self.merge_events(other),
        }
    }
}

/// Up to [`GENERATIONS`] summaries, oldest first: `slots[..len]`. Dropping the oldest moves
/// the others (a few times per retention at most), so that every look-up is an index.
#[derive(Clone)]
struct Generations {
    slots: [Summary; GENERATIONS],
    len: u8,
}

impl Generations {
    const fn new() -> Self {
        Generations {
            slots: [Summary::EMPTY; GENERATIONS],
            len: 0,
        }
    }

    /// The summaries, oldest first.
    fn iter(&self) -> core::slice::Iter<'_, Summary> {
        self.slots
            .get(..usize::from(self.len))
            .unwrap_or(&[])
            .iter()
    }

    fn newest_mut(&mut self) -> Option<&mut Summary> {
        self.slots.get_mut(usize::from(self.len).wrapping_sub(1))
    }

    /// Drops the oldest summary.
    fn drop_oldest(&mut self) {
        let len = usize::from(self.len);
        for i in 1..len {
            if let Some(&next) = self.slots.get(i) {
                if let Some(slot) = self.slots.get_mut(i.wrapping_sub(1)) {
                    *slot = next;
                }
            }
        }
        self.len = self.len.saturating_sub(1);
    }

    /// Keeps the generations not before `from` (`None`: none is kept).
    fn prune(&mut self, from: Option<i64>) {
        while self.len > 0 {
            let [oldest, ..] = &self.slots;
            if from.is_some_and(|from| oldest.at >= from) {
                break;
            }
            self.drop_oldest();
        }
    }

    /// [`Generations::fold`] of an evicted entry of a ring with this retention. Not inlined:
    /// one call site for the entries folded and the entry that fits no ring.
    #[inline(never)]
    fn fold_entry(&mut self, kind: Kind, at: i64, code: u64, retention: Duration) {
        self.fold(
            Summary::start(kind, at, kind.value(code)),
            generation_span(retention),
            kind,
        );
    }

    /// Adds an evicted entry to the newest generation when it falls in the same grid cell of
    /// `span` milliseconds (see [`generation_span`]), or starts a new one.
    fn fold(&mut self, entry: Summary, span: u64, kind: Kind) {
        if let Some(newest) = self.newest_mut() {
            // Cells counted from i64::MIN, so that the division is unsigned; one division:
            // the entry is in the newest's cell when it is less than `span` past its start.
            let (newest_at, at) = (newest.at.abs_diff(i64::MIN), entry.at.abs_diff(i64::MIN));
            let cell_start = newest_at.wrapping_sub(newest_at.checked_rem(span).unwrap_or(0));
            if at.checked_sub(cell_start).is_some_and(|past| past < span) {
                newest.merge(kind, entry);
                return;
            }
        }
        if usize::from(self.len) == GENERATIONS {
            // All in use: merge the oldest into the next one.
            let [oldest, next, ..] = &mut self.slots;
            next.merge(kind, *oldest);
            self.drop_oldest();
        }
        if let Some(slot) = self.slots.get_mut(usize::from(self.len)) {
            *slot = entry;
            self.len = self.len.saturating_add(1);
        }
    }
}

impl fmt::Debug for Generations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The span of one generation's grid cell: 1/(GENERATIONS - 1) of the retention, rounded up,
/// so that GENERATIONS distinct cells span more than the retention (at least 1 ms).
fn generation_span(retention: Duration) -> u64 {
    const SPANS: u64 = GENERATIONS as u64 - 1;
    // Cannot overflow: at most i64::MAX + SPANS - 1. One division, no remainder.
    let millis = retention.as_millis().max(1).unsigned_abs();
    millis.wrapping_add(SPANS - 1) / SPANS
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
fn first_after(now: Instant, window: Duration) -> Option<i64> {
    first_in(now, window, true)
}

/// The lowest instant not before `now - window`, `None` when no `i64` instant is.
#[inline(always)]
fn first_not_before(now: Instant, window: Duration) -> Option<i64> {
    first_in(now, window, false)
}

/// Drops the entries before `now - retention` (and the summaries), then appends `(at, code)`,
/// folding the oldest entries while it does not fit (and the entry itself if it does not fit an
/// empty ring). A scale event that an upstream list overwrote (change 0, see
/// [`History::record_scale_event`]) folds into a summary that adds nothing.
fn record(
    region: &mut Region,
    bytes: &mut [u8],
    folded: &mut Generations,
    kind: Kind,
    at: Instant,
    code: u64,
    retention: Duration,
) {
    let keep_from = first_not_before(at, retention);
    while !region.is_empty() && keep_from.is_none_or(|from| region.front < from) {
        region.pop_front(bytes);
    }
    folded.prune(keep_from);
    let at = at.millis();
    while !region.push(bytes, at, code) {
        // The oldest entry, or the entry itself when it does not fit an empty ring either.
        let popped = region.pop_front(bytes);
        let (old_at, old) = popped.unwrap_or((at, code));
        folded.fold_entry(kind, old_at, old, retention);
        if popped.is_none() {
            return;
        }
    }
}

/// Which of upstream's two scale-event lists: `scaleUpEvents` or `scaleDownEvents`. Also the
/// direction of a policy limit (docs/spec/normalization.md#period-start), which reads both lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Direction {
    /// Scale-up events (or the scale-up limit).
    Up,
    /// Scale-down events (or the scale-down limit).
    Down,
}

impl Direction {
    /// The list a replica change is stored in.
    fn of(change: i32) -> Direction {
        if change > 0 {
            Direction::Up
        } else {
            Direction::Down
        }
    }

    /// Whether a stored (signed) change belongs to this list; 0 (overwritten) to none.
    fn holds(self, change: i32) -> bool {
        match self {
            Direction::Up => change > 0,
            Direction::Down => change < 0,
        }
    }
}

/// One entry of upstream's `scaleUpEvents` or `scaleDownEvents` list
/// (docs/spec/history.md#scale-events).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ScaleEvent {
    /// Replicas added (scale-up list) or removed (scale-down list): positive.
    pub change: i32,
    /// When the rescale happened.
    pub at: Instant,
    /// Upstream's flag: the event was older than its direction's longest policy period when
    /// an event of that direction was last stored. Outdated slots are the ones upstream
    /// overwrites; the flag does not change what an event counts for.
    pub outdated: bool,
}

/// Why [`History::load`] refused a history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LoadError {
    /// A scale event's change is zero or negative (upstream stores positive changes).
    ChangeNotPositive {
        /// The list.
        list: Direction,
        /// The event's slot in it.
        slot: usize,
    },
    /// An event that is not outdated is older than an outdated one of the same list, which
    /// upstream's marking never leaves behind.
    OutdatedNotOldest {
        /// The list.
        list: Direction,
        /// The slot of the event that is not outdated.
        slot: usize,
    },
    /// A list has more than `u32::MAX` slots.
    TooLong {
        /// The list.
        list: Direction,
    },
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Direction::Up => "scaleUpEvents",
            Direction::Down => "scaleDownEvents",
        })
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::ChangeNotPositive { list, slot } => {
                write!(f, "{list}[{slot}]: the replica change must be positive")
            }
            LoadError::OutdatedNotOldest { list, slot } => write!(
                f,
                "{list}[{slot}]: not outdated, but older than an outdated event of the list"
            ),
            LoadError::TooLong { list } => write!(f, "{list}: more than 2^32 - 1 slots"),
        }
    }
}

/// What upstream's two scale-event lists (up, down) hold beyond the ring's entries: each
/// event in the ring carries its slot, its index in its list (docs/spec/history.md#scale-events).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct EventLists {
    /// Each list's length. A slot that no ring entry holds holds an event older than the
    /// retention (or folded): upstream still has it, outdated, and never counts it again.
    len: [u32; 2],
    /// Each list's events before this instant are outdated: upstream flags the events before
    /// `now - longest period` at each store in the list and never clears a flag, and an
    /// event stored later is never before an earlier store's cutoff, so the flagged events
    /// are exactly those before the latest cutoff (`i64::MIN`: none).
    outdated_before: [ZeroIsMin; 2],
}

impl EventLists {
    const NEW: EventLists = EventLists {
        len: [0; 2],
        outdated_before: [ZeroIsMin::MIN; 2],
    };

    /// List `d`'s length and outdated-before instant.
    fn list_mut(&mut self, d: Direction) -> (&mut u32, &mut ZeroIsMin) {
        let ([up, down], [up_before, down_before]) = (&mut self.len, &mut self.outdated_before);
        match d {
            Direction::Up => (up, up_before),
            Direction::Down => (down, down_before),
        }
    }

    /// List `d`'s length and outdated-before instant.
    fn list(&self, d: Direction) -> (u32, i64) {
        let ([up, down], [up_before, down_before]) = (self.len, self.outdated_before);
        match d {
            Direction::Up => (up, up_before.millis()),
            Direction::Down => (down, down_before.millis()),
        }
    }
}

/// Takes the slot upstream overwrites when it stores an event in list `d` of length `len`
/// (docs/spec/history.md#scale-events): the last (highest) outdated slot, or `len` to append. A
/// slot is outdated when the ring (live bytes `live`) holds an event of the list before byte offset
/// `outdated_end` in it (the ring is time-ordered: the events before an instant are a prefix), or
/// no event at all (that event is older than the retention, or was folded: outdated). The entry in
/// the slot taken, if any, is overwritten with a change of 0 (see [`zero_varint`]). One pass over
/// the ring; slots fit [`SLOT_BITS`], so those held fit a 128-bit set.
#[inline(never)]
fn take_slot(live: &mut [u8], d: Direction, outdated_end: usize, len: u32) -> u32 {
    let mut held = [0_u32; 4];
    // The highest outdated slot held, plus one (0: none), and its code's bytes.
    let (mut above, mut start, mut end) = (0_u32, 0, 0);
    let entries: &[u8] = live;
    let mut rest = entries;
    // Every entry but the oldest starts with its gap.
    let mut first = true;
    loop {
        if !first && !skip_varint(&mut rest) {
            break;
        }
        first = false;
        let offset = entries.len().wrapping_sub(rest.len());
        let Some(code) = take_front(&mut rest) else {
            break;
        };
        if d.holds(event_change(code)) {
            let slot = event_slot(code);
            if let Some(word) = held.get_mut((slot >> 5) as usize) {
                *word |= 1_u32.wrapping_shl(slot);
            }
            if offset < outdated_end && slot >= above {
                (above, start, end) = (
                    slot.wrapping_add(1),
                    offset,
                    entries.len().wrapping_sub(rest.len()),
                );
            }
        }
    }
    // A slot above the last outdated one that no entry holds wins.
    let mut slot = len;
    while slot > above {
        slot = slot.wrapping_sub(1);
        let taken = held.get((slot >> 5) as usize);
        if taken.is_none_or(|word| word & 1_u32.wrapping_shl(slot) == 0) {
            return slot;
        }
    }
    match above.checked_sub(1) {
        Some(slot) => {
            zero_varint(live, start, end);
            slot
        }
        None => len,
    }
}

/// Overwrites the varint at `bytes[start..end]` with a zero of the same length (a zero with
/// high groups of zeros, which every decoder here reads as 0): the entry keeps its place in the
/// ring and counts for nothing.
fn zero_varint(bytes: &mut [u8], start: usize, end: usize) {
    if let Some((last, high)) = bytes.get_mut(start..end).and_then(|v| v.split_last_mut()) {
        *last = 0;
        for b in high {
            *b = 0x80;
        }
    }
}

/// Whether [`History::stabilize`] reads both windows in one pass: on 64-bit hosts, where
/// the scans are the hot path. Small targets read each window with [`window`]: less code.
const ONE_PASS: bool = cfg!(target_pointer_width = "64");

/// What the entries of a window add up to: the stored ones, and the folded ones merged as
/// their ring's kind (see [`Summary::merge`]). `repr(C)`: [`totals`] writes `stored` in
/// place.
#[repr(C)]
struct Window {
    stored: Totals,
    /// The lowest (`a`) and highest (`b`) folded recommendation, or the replicas added (`a`)
    /// and deleted (`b`) by folded events: `i32::MAX`, `i32::MIN` or zeros without any.
    folded_a: i32,
    folded_b: i32,
    /// Some summary falls in the window.
    any_folded: bool,
}

/// The [`Window`] of the entries of a ring of `kind` not before `from` (none for `None`):
/// `added` and `deleted` only for events. Not inlined on small targets: one routine for the
/// stabilizations and the policy periods.
#[cfg_attr(not(target_pointer_width = "64"), inline(never))]
fn window(
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
fn folded_in(generations: &Generations, events: bool, from: Option<i64>) -> (i32, i32, bool) {
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

/// Replica changes counted for one policy period.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct PeriodChanges {
    pub added: i32,
    pub deleted: i32,
    pub overflowed: bool,
}

/// Which stabilization [`History::stabilize`] does.
#[derive(Clone, Copy)]
pub(crate) enum Stabilization {
    /// The legacy path's downscale window.
    Legacy(Duration),
    /// A behavior's scale-up and scale-down windows.
    Behavior(Duration, Duration),
}

/// The bounds a stabilization found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stabilized {
    pub replicas: i32,
    pub overflowed: bool,
    /// `replicas` is `current` clamped into `[low, high]` (for explanations).
    pub low: i32,
    pub high: i32,
}

/// Both histories of one HPA: `R` bytes of recommendations, `E` bytes of scale events (see
/// the module docs for what they hold).
#[derive(Clone, Debug)]
pub struct History<const R: usize, const E: usize> {
    recommendations: Ring<R>,
    events: Ring<E>,
    folded_recommendations: Generations,
    folded_events: Generations,
    /// What upstream's scale-event lists hold beyond the ring's entries.
    lists: EventLists,
    /// Upstream has a list (possibly empty); a new HPA has none, and its first evaluation
    /// seeds `(current, now)`.
    seeded: bool,
}

impl<const R: usize, const E: usize> Default for History<R, E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const R: usize, const E: usize> History<R, E> {
    /// An empty, unseeded history.
    pub const fn new() -> Self {
        History {
            recommendations: Ring::new(),
            events: Ring::new(),
            folded_recommendations: Generations::new(),
            folded_events: Generations::new(),
            lists: EventLists::NEW,
            seeded: false,
        }
    }

    /// Appends a recommendation, dropping entries older than `retention` and folding the
    /// oldest ones when the ring is full.
    pub(crate) fn push_recommendation(&mut self, replicas: i32, now: Instant, retention: Duration) {
        self.seeded = true;
        let ring = &mut self.recommendations;
        record(
            &mut ring.region,
            &mut ring.bytes,
            &mut self.folded_recommendations,
            Kind::Recommendations,
            now,
            zigzag(replicas),
            retention,
        );
    }

    /// Seeds `(current, now)` if upstream would have no list yet.
    pub(crate) fn seed(&mut self, current: i32, now: Instant, retention: Duration) {
        if !self.seeded {
            self.push_recommendation(current, now, retention);
        }
    }

    /// Stabilization; the caller then records `desired` (one call for both paths).
    ///
    /// Legacy (docs/spec/normalization.md#legacy-stabilization): the maximum of `desired` and every
    /// recommendation not before `now - window`. When folded recommendations fall in the window,
    /// upstream's maximum lies somewhere between the ring's maximum and the summary's `high`; the
    /// result is then `current` clamped into that range, which never moves further than upstream (a
    /// stale high value must not scale the target up) and is reported as overflowed.
    ///
    /// Behavior (docs/spec/normalization.md#behavior-stabilization): `current` clamped into
    /// `[min over the up window, max over the down window]` (both including `desired`).
    ///
    /// One routine: the legacy path is the behavior's scale-down half without a scale-up
    /// window, its lower bound raised to the upper one.
    pub(crate) fn stabilize(
        &self,
        desired: i32,
        current: i32,
        now: Instant,
        windows: Stabilization,
    ) -> Stabilized {
        let (up_from, down_from) = match windows {
            Stabilization::Legacy(window) => (None, first_not_before(now, window)),
            Stabilization::Behavior(up, down) => (first_after(now, up), first_after(now, down)),
        };
        let legacy = matches!(windows, Stabilization::Legacy(_));
        let (mut up, mut down) = (desired, desired);
        let (folded_up, folded_down);
        if ONE_PASS && !legacy {
            let ring = &self.recommendations;
            let end = ring.used();
            let (up_start, down_start) = (
                up_from.map_or(end, |from| ring.seek(from)),
                down_from.map_or(end, |from| ring.seek(from)),
            );
            // One pass: the longer window's own part, then the part both windows cover.
            let both = up_start.max(down_start);
            let shorter = ring.totals(both, end, false);
            let longer = ring.totals(up_start.min(down_start), both, false);
            up = up.min(shorter.low);
            down = down.max(shorter.high);
            if up_start < both {
                up = up.min(longer.low);
            } else {
                down = down.max(longer.high);
            }
            let folded = &self.folded_recommendations;
            (folded_up, _, _) = folded_in(folded, false, up_from);
            (_, folded_down, _) = folded_in(folded, false, down_from);
        } else {
            // Each window on its own (the legacy path has no scale-up window: no scan).
            let u = self.recommendation_window(up_from);
            let d = self.recommendation_window(down_from);
            up = up.min(u.stored.low);
            down = down.max(d.stored.high);
            (folded_up, folded_down) = (u.folded_a, d.folded_b);
        }
        if legacy {
            up = down;
        }
        let stabilize = |low: i32, high: i32| current.max(low).min(high);
        let (exact_up, exact_down) = (up, down);
        (up, down) = (up.min(folded_up), down.max(folded_down));
        let replicas = stabilize(up, down);
        // The legacy path reports any folded maximum above the exact one.
        let overflowed = if legacy {
            down != up
        } else {
            replicas != stabilize(exact_up, exact_down)
        };
        Stabilized {
            replicas,
            overflowed,
            low: up,
            high: down,
        }
    }

    /// The [`Window`] of the recommendations not before `from` (none for `None`).
    #[inline]
    fn recommendation_window(&self, from: Option<i64>) -> Window {
        let ring = &self.recommendations;
        window(
            &ring.region,
            &ring.bytes,
            &self.folded_recommendations,
            Kind::Recommendations,
            from,
        )
    }

    /// Records a successful rescale from `old` to `new` replicas as upstream's
    /// `storeScaleEvent` does (docs/spec/history.md#scale-events): the events of the change's
    /// direction before `now - longest_period_seconds` (the longest policy period of that
    /// direction, never negative: `getLongestPolicyPeriod` starts at 0) become outdated, and the
    /// new event overwrites the last outdated slot of its list, or is appended. The overwritten
    /// event is gone, also for the other direction's periods. Not inlined: the caller's frame (the
    /// reconcile's, on the deepest stack path) would hold its locals.
    #[inline(never)]
    pub(crate) fn record_scale_event(
        &mut self,
        old: i32,
        new: i32,
        now: Instant,
        longest_period_seconds: i32,
    ) {
        // The exact difference, clamped to the `i32` range.
        let change = new.saturating_sub(old);
        if change == 0 {
            return;
        }
        let d = Direction::of(change);
        // Exact: at most 2^31 s is 2^41 ms, and an underflow saturates to the lowest instant,
        // which no event is before.
        let longest_ms = i64::from(longest_period_seconds).wrapping_mul(1000);
        let cutoff = now.millis().saturating_sub(longest_ms);
        let (len, outdated_before) = self.lists.list_mut(d);
        *outdated_before = (*outdated_before).max(ZeroIsMin::new(cutoff));
        // Events the retention drops now are outdated: choosing one before it is dropped
        // frees the same slot as choosing it after.
        let ring = &mut self.events;
        let region = ring.region;
        let outdated_end = region.seek::<BOTH_ENDS>(&ring.bytes, outdated_before.millis());
        let live = ring
            .bytes
            .get_mut(region.head as usize..region.tail as usize)
            .unwrap_or_default();
        let slot = take_slot(live, d, outdated_end, *len);
        if slot == *len {
            // Cannot overflow in practice: 2^32 rescales of one direction.
            *len = len.wrapping_add(1);
        }
        self.store_event(now, change, slot);
    }

    /// Records a scale event in `slot` of its list. A slot that does not fit the code is beyond
    /// the capacity guarantee (more than 128 events in one list younger than its longest
    /// period): the event is folded, as an event that does not fit the ring, and its slot
    /// then counts as free.
    fn store_event(&mut self, at: Instant, change: i32, slot: u32) {
        let folded = &mut self.folded_events;
        if slot >> SLOT_BITS != 0 {
            // Slot 0 in the code: the slot does not fit it, and summaries keep no slot.
            let code = event_code(change, 0);
            folded.fold_entry(Kind::Events, at.millis(), code, EVENT_RETENTION);
            return;
        }
        let ring = &mut self.events;
        record(
            &mut ring.region,
            &mut ring.bytes,
            folded,
            Kind::Events,
            at,
            event_code(change, slot),
            EVENT_RETENTION,
        );
    }

    /// Replicas added and deleted by events strictly after `now - period`
    /// (docs/spec/normalization.md#period-start).
    pub(crate) fn changes_in_period(
        &self,
        now: Instant,
        period: Duration,
        direction: Direction,
    ) -> PeriodChanges {
        let ring = &self.events;
        let w = window(
            &ring.region,
            &ring.bytes,
            &self.folded_events,
            Kind::Events,
            first_after(now, period),
        );
        let (mut added, mut deleted) = (w.stored.added, w.stored.deleted);
        // Count folded events only where they shrink this direction's budget. Either way
        // upstream may count them differently (folded events of the other direction would
        // widen it), so the decision is reported. Every count is non-negative: saturating
        // each addition saturates the exact sum.
        match direction {
            Direction::Up => added = added.saturating_add(w.folded_a),
            Direction::Down => deleted = deleted.saturating_add(w.folded_b),
        }
        PeriodChanges {
            added,
            deleted,
            overflowed: w.any_folded,
        }
    }

    /// Loads upstream history (conformance tests and migrations): the recommendations as
    /// `(replicas, instant)` in any order, and upstream's two scale-event lists slot by slot
    /// (`None` for an event older than this engine keeps, 1800 s, or unknown: outdated and
    /// counted for nothing). `seeded` says whether upstream had a recommendation list.
    /// Entries beyond the capacity are folded as usual.
    ///
    /// # Errors
    ///
    /// A change that is not positive, or outdated flags that upstream cannot produce (an
    /// outdated event not older than every event that is not outdated in its list); the
    /// history is then unchanged.
    pub fn load(
        &mut self,
        seeded: bool,
        recommendations: &[(i32, Instant)],
        scale_up_events: &[Option<ScaleEvent>],
        scale_down_events: &[Option<ScaleEvent>],
    ) -> Result<(), LoadError> {
        let lists = [
            (Direction::Up, scale_up_events),
            (Direction::Down, scale_down_events),
        ];
        let mut loaded = EventLists::NEW;
        for (d, list) in lists {
            let events = || {
                list.iter()
                    .enumerate()
                    .filter_map(|(i, e)| Some((i, (*e)?)))
            };
            let mut outdated_before = i64::MIN;
            for (slot, e) in events() {
                if e.change <= 0 {
                    return Err(LoadError::ChangeNotPositive { list: d, slot });
                }
                if e.outdated {
                    outdated_before = outdated_before.max(e.at.millis().saturating_add(1));
                }
            }
            if let Some((slot, _)) =
                events().find(|(_, e)| !e.outdated && e.at.millis() < outdated_before)
            {
                return Err(LoadError::OutdatedNotOldest { list: d, slot });
            }
            let (len, before) = loaded.list_mut(d);
            *len = u32::try_from(list.len()).map_err(|_| LoadError::TooLong { list: d })?;
            *before = ZeroIsMin::new(outdated_before);
        }
        *self = History::new();
        self.lists = loaded;
        let keep_all = Duration(i64::MAX);
        // Oldest first (the rings are time-ordered): a selection by (instant, position), which
        // needs no buffer.
        let mut last = None;
        while let Some((i, &(replicas, at))) = recommendations
            .iter()
            .enumerate()
            .filter(|(i, (_, at))| last.is_none_or(|l| (at.millis(), *i) > l))
            .min_by_key(|(i, (_, at))| (at.millis(), *i))
        {
            last = Some((at.millis(), i));
            self.push_recommendation(replicas, at, keep_all);
        }
        let mut last = None;
        loop {
            let next = lists
                .iter()
                .flat_map(|&(d, list)| {
                    list.iter()
                        .enumerate()
                        .filter_map(move |(slot, e)| Some((e.as_ref()?.at.millis(), d, slot, e)))
                })
                .filter(|&(at, d, slot, _)| last.is_none_or(|l| (at, d, slot) > l))
                .min_by_key(|&(at, d, slot, _)| (at, d, slot));
            let Some((at, d, slot, Some(e))) = next else {
                break;
            };
            last = Some((at, d, slot));
            let change = match d {
                Direction::Up => e.change,
                Direction::Down => e.change.saturating_neg(),
            };
            self.store_event(e.at, change, u32::try_from(slot).unwrap_or(u32::MAX));
        }
        self.seeded = seeded || !recommendations.is_empty();
        Ok(())
    }

    /// Number of stored recommendations (excluding folded ones).
    pub fn recommendation_count(&self) -> usize {
        self.recommendations.iter().count()
    }

    /// The stored recommendations as `(replicas, instant)`, oldest first.
    pub fn recommendations(&self) -> impl Iterator<Item = (i32, Instant)> + '_ {
        self.recommendations
            .iter()
            .map(|(at, code)| (unzigzag(code), Instant(at)))
    }

    /// The stored scale events as `(signed change, instant)`, oldest first.
    pub fn scale_events(&self) -> impl Iterator<Item = (i32, Instant)> + '_ {
        self.events
            .iter()
            .map(|(at, code)| (event_change(code), Instant(at)))
            .filter(|&(change, _)| change != 0)
    }

    /// Upstream's `scaleUpEvents` or `scaleDownEvents` list, slot by slot: `None` for a slot
    /// whose event is older than the ring keeps (or was folded). Reads the ring once per slot:
    /// for inspection and tests, not for an evaluation's path.
    pub fn scale_event_list(
        &self,
        list: Direction,
    ) -> impl Iterator<Item = Option<ScaleEvent>> + '_ {
        let (len, outdated_before) = self.lists.list(list);
        (0..len).map(move |slot| {
            self.events
                .iter()
                .map(|(at, code)| (at, event_change(code), event_slot(code)))
                .find(|&(_, change, s)| s == slot && list.holds(change))
                .map(|(at, change, _)| ScaleEvent {
                    change: change.saturating_abs(),
                    at: Instant(at),
                    outdated: at < outdated_before,
                })
        })
    }

    /// Bytes in use in the recommendation and the scale-event ring (out of `R` and `E`).
    pub fn bytes_used(&self) -> (usize, usize) {
        (self.recommendations.used(), self.events.used())
    }

    /// Whether some entry was folded into a summary that is still kept (results it
    /// influences are reported as overflowed).
    pub fn has_folded(&self) -> bool {
        self.folded_recommendations.len != 0 || self.folded_events.len != 0
    }
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::indexing_slicing
)]
mod tests {
    extern crate std;
    use std::collections::VecDeque;
    use std::vec::Vec;

    use super::*;

    /// A 128-bit multiplicative congruential generator (Lehmer): its high 64 bits.
    struct Rng(u128);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_mul(0xDA94_2042_E4DD_58B5) | 1;
            (self.0 >> 64) as u64
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    #[test]
    fn codes_are_bijections_and_short_near_the_period() {
        for gap in (0..70_000).chain([u64::MAX, u64::MAX - 1, 1 << 21, (1 << 21) - 1]) {
            assert_eq!(gap_from_code(gap_code(gap)), gap, "{gap}");
        }
        let codes: std::collections::BTreeSet<u64> = (0..30_000).map(gap_code).collect();
        assert_eq!(codes, (0..30_000).collect());
        assert_eq!(gap_len(gap_code(15_000)), 2);
        assert_eq!(gap_len(gap_code(6_808)), 2);
        assert_eq!(gap_len(gap_code(6_807)), 3);
        assert_eq!(gap_len(gap_code(23_191)), 2);
        assert_eq!(gap_len(gap_code(23_192)), 3);
        assert_eq!(gap_len(gap_code((1 << 21) - 1)), 3);
        assert_eq!(gap_len(gap_code(1 << 21)), 4);
        assert_eq!(gap_len(gap_code(u64::MAX)), 10);
        for v in [0, 1, -1, 63, -64, 64, 8191, -8191, 8192, i32::MAX, i32::MIN] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
        assert_eq!(varint_len(zigzag(63)), 1);
        assert_eq!(varint_len(zigzag(64)), 2);
        assert_eq!(varint_len(zigzag(GUARANTEED_REPLICAS)), 2);
        assert_eq!(varint_len(zigzag(-GUARANTEED_REPLICAS)), 2);
        assert_eq!(varint_len(zigzag(GUARANTEED_REPLICAS + 1)), 3);
        assert_eq!(varint_len(zigzag(i32::MIN)), 5);
        // Both directions decode what was written.
        let mut bytes = [0; 2 * MAX_ENTRY_BYTES];
        let mut out = bytes.iter_mut();
        put_varint(&mut out, u64::MAX);
        put_gap(&mut out, 5);
        put_varint(&mut out, 300);
        let written = &bytes[..varint_len(u64::MAX) + gap_len(5) + varint_len(300)];
        let (mut forward, mut backward) = (written, written);
        for v in [u64::MAX, 5, 300] {
            assert_eq!(take_front(&mut forward), Some(v));
        }
        for v in [300, 5, u64::MAX] {
            assert_eq!(take_back(&mut backward), Some(v));
        }
        assert!(forward.is_empty() && backward.is_empty());
    }

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
            6 => rng.next(),
            _ => rng.below(3),
        };
        gap.min(room)
    }

    fn model_totals(entries: impl Iterator<Item = (i64, i32)>) -> Totals {
        let mut t = Totals {
            low: i32::MAX,
            high: i32::MIN,
            added: 0,
            deleted: 0,
            sums: true,
        };
        let (mut added, mut deleted) = (0_i64, 0_i64);
        for (_, v) in entries {
            t.low = t.low.min(v);
            t.high = t.high.max(v);
            if v > 0 {
                added += i64::from(v);
            } else {
                deleted -= i64::from(v);
            }
        }
        t.added = crate::arith::clamp_i32(i128::from(added));
        t.deleted = crate::arith::clamp_i32(i128::from(deleted));
        t
    }

    /// A ring against a list: pushes, pops when full, the oldest-first iteration and the
    /// newest-first scans from every cutoff, over the whole `i64` time range and any value;
    /// every other round a ring of scale events, whose codes hold a list slot too.
    #[test]
    fn a_ring_equals_a_list() {
        let mut rng = Rng(0x41);
        for round in 0..200 {
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
                i64::try_from(rng.next() >> 2).unwrap() - (1 << 61)
            };
            // Some rounds are mostly steady (one- or two-byte gaps, small values), so that the
            // block paths of `totals` run, and are disturbed now and then.
            let steady = [None, Some(15_000), Some(15_100), Some(14_990)][round / 2 % 4];
            // One- or two-byte values.
            let span = if round % 8 < 4 { 64 } else { 8192 };
            for _ in 0..300 {
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
                    _ => u32::try_from(rng.next() >> 32).unwrap().cast_signed(),
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
                let cutoffs: Vec<i64> = list
                    .iter()
                    .flat_map(|e| [e.0, e.0.saturating_add(1)])
                    .chain([i64::MIN, i64::MAX])
                    .collect();
                // The values from `from` on, before `to` if given.
                let values = |from: i64, to: Option<i64>| {
                    let kept = list
                        .iter()
                        .filter(move |e| e.0 >= from && to.is_none_or(|to| e.0 < to));
                    let totals = model_totals(kept.map(|&(at, code)| (at, kind.value(code))));
                    if events {
                        totals
                    } else {
                        // Recommendations: the bounds only.
                        Totals {
                            added: 0,
                            deleted: 0,
                            sums: false,
                            ..totals
                        }
                    }
                };
                for &from in &cutoffs {
                    let start = ring.seek(from);
                    // From the nearer end and from the oldest (the form of small targets).
                    assert_eq!(ring.region.seek::<false>(&ring.bytes, from), start);
                    assert_eq!(ring.region.seek::<true>(&ring.bytes, from), start);
                    let expected = values(from, None);
                    let (region, bytes, end) = (&ring.region, &ring.bytes, ring.used());
                    // With and without the runs (the form of small targets).
                    assert_eq!(ring.totals(start, end, events), expected, "from {from}");
                    assert_eq!(totals::<true>(region, bytes, start, end, events), expected);
                    assert_eq!(totals::<false>(region, bytes, start, end, events), expected);
                    // Between two cutoffs (the longer window's own part).
                    let to = cutoffs[usize::try_from(rng.below(cutoffs.len() as u64)).unwrap()];
                    if to >= from {
                        assert_eq!(
                            ring.totals(start, ring.seek(to), events),
                            values(from, Some(to)),
                            "from {from} to {to}"
                        );
                    }
                }
            }
        }
    }

    /// The most bytes a ring can hold for a closed window of `window` ms at gaps of at least
    /// 15 s, with `value_bytes` per value (the oldest entry has no gap): exhaustive over how
    /// many gaps take each code length, each at the shortest gap of that length (a longer one
    /// only uses up time). Two-byte gaps, the cheapest in time, fill what is left.
    fn worst_case(window: u64, value_bytes: usize) -> usize {
        let shortest = |len: usize| {
            (PERIOD_MS..)
                .find(|&g| gap_len(gap_code(g)) == len)
                .unwrap()
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
        let mut rng = Rng(0x15);
        let mut h: History<DEFAULT_RECOMMENDATION_BYTES, DEFAULT_EVENT_BYTES> = History::new();
        let mut at = -5_000_000_i64;
        let mut replicas = 1;
        let retention = BEHAVIOR_WINDOW_LIMIT;
        let span = GUARANTEED_REPLICAS;
        for step in 0..20_000 {
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

    /// The behavior stabilization of small targets (each window with [`window`])
    /// equals the host's one pass, with and without folded recommendations.
    #[test]
    fn window_by_window_equals_one_pass() {
        let mut rng = Rng(0x77);
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

    /// Both stabilizations and the policy periods against a list model: the stored entries
    /// and the kept summaries, each counted when its instant is in the window (computed in
    /// `i128`), with and without folded entries, over windows of every kind.
    #[test]
    fn windows_equal_a_list_model() {
        let mut rng = Rng(0x3d);
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
        for round in 0..4000 {
            // Mostly around the period, now and then far apart (also across the i64 range).
            at = at.saturating_add(match rng.below(16) {
                0 => i64::try_from(rng.next() >> 2).unwrap(),
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
                let longest =
                    [0, 1, 15, 600, 1800, i32::MAX][usize::try_from(rng.below(6)).unwrap()];
                h.record_scale_event(0, change, now, longest);
            }
        }
        assert!(h.has_folded());
    }

    /// Upstream's two scale-event lists, as horizontal.go keeps them: `storeScaleEvent`
    /// (mark the direction's events before `now - longest` outdated, overwrite the last
    /// outdated one or append) and `getReplicasChangePerPeriod` (every event strictly after
    /// `now - period`, whatever its flag). Times in `i128`: no overflow to think about.
    #[derive(Default)]
    struct UpstreamLists {
        /// `(change, at, outdated)` per list, up and down.
        lists: [Vec<(i32, i128, bool)>; 2],
    }

    impl UpstreamLists {
        fn store(&mut self, change: i32, now: i64, longest: Duration) {
            let list = &mut self.lists[usize::from(change < 0)];
            let cutoff = i128::from(now) - i128::from(longest.as_millis());
            for e in list.iter_mut() {
                e.2 |= e.1 < cutoff;
            }
            let event = (change.saturating_abs(), i128::from(now), false);
            match list.iter().rposition(|e| e.2) {
                Some(i) => list[i] = event,
                None => list.push(event),
            }
        }

        fn changes(&self, now: i64, period: Duration) -> (i64, i64) {
            let cutoff = i128::from(now) - i128::from(period.as_millis());
            let sum = |list: &Vec<(i32, i128, bool)>| {
                list.iter()
                    .filter(|e| e.1 > cutoff)
                    .map(|e| i64::from(e.0))
                    .sum::<i64>()
            };
            (sum(&self.lists[0]), sum(&self.lists[1]))
        }
    }

    /// The engine's scale events against upstream's lists (docs/spec/history.md#scale-events):
    /// random rescales in both directions, with longest periods that change between stores (an HPA
    /// edited in place), at times from equal to far apart. While nothing is folded, every period
    /// count equals upstream's, and each list, slot by slot, holds upstream's events (or `None` for
    /// an event past the retention, which upstream keeps outdated and never counts again).
    #[test]
    fn scale_events_equal_upstreams_lists() {
        let mut rng = Rng(0x14);
        for round in 0..60 {
            let mut h: History<16, 4096> = History::new();
            let mut model = UpstreamLists::default();
            let mut at = -3_000_000_i64;
            let periods = [1, 15, 60, 61, 300, 600, 1800].map(Duration::from_secs);
            let pick = |rng: &mut Rng| periods[usize::try_from(rng.below(7)).unwrap()];
            // Each round keeps its longest periods most of the time, as a fixed spec does.
            let mut longest = [pick(&mut rng), pick(&mut rng)];
            let mut last_store = at;
            for step in 0..400 {
                at += i64::try_from(match rng.below(6) {
                    0 => 0,
                    1 => rng.below(1000),
                    2 => 15_000,
                    3 => rng.below(120_000),
                    4 => rng.below(2_000_000),
                    _ => 15_000 + rng.below(10_000),
                })
                .unwrap();
                let now = Instant(at);
                for (d, direction) in [Direction::Up, Direction::Down].into_iter().enumerate() {
                    let period = pick(&mut rng);
                    let c = h.changes_in_period(now, period, direction);
                    let (added, deleted) = model.changes(at, period);
                    let expected = PeriodChanges {
                        added: i32::try_from(added).unwrap(),
                        deleted: i32::try_from(deleted).unwrap(),
                        overflowed: false,
                    };
                    assert_eq!(c, expected, "round {round} step {step} {direction:?}");
                    let slots: Vec<Option<ScaleEvent>> = h.scale_event_list(direction).collect();
                    assert_eq!(
                        slots.len(),
                        model.lists[d].len(),
                        "round {round} step {step}"
                    );
                    for (slot, (e, m)) in slots.iter().zip(&model.lists[d]).enumerate() {
                        match e {
                            Some(e) => assert_eq!(
                                (e.change, i128::from(e.at.millis()), e.outdated),
                                *m,
                                "round {round} step {step} {direction:?} slot {slot}"
                            ),
                            None => assert!(m.1 < i128::from(last_store) - 1_800_000),
                        }
                    }
                }
                if rng.below(8) == 0 {
                    longest[usize::try_from(rng.below(2)).unwrap()] = pick(&mut rng);
                }
                if rng.below(3) != 0 {
                    let change = i32::try_from(rng.below(40)).unwrap() - 20;
                    if change != 0 {
                        let period = longest[usize::from(change < 0)];
                        let seconds = i32::try_from(period.as_millis() / 1000).unwrap();
                        h.record_scale_event(0, change, now, seconds);
                        model.store(change, at, period);
                        last_store = at;
                    }
                }
                assert!(!h.has_folded());
            }
        }
    }

    /// The example, at the history's level: scale-up policies of 15 s, scale-down
    /// policies of 600 s. Up events at 0 s and 60 s: the second overwrites the first (outdated
    /// for 15 s), which is then gone for the scale-down limit's 600 s period too.
    #[test]
    fn an_overwritten_event_is_gone_for_the_other_direction() {
        let mut h: History<64, 64> = History::new();
        let (up, down) = (15, Duration::from_secs(600));
        h.record_scale_event(2, 3, Instant(0), up);
        h.record_scale_event(3, 4, Instant(60_000), up);
        let c = h.changes_in_period(Instant(120_000), down, Direction::Down);
        assert_eq!((c.added, c.deleted), (1, 0));
        let list: Vec<_> = h.scale_event_list(Direction::Up).collect();
        let event = ScaleEvent {
            change: 1,
            at: Instant(60_000),
            outdated: false,
        };
        assert_eq!(list, [Some(event)]);
        // Loading upstream's lists gives the same state, and refuses flags it cannot have.
        let mut loaded: History<64, 64> = History::new();
        loaded.load(true, &[], &list, &[]).unwrap();
        assert_eq!(
            loaded.scale_event_list(Direction::Up).collect::<Vec<_>>(),
            list
        );
        let old = |at: i64, outdated: bool| {
            Some(ScaleEvent {
                change: 1,
                at: Instant(at),
                outdated,
            })
        };
        assert_eq!(
            loaded.load(true, &[], &[], &[old(5, true), old(4, false)]),
            Err(LoadError::OutdatedNotOldest {
                list: Direction::Down,
                slot: 1
            })
        );
        assert_eq!(
            loaded.scale_event_list(Direction::Up).collect::<Vec<_>>(),
            list
        );
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

    /// Both forms of [`skip_varint`] move past the same bytes, and fail at the end.
    #[test]
    fn skipping_by_bytes_equals_skipping_by_decoding() {
        let mut rng = Rng(0x5c);
        for _ in 0..1000 {
            let mut bytes = [0_u8; 64];
            let mut out = bytes.iter_mut();
            let min = |rng: &mut Rng| 1 + u8::try_from(rng.below(2)).unwrap();
            while put_varint_min(&mut out, rng.next() >> rng.below(64), min(&mut rng)) {}
            // The last varint may be cut short: both then fail.
            let (mut by_bytes, mut by_decoding) = (&bytes[..], &bytes[..]);
            loop {
                let skipped = skip_varint_bytes(&mut by_bytes);
                assert_eq!(skipped, take_front(&mut by_decoding).is_some());
                if !skipped {
                    break;
                }
                assert_eq!(by_bytes, by_decoding);
            }
        }
    }

    #[test]
    fn generations_merge_when_all_are_in_use() {
        let mut g = Generations::new();
        for i in 0..30 {
            g.fold(
                Summary::recommendation(i * 100, i32::try_from(i).unwrap()),
                100,
                Kind::Recommendations,
            );
        }
        let kept: Vec<Summary> = g.iter().copied().collect();
        assert_eq!(kept.len(), GENERATIONS);
        // The oldest keeps everything merged into it.
        let merged = i32::try_from(30 - GENERATIONS).unwrap();
        assert_eq!(kept.first().map(|s| (s.a, s.b)), Some((0, merged)));
        assert_eq!(kept.last().map(|s| s.at), Some(2900));
        g.prune(Some(2500));
        assert_eq!(g.iter().count(), 5);
        g.prune(None);
        assert_eq!(g.iter().count(), 0);
    }
}
