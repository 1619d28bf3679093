//! Parsing of quantities with units: rates, durations, sizes and probabilities.
//!
//! Numbers are decimal (`10`, `0.5`, `.5`, `1e6`, `2.5e-3`) and are converted exactly: the
//! decimal mantissa is scaled by the unit in integer arithmetic and rounded half up, so
//! `"0.01ms"` is exactly 10 000 ns. Whitespace between the number and the unit is allowed.
//!
//! Every error message starts with the offending text in quotes and says what was expected, e.g.
//! `"-10Mbps" is not a valid rate: expected a positive rate like "10Mbps"`.

use super::echo;

/// Largest number of significant mantissa digits accepted (keeps every product within `u128`).
const MAX_DIGITS: usize = 24;

/// A decimal number `mantissa * 10^exp10`, with its sign.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    mantissa: u128,
    exp10: i32,
}

impl Decimal {
    fn is_zero(&self) -> bool {
        self.mantissa == 0
    }

    /// `|self| * factor`, rounded half up to an integer; `None` when it does not fit in `u64`.
    fn scaled(&self, factor: u128) -> Option<u64> {
        let product = self.mantissa.checked_mul(factor)?;
        let value = if self.exp10 >= 0 {
            let mut v = product;
            for _ in 0..self.exp10 {
                v = v.checked_mul(10)?;
            }
            v
        } else {
            let shift = (-self.exp10) as u32;
            match 10u128.checked_pow(shift) {
                // product < 10^36 < divisor: rounds to 0 (or 1 when >= half, impossible here).
                None => 0,
                Some(divisor) => {
                    let q = product / divisor;
                    let r = product % divisor;
                    if r * 2 >= divisor {
                        q + 1
                    } else {
                        q
                    }
                }
            }
        };
        u64::try_from(value).ok()
    }

    /// The closest `f64` to `|self| * 10^extra_exp10` (correctly rounded).
    fn to_f64(self, extra_exp10: i32) -> f64 {
        format!("{}e{}", self.mantissa, self.exp10 + extra_exp10).parse::<f64>().unwrap_or(f64::INFINITY)
    }
}

/// Splits `s` (already trimmed) into a leading decimal number and the rest (trimmed), the unit.
/// `None` when `s` does not start with a number.
fn split_number(s: &str) -> Option<(Decimal, &str)> {
    let bytes = s.as_bytes();
    let mut i = 0;
    let mut negative = false;
    if i < bytes.len() && (bytes[i] == b'+' || bytes[i] == b'-') {
        negative = bytes[i] == b'-';
        i += 1;
    }
    let mut digits = String::new();
    let mut frac_digits: i32 = 0;
    let mut seen_digit = false;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        digits.push(bytes[i] as char);
        seen_digit = true;
        i += 1;
    }
    if i < bytes.len() && bytes[i] == b'.' {
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            digits.push(bytes[i] as char);
            frac_digits += 1;
            seen_digit = true;
            i += 1;
        }
    }
    if !seen_digit {
        return None;
    }
    let mut exp: i32 = 0;
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        // Only an exponent when digits follow (so a unit starting with 'e' stays a unit).
        let mut j = i + 1;
        let mut exp_negative = false;
        if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
            exp_negative = bytes[j] == b'-';
            j += 1;
        }
        let start = j;
        while j < bytes.len() && bytes[j].is_ascii_digit() {
            j += 1;
        }
        if j > start {
            let e: i32 = s[start..j].parse().ok().filter(|e: &i32| *e <= 400)?;
            exp = if exp_negative { -e } else { e };
            i = j;
        }
    }
    // Normalise: strip leading zeros, move trailing zeros into the exponent.
    let trimmed = digits.trim_start_matches('0');
    let without_trailing = trimmed.trim_end_matches('0');
    let trailing = (trimmed.len() - without_trailing.len()) as i32;
    if without_trailing.len() > MAX_DIGITS {
        return None;
    }
    let mantissa: u128 = if without_trailing.is_empty() { 0 } else { without_trailing.parse().ok()? };
    let exp10 = if mantissa == 0 { 0 } else { exp - frac_digits + trailing };
    Some((Decimal { negative, mantissa, exp10 }, s[i..].trim_start()))
}

