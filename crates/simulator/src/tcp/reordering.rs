//! Linux's DUPACK threshold for a connection without SACK (`reordering = "linux"`).
//!
//! Without SACK Linux counts DUPACKs as segments the receiver holds above the hole
//! (`tp->sacked_out`, "emulated SACKs") and starts fast recovery when that count reaches
//! `tp->reordering` (`tcp_newreno_mark_lost()`: `sacked_out >= reordering`), which starts at
//! `net.ipv4.tcp_reordering` = 3, the simulator's `dupack_threshold`. The count can never
//! exceed the segments outstanding less the holes: when more DUPACKs arrive than segments could
//! have left the network, `tcp_check_reno_reordering()` (net/ipv4/tcp_input.c, 6.x) clamps it
//! (`tcp_limit_reno_sacked()`) and takes that as evidence of reordering, setting `reordering` to
//! the segments outstanding (plus those the ACK just acknowledged), at most
//! `net.ipv4.tcp_max_reordering` = 300. The excess DUPACKs come, on a lossy path, from
//! go-back-N: after a timeout every segment outstanding is resent, the receiver answers each
//! one it already holds with a DUPACK, and once new data is out beyond the timeout's `high_seq`
//! those DUPACKs are counted (`tcp_process_loss()`). The threshold then stays the flight of the
//! last clamp for the rest of the connection (a later clamp sets it again, higher or lower;
//! nothing resets it to `tcp_reordering` for a non-SACK connection: `tcp_enter_loss()`'s reset
//! reads `sacked_out` after `tcp_timeout_mark_lost()` has zeroed it), so later losses wait for
//! tens of DUPACKs, and a window too small to produce them ends in a timeout.
//!
//! [`RenoSacks`] is that count and that threshold; the sender tells it about each ACK in the
//! order `tcp_ack()` does: a cumulative ACK first (`tcp_clean_rtx_queue()` ->
//! `tcp_remove_reno_sacks()`), then the state machine's add or reset (`tcp_fastretrans_alert()`).
//! The count also decides what the sender may send in Loss (`tcp_packets_in_flight()` leaves the
//! held segments out), so a sender with F-RTO keeps it with `reordering = "fixed"` too: then the
//! clamp still applies but the threshold never moves.

/// `net.ipv4.tcp_max_reordering`'s default.
const MAX_REORDERING: u64 = 300;

/// A non-SACK connection's `sacked_out` and `reordering`, in segments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenoSacks {
    /// `tp->sacked_out`: DUPACKs counted as segments held above the hole.
    sacked: u64,
    /// `tp->reordering`: the count that starts fast recovery.
    threshold: u64,
    /// `tcp_check_reno_reordering()` raises the threshold (`reordering = "linux"`).
    raises: bool,
}

impl RenoSacks {
    /// The count, with a threshold that `tcp_check_reno_reordering()` raises (`raises`) or that
    /// stays `dupack_threshold`.
    pub fn new(dupack_threshold: u32, raises: bool) -> RenoSacks {
        RenoSacks { sacked: 0, threshold: u64::from(dupack_threshold), raises }
    }

    /// Whether the threshold follows Linux's rule (else the sender counts DUPACKs as RFC 5681).
    pub fn raises_threshold(&self) -> bool {
        self.raises
    }

    /// DUPACKs counted as segments the receiver holds.
    pub fn sacked(&self) -> u64 {
        self.sacked
    }

    /// The count at which fast recovery starts.
    pub fn threshold(&self) -> u64 {
        self.threshold
    }

    /// Enough DUPACKs to mark the head lost (`tcp_newreno_mark_lost()` outside Recovery).
    pub fn loss_detected(&self) -> bool {
        self.sacked >= self.threshold
    }

    /// `tcp_add_reno_sack()`: one DUPACK, with `packets_out` segments outstanding and `lost_out`
    /// of them marked lost. Whether the count grew (a clamped DUPACK lets nothing new out).
    pub fn add_dupack(&mut self, packets_out: u64, lost_out: u64) -> bool {
        let before = self.sacked;
        self.sacked += 1;
        self.check(packets_out, lost_out, 0);
        self.sacked > before
    }

