//! The simulator's side of the per-ACK trace (`docs/ack-trace.md`): where the rows go
//! ([`AckSink`]), the file `westwood run --ack-trace` writes ([`AckTraceFile`]), and the error of
//! a traced run ([`RunError`]). The rows themselves are taken by the TCP sender
//! ([`crate::tcp::AckObservation`]) and named here, per flow ([`FlowTrace`]).
//!
//! Rows stream out as the run goes: nothing is kept for the whole run.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use westwood_trace::{AckRecord, AckTraceWriter, AtomicFile};

use crate::results::Warning;
use crate::scenario::ScenarioError;
use crate::tcp::{AckObservation, Sender};

/// Where a traced run sends its rows, in simulated-time order (rows of different flows
/// interleave). An error stops the run.
pub trait AckSink {
    fn write_row(&mut self, row: &AckRecord) -> io::Result<()>;
}

/// Rows kept in memory: for tests and short runs.
impl AckSink for Vec<AckRecord> {
    fn write_row(&mut self, row: &AckRecord) -> io::Result<()> {
        self.push(row.clone());
        Ok(())
    }
}

/// A trace file that appears under its name only when [`AckTraceFile::commit`] is called after a
/// successful run; dropped before that (a failed or interrupted run), it leaves nothing behind.
pub struct AckTraceFile {
    path: PathBuf,
    // AtomicFile buffers its writes (64 KiB), so rows are not written one syscall each.
    writer: AckTraceWriter<AtomicFile>,
}

impl AckTraceFile {
    pub fn create(path: impl AsRef<Path>) -> io::Result<AckTraceFile> {
        let path = path.as_ref().to_path_buf();
        let writer =
            AtomicFile::create(&path).and_then(AckTraceWriter::new).map_err(|e| with_path(&path, e))?;
        Ok(AckTraceFile { path, writer })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flush and move the file into place; returns the number of rows.
    pub fn commit(mut self) -> io::Result<u64> {
        let rows = self.writer.rows();
        self.writer.flush().map_err(|e| with_path(&self.path, e))?;
        self.writer.into_inner().commit().map_err(|e| with_path(&self.path, e))?;
        Ok(rows)
    }
}

impl AckSink for AckTraceFile {
    fn write_row(&mut self, row: &AckRecord) -> io::Result<()> {
        self.writer.write(row).map_err(|e| with_path(&self.path, e))
    }
}

/// The same error, its message starting with the file it is about.
pub(crate) fn with_path(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Why a run failed: the scenario (or the run) was invalid, an output could not be written, or
/// the caller stopped it.
#[derive(Debug)]
pub enum RunError {
    Scenario(ScenarioError),
    Trace(io::Error),
    /// The time series could not be written.
    Series(io::Error),
    /// A packet capture could not be written.
    Capture(io::Error),
    /// `RunControl::interrupted` asked the run to stop.
    Interrupted,
    /// `RunControl::strict`: the scenario defeats itself (`crate::warnings`). Build-time
    /// warnings refuse before the run starts, loss warnings after it; either way no result.
    Refused {
        /// The scenario's file.
        file: String,
        warnings: Vec<Warning>,
    },
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Scenario(e) => e.fmt(f),
            RunError::Trace(e) => write!(f, "cannot write the per-ACK trace: {e}"),
            RunError::Series(e) => write!(f, "cannot write the time series: {e}"),
            RunError::Capture(e) => write!(f, "cannot write a packet capture: {e}"),
            RunError::Interrupted => write!(f, "interrupted"),
            RunError::Refused { file, warnings } => {
                let file = if file.is_empty() { String::new() } else { format!("{file}: ") };
                match warnings.as_slice() {
                    [one] => write!(f, "{file}refused (strict): {}", one.message),
                    many => {
                        write!(f, "{file}refused (strict), {} warnings:", many.len())?;
                        many.iter().try_for_each(|w| write!(f, "\n  {}", w.message))
                    }
                }
            }
        }
    }
}

impl std::error::Error for RunError {}

impl From<ScenarioError> for RunError {
    fn from(e: ScenarioError) -> Self {
        RunError::Scenario(e)
    }
}

impl From<io::Error> for RunError {
    fn from(e: io::Error) -> Self {
        RunError::Trace(e)
    }
}

/// One flow's rows: its names are filled in once, so a row costs no allocation for them.
#[derive(Debug, Clone)]
pub(crate) struct FlowTrace {
    row: AckRecord,
}

impl FlowTrace {
    /// `flow` and `cc` as the summary names them; `mss` the sender's segment size.
    pub(crate) fn new(flow: &str, cc: &str, mss: u64) -> Self {
        FlowTrace {
            row: AckRecord { flow: flow.to_string(), cc: cc.to_string(), mss, ..AckRecord::default() },
        }
    }

    /// Write what `sender` observed since the last call.
    pub(crate) fn write(&mut self, sender: &mut Sender, sink: &mut dyn AckSink) -> io::Result<()> {
        for observation in sender.take_observations() {
            self.fill(&observation);
            sink.write_row(&self.row)?;
        }
        Ok(())
    }

    fn fill(&mut self, o: &AckObservation) {
        let micros = |ns: u64| ns as f64 / 1000.0;
        let r = &mut self.row;
        r.time_ns = o.time_ns;
        r.event = o.event;
        r.ack = o.ack;
        r.acked_bytes = o.acked_bytes;
        r.dupack = o.dupack;
        r.sacked_bytes = o.sacked_bytes;
        r.credited_bytes = o.credited_bytes;
        r.rtt_us = o.rtt_ns.map(micros);
        r.bwe_bps = o.bwe_bps;
        r.rtt_min_us = o.rtt_min_ns.map(micros);
        r.cwnd_bytes = o.cwnd_bytes;
        r.ssthresh_bytes = o.ssthresh_bytes;
        r.ca_state = o.ca_state;
        r.in_flight_bytes = o.in_flight_bytes;
    }
}