/// The longest duration a scenario may name: 10^6 s (11.6 days) in nanoseconds. Simulated time is
/// `u64` nanoseconds (584 years); with every input below this bound, the sums the simulator forms
/// (a start plus a delay plus backed-off timers, a duration plus a drain time) stay far from
/// wrapping, so no result is built from wrapped time.
pub const MAX_DURATION_NS: u64 = 1_000_000 * 1_000_000_000;

/// The largest size (1 PB): byte counts and sequence numbers built from sizes, times 8 bits and
/// 10^9 ns/s in the transmission-time arithmetic, stay exact.
pub const MAX_SIZE_BYTES: u64 = 1_000_000_000_000_000;

/// The highest link or source rate (10 Tbps): above it a minimum-size packet takes less than a
/// nanosecond on the wire, and the integer-nanosecond clock could no longer space packets.
pub const MAX_RATE_BPS: u64 = 10_000_000_000_000;

/// Parses a bit rate: a number and one of `bps`, `kbps` (`Kbps`), `Mbps`, `Gbps`, `Tbps`, or
/// the same with `b/s` (`Mb/s`). Decimal multipliers; rounded to whole bits per second; must be
/// positive.
pub fn parse_rate(text: &str) -> Result<u64, String> {
    const EXPECTED: &str = "expected a positive rate like \"10Mbps\"";
    let s = text.trim();
    let fail = |why: &str| format!("{} is not a valid rate: {why}", echo(text));
    let Some((number, unit)) = split_number(s) else {
        return Err(fail(EXPECTED));
    };
    if number.negative && !number.is_zero() {
        return Err(fail(EXPECTED));
    }
    if unit.is_empty() {
        return Err(fail(&format!("missing unit; {EXPECTED}")));
    }
    let base =
        unit.strip_suffix("bps").or_else(|| unit.strip_suffix("b/s")).or_else(|| unit.strip_suffix("bit/s"));
    let factor: Option<u128> = match base {
        Some("") => Some(1),
        Some("k" | "K") => Some(1_000),
        Some("m" | "M") => Some(1_000_000),
        Some("g" | "G") => Some(1_000_000_000),
        Some("t" | "T") => Some(1_000_000_000_000),
        _ => None,
    };
    let Some(factor) = factor else {
        return Err(fail(&format!(
            "unknown unit {}; expected bps, kbps, Mbps, Gbps or Tbps (bits per second; \
             \"Mb/s\" also works)",
            echo(unit)
        )));
    };
    match number.scaled(factor) {
        None => Err(fail("too large")),
        Some(0) => Err(fail(EXPECTED)),
        Some(v) if v > MAX_RATE_BPS => Err(fail("too large: rates are at most 10Tbps")),
        Some(v) => Ok(v),
    }
}

/// Parses a duration into integer nanoseconds: a number and one of `ns`, `us` (`µs`), `ms`, `s`,
/// `min`; a bare `0` is allowed. Rounded to whole nanoseconds; must not be negative.
pub fn parse_duration(text: &str) -> Result<u64, String> {
    const EXPECTED: &str = "expected a non-negative duration like \"10ms\"";
    let s = text.trim();
    let fail = |why: &str| format!("{} is not a valid duration: {why}", echo(text));
    let Some((number, unit)) = split_number(s) else {
        return Err(fail(EXPECTED));
    };
    if number.negative && !number.is_zero() {
        return Err(fail(EXPECTED));
    }
    let factor: u128 = match unit {
        "" if number.is_zero() => return Ok(0),
        "" => return Err(fail(&format!("missing unit (ns, us, ms, s or min); {EXPECTED}"))),
        "ns" => 1,
        "us" | "µs" | "μs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "min" => 60_000_000_000,
        other => return Err(fail(&format!("unknown unit {}; expected ns, us, ms, s or min", echo(other)))),
    };
    match number.scaled(factor) {
        Some(ns) if ns <= MAX_DURATION_NS => Ok(ns),
        _ => Err(fail("too long: durations are at most 1000000s (11.6 days)")),
    }
}

