//! Periodic outages (seed 000 §5.3, LEO satellite handoffs): every packet observed during
//! `[offset + k period, offset + k period + duration)`, k = 0, 1, ..., is lost.
//!
//! ```toml
//! errors = { model = "outage", period = "4s", duration = "100ms", offset = "250ms" }
//! errors = { model = "outage", period = "4s", duration = "100ms", offset = "random" }
//! ```
//!
//! The paper gives the handoffs' period and length, not their phase. A fixed phase puts the
//! first handoff at the same instant of every run, e.g. always inside the flow's slow start, so
//! a result over a few handoffs may hold for that phase only. `offset = "random"` draws the
//! first start uniformly in `[0, period)` from the model's own stream (`link:NAME:errors[:i]`,
//! which a periodic outage does not otherwise use), so the phase varies with the seed and with
//! nothing else: averaging over seeds averages over phases.

use super::{LossKind, LossModel, ModelEntry};
use crate::engine::rng::RngStream;
use crate::fields::units::format_duration;
use crate::fields::{self, Section};
use crate::fields::{FieldError, Res};
use crate::model::{LossSetting, Nanos};
use crate::network::packet::Packet;

pub(crate) const ENTRY: ModelEntry =
    ModelEntry { names: &["outage"], keys: &["period", "duration", "offset"], parse, build };

/// The model's settings: outages of `duration` starting at `offset + k * period`, k = 0, 1, ...
/// (`duration < period`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutageSpec {
    pub period: Nanos,
    pub duration: Nanos,
    pub offset: OutageOffset,
}

/// When the first outage starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutageOffset {
    /// At this time.
    At(Nanos),
    /// At a time drawn uniformly in `[0, period)` from the model's own stream when the link is
    /// built (`offset = "random"`): handoffs in phase with nothing else in the scenario, the
    /// same for a scenario and seed, another for another seed.
    Random,
}

/// Periodic outages as a link's loss model.
pub fn setting(spec: OutageSpec) -> LossSetting {
    super::setting(&ENTRY, spec)
}

/// `period`, `duration` (shorter than the period), `offset` (a duration, default 0, or
/// `"random"`).
fn parse(section: &Section) -> Res<Option<LossSetting>> {
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
        Some((toml::Value::String(text), _)) if text.trim().eq_ignore_ascii_case("random") => {
            OutageOffset::Random
        }
        Some((v, f)) => OutageOffset::At(fields::duration(v, &f).map_err(|e| FieldError {
            message: format!("{}, or \"random\" (a phase drawn uniformly in [0, period))", e.message),
            ..e
        })?),
        None => OutageOffset::At(0),
    };
    Ok(Some(setting(OutageSpec { period, duration, offset })))
}

/// A random phase is drawn from `stream`.
fn build(setting: &LossSetting, seed: u64, stream: &str) -> Option<Box<dyn LossModel>> {
    let spec = setting.get::<OutageSpec>()?;
    Some(Box::new(Outage::new(spec, &mut RngStream::new(seed, stream))))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outage {
    period: Nanos,
    duration: Nanos,
    offset: Nanos,
}

impl Outage {
    /// The outages of `spec`; a random offset is drawn from `rng` (the model's own stream).
    pub fn new(spec: &OutageSpec, rng: &mut RngStream) -> Self {
        assert!(spec.period > 0 && spec.duration < spec.period, "outage needs duration < period");
        let offset = match spec.offset {
            OutageOffset::At(t) => t,
            OutageOffset::Random => rng.below(spec.period),
        };
        Outage { period: spec.period, duration: spec.duration, offset }
    }

    /// When the first outage starts.
    pub fn offset(&self) -> Nanos {
        self.offset
    }

    /// Whether `t` falls inside an outage.
    pub fn covers(&self, t: Nanos) -> bool {
        t >= self.offset && (t - self.offset) % self.period < self.duration
    }
}

impl LossModel for Outage {
    fn loses(&mut self, _packet: &Packet, now: Nanos) -> bool {
        self.covers(now)
    }

    fn kind(&self) -> LossKind {
        LossKind::Outage
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = 1_000_000;

    #[test]
    fn loses_exactly_the_instants_inside_the_windows() {
        let spec = OutageSpec { period: 4_000 * MS, duration: 100 * MS, offset: OutageOffset::At(250 * MS) };
        let outage = Outage::new(&spec, &mut RngStream::new(1, "unused"));
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

    #[test]
    fn a_random_offset_is_uniform_over_the_period_and_a_function_of_the_stream() {
        let spec = OutageSpec { period: 4_000 * MS, duration: 100 * MS, offset: OutageOffset::Random };
        let offset = |seed| Outage::new(&spec, &mut RngStream::new(seed, "link:sat:errors:1")).offset();
        assert_eq!(offset(3), offset(3), "the same seed gives the same phase");
        let offsets: Vec<Nanos> = (0..4000).map(offset).collect();
        assert!(offsets.iter().all(|&o| o < 4_000 * MS));
        let distinct: std::collections::HashSet<_> = offsets.iter().collect();
        assert!(distinct.len() > 3990, "seeds give different phases: {} distinct", distinct.len());
        // Uniform: a quarter of them in each quarter of the period (1000 each, sd ~27).
        for q in 0..4 {
            let n = offsets.iter().filter(|&&o| o / (1_000 * MS) == q).count();
            assert!((850..1150).contains(&n), "quarter {q}: {n}");
        }
        // The windows follow the drawn phase.
        let o = offset(7);
        let outage = Outage::new(&spec, &mut RngStream::new(7, "link:sat:errors:1"));
        assert!(outage.covers(o) && outage.covers(o + 4_000 * MS + 99 * MS));
        assert!(!outage.covers(o + 100 * MS) && (o == 0 || !outage.covers(o - 1)));
    }
}
