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

/// `float64(num) / float64(den)`.
pub(crate) fn ratio(mode: Arithmetic, num: i64, den: i64) -> Ratio {
    match mode {
        Arithmetic::Kubernetes => Ratio::Float(F64::from_i64(num).div(F64::from_i64(den))),
        Arithmetic::Exact => Ratio::Exact {
            num: i128::from(num),
            den: i128::from(den),
        },
    }
}

/// `float64(value) / (float64(target) * float64(replicas))` (per-pod Object/External ratio).
pub(crate) fn per_pod_ratio(mode: Arithmetic, value: i64, target: i64, replicas: i32) -> Ratio {
    match mode {
        Arithmetic::Kubernetes => {
            let den = F64::from_i64(target).mul(F64::from_i64(i64::from(replicas)));
            Ratio::Float(F64::from_i64(value).div(den))
        }
        Arithmetic::Exact => Ratio::Exact {
            num: i128::from(value),
            den: i128::from(target).saturating_mul(i128::from(replicas)),
        },
    }
}

/// Normalizes an exact fraction to a positive denominator; `None` for a zero denominator.
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
            Ratio::Float(f) => {
                if f.lt(F64::ONE) {
                    Some(Ordering::Less)
                } else if f.gt(F64::ONE) {
                    Some(Ordering::Greater)
                } else if f.eq_value(F64::ONE) {
                    Some(Ordering::Equal)
                } else {
                    None
                }
            }
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
            Ratio::Exact { num, den } => match exact_parts(num, den) {
                Some((n, d)) => clamp_i32(ceil_div(n.saturating_mul(i128::from(count)), d)),
                None => infinite_to_i32(num.saturating_mul(i128::from(count))),
            },
        }
    }
}

/// `int32(ceil(float64(value) / float64(target)))`, saturating.
pub(crate) fn ceil_div_i32(mode: Arithmetic, value: i64, target: i64) -> i32 {
    match mode {
        Arithmetic::Kubernetes => F64::from_i64(value)
            .div(F64::from_i64(target))
            .ceil()
            .to_i32_saturating(),
        Arithmetic::Exact => match exact_parts(i128::from(value), i128::from(target)) {
            Some((n, d)) => clamp_i32(ceil_div(n, d)),
            None => infinite_to_i32(i128::from(value)),
        },
    }
}

/// `int64(ceil(float64(value) / float64(divisor)))`, saturating (per-pod status usage).
pub(crate) fn ceil_div_i64(mode: Arithmetic, value: i64, divisor: i64) -> i64 {
    match mode {
        Arithmetic::Kubernetes => F64::from_i64(value)
            .div(F64::from_i64(divisor))
            .ceil()
            .to_i64_saturating(),
        Arithmetic::Exact => match exact_parts(i128::from(value), i128::from(divisor)) {
            Some((n, d)) => clamp_i64(ceil_div(n, d)),
            None => match value.cmp(&0) {
                Ordering::Greater => i64::MAX,
                Ordering::Less => i64::MIN,
                Ordering::Equal => 0,
            },
        },
    }
}

/// `float64(sum) >= float64(MaxInt64)` (External per-pod status usage cap).
pub(crate) fn reaches_max_i64(mode: Arithmetic, sum: i64) -> bool {
    match mode {
        Arithmetic::Kubernetes => F64::from_i64(sum).ge(F64::from_i64(i64::MAX)),
        Arithmetic::Exact => sum == i64::MAX,
    }
}

/// Percent scale-up proposal: `int32(ceil(float64(start) * (1 + float64(value)/100)))`.
pub(crate) fn percent_up(mode: Arithmetic, start: i32, value: i32) -> i32 {
    match mode {
        Arithmetic::Kubernetes => {
            let factor = F64::ONE.add(F64::from_i64(i64::from(value)).div(F64::from_i64(100)));
            F64::from_i64(i64::from(start))
                .mul(factor)
                .ceil()
                .to_i32_saturating()
        }
        Arithmetic::Exact => {
            let num = i128::from(start).saturating_mul(100_i128.saturating_add(i128::from(value)));
            clamp_i32(ceil_div(num, 100))
        }
    }
}

/// Percent scale-down proposal: `int32(float64(start) * (1 - float64(value)/100))`
/// (truncation toward zero, no ceil).
pub(crate) fn percent_down(mode: Arithmetic, start: i32, value: i32) -> i32 {
    match mode {
        Arithmetic::Kubernetes => {
            let factor = F64::ONE.sub(F64::from_i64(i64::from(value)).div(F64::from_i64(100)));
            F64::from_i64(i64::from(start))
                .mul(factor)
                .to_i32_saturating()
        }
        Arithmetic::Exact => {
            let num = i128::from(start).saturating_mul(100_i128.saturating_sub(i128::from(value)));
            // Rust's integer division truncates toward zero, as the float conversion does.
            clamp_i32(num.checked_div(100).unwrap_or(0))
        }
    }
}

/// Ceiling of `n / d` for `d > 0`.
fn ceil_div(n: i128, d: u128) -> i128 {
    let d = i128::try_from(d).unwrap_or(i128::MAX);
    let q = n.checked_div(d).unwrap_or(0);
    let r = n.checked_rem(d).unwrap_or(0);
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
fn infinite_to_i32(num: i128) -> i32 {
    match num.cmp(&0) {
        Ordering::Greater => i32::MAX,
        Ordering::Less => i32::MIN,
        Ordering::Equal => 0,
    }
}
