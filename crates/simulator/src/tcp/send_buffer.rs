//! The sender's socket buffer (`send_buffer`): how far beyond `snd_una` a bulk application can
//! have handed data to TCP, which bounds how much new data the sender can put out while a hole
//! waits for its retransmission.
//!
//! With `send_buffer = "unlimited"` (the default, as ns-2's FTP agents and the seed papers) the
//! application always has data ready. With `"linux"` the buffer follows Linux's send-buffer
//! autotuning (net/ipv4/tcp_input.c, 6.x):
//!
//! * `tcp_sndbuf_expand()` sizes `sk_sndbuf` at `2 · nr_segs · per_mss`, where `nr_segs =
//!   max(TCP_INIT_CWND, snd_cwnd, reordering + 1)` and `per_mss` is the memory one MSS-sized
//!   segment costs when "each frame consumes one skb" (the function's own worst case), capped
//!   at `net.ipv4.tcp_wmem[2]`. It runs when the connection is established
//!   (`tcp_init_buffer_space()`) and then from `tcp_check_space()` -> `tcp_new_space()` while
//!   the application waits for room (`SOCK_NOSPACE`: a bulk writer always does), and only if
//!   `tcp_should_expand_sndbuf()`: the flight (`tcp_packets_in_flight()`) is below `snd_cwnd`
//!   (a sender that filled its window does not need more buffer). `tcp_check_space()` runs at
//!   two places in 6.x: after every incoming ACK has been acted on and its sending done
//!   (`tcp_data_snd_check()`, whether or not the ACK freed space: the `SOCK_QUEUE_SHRUNK`
//!   condition is gone since "tcp: remove SOCK_QUEUE_SHRUNK"), and after every segment of new
//!   data sent (`tcp_event_new_data_sent()`, since "tcp: fix potential xmit stalls caused by
//!   TCP_NOTSENT_LOWAT", 5.18). The second is what keeps the buffer at twice the window in slow
//!   start: after the first of the two segments an ACK lets out, the flight is one below cwnd.
//! * The buffer never shrinks, and holds both the unacknowledged and the not yet sent data
//!   (`sk_wmem_queued` against `sk_sndbuf`, `sk_stream_memory_free()`): in a long recovery,
//!   with `snd_una` stuck at a hole, the sender runs out of data about two windows beyond it.
//! * The writer is woken only when a third of the buffer is free: `tcp_new_space()` ends in
//!   `sk_stream_write_space()`, which wakes a writer waiting for room (a blocked `write()`, or
//!   `poll()` for `POLLOUT`, as iperf3 does) only if `sk_stream_wspace() >=
//!   sk_stream_min_wspace()`, free space at least half the queued data. The writer then fills
//!   the buffer, and `tcp_sendmsg()` pushes what the window allows (`tcp_push()`). Between
//!   wake-ups the sender sends only what was written: `ss -m` every 20 ms on the testbed
//!   (tcpw, 3 % loss, four 60 s runs) found the queued memory between 0.69 and 1.0 of
//!   `sk_sndbuf` in 90 % of the samples, the saw-tooth this rule draws (deciles 0.72, 0.76,
//!   0.80 ... 1.00); a writer that refilled at once would hold it at 1.0.
//!
//! We count the buffer as the kernel does, in bytes of memory: `sk_sndbuf` is sized at
//! `2 · nr_segs · per_mss` (the function's worst case, [`linux_per_mss`]), but each segment
//! queued costs its skb's `truesize` ([`linux_skb_truesize`]), which for a one-segment skb is
//! less, so the buffer holds a few per cent more segments than `2 · nr_segs`: with 400-byte
//! segments 1 232 bytes each against 1 280, 21 segments in the first 25 600-byte buffer, not
//! 20 (the testbed's first PSH, where the writer first stopped, was on the 21st segment).
//! Observed on this project's testbed (6.18, the wireless path of seed 000 fig. 9 at 2 % loss,
//! 400-byte segments): the largest `snd_max - snd_una` settled at 84 segments, about twice the
//! largest cwnd of 42, for the whole run; the simulator without the limit reached 443 segments
//! in one recovery and resent most of them after the RTO.

