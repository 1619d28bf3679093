//! Independent bit errors: each bit is in error with probability `rate`, so a packet of `n`
//! bytes is lost with probability `1 - (1 - rate)^(8n)`: larger packets are lost more often.
//!
//! ```toml
//! errors = { model = "ber", rate = "1e-5" }
//! ```

use super::{LossModel, ModelEntry};
use crate::engine::rng::RngStream;
use crate::fields::Res;
use crate::fields::{self, Section};
use crate::model::{LossSetting, Nanos};
use crate::network::packet::Packet;

pub(crate) const ENTRY: ModelEntry = ModelEntry { names: &["ber"], keys: &["rate"], parse, build };

/// The model's settings: the bit error rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BitErrorSpec {
    /// Each bit is in error independently with this probability; a packet of `n` bytes is lost
    /// with probability `1 - (1 - rate)^(8n)`.
    pub rate: f64,
}

/// A bit error rate `rate` as a link's loss model.
pub fn setting(rate: f64) -> LossSetting {
    super::setting(&ENTRY, BitErrorSpec { rate })
}

/// `rate`: the bit error probability; 0 loses nothing (no model).
fn parse(section: &Section) -> Res<Option<LossSetting>> {
    let (rv, rf) = section.required("rate", "the bit error probability, like \"1e-5\"")?;
    let p = fields::bit_error_rate(rv, &rf)?;
    Ok((p > 0.0).then(|| setting(p)))
}

fn build(setting: &LossSetting, seed: u64, stream: &str) -> Option<Box<dyn LossModel>> {
    let spec = setting.get::<BitErrorSpec>()?;
    (spec.rate > 0.0).then(|| Box::new(BitErrors::new(spec.rate, RngStream::new(seed, stream))) as _)
}

/// Probability that a packet of `size` bytes is lost under a bit error rate `ber`:
/// 1 - (1 - ber)^(8 size), computed without cancellation for small `ber`.
pub fn loss_probability(ber: f64, size: u32) -> f64 {
    -f64::exp_m1(8.0 * f64::from(size) * f64::ln_1p(-ber))
}

#[derive(Debug, Clone)]
pub struct BitErrors {
    ber: f64,
    rng: RngStream,
}

impl BitErrors {
    pub fn new(ber: f64, rng: RngStream) -> Self {
        BitErrors { ber, rng }
    }
}

impl LossModel for BitErrors {
    fn loses(&mut self, packet: &Packet, _now: Nanos) -> bool {
        self.rng.bernoulli(loss_probability(self.ber, packet.size))
    }
}