    /// `tcp_remove_reno_sacks()`: a cumulative ACK of `acked` segments ("one ACK acked hole, the
    /// rest eat duplicate ACKs"), leaving `packets_out` outstanding, `lost_out` of them lost.
    pub fn on_cumulative_ack(&mut self, acked: u64, packets_out: u64, lost_out: u64) {
        if acked > 0 {
            self.sacked = self.sacked.saturating_sub(acked - 1);
        }
        self.check(packets_out, lost_out, acked);
    }

    /// `tcp_reset_reno_sack()`.
    pub fn reset(&mut self) {
        self.sacked = 0;
    }

    /// `tcp_check_reno_reordering()`: `tcp_limit_reno_sacked()` keeps `sacked + holes` within
    /// `packets_out`; when it has to, the DUPACKs outnumbered what could have left the network,
    /// and the threshold becomes the segments outstanding plus `addend`.
    fn check(&mut self, packets_out: u64, lost_out: u64, addend: u64) {
        let holes = lost_out.max(1).min(packets_out);
        if self.sacked + holes > packets_out {
            self.sacked = packets_out - holes;
            if self.raises {
                self.threshold = (packets_out + addend).min(MAX_REORDERING);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dupacks_within_the_flight_count_and_reach_the_threshold() {
        let mut r = RenoSacks::new(3, true);
        assert!(r.add_dupack(10, 0) && r.add_dupack(10, 0));
        assert!(!r.loss_detected());
        assert!(r.add_dupack(10, 0));
        assert!(r.loss_detected());
        assert_eq!((r.sacked(), r.threshold()), (3, 3));
    }

    #[test]
    fn more_dupacks_than_segments_out_raise_the_threshold_to_the_flight() {
        // Five segments out, one of them the hole: at most four can be held above it.
        let mut r = RenoSacks::new(3, true);
        for _ in 0..4 {
            r.add_dupack(5, 0);
        }
        assert_eq!((r.sacked(), r.threshold()), (4, 3));
        assert!(!r.add_dupack(5, 0), "a fifth DUPACK is clamped");
        assert_eq!((r.sacked(), r.threshold()), (4, 5));
        assert!(!r.loss_detected());
    }

    #[test]
    fn after_a_timeout_only_dupacks_beyond_the_new_data_raise_it() {
        // 20 segments lost at the timeout still outstanding, 3 new ones sent beyond them.
        let mut r = RenoSacks::new(3, true);
        for _ in 0..3 {
            assert!(r.add_dupack(23, 20));
        }
        assert_eq!(r.threshold(), 3);
        assert!(!r.add_dupack(23, 20));
        assert_eq!((r.sacked(), r.threshold()), (3, 23));
    }

    #[test]
    fn a_cumulative_ack_eats_dupacks_and_may_raise_it_with_what_it_acknowledged() {
        let mut r = RenoSacks::new(3, true);
        for _ in 0..4 {
            r.add_dupack(10, 1);
        }
        // Two segments acknowledged: the hole and one the DUPACKs counted.
        r.on_cumulative_ack(2, 8, 1);
        assert_eq!((r.sacked(), r.threshold()), (3, 3));
        // Everything but one acknowledged while three are still counted: clamped to 0, and the
        // threshold is what was outstanding before the ACK.
        r.on_cumulative_ack(2, 1, 1);
        assert_eq!((r.sacked(), r.threshold()), (0, 3));
        r.reset();
        assert_eq!(r.sacked(), 0);
    }

    #[test]
    fn a_count_without_linux_reordering_clamps_but_keeps_the_threshold() {
        let mut r = RenoSacks::new(3, false);
        for _ in 0..4 {
            r.add_dupack(5, 0);
        }
        assert!(!r.add_dupack(5, 0));
        assert_eq!((r.sacked(), r.threshold()), (4, 3));
        r.on_cumulative_ack(1, 400, 0);
        assert_eq!(r.threshold(), 3);
    }

    #[test]
    fn the_threshold_is_capped_at_tcp_max_reordering() {
        let mut r = RenoSacks::new(3, true);
        r.sacked = 1000;
        r.on_cumulative_ack(1, 400, 0);
        assert_eq!(r.threshold(), MAX_REORDERING);
    }
}
