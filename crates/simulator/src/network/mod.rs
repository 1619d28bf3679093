//! The network: packets, unidirectional links with output queues and channel error models,
//! and static routing between nodes.

pub mod channel;
pub mod link;
pub mod packet;
pub mod routing;

pub use channel::ErrorModel;
pub use link::{Enqueue, Link};
pub use packet::{Packet, PacketKind};
pub use routing::Routes;
