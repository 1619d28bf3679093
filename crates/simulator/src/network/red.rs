//! Random Early Detection gateways (S. Floyd and V. Jacobson, "Random Early Detection Gateways
//! for Congestion Avoidance", IEEE/ACM ToN 1(4), 1993), with the "gentle" variant (Floyd 2000).
//!
//! The algorithm is the paper's appendix pseudo-code, per arriving packet:
//!
//! ```text
//! if the link is busy:  avg = (1 - w_q) avg + w_q q          (q: packets waiting)
//! else (idle since t0): avg = (1 - w_q)^m avg,  m = (now - t0) / s
//! if min_th <= avg < max_th:
//!     count += 1
//!     p_b = max_p (avg - min_th) / (max_th - min_th)
//!     p_a = p_b / (1 - count p_b)           (1 once count p_b >= 1)
//!     drop with probability p_a; on a drop count = 0
//! else if avg >= max_th: drop, count = 0
//! else count = -1
//! ```
//!
//! Choices where the paper leaves room (the same as ns-2's `REDQueue` unless said otherwise):
//! * `q` counts packets *waiting*, not the one being transmitted (like the drop-tail limit);
//! * "the queue is empty" (the idle branch) means the link is idle: nothing waiting and nothing
//!   being transmitted. The idle time starts when the transmitter finishes its last packet;
//!   `s` is the transmission time of a packet of `mean_packet_size` bytes. `m` is not rounded
//!   (ns-2 truncates it to an integer and applies one more ordinary update with q = 0). After an
//!   arrival on an idle link that RED drops, the idle time restarts at that arrival, so the
//!   decay over an idle period does not depend on how many packets were dropped in it;
//! * every arrival is examined, also one that finds the link idle;
//! * `gentle`: between `max_th` and `2 max_th` the probability rises linearly from `max_p` to 1
//!   and is spaced by `count` like below `max_th`; from `2 max_th` every arrival is dropped;
//! * a packet that passes RED but does not fit in the hard limit is an overflow drop, and
//!   resets `count` to 0 (ns-2 does the same: it is a drop).

use crate::engine::rng::RngStream;
use crate::model::{Nanos, RedSpec};

#[derive(Debug, Clone)]
pub struct Red {
    min_th: f64,
    max_th: f64,
    max_p: f64,
    w_q: f64,
    gentle: bool,
    /// Transmission time `s` of a typical packet, nanoseconds.
    typical_transmission: f64,
    avg: f64,
    /// Packets since the last drop (-1: the average is below `min_th`).
    count: i64,
    /// When the link last became idle (meaningful only while it is idle).
    idle_since: Nanos,
    rng: RngStream,
}

impl Red {
    /// `typical_transmission`: the transmission time `s` (ns) of a typical packet on this link.
    pub fn new(spec: &RedSpec, typical_transmission: f64, rng: RngStream) -> Self {
        assert!(spec.min_th >= 0.0 && spec.max_th > spec.min_th, "RED needs 0 <= min_th < max_th");
        assert!((0.0..=1.0).contains(&spec.max_p), "RED max_p must be a probability");
        assert!(spec.w_q > 0.0 && spec.w_q <= 1.0, "RED w_q must be in (0, 1]");
        assert!(typical_transmission > 0.0, "RED needs a positive typical transmission time");
        Red {
            min_th: spec.min_th,
            max_th: spec.max_th,
            max_p: spec.max_p,
            w_q: spec.w_q,
            gentle: spec.gentle,
            typical_transmission,
            avg: 0.0,
            count: -1,
            idle_since: 0,
            rng,
        }
    }

    /// The average queue length, packets.
    pub fn average(&self) -> f64 {
        self.avg
    }

    /// Packets since the last drop, as used for the next decision (-1 below `min_th`).
    pub fn count(&self) -> i64 {
        self.count
    }

    /// Sets the average directly (for driving the drop decision in tests and experiments).
    pub fn set_average(&mut self, avg: f64) {
        self.avg = avg;
    }

    /// Updates the average for an arrival at `now` that finds `waiting` packets queued; `idle`
    /// when nothing is being transmitted either.
    pub fn update_average(&mut self, now: Nanos, waiting: u64, idle: bool) {
        if idle {
            let m = now.saturating_sub(self.idle_since) as f64 / self.typical_transmission;
            self.avg *= (1.0 - self.w_q).powf(m);
            self.idle_since = now;
        } else {
            self.avg += self.w_q * (waiting as f64 - self.avg);
        }
    }

    /// The initial drop probability p_b at average queue `avg` (before the `count` spacing):
    /// 0 below `min_th`, linear to `max_p` at `max_th`, then 1 (or, with `gentle`, linear to 1
    /// at `2 max_th`).
    pub fn base_probability(&self, avg: f64) -> f64 {
        if avg < self.min_th {
            0.0
        } else if avg < self.max_th {
            self.max_p * (avg - self.min_th) / (self.max_th - self.min_th)
        } else if self.gentle && avg < 2.0 * self.max_th {
            self.max_p + (1.0 - self.max_p) * (avg - self.max_th) / self.max_th
        } else {
            1.0
        }
    }

