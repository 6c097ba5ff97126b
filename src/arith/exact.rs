//! Exact mode: upstream's float64 expressions as exact rationals, on one primitive.
//!
//! Every exact expression of the algorithm is a comparison of a fraction with `1 ± t` for a
//! decimal tolerance `t` ([`cmp_ratio`]), or a fraction rounded up or toward zero and saturated to an
//! integer type ([`quotient`]). Both come down to comparing two sums of non-negative products
//! of 64-bit factors and a power of ten ([`compare`]): the signs are settled on the `i64`
//! operands, so that the wide values are unsigned [`Big`]s, added and compared only. Their
//! limb loops are the only wide arithmetic, and no 128-bit multiplication or division is
//! linked (each is expanded into about a kilobyte of code on a Cortex-M0).

use core::cmp::Ordering;

use super::wide::Big;

/// Limbs of every exact value: 320 bits, of which the largest sum formed takes 301 (see
/// [`cmp_ratio`]).
const LIMBS: usize = 10;

/// A term of [`compare`]: `10^p × m × |f0 × f1|`, on the right-hand side when the flag is set.
type Term = (u32, u64, [i64; 2], bool);

/// The sum of the left-hand terms compared with the sum of the right-hand ones, exact while
/// each sum stays below `2^320`: the one copy of the wide arithmetic.
fn compare(terms: &[Term]) -> Ordering {
    let (mut left, mut right) = (Big::<LIMBS>::zero(), Big::zero());
    let mut x = Big::zero();
    for (p, m, factors, on_right) in terms {
        x.set_pow10(*p);
        x.mul_small(*m);
        for f in factors {
            x.mul_small(f.unsigned_abs());
        }
        let side = if *on_right { &mut right } else { &mut left };
        side.add_assign(&x);
    }
    left.cmp(&right)
}

/// Compares `num / (den × scale)` with `1 + t`, or with `1 - t` when `minus`, where `t = m ×
/// 10^e`. A zero denominator stands for upstream's ±Inf (ordered by the numerator's sign,
/// beyond every finite bound) or NaN (`0/0`, unordered: `None`).
pub(crate) fn cmp_ratio(
    num: i64,
    den: i64,
    scale: i32,
    minus: bool,
    m: u64,
    e: i32,
) -> Option<Ordering> {
    let scale = i64::from(scale);
    if den == 0 || scale == 0 {
        return (num != 0).then_some(num.cmp(&0));
    }
    // Clamped exponents change no comparison. A nonzero t from 10^39 up exceeds every
    // |ratio| + 1 (below 2^63 + 1 < 10^38), like 10^39 itself; one below 2^64 × 10^-62 <
    // 2^-142 lies, like 10^-62, within (0, 1/|den × scale|): a ratio other than 1 lies at
    // least that far from 1, beyond 1 ± t on its own side, and a ratio of 1 lies inside.
    let clamped = e.clamp(-62, 39);
    let m = if clamped == e { m } else { m.min(1) };
    let (k, j) = (clamped.min(0).unsigned_abs(), clamped.max(0).unsigned_abs());
    // With N = |num| × 10^k, D = |den × scale| × 10^k and U = |den × scale| × m × 10^j (k or j
    // zero), the sign of ±N - (D ± U), its negative terms moved to the other side: ±N on the
    // left when positive (the sign of an xor is the xor of the signs), else on the right; D
    // on the right; U on the right for 1 + t, on the left for 1 - t. Sums below 2^63 × 10^62
    // + 2^94 × 10^62 + 2^94 × 2^64 × 10^39 < 2^301.
    Some(compare(&[
        (k, 1, [num, 1], (num ^ den ^ scale) < 0),
        (k, 1, [den, scale], true),
        (j, m, [den, scale], !minus),
    ]))
}

