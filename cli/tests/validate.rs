//! `hpa validate`: Kubernetes' field errors (`<field path>: <message>`, every one, a line each)
//! on standard error with exit status 1; a short confirmation on standard output and status 0 for a valid manifest.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Writes `text` to a fresh file named `name` under the test's temporary directory.
fn file(test: &str, name: &str, text: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("validate")
        .join(test);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write the manifest");
    path
}

fn validate(path: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hpa"))
        .arg("validate")
        .arg(path)
        .output()
        .expect("the hpa binary runs")
}

/// Asserts exit status 1, only the cluster assumed on standard output and exactly `expected` on
/// standard error.
fn rejected(path: &Path, expected: &str) {
    let out = validate(path);
    assert_eq!(out.status.code(), Some(1), "{}", path.display());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout,
        format!(
            "{}: assuming {}\n",
            path.display(),
            hpa_cli::trace::Cluster::NEWEST
        )
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("{expected}\n")
    );
}

const HEAD: &str =
    "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\n";
const TARGET: &str = "  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n";

#[test]
fn bundled_manifests_are_valid() {
    for name in [
        "web.yaml",
        "web-tuned.yaml",
        "web-tuned-daily.yaml",
        "web-rps.yaml",
        "queue.yaml",
        "fleet.yaml",
    ] {
        let path = repo().join("examples/manifests").join(name);
        let out = validate(&path);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stderr.is_empty());
        let text = String::from_utf8(out.stdout).expect("UTF-8");
        assert!(
            text.contains(": valid autoscaling/v2 HorizontalPodAutoscaler"),
            "{text}"
        );
    }
    let out = validate(&repo().join("examples/manifests/web-tuned.yaml"));
    assert!(String::from_utf8_lossy(&out.stdout).ends_with(
        "valid autoscaling/v2 HorizontalPodAutoscaler \"web-tuned\": 1 metric, replicas 2 to 40, \
         with behavior\n"
    ));
}

#[test]
fn json_manifests_are_read_too() {
    let path = file(
        "json",
        "web.json",
        r#"{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                     "maxReplicas": 5}}"#,
    );
    let out = validate(&path);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout)
        .ends_with("\"web\": 1 metric (the default cpu 80 %), replicas 1 to 5, without behavior (legacy scaling rules)\n"));
    let bad = file("json", "bad.json", r#"{"spec": {"maxReplicas": "3"}}"#);
    rejected(
        &bad,
        "spec.maxReplicas: invalid type: string \"3\", expected i32 at line 1 column 28",
    );
}

#[test]
fn api_validation_errors_have_field_paths() {
    let cases = [
        (
            "min0",
            format!("{HEAD}spec:\n{TARGET}  minReplicas: 0\n  maxReplicas: 10\n"),
            "spec.metrics: Forbidden: must specify at least one Object or External metric to \
             support scaling to zero replicas",
        ),
        (
            "max-below-min",
            format!("{HEAD}spec:\n{TARGET}  minReplicas: 5\n  maxReplicas: 3\n"),
            "spec.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`",
        ),
        (
            "policy",
            format!(
                "{HEAD}spec:\n{TARGET}  maxReplicas: 10\n  behavior:\n    scaleDown:\n      \
                 policies:\n        - {{type: Percent, value: 0, periodSeconds: 15}}\n"
            ),
            "spec.behavior.scaleDown.policies[0].value: Invalid value: 0: must be greater than zero",
        ),
        (
            "select",
            format!(
                "{HEAD}spec:\n{TARGET}  maxReplicas: 10\n  behavior:\n    scaleUp: {{selectPolicy: Fastest}}\n"
            ),
            "spec.behavior.scaleUp.selectPolicy: Unsupported value: \"Fastest\": supported \
             values: \"Disabled\", \"Max\", \"Min\"",
        ),
        (
            // An absent reference is an empty one: all three of its errors.
            "no-target-ref",
            format!("{HEAD}spec:\n  maxReplicas: 10\n"),
            "spec.scaleTargetRef.kind: Required value\nspec.scaleTargetRef.name: Required \
             value\nspec.scaleTargetRef.apiVersion: Invalid value: \"\": apiVersion must specify \
             API group",
        ),
        (
            "no-name",
            "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nspec:\n  maxReplicas: 10\n"
                .to_owned(),
            "metadata.name: Required value: name or generateName is required",
        ),
        (
            "version",
            "apiVersion: autoscaling/v3\nkind: HorizontalPodAutoscaler\nmetadata: {name: x}\n".to_owned(),
            "apiVersion: Unsupported value: \"autoscaling/v3\": supported values: \"autoscaling/v1\", \"autoscaling/v2\"",
        ),
    ];
    for (name, text, expected) in cases {
        rejected(&file(name, "hpa.yaml", &text), expected);
    }
}

