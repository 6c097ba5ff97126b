//! Building and running C programs against `libhpa.a` from the Rust test harness.
//!
//! The C library is built once per test process with `cargo build --release -p libhpa`
//! (the release profile is the one C programs link: `panic = "abort"`, `no_std`), into the
//! same target directory as the tests, whatever profile the tests themselves use. The `hpa`
//! binary the replays are compared with is built with the `quick` profile: the same code
//! without link-time optimisation, which would cost a minute here and changes no output.
//!
//! C programs are compiled with the system `cc`/`c++` into `<target>/hpa-ffi-c/` and can be
//! run three ways: plainly, built with AddressSanitizer and UndefinedBehaviorSanitizer, and
//! under valgrind. Each run appends a line to `<target>/hpa-ffi-c/reports/<name>.txt`, which
//! `.ci/run` prints.
//!
//! Valgrind is required when `HPA_REQUIRE_VALGRIND` is set or `CI` is set (as `.ci/run` runs);
//! otherwise a missing valgrind is reported loudly and that run is skipped.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("ffi/ has a parent")
        .to_path_buf()
}

/// The cargo target directory the tests run from (the one holding `CACHEDIR.TAG`).
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let mut dir = exe.parent();
    while let Some(d) = dir {
        if d.join("CACHEDIR.TAG").exists() {
            return d.to_path_buf();
        }
        dir = d.parent();
    }
    root().join("target")
}

/// Where C programs and reports go.
pub fn out_dir() -> PathBuf {
    let d = target_dir().join("hpa-ffi-c");
    fs::create_dir_all(d.join("reports")).expect("create hpa-ffi-c");
    d
}

/// Builds `package` with cargo profile `profile` into the tests' target directory and
/// returns the profile's output directory.
fn cargo_build(package: &str, profile: &str) -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(root())
        .args(["build", "--quiet", "--profile", profile, "-p", package])
        .arg("--target-dir")
        .arg(target_dir())
        .status()
        .expect("run cargo build");
    assert!(
        status.success(),
        "cargo build --profile {profile} -p {package} failed"
    );
    target_dir().join(profile)
}

/// `libhpa.a`, built in release once per test process.
pub fn libhpa() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let lib = cargo_build("libhpa", "release").join("libhpa.a");
            assert!(lib.exists(), "{} was not built", lib.display());
            lib
        })
        .clone()
}

/// The `hpa` command-line tool (`quick` profile), built once per test process.
pub fn hpa_cli() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let bin = cargo_build("hpa-cli", "quick").join("hpa");
            assert!(bin.exists(), "{} was not built", bin.display());
            bin
        })
        .clone()
}

/// How a C program is built and run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Plain build (`-O1 -g`).
    Plain,
    /// `-fsanitize=address,undefined`, any report is fatal.
    Sanitized,
    /// The plain build under valgrind memcheck; any error is fatal.
    Valgrind,
}

impl Mode {
    pub const ALL: [Mode; 3] = [Mode::Plain, Mode::Sanitized, Mode::Valgrind];

    fn name(self) -> &'static str {
        match self {
            Mode::Plain => "plain",
            Mode::Sanitized => "asan+ubsan",
            Mode::Valgrind => "valgrind",
        }
    }

    fn file_name(self) -> &'static str {
        match self {
            Mode::Plain => "plain",
            Mode::Sanitized => "asan-ubsan",
            Mode::Valgrind => "valgrind",
        }
    }
}

/// The language of a source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    /// C99.
    C,
    /// C11.
    C11,
    /// C++11.
    Cpp,
}

/// Whether valgrind must be there.
fn valgrind_required() -> bool {
    std::env::var_os("HPA_REQUIRE_VALGRIND").is_some()
        || std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false")
}

