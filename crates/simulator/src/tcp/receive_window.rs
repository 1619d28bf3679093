//! The window the receiver advertises (`receive_window`).
//!
//! With `receive_window = "fixed"` (the default, as ns-2's sinks and the seed papers) every ACK
//! offers the configured `receiver_window`. With `"linux"` the window opens as Linux's receiver
//! opens it (net/ipv4/tcp_input.c and tcp_output.c, 6.x), which on a long path holds a sender
//! that outgrows 64 KB for seconds:
//!
//! * The connection starts with `tcp_select_initial_window()`'s window: `tcp_rmem[1]` (128 KiB)
//!   at the default `scaling_ratio` of one half, 64 KiB, rounded down to whole segments. That is
//!   also the first `rcv_ssthresh`, the most the receiver will offer for now
//!   (`__tcp_select_window()` offers `min(free space, rcv_ssthresh)`).
//! * `tcp_grow_window()` raises `rcv_ssthresh` by `2 · advmss` for every data segment of 128
//!   bytes or more that arrives in order (`tcp_event_data_recv()`); one that arrives out of
//!   order raises it only on a SACK connection (`tcp_data_queue_ofo()`: "for non sack flows, do
//!   not grow window to force DUPACK"). It grows only while there is room below the receive
//!   buffer's window, `tcp_space()`.
//! * Until the receive buffer is autotuned that room is none: 128 KiB of buffer at the measured
//!   `scaling_ratio` (below) is less window than the initial 64 KiB. `tcp_rcv_space_adjust()`
//!   (DRS) autotunes it once the receiver has an RTT estimate, which without timestamps
//!   `tcp_rcv_rtt_measure()` takes as the time the first window's worth of data took to arrive;
//!   the bulk reader has then copied far more than the initial 10 segments DRS started from, and
//!   the buffer goes to `tcp_rmem[2]` at once. From then on the room is the window clamp,
//!   `tcp_win_from_space(tcp_rmem[2])` ("make the window clamp follow along"), or the route's
//!   `window` if smaller.
//!
//! Measured on this project's testbed (6.18, the fig. 9 wireless path at 3 % loss, 400-byte
//! segments, `ss -tmi` on the receiver every 20 ms): `rcv_ssthresh` stayed at 65 136 bytes until
//! the first RTT sample (1.42 s, 65 KB received), the buffer then went from 131 072 to
//! `tcp_rmem[2]` (2 000 000, twice the scenario's window, as the testbed sets it) in one step,
//! and `rcv_ssthresh` grew in steps of exactly 800 bytes, only while no data was held out of
//! order, to 500 336 bytes at 10.8 s, where it stayed. The cap is `tcp_rmem[2]` times the
//! kernel's `scaling_ratio` (payload over the memory a received segment costs, `skb->len /
//! skb->truesize`), 1/4 here: [`LINUX_SCALING_RATIO`]. The sender's `snd_wnd` followed: 163
//! segments for the first seconds, 1 250 at most.
//!
//! Not modelled: the free space the out-of-order queue takes from the window (it matters only
//! near the cap: the application reads in-order data at once), window scaling's rounding, and
//! `scaling_ratio` for other segment sizes (measured at 400 bytes only).

use crate::model::ReceiveWindowRule;

/// Linux's `tcp_rmem[1]`, the receive buffer a connection starts with.
const LINUX_RMEM_DEFAULT: u64 = 131_072;
/// `TCP_DEFAULT_SCALING_RATIO`: the window a buffer byte is worth before the first segment is
/// measured (one half), in 1/256ths.
const LINUX_DEFAULT_SCALING_RATIO: u64 = 128;
/// The `scaling_ratio` measured on the testbed for 400-byte segments (1/4, in 1/256ths): the
/// window stopped growing at a quarter of `tcp_rmem[2]`.
pub const LINUX_SCALING_RATIO: u64 = 64;
/// `tcp_grow_window()`'s least segment: shorter ones do not grow the window.
const GROW_MIN_SEGMENT: u64 = 128;

/// Linux's `tcp_rmem[2]` for a flow whose scenario window is `receiver_window`: twice it, as
/// the testbed configures the receiver (at least 64 KiB, at most 1 GiB).
pub fn linux_rmem_max(receiver_window: u64) -> u64 {
    receiver_window.saturating_mul(2).clamp(65_536, 1 << 30)
}

/// The receiver's advertised window.
#[derive(Debug, Clone)]
pub struct ReceiveWindow {
    rule: ReceiveWindowRule,
    mss: u64,
    /// Fixed: the configured window. Linux: `rcv_ssthresh`, what is offered now.
    offered: u64,
    /// Linux: the most `rcv_ssthresh` may reach once the buffer is autotuned.
    clamp: u64,
    /// Linux: the receive buffer has been autotuned (DRS's first adjustment).
    autotuned: bool,
}

impl ReceiveWindow {
    /// The window of a receiver configured with `receiver_window` bytes and `mss`-byte segments.
    pub fn new(rule: ReceiveWindowRule, receiver_window: u64, mss: u64) -> ReceiveWindow {
        let mss = mss.max(1);
        match rule {
            ReceiveWindowRule::Fixed => {
                ReceiveWindow { rule, mss, offered: receiver_window, clamp: receiver_window, autotuned: true }
            }
            ReceiveWindowRule::Linux => {
                let clamp =
                    ((linux_rmem_max(receiver_window) * LINUX_SCALING_RATIO) >> 8).min(receiver_window);
                ReceiveWindow {
                    rule,
                    mss,
                    offered: linux_initial_window(receiver_window, mss),
                    clamp,
                    autotuned: false,
                }
            }
        }
    }

