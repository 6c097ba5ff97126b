//! Time as an input: the engine never reads a clock.
//!
//! [`Instant`] is a point on the caller's monotonic clock in signed milliseconds; [`Duration`]
//! a non-negative span in milliseconds. Comparisons against `now - window` are made exactly,
//! even when the subtraction would leave the `i64` range (docs/spec/time.md#comparisons).

/// A point in time: signed milliseconds on the caller's monotonic clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(transparent)]
pub struct Instant(pub i64);

/// A span of time in milliseconds (never negative when built with [`Duration::from_secs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Duration(pub i64);

/// An instant kept in state whose zero bytes mean `i64::MIN`, "before every instant": the
/// sign bit is flipped, which keeps the order. A `static` state built by a `const fn new()`
/// stays in `.bss` only while all its bytes are zero; one non-zero field moves all of it into
/// `.data`, and so into flash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(transparent)]
pub(crate) struct ZeroIsMin(u64);

impl ZeroIsMin {
    /// `i64::MIN`.
    pub(crate) const MIN: ZeroIsMin = ZeroIsMin(0);

    const SIGN: u64 = 1 << 63;

    pub(crate) const fn new(millis: i64) -> ZeroIsMin {
        ZeroIsMin(millis.cast_unsigned() ^ Self::SIGN)
    }

    pub(crate) const fn millis(self) -> i64 {
        (self.0 ^ Self::SIGN).cast_signed()
    }
}

impl Duration {
    /// Zero length.
    pub const ZERO: Duration = Duration(0);

    /// `secs * 1000` milliseconds, saturating.
    pub const fn from_secs(secs: i64) -> Duration {
        Duration(secs.saturating_mul(1000))
    }

    /// `ms` milliseconds.
    pub const fn from_millis(ms: i64) -> Duration {
        Duration(ms)
    }

    /// The length in milliseconds.
    pub const fn as_millis(self) -> i64 {
        self.0
    }

    /// Whole seconds, truncated toward zero.
    pub const fn whole_secs(self) -> i64 {
        self.0 / 1000
    }
}

impl Instant {
    /// Milliseconds since the caller's epoch.
    pub const fn millis(self) -> i64 {
        self.0
    }

    /// Strictly after `other + d` (Go's `other.Add(d).Before(self)`), computed exactly.
    pub const fn is_after_offset(self, other: Instant, d: Duration) -> bool {
        match other.0.checked_add(d.0) {
            Some(t) => self.0 > t,
            // Beyond the i64 range: above every instant when d > 0, below every one otherwise.
            None => d.0 < 0,
        }
    }

    /// Strictly before `other + d`, computed exactly.
    pub const fn is_before_offset(self, other: Instant, d: Duration) -> bool {
        match other.0.checked_add(d.0) {
            Some(t) => self.0 < t,
            None => d.0 > 0,
        }
    }

    /// Strictly after the cutoff `now - d` (inside a window that ends at `now`).
    pub const fn is_after_cutoff(self, now: Instant, d: Duration) -> bool {
        match now.0.checked_sub(d.0) {
            Some(t) => self.0 > t,
            // Below every instant when d > 0, above every one otherwise.
            None => d.0 > 0,
        }
    }

    /// Strictly before the cutoff `now - d`.
    pub const fn is_before_cutoff(self, now: Instant, d: Duration) -> bool {
        match now.0.checked_sub(d.0) {
            Some(t) => self.0 < t,
            None => d.0 < 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cutoffs_are_exact_outside_i64() {
        // The cutoff `now - window` lies below i64::MIN: every instant is after it.
        let now = Instant(i64::MIN + 5);
        assert!(Instant(i64::MIN).is_after_cutoff(now, Duration(1000)));
        assert!(!Instant(i64::MIN).is_before_cutoff(now, Duration(1000)));
        // An instant exactly at the cutoff is neither after nor before it.
        let now = Instant(i64::MIN + 5000);
        let at_cutoff = Instant(i64::MIN + 4000);
        assert!(!at_cutoff.is_after_cutoff(now, Duration(1000)));
        assert!(!at_cutoff.is_before_cutoff(now, Duration(1000)));
        assert!(Instant(i64::MAX).is_after_offset(Instant(i64::MAX - 1), Duration(0)));
        assert!(!Instant(i64::MAX).is_after_offset(Instant(i64::MAX), Duration(i64::MAX)));
    }

    /// The comparisons against the exact i128 sums, on values around the i64 limits.
    #[test]
    #[allow(clippy::arithmetic_side_effects)]
    fn comparisons_match_wide_arithmetic() {
        let edges = [
            i64::MIN,
            i64::MIN + 1,
            i64::MIN / 2,
            -1000,
            -1,
            0,
            1,
            1000,
            i64::MAX / 2,
            i64::MAX - 1,
            i64::MAX,
        ];
        for &a in &edges {
            for &b in &edges {
                for &d in &edges {
                    let (a, b, d) = (i128::from(a), i128::from(b), i128::from(d));
                    let (x, y, span) = (Instant(a as i64), Instant(b as i64), Duration(d as i64));
                    assert_eq!(x.is_after_offset(y, span), a > b + d);
                    assert_eq!(x.is_before_offset(y, span), a < b + d);
                    assert_eq!(x.is_after_cutoff(y, span), a > b - d);
                    assert_eq!(x.is_before_cutoff(y, span), a < b - d);
                }
            }
        }
    }

    /// Zero bytes are `i64::MIN`, and the order is the instants' order.
    #[test]
    fn zero_is_min_keeps_the_order() {
        assert_eq!(ZeroIsMin::MIN, ZeroIsMin::new(i64::MIN));
        assert_eq!(ZeroIsMin::default(), ZeroIsMin::MIN);
        let edges = [i64::MIN, i64::MIN + 1, -1, 0, 1, i64::MAX - 1, i64::MAX];
        for &a in &edges {
            assert_eq!(ZeroIsMin::new(a).millis(), a);
            for &b in &edges {
                assert_eq!(ZeroIsMin::new(a).cmp(&ZeroIsMin::new(b)), a.cmp(&b));
            }
        }
    }
}
