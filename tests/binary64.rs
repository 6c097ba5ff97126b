//! Property tests: the integer-only `F64` against the host's hardware `f64`, bit for bit.
//!
//! Every operation is checked over a million operands per test (a hundred thousand in debug
//! builds; `HPA_BINARY64_CASES=N` sets another count, and CI runs ten million) drawn from a
//! deterministic PRNG: uniformly random bit patterns and "nice" values
//! (small integers, integers near 2^53, ratios, powers of two, subnormals, signed zeros,
//! infinities, NaN, values near the i32/i64 limits, short decimals). NaN results are
//! compared by NaN-ness only.
#![allow(clippy::excessive_precision)] // literals such as 9.223372036854775807e18, as quoted by the spec

use hpa::quantity::{Format, Quantity};
use hpa::Tolerance;
use hpa::F64;
use std::time::Instant;
use testkit::Rng;

/// Iterations per property test: `HPA_BINARY64_CASES`, or a count that keeps the README's
/// test command quick (a million takes about two seconds a test in the `quick` profile; Miri,
/// which interprets each operation thousands of times slower, runs a hundred).
fn cases() -> usize {
    let default = if cfg!(miri) {
        100
    } else if cfg!(debug_assertions) {
        100_000
    } else {
        1_000_000
    };
    match std::env::var("HPA_BINARY64_CASES") {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("HPA_BINARY64_CASES={v:?} is not a count")),
        Err(_) => default,
    }
}

/// The floating-point draws of these tests, on the shared generator.
trait Operands {
    fn u64_any_width(&mut self) -> u64;
    fn nudge(&mut self, x: f64) -> f64;
    fn nice(&mut self) -> f64;
    fn operand(&mut self) -> f64;
    fn pair(&mut self) -> (f64, f64);
}

impl Operands for Rng {
    /// A u64 with a random number of significant bits.
    fn u64_any_width(&mut self) -> u64 {
        let s = self.below(64) as u32;
        self.next_u64() >> s
    }

    /// Moves `x` by a few ulps (through the bit pattern, so it may cross zero/infinity
    /// boundaries into neighbouring classes, which is fine).
    fn nudge(&mut self, x: f64) -> f64 {
        let k = self.range(-3, 3);
        f64::from_bits(x.to_bits().wrapping_add(k as u64))
    }

    /// A value from one of many interesting families.
    fn nice(&mut self) -> f64 {
        let sign = if self.bool() { -1.0 } else { 1.0 };
        let v = match self.below(14) {
            0 => self.range(-1000, 1000) as f64,
            1 => (self.range(-1000, 1000) + (1i64 << 53)) as f64,
            2 => {
                let a = self.range(-100_000, 100_000) as f64;
                let b = self.range(1, 1000) as f64;
                a / b
            }
            3 => {
                // Near a power of two.
                let e = self.range(1, 2046) as u64;
                let x = f64::from_bits(e << 52);
                self.nudge(x)
            }
            4 => {
                // Subnormal (or tiny).
                let frac = self.next_u64() >> (12 + self.below(52));
                f64::from_bits(frac)
            }
            5 => match self.below(9) {
                0 => 0.0,
                1 => -0.0,
                2 => f64::INFINITY,
                3 => f64::NEG_INFINITY,
                4 => f64::NAN,
                5 => f64::MAX,
                6 => f64::MIN_POSITIVE,
                7 => f64::from_bits(1),
                _ => 1.0,
            },
            6 => {
                let base = match self.below(10) {
                    0 => 2147483647.5,
                    1 => -2147483648.9,
                    2 => 9.223372036854775807e18,
                    3 => -9.223372036854775807e18,
                    4 => 2147483647.0,
                    5 => 2147483648.0,
                    6 => -2147483649.0,
                    7 => 4294967296.0,
                    8 => 1.8446744073709552e19,
                    _ => 9.007199254740992e15,
                };
                self.nudge(base)
            }
            7 => {
                // A short decimal such as 0.18, 1.1, 12.5, 350e-3.
                let m = self.below(100_000);
                let e = self.range(-8, 4);
                format!("{m}e{e}").parse::<f64>().unwrap_or(0.0)
            }
            8 => {
                // Percentages as the HPA uses them.
                let p = self.range(0, 1000) as f64;
                1.0 + p / 100.0
            }
            9 => self.range(i64::MIN, i64::MAX) as f64,
            10 => self.range(-(1 << 40), 1 << 40) as f64 / 1024.0,
            11 => {
                // Random exponent, random fraction.
                let e = self.range(0, 2047) as u64;
                f64::from_bits((e << 52) | (self.next_u64() >> 12))
            }
            12 => {
                let x = self.range(-100, 100) as f64 + 0.5;
                self.nudge(x)
            }
            _ => f64::from_bits(self.next_u64()),
        };
        sign * v
    }