/// Parses a size into bytes: a number and one of `B`, `KB` (`kB`, 1000), `KiB` (1024), `MB`,
/// `MiB`, `GB`, `GiB` (`bytes` is the same as `B`). Rounded to whole bytes; must not be negative.
pub fn parse_size(text: &str) -> Result<u64, String> {
    const EXPECTED: &str = "expected a non-negative size like \"1000B\" or \"64KB\"";
    let s = text.trim();
    let fail = |why: &str| format!("{} is not a valid size: {why}", echo(text));
    let Some((number, unit)) = split_number(s) else {
        return Err(fail(EXPECTED));
    };
    if number.negative && !number.is_zero() {
        return Err(fail(EXPECTED));
    }
    let factor: u128 = match unit {
        "" => return Err(fail(&format!("missing unit (B, KB, KiB, MB, MiB, GB, GiB); {EXPECTED}"))),
        "B" | "byte" | "bytes" => 1,
        "KB" | "kB" => 1_000,
        "KiB" => 1 << 10,
        "MB" => 1_000_000,
        "MiB" => 1 << 20,
        "GB" => 1_000_000_000,
        "GiB" => 1 << 30,
        other if other.ends_with('b') || other.ends_with("bit") || other.ends_with("bits") => {
            return Err(fail(&format!(
                "unknown unit {} (sizes are in bytes: B, KB, KiB, MB, MiB, GB, GiB)",
                echo(other)
            )))
        }
        other => {
            return Err(fail(&format!(
                "unknown unit {}; expected B, KB, KiB, MB, MiB, GB or GiB",
                echo(other)
            )))
        }
    };
    match number.scaled(factor) {
        Some(bytes) if bytes <= MAX_SIZE_BYTES => Ok(bytes),
        _ => Err(fail("too large: sizes are at most 1PB (1000000000000000B)")),
    }
}

/// Parses a probability: a number in [0, 1] (`"0.01"`, `"1e-5"`) or a percentage (`"0.5%"`).
pub fn parse_probability(text: &str) -> Result<f64, String> {
    let s = text.trim();
    let fail = || {
        format!(
            "{text} is not a valid probability: expected a number in [0, 1] or a percentage \
             like \"0.5%\"",
            text = echo(text)
        )
    };
    let (body, extra_exp) = match s.strip_suffix('%') {
        Some(body) => (body.trim_end(), -2),
        None => (s, 0),
    };
    let Some((number, rest)) = split_number(body) else {
        return Err(fail());
    };
    if !rest.is_empty() || (number.negative && !number.is_zero()) {
        return Err(fail());
    }
    let p = number.to_f64(extra_exp);
    if number.is_zero() {
        return Ok(0.0);
    }
    if !(0.0..=1.0).contains(&p) {
        return Err(fail());
    }
    Ok(p)
}

/// Parses a bit error rate: a probability (see [`parse_probability`]) or the text
/// `"N bit(s) in SIZE"` (e.g. `"1 bit in 64KB"`), which is N / (8 * SIZE in bytes).
pub fn parse_bit_error_rate(text: &str) -> Result<f64, String> {
    let s = text.trim();
    let Some((count_text, size_text)) = s.split_once(" in ") else {
        return parse_probability(text).map_err(|_| {
            format!(
                "{text} is not a valid bit error rate: expected a probability in [0, 1], a \
                 percentage like \"0.001%\" or a ratio like \"1 bit in 64KB\"",
                text = echo(text)
            )
        });
    };
    let fail = || {
        format!(
            "{text} is not a valid bit error rate: expected a ratio like \"1 bit in 64KB\", a \
             probability in [0, 1] or a percentage",
            text = echo(text)
        )
    };
    let count_text = count_text.trim();
    let count_number =
        count_text.strip_suffix("bits").or_else(|| count_text.strip_suffix("bit")).ok_or_else(fail)?.trim();
    let (count, rest) = split_number(count_number).ok_or_else(fail)?;
    if !rest.is_empty() || count.negative && !count.is_zero() {
        return Err(fail());
    }
    let bytes = parse_size(size_text).map_err(|_| fail())?;
    if bytes == 0 {
        return Err(fail());
    }
    let p = count.to_f64(0) / (8.0 * bytes as f64);
    if !(0.0..=1.0).contains(&p) {
        return Err(fail());
    }
    Ok(p)
}

