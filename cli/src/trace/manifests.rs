//! Manifest files as users have them (docs/spec/manifests.md): one object or several
//! (`---`-separated YAML documents), `kind: List` (what `kubectl get hpa -o yaml` prints for
//! several) and `HorizontalPodAutoscalerList`, objects of other kinds among them (skipped), in
//! every API version of HorizontalPodAutoscaler ([`super::versions`]).
//!
//! Each document is first looked at ([`Shape`]: its kind, API version and name) and then parsed
//! strictly with the schema of its version, so that every error names a field of the version
//! the document is written in. The objects of a List are parsed in one pass over the document;
//! one that fails is set aside and the pass runs again, so that every object is checked.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::source::check_nesting;
use super::strict::{parse_json_seed, parse_yaml_seed};
use super::versions::{check_object, ApiVersion, ObjectSeed, VersionedHpa};
use super::{Cluster, Format, Manifest, TraceError};

/// The most objects of one List that can fail to parse before the rest goes unchecked (each
/// failure costs a pass over the document).
const MAX_FAILED_ITEMS: usize = 16;

/// One object of a manifest file.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Where it is in the file: empty for a file of one object, else `document 2`, `items[3]`
    /// or `document 2, items[3]`.
    pub place: String,
    /// Its `metadata.name`, or empty.
    pub name: String,
    /// What the check found.
    pub outcome: Outcome,
}

/// What checking one object found.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// A valid HorizontalPodAutoscaler, with the notes of its conversion (annotations the API
    /// server ignores, for instance).
    Valid {
        /// The checked object, in `autoscaling/v2`.
        manifest: Box<Manifest>,
        /// Warnings, each a line.
        notes: Vec<String>,
    },
    /// A HorizontalPodAutoscaler the API server would refuse: every error, field paths relative
    /// to the object.
    Invalid(Vec<TraceError>),
    /// An object of another kind, left alone.
    Skipped {
        /// Its `kind` (empty when it has none).
        kind: String,
    },
}

impl Entry {
    /// `place "name"`, `place`, `"name"` or nothing: how messages name the object.
    pub fn label(&self) -> String {
        match (self.place.is_empty(), self.name.is_empty()) {
            (true, true) => String::new(),
            (true, false) => format!("{:?}", self.name),
            (false, true) => self.place.clone(),
            (false, false) => format!("{} {:?}", self.place, self.name),
        }
    }
}

/// Reads every object of a manifest file.
///
/// # Errors
///
/// A document that cannot be read at all: too deep, not YAML or JSON, or a List whose objects
/// fail beyond 16 (`MAX_FAILED_ITEMS`).
pub fn parse_manifests(
    text: &str,
    format: Format,
    cluster: &Cluster,
) -> Result<Vec<Entry>, TraceError> {
    check_nesting(text, format)?;
    let documents = match format {
        Format::Json => vec![parse_json_seed(text, ShapeSeed)?],
        Format::Yaml => yaml_shapes(text)?,
    };
    let several = documents.iter().filter(|d| !d.is_empty()).count() > 1;
    let mut entries = Vec::new();
    for (i, shape) in documents.iter().enumerate() {
        let document = Document {
            text,
            format,
            index: i,
        };
        let place = if several {
            format!("document {}", i.saturating_add(1))
        } else {
            String::new()
        };
        if shape.is_empty() {
            continue;
        }
        match shape.list_items() {
            Some(items) => entries.extend(list_entries(&document, &place, items, cluster)?),
            None => entries.push(object_entry(&document, place, shape, cluster)),
        }
    }
    Ok(entries)
}

/// Every YAML document's shape (a syntax error fails the file: the rest cannot be trusted).
fn yaml_shapes(text: &str) -> Result<Vec<Shape>, TraceError> {
    serde_norway::Deserializer::from_str(text)
        .enumerate()
        .map(|(i, document)| {
            Shape::deserialize(document).map_err(|e| {
                TraceError::new("", format!("YAML document {}: {e}", i.saturating_add(1)))
            })
        })
        .collect()
}

/// One document of the file, parsed again as often as needed.
struct Document<'t> {
    text: &'t str,
    format: Format,
    index: usize,
}

