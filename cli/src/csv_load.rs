//! Load files for `hpa simulate`: a CSV time series of demand, or a Prometheus range-query
//! result ([`crate::prometheus_load`]: a file whose first character, blanks aside, is `{`).
//!
//! ```text
//! # comment lines and blank lines are skipped
//! time,cpu,queue_length
//! 0,2.5,0
//! 60,3,120
//! 120,500m,40
//! ```
//!
//! * The first line that is not blank or a comment is the header. Its first column is `time`;
//!   every other column is a demand series, named after the metric it feeds (see
//!   `simulate::map_columns`). Names are unique.
//! * `time` is in seconds (a decimal number with at most 3 fractional digits); rows are in
//!   non-decreasing time order. Two rows with the same time make a jump: before that time the
//!   series interpolates toward the first of them, from that time on it starts from the second.
//! * Demand values are non-negative Kubernetes quantities in the metric's unit: `2.5`, `500m`,
//!   `2Gi`, `1e3`. Between rows, demand is interpolated linearly (in milli-units, rounded to
//!   the nearest); the run lasts from the first row's time to the last row's.
//! * Fields are separated by commas and trimmed; a field may be wrapped in double quotes (as
//!   spreadsheets export headers), without commas or quotes inside.
//!
//! Every error names the file, the line and, for a value, the column.

use std::fmt;
use std::path::Path;

use hpa::Quantity;

use crate::prometheus_load::{self, SeriesOption, SeriesSpec};
use crate::trace::source::{read_text, MAX_DATA_BYTES};

/// A checked load: times in milliseconds and demand series in milli-units.
#[derive(Clone, Debug)]
pub struct Load {
    /// The file name as given (for messages and labels).
    pub name: String,
    /// Demand column names, in file order (without `time`).
    pub columns: Vec<String>,
    /// Row times in milliseconds, non-decreasing.
    pub times: Vec<i64>,
    /// `series[c][r]`: demand of column `c` at row `r`, in milli-units.
    pub series: Vec<Vec<i64>>,
}

/// Why a load was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    /// The file as given.
    pub file: String,
    /// 1-based line number, when the error concerns one line.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for LoadError {}

/// Reads and checks the load at `path` (`-`: standard input), at most
/// [`MAX_DATA_BYTES`] long: a Prometheus range-query result when its first character (blanks
/// aside) is `{`, with one column per `series` (see [`SeriesSpec`]), else a CSV load, which
/// names its own columns (`series` must then be empty).
///
/// # Errors
///
/// A [`LoadError`] naming the file and the line at fault.
pub fn load(path: &Path, series: &[SeriesSpec]) -> Result<Load, LoadError> {
    load_for(path, series, SeriesOption::Load)
}

/// [`load`], with messages naming `option` as the one that chose a Prometheus result's series.
///
/// # Errors
///
/// As [`load`].
pub fn load_for(
    path: &Path,
    series: &[SeriesSpec],
    option: SeriesOption,
) -> Result<Load, LoadError> {
    let (name, text) = read_text(path, MAX_DATA_BYTES).map_err(|e| LoadError {
        file: e.name,
        line: None,
        message: if e.io {
            format!("cannot read the file: {}", e.problem)
        } else {
            e.problem
        },
    })?;
    if text.trim_start().starts_with('{') {
        return prometheus_load::parse_for(&text, &name, series, option);
    }
    if !series.is_empty() {
        return Err(LoadError {
            file: name,
            line: None,
            message: format!(
                "{} applies to a Prometheus range-query result (JSON); a CSV file names its \
                 columns in its header",
                option.flag()
            ),
        });
    }
    parse(&text, &name)
}

/// Splits a line into trimmed fields, removing one pair of surrounding double quotes.
fn fields(line: &str) -> Result<Vec<&str>, String> {
    line.split(',')
        .map(|f| {
            let f = f.trim();
            let inner = match f.strip_prefix('"') {
                Some(rest) => rest
                    .strip_suffix('"')
                    .ok_or_else(|| format!("unterminated quote in field {f:?}"))?,
                None => f,
            };
            if inner.contains('"') {
                return Err(format!(
                    "quotes inside a field are not supported, in field {f:?}"
                ));
            }
            Ok(inner.trim())
        })
        .collect()
}

