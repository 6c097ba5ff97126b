//! Loads from Prometheus: the JSON its HTTP API returns for a range query
//! (`/api/v1/query_range`), as a [`Load`] for `hpa simulate`.
//!
//! ```text
//! {"status": "success",
//!  "data": {"resultType": "matrix",
//!           "result": [{"metric": {"pod": "web-1"}, "values": [[1700000000, "0.25"], ...]},
//!                      ...]}}
//! ```
//!
//! * The whole response, or only its `data` object (as `jq .data` leaves it). A response with
//!   `"status": "error"` is refused with its `errorType` and `error`; other fields (`warnings`,
//!   `infos`, `stats`) are ignored. The result type must be `matrix` (a range query).
//! * Each load column comes from a `--series NAME=EXPR` (see [`SeriesSpec`]): the series that
//!   match EXPR's label matchers, combined at each timestamp by its aggregation. Without one,
//!   the result must hold exactly one series, which becomes the only column.
//! * Timestamps are Unix seconds (at most millisecond precision, as Prometheus writes them).
//!   The run lasts from the earliest timestamp to the latest.
//! * Values are the strings Prometheus writes, read as quantities in the metric's unit (as a
//!   CSV load's values, [`crate::csv_load`]); `NaN`, infinities and negative values are
//!   refused, naming the series and the time (filter them out in the query).
//! * An aggregation combines, at a timestamp, the matching series that have a sample there, as
//!   PromQL's aggregations do; a column's value between its own timestamps is interpolated
//!   linearly, as a CSV load's is between rows.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};

use crate::csv_load::{self, Load, LoadError};
use crate::trace::source::check_nesting;
use crate::trace::Format;

/// How the matching series of a column combine at a timestamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aggregation {
    /// Exactly one series must match.
    Single,
    /// Their sum (saturating).
    Sum,
    /// Their largest value.
    Max,
    /// Their smallest value.
    Min,
    /// Their mean, rounded to the nearest milli-unit (halves away from zero).
    Avg,
}

/// The option that chose a column's series, as messages name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeriesOption {
    /// `--series NAME=EXPR`: the columns of a load.
    Load,
    /// `--replicas-series EXPR`: the one column of a recording of replica counts
    /// (`hpa_cli::recorded`, with the `cli` feature).
    Replicas,
}

impl SeriesOption {
    /// The option.
    pub(crate) fn flag(self) -> &'static str {
        match self {
            SeriesOption::Load => "--series",
            SeriesOption::Replicas => "--replicas-series",
        }
    }

    /// The option and, for a load, the column: `--series cpu`.
    fn naming(self, spec: &SeriesSpec) -> String {
        match self {
            SeriesOption::Load => format!("--series {}", spec.name),
            SeriesOption::Replicas => self.flag().to_owned(),
        }
    }

    /// The option's value for a sum over `selector`.
    fn sum_of(self, spec: &SeriesSpec, selector: &str) -> String {
        match self {
            SeriesOption::Load => format!("{}=sum({selector})", spec.name),
            SeriesOption::Replicas => format!("sum({selector})"),
        }
    }

    /// What to do about a result of several series and no option.
    fn choose(self) -> &'static str {
        match self {
            SeriesOption::Load => {
                "say which feed which metric with --series, such as --series 'cpu=sum({})' for \
                 their sum"
            }
            SeriesOption::Replicas => {
                "say which with --replicas-series, such as --replicas-series \
                 'sum({deployment=\"web\"})' for the sum of one Deployment's"
            }
        }
    }
}

/// One label matcher: `label="value"` or `label!="value"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matcher {
    /// The label name.
    pub label: String,
    /// The value compared with (a missing label has the value `""`, as in PromQL).
    pub value: String,
    /// `!=` instead of `=`.
    pub negated: bool,
}

