//! The `cc` key and the parameter tables of the Westwood variants, read through the registry
//! of congestion controls (`westwood_algorithms::registry`): which names exist, which table and
//! keys each takes, and its default recovery are the registry's; this module turns TOML values
//! into the kinds the registry declares.
//!
//! ```toml
//! [tcp]
//! cc = "westwood"                       # a registry name, or its kernel name (tcpw)
//! recovery = "sack"                     # reno | newreno | sack | tahoe (default: the variant's own)
//! window_growth = "byte_counting"       # per_ack (default) | byte_counting
//! limited_transmit = true               # RFC 3042; false (default) | true
//! fast_recovery_inflation = false       # true (default) | false | "later_dupacks" (the UCLA agents' own)
//! westwood = { tau = "500ms", m = 2, sample = "interval", acked_count = "ucla" }
//! westwood_tr = { sample = "interval", acked_count = "paper" }
//! westwood_abse = { t_min = "50ms", n = 10, u_max = "auto", epsilon = 0.6, beta = 0.6, sample = "trapezoid" }
//! westwood_plus = { min_window = "50ms", acked_count = "paper" }
//! westwood_ucla = { filter = 3, tau = "1s", alpha = 0.9, tick = "10ms", initial_rtt_min = "5s" }
//! ```
//!
//! `sample` (`trapezoid` | `interval`) and `acked_count` (`paper` | `ucla`) are the options the
//! references disagree on; each variant's default is its own reference's (docs/westwood.md).

use toml::Value;
use westwood_algorithms::registry::{self, CcEntry, ParamKind, ParamValue, ParamValues};
use westwood_algorithms::westwood::{AckedCountRule, Sampling};
use westwood_algorithms::WindowGrowth;

use super::fields::{self, describe, Section};
use super::{echo, FieldError, Res};
use crate::model::{
    CcSpec, CwndValidation, FastRetransmitTimer, Inflation, LossDetection, PartialAckTimer, PrrBound,
    PrrWindow, PushFlag, ReceiveWindowRule, RecoveryExit, RecoveryPacing, ReductionBase, Reordering,
    RttEstimatorRule, SackNextSeg, SendBufferRule, TimeoutThreshold,
};
use crate::profile::Profile;
use crate::tcp::Recovery;

/// A congestion control resolved from a flow's settings.
pub(crate) struct Resolved {
    /// The control's canonical name (a kernel name in the scenario resolves to it).
    pub name: String,
    pub spec: CcSpec,
    /// The recovery the variant's paper pairs it with, when the scenario names none.
    pub default_recovery: Recovery,
    /// The sender keys the control's reference fixes (`CcEntry::reference_tcp`), as a scenario
    /// writes them: they apply where the scenario does not set the key, and profiles leave them.
    pub reference_tcp: &'static [(&'static str, &'static str)],
    /// The AckedCount rule the scenario chose (`None`: the variant's reference).
    pub acked_count: Option<AckedCountRule>,
}

