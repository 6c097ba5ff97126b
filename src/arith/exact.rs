//! Exact mode: upstream's float64 expressions as exact rationals, on two primitives.
//!
//! Every exact expression of the algorithm is a comparison of a fraction with `1 ± t` for a
//! decimal tolerance `t` ([`cmp_ratio`]), or a fraction rounded up or toward zero and saturated to an
//! integer type ([`quotient`]). Numerators and denominators are products of two 64-bit integers
//! in two's complement over the limbs of a [`Big`]: its limb loops are the only wide
//! arithmetic, and no 128-bit multiplication or division is linked (each is expanded into
//! about a kilobyte of code on a Cortex-M0).

use core::cmp::Ordering;

use super::wide::Big;

/// Limbs of every exact value: 320 bits, of which the largest magnitude formed takes 302 (see
/// [`cmp_ratio`]), so that two's complement holds every value with its sign.
const LIMBS: usize = 10;

/// A signed exact integer: two's complement modulo `2^320`. Addition, subtraction and
/// multiplication by a non-negative factor are the unsigned limb operations, exact while the
/// true value stays within `±2^319`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Signed(Big<LIMBS>);

impl Signed {
    /// `a × b`, exact.
    pub(crate) fn product(a: i64, b: i64) -> Signed {
        let mut x = Signed(Big::from_i64(a));
        x.0.mul_small(b.unsigned_abs());
        if b < 0 {
            x.negate();
        }
        x
    }

    /// Whether the value is below zero (its top bit).
    fn is_negative(&self) -> bool {
        self.0.top_bit()
    }

    /// The value's sign as an ordering against zero.
    fn sign(&self) -> Ordering {
        if self.0.is_zero() {
            Ordering::Equal
        } else if self.is_negative() {
            Ordering::Less
        } else {
            Ordering::Greater
        }
    }

    /// `self = -self`.
    fn negate(&mut self) {
        let mut zero = Big::zero();
        zero.sub_assign(&self.0);
        self.0 = zero;
    }

    /// `|self|`.
    fn magnitude(mut self) -> Big<LIMBS> {
        if self.is_negative() {
            self.negate();
        }
        self.0
    }
}

/// Compares `num / den` with `1 + t`, or with `1 - t` when `minus`, where `t = m × 10^e`.
/// A zero denominator stands for upstream's ±Inf (ordered by the numerator's sign, beyond
/// every finite bound) or NaN (`0/0`, unordered: `None`).
///
/// Numerators are below `2^63` in magnitude, denominators below `2^94` (an `i64` times an
/// `i32`).
pub(crate) fn cmp_ratio(num: Signed, den: Signed, minus: bool, m: u64, e: i32) -> Option<Ordering> {
    let (mut num, mut den) = (num, den);
    if den.0.is_zero() {
        return match num.sign() {
            Ordering::Equal => None,
            sign => Some(sign),
        };
    }
    // A positive denominator: the fraction's sign moves to the numerator.
    if den.is_negative() {
        num.negate();
        den.negate();
    }
    let (mut k, mut j) = (e.min(0).unsigned_abs(), e.max(0).unsigned_abs());
    let mut m = m;
    // Clamped exponents change no comparison. A nonzero t from 10^39 up exceeds every
    // |ratio| + 1 (below 2^126 + 1 < 10^38), like 10^39 itself; one below 2^64 × 10^-62 <
    // 2^-142 lies, like 10^-62, within (0, 1/den): a ratio other than 1 lies at least 1/den
    // from 1, beyond 1 ± t on its own side, and a ratio of 1 lies inside.
    if j > 39 {
        (j, m) = (39, m.min(1));
    }
    if k > 62 {
        (k, m) = (62, m.min(1));
    }
    // The sign of num × 10^k - (den × 10^k ± den × m × 10^j), k or j zero. Magnitudes: at
    // most 2^63 × 10^62 < 2^270, 2^94 × 10^62 < 2^301 and 2^94 × 2^64 × 10^39 < 2^288, and
    // the result below 2^302.
    let mut offset = den;
    offset.0.mul_pow10(j);
    offset.0.mul_small(m);
    num.0.mul_pow10(k);
    den.0.mul_pow10(k);
    num.0.sub_assign(&den.0);
    if minus {
        num.0.add_assign(&offset.0);
    } else {
        num.0.sub_assign(&offset.0);
    }
    Some(num.sign())
}