#[test]
fn parse_errors_name_the_field_and_line() {
    let typo = format!(
        "{HEAD}spec:\n{TARGET}  maxReplicas: 10\n  metrics:\n    - type: Resource\n      \
         resource: {{name: cpu, targt: {{type: Utilization, averageUtilization: 50}}}}\n"
    );
    rejected(
        &file("typo", "hpa.yaml", &typo),
        "spec.metrics[0].resource.targt: unknown field `targt`, expected `name` or `target` at \
         line 9 column 29",
    );
    let quantity = format!(
        "{HEAD}spec:\n{TARGET}  maxReplicas: 10\n  metrics:\n    - type: Pods\n      pods:\n        \
         metric: {{name: rps}}\n        target: {{type: AverageValue, averageValue: 12x}}\n"
    );
    let out = validate(&file("quantity", "hpa.yaml", &quantity));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr)
        .starts_with("spec.metrics[0].pods.target.averageValue: invalid quantity \"12x\""));
    let out = validate(Path::new("no/such/manifest.yaml"));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("cannot read no/such/manifest.yaml"));
}

#[test]
fn every_api_validation_error_is_printed_in_the_api_servers_order() {
    // Errors in the replica bounds, two metrics, both behavior directions and a tolerance.
    let text = format!(
        "{HEAD}spec:\n{TARGET}  minReplicas: 0\n  maxReplicas: 0\n  metrics:\n    - type: \
         Resource\n      resource: {{name: cpu, target: {{type: Utilization, \
         averageUtilization: 0}}}}\n    - type: Pods\n      pods: {{metric: {{name: \"\"}}, \
         target: {{type: Average, averageValue: \"-1\"}}}}\n  behavior:\n    scaleUp: \
         {{selectPolicy: Fastest, policies: []}}\n    scaleDown:\n      tolerance: -0.05\n      \
         policies:\n        - {{type: Percent, value: 0, periodSeconds: 2000}}\n"
    );
    let expected = [
        "spec.maxReplicas: Invalid value: 0: must be greater than 0",
        "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater \
         than 0",
        "spec.metrics[1].pods.metric.name: Required value: must specify a metric name",
        "spec.metrics[1].pods.target.type: Invalid value: \"Average\": must be either \
         Utilization, Value, or AverageValue",
        "spec.metrics[1].pods.target.averageValue: Invalid value: -1: must be positive",
        "spec.metrics: Forbidden: must specify at least one Object or External metric to \
         support scaling to zero replicas",
        "spec.behavior.scaleUp.selectPolicy: Unsupported value: \"Fastest\": supported values: \
         \"Disabled\", \"Max\", \"Min\"",
        "spec.behavior.scaleUp.policies: Required value: must specify at least one Policy",
        "spec.behavior.scaleDown.policies[0].value: Invalid value: 0: must be greater than zero",
        "spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 2000: must be less \
         than or equal to 1800",
        "spec.behavior.scaleDown.tolerance: Invalid value: -50m: must be greater or equal to \
         zero",
    ];
    rejected(&file("many", "hpa.yaml", &text), &expected.join("\n"));

    // A metric without `type`: Required and Unsupported, then its source is still checked.
    let text = format!(
        "{HEAD}spec:\n{TARGET}  maxReplicas: 3\n  metrics:\n    - resource: {{name: \"\", \
         target: {{type: Utilization, averageUtilization: 50}}}}\n"
    );
    rejected(
        &file("no-type", "hpa.yaml", &text),
        "spec.metrics[0].type: Required value: must specify a metric source type\n\
         spec.metrics[0].type: Unsupported value: \"\": supported values: \"ContainerResource\", \
         \"External\", \"Object\", \"Pods\", \"Resource\"\n\
         spec.metrics[0].resource.name: Required value: must specify a resource name",
    );
}
