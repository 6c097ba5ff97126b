//! Kubernetes `resource.Quantity` (`k8s.io/apimachinery/pkg/api/resource`), as far as the
//! engine needs it: parsing, the canonical text form, and the rounded integer readings.
//!
//! A [`Quantity`] is an exact decimal `mantissa × 10^exponent` plus the [`Format`] (suffix
//! family) it was written with. Everything is integer arithmetic on `i128`; nothing
//! allocates.
//!
//! # Parsing ([`Quantity::parse`])
//!
//! Follows upstream `ParseQuantity` (fed the way `UnmarshalJSON` feeds it: surrounding
//! blanks trimmed):
//!
//! * `[+-]` sign, digits with an optional `.` (`"1."` and `".5"` are fine), then one suffix:
//!   `n u m "" k M G T P E` (DecimalSI), `Ki Mi Gi Ti Pi Ei` (BinarySI) or `e`/`E` followed
//!   by a signed integer (DecimalExponent, e.g. `1e3`, `1E-3`, `12e+2`).
//! * Precision beyond nano (10⁻⁹) is rounded *up*, away from zero (Go `inf.RoundUp`):
//!   `"0.1n"` is `1n`, `"-0.0000000001"` is `-1n`.
//! * A BinarySI value beyond `2^63 - 1` in magnitude is capped to `2^63 - 1` (upstream caps
//!   there too, e.g. `"9Ei"`); decimal values are not capped.
//! * A BinarySI value strictly between -1 and 1 (and not zero) switches to DecimalSI, as
//!   upstream does (`"0.000000000001Ki"` is `2n`, DecimalSI).
//!
//! Limits of this implementation (upstream keeps unbounded big decimals):
//!
//! * At most [`Quantity::MAX_SIGNIFICANT_DIGITS`] (36) significant decimal digits are kept;
//!   a value needing more is rounded away from zero to 36 significant digits. 36 rather
//!   than 38 so that the canonical mantissa, which may carry two more zeros (exponent made a
//!   multiple of 3), always fits [`Quantity::canonical_parts`]'s `i128`.
//! * The value's decimal exponent (after removing trailing zeros from the mantissa) must fit
//!   an `i32`, and so must an `e`/`E` exponent: `[-2^31 + 1, 2^31 - 1]`, like upstream's
//!   `interpret`. Otherwise [`QuantityError::ExponentOutOfRange`].
//! * The number part must contain at least one digit (the documented grammar). Upstream's
//!   scanner lets digit-less numbers such as `"e3"`, `"."`, `"+"` or `"Ki"` through as zero;
//!   this parser rejects them with [`QuantityError::Syntax`].
//!
//! # Text form ([`fmt::Display`])
//!
//! Upstream `Quantity.String()` of a freshly computed value (`CanonicalizeBytes`). Upstream
//! additionally caches the *input* text when it already looks canonical, so its `String()`
//! of a parsed `"+1"`, `"001"`, `"1E3"` or `"1.100"` returns that text verbatim; this type
//! keeps no text and always prints the canonical form (`"1"`, `"1"`, `"1e3"`, `"1100m"`).
//! The value is the same either way.

use core::cmp::Ordering;
use core::fmt;
use core::hash::{Hash, Hasher};
use core::str::FromStr;

use crate::tuning::FAST_FORMS;

/// Serialization format of a quantity (which suffix family it is written with).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Format {
    /// `e`/`E` exponent notation, e.g. `12e6`.
    DecimalExponent,
    /// Binary (IEC) suffixes `Ki Mi Gi Ti Pi Ei`, e.g. `12Mi` (12 × 2²⁰).
    BinarySI,
    /// Decimal SI suffixes `n u m "" k M G T P E`, e.g. `12M` (12 × 10⁶).
    DecimalSI,
}

impl Format {
    /// Upstream's name of the format (`"DecimalExponent"`, `"BinarySI"`, `"DecimalSI"`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Format::DecimalExponent => "DecimalExponent",
            Format::BinarySI => "BinarySI",
            Format::DecimalSI => "DecimalSI",
        }
    }
}

/// Why a quantity string was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum QuantityError {
    /// The string is empty (or only blanks). Displays Kubernetes' `ErrFormatWrong` text.
    Empty,
    /// The string is not `[+-]<number><suffix>` with at least one digit, e.g. `"1.2.3"`,
    /// `"1Kb"`, `"e3"`. Displays Kubernetes' `ErrFormatWrong` text.
    Syntax,
    /// The suffix is well formed but unknown, e.g. `"1i"`, `"0.1mi"`, `"1e"`, `"-3.01e-"`.
    /// Displays Kubernetes' `ErrSuffix` text.
    Suffix,
    /// An `e`/`E` exponent beyond `±(2^31 - 1)` (upstream reports these as a suffix error), or
    /// a value whose decimal exponent does not fit an `i32`.
    ExponentOutOfRange,
}

impl fmt::Display for QuantityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            QuantityError::Empty | QuantityError::Syntax => {
                "quantities must match the regular expression \
                 '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
            }
            QuantityError::Suffix => "unable to parse quantity's suffix",
            QuantityError::ExponentOutOfRange => {
                "unable to parse quantity's suffix: the decimal exponent must fit in a 32-bit \
                 signed integer"
            }
        })
    }
}

impl core::error::Error for QuantityError {}

/// An exact Kubernetes quantity: value = mantissa × 10^exponent.
///
/// The representation is normalised (no trailing zeros in the mantissa; zero is `0 × 10^0`),
/// so equality, ordering and hashing are by value and ignore the [`Format`], like upstream's
/// `Quantity.Cmp` / `Equal`.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Quantity {
    mantissa: i128,
    exponent: i32,
    format: Format,
}

