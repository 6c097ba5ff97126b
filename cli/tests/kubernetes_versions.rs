//! `--kubernetes-version` and `--feature-gates` (docs/kubernetes-versions.md): for each row of
//! the table a manifest one release accepts and another refuses, the flags' refusals, and the
//! default (the newest release with its default gates), named by every verdict.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Writes `text` to a fresh file named `name` under the test's temporary directory.
fn file(test: &str, name: &str, text: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("kubernetes-versions")
        .join(test);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write the file");
    path
}

fn hpa(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hpa"))
        .args(args)
        .output()
        .expect("the hpa binary runs")
}

fn utf8(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `hpa validate` of `path` with `flags`: the exit status, standard output and error.
fn validate(path: &Path, flags: &[&str]) -> (Option<i32>, String, String) {
    let mut args = vec!["validate", path.to_str().expect("UTF-8 path")];
    args.extend_from_slice(flags);
    let out = hpa(&args);
    (out.status.code(), utf8(&out.stdout), utf8(&out.stderr))
}

/// Asserts that `flags` make `hpa validate` accept `path`, and returns its warnings.
fn accepted(path: &Path, flags: &[&str]) -> String {
    let (code, stdout, stderr) = validate(path, flags);
    assert_eq!(code, Some(0), "{flags:?}: {stderr}");
    assert!(stdout.contains(": valid autoscaling/v2"), "{stdout}");
    stderr
}

/// Asserts that `flags` make `hpa validate` refuse `path` with exactly `errors`.
fn refused(path: &Path, flags: &[&str], errors: &str) {
    let (code, _, stderr) = validate(path, flags);
    assert_eq!(code, Some(1), "{flags:?}");
    assert_eq!(stderr, format!("{errors}\n"), "{flags:?}");
}

const HEAD: &str =
    "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\n\
spec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 10\n";
const CPU: &str = "  metrics:\n  - type: Resource\n    resource: {name: cpu, target: {type: \
Utilization, averageUtilization: 50}}\n";

#[test]
fn scale_to_zero_is_beta_from_1_37() {
    let path = file(
        "zero",
        "hpa.yaml",
        &format!(
            "{HEAD}  minReplicas: 0\n  metrics:\n  - type: External\n    external:\n      \
             metric: {{name: queue}}\n      target: {{type: AverageValue, averageValue: 30}}\n"
        ),
    );
    accepted(&path, &[]);
    accepted(&path, &["--kubernetes-version", "1.37"]);
    let message = "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1";
    refused(&path, &["--kubernetes-version", "1.36"], message);
    refused(&path, &["--kubernetes-version", "1.23"], message);
    refused(&path, &["--feature-gates", "HPAScaleToZero=false"], message);
    accepted(
        &path,
        &[
            "--kubernetes-version",
            "1.23",
            "--feature-gates",
            "HPAScaleToZero=true",
        ],
    );
}

#[test]
fn tolerances_exist_from_1_33_and_are_on_from_1_35() {
    let path = file(
        "tolerance",
        "hpa.yaml",
        &format!("{HEAD}{CPU}  behavior:\n    scaleDown: {{tolerance: \"0.05\"}}\n"),
    );
    assert_eq!(accepted(&path, &["--kubernetes-version", "1.35"]), "");
    refused(
        &path,
        &["--kubernetes-version", "1.32"],
        "spec.behavior.scaleDown.tolerance: unknown field \"tolerance\": Kubernetes 1.32 has no \
         per-direction tolerance (added in 1.33)",
    );
    // Alpha in 1.33 and 1.34: the API server drops the field, as the tool says.
    let warnings = accepted(&path, &["--kubernetes-version", "1.33"]);
    assert!(
        warnings.ends_with(
            "warning: spec.behavior.scaleDown.tolerance dropped: the HPAConfigurableTolerance \
             feature gate is off\n"
        ),
        "{warnings}"
    );
    let on = [
        "--kubernetes-version",
        "1.34",
        "--feature-gates",
        "HPAConfigurableTolerance=true",
    ];
    assert_eq!(accepted(&path, &on), "");
    // Dropped, a negative tolerance is not validated either.
    let negative = file(
        "tolerance",
        "negative.yaml",
        &format!("{HEAD}{CPU}  behavior:\n    scaleDown: {{tolerance: \"-1\"}}\n"),
    );
    accepted(&negative, &["--kubernetes-version", "1.33"]);
    refused(
        &negative,
        &[],
        "spec.behavior.scaleDown.tolerance: Invalid value: -1: must be greater or equal to zero",
    );
    // An autoscaling/v2beta2 tolerance annotation means nothing before 1.33.
    let v2beta2 = repo().join("cli/tests/manifests/v2beta2.yaml");
    accepted(&v2beta2, &["--kubernetes-version", "1.25"]);
}

#[test]
fn container_resource_metrics_need_their_gate_before_1_27() {
    let path = file(
        "container",
        "hpa.yaml",
        &format!(
            "{HEAD}  metrics:\n  - type: ContainerResource\n    containerResource: {{name: cpu, \
             container: app, target: {{type: Utilization, averageUtilization: 50}}}}\n"
        ),
    );
    refused(
        &path,
        &["--kubernetes-version", "1.23"],
        "spec.metrics[0].containerResource: Required value: must populate information for the \
         given metric source (only allowed when HPAContainerMetrics feature is enabled)",
    );
    let on = [
        "--kubernetes-version",
        "1.23",
        "--feature-gates",
        "HPAContainerMetrics=true",
    ];
    accepted(&path, &on);
    accepted(&path, &["--kubernetes-version", "1.27"]);
    accepted(&path, &[]);
}

#[test]
fn object_reference_api_versions_are_checked_from_1_34() {
    let path = file(
        "api-version",
        "hpa.yaml",
        &format!("{HEAD}{CPU}").replace("apps/v1", "v1"),
    );
    let message = "spec.scaleTargetRef.apiVersion: Invalid value: \"v1\": apiVersion must \
                   specify API group";
    refused(&path, &[], message);
    refused(&path, &["--kubernetes-version", "1.34"], message);
    accepted(&path, &["--kubernetes-version", "1.33"]);
}

#[test]
fn served_api_versions() {
    let v2beta1 = repo().join("cli/tests/manifests/v2beta1.yaml");
    accepted(&v2beta1, &["--kubernetes-version", "1.24"]);
    let (code, _, stderr) = validate(&v2beta1, &["--kubernetes-version", "1.25"]);
    assert_eq!(code, Some(1));
    assert!(stderr.starts_with(
        "apiVersion: autoscaling/v2beta1 HorizontalPodAutoscaler is no longer served since \
         Kubernetes 1.25"
    ));
    let v2beta2 = repo().join("cli/tests/manifests/v2beta2.yaml");
    accepted(&v2beta2, &["--kubernetes-version", "1.25"]);
    let (code, _, stderr) = validate(&v2beta2, &["--kubernetes-version", "1.26"]);
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("no longer served since Kubernetes 1.26"),
        "{stderr}"
    );
}

