//! `hpa replay --digest`: one line `digest <file stem> <16 hex digits>`, stable, and the same
//! as folding the decisions through `hpa::digest` (the firmware in examples/firmware prints the
//! same line in QEMU; `.ci/firmware` compares them, and docs/firmware.md shows them).

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn digest(trace: &str) -> String {
    digest_of(&repo().join("examples/traces").join(trace))
}

fn digest_of(trace: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_hpa"))
        .args(["replay", "--digest"])
        .arg(trace)
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

/// The digests docs/firmware.md shows the firmware printing are the host's, in the firmware's
/// order: the bundled traces by file name, then the upstream sample in its list's order
/// (`.ci/firmware` compares the firmware's own output with the host's).
#[test]
fn the_firmware_guide_shows_the_host_digests() {
    let guide = std::fs::read_to_string(repo().join("docs/firmware.md")).expect("the guide");
    let shown: Vec<&str> = guide.lines().filter(|l| l.starts_with("digest ")).collect();
    let mut bundled: Vec<String> = std::fs::read_dir(repo().join("examples/traces"))
        .expect("examples/traces")
        .map(|entry| entry.expect("a directory entry").file_name())
        .map(|name| name.into_string().expect("a UTF-8 file name"))
        .filter(|name| [".json", ".yaml", ".yml"].iter().any(|e| name.ends_with(e)))
        .collect();
    bundled.sort();
    let sample = std::fs::read_to_string(repo().join("examples/firmware/upstream-sample.txt"))
        .expect("the upstream sample list");
    let mut host: Vec<String> = bundled.iter().map(|name| digest(name)).collect();
    for stem in sample
        .lines()
        .map(|line| line.split('#').next().unwrap_or("").trim())
        .filter(|stem| !stem.is_empty())
    {
        let trace = repo()
            .join("tests/upstream-traces")
            .join(format!("{stem}.json"));
        host.push(digest_of(&trace));
    }
    let host: Vec<&str> = host.iter().map(|line| line.trim_end()).collect();
    assert_eq!(shown, host, "docs/firmware.md's digests are out of date");
}
