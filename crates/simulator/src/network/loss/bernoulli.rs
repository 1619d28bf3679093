//! Independent packet losses: each packet is lost with probability `rate`, whatever its size
//! (the papers' "packet error rate", seed 000 §5.1).
//!
//! ```toml
//! errors = { model = "bernoulli", rate = "1%" }
//! ```

use super::{LossModel, ModelEntry};
use crate::engine::rng::RngStream;
use crate::model::{ErrorSpec, Nanos};
use crate::scenario::fields::{self, Section};
use crate::scenario::Res;

pub(crate) const ENTRY: ModelEntry = ModelEntry { names: &["bernoulli"], keys: &["rate"], parse };

/// `rate`: the packet error probability; 0 loses nothing (no model).
fn parse(section: &Section) -> Res<Option<ErrorSpec>> {
    let (rv, rf) = section.required("rate", "the packet error probability, like \"1%\"")?;
    let p = fields::probability(rv, &rf)?;
    Ok((p > 0.0).then_some(ErrorSpec::PacketErrorRate(p)))
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
    fn loses(&mut self, _size: u32, _now: Nanos) -> bool {
        self.rng.bernoulli(self.p)
    }
}
