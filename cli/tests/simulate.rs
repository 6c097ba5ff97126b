//! `hpa simulate` end to end: the summary arithmetic on hand-checked loads, events and
//! explanations, byte-identical output, clear errors for bad loads and manifests (exit 2,
//! nothing on standard output, no plot file), the bundled examples and the examples of
//! docs/simulate.md; and `hpa replay --events/--explain`, with the README's example of it.

// Prometheus range-query loads: tests/simulate/prometheus_load.rs.
#[path = "simulate/prometheus_load.rs"]
mod prometheus_load;
// Recorded replica counts (`--replicas`): tests/simulate/recorded.rs.
#[path = "simulate/recorded.rs"]
mod recorded;

// Running `hpa`, and the documented examples' blocks and commands: tests/support/cli.rs.
#[path = "support/cli.rs"]
mod support;
use support::{command_words, fresh_dir, hpa, marked_block, repo, stdout_of, write};

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A fresh directory for one test.
fn dir(test: &str) -> PathBuf {
    fresh_dir("simulate", test)
}

/// The summary table: row name to its cells (one per run).
fn summary(text: &str) -> HashMap<String, Vec<String>> {
    table_after(text, "\nSummary:\n")
}

/// The table that follows `heading`, up to the next blank line: row name to its cells.
fn table_after(text: &str, heading: &str) -> HashMap<String, Vec<String>> {
    let table = text
        .split(heading)
        .nth(1)
        .unwrap_or_else(|| panic!("no {heading:?} in {text}"));
    table
        .lines()
        .skip(1)
        .take_while(|line| !line.is_empty())
        .map(|line| {
            let cells: Vec<String> = line
                .trim()
                .split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(str::to_owned)
                .collect();
            (cells[0].clone(), cells[1..].to_vec())
        })
        .collect()
}

fn cell(table: &HashMap<String, Vec<String>>, row: &str) -> Vec<String> {
    table
        .get(row)
        .unwrap_or_else(|| panic!("no row {row}"))
        .clone()
}

/// 50 % of a 1-core request; scale-down window 0.
const CPU_HPA: &str = "\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: cpu50}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: app}
  minReplicas: 1
  maxReplicas: 10
  metrics:
    - type: Resource
      resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
  behavior:
    scaleDown: {stabilizationWindowSeconds: 0}
";

/// 1 core for a minute, then 3 cores for a minute.
const CPU_LOAD: &str = "time,cpu\n0,1\n60,1\n60,3\n120,3\n";

/// Hand check (15 s periods, 30 s start-up, 1-core requests, capacity at target 0.5 core):
/// * 0-45 s: 1 core on 2 pods = 50 %: 2 pods for 4 periods = 120 pod-seconds.
/// * 60 s: 3 cores on 2 pods = 150 %, ratio 3: 6 replicas (the default scale-up policy
///   allows 2 + 4 pods); the 4 new pods are Pending. 6 pods needed, 2 ready: 4 short.
/// * 75 s: still 2 ready pods: 4 short; the HPA counts the pending pods as idle, which puts
///   the ratio back at 1: no change.
/// * 90-105 s: the new pods are ready (the HPA still ignores their cpu for a sample window),
///   0 short. 6 pods for 4 periods = 360 pod-seconds.
///
/// Total 480 pod-seconds over 120 s (mean 4), 30 s above target (25 %), peak shortfall 4 at
/// 0:01:00, 2 x 15 s x 4 = 120 under-provisioned pod-seconds, one scale-up.
#[test]
fn summary_of_a_hand_checked_cpu_load() {
    let d = dir("hand-cpu");
    write(&d, "hpa.yaml", CPU_HPA);
    write(&d, "load.csv", CPU_LOAD);
    let text = stdout_of(&hpa(
        &["simulate", "--hpa", "hpa.yaml", "--load", "load.csv"],
        &d,
    ));
    let t = summary(&text);
    assert_eq!(cell(&t, "initial replicas"), ["2"]);
    assert_eq!(cell(&t, "pod-seconds"), ["480 (0.1 pod-hours)"]);
    assert_eq!(cell(&t, "mean pods"), ["4"]);
    assert_eq!(cell(&t, "max pods"), ["6"]);
    assert_eq!(cell(&t, "time above target"), ["0:00:30 (25 %)"]);
    assert_eq!(cell(&t, "peak under-provisioning"), ["4 pods at 0:01:00"]);
    assert_eq!(cell(&t, "under-provisioned pod-seconds"), ["120"]);
    assert_eq!(cell(&t, "scale events"), ["1 (1 up, 0 down)"]);
    assert_eq!(cell(&t, "direction reversals"), ["0"]);
    assert!(text
        .starts_with("hpa simulate: load.csv from 0:00:00 to 0:02:00 (8 evaluations every 15s)\n"));
    // The event, as `kubectl describe hpa` shows it.
    assert!(text.contains(
        "\n  0:01:00  Normal   SuccessfulRescale  New size: 6; reason: cpu resource utilization \
         (percentage of request) above target\n"
    ));
}

