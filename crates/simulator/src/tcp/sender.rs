//! The sending end of a bulk ("FTP") TCP flow.
//!
//! Implements what RFC 5681 leaves to the sender — sending within min(cwnd, rwnd), fast
//! retransmit on the `dupack_threshold`-th duplicate ACK, fast recovery with window inflation —
//! plus RFC 6582 NewReno partial-ACK handling, RFC 6675 SACK-based loss recovery, Tahoe's fast
//! retransmit without fast recovery, and the RFC 6298 retransmission timer with Karn's rule and
//! exponential backoff. The congestion window itself belongs to the [`CongestionControl`], which
//! sees every ACK; recovery keeps its temporary window inflation separately (like ns-2's
//! `dupwnd_`), so any congestion control composes with any recovery.
//!
//! The recoveries ([`Recovery`](super::Recovery); `tcp/recovery/`):
//! * `reno` (RFC 5681 §3.2): leave recovery on the first ACK of new data.
//! * `newreno` (RFC 6582): stay until `recover` is acknowledged, one hole per partial ACK, the
//!   timer restarted on the first partial ACK only ("Impatient", RFC 6582 §4), or on every one
//!   with `partial_ack_timer = Every` ("Slow-but-Steady": ns-2's agent with
//!   `newreno_changes1_ 0`; Linux rearms the timer on every ACK that advances `snd_una`).
//! * `tahoe`: on the `dupthresh`-th DUPACK, retransmit and go back to `snd_una` with cwnd = 1 SMSS
//!   (the control gets [`CongestionEvent::DuplicateAcksSlowStart`]); no fast recovery. DUPACKs
//!   for data sent before that loss was detected do not trigger another fast retransmit (ns-2's
//!   `bug_fix_`, the same test as NewReno's RFC 6582 §3.2 step 2).
//! * `sack` (RFC 6675, with the receiver's RFC 2018 blocks): see below.
//!
//! SACK (RFC 6675). A [`Scoreboard`] records the SACKed ranges above `snd_una`. An ACK counts as
//! a DUPACK for recovery only if it SACKs new data (§2). Recovery starts at `dupthresh` such
//! DUPACKs or as soon as `IsLost(snd_una)` holds (§5 steps 1-2); `RecoveryPoint` is `snd_max`
//! then, the control reduces the window as for any 3-DUPACK loss, the first un-acknowledged
//! segment is resent at once (§5 (4.3)) and from then on, on every ACK, segments chosen by
//! `NextSeg` (§4 rules 1-4: lost holes above `HighRxt`, then new data, then un-SACKed data below
//! the highest SACK, then one rescue retransmission) are sent while `cwnd - pipe >= SMSS`, where
//! `pipe` is RFC 6675's `SetPipe` and `cwnd` the control's (no inflation). Recovery ends on the
//! cumulative ACK of `RecoveryPoint`; partial ACKs change nothing else, and restart the timer.
//!
//! SACK after a timeout (§5.1): the scoreboard is kept. RFC 2018 §8 asked senders to clear it
//! because a receiver may renege (drop data it SACKed); RFC 6675 §5.1 lets senders keep it,
//! since reneging is rare, and that is what Linux and FreeBSD do, falling back to clearing only
//! when reneging is detected. Our receiver never reneges (its buffer is unbounded), so clearing
//! would only resend data the receiver holds. On the RTO the sender marks everything un-SACKed
//! as lost (`RecoveryPoint = snd_max`), restarts from `snd_una` with the control's loss window and
//! resends the un-SACKed holes in order, still by `pipe < cwnd` and `NextSeg` (Linux's "loss"
//! state), so SACKed segments are skipped; no new SACK recovery starts until `RecoveryPoint` is
//! cumulatively acknowledged, as §5.1 requires.
//!
//! Limited transmit (RFC 3042), when the flow's `limited_transmit` is on (off by default, as in the
//! ns-2 agents of the seed papers; Linux always does it). Outside loss recovery, each of the first
//! `dupthresh - 1` consecutive DUPACKs lets one segment of previously unsent data out beyond cwnd,
//! if the receiver's window allows and FlightSize stays at most cwnd + (`dupthresh` - 1)·SMSS (§2:
//! "cwnd plus 2 segments" at the standard threshold); cwnd is not changed. A small window that a
//! loss leaves with too few segments behind it for `dupthresh` DUPACKs (with delayed ACKs the first
//! segment after the hole acknowledges the delayed one instead of making a DUPACK) then still ends
//! in fast retransmit rather than a timeout (§1). The bytes so sent are not counted in the
//! FlightSize that the loss detection hands to the control (RFC 5681 §3.2 step 2). With `sack`
//! recovery it is RFC 6675 §5 step (3): on a DUPACK that SACKs new data (only those count, RFC 3042
//! §2's note on SACK), `HighRxt` = `HighACK` and new data goes out while `cwnd - pipe >= SMSS`
//! (pipe leaves out the SACKed segments, as gone; since `IsLost` starts recovery once more than
//! (`dupthresh` - 1)·SMSS are SACKed, FlightSize stays within the same bound). Tahoe, Reno and
//! NewReno use the first rule; inside fast recovery nothing changes (Reno's inflation, SACK's pipe
//! already send on DUPACKs).
//!
//! Window inflation (`reno`, `newreno`): on entering fast recovery the window is the control's
//! cwnd plus `dupthresh` segments, plus one per further DUPACK (RFC 5681 §3.2 steps 3-4); a
//! NewReno partial ACK deflates it by the bytes acknowledged and adds one segment back (RFC 6582
//! §3.2 step 3). With `fast_recovery_inflation = false` none of that happens: the window stays
//! the control's cwnd, so after the fast retransmit nothing new is sent until the ACKs bring the
//! flight under it (the UCLA ns-2 Westwood agent, a Reno agent without `dupwnd_`).
//!
//! PRR (RFC 6937, `recovery_pacing = Prr`, as Linux's `tcp_cwnd_reduction`): in fast recovery
//! (any of `reno`, `newreno`, `sack`) the window is neither inflated nor the control's cwnd.
//! At the loss `RecoverFS` = FlightSize (as the control got it) and `prr_delivered` =
//! `prr_out` = 0; on every ACK in recovery `prr_delivered` += DeliveredData (the bytes newly
//! acknowledged cumulatively or SACKed; without SACK a DUPACK counts one segment and a
//! cumulative ACK what it covers beyond the segments its DUPACKs counted, as Linux's
//! `tcp_add_reno_sack` / `tcp_remove_reno_sacks`), and with `pipe` (RFC 6675's; without SACK
//! FlightSize minus the segments DUPACKs reported held and minus a hole waiting for its
//! retransmission):
//! * `pipe > ssthresh`: `sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out`;
//! * else (PRR-SSRB): `sndcnt = MIN(ssthresh - pipe, MAX(prr_delivered - prr_out,
//!   DeliveredData) + SMSS)`;
//!
//! and up to `sndcnt` bytes go out (`prr_out` counts everything sent in recovery, the fast
//! retransmission included). The CEIL is taken in whole segments, as Linux counts packets.
//! `ssthresh` is the control's, so PRR composes with any control: the control decides the
//! target at the loss, PRR only paces the way there; when recovery ends the control's cwnd
//! applies again (Reno's rules set it to ssthresh). Without SACK, what goes out is the hole a
//! NewReno partial ACK revealed (not resent at once but as the first segment PRR allows, as Linux
//! does), then new data; with SACK, RFC 6675's `NextSeg` as usual.
//!
//! F-RTO after a timeout without SACK (RFC 5682 §2): `tcp/recovery/frto.rs`.
//!
//! Deviations: limited transmit is off unless the flow asks for it (RFC 5681 §3.2 step 1 says a
//! sender SHOULD do it; ns-2's agents did not, by default, before 2001-11-28, and the seed
//! papers' results are reproduced without it); with a `dupthresh` other than three it allows
//! `dupthresh - 1` segments rather than RFC 3042's two, as Linux scales it with
//! `tcp_reordering`. After a timeout a sender without SACK goes back to `snd_una` and resends
//! everything outstanding as the window allows (go-back-N), since it cannot know what the
//! receiver holds; limited transmit waits until that resend has caught up with `snd_max` (it
//! sends only previously unsent data).

