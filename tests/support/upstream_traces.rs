//! The "upstream traces" suite (`tests/upstream-traces/`, see its README.md): listing the
//! traces with their expected lines, and the comparison rule of a decision. Shared by
//! `cli/tests/upstream_traces.rs` (the `hpa replay` code path) and `ffi/tests/replay.rs` (the
//! same traces through the C API), so that both judge by exactly the same rule.
//!
//! Compared per line: `at`, `replicas`, `desiredReplicas`, `rescale` (value and JSON type),
//! `conditions` as a map type -> (status, reason) (order and messages ignored) and `metrics`
//! (same length; per entry its `replicas`, or whether it has an `error`). Free text (reasons,
//! messages, current values, `upstreamError`) is not compared: upstream's wording is not the
//! engine's contract.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Extra directories of traces of the same form (`NAME.json` + `NAME.expected.jsonl`), run
/// in addition to the bundled ones; several are separated as in `PATH`.
pub const DIRS_VAR: &str = "HPA_UPSTREAM_TRACES_DIR";

/// One trace and the file of the lines upstream printed for it.
pub struct Case {
    /// The trace's path as shown in reports.
    pub name: String,
    pub trace: PathBuf,
    pub expected: PathBuf,
}

/// The traces to run, and what is wrong with the directories (each a failure of the suite).
#[derive(Default)]
pub struct Listing {
    pub cases: Vec<Case>,
    pub errors: Vec<String>,
}

/// The bundled traces (`<root>/tests/upstream-traces`) and those of every directory in
/// [`DIRS_VAR`], each directory in file name order.
pub fn list(root: &Path) -> Listing {
    let mut listing = Listing::default();
    let mut dirs = vec![(
        "tests/upstream-traces".to_string(),
        root.join("tests/upstream-traces"),
    )];
    if let Some(extra) = std::env::var_os(DIRS_VAR) {
        for dir in std::env::split_paths(&extra) {
            dirs.push((dir.display().to_string(), dir));
        }
    }
    for (label, dir) in dirs {
        list_dir(&label, &dir, &mut listing);
    }
    listing
}

const EXPECTED_SUFFIX: &str = ".expected.jsonl";

fn list_dir(label: &str, dir: &Path, listing: &mut Listing) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            listing
                .errors
                .push(format!("{label}: cannot list the directory: {e}"));
            return;
        }
    };
    // Stem -> the trace's file name, for both halves of each pair.
    let (mut traces, mut expected) = (BTreeMap::new(), BTreeSet::new());
    for entry in entries {
        let name = match entry {
            Ok(e) => e.file_name().to_string_lossy().into_owned(),
            Err(e) => {
                listing.errors.push(format!("{label}: {e}"));
                continue;
            }
        };
        if let Some(stem) = name.strip_suffix(EXPECTED_SUFFIX) {
            expected.insert(stem.to_string());
        } else if let Some((stem, ext)) = name.rsplit_once('.') {
            if matches!(ext, "json" | "yaml" | "yml") {
                traces.insert(stem.to_string(), name.clone());
            }
        }
    }
    if traces.is_empty() {
        listing.errors.push(format!("{label}: no trace in it"));
    }
    for stem in expected.iter().filter(|s| !traces.contains_key(*s)) {
        listing
            .errors
            .push(format!("{label}/{stem}{EXPECTED_SUFFIX}: no trace for it"));
    }
    for (stem, file) in traces {
        listing.cases.push(Case {
            name: format!("{label}/{file}"),
            trace: dir.join(&file),
            expected: dir.join(format!("{stem}{EXPECTED_SUFFIX}")),
        });
    }
}

/// Parses JSON lines (one value per non-empty line).
pub fn parse_lines(text: &str) -> Result<Vec<Value>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.is_empty())
        .map(|(i, l)| serde_json::from_str(l).map_err(|e| format!("line {}: not JSON: {e}", i + 1)))
        .collect()
}

impl Case {
    /// Upstream's lines for this trace.
    pub fn expected_lines(&self) -> Result<Vec<Value>, String> {
        let text = std::fs::read_to_string(&self.expected)
            .map_err(|e| format!("{}: {e}", self.expected.display()))?;
        parse_lines(&text).map_err(|e| format!("{}: {e}", self.expected.display()))
    }
}

/// The first difference between the lines a replay printed and upstream's, if any.
pub fn first_difference(got: &[Value], expected: &[Value]) -> Option<String> {
    for (step, (g, e)) in got.iter().zip(expected).enumerate() {
        if let Some(d) = line_difference(g, e) {
            let at = e.get("at").map_or_else(|| "?".into(), Value::to_string);
            return Some(format!("step {step} (at {at}): {d}"));
        }
    }
    (got.len() != expected.len())
        .then(|| format!("{} lines printed, {} expected", got.len(), expected.len()))
}

