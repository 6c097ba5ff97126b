//! `hpa validate`: Kubernetes' field errors (`<field path>: <message>`) on standard error with
//! exit status 1; a short confirmation on standard output and status 0 for a valid manifest.

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

/// Asserts exit status 1, nothing on standard output and exactly `expected` on standard error.
fn rejected(path: &Path, expected: &str) {
    let out = validate(path);
    assert_eq!(out.status.code(), Some(1), "{}", path.display());
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
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
            "no-target-ref",
            format!("{HEAD}spec:\n  maxReplicas: 10\n"),
            "spec.scaleTargetRef.kind: Required value",
        ),
        (
            "no-name",
            "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nspec:\n  maxReplicas: 10\n"
                .to_owned(),
            "metadata.name: Required value: name or generateName is required",
        ),
        (
            "version",
            "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata: {name: x}\n".to_owned(),
            "apiVersion: Unsupported value: \"autoscaling/v1\": supported values: \"autoscaling/v2\"",
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
