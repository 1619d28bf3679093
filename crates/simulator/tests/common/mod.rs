//! Scenario builders shared by the integration tests: scenarios made in code, so the tests do not
//! depend on the TOML front end.
#![allow(dead_code)]

use westwood_algorithms::WindowGrowth;

use westwood_simulator::model::*;
use westwood_simulator::network::loss::bernoulli;
use westwood_simulator::tcp::Recovery;

pub const MS: Nanos = 1_000_000;
pub const SECOND: Nanos = 1_000_000_000;

/// A three-node line `src -> router -> dst`: a fast access link and a bottleneck, both duplex,
/// with optional Bernoulli errors on the bottleneck's data direction.
pub struct Line {
    pub bottleneck_bps: u64,
    pub bottleneck_delay: Nanos,
    pub access_delay: Nanos,
    pub queue: QueueLimit,
    pub data_loss: f64,
    pub ack_loss: f64,
    pub cc_name: &'static str,
    pub cc: CcSpec,
    pub recovery: Recovery,
    pub segment_size: u64,
    pub delayed_ack: bool,
    pub window_growth: WindowGrowth,
    pub limited_transmit: bool,
    pub receiver_window: u64,
    pub duration: Nanos,
    pub seed: u64,
    pub flows: usize,
    pub stop: Option<Nanos>,
}

impl Default for Line {
    fn default() -> Self {
        Line {
            bottleneck_bps: 2_000_000,
            bottleneck_delay: 45 * MS,
            access_delay: MS,
            queue: QueueLimit::BandwidthDelayProduct { rtt: None, min: 1 },
            data_loss: 0.0,
            ack_loss: 0.0,
            cc_name: "reno",
            cc: CcSpec::named("reno"),
            recovery: Recovery::Reno,
            segment_size: 1000,
            delayed_ack: true,
            window_growth: WindowGrowth::PerAck,
            limited_transmit: false,
            receiver_window: 10_000_000,
            duration: 60 * SECOND,
            seed: 1,
            flows: 1,
            stop: None,
        }
    }
}

pub fn tcp(line: &Line) -> TcpSpec {
    TcpSpec {
        cc_name: line.cc_name.to_string(),
        receiver_window: line.receiver_window,
        delayed_ack: DelayedAckSpec { enabled: line.delayed_ack, ..DelayedAckSpec::default() },
        window_growth: line.window_growth,
        limited_transmit: line.limited_transmit,
        ..TcpSpec::defaults(line.cc.clone(), line.recovery, line.segment_size)
    }
}

fn link(
    name: &str,
    from: usize,
    to: usize,
    rate_bps: u64,
    delay: Nanos,
    queue: QueueLimit,
    loss: f64,
) -> LinkSpec {
    LinkSpec {
        name: name.to_string(),
        from,
        to,
        rate_bps,
        delay,
        delay_variation: 0,
        queue: QueueSpec::DropTail(queue),
        errors: (loss > 0.0).then_some(ErrorSpec::one(bernoulli::setting(loss))),
    }
}

impl Line {
    pub fn scenario(&self) -> Scenario {
        let fast = 1_000_000_000;
        let big = QueueLimit::Packets(10_000);
        Scenario {
            name: "line".into(),
            source: "line (built in code)".into(),
            description: String::new(),
            duration: self.duration,
            seed: self.seed,
            parameters: vec![],
            nodes: ["src", "router", "dst"].iter().map(|n| NodeSpec { name: n.to_string() }).collect(),
            links: vec![
                link("access", 0, 1, fast, self.access_delay, big, 0.0),
                link("access.reverse", 1, 0, fast, self.access_delay, big, 0.0),
                link(
                    "bottleneck",
                    1,
                    2,
                    self.bottleneck_bps,
                    self.bottleneck_delay,
                    self.queue,
                    self.data_loss,
                ),
                link(
                    "bottleneck.reverse",
                    2,
                    1,
                    self.bottleneck_bps,
                    self.bottleneck_delay,
                    self.queue,
                    self.ack_loss,
                ),
            ],
            sources: vec![],
            arrivals: vec![],
            flows: (0..self.flows)
                .map(|i| FlowSpec {
                    name: format!("ftp.{i}"),
                    src: 0,
                    dst: 2,
                    start: FlowStart::At(i as Nanos * 100 * MS),
                    stop: self.stop,
                    tcp: tcp(self),
                    multipath: None,
                })
                .collect(),
            sample_interval: 100 * MS,
        }
    }

    /// Round-trip propagation delay, seconds.
    pub fn rtt_seconds(&self) -> f64 {
        2.0 * (self.bottleneck_delay + self.access_delay) as f64 / SECOND as f64
    }
}
