//! What the loader's tests share: a small valid trace ([`BASE`]) that the error tests alter
//! one text at a time, the parsers by format, and the assertion on a [`TraceError`].

use super::{parse, Format, Trace, TraceError};

/// A small valid trace the error tests modify.
pub(super) const BASE: &str = r#"{"hpa": {"metadata": {"name": "w"},
  "spec": {"maxReplicas": 10, "metrics": [{"type": "Resource",
    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}]}},
 "steps": [{"at": 0, "replicas": 1, "pods": [{"name": "p0"}],
            "metrics": [{"samples": {"p0": {"value": "100m"}}}]}]}"#;

pub(super) fn json(text: &str) -> Result<Trace, TraceError> {
    parse(text, Format::Json)
}

pub(super) fn yaml(text: &str) -> Result<Trace, TraceError> {
    parse(text, Format::Yaml)
}

/// `BASE` with one textual replacement (which must apply).
pub(super) fn base_with(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "{from:?} not in BASE");
    BASE.replacen(from, to, 1)
}

#[track_caller]
pub(super) fn assert_error(result: Result<Trace, TraceError>, path: &str, message_start: &str) {
    match result {
        Ok(_) => panic!("expected an error at {path}"),
        Err(e) => {
            assert_eq!(e.path, path, "path of {e}");
            assert!(
                e.message.starts_with(message_start),
                "message of {e:?} should start with {message_start:?}"
            );
        }
    }
}
