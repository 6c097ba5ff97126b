//! The strict deserializer helpers of the raw model (pass 1, parsing): what serde's derive
//! does not check by itself.
//!
//! - [`StrictMap`] and [`AnyValue`] reject duplicate map keys (serde's derive only rejects
//!   duplicate struct fields); the error's path ends with the repeated key.
//! - [`objects_only!`] makes a raw struct accept a map only, not serde's positional sequence.
//! - [`QuantityText`] and [`NumberText`] keep a number's exact decimal text: JSON numbers through
//!   serde_json's `arbitrary_precision`, YAML scalars as written (while [`parse_yaml`] runs).
//! - [`parse_json`] and [`parse_yaml`] run a document through `serde_path_to_error`, so that a
//!   [`TraceError`] names the failing field.
//!
//! They are apart from the raw types because they hold no knowledge of the format's schema:
//! they are the rules every field of the document is read by.

use std::cell::Cell;
use std::collections::HashSet;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Unexpected, Visitor};
use serde::Deserialize;

use super::TraceError;

/// serde_json's (`arbitrary_precision`) stand-in key for a number kept as text.
const JSON_NUMBER_TOKEN: &str = "$serde_json::private::Number";

thread_local! {
    /// Set while a YAML document is deserialized: quantity and number fields then read the
    /// scalar's own text (`deserialize_str`) instead of a binary64 reading of it.
    static YAML_SCALARS: Cell<bool> = const { Cell::new(false) };
}

/// Sets [`YAML_SCALARS`] for its lifetime.
struct YamlScalars;

impl YamlScalars {
    fn enter() -> Self {
        YAML_SCALARS.with(|flag| flag.set(true));
        YamlScalars
    }
}

impl Drop for YamlScalars {
    fn drop(&mut self) {
        YAML_SCALARS.with(|flag| flag.set(false));
    }
}

fn yaml_scalars() -> bool {
    YAML_SCALARS.with(Cell::get)
}

/// The path of a serde error (`"."` for the root becomes empty).
fn serde_path(path: &serde_path_to_error::Path) -> String {
    // `?` stands for a position serde could not name (syntax errors): leave it out.
    let text = path.to_string();
    let mut text = text.as_str();
    while let Some(rest) = text.strip_suffix('?') {
        text = rest.strip_suffix('.').unwrap_or(rest);
    }
    if text == "." {
        String::new()
    } else {
        text.to_owned()
    }
}

pub(super) fn parse_json<T: for<'de> Deserialize<'de>>(text: &str) -> Result<T, TraceError> {
    parse_json_seed(text, PhantomData::<T>)
}

/// [`parse_json`] with a seed (an API version chosen by a first look at the document).
pub(super) fn parse_json_seed<S, V>(text: &str, seed: S) -> Result<V, TraceError>
where
    S: for<'de> DeserializeSeed<'de, Value = V>,
{
    let mut de = serde_json::Deserializer::from_str(text);
    let mut track = serde_path_to_error::Track::new();
    let raw = seed
        .deserialize(serde_path_to_error::Deserializer::new(&mut de, &mut track))
        .map_err(|e| TraceError::new(serde_path(&track.path()), e.to_string()))?;
    de.end()
        .map_err(|e| TraceError::new("", format!("after the document: {e}")))?;
    Ok(raw)
}

/// YAML goes through `serde_norway`, the maintained continuation of the archived `serde_yaml`
/// 0.9 line (same API and behaviour, including plain scalars read as their text by
/// `deserialize_str`, which keeps quantities and numbers exact). `serde_yaml_ng` 0.10 would
/// work too; `serde_norway` was picked for staying closest to the code the ecosystem used.
pub(super) fn parse_yaml<T: for<'de> Deserialize<'de>>(text: &str) -> Result<T, TraceError> {
    parse_yaml_seed(text, None, PhantomData::<T>)
}

