//! Fixed-size, allocation-free big unsigned integers, and exact comparisons built on them.
//!
//! [`Big`] is a little-endian array of `u32` limbs: a limb product with its carries fits a
//! `u64`, which every target multiplies without 128-bit arithmetic (expanded into large code
//! on a Cortex-M0). Every operation is total: results that would not fit are truncated modulo
//! `2^(32*N)` (callers size `N` so that this never happens), and nothing panics.

use core::cmp::Ordering;

/// A little-endian fixed-size unsigned integer of `N` 32-bit limbs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Big<const N: usize> {
    limbs: [u32; N],
}

/// `10^19`, the largest power of ten that fits in a `u64`.
const TEN_POW_19: u64 = 10_000_000_000_000_000_000;

/// `10^i` for `i` in `0..=19`.
const SMALL_POW10: [u64; 20] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
    10_000_000_000,
    100_000_000_000,
    1_000_000_000_000,
    10_000_000_000_000,
    100_000_000_000_000,
    1_000_000_000_000_000,
    10_000_000_000_000_000,
    100_000_000_000_000_000,
    1_000_000_000_000_000_000,
    TEN_POW_19,
];

/// `10^i` for `i` in `0..=19`; `0` for larger `i` (never requested). For the hosts' fast
/// path of `Quantity::milli_value`; the rest steps by [`pow10_u32`], whose table is a
/// quarter of the size (this one is not linked on 32-bit targets).
pub(crate) fn small_pow10(i: u32) -> u64 {
    SMALL_POW10.get(i as usize).copied().unwrap_or(0)
}

/// `10^i` for `i` in `0..=9`: the start of [`SMALL_POW10`], narrowed at compile time
/// (where an out-of-range index is a build error, not a run-time panic).
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
const POW10_U32: [u32; 10] = {
    let mut table = [0u32; 10];
    let mut i = 0;
    while i < 10 {
        table[i] = SMALL_POW10[i] as u32;
        i += 1;
    }
    table
};

/// `10^i` for `i` in `0..=9`; `1` for larger `i` (never requested).
pub(crate) fn pow10_u32(i: u32) -> u32 {
    POW10_U32.get(i as usize).copied().unwrap_or(1)
}

impl<const N: usize> Big<N> {
    /// Zero.
    pub(crate) const fn zero() -> Self {
        Big { limbs: [0; N] }
    }

    /// The value `v`.
    #[cfg(any(test, feature = "exact"))]
    pub(crate) fn from_u64(v: u64) -> Self {
        Self::from_u128(u128::from(v))
    }

    /// The value `v`.
    #[cfg(any(test, feature = "exact"))]
    pub(crate) fn from_u128(v: u128) -> Self {
        let mut b = Self::zero();
        for (i, l) in b.limbs.iter_mut().take(4).enumerate() {
            *l = (v >> (i as u32).wrapping_mul(32)) as u32;
        }
        b
    }

    /// `10^d` (truncated if it does not fit).
    pub(crate) fn pow10(d: u32) -> Self {
        let mut b = Self::zero();
        if let Some(l) = b.limbs.first_mut() {
            *l = 1;
        }
        let mut left = d;
        while left >= 9 {
            b.mul_small(u64::from(pow10_u32(9)));
            left = left.wrapping_sub(9);
        }
        b.mul_small(u64::from(pow10_u32(left)));
        b
    }

    /// True when the value is zero.
    pub(crate) fn is_zero(&self) -> bool {
        self.limbs.iter().all(|&l| l == 0)
    }

    /// `self *= k` (truncated if it does not fit).
    pub(crate) fn mul_small(&mut self, k: u64) {
        mul_small_limbs(&mut self.limbs, k);
    }

    #[cfg(feature = "exact")]
    /// `self += k`, returning the carry out of the top limb.
    pub(crate) fn add_small(&mut self, k: u64) -> bool {
        self.add_assign(&Self::from_u64(k))
    }

    #[cfg(feature = "exact")]
    /// `self -= k`, returning the borrow out of the top limb.
    pub(crate) fn sub_small(&mut self, k: u64) -> bool {
        self.sub_assign(&Self::from_u64(k))
    }

