//! Which data segments carry PSH, as Linux's `tcp_sendmsg_locked()` marks them for a writer
//! like iperf3 (`push_flag = "linux"`), and why it matters: Linux's receiver acknowledges a
//! full-sized segment carrying PSH on its own once the application has read it
//! (`tcp_measure_rcv_mss()` sets `ICSK_ACK_PUSHED`, `tcp_cleanup_rbuf()` sends the ACK), so
//! every PSH that lands on the first segment of a delayed-ACK pair shifts the receiver's pairs
//! by one segment against the sender's rounds.
//!
//! Linux marks PSH in two places: `forced_push()`, on the segment that takes the data written
//! beyond `pushed_seq` past half the largest window the receiver ever offered (`max_window`);
//! and `tcp_push()`, on the last segment written when the writer stops, which a bulk writer
//! does each time the send buffer is full (`sk_stream_wait_memory()`, after `tcp_push()`).
//! Each mark moves `pushed_seq` to the end of what was written. The segments are counted one
//! skb each: on the testbed's fig. 9 path with a 16 kB window the kernel's receiver sent a
//! lone ACK every 21 segments most often (a PSH every 21 x 400 B, the first segment past
//! 8 kB), which one-segment skbs give.
//!
//! Needs the application's writes (`send_buffer = "linux"`): with an unlimited send buffer
//! there are none and nothing is marked.

use std::collections::VecDeque;

/// The ends of the segments that will carry PSH, and Linux's `pushed_seq`.
#[derive(Debug, Clone, Default)]
pub(in crate::tcp) struct PushMarks {
    /// `tp->pushed_seq`: the end of the data written when PSH was last marked.
    pushed_seq: u64,
    /// Ends of segments to send with PSH, ascending.
    marks: VecDeque<u64>,
}

impl PushMarks {
    pub(in crate::tcp) fn new() -> PushMarks {
        PushMarks::default()
    }

    /// The application wrote `[from, to)` in segments of `mss` and then stopped:
    /// `forced_push()` after each segment, `tcp_push()` at the end.
    pub(in crate::tcp) fn on_write(&mut self, from: u64, to: u64, mss: u64, max_window: u64) {
        if to <= from || mss == 0 {
            return;
        }
        let half_window = max_window / 2;
        let mut write_seq = from;
        while write_seq < to {
            write_seq = (write_seq + mss).min(to);
            if write_seq > self.pushed_seq + half_window {
                self.mark(write_seq);
            }
        }
        self.mark(to);
    }

    fn mark(&mut self, end: u64) {
        if self.marks.back().is_none_or(|&last| last < end) {
            self.marks.push_back(end);
        }
        self.pushed_seq = end;
    }

    /// Whether the new segment ending at `end` carries PSH (a mark inside it, or at its end).
    pub(in crate::tcp) fn take(&mut self, end: u64) -> bool {
        let mut push = false;
        while self.marks.front().is_some_and(|&mark| mark <= end) {
            self.marks.pop_front();
            push = true;
        }
        push
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_write_is_pushed_every_half_window_and_at_its_end() {
        // A 16 kB window: half is 8 000 B, passed by the 21st 400-byte segment.
        let mut p = PushMarks::new();
        p.on_write(0, 50 * 400, 400, 16_000);
        let pushed: Vec<u64> = (1..=50).filter(|&n| p.take(n * 400)).collect();
        assert_eq!(pushed, vec![21, 42, 50]);
    }

    #[test]
    fn each_write_ends_with_a_push_and_the_count_runs_on_from_it() {
        let mut p = PushMarks::new();
        // The cookie, then fills of 15 segments: 0 + 15 ends, then 21 past the last push.
        p.on_write(0, 37, 400, 16_000);
        assert!(p.take(37));
        p.on_write(37, 37 + 15 * 400, 400, 16_000);
        p.on_write(37 + 15 * 400, 37 + 40 * 400, 400, 16_000);
        let pushed: Vec<u64> = (1..=40).filter(|&n| p.take(37 + n * 400)).collect();
        assert_eq!(pushed, vec![15, 36, 40]);
        assert!(!p.take(37 + 41 * 400), "nothing written beyond");
    }
}