use super::congestion_state::CongestionState;
use super::observation::AckObservation;
use super::push::PushMarks;
use super::receive_window::ReceiveWindow;
use super::recovery::frto::Frto;
use super::recovery::rack::Rack;
use super::recovery::tlp::TailLossProbe;
use super::recovery::{LossRecovery, RecoveryPacer};
use super::reordering::RenoSacks;
use super::retransmission_timer::RetransmissionTimer;
use super::rtt::RttEstimator;
use super::sack::Scoreboard;
use super::send_buffer::SendBuffer;
use super::timer_wheel::TimerWheel;
use super::window_use::WindowUse;
use crate::model::{
    FastRetransmitTimer, LossDetection, Nanos, PartialAckTimer, PushFlag, RecoveryExit, ReductionBase,
    Reordering, SackNextSeg, SendBufferRule, TcpSpec, TimeoutThreshold,
};
use crate::network::{Packet, PacketKind, SackBlocks};
use std::collections::VecDeque;
use westwood_algorithms::{AckEvent, CongestionControl, CongestionEvent, WindowGrowth};
use westwood_trace::{CaState, TraceEvent};

#[derive(Debug, Clone, Copy)]
pub(in crate::tcp) struct SentSegment {
    pub(in crate::tcp) start: u64,
    pub(in crate::tcp) end: u64,
    sent_at: Nanos,
    /// Sent more than once: its ACK gives no RTT sample (Karn).
    retransmitted: bool,
    /// When it last left the sender (RACK's `xmit_ts`, Linux's `skb_mstamp`).
    pub(in crate::tcp) xmit_at: Nanos,
    /// Retransmitted at least once (Linux's `TCPCB_EVER_RETRANS`; `retransmitted` also marks
    /// what a timeout made ambiguous).
    pub(in crate::tcp) resent: bool,
    /// With RACK (`tcp/recovery/rack.rs`): SACKed, marked lost (`TCPCB_LOST`), and
    /// retransmitted since it was last marked lost (`TCPCB_SACKED_RETRANS`).
    pub(in crate::tcp) sacked: bool,
    pub(in crate::tcp) lost: bool,
    pub(in crate::tcp) rexmit_out: bool,
}

impl SentSegment {
    pub(in crate::tcp) fn len(&self) -> u64 {
        self.end - self.start
    }
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SenderStats {
    /// Segments put on the wire, retransmissions included.
    pub segments_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    /// Loss detections by DUPACKs (fast retransmits; with SACK, entries into loss recovery).
    pub fast_retransmits: u64,
    /// New segments sent by RFC 3042 limited transmit (part of `segments_sent`).
    pub limited_transmits: u64,
}

pub struct Sender {
    pub(in crate::tcp) flow: u32,
    pub(in crate::tcp) node: u32,
    pub(in crate::tcp) peer: u32,
    pub(in crate::tcp) mss: u64,
    pub(in crate::tcp) header_size: u64,
    pub(in crate::tcp) dupack_threshold: u32,
    /// The loss recovery and the state it alone keeps (`tcp/recovery/`).
    pub(in crate::tcp) recovery: LossRecovery,
    pub(in crate::tcp) cc: Box<dyn CongestionControl>,
    pub(in crate::tcp) rtt: RttEstimator,