/// Seconds as a decimal number (`15`, `1.5`, `-3.25`) in milliseconds.
pub(crate) fn parse_seconds(text: &str) -> Result<i64, String> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && frac.is_empty()) || !all_digits(whole) || !all_digits(frac) {
        return Err(format!(
            "invalid time {text:?}: expected seconds, such as 15 or 1.5"
        ));
    }
    if frac.len() > 3 {
        return Err(format!(
            "invalid time {text:?}: at most 3 fractional digits (milliseconds)"
        ));
    }
    let too_large = || format!("time {text:?} is too large");
    let whole: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| too_large())?
    };
    let frac_ms: i64 = format!("{frac:0<3}").parse().map_err(|_| too_large())?;
    let ms = whole
        .checked_mul(1000)
        .and_then(|w| w.checked_add(frac_ms))
        .ok_or_else(too_large)?;
    Ok(if negative { ms.saturating_neg() } else { ms })
}

/// A non-negative demand quantity in milli-units.
pub(crate) fn parse_demand(text: &str) -> Result<i64, String> {
    if text.is_empty() {
        return Err("empty value".to_owned());
    }
    let q = Quantity::parse(text).map_err(|e| format!("invalid quantity {text:?}: {e}"))?;
    if q.signum() < 0 {
        return Err(format!("demand must not be negative, got {text}"));
    }
    Ok(q.milli_value())
}

/// Parses and checks a load document; `name` labels errors.
///
/// # Errors
///
/// A [`LoadError`] naming the line at fault.
pub fn parse(text: &str, name: &str) -> Result<Load, LoadError> {
    let error = |line: Option<usize>, message: String| LoadError {
        file: name.to_owned(),
        line,
        message,
    };
    let mut header: Option<Vec<String>> = None;
    let mut times = Vec::new();
    let mut series: Vec<Vec<i64>> = Vec::new();
    for (index, raw_line) in text.lines().enumerate() {
        let line_no = index.saturating_add(1);
        let line = raw_line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let row = fields(line).map_err(|m| error(Some(line_no), m))?;
        let Some(columns) = &header else {
            let (first, rest) = row.split_first().unwrap_or((&"", &[]));
            if !first.eq_ignore_ascii_case("time") {
                return Err(error(
                    Some(line_no),
                    format!("the header's first column must be `time` (seconds), found `{first}`"),
                ));
            }
            if rest.is_empty() {
                return Err(error(
                    Some(line_no),
                    "the header names no demand column after `time`".to_owned(),
                ));
            }
            let mut names: Vec<String> = Vec::with_capacity(rest.len());
            for (k, column) in rest.iter().enumerate() {
                if column.is_empty() {
                    return Err(error(
                        Some(line_no),
                        format!("column {} of the header has no name", k.saturating_add(2)),
                    ));
                }
                if column.eq_ignore_ascii_case("time") || names.iter().any(|n| n == column) {
                    return Err(error(
                        Some(line_no),
                        format!("duplicate column name `{column}`"),
                    ));
                }
                names.push((*column).to_owned());
            }
            series = vec![Vec::new(); names.len()];
            header = Some(names);
            continue;
        };
        let (time, values) = row.split_first().unwrap_or((&"", &[]));
        if values.len() != columns.len() {
            return Err(error(
                Some(line_no),
                format!(
                    "expected {} fields (time,{}), found {}",
                    columns.len().saturating_add(1),
                    columns.join(","),
                    row.len()
                ),
            ));
        }
        let at =
            parse_seconds(time).map_err(|m| error(Some(line_no), format!("column `time`: {m}")))?;
        if let Some(&previous) = times.last() {
            if at < previous {
                return Err(error(
                    Some(line_no),
                    format!(
                        "time {} is earlier than the previous row's {}: rows must be in time order",
                        time,
                        Seconds(previous)
                    ),
                ));
            }
        }
        times.push(at);
        for ((field, column), values) in values.iter().zip(columns).zip(&mut series) {
            let value = parse_demand(field)
                .map_err(|m| error(Some(line_no), format!("column `{column}`: {m}")))?;
            values.push(value);
        }
    }
    let Some(columns) = header else {
        return Err(error(
            None,
            "no header: the first line must be `time,<demand column>...`".to_owned(),
        ));
    };
    match (times.first(), times.last()) {
        (Some(first), Some(last)) if last > first => {}
        _ => {
            return Err(error(
                None,
                "needs at least two rows with different times (the run lasts from the first \
                 row's time to the last row's)"
                    .to_owned(),
            ))
        }
    }
    Ok(Load {
        name: name.to_owned(),
        columns,
        times,
        series,
    })
}

