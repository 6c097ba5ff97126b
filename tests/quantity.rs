//! `hpa::quantity` against Kubernetes `resource.Quantity`: table cases taken from upstream's
//! `quantity_test.go` (parse, canonical `String()`, `MilliValue`, `Value`, rejected inputs)
//! plus the engine's edge cases.

use hpa::quantity::{build_quantity_milli, Format, Quantity, QuantityError};

use Format::{BinarySI, DecimalExponent, DecimalSI};

fn parse(s: &str) -> Quantity {
    match Quantity::parse(s) {
        Ok(q) => q,
        Err(e) => panic!("{s:?} should parse, got {e:?} ({e})"),
    }
}

/// Upstream `TestQuantityParse`: input, expected value (written as a plain quantity), format.
const PARSE_TABLE: &[(&str, &str, Format)] = &[
    ("0", "0", DecimalSI),
    ("0n", "0", DecimalSI),
    ("0u", "0", DecimalSI),
    ("0m", "0", DecimalSI),
    ("0Ki", "0", BinarySI),
    ("0k", "0", DecimalSI),
    ("0Mi", "0", BinarySI),
    ("0M", "0", DecimalSI),
    ("0Gi", "0", BinarySI),
    ("0G", "0", DecimalSI),
    ("0Ti", "0", BinarySI),
    ("0T", "0", DecimalSI),
    // Quantity less numbers are allowed
    ("1", "1", DecimalSI),
    // Binary suffixes
    ("1Ki", "1024", BinarySI),
    ("8Ki", "8192", BinarySI),
    ("7Mi", "7340032", BinarySI),
    ("6Gi", "6442450944", BinarySI),
    ("5Ti", "5497558138880", BinarySI),
    ("4Pi", "4503599627370496", BinarySI),
    ("3Ei", "3458764513820540928", BinarySI),
    ("10Ti", "10995116277760", BinarySI),
    ("100Ti", "109951162777600", BinarySI),
    // Decimal suffixes
    ("5n", "5e-9", DecimalSI),
    ("4u", "4e-6", DecimalSI),
    ("3m", "3e-3", DecimalSI),
    ("9", "9", DecimalSI),
    ("8k", "8e3", DecimalSI),
    ("50k", "5e4", DecimalSI),
    ("7M", "7e6", DecimalSI),
    ("6G", "6e9", DecimalSI),
    ("5T", "5e12", DecimalSI),
    ("40T", "4e13", DecimalSI),
    ("300T", "3e14", DecimalSI),
    ("2P", "2e15", DecimalSI),
    ("1E", "1e18", DecimalSI),
    // Decimal exponents
    ("1E-3", "1e-3", DecimalExponent),
    ("1e3", "1e3", DecimalExponent),
    ("1E6", "1e6", DecimalExponent),
    ("1e9", "1e9", DecimalExponent),
    ("1E12", "1e12", DecimalExponent),
    ("1e15", "1e15", DecimalExponent),
    ("1E18", "1e18", DecimalExponent),
    // Nonstandard but still parsable
    ("1e14", "1e14", DecimalExponent),
    ("1e13", "1e13", DecimalExponent),
    ("100.035k", "100035", DecimalSI),
    // Things that look like floating point
    ("0.001", "1e-3", DecimalSI),
    ("0.0005k", "5e-1", DecimalSI),
    ("0.005", "5e-3", DecimalSI),
    ("0.05", "5e-2", DecimalSI),
    ("0.5", "5e-1", DecimalSI),
    ("0.00050k", "5e-1", DecimalSI),
    ("0.00500", "5e-3", DecimalSI),
    ("0.05000", "5e-2", DecimalSI),
    ("0.50000", "5e-1", DecimalSI),
    ("0.5e0", "5e-1", DecimalExponent),
    ("0.5e-1", "5e-2", DecimalExponent),
    ("0.5e-2", "5e-3", DecimalExponent),
    ("10.035M", "10035e3", DecimalSI),
    ("1.2e3", "12e2", DecimalExponent),
    ("1.3E+6", "13e5", DecimalExponent),
    ("1.40e9", "14e8", DecimalExponent),
    ("1.53E12", "153e10", DecimalExponent),
    ("1.6e15", "16e14", DecimalExponent),
    ("1.7E18", "17e17", DecimalExponent),
    ("9.01", "901e-2", DecimalSI),
    ("8.1k", "81e2", DecimalSI),
    ("7.123456M", "7123456", DecimalSI),
    ("6.987654321G", "6987654321", DecimalSI),
    ("5.444T", "5444e9", DecimalSI),
    ("40.1T", "401e11", DecimalSI),
    ("300.2T", "3002e11", DecimalSI),
    ("2.5P", "25e14", DecimalSI),
    ("1.01E", "101e16", DecimalSI),
    // Things that saturate/round
    ("3.001n", "4e-9", DecimalSI),
    ("1.1E-9", "2e-9", DecimalExponent),
    ("0.0000000001", "1e-9", DecimalSI),
    ("0.0000000005", "1e-9", DecimalSI),
    ("0.00000000050", "1e-9", DecimalSI),
    ("0.5e-9", "1e-9", DecimalExponent),
    ("0.9n", "1e-9", DecimalSI),
    ("0.00000012345", "124e-9", DecimalSI),
    ("0.00000012354", "124e-9", DecimalSI),
    ("9Ei", "9223372036854775807", BinarySI),
    ("9223372036854775807Ki", "9223372036854775807", BinarySI),
    ("12E", "12e18", DecimalSI),
    // We'll accept fractional binary stuff, too.
    ("100.035Ki", "10243584e-2", BinarySI),
    ("0.5Mi", "524288", BinarySI),
    ("0.05Gi", "536870912e-1", BinarySI),
    ("0.025Ti", "274877906944e-1", BinarySI),
    // Things written by trolls
    ("0.000000000001Ki", "2e-9", DecimalSI), // rounds up, changes format
    (".001", "1e-3", DecimalSI),
    (".0001k", "100e-3", DecimalSI),
    ("1.", "1", DecimalSI),
    ("1.G", "1e9", DecimalSI),
];

