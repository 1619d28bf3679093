//! The sender's SACK scoreboard (RFC 6675 §3-4): which bytes above the cumulative ACK point the
//! receiver has reported holding, and the queries RFC 6675's loss recovery is built from —
//! `IsLost`, `SetPipe` and the holes `NextSeg` picks from.
//!
//! The scoreboard is a sorted list of disjoint, non-adjacent SACKed ranges above `snd_una`. It is
//! short (one range per hole the receiver reports), so every query walks it: O(holes) instead of
//! O(segments outstanding) per ACK, independent of the window.
//!
//! `IsLost(S)` holds when at least `DupThresh` SACKed segments, or more than
//! `(DupThresh - 1) * SMSS` SACKed bytes, lie above `S` (§4). SACKed data above `S` only grows
//! while `S` is outstanding (the receiver never reneges in this simulator: its reassembly buffer
//! is unbounded), so the un-SACKed bytes `IsLost` holds for are all those below one boundary,
//! [`Scoreboard::lost_boundary`]: the start of the range where the count from the top reaches
//! the threshold. Segments are counted as `ceil(range / SMSS)` per range, since the sender only
//! sends full-sized segments.

/// SACKed ranges `[start, end)`, sorted, disjoint and non-adjacent.
#[derive(Debug, Default, Clone)]
pub struct Scoreboard {
    ranges: Vec<(u64, u64)>,
    sacked_bytes: u64,
}

impl Scoreboard {
    pub fn new() -> Self {
        Scoreboard::default()
    }

    /// RFC 6675 `Update()`: record the block `[start, end)`, clipped to data above `snd_una` and
    /// below `snd_max`. Returns the bytes newly marked SACKed.
    pub fn update(&mut self, snd_una: u64, snd_max: u64, start: u64, end: u64) -> u64 {
        let (start, end) = (start.max(snd_una), end.min(snd_max));
        if start >= end {
            return 0;
        }
        // Ranges overlapping or touching [start, end) merge with it.
        let first = self.ranges.partition_point(|&(_, e)| e < start);
        let last = self.ranges.partition_point(|&(s, _)| s <= end);
        let mut merged = (start, end);
        let mut covered = 0;
        for &(s, e) in &self.ranges[first..last] {
            covered += e - s;
            merged = (merged.0.min(s), merged.1.max(e));
        }
        let added = (merged.1 - merged.0) - covered;
        self.ranges.splice(first..last, std::iter::once(merged));
        self.sacked_bytes += added;
        added
    }

    /// The cumulative ACK point moved to `snd_una`: forget everything below it.
    pub fn advance(&mut self, snd_una: u64) {
        let gone = self.ranges.partition_point(|&(_, e)| e <= snd_una);
        for &(s, e) in &self.ranges[..gone] {
            self.sacked_bytes -= e - s;
        }
        self.ranges.drain(..gone);
        if let Some(first) = self.ranges.first_mut() {
            if first.0 < snd_una {
                self.sacked_bytes -= snd_una - first.0;
                first.0 = snd_una;
            }
        }
    }

    /// Forget every SACKed range (not needed by the sender: the receiver never reneges).
    pub fn clear(&mut self) {
        self.ranges.clear();
        self.sacked_bytes = 0;
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    pub fn sacked_bytes(&self) -> u64 {
        self.sacked_bytes
    }

    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }

    /// Whether the byte `seq` has been SACKed.
    pub fn is_sacked(&self, seq: u64) -> bool {
        let i = self.ranges.partition_point(|&(_, e)| e <= seq);
        self.ranges.get(i).is_some_and(|&(s, _)| s <= seq)
    }

    /// One past the highest SACKed byte.
    pub fn highest_sacked(&self) -> Option<u64> {
        self.ranges.last().map(|&(_, e)| e)
    }

    /// `IsLost`, as a boundary: every un-SACKed byte below the returned sequence number is lost
    /// (`dupthresh` SACKed segments, or more than `(dupthresh - 1) * mss` SACKed bytes, above
    /// it); none above it is. `None` when nothing is lost.
    pub fn lost_boundary(&self, dupthresh: u32, mss: u64) -> Option<u64> {
        let byte_threshold = u64::from(dupthresh.saturating_sub(1)) * mss;
        let (mut segments, mut bytes) = (0u64, 0u64);
        for &(s, e) in self.ranges.iter().rev() {
            segments += (e - s).div_ceil(mss);
            bytes += e - s;
            if segments >= u64::from(dupthresh) || bytes > byte_threshold {
                return Some(s);
            }
        }
        None
    }

