//! The manifests `hpa tune` simulates and writes: the input's HorizontalPodAutoscaler object
//! with its `spec.behavior` (and searched replica range) replaced, everything else as written
//! (metadata, metrics and their selectors), as an `autoscaling/v2` document.

use std::path::Path;

use serde::Deserialize;
use serde_norway::{Mapping, Value};

use crate::trace::source::{read_source, MAX_MANIFEST_BYTES};

use super::space::{milli_text, Rules, Setting};

/// Metadata the API server sets, which a manifest to apply leaves out.
const SERVER_METADATA: [&str; 7] = [
    "managedFields",
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "generation",
    "selfLink",
    "deletionTimestamp",
];

/// The input's HorizontalPodAutoscaler object, without its status.
#[derive(Clone, Debug)]
pub struct Base {
    object: Value,
}

fn is_hpa(value: &Value) -> bool {
    value.get("kind").and_then(Value::as_str) == Some("HorizontalPodAutoscaler")
}

impl Base {
    /// The one HorizontalPodAutoscaler of the manifest file at `path`, which
    /// [`crate::trace::load_manifest`] has already accepted.
    ///
    /// # Errors
    ///
    /// The file cannot be read again, or its object is of an API version whose schema is not
    /// autoscaling/v2's.
    pub fn load(path: &Path) -> Result<Base, String> {
        let name = path.display();
        let source = read_source(path, MAX_MANIFEST_BYTES).map_err(|e| format!("{name}: {e}"))?;
        let mut found = None;
        for document in serde_norway::Deserializer::from_str(&source.text) {
            let value = Value::deserialize(document).map_err(|e| format!("{name}: {e}"))?;
            let items = value
                .get("items")
                .and_then(Value::as_sequence)
                .filter(|_| value.get("kind").and_then(Value::as_str) == Some("List"));
            let candidates: Vec<&Value> = match items {
                Some(items) => items.iter().collect(),
                None => vec![&value],
            };
            if let Some(hpa) = candidates.into_iter().find(|v| is_hpa(v)) {
                found = Some(hpa.clone());
                break;
            }
        }
        let Some(mut object) = found else {
            return Err(format!("{name}: no HorizontalPodAutoscaler"));
        };
        let version = object
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        if !matches!(version, "autoscaling/v2" | "autoscaling/v2beta2") {
            return Err(format!(
                "{name}: hpa tune writes autoscaling/v2 and keeps the metrics as written, so it \
                 takes autoscaling/v2 (or v2beta2) manifests; this one is {version}: rewrite it \
                 as autoscaling/v2 first"
            ));
        }
        if let Some(map) = object.as_mapping_mut() {
            map.insert("apiVersion".into(), "autoscaling/v2".into());
            map.remove("status");
        }
        if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_mapping_mut) {
            for key in SERVER_METADATA {
                metadata.remove(key);
            }
            if let Some(annotations) = metadata
                .get_mut("annotations")
                .and_then(Value::as_mapping_mut)
            {
                annotations.remove("kubectl.kubernetes.io/last-applied-configuration");
                if annotations.is_empty() {
                    metadata.remove("annotations");
                }
            }
        }
        Ok(Base { object })
    }

    /// The object with `setting`'s behavior and replica range, as YAML.
    ///
    /// # Errors
    ///
    /// The object cannot be written as YAML (not expected of a parsed document).
    pub fn yaml(&self, setting: &Setting) -> Result<String, String> {
        let mut object = self.object.clone();
        if let Some(spec) = object.get_mut("spec").and_then(Value::as_mapping_mut) {
            if let Some(min) = setting.min {
                spec.insert("minReplicas".into(), min.into());
            }
            if let Some(max) = setting.max {
                spec.insert("maxReplicas".into(), max.into());
            }
            let mut behavior = Mapping::new();
            behavior.insert("scaleUp".into(), rules(&setting.up));
            behavior.insert("scaleDown".into(), rules(&setting.down));
            spec.insert("behavior".into(), Value::Mapping(behavior));
        }
        serde_norway::to_string(&object).map_err(|e| format!("cannot write the manifest: {e}"))
    }
}

fn rules(rules: &Rules) -> Value {
    let mut map = Mapping::new();
    map.insert("stabilizationWindowSeconds".into(), rules.window.into());
    map.insert("selectPolicy".into(), rules.select.as_str().into());
    let mut policies = Vec::new();
    for (kind, policy) in [("Percent", rules.percent), ("Pods", rules.pods)] {
        if let Some((value, period)) = policy {
            let mut p = Mapping::new();
            p.insert("type".into(), kind.into());
            p.insert("value".into(), value.into());
            p.insert("periodSeconds".into(), period.into());
            policies.push(Value::Mapping(p));
        }
    }
    if !policies.is_empty() {
        map.insert("policies".into(), Value::Sequence(policies));
    }
    if let Some(t) = rules.tolerance {
        map.insert("tolerance".into(), milli_text(t).into());
    }
    Value::Mapping(map)
}

/// `lines` as a block of `# ` comments.
pub fn comment_block(lines: &[String]) -> String {
    let mut out = String::new();
    for line in lines {
        out.push_str("# ");
        out.push_str(line);
        out.push('\n');
    }
    out
}
