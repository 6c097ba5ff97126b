//! `Quantity::parse` on arbitrary text: never panics; when it succeeds, the canonical text
//! (`to_string()`) parses back to the same value. The text may change once (a BinarySI value
//! that is no multiple of a binary suffix prints as plain digits, which read back as DecimalSI:
//! "62.5Ki" -> "64000" -> "64k", as upstream), then it is a fixed point. The integer readings
//! never panic either.
#![no_main]

use hpa::Quantity;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(q) = Quantity::parse(text) else {
        return;
    };
    let canonical = q.to_string();
    let again = match Quantity::parse(&canonical) {
        Ok(again) => again,
        Err(e) => panic!("{text:?} parsed, but its canonical form {canonical:?} does not: {e:?}"),
    };
    assert_eq!(again, q, "{text:?} -> {canonical:?} changed the value");
    let second = again.to_string();
    let third = Quantity::parse(&second).map(|q| q.to_string());
    assert_eq!(
        third.as_deref(),
        Ok(second.as_str()),
        "{text:?}: no fixed point"
    );
    // The readings the engine uses.
    let _ = (
        q.milli_value(),
        q.value(),
        q.nano_value(),
        q.canonical_parts(),
    );
    assert_eq!(q.milli_value(), again.milli_value());
});