/// The entries of `PARSE_TABLE` a test takes: all of them; under Miri, which interprets each
/// parse thousands of times slower, every third from `offset` (the plain, negated and signed
/// tests take offsets 0, 1 and 2: together the whole table).
fn parse_table(
    offset: usize,
) -> impl Iterator<Item = &'static (&'static str, &'static str, Format)> {
    let (skip, stride) = if cfg!(miri) { (offset, 3) } else { (0, 1) };
    PARSE_TABLE.iter().skip(skip).step_by(stride)
}

#[test]
fn upstream_parse_table() {
    for &(input, expect, format) in parse_table(0) {
        let got = parse(input);
        assert_eq!(got, parse(expect), "{input}: value");
        assert_eq!(got.format(), format, "{input}: format");
    }
}

#[test]
fn upstream_parse_table_negated() {
    for &(input, expect, format) in parse_table(1) {
        let got = parse(&format!("-{input}"));
        let want = parse(expect);
        assert_eq!(got.signum(), -want.signum(), "-{input}: sign");
        assert_eq!(got.nano_value(), -want.nano_value(), "-{input}: value");
        assert_eq!(got.format(), format, "-{input}: format");
        if !want.is_zero() {
            assert_eq!(
                got.to_string(),
                format!("-{want_text}", want_text = parse(input))
            );
        }
    }
}

#[test]
fn upstream_parse_table_with_plus() {
    for &(input, expect, format) in parse_table(2) {
        let got = parse(&format!("+{input}"));
        assert_eq!(got, parse(expect), "+{input}: value");
        assert_eq!(got.format(), format, "+{input}: format");
    }
}

