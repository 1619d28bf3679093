//! Finite TCP transfers arriving during the run (seed 002 §IV-B: "connections arrive with an
//! interval of 2 seconds and last for 180 seconds. The interval and duration of the connections
//! are exponentially distributed").
//!
//! Each `[flows.NAME] arrivals = {...}` table is a Poisson process of flows over `[start, stop)`:
//! inter-arrival times and flow durations are exponential with the given means, and with
//! `among` each flow picks a sender uniformly among the nodes and a different receiver
//! uniformly among the rest. All of a table's draws come from its own stream,
//! `RngStream::new(seed, "flows:NAME")`, in a fixed order per arrival (duration, sender,
//! receiver, next inter-arrival time), so a table's flows do not depend on anything else in the
//! scenario.
//!
//! A generated flow is a bulk sender and a receiver like any other, created when it arrives and
//! closed when its time is up: then its sender and receiver are freed (packets still in flight
//! are dropped when they reach a closed endpoint, as after a reset) and its numbers are added to
//! its table's aggregate. Memory is thus bounded by the flows open at once, plus a few bytes per
//! flow ever created for the id-indexed tables. The summary reports one [`ArrivalsSummary`] per
//! table rather than one record per flow.

use std::collections::HashMap;

use crate::engine::rng::RngStream;
use crate::metrics::JainAccumulator;
use crate::model::{ArrivalEndpoints, ArrivalsSpec, Nanos, Scenario, NANOS_PER_SECOND};
use crate::results::ArrivalsSummary;
use crate::tcp::SenderStats;

/// A flow to create now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewFlow {
    /// Node indices.
    pub src: usize,
    pub dst: usize,
    /// When the flow closes (may lie past the end of the run).
    pub stop: Nanos,
}

#[derive(Debug)]
struct TableState {
    rng: RngStream,
    started: u64,
    completed: u64,
    active_at_end: u64,
    goodput: JainAccumulator,
    min_goodput: f64,
    max_goodput: f64,
    bytes_delivered: u64,
    stats: SenderStats,
    paths: u64,
    /// The longest stall of any closed flow.
    longest_stall: Nanos,
}

#[derive(Debug, Clone, Copy)]
struct OpenFlow {
    table: u32,
    start: Nanos,
}

/// The arrival processes of a run and the aggregates of their flows.
#[derive(Debug)]
pub struct Arrivals {
    tables: Vec<TableState>,
    open: HashMap<u32, OpenFlow>,
}

fn exponential(rng: &mut RngStream, mean: Nanos) -> Nanos {
    rng.exponential(mean as f64).round() as Nanos
}

impl Arrivals {
    pub fn new(scenario: &Scenario) -> Self {
        let tables = scenario
            .arrivals
            .iter()
            .map(|spec| TableState {
                rng: RngStream::new(scenario.seed, &format!("flows:{}", spec.name)),
                started: 0,
                completed: 0,
                active_at_end: 0,
                goodput: JainAccumulator::default(),
                min_goodput: f64::INFINITY,
                max_goodput: 0.0,
                bytes_delivered: 0,
                stats: SenderStats::default(),
                paths: 0,
                longest_stall: 0,
            })
            .collect();
        Arrivals { tables, open: HashMap::new() }
    }

    /// When table `table` next creates a flow after `now`, if it does before its stop and the
    /// end of the run.
    fn next_after(&mut self, spec: &ArrivalsSpec, table: u32, now: Nanos, end: Nanos) -> Option<Nanos> {
        let state = &mut self.tables[table as usize];
        if state.started >= spec.max_flows {
            return None;
        }
        let at = now.saturating_add(exponential(&mut state.rng, spec.mean_interarrival));
        (at < spec.stop.unwrap_or(Nanos::MAX).min(end)).then_some(at)
    }

    /// The first arrival of table `table`.
    pub fn first(&mut self, spec: &ArrivalsSpec, table: u32, end: Nanos) -> Option<Nanos> {
        self.next_after(spec, table, spec.start, end)
    }

