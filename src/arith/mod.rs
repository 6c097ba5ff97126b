//! Arithmetic: upstream's float64 expressions on integers, and their exact counterparts.
//!
//! Every float64 expression of the algorithm (spec section 10.7) is one function here, taking
//! the [`Arithmetic`] mode. In `Kubernetes` mode the expression is evaluated with the
//! integer-only [`binary64::F64`] in upstream's exact order of operations; in `Exact` mode with
//! integer rationals. Conversions to integers saturate (NaN gives 0), as upstream PR #141397.

pub mod binary64;
pub(crate) mod wide;

use core::cmp::Ordering;

use crate::settings::Arithmetic;
use crate::tolerance::Tolerance;
use binary64::F64;

/// A usage ratio (`usage / target`), as upstream's float64 or as an exact fraction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ratio {
    /// Kubernetes mode: the float64 upstream computes.
    Float(F64),
    /// Exact mode: `num / den`; `den == 0` stands for upstream's ±Inf/NaN.
    #[cfg(feature = "exact")]
    Exact { num: i128, den: i128 },
}

/// The tolerance pair used by the calculators (spec section 11).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Tolerances {
    /// Scale-down tolerance: no change while `ratio >= 1 - down`.
    pub down: Tolerance,
    /// Scale-up tolerance: no change while `ratio <= 1 + up`.
    pub up: Tolerance,
}

/// Whether `mode` selects the exact rationals. Without the `exact` feature this is `false`
/// whatever the mode (the evaluation refuses `Exact` before any arithmetic), so that the
/// exact code is not built at all.
#[inline(always)]
fn exact(mode: Arithmetic) -> bool {
    cfg!(feature = "exact") && mode == Arithmetic::Exact
}

/// `float64(num) / float64(den)`.
pub(crate) fn ratio(mode: Arithmetic, num: i64, den: i64) -> Ratio {
    #[cfg(feature = "exact")]
    if exact(mode) {
        return Ratio::Exact {
            num: i128::from(num),
            den: i128::from(den),
        };
    }
    let _ = mode;
    Ratio::Float(F64::from_i64(num).div(F64::from_i64(den)))
}

/// `float64(value) / (float64(target) * float64(replicas))` (per-pod Object/External ratio).
pub(crate) fn per_pod_ratio(mode: Arithmetic, value: i64, target: i64, replicas: i32) -> Ratio {
    #[cfg(feature = "exact")]
    if exact(mode) {
        return Ratio::Exact {
            num: i128::from(value),
            den: i128::from(target).saturating_mul(i128::from(replicas)),
        };
    }
    let _ = mode;
    let den = F64::from_i64(target).mul(F64::from_i64(i64::from(replicas)));
    Ratio::Float(F64::from_i64(value).div(den))
}

/// Normalizes an exact fraction to a positive denominator; `None` for a zero denominator.
#[cfg(feature = "exact")]
fn exact_parts(num: i128, den: i128) -> Option<(i128, u128)> {
    match den.cmp(&0) {
        Ordering::Equal => None,
        Ordering::Greater => Some((num, den.unsigned_abs())),
        Ordering::Less => Some((num.saturating_neg(), den.unsigned_abs())),
    }
}

impl Ratio {
    /// The ratio compared with 1.0; `None` for NaN (or an exact 0/0).
    pub(crate) fn cmp_one(self) -> Option<Ordering> {
        match self {
            Ratio::Float(f) => f.partial_cmp_value(F64::ONE),
            #[cfg(feature = "exact")]
            Ratio::Exact { num, den } => match exact_parts(num, den) {
                Some((n, d)) => Some(wide::cmp_ratio_to_one_plus_decimal(n, d, false, 0, 0)),
                // ±Inf compares like its sign; 0/0 is NaN.
                None => match num.cmp(&0) {
                    Ordering::Equal => None,
                    other => Some(other),
                },
            },
        }
    }

    /// `ratio < 1.0`.
    pub(crate) fn below_one(self) -> bool {
        self.cmp_one() == Some(Ordering::Less)
    }

    /// `ratio > 1.0`.
    pub(crate) fn above_one(self) -> bool {
        self.cmp_one() == Some(Ordering::Greater)
    }

    /// `(1 - down) <= ratio && ratio <= (1 + up)`; NaN (and a zero exact denominator) is never
    /// within.
    pub(crate) fn within(self, tol: &Tolerances) -> bool {
        match self {
            Ratio::Float(r) => {
                let low = F64::ONE.sub(tol.down.binary64());
                let high = F64::ONE.add(tol.up.binary64());
                r.ge(low) && r.le(high)
            }
            #[cfg(feature = "exact")]
            Ratio::Exact { num, den } => match exact_parts(num, den) {
                None => false,
                Some((n, d)) => {
                    let (dm, de) = tol.down.decimal();
                    let (um, ue) = tol.up.decimal();
                    wide::cmp_ratio_to_one_plus_decimal(n, d, true, dm, de) != Ordering::Less
                        && wide::cmp_ratio_to_one_plus_decimal(n, d, false, um, ue)
                            != Ordering::Greater
                }
            },
        }
    }

