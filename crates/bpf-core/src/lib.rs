//! Native build of `kernel/westwood_core.h`, the fixed-point arithmetic core of the eBPF
//! TCP Westwood congestion controls (`tcpw` = TCPW of seed 000, `tcpw_tr` = TCPW-TR of seed 001,
//! `tcpw_abse` = TCPW ABSE of seed 004, `tcpw_plus` = Westwood+), and of the UCLA ns-2 agent,
//! which the ns-3 module (ns3/westwood) runs and no kernel program yet.
//!
//! `build.rs` compiles `csrc/ffi.c` — extern wrappers over the header's `static
//! __always_inline` functions — so these tests run exactly the C the BPF program inlines.
//! [`ffi`] declares those functions over `#[repr(C)]` mirrors of the header's structs;
//! [`CoreController`] is a thin safe wrapper that plays the role of the Rust reference controller
//! (`westwood_algorithms::westwood::Westwood`): estimator + loss rules + reference Reno growth,
//! driven by the same events as the test vectors.
//!
//! Fixed-point formats (see the header and `kernel/README.md`): time in µs (ABSE: ns inside),
//! BWE and bandwidth samples in bits/s Q8, Tustin coefficient in Q32, windows in segments.

/// `#[repr(C)]` mirrors of the header's structs and the `extern "C"` entry points of
/// `csrc/ffi.c`.
pub mod ffi {
    #[repr(C)]
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub struct WwcAcked {
        pub last_ack: u32,
        pub accounted_for: u32,
    }

    #[repr(C)]
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub struct WwcTcpw {
        pub bwe: u64,
        pub prev_sample: u64,
        pub last_us: u64,
        pub acked: WwcAcked,
        pub carried_bytes: u32,
        pub rtt_min_us: u32,
        pub flags: u32,
        pub virtual_samples: u32,
    }

    #[repr(C)]
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub struct WwcPlus {
        pub bw_ns_est: u64,
        pub bw_est: u64,
        pub win_start_us: u64,
        pub win_bytes: u64,
        pub acked: WwcAcked,
        pub rtt_us: u32,
        pub rtt_min_us: u32,
        pub flags: u32,
        pub samples: u32,
    }

    #[repr(C)]
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub struct WwcReno {
        pub cwnd: u32,
        pub ssthresh: u32,
        pub cnt: u32,
    }

    #[repr(C)]
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub struct WwcTr {
        pub bwe: u64,
        pub prev_sample: u64,
        pub last_us: u64,
        pub acked: WwcAcked,
        pub carried_bytes: u32,
        pub rtt_min_us: u32,
        pub flags: u32,
        pub a_quarters: u32,
    }

    #[repr(C)]
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub struct WwcUcla {
        pub bwe: u64,
        pub prev_sample: u64,
        pub last_us: u64,
        pub idle_periods: u64,
        pub acked: WwcAcked,
        pub carried_bytes: u32,
        pub rtt_min_us: u32,
        pub a_quarters: u32,
        pub flags: u32,
    }

    /// `struct wwc_ucla_params`: the UCLA agent's `filter_type_`, `tau_`, `fr_alpha_` (in
    /// millionths), `tcp_tick_`, initial RTTmin and the sampling option.
    #[repr(C)]
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct WwcUclaParams {
        pub filter: u32,
        pub tau_us: u32,
        pub alpha_ppm: u32,
        pub tick_us: u32,
        pub initial_rtt_min_us: u32,
        pub sample: u32,
    }

    impl WwcUclaParams {
        /// The reference's `UclaParams::default()`: filter 3, tau 1 s, alpha 0.9, tick 10 ms,
        /// RTTmin 5 s before the first sample, the trapezoid.
        pub const DEFAULT: WwcUclaParams = WwcUclaParams {
            filter: WWC_UCLA_FILTER_TAU,
            tau_us: 1_000_000,
            alpha_ppm: 900_000,
            tick_us: 10_000,
            initial_rtt_min_us: 5_000_000,
            sample: WWC_SAMPLE_TRAPEZOID,
        };
    }

    #[repr(C)]
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct WwcAbseParams {
        pub t_min_us: u32,
        pub n: u32,
        pub epsilon_permille: u32,
        pub beta_permille: u32,
        /// Fixed U_max, bits/s Q8; 0 = the running maximum.
        pub u_max_q8: u64,
        /// History slot width q, ns; 0 = `t_min / 32`.
        pub history_slot_ns: u32,
        pub reserved: u32,
    }

    impl WwcAbseParams {
        /// `WWC_ABSE_PARAMS_DEFAULT` (= the Rust reference's `AbseParams::default()`).
        pub const DEFAULT: WwcAbseParams = WwcAbseParams {
            t_min_us: 50_000,
            n: 10,
            epsilon_permille: 600,
            beta_permille: 600,
            u_max_q8: 0,
            history_slot_ns: 0,
            reserved: 0,
        };
    }

    impl Default for WwcAbseParams {
        fn default() -> Self {
            Self::DEFAULT
        }
    }

    #[repr(C)]
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub struct WwcAbseSlot {
        pub start_ns: u64,
        pub cum_bytes: u64,
    }

    pub const WWC_ABSE_SLOTS: usize = 512;

    #[repr(C)]
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct WwcAbse {
        pub est: u64,
        pub prev_sample: u64,
        pub throughput: u64,
        pub instability: u64,
        pub max_instability: u64,
        pub last_ack_ns: u64,
        pub srtt_ns: u64,
        pub total_bytes: u64,
        pub base_bytes: u64,
        pub interval_ns: u64,
        pub tau_ns: u64,
        pub acked: WwcAcked,
        pub rtt_min_us: u32,
        pub flags: u32,
        pub head: u32,
        pub count: u32,
        pub reserved: u32,
        pub slots: [WwcAbseSlot; WWC_ABSE_SLOTS],
    }

    impl Default for WwcAbse {
        fn default() -> Self {
            WwcAbse {
                est: 0,
                prev_sample: 0,
                throughput: 0,
                instability: 0,
                max_instability: 0,
                last_ack_ns: 0,
                srtt_ns: 0,
                total_bytes: 0,
                base_bytes: 0,
                interval_ns: 0,
                tau_ns: 0,
                acked: WwcAcked::default(),
                rtt_min_us: 0,
                flags: 0,
                head: 0,
                count: 0,
                reserved: 0,
                slots: [WwcAbseSlot::default(); WWC_ABSE_SLOTS],
            }
        }
    }

    /// `sample` of the TCPW functions: the paper's trapezoid `(b_k + b_{k-1}) / 2` ...
    pub const WWC_SAMPLE_TRAPEZOID: u32 = 0;
    /// ... or interval sampling, `b_k` alone.
    pub const WWC_SAMPLE_INTERVAL: u32 = 1;

    /// AckedCount's rule: seed 000 §2.3's, or the UCLA agent's (`acked_count = "ucla"`).
    pub const WWC_ACKED_PAPER: u32 = 0;
    pub const WWC_ACKED_UCLA: u32 = 1;

    /// The UCLA agent's `filter_type_` 0-3 (`WWC_UCLA_FILTER_*`).
    pub const WWC_UCLA_FILTER_EWMA: u32 = 0;
    pub const WWC_UCLA_FILTER_RATIO10: u32 = 1;
    pub const WWC_UCLA_FILTER_RATIO15: u32 = 2;
    pub const WWC_UCLA_FILTER_TAU: u32 = 3;

    pub const WWC_F_HAVE_ACK: u32 = 1;
    pub const WWC_F_HAVE_TIME: u32 = 2;
    pub const WWC_F_HAVE_RTT: u32 = 4;
    pub const WWC_F_HAVE_SAMPLE: u32 = 8;

