//! Independent packet losses: each packet is lost with probability `rate`, whatever its size
//! (the papers' "packet error rate", seed 000 §5.1).
//!
//! ```toml
//! errors = { model = "bernoulli", rate = "1%" }
//! ```

use super::{LossModel, ModelEntry};
use crate::engine::rng::RngStream;
use crate::fields::Res;
use crate::fields::{self, Section};
use crate::model::{LossSetting, Nanos};
use crate::network::packet::Packet;

pub(crate) const ENTRY: ModelEntry = ModelEntry { names: &["bernoulli"], keys: &["rate"], parse, build };

/// The model's settings: the packet error rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BernoulliSpec {
    /// Each packet is lost independently with this probability.
    pub rate: f64,
}

/// A packet error rate `rate` as a link's loss model.
pub fn setting(rate: f64) -> LossSetting {
    super::setting(&ENTRY, BernoulliSpec { rate })
}

/// `rate`: the packet error probability; 0 loses nothing (no model).
fn parse(section: &Section) -> Res<Option<LossSetting>> {
    let (rv, rf) = section.required("rate", "the packet error probability, like \"1%\"")?;
    let p = fields::probability(rv, &rf)?;
    Ok((p > 0.0).then(|| setting(p)))
}

fn build(setting: &LossSetting, seed: u64, stream: &str) -> Option<Box<dyn LossModel>> {
    let spec = setting.get::<BernoulliSpec>()?;
    (spec.rate > 0.0).then(|| Box::new(Bernoulli::new(spec.rate, RngStream::new(seed, stream))) as _)
}

#[derive(Debug, Clone)]
pub struct Bernoulli {
    p: f64,
    rng: RngStream,
}

impl Bernoulli {
    pub fn new(p: f64, rng: RngStream) -> Self {
        Bernoulli { p, rng }
    }
}

impl LossModel for Bernoulli {
    fn loses(&mut self, _packet: &Packet, _now: Nanos) -> bool {
        self.rng.bernoulli(self.p)
    }
}
