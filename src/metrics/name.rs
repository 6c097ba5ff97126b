//! A metric's name as upstream writes it in reasons and messages.

use core::fmt;

use super::route::{route, Route};
use crate::calculator::PodTarget;
use crate::spec::MetricSpec;

/// Renders a metric's name as upstream does in `<name> above target`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MetricName<'a>(pub &'a MetricSpec<'a>);

/// A label selector as upstream prints it: `<nil>` when unset.
pub(super) struct Selector<'a>(pub(super) Option<&'a str>);

impl fmt::Display for Selector<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.unwrap_or("<nil>"))
    }
}

impl fmt::Display for MetricName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let spec = self.0;
        match route(spec) {
            Some(Route::Pods {
                resource: Some(resource),
                container,
                target: PodTarget::Utilization(_),
            }) => {
                let container = if container.is_some() {
                    " container"
                } else {
                    ""
                };
                write!(
                    f,
                    "{resource}{container} resource utilization (percentage of request)"
                )
            }
            Some(Route::Pods {
                resource: Some(resource),
                ..
            }) => write!(f, "{resource} resource"),
            Some(Route::Pods { resource: None, .. }) => match &spec.pods {
                Some(p) => write!(f, "pods metric {}", p.metric.name),
                None => Ok(()),
            },
            Some(Route::Usage {
                external: false,
                per_pod: false,
                ..
            }) => match &spec.object {
                Some(o) => write!(f, "{} metric {}", o.described_object.kind, o.metric.name),
                None => Ok(()),
            },
            // Upstream names per-pod Object metrics "external metric" too.
            Some(Route::Usage { external, .. }) => {
                let metric = if external {
                    spec.external.map(|e| e.metric)
                } else {
                    spec.object.map(|o| o.metric)
                };
                match metric {
                    Some(m) => write!(f, "external metric {}({})", m.name, Selector(m.selector)),
                    None => Ok(()),
                }
            }
            None => Ok(()),
        }
    }
}
