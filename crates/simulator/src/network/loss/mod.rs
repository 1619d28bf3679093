//! Channel loss models: which packets a link loses, and why. An open set, as ns-3's
//! `ErrorModel` hierarchy (`error-model.h`) is: each model is one file here owning its
//! scenario table (names, keys, parsing into settings of its own type), its state (a
//! [`LossModel`]) and how the one is built from the other, listed once in [`MODELS`]. The
//! scenario loader finds a model there by name; [`ErrorModel::for_link`] builds each from the
//! entry its settings name. A new model is its file and one line in [`MODELS`].
//!
//! A lost packet still occupies the link for its whole transmission time and is discarded at the
//! far end (as a receiver's link layer would on a failed checksum). Every model is looked at
//! when the packet has fully arrived at the far end (the end of its propagation), so that is the
//! instant an outage window or a Gilbert-Elliott state refers to.
//!
//! A link may carry several models; a packet is lost if any of them loses it. They are looked
//! at by [`LossKind`]: scripted drops first, then outages (a packet inside an outage is counted
//! as an outage loss), then the random models, each kind in the scenario's order; the first
//! that loses the packet ends the look (the others draw nothing for it).

pub mod bernoulli;
pub mod bit_error;
pub mod drop_list;
pub mod gilbert_elliott;
pub mod outage;

use super::packet::Packet;
use crate::fields::Res;
use crate::fields::Section;
use crate::model::{ErrorSpec, LossSetting, Nanos};

/// Why the channel lost a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossCause {
    /// A random channel error (Bernoulli, bit errors, Gilbert-Elliott) or a scripted drop.
    Error,
    /// A scheduled outage.
    Outage,
}

/// What a model is, which decides when it is looked at (in this order) and what its losses
/// count as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LossKind {
    /// Drops of chosen packets ([`drop_list`]): channel errors.
    Scripted,
    /// Windows in which every packet is lost: outages.
    Outage,
    /// Random losses: channel errors.
    Random,
}

/// A loss process on one direction of a link (`Send`: the testbed's emulator runs links on
/// threads of their own).
pub trait LossModel: std::fmt::Debug + Send {
    /// Whether `packet`, fully arrived at `now`, is lost.
    fn loses(&mut self, packet: &Packet, now: Nanos) -> bool;

    /// What it is.
    fn kind(&self) -> LossKind {
        LossKind::Random
    }
}

/// A loss model as a scenario names it: `errors = { model = "NAME", KEYS... }`.
pub(crate) struct ModelEntry {
    /// The names `model` takes (case-insensitive); the first is the one messages use, and the
    /// one its settings carry.
    pub names: &'static [&'static str],
    /// Its table's keys besides `model` and `direction`.
    pub keys: &'static [&'static str],
    /// Its table, read into its settings (`None`: the model can lose nothing, e.g. a rate of 0).
    pub parse: fn(&Section) -> Res<Option<LossSetting>>,
    /// Its state on one link direction from its settings, its random draws from the stream
    /// named `stream` under master seed `seed` (`None`: it can lose nothing).
    pub build: fn(&LossSetting, seed: u64, stream: &str) -> Option<Box<dyn LossModel>>,
}

/// Every loss model a scenario may name, in the order messages list them.
pub(crate) const MODELS: &[ModelEntry] =
    &[bernoulli::ENTRY, bit_error::ENTRY, gilbert_elliott::ENTRY, outage::ENTRY, drop_list::ENTRY];

/// The entry of the model registered as `name` (its first name).
fn entry(name: &str) -> &'static ModelEntry {
    MODELS
        .iter()
        .find(|e| e.names[0] == name)
        .expect("loss settings are made only by their model's file, with its registered name")
}

/// The settings `settings` of the model of `entry`, as its file makes them.
pub(crate) fn setting<T: crate::model::LossSettings>(entry: &ModelEntry, settings: T) -> LossSetting {
    LossSetting::new(entry.names[0], settings)
}

/// The error models of one link direction, in the order they are looked at.
#[derive(Debug)]
pub struct ErrorModel {
    parts: Vec<Box<dyn LossModel>>,
}

