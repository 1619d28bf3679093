//! TCP profiles: one word (`[tcp] profile = "paper" | "ns2" | "linux"`) for a bundle of sender and
//! receiver behaviours, each of which is also a key of its own.
//!
//! Every profile sets the same keys, [`Profile::KEYS`]; a key set explicitly (in the flow's table,
//! in `[tcp]` or by `--set`) wins over the profile, each key decided on its own, and so does a
//! key the control's reference fixes (`westwood_algorithms::registry::CcEntry::reference_tcp`: the
//! UCLA agents'). `paper` is the simulator's defaults exactly, so `profile = "paper"` changes
//! nothing.
//!
//! | key | `paper` (default) | `ns2` | `linux` |
//! | --- | --- | --- | --- |
//! | `window_growth` | `per_ack` | `per_ack` | `linux` |
//! | `limited_transmit` | `false` | `true` | `true` |
//! | `recovery` | the cc's | the cc's | `reno` → `newreno` |
//! | `partial_ack_timer` | `first` | `first` | `every` |
//! | `timeout_threshold` | `always` | `always` | `new_episode` |
//! | `recovery_pacing` | `inflation` | `inflation` | `prr` |
//! | `fast_recovery_inflation` | `true` (the UCLA agents: their own) | `true` | `true` (unused with `prr`) |
//! | `recovery_exit_growth` | `false` | `true` | `true` |
//! | `fast_retransmit_timer` | `running` | `restart` | `restart` |
//! | `repeat_fast_retransmit` | `true` | `false` | `false` |
//! | `delayed_ack_timeout` | `200ms` | `100ms` | `40ms` |
//! | `ack_every` | `2` | `2` | `2` |
//! | `quick_acks` | `0` | `0` | `16` |
//! | `initial_cwnd` | `rfc5681` | `2` | `10` |
//! | `rto_initial` | `1s` | `3s` | `1s` |
//! | `rto_min` | `1s` | `200ms` | `200ms` |
//! | `rto_max` | `60s` | `60s` | `120s` |
//! | `clock_granularity` | `1ms` | `10ms` | = `rto_min` |
//! | `send_buffer` | `unlimited` | `unlimited` | `linux` |
//! | `cwnd_validation` | `none` | `none` | `linux` |
//! | `rtt_estimator` | `rfc6298` | `rfc6298` | `linux` |
//! | `timer_hz` | `0` | `0` | `250` |
//! | `prr_window` | `ssthresh` | `ssthresh` | `linux` |
//! | `prr_bound` | `ssrb` | `ssrb` | `safe_ack` |
//! | `receive_window` | `fixed` | `fixed` | `linux` |
//! | `reduction_base` | `flight_size` | `flight_size` | `cwnd` |
//! | `sack_next_seg` | `rfc6675` | `rfc6675` | `linux` |
//! | `loss_detection` | `dupthresh` | `dupthresh` | `rack` |
//! | `push_flag` | `none` | `none` | `linux` |
//! | `recovery_exit` | `at_recover` | `at_recover` | `above_recover` |
//! | `reordering` | `fixed` | `fixed` | `linux` |
//! | `frto` | `false` | `false` | `true` |
//!
//! No profile sets `overhead` (the random send delay against drop-tail phase effects): ns-2.35's
//! `overhead_` is 0, so `ns2` keeps 0; it is no sender rule of Linux's (real hosts' timing
//! noise is the testbed's anyway); `paper` is the defaults.
//!
//! Sources (`docs/scenarios.md` has the table with the reasons):
//! * `ns2`: ns-2.35's one-way agents (`Agent/TCP/Reno`, `/Newreno`, `/Sack1`, sink
//!   `Agent/TCPSink/DelAck`) with the defaults of its `tcl/lib/ns-default.tcl` (Debian's `ns2`
//!   package, the ns-2 the UCLA agents were cross-checked against): `singledup_ 1`,
//!   `Agent/TCP/Newreno newreno_changes1_ 1`, `DelAck interval_ 100ms`, `windowInit_ 2`,
//!   `rtxcur_init_ 3.0`, `minrto_ 0.2`, `maxrto_ 60`, `tcpTick_ 0.01`, `bug_fix_ true`; windows
//!   grow per ACK (`opencwnd()`), also on the ACK that ends recovery (`recv_newack_helper()`),
//!   Reno inflates by DUPACKs (`dupwnd_`), and every fast retransmit restarts the timer
//!   (`dupack_action()` -> `reset_rtx_timer(1,0)`).
//! * `linux`: `tcp_slow_start(tp, acked)` / `tcp_cong_avoid_ai(tp, cwnd, acked)` (byte counting
//!   without RFC 3465's per-ACK limit: `window_growth = "linux"`), also on the ACK that ends
//!   recovery (`tcp_cong_control()` once the state is Open); `tcp_add_reno_sack` (limited
//!   transmit); no RFC 5681 recovery (without SACK it stays in `TCP_CA_Recovery` until
//!   `high_seq`, RFC 6582 style, so no second fast retransmit before it); `tcp_rearm_rto` on
//!   every ACK that advances `snd_una`, and when the head is retransmitted
//!   (`tcp_xmit_retransmit_queue`); `tcp_enter_loss` calls the control's `ssthresh` only when
//!   the timeout opens a new loss episode (`timeout_threshold`); `tcp_cwnd_reduction` (RFC 6937
//!   PRR, since 3.2); `TCP_ATO_MIN` 40 ms, `TCP_MAX_QUICKACKS` 16; `TCP_INIT_CWND` 10 (RFC 6928);
//!   `TCP_TIMEOUT_INIT` 1 s; `TCP_RTO_MIN` 200 ms, `TCP_RTO_MAX` 120 s; `tcp_rtt_estimator` keeps
//!   the variance term at least `tcp_rto_min`, so the RTO is `srtt + max(rto_min, 4·mdev)`: RFC
//!   6298 with G = `rto_min`; `tcp_sndbuf_expand()` autotunes the send buffer to about two
//!   windows, which bounds what a long recovery sends beyond its hole (`tcp/send_buffer.rs`);
//!   the receiver offers 64 KiB until its buffer is autotuned and then two segments more per
//!   segment that arrives in order (`tcp_grow_window()`; `tcp/receive_window.rs`);
//!   `tcp_is_cwnd_limited()` lets the control grow the window only while the sender uses it
//!   all (`tcp/window_use.rs`); `tcp_cwnd_reduction()` sets `snd_cwnd` to the packets in flight
//!   plus PRR's `sndcnt` on every ACK of a recovery (`prr_window`), and lets the flight
//!   climb back towards `ssthresh` by one segment only on an ACK that advances `snd_una`
//!   without a new loss (`prr_bound`, since 5.19); `tcp_reno_ssthresh()` and CUBIC halve (or scale) `snd_cwnd`,
//!   not the FlightSize; `tcp_xmit_retransmit_queue()` resends only what is marked lost (no
//!   RFC 6675 rule (3) or rescue retransmission); with SACK, RACK marks what is lost
//!   (`tcp_rack_detect_loss()`, `tcp_recovery = 1`), lost retransmissions included
//!   (`loss_detection`); `tcp_sendmsg_locked()` marks PSH every half window written and where
//!   the writer stops, and the receiver acknowledges such a segment at once (`push_flag`);
//!   `tcp_try_undo_recovery()` holds a non-SACK
//!   connection in Recovery until an ACK beyond `high_seq` (`recovery_exit`);
//!   `tcp_check_reno_reordering()` raises a non-SACK connection's DUPACK threshold to the
//!   flight when more DUPACKs arrive than segments are out (`reordering`); `tcp_process_loss()`
//!   with `tcp_frto` = 2 sends new data on the first partial ACK after a timeout from Open or
//!   Disorder, or a repeated one, before resending (F-RTO, RFC 5682: `frto`, without SACK).