/// A load column from a Prometheus result: `NAME=EXPR`, where EXPR is a selector such as
/// `{pod="web-1"}` (exactly one series must match), an aggregation of one such as
/// `sum({deployment="web"})`, or an aggregation alone (`sum`: every series). Aggregations:
/// `sum`, `max`, `min`, `avg`. Matchers: `=` and `!=` with double-quoted values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeriesSpec {
    /// The column's name: the metric it feeds (as a CSV load's header names it).
    pub name: String,
    /// How the matching series combine.
    pub aggregation: Aggregation,
    /// Every matcher must hold (none: every series matches).
    pub matchers: Vec<Matcher>,
}

impl SeriesSpec {
    /// Parses `NAME=EXPR`.
    ///
    /// # Errors
    ///
    /// What is wrong with the text, naming it.
    pub fn parse(text: &str) -> Result<SeriesSpec, String> {
        let problem = |why: &str| format!("invalid series {text:?}: {why}");
        let (name, expr) = text
            .split_once('=')
            .ok_or_else(|| problem("expected NAME=EXPR, such as cpu=sum({deployment=\"web\"})"))?;
        let name = name.trim();
        if name.is_empty() {
            return Err(problem("the column name before `=` is empty"));
        }
        if name.eq_ignore_ascii_case("time") || name.contains(',') {
            return Err(problem(
                "a column may not be named `time` or contain a comma",
            ));
        }
        let expr = expr.trim();
        let head_end = expr
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(expr.len());
        let (head, rest) = expr.split_at(head_end);
        let aggregation = match head {
            "" => Aggregation::Single,
            "sum" => Aggregation::Sum,
            "max" => Aggregation::Max,
            "min" => Aggregation::Min,
            "avg" => Aggregation::Avg,
            other => {
                return Err(problem(&format!(
                    "unknown aggregation `{other}`: expected sum, max, min or avg"
                )))
            }
        };
        let rest = rest.trim();
        let selector = if aggregation == Aggregation::Single {
            rest
        } else if rest.is_empty() {
            "{}"
        } else {
            rest.strip_prefix('(')
                .and_then(|r| r.strip_suffix(')'))
                .map(str::trim)
                .ok_or_else(|| problem(&format!("expected {head}({{...}}) or {head} alone")))?
        };
        let matchers = parse_selector(selector).map_err(|why| problem(&why))?;
        Ok(SeriesSpec {
            name: name.to_owned(),
            aggregation,
            matchers,
        })
    }

    fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.matchers.iter().all(|m| {
            let value = labels.get(&m.label).map_or("", String::as_str);
            (value == m.value) != m.negated
        })
    }
}

/// `{}` or `{a="x", b!="y"}` (a trailing comma allowed, as in PromQL).
fn parse_selector(text: &str) -> Result<Vec<Matcher>, String> {
    let inner = text
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .ok_or_else(|| "expected a selector in braces, such as {pod=\"web-1\"}".to_owned())?;
    let mut matchers = Vec::new();
    let mut rest = inner.trim_start();
    while !rest.is_empty() {
        let label_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let (label, after) = rest.split_at(label_end);
        if label.is_empty() || label.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(format!("expected a label name at {rest:?}"));
        }
        let after = after.trim_start();
        let (negated, after) = if let Some(a) = after.strip_prefix("!=") {
            (true, a)
        } else if after.starts_with("=~") || after.starts_with("!~") {
            return Err(
                "regular-expression matchers (=~, !~) are not supported: use = or !=".to_owned(),
            );
        } else if let Some(a) = after.strip_prefix('=') {
            (false, a)
        } else {
            return Err(format!("expected = or != after the label `{label}`"));
        };
        let (value, after) = quoted(after.trim_start())
            .ok_or_else(|| format!("expected a double-quoted value for the label `{label}`"))?;
        matchers.push(Matcher {
            label: label.to_owned(),
            value,
            negated,
        });
        let after = after.trim_start();
        rest = match after.strip_prefix(',') {
            Some(a) => a.trim_start(),
            None if after.is_empty() => after,
            None => return Err(format!("expected `,` or `}}` at {after:?}")),
        };
    }
    Ok(matchers)
}

