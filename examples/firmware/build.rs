//! Converts the bundled traces and the replica calculator conformance cases into the
//! firmware's compact binary form (see `src/decode.rs` for the layout), at build time.
//!
//! Traces are read with the host's own loader (`hpa_cli::trace`, the code `hpa replay` runs),
//! and the engine views it builds (`HpaSpec`, `Settings`, `Observation`) are what is encoded,
//! field by field, so the firmware evaluates exactly the inputs the host evaluates. The
//! conformance cases (`tests/conformance/replica_calc.json`, and the synthetic ones of
//! `tests/conformance/shapes/replica_calc.json`) are mapped onto the engine's
//! inputs by the code `tests/conformance.rs` reads them with (`testkit::conformance`).
//! Expected results come from the vectors
//! (upstream's tests); for an expected error, whose message text the firmware does not render
//! (no `core::fmt` on the target), the expectation is the error kind whose host rendering
//! contains upstream's message.
//!
//! Outputs in `OUT_DIR`: `strings.bin` (every string once), `traces.bin`, `cases.bin` and
//! `capacity.rs` (the largest counts the decoder must hold, so its buffers are just big
//! enough).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use bumpalo::Bump;
use hpa::digest::error_kind;
use hpa::input::{
    ConditionStatus, Container, ContainerKind, ContainerUsage, MetricValues, Pod, PodPhase,
    ResourceRequest, Sample,
};
use hpa::metrics::MetricOutcome;
use hpa::quantity::{Format, Quantity};
use hpa::settings::{Arithmetic, Settings};
use hpa::spec::{
    CrossVersionObjectReference, HpaSpec, MetricIdentifier, MetricSourceType, MetricSpec,
    MetricTarget, MetricTargetType, PolicyType, ScalingRules, SelectPolicy,
};
use hpa::time::Duration;
use hpa::Tolerance;
use serde_json::Value;
use testkit::conformance::*;

#[path = "src/varint.rs"]
mod varint;

// ---------------------------------------------------------------------------------------------
// Encoder

/// Interned strings: every distinct string is stored once in `strings.bin`.
#[derive(Default)]
struct Strings {
    bytes: Vec<u8>,
    index: HashMap<String, (usize, usize)>,
}

impl Strings {
    fn add(&mut self, s: &str) -> (usize, usize) {
        if let Some(&r) = self.index.get(s) {
            return r;
        }
        let r = (self.bytes.len(), s.len());
        self.bytes.extend_from_slice(s.as_bytes());
        self.index.insert(s.to_string(), r);
        r
    }
}

/// The largest counts the decoder must hold at once.
#[derive(Default)]
struct Capacity {
    values: BTreeMap<&'static str, usize>,
}

impl Capacity {
    fn at_least(&mut self, what: &'static str, n: usize) {
        let e = self.values.entry(what).or_insert(1);
        *e = (*e).max(n).max(1);
    }
}

#[derive(Default)]
struct Out {
    buf: Vec<u8>,
}

impl Out {
    fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    fn flag(&mut self, v: bool) {
        self.u8(u8::from(v));
    }
    fn uv(&mut self, v: u128) {
        varint::write(v, |b| self.buf.push(b));
    }
    fn sv(&mut self, v: i128) {
        self.uv(varint::zigzag(v));
    }
    fn usize(&mut self, v: usize) {
        self.uv(v as u128);
    }
    fn str(&mut self, strings: &mut Strings, s: &str) {
        let (off, len) = strings.add(s);
        self.usize(off);
        self.usize(len);
    }
    fn opt_str(&mut self, strings: &mut Strings, s: Option<&str>) {
        self.flag(s.is_some());
        if let Some(s) = s {
            self.str(strings, s);
        }
    }
    fn opt_sv(&mut self, v: Option<i128>) {
        self.flag(v.is_some());
        if let Some(v) = v {
            self.sv(v);
        }
    }
    fn quantity(&mut self, q: &Quantity) {
        let (m, e, f) = q.parts();
        self.sv(m);
        self.sv(i128::from(e));
        self.u8(match f {
            Format::DecimalExponent => 0,
            Format::BinarySI => 1,
            Format::DecimalSI => 2,
        });
    }
    fn opt_quantity(&mut self, q: Option<&Quantity>) {
        self.flag(q.is_some());
        if let Some(q) = q {
            self.quantity(q);
        }
    }
    fn tolerance(&mut self, t: &Tolerance) {
        let (m, e) = t.decimal();
        self.uv(u128::from(m));
        self.sv(i128::from(e));
    }
    fn duration(&mut self, d: Duration) {
        self.sv(i128::from(d.as_millis()));
    }
}

