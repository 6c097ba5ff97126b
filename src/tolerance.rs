//! Tolerances from the API: a `behavior.*.tolerance` quantity read as upstream reads it
//! (docs/spec/arithmetic.md#tolerance-values). The numeric type is `crate::arith::Tolerance`.

use crate::arith::binary64::F64;
pub use crate::arith::Tolerance;
use crate::quantity::Quantity;

/// Go's `math.Pow10(-9)`: `1 / 1e9` rounded once, the binary64 nearest to `1e-9`. A constant:
/// computed, it is a call and a division (72 bytes more code on a Cortex-M0).
const GO_POW10_MINUS_9: F64 = F64::from_bits(0x3E11_2E0B_E826_D695);

impl Tolerance {
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
            F64::from_u128(q.scaled_magnitude(-9)).mul(GO_POW10_MINUS_9)
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nano_scale_is_gos_pow10() {
        assert_eq!(GO_POW10_MINUS_9, F64::go_pow10(-9));
    }
}
