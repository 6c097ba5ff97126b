//! Whether a metric's readings include one that upstream's arithmetic takes as it is.

use super::route::{route, Route};
use super::Reading;
use crate::calculator::{self, PodTarget};
use crate::input::{MetricValuesOf, ObservationOf, PodView, SampleSlot, SampleView};
use crate::settings::Settings;
use crate::spec::MetricSpec;

/// Whether the readings of metric `spec` (`values`, observed in `obs`) include one that
/// upstream's arithmetic takes as it is with results a user would not expect: a negative value
/// the calculation uses, or an External series sum that upstream's guard takes as MaxInt64
/// (docs/parity.md, "Readings upstream takes as they are"). The engine keeps upstream's
/// arithmetic; this says when it mattered.
/// Apart from the evaluation (a second look at the readings, which the evaluation itself does
/// not pay for): `hpa replay` prints it per metric and `--explain` explains it, and the C API
/// fills `hpa_metric_result.reading` with it. `Plain` for values that do not fit the metric.
pub fn reading<'a, P, T, O>(
    spec: &MetricSpec<'_>,
    values: &MetricValuesOf<'a, T, O>,
    obs: &ObservationOf<'a, P, T, O>,
    settings: &Settings,
) -> Reading
where
    P: PodView<'a> + 'a,
    T: SampleSlot<'a, Sample = O> + 'a,
    O: SampleView<'a> + 'a,
{
    match (route(spec), values) {
        (
            Some(Route::Pods {
                resource,
                container,
                target,
            }),
            MetricValuesOf::Pods(samples),
        ) => {
            let requests = matches!(target, PodTarget::Utilization(_));
            calculator::pod_reading::<(P, T, O)>(
                (obs, settings),
                samples,
                resource,
                container,
                requests,
            )
        }
        (
            Some(Route::Usage {
                external: false, ..
            }),
            MetricValuesOf::Object(v),
        ) => calculator::usage_reading(Ok(*v), false),
        (
            Some(Route::Usage {
                external: true,
                per_pod,
                ..
            }),
            MetricValuesOf::External(vs),
        ) => calculator::usage_reading(Err(vs), per_pod),
        _ => Reading::Plain,
    }
}