/// A double-quoted string with `\"` and `\\` escapes at the start of `text`, and what follows.
fn quoted(text: &str) -> Option<(String, &str)> {
    let body = text.strip_prefix('"')?;
    let mut value = String::new();
    let mut chars = body.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return Some((value, body.get(at.saturating_add(1)..)?)),
            '\\' => value.push(chars.next()?.1),
            c => value.push(c),
        }
    }
    None
}

/// A response, or its `data` object alone.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Document {
    status: Option<String>,
    error_type: Option<String>,
    error: Option<String>,
    data: Option<Data>,
    result_type: Option<String>,
    result: Option<Vec<Series>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Data {
    result_type: String,
    result: Vec<Series>,
}

#[derive(Deserialize)]
struct Series {
    #[serde(default)]
    metric: BTreeMap<String, String>,
    #[serde(default)]
    values: Vec<(Millis, Sample)>,
}

/// A timestamp (Unix seconds as a JSON number) in milliseconds.
#[derive(Clone, Copy)]
struct Millis(i64);

impl<'de> Deserialize<'de> for Millis {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let number = serde_json::Number::deserialize(deserializer)?;
        csv_load::parse_seconds(&number.to_string())
            .map(Millis)
            .map_err(|why| D::Error::custom(format!("timestamp: {why}")))
    }
}

/// A sample value (a string, as Prometheus writes it) in milli-units, or why not.
#[derive(Clone)]
enum Sample {
    Milli(i64),
    Refused(String),
}

impl<'de> Deserialize<'de> for Sample {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        // Checked later, where the series and the time can be named.
        Ok(match text.as_str() {
            "NaN" | "+Inf" | "-Inf" | "Inf" => Sample::Refused(format!("{text} is not a demand")),
            _ => match csv_load::parse_demand(&text) {
                Ok(milli) => Sample::Milli(milli),
                Err(why) => Sample::Refused(why),
            },
        })
    }
}

/// A series' labels as PromQL prints them: `{pod="web-1"}`.
struct Labels<'a>(&'a BTreeMap<String, String>);

impl fmt::Display for Labels<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (k, (label, value)) in self.0.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{label}={value:?}")?;
        }
        f.write_str("}")
    }
}

/// Parses a range-query result and builds one column per spec (none: the only series).
///
/// # Errors
///
/// A [`LoadError`] naming the file and, for a value, the series and its time.
pub fn parse(text: &str, name: &str, specs: &[SeriesSpec]) -> Result<Load, LoadError> {
    parse_for(text, name, specs, SeriesOption::Load)
}

