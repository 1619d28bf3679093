//! Periodic outages (seed 000 §5.3, LEO satellite handoffs): every packet observed during
//! `[offset + k period, offset + k period + duration)`, k = 0, 1, ..., is lost.
//!
//! ```toml
//! errors = { model = "outage", period = "4s", duration = "100ms", offset = "250ms" }
//! ```

use super::{LossCause, LossModel, ModelEntry};
use crate::model::{ErrorSpec, Nanos, OutageSpec};
use crate::scenario::fields::{self, Section};
use crate::scenario::units::format_duration;
use crate::scenario::{FieldError, Res};

pub(crate) const ENTRY: ModelEntry =
    ModelEntry { names: &["outage"], keys: &["period", "duration", "offset"], parse };

/// `period`, `duration` (shorter than the period), `offset` (default 0).
fn parse(section: &Section) -> Res<Option<ErrorSpec>> {
    let (v, f) = section.required("period", "the time between outage starts, like \"4s\"")?;
    let period = fields::state_duration(v, &f)?;
    let (v, f) = section.required("duration", "how long each outage lasts, like \"100ms\"")?;
    let duration = fields::positive_duration(v, &f)?;
    if duration >= period {
        return Err(FieldError::new(
            f,
            format!(
                "duration {} must be shorter than the period {}",
                format_duration(duration),
                format_duration(period)
            ),
        ));
    }
    let offset = match section.get("offset") {
        Some((v, f)) => fields::duration(v, &f)?,
        None => 0,
    };
    Ok(Some(ErrorSpec::Outage(OutageSpec { period, duration, offset })))
}

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

impl LossModel for Outage {
    fn loses(&mut self, _size: u32, now: Nanos) -> bool {
        self.covers(now)
    }

    fn cause(&self) -> LossCause {
        LossCause::Outage
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