/// [`parse_yaml`] with a seed, of the whole text (one document) or of its `document`th one
/// (counted from 0, in a stream of `---`-separated documents).
pub(super) fn parse_yaml_seed<S, V>(
    text: &str,
    document: Option<usize>,
    seed: S,
) -> Result<V, TraceError>
where
    S: for<'de> DeserializeSeed<'de, Value = V>,
{
    let _yaml = YamlScalars::enter();
    let de = match document {
        None => serde_norway::Deserializer::from_str(text),
        Some(i) => serde_norway::Deserializer::from_str(text)
            .nth(i)
            .ok_or_else(|| {
                TraceError::new("", format!("no YAML document {}", i.saturating_add(1)))
            })?,
    };
    let mut track = serde_path_to_error::Track::new();
    seed.deserialize(serde_path_to_error::Deserializer::new(de, &mut track))
        .map_err(|e| yaml_error(&track.path(), &e))
}

/// A YAML error at `path`, without the path serde_norway writes into its own message.
pub(super) fn yaml_error(path: &serde_path_to_error::Path, e: &serde_norway::Error) -> TraceError {
    let message = e.to_string();
    // serde_norway prefixes its own path ("steps[0].at: ..."); keep a single one.
    let message = match message.split_once(": ") {
        Some((head, rest)) if !head.is_empty() && !head.contains(char::is_whitespace) => {
            rest.to_owned()
        }
        _ => message,
    };
    TraceError::new(serde_path(path), message)
}

/// The exact text of a quantity: a string, or a number's decimal text.
#[derive(Debug)]
pub(super) struct QuantityText(pub(super) String);

/// The exact decimal text of a number (controller tolerance and durations).
#[derive(Debug)]
pub(super) struct NumberText(pub(super) String);

impl<'de> Deserialize<'de> for QuantityText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        scalar_text(d, true).map(QuantityText)
    }
}

impl<'de> Deserialize<'de> for NumberText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        scalar_text(d, false).map(NumberText)
    }
}

/// Reads a scalar's text: YAML scalars as written; JSON strings (when `strings`) and numbers
/// (their decimal text, thanks to `arbitrary_precision`).
fn scalar_text<'de, D: Deserializer<'de>>(d: D, strings: bool) -> Result<String, D::Error> {
    if yaml_scalars() {
        d.deserialize_str(TextVisitor { strings: true })
    } else {
        d.deserialize_any(TextVisitor { strings })
    }
}

struct TextVisitor {
    strings: bool,
}

impl<'de> Visitor<'de> for TextVisitor {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.strings {
            f.write_str("a quantity (a string such as \"250m\", or a number)")
        } else {
            f.write_str("a number")
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        if self.strings {
            Ok(v.to_owned())
        } else {
            Err(E::invalid_type(Unexpected::Str(v), &self))
        }
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<String, E> {
        // Not reached with `arbitrary_precision`; the shortest round-trip text otherwise.
        if v.is_finite() {
            Ok(format!("{v}"))
        } else {
            Err(E::invalid_value(Unexpected::Float(v), &self))
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<String, A::Error> {
        match map.next_key::<String>()? {
            Some(key) if key == JSON_NUMBER_TOKEN => map.next_value::<String>(),
            _ => Err(de::Error::invalid_type(Unexpected::Map, &self)),
        }
    }
}

/// A map that rejects duplicate keys, in document order.
#[derive(Debug)]
pub(super) struct StrictMap<V>(pub(super) Vec<(String, V)>);

impl<V> Default for StrictMap<V> {
    fn default() -> Self {
        StrictMap(Vec::new())
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for StrictMap<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(StrictMapVisitor(PhantomData))
    }
}

struct StrictMapVisitor<V>(PhantomData<V>);

impl<'de, V: Deserialize<'de>> Visitor<'de> for StrictMapVisitor<V> {
    type Value = StrictMap<V>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut seen = HashSet::new();
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(duplicate_key(&mut map, &key));
            }
            let value = map.next_value::<V>()?;
            entries.push((key, value));
        }
        Ok(StrictMap(entries))
    }
}

