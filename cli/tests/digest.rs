//! `hpa replay --digest`: one line `digest <file stem> <16 hex digits>`, stable, and the same
//! as folding the decisions through `hpa::digest` (the firmware in examples/firmware prints the
//! same line in QEMU; `.ci/firmware` compares them).

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn digest(trace: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_hpa"))
        .args(["replay", "--digest"])
        .arg(repo().join("examples/traces").join(trace))
        .output()
        .expect("the hpa binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

#[test]
fn prints_one_digest_line_named_by_the_file_stem() {
    let out = digest("cpu-scale-up.json");
    let line = out.strip_suffix('\n').expect("one line");
    let mut words = line.split(' ');
    assert_eq!(words.next(), Some("digest"));
    assert_eq!(words.next(), Some("cpu-scale-up"));
    let hex = words.next().expect("a hex digest");
    assert_eq!(hex.len(), 16);
    assert!(hex
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
    assert_eq!(words.next(), None);
    assert!(!line.contains('\n'));
    // Deterministic.
    assert_eq!(digest("cpu-scale-up.json"), out);
}

#[test]
fn different_decisions_give_different_digests() {
    // The YAML sibling replays only the first step of the JSON trace.
    assert_ne!(digest("cpu-scale-up.json"), digest("cpu-scale-up.yaml"));
    assert_ne!(digest("cpu-scale-up.json"), digest("queue-external.json"));
}
