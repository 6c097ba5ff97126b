//! Arithmetic: upstream's float64 expressions on integers, and their exact counterparts.
//!
//! Every float64 expression of the algorithm (docs/spec/arithmetic.md#float64) is one function
//! here, taking the [`Arithmetic`] mode. In `Kubernetes` mode the expression is evaluated with the
//! integer-only [`binary64::F64`] in upstream's exact order of operations; in `Exact` mode with
//! integer rationals. Conversions to integers saturate (NaN gives 0), as upstream PR #141397.

pub mod binary64;
#[cfg(feature = "exact")]
mod exact;
mod tolerance;
pub(crate) mod wide;

use core::cmp::Ordering;

use crate::tuning::FAST_FORMS;
use binary64::F64;
pub use tolerance::{Tolerance, Tolerances};

/// How upstream's float64 expressions are evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Arithmetic {
    /// Reproduce upstream's IEEE binary64 results bit for bit (integer code only), so a
    /// decision equals the cluster's.
    #[default]
    Kubernetes,
    /// Evaluate every float64 expression of the algorithm in exact rationals.
    ///
    /// Needs the `exact` cargo feature (on by default). Without it the exact code is not
    /// built, [`crate::Autoscaler::evaluate`] refuses this mode with
    /// [`crate::EvaluateError::ExactArithmeticUnavailable`], and the lower-level functions
    /// (`hpa::metrics`, `hpa::normalize`) compute in `Kubernetes` mode.
    Exact,
}

/// A usage ratio (`usage / target`), as upstream's float64 or as an exact fraction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ratio {
    /// Kubernetes mode: the float64 upstream computes.
    Float(F64),
    /// Exact mode: `num / (den × scale)`; a zero denominator stands for upstream's
    /// ±Inf/NaN. The factors are kept apart (64-bit words, not the 128-bit product) so that
    /// a ratio stays small on the stack.
    #[cfg(feature = "exact")]
    Exact { num: i64, den: i64, scale: i32 },
}

/// Whether `mode` selects the exact rationals. Without the `exact` feature this is `false`
/// whatever the mode (the evaluation refuses `Exact` before any arithmetic), so that the
/// exact code is not built at all.
fn exact(mode: Arithmetic) -> bool {
    cfg!(feature = "exact") && mode == Arithmetic::Exact
}

/// `float64(num) / float64(den)`.
pub(crate) fn ratio(mode: Arithmetic, num: i64, den: i64) -> Ratio {
    #[cfg(feature = "exact")]
    if exact(mode) {
        return Ratio::Exact { num, den, scale: 1 };
    }
    let _ = mode;
    Ratio::Float(F64::from_i64(num).div(F64::from_i64(den)))
}

/// `float64(value) / (float64(target) * float64(replicas))` (per-pod Object/External ratio).
pub(crate) fn per_pod_ratio(mode: Arithmetic, value: i64, target: i64, replicas: i32) -> Ratio {
    #[cfg(feature = "exact")]
    if exact(mode) {
        return Ratio::Exact {
            num: value,
            den: target,
            scale: replicas,
        };
    }
    let _ = mode;
    let den = F64::from_i64(target).mul(F64::from_i64(i64::from(replicas)));
    Ratio::Float(F64::from_i64(value).div(den))
}

impl Ratio {
    /// The ratio compared with 1.0; `None` for NaN (or an exact 0/0). Out of line: without
    /// the `exact` feature, inlined into its callers it costs 132 bytes more code on a
    /// Cortex-M0.
    #[inline(never)]
    pub(crate) fn cmp_one(self) -> Option<Ordering> {
        match self {
            // Non-NaN bit patterns read as signed words order as 1.0's does against the
            // positive values, and every negative value (-0 too) reads as less.
            Ratio::Float(f) => {
                (!f.is_nan()).then(|| (f.to_bits() as i64).cmp(&(F64::ONE.to_bits() as i64)))
            }
            #[cfg(feature = "exact")]
            Ratio::Exact { .. } => exact_cmp(&self, false, None),
        }
    }

