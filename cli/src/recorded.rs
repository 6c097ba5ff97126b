//! Replica counts recorded from a cluster (`hpa simulate --replicas FILE`), set beside what
//! the simulated HPA did on the same load: what the cluster's HPA actually did, compared with
//! what this manifest (or another, `--compare`) would have done.
//!
//! * The file is a CSV with `time` and one column of counts, or a Prometheus range-query
//!   result (such as `kube_deployment_status_replicas` or
//!   `kube_horizontalpodautoscaler_status_current_replicas` from kube-state-metrics), read by
//!   the load's readers ([`crate::csv_load`]); with several series, `--replicas-series EXPR`
//!   chooses or combines them as `--series` does for a load.
//! * Its times are on the load's clock: both from the same Prometheus (Unix times) or both
//!   CSV files counting from the same start. Counts are whole and at least 0.
//! * A count holds from its sample to the next one (counts step, they are not interpolated);
//!   the comparison covers the evaluations from the recording's first sample to its last, and
//!   counts both series at those evaluations: pod-hours, scale events, direction reversals,
//!   and how far and how long the simulated count differs from the recorded one.

use std::path::Path;

use crate::csv_load::{self, Load};
use crate::explain;
use crate::prometheus_load::{SeriesOption, SeriesSpec};
use crate::simulate::{self, Changes, Clock, Run};

/// A recording of replica counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    /// The file as given.
    pub name: String,
    /// Sample times, ms on the load's clock, non-decreasing.
    pub times: Vec<i64>,
    /// The count from each sample on.
    pub replicas: Vec<i32>,
}

/// Reads a recording: `series` is `--replicas-series`'s EXPR, for a Prometheus result.
///
/// # Errors
///
/// A message naming the file and what is wrong with it.
pub fn load(path: &Path, series: Option<&str>) -> Result<Recorded, String> {
    let specs = match series {
        Some(expr) => vec![SeriesSpec::parse(&format!("replicas={expr}"))
            .map_err(|e| format!("--replicas-series: {e}"))?],
        None => Vec::new(),
    };
    let load = csv_load::load_for(path, &specs, SeriesOption::Replicas)
        .map_err(|e| format!("--replicas {e}"))?;
    from_load(load)
}

/// The counts of a recording read as a load (values in milli-units).
fn from_load(load: Load) -> Result<Recorded, String> {
    let Load {
        name,
        columns,
        times,
        series,
    } = load;
    let [values] = series.as_slice() else {
        return Err(format!(
            "--replicas {name}: a recording of replica counts has one column besides `time`; \
             this one has {} ({})",
            columns.len(),
            columns.join(", ")
        ));
    };
    let mut replicas = Vec::with_capacity(values.len());
    for (&time, &milli) in times.iter().zip(values) {
        let count = (milli % 1000 == 0)
            .then(|| i32::try_from(milli / 1000).ok())
            .flatten();
        match count {
            Some(count) if count >= 0 => replicas.push(count),
            _ => {
                return Err(format!(
                    "--replicas {name}: {} at time {}: a replica count is a whole number from 0 \
                     to {}",
                    explain::decimal(milli as f64 / 1000.0, 3),
                    explain::seconds(time),
                    i32::MAX
                ))
            }
        }
    }
    Ok(Recorded {
        name,
        times,
        replicas,
    })
}

impl Recorded {
    /// The count at `t` (ms on the load's clock): the last sample's at or before it, `None`
    /// outside the recording.
    fn at(&self, t: i64) -> Option<i32> {
        let last = *self.times.last()?;
        if t > last {
            return None;
        }
        let after = self.times.partition_point(|&time| time <= t);
        after
            .checked_sub(1)
            .and_then(|i| self.replicas.get(i))
            .copied()
    }
}

/// One series' figures over the evaluations a recording covers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Figures {
    /// Σ pods x period, pod-milliseconds.
    pub pod_ms: i128,
    /// Most pods at an evaluation.
    pub max_pods: i32,
    /// Scale events.
    pub changes: Changes,
}

/// A run set beside a recording.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Comparison {
    /// The simulated counts' figures.
    pub simulated: Figures,
    /// Time at which the simulated count differs from the recorded one, ms.
    pub differ_ms: i64,
    /// Σ |simulated - recorded| x period, pod-milliseconds.
    pub abs_diff_pod_ms: i128,
    /// The difference (simulated - recorded) largest in size, and its first time (ms from
    /// the load's start); `None` when the counts never differ.
    pub largest: Option<(i64, i64)>,
}