/// `a × b / (c × d)` rounded up (`ceil`) or toward zero (`!ceil`), saturated to `[-high - 1,
/// high]`, where `high = 2^bits - 1` with `bits` in `1..=63` (`i32::MAX` or `i64::MAX`). A
/// zero denominator gives the bound of the numerator's sign (upstream's ±Inf converted with
/// saturation), or 0 for `0/0` (NaN).
pub(crate) fn quotient(a: i64, b: i64, c: i64, d: i64, high: i64, ceil: bool) -> i64 {
    if a == 0 || b == 0 {
        return 0;
    }
    // The quotient's sign (that of an xor is the xor of the signs); a zero denominator has
    // none.
    let den_negative = c != 0 && d != 0 && (c ^ d) < 0;
    let negative = ((a ^ b) < 0) != den_negative;
    // |a × b| compared with |c × d| × q (q set before each comparison): below 2^126 and
    // 2^126 × 2^64.
    let mut terms = [(0, 1, [a, b], false), (0, 0, [c, d], true)];
    let mut vs = |q: u64| {
        terms[1].1 = q;
        compare(&terms)
    };
    // q = floor(|a × b| / |c × d|), found bit by bit from 2^bits down (q <= 2^(bits + 1) - 1,
    // below 2^64): the largest q with |c × d| × q <= |a × b|, all ones when c × d = 0 (a
    // saturated result). A comparison per bit: no wide division.
    let top = high.unsigned_abs().wrapping_add(1);
    let mut q: u64 = 0;
    let mut bit = top;
    while bit != 0 {
        if vs(q | bit) != Ordering::Less {
            q |= bit;
        }
        bit >>= 1;
    }
    // From 2^bits up every result saturates (a negative quotient's bound is that far from
    // zero); a negative quotient's ceiling is its truncation toward zero.
    let r = q.min(top);
    (if negative {
        r.wrapping_neg()
    } else {
        let inexact = ceil && vs(q) != Ordering::Equal;
        r.wrapping_add(u64::from(inexact)).min(top.wrapping_sub(1))
    }) as i64
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::cmp::Ordering::{Equal, Greater, Less};

    /// `cmp_ratio` of `num / den` (den != 0) against `1 ± m × 10^e`.
    fn cmp(num: i64, den: i64, minus: bool, m: u64, e: i32) -> Ordering {
        cmp_ratio(num, den, 1, minus, m, e).unwrap()
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
        // Under Miri, which interprets each operation thousands of times slower (a comparison
        // takes a tenth of a second there), a grid through the cube instead of all of it: zero
        // and both ends of the numerators, both ends of the denominators (one of each sign) and
        // of the multipliers, every exponent and direction (336 cases).
        let (num_step, den_step, m_step) = if cfg!(miri) { (20, 23, 25) } else { (1, 1, 1) };
        for num in (-60i128..=60).step_by(num_step) {
            for den in (-12i128..=12).filter(|&d| d != 0).step_by(den_step) {
                for m in (0u64..=25).step_by(m_step) {
                    for e in -3i32..=2 {
                        for minus in [false, true] {
                            // The reference wants a positive denominator.
                            let want = reference(num * den.signum(), den.abs(), minus, m, e);
                            let (num, den) = (num as i64, den as i64);
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
        // The ratios nearest 1 with the largest operands: 1 ± 1/(2^63 - 2), 1/(2^63 - 2) ~
        // 1.0842e-19.
        let max = i64::MAX;
        assert_eq!(cmp(max, max - 1, false, 108, -21), Greater);
        assert_eq!(cmp(max, max - 1, false, 109, -21), Less);
        assert_eq!(cmp(max - 1, max, true, 108, -21), Less);
        assert_eq!(cmp(max - 1, max, true, 109, -21), Greater);
        // Denominators of two negative factors, up to the largest, 2^94.
        let of = |num: i64, den: i64, minus: bool, m: u64, e: i32| {
            cmp_ratio(num, den, i32::MIN, minus, m, e).unwrap()
        };
        // (2^63 - 1) / 2^63 = 1 - 2^-63, 2^-63 ~ 1.0842e-19; -2^63 / 2^63 = 1 - 2.
        assert_eq!(of(max, -1 << 32, true, 108, -21), Less);
        assert_eq!(of(max, -1 << 32, true, 109, -21), Greater);
        assert_eq!(of(i64::MIN, -1 << 32, true, 2, 0), Equal);
        // ±1 / 2^94 ~ ±5.05e-29 against 1 - 1 and 1 - (1 - 10^-19).
        assert_eq!(of(1, i64::MIN, true, 1, 0), Greater);
        assert_eq!(of(-1, i64::MIN, true, 1, 0), Less);
        assert_eq!(of(1, i64::MIN, true, 9_999_999_999_999_999_999, -19), Less);
        // The largest magnitude: -2^63 against 1 - (2^63 + 1).
        let t = (1u64 << 63) + 1;
        assert_eq!(cmp(i64::MIN, 1, true, t, 0), Equal);
        assert_eq!(cmp(i64::MIN, 1, true, t - 1, 0), Less);
        assert_eq!(cmp(i64::MIN, 1, true, t + 1, 0), Greater);
        assert_eq!(cmp(i64::MIN, -1, false, t - 2, 0), Equal);
        assert_eq!(cmp(i64::MIN, -1, false, t - 3, 0), Greater);
        assert_eq!(cmp(i64::MIN, -1, false, t - 1, 0), Less);
        // Huge exponents either way.
        for e in [39, 40, 300, i32::MAX] {
            assert_eq!(cmp(max, 1, false, 1, e), Less);
            assert_eq!(cmp(i64::MIN, 1, true, 1, e), Greater);
        }
        // Negative ratios against 1 - t.
        assert_eq!(cmp(-1, 2, true, 15, -1), Equal);
        assert_eq!(cmp(-1, 2, true, 16, -1), Greater);
        assert_eq!(cmp(-1, 2, true, 14, -1), Less);
        // Zero denominators: ±Inf beyond every bound, 0/0 unordered.
        for (minus, m, e) in [(false, 0, 0), (true, 1, -1), (false, 7, 300)] {
            for (den, scale) in [(0, 5), (5, 0), (0, 0)] {
                let of = |n: i64| cmp_ratio(n, den, scale, minus, m, e);
                assert_eq!(of(2), Some(Greater));
                assert_eq!(of(-2), Some(Less));
                assert_eq!(of(0), None);
            }
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
        // Under Miri a case takes seconds: 8 of them.
        for _ in 0..if cfg!(miri) { 8 } else { 40_000 } {
            // Numerators are one i64, denominators an i64 times an i32 (the engine's domain).
            let a = factor(64);
            let (c, d) = (factor(64), factor(64) as i32);
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
            let (num, den) = (big(a, 1), big(c, i64::from(d)));
            // Signs: compare sign(num/den) × |num| × 10^K with |den| × (10^K ± m × 10^(e+K)).
            let neg = (a < 0) != ((c < 0) != (d < 0));
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
                cmp_ratio(a, c, d, minus, m, e),
                Some(want),
                "{a} / {c}×{d} vs 1{}{m}e{e}",
                if minus { "-" } else { "+" }
            );
        }
    }

    /// `quotient` against native 128-bit ceilings and truncations, saturated, over edges and
    /// random products, for both widths.
    #[test]
    fn quotient_matches_i128() {
        let ceil = |n: i128, d: i128| n / d + i128::from(n % d != 0 && (n < 0) == (d < 0));
        const WAYS: [(u32, bool); 4] = [(31, true), (63, true), (31, false), (63, false)];
        let check = |a: i64, b: i64, c: i64, d: i64, ways: &[(u32, bool)]| {
            let (n, den) = (i128::from(a) * i128::from(b), i128::from(c) * i128::from(d));
            for &(bits, ceil_up) in ways {
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
                let got = quotient(a, b, c, d, high, ceil_up);
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
        let factors = &[(1, 1), (-1, 1), (3, 7), (i64::MAX, 2), (1, i64::MIN)];
        let combinations = edges.iter().flat_map(|&a| {
            edges
                .iter()
                .flat_map(move |&c| factors.iter().map(move |&(b, d)| (a, b, c, d)))
        });
        // Under Miri a quotient takes seconds (a wide comparison per bit of the result): every
        // 131st combination (131 is prime to 14 and 5, so edges and factor pairs vary in each
        // place), each in one width and rounding (in turn) instead of all four, and 4 random
        // products.
        let (stride, random) = if cfg!(miri) { (131, 4) } else { (1, 100_000) };
        let ways = |i: usize| {
            if cfg!(miri) {
                &WAYS[i % 4..][..1]
            } else {
                &WAYS[..]
            }
        };
        for (i, (a, b, c, d)) in combinations.step_by(stride).enumerate() {
            check(a, b, c, d, ways(i));
        }
        let mut next = crate::arith::test_rng(0x2545_F491_4F6C_DD1D);
        let mut factor = || {
            let r = next();
            (r as i64) >> (r % 64)
        };
        for i in 0..random {
            check(factor(), factor(), factor(), factor(), ways(i));
        }
    }
}