/// `num / den` rounded up (`ceil`) or toward zero (`!ceil`), saturated to `[-high - 1,
/// high]`, where `high = 2^bits - 1` with `bits` in `1..=63` (`i32::MAX` or `i64::MAX`). A
/// zero denominator gives the bound of the numerator's sign (upstream's ±Inf converted with
/// saturation), or 0 for `0/0` (NaN).
pub(crate) fn quotient(num: Signed, den: Signed, high: i64, ceil: bool) -> i64 {
    let low = (-1_i64).wrapping_sub(high);
    if den.0.is_zero() {
        return match num.sign() {
            Ordering::Equal => 0,
            Ordering::Less => low,
            Ordering::Greater => high,
        };
    }
    let negative = num.is_negative() != den.is_negative();
    let (n, d) = (num.magnitude(), den.magnitude());
    // q = floor(n / d), found bit by bit from 2^bits down (q <= 2^(bits + 1) - 1, below
    // 2^64): the largest q with d × q <= n. A multiplication and a comparison per bit: no
    // wide division.
    let top = high.unsigned_abs().wrapping_add(1);
    let mut q: u64 = 0;
    let mut bit = top;
    let mut product = Big::zero();
    while bit != 0 {
        let candidate = q | bit;
        let mut p = d;
        p.mul_small(candidate);
        if p <= n {
            q = candidate;
            product = p;
        }
        bit >>= 1;
    }
    if negative {
        // A negative quotient: its ceiling is its truncation toward zero.
        if q >= top {
            low
        } else {
            (q as i64).wrapping_neg()
        }
    } else {
        let inexact = ceil && product != n;
        q.saturating_add(u64::from(inexact))
            .min(high.unsigned_abs()) as i64
    }
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects, clippy::unwrap_used)]
mod tests {
    use super::*;
    use core::cmp::Ordering::{Equal, Greater, Less};

    /// A signed value from an `i128` (the tests' operands; the engine forms only products).
    fn signed(v: i128) -> Signed {
        let mut x = Signed(Big::from_u128(v.unsigned_abs()));
        if v < 0 {
            x.negate();
        }
        x
    }

    /// `cmp_ratio` of `num / den` (den > 0) against `1 ± m × 10^e`.
    fn cmp(num: i128, den: i128, minus: bool, m: u64, e: i32) -> Ordering {
        cmp_ratio(signed(num), signed(den), minus, m, e).unwrap()
    }

    /// Exact reference for small cases, in scaled i128 arithmetic (valid while nothing
    /// overflows).
    fn reference(num: i128, den: i128, minus: bool, m: u64, e: i32) -> Ordering {
        let m = i128::from(m);
        if e >= 0 {
            let t = m * 10i128.pow(e as u32);
            let f = if minus { 1 - t } else { 1 + t };
            num.cmp(&(den * f))
        } else {
            let p = 10i128.pow((-e) as u32);
            let f = if minus { p - m } else { p + m };
            (num * p).cmp(&(den * f))
        }
    }

