//! Scenarios that defeat themselves: what a run says about them ([`Warning`]s in its summary).
//!
//! A simulated result judges a protocol only if the scenario lets the protocol matter. Two
//! mistakes make it judge the scenario instead, and both have produced verdicts before anyone
//! noticed:
//!
//! * **A `"bdp"` queue too small to buffer anything** ([`WarningKind::SmallBdpQueue`]). A
//!   bandwidth-delay product of a fast link on a short round trip can come out at a packet or
//!   two; every burst then overflows it, whatever the congestion control does. Found when the
//!   network is built.
//! * **A sender that loses most of what it sends at its own first hop**
//!   ([`WarningKind::FirstHopLoss`]): a CBR source faster than its access link's queue can
//!   absorb, say. The traffic the scenario meant to load the bottleneck with never reaches it.
//!   The simulator attributes each overflow drop at a link leaving a packet's origin node to
//!   the packet's flow or source (one comparison, on the drop path only) and compares the drops
//!   with what that origin sent, after the run.
//!
//! A strict run (`RunControl::strict`, `westwood run --strict`) refuses instead: before the run
//! for the first kind, after it (without results) for the second.

use crate::model::{Nanos, NANOS_PER_SECOND};
use crate::network::link::Capacity;
use crate::results::{Warning, WarningKind};

/// Fewest packets a `"bdp"` queue may resolve to before the scenario is told it has no buffer.
/// A queue that cannot hold the few packets a TCP sender puts back to back — the two segments a
/// delayed ACK releases (RFC 5681 §4.2) plus the extra one or two of slow-start growth per ACK
/// (RFC 5681 §3.1), so three or four at once — is no buffer at all: it drops bursts, not
/// excess load.
pub const MIN_BDP_QUEUE_PACKETS: u64 = 4;

/// `link`'s `"bdp"` queue came out at `packets` from `rate_bps` times `rtt`: a warning if
/// that is fewer than [`MIN_BDP_QUEUE_PACKETS`].
pub fn small_bdp_queue(link: &str, packets: u64, rate_bps: u64, rtt: Nanos) -> Option<Warning> {
    (packets < MIN_BDP_QUEUE_PACKETS).then(|| Warning {
        kind: WarningKind::SmallBdpQueue,
        link: Some(link.to_string()),
        origin: None,
        message: format!(
            "link '{link}': queue \"bdp\" came out at {} ({} x {} round trip): it cannot absorb a \
             burst; give the link a queue size (queue = 20) or queue = {{ limit = \"bdp\", rtt = \
             \"100ms\" }}",
            plural(packets, "packet"),
            rate_text(rate_bps),
            duration_text(rtt)
        ),
    })
}

/// Overflow drops of one flow's or source's packets at a link leaving its own node.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct FirstHopDrops {
    pub drops: u64,
    /// The link of the last such drop (a flow spread over several paths has several first
    /// hops; the one that drops is nearly always the same).
    pub link: u32,
}

impl FirstHopDrops {
    #[cold]
    pub fn add(&mut self, link: u32) {
        self.drops += 1;
        self.link = link;
    }
}

/// What sent the packets: a TCP flow or a CBR source, as messages name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin<'a> {
    Flow(&'a str),
    Source(&'a str),
}

/// Where an origin's first-hop drops happened: the link's name, its `from` node and its queue.
#[derive(Debug, Clone, Copy)]
pub struct FirstHop<'a> {
    pub link: &'a str,
    pub node: &'a str,
    pub queue: Capacity,
}

/// A warning if `origin` lost more than half of the `sent` packets to overflow at its first hop.
pub fn first_hop_loss(origin: Origin<'_>, sent: u64, drops: u64, hop: FirstHop<'_>) -> Option<Warning> {
    if sent == 0 || drops.saturating_mul(2) <= sent {
        return None;
    }
    let (what, name) = match origin {
        Origin::Flow(name) => ("flow", name),
        Origin::Source(name) => ("source", name),
    };
    let queue = match hop.queue {
        Capacity::Packets(n) => plural(n, "packet"),
        Capacity::Bytes(n) => plural(n, "byte"),
    };
    Some(Warning {
        kind: WarningKind::FirstHopLoss,
        link: Some(hop.link.to_string()),
        origin: Some(name.to_string()),
        message: format!(
            "{what} '{name}' lost {:.0}% of its {sent} packets to overflow at link '{}', the first hop \
             from its node '{}' (queue {queue}): the scenario defeats itself; give that link a \
             larger queue",
            // Never "100%" for a sender that got something through.
            (100.0 * drops as f64 / sent as f64).min(if drops < sent { 99.0 } else { 100.0 }),
            hop.link,
            hop.node,
        ),
    })
}

