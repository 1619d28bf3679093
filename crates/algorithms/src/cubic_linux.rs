//! CUBIC as Linux runs it (`net/ipv4/tcp_cubic.c`), for the `linux` profile: the control the
//! testbed's kernel `cubic` is, in the kernel's own integer arithmetic. [`crate::Cubic`] is RFC
//! 9438; the two differ where windows are small, which is where the seed papers' lossy paths
//! keep them (2 to 12 segments on the fig. 9 path):
//!
//! * Windows are whole segments. At a loss `ssthresh = max(cwnd * 717 / 1024, 2)`
//!   (`cubictcp_recalc_ssthresh`), so a window of 5 falls to 3, not 3.5.
//! * The Reno-friendly estimate gains one segment per `cwnd * beta_scale / 8` segments
//!   acknowledged (`beta_scale = 8 (1024 + 717) / 3 / (1024 - 717) = 15`: alpha = 0.53 per
//!   round trip for ever; RFC 9438 §4.3 switches alpha to 1 once the estimate reaches the
//!   window before the loss, Linux never does).
//! * The curve's clock is jiffies (`CONFIG_HZ = 250`: 4 ms, Debian's), its look-ahead the
//!   minimum RTT `delay_min` (not the smoothed one), times in units of 1/1024 s, `K` from the
//!   integer cube root, and `ca->cnt` (segments acknowledged per one-segment increase) is
//!   recomputed at most once per jiffy and not at all while cwnd is unchanged within
//!   `HZ / 32` (`bictcp_update`); the window then grows by `tcp_cong_avoid_ai(tp, cnt, acked)`.
//! * An RTO resets everything, `W_max` included (`cubictcp_state` → `bictcp_reset`), so the next
//!   stage has no origin (`K = 0`) and grows at most 5 % per round trip until a loss sets one.
//! * The first RTT samples after each reduction are not minimum-RTT candidates
//!   (`cubictcp_acked`: "Discard delay samples right after fast recovery", one second).
//!
//! * HyStart (`hystart_update()`, on by default: `hystart = 1`, `hystart_detect = 3`): in slow
//!   start from a window of 16 segments (`hystart_low_window`), slow start ends (ssthresh =
//!   cwnd) once a round's RTT has grown: the smallest of its first eight samples (and any
//!   after them) above `delay_min + clamp(delay_min / 8, 4 ms, 16 ms)`; or once a train of ACKs
//!   each within 2 ms of the last has run for half of `delay_min + 1 ms` since the round began
//!   (`hystart_ack_delay()` is at most 1 ms; without pacing the train threshold is halved). A
//!   round ends when `snd_una` passes what was sent when it began. On a bottleneck with a
//!   buffer of a bandwidth-delay product the kernel leaves the first slow start with a few
//!   segments queued, where slow start without HyStart overflows the buffer by up to a window.
//!   Found once, HyStart is off until an RTO resets the control (`cubictcp_state()`).
//!
//! Not modelled: `CA_EVENT_TX_START` (the epoch shift after idle: bulk senders are never idle),
//! undo; after an RTO HyStart's first round starts at the first ACK, not at the timeout (the
//! control does not see `snd_nxt` then; only the ACK train's start differs).

use crate::congestion::{AckEvent, CongestionControl, CongestionEvent, WindowConfig};

