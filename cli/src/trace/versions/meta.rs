//! What every API version of a standalone manifest shares: `metadata` (ObjectMeta) and the
//! status conditions, with the types the API server decodes them into, so that
//! `lastScaleTime: 12` or a number among the labels is an error as it is for `kubectl apply`.
//! `kubectl get -o yaml/json` output (uid, resourceVersion, managedFields, status, ...) reads.
//!
//! A trace's `hpa` keeps ObjectMeta's names with any values (docs/spec/trace-format.md#rule-19);
//! these types are for manifests only.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

use crate::trace::strict::{objects_only, AnyValue, StrictMap};

objects_only! {
    RawMeta => "an ObjectMeta object",
    RawOwnerReference => "an OwnerReference object",
    RawManagedFields => "a ManagedFieldsEntry object",
    RawHpaCondition => "a HorizontalPodAutoscalerCondition object",
}

/// `metadata`: ObjectMeta. Only `name`, `generateName` and `annotations` are used.
#[derive(Deserialize, Default)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)] // The other fields are read for their types only.
pub(in crate::trace) struct RawMeta {
    pub(in crate::trace) name: Option<String>,
    pub(in crate::trace) generate_name: Option<String>,
    pub(in crate::trace) namespace: Option<String>,
    pub(in crate::trace) self_link: Option<String>,
    pub(in crate::trace) uid: Option<String>,
    pub(in crate::trace) resource_version: Option<String>,
    pub(in crate::trace) generation: Option<i64>,
    pub(in crate::trace) creation_timestamp: Option<Time>,
    pub(in crate::trace) deletion_timestamp: Option<Time>,
    pub(in crate::trace) deletion_grace_period_seconds: Option<i64>,
    pub(in crate::trace) labels: Option<StrictMap<String>>,
    pub(in crate::trace) annotations: Option<StrictMap<String>>,
    pub(in crate::trace) owner_references: Option<Vec<RawOwnerReference>>,
    pub(in crate::trace) finalizers: Option<Vec<String>>,
    pub(in crate::trace) managed_fields: Option<Vec<RawManagedFields>>,
}

impl RawMeta {
    /// The annotation `key`, if set.
    pub(in crate::trace) fn annotation(&self, key: &str) -> Option<&str> {
        let annotations = self.annotations.as_ref()?;
        annotations
            .0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// `OwnerReference`.
#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
pub(in crate::trace) struct RawOwnerReference {
    api_version: Option<String>,
    kind: Option<String>,
    name: Option<String>,
    uid: Option<String>,
    controller: Option<bool>,
    block_owner_deletion: Option<bool>,
}

/// `ManagedFieldsEntry` (`fieldsV1` is a free-form object).
#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
pub(in crate::trace) struct RawManagedFields {
    manager: Option<String>,
    operation: Option<String>,
    api_version: Option<String>,
    time: Option<Time>,
    fields_type: Option<String>,
    #[serde(rename = "fieldsV1")]
    fields_v1: Option<StrictMap<AnyValue>>,
    subresource: Option<String>,
}

/// `HorizontalPodAutoscalerCondition` (the same in every version).
#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
pub(in crate::trace) struct RawHpaCondition {
    #[serde(rename = "type")]
    type_: Option<String>,
    status: Option<String>,
    last_transition_time: Option<Time>,
    reason: Option<String>,
    message: Option<String>,
}

/// A `metav1.Time`: an RFC 3339 text (`null` is the zero time, as `Option::None`).
#[derive(Debug)]
pub(in crate::trace) struct Time;

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(TimeVisitor)
    }
}

struct TimeVisitor;

impl Visitor<'_> for TimeVisitor {
    type Value = Time;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an RFC 3339 time such as \"2024-01-01T00:00:00Z\"")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Time, E> {
        if is_rfc3339(v) {
            Ok(Time)
        } else {
            Err(E::invalid_value(de::Unexpected::Str(v), &self))
        }
    }
}

/// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, as Go's `time.RFC3339` layout parses it (the
/// `T` and `Z` in either case; field ranges checked, not the days of each month).
fn is_rfc3339(text: &str) -> bool {
    let Some((date_time, rest)) = text.as_bytes().split_at_checked(19) else {
        return false;
    };
    let &[y0, y1, y2, y3, dash1, mo0, mo1, dash2, d0, d1, t, h0, h1, colon1, mi0, mi1, colon2, s0, s1] =
        date_time
    else {
        return false;
    };
    let separators = dash1 == b'-'
        && dash2 == b'-'
        && t.eq_ignore_ascii_case(&b'T')
        && colon1 == b':'
        && colon2 == b':';
    let fields = [y0, y1, y2, y3].iter().all(u8::is_ascii_digit)
        && two_digits_in(mo0, mo1, 1..=12)
        && two_digits_in(d0, d1, 1..=31)
        && two_digits_in(h0, h1, 0..=23)
        && two_digits_in(mi0, mi1, 0..=59)
        && two_digits_in(s0, s1, 0..=59);
    if !(separators && fields) {
        return false;
    }
    let mut rest = rest;
    if let Some(fraction) = rest.strip_prefix(b".") {
        let len = fraction.iter().take_while(|b| b.is_ascii_digit()).count();
        if len == 0 {
            return false;
        }
        rest = fraction.get(len..).unwrap_or_default();
    }
    if rest.eq_ignore_ascii_case(b"z") {
        return true;
    }
    match *rest {
        [sign, h0, h1, b':', m0, m1] => {
            (sign == b'+' || sign == b'-')
                && two_digits_in(h0, h1, 0..=23)
                && two_digits_in(m0, m1, 0..=59)
        }
        _ => false,
    }
}

/// Whether the ASCII digits `tens` and `ones` spell a number in `range`.
fn two_digits_in(tens: u8, ones: u8, range: std::ops::RangeInclusive<u32>) -> bool {
    let number = char::from(tens)
        .to_digit(10)
        .zip(char::from(ones).to_digit(10))
        .and_then(|(tens, ones)| tens.checked_mul(10)?.checked_add(ones));
    number.is_some_and(|n| range.contains(&n))
}

#[cfg(test)]
mod tests {
    use super::is_rfc3339;

    #[test]
    fn rfc3339_times() {
        for ok in [
            "2024-01-01T00:00:00Z",
            "2024-12-31t23:59:59.123456z",
            "2024-06-01T10:00:00+02:00",
            "2024-06-01T10:00:00.5-11:30",
        ] {
            assert!(is_rfc3339(ok), "{ok}");
        }
        for bad in [
            "",
            "12",
            "2024-01-01",
            "2024-01-01 00:00:00Z",
            "2024-13-01T00:00:00Z",
            "2024-01-01T24:00:00Z",
            "2024-01-01T00:00:00",
            "2024-01-01T00:00:00.Z",
            "2024-01-01T00:00:00+2:00",
            "2024-01-01T00:00:00+24:00",
            "２０２４-01-01T00:00:00Z",
        ] {
            assert!(!is_rfc3339(bad), "{bad}");
        }
    }
}
