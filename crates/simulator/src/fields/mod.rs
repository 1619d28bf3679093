//! Reading a scenario's TOML tables field by field: typed access to values, quantities with
//! units ([`units`]), errors that name the field ([`FieldError`]) and quote the user's text
//! short ([`echo`]). Below both the scenario loader and the network's loss models, which read
//! their own tables with it, so neither imports the other for it.

pub mod units;

use toml::{Table, Value};

/// An error before the file name is attached: the field path and the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldError {
    pub field: String,
    pub message: String,
}

impl FieldError {
    pub(crate) fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError { field: field.into(), message: message.into() }
    }
}

pub(crate) type Res<T> = Result<T, FieldError>;

/// Longest piece of the user's text (in characters, as shown) an error message repeats whole.
/// A message quotes what it rejects, and that can be anything: a 100 KB string from a generated
/// file or a `--set` would bury the rest of the message (and the fix) in a terminal or a log.
pub(crate) const ECHO_LIMIT: usize = 120;
/// How many characters of a longer text it keeps, before "… (N bytes)".
const ECHO_KEEP: usize = 100;

/// Where to cut `text` so it shows in at most [`ECHO_KEEP`] columns, or `None` when all of it
/// fits in [`ECHO_LIMIT`]; `width` is how many columns a character takes when shown.
fn echo_cut(text: &str, width: impl Fn(char) -> usize) -> Option<usize> {
    let mut shown = 0;
    let mut cut = None;
    for (i, c) in text.char_indices() {
        shown += width(c);
        if cut.is_none() && shown > ECHO_KEEP {
            cut = Some(i);
        }
        if shown > ECHO_LIMIT {
            return cut;
        }
    }
    None
}

/// The user's `text` quoted for an error message (`"10 Mbit"`, like `{:?}`), its start and its
/// length in bytes when it is long: `"xxxx…"… (100000 bytes)`. Every message that repeats a
/// value, key or name from the scenario or a `--set` goes through this (or [`shorten`]).
pub(crate) fn echo(text: &str) -> String {
    match echo_cut(text, |c| c.escape_debug().len()) {
        None => format!("{text:?}"),
        Some(cut) => format!("{:?}… ({} bytes)", &text[..cut], text.len()),
    }
}

/// [`echo`] without the quotes, for names in lists and field paths.
pub(crate) fn shorten(text: &str) -> std::borrow::Cow<'_, str> {
    match echo_cut(text, |_| 1) {
        None => text.into(),
        Some(cut) => format!("{}… ({} bytes)", &text[..cut], text.len()).into(),
    }
}

/// Names from the scenario for an error message ("the nodes are: a, b, c"): each [`shorten`]ed,
/// and at most 20 of them, since a generated topology or a large flow table has thousands.
pub(crate) fn echo_list<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> String {
    const MOST: usize = 20;
    let mut shown: Vec<String> = Vec::new();
    let mut count = 0;
    for name in names {
        if count < MOST {
            shown.push(shorten(name.as_ref()).into_owned());
        }
        count += 1;
    }
    if count > MOST {
        shown.push(format!("… ({count} in all)"));
    }
    shown.join(", ")
}

/// `parent.key`, or `key` at the top level.
pub(crate) fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// "an integer (5)", "a string (\"x\")", "a table", ... for error messages.
pub(crate) fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => format!("the string {s}", s = echo(s)),
        Value::Integer(i) => format!("the integer {i}"),
        Value::Float(f) => format!("the float {f}"),
        Value::Boolean(b) => format!("the boolean {b}"),
        Value::Datetime(d) => format!("the date-time {d}"),
        Value::Array(_) => "an array".to_string(),
        Value::Table(_) => "a table".to_string(),
    }
}

fn wrong_type(field: &str, expected: &str, v: &Value) -> FieldError {
    FieldError::new(field, format!("expected {expected}, found {}", describe(v)))
}

/// A TOML table at a known path whose keys have been checked against an allowed list.
#[derive(Clone, Copy)]
pub(crate) struct Section<'a> {
    pub path: &'a str,
    pub table: &'a Table,
}