/// The exponent of nano, the finest precision a parsed quantity keeps.
/// `10^k` for `k` in `0..=38`: a table lookup instead of `checked_pow`'s loop, because
/// `milli_value` runs for every container of every pod in each evaluation. Built at compile
/// time, where an out-of-range index or overflow is a build error, not a run-time panic.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
const POW10: [u128; 39] = {
    let mut table = [1u128; 39];
    let mut k = 1;
    while k < 39 {
        table[k] = table[k - 1] * 10;
        k += 1;
    }
    table
};

/// `10^k`, or `None` beyond `u128`.
fn pow10(k: u32) -> Option<u128> {
    POW10.get(usize::try_from(k).ok()?).copied()
}

/// `m × 10^k` for `m <= 2^127`, or [`SATURATED`] beyond `u128`: what `pow10(k)` and
/// `checked_mul` give, by 10^9 at a time (a 32-bit factor: a 128-bit multiplication is
/// expanded inline, about 1 KB of code, on 32-bit targets).
fn mul_pow10(m: u128, k: u32) -> u128 {
    if k >= 39 {
        return SATURATED;
    }
    let mut m = m;
    let mut left = k;
    while left > 0 {
        let step = left.min(9);
        match crate::arith::mul_small(m, crate::arith::wide::pow10_u32(step)) {
            Some(v) => m = v,
            None => return SATURATED,
        }
        left = left.saturating_sub(step);
    }
    m
}

/// A magnitude beyond `u128` (a sentinel rather than an `Option`, which costs code and
/// stack on 32-bit targets): `u128::MAX` is no product `m × 10^k` of an `m <= 2^127` (it
/// exceeds 2^127 and is no multiple of 10) nor a rounded-up quotient of one, and it
/// converts to no `i64` or `i128`, so it saturates like the overflow it stands for.
const SATURATED: u128 = u128::MAX;

const NANO_EXP: i64 = -9;
/// 10⁹.
const NANO: i128 = 1_000_000_000;
/// `(2^63 - 1) × 10^9`: the BinarySI cap (`maxAllowed`) in nano units.
const BINARY_CAP_NANOS: i128 = (i64::MAX as i128).saturating_mul(NANO);
/// Binary suffixes by power of 1024.
const BINARY_SUFFIXES: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
/// Characters upstream's scanner accepts at the start of a suffix.
const SUFFIX_CHARS: &[u8] = b"eEinumkKMGTP";

impl Quantity {
    /// Significant decimal digits kept by [`Quantity::parse`]; more are rounded away from zero.
    pub const MAX_SIGNIFICANT_DIGITS: u32 = 36;

    /// Parses a quantity with Kubernetes `ParseQuantity` semantics (see the module docs),
    /// after trimming surrounding ASCII blanks (space, `\t`, `\n`, `\v`, `\f`, `\r`).
    ///
    /// # Errors
    ///
    /// [`QuantityError`] when the text is empty, malformed, has an unknown suffix, or an
    /// exponent beyond `i32`.
    pub fn parse(s: &str) -> Result<Quantity, QuantityError> {
        let s = s.trim_matches(|c: char| matches!(c, ' ' | '\t' | '\n' | '\x0B' | '\x0C' | '\r'));
        if s.is_empty() {
            return Err(QuantityError::Empty);
        }
        let (number, suffix) = scan(s.as_bytes())?;
        let (scale, format) = interpret(suffix)?;
        let (magnitude, exponent, format) = match scale {
            Scale::Decimal(exp) => {
                let (m, e) = decimal_value(number.int_digits, number.frac_digits, exp)?;
                (m, e, format)
            }
            Scale::Binary(shift) => binary_value(number.int_digits, number.frac_digits, shift)?,
        };
        let mantissa = if number.negative {
            magnitude.wrapping_neg()
        } else {
            magnitude
        };
        Ok(Quantity {
            mantissa,
            exponent,
            format,
        })
    }

    /// `milli / 1000` in DecimalSI, like `resource.NewMilliQuantity(milli, DecimalSI)`.
    pub const fn from_milli(milli: i64) -> Quantity {
        Quantity::from_scaled(milli, -3, Format::DecimalSI)
    }

    /// `units` in `format`, like `resource.NewQuantity(units, format)`.
    pub const fn from_int(units: i64, format: Format) -> Quantity {
        Quantity::from_scaled(units, 0, format)
    }

    /// The exact quantity `mantissa × 10^exponent` in `format`, normalised (trailing zeros of
    /// the mantissa move into the exponent; zero is `0 × 10^0`). With [`Quantity::parts`] it
    /// round-trips any quantity exactly, e.g. to store quantities in a binary form and read
    /// them back on a target without the text parser.
    pub const fn from_parts(mantissa: i128, exponent: i32, format: Format) -> Quantity {
        let mut mantissa = mantissa;
        let mut exponent = exponent;
        if mantissa == 0 {
            exponent = 0;
        } else {
            while mantissa.wrapping_rem(10) == 0 && exponent < i32::MAX {
                mantissa = mantissa.wrapping_div(10);
                exponent = exponent.saturating_add(1);
            }
        }
        Quantity {
            mantissa,
            exponent,
            format,
        }
    }

    /// `(mantissa, exponent, format)`: the exact value `mantissa × 10^exponent` (normalised)
    /// and the format, as [`Quantity::from_parts`] takes them.
    pub const fn parts(&self) -> (i128, i32, Format) {
        (self.mantissa, self.exponent, self.format)
    }

    /// `value × 10^exponent` in `format`, normalised.
    const fn from_scaled(value: i64, exponent: i32, format: Format) -> Quantity {
        // Normalised in 64 bits: a 128-bit division by 10 is a large inline expansion on
        // 32-bit targets, and firmware builds quantities at run time.
        let mut mantissa = value;
        let mut exponent = exponent;
        if mantissa == 0 {
            exponent = 0;
        } else {
            while mantissa.wrapping_rem(10) == 0 {
                mantissa = mantissa.wrapping_div(10);
                exponent = exponent.saturating_add(1);
            }
        }
        Quantity {
            mantissa: mantissa as i128,
            exponent,
            format,
        }
    }

