//! The retransmission timer of RFC 6298 §5: when it fires, and what the last timeout was
//! (RACK's reordering timer and the tail loss probe keep their own deadlines,
//! `recovery/rack.rs`, `recovery/tlp.rs`). The timeout itself, RFC 6298 §5.4-5.6, is the
//! sender's (`Sender::on_timer`); the RTO it runs for is the [`RttEstimator`]'s
//! (`rtt.rs`, with Karn's rule and the backoff).
//!
//! [`RttEstimator`]: super::rtt::RttEstimator

use super::timer_wheel::TimerWheel;
use crate::model::Nanos;

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(in crate::tcp) struct RetransmissionTimer {
    /// When a timer armed for the RTO really fires (`timer_wheel.rs`).
    wheel: TimerWheel,
    deadline: Option<Nanos>,
    /// `snd_una` at the last timeout: a timeout with `snd_una` unchanged since is a repeated
    /// one.
    last_timeout_una: Option<u64>,
}

impl RetransmissionTimer {
    pub(in crate::tcp) fn new(wheel: TimerWheel) -> RetransmissionTimer {
        RetransmissionTimer { wheel, ..RetransmissionTimer::default() }
    }

    /// When the timer fires, if it runs.
    pub(in crate::tcp) fn deadline(&self) -> Option<Nanos> {
        self.deadline
    }

    /// The timer runs and its deadline is at or before `now`.
    pub(in crate::tcp) fn expired(&self, now: Nanos) -> bool {
        self.deadline.is_some_and(|deadline| deadline <= now)
    }

    /// (Re)start the timer: it fires `rto` from `now`.
    pub(in crate::tcp) fn start(&mut self, now: Nanos, rto: Nanos) {
        self.deadline = Some(self.wheel.fire_at(now, rto));
    }

    /// §5.1: a segment goes out; start the timer unless it runs. `rto` is read only then.
    pub(in crate::tcp) fn on_send(&mut self, now: Nanos, rto: impl FnOnce() -> Nanos) {
        if self.deadline.is_none() {
            self.deadline = Some(self.wheel.fire_at(now, rto()));
        }
    }

    /// §5.2-5.3 on an ACK of new data: stop the timer when nothing is outstanding, else
    /// restart it.
    pub(in crate::tcp) fn on_new_ack(&mut self, now: Nanos, rto: Nanos, outstanding: bool) {
        self.deadline = outstanding.then(|| self.wheel.fire_at(now, rto));
    }

    pub(in crate::tcp) fn stop(&mut self) {
        self.deadline = None;
    }

    /// The timer fired with `snd_una` outstanding: whether `snd_una` is still where the last
    /// timeout left it (a repeated timeout).
    pub(in crate::tcp) fn on_timeout(&mut self, snd_una: u64) -> bool {
        let repeated = self.last_timeout_una == Some(snd_una);
        self.last_timeout_una = Some(snd_una);
        repeated
    }
}

#[cfg(test)]
mod tests {
    use super::RetransmissionTimer;

    #[test]
    fn runs_from_the_first_send_and_stops_when_everything_is_acknowledged() {
        let mut timer = RetransmissionTimer::default();
        assert_eq!(timer.deadline(), None);
        timer.on_send(10, || 100);
        timer.on_send(20, || unreachable!("a running timer is not restarted by a send"));
        assert_eq!(timer.deadline(), Some(110));
        assert!(!timer.expired(109) && timer.expired(110));
        timer.on_new_ack(50, 100, true);
        assert_eq!(timer.deadline(), Some(150));
        timer.on_new_ack(60, 100, false);
        assert_eq!(timer.deadline(), None);
        assert!(!timer.expired(u64::MAX));
    }

    #[test]
    fn a_timeout_is_repeated_while_snd_una_stays_put() {
        let mut timer = RetransmissionTimer::default();
        assert!(!timer.on_timeout(1000));
        assert!(timer.on_timeout(1000));
        assert!(!timer.on_timeout(2000));
    }
}