/// Milliseconds printed as seconds (`15`, `1.5`).
pub(crate) struct Seconds(pub(crate) i64);

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0;
        let sign = if ms < 0 { "-" } else { "" };
        let abs = ms.unsigned_abs();
        if abs.is_multiple_of(1000) {
            write!(f, "{sign}{}", abs / 1000)
        } else {
            let frac = format!("{:03}", abs % 1000);
            write!(f, "{sign}{}.{}", abs / 1000, frac.trim_end_matches('0'))
        }
    }
}

impl Load {
    /// The first row's time (ms).
    pub fn start(&self) -> i64 {
        self.times.first().copied().unwrap_or(0)
    }

    /// The last row's time (ms).
    pub fn end(&self) -> i64 {
        self.times.last().copied().unwrap_or(0)
    }

    /// Every column sampled at each of `at` (ms, non-decreasing), linearly interpolated:
    /// `demand[c][k]` is column `c` at `at[k]`.
    pub fn resample(&self, at: &[i64]) -> Vec<Vec<i64>> {
        self.series
            .iter()
            .map(|values| resample_series(&self.times, values, at))
            .collect()
    }
}

/// One series of `(time, value)` rows sampled at each of `at`. Before the first row, its
/// value; after the last, the last's; at a time several rows share, the last of them.
pub(crate) fn resample_series(times: &[i64], values: &[i64], at: &[i64]) -> Vec<i64> {
    let mut rows = times.iter().copied().zip(values.iter().copied());
    let Some(first) = rows.next() else {
        // A parsed load has rows; nothing to sample otherwise.
        return vec![0; at.len()];
    };
    let mut rows = rows.peekable();
    // The last row whose time is <= t.
    let mut current = first;
    let mut out = Vec::with_capacity(at.len());
    for &t in at {
        while let Some(row) = rows.next_if(|row| row.0 <= t) {
            current = row;
        }
        let value = match rows.peek() {
            _ if t <= first.0 => first.1,
            Some(&next) if current.0 != t => interpolate(current, next, t),
            _ => current.1,
        };
        out.push(value);
    }
    out
}