    #[test]
    fn cmp_small_exhaustive() {
        for num in -60i128..=60 {
            for den in (-12i128..=12).filter(|&d| d != 0) {
                for m in 0u64..=25 {
                    for e in -3i32..=2 {
                        for minus in [false, true] {
                            // The reference wants a positive denominator.
                            let want = reference(num * den.signum(), den.abs(), minus, m, e);
                            assert_eq!(
                                cmp(num, den, minus, m, e),
                                want,
                                "{num}/{den} vs 1{}{m}e{e}",
                                if minus { "-" } else { "+" }
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn cmp_known_cases() {
        // 11/10 == 1 + 1e-1, 9/10 == 1 - 1e-1.
        assert_eq!(cmp(11, 10, false, 1, -1), Equal);
        assert_eq!(cmp(9, 10, true, 1, -1), Equal);
        // 1 against 1 ± tiny.
        for e in [-20, -58, -59, -60, -61, -62, -100, -400, i32::MIN] {
            assert_eq!(cmp(7, 7, false, 1, e), Less);
            assert_eq!(cmp(7, 7, true, 1, e), Greater);
            assert_eq!(cmp(7, 7, false, 0, e), Equal);
            assert_eq!(cmp(7, 7, true, u64::MAX, e), Greater);
        }
        // The largest products the engine forms: i64 × i64 over i64 × i32.
        let den = i128::from(i64::MAX) * i128::from(i32::MAX);
        // (den + 1) / den = 1 + 1/den, 1/den ~ 5.0e-29.
        assert_eq!(cmp(den + 1, den, false, 5, -29), Greater);
        assert_eq!(cmp(den + 1, den, false, 6, -29), Less);
        assert_eq!(cmp(den - 1, den, true, 5, -29), Less);
        assert_eq!(cmp(den - 1, den, true, 6, -29), Greater);
        let max = i128::from(i64::MIN) * i128::from(i64::MIN);
        // 2^126 ~ 8.5e37.
        assert_eq!(cmp(max, 1, false, 85, 36), Greater);
        assert_eq!(cmp(max, 1, false, 86, 36), Less);
        assert_eq!(cmp(-max, 1, true, 85, 36), Less);
        assert_eq!(cmp(-max, 1, true, 86, 36), Greater);
        // Huge exponents either way.
        for e in [39, 40, 300, i32::MAX] {
            assert_eq!(cmp(max, 1, false, 1, e), Less);
            assert_eq!(cmp(-max, 1, true, 1, e), Greater);
        }
        // Negative ratios against 1 - t.
        assert_eq!(cmp(-1, 2, true, 15, -1), Equal);
        assert_eq!(cmp(-1, 2, true, 16, -1), Greater);
        assert_eq!(cmp(-1, 2, true, 14, -1), Less);
        // Zero denominators: ±Inf beyond every bound, 0/0 unordered.
        for (minus, m, e) in [(false, 0, 0), (true, 1, -1), (false, 7, 300)] {
            let zero = Signed::product(0, 5);
            let of = |n: i64| cmp_ratio(Signed::product(n, 3), zero, minus, m, e);
            assert_eq!(of(2), Some(Greater));
            assert_eq!(of(-2), Some(Less));
            assert_eq!(of(0), None);
        }
    }

    /// Against an independent formulation over random fractions: both sides scaled by
    /// `10^70` in 1,024-bit integers (no clamp of large or small exponents).
    #[test]
    fn cmp_random_vs_scaled() {
        let mut next = crate::arith::test_rng(0x9E37_79B9_7F4A_7C15);
        let mut factor = |bits: u64| {
            let r = next();
            (r as i64) >> (r % bits)
        };
        for _ in 0..40_000 {
            // Numerators are one i64 (the engine's domain), with either sign of b.
            let a = factor(64);
            let b = if a & 2 == 2 { -1 } else { 1 };
            let (c, d) = (factor(64), i64::from(factor(64) as i32));
            if c == 0 || d == 0 {
                continue;
            }
            let m = factor(64).unsigned_abs();
            let e = (factor(64).unsigned_abs() % 140) as i32 - 70;
            let minus = a & 1 == 1;
            const K: i32 = 70;
            let pk = Big::<32>::pow10(K as u32);
            let big = |x: i64, y: i64| {
                let mut v = Big::<32>::from_u64(x.unsigned_abs());
                v.mul_small(y.unsigned_abs());
                v
            };
            let (num, den) = (big(a, b), big(c, d));
            // Signs: compare sign(num/den) × |num| × 10^K with |den| × (10^K ± m × 10^(e+K)).
            let neg = ((a < 0) != (b < 0)) != ((c < 0) != (d < 0));
            let mut t = Big::<32>::pow10((e + K) as u32);
            t.mul_small(m);
            let (f_neg, f) = if !minus {
                let mut f = pk;
                f.add_assign(&t);
                (false, f)
            } else if pk >= t {
                let mut f = pk;
                f.sub_assign(&t);
                (false, f)
            } else {
                let mut f = t;
                f.sub_assign(&pk);
                (true, f)
            };
            let as_signed = |neg: bool, v: Big<32>| (neg && !v.is_zero(), v);
            let lhs = as_signed(neg, pk.mul_big(&num));
            let rhs = as_signed(f_neg, f.mul_big(&den));
            let want = match (lhs.0, rhs.0) {
                (false, false) => lhs.1.cmp(&rhs.1),
                (true, true) => rhs.1.cmp(&lhs.1),
                (true, false) => Less,
                (false, true) => Greater,
            };
            assert_eq!(
                cmp_ratio(Signed::product(a, b), Signed::product(c, d), minus, m, e),
                Some(want),
                "{a}×{b} / {c}×{d} vs 1{}{m}e{e}",
                if minus { "-" } else { "+" }
            );
        }
    }

    /// `quotient` against native 128-bit ceilings and truncations, saturated, over edges and
    /// random products, for both widths.
    #[test]
    fn quotient_matches_i128() {
        let ceil = |n: i128, d: i128| n / d + i128::from(n % d != 0 && (n < 0) == (d < 0));
        let check = |a: i64, b: i64, c: i64, d: i64| {
            let (n, den) = (i128::from(a) * i128::from(b), i128::from(c) * i128::from(d));
            for (bits, ceil_up) in [(31u32, true), (63, true), (31, false), (63, false)] {
                let (low, high) = (-(1i128 << bits), (1i128 << bits) - 1);
                let want = if den == 0 {
                    match n.signum() {
                        0 => 0,
                        -1 => low,
                        _ => high,
                    }
                } else if ceil_up {
                    ceil(n, den).clamp(low, high)
                } else {
                    (n / den).clamp(low, high)
                };
                let high = ((1u64 << bits) - 1) as i64;
                let num = Signed::product(a, b);
                let got = quotient(num, Signed::product(c, d), high, ceil_up);
                assert_eq!(
                    i128::from(got),
                    want,
                    "{a}×{b} / {c}×{d}, {bits} bits, ceil {ceil_up}"
                );
            }
        };
        let edges = [
            i64::MIN,
            i64::MIN + 1,
            -(1 << 31) - 1,
            -(1 << 31),
            -101,
            -100,
            -1,
            0,
            1,
            2,
            99,
            100,
            1 << 31,
            i64::MAX,
        ];
        for &a in &edges {
            for &c in &edges {
                for &(b, d) in &[(1, 1), (-1, 1), (3, 7), (i64::MAX, 2), (1, i64::MIN)] {
                    check(a, b, c, d);
                }
            }
        }
        let mut next = crate::arith::test_rng(0x2545_F491_4F6C_DD1D);
        let mut factor = || {
            let r = next();
            (r as i64) >> (r % 64)
        };
        for _ in 0..100_000 {
            check(factor(), factor(), factor(), factor());
        }
    }
}