impl Document<'_> {
    fn parse<S, V>(&self, seed: S) -> Result<V, TraceError>
    where
        S: for<'de> DeserializeSeed<'de, Value = V>,
    {
        match self.format {
            Format::Json => parse_json_seed(self.text, seed),
            Format::Yaml => parse_yaml_seed(self.text, Some(self.index), seed),
        }
    }
}

/// How an object is read, from a first look at it: its API version, or skipped (another
/// kind), or refused at once (an API version of no HorizontalPodAutoscaler).
enum Plan {
    Parse(ApiVersion),
    Skip(String),
    Refuse(String),
}

fn plan(shape: &Shape) -> Plan {
    let kind = shape.str_field("kind");
    if kind.is_some_and(|k| k != "HorizontalPodAutoscaler") {
        return Plan::Skip(kind.unwrap_or_default().to_owned());
    }
    match ApiVersion::parse(shape.str_field("apiVersion")) {
        Ok(version) => Plan::Parse(version),
        Err(message) => Plan::Refuse(message),
    }
}

fn object_entry(document: &Document<'_>, place: String, shape: &Shape, cluster: &Cluster) -> Entry {
    let outcome = match plan(shape) {
        Plan::Skip(kind) => Outcome::Skipped { kind },
        Plan::Refuse(message) => Outcome::Invalid(vec![TraceError::new("apiVersion", message)]),
        Plan::Parse(version) => checked(version, document.parse(ObjectSeed(version)), cluster),
    };
    Entry {
        place,
        name: shape.name(),
        outcome,
    }
}

fn checked(
    version: ApiVersion,
    parsed: Result<VersionedHpa, TraceError>,
    cluster: &Cluster,
) -> Outcome {
    match check_object(version, parsed, cluster) {
        Ok(c) => Outcome::Valid {
            manifest: Box::new(c.manifest),
            notes: c.notes,
        },
        Err(errors) => Outcome::Invalid(errors),
    }
}

/// The objects of a List, each parsed with its version's schema in one pass; an object that
/// fails to parse is set aside with its error and the pass runs again without it.
fn list_entries(
    document: &Document<'_>,
    place: &str,
    items: &[Shape],
    cluster: &Cluster,
) -> Result<Vec<Entry>, TraceError> {
    let plans: Vec<Plan> = items.iter().map(plan).collect();
    let mut parse: Vec<Option<ApiVersion>> = plans
        .iter()
        .map(|p| match p {
            Plan::Parse(version) => Some(*version),
            _ => None,
        })
        .collect();
    let mut failed: Vec<Option<TraceError>> = items.iter().map(|_| None).collect();
    let mut failures = 0;
    let mut parsed = loop {
        match document.parse(ListSeed { parse: &parse }) {
            Ok(parsed) => break parsed,
            Err(e) => {
                let Some((i, rest)) = item_error(&e.path) else {
                    return Err(e);
                };
                if failures >= MAX_FAILED_ITEMS || parse.get(i).copied().flatten().is_none() {
                    return Err(e);
                }
                failures = failures.saturating_add(1);
                if let Some(slot) = parse.get_mut(i) {
                    *slot = None;
                }
                if let Some(slot) = failed.get_mut(i) {
                    *slot = Some(TraceError::new(rest, e.message));
                }
            }
        }
    };
    parsed.resize_with(items.len(), || None);
    let mut entries = Vec::new();
    let objects = items.iter().zip(plans).zip(parsed).zip(failed);
    for (i, (((shape, plan), parsed), failed)) in objects.enumerate() {
        let outcome = match plan {
            Plan::Skip(kind) => Outcome::Skipped { kind },
            Plan::Refuse(message) => Outcome::Invalid(vec![TraceError::new("apiVersion", message)]),
            Plan::Parse(version) => match (parsed, failed) {
                (Some(raw), _) => checked(version, Ok(raw), cluster),
                (None, Some(e)) => checked(version, Err(e), cluster),
                (None, None) => Outcome::Invalid(vec![TraceError::new("", "not read")]),
            },
        };
        let item = format!("items[{i}]");
        entries.push(Entry {
            place: if place.is_empty() {
                item
            } else {
                format!("{place}, {item}")
            },
            name: shape.name(),
            outcome,
        });
    }
    Ok(entries)
}