#[test]
fn upstream_invalid_inputs() {
    let table: &[(&str, QuantityError)] = &[
        ("1.1.M", QuantityError::Syntax),
        ("1+1.0M", QuantityError::Syntax),
        ("0.1mi", QuantityError::Suffix),
        ("0.1am", QuantityError::Syntax),
        ("aoeu", QuantityError::Syntax),
        (".5i", QuantityError::Suffix),
        ("1i", QuantityError::Suffix),
        ("-3.01i", QuantityError::Suffix),
        ("-3.01e-", QuantityError::Suffix),
        // an exponent outside the int32 scale is rejected rather than truncated
        ("1e4294967297", QuantityError::ExponentOutOfRange),
        ("1E2147483648", QuantityError::ExponentOutOfRange),
        ("1E-2147483648", QuantityError::ExponentOutOfRange),
        ("1e9223372036854775808", QuantityError::ExponentOutOfRange),
        // the engine's own list
        ("", QuantityError::Empty),
        (" \t\n", QuantityError::Empty),
        ("1.2.3", QuantityError::Syntax),
        ("1Kb", QuantityError::Syntax),
        ("e3", QuantityError::Syntax),
        // more malformed shapes
        ("1e", QuantityError::Suffix),
        ("1e+", QuantityError::Suffix),
        ("1ee3", QuantityError::Suffix),
        ("1k3", QuantityError::Suffix),
        ("1ki", QuantityError::Suffix),
        ("1KI", QuantityError::Syntax),
        ("1e3m", QuantityError::Syntax),
        ("1 000", QuantityError::Syntax),
        ("- 1", QuantityError::Syntax),
        ("--1", QuantityError::Syntax),
        ("1,5", QuantityError::Syntax),
        ("1.5\u{a0}", QuantityError::Syntax),
        ("0x10", QuantityError::Syntax),
        ("Ki", QuantityError::Syntax),
        (".", QuantityError::Syntax),
        ("+", QuantityError::Syntax),
        ("-", QuantityError::Syntax),
        ("-.", QuantityError::Syntax),
        ("n", QuantityError::Syntax),
    ];
    for &(input, err) in table {
        assert_eq!(Quantity::parse(input), Err(err), "{input:?}");
        assert_eq!(input.parse::<Quantity>(), Err(err), "{input:?} via FromStr");
    }
}

#[test]
fn error_messages() {
    let format_wrong = "quantities must match the regular expression \
                        '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    assert_eq!(QuantityError::Empty.to_string(), format_wrong);
    assert_eq!(QuantityError::Syntax.to_string(), format_wrong);
    assert_eq!(
        QuantityError::Suffix.to_string(),
        "unable to parse quantity's suffix"
    );
    assert!(QuantityError::ExponentOutOfRange
        .to_string()
        .starts_with("unable to parse quantity's suffix"));
}

