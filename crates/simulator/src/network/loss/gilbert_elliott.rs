//! The Gilbert-Elliott channel of seed 000 §5.2: a two-state (Good / Bad) Markov chain in
//! continuous time. The time spent in each state is exponential (means `mean_good`,
//! `mean_bad`); in each state packets are lost independently with that state's probability
//! (`loss_bad = 1` models blackouts).
//!
//! The chain runs on its own random stream and is advanced lazily to each packet's observation
//! instant, drawing every sojourn from that stream; the per-packet losses draw from a second
//! stream. So the chain's trajectory is a function of the seed alone: traffic only decides at
//! which instants it is looked at.
//!
//! ```toml
//! errors = { model = "gilbert-elliott", mean_good = "8s", mean_bad = "4s", loss_bad = "5%" }
//! ```

use super::{LossModel, ModelEntry};
use crate::engine::rng::RngStream;
use crate::fields::{self, Section};
use crate::fields::{echo, FieldError, Res};
use crate::model::{LossSetting, Nanos};
use crate::network::packet::Packet;

pub(crate) const ENTRY: ModelEntry = ModelEntry {
    names: &["gilbert-elliott", "gilbert_elliott"],
    keys: &["mean_good", "mean_bad", "loss_good", "loss_bad", "start"],
    parse,
    build,
};

/// The model's settings. Sojourns in Good and Bad are exponential with the given means; in
/// each state packets are lost independently with that state's probability.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GilbertElliottSpec {
    pub mean_good: Nanos,
    pub mean_bad: Nanos,
    pub loss_good: f64,
    pub loss_bad: f64,
    /// Start in a state drawn from the stationary distribution instead of in Good.
    pub start_stationary: bool,
}

/// A Gilbert-Elliott channel as a link's loss model.
pub fn setting(spec: GilbertElliottSpec) -> LossSetting {
    super::setting(&ENTRY, spec)
}

/// `mean_good`, `mean_bad` (sojourns), `loss_good` (default 0), `loss_bad` (default 1: a
/// blackout), `start` (`good` or `stationary`); losing nothing in either state: no model.
fn parse(section: &Section) -> Res<Option<LossSetting>> {
    let (v, f) = section.required("mean_good", "the mean time in the Good state, like \"8s\"")?;
    let mean_good = fields::state_duration(v, &f)?;
    let (v, f) = section.required("mean_bad", "the mean time in the Bad state, like \"4s\"")?;
    let mean_bad = fields::state_duration(v, &f)?;
    let loss_good = match section.get("loss_good") {
        Some((v, f)) => fields::probability(v, &f)?,
        None => 0.0,
    };
    let loss_bad = match section.get("loss_bad") {
        Some((v, f)) => fields::probability(v, &f)?,
        None => 1.0,
    };
    const STARTS: &str = "\"good\" or \"stationary\"";
    let start_stationary = match section.get("start") {
        None => false,
        Some((v, f)) => {
            let s = fields::string(v, &f, STARTS)?;
            match s.trim().to_ascii_lowercase().as_str() {
                "good" => false,
                "stationary" => true,
                _ => {
                    return Err(FieldError::new(
                        f,
                        format!("unknown start state {s}; expected {STARTS}", s = echo(s)),
                    ))
                }
            }
        }
    };
    let spec = GilbertElliottSpec { mean_good, mean_bad, loss_good, loss_bad, start_stationary };
    Ok((loss_good > 0.0 || loss_bad > 0.0).then(|| setting(spec)))
}

/// The chain draws its sojourns from `stream:chain`, the per-packet losses from `stream`.
fn build(setting: &LossSetting, seed: u64, stream: &str) -> Option<Box<dyn LossModel>> {
    let spec = setting.get::<GilbertElliottSpec>()?;
    (spec.loss_good > 0.0 || spec.loss_bad > 0.0).then(|| {
        let chain = RngStream::new(seed, &format!("{stream}:chain"));
        Box::new(GilbertElliott::new(spec, chain, RngStream::new(seed, stream))) as _
    })
}

