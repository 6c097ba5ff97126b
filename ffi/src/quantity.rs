//! Quantities: Kubernetes quantity texts, their canonical form, and measured doubles, all as
//! milli-units (`int64_t`, 1000 per unit) on the C side.

use core::ffi::c_char;

use hpa::quantity::{build_quantity_milli, QuantityError};
use hpa::Quantity;

use crate::enums;
use crate::error::Fault;
use crate::out::write_value;
use crate::raw::{self, hpa_str};
use crate::status::hpa_status;
use crate::text::{decimal_before, Text};
use crate::HPA_QUANTITY_TEXT_CAPACITY;

fn status_of(r: Result<(), Fault>) -> hpa_status {
    match r {
        Ok(()) => hpa_status::Ok,
        Err(f) => f.status,
    }
}

/// Parses a Kubernetes quantity (`"250m"`, `"1.5"`, `"2Gi"`, `"1e3"`; surrounding blanks are
/// ignored) and writes its value in milli-units, rounded as Kubernetes' `MilliValue()` rounds
/// (up, away from zero: `"0.1m"` is 1) and saturating at the `int64_t` range.
///
/// `text` need not be NUL-terminated; it may be NULL when `text_len` is 0 (which is an error:
/// the empty string is no quantity). Returns `HPA_STATUS_QUANTITY_FORMAT`,
/// `HPA_STATUS_QUANTITY_SUFFIX` or `HPA_STATUS_QUANTITY_EXPONENT` for texts Kubernetes
/// rejects; `*milli_out` is written only on success.
///
/// # Safety
///
/// `text` must point to `text_len` readable bytes (when `text_len > 0`); `milli_out` must
/// point to a writable `int64_t`.
#[no_mangle]
#[must_use]
pub unsafe extern "C" fn hpa_quantity_parse(
    text: *const c_char,
    text_len: usize,
    milli_out: *mut i64,
) -> hpa_status {
    status_of((|| {
        // SAFETY: checked before any use; the caller's contract.
        unsafe { raw::reference(milli_out.cast_const()) }?;
        // SAFETY: the caller's contract.
        let s = unsafe {
            raw::string(hpa_str {
                ptr: text,
                len: text_len,
            })
        }?;
        let q = Quantity::parse(s).map_err(|e| {
            let status = match e {
                QuantityError::Empty | QuantityError::Syntax => hpa_status::QuantityFormat,
                QuantityError::Suffix => hpa_status::QuantitySuffix,
                QuantityError::ExponentOutOfRange => hpa_status::QuantityExponent,
            };
            Fault::new(status, crate::error::Detail::Quantity)
        })?;
        // SAFETY: checked above.
        unsafe { write_value(milli_out, q.milli_value()) }
    })())
}

/// Writes the canonical Kubernetes text of `milli` milli-units in `format` (an
/// `hpa_quantity_format`), as `resource.NewMilliQuantity(milli, format).String()` prints it:
/// `1500` in DecimalSI is `"1500m"`, `524288000000` in BinarySI is `"500Mi"` (BinarySI values
/// below 1024 or with a fraction print as DecimalSI, as upstream). The text is
/// NUL-terminated; `HPA_QUANTITY_TEXT_CAPACITY` bytes always suffice.
///
/// `*len_out` (when `len_out` is not NULL) receives the text's length without the NUL.
/// Returns `HPA_STATUS_BUFFER_TOO_SMALL` (writing nothing) when the text and its NUL do not
/// fit in `buf_len` bytes.
///
/// # Safety
///
/// `buf` must point to `buf_len` writable bytes; `len_out` must be NULL or point to a
/// writable `size_t`.
#[no_mangle]
#[must_use]
pub unsafe extern "C" fn hpa_quantity_write(
    milli: i64,
    format: u32,
    buf: *mut c_char,
    buf_len: usize,
    len_out: *mut usize,
) -> hpa_status {
    status_of((|| {
        let format = raw::known(format, enums::quantity_format)?;
        if buf.is_null() {
            return Err(Fault::new(
                hpa_status::NullPointer,
                crate::error::Detail::Null,
            ));
        }
        if !len_out.is_null() && !len_out.is_aligned() {
            return Err(Fault::new(
                hpa_status::Misaligned,
                crate::error::Detail::Misaligned(core::mem::align_of::<usize>()),
            ));
        }
        let mut local = [0u8; HPA_QUANTITY_TEXT_CAPACITY];
        let mut t = Text::new(&mut local);
        let _ = core::fmt::write(
            &mut t,
            format_args!("{}", build_quantity_milli(milli, format)),
        );
        let len = t.finish();
        if len >= buf_len {
            return Err(Fault::new(
                hpa_status::BufferTooSmall,
                crate::error::Detail::Buffer(buf_len, len.saturating_add(1)),
            ));
        }
        // SAFETY: `buf` holds `buf_len > len` writable bytes by the caller's contract.
        let dst = unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), len + 1) };
        for (d, s) in dst.iter_mut().zip(local.iter()) {
            *d = *s;
        }
        if !len_out.is_null() {
            // SAFETY: not NULL, aligned, writable by the caller's contract.
            unsafe { len_out.write(len) };
        }
        Ok(())
    })())
}

