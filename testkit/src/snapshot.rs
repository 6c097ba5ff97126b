//! Snapshot bytes as the tests forge them (docs/spec/snapshot.md#layout): the checksum computed
//! independently of the engine, and a mutated snapshot resealed so that its mutation reaches the
//! checks behind the length field and the checksum; and the scenario their snapshots hold.

use hpa::spec::{
    Behavior, MetricIdentifier, MetricSpec, MetricTarget, PolicyType, ScalingPolicy, ScalingRules,
    SelectPolicy,
};
use hpa::{Autoscaler, Hpa, Instant, MetricValues, Observation, Quantity, Settings};

/// CRC-32/ISO-HDLC (zlib's `crc32`), bit by bit: written here rather than taken from the engine,
/// so that a test of the engine's checksum compares two implementations.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0_u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xEDB8_8320 & mask);
        }
    }
    !crc
}

/// Rewrites the length field and the checksum of `bytes` to match them (left alone when
/// shorter than a header and a checksum, 13 bytes).
pub fn reseal(bytes: &mut [u8]) {
    if bytes.len() < 13 {
        return;
    }
    let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
    bytes[5..9].copy_from_slice(&len.to_le_bytes());
    let body = bytes.len() - 4;
    let crc = crc32(&bytes[..body]);
    bytes[body..].copy_from_slice(&crc.to_le_bytes());
}

/// The External metric the snapshot tests and seeds drive: a queue, 1 item a pod.
pub static QUEUE: [MetricSpec<'static>; 1] = [MetricSpec::external(
    MetricIdentifier::named("queue"),
    MetricTarget::average_value(Quantity::from_milli(1000)),
)];

/// Scale-up policies with a period longer than the sync period and one equal to it, so that
/// the event ring holds rescales that still count.
pub static SCALE_UP: [ScalingPolicy; 2] = [
    ScalingPolicy {
        type_: PolicyType::Pods,
        value: 4,
        period_seconds: 60,
    },
    ScalingPolicy {
        type_: PolicyType::Percent,
        value: 100,
        period_seconds: 15,
    },
];

/// Scale-down policy: half the pods per 30 s.
pub static SCALE_DOWN: [ScalingPolicy; 1] = [ScalingPolicy {
    type_: PolicyType::Percent,
    value: 50,
    period_seconds: 30,
}];

/// The behavior the restore seeds and the `shared` fuzz target drive: [`SCALE_UP`] at once
/// (Max), [`SCALE_DOWN`] after a 60 s window (Min), so that both rings and both event lists
/// hold entries.
pub const BEHAVIOR: Behavior<'static> = Behavior {
    scale_up: Some(ScalingRules {
        stabilization_window_seconds: Some(0),
        select_policy: Some(SelectPolicy::Max),
        policies: Some(&SCALE_UP),
        tolerance: None,
    }),
    scale_down: Some(ScalingRules {
        stabilization_window_seconds: Some(60),
        select_policy: Some(SelectPolicy::Min),
        policies: Some(&SCALE_DOWN),
        tolerance: None,
    }),
};

/// Evaluates `a` under `hpa` ([`QUEUE`] as its metric) at `loads` (queue lengths), 15 s apart
/// from `start`, from 2 replicas. Every step's rescale but the last step's is reported: every
/// fourth as failed, the others as succeeded (the replica count follows them); the last is
/// left pending. The last step observes `last_replicas` replicas when given. Returns the last
/// step's instant.
pub fn queue_steps<const R: usize, const E: usize>(
    a: &mut Autoscaler<R, E>,
    hpa: &Hpa<'_>,
    start: i64,
    loads: &[i64],
    last_replicas: Option<i32>,
) -> i64 {
    let mut replicas = 2;
    let mut now = start;
    for (i, load) in loads.iter().enumerate() {
        now = start + 15_000 * i as i64;
        let last = i + 1 == loads.len();
        let values = [load * 1000];
        let metrics = [MetricValues::External(&values)];
        let current = match last_replicas {
            Some(r) if last => r,
            _ => replicas,
        };
        let obs = Observation {
            now: Instant(now),
            replicas: current,
            status_replicas: current,
            pods: &[],
            metrics: &metrics,
        };
        let d = a
            .evaluate(hpa, &Settings::DEFAULT, &obs)
            .expect("a valid step");
        if d.rescale && !last {
            if i % 4 == 3 {
                assert!(a.rescale_failed());
            } else {
                assert!(a.rescale_succeeded());
                replicas = d.desired_replicas;
            }
        }
    }
    now
}

#[cfg(test)]
mod tests {
    #[test]
    fn crc_check_value() {
        assert_eq!(super::crc32(b"123456789"), 0xCBF4_3926);
    }
}
