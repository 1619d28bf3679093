//! Channel error models: which packets a link corrupts, and why.
//!
//! A corrupted packet still occupies the link for its whole transmission time and is discarded
//! at the far end (as a receiver's link layer would on a failed checksum). Every model is looked
//! at when the packet has fully arrived at the far end (the end of its propagation), so that is
//! the instant an outage window or a Gilbert-Elliott state refers to.
//!
//! A link may carry several models ([`ErrorSpec::Any`]); a packet is lost if any of them loses
//! it. Outages are checked first, so a packet inside an outage is counted as an outage loss.

use super::drop_list::DropList;
use super::gilbert_elliott::GilbertElliott;
use super::outage::Outage;
use super::packet::Packet;
use crate::engine::rng::RngStream;
use crate::model::{ErrorSpec, Nanos};

/// Why the channel lost a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossCause {
    /// A random channel error (Bernoulli, bit errors, Gilbert-Elliott).
    Error,
    /// A scheduled outage.
    Outage,
}

#[derive(Debug, Clone)]
enum Part {
    PacketErrorRate(f64, RngStream),
    BitErrorRate(f64, RngStream),
    GilbertElliott(GilbertElliott),
    Outage(Outage),
}

#[derive(Debug, Clone)]
pub struct ErrorModel {
    /// Outages first, then the random models in the scenario's order.
    parts: Vec<Part>,
    /// Scripted drops (`network::drop_list`), looked at before everything else.
    scripted: Vec<DropList>,
}

impl ErrorModel {
    /// The error model of link `link` under master seed `seed`, or `None` when `spec` can lose
    /// nothing (every rate 0). The i-th model (in the scenario's order, arrays flattened) draws
    /// from the stream `link:NAME:errors` (i = 0) or `link:NAME:errors:i`; a Gilbert-Elliott
    /// chain draws its sojourns from that name plus `:chain`.
    pub fn for_link(seed: u64, link: &str, spec: &ErrorSpec) -> Option<Self> {
        let mut flat = Vec::new();
        flatten(spec, &mut flat);
        let mut outages = Vec::new();
        let mut random = Vec::new();
        let mut scripted = Vec::new();
        for (i, spec) in flat.into_iter().enumerate() {
            let stream =
                if i == 0 { format!("link:{link}:errors") } else { format!("link:{link}:errors:{i}") };
            match *spec {
                ErrorSpec::PacketErrorRate(p) if p > 0.0 => {
                    random.push(Part::PacketErrorRate(p, RngStream::new(seed, &stream)))
                }
                ErrorSpec::BitErrorRate(p) if p > 0.0 => {
                    random.push(Part::BitErrorRate(p, RngStream::new(seed, &stream)))
                }
                ErrorSpec::GilbertElliott(ge) if ge.loss_good > 0.0 || ge.loss_bad > 0.0 => {
                    random.push(Part::GilbertElliott(GilbertElliott::new(
                        &ge,
                        RngStream::new(seed, &format!("{stream}:chain")),
                        RngStream::new(seed, &stream),
                    )))
                }
                ErrorSpec::Outage(o) => outages.push(Part::Outage(Outage::new(&o))),
                ErrorSpec::DropList(ref d) => scripted.push(DropList::new(d)),
                _ => {}
            }
        }
        outages.extend(random);
        (!outages.is_empty() || !scripted.is_empty()).then_some(ErrorModel { parts: outages, scripted })
    }

    /// Whether a scripted drop list takes this packet (checked before [`ErrorModel::loss`]).
    pub fn drops_scripted(&mut self, packet: &Packet) -> bool {
        self.scripted.iter_mut().any(|list| list.drops(packet))
    }

    /// Probability that a packet of `size` bytes is lost under a bit error rate `ber`:
    /// 1 - (1 - ber)^(8 size), computed without cancellation for small `ber`.
    pub fn bit_error_loss_probability(ber: f64, size: u32) -> f64 {
        -f64::exp_m1(8.0 * f64::from(size) * f64::ln_1p(-ber))
    }

