//! A software IEEE-754 binary64 ("double") implemented with integer operations only.
//!
//! Upstream computes several HPA quantities in Go `float64`; to make the same decisions bit
//! for bit without touching the FPU (and without `f64` at all), this module reproduces the
//! handful of operations those expressions use: correctly rounded `+ - * /` in
//! round-to-nearest-even with full IEEE semantics (subnormals, signed zeros, infinities,
//! NaN), integer conversions, `math.Ceil`, `math.Trunc`, `math.Max`, `math.Pow10`, decimal
//! parsing, and `resource.Quantity.AsApproximateFloat64`.
//!
//! NaN results are always the canonical quiet NaN ([`F64::NAN`]); payloads are not
//! propagated (Go programs cannot observe them in the places this crate mirrors).

use super::mul_wide;
use super::wide::Big;
use crate::tuning::FAST_FORMS;
use core::cmp::Ordering;

/// An IEEE-754 binary64 value held as its bit pattern.
///
/// The layout is that of `f64::to_bits`: sign bit 63, 11 exponent bits, 52 fraction bits.
/// Equality (`==`) on this type compares bit patterns; use [`F64::eq_value`] for IEEE `==`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct F64(pub u64);

/// The sign bit.
const SIGN: u64 = 1 << 63;
/// The fraction field mask.
const FRAC_MASK: u64 = (1 << 52) - 1;
/// The exponent field mask (unshifted).
const EXP_MASK: u64 = 0x7FF;
/// The implicit leading bit of a normal significand.
const HIDDEN: u64 = 1 << 52;

/// `pow10tab[i]` = bits of the literal `1e{i}`, `i` in `0..32` (Go's `math.pow10tab`).
const POW10TAB: [u64; 32] = [
    0x3FF0000000000000,
    0x4024000000000000,
    0x4059000000000000,
    0x408F400000000000,
    0x40C3880000000000,
    0x40F86A0000000000,
    0x412E848000000000,
    0x416312D000000000,
    0x4197D78400000000,
    0x41CDCD6500000000,
    0x4202A05F20000000,
    0x42374876E8000000,
    0x426D1A94A2000000,
    0x42A2309CE5400000,
    0x42D6BCC41E900000,
    0x430C6BF526340000,
    0x4341C37937E08000,
    0x4376345785D8A000,
    0x43ABC16D674EC800,
    0x43E158E460913D00,
    0x4415AF1D78B58C40,
    0x444B1AE4D6E2EF50,
    0x4480F0CF064DD592,
    0x44B52D02C7E14AF6,
    0x44EA784379D99DB4,
    0x45208B2A2C280291,
    0x4554ADF4B7320335,
    0x4589D971E4FE8402,
    0x45C027E72F1F1281,
    0x45F431E0FAE6D721,
    0x46293E5939A08CEA,
    0x465F8DEF8808B024,
];

/// `pow10postab32[i]` = bits of the literal `1e{32*i}`, `i` in `0..10`.
const POW10POSTAB32: [u64; 10] = [
    0x3FF0000000000000,
    0x4693B8B5B5056E17,
    0x4D384F03E93FF9F5,
    0x53DDF67562D8B363,
    0x5A827748F9301D32,
    0x6126C2D4256FFCC3,
    0x67CC0E1EF1A724EB,
    0x6E714A52DFFC6799,
    0x75154FDD7F73BF3C,
    0x7BBA44DF832B8D46,
];

/// `pow10negtab32[i]` = bits of the literal `1e-{32*i}`, `i` in `0..11`.
const POW10NEGTAB32: [u64; 11] = [
    0x3FF0000000000000,
    0x3949F623D5A8A733,
    0x32A50FFD44F4A73D,
    0x2C0116805EFFAEAA,
    0x255BBA08CF8C979D,
    0x1EB67E9C127B6E74,
    0x18123FF06EEA847A,
    0x116D9CA79D89462A,
    0x0AC8062864AC6F43,
    0x04237D99CC506D59,
    0x00000000000007E8,
];

/// The operation of [`F64::binop`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    /// `+`.
    Add,
    /// `*`.
    Mul,
    /// `/`.
    Div,
}

/// 32-bit limbs for [`F64::from_decimal`]: the largest operands are
/// `m × 2^s < 2^1203` and `10^343 × 2^63 < 2^1203` (`10^343 < 2^1140`), inside 40 limbs.
const DEC_LIMBS: usize = 40;

impl F64 {
    /// `+0.0`.
    pub const ZERO: F64 = F64(0);
    /// `-0.0`.
    pub const NEG_ZERO: F64 = F64(SIGN);
    /// `1.0`.
    pub const ONE: F64 = F64(0x3FF0_0000_0000_0000);
    /// `+∞`.
    pub const INFINITY: F64 = F64(0x7FF0_0000_0000_0000);
    /// `-∞`.
    pub const NEG_INFINITY: F64 = F64(0xFFF0_0000_0000_0000);
    /// The canonical quiet NaN (`0x7FF8_0000_0000_0000`, as produced by Go's `math.NaN()`
    /// up to the low bit and by x86 for invalid operations up to the sign).
    pub const NAN: F64 = F64(0x7FF8_0000_0000_0000);

    /// The value with bit pattern `bits` (like `f64::from_bits`).
    #[must_use]
    pub const fn from_bits(bits: u64) -> F64 {
        F64(bits)
    }

    /// The bit pattern (like `f64::to_bits`).
    #[must_use]
    pub const fn to_bits(self) -> u64 {
        self.0
    }

    /// True when the sign bit is set (including `-0`, `-∞` and negative NaNs).
    #[must_use]
    pub const fn is_sign_negative(self) -> bool {
        self.0 & SIGN != 0
    }

    /// True for any NaN.
    #[must_use]
    pub const fn is_nan(self) -> bool {
        (self.0 & !SIGN) > 0x7FF0_0000_0000_0000
    }

