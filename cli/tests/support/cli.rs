//! What the end-to-end tests of the `hpa` binary share (tests/simulate.rs, tests/tune.rs):
//! running it in a fresh directory, and reading the examples of the Markdown documentation
//! for the tests that check they are current.

// Each test crate uses some of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A fresh directory for one test of `group`.
pub fn fresh_dir(group: &str, test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(group)
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir
}

/// Writes `text` to `dir/name`.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write a test file");
    path
}

/// Runs `hpa ARGS` in `cwd`.
pub fn hpa(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hpa"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("the hpa binary runs")
}

/// Standard output of a run that must succeed.
pub fn stdout_of(out: &Output) -> String {
    assert!(
        out.status.success(),
        "hpa failed ({:?}): {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("UTF-8 output")
}

/// The fenced block between `<!-- BEGIN name -->` and `<!-- END name -->` in a Markdown text,
/// without its fences.
pub fn marked_block(text: &str, name: &str) -> String {
    let begin = format!("<!-- BEGIN {name} -->\n");
    let end = format!("<!-- END {name} -->");
    let start = text.find(&begin).unwrap_or_else(|| panic!("{begin}")) + begin.len();
    let stop = text[start..].find(&end).unwrap_or_else(|| panic!("{end}")) + start;
    let inner = &text[start..stop];
    let inner = inner
        .trim_end()
        .strip_suffix("```")
        .expect("a fenced block");
    inner.split_once('\n').expect("a fence line").1.to_owned()
}

/// The arguments a documented `cargo run ... -- ARGS` command passes to `hpa`.
pub fn command_words(command: &str) -> Vec<String> {
    command
        .split_whitespace()
        .filter(|w| *w != "\\")
        .skip_while(|w| *w != "--")
        .skip(1)
        .map(str::to_owned)
        .collect()
}
