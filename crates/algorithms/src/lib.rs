//! Congestion-control algorithms as pure, deterministic state machines.
//!
//! Nothing in this crate knows that a simulator, a clock or a socket exists: every input is an
//! event carrying its own timestamp (integer nanoseconds), every output is a window in bytes.
//! The same state machines drive the discrete-event simulator and produce the test vectors the
//! Linux eBPF implementation is checked against.
//!
//! * [`congestion`] — the narrow [`CongestionControl`] trait the TCP sender calls.
//! * [`reno`] — RFC 5681 slow start / congestion avoidance / multiplicative decrease (Reno,
//!   NewReno, SACK and Tahoe share it; they differ only in the sender's loss recovery, which is
//!   the simulator's).
//! * [`westwood`] — the TCP Westwood family: TCPW, TCPW-TR, TCPW ABSE, Westwood+, and the UCLA
//!   ns-2 agent (`docs/westwood.md` traces each to its reference).
//! * [`cubic`] — CUBIC (RFC 9438), for comparison with today's default; [`cubic_linux`] — CUBIC as
//!   Linux's `tcp_cubic.c` computes it, for the `linux` profile.
//! * [`registry`] — every control by name: kernel name, default recovery, parameters, builder.
//! * `vectors` (feature `vectors`) — the test vectors other implementations are checked
//!   against (docs/vectors.md).

pub mod congestion;
pub mod cubic;
pub mod cubic_linux;
pub mod registry;
pub mod reno;
#[cfg(feature = "vectors")]
pub mod vectors;
pub mod westwood;

pub use congestion::{AckEvent, CongestionControl, CongestionEvent, WindowConfig, WindowGrowth};
pub use cubic::{Cubic, CubicParams};
pub use cubic_linux::LinuxCubic;
pub use reno::Reno;