    /// `int32(ceil(ratio * float64(count)))`, saturating (NaN gives 0).
    pub(crate) fn ceil_times(self, count: i64) -> i32 {
        match self {
            Ratio::Float(r) => r.mul(F64::from_i64(count)).ceil().to_i32_saturating(),
            #[cfg(feature = "exact")]
            Ratio::Exact { num, den } => match exact_parts(num, den) {
                Some((n, d)) => clamp_i32(ceil_div(n.saturating_mul(i128::from(count)), d)),
                None => infinite_to_i32(num.saturating_mul(i128::from(count))),
            },
        }
    }
}

/// `int32(ceil(float64(value) / float64(target)))`, saturating.
pub(crate) fn ceil_div_i32(mode: Arithmetic, value: i64, target: i64) -> i32 {
    #[cfg(feature = "exact")]
    if exact(mode) {
        return match exact_parts(i128::from(value), i128::from(target)) {
            Some((n, d)) => clamp_i32(ceil_div(n, d)),
            None => infinite_to_i32(i128::from(value)),
        };
    }
    let _ = mode;
    F64::from_i64(value)
        .div(F64::from_i64(target))
        .ceil()
        .to_i32_saturating()
}

/// `int64(ceil(float64(value) / float64(divisor)))`, saturating (per-pod status usage).
pub(crate) fn ceil_div_i64(mode: Arithmetic, value: i64, divisor: i64) -> i64 {
    #[cfg(feature = "exact")]
    if exact(mode) {
        return match exact_parts(i128::from(value), i128::from(divisor)) {
            Some((n, d)) => clamp_i64(ceil_div(n, d)),
            None => match value.cmp(&0) {
                Ordering::Greater => i64::MAX,
                Ordering::Less => i64::MIN,
                Ordering::Equal => 0,
            },
        };
    }
    let _ = mode;
    F64::from_i64(value)
        .div(F64::from_i64(divisor))
        .ceil()
        .to_i64_saturating()
}

/// `float64(sum) >= float64(MaxInt64)` (External per-pod status usage cap).
pub(crate) fn reaches_max_i64(mode: Arithmetic, sum: i64) -> bool {
    if exact(mode) {
        return sum == i64::MAX;
    }
    // float64(MaxInt64) is 2^63; an i64 rounds to it from 2^63 - 2^9 up.
    sum >= i64::MAX - 511
}

/// Percent scale-up proposal: `int32(ceil(float64(start) * (1 + float64(value)/100)))`.
pub(crate) fn percent_up(mode: Arithmetic, start: i32, value: i32) -> i32 {
    #[cfg(feature = "exact")]
    if exact(mode) {
        let num = i128::from(start).saturating_mul(100_i128.saturating_add(i128::from(value)));
        return clamp_i32(ceil_div(num, 100));
    }
    let _ = mode;
    let factor = F64::ONE.add(F64::from_i64(i64::from(value)).div(F64::from_i64(100)));
    F64::from_i64(i64::from(start))
        .mul(factor)
        .ceil()
        .to_i32_saturating()
}

/// Percent scale-down proposal: `int32(float64(start) * (1 - float64(value)/100))`
/// (truncation toward zero, no ceil).
pub(crate) fn percent_down(mode: Arithmetic, start: i32, value: i32) -> i32 {
    #[cfg(feature = "exact")]
    if exact(mode) {
        let num = i128::from(start).saturating_mul(100_i128.saturating_sub(i128::from(value)));
        // Rust's integer division truncates toward zero, as the float conversion does.
        return clamp_i32(div_rem_i128(num, 100).map_or(0, |(q, _)| q));
    }
    let _ = mode;
    let factor = F64::ONE.sub(F64::from_i64(i64::from(value)).div(F64::from_i64(100)));
    F64::from_i64(i64::from(start))
        .mul(factor)
        .to_i32_saturating()
}

/// An exact sum of `i64` values: an `i64` while it fits, the rest moved to an `i128` (per-pod
/// sums stay in 64-bit registers; a Cortex-M0 adds 128-bit values in software).
#[derive(Clone, Copy, Default)]
pub(crate) struct Sum {
    fast: i64,
    spilled: i128,
}

impl Sum {
    #[inline(always)]
    pub(crate) fn add(&mut self, v: i64) {
        match self.fast.checked_add(v) {
            Some(s) => self.fast = s,
            None => self.spill(v),
        }
    }

    #[cold]
    #[inline(never)]
    fn spill(&mut self, v: i64) {
        // Cannot saturate: fewer than 2^63 terms of magnitude at most 2^63.
        self.spilled = self
            .spilled
            .saturating_add(i128::from(self.fast))
            .saturating_add(i128::from(v));
        self.fast = 0;
    }

    /// The exact total.
    pub(crate) fn total(self) -> i128 {
        self.spilled.saturating_add(i128::from(self.fast))
    }

    /// The exact total clamped to `i64`, as upstream stores it.
    pub(crate) fn clamped(self) -> i64 {
        if self.spilled == 0 {
            self.fast
        } else {
            clamp_i64(self.total())
        }
    }
}