    /// Oldest unacknowledged byte.
    pub(in crate::tcp) snd_una: u64,
    /// Next byte to send (moves back to `snd_una` after a timeout or a Tahoe fast retransmit).
    pub(in crate::tcp) snd_nxt: u64,
    /// Highest byte sent + 1.
    pub(in crate::tcp) snd_max: u64,
    /// The application has handed TCP data up to here (`None`: unlimited).
    pub(in crate::tcp) data_limit: Option<u64>,
    /// The end of the flow's `preamble` while the application waits for its acknowledgment
    /// before writing its bulk data (iperf3's cookie); `None` once it is acknowledged, or
    /// without one.
    pub(in crate::tcp) preamble_end: Option<u64>,
    /// The socket buffer the application writes into (`send_buffer`).
    pub(in crate::tcp) send_buffer: SendBuffer,
    /// What the control's loss reduction is computed from (`reduction_base`).
    pub(in crate::tcp) reduction_base: ReductionBase,
    /// Which RFC 6675 `NextSeg` rules SACK recovery follows (`sack_next_seg`).
    pub(in crate::tcp) sack_next_seg: SackNextSeg,
    /// Which cumulative ACK ends NewReno recovery (`recovery_exit`).
    pub(in crate::tcp) recovery_exit: RecoveryExit,
    /// The window grows by what an ACK delivered, as Linux counts it (`window_growth =
    /// "linux"`: `tcp_newly_delivered()`), rather than by all it acknowledged.
    pub(in crate::tcp) grows_by_delivered: bool,
    /// How much of its window the sender has been using (`cwnd_validation`).
    pub(in crate::tcp) window_use: WindowUse,
    /// Segments sent since the window use was last recorded.
    pub(in crate::tcp) sent_since_window_use: u64,
    pub(in crate::tcp) started: bool,
    pub(in crate::tcp) peer_window: u64,
    /// The largest window the receiver has offered (Linux's `max_window`).
    pub(in crate::tcp) max_window: u64,
    /// With `push_flag = "linux"`: the segments to send with PSH (`tcp/push.rs`).
    pub(in crate::tcp) push_marks: Option<PushMarks>,

    pub(in crate::tcp) dupacks: u32,
    /// RFC 3042 limited transmit is on.
    pub(in crate::tcp) limited_transmit: bool,
    /// Bytes sent by limited transmit since the last ACK of new data (or timeout): left out of
    /// the FlightSize a loss detection reports (RFC 5681 §3.2 step 2).
    pub(in crate::tcp) limited_bytes: u64,
    /// Open, fast recovery or Loss (`tcp/congestion_state.rs`).
    pub(in crate::tcp) state: CongestionState,
    /// RFC 6582 `recover` / RFC 6675 `RecoveryPoint`: `snd_max` when the last loss was detected.
    pub(in crate::tcp) recover: Option<u64>,
    /// Which NewReno partial ACKs restart the timer.
    pub(in crate::tcp) partial_ack_timer: PartialAckTimer,
    /// Which timeouts ask the control for a new threshold.
    pub(in crate::tcp) timeout_threshold: TimeoutThreshold,
    /// What paces fast recovery, with its state: window inflation (RFC 5681) or PRR (RFC 6937).
    pub(in crate::tcp) pacing: RecoveryPacer,
    /// The ACK that ends fast recovery also grows the window.
    pub(in crate::tcp) recovery_exit_growth: bool,
    /// The fast retransmission restarts the retransmission timer.
    pub(in crate::tcp) fast_retransmit_timer: FastRetransmitTimer,
    /// Reno recovery: DUPACKs below `recover` may start another fast retransmit.
    pub(in crate::tcp) repeat_fast_retransmit: bool,
    /// PRR without SACK: bytes the DUPACKs said the receiver holds above the hole (one segment
    /// each, Linux's `sacked_out` for a connection without SACK).
    pub(in crate::tcp) dup_credit: u64,
    /// Without SACK, with `reordering = "linux"` or F-RTO: Linux's DUPACK count and the
    /// threshold it may raise (`tcp/reordering.rs`); `None`: the threshold is `dupack_threshold`
    /// and DUPACKs free nothing in Loss.
    pub(in crate::tcp) reno_sacks: Option<RenoSacks>,
    /// F-RTO's state (`tcp/recovery/frto.rs`); `None`: the flow does not do F-RTO (`frto`).
    pub(in crate::tcp) frto: Option<Frto>,

    /// SACK: what the receiver holds above `snd_una`.
    pub(in crate::tcp) scoreboard: Scoreboard,
    /// SACK with `loss_detection = "rack"`: RACK's state (`tcp/recovery/rack.rs`); `None`: RFC
    /// 6675's `IsLost` (`lost_to`).
    pub(in crate::tcp) rack: Option<Rack>,
    /// With RACK: the tail loss probe (`tcp/recovery/tlp.rs`).
    pub(in crate::tcp) tlp: Option<TailLossProbe>,
    /// SACK: the first block received that reached beyond `snd_max` (an invariant violation).
    pub(in crate::tcp) bad_sack_block: Option<(u64, u64)>,

    pub(in crate::tcp) outstanding: VecDeque<SentSegment>,
    /// RFC 6298's retransmission timer (`tcp/retransmission_timer.rs`).
    pub(in crate::tcp) rto_timer: RetransmissionTimer,
    /// The per-ACK trace's rows not yet taken by the simulator; `None` when not tracing.
    pub(in crate::tcp) observations: Option<Vec<AckObservation>>,
    pub stats: SenderStats,
}

impl Sender {
    pub fn new(flow: u32, node: u32, peer: u32, spec: &TcpSpec, cc: Box<dyn CongestionControl>) -> Self {
        // The window the receiver's SYN-ACK offered.
        let syn_ack_window =
            ReceiveWindow::new(spec.receive_window, spec.receiver_window, spec.segment_size).advertised();
        // RACK-TLP needs SACK: without it Linux marks losses by its DUPACK count.
        let recovery = LossRecovery::new(spec.recovery);
        let sack = recovery.sack().is_some();
        let rack_tlp = spec.loss_detection == LossDetection::Rack && sack;
        Sender {
            flow,
            node,
            peer,
            mss: spec.segment_size,
            header_size: spec.header_size,
            dupack_threshold: spec.dupack_threshold,
            recovery,
            cc,
            rtt: RttEstimator::with_rule(spec.rto, spec.rtt_estimator),
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            data_limit: None,
            preamble_end: (spec.preamble > 0).then_some(spec.preamble),
            send_buffer: SendBuffer::new(spec.send_buffer, spec.segment_size, spec.receiver_window),
            window_use: WindowUse::new(spec.cwnd_validation),
            reduction_base: spec.reduction_base,
            sack_next_seg: spec.sack_next_seg,
            recovery_exit: spec.recovery_exit,
            grows_by_delivered: spec.window_growth == WindowGrowth::Linux,
            sent_since_window_use: 0,
            started: false,
            peer_window: syn_ack_window,
            max_window: syn_ack_window,
            push_marks: (spec.push_flag == PushFlag::Linux && spec.send_buffer == SendBufferRule::Linux)
                .then(PushMarks::new),
            dupacks: 0,
            limited_transmit: spec.limited_transmit,
            limited_bytes: 0,
            state: CongestionState::Open,
            recover: None,
            partial_ack_timer: spec.partial_ack_timer,
            timeout_threshold: spec.timeout_threshold,
            pacing: RecoveryPacer::new(spec),
            recovery_exit_growth: spec.recovery_exit_growth,
            fast_retransmit_timer: spec.fast_retransmit_timer,
            repeat_fast_retransmit: spec.repeat_fast_retransmit,
            dup_credit: 0,
            reno_sacks: ((spec.reordering == Reordering::Linux || spec.frto) && !sack)
                .then(|| RenoSacks::new(spec.dupack_threshold, spec.reordering == Reordering::Linux)),
            frto: (spec.frto && !sack).then(Frto::default),
            scoreboard: Scoreboard::new(),
            rack: rack_tlp.then(Rack::default),
            tlp: rack_tlp.then(TailLossProbe::default),
            bad_sack_block: None,
            outstanding: VecDeque::new(),
            rto_timer: RetransmissionTimer::new(TimerWheel::new(spec.timer_hz)),
            observations: None,
            stats: SenderStats::default(),
        }
    }

