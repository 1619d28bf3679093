//! A flow's TCP settings: the keys of `[tcp]` and of a flow's table, resolved through the
//! flow's layers (its own table, then `[tcp]`), the control's registry entry and the profile.

use toml::Value;
use westwood_algorithms::{WindowConfig, WindowGrowth};

use super::congestion;
use super::fields::{self, describe, Section};
use super::units::format_duration;
use super::{FieldError, Res};
use crate::model::{
    CwndValidation, DelayedAckSpec, FastRetransmitTimer, Inflation, LossDetection, PartialAckTimer, PrrBound,
    PrrWindow, PushFlag, ReceiveWindowRule, RecoveryExit, RecoveryPacing, ReductionBase, Reordering, RtoSpec,
    RttEstimatorRule, SackNextSeg, SendBufferRule, TcpSpec, TimeoutThreshold,
};
use crate::profile::Profile;

/// The sender's keys of `[tcp]` and of a flow; [`tcp_keys`] adds the controls' parameter tables.
const SENDER_KEYS: &[&str] = &[
    "cc",
    "recovery",
    "segment_size",
    "header_size",
    "receiver_window",
    "initial_cwnd",
    "initial_ssthresh",
    "dupack_threshold",
    "rto_initial",
    "rto_min",
    "rto_max",
    "clock_granularity",
    "delayed_ack",
    "delayed_ack_timeout",
    "ack_every",
    "window_growth",
    "limited_transmit",
    "profile",
    "partial_ack_timer",
    "timeout_threshold",
    "recovery_pacing",
    "fast_recovery_inflation",
    "recovery_exit_growth",
    "fast_retransmit_timer",
    "repeat_fast_retransmit",
    "quick_acks",
    "overhead",
    "send_buffer",
    "cwnd_validation",
    "rtt_estimator",
    "timer_hz",
    "prr_window",
    "prr_bound",
    "receive_window",
    "reduction_base",
    "sack_next_seg",
    "loss_detection",
    "push_flag",
    "recovery_exit",
    "reordering",
    "frto",
    "preamble",
];

/// Every key of `[tcp]` and of a flow: the sender's, then each registered control's parameter
/// table (`westwood_algorithms::registry`), in the registry's order.
pub(crate) fn tcp_keys() -> Vec<&'static str> {
    let mut keys = SENDER_KEYS.to_vec();
    for entry in westwood_algorithms::registry::entries() {
        if let Some(table) = entry.parameters {
            if !keys.contains(&table.key) {
                keys.push(table.key);
            }
        }
    }
    keys
}

/// `initial_ssthresh = "unlimited"`: high enough never to matter, low enough never to overflow.
pub(crate) const UNLIMITED_SSTHRESH: u64 = u64::MAX / 4;

/// A key's value as a control's reference fixes it (`CcEntry::reference_tcp`, written as a
/// scenario would write it): `true` / `false` are booleans, anything else a string.
fn reference_value(text: &str) -> Value {
    match text {
        "true" => Value::Boolean(true),
        "false" => Value::Boolean(false),
        other => Value::String(other.to_string()),
    }
}

/// The bound `overhead` stays below (exclusive): 1 s.
pub(crate) const MAX_OVERHEAD_NS: u64 = 1_000_000_000;

/// `overhead`: a duration in `[0, 1s)`. It stands for a host's random processing time before a
/// segment leaves (Floyd & Jacobson 1992 drew it up to about one packet's transmission time at
/// the bottleneck); a second or more is no such jitter but a delay as long as a retransmission
/// timeout (the timer runs from when the sender emits a segment, so segments would time out
/// while still held), most likely a unit slip ("1s" for "1us"), and is refused rather than
/// warned about: a run with it measures the key, not the network.
fn send_overhead(v: &Value, field: &str) -> Res<u64> {
    let ns = fields::duration(v, field)?;
    if ns >= MAX_OVERHEAD_NS {
        return Err(FieldError::new(
            field,
            format!(
                "{} is not a processing-time jitter: the random send overhead must be less than 1s; \
                 Floyd & Jacobson's is up to one packet's transmission time at the bottleneck, \
                 like \"83us\" for 1040 B at 100 Mb/s (\"0s\": none)",
                format_duration(ns)
            ),
        ));
    }
    Ok(ns)
}