/// `items[3].spec.x` → `(3, "spec.x")`.
fn item_error(path: &str) -> Option<(usize, String)> {
    let rest = path.strip_prefix("items[")?;
    let (index, rest) = rest.split_once(']')?;
    let rest = rest.strip_prefix('.').unwrap_or(rest);
    Some((index.parse().ok()?, rest.to_owned()))
}

/// Reads a List's `items`, each as its plan says (`None`: skipped).
struct ListSeed<'p> {
    parse: &'p [Option<ApiVersion>],
}

impl<'de> DeserializeSeed<'de> for ListSeed<'_> {
    type Value = Vec<Option<VersionedHpa>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ListSeed<'_> {
    type Value = Vec<Option<VersionedHpa>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a List object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "items" {
                items = map.next_value_seed(ItemsSeed { parse: self.parse })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(items)
    }
}

struct ItemsSeed<'p> {
    parse: &'p [Option<ApiVersion>],
}

impl<'de> DeserializeSeed<'de> for ItemsSeed<'_> {
    type Value = Vec<Option<VersionedHpa>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ItemsSeed<'_> {
    type Value = Vec<Option<VersionedHpa>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of objects")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        loop {
            let item = match self.parse.get(items.len()).copied().flatten() {
                Some(version) => match seq.next_element_seed(ObjectSeed(version))? {
                    Some(hpa) => Some(hpa),
                    None => break,
                },
                None => match seq.next_element::<IgnoredAny>()? {
                    Some(IgnoredAny) => None,
                    None => break,
                },
            };
            items.push(item);
        }
        Ok(items)
    }
}

/// A first look at a document: its strings, maps and lists (duplicate keys and value types are
/// the strict parse's business).
#[derive(Debug)]
enum Shape {
    Null,
    Str(String),
    Map(Vec<(String, Shape)>),
    Seq(Vec<Shape>),
    Other,
}

impl Shape {
    fn field(&self, name: &str) -> Option<&Shape> {
        match self {
            Shape::Map(entries) => entries.iter().find(|(k, _)| k == name).map(|(_, v)| v),
            _ => None,
        }
    }

    fn str_field(&self, name: &str) -> Option<&str> {
        match self.field(name)? {
            Shape::Str(text) => Some(text),
            _ => None,
        }
    }

    fn name(&self) -> String {
        self.field("metadata")
            .and_then(|m| m.str_field("name"))
            .unwrap_or_default()
            .to_owned()
    }

    /// An empty YAML document (`---` with nothing after it), which kubectl skips too.
    fn is_empty(&self) -> bool {
        matches!(self, Shape::Null)
    }

    /// The objects of a `List` or `*List` with `items`.
    fn list_items(&self) -> Option<&[Shape]> {
        let kind = self.str_field("kind")?;
        if !kind.ends_with("List") {
            return None;
        }
        match self.field("items")? {
            Shape::Seq(items) => Some(items),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Shape {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ShapeVisitor)
    }
}

#[derive(Clone, Copy)]
struct ShapeSeed;

impl<'de> DeserializeSeed<'de> for ShapeSeed {
    type Value = Shape;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Shape, D::Error> {
        Shape::deserialize(d)
    }
}

struct ShapeVisitor;

impl<'de> Visitor<'de> for ShapeVisitor {
    type Value = Shape;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Shape, E> {
        Ok(Shape::Other)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Shape, E> {
        Ok(Shape::Other)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Shape, E> {
        Ok(Shape::Other)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Shape, E> {
        Ok(Shape::Other)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Shape, E> {
        Ok(Shape::Str(v.to_owned()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Shape, E> {
        Ok(Shape::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Shape, E> {
        Ok(Shape::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Shape, D::Error> {
        Shape::deserialize(d)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Shape, D::Error> {
        Shape::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Shape>()? {
            items.push(item);
        }
        Ok(Shape::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
        let mut entries = Vec::new();
        // Keys that are not strings (YAML allows them) are the strict parse's business.
        while let Some(key) = map.next_key::<Shape>()? {
            let value = map.next_value::<Shape>()?;
            if let Shape::Str(key) = key {
                entries.push((key, value));
            }
        }
        Ok(Shape::Map(entries))
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Shape, A::Error> {
        // A YAML tagged value (`!tag value`).
        use de::VariantAccess as _;
        let (IgnoredAny, variant) = data.variant::<IgnoredAny>()?;
        variant.newtype_variant::<IgnoredAny>()?;
        Ok(Shape::Other)
    }
}