    extern "C" {
        pub fn wwc_ffi_sizeof_tcpw() -> usize;
        pub fn wwc_ffi_sizeof_plus() -> usize;
        pub fn wwc_ffi_sizeof_reno() -> usize;
        pub fn wwc_ffi_offsetof_tcpw_flags() -> usize;
        pub fn wwc_ffi_offsetof_plus_flags() -> usize;

        pub fn wwc_ffi_muldiv64(x: u64, mul: u32, den: u64) -> u64;
        pub fn wwc_ffi_shift_to_u32(v: u64) -> u32;
        pub fn wwc_ffi_tustin_alpha_q32(tau_us: u32, delta_us: u32) -> u64;
        pub fn wwc_ffi_tustin_step(bwe: u64, prev_sample: u64, bytes: u64, delta_us: u32, tau_us: u32)
            -> u64;

        pub fn wwc_ffi_acked_count(a: *mut WwcAcked, flags: *mut u32, ack_seq: u32, mss: u32) -> u32;

        pub fn wwc_ffi_tcpw_init(s: *mut WwcTcpw);
        pub fn wwc_ffi_tcpw_advance(s: *mut WwcTcpw, now_us: u64, tau_us: u32, m: u32);
        pub fn wwc_ffi_tcpw_filter_ack(s: *mut WwcTcpw, now_us: u64, bytes: u32, tau_us: u32, m: u32);
        pub fn wwc_ffi_tcpw_on_ack(
            s: *mut WwcTcpw,
            now_us: u64,
            ack_seq: u32,
            mss: u32,
            rtt_us: i64,
            tau_us: u32,
            m: u32,
        ) -> u32;
        pub fn wwc_ffi_tcpw_bwe_q8(s: *const WwcTcpw) -> u64;
        pub fn wwc_ffi_tcpw_ssthresh(s: *mut WwcTcpw, now_us: u64, mss: u32, tau_us: u32, m: u32) -> u32;

        pub fn wwc_ffi_interval_step(bwe: u64, bytes: u64, delta_us: u32, tau_us: u32) -> u64;
        pub fn wwc_ffi_tcpw_advance_sampled(s: *mut WwcTcpw, now_us: u64, tau_us: u32, m: u32, sample: u32);
        pub fn wwc_ffi_tcpw_filter_ack_sampled(
            s: *mut WwcTcpw,
            now_us: u64,
            bytes: u32,
            tau_us: u32,
            m: u32,
            sample: u32,
        );
        #[allow(clippy::too_many_arguments)]
        pub fn wwc_ffi_tcpw_on_ack_sampled(
            s: *mut WwcTcpw,
            now_us: u64,
            ack_seq: u32,
            mss: u32,
            rtt_us: i64,
            tau_us: u32,
            m: u32,
            sample: u32,
        ) -> u32;
        pub fn wwc_ffi_tcpw_ssthresh_sampled(
            s: *mut WwcTcpw,
            now_us: u64,
            mss: u32,
            tau_us: u32,
            m: u32,
            sample: u32,
        ) -> u32;

        pub fn wwc_ffi_plus_init(s: *mut WwcPlus);
        pub fn wwc_ffi_plus_rtt_sample(s: *mut WwcPlus, rtt_us: u32);
        pub fn wwc_ffi_plus_filter_ack(s: *mut WwcPlus, now_us: u64, bytes: u32, min_window_us: u32);
        pub fn wwc_ffi_plus_on_ack(
            s: *mut WwcPlus,
            now_us: u64,
            ack_seq: u32,
            mss: u32,
            rtt_us: i64,
            min_window_us: u32,
        ) -> u32;
        pub fn wwc_ffi_plus_bwe_q8(s: *const WwcPlus) -> u64;
        pub fn wwc_ffi_plus_ssthresh(s: *const WwcPlus, mss: u32) -> u32;

        pub fn wwc_ffi_ssthresh_segs(bwe_q8: u64, rtt_min_us: u32, have_rtt: i32, mss: u32) -> u32;
        pub fn wwc_ffi_cwnd_after_dupacks(cwnd: u32, ssthresh: u32) -> u32;
        pub fn wwc_ffi_cwnd_after_timeout() -> u32;

        pub fn wwc_ffi_sizeof_tr() -> usize;
        pub fn wwc_ffi_offsetof_tr_flags() -> usize;
        pub fn wwc_ffi_offsetof_tr_a_quarters() -> usize;
        pub fn wwc_ffi_tr_step(bwe: u64, sample: u64, prev_sample: u64, ratio: u32) -> u64;
        pub fn wwc_ffi_tr_init(s: *mut WwcTr);
        pub fn wwc_ffi_tr_rtt_sample(s: *mut WwcTr, rtt_us: u32);
        pub fn wwc_ffi_tr_filter_ack(s: *mut WwcTr, now_us: u64, bytes: u32, ratio: u32);
        pub fn wwc_ffi_tr_on_ack(
            s: *mut WwcTr,
            now_us: u64,
            ack_seq: u32,
            mss: u32,
            rtt_us: i64,
            ratio: u32,
        ) -> u32;
        pub fn wwc_ffi_tr_bwe_q8(s: *const WwcTr) -> u64;
        pub fn wwc_ffi_tr_update_factor(s: *mut WwcTr, timeout: i32, in_slow_start: i32) -> u32;
        pub fn wwc_ffi_tr_ssthresh(s: *mut WwcTr, timeout: i32, in_slow_start: i32, mss: u32) -> u32;

        #[allow(clippy::too_many_arguments)]
        pub fn wwc_ffi_tcpw_on_ack_rule(
            s: *mut WwcTcpw,
            now_us: u64,
            ack_seq: u32,
            mss: u32,
            rtt_us: i64,
            tau_us: u32,
            m: u32,
            sample: u32,
            acked_rule: u32,
        ) -> u32;

        pub fn wwc_ffi_sizeof_ucla() -> usize;
        pub fn wwc_ffi_sizeof_ucla_params() -> usize;
        pub fn wwc_ffi_ucla_init(s: *mut WwcUcla, p: *const WwcUclaParams);
        pub fn wwc_ffi_ucla_on_ack(
            s: *mut WwcUcla,
            p: *const WwcUclaParams,
            now_us: u64,
            ack_seq: u32,
            mss: u32,
            rtt_us: i64,
            acked_rule: u32,
        ) -> u32;
        pub fn wwc_ffi_ucla_bwe_q8(s: *const WwcUcla) -> u64;
        pub fn wwc_ffi_ucla_ssthresh(s: *mut WwcUcla, timeout: i32, in_slow_start: i32, mss: u32) -> u32;

        pub fn wwc_ffi_sizeof_abse() -> usize;
        pub fn wwc_ffi_sizeof_abse_params() -> usize;
        pub fn wwc_ffi_sizeof_abse_slot() -> usize;
        pub fn wwc_ffi_offsetof_abse_acked() -> usize;
        pub fn wwc_ffi_offsetof_abse_flags() -> usize;
        pub fn wwc_ffi_offsetof_abse_count() -> usize;
        pub fn wwc_ffi_offsetof_abse_slots() -> usize;
        pub fn wwc_ffi_offsetof_abse_params_u_max_q8() -> usize;
        pub fn wwc_ffi_offsetof_abse_params_history_slot_ns() -> usize;
        pub fn wwc_ffi_abse_params_default(p: *mut WwcAbseParams);
        pub fn wwc_ffi_ratio_q32(u: u64, u_max: u64) -> u64;
        pub fn wwc_ffi_abse_tau_ns(rtt_ns: u64, n: u32, ratio_q32: u64) -> u64;
        pub fn wwc_ffi_abse_interval_ns(
            th_q8: u64,
            rtt_ns: u64,
            rtt_min_ns: u64,
            cwnd_bytes: u64,
            t_min_ns: u64,
        ) -> u64;
        pub fn wwc_ffi_abse_step(est: u64, sample: u64, prev_sample: u64, delta_ns: u64, tau_ns: u64) -> u64;
        pub fn wwc_ffi_abse_init(s: *mut WwcAbse);
        pub fn wwc_ffi_abse_rtt_sample(s: *mut WwcAbse, rtt_us: u32);
        pub fn wwc_ffi_abse_rtt_min_us(s: *const WwcAbse) -> u32;
        pub fn wwc_ffi_abse_record(s: *mut WwcAbse, now_ns: u64, bytes: u64, keep_ns: u64, q_ns: u64);
        pub fn wwc_ffi_abse_bytes_within(s: *const WwcAbse, now_ns: u64, window_ns: u64) -> u64;
        pub fn wwc_ffi_abse_filter_ack(
            s: *mut WwcAbse,
            p: *const WwcAbseParams,
            now_ns: u64,
            bytes: u64,
            cwnd_bytes: u64,
        );
        pub fn wwc_ffi_abse_on_ack(
            s: *mut WwcAbse,
            p: *const WwcAbseParams,
            now_us: u64,
            ack_seq: u32,
            mss: u32,
            rtt_us: i64,
            cwnd_bytes: u64,
        ) -> u32;
        pub fn wwc_ffi_abse_bwe_q8(s: *const WwcAbse) -> u64;
        pub fn wwc_ffi_abse_ssthresh(s: *const WwcAbse, mss: u32) -> u32;

        pub fn wwc_ffi_reno_init(r: *mut WwcReno, cwnd: u32, ssthresh: u32);
        pub fn wwc_ffi_reno_set(r: *mut WwcReno, cwnd: u32, ssthresh: u32);
        pub fn wwc_ffi_reno_grow(r: *mut WwcReno, newly_acked_bytes: u32);
    }
}

/// Scale of the Q8 bits/s values.
pub const BWE_ONE: f64 = 256.0;
/// Scale of the Q32 coefficients.
pub const Q32_ONE: f64 = 4_294_967_296.0;
/// Defaults of the header (and of the Rust reference's `TcpwParams` / `PlusParams`).
pub const TCPW_TAU_US: u32 = 500_000;
pub const TCPW_M: u32 = 2;
pub const PLUS_MIN_WINDOW_US: u32 = 50_000;
/// TCPW-TR's time-constant to sampling-time ratio (seed 001 §II: 10, alpha = 19/21).
pub const TR_RATIO: u32 = 10;

/// `alpha = (2 tau - Delta) / (2 tau + Delta)` as the header computes it (Q32, as f64).
pub fn tustin_alpha(tau_us: u32, delta_us: u32) -> f64 {
    // SAFETY: pure function of its arguments.
    unsafe { ffi::wwc_ffi_tustin_alpha_q32(tau_us, delta_us) as f64 / Q32_ONE }
}

/// One interval-sampling step in Q8 bits/s: `alpha BWE + (1 - alpha) b`, `b` given as bytes.
pub fn interval_step_q8(bwe_q8: u64, bytes: u64, delta_us: u32, tau_us: u32) -> u64 {
    // SAFETY: pure function of its arguments.
    unsafe { ffi::wwc_ffi_interval_step(bwe_q8, bytes, delta_us, tau_us) }
}

/// One Tustin step in Q8 bits/s: previous estimate, previous sample, bytes of the new sample.
pub fn tustin_step_q8(bwe_q8: u64, prev_sample_q8: u64, bytes: u64, delta_us: u32, tau_us: u32) -> u64 {
    // SAFETY: pure function of its arguments.
    unsafe { ffi::wwc_ffi_tustin_step(bwe_q8, prev_sample_q8, bytes, delta_us, tau_us) }
}

/// `max(2, floor(BWE * RTTmin / (8 mss)))` segments.
pub fn ssthresh_segments(bwe_q8: u64, rtt_min_us: Option<u32>, mss: u32) -> u32 {
    // SAFETY: pure function of its arguments.
    unsafe { ffi::wwc_ffi_ssthresh_segs(bwe_q8, rtt_min_us.unwrap_or(0), rtt_min_us.is_some() as i32, mss) }
}

/// AckedCount (seed 000 §2.3) over `u32` sequence numbers.
#[derive(Debug, Clone, Default)]
pub struct AckedCount {
    state: ffi::WwcAcked,
    flags: u32,
}

impl AckedCount {
    pub fn new() -> Self {
        Self::default()
    }

    /// Start from a known `last_ack_seqno` and `accounted_for`.
    pub fn with_state(last_ack: u32, accounted_for: u32) -> Self {
        AckedCount { state: ffi::WwcAcked { last_ack, accounted_for }, flags: ffi::WWC_F_HAVE_ACK }
    }

    /// Segments credited for an ACK of `ack_seq`.
    pub fn on_ack(&mut self, ack_seq: u32, mss: u32) -> u32 {
        // SAFETY: both pointers are to live, exclusively borrowed fields.
        unsafe { ffi::wwc_ffi_acked_count(&mut self.state, &mut self.flags, ack_seq, mss) }
    }

    pub fn accounted_for(&self) -> u32 {
        self.state.accounted_for
    }
}

/// The TCPW estimator state of the header.
#[derive(Debug, Clone)]
pub struct Tcpw {
    pub state: ffi::WwcTcpw,
    pub tau_us: u32,
    pub m: u32,
    /// `ffi::WWC_SAMPLE_TRAPEZOID` or `ffi::WWC_SAMPLE_INTERVAL`.
    pub sample: u32,
}

impl Tcpw {
    /// The paper's trapezoid sampling, through the header's original entry points.
    pub fn new(tau_us: u32, m: u32) -> Self {
        Self::with_sample(tau_us, m, ffi::WWC_SAMPLE_TRAPEZOID)
    }

    /// With a sampling choice: the `_sampled` entry points.
    pub fn with_sample(tau_us: u32, m: u32, sample: u32) -> Self {
        let mut state = ffi::WwcTcpw::default();
        // SAFETY: `state` is a valid, exclusively borrowed mirror of `struct wwc_tcpw`.
        unsafe { ffi::wwc_ffi_tcpw_init(&mut state) };
        Tcpw { state, tau_us, m, sample }
    }

    /// Filter step only (bytes already credited by AckedCount).
    pub fn filter_ack(&mut self, now_us: u64, bytes: u32) {
        let (tau, m, sample) = (self.tau_us, self.m, self.sample);
        // SAFETY: as in `new`.
        unsafe {
            if sample == ffi::WWC_SAMPLE_TRAPEZOID {
                ffi::wwc_ffi_tcpw_filter_ack(&mut self.state, now_us, bytes, tau, m)
            } else {
                ffi::wwc_ffi_tcpw_filter_ack_sampled(&mut self.state, now_us, bytes, tau, m, sample)
            }
        }
    }

    /// Apply the virtual samples due strictly before `now_us`.
    pub fn advance(&mut self, now_us: u64) {
        let (tau, m, sample) = (self.tau_us, self.m, self.sample);
        // SAFETY: as in `new`.
        unsafe {
            if sample == ffi::WWC_SAMPLE_TRAPEZOID {
                ffi::wwc_ffi_tcpw_advance(&mut self.state, now_us, tau, m)
            } else {
                ffi::wwc_ffi_tcpw_advance_sampled(&mut self.state, now_us, tau, m, sample)
            }
        }
    }

