//! The demand-load CSV loader of `hpa simulate` (crate `hpa-cli`) on arbitrary text: never
//! panics, and a load it accepts is consistent: one series per column, as long as the times,
//! which never go down.
#![no_main]

use hpa_cli::csv_load;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(load) = csv_load::parse(text, "fuzz.csv") {
        assert_eq!(load.series.len(), load.columns.len());
        for series in &load.series {
            assert_eq!(series.len(), load.times.len());
        }
        assert!(
            load.times.windows(2).all(|w| w[0] <= w[1]),
            "{:?}",
            load.times
        );
    }
});
