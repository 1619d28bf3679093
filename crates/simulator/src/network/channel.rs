//! Channel error models: which packets a link corrupts.
//!
//! A corrupted packet still occupies the link for its whole transmission time and is discarded
//! at the far end (as a receiver's link layer would on a failed checksum).

use crate::engine::rng::RngStream;
use crate::model::ErrorSpec;

#[derive(Debug, Clone)]
pub struct ErrorModel {
    spec: ErrorSpec,
    rng: RngStream,
}

impl ErrorModel {
    pub fn new(spec: ErrorSpec, rng: RngStream) -> Self {
        ErrorModel { spec, rng }
    }

    /// Probability that a packet of `size` bytes is lost.
    pub fn loss_probability(spec: ErrorSpec, size: u32) -> f64 {
        match spec {
            ErrorSpec::PacketErrorRate(p) => p,
            // 1 - (1 - ber)^bits, computed without cancellation for small ber.
            ErrorSpec::BitErrorRate(ber) => -f64::exp_m1(8.0 * f64::from(size) * f64::ln_1p(-ber)),
        }
    }

    /// Draw whether this packet is corrupted.
    pub fn corrupts(&mut self, size: u32) -> bool {
        let p = Self::loss_probability(self.spec, size);
        self.rng.bernoulli(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_error_rate_converts_by_packet_size() {
        let p = ErrorModel::loss_probability(ErrorSpec::BitErrorRate(1e-5), 1000);
        let expected = 1.0 - (1.0 - 1e-5f64).powi(8000);
        assert!((p - expected).abs() < 1e-12);
        // Larger packets are lost more often.
        assert!(ErrorModel::loss_probability(ErrorSpec::BitErrorRate(1e-5), 40) < p);
        // One bit in 64 KB: a 64 KB packet is lost with probability ~ 1 - 1/e.
        let ber = 1.0 / (64.0 * 1024.0 * 8.0);
        let p64k = ErrorModel::loss_probability(ErrorSpec::BitErrorRate(ber), 65536);
        assert!((p64k - (1.0 - (-1.0f64).exp())).abs() < 1e-5);
    }

    #[test]
    fn packet_error_rate_is_size_independent_and_frequency_matches() {
        let spec = ErrorSpec::PacketErrorRate(0.02);
        let mut model = ErrorModel::new(spec, RngStream::new(1, "x"));
        let n = 100_000;
        let lost = (0..n).filter(|_| model.corrupts(1040)).count() as f64 / n as f64;
        assert!((lost - 0.02).abs() < 0.003, "lost fraction {lost}");
    }
}