    /// Random bits or a nice value.
    fn operand(&mut self) -> f64 {
        if self.bool() {
            f64::from_bits(self.next_u64())
        } else {
            self.nice()
        }
    }

    /// A pair of operands, often related (cancellation, exponent gaps).
    fn pair(&mut self) -> (f64, f64) {
        let x = self.operand();
        let y = match self.below(8) {
            0 => self.nudge(x),
            1 => -self.nudge(x),
            2 => {
                // Same sign or opposite, exponent gap 0..=130.
                let gap = self.below(131);
                let bits = x.to_bits();
                let e = (bits >> 52) & 0x7FF;
                let ne = e.saturating_sub(gap);
                let frac = if self.bool() {
                    bits & ((1 << 52) - 1)
                } else {
                    self.next_u64() >> 12
                };
                let s = if self.bool() { 1 << 63 } else { 0 };
                f64::from_bits(s | (ne << 52) | frac)
            }
            3 => self.nice(),
            4 => f64::from_bits(self.next_u64()),
            _ => self.operand(),
        };
        if self.bool() {
            (x, y)
        } else {
            (y, x)
        }
    }
}

fn f(x: f64) -> F64 {
    F64::from_bits(x.to_bits())
}

/// Asserts `got` is the same binary64 as `want` (any NaN matches any NaN).
#[track_caller]
fn same(got: F64, want: f64, what: &dyn Fn() -> String) {
    if want.is_nan() {
        assert!(
            got.is_nan(),
            "{}: got {:#018x}, want NaN",
            what(),
            got.to_bits()
        );
    } else {
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "{}: got {:e} ({:#018x}), want {:e} ({:#018x})",
            what(),
            f64::from_bits(got.to_bits()),
            got.to_bits(),
            want,
            want.to_bits()
        );
    }
}

fn report(name: &str, count: usize, start: Instant) {
    println!(
        "{name}: {count} operands checked in {:.2?}",
        start.elapsed()
    );
}

#[test]
fn arithmetic_matches_host() {
    let start = Instant::now();
    let mut rng = Rng::new(1);
    let mut count = 0usize;
    for _ in 0..cases() {
        let (x, y) = rng.pair();
        let (a, b) = (f(x), f(y));
        let ctx = || {
            format!(
                "{x:e} ({:#018x}), {y:e} ({:#018x})",
                x.to_bits(),
                y.to_bits()
            )
        };
        same(a.add(b), x + y, &|| format!("add {}", ctx()));
        same(a.sub(b), x - y, &|| format!("sub {}", ctx()));
        same(a.mul(b), x * y, &|| format!("mul {}", ctx()));
        same(a.div(b), x / y, &|| format!("div {}", ctx()));
        count += 1;
    }
    report("add/sub/mul/div (pairs, 4 ops each)", count, start);
}

#[test]
fn comparisons_match_host() {
    let start = Instant::now();
    let mut rng = Rng::new(2);
    let mut count = 0usize;
    for _ in 0..cases() {
        let (x, y) = if rng.below(4) == 0 {
            let x = rng.operand();
            (x, x)
        } else {
            rng.pair()
        };
        let (a, b) = (f(x), f(y));
        let ctx = || {
            format!(
                "{x:e} ({:#018x}) vs {y:e} ({:#018x})",
                x.to_bits(),
                y.to_bits()
            )
        };
        assert_eq!(a.lt(b), x < y, "lt {}", ctx());
        assert_eq!(a.le(b), x <= y, "le {}", ctx());
        assert_eq!(a.gt(b), x > y, "gt {}", ctx());
        assert_eq!(a.ge(b), x >= y, "ge {}", ctx());
        assert_eq!(a.eq_value(b), x == y, "eq {}", ctx());
        let want = go_max(x, y);
        same(a.max(b), want, &|| format!("max {}", ctx()));
        if !want.is_nan() && want == 0.0 {
            // Signed zero must match exactly (covered by `same`, which compares bits).
            assert_eq!(a.max(b).to_bits(), want.to_bits());
        }
        count += 1;
    }
    report("lt/le/gt/ge/eq_value/max (pairs)", count, start);
}