#[test]
fn every_verdict_names_the_cluster() {
    let path = file("default", "hpa.yaml", &format!("{HEAD}{CPU}"));
    let (_, stdout, _) = validate(&path, &[]);
    assert!(stdout.starts_with(&format!(
        "{}: assuming Kubernetes 1.37, feature gates HPAScaleToZero=true, \
         HPAConfigurableTolerance=true, PodLevelResources=true, HPAGeneration=true, \
         HPAOptimizedSelectorStore=true, SidecarContainers=true (its defaults)\n",
        path.display()
    )));
    let (_, stdout, _) = validate(
        &path,
        &[
            "--kubernetes-version",
            "v1.30",
            "--feature-gates",
            "HPAScaleToZero=true",
        ],
    );
    assert!(stdout.contains(
        ": assuming Kubernetes 1.30, feature gates HPAScaleToZero=true (set), \
         HPAContainerMetrics=true, SidecarContainers=true\n"
    ));
    // Replay: the JSON lines are the contract's; the cluster goes to standard error.
    let trace = repo().join("examples/traces/cpu-scale-up.json");
    let trace = trace.to_str().expect("UTF-8 path");
    let newest = hpa(&["replay", trace]);
    let old = hpa(&["replay", trace, "--kubernetes-version", "1.33"]);
    assert!(newest.status.success() && old.status.success());
    // Without HPAScaleToZero (before 1.37) no rescale sets the ScaledToZero condition.
    assert!(utf8(&newest.stdout).contains("\"ScaledToZero\":[\"False\",\"NotScaledToZero\"]"));
    assert!(!utf8(&old.stdout).contains("ScaledToZero"));
    assert!(utf8(&newest.stderr).starts_with("hpa replay: assuming Kubernetes 1.37,"));
    assert_eq!(
        utf8(&old.stderr),
        "hpa replay: assuming Kubernetes 1.33, feature gates HPAScaleToZero=false, \
         HPAConfigurableTolerance=false, PodLevelResources=false, SidecarContainers=true (its \
         defaults)\n"
    );
}