    /// `IsLost(seq)` for an un-SACKed byte.
    pub fn is_lost(&self, seq: u64, dupthresh: u32, mss: u64) -> bool {
        !self.is_sacked(seq) && self.lost_boundary(dupthresh, mss).is_some_and(|b| seq < b)
    }

    /// Un-SACKed bytes in `[from, to)`.
    pub fn unsacked_between(&self, from: u64, to: u64) -> u64 {
        if to <= from {
            return 0;
        }
        let sacked: u64 = self
            .ranges
            .iter()
            .take_while(|&&(s, _)| s < to)
            .map(|&(s, e)| e.min(to).saturating_sub(s.max(from)))
            .sum();
        (to - from) - sacked
    }

    /// RFC 6675 `SetPipe()`: over the un-SACKed bytes of `[snd_una, snd_max)`, one for each that
    /// is not lost (below `lost_to`) and one more for each retransmitted (below `high_rxt`).
    pub fn pipe(&self, snd_una: u64, snd_max: u64, lost_to: u64, high_rxt: u64) -> u64 {
        let below = |x: u64| self.unsacked_between(snd_una, x.clamp(snd_una, snd_max));
        below(snd_max) - below(lost_to) + below(high_rxt)
    }

    /// The first un-SACKed hole `[start, end)` with `from <= start < below`, `end` clipped to
    /// `below` and to the next SACKed range.
    pub fn first_hole(&self, from: u64, below: u64) -> Option<(u64, u64)> {
        let mut at = from;
        let mut i = self.ranges.partition_point(|&(_, e)| e <= at);
        loop {
            match self.ranges.get(i) {
                Some(&(s, e)) if s <= at => {
                    at = e;
                    i += 1;
                }
                next => {
                    if at >= below {
                        return None;
                    }
                    let end = next.map_or(below, |&(s, _)| s.min(below));
                    return Some((at, end));
                }
            }
        }
    }

