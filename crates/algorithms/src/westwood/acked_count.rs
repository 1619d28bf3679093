//! AckedCount: how many segments an ACK reports delivered (seed 000 §2.3, seed 001 §II-A).
//!
//! A DUPACK reports one segment that arrived out of order; the cumulative ACK that later covers
//! it must not count that segment again, or the estimate surges when a retransmission fills a
//! hole. A delayed ACK (two segments, nothing accounted for) counts two.
//!
//! The procedure works in segments, as the paper does; sequence numbers here are bytes, so the
//! ACK advance is converted to segments of `mss` bytes (rounded up, so a final short segment
//! still counts as one).

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AckedCount {
    /// `last_ack_seqno` of the pseudocode (bytes); `None` until the first ACK.
    last_ack_seqno: Option<u64>,
    /// `accounted_for`: segments reported by DUPACKs and not yet covered by a cumulative ACK.
    accounted_for: u64,
}

impl AckedCount {
    pub fn new() -> Self {
        Self::default()
    }

    /// Segments already counted through DUPACKs (`accounted_for`).
    pub fn accounted_for(&self) -> u64 {
        self.accounted_for
    }

    /// PROCEDURE AckedCount: segments to credit to the bandwidth estimate for this ACK.
    pub fn on_ack(&mut self, current_ack_seqno: u64, mss: u64) -> u64 {
        let last = self.last_ack_seqno.unwrap_or(current_ack_seqno);
        let mut cumul_ack = current_ack_seqno.saturating_sub(last).div_ceil(mss);
        if cumul_ack == 0 {
            self.accounted_for += 1;
            cumul_ack = 1;
        }
        if cumul_ack > 1 {
            if self.accounted_for >= cumul_ack {
                self.accounted_for -= cumul_ack;
                cumul_ack = 1;
            } else {
                cumul_ack -= self.accounted_for;
                self.accounted_for = 0;
            }
        }
        self.last_ack_seqno = Some(current_ack_seqno.max(last));
        cumul_ack
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// Feed ACK numbers in segments; return the credited segments per ACK.
    fn run(acks: &[u64]) -> (Vec<u64>, AckedCount) {
        let mut count = AckedCount::new();
        count.on_ack(0, MSS); // connection start: ACK of nothing
        count.accounted_for = 0;
        let credited = acks.iter().map(|&a| count.on_ack(a * MSS, MSS)).collect();
        (credited, count)
    }

    #[test]
    fn table_of_single_ack_cases() {
        // (previous ACK, DUPACKs already accounted, this ACK) -> (credited, accounted after)
        let cases: &[(u64, u64, u64, u64, u64)] = &[
            (10, 0, 11, 1, 0), // one new segment
            (10, 0, 12, 2, 0), // delayed ACK: cumul_ack = 2, accounted_for = 0 counts 2
            (10, 0, 10, 1, 1), // DUPACK counts one and is remembered
            (10, 3, 12, 1, 1), // cumulative ACK fully covered by earlier DUPACKs
            (10, 2, 12, 1, 0), // exactly covered
            (10, 2, 15, 3, 0), // partly covered: only the rest counts
            (10, 5, 11, 1, 5), // cumul_ack = 1 never touches accounted_for (as written)
        ];
        for &(previous, accounted, ack, credited, after) in cases {
            let mut count = AckedCount { last_ack_seqno: Some(previous * MSS), accounted_for: accounted };
            assert_eq!(count.on_ack(ack * MSS, MSS), credited, "case {previous},{accounted},{ack}");
            assert_eq!(count.accounted_for(), after, "case {previous},{accounted},{ack}");
        }
    }

    #[test]
    fn seed_001_burst_loss_is_not_counted_twice() {
        // Seed 001 §II-A: segments 0..99 delivered (ACK 100); 100..109 lost; 110..129 arrive and
        // each elicits a DUPACK for 100. The retransmissions of 100..109 are acknowledged by
        // delayed ACKs (102, 104, 106, 108) and, when 109 fills the hole, one cumulative ACK for
        // everything up to 130.
        let mut acks = vec![100];
        acks.extend(std::iter::repeat_n(100, 20));
        acks.extend([102, 104, 106, 108, 130]);
        let (credited, count) = run(&acks);
        // Each DUPACK counts one segment; the later cumulative ACKs are charged against them:
        // the four delayed ACKs count 1 each and the final ACK 22 - (20 - 4*2) = 10, not 22.
        assert_eq!(&credited[1..21], &[1; 20]);
        assert_eq!(&credited[21..], &[1, 1, 1, 1, 10]);
        assert_eq!(count.accounted_for(), 0);
        // Counting the ACK advance instead would credit 22 segments to a single ACK.
        assert_eq!(credited.iter().skip(1).max(), Some(&10));
    }
}
