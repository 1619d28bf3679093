//! Periodic outages (seed 000 §5.3, LEO satellite handoffs): every packet observed during
//! `[offset + k period, offset + k period + duration)`, k = 0, 1, ..., is lost.

use crate::model::{Nanos, OutageSpec};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outage {
    period: Nanos,
    duration: Nanos,
    offset: Nanos,
}

impl Outage {
    pub fn new(spec: &OutageSpec) -> Self {
        assert!(spec.period > 0 && spec.duration < spec.period, "outage needs duration < period");
        Outage { period: spec.period, duration: spec.duration, offset: spec.offset }
    }

    /// Whether `t` falls inside an outage.
    pub fn covers(&self, t: Nanos) -> bool {
        t >= self.offset && (t - self.offset) % self.period < self.duration
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = 1_000_000;

    #[test]
    fn loses_exactly_the_instants_inside_the_windows() {
        let outage = Outage::new(&OutageSpec { period: 4_000 * MS, duration: 100 * MS, offset: 250 * MS });
        // Every millisecond (and the nanoseconds around each edge) over 60 s.
        let inside = |t: Nanos| {
            (0..20u64).any(|k| {
                let start = 250 * MS + k * 4_000 * MS;
                start <= t && t < start + 100 * MS
            })
        };
        for ms in 0..60_000u64 {
            for t in [ms * MS, ms * MS + 1, (ms * MS).saturating_sub(1)] {
                assert_eq!(outage.covers(t), inside(t), "t = {t} ns");
            }
        }
        assert!(!outage.covers(250 * MS - 1));
        assert!(outage.covers(250 * MS));
        assert!(outage.covers(350 * MS - 1));
        assert!(!outage.covers(350 * MS));
        assert!(outage.covers(4_250 * MS));
        // Nothing before the offset, however close to a multiple of the period.
        assert!(!outage.covers(0));
        // A packet every 1 ms for 400 s: 100 of every 4 000 are lost.
        let lost = (0..400_000u64).filter(|ms| outage.covers(ms * MS)).count();
        assert_eq!(lost, 100 * 100);
    }
}