    /// The probability p_a of dropping a packet that arrives with `count` = `count` (after the
    /// increment) when the initial probability is `p_b`: p_b / (1 - count p_b), at most 1.
    pub fn spaced_probability(p_b: f64, count: i64) -> f64 {
        let c = count as f64 * p_b;
        if c >= 1.0 {
            1.0
        } else {
            (p_b / (1.0 - c)).min(1.0)
        }
    }

    /// The drop decision for an arrival, given the current average.
    pub fn decide(&mut self) -> bool {
        let avg = self.avg;
        if avg < self.min_th {
            self.count = -1;
            return false;
        }
        let forced_from = if self.gentle { 2.0 * self.max_th } else { self.max_th };
        if avg >= forced_from {
            self.count = 0;
            return true;
        }
        self.count += 1;
        let p_a = Self::spaced_probability(self.base_probability(avg), self.count);
        if self.rng.bernoulli(p_a) {
            self.count = 0;
            true
        } else {
            false
        }
    }

    /// An arrival at `now` finding `waiting` packets queued (`idle`: and none in transmission):
    /// updates the average and returns whether RED drops the packet.
    pub fn on_arrival(&mut self, now: Nanos, waiting: u64, idle: bool) -> bool {
        self.update_average(now, waiting, idle);
        self.decide()
    }

    /// The link finished transmitting and has nothing more to send: the idle time starts.
    pub fn on_idle(&mut self, now: Nanos) {
        self.idle_since = now;
    }

