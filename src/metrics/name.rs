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
                // Pieces, not `write!`: no formatting arguments to interpret for a name the C
                // API writes twice an evaluation.
                f.write_str(resource)?;
                f.write_str(container)?;
                f.write_str(" resource utilization (percentage of request)")
            }
            Some(Route::Pods {
                resource: Some(resource),
                ..
            }) => {
                f.write_str(resource)?;
                f.write_str(" resource")
            }
            Some(Route::Pods { resource: None, .. }) => match &spec.pods {
                Some(p) => {
                    f.write_str("pods metric ")?;
                    f.write_str(p.metric.name)
                }
                None => Ok(()),
            },
            Some(Route::Usage {
                external: false,
                per_pod: false,
                ..
            }) => match &spec.object {
                Some(o) => {
                    f.write_str(o.described_object.kind)?;
                    f.write_str(" metric ")?;
                    f.write_str(o.metric.name)
                }
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
                    Some(m) => {
                        f.write_str("external metric ")?;
                        f.write_str(m.name)?;
                        f.write_str("(")?;
                        fmt::Display::fmt(&Selector(m.selector), f)?;
                        f.write_str(")")
                    }
                    None => Ok(()),
                }
            }
            None => Ok(()),
        }
    }
}