    /// `Quantity.MilliValue()`: `ceil(value × 1000)` for positive values; negative values
    /// with a fractional milli part round away from zero (`-0.0005` gives -1). Saturates at
    /// `i64::MIN` / `i64::MAX`.
    pub fn milli_value(&self) -> i64 {
        // Hosts, where it runs for every container of every pod, first try the common case.
        // Small targets take the general path only, whose code is linked anyway (the fast
        // form would add about 200 bytes on a Cortex-M0); the tests check both.
        if FAST_FORMS {
            if let Some(v) = self.whole_milli() {
                return v;
            }
        }
        self.scaled_value(-3)
    }

    /// [`Quantity::milli_value`]'s fast form for the common case, a whole number of
    /// milli-units that fits i64 (`small_pow10` is 0 beyond 10^19, which no nonzero i64 times
    /// fits anyway); `None` otherwise.
    fn whole_milli(&self) -> Option<i64> {
        let m = i64::try_from(self.mantissa).ok()?;
        let shift = u32::try_from(self.exponent.saturating_add(3)).ok()?;
        let power = crate::arith::wide::small_pow10(shift);
        let (hi, lo) = crate::arith::mul_wide(m.unsigned_abs(), power);
        if hi != 0 || power == 0 {
            return None;
        }
        if m < 0 {
            0_i64.checked_sub_unsigned(lo)
        } else {
            i64::try_from(lo).ok()
        }
    }

    /// `Quantity.Value()`: the value in units, rounded like [`Quantity::milli_value`]
    /// (away from zero), saturating.
    pub fn value(&self) -> i64 {
        self.scaled_value(0)
    }

    /// `Quantity.ScaledValue(scale)`: `value / 10^scale` rounded away from zero, saturating
    /// at the `i64` range. `scaled_value(-3)` is [`Quantity::milli_value`].
    pub fn scaled_value(&self, scale: i32) -> i64 {
        crate::arith::signed(self.mantissa < 0, self.scaled_magnitude(scale))
    }

    /// The value in nano units, `value × 10^9` (exact: parsed quantities are rounded to nano),
    /// saturating at the `i128` range.
    pub fn nano_value(&self) -> i128 {
        let magnitude = self.scaled_magnitude(-9);
        // Clamped to the range of the sign (2^127 negates to i128::MIN).
        if self.mantissa < 0 {
            (magnitude.min(1 << 127) as i128).wrapping_neg()
        } else {
            magnitude.min(i128::MAX as u128) as i128
        }
    }

    /// `ceil(|value| / 10^scale)`, or [`SATURATED`] beyond `u128`.
    pub(crate) fn scaled_magnitude(&self, scale: i32) -> u128 {
        let magnitude = self.mantissa.unsigned_abs();
        if magnitude == 0 {
            return 0;
        }
        // Saturated at the i32 range, the shift gives the same result: an overflow upward
        // (beyond 10^38), a quotient rounded up to 1 downward.
        let shift = self.exponent.saturating_sub(scale);
        if shift >= 0 {
            mul_pow10(magnitude, shift.unsigned_abs())
        } else {
            // Divide by 10^9 at a time (a divisor of 32 bits: no 128-bit division), noting
            // whether anything was cut off; a zero quotient ends it early.
            let mut quotient = magnitude;
            let mut exact = true;
            let mut left = shift.unsigned_abs();
            while left > 0 && quotient != 0 {
                let step = left.min(9);
                let power = crate::arith::wide::pow10_u32(step);
                let (q, r) = crate::arith::div_small(quotient, power);
                exact &= r == 0;
                quotient = q;
                left = left.wrapping_sub(step);
            }
            // quotient <= 2^127: no overflow.
            quotient.wrapping_add(u128::from(!exact))
        }
    }

    /// -1, 0 or 1 by the sign of the value.
    pub const fn signum(&self) -> i8 {
        if self.mantissa > 0 {
            1
        } else if self.mantissa < 0 {
            -1
        } else {
            0
        }
    }

    /// Whether the value is zero.
    pub const fn is_zero(&self) -> bool {
        self.mantissa == 0
    }

    /// The format the quantity was parsed or built with.
    pub const fn format(&self) -> Format {
        self.format
    }

    /// `(mantissa, exponent)` of the quantity's canonical string form as Kubernetes would
    /// serialize it and parse it back (the `int64Amount{value, scale}` that
    /// `AsApproximateFloat64` then reads):
    ///
    /// * DecimalSI / DecimalExponent (and BinarySI shown as DecimalSI): trailing zeros moved
    ///   into the exponent, then the exponent lowered to a multiple of 3, e.g. `"0.35"` →
    ///   `(350, -3)`, `"1000"` → `(1, 3)`, `"10"` → `(10, 0)`, `"0.0001"` → `(100, -6)`.
    /// * BinarySI with `|value| < 1024` or a fractional part is shown as DecimalSI (above).
    /// * Other BinarySI values keep a binary suffix and parse back to the integer value with
    ///   exponent 0, e.g. `"2Ki"` → `(2048, 0)`.
    /// * Zero is `(0, 0)`.
    ///
    /// Upstream parses a canonical string of more than 18 digits, and any binary string it
    /// cannot take through its int64 fast path (`Pi`, `Ei`, ...), into an `inf.Dec` at nano
    /// scale, i.e. `(value × 10^9, -9)`; this function returns the form above instead.
    pub fn canonical_parts(&self) -> (i128, i32) {
        let (magnitude, exponent) = self.canonical_magnitude();
        // The magnitude is within the i128 range of the mantissa's sign.
        let mantissa = if self.mantissa < 0 {
            0i128.wrapping_sub_unsigned(magnitude)
        } else {
            magnitude as i128
        };
        (mantissa, exponent)
    }

