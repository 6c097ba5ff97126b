//! `hpa replay` end to end: the bundled traces give the classic scenarios' decisions, output
//! is deterministic, and an invalid trace prints nothing on standard output and exits 2.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn replay(trace: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hpa"))
        .arg("replay")
        .arg(trace)
        .output()
        .expect("the hpa binary runs")
}

fn lines(name: &str) -> Vec<Value> {
    let out = replay(&repo().join("examples/traces").join(name));
    assert!(
        out.status.success(),
        "replay of {name} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("UTF-8 output")
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect()
}

fn desired(lines: &[Value]) -> Vec<i64> {
    lines
        .iter()
        .map(|l| l["desiredReplicas"].as_i64().expect("desiredReplicas"))
        .collect()
}

fn condition(line: &Value, type_: &str) -> (String, String) {
    let c = &line["conditions"][type_];
    (
        c[0].as_str().unwrap_or_default().to_string(),
        c[1].as_str().unwrap_or_default().to_string(),
    )
}

#[test]
fn cpu_utilization_scale_up_goes_from_3_to_5() {
    let l = lines("cpu-scale-up.json");
    assert_eq!(desired(&l), [5, 5, 5]);
    assert_eq!(l[0]["rescale"], true);
    assert_eq!(
        l[0]["reason"],
        "cpu resource utilization (percentage of request) above target"
    );
    assert_eq!(l[0]["metrics"][0]["currentAverageUtilization"], 100);
    assert_eq!(l[0]["metrics"][0]["currentAverageValue"], "500m");
    assert_eq!(
        condition(&l[0], "AbleToScale"),
        ("True".into(), "SucceededRescale".into())
    );
    // Two new pods are not ready yet; the ready ones sit at the target.
    assert_eq!(l[1]["rescale"], false);
    assert_eq!(l[1]["metrics"][0]["currentAverageUtilization"], 60);
}

#[test]
fn queue_length_external_metric_goes_from_3_to_16() {
    let l = lines("queue-external.json");
    assert_eq!(desired(&l), [16, 16, 16]);
    assert_eq!(l[0]["metrics"][0]["replicas"], 16);
    // A failed fetch keeps the previous desired count and reports why.
    assert_eq!(
        condition(&l[2], "ScalingActive"),
        ("False".into(), "FailedGetExternalMetric".into())
    );
    let error = l[2]["metrics"][0]["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("external metrics adapter unavailable"),
        "{error}"
    );
    assert_eq!(l[2]["rescale"], false);
}

#[test]
fn behavior_example_bursts_then_drains_one_pod_every_10_seconds() {
    let l = lines("behavior-burst.json");
    let d = desired(&l);
    // Percent 900 per 300 s: 1 -> 10 at once, held at 10 until the period has passed.
    assert_eq!(d[0], 10);
    assert_eq!(
        condition(&l[0], "ScalingLimited"),
        ("True".into(), "ScaleUpLimit".into())
    );
    let at = |i: usize| l[i]["at"].as_i64().unwrap_or_default();
    for (i, line) in l.iter().enumerate().skip(1) {
        if at(i) < 300_000 {
            assert_eq!(line["desiredReplicas"], 10, "step at {}", at(i));
        }
    }
    let i300 = (0..l.len())
        .find(|&i| at(i) == 300_000)
        .expect("a step at 300 s");
    assert_eq!(d[i300], 13);
    // Load drops at 315 s; the 60 s down window holds 13 until 360 s, then one pod per 10 s.
    for i in i300 + 1..l.len() {
        if at(i) < 360_000 {
            assert_eq!(d[i], 13, "step at {}", at(i));
            assert_eq!(condition(&l[i], "AbleToScale").1, "ScaleDownStabilized");
        }
    }
    let drain: Vec<i64> = (0..l.len())
        .filter(|&i| at(i) >= 360_000)
        .map(|i| d[i])
        .collect();
    assert_eq!(drain, [12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 3]);
}

#[test]
fn eighty_replicas_scale_down_by_percent_10_or_pods_4_per_minute() {
    let l = lines("scale-down-percent.json");
    assert_eq!(desired(&l), [72, 64, 57, 51, 45, 40, 36, 32]);
    assert_eq!(
        condition(&l[0], "ScalingLimited"),
        ("True".into(), "ScaleDownLimit".into())
    );
}

#[test]
fn replay_is_deterministic() {
    let trace = repo().join("examples/traces/behavior-burst.json");
    let a = replay(&trace);
    let b = replay(&trace);
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
}

fn write_temp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hpa-replay-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write trace");
    path
}