#[derive(Debug, Clone)]
pub struct GilbertElliott {
    /// Mean sojourns, nanoseconds.
    mean_good: f64,
    mean_bad: f64,
    loss_good: f64,
    loss_bad: f64,
    bad: bool,
    /// When the current sojourn ends (ns, not rounded).
    switch_at: f64,
    chain: RngStream,
    losses: RngStream,
}

impl GilbertElliott {
    /// `chain` draws the sojourns (and the initial state), `losses` the per-packet losses.
    pub fn new(spec: &GilbertElliottSpec, mut chain: RngStream, losses: RngStream) -> Self {
        assert!(spec.mean_good > 0 && spec.mean_bad > 0, "Gilbert-Elliott means must be positive");
        let bad = spec.start_stationary && chain.bernoulli(Self::stationary_bad(spec));
        let (mean_good, mean_bad) = (spec.mean_good as f64, spec.mean_bad as f64);
        // Sojourns are memoryless, so a stationary start needs no special first sojourn.
        let switch_at = chain.exponential(if bad { mean_bad } else { mean_good });
        GilbertElliott {
            mean_good,
            mean_bad,
            loss_good: spec.loss_good,
            loss_bad: spec.loss_bad,
            bad,
            switch_at,
            chain,
            losses,
        }
    }

    /// Long-run fraction of time in Bad: mean_bad / (mean_good + mean_bad).
    pub fn stationary_bad(spec: &GilbertElliottSpec) -> f64 {
        spec.mean_bad as f64 / (spec.mean_good as f64 + spec.mean_bad as f64)
    }

    /// Long-run packet loss probability of a packet observed at a random instant.
    pub fn stationary_loss(spec: &GilbertElliottSpec) -> f64 {
        let bad = Self::stationary_bad(spec);
        (1.0 - bad) * spec.loss_good + bad * spec.loss_bad
    }

    /// Runs the chain up to time `t` (no effect for a `t` before the last one seen).
    pub fn advance_to(&mut self, t: Nanos) {
        let t = t as f64;
        while self.switch_at <= t {
            self.bad = !self.bad;
            let mean = if self.bad { self.mean_bad } else { self.mean_good };
            self.switch_at += self.chain.exponential(mean);
        }
    }

    /// Whether the chain is in Bad (at the last instant it was advanced to).
    pub fn is_bad(&self) -> bool {
        self.bad
    }

    /// When the current sojourn ends, ns.
    pub fn switch_at(&self) -> f64 {
        self.switch_at
    }

    /// Whether a packet observed at `t` is lost.
    pub fn loses(&mut self, t: Nanos) -> bool {
        self.advance_to(t);
        let p = if self.bad { self.loss_bad } else { self.loss_good };
        self.losses.bernoulli(p)
    }
}