    /// Record an [`AckObservation`] per ACK and per loss reaction from now on.
    pub fn observe(&mut self) {
        self.observations.get_or_insert_with(Vec::new);
    }

    /// The observations recorded since the last call, oldest first.
    pub fn take_observations(&mut self) -> impl Iterator<Item = AckObservation> + '_ {
        self.observations.iter_mut().flat_map(|o| o.drain(..))
    }

    /// The trace's `ca_state` (`docs/ack-trace.md`): recovery, then the go-back-N `loss` state,
    /// then `disorder` while DUPACKs (or SACKed data) wait for a new ACK.
    pub fn ca_state(&self) -> CaState {
        if self.state.in_recovery() {
            CaState::Recovery
        } else if self.state.in_loss() {
            CaState::Loss
        } else if self.dupacks > 0 || self.scoreboard.sacked_bytes() > 0 {
            CaState::Disorder
        } else {
            CaState::Open
        }
    }

    pub(in crate::tcp) fn observe_now(
        &mut self,
        now: Nanos,
        event: TraceEvent,
        acked_bytes: u64,
        dupack: bool,
        rtt_ns: Option<Nanos>,
    ) {
        if self.observations.is_none() {
            return;
        }
        let credited = self.cc.last_credited_bytes();
        let observation = AckObservation {
            time_ns: now,
            event,
            ack: self.snd_una,
            acked_bytes,
            dupack,
            sacked_bytes: self.scoreboard.sacked_bytes(),
            // A loss reaction credits nothing (but a control with an estimator still says 0).
            credited_bytes: if event == TraceEvent::Ack { credited } else { credited.map(|_| 0) },
            rtt_ns,
            bwe_bps: self.cc.bandwidth_estimate_bps(),
            rtt_min_ns: self.rtt.min_rtt(),
            cwnd_bytes: self.window(),
            ssthresh_bytes: self.cc.ssthresh(),
            ca_state: self.ca_state(),
            in_flight_bytes: self.in_flight(),
        };
        if let Some(observations) = self.observations.as_mut() {
            observations.push(observation);
        }
    }

    /// The application starts writing (bulk: as fast as TCP takes it).
    pub fn start(&mut self, now: Nanos, out: &mut Vec<Packet>) {
        self.started = true;
        self.send_buffer.on_connected(self.cc.cwnd() / self.mss, self.reordering(), self.snd_una, self.mss);
        if let Some(marks) = self.push_marks.as_mut() {
            // iperf3 writes its cookie on its own, then the bulk data.
            let written = self.send_buffer.written_end();
            let cookie = self.preamble_end.unwrap_or(0).min(written);
            marks.on_write(0, cookie, self.mss, self.max_window);
            marks.on_write(cookie, written, self.mss, self.max_window);
        }
        self.send_available(now, out);
        self.record_window_use();
        self.schedule_loss_probe(now);
    }

    /// After a send opportunity: Linux's `tcp_cwnd_validate()` (`tcp/window_use.rs`), when
    /// something was sent or the window is full.
    pub(in crate::tcp) fn record_window_use(&mut self) {
        let cwnd = self.cwnd_segments();
        let in_flight = self.prr_pipe().div_ceil(self.mss);
        if self.sent_since_window_use > 0 || in_flight >= cwnd {
            self.window_use.after_sending(self.packets_out(), in_flight, cwnd, self.snd_una, self.snd_max);
        }
        self.sent_since_window_use = 0;
    }

    /// The "FlightSize" a loss reports to the control: the flight (RFC 5681 §3.1), or with
    /// `reduction_base = "cwnd"` the window in whole segments, as Linux's `ssthresh` callbacks
    /// (`tcp_reno_ssthresh()`, CUBIC's) read `snd_cwnd`.
    pub(in crate::tcp) fn reduction_flight(&self, bytes_in_flight: u64) -> u64 {
        match self.reduction_base {
            ReductionBase::FlightSize => bytes_in_flight,
            ReductionBase::Cwnd => self.cwnd_segments() * self.mss,
        }
    }

    /// Whether an ACK arriving now may grow the window (`tcp_is_cwnd_limited()`).
    pub(in crate::tcp) fn cwnd_limited(&self) -> bool {
        self.window_use.cwnd_limited(self.cwnd_segments(), self.cc.ssthresh() / self.mss)
    }

    /// The control's window in whole segments, as Linux's `snd_cwnd` counts it (a byte-counted
    /// window of 5.3 segments lets 5 out), at least one.
    fn cwnd_segments(&self) -> u64 {
        (self.window() / self.mss).max(1)
    }

    /// The congestion window as Linux's `snd_cwnd` holds it: PRR's during a reduction with
    /// `prr_window = "linux"`, else the control's. Sending uses the control's (PRR paces a
    /// recovery by `sndcnt` itself); the send buffer, cwnd validation and the trace read this.
    pub fn window(&self) -> u64 {
        self.pacing.reduction_cwnd().unwrap_or_else(|| self.cc.cwnd())
    }

