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
//! window or period by adding up gaps from the oldest entry, then reads only the values from
//! there on, one by one. Hosts (64-bit pointers: `crate::tuning::FAST_FORMS`) compile a faster
//! form that costs code, with the same results: they add up gaps from the end nearer in time
//! (few entries for a short window, none when the window covers the whole ring).
//!
//! # Stabilization extremes
//!
//! A stabilization window's extreme (the lowest recommendation of the scale-up window, the
//! highest of the scale-down or legacy window) is kept between evaluations with the instant of
//! the newest entry holding it (`extremes.rs`). Windows only move forward, so while that entry
//! is in the window, the entries leaving it cannot change the extreme, and a new entry changes
//! it in one compare. The window is scanned again only when that entry leaves it, the window
//! grows, or entries were folded: a steady or oscillating load costs no scan, a load that
//! falls (or rises) for a whole window one scan an evaluation, as before.
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
//! (`events.rs`) compare this with a model of upstream's lists over random stores (with periods
//! that change between them, as when an HPA is edited).
//!
//! # Capacity guarantee
//!
//! At the defaults ([`DEFAULT_RECOMMENDATION_BYTES`], [`DEFAULT_EVENT_BYTES`]) nothing is ever
//! folded, and every result equals upstream's, when evaluations are at least 15 s apart and replica
//! counts are at most [`GUARANTEED_REPLICAS`] (8,191; replica changes are then at most 8,191 too),
//! with the default legacy window (any window up to 3600 s). The worst case over all such timings:
//! a ring holds the entries of a closed window (3600 s of recommendations, 1800 s of events), each
//! value takes 2 bytes (3 for an event: its change and its slot, below 128 as a list holds at most
//! 121 events younger than 1800 s), and every gap is 15 s (two bytes; the shortest three-byte gap,
//! 23.192 s, costs more time than its byte is worth). That is 962 bytes of recommendations, plus 5
//! for the first evaluation's two entries at one instant (the seeded current count and the first
//! recommendation, a three-byte zero gap), and 603 bytes of events (121 events). 8,191 is as far as
//! the defaults go: one more byte a value would need 1,209 and 724 bytes. The unit tests
//! (`tests.rs`) compute these figures over every timing; `tests/history_capacity.rs` drives the
//! engine through the worst case (the rings reach exactly 967 and 603 bytes, fold nothing and equal
//! upstream), and through rings one byte smaller and counts above 8,191, which fold
//! (conservatively, and reported whenever a folded entry changed a result). Typical histories fit
//! longer: at 3 bytes an entry, the default rings hold 333 recommendations (83 minutes at 15 s); at
//! 4 bytes, 152 scale events (38 minutes of a rescale every 15 s; rescales are usually much
//! sparser).
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
//!
//! # Source layout
//!
//! `codec.rs`: varints and the gap and value codes; `ring.rs`: the byte ring; `scan.rs`: the
//! cutoff of a window and what the events of a period, stored and folded, add up to;
//! `extremes.rs`: the stabilization extremes kept between evaluations; `summary.rs`:
//! folding; `events.rs`: upstream's scale-event lists and the slot a store overwrites;
//! `fast.rs`: the hosts' fast forms; `parts.rs`: the history as values for snapshots, and
//! their consistency check; this file: the [`History`] API. Each file holds the unit
//! tests of its layer, `tests.rs` those of the whole history.

mod codec;
mod events;
mod extremes;
mod fast;
mod parts;
mod ring;
mod scan;
mod summary;

pub use events::{Direction, LoadError, ScaleEvent};
pub(crate) use parts::{check as check_parts, FoldedParts, HistoryParts, PartsError, RingParts};
pub(crate) use summary::Summary;

use crate::time::{Duration, Instant, ZeroIsMin};
use codec::{event_change, event_code, event_slot, unzigzag, zigzag, SLOT_BITS};
use events::{take_slot, EventLists};
use extremes::{Bound, Extremes};
use ring::Ring;
use scan::{first_after, first_not_before, totals, Changes};
use summary::{record, Generations, Kind};

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

/// Bytes of one ring's summaries in a history's memory: [`GENERATIONS`] slots of
/// [`SUMMARY_BYTES`], then their count (a byte) and seven reserved bytes (`repr(C)`). For code
/// that checks a history's bytes in place, as the C API's storage check does.
pub const FOLDED_BYTES: usize = core::mem::size_of::<summary::Generations>();

