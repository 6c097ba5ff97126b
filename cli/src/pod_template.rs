//! `hpa simulate --pod-template FILE`: the pods' containers and their requests, from a Pod
//! (`v1`) or Deployment (`apps/v1`) manifest, YAML or JSON, read within the same size and
//! nesting limits as every file (`trace::source`).
//!
//! Regular containers (`spec.containers`) and sidecars (`spec.initContainers` with
//! `restartPolicy: Always`) count toward a Resource metric's request, as upstream's
//! `calculatePodRequests` counts them; plain init containers are kept in the pods but count
//! for nothing. A ContainerResource metric's request is its container's. Without a template,
//! every pod has one container per container a metric names (one `app` when none does), each
//! requesting `--pod-request`.
//!
//! The requests are those of the pods the API server creates from the template
//! (`SetDefaults_Pod`): a container's limit stands for its missing request, and with the
//! PodLevelResources gate on, the pod's own `spec.resources` (cpu, memory, `hugepages-*`) is
//! defaulted from its limits and the containers as upstream defaults it; with the gate off the
//! API server drops it, and so does the template. With the SidecarContainers gate off (before
//! 1.29 by default) the API server drops an init container's `restartPolicy`: a sidecar is then
//! a plain init container.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use hpa::input::{Container, ContainerKind, PodPhase, ResourceRequest};
use hpa::Quantity;
use hpa::{Pod, RequestError};
use serde::Deserialize;
use serde_json::Value;

use crate::trace::source::{check_nesting, read_source, MAX_MANIFEST_BYTES};
use crate::trace::Format;

/// The containers every simulated pod has.
#[derive(Clone, Debug, PartialEq)]
pub struct PodTemplate {
    /// Where it came from: the file, or `None` for the `--pod-request` pool.
    pub file: Option<String>,
    /// Containers in the pod's order: regular ones, then init containers in theirs.
    pub containers: Vec<TemplateContainer>,
    /// The pod's own requests (`spec.resources.requests`, PodLevelResources) after the API
    /// server's defaulting, by resource name; `None` when the pod has none.
    pub pod_requests: Option<Vec<(String, Quantity)>>,
    /// The template set pod-level resources that the targeted cluster drops (the
    /// PodLevelResources gate is off).
    pub pod_resources_dropped: bool,
    /// The template has sidecars that the targeted cluster makes plain init containers (the
    /// SidecarContainers gate is off).
    pub sidecars_dropped: bool,
}

/// The feature gates that change what the API server keeps of a pod template.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TemplateGates {
    /// PodLevelResources: the pod's own `spec.resources`.
    pub pod_level_resources: bool,
    /// SidecarContainers: an init container's `restartPolicy: Always`.
    pub sidecar_containers: bool,
}

impl TemplateGates {
    /// Every gate on (the newest releases' defaults).
    pub const ALL: TemplateGates = TemplateGates {
        pod_level_resources: true,
        sidecar_containers: true,
    };
}

/// One container of the template.
#[derive(Clone, Debug, PartialEq)]
pub struct TemplateContainer {
    /// Its name.
    pub name: String,
    /// Regular, sidecar or plain init container.
    pub kind: ContainerKind,
    /// `resources.requests`, by resource name, a limit standing for a missing request.
    pub requests: Vec<(String, Quantity)>,
}

/// Why a container's request cannot be counted (see [`PodTemplate::request`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RequestProblem {
    /// No counted container requests the resource (the `--pod-request` pool).
    NoRequest,
    /// This counted container of a template lacks the request.
    Missing(String),
    /// The named container is not in the template.
    NoContainer(String),
    /// The pod's own requests lack the resource and no container requests it.
    MissingPodLevel,
}

impl PodTemplate {
    /// The pool without a template: containers `names`, each requesting `requests`.
    pub fn uniform(names: &[String], requests: &[(String, Quantity)]) -> PodTemplate {
        PodTemplate {
            file: None,
            containers: names
                .iter()
                .map(|name| TemplateContainer {
                    name: name.clone(),
                    kind: ContainerKind::Regular,
                    requests: requests.to_vec(),
                })
                .collect(),
            pod_requests: None,
            pod_resources_dropped: false,
            sidecars_dropped: false,
        }
    }