/// Hand check of a Pods metric (target 10 per pod, 15 s start-up): 10, then 40 from 30 s to
/// 60 s, then 10 again.
/// * 0, 15 s: 1 pod at 10: 15 + 15 pod-seconds.
/// * 30 s: 1 pod at 40, ratio 4: up to 4 (3 pending): 3 short; 60 pod-seconds.
/// * 45 s: 4 ready pods at 10: 60 pod-seconds.
/// * 60 s: 4 pods at 2.5, ratio 0.25: down to 1 (window 0, 100 % per 15 s): a reversal.
/// * 75 s: 1 pod at 10. 15 + 15 pod-seconds.
#[test]
fn summary_of_a_hand_checked_pods_load_with_a_reversal() {
    let d = dir("hand-pods");
    write(
        &d,
        "hpa.yaml",
        &CPU_HPA.replace("name: cpu50", "name: rps10").replace(
            "    - type: Resource\n      resource: {name: cpu, target: {type: Utilization, \
             averageUtilization: 50}}",
            "    - type: Pods\n      pods: {metric: {name: rps}, target: {type: AverageValue, \
             averageValue: \"10\"}}",
        ),
    );
    write(
        &d,
        "load.csv",
        "time,rps\n0,10\n30,10\n30,40\n60,40\n60,10\n90,10\n",
    );
    let args = [
        "simulate",
        "--hpa",
        "hpa.yaml",
        "--load",
        "load.csv",
        "--startup-delay",
        "15s",
    ];
    let text = stdout_of(&hpa(&args, &d));
    let t = summary(&text);
    assert_eq!(cell(&t, "pod-seconds"), ["180 (0.1 pod-hours)"]);
    assert_eq!(cell(&t, "mean pods"), ["2"]);
    assert_eq!(cell(&t, "time above target"), ["0:00:15 (16.7 %)"]);
    assert_eq!(cell(&t, "peak under-provisioning"), ["3 pods at 0:00:30"]);
    assert_eq!(cell(&t, "under-provisioned pod-seconds"), ["45"]);
    assert_eq!(cell(&t, "scale events"), ["2 (1 up, 1 down)"]);
    assert_eq!(cell(&t, "direction reversals"), ["1"]);
    assert!(text.contains("New size: 4; reason: pods metric rps above target"));
    assert!(text.contains("New size: 1; reason: All metrics below target"));
}

#[test]
fn explanations_show_every_stage() {
    let d = dir("explain");
    write(&d, "hpa.yaml", CPU_HPA);
    write(&d, "load.csv", CPU_LOAD);
    let args = [
        "simulate",
        "--hpa",
        "hpa.yaml",
        "--load",
        "load.csv",
        "--explain-at",
        "1:00",
        "--explain-at",
        "75s",
        "--no-events",
    ];
    let text = stdout_of(&hpa(&args, &d));
    assert!(!text.contains("Events of"));
    let expected = "\
Steps of cpu50 explained:
  0:01:00  2 -> 6 replicas
    cpu resource utilization (percentage of request): 150% of request, average 1500m vs target 50%: ratio 3, tolerance band [0.9, 1.1] -> proposes 6
    proposal: 6
    stabilization: 2 clamped into [6, 6] -> 6 (lowest proposal over the last 0s, highest over the last 0s)
    scale-up limit: at most 6 = Pods 4 per 15s from 2 replicas at the start of its period: policies[0], selectPolicy Max
    replica range: [1, 10]
    result: rescale 2 -> 6 (limited by nothing; ScalingLimited False/DesiredWithinRange)
  0:01:15  6 replicas, no change
    cpu resource utilization (percentage of request): 150% of request, average 1500m vs target 50%: ratio 3, tolerance band [0.9, 1.1]; with the unready and missing pods counted the ratio falls inside the band: keeps 6
";
    assert!(text.contains(expected), "{text}");
    // Every step with --explain.
    let all = stdout_of(&hpa(
        &[
            "simulate",
            "--hpa",
            "hpa.yaml",
            "--load",
            "load.csv",
            "--explain",
        ],
        &d,
    ));
    assert_eq!(all.matches("\n    result: ").count(), 8);
}

