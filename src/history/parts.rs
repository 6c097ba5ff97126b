//! A history as plain parts, for `src/snapshot/`: what a snapshot writes, and the check that
//! parts read from outside are a history this engine can have built (docs/spec/snapshot.md,
//! "Consistency"), before any of them is written into a [`History`]. Also the history's
//! [`Fingerprint`]: every field, and of the rings only their live bytes.

use super::codec::{event_change, event_slot, gap_from_code, SLOT_BITS};
use super::events::{Direction, EventLists};
use super::extremes::Extremes;
use super::ring::{Region, Ring};
use super::summary::{Generations, Summary};
use super::{History, GENERATIONS};
use crate::fingerprint::Fingerprint;
use crate::time::ZeroIsMin;

/// One ring's entries: the instant of the oldest one and the live bytes in the ring encoding
/// (docs/spec/history.md#ring-encoding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RingParts<'a> {
    /// The oldest entry's instant (meaningless when `live` is empty).
    pub front: i64,
    /// The entries, oldest first.
    pub live: &'a [u8],
}

/// One ring's summaries, oldest first: `slots[..len]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FoldedParts {
    pub slots: [Summary; GENERATIONS],
    pub len: u8,
}

impl FoldedParts {
    pub(crate) const EMPTY: FoldedParts = FoldedParts {
        slots: [Summary::EMPTY; GENERATIONS],
        len: 0,
    };

    /// The summaries in use.
    pub(crate) fn used(&self) -> &[Summary] {
        self.slots.get(..usize::from(self.len)).unwrap_or(&[])
    }

    fn of(g: &Generations) -> FoldedParts {
        let mut parts = FoldedParts::EMPTY;
        for (slot, s) in parts.slots.iter_mut().zip(g.iter()) {
            *slot = *s;
        }
        parts.len = u8::try_from(g.iter().len()).unwrap_or(0);
        parts
    }
}

impl Generations {
    /// The generations `parts` lists (at most [`GENERATIONS`]).
    fn from_parts(parts: &FoldedParts) -> Generations {
        let mut g = Generations::new();
        for s in parts.used() {
            g.push(*s);
        }
        g
    }
}

/// Everything a [`History`] holds, as values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HistoryParts<'a> {
    pub recommendations: RingParts<'a>,
    pub events: RingParts<'a>,
    pub folded_recommendations: FoldedParts,
    pub folded_events: FoldedParts,
    /// The lengths of upstream's scale-up and scale-down lists.
    pub list_len: [u32; 2],
    /// Each list's events before this instant are outdated (`None`: none is).
    pub outdated_before: [Option<i64>; 2],
    pub seeded: bool,
}

/// Why parts are not a history (docs/spec/snapshot.md, "Consistency").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PartsError {
    /// A ring's bytes are not a sequence of entries: a varint runs past the end, is longer
    /// than 10 bytes or than its value needs, or a gap takes fewer than two bytes.
    Encoding { events: bool, offset: usize },
    /// A value code does not fit its field (a replica count or change beyond 32 bits).
    Value { events: bool, offset: usize },
    /// The entries' gaps add up past the largest instant.
    Time { events: bool },
    /// A scale event holds a slot at or beyond its list's length, or a slot another event of
    /// its list holds.
    Slot { offset: usize },
    /// A ring does not fit this history's capacity.
    Capacity {
        events: bool,
        needed: usize,
        capacity: usize,
    },
    /// A recommendation summary's lowest value is above its highest, or an event summary's
    /// sum is negative.
    Summary { events: bool, index: usize },
    /// Recommendations without a seeded history.
    Unseeded,
}