use crate::model::SendBufferRule;

/// Linux's `TCP_INIT_CWND`: the least `nr_segs` `tcp_sndbuf_expand()` sizes for.
const TCP_INIT_CWND: u64 = 10;
/// Linux's default `net.ipv4.tcp_wmem[2]`, the most autotuning gives a socket (4 MiB).
pub const LINUX_WMEM_MAX: u64 = 4 << 20;

/// The `tcp_wmem[2]` the testbed gives a flow whose receiver window is `receiver_window`, and
/// the simulator's `linux` buffer with it: Linux's default, or four receiver windows when that
/// is more (a large window needs the buffer behind it), at most 1 GiB.
pub fn linux_wmem_max(receiver_window: u64) -> u64 {
    receiver_window.saturating_mul(4).clamp(LINUX_WMEM_MAX, 1 << 30)
}

/// What one MSS-sized segment costs in `tcp_sndbuf_expand()`'s sizing (x86-64, Linux 6.x):
/// `roundup_pow_of_two(mss + MAX_TCP_HEADER + SKB_DATA_ALIGN(sizeof(struct skb_shared_info)))
/// + SKB_DATA_ALIGN(sizeof(struct sk_buff))`, with `skb_shared_info` 320 and `sk_buff` 224
/// bytes (BTF of this project's 6.18 kernel) aligned to 64-byte cache lines, and
/// `MAX_TCP_HEADER` 256 (`L1_CACHE_ALIGN(128 + MAX_HEADER)`; a kernel with a larger
/// `LL_MAX_HEADER` has 320). Measured on the testbed (`ss -m` of a 400-byte-segment sender):
/// `sk_sndbuf` took the values 2 · n · 1280 (25 600, 81 920, 102 400, 143 360).
pub fn linux_per_mss(mss: u64) -> u64 {
    (mss + 256 + 320).next_power_of_two() + 256
}

/// What one queued segment of `mss` bytes really costs against `sk_sndbuf` (`sk_wmem_queued`),
/// x86-64, Linux 6.3 and later: `tcp_sendmsg_locked()` puts each segment in an skb of its own
/// (no GSO on the testbed's links) whose head, `alloc_skb_fclone(MAX_TCP_HEADER)`, comes from
/// `skb_small_head_cache` (objects of `SKB_HEAD_ALIGN(MAX_TCP_HEADER)` = 256 + 320 = 576
/// bytes), so `truesize` = 576 + `SKB_DATA_ALIGN(sizeof(struct sk_buff))` (256), plus the
/// payload copied into page fragments (`skb->truesize += copy`). Measured on the testbed
/// (`ss -m`, 400-byte segments): 1 232 bytes a segment, as this gives.
pub fn linux_skb_truesize(mss: u64) -> u64 {
    576 + 256 + mss
}

/// The send buffer of one sender.
#[derive(Debug, Clone)]
pub struct SendBuffer {
    rule: SendBufferRule,
    /// Linux: `sk_sndbuf`, bytes of memory; 0 before the connection starts.
    sndbuf: u64,
    /// Linux: `tcp_wmem[2]`, the most autotuning sets `sk_sndbuf` to.
    wmem_max: u64,
    /// Linux: what `tcp_sndbuf_expand()` counts per segment ([`linux_per_mss`]).
    per_mss: u64,
    /// Linux: what a queued segment costs ([`linux_skb_truesize`]).
    truesize: u64,
    /// Linux: where the data the application has written so far ends (a sequence number).
    written_end: u64,
}

