//! The C API from C and C++: `tests/c/api_test.c` with `snapshot_test.c` and
//! `overlap_test.c` (every function, every status) and `stack_test.c` (the stack the calls
//! need), the
//! examples (`examples/c/worker_pool.c`, `examples/cpp/autoscaler.cpp`) against their expected
//! output, and the README's C example, each built against `libhpa.a` with the system compiler
//! and run plainly, with AddressSanitizer + UndefinedBehaviorSanitizer, and under valgrind.
//! Also: no Rust panic path is linked into the C test binary, and the C and Rust layouts of
//! every struct agree.

mod support;

use std::fs;
use std::mem::{align_of, offset_of, size_of};

use support::{Lang, Mode};

fn root_path(p: &str) -> std::path::PathBuf {
    support::root().join(p)
}

/// The C API test's sources: `api_test.c` holds `main` and runs the others' tests.
fn api_test_sources() -> Vec<std::path::PathBuf> {
    [
        "api_test.c",
        "snapshot_test.c",
        "overlap_test.c",
        "stack_test.c",
    ]
    .iter()
    .map(|f| root_path(&format!("ffi/tests/c/{f}")))
    .collect()
}

/// Builds the C API test as `exe` and runs it with `args` under every mode; asserts
/// that no check failed and returns the number of checks of each run.
fn api_test(exe: &str, args: &[&str]) -> Vec<usize> {
    c_test("api_test", &api_test_sources(), exe, args)
}

/// Builds `sources` as `exe` and runs it with `args` under every mode; its last line is
/// `<test>: N checks passed, 0 failed`. Returns N of each run.
fn c_test(test: &str, sources: &[std::path::PathBuf], exe: &str, args: &[&str]) -> Vec<usize> {
    let mut counts = Vec::new();
    for mode in Mode::ALL {
        let Some(run) = support::run(exe, Lang::C, sources, mode, args) else {
            continue;
        };
        let last = run.stdout.lines().last().unwrap_or("");
        let checks: usize = last
            .strip_prefix(&format!("{test}: "))
            .and_then(|rest| rest.strip_suffix(" checks passed, 0 failed"))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{mode:?}: {last}\n{}", run.stderr));
        println!("{mode:?}: {last}");
        counts.push(checks);
    }
    counts
}

#[test]
fn api_test_passes_plain_sanitized_and_under_valgrind() {
    api_test("api_test", &[]);
}

/// `tests/c/corrupt_test.c`: damaged autoscaler storage is refused with
/// `HPA_STATUS_CORRUPT_STATE` and left alone, or, where the damage hit unused bytes, decides as
/// the undamaged state; never a crash, under every mode.
#[test]
fn damaged_storage_is_refused_plain_sanitized_and_under_valgrind() {
    let source = root_path("ffi/tests/c/corrupt_test.c");
    for checks in c_test("corrupt_test", &[source], "corrupt_test", &[]) {
        assert!(checks > 20_000, "{checks} checks");
    }
}

/// `tests/c/stack_test.c` (`test_stack` of the C API test) alone: every call that takes an
/// autoscaler or a configuration, with the largest configuration, on a thread stack painted
/// beforehand; the peak use stays within the 20 KiB docs/c-api.md states (asserted plainly and
/// under valgrind; AddressSanitizer's frames are the sanitizer's, so that run only prints its
/// figure).
#[test]
fn calls_fit_the_documented_stack() {
    for checks in api_test("api_test_stack", &["stack"]) {
        assert!(checks > 300, "only {checks} checks ran");
    }
}

/// A ContainerResource sample whose `hpa_container_usage` array lacks the metric's container
/// (empty, NULL, or other containers only) is a pod without a sample: `test_missing_container`
/// of `tests/c/api_test.c` alone (the whole run above has it too), under every mode.
#[test]
fn c_sample_without_the_named_container_is_a_missing_pod() {
    // Its own executable: the whole run builds `api_test` at the same time.
    for checks in api_test("api_test_missing_container", &["missing_container"]) {
        assert!(checks >= 40, "only {checks} checks ran");
    }
}

/// Readings upstream's arithmetic takes as they are (a negative External entry its guard
/// takes as MaxInt64, a negative Object value, a negative pod sample) are reported in
/// `hpa_metric_result.reading`: `test_readings` of `tests/c/api_test.c` alone, under every
/// mode.
#[test]
fn c_readings_report_negative_values_and_the_overflow_guard() {
    for checks in api_test("api_test_readings", &["readings"]) {
        assert!(checks >= 12, "only {checks} checks ran");
    }
}

