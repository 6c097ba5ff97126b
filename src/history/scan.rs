//! The window scans: the cutoff of a window or period, and what its entries, stored and
//! folded, add up to.

use super::codec::{event_change, skip_varint, take_front, unzigzag};
use super::fast;
use super::ring::Region;
use super::summary::{Generations, Kind};
use crate::time::{Duration, Instant};
use crate::tuning::FAST_FORMS;

/// What the values of some entries add up to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Totals {
    /// The lowest and highest value (`i32::MAX` and `i32::MIN` without entries).
    pub(super) low: i32,
    pub(super) high: i32,
    /// The sums of the positive values and of the negated negative ones, if asked for,
    /// saturated to `i32::MAX`: every term is non-negative, so saturating each addition
    /// equals saturating the exact sum (which is all `History::changes_in_period` keeps),
    /// and 32-bit sums take less code than 64-bit ones on a 32-bit target.
    pub(super) added: i32,
    pub(super) deleted: i32,
    pub(super) sums: bool,
}

impl Totals {
    pub(super) fn add(&mut self, value: i32) {
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
/// bytes (from [`Region::seek`]) to `end`, oldest first (`added` and `deleted` only if `sums`,
/// which only scale events ask for: their codes are read with [`event_change`]).
/// One function serves every scan: the stabilizations read `low` and `high`, the policy
/// periods `added` and `deleted`. Small targets read every entry one by one (less code);
/// hosts (`FAST_FORMS`) read runs of recommendations a block at a time ([`fast::totals`]).
pub(super) fn totals(
    region: &Region,
    bytes: &[u8],
    start: usize,
    end: usize,
    sums: bool,
) -> Totals {
    if FAST_FORMS {
        fast::totals(region, bytes, start, end, sums)
    } else {
        scan(region, bytes, start, end, sums, |_, _| {})
    }
}

/// The body of [`totals`], inlined into each of its calls: every entry one by one, with
/// `read_run` given the bytes after each value (from the next gap on) and the totals so far,
/// to take a run of entries at once (the host's [`fast::totals`]) or nothing.
#[inline(always)]
pub(super) fn scan(
    region: &Region,
    bytes: &[u8],
    start: usize,
    end: usize,
    sums: bool,
    mut read_run: impl FnMut(&mut &[u8], &mut Totals),
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
    loop {
        let Some(code) = take_front(&mut rest) else {
            return t;
        };
        t.add(if sums {
            event_change(code)
        } else {
            unzigzag(code)
        });
        read_run(&mut rest, &mut t);
        if !skip_varint(&mut rest) {
            return t;
        }
    }
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

/// What the entries of a window add up to: the stored ones, and the folded ones merged as
/// their ring's kind (see `Summary::merge`). `repr(C)`: [`totals`] writes `stored` in
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
// The attribute states `crate::tuning::FAST_FORMS`'s choice (attributes cannot read it).
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
    let start = from.map_or(end, |from| region.seek(bytes, from));
    let (folded_a, folded_b, any_folded) = folded_in(generations, events, from);
    // While events are folded, their slots count as free (module docs, "Overflow"): upstream
    // may have overwritten another event than the ring did, so every period is reported.
    let any_folded = any_folded || (events && generations.len != 0);
    Window {
        stored: totals(region, bytes, start, end, events),
        folded_a,
        folded_b,
        any_folded,
    }
}

/// What a stabilization reads of its windows of recommendations: the lowest stored and folded
/// one of the scale-up window, the highest of the scale-down window (`i32::MAX` and
/// `i32::MIN` for none).
pub(super) struct WindowBounds {
    pub(super) low: i32,
    pub(super) high: i32,
    pub(super) folded_low: i32,
    pub(super) folded_high: i32,
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