/// Walks `ring`'s entries, checking their encoding, values and instants; for scale events,
/// also their slots against `list_len`. Returns the newest entry's instant.
fn walk(ring: &RingParts<'_>, events: bool, list_len: [u32; 2]) -> Result<i64, PartsError> {
    // The slots each list's live events hold (slots fit SLOT_BITS: 128 bits).
    let mut held = [0_u128; 2];
    let mut rest = ring.live;
    let mut at = ring.front;
    let mut first = true;
    while !rest.is_empty() {
        let offset = ring.live.len().saturating_sub(rest.len());
        if !first {
            let gap = canonical_varint(&mut rest, 2, false)
                .ok_or(PartsError::Encoding { events, offset })?;
            at = at
                .checked_add_unsigned(gap_from_code(gap))
                .ok_or(PartsError::Time { events })?;
        }
        first = false;
        let value_offset = ring.live.len().saturating_sub(rest.len());
        let encoding = PartsError::Encoding {
            events,
            offset: value_offset,
        };
        let code = canonical_varint(&mut rest, 1, events).ok_or(encoding)?;
        let value = PartsError::Value {
            events,
            offset: value_offset,
        };
        if !events {
            if code >> 32 != 0 {
                return Err(value);
            }
            continue;
        }
        if code >> (32 + SLOT_BITS) != 0 {
            return Err(value);
        }
        let change = event_change(code);
        let list = match change {
            0 => continue,
            c if c > 0 => 0,
            _ => 1,
        };
        let slot = event_slot(code);
        let bit = 1_u128.wrapping_shl(slot);
        let (len, taken) = match (list_len.get(list), held.get_mut(list)) {
            (Some(&len), Some(taken)) => (len, taken),
            _ => return Err(PartsError::Slot { offset }),
        };
        if slot >= len || *taken & bit != 0 {
            return Err(PartsError::Slot { offset });
        }
        *taken |= bit;
    }
    Ok(at)
}

/// Reads the varint at the start of `rest` if it is written as the engine writes it: at most
/// 10 bytes, a value that fits 64 bits, no more bytes than its value needs or `min`, whichever
/// is more. With `zero_padded`, a zero of any length up to [`super::MAX_ENTRY_BYTES`] is also
/// accepted (the code of an overwritten scale event keeps its length).
fn canonical_varint(rest: &mut &[u8], min: usize, zero_padded: bool) -> Option<u64> {
    let end = rest.iter().position(|&b| b < 0x80)?;
    let (varint, after) = rest.split_at_checked(end.checked_add(1)?)?;
    let len = varint.len();
    if len > 10 || (len == 10 && varint.last().is_some_and(|&b| b > 1)) {
        return None;
    }
    let value = varint
        .iter()
        .rev()
        .fold(0_u64, |v, &b| v.wrapping_shl(7) | u64::from(b & 0x7f));
    let needed = (64_u32.saturating_sub(value.leading_zeros()))
        .div_ceil(7)
        .max(1) as usize;
    let padded_zero = zero_padded && value == 0;
    if len != needed.max(min) && !padded_zero {
        return None;
    }
    *rest = after;
    Some(value)
}

/// Checks parts read from outside (docs/spec/snapshot.md, "Consistency") against capacities
/// `r` and `e`; returns the newest instant of each ring (recommendations, events; `None` when
/// empty).
/// Refuses a ring longer than `capacity`.
fn fits(ring: &RingParts<'_>, events: bool, capacity: usize) -> Result<(), PartsError> {
    if ring.live.len() > capacity {
        return Err(PartsError::Capacity {
            events,
            needed: ring.live.len(),
            capacity,
        });
    }
    Ok(())
}

pub(crate) fn check(
    parts: &HistoryParts<'_>,
    r: usize,
    e: usize,
) -> Result<[Option<i64>; 2], PartsError> {
    let mut newest = [None; 2];
    for ((events, ring, capacity), newest) in
        [(false, &parts.recommendations, r), (true, &parts.events, e)]
            .into_iter()
            .zip(&mut newest)
    {
        fits(ring, events, capacity)?;
        let back = walk(ring, events, parts.list_len)?;
        *newest = (!ring.live.is_empty()).then_some(back);
    }
    for (events, folded) in [
        (false, &parts.folded_recommendations),
        (true, &parts.folded_events),
    ] {
        let bad = folded.used().iter().position(|s| {
            if events {
                s.a < 0 || s.b < 0
            } else {
                s.a > s.b
            }
        });
        if let Some(index) = bad {
            return Err(PartsError::Summary { events, index });
        }
    }
    let recommendations =
        !parts.recommendations.live.is_empty() || parts.folded_recommendations.len != 0;
    if recommendations && !parts.seeded {
        return Err(PartsError::Unseeded);
    }
    Ok(newest)
}