    /// A pod's request of `resource` in milli-units, as the engine counts it
    /// (docs/spec/pods.md#requests): the named container's, or for `None` the pod-level
    /// request, else the sum over the regular containers and sidecars, each of which must
    /// request it.
    ///
    /// # Errors
    ///
    /// The container is missing, or a counted container lacks the request.
    pub fn request(&self, container: Option<&str>, resource: &str) -> Result<i64, RequestProblem> {
        // The engine's own rule, on a pod of the template's containers.
        let requests = self.engine_requests();
        let containers = self.engine_containers(&requests);
        let pod_requests = self.engine_pod_requests();
        let pod = Pod {
            name: "template",
            phase: PodPhase::Running,
            ready: None,
            start_time: None,
            deleted: false,
            containers: &containers,
            requests: pod_requests.as_deref(),
        };
        hpa::pod_request(&pod, container, resource).map_err(|e| match e {
            RequestError::MissingRequest { container, .. } if self.file.is_some() => {
                RequestProblem::Missing(container.to_owned())
            }
            RequestError::ContainerNotFound { container, .. } => {
                RequestProblem::NoContainer(container.to_owned())
            }
            RequestError::MissingPodLevelRequest { .. } => RequestProblem::MissingPodLevel,
            // The pool of `--pod-request`.
            RequestError::MissingRequest { .. } => RequestProblem::NoRequest,
        })
    }

    /// The pod-level requests as the engine reads them (`Pod::requests`).
    pub fn engine_pod_requests(&self) -> Option<Vec<ResourceRequest<'_>>> {
        self.pod_requests
            .as_ref()
            .map(|requests| engine_list(requests))
    }

    /// Each container's requests as the engine reads them (borrowed by
    /// [`PodTemplate::engine_containers`]).
    pub fn engine_requests(&self) -> Vec<Vec<ResourceRequest<'_>>> {
        self.containers
            .iter()
            .map(|c| engine_list(&c.requests))
            .collect()
    }

    /// The containers as the engine reads them, with `requests` from
    /// [`PodTemplate::engine_requests`].
    pub fn engine_containers<'a>(
        &'a self,
        requests: &'a [Vec<ResourceRequest<'a>>],
    ) -> Vec<Container<'a>> {
        self.containers
            .iter()
            .zip(requests)
            .map(|(c, requests)| Container {
                name: &c.name,
                kind: c.kind,
                requests,
            })
            .collect()
    }

    /// Whether a metric may name container `name` (not a plain init container).
    pub fn has(&self, name: &str) -> bool {
        self.containers
            .iter()
            .any(|c| c.name == name && c.kind != ContainerKind::Init)
    }

    /// The containers' names, comma-separated.
    pub fn names(&self) -> String {
        let names: Vec<&str> = self.containers.iter().map(|c| c.name.as_str()).collect();
        names.join(", ")
    }

    /// What the pool line says of a template: each container, its kind and its requests.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for (i, c) in self.containers.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            match c.kind {
                ContainerKind::Regular => {}
                ContainerKind::RestartableInit => out.push_str("sidecar "),
                ContainerKind::Init => out.push_str("init container "),
            }
            out.push_str(&c.name);
            write_requests(&mut out, &c.requests);
        }
        if let Some(requests) = &self.pod_requests {
            out.push_str(", pod");
            write_requests(&mut out, requests);
        }
        if self.pod_resources_dropped {
            out.push_str(" (pod-level resources dropped: PodLevelResources is off)");
        }
        if self.sidecars_dropped {
            out.push_str(" (sidecars' restartPolicy dropped: SidecarContainers is off)");
        }
        out
    }
}

fn write_requests(out: &mut String, requests: &[(String, Quantity)]) {
    for (resource, quantity) in requests {
        let _ = write!(out, " {resource}={quantity}");
    }
}

fn engine_list(requests: &[(String, Quantity)]) -> Vec<ResourceRequest<'_>> {
    requests
        .iter()
        .map(|(resource, quantity)| ResourceRequest {
            resource,
            quantity: *quantity,
        })
        .collect()
}

/// A container as manifests write it; other fields are ignored.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawContainer {
    name: String,
    #[serde(default)]
    restart_policy: Option<String>,
    #[serde(default)]
    resources: RawResources,
}