#[test]
fn same_inputs_give_byte_identical_output() {
    let d = dir("identical");
    let root = repo();
    let run = |plot: &str| {
        let plot = d.join(plot);
        let out = hpa(
            &[
                "simulate",
                "--hpa",
                "examples/manifests/web.yaml",
                "--compare",
                "examples/manifests/web-tuned.yaml",
                "--load",
                "examples/loads/daily.csv",
                "--noise",
                "0.15",
                "--seed",
                "42",
                "--explain-at",
                "12:00:00",
                "--plot",
                plot.to_str().expect("UTF-8 path"),
            ],
            &root,
        );
        let text = stdout_of(&out);
        (text, std::fs::read(&plot).expect("the plot was written"))
    };
    let (text_a, svg_a) = run("a.svg");
    let (text_b, svg_b) = run("b.svg");
    assert_eq!(text_a, text_b);
    assert!(svg_a == svg_b, "the two plots differ");
    let svg = String::from_utf8(svg_a).expect("UTF-8 SVG");
    assert!(svg.starts_with("<svg"));
    for label in [
        "Demand (the load)",
        "web desired replicas",
        "web-tuned ready pods",
        "pods needed at target",
        "web target 70%",
    ] {
        assert!(svg.contains(label), "the plot lacks {label:?}");
    }
    // Another seed gives another run.
    let other = hpa(
        &[
            "simulate",
            "--hpa",
            "examples/manifests/web.yaml",
            "--load",
            "examples/loads/daily.csv",
            "--noise",
            "0.15",
            "--seed",
            "43",
        ],
        &root,
    );
    assert_ne!(stdout_of(&other), text_a);
}

/// Runs `hpa simulate` expecting exit status 2 with `expected` on standard error, nothing on
/// standard output and no plot file.
fn rejected(d: &Path, args: &[&str], expected: &str) {
    let plot = d.join("never.svg");
    let mut all: Vec<&str> = vec!["simulate"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--plot", "never.svg"]);
    let out = hpa(&all, d);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("hpa simulate: {expected}\n")
    );
    assert!(!plot.exists(), "a plot was written");
    let leftovers: Vec<_> = std::fs::read_dir(d)
        .expect("list")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files were left");
}