    /// True for `±∞`.
    #[must_use]
    pub const fn is_infinite(self) -> bool {
        (self.0 & !SIGN) == 0x7FF0_0000_0000_0000
    }

    /// True for `±0`.
    #[must_use]
    pub const fn is_zero(self) -> bool {
        (self.0 & !SIGN) == 0
    }

    /// `-self` (flips the sign bit, like Go's unary minus).
    #[must_use]
    pub const fn neg(self) -> F64 {
        F64(self.0 ^ SIGN)
    }

    /// `|self|` (clears the sign bit, like Go's `math.Abs`).
    #[must_use]
    pub const fn abs(self) -> F64 {
        F64(self.0 & !SIGN)
    }

    /// The magnitude of a finite value as `mant × 2^exp`, `mant` normalised to
    /// `[2^52, 2^53)` (subnormals too), or `0` for a zero (whose `exp` is then below every
    /// nonzero value's).
    fn unpack(self) -> (u64, i32) {
        let biased = ((self.0 >> 52) & EXP_MASK) as i32;
        let mut mant = self.0 & FRAC_MASK;
        if biased != 0 {
            // biased in 1..=2047: exp in -1074..=972.
            return (mant | HIDDEN, biased.wrapping_sub(1075));
        }
        if mant == 0 {
            // Normalised subnormals reach down to 2^52 × 2^-1126.
            return (0, -1127);
        }
        // A subnormal, shifted a bit at a time (a loop is smaller than a 64-bit
        // leading-zero count on a Cortex-M0, and subnormals are rare).
        let mut exp: i32 = -1074;
        while mant & HIDDEN == 0 {
            mant <<= 1;
            exp = exp.wrapping_sub(1);
        }
        (mant, exp)
    }

    /// Signed zero.
    const fn zero_signed(sign: bool) -> F64 {
        if sign {
            F64::NEG_ZERO
        } else {
            F64::ZERO
        }
    }

    /// Signed infinity.
    const fn inf_signed(sign: bool) -> F64 {
        if sign {
            F64::NEG_INFINITY
        } else {
            F64::INFINITY
        }
    }

    /// Rounds `(-1)^sign × (mant + f) × 2^exp2` to binary64, nearest-even, where `f` is
    /// `0` when `!sticky` and some value in `(0, 1)` when `sticky`.
    ///
    /// 64 bits hold a significand (53 bits) with 11 bits below it, so every operation runs in
    /// 64-bit words: a Cortex-M0 (32-bit, no 128-bit instructions) needs about a third of
    /// the code the same logic takes on `u128`.
    fn round_pack(sign: bool, mant: u64, exp2: i32, sticky: bool) -> F64 {
        if mant == 0 {
            // Callers never pass sticky with a zero mantissa (the value would be below
            // 2^exp2, which they keep far below the subnormal range anyway).
            return F64::zero_signed(sign);
        }
        // One 32-bit count of the word holding the leading bit (u64::leading_zeros counts
        // both halves on a Cortex-M0).
        let hi = (mant >> 32) as u32;
        let (word, below) = if hi != 0 { (hi, 0) } else { (mant as u32, 32) };
        let lz = leading_zeros(word).wrapping_add(below);
        // The sticky flag joins bit 0, below the rounding position (shift >= 11 below): it
        // turns a remainder of exactly half into more than half, and lifts none below half
        // to half (half - 1 has bit 0 set already).
        let mant = mant.wrapping_shl(lz) | u64::from(sticky);
        // Callers pass exponents within ±2^16: no overflow below.
        let exp2 = exp2.wrapping_sub(lz as i32);
        // The value is now in [2^63, 2^64) × 2^exp2; its leading bit has weight 2^top.
        let top = exp2.wrapping_add(63);
        if top > 1023 {
            return F64::inf_signed(sign);
        }
        let lsb = top.wrapping_sub(52).max(-1074);
        // lsb >= top - 52 = exp2 + 11, so shift >= 11.
        let shift = lsb.wrapping_sub(exp2).unsigned_abs();
        let q = mant.checked_shr(shift).unwrap_or(0); // < 2^53
                                                      // The bits below the rounding position, moved to the top (half is then 2^63). Beyond
                                                      // a shift of 64 the value is below 2^(exp2 + 64) <= 2^(lsb - 1), half the smallest
                                                      // step: no bits count, and q is 0.
        let rem = 64u32.checked_sub(shift).map_or(0, |k| mant.wrapping_shl(k));
        // Above half, or half with an odd q: ties to even.
        let round_up = rem > (1u64 << 63).wrapping_sub(q & 1);
        let q = q.wrapping_add(u64::from(round_up));
        // lsb in -1074..=971, so the biased field base is in 0..=2045; a carry out of the
        // fraction (q == 2^53, or 2^52 for subnormals) correctly bumps the exponent, up to
        // the infinity pattern at most.
        let base = (lsb.wrapping_add(1074) as u64).wrapping_shl(52);
        let mag = base.wrapping_add(q);
        F64(mag | if sign { SIGN } else { 0 })
    }

    /// [`F64::round_pack`] for a 128-bit mantissa `hi × 2^64 + lo`, shifted right a byte at
    /// a time until it fits 64 bits, with the bits shifted out folded into the sticky flag.
    /// Constant shifts need no shift routine on 32-bit targets; when `hi` turns zero, `lo`
    /// still holds at least 56 significant bits, more than rounding to 53 needs.
    fn round_pack_wide(sign: bool, hi: u64, lo: u64, exp2: i32, sticky: bool) -> F64 {
        let (mut hi, mut lo, mut exp2, mut sticky) = (hi, lo, exp2, sticky);
        while hi != 0 {
            sticky |= lo as u8 != 0;
            lo = lo >> 8 | hi << 56;
            hi >>= 8;
            // At most 8 steps from exponents within ±2^16: no overflow.
            exp2 = exp2.wrapping_add(8);
        }
        F64::round_pack(sign, lo, exp2, sticky)
    }

