//! The API versions of a standalone HorizontalPodAutoscaler manifest: each read with its own
//! schema (so that an error names a field the document's version has) and converted to
//! `autoscaling/v2` as the API server converts it, before the checks every manifest goes
//! through ([`super::convert`]).
//!
//! - `autoscaling/v2`: [`RawHpa`], here;
//! - `autoscaling/v1`: `v1` (`targetCPUUtilizationPercentage`, and the other metrics and the
//!   behavior carried in annotations, read by `annotations`);
//! - `autoscaling/v2beta2` and `autoscaling/v2beta1`: `v2beta2` and `v2beta1`, converted too,
//!   but refused first with the Kubernetes release that stopped serving them when the release
//!   targeted no longer serves them (docs/spec/manifests.md#api-versions).
//!
//! `meta` holds what every version shares (ObjectMeta and conditions, with their value types).

mod annotations;
mod meta;
mod v1;
mod v2beta1;
mod v2beta2;

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer};
use serde::Deserialize;

use super::convert::{convert_manifest, not_supported};
use super::raw::{RawBehavior, RawMetricSpec, RawObjectRef, RawSpec};
use super::strict::{objects_only, AnyValue, StrictMap};
use super::{Cluster, Manifest, TraceError};

pub(super) use self::meta::{RawHpaCondition, RawMeta, Time};

objects_only! {
    RawHpa => "an autoscaling/v2 HorizontalPodAutoscaler object",
    RawHpaStatus => "a HorizontalPodAutoscalerStatus object",
}

/// An `autoscaling/v2` HorizontalPodAutoscaler as the API server reads it (every value of its
/// type; `status` as `kubectl get -o yaml` prints it).
#[derive(Deserialize, Default)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawHpa {
    pub(super) api_version: Option<String>,
    pub(super) kind: Option<String>,
    pub(super) metadata: Option<RawMeta>,
    pub(super) spec: Option<RawSpec>,
    pub(super) status: Option<RawHpaStatus>,
}

/// `HorizontalPodAutoscalerStatus` of `autoscaling/v2`, `v2beta2` and `v2beta1` (unused: read
/// for its types).
#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
pub(super) struct RawHpaStatus {
    observed_generation: Option<i64>,
    last_scale_time: Option<Time>,
    current_replicas: Option<i32>,
    desired_replicas: Option<i32>,
    current_metrics: Option<Vec<StrictMap<AnyValue>>>,
    conditions: Option<Vec<RawHpaCondition>>,
}

/// An API version of HorizontalPodAutoscaler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApiVersion {
    /// `autoscaling/v1`: CPU utilization only, the rest in annotations.
    V1,
    /// `autoscaling/v2beta1`: served from Kubernetes 1.8 to 1.24.
    V2beta1,
    /// `autoscaling/v2beta2`: served from Kubernetes 1.12 to 1.25.
    V2beta2,
    /// `autoscaling/v2`: since Kubernetes 1.23.
    V2,
}

impl ApiVersion {
    /// The version a document's `apiVersion` names (`autoscaling/v2` when it has none).
    ///
    /// # Errors
    ///
    /// The message for a version that is not an autoscaling version of HorizontalPodAutoscaler.
    pub fn parse(api_version: Option<&str>) -> Result<ApiVersion, String> {
        match api_version {
            None | Some("autoscaling/v2") => Ok(ApiVersion::V2),
            Some("autoscaling/v1") => Ok(ApiVersion::V1),
            Some("autoscaling/v2beta2") => Ok(ApiVersion::V2beta2),
            Some("autoscaling/v2beta1") => Ok(ApiVersion::V2beta1),
            Some(other) => Err(not_supported(other, &["autoscaling/v1", "autoscaling/v2"])),
        }
    }

    /// `autoscaling/v1`, ...
    pub fn name(self) -> &'static str {
        match self {
            ApiVersion::V1 => "autoscaling/v1",
            ApiVersion::V2beta1 => "autoscaling/v2beta1",
            ApiVersion::V2beta2 => "autoscaling/v2beta2",
            ApiVersion::V2 => "autoscaling/v2",
        }
    }
}

impl fmt::Display for ApiVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An object of an older version converted to `autoscaling/v2`: what the checks read of it
/// (its status is not converted: a manifest's status is only type-checked).
pub(super) struct Converted {
    metadata: RawMeta,
    spec: RawSpec,
    notes: Vec<String>,
}

