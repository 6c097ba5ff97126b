//! Same answers as Rust: every bundled trace (`examples/traces/*`), replayed through the C
//! API by a C program, prints exactly the decisions `hpa replay` prints; so do 60 random
//! traces and the upstream traces (`tests/upstream-traces/`), which are also judged against
//! upstream's own lines.
//!
//! Each trace is read with the loader `hpa replay` uses (`hpa_cli::trace`), and its HPA and
//! steps are written out as C data (`trace_data.h`: static `hpa_config`, pods, samples, ...,
//! and a table of the traces of one program). `tests/c/replay_driver.c` replays them through
//! `libhpa.a` and prints JSON lines in the replay format; they must equal the `hpa` binary's
//! output, line by line, field by field. The C replays of the bundled traces and of a sample
//! of the upstream ones also run with AddressSanitizer + UndefinedBehaviorSanitizer and under
//! valgrind, each step's workspace allocated with exactly the size the library asks for.

mod support;

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use bumpalo::Bump;
use hpa::conditions::ConditionStatus;
use hpa::digest::Digest;
use hpa::input::{ContainerKind, PodPhase, ResourceRequest, Sample};
use hpa::quantity::Quantity;
use hpa::spec::{
    CrossVersionObjectReference, MetricIdentifier, MetricSourceType, MetricSpec, MetricTarget,
    MetricTargetType, PolicyType, ScalingRules, SelectPolicy,
};
use hpa::{MetricValues, Settings};
use hpa_cli::{output, trace};
use serde_json::Value;
use support::{Lang, Mode};
use testkit::Rng;

#[path = "../../tests/support/upstream_traces.rs"]
mod upstream_traces;
use upstream_traces::{parse_lines, Report};

/// A C string literal for UTF-8 text (octal escapes for everything outside printable ASCII).
fn c_str(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'?' => out.push_str("\\?"),
            0x20..=0x7e => out.push(b as char),
            _ => write!(out, "\\{b:03o}").unwrap(),
        }
    }
    out.push('"');
    out
}

/// An `hpa_str` initializer.
fn hpa_str(s: &str) -> String {
    format!("{{ {}, {} }}", c_str(s), s.len())
}

fn opt_hpa_str(s: Option<&str>) -> String {
    match s {
        Some(s) => hpa_str(s),
        None => "{ NULL, 0 }".into(),
    }
}

fn i64_lit(v: i64) -> String {
    if v == i64::MIN {
        "INT64_MIN".into()
    } else {
        format!("INT64_C({v})")
    }
}

fn flag(b: bool) -> u32 {
    u32::from(b)
}

/// C data for one trace.
struct Gen {
    out: String,
    next: usize,
}

