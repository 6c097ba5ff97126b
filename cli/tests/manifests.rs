//! Manifests as users have them (docs/spec/manifests.md): every API version of
//! HorizontalPodAutoscaler (converted as the API server converts it, or refused with the
//! version problem first), Lists, multi-document files, standard input, `kubectl get` output
//! with its value types checked, and hostile files refused quickly.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Instant;

use bumpalo::Bump;
use hpa::spec::{MetricSourceType, MetricTargetType, PolicyType, SelectPolicy};
use hpa_cli::trace::{self, ApiVersion, Cluster, Format, Outcome};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/manifests")
        .join(name)
}

/// Writes `text` to a fresh file named `name` under the test's temporary directory.
fn file(test: &str, name: &str, text: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("manifests")
        .join(test);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write the manifest");
    path
}

fn hpa(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hpa"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the hpa binary runs");
    let mut input = child.stdin.take().expect("stdin");
    input
        .write_all(stdin.unwrap_or_default().as_bytes())
        .expect("write stdin");
    drop(input);
    child.wait_with_output().expect("the hpa binary ends")
}

fn validate(path: &Path) -> Output {
    hpa(&["validate", path.to_str().expect("UTF-8 path")], None)
}

fn utf8(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn yaml(text: &str) -> Result<trace::Manifest, Vec<trace::TraceError>> {
    trace::parse_manifest_all(text, Format::Yaml, &Cluster::NEWEST)
}

fn first_error(text: &str) -> String {
    yaml(text).expect_err("an invalid manifest")[0].to_string()
}

#[test]
fn autoscaling_v1_without_a_target_is_cpu_at_80_percent() {
    let manifest = trace::load_manifest(&fixture("v1.yaml"), &Cluster::NEWEST).unwrap();
    assert_eq!(manifest.api_version, ApiVersion::V1);
    let arena = Bump::new();
    let spec = manifest.spec(&arena);
    assert_eq!((spec.min_replicas, spec.max_replicas), (Some(2), 10));
    assert_eq!(spec.metrics.len(), 1);
    let cpu = spec.metrics[0].resource.unwrap();
    assert_eq!(cpu.name, "cpu");
    assert_eq!(cpu.target.type_, Some(MetricTargetType::Utilization));
    assert_eq!(cpu.target.average_utilization, Some(80));
    let out = validate(&fixture("v1.yaml"));
    assert!(out.status.success(), "{}", utf8(&out.stderr));
    assert!(utf8(&out.stdout).ends_with(
        "valid autoscaling/v2 HorizontalPodAutoscaler \"web\" (converted from autoscaling/v1): \
         1 metric, replicas 2 to 10, without behavior (legacy scaling rules)\n"
    ));
}

#[test]
fn autoscaling_v1_annotations_carry_the_other_metrics_and_the_behavior() {
    let manifest = trace::load_manifest(&fixture("v1-annotations.yaml"), &Cluster::NEWEST).unwrap();
    let arena = Bump::new();
    let spec = manifest.spec(&arena);
    // Upstream's order: the annotation's metrics, then the CPU target.
    let types: Vec<_> = spec.metrics.iter().map(|m| m.type_).collect();
    assert_eq!(
        types,
        [
            Some(MetricSourceType::Pods),
            Some(MetricSourceType::External),
            Some(MetricSourceType::Resource)
        ]
    );
    let pods = spec.metrics[0].pods.unwrap();
    assert_eq!(pods.metric.name, "requests-per-second");
    assert_eq!(pods.target.type_, Some(MetricTargetType::AverageValue));
    assert_eq!(pods.target.average_value.unwrap().milli_value(), 1_000_000);
    let external = spec.metrics[1].external.unwrap();
    assert_eq!(external.metric.name, "queue_messages");
    assert!(external.metric.selector.unwrap().contains("queue: jobs"));
    assert_eq!(external.target.type_, Some(MetricTargetType::AverageValue));
    assert_eq!(
        spec.metrics[2].resource.unwrap().target.average_utilization,
        Some(60)
    );
    let behavior = spec.behavior.unwrap();
    assert!(behavior.scale_down.is_none());
    let up = behavior.scale_up.unwrap();
    assert_eq!(up.select_policy, Some(SelectPolicy::Max));
    assert_eq!(up.stabilization_window_seconds, Some(0));
    let policy = up.policies.unwrap()[0];
    assert_eq!(
        (policy.type_, policy.value, policy.period_seconds),
        (PolicyType::Pods, 4, 15)
    );
}

#[test]
fn autoscaling_v1_malformed_annotations_are_ignored_with_a_note() {
    let v1 = std::fs::read_to_string(fixture("v1.yaml")).unwrap();
    let text = v1.replace(
        "  name: web\n",
        "  name: web\n  annotations:\n    autoscaling.alpha.kubernetes.io/metrics: \
         '[{\"type\": \"Resource\", \"resource\": {\"name\": \"memory\", \
         \"targetAverageUtilization\": \"50\"}}]'\n    autoscaling.alpha.kubernetes.io/behavior: \
         '{\"scaleUp\": {\"selectPolicy\": \"Min\"}}'\n",
    );
    let entries = trace::parse_manifests(&text, Format::Yaml, &Cluster::NEWEST).unwrap();
    let Outcome::Valid { manifest, notes } = &entries[0].outcome else {
        panic!("{:?}", entries[0].outcome);
    };
    assert_eq!(
        notes,
        &[
            "metadata.annotations[autoscaling.alpha.kubernetes.io/metrics]: ignored, as the API \
           server ignores it: [0].resource.targetAverageUtilization: expected an integer, found \
           a string"
        ]
    );
    let arena = Bump::new();
    let spec = manifest.spec(&arena);
    // Without the metrics of the annotation, the default; the behavior's keys match ignoring
    // case, as Go's encoding/json matches them.
    assert_eq!(
        spec.metrics[0].resource.unwrap().target.average_utilization,
        Some(80)
    );
    assert_eq!(
        spec.behavior.unwrap().scale_up.unwrap().select_policy,
        Some(SelectPolicy::Min)
    );
    let not_an_object = v1.replace(
        "  name: web\n",
        "  name: web\n  annotations:\n    autoscaling.alpha.kubernetes.io/metrics: \
         '[{\"type\": \"Object\", \"object\": 3}]'\n",
    );
    let entries = trace::parse_manifests(&not_an_object, Format::Yaml, &Cluster::NEWEST).unwrap();
    let Outcome::Valid { notes, .. } = &entries[0].outcome else {
        panic!("{:?}", entries[0].outcome);
    };
    assert!(
        notes[0].ends_with("ignores it: [0].object: expected an object, found a number"),
        "{notes:?}"
    );
    let path = file("v1-note", "hpa.yaml", &text);
    let out = validate(&path);
    assert!(out.status.success());
    assert!(utf8(&out.stderr).contains(": warning: metadata.annotations["));
}

#[test]
fn errors_name_the_fields_of_the_documents_own_version() {
    let v1 = std::fs::read_to_string(fixture("v1.yaml")).unwrap();
    assert_eq!(
        first_error(&v1.replace("  maxReplicas: 10\n", "  maxReplicas: 10\n  metrics: []\n")),
        "spec.metrics: unknown field `metrics`, expected one of `scaleTargetRef`, \
         `minReplicas`, `maxReplicas`, `targetCPUUtilizationPercentage` at line 10 column 3"
    );
    assert_eq!(
        first_error(&v1.replace("maxReplicas: 10", "maxReplicas: 10\n  minReplicas: 20")),
        "spec: duplicate field `minReplicas` at line 7 column 3"
    );
    // autoscaling/v2 does not have `syncPeriodSeconds` (a trace-format extension).
    let v2 = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: w}\n\
              spec:\n  maxReplicas: 3\n  syncPeriodSeconds: 15\n";
    assert_eq!(
        first_error(v2),
        "spec.syncPeriodSeconds: unknown field `syncPeriodSeconds`, expected one of \
         `scaleTargetRef`, `minReplicas`, `maxReplicas`, `metrics`, `behavior` at line 6 column 3"
    );
    assert_eq!(
        first_error(&v2.replace("autoscaling/v2", "autoscaling/v3")),
        "apiVersion: Unsupported value: \"autoscaling/v3\": supported values: \
         \"autoscaling/v1\", \"autoscaling/v2\""
    );
}