/// Go's `math.Max`, ported literally.
fn go_max(x: f64, y: f64) -> f64 {
    if x == f64::INFINITY || y == f64::INFINITY {
        return f64::INFINITY;
    }
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == 0.0 && x == y {
        if x.is_sign_negative() {
            return y;
        }
        return x;
    }
    if x > y {
        x
    } else {
        y
    }
}

#[test]
fn rounding_and_int_conversions_match_host() {
    let start = Instant::now();
    let mut rng = Rng::new(3);
    let mut count = 0usize;
    for _ in 0..cases() {
        let x = rng.operand();
        let a = f(x);
        let ctx = || format!("{x:e} ({:#018x})", x.to_bits());
        same(a.ceil(), x.ceil(), &|| format!("ceil {}", ctx()));
        same(a.trunc(), x.trunc(), &|| format!("trunc {}", ctx()));
        assert_eq!(a.to_i64_saturating(), x as i64, "to_i64 {}", ctx());
        assert_eq!(a.to_i32_saturating(), x as i32, "to_i32 {}", ctx());
        assert_eq!(a.is_nan(), x.is_nan(), "is_nan {}", ctx());
        assert_eq!(a.is_infinite(), x.is_infinite(), "is_infinite {}", ctx());
        count += 1;
    }
    report("ceil/trunc/to_i64/to_i32/is_nan/is_infinite", count, start);
}

#[test]
fn int_to_float_matches_host() {
    let start = Instant::now();
    let mut rng = Rng::new(4);
    let mut count = 0usize;
    for i in 0..cases() {
        let u = match i % 4 {
            0 => rng.next_u64(),
            1 => rng.u64_any_width(),
            2 => (1u64 << (53 + rng.below(11))).wrapping_add(rng.range(-4, 4) as u64),
            _ => u64::MAX - rng.below(5000),
        };
        let s = u as i64;
        let s2 = if rng.bool() { s } else { s.wrapping_neg() };
        same(F64::from_u64(u), u as f64, &|| format!("from_u64 {u}"));
        same(F64::from_i64(s2), s2 as f64, &|| format!("from_i64 {s2}"));
        let w = ((u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64())) >> rng.below(128);
        let w = if rng.bool() {
            w as i128
        } else {
            (w as i128).wrapping_neg()
        };
        same(F64::from_i128(w), w as f64, &|| format!("from_i128 {w}"));
        let v = w.unsigned_abs();
        same(F64::from_u128(v), v as f64, &|| format!("from_u128 {v}"));
        count += 1;
    }
    for s in [i64::MIN, i64::MAX, 0, -1, 1, (1 << 53) + 1, -(1 << 53) - 1] {
        same(F64::from_i64(s), s as f64, &|| format!("from_i64 {s}"));
    }
    for w in [i128::MIN, i128::MAX, 0, -1] {
        same(F64::from_i128(w), w as f64, &|| format!("from_i128 {w}"));
    }
    for v in [
        u128::MAX,
        u128::MAX - 1,
        0,
        1,
        1 << 127,
        (1 << 64) - 1,
        1 << 64,
    ] {
        same(F64::from_u128(v), v as f64, &|| format!("from_u128 {v}"));
    }
    report(
        "from_u64/from_i64/from_i128/from_u128 (4 conversions each)",
        count,
        start,
    );
}

/// `1e0 ..= 1e31` as Rust literals.
const POW10_LITERALS: [f64; 32] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31,
];
/// Go's `pow10postab32` as Rust literals.
const POSTAB32_LITERALS: [f64; 10] = [
    1e00, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288,
];
/// Go's `pow10negtab32` as Rust literals.
const NEGTAB32_LITERALS: [f64; 11] = [
    1e-00, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320,
];

/// Go's `math.Pow10`, ported literally onto host floats.
fn host_go_pow10(n: i32) -> f64 {
    if (0..=308).contains(&n) {
        return POSTAB32_LITERALS[(n as usize) / 32] * POW10_LITERALS[(n as usize) % 32];
    }
    if (-323..=0).contains(&n) {
        let m = (-n) as usize;
        return NEGTAB32_LITERALS[m / 32] / POW10_LITERALS[m % 32];
    }
    if n > 0 {
        return f64::INFINITY;
    }
    0.0
}

