//! Whether the sender is using its whole window (`cwnd_validation`): Linux grows cwnd only
//! then, so a window that the receiver's window, the send buffer or the application held back
//! does not keep growing on every ACK (RFC 7661's concern; Linux's own rule).
//!
//! With `cwnd_validation = "none"` (the default; ns-2's agents and RFC 5681 as written grow on
//! every ACK of new data) the sender is always counted as window-limited. With `"linux"` it
//! follows net/ipv4/tcp_output.c and include/net/tcp.h (6.x):
//!
//! * after a send opportunity that sent something or found the window full,
//!   `tcp_cwnd_validate()` records, once per round trip (when `snd_una` has passed the
//!   `snd_nxt` of the last record, `cwnd_usage_seq`) or whenever the window was full, whether
//!   it was full (`is_cwnd_limited`: packets in flight at least cwnd) and how many packets were
//!   out (`max_packets_out`); in between it only raises `max_packets_out`;
//! * `tcp_is_cwnd_limited()`, asked by the control's `cong_avoid` on every ACK: the window was
//!   full in this round trip, or, in slow start, cwnd is below twice the most packets out in it
//!   ("ensure cwnd grows to twice what was ACKed").
//!
//! Not modelled: `tcp_cwnd_application_limited()` / `tcp_slow_start_after_idle` (the window
//! shrinking after an RTO's worth of idle or application-limited time): the simulator's flows
//! are bulk transfers, never idle.

use crate::model::CwndValidation;

/// Linux's record of how much of its window the sender used.
#[derive(Debug, Clone)]
pub struct WindowUse {
    rule: CwndValidation,
    /// `tp->is_cwnd_limited`.
    is_cwnd_limited: bool,
    /// `tp->max_packets_out`, segments.
    max_packets_out: u64,
    /// `tp->cwnd_usage_seq`: the record is renewed once `snd_una` reaches it.
    usage_seq: u64,
}

impl WindowUse {
    pub fn new(rule: CwndValidation) -> WindowUse {
        WindowUse { rule, is_cwnd_limited: false, max_packets_out: 0, usage_seq: 0 }
    }

    /// `tcp_cwnd_validate()`, after a send opportunity: `packets_out` segments sent and not
    /// acknowledged, `in_flight` of them counted in the network (Linux's
    /// `tcp_packets_in_flight()`), `cwnd` segments of window; `snd_una`, `snd_nxt` as now.
    pub fn after_sending(&mut self, packets_out: u64, in_flight: u64, cwnd: u64, snd_una: u64, snd_nxt: u64) {
        let full = in_flight >= cwnd;
        if snd_una >= self.usage_seq || full || (!self.is_cwnd_limited && packets_out > self.max_packets_out)
        {
            self.is_cwnd_limited = full;
            self.max_packets_out = packets_out;
            self.usage_seq = snd_nxt;
        }
    }

    /// `tcp_is_cwnd_limited()` for an ACK arriving now, with the window at `cwnd` segments and
    /// the threshold at `ssthresh` segments.
    pub fn cwnd_limited(&self, cwnd: u64, ssthresh: u64) -> bool {
        match self.rule {
            CwndValidation::None => true,
            CwndValidation::Linux => {
                self.is_cwnd_limited || (cwnd < ssthresh && cwnd < 2 * self.max_packets_out)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_validation_every_ack_may_grow_the_window() {
        let w = WindowUse::new(CwndValidation::None);
        assert!(w.cwnd_limited(100, 50));
    }

    #[test]
    fn linux_counts_a_round_trip_that_filled_the_window() {
        let mut w = WindowUse::new(CwndValidation::Linux);
        // Congestion avoidance (cwnd 20 >= ssthresh 10), 20 out of 20: limited.
        w.after_sending(20, 20, 20, 0, 20);
        assert!(w.cwnd_limited(20, 10));
        // The receiver's window holds the sender at 16: once snd_una passes 20 the record is
        // renewed with the window not full, and the window stops growing.
        w.after_sending(16, 16, 20, 20, 36);
        assert!(!w.cwnd_limited(20, 10));
        // Within the round trip more packets out do not make it window-limited ...
        w.after_sending(18, 18, 20, 25, 43);
        assert!(!w.cwnd_limited(20, 10));
        // ... a full window does, at once.
        w.after_sending(20, 20, 20, 26, 46);
        assert!(w.cwnd_limited(20, 10));
    }

    #[test]
    fn linux_slow_start_grows_to_twice_what_was_out() {
        let mut w = WindowUse::new(CwndValidation::Linux);
        // Slow start (ssthresh 100), 16 out with a window of 20: not full, but 20 < 2 x 16.
        w.after_sending(16, 16, 20, 0, 16);
        assert!(w.cwnd_limited(20, 100));
        assert!(w.cwnd_limited(31, 100));
        assert!(!w.cwnd_limited(32, 100), "twice what was out");
        // In congestion avoidance the exception does not apply.
        assert!(!w.cwnd_limited(20, 10));
    }
}
