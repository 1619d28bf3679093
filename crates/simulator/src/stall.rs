//! A flow's longest stall: the longest time during its active time in which its sender had data
//! to deliver and its cumulative ACK point (`snd_una`) did not move.
//!
//! Goodput averages over the whole active time, so a flow that delivered well for 20 s and then
//! stood still for 180 s, locked out by RTO backoff (RFC 6298 §5.5 doubles the timer on every
//! expiry, up to `rto_max`), and a flow that crawled along for 200 s can report the same goodput.
//! The stall tells them apart: on a healthy path the cumulative ACK advances at least once per
//! RTO (after a timeout the retransmission is acknowledged one round trip later), so the longest
//! stall is about one RTO; a flow shut out by repeated backoff, or by an outage, shows a stall
//! as long as the lockout.
//!
//! A bulk flow always has data waiting while it is active (its application writes until `stop`),
//! so its stall is the longest interval between two advances of `snd_una`, counting from its
//! start to the first advance and from the last advance to the end of its active time.

use crate::model::Nanos;

/// The stall clock of one flow, fed with every advance of its cumulative ACK point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StallClock {
    /// The flow's start, or the last advance of `snd_una`.
    since: Nanos,
    /// The longest closed interval so far.
    longest: Nanos,
}

impl StallClock {
    /// A flow that starts (and has data to send) at `start`.
    pub fn new(start: Nanos) -> Self {
        StallClock { since: start, longest: 0 }
    }

    /// `snd_una` advanced at `now`; the flow's active time ends at `end`, so an advance after it
    /// closes the interval at `end` and later ones count for nothing.
    #[inline]
    pub fn advanced(&mut self, now: Nanos, end: Nanos) {
        let now = now.min(end);
        self.longest = self.longest.max(now.saturating_sub(self.since));
        self.since = now;
    }

    /// The longest stall of a flow whose active time ended at `end`: the longest interval
    /// between advances, or the one still open at `end` if that is longer.
    pub fn longest(&self, end: Nanos) -> Nanos {
        self.longest.max(self.open(end))
    }

    /// The stall still open at `end`: the time since the last advance (or the start). A flow
    /// that recovers from a long backoff closes its stall; one locked out until the end of the
    /// run (an RTO that keeps meeting the same outage, a flow shut out of a queue) does not,
    /// and only that one is lost to its run rather than slowed by it.
    pub fn open(&self, end: Nanos) -> Nanos {
        end.saturating_sub(self.since)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Nanos = 1_000_000_000;

    #[test]
    fn the_longest_interval_between_advances_counts_from_the_start() {
        let mut clock = StallClock::new(2 * S);
        assert_eq!(clock.longest(2 * S), 0, "no time active, no stall");
        clock.advanced(3 * S, 100 * S); // 1 s from the start to the first ACK
        clock.advanced(3 * S + S / 10, 100 * S);
        clock.advanced(7 * S, 100 * S); // a 3.9 s lockout
        clock.advanced(8 * S, 100 * S);
        assert_eq!(clock.longest(9 * S), 3 * S + 9 * S / 10);
        assert_eq!(clock.open(9 * S), S, "the lockout ended: only the last second is open");
    }

    #[test]
    fn the_interval_open_at_the_end_counts() {
        let mut clock = StallClock::new(0);
        clock.advanced(S, 60 * S);
        // Nothing acknowledged after 1 s: stalled for the remaining 59 s.
        assert_eq!(clock.longest(60 * S), 59 * S);
        assert_eq!(clock.open(60 * S), 59 * S);
        // Never acknowledged at all: the whole active time.
        assert_eq!(StallClock::new(5 * S).longest(60 * S), 55 * S);
    }

    #[test]
    fn advances_after_the_end_close_the_interval_at_the_end() {
        let mut clock = StallClock::new(0);
        clock.advanced(S, 10 * S);
        clock.advanced(30 * S, 10 * S); // stopped at 10 s: the stall is 9 s, not 29 s
        clock.advanced(31 * S, 10 * S);
        assert_eq!(clock.longest(10 * S), 9 * S);
    }
}