    pub fn bwe_q8(&self) -> u64 {
        // SAFETY: as in `new`.
        unsafe { ffi::wwc_ffi_tcpw_bwe_q8(&self.state) }
    }

    pub fn bwe_bps(&self) -> f64 {
        self.bwe_q8() as f64 / BWE_ONE
    }
}

/// The TCPW-TR estimator state of the header (filter + reduction factor).
#[derive(Debug, Clone)]
pub struct Tr {
    pub state: ffi::WwcTr,
    pub ratio: u32,
}

impl Tr {
    pub fn new(ratio: u32) -> Self {
        let mut state = ffi::WwcTr::default();
        // SAFETY: `state` is a valid, exclusively borrowed mirror of `struct wwc_tr`.
        unsafe { ffi::wwc_ffi_tr_init(&mut state) };
        Tr { state, ratio }
    }

    /// Filter step only (bytes already credited by AckedCount).
    pub fn filter_ack(&mut self, now_us: u64, bytes: u32) {
        // SAFETY: as in `new`.
        unsafe { ffi::wwc_ffi_tr_filter_ack(&mut self.state, now_us, bytes, self.ratio) }
    }

    pub fn rtt_sample(&mut self, rtt_us: u32) {
        // SAFETY: as in `new`.
        unsafe { ffi::wwc_ffi_tr_rtt_sample(&mut self.state, rtt_us) }
    }

    /// Update `a` for a loss and return it, in quarters.
    pub fn update_factor(&mut self, timeout: bool, in_slow_start: bool) -> u32 {
        // SAFETY: as in `new`.
        unsafe { ffi::wwc_ffi_tr_update_factor(&mut self.state, timeout as i32, in_slow_start as i32) }
    }

    /// ssthresh (segments) at a loss, `a` updated first.
    pub fn ssthresh(&mut self, timeout: bool, in_slow_start: bool, mss: u32) -> u32 {
        // SAFETY: as in `new`.
        unsafe { ffi::wwc_ffi_tr_ssthresh(&mut self.state, timeout as i32, in_slow_start as i32, mss) }
    }

    pub fn bwe_q8(&self) -> u64 {
        // SAFETY: as in `new`.
        unsafe { ffi::wwc_ffi_tr_bwe_q8(&self.state) }
    }

    pub fn bwe_bps(&self) -> f64 {
        self.bwe_q8() as f64 / BWE_ONE
    }
}

/// The TCPW ABSE estimator state of the header (8 KB: boxed).
#[derive(Debug, Clone)]
pub struct Abse {
    pub state: Box<ffi::WwcAbse>,
    pub params: ffi::WwcAbseParams,
}

impl Abse {
    pub fn new(params: ffi::WwcAbseParams) -> Self {
        let mut state = Box::<ffi::WwcAbse>::default();
        // SAFETY: `state` is a valid, exclusively borrowed mirror of `struct wwc_abse`.
        unsafe { ffi::wwc_ffi_abse_init(&mut *state) };
        Abse { state, params }
    }

    pub fn rtt_sample(&mut self, rtt_us: u32) {
        // SAFETY: as in `new`.
        unsafe { ffi::wwc_ffi_abse_rtt_sample(&mut *self.state, rtt_us) }
    }

    /// Estimator step only (bytes already credited by AckedCount); `cwnd_bytes` before the ACK.
    pub fn filter_ack(&mut self, now_ns: u64, bytes: u64, cwnd_bytes: u64) {
        // SAFETY: as in `new`; `params` is a live mirror.
        unsafe { ffi::wwc_ffi_abse_filter_ack(&mut *self.state, &self.params, now_ns, bytes, cwnd_bytes) }
    }

    /// History only: record an ACK (slot width `q_ns`, keep slots `keep_ns`).
    pub fn record(&mut self, now_ns: u64, bytes: u64, keep_ns: u64, q_ns: u64) {
        // SAFETY: as in `new`.
        unsafe { ffi::wwc_ffi_abse_record(&mut *self.state, now_ns, bytes, keep_ns, q_ns) }
    }

    /// Bytes of the slots that started in `(now - window, now]`.
    pub fn bytes_within(&self, now_ns: u64, window_ns: u64) -> u64 {
        // SAFETY: as in `new`.
        unsafe { ffi::wwc_ffi_abse_bytes_within(&*self.state, now_ns, window_ns) }
    }

    /// The history, oldest slot first: (start, bytes of the slot).
    pub fn slots(&self) -> Vec<(u64, u64)> {
        let s = &*self.state;
        let mut previous = s.base_bytes;
        (0..s.count as usize)
            .map(|i| {
                let slot = s.slots[(s.head as usize + i) % ffi::WWC_ABSE_SLOTS];
                let bytes = slot.cum_bytes - previous;
                previous = slot.cum_bytes;
                (slot.start_ns, bytes)
            })
            .collect()
    }

    pub fn bwe_q8(&self) -> u64 {
        // SAFETY: as in `new`.
        unsafe { ffi::wwc_ffi_abse_bwe_q8(&*self.state) }
    }

    pub fn bwe_bps(&self) -> f64 {
        self.bwe_q8() as f64 / BWE_ONE
    }
}

/// Which estimator a [`CoreController`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Estimator {
    /// TCPW (seed 000): Tustin filter, virtual samples every `tau/m`; `sample` is
    /// `ffi::WWC_SAMPLE_TRAPEZOID` (the paper's, through the original entry points) or
    /// `ffi::WWC_SAMPLE_INTERVAL` (the `_sampled` entry points); `acked` the AckedCount rule,
    /// `ffi::WWC_ACKED_PAPER` or `ffi::WWC_ACKED_UCLA` (the `_rule` entry point).
    Tcpw { tau_us: u32, m: u32, sample: u32, acked: u32 },
    /// Westwood+: per-RTT samples (window at least `min_window_us`), two 7/8 EWMAs.
    Plus { min_window_us: u32 },
    /// TCPW-TR (seed 001): constant-gain filter `alpha = (2 ratio - 1)/(2 ratio + 1)`, threshold
    /// reduction factor `a`.
    Tr { ratio: u32 },
    /// TCPW ABSE (seed 004): adaptive sampling interval and filter gain.
    Abse { params: ffi::WwcAbseParams },
    /// The UCLA ns-2 agent (tcp-westwood.cc v1.3) with the AckedCount rule `acked` (its own,
    /// `ffi::WWC_ACKED_UCLA`, by default). No kernel program runs it yet.
    Ucla { params: ffi::WwcUclaParams, acked: u32 },
}

impl Estimator {
    pub const TCPW: Estimator = Estimator::Tcpw {
        tau_us: TCPW_TAU_US,
        m: TCPW_M,
        sample: ffi::WWC_SAMPLE_TRAPEZOID,
        acked: ffi::WWC_ACKED_PAPER,
    };
    /// TCPW with interval sampling (the reference's `westwood-interval` vectors).
    pub const TCPW_INTERVAL: Estimator = Estimator::Tcpw {
        tau_us: TCPW_TAU_US,
        m: TCPW_M,
        sample: ffi::WWC_SAMPLE_INTERVAL,
        acked: ffi::WWC_ACKED_PAPER,
    };
    /// TCPW with the UCLA agent's AckedCount (the reference's `westwood-acked-ucla` vectors).
    pub const TCPW_ACKED_UCLA: Estimator = Estimator::Tcpw {
        tau_us: TCPW_TAU_US,
        m: TCPW_M,
        sample: ffi::WWC_SAMPLE_TRAPEZOID,
        acked: ffi::WWC_ACKED_UCLA,
    };
    pub const UCLA: Estimator =
        Estimator::Ucla { params: ffi::WwcUclaParams::DEFAULT, acked: ffi::WWC_ACKED_UCLA };
    pub const PLUS: Estimator = Estimator::Plus { min_window_us: PLUS_MIN_WINDOW_US };
    pub const TR: Estimator = Estimator::Tr { ratio: TR_RATIO };
    pub const ABSE: Estimator = Estimator::Abse { params: ffi::WwcAbseParams::DEFAULT };

    /// The reference's `cc` name (the folder of its vectors): TCPW with interval sampling and
    /// TCPW with the UCLA AckedCount have folders of their own.
    pub fn name(&self) -> &'static str {
        match self {
            Estimator::Tcpw { sample, .. } if *sample == ffi::WWC_SAMPLE_INTERVAL => "westwood-interval",
            Estimator::Tcpw { acked, .. } if *acked == ffi::WWC_ACKED_UCLA => "westwood-acked-ucla",
            Estimator::Tcpw { .. } => "westwood",
            Estimator::Plus { .. } => "westwood-plus",
            Estimator::Tr { .. } => "westwood-tr",
            Estimator::Abse { .. } => "westwood-abse",
            Estimator::Ucla { .. } => "westwood-ucla",
        }
    }
}

#[derive(Debug, Clone)]
enum EstimatorState {
    Tcpw(ffi::WwcTcpw),
    Plus(ffi::WwcPlus),
    Tr(ffi::WwcTr),
    Abse(Box<ffi::WwcAbse>),
    Ucla(ffi::WwcUcla),
}

/// One ACK as the vectors describe it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ack {
    pub time_us: u64,
    /// Cumulative ACK number, bytes (truncated to the kernel's 32-bit sequence space).
    pub ack: u64,
    /// Bytes newly acknowledged (0 for a DUPACK).
    pub acked_bytes: u64,
    pub dupack: bool,
    pub rtt_us: Option<u64>,
    pub in_recovery: bool,
}

/// The header driven like the Rust reference controller: AckedCount + estimator + loss rules,
/// with the header's reference Reno growth. Windows in segments.
#[derive(Debug, Clone)]
pub struct CoreController {
    variant: Estimator,
    mss: u32,
    estimator: EstimatorState,
    window: ffi::WwcReno,
}

impl CoreController {
    /// `initial_cwnd` / `initial_ssthresh` in segments (saturated to `u32`).
    pub fn new(variant: Estimator, mss: u32, initial_cwnd: u64, initial_ssthresh: u64) -> Self {
        let estimator = match variant {
            Estimator::Tcpw { .. } => {
                let mut s = ffi::WwcTcpw::default();
                // SAFETY: valid, exclusively borrowed mirror.
                unsafe { ffi::wwc_ffi_tcpw_init(&mut s) };
                EstimatorState::Tcpw(s)
            }
            Estimator::Plus { .. } => {
                let mut s = ffi::WwcPlus::default();
                // SAFETY: valid, exclusively borrowed mirror.
                unsafe { ffi::wwc_ffi_plus_init(&mut s) };
                EstimatorState::Plus(s)
            }
            Estimator::Tr { .. } => {
                let mut s = ffi::WwcTr::default();
                // SAFETY: valid, exclusively borrowed mirror.
                unsafe { ffi::wwc_ffi_tr_init(&mut s) };
                EstimatorState::Tr(s)
            }
            Estimator::Abse { .. } => {
                let mut s = Box::<ffi::WwcAbse>::default();
                // SAFETY: valid, exclusively borrowed mirror.
                unsafe { ffi::wwc_ffi_abse_init(&mut *s) };
                EstimatorState::Abse(s)
            }
            Estimator::Ucla { params, .. } => {
                let mut s = ffi::WwcUcla::default();
                // SAFETY: valid, exclusively borrowed mirror and parameters.
                unsafe { ffi::wwc_ffi_ucla_init(&mut s, &params) };
                EstimatorState::Ucla(s)
            }
        };
        let mut window = ffi::WwcReno::default();
        let sat = |v: u64| v.min(u64::from(u32::MAX)) as u32;
        // SAFETY: valid, exclusively borrowed mirror.
        unsafe { ffi::wwc_ffi_reno_init(&mut window, sat(initial_cwnd), sat(initial_ssthresh)) };
        CoreController { variant, mss, estimator, window }
    }

