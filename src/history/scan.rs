//! The window scans: the cutoff of a window or period, what the scale events of a period,
//! stored and folded, add up to, and what the summaries of a window hold.

use super::codec::{gap_from_code, skip_varint, take_front};
use super::extremes::Bound;
use super::ring::Region;
use super::summary::{Generations, Kind};
use crate::time::{Duration, Instant};

/// What the scale events of a period add up to: the sums of the positive changes and of the
/// negated negative ones, saturated to `i32::MAX`. Every term is non-negative, so saturating
/// each addition equals saturating the exact sum (which is all `History::changes_in_period`
/// keeps), and 32-bit sums take less code than 64-bit ones on a 32-bit target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(super) struct Changes {
    pub(super) added: i32,
    pub(super) deleted: i32,
}

impl Changes {
    pub(super) fn add(&mut self, change: i32) {
        if change > 0 {
            self.added = self.added.saturating_add(change);
        } else {
            // `-i32::MIN` saturates, as the sum does.
            self.deleted = self.deleted.saturating_sub(change);
        }
    }
}

/// What the entries of a window hold: the extreme of their values with the newest entry
/// holding it (for recommendations), and the sums of their changes (for scale events).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Totals {
    /// The highest order key ([`Bound::key`]) of the values: `i32::MIN` without entries.
    pub(super) key: i32,
    /// How long before the last entry read the newest entry holding `key` is (ms).
    pub(super) age: u64,
    pub(super) changes: Changes,
}

/// The [`Totals`] of the entries of `live` (a ring's live bytes) from byte offset `start` (an
/// entry's start, from [`Region::seek`]) on, with values read as `kind`. One loop for both
/// rings, not inlined on small targets: the stabilizations read `key` and `age`, the policy
/// periods `changes`.
// The attribute states `crate::tuning::FAST_FORMS`'s choice (attributes cannot read it).
#[cfg_attr(not(target_pointer_width = "64"), inline(never))]
pub(super) fn totals(live: &[u8], start: usize, kind: Kind, bound: Bound) -> Totals {
    let mut t = Totals {
        key: i32::MIN,
        age: 0,
        changes: Changes::default(),
    };
    let Some(mut rest) = live.get(start..) else {
        return t;
    };
    // Every entry but the oldest starts with its gap; instants count from the first one read.
    if start != 0 && !skip_varint(&mut rest) {
        return t;
    }
    // Exact: the gaps add up to at most the span of `i64` instants.
    let (mut at, mut holder) = (0_u64, 0_u64);
    while let Some(code) = take_front(&mut rest) {
        let value = kind.value(code);
        t.changes.add(value);
        let key = bound.key(value);
        if key >= t.key {
            (t.key, holder) = (key, at);
        }
        let Some(gap) = take_front(&mut rest) else {
            break;
        };
        at = at.wrapping_add(gap_from_code(gap));
    }
    t.age = at.wrapping_sub(holder);
    t
}

/// The lowest instant strictly after `now - window` when `after`, else not before it; `None`
/// when no `i64` instant is. Not inlined on small targets: one routine for every window.
// The attribute states `crate::tuning::FAST_FORMS`'s choice (attributes cannot read it).
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

/// What the scale events of a period add up to: the stored ones, and the folded ones.
pub(super) struct Period {
    pub(super) stored: Changes,
    /// The replicas added and deleted by folded events.
    pub(super) folded: Changes,
    /// Some summary falls in the period, or some event is folded.
    pub(super) any_folded: bool,
}

/// The [`Period`] of the scale events not before `from` (none for `None`). Not inlined on
/// small targets: one routine for every policy.
// The attribute states `crate::tuning::FAST_FORMS`'s choice (attributes cannot read it).
#[cfg_attr(not(target_pointer_width = "64"), inline(never))]
pub(super) fn period(
    region: &Region,
    bytes: &[u8],
    generations: &Generations,
    from: Option<i64>,
) -> Period {
    let start = from.map_or(region.used(), |from| region.seek(bytes, from));
    let (added, deleted, any_folded) = folded_in(generations, true, from);
    Period {
        stored: totals(region.live(bytes), start, Kind::Events, Bound::High).changes,
        folded: Changes { added, deleted },
        // While events are folded, their slots count as free (module docs, "Overflow"):
        // upstream may have overwritten another event than the ring did, so every period is
        // reported.
        any_folded: any_folded || generations.len != 0,
    }
}

/// The summaries not before `from` (none for `None`), merged as events (`events`: replicas
/// added and deleted) or recommendations (minimum and maximum), and whether there is any: the
/// one statement of that rule. Inlined: each call merges one kind, and reads one field.
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
