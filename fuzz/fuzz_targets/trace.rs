//! The trace loader of `hpa replay` (crate `hpa-cli`, trace format v1) on arbitrary text, read
//! as JSON and as YAML: never panics, and a trace it accepts replays without panicking (the
//! decisions' properties are the `evaluate` target's).
#![no_main]

use hpa_cli::trace::{self, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for format in [Format::Json, Format::Yaml] {
        let Ok(trace) = trace::parse(text, format) else {
            continue;
        };
        let mut autoscaler = trace.new_autoscaler();
        // A step the engine refuses (time going backwards, a metric count mismatch) ends the
        // replay with an error, as `hpa replay` reports it.
        let _ = trace.replay_from(&mut autoscaler, |_, _, _, _, _| Ok(()));
    }
});
