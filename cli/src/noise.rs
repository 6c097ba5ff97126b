//! The noise of `hpa simulate`: every sample multiplied by `1 + e`, `e` uniform in `[-F, F]`,
//! drawn from a seeded splitmix64.
//!
//! A week of 1,000 pods draws 40 million samples, so the per-sample work avoids division
//! (128-bit division took 39 % of that run): the draw's remainder comes from a precomputed
//! reciprocal, and the scaling multiplies in 64 bits, or splits larger values at a million,
//! dividing by that constant only (which the compiler turns into a multiplication). Both give
//! exactly the numbers of the plain formula `value x (10^6 + x % span - ppm) / 10^6` (see the
//! tests), so a seed gives the same run as it always has.

/// Parts per million in one.
const MILLION: u64 = 1_000_000;

/// The next number of the splitmix64 sequence whose state is `state`: a small, fast,
/// well-mixed generator; a fixed seed gives the same sequence everywhere.
pub(crate) fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Noise drawn from [`splitmix64`].
pub(crate) struct Noise {
    state: u64,
    /// The amplitude, parts per million, in `[0, 10^6]`.
    ppm: u64,
    /// The smallest factor `10^6 - ppm`.
    lowest: u64,
    /// The number of possible `e`: `2 ppm + 1`.
    span: u64,
    /// With `c = ceil(2^(64 + shift) / span)`: `c` when `short`, `c - 2^64` otherwise (see
    /// [`Noise::remainder`]; unused without noise).
    reciprocal: u64,
    /// `floor(log2 span)` when `short`, `ceil(log2 span)` otherwise.
    shift: u32,
    /// Whether `c` fits 64 bits with every quotient exact: the usual case (5 % noise too).
    short: bool,
}

impl Noise {
    /// Noise of amplitude `ppm` parts per million (`--noise` allows at most 10^6; larger is
    /// taken as 10^6) from `seed`.
    pub(crate) fn new(seed: u64, ppm: i64) -> Noise {
        let ppm = u64::try_from(ppm).unwrap_or(0).min(MILLION);
        let span = ppm.saturating_mul(2).saturating_add(1);
        let (reciprocal, shift, short) = reciprocal(span);
        Noise {
            state: seed,
            ppm,
            lowest: MILLION.saturating_sub(ppm),
            span,
            reciprocal,
            shift,
            short,
        }
    }

    fn next(&mut self) -> u64 {
        splitmix64(&mut self.state)
    }

    /// `x % span` by two multiplications: the quotient is `floor(x c / 2^(64 + shift))` for
    /// every 64-bit `x` because `c span - 2^(64 + shift) <= 2^shift` (Lemire, Kaser and
    /// Kurz, "Faster remainder by direct computation", 2019, theorem 1; Granlund and
    /// Montgomery, "Division by invariant integers using multiplication", 1994).
    ///
    /// Its arithmetic cannot wrap (a product of two 64-bit numbers fits 128 bits, the quotient
    /// times `span` is at most `x`), so it wraps rather than checks: this runs per sample.
    fn remainder<const SHORT: bool>(&self, x: u64) -> u64 {
        let product = u128::from(x).wrapping_mul(u128::from(self.reciprocal));
        let high = u64::try_from(product >> 64).unwrap_or(u64::MAX);
        let quotient = if SHORT {
            high.wrapping_shr(self.shift)
        } else {
            // c has 65 bits: x c / 2^64 = x + high. (x + high) >> shift without a 65-bit
            // sum: high <= x, x - high and x + high have the same parity, and shift >= 2.
            high.wrapping_add(x.wrapping_sub(high) >> 1)
                .wrapping_shr(self.shift.wrapping_sub(1))
        };
        x.wrapping_sub(quotient.wrapping_mul(self.span))
    }

    /// The next `10^6 + e`, in `[0, 2 x 10^6]`.
    fn factor<const SHORT: bool>(&mut self) -> u64 {
        let draw = self.next();
        // At most `2 ppm + 10^6 - ppm`.
        self.remainder::<SHORT>(draw).wrapping_add(self.lowest)
    }

