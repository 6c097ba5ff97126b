//! Tolerances as numbers: an exact decimal with the float64 upstream reads from it
//! (docs/spec/arithmetic.md#tolerance-values). Reading one from an API quantity is
//! `Tolerance::from_quantity`, in `crate::tolerance`, above the quantity layer.

use super::binary64::F64;

/// A non-negative tolerance, kept both as an exact decimal `mantissa × 10^exp10` (for the
/// exact mode) and as the float64 upstream computes from it (for the kubernetes mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Tolerance {
    pub(crate) mantissa: u64,
    pub(crate) exp10: i32,
    pub(crate) binary64: F64,
}

impl Tolerance {
    /// The controller default, 0.1.
    pub const DEFAULT: Tolerance = Tolerance {
        mantissa: 1,
        exp10: -1,
        binary64: F64(0x3FB9_9999_9999_999A),
    };

    /// A controller flag value `mantissa × 10^exp10`; its float64 is the nearest binary64, as
    /// Go's flag parsing gives. `None` when the value is beyond float64's range.
    pub fn from_decimal(mantissa: u64, exp10: i32) -> Option<Tolerance> {
        let binary64 = F64::from_decimal(false, mantissa, exp10);
        if binary64.is_infinite() {
            return None;
        }
        Some(Tolerance {
            mantissa,
            exp10,
            binary64,
        })
    }

    /// The exact decimal `(mantissa, exp10)`.
    pub const fn decimal(&self) -> (u64, i32) {
        (self.mantissa, self.exp10)
    }

    /// The float64 upstream uses.
    pub const fn binary64(&self) -> F64 {
        self.binary64
    }
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance::DEFAULT
    }
}

/// The tolerance pair used by the calculators (docs/spec/calculator.md#tolerances).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Tolerances {
    /// Scale-down tolerance: no change while `ratio >= 1 - down`.
    pub down: Tolerance,
    /// Scale-up tolerance: no change while `ratio <= 1 + up`.
    pub up: Tolerance,
}