fn plural(n: u64, unit: &str) -> String {
    if n == 1 {
        format!("1 {unit}")
    } else {
        format!("{n} {unit}s")
    }
}

/// `2 Mbps`, `1.5 Mbps`, `64 kbps`, `10 Gbps`: as a scenario would write the rate.
fn rate_text(bps: u64) -> String {
    let (scale, unit) = match bps {
        b if b >= 1_000_000_000 => (1e9, "Gbps"),
        b if b >= 1_000_000 => (1e6, "Mbps"),
        b if b >= 1_000 => (1e3, "kbps"),
        _ => (1.0, "bps"),
    };
    format!("{} {unit}", trimmed(bps as f64 / scale))
}

/// `0.04 ms`, `91.02 ms`, `1.2 s`.
fn duration_text(ns: Nanos) -> String {
    if ns >= NANOS_PER_SECOND {
        format!("{} s", trimmed(ns as f64 / 1e9))
    } else {
        format!("{} ms", trimmed(ns as f64 / 1e6))
    }
}

/// At most three decimals, without trailing zeros.
fn trimmed(x: f64) -> String {
    let text = format!("{x:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bdp_queue_below_the_minimum_is_reported_with_its_numbers_and_the_fix() {
        let w = small_bdp_queue("wireless", 1, 2_000_000, 40_000).unwrap();
        assert_eq!(w.kind, WarningKind::SmallBdpQueue);
        assert_eq!((w.link.as_deref(), w.origin.as_deref()), (Some("wireless"), None));
        assert_eq!(
            w.message,
            "link 'wireless': queue \"bdp\" came out at 1 packet (2 Mbps x 0.04 ms round trip): it \
             cannot absorb a burst; give the link a queue size (queue = 20) or queue = { limit = \
             \"bdp\", rtt = \"100ms\" }"
        );
        assert!(small_bdp_queue("l", 3, 1_500_000, 1_200_000_000)
            .unwrap()
            .message
            .contains("3 packets (1.5 Mbps x 1.2 s"));
        assert_eq!(small_bdp_queue("l", MIN_BDP_QUEUE_PACKETS, 2_000_000, 40_000), None);
    }

    #[test]
    fn first_hop_loss_needs_more_than_half_of_what_was_sent() {
        let hop = FirstHop { link: "udp_access", node: "udp_src", queue: Capacity::Packets(1) };
        let w = first_hop_loss(Origin::Source("udp3"), 52_000, 50_440, hop).unwrap();
        assert_eq!(w.kind, WarningKind::FirstHopLoss);
        assert_eq!((w.link.as_deref(), w.origin.as_deref()), (Some("udp_access"), Some("udp3")));
        assert_eq!(
            w.message,
            "source 'udp3' lost 97% of its 52000 packets to overflow at link 'udp_access', the first \
             hop from its node 'udp_src' (queue 1 packet): the scenario defeats itself; give that \
             link a larger queue"
        );
        assert_eq!(first_hop_loss(Origin::Flow("ftp"), 1000, 500, hop), None, "half is not more than half");
        assert!(first_hop_loss(Origin::Flow("ftp"), 1000, 501, hop)
            .unwrap()
            .message
            .starts_with("flow 'ftp' lost 50%"));
        assert_eq!(first_hop_loss(Origin::Flow("ftp"), 0, 0, hop), None);
        let almost = first_hop_loss(Origin::Source("s"), 1000, 999, hop).unwrap();
        assert!(almost.message.contains("lost 99%"), "{}", almost.message);
        let bytes = FirstHop { queue: Capacity::Bytes(1500), ..hop };
        assert!(first_hop_loss(Origin::Source("s"), 10, 10, bytes)
            .unwrap()
            .message
            .contains("(queue 1500 bytes)"));
    }
}
