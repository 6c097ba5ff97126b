//! Tolerances: a decimal value with its binary64 reading
//! (docs/spec/arithmetic.md#tolerance-values).

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
        let (m, exp10) = q.canonical_magnitude();
        // Go parses a canonical string of at most 18 digits at nano precision or coarser into
        // an `int64Amount{m, exp10}`, read as `float64(m) × Pow10(exp10)`; any other into an
        // `inf.Dec` holding the value × 10^9 rounded up, read as `float64(that) × Pow10(-9)`.
        // Beyond 2^128 (a tolerance above 3.4e29) the count saturates there: a tolerance
        // above 9.3e18 already holds every ratio the engine forms (at most 2^63 in
        // magnitude), so every decision stays upstream's. (Binary quantities of `Pi` and
        // `Ei`, which Go also reads at nano scale, are read as integers: they differ from
        // Go's value by at most one ulp above 2^53.)
        let binary64 = if m < 1_000_000_000_000_000_000 && exp10 >= -9 {
            // m < 10^18: an i64.
            F64::go_approximate_float64(m as i64, exp10)
        } else {
            F64::from_u128(q.scaled_magnitude(-9)).mul(F64::go_pow10(-9))
        };
        // The exact decimal keeps 19 digits at most: digits below the 19th change no
        // comparison with a ratio (itself below 2^63 in magnitude).
        let (mut m, mut exp10) = (m, exp10);
        while m > i64::MAX as u128 {
            let (q, _) = crate::arith::div_small(m, 10);
            m = q;
            exp10 = exp10.saturating_add(1);
        }
        Some(Tolerance {
            mantissa: m as u64,
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