    /// Whether a packet of `size` bytes observed at `now` is lost, and why.
    pub fn loss(&mut self, size: u32, now: Nanos) -> Option<LossCause> {
        for part in &mut self.parts {
            let (lost, cause) = match part {
                Part::Outage(o) => (o.covers(now), LossCause::Outage),
                Part::PacketErrorRate(p, rng) => (rng.bernoulli(*p), LossCause::Error),
                Part::BitErrorRate(ber, rng) => {
                    (rng.bernoulli(Self::bit_error_loss_probability(*ber, size)), LossCause::Error)
                }
                Part::GilbertElliott(ge) => (ge.loses(now), LossCause::Error),
            };
            if lost {
                return Some(cause);
            }
        }
        None
    }
}

fn flatten<'a>(spec: &'a ErrorSpec, out: &mut Vec<&'a ErrorSpec>) {
    match spec {
        ErrorSpec::Any(parts) => parts.iter().for_each(|p| flatten(p, out)),
        other => out.push(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{GilbertElliottSpec, OutageSpec};

    #[test]
    fn bit_error_rate_converts_by_packet_size() {
        let p = ErrorModel::bit_error_loss_probability(1e-5, 1000);
        let expected = 1.0 - (1.0 - 1e-5f64).powi(8000);
        assert!((p - expected).abs() < 1e-12);
        // Larger packets are lost more often.
        assert!(ErrorModel::bit_error_loss_probability(1e-5, 40) < p);
        // One bit in 64 KB: a 64 KB packet is lost with probability ~ 1 - 1/e.
        let ber = 1.0 / (64.0 * 1024.0 * 8.0);
        let p64k = ErrorModel::bit_error_loss_probability(ber, 65536);
        assert!((p64k - (1.0 - (-1.0f64).exp())).abs() < 1e-5);
    }

    #[test]
    fn packet_error_rate_is_size_independent_and_frequency_matches() {
        let mut model = ErrorModel::for_link(1, "x", &ErrorSpec::PacketErrorRate(0.02)).unwrap();
        let n = 100_000;
        let lost = (0..n).filter(|&i| model.loss(40 + (i % 2000) as u32, i).is_some()).count() as f64;
        assert!((lost / n as f64 - 0.02).abs() < 0.003, "lost fraction {}", lost / n as f64);
    }

    #[test]
    fn single_random_model_keeps_its_stream() {
        // The first model draws from `link:NAME:errors`, as before arrays of models existed.
        let mut model = ErrorModel::for_link(4, "w", &ErrorSpec::PacketErrorRate(0.3)).unwrap();
        let mut rng = RngStream::new(4, "link:w:errors");
        for i in 0..1000 {
            assert_eq!(model.loss(100, i).is_some(), rng.bernoulli(0.3));
        }
    }

    #[test]
    fn zero_rates_make_no_model() {
        assert!(ErrorModel::for_link(1, "x", &ErrorSpec::PacketErrorRate(0.0)).is_none());
        let ge = GilbertElliottSpec {
            mean_good: 1,
            mean_bad: 1,
            loss_good: 0.0,
            loss_bad: 0.0,
            start_stationary: false,
        };
        let spec = ErrorSpec::Any(vec![ErrorSpec::BitErrorRate(0.0), ErrorSpec::GilbertElliott(ge)]);
        assert!(ErrorModel::for_link(1, "x", &spec).is_none());
    }

    #[test]
    fn combined_models_lose_a_packet_if_any_does_and_label_outages_first() {
        let ms = 1_000_000;
        let outage = ErrorSpec::Outage(OutageSpec { period: 1_000 * ms, duration: 100 * ms, offset: 0 });
        let spec = ErrorSpec::Any(vec![ErrorSpec::PacketErrorRate(0.1), outage]);
        let mut model = ErrorModel::for_link(2, "x", &spec).unwrap();
        let (mut outages, mut errors, mut n_outside) = (0, 0, 0);
        for i in 0..100_000u64 {
            let t = i * ms / 10; // every 0.1 ms for 10 s
            let in_window = t % (1_000 * ms) < 100 * ms;
            match model.loss(1000, t) {
                Some(LossCause::Outage) => {
                    assert!(in_window);
                    outages += 1
                }
                Some(LossCause::Error) => {
                    assert!(!in_window);
                    errors += 1
                }
                None => assert!(!in_window),
            }
            n_outside += u64::from(!in_window);
        }
        assert_eq!(outages, 10_000);
        let expected = 0.1 * n_outside as f64;
        assert!((errors as f64 - expected).abs() < 5.0 * (expected * 0.9).sqrt(), "{errors} vs {expected}");
    }
}
