//! The upstream traces (`tests/upstream-traces/`, see its README.md): 200 traces with the lines
//! upstream's own controller code (`HorizontalController.reconcileAutoscaler`) printed for
//! them. Each is replayed through the code `hpa replay` runs (`trace::load`, then
//! `output::replay_lines`) and its decisions are compared with upstream's by the rule of
//! `tests/support/upstream_traces.rs`; a trace the loader or the engine refuses fails with the
//! message. Traces in the directories of `HPA_UPSTREAM_TRACES_DIR` are run as well.

use std::path::{Path, PathBuf};
use std::process::Command;

use hpa::digest::Digest;
use hpa_cli::{output, trace};

#[path = "../../tests/support/upstream_traces.rs"]
mod upstream_traces;
use upstream_traces::{parse_lines, Case, Report};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The lines `hpa replay` prints for a trace, or its error message (without the
/// `hpa replay: ` prefix).
fn replay(path: &Path) -> Result<Vec<String>, String> {
    let t = trace::load(path).map_err(|e| e.to_string())?;
    output::replay_lines(&t, &mut Digest::new())
}

#[test]
fn upstream_traces_replay_with_upstreams_decisions() {
    let listing = upstream_traces::list(&root());
    let mut report = Report::new(&listing);
    for case in &listing.cases {
        let got = replay(&case.trace).and_then(|lines| parse_lines(&lines.join("\n")));
        report.record(case, got);
    }
    report.finish("upstream traces");
}

/// The library path above is what the binary prints: every 20th trace (a deterministic
/// sample) through `hpa replay` itself, byte for byte, exit status included.
#[test]
fn the_binary_prints_what_the_library_path_gives() {
    let listing = upstream_traces::list(&root());
    let sample: Vec<&Case> = listing.cases.iter().step_by(20).collect();
    assert!(
        sample.len() >= 10,
        "the bundled upstream traces are missing"
    );
    for case in sample {
        let out = Command::new(env!("CARGO_BIN_EXE_hpa"))
            .arg("replay")
            .arg(&case.trace)
            .output()
            .expect("the hpa binary runs");
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        match replay(&case.trace) {
            Ok(lines) => {
                assert_eq!(out.status.code(), Some(0), "{}: {stderr}", case.name);
                assert_eq!(stdout, format!("{}\n", lines.join("\n")), "{}", case.name);
            }
            Err(message) => {
                assert_eq!(out.status.code(), Some(2), "{}", case.name);
                assert!(stdout.is_empty(), "{}", case.name);
                assert_eq!(stderr, format!("hpa replay: {message}\n"), "{}", case.name);
            }
        }
    }
}