/// Debian's `CONFIG_HZ`: the kernel's clock tick, which the curve's time counts in.
pub const HZ: u64 = 250;
const JIFFY_NS: u64 = 1_000_000_000 / HZ;
/// `beta`, in 1/`BETA_SCALE`: 717/1024 ≈ 0.7.
const BETA: u64 = 717;
const BETA_SCALE: u64 = 1024;
/// `BICTCP_HZ`: the curve's time unit is 2^-10 s.
const BICTCP_HZ: u32 = 10;
/// `hystart_low_window`: HyStart acts from this window on, segments.
const HYSTART_LOW_WINDOW: u64 = 16;
/// `HYSTART_MIN_SAMPLES`: RTT samples per round before the delay test.
const HYSTART_MIN_SAMPLES: u32 = 8;
/// `HYSTART_DELAY_MIN` and `HYSTART_DELAY_MAX`, µs: bounds of the delay test's margin.
const HYSTART_DELAY_MIN_US: u64 = 4_000;
const HYSTART_DELAY_MAX_US: u64 = 16_000;
/// `hystart_ack_delta_us`: ACKs this close (µs) continue a train.
const HYSTART_ACK_DELTA_US: u64 = 2_000;
/// `hystart_ack_delay()`: `min(1 ms, 4 GSO segments at the pacing rate)`; at the rates of the
/// seed papers' paths (a few Mb/s against 64 KB GSO segments) always the 1 ms.
const HYSTART_ACK_DELAY_US: u64 = 1_000;
/// `bic_scale` 41 (C = 41/1024 · 10 ≈ 0.4): `cube_rtt_scale = bic_scale * 10`.
const CUBE_RTT_SCALE: u128 = 410;
/// `8 (BETA_SCALE + beta) / 3 / (BETA_SCALE - beta)` in the kernel's integer division: 15.
const FRIENDLY_SCALE: u64 = 8 * (BETA_SCALE + BETA) / 3 / (BETA_SCALE - BETA);
/// `cube_factor = 2^(10 + 3 BICTCP_HZ) / (bic_scale * 10)`.
const CUBE_FACTOR: u128 = (1u128 << (10 + 3 * BICTCP_HZ)) / CUBE_RTT_SCALE;

/// Linux's CUBIC: `struct bictcp` plus the `tcp_sock` fields it drives (`snd_cwnd`,
/// `snd_ssthresh`, `snd_cwnd_cnt`), all in segments.
#[derive(Debug, Clone)]
pub struct LinuxCubic {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    /// `snd_cwnd_cnt`: segments acknowledged towards the next increase (`tcp_cong_avoid_ai`).
    cwnd_cnt: u64,
    /// `ca->cnt`: segments to acknowledge per one-segment increase.
    cnt: u64,
    last_max_cwnd: u64,
    last_cwnd: u64,
    /// Jiffy of the last `cnt` computation.
    last_time: u64,
    bic_origin_point: u64,
    /// `bic_K`, in 2^-10 s.
    bic_k: u64,
    /// Smallest RTT sample, µs (0: none yet).
    delay_min_us: u64,
    /// Jiffy the congestion-avoidance epoch began; `None` is the kernel's 0.
    epoch_start: Option<u64>,
    ack_cnt: u64,
    /// The Reno-friendly window, segments.
    tcp_cwnd: u64,
    /// HyStart runs (the kernel's `hystart` parameter, 1 by default).
    hystart: bool,
    /// HyStart's state (`struct bictcp`: `found`, `round_start`, `last_ack`, `end_seq`,
    /// `curr_rtt`, `sample_cnt`); times in µs, `end_seq` in bytes.
    hystart_found: bool,
    round_start_us: u64,
    last_ack_us: u64,
    round_end_seq: u64,
    curr_rtt_us: u64,
    sample_cnt: u32,
}

impl LinuxCubic {
    pub fn new(config: WindowConfig) -> Self {
        assert!(config.mss > 0, "mss must be positive");
        let mss = config.mss;
        LinuxCubic {
            mss,
            cwnd: config.initial_cwnd.div_ceil(mss).max(1),
            ssthresh: (config.initial_ssthresh / mss).max(2),
            cwnd_cnt: 0,
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            bic_origin_point: 0,
            bic_k: 0,
            delay_min_us: 0,
            epoch_start: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            hystart: true,
            hystart_found: false,
            round_start_us: 0,
            last_ack_us: 0,
            round_end_seq: 0,
            curr_rtt_us: u64::MAX,
            sample_cnt: 0,
        }
    }

    /// The same control with HyStart off (the kernel's `hystart = 0`).
    pub fn without_hystart(mut self) -> Self {
        self.hystart = false;
        self
    }

