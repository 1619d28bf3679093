//! When a Linux timer really fires (`timer_hz`): the kernel's retransmission and delayed-ACK
//! timers are `timer_list`s on the timer wheel (kernel/time/timer.c), which counts in jiffies
//! and files a timer in a bucket whose granularity grows with how far ahead it expires. A timer
//! armed for `delay` is set `usecs_to_jiffies(delay)` jiffies ahead (rounded up), and
//! `calc_wheel_index()` -> `calc_index()` rounds its expiry up past the next multiple of its
//! level's granularity, "to guarantee that a timer does not fire early": 1 jiffy below 63
//! jiffies ahead, 8 below 504, 64 below 4032, 512 below 32256, 8 times more each level after.
//! At HZ 250 (a jiffy of 4 ms, Debian's kernels and this project's testbed) a 40 ms delayed
//! ACK fires 40-44 ms after it was armed, a 1.1 s retransmission timer 1.1-1.132 s after, a
//! 4.4 s backed-off one up to 256 ms late. Measured on the testbed: the kernel's delayed ACKs
//! came 43 ms after the segment they acknowledged, its 1.1 s retransmission timer fired 31-40
//! ms later than the simulator's exact one.
//!
//! The simulated clock starts at jiffy 0; the kernel's jiffies run from boot, so a real timer's
//! place within its bucket differs run to run, and only its lateness on average is the same.
//! `timer_hz = 0` fires timers exactly on time (the other profiles).

use crate::model::{Nanos, NANOS_PER_SECOND};

/// `LVL_CLK_SHIFT`: each level's granularity is 8 times the one below.
const LEVEL_SHIFT: u32 = 3;
/// `LVL_SIZE - 1`: buckets per level, less one; `LVL_START(n) = 63 << 3 (n - 1)`.
const LEVEL_START: u64 = 63;
/// `LVL_DEPTH` for HZ above 100: levels beyond the eighth are never reached by TCP's timers
/// (at most `TCP_RTO_MAX`, 120 s).
const LEVELS: u32 = 9;

/// The timer wheel of a kernel with `HZ` jiffies a second, or exact timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TimerWheel {
    /// A jiffy; 0: timers fire exactly when due.
    jiffy: Nanos,
}

impl TimerWheel {
    /// A wheel of `hz` jiffies a second; 0: exact timers.
    pub fn new(hz: u32) -> TimerWheel {
        TimerWheel { jiffy: if hz == 0 { 0 } else { NANOS_PER_SECOND / u64::from(hz) } }
    }

    /// When a timer armed at `now` to expire `delay` later fires.
    pub fn fire_at(self, now: Nanos, delay: Nanos) -> Nanos {
        if self.jiffy == 0 {
            return now.saturating_add(delay);
        }
        let clk = now / self.jiffy;
        let ahead = delay.div_ceil(self.jiffy);
        let expires = clk + ahead;
        let mut level = 0;
        while level + 1 < LEVELS && ahead >= LEVEL_START << (LEVEL_SHIFT * level) {
            level += 1;
        }
        let shift = LEVEL_SHIFT * level;
        (((expires >> shift) + 1) << shift).saturating_mul(self.jiffy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = 1_000_000;

    #[test]
    fn exact_without_a_wheel() {
        assert_eq!(TimerWheel::new(0).fire_at(123, 456), 579);
    }

    #[test]
    fn at_hz_250_a_short_timer_fires_on_the_jiffy_after_its_expiry() {
        let wheel = TimerWheel::new(250);
        // Armed 1 ms into jiffy 100 for 40 ms (10 jiffies): expires at jiffy 110, fires at 111.
        assert_eq!(wheel.fire_at(401 * MS, 40 * MS), 444 * MS);
        // A delay that is not whole jiffies is rounded up first (usecs_to_jiffies()).
        assert_eq!(wheel.fire_at(400 * MS, 41 * MS), 448 * MS);
    }

    #[test]
    fn farther_timers_go_to_coarser_buckets() {
        let wheel = TimerWheel::new(250);
        // 1.1 s = 275 jiffies ahead: level 1, 8-jiffy (32 ms) buckets. From jiffy 1000 it
        // expires at 1275 and fires at 1280.
        assert_eq!(wheel.fire_at(4000 * MS, 1100 * MS), 5120 * MS);
        // At a bucket's edge it still waits for the next one: 1272 -> 1280.
        assert_eq!(wheel.fire_at(4000 * MS, 1088 * MS), 5120 * MS);
        // 4.4 s = 1100 jiffies: level 2, 64-jiffy (256 ms) buckets: 2100 -> 2112.
        assert_eq!(wheel.fire_at(4000 * MS, 4400 * MS), 2112 * 4 * MS);
        // Never early, and late by less than the bucket.
        for delay in [10 * MS, 300 * MS, 1100 * MS, 4400 * MS, 20_000 * MS, 120_000 * MS] {
            for now in [0, 3 * MS, 999 * MS, 12_345 * MS] {
                let at = wheel.fire_at(now, delay);
                assert!(at > now + delay - 4 * MS && at >= now + delay - (now % (4 * MS)), "{now} {delay}");
                let bucket = if delay < 252 * MS {
                    4
                } else if delay < 2016 * MS {
                    32
                } else if delay < 16_128 * MS {
                    256
                } else {
                    2048
                };
                assert!(at <= now + delay + (bucket + 4) * MS, "{now} {delay}: {at}");
            }
        }
    }
}
