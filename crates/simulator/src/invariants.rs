//! Run-time checks of TCP invariants, enabled in tests on every simulated flow.
//!
//! * every byte reaches the application exactly once and in order, and only bytes that were sent;
//! * the congestion window never drops below one segment;
//! * sequence numbers only move forward (snd_una, snd_max, cumulative ACKs);
//! * with SACK, the blocks received cover only data that was sent, and the scoreboard and `pipe`
//!   stay consistent ([`Sender::check_sack_state`]);
//! * with a random send overhead, every data segment leaves its node no earlier than it was
//!   emitted and at most `overhead` later, and a flow's segments leave in the order they were
//!   emitted.

use crate::tcp::Sender;

#[derive(Debug, Default, Clone, Copy)]
struct FlowState {
    delivered_to: u64,
    snd_una: u64,
    snd_max: u64,
    last_ack: u64,
    /// When the flow's last segment held by its send overhead left.
    last_release: u64,
}

#[derive(Debug)]
pub struct InvariantMonitor {
    flows: Vec<FlowState>,
    violation: Option<String>,
}

impl InvariantMonitor {
    pub fn new(flows: usize) -> Self {
        InvariantMonitor { flows: vec![FlowState::default(); flows], violation: None }
    }

    /// Watch one more flow (a flow created during the run gets the next id).
    pub fn add_flow(&mut self) {
        self.flows.push(FlowState::default());
    }

    pub fn violation(&self) -> Option<&str> {
        self.violation.as_deref()
    }

    fn fail(&mut self, message: String) {
        if self.violation.is_none() {
            self.violation = Some(message);
        }
    }

    pub fn on_delivery(&mut self, flow: u32, from: u64, to: u64, sent_up_to: u64) {
        let state = &mut self.flows[flow as usize];
        if from != state.delivered_to {
            let expected = state.delivered_to;
            self.fail(format!(
                "flow {flow}: delivered bytes from {from}, expected {expected} (gap or duplicate)"
            ));
        } else if to <= from {
            self.fail(format!("flow {flow}: empty or backwards delivery [{from}, {to})"));
        } else if to > sent_up_to {
            self.fail(format!(
                "flow {flow}: delivered up to {to} but only {sent_up_to} bytes were ever sent"
            ));
        } else {
            state.delivered_to = to;
        }
    }

    pub fn on_ack(&mut self, flow: u32, ack: u64, sender: &Sender) {
        let state = &mut self.flows[flow as usize];
        if ack > sender.snd_max() {
            self.fail(format!("flow {flow}: ACK {ack} beyond snd_max {}", sender.snd_max()));
        } else if ack > state.delivered_to {
            let delivered = state.delivered_to;
            self.fail(format!(
                "flow {flow}: ACK {ack} acknowledges bytes never delivered (delivered {delivered})"
            ));
        }
        let state = &mut self.flows[flow as usize];
        state.last_ack = state.last_ack.max(ack);
    }

    /// Flow `flow`'s data segment `seq`, emitted at `emitted`, left its node at `departed`
    /// under a send overhead of at most `max` ns. (Held segments are released first in, first
    /// out, so a release earlier than the one before it would be one out of order.)
    pub fn on_release(&mut self, flow: u32, seq: u64, emitted: u64, departed: u64, max: u64) {
        let state = &mut self.flows[flow as usize];
        let previous = std::mem::replace(&mut state.last_release, departed);
        if departed < emitted || departed - emitted > max {
            self.fail(format!(
                "flow {flow}: segment {seq} emitted at {emitted} ns left at {departed} ns, outside the \
                 send overhead's [0, {max}] ns"
            ));
        } else if departed < previous {
            self.fail(format!(
                "flow {flow}: segment {seq} left at {departed} ns, before the segment emitted before it \
                 ({previous} ns)"
            ));
        }
    }

    pub fn on_sender(&mut self, flow: u32, sender: &Sender) {
        let state = self.flows[flow as usize];
        if sender.cwnd() < sender.mss() {
            self.fail(format!("flow {flow}: cwnd {} below one segment ({})", sender.cwnd(), sender.mss()));
        }
        if let Err(problem) = sender.check_sack_state() {
            self.fail(format!("flow {flow}: {problem}"));
        }
        if sender.snd_una() < state.snd_una || sender.snd_max() < state.snd_max {
            self.fail(format!(
                "flow {flow}: sequence numbers moved backwards (snd_una {} -> {}, snd_max {} -> {})",
                state.snd_una,
                sender.snd_una(),
                state.snd_max,
                sender.snd_max()
            ));
        }
        if sender.snd_una() > sender.snd_max() {
            self.fail(format!(
                "flow {flow}: snd_una {} beyond snd_max {}",
                sender.snd_una(),
                sender.snd_max()
            ));
        }
        let state = &mut self.flows[flow as usize];
        state.snd_una = sender.snd_una();
        state.snd_max = sender.snd_max();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_gaps_duplicates_and_unsent_bytes() {
        let mut monitor = InvariantMonitor::new(1);
        monitor.on_delivery(0, 0, 1000, 5000);
        monitor.on_delivery(0, 1000, 3000, 5000);
        assert_eq!(monitor.violation(), None);
        monitor.on_delivery(0, 2000, 4000, 5000);
        assert!(monitor.violation().unwrap().contains("duplicate"));

        let mut gap = InvariantMonitor::new(1);
        gap.on_delivery(0, 1000, 2000, 5000);
        assert!(gap.violation().is_some());

        let mut unsent = InvariantMonitor::new(1);
        unsent.on_delivery(0, 0, 6000, 5000);
        assert!(unsent.violation().unwrap().contains("were ever sent"));
    }

    #[test]
    fn detects_releases_outside_the_overhead_or_out_of_order() {
        let mut ok = InvariantMonitor::new(1);
        ok.on_release(0, 0, 100, 100, 50);
        ok.on_release(0, 1000, 110, 160, 50);
        ok.on_release(0, 2000, 120, 160, 50);
        assert_eq!(ok.violation(), None);

        let mut late = InvariantMonitor::new(1);
        late.on_release(0, 0, 100, 151, 50);
        assert!(late.violation().unwrap().contains("outside"));

        let mut early = InvariantMonitor::new(1);
        early.on_release(0, 0, 100, 99, 50);
        assert!(early.violation().unwrap().contains("outside"));

        let mut reordered = InvariantMonitor::new(1);
        reordered.on_release(0, 0, 100, 140, 50);
        reordered.on_release(0, 1000, 110, 130, 50);
        assert!(reordered.violation().unwrap().contains("before the segment emitted before it"));
    }
}