/// The error for a repeated map key, raised while reading its value so that the reported path
/// ends with the key.
fn duplicate_key<'de, A: MapAccess<'de>>(map: &mut A, key: &str) -> A::Error {
    struct Fail<'k>(&'k str);
    impl<'de> DeserializeSeed<'de> for Fail<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, _: D) -> Result<(), D::Error> {
            Err(de::Error::custom(format_args!(
                "duplicate key {:?}",
                self.0
            )))
        }
    }
    match map.next_value_seed(Fail(key)) {
        Err(e) => e,
        Ok(()) => de::Error::custom(format_args!("duplicate key {key:?}")),
    }
}

/// Any value, ignored, but with duplicate map keys rejected at every depth (the untyped parts
/// of `metadata` and `status`).
#[derive(Debug)]
pub(super) struct AnyValue;

impl<'de> Deserialize<'de> for AnyValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(AnyVisitor)
    }
}

struct AnyVisitor;

impl<'de> Visitor<'de> for AnyVisitor {
    type Value = AnyValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<AnyValue, E> {
        Ok(AnyValue)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<AnyValue, E> {
        Ok(AnyValue)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<AnyValue, E> {
        Ok(AnyValue)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<AnyValue, E> {
        Ok(AnyValue)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<AnyValue, E> {
        Ok(AnyValue)
    }

    fn visit_unit<E: de::Error>(self) -> Result<AnyValue, E> {
        Ok(AnyValue)
    }

    fn visit_none<E: de::Error>(self) -> Result<AnyValue, E> {
        Ok(AnyValue)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<AnyValue, D::Error> {
        AnyValue::deserialize(d)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<AnyValue, D::Error> {
        AnyValue::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<AnyValue, A::Error> {
        while seq.next_element::<AnyValue>()?.is_some() {}
        Ok(AnyValue)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AnyValue, A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(duplicate_key(&mut map, &key));
            }
            map.next_value::<AnyValue>()?;
        }
        Ok(AnyValue)
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<AnyValue, A::Error> {
        // A YAML tagged value (`!tag value`).
        use de::VariantAccess as _;
        let (AnyValue, variant) = data.variant::<AnyValue>()?;
        variant.newtype_variant::<AnyValue>()
    }
}

/// Implements `Deserialize` for raw structs derived with `#[serde(remote = "Self")]` so that
/// they accept maps only: serde's derive would also take a sequence of positional fields.
/// (Paths are spelled out so that the raw model can invoke it without these imports.)
macro_rules! objects_only {
    ($($ty:ident => $what:literal,)*) => {$(
        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct ObjectVisitor;
                impl<'de> ::serde::de::Visitor<'de> for ObjectVisitor {
                    type Value = $ty;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        f.write_str($what)
                    }
                    fn visit_map<A: ::serde::de::MapAccess<'de>>(
                        self,
                        map: A,
                    ) -> Result<$ty, A::Error> {
                        // The derived (inherent) `deserialize` of `remote = "Self"`.
                        $ty::deserialize(::serde::de::value::MapAccessDeserializer::new(map))
                    }
                }
                d.deserialize_map(ObjectVisitor)
            }
        }
    )*};
}
pub(super) use objects_only;

#[cfg(test)]
mod tests {
    use bumpalo::Bump;
    use hpa::input::{ConditionStatus, MetricValues};

    use crate::trace::test_support::{assert_error, base_with, json, yaml, BASE};

    #[test]
    fn duplicate_keys() {
        assert_error(
            json(&base_with(
                r#"{"p0": {"value": "100m"}}"#,
                r#"{"p0": {"value": "100m"}, "p0": {"value": "1"}}"#,
            )),
            "steps[0].metrics[0].samples.p0",
            "duplicate key \"p0\"",
        );
        assert_error(
            json(&base_with(r#""at": 0,"#, r#""at": 0, "at": 1,"#)),
            "steps[0]",
            "duplicate field `at`",
        );
        assert_error(
            json(&base_with(
                r#""name": "w""#,
                r#""name": "w", "labels": {"a": "1", "a": "2"}"#,
            )),
            "hpa.metadata.labels.a",
            "duplicate key \"a\"",
        );
        assert_error(
            json(&base_with(
                r#"{"name": "p0"}"#,
                r#"{"name": "p0", "requests": {"cpu": "1", "cpu": "2"}}"#,
            )),
            "steps[0].pods[0].requests.cpu",
            "duplicate key \"cpu\"",
        );
        assert_error(
            yaml("hpa: {spec: {maxReplicas: 1}}\nsteps: []\nsteps: []\n"),
            "",
            "duplicate field `steps`",
        );
    }

    #[test]
    fn integers_must_be_integers() {
        assert_error(
            json(&base_with(r#""at": 0"#, r#""at": 15000.0"#)),
            "steps[0].at",
            "invalid type: floating point `15000.0`, expected i64",
        );
        assert_error(
            yaml("hpa: {spec: {maxReplicas: 1}}\nsteps:\n- {at: 15000.0, replicas: 1}\n"),
            "steps[0].at",
            "invalid type: floating point `15000.0`, expected i64",
        );
        assert_error(
            json(&base_with(
                r#""maxReplicas": 10"#,
                r#""maxReplicas": 2147483648"#,
            )),
            "hpa.spec.maxReplicas",
            "invalid value: integer `2147483648`, expected i32",
        );
    }

    #[test]
    fn nan_and_infinity_are_rejected() {
        let err = json(&base_with(r#""at": 0"#, r#""at": NaN"#)).unwrap_err();
        assert_eq!(err.path, "steps[0].at");
        let err = json(&base_with(r#""value": "100m""#, r#""value": Infinity"#)).unwrap_err();
        assert_eq!(err.path, "steps[0].metrics[0].samples.p0.value");
        assert_error(
            yaml("hpa: {spec: {maxReplicas: 1}}\nsteps:\n- {at: .nan, replicas: 1}\n"),
            "steps[0].at",
            "invalid type: floating point `NaN`",
        );
        assert_error(
            yaml("hpa: {spec: {maxReplicas: 1}}\ncontroller: {tolerance: .inf}\nsteps: []\n"),
            "controller.tolerance",
            "invalid number \".inf\"",
        );
    }

    #[test]
    fn yaml_plain_scalars() {
        let text = "hpa:\n  spec: {maxReplicas: 1}\n  status:\n    conditions:\n    - {type: ScaledToZero, status: True}\nsteps:\n- at: 0\n  replicas: 0\n  pods:\n  - {name: 0, ready: True, requests: {cpu: 1.50}}\n  metrics:\n  - samples: {0: {value: 1e-3}}\n";
        let trace = yaml(text).unwrap();
        assert!(trace.scaled_to_zero);
        let arena = Bump::new();
        let obs = trace.step_view(0, &arena).unwrap().observation;
        assert_eq!(obs.pods[0].name, "0");
        assert_eq!(obs.pods[0].ready.unwrap().status, ConditionStatus::True);
        assert_eq!(
            obs.pods[0].requests.unwrap()[0].quantity.milli_value(),
            1500
        );
        let MetricValues::Pods(s) = obs.metrics[0] else {
            panic!("expected samples")
        };
        assert_eq!(s.per_pod[0].unwrap().milli, 1);
        assert_error(
            yaml("hpa: {spec: {maxReplicas: 1}}\nsteps:\n- {at: 0, replicas: 1, applied: yes}\n"),
            "steps[0].applied",
            "invalid type: string \"yes\", expected a boolean",
        );
        assert!(yaml("a: 1\n---\nb: 2\n").is_err());
        assert!(json(&format!("{BASE} {{}}")).is_err());
    }

    #[test]
    fn objects_are_maps_only() {
        assert_error(
            json(r#"{"hpa": {"spec": [null, 1]}, "steps": []}"#),
            "hpa.spec",
            "invalid type: sequence, expected a HorizontalPodAutoscalerSpec object",
        );
        assert_error(
            json("[]"),
            "",
            "invalid type: sequence, expected a trace object",
        );
        assert_error(
            yaml("hpa: {spec: {maxReplicas: 1}}\nsteps: [[0, 1]]\n"),
            "steps[0]",
            "invalid type: sequence, expected a step object",
        );
        // A syntax error has no field path beyond what was read.
        assert_error(
            json(r#"{"hpa": {"spec": {"maxReplicas": 1}}, "steps": ["#),
            "steps",
            "EOF while parsing",
        );
    }
}