/// Upstream `TestQuantityString`: a value in a format, its canonical text, an alternate
/// spelling that must print canonically.
#[test]
fn upstream_string_table() {
    let table: &[(Quantity, &str, &str)] = &[
        (Quantity::from_int(1 << 30, BinarySI), "1Gi", "1024Mi"),
        (Quantity::from_int(300 << 20, BinarySI), "300Mi", "307200Ki"),
        (Quantity::from_int(6 << 10, BinarySI), "6Ki", ""),
        (
            Quantity::from_int(1001 << 30, BinarySI),
            "1001Gi",
            "1025024Mi",
        ),
        (Quantity::from_int(1 << 40, BinarySI), "1Ti", "1024Gi"),
        (Quantity::from_int(5, BinarySI), "5", "5000m"),
        (build_quantity_milli(500, BinarySI), "500m", "0.5"),
        (Quantity::from_int(1_000_000_000, DecimalSI), "1G", "1000M"),
        (parse("1000M"), "1G", "0.001T"),
        (parse("1000000k"), "1G", ""),
        (parse("1000000000"), "1G", ""),
        (Quantity::from_milli(1), "1m", "1000u"),
        (Quantity::from_milli(80), "80m", ""),
        (Quantity::from_milli(1080), "1080m", "1.08"),
        (parse("1.08"), "1080m", "1080000000n"),
        (parse("1.0800"), "1080m", ""),
        (parse("300M"), "300M", ""),
        (parse("1T"), "1T", ""),
        // DecimalSI has no suffix beyond "E": exponent notation instead of dropping it.
        (parse("1E"), "1E", ""),
        (parse("1000E"), "1e21", "1000E"),
        (parse("5000E"), "5e21", "5000E"),
        (parse("1000000E"), "1e24", "1000000E"),
        (parse("1234567M"), "1234567M", ""),
        (build_quantity_milli(1_234_567, BinarySI), "1234567m", ""),
        (parse("3k"), "3k", ""),
        (Quantity::from_int(1025, BinarySI), "1025", ""),
        (Quantity::from_int(0, DecimalSI), "0", ""),
        (Quantity::from_int(0, BinarySI), "0", ""),
        (
            Quantity::from_int(1_000_000_000, DecimalExponent),
            "1e9",
            ".001e12",
        ),
        (build_quantity_milli(1, DecimalExponent), "1e-3", "0.001e0"),
        (parse("1e-9"), "1e-9", "1000e-12"),
        (build_quantity_milli(80, DecimalExponent), "80e-3", ""),
        (
            Quantity::from_int(300_000_000, DecimalExponent),
            "300e6",
            "",
        ),
        (
            Quantity::from_int(1_000_000_000_000, DecimalExponent),
            "1e12",
            "",
        ),
        (Quantity::from_int(1000, DecimalExponent), "1e3", ""),
        (Quantity::from_int(3000, DecimalExponent), "3e3", ""),
        (Quantity::from_int(3000, DecimalSI), "3k", ""),
        (Quantity::from_int(0, DecimalExponent), "0", "00"),
        (parse("1n"), "1n", ""),
        (parse("80n"), "80n", ""),
        (parse("1080n"), "1080n", ""),
        (parse("0.00000108"), "1080n", ""),
        (parse("1.08u"), "1080n", ""),
        (parse("1u"), "1u", ""),
        (parse("80u"), "80u", ""),
        (parse("1080u"), "1080u", ""),
    ];
    for (q, expect, alternate) in table {
        assert_eq!(q.to_string(), *expect, "{q:?}");
        let reparsed = parse(expect);
        assert_eq!(reparsed, *q, "{expect} round trip");
        assert_eq!(reparsed.to_string(), *expect, "{expect} reprinted");
        if !alternate.is_empty() {
            assert_eq!(
                parse(alternate).to_string(),
                *expect,
                "alternate {alternate}"
            );
        }
        if !q.is_zero() {
            let negated = parse(&format!("-{expect}"));
            assert_eq!(negated.to_string(), format!("-{expect}"));
        }
    }
}

/// Upstream `TestQuantityParseEmit`.
#[test]
fn upstream_parse_emit() {
    let table = [
        ("1Ki", "1Ki"),
        ("1Mi", "1Mi"),
        ("1Gi", "1Gi"),
        ("1024Mi", "1Gi"),
        ("1000M", "1G"),
        (".001Ki", "1024m"),
        (".000001Ki", "1024u"),
        (".000000001Ki", "1024n"),
        (".000000000001Ki", "2n"),
    ];
    for (input, expect) in table {
        assert_eq!(parse(input).to_string(), expect, "{input}");
        assert_eq!(
            parse(&format!("-{input}")).to_string(),
            format!("-{expect}"),
            "-{input}"
        );
    }
}

/// Upstream `TestMilliNewSet`.
#[test]
fn upstream_milli_new() {
    let table = [
        (1, DecimalSI, "1m", true),
        (1000, DecimalSI, "1", true),
        (1_234_000, DecimalSI, "1234", true),
        (1024, BinarySI, "1024m", false), // format changes
        (1_000_000, DecimalExponent, "1e3", true),
        (1024 * 1024, BinarySI, "1048576m", false), // format changes
    ];
    for (milli, format, expect, exact) in table {
        let q = build_quantity_milli(milli, format);
        assert_eq!(q.to_string(), expect, "{milli} {format:?}");
        assert_eq!(q.format(), format);
        if exact {
            assert_eq!(parse(expect).milli_value(), milli);
        }
    }
}

/// Upstream `TestNewSet`.
#[test]
fn upstream_new() {
    let table = [
        (1, DecimalSI, "1"),
        (1000, DecimalSI, "1k"),
        (1_234_000, DecimalSI, "1234k"),
        (1024, BinarySI, "1Ki"),
        (1_000_000, DecimalExponent, "1e6"),
        (1024 * 1024, BinarySI, "1Mi"),
    ];
    for (units, format, expect) in table {
        let q = Quantity::from_int(units, format);
        assert_eq!(q.to_string(), expect);
        assert_eq!(parse(expect).value(), units);
    }
}