/// [`parse`], with messages naming `option` as the one that chose the series.
///
/// # Errors
///
/// As [`parse`].
pub fn parse_for(
    text: &str,
    name: &str,
    specs: &[SeriesSpec],
    option: SeriesOption,
) -> Result<Load, LoadError> {
    let error = |message: String| LoadError {
        file: name.to_owned(),
        line: None,
        message,
    };
    check_nesting(text, Format::Json).map_err(|e| error(e.to_string()))?;
    let document: Document = {
        let mut json = serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(&mut json).map_err(|e| {
            error(format!(
                "not a Prometheus range-query result: {e} (expected {{\"status\": \"success\", \
                 \"data\": {{\"resultType\": \"matrix\", \"result\": [...]}}}})"
            ))
        })?
    };
    if let Some(status) = &document.status {
        if status != "success" {
            return Err(error(format!(
                "the query failed: status {status:?}, errorType {:?}, error {:?}",
                document.error_type.as_deref().unwrap_or(""),
                document.error.as_deref().unwrap_or("")
            )));
        }
    }
    let (result_type, result) =
        match (document.data, document.result_type, document.result) {
            (Some(data), _, _) => (data.result_type, data.result),
            (None, Some(result_type), Some(result)) => (result_type, result),
            _ => return Err(error(
                "no `data` object with `resultType` and `result`: not a Prometheus query result"
                    .to_owned(),
            )),
        };
    if result_type != "matrix" {
        return Err(error(format!(
            "resultType {result_type:?}: a load needs a range query's \"matrix\" \
             (/api/v1/query_range, not /api/v1/query)"
        )));
    }
    let default_spec;
    let specs = if specs.is_empty() {
        if result.len() != 1 {
            return Err(error(format!(
                "the result holds {} series: {}",
                result.len(),
                option.choose()
            )));
        }
        let column = result
            .first()
            .and_then(|s| s.metric.get("__name__"))
            .map_or("value", String::as_str);
        default_spec = [SeriesSpec {
            name: column.to_owned(),
            aggregation: Aggregation::Single,
            matchers: Vec::new(),
        }];
        &default_spec[..]
    } else {
        specs
    };
    for (k, spec) in specs.iter().enumerate() {
        if specs.iter().take(k).any(|other| other.name == spec.name) {
            return Err(error(format!(
                "two --series name the column `{}`",
                spec.name
            )));
        }
    }
    let mut columns = Vec::with_capacity(specs.len());
    for spec in specs {
        columns.push(column(spec, &result, option).map_err(error)?);
    }
    let mut times: Vec<i64> = columns
        .iter()
        .flat_map(|(t, _)| t.iter().copied())
        .collect();
    times.sort_unstable();
    times.dedup();
    match (times.first(), times.last()) {
        (Some(first), Some(last)) if last > first => {}
        _ => {
            return Err(error(
                "needs samples at two different times at least (the run lasts from the first \
                 timestamp to the last)"
                    .to_owned(),
            ))
        }
    }
    let series = columns
        .iter()
        .map(|(t, v)| csv_load::resample_series(t, v, &times))
        .collect();
    Ok(Load {
        name: name.to_owned(),
        columns: specs.iter().map(|s| s.name.clone()).collect(),
        times,
        series,
    })
}

/// One column's `(times, values)`: its matching series combined at each of their timestamps.
fn column(
    spec: &SeriesSpec,
    result: &[Series],
    option: SeriesOption,
) -> Result<(Vec<i64>, Vec<i64>), String> {
    let matching: Vec<&Series> = result.iter().filter(|s| spec.matches(&s.metric)).collect();
    let selector = || {
        let matchers: Vec<String> = spec
            .matchers
            .iter()
            .map(|m| {
                let op = if m.negated { "!=" } else { "=" };
                format!("{}{op}{:?}", m.label, m.value)
            })
            .collect();
        format!("{{{}}}", matchers.join(", "))
    };
    if matching.is_empty() {
        return Err(format!(
            "{}: no series matches {} (the result has {} series)",
            option.naming(spec),
            selector(),
            result.len()
        ));
    }
    if spec.aggregation == Aggregation::Single && matching.len() > 1 {
        return Err(format!(
            "{}: {} series match {}; combine them with sum, max, min or avg, such as {}",
            option.naming(spec),
            matching.len(),
            selector(),
            option.sum_of(spec, &selector())
        ));
    }
    // (time, value, series count) summed per time; max/min kept as they come.
    let mut at: BTreeMap<i64, (i64, i64)> = BTreeMap::new();
    for series in &matching {
        for (time, sample) in &series.values {
            let milli = match sample {
                Sample::Milli(milli) => *milli,
                Sample::Refused(why) => {
                    return Err(format!(
                        "series {} at {}: {why}",
                        Labels(&series.metric),
                        csv_load::Seconds(time.0)
                    ))
                }
            };
            let entry = at.entry(time.0).or_insert((
                match spec.aggregation {
                    Aggregation::Max => i64::MIN,
                    Aggregation::Min => i64::MAX,
                    _ => 0,
                },
                0,
            ));
            entry.0 = match spec.aggregation {
                Aggregation::Max => entry.0.max(milli),
                Aggregation::Min => entry.0.min(milli),
                Aggregation::Single | Aggregation::Sum | Aggregation::Avg => {
                    entry.0.saturating_add(milli)
                }
            };
            entry.1 = entry.1.saturating_add(1);
        }
    }
    let times = at.keys().copied().collect();
    let values = at
        .values()
        .map(|&(value, count)| match spec.aggregation {
            Aggregation::Avg => mean(value, count),
            _ => value,
        })
        .collect();
    Ok((times, values))
}