    /// The last un-SACKed hole `[start, end)` below `below` (RFC 6675 `NextSeg` rule 4 resends
    /// the highest outstanding un-SACKed byte), not starting below `from`.
    pub fn last_hole(&self, from: u64, below: u64) -> Option<(u64, u64)> {
        let (mut start, mut end) = (from, below);
        for &(s, e) in self.ranges.iter().rev() {
            if s >= end {
                continue; // entirely above
            }
            if e >= end {
                end = s; // covers the top of what is left: the hole ends below it
                continue;
            }
            start = e; // the first range below the hole
            break;
        }
        let start = start.max(from);
        (start < end).then_some((start, end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// Scoreboard over segments `una..max` with the given segments SACKed.
    fn board(una: u64, max: u64, sacked: &[u64]) -> Scoreboard {
        let mut b = Scoreboard::new();
        for &i in sacked {
            b.update(una * MSS, max * MSS, i * MSS, (i + 1) * MSS);
        }
        b
    }

    fn segs(ranges: &[(u64, u64)]) -> Vec<(u64, u64)> {
        ranges.iter().map(|&(s, e)| (s / MSS, e / MSS)).collect()
    }

    #[test]
    fn update_merges_adjacent_and_overlapping_blocks_and_counts_new_bytes() {
        let mut b = board(0, 20, &[5, 7]);
        assert_eq!(segs(b.ranges()), vec![(5, 6), (7, 8)]);
        assert_eq!(b.update(0, 20 * MSS, 6 * MSS, 7 * MSS), MSS); // fills the gap: one range
        assert_eq!(segs(b.ranges()), vec![(5, 8)]);
        assert_eq!(b.update(0, 20 * MSS, 4 * MSS, 9 * MSS), 2 * MSS); // only 4 and 8 are new
        assert_eq!(b.update(0, 20 * MSS, 5 * MSS, 6 * MSS), 0);
        assert_eq!(b.sacked_bytes(), 5 * MSS);
        // Clipped to [snd_una, snd_max).
        assert_eq!(b.update(10 * MSS, 12 * MSS, 9 * MSS, 15 * MSS), 2 * MSS);
        assert_eq!(segs(b.ranges()), vec![(4, 9), (10, 12)]);
    }

    #[test]
    fn advance_drops_and_clips_ranges_below_the_ack() {
        let mut b = board(0, 20, &[3, 4, 8]);
        b.advance(4 * MSS);
        assert_eq!(segs(b.ranges()), vec![(4, 5), (8, 9)]);
        assert_eq!(b.sacked_bytes(), 2 * MSS);
        b.advance(10 * MSS);
        assert!(b.is_empty());
        assert_eq!(b.sacked_bytes(), 0);
    }

    #[test]
    fn is_lost_needs_dupthresh_sacked_segments_above() {
        // Segments 0..10 outstanding; 2, 4 and 6 SACKed.
        let b = board(0, 10, &[2, 4, 6]);
        assert_eq!(b.lost_boundary(3, MSS), Some(2 * MSS));
        assert!(b.is_lost(0, 3, MSS));
        assert!(b.is_lost(MSS + 999, 3, MSS));
        assert!(!b.is_lost(3 * MSS, 3, MSS), "only 2 SACKed segments above 3");
        assert!(!b.is_lost(2 * MSS, 3, MSS), "SACKed bytes are never lost");
        // Two SACKed segments are 2 * SMSS bytes, not more than (3 - 1) * SMSS: nothing lost.
        assert_eq!(board(0, 10, &[4, 6]).lost_boundary(3, MSS), None);
        // One byte more than (DupThresh - 1) * SMSS is enough (a partial segment).
        let mut partial = board(0, 10, &[4, 6]);
        partial.update(0, 10 * MSS, 8 * MSS, 8 * MSS + 1);
        assert_eq!(partial.lost_boundary(3, MSS), Some(4 * MSS));
        // A single range of three segments counts three.
        assert_eq!(board(0, 10, &[5, 6, 7]).lost_boundary(3, MSS), Some(5 * MSS));
    }

    #[test]
    fn pipe_counts_unsacked_not_lost_and_retransmitted_bytes() {
        // 0..10 outstanding, 2, 4, 6 SACKed: 0 and 1 are lost; 3, 5, 7, 8, 9 are in flight.
        let b = board(0, 10, &[2, 4, 6]);
        let lost_to = b.lost_boundary(3, MSS).unwrap();
        assert_eq!(b.pipe(0, 10 * MSS, lost_to, 0), 5 * MSS);
        // Retransmitting segment 0 puts it back in the pipe (RFC 6675 SetPipe (b)).
        assert_eq!(b.pipe(0, 10 * MSS, lost_to, MSS), 6 * MSS);
        // A retransmitted segment that is not lost counts twice.
        assert_eq!(b.pipe(0, 10 * MSS, lost_to, 4 * MSS), 5 * MSS + 3 * MSS);
        // Without SACK information pipe is FlightSize.
        assert_eq!(Scoreboard::new().pipe(0, 10 * MSS, 0, 0), 10 * MSS);
    }

    #[test]
    fn holes_are_found_from_either_end() {
        let b = board(0, 10, &[2, 4, 5, 8]);
        assert_eq!(b.first_hole(0, 10 * MSS), Some((0, 2 * MSS)));
        assert_eq!(b.first_hole(2 * MSS, 10 * MSS), Some((3 * MSS, 4 * MSS)));
        assert_eq!(b.first_hole(4 * MSS, 10 * MSS), Some((6 * MSS, 8 * MSS)));
        assert_eq!(b.first_hole(6 * MSS, 7 * MSS), Some((6 * MSS, 7 * MSS)));
        assert_eq!(b.first_hole(8 * MSS, 8 * MSS + 500), None);
        assert_eq!(b.first_hole(9 * MSS, 9 * MSS), None);
        assert_eq!(b.last_hole(0, 10 * MSS), Some((9 * MSS, 10 * MSS)));
        assert_eq!(b.last_hole(0, 9 * MSS), Some((6 * MSS, 8 * MSS)));
        assert_eq!(b.last_hole(0, 6 * MSS), Some((3 * MSS, 4 * MSS)));
        assert_eq!(b.last_hole(0, 2 * MSS), Some((0, 2 * MSS)));
        assert_eq!(b.last_hole(3 * MSS, 3 * MSS), None);
        assert_eq!(board(0, 4, &[1, 2, 3]).last_hole(0, 4 * MSS), Some((0, MSS)));
    }
}