#[test]
fn invalid_trace_exits_2_with_the_field_and_prints_nothing() {
    let text = r#"{
      "hpa": {"spec": {"minReplicas": 0, "maxReplicas": 5,
        "metrics": [{"type": "Resource", "resource": {"name": "cpu",
          "target": {"type": "Utilization", "averageUtilization": 50}}}]}},
      "controller": {"scaleToZero": false},
      "steps": [{"at": 0, "replicas": 1, "metrics": [{"samples": {}}]}]
    }"#;
    let out = replay(&write_temp("min-zero.json", text));
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "hpa replay: hpa.spec.minReplicas: Invalid value: 0: must be greater than or equal to 1"
        ),
        "{stderr}"
    );
}

#[test]
fn a_bad_late_step_prints_nothing_at_all() {
    let text = r#"{
      "hpa": {"spec": {"maxReplicas": 5, "metrics": [{"type": "External", "external": {
        "metric": {"name": "q"}, "target": {"type": "Value", "value": "10"}}}]}},
      "steps": [
        {"at": 0, "replicas": 1, "metrics": [{"values": ["5"]}]},
        {"at": -1, "replicas": 1, "metrics": [{"values": ["5"]}]}
      ]
    }"#;
    let out = replay(&write_temp("backwards.json", text));
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("steps[1]"));
}

#[test]
fn yaml_trace_replays_like_json() {
    let yaml = replay(&repo().join("examples/traces/cpu-scale-up.yaml"));
    let json = replay(&repo().join("examples/traces/cpu-scale-up.json"));
    assert!(
        yaml.status.success(),
        "{}",
        String::from_utf8_lossy(&yaml.stderr)
    );
    let first_json_line = json
        .stdout
        .split(|b| *b == b'\n')
        .next()
        .unwrap_or_default();
    let yaml_text = String::from_utf8_lossy(&yaml.stdout);
    assert_eq!(yaml_text.lines().count(), 1);
    assert_eq!(yaml_text.trim_end().as_bytes(), first_json_line);
}

#[test]
fn an_invalid_trace_reports_its_first_api_error_only() {
    // Three API validation errors; a trace reports the first (docs/spec/trace-format.md#rule-23).
    let text = r#"{
      "hpa": {"spec": {"minReplicas": -1, "maxReplicas": 0,
        "metrics": [{"type": "Resource", "resource": {"name": "cpu",
          "target": {"type": "Utilization", "averageUtilization": 0}}}]}},
      "steps": [{"at": 0, "replicas": 1, "metrics": [{"samples": {}}]}]
    }"#;
    let out = replay(&write_temp("three-errors.json", text));
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "hpa replay: hpa.spec.minReplicas: Invalid value: -1: must be greater than or equal to \
         0\n"
    );
}

/// Readings upstream's arithmetic takes as they are are named in the line (`reading`) and in
/// `--explain`: a negative External entry under an AverageValue target (upstream's guard takes
/// the sum as MaxInt64) and a negative Object value; plain readings have no `reading`.
#[test]
fn negative_readings_and_the_overflow_guard_are_visible() {
    let trace = write_temp(
        "readings.json",
        r#"{"hpa": {"spec": {"minReplicas": 1, "maxReplicas": 20, "metrics": [
  {"type": "External", "external": {"metric": {"name": "q"},
    "target": {"type": "AverageValue", "averageValue": "1"}}},
  {"type": "Object", "object": {"describedObject": {"kind": "Service", "name": "s", "apiVersion": "v1"},
    "metric": {"name": "rps"}, "target": {"type": "Value", "value": "10"}}}]}},
 "steps": [
  {"at": 0, "replicas": 3, "pods": [{"name": "p0", "ready": "True"}],
   "metrics": [{"values": ["2", "-5"]}, {"value": "-5"}]},
  {"at": 15000, "replicas": 6, "pods": [{"name": "p0", "ready": "True"}],
   "metrics": [{"values": ["6"]}, {"value": "60"}]}]}"#,
    );
    let out = replay(&trace);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let l: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(l[0]["metrics"][0]["reading"], "treatedAsOverflow");
    assert_eq!(l[0]["metrics"][0]["replicas"], i64::from(i32::MAX));
    assert_eq!(l[0]["metrics"][1]["reading"], "negative");
    assert_eq!(l[0]["metrics"][1]["replicas"], 0);
    for m in l[1]["metrics"].as_array().unwrap() {
        assert!(m.get("reading").is_none(), "{m}");
    }
    let explain = Command::new(env!("CARGO_BIN_EXE_hpa"))
        .args(["replay", "--explain"])
        .arg(&trace)
        .output()
        .unwrap();
    let text = String::from_utf8(explain.stdout).unwrap();
    assert!(
        text.contains("upstream's guard took the series sum as MaxInt64"),
        "{text}"
    );
    assert!(text.contains("a reading or request was negative"), "{text}");
}
