//! The input of the `load_history` target: a controller's history as
//! `Autoscaler::load_history` takes it, then a few evaluations.

use arbitrary::Arbitrary;

use crate::encode_fields;

/// An upstream scale event, `age_s` seconds before the load instant.
#[derive(Arbitrary, Debug)]
pub struct Event {
    /// Zero or negative: refused.
    pub change: i16,
    pub age_s: u16,
    pub outdated: bool,
}

/// An evaluation after the load.
#[derive(Arbitrary, Debug)]
pub struct Step {
    /// Seconds after the previous instant (the first: after the load instant).
    pub dt_s: u16,
    /// The queue length, in replicas' worth (milli-units / 1000).
    pub load: u16,
    /// A replica count someone else sets before the evaluation.
    pub replicas: Option<u16>,
    /// Whether a decided rescale is reported succeeded (otherwise failed).
    pub succeeded: bool,
}

#[derive(Arbitrary, Debug)]
pub struct Input {
    /// The legacy path, or one of the fixed behaviors.
    pub behavior: u8,
    /// `maxReplicas` is 1 more than this modulo 500.
    pub max: u16,
    pub seeded: bool,
    /// `(replicas, age_s)`, in any order.
    pub recommendations: Vec<(u16, u16)>,
    pub scale_up: Vec<Option<Event>>,
    pub scale_down: Vec<Option<Event>>,
    pub steps: Vec<Step>,
}

encode_fields!(Event {
    change,
    age_s,
    outdated
});
encode_fields!(Step {
    dt_s,
    load,
    replicas,
    succeeded
});
encode_fields!(Input {
    behavior,
    max,
    seeded,
    recommendations,
    scale_up,
    scale_down,
    steps
});