    /// Whether HyStart ended a slow start since the last reset.
    pub fn hystart_found(&self) -> bool {
        self.hystart_found
    }

    /// The window in segments.
    pub fn cwnd_segments(&self) -> u64 {
        self.cwnd
    }

    /// `W_max` (`last_max_cwnd`), segments; 0 before the first loss and after an RTO.
    pub fn last_max_cwnd(&self) -> u64 {
        self.last_max_cwnd
    }

    /// `ca->cnt` as last computed.
    pub fn cnt(&self) -> u64 {
        self.cnt
    }

    /// `bictcp_reset`: everything the control learnt, forgotten (at an RTO).
    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.bic_origin_point = 0;
        self.bic_k = 0;
        self.delay_min_us = 0;
        self.epoch_start = None;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
        self.hystart_found = false;
        // bictcp_hystart_reset() at the state change to Loss: a new round at the next ACK.
        self.round_end_seq = 0;
    }

    /// `bictcp_hystart_reset()`: a round begins at `now_us`, ending once `snd_una` passes
    /// `snd_nxt`.
    fn hystart_reset(&mut self, now_us: u64, snd_nxt: u64) {
        self.round_start_us = now_us;
        self.last_ack_us = now_us;
        self.round_end_seq = snd_nxt;
        self.curr_rtt_us = u64::MAX;
        self.sample_cnt = 0;
    }

    /// `hystart_update()`: an ACK at `now_us` with an RTT sample of `delay_us`, in slow start.
    fn hystart_update(&mut self, now_us: u64, delay_us: u64, snd_una: u64, snd_nxt: u64) {
        if snd_una > self.round_end_seq {
            self.hystart_reset(now_us, snd_nxt);
        }
        if self.cwnd < HYSTART_LOW_WINDOW {
            return;
        }
        // The ACK train.
        if now_us.saturating_sub(self.last_ack_us) <= HYSTART_ACK_DELTA_US {
            self.last_ack_us = now_us;
            let threshold = (self.delay_min_us + HYSTART_ACK_DELAY_US) >> 1;
            if now_us.saturating_sub(self.round_start_us) > threshold {
                self.hystart_found = true;
                self.ssthresh = self.cwnd;
            }
        }
        // The delay increase.
        self.curr_rtt_us = self.curr_rtt_us.min(delay_us);
        if self.sample_cnt < HYSTART_MIN_SAMPLES {
            self.sample_cnt += 1;
        } else {
            let margin = (self.delay_min_us >> 3).clamp(HYSTART_DELAY_MIN_US, HYSTART_DELAY_MAX_US);
            if self.curr_rtt_us > self.delay_min_us + margin {
                self.hystart_found = true;
                self.ssthresh = self.cwnd;
            }
        }
    }

    /// `cubictcp_recalc_ssthresh`: W_max with fast convergence, and the new threshold.
    fn recalc_ssthresh(&mut self) -> u64 {
        self.epoch_start = None;
        self.last_max_cwnd = if self.cwnd < self.last_max_cwnd {
            self.cwnd * (BETA_SCALE + BETA) / (2 * BETA_SCALE)
        } else {
            self.cwnd
        };
        (self.cwnd * BETA / BETA_SCALE).max(2)
    }

    /// `cubictcp_acked`: the minimum RTT, from samples not right after a reduction, and HyStart
    /// in slow start.
    fn rtt_sample(&mut self, ack: &AckEvent, rtt_ns: u64) {
        let now_jiffies = ack.now_ns / JIFFY_NS;
        if self.epoch_start.is_some_and(|start| now_jiffies.saturating_sub(start) < HZ) {
            return;
        }
        let delay_us = (rtt_ns / 1000).max(1);
        if self.delay_min_us == 0 || delay_us < self.delay_min_us {
            self.delay_min_us = delay_us;
        }
        if self.hystart && !self.hystart_found && self.cwnd < self.ssthresh {
            // snd_nxt before this ACK: what was outstanding, above where it started.
            let snd_nxt = ack.ack_seq - ack.newly_acked_bytes + ack.bytes_in_flight;
            self.hystart_update(ack.now_ns / 1000, delay_us, ack.ack_seq, snd_nxt);
        }
    }

    /// `bictcp_update`: `ca->cnt` for this ACK of `acked` segments.
    fn update(&mut self, now: u64, acked: u64) {
        let cwnd = self.cwnd;
        self.ack_cnt += acked;
        if self.last_cwnd == cwnd && now.saturating_sub(self.last_time) <= HZ / 32 {
            return;
        }
        // At most one cubic computation per jiffy; a reduction clears the epoch, forcing one.
        if !(self.epoch_start.is_some() && now == self.last_time) {
            self.last_cwnd = cwnd;
            self.last_time = now;
            let epoch = match self.epoch_start {
                Some(epoch) => epoch,
                None => {
                    self.epoch_start = Some(now);
                    self.ack_cnt = acked;
                    self.tcp_cwnd = cwnd;
                    if self.last_max_cwnd <= cwnd {
                        self.bic_k = 0;
                        self.bic_origin_point = cwnd;
                    } else {
                        self.bic_k = integer_cbrt(CUBE_FACTOR * u128::from(self.last_max_cwnd - cwnd));
                        self.bic_origin_point = self.last_max_cwnd;
                    }
                    now
                }
            };
            // t = (elapsed + delay_min) in 2^-10 s.
            let delay_jiffies = (self.delay_min_us * HZ).div_ceil(1_000_000);
            let t = ((now - epoch + delay_jiffies) << BICTCP_HZ) / HZ;
            let offs = u128::from(t.abs_diff(self.bic_k));
            // The kernel computes this in u64 and would wrap after about 20 minutes of one
            // epoch; saturating keeps the window sane instead.
            let delta = (CUBE_RTT_SCALE * offs * offs * offs) >> (10 + 3 * BICTCP_HZ);
            let delta = u64::try_from(delta).unwrap_or(u64::MAX);
            let target = if t < self.bic_k {
                self.bic_origin_point.saturating_sub(delta)
            } else {
                self.bic_origin_point.saturating_add(delta)
            };
            self.cnt = if target > cwnd { cwnd / (target - cwnd) } else { 100 * cwnd };
            // "The initial growth of cubic function may be too conservative": 5 % per RTT.
            if self.last_max_cwnd == 0 && self.cnt > 20 {
                self.cnt = 20;
            }
        }
        // TCP friendliness: the Reno-friendly window, and cnt no slower than it.
        let per_segment = (cwnd * FRIENDLY_SCALE) >> 3;
        if let Some(segments) = self.ack_cnt.checked_div(per_segment) {
            self.tcp_cwnd += segments;
            self.ack_cnt %= per_segment;
        }
        if self.tcp_cwnd > cwnd {
            let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
            self.cnt = self.cnt.min(max_cnt);
        }
        // At most one segment per two acknowledged: 1.5x per round trip.
        self.cnt = self.cnt.max(2);
    }

    /// `tcp_cong_avoid_ai(tp, w, acked)`.
    fn cong_avoid_ai(&mut self, w: u64, acked: u64) {
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0;
            self.cwnd += 1;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= w {
            let delta = self.cwnd_cnt / w;
            self.cwnd_cnt -= delta * w;
            self.cwnd += delta;
        }
    }
}