struct Enc<'s> {
    strings: &'s mut Strings,
    cap: &'s mut Capacity,
}

impl Enc<'_> {
    fn settings(&mut self, o: &mut Out, s: &Settings) {
        o.tolerance(&s.tolerance);
        o.duration(s.downscale_stabilization_window);
        o.duration(s.cpu_initialization_period);
        o.duration(s.initial_readiness_delay);
        o.flag(s.scale_to_zero);
        o.flag(s.configurable_tolerance);
        o.u8(match s.arithmetic {
            Arithmetic::Kubernetes => 0,
            Arithmetic::Exact => 1,
        });
        o.sv(i128::from(s.legacy_scale_up_factor));
        o.sv(i128::from(s.legacy_scale_up_minimum));
    }

    fn object_ref(&mut self, o: &mut Out, r: &CrossVersionObjectReference<'_>) {
        o.str(self.strings, r.kind);
        o.str(self.strings, r.name);
        o.str(self.strings, r.api_version);
    }

    fn identifier(&mut self, o: &mut Out, m: &MetricIdentifier<'_>) {
        o.str(self.strings, m.name);
        o.opt_str(self.strings, m.selector);
        o.flag(m.selector_invalid);
    }

    fn target(&mut self, o: &mut Out, t: &MetricTarget) {
        o.u8(match t.type_ {
            None => 0,
            Some(MetricTargetType::Utilization) => 1,
            Some(MetricTargetType::Value) => 2,
            Some(MetricTargetType::AverageValue) => 3,
        });
        o.opt_quantity(t.value.as_ref());
        o.opt_quantity(t.average_value.as_ref());
        o.opt_sv(t.average_utilization.map(i128::from));
    }

    fn metric_spec(&mut self, o: &mut Out, m: &MetricSpec<'_>) {
        o.u8(match m.type_ {
            None => 0,
            Some(MetricSourceType::Object) => 1,
            Some(MetricSourceType::Pods) => 2,
            Some(MetricSourceType::Resource) => 3,
            Some(MetricSourceType::ContainerResource) => 4,
            Some(MetricSourceType::External) => 5,
        });
        o.flag(m.object.is_some());
        if let Some(x) = &m.object {
            self.object_ref(o, &x.described_object);
            self.identifier(o, &x.metric);
            self.target(o, &x.target);
        }
        o.flag(m.pods.is_some());
        if let Some(x) = &m.pods {
            self.identifier(o, &x.metric);
            self.target(o, &x.target);
        }
        o.flag(m.resource.is_some());
        if let Some(x) = &m.resource {
            o.str(self.strings, x.name);
            self.target(o, &x.target);
        }
        o.flag(m.container_resource.is_some());
        if let Some(x) = &m.container_resource {
            o.str(self.strings, x.name);
            o.str(self.strings, x.container);
            self.target(o, &x.target);
        }
        o.flag(m.external.is_some());
        if let Some(x) = &m.external {
            self.identifier(o, &x.metric);
            self.target(o, &x.target);
        }
    }

    fn rules(&mut self, o: &mut Out, r: Option<&ScalingRules<'_>>) {
        o.flag(r.is_some());
        let Some(r) = r else { return };
        o.opt_sv(r.stabilization_window_seconds.map(i128::from));
        o.u8(match r.select_policy {
            None => 0,
            Some(SelectPolicy::Max) => 1,
            Some(SelectPolicy::Min) => 2,
            Some(SelectPolicy::Disabled) => 3,
        });
        o.flag(r.policies.is_some());
        if let Some(ps) = r.policies {
            self.cap.at_least("POLICIES", ps.len());
            o.usize(ps.len());
            for p in ps {
                o.u8(match p.type_ {
                    PolicyType::Pods => 0,
                    PolicyType::Percent => 1,
                });
                o.sv(i128::from(p.value));
                o.sv(i128::from(p.period_seconds));
            }
        }
        o.opt_quantity(r.tolerance.as_ref());
    }

    fn spec(&mut self, o: &mut Out, s: &HpaSpec<'_>) {
        o.opt_sv(s.min_replicas.map(i128::from));
        o.sv(i128::from(s.max_replicas));
        self.cap.at_least("METRICS", s.metrics.len());
        o.usize(s.metrics.len());
        for m in s.metrics {
            self.metric_spec(o, m);
        }
        o.flag(s.behavior.is_some());
        if let Some(b) = &s.behavior {
            self.rules(o, b.scale_up.as_ref());
            self.rules(o, b.scale_down.as_ref());
        }
        o.flag(s.scale_target_ref.is_some());
        if let Some(r) = &s.scale_target_ref {
            self.object_ref(o, r);
        }
    }

    fn request(&mut self, o: &mut Out, r: &ResourceRequest<'_>) {
        o.str(self.strings, r.resource);
        o.quantity(&r.quantity);
    }

    fn sample_head(&mut self, o: &mut Out, s: &Sample<'_>) {
        o.sv(i128::from(s.milli));
        o.sv(i128::from(s.timestamp.0));
        o.duration(s.window);
        o.usize(s.containers.len());
    }

    /// Pods and metric values of one observation, in the pool order the decoder reads
    /// (`src/decode.rs`, "Observation").
    fn pods_and_values(&mut self, o: &mut Out, pods: &[Pod<'_>], metrics: &[MetricValues<'_>]) {
        // Pool R: every container's requests (pod order), then the pod-level requests.
        let container_requests: Vec<&ResourceRequest<'_>> = pods
            .iter()
            .flat_map(|p| p.containers.iter().flat_map(|c| c.requests.iter()))
            .collect();
        let pod_requests: Vec<&ResourceRequest<'_>> = pods
            .iter()
            .flat_map(|p| p.requests.unwrap_or(&[]).iter())
            .collect();
        let n_requests = container_requests.len() + pod_requests.len();
        self.cap.at_least("REQUESTS", n_requests);
        o.usize(n_requests);
        for r in container_requests.iter().chain(pod_requests.iter()) {
            self.request(o, r);
        }
        // Samples in pool order: per metric, the per-pod samples present, then the orphans.
        let mut samples: Vec<&Sample<'_>> = Vec::new();
        let mut external: Vec<i64> = Vec::new();
        for m in metrics {
            match m {
                MetricValues::Pods(s) => {
                    samples.extend(s.per_pod.iter().flatten());
                    samples.extend(s.orphans.iter());
                }
                MetricValues::External(vs) => external.extend_from_slice(vs),
                MetricValues::Object(_) | MetricValues::Error(_) => {}
            }
        }
        // Pool U: container usages of every sample.
        let usages: Vec<&ContainerUsage<'_>> =
            samples.iter().flat_map(|s| s.containers.iter()).collect();
        self.cap.at_least("USAGES", usages.len());
        o.usize(usages.len());
        for u in usages {
            o.str(self.strings, u.name);
            o.sv(i128::from(u.milli));
        }
        // Pool X: external values.
        self.cap.at_least("EXTERNAL", external.len());
        o.usize(external.len());
        for v in &external {
            o.sv(i128::from(*v));
        }
        // Pool C: containers.
        let containers: Vec<&Container<'_>> =
            pods.iter().flat_map(|p| p.containers.iter()).collect();
        self.cap.at_least("CONTAINERS", containers.len());
        o.usize(containers.len());
        for c in containers {
            o.str(self.strings, c.name);
            o.u8(match c.kind {
                ContainerKind::Regular => 0,
                ContainerKind::RestartableInit => 1,
                ContainerKind::Init => 2,
            });
            o.usize(c.requests.len());
        }
        // Pods.
        self.cap.at_least("PODS", pods.len());
        o.usize(pods.len());
        for p in pods {
            self.pod(o, p);
        }
        // Pool S: samples.
        self.cap.at_least("SAMPLES", samples.len());
        o.usize(samples.len());
        for s in &samples {
            self.sample_head(o, s);
        }
        // Metric values.
        let mut slots = 0;
        self.cap.at_least("METRICS", metrics.len());
        o.usize(metrics.len());
        for m in metrics {
            match m {
                MetricValues::Pods(s) => {
                    o.u8(0);
                    o.usize(s.per_pod.len());
                    slots += s.per_pod.len();
                    for slot in s.per_pod {
                        o.flag(slot.is_some());
                    }
                    o.usize(s.orphans.len());
                }
                MetricValues::Object(v) => {
                    o.u8(1);
                    o.sv(i128::from(*v));
                }
                MetricValues::External(vs) => {
                    o.u8(2);
                    o.usize(vs.len());
                }
                MetricValues::Error(msg) => {
                    o.u8(3);
                    o.str(self.strings, msg);
                }
            }
        }
        self.cap.at_least("SLOTS", slots);
    }

    fn pod(&mut self, o: &mut Out, p: &Pod<'_>) {
        o.str(self.strings, p.name);
        o.u8(phase_code(p.phase));
        o.flag(p.ready.is_some());
        if let Some(r) = &p.ready {
            o.u8(status_code(r.status));
            o.opt_sv(r.last_transition.map(|t| i128::from(t.0)));
        }
        o.opt_sv(p.start_time.map(|t| i128::from(t.0)));
        o.flag(p.deleted);
        o.usize(p.containers.len());
        o.flag(p.requests.is_some());
        if let Some(r) = p.requests {
            o.usize(r.len());
        }
    }
}

