//! Conformance with the upstream Kubernetes HPA unit tests.
//!
//! `tests/conformance/replica_calc.json` (replica_calculator_test.go) and
//! `tests/conformance/normalization.json` (horizontal_test.go, defaults_test.go) hold the
//! inputs and expectations of upstream's tests as data; their schema is documented inside the
//! files (`harness_defaults`, `family_docs`, per-case `notes`) and in
//! `/work/shared/conformance/README.md`. Every case of both files (`cases`, `aux_cases`, every
//! family, `superseded_cases` too) is mapped onto the engine's public API and compared with
//! upstream's expectation. `tests/conformance/shapes/` holds synthetic vectors in the same
//! schema (not upstream's: their notes give the reasoning) for shapes upstream's data may take
//! that the bundled files may lack: null metric fields of a pod, metrics entries without the
//! metric's container or resource, targets without a type. When `HPA_CONFORMANCE_DIR` is set,
//! the files of the same names in that directory are run as well (a missing file there is an
//! error).
//!
//! Conventions of the vectors: times are signed second offsets from "now" (0), Go's zero time
//! is `-63914313600`; the engine counts milliseconds (`Instant(s * 1000)`). Quantities are
//! integer milli-units (`Quantity::from_milli`). Integers are read exactly (`as_i64`), never
//! through a float; decimal fractions (tolerances) are read from the number's text.
//!
//! A case that exercises what only a Kubernetes controller has (a scale GET failure, selector
//! parsing or overlap between HPAs, an HPA that API validation rejects, the 1000-HPA throughput
//! test) is listed as not applicable with its reason and never counted as passed.
//! Controller-only assertions of otherwise applicable controller scenarios are not compared:
//! `status_updated` (whether the controller writes the HPA status: the engine has no status
//! write), `monitor` (Prometheus metrics) and `rate_limiter`; the engine's decision, the
//! resulting `status.desiredReplicas`, the scale update and the ordered conditions are. A
//! `partial` line names each case whose main assertion is such a controller-only one.
//!
//! The output (one line per not-applicable case, per-family counts, then `N passed, M failed`
//! and `K not applicable`) is written straight to stdout so that it shows without
//! `--nocapture`. Vectors are leaked (`Box::leak`) so that the engine's borrowed views can
//! point into them for the whole test: a few megabytes, once.
//!
//! The runners of each file and family are in `tests/conformance_runner/`; the vectors are
//! read into engine inputs by `testkit::conformance` (which the firmware shares).

use std::fmt::{Debug, Write as _};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use hpa::history::{History, DEFAULT_EVENT_BYTES, DEFAULT_RECOMMENDATION_BYTES};
use hpa::time::Duration;
use serde_json::Value;
use testkit::conformance::{decimal, get, load, R};

#[path = "conformance_runner/controller.rs"]
mod controller;
#[path = "conformance_runner/controller_inputs.rs"]
mod controller_inputs;
#[path = "conformance_runner/normalization.rs"]
mod normalization;
#[path = "conformance_runner/replica_calc.rs"]
mod replica_calc;
#[path = "conformance_runner/rules.rs"]
mod rules;

use controller::{controller_only_note, run_controller};
use normalization::{
    run_behavior_defaulting, run_build_quantity, run_convert_with_rules, run_normalize_legacy,
    run_scale_limits, run_scaling_with_rules, run_stabilize_with_behaviors, run_store_scale_events,
};
use replica_calc::{run_calculate_requests, run_group_pods, run_replica_calc_case};

/// The history capacities used throughout (the engine's defaults).
type Hist = History<DEFAULT_RECOMMENDATION_BYTES, DEFAULT_EVENT_BYTES>;

/// What one case came to.
enum Outcome {
    Pass,
    Fail(String),
    NotApplicable(String),
}

fn na(reason: impl Into<String>) -> R<Outcome> {
    Ok(Outcome::NotApplicable(reason.into()))
}

/// Collects every mismatch of one case.
#[derive(Default)]
struct Diff(Vec<String>);

impl Diff {
    fn eq<T: PartialEq + Debug>(&mut self, what: &str, expected: T, actual: T) {
        if expected != actual {
            self.0
                .push(format!("{what}: expected {expected:?}, got {actual:?}"));
        }
    }

    fn fail(&mut self, msg: impl Into<String>) {
        self.0.push(msg.into());
    }