    /// [`Quantity::canonical_parts`] with the mantissa's magnitude, saturated at the `i128`
    /// range of its sign (`2^127 - 1` or `2^127`). Worked on magnitudes: each 128-bit
    /// negation or sign test is much code on 32-bit targets, and tolerances need no sign.
    pub(crate) fn canonical_magnitude(&self) -> (u128, i32) {
        let magnitude = self.mantissa.unsigned_abs();
        if magnitude == 0 {
            return (0, 0);
        }
        let limit = i128::MAX
            .unsigned_abs()
            .wrapping_add(u128::from(self.mantissa < 0));
        // What `canonical` computes, without building the text form: a BinarySI integer of at
        // least 1024 in magnitude that `Ki`..`Ei` can show (fewer than 7 factors of 1024, i.e.
        // fewer than 70 trailing zero bits: a nonzero bit among the low 70) parses back to its
        // integer value.
        if self.format == Format::BinarySI {
            if let Ok(e) = u32::try_from(self.exponent) {
                let value = mul_pow10(magnitude, e);
                if value <= limit && value >= 1024 && value & ((1 << 70) - 1) != 0 {
                    return (value, 0);
                }
            }
        }
        // Decimal: the exponent lowered to a multiple of 3 (saturating at i32::MIN, the
        // only exponent that cannot be lowered). `rem_euclid(3)` without a division (none is
        // linked for it on a Cortex-M0): 4 is 1 mod 3, so base-4 digit sums keep the remainder,
        // and `e + 2^31 + 1` is `e` mod 3.
        let fold = |mut z: u32| {
            while z > 3 {
                z = (z >> 2).wrapping_add(z & 3);
            }
            z
        };
        let zeros = fold(fold(self.exponent.cast_unsigned() ^ 1 << 31).wrapping_add(1)) % 3;
        let m = mul_pow10(magnitude, zeros).min(limit);
        (m, self.exponent.saturating_sub_unsigned(zeros))
    }

    /// Upstream `CanonicalizeBytes`, as numbers.
    fn canonical(&self) -> Canonical {
        if self.mantissa == 0 {
            return Canonical::Zero;
        }
        match self.format {
            Format::BinarySI => self.binary_canonical(),
            Format::DecimalSI => self.decimal_canonical(Notation::Si),
            Format::DecimalExponent => self.decimal_canonical(Notation::Exponent),
        }
    }

    fn binary_canonical(&self) -> Canonical {
        // Non-integers (negative exponent once normalised) are shown as DecimalSI.
        let Ok(exp) = u32::try_from(self.exponent) else {
            return self.decimal_canonical(Notation::Si);
        };
        let Some(value) = pow10(exp)
            .and_then(|p| i128::try_from(p).ok())
            .and_then(|p| self.mantissa.checked_mul(p))
        else {
            // Far beyond any suffix (unreachable: BinarySI values stay within ±2^63).
            return self.decimal_canonical(Notation::Exponent);
        };
        if value.unsigned_abs() < 1024 {
            return self.decimal_canonical(Notation::Si);
        }
        let mut mantissa = value;
        let mut power = 0usize;
        while mantissa.wrapping_rem(1024) == 0 {
            mantissa = mantissa.wrapping_div(1024);
            power = power.saturating_add(1);
        }
        if power < BINARY_SUFFIXES.len() {
            Canonical::Binary { mantissa, power }
        } else {
            // Past `Ei`: exact decimal text instead of dropping the magnitude.
            self.decimal_canonical(Notation::Exponent)
        }
    }

    fn decimal_canonical(&self, notation: Notation) -> Canonical {
        let exponent = i64::from(self.exponent);
        let zeros = exponent.rem_euclid(3);
        Canonical::Decimal {
            mantissa: self.mantissa,
            zeros: u32::try_from(zeros).unwrap_or(0),
            exponent: exponent.saturating_sub(zeros),
            notation,
        }
    }

    fn write_canonical<W: fmt::Write>(&self, out: &mut W) -> fmt::Result {
        match self.canonical() {
            Canonical::Zero => out.write_char('0'),
            Canonical::Decimal {
                mantissa,
                zeros,
                exponent,
                notation,
            } => {
                write!(out, "{mantissa}")?;
                for _ in 0..zeros {
                    out.write_char('0')?;
                }
                let si = match notation {
                    Notation::Si => decimal_si_suffix(exponent),
                    Notation::Exponent => None,
                };
                match si {
                    Some(suffix) => out.write_str(suffix),
                    None if exponent == 0 => Ok(()),
                    // DecimalExponent, or DecimalSI beyond `n`..`E`.
                    None => write!(out, "e{exponent}"),
                }
            }
            Canonical::Binary { mantissa, power } => {
                write!(out, "{mantissa}")?;
                out.write_str(BINARY_SUFFIXES.get(power).copied().unwrap_or(""))
            }
        }
    }

    /// Magnitude comparison of two non-zero values.
    fn cmp_magnitude(&self, other: &Quantity) -> Ordering {
        let (ma, mb) = (self.mantissa.unsigned_abs(), other.mantissa.unsigned_abs());
        let top = |m: u128, e: i32| {
            i64::from(m.checked_ilog10().unwrap_or(0)).saturating_add(i64::from(e))
        };
        match top(ma, self.exponent).cmp(&top(mb, other.exponent)) {
            Ordering::Equal => {}
            unequal => return unequal,
        }
        // Same leading-digit position: align on the smaller exponent.
        let shift = i64::from(self.exponent).saturating_sub(i64::from(other.exponent));
        let scale = |m: u128, by: i64| {
            u32::try_from(by)
                .ok()
                .and_then(pow10)
                .and_then(|p| m.checked_mul(p))
        };
        if shift >= 0 {
            scale(ma, shift).map_or(Ordering::Greater, |a| a.cmp(&mb))
        } else {
            scale(mb, shift.saturating_neg()).map_or(Ordering::Less, |b| ma.cmp(&b))
        }
    }
}