/// `sum / count` rounded to the nearest, halves up (`sum` is non-negative, `count` positive).
fn mean(sum: i64, count: i64) -> i64 {
    let (quotient, remainder) = (sum.checked_div(count), sum.checked_rem(count));
    match (quotient, remainder) {
        (Some(q), Some(r)) if r.saturating_mul(2) >= count => q.saturating_add(1),
        (Some(q), _) => q,
        _ => sum,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> SeriesSpec {
        SeriesSpec::parse(text).unwrap()
    }

    const TWO_PODS: &str = r#"{"status":"success","data":{"resultType":"matrix","result":[
        {"metric":{"pod":"web-1","app":"web"},"values":[[1700000000,"0.5"],[1700000060,"1"],[1700000120,"1.5"]]},
        {"metric":{"pod":"web-2","app":"web"},"values":[[1700000060,"0.25"],[1700000120,"0.75"]]},
        {"metric":{"queue":"orders"},"values":[[1700000000,"120"],[1700000120,"1e+03"]]}
    ]},"warnings":["ignored"]}"#;

    #[test]
    fn specs_parse() {
        assert_eq!(
            spec(r#"cpu=sum({app="web", pod!="web-\"3\""})"#),
            SeriesSpec {
                name: "cpu".to_owned(),
                aggregation: Aggregation::Sum,
                matchers: vec![
                    Matcher {
                        label: "app".to_owned(),
                        value: "web".to_owned(),
                        negated: false
                    },
                    Matcher {
                        label: "pod".to_owned(),
                        value: "web-\"3\"".to_owned(),
                        negated: true
                    },
                ],
            }
        );
        assert_eq!(spec("cpu=max").matchers, []);
        assert_eq!(
            spec("q = {queue=\"orders\",}").aggregation,
            Aggregation::Single
        );
        let err = |t: &str| SeriesSpec::parse(t).unwrap_err();
        assert_eq!(
            err("cpu"),
            "invalid series \"cpu\": expected NAME=EXPR, such as cpu=sum({deployment=\"web\"})"
        );
        assert!(err("cpu=median").contains("unknown aggregation `median`"));
        assert!(err(r#"cpu={pod=~"web.*"}"#).contains("regular-expression matchers"));
        assert!(err(r#"cpu={pod="web}"#).contains("double-quoted value"));
        assert!(err("cpu=sum{}").contains("expected sum({...}) or sum alone"));
        assert!(err("time=sum").contains("`time`"));
        assert!(err(r#"cpu={pod="a" app="b"}"#).contains("expected `,` or `}`"));
    }

    #[test]
    fn columns_combine_and_interpolate() {
        let load = parse(
            TWO_PODS,
            "q.json",
            &[
                spec(r#"cpu=sum({app="web"})"#),
                spec(r#"queue={queue="orders"}"#),
            ],
        )
        .unwrap();
        assert_eq!(load.columns, ["cpu", "queue"]);
        assert_eq!(
            load.times,
            [1_700_000_000_000, 1_700_000_060_000, 1_700_000_120_000]
        );
        // web-2 has no sample at the first time: the sum holds web-1 alone there.
        assert_eq!(load.series[0], [500, 1250, 2250]);
        // The queue's middle value is interpolated between its own two samples.
        assert_eq!(load.series[1], [120_000, 560_000, 1_000_000]);
        let max = parse(TWO_PODS, "q.json", &[spec(r#"cpu=max({app="web"})"#)]).unwrap();
        assert_eq!(max.series[0], [500, 1000, 1500]);
        let avg = parse(TWO_PODS, "q.json", &[spec(r#"cpu=avg({app!=""})"#)]).unwrap();
        // (1000 + 250) / 2 = 625; (1500 + 750) / 2 = 1125.
        assert_eq!(avg.series[0], [500, 625, 1125]);
        let min = parse(TWO_PODS, "q.json", &[spec(r#"cpu=min({app="web"})"#)]).unwrap();
        assert_eq!(min.series[0], [500, 250, 750]);
    }

    #[test]
    fn one_series_needs_no_spec() {
        let text =
            r#"{"resultType":"matrix","result":[{"metric":{},"values":[[0,"1"],[15.5,"2"]]}]}"#;
        let load = parse(text, "q.json", &[]).unwrap();
        assert_eq!(load.columns, ["value"]);
        assert_eq!(load.times, [0, 15_500]);
        assert_eq!(load.series, [vec![1000, 2000]]);
    }

    #[test]
    fn errors_say_what_and_where() {
        let err = |text: &str, specs: &[SeriesSpec]| {
            parse(text, "q.json", specs).unwrap_err().to_string()
        };
        assert_eq!(
            err(TWO_PODS, &[]),
            "q.json: the result holds 3 series: say which feed which metric with --series, such \
             as --series 'cpu=sum({})' for their sum"
        );
        assert_eq!(
            err(TWO_PODS, &[spec(r#"cpu={app="web"}"#)]),
            "q.json: --series cpu: 2 series match {app=\"web\"}; combine them with sum, max, min \
             or avg, such as cpu=sum({app=\"web\"})"
        );
        assert_eq!(
            err(TWO_PODS, &[spec(r#"cpu={app="api"}"#)]),
            "q.json: --series cpu: no series matches {app=\"api\"} (the result has 3 series)"
        );
        assert_eq!(
            err(TWO_PODS, &[spec("cpu=sum"), spec("cpu=max")]),
            "q.json: two --series name the column `cpu`"
        );
        assert_eq!(
            err(
                r#"{"status":"error","errorType":"bad_data","error":"parse error"}"#,
                &[]
            ),
            "q.json: the query failed: status \"error\", errorType \"bad_data\", error \"parse error\""
        );
        assert_eq!(
            err(
                r#"{"status":"success","data":{"resultType":"vector","result":[]}}"#,
                &[]
            ),
            "q.json: resultType \"vector\": a load needs a range query's \"matrix\" \
             (/api/v1/query_range, not /api/v1/query)"
        );
        assert_eq!(
            err(
                r#"{"resultType":"matrix","result":[{"metric":{"pod":"a"},"values":[[0,"1"],[15,"NaN"]]}]}"#,
                &[]
            ),
            "q.json: series {pod=\"a\"} at 15: NaN is not a demand"
        );
        assert_eq!(
            err(
                r#"{"resultType":"matrix","result":[{"metric":{},"values":[[0,"1"],[15,"-2"]]}]}"#,
                &[]
            ),
            "q.json: series {} at 15: demand must not be negative, got -2"
        );
        assert!(err(
            r#"{"resultType":"matrix","result":[{"metric":{},"values":[[0.0001,"1"]]}]}"#,
            &[]
        )
        .starts_with("q.json: not a Prometheus range-query result: result[0].values[0][0]: timestamp: invalid time"));
        assert_eq!(
            err(
                r#"{"resultType":"matrix","result":[{"metric":{},"values":[[0,"1"]]}]}"#,
                &[]
            ),
            "q.json: needs samples at two different times at least (the run lasts from the \
             first timestamp to the last)"
        );
        assert!(err("{", &[]).starts_with("q.json: not a Prometheus range-query result:"));
    }
}