    pub fn mss(&self) -> u32 {
        self.mss
    }

    /// Every ACK, new or duplicate. Returns the bytes AckedCount credited.
    pub fn on_ack(&mut self, ack: &Ack) -> u32 {
        let rtt = ack.rtt_us.map_or(-1, |r| r.min(u64::from(u32::MAX)) as i64);
        // The kernel's sequence space is 32 bits: the header compares with wrap-around.
        let seq = ack.ack as u32;
        // SAFETY (all calls below): pointers to live, exclusively borrowed mirrors.
        let credited = match (&mut self.estimator, self.variant) {
            (EstimatorState::Tcpw(s), Estimator::Tcpw { tau_us, m, sample, acked })
                if sample == ffi::WWC_SAMPLE_TRAPEZOID && acked == ffi::WWC_ACKED_PAPER =>
            unsafe { ffi::wwc_ffi_tcpw_on_ack(s, ack.time_us, seq, self.mss, rtt, tau_us, m) },
            (EstimatorState::Tcpw(s), Estimator::Tcpw { tau_us, m, sample, acked })
                if acked == ffi::WWC_ACKED_PAPER =>
            unsafe { ffi::wwc_ffi_tcpw_on_ack_sampled(s, ack.time_us, seq, self.mss, rtt, tau_us, m, sample) },
            (EstimatorState::Tcpw(s), Estimator::Tcpw { tau_us, m, sample, acked }) => unsafe {
                ffi::wwc_ffi_tcpw_on_ack_rule(s, ack.time_us, seq, self.mss, rtt, tau_us, m, sample, acked)
            },
            (EstimatorState::Ucla(s), Estimator::Ucla { params, acked }) => unsafe {
                ffi::wwc_ffi_ucla_on_ack(s, &params, ack.time_us, seq, self.mss, rtt, acked)
            },
            (EstimatorState::Plus(s), Estimator::Plus { min_window_us }) => unsafe {
                ffi::wwc_ffi_plus_on_ack(s, ack.time_us, seq, self.mss, rtt, min_window_us)
            },
            (EstimatorState::Tr(s), Estimator::Tr { ratio }) => unsafe {
                ffi::wwc_ffi_tr_on_ack(s, ack.time_us, seq, self.mss, rtt, ratio)
            },
            // The window before this ACK, in bytes (the reference's PathState::cwnd).
            (EstimatorState::Abse(s), Estimator::Abse { params }) => unsafe {
                let cwnd_bytes = u64::from(self.window.cwnd) * u64::from(self.mss);
                ffi::wwc_ffi_abse_on_ack(&mut **s, &params, ack.time_us, seq, self.mss, rtt, cwnd_bytes)
            },
            _ => unreachable!("estimator matches its variant"),
        };
        if !ack.in_recovery && !ack.dupack {
            let newly = ack.acked_bytes.min(u64::from(u32::MAX)) as u32;
            unsafe { ffi::wwc_ffi_reno_grow(&mut self.window, newly) };
        }
        credited
    }

    /// ssthresh from BWE * RTTmin at a loss detected at `now_us` (segments). TCPW-TR first
    /// updates its reduction factor for the kind of loss and the phase (slow start iff
    /// cwnd < ssthresh, as the reference).
    fn loss_threshold(&mut self, now_us: u64, timeout: bool) -> u32 {
        let in_slow_start = (self.window.cwnd < self.window.ssthresh) as i32;
        // SAFETY: pointers to live, exclusively borrowed mirrors.
        match (&mut self.estimator, self.variant) {
            (EstimatorState::Tcpw(s), Estimator::Tcpw { tau_us, m, sample, .. })
                if sample == ffi::WWC_SAMPLE_TRAPEZOID =>
            unsafe { ffi::wwc_ffi_tcpw_ssthresh(s, now_us, self.mss, tau_us, m) },
            (EstimatorState::Tcpw(s), Estimator::Tcpw { tau_us, m, sample, .. }) => unsafe {
                ffi::wwc_ffi_tcpw_ssthresh_sampled(s, now_us, self.mss, tau_us, m, sample)
            },
            (EstimatorState::Ucla(s), _) => unsafe {
                ffi::wwc_ffi_ucla_ssthresh(s, timeout as i32, in_slow_start, self.mss)
            },
            (EstimatorState::Plus(s), _) => unsafe { ffi::wwc_ffi_plus_ssthresh(s, self.mss) },
            (EstimatorState::Tr(s), _) => unsafe {
                ffi::wwc_ffi_tr_ssthresh(s, timeout as i32, in_slow_start, self.mss)
            },
            (EstimatorState::Abse(s), _) => unsafe { ffi::wwc_ffi_abse_ssthresh(&**s, self.mss) },
            _ => unreachable!("estimator matches its variant"),
        }
    }

    /// `n` DUPACKs (§3.1): ssthresh from BWE * RTTmin, cwnd capped at it.
    pub fn on_dupacks(&mut self, now_us: u64) {
        let ssthresh = self.loss_threshold(now_us, false);
        // The UCLA agent lowers the window only if it is above the threshold, and a window
        // left alone keeps its progress towards the next segment (ns-2's window is a double).
        if matches!(self.variant, Estimator::Ucla { .. }) && self.window.cwnd <= ssthresh {
            self.window.ssthresh = ssthresh.max(2);
            return;
        }
        // SAFETY: pure functions / a live, exclusively borrowed mirror.
        unsafe {
            let cwnd = ffi::wwc_ffi_cwnd_after_dupacks(self.window.cwnd, ssthresh);
            ffi::wwc_ffi_reno_set(&mut self.window, cwnd, ssthresh);
        }
    }

    /// Coarse timeout (§3.2): same ssthresh, cwnd 1 segment.
    pub fn on_timeout(&mut self, now_us: u64) {
        let ssthresh = self.loss_threshold(now_us, true);
        // SAFETY: as above.
        unsafe { ffi::wwc_ffi_reno_set(&mut self.window, ffi::wwc_ffi_cwnd_after_timeout(), ssthresh) };
    }

    /// End of fast recovery: the window stays as the loss rule set it (as the reference).
    pub fn on_recovery_exit(&mut self, _now_us: u64) {}

    /// BWE as of the last event, bits/s (Q8 converted exactly).
    pub fn bwe_bps(&self) -> f64 {
        self.bwe_q8() as f64 / BWE_ONE
    }

    pub fn bwe_q8(&self) -> u64 {
        // SAFETY: pointers to live mirrors.
        match &self.estimator {
            EstimatorState::Tcpw(s) => unsafe { ffi::wwc_ffi_tcpw_bwe_q8(s) },
            EstimatorState::Plus(s) => unsafe { ffi::wwc_ffi_plus_bwe_q8(s) },
            EstimatorState::Tr(s) => unsafe { ffi::wwc_ffi_tr_bwe_q8(s) },
            EstimatorState::Abse(s) => unsafe { ffi::wwc_ffi_abse_bwe_q8(&**s) },
            EstimatorState::Ucla(s) => unsafe { ffi::wwc_ffi_ucla_bwe_q8(s) },
        }
    }

    pub fn cwnd_segments(&self) -> u32 {
        self.window.cwnd
    }

    pub fn ssthresh_segments(&self) -> u32 {
        self.window.ssthresh
    }

    pub fn rtt_min_us(&self) -> Option<u32> {
        let (flags, rtt) = match &self.estimator {
            EstimatorState::Tcpw(s) => (s.flags, s.rtt_min_us),
            EstimatorState::Plus(s) => (s.flags, s.rtt_min_us),
            EstimatorState::Tr(s) => (s.flags, s.rtt_min_us),
            EstimatorState::Abse(s) => (s.flags, s.rtt_min_us),
            // The agent's RTTmin always has a value (5 s before the first sample).
            EstimatorState::Ucla(s) => (ffi::WWC_F_HAVE_RTT, s.rtt_min_us),
        };
        (flags & ffi::WWC_F_HAVE_RTT != 0).then_some(rtt)
    }

    /// The raw Westwood+ state (None for the other variants).
    pub fn plus_state(&self) -> Option<&ffi::WwcPlus> {
        match &self.estimator {
            EstimatorState::Plus(s) => Some(s),
            _ => None,
        }
    }