#[test]
fn pow10_tables_and_go_pow10() {
    let start = Instant::now();
    let mut count = 0usize;
    // The stored tables, observed through go_pow10 (entries times/over 1e0 exactly).
    for (i, lit) in POW10_LITERALS.iter().enumerate() {
        assert_eq!(
            F64::go_pow10(i as i32).to_bits(),
            lit.to_bits(),
            "pow10tab[{i}]"
        );
        count += 1;
    }
    for (i, lit) in POSTAB32_LITERALS.iter().enumerate() {
        assert_eq!(
            F64::go_pow10(32 * i as i32).to_bits(),
            lit.to_bits(),
            "postab[{i}]"
        );
        count += 1;
    }
    for (i, lit) in NEGTAB32_LITERALS.iter().enumerate() {
        assert_eq!(
            F64::go_pow10(-32 * i as i32).to_bits(),
            lit.to_bits(),
            "negtab[{i}]"
        );
        count += 1;
    }
    // Miri: every 7th exponent (the clamps' edges are in the list after them).
    let stride = if cfg!(miri) { 7 } else { 1 };
    let exponents = (-400..400).step_by(stride);
    for n in exponents.chain([i32::MIN, i32::MIN + 1, i32::MAX, 1000, -1000, 309, -324]) {
        same(F64::go_pow10(n), host_go_pow10(n), &|| {
            format!("go_pow10({n})")
        });
        count += 1;
    }
    // Go's Pow10 is not always the nearest binary64 to 10^n; make sure we reproduce that.
    let differs = (-323..=308)
        .step_by(stride)
        .filter(|&n| host_go_pow10(n) != format!("1e{n}").parse::<f64>().unwrap())
        .count();
    println!("go_pow10 differs from the nearest binary64 for {differs} exponents");
    report("go_pow10 exponents", count, start);
}

#[test]
fn go_approximate_float64_matches_host() {
    let start = Instant::now();
    let mut rng = Rng::new(5);
    let mut count = 0usize;
    for i in 0..cases() {
        let m = match i % 3 {
            0 => rng.range(-100_000, 100_000),
            1 => rng.u64_any_width() as i64,
            _ => rng.next_u64() as i64,
        };
        let e = match rng.below(4) {
            0 => rng.range(-9, 9) as i32,
            1 => rng.range(-400, 400) as i32,
            2 => rng.range(-30, 30) as i32,
            _ => rng.next_u64() as i32,
        };
        let want = if e == 0 {
            m as f64
        } else {
            (m as f64) * host_go_pow10(e)
        };
        same(F64::go_approximate_float64(m, e), want, &|| {
            format!("approx({m}, {e})")
        });
        count += 1;
    }
    report("go_approximate_float64", count, start);
}

/// `Quantity.AsApproximateFloat64()` of a quantity's canonical form as Go parses it back,
/// ported onto host floats: an `int64Amount{m, e}` when the canonical mantissa has at most 18
/// digits and the exponent is nano or coarser, else an `inf.Dec` of the value × 10^9 rounded
/// up, read at scale 9. Past 2^128 nano units (a tolerance above 3.4e29) the engine saturates
/// the count at 2^128, documented: no ratio comes near such a tolerance.
fn host_tolerance(q: &Quantity) -> f64 {
    let (m, e) = q.canonical_parts();
    if m < 10i128.pow(18) && e >= -9 {
        let base = m as f64;
        return if e == 0 {
            base
        } else {
            base * host_go_pow10(e)
        };
    }
    let (mantissa, exponent, _) = q.parts();
    let mantissa = mantissa as u128;
    let nanos = match u32::try_from(exponent + 9) {
        Ok(k) => 10u128.checked_pow(k).and_then(|p| mantissa.checked_mul(p)),
        Err(_) => Some(match 10u128.checked_pow((-9 - exponent) as u32) {
            Some(d) => mantissa.div_ceil(d),
            None => 1,
        }),
    };
    // 2^128 exactly: `powi` promises no precision (Miri perturbs its result's last bits).
    let two_pow_128 = f64::from_bits((1023 + 128) << 52);
    nanos.map_or(two_pow_128, |n| n as f64) * host_go_pow10(-9)
}