impl<const N: usize> Ring<N> {
    fn parts(&self) -> RingParts<'_> {
        RingParts {
            front: self.region.front,
            live: self.live(),
        }
    }

    /// Holds `parts` (checked: they fit, and `back` is their newest instant), from the start
    /// of the bytes; the bytes after them are zeroed.
    fn set_parts(&mut self, parts: &RingParts<'_>, back: Option<i64>) {
        let len = parts.live.len();
        self.bytes = [0; N];
        // Not `copy_from_slice`: at opt-level "z" its out-of-line length check links a panic.
        for (d, &b) in self.bytes.iter_mut().zip(parts.live) {
            *d = b;
        }
        self.region = Region {
            front: back.map_or(0, |_| parts.front),
            back: back.unwrap_or(0),
            head: 0,
            tail: u32::try_from(len).unwrap_or(0),
        };
    }
}

impl Region {
    fn fingerprint(&self, f: &mut Fingerprint) {
        f.int(self.front);
        f.int(self.back);
        f.word(u64::from(self.head) << 32 | u64::from(self.tail));
    }
}

impl Generations {
    fn fingerprint(&self, f: &mut Fingerprint) {
        f.word(u64::from(self.len));
        f.bytes(&self.reserved);
        for s in &self.slots {
            f.int(s.at);
            f.word(u64::from(s.a.cast_unsigned()) << 32 | u64::from(s.b.cast_unsigned()));
        }
    }
}

impl<const R: usize, const E: usize> History<R, E> {
    /// Adds every field to `f`; of the rings, only the bytes in use (damage to the others
    /// changes no decision).
    pub(crate) fn fingerprint(&self, f: &mut Fingerprint) {
        self.recommendations.region.fingerprint(f);
        f.bytes(self.recommendations.live());
        self.events.region.fingerprint(f);
        f.bytes(self.events.live());
        self.folded_recommendations.fingerprint(f);
        self.folded_events.fingerprint(f);
        let lists = self.lists;
        for d in [Direction::Up, Direction::Down] {
            let (len, before) = lists.list(d);
            f.word(len.into());
            f.int(before);
        }
        self.extremes.fingerprint(f);
        f.word(self.seeded.into());
        f.bytes(&self.reserved);
    }

    /// The history as parts.
    pub(crate) fn parts(&self) -> HistoryParts<'_> {
        let lists = self.lists;
        let (up_len, up_before) = lists.list(Direction::Up);
        let (down_len, down_before) = lists.list(Direction::Down);
        let cutoff = |before: i64| (before != i64::MIN).then_some(before);
        HistoryParts {
            recommendations: self.recommendations.parts(),
            events: self.events.parts(),
            folded_recommendations: FoldedParts::of(&self.folded_recommendations),
            folded_events: FoldedParts::of(&self.folded_events),
            list_len: [up_len, down_len],
            outdated_before: [cutoff(up_before), cutoff(down_before)],
            seeded: self.seeded != 0,
        }
    }

    /// Replaces the history with `parts`, which [`check`] accepted, their rings' newest
    /// instants `newest` (what it returned, moved with the parts). Refuses a ring longer than
    /// this history's capacity, changing nothing.
    pub(crate) fn set_parts(
        &mut self,
        parts: &HistoryParts<'_>,
        newest: [Option<i64>; 2],
    ) -> Result<(), PartsError> {
        fits(&parts.recommendations, false, R)?;
        fits(&parts.events, true, E)?;
        let [rec_back, event_back] = newest;
        self.recommendations
            .set_parts(&parts.recommendations, rec_back);
        self.events.set_parts(&parts.events, event_back);
        self.folded_recommendations = Generations::from_parts(&parts.folded_recommendations);
        self.folded_events = Generations::from_parts(&parts.folded_events);
        self.extremes = Extremes::NONE;
        let mut lists = EventLists::NEW;
        for (d, i) in [(Direction::Up, 0), (Direction::Down, 1)] {
            let (len, before) = lists.list_mut(d);
            *len = parts.list_len.get(i).copied().unwrap_or(0);
            let cutoff = parts.outdated_before.get(i).copied().flatten();
            *before = cutoff.map_or(ZeroIsMin::MIN, ZeroIsMin::new);
        }
        self.lists = lists;
        self.seeded = u8::from(parts.seeded);
        Ok(())
    }
}