use westwood_algorithms::{WindowConfig, WindowGrowth};

use crate::tcp::Recovery;

use crate::fields::units::format_duration;
use crate::model::{
    CwndValidation, FastRetransmitTimer, Inflation, LossDetection, PartialAckTimer, PrrBound, PrrWindow,
    PushFlag, ReceiveWindowRule, RecoveryExit, RecoveryPacing, ReductionBase, Reordering, RttEstimatorRule,
    SackNextSeg, SendBufferRule, TcpSpec, TimeoutThreshold, NANOS_PER_SECOND,
};

const MS: u64 = 1_000_000;

/// A bundle of TCP sender and receiver behaviours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Profile {
    /// The simulator's defaults, which every committed result uses.
    #[default]
    Paper,
    /// ns-2.35's agents with their default parameters (Debian's `ns2`).
    Ns2,
    /// Linux's TCP (without SACK unless the flow's recovery is `sack`).
    Linux,
}

/// The `HZ` the `linux` profile's timers tick at: Debian's kernels' (`CONFIG_HZ_250`) and this
/// project's testbed's; the testbed sets the running kernel's own.
pub const LINUX_TIMER_HZ: u32 = 250;

impl Profile {
    /// Every profile, in the order the documentation lists them.
    pub const ALL: [Profile; 3] = [Profile::Paper, Profile::Ns2, Profile::Linux];