/// Upstream `TestNewScaledSet` / `TestScaledValue`.
#[test]
fn upstream_scaled_value() {
    for (from, to, expected) in [
        (-9, -9, 1),
        (-9, -6, 1),
        (-9, -3, 1),
        (-9, 0, 1),
        (-6, -9, 1000),
        (-6, -6, 1),
        (-6, -3, 1),
        (-6, 0, 1),
        (-3, -9, 1_000_000),
        (-3, -6, 1000),
        (-3, -3, 1),
        (-3, 0, 1),
        (0, -9, 1_000_000_000),
        (0, -6, 1_000_000),
        (0, -3, 1000),
        (0, 0, 1),
        (2, -2, 10_000),
    ] {
        let q = parse(&format!("1e{from}"));
        assert_eq!(q.scaled_value(to), expected, "1e{from} at {to}");
    }
}

/// Upstream `TestNegativeValueRoundsAwayFromZero`.
#[test]
fn upstream_negative_rounds_away_from_zero() {
    let table = [
        ("-.484785E-7466", -1, -1),
        (".484785E-7466", 1, 1),
        ("-.484785E-1", -1, -49),
        (".484785E-1", 1, 49),
        ("-0.0005", -1, -1),
        ("0.0005", 1, 1),
        ("-1500m", -2, -1500),
        ("1500m", 2, 1500),
        // exact value is +/-10200547328.1073741824
        ("-9.5000000001Gi", -10_200_547_329, -10_200_547_328_108),
        ("9.5000000001Gi", 10_200_547_329, 10_200_547_328_108),
        ("-1", -1, -1000),
        ("1", 1, 1000),
        ("0", 0, 0),
    ];
    for (input, value, milli) in table {
        let q = parse(input);
        assert_eq!(q.value(), value, "{input} Value()");
        assert_eq!(q.milli_value(), milli, "{input} MilliValue()");
    }
}

/// Upstream `TestQuantityCmp` and friends.
#[test]
fn upstream_cmp() {
    use core::cmp::Ordering::{Equal, Greater, Less};
    let table = [
        ("0", "0", Equal),
        ("100m", "50m", Greater),
        ("50m", "100m", Less),
        ("10000T", "100Gi", Greater),
        ("1Ki", "1024", Equal),
        ("-1Ki", "-1023", Less),
        ("0.5", "500m", Equal),
        ("-0.5", "0", Less),
        ("1e-9", "0", Greater),
        ("9223372036854775807", "8Ei", Equal), // 8Ei is capped to 2^63 - 1
        ("1e19", "9Ei", Greater),
        (
            "123456789012345678901234567890",
            "123456789012345678901234567891",
            Less,
        ),
    ];
    for (a, b, ord) in table {
        assert_eq!(parse(a).cmp(&parse(b)), ord, "{a} vs {b}");
        assert_eq!(parse(b).cmp(&parse(a)), ord.reverse(), "{b} vs {a}");
        assert_eq!(parse(a) == parse(b), ord == Equal);
    }
}

/// Upstream `TestJSONWhitespace` (`UnmarshalJSON` trims before `ParseQuantity`).
#[test]
fn surrounding_blanks_are_trimmed() {
    for (input, expect) in [
        (" 1", "1"),
        ("1 ", "1"),
        ("1", "1"),
        ("10", "10"),
        ("-1", "-1"),
        (" -1", "-1"),
        ("\t 250m\r\n", "250m"),
        ("\x0B1Ki\x0C", "1Ki"),
    ] {
        assert_eq!(parse(input).to_string(), expect, "{input:?}");
    }
    assert_eq!(parse(" 1 ").milli_value(), 1000);
}