    /// A packet that RED admitted did not fit in the hard limit and was dropped.
    pub fn on_overflow(&mut self) {
        self.count = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::QueueLimit;

    fn spec(gentle: bool) -> RedSpec {
        RedSpec { gentle, ..RedSpec::with_limit(QueueLimit::Packets(1000)) }
    }

    fn red(gentle: bool, seed: u64) -> Red {
        Red::new(&spec(gentle), 800_000.0, RngStream::new(seed, "link:test:red"))
    }

    /// The curve written out independently of `base_probability`.
    fn curve(avg: f64, gentle: bool) -> f64 {
        let (min_th, max_th, max_p) = (5.0, 15.0, 0.1);
        if avg < min_th {
            0.0
        } else if avg < max_th {
            max_p * (avg - min_th) / (max_th - min_th)
        } else if gentle && avg < 2.0 * max_th {
            max_p + (1.0 - max_p) * (avg - max_th) / max_th
        } else {
            1.0
        }
    }

    /// Long-run drop frequency at a constant average whose initial probability is `p_b`: one over
    /// the mean number of arrivals between drops, where the k-th arrival after a drop is dropped
    /// with probability p_b / (1 - k p_b) (1 once k p_b >= 1).
    fn expected_frequency(p_b: f64) -> f64 {
        if p_b <= 0.0 {
            return 0.0;
        }
        let (mut survive, mut mean_gap, mut k) = (1.0f64, 0.0f64, 1.0f64);
        while survive > 1e-15 {
            let p_a = if k * p_b >= 1.0 { 1.0 } else { (p_b / (1.0 - k * p_b)).min(1.0) };
            mean_gap += k * survive * p_a;
            survive *= 1.0 - p_a;
            k += 1.0;
        }
        1.0 / mean_gap
    }

    #[test]
    fn base_probability_follows_the_configured_curve() {
        for gentle in [false, true] {
            let r = red(gentle, 1);
            for i in 0..=400 {
                let avg = i as f64 * 0.1;
                assert!((r.base_probability(avg) - curve(avg, gentle)).abs() < 1e-12, "avg {avg}");
            }
        }
        let r = red(false, 1);
        assert_eq!(r.base_probability(4.999), 0.0);
        assert!((r.base_probability(10.0) - 0.05).abs() < 1e-12);
        assert_eq!(r.base_probability(15.0), 1.0);
        let g = red(true, 1);
        assert!((g.base_probability(15.0) - 0.1).abs() < 1e-12);
        assert!((g.base_probability(22.5) - 0.55).abs() < 1e-12);
        assert_eq!(g.base_probability(30.0), 1.0);
    }

    #[test]
    fn drop_frequency_per_average_bin_matches_the_count_spaced_curve() {
        // Hold the average fixed in each bin, make many decisions, and compare (a) the drop
        // frequency with the renewal value 1 / E[gap] implied by p_a = p_b / (1 - count p_b), and
        // (b) the drop frequency conditional on each count value with p_a itself. Tolerances:
        // 5 binomial standard deviations (plus a small absolute slack for p near 0 or 1).
        for gentle in [false, true] {
            let mut r = red(gentle, 7);
            let top = if gentle { 32.0 } else { 17.0 };
            let mut avg = 0.25;
            while avg < top {
                r.set_average(avg);
                let p_b = curve(avg, gentle);
                let n = 40_000;
                let mut drops = 0u64;
                // (decisions, drops) per count value.
                let mut by_count: std::collections::BTreeMap<i64, (u64, u64)> = Default::default();
                for _ in 0..n {
                    let before = r.count();
                    let dropped = r.decide();
                    drops += u64::from(dropped);
                    if avg >= 5.0 && avg < if gentle { 30.0 } else { 15.0 } {
                        let e = by_count.entry(before + 1).or_default();
                        e.0 += 1;
                        e.1 += u64::from(dropped);
                    }
                }
                let freq = drops as f64 / n as f64;
                let expected = expected_frequency(p_b);
                let sd = (expected * (1.0 - expected) / n as f64).sqrt();
                assert!(
                    (freq - expected).abs() <= 5.0 * sd + 1e-3,
                    "gentle {gentle}, avg {avg}: drop frequency {freq}, expected {expected} (p_b {p_b})"
                );
                for (&count, &(tries, hits)) in &by_count {
                    if tries < 200 {
                        continue;
                    }
                    let p_a = Red::spaced_probability(p_b, count);
                    let got = hits as f64 / tries as f64;
                    let sd = (p_a * (1.0 - p_a) / tries as f64).sqrt();
                    assert!(
                        (got - p_a).abs() <= 5.0 * sd + 1e-3,
                        "gentle {gentle}, avg {avg}, count {count}: {got} vs p_a {p_a}"
                    );
                }
                avg += 0.5;
            }
        }
    }

    #[test]
    fn count_spacing_makes_gaps_between_drops_uniform() {
        // p_b = 0.05 (avg 10): after a drop, the k-th arrival is the next drop with probability
        // p_b / (1 - p_b) for k = 1 .. 19, i.e. the gap is uniform on {1, ..., 19}; a geometric
        // gap (no spacing) would put 5 % of the mass at 1 and leave gaps longer than 19.
        let mut r = red(false, 3);
        r.set_average(10.0);
        let mut gaps = [0u64; 21];
        let mut since = 0usize;
        let mut first = true;
        for _ in 0..400_000 {
            since += 1;
            if r.decide() {
                if !first {
                    assert!(since <= 19, "gap {since} longer than 1/p_b - 1");
                    gaps[since] += 1;
                }
                first = false;
                since = 0;
            }
        }
        let total: u64 = gaps.iter().sum();
        let each = total as f64 / 19.0;
        for (gap, &n) in gaps.iter().enumerate().skip(1).take(19) {
            assert!((n as f64 - each).abs() < 5.0 * each.sqrt(), "gap {gap}: {n} vs {each}");
        }
    }

    #[test]
    fn below_min_th_nothing_is_dropped_and_count_resets() {
        let mut r = red(false, 1);
        r.set_average(4.9);
        assert!((0..10_000).all(|_| !r.decide()));
        assert_eq!(r.count(), -1);
        r.set_average(15.0);
        assert!(r.decide());
        assert_eq!(r.count(), 0);
        r.set_average(5.0); // p_b = 0: counted, never dropped
        assert!(!r.decide());
        assert_eq!(r.count(), 1);
    }

    #[test]
    fn average_follows_the_ewma_while_busy() {
        let mut r = red(false, 1);
        let queue = [0u64, 3, 7, 12, 12, 40, 2, 0, 0, 25];
        let mut expected = 0.0f64;
        for (i, &q) in queue.iter().cycle().take(5_000).enumerate() {
            r.update_average(i as Nanos, q, false);
            expected = (1.0 - 0.002) * expected + 0.002 * q as f64;
            assert!((r.average() - expected).abs() < 1e-9, "step {i}");
        }
        // Constant queue: converges to it with time constant 1/w_q arrivals.
        let mut r = red(false, 1);
        for _ in 0..500 {
            r.update_average(0, 10, false);
        }
        let after_500 = 10.0 * (1.0 - 0.998f64.powi(500));
        assert!((r.average() - after_500).abs() < 1e-9);
        assert!((r.average() - 10.0 * (1.0 - (-1.0f64).exp())).abs() < 0.01);
    }

    #[test]
    fn idle_time_decays_the_average_by_the_missed_transmissions() {
        // s = 0.8 ms. Idle from t = 1 s to t = 1.04 s is m = 50 typical transmissions.
        let mut r = red(false, 1);
        r.set_average(12.0);
        r.on_idle(1_000_000_000);
        r.update_average(1_040_000_000, 0, true);
        assert!((r.average() - 12.0 * 0.998f64.powi(50)).abs() < 1e-9, "{}", r.average());
        // A dropped arrival restarts the idle time: two idle arrivals decay like one longer idle.
        let mut a = red(false, 1);
        let mut b = red(false, 1);
        for x in [&mut a, &mut b] {
            x.set_average(12.0);
            x.on_idle(0);
        }
        a.update_average(8_000_000, 0, true);
        a.update_average(24_000_000, 0, true);
        b.update_average(24_000_000, 0, true);
        assert!((a.average() - b.average()).abs() < 1e-12);
        assert!((b.average() - 12.0 * 0.998f64.powi(30)).abs() < 1e-9);
        // A busy link with an empty waiting room is not idle: one ordinary step with q = 0.
        let mut c = red(false, 1);
        c.set_average(12.0);
        c.update_average(5_000_000_000, 0, false);
        assert!((c.average() - 12.0 * 0.998).abs() < 1e-12);
    }
}