/// Bytes of one summary slot (its newest instant and two counts).
pub const SUMMARY_BYTES: usize = core::mem::size_of::<summary::Summary>();

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
///
/// Plain data (`repr(C)`, integers only): see [`crate::autoscaler::Autoscaler`].
#[derive(Clone, Debug)]
#[repr(C)]
pub struct History<const R: usize, const E: usize> {
    recommendations: Ring<R>,
    events: Ring<E>,
    folded_recommendations: Generations,
    folded_events: Generations,
    /// What upstream's scale-event lists hold beyond the ring's entries.
    lists: EventLists,
    /// The stabilization windows' extremes found so far, derived from the recommendations.
    extremes: Extremes,
    /// Upstream has a list (possibly empty): non-zero. A new HPA has none, and its first
    /// evaluation seeds `(current, now)`. A byte, not a `bool`, and the padding after it a
    /// field: every bit pattern of the state is a value.
    seeded: u8,
    /// Zero.
    reserved: [u8; 7],
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
            extremes: Extremes::NONE,
            seeded: 0,
            reserved: [0; 7],
        }
    }

    /// Appends a recommendation, dropping entries older than `retention` and folding the
    /// oldest ones when the ring is full.
    pub(crate) fn push_recommendation(&mut self, replicas: i32, now: Instant, retention: Duration) {
        self.seeded = 1;
        let ring = &mut self.recommendations;
        let previous = (!ring.region.is_empty()).then_some(ring.region.back);
        record(
            &mut ring.region,
            &mut ring.bytes,
            &mut self.folded_recommendations,
            Kind::Recommendations,
            now,
            zigzag(replicas),
            retention,
        );
        // A fold may take an entry holding an extreme: the next stabilization scans.
        match previous {
            Some(back) if self.folded_recommendations.len == 0 => {
                self.extremes
                    .push(ring.region.back.abs_diff(back), replicas);
            }
            _ => self.extremes.forget(),
        }
    }

    /// Seeds `(current, now)` if upstream would have no list yet.
    pub(crate) fn seed(&mut self, current: i32, now: Instant, retention: Duration) {
        if self.seeded == 0 {
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
        &mut self,
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
        // The legacy path has no scale-up window: nothing to read.
        let (low, folded_low) = self.recommendation_bound(Bound::Low, up_from);
        let (high, folded_high) = self.recommendation_bound(Bound::High, down_from);
        let (mut up, mut down) = (desired.min(low), desired.max(high));
        if legacy {
            up = down;
        }
        let stabilize = |low: i32, high: i32| current.max(low).min(high);
        let (exact_up, exact_down) = (up, down);
        (up, down) = (up.min(folded_low), down.max(folded_high));
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

    /// The `bound` of the stored and of the folded recommendations not before `from` (none
    /// for `None`): the identity of the bound (`i32::MAX` for the lowest, `i32::MIN` for the
    /// highest) where there is none. The stored one is kept between evaluations
    /// ([`Extremes`]); the summaries are few.
    fn recommendation_bound(&mut self, bound: Bound, from: Option<i64>) -> (i32, i32) {
        // Order keys ([`Bound::key`]): the lowest key is the identity of the bound.
        let (mut stored, mut folded) = (i32::MIN, i32::MIN);
        if let Some(from) = from {
            for g in self.folded_recommendations.iter() {
                if g.at >= from {
                    folded = folded.max(bound.key(bound.of(g.a, g.b)));
                }
            }
            let ring = &self.recommendations;
            let region = &ring.region;
            if !region.is_empty() && from <= region.back {
                stored = self.extremes.bound(bound, region.back, from, || {
                    totals(
                        region,
                        &ring.bytes,
                        Some(from),
                        Kind::Recommendations,
                        bound,
                    )
                });
            }
        }
        (bound.key(stored), bound.key(folded))
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
        let outdated_end = region.seek(&ring.bytes, outdated_before.millis());
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
        let (ring, folded) = (&self.events, &self.folded_events);
        let from = first_after(now, period);
        let stored = totals(&ring.region, &ring.bytes, from, Kind::Events, Bound::High).changes;
        let Changes {
            mut added,
            mut deleted,
        } = stored;
        // Count folded events only where they shrink this direction's budget. Either way
        // upstream may count them differently (folded events of the other direction would
        // widen it), so the decision is reported. Every count is non-negative: saturating
        // each addition saturates the exact sum.
        for g in folded.iter() {
            if from.is_some_and(|from| g.at >= from) {
                match direction {
                    Direction::Up => added = added.saturating_add(g.a),
                    Direction::Down => deleted = deleted.saturating_add(g.b),
                }
            }
        }
        PeriodChanges {
            added,
            deleted,
            // While events are folded, their slots count as free (module docs, "Overflow"):
            // upstream may have overwritten another event than the ring did, so every period
            // is reported.
            overflowed: folded.len != 0,
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
        self.seeded = u8::from(seeded || !recommendations.is_empty());
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
mod tests;