    /// A window that stays at `receiver_window` bytes (`receive_window = "fixed"`).
    pub fn fixed(receiver_window: u64) -> ReceiveWindow {
        ReceiveWindow::new(ReceiveWindowRule::Fixed, receiver_window, 1)
    }

    /// The window to advertise now (bytes beyond the cumulative ACK).
    pub fn advertised(&self) -> u64 {
        self.offered
    }

    /// A data segment of `len` bytes arrived; `in_order`: it began at `rcv_nxt` (it may have
    /// filled a gap), and `rcv_nxt` is now `rcv_nxt_after`. `sack`: the connection uses SACK.
    /// Whether the window grew: `tcp_grow_window()` then also asks for a quick ACK
    /// (`icsk_ack.quick |= 1`), so while the window opens Linux acknowledges every segment.
    pub fn on_data(&mut self, len: u64, in_order: bool, rcv_nxt_after: u64, sack: bool) -> bool {
        if self.rule == ReceiveWindowRule::Fixed {
            return false;
        }
        if !self.autotuned {
            // tcp_rcv_rtt_measure(): the first sample completes once a window's worth has
            // arrived in order; tcp_rcv_space_adjust() then takes the buffer to tcp_rmem[2].
            if rcv_nxt_after >= self.offered {
                self.autotuned = true;
            }
            return false;
        }
        if len < GROW_MIN_SEGMENT || !(in_order || sack) {
            return false;
        }
        let room = self.clamp.saturating_sub(self.offered);
        self.offered += room.min(2 * self.mss);
        room > 0
    }
}

/// `tcp_select_initial_window()`: `tcp_rmem[1]`'s window at the default `scaling_ratio`,
/// rounded down to whole segments, within the configured window.
pub fn linux_initial_window(receiver_window: u64, mss: u64) -> u64 {
    let space = ((LINUX_RMEM_DEFAULT * LINUX_DEFAULT_SCALING_RATIO) >> 8).min(receiver_window);
    if space > mss {
        space - space % mss
    } else {
        space
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_offers_the_configured_window_whatever_arrives() {
        let mut w = ReceiveWindow::fixed(1_000_000);
        for n in 1..1000 {
            w.on_data(400, true, n * 400, false);
        }
        assert_eq!(w.advertised(), 1_000_000);
    }

    #[test]
    fn linux_starts_at_64_kib_in_whole_segments_and_waits_for_the_buffer() {
        let mut w = ReceiveWindow::new(ReceiveWindowRule::Linux, 1_000_000, 400);
        // 65 536 rounded down to 400-byte segments (the testbed's kernel: 65 136).
        assert_eq!(w.advertised(), 65_200);
        // Nothing grows before a first window's worth has arrived ...
        let mut rcv_nxt = 0;
        while rcv_nxt + 400 < 65_200 {
            rcv_nxt += 400;
            w.on_data(400, true, rcv_nxt, false);
            assert_eq!(w.advertised(), 65_200);
        }
        // ... then every in-order segment adds two.
        w.on_data(400, true, 65_200, false);
        w.on_data(400, true, 65_600, false);
        assert_eq!(w.advertised(), 65_200 + 800);
    }

    #[test]
    fn linux_grows_by_two_segments_per_in_order_segment_up_to_a_quarter_of_tcp_rmem_max() {
        let mut w = ReceiveWindow::new(ReceiveWindowRule::Linux, 1_000_000, 400);
        w.on_data(400, true, 70_000, false);
        let before = w.advertised();
        // Out of order without SACK: no growth (the DUPACKs must go out unchanged).
        w.on_data(400, false, 70_000, false);
        assert_eq!(w.advertised(), before);
        // With SACK it grows.
        w.on_data(400, false, 70_000, true);
        assert_eq!(w.advertised(), before + 800);
        // The cookie-sized segment does not.
        w.on_data(37, true, 70_037, false);
        assert_eq!(w.advertised(), before + 800);
        for _ in 0..2000 {
            w.on_data(400, true, 80_000, false);
        }
        // tcp_rmem[2] = 2 000 000 at a scaling_ratio of 1/4: 500 000 bytes (the testbed's
        // kernel stopped at 500 336).
        assert_eq!(w.advertised(), 500_000);
    }

    #[test]
    fn linux_never_offers_more_than_the_configured_window() {
        let mut w = ReceiveWindow::new(ReceiveWindowRule::Linux, 40_000, 400);
        assert_eq!(w.advertised(), 40_000);
        for n in 1..500 {
            w.on_data(400, true, n * 400, false);
        }
        assert_eq!(w.advertised(), 40_000);
    }

    #[test]
    fn linux_reports_each_segment_that_opens_the_window_and_none_once_it_is_at_the_clamp() {
        // Autotuned at once (a tiny initial window), clamp 4 segments above it.
        let mut w = ReceiveWindow::new(ReceiveWindowRule::Linux, 1_000_000, 400);
        w.autotuned = true;
        w.clamp = w.offered + 4 * 400;
        assert!(w.on_data(400, true, 400, false));
        assert!(w.on_data(400, true, 800, false));
        assert!(!w.on_data(400, true, 1200, false), "at the clamp: no growth, no quick ACK");
        assert!(!w.on_data(100, true, 1300, false), "below 128 bytes nothing grows");
        let mut fixed = ReceiveWindow::fixed(1_000_000);
        assert!(!fixed.on_data(400, true, 400, false));
    }
}