impl Gen {
    fn name(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}_{}", self.next)
    }

    /// Emits a static array and returns `(name or NULL, len)`.
    fn array(&mut self, ty: &str, prefix: &str, items: &[String]) -> (String, usize) {
        if items.is_empty() {
            return ("NULL".into(), 0);
        }
        let name = self.name(prefix);
        writeln!(self.out, "static const {ty} {name}[] = {{").unwrap();
        for item in items {
            writeln!(self.out, "  {item},").unwrap();
        }
        writeln!(self.out, "}};").unwrap();
        (name, items.len())
    }

    fn object_ref(r: &CrossVersionObjectReference<'_>) -> String {
        format!(
            "{{ .kind = {}, .name = {}, .api_version = {} }}",
            hpa_str(r.kind),
            hpa_str(r.name),
            hpa_str(r.api_version)
        )
    }

    fn target(t: &MetricTarget) -> String {
        let ty = match t.type_ {
            None => "HPA_METRIC_TARGET_TYPE_UNSET",
            Some(MetricTargetType::Utilization) => "HPA_METRIC_TARGET_TYPE_UTILIZATION",
            Some(MetricTargetType::Value) => "HPA_METRIC_TARGET_TYPE_VALUE",
            Some(MetricTargetType::AverageValue) => "HPA_METRIC_TARGET_TYPE_AVERAGE_VALUE",
        };
        let mut fields = Vec::new();
        if t.value.is_some() {
            fields.push("HPA_TARGET_FIELD_VALUE");
        }
        if t.average_value.is_some() {
            fields.push("HPA_TARGET_FIELD_AVERAGE_VALUE");
        }
        if t.average_utilization.is_some() {
            fields.push("HPA_TARGET_FIELD_AVERAGE_UTILIZATION");
        }
        let fields = if fields.is_empty() {
            // No field populated: a value the `fields` bits cannot express as 0.
            panic!("trace targets always populate a field");
        } else {
            fields.join(" | ")
        };
        format!(
            "{{ .type = {ty}, .fields = {fields}, .value_milli = {}, .average_value_milli = {}, \
             .average_utilization = {} }}",
            i64_lit(t.value.map_or(0, |q| q.milli_value())),
            i64_lit(t.average_value.map_or(0, |q| q.milli_value())),
            t.average_utilization.unwrap_or(0)
        )
    }

    fn metric(m: &MetricSpec<'_>) -> String {
        let ty = match m.type_ {
            None => "HPA_METRIC_SOURCE_TYPE_UNSET",
            Some(MetricSourceType::Resource) => "HPA_METRIC_SOURCE_TYPE_RESOURCE",
            Some(MetricSourceType::ContainerResource) => {
                "HPA_METRIC_SOURCE_TYPE_CONTAINER_RESOURCE"
            }
            Some(MetricSourceType::Pods) => "HPA_METRIC_SOURCE_TYPE_PODS",
            Some(MetricSourceType::Object) => "HPA_METRIC_SOURCE_TYPE_OBJECT",
            Some(MetricSourceType::External) => "HPA_METRIC_SOURCE_TYPE_EXTERNAL",
        };
        let ident = |i: &MetricIdentifier<'_>| {
            format!(
                ".name = {}, .selector = {}, .selector_invalid = {}",
                hpa_str(i.name),
                opt_hpa_str(i.selector),
                flag(i.selector_invalid)
            )
        };
        let body = match m.type_ {
            Some(MetricSourceType::Resource) => {
                let r = m.resource.expect("resource source");
                format!(
                    ".name = {}, .target = {}",
                    hpa_str(r.name),
                    Self::target(&r.target)
                )
            }
            Some(MetricSourceType::ContainerResource) => {
                let r = m.container_resource.expect("containerResource source");
                format!(
                    ".name = {}, .container = {}, .target = {}",
                    hpa_str(r.name),
                    hpa_str(r.container),
                    Self::target(&r.target)
                )
            }
            Some(MetricSourceType::Pods) => {
                let p = m.pods.expect("pods source");
                format!(
                    "{}, .target = {}",
                    ident(&p.metric),
                    Self::target(&p.target)
                )
            }
            Some(MetricSourceType::Object) => {
                let o = m.object.expect("object source");
                format!(
                    "{}, .described_object = {}, .target = {}",
                    ident(&o.metric),
                    Self::object_ref(&o.described_object),
                    Self::target(&o.target)
                )
            }
            Some(MetricSourceType::External) => {
                let e = m.external.expect("external source");
                format!(
                    "{}, .target = {}",
                    ident(&e.metric),
                    Self::target(&e.target)
                )
            }
            None => String::new(),
        };
        format!("{{ .type = {ty}, {body} }}")
    }

    fn decimal_of_quantity(q: &Quantity) -> String {
        let (mantissa, exponent) = q.canonical_parts();
        let mantissa = i64::try_from(mantissa).expect("tolerance mantissa fits int64_t");
        format!("{{ {}, {exponent} }}", i64_lit(mantissa))
    }

    fn rules(&mut self, r: &Option<ScalingRules<'_>>, prefix: &str) -> String {
        let Some(r) = r else {
            return "NULL".into();
        };
        let (policies, len) = match r.policies {
            None => ("NULL".to_string(), 0),
            Some(list) => {
                let items: Vec<String> = list
                    .iter()
                    .map(|p| {
                        let ty = match p.type_ {
                            PolicyType::Pods => "HPA_POLICY_TYPE_PODS",
                            PolicyType::Percent => "HPA_POLICY_TYPE_PERCENT",
                        };
                        format!("{{ {ty}, {}, {} }}", p.value, p.period_seconds)
                    })
                    .collect();
                let (name, len) = self.array("hpa_scaling_policy", "policies", &items);
                if len == 0 {
                    // `policies: []`: a non-NULL pointer with length 0 (invalid; traces are valid).
                    let dummy = self.name("empty_policies");
                    writeln!(self.out, "static const hpa_scaling_policy {dummy}[1];").unwrap();
                    (dummy, 0)
                } else {
                    (name, len)
                }
            }
        };
        let select = match r.select_policy {
            None => "HPA_SELECT_POLICY_UNSET",
            Some(SelectPolicy::Max) => "HPA_SELECT_POLICY_MAX",
            Some(SelectPolicy::Min) => "HPA_SELECT_POLICY_MIN",
            Some(SelectPolicy::Disabled) => "HPA_SELECT_POLICY_DISABLED",
        };
        let name = self.name(prefix);
        writeln!(
            self.out,
            "static const hpa_scaling_rules {name} = {{ .has_stabilization_window_seconds = {}, \
             .stabilization_window_seconds = {}, .select_policy = {select}, .policies = {policies}, \
             .policies_len = {len}, .has_tolerance = {}, .tolerance = {} }};",
            flag(r.stabilization_window_seconds.is_some()),
            r.stabilization_window_seconds.unwrap_or(0),
            flag(r.tolerance.is_some()),
            r.tolerance
                .as_ref()
                .map_or("{ 0, 0 }".to_string(), Self::decimal_of_quantity),
        )
        .unwrap();
        format!("&{name}")
    }

    fn settings(&mut self, s: &Settings) -> String {
        let (mantissa, exponent) = s.tolerance.decimal();
        let arithmetic = match s.arithmetic {
            hpa::Arithmetic::Kubernetes => "HPA_ARITHMETIC_KUBERNETES",
            hpa::Arithmetic::Exact => "HPA_ARITHMETIC_EXACT",
        };
        let name = self.name("settings");
        writeln!(
            self.out,
            "static const hpa_settings {name} = {{ .tolerance = {{ {}, {exponent} }}, \
             .downscale_stabilization_window_ms = {}, .cpu_initialization_period_ms = {}, \
             .initial_readiness_delay_ms = {}, .scale_to_zero = {}, .configurable_tolerance = {}, \
             .arithmetic = {arithmetic}, .legacy_scale_up_factor = {}, \
             .legacy_scale_up_minimum = {}, .explicit_zeros = {} }};",
            i64_lit(i64::try_from(mantissa).expect("tolerance fits int64_t")),
            i64_lit(s.downscale_stabilization_window.as_millis()),
            i64_lit(s.cpu_initialization_period.as_millis()),
            i64_lit(s.initial_readiness_delay.as_millis()),
            flag(s.scale_to_zero),
            flag(s.configurable_tolerance),
            s.legacy_scale_up_factor,
            s.legacy_scale_up_minimum,
            explicit_zeros(s),
        )
        .unwrap();
        format!("&{name}")
    }

    fn requests(&mut self, list: &[ResourceRequest<'_>]) -> (String, usize) {
        let items: Vec<String> = list
            .iter()
            .map(|r| {
                format!(
                    "{{ {}, {} }}",
                    hpa_str(r.resource),
                    i64_lit(r.quantity.milli_value())
                )
            })
            .collect();
        self.array("hpa_resource_request", "requests", &items)
    }

    fn sample(&mut self, s: Option<&Sample<'_>>) -> String {
        let Some(s) = s else {
            return "{ .present = 0 }".into();
        };
        let usages: Vec<String> = s
            .containers
            .iter()
            .map(|c| format!("{{ {}, {} }}", hpa_str(c.name), i64_lit(c.milli)))
            .collect();
        let (containers, len) = self.array("hpa_container_usage", "usage", &usages);
        format!(
            "{{ .present = 1, .has_timestamp = 1, .has_window = 1, .milli = {}, .timestamp_ms = {}, \
             .window_ms = {}, .containers = {containers}, .containers_len = {len} }}",
            i64_lit(s.milli),
            i64_lit(s.timestamp.millis()),
            i64_lit(s.window.as_millis())
        )
    }
}