impl SendBuffer {
    pub fn new(rule: SendBufferRule, mss: u64, receiver_window: u64) -> SendBuffer {
        let mss = mss.max(1);
        SendBuffer {
            rule,
            sndbuf: 0,
            wmem_max: linux_wmem_max(receiver_window),
            per_mss: linux_per_mss(mss),
            truesize: linux_skb_truesize(mss),
            written_end: 0,
        }
    }

    /// The end of the data the application has handed TCP (`u64::MAX`: unlimited).
    pub fn data_end(&self, snd_una: u64) -> u64 {
        match self.rule {
            SendBufferRule::Unlimited => u64::MAX,
            SendBufferRule::Linux => self.written_end.max(snd_una),
        }
    }

    /// The segments the buffer holds when full, `None` when unlimited: the writer may add a
    /// segment while the memory queued is below `sk_sndbuf` (`sk_stream_memory_free()`).
    pub fn segments(&self) -> Option<u64> {
        (self.rule == SendBufferRule::Linux).then_some(self.sndbuf.div_ceil(self.truesize))
    }

    /// The connection is established (`tcp_init_buffer_space()`), with this window; the
    /// writer fills the buffer.
    pub fn on_connected(&mut self, cwnd_segments: u64, reordering: u64, snd_una: u64, mss: u64) {
        self.expand(cwnd_segments, reordering);
        self.write(snd_una, mss);
    }

    /// The end of what the application has written so far.
    pub fn written_end(&self) -> u64 {
        self.written_end
    }

    /// Whether the buffer follows the kernel's autotuning (the sender then calls
    /// [`SendBuffer::check_space`] at the kernel's places).
    pub fn autotunes(&self) -> bool {
        self.rule == SendBufferRule::Linux
    }

    /// `tcp_check_space()` -> `tcp_new_space()`, after an ACK was acted on or a segment of new
    /// data went out: expand the buffer if the flight is below the window
    /// (`tcp_should_expand_sndbuf()`), then wake the writer if a third of the buffer is free
    /// (`sk_stream_write_space()`). Whether the writer wrote (the sender then pushes).
    pub fn check_space(
        &mut self,
        in_flight_segments: u64,
        cwnd_segments: u64,
        reordering: u64,
        snd_una: u64,
        mss: u64,
    ) -> bool {
        if in_flight_segments < cwnd_segments {
            self.expand(cwnd_segments, reordering);
        }
        if self.rule == SendBufferRule::Unlimited {
            return false;
        }
        // sk_stream_wspace() >= sk_stream_min_wspace(): free >= queued / 2, in memory.
        let queued = self.written_end.saturating_sub(snd_una).div_ceil(mss) * self.truesize;
        let free = self.sndbuf.saturating_sub(queued);
        2 * free >= queued && self.write(snd_una, mss)
    }

    /// The writer fills the buffer; whether that added data.
    fn write(&mut self, snd_una: u64, mss: u64) -> bool {
        let end = snd_una + self.segments().unwrap_or(0) * mss;
        let wrote = end > self.written_end;
        self.written_end = self.written_end.max(end);
        wrote
    }