fn phase_code(p: PodPhase) -> u8 {
    match p {
        PodPhase::Pending => 0,
        PodPhase::Running => 1,
        PodPhase::Succeeded => 2,
        PodPhase::Failed => 3,
        PodPhase::Unknown => 4,
    }
}

fn status_code(s: ConditionStatus) -> u8 {
    match s {
        ConditionStatus::True => 0,
        ConditionStatus::False => 1,
        ConditionStatus::Unknown => 2,
    }
}

// ---------------------------------------------------------------------------------------------
// Traces

/// The bundled traces (`examples/traces`).
fn bundled_traces(dir: &Path) -> R<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "json" | "yaml" | "yml"))
        })
        .collect();
    // Byte order of the file names: `.ci/firmware` lists the host's digests in the same order.
    files.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    Ok(files)
}

/// The sample of upstream traces (`tests/upstream-traces/`) listed in `upstream-sample.txt`,
/// in its order: all 200 would not fit in flash (about 1.3 MB encoded). `.ci/firmware` reads
/// the same list for the host's digests.
fn upstream_sample(list: &Path, dir: &Path) -> R<Vec<PathBuf>> {
    let text = std::fs::read_to_string(list).map_err(|e| format!("{}: {e}", list.display()))?;
    Ok(text
        .lines()
        .map(|l| l.split('#').next().unwrap_or_default().trim())
        .filter(|stem| !stem.is_empty())
        .map(|stem| dir.join(format!("{stem}.json")))
        .collect())
}