/// Formats nanoseconds with the largest unit that represents them exactly (`"45ms"`, `"10us"`).
pub(crate) fn format_duration(ns: u64) -> String {
    if ns == 0 {
        return "0s".to_string();
    }
    for (factor, unit) in [(1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "us")] {
        if ns.is_multiple_of(factor) {
            return format!("{}{unit}", ns / factor);
        }
    }
    format!("{ns}ns")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate("10Mbps"), Ok(10_000_000));
        assert_eq!(parse_rate("10 Mbps"), Ok(10_000_000));
        assert_eq!(parse_rate(" 2Mbps "), Ok(2_000_000));
        assert_eq!(parse_rate("1.5kbps"), Ok(1_500));
        assert_eq!(parse_rate("64Kbps"), Ok(64_000));
        assert_eq!(parse_rate("1Gbps"), Ok(1_000_000_000));
        assert_eq!(parse_rate("1Tbps"), Ok(1_000_000_000_000));
        assert_eq!(parse_rate("100Mb/s"), Ok(100_000_000));
        assert_eq!(parse_rate("9600bps"), Ok(9_600));
        assert_eq!(parse_rate("2.5e6bps"), Ok(2_500_000));
        assert_eq!(parse_rate(".5Mbps"), Ok(500_000));
        // Rounded half up to whole bits per second.
        assert_eq!(parse_rate("1.0005kbps"), Ok(1_001));
        assert_eq!(parse_rate("1.0004kbps"), Ok(1_000));
        assert_eq!(parse_rate("0.5bps"), Ok(1));
    }

    #[test]
    fn invalid_rates() {
        assert_eq!(
            parse_rate("-10Mbps").unwrap_err(),
            "\"-10Mbps\" is not a valid rate: expected a positive rate like \"10Mbps\""
        );
        for bad in ["0Mbps", "0.4bps", "10", "Mbps", "", "10MBps", "10 MB/s", "ten Mbps", "10Mbpsx"] {
            let err = parse_rate(bad).unwrap_err();
            assert!(err.contains("is not a valid rate"), "{bad}: {err}");
        }
        assert!(parse_rate("10").unwrap_err().contains("missing unit"));
        assert!(parse_rate("10MBps").unwrap_err().contains("unknown unit \"MBps\""));
        assert!(parse_rate("1e30Tbps").unwrap_err().contains("too large"));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("0.01ms"), Ok(10_000));
        assert_eq!(parse_duration("45ms"), Ok(45_000_000));
        assert_eq!(parse_duration("45 ms"), Ok(45_000_000));
        assert_eq!(parse_duration("1s"), Ok(1_000_000_000));
        assert_eq!(parse_duration("1.5s"), Ok(1_500_000_000));
        assert_eq!(parse_duration("2min"), Ok(120_000_000_000));
        assert_eq!(parse_duration("10us"), Ok(10_000));
        assert_eq!(parse_duration("10µs"), Ok(10_000));
        assert_eq!(parse_duration("7ns"), Ok(7));
        assert_eq!(parse_duration("0"), Ok(0));
        assert_eq!(parse_duration("0s"), Ok(0));
        assert_eq!(parse_duration("0.0"), Ok(0));
        // Rounding to whole nanoseconds, half up.
        assert_eq!(parse_duration("1.5ns"), Ok(2));
        assert_eq!(parse_duration("1.4ns"), Ok(1));
        assert_eq!(parse_duration("0.0000000015s"), Ok(2));
        assert_eq!(parse_duration("1e-12s"), Ok(0));
        // Exact even where f64 would not be.
        assert_eq!(parse_duration("0.3s"), Ok(300_000_000));
        assert_eq!(parse_duration("123456.123456789s"), Ok(123_456_123_456_789));
    }

    #[test]
    fn invalid_durations() {
        for bad in ["-1ms", "10", "1.5", "ms", "", "10 hours", "10sec", "1..2s", "1e400s"] {
            let err = parse_duration(bad).unwrap_err();
            assert!(err.starts_with(&format!("{bad:?} is not a valid duration")), "{bad}: {err}");
        }
        assert!(parse_duration("-1ms").unwrap_err().contains("non-negative"));
        assert!(parse_duration("10").unwrap_err().contains("missing unit"));
        assert!(parse_duration("10sec").unwrap_err().contains("unknown unit \"sec\""));
        assert!(parse_duration("1000000000000min").unwrap_err().contains("too long"));
    }

    /// The bounds that keep integer-nanosecond arithmetic exact: the tester's `18446744073s`
    /// wrapped the clock and reported a 3.5 ms RTT on a 90 ms path.
    #[test]
    fn durations_sizes_and_rates_are_bounded() {
        assert_eq!(parse_duration("1000000s"), Ok(MAX_DURATION_NS));
        assert!(parse_duration("1000000.000000001s").unwrap_err().contains("at most 1000000s"));
        assert!(parse_duration("18446744073s").unwrap_err().contains("at most 1000000s"));
        assert_eq!(parse_size("1PB".replace("PB", "000000GB").as_str()), Ok(MAX_SIZE_BYTES));
        assert!(parse_size("1000001GB").unwrap_err().contains("at most 1PB"));
        assert_eq!(parse_rate("10Tbps"), Ok(MAX_RATE_BPS));
        assert!(parse_rate("10.001Tbps").unwrap_err().contains("at most 10Tbps"));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1000B"), Ok(1_000));
        assert_eq!(parse_size("400 B"), Ok(400));
        assert_eq!(parse_size("64KB"), Ok(64_000));
        assert_eq!(parse_size("64kB"), Ok(64_000));
        assert_eq!(parse_size("64KiB"), Ok(65_536));
        assert_eq!(parse_size("1MB"), Ok(1_000_000));
        assert_eq!(parse_size("1MiB"), Ok(1_048_576));
        assert_eq!(parse_size("1GB"), Ok(1_000_000_000));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("1.5KB"), Ok(1_500));
        assert_eq!(parse_size("0B"), Ok(0));
        assert_eq!(parse_size("10 bytes"), Ok(10));
        assert_eq!(parse_size("0.5B"), Ok(1));
    }

    #[test]
    fn invalid_sizes() {
        for bad in ["-1B", "1000", "10Kb", "10kb", "10 bits", "KB", "", "1XB"] {
            let err = parse_size(bad).unwrap_err();
            assert!(err.starts_with(&format!("{bad:?} is not a valid size")), "{bad}: {err}");
        }
        assert!(parse_size("1000").unwrap_err().contains("missing unit"));
        assert!(parse_size("10Kb").unwrap_err().contains("sizes are in bytes"));
    }

    #[test]
    fn probabilities() {
        assert_eq!(parse_probability("0.5%"), Ok(0.005));
        assert_eq!(parse_probability("1%"), Ok(0.01));
        assert_eq!(parse_probability("0.1%"), Ok(0.001));
        assert_eq!(parse_probability("5 %"), Ok(0.05));
        assert_eq!(parse_probability("100%"), Ok(1.0));
        assert_eq!(parse_probability("0%"), Ok(0.0));
        assert_eq!(parse_probability("0"), Ok(0.0));
        assert_eq!(parse_probability("0.01"), Ok(0.01));
        assert_eq!(parse_probability("1"), Ok(1.0));
        assert_eq!(parse_probability("1e-6"), Ok(1e-6));
    }

    #[test]
    fn invalid_probabilities() {
        for bad in ["-0.1", "1.5", "150%", "-1%", "abc", "", "%", "0.5 percent", "nan", "inf"] {
            let err = parse_probability(bad).unwrap_err();
            assert!(
                err.starts_with(&format!("{bad:?} is not a valid probability: expected")),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn bit_error_rates() {
        assert_eq!(parse_bit_error_rate("1 bit in 64KB"), Ok(1.0 / 512_000.0));
        assert_eq!(parse_bit_error_rate("1bit in 100KB"), Ok(1.0 / 800_000.0));
        assert_eq!(parse_bit_error_rate("2 bits in 1KB"), Ok(2.0 / 8_000.0));
        assert_eq!(parse_bit_error_rate("1e-6"), Ok(1e-6));
        assert_eq!(parse_bit_error_rate("0.001%"), Ok(1e-5));
        for bad in ["1 bit in 0B", "1 byte in 64KB", "1 bit in 64", "x", "9 bits in 1B", "2"] {
            let err = parse_bit_error_rate(bad).unwrap_err();
            assert!(err.contains("is not a valid bit error rate"), "{bad}: {err}");
        }
    }

    #[test]
    fn formats_durations() {
        assert_eq!(format_duration(0), "0s");
        assert_eq!(format_duration(100_000_000_000), "100s");
        assert_eq!(format_duration(45_000_000), "45ms");
        assert_eq!(format_duration(10_000), "10us");
        assert_eq!(format_duration(1_500), "1500ns");
    }
}