/// How a field reads in a report: its JSON, or `absent`.
fn show(v: Option<&Value>) -> String {
    v.map_or_else(|| "absent".into(), Value::to_string)
}

fn field_difference(field: &str, got: Option<&Value>, expected: Option<&Value>) -> Option<String> {
    // `Value` equality distinguishes JSON types (`5` from `5.0`, `"5"` or `true`).
    (got != expected).then(|| format!("{field}: got {}, expected {}", show(got), show(expected)))
}

fn line_difference(got: &Value, expected: &Value) -> Option<String> {
    for field in ["at", "replicas", "desiredReplicas", "rescale"] {
        if let Some(d) = field_difference(field, got.get(field), expected.get(field)) {
            return Some(d);
        }
    }
    let (g, e) = (conditions(got), conditions(expected));
    match (&g, &e) {
        (Ok(g), Ok(e)) => {
            let types: BTreeSet<&String> = g.keys().chain(e.keys()).collect();
            for t in types {
                let show = |m: &BTreeMap<String, (Value, Value)>| {
                    m.get(t)
                        .map_or_else(|| "absent".into(), |(s, r)| format!("[{s},{r}]"))
                };
                if g.get(t) != e.get(t) {
                    return Some(format!(
                        "conditions.{t}: got {}, expected {}",
                        show(g),
                        show(e)
                    ));
                }
            }
        }
        _ if g != e => {
            return Some(format!(
                "conditions: got {}, expected {}",
                show(got.get("conditions")),
                show(expected.get("conditions"))
            ))
        }
        _ => {}
    }
    let (g, e) = (got.get("metrics"), expected.get("metrics"));
    let (Some(Value::Array(g)), Some(Value::Array(e))) = (g, e) else {
        return field_difference("metrics", g, e);
    };
    if g.len() != e.len() {
        return Some(format!(
            "metrics: got {} entries, expected {}",
            g.len(),
            e.len()
        ));
    }
    for (i, (g, e)) in g.iter().zip(e).enumerate() {
        let field = format!("metrics[{i}].replicas");
        if let Some(d) = field_difference(&field, g.get("replicas"), e.get("replicas")) {
            return Some(d);
        }
        let has_error = |v: &Value| v.get("error").is_some();
        if has_error(g) != has_error(e) {
            let say = |b: bool| if b { "an error" } else { "no error" };
            return Some(format!(
                "metrics[{i}]: got {}, expected {}",
                say(has_error(g)),
                say(has_error(e))
            ));
        }
    }
    None
}

/// `conditions` as type -> (status, reason); messages (any further entries) are ignored.
fn conditions(line: &Value) -> Result<BTreeMap<String, (Value, Value)>, ()> {
    let Some(Value::Object(map)) = line.get("conditions") else {
        return Err(());
    };
    map.iter()
        .map(|(t, v)| match v.as_array().map(Vec::as_slice) {
            Some([status, reason, ..]) => Ok((t.clone(), (status.clone(), reason.clone()))),
            _ => Err(()),
        })
        .collect()
}

/// Passed and failed traces, with the first difference of each failure.
#[derive(Default)]
pub struct Report {
    pub passed: usize,
    pub failures: Vec<String>,
}

impl Report {
    /// A report that starts with the listing's errors as failures.
    pub fn new(listing: &Listing) -> Report {
        Report {
            passed: 0,
            failures: listing.errors.clone(),
        }
    }

    /// Judges one trace: `got` is the replay's lines, or why it refused the trace.
    pub fn record(&mut self, case: &Case, got: Result<Vec<Value>, String>) {
        let outcome = got.map_err(|e| format!("refused: {e}")).and_then(|got| {
            let expected = case.expected_lines()?;
            first_difference(&got, &expected).map_or(Ok(()), Err)
        });
        match outcome {
            Ok(()) => self.passed += 1,
            Err(d) => self.failures.push(format!("{}: {d}", case.name)),
        }
    }

    /// Prints `<label>: N passed, M failed` and the failures straight to stdout (shown without
    /// `--nocapture`), then fails the test if any trace failed.
    pub fn finish(self, label: &str) {
        let mut out = String::new();
        for f in &self.failures {
            let _ = writeln!(out, "FAILED {f}");
        }
        let failed = self.failures.len();
        let _ = writeln!(out, "{label}: {} passed, {failed} failed", self.passed);
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(out.as_bytes());
        let _ = stdout.flush();
        assert!(
            failed == 0 && self.passed > 0,
            "{label}: {} passed, {failed} failed:\n{}",
            self.passed,
            self.failures.join("\n")
        );
    }
}