#[test]
fn retired_versions_are_refused_with_the_version_first() {
    let out = validate(&fixture("v2beta2.yaml"));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        utf8(&out.stderr),
        "apiVersion: autoscaling/v2beta2 HorizontalPodAutoscaler is no longer served since \
         Kubernetes 1.26; change apiVersion to autoscaling/v2; the fields are the same\n"
    );
    let out = validate(&fixture("v2beta1.yaml"));
    assert_eq!(out.status.code(), Some(1));
    let stderr = utf8(&out.stderr);
    assert!(
        stderr.starts_with(
            "apiVersion: autoscaling/v2beta1 HorizontalPodAutoscaler is no longer served since \
             Kubernetes 1.25; change apiVersion to autoscaling/v2 and move each metric's target"
        ),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    // A v2beta1 document is read with the v2beta1 schema: its own field names are not
    // unknown, and its errors come after the version's.
    let v2beta1 = std::fs::read_to_string(fixture("v2beta1.yaml")).unwrap();
    let errors = yaml(&v2beta1.replace("metricName: packets", "metricNam: packets")).unwrap_err();
    assert_eq!(errors.len(), 2);
    assert!(errors[0]
        .message
        .contains("no longer served since Kubernetes 1.25"));
    assert!(errors[1]
        .to_string()
        .starts_with("spec.metrics[2].pods.metricNam: unknown field `metricNam`, expected one of `metricName`, `targetAverageValue`, `selector`"));
    // Converted, it is validated as autoscaling/v2.
    let errors = yaml(&v2beta1.replace(
        "targetAverageUtilization: 50",
        "targetAverageUtilization: 0",
    ))
    .unwrap_err();
    assert_eq!(
        errors[1].to_string(),
        "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0"
    );
}

