//! The network: packets, unidirectional links with output queues and channel error models,
//! and static routing between nodes.

pub mod link;
pub mod loss;
pub mod multipath;
pub mod packet;
pub mod red;
pub mod routing;

pub use link::{Enqueue, Link};
pub use loss::{ErrorModel, LossCause, LossModel};
pub use multipath::Multipath;
pub use packet::{Packet, PacketKind, SackBlocks};
pub use routing::Routes;