/// The integer cube root, rounded down (the kernel's `cubic_root` approximates it within 0.2 %).
fn integer_cbrt(a: u128) -> u64 {
    let mut x = (a as f64).cbrt() as u128;
    while x * x * x > a {
        x -= 1;
    }
    while (x + 1) * (x + 1) * (x + 1) <= a {
        x += 1;
    }
    x as u64
}

impl CongestionControl for LinuxCubic {
    fn on_ack(&mut self, ack: &AckEvent) {
        let now = ack.now_ns / JIFFY_NS;
        if let Some(rtt) = ack.rtt_sample_ns {
            self.rtt_sample(ack, rtt);
        }
        // tcp_cong_control: no growth in recovery, on DUPACKs, or unless cwnd-limited.
        if ack.in_recovery || ack.is_dupack || ack.newly_acked_bytes == 0 || !ack.cwnd_limited {
            return;
        }
        // tcp_cong_avoid gets the segments delivered (tcp_newly_delivered).
        let mut acked = ack.newly_delivered_bytes.div_ceil(self.mss);
        if acked == 0 {
            return;
        }
        if self.cwnd < self.ssthresh {
            // tcp_slow_start: up to ssthresh, the rest goes on to congestion avoidance.
            let grown = (self.cwnd + acked).min(self.ssthresh);
            acked -= grown - self.cwnd;
            self.cwnd = grown;
            if acked == 0 {
                return;
            }
        }
        self.update(now, acked);
        self.cong_avoid_ai(self.cnt, acked);
    }