    /// The `[tcp]` keys every profile sets, in the order [`Profile::apply`] sets them
    /// (`clock_granularity` after `rto_min`, which `linux` derives it from).
    pub const KEYS: [&'static str; 32] = [
        "window_growth",
        "limited_transmit",
        "recovery",
        "partial_ack_timer",
        "timeout_threshold",
        "recovery_pacing",
        "fast_recovery_inflation",
        "recovery_exit_growth",
        "fast_retransmit_timer",
        "repeat_fast_retransmit",
        "delayed_ack_timeout",
        "ack_every",
        "quick_acks",
        "initial_cwnd",
        "rto_initial",
        "rto_min",
        "rto_max",
        "clock_granularity",
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
    ];

    /// The name scenarios use: `"paper"`, `"ns2"` or `"linux"`.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Paper => "paper",
            Profile::Ns2 => "ns2",
            Profile::Linux => "linux",
        }
    }

    /// The profile named `name` (case-insensitive).
    pub fn from_name(name: &str) -> Option<Profile> {
        Profile::ALL.into_iter().find(|p| p.name().eq_ignore_ascii_case(name.trim()))
    }

    /// Set every key of the profile on `tcp`, except the keys for which `keep(key)` is true
    /// (those the scenario or the user set explicitly), which stay as they are.
    ///
    /// `recovery` is a rule, not a value: `linux` turns the `reno` recovery into `newreno` and
    /// leaves the others, the other profiles leave the recovery as the cc chose it. Applying a
    /// profile to settings another profile made gives what applying it to the defaults gives,
    /// since every profile sets every key; only `recovery` cannot be turned back into `reno`.
    pub fn apply(self, tcp: &mut TcpSpec, keep: &dyn Fn(&str) -> bool) {
        for key in Profile::KEYS {
            if !keep(key) {
                self.set(tcp, key);
            }
        }
    }

    /// The value `tcp` holds for one of [`Profile::KEYS`], as a scenario (or `--set`) writes it:
    /// `"byte_counting"`, `"true"`, `"newreno"`, `"40ms"`, `"16"`, `"10"` (segments) ...
    pub fn key_value(tcp: &TcpSpec, key: &str) -> String {
        match key {
            "window_growth" => tcp.window_growth.name().to_string(),
            "limited_transmit" => tcp.limited_transmit.to_string(),
            "recovery" => tcp.recovery.name().to_string(),
            "partial_ack_timer" => tcp.partial_ack_timer.name().to_string(),
            "timeout_threshold" => tcp.timeout_threshold.name().to_string(),
            "recovery_pacing" => tcp.recovery_pacing.name().to_string(),
            "fast_recovery_inflation" => tcp.fast_recovery_inflation.name().to_string(),
            "recovery_exit_growth" => tcp.recovery_exit_growth.to_string(),
            "fast_retransmit_timer" => tcp.fast_retransmit_timer.name().to_string(),
            "repeat_fast_retransmit" => tcp.repeat_fast_retransmit.to_string(),
            "delayed_ack_timeout" => format_duration(tcp.delayed_ack.timeout),
            "ack_every" => tcp.delayed_ack.every_segments.to_string(),
            "quick_acks" => tcp.delayed_ack.quick_acks.to_string(),
            "initial_cwnd" if tcp.initial_cwnd.is_multiple_of(tcp.segment_size.max(1)) => {
                (tcp.initial_cwnd / tcp.segment_size.max(1)).to_string()
            }
            "initial_cwnd" => format!("{}B", tcp.initial_cwnd),
            "rto_initial" => format_duration(tcp.rto.initial),
            "rto_min" => format_duration(tcp.rto.min),
            "rto_max" => format_duration(tcp.rto.max),
            "clock_granularity" => format_duration(tcp.rto.granularity),
            "send_buffer" => tcp.send_buffer.name().to_string(),
            "cwnd_validation" => tcp.cwnd_validation.name().to_string(),
            "rtt_estimator" => tcp.rtt_estimator.name().to_string(),
            "timer_hz" => tcp.timer_hz.to_string(),
            "prr_window" => tcp.prr_window.name().to_string(),
            "prr_bound" => tcp.prr_bound.name().to_string(),
            "receive_window" => tcp.receive_window.name().to_string(),
            "reduction_base" => tcp.reduction_base.name().to_string(),
            "sack_next_seg" => tcp.sack_next_seg.name().to_string(),
            "loss_detection" => tcp.loss_detection.name().to_string(),
            "push_flag" => tcp.push_flag.name().to_string(),
            "recovery_exit" => tcp.recovery_exit.name().to_string(),
            "reordering" => tcp.reordering.name().to_string(),
            "frto" => tcp.frto.to_string(),
            _ => panic!("{key} is not a profile key"),
        }
    }

    /// Set one of [`Profile::KEYS`] to this profile's value.
    fn set(self, tcp: &mut TcpSpec, key: &str) {
        use Profile::{Linux, Ns2, Paper};
        match key {
            "window_growth" => {
                tcp.window_growth = match self {
                    Paper | Ns2 => WindowGrowth::PerAck,
                    Linux => WindowGrowth::Linux,
                }
            }
            "limited_transmit" => tcp.limited_transmit = self != Paper,
            "recovery" => {
                if self == Linux && tcp.recovery == Recovery::Reno {
                    tcp.recovery = Recovery::NewReno;
                }
            }
            "partial_ack_timer" => {
                tcp.partial_ack_timer = match self {
                    Paper | Ns2 => PartialAckTimer::First,
                    Linux => PartialAckTimer::Every,
                }
            }
            "timeout_threshold" => {
                tcp.timeout_threshold = match self {
                    Paper | Ns2 => TimeoutThreshold::Always,
                    Linux => TimeoutThreshold::NewEpisode,
                }
            }
            "recovery_pacing" => {
                tcp.recovery_pacing = match self {
                    Paper | Ns2 => RecoveryPacing::Inflation,
                    Linux => RecoveryPacing::Prr,
                }
            }
            // Every profile inflates (ns-2's Reno/NewReno agents, RFC 5681; Linux paces with PRR
            // instead, which makes the key moot).
            "fast_recovery_inflation" => tcp.fast_recovery_inflation = Inflation::Standard,
            "recovery_exit_growth" => tcp.recovery_exit_growth = self != Paper,
            "fast_retransmit_timer" => {
                tcp.fast_retransmit_timer =
                    if self == Paper { FastRetransmitTimer::Running } else { FastRetransmitTimer::Restart }
            }
            // ns-2's `bug_fix_`; Linux recovers NewReno-style, which always waits for `recover`.
            "repeat_fast_retransmit" => tcp.repeat_fast_retransmit = self == Paper,
            "delayed_ack_timeout" => {
                tcp.delayed_ack.timeout = match self {
                    Paper => 200 * MS,
                    Ns2 => 100 * MS,
                    Linux => 40 * MS,
                }
            }
            "ack_every" => tcp.delayed_ack.every_segments = 2,
            "quick_acks" => tcp.delayed_ack.quick_acks = if self == Linux { 16 } else { 0 },
            "initial_cwnd" => {
                tcp.initial_cwnd = match self {
                    Paper => WindowConfig::rfc5681_initial_window(tcp.segment_size),
                    Ns2 => 2 * tcp.segment_size,
                    Linux => 10 * tcp.segment_size,
                }
            }
            "rto_initial" => {
                tcp.rto.initial = if self == Ns2 { 3 * NANOS_PER_SECOND } else { NANOS_PER_SECOND }
            }
            "rto_min" => {
                tcp.rto.min = match self {
                    Paper => NANOS_PER_SECOND,
                    Ns2 | Linux => 200 * MS,
                }
            }
            "rto_max" => {
                tcp.rto.max = match self {
                    Paper | Ns2 => 60 * NANOS_PER_SECOND,
                    Linux => 120 * NANOS_PER_SECOND,
                }
            }
            "clock_granularity" => {
                tcp.rto.granularity = match self {
                    Paper => MS,
                    Ns2 => 10 * MS,
                    Linux => tcp.rto.min,
                }
            }
            "send_buffer" => {
                tcp.send_buffer =
                    if self == Linux { SendBufferRule::Linux } else { SendBufferRule::Unlimited }
            }
            "cwnd_validation" => {
                tcp.cwnd_validation = if self == Linux { CwndValidation::Linux } else { CwndValidation::None }
            }
            "rtt_estimator" => {
                tcp.rtt_estimator =
                    if self == Linux { RttEstimatorRule::Linux } else { RttEstimatorRule::Rfc6298 }
            }
            "timer_hz" => tcp.timer_hz = if self == Linux { LINUX_TIMER_HZ } else { 0 },
            "prr_window" => {
                tcp.prr_window = if self == Linux { PrrWindow::Linux } else { PrrWindow::Ssthresh }
            }
            "prr_bound" => tcp.prr_bound = if self == Linux { PrrBound::SafeAck } else { PrrBound::Ssrb },
            "receive_window" => {
                tcp.receive_window =
                    if self == Linux { ReceiveWindowRule::Linux } else { ReceiveWindowRule::Fixed }
            }
            "reduction_base" => {
                tcp.reduction_base =
                    if self == Linux { ReductionBase::Cwnd } else { ReductionBase::FlightSize }
            }
            "sack_next_seg" => {
                tcp.sack_next_seg = if self == Linux { SackNextSeg::Linux } else { SackNextSeg::Rfc6675 }
            }
            "loss_detection" => {
                tcp.loss_detection =
                    if self == Linux { LossDetection::Rack } else { LossDetection::Dupthresh }
            }
            "push_flag" => tcp.push_flag = if self == Linux { PushFlag::Linux } else { PushFlag::None },
            "recovery_exit" => {
                tcp.recovery_exit =
                    if self == Linux { RecoveryExit::AboveRecover } else { RecoveryExit::AtRecover }
            }
            // ns-2's `numdupacks_` never changes; Linux's `tp->reordering` does.
            "reordering" => {
                tcp.reordering = if self == Linux { Reordering::Linux } else { Reordering::Fixed }
            }
            // Linux's `tcp_frto` = 2; ns-2's agents have no F-RTO.
            "frto" => tcp.frto = self == Linux,
            _ => unreachable!("{key} is not a profile key"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CcSpec, FastRetransmitTimer, RtoSpec};

    fn defaults(recovery: Recovery) -> TcpSpec {
        TcpSpec::defaults(CcSpec::named("reno"), recovery, 400)
    }

    #[test]
    fn paper_is_the_defaults_and_every_profile_sets_every_key() {
        for recovery in Recovery::ALL {
            let mut t = defaults(recovery);
            Profile::Paper.apply(&mut t, &|_| false);
            assert_eq!(t, defaults(recovery));
        }
        // Applying a profile over another's settings is the same as over the defaults.
        for p in Profile::ALL {
            for q in Profile::ALL {
                let mut over = defaults(Recovery::NewReno);
                q.apply(&mut over, &|_| false);
                p.apply(&mut over, &|_| false);
                let mut direct = defaults(Recovery::NewReno);
                p.apply(&mut direct, &|_| false);
                assert_eq!(over, direct, "{} over {}", p.name(), q.name());
            }
        }
    }

    #[test]
    fn linux_and_ns2_set_their_values_and_kept_keys_stay() {
        let mut t = defaults(Recovery::Reno);
        Profile::Linux.apply(&mut t, &|_| false);
        assert_eq!(t.window_growth, WindowGrowth::Linux);
        assert!(t.limited_transmit);
        assert_eq!(t.recovery, Recovery::NewReno);
        assert_eq!((t.partial_ack_timer, t.recovery_pacing), (PartialAckTimer::Every, RecoveryPacing::Prr));
        assert_eq!(t.timeout_threshold, TimeoutThreshold::NewEpisode);
        assert!(t.recovery_exit_growth && !t.repeat_fast_retransmit);
        assert_eq!(t.fast_retransmit_timer, FastRetransmitTimer::Restart);
        assert_eq!((t.delayed_ack.timeout, t.delayed_ack.quick_acks), (40 * MS, 16));
        assert_eq!(t.initial_cwnd, 4000);
        assert_eq!(
            t.rto,
            RtoSpec {
                initial: NANOS_PER_SECOND,
                min: 200 * MS,
                max: 120 * NANOS_PER_SECOND,
                granularity: 200 * MS
            }
        );
        // SACK and Tahoe stay.
        for recovery in [Recovery::Sack, Recovery::Tahoe] {
            let mut t = defaults(recovery);
            Profile::Linux.apply(&mut t, &|_| false);
            assert_eq!(t.recovery, recovery);
        }
        // Kept keys stay; clock_granularity follows the rto_min that was kept.
        let mut t = defaults(Recovery::Reno);
        t.rto.min = 2 * NANOS_PER_SECOND;
        Profile::Linux.apply(&mut t, &|k| k == "rto_min" || k == "recovery");
        assert_eq!((t.rto.min, t.rto.granularity), (2 * NANOS_PER_SECOND, 2 * NANOS_PER_SECOND));
        assert_eq!(t.recovery, Recovery::Reno);
        // ns-2.35's defaults (tcl/lib/ns-default.tcl) and agents' code.
        let mut t = defaults(Recovery::NewReno);
        Profile::Ns2.apply(&mut t, &|_| false);
        assert_eq!(t.partial_ack_timer, PartialAckTimer::First);
        assert_eq!(t.timeout_threshold, TimeoutThreshold::Always);
        assert_eq!((t.window_growth, t.limited_transmit), (WindowGrowth::PerAck, true));
        assert!(t.recovery_exit_growth && !t.repeat_fast_retransmit);
        assert_eq!(t.fast_retransmit_timer, FastRetransmitTimer::Restart);
        assert_eq!((t.delayed_ack.timeout, t.initial_cwnd), (100 * MS, 800));
        assert_eq!(
            t.rto,
            RtoSpec {
                initial: 3 * NANOS_PER_SECOND,
                min: 200 * MS,
                max: 60 * NANOS_PER_SECOND,
                granularity: 10 * MS
            }
        );
    }

    #[test]
    fn key_values_read_back_as_scenario_values() {
        let mut t = defaults(Recovery::Reno);
        Profile::Linux.apply(&mut t, &|_| false);
        let values: Vec<String> = Profile::KEYS.iter().map(|k| Profile::key_value(&t, k)).collect();
        assert_eq!(
            values,
            [
                "linux",
                "true",
                "newreno",
                "every",
                "new_episode",
                "prr",
                "true",
                "true",
                "restart",
                "false",
                "40ms",
                "2",
                "16",
                "10",
                "1s",
                "200ms",
                "120s",
                "200ms",
                "linux",
                "linux",
                "linux",
                "250",
                "linux",
                "safe_ack",
                "linux",
                "cwnd",
                "linux",
                "rack",
                "linux",
                "above_recover",
                "linux",
                "true"
            ]
        );
        t.initial_cwnd = 1000;
        assert_eq!(Profile::key_value(&t, "initial_cwnd"), "1000B");
    }

    #[test]
    fn names_round_trip() {
        for p in Profile::ALL {
            assert_eq!(Profile::from_name(p.name()), Some(p));
        }
        assert_eq!(Profile::from_name(" Linux "), Some(Profile::Linux));
        assert_eq!(Profile::from_name("bsd"), None);
    }
}
