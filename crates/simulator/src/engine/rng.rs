//! Seeded random-number streams, one per component.
//!
//! Each component (a link's error model, a traffic source, ...) draws from its own stream derived
//! from the master seed and the component's stable name, so adding a component or changing how
//! often one component draws never perturbs the others. The generator is xoshiro256** seeded by
//! SplitMix64 — small, fast, and implemented here so results cannot change with a dependency.

/// FNV-1a: a stable hash of a component name (std's hasher may change between releases).
fn stable_hash(name: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in name.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[derive(Debug, Clone)]
pub struct RngStream {
    state: [u64; 4],
}

impl RngStream {
    /// The stream of component `name` under master seed `seed`.
    pub fn new(seed: u64, name: &str) -> Self {
        let mut mix = seed ^ stable_hash(name).rotate_left(17);
        let state = [splitmix64(&mut mix), splitmix64(&mut mix), splitmix64(&mut mix), splitmix64(&mut mix)];
        RngStream { state }
    }

    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.state;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.next_f64() < p
    }

    /// Exponentially distributed with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.next_f64()).ln()
    }

    /// Uniform in `0..n` (`n` ≥ 1), exactly: draws below `2^64 mod n` are rejected, so every
    /// value is equally likely (OpenBSD's `arc4random_uniform`; a bare `x % n` favours the small
    /// values, and `next_f64() * n` cannot reach every nanosecond of a long interval).
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "below(0): the range is empty");
        let threshold = n.wrapping_neg() % n;
        loop {
            let x = self.next_u64();
            if x >= threshold {
                return x % n;
            }
        }
    }

    /// Uniform in `[low, high]` (both included; `low` ≤ `high`).
    pub fn uniform_inclusive(&mut self, low: u64, high: u64) -> u64 {
        assert!(low <= high, "uniform_inclusive({low}, {high}): the range is empty");
        match (high - low).checked_add(1) {
            Some(span) => low + self.below(span),
            None => self.next_u64(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_and_name_give_the_same_stream() {
        let mut a = RngStream::new(7, "link:wireless");
        let mut b = RngStream::new(7, "link:wireless");
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn streams_differ_by_seed_and_by_name() {
        let first = |seed, name| RngStream::new(seed, name).next_u64();
        assert_ne!(first(1, "a"), first(2, "a"));
        assert_ne!(first(1, "a"), first(1, "b"));
    }

    #[test]
    fn bernoulli_frequency_matches_probability() {
        let mut rng = RngStream::new(42, "test");
        let n = 200_000;
        let hits = (0..n).filter(|_| rng.bernoulli(0.05)).count() as f64;
        // 5 standard deviations of a binomial(200000, 0.05) is ~487.
        assert!((hits - 0.05 * n as f64).abs() < 500.0, "hits = {hits}");
        assert!(!rng.bernoulli(0.0));
    }

    #[test]
    fn below_and_uniform_inclusive_stay_in_range_and_cover_it_evenly() {
        let mut rng = RngStream::new(9, "below");
        let mut counts = [0u32; 7];
        for _ in 0..70_000 {
            counts[rng.below(7) as usize] += 1;
        }
        // 10 000 expected per value; 5 standard deviations is ~460.
        assert!(counts.iter().all(|&c| (9_500..10_500).contains(&c)), "{counts:?}");
        assert_eq!(rng.below(1), 0);
        for _ in 0..1000 {
            let x = rng.uniform_inclusive(5, 8);
            assert!((5..=8).contains(&x));
        }
        assert_eq!(rng.uniform_inclusive(3, 3), 3);
        let mut hits = [false; 4];
        (0..1000).for_each(|_| hits[(rng.uniform_inclusive(5, 8) - 5) as usize] = true);
        assert!(hits.iter().all(|&h| h), "both ends are reachable");
        rng.uniform_inclusive(0, u64::MAX); // the whole range: no overflow
    }

    #[test]
    fn uniform_is_in_unit_interval_with_the_right_mean() {
        let mut rng = RngStream::new(3, "u");
        let n = 100_000;
        let mut sum = 0.0;
        for _ in 0..n {
            let x = rng.next_f64();
            assert!((0.0..1.0).contains(&x));
            sum += x;
        }
        assert!((sum / n as f64 - 0.5).abs() < 0.01);
    }
}