/// Emits the C data of one trace into `g`; returns its `replay_trace` initializer.
fn trace_data(g: &mut Gen, name: &str, t: &trace::Trace) -> String {
    let arena = Bump::new();
    let spec = t.spec(&arena);
    let metrics: Vec<String> = spec.metrics.iter().map(Gen::metric).collect();
    let (metrics, metrics_len) = g.array("hpa_metric", "metrics", &metrics);
    let behavior = match &spec.behavior {
        None => "NULL".to_string(),
        Some(b) => {
            let up = g.rules(&b.scale_up, "scale_up");
            let down = g.rules(&b.scale_down, "scale_down");
            let name = g.name("behavior");
            writeln!(
                g.out,
                "static const hpa_behavior {name} = {{ .scale_up = {up}, .scale_down = {down} }};"
            )
            .unwrap();
            format!("&{name}")
        }
    };
    let target_ref = match &spec.scale_target_ref {
        None => "NULL".to_string(),
        Some(r) => {
            let name = g.name("target");
            writeln!(
                g.out,
                "static const hpa_object_ref {name} = {};",
                Gen::object_ref(r)
            )
            .unwrap();
            format!("&{name}")
        }
    };
    let settings = g.settings(&t.settings);
    let config = g.name("config");
    writeln!(
        g.out,
        "static const hpa_config {config} = {{ .has_min_replicas = {}, .min_replicas = {}, \
         .max_replicas = {}, .metrics = {metrics}, .metrics_len = {metrics_len}, \
         .behavior = {behavior}, .scale_target_ref = {target_ref}, .settings = {settings} }};",
        flag(spec.min_replicas.is_some()),
        spec.min_replicas.unwrap_or(0),
        spec.max_replicas
    )
    .unwrap();

    let mut steps = Vec::new();
    for i in 0..t.steps() {
        let step_arena = Bump::new();
        let step = t.step_view(i, &step_arena).unwrap();
        let obs = &step.observation;
        let mut pods = Vec::new();
        for pod in obs.pods {
            let containers: Vec<String> = pod
                .containers
                .iter()
                .map(|c| {
                    let (reqs, n) = g.requests(c.requests);
                    let kind = match c.kind {
                        ContainerKind::Regular => "HPA_CONTAINER_KIND_REGULAR",
                        ContainerKind::RestartableInit => "HPA_CONTAINER_KIND_SIDECAR",
                        ContainerKind::Init => "HPA_CONTAINER_KIND_INIT",
                    };
                    format!(
                        "{{ .name = {}, .kind = {kind}, .requests = {reqs}, .requests_len = {n} }}",
                        hpa_str(c.name)
                    )
                })
                .collect();
            let (containers, containers_len) = g.array("hpa_container", "containers", &containers);
            let (pod_requests, pod_requests_len) = match pod.requests {
                None => ("NULL".to_string(), 0),
                Some([]) => {
                    let dummy = g.name("empty_requests");
                    writeln!(g.out, "static const hpa_resource_request {dummy}[1];").unwrap();
                    (dummy, 0)
                }
                Some(list) => g.requests(list),
            };
            let phase = match pod.phase {
                PodPhase::Running => "HPA_POD_PHASE_RUNNING",
                PodPhase::Pending => "HPA_POD_PHASE_PENDING",
                PodPhase::Succeeded => "HPA_POD_PHASE_SUCCEEDED",
                PodPhase::Failed => "HPA_POD_PHASE_FAILED",
                PodPhase::Unknown => "HPA_POD_PHASE_UNKNOWN",
            };
            let (ready, transition) = match &pod.ready {
                None => ("HPA_READY_ABSENT", None),
                Some(r) => (
                    match r.status {
                        ConditionStatus::True => "HPA_READY_TRUE",
                        ConditionStatus::False => "HPA_READY_FALSE",
                        ConditionStatus::Unknown => "HPA_READY_UNKNOWN",
                    },
                    r.last_transition,
                ),
            };
            pods.push(format!(
                "{{ .name = {}, .phase = {phase}, .ready = {ready}, .has_ready_transition = {}, \
                 .has_start_time = {}, .ready_transition_ms = {}, .start_time_ms = {}, \
                 .deleted = {}, .containers = {containers}, .containers_len = {containers_len}, \
                 .pod_requests = {pod_requests}, .pod_requests_len = {pod_requests_len} }}",
                hpa_str(pod.name),
                flag(transition.is_some()),
                flag(pod.start_time.is_some()),
                i64_lit(transition.map_or(0, |t| t.millis())),
                i64_lit(pod.start_time.map_or(0, |t| t.millis())),
                flag(pod.deleted),
            ));
        }
        let (pods, pods_len) = g.array("hpa_pod", "pods", &pods);
        let mut values = Vec::new();
        for v in obs.metrics {
            values.push(match v {
                MetricValues::Pods(s) => {
                    let per_pod: Vec<String> =
                        s.per_pod.iter().map(|x| g.sample(x.as_ref())).collect();
                    let (samples, samples_len) = g.array("hpa_sample", "samples", &per_pod);
                    let orphans: Vec<String> =
                        s.orphans.iter().map(|x| g.sample(Some(x))).collect();
                    let (orphans, orphans_len) = g.array("hpa_sample", "orphans", &orphans);
                    format!(
                        "{{ .kind = HPA_VALUES_KIND_SAMPLES, .samples = {samples}, \
                         .samples_len = {samples_len}, .orphans = {orphans}, \
                         .orphans_len = {orphans_len} }}"
                    )
                }
                MetricValues::Object(v) => {
                    format!(
                        "{{ .kind = HPA_VALUES_KIND_OBJECT, .value_milli = {} }}",
                        i64_lit(*v)
                    )
                }
                MetricValues::External(list) => {
                    let items: Vec<String> = list.iter().map(|v| i64_lit(*v)).collect();
                    let (name, len) = g.array("int64_t", "series", &items);
                    format!(
                        "{{ .kind = HPA_VALUES_KIND_EXTERNAL, .values_milli = {name}, \
                         .values_len = {len} }}"
                    )
                }
                MetricValues::Error(msg) => {
                    format!(
                        "{{ .kind = HPA_VALUES_KIND_ERROR, .error = {} }}",
                        hpa_str(msg)
                    )
                }
            });
        }
        let (values, values_len) = g.array("hpa_metric_values", "values", &values);
        steps.push(format!(
            "{{ {{ .now_ms = {}, .replicas = {}, .has_status_replicas = 1, .status_replicas = {}, \
             .pods = {pods}, .pods_len = {pods_len}, .metrics = {values}, \
             .metrics_len = {values_len} }}, {} }}",
            i64_lit(obs.now.millis()),
            obs.replicas,
            obs.status_replicas,
            i32::from(step.applied)
        ));
    }
    let (steps, step_count) = g.array("replay_step", "steps", &steps);
    format!(
        "{{ {}, &{config}, {}, {steps}, {step_count} }}",
        c_str(name),
        i32::from(t.scaled_to_zero)
    )
}

