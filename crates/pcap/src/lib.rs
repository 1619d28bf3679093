//! Packet captures for westwood (`docs/measurement.md`): one pcap/pcapng writer shared by the
//! simulator (`westwood run --pcap`) and the testbed (`westwood testbed --pcap`), frames built
//! for packets that exist only in the simulator, a streaming reader for pcap and pcapng, and the
//! tcptrace-like per-connection analysis behind `westwood analyze` and `westwood measure`.

pub mod analyze;
pub mod decode;
pub mod frame;
pub mod meta;
pub mod read;
pub mod write;

pub use analyze::{
    analyze_files, stream_files, Analysis, Connection, Event, Options as AnalyzeOptions, Sink,
};
pub use meta::FlowMeta;
pub use read::{CaptureReader, ReadError};
pub use write::{
    CaptureFile, CaptureWriter, Direction, Format, Interface, InterfaceStats, LINKTYPE_ETHERNET,
};