    /// `(1 - down) <= ratio && ratio <= (1 + up)`; NaN (and a zero exact denominator) is never
    /// within.
    pub(crate) fn within(self, tol: &Tolerances) -> bool {
        match self {
            Ratio::Float(r) => {
                // 1 is inside the band (tolerances are not negative, nor NaN): only the bound
                // on the ratio's side of 1 needs its float64 sum, one addition of the two.
                let Some(side) = self.cmp_one() else {
                    return false;
                };
                let above = side == Ordering::Greater;
                let (t, flip) = if above {
                    (&tol.up, 0)
                } else {
                    (&tol.down, 1 << 63)
                };
                let bound = F64::ONE.add(F64(t.binary64().to_bits() ^ flip));
                // Neither is NaN.
                let (low, high) = if above { (r, bound) } else { (bound, r) };
                low.order_key() <= high.order_key()
            }
            #[cfg(feature = "exact")]
            Ratio::Exact { .. } => {
                exact_cmp(&self, true, Some(&tol.down)).is_some_and(|o| o != Ordering::Less)
                    && exact_cmp(&self, false, Some(&tol.up))
                        .is_some_and(|o| o != Ordering::Greater)
            }
        }
    }

    /// `|1 - ratio| <= t`, the test before Kubernetes 1.33 (docs/spec/releases.md#tolerance-test):
    /// in float64 it differs from [`Ratio::within`] with `t` both ways where `1 - ratio`
    /// rounds; in exact arithmetic it is the same band.
    #[cfg(feature = "older-controllers")]
    pub(crate) fn within_distance(self, t: &Tolerance) -> bool {
        match self {
            Ratio::Float(r) => F64::ONE.sub(r).abs().le(t.binary64()),
            #[cfg(feature = "exact")]
            Ratio::Exact { .. } => self.within(&Tolerances { down: *t, up: *t }),
        }
    }

    /// `int32(ceil(ratio * float64(count)))`, saturating (NaN gives 0).
    pub(crate) fn ceil_times(self, count: i64) -> i32 {
        match self {
            Ratio::Float(r) => r.mul(F64::from_i64(count)).to_i32_rounded(true),
            #[cfg(feature = "exact")]
            Ratio::Exact { .. } => exact_quotient(count, &self, Rounding::Ceil32) as i32,
        }
    }
}

// Exact mode: every expression reduces to a call of one of two functions, so that their wide
// temporaries stay out of the frames of the float path, which runs inside the deepest calls
// of an evaluation.

/// An exact ratio `num / (den × scale)` compared with `1 + t`, or `1 - t` when `minus`, for
/// the tolerance `t` (`None`: zero) ([`exact::cmp_ratio`]). Taken by reference: three
/// arguments in registers at each call.
#[cfg(feature = "exact")]
fn exact_cmp(ratio: &Ratio, minus: bool, tol: Option<&Tolerance>) -> Option<Ordering> {
    let Ratio::Exact { num, den, scale } = *ratio else {
        return None;
    };
    let (m, e) = tol.map_or((0, 0), Tolerance::decimal);
    exact::cmp_ratio(num, den, scale, minus, m, e)
}

/// How [`exact_quotient`] rounds, and the integer type it saturates to.
#[cfg(feature = "exact")]
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rounding {
    /// Up, to an `i32`.
    Ceil32,
    /// Up, to an `i64`.
    Ceil64,
    /// Toward zero, to an `i32`.
    TowardZero32,
}

/// An exact ratio `num / (den × scale)` times `count`, rounded and saturated as `rounding`
/// says ([`exact::quotient`]). The ratio by reference: three arguments in registers.
#[cfg(feature = "exact")]
fn exact_quotient(count: i64, ratio: &Ratio, rounding: Rounding) -> i64 {
    let Ratio::Exact { num, den, scale } = *ratio else {
        return 0;
    };
    let high = if rounding == Rounding::Ceil64 {
        i64::MAX
    } else {
        i64::from(i32::MAX)
    };
    exact::quotient(
        num,
        count,
        den,
        i64::from(scale),
        high,
        rounding != Rounding::TowardZero32,
    )
}