/// `trace_data.h` for traces: their data and the table `TRACES` the driver replays in order.
fn generate(traces: &[(String, trace::Trace)]) -> String {
    let mut g = Gen {
        out: String::from("/* Generated by ffi/tests/replay.rs. */\n#include <stdint.h>\n\n"),
        next: 0,
    };
    assert!(!traces.is_empty(), "a C replay needs a trace");
    let table: Vec<String> = traces
        .iter()
        .map(|(name, t)| trace_data(&mut g, name, t))
        .collect();
    writeln!(g.out, "static const replay_trace TRACES[] = {{").unwrap();
    for entry in &table {
        writeln!(g.out, "  {entry},").unwrap();
    }
    writeln!(g.out, "}};").unwrap();
    writeln!(g.out, "static const size_t TRACE_COUNT = {};", table.len()).unwrap();
    g.out
}

/// The bundled traces.
fn traces() -> Vec<PathBuf> {
    let mut list: Vec<PathBuf> = fs::read_dir(support::root().join("examples/traces"))
        .expect("examples/traces")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("json") | Some("yaml") | Some("yml")
            )
        })
        .collect();
    list.sort();
    assert!(list.len() >= 4, "the bundled traces are missing");
    list
}

fn cli_lines(trace: &Path) -> Vec<Value> {
    let out = Command::new(support::hpa_cli())
        .arg("replay")
        .arg(trace)
        .output()
        .expect("run hpa replay");
    assert!(
        out.status.success(),
        "hpa replay {} failed: {}",
        trace.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    parse_lines(&String::from_utf8(out.stdout).expect("UTF-8")).expect("hpa replay prints JSON")
}

/// Replays `traces` (name, trace) through the C API in one program (`<name>`, built for
/// `mode`): per trace, its JSON lines, or the driver's refusal. One program for many traces,
/// because building and linking a program per trace costs far more than replaying it. `None`
/// when a valgrind run is skipped (see `support::run`).
fn c_replay(name: &str, traces: &[(String, trace::Trace)], mode: Mode) -> Option<Vec<Lines>> {
    let dir = support::out_dir().join("replay").join(name);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("trace_data.h"), generate(traces)).unwrap();
    // The data header is found through the include path of the generated directory.
    let driver = dir.join("replay_driver.c");
    fs::copy(support::root().join("ffi/tests/c/replay_driver.c"), &driver).unwrap();
    let run = support::run(name, Lang::C, std::slice::from_ref(&driver), mode, &[])?;
    // Blocks: `# <name>`, then the trace's JSON lines or `# error: ...`.
    let mut blocks: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in run.stdout.lines() {
        match (line.strip_prefix("# "), blocks.last_mut()) {
            (Some(title), _) if !title.starts_with("error: ") => blocks.push((title, Vec::new())),
            (_, Some((_, lines))) => lines.push(line),
            (_, None) => panic!("{name}: output before the first trace: {line}"),
        }
    }
    let titles: Vec<&str> = blocks.iter().map(|(t, _)| *t).collect();
    let names: Vec<&str> = traces.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(titles, names, "{name}: the driver replayed other traces");
    Some(
        blocks
            .into_iter()
            .map(
                |(_, lines)| match lines.iter().find_map(|l| l.strip_prefix("# error: ")) {
                    Some(refusal) => Err(format!("the C API refused it: {refusal}")),
                    None => parse_lines(&lines.join("\n")),
                },
            )
            .collect(),
    )
}