    #[cfg(any(test, feature = "exact"))]
    /// `self += other`, returning the carry out of the top limb.
    pub(crate) fn add_assign(&mut self, other: &Self) -> bool {
        let mut carry: u64 = 0;
        for (a, b) in self.limbs.iter_mut().zip(other.limbs.iter()) {
            let sum = u64::from(*a)
                .wrapping_add(u64::from(*b))
                .wrapping_add(carry);
            *a = sum as u32;
            carry = sum >> 32;
        }
        carry != 0
    }

    /// `self -= other`, returning the borrow out of the top limb (set when `other > self`).
    pub(crate) fn sub_assign(&mut self, other: &Self) -> bool {
        let mut borrow: u64 = 0;
        for (a, b) in self.limbs.iter_mut().zip(other.limbs.iter()) {
            let diff = u64::from(*a)
                .wrapping_sub(u64::from(*b))
                .wrapping_sub(borrow);
            *a = diff as u32;
            // A borrow sets the high word (all ones).
            borrow = diff >> 63;
        }
        borrow != 0
    }

    #[cfg(any(test, feature = "exact"))]
    /// `self * v` for a 128-bit `v` (truncated if it does not fit): one pass per 32-bit part
    /// of `v`, shifted into place.
    pub(crate) fn mul_u128(&self, v: u128) -> Self {
        let mut out = Self::zero();
        for i in 0..4u32 {
            let mut part = *self;
            let shift = i.wrapping_mul(32);
            part.mul_small(u64::from((v >> shift) as u32));
            out.add_assign(&part.shl(shift));
        }
        out
    }

    /// `self << s` (bits shifted out of the top are lost).
    #[cfg(any(test, feature = "exact"))]
    pub(crate) fn shl(&self, s: u32) -> Self {
        let mut out = *self;
        out.shl_assign(s);
        out
    }

    /// `self <<= s` (bits shifted out of the top are lost): in place, from the top limb
    /// down, so that every source limb is read before it is overwritten (no copy of the
    /// value).
    pub(crate) fn shl_assign(&mut self, s: u32) {
        let limb_shift = (s / 32) as usize;
        let bit_shift = s % 32;
        for i in (0..N).rev() {
            // Source limbs below 0 wrap to indices past the end: they read as 0.
            let src = i.wrapping_sub(limb_shift);
            let cur = self.limbs.get(src).copied().unwrap_or(0);
            let prev = self.limbs.get(src.wrapping_sub(1)).copied().unwrap_or(0);
            // The pair (cur, prev) shifted left, its high word kept.
            let pair = u64::from(cur) << 32 | u64::from(prev);
            if let Some(o) = self.limbs.get_mut(i) {
                *o = (pair << bit_shift >> 32) as u32;
            }
        }
    }

    /// `self >>= 1`.
    pub(crate) fn shr1_assign(&mut self) {
        let mut carry: u32 = 0;
        for l in self.limbs.iter_mut().rev() {
            let next = *l & 1;
            *l = (*l >> 1) | carry << 31;
            carry = next;
        }
    }

    /// Number of significant bits (`0` for zero).
    pub(crate) fn bit_len(&self) -> u32 {
        let mut top: u32 = N as u32;
        for l in self.limbs.iter().rev() {
            top = top.wrapping_sub(1);
            if *l != 0 {
                return top
                    .wrapping_mul(32)
                    .wrapping_add(32u32.wrapping_sub(l.leading_zeros()));
            }
        }
        0
    }

    /// The 64 bits starting at bit `pos` (bits above the top are zero): the tests' reading.
    #[cfg(test)]
    pub(crate) fn bits64_at(&self, pos: u32) -> u64 {
        let limb = (pos / 32) as usize;
        let bit = pos % 32;
        let word = |i: usize| -> u64 {
            i.checked_add(limb)
                .and_then(|j| self.limbs.get(j).copied())
                .map_or(0, u64::from)
        };
        // 96 bits from the three limbs at `pos`, shifted down by `bit` (< 32).
        let low = (word(1) << 32 | word(0)) >> bit;
        low | word(2) << 32 << 32u32.wrapping_sub(bit)
    }