/// Upstream `resource.NewMilliQuantity(milli, format)`: `milli / 1000` in `format`.
///
/// As upstream prints it: `build_quantity_milli(1500, Format::DecimalSI)` is `"1500m"`,
/// `build_quantity_milli(524288000000, Format::BinarySI)` is `"500Mi"`, and BinarySI values
/// below 1024 in magnitude or with a fractional part print as DecimalSI (`"1"`, `"1500m"`).
pub const fn build_quantity_milli(milli: i64, format: Format) -> Quantity {
    Quantity::from_scaled(milli, -3, format)
}

/// How a decimal canonical form writes its exponent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Notation {
    /// SI letters (falling back to `e<exp>` outside `n`..`E`).
    Si,
    /// `e<exp>`, nothing for 0.
    Exponent,
}

/// The canonical form `CanonicalizeBytes` produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Canonical {
    /// `"0"`.
    Zero,
    /// `mantissa` followed by `zeros` zeros, times `10^exponent` (a multiple of 3).
    Decimal {
        mantissa: i128,
        zeros: u32,
        exponent: i64,
        notation: Notation,
    },
    /// `mantissa × 1024^power`.
    Binary { mantissa: i128, power: usize },
}

fn decimal_si_suffix(exponent: i64) -> Option<&'static str> {
    Some(match exponent {
        -9 => "n",
        -6 => "u",
        -3 => "m",
        0 => "",
        3 => "k",
        6 => "M",
        9 => "G",
        12 => "T",
        15 => "P",
        18 => "E",
        _ => return None,
    })
}

impl fmt::Display for Quantity {
    /// Kubernetes' canonical `Quantity.String()`: `"1500m"`, `"2Gi"`, `"1e3"`, `"-1k"`, `"0"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = TextBuf::new();
        self.write_canonical(&mut buf)?;
        f.pad(buf.as_str())
    }
}

impl FromStr for Quantity {
    type Err = QuantityError;

    fn from_str(s: &str) -> Result<Quantity, QuantityError> {
        Quantity::parse(s)
    }
}

impl PartialEq for Quantity {
    /// Equal values, whatever their formats (upstream `Quantity.Equal`).
    fn eq(&self, other: &Quantity) -> bool {
        self.mantissa == other.mantissa && self.exponent == other.exponent
    }
}

impl Eq for Quantity {}

impl Hash for Quantity {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.mantissa.hash(state);
        self.exponent.hash(state);
    }
}

impl PartialOrd for Quantity {
    fn partial_cmp(&self, other: &Quantity) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Quantity {
    /// By value, whatever the formats (upstream `Quantity.Cmp`).
    fn cmp(&self, other: &Quantity) -> Ordering {
        let (sa, sb) = (self.signum(), other.signum());
        if sa != sb || sa == 0 {
            return sa.cmp(&sb);
        }
        let magnitude = self.cmp_magnitude(other);
        if sa < 0 {
            magnitude.reverse()
        } else {
            magnitude
        }
    }
}

/// A fixed buffer for the canonical text (at most sign, 38 digits and `e-2147483648`).
struct TextBuf {
    bytes: [u8; 64],
    len: usize,
}

impl TextBuf {
    const fn new() -> TextBuf {
        TextBuf {
            bytes: [0; 64],
            len: 0,
        }
    }

    fn as_str(&self) -> &str {
        self.bytes
            .get(..self.len)
            .and_then(|b| core::str::from_utf8(b).ok())
            .unwrap_or("")
    }
}

impl fmt::Write for TextBuf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len.checked_add(s.len()).ok_or(fmt::Error)?;
        let dst = self.bytes.get_mut(self.len..end).ok_or(fmt::Error)?;
        dst.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Parsing internals.

/// The number part of a quantity string.
struct Number<'a> {
    negative: bool,
    /// Integer digits without leading zeros.
    int_digits: &'a [u8],
    /// Digits after the `.`.
    frac_digits: &'a [u8],
}

/// What the suffix multiplies the number by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scale {
    /// `10^exp`.
    Decimal(i32),
    /// `2^shift`.
    Binary(u32),
}

fn split_while(s: &[u8], keep: impl Fn(u8) -> bool) -> (&[u8], &[u8]) {
    let n = s.iter().position(|&b| !keep(b)).unwrap_or(s.len());
    s.split_at_checked(n).unwrap_or((s, &[]))
}

fn split_sign(s: &[u8]) -> (bool, &[u8]) {
    match s.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, s),
    }
}

/// Upstream `parseQuantityString`: sign, digits, optional `.digits`, then a suffix of the
/// shape `[eEinumkKMGTP]*[-+]?[0-9]*`.
fn scan(s: &[u8]) -> Result<(Number<'_>, &[u8]), QuantityError> {
    let (negative, rest) = split_sign(s);
    let (zeros, rest) = split_while(rest, |b| b == b'0');
    let (int_digits, rest) = split_while(rest, |b| b.is_ascii_digit());
    let (frac_digits, suffix) = match rest.split_first() {
        Some((b'.', after)) => split_while(after, |b| b.is_ascii_digit()),
        _ => (&[][..], rest),
    };
    let (_, tail) = split_while(suffix, |b| SUFFIX_CHARS.contains(&b));
    let (_, tail) = split_sign(tail);
    if !tail.iter().all(u8::is_ascii_digit) {
        return Err(QuantityError::Syntax);
    }
    if zeros.is_empty() && int_digits.is_empty() && frac_digits.is_empty() {
        return Err(QuantityError::Syntax);
    }
    Ok((
        Number {
            negative,
            int_digits,
            frac_digits,
        },
        suffix,
    ))
}