#[test]
fn replay_follows_the_release_gates() {
    // Ratio 0.92 with the default 0.1 tolerance holds 20 replicas; a 0.05 scale-down
    // tolerance, honoured from 1.35 (or with the gate), scales down to 19.
    let text = one_step_trace(
        r#"{ "maxReplicas": 20,
             "metrics": [ { "type": "Resource", "resource": { "name": "cpu",
               "target": { "type": "Utilization", "averageUtilization": 50 } } } ],
             "behavior": { "scaleDown": { "stabilizationWindowSeconds": 0,
                                          "tolerance": "0.05" } } }"#,
        20,
        "460m",
    );
    let path = file("replay", "trace.json", &text);
    let path = path.to_str().expect("UTF-8 path");
    let desired = |flags: &[&str]| first_desired(path, flags);
    assert_eq!(desired(&[]), "19");
    assert_eq!(desired(&["--kubernetes-version", "1.35"]), "19");
    assert_eq!(desired(&["--kubernetes-version", "1.34"]), "20");
    let gate = [
        "--kubernetes-version",
        "1.34",
        "--feature-gates",
        "HPAConfigurableTolerance=true",
    ];
    assert_eq!(desired(&gate), desired(&[]));
    // A trace recording its HPAScaleToZero agrees with the flags or is refused.
    let recorded = text.replacen(
        "\"steps\"",
        "\"controller\": {\"scaleToZero\": true}, \"steps\"",
        1,
    );
    let recorded = file("replay", "recorded.json", &recorded);
    let out = hpa(&[
        "replay",
        recorded.to_str().expect("UTF-8 path"),
        "--feature-gates",
        "HPAScaleToZero=false",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        utf8(&out.stderr),
        "hpa replay: controller.scaleToZero: the trace records scaleToZero: true, \
         --feature-gates sets HPAScaleToZero=false\n"
    );
}

/// A trace of one step: an HPA named `w` with `spec` (JSON), `n` ready pods requesting 1 CPU
/// in their container `app` (ready for ten minutes), each with a sample of `value`.
fn one_step_trace(spec: &str, n: usize, value: &str) -> String {
    let pods: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"name": "p{i}", "ready": "True", "readyTransitionTime": -600000,
                "startTime": -900000,
                "containers": [{{"name": "app", "requests": {{"cpu": "1"}}}}]}}"#
            )
        })
        .collect();
    let samples: Vec<String> = (0..n)
        .map(|i| format!(r#""p{i}": {{"value": "{value}"}}"#))
        .collect();
    format!(
        r#"{{"hpa": {{"metadata": {{"name": "w"}}, "spec": {spec}}},
  "steps": [{{"at": 0, "replicas": {n}, "pods": [{}],
              "metrics": [{{"samples": {{{}}}}}]}}]}}"#,
        pods.join(", "),
        samples.join(", ")
    )
}

/// `hpa replay`'s standard output for `path` with `flags`, which it must accept.
fn replayed(path: &str, flags: &[&str]) -> String {
    let mut args = vec!["replay", path];
    args.extend_from_slice(flags);
    let out = hpa(&args);
    assert!(out.status.success(), "{}", utf8(&out.stderr));
    utf8(&out.stdout)
}

/// The first step's `desiredReplicas` of `hpa replay`.
fn first_desired(path: &str, flags: &[&str]) -> String {
    let out = replayed(path, flags);
    let at = out.find("\"desiredReplicas\":").expect("desiredReplicas") + 18;
    out[at..].split(',').next().expect("a value").to_owned()
}

