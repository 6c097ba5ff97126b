//! (A module of tests/simulate.rs.) `hpa simulate --replicas`: replica counts recorded from a
//! cluster, set beside the simulated ones. A constant load keeps the simulated pool at 3 pods,
//! so each figure of the comparison is known by hand.

use std::path::Path;

use std::collections::HashMap;

use super::{cell, dir, hpa, rejected, repo, stdout_of, table_after, write};

/// Two cores of constant demand for an hour: web.yaml (70 % of 1 core per pod) holds 3 pods.
const CONSTANT: &str = "time,cpu\n0,2\n3600,2\n";

/// The comparison block: row name to its cells (recorded, then each run).
fn comparison(text: &str) -> HashMap<String, Vec<String>> {
    table_after(text, "counted at the evaluations:\n")
}

fn simulate(d: &Path, recording: &Path, extra: &[&str]) -> String {
    let manifest = repo().join("examples/manifests/web.yaml");
    let load = write(d, "constant.csv", CONSTANT);
    let mut args = vec![
        "simulate",
        "--hpa",
        manifest.to_str().unwrap(),
        "--load",
        load.to_str().unwrap(),
        "--replicas",
        recording.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    stdout_of(&hpa(&args, d))
}

#[test]
fn a_recording_is_counted_at_the_evaluations() {
    let d = dir("recorded_counts");
    // The cluster ran 4 pods from 0:10:00 to 0:15:00 (20 evaluations at 15 s), else 3.
    let recording = write(
        &d,
        "replicas.csv",
        "time,replicas\n0,3\n600,4\n900,3\n3600,3\n",
    );
    let text = simulate(&d, &recording, &[]);
    assert!(
        text.contains("\nRecorded replicas (") && text.contains("covering the whole run"),
        "{text}"
    );
    let rows = comparison(&text);
    // 3 pods for an hour, plus one for 5 minutes: 3 + 1/12 pod-hours.
    assert_eq!(cell(&rows, "pod-hours"), ["3.1", "3"]);
    assert_eq!(cell(&rows, "mean pods"), ["3.08", "3"]);
    assert_eq!(cell(&rows, "max pods"), ["4", "3"]);
    assert_eq!(
        cell(&rows, "scale events"),
        ["2 (1 up, 1 down)", "0 (0 up, 0 down)"]
    );
    assert_eq!(cell(&rows, "direction reversals"), ["1", "0"]);
    assert_eq!(
        cell(&rows, "time at another count"),
        ["-", "0:05:00 (8.3 %)"]
    );
    assert_eq!(cell(&rows, "mean |difference|"), ["-", "0.08 pods"]);
    assert_eq!(
        cell(&rows, "largest difference"),
        ["-", "-1 pods at 0:10:00"]
    );

    // The same counts as the simulation: no difference at all.
    let same = write(&d, "same.csv", "time,replicas\n0,3\n3600,3\n");
    let rows = comparison(&simulate(&d, &same, &[]));
    assert_eq!(cell(&rows, "pod-hours"), ["3", "3"]);
    assert_eq!(cell(&rows, "time at another count"), ["-", "0:00:00 (0 %)"]);
    assert_eq!(cell(&rows, "largest difference"), ["-", "none"]);

    // A recording of half the run covers the evaluations from its first sample to its last.
    let half = write(&d, "half.csv", "time,replicas\n1800,5\n3600,5\n");
    let text = simulate(&d, &half, &[]);
    assert!(
        text.contains("covering 0:30:00 to 1:00:00, 50 % of the run"),
        "{text}"
    );
    let rows = comparison(&text);
    assert_eq!(cell(&rows, "pod-hours"), ["2.5", "1.5"]);
    assert_eq!(
        cell(&rows, "largest difference"),
        ["-", "-2 pods at 0:30:00"]
    );
}

#[test]
fn a_prometheus_recording_and_the_plot() {
    let d = dir("recorded_prometheus");
    // kube-state-metrics' replica counts of two Deployments; only web's is this HPA's.
    let recording = write(
        &d,
        "replicas.json",
        r#"{"status":"success","data":{"resultType":"matrix","result":[
            {"metric":{"__name__":"kube_deployment_status_replicas","deployment":"web"},
             "values":[[0,"3"],[600,"4"],[900,"3"],[3600,"3"]]},
            {"metric":{"__name__":"kube_deployment_status_replicas","deployment":"api"},
             "values":[[0,"7"],[3600,"7"]]}]}}"#,
    );
    let text = simulate(
        &d,
        &recording,
        &[
            "--replicas-series",
            r#"{deployment="web"}"#,
            "--plot",
            "plot.svg",
        ],
    );
    let rows = comparison(&text);
    assert_eq!(cell(&rows, "pod-hours"), ["3.1", "3"]);
    assert_eq!(
        cell(&rows, "largest difference"),
        ["-", "-1 pods at 0:10:00"]
    );
    let svg = std::fs::read_to_string(d.join("plot.svg")).unwrap();
    assert!(
        svg.contains("recorded replicas"),
        "no recorded line in the plot"
    );
}