/// `2^53`: integers up to here are exact doubles.
const EXACT_INTEGERS: f64 = 9_007_199_254_740_992.0;
/// `2^63`: the first double beyond `i64`.
const I64_LIMIT: f64 = 9_223_372_036_854_775_808.0;

/// A measured value in units as milli-units (see `hpa_milli_from_double`), `None` for NaN and
/// infinities.
#[allow(
    clippy::float_arithmetic,
    clippy::float_cmp,
    clippy::cast_possible_truncation
)]
pub(crate) fn milli_from_double(v: f64) -> Option<i64> {
    if !v.is_finite() {
        return None;
    }
    let p = v * 1000.0;
    // A double that is the closest one to a whole number k of milli-units means k.
    let k = libm::round(p);
    if k.abs() <= EXACT_INTEGERS && k / 1000.0 == v {
        return Some(k as i64);
    }
    if p >= I64_LIMIT {
        return Some(i64::MAX);
    }
    if p < -I64_LIMIT {
        return Some(i64::MIN);
    }
    // Otherwise MilliValue()'s rounding of the exact value `v × 1000 = p + err`: up for
    // positive values, away from zero for negative ones.
    let err = libm::fma(v, 1000.0, -p);
    let rounded = if v > 0.0 {
        libm::ceil(p)
    } else {
        libm::floor(p)
    };
    if rounded != p {
        // `p` is not a whole number, so no whole number lies between it and the exact value.
        return Some(rounded as i64);
    }
    let adjust = if v > 0.0 {
        libm::ceil(err)
    } else {
        libm::floor(err)
    };
    Some((p as i64).saturating_add(adjust as i64))
}

/// Converts a measured value in units (CPU cores, bytes, requests per second) to
/// milli-units, the way a Kubernetes quantity holding it would read: a double that is the
/// closest double to a whole number of milli-units gives that number (`0.1` gives 100, `0.007`
/// gives 7, `268435456.0` bytes gives 268435456000); any other value is rounded as
/// `MilliValue()` rounds, up and away from zero (`0.0001` gives 1, `0.1234` gives 124,
/// `-0.0001` gives -1). Values beyond the `int64_t` range saturate, as `MilliValue()` does.
///
/// Returns `HPA_STATUS_OUT_OF_RANGE` for NaN and infinities; `*milli_out` is written only on
/// success.
///
/// # Safety
///
/// `milli_out` must point to a writable `int64_t`.
#[no_mangle]
#[must_use]
pub unsafe extern "C" fn hpa_milli_from_double(value: f64, milli_out: *mut i64) -> hpa_status {
    status_of((|| {
        // SAFETY: checked before any use; the caller's contract.
        unsafe { raw::reference(milli_out.cast_const()) }?;
        let milli = milli_from_double(value).ok_or(Fault::new(
            hpa_status::OutOfRange,
            crate::error::Detail::Range(0, "is not a finite number"),
        ))?;
        // SAFETY: checked above.
        unsafe { write_value(milli_out, milli) }
    })())
}

/// Bytes that hold [`decimal_si_milli`]'s text: a sign, 19 digits and a suffix.
pub(crate) const DECIMAL_SI_MILLI_BYTES: usize = 24;