#[derive(Deserialize, Default)]
struct RawResources {
    #[serde(default)]
    requests: BTreeMap<String, Value>,
    #[serde(default)]
    limits: BTreeMap<String, Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawPodSpec {
    #[serde(default)]
    containers: Vec<RawContainer>,
    #[serde(default)]
    init_containers: Vec<RawContainer>,
    #[serde(default)]
    resources: Option<RawResources>,
}

/// Reads the template at `path` (`-`: standard input), for a cluster with `gates`.
///
/// # Errors
///
/// A message naming the file and what is wrong.
pub fn load(path: &Path, gates: TemplateGates) -> Result<PodTemplate, String> {
    let source = read_source(path, MAX_MANIFEST_BYTES).map_err(|e| e.to_string())?;
    parse(&source.text, source.format, &source.name, gates)
        .map_err(|e| format!("{}: {e}", source.name))
}

/// Parses the template of file `name`: the one Pod or Deployment of the text (other kinds,
/// such as the HPA itself in the same file, are skipped).
///
/// # Errors
///
/// A message naming the field at fault.
pub fn parse(
    text: &str,
    format: Format,
    name: &str,
    gates: TemplateGates,
) -> Result<PodTemplate, String> {
    check_nesting(text, format).map_err(|e| e.to_string())?;
    let documents: Vec<Value> = match format {
        Format::Json => vec![serde_json::from_str(text).map_err(|e| e.to_string())?],
        Format::Yaml => serde_norway::Deserializer::from_str(text)
            .map(Value::deserialize)
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?,
    };
    let mut found: Vec<(&str, &Value)> = Vec::new();
    let mut kinds: Vec<String> = Vec::new();
    for document in &documents {
        let kind = document.get("kind").and_then(Value::as_str).unwrap_or("");
        let api_version = document
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        let spec = match (kind, api_version) {
            ("Pod", "v1") => document.get("spec"),
            ("Deployment", "apps/v1") => document
                .get("spec")
                .and_then(|s| s.get("template"))
                .and_then(|t| t.get("spec")),
            ("Pod" | "Deployment", _) => {
                return Err(format!(
                    "apiVersion: a {kind} is read as {}, got {api_version:?}",
                    if kind == "Pod" { "v1" } else { "apps/v1" }
                ))
            }
            _ => {
                if !kind.is_empty() {
                    kinds.push(kind.to_owned());
                }
                continue;
            }
        };
        let path = if kind == "Pod" {
            "spec"
        } else {
            "spec.template.spec"
        };
        let spec = spec.ok_or_else(|| format!("{path}: missing"))?;
        found.push((path, spec));
    }
    let (path, spec) = match found.as_slice() {
        [one] => *one,
        [] => {
            let others = if kinds.is_empty() {
                String::new()
            } else {
                format!(" (found {})", kinds.join(", "))
            };
            return Err(format!("no Pod or Deployment{others}"));
        }
        _ => {
            return Err(format!(
                "{} Pods and Deployments; the pod template needs one",
                found.len()
            ))
        }
    };
    let raw: RawPodSpec = serde_path_to_error::deserialize(spec)
        .map_err(|e| format!("{path}.{}: {}", e.path(), e.inner()))?;
    template_of(raw, path, name, gates)
}

fn template_of(
    raw: RawPodSpec,
    path: &str,
    name: &str,
    gates: TemplateGates,
) -> Result<PodTemplate, String> {
    if raw.containers.is_empty() {
        return Err(format!("{path}.containers: a pod needs a container"));
    }
    let mut containers: Vec<TemplateContainer> = Vec::new();
    // Each container's limits, beside `containers`: the pod-level defaults read them.
    let mut limits: Vec<Vec<(String, Quantity)>> = Vec::new();
    let mut sidecars_dropped = false;
    let groups = [
        ("containers", raw.containers, false),
        ("initContainers", raw.init_containers, true),
    ];
    for (field, list, init) in groups {
        for (i, c) in list.into_iter().enumerate() {
            let at = format!("{path}.{field}[{i}]");
            if c.name.is_empty() || containers.iter().any(|other| other.name == c.name) {
                return Err(format!(
                    "{at}.name: container names must be unique and not empty, got {:?}",
                    c.name
                ));
            }
            let kind = match (init, c.restart_policy.as_deref()) {
                (false, _) => ContainerKind::Regular,
                (true, Some("Always")) if !gates.sidecar_containers => {
                    sidecars_dropped = true;
                    ContainerKind::Init
                }
                (true, Some("Always")) => ContainerKind::RestartableInit,
                (true, None) => ContainerKind::Init,
                (true, Some(other)) => {
                    return Err(format!(
                        "{at}.restartPolicy: only Always (a sidecar) is supported, got {other:?}"
                    ))
                }
            };
            let (mut requests, container_limits) =
                quantities(c.resources, &format!("{at}.resources"))?;
            // SetDefaults_Pod: a limit without a request is the request too.
            for (resource, limit) in &container_limits {
                requests.entry(resource.clone()).or_insert(*limit);
            }
            containers.push(TemplateContainer {
                name: c.name,
                kind,
                requests: requests.into_iter().collect(),
            });
            limits.push(container_limits.into_iter().collect());
        }
    }
    let (pod_requests, pod_resources_dropped) = match raw.resources {
        Some(resources) if !gates.pod_level_resources => (
            None,
            !resources.requests.is_empty() || !resources.limits.is_empty(),
        ),
        Some(resources) => (
            pod_level_requests(resources, &containers, &limits, path)?,
            false,
        ),
        None => (None, false),
    };
    Ok(PodTemplate {
        file: Some(name.to_owned()),
        containers,
        pod_requests,
        pod_resources_dropped,
        sidecars_dropped,
    })
}

/// Quantities by resource name.
type Quantities = BTreeMap<String, Quantity>;

/// `requests` and `limits` of `resources`, parsed; `at` is their field path.
fn quantities(resources: RawResources, at: &str) -> Result<(Quantities, Quantities), String> {
    let parse = |map: BTreeMap<String, Value>, field: &str| {
        let mut out = BTreeMap::new();
        for (resource, value) in map {
            let text = match &value {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                _ => {
                    return Err(format!(
                        "{at}.{field}.{resource}: expected a quantity, got {value}"
                    ))
                }
            };
            let quantity = Quantity::parse(&text)
                .map_err(|e| format!("{at}.{field}.{resource}: invalid quantity {text:?}: {e}"))?;
            if quantity.signum() < 0 {
                return Err(format!(
                    "{at}.{field}.{resource}: must not be negative, got {text}"
                ));
            }
            out.insert(resource, quantity);
        }
        Ok(out)
    };
    Ok((
        parse(resources.requests, "requests")?,
        parse(resources.limits, "limits")?,
    ))
}

/// The pod's own requests after the API server's defaulting with PodLevelResources on
/// (`defaultHugePagePodLimits`, then `defaultPodRequests`): a hugepages limit the pod does
/// not set is the containers' aggregated one; when the pod sets limits, a cpu or memory
/// request it does not set is the containers' aggregated request, and any other request it
/// does not set is its limit. `None` when it sets no request. `limits` are the containers',
/// in their order.
fn pod_level_requests(
    resources: RawResources,
    containers: &[TemplateContainer],
    limits: &[Vec<(String, Quantity)>],
    path: &str,
) -> Result<Option<Vec<(String, Quantity)>>, String> {
    let (mut requests, mut pod_limits) = quantities(resources, &format!("{path}.resources"))?;
    for (field, map) in [("requests", &requests), ("limits", &pod_limits)] {
        if let Some(resource) = map.keys().find(|r| !hpa::is_pod_level_resource(r)) {
            return Err(format!(
                "{path}.resources.{field}.{resource}: a pod may set only cpu, memory and \
                 hugepages-<size> resources itself"
            ));
        }
    }
    let container_limits = || containers.iter().map(|c| c.kind).zip(limits.iter());
    let container_requests = || containers.iter().map(|c| (c.kind, &c.requests));
    if !requests.is_empty() || !pod_limits.is_empty() {
        for resource in names(limits).filter(|r| r.starts_with("hugepages-")) {
            if !requests.contains_key(resource) && !pod_limits.contains_key(resource) {
                if let Some(total) = aggregate(container_limits(), resource, path)? {
                    pod_limits.insert(resource.to_owned(), total);
                }
            }
        }
    }
    if !pod_limits.is_empty() {
        for resource in names(containers.iter().map(|c| &c.requests)) {
            let overcommitted = resource == "cpu" || resource == "memory";
            if overcommitted && !requests.contains_key(resource) {
                if let Some(total) = aggregate(container_requests(), resource, path)? {
                    requests.insert(resource.to_owned(), total);
                }
            }
        }
        for (resource, limit) in &pod_limits {
            requests.entry(resource.clone()).or_insert(*limit);
        }
    }
    Ok((!requests.is_empty()).then(|| requests.into_iter().collect()))
}

/// Every resource name of the containers' `lists`, once, in order.
fn names<'q>(
    lists: impl IntoIterator<Item = &'q Vec<(String, Quantity)>>,
) -> impl Iterator<Item = &'q str> {
    let mut all: Vec<&str> = lists
        .into_iter()
        .flat_map(|list| list.iter().map(|(resource, _)| resource.as_str()))
        .collect();
    all.sort_unstable();
    all.dedup();
    all.into_iter()
}