/// Upstream `quantitySuffixer.interpret`.
fn interpret(suffix: &[u8]) -> Result<(Scale, Format), QuantityError> {
    let decimal = |exp| Ok((Scale::Decimal(exp), Format::DecimalSI));
    let binary = |shift| Ok((Scale::Binary(shift), Format::BinarySI));
    match suffix {
        b"" => decimal(0),
        b"n" => decimal(-9),
        b"u" => decimal(-6),
        b"m" => decimal(-3),
        b"k" => decimal(3),
        b"M" => decimal(6),
        b"G" => decimal(9),
        b"T" => decimal(12),
        b"P" => decimal(15),
        b"E" => decimal(18),
        b"Ki" => binary(10),
        b"Mi" => binary(20),
        b"Gi" => binary(30),
        b"Ti" => binary(40),
        b"Pi" => binary(50),
        b"Ei" => binary(60),
        [b'e' | b'E', rest @ ..] if !rest.is_empty() => Ok((
            Scale::Decimal(parse_exponent(rest)?),
            Format::DecimalExponent,
        )),
        _ => Err(QuantityError::Suffix),
    }
}

/// Go `strconv.ParseInt(s, 10, 64)` restricted to `±(2^31 - 1)`.
fn parse_exponent(s: &[u8]) -> Result<i32, QuantityError> {
    let (negative, digits) = split_sign(s);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(QuantityError::Suffix);
    }
    let limit = i32::MAX.unsigned_abs();
    let mut magnitude: u32 = 0;
    for &d in digits {
        magnitude = magnitude
            .checked_mul(10)
            .and_then(|m| m.checked_add(u32::from(d.wrapping_sub(b'0'))))
            .filter(|&m| m <= limit)
            .ok_or(QuantityError::ExponentOutOfRange)?;
    }
    let value = i32::try_from(magnitude).map_err(|_| QuantityError::ExponentOutOfRange)?;
    Ok(if negative {
        value.wrapping_neg()
    } else {
        value
    })
}

fn digit(b: u8) -> i128 {
    i128::from(b.wrapping_sub(b'0'))
}

/// `|digits| × 10^exp` rounded away from zero to nano and to
/// [`Quantity::MAX_SIGNIFICANT_DIGITS`] significant digits: normalised `(magnitude, exp)`.
fn decimal_value(
    int_digits: &[u8],
    frac_digits: &[u8],
    exp: i32,
) -> Result<(i128, i32), QuantityError> {
    let significant = || {
        int_digits
            .iter()
            .chain(frac_digits)
            .copied()
            .skip_while(|&b| b == b'0')
    };
    let count = significant().count();
    if count == 0 {
        return Ok((0, 0));
    }
    let count = i64::try_from(count).unwrap_or(i64::MAX);
    let frac_len = i64::try_from(frac_digits.len()).unwrap_or(i64::MAX);
    // Decimal positions (powers of ten) of the last and the first significant digit.
    let last = i64::from(exp).saturating_sub(frac_len);
    let top = last.saturating_add(count).saturating_sub(1);
    let grid = NANO_EXP.max(
        top.saturating_sub(i64::from(Quantity::MAX_SIGNIFICANT_DIGITS))
            .saturating_add(1),
    );
    let fold = |acc: i128, d: u8| acc.saturating_mul(10).saturating_add(digit(d));
    if last >= grid {
        // At most MAX_SIGNIFICANT_DIGITS digits, all at or above the grid: exact.
        let mantissa = significant().fold(0i128, fold);
        return normalize(mantissa, last);
    }
    // Keep the digits down to the grid, round the rest up (away from zero).
    let keep = usize::try_from(top.saturating_sub(grid).saturating_add(1)).unwrap_or(0);
    let kept = significant().take(keep).fold(0i128, fold);
    let dropped_nonzero = significant().skip(keep).any(|b| b != b'0');
    let mantissa = if dropped_nonzero {
        kept.saturating_add(1)
    } else {
        kept
    };
    normalize(mantissa, grid)
}

/// `|int.frac| × 2^shift` rounded up to nano, capped at `2^63 - 1` like upstream's BinarySI
/// `maxAllowed`; values strictly between 0 and 1 switch to DecimalSI.
fn binary_value(
    int_digits: &[u8],
    frac_digits: &[u8],
    shift: u32,
) -> Result<(i128, i32, Format), QuantityError> {
    let Some(nanos) = binary_nanos(int_digits, frac_digits, shift) else {
        return Ok((i128::from(i64::MAX), 0, Format::BinarySI));
    };
    let format = if nanos > 0 && nanos < NANO {
        Format::DecimalSI
    } else {
        Format::BinarySI
    };
    let (m, e) = normalize(nanos, NANO_EXP)?;
    Ok((m, e, format))
}

/// `ceil(int.frac × 2^shift × 10^9)`, or `None` when the value exceeds `2^63 - 1`.
fn binary_nanos(int_digits: &[u8], frac_digits: &[u8], shift: u32) -> Option<i128> {
    let unit = 1i128.checked_shl(shift)?.checked_mul(NANO)?;
    if int_digits.len() > 19 {
        return None;
    }
    // < 10^19 < 2^64, so `<< shift` (shift <= 60) fits i128.
    let int = int_digits.iter().fold(0i128, |acc, &d| {
        acc.saturating_mul(10).saturating_add(digit(d))
    });
    if int.checked_shl(shift)? > i128::from(i64::MAX) {
        return None;
    }
    // floor(0.frac × unit) by Horner from the last digit, and whether it was inexact.
    let mut frac: i128 = 0;
    let mut inexact = false;
    for &d in frac_digits.iter().rev() {
        let t = digit(d).saturating_mul(unit).saturating_add(frac);
        frac = t.wrapping_div(10);
        inexact |= t.wrapping_rem(10) != 0;
    }
    let total = int
        .saturating_mul(unit)
        .saturating_add(frac)
        .saturating_add(i128::from(inexact));
    (total <= BINARY_CAP_NANOS).then_some(total)
}