#[test]
fn load_errors_name_the_line_and_column() {
    let d = dir("load-errors");
    write(&d, "hpa.yaml", CPU_HPA);
    let cases = [
        ("time,cpu\n0,1\n15,abc\n30,1\n", "load.csv:3: column `cpu`: invalid quantity \"abc\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
        ("time,cpu\n0,1\n15\n", "load.csv:3: expected 2 fields (time,cpu), found 1"),
        ("# comment\ntime,cpu\n30,1\n15,1\n", "load.csv:4: time 15 is earlier than the previous row's 30: rows must be in time order"),
        ("time,cpu\n0,1\n15,-2\n", "load.csv:3: column `cpu`: demand must not be negative, got -2"),
        ("seconds,cpu\n0,1\n", "load.csv:1: the header's first column must be `time` (seconds), found `seconds`"),
        ("time,cpu\n0,1\n", "load.csv: needs at least two rows with different times (the run lasts from the first row's time to the last row's)"),
        ("time,cpu\n0.0001,1\n", "load.csv:2: column `time`: invalid time \"0.0001\": at most 3 fractional digits (milliseconds)"),
    ];
    for (text, expected) in cases {
        write(&d, "load.csv", text);
        rejected(&d, &["--hpa", "hpa.yaml", "--load", "load.csv"], expected);
    }
    rejected(
        &d,
        &["--hpa", "hpa.yaml", "--load", "missing.csv"],
        "missing.csv: cannot read the file: No such file or directory (os error 2)",
    );
}

#[test]
fn manifest_and_flag_errors_are_reported_before_anything_runs() {
    let d = dir("manifest-errors");
    write(&d, "load.csv", CPU_LOAD);
    write(
        &d,
        "bad.yaml",
        &CPU_HPA.replace("minReplicas: 1", "minReplicas: 20"),
    );
    rejected(
        &d,
        &["--hpa", "bad.yaml", "--load", "load.csv"],
        "bad.yaml: spec.maxReplicas: Invalid value: 10: must be greater than or equal to `minReplicas`",
    );
    write(
        &d,
        "typo.yaml",
        &CPU_HPA.replace("maxReplicas", "maxReplica"),
    );
    rejected(
        &d,
        &["--hpa", "typo.yaml", "--load", "load.csv"],
        "typo.yaml: spec.maxReplica: unknown field `maxReplica`, expected one of `scaleTargetRef`, \
         `minReplicas`, `maxReplicas`, `metrics`, `behavior` at line 7 column 3",
    );
    write(&d, "hpa.yaml", CPU_HPA);
    // The comparison manifest is checked as strictly.
    rejected(
        &d,
        &["--hpa", "hpa.yaml", "--compare", "bad.yaml", "--load", "load.csv"],
        "bad.yaml: spec.maxReplicas: Invalid value: 10: must be greater than or equal to `minReplicas`",
    );
    // A load without a column for a metric.
    write(&d, "two.csv", "time,memory,rps\n0,1,1\n60,1,1\n");
    rejected(
        &d,
        &["--hpa", "hpa.yaml", "--load", "two.csv"],
        "hpa.yaml: two.csv has no column for spec.metrics[0] (cpu resource utilization \
         (percentage of request)): add a column named `cpu` or `metrics[0]` (columns: memory, rps)",
    );
    // A Utilization target on a resource without a request.
    write(
        &d,
        "storage.yaml",
        &CPU_HPA.replace("name: cpu, target", "name: ephemeral-storage, target"),
    );
    rejected(
        &d,
        &["--hpa", "storage.yaml", "--load", "load.csv"],
        "storage.yaml: spec.metrics[0] (ephemeral-storage resource utilization (percentage of \
         request)): a Utilization target needs the pods' request: pass --pod-request \
         ephemeral-storage=QUANTITY",
    );
    rejected(
        &d,
        &[
            "--hpa",
            "hpa.yaml",
            "--load",
            "load.csv",
            "--sync-period",
            "15x",
        ],
        "--sync-period: invalid duration \"15x\": expected e.g. 15s, 500ms, 5m, 1h30m or 1:30:00",
    );
    rejected(
        &d,
        &["--hpa", "hpa.yaml", "--load", "load.csv", "--noise", "2"],
        "--noise: expected a fraction between 0 and 1, got \"2\"",
    );
    // The plot must be an SVG file in an existing directory.
    let out = hpa(
        &[
            "simulate", "--hpa", "hpa.yaml", "--load", "load.csv", "--plot", "p.png",
        ],
        &d,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(!d.join("p.png").exists());
    let out = hpa(
        &[
            "simulate",
            "--hpa",
            "hpa.yaml",
            "--load",
            "load.csv",
            "--plot",
            "no/dir/p.svg",
        ],
        &d,
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "hpa simulate: --plot no/dir/p.svg: the directory no/dir does not exist\n"
    );
}

#[test]
fn bundled_examples_run() {
    let root = repo();
    let cases: [(&str, &[&str]); 5] = [
        ("daily.csv", &["web.yaml", "web-tuned.yaml"]),
        ("daily.csv", &["web-rps.yaml"]),
        ("spike.csv", &["web.yaml", "web-tuned.yaml"]),
        ("ramp.csv", &["web.yaml", "web-tuned.yaml"]),
        ("queue.csv", &["queue.yaml"]),
    ];
    for (load, manifests) in cases {
        let load = format!("examples/loads/{load}");
        let first = format!("examples/manifests/{}", manifests[0]);
        let mut args = vec!["simulate", "--hpa", &first, "--load", &load];
        let second = manifests.get(1).map(|m| format!("examples/manifests/{m}"));
        if let Some(second) = &second {
            args.extend_from_slice(&["--compare", second]);
        }
        let text = stdout_of(&hpa(&args, &root));
        let t = summary(&text);
        assert_eq!(cell(&t, "manifest").len(), manifests.len(), "{load}");
    }
    // The queue scales to zero between batches and back from zero.
    let text = stdout_of(&hpa(
        &[
            "simulate",
            "--hpa",
            "examples/manifests/queue.yaml",
            "--load",
            "examples/loads/queue.csv",
        ],
        &root,
    ));
    assert!(text.contains("New size: 0; reason: All metrics below target"));
    assert!(text.contains(
        "  0:05:00  Normal   SuccessfulRescale  New size: 4; reason: external metric \
         queue_length(<nil>) above target\n"
    ));
    // With two metrics, the request rate sometimes wins.
    let text = stdout_of(&hpa(
        &[
            "simulate",
            "--hpa",
            "examples/manifests/web-rps.yaml",
            "--load",
            "examples/loads/daily.csv",
        ],
        &root,
    ));
    assert!(text.contains("reason: pods metric http_requests_per_second above target"));
}

#[test]
fn object_and_container_metrics_follow_the_pool() {
    let d = dir("object");
    // Object Value: the value is the demand per ready pod; 40 at a target of 10 needs 4 pods.
    write(
        &d,
        "object.yaml",
        &CPU_HPA.replace(
            "    - type: Resource\n      resource: {name: cpu, target: {type: Utilization, \
             averageUtilization: 50}}",
            "    - type: Object\n      object:\n        describedObject: {apiVersion: \
             networking.k8s.io/v1, kind: Ingress, name: main}\n        metric: {name: \
             backlog}\n        target: {type: Value, value: \"10\"}",
        ),
    );
    write(&d, "load.csv", "time,backlog\n0,10\n30,10\n30,40\n300,40\n");
    let text = stdout_of(&hpa(
        &["simulate", "--hpa", "object.yaml", "--load", "load.csv"],
        &d,
    ));
    assert!(
        text.contains("New size: 4; reason: Ingress metric backlog above target"),
        "{text}"
    );
    assert_eq!(cell(&summary(&text), "max pods"), ["4"]);
    // ContainerResource: the pool's pods have the container the metric names.
    write(
        &d,
        "container.yaml",
        &CPU_HPA.replace(
            "    - type: Resource\n      resource: {name: cpu, target: {type: Utilization, \
             averageUtilization: 50}}",
            "    - type: ContainerResource\n      containerResource: {name: cpu, container: \
             server, target: {type: Utilization, averageUtilization: 50}}",
        ),
    );
    write(&d, "cpu.csv", CPU_LOAD);
    let text = stdout_of(&hpa(
        &["simulate", "--hpa", "container.yaml", "--load", "cpu.csv"],
        &d,
    ));
    assert!(text.contains(
        "New size: 6; reason: cpu container resource utilization (percentage of request) above target"
    ));
}

/// docs/simulate.md's comparison (its command, output and committed picture) is what the tool
/// prints and draws today, and its explanation example is an excerpt of its command's output.
#[test]
fn simulate_guide_examples_are_current() {
    let root = repo();
    let guide = std::fs::read_to_string(root.join("docs/simulate.md")).expect("docs/simulate.md");
    let block = |name: &str| marked_block(&guide, name);
    // The explanation example is an excerpt of its command's output.
    let explain_args = command_words(&block("simulate-explain-command"));
    let explain_args: Vec<&str> = explain_args.iter().map(String::as_str).collect();
    let explained = stdout_of(&hpa(&explain_args, &root));
    assert!(
        explained.contains(&block("simulate-explain-output")),
        "docs/simulate.md's explanation example is out of date:\n{explained}"
    );
    let command = command_words(&block("simulate-compare-command"));
    let args: Vec<&str> = command.iter().map(String::as_str).collect();
    let d = dir("guide");
    let plot = d.join("compare.svg");
    let committed_plot = args
        .iter()
        .skip_while(|a| **a != "--plot")
        .nth(1)
        .expect("the guide's command draws a plot")
        .to_string();
    let args: Vec<String> = args
        .iter()
        .map(|a| {
            if *a == committed_plot {
                plot.to_string_lossy().into_owned()
            } else {
                (*a).to_owned()
            }
        })
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let text = stdout_of(&hpa(&args, &root));
    assert_eq!(text, block("simulate-compare-output"));
    let fresh = std::fs::read(&plot).expect("plot");
    let committed = std::fs::read(root.join(&committed_plot)).expect("the committed plot");
    assert!(
        fresh == committed,
        "{committed_plot} is out of date: rerun the command in docs/simulate.md"
    );
}

/// The README's command-line example prints what the README shows.
#[test]
fn readme_replay_example_is_current() {
    let root = repo();
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let args = command_words(&marked_block(&readme, "readme-replay-command"));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_eq!(
        stdout_of(&hpa(&args, &root)),
        marked_block(&readme, "readme-replay-output"),
        "the README's command-line example is out of date"
    );
}

#[test]
fn replay_prints_events_and_explanations_on_request() {
    let root = repo();
    let out = hpa(
        &["replay", "--events", "examples/traces/cpu-scale-up.json"],
        &root,
    );
    assert_eq!(
        stdout_of(&out),
        "Events:\n  At       Type     Reason             Message\n  --       ----     \
         ------             -------\n  0:00:00  Normal   SuccessfulRescale  New size: 5; reason: \
         cpu resource utilization (percentage of request) above target\n"
    );
    let text = stdout_of(&hpa(
        &["replay", "--explain", "examples/traces/queue-external.json"],
        &root,
    ));
    assert!(
        text.starts_with("Steps:\n  steps[0] at 0:00:00  3 -> 16 replicas\n"),
        "{text}"
    );
    assert!(text.contains(
        "    scale-up limit: at most 23 = Pods 20 per 15s from 3 replicas at the start of its \
         period: policies[0], selectPolicy Max\n"
    ));
    assert!(text.contains(
        "    no decision, desiredReplicas stays 16: invalid metrics (1 invalid out of 1)"
    ));
    // A failed fetch is a warning event; --digest still prints the digest alone.
    let events = stdout_of(&hpa(
        &["replay", "--events", "examples/traces/queue-external.json"],
        &root,
    ));
    assert!(events.contains("  0:00:30  Warning  FailedComputeMetricsReplicas  invalid metrics"));
    let out = hpa(
        &[
            "replay",
            "--events",
            "--digest",
            "examples/traces/cpu-scale-up.json",
        ],
        &root,
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn times_and_periods_at_the_integer_limits_do_not_panic() {
    let d = dir("limits");
    write(&d, "hpa.yaml", CPU_HPA);
    write(&d, "load.csv", CPU_LOAD);
    // A period longer than the load is one evaluation.
    let out = hpa(
        &[
            "simulate",
            "--hpa",
            "hpa.yaml",
            "--load",
            "load.csv",
            "--sync-period",
            "9223372036854775s",
            "--no-events",
        ],
        &d,
    );
    stdout_of(&out);
    write(
        &d,
        "far.csv",
        "time,cpu\n0,1\n9223372036854775,2\n9223372036854775.807,2\n",
    );
    rejected(
        &d,
        &["--hpa", "hpa.yaml", "--load", "far.csv"],
        "far.csv: 2562047788015:12:55.807 at a 15s sync period is 614891469123652 \
         evaluations; at most 5000000 are supported",
    );
}

#[test]
fn one_column_does_not_feed_every_metric_of_a_multi_metric_hpa() {
    let d = dir("one-column");
    let two = CPU_HPA.replace(
        "  behavior:",
        "    - type: Resource\n      resource: {name: memory, target: {type: Utilization, \
         averageUtilization: 50}}\n  behavior:",
    );
    write(&d, "hpa.yaml", &two);
    write(&d, "load.csv", CPU_LOAD);
    rejected(
        &d,
        &["--hpa", "hpa.yaml", "--load", "load.csv"],
        "hpa.yaml: load.csv has no column for spec.metrics[1] (memory resource utilization \
         (percentage of request)): add a column named `memory` or `metrics[1]` (columns: cpu)",
    );
}

#[test]
fn scaling_from_zero_shows_no_sentinel_average() {
    let root = repo();
    let d = dir("from-zero");
    write(
        &d,
        "load.csv",
        "time,queue_length\n0,0\n600,0\n600,100\n900,100\n",
    );
    let manifest = root.join("examples/manifests/queue.yaml");
    let out = hpa(
        &[
            "simulate",
            "--hpa",
            manifest.to_str().unwrap(),
            "--load",
            "load.csv",
            "--initial-replicas",
            "1",
            "--explain",
            "--plot",
            "plot.svg",
        ],
        &d,
    );
    let text = stdout_of(&out);
    assert!(!text.contains("9223372036854775807"), "{text}");
    assert!(text.contains("average over no pods"), "{text}");
    let svg = std::fs::read_to_string(d.join("plot.svg")).unwrap();
    assert!(!svg.contains("9223372036854775"), "a sentinel on the plot");
}

#[test]
fn plots_name_each_metric_by_its_source() {
    let d = dir("titles");
    let object = CPU_HPA.replace(
        "    - type: Resource\n      resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}\n",
        "    - type: Object\n      object:\n        describedObject: {apiVersion: networking.k8s.io/v1, \
         kind: Ingress, name: main}\n        metric: {name: rps}\n        target: {type: \
         AverageValue, averageValue: \"100\"}\n",
    );
    assert_ne!(object, CPU_HPA);
    write(&d, "hpa.yaml", &object);
    write(&d, "load.csv", "time,rps\n0,100\n300,400\n");
    let out = hpa(
        &[
            "simulate",
            "--hpa",
            "hpa.yaml",
            "--load",
            "load.csv",
            "--plot",
            "p.svg",
            "--no-events",
        ],
        &d,
    );
    stdout_of(&out);
    let svg = std::fs::read_to_string(d.join("p.svg")).unwrap();
    // Upstream's own name for this metric is "external metric rps(...)".
    assert!(svg.contains("object metric rps of Ingress/main"), "{svg}");
    assert!(!svg.contains("external metric"));
}

/// `hpa simulate` in `d` of `hpa.yaml` with template `pod.yaml` on `load.csv` from 4 pods,
/// explaining the first evaluation, with `extra` arguments.
fn simulate_with_template(d: &Path, extra: &[&str]) -> String {
    let mut args = vec![
        "simulate",
        "--hpa",
        "hpa.yaml",
        "--pod-template",
        "pod.yaml",
        "--load",
        "load.csv",
        "--initial-replicas",
        "4",
        "--explain-at",
        "0",
    ];
    args.extend_from_slice(extra);
    stdout_of(&hpa(&args, d))
}

/// `--pod-template`: a Resource metric's utilization is of the pod's regular containers and
/// sidecars together (not its plain init containers), a ContainerResource metric's of its
/// container; errors name the template's containers.
#[test]
fn pod_templates_give_each_container_its_request() {
    let d = dir("pod-template");
    write(
        &d,
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  initContainers:\n  \
         - {name: setup, resources: {requests: {cpu: '4'}}}\n  \
         - {name: proxy, restartPolicy: Always, resources: {requests: {cpu: 250m}}}\n  \
         containers:\n  - {name: app, resources: {requests: {cpu: 500m}}}\n",
    );
    write(&d, "load.csv", "time,cpu\n0,3\n60,3\n");
    let hpa_of = |metric: &str| {
        format!(
            "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: web}}\n\
             spec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  \
             minReplicas: 1\n  maxReplicas: 20\n  metrics:\n  - {metric}\n"
        )
    };
    let run = |metric: &str| {
        write(&d, "hpa.yaml", &hpa_of(metric));
        simulate_with_template(&d, &[])
    };
    // 3 cores over 4 pods: 750m each, 100 % of app + proxy (750m), twice the 50 % target.
    let text = run(
        "{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}",
    );
    assert!(
        text.contains(
            "pool: start-up delay 30s, pod template pod.yaml (app cpu=500m, init container \
             setup cpu=4, sidecar proxy cpu=250m), noise 0, seed 1\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("100% of request, average 750m vs target 50%: ratio 2, "),
        "{text}"
    );
    // A container alone: app at 750m of 500m, the proxy sidecar at 750m of 250m.
    for (container, line) in [
        (
            "app",
            "150% of request, average 750m vs target 50%: ratio 3, ",
        ),
        (
            "proxy",
            "300% of request, average 750m vs target 50%: ratio 6, ",
        ),
    ] {
        let text = run(&format!(
            "{{type: ContainerResource, containerResource: {{name: cpu, container: {container}, \
             target: {{type: Utilization, averageUtilization: 50}}}}}}"
        ));
        assert!(text.contains(line), "{text}");
    }
    write(&d, "svc.yaml", "apiVersion: v1\nkind: Service\n");
    for (metric, template, expected) in [
        (
            "{type: ContainerResource, containerResource: {name: cpu, container: setup, \
             target: {type: Utilization, averageUtilization: 50}}}",
            "pod.yaml",
            "hpa.yaml: spec.metrics[0] (cpu container resource utilization (percentage of \
             request)): pod.yaml has no container `setup` (containers: app, setup, proxy)",
        ),
        (
            "{type: Resource, resource: {name: memory, target: {type: Utilization, \
             averageUtilization: 50}}}",
            "pod.yaml",
            "hpa.yaml: spec.metrics[0] (memory resource utilization (percentage of request)): \
             a Utilization target needs the pods' request: container `app` of pod.yaml has no \
             memory request",
        ),
        (
            "{type: Resource, resource: {name: cpu, target: {type: Utilization, \
             averageUtilization: 50}}}",
            "svc.yaml",
            "--pod-template svc.yaml: no Pod or Deployment (found Service)",
        ),
    ] {
        write(&d, "hpa.yaml", &hpa_of(metric));
        let args = [
            "--hpa",
            "hpa.yaml",
            "--pod-template",
            template,
            "--load",
            "load.csv",
        ];
        rejected(&d, &args, expected);
    }
}

/// A template's pod-level requests count for a Resource metric where the release has
/// PodLevelResources on (1.34 on), and are dropped, as the API server drops them, where not.
#[test]
fn pod_level_requests_follow_the_release() {
    let d = dir("pod-level");
    write(
        &d,
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  \
         resources: {requests: {cpu: '1'}}\n  \
         containers:\n  - {name: app, resources: {limits: {cpu: 500m}}}\n",
    );
    write(&d, "load.csv", "time,cpu\n0,3\n60,3\n");
    write(
        &d,
        "hpa.yaml",
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\n\
         spec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  \
         minReplicas: 1\n  maxReplicas: 20\n  metrics:\n  - {type: Resource, resource: {name: \
         cpu, target: {type: Utilization, averageUtilization: 50}}}\n",
    );
    let run = |version: &str| simulate_with_template(&d, &["--kubernetes-version", version]);
    // 1.34: 750m a pod of the pod's own 1 core; the container's limit is its request.
    let text = run("1.34");
    assert!(
        text.contains("pod template pod.yaml (app cpu=500m, pod cpu=1), "),
        "{text}"
    );
    assert!(
        text.contains("75% of request, average 750m vs target 50%: ratio 1.5, "),
        "{text}"
    );
    // 1.33: the gate is off, the pod-level request is dropped; 750m of the container's 500m.
    let text = run("1.33");
    assert!(
        text.contains(
            "pod template pod.yaml (app cpu=500m (pod-level resources dropped: \
             PodLevelResources is off)), "
        ),
        "{text}"
    );
    assert!(
        text.contains("150% of request, average 750m vs target 50%: ratio 3, "),
        "{text}"
    );
}

/// The bundled Deployment with a sidecar and its HPA, read from one file, run.
#[test]
fn the_bundled_sidecar_example_runs() {
    let root = repo();
    let example = "examples/manifests/web-sidecar.yaml";
    let args = [
        "simulate",
        "--hpa",
        example,
        "--pod-template",
        example,
        "--load",
        "examples/loads/spike.csv",
        "--no-events",
    ];
    let text = stdout_of(&hpa(&args, &root));
    assert!(
        text.contains(
            "pod template examples/manifests/web-sidecar.yaml (app cpu=500m memory=512Mi, \
             sidecar proxy cpu=250m memory=128Mi)"
        ),
        "{text}"
    );
    assert_eq!(cell(&summary(&text), "initial replicas"), ["12"]);
}

/// A metric's name too long for its panel's caption and axis is shortened there with an
/// ellipsis and given whole in the legend, wrapped; legend lines fit the legend's width.
#[test]
fn long_metric_names_are_shortened_or_wrapped_not_clipped() {
    let d = dir("long-names");
    let name = "istio_requests_per_second_to_the_checkout_service_in_the_eu_west_region_canary";
    write(
        &d,
        "hpa.yaml",
        &CPU_HPA.replace(
            "    - type: Resource\n      resource: {name: cpu, target: {type: Utilization, \
             averageUtilization: 50}}",
            &format!(
                "    - type: External\n      external:\n        metric: {{name: {name}}}\n        \
                 target: {{type: AverageValue, averageValue: \"10\"}}"
            ),
        ),
    );
    write(&d, "load.csv", "time,demand\n0,10\n300,40\n");
    // A template of containers with long names makes the subtitle (the pool line) long.
    let containers: Vec<String> = (1..=6)
        .map(|i| format!("{{name: checkout-service-sidecar-container-number-{i}}}"))
        .collect();
    write(
        &d,
        "pod.yaml",
        &format!(
            "apiVersion: v1\nkind: Pod\nspec: {{containers: [{}]}}\n",
            containers.join(", ")
        ),
    );
    stdout_of(&hpa(
        &[
            "simulate",
            "--hpa",
            "hpa.yaml",
            "--load",
            "load.csv",
            "--pod-template",
            "pod.yaml",
            "--plot",
            "plot.svg",
        ],
        &d,
    ));
    let svg = std::fs::read_to_string(d.join("plot.svg")).expect("the plot");
    // (attributes, text) of each text element.
    let elements: Vec<(&str, &str)> = svg
        .split("<text")
        .skip(1)
        .filter_map(|t| {
            t.split_once('>').and_then(|(attributes, rest)| {
                Some((attributes, rest.split_once("</text>")?.0.trim()))
            })
        })
        .collect();
    // The subtitle is the grey text: in lines that fit the picture, the whole pool line.
    let subtitle: Vec<&str> = elements
        .iter()
        .filter(|(attributes, _)| attributes.contains("#5A5A5A"))
        .map(|(_, text)| *text)
        .collect();
    assert!(subtitle.len() >= 2, "{subtitle:?}");
    assert!(
        subtitle.iter().all(|line| line.chars().count() <= 165),
        "{subtitle:?}"
    );
    assert!(
        subtitle
            .join(" ")
            .contains("checkout-service-sidecar-container-number-6), noise 0"),
        "{subtitle:?}"
    );
    let texts: Vec<&str> = elements
        .iter()
        .filter(|(attributes, _)| !attributes.contains("#5A5A5A"))
        .map(|(_, text)| *text)
        .collect();
    let caption = texts
        .iter()
        .find(|t| t.ends_with(": measured by the HPA vs target"))
        .expect("the metric's caption");
    assert!(caption.contains('…'), "{caption}");
    assert!(caption.chars().count() < 130, "{caption}");
    // The whole name, in the legend's lines.
    let joined: String = texts.concat();
    assert!(joined.contains(name), "{texts:?}");
    assert!(!texts
        .iter()
        .any(|t| t.contains(&format!("external metric {name}"))));
    // No legend or axis text longer than its room.
    assert!(
        texts
            .iter()
            .filter(|t| !t.starts_with("hpa simulate"))
            .all(|t| t.chars().count() <= 130),
        "{texts:?}"
    );
}
