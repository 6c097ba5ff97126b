//! The `controller` block: kube-controller-manager's settings from their exact decimal text
//! (tolerance to its exact decimal and nearest float64, durations in seconds to whole
//! milliseconds). Apart because it is number parsing the rest of the document never needs.

use hpa::settings::{Arithmetic, Settings};
use hpa::time::Duration;
use hpa::Tolerance;

use crate::trace::raw::{RawArithmetic, RawController};
use crate::trace::TraceError;

/// A decimal number read from its text: `(-1)^negative × digits × 10^exp10`, with `digits`
/// free of leading and trailing zeros (empty for zero).
#[derive(Debug, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    digits: String,
    exp10: i64,
}

impl Decimal {
    /// `[+-]? (d+ (. d*)? | . d+) ([eE] [+-]? d+)?` (JSON numbers and YAML 1.2 floats).
    fn parse(text: &str) -> Option<Decimal> {
        let (negative, rest) = signed(text);
        let (mantissa, exponent) = match rest.split_once(['e', 'E']) {
            Some((mantissa, exponent)) => (mantissa, Some(exponent)),
            None => (rest, None),
        };
        let (int_part, frac_part) = match mantissa.split_once('.') {
            Some((int_part, frac_part)) => (int_part, frac_part),
            None => (mantissa, ""),
        };
        let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if int_part.is_empty() && frac_part.is_empty()
            || !all_digits(int_part)
            || !all_digits(frac_part)
        {
            return None;
        }
        let mut exp10: i64 = match exponent {
            None => 0,
            Some(e) => {
                let (negative_exp, digits) = signed(e);
                if digits.is_empty() || !all_digits(digits) {
                    return None;
                }
                // Saturates far beyond any meaningful exponent.
                let magnitude = digits.bytes().fold(0i64, |acc, b| {
                    acc.saturating_mul(10)
                        .saturating_add(i64::from(b.saturating_sub(b'0')))
                });
                if negative_exp {
                    magnitude.saturating_neg()
                } else {
                    magnitude
                }
            }
        };
        let all: String = int_part.chars().chain(frac_part.chars()).collect();
        exp10 = exp10.saturating_sub(i64::try_from(frac_part.len()).unwrap_or(i64::MAX));
        let significant = all.trim_start_matches('0');
        let digits = significant.trim_end_matches('0').to_owned();
        let trailing = significant.len().saturating_sub(digits.len());
        exp10 = exp10.saturating_add(i64::try_from(trailing).unwrap_or(i64::MAX));
        if digits.is_empty() {
            exp10 = 0;
        }
        Some(Decimal {
            negative,
            digits,
            exp10,
        })
    }

    fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }
}

/// Whether `text` starts with `-`, and the text after its sign.
fn signed(text: &str) -> (bool, &str) {
    match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    }
}

/// Parses a non-negative controller number, naming `path` in errors.
fn non_negative_decimal(path: &str, text: &str) -> Result<Decimal, TraceError> {
    let decimal = Decimal::parse(text)
        .ok_or_else(|| TraceError::new(path, format!("invalid number {text:?}")))?;
    if decimal.negative && !decimal.is_zero() {
        return Err(TraceError::new(
            path,
            format!("must not be negative, got {text}"),
        ));
    }
    Ok(decimal)
}

/// `controller.tolerance`: the exact decimal and its nearest float64.
fn tolerance(path: &str, text: &str) -> Result<Tolerance, TraceError> {
    let decimal = non_negative_decimal(path, text)?;
    if decimal.is_zero() {
        return Tolerance::from_decimal(0, 0)
            .ok_or_else(|| TraceError::new(path, format!("{text} is beyond float64's range")));
    }
    if decimal.digits.len() > 19 {
        return Err(TraceError::new(
            path,
            format!("{text} has more than 19 significant digits"),
        ));
    }
    let mantissa: u64 = decimal
        .digits
        .parse()
        .map_err(|_| TraceError::new(path, format!("invalid number {text:?}")))?;
    let exp10 = i32::try_from(decimal.exp10).map_err(|_| {
        if decimal.exp10 > 0 {
            TraceError::new(path, format!("{text} is beyond float64's range"))
        } else {
            TraceError::new(
                path,
                format!("{text} is too small: its exponent is out of range"),
            )
        }
    })?;
    Tolerance::from_decimal(mantissa, exp10)
        .ok_or_else(|| TraceError::new(path, format!("{text} is beyond float64's range")))
}

/// A controller duration in seconds, converted to milliseconds exactly.
fn duration_seconds(path: &str, text: &str) -> Result<Duration, TraceError> {
    let decimal = non_negative_decimal(path, text)?;
    if decimal.is_zero() {
        return Ok(Duration::ZERO);
    }
    let ms_exp = decimal.exp10.saturating_add(3);
    if ms_exp < 0 {
        return Err(TraceError::new(
            path,
            format!("{text} seconds is not a whole number of milliseconds"),
        ));
    }
    let too_large = || {
        TraceError::new(
            path,
            format!("{text} seconds is too large (at most {} ms)", i64::MAX),
        )
    };
    let mantissa: i64 = decimal.digits.parse().map_err(|_| too_large())?;
    let scale = u32::try_from(ms_exp)
        .ok()
        .and_then(|e| 10i64.checked_pow(e))
        .ok_or_else(too_large)?;
    mantissa
        .checked_mul(scale)
        .map(Duration::from_millis)
        .ok_or_else(too_large)
}