    /// The DUPACKs that start fast recovery now (Linux's `tp->reordering`).
    pub(in crate::tcp) fn reordering(&self) -> u64 {
        self.reno_sacks.map_or(u64::from(self.dupack_threshold), |sacks| sacks.threshold())
    }

    /// `recover` (RFC 6582; Linux's `high_seq`) is acknowledged, or there is none.
    fn recover_acked(&self) -> bool {
        self.recover.is_none_or(|high_seq| self.snd_una >= high_seq)
    }

    /// Still in recovery with `recover` acknowledged: the hold of `recovery_exit =
    /// "above_recover"` (the only way a recovery outlives its recovery point), where Linux's
    /// tcp_fastretrans_alert() resets a non-SACK sender's DUPACK count on every ACK and returns
    /// before counting one.
    pub(in crate::tcp) fn held_at_recover(&self) -> bool {
        self.state.in_recovery() && self.recover_acked()
    }

    /// RFC 5681 §3.2 step 2 (RFC 6675 (4.2)): the FlightSize a loss detection reports, the data
    /// sent by limited transmit left out of `bytes_in_flight`.
    pub(in crate::tcp) fn flight_size(&self, bytes_in_flight: u64) -> u64 {
        bytes_in_flight - self.limited_bytes.min(bytes_in_flight)
    }

    /// Segments sent and not acknowledged (Linux's `packets_out`).
    pub(in crate::tcp) fn packets_out(&self) -> u64 {
        (self.snd_max - self.snd_una).div_ceil(self.mss)
    }

    /// Segments marked lost and not acknowledged (Linux's `lost_out`, without SACK): after a
    /// timeout everything outstanding at it (`tcp_timeout_mark_lost()`); otherwise at most the
    /// head, which counts as one hole anyway.
    fn lost_out(&self) -> u64 {
        self.state.loss_until().map_or(0, |until| until.saturating_sub(self.snd_una).div_ceil(self.mss))
    }

    /// The end of the data the sender may send: what the application handed TCP, until it
    /// stopped writing, within the send buffer.
    pub(in crate::tcp) fn send_limit(&self) -> u64 {
        let buffered = self.send_buffer.data_end(self.snd_una);
        let written = self.preamble_end.unwrap_or(u64::MAX).min(self.data_limit.unwrap_or(u64::MAX));
        written.min(buffered)
    }

    /// Linux's `tcp_check_space()` for a bulk writer (always waiting for room): the send buffer
    /// grows to twice the window if the flight (`tcp_packets_in_flight()`, here PRR's pipe) is
    /// below it, and the writer fills it once a third is free (`send_buffer.rs`). Whether it
    /// wrote.
    fn check_send_space(&mut self) -> bool {
        if !self.send_buffer.autotunes() {
            return false;
        }
        let cwnd = self.window() / self.mss;
        let in_flight = self.prr_pipe() / self.mss;
        let before = self.send_buffer.written_end().max(self.snd_una);
        let wrote = self.send_buffer.check_space(in_flight, cwnd, self.reordering(), self.snd_una, self.mss);
        if let (true, Some(marks)) = (wrote, self.push_marks.as_mut()) {
            marks.on_write(before, self.send_buffer.written_end(), self.mss, self.max_window);
        }
        wrote
    }

    /// The application stops writing: what was already sent is all there is to deliver.
    pub fn stop(&mut self) {
        self.data_limit = Some(self.snd_max);
    }

    /// The usable congestion window: cwnd plus recovery inflation, never below one segment.
    pub(in crate::tcp) fn congestion_window(&self) -> u64 {
        let inflated = self.cc.cwnd() as i64 + self.pacing.inflation();
        inflated.max(self.mss as i64) as u64
    }

    /// What the resend of `snd_nxt..end` would leave in flight as Linux counts it in Loss
    /// (`tcp_packets_in_flight()`): resent and not acknowledged, plus the new data F-RTO sent
    /// beyond the resend, less what the counted DUPACKs say the receiver holds. Elsewhere (no
    /// such data, no count) the plain `end - snd_una`.
    pub(in crate::tcp) fn flight_to(&self, end: u64) -> u64 {
        let beyond = self.frto_new_data_in_flight();
        (end.saturating_sub(self.snd_una) + beyond).saturating_sub(self.loss_held_bytes())
    }

    pub(in crate::tcp) fn send_available(&mut self, now: Nanos, out: &mut Vec<Packet>) {
        if !self.started {
            return;
        }
        if self.scoreboard_driven() {
            self.send_by_scoreboard(self.cc.cwnd(), now, out);
            return;
        }
        if self.frto_send_new_data(now, out) {
            return;
        }
        let congestion_window = self.congestion_window();
        let receiver_window = self.peer_window.max(self.mss);
        loop {
            self.skip_frto_new_data();
            // Read each time: a segment of new data can wake the writer (`check_send_space`).
            let limit = self.send_limit();
            if self.snd_nxt >= limit {
                break;
            }
            let len = self.mss.min(limit - self.snd_nxt);
            let end = self.snd_nxt + len;
            if self.flight_to(end) > congestion_window || end > self.snd_una + receiver_window {
                break;
            }
            self.transmit(self.snd_nxt, len, now, out);
            self.snd_nxt += len;
        }
    }

    /// In Loss without SACK: the bytes the counted DUPACKs say the receiver holds (Linux's
    /// `sacked_out`), which leave the flight; 0 elsewhere or without the count.
    pub(in crate::tcp) fn loss_held_bytes(&self) -> u64 {
        match self.reno_sacks {
            Some(sacks) if self.state.in_loss() => sacks.sacked() * self.mss,
            _ => 0,
        }
    }

    /// The length of the next segment of previously unsent data (at `snd_max`), if the
    /// application has some and the receiver's advertised window allows it.
    pub(in crate::tcp) fn new_data_len(&self) -> Option<u64> {
        let limit = self.send_limit();
        if self.snd_max >= limit {
            return None;
        }
        let len = self.mss.min(limit - self.snd_max);
        (self.snd_max + len <= self.snd_una + self.peer_window.max(self.mss)).then_some(len)
    }

