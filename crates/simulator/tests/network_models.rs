//! RED queues and the Gilbert-Elliott / outage channel models inside whole simulations.

mod common;

use common::*;
use westwood_simulator::model::{
    ErrorSpec, QueueLimit, QueueSpec, RedSpec, Scenario, SourceKind, SourceSpec,
};
use westwood_simulator::network::loss::gilbert_elliott::{self, GilbertElliottSpec};
use westwood_simulator::network::loss::outage::{self, OutageOffset, OutageSpec};
use westwood_simulator::results::{LinkSeries, LinkSummary, RunResult};
use westwood_simulator::tcp::Recovery;
use westwood_simulator::{run, RunOptions};

const BOTTLENECK: usize = 2; // index of "bottleneck" (forward half) in Line::scenario()

fn simulate(scenario: &Scenario) -> RunResult {
    match run(scenario, RunOptions { record_series: true, check_invariants: true }) {
        Ok(result) => result,
        Err(e) => panic!("run failed: {e}"),
    }
}

fn link<'a>(result: &'a RunResult, name: &str) -> &'a LinkSummary {
    result.summary.links.iter().find(|l| l.name == name).unwrap()
}

/// Rows of the link series for `name` from `after` seconds on: (queue, RED average).
fn series(s: &LinkSeries, name: &str, after: f64) -> Vec<(f64, f64)> {
    (0..s.time_seconds.len())
        .filter(|&i| s.link[i] == name && s.time_seconds[i] >= after)
        .map(|i| (s.queue_packets[i] as f64, s.queue_avg_packets[i]))
        .collect()
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = xs.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    sum / n as f64
}

/// Eight NewReno flows over a 2 Mb/s, 20 ms bottleneck whose forward queue is `queue`.
fn eight_flows(queue: QueueSpec) -> Scenario {
    let line = Line {
        bottleneck_bps: 2_000_000,
        bottleneck_delay: 20 * MS,
        recovery: Recovery::NewReno,
        flows: 8,
        duration: 60 * SECOND,
        ..Line::default()
    };
    let mut scenario = line.scenario();
    scenario.links[BOTTLENECK].queue = queue;
    scenario
}

#[test]
fn red_keeps_the_average_queue_between_the_thresholds() {
    let limit = QueueLimit::Packets(100);
    let red = simulate(&eight_flows(QueueSpec::Red(RedSpec::with_limit(limit))));
    let tail = simulate(&eight_flows(QueueSpec::DropTail(limit)));
    let rows = series(red.link_series.as_ref().unwrap(), "bottleneck", 10.0);
    let avg = mean(rows.iter().map(|r| r.1));
    let queue = mean(rows.iter().map(|r| r.0));
    let within = rows.iter().filter(|r| (5.0..=15.0).contains(&r.1)).count() as f64 / rows.len() as f64;
    let tail_queue = mean(series(tail.link_series.as_ref().unwrap(), "bottleneck", 10.0).iter().map(|r| r.0));
    let b = link(&red, "bottleneck");
    eprintln!(
        "RED: mean avg {avg:.2}, mean queue {queue:.2}, {:.0}% of samples in [5, 15], drops red {} overflow {}, \
         utilization {:.3}; drop-tail mean queue {tail_queue:.2}",
        within * 100.0,
        b.drops_red,
        b.drops_overflow,
        b.utilization
    );
    assert!((5.0..=15.0).contains(&avg), "time-averaged RED average {avg}");
    assert!(within > 0.9, "only {within} of the samples have the average in [min_th, max_th]");
    assert!(b.drops_red > 0 && b.queue_type == "red");
    // The drop-tail queue of the same size fills up; RED holds it far lower, at full utilisation.
    assert!(queue < 0.5 * tail_queue, "RED queue {queue} vs drop-tail {tail_queue}");
    assert!(b.utilization > 0.9, "utilization {}", b.utilization);
    // Drop-tail links report no RED average and no early drops.
    assert!(tail.link_series.as_ref().unwrap().queue_avg_packets.iter().all(|x| x.is_nan()));
    assert_eq!(link(&tail, "bottleneck").drops_red, 0);
    assert_eq!(link(&tail, "bottleneck").queue_type, "droptail");
}