    fn on_congestion(&mut self, event: CongestionEvent) {
        match event {
            CongestionEvent::DuplicateAcks { .. } => {
                self.ssthresh = self.recalc_ssthresh();
                self.cwnd = self.ssthresh;
                self.cwnd_cnt = 0;
            }
            CongestionEvent::DuplicateAcksSlowStart { .. } => {
                self.ssthresh = self.recalc_ssthresh();
                self.cwnd = 1;
                self.cwnd_cnt = 0;
            }
            // tcp_enter_loss: a new threshold (unless repeated), then the state change to Loss
            // resets the control.
            CongestionEvent::Timeout { repeated, .. } => {
                if !repeated {
                    self.ssthresh = self.recalc_ssthresh();
                }
                self.reset();
                self.cwnd = 1;
                self.cwnd_cnt = 0;
            }
            CongestionEvent::TimeoutHeld { .. } => {
                self.reset();
                self.cwnd = 1;
                self.cwnd_cnt = 0;
            }
        }
    }

    /// cwnd was set to ssthresh at the loss and did not grow during recovery.
    fn on_recovery_exit(&mut self, _now_ns: u64) {}

    fn cwnd(&self) -> u64 {
        self.cwnd.max(1) * self.mss
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh.saturating_mul(self.mss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::congestion::WindowGrowth;

    const MSS: u64 = 1000;
    const MS: u64 = 1_000_000;

    fn cubic(initial_segments: u64) -> LinuxCubic {
        LinuxCubic::new(WindowConfig {
            mss: MSS,
            initial_cwnd: initial_segments * MSS,
            initial_ssthresh: u64::MAX / 4,
            window_growth: WindowGrowth::Linux,
        })
    }

    fn ack(now_ns: u64, segments: u64, rtt_ns: Option<u64>) -> AckEvent {
        AckEvent {
            now_ns,
            ack_seq: 0,
            newly_acked_bytes: segments * MSS,
            newly_delivered_bytes: segments * MSS,
            is_dupack: false,
            rtt_sample_ns: rtt_ns,
            in_recovery: false,
            bytes_in_flight: 0,
            cwnd_limited: true,
        }
    }

    fn loss(cc: &mut LinuxCubic) {
        cc.on_congestion(CongestionEvent::DuplicateAcks { now_ns: 0, bytes_in_flight: 0 });
    }

    #[test]
    fn the_constants_are_the_kernels() {
        assert_eq!(FRIENDLY_SCALE, 15);
        assert_eq!(CUBE_FACTOR, (1u128 << 40) / 410);
        // K for W_max - cwnd = 3 segments: cbrt(3 / 0.4) = 1.957 s, in 2^-10 s.
        let k = integer_cbrt(CUBE_FACTOR * 3);
        assert!((k as f64 / 1024.0 - (3.0f64 / 0.4).cbrt()).abs() < 0.01, "K {k}");
        for a in [0u128, 1, 7, 8, 26, 27, 1 << 60, (1 << 60) + 12345] {
            let x = integer_cbrt(a) as u128;
            assert!(x * x * x <= a && (x + 1) * (x + 1) * (x + 1) > a, "cbrt({a}) = {x}");
        }
    }

    #[test]
    fn a_loss_takes_whole_segments_and_fast_convergence_lowers_w_max() {
        let mut cc = cubic(5);
        loss(&mut cc);
        // 5 * 717 / 1024 = 3.5: 3 segments, not 3.5.
        assert_eq!((cc.cwnd(), cc.ssthresh(), cc.last_max_cwnd()), (3 * MSS, 3 * MSS, 5));
        // A second loss below W_max: W_max = 3 * 1741 / 2048 = 2; ssthresh never below 2.
        loss(&mut cc);
        assert_eq!((cc.cwnd_segments(), cc.last_max_cwnd()), (2, 2));
        let mut big = cubic(100);
        loss(&mut big);
        assert_eq!(big.cwnd_segments(), 70);
    }

    #[test]
    fn small_windows_grow_at_the_reno_friendly_rate_of_about_half_a_segment_per_round_trip() {
        // W_max 8, cwnd 5 after the loss: the curve needs K = 1.9 s to climb back, so the
        // Reno-friendly window (one segment per 15/8 cwnd acknowledged) leads at first.
        let mut cc = cubic(8);
        let rtt = 90 * MS;
        loss(&mut cc);
        assert_eq!(cc.cwnd_segments(), 5);
        let mut now = 1_000 * MS;
        let mut rounds = 0;
        while cc.cwnd_segments() < 8 {
            // One round trip: a delayed ACK per two segments of the window.
            for _ in 0..cc.cwnd_segments() / 2 {
                cc.on_ack(&ack(now, 2, Some(rtt)));
                now += rtt / 8;
            }
            now += rtt / 2;
            rounds += 1;
            assert!(rounds < 40, "cwnd {} after {rounds} round trips", cc.cwnd_segments());
        }
        // Three segments at 0.53 per round trip (a little faster as the curve takes over near
        // W_max): about six round trips, where RFC 9438's alpha = 1 would take three.
        assert!((4..=8).contains(&rounds), "{rounds} round trips from 5 to 8 segments");
    }

    #[test]
    fn an_rto_forgets_w_max_and_growth_is_capped_at_five_percent_per_cnt() {
        let mut cc = cubic(20);
        loss(&mut cc);
        assert_eq!(cc.last_max_cwnd(), 20);
        cc.on_congestion(CongestionEvent::Timeout { now_ns: 0, bytes_in_flight: 0, repeated: false });
        assert_eq!((cc.cwnd_segments(), cc.last_max_cwnd()), (1, 0));
        // ssthresh from the window at the RTO (14 * 717 / 1024 = 9).
        assert_eq!(cc.ssthresh(), 9 * MSS);
        // Slow start to 9, then congestion avoidance with no origin: cnt capped at 20, or
        // below by the Reno-friendly rule.
        let mut now = 0;
        while cc.cwnd_segments() < 9 {
            cc.on_ack(&ack(now, 1, None));
            now += 10 * MS;
        }
        cc.on_ack(&ack(now + 100 * MS, 1, None));
        assert!(cc.cnt() <= 20 && cc.cnt() >= 2, "cnt {}", cc.cnt());
    }

    #[test]
    fn no_growth_in_recovery_on_dupacks_or_when_not_cwnd_limited() {
        let mut cc = cubic(10);
        let before = cc.cwnd();
        for edit in [
            (|a: &mut AckEvent| a.in_recovery = true) as fn(&mut AckEvent),
            |a| a.is_dupack = true,
            |a| a.cwnd_limited = false,
        ] {
            let mut a = ack(0, 2, None);
            edit(&mut a);
            cc.on_ack(&a);
            assert_eq!(cc.cwnd(), before);
        }
        cc.on_ack(&ack(0, 2, None));
        assert_eq!(cc.cwnd(), before + 2 * MSS, "slow start counts the segments acknowledged");
    }

    /// An ACK of segment `acked` (cumulative, one segment) with `in_flight` segments out
    /// before it, at `now_ns`, with an RTT sample.
    fn ack_of(now_ns: u64, acked: u64, in_flight: u64, rtt_ns: u64) -> AckEvent {
        AckEvent { ack_seq: acked * MSS, bytes_in_flight: in_flight * MSS, ..ack(now_ns, 1, Some(rtt_ns)) }
    }

    /// Slow start from `initial` segments, every ACK one segment `gap_ns` after the last; the
    /// first round (the initial window) at 90 ms RTT, the rest at `later_rtt_ns`. Returns the
    /// window and ssthresh when HyStart ended slow start (or after 200 ACKs).
    fn slow_start(mut cc: LinuxCubic, initial: u64, gap_ns: u64, later_rtt_ns: u64) -> (u64, u64, bool) {
        let mut now = 0;
        for n in 1..=200u64 {
            let in_flight = cc.cwnd_segments();
            let rtt = if n <= initial { 90 * MS } else { later_rtt_ns };
            now += gap_ns;
            cc.on_ack(&ack_of(now, n, in_flight, rtt));
            if cc.hystart_found() {
                return (cc.cwnd_segments(), cc.ssthresh() / MSS, true);
            }
        }
        (cc.cwnd_segments(), cc.ssthresh() / MSS, false)
    }

    #[test]
    fn hystart_ends_slow_start_when_a_rounds_rtt_grows_by_an_eighth_of_the_minimum() {
        // delay_min 90 ms: the margin is clamp(11.25 ms, 4, 16); 102 ms RTTs in the second
        // round end slow start at its ninth sample, with ssthresh = cwnd.
        let (cwnd, ssthresh, found) = slow_start(cubic(20), 20, 5 * MS, 102 * MS);
        assert!(found);
        assert_eq!(cwnd, ssthresh);
        // Found before the ninth ACK's growth: the window its 28 predecessors made.
        assert_eq!(cwnd, 20 + 28, "nine samples into the second round");
        // 100 ms is within the margin; without HyStart nothing ends slow start.
        assert!(!slow_start(cubic(20), 20, 5 * MS, 100 * MS).2);
        assert!(!slow_start(cubic(20).without_hystart(), 20, 5 * MS, 200 * MS).2);
        // Below 16 segments HyStart waits.
        let (cwnd, _, found) = slow_start(cubic(4), 4, 5 * MS, 102 * MS);
        assert!(found && cwnd >= HYSTART_LOW_WINDOW, "{cwnd}");
    }

    #[test]
    fn hystart_ends_slow_start_on_a_train_of_acks_longer_than_half_the_minimum_rtt() {
        // ACKs 1 ms apart at a steady 90 ms: the train passes (90 + 1) / 2 ms after its round
        // began (at the first ACK), so at the 47th, before its growth.
        let (cwnd, ssthresh, found) = slow_start(cubic(64), 200, MS, 90 * MS);
        assert!(found);
        assert_eq!(cwnd, ssthresh);
        assert_eq!(cwnd, 64 + 46);
        // ACKs 3 ms apart make no train.
        assert!(!slow_start(cubic(64), 200, 3 * MS, 90 * MS).2);
    }

    #[test]
    fn an_rto_lets_hystart_act_again() {
        let mut cc = cubic(20);
        let mut now = 0;
        for n in 1..=40u64 {
            now += 5 * MS;
            let rtt = if n <= 20 { 90 * MS } else { 102 * MS };
            let in_flight = cc.cwnd_segments();
            cc.on_ack(&ack_of(now, n, in_flight, rtt));
        }
        assert!(cc.hystart_found());
        cc.on_congestion(CongestionEvent::Timeout { now_ns: 0, bytes_in_flight: 0, repeated: false });
        assert!(!cc.hystart_found());
    }
}
