//! TCP endpoints: a bulk-data sender with pluggable congestion control and loss recovery, and a
//! receiver with delayed ACKs and an out-of-order buffer. Sequence numbers count bytes from 0.
//!
//! Endpoints do no I/O and own no timers: they append the packets they emit to an output vector
//! and expose the deadline of their single timer, which the simulator schedules.

pub mod congestion_state;
pub mod observation;
pub mod push;
pub mod receive_window;
pub mod receiver;
pub mod recovery;
pub mod reordering;
pub mod retransmission_timer;
pub mod rtt;
pub mod sack;
pub mod send_buffer;
pub mod sender;
#[cfg(test)]
mod sender_tests;
pub mod timer_wheel;
pub mod window_use;

pub use observation::AckObservation;
pub use receive_window::ReceiveWindow;
pub use receiver::Receiver;
pub use recovery::Recovery;
pub use rtt::RttEstimator;
pub use sack::Scoreboard;
pub use send_buffer::SendBuffer;
pub use sender::{Sender, SenderStats};