    /// `x as f64` for an `i64`: round to nearest, ties to even.
    #[must_use]
    pub fn from_i64(x: i64) -> F64 {
        F64::round_pack(x < 0, x.unsigned_abs(), 0, false)
    }

    /// `x as f64` for a `u64`: round to nearest, ties to even.
    #[must_use]
    pub fn from_u64(x: u64) -> F64 {
        F64::round_pack(false, x, 0, false)
    }

    /// `x as f64` for a `u128`: round to nearest, ties to even.
    #[must_use]
    pub fn from_u128(x: u128) -> F64 {
        F64::round_pack_wide(false, (x >> 64) as u64, x as u64, 0, false)
    }

    /// `x as f64` for an `i128`: round to nearest, ties to even.
    #[must_use]
    pub fn from_i128(x: i128) -> F64 {
        let m = x.unsigned_abs();
        F64::round_pack_wide(x < 0, (m >> 64) as u64, m as u64, 0, false)
    }

    /// `self + other`, correctly rounded (IEEE-754, round to nearest even).
    #[must_use]
    #[allow(clippy::should_implement_trait)] // by-name API mirroring upstream's operators
    pub fn add(self, other: F64) -> F64 {
        self.binop(other, Op::Add)
    }

    /// `self - other`, correctly rounded.
    #[must_use]
    #[allow(clippy::should_implement_trait)] // by-name API mirroring upstream's operators
    pub fn sub(self, other: F64) -> F64 {
        self.add(other.neg())
    }

    /// `self * other`, correctly rounded.
    #[must_use]
    #[allow(clippy::should_implement_trait)] // by-name API mirroring upstream's operators
    pub fn mul(self, other: F64) -> F64 {
        self.binop(other, Op::Mul)
    }

    /// `self / other`, correctly rounded.
    #[must_use]
    #[allow(clippy::should_implement_trait)] // by-name API mirroring upstream's operators
    pub fn div(self, other: F64) -> F64 {
        self.binop(other, Op::Div)
    }

    /// The three operations in one body: they share the decoding, the special cases and the
    /// final rounding (one copy of each is about a third of the code of three functions on a
    /// Cortex-M0). Zeros take the finite path wherever it gives their IEEE result.
    fn binop(self, other: F64, op: Op) -> F64 {
        let (mut a, mut b) = (self, other);
        // The sign of a product or quotient (for a sum: whether the signs differ).
        let sign = (a.0 ^ b.0) & SIGN != 0;
        if a.is_nan() || b.is_nan() {
            return F64::NAN;
        }
        let (a_inf, b_inf) = (a.is_infinite(), b.is_infinite());
        if op == Op::Add {
            if a_inf || b_inf {
                // Inf - Inf is NaN; otherwise the infinity wins, with its sign.
                return if a_inf && b_inf && a != b {
                    F64::NAN
                } else if a_inf {
                    a
                } else {
                    b
                };
            }
            // The larger magnitude first: its exponent is then the larger too.
            if a.0 & !SIGN < b.0 & !SIGN {
                (a, b) = (b, a);
            }
        } else {
            // Dividing by b is multiplying by 1/b: an infinite b acts as a zero factor and a
            // zero b as an infinite one. Then Inf × 0 is NaN, Inf × x infinite, 0 × x zero.
            let (a_zero, b_zero) = (a.is_zero(), b.is_zero());
            let (b_inf, b_zero) = if op == Op::Div {
                (b_zero, b_inf)
            } else {
                (b_inf, b_zero)
            };
            if a_inf || b_inf {
                return if a_zero || b_zero {
                    F64::NAN
                } else {
                    F64::inf_signed(sign)
                };
            }
            if a_zero || b_zero {
                return F64::zero_signed(sign);
            }
        }
        let (ma, ea) = a.unpack();
        let (mb, eb) = b.unpack();
        let (sign, mant, exp2, sticky) = match op {
            Op::Add => {
                // |a| >= |b|, so ea >= eb. Work in units of 2^(ea - 10): a is ma << 10
                // (< 2^63).
                let am = ma << 10;
                let diff = ea.wrapping_sub(eb).unsigned_abs(); // below 2^11
                let bm = if diff <= 10 {
                    mb.wrapping_shl(10u32.wrapping_sub(diff))
                } else {
                    // Shift right by diff - 10, jamming lost bits into the lowest bit. Then
                    // `am >= 2^62` (b is nonzero or a zero, whose exponent is the lowest), so
                    // the rounding position stays at least 8 bits above the jam bit, where a
                    // nonzero jam bit stands for any nonzero tail.
                    // mb < 2^53: from a shift of 53 up all of it is lost, so 63 serves beyond.
                    let r = diff.wrapping_sub(10).min(63);
                    let kept = mb >> r;
                    kept | u64::from(kept << r != mb)
                };
                let exp2 = ea.wrapping_sub(10);
                let a_neg = a.is_sign_negative();
                if sign {
                    // am >= bm; an exact cancellation is +0 in round-to-nearest.
                    (a_neg && am != bm, am.wrapping_sub(bm), exp2, false)
                } else {
                    // am, bm < 2^63: no overflow; -0 + -0 keeps its sign.
                    (a_neg, am.wrapping_add(bm), exp2, false)
                }
            }
            Op::Mul => {
                // Significands in [2^52, 2^53): the product lies in [2^104, 2^106), and its
                // top 64 bits (all but the low 42) keep at least 62 significant bits, the rest
                // folding into the sticky flag.
                let (hi, lo) = mul_wide(ma, mb);
                let exp2 = ea.wrapping_add(eb).wrapping_add(42);
                (sign, (hi << 22) | (lo >> 42), exp2, lo << 22 != 0)
            }
            Op::Div => {
                // floor(ma × 2^QUOTIENT_SHIFT / mb), in (2^54, 2^56), the remainder's flag
                // in its lowest bit.
                let exp2 = ea.wrapping_sub(eb).wrapping_sub(QUOTIENT_SHIFT as i32);
                (sign, div_mant(ma, mb), exp2, false)
            }
        };
        F64::round_pack(sign, mant, exp2, sticky)
    }