fn has_valgrind() -> bool {
    Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Compiles `sources` into `<out>/<name>[-asan]`, linking `libhpa.a` with
/// `-Wl,--gc-sections` and nothing else.
pub fn compile(name: &str, lang: Lang, sources: &[PathBuf], mode: Mode) -> PathBuf {
    let lib = libhpa();
    let sanitize = mode == Mode::Sanitized;
    let exe = out_dir().join(if sanitize {
        format!("{name}-asan")
    } else {
        name.to_string()
    });
    let (compiler, std) = match lang {
        Lang::C => ("cc", "-std=c99"),
        Lang::C11 => ("cc", "-std=c11"),
        Lang::Cpp => ("c++", "-std=c++11"),
    };
    let mut cmd = Command::new(compiler);
    cmd.arg(std)
        .args(["-Wall", "-Wextra", "-Werror", "-pedantic", "-O1", "-g"])
        .arg("-I")
        .arg(root().join("include"))
        .arg("-I")
        .arg(root().join("ffi/tests/c"));
    if sanitize {
        cmd.args([
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all",
            "-fno-omit-frame-pointer",
        ]);
    }
    cmd.args(sources)
        .arg(&lib)
        .arg("-Wl,--gc-sections")
        .arg("-o")
        .arg(&exe);
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("run {compiler}: {e}"));
    assert!(
        out.status.success(),
        "{compiler} failed for {name}:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// Records the outcome of one run in `reports/<name>.<mode>.txt` (replacing older ones).
fn report(name: &str, mode: Mode, line: &str) {
    let path = out_dir()
        .join("reports")
        .join(format!("{name}.{}.txt", mode.file_name()));
    fs::write(path, format!("{name} ({}): {line}\n", mode.name())).expect("write report");
}

/// The result of one run.
pub struct Run {
    pub stdout: String,
    pub stderr: String,
}

fn finish(name: &str, mode: Mode, what: &str, out: Output, summary: String) -> Run {
    let run = Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(
        out.status.success(),
        "{name} ({}) {what} failed with {}:\nstdout:\n{}\nstderr:\n{}",
        mode.name(),
        out.status,
        run.stdout,
        run.stderr
    );
    report(name, mode, &summary);
    run
}

/// Builds (for `mode`) and runs a C program with `args`; panics on a non-zero exit or any
/// sanitizer or valgrind error. Returns `None` only for a valgrind run that is skipped
/// because valgrind is missing and not required.
pub fn run(name: &str, lang: Lang, sources: &[PathBuf], mode: Mode, args: &[&str]) -> Option<Run> {
    let exe = compile(name, lang, sources, mode);
    match mode {
        Mode::Plain => {
            let out = Command::new(&exe).args(args).output().expect("run program");
            Some(finish(name, mode, "run", out, "exit 0".into()))
        }
        Mode::Sanitized => {
            let out = Command::new(&exe)
                .args(args)
                .env(
                    "ASAN_OPTIONS",
                    "detect_leaks=1:abort_on_error=0:halt_on_error=1",
                )
                .env("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
                .output()
                .expect("run sanitized program");
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            assert!(
                !stderr.contains("ERROR: AddressSanitizer")
                    && !stderr.contains("runtime error:")
                    && !stderr.contains("ERROR: LeakSanitizer"),
                "{name}: sanitizer report:\n{stderr}"
            );
            Some(finish(
                name,
                mode,
                "run",
                out,
                "exit 0, no AddressSanitizer, LeakSanitizer or UndefinedBehaviorSanitizer report"
                    .into(),
            ))
        }
        Mode::Valgrind => {
            if !has_valgrind() {
                assert!(
                    !valgrind_required(),
                    "valgrind is required here (CI or HPA_REQUIRE_VALGRIND) but not installed: \
                     apt-get install -y valgrind"
                );
                eprintln!(
                    "WARNING: valgrind is not installed; the valgrind run of {name} is skipped \
                     (apt-get install -y valgrind; .ci/run installs it and requires it)"
                );
                report(name, mode, "SKIPPED (valgrind is not installed)");
                return None;
            }
            let out = Command::new("valgrind")
                .args([
                    "--error-exitcode=99",
                    "--leak-check=full",
                    "--errors-for-leak-kinds=definite,indirect",
                    "--track-origins=yes",
                    "-q",
                ])
                .arg(&exe)
                .args(args)
                .output()
                .expect("run valgrind");
            Some(finish(
                name,
                mode,
                "under valgrind",
                out,
                "exit 0, ERROR SUMMARY: 0 errors (memcheck, leak check full)".into(),
            ))
        }
    }
}

/// `nm` of a binary: the symbol lines that name a Rust panic path.
pub fn panic_symbols(exe: &Path) -> Vec<String> {
    let out = Command::new("nm")
        .arg(exe)
        .output()
        .expect("run nm (binutils)");
    assert!(out.status.success(), "nm failed");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().count() > 100, "nm printed too few symbols");
    let pattern = [
        "panic",
        "rust_begin_unwind",
        "bounds_check",
        "slice_index_fail",
        "unwrap_failed",
        "expect_failed",
    ];
    text.lines()
        .filter(|l| pattern.iter().any(|p| l.contains(p)))
        .map(str::to_string)
        .collect()
}