/// Upstream's `AggregateContainerRequests` (or limits) for one resource over each container's
/// kind and requests (or limits), exactly: the sum of the regular containers and sidecars, or
/// the largest init-time footprint (a plain init container with the sidecars before it) when
/// larger. `None` when no container sets it.
///
/// The engine's `aggregate_container_requests` (src/pods.rs) is the same rule for the request
/// the controller reads, its `MilliValue`, in saturating nano-units. This one is the API
/// server's defaulting of the pod's own `spec.resources`: it keeps the Quantity the API server
/// stores, exact and in the format `Quantity.Add` gives it (what `hpa simulate` prints), and
/// refuses a sum past 128-bit decimals where the engine saturates. Both keep their own form:
/// the engine's carries no format and no error, within its Cortex-M0 code budget.
fn aggregate<'q>(
    containers: impl Iterator<Item = (ContainerKind, &'q Vec<(String, Quantity)>)>,
    resource: &str,
    path: &str,
) -> Result<Option<Quantity>, String> {
    let too_large = || format!("{path}: the containers' {resource} is too large to add up");
    let zero = Quantity::from_milli(0);
    let (mut any, mut total, mut sidecars, mut peak) = (false, zero, zero, zero);
    for (kind, list) in containers {
        let Some(&(_, q)) = list.iter().find(|(r, _)| r == resource) else {
            continue;
        };
        any = true;
        match kind {
            ContainerKind::Regular => total = add(total, q).ok_or_else(too_large)?,
            ContainerKind::RestartableInit => {
                total = add(total, q).ok_or_else(too_large)?;
                sidecars = add(sidecars, q).ok_or_else(too_large)?;
                peak = larger(peak, sidecars);
            }
            ContainerKind::Init => peak = larger(peak, add(q, sidecars).ok_or_else(too_large)?),
        }
    }
    Ok(any.then(|| larger(total, peak)))
}

