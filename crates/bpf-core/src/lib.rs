//! Native build of `kernel/westwood_core.h`, the fixed-point arithmetic core of the eBPF
//! TCP Westwood congestion controls (`tcpw` = TCPW of seed 000, `tcpw_plus` = Westwood+).
//!
//! `build.rs` compiles `csrc/ffi.c` — extern wrappers over the header's `static
//! __always_inline` functions — so these tests run exactly the C the BPF program inlines.
//! [`ffi`] declares those functions over `#[repr(C)]` mirrors of the header's structs;
//! [`Core`] is a thin safe wrapper that plays the role of the Rust reference controller
//! (`westwood_algorithms::westwood::Westwood`): estimator + loss rules + reference Reno growth,
//! driven by the same events as the test vectors.
//!
//! Fixed-point formats (see the header and `kernel/README.md`): time in µs, BWE and bandwidth
//! samples in bits/s Q8, Tustin coefficient in Q32, windows in segments.

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

        pub fn wwc_ffi_muldiv(x: u64, mul: u32, den: u32) -> u64;
        pub fn wwc_ffi_muldiv64(x: u64, mul: u32, den: u64) -> u64;
        pub fn wwc_ffi_mul_q32(x: u64, f: u64) -> u64;
        pub fn wwc_ffi_tustin_alpha_q32(tau_us: u32, delta_us: u32) -> u64;
        pub fn wwc_ffi_tustin_step(bwe: u64, prev_sample: u64, bytes: u64, delta_us: u32, tau_us: u32)
            -> u64;
        pub fn wwc_ffi_sample_q8(bytes: u64, delta_us: u64) -> u64;
        pub fn wwc_ffi_virtual_interval_us(tau_us: u32, m: u32) -> u32;

        pub fn wwc_ffi_acked_count(a: *mut WwcAcked, flags: *mut u32, ack_seq: u32, mss: u32) -> u32;

        pub fn wwc_ffi_tcpw_init(s: *mut WwcTcpw);
        pub fn wwc_ffi_tcpw_rtt_sample(s: *mut WwcTcpw, rtt_us: u32);
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

/// `alpha = (2 tau - Delta) / (2 tau + Delta)` as the header computes it (Q32, as f64).
pub fn tustin_alpha(tau_us: u32, delta_us: u32) -> f64 {
    // SAFETY: pure function of its arguments.
    unsafe { ffi::wwc_ffi_tustin_alpha_q32(tau_us, delta_us) as f64 / Q32_ONE }
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
}

impl Tcpw {
    pub fn new(tau_us: u32, m: u32) -> Self {
        let mut state = ffi::WwcTcpw::default();
        // SAFETY: `state` is a valid, exclusively borrowed mirror of `struct wwc_tcpw`.
        unsafe { ffi::wwc_ffi_tcpw_init(&mut state) };
        Tcpw { state, tau_us, m }
    }

    /// Filter step only (bytes already credited by AckedCount).
    pub fn filter_ack(&mut self, now_us: u64, bytes: u32) {
        // SAFETY: as in `new`.
        unsafe { ffi::wwc_ffi_tcpw_filter_ack(&mut self.state, now_us, bytes, self.tau_us, self.m) }
    }

    /// Apply the virtual samples due strictly before `now_us`.
    pub fn advance(&mut self, now_us: u64) {
        // SAFETY: as in `new`.
        unsafe { ffi::wwc_ffi_tcpw_advance(&mut self.state, now_us, self.tau_us, self.m) }
    }

    pub fn bwe_q8(&self) -> u64 {
        // SAFETY: as in `new`.
        unsafe { ffi::wwc_ffi_tcpw_bwe_q8(&self.state) }
    }

    pub fn bwe_bps(&self) -> f64 {
        self.bwe_q8() as f64 / BWE_ONE
    }
}

/// Which estimator a [`Core`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// TCPW (seed 000): Tustin filter, virtual samples every `tau/m`.
    Tcpw { tau_us: u32, m: u32 },
    /// Westwood+: per-RTT samples (window at least `min_window_us`), two 7/8 EWMAs.
    Plus { min_window_us: u32 },
}

impl Variant {
    pub const TCPW: Variant = Variant::Tcpw { tau_us: TCPW_TAU_US, m: TCPW_M };
    pub const PLUS: Variant = Variant::Plus { min_window_us: PLUS_MIN_WINDOW_US };
}

