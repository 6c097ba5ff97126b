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
}

/// One container of the template.
#[derive(Clone, Debug, PartialEq)]
pub struct TemplateContainer {
    /// Its name.
    pub name: String,
    /// Regular, sidecar or plain init container.
    pub kind: ContainerKind,
    /// `resources.requests`, by resource name.
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
        }
    }

    /// A pod's request of `resource` in milli-units, as the engine counts it
    /// (docs/spec/pods.md#requests): the named container's, or for `None` the sum over the
    /// regular containers and sidecars, each of which must request it.
    ///
    /// # Errors
    ///
    /// The container is missing, or a counted container lacks the request.
    pub fn request(&self, container: Option<&str>, resource: &str) -> Result<i64, RequestProblem> {
        // The engine's own rule, on a pod of the template's containers.
        let requests = self.engine_requests();
        let containers = self.engine_containers(&requests);
        let pod = Pod {
            name: "template",
            phase: PodPhase::Running,
            ready: None,
            start_time: None,
            deleted: false,
            containers: &containers,
            requests: None,
        };
        hpa::pod_request(&pod, container, resource).map_err(|e| match e {
            RequestError::MissingRequest { container, .. } if self.file.is_some() => {
                RequestProblem::Missing(container.to_owned())
            }
            RequestError::ContainerNotFound { container, .. } => {
                RequestProblem::NoContainer(container.to_owned())
            }
            // The pool of `--pod-request` (and no pod-level requests here).
            RequestError::MissingRequest { .. } | RequestError::MissingPodLevelRequest { .. } => {
                RequestProblem::NoRequest
            }
        })
    }

    /// Each container's requests as the engine reads them (borrowed by
    /// [`PodTemplate::engine_containers`]).
    pub fn engine_requests(&self) -> Vec<Vec<ResourceRequest<'_>>> {
        self.containers
            .iter()
            .map(|c| {
                c.requests
                    .iter()
                    .map(|(resource, quantity)| ResourceRequest {
                        resource,
                        quantity: *quantity,
                    })
                    .collect()
            })
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
            for (resource, quantity) in &c.requests {
                let _ = write!(out, " {resource}={quantity}");
            }
        }
        out
    }
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
    requests: std::collections::BTreeMap<String, Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawPodSpec {
    #[serde(default)]
    containers: Vec<RawContainer>,
    #[serde(default)]
    init_containers: Vec<RawContainer>,
    #[serde(default)]
    resources: Option<Value>,
}

/// Reads the template at `path` (`-`: standard input).
///
/// # Errors
///
/// A message naming the file and what is wrong.
pub fn load(path: &Path) -> Result<PodTemplate, String> {
    let source = read_source(path, MAX_MANIFEST_BYTES).map_err(|e| e.to_string())?;
    parse(&source.text, source.format, &source.name).map_err(|e| format!("{}: {e}", source.name))
}

/// Parses the template of file `name`: the one Pod or Deployment of the text (other kinds,
/// such as the HPA itself in the same file, are skipped).
///
/// # Errors
///
/// A message naming the field at fault.
pub fn parse(text: &str, format: Format, name: &str) -> Result<PodTemplate, String> {
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
    if raw.resources.is_some() {
        return Err(format!(
            "{path}.resources: pod-level requests are not modelled; give each container its \
             requests"
        ));
    }
    template_of(raw, path, name)
}

fn template_of(raw: RawPodSpec, path: &str, name: &str) -> Result<PodTemplate, String> {
    if raw.containers.is_empty() {
        return Err(format!("{path}.containers: a pod needs a container"));
    }
    let mut containers: Vec<TemplateContainer> = Vec::new();
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
                (true, Some("Always")) => ContainerKind::RestartableInit,
                (true, None) => ContainerKind::Init,
                (true, Some(other)) => {
                    return Err(format!(
                        "{at}.restartPolicy: only Always (a sidecar) is supported, got {other:?}"
                    ))
                }
            };
            let mut requests = Vec::new();
            for (resource, value) in c.resources.requests {
                let text = match &value {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    _ => {
                        return Err(format!(
                            "{at}.resources.requests.{resource}: expected a quantity, got {value}"
                        ))
                    }
                };
                let quantity = Quantity::parse(&text).map_err(|e| {
                    format!("{at}.resources.requests.{resource}: invalid quantity {text:?}: {e}")
                })?;
                if quantity.signum() < 0 {
                    return Err(format!(
                        "{at}.resources.requests.{resource}: must not be negative, got {text}"
                    ));
                }
                requests.push((resource, quantity));
            }
            containers.push(TemplateContainer {
                name: c.name,
                kind,
                requests,
            });
        }
    }
    Ok(PodTemplate {
        file: Some(name.to_owned()),
        containers,
    })
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
        let t = parse(DEPLOYMENT, Format::Yaml, "web.yaml").unwrap();
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

    #[test]
    fn a_pod_in_json() {
        let t = parse(
            r#"{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": 2}}}]}}"#,
            Format::Json,
            "pod.json",
        )
        .unwrap();
        assert_eq!(t.request(None, "cpu"), Ok(2000));
    }

    #[test]
    fn errors_name_the_field() {
        let err = |text: &str| parse(text, Format::Yaml, "pod.yaml").unwrap_err();
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
            err("kind: Pod\napiVersion: v1\nspec: {containers: [{name: a}], resources: {requests: {cpu: 1}}}\n"),
            "spec.resources: pod-level requests are not modelled; give each container its \
             requests"
        );
        assert!(err(&format!(
            "kind: Pod\napiVersion: v1\nspec: {}\n",
            "[".repeat(100)
        ))
        .contains("nested more than 64 levels deep"));
    }
}