fn encode_traces(files: &[PathBuf], enc: &mut Enc<'_>) -> R<Vec<u8>> {
    let mut o = Out::default();
    o.usize(files.len());
    for path in files {
        let trace = hpa_cli::trace::load(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or_else(|| format!("{}: no file stem", path.display()))?;
        o.str(enc.strings, name);
        o.flag(trace.scaled_to_zero);
        enc.settings(&mut o, &trace.settings);
        let arena = Bump::new();
        let spec = trace.spec(&arena);
        enc.spec(&mut o, &spec);
        o.usize(trace.steps());
        for i in 0..trace.steps() {
            let step_arena = Bump::new();
            let step = trace
                .step_view(i, &step_arena)
                .ok_or_else(|| format!("{}: no step {i}", path.display()))?;
            let obs = &step.observation;
            o.sv(i128::from(obs.now.0));
            o.sv(i128::from(obs.replicas));
            o.sv(i128::from(obs.status_replicas));
            o.flag(step.applied);
            enc.pods_and_values(&mut o, obs.pods, obs.metrics);
        }
        println!("cargo:rerun-if-changed={}", path.display());
    }
    Ok(o.buf)
}

// ---------------------------------------------------------------------------------------------
// Conformance cases (replica_calc.json), mapped as tests/conformance.rs maps them.

/// The expectation byte for an error: the kind of the host's error when its text contains
/// upstream's message, else 0xFF (never produced: the case fails on the target too).
const NO_KIND: u8 = 0xFF;

/// Case kind 0: one metric through `evaluate_metric` (`cases`).
fn encode_calc_case(o: &mut Out, enc: &mut Enc<'_>, c: &'static Value) -> R<()> {
    let case = CalcCase::read(c)?;
    o.u8(0);
    enc.settings(o, &case.settings);
    o.tolerance(&case.tolerances.down);
    o.tolerance(&case.tolerances.up);
    o.sv(i128::from(case.current));
    o.sv(i128::from(case.now.0));
    enc.metric_spec(o, case.spec);
    enc.pods_and_values(o, case.pods, case.values);
    match case.expect {
        CalcExpect::Error(sub) => {
            let kind = match case.evaluate() {
                MetricOutcome::Error(err) if err.to_string().contains(sub) => error_kind(&err),
                _ => NO_KIND,
            };
            o.u8(1);
            o.u8(kind);
        }
        CalcExpect::Proposal {
            replicas,
            utilization_percent,
            raw_is_value,
            raw_value_milli,
        } => {
            o.u8(0);
            o.opt_sv(replicas.map(i128::from));
            o.opt_sv(utilization_percent.map(i128::from));
            o.flag(raw_is_value);
            o.opt_sv(raw_value_milli.map(i128::from));
        }
    }
    Ok(())
}

/// Case kind 1: `group_pods` (aux_cases).
fn encode_group_pods(o: &mut Out, enc: &mut Enc<'_>, c: &'static Value) -> R<()> {
    let case = GroupPodsCase::read(c)?;
    let (rules, e) = (&case.readiness, &case.expect);
    o.u8(1);
    o.flag(rules.cpu);
    o.duration(rules.cpu_initialization_period);
    o.duration(rules.initial_readiness_delay);
    o.sv(i128::from(rules.now.0));
    o.sv(i128::from(e.ready_pod_count));
    enc.cap.at_least("PODS", case.pods.len());
    o.usize(case.pods.len());
    let mut listed = 0;
    for (pod, sample) in &case.pods {
        enc.pod(o, pod);
        match sample {
            Some(s) => {
                o.u8(1);
                o.sv(i128::from(s.milli));
                o.sv(i128::from(s.timestamp.0));
                o.duration(s.window);
            }
            None => o.u8(0),
        }
        // Expected group: 0 ready, 1 unready, 2 missing, 3 ignored.
        let group = if e.unready.contains(&pod.name) {
            1
        } else if e.missing.contains(&pod.name) {
            2
        } else if e.ignored.contains(&pod.name) {
            3
        } else {
            0
        };
        listed += usize::from(group != 0);
        o.u8(group);
    }
    // Every listed name must be one of the pods (otherwise the case cannot pass).
    o.flag(listed == e.unready.len() + e.missing.len() + e.ignored.len());
    Ok(())
}

/// Case kind 2: `calculate_requests` (aux_cases).
fn encode_calculate_requests(o: &mut Out, enc: &mut Enc<'_>, c: &'static Value) -> R<()> {
    let case = RequestsCase::read(c)?;
    o.u8(2);
    o.str(enc.strings, case.resource);
    o.opt_str(enc.strings, case.container);
    enc.pods_and_values(o, &case.pods, &[]);
    match &case.expect {
        RequestsExpect::Error(want) => {
            // Upstream stops at the first error; the host's must render upstream's text.
            let kind = match case.requests() {
                Err(err) if err.to_string().contains(want) => request_kind(&err),
                _ => NO_KIND,
            };
            o.u8(1);
            o.u8(kind);
        }
        RequestsExpect::Requests(want) => {
            o.u8(0);
            let names_match = want.len() == case.pods.len()
                && case.pods.iter().all(|p| want.contains_key(p.name));
            o.flag(names_match);
            for p in &case.pods {
                o.opt_sv(want.get(p.name).map(|&v| i128::from(v)));
            }
        }
    }
    Ok(())
}

/// The digest's kind code of a request error (its `Calc(Request(..))` code).
fn request_kind(e: &hpa::metrics::RequestError<'_>) -> u8 {
    use hpa::metrics::RequestError;
    match e {
        RequestError::MissingRequest { .. } => 32,
        RequestError::ContainerNotFound { .. } => 33,
        RequestError::MissingPodLevelRequest { .. } => 34,
    }
}

/// The cases of every file in `paths`, in order: each file's `cases`, then all `aux_cases`.
fn encode_cases(paths: &[PathBuf], enc: &mut Enc<'_>) -> R<(Vec<u8>, usize)> {
    let (mut cases, mut aux) = (Vec::new(), Vec::new());
    for path in paths {
        let root = load(path)?;
        cases.extend(list(root, "cases")?);
        aux.extend(list(root, "aux_cases")?);
    }
    let mut o = Out::default();
    o.usize(cases.len() + aux.len());
    for c in cases.iter().chain(&aux) {
        o.str(enc.strings, text_of(c, "name"));
    }
    for &c in &cases {
        encode_calc_case(&mut o, enc, c).map_err(|e| format!("case {}: {e}", c["name"]))?;
    }
    for &c in &aux {
        let r = match text_of(c, "kind") {
            "group_pods" => encode_group_pods(&mut o, enc, c),
            "calculate_requests" => encode_calculate_requests(&mut o, enc, c),
            other => Err(format!("unknown aux case kind {other:?}")),
        };
        r.map_err(|e| format!("aux case {}: {e}", c["name"]))?;
    }
    Ok((o.buf, cases.len() + aux.len()))
}

fn text_of<'v>(v: &'v Value, key: &str) -> &'v str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

