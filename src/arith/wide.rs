//! Fixed-size, allocation-free big unsigned integers: decimal conversion and exact mode.
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
    #[cfg(test)]
    pub(crate) fn from_u64(v: u64) -> Self {
        Self::from_u128(u128::from(v))
    }

    /// The value `v`: the tests' operands.
    #[cfg(test)]
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
        b.set_pow10(d);
        b
    }

    /// `self = 10^d` (truncated if it does not fit), in place.
    pub(crate) fn set_pow10(&mut self, d: u32) {
        *self = Self::zero();
        if let Some(l) = self.limbs.first_mut() {
            *l = 1;
        }
        self.mul_pow10(d);
    }

    /// `self *= 10^d` (truncated if it does not fit).
    pub(crate) fn mul_pow10(&mut self, d: u32) {
        let mut left = d;
        while left >= 9 {
            self.mul_small(u64::from(pow10_u32(9)));
            left = left.wrapping_sub(9);
        }
        self.mul_small(u64::from(pow10_u32(left)));
    }

    /// True when the value is zero.
    pub(crate) fn is_zero(&self) -> bool {
        self.limbs.iter().all(|&l| l == 0)
    }

    /// `self *= k` (truncated if it does not fit).
    pub(crate) fn mul_small(&mut self, k: u64) {
        mul_small_limbs(&mut self.limbs, k);
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

    /// `self * other` (truncated if it does not fit): one pass per limb of `other`, shifted
    /// into place. The tests' reference multiplication.
    #[cfg(test)]
    pub(crate) fn mul_big(&self, other: &Self) -> Self {
        let mut out = Self::zero();
        for (i, &limb) in other.limbs.iter().enumerate() {
            let mut part = *self;
            part.mul_small(u64::from(limb));
            out.add_assign(&part.shl((i as u32).wrapping_mul(32)));
        }
        out
    }

    /// `self << s` (bits shifted out of the top are lost).
    #[cfg(test)]
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
    // By index from the top limb: the reversed zip of the limbs left a call to the
    // iterator's `next` per limb on a Cortex-M0.
    fn cmp(&self, other: &Self) -> Ordering {
        let mut i = N;
        while i > 0 {
            i = i.wrapping_sub(1);
            let (a, b) = (self.limbs.get(i), other.limbs.get(i));
            if a != b {
                return a.cmp(&b);
            }
        }
        Ordering::Equal
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        for _ in 0..if cfg!(miri) { 50 } else { 20_000 } {
            let a = u128::from(next()) << 64 | u128::from(next());
            let b = u128::from(next() >> (next() % 64));
            let k = next() >> (next() % 64);
            let s = (next() % 100) as u32;
            let mut x = Big::<12>::from_u128(a);
            x.mul_small(k);
            let want = Big::<12>::from_u128(a).mul_big(&Big::<12>::from_u64(k));
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
}