/// `int64(ceil(float64(value) / float64(divisor)))`, saturating (per-pod status usage).
pub(crate) fn ceil_div_i64(mode: Arithmetic, value: i64, divisor: i64) -> i64 {
    // The quotient [`ratio`] forms (one copy of its conversions and division).
    match ratio(mode, value, divisor) {
        Ratio::Float(q) => q.to_i64_rounded(true),
        #[cfg(feature = "exact")]
        exact @ Ratio::Exact { .. } => exact_quotient(1, &exact, Rounding::Ceil64),
    }
}

/// `float64(sum) >= float64(MaxInt64)` (External per-pod status usage cap).
pub(crate) fn reaches_max_i64(mode: Arithmetic, sum: i64) -> bool {
    // float64(MaxInt64) is 2^63; an i64 rounds to it from 2^63 - 2^9 up. Exactly, only
    // MaxInt64 reaches it.
    sum >= if exact(mode) {
        i64::MAX
    } else {
        i64::MAX - 511
    }
}

/// `float64(100)`, as a constant: no conversion at run time.
const HUNDRED: F64 = F64(0x4059_0000_0000_0000);

/// Percent policy proposal: scale-up (`up`) `int32(ceil(float64(start) * (1 +
/// float64(value)/100)))`, scale-down `int32(float64(start) * (1 - float64(value)/100))`
/// (truncation toward zero, no ceil).
pub(crate) fn percent_change(mode: Arithmetic, start: i32, value: i32, up: bool) -> i32 {
    #[cfg(feature = "exact")]
    if exact(mode) {
        // start × (100 ± value) / 100: the scale-up proposal rounds up, the scale-down one
        // toward zero.
        let value = i64::from(value);
        let (factor, rounding) = if up {
            (100_i64.wrapping_add(value), Rounding::Ceil32)
        } else {
            (100_i64.wrapping_sub(value), Rounding::TowardZero32)
        };
        let ratio = Ratio::Exact {
            num: i64::from(start),
            den: 100,
            scale: 1,
        };
        return exact_quotient(factor, &ratio, rounding) as i32;
    }
    let _ = mode;
    let fraction = F64::from_i64(i64::from(value)).div(HUNDRED);
    let factor = if up {
        F64::ONE.add(fraction)
    } else {
        F64::ONE.sub(fraction)
    };
    let product = F64::from_i64(i64::from(start)).mul(factor);
    // The ceiling of the scale-up proposal is taken with the conversion.
    product.to_i32_rounded(up)
}

/// An exact sum of `i64` values: `hi × 2^64 + lo`, where `lo` is an `i64` updated with one
/// overflow-checked addition per term and `hi` counts its wraps (in registers on every
/// target: 128-bit arithmetic is expanded into far more code, and stack, on a Cortex-M0).
/// It cannot overflow: fewer than 2^63 terms of magnitude at most 2^126 stay far inside
/// `hi`'s range.
// 4-byte aligned on small targets (a Cortex-M0 loads an `i64` as two words anyway): the pod
// pass's zeroed sums then call the `__aeabi_memclr4` programs link anyway, not a second copy
// of it for 8-byte alignment (158 bytes of code).
#[cfg_attr(not(target_pointer_width = "64"), repr(C, packed(4)))]
#[derive(Clone, Copy, Default)]
pub(crate) struct Sum {
    lo: i64,
    hi: i64,
}

impl Sum {
    /// `self += v`, out of line: one copy of the code (inlined, 376 bytes more code and 72
    /// more stack on a Cortex-M0; the hosts' per-pod loop sums in 128 bits instead).
    #[inline(never)]
    pub(crate) fn push(&mut self, v: i64) {
        let (lo, wrapped) = self.lo.overflowing_add(v);
        self.lo = lo;
        if wrapped {
            // `lo` wrapped once past the `i64` range in the direction of `v`: (v >> 63) | 1
            // is -1 or 1.
            self.hi = self.hi.wrapping_add((v >> 63) | 1);
        }
    }

    /// `self += other`.
    pub(crate) fn add_sum(&mut self, other: Sum) {
        self.push(other.lo);
        self.hi = self.hi.wrapping_add(other.hi);
    }