/// One trace's lines from a replay, or why there are none.
type Lines = Result<Vec<Value>, String>;

/// The first line where `got` differs from `expected` in any field, free text included.
fn exact_difference(got: &[Value], expected: &[Value]) -> Option<String> {
    if let Some((i, (g, e))) = got
        .iter()
        .zip(expected)
        .enumerate()
        .find(|(_, (g, e))| g != e)
    {
        return Some(format!(
            "step {i} differs:\n  C:          {g}\n  hpa replay: {e}"
        ));
    }
    (got.len() != expected.len()).then(|| {
        format!(
            "the C replay printed {} lines, hpa replay {}",
            got.len(),
            expected.len()
        )
    })
}

#[test]
fn c_replays_of_the_bundled_traces_equal_hpa_replay() {
    let paths = traces();
    let loaded: Vec<(String, trace::Trace)> = paths
        .iter()
        .map(|p| {
            let t = trace::load(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.display().to_string(), t)
        })
        .collect();
    let expected: Vec<Vec<Value>> = paths.iter().map(|p| cli_lines(p)).collect();
    let mut compared = 0;
    for mode in Mode::ALL {
        let Some(results) = c_replay("replay-bundled", &loaded, mode) else {
            continue;
        };
        for ((name, _), (got, expected)) in loaded.iter().zip(results.into_iter().zip(&expected)) {
            let got = got.unwrap_or_else(|e| panic!("{name} ({mode:?}): {e}"));
            if let Some(d) = exact_difference(&got, expected) {
                panic!("{name} ({mode:?}): {d}");
            }
            compared += got.len();
        }
    }
    for (name, expected) in loaded.iter().map(|(n, _)| n).zip(&expected) {
        println!(
            "{name}: {} steps, same decisions as hpa replay",
            expected.len()
        );
    }
    assert!(compared > 0);
}

