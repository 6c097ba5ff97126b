//! Folding: what the entries evicted from a full ring still contribute (module docs,
//! "Overflow"), in up to [`GENERATIONS`] summaries per ring.

use core::fmt;

use super::codec::{event_change, unzigzag};
use super::ring::Region;
use super::scan::first_not_before;
use super::GENERATIONS;
use crate::time::{Duration, Instant};

/// What one generation of folded (evicted) entries still contributes: for recommendations
/// the lowest (`a`) and highest (`b`) replicas, for scale events the replicas added (`a`) and
/// deleted (`b`); `at` is the newest folded instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct Summary {
    pub(crate) at: i64,
    pub(crate) a: i32,
    pub(crate) b: i32,
}

impl Summary {
    pub(crate) const EMPTY: Summary = Summary { at: 0, a: 0, b: 0 };

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
pub(super) enum Kind {
    Recommendations,
    Events,
}

impl Kind {
    /// The value of an entry's code.
    pub(super) fn value(self, code: u64) -> i32 {
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
///
/// Plain data (`repr(C)`, integers only, no padding): see [`crate::autoscaler::Autoscaler`].
#[derive(Clone)]
#[repr(C)]
pub(super) struct Generations {
    pub(super) slots: [Summary; GENERATIONS],
    pub(super) len: u8,
    /// Zero: the padding made a field, so that every byte of the state is written.
    pub(super) reserved: [u8; 7],
}

impl Generations {
    pub(super) const fn new() -> Self {
        Generations {
            slots: [Summary::EMPTY; GENERATIONS],
            len: 0,
            reserved: [0; 7],
        }
    }

    /// The summaries, oldest first.
    pub(super) fn iter(&self) -> core::slice::Iter<'_, Summary> {
        self.slots
            .get(..usize::from(self.len))
            .unwrap_or(&[])
            .iter()
    }

    /// Appends `s` as the newest generation, if one is free.
    pub(super) fn push(&mut self, s: Summary) {
        if let Some(slot) = self.slots.get_mut(usize::from(self.len)) {
            *slot = s;
            self.len = self.len.saturating_add(1);
        }
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
    pub(super) fn prune(&mut self, from: Option<i64>) {
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
    pub(super) fn fold_entry(&mut self, kind: Kind, at: i64, code: u64, retention: Duration) {
        self.fold(
            Summary::start(kind, at, kind.value(code)),
            generation_span(retention),
            kind,
        );
    }

    /// Adds an evicted entry to the newest generation when it falls in the same grid cell of
    /// `span` milliseconds (see [`generation_span`]), or starts a new one.
    pub(super) fn fold(&mut self, entry: Summary, span: u64, kind: Kind) {
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
        self.push(entry);
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

/// Drops the entries before `now - retention` (and the summaries), then appends `(at, code)`,
/// folding the oldest entries while it does not fit (and the entry itself if it does not fit an
/// empty ring). A scale event that an upstream list overwrote (change 0, see
/// `History::record_scale_event`) folds into a summary that adds nothing.
pub(super) fn record(
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

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::*;

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
