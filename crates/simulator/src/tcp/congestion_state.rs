//! The sender's congestion state, held as Linux holds `icsk_ca_state`
//! (`tcp_set_ca_state()`) rather than derived from flags: whether a loss is being repaired,
//! and how.
//!
//! Linux's Disorder (DUPACKs or SACKed data waiting, no loss yet) changes nothing the
//! sender does here, so the trace derives it from the DUPACK count and the scoreboard
//! ([`Sender::ca_state`](super::sender::Sender::ca_state)); CWR (a reduction without loss) has
//! no cause in this simulator but the tail loss probe's, which reduces in one step.

/// Where the sender stands in its reaction to loss.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::tcp) enum CongestionState {
    /// No loss being repaired (Linux's Open and Disorder).
    Open,
    /// Fast recovery, by any recovery (Reno, NewReno, SACK; RACK's), from the loss detection
    /// until the recovery ends (`tcp/recovery/`). `loss_until`: the end of a go-back-N resend
    /// still under way when the recovery began, which Loss resumes when it ends. Linux never
    /// does that (it handles DUPACKs in Loss in `tcp_process_loss()`), but ns-2's Reno agent,
    /// whose second fast retransmit `recover` does not guard, does.
    Recovery { loss_until: Option<u64> },
    /// After a timeout, or Tahoe's fast retransmit: the sender resends from `snd_una` what
    /// was outstanding, until `high_seq` (then `snd_max`; F-RTO may move it) is acknowledged
    /// (Linux's Loss and its `tp->high_seq`).
    Loss { high_seq: u64 },
}

impl CongestionState {
    /// In fast recovery.
    pub(in crate::tcp) fn in_recovery(self) -> bool {
        matches!(self, CongestionState::Recovery { .. })
    }

    /// The end of the go-back-N resend under way (Loss's `high_seq`), if any.
    pub(in crate::tcp) fn loss_until(self) -> Option<u64> {
        match self {
            CongestionState::Open => None,
            CongestionState::Recovery { loss_until } => loss_until,
            CongestionState::Loss { high_seq } => Some(high_seq),
        }
    }

    /// In Loss, outside any fast recovery.
    pub(in crate::tcp) fn in_loss(self) -> bool {
        matches!(self, CongestionState::Loss { .. })
    }

    /// A loss detected by DUPACKs, SACK or RACK starts fast recovery.
    pub(in crate::tcp) fn enter_recovery(&mut self) {
        *self = CongestionState::Recovery { loss_until: self.loss_until() };
    }

    /// Fast recovery is over: back to Loss if a go-back-N resend is still under way, else Open.
    pub(in crate::tcp) fn exit_recovery(&mut self) {
        *self = match self.loss_until() {
            Some(high_seq) => CongestionState::Loss { high_seq },
            None => CongestionState::Open,
        };
    }

    /// A timeout (or Tahoe's fast retransmit) resends everything outstanding, up to
    /// `high_seq`; a fast recovery under way ends with it.
    pub(in crate::tcp) fn enter_loss(&mut self, high_seq: u64) {
        *self = CongestionState::Loss { high_seq };
    }

    /// F-RTO moves Loss's end to what is outstanding now (RFC 5682 step 2b).
    pub(in crate::tcp) fn extend_loss(&mut self, high_seq: u64) {
        if let CongestionState::Loss { high_seq: end } = self {
            *end = high_seq;
        }
    }

    /// `snd_una` reached `ack`: a go-back-N resend whose end it covers is over. Whether one
    /// was.
    pub(in crate::tcp) fn on_cumulative_ack(&mut self, ack: u64) -> bool {
        if self.loss_until().is_none_or(|until| ack < until) {
            return false;
        }
        *self = match self {
            CongestionState::Recovery { .. } => CongestionState::Recovery { loss_until: None },
            _ => CongestionState::Open,
        };
        true
    }
}

#[cfg(test)]
mod tests {
    use super::CongestionState::{self, *};

    #[test]
    fn a_recovery_begun_during_a_go_back_n_resend_returns_to_it() {
        let mut state = Loss { high_seq: 100 };
        state.enter_recovery();
        assert_eq!(state, Recovery { loss_until: Some(100) });
        assert!(state.in_recovery() && !state.in_loss());
        state.exit_recovery();
        assert_eq!(state, Loss { high_seq: 100 });
        // ... unless the resend's end was acknowledged meanwhile.
        state.enter_recovery();
        assert!(state.on_cumulative_ack(100));
        state.exit_recovery();
        assert_eq!(state, Open);
    }

    #[test]
    fn loss_ends_when_its_high_seq_is_acknowledged_and_f_rto_can_move_it() {
        let mut state = CongestionState::Open;
        state.extend_loss(50);
        assert_eq!(state, Open, "only Loss has an end to move");
        state.enter_loss(100);
        assert!(!state.on_cumulative_ack(99));
        state.extend_loss(150);
        assert!(!state.on_cumulative_ack(120));
        assert_eq!(state.loss_until(), Some(150));
        assert!(state.on_cumulative_ack(150));
        assert_eq!(state, Open);
        assert!(!state.on_cumulative_ack(200));
        // A timeout in fast recovery ends it.
        state.enter_recovery();
        state.enter_loss(300);
        assert_eq!(state, Loss { high_seq: 300 });
    }
}