    fn outcome(self) -> R<Outcome> {
        if self.0.is_empty() {
            Ok(Outcome::Pass)
        } else {
            Ok(Outcome::Fail(self.0.join("; ")))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// JSON access beyond testkit::conformance's.

fn opt_flag(v: &Value, key: &str) -> R<Option<bool>> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(x) => x
            .as_bool()
            .map(Some)
            .ok_or_else(|| format!("`{key}` is not a boolean")),
    }
}

fn opt_list(v: &'static Value, key: &str) -> R<Option<&'static [Value]>> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(x) => x
            .as_array()
            .map(|a| Some(a.as_slice()))
            .ok_or_else(|| format!("`{key}` is not a list")),
    }
}

/// A whole number possibly written as a float (`8.0`).
fn whole(v: &Value, key: &str) -> R<i32> {
    let (m, e) = decimal(get(v, key)?, key)?;
    if e < 0 {
        return Err(format!("`{key}` is not a whole number"));
    }
    let value = m
        .checked_mul(10_i128.checked_pow(e.unsigned_abs()).ok_or("too large")?)
        .ok_or("too large")?;
    i32::try_from(value).map_err(|_| format!("`{key}` does not fit an int32"))
}

fn secs(s: i64) -> Duration {
    Duration::from_secs(s)
}

// ---------------------------------------------------------------------------------------------
// Driver.

#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
    na: usize,
}

#[derive(Default)]
struct Report {
    /// (file label, family) -> counts, in first-seen order.
    families: Vec<((String, String), Tally)>,
    failures: Vec<String>,
    lines: Vec<String>,
}

impl Report {
    fn tally(&mut self, file: &str, family: &str) -> &mut Tally {
        let key = (file.to_string(), family.to_string());
        let idx = match self.families.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                self.families.push((key, Tally::default()));
                self.families.len() - 1
            }
        };
        &mut self.families[idx].1
    }

    fn record(&mut self, file: &str, family: &str, name: &str, outcome: R<Outcome>) {
        let outcome =
            outcome.unwrap_or_else(|e| Outcome::Fail(format!("cannot map the vector: {e}")));
        match outcome {
            Outcome::Pass => self.tally(file, family).passed += 1,
            Outcome::Fail(msg) => {
                self.tally(file, family).failed += 1;
                self.failures
                    .push(format!("FAIL {file} {family} {name}: {msg}"));
            }
            Outcome::NotApplicable(reason) => {
                self.tally(file, family).na += 1;
                self.lines.push(format!("n/a {name}: {reason}"));
            }
        }
    }

    fn error(&mut self, file: &str, family: &str, msg: String) {
        self.tally(file, family).failed += 1;
        self.failures.push(format!("FAIL {file} {family}: {msg}"));
    }
}

/// Every case runs; under Miri, which interprets each evaluation thousands of times slower,
/// every tenth of each family (its first among them).
const CASE_STRIDE: usize = if cfg!(miri) { 10 } else { 1 };

fn case_name(c: &Value) -> String {
    c.get("name")
        .and_then(Value::as_str)
        .unwrap_or("<unnamed>")
        .to_string()
}

fn run_replica_calc_file(report: &mut Report, label: &str, path: &Path) {
    let root = match load(path) {
        Ok(v) => v,
        Err(e) => return report.error(label, "file", e),
    };
    for (family, key) in [("cases", "cases"), ("aux_cases", "aux_cases")] {
        let cases = match root.get(key) {
            None | Some(Value::Null) => continue,
            Some(Value::Array(a)) => a,
            Some(_) => {
                report.error(label, family, format!("`{key}` is not a list"));
                continue;
            }
        };
        for c in cases.iter().step_by(CASE_STRIDE) {
            let name = case_name(c);
            let (fam, outcome) = if key == "cases" {
                ("cases".to_string(), run_replica_calc_case(c))
            } else {
                let kind = c.get("kind").and_then(Value::as_str).unwrap_or("");
                let outcome = match kind {
                    "group_pods" => run_group_pods(c),
                    "calculate_requests" => run_calculate_requests(c),
                    other => Err(format!("unknown aux case kind {other:?}")),
                };
                (format!("aux_cases/{kind}"), outcome)
            };
            report.record(label, &fam, &name, outcome);
        }
    }
    for key in root
        .as_object()
        .map(|m| m.keys().collect::<Vec<_>>())
        .unwrap_or_default()
    {
        if !["source", "harness_defaults", "cases", "aux_cases"].contains(&key.as_str()) {
            report.error(
                label,
                key,
                format!("unknown top-level key `{key}`: no runner for it"),
            );
        }
    }
}

