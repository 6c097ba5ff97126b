//! Tolerances: a decimal value with its binary64 reading (spec section 11).

use crate::arith::binary64::F64;
use crate::quantity::Quantity;

/// A non-negative tolerance, kept both as an exact decimal `mantissa × 10^exp10` (for the
/// exact mode) and as the float64 upstream computes from it (for the kubernetes mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Tolerance {
    mantissa: u64,
    exp10: i32,
    binary64: F64,
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

    /// A `behavior.*.tolerance` quantity: the value the API server stores (canonical form),
    /// read back with `Quantity.AsApproximateFloat64()`. `None` for negative quantities.
    pub fn from_quantity(q: &Quantity) -> Option<Tolerance> {
        if q.signum() < 0 {
            return None;
        }
        // The quantity is not negative: the magnitude is the value.
        let (mut m, mut exp10) = q.canonical_magnitude();
        // Go keeps more than 19 digits in an inf.Dec; such a tolerance is far outside any
        // ratio's range, so dropping digits below the 19th changes no comparison in practice.
        let mut exact = true;
        while m > i64::MAX as u128 {
            let (q, r) = crate::arith::div_small(m, 10);
            exact &= r == 0;
            m = q;
            exp10 = exp10.saturating_add(1);
        }
        // m <= i64::MAX here.
        let m64 = m as u64;
        let binary64 = if exact {
            F64::go_approximate_float64(m64 as i64, exp10)
        } else {
            F64::from_decimal(false, m64, exp10)
        };
        Some(Tolerance {
            mantissa: m64,
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