/// The evaluations a recording covers: `(step, recorded count)`.
fn covered<'a>(
    recorded: &'a Recorded,
    clock: &'a Clock,
) -> impl Iterator<Item = (usize, i32)> + 'a {
    clock
        .times
        .iter()
        .enumerate()
        .filter_map(move |(k, t)| recorded.at(t.saturating_add(clock.origin)).map(|r| (k, r)))
}

/// The figures of `(count, period length)` at successive evaluations.
fn figures(counts: impl Iterator<Item = (i32, i64)>) -> Figures {
    let mut figures = Figures::default();
    let mut previous: Option<i32> = None;
    for (count, length) in counts {
        figures.pod_ms = figures
            .pod_ms
            .saturating_add(i128::from(count).saturating_mul(i128::from(length)));
        figures.max_pods = figures.max_pods.max(count);
        if let Some(before) = previous.filter(|&before| before != count) {
            figures.changes.record(count > before);
        }
        previous = Some(count);
    }
    figures
}

/// The whole comparison of `runs` (on `clock`) with `recorded`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Covered time, ms.
    pub covered_ms: i64,
    /// From the first covered evaluation to the end of the last one's period, ms from the
    /// load's start.
    pub span: (i64, i64),
    /// The recording's figures.
    pub recorded: Figures,
    /// Per run, in order.
    pub runs: Vec<Comparison>,
}

/// The evaluations `recorded` covers, `(step, recorded count)`, in order.
///
/// # Errors
///
/// When it covers none, saying both time ranges: the run need not start.
pub fn covered_steps(recorded: &Recorded, clock: &Clock) -> Result<Vec<(usize, i32)>, String> {
    let steps: Vec<(usize, i32)> = covered(recorded, clock).collect();
    if steps.is_empty() {
        return Err(format!(
            "--replicas {}: the recording (times {} to {}) covers none of the load's evaluations \
             (times {} to {}): both must be on one clock, Unix times from the same Prometheus \
             or seconds from the same start",
            recorded.name,
            explain::seconds(recorded.times.first().copied().unwrap_or(0)),
            explain::seconds(recorded.times.last().copied().unwrap_or(0)),
            explain::seconds(clock.origin),
            explain::seconds(clock.origin.saturating_add(clock.duration)),
        ));
    }
    Ok(steps)
}

/// Compares each run with the recording over the evaluations it covers.
///
/// # Errors
///
/// As [`covered_steps`].
pub fn compare(recorded: &Recorded, runs: &[Run], clock: &Clock) -> Result<Report, String> {
    let steps = covered_steps(recorded, clock)?;
    let length = |k: usize| clock.lengths.get(k).copied().unwrap_or(0);
    let (first, last) = match (steps.first(), steps.last()) {
        (Some(&(first, _)), Some(&(last, _))) => (first, last),
        _ => (0, 0),
    };
    let at = |k: usize| clock.times.get(k).copied().unwrap_or(0);
    let report = Report {
        covered_ms: steps
            .iter()
            .fold(0_i64, |sum, &(k, _)| sum.saturating_add(length(k))),
        span: (at(first), at(last).saturating_add(length(last))),
        recorded: figures(steps.iter().map(|&(k, r)| (r, length(k)))),
        runs: runs
            .iter()
            .map(|run| {
                let pairs: Vec<(usize, i32, i32)> = steps
                    .iter()
                    .filter_map(|&(k, r)| run.replicas.get(k).map(|&s| (k, r, s)))
                    .collect();
                let mut comparison = Comparison {
                    simulated: figures(pairs.iter().map(|&(k, _, s)| (s, length(k)))),
                    ..Comparison::default()
                };
                for &(k, r, s) in &pairs {
                    let diff = i64::from(s).saturating_sub(i64::from(r));
                    if diff == 0 {
                        continue;
                    }
                    comparison.differ_ms = comparison.differ_ms.saturating_add(length(k));
                    comparison.abs_diff_pod_ms = comparison.abs_diff_pod_ms.saturating_add(
                        i128::from(diff.unsigned_abs()).saturating_mul(i128::from(length(k))),
                    );
                    if comparison
                        .largest
                        .is_none_or(|(d, _)| diff.unsigned_abs() > d.unsigned_abs())
                    {
                        comparison.largest = Some((diff, at(k)));
                    }
                }
                comparison
            })
            .collect(),
    };
    Ok(report)
}

