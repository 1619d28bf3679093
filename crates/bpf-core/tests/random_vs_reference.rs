//! The C core against the f64 Rust reference on pseudo-random event streams, beyond the
//! scripted vectors: ACK gaps from 0 µs (carried ACKs) to several seconds (many virtual
//! samples), DUPACKs, old ACKs, delayed and stretch ACKs, RTT samples that come and go, fast
//! recoveries and timeouts, two MSS values. ACKs advance by whole segments, as the simulated
//! sender (and a kernel counting packets) sends only full-sized ones: for a partial segment the
//! reference's slow start adds `acked < mss` bytes while the core's window is in segments. Same tolerances as the vector replay: BWE within
//! 1% (floor 100 bit/s), windows within one segment, RTTmin exact.

use westwood_algorithms::westwood::{
    PlusParams, Tcpw, TcpwEstimator, TcpwParams, WestwoodPlus, WestwoodPlusEstimator,
};
use westwood_algorithms::{AckEvent, CongestionControl, CongestionEvent, WindowConfig, WindowGrowth};
use westwood_bpf_core::{Ack, Core, Variant};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn run(variant: Variant, mss: u64, seed: u64, events: usize) -> (f64, f64) {
    let config = WindowConfig {
        mss,
        initial_cwnd: WindowConfig::rfc5681_initial_window(mss),
        initial_ssthresh: 0x7fff_ffff,
        window_growth: WindowGrowth::PerAck,
    };
    let mut reference: Box<dyn CongestionControl> = match variant {
        Variant::Tcpw { .. } => Box::new(Tcpw::new(config, TcpwEstimator::new(TcpwParams::default()))),
        Variant::Plus { .. } => {
            Box::new(WestwoodPlus::new(config, WestwoodPlusEstimator::new(PlusParams::default())))
        }
    };
    let mut core = Core::new(variant, mss as u32, config.initial_cwnd / mss, config.initial_ssthresh / mss);
    let mut rng = Rng(seed);
    let (mut now, mut ack, mut max_rel) = (0u64, 5_000_000_000u64, 0f64);
    let mut in_recovery = false;
    let mut max_abs = 0f64;
    for i in 0..events {
        // Mostly a steady clock of a few ms, with bursts (0-5 µs) and silences (up to 3 s).
        let gap = match rng.below(100) {
            0..=9 => rng.below(6),
            10..=12 => 100_000 + rng.below(3_000_000),
            _ => 500 + rng.below(8_000),
        };
        now += gap;
        let kind = rng.below(1000);
        if kind < 4 && !in_recovery {
            reference
                .on_congestion(CongestionEvent::DuplicateAcks { now_ns: now * 1000, bytes_in_flight: 0 });
            core.on_dupacks(now);
            in_recovery = true;
        } else if kind < 6 {
            reference.on_congestion(CongestionEvent::Timeout {
                now_ns: now * 1000,
                bytes_in_flight: 0,
                repeated: false,
            });
            core.on_timeout(now);
            in_recovery = false;
        } else {
            let advance = match rng.below(10) {
                0..=1 => 0,              // DUPACK
                2 => rng.below(5) * mss, // stretch ACK
                3..=5 => 2 * mss,        // delayed ACK
                _ => mss,
            };
            // An occasional old ACK (below the last one) counts as a DUPACK in both.
            let ack_seq = if rng.below(200) == 0 { ack - mss } else { ack + advance };
            let newly = ack_seq.saturating_sub(ack);
            ack = ack.max(ack_seq);
            let rtt = (rng.below(4) != 0).then(|| 20_000 + rng.below(200_000));
            let event = Ack {
                time_us: now,
                ack: ack_seq,
                acked_bytes: newly,
                dupack: newly == 0,
                rtt_us: rtt,
                in_recovery,
            };
            reference.on_ack(&AckEvent {
                now_ns: now * 1000,
                ack_seq,
                newly_acked_bytes: newly,
                is_dupack: newly == 0,
                rtt_sample_ns: rtt.map(|r| r * 1000),
                in_recovery,
                bytes_in_flight: 0,
            });
            core.on_ack(&event);
            if in_recovery && newly > 0 && rng.below(3) == 0 {
                reference.on_recovery_exit(now * 1000);
                core.on_recovery_exit(now);
                in_recovery = false;
            }
        }
        let want = reference.bandwidth_estimate_bps().unwrap();
        let got = core.bwe_bps();
        let floor = 100.0;
        let err = (got - want).abs();
        max_abs = max_abs.max(err);
        assert!(
            err <= (0.01 * want).max(floor),
            "{variant:?} mss {mss} seed {seed} event {i} at {now} us: BWE core {got} vs reference {want}"
        );
        if want > floor {
            max_rel = max_rel.max(err / want);
        }
        for (name, have, want) in [
            ("cwnd", u64::from(core.cwnd_segments()) * mss, reference.cwnd()),
            ("ssthresh", u64::from(core.ssthresh_segments()) * mss, reference.ssthresh()),
        ] {
            if want != config.initial_ssthresh {
                assert!(
                    have.abs_diff(want) <= mss,
                    "{variant:?} mss {mss} seed {seed} event {i}: {name} core {have} vs reference {want}"
                );
            }
        }
    }
    (max_rel, max_abs)
}

#[test]
fn random_streams_match_the_reference() {
    for variant in [Variant::TCPW, Variant::PLUS] {
        for mss in [1000u64, 1448] {
            let mut worst = (0f64, 0f64);
            for seed in 1..=20u64 {
                let (rel, abs) = run(variant, mss, seed.wrapping_mul(0x9e37_79b9_7f4a_7c15), 5000);
                worst = (worst.0.max(rel), worst.1.max(abs));
            }
            eprintln!(
                "{variant:?} mss {mss}: 20 x 5000 random events, max rel BWE error {:.3e}, max abs {:.3} b/s",
                worst.0, worst.1
            );
        }
    }
}