    /// RFC 3042 §2: on one of the first `dupthresh - 1` DUPACKs (the caller checked), send one
    /// segment of previously unsent data if the receiver's window allows and FlightSize stays
    /// within cwnd + (`dupthresh` - 1)·SMSS (RFC 3042's "cwnd plus 2 segments" at the standard
    /// threshold). cwnd is not changed ("MUST NOT be changed").
    pub(in crate::tcp) fn limited_transmit_one(&mut self, now: Nanos, out: &mut Vec<Packet>) {
        // Previously unsent data only: not while a go-back-N resend is under way.
        if self.snd_nxt != self.snd_max {
            return;
        }
        let Some(len) = self.new_data_len() else { return };
        let allowance = self.reordering().saturating_sub(1) * self.mss;
        if self.snd_max + len - self.snd_una > self.cc.cwnd() + allowance {
            return;
        }
        self.send_limited(len, now, out);
    }

    pub(in crate::tcp) fn send_limited(&mut self, len: u64, now: Nanos, out: &mut Vec<Packet>) {
        self.transmit(self.snd_max, len, now, out);
        self.snd_nxt = self.snd_max;
        self.limited_bytes += len;
        self.stats.limited_transmits += 1;
    }

    pub(in crate::tcp) fn transmit(&mut self, seq: u64, len: u64, now: Nanos, out: &mut Vec<Packet>) {
        let end = seq + len;
        // PSH on new data only: a resend is a duplicate, fills a hole or lies beyond one, all
        // of which the receiver acknowledges at once anyway.
        let mut push = false;
        if seq < self.snd_max {
            self.stats.retransmits += 1;
            if let Ok(index) = self.outstanding.binary_search_by_key(&seq, |s| s.start) {
                let segment = &mut self.outstanding[index];
                segment.retransmitted = true;
                segment.resent = true;
                segment.xmit_at = now;
                if let Some(rack) = self.rack.as_mut() {
                    rack.on_retransmit(segment);
                }
            }
        } else {
            push = self.push_marks.as_mut().is_some_and(|marks| marks.take(end));
            self.outstanding.push_back(SentSegment {
                start: seq,
                end,
                sent_at: now,
                retransmitted: false,
                xmit_at: now,
                resent: false,
                sacked: false,
                lost: false,
                rexmit_out: false,
            });
            self.snd_max = end;
            // Linux's tcp_event_new_data_sent(), with this segment counted in flight.
            self.check_send_space();
        }
        self.stats.segments_sent += 1;
        self.sent_since_window_use += 1;
        if let (true, Some(prr)) = (self.state.in_recovery(), self.pacing.prr_mut()) {
            prr.out += len;
        }
        let rtt = &self.rtt;
        self.rto_timer.on_send(now, || rtt.rto());
        out.push(Packet {
            kind: PacketKind::Data,
            flow: self.flow,
            src: self.node,
            dst: self.peer,
            seq,
            len: len as u32,
            ack: 0,
            window: 0,
            size: (len + self.header_size) as u32,
            sack: SackBlocks::NONE,
            path: 0,
            push,
        });
    }

    /// The segment starting at `seq`, just emitted, leaves the node only at `at` (the flow's
    /// random send overhead, held back in `sim.rs`): its RTT sample, if it gives one, runs from
    /// then, as a host's from the moment the segment really went out. A retransmitted segment
    /// gives no sample (Karn) and keeps the time of its first transmission, which its ACK may
    /// follow while the retransmission is still held.
    pub fn departs(&mut self, seq: u64, at: Nanos) {
        if let Ok(index) = self.outstanding.binary_search_by_key(&seq, |s| s.start) {
            let segment = &mut self.outstanding[index];
            if !segment.retransmitted {
                segment.sent_at = at;
            }
            segment.xmit_at = at;
        }
    }

    pub(in crate::tcp) fn retransmit_first_unacked(&mut self, now: Nanos, out: &mut Vec<Packet>) {
        let len = self.mss.min(self.snd_max - self.snd_una);
        if len > 0 {
            self.transmit(self.snd_una, len, now, out);
        }
    }

    pub(in crate::tcp) fn restart_timer(&mut self, now: Nanos) {
        self.rto_timer.on_new_ack(now, self.rtt.rto(), self.snd_una < self.snd_max);
    }

    /// Handle an arriving ACK.
    pub fn on_ack(&mut self, ack: &Packet, now: Nanos, out: &mut Vec<Packet>) {
        let ack_seq = ack.ack;
        if ack_seq < self.snd_una || ack_seq > self.snd_max {
            return; // old or impossible
        }
        self.peer_window = ack.window;
        self.max_window = self.max_window.max(ack.window);
        let bytes_in_flight = self.snd_max - self.snd_una;
        let una_before = self.snd_una;
        let loss_marks = self.loss_marks();
        // Linux's `prior_fack`: the highest SACKed byte before this ACK.
        let prior_fack = self.scoreboard.highest_sacked().unwrap_or(self.snd_una);
        let newly_sacked = self.on_sack_blocks(ack, prior_fack, now);
        let delivered = if self.pacing.prr().is_some() || self.grows_by_delivered {
            Some(self.delivered_data(ack_seq, una_before, newly_sacked, bytes_in_flight))
        } else {
            None
        };
        let growth_credit = if self.grows_by_delivered { delivered } else { None };
        self.process_tlp_ack(ack_seq, ack_seq > self.snd_una, newly_sacked > 0, now);
        if ack_seq > self.snd_una {
            self.on_new_ack(ack_seq, bytes_in_flight, growth_credit, prior_fack, now, out);
        } else if bytes_in_flight > 0 {
            self.on_duplicate_ack(ack_seq, bytes_in_flight, newly_sacked > 0, now, out);
        }
        let mut sent_by_prr = false;
        if let (Some(_), Some(delivered)) = (self.pacing.prr(), delivered) {
            if self.state.in_recovery() {
                let safe_ack = self.prr_safe_ack(loss_marks);
                self.send_by_prr(delivered, safe_ack, now, out);
                sent_by_prr = true;
            }
        }
        if !sent_by_prr {
            self.send_available(now, out);
        }
        // Linux's tcp_data_snd_check(): after the ACK's sending, on every ACK. A writer it wakes
        // writes, and tcp_sendmsg() pushes what the window allows (tcp_push()).
        if self.check_send_space() {
            if sent_by_prr {
                self.send_prr_window(now, out);
            } else {
                self.send_available(now, out);
            }
        }
        self.record_window_use();
        self.schedule_loss_probe(now);
    }