    /// `floor(self / den)` and whether the remainder is nonzero, provided the quotient is
    /// below `2^(qbits + 1)` and `qbits < 64` (otherwise the quotient is truncated). Both
    /// operands are worked on in place (no copies): `self` is left holding the remainder and
    /// `den` is clobbered.
    pub(crate) fn div_small_quotient(&mut self, den: &mut Self, qbits: u32) -> (u64, bool) {
        let rem = self;
        let d = den;
        d.shl_assign(qbits);
        let mut q: u64 = 0;
        let mut i = qbits;
        loop {
            if *rem >= *d {
                rem.sub_assign(d);
                q |= 1u64.wrapping_shl(i);
            }
            if i == 0 {
                break;
            }
            i = i.wrapping_sub(1);
            d.shr1_assign();
        }
        (q, !rem.is_zero())
    }
}

// The multiplication both limb counts use (decimal conversion, exact comparisons), on a
// slice: one copy of the code instead of one per `N`.

/// [`Big::mul_small`] on the limbs.
#[inline(never)]
fn mul_small_limbs(limbs: &mut [u32], k: u64) {
    let (kl, kh) = (k & 0xFFFF_FFFF, k >> 32);
    // The carry, in units of the current limb: below 2^64 (see the bound below).
    let mut carry: u64 = 0;
    for l in limbs.iter_mut() {
        let limb = u64::from(*l);
        // limb × kl + a 32-bit carry part < 2^64.
        let lo = limb.wrapping_mul(kl).wrapping_add(carry & 0xFFFF_FFFF);
        *l = lo as u32;
        // limb × kh <= 2^64 - 2^33 + 1, plus two values below 2^32: below 2^64.
        carry = limb
            .wrapping_mul(kh)
            .wrapping_add(carry >> 32)
            .wrapping_add(lo >> 32);
    }
}

impl<const N: usize> PartialOrd for Big<N> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<const N: usize> Ord for Big<N> {
    fn cmp(&self, other: &Self) -> Ordering {
        for (a, b) in self.limbs.iter().rev().zip(other.limbs.iter().rev()) {
            match a.cmp(b) {
                Ordering::Equal => {}
                o => return o,
            }
        }
        Ordering::Equal
    }
}

/// Limbs used by [`cmp_ratio_to_one_plus_decimal`]: `2^128 * 10^60 < 2^328`, and
/// `2^128 * (2^64 * 10^38 + 1) < 2^320`, both well inside 16 limbs (512 bits).
#[cfg(feature = "exact")]
const CMP_LIMBS: usize = 16;

/// Compares two signed big values given as (negative, magnitude); `-0 == +0`.
#[cfg(feature = "exact")]
fn cmp_signed<const N: usize>(a_neg: bool, a: &Big<N>, b_neg: bool, b: &Big<N>) -> Ordering {
    let a_neg = a_neg && !a.is_zero();
    let b_neg = b_neg && !b.is_zero();
    match (a_neg, b_neg) {
        (false, false) => a.cmp(b),
        (true, true) => b.cmp(a),
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
    }
}

