//! Upstream's two scale-event lists beyond the ring's entries (module docs, "Scale events"):
//! their directions, lengths and outdated flags, and the slot a store overwrites.

use core::fmt;

use super::codec::{event_change, event_slot, skip_varint, take_front};
use crate::time::{Instant, ZeroIsMin};

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
    pub(super) fn of(change: i32) -> Direction {
        if change > 0 {
            Direction::Up
        } else {
            Direction::Down
        }
    }

    /// Whether a stored (signed) change belongs to this list; 0 (overwritten) to none.
    pub(super) fn holds(self, change: i32) -> bool {
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

/// Why [`History::load`](super::History::load) refused a history.
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
#[repr(C)]
pub(super) struct EventLists {
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
    pub(super) const NEW: EventLists = EventLists {
        len: [0; 2],
        outdated_before: [ZeroIsMin::MIN; 2],
    };

    /// List `d`'s length and outdated-before instant.
    pub(super) fn list_mut(&mut self, d: Direction) -> (&mut u32, &mut ZeroIsMin) {
        let ([up, down], [up_before, down_before]) = (&mut self.len, &mut self.outdated_before);
        match d {
            Direction::Up => (up, up_before),
            Direction::Down => (down, down_before),
        }
    }

    /// List `d`'s length and outdated-before instant.
    pub(super) fn list(&self, d: Direction) -> (u32, i64) {
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
/// the ring; slots fit [`SLOT_BITS`](super::codec::SLOT_BITS), so those held fit a 128-bit set.
#[inline(never)]
pub(super) fn take_slot(live: &mut [u8], d: Direction, outdated_end: usize, len: u32) -> u32 {
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

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::*;
    use crate::history::{History, PeriodChanges};
    use crate::time::Duration;
    use testkit::Rng;

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
        let mut rng = Rng::new(0x14);
        // Under Miri, which interprets each step in about a second, 2 rounds of 30 steps (an
        // hour and a half on average: past the longest period, 1,800 s).
        let (rounds, steps) = if cfg!(miri) { (2, 30) } else { (60, 400) };
        for round in 0..rounds {
            let mut h: History<16, 4096> = History::new();
            let mut model = UpstreamLists::default();
            let mut at = -3_000_000_i64;
            let periods = [1, 15, 60, 61, 300, 600, 1800].map(Duration::from_secs);
            let pick = |rng: &mut Rng| periods[usize::try_from(rng.below(7)).unwrap()];
            // Each round keeps its longest periods most of the time, as a fixed spec does.
            let mut longest = [pick(&mut rng), pick(&mut rng)];
            let mut last_store = at;
            for step in 0..steps {
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
}