#[test]
fn tolerance_from_quantity_matches_go() {
    let start = Instant::now();
    let mut rng = Rng::new(6);
    let mut count = 0usize;
    for i in 0..cases() / 10 {
        // Mantissas of every width up to 38 digits (both sides of Go's 18-digit fast path),
        // exponents around nano and far from it.
        let digits = match i % 4 {
            0 => rng.range(1, 4),
            1 => rng.range(16, 21),
            _ => rng.range(1, 38),
        } as u32;
        let high =
            ((u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64())) % 10u128.pow(digits);
        let mantissa = high.max(1) as i128;
        let exponent = match rng.below(3) {
            0 => rng.range(-14, 6),
            1 => rng.range(-40, 40),
            _ => rng.range(-3000, 3000),
        } as i32;
        let format = if rng.bool() {
            Format::DecimalSI
        } else {
            Format::DecimalExponent
        };
        let q = Quantity::from_parts(mantissa, exponent, format);
        let t = Tolerance::from_quantity(&q).expect("a positive quantity");
        same(t.binary64(), host_tolerance(&q), &|| format!("{q:?}"));
        count += 1;
    }
    for text in [
        "0.35",
        "350m",
        "0",
        "1e-12",
        "1n",
        "123456789012345678901234m",
        "999999999999999999",
        "1000000000000000000",
    ] {
        let q = Quantity::parse(text).unwrap();
        let t = Tolerance::from_quantity(&q).expect("a positive quantity");
        same(t.binary64(), host_tolerance(&q), &|| text.to_string());
    }
    assert_eq!(Tolerance::from_quantity(&Quantity::from_milli(-1)), None);
    report("Tolerance::from_quantity", count, start);
}

/// A random exponent for `from_decimal`.
fn dec_exponent(rng: &mut Rng) -> i32 {
    match rng.below(8) {
        0 => rng.range(-25, 25) as i32,
        1 => rng.range(-350, 330) as i32,
        2 => rng.range(-345, -300) as i32,
        3 => rng.range(280, 312) as i32,
        4 => rng.next_u64() as i32,
        5 => rng.range(-2000, 2000) as i32,
        _ => rng.range(-60, 60) as i32,
    }
}

fn check_decimal(negative: bool, m: u64, e: i32) {
    let text = format!("{}{m}e{e}", if negative { "-" } else { "" });
    let want: f64 = text.parse().unwrap();
    same(F64::from_decimal(negative, m, e), want, &|| {
        format!("from_decimal {text}")
    });
}

#[test]
fn from_decimal_matches_parse() {
    let start = Instant::now();
    let mut rng = Rng::new(6);
    let mut count = 0usize;
    // Under Miri a conversion of big numbers takes seconds: each kind of operand once, and
    // each edge below with one sign (alternately) instead of both.
    let n = if cfg!(miri) { 6 } else { cases() / 2 };
    for i in 0..n {
        let negative = rng.bool();
        let (m, e) = match i % 6 {
            0 => (rng.u64_any_width(), dec_exponent(&mut rng)),
            1 => (rng.next_u64(), dec_exponent(&mut rng)),
            2 => (rng.below(1000), dec_exponent(&mut rng)),
            3 => {
                // A random double's shortest or 17-digit decimal form.
                let x = f64::from_bits(rng.next_u64() & !(1 << 63));
                if !x.is_finite() {
                    continue;
                }
                let s = if rng.bool() {
                    format!("{x:e}")
                } else {
                    format!("{x:.16e}")
                };
                let (digits, exp) = s.split_once('e').unwrap();
                let frac_len = digits.split_once('.').map_or(0, |(_, f)| f.len()) as i32;
                let m: u64 = digits.replace('.', "").parse().unwrap();
                let e: i32 = exp.parse::<i32>().unwrap() - frac_len;
                // Sometimes scale the digits by a power of ten (same value, other path).
                let k = rng.below(3) as u32;
                match m.checked_mul(10u64.pow(k)) {
                    Some(mk) => (mk, e - k as i32),
                    None => (m, e),
                }
            }
            4 => {
                // Exact ties: (odd o with 5^p × o of exactly 54 bits) × 2^j, scaled by 10^p,
                // optionally written with extra decimal zeros; plus neighbours.
                let p = rng.below(23) as u32;
                let five = 5u128.pow(p);
                let lo = (1u128 << 53).div_ceil(five);
                let hi = (1u128 << 54) / five;
                if lo >= hi {
                    continue;
                }
                let o = (lo + u128::from(rng.next_u64()) % (hi - lo)) | 1;
                if (o * five) >> 53 != 1 {
                    continue;
                }
                let max_j = 64 - (128 - o.leading_zeros());
                let j = rng.below(u64::from(max_j) + 1) as u32;
                let m = (o << j) as u64;
                let delta = rng.range(-1, 1);
                let m = m.wrapping_add(delta as u64);
                let mut e = p as i32;
                let mut m2 = m;
                for _ in 0..rng.below(4) {
                    match m2.checked_mul(10) {
                        Some(v) => {
                            m2 = v;
                            e -= 1;
                        }
                        None => break,
                    }
                }
                (m2, e)
            }
            _ => {
                // Near-overflow and near-underflow boundaries.
                let m = rng.u64_any_width();
                let digits = m.max(1).ilog10() as i32 + 1;
                let e = if rng.bool() {
                    308 - digits + rng.range(-2, 2) as i32
                } else {
                    -324 - digits + rng.range(-3, 20) as i32
                };
                (m, e)
            }
        };
        check_decimal(negative, m, e);
        count += 1;
    }
    for (i, (m, e)) in [
        (0, 0),
        (0, i32::MIN),
        (u64::MAX, i32::MAX),
        (u64::MAX, i32::MIN),
        (u64::MAX, 0),
        (u64::MAX, -343),
        (u64::MAX, -344),
        (1, -324),
        (3, -324),
        (24_703_282_292_062_328, -340),
        (24_703_282_292_062_327, -340),
        (17_976_931_348_623_157, 292),
        (17_976_931_348_623_158, 292),
        (17_976_931_348_623_159, 292),
        (9_007_199_254_740_993, 0),
        (9_007_199_254_740_995, 0),
        (1, 23),
        (1, -23),
        (18, -2),
        (11, -1),
    ]
    .into_iter()
    .enumerate()
    {
        for negative in [false, true] {
            if cfg!(miri) && negative != (i % 2 == 1) {
                continue;
            }
            check_decimal(negative, m, e);
            count += 1;
        }
    }
    report("from_decimal vs str::parse::<f64>", count, start);
}