#[test]
fn per_cause_drop_counters_add_up_to_all_losses() {
    // RED with a small hard limit (overflow and early drops), and on the same link a periodic
    // outage plus a Gilbert-Elliott channel (outage and error losses) on the data direction only.
    // The flows stop sending new data at 40 s; by 120 s everything has been delivered, so every
    // data packet sent either reached its receiver or was dropped on the bottleneck.
    let mut scenario = eight_flows(QueueSpec::Red(RedSpec::with_limit(QueueLimit::Packets(20))));
    scenario.duration = 120 * SECOND;
    for flow in &mut scenario.flows {
        flow.stop = Some(40 * SECOND);
    }
    scenario.links[BOTTLENECK].errors = Some(ErrorSpec {
        models: vec![
            outage::setting(OutageSpec {
                period: 4 * SECOND,
                duration: 100 * MS,
                offset: OutageOffset::At(2 * SECOND),
            }),
            gilbert_elliott::setting(GilbertElliottSpec {
                mean_good: 8 * SECOND,
                mean_bad: 4 * SECOND,
                loss_good: 0.001,
                loss_bad: 0.05,
                start_stationary: false,
            }),
        ],
    });
    let result = simulate(&scenario);
    let summary = &result.summary;
    let packet = 1040.0; // every data packet is a full segment plus headers
    let mut sent = 0u64;
    for f in &summary.flows {
        // Counted up to the flow's stop (goodput and throughput cover its active time only).
        let wire_bytes = f.throughput_bps * f.active_seconds / 8.0;
        assert!((wire_bytes / packet - (wire_bytes / packet).round()).abs() < 1e-6);
        sent += f.segments_sent;
        assert_eq!(f.bytes_delivered % 1000, 0);
    }
    let b = link(&result, "bottleneck");
    // Data packets that left the bottleneck's far end towards the receivers (the bottleneck's
    // data direction carries no ACKs; channel and outage losses strike as packets arrive).
    let received = b.packets_sent - b.drops_error - b.drops_outage;
    let access = link(&result, "access");
    eprintln!(
        "sent {sent}, received {received}; bottleneck overflow {} red {} error {} outage {}",
        b.drops_overflow, b.drops_red, b.drops_error, b.drops_outage
    );
    assert_eq!(
        (access.drops_overflow, access.drops_red, access.drops_error, access.drops_outage),
        (0, 0, 0, 0)
    );
    assert_eq!(sent - received, b.drops_overflow + b.drops_red + b.drops_error + b.drops_outage);
    assert!(b.drops_overflow > 0 && b.drops_red > 0 && b.drops_error > 0 && b.drops_outage > 0);
    // The ACK direction has neither the outage nor the channel errors.
    let back = link(&result, "bottleneck.reverse");
    assert_eq!((back.drops_error, back.drops_outage), (0, 0));

    // The time series carries the same counts, cumulatively.
    let s = result.link_series.as_ref().unwrap();
    let rows: Vec<usize> = (0..s.link.len()).filter(|&i| s.link[i] == "bottleneck").collect();
    let last = *rows.last().unwrap();
    assert_eq!(
        (s.drops_overflow[last], s.drops_red[last], s.drops_error[last], s.drops_outage[last]),
        (b.drops_overflow, b.drops_red, b.drops_error, b.drops_outage)
    );
    for column in [&s.drops_overflow, &s.drops_red, &s.drops_error, &s.drops_outage] {
        assert!(rows.windows(2).all(|w| column[w[0]] <= column[w[1]]), "cumulative counts never decrease");
    }
    // Outage losses only grow across outage windows: [2 s + 4k s, 2.1 s + 4k s) plus propagation.
    for w in rows.windows(2) {
        if s.drops_outage[w[1]] > s.drops_outage[w[0]] {
            let t = s.time_seconds[w[1]];
            let phase = (t - 2.0).rem_euclid(4.0);
            assert!(phase > 0.0 && phase <= 0.1 + 0.1 + 1e-9, "outage drops grew before t = {t}");
        }
    }
}

#[test]
fn an_outage_loses_exactly_the_packets_arriving_inside_its_windows() {
    // One 1 Mb/s CBR source (a 1000-byte packet every 8 ms from t = 0) over the line, no TCP, so
    // nothing queues: a packet sent at t reaches the far end of the bottleneck at
    // t + 8 us (access transmission at 1 Gb/s) + 1 ms + 4 ms (transmission at 2 Mb/s) + 20 ms.
    // Outages of 96 ms every 4 s from 49.008 ms: a window opens exactly when packet 3 arrives
    // and closes exactly when packet 15 arrives, so each window loses packets 3..=14 of its
    // cycle (half-open windows).
    let mut scenario = eight_flows(QueueSpec::DropTail(QueueLimit::Packets(1000)));
    scenario.duration = 30 * SECOND;
    scenario.flows.clear();
    scenario.sources.push(SourceSpec {
        name: "cbr".into(),
        src: 0,
        dst: 2,
        kind: SourceKind::Cbr { rate_bps: 1_000_000, packet_size: 1000, on: vec![(0, scenario.duration)] },
    });
    let latency = 8_000 + MS + 4 * MS + 20 * MS;
    let (period, duration, offset) = (4 * SECOND, 96 * MS, latency + 3 * 8 * MS);
    scenario.links[BOTTLENECK].errors = Some(ErrorSpec::one(outage::setting(OutageSpec {
        period,
        duration,
        offset: OutageOffset::At(offset),
    })));
    let result = simulate(&scenario);
    let cbr = &result.summary.sources[0];
    let (mut lost, mut in_flight, mut per_window) = (0u64, 0u64, std::collections::BTreeMap::new());
    for k in 0..cbr.packets_sent {
        let arrival = k * 8 * MS + latency;
        if arrival > scenario.duration {
            in_flight += 1;
        } else if arrival >= offset && (arrival - offset) % period < duration {
            lost += 1;
            *per_window.entry((arrival - offset) / period).or_insert(0u64) += 1;
        }
    }
    assert_eq!(cbr.packets_sent, 3750);
    assert!(per_window.len() == 8 && per_window.values().all(|&n| n == 12), "{per_window:?}");
    let b = link(&result, "bottleneck");
    assert_eq!(b.drops_outage, lost);
    assert_eq!((b.drops_error, b.drops_red, b.drops_overflow), (0, 0, 0));
    assert_eq!(cbr.packets_received, cbr.packets_sent - lost - in_flight);
}