    /// `value x (1 + e)`, `e` uniform in `[-ppm, ppm]` parts per million, rounded toward zero,
    /// never negative.
    pub(crate) fn apply(&mut self, value: i64) -> i64 {
        if self.ppm == 0 {
            return value;
        }
        let factor = if self.short {
            self.factor::<true>()
        } else {
            self.factor::<false>()
        };
        scale(value, factor)
    }

    /// `put(slot, self.apply(value))` for each slot in turn, with the checks on `value` made
    /// once for all of them: a step's samples share one or two values.
    pub(crate) fn apply_each<T>(
        &mut self,
        value: i64,
        slots: &mut [T],
        put: impl FnMut(&mut T, i64),
    ) {
        if self.short {
            self.apply_each_with::<true, T>(value, slots, put);
        } else {
            self.apply_each_with::<false, T>(value, slots, put);
        }
    }

    fn apply_each_with<const SHORT: bool, T>(
        &mut self,
        value: i64,
        slots: &mut [T],
        mut put: impl FnMut(&mut T, i64),
    ) {
        if self.ppm == 0 {
            slots.iter_mut().for_each(|slot| put(slot, value));
            return;
        }
        match u64::try_from(value) {
            Ok(small) if small <= FITS_32 => {
                for slot in slots {
                    put(slot, scale_32(small, self.factor::<SHORT>()));
                }
            }
            Ok(small) if small <= FITS => {
                for slot in slots {
                    put(slot, scale_64(small, self.factor::<SHORT>()));
                }
            }
            _ => {
                for slot in slots {
                    put(slot, scale(value, self.factor::<SHORT>()));
                }
            }
        }
    }
}

/// The reciprocal, shift and kind of [`Noise::remainder`]'s division by `span`, odd: 1 (no
/// noise, never divided by) or at least 3, so that `span` is never a power of two.
fn reciprocal(span: u64) -> (u64, u32, bool) {
    let none = (0, 0, true);
    if span < 3 {
        return none;
    }
    let fast = || {
        // 2^low < span < 2^(low + 1), so 2^64 / 2 < c < 2^64.
        let low = span.checked_ilog2()?;
        let power = 1u128.checked_shl(low.checked_add(64)?)?;
        let c = power.checked_div(u128::from(span))?.checked_add(1)?;
        let excess = c.checked_mul(u128::from(span))?.checked_sub(power)?;
        if excess <= 1u128.checked_shl(low)? {
            return Some((u64::try_from(c).ok()?, low, true));
        }
        // One bit more: 2^64 < c < 2^65, and c span - 2^(64 + shift) < span < 2^shift.
        let shift = low.checked_add(1)?;
        let power = 1u128.checked_shl(shift.checked_add(64)?)?;
        let c = power.checked_div(u128::from(span))?.checked_add(1)?;
        Some((u64::try_from(c.checked_sub(1 << 64)?).ok()?, shift, false))
    };
    // Every odd span of 64 bits has its reciprocal; `none` is never taken.
    fast().unwrap_or(none)
}

/// The values whose product by any factor fits 64 bits: every sample of the week's fleet,
/// any value below 9 x 10^12.
const FITS: u64 = u64::MAX / (2 * MILLION);
/// The values whose product by any factor fits 32 bits: up to 2,147.
const FITS_32: u64 = u32::MAX as u64 / (2 * MILLION);

/// [`scale`] of a value up to [`FITS`].
fn scale_64(value: u64, factor: u64) -> i64 {
    i64::try_from(value.wrapping_mul(factor) / MILLION).unwrap_or(i64::MAX)
}

/// [`scale`] of a value up to [`FITS_32`] (millicores per pod, say), where a cheaper
/// multiplication divides by the constant.
fn scale_32(value: u64, factor: u64) -> i64 {
    const MILLION_32: u32 = 1_000_000;
    // The product fits 32 bits; its low 32 bits are taken without a check per sample.
    let product = value.wrapping_mul(factor) & u64::from(u32::MAX);
    i64::from(u32::try_from(product).unwrap_or(u32::MAX) / MILLION_32)
}