#[test]
fn engine_milli_values() {
    let table: &[(&str, i64)] = &[
        ("250m", 250),
        ("1.5", 1500),
        ("2Gi", 2_147_483_648_000),
        ("1e3", 1_000_000),
        ("0.0005", 1),
        ("-0.0005", -1),
        ("0.0015", 2),
        ("-0.0015", -2),
        ("1n", 1),
        ("-1n", -1),
        ("100000000000000000000", i64::MAX),
        ("-100000000000000000000", i64::MIN),
        ("-1e30", i64::MIN),
        ("1e30", i64::MAX),
        ("9223372036854775807m", i64::MAX),
        ("-9223372036854775808m", i64::MIN),
        ("-9223372036854775809m", i64::MIN),
        ("9223372036854775.807", i64::MAX),
        ("9223372036854775.8071", i64::MAX),
        ("-9223372036854775.808", i64::MIN),
        ("-9223372036854775.8081", i64::MIN),
        ("8Ei", i64::MAX),
        ("1e2147483647", i64::MAX),
        ("-1e-2147483647", -1),
        ("0", 0),
        ("-0", 0),
    ];
    for &(input, milli) in table {
        assert_eq!(parse(input).milli_value(), milli, "{input}");
    }
}

#[test]
fn engine_values_and_nanos() {
    let table: &[(&str, i64, i128)] = &[
        ("250m", 1, 250_000_000),
        ("-250m", -1, -250_000_000),
        ("1.5", 2, 1_500_000_000),
        ("2Gi", 2_147_483_648, 2_147_483_648_000_000_000),
        ("0.0000000001", 1, 1),
        ("-0.0000000001", -1, -1),
        ("9Ei", i64::MAX, 9_223_372_036_854_775_807_000_000_000),
        ("-9Ei", -i64::MAX, -9_223_372_036_854_775_807_000_000_000),
        ("1e100", i64::MAX, i128::MAX),
        ("-1e100", i64::MIN, i128::MIN),
        (
            "9223372036854775807",
            i64::MAX,
            9_223_372_036_854_775_807_000_000_000,
        ),
        (
            "9223372036854775808",
            i64::MAX,
            9_223_372_036_854_775_808_000_000_000,
        ),
        (
            "-9223372036854775808",
            i64::MIN,
            -9_223_372_036_854_775_808_000_000_000,
        ),
        (
            "-9223372036854775807.5",
            i64::MIN,
            -9_223_372_036_854_775_807_500_000_000,
        ),
        (
            "9223372036854775806.5",
            i64::MAX,
            9_223_372_036_854_775_806_500_000_000,
        ),
    ];
    for &(input, value, nanos) in table {
        let q = parse(input);
        assert_eq!(q.value(), value, "{input} value");
        assert_eq!(q.nano_value(), nanos, "{input} nanos");
    }
}

#[test]
fn canonical_parts_examples() {
    let table: &[(&str, (i128, i32))] = &[
        ("0.35", (350, -3)),
        ("0.1", (100, -3)),
        ("1.5", (1500, -3)),
        ("2", (2, 0)),
        ("10", (10, 0)),
        ("1000", (1, 3)),
        ("1e3", (1, 3)),
        ("0.0001", (100, -6)),
        ("2Ki", (2048, 0)),
        ("0", (0, 0)),
        ("0Ki", (0, 0)),
        ("-0.05", (-50, -3)),
        ("1.1Ki", (1_126_400, -3)),
        ("0.5Ki", (512, 0)),
        ("1536Ki", (1_572_864, 0)),
        ("1023", (1023, 0)),
        ("12e+2", (1200, 0)),
        ("1.5e-9", (2, -9)),
        ("1.5e-10", (1, -9)),
        ("3.001n", (4, -9)),
        ("100000000000000000000", (100, 18)),
        ("9Ei", (9_223_372_036_854_775_807, 0)),
    ];
    for &(input, parts) in table {
        assert_eq!(parse(input).canonical_parts(), parts, "{input}");
    }
    // The canonical text parses back to the same parts.
    for &(input, _, _) in parse_table(0) {
        let q = parse(input);
        let back = parse(&q.to_string());
        assert_eq!(back, q, "{input}");
        assert_eq!(back.canonical_parts(), q.canonical_parts(), "{input}");
    }
}