/// Compares `num/den` with `1 + s*(m × 10^e)` exactly, where `s` is `-1` when
/// `negative_offset` and `+1` otherwise (`den > 0`; with `den == 0` the result is
/// meaningless but no panic occurs).
///
/// Exact for every input, including any `i32` exponent `e`.
#[cfg(feature = "exact")]
pub(crate) fn cmp_ratio_to_one_plus_decimal(
    num: i128,
    den: u128,
    negative_offset: bool,
    m: u64,
    e: i32,
) -> Ordering {
    let num_neg = num < 0;
    let num_mag = Big::<CMP_LIMBS>::from_u128(num.unsigned_abs());
    let den_big = Big::<CMP_LIMBS>::from_u128(den);
    if m == 0 {
        // Compare num/den with 1, i.e. num with den.
        return cmp_signed(num_neg, &num_mag, false, &den_big);
    }
    if e >= 0 {
        // t = m × 10^e is an integer >= 1.
        if e >= 39 {
            // t >= 10^39 > 2^128 > |num/den| + 1 (as den >= 1): 1 + t is above every
            // representable ratio and 1 - t below every one.
            return if negative_offset {
                Ordering::Greater
            } else {
                Ordering::Less
            };
        }
        // t < 2^64 × 10^38 < 2^191.
        let mut t = Big::<CMP_LIMBS>::pow10(e.unsigned_abs());
        t.mul_small(m);
        // rhs = den × (1 ± t); (1 - t) = -(t - 1) <= 0.
        let (rhs_neg, factor) = if negative_offset {
            t.sub_small(1);
            (true, t)
        } else {
            t.add_small(1);
            (false, t)
        };
        let rhs = factor.mul_u128(den);
        return cmp_signed(num_neg, &num_mag, rhs_neg, &rhs);
    }
    // e < 0: t = m / 10^d with d = -e >= 1, and 0 < t < 2^64 / 10^d.
    let d = e.unsigned_abs();
    if d > 60 {
        // 0 < t < 2^64 × 10^-61 < 2^-128 <= 1/den. Any ratio other than exactly 1 lies at
        // least 1/den away from 1, hence beyond 1 ± t on the same side as it lies from 1;
        // a ratio of exactly 1 lies strictly between 1 - t and 1 + t.
        let vs_one = cmp_signed(num_neg, &num_mag, false, &den_big);
        return match vs_one {
            Ordering::Equal => {
                if negative_offset {
                    Ordering::Greater
                } else {
                    Ordering::Less
                }
            }
            o => o,
        };
    }
    // Compare num × 10^d with den × (10^d ± m); 10^d < 2^200.
    let p = Big::<CMP_LIMBS>::pow10(d);
    let lhs = p.mul_u128(num.unsigned_abs());
    let m_big = Big::<CMP_LIMBS>::from_u64(m);
    let (factor_neg, factor) = if negative_offset {
        if p >= m_big {
            let mut f = p;
            f.sub_assign(&m_big);
            (false, f)
        } else {
            let mut f = m_big;
            f.sub_assign(&p);
            (true, f)
        }
    } else {
        let mut f = p;
        f.add_small(m);
        (false, f)
    };
    let rhs = factor.mul_u128(den);
    cmp_signed(num_neg, &lhs, factor_neg, &rhs)
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)]
mod tests {
    use super::*;
    #[cfg(feature = "exact")]
    use core::cmp::Ordering::{Equal, Greater, Less};

    #[test]
    fn pow10_tables_agree() {
        for i in 0..=9 {
            assert_eq!(u64::from(pow10_u32(i)), small_pow10(i));
            assert_eq!(small_pow10(i), 10u64.pow(i));
        }
        for i in 10..=19 {
            assert_eq!(small_pow10(i), 10u64.pow(i));
        }
    }

    #[test]
    fn big_basics() {
        let p = Big::<8>::pow10(38);
        assert_eq!(p.bit_len(), 127);
        assert_eq!(p.bits64_at(0), 10u128.pow(38) as u64);
        assert_eq!(p.bits64_at(64), (10u128.pow(38) >> 64) as u64);
        let q = p.shl(70);
        assert_eq!(q.bit_len(), 197);
        assert_eq!(q.bits64_at(70), 10u128.pow(38) as u64);
        assert_eq!(q.bits64_at(101), (10u128.pow(38) >> 31) as u64);
        let (quot, r) = p.shl(63).div_small_quotient(&mut Big::<8>::pow10(38), 63);
        assert_eq!(quot, 1 << 63);
        assert!(!r);
        let mut n = Big::<8>::from_u128(1_000_001);
        let (quot, r) = n.div_small_quotient(&mut Big::<8>::from_u64(1000), 20);
        assert_eq!(quot, 1000);
        assert!(r);
        // Against native 128-bit arithmetic.
        let mut next = crate::arith::test_rng(0x2545_F491_4F6C_DD1D);
        for _ in 0..20_000 {
            let a = u128::from(next()) << 64 | u128::from(next());
            let b = u128::from(next() >> (next() % 64));
            let k = next() >> (next() % 64);
            let s = (next() % 100) as u32;
            let mut x = Big::<12>::from_u128(a);
            x.mul_small(k);
            let want = Big::<12>::from_u128(a).mul_u128(u128::from(k));
            assert_eq!(x, want);
            let lo = a.wrapping_mul(u128::from(k));
            assert_eq!(x.bits64_at(0), lo as u64);
            assert_eq!(x.bits64_at(64), (lo >> 64) as u64);
            let y = Big::<12>::from_u128(b).shl(s);
            assert_eq!(y.bits64_at(s), b as u64);
            assert_eq!(
                y.bit_len(),
                if b == 0 {
                    0
                } else {
                    128 - b.leading_zeros() + s
                }
            );
            let mut z = Big::<12>::from_u128(a);
            assert!(!z.sub_assign(&Big::<12>::from_u128(b)));
            assert_eq!(z.bits64_at(0), (a - b) as u64);
            assert_eq!(z.bits64_at(64), ((a - b) >> 64) as u64);
            let mut w = z;
            w.add_assign(&Big::<12>::from_u128(b));
            assert_eq!(w, Big::<12>::from_u128(a));
            assert_eq!(
                a.cmp(&b),
                Big::<12>::from_u128(a).cmp(&Big::<12>::from_u128(b))
            );
        }
    }

