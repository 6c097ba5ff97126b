//! The HorizontalPodAutoscaler manifest loader of `hpa validate` and `hpa simulate` (crate
//! `hpa-cli`) on arbitrary text, read as JSON and as YAML, for the newest Kubernetes with the
//! HPAScaleToZero gate on and off and for the oldest followed: never panics, never returns an
//! empty error list, and a manifest it accepts is one the engine's validation (`Hpa::new`)
//! accepts with the same settings.
#![no_main]

use bumpalo::Bump;
use hpa::{Hpa, Settings};
use hpa_cli::trace::{self, Cluster, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for format in [Format::Json, Format::Yaml] {
        for (version, gates) in [
            (None, "HPAScaleToZero=false"),
            (None, ""),
            (Some("1.23"), ""),
        ] {
            let Ok(cluster) = Cluster::new(version, Some(gates)) else {
                panic!("the fuzzed clusters are valid");
            };
            let settings = cluster.settings(Settings::DEFAULT);
            match trace::parse_manifest_all(text, format, &cluster) {
                Ok(manifest) => {
                    let arena = Bump::new();
                    let spec = manifest.spec(&arena);
                    if let Err(e) = Hpa::new(&spec, &settings) {
                        panic!("accepted manifest refused by Hpa::new: {e}");
                    }
                }
                Err(errors) => assert!(!errors.is_empty()),
            }
        }
    }
});