/// Moves trailing zeros into the exponent; the exponent must then fit `i32`.
fn normalize(mut mantissa: i128, mut exp: i64) -> Result<(i128, i32), QuantityError> {
    if mantissa == 0 {
        return Ok((0, 0));
    }
    while mantissa.wrapping_rem(10) == 0 {
        mantissa = mantissa.wrapping_div(10);
        exp = exp.saturating_add(1);
    }
    let exp = i32::try_from(exp).map_err(|_| QuantityError::ExponentOutOfRange)?;
    Ok((mantissa, exp))
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::string::{String, ToString};

    /// `canonical_parts` as it was written before, on top of `canonical`.
    fn canonical_parts_reference(q: &Quantity) -> (i128, i32) {
        match q.canonical() {
            Canonical::Zero => (0, 0),
            Canonical::Decimal {
                mantissa,
                zeros,
                exponent,
                ..
            } => {
                let m = pow10(zeros)
                    .and_then(|p| i128::try_from(p).ok())
                    .and_then(|p| mantissa.checked_mul(p))
                    .unwrap_or(if mantissa < 0 { i128::MIN } else { i128::MAX });
                let e = i32::try_from(exponent).unwrap_or(if exponent < 0 {
                    i32::MIN
                } else {
                    i32::MAX
                });
                (m, e)
            }
            Canonical::Binary { mantissa, power } => {
                let value = u32::try_from(power)
                    .ok()
                    .and_then(|p| p.checked_mul(10))
                    .and_then(|bits| 1i128.checked_shl(bits))
                    .and_then(|unit| mantissa.checked_mul(unit))
                    .unwrap_or(if mantissa < 0 { i128::MIN } else { i128::MAX });
                (value, 0)
            }
        }
    }

    #[test]
    #[allow(clippy::arithmetic_side_effects, clippy::indexing_slicing)]
    fn canonical_parts_match_the_canonical_form() {
        let mut next = crate::arith::test_rng(0x9E37_79B9_7F4A_7C15);
        let formats = [Format::BinarySI, Format::DecimalSI, Format::DecimalExponent];
        // Miri interprets each operation thousands of times slower: fewer random cases there.
        for _ in 0..if cfg!(miri) { 100 } else { 100_000 } {
            let bits = next() % 128;
            let m = ((u128::from(next()) << 64 | u128::from(next())) >> bits) as i128;
            let m = if next().is_multiple_of(2) {
                m
            } else {
                m.wrapping_neg()
            };
            let m = if next().is_multiple_of(3) {
                m % 100_000
            } else {
                m
            };
            let e = match next() % 4 {
                0 => (next() % 80) as i32 - 40,
                1 => (next() % 8) as i32 - 4,
                2 => i32::MAX - (next() % 4) as i32,
                _ => i32::MIN + (next() % 4) as i32,
            };
            let f = formats[(next() % 3) as usize];
            let quantity = Quantity::from_parts(m, e, f);
            assert_eq!(
                quantity.canonical_parts(),
                canonical_parts_reference(&quantity),
                "{m}e{e} {f:?}"
            );
        }
        for text in [
            "2Ki", "1023", "1024", "0.5Ki", "8Ei", "9Ei", "1Pi", "1e3", "-4Ki", "0",
        ] {
            let quantity = q(text);
            assert_eq!(
                quantity.canonical_parts(),
                canonical_parts_reference(&quantity),
                "{text}"
            );
        }
    }

    fn q(s: &str) -> Quantity {
        Quantity::parse(s).unwrap_or(Quantity::from_int(i64::MIN, Format::DecimalExponent))
    }

    #[test]
    fn parts_round_trip_exactly() {
        for text in [
            "250m",
            "2Ki",
            "1e3",
            "0",
            "-0.0005",
            "123456789012345678901234567890",
            "9Ei",
        ] {
            let original = q(text);
            let (m, e, f) = original.parts();
            let copy = Quantity::from_parts(m, e, f);
            assert_eq!(copy.parts(), original.parts(), "{text}");
            assert_eq!(copy.to_string(), original.to_string(), "{text}");
        }
        // Trailing zeros are normalised away.
        assert_eq!(
            Quantity::from_parts(1500, -3, Format::DecimalSI).parts(),
            (15, -1, Format::DecimalSI)
        );
        assert_eq!(
            Quantity::from_parts(0, 7, Format::BinarySI).parts(),
            (0, 0, Format::BinarySI)
        );
    }

    fn text(s: &str) -> String {
        q(s).to_string()
    }

    #[test]
    fn parse_and_print() {
        assert_eq!(text("1500m"), "1500m");
        assert_eq!(text("1.5"), "1500m");
        assert_eq!(text("2Gi"), "2Gi");
        assert_eq!(text("1024Mi"), "1Gi");
        assert_eq!(text("1e3"), "1e3");
        assert_eq!(text("12e+2"), "1200");
        assert_eq!(text("-0.0005"), "-500u");
        assert_eq!(text("0.1n"), "1n");
        assert_eq!(text(" 1 "), "1");
        assert_eq!(text("0"), "0");
        assert_eq!(text("-0Ki"), "0");
    }

    #[test]
    fn internal_representation_is_normalised() {
        let a = q("1000m");
        assert_eq!((a.mantissa, a.exponent), (1, 0));
        let b = q("0.0120");
        assert_eq!((b.mantissa, b.exponent), (12, -3));
        let z = q("0.000e5");
        assert_eq!((z.mantissa, z.exponent), (0, 0));
        assert_eq!(z.format(), Format::DecimalExponent);
    }

    #[test]
    fn rounding_to_nano_and_digits() {
        let a = q("0.0000000001");
        assert_eq!((a.mantissa, a.exponent), (1, -9));
        let b = q("-3.001n");
        assert_eq!((b.mantissa, b.exponent), (-4, -9));
        // 40 significant digits: rounded away from zero to 36.
        let c = q("1234567890123456789012345678901234567891");
        assert_eq!(c.mantissa, 123_456_789_012_345_678_901_234_567_890_123_457);
        assert_eq!(c.exponent, 4);
        let d = q("9999999999999999999999999999999999999999");
        assert_eq!((d.mantissa, d.exponent), (1, 40));
    }

    #[test]
    fn binary_cap_and_fraction() {
        let a = q("9Ei");
        assert_eq!((a.mantissa, a.exponent), (i128::from(i64::MAX), 0));
        let b = q("9.5000000001Gi");
        assert_eq!(b.nano_value(), 10_200_547_328_107_374_183);
        assert_eq!(b.format(), Format::BinarySI);
        let c = q("0.000000000001Ki");
        assert_eq!((c.mantissa, c.exponent), (2, -9));
        assert_eq!(c.format(), Format::DecimalSI);
    }

    #[test]
    fn errors() {
        assert_eq!(Quantity::parse(""), Err(QuantityError::Empty));
        assert_eq!(Quantity::parse("  "), Err(QuantityError::Empty));
        assert_eq!(Quantity::parse("1.2.3"), Err(QuantityError::Syntax));
        assert_eq!(Quantity::parse("1Kb"), Err(QuantityError::Syntax));
        assert_eq!(Quantity::parse("e3"), Err(QuantityError::Syntax));
        assert_eq!(Quantity::parse("1i"), Err(QuantityError::Suffix));
        assert_eq!(
            Quantity::parse("1e2147483648"),
            Err(QuantityError::ExponentOutOfRange)
        );
        assert_eq!(
            Quantity::parse("10e2147483647"),
            Err(QuantityError::ExponentOutOfRange)
        );
        assert!(Quantity::parse("1e2147483647").is_ok());
        assert_eq!(
            QuantityError::Syntax.to_string(),
            "quantities must match the regular expression \
             '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        );
    }

    #[test]
    fn display_pads() {
        assert_eq!(std::format!("[{:>6}]", q("1.5")), "[ 1500m]");
        assert_eq!(std::format!("[{:<5}]", q("2Ki")), "[2Ki  ]");
    }

    #[test]
    fn ordering() {
        assert!(q("1Ki") == q("1024"));
        assert!(q("999m") < q("1"));
        assert!(q("-1") < q("-999m"));
        assert!(q("-1") < q("0"));
        assert!(q("1e40") > q("9e39"));
        assert!(q("10") > q("9.99"));
        assert_eq!(q("1.0").cmp(&q("1000m")), Ordering::Equal);
    }

    #[test]
    fn huge_exponent_readings_saturate() {
        let big = q("1e2147483647");
        assert_eq!(big.milli_value(), i64::MAX);
        assert_eq!(big.nano_value(), i128::MAX);
        assert_eq!(big.to_string(), "10e2147483646");
        assert_eq!(big.canonical_parts(), (10, 2_147_483_646));
        let tiny = q("-1e-2147483647");
        assert_eq!(tiny.value(), -1);
        assert_eq!(tiny.nano_value(), -1);
    }

    /// `scaled_magnitude` (10^9 at a time) against native 128-bit division by `10^k`.
    #[test]
    #[allow(clippy::arithmetic_side_effects)]
    fn scaled_readings_match_native_division() {
        let reference = |q: &Quantity, scale: i32| -> Option<u128> {
            let m = q.mantissa.unsigned_abs();
            if m == 0 {
                return Some(0);
            }
            let shift = i64::from(q.exponent) - i64::from(scale);
            if shift >= 0 {
                return pow10(u32::try_from(shift).ok()?).and_then(|p| m.checked_mul(p));
            }
            Some(match pow10(u32::try_from(-shift).ok()?) {
                Some(p) => m / p + u128::from(!m.is_multiple_of(p)),
                None => 1,
            })
        };
        let mut next = crate::arith::test_rng(0x2545_F491_4F6C_DD1D);
        for _ in 0..if cfg!(miri) { 50 } else { 50_000 } {
            let wide = (i128::from(next() as i64) << 64 | i128::from(next())) >> (next() % 128);
            let mantissa = wide % 10i128.pow(36);
            let exponent = match next() % 8 {
                0 => i32::MAX - (next() % 50) as i32,
                1 => i32::MIN + (next() % 50) as i32,
                _ => (next() % 100) as i32 - 60,
            };
            let q = Quantity::from_parts(mantissa, exponent, Format::DecimalSI);
            for scale in [-9, -6, -3, 0, 3, 40, -45, i32::MIN, i32::MAX] {
                assert_eq!(
                    q.scaled_magnitude(scale),
                    reference(&q, scale).unwrap_or(SATURATED),
                    "{q:?} {scale}"
                );
            }
            let milli = reference(&q, -3)
                .and_then(|m| i64::try_from(m).ok())
                .map(|m| if mantissa < 0 { -m } else { m });
            let want = milli.unwrap_or(if mantissa < 0 { i64::MIN } else { i64::MAX });
            assert_eq!(q.milli_value(), want, "{q:?}");
            // The general path, which 32-bit targets take for every milli value.
            assert_eq!(q.scaled_value(-3), want, "{q:?}");
            let nano = reference(&q, -9)
                .and_then(|m| i128::try_from(m).ok())
                .map(|m| if mantissa < 0 { -m } else { m });
            let want = nano.unwrap_or(if mantissa < 0 { i128::MIN } else { i128::MAX });
            assert_eq!(q.nano_value(), want, "{q:?}");
        }
    }
}