/// The scale target and replica range, the same in every version.
type Bounds = (Option<RawObjectRef>, Option<i32>, Option<i32>);

impl Converted {
    /// The converted parts, the round-trip annotations dropped from `metadata` as upstream
    /// drops them.
    fn new(
        mut metadata: RawMeta,
        (scale_target_ref, min_replicas, max_replicas): Bounds,
        metrics: Option<Vec<RawMetricSpec>>,
        behavior: Option<RawBehavior>,
        notes: Vec<String>,
    ) -> Converted {
        annotations::drop_round_trip(&mut metadata);
        Converted {
            metadata,
            spec: RawSpec {
                scale_target_ref,
                min_replicas,
                max_replicas,
                metrics,
                behavior,
            },
            notes,
        }
    }

    fn into_v2(self) -> (RawHpa, Vec<String>) {
        let hpa = RawHpa {
            metadata: Some(self.metadata),
            spec: Some(self.spec),
            ..RawHpa::default()
        };
        (hpa, self.notes)
    }
}

/// A document parsed with its version's schema.
pub(super) enum VersionedHpa {
    V1(v1::RawV1Hpa),
    V2beta1(v2beta1::RawV2beta1Hpa),
    V2beta2(v2beta2::RawV2beta2Hpa),
    V2(RawHpa),
}

/// Parses an object with the schema of its API version (found by a first look at it).
#[derive(Clone, Copy)]
pub(super) struct ObjectSeed(pub(super) ApiVersion);

impl<'de> DeserializeSeed<'de> for ObjectSeed {
    type Value = VersionedHpa;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<VersionedHpa, D::Error> {
        Ok(match self.0 {
            ApiVersion::V1 => VersionedHpa::V1(v1::RawV1Hpa::deserialize(d)?),
            ApiVersion::V2beta1 => VersionedHpa::V2beta1(v2beta1::RawV2beta1Hpa::deserialize(d)?),
            ApiVersion::V2beta2 => VersionedHpa::V2beta2(v2beta2::RawV2beta2Hpa::deserialize(d)?),
            ApiVersion::V2 => VersionedHpa::V2(RawHpa::deserialize(d)?),
        })
    }
}

/// A checked manifest object and the notes of its conversion (annotations the API server
/// ignores, for instance).
pub(super) struct Checked {
    pub(super) manifest: Manifest,
    pub(super) notes: Vec<String>,
}

/// Checks an object of `version` parsed (or not) with its schema: converted to `autoscaling/v2`
/// and checked as any manifest by `cluster`'s API server. A version that release no longer
/// serves is refused with that reason first, then what else is wrong with the document (read
/// with its own schema, then converted).
pub(super) fn check_object(
    version: ApiVersion,
    parsed: Result<VersionedHpa, TraceError>,
    cluster: &Cluster,
) -> Result<Checked, Vec<TraceError>> {
    let mut errors: Vec<TraceError> = cluster
        .refuses(version)
        .map(|why| TraceError::new("apiVersion", why))
        .into_iter()
        .collect();
    let converted = parsed.and_then(|raw| match raw {
        VersionedHpa::V1(raw) => v1::to_v2(raw).map(Converted::into_v2),
        VersionedHpa::V2beta1(raw) => v2beta1::to_v2(raw).map(Converted::into_v2),
        VersionedHpa::V2beta2(raw) => v2beta2::to_v2(raw).map(Converted::into_v2),
        VersionedHpa::V2(raw) => Ok((raw, Vec::new())),
    });
    match converted {
        Err(e) => errors.push(e),
        Ok((mut raw, mut notes)) => {
            if version != ApiVersion::V2 {
                cluster.drop_converted_tolerances(raw.spec.as_mut());
            }
            match convert_manifest(raw, cluster) {
                Ok((mut manifest, dropped)) if errors.is_empty() => {
                    manifest.api_version = version;
                    notes.extend(dropped);
                    return Ok(Checked { manifest, notes });
                }
                Ok(_) => {}
                Err(more) => errors.extend(more),
            }
        }
    }
    Err(errors)
}

#[cfg(test)]
mod tests {
    use super::ApiVersion;
    use crate::trace::Cluster;