/// `(n / d, n % d)` for `d != 0`; `(0, n)` when `d == 0`.
///
/// 64-bit targets use the native division. Elsewhere a 128-bit `/` or `%` is expanded inline
/// by the compiler at every use (about 1 KB of code each on a Cortex-M0, which has no
/// `__udivti3`), so the engine sends every 128-bit division here: operands that fit 64 bits
/// use the 64-bit routine, others a compact shift-and-subtract loop ([`div_rem_u128_loop`]).
#[inline(never)]
pub(crate) fn div_rem_u128(n: u128, d: u128) -> (u128, u128) {
    if d == 0 {
        return (0, n);
    }
    if cfg!(target_pointer_width = "64") {
        return (n.checked_div(d).unwrap_or(0), n.checked_rem(d).unwrap_or(n));
    }
    if let (Ok(n), Ok(d)) = (u64::try_from(n), u64::try_from(d)) {
        let (q, r) = (n.checked_div(d).unwrap_or(0), n.checked_rem(d).unwrap_or(n));
        return (u128::from(q), u128::from(r));
    }
    div_rem_u128_loop(n, d)
}

/// Binary long division, `d != 0`: one quotient bit per step, from the highest bit `n` and
/// `d` leave room for.
pub(crate) fn div_rem_u128_loop(n: u128, d: u128) -> (u128, u128) {
    if d == 0 || n < d {
        return (0, n);
    }
    let shift = d.leading_zeros().wrapping_sub(n.leading_zeros());
    let mut d = d.wrapping_shl(shift);
    let mut q: u128 = 0;
    let mut r = n;
    for _ in 0..=shift {
        q = q.wrapping_shl(1);
        if r >= d {
            r = r.wrapping_sub(d);
            q |= 1;
        }
        d = d.wrapping_shr(1);
    }
    (q, r)
}

/// Rust's `n / d` and `n % d` on `i128` (truncation toward zero, the remainder takes the
/// sign of `n`); `None` when `d == 0` or for `i128::MIN / -1`.
pub(crate) fn div_rem_i128(n: i128, d: i128) -> Option<(i128, i128)> {
    if d == 0 || (n == i128::MIN && d == -1) {
        return None;
    }
    let (q, r) = div_rem_u128(n.unsigned_abs(), d.unsigned_abs());
    // |q| <= |n| and |r| < |d|: the casts below are exact, except q = 2^127 for
    // n = MIN, d = 1, where the wrapping negation gives MIN back.
    let q = q as i128;
    let r = r as i128;
    let q = if (n < 0) != (d < 0) {
        q.wrapping_neg()
    } else {
        q
    };
    let r = if n < 0 { r.wrapping_neg() } else { r };
    Some((q, r))
}

/// Ceiling of `n / d` for `d > 0`.
#[cfg(feature = "exact")]
fn ceil_div(n: i128, d: u128) -> i128 {
    let d = i128::try_from(d).unwrap_or(i128::MAX);
    let (q, r) = div_rem_i128(n, d).unwrap_or((0, 0));
    if r > 0 {
        q.saturating_add(1)
    } else {
        q
    }
}

/// Saturating conversion to i32.
pub(crate) fn clamp_i32(v: i128) -> i32 {
    i32::try_from(v).unwrap_or(if v < 0 { i32::MIN } else { i32::MAX })
}

/// Saturating conversion to i64.
pub(crate) fn clamp_i64(v: i128) -> i64 {
    i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX })
}

/// What an infinite (or NaN) quotient converts to.
#[cfg(feature = "exact")]
fn infinite_to_i32(num: i128) -> i32 {
    match num.cmp(&0) {
        Ordering::Greater => i32::MAX,
        Ordering::Less => i32::MIN,
        Ordering::Equal => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shift-and-subtract division that 32-bit targets run, against the native one.
    #[test]
    #[allow(clippy::arithmetic_side_effects)]
    fn division_loop_matches_native() {
        let mut s: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let check = |n: u128, d: u128| {
            if d != 0 {
                assert_eq!(div_rem_u128_loop(n, d), (n / d, n % d), "{n} / {d}");
                assert_eq!(div_rem_u128(n, d), (n / d, n % d), "{n} / {d}");
            }
        };
        for _ in 0..200_000 {
            let n = (u128::from(next()) << 64 | u128::from(next())) >> (next() % 128);
            let d = (u128::from(next()) << 64 | u128::from(next())) >> (next() % 128);
            check(n, d);
            check(n, d >> 64);
            check(n >> 64, d);
        }
        for (n, d) in [
            (u128::MAX, 1),
            (u128::MAX, u128::MAX),
            (0, 7),
            (1 << 127, 3),
            (5, 9),
        ] {
            check(n, d);
        }
        for (n, d) in [
            (i128::MIN, 1),
            (i128::MIN, -1),
            (-7, 2),
            (7, -2),
            (-7, -2),
            (0, 5),
        ] {
            let expect = n.checked_div(d).zip(n.checked_rem(d));
            assert_eq!(div_rem_i128(n, d), expect, "{n} / {d}");
        }
        assert_eq!(div_rem_i128(1, 0), None);
    }
}