#[test]
fn bad_recordings_are_refused_before_the_run() {
    let d = dir("recorded_refused");
    write(&d, "load.csv", CONSTANT);
    let manifest = repo().join("examples/manifests/web.yaml");
    let manifest = manifest.to_str().unwrap();
    let base = ["--hpa", manifest, "--load", "load.csv", "--replicas"];
    let with = |file: &str, extra: &[&'static str]| -> Vec<String> {
        base.iter()
            .map(|s| s.to_string())
            .chain(std::iter::once(file.to_owned()))
            .chain(extra.iter().map(|s| s.to_string()))
            .collect()
    };
    let refuse = |args: Vec<String>, expected: &str| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        rejected(&d, &args, expected);
    };
    write(&d, "half.csv", "time,replicas\n0,3\n600,2.5\n");
    refuse(
        with("half.csv", &[]),
        "--replicas half.csv: 2.5 at time 600s: a replica count is a whole number from 0 to \
         2147483647",
    );
    write(&d, "two.csv", "time,web,api\n0,3,4\n600,3,4\n");
    refuse(
        with("two.csv", &[]),
        "--replicas two.csv: a recording of replica counts has one column besides `time`; this \
         one has 2 (web, api)",
    );
    // Unix times against a load counting from 0: no common clock.
    write(
        &d,
        "unix.csv",
        "time,replicas\n1700000000,3\n1700003600,3\n",
    );
    refuse(
        with("unix.csv", &[]),
        "--replicas unix.csv: the recording (times 1700000000s to 1700003600s) covers none of \
         the load's evaluations (times 0s to 3600s): both must be on one clock, Unix times \
         from the same Prometheus or seconds from the same start",
    );
    write(&d, "csv.csv", "time,replicas\n0,3\n600,3\n");
    refuse(
        with("csv.csv", &["--replicas-series", "sum"]),
        "--replicas csv.csv: --replicas-series applies to a Prometheus range-query result \
         (JSON); a CSV file names its columns in its header",
    );
    write(
        &d,
        "several.json",
        r#"{"resultType":"matrix","result":[
            {"metric":{"deployment":"web"},"values":[[0,"3"],[60,"3"]]},
            {"metric":{"deployment":"api"},"values":[[0,"7"],[60,"7"]]}]}"#,
    );
    refuse(
        with("several.json", &[]),
        "--replicas several.json: the result holds 2 series: say which with \
         --replicas-series, such as --replicas-series 'sum({deployment=\"web\"})' for the sum \
         of one Deployment's",
    );
    refuse(
        with("several.json", &["--replicas-series", r#"{app="x"}"#]),
        "--replicas several.json: --replicas-series: no series matches {app=\"x\"} (the result \
         has 2 series)",
    );
}
