//! The network: packets, unidirectional links with output queues and channel error models,
//! and static routing between nodes.

pub mod channel;
pub mod drop_list;
pub mod gilbert_elliott;
pub mod link;
pub mod multipath;
pub mod outage;
pub mod packet;
pub mod red;
pub mod routing;

pub use channel::{ErrorModel, LossCause};
pub use link::{Enqueue, Link};
pub use multipath::Multipath;
pub use packet::{Packet, PacketKind, SackBlocks};
pub use routing::Routes;
