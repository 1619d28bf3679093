//! Channel loss models: which packets a link loses, and why. An open set, as ns-3's
//! `ErrorModel` hierarchy (`error-model.h`) is: each model is one file here owning its
//! scenario table (names, keys, parsing) and its state (a [`LossModel`]), listed once in
//! [`MODELS`] for the scenario loader and built once in [`ErrorModel::for_link`].
//!
//! A lost packet still occupies the link for its whole transmission time and is discarded at the
//! far end (as a receiver's link layer would on a failed checksum). Every model is looked at
//! when the packet has fully arrived at the far end (the end of its propagation), so that is the
//! instant an outage window or a Gilbert-Elliott state refers to.
//!
//! A link may carry several models ([`ErrorSpec::Any`]); a packet is lost if any of them loses
//! it. Outages are checked first, so a packet inside an outage is counted as an outage loss.

pub mod bernoulli;
pub mod bit_error;
pub mod drop_list;
pub mod gilbert_elliott;
pub mod outage;

use super::packet::Packet;
use crate::engine::rng::RngStream;
use crate::model::{ErrorSpec, Nanos};
use crate::scenario::fields::Section;
use crate::scenario::Res;
use bernoulli::Bernoulli;
use bit_error::BitErrors;
use drop_list::DropList;
use gilbert_elliott::GilbertElliott;
use outage::Outage;

/// Why the channel lost a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossCause {
    /// A random channel error (Bernoulli, bit errors, Gilbert-Elliott).
    Error,
    /// A scheduled outage.
    Outage,
}

/// A loss process on one direction of a link (`Send`: the testbed's emulator runs links on
/// threads of their own).
pub trait LossModel: std::fmt::Debug + Send {
    /// Whether a packet of `size` bytes that has fully arrived at `now` is lost.
    fn loses(&mut self, size: u32, now: Nanos) -> bool;

    /// What its losses are counted as.
    fn cause(&self) -> LossCause {
        LossCause::Error
    }
}

/// A loss model as a scenario names it: `errors = { model = "NAME", KEYS... }`.
pub(crate) struct ModelEntry {
    /// The names `model` takes (case-insensitive); the first is the one messages use.
    pub names: &'static [&'static str],
    /// Its table's keys besides `model` and `direction`.
    pub keys: &'static [&'static str],
    /// Its table, read into a spec (`None`: the model can lose nothing, e.g. a rate of 0).
    pub parse: fn(&Section) -> Res<Option<ErrorSpec>>,
}

/// Every loss model a scenario may name, in the order messages list them.
pub(crate) const MODELS: &[ModelEntry] =
    &[bernoulli::ENTRY, bit_error::ENTRY, gilbert_elliott::ENTRY, outage::ENTRY, drop_list::ENTRY];

/// The error models of one link direction: outages first, then the random models in the
/// scenario's order; scripted drops apart, looked at before everything else.
#[derive(Debug)]
pub struct ErrorModel {
    parts: Vec<Box<dyn LossModel>>,
    /// Scripted drops ([`drop_list`]), which look at the packet rather than its size.
    scripted: Vec<DropList>,
}

impl ErrorModel {
    /// The error model of link `link` under master seed `seed`, or `None` when `spec` can lose
    /// nothing (every rate 0). The i-th model (in the scenario's order, arrays flattened) draws
    /// from the stream `link:NAME:errors` (i = 0) or `link:NAME:errors:i`; a Gilbert-Elliott
    /// chain draws its sojourns from that name plus `:chain`, an outage its random phase.
    pub fn for_link(seed: u64, link: &str, spec: &ErrorSpec) -> Option<Self> {
        let mut flat = Vec::new();
        flatten(spec, &mut flat);
        let mut outages: Vec<Box<dyn LossModel>> = Vec::new();
        let mut random: Vec<Box<dyn LossModel>> = Vec::new();
        let mut scripted = Vec::new();
        for (i, spec) in flat.into_iter().enumerate() {
            let stream =
                if i == 0 { format!("link:{link}:errors") } else { format!("link:{link}:errors:{i}") };
            // One line per model: its state, from its spec.
            match *spec {
                ErrorSpec::PacketErrorRate(p) if p > 0.0 => {
                    random.push(Box::new(Bernoulli::new(p, RngStream::new(seed, &stream))))
                }
                ErrorSpec::BitErrorRate(p) if p > 0.0 => {
                    random.push(Box::new(BitErrors::new(p, RngStream::new(seed, &stream))))
                }
                ErrorSpec::GilbertElliott(ge) if ge.loss_good > 0.0 || ge.loss_bad > 0.0 => {
                    random.push(Box::new(GilbertElliott::new(
                        &ge,
                        RngStream::new(seed, &format!("{stream}:chain")),
                        RngStream::new(seed, &stream),
                    )))
                }
                ErrorSpec::Outage(o) => {
                    outages.push(Box::new(Outage::new(&o, &mut RngStream::new(seed, &stream))))
                }
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

    /// Whether a packet of `size` bytes observed at `now` is lost, and why.
    pub fn loss(&mut self, size: u32, now: Nanos) -> Option<LossCause> {
        self.parts.iter_mut().find_map(|part| part.loses(size, now).then(|| part.cause()))
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
    use crate::model::{GilbertElliottSpec, OutageOffset, OutageSpec};

    #[test]
    fn bit_error_rate_converts_by_packet_size() {
        let p = bit_error::loss_probability(1e-5, 1000);
        let expected = 1.0 - (1.0 - 1e-5f64).powi(8000);
        assert!((p - expected).abs() < 1e-12);
        // Larger packets are lost more often.
        assert!(bit_error::loss_probability(1e-5, 40) < p);
        // One bit in 64 KB: a 64 KB packet is lost with probability ~ 1 - 1/e.
        let ber = 1.0 / (64.0 * 1024.0 * 8.0);
        let p64k = bit_error::loss_probability(ber, 65536);
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
        let outage = ErrorSpec::Outage(OutageSpec {
            period: 1_000 * ms,
            duration: 100 * ms,
            offset: OutageOffset::At(0),
        });
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