/// `value x factor / 10^6` rounded toward zero, at least 0 and at most `i64::MAX`, for a
/// `factor` in `[0, 2 x 10^6]`.
fn scale(value: i64, factor: u64) -> i64 {
    // A negative value times a non-negative factor is never above 0.
    let Ok(value) = u64::try_from(value) else {
        return 0;
    };
    if value <= FITS {
        return scale_64(value, factor);
    }
    // value x factor = (whole x 10^6 + part) x factor; part x factor < 2 x 10^12.
    let (whole, part) = (value / MILLION, value % MILLION);
    let scaled = u128::from(whole)
        .wrapping_mul(u128::from(factor))
        .wrapping_add(u128::from(part.wrapping_mul(factor) / MILLION));
    i64::try_from(scaled).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The formula the simulation used before it avoided division; its numbers are the ones
    /// to keep.
    fn plain(draw: u64, ppm: i64, value: i64) -> i64 {
        let span = (2 * ppm + 1) as u64;
        let e = (draw % span) as i64 - ppm;
        let scaled = i128::from(value) * i128::from(1_000_000 + e) / 1_000_000;
        i64::try_from(scaled.max(0)).unwrap_or(i64::MAX)
    }

    fn remainder(noise: &Noise, x: u64) -> u64 {
        if noise.short {
            noise.remainder::<true>(x)
        } else {
            noise.remainder::<false>(x)
        }
    }

    /// A second splitmix64 stream for the inputs, independent of the one under test.
    fn inputs(seed: u64) -> Noise {
        Noise::new(seed, 0)
    }

    /// Short reciprocals (1, 2, 50,000 to 150,000, 10^6) and long ones (3, 999, 999,999).
    const PPMS: [i64; 9] = [1, 2, 3, 999, 50_000, 100_000, 150_000, 999_999, 1_000_000];

    fn values() -> Vec<i64> {
        let mut values = vec![i64::MIN, i64::MIN + 1, -1_000_001, -1_000_000, -999_999];
        values.extend([
            -2, -1, 0, 1, 2, 499_999, 500_000, 999_999, 1_000_000, 1_000_001,
        ]);
        values.extend([i64::MAX - 1, i64::MAX, i64::MAX / 2, i64::MAX / 2 + 1]);
        // Where the product by the largest factor stops fitting 64 bits, and 32.
        for fits in [u64::MAX / 2_000_000, u64::from(u32::MAX) / 2_000_000] {
            values.extend((fits as i64 - 3)..=(fits as i64 + 3));
        }
        // Where value x factor / 10^6 crosses i64::MAX for the largest factors.
        for factor in [1_999_999, 2_000_000] {
            let edge = (i128::from(i64::MAX) * 1_000_000 / factor) as i64;
            values.extend((edge - 3)..=(edge + 3));
        }
        for k in [1, 7, 123_456_789, i64::MAX / 1_000_000] {
            values.extend([k * 1_000_000 - 1, k * 1_000_000, k * 1_000_000 + 1]);
        }
        values
    }

    #[test]
    fn the_remainder_is_the_remainder() {
        let mut input = inputs(11);
        for ppm in PPMS {
            let noise = Noise::new(0, ppm);
            let span = noise.span;
            let mut draws = vec![0, 1, span - 1, span, span + 1, u64::MAX, u64::MAX - 1];
            let top = u64::MAX - u64::MAX % span;
            draws.extend([top - 1, top, top.wrapping_add(1), top - span, u64::MAX / 2]);
            draws.extend((0..200_000).map(|_| input.next()));
            draws.extend((0..2_000).map(|_| input.next() % 4 * span + input.next() % 3));
            for x in draws {
                assert_eq!(remainder(&noise, x), x % span, "{x} % {span}");
            }
        }
        // Every divisor the flag allows, on a few numerators each; both kinds of reciprocal.
        let mut short = 0;
        for ppm in 1..=1_000_000u64 {
            let noise = Noise::new(0, ppm as i64);
            short += usize::from(noise.short);
            let span = 2 * ppm + 1;
            for x in [input.next(), u64::MAX, u64::MAX - ppm, u64::MAX - span] {
                assert_eq!(remainder(&noise, x), x % span, "{x} % {span}");
            }
        }
        assert!((1..1_000_000).contains(&short), "{short} short reciprocals");
        assert!(
            Noise::new(0, 50_000).short,
            "5 % noise takes the short path"
        );
    }

    #[test]
    fn the_scaling_is_the_plain_formula() {
        let mut input = inputs(12);
        let mut values = values();
        values.extend((0..2_000).map(|_| input.next() as i64));
        values.extend((0..2_000).map(|_| (input.next() >> 20) as i64));
        values.extend((0..2_000).map(|_| (input.next() >> 40) as i64));
        values.extend((0..2_000).map(|_| (input.next() >> 52) as i64));
        for ppm in PPMS {
            let span = (2 * ppm + 1) as u64;
            // e = -ppm, 0, ppm and draws in between.
            let mut draws: Vec<u64> = vec![0, ppm as u64, span - 1];
            draws.extend((0..50).map(|_| input.next()));
            for &draw in &draws {
                let factor = 1_000_000 - ppm as u64 + draw % span;
                for &value in &values {
                    let expected = plain(draw, ppm, value);
                    assert_eq!(scale(value, factor), expected, "{value} x {factor}");
                    let Ok(value) = u64::try_from(value) else {
                        continue;
                    };
                    if value <= FITS {
                        assert_eq!(scale_64(value, factor), expected, "{value} x {factor}");
                    }
                    if value <= FITS_32 {
                        assert_eq!(scale_32(value, factor), expected, "{value} x {factor}");
                    }
                }
            }
        }
    }

    /// Every value of the 32-bit path at the largest factors, and its largest value at every
    /// factor.
    #[test]
    fn the_32_bit_scaling_is_exact() {
        let exact = |value: u64, factor: u64| (value * factor / 1_000_000) as i64;
        for value in 0..=FITS_32 {
            for factor in [0, 1, 999_999, 1_000_000, 1_999_999, 2_000_000] {
                assert_eq!(
                    scale_32(value, factor),
                    exact(value, factor),
                    "{value} x {factor}"
                );
            }
        }
        for factor in 0..=2_000_000 {
            let value = FITS_32;
            assert_eq!(
                scale_32(value, factor),
                exact(value, factor),
                "{value} x {factor}"
            );
        }
    }

    /// The whole draw: the same stream as the plain formula on the same generator.
    #[test]
    fn noise_draws_what_the_plain_formula_draws() {
        let mut input = inputs(13);
        for ppm in PPMS {
            for seed in [0, 1, 42, u64::MAX] {
                let mut noise = Noise::new(seed, ppm);
                let mut reference = inputs(seed);
                for _ in 0..20_000 {
                    let value = (input.next() >> (input.next() % 64)) as i64;
                    let expected = plain(reference.next(), ppm, value);
                    assert_eq!(noise.apply(value), expected, "{value}, ppm {ppm}");
                }
            }
        }
    }

    /// Applying to a run of slots draws what applying to each in turn draws, on each of its
    /// paths (values whose products fit 32 bits, 64 bits, or neither).
    #[test]
    fn each_is_apply_in_turn() {
        let mut input = inputs(14);
        let mut values = values();
        values.extend([-5, 0, 700, 701]);
        for bits in [12, 24, 40, 64] {
            values.extend((0..300).map(|_| (input.next() >> (64 - bits)) as i64));
        }
        for ppm in [0].into_iter().chain(PPMS) {
            let mut each = Noise::new(3, ppm);
            let mut one = Noise::new(3, ppm);
            for &value in &values {
                let mut slots = [0i64; 7];
                each.apply_each(value, &mut slots, |slot, v| *slot = v);
                let expected: Vec<i64> = (0..7).map(|_| one.apply(value)).collect();
                assert_eq!(slots[..], expected[..], "{value}, ppm {ppm}");
            }
        }
    }

    #[test]
    fn noise_is_bounded_and_repeatable() {
        let mut a = Noise::new(7, 100_000);
        let mut b = Noise::new(7, 100_000);
        for _ in 0..1000 {
            let x = a.apply(1000);
            assert_eq!(x, b.apply(1000));
            assert!((900..=1100).contains(&x), "{x}");
        }
        let mut none = Noise::new(7, 0);
        assert_eq!(none.apply(1234), 1234);
    }
}