    /// The raw TCPW ABSE state (None for the other variants).
    pub fn abse_state(&self) -> Option<&ffi::WwcAbse> {
        match &self.estimator {
            EstimatorState::Abse(s) => Some(s),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TAU: u32 = TCPW_TAU_US;
    const MS: u64 = 1000;

    #[test]
    fn struct_layout_matches_the_header() {
        // SAFETY: pure functions.
        unsafe {
            assert_eq!(ffi::wwc_ffi_sizeof_tcpw(), std::mem::size_of::<ffi::WwcTcpw>());
            assert_eq!(ffi::wwc_ffi_sizeof_plus(), std::mem::size_of::<ffi::WwcPlus>());
            assert_eq!(ffi::wwc_ffi_sizeof_reno(), std::mem::size_of::<ffi::WwcReno>());
            assert_eq!(ffi::wwc_ffi_offsetof_tcpw_flags(), std::mem::offset_of!(ffi::WwcTcpw, flags));
            assert_eq!(ffi::wwc_ffi_offsetof_plus_flags(), std::mem::offset_of!(ffi::WwcPlus, flags));
            // Room in ICSK_CA_PRIV_SIZE (104 bytes) for the BPF program's own fields.
            assert!(ffi::wwc_ffi_sizeof_tcpw() <= 88);
            assert!(ffi::wwc_ffi_sizeof_plus() <= 88);

            assert_eq!(ffi::wwc_ffi_sizeof_ucla(), std::mem::size_of::<ffi::WwcUcla>());
            assert_eq!(ffi::wwc_ffi_sizeof_ucla_params(), std::mem::size_of::<ffi::WwcUclaParams>());
            assert!(ffi::wwc_ffi_sizeof_ucla() <= 88);
            assert_eq!(ffi::wwc_ffi_sizeof_tr(), std::mem::size_of::<ffi::WwcTr>());
            assert_eq!(ffi::wwc_ffi_sizeof_tr(), 48);
            assert_eq!(ffi::wwc_ffi_offsetof_tr_flags(), std::mem::offset_of!(ffi::WwcTr, flags));
            assert_eq!(ffi::wwc_ffi_offsetof_tr_a_quarters(), std::mem::offset_of!(ffi::WwcTr, a_quarters));

            assert_eq!(ffi::wwc_ffi_sizeof_abse_params(), std::mem::size_of::<ffi::WwcAbseParams>());
            assert_eq!(ffi::wwc_ffi_sizeof_abse_params(), 32);
            assert_eq!(
                ffi::wwc_ffi_offsetof_abse_params_u_max_q8(),
                std::mem::offset_of!(ffi::WwcAbseParams, u_max_q8)
            );
            assert_eq!(
                ffi::wwc_ffi_offsetof_abse_params_history_slot_ns(),
                std::mem::offset_of!(ffi::WwcAbseParams, history_slot_ns)
            );
            assert_eq!(ffi::wwc_ffi_sizeof_abse_slot(), std::mem::size_of::<ffi::WwcAbseSlot>());
            assert_eq!(ffi::wwc_ffi_sizeof_abse(), std::mem::size_of::<ffi::WwcAbse>());
            assert_eq!(ffi::wwc_ffi_sizeof_abse(), 8312);
            assert_eq!(ffi::wwc_ffi_offsetof_abse_acked(), std::mem::offset_of!(ffi::WwcAbse, acked));
            assert_eq!(ffi::wwc_ffi_offsetof_abse_flags(), std::mem::offset_of!(ffi::WwcAbse, flags));
            assert_eq!(ffi::wwc_ffi_offsetof_abse_count(), std::mem::offset_of!(ffi::WwcAbse, count));
            assert_eq!(ffi::wwc_ffi_offsetof_abse_slots(), std::mem::offset_of!(ffi::WwcAbse, slots));

            // WWC_ABSE_PARAMS_DEFAULT is the mirror's DEFAULT.
            let mut p = ffi::WwcAbseParams {
                t_min_us: 1,
                n: 1,
                epsilon_permille: 1,
                beta_permille: 1,
                u_max_q8: 1,
                history_slot_ns: 1,
                reserved: 1,
            };
            ffi::wwc_ffi_abse_params_default(&mut p);
            assert_eq!(p, ffi::WwcAbseParams::DEFAULT);
        }
    }

    #[test]
    fn alpha_at_a_tenth_of_tau_is_19_over_21() {
        // Seed 000 §2.2: Delta = tau/10 gives BWE_k = 19/21 BWE_{k-1} + 2/21 (b_k + b_{k-1})/2.
        let alpha = tustin_alpha(TAU, TAU / 10);
        assert!((alpha - 19.0 / 21.0).abs() < 1e-4, "{alpha}");
        assert!((alpha - 19.0 / 21.0).abs() < 1e-9, "Q32 is much better than required: {alpha}");
        // m = 2 virtual samples: (2m-1)/(2m+1) = 3/5.
        assert!((tustin_alpha(TAU, TAU / 2) - 0.6).abs() < 1e-9);
        assert_eq!(tustin_alpha(TAU, 2 * TAU), 0.0);
    }

    #[test]
    fn the_step_matches_the_formula() {
        // Same as the reference's one_step_matches_the_formula, in µs.
        let f64_alpha = |d: f64| (2.0 * TAU as f64 - d) / (2.0 * TAU as f64 + d);
        let a = f64_alpha(10_000.0);
        let b1 = tustin_step_q8(0, 0, 1000, 10_000, TAU); // b = 800 kb/s
        assert!((b1 as f64 / BWE_ONE - (1.0 - a) * 800_000.0 / 2.0).abs() < 0.01);
        let prev = 800_000 * 256;
        let b2 = tustin_step_q8(b1, prev, 2000, 10_000, TAU);
        let expected = a * (1.0 - a) * 400_000.0 + (1.0 - a) * (1_600_000.0 + 800_000.0) / 2.0;
        assert!((b2 as f64 / BWE_ONE - expected).abs() < 0.01);
        // Delta of 1 µs (an ACK burst): still exact to the Q8 unit, no precision lost in alpha.
        let tiny = tustin_step_q8(1_000_000 * 256, 1_000_000 * 256, 1448, 1, TAU) as f64 / BWE_ONE;
        let b = 1448.0 * 8.0 * 1e6;
        let want = f64_alpha(1.0) * 1e6 + (1.0 - f64_alpha(1.0)) * (b + 1e6) / 2.0;
        assert!((tiny - want).abs() < 0.01, "{tiny} vs {want}");
    }

    #[test]
    fn a_steady_ack_clock_converges_to_the_delivery_rate() {
        let mut f = Tcpw::new(TAU, 2);
        for k in 0..2500u64 {
            f.filter_ack(k * 4 * MS, 1000); // 1000 bytes every 4 ms = 2 Mb/s
        }
        assert!((f.bwe_bps() - 2e6).abs() / 2e6 < 1e-6, "{}", f.bwe_bps());
        assert_eq!(f.state.virtual_samples, 0);
    }

    #[test]
    fn silence_decays_by_the_virtual_sample_factor_over_h_periods() {
        for m in [2u32, 4, 8] {
            for h in [1u64, 2, 5, 17, 40] {
                let mut f = Tcpw::new(TAU, m);
                for k in 0..2500u64 {
                    f.filter_ack(k * 4 * MS, 1000);
                }
                let last = 2499 * 4 * MS;
                let before = f.bwe_bps();
                let interval = u64::from(TAU / m);
                f.advance(last + h * interval + 1);
                let ratio = (2.0 * m as f64 - 1.0) / (2.0 * m as f64 + 1.0);
                // First virtual step: ratio * BWE + b_{k-1} / (2m+1); then BWE *= ratio.
                let first = ratio * before + 2e6 / (2.0 * m as f64 + 1.0);
                let expected = first * ratio.powi(h as i32 - 1);
                let got = f.bwe_bps();
                assert!((got - expected).abs() < 1e-6 * before + 1.0, "m={m} h={h}: {got} vs {expected}");
                assert_eq!(f.state.virtual_samples as u64, h);
                assert_eq!(f.state.last_us, last + h * interval);
            }
        }
    }

    #[test]
    fn a_very_long_silence_decays_to_zero_in_bounded_work() {
        let mut f = Tcpw::new(TAU, 2);
        for k in 0..100u64 {
            f.filter_ack(k * 4 * MS, 1000);
        }
        f.advance(u64::MAX / 2);
        assert_eq!(f.bwe_q8(), 0);
        // The next ACK after the silence is a normal sample with Delta <= tau/m.
        f.filter_ack(u64::MAX / 2 + 10, 1000);
        assert!(f.bwe_q8() > 0);
    }

    #[test]
    fn no_virtual_sample_at_exactly_tau_over_m() {
        let mut f = Tcpw::new(TAU, 2);
        f.filter_ack(0, 1000);
        f.filter_ack(u64::from(TAU / 2), 1000);
        assert_eq!(f.state.virtual_samples, 0);
        f.filter_ack(u64::from(TAU) + 1, 1000);
        assert_eq!(f.state.virtual_samples, 1);
    }

    #[test]
    fn acks_at_the_same_instant_are_carried_into_the_next_sample() {
        let mut a = Tcpw::new(TAU, 2);
        let mut b = a.clone();
        a.filter_ack(0, 0);
        a.filter_ack(10 * MS, 1000);
        a.filter_ack(10 * MS, 1000);
        a.filter_ack(20 * MS, 1000);
        b.filter_ack(0, 0);
        b.filter_ack(10 * MS, 1000);
        b.filter_ack(20 * MS, 2000);
        assert_eq!(a.bwe_q8(), b.bwe_q8());
    }

    // ------------------------------- interval sampling -------------------------------

    #[test]
    fn the_interval_step_matches_the_formula() {
        // alpha BWE + (1 - alpha) b, rounded once to the Q8 unit; no b_{k-1} term.
        let f64_alpha = |d: f64| (2.0 * TAU as f64 - d) / (2.0 * TAU as f64 + d);
        for &(bwe, bytes, delta) in &[
            (0u64, 1000u64, 10_000u32),
            (1_000_000, 2000, 10_000),
            (2_000_000, 1448, 1),
            (123_456_789, 65_535, 249_999),
            (5_000_000, 0, 250_000),
            (7, u64::from(u32::MAX), 3),
        ] {
            let got = interval_step_q8(bwe * 256, bytes, delta, TAU) as f64 / BWE_ONE;
            let a = f64_alpha(f64::from(delta));
            let want = a * bwe as f64 + (1.0 - a) * bytes as f64 * 8.0 * 1e6 / f64::from(delta);
            assert!(
                (got - want).abs() <= 0.5 / BWE_ONE + 1e-9 * want,
                "{bwe} {bytes} {delta}: {got} vs {want}"
            );
        }
        // A virtual null sample at tau/m = tau/2 multiplies by 3/5.
        assert_eq!(interval_step_q8(5 * 256, 0, TAU / 2, TAU), 3 * 256);
    }

    #[test]
    fn the_sampled_entry_points_with_the_trapezoid_are_the_original_ones() {
        let mut original = Tcpw::new(TAU, 2);
        let mut sampled = Tcpw::new(TAU, 2);
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut now = 0u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            now += match x % 100 {
                0..=9 => 0,
                10..=12 => 300 * MS + (x >> 8) % (2_000 * MS),
                _ => 500 + (x >> 8) % 8_000,
            };
            let bytes = ((x >> 20) % 3000) as u32;
            original.filter_ack(now, bytes);
            // SAFETY: a live, exclusively borrowed mirror.
            unsafe {
                ffi::wwc_ffi_tcpw_filter_ack_sampled(
                    &mut sampled.state,
                    now,
                    bytes,
                    TAU,
                    2,
                    ffi::WWC_SAMPLE_TRAPEZOID,
                )
            };
            assert_eq!(original.state, sampled.state);
        }
        // And at a loss, with virtual samples due.
        let (mut a, mut b) = (original.state, sampled.state);
        // SAFETY: live, exclusively borrowed mirrors.
        let (sa, sb) = unsafe {
            (
                ffi::wwc_ffi_tcpw_ssthresh(&mut a, now + 1_700 * MS, 1000, TAU, 2),
                ffi::wwc_ffi_tcpw_ssthresh_sampled(
                    &mut b,
                    now + 1_700 * MS,
                    1000,
                    TAU,
                    2,
                    ffi::WWC_SAMPLE_TRAPEZOID,
                ),
            )
        };
        assert_eq!((sa, a), (sb, b));
        // Any value but WWC_SAMPLE_INTERVAL is the trapezoid.
        let mut c = sampled.state;
        // SAFETY: a live, exclusively borrowed mirror.
        unsafe { ffi::wwc_ffi_tcpw_filter_ack_sampled(&mut c, now + 1_700 * MS, 1000, TAU, 2, 7) };
        // SAFETY: as above.
        unsafe { ffi::wwc_ffi_tcpw_filter_ack(&mut a, now + 1_700 * MS, 1000, TAU, 2) };
        assert_eq!(c, a);
    }

    #[test]
    fn interval_sampling_converges_to_the_delivery_rate() {
        let mut f = Tcpw::with_sample(TAU, 2, ffi::WWC_SAMPLE_INTERVAL);
        for k in 0..2500u64 {
            f.filter_ack(k * 4 * MS, 1000);
        }
        assert!((f.bwe_bps() - 2e6).abs() / 2e6 < 1e-6, "{}", f.bwe_bps());
    }

    #[test]
    fn interval_sampling_decays_by_r_over_every_virtual_period() {
        for m in [2u32, 4, 8] {
            for h in [1u64, 2, 5, 17, 40] {
                let mut f = Tcpw::with_sample(TAU, m, ffi::WWC_SAMPLE_INTERVAL);
                for k in 0..2500u64 {
                    f.filter_ack(k * 4 * MS, 1000);
                }
                let last = 2499 * 4 * MS;
                let before = f.bwe_bps();
                let interval = u64::from(TAU / m);
                f.advance(last + h * interval + 1);
                // No b_{k-1} term: every period multiplies by r = (2m-1)/(2m+1).
                let r = (2.0 * m as f64 - 1.0) / (2.0 * m as f64 + 1.0);
                let expected = before * r.powi(h as i32);
                let got = f.bwe_bps();
                assert!((got - expected).abs() < 1e-6 * before + 1.0, "m={m} h={h}: {got} vs {expected}");
                assert_eq!(f.state.virtual_samples as u64, h);
            }
        }
        // The loss threshold applies the same decay.
        let mut s = Tcpw::with_sample(TAU, 2, ffi::WWC_SAMPLE_INTERVAL);
        for k in 0..2500u64 {
            s.filter_ack(k * 4 * MS, 1000);
        }
        s.state.rtt_min_us = 100_000;
        s.state.flags |= ffi::WWC_F_HAVE_RTT;
        let at = 2499 * 4 * MS + 1000 * MS; // 3 virtual samples: 2 Mb/s * 0.216 = 432 kb/s
                                            // SAFETY: a live, exclusively borrowed mirror.
        let segments = unsafe {
            ffi::wwc_ffi_tcpw_ssthresh_sampled(&mut s.state, at, 1000, TAU, 2, ffi::WWC_SAMPLE_INTERVAL)
        };
        assert_eq!(segments, 5); // 0.432e6 * 0.1 / 8000 = 5.4
        assert!((s.bwe_bps() - 2e6 * 0.216).abs() < 1.0, "{}", s.bwe_bps());
    }

    #[test]
    fn interval_sampling_reads_a_bursty_ack_train_at_its_rate() {
        // The synthetic fact of docs/westwood.md: 13 ACKs of 800 bytes 3.52 ms apart, then
        // 48.3 ms (0.919 Mb/s); the time average of BWE after 5 s over 60 s.
        let run = |sample: u32| {
            let mut f = Tcpw::with_sample(TAU, 2, sample);
            let period = 12 * 3520 + 48_300;
            let mut times = Vec::new();
            let mut start = 0;
            while start < 60_000_000 {
                times.extend((0..13).map(|k| start + k * 3520));
                start += period;
            }
            let (mut weighted, mut weight) = (0.0, 0.0);
            for (i, &t) in times.iter().enumerate() {
                f.filter_ack(t, 800);
                if let Some(&next) = times.get(i + 1).filter(|_| t >= 5_000_000) {
                    weighted += f.bwe_bps() * (next - t) as f64;
                    weight += (next - t) as f64;
                }
            }
            weighted / weight / (13.0 * 6400.0 / (period as f64 / 1e6))
        };
        let (trapezoid, interval) = (run(ffi::WWC_SAMPLE_TRAPEZOID), run(ffi::WWC_SAMPLE_INTERVAL));
        assert!((trapezoid - 1.46).abs() < 0.01, "trapezoid x{trapezoid}");
        assert!((1.0..=1.05).contains(&interval), "interval x{interval}");
    }

    #[test]
    fn acked_count_table_of_single_ack_cases() {
        // The reference's table (acked_count.rs): (previous ACK, accounted, this ACK) in
        // segments -> (credited, accounted after).
        const MSS: u32 = 1000;
        let cases: &[(u32, u32, u32, u32, u32)] = &[
            (10, 0, 11, 1, 0),
            (10, 0, 12, 2, 0),
            (10, 0, 10, 1, 1),
            (10, 3, 12, 1, 1),
            (10, 2, 12, 1, 0),
            (10, 2, 15, 3, 0),
            (10, 5, 11, 1, 5),
        ];
        for &(previous, accounted, ack, credited, after) in cases {
            let mut c = AckedCount::with_state(previous * MSS, accounted);
            assert_eq!(c.on_ack(ack * MSS, MSS), credited, "case {previous},{accounted},{ack}");
            assert_eq!(c.accounted_for(), after, "case {previous},{accounted},{ack}");
        }
        // Partial segment rounds up; an old ACK counts as a DUPACK and does not move last.
        let mut c = AckedCount::with_state(10 * MSS, 0);
        assert_eq!(c.on_ack(10 * MSS + 1, MSS), 1);
        assert_eq!(c.on_ack(5 * MSS, MSS), 1);
        assert_eq!(c.accounted_for(), 1);
        assert_eq!(c.on_ack(12 * MSS + 1, MSS), 1); // 2 segments, one already accounted
                                                    // The first ACK ever counts as a DUPACK of itself, as in the reference.
        let mut c = AckedCount::new();
        assert_eq!(c.on_ack(123, MSS), 1);
        assert_eq!(c.accounted_for(), 1);
    }

    #[test]
    fn acked_count_handles_sequence_wrap_around() {
        const MSS: u32 = 1448;
        let start = u32::MAX - 2 * MSS + 5;
        let mut c = AckedCount::with_state(start, 0);
        assert_eq!(c.on_ack(start.wrapping_add(2 * MSS), MSS), 2);
        assert_eq!(c.on_ack(start.wrapping_add(3 * MSS), MSS), 1);
        assert_eq!(c.accounted_for(), 0);
    }

    #[test]
    fn seed_001_burst_loss_is_not_counted_twice() {
        const MSS: u32 = 1000;
        let mut c = AckedCount::new();
        c.on_ack(0, MSS);
        let mut c = AckedCount::with_state(0, 0);
        let mut acks = vec![100u32];
        acks.extend(std::iter::repeat_n(100, 20));
        acks.extend([102, 104, 106, 108, 130]);
        let credited: Vec<u32> = acks.iter().map(|&a| c.on_ack(a * MSS, MSS)).collect();
        assert_eq!(&credited[1..21], &[1; 20]);
        assert_eq!(&credited[21..], &[1, 1, 1, 1, 10]);
        assert_eq!(c.accounted_for(), 0);
    }

    #[test]
    fn ssthresh_is_bwe_times_rttmin_in_segments_with_a_floor_of_two() {
        // 2 Mb/s * 100 ms / 8000 bits = 25 segments.
        assert_eq!(ssthresh_segments(2_000_000 * 256, Some(100_000), 1000), 25);
        assert_eq!(ssthresh_segments(2_000_000 * 256 - 1, Some(100_000), 1000), 24);
        assert_eq!(ssthresh_segments(2_000_000 * 256, None, 1000), 2);
        assert_eq!(ssthresh_segments(0, Some(100_000), 1000), 2);
        // 10 Gb/s * 1 s / (8 * 1448): no overflow in the Q8 product.
        assert_eq!(ssthresh_segments(10_000_000_000 * 256, Some(1_000_000), 1448), 863_259);
    }

    #[test]
    fn controller_loss_rules() {
        // Reference controller tests, in segments: after 20 s of a 2 Mb/s clock, 3 DUPACKs give
        // ssthresh = floor(BWE * 0.1 / 8000) (24 or 25) and cap cwnd; a timeout 1 s after the
        // last ACK (3 virtual samples) gives 7 segments and cwnd 1.
        let clock = |core: &mut CoreController| {
            let mut now = 0;
            for k in 1..=5000u64 {
                now = k * 4 * MS;
                core.on_ack(&Ack {
                    time_us: now,
                    ack: k * 1000,
                    acked_bytes: 1000,
                    rtt_us: Some(100 * MS),
                    ..Ack::default()
                });
            }
            now
        };
        let mut core = CoreController::new(Estimator::TCPW, 1000, 100, 1000);
        let now = clock(&mut core);
        assert!((core.bwe_bps() - 2e6).abs() < 1.0);
        core.on_dupacks(now + MS);
        let s = core.ssthresh_segments();
        assert!(s == 24 || s == 25);
        assert_eq!(core.cwnd_segments(), s);

        let mut core = CoreController::new(Estimator::TCPW, 1000, 100, 1000);
        let now = clock(&mut core);
        core.on_timeout(now + 1000 * MS);
        assert_eq!((core.cwnd_segments(), core.ssthresh_segments()), (1, 7));
        assert_eq!(core.rtt_min_us(), Some(100_000));
    }

    #[test]
    fn plus_one_sample_per_window_and_the_first_initialises_both_stages() {
        let mut core = CoreController::new(Estimator::PLUS, 1000, 10, 1000);
        for t in 0..=101u64 {
            core.on_ack(&Ack {
                time_us: t * MS,
                ack: (t + 1) * 1000,
                acked_bytes: 1000,
                rtt_us: Some(100 * MS),
                ..Ack::default()
            });
        }
        let s = core.plus_state().unwrap();
        assert_eq!(s.samples, 1);
        // The window [0, 101 ms] holds 102 credited segments (the first ACK opened it).
        let want = 102_000.0 * 8.0 / 0.101;
        assert!((core.bwe_bps() - want).abs() < 1.0, "{} vs {want}", core.bwe_bps());
    }

    #[test]
    fn plus_windows_are_at_least_50_ms_and_stages_cascade() {
        let mut s = ffi::WwcPlus::default();
        // SAFETY: valid, exclusively borrowed mirror.
        unsafe {
            ffi::wwc_ffi_plus_init(&mut s);
            ffi::wwc_ffi_plus_rtt_sample(&mut s, 10_000);
            for t in 0..=51u64 {
                ffi::wwc_ffi_plus_filter_ack(&mut s, t * MS, 1000, PLUS_MIN_WINDOW_US);
            }
            assert_eq!(s.samples, 1);
            let first = s.bw_est as f64 / BWE_ONE;
            for k in 1..=26u64 {
                ffi::wwc_ffi_plus_filter_ack(&mut s, (51 + 2 * k) * MS, 1000, PLUS_MIN_WINDOW_US);
            }
            assert_eq!(s.samples, 2);
            let sample = 26_000.0 * 8.0 / 0.052;
            let stage1 = (7.0 * first + sample) / 8.0;
            let want = (7.0 * first + stage1) / 8.0;
            assert!((s.bw_est as f64 / BWE_ONE - want).abs() < 0.1);
        }
    }

    #[test]
    fn reno_growth_in_segments() {
        let mut r = ffi::WwcReno::default();
        // SAFETY: valid, exclusively borrowed mirror.
        unsafe {
            ffi::wwc_ffi_reno_init(&mut r, 2, 1_000);
            for _ in 0..2 {
                ffi::wwc_ffi_reno_grow(&mut r, 2000); // delayed ACK: still +1 segment
            }
            assert_eq!(r.cwnd, 4);
            ffi::wwc_ffi_reno_set(&mut r, 10, 10);
            for _ in 0..9 {
                ffi::wwc_ffi_reno_grow(&mut r, 1000);
            }
            assert_eq!(r.cwnd, 10);
            ffi::wwc_ffi_reno_grow(&mut r, 1000);
            assert_eq!(r.cwnd, 11);
            ffi::wwc_ffi_reno_grow(&mut r, 0); // DUPACK-like: no growth
            assert_eq!((r.cwnd, r.cnt), (11, 0));
            ffi::wwc_ffi_reno_set(&mut r, 0, 1);
            assert_eq!((r.cwnd, r.ssthresh), (1, 2));
        }
    }

    #[test]
    fn the_branch_free_shift_is_the_smallest_that_fits_32_bits() {
        // wwc_shift_to_u32 replaces "shift right until below 2^32" loops: same shift count.
        let looped = |mut v: u64| {
            let mut n = 0;
            while v > u64::from(u32::MAX) {
                v >>= 1;
                n += 1;
            }
            n
        };
        let mut values = vec![0u64, 1, u64::from(u32::MAX), 1 << 32, (1 << 32) + 1, u64::MAX, u64::MAX >> 1];
        for k in 0..64 {
            values.extend([1u64 << k, (1u64 << k) - 1, (1u64 << k) + 1, (1u64 << k) | 0x5555]);
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push(x >> (x % 64));
        }
        for v in values {
            // SAFETY: pure function.
            assert_eq!(unsafe { ffi::wwc_ffi_shift_to_u32(v) }, looped(v), "{v:#x}");
        }
        // muldiv64 with a den above 2^32: shifted together, within 2^-31.
        // SAFETY: pure function.
        let q = unsafe { ffi::wwc_ffi_muldiv64(1 << 50, 1_000_000_000, 3 << 40) } as f64;
        let want = (1u64 << 50) as f64 * 1e9 / (3u64 << 40) as f64;
        assert!((q - want).abs() / want < 1e-9, "{q} vs {want}");
    }

    // ------------------------------------ TCPW-TR ------------------------------------

    #[test]
    fn tr_factor_follows_the_pseudocode_in_quarters() {
        // The sequence of the reference's the_factor_follows_the_pseudocode (tr.rs):
        // a = 1.25, 1.5, 2.5, 3.5, 3.75, 4, 1, 2, 1.
        let mut tr = Tr::new(TR_RATIO);
        assert_eq!(tr.state.a_quarters, 4);
        let seen: Vec<u32> = [
            (false, true),
            (false, true),
            (true, true),
            (true, true),
            (false, true),
            (false, true),  // capped at 4
            (false, false), // congestion avoidance resets
            (true, true),
            (true, false),
        ]
        .into_iter()
        .map(|(timeout, slow_start)| tr.update_factor(timeout, slow_start))
        .collect();
        assert_eq!(seen, vec![5, 6, 10, 14, 15, 16, 4, 8, 4]);
    }

    #[test]
    fn tr_filter_has_the_constant_19_21_coefficient() {
        // As the reference's the_filter_has_the_constant_19_21_coefficient (tr.rs).
        let mut tr = Tr::new(TR_RATIO);
        tr.filter_ack(0, 0);
        tr.filter_ack(1_000, 1000); // b = 8 Mb/s
        assert!((tr.bwe_bps() - 8e6 / 21.0).abs() < 0.01, "{}", tr.bwe_bps());
        tr.filter_ack(101_000, 1000); // 100 ms later: same coefficient, b = 80 kb/s
        let expected = 19.0 / 21.0 * 8e6 / 21.0 + (80e3 + 8e6) / 21.0;
        assert!((tr.bwe_bps() - expected).abs() < 0.01, "{} vs {expected}", tr.bwe_bps());
        // The step itself: [19 BWE + b_k + b_{k-1}] / 21, rounded to the nearest Q8 unit.
        // SAFETY: pure function.
        let step = |bwe: u64, b: u64, prev: u64, r: u32| unsafe { ffi::wwc_ffi_tr_step(bwe, b, prev, r) };
        assert_eq!(step(21 * 1000, 0, 0, 10), 19 * 1000);
        assert_eq!(step(0, 21 * 1000, 0, 10), 1000);
        assert_eq!(step(0, 10, 0, 10), 0); // 10/21 rounds down
        assert_eq!(step(0, 11, 0, 10), 1); // 11/21 rounds up
        assert_eq!(step(1 << 56, 1 << 56, 1 << 56, 10), 1 << 56); // no overflow at 2^48 bit/s
        assert_eq!(step(21 * 1000, 0, 0, 0), 19 * 1000); // ratio 0 means the default 10
        assert_eq!(step(5 * 1000, 0, 0, 2), 3 * 1000); // r = 2: 3/5
                                                       // Same-instant ACKs are carried, and no virtual samples: a long silence does not decay.
        let mut a = Tr::new(TR_RATIO);
        a.filter_ack(0, 0);
        a.filter_ack(4_000, 1000);
        a.filter_ack(4_000, 1000);
        a.filter_ack(8_000, 1000);
        let mut b = Tr::new(TR_RATIO);
        b.filter_ack(0, 0);
        b.filter_ack(4_000, 1000);
        b.filter_ack(8_000, 2000);
        assert_eq!(a.bwe_q8(), b.bwe_q8());
        let (before, prev_before) = (a.bwe_q8(), a.state.prev_sample);
        a.filter_ack(10_008_000, 1000); // 10 s later: one sample of 800 b/s, no decay before it
        assert_eq!(a.bwe_q8(), step(before, 800 * 256, prev_before, 10));
        assert_eq!(a.state.prev_sample, 800 * 256);
    }

    #[test]
    fn tr_ssthresh_divides_by_a() {
        // 2 Mb/s * 100 ms / 8000 bits = 25 segments; / 1.25 = 20; / 1.5 = 16.67 -> 16; / 4 -> 6.
        let mut tr = Tr::new(TR_RATIO);
        tr.state.bwe = 2_000_000 * 256;
        assert_eq!(tr.ssthresh(false, true, 1000), 2, "no RTT sample yet: 2 (a still moves)");
        assert_eq!(tr.state.a_quarters, 5);
        tr.rtt_sample(100_000);
        assert_eq!(tr.ssthresh(false, false, 1000), 25); // congestion avoidance: a = 1
        assert_eq!(tr.ssthresh(false, true, 1000), 20); // a = 1.25
        assert_eq!(tr.ssthresh(false, true, 1000), 16); // a = 1.5
        assert_eq!(tr.ssthresh(true, true, 1000), 10); // a = 2.5
        assert_eq!(tr.ssthresh(true, true, 1000), 7); // a = 3.5: 7.14
        assert_eq!(tr.ssthresh(true, true, 1000), 6); // a = 4: 6.25
        assert_eq!(tr.ssthresh(true, true, 1000), 6); // a stays 4
                                                      // Exact floor at the boundary: 25 segments * 1.25 = 31.25 needs BWE 2.5 Mb/s exactly.
        tr.state.bwe = 2_500_000 * 256;
        tr.update_factor(false, false);
        assert_eq!(tr.ssthresh(false, true, 1000), 25);
        tr.state.bwe = 2_500_000 * 256 - 1;
        tr.update_factor(false, false);
        assert_eq!(tr.ssthresh(false, true, 1000), 24);
        // Floor of two segments.
        tr.state.bwe = 1000 * 256;
        assert_eq!(tr.ssthresh(false, false, 1000), 2);
    }

    // ----------------------------------- TCPW ABSE -----------------------------------

    /// The reference's history rule, on (time, bytes) ACKs: merge into the newest slot if it
    /// started less than q ago, keep at most 512 slots and those with start + keep >= now.
    fn model_record(h: &mut std::collections::VecDeque<(u64, u64)>, now: u64, bytes: u64, keep: u64, q: u64) {
        match h.back_mut() {
            Some((start, sum)) if now.saturating_sub(*start) < q.max(1) => *sum += bytes,
            _ => {
                h.push_back((now, bytes));
                if h.len() > ffi::WWC_ABSE_SLOTS {
                    h.pop_front();
                }
            }
        }
        while h.front().is_some_and(|&(t, _)| t + keep < now) {
            h.pop_front();
        }
    }

    fn model_within(h: &std::collections::VecDeque<(u64, u64)>, now: u64, window: u64) -> u64 {
        h.iter().filter(|&&(t, _)| window > now || t > now - window).map(|&(_, b)| b).sum()
    }

    #[test]
    fn abse_window_sums_count_a_slot_iff_its_start_is_inside() {
        const Q: u64 = 1_562_500; // T_min / 32
        let mut a = Abse::new(ffi::WwcAbseParams::DEFAULT);
        let keep = 1_000_000_000;
        // Three ACKs within q of the first share its slot; the fourth opens a new one.
        for (t, b) in [(10_000_000u64, 100u64), (10_500_000, 200), (11_562_499, 300), (11_562_500, 400)] {
            a.record(t, b, keep, Q);
        }
        assert_eq!(a.slots(), vec![(10_000_000, 600), (11_562_500, 400)]);
        // A window counts the merged slot iff the slot's start is inside it (t > now - W): the
        // bytes of the ACK at 11.5625 ms - 1 ns count from 10 ms on.
        let now = 60_000_000;
        assert_eq!(a.bytes_within(now, now - 10_000_000), 400); // start 10 ms is not > 10 ms
        assert_eq!(a.bytes_within(now, now - 10_000_000 + 1), 1000);
        assert_eq!(a.bytes_within(now, now - 11_562_500), 0);
        assert_eq!(a.bytes_within(now, now - 11_562_500 + 1), 400);
        assert_eq!(a.bytes_within(now, now), 1000); // since = 0: both slots started after 0
        assert_eq!(a.bytes_within(now, now + 1), 1000); // window longer than time: everything
        assert_eq!(a.bytes_within(11_562_500, 1), 400); // only the newest slot
                                                        // An ACK from the past (time going back) is merged into the newest slot.
        a.record(11_000_000, 50, keep, Q);
        assert_eq!(a.slots(), vec![(10_000_000, 600), (11_562_500, 450)]);
        // Slots older than keep are dropped; their bytes never count again.
        a.record(10_000_000 + keep + 1, 7, keep, Q);
        assert_eq!(a.slots(), vec![(11_562_500, 450), (10_000_000 + keep + 1, 7)]);
        assert_eq!(a.bytes_within(10_000_000 + keep + 1, u64::MAX), 457);
        assert_eq!(a.state.base_bytes, 600);
    }

    #[test]
    fn abse_history_ring_wraps_and_matches_the_reference_rule() {
        // Pseudo-random ACK gaps from 0 to 5 q, bytes 0..3000, keep windows that come and go:
        // the ring fills (512 slots), wraps many times, empties after silences; after every ACK
        // the slots and a dozen window sums equal the reference rule's.
        let q = 1_562_500u64;
        let mut a = Abse::new(ffi::WwcAbseParams::DEFAULT);
        let mut model = std::collections::VecDeque::new();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let mut now = 0u64;
        let (mut full, mut emptied) = (0, 0);
        for i in 0..40_000u64 {
            now += match rnd(100) {
                0..=29 => rnd(q),
                30 => 2_000_000_000 + rnd(2_000_000_000), // silence: the history empties
                _ => q + rnd(4 * q),
            };
            let keep = if (i / 5000) % 2 == 0 { 3_000_000_000 } else { 50_000_000 + rnd(200_000_000) };
            let bytes = rnd(3000);
            a.record(now, bytes, keep, q);
            model_record(&mut model, now, bytes, keep, q);
            assert_eq!(a.slots(), Vec::from(model.clone()), "ACK {i} at {now}");
            for w in [0, 1, q, 50_000_000, rnd(keep + 1), rnd(4_000_000_000), keep, now, now + 1] {
                assert_eq!(a.bytes_within(now, w), model_within(&model, now, w), "ACK {i} window {w}");
            }
            full += (a.state.count as usize == ffi::WWC_ABSE_SLOTS) as u32;
            emptied += (a.state.count == 1) as u32;
        }
        assert!(full > 100 && emptied > 10, "full {full} times, one slot {emptied} times");
        assert!(a.state.head != 0);
    }

    #[test]
    fn abse_interval_follows_eq_4() {
        // SAFETY: pure function.
        let interval = |th_bps: u64, rtt: u64, rtt_min: u64, cwnd: u64| unsafe {
            ffi::wwc_ffi_abse_interval_ns(th_bps * 256, rtt, rtt_min, cwnd, 50 * MS * 1000)
        };
        const NS_MS: u64 = 1_000_000;
        // Th 2 Mb/s, RTT = RTTmin = 100 ms: Th RTT = 25 KB. cwnd 100 KB: congested,
        // T = 100 ms * (100 - 25) / 100 = 75 ms.
        assert_eq!(interval(2_000_000, 100 * NS_MS, 100 * NS_MS, 100_000), 75 * NS_MS);
        // cwnd 10 KB < Th RTT: not congested, T_min.
        assert_eq!(interval(2_000_000, 100 * NS_MS, 100 * NS_MS, 10_000), 50 * NS_MS);
        // Th RTT exactly cwnd (25 KB) is "not larger": eq. 4 gives 0, held at T_min; one byte
        // more of cwnd and T = 100 ms * 1/25001 -> still T_min.
        assert_eq!(interval(2_000_000, 100 * NS_MS, 100 * NS_MS, 25_000), 50 * NS_MS);
        // RTT 200 ms (queueing), RTTmin 100 ms, cwnd 60 KB, Th 2 Mb/s: Th RTT = 50 KB < 60 KB, so
        // T = 200 ms * (60 - 25) / 60 = 116.666... ms, truncated to the ns.
        assert_eq!(interval(2_000_000, 200 * NS_MS, 100 * NS_MS, 60_000), 116_666_666);
        // ... and T_min when eq. 4 comes out below it (100 ms * 1/26).
        assert_eq!(interval(2_000_000, 100 * NS_MS, 100 * NS_MS, 26_000), 50 * NS_MS);
        assert_eq!(interval(2_000_000, 200 * NS_MS, 100 * NS_MS, 51_000), 101_960_784);
        assert_eq!(interval(2_000_000, 200 * NS_MS, 100 * NS_MS, 0), 50 * NS_MS); // cwnd 0
                                                                                  // Against the reference's f64 formula on a grid, including a non-whole srtt in ns and a
                                                                                  // window above 2 MB (where the fraction is shifted below 2^32).
        for &(th, rtt, rtt_min, cwnd) in &[
            (1_234_567u64, 123_456_789u64, 100_000_000u64, 70_000u64),
            (9_999_999, 333_333_333, 200_000_000, 400_000),
            (80_000_000, 60_000_001, 20_000_000, 3_000_000),
            (1_000_000_000, 1_500_000_007, 1_000_000_000, 250_000_000),
        ] {
            let cwnd_bits = cwnd as f64 * 8.0;
            let thf = th as f64;
            let want = if thf * (rtt as f64 / 1e9) > cwnd_bits {
                50 * NS_MS
            } else {
                ((rtt as f64 * ((cwnd_bits - thf * rtt_min as f64 / 1e9) / cwnd_bits)) as u64).max(50 * NS_MS)
            };
            let got = interval(th, rtt, rtt_min, cwnd);
            assert!(got.abs_diff(want) <= 1, "{th} {rtt} {rtt_min} {cwnd}: {got} vs {want}");
        }
    }

    #[test]
    fn abse_tau_follows_eq_6() {
        // SAFETY: pure functions.
        let (tau, ratio) = unsafe {
            (
                |rtt: u64, n: u32, r: u64| ffi::wwc_ffi_abse_tau_ns(rtt, n, r),
                |u: u64, u_max: u64| ffi::wwc_ffi_ratio_q32(u, u_max),
            )
        };
        let rtt = 100_000_000u64;
        assert_eq!(tau(rtt, 10, 0), rtt); // U = 0: tau = RTT
        assert_eq!(tau(rtt, 10, 1 << 32), 11 * rtt); // U = U_max: tau = (1 + N) RTT
        assert_eq!(tau(rtt, 10, 1 << 31), 6 * rtt); // U/U_max = 1/2
        assert_eq!(tau(rtt, 0, 1 << 32), rtt); // N = 0
        assert_eq!(ratio(5, 10), 1 << 31);
        assert_eq!(ratio(10, 10), 1 << 32);
        assert_eq!(ratio(20, 10), 1 << 32); // a fixed U_max below U: capped at 1
        assert_eq!(ratio(5, 0), 0); // U_max 0: ratio 0
                                    // Large Q8 values (shifted below 2^32 first): 1/3 within 2^-31.
        let r = ratio(1 << 50, 3 << 50) as f64 / Q32_ONE;
        assert!((r - 1.0 / 3.0).abs() < 1e-9, "{r}");
        let t = tau(123_456_789, 10, ratio(1_000_000 * 256, 3_000_000 * 256)) as f64;
        let want = 123_456_789.0 * (1.0 + 10.0 / 3.0);
        assert!((t - want).abs() < 2.0, "{t} vs {want}");
    }

    #[test]
    fn abse_step_is_the_tustin_step_with_alpha_clamped_at_zero() {
        // SAFETY: pure function.
        let step =
            |est: u64, s: u64, p: u64, d: u64, tau: u64| unsafe { ffi::wwc_ffi_abse_step(est, s, p, d, tau) };
        let tau = 100_000_000u64;
        let f = |est: f64, s: f64, p: f64, d: f64, tau: f64| {
            let alpha = ((2.0 * tau - d) / (2.0 * tau + d)).max(0.0);
            alpha * est + (1.0 - alpha) * (s + p) / 2.0
        };
        for &(est, s, p, d) in &[
            (1_000_000u64, 2_000_000u64, 1_500_000u64, 4_000_000u64),
            (2_000_000, 0, 0, 1_000),
            (0, 8_000_000, 0, 10_000_000),
            (5_000_000, 5_000_000, 5_000_000, 199_999_000),
        ] {
            let got = step(est * 256, s * 256, p * 256, d, tau) as f64 / 256.0;
            let want = f(est as f64, s as f64, p as f64, d as f64, tau as f64);
            assert!((got - want).abs() <= 0.5 / 256.0 + 1e-9, "{est} {s} {p} {d}: {got} vs {want}");
        }
        // Delta >= 2 tau: alpha = 0, the mean of the two samples.
        assert_eq!(step(7, 300, 101, 2 * tau, tau), 201);
        assert_eq!(step(7, 300, 101, u64::MAX, tau), 201);
        // Delta = 0: the estimate does not move.
        assert_eq!(step(123_456, 999, 1, 0, tau), 123_456);
        // tau of tens of seconds (2 tau + D above 2^32 ns): still within a Q8 unit or so.
        let got =
            step(1_000_000 * 256, 3_000_000 * 256, 3_000_000 * 256, 2_000_000, 27_000_000_000) as f64 / 256.0;
        let want = f(1e6, 3e6, 3e6, 2e6, 27e9);
        assert!((got - want).abs() < 0.01, "{got} vs {want}");
    }

    #[test]
    fn abse_smoothed_rtt_is_the_controllers() {
        let mut a = Abse::new(ffi::WwcAbseParams::DEFAULT);
        let mut srtt: Option<u64> = None;
        let mut min: Option<u64> = None;
        for rtt_us in [100_111u32, 104_121, 99_999, 250_003, 1, 180_000] {
            a.rtt_sample(rtt_us);
            let rtt = u64::from(rtt_us) * 1000;
            srtt = Some(srtt.map_or(rtt, |s| (7 * s + rtt) / 8));
            min = Some(min.map_or(rtt, |m| m.min(rtt)));
            assert_eq!(Some(a.state.srtt_ns), srtt);
            // SAFETY: live mirror.
            assert_eq!(Some(u64::from(unsafe { ffi::wwc_ffi_abse_rtt_min_us(&*a.state) }) * 1000), min);
        }
    }

    #[test]
    fn abse_matches_the_reference_estimator_on_its_unit_streams() {
        use westwood_algorithms::westwood::{AbseEstimator, AbseParams, BandwidthEstimator, PathState};
        const NS_MS: u64 = 1_000_000;
        // The reference's unit tests (abse.rs): a 2 Mb/s clock, uncongested (cwnd 10 KB) and
        // congested (100 KB), and a jittery stream with a fixed U_max of 1 Mb/s.
        let cases: [(u64, Option<f64>, bool); 3] =
            [(10_000, None, false), (100_000, None, false), (10_000, Some(1e6), true)];
        for (cwnd, u_max, jittery) in cases {
            let mut reference = AbseEstimator::new(AbseParams { u_max_bps: u_max, ..AbseParams::default() });
            let mut core = Abse::new(ffi::WwcAbseParams {
                u_max_q8: u_max.map_or(0, |u| (u * 256.0) as u64),
                ..ffi::WwcAbseParams::DEFAULT
            });
            let path = PathState {
                cwnd,
                smoothed_rtt_ns: Some(100 * NS_MS),
                latest_rtt_ns: Some(100 * NS_MS),
                min_rtt_ns: Some(100 * NS_MS),
            };
            core.rtt_sample(100_000);
            let mut t = 0;
            for k in 0..5000u64 {
                t += if !jittery {
                    4 * NS_MS
                } else if k % 50 < 25 {
                    NS_MS
                } else {
                    7 * NS_MS
                };
                reference.on_ack(t, 1000, &path);
                core.filter_ack(t, 1000, cwnd);
                let (want, got) = (reference.estimate_bps(), core.bwe_bps());
                assert!((got - want).abs() <= 1e-6 * want + 0.1, "ACK {k}: {got} vs {want}");
                // T_k within 1 ns: eq. 4 is exact in the core but fed its Q8 Th^, which differs from
                // the reference's f64 by rounding (~1e-9), enough to move the truncation to the ns.
                assert!(
                    core.state.interval_ns.abs_diff(reference.sampling_interval_ns()) <= 1,
                    "ACK {k}: T_k {} vs {}",
                    core.state.interval_ns,
                    reference.sampling_interval_ns()
                );
                // tau within 1e-5: U is kept in Q8 (1/256 bit/s) and its rounding errors move
                // U/U_max, and tau = RTT (1 + N U/U_max), by about N RTT (k/256)/U_max.
                assert!(
                    (core.state.tau_ns as f64 - reference.tau_ns()).abs() <= 1e-5 * reference.tau_ns(),
                    "ACK {k}: tau {} vs {}, U {} vs {}",
                    core.state.tau_ns,
                    reference.tau_ns(),
                    core.state.instability as f64 / 256.0,
                    reference.instability_bps()
                );
            }
            if cwnd == 10_000 && !jittery {
                // 13 ACKs of 1000 bytes in each 50 ms window: 2.08 Mb/s (the reference's test).
                assert!((core.bwe_bps() - 13.0 * 8000.0 / 0.05).abs() < 1.0, "{}", core.bwe_bps());
            }
        }
    }
}