#[test]
fn build_quantity_milli_examples() {
    let table = [
        (1500, DecimalSI, "1500m"),
        (1000, DecimalSI, "1"),
        (524_288_000_000, BinarySI, "500Mi"),
        (1000, BinarySI, "1"),
        (1500, BinarySI, "1500m"),
        (1_023_000, BinarySI, "1023"),
        (1_024_000, BinarySI, "1Ki"),
        (-1_024_000, BinarySI, "-1Ki"),
        (1_536_000, BinarySI, "1536"),
        (1_024_500, BinarySI, "1024500m"),
        (0, BinarySI, "0"),
        (-1500, DecimalSI, "-1500m"),
        (1_000_000_000, DecimalSI, "1M"),
        (i64::MAX, DecimalSI, "9223372036854775807m"),
        (i64::MIN, DecimalSI, "-9223372036854775808m"),
        (i64::MIN, BinarySI, "-9223372036854775808m"),
        (1500, DecimalExponent, "1500e-3"),
    ];
    for (milli, format, expect) in table {
        let q = build_quantity_milli(milli, format);
        assert_eq!(q.to_string(), expect, "{milli} {format:?}");
        assert_eq!(q.milli_value(), milli, "{milli} {format:?} milli");
    }
    assert_eq!(
        Quantity::from_milli(250),
        build_quantity_milli(250, DecimalSI)
    );
    assert_eq!(Quantity::from_milli(250).format(), DecimalSI);
    assert_eq!(Quantity::from_int(i64::MIN, BinarySI).to_string(), "-8Ei");
    assert_eq!(
        Quantity::from_int(i64::MAX, BinarySI).to_string(),
        "9223372036854775807"
    );
}

/// Inputs whose upstream `String()` is the cached input text; we print the canonical form.
#[test]
fn noncanonical_spellings_print_canonically() {
    for (input, expect) in [
        ("+1", "1"),
        ("001", "1"),
        ("1E3", "1e3"),
        ("1e+3", "1e3"),
        ("1.100", "1100m"),
        ("1.", "1"),
        ("1.G", "1G"),
        ("+1Ki", "1Ki"),
        ("-0", "0"),
        ("00.500", "500m"),
    ] {
        assert_eq!(parse(input).to_string(), expect, "{input}");
    }
}

#[test]
fn long_and_extreme_inputs() {
    // Rounded up to nano however many digits follow (Miri, which interprets each digit
    // thousands of times slower, takes a tenth as many).
    let digits = if cfg!(miri) { 500 } else { 5000 };
    let long_fraction = format!("1.{}1", "0".repeat(digits));
    assert_eq!(parse(&long_fraction).nano_value(), 1_000_000_001);
    let long_zeros = format!("0.{}", "0".repeat(digits));
    assert!(parse(&long_zeros).is_zero());
    let long_int = format!("1{}", "0".repeat(200));
    assert_eq!(parse(&long_int).to_string(), "100e198");
    let long_binary = format!("0.{}1Ki", "0".repeat(digits * 3 / 5));
    assert_eq!(parse(&long_binary).to_string(), "1n");
    assert_eq!(parse(&long_binary).format(), DecimalSI);
    let many_binary_digits = format!("1{}Ki", "0".repeat(30));
    assert_eq!(parse(&many_binary_digits).value(), i64::MAX);
    // More than 36 significant digits: rounded away from zero to 36.
    let q = parse("-1.000000000000000000000000000000000000001e40");
    assert_eq!(q.canonical_parts(), (-(10i128.pow(37) + 100), 3));
    // Huge and tiny exponents.
    assert_eq!(parse("1e2147483647").to_string(), "10e2147483646");
    assert_eq!(parse("1e-2147483647").to_string(), "1e-9");
    assert_eq!(parse("0e2147483647").to_string(), "0");
    assert_eq!(parse(".1e-2147483647").nano_value(), 1);
    assert_eq!(
        Quantity::parse("100e2147483646"),
        Err(QuantityError::ExponentOutOfRange)
    );
}

#[test]
fn accessors() {
    let q = parse("-2.5Gi");
    assert_eq!(q.signum(), -1);
    assert!(!q.is_zero());
    assert_eq!(q.format(), BinarySI);
    assert_eq!(q.to_string(), "-2560Mi");
    assert_eq!(parse("0m").signum(), 0);
    assert!(parse("0m").is_zero());
    assert_eq!(parse("3m").signum(), 1);
    assert_eq!(Format::DecimalSI.as_str(), "DecimalSI");
    assert_eq!(Format::BinarySI.as_str(), "BinarySI");
    assert_eq!(Format::DecimalExponent.as_str(), "DecimalExponent");
}