    /// The sum whose exact total is `x`: `lo` is `x`'s low word read as an `i64`, `hi` the
    /// wraps that leaves (`x - lo` is a multiple of 2^64).
    pub(crate) fn from_i128(x: i128) -> Sum {
        let lo = x as i64;
        Sum {
            lo,
            hi: (x.wrapping_sub(i128::from(lo)) >> 64) as i64,
        }
    }

    /// The exact total clamped to `i64`, as upstream stores it.
    pub(crate) fn clamped(self) -> i64 {
        // A copy: the field may be unaligned (see the attribute above).
        let hi = self.hi;
        match hi {
            0 => self.lo,
            hi if hi < 0 => i64::MIN,
            _ => i64::MAX,
        }
    }
}

/// `±magnitude` clamped to `i64`: one copy of the code (40 bytes less on a Cortex-M0 than one
/// per caller) for the results computed on magnitudes (of up to 128 bits, so that callers need
/// not saturate them first): quantities' scaled values, milli-units of nano-unit requests,
/// percentages.
#[inline(never)]
pub(crate) fn signed(negative: bool, magnitude: u128) -> i64 {
    // 2^63 is i64::MIN's magnitude, and `i64::MIN as u64`.
    if negative {
        (magnitude.min(1 << 63) as i64).wrapping_neg()
    } else {
        magnitude.min(i64::MAX as u128) as i64
    }
}

/// [`Sum::clamped`] out of line: one copy for the pod pass's sums and a pod's container
/// requests (24 bytes less code on a Cortex-M0).
#[inline(never)]
pub(crate) fn clamp_sum(sum: Sum) -> i64 {
    sum.clamped()
}

/// `a × b` as `(high, low)` 64-bit halves: the native multiplication on hosts
/// ([`FAST_FORMS`]), elsewhere [`mul_wide_parts`].
pub(crate) fn mul_wide(a: u64, b: u64) -> (u64, u64) {
    if FAST_FORMS {
        let p = u128::from(a).wrapping_mul(u128::from(b));
        return ((p >> 64) as u64, p as u64);
    }
    mul_wide_parts(a, b)
}

/// [`mul_wide`] from four 32 × 32-bit products (a 128-bit multiplication is expanded into
/// far more code on 32-bit targets).
pub(crate) fn mul_wide_parts(a: u64, b: u64) -> (u64, u64) {
    const LOW: u64 = 0xFFFF_FFFF;
    let (a1, a0) = (a >> 32, a & LOW);
    let (b1, b0) = (b >> 32, b & LOW);
    // Each product of two values below 2^32 is below 2^64; the sums below cannot overflow
    // (mid < 3 × 2^32, hi < 2^64 since a × b < 2^128).
    let p00 = a0.wrapping_mul(b0);
    let p01 = a0.wrapping_mul(b1);
    let p10 = a1.wrapping_mul(b0);
    let p11 = a1.wrapping_mul(b1);
    let mid = (p00 >> 32).wrapping_add(p01 & LOW).wrapping_add(p10 & LOW);
    let lo = (mid << 32) | (p00 & LOW);
    let hi = p11
        .wrapping_add(p01 >> 32)
        .wrapping_add(p10 >> 32)
        .wrapping_add(mid >> 32);
    (hi, lo)
}

/// `floor(m × c / d)` for `m < d`, computed over `c`'s bits from the top (doubling, then
/// adding `m`), keeping `q × d + r` with `r < d`: every intermediate fits 64 bits (`2r` and
/// `r + m` stay below `2d <= 2^64`), where `m × c` may not.
pub(crate) fn mul_div_below(m: u64, c: u8, d: u64) -> u64 {
    let mut q: u64 = 0;
    let mut r: u64 = 0;
    for bit in (0..8).rev() {
        q = q.wrapping_shl(1);
        let (twice, carry) = r.overflowing_add(r);
        r = twice;
        if carry || r >= d {
            r = r.wrapping_sub(d);
            q = q.wrapping_add(1);
        }
        if c >> bit & 1 == 1 {
            let (sum, carry) = r.overflowing_add(m);
            r = sum;
            if carry || r >= d {
                r = r.wrapping_sub(d);
                q = q.wrapping_add(1);
            }
        }
    }
    q
}