/// A random, usually valid, trace using every metric source and target type, behaviors,
/// readiness states, sidecars, pod-level requests, missing and orphan samples, fetch errors,
/// failed updates, replica counts outside [min, max] and scale to/from zero.
fn random_trace(rng: &mut Rng) -> serde_json::Value {
    use serde_json::json;
    let sources = [
        json!({"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50 + rng.below(40)}}}),
        json!({"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "256Mi"}}}),
        json!({"type": "ContainerResource", "containerResource": {"name": "cpu", "container": "app", "target": {"type": "Utilization", "averageUtilization": 60}}}),
        json!({"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "10"}}}),
        json!({"type": "Object", "object": {"describedObject": {"kind": "Ingress", "name": "main", "apiVersion": "networking.k8s.io/v1"}, "metric": {"name": "rps"}, "target": {"type": "Value", "value": "100"}}}),
        json!({"type": "Object", "object": {"describedObject": {"kind": "Service", "name": "api", "apiVersion": "v1"}, "metric": {"name": "rps"}, "target": {"type": "AverageValue", "averageValue": "20"}}}),
        json!({"type": "External", "external": {"metric": {"name": "queue", "selector": {"matchLabels": {"q": "a"}}}, "target": {"type": "Value", "value": "30"}}}),
        json!({"type": "External", "external": {"metric": {"name": "lag"}, "target": {"type": "AverageValue", "averageValue": "5"}}}),
    ];
    let n_metrics = 1 + rng.below(3) as usize;
    let kinds: Vec<usize> = (0..n_metrics)
        .map(|_| rng.below(sources.len() as u64) as usize)
        .collect();
    let metrics: Vec<_> = kinds.iter().map(|k| sources[*k].clone()).collect();
    let has_obj_ext = kinds.iter().any(|k| *k >= 4);
    let min = if has_obj_ext && rng.chance(30) {
        0
    } else {
        1 + rng.below(3)
    };
    let max = min.max(1) + 2 + rng.below(15);
    let mut spec = json!({"minReplicas": min, "maxReplicas": max, "metrics": metrics});
    if rng.chance(60) {
        let mut rules = |up: bool| {
            let mut r = serde_json::Map::new();
            if rng.chance(50) {
                r.insert("stabilizationWindowSeconds".into(), json!(rng.below(120)));
            }
            if rng.chance(30) {
                r.insert(
                    "selectPolicy".into(),
                    json!(rng.pick(&["Max", "Min", "Disabled"])),
                );
            }
            if rng.chance(60) {
                let n = 1 + rng.below(3);
                let policies: Vec<_> = (0..n)
                    .map(|_| {
                        json!({"type": rng.pick(&["Pods", "Percent"]), "value": 1 + rng.below(if up { 200 } else { 60 }), "periodSeconds": 1 + rng.below(120)})
                    })
                    .collect();
                r.insert("policies".into(), json!(policies));
            }
            if rng.chance(30) {
                r.insert(
                    "tolerance".into(),
                    json!(rng.pick(&["0.05", "0.35", "0", "250m"])),
                );
            }
            serde_json::Value::Object(r)
        };
        let up = rules(true);
        let down = rules(false);
        spec["behavior"] = json!({"scaleUp": up, "scaleDown": down});
    }
    let mut hpa = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "random"}, "spec": spec});
    if min == 0 && rng.chance(50) {
        hpa["status"] = json!({"conditions": [{"type": "ScaledToZero", "status": "True"}]});
    }
    let controller = json!({
        "tolerance": rng.pick(&[0.1, 0.05, 0.0, 0.25]),
        "arithmetic": rng.pick(&["kubernetes", "exact"]),
        "scaleToZero": !rng.chance(10),
        "downscaleStabilizationWindowSeconds": rng.pick(&[0, 60, 300]),
    });
    let mut steps = Vec::new();
    let mut at: i64 = 0;
    let mut replicas = rng.below(max + 3) as i64;
    for _ in 0..(5 + rng.below(15)) {
        at += rng.pick(&[0, 15_000, 15_000, 30_000, 60_000]);
        let n_pods = if replicas == 0 {
            0
        } else {
            (replicas as u64 + rng.below(3)).saturating_sub(1).min(8)
        };
        let mut pods = Vec::new();
        for p in 0..n_pods {
            let mut pod = json!({"name": format!("p{p}"), "startTime": -600_000 + rng.below(700) as i64 * 1000});
            match rng.below(10) {
                0 => pod["phase"] = json!("Pending"),
                1 => pod["phase"] = json!("Failed"),
                2 => pod["deleted"] = json!(true),
                _ => {}
            }
            if !rng.chance(10) {
                pod["ready"] = json!(rng.pick(&["True", "True", "True", "False", "Unknown"]));
                if rng.chance(80) {
                    pod["readyTransitionTime"] = json!(at - rng.below(400) as i64 * 1000);
                }
            }
            let mut containers =
                vec![json!({"name": "app", "requests": {"cpu": "500m", "memory": "256Mi"}})];
            if rng.chance(20) {
                containers.push(json!({"name": "sidecar", "requests": {"cpu": "100m"}, "restartableInit": true}));
            }
            pod["containers"] = json!(containers);
            if rng.chance(10) {
                pod["requests"] = json!({"cpu": "700m"});
            }
            pods.push(pod);
        }
        let mut values = Vec::new();
        for k in &kinds {
            if rng.chance(7) {
                values.push(json!({"error": "adapter \"unavailable\""}));
                continue;
            }
            values.push(match k {
                0..=3 => {
                    let mut samples = serde_json::Map::new();
                    for p in 0..n_pods {
                        if rng.chance(12) {
                            continue; // missing
                        }
                        let v = match k {
                            1 => format!("{}Mi", 64 + rng.below(512)),
                            3 => format!("{}", rng.below(30)),
                            _ => format!("{}m", rng.below(900)),
                        };
                        let mut s =
                            json!({"value": v, "timestamp": at - rng.below(60) as i64 * 1000});
                        if *k == 2 {
                            s["containers"] =
                                json!({"app": format!("{}m", rng.below(600)), "sidecar": "20m"});
                        }
                        samples.insert(format!("p{p}"), s);
                    }
                    if rng.chance(10) {
                        samples.insert("gone".into(), json!({"value": "300m"}));
                    }
                    json!({"samples": samples})
                }
                4 | 5 => json!({"value": format!("{}", rng.below(400))}),
                _ => {
                    let n = rng.below(3);
                    let series: Vec<String> =
                        (0..n).map(|_| format!("{}", rng.below(200))).collect();
                    json!({"values": series})
                }
            });
        }
        steps.push(json!({"at": at, "replicas": replicas, "pods": pods, "metrics": values, "applied": !rng.chance(10)}));
        if rng.chance(20) {
            replicas = rng.below(max + 3) as i64;
        } else if rng.chance(70) {
            replicas = (replicas + rng.below(5) as i64 - 2).clamp(0, max as i64 + 2);
        }
    }
    json!({"hpa": hpa, "controller": controller, "steps": steps})
}

#[test]
fn c_replays_of_random_traces_equal_hpa_replay() {
    let dir = support::out_dir().join("random");
    fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng::new(0x5EED_0FC0_FFEE);
    let mut invalid = 0;
    let mut sources_seen = std::collections::BTreeSet::new();
    let (mut loaded, mut expected) = (Vec::new(), Vec::new());
    for i in 0..60 {
        let doc = random_trace(&mut rng);
        let path = dir.join(format!("trace-{i}.json"));
        fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
        let out = Command::new(support::hpa_cli())
            .arg("replay")
            .arg(&path)
            .output()
            .expect("run hpa replay");
        if !out.status.success() {
            invalid += 1; // a generated trace Kubernetes' validation rejects
            continue;
        }
        expected.push(parse_lines(&String::from_utf8(out.stdout).unwrap()).unwrap());
        let t = trace::load(&path).unwrap();
        for m in t.spec(&Bump::new()).metrics {
            sources_seen.insert(format!("{:?}", m.type_));
        }
        loaded.push((path.display().to_string(), t));
    }
    // Plain runs here; the bundled traces run under the sanitizers and valgrind too.
    let results = c_replay("random-traces", &loaded, Mode::Plain).expect("plain run");
    let mut compared = 0;
    for ((name, _), (got, expected)) in loaded.iter().zip(results.into_iter().zip(&expected)) {
        let got = got.unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Some(d) = exact_difference(&got, expected) {
            panic!("{name}: {d}");
        }
        compared += got.len();
    }
    println!("random traces: {compared} steps equal to hpa replay ({invalid} traces invalid); sources: {sources_seen:?}");
    assert!(
        compared > 300 && invalid < 20,
        "{compared} steps compared, {invalid} invalid traces"
    );
    assert_eq!(
        sources_seen.len(),
        5,
        "every metric source was exercised: {sources_seen:?}"
    );
}

/// Traces per C program of the upstream suite: a few programs of moderate size (about 3 MB
/// of C data each) compile faster than one huge one, and far faster than one per trace.
const UPSTREAM_CHUNK: usize = 25;

/// The upstream traces (`tests/upstream-traces/`, plus `HPA_UPSTREAM_TRACES_DIR`) through the
/// C API, judged against upstream's lines by the rule `cli/tests/upstream_traces.rs` applies
/// to `hpa replay` (`tests/support/upstream_traces.rs`); their lines must also equal `hpa
/// replay`'s exactly. Plain builds; a sample also runs under the sanitizers and valgrind
/// (`sampled_upstream_traces_...` below).
#[test]
fn c_replays_of_the_upstream_traces_have_upstreams_decisions() {
    let listing = upstream_traces::list(&support::root());
    // Per case: its C replay, or why the loader refused it (no C data without a trace).
    let mut outcomes: Vec<Option<Lines>> = vec![None; listing.cases.len()];
    let mut loaded = Vec::new();
    for (index, case) in listing.cases.iter().enumerate() {
        match trace::load(&case.trace) {
            Ok(t) => loaded.push((index, (case.name.clone(), t))),
            Err(e) => outcomes[index] = Some(Err(e.to_string())),
        }
    }
    let mut differ_from_rust = Vec::new();
    for (k, chunk) in loaded.chunks(UPSTREAM_CHUNK).enumerate() {
        let traces: Vec<(String, trace::Trace)> = chunk.iter().map(|(_, t)| t.clone()).collect();
        let results =
            c_replay(&format!("upstream-traces-{k}"), &traces, Mode::Plain).expect("plain run");
        for ((index, t), got) in chunk.iter().zip(results) {
            if let Err(d) = same_as_rust(t, &got) {
                differ_from_rust.push(d);
            }
            outcomes[*index] = Some(got);
        }
    }
    let mut report = Report::new(&listing);
    for (case, got) in listing.cases.iter().zip(outcomes) {
        report.record(case, got.expect("every case was replayed or refused"));
    }
    for d in &differ_from_rust {
        println!("C differs from hpa replay: {d}");
    }
    report.finish("C upstream traces");
    assert!(
        differ_from_rust.is_empty(),
        "C replays differ from hpa replay:\n{}",
        differ_from_rust.join("\n")
    );
}

/// Whether a C replay printed exactly `hpa replay`'s lines (its library path) for a trace.
fn same_as_rust((name, t): &(String, trace::Trace), got: &Lines) -> Result<(), String> {
    let rust = output::replay_lines(t, &mut Digest::new())
        .and_then(|lines| parse_lines(&lines.join("\n")));
    match (got, rust) {
        (Ok(got), Ok(rust)) => exact_difference(got, &rust).map_or(Ok(()), Err),
        (Err(_), Err(_)) => Ok(()),
        (Err(e), Ok(_)) => Err(format!("C: {e}; hpa replay replays it")),
        (Ok(_), Err(e)) => Err(format!("hpa replay: {e}; C replays it")),
    }
    .map_err(|d| format!("{name}: {d}"))
}

/// Upstream traces under AddressSanitizer + UndefinedBehaviorSanitizer and valgrind: a
/// deterministic sample (every 10th of the bundled ones, 20 traces) in one program, to keep
/// the instrumented runs short; each must print exactly what `hpa replay` prints.
#[test]
fn sampled_upstream_traces_under_asan_ubsan_and_valgrind_equal_hpa_replay() {
    let listing = upstream_traces::list(&support::root());
    let bundled: Vec<&upstream_traces::Case> = listing
        .cases
        .iter()
        .filter(|c| c.name.starts_with("tests/upstream-traces/"))
        .collect();
    let sample: Vec<(String, trace::Trace)> = bundled
        .iter()
        .step_by(10)
        .map(|c| {
            let t = trace::load(&c.trace).unwrap_or_else(|e| panic!("{}: refused: {e}", c.name));
            (c.name.clone(), t)
        })
        .collect();
    assert!(
        sample.len() >= 10,
        "the bundled upstream traces are missing"
    );
    let mut runs = 0;
    for mode in [Mode::Sanitized, Mode::Valgrind] {
        let Some(results) = c_replay("upstream-traces-sample", &sample, mode) else {
            continue;
        };
        for (t, got) in sample.iter().zip(&results) {
            if let Err(e) = got {
                panic!("{} ({mode:?}): {e}", t.0);
            }
            if let Err(d) = same_as_rust(t, got) {
                panic!("{mode:?}: {d}");
            }
        }
        runs += 1;
    }
    println!(
        "upstream traces under the sanitizers and valgrind: {} traces, {runs} instrumented runs",
        sample.len()
    );
}

/// The `HPA_SETTING_*` bits that keep the zeros of `s` from meaning "the default".
fn explicit_zeros(s: &Settings) -> String {
    let zeros = [
        (s.tolerance.decimal().0 == 0, "HPA_SETTING_TOLERANCE"),
        (
            s.downscale_stabilization_window.as_millis() == 0,
            "HPA_SETTING_DOWNSCALE_STABILIZATION_WINDOW",
        ),
        (
            s.cpu_initialization_period.as_millis() == 0,
            "HPA_SETTING_CPU_INITIALIZATION_PERIOD",
        ),
        (
            s.initial_readiness_delay.as_millis() == 0,
            "HPA_SETTING_INITIAL_READINESS_DELAY",
        ),
        (!s.scale_to_zero, "HPA_SETTING_SCALE_TO_ZERO"),
        (
            !s.configurable_tolerance,
            "HPA_SETTING_CONFIGURABLE_TOLERANCE",
        ),
        (
            s.legacy_scale_up_minimum == 0,
            "HPA_SETTING_LEGACY_SCALE_UP_MINIMUM",
        ),
    ];
    let bits: Vec<&str> = zeros.iter().filter(|z| z.0).map(|z| z.1).collect();
    if bits.is_empty() {
        "0".to_string()
    } else {
        bits.join(" | ")
    }
}
