//! Whether a metric's readings include one that upstream's arithmetic takes as it is: a second
//! look at the readings with the pass's own rules, apart from the evaluation.

use super::proposal::series_sum;
use super::{readiness, sample_value};
use crate::input::{ObservationIn, PodSamplesIn, PodSource, SampleSlot};
use crate::pods::{group, request_of, Grouping, PodGroup};
use crate::settings::Settings;

/// A metric's readings that upstream's arithmetic takes as they are, with results a user
/// would not expect (docs/parity.md, "Readings upstream takes as they are"): the engine keeps
/// that arithmetic in `kubernetes` mode and says so (see `hpa::metrics::reading`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Reading {
    /// Nothing out of the ordinary.
    #[default]
    Plain,
    /// A value the calculation used was negative: a pod's sample or request, an Object
    /// value, an entry of an External series. Upstream computes with it as it is: a negative
    /// Object value proposes 0 replicas or fewer, negative pod usage or requests can propose
    /// fewer than 0.
    Negative,
    /// Upstream's overflow guard on an External series took the total as MaxInt64: with an
    /// AverageValue target a running sum below zero (a negative entry) or beyond int64, with a
    /// Value target a sum beyond int64. The proposal is then the largest replica count.
    TreatedAsOverflow,
}

impl Reading {
    /// `plain`, `negative` or `treatedAsOverflow` (the replay output's spelling).
    pub const fn as_str(self) -> &'static str {
        match self {
            Reading::Plain => "plain",
            Reading::Negative => "negative",
            Reading::TreatedAsOverflow => "treatedAsOverflow",
        }
    }

    /// `Negative` when `signs` (a bitwise or of values) is negative.
    fn of_signs(signs: i64) -> Reading {
        if signs < 0 {
            Reading::Negative
        } else {
            Reading::Plain
        }
    }
}

/// [`Reading`] of an Object value (`values` is `Ok(value)`) or an External series (`Err`),
/// `per_pod` for an average-value target.
pub(crate) fn usage_reading(values: Result<i64, &[i64]>, per_pod: bool) -> Reading {
    match values {
        Ok(value) => Reading::of_signs(value),
        Err(series) if series_sum(series, per_pod).is_none() => Reading::TreatedAsOverflow,
        Err(series) => Reading::of_signs(series.iter().fold(0, |signs, v| signs | v)),
    }
}

/// [`Reading`] of a pod-based metric: `Negative` when a value or request the calculation
/// uses is negative (a ready pod's or an orphan's sample; the request of a pod that is not
/// ignored, for utilization targets). A second walk over the pods with the pass's own
/// rules, apart from the evaluation: it costs the evaluation nothing.
pub(crate) fn pod_reading<'a, S: PodSource<'a>>(
    (obs, settings): (&ObservationIn<'a, S>, &Settings),
    samples: &PodSamplesIn<'a, S>,
    resource: Option<&str>,
    container: Option<&str>,
    requests: bool,
) -> Reading {
    let cpu = resource.is_some_and(|r| crate::pods::same(r, "cpu"));
    let readiness = Grouping::new(&readiness(obs, settings, cpu));
    let mut signs = 0_i64;
    for (pod, slot) in obs.pods.iter().zip(samples.per_pod) {
        let value = slot
            .sample()
            .and_then(|s| Some((s, sample_value(s, container)?)));
        let group = group(pod, value.map(|(s, _)| s), &readiness);
        if group == PodGroup::Ready {
            signs |= value.map_or(0, |(_, v)| v);
        }
        if let (true, Some(resource), false) = (requests, resource, group == PodGroup::Ignored) {
            signs |= request_of(pod, container, resource).unwrap_or(0);
        }
    }
    for v in samples
        .orphans
        .iter()
        .filter_map(|s| sample_value(s, container))
    {
        signs |= v;
    }
    Reading::of_signs(signs)
}