    /// A key whose signed order is the IEEE order of non-NaN values: the sign-magnitude
    /// pattern read as two's complement, so `-0` and `+0` share the key 0.
    pub(crate) const fn order_key(self) -> i64 {
        let bits = self.0 as i64;
        // 0 for positive values, -1 for negative ones: (m ^ s) - s is -m for those.
        let s = bits >> 63;
        ((bits & i64::MAX) ^ s).wrapping_sub(s)
    }

    /// IEEE comparison; `None` when either operand is NaN. `-0` equals `+0`.
    #[must_use]
    pub fn partial_cmp_value(self, other: F64) -> Option<Ordering> {
        if self.is_nan() || other.is_nan() {
            None
        } else {
            Some(self.order_key().cmp(&other.order_key()))
        }
    }

    /// IEEE `self < other` (false when either is NaN).
    #[must_use]
    pub fn lt(self, other: F64) -> bool {
        matches!(self.partial_cmp_value(other), Some(Ordering::Less))
    }

    /// IEEE `self <= other` (false when either is NaN).
    #[must_use]
    pub fn le(self, other: F64) -> bool {
        matches!(
            self.partial_cmp_value(other),
            Some(Ordering::Less | Ordering::Equal)
        )
    }

    /// IEEE `self > other` (false when either is NaN).
    #[must_use]
    pub fn gt(self, other: F64) -> bool {
        matches!(self.partial_cmp_value(other), Some(Ordering::Greater))
    }

    /// IEEE `self >= other` (false when either is NaN).
    #[must_use]
    pub fn ge(self, other: F64) -> bool {
        matches!(
            self.partial_cmp_value(other),
            Some(Ordering::Greater | Ordering::Equal)
        )
    }

    /// IEEE `self == other` (false when either is NaN; `-0 == +0`).
    #[must_use]
    pub fn eq_value(self, other: F64) -> bool {
        matches!(self.partial_cmp_value(other), Some(Ordering::Equal))
    }

    /// Go's `math.Max(self, other)`.
    ///
    /// Special cases, in Go's order: `Max(x, +Inf) = Max(+Inf, x) = +Inf` (even when `x` is
    /// NaN), `Max(x, NaN) = Max(NaN, x) = NaN`, `Max(+0, ±0) = Max(±0, +0) = +0`,
    /// `Max(-0, -0) = -0`.
    #[must_use]
    pub fn max(self, other: F64) -> F64 {
        if self == F64::INFINITY || other == F64::INFINITY {
            F64::INFINITY
        } else if self.is_nan() || other.is_nan() {
            F64::NAN
        } else if self.is_zero() && other.is_zero() {
            if self.is_sign_negative() {
                other
            } else {
                self
            }
        } else if self.gt(other) {
            self
        } else {
            other
        }
    }

    /// Go's `math.Trunc`: the integer part, toward zero, keeping the sign (`Trunc(-0.5) =
    /// -0`); `±0`, `±Inf` and NaN are returned unchanged.
    #[must_use]
    pub fn trunc(self) -> F64 {
        let biased = (self.0 >> 52) & EXP_MASK;
        if biased >= 1075 {
            // |x| >= 2^52 is an integer already; also covers Inf and NaN.
            self
        } else if biased < 1023 {
            // |x| < 1
            F64(self.0 & SIGN)
        } else {
            // 1 <= |x| < 2^52: clear the fraction bits below the units bit.
            let frac_bits = 1075u64.wrapping_sub(biased) as u32; // 1..=52
            let mask = 1u64.wrapping_shl(frac_bits).wrapping_sub(1);
            F64(self.0 & !mask)
        }
    }

    /// Go's `math.Ceil`: the least integer value `>= self`, keeping the sign
    /// (`Ceil(-0.5) = -0`); `±0`, `±Inf` and NaN are returned unchanged.
    #[must_use]
    pub fn ceil(self) -> F64 {
        let t = self.trunc();
        if self.is_sign_negative() || t == self {
            // Negative values (and integers) round toward zero.
            t
        } else {
            // Positive with a fractional part: trunc + 1.
            t.add(F64::ONE)
        }
    }

    /// `self as i64`: truncates toward zero, saturates at the `i64` range, NaN gives `0`.
    #[must_use]
    pub fn to_i64_saturating(self) -> i64 {
        self.to_i64_rounded(false)
    }

    /// `self as i32`: truncates toward zero, saturates at the `i32` range, NaN gives `0`.
    #[must_use]
    pub fn to_i32_saturating(self) -> i32 {
        self.to_i32_rounded(false)
    }

    /// [`F64::to_i32_rounded`] in `i32`, saturating.
    pub(crate) fn to_i32_rounded(self, up: bool) -> i32 {
        super::clamp_i64_to_i32(self.to_i64_rounded(up))
    }

    /// `int64(math.Ceil(self))` when `up`, else `int64(self)`: saturating, NaN gives `0`.
    /// The ceiling is taken on the integer (a fraction left by the truncation adds one to a
    /// positive value) instead of by a float addition: less code, and exact all the same.
    pub(crate) fn to_i64_rounded(self, up: bool) -> i64 {
        if self.is_nan() {
            return 0;
        }
        let negative = self.is_sign_negative();
        // An infinity unpacks as 2^52 × 2^972: it saturates like any value of 2^63 or more.
        let (mant, exp) = self.unpack();
        let magnitude = if exp >= 11 {
            // mant >= 2^52 (a zero's exponent is negative), so mant × 2^exp >= 2^63.
            u64::MAX
        } else if exp >= 0 {
            mant.wrapping_shl(exp.unsigned_abs())
        } else {
            // |value| < 1 from s = 53 up (mant < 2^53): capping s at 63 changes no result.
            let s = exp.unsigned_abs().min(63);
            // The ceiling of a nonzero mant / 2^s is ((mant - 1) >> s) + 1: one shift, where
            // adding 2^s - 1 first takes two on a Cortex-M0.
            let one = u64::from(up && !negative && mant != 0);
            (mant.wrapping_sub(one) >> s).wrapping_add(one)
        };
        // 2^63 reads as i64::MIN, which negates to itself.
        if negative {
            (magnitude.min(1 << 63) as i64).wrapping_neg()
        } else {
            magnitude.min(i64::MAX as u64) as i64
        }
    }

