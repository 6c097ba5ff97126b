//! The window scans: the cutoff of a window or period, and what the entries of a window add
//! up to.

use super::codec::{gap_from_code, skip_varint, take_front};
use super::extremes::Bound;
use super::ring::Region;
use super::summary::Kind;
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
    /// How long before the last entry read the newest entry holding `key` is (ms), saturated
    /// to `u32::MAX` (in 32 bits: one instruction an operation on a 32-bit target, and only
    /// ages below 2^31 are kept).
    pub(super) age: u32,
    pub(super) changes: Changes,
}

/// The [`Totals`] of the entries of `region` in `bytes` not before `from` (none for `None`),
/// with values read as `kind`. One routine for both rings, not inlined on small targets: the
/// stabilizations read `key` and `age`, the policy periods `changes`.
// The attribute states `crate::tuning::FAST_FORMS`'s choice (attributes cannot read it).
#[cfg_attr(not(target_pointer_width = "64"), inline(never))]
pub(super) fn totals(
    region: &Region,
    bytes: &[u8],
    from: Option<i64>,
    kind: Kind,
    bound: Bound,
) -> Totals {
    let mut t = Totals {
        key: i32::MIN,
        age: 0,
        changes: Changes::default(),
    };
    let Some(from) = from else {
        return t;
    };
    let start = region.seek(bytes, from);
    let Some(mut rest) = region.live(bytes).get(start..) else {
        return t;
    };
    // Every entry but the oldest starts with its gap.
    if start != 0 && !skip_varint(&mut rest) {
        return t;
    }
    while let Some(code) = take_front(&mut rest) {
        let value = kind.value(code);
        t.changes.add(value);
        let key = bound.key(value);
        if key >= t.key {
            (t.key, t.age) = (key, 0);
        }
        let Some(gap) = take_front(&mut rest) else {
            break;
        };
        let gap = u32::try_from(gap_from_code(gap)).unwrap_or(u32::MAX);
        t.age = t.age.saturating_add(gap);
    }
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