/// Builds a flow's TCP settings; `layers` are searched most specific first (the flow's table,
/// then `[tcp]`), then what the control's reference fixes (`CcEntry::reference_tcp`), then the
/// profile, then defaults.
pub(crate) fn resolve_tcp(layers: &[Section]) -> Res<TcpSpec> {
    let explicit = |key: &str| layers.iter().find_map(|s| s.get(key));
    let resolved = congestion::resolve(explicit("cc"), &explicit)?;
    let (cc_name, cc) = (resolved.name.clone(), resolved.spec);
    let reference_of = cc_name.clone();
    let reference: Vec<(&str, Value)> =
        resolved.reference_tcp.iter().map(|&(key, value)| (key, reference_value(value))).collect();
    let get = |key: &str| {
        explicit(key).or_else(|| {
            reference
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| (v, format!("{key} (as the reference of cc = {reference_of:?} sets it)")))
        })
    };
    // Where to report a problem with a defaulted key.
    let field_of = |key: &str| get(key).map(|(_, f)| f).unwrap_or_else(|| layers[0].field(key));

    let recovery = match get("recovery") {
        Some((v, f)) => congestion::recovery(v, &f)?,
        None => resolved.default_recovery,
    };
    let segment_size = match get("segment_size") {
        Some((v, f)) => {
            let n = fields::packet_size(v, &f)?;
            if n < 1 {
                return Err(FieldError::new(f, "must be at least 1 byte, like \"1000B\""));
            }
            n
        }
        None => 1_000,
    };
    let header_size = match get("header_size") {
        Some((v, f)) => fields::packet_size(v, &f)?,
        None => 40,
    };
    let receiver_window = match get("receiver_window") {
        Some((v, f)) => fields::size(v, &f)?,
        None => 1_000_000,
    };
    if receiver_window < segment_size {
        return Err(FieldError::new(
            field_of("receiver_window"),
            format!(
                "the receiver window ({receiver_window} bytes) must hold at least one segment \
                 (segment_size = {segment_size} bytes)"
            ),
        ));
    }
    let segments = |n: u64, f: &str| -> Res<u64> {
        if n < 1 {
            return Err(FieldError::new(f, "must be at least 1 segment"));
        }
        n.checked_mul(segment_size)
            .filter(|b| *b <= UNLIMITED_SSTHRESH)
            .ok_or_else(|| FieldError::new(f, format!("{n} segments is too large")))
    };
    let initial_cwnd = match get("initial_cwnd") {
        None => WindowConfig::rfc5681_initial_window(segment_size),
        Some((Value::String(s), _)) if s.trim().eq_ignore_ascii_case("rfc5681") => {
            WindowConfig::rfc5681_initial_window(segment_size)
        }
        Some((v, f)) => match fields::packet_count(v) {
            Some(Ok(n)) => segments(n, &f)?,
            Some(Err(m)) => return Err(FieldError::new(f, m)),
            None => {
                return Err(FieldError::new(
                    f,
                    format!(
                        "expected \"rfc5681\" or a number of segments like 4 or \"4pkt\", found {}",
                        describe(v)
                    ),
                ))
            }
        },
    };
    let initial_ssthresh = match get("initial_ssthresh") {
        None => UNLIMITED_SSTHRESH,
        Some((Value::String(s), _)) if s.trim().eq_ignore_ascii_case("unlimited") => UNLIMITED_SSTHRESH,
        Some((v, f)) => match fields::packet_count(v) {
            Some(Ok(n)) => segments(n, &f)?,
            Some(Err(m)) => return Err(FieldError::new(f, m)),
            None => {
                let bytes = fields::size(v, &f).map_err(|e| {
                    FieldError::new(
                        e.field,
                        format!("{}; or \"unlimited\", or a number of segments like \"64pkt\"", e.message),
                    )
                })?;
                if bytes == 0 {
                    return Err(FieldError::new(f, "must be greater than zero"));
                }
                bytes.min(UNLIMITED_SSTHRESH)
            }
        },
    };
    let dupack_threshold = match get("dupack_threshold") {
        Some((v, f)) => fields::uint32_at_least(v, &f, 1)?,
        None => 3,
    };
    /// Why the RTO has a floor: a backed-off timer climbs to `rto_max`, so that bounds the
    /// timeouts per second of a flow whose segments keep getting lost.
    const RTO_COST: &str = "at most 10000 timeouts per flow per simulated second";
    let defaults = RtoSpec::default();
    let rto = RtoSpec {
        initial: match get("rto_initial") {
            Some((v, f)) => fields::duration_at_least(v, &f, fields::MIN_RTO_NS, RTO_COST)?,
            None => defaults.initial,
        },
        min: match get("rto_min") {
            Some((v, f)) => fields::duration(v, &f)?,
            None => defaults.min,
        },
        max: match get("rto_max") {
            Some((v, f)) => fields::duration_at_least(v, &f, fields::MIN_RTO_NS, RTO_COST)?,
            None => defaults.max,
        },
        granularity: match get("clock_granularity") {
            Some((v, f)) => fields::duration(v, &f)?,
            None => defaults.granularity,
        },
    };
    let ack_defaults = DelayedAckSpec::default();
    let delayed_ack = DelayedAckSpec {
        enabled: match get("delayed_ack") {
            Some((v, f)) => fields::boolean(v, &f)?,
            None => ack_defaults.enabled,
        },
        timeout: match get("delayed_ack_timeout") {
            Some((v, f)) => fields::positive_duration(v, &f)?,
            None => ack_defaults.timeout,
        },
        every_segments: match get("ack_every") {
            Some((v, f)) => fields::uint32_at_least(v, &f, 1)?,
            None => ack_defaults.every_segments,
        },
        quick_acks: match get("quick_acks") {
            Some((v, f)) => fields::uint32_at_least(v, &f, 0)?,
            None => ack_defaults.quick_acks,
        },
    };
    let window_growth = match get("window_growth") {
        Some((v, f)) => congestion::window_growth(v, &f)?,
        None => WindowGrowth::default(),
    };
    let limited_transmit = match get("limited_transmit") {
        Some((v, f)) => fields::boolean(v, &f)?,
        None => false,
    };
    let partial_ack_timer = match get("partial_ack_timer") {
        Some((v, f)) => congestion::partial_ack_timer(v, &f)?,
        None => PartialAckTimer::default(),
    };
    let timeout_threshold = match get("timeout_threshold") {
        Some((v, f)) => congestion::timeout_threshold(v, &f)?,
        None => TimeoutThreshold::default(),
    };
    let recovery_pacing = match get("recovery_pacing") {
        Some((v, f)) => congestion::recovery_pacing(v, &f)?,
        None => RecoveryPacing::default(),
    };
    let fast_recovery_inflation = match get("fast_recovery_inflation") {
        Some((v, f)) => congestion::inflation(v, &f)?,
        None => Inflation::default(),
    };
    let recovery_exit_growth = match get("recovery_exit_growth") {
        Some((v, f)) => fields::boolean(v, &f)?,
        None => false,
    };
    let fast_retransmit_timer = match get("fast_retransmit_timer") {
        Some((v, f)) => congestion::fast_retransmit_timer(v, &f)?,
        None => FastRetransmitTimer::default(),
    };
    let repeat_fast_retransmit = match get("repeat_fast_retransmit") {
        Some((v, f)) => fields::boolean(v, &f)?,
        None => true,
    };
    let overhead = match get("overhead") {
        Some((v, f)) => send_overhead(v, &f)?,
        None => 0,
    };
    let send_buffer = match get("send_buffer") {
        Some((v, f)) => congestion::send_buffer(v, &f)?,
        None => SendBufferRule::default(),
    };
    let cwnd_validation = match get("cwnd_validation") {
        Some((v, f)) => congestion::cwnd_validation(v, &f)?,
        None => CwndValidation::default(),
    };
    let rtt_estimator = match get("rtt_estimator") {
        Some((v, f)) => congestion::rtt_estimator(v, &f)?,
        None => RttEstimatorRule::default(),
    };
    let timer_hz = match get("timer_hz") {
        Some((v, f)) => {
            // A jiffy of at least 10 us: the kernel's HZ is 100 to 1000 on every build.
            let hz = fields::uint32_at_least(v, &f, 0)?;
            if hz > 100_000 {
                return Err(FieldError::new(
                    &f,
                    format!(
                        "{hz} is out of range; expected 0 (exact timers) or a kernel's HZ, e.g. 250 or 1000"
                    ),
                ));
            }
            hz
        }
        None => 0,
    };
    let prr_window = match get("prr_window") {
        Some((v, f)) => congestion::prr_window(v, &f)?,
        None => PrrWindow::default(),
    };
    let prr_bound = match get("prr_bound") {
        Some((v, f)) => congestion::prr_bound(v, &f)?,
        None => PrrBound::default(),
    };
    let receive_window = match get("receive_window") {
        Some((v, f)) => congestion::receive_window(v, &f)?,
        None => ReceiveWindowRule::default(),
    };
    let reduction_base = match get("reduction_base") {
        Some((v, f)) => congestion::reduction_base(v, &f)?,
        None => ReductionBase::default(),
    };
    let sack_next_seg = match get("sack_next_seg") {
        Some((v, f)) => congestion::sack_next_seg(v, &f)?,
        None => SackNextSeg::default(),
    };
    let loss_detection = match get("loss_detection") {
        Some((v, f)) => congestion::loss_detection(v, &f)?,
        None => LossDetection::default(),
    };
    let push_flag = match get("push_flag") {
        Some((v, f)) => congestion::push_flag(v, &f)?,
        None => PushFlag::default(),
    };
    let recovery_exit = match get("recovery_exit") {
        Some((v, f)) => congestion::recovery_exit(v, &f)?,
        None => RecoveryExit::default(),
    };
    let reordering = match get("reordering") {
        Some((v, f)) => congestion::reordering(v, &f)?,
        None => Reordering::default(),
    };
    let frto = match get("frto") {
        Some((v, f)) => fields::boolean(v, &f)?,
        None => false,
    };
    let preamble = match get("preamble") {
        Some((v, f)) => {
            let n = fields::size(v, &f)?;
            if n >= segment_size {
                return Err(FieldError::new(
                    f,
                    format!(
                        "a preamble is one short segment ({n} bytes given, segment_size = \
                         {segment_size} bytes): make it less than a segment, like iperf3's \"37B\""
                    ),
                ));
            }
            n
        }
        None => 0,
    };
    let profile = match get("profile") {
        Some((v, f)) => congestion::profile(v, &f)?,
        None => Profile::default(),
    };
    let mut tcp = TcpSpec {
        cc_name,
        cc,
        recovery,
        segment_size,
        header_size,
        receiver_window,
        initial_cwnd,
        initial_ssthresh,
        dupack_threshold,
        rto,
        delayed_ack,
        window_growth,
        limited_transmit,
        partial_ack_timer,
        timeout_threshold,
        recovery_pacing,
        fast_recovery_inflation,
        recovery_exit_growth,
        fast_retransmit_timer,
        repeat_fast_retransmit,
        acked_count: resolved.acked_count,
        overhead,
        send_buffer,
        cwnd_validation,
        rtt_estimator,
        timer_hz,
        prr_window,
        prr_bound,
        receive_window,
        reduction_base,
        sack_next_seg,
        loss_detection,
        push_flag,
        recovery_exit,
        reordering,
        frto,
        preamble,
    };
    // The profile fills in the keys set nowhere (a key set in any layer, or fixed by the
    // control's reference, wins over it).
    profile.apply(&mut tcp, &|key| get(key).is_some());
    let rto = tcp.rto;
    if rto.min > rto.max {
        let from_profile = |key: &str| {
            if get(key).is_none() && profile != Profile::Paper {
                format!(", from profile {}", profile.name())
            } else {
                String::new()
            }
        };
        return Err(FieldError::new(
            field_of(if get("rto_min").is_some() { "rto_min" } else { "rto_max" }),
            format!(
                "rto_min ({}{}) must not exceed rto_max ({}{})",
                format_duration(rto.min),
                from_profile("rto_min"),
                format_duration(rto.max),
                from_profile("rto_max")
            ),
        ));
    }
    Ok(tcp)
}