    /// A flow of table `table` arrives at `now`: draw it, and when the next one comes.
    pub fn arrive(
        &mut self,
        spec: &ArrivalsSpec,
        table: u32,
        now: Nanos,
        end: Nanos,
    ) -> (NewFlow, Option<Nanos>) {
        let state = &mut self.tables[table as usize];
        state.started += 1;
        let rng = &mut state.rng;
        let duration = exponential(rng, spec.mean_duration).max(1);
        let (src, dst) = match &spec.endpoints {
            ArrivalEndpoints::Fixed { src, dst } => (*src, *dst),
            ArrivalEndpoints::Among(nodes) => {
                let n = nodes.len();
                let a = pick(rng, n);
                // A different receiver, uniformly among the other n - 1.
                let b = (a + 1 + pick(rng, n - 1)) % n;
                (nodes[a], nodes[b])
            }
        };
        let flow = NewFlow { src, dst, stop: now.saturating_add(duration) };
        let next = self.next_after(spec, table, now, end);
        (flow, next)
    }

    /// Flows table `table` has created so far (the last one's number in it, from 1).
    pub fn started(&self, table: u32) -> u64 {
        self.tables[table as usize].started
    }

    /// A generated flow `flow` of `table` was created at `start` and uses `paths` paths.
    pub fn opened(&mut self, flow: u32, table: u32, start: Nanos, paths: usize) {
        self.open.insert(flow, OpenFlow { table, start });
        self.tables[table as usize].paths += paths as u64;
    }

    /// A generated flow closes at `now` (`at_end`: because the run ended) with these counters and
    /// its longest stall (`crate::stall`).
    pub fn closed(
        &mut self,
        flow: u32,
        now: Nanos,
        at_end: bool,
        bytes_delivered: u64,
        stats: SenderStats,
        longest_stall: Nanos,
    ) {
        let Some(open) = self.open.remove(&flow) else { return };
        let t = &mut self.tables[open.table as usize];
        if at_end {
            t.active_at_end += 1;
        } else {
            t.completed += 1;
        }
        let active = now.saturating_sub(open.start);
        if active > 0 {
            let goodput = bytes_delivered as f64 * 8.0 * NANOS_PER_SECOND as f64 / active as f64;
            t.goodput.add(goodput);
            t.min_goodput = t.min_goodput.min(goodput);
            t.max_goodput = t.max_goodput.max(goodput);
        }
        t.bytes_delivered += bytes_delivered;
        t.stats.segments_sent += stats.segments_sent;
        t.stats.retransmits += stats.retransmits;
        t.stats.timeouts += stats.timeouts;
        t.stats.fast_retransmits += stats.fast_retransmits;
        t.longest_stall = t.longest_stall.max(longest_stall);
    }

    /// Flows still open, in id order (to close them at the end of the run).
    pub fn open_flows(&self) -> Vec<u32> {
        let mut ids: Vec<u32> = self.open.keys().copied().collect();
        ids.sort_unstable();
        ids
    }

    pub fn summaries(&self, scenario: &Scenario) -> Vec<ArrivalsSummary> {
        let seconds = |ns: Nanos| ns as f64 / NANOS_PER_SECOND as f64;
        scenario
            .arrivals
            .iter()
            .zip(&self.tables)
            .map(|(spec, t)| ArrivalsSummary {
                name: spec.name.clone(),
                cc: spec.tcp.cc_name.clone(),
                mean_interarrival_seconds: seconds(spec.mean_interarrival),
                mean_duration_seconds: seconds(spec.mean_duration),
                flows_started: t.started,
                flows_completed: t.completed,
                flows_active_at_end: t.active_at_end,
                mean_goodput_bps: t.goodput.mean().unwrap_or(0.0),
                min_goodput_bps: if t.goodput.count() > 0 { t.min_goodput } else { 0.0 },
                max_goodput_bps: t.max_goodput,
                fairness_index: t.goodput.index(),
                bytes_delivered: t.bytes_delivered,
                segments_sent: t.stats.segments_sent,
                retransmits: t.stats.retransmits,
                timeouts: t.stats.timeouts,
                fast_retransmits: t.stats.fast_retransmits,
                mean_paths: if t.started > 0 { t.paths as f64 / t.started as f64 } else { 0.0 },
                longest_stall_seconds: seconds(t.longest_stall),
            })
            .collect()
    }
}