    /// After a fast retransmission (any recovery's): restart the retransmission timer if the
    /// flow's rule says so (ns-2's `reset_rtx_timer(1,0)`, Linux's rearm at the head's resend).
    pub(in crate::tcp) fn fast_retransmit_timer_rule(&mut self, now: Nanos) {
        if self.fast_retransmit_timer == FastRetransmitTimer::Restart {
            self.rto_timer.start(now, self.rtt.rto());
        }
    }

    /// An ACK that advances `snd_una`; `delivered` is what the window grows by when the sender
    /// counts deliveries (`grows_by_delivered`), else everything newly acknowledged.
    pub(in crate::tcp) fn on_new_ack(
        &mut self,
        ack_seq: u64,
        bytes_in_flight: u64,
        delivered: Option<u64>,
        prior_fack: u64,
        now: Nanos,
        out: &mut Vec<Packet>,
    ) {
        let newly_acked_bytes = ack_seq - self.snd_una;
        // Karn: an ACK that covers any retransmitted segment is ambiguous and gives no sample.
        // `sample` is the newest segment's (the control's and the minimum RTT's), `oldest` the
        // first one's (Linux's estimator sample, `first_ackt`).
        let mut sample = None;
        let mut oldest = None;
        let mut ambiguous = false;
        let mut acked_segments = 0;
        while let Some(segment) = self.outstanding.front() {
            if segment.end > ack_seq {
                break;
            }
            ambiguous |= segment.retransmitted;
            sample = Some(now - segment.sent_at);
            oldest = oldest.or(sample);
            if let Some(segment) = self.outstanding.pop_front() {
                self.rack_on_cumulative_ack(&segment, prior_fack, now);
            }
            acked_segments += 1;
        }
        let rtt_sample_ns = if ambiguous { None } else { sample };
        self.snd_una = ack_seq;
        self.snd_nxt = self.snd_nxt.max(ack_seq);
        if let (Some(newest), Some(oldest)) = (rtt_sample_ns, oldest) {
            self.rtt.on_sample(oldest, newest, self.snd_una, self.snd_max);
        }
        self.skip_frto_new_data();
        if self.preamble_end.is_some_and(|end| ack_seq >= end) {
            // The preamble is acknowledged: the application writes its bulk data.
            self.preamble_end = None;
        }
        self.dupacks = 0;
        self.limited_bytes = 0;
        self.count_reno_sacks_acked(acked_segments);
        self.frto_on_new_ack(ack_seq);
        if self.state.on_cumulative_ack(ack_seq) {
            // F-RTO belongs to the Loss episode it was armed in (the next RTO decides again):
            // a later go-back-N, Tahoe's, must not take it for one.
            self.frto_disarm();
        }
        self.recovery_on_cumulative_ack(ack_seq);
        let held = self.held_at(ack_seq);
        if held {
            // tcp_fastretrans_alert() once snd_una reaches high_seq: tcp_reset_reno_sack()
            // before PRR counts the flight, so the segments the receiver holds above a new
            // hole count as in flight (and in Linux's PRR window).
            self.dup_credit = 0;
        }
        let full_ack =
            self.state.in_recovery() && !held && (!self.recovery.ends_at_recover() || self.recover_acked());
        // With `recovery_exit_growth` the ACK that ends recovery is an ordinary ACK of new data
        // once the window is back to what the control decided: recovery ends first.
        let exit_first = full_ack && self.recovery_exit_growth;
        if exit_first {
            self.exit_recovery(now);
        }
        self.cc.on_ack(&AckEvent {
            now_ns: now,
            ack_seq,
            newly_acked_bytes,
            newly_delivered_bytes: delivered.unwrap_or(newly_acked_bytes),
            is_dupack: false,
            rtt_sample_ns,
            in_recovery: self.state.in_recovery(),
            bytes_in_flight,
            cwnd_limited: self.cwnd_limited(),
        });

        let mut restart = true;
        if full_ack && !exit_first {
            self.exit_recovery(now);
        } else if self.state.in_recovery() && !held {
            restart = self.on_partial_ack(newly_acked_bytes, now, out);
        }
        if restart || self.snd_una == self.snd_max {
            self.restart_timer(now);
        }
        self.observe_now(now, TraceEvent::Ack, newly_acked_bytes, false, rtt_sample_ns);
        // RACK looks for losses once the ACK's recovery is settled (tcp_fastretrans_alert():
        // the recovery that this ACK ends ends first), and a loss it finds starts the next.
        self.rack_mark_lost(now);
        if self.rack_recovery_due() {
            self.rack_enter_recovery(now, out);
        }
    }

    pub(in crate::tcp) fn on_duplicate_ack(
        &mut self,
        ack_seq: u64,
        bytes_in_flight: u64,
        sacked_new_data: bool,
        now: Nanos,
        out: &mut Vec<Packet>,
    ) {
        self.cc.on_ack(&AckEvent {
            now_ns: now,
            ack_seq,
            newly_acked_bytes: 0,
            newly_delivered_bytes: 0,
            is_dupack: true,
            rtt_sample_ns: None,
            in_recovery: self.state.in_recovery(),
            bytes_in_flight,
            cwnd_limited: self.cwnd_limited(),
        });
        self.recovery_on_duplicate_ack(ack_seq, bytes_in_flight, sacked_new_data, now, out);
    }

    /// Linux's DUPACK count after a cumulative ACK of `acked_segments` (`snd_una` already
    /// moved): `tcp_remove_reno_sacks()`, then `tcp_fastretrans_alert()`'s reset, which Recovery
    /// makes once `high_seq` is acknowledged and the other states on any advance, except Loss
    /// held at exactly `high_seq` (`tcp_try_undo_recovery()`'s hold).
    fn count_reno_sacks_acked(&mut self, acked_segments: u64) {
        let Some(mut sacks) = self.reno_sacks else { return };
        sacks.on_cumulative_ack(acked_segments, self.packets_out(), self.lost_out());
        let reset = if self.state.in_recovery() {
            self.recover_acked()
        } else {
            self.state.loss_until() != Some(self.snd_una)
        };
        if reset {
            sacks.reset();
        }
        self.reno_sacks = Some(sacks);
    }