#[test]
fn lists_and_documents_report_every_object() {
    let out = validate(&fixture("list.yaml"));
    assert!(out.status.success(), "{}", utf8(&out.stderr));
    let path = fixture("list.yaml").display().to_string();
    assert_eq!(
        utf8(&out.stdout),
        format!(
            "{path}: assuming {}\n\
             {path}: items[0]: valid autoscaling/v2 HorizontalPodAutoscaler \"web\": 1 metric, \
             replicas 2 to 10, without behavior (legacy scaling rules)\n\
             {path}: items[1]: skipped a Service, not a HorizontalPodAutoscaler\n\
             {path}: items[2]: valid autoscaling/v2 HorizontalPodAutoscaler \"legacy\" \
             (converted from autoscaling/v1): 1 metric, replicas 1 to 4, without behavior \
             (legacy scaling rules)\n",
            Cluster::NEWEST
        )
    );
    let out = validate(&fixture("multi.yaml"));
    assert!(out.status.success(), "{}", utf8(&out.stderr));
    let stdout = utf8(&out.stdout);
    assert!(stdout.contains(": document 1: skipped a Deployment, not a HorizontalPodAutoscaler\n"));
    assert!(stdout.contains(": document 2: valid autoscaling/v2 HorizontalPodAutoscaler \"web\""));
    // simulate and the library take the one HorizontalPodAutoscaler of a file.
    let manifest = trace::load_manifest(&fixture("multi.yaml"), &Cluster::NEWEST).unwrap();
    assert_eq!(manifest.name, "web");
    let several = trace::load_manifest(&fixture("list.yaml"), &Cluster::NEWEST).unwrap_err();
    assert_eq!(
        several.message,
        "2 HorizontalPodAutoscalers (the last is items[2] \"legacy\"); one is needed here"
    );

    // Every invalid object is reported, each with its place and name.
    let list = std::fs::read_to_string(fixture("list.yaml")).unwrap();
    let bad = list
        .replace(
            "    minReplicas: 2\n",
            "    minReplicas: 2\n    maxReplica: 1\n",
        )
        .replace("maxReplicas: 4", "maxReplicas: 0");
    let out = validate(&file("bad-list", "list.yaml", &bad));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        utf8(&out.stderr),
        "items[0] \"web\": spec.maxReplica: unknown field `maxReplica`, expected one of \
         `scaleTargetRef`, `minReplicas`, `maxReplicas`, `metrics`, `behavior` at line 30 column 5\n\
         items[2] \"legacy\": spec.maxReplicas: Invalid value: 0: must be greater than 0\n\
         items[2] \"legacy\": spec.maxReplicas: Invalid value: 0: must be greater than or equal \
         to `minReplicas`\n"
    );
    let only_a_service = file(
        "service",
        "svc.yaml",
        "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n",
    );
    let out = validate(&only_a_service);
    assert_eq!(out.status.code(), Some(1));
    assert!(utf8(&out.stderr).ends_with("svc.yaml: no HorizontalPodAutoscaler (found a Service)\n"));
}