    #[cfg(feature = "exact")]
    /// Exact reference for small cases: num/den vs 1 ± m×10^e with |e| small, in i128
    /// scaled arithmetic (only valid when nothing overflows).
    fn reference(num: i128, den: u128, neg: bool, m: u64, e: i32) -> Ordering {
        let den = den as i128;
        let m = m as i128;
        if e >= 0 {
            let t = m * 10i128.pow(e as u32);
            let f = if neg { 1 - t } else { 1 + t };
            num.cmp(&(den * f))
        } else {
            let p = 10i128.pow((-e) as u32);
            let f = if neg { p - m } else { p + m };
            (num * p).cmp(&(den * f))
        }
    }

    #[cfg(feature = "exact")]
    #[test]
    fn cmp_small_exhaustive() {
        for num in -60i128..=60 {
            for den in 1u128..=12 {
                for m in 0u64..=25 {
                    for e in -3i32..=2 {
                        for neg in [false, true] {
                            assert_eq!(
                                cmp_ratio_to_one_plus_decimal(num, den, neg, m, e),
                                reference(num, den, neg, m, e),
                                "{num}/{den} vs 1{}{m}e{e}",
                                if neg { "-" } else { "+" }
                            );
                        }
                    }
                }
            }
        }
    }

    #[cfg(feature = "exact")]
    #[test]
    fn cmp_known_cases() {
        // 11/10 == 1 + 1e-1
        assert_eq!(cmp_ratio_to_one_plus_decimal(11, 10, false, 1, -1), Equal);
        // 9/10 == 1 - 1e-1
        assert_eq!(cmp_ratio_to_one_plus_decimal(9, 10, true, 1, -1), Equal);
        // 1 vs 1 ± tiny
        for e in [-20, -58, -59, -60, -61, -62, -100, -400, i32::MIN] {
            assert_eq!(cmp_ratio_to_one_plus_decimal(7, 7, false, 1, e), Less);
            assert_eq!(cmp_ratio_to_one_plus_decimal(7, 7, true, 1, e), Greater);
            assert_eq!(cmp_ratio_to_one_plus_decimal(7, 7, false, 0, e), Equal);
            assert_eq!(
                cmp_ratio_to_one_plus_decimal(7, 7, true, u64::MAX, e),
                Greater
            );
        }
        // Ratio just above 1 with the biggest denominator vs tiny offsets.
        let den = u128::MAX;
        let num = i128::MAX; // num/den = 1/2 - tiny
        assert_eq!(cmp_ratio_to_one_plus_decimal(num, den, true, 5, -1), Less);
        assert_eq!(cmp_ratio_to_one_plus_decimal(num, den, true, 50, -2), Less);
        assert_eq!(
            cmp_ratio_to_one_plus_decimal(num, den, true, 51, -2),
            Greater
        );
        // (2^127 - 1 + 1)/(2^127 - 1) = 1 + 1/(2^127-1) ~ 1 + 5.9e-39
        let den = (1u128 << 127) - 1;
        let num = i128::MAX; // == den: ratio 1
        assert_eq!(cmp_ratio_to_one_plus_decimal(num, den, false, 1, -39), Less);
        let den2 = (1u128 << 126) - 1;
        let num2 = (den2 as i128) + 1; // 1 + 1/(2^126 - 1) ~ 1 + 1.1755e-38
        assert_eq!(
            cmp_ratio_to_one_plus_decimal(num2, den2, false, 1_175_494_350_822_287_507, -56),
            Greater
        );
        assert_eq!(
            cmp_ratio_to_one_plus_decimal(num2, den2, false, 1_175_494_350_822_287_508, -56),
            Less
        );
        assert_eq!(
            cmp_ratio_to_one_plus_decimal(num2, den2, false, 1, -38),
            Greater
        );
        assert_eq!(
            cmp_ratio_to_one_plus_decimal(num2, den2, false, 2, -38),
            Less
        );
        // Huge positive exponents.
        for e in [39, 40, 300, i32::MAX] {
            assert_eq!(
                cmp_ratio_to_one_plus_decimal(i128::MAX, 1, false, 1, e),
                Less
            );
            assert_eq!(
                cmp_ratio_to_one_plus_decimal(i128::MIN, 1, true, 1, e),
                Greater
            );
        }
        // 1 - 1e38 * 2 vs i128::MIN = -1.7e38
        assert_eq!(
            cmp_ratio_to_one_plus_decimal(i128::MIN, 1, true, 2, 38),
            Greater
        );
        assert_eq!(
            cmp_ratio_to_one_plus_decimal(i128::MIN, 1, true, 1, 38),
            Less
        );
        // Negative ratios against 1 - t.
        assert_eq!(cmp_ratio_to_one_plus_decimal(-1, 2, true, 15, -1), Equal);
        assert_eq!(cmp_ratio_to_one_plus_decimal(-1, 2, true, 16, -1), Greater);
        assert_eq!(cmp_ratio_to_one_plus_decimal(-1, 2, true, 14, -1), Less);
    }