    /// Linux's DUPACK count on a DUPACK (`tcp_add_reno_sack()`): in Recovery unless it is held
    /// at `high_seq` (which resets the count instead), in Loss only once new data is out beyond
    /// `high_seq` (`tcp_process_loss()`), else always. Whether the DUPACK freed a place in the
    /// flight (always, without Linux's count).
    pub(in crate::tcp) fn count_reno_dupack(&mut self) -> bool {
        let Some((sacks, counted)) = self.reno_sacks_after_dupack() else { return true };
        let raises = sacks.raises_threshold();
        self.reno_sacks = Some(sacks);
        // With the fixed threshold the count only paces Loss; limited transmit is RFC 3042's.
        counted || !raises
    }

    /// What [`Sender::count_reno_dupack`] would make of Linux's count on a DUPACK now, and
    /// whether the count grew; `None` without Linux's count.
    pub(in crate::tcp) fn reno_sacks_after_dupack(&self) -> Option<(RenoSacks, bool)> {
        let mut sacks = self.reno_sacks?;
        let before_new_data = self.state.loss_until().is_some_and(|high_seq| self.snd_max <= high_seq);
        let counted = if self.held_at_recover() {
            sacks.reset();
            false
        } else if !self.state.in_recovery() && before_new_data {
            false
        } else {
            sacks.add_dupack(self.packets_out(), self.lost_out())
        };
        Some((sacks, counted))
    }

    pub(in crate::tcp) fn exit_recovery(&mut self, now: Nanos) {
        self.state.exit_recovery();
        self.pacing.on_recovery_end();
        self.dup_credit = 0;
        self.cc.on_recovery_exit(now);
    }

    /// The retransmission timer fired at `now` (the caller checked `timer_deadline`).
    pub fn on_timer(&mut self, now: Nanos, out: &mut Vec<Packet>) {
        if self.rack.as_ref().and_then(|rack| rack.reo_deadline).is_some_and(|at| at <= now) {
            self.rack_reo_timeout(now, out);
        }
        if self.tlp.as_ref().and_then(|tlp| tlp.deadline).is_some_and(|at| at <= now) {
            self.send_loss_probe(now, out);
        }
        if !self.rto_timer.expired(now) {
            return;
        }
        if self.snd_una == self.snd_max {
            self.rto_timer.stop();
            return;
        }
        self.stats.timeouts += 1;
        let bytes_in_flight = self.snd_max - self.snd_una;
        let repeated = self.rto_timer.on_timeout(self.snd_una);
        self.frto_on_timeout(self.state == CongestionState::Open, repeated);
        let held =
            self.timeout_threshold == TimeoutThreshold::NewEpisode && self.within_loss_episode(repeated);
        let (event, trace_event) = if held {
            (CongestionEvent::TimeoutHeld { now_ns: now, bytes_in_flight }, TraceEvent::TimeoutHeld)
        } else {
            let bytes_in_flight = self.reduction_flight(bytes_in_flight);
            (CongestionEvent::Timeout { now_ns: now, bytes_in_flight, repeated }, TraceEvent::Timeout)
        };
        self.cc.on_congestion(event);
        self.rtt.back_off();
        self.state.enter_loss(self.snd_max);
        self.pacing.on_recovery_end();
        self.dup_credit = 0;
        self.dupacks = 0;
        self.limited_bytes = 0;
        if let Some(sacks) = self.reno_sacks.as_mut() {
            // tcp_timeout_mark_lost(): a non-SACK connection forgets its DUPACKs.
            sacks.reset();
        }
        self.recover = Some(self.snd_max);
        for segment in &mut self.outstanding {
            segment.retransmitted = true;
        }
        self.recovery_on_timeout(now);
        self.observe_now(now, trace_event, 0, false, None);
        self.rto_timer.start(now, self.rtt.rto());
        self.send_available(now, out);
        self.record_window_use();
    }

    /// Linux's `tcp_enter_loss` test, negated: a timeout is inside the current loss episode
    /// (and keeps its threshold) unless the sender is in neither fast recovery nor after-timeout
    /// recovery (`icsk_ca_state <= TCP_CA_Disorder`), or the episode's recovery point is
    /// acknowledged (`!after(high_seq, snd_una)`; `recover` is `high_seq`, `snd_max` when the
    /// episode began), or it follows an earlier timeout after which `snd_una` advanced
    /// (`TCP_CA_Loss && !icsk_retransmits`: the kernel zeroes the count on every such ACK).
    pub(in crate::tcp) fn within_loss_episode(&self, repeated: bool) -> bool {
        let after_timeout = self.state.loss_until().is_some();
        let open = self.state == CongestionState::Open;
        let recovery_point_acked = self.recover_acked();
        !(open || recovery_point_acked || (after_timeout && !repeated))
    }

    /// The retransmission timer's deadline, or RACK's reordering timer's or the tail loss
    /// probe's if sooner.
    pub fn timer_deadline(&self) -> Option<Nanos> {
        let reordering = self.rack.as_ref().and_then(|rack| rack.reo_deadline);
        let probe = self.tlp.as_ref().and_then(|tlp| tlp.deadline);
        [self.rto_timer.deadline(), reordering, probe].into_iter().flatten().min()
    }

    pub fn cwnd(&self) -> u64 {
        self.cc.cwnd()
    }

    pub fn ssthresh(&self) -> u64 {
        self.cc.ssthresh()
    }

    pub fn bandwidth_estimate_bps(&self) -> Option<f64> {
        self.cc.bandwidth_estimate_bps()
    }

    pub fn srtt(&self) -> Option<Nanos> {
        self.rtt.srtt()
    }

    pub fn min_rtt(&self) -> Option<Nanos> {
        self.rtt.min_rtt()
    }

    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }

    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }

    pub fn mss(&self) -> u64 {
        self.mss
    }

    pub fn in_recovery(&self) -> bool {
        self.state.in_recovery()
    }

    /// The SACK scoreboard (empty unless the recovery is `sack`).
    pub fn scoreboard(&self) -> &Scoreboard {
        &self.scoreboard
    }
}
