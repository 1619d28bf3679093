//! Metrics over the flows of a run: Jain's fairness index and per-protocol shares
//! (friendliness).
//!
//! Jain, Chiu and Hawe's index of `n` throughputs `x_i` is `(Σ x_i)² / (n · Σ x_i²)`: 1 when every
//! flow gets the same, `1/n` when one flow gets everything (seed 004 uses it for TCPW ABSE
//! fairness). Friendliness (seed 000 §4.3, seed 003) compares the mean throughput of the flows
//! of each congestion control sharing a network: [`per_cc`].
//!
//! The run summary carries both for all bulk TCP flows (`fairness`, `per_cc`); [`fairness`]
//! computes the index for any subset of a summary's flows.

use std::collections::BTreeMap;

pub use crate::results::{CcShare, Fairness};
use crate::results::{FlowSummary, Summary};

/// Jain's fairness index of `values`; `None` for an empty list. All zeros count as equal
/// shares (1).
pub fn jain_index(values: &[f64]) -> Option<f64> {
    let mut acc = JainAccumulator::default();
    values.iter().for_each(|&v| acc.add(v));
    acc.index()
}

/// Jain's index over a stream of values, in constant memory.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct JainAccumulator {
    n: u64,
    sum: f64,
    sum_of_squares: f64,
}

impl JainAccumulator {
    pub fn add(&mut self, value: f64) {
        self.n += 1;
        self.sum += value;
        self.sum_of_squares += value * value;
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    pub fn sum(&self) -> f64 {
        self.sum
    }

    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum / self.n as f64)
    }

    pub fn index(&self) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        if self.sum_of_squares == 0.0 {
            return Some(1.0);
        }
        Some((self.sum * self.sum / (self.n as f64 * self.sum_of_squares)).min(1.0))
    }
}

/// Jain's index over every flow of `flows`.
pub fn fairness_of(flows: &[FlowSummary]) -> Fairness {
    let goodputs: Vec<f64> = flows.iter().map(|f| f.goodput_bps).collect();
    Fairness { index: jain_index(&goodputs), flows: flows.iter().map(|f| f.name.clone()).collect() }
}

/// Jain's index over the named flows of a run summary (goodput). An unknown name is an error
/// that lists the flows the summary has.
pub fn fairness(summary: &Summary, names: &[&str]) -> Result<Fairness, String> {
    let mut chosen = Vec::with_capacity(names.len());
    for &name in names {
        match summary.flows.iter().find(|f| f.name == name) {
            Some(f) => chosen.push(f.clone()),
            None => {
                let known: Vec<&str> = summary.flows.iter().map(|f| f.name.as_str()).collect();
                return Err(format!("no flow named {name:?}; the run has: {}", known.join(", ")));
            }
        }
    }
    Ok(fairness_of(&chosen))
}

/// Per congestion control (as named in the scenario): flow count, mean and total goodput, and
/// Jain's index among its flows.
pub fn per_cc(flows: &[FlowSummary]) -> BTreeMap<String, CcShare> {
    let mut groups: BTreeMap<String, JainAccumulator> = BTreeMap::new();
    for f in flows {
        groups.entry(f.cc.clone()).or_default().add(f.goodput_bps);
    }
    groups
        .into_iter()
        .map(|(cc, acc)| {
            let share = CcShare {
                flows: acc.count() as usize,
                mean_goodput_bps: acc.mean().unwrap_or(0.0),
                total_goodput_bps: acc.sum(),
                fairness_index: acc.index(),
            };
            (cc, share)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn equal_shares_give_one() {
        assert!(close(jain_index(&[2.5e6; 7]).unwrap(), 1.0));
        assert!(close(jain_index(&[0.0, 0.0]).unwrap(), 1.0));
        assert!(close(jain_index(&[3.0]).unwrap(), 1.0));
    }

    #[test]
    fn one_flow_hogging_gives_one_over_n() {
        for n in 1..10 {
            let mut xs = vec![0.0; n];
            xs[n / 2] = 1.5e6;
            assert!(close(jain_index(&xs).unwrap(), 1.0 / n as f64), "n = {n}");
        }
    }

    #[test]
    fn worked_example() {
        // (1 + 2 + 3 + 4)² / (4 · (1 + 4 + 9 + 16)) = 100 / 120.
        assert!(close(jain_index(&[1.0, 2.0, 3.0, 4.0]).unwrap(), 100.0 / 120.0));
        // Seed 000 §4.3: 10 TCPW at 0.1078 Mbps and 10 Reno at 0.0913 Mbps.
        let mut mix = vec![0.1078; 10];
        mix.extend([0.0913; 10]);
        let expected =
            (10.0f64 * (0.1078 + 0.0913)).powi(2) / (20.0 * 10.0 * (0.1078f64.powi(2) + 0.0913f64.powi(2)));
        assert!(close(jain_index(&mix).unwrap(), expected));
        assert!(expected > 0.99 && expected < 1.0);
        assert_eq!(jain_index(&[]), None);
        // Scale-free.
        assert!(close(jain_index(&[1.0, 3.0]).unwrap(), jain_index(&[1e6, 3e6]).unwrap()));
    }

    fn flow(name: &str, cc: &str, goodput_bps: f64) -> FlowSummary {
        FlowSummary { name: name.into(), cc: cc.into(), goodput_bps, ..FlowSummary::default() }
    }

    #[test]
    fn per_cc_means_and_subset_fairness() {
        let flows = vec![flow("a", "reno", 1e6), flow("b", "westwood", 3e6), flow("c", "reno", 2e6)];
        let shares = per_cc(&flows);
        assert_eq!(shares.len(), 2);
        assert_eq!(shares["reno"].flows, 2);
        assert!(close(shares["reno"].mean_goodput_bps, 1.5e6));
        assert!(close(shares["reno"].total_goodput_bps, 3e6));
        assert!(close(shares["westwood"].fairness_index.unwrap(), 1.0));
        let all = fairness_of(&flows);
        assert!(close(all.index.unwrap(), 36.0 / (3.0 * 14.0)));
        let summary = Summary { flows, ..Summary::default() };
        let sub = fairness(&summary, &["a", "c"]).unwrap();
        assert_eq!(sub.flows, vec!["a", "c"]);
        assert!(close(sub.index.unwrap(), 9.0 / (2.0 * 5.0)));
        assert!(fairness(&summary, &["z"]).unwrap_err().contains("a, b, c"));
    }
}