/// Resolve `cc` (already looked up through the flow's layers) against the registry
/// (`westwood_algorithms::registry`), and its parameter table against the entry's schema.
/// `get` finds a key in the flow's layers, most specific first.
pub(crate) fn resolve<'a>(
    cc: Option<(&'a Value, String)>,
    get: &dyn Fn(&str) -> Option<(&'a Value, String)>,
) -> Res<Resolved> {
    let (name, field) = match cc {
        Some((v, f)) => {
            (fields::string(v, &f, "a congestion control name like \"reno\"")?.trim().to_ascii_lowercase(), f)
        }
        None => ("reno".to_string(), String::new()),
    };
    let entries = registry::entries();
    let Some(entry) = registry::lookup(&name) else {
        return Err(FieldError::new(
            field,
            format!(
                "unknown congestion control {name}; expected one of: {}",
                registry::names().join(", "),
                name = echo(&name)
            ),
        ));
    };
    // A parameter table for another variant is a mistake worth reporting.
    let mut tables: Vec<&str> = Vec::new();
    for key in entries.iter().filter_map(|e| e.parameters.map(|t| t.key)) {
        if tables.contains(&key) {
            continue;
        }
        tables.push(key);
        let Some((_, f)) = get(key) else { continue };
        if entry.parameters.map(|t| t.key) != Some(key) {
            let owners: Vec<&str> = entries
                .iter()
                .filter(|e| e.parameters.is_some_and(|t| t.key == key))
                .map(|e| e.name)
                .collect();
            return Err(FieldError::new(
                f,
                format!(
                    "parameters for cc = {:?}, but this flow's cc is {name}",
                    owners.join(" or "),
                    name = echo(entry.name)
                ),
            ));
        }
    }
    let (params, acked_count) = parameters(entry, get)?;
    let default_recovery = Recovery::from_name(entry.default_recovery).unwrap_or_else(|| {
        panic!("{}: default recovery {} is not a recovery", entry.name, entry.default_recovery)
    });
    Ok(Resolved {
        name: entry.name.to_string(),
        spec: CcSpec { entry, params },
        default_recovery,
        reference_tcp: entry.reference_tcp,
        acked_count,
    })
}

/// The entry's parameter table, if the flow has one: every key checked against the schema and
/// parsed by its kind, the options the references disagree on (`acked_count`, `sample`) last.
fn parameters<'a>(
    entry: &CcEntry,
    get: &dyn Fn(&str) -> Option<(&'a Value, String)>,
) -> Res<(ParamValues, Option<AckedCountRule>)> {
    let mut values = ParamValues::default();
    let mut acked_count = None;
    let Some(schema) = entry.parameters else {
        return Ok((values, acked_count));
    };
    let Some((v, path)) = get(schema.key) else {
        return Ok((values, acked_count));
    };
    let table = fields::table(v, &path)?;
    let allowed: Vec<&str> = schema.params.iter().map(|p| p.key).collect();
    Section::new(&path, table, &allowed)?;
    // The variant's own parameters, then the two options, in that order, so that of several
    // bad keys the same one is reported as before the registry.
    let rank = |kind: &ParamKind| match kind {
        ParamKind::AckedCount => 1,
        ParamKind::Sampling => 2,
        _ => 0,
    };
    let mut params: Vec<_> = schema.params.iter().collect();
    params.sort_by_key(|p| rank(&p.kind));
    for param in params {
        let Some(v) = table.get(param.key) else { continue };
        let f = fields::join(&path, param.key);
        let value = match param.kind {
            ParamKind::FilterTime => ParamValue::Nanos(filter_time(v, &f)?),
            ParamKind::ClockTick => ParamValue::Nanos(fields::duration_at_least(
                v,
                &f,
                fields::MIN_STATE_DURATION_NS,
                "the agent's clock tick",
            )?),
            ParamKind::Duration => ParamValue::Nanos(fields::positive_duration(v, &f)?),
            ParamKind::Integer { min, max, beyond } => {
                let n = fields::uint32_at_least(v, &f, min)?;
                if n > max {
                    return Err(FieldError::new(&f, format!("{} type {n}: {beyond}", param.key)));
                }
                ParamValue::Integer(n)
            }
            ParamKind::Number { min, max } => ParamValue::Number(number(v, &f, min, max)?),
            ParamKind::RateOrAuto => ParamValue::Rate(match v {
                Value::String(text) if text.trim().eq_ignore_ascii_case("auto") => None,
                _ => Some(fields::rate(v, &f).map_err(|e| {
                    FieldError::new(
                        e.field,
                        format!("{}; or \"auto\" (the largest instability seen)", e.message),
                    )
                })? as f64),
            }),
            ParamKind::Sampling => ParamValue::Sampling(sampling(v, &f)?),
            ParamKind::AckedCount => {
                acked_count = Some(acked_count_rule(v, &f)?);
                continue;
            }
        };
        values.set(param.key, value);
    }
    Ok((values, acked_count))
}

/// Parse a `sample` value (docs/westwood.md).
fn sampling(v: &Value, field: &str) -> Res<Sampling> {
    let s = fields::string(v, field, "\"trapezoid\" or \"interval\"")?;
    Sampling::from_name(s).ok_or_else(|| {
        FieldError::new(
            field,
            format!("unknown sample {s}; expected \"trapezoid\" (the papers') or \"interval\"", s = echo(s)),
        )
    })
}

/// Parse an `acked_count` value (docs/westwood.md).
fn acked_count_rule(v: &Value, field: &str) -> Res<AckedCountRule> {
    let s = fields::string(v, field, "\"paper\" or \"ucla\"")?;
    AckedCountRule::from_name(s).ok_or_else(|| {
        FieldError::new(
            field,
            format!(
                "unknown AckedCount rule {s}; expected \"paper\" (seed 000 §2.3) or \"ucla\" (the \
                 ns-2 agent's)",
                s = echo(s)
            ),
        )
    })
}

/// A value naming one of a set of rules: `expected` lists the names (for the error message),
/// `what` is what the message calls the value, `from_name` finds the rule (case-insensitive).
fn named_rule<T>(
    v: &Value,
    field: &str,
    what: &str,
    expected: &str,
    from_name: fn(&str) -> Option<T>,
) -> Res<T> {
    let s = fields::string(v, field, expected)?;
    from_name(s).ok_or_else(|| {
        FieldError::new(field, format!("unknown {what} {s}; expected {expected}", s = echo(s)))
    })
}

/// The loss recoveries a scenario may name, as the error message lists them.
const RECOVERY_EXPECTED: &str = "\"reno\", \"newreno\", \"sack\" or \"tahoe\"";

/// Parse a `recovery` value.
pub(crate) fn recovery(v: &Value, field: &str) -> Res<Recovery> {
    named_rule(v, field, "loss recovery", RECOVERY_EXPECTED, Recovery::from_name)
}

/// The window-growth rules a scenario may name, as the error message lists them.
const WINDOW_GROWTH_EXPECTED: &str = "\"per_ack\", \"byte_counting\" or \"linux\"";

/// Parse a `window_growth` value.
pub(crate) fn window_growth(v: &Value, field: &str) -> Res<WindowGrowth> {
    named_rule(v, field, "window growth rule", WINDOW_GROWTH_EXPECTED, WindowGrowth::from_name)
}

/// The profiles a scenario may name, as the error message lists them.
const PROFILE_EXPECTED: &str = "\"paper\", \"ns2\" or \"linux\"";

/// Parse a `profile` value.
pub(crate) fn profile(v: &Value, field: &str) -> Res<Profile> {
    named_rule(v, field, "TCP profile", PROFILE_EXPECTED, Profile::from_name)
}

/// The partial-ACK timer policies a scenario may name, as the error message lists them.
const PARTIAL_ACK_TIMER_EXPECTED: &str = "\"first\" or \"every\"";

/// Parse a `partial_ack_timer` value.
pub(crate) fn partial_ack_timer(v: &Value, field: &str) -> Res<PartialAckTimer> {
    named_rule(v, field, "partial-ACK timer policy", PARTIAL_ACK_TIMER_EXPECTED, PartialAckTimer::from_name)
}

/// The inflation rules a scenario may name, as the error message lists them.
const INFLATION_EXPECTED: &str = "true, false or \"later_dupacks\"";

/// Parse a `fast_recovery_inflation` value: a boolean, or the name of the UCLA agents' rule.
pub(crate) fn inflation(v: &Value, field: &str) -> Res<Inflation> {
    match v {
        Value::Boolean(true) => Ok(Inflation::Standard),
        Value::Boolean(false) => Ok(Inflation::Off),
        Value::String(s) => Inflation::from_name(s).ok_or_else(|| {
            FieldError::new(
                field,
                format!("unknown fast-recovery inflation {s}; expected {INFLATION_EXPECTED}", s = echo(s)),
            )
        }),
        other => {
            Err(FieldError::new(field, format!("expected {INFLATION_EXPECTED}, found {}", describe(other))))
        }
    }
}

/// The fast-retransmit timer rules a scenario may name, as the error message lists them.
const FAST_RETRANSMIT_TIMER_EXPECTED: &str = "\"running\" or \"restart\"";

/// Parse a `fast_retransmit_timer` value.
pub(crate) fn fast_retransmit_timer(v: &Value, field: &str) -> Res<FastRetransmitTimer> {
    named_rule(
        v,
        field,
        "fast-retransmit timer rule",
        FAST_RETRANSMIT_TIMER_EXPECTED,
        FastRetransmitTimer::from_name,
    )
}

/// The timeout-threshold rules a scenario may name, as the error message lists them.
const TIMEOUT_THRESHOLD_EXPECTED: &str = "\"always\" or \"new_episode\"";

/// Parse a `timeout_threshold` value.
pub(crate) fn timeout_threshold(v: &Value, field: &str) -> Res<TimeoutThreshold> {
    named_rule(v, field, "timeout-threshold rule", TIMEOUT_THRESHOLD_EXPECTED, TimeoutThreshold::from_name)
}

/// The recovery pacings a scenario may name, as the error message lists them.
const RECOVERY_PACING_EXPECTED: &str = "\"inflation\" or \"prr\"";

/// Parse a `recovery_pacing` value.
pub(crate) fn recovery_pacing(v: &Value, field: &str) -> Res<RecoveryPacing> {
    named_rule(v, field, "recovery pacing", RECOVERY_PACING_EXPECTED, RecoveryPacing::from_name)
}

const CWND_VALIDATION_EXPECTED: &str = "\"none\" or \"linux\"";

pub(crate) fn cwnd_validation(v: &Value, field: &str) -> Res<CwndValidation> {
    named_rule(v, field, "cwnd validation", CWND_VALIDATION_EXPECTED, CwndValidation::from_name)
}

const RTT_ESTIMATOR_EXPECTED: &str = "\"rfc6298\" or \"linux\"";

pub(crate) fn rtt_estimator(v: &Value, field: &str) -> Res<RttEstimatorRule> {
    named_rule(v, field, "RTT estimator", RTT_ESTIMATOR_EXPECTED, RttEstimatorRule::from_name)
}

const PRR_WINDOW_EXPECTED: &str = "\"ssthresh\" or \"linux\"";

pub(crate) fn prr_window(v: &Value, field: &str) -> Res<PrrWindow> {
    named_rule(v, field, "PRR window", PRR_WINDOW_EXPECTED, PrrWindow::from_name)
}

const PRR_BOUND_EXPECTED: &str = "\"ssrb\" or \"safe_ack\"";

pub(crate) fn prr_bound(v: &Value, field: &str) -> Res<PrrBound> {
    named_rule(v, field, "PRR reduction bound", PRR_BOUND_EXPECTED, PrrBound::from_name)
}

const RECEIVE_WINDOW_EXPECTED: &str = "\"fixed\" or \"linux\"";

pub(crate) fn receive_window(v: &Value, field: &str) -> Res<ReceiveWindowRule> {
    named_rule(v, field, "receive window", RECEIVE_WINDOW_EXPECTED, ReceiveWindowRule::from_name)
}

const LOSS_DETECTION_EXPECTED: &str = "\"dupthresh\" or \"rack\"";

pub(crate) fn loss_detection(v: &Value, field: &str) -> Res<LossDetection> {
    named_rule(v, field, "loss detection", LOSS_DETECTION_EXPECTED, LossDetection::from_name)
}

const PUSH_FLAG_EXPECTED: &str = "\"none\" or \"linux\"";

pub(crate) fn push_flag(v: &Value, field: &str) -> Res<PushFlag> {
    named_rule(v, field, "PSH rule", PUSH_FLAG_EXPECTED, PushFlag::from_name)
}

const REDUCTION_BASE_EXPECTED: &str = "\"flight_size\" or \"cwnd\"";

pub(crate) fn reduction_base(v: &Value, field: &str) -> Res<ReductionBase> {
    named_rule(v, field, "reduction base", REDUCTION_BASE_EXPECTED, ReductionBase::from_name)
}

const SACK_NEXT_SEG_EXPECTED: &str = "\"rfc6675\" or \"linux\"";

pub(crate) fn sack_next_seg(v: &Value, field: &str) -> Res<SackNextSeg> {
    named_rule(v, field, "SACK NextSeg rule set", SACK_NEXT_SEG_EXPECTED, SackNextSeg::from_name)
}

const RECOVERY_EXIT_EXPECTED: &str = "\"at_recover\" or \"above_recover\"";

pub(crate) fn recovery_exit(v: &Value, field: &str) -> Res<RecoveryExit> {
    named_rule(v, field, "recovery exit", RECOVERY_EXIT_EXPECTED, RecoveryExit::from_name)
}

const REORDERING_EXPECTED: &str = "\"fixed\" or \"linux\"";

pub(crate) fn reordering(v: &Value, field: &str) -> Res<Reordering> {
    named_rule(v, field, "reordering rule", REORDERING_EXPECTED, Reordering::from_name)
}

const SEND_BUFFER_EXPECTED: &str = "\"unlimited\" or \"linux\"";

pub(crate) fn send_buffer(v: &Value, field: &str) -> Res<SendBufferRule> {
    named_rule(v, field, "send buffer", SEND_BUFFER_EXPECTED, SendBufferRule::from_name)
}

/// A Westwood filter's time constant (tau, T_min, Westwood+'s minimum window): at least 1 ms,
/// since the filters take a (virtual) sample every fraction of it, even in silence.
fn filter_time(v: &Value, field: &str) -> Res<u64> {
    fields::duration_at_least(
        v,
        field,
        fields::MIN_FILTER_TIME_NS,
        "the filter samples every fraction of it, even when no ACK arrives",
    )
}

/// A number in `[min, max]`.
fn number(v: &Value, field: &str, min: f64, max: f64) -> Res<f64> {
    let x = match v {
        Value::Integer(i) => *i as f64,
        Value::Float(x) => *x,
        Value::String(s) => s
            .trim()
            .parse::<f64>()
            .map_err(|_| FieldError::new(field, format!("expected a number, found {}", describe(v))))?,
        other => return Err(FieldError::new(field, format!("expected a number, found {}", describe(other)))),
    };
    if !(min..=max).contains(&x) || x.is_nan() {
        return Err(FieldError::new(
            field,
            format!("{x} is out of range; expected a number in [{min}, {max}]"),
        ));
    }
    Ok(x)
}

#[cfg(test)]
mod tests {
    use crate::model::CcSpec;
    use crate::scenario::load_str;
    use crate::tcp::Recovery;
    use westwood_algorithms::westwood::{AbseParams, PlusParams, TcpwParams, TrParams, UclaParams};

    const BASE: &str = r#"
[scenario]
duration = "10s"
[topology]
nodes = ["a", "b"]
[links.l]
from = "a"
to = "b"
rate = "5Mbps"
delay = "30ms"
[flows.f]
from = "a"
to = "b"
"#;

    fn tcp(body: &str) -> Result<crate::model::TcpSpec, crate::scenario::ScenarioError> {
        load_str(&format!("{BASE}{body}"), "t.toml", &[]).map(|s| s.flows[0].tcp.clone())
    }

    #[test]
    fn each_variant_gets_its_paper_recovery_and_defaults() {
        let cases = [
            ("reno", Recovery::Reno),
            ("newreno", Recovery::NewReno),
            ("westwood", Recovery::Reno),
            ("Westwood-TR", Recovery::Reno),
            ("westwood-abse", Recovery::NewReno),
            ("westwood-plus", Recovery::NewReno),
            ("tahoe", Recovery::Tahoe),
            ("SACK", Recovery::Sack),
            ("cubic", Recovery::Sack),
        ];
        for (cc, recovery) in cases {
            let t = tcp(&format!("cc = \"{cc}\"\n")).unwrap();
            assert_eq!(t.recovery, recovery, "{cc}");
            assert_eq!(t.cc_name, cc.to_ascii_lowercase());
        }
        let t = tcp("cc = \"westwood\"\nrecovery = \"newreno\"\n").unwrap();
        assert_eq!(t.recovery, Recovery::NewReno);
        // Any control composes with any recovery.
        for (cc, recovery, expected) in [
            ("westwood", "sack", Recovery::Sack),
            ("westwood-plus", "Tahoe", Recovery::Tahoe),
            ("cubic", "sack", Recovery::Sack),
            ("reno", "sack", Recovery::Sack),
        ] {
            let t = tcp(&format!("cc = \"{cc}\"\nrecovery = \"{recovery}\"\n")).unwrap();
            assert_eq!(t.recovery, expected, "{cc} + {recovery}");
        }
        assert_eq!(tcp("cc = \"cubic\"\n").unwrap().cc, CcSpec::named("cubic"));
        // The kernel's names are accepted and resolve to the one name outputs print.
        let t = tcp("cc = \"TCPW_ABSE\"\n").unwrap();
        assert_eq!(
            (t.cc_name.as_str(), t.cc.name(), t.recovery),
            ("westwood-abse", "westwood-abse", Recovery::NewReno)
        );
    }

    #[test]
    fn variant_parameters_are_parsed() {
        let t = tcp("cc = \"westwood\"\nwestwood = { tau = \"1s\", m = 4 }\n").unwrap();
        let p = TcpwParams::from_values(&t.cc.params);
        assert_eq!((p.tau_ns, p.m), (1_000_000_000, 4));
        let t = tcp("cc = \"westwood-abse\"\nwestwood_abse = { t_min = \"20ms\", n = 5, u_max = \"2Mbps\", beta = 0.5 }\n")
            .unwrap();
        let p = AbseParams::from_values(&t.cc.params);
        assert_eq!((p.t_min_ns, p.n, p.u_max_bps, p.beta, p.epsilon), (20_000_000, 5.0, Some(2e6), 0.5, 0.6));
        let t = tcp("cc = \"westwood-plus\"\nwestwood_plus = { min_window = \"10ms\" }\n").unwrap();
        assert_eq!(PlusParams::from_values(&t.cc.params).min_window_ns, 10_000_000);
    }

    #[test]
    fn the_ucla_agents_and_the_options_the_references_disagree_on() {
        use crate::model::{Inflation, PartialAckTimer};
        use westwood_algorithms::westwood::{AckedCountRule, Sampling, UclaFilter};
        // Agent/TCP/Westwood: Reno recovery without window inflation, limited transmit or the
        // bug_fix_ test; WestwoodNR: NewReno whose dupwnd_ counts the later DUPACKs only, with
        // the timer restarted on every partial ACK.
        let t = tcp("cc = \"westwood-ucla\"\n").unwrap();
        assert_eq!(
            (UclaParams::from_values(&t.cc.params), t.recovery, t.fast_recovery_inflation),
            (UclaParams::default(), Recovery::Reno, Inflation::Off)
        );
        assert!(!t.limited_transmit && t.repeat_fast_retransmit);
        assert_eq!(t.acked_count, None, "the estimator's own (ucla) applies");
        let t = tcp("cc = \"westwood-ucla-nr\"\n").unwrap();
        assert_eq!((t.recovery, t.fast_recovery_inflation), (Recovery::NewReno, Inflation::LaterDupacks));
        assert_eq!(t.partial_ack_timer, PartialAckTimer::Every);
        // An explicit key wins; and no profile changes what the agents' code fixes.
        let t = tcp("cc = \"westwood-ucla\"\nfast_recovery_inflation = true\n").unwrap();
        assert_eq!(t.fast_recovery_inflation, Inflation::Standard);
        for profile in ["paper", "ns2", "linux"] {
            let t = tcp(&format!("cc = \"westwood-ucla\"\nprofile = \"{profile}\"\n")).unwrap();
            assert_eq!(t.fast_recovery_inflation, Inflation::Off, "{profile}");
            assert!(!t.limited_transmit && t.repeat_fast_retransmit, "{profile}");
            let t = tcp(&format!("cc = \"westwood-ucla-nr\"\nprofile = \"{profile}\"\n")).unwrap();
            assert_eq!(t.fast_recovery_inflation, Inflation::LaterDupacks, "{profile}");
            assert_eq!(t.partial_ack_timer, PartialAckTimer::Every, "{profile}");
        }
        // Every value a registry entry fixes parses (a typo there would be an error at load).
        for entry in westwood_algorithms::registry::entries() {
            tcp(&format!("cc = \"{}\"\n", entry.name)).unwrap();
        }
        let t = tcp("cc = \"westwood-ucla\"\nwestwood_ucla = { filter = 1, tau = \"2s\", alpha = 0.8, tick = \"100ms\", initial_rtt_min = \"1s\", sample = \"interval\", acked_count = \"paper\" }\n").unwrap();
        assert_eq!(t.cc.name(), "westwood-ucla");
        let p = UclaParams::from_values(&t.cc.params);
        assert_eq!(p.filter, UclaFilter::TustinRatio10);
        assert_eq!(
            (p.tau_ns, p.fr_alpha, p.tick_ns, p.initial_rtt_min_ns),
            (2_000_000_000, 0.8, 100_000_000, 1_000_000_000)
        );
        assert_eq!((p.sample, t.acked_count), (Sampling::Interval, Some(AckedCountRule::Paper)));
        // sample on every variant with a Tustin step, acked_count on every Westwood variant.
        let t =
            tcp("cc = \"westwood\"\nwestwood = { sample = \"interval\", acked_count = \"ucla\" }\n").unwrap();
        let p = TcpwParams::from_values(&t.cc.params);
        assert_eq!((p.sample, t.acked_count), (Sampling::Interval, Some(AckedCountRule::Ucla)));
        let t = tcp("cc = \"westwood-tr\"\nwestwood_tr = { sample = \"interval\" }\n").unwrap();
        assert_eq!(TrParams::from_values(&t.cc.params).sample, Sampling::Interval);
        let t = tcp("cc = \"westwood-abse\"\nwestwood_abse = { sample = \"interval\" }\n").unwrap();
        assert_eq!(AbseParams::from_values(&t.cc.params).sample, Sampling::Interval);
        let t = tcp("cc = \"westwood-plus\"\nwestwood_plus = { acked_count = \"ucla\" }\n").unwrap();
        assert_eq!(t.acked_count, Some(AckedCountRule::Ucla));
        assert_eq!(tcp("cc = \"reno\"\n").unwrap().acked_count, None);
        // Westwood+ has no Tustin step: no sample there.
        let e = tcp("cc = \"westwood-plus\"\nwestwood_plus = { sample = \"interval\" }\n").unwrap_err();
        assert_eq!(e.field, "flows.f.westwood_plus.sample", "{e}");
        for (body, field) in [
            ("cc = \"westwood\"\nwestwood = { sample = \"midpoint\" }\n", "flows.f.westwood.sample"),
            ("cc = \"westwood\"\nwestwood = { acked_count = \"linux\" }\n", "flows.f.westwood.acked_count"),
            ("cc = \"westwood-ucla\"\nwestwood_ucla = { filter = 4 }\n", "flows.f.westwood_ucla.filter"),
            ("cc = \"westwood\"\nwestwood_ucla = { tau = \"1s\" }\n", "flows.f.westwood_ucla"),
        ] {
            let e = tcp(body).unwrap_err();
            assert_eq!(e.field, field, "{body}: {e}");
        }
    }

    #[test]
    fn bad_variant_settings_name_the_field() {
        let cases = [
            ("cc = \"vegas\"\n", "flows.f.cc"),
            ("recovery = \"fack\"\n", "flows.f.recovery"),
            ("cc = \"westwood\"\nwestwood = { m = 1 }\n", "flows.f.westwood.m"),
            ("cc = \"westwood\"\nwestwood = { tau = \"0s\" }\n", "flows.f.westwood.tau"),
            ("cc = \"westwood\"\nwestwood = { alpha = 0.9 }\n", "flows.f.westwood.alpha"),
            ("cc = \"reno\"\nwestwood = { tau = \"1s\" }\n", "flows.f.westwood"),
            ("cc = \"westwood-abse\"\nwestwood_abse = { beta = 1.5 }\n", "flows.f.westwood_abse.beta"),
            ("cc = \"westwood-abse\"\nwestwood_abse = { u_max = \"lots\" }\n", "flows.f.westwood_abse.u_max"),
        ];
        for (body, field) in cases {
            let err = tcp(body).unwrap_err();
            assert_eq!(err.field, field, "{body}: {err}");
        }
    }
}