#[test]
fn no_panic_path_is_linked_into_the_c_test_binary() {
    let exe = support::compile("api_test", Lang::C, &api_test_sources(), Mode::Plain);
    let found = support::panic_symbols(&exe);
    assert!(
        found.is_empty(),
        "panic symbols in {}:\n{}",
        exe.display(),
        found.join("\n")
    );
    println!("{}: no panic symbol", exe.display());
}

fn expected_output(path: &str) -> String {
    fs::read_to_string(root_path(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn worker_pool_example_prints_its_expected_output() {
    let expected = expected_output("examples/c/worker_pool.out");
    for mode in Mode::ALL {
        let Some(run) = support::run(
            "worker_pool",
            Lang::C,
            &[root_path("examples/c/worker_pool.c")],
            mode,
            &[],
        ) else {
            continue;
        };
        assert_eq!(
            run.stdout, expected,
            "{mode:?}: examples/c/worker_pool.out differs"
        );
    }
}

#[test]
fn cpp_example_prints_its_expected_output() {
    let expected = expected_output("examples/cpp/autoscaler.out");
    for mode in Mode::ALL {
        let Some(run) = support::run(
            "cpp_autoscaler",
            Lang::Cpp,
            &[root_path("examples/cpp/autoscaler.cpp")],
            mode,
            &[],
        ) else {
            continue;
        };
        assert_eq!(
            run.stdout, expected,
            "{mode:?}: examples/cpp/autoscaler.out differs"
        );
    }
}

/// The first ```c block of the README's "Using from C" section, and the ```text block that
/// follows it (the program's output).
fn readme_example() -> (String, String) {
    let readme = fs::read_to_string(root_path("README.md")).expect("README.md");
    let section = readme
        .split("\n## Using from C")
        .nth(1)
        .expect("README has a \"## Using from C\" section");
    let section = section.split("\n## ").next().unwrap_or(section);
    let block = |s: &str, lang: &str| -> Option<(String, usize)> {
        let start = s.find(&format!("```{lang}\n"))? + lang.len() + 4;
        let len = s[start..].find("\n```")?;
        Some((s[start..start + len + 1].to_string(), start + len))
    };
    let mut rest = section;
    loop {
        let (code, end) = block(rest, "c").expect("README C example");
        if code.contains("int main(") {
            let (output, _) = block(&rest[end..], "text").expect("README example's output block");
            return (code, output);
        }
        rest = &rest[end..];
    }
}

#[test]
fn readme_c_example_compiles_and_prints_what_the_readme_says() {
    let (code, output) = readme_example();
    let file = support::out_dir().join("readme_example.c");
    fs::write(&file, code).unwrap();
    for mode in Mode::ALL {
        let Some(run) = support::run(
            "readme_example",
            Lang::C,
            std::slice::from_ref(&file),
            mode,
            &[],
        ) else {
            continue;
        };
        assert_eq!(
            run.stdout, output,
            "{mode:?}: the README's example output differs"
        );
    }
}

/// Every struct's size, alignment and member offsets, as C sees them and as Rust sees them.
#[test]
fn c_and_rust_layouts_agree() {
    use hpa_ffi::*;
    let mut rust = String::new();
    macro_rules! layout {
        ($t:ident $(, $f:ident)*) => {{
            rust.push_str(&format!("{} {} {}\n", stringify!($t), size_of::<$t>(), align_of::<$t>()));
            $( rust.push_str(&format!("{}.{} {}\n", stringify!($t), stringify!($f), offset_of!($t, $f))); )*
        }};
    }
    let mut c = String::from("#include <stdio.h>\n#include <stddef.h>\n#include \"hpa.h\"\n");
    c.push_str("#define S(t) printf(\"%s %zu %zu\\n\", #t, sizeof(t), _Alignof(t));\n");
    c.push_str("#define O(t, f) printf(\"%s.%s %zu\\n\", #t, #f, offsetof(t, f));\n");
    c.push_str("int main(void) {\n");
    macro_rules! c_layout {
        ($t:ident $(, $f:ident)*) => {{
            c.push_str(&format!("S({})\n", stringify!($t)));
            $( c.push_str(&format!("O({}, {})\n", stringify!($t), stringify!($f).trim_start_matches("r#"))); )*
        }};
    }
    macro_rules! both {
        ($t:ident $(, $f:ident)*) => {{ layout!($t $(, $f)*); c_layout!($t $(, $f)*); }};
    }
    both!(hpa_str, ptr, len);
    both!(hpa_decimal, mantissa, exponent);
    both!(hpa_object_ref, kind, name, api_version);
    both!(
        hpa_metric_target,
        r#type,
        fields,
        value_milli,
        average_value_milli,
        average_utilization
    );
    both!(
        hpa_metric,
        r#type,
        name,
        container,
        selector,
        selector_invalid,
        described_object,
        target
    );
    both!(hpa_scaling_policy, r#type, value, period_seconds);
    both!(
        hpa_scaling_rules,
        has_stabilization_window_seconds,
        stabilization_window_seconds,
        select_policy,
        policies,
        policies_len,
        has_tolerance,
        tolerance
    );
    both!(hpa_behavior, scale_up, scale_down);
    both!(
        hpa_settings,
        tolerance,
        downscale_stabilization_window_ms,
        cpu_initialization_period_ms,
        initial_readiness_delay_ms,
        scale_to_zero,
        configurable_tolerance,
        arithmetic,
        legacy_scale_up_factor,
        legacy_scale_up_minimum,
        explicit_zeros
    );
    both!(
        hpa_config,
        has_min_replicas,
        min_replicas,
        max_replicas,
        metrics,
        metrics_len,
        behavior,
        scale_target_ref,
        settings
    );
    both!(hpa_resource_request, resource, milli);
    both!(hpa_container, name, kind, requests, requests_len);
    both!(
        hpa_pod,
        name,
        phase,
        ready,
        has_ready_transition,
        has_start_time,
        ready_transition_ms,
        start_time_ms,
        deleted,
        containers,
        containers_len,
        pod_requests,
        pod_requests_len
    );
    both!(hpa_container_usage, name, milli);
    both!(
        hpa_sample,
        present,
        has_timestamp,
        has_window,
        milli,
        timestamp_ms,
        window_ms,
        containers,
        containers_len
    );
    both!(
        hpa_metric_values,
        kind,
        samples,
        samples_len,
        orphans,
        orphans_len,
        value_milli,
        values_milli,
        values_len,
        error
    );
    both!(
        hpa_observation,
        now_ms,
        replicas,
        has_status_replicas,
        status_replicas,
        pods,
        pods_len,
        metrics,
        metrics_len
    );
    both!(hpa_condition, r#type, status, reason, message);
    both!(
        hpa_metric_result,
        outcome,
        source,
        replicas,
        within_tolerance,
        reading,
        has_current_average_utilization,
        current_average_utilization,
        has_current_average_value,
        has_current_value,
        current_average_value_milli,
        current_value_milli,
        current_average_value_text,
        current_value_text,
        error_reason,
        name,
        error
    );
    both!(
        hpa_decision,
        at_ms,
        current_replicas,
        desired_replicas,
        rescale,
        rescale_reason,
        has_proposal,
        proposal,
        has_stabilized,
        stabilized,
        limited_by,
        history_overflowed,
        invalid_metrics,
        metrics_len,
        conditions_len,
        reason,
        metrics_error,
        metrics,
        conditions
    );
    both!(
        hpa_scaling_status,
        desired_replicas,
        has_last_scale_time,
        last_scale_time_ms,
        rescale_pending,
        conditions_len,
        conditions
    );
    both!(
        hpa_resolved_rules,
        stabilization_window_seconds,
        select_policy,
        tolerance,
        policies_len,
        policies
    );
    both!(
        hpa_resolved_config,
        min_replicas,
        max_replicas,
        metrics_len,
        default_metric,
        has_behavior,
        scale_up,
        scale_down,
        settings
    );
    both!(hpa_field_error, status, r#type, field, message);
    both!(hpa_autoscaler);
    c.push_str("return 0;\n}\n");
    let rust = rust.replace("r#", "");
    let file = support::out_dir().join("layout.c");
    fs::write(&file, c).unwrap();
    let run = support::run("layout", Lang::C11, &[file], Mode::Plain, &[]).expect("plain run");
    assert_eq!(run.stdout, rust, "C and Rust layouts differ");
}