/// The comparison as a table: the recording's column, then each run's.
pub fn table(recorded: &Recorded, report: &Report, runs: &[Run], duration_ms: i64) -> String {
    let mut labels = vec!["recorded"];
    labels.extend(runs.iter().map(|r| r.plan.label.as_str()));
    let all = || std::iter::once(&report.recorded).chain(report.runs.iter().map(|c| &c.simulated));
    let mut rows: Vec<(&str, Vec<String>)> = Vec::new();
    let covered = report.covered_ms.max(1);
    rows.push((
        "pod-hours",
        all()
            .map(|f| explain::decimal(f.pod_ms as f64 / 3_600_000.0, 1))
            .collect(),
    ));
    rows.push((
        "mean pods",
        all()
            .map(|f| explain::decimal(f.pod_ms as f64 / covered as f64, 2))
            .collect(),
    ));
    rows.push(("max pods", all().map(|f| f.max_pods.to_string()).collect()));
    rows.push((
        "scale events",
        all()
            .map(|f| {
                let c = f.changes;
                format!(
                    "{} ({} up, {} down)",
                    c.ups.saturating_add(c.downs),
                    c.ups,
                    c.downs
                )
            })
            .collect(),
    ));
    rows.push((
        "direction reversals",
        all().map(|f| f.changes.reversals.to_string()).collect(),
    ));
    let versus = |cell: &dyn Fn(&Comparison) -> String| -> Vec<String> {
        std::iter::once("-".to_owned())
            .chain(report.runs.iter().map(cell))
            .collect()
    };
    rows.push((
        "time at another count",
        versus(&|c| {
            format!(
                "{} ({})",
                explain::time(c.differ_ms),
                simulate::percent(c.differ_ms, report.covered_ms)
            )
        }),
    ));
    rows.push((
        "mean |difference|",
        versus(&|c| {
            format!(
                "{} pods",
                explain::decimal(c.abs_diff_pod_ms as f64 / covered as f64, 2)
            )
        }),
    ));
    rows.push((
        "largest difference",
        versus(&|c| match c.largest {
            Some((diff, at)) => format!("{diff:+} pods at {}", explain::time(at)),
            None => "none".to_owned(),
        }),
    ));
    let (from, to) = report.span;
    let coverage = if report.covered_ms >= duration_ms {
        "the whole run".to_owned()
    } else {
        format!(
            "{} to {}, {} of the run",
            explain::time(from),
            explain::time(to),
            simulate::percent(report.covered_ms, duration_ms)
        )
    };
    format!(
        "\nRecorded replicas ({}, covering {coverage}), counted at the evaluations:\n{}",
        recorded.name,
        simulate::columns_table(&labels, &rows)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded(points: &[(i64, i32)]) -> Recorded {
        Recorded {
            name: "r.csv".to_owned(),
            times: points.iter().map(|p| p.0).collect(),
            replicas: points.iter().map(|p| p.1).collect(),
        }
    }

    #[test]
    fn counts_step_between_samples() {
        let r = recorded(&[(0, 2), (30_000, 5), (60_000, 3)]);
        assert_eq!(r.at(-1), None);
        assert_eq!(r.at(0), Some(2));
        assert_eq!(r.at(29_999), Some(2));
        assert_eq!(r.at(30_000), Some(5));
        assert_eq!(r.at(60_000), Some(3));
        assert_eq!(r.at(60_001), None);
    }

    #[test]
    fn changes_count_ups_downs_and_reversals() {
        let c = figures([2, 2, 4, 6, 3, 3, 5].into_iter().map(|n| (n, 1))).changes;
        assert_eq!((c.ups, c.downs, c.reversals), (3, 1, 2));
    }

    #[test]
    fn counts_must_be_whole_and_not_negative() {
        let load = |milli: i64| Load {
            name: "r.csv".to_owned(),
            columns: vec!["replicas".to_owned()],
            times: vec![0, 15_000],
            series: vec![vec![2000, milli]],
        };
        assert_eq!(from_load(load(3000)).unwrap().replicas, [2, 3]);
        assert_eq!(
            from_load(load(2500)).unwrap_err(),
            "--replicas r.csv: 2.5 at time 15s: a replica count is a whole number from 0 to \
             2147483647"
        );
        let two = Load {
            columns: vec!["a".to_owned(), "b".to_owned()],
            series: vec![vec![1000, 1000], vec![1000, 1000]],
            ..load(1000)
        };
        assert_eq!(
            from_load(two).unwrap_err(),
            "--replicas r.csv: a recording of replica counts has one column besides `time`; \
             this one has 2 (a, b)"
        );
    }
}