impl ErrorModel {
    /// The error model of link `link` under master seed `seed`, or `None` when `spec` can lose
    /// nothing (every rate 0). The i-th model (in the scenario's order, arrays flattened) draws
    /// from the stream `link:NAME:errors` (i = 0) or `link:NAME:errors:i`; a Gilbert-Elliott
    /// chain draws its sojourns from that name plus `:chain`, an outage its random phase.
    pub fn for_link(seed: u64, link: &str, spec: &ErrorSpec) -> Option<Self> {
        let mut parts: Vec<Box<dyn LossModel>> = spec
            .models
            .iter()
            .enumerate()
            .filter_map(|(i, setting)| {
                let stream =
                    if i == 0 { format!("link:{link}:errors") } else { format!("link:{link}:errors:{i}") };
                (entry(setting.model()).build)(setting, seed, &stream)
            })
            .collect();
        // Stable: each kind keeps the scenario's order.
        parts.sort_by_key(|part| part.kind());
        (!parts.is_empty()).then_some(ErrorModel { parts })
    }

    /// Whether `packet`, fully arrived at `now`, is lost, and why.
    pub fn loss(&mut self, packet: &Packet, now: Nanos) -> Option<LossCause> {
        self.parts.iter_mut().find_map(|part| {
            part.loses(packet, now).then_some(match part.kind() {
                LossKind::Outage => LossCause::Outage,
                LossKind::Scripted | LossKind::Random => LossCause::Error,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::RngStream;
    use drop_list::DropListSpec;
    use gilbert_elliott::GilbertElliottSpec;
    use outage::{OutageOffset, OutageSpec};

    /// A data packet of `size` bytes on the wire.
    fn sized(size: u32) -> Packet {
        Packet { size, ..drop_list::tests::data(0, 0) }
    }

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
        let mut model = ErrorModel::for_link(1, "x", &ErrorSpec::one(bernoulli::setting(0.02))).unwrap();
        let n = 100_000;
        let lost = (0..n).filter(|&i| model.loss(&sized(40 + (i % 2000) as u32), i).is_some()).count() as f64;
        assert!((lost / n as f64 - 0.02).abs() < 0.003, "lost fraction {}", lost / n as f64);
    }

    #[test]
    fn single_random_model_keeps_its_stream() {
        // The first model draws from `link:NAME:errors`, as before arrays of models existed.
        let mut model = ErrorModel::for_link(4, "w", &ErrorSpec::one(bernoulli::setting(0.3))).unwrap();
        let mut rng = RngStream::new(4, "link:w:errors");
        for i in 0..1000 {
            assert_eq!(model.loss(&sized(100), i).is_some(), rng.bernoulli(0.3));
        }
    }

    #[test]
    fn zero_rates_make_no_model() {
        assert!(ErrorModel::for_link(1, "x", &ErrorSpec::one(bernoulli::setting(0.0))).is_none());
        let ge = GilbertElliottSpec {
            mean_good: 1,
            mean_bad: 1,
            loss_good: 0.0,
            loss_bad: 0.0,
            start_stationary: false,
        };
        let spec = ErrorSpec { models: vec![bit_error::setting(0.0), gilbert_elliott::setting(ge)] };
        assert!(ErrorModel::for_link(1, "x", &spec).is_none());
    }

    #[test]
    fn combined_models_lose_a_packet_if_any_does_and_label_outages_first() {
        let ms = 1_000_000;
        let handoffs = outage::setting(OutageSpec {
            period: 1_000 * ms,
            duration: 100 * ms,
            offset: OutageOffset::At(0),
        });
        let spec = ErrorSpec { models: vec![bernoulli::setting(0.1), handoffs] };
        let mut model = ErrorModel::for_link(2, "x", &spec).unwrap();
        let (mut outages, mut errors, mut n_outside) = (0, 0, 0);
        for i in 0..100_000u64 {
            let t = i * ms / 10; // every 0.1 ms for 10 s
            let in_window = t % (1_000 * ms) < 100 * ms;
            match model.loss(&sized(1000), t) {
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

    #[test]
    fn scripted_drops_come_first_and_a_packet_they_take_draws_nothing() {
        // Listed last, the drop list is still looked at first: its segment is a channel error
        // and the Bernoulli model, which would have drawn for it, draws for the next packet.
        let list = DropListSpec {
            flow_name: "f".into(),
            flow: 0,
            segment_size: 1000,
            first_byte: 0,
            segments: vec![2],
            acks: vec![],
            retransmissions: vec![],
        };
        let spec = ErrorSpec { models: vec![bernoulli::setting(0.5), drop_list::setting(list)] };
        let mut model = ErrorModel::for_link(9, "l", &spec).unwrap();
        let mut rng = RngStream::new(9, "link:l:errors");
        for seq in 0..50u64 {
            let packet = drop_list::tests::data(0, seq * 1000);
            let expected = if seq == 2 { true } else { rng.bernoulli(0.5) };
            assert_eq!(model.loss(&packet, seq), expected.then_some(LossCause::Error), "segment {seq}");
        }
    }
}