    /// Go's `math.Pow10(n)`, computed exactly as Go computes it (a product or quotient of
    /// two table entries, so not always the nearest binary64 to `10^n`).
    #[must_use]
    pub fn go_pow10(n: i32) -> F64 {
        if !(-323..=308).contains(&n) {
            return if n > 0 { F64::INFINITY } else { F64::ZERO };
        }
        // Go's tables hold 1e0..1e31 and 1e(±32k); n / 32 and n % 32 pick the entries, whose
        // product (n >= 0) or quotient (n < 0) is the result.
        let (q, r) = (n.wrapping_div(32), n.wrapping_rem(32));
        let (big, small) = (
            F64::literal_pow10(q.wrapping_mul(32)),
            F64::literal_pow10(r.wrapping_abs()),
        );
        big.binop(small, if n >= 0 { Op::Mul } else { Op::Div })
    }

    /// The binary64 of the literal `1e{e}` for an entry of Go's tables (`e` in `0..32`, or a
    /// multiple of 32 in `-320..=288`). On small targets (not [`FAST_FORMS`]) the first 32
    /// entries are computed ([`F64::small_pow10`], 256 bytes of table less flash there;
    /// `go_pow10` only runs when a tolerance is read), so that no correctly rounded decimal
    /// conversion is linked for it.
    /// Inlined: its two call sites then share no wrapper (20 bytes less code on a Cortex-M0).
    #[inline(always)]
    fn literal_pow10(e: i32) -> F64 {
        let bits = if (0..32).contains(&e) {
            if !FAST_FORMS {
                return F64::small_pow10(e);
            }
            POW10TAB.get(e as usize)
        } else if e > 0 {
            POW10POSTAB32.get((e / 32) as usize)
        } else {
            POW10NEGTAB32.get(e.unsigned_abs() as usize / 32)
        };
        F64(bits.copied().unwrap_or(0))
    }

    /// `1e{e}` for `e` in `0..32`, correctly rounded, without a table: `10^a × 10^b` with
    /// `a = min(e, 19)`, `b <= 12`. Both factors are exact binary64 values (every power of
    /// ten up to `10^22` is), so their product, rounded once, is the nearest to `10^e`.
    fn small_pow10(e: i32) -> F64 {
        let power = |k: i32| {
            let mut p = 1_u64;
            for _ in 0..k {
                // k <= 19: below 2^64.
                p = p.wrapping_mul(10);
            }
            F64::from_u64(p)
        };
        let a = e.min(19);
        power(a).mul(power(e.wrapping_sub(a)))
    }

    /// The binary64 nearest to `±mantissa × 10^exp10` (ties to even; overflow gives `±∞`,
    /// underflow gives a subnormal or `±0`): exactly what Rust's
    /// `"<mantissa>e<exp10>".parse::<f64>()` returns, for every `exp10`.
    #[must_use]
    pub fn from_decimal(negative: bool, mantissa: u64, exp10: i32) -> F64 {
        if mantissa == 0 {
            return F64::zero_signed(negative);
        }
        // mantissa >= 1, so from exp10 = 309 up the value exceeds the largest finite
        // binary64 (~1.798e308) by far more than half an ulp; below exp10 = -343 it is under
        // 2^64 × 10^-344 < 1.85e-325, less than half the smallest subnormal (2^-1075 ~
        // 2.47e-324).
        if exp10 > 308 {
            return F64::inf_signed(negative);
        }
        if exp10 < -343 {
            return F64::zero_signed(negative);
        }
        // Clinger's fast path: a mantissa below 2^53 and 10^|exp10| up to 10^18 are exact
        // binary64 values, and one correctly rounded product or quotient of exact operands is
        // the nearest binary64 to the exact value. The common decimals (a tolerance of 0.1,
        // which a C caller's settings convert at every call) then take one operation instead of
        // a division of big numbers.
        if mantissa < 1 << 53 && (-18..=18).contains(&exp10) {
            let m = F64::from_u64(mantissa);
            let p = F64::from_u64(10_u64.pow(exp10.unsigned_abs()));
            let magnitude = if exp10 < 0 { m.div(p) } else { m.mul(p) };
            return if negative { magnitude.neg() } else { magnitude };
        }
        // value = num / den, num = mantissa × 10^max(exp10, 0) < 2^1088 and
        // den = 10^max(-exp10, 0) < 2^1140: one path for both signs of exp10.
        let mut num = Big::<DEC_LIMBS>::pow10(exp10.max(0).unsigned_abs());
        num.mul_small(mantissa);
        let mut den = Big::<DEC_LIMBS>::pow10(exp10.min(0).unsigned_abs());
        // With s = bits(den) - bits(num) + 63, q = floor(num × 2^s / den) lies in (2^62,
        // 2^64); a negative s shifts den instead. |s| < 2^11, and the shifted operands stay
        // below 2^1204, inside the limbs.
        let s = (den.bit_len() as i32)
            .wrapping_add(63)
            .wrapping_sub(num.bit_len() as i32);
        if s >= 0 {
            num.shl_assign(s.unsigned_abs());
        } else {
            den.shl_assign(s.unsigned_abs());
        }
        let (q, inexact) = num.div_small_quotient(&mut den, 63);
        F64::round_pack(negative, q, s.wrapping_neg(), inexact)
    }

