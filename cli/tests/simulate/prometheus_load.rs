//! (A module of tests/simulate.rs.) `hpa simulate --load` with a Prometheus range-query result: the bundled example
//! (`examples/loads/prometheus-spike.json`) gives exactly what the same demand written as a
//! CSV load gives, its columns chosen with `--series`; and the flag's errors.

use std::path::Path;
use std::process::Output;

use super::{repo, stdout_of};

fn hpa(args: &[&str]) -> Output {
    super::hpa(args, &repo())
}

/// A non-negative decimal (`0.0219`, `4`) in milli-units, rounded up as Kubernetes'
/// `MilliValue` rounds: written here independently of the tool's quantity parser.
fn milli_rounded_up(text: &str) -> i64 {
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    let first3: String = frac.chars().chain("000".chars()).take(3).collect();
    let rest_nonzero = frac.chars().skip(3).any(|c| c != '0');
    whole.parse::<i64>().unwrap() * 1000 + first3.parse::<i64>().unwrap() + i64::from(rest_nonzero)
}

/// The example's `container="app"` series summed per timestamp, as CSV text with times from
/// the first timestamp (the CSV's `time` is relative as the simulation's clock is).
fn app_demand_as_csv() -> String {
    let text =
        std::fs::read_to_string(repo().join("examples/loads/prometheus-spike.json")).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut sums = std::collections::BTreeMap::<i64, i64>::new();
    for series in doc["data"]["result"].as_array().unwrap() {
        if series["metric"]["container"] != "app" {
            continue;
        }
        for point in series["values"].as_array().unwrap() {
            let time = point[0].as_i64().unwrap();
            *sums.entry(time).or_default() += milli_rounded_up(point[1].as_str().unwrap());
        }
    }
    let start = *sums.keys().next().unwrap();
    let mut csv = String::from("time,cpu\n");
    for (time, milli) in sums {
        csv.push_str(&format!("{},{milli}m\n", time - start));
    }
    csv
}

#[test]
fn a_prometheus_result_decides_as_the_same_demand_in_csv() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("prometheus_load");
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("app.csv");
    std::fs::write(&csv, app_demand_as_csv()).unwrap();
    let common = [
        "simulate",
        "--hpa",
        "examples/manifests/web-sidecar.yaml",
        "--pod-template",
        "examples/manifests/web-sidecar.yaml",
        "--noise",
        "0.05",
    ];
    let from_prometheus = stdout_of(&hpa(&[
        &common[..],
        &[
            "--load",
            "examples/loads/prometheus-spike.json",
            "--series",
            r#"cpu=sum({container="app"})"#,
        ],
    ]
    .concat()));
    let from_csv = stdout_of(&hpa(
        &[&common[..], &["--load", csv.to_str().unwrap()]].concat()
    ));
    // The first line names the load file; everything after it is the same.
    let body = |text: &str| text.split_once('\n').unwrap().1.to_owned();
    assert_eq!(body(&from_prometheus), body(&from_csv));
    assert!(
        from_prometheus.contains("SuccessfulRescale"),
        "{from_prometheus}"
    );
    assert!(
        from_prometheus.starts_with(
            "hpa simulate: examples/loads/prometheus-spike.json from 0:00:00 to 2:00:00"
        ),
        "{from_prometheus}"
    );
}

fn refused(args: &[&str], expected: &str) {
    let out = hpa(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty(), "{args:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.trim_end(), expected, "{args:?}");
}

#[test]
fn series_errors_are_clear() {
    let base = [
        "simulate",
        "--hpa",
        "examples/manifests/web.yaml",
        "--load",
        "examples/loads/prometheus-spike.json",
    ];
    refused(
        &base,
        "hpa simulate: examples/loads/prometheus-spike.json: the result holds 28 series: say \
         which feed which metric with --series, such as --series 'cpu=sum({})' for their sum",
    );
    refused(
        &[&base[..], &["--series", r#"cpu={container="app"}"#]].concat(),
        "hpa simulate: examples/loads/prometheus-spike.json: --series cpu: 14 series match \
         {container=\"app\"}; combine them with sum, max, min or avg, such as \
         cpu=sum({container=\"app\"})",
    );
    refused(
        &[&base[..], &["--series", r#"cpu=sum({pod=~"web-.*"})"#]].concat(),
        "hpa simulate: --series: invalid series \"cpu=sum({pod=~\\\"web-.*\\\"})\": \
         regular-expression matchers (=~, !~) are not supported: use = or !=",
    );
    refused(
        &[
            "simulate",
            "--hpa",
            "examples/manifests/web.yaml",
            "--load",
            "examples/loads/spike.csv",
            "--series",
            "cpu=sum",
        ],
        "hpa simulate: examples/loads/spike.csv: --series applies to a Prometheus range-query \
         result (JSON); a CSV file names its columns in its header",
    );
}
