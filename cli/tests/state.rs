//! `hpa replay --save-state/--restore-state`: a trace split at a step and replayed in two runs,
//! the state saved after the first and restored before the second at the first's last step's
//! time, prints the whole trace's lines and leaves the whole trace's state; bad state files and
//! restore times are refused with exit status 2 and nothing on standard output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A fresh directory for one test.
fn dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("state")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir
}

fn hpa(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hpa"))
        .args(args)
        .output()
        .expect("the hpa binary runs")
}

fn s(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

/// The standard output of a run that must succeed.
fn ok(args: &[&str]) -> String {
    let out = hpa(args);
    assert!(
        out.status.success(),
        "hpa {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The standard error of a run that must fail with `code` and print nothing on standard output.
fn refused(args: &[&str], code: i32) -> String {
    let out = hpa(args);
    assert_eq!(out.status.code(), Some(code), "hpa {args:?}");
    assert!(out.stdout.is_empty(), "hpa {args:?} printed something");
    String::from_utf8(out.stderr).expect("UTF-8 error")
}

fn read_trace(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read trace")).expect("JSON trace")
}

/// `trace` with only `steps[range]`; without `hpa.status` unless it starts the trace (the seed
/// of ScaledToZero is the restored state's business after the first part).
fn part(trace: &Value, range: std::ops::Range<usize>) -> Value {
    let mut part = trace.clone();
    let steps = trace["steps"].as_array().expect("steps")[range.clone()].to_vec();
    part["steps"] = Value::Array(steps);
    if range.start > 0 {
        part["hpa"]
            .as_object_mut()
            .expect("hpa object")
            .remove("status");
    }
    part
}

fn write_json(path: &Path, value: &Value) {
    std::fs::write(path, serde_json::to_string(value).expect("serialize")).expect("write");
}

/// The time of `trace`'s step `i`, as text for `--restore-at`.
fn at(trace: &Value, i: usize) -> String {
    trace["steps"][i]["at"].to_string()
}

/// Replays `trace` whole, then split at each of `cuts` (increasing, within the steps) into
/// parts chained through state files, and checks that the parts print the whole trace's lines
/// and leave the same state file.
fn check_split(d: &Path, trace: &Path, cuts: &[usize]) {
    let full_state = d.join("full.bin");
    let full = ok(&["replay", s(trace), "--save-state", s(&full_state)]);
    let value = read_trace(trace);
    let n = value["steps"].as_array().expect("steps").len();
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    bounds.push(n);
    let mut chained = String::new();
    for (k, w) in bounds.windows(2).enumerate() {
        let file = d.join(format!("part{k}.json"));
        write_json(&file, &part(&value, w[0]..w[1]));
        let saved = d.join(format!("part{k}.bin"));
        let mut args = vec!["replay".to_string(), s(&file).into()];
        args.extend(["--save-state".into(), s(&saved).into()]);
        if k > 0 {
            let previous = d.join(format!("part{}.bin", k - 1));
            args.extend(["--restore-state".into(), s(&previous).into()]);
            // The previous part's last step's time; a previous part without steps left a new
            // autoscaler, which any time restores.
            if w[0] > 0 {
                args.extend(["--restore-at".into(), at(&value, w[0] - 1)]);
            }
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        chained.push_str(&ok(&args));
    }
    let name = trace.display();
    assert_eq!(chained, full, "{name} split at {cuts:?}");
    let last = d.join(format!("part{}.bin", bounds.len() - 2));
    assert_eq!(
        std::fs::read(last).expect("last state"),
        std::fs::read(&full_state).expect("full state"),
        "{name} split at {cuts:?}: the state after the last part"
    );
}

/// Split points of a trace of `n` steps: the first and last step, the middle, and the ends
/// (an empty part).
fn cuts(n: usize) -> Vec<Vec<usize>> {
    let mut all = vec![
        vec![1],
        vec![n / 2],
        vec![n.saturating_sub(1)],
        vec![0],
        vec![n],
    ];
    if n >= 3 {
        all.push(vec![1, n / 2, n - 1]);
    }
    all.retain(|c| c.iter().all(|&i| i <= n) && c.windows(2).all(|w| w[0] < w[1]));
    all
}

#[test]
fn bundled_traces_split_anywhere_replay_as_a_whole() {
    let d = dir("bundled");
    let mut traces: Vec<PathBuf> = std::fs::read_dir(repo().join("examples/traces"))
        .expect("examples/traces")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    traces.sort();
    assert!(traces.len() >= 5);
    for trace in &traces {
        let n = read_trace(trace)["steps"].as_array().expect("steps").len();
        let mut all = cuts(n);
        // Every single cut of the short traces.
        if n <= 8 {
            all.extend((2..n - 1).map(|i| vec![i]));
        }
        for c in all {
            check_split(&d, trace, &c);
        }
    }
}

#[test]
fn upstream_traces_split_in_the_middle_replay_as_a_whole() {
    let d = dir("upstream");
    let dir = repo().join("tests/upstream-traces");
    // Every tenth trace, and 0057 (it seeds ScaledToZero) and 0316 (instants near i64::MAX).
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/upstream-traces")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    let mut names: Vec<String> = names.into_iter().step_by(10).collect();
    names.extend(["trace-0057.json".into(), "trace-0316.json".into()]);
    let mut checked = 0;
    for name in &names {
        let trace = dir.join(name);
        if !trace.exists() {
            continue;
        }
        let n = read_trace(&trace)["steps"].as_array().expect("steps").len();
        check_split(&d, &trace, &[n / 2]);
        if n >= 3 {
            check_split(&d, &trace, &[1, n - 1]);
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} upstream traces found");
}

/// The bundled burst trace's first `k` steps as a file, and the state they leave.
fn first_part(d: &Path, k: usize) -> (Value, PathBuf, PathBuf) {
    let trace = read_trace(&repo().join("examples/traces/behavior-burst.json"));
    let first = d.join("first.json");
    write_json(&first, &part(&trace, 0..k));
    let state = d.join("state.bin");
    ok(&["replay", s(&first), "--save-state", s(&state)]);
    (trace, first, state)
}

#[test]
fn a_restore_time_after_the_first_step_says_which_one_works() {
    let d = dir("restore-at");
    let (trace, _, state) = first_part(&d, 10);
    let second = d.join("second.json");
    write_json(&second, &part(&trace, 10..35));
    let first_at: i64 = at(&trace, 10).parse().expect("at");
    let restore = |restore_at: &str| {
        let args = [
            "replay",
            s(&second),
            "--restore-state",
            s(&state),
            "--restore-at",
            restore_at,
        ];
        hpa(&args)
    };
    let err = String::from_utf8(restore(&(first_at + 1).to_string()).stderr).expect("UTF-8");
    assert!(
        err.contains(&format!("pass --restore-at {first_at} or earlier")),
        "{err}"
    );
    assert!(err.starts_with("hpa replay: --restore-at "), "{err}");
    // The latest time it names works, as does any earlier one, negative ones too.
    for restore_at in [first_at.to_string(), "-3600000".into()] {
        assert!(restore(&restore_at).status.success(), "{restore_at}");
    }
    // The default (the first step's time) always works.
    ok(&["replay", s(&second), "--restore-state", s(&state)]);
}

#[test]
fn damaged_missing_and_foreign_state_files_are_refused() {
    let d = dir("damaged");
    let (_, first, state) = first_part(&d, 10);
    let good = std::fs::read(&state).expect("state");
    let restore = |file: &Path| refused(&["replay", s(&first), "--restore-state", s(file)], 2);
    let write = |name: &str, bytes: &[u8]| {
        let path = d.join(name);
        std::fs::write(&path, bytes).expect("write");
        path
    };
    let cases: Vec<(PathBuf, &str)> = vec![
        (d.join("missing.bin"), "No such file"),
        (d.clone(), ""),
        (write("short.bin", &good[..5]), "too few for a snapshot"),
        (
            write("cut.bin", &good[..good.len() - 1]),
            "truncated or padded",
        ),
        (first.clone(), "not a snapshot"),
        (
            write("flipped.bin", &{
                let mut b = good.clone();
                b[good.len() / 2] ^= 0x10;
                b
            }),
            "checksum mismatch",
        ),
        (
            write("newer.bin", &with_version(&good, 200)),
            "snapshot format version 200 is not supported (this engine reads 1 to 1); a newer \
             hpa wrote it",
        ),
        (
            write("huge.bin", &vec![0; (1 << 20) + 1]),
            "longer than 1048576 bytes",
        ),
    ];
    for (file, expected) in cases {
        let err = restore(&file);
        let prefix = format!("hpa replay: --restore-state {}: ", file.display());
        assert!(err.starts_with(&prefix), "{err}");
        assert!(err.contains(expected), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

/// `bytes` with another format version and its checksum recomputed.
fn with_version(bytes: &[u8], version: u8) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[4] = version;
    testkit::snapshot::reseal(&mut b);
    b
}

#[test]
fn a_trace_that_seeds_scaled_to_zero_cannot_also_restore() {
    let d = dir("seed");
    let (_, _, state) = first_part(&d, 3);
    let seeded = repo().join("tests/upstream-traces/trace-0057.json");
    let err = refused(&["replay", s(&seeded), "--restore-state", s(&state)], 2);
    assert!(
        err.contains("hpa.status holds a ScaledToZero condition"),
        "{err}"
    );
}

#[test]
fn a_state_file_that_cannot_be_written_exits_1_and_prints_nothing() {
    let d = dir("unwritable");
    let trace = repo().join("examples/traces/cpu-scale-up.json");
    let target = d.join("no-such-dir").join("state.bin");
    let err = refused(&["replay", s(&trace), "--save-state", s(&target)], 1);
    assert!(
        err.starts_with(&format!("hpa replay: --save-state {}: ", target.display())),
        "{err}"
    );
    // An existing file is replaced whole, and no temporary file is left behind.
    let state = d.join("state.bin");
    std::fs::write(&state, vec![b'x'; 100_000]).expect("write");
    ok(&["replay", s(&trace), "--save-state", s(&state)]);
    let names: Vec<_> = std::fs::read_dir(&d)
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, ["state.bin"]);
    assert_eq!(&std::fs::read(&state).expect("state")[..4], b"HPAS");
}

#[test]
fn restore_at_needs_restore_state() {
    let trace = repo().join("examples/traces/cpu-scale-up.json");
    let err = refused(&["replay", s(&trace), "--restore-at", "5"], 2);
    assert!(err.contains("--restore-state"), "{err}");
}

#[test]
fn digest_events_and_explain_take_the_state_flags_too() {
    let d = dir("modes");
    let (trace, first, state) = first_part(&d, 10);
    let second = d.join("second.json");
    write_json(&second, &part(&trace, 10..35));
    let restore_at = at(&trace, 9);
    // The state saved is the same whatever is printed.
    for mode in ["--digest", "--events", "--explain"] {
        let other = d.join("other.bin");
        ok(&["replay", s(&first), mode, "--save-state", s(&other)]);
        assert_eq!(
            std::fs::read(&other).ok(),
            std::fs::read(&state).ok(),
            "{mode}"
        );
    }
    let restored = |mode: &str| {
        ok(&[
            "replay",
            s(&second),
            mode,
            "--restore-state",
            s(&state),
            "--restore-at",
            &restore_at,
        ])
    };
    let digest = restored("--digest");
    assert!(digest.starts_with("digest second "), "{digest}");
    assert_eq!(digest.lines().count(), 1);
    // The restored run differs from a fresh one: the burst's 300 s scale-up period still
    // holds, so the restored replay stays at 10 where a new autoscaler would not.
    let fresh = ok(&["replay", s(&second), "--digest"]);
    assert_ne!(digest, fresh);
    let explain = restored("--explain");
    assert!(explain.starts_with("Steps:\n  steps[0] at "), "{explain}");
}

#[test]
fn an_empty_trace_saves_the_state_it_restored_unchanged() {
    let d = dir("empty");
    let (trace, _, state) = first_part(&d, 10);
    let empty = d.join("empty.json");
    write_json(&empty, &part(&trace, 10..10));
    let again = d.join("again.bin");
    let restore_at = at(&trace, 9);
    let out = ok(&[
        "replay",
        s(&empty),
        "--restore-state",
        s(&state),
        "--restore-at",
        &restore_at,
        "--save-state",
        s(&again),
    ]);
    assert!(out.is_empty());
    assert_eq!(std::fs::read(&again).ok(), std::fs::read(&state).ok());
    // The engine restores every earlier format version, so the CLI does too.
    let v1 = repo().join("tests/data/snapshots/v1.bin");
    ok(&["replay", s(&empty), "--restore-state", s(&v1)]);
}