    /// Go's `resource.Quantity.AsApproximateFloat64` for an `int64Amount{value: mantissa,
    /// scale: exp10}`: `float64(mantissa)`, times `math.Pow10(exp10)` unless `exp10 == 0`.
    #[must_use]
    pub fn go_approximate_float64(mantissa: i64, exp10: i32) -> F64 {
        // With exp10 == 0 the factor is 1.0, and the product `base` exactly.
        F64::from_i64(mantissa).mul(F64::go_pow10(exp10))
    }
}

/// The scale of [`div_mant`]'s quotient: enough bits for rounding to 53 (and one beyond the
/// rounding bit for the remainder's flag), and no more, since each bit is a step of the loop
/// on small targets.
const QUOTIENT_SHIFT: u32 = 55;

/// `floor(a × 2^QUOTIENT_SHIFT / b)`, in `(2^54, 2^56)`, with its lowest bit set when a
/// remainder is left, for significands `a`, `b` in `[2^52, 2^53)`: that bit lies below the
/// rounding bit, where it stands for any nonzero remainder (one word to return, not two). The
/// native 128-bit division on hosts ([`FAST_FORMS`]), elsewhere [`div_mant_loop`].
fn div_mant(a: u64, b: u64) -> u64 {
    if FAST_FORMS {
        let n = u128::from(a) << QUOTIENT_SHIFT;
        let d = u128::from(b);
        // d >= 2^52: no division by zero; the quotient is below 2^56.
        let q = n.checked_div(d).unwrap_or(0) as u64;
        return q | u64::from(n.checked_rem(d).unwrap_or(0) != 0);
    }
    div_mant_loop(a, b)
}

/// The significands' bits below an integer below 2^31's: integers, percents and counts, the
/// usual operands of upstream's ratios, have them all zero.
const BELOW_31_BITS: u64 = (1 << 22) - 1;

/// [`div_mant`] by binary long division, one quotient bit per step. The remainder stays below
/// `2b`: in 32-bit words when both significands are integers below 2^31 shifted up (the same
/// quotient from a third of the instructions on a Cortex-M0), else in 64-bit words. Out of
/// line: inlined into [`F64::binop`], its loops keep their operands on the stack.
#[inline(never)]
fn div_mant_loop(a: u64, b: u64) -> u64 {
    let (q, inexact) = if (a | b) & BELOW_31_BITS == 0 {
        // a, b in [2^30, 2^31): every remainder is below 2^31 after a step, 2^32 before it.
        // The quotient's high and low words one after the other: one word in a register.
        let (b, r) = ((b >> 22) as u32, (a >> 22) as u32);
        let (high, r) = quotient_bits(r, b, QUOTIENT_SHIFT + 1 - 32);
        let (low, r) = quotient_bits(r, b, 32);
        (u64::from(high) << 32 | u64::from(low), r != 0)
    } else {
        let (mut q, mut r, mut bits) = (0_u64, a, QUOTIENT_SHIFT + 1);
        loop {
            // As in [`quotient_bits`], in 64-bit words: |r - b| < 2^63.
            let t = r.wrapping_sub(b);
            let below = ((t as i64) >> 63) as u64;
            q = (q << 1).wrapping_add(1).wrapping_add(below);
            r = t.wrapping_add(b & below) << 1;
            bits = bits.wrapping_sub(1);
            if bits == 0 {
                break (q, r != 0);
            }
        }
    };
    q | u64::from(inexact)
}

/// `bits` steps of [`div_mant_loop`]'s 32-bit form from the remainder `r < 2b`: the quotient
/// bits they give, and the remainder left (shifted once more than the quotient).
fn quotient_bits(mut r: u32, b: u32, mut bits: u32) -> (u32, u32) {
    let mut q: u32 = 0;
    // Tested at the end (`bits` is never 0): two instructions a step fewer than a `for`.
    loop {
        // Without a branch: |r - b| < 2^31, so the difference's sign bit says r < b, and
        // the mask it spreads undoes the subtraction and takes the quotient bit back.
        let t = r.wrapping_sub(b);
        let below = ((t as i32) >> 31) as u32;
        q = (q << 1).wrapping_add(1).wrapping_add(below);
        r = t.wrapping_add(b & below) << 1;
        bits = bits.wrapping_sub(1);
        if bits == 0 {
            return (q, r);
        }
    }
}

/// `x.leading_zeros()` for a nonzero `x`: natively on hosts ([`FAST_FORMS`]), elsewhere by
/// halving the range five times in a loop (less code than `__clzsi2`, which only this would
/// link on a Cortex-M0).
fn leading_zeros(x: u32) -> u32 {
    if FAST_FORMS {
        return x.leading_zeros();
    }
    leading_zeros_steps(x)
}