impl<'a> Section<'a> {
    /// Checks that every key of `table` is in `allowed`.
    pub fn new(path: &'a str, table: &'a Table, allowed: &[&str]) -> Res<Self> {
        if let Some(key) = table.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(FieldError::new(
                join(path, key),
                format!("unknown key {key}; allowed keys here: {}", allowed.join(", "), key = echo(key)),
            ));
        }
        Ok(Section { path, table })
    }

    pub fn field(&self, key: &str) -> String {
        join(self.path, key)
    }

    pub fn get(&self, key: &str) -> Option<(&'a Value, String)> {
        self.table.get(key).map(|v| (v, self.field(key)))
    }

    /// The value of a required key; `expected` says what it should hold.
    pub fn required(&self, key: &str, expected: &str) -> Res<(&'a Value, String)> {
        self.get(key).ok_or_else(|| {
            FieldError::new(self.field(key), format!("missing required key; expected {expected}"))
        })
    }
}

pub(crate) fn table<'a>(v: &'a Value, field: &str) -> Res<&'a Table> {
    match v {
        Value::Table(t) => Ok(t),
        other => Err(wrong_type(field, "a table", other)),
    }
}

pub(crate) fn string<'a>(v: &'a Value, field: &str, expected: &str) -> Res<&'a str> {
    match v {
        Value::String(s) => Ok(s),
        other => Err(wrong_type(field, expected, other)),
    }
}

/// A non-negative integer: a TOML integer or a string holding one (as `"${param}"` references
/// interpolated into text produce).
pub(crate) fn uint(v: &Value, field: &str) -> Res<u64> {
    const EXPECTED: &str = "a non-negative integer";
    match v {
        Value::Integer(i) if *i >= 0 => Ok(*i as u64),
        Value::Integer(i) => Err(FieldError::new(field, format!("{i} is negative; expected {EXPECTED}"))),
        Value::String(s) => s.trim().parse::<u64>().map_err(|_| {
            FieldError::new(field, format!("{s} is not an integer; expected {EXPECTED}", s = echo(s)))
        }),
        other => Err(wrong_type(field, EXPECTED, other)),
    }
}

/// An integer in `[min, u32::MAX]`.
pub(crate) fn uint32_at_least(v: &Value, field: &str, min: u32) -> Res<u32> {
    let n = uint(v, field)?;
    if n < u64::from(min) || n > u64::from(u32::MAX) {
        return Err(FieldError::new(
            field,
            format!("{n} is out of range; expected an integer from {min} to {}", u32::MAX),
        ));
    }
    Ok(n as u32)
}

/// A boolean (or the string "true" / "false").
pub(crate) fn boolean(v: &Value, field: &str) -> Res<bool> {
    match v {
        Value::Boolean(b) => Ok(*b),
        Value::String(s) if s.trim() == "true" => Ok(true),
        Value::String(s) if s.trim() == "false" => Ok(false),
        other => Err(wrong_type(field, "true or false", other)),
    }
}

/// A duration in nanoseconds: a string like "10ms" or the integer 0.
pub(crate) fn duration(v: &Value, field: &str) -> Res<u64> {
    match v {
        Value::String(s) => units::parse_duration(s).map_err(|m| FieldError::new(field, m)),
        Value::Integer(0) => Ok(0),
        other => Err(wrong_type(field, "a duration with a unit, like \"10ms\"", other)),
    }
}

/// A duration that must be greater than zero.
pub(crate) fn positive_duration(v: &Value, field: &str) -> Res<u64> {
    let ns = duration(v, field)?;
    if ns == 0 {
        return Err(FieldError::new(field, "must be greater than zero, like \"10ms\""));
    }
    Ok(ns)
}

/// The floors below which a timer or a channel-state duration would make the simulator do
/// unbounded work per simulated second (docs/scenarios.md, "Bounds"): 1 µs for channel states,
/// sampling and arrivals (at most 10^6 state changes, samples or arrivals per simulated second),
/// 100 µs for retransmission timers (at most 10^4 timeouts per flow per simulated second), 1 ms
/// for the Westwood filters' time constants (at most 2m/tau virtual samples per second).
pub(crate) const MIN_STATE_DURATION_NS: u64 = 1_000;
pub(crate) const MIN_RTO_NS: u64 = 100_000;
pub(crate) const MIN_FILTER_TIME_NS: u64 = 1_000_000;

/// A duration of at least `min` ns (`min` > 0); `what_for` says what a shorter one would cost.
pub(crate) fn duration_at_least(v: &Value, field: &str, min: u64, what_for: &str) -> Res<u64> {
    let ns = duration(v, field)?;
    if ns < min {
        return Err(FieldError::new(
            field,
            format!("must be at least {} ({what_for})", units::format_duration(min)),
        ));
    }
    Ok(ns)
}