#[test]
fn replay_decides_as_the_release_controller() {
    // The bundled trace's pod web-3 reports no `app` container at 15 s: a missing pod for the
    // newest controller, a failed metric before it (docs/spec/releases.md#missing-container).
    let trace = repo().join("examples/traces/container-missing.json");
    let trace = trace.to_str().expect("UTF-8 path");
    let second = |flags: &[&str]| replayed(trace, flags).lines().nth(1).map(str::to_owned);
    let newest = second(&[]).expect("a second step");
    let old = second(&["--kubernetes-version", "1.30"]).expect("a second step");
    assert!(
        newest.contains("\"ScalingActive\":[\"True\",\"ValidMetricFound\"]"),
        "{newest}"
    );
    assert!(old.contains("\"ScalingActive\":[\"False\",\"FailedGetContainerResourceMetric\"]"));
    assert!(old.contains(
        "failed to get container metrics: container app not present in metrics for pod web-3"
    ));
    assert_eq!(second(&["--kubernetes-version", "1.37"]), Some(newest));

    // Ten pods at exactly 110 % of a 100 % target: before 1.33 |1 - 1.1| > 0.1 in float64 and
    // the controller scales to ceil(1.1 x 10) = 11; from 1.33 the band holds 10
    // (docs/spec/releases.md#tolerance-test).
    let text = one_step_trace(
        r#"{ "maxReplicas": 20,
             "metrics": [ { "type": "Resource", "resource": { "name": "cpu",
               "target": { "type": "Utilization", "averageUtilization": 100 } } } ] }"#,
        10,
        "1100m",
    );
    let path = file("release-controller", "trace.json", &text);
    let path = path.to_str().expect("UTF-8 path");
    let desired = |flags: &[&str]| first_desired(path, flags);
    assert_eq!(desired(&[]), "10");
    assert_eq!(desired(&["--kubernetes-version", "1.33"]), "10");
    assert_eq!(desired(&["--kubernetes-version", "1.32"]), "11");
    assert_eq!(desired(&["--kubernetes-version", "1.30"]), "11");

    // Six pods against an average of 500m cpu, four at an average of exactly 500m (2003 / 4,
    // truncating) and two without a sample: before 1.28 the two count as 0 at a ratio of
    // exactly 1, `ceil(2003 / 6 / 500 x 6)` = 4; from 1.28 nothing is filled in and the
    // tolerance holds 6 (docs/spec/releases.md#plain-missing-at-one).
    let text = one_step_trace(
        r#"{ "maxReplicas": 20,
             "behavior": { "scaleDown": { "stabilizationWindowSeconds": 0 } },
             "metrics": [ { "type": "Resource", "resource": { "name": "cpu",
               "target": { "type": "AverageValue", "averageValue": "500m" } } } ] }"#,
        6,
        "500m",
    )
    .replace(r#""p2": {"value": "500m"}"#, r#""p2": {"value": "501m"}"#)
    .replace(r#""p3": {"value": "500m"}"#, r#""p3": {"value": "502m"}"#)
    .replace(r#", "p4": {"value": "500m"}, "p5": {"value": "500m"}"#, "");
    let path = file("release-controller", "missing-at-one.json", &text);
    let path = path.to_str().expect("UTF-8 path");
    let desired = |flags: &[&str]| first_desired(path, flags);
    assert_eq!(desired(&[]), "6");
    assert_eq!(desired(&["--kubernetes-version", "1.28"]), "6");
    assert_eq!(desired(&["--kubernetes-version", "1.27"]), "4");
    assert_eq!(desired(&["--kubernetes-version", "1.23"]), "4");

    // Four pods of an `app` and a `proxy` sidecar requesting 1 CPU each, using 1 CPU at a 50 %
    // target: from 1.29 (SidecarContainers on) the sidecar's request counts and 50 % holds 4;
    // before, the API server drops its restartPolicy, only the app's 1 CPU counts, 100 % asks
    // for 8 (kubernetes/kubernetes#120001).
    let text = one_step_trace(
        r#"{ "maxReplicas": 20,
             "metrics": [ { "type": "Resource", "resource": { "name": "cpu",
               "target": { "type": "Utilization", "averageUtilization": 50 } } } ] }"#,
        4,
        "1",
    )
    .replace(
        r#"{"name": "app", "requests": {"cpu": "1"}}"#,
        r#"{"name": "app", "requests": {"cpu": "1"}},
           {"name": "proxy", "restartableInit": true, "requests": {"cpu": "1"}}"#,
    );
    let path = file("release-controller", "sidecars.json", &text);
    let path = path.to_str().expect("UTF-8 path");
    let desired = |flags: &[&str]| first_desired(path, flags);
    assert_eq!(desired(&[]), "4");
    assert_eq!(desired(&["--kubernetes-version", "1.29"]), "4");
    assert_eq!(desired(&["--kubernetes-version", "1.28"]), "8");
    assert_eq!(
        desired(&[
            "--kubernetes-version",
            "1.28",
            "--feature-gates",
            "SidecarContainers=true"
        ]),
        "4"
    );
    assert_eq!(desired(&["--kubernetes-version", "1.27"]), "8");
}

#[test]
fn flags_are_refused_with_their_reason() {
    let path = file("flags", "hpa.yaml", &format!("{HEAD}{CPU}"));
    let path = path.to_str().expect("UTF-8 path");
    let cases: [(&[&str], &str); 7] = [
        (
            &["--kubernetes-version", "1.22"],
            "--kubernetes-version: Kubernetes 1.22 is not supported: the releases followed are \
             1.23 to 1.37",
        ),
        (
            &["--kubernetes-version", "1.38"],
            "--kubernetes-version: Kubernetes 1.38 is not supported: the releases followed are \
             1.23 to 1.37",
        ),
        (
            &["--kubernetes-version", "latest"],
            "--kubernetes-version: invalid Kubernetes version \"latest\": expected MAJOR.MINOR, \
             such as 1.32",
        ),
        (
            &["--feature-gates", "HPAScaleToZero"],
            "--feature-gates: missing bool value for HPAScaleToZero",
        ),
        (
            &["--feature-gates", "HPAScaleToZero=on"],
            "--feature-gates: invalid value of HPAScaleToZero=on, err: strconv.ParseBool: \
             parsing \"on\": invalid syntax",
        ),
        (
            &[
                "--kubernetes-version",
                "1.30",
                "--feature-gates",
                "HPAContainerMetrics=false",
            ],
            "--feature-gates: cannot set feature gate HPAContainerMetrics to false, feature is \
             locked to true",
        ),
        (
            &[
                "--kubernetes-version",
                "1.32",
                "--feature-gates",
                "HPAConfigurableTolerance=true",
            ],
            "--feature-gates: unrecognized feature gate: HPAConfigurableTolerance (added in \
             Kubernetes 1.33; this is 1.32)",
        ),
    ];
    for (flags, message) in cases {
        for command in ["validate", "replay"] {
            let target = if command == "validate" {
                path.to_owned()
            } else {
                repo()
                    .join("examples/traces/cpu-scale-up.json")
                    .to_string_lossy()
                    .into_owned()
            };
            let mut args = vec![command, target.as_str()];
            args.extend_from_slice(flags);
            let out = hpa(&args);
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            assert!(out.stdout.is_empty());
            assert_eq!(utf8(&out.stderr), format!("hpa {command}: {message}\n"));
        }
    }
    let out = hpa(&["validate", path, "--feature-gates", "NoSuchGate=true"]);
    assert!(utf8(&out.stderr).starts_with(
        "hpa validate: --feature-gates: unrecognized feature gate: NoSuchGate (the feature \
         gates known here, those that change an HPA's verdicts, are HPAScaleToZero,"
    ));
    let out = hpa(&[
        "validate",
        path,
        "--feature-gates",
        "HPAContainerMetrics=true",
    ]);
    assert!(utf8(&out.stderr).contains("removed in Kubernetes 1.32"));
}

#[test]
fn simulate_states_its_cluster() {
    let dir = repo();
    let out = Command::new(env!("CARGO_BIN_EXE_hpa"))
        .current_dir(&dir)
        .args([
            "simulate",
            "--hpa",
            "examples/manifests/web.yaml",
            "--load",
            "examples/loads/daily.csv",
            "--no-events",
            "--kubernetes-version",
            "1.29",
        ])
        .output()
        .expect("the hpa binary runs");
    assert!(out.status.success(), "{}", utf8(&out.stderr));
    assert!(utf8(&out.stdout).contains(
        "\ncluster: Kubernetes 1.29, feature gates HPAScaleToZero=false, \
         HPAContainerMetrics=true, SidecarContainers=true (its defaults)\n"
    ));
}