impl LossModel for GilbertElliott {
    fn loses(&mut self, _packet: &Packet, now: Nanos) -> bool {
        GilbertElliott::loses(self, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Nanos = 1_000_000_000;

    fn spec(loss_good: f64, loss_bad: f64) -> GilbertElliottSpec {
        GilbertElliottSpec { mean_good: 8 * S, mean_bad: 4 * S, loss_good, loss_bad, start_stationary: false }
    }

    fn chain(spec: &GilbertElliottSpec, seed: u64) -> GilbertElliott {
        GilbertElliott::new(spec, RngStream::new(seed, "ge:chain"), RngStream::new(seed, "ge:loss"))
    }

    /// Standard deviation of the fraction of [0, T] spent in Bad for a two-state chain with
    /// exponential sojourns (means g, b): asymptotically sqrt(2 pi_g pi_b tau / T) with
    /// correlation time tau = 1 / (1/g + 1/b).
    fn time_fraction_sd(g: f64, b: f64, horizon: f64) -> f64 {
        let (pi_g, pi_b) = (g / (g + b), b / (g + b));
        let tau = 1.0 / (1.0 / g + 1.0 / b);
        (2.0 * pi_g * pi_b * tau / horizon).sqrt()
    }

    #[test]
    fn long_run_loss_matches_the_stationary_value() {
        // Fading (seed 000 §5.2.1): Good 8 s / Bad 4 s, 0.001 % and 5 %; and blackouts (0 / 100 %).
        // Packets observed every 20 ms for 200 000 s of channel time (10^7 packets). The error of
        // the loss fraction is dominated by the slow chain: with pi_bad = 1/3 and tau = 8/3 s the
        // fraction of time in Bad has sd ~ sqrt(2 (2/9)(8/3) / 2e5) = 0.0024, so the loss fraction
        // has sd ~ 0.0024 (loss_bad - loss_good) plus a binomial part sqrt(p(1-p)/10^7) ~ 1.5e-4.
        // We allow 5 sd.
        let horizon = 200_000.0;
        for (loss_good, loss_bad) in [(0.00001, 0.05), (0.0, 1.0), (0.02, 0.3)] {
            let spec = spec(loss_good, loss_bad);
            let mut ge = chain(&spec, 11);
            let step = 20_000_000;
            let n = (horizon * S as f64) as u64 / step;
            let lost = (1..=n).filter(|i| ge.loses(i * step)).count() as f64 / n as f64;
            let expected = GilbertElliott::stationary_loss(&spec);
            let sd_chain = time_fraction_sd(8.0, 4.0, horizon) * (loss_bad - loss_good);
            let sd_binomial = (expected * (1.0 - expected) / n as f64).sqrt();
            let tolerance = 5.0 * (sd_chain + sd_binomial);
            assert!(
                (lost - expected).abs() < tolerance,
                "good {loss_good} bad {loss_bad}: lost {lost}, stationary {expected}, tolerance {tolerance}"
            );
        }
        assert!((GilbertElliott::stationary_bad(&spec(0.0, 1.0)) - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn sojourns_are_exponential_with_the_configured_means() {
        // Jump from switch to switch and record how long each state lasted. 40 000 sojourns of
        // each kind: the sample mean of an exponential has relative sd 1/sqrt(n) = 0.5 %; allow
        // 5 sd. The fraction longer than the mean should be e^-1 (binomial sd ~ 0.0024).
        let spec = spec(0.0, 1.0);
        let mut ge = chain(&spec, 5);
        let (mut good, mut bad) = (Vec::new(), Vec::new());
        let mut started = 0.0;
        while good.len() < 40_000 || bad.len() < 40_000 {
            let was_bad = ge.is_bad();
            let end = ge.switch_at();
            ge.advance_to(end.ceil() as Nanos);
            assert_ne!(ge.is_bad(), was_bad, "advancing to the switch time flips the state");
            let length = (end - started) / S as f64;
            if was_bad {
                bad.push(length)
            } else {
                good.push(length)
            }
            started = end;
        }
        for (lengths, mean) in [(&good, 8.0), (&bad, 4.0)] {
            let n = lengths.len() as f64;
            let sample_mean = lengths.iter().sum::<f64>() / n;
            assert!((sample_mean / mean - 1.0).abs() < 5.0 / n.sqrt(), "mean {sample_mean} vs {mean}");
            let longer = lengths.iter().filter(|&&x| x > mean).count() as f64 / n;
            assert!((longer - (-1.0f64).exp()).abs() < 0.013, "P(X > mean) = {longer}");
        }
    }

    #[test]
    fn the_chain_does_not_depend_on_how_often_it_is_observed() {
        // Same seed, one observed every 1 ms, one every 250 ms: same state at the common instants.
        let spec = spec(0.0, 1.0);
        let (mut dense, mut sparse) = (chain(&spec, 9), chain(&spec, 9));
        for ms in 1..=2_000_000u64 {
            dense.advance_to(ms * 1_000_000);
            if ms % 250 == 0 {
                sparse.advance_to(ms * 1_000_000);
                assert_eq!(dense.is_bad(), sparse.is_bad(), "t = {ms} ms");
            }
        }
    }

    #[test]
    fn start_state_is_good_or_drawn_from_the_stationary_distribution() {
        let good_start = spec(0.0, 1.0);
        assert!((0..1000).all(|seed| !chain(&good_start, seed).is_bad()));
        let stationary = GilbertElliottSpec { start_stationary: true, ..good_start };
        let n = 20_000;
        let bad = (0..n).filter(|&seed| chain(&stationary, seed).is_bad()).count() as f64 / n as f64;
        // pi_bad = 1/3, binomial sd 0.0033.
        assert!((bad - 1.0 / 3.0).abs() < 0.017, "started in Bad {bad}");
    }
}