/// The value at `t` on the line from `(t0, v0)` to `(t1, v1)`, `t0 < t < t1`, rounded to the
/// nearest milli-unit, halves away from zero. It lies between `v0` and `v1`, and every
/// intermediate fits in i128 for i64 inputs: `|v1 - v0| × (t - t0) < 2^63 × 2^64`.
fn interpolate((t0, v0): (i64, i64), (t1, v1): (i64, i64), t: i64) -> i64 {
    let step = || {
        let num = i128::from(v1)
            .checked_sub(i128::from(v0))?
            .checked_mul(i128::from(t).checked_sub(i128::from(t0))?)?;
        let den = i128::from(t1).checked_sub(i128::from(t0))?;
        let (quotient, remainder) = (num.checked_div(den)?, num.checked_rem(den)?);
        let half_or_more = remainder.unsigned_abs().checked_mul(2)? >= den.unsigned_abs();
        quotient.checked_add(if half_or_more { num.signum() } else { 0 })
    };
    step()
        .and_then(|step| i64::try_from(i128::from(v0).checked_add(step)?).ok())
        .unwrap_or(v0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse(text, "load.csv").unwrap_err().to_string()
    }

    #[test]
    fn parses_and_interpolates() {
        let load = parse(
            "# a spike\n\ntime, cpu ,\"queue\"\n0,1,0\n60,3,500m\n60,10,1\r\n120,10,2Gi\n",
            "l.csv",
        )
        .unwrap();
        assert_eq!(load.columns, ["cpu", "queue"]);
        assert_eq!(load.times, [0, 60_000, 60_000, 120_000]);
        assert_eq!(
            load.series[1],
            [0, 500, 1000, 2 * 1024 * 1024 * 1024 * 1000]
        );
        // 1 -> 3 over the first minute, then the jump to 10 at 60 s.
        let at = [0, 15_000, 30_000, 59_999, 60_000, 90_000, 120_000, 130_000];
        assert_eq!(
            load.resample(&at)[0],
            [1000, 1500, 2000, 3000, 10_000, 10_000, 10_000, 10_000]
        );
        assert_eq!(load.start(), 0);
        assert_eq!(load.end(), 120_000);
    }

    /// Rows at the integer limits interpolate without overflow (the products take i128's
    /// whole range), rounded to the nearest.
    #[test]
    fn interpolation_at_the_integer_limits() {
        let load = Load {
            name: "l.csv".to_owned(),
            columns: vec!["cpu".to_owned()],
            times: vec![i64::MIN, i64::MAX],
            series: vec![vec![0, i64::MAX]],
        };
        assert_eq!(
            load.resample(&[i64::MIN, 0, i64::MAX - 1, i64::MAX]),
            [vec![0, 4_611_686_018_427_387_904, i64::MAX, i64::MAX]]
        );
        let falling = Load {
            series: vec![vec![i64::MAX, 0]],
            ..load
        };
        assert_eq!(
            falling.resample(&[0]),
            [vec![i64::MAX - 4_611_686_018_427_387_904]]
        );
    }

    #[test]
    fn times_in_seconds() {
        assert_eq!(parse_seconds("1.5"), Ok(1500));
        assert_eq!(parse_seconds(".25"), Ok(250));
        assert_eq!(parse_seconds("-2"), Ok(-2000));
        assert!(parse_seconds("1.2345").is_err());
        assert!(parse_seconds("1e3").is_err());
        assert!(parse_seconds("").is_err());
    }

    #[test]
    fn errors_name_the_line_and_column() {
        assert_eq!(
            err("t,cpu\n0,1\n"),
            "load.csv:1: the header's first column must be `time` (seconds), found `t`"
        );
        assert_eq!(
            err("time,cpu\n0,1\n15\n"),
            "load.csv:3: expected 2 fields (time,cpu), found 1"
        );
        assert_eq!(
            err("time,cpu\n0,1\n15,abc\n"),
            "load.csv:3: column `cpu`: invalid quantity \"abc\": quantities must match the \
             regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        );
        assert_eq!(
            err("time,cpu\n0,1\n15,-1\n"),
            "load.csv:3: column `cpu`: demand must not be negative, got -1"
        );
        assert_eq!(
            err("time,cpu\n30,1\n# comment\n15,1\n"),
            "load.csv:4: time 15 is earlier than the previous row's 30: rows must be in time order"
        );
        assert_eq!(
            err("time,cpu,cpu\n"),
            "load.csv:1: duplicate column name `cpu`"
        );
        assert_eq!(
            err("time,cpu\n0,1\n"),
            "load.csv: needs at least two rows with different times (the run lasts from the \
             first row's time to the last row's)"
        );
        assert_eq!(
            err("# nothing\n"),
            "load.csv: no header: the first line must be `time,<demand column>...`"
        );
        assert_eq!(
            err("time\n"),
            "load.csv:1: the header names no demand column after `time`"
        );
        assert_eq!(
            err("time,cpu\n0,\"1\n"),
            "load.csv:2: unterminated quote in field \"\\\"1\""
        );
        assert_eq!(
            err("time,cpu\n0,\n"),
            "load.csv:2: column `cpu`: empty value"
        );
    }
}
