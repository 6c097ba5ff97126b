//! The load loaders of `hpa simulate` (crate `hpa-cli`) on arbitrary text: the CSV one, and the
//! Prometheus range-query one without `--series`, with `sum({})` and with a matcher. Neither
//! panics, and a load either accepts is consistent: one series per column, each as long as the
//! times, which never go down (a Prometheus load's never repeat) and span two distinct times.
#![no_main]

use hpa_cli::csv_load::{self, Load};
use hpa_cli::prometheus_load::{self, SeriesSpec};
use libfuzzer_sys::fuzz_target;

fn check(load: &Load, strictly_increasing: bool) {
    assert_eq!(load.series.len(), load.columns.len());
    for series in &load.series {
        assert_eq!(series.len(), load.times.len());
    }
    assert!(
        load.times.windows(2).all(|w| if strictly_increasing {
            w[0] < w[1]
        } else {
            w[0] <= w[1]
        }),
        "{:?}",
        load.times
    );
    assert!(load.times.first() < load.times.last(), "{:?}", load.times);
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(load) = csv_load::parse(text, "fuzz.csv") {
        check(&load, false);
    }
    let specs = [
        SeriesSpec::parse("cpu=sum({})").expect("a valid spec"),
        SeriesSpec::parse(r#"queue=max({queue="orders", pod!=""})"#).expect("a valid spec"),
    ];
    for specs in [&[][..], &specs[..1], &specs[..]] {
        if let Ok(load) = prometheus_load::parse(text, "fuzz.json", specs) {
            assert_eq!(load.columns.len(), specs.len().max(1));
            check(&load, true);
        }
    }
});
