//! Time as an input: the engine never reads a clock.
//!
//! [`Instant`] is a point on the caller's monotonic clock in signed milliseconds; [`Duration`]
//! a non-negative span in milliseconds. Comparisons against `now - window` are made exactly,
//! even when the subtraction would leave the `i64` range (trace format rule 11).

/// A point in time: signed milliseconds on the caller's monotonic clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Instant(pub i64);

/// A span of time in milliseconds (never negative when built with [`Duration::from_secs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Duration(pub i64);

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

    /// `self + d` computed exactly (i128), for comparisons.
    const fn wide_add(self, d: Duration) -> i128 {
        (self.0 as i128).saturating_add(d.0 as i128)
    }

    /// Strictly after `other + d` (Go's `other.Add(d).Before(self)`), computed exactly.
    pub const fn is_after_offset(self, other: Instant, d: Duration) -> bool {
        (self.0 as i128) > other.wide_add(d)
    }

    /// Strictly before `other + d`, computed exactly.
    pub const fn is_before_offset(self, other: Instant, d: Duration) -> bool {
        (self.0 as i128) < other.wide_add(d)
    }

    /// Strictly after the cutoff `now - d` (inside a window that ends at `now`).
    pub const fn is_after_cutoff(self, now: Instant, d: Duration) -> bool {
        (self.0 as i128) > (now.0 as i128).saturating_sub(d.0 as i128)
    }

    /// Strictly before the cutoff `now - d`.
    pub const fn is_before_cutoff(self, now: Instant, d: Duration) -> bool {
        (self.0 as i128) < (now.0 as i128).saturating_sub(d.0 as i128)
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
}