    /// `tcp_sndbuf_expand()`.
    fn expand(&mut self, cwnd_segments: u64, reordering: u64) {
        if self.rule == SendBufferRule::Unlimited {
            return;
        }
        let nr_segs = TCP_INIT_CWND.max(cwnd_segments).max(reordering + 1);
        self.sndbuf = self.sndbuf.max((2 * nr_segs * self.per_mss).min(self.wmem_max));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unlimited_never_limits() {
        let mut b = SendBuffer::new(SendBufferRule::Unlimited, 400, 1 << 20);
        b.on_connected(10, 3, 0, 400);
        assert_eq!(b.data_end(4000), u64::MAX);
        assert_eq!(b.segments(), None);
    }

    #[test]
    fn a_queued_segment_costs_its_truesize_not_the_sizing_per_mss() {
        // 400-byte segments: sized at 1 280 bytes, queued at 1 232 (576 + 256 + 400), as `ss -m`
        // showed on the testbed; 1 448-byte ones at 2 304 and 2 280.
        assert_eq!((linux_per_mss(400), linux_skb_truesize(400)), (1280, 1232));
        assert_eq!((linux_per_mss(1448), linux_skb_truesize(1448)), (2304, 2280));
    }

    #[test]
    fn linux_starts_at_twenty_one_segments_and_grows_to_twice_the_window_only_when_not_window_limited() {
        let mut b = SendBuffer::new(SendBufferRule::Linux, 400, 1 << 20);
        assert_eq!(b.data_end(0), 0, "no data before the connection starts");
        // tcp_init_buffer_space: max(TCP_INIT_CWND, 4) = 10 segments, twice: 25 600 bytes,
        // which 1 232-byte segments fill at the 21st, all written.
        b.on_connected(4, 3, 0, 400);
        assert_eq!(b.segments(), Some(21));
        assert_eq!(b.data_end(0), 21 * 400);
        // A window-limited sender does not expand its buffer ...
        b.check_space(30, 30, 3, 0, 400);
        assert_eq!(b.segments(), Some(21));
        // ... one limited by the buffer does, to twice its window (107 520 bytes),
        b.check_space(20, 42, 3, 0, 400);
        assert_eq!(b.segments(), Some(88));
        // and the buffer never shrinks.
        b.check_space(2, 5, 3, 0, 400);
        assert_eq!(b.segments(), Some(88));
        // reordering + 1 counts too (2 x 61 x 1 280 bytes).
        b.check_space(0, 1, 60, 0, 400);
        assert_eq!(b.segments(), Some(127));
    }

    #[test]
    fn linux_wakes_the_writer_only_when_a_third_of_the_buffer_is_free() {
        let mut b = SendBuffer::new(SendBufferRule::Linux, 400, 1 << 20);
        b.on_connected(10, 3, 0, 400);
        assert_eq!(b.data_end(0), 21 * 400);
        // 7 of the 21 segments acknowledged: 14 queued (17 248 bytes), 8 352 free (< 8 624):
        // no write.
        assert!(!b.check_space(10, 10, 3, 7 * 400, 400));
        assert_eq!(b.data_end(7 * 400), 21 * 400);
        // 8 acknowledged: 13 queued (16 016), 9 584 free (>= 8 008): the writer fills the
        // buffer again.
        assert!(b.check_space(10, 10, 3, 8 * 400, 400));
        assert_eq!(b.data_end(8 * 400), 29 * 400);
        // A buffer that grows wakes it too: 14 queued of 25 600 bytes, then of 38 400 (2 x 15).
        let mut b = SendBuffer::new(SendBufferRule::Linux, 400, 1 << 20);
        b.on_connected(10, 3, 0, 400);
        assert!(!b.check_space(14, 14, 3, 7 * 400, 400));
        assert!(b.check_space(14, 15, 3, 7 * 400, 400));
        assert_eq!(b.data_end(0), (7 + 32) * 400);
        // Unlimited: always data, nothing to wake.
        let mut u = SendBuffer::new(SendBufferRule::Unlimited, 400, 1 << 20);
        assert!(!u.check_space(0, 10, 3, 0, 400));
        assert_eq!(u.data_end(0), u64::MAX);
    }

    #[test]
    fn linux_is_capped_at_tcp_wmem_max() {
        // 4 MiB of 1 232-byte segments: 3405 of them (the last one starts below the cap).
        let mut b = SendBuffer::new(SendBufferRule::Linux, 400, 1 << 20);
        b.check_space(0, 5000, 3, 0, 400);
        assert_eq!(b.segments(), Some((4u64 << 20).div_ceil(1232)));
        // A 2 MB window raises tcp_wmem[2] to 8 MB, as the testbed configures it.
        assert_eq!(linux_wmem_max(2_000_000), 8_000_000);
        assert_eq!(linux_wmem_max(1 << 40), 1 << 30);
    }
}