#[test]
fn standard_input_and_kubectl_get_output() {
    let json = std::fs::read_to_string(fixture("kubectl-get.json")).unwrap();
    let out = hpa(&["validate", "-"], Some(&json));
    assert!(out.status.success(), "{}", utf8(&out.stderr));
    assert!(utf8(&out.stdout).contains(
        "\nstandard input: valid autoscaling/v2 HorizontalPodAutoscaler \"queue\": 1 metric"
    ));
    let yaml_in = std::fs::read_to_string(fixture("v1.yaml")).unwrap();
    let out = hpa(&["validate", "-"], Some(&yaml_in));
    assert!(out.status.success(), "{}", utf8(&out.stderr));
    // Status and metadata values have the API's types.
    let cases = [
        (
            "\"lastScaleTime\": \"2024-03-05T10:25:00Z\"",
            "\"lastScaleTime\": 12",
            "status.lastScaleTime: invalid type: integer `12`, expected an RFC 3339 time such as \
             \"2024-01-01T00:00:00Z\"",
        ),
        (
            "\"currentReplicas\": 3",
            "\"currentReplicas\": \"3\"",
            "status.currentReplicas: invalid type: string \"3\", expected i32",
        ),
        (
            "\"annotations\": {}",
            "\"annotations\": {\"a\": 1}",
            "metadata.annotations.a: invalid type: integer `1`, expected a string",
        ),
        (
            "\"resourceVersion\": \"99812\"",
            "\"resourceVersion\": 99812",
            "metadata.resourceVersion: invalid type: integer `99812`, expected a string",
        ),
        (
            "\"creationTimestamp\": \"2024-03-05T10:21:07Z\"",
            "\"creationTimestamp\": \"yesterday\"",
            "metadata.creationTimestamp: invalid value: string \"yesterday\", expected an RFC \
             3339 time",
        ),
    ];
    for (from, to, expected) in cases {
        assert!(json.contains(from), "{from}");
        let errors =
            trace::parse_manifest_all(&json.replacen(from, to, 1), Format::Json, &Cluster::NEWEST)
                .unwrap_err();
        assert!(errors[0].to_string().starts_with(expected), "{}", errors[0]);
    }
    // `creationTimestamp: null`, as `kubectl create --dry-run -o yaml` prints it.
    let dry_run = yaml_in.replace("  name: web\n", "  name: web\n  creationTimestamp: null\n");
    assert!(yaml(&dry_run).is_ok());
}

#[test]
fn hostile_files_are_refused_quickly() {
    let deep = format!(
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: w\n  \
         annotations: {}{}\n",
        "[".repeat(40_000),
        "]".repeat(40_000)
    );
    let path = file("deep", "deep.yaml", &deep);
    let started = Instant::now();
    let out = validate(&path);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        utf8(&out.stderr),
        "line 5: nested more than 64 levels deep, the limit for a document\n"
    );
    let trace = file(
        "deep",
        "trace.yaml",
        &format!(
            "hpa: {}{}\nsteps: []\n",
            "{a: ".repeat(40_000),
            "}".repeat(40_000)
        ),
    );
    let out = hpa(&["replay", trace.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(utf8(&out.stderr).contains("nested more than 64 levels deep"));
    assert!(started.elapsed().as_secs() < 10);

    let big = file("big", "big.yaml", &"#".repeat((8 << 20) + 1));
    let out = validate(&big);
    assert_eq!(out.status.code(), Some(1));
    assert!(utf8(&out.stderr)
        .ends_with("big.yaml: larger than 8 MiB, the limit for this kind of file\n"));
}

/// Every other file the commands read has the same nesting limit, with the same message: a
/// Prometheus load (`--load`), a recording of replica counts (`--replicas`), a pod template
/// (`--pod-template`) and tune's search space (`--space`).
#[test]
fn every_file_a_command_reads_has_the_nesting_limit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let manifest = root.join("examples/manifests/web.yaml");
    let manifest = manifest.to_str().expect("UTF-8 path");
    let load = root.join("examples/loads/spike.csv");
    let load = load.to_str().expect("UTF-8 path");
    let json = format!("{}1{}", "{\"data\": ".repeat(100), "}".repeat(100));
    let yaml = format!("a: {}{}\n", "[".repeat(100), "]".repeat(100));
    let deep_json = file("nesting", "deep.json", &json);
    let deep_json = deep_json.to_str().expect("UTF-8 path");
    let deep_yaml = file("nesting", "deep.yaml", &yaml);
    let deep_yaml = deep_yaml.to_str().expect("UTF-8 path");
    let runs: [(&str, Vec<&str>); 4] = [
        ("simulate", vec!["--hpa", manifest, "--load", deep_json]),
        (
            "simulate",
            vec!["--hpa", manifest, "--load", load, "--replicas", deep_json],
        ),
        (
            "simulate",
            vec![
                "--hpa",
                manifest,
                "--load",
                load,
                "--pod-template",
                deep_yaml,
            ],
        ),
        (
            "tune",
            vec!["--hpa", manifest, "--load", load, "--space", deep_yaml],
        ),
    ];
    for (command, args) in runs {
        let mut all = vec![command];
        all.extend(args.iter().copied());
        let out = hpa(&all, None);
        let stderr = utf8(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{all:?}: {stderr}");
        assert!(
            stderr.ends_with("line 1: nested more than 64 levels deep, the limit for a document\n"),
            "{all:?}: {stderr}"
        );
    }
}