/// `candidate` when it is greater than `kept`, else `kept`: on a tie the value kept is the one
/// already there, with its format, as upstream's `maxResourceList` keeps it (`Ord::max` would
/// take the candidate's).
fn larger(kept: Quantity, candidate: Quantity) -> Quantity {
    if candidate > kept {
        candidate
    } else {
        kept
    }
}

/// `a + b` exactly, in `a`'s format as upstream's `Quantity.Add` keeps it (`b`'s when `a` is
/// zero); `None` past the range of 128-bit decimals.
fn add(a: Quantity, b: Quantity) -> Option<Quantity> {
    let ((ma, ea, format), (mb, eb, _)) = (a.parts(), b.parts());
    if mb == 0 {
        return Some(a);
    }
    if ma == 0 {
        return Some(b);
    }
    let exponent = ea.min(eb);
    let scaled = |m: i128, e: i32| {
        let shift = u32::try_from(e.checked_sub(exponent)?).ok()?;
        m.checked_mul(10_i128.checked_pow(shift)?)
    };
    let sum = scaled(ma, ea)?.checked_add(scaled(mb, eb)?)?;
    Some(Quantity::from_parts(sum, exponent, format))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEPLOYMENT: &str = r#"
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      initContainers:
        - name: migrate
          image: web:1
          resources: {requests: {cpu: "2"}}
        - name: proxy
          image: envoy
          restartPolicy: Always
          resources: {requests: {cpu: 250m, memory: 128Mi}}
      containers:
        - name: app
          image: web:1
          ports: [{containerPort: 8080}]
          resources:
            requests: {cpu: 0.5, memory: 512Mi}
            limits: {cpu: 1}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
"#;

    #[test]
    fn a_deployment_gives_containers_and_sidecars() {
        let t = parse(DEPLOYMENT, Format::Yaml, "web.yaml", TemplateGates::ALL).unwrap();
        assert_eq!(t.names(), "app, migrate, proxy");
        assert_eq!(
            t.describe(),
            "app cpu=500m memory=512Mi, init container migrate cpu=2, sidecar proxy cpu=250m \
             memory=128Mi"
        );
        // Regular containers and sidecars count; the plain init container does not.
        assert_eq!(t.request(None, "cpu"), Ok(750));
        assert_eq!(t.request(Some("proxy"), "cpu"), Ok(250));
        assert_eq!(t.request(Some("app"), "memory"), Ok(536_870_912_000));
        assert_eq!(
            t.request(Some("migrate"), "cpu"),
            Err(RequestProblem::NoContainer("migrate".to_owned()))
        );
        assert_eq!(
            t.request(None, "ephemeral-storage"),
            Err(RequestProblem::Missing("app".to_owned()))
        );
    }

    /// Before 1.29 (the SidecarContainers gate off) a sidecar is a plain init container: its
    /// request does not count.
    #[test]
    fn sidecars_are_plain_init_containers_with_the_gate_off() {
        let gates = TemplateGates {
            sidecar_containers: false,
            ..TemplateGates::ALL
        };
        let t = parse(DEPLOYMENT, Format::Yaml, "web.yaml", gates).unwrap();
        assert_eq!(
            t.describe(),
            "app cpu=500m memory=512Mi, init container migrate cpu=2, init container proxy \
             cpu=250m memory=128Mi (sidecars' restartPolicy dropped: SidecarContainers is off)"
        );
        assert_eq!(t.request(None, "cpu"), Ok(500));
    }

    #[test]
    fn a_pod_in_json() {
        let t = parse(
            r#"{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": 2}}}]}}"#,
            Format::Json,
            "pod.json",
            TemplateGates::ALL,
        )
        .unwrap();
        assert_eq!(t.request(None, "cpu"), Ok(2000));
    }

    /// A pod of `spec` (YAML flow), read with the PodLevelResources gate `on`.
    fn pod(spec: &str, on: bool) -> PodTemplate {
        let text = format!("kind: Pod\napiVersion: v1\nspec: {spec}\n");
        let gates = TemplateGates {
            pod_level_resources: on,
            ..TemplateGates::ALL
        };
        parse(&text, Format::Yaml, "pod.yaml", gates).unwrap()
    }

    #[test]
    fn a_limit_without_a_request_is_the_request() {
        // SetDefaults_Pod, for regular and init containers alike.
        let t = pod(
            "{containers: [{name: a, resources: {limits: {cpu: 2, memory: 1Gi}, requests: {cpu: 1}}}], \
             initContainers: [{name: s, restartPolicy: Always, resources: {limits: {cpu: 300m}}}]}",
            true,
        );
        assert_eq!(t.describe(), "a cpu=1 memory=1Gi, sidecar s cpu=300m");
        assert_eq!(t.request(None, "cpu"), Ok(1300));
        assert_eq!(t.request(Some("a"), "memory"), Ok(1_073_741_824_000));
    }

    #[test]
    fn pod_level_requests_are_used_and_defaulted_as_upstream_does() {
        // Requests set: used for the pod's Resource metrics; a container keeps its own.
        let t = pod(
            "{containers: [{name: a, resources: {requests: {cpu: 1}}}], \
             resources: {requests: {cpu: 3, memory: 2Gi}}}",
            true,
        );
        assert_eq!(t.request(None, "cpu"), Ok(3000));
        assert_eq!(t.request(Some("a"), "cpu"), Ok(1000));
        assert_eq!(t.describe(), "a cpu=1, pod cpu=3 memory=2Gi");
        // Pod limits only: cpu, which the containers request, defaults to their aggregate
        // (regular and sidecar summed, against the init container's peak with the sidecar
        // before it: max(500m + 250m, 2 + 250m) = 2250m); memory, which none requests, to
        // the pod's limit.
        let t = pod(
            "{containers: [{name: a, resources: {requests: {cpu: 500m}}}], \
             initContainers: [{name: s, restartPolicy: Always, resources: {requests: {cpu: 250m}}}, \
                              {name: i, resources: {requests: {cpu: 2}}}], \
             resources: {limits: {cpu: 4, memory: 1Gi}}}",
            true,
        );
        assert_eq!(t.request(None, "cpu"), Ok(2250));
        assert_eq!(t.request(None, "memory"), Ok(1_073_741_824_000));
        // Pod requests without memory and no pod limits: the engine sums the containers'.
        let t = pod(
            "{containers: [{name: a, resources: {requests: {memory: 1Mi}}}], \
             resources: {requests: {cpu: 1}}}",
            true,
        );
        assert_eq!(t.request(None, "memory"), Ok(1_048_576_000));
        // Hugepages: a pod limit the pod does not set is the containers' aggregated limit,
        // and the pod's request defaults to it.
        let t = pod(
            "{containers: [{name: a, resources: {limits: {hugepages-2Mi: 4Mi}}}, \
                          {name: b, resources: {limits: {hugepages-2Mi: 2Mi}}}], \
             resources: {limits: {cpu: 1}}}",
            true,
        );
        assert_eq!(
            t.pod_requests,
            Some(vec![
                ("cpu".to_owned(), Quantity::parse("1").unwrap()),
                ("hugepages-2Mi".to_owned(), Quantity::parse("6Mi").unwrap()),
            ])
        );
        // A pod-level request of none of the containers' resources, and none in them.
        let t = pod(
            "{containers: [{name: a}], resources: {requests: {cpu: 1}}}",
            true,
        );
        assert_eq!(
            t.request(None, "memory"),
            Err(RequestProblem::MissingPodLevel)
        );
    }

    #[test]
    fn pod_level_resources_are_dropped_with_the_gate_off() {
        let spec = "{containers: [{name: a, resources: {requests: {cpu: 1}}}], \
                    resources: {requests: {cpu: 3}}}";
        let t = pod(spec, false);
        assert_eq!(t.pod_requests, None);
        assert_eq!(t.request(None, "cpu"), Ok(1000));
        assert_eq!(
            t.describe(),
            "a cpu=1 (pod-level resources dropped: PodLevelResources is off)"
        );
        assert_eq!(pod(spec, true).request(None, "cpu"), Ok(3000));
    }

    #[test]
    fn decimal_sums_are_exact() {
        let q = |s: &str| Quantity::parse(s).unwrap();
        assert_eq!(add(q("1"), q("1m")), Some(q("1001m")));
        assert_eq!(
            add(q("0"), q("2Gi")).map(|s| s.to_string()),
            Some("2Gi".to_owned())
        );
        assert_eq!(add(q("1e30"), q("1n")), None);
    }

    /// Equal requests keep the containers' sum and its format (`1Gi`), not the init
    /// container's (`1073741824`), as upstream's `maxResourceList` does on a tie.
    #[test]
    fn a_tie_keeps_the_containers_format() {
        let t = pod(
            "{containers: [{name: a, resources: {requests: {memory: 1Gi}}}], \
             initContainers: [{name: i, resources: {requests: {memory: \"1073741824\"}}}], \
             resources: {limits: {memory: 2Gi}}}",
            true,
        );
        let memory = t.pod_requests.unwrap();
        assert_eq!(memory[0].1.to_string(), "1Gi");
    }

    #[test]
    fn errors_name_the_field() {
        let err =
            |text: &str| parse(text, Format::Yaml, "pod.yaml", TemplateGates::ALL).unwrap_err();
        assert_eq!(
            err("kind: Service\napiVersion: v1\n"),
            "no Pod or Deployment (found Service)"
        );
        assert_eq!(
            err("kind: Deployment\napiVersion: extensions/v1beta1\n"),
            "apiVersion: a Deployment is read as apps/v1, got \"extensions/v1beta1\""
        );
        assert_eq!(
            err("kind: Pod\napiVersion: v1\nspec: {containers: [{name: a, resources: {requests: {cpu: lots}}}]}\n"),
            "spec.containers[0].resources.requests.cpu: invalid quantity \"lots\": quantities \
             must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        );
        assert_eq!(
            err("kind: Pod\napiVersion: v1\nspec: {containers: [{name: a}, {name: a}]}\n"),
            "spec.containers[1].name: container names must be unique and not empty, got \"a\""
        );
        assert_eq!(
            err("kind: Pod\napiVersion: v1\nspec: {containers: [{image: x}]}\n"),
            "spec.containers[0]: missing field `name`"
        );
        assert_eq!(
            err("kind: Pod\napiVersion: v1\nspec: {containers: [{name: a}], resources: {requests: {nvidia.com/gpu: 1}}}\n"),
            "spec.resources.requests.nvidia.com/gpu: a pod may set only cpu, memory and \
             hugepages-<size> resources itself"
        );
        assert!(err(&format!(
            "kind: Pod\napiVersion: v1\nspec: {}\n",
            "[".repeat(100)
        ))
        .contains("nested more than 64 levels deep"));
    }
}