fn run_family_case(family: &str, c: &'static Value) -> R<Outcome> {
    match family {
        "stabilize_recommendation_with_behaviors" => run_stabilize_with_behaviors(c),
        "scaling_with_rules" => run_scaling_with_rules(c),
        "scale_limits" => run_scale_limits(c),
        "store_scale_events" => run_store_scale_events(c),
        "normalize_desired_replicas_legacy" => run_normalize_legacy(c),
        "convert_desired_replicas_with_rules" => run_convert_with_rules(c),
        "behavior_defaulting" => run_behavior_defaulting(c),
        "build_quantity" => run_build_quantity(c),
        "controller_scenarios" | "controller_scenario" => run_controller(c),
        other => Err(format!("no runner for family {other:?}")),
    }
}

fn run_normalization_file(report: &mut Report, label: &str, path: &Path) {
    let root = match load(path) {
        Ok(v) => v,
        Err(e) => return report.error(label, "file", e),
    };
    let Some(families) = root.get("families").and_then(Value::as_object) else {
        return report.error(
            label,
            "families",
            "`families` is missing or not an object".into(),
        );
    };
    for (family, cases) in families {
        let Some(cases) = cases.as_array() else {
            report.error(label, family, "not a list".into());
            continue;
        };
        for c in cases.iter().step_by(CASE_STRIDE) {
            let name = case_name(c);
            let kind = if family == "superseded_cases" {
                c.get("kind").and_then(Value::as_str).unwrap_or("")
            } else {
                family.as_str()
            };
            let outcome = run_family_case(kind, c);
            if matches!(outcome, Ok(Outcome::Pass) | Ok(Outcome::Fail(_)))
                && (kind == "controller_scenarios" || kind == "controller_scenario")
            {
                if let Some(note) = controller_only_note(c) {
                    report.lines.push(format!("partial {name}: {note}"));
                }
            }
            report.record(label, family, &name, outcome);
        }
    }
}

#[test]
fn conformance() {
    let started = std::time::Instant::now();
    let mut report = Report::default();
    let mut dirs: Vec<(String, PathBuf)> = ["tests/conformance", "tests/conformance/shapes"]
        .into_iter()
        .map(|d| (d.into(), PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(d)))
        .collect();
    if let Some(dir) = std::env::var_os("HPA_CONFORMANCE_DIR") {
        let dir = PathBuf::from(dir);
        dirs.push((dir.display().to_string(), dir));
    }
    for (dir_label, dir) in &dirs {
        for file in ["replica_calc.json", "normalization.json"] {
            let path = dir.join(file);
            let label = format!("{dir_label}/{file}");
            if !path.is_file() {
                report.error(
                    &label,
                    "file",
                    format!(
                        "{file} is missing from {} (HPA_CONFORMANCE_DIR must hold both files)",
                        dir.display()
                    ),
                );
                continue;
            }
            if file == "replica_calc.json" {
                run_replica_calc_file(&mut report, &label, &path);
            } else {
                run_normalization_file(&mut report, &label, &path);
            }
        }
    }

    let mut out = String::new();
    for line in &report.lines {
        let _ = writeln!(out, "{line}");
    }
    let (mut passed, mut failed, mut na) = (0, 0, 0);
    for ((file, family), t) in &report.families {
        let _ = writeln!(
            out,
            "{file} {family}: {} passed, {} failed, {} not applicable",
            t.passed, t.failed, t.na
        );
        passed += t.passed;
        failed += t.failed;
        na += t.na;
    }
    for f in &report.failures {
        let _ = writeln!(out, "{f}");
    }
    let _ = writeln!(out, "({:.1} s)", started.elapsed().as_secs_f64());
    let _ = writeln!(out, "{passed} passed, {failed} failed");
    let _ = writeln!(out, "{na} not applicable");
    // Straight to stdout: the test harness captures `print!` but not direct writes.
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(out.as_bytes());
    let _ = stdout.flush();
    assert!(
        report.failures.is_empty(),
        "{failed} conformance case(s) failed:\n{}",
        report.failures.join("\n")
    );
}