/// Uniform in `0..n` (n ≥ 1).
fn pick(rng: &mut RngStream, n: usize) -> usize {
    ((rng.next_f64() * n as f64) as usize).min(n - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;

    fn scenario(arrivals: &str) -> Scenario {
        load_str(
            &format!(
                "[scenario]\nduration = \"1000s\"\nseed = 3\n[topology]\nnodes = [\"a\", \"b\", \"c\", \"d\"]\n\
                 [flows.web]\namong = [\"a\", \"b\", \"c\", \"d\"]\narrivals = {{ {arrivals} }}\n"
            ),
            "t.toml",
            &[],
        )
        .unwrap()
    }

    #[test]
    fn arrivals_are_poisson_with_exponential_durations_and_distinct_uniform_pairs() {
        let s = scenario("mean_interarrival = \"2s\", mean_duration = \"10s\"");
        let spec = &s.arrivals[0];
        let end = s.duration;
        let mut arrivals = Arrivals::new(&s);
        let mut next = arrivals.first(spec, 0, end);
        let mut times = Vec::new();
        let mut durations = Vec::new();
        let mut pairs = HashMap::new();
        while let Some(now) = next {
            let (flow, after) = arrivals.arrive(spec, 0, now, end);
            assert_ne!(flow.src, flow.dst);
            *pairs.entry((flow.src, flow.dst)).or_insert(0u32) += 1;
            times.push(now);
            durations.push(flow.stop - now);
            next = after;
        }
        // ~500 arrivals in 1000 s at one per 2 s: the count is Poisson(500), sd ~22.
        let n = times.len() as f64;
        assert!((n - 500.0).abs() < 5.0 * 22.4, "{n} arrivals");
        let mean_duration = durations.iter().sum::<u64>() as f64 / n / 1e9;
        assert!((mean_duration - 10.0).abs() < 5.0 * 10.0 / n.sqrt(), "mean duration {mean_duration}");
        // All 12 ordered pairs occur, each about n/12 times.
        assert_eq!(pairs.len(), 12);
        assert!(pairs.values().all(|&c| (c as f64 - n / 12.0).abs() < 5.0 * (n / 12.0).sqrt()), "{pairs:?}");
        // The same seed draws the same flows.
        let mut again = Arrivals::new(&s);
        assert_eq!(again.first(spec, 0, end), Some(times[0]));
    }

    #[test]
    fn max_flows_and_stop_end_the_process() {
        let s = scenario("mean_interarrival = \"1s\", mean_duration = \"1s\", max_flows = 3");
        let spec = &s.arrivals[0];
        let mut arrivals = Arrivals::new(&s);
        let mut next = arrivals.first(spec, 0, s.duration);
        let mut count = 0;
        while let Some(now) = next {
            next = arrivals.arrive(spec, 0, now, s.duration).1;
            count += 1;
        }
        assert_eq!(count, 3);
    }

    #[test]
    fn closing_flows_aggregates_goodput_and_fairness() {
        let s = scenario("mean_interarrival = \"2s\", mean_duration = \"10s\"");
        let mut arrivals = Arrivals::new(&s);
        let stats =
            SenderStats { segments_sent: 10, retransmits: 1, fast_retransmits: 1, ..SenderStats::default() };
        arrivals.opened(7, 0, 0, 1);
        arrivals.opened(9, 0, 1_000_000_000, 4);
        // 1 MB over 8 s = 1 Mbps; 3 MB over 4 s = 6 Mbps.
        arrivals.closed(7, 8_000_000_000, false, 1_000_000, stats, 2_000_000_000);
        arrivals.closed(9, 5_000_000_000, true, 3_000_000, stats, 500_000_000);
        assert_eq!(arrivals.open_flows(), Vec::<u32>::new());
        let sum = &arrivals.summaries(&s)[0];
        assert_eq!((sum.flows_completed, sum.flows_active_at_end), (1, 1));
        assert!((sum.mean_goodput_bps - 3.5e6).abs() < 1e-6);
        assert_eq!((sum.min_goodput_bps, sum.max_goodput_bps), (1e6, 6e6));
        assert!((sum.fairness_index.unwrap() - 49.0 / (2.0 * 37.0)).abs() < 1e-12);
        assert_eq!((sum.bytes_delivered, sum.retransmits, sum.segments_sent), (4_000_000, 2, 20));
        assert_eq!(sum.longest_stall_seconds, 2.0, "the longest of its flows' stalls");
    }
}