/// `(n / d, n % d)` for a 32-bit divisor `d != 0`, by four 64-by-32-bit steps (schoolbook
/// short division); `(0, 0)` when `d == 0`. The 64-bit division it runs on 32-bit targets is
/// the one the rest of the program links anyway. Hosts ([`FAST_FORMS`]) divide natively.
pub(crate) fn div_small(n: u128, d: u32) -> (u128, u32) {
    // Both forms give `(0, 0)` for `d == 0` on their own: no early return of a constant
    // `u128` (a call to `__aeabi_memclr8` on a Cortex-M0).
    if FAST_FORMS {
        let d = u128::from(d);
        return (
            n.checked_div(d).unwrap_or(0),
            n.checked_rem(d).unwrap_or(0) as u32,
        );
    }
    div_small_steps(n, d)
}

/// [`div_small`] in 64-bit steps (what 32-bit targets run), from the top 32-bit limb down;
/// `(0, 0)` when `d == 0`.
pub(crate) fn div_small_steps(n: u128, d: u32) -> (u128, u32) {
    let d = u64::from(d);
    let mut limbs = limbs(n);
    let mut r: u64 = 0;
    for l in limbs.iter_mut().rev() {
        // r < d < 2^32: the partial dividend fits 64 bits.
        let part = (r << 32) | u64::from(*l);
        let q = part.checked_div(d).unwrap_or(0);
        *l = q as u32;
        // The remainder is below d < 2^32: the low words give it (a 32-bit multiply
        // instead of a 64-bit one).
        r = u64::from((part as u32).wrapping_sub((q as u32).wrapping_mul(d as u32)));
    }
    // Without a divisor, every quotient limb is 0 and `r` the lowest limb: no remainder.
    (from_limbs(limbs), if d == 0 { 0 } else { r as u32 })
}

/// `n × d`, or `None` beyond `u128`: the native multiplication on hosts ([`FAST_FORMS`]),
/// elsewhere [`mul_small_steps`] (a 128-bit multiplication is expanded inline, about 1 KB
/// of code, on 32-bit targets).
pub(crate) fn mul_small(n: u128, d: u32) -> Option<u128> {
    if FAST_FORMS {
        return n.checked_mul(u128::from(d));
    }
    mul_small_steps(n, d)
}

/// [`mul_small`] in 64-bit steps, from the lowest 32-bit limb up.
pub(crate) fn mul_small_steps(n: u128, d: u32) -> Option<u128> {
    let d = u64::from(d);
    let mut limbs = limbs(n);
    let mut carry: u64 = 0;
    for l in limbs.iter_mut() {
        // limb × d + carry < 2^64.
        let part = u64::from(*l).wrapping_mul(d).wrapping_add(carry);
        *l = part as u32;
        carry = part >> 32;
    }
    (carry == 0).then_some(from_limbs(limbs))
}

/// The 32-bit limbs of `n`, lowest first.
fn limbs(n: u128) -> [u32; 4] {
    [
        n as u32,
        (n >> 32) as u32,
        (n >> 64) as u32,
        (n >> 96) as u32,
    ]
}

/// The value of 32-bit limbs, lowest first.
fn from_limbs([l0, l1, l2, l3]: [u32; 4]) -> u128 {
    u128::from(l0) | u128::from(l1) << 32 | u128::from(l2) << 64 | u128::from(l3) << 96
}

/// Saturating conversion to i32.
#[cfg(test)]
pub(crate) fn clamp_i32(v: i128) -> i32 {
    i32::try_from(v).unwrap_or(if v < 0 { i32::MIN } else { i32::MAX })
}

/// Saturating conversion of an `i64` to i32, out of line: one copy for its callers.
#[inline(never)]
pub(crate) fn clamp_i64_to_i32(v: i64) -> i32 {
    i32::try_from(v).unwrap_or(if v < 0 { i32::MIN } else { i32::MAX })
}

