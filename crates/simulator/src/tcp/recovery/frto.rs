//! F-RTO (RFC 5682 §2, `frto`, without SACK), as Linux's `tcp_process_loss()` does it with
//! `tcp_frto` = 2. A timeout from outside any recovery, or one with nothing acknowledged since
//! the last, arms it (`tcp_enter_loss()`). The first ACK after it that advances `snd_una` but
//! not to the data outstanding at the timeout then sends previously unsent data as the window
//! allows instead of resending (step 2b); the DUPACK that data brings shows the loss real
//! (step 3a) and the resend goes on, stepping over that new data, which is in flight. In Loss
//! the flight is Linux's `tcp_packets_in_flight()`: what was resent and not acknowledged, plus
//! new data beyond the resend, less one segment per counted DUPACK (`tcp/reordering.rs`), so
//! each DUPACK clocks out one more segment. An ACK of never-resent data that shows the timeout
//! spurious (step 3b, Linux's undo) is not modelled: the sender goes on as after a real loss.

use super::super::sender::Sender;
use crate::model::Nanos;
use crate::network::Packet;

/// F-RTO's state for the Loss episode of the last timeout.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(in crate::tcp) struct Frto {
    /// Linux's `tp->frto`: the last timeout may still prove spurious, so the first ACK that
    /// advances `snd_una` sends new data rather than resends.
    armed: bool,
    /// Step 2b on this ACK: send new data (Linux's `REXMIT_NEW`).
    send_new: bool,
    /// Where the new data that F-RTO sent in Loss starts (Loss's end then): the resend of the
    /// data outstanding at the timeout stops here and goes on at `snd_max`, and the data from
    /// here to `snd_max` is in flight meanwhile. `None` once the resend has passed it.
    new_from: Option<u64>,
}

impl Sender {
    /// F-RTO is armed for the Loss episode under way.
    pub(in crate::tcp) fn frto_armed(&self) -> bool {
        self.frto.is_some_and(|frto| frto.armed)
    }

    /// F-RTO no longer applies to this Loss episode.
    pub(in crate::tcp) fn frto_disarm(&mut self) {
        if let Some(frto) = self.frto.as_mut() {
            frto.armed = false;
        }
    }

    /// A timeout (`tcp_enter_loss()`): F-RTO unless a recovery is under way (`open`), except
    /// after a timeout that nothing has acknowledged since (`repeated`; RFC 5682 §2.1 step 1 and
    /// §2.2, "new_recovery || icsk_retransmits").
    pub(in crate::tcp) fn frto_on_timeout(&mut self, open: bool, repeated: bool) {
        if let Some(frto) = self.frto.as_mut() {
            *frto = Frto { armed: open || repeated, ..Frto::default() };
        }
    }

    /// The new data F-RTO sent beyond the resend, in flight while the resend goes on (bytes).
    pub(in crate::tcp) fn frto_new_data_in_flight(&self) -> u64 {
        self.frto.and_then(|frto| frto.new_from).map_or(0, |from| self.snd_max - from)
    }

    /// The resend after a timeout reached the new data F-RTO sent: that data is in flight, not
    /// lost, so the resend goes on beyond it (Linux resends only what it marked lost).
    pub(in crate::tcp) fn skip_frto_new_data(&mut self) {
        let snd_nxt = self.snd_nxt;
        let Some(frto) = self.frto.as_mut() else { return };
        if frto.new_from.is_some_and(|from| snd_nxt >= from) {
            frto.new_from = None;
            self.snd_nxt = self.snd_nxt.max(self.snd_max);
        }
    }

    /// On an ACK that advances `snd_una` in Loss (`tcp_process_loss()`): once new data is out
    /// only a DUPACK decides (step 3a); before, an ACK that leaves data of the timeout
    /// unacknowledged moves `high_seq` to `snd_nxt` and lets new data go (step 2b), or, with
    /// none to send, ends F-RTO.
    pub(in crate::tcp) fn frto_on_new_ack(&mut self, ack_seq: u64) {
        if !self.frto_armed() || self.state.in_recovery() {
            return;
        }
        let Some(high_seq) = self.state.loss_until() else { return };
        if self.snd_max > high_seq || ack_seq >= high_seq {
            return;
        }
        self.state.extend_loss(self.snd_max);
        let send_new = self.new_data_len().is_some();
        if let Some(frto) = self.frto.as_mut() {
            if send_new {
                frto.send_new = true;
            } else {
                frto.armed = false;
            }
        }
    }

    /// Step 3a: a DUPACK after the new data went out shows the loss real.
    pub(in crate::tcp) fn frto_on_duplicate_ack(&mut self) {
        if !self.state.in_recovery()
            && self.state.loss_until().is_some_and(|high_seq| self.snd_max > high_seq)
        {
            self.frto_disarm();
        }
    }

    /// Step 2b, if this ACK called for it (`tcp_process_loss()` -> `REXMIT_NEW`): send
    /// previously unsent data as the window allows, the data outstanding at the timeout left
    /// unsent for now. The flight is Linux's: what was resent and not acknowledged, plus this
    /// new data. Whether anything went; if nothing could, F-RTO ends and the conventional
    /// recovery goes on (`tcp_xmit_recovery()`).
    pub(in crate::tcp) fn frto_send_new_data(&mut self, now: Nanos, out: &mut Vec<Packet>) -> bool {
        let Some(frto) = self.frto.as_mut() else { return false };
        if !std::mem::take(&mut frto.send_new) {
            return false;
        }
        let mut sent = false;
        while let Some(len) = self.new_data_len() {
            if self.flight_to(self.snd_nxt) + len > self.congestion_window() {
                break;
            }
            let snd_max = self.snd_max;
            if let Some(frto) = self.frto.as_mut() {
                frto.new_from.get_or_insert(snd_max);
            }
            self.transmit(self.snd_max, len, now, out);
            sent = true;
        }
        if !sent {
            self.frto_disarm();
        }
        sent
    }
}