/// The documented Go float64 quirks, against host literals.
#[test]
fn go_quirks() {
    let i = |v: i64| F64::from_i64(v);
    let dec = |m: u64, e: i32| F64::from_decimal(false, m, e);
    // 1.1 * 10 == 11 after rounding.
    assert_eq!(dec(11, -1).mul(i(10)).to_bits(), (1.1f64 * 10.0).to_bits());
    assert_eq!(dec(11, -1).mul(i(10)).to_bits(), 11.0f64.to_bits());
    // (1.0 + 10.0/100.0) * 10.0 == 11.0
    let v = F64::ONE.add(i(10).div(i(100))).mul(i(10));
    assert_eq!(v.to_bits(), 11.0f64.to_bits());
    // ceil(25.0 * (1.0 + 12.0/100.0)) == 29
    let v = i(25).mul(F64::ONE.add(i(12).div(i(100))));
    assert_eq!(v.to_bits(), 28.000000000000004f64.to_bits());
    assert_eq!(v.ceil().to_i32_saturating(), 29);
    // int32(10.0 * (1.0 - 80.0/100.0)) == 1
    let v = i(10).mul(F64::ONE.sub(i(80).div(i(100))));
    assert_eq!(v.to_bits(), 1.9999999999999996f64.to_bits());
    assert_eq!(v.to_i32_saturating(), 1);
    // ceil(28.0/100.0*25.0) == 8
    let v = i(28).div(i(100)).mul(i(25));
    assert_eq!(v.to_bits(), 7.000000000000001f64.to_bits());
    assert_eq!(v.ceil().to_i64_saturating(), 8);
    // 1.0 - 0.18 == 0.8200000000000001
    let v = F64::ONE.sub(dec(18, -2));
    assert_eq!(v.to_bits(), 0.8200000000000001f64.to_bits());
    // 350 * Pow10(-3) == 0.35000000000000003
    let v = F64::go_approximate_float64(350, -3);
    assert_eq!(v.to_bits(), 0.35000000000000003f64.to_bits());
    assert_ne!(v.to_bits(), 0.35f64.to_bits());
    // Constants.
    assert_eq!(F64::ZERO.to_bits(), 0.0f64.to_bits());
    assert_eq!(F64::ONE.to_bits(), 1.0f64.to_bits());
    assert_eq!(F64::INFINITY.to_bits(), f64::INFINITY.to_bits());
    assert_eq!(F64::NEG_INFINITY.to_bits(), f64::NEG_INFINITY.to_bits());
    assert!(f64::from_bits(F64::NAN.to_bits()).is_nan());
    println!("go_quirks: 7 documented expressions checked");
}