/// How long a channel stays in one state (Gilbert-Elliott, outages): at least 1 µs, as the
/// channel changes state at that pace whether or not packets cross it.
pub(crate) fn state_duration(v: &Value, field: &str) -> Res<u64> {
    duration_at_least(
        v,
        field,
        MIN_STATE_DURATION_NS,
        "at most 10^6 channel state changes per simulated second",
    )
}

/// A rate in bits per second: a string like "10Mbps", > 0.
pub(crate) fn rate(v: &Value, field: &str) -> Res<u64> {
    match v {
        Value::String(s) => units::parse_rate(s).map_err(|m| FieldError::new(field, m)),
        other => Err(wrong_type(field, "a positive rate with a unit, like \"10Mbps\"", other)),
    }
}

/// A size in bytes: a string like "1000B".
pub(crate) fn size(v: &Value, field: &str) -> Res<u64> {
    match v {
        Value::String(s) => units::parse_size(s).map_err(|m| FieldError::new(field, m)),
        other => Err(wrong_type(field, "a size with a unit, like \"1000B\" or \"64KB\"", other)),
    }
}

/// The largest size of one packet or of one part of it (a segment's payload, its headers), in
/// bytes: 1 GiB. The simulator holds a packet's size in 32 bits, so payload and headers
/// together must stay below 4 GiB; a real IP packet is at most 64 KiB (a jumbogram 4 GiB).
pub(crate) const MAX_PACKET_PART_BYTES: u64 = 1 << 30;

/// A size of (a part of) one packet: a [`size`] of at most [`MAX_PACKET_PART_BYTES`].
pub(crate) fn packet_size(v: &Value, field: &str) -> Res<u64> {
    let n = size(v, field)?;
    if n > MAX_PACKET_PART_BYTES {
        return Err(FieldError::new(
            field,
            format!(
                "{n} bytes is more than one packet can hold here (at most 1GiB = {MAX_PACKET_PART_BYTES} \
                 bytes; a real IP packet is at most 64KiB)"
            ),
        ));
    }
    Ok(n)
}

fn check_probability(p: f64, field: &str, v: &Value) -> Res<f64> {
    if (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err(FieldError::new(
            field,
            format!(
                "{} is not a probability; expected a number in [0, 1] or a percentage like \"0.5%\"",
                describe(v)
            ),
        ))
    }
}

/// A probability: a number in [0, 1], or a string ("0.5%", "0.01").
pub(crate) fn probability(v: &Value, field: &str) -> Res<f64> {
    match v {
        Value::String(s) => units::parse_probability(s).map_err(|m| FieldError::new(field, m)),
        Value::Float(f) => check_probability(*f, field, v),
        Value::Integer(i) => check_probability(*i as f64, field, v),
        other => Err(wrong_type(field, "a probability like 0.01 or \"1%\"", other)),
    }
}

/// A bit error probability: like [`probability`], and also "1 bit in 64KB".
pub(crate) fn bit_error_rate(v: &Value, field: &str) -> Res<f64> {
    match v {
        Value::String(s) => units::parse_bit_error_rate(s).map_err(|m| FieldError::new(field, m)),
        _ => probability(v, field),
    }
}

/// A packet count written as `N`, `"N"`, `"Npkt"`, `"N pkts"`, `"N packets"`; `None` when `v`
/// is not in one of those forms (it may still be a size).
pub(crate) fn packet_count(v: &Value) -> Option<Result<u64, String>> {
    match v {
        Value::Integer(i) if *i >= 0 => Some(Ok(*i as u64)),
        Value::Integer(i) => Some(Err(format!("{i} is negative"))),
        Value::String(s) => {
            let t = s.trim();
            let number = ["packets", "packet", "pkts", "pkt"]
                .iter()
                .find_map(|suffix| t.strip_suffix(suffix))
                .map(str::trim_end)
                .unwrap_or(t);
            if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
                return if number.len() < t.len() {
                    Some(Err(format!("{s} is not a whole number of packets", s = echo(s))))
                } else {
                    None
                };
            }
            Some(number.parse::<u64>().map_err(|_| format!("{s} is too large", s = echo(s))))
        }
        _ => None,
    }
}
