//! The ratio of a pass's sums to the target, and the percentages of the pod-based
//! calculators (docs/spec/calculator.md#utilization).

use super::pass::PodPass;
use super::PodTarget;
use crate::arith::{self, Ratio};
use crate::tuning::FAST_FORMS;

/// The ratio of the pass's value and request sums (clamped to `int64` where upstream stores
/// them) to the target, the utilization in percent (utilization targets), and
/// `values / entries`; `None` for a zero sum of requests (upstream's `NoMatchingRequests`).
/// Utilization: `GetResourceUtilizationRatio`, the truncated percent and its ratio to the
/// target; average values: the average's ratio to the target.
// On a Cortex-M0: the sums are read from the pass in memory (sums passed by value or by
// reference to a lone `Sum` were copied to the stack at each call), and an `Option` is
// read in place where a `Result` with a `CalcError` was copied out with `memcpy`.
pub(super) fn measure(
    mode: crate::settings::Arithmetic,
    target: PodTarget,
    pass: &PodPass<'_>,
    entries: usize,
) -> Option<(Ratio, Option<i32>, i64)> {
    let values = arith::clamp_sum(pass.value_sum);
    let average = values.checked_div(count(entries)).unwrap_or(0);
    let (num, den, percent) = match target {
        PodTarget::Utilization(target_percent) => {
            let requests = arith::clamp_sum(pass.request_sum);
            if requests == 0 {
                return None;
            }
            let percent = percent_ratio(values, requests);
            (i64::from(percent), i64::from(target_percent), Some(percent))
        }
        PodTarget::Average(milli) => (average, milli, None),
    };
    Some((arith::ratio(mode, num, den), percent, average))
}

/// `trunc(value × percent / 100)` clamped to `i64`, for `percent >= 0`: the magnitude's
/// 128-bit product divided by 100 (a 32-bit divisor, no 128-bit division).
pub(super) fn percent_of(value: i64, percent: i64) -> i64 {
    let (hi, lo) = arith::mul_wide(value.unsigned_abs(), percent.unsigned_abs());
    let (q, _) = arith::div_small(u128::from(hi) << 64 | u128::from(lo), 100);
    crate::arith::signed(value < 0, q)
}

/// A count as an `i64` (saturating; exact on 32-bit targets).
pub(super) fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// `int32(values * 100 / requests)`, truncated toward zero and saturating, for
/// `requests != 0`, in 64-bit words: with `|values| = q·|requests| + m`, the magnitude is
/// `100q + floor(100m / |requests|)`.
fn percent_ratio(values: i64, requests: i64) -> i32 {
    let (v, r) = (values.unsigned_abs(), requests.unsigned_abs());
    // Hosts: below 2^57 `|values| × 100` fits 64 bits and one division gives the same
    // `floor(100 |values| / |requests|)` (the bit loop costs about a hundred instructions
    // there).
    let magnitude = if FAST_FORMS && v >> 57 == 0 {
        v.wrapping_mul(100).checked_div(r).unwrap_or(0)
    } else {
        let (q, m) = (v.checked_div(r).unwrap_or(0), v.checked_rem(r).unwrap_or(0));
        // From 2^32 up, q × 100 is far beyond the i32 range: no need to compute it.
        if q >> 32 == 0 {
            q.wrapping_mul(100)
                .wrapping_add(arith::mul_div_below(m, 100, r))
        } else {
            u64::MAX
        }
    };
    let percent = crate::arith::signed((values < 0) != (requests < 0), u128::from(magnitude));
    arith::clamp_i64_to_i32(percent)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::settings::Arithmetic;
    /// `ceil_times(1)` is upstream's `int32(ceil(float64(value) / float64(target)))` in
    /// kubernetes mode (host binary64; `as` saturates, NaN to 0, as upstream PR #141397
    /// does): the multiplication by 1.0 is exact. (Exact mode: `exact_helpers_match_i128`.)
    #[test]
    #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
    fn ceil_times_one_is_ceil_div() {
        let edges = [
            i64::MIN,
            i64::MIN + 1,
            -(1 << 53) - 1,
            -7,
            -1,
            0,
            1,
            2,
            3,
            7,
            999,
            1000,
            1001,
            (1 << 53) + 1,
            i64::from(i32::MAX) * 1000 + 1,
            i64::MAX - 1,
            i64::MAX,
        ];
        for &v in &edges {
            for &t in &edges {
                let ratio = arith::ratio(Arithmetic::Kubernetes, v, t);
                let upstream = ((v as f64) / (t as f64)).ceil() as i32;
                assert_eq!(ratio.ceil_times(1), upstream, "{v} / {t}");
            }
        }
    }

    /// The 64-bit helpers against the 128-bit expressions they replace.
    #[test]
    #[allow(clippy::arithmetic_side_effects)]
    fn wide_free_helpers_match_i128() {
        let edges = [
            i64::MIN,
            i64::MIN + 1,
            i64::MIN / 100,
            -(1 << 40) - 7,
            -1001,
            -199,
            -100,
            -99,
            -1,
            0,
            1,
            99,
            100,
            101,
            12_345,
            1 << 40,
            i64::MAX / 100,
            i64::MAX / 3,
            i64::MAX - 1,
            i64::MAX,
        ];
        let mut rng = arith::test_rng(0x2545_F491_4F6C_DD1D);
        let mut next = || {
            let s = rng();
            (s as i64) >> (s % 64)
        };
        let mut pairs: std::vec::Vec<(i64, i64)> = std::vec::Vec::new();
        for &a in &edges {
            for &b in &edges {
                pairs.push((a, b));
            }
        }
        for _ in 0..if cfg!(miri) { 200 } else { 100_000 } {
            pairs.push((next(), next()));
        }
        for (a, b) in pairs {
            if b != 0 {
                let want = arith::clamp_i32(i128::from(a) * 100 / i128::from(b));
                assert_eq!(percent_ratio(a, b), want, "{a} * 100 / {b}");
            }
            let p = i128::from(b.unsigned_abs() % 5_000_000);
            let want = arith::clamp_i64(i128::from(a) * p / 100);
            assert_eq!(percent_of(a, p as i64), want, "{a} * {p} / 100");
        }
    }
}