    #[test]
    fn versions_by_name() {
        assert_eq!(ApiVersion::parse(None), Ok(ApiVersion::V2));
        for v in [
            ApiVersion::V1,
            ApiVersion::V2beta1,
            ApiVersion::V2beta2,
            ApiVersion::V2,
        ] {
            assert_eq!(ApiVersion::parse(Some(v.name())), Ok(v));
        }
        assert_eq!(
            ApiVersion::parse(Some("autoscaling/v3")).unwrap_err(),
            r#"Unsupported value: "autoscaling/v3": supported values: "autoscaling/v1", "autoscaling/v2""#
        );
        assert!(Cluster::NEWEST.refuses(ApiVersion::V2).is_none());
        assert!(Cluster::NEWEST
            .refuses(ApiVersion::V2beta1)
            .unwrap()
            .starts_with(
            "autoscaling/v2beta1 HorizontalPodAutoscaler is no longer served since Kubernetes 1.25"
        ));
    }
}

#[cfg(test)]
mod conversion_tests {
    //! The conversions of the versions the newest Kubernetes refuses, which `check_object` does
    //! not return: each converted object validated as `autoscaling/v2`.

    use bumpalo::Bump;
    use hpa::spec::{MetricSourceType as Type, MetricTargetType as Target};

    use super::{v2beta1, v2beta2, Converted};
    use crate::trace::convert::convert_manifest;
    use crate::trace::strict::parse_yaml;
    use crate::trace::{Cluster, Manifest};

    fn manifest(converted: Converted) -> Manifest {
        let (hpa, notes) = converted.into_v2();
        assert!(notes.is_empty(), "{notes:?}");
        convert_manifest(hpa, &Cluster::NEWEST).unwrap().0
    }

    #[test]
    fn v2beta1_renames() {
        let text = include_str!("../../tests/manifests/v2beta1.yaml");
        let raw: v2beta1::RawV2beta1Hpa = parse_yaml(text).unwrap();
        let m = manifest(v2beta1::to_v2(raw).unwrap());
        let arena = Bump::new();
        let spec = m.spec(&arena);
        let kinds: Vec<_> = spec.metrics.iter().map(|m| m.type_.unwrap()).collect();
        assert_eq!(
            kinds,
            [
                Type::Resource,
                Type::Resource,
                Type::Pods,
                Type::Object,
                Type::External
            ]
        );
        let cpu = spec.metrics[0].resource.unwrap().target;
        assert_eq!(
            (cpu.type_, cpu.average_utilization),
            (Some(Target::Utilization), Some(50))
        );
        let memory = spec.metrics[1].resource.unwrap().target;
        assert_eq!(memory.type_, Some(Target::AverageValue));
        assert_eq!(
            memory.average_value.unwrap().milli_value(),
            512 * 1024 * 1024 * 1000
        );
        let pods = spec.metrics[2].pods.unwrap();
        assert_eq!(pods.metric.name, "packets-per-second");
        assert_eq!(pods.target.type_, Some(Target::AverageValue));
        let object = spec.metrics[3].object.unwrap();
        assert_eq!(object.described_object.kind, "Ingress");
        assert_eq!(object.metric.name, "requests-per-second");
        assert_eq!(object.target.type_, Some(Target::Value));
        assert_eq!(object.target.value.unwrap().milli_value(), 10_000_000);
        let external = spec.metrics[4].external.unwrap();
        assert_eq!(external.metric.name, "queue_messages");
        assert!(external.metric.selector.unwrap().contains("queue: jobs"));
        assert_eq!(external.target.type_, Some(Target::AverageValue));
        assert_eq!(external.target.value, None);
    }

    #[test]
    fn v2beta2_tolerance_annotations() {
        let text = include_str!("../../tests/manifests/v2beta2.yaml");
        let raw: v2beta2::RawV2beta2Hpa = parse_yaml(text).unwrap();
        let m = manifest(v2beta2::to_v2(raw).unwrap());
        let arena = Bump::new();
        let down = m.spec(&arena).behavior.unwrap().scale_down.unwrap();
        assert_eq!(down.stabilization_window_seconds, Some(60));
        assert_eq!(down.tolerance.unwrap().milli_value(), 50);
        let bad = text.replace("\"0.05\"", "five");
        let raw: v2beta2::RawV2beta2Hpa = parse_yaml(&bad).unwrap();
        let Err(e) = v2beta2::to_v2(raw) else {
            panic!("a malformed tolerance fails the conversion");
        };
        assert_eq!(
            e.path,
            "metadata.annotations[autoscaling.alpha.kubernetes.io/scale-down-tolerance]"
        );
    }
}