#[derive(Debug, Clone)]
enum Estimator {
    Tcpw(ffi::WwcTcpw),
    Plus(ffi::WwcPlus),
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
pub struct Core {
    variant: Variant,
    mss: u32,
    estimator: Estimator,
    window: ffi::WwcReno,
}

impl Core {
    /// `initial_cwnd` / `initial_ssthresh` in segments (saturated to `u32`).
    pub fn new(variant: Variant, mss: u32, initial_cwnd: u64, initial_ssthresh: u64) -> Self {
        let estimator = match variant {
            Variant::Tcpw { .. } => {
                let mut s = ffi::WwcTcpw::default();
                // SAFETY: valid, exclusively borrowed mirror.
                unsafe { ffi::wwc_ffi_tcpw_init(&mut s) };
                Estimator::Tcpw(s)
            }
            Variant::Plus { .. } => {
                let mut s = ffi::WwcPlus::default();
                // SAFETY: valid, exclusively borrowed mirror.
                unsafe { ffi::wwc_ffi_plus_init(&mut s) };
                Estimator::Plus(s)
            }
        };
        let mut window = ffi::WwcReno::default();
        let sat = |v: u64| v.min(u64::from(u32::MAX)) as u32;
        // SAFETY: valid, exclusively borrowed mirror.
        unsafe { ffi::wwc_ffi_reno_init(&mut window, sat(initial_cwnd), sat(initial_ssthresh)) };
        Core { variant, mss, estimator, window }
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
            (Estimator::Tcpw(s), Variant::Tcpw { tau_us, m }) => unsafe {
                ffi::wwc_ffi_tcpw_on_ack(s, ack.time_us, seq, self.mss, rtt, tau_us, m)
            },
            (Estimator::Plus(s), Variant::Plus { min_window_us }) => unsafe {
                ffi::wwc_ffi_plus_on_ack(s, ack.time_us, seq, self.mss, rtt, min_window_us)
            },
            _ => unreachable!("estimator matches its variant"),
        };
        if !ack.in_recovery && !ack.dupack {
            let newly = ack.acked_bytes.min(u64::from(u32::MAX)) as u32;
            unsafe { ffi::wwc_ffi_reno_grow(&mut self.window, newly) };
        }
        credited
    }

    /// ssthresh from BWE * RTTmin at a loss detected at `now_us` (segments).
    fn loss_threshold(&mut self, now_us: u64) -> u32 {
        // SAFETY: pointers to live, exclusively borrowed mirrors.
        match (&mut self.estimator, self.variant) {
            (Estimator::Tcpw(s), Variant::Tcpw { tau_us, m }) => unsafe {
                ffi::wwc_ffi_tcpw_ssthresh(s, now_us, self.mss, tau_us, m)
            },
            (Estimator::Plus(s), _) => unsafe { ffi::wwc_ffi_plus_ssthresh(s, self.mss) },
            _ => unreachable!("estimator matches its variant"),
        }
    }

    /// `n` DUPACKs (§3.1): ssthresh from BWE * RTTmin, cwnd capped at it.
    pub fn on_dupacks(&mut self, now_us: u64) {
        let ssthresh = self.loss_threshold(now_us);
        // SAFETY: pure functions / a live, exclusively borrowed mirror.
        unsafe {
            let cwnd = ffi::wwc_ffi_cwnd_after_dupacks(self.window.cwnd, ssthresh);
            ffi::wwc_ffi_reno_set(&mut self.window, cwnd, ssthresh);
        }
    }

    /// Coarse timeout (§3.2): same ssthresh, cwnd 1 segment.
    pub fn on_timeout(&mut self, now_us: u64) {
        let ssthresh = self.loss_threshold(now_us);
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
            Estimator::Tcpw(s) => unsafe { ffi::wwc_ffi_tcpw_bwe_q8(s) },
            Estimator::Plus(s) => unsafe { ffi::wwc_ffi_plus_bwe_q8(s) },
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
            Estimator::Tcpw(s) => (s.flags, s.rtt_min_us),
            Estimator::Plus(s) => (s.flags, s.rtt_min_us),
        };
        (flags & ffi::WWC_F_HAVE_RTT != 0).then_some(rtt)
    }

    /// The raw TCPW state (None for Westwood+).
    pub fn tcpw_state(&self) -> Option<&ffi::WwcTcpw> {
        match &self.estimator {
            Estimator::Tcpw(s) => Some(s),
            Estimator::Plus(_) => None,
        }
    }

    /// The raw Westwood+ state (None for TCPW).
    pub fn plus_state(&self) -> Option<&ffi::WwcPlus> {
        match &self.estimator {
            Estimator::Plus(s) => Some(s),
            Estimator::Tcpw(_) => None,
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
        let clock = |core: &mut Core| {
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
        let mut core = Core::new(Variant::TCPW, 1000, 100, 1000);
        let now = clock(&mut core);
        assert!((core.bwe_bps() - 2e6).abs() < 1.0);
        core.on_dupacks(now + MS);
        let s = core.ssthresh_segments();
        assert!(s == 24 || s == 25);
        assert_eq!(core.cwnd_segments(), s);

        let mut core = Core::new(Variant::TCPW, 1000, 100, 1000);
        let now = clock(&mut core);
        core.on_timeout(now + 1000 * MS);
        assert_eq!((core.cwnd_segments(), core.ssthresh_segments()), (1, 7));
        assert_eq!(core.rtt_min_us(), Some(100_000));
    }

    #[test]
    fn plus_one_sample_per_window_and_the_first_initialises_both_stages() {
        let mut core = Core::new(Variant::PLUS, 1000, 10, 1000);
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
}