// ---------------------------------------------------------------------------------------------

fn main() {
    if let Err(e) = run() {
        eprintln!("hpa-firmware build script: {e}");
        std::process::exit(1);
    }
}

fn run() -> R<()> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let out = PathBuf::from(std::env::var("OUT_DIR").map_err(|e| e.to_string())?);
    let root = manifest.join("../..");

    // The linker script for cortex-m-rt.
    std::fs::copy(manifest.join("memory.x"), out.join("memory.x")).map_err(|e| e.to_string())?;
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory.x");
    println!("cargo:rerun-if-changed=build.rs");

    let traces_dir = root.join("examples/traces");
    // Upstream's cases, then the synthetic ones of the shapes upstream's data may take.
    let cases_paths = [
        root.join("tests/conformance/replica_calc.json"),
        root.join("tests/conformance/shapes/replica_calc.json"),
    ];
    println!("cargo:rerun-if-changed={}", traces_dir.display());
    for path in &cases_paths {
        println!("cargo:rerun-if-changed={}", path.display());
    }

    let mut strings = Strings::default();
    let mut cap = Capacity::default();
    let mut enc = Enc {
        strings: &mut strings,
        cap: &mut cap,
    };
    let mut trace_files = bundled_traces(&traces_dir)?;
    let sample_list = manifest.join("upstream-sample.txt");
    println!("cargo:rerun-if-changed={}", sample_list.display());
    trace_files.extend(upstream_sample(
        &sample_list,
        &root.join("tests/upstream-traces"),
    )?);
    let traces = encode_traces(&trace_files, &mut enc)?;
    let (cases, n_cases) = encode_cases(&cases_paths, &mut enc)?;

    let write = |name: &str, bytes: &[u8]| {
        std::fs::write(out.join(name), bytes).map_err(|e| format!("{name}: {e}"))
    };
    write("strings.bin", &strings.bytes)?;
    write("traces.bin", &traces)?;
    write("cases.bin", &cases)?;
    let mut rs = String::from("// Generated by build.rs: the largest counts the decoder holds.\n");
    for k in [
        "POLICIES",
        "METRICS",
        "REQUESTS",
        "USAGES",
        "EXTERNAL",
        "CONTAINERS",
        "PODS",
        "SAMPLES",
        "SLOTS",
    ] {
        let v = cap.values.get(k).copied().unwrap_or(1);
        let _ = writeln!(rs, "pub const MAX_{k}: usize = {v};");
    }
    let _ = writeln!(rs, "/// Conformance cases in `cases.bin`.");
    let _ = writeln!(rs, "pub const CASES: usize = {n_cases};");
    write("capacity.rs", rs.as_bytes())?;
    Ok(())
}