    #[cfg(feature = "exact")]
    /// Randomised check against a second, independent formulation: scale both sides by
    /// `10^d` with `d` large enough, using `Big<32>` directly.
    #[test]
    fn cmp_random_vs_scaled() {
        let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        for _ in 0..20_000 {
            let r = next();
            let num_bits = (next() % 128) as u32;
            let num_mag =
                (u128::from(next()) << 64 | u128::from(next())) >> (127 - num_bits.min(126));
            let num = if r & 1 == 1 {
                -(num_mag as i128)
            } else {
                num_mag as i128
            };
            let den_bits = (next() % 128) as u32;
            let den = ((u128::from(next()) << 64 | u128::from(next())) >> (127 - den_bits)).max(1);
            let m = next() >> (next() % 64);
            let e = (next() % 140) as i32 - 70;
            let neg = r & 2 == 2;
            // Independent: compare num*10^K vs den*(10^K ± m*10^(e+K)), K = 70.
            const K: i32 = 70;
            let pk = Big::<32>::pow10(K as u32);
            let lhs = pk.mul_u128(num_mag);
            let mut t = Big::<32>::pow10((e + K) as u32);
            t.mul_small(m);
            let (fneg, f) = if neg {
                if pk >= t {
                    let mut f = pk;
                    f.sub_assign(&t);
                    (false, f)
                } else {
                    let mut f = t;
                    f.sub_assign(&pk);
                    (true, f)
                }
            } else {
                let mut f = pk;
                f.add_assign(&t);
                (false, f)
            };
            let rhs = f.mul_u128(den);
            let expect = cmp_signed(num < 0, &lhs, fneg, &rhs);
            assert_eq!(
                cmp_ratio_to_one_plus_decimal(num, den, neg, m, e),
                expect,
                "{num}/{den} vs 1{}{m}e{e}",
                if neg { "-" } else { "+" }
            );
        }
    }
}