/// [`leading_zeros`] in five steps (what 32-bit targets run).
fn leading_zeros_steps(x: u32) -> u32 {
    let (mut x, mut n, mut bits) = (x, 0_u32, 16_u32);
    while bits != 0 {
        if x.wrapping_shr(32_u32.wrapping_sub(bits)) == 0 {
            x = x.wrapping_shl(bits);
            n = n.wrapping_add(bits);
        }
        bits >>= 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(v: i64) -> F64 {
        F64::from_i64(v)
    }

    /// [`div_mant`] in native 128-bit arithmetic.
    fn quotient(a: u64, b: u64) -> u64 {
        let n = u128::from(a) << QUOTIENT_SHIFT;
        (n / u128::from(b)) as u64 | u64::from(!n.is_multiple_of(u128::from(b)))
    }

    /// The division that 32-bit targets run, against native 128-bit arithmetic (the property
    /// tests in tests/binary64.rs run the native division on 64-bit hosts).
    #[test]
    fn wide_helpers_match_native() {
        let mut next = crate::arith::test_rng(0x9E37_79B9_7F4A_7C15);
        // Miri interprets each operation thousands of times slower.
        let cases = if cfg!(miri) { 100 } else { 200_000 };
        for _ in 0..cases {
            let (x, y) = (next(), next());
            let a = (x >> 11) | HIDDEN;
            let b = (y >> 11) | HIDDEN;
            let want = quotient(a, b);
            assert_eq!(div_mant_loop(a, b), want, "{a} / {b}");
            assert_eq!(div_mant(a, b), want, "{a} / {b}");
            // The 32-bit form: significands of integers below 2^31.
            let (a, b) = (a & !BELOW_31_BITS, b & !BELOW_31_BITS);
            assert_eq!(div_mant_loop(a, b), quotient(a, b), "{a} / {b}");
            // Every leading bit position, with random bits below it.
            let word = (x as u32 | 1 << 31) >> (y % 32);
            assert_eq!(leading_zeros_steps(word), word.leading_zeros(), "{word}");
            assert_eq!(leading_zeros(word), word.leading_zeros(), "{word}");
        }
        let top_31 = 2 * HIDDEN - (1 << 22);
        for (a, b) in [
            (HIDDEN, HIDDEN),
            (HIDDEN, 2 * HIDDEN - 1),
            (2 * HIDDEN - 1, HIDDEN),
            (HIDDEN, top_31),
            (top_31, HIDDEN),
            (top_31, top_31),
        ] {
            assert_eq!(div_mant_loop(a, b), quotient(a, b));
        }
    }

    #[test]
    fn constants() {
        assert_eq!(F64::ONE, int(1));
        assert_eq!(F64::ZERO, int(0));
        assert!(F64::NAN.is_nan());
        assert!(!F64::NAN.is_infinite());
        assert!(F64::INFINITY.is_infinite());
        assert!(F64::NEG_INFINITY.is_infinite());
        assert!(!F64::INFINITY.is_nan());
        assert_eq!(F64::from_bits(0x1234).to_bits(), 0x1234);
        // Under Miri a conversion of big numbers takes seconds: the first entry of each table
        // (the short path) and the last (the big numbers').
        let stride = |len: usize| if cfg!(miri) { len.saturating_sub(1) } else { 1 };
        for (i, bits) in POW10TAB.iter().enumerate().step_by(stride(POW10TAB.len())) {
            assert_eq!(F64::from_decimal(false, 1, i as i32).to_bits(), *bits);
        }
        for (i, bits) in POW10POSTAB32
            .iter()
            .enumerate()
            .step_by(stride(POW10POSTAB32.len()))
        {
            assert_eq!(F64::from_decimal(false, 1, 32 * i as i32).to_bits(), *bits);
        }
        for (i, bits) in POW10NEGTAB32
            .iter()
            .enumerate()
            .step_by(stride(POW10NEGTAB32.len()))
        {
            assert_eq!(F64::from_decimal(false, 1, -32 * i as i32).to_bits(), *bits);
        }
    }

    /// The tables and the conversion that replaces them on 32-bit targets agree.
    #[test]
    fn literal_pow10_from_tables_or_conversion() {
        // Under Miri a conversion of big numbers takes seconds: a sample of the exponents, of
        // the short path and the big numbers', and of each range `go_pow10` treats apart.
        let stride = if cfg!(miri) { 19 } else { 1 };
        let wide_stride = if cfg!(miri) { 250 } else { 1 };
        let exponents = (0..32).chain((-10..=9).map(|k| 32 * k));
        for e in exponents.step_by(stride) {
            assert_eq!(
                F64::literal_pow10(e),
                F64::from_decimal(false, 1, e),
                "1e{e}"
            );
        }
        // The 32-bit form of the first 32 entries.
        for e in (0..32).step_by(stride) {
            assert_eq!(F64::small_pow10(e), F64::from_decimal(false, 1, e), "1e{e}");
        }
        // `go_pow10` is Go's `math.Pow10` (the range check, then the tables) for every
        // exponent: here with each table entry converted from its literal.
        let exponents = (-1000..=1000).step_by(wide_stride).chain([
            i32::MIN,
            i32::MIN + 1,
            i32::MAX,
            i32::MAX - 31,
        ]);
        for n in exponents {
            let (q, r) = (n.wrapping_div(32), n.wrapping_rem(32));
            let big = F64::from_decimal(false, 1, q.wrapping_mul(32));
            let small = F64::from_decimal(false, 1, r.wrapping_abs());
            let converted = if n > 308 {
                F64::INFINITY
            } else if n < -323 {
                F64::ZERO
            } else if n >= 0 {
                big.mul(small)
            } else {
                big.div(small)
            };
            assert_eq!(converted, F64::go_pow10(n), "Pow10({n})");
        }
    }

    /// The integer ceiling against `ceil` then the conversion.
    #[test]
    fn rounded_conversions_match_ceil() {
        let mut next = crate::arith::test_rng(0x2545_F491_4F6C_DD1D);
        let specials = [
            0.5, -0.5, 1.0, 2.5, -2.5, 9.2e18, 9.3e18, -9.3e18, 2.1e9, -2.2e9,
        ];
        let check = |x: F64| {
            assert_eq!(
                x.to_i64_rounded(true),
                x.ceil().to_i64_saturating(),
                "{x:?}"
            );
            assert_eq!(
                x.to_i32_rounded(true),
                x.ceil().to_i32_saturating(),
                "{x:?}"
            );
            assert_eq!(
                x.to_i64_rounded(false),
                x.trunc().to_i64_saturating(),
                "{x:?}"
            );
        };
        for v in specials {
            check(F64(f64::to_bits(v)));
            check(F64(f64::to_bits(v)).neg());
        }
        for bits in [
            0,
            SIGN,
            1,
            SIGN | 1,
            F64::INFINITY.0,
            F64::NAN.0,
            F64::ONE.0,
        ] {
            check(F64(bits));
            check(F64(bits).neg());
        }
        for _ in 0..if cfg!(miri) { 100 } else { 200_000 } {
            let r = next();
            // Exponents around the integer range, and any.
            let exp = 1023 + (r >> 56) % 70;
            check(F64((r & (SIGN | FRAC_MASK)) | exp << 52));
            check(F64(next()));
        }
    }

    /// 1.1 * 10 == 11 after rounding.
    #[test]
    fn go_quirk_1_1_times_10() {
        let x = F64::from_decimal(false, 11, -1);
        assert_eq!(x.to_bits(), 0x3FF1_9999_9999_999A);
        assert_eq!(x.mul(int(10)).to_bits(), 0x4026_0000_0000_0000);
        assert_eq!(x.mul(int(10)), int(11));
    }

    /// (1.0 + 10.0/100.0) * 10.0 == 11.0
    #[test]
    fn go_quirk_tolerance_product() {
        let v = F64::ONE.add(int(10).div(int(100))).mul(int(10));
        assert_eq!(v, int(11));
    }

    /// ceil(25.0 * (1.0 + 12.0/100.0)) == 29 (25 × 1.12 = 28.000000000000004).
    #[test]
    fn go_quirk_ceil_28_point_000_004() {
        let p = int(25).mul(F64::ONE.add(int(12).div(int(100))));
        assert_eq!(p.to_bits(), 0x403C_0000_0000_0001);
        assert_eq!(p.ceil(), int(29));
        assert_eq!(p.ceil().to_i32_saturating(), 29);
    }

    /// 10.0 * (1.0 - 80.0/100.0) == 1.9999999999999996, truncates to 1.
    #[test]
    fn go_quirk_trunc_1_999() {
        let p = int(10).mul(F64::ONE.sub(int(80).div(int(100))));
        assert_eq!(p.to_bits(), 0x3FFF_FFFF_FFFF_FFFE);
        assert_eq!(p.trunc(), int(1));
        assert_eq!(p.to_i32_saturating(), 1);
    }

    /// 28.0/100.0*25.0 == 7.000000000000001, ceil 8.
    #[test]
    fn go_quirk_ceil_7_000_001() {
        let p = int(28).div(int(100)).mul(int(25));
        assert_eq!(p.to_bits(), 0x401C_0000_0000_0001);
        assert_eq!(p.ceil(), int(8));
    }

    /// 1.0 - 0.18 == 0.8200000000000001
    #[test]
    fn go_quirk_one_minus_0_18() {
        let p = F64::ONE.sub(F64::from_decimal(false, 18, -2));
        assert_eq!(p.to_bits(), 0x3FEA_3D70_A3D7_0A3E);
        assert_eq!(p, F64::from_decimal(false, 8_200_000_000_000_001, -16));
    }

    /// 350 * Pow10(-3) == 0.35000000000000003
    #[test]
    fn go_quirk_approximate_float64() {
        assert_eq!(F64::go_pow10(-3).to_bits(), 0x3F50_624D_D2F1_A9FC);
        let v = F64::go_approximate_float64(350, -3);
        assert_eq!(v.to_bits(), 0x3FD6_6666_6666_6667);
        assert_eq!(v, F64::from_decimal(false, 35_000_000_000_000_003, -17));
        assert_ne!(v, F64::from_decimal(false, 35, -2));
    }

    #[test]
    fn signed_zero_and_specials() {
        let nz = F64::NEG_ZERO;
        assert_eq!(nz.add(nz), nz);
        assert_eq!(nz.add(F64::ZERO), F64::ZERO);
        assert_eq!(F64::ONE.sub(F64::ONE), F64::ZERO);
        assert!(nz.eq_value(F64::ZERO));
        assert!(!nz.lt(F64::ZERO));
        assert_eq!(nz.max(F64::ZERO), F64::ZERO);
        assert_eq!(F64::ZERO.max(nz), F64::ZERO);
        assert_eq!(nz.max(nz), nz);
        assert_eq!(F64::NAN.max(F64::INFINITY), F64::INFINITY);
        assert!(F64::NAN.max(F64::ONE).is_nan());
        assert!(F64::INFINITY.sub(F64::INFINITY).is_nan());
        assert!(F64::ZERO.div(F64::ZERO).is_nan());
        assert!(F64::INFINITY.mul(F64::ZERO).is_nan());
        assert_eq!(F64::ONE.div(nz), F64::NEG_INFINITY);
        assert_eq!(F64::from_i64(-1).ceil(), F64::from_i64(-1));
        assert_eq!(F64::from_decimal(true, 5, -1).ceil(), nz);
        assert_eq!(F64::from_decimal(true, 5, -1).trunc(), nz);
        assert_eq!(F64::from_decimal(false, 5, -1).ceil(), F64::ONE);
        assert_eq!(F64::NAN.to_i64_saturating(), 0);
        assert_eq!(F64::INFINITY.to_i32_saturating(), i32::MAX);
        assert_eq!(F64::NEG_INFINITY.to_i64_saturating(), i64::MIN);
        assert_eq!(
            F64::from_bits(1).div(F64::from_bits(2)).to_bits(),
            0x3FE0_0000_0000_0000
        );
    }

    #[test]
    fn from_decimal_extremes() {
        assert_eq!(F64::from_decimal(false, 1, i32::MAX), F64::INFINITY);
        assert_eq!(F64::from_decimal(true, 1, i32::MAX), F64::NEG_INFINITY);
        assert_eq!(F64::from_decimal(false, 1, i32::MIN), F64::ZERO);
        assert_eq!(F64::from_decimal(true, 1, i32::MIN), F64::NEG_ZERO);
        assert_eq!(F64::from_decimal(false, 0, i32::MAX), F64::ZERO);
        // 2.4703282292062328e-324 is just above half the smallest subnormal.
        assert_eq!(
            F64::from_decimal(false, 24_703_282_292_062_328, -340).to_bits(),
            1
        );
        assert_eq!(
            F64::from_decimal(false, 24_703_282_292_062_327, -340).to_bits(),
            0
        );
        // Largest finite and the first value that rounds to infinity.
        assert_eq!(
            F64::from_decimal(false, 17_976_931_348_623_157, 292).to_bits(),
            0x7FEF_FFFF_FFFF_FFFF
        );
        assert_eq!(
            F64::from_decimal(false, 17_976_931_348_623_159, 292),
            F64::INFINITY
        );
    }
}