/// `milli` milli-units as Kubernetes writes a DecimalSI quantity (`Quantity.String()` of
/// `NewMilliQuantity(milli, DecimalSI)`, its int64 path): the trailing zeros moved into the
/// exponent, which is then lowered to a multiple of 3 and written as an SI suffix (`"1500m"`,
/// `"2"`, `"40k"`). The text of the core's `Display` for `build_quantity_milli(milli,
/// DecimalSI)`, without `core::fmt` (each decision writes one or two).
pub(crate) fn decimal_si_milli(milli: i64, buf: &mut [u8; DECIMAL_SI_MILLI_BYTES]) -> &str {
    if milli == 0 {
        return "0";
    }
    let mut m = milli.unsigned_abs();
    let mut exponent: i32 = -3;
    while m.is_multiple_of(10) {
        m /= 10;
        exponent += 1;
    }
    // At most the zeros just removed are put back: no overflow.
    match exponent.rem_euclid(3) {
        1 => (m, exponent) = (m * 10, exponent - 1),
        2 => (m, exponent) = (m * 100, exponent - 2),
        _ => {}
    }
    // An i64's milli-units end between 10^-3 and 10^15: every exponent has a letter.
    let suffix: &[u8] = match exponent {
        -3 => b"m",
        3 => b"k",
        6 => b"M",
        9 => b"G",
        12 => b"T",
        15 => b"P",
        _ => b"",
    };
    let end = DECIMAL_SI_MILLI_BYTES - suffix.len();
    if let Some(tail) = buf.get_mut(end..) {
        tail.copy_from_slice(suffix);
    }
    let at = decimal_before(buf, end, m, milli < 0);
    // ASCII digits, sign and letter.
    raw::utf8(buf.get(at..).unwrap_or(&[])).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_that_name_milli_units_are_exact() {
        assert_eq!(milli_from_double(0.1), Some(100));
        assert_eq!(milli_from_double(0.007), Some(7));
        assert_eq!(milli_from_double(0.29), Some(290));
        assert_eq!(milli_from_double(4.095), Some(4095));
        assert_eq!(milli_from_double(268_435_456.0), Some(268_435_456_000));
        assert_eq!(milli_from_double(-0.25), Some(-250));
        assert_eq!(milli_from_double(0.0), Some(0));
        assert_eq!(milli_from_double(-0.0), Some(0));
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "libm's fma detects CPU features with inline assembly (cpuid), which Miri cannot run"
    )]
    fn other_doubles_round_up_away_from_zero() {
        assert_eq!(milli_from_double(0.0001), Some(1));
        assert_eq!(milli_from_double(0.0005), Some(1));
        assert_eq!(milli_from_double(0.1234), Some(124));
        assert_eq!(milli_from_double(-0.0001), Some(-1));
        assert_eq!(milli_from_double(-0.1234), Some(-124));
        // The double just above 1 is a little more than 1000 milli-units.
        assert_eq!(
            milli_from_double(f64::from_bits(1.0f64.to_bits() + 1)),
            Some(1001)
        );
        assert_eq!(
            milli_from_double(f64::from_bits(1.0f64.to_bits() - 1)),
            Some(1000)
        );
    }

    #[test]
    fn decimal_si_milli_writes_the_cores_text() {
        use hpa::quantity::Format;
        use std::string::ToString;
        let mut values = std::vec![0, 1, -1, i64::MAX, i64::MIN, i64::MIN + 1, i64::MAX - 1];
        let mut p: i64 = 1;
        for _ in 0..19 {
            for d in [1, 2, 5, 9] {
                values.extend([p * d, -p * d, p * d + 1, p * d - 1]);
            }
            p = p.saturating_mul(10);
        }
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..if cfg!(miri) { 100 } else { 100_000 } {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = x as i64;
            values.extend([v, v >> (x % 64), (v >> (x % 64)) / 1000 * 1000]);
        }
        let mut buf = [0; DECIMAL_SI_MILLI_BYTES];
        for v in values {
            let expected = build_quantity_milli(v, Format::DecimalSI).to_string();
            assert_eq!(decimal_si_milli(v, &mut buf), expected, "{v}");
        }
    }

    #[test]
    fn every_milli_value_round_trips() {
        // Under Miri a hundredth of the range: it interprets each call (docs/testing.md).
        let range = if cfg!(miri) { 1_000 } else { 100_000 };
        for k in -range..range {
            #[allow(clippy::cast_precision_loss, clippy::float_arithmetic)]
            let v = k as f64 / 1000.0;
            assert_eq!(milli_from_double(v), Some(k), "{v}");
        }
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "libm's fma detects CPU features with inline assembly (cpuid), which Miri cannot run"
    )]
    fn extremes() {
        assert_eq!(milli_from_double(1e300), Some(i64::MAX));
        assert_eq!(milli_from_double(-1e300), Some(i64::MIN));
        assert_eq!(milli_from_double(f64::MAX), Some(i64::MAX));
        assert_eq!(milli_from_double(f64::NAN), None);
        assert_eq!(milli_from_double(f64::INFINITY), None);
        assert_eq!(milli_from_double(f64::NEG_INFINITY), None);
        assert_eq!(milli_from_double(5e-324), Some(1));
        assert_eq!(milli_from_double(-5e-324), Some(-1));
        // Large but exact: 9e12 cores.
        assert_eq!(milli_from_double(9e12), Some(9_000_000_000_000_000));
    }
}