pub(super) fn convert_controller(raw: RawController) -> Result<Settings, TraceError> {
    let mut settings = Settings::DEFAULT;
    if let Some(text) = &raw.tolerance {
        settings.tolerance = tolerance("controller.tolerance", &text.0)?;
    }
    if let Some(text) = &raw.downscale_stabilization_window_seconds {
        settings.downscale_stabilization_window =
            duration_seconds("controller.downscaleStabilizationWindowSeconds", &text.0)?;
    }
    if let Some(text) = &raw.cpu_initialization_period_seconds {
        settings.cpu_initialization_period =
            duration_seconds("controller.cpuInitializationPeriodSeconds", &text.0)?;
    }
    if let Some(text) = &raw.initial_readiness_delay_seconds {
        settings.initial_readiness_delay =
            duration_seconds("controller.initialReadinessDelaySeconds", &text.0)?;
    }
    if let Some(on) = raw.scale_to_zero {
        settings.scale_to_zero = on;
    }
    if let Some(arithmetic) = raw.arithmetic {
        settings.arithmetic = match arithmetic {
            RawArithmetic::Kubernetes => Arithmetic::Kubernetes,
            RawArithmetic::Exact => Arithmetic::Exact,
        };
    }
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use hpa::settings::Arithmetic;
    use hpa::time::Duration;
    use hpa::Tolerance;

    use super::Decimal;
    use crate::trace::test_support::{assert_error, base_with, json, yaml};

    #[test]
    fn controller_block() {
        let with = |controller: &str| {
            json(&base_with(
                r#""steps""#,
                &format!(r#""controller": {controller}, "steps""#),
            ))
        };
        assert_error(
            with(r#"{"downscaleStabilizationWindowSeconds": -1}"#),
            "controller.downscaleStabilizationWindowSeconds",
            "must not be negative, got -1",
        );
        assert_error(
            with(r#"{"initialReadinessDelaySeconds": 0.0005}"#),
            "controller.initialReadinessDelaySeconds",
            "0.0005 seconds is not a whole number of milliseconds",
        );
        assert_error(
            with(r#"{"cpuInitializationPeriodSeconds": 1e17}"#),
            "controller.cpuInitializationPeriodSeconds",
            // serde_json spells the exponent's sign out.
            "1e+17 seconds is too large (at most 9223372036854775807 ms)",
        );
        assert_error(
            with(r#"{"cpuInitializationPeriodSeconds": "300"}"#),
            "controller.cpuInitializationPeriodSeconds",
            "invalid type: string \"300\", expected a number",
        );
        assert_error(
            with(r#"{"tolerance": 1e400}"#),
            "controller.tolerance",
            "1e+400 is beyond float64's range",
        );
        assert_error(
            with(r#"{"tolerance": -0.1}"#),
            "controller.tolerance",
            "must not be negative, got -0.1",
        );
        assert_error(
            with(r#"{"tolerance": 0.12345678901234567891}"#),
            "controller.tolerance",
            "0.12345678901234567891 has more than 19 significant digits",
        );
        assert_error(
            with(r#"{"arithmetic": "float"}"#),
            "controller.arithmetic",
            "unknown variant `float`, expected `kubernetes` or `exact`",
        );
        let trace = with(
            r#"{"tolerance": 0.25000, "downscaleStabilizationWindowSeconds": 1.5,
                "cpuInitializationPeriodSeconds": 0, "initialReadinessDelaySeconds": 2e1,
                "scaleToZero": false, "arithmetic": "exact"}"#,
        )
        .unwrap();
        assert_eq!(trace.settings.tolerance.decimal(), (25, -2));
        assert_eq!(
            trace.settings.tolerance,
            Tolerance::from_decimal(25, -2).unwrap()
        );
        assert_eq!(
            trace.settings.downscale_stabilization_window,
            Duration(1500)
        );
        assert_eq!(trace.settings.cpu_initialization_period, Duration(0));
        assert_eq!(trace.settings.initial_readiness_delay, Duration(20_000));
        assert!(!trace.settings.scale_to_zero);
        assert_eq!(trace.settings.arithmetic, Arithmetic::Exact);
        let tiny = with(r#"{"tolerance": 1e-5}"#).unwrap();
        assert_eq!(tiny.settings.tolerance.decimal(), (1, -5));
        let yaml_trace = yaml(
            "hpa: {spec: {maxReplicas: 1}}\ncontroller: {tolerance: 0.30000000000000001, \
             downscaleStabilizationWindowSeconds: 0.25}\nsteps: []\n",
        )
        .unwrap();
        assert_eq!(
            yaml_trace.settings.tolerance.decimal(),
            (30_000_000_000_000_001, -17)
        );
        assert_eq!(
            yaml_trace.settings.downscale_stabilization_window,
            Duration(250)
        );
    }

    #[test]
    fn decimal_text() {
        let d = |t: &str| Decimal::parse(t).map(|d| (d.negative, d.digits, d.exp10));
        assert_eq!(d("0.1"), Some((false, "1".into(), -1)));
        assert_eq!(d("-120.500e2"), Some((true, "1205".into(), 1)));
        assert_eq!(d("+.5"), Some((false, "5".into(), -1)));
        assert_eq!(d("1."), Some((false, "1".into(), 0)));
        assert_eq!(d("000"), Some((false, String::new(), 0)));
        assert_eq!(d("1E+3"), Some((false, "1".into(), 3)));
        for bad in [
            "", ".", "-", "e3", "1e", "1.2.3", "0x10", "1_000", " 1", "inf",
        ] {
            assert_eq!(d(bad), None, "{bad:?}");
        }
    }
}