/// Saturating conversion to i64.
#[cfg(test)]
pub(crate) fn clamp_i64(v: i128) -> i64 {
    i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX })
}

/// The unit tests' random operands, drawn from the one generator of the tests
/// (`testkit::Rng`).
#[cfg(test)]
pub(crate) fn test_rng(seed: u64) -> impl FnMut() -> u64 {
    let mut rng = testkit::Rng::new(seed);
    move || rng.next_u64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hundred_is_float64_of_100() {
        assert_eq!(HUNDRED, F64::from_i64(100));
    }

    /// The float64 band test, one bound computed, and the comparison with 1 against the host's
    /// `f64` with both bounds: ratios near 1, specials and any bits, tolerances from 0 up.
    #[test]
    #[allow(clippy::float_cmp)]
    fn band_matches_host_float64() {
        extern crate std;
        let mut next = test_rng(0x2545_F491_4F6C_DD1D);
        let specials = [
            0,
            1 << 63,
            F64::ONE.0,
            F64::INFINITY.0,
            F64::NAN.0,
            1,
            0xBFF0 << 48,
        ];
        // Under Miri, which interprets each case (two decimal tolerances converted) in about a
        // second: 12 cases, 3 of each kind of ratio.
        for i in 0..if cfg!(miri) { 12 } else { 300_000 } {
            let r = next();
            let ratio = F64(match i % 4 {
                0 => specials[(r % 7) as usize],
                1 => r,
                _ => F64::ONE.0.wrapping_add(r % 2001).wrapping_sub(1000) | (r & 1 << 62) << 1,
            });
            let t = |bits: u64| {
                let exp = 10 + bits % 13;
                Tolerance::from_decimal(bits >> 40, -(exp as i32)).unwrap_or_default()
            };
            let tol = Tolerances {
                down: t(next()),
                up: t(next()),
            };
            let x = f64::from_bits(ratio.0);
            let (down, up) = (
                f64::from_bits(tol.down.binary64().0),
                f64::from_bits(tol.up.binary64().0),
            );
            let want = 1.0 - down <= x && x <= 1.0 + up;
            assert_eq!(Ratio::Float(ratio).within(&tol), want, "{x} {down} {up}");
            assert_eq!(Ratio::Float(ratio).cmp_one(), x.partial_cmp(&1.0), "{x}");
        }
    }

    /// Exact mode's expressions against native 128-bit references.
    #[cfg(feature = "exact")]
    #[test]
    #[allow(clippy::arithmetic_side_effects)]
    fn exact_helpers_match_i128() {
        let mut rng = test_rng(0x9E37_79B9_7F4A_7C15);
        let mut next = || {
            let s = rng();
            (s as i64) >> (s % 64)
        };
        let check = |a: i64, b: i64| {
            // Native ceilings of i128 quotients; a zero divisor saturates by the sign.
            let ceil = |n: i128, d: i128| match (n.signum(), d) {
                (sign, 0) => sign * i128::MAX,
                _ => n / d + i128::from(n % d != 0 && (n < 0) == (d < 0)),
            };
            let (n, d) = (i128::from(a), i128::from(b));
            let exact = Arithmetic::Exact;
            assert_eq!(
                ratio(exact, a, b).ceil_times(1),
                clamp_i32(ceil(n, d)),
                "{a} / {b}"
            );
            assert_eq!(
                ceil_div_i64(exact, a, b),
                clamp_i64(ceil(n, d)),
                "{a} / {b}"
            );
            // ceil(a × count / (b × replicas)), and its comparisons with 1.
            let (count, replicas) = (a >> 7, b as i32);
            let ratio = per_pod_ratio(exact, a, b, replicas);
            let (num, den) = (n * i128::from(count), d * i128::from(replicas));
            assert_eq!(ratio.ceil_times(count), clamp_i32(ceil(num, den)));
            let vs_one = match (den.signum(), n.signum()) {
                (0, 0) => None,
                (0, sign) => Some(sign.cmp(&0)),
                (sign, _) => Some((n * sign).cmp(&(den * sign))),
            };
            assert_eq!(ratio.cmp_one(), vs_one, "{a} / ({b} × {replicas})");
            let (start, value) = (a as i32, b as i32);
            for up in [false, true] {
                let factor = if up {
                    100 + i128::from(value)
                } else {
                    100 - i128::from(value)
                };
                let num = i128::from(start) * factor;
                let want = clamp_i32(if up { ceil(num, 100) } else { num / 100 });
                assert_eq!(percent_change(Arithmetic::Exact, start, value, up), want);
            }
        };
        let edges = [
            i64::MIN,
            i64::MIN + 1,
            -101,
            -100,
            -99,
            -1,
            0,
            1,
            99,
            100,
            101,
            i64::MAX,
        ];
        // Under Miri, which interprets each check in seconds (exact quotients, a wide
        // comparison per bit): every 61st pair of edges (3) and a random pair.
        let (stride, random) = if cfg!(miri) { (61, 1) } else { (1, 100_000) };
        let pairs = edges
            .iter()
            .flat_map(|&a| edges.iter().map(move |&b| (a, b)));
        for (a, b) in pairs.step_by(stride) {
            check(a, b);
        }
        for _ in 0..random {
            check(next(), next());
        }
    }

    /// The 64-bit building blocks against native 128-bit arithmetic.
    #[test]
    #[allow(clippy::arithmetic_side_effects)]
    fn word_helpers_match_native() {
        let mut rng = test_rng(0x9E37_79B9_7F4A_7C15);
        let mut next = || {
            let s = rng();
            s >> (s % 64)
        };
        let mut sum = Sum::default();
        let mut reference: i128 = 0;
        for i in 0..if cfg!(miri) { 200 } else { 200_000 } {
            let (a, b) = (next(), next().max(1));
            let n = u128::from(a) << 64 | u128::from(next());
            let d = (b as u32).max(1);
            assert_eq!(
                div_small_steps(n, d),
                (n / u128::from(d), (n % u128::from(d)) as u32)
            );
            assert_eq!(div_small(n, d), div_small_steps(n, d));
            assert_eq!(mul_small_steps(n, d), n.checked_mul(u128::from(d)));
            assert_eq!(
                mul_small_steps(n >> 40, d),
                (n >> 40).checked_mul(u128::from(d))
            );
            assert_eq!(mul_small(n >> 40, d), mul_small_steps(n >> 40, d));
            let m = a % b;
            for c in [0u8, 1, 7, 10, 100, 255] {
                let want = (u128::from(m) * u128::from(c) / u128::from(b)) as u64;
                assert_eq!(mul_div_below(m, c, b), want, "{m} * {c} / {b}");
            }
            let p = u128::from(a) * u128::from(b);
            assert_eq!(mul_wide_parts(a, b), ((p >> 64) as u64, p as u64));
            assert_eq!(mul_wide(a, b), ((p >> 64) as u64, p as u64));
            let (x, y) = (a as i64, (b as i64).wrapping_neg());
            if i % 3 == 0 {
                sum.push(y);
                reference += i128::from(y);
            } else {
                sum.push(x);
                reference += i128::from(x);
            }
            assert_eq!(sum.clamped(), clamp_i64(reference));
            assert_eq!(Sum::from_i128(reference).clamped(), clamp_i64(reference));
            let (mut from, mut added) = (Sum::from_i128(reference), Sum::default());
            from.push(x);
            added.add_sum(sum);
            added.push(x);
            assert_eq!(from.clamped(), added.clamped());
            let mut twice = sum;
            twice.add_sum(sum);
            assert_eq!(twice.clamped(), clamp_i64(2 * reference));
        }
        assert_eq!(div_small(5, 0), (0, 0));
        assert_eq!(div_small_steps(u128::MAX, 0), (0, 0));
        let mut s = Sum::default();
        s.push(i64::MIN);
        s.push(-1);
        assert_eq!(s.clamped(), i64::MIN);
        s.push(1);
        assert_eq!(s.clamped(), i64::MIN);
        for _ in 0..4 {
            s.push(i64::MAX);
        }
        assert_eq!(s.clamped(), i64::MAX);
    }
}
