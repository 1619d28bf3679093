//! The per-ACK trace: one row per ACK a TCP sender processed (and one per loss reaction), with
//! what its congestion control saw and decided. The simulator, the kernel's tcpw* (through a BPF
//! ring buffer) and the testbed all write it through [`AckTraceWriter`], and `replay` reads it
//! back with [`read_ack_trace`], so the three ACK streams can be compared column by column.
//! The format is documented in `docs/ack-trace.md`; [`COLUMNS`] is its header.

use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// The header, in order (`docs/ack-trace.md`).
pub const COLUMNS: [&str; 17] = [
    "time_ns",
    "flow",
    "cc",
    "event",
    "ack",
    "acked_bytes",
    "dupack",
    "sacked_bytes",
    "credited_bytes",
    "rtt_us",
    "bwe_bps",
    "rtt_min_us",
    "cwnd_bytes",
    "ssthresh_bytes",
    "mss",
    "ca_state",
    "in_flight_bytes",
];

/// What a row records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TraceEvent {
    /// An ACK (new or duplicate).
    #[default]
    Ack,
    /// The loss reaction when fast recovery (or CWR) starts: ssthresh has just been set.
    Recovery,
    /// The loss reaction at a retransmission timeout.
    Timeout,
    /// A retransmission timeout inside a loss episode whose threshold is already set: the
    /// window restarts, ssthresh stays (Linux's `tcp_enter_loss`; an RTO during fast recovery,
    /// or a repeated one, without a new threshold).
    TimeoutHeld,
}

impl TraceEvent {
    pub const ALL: [TraceEvent; 4] =
        [TraceEvent::Ack, TraceEvent::Recovery, TraceEvent::Timeout, TraceEvent::TimeoutHeld];

    /// A retransmission timeout, with or without a new threshold.
    pub fn is_timeout(self) -> bool {
        matches!(self, TraceEvent::Timeout | TraceEvent::TimeoutHeld)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TraceEvent::Ack => "ack",
            TraceEvent::Recovery => "recovery",
            TraceEvent::Timeout => "timeout",
            TraceEvent::TimeoutHeld => "timeout_held",
        }
    }
}

/// The sender's congestion state after the row's event (the kernel's `icsk_ca_state` names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CaState {
    #[default]
    Open,
    /// DUPACKs (or SACKs) seen, below the fast-retransmit threshold.
    Disorder,
    /// ECN congestion window reduction (kernel only).
    Cwr,
    /// Fast recovery.
    Recovery,
    /// After a retransmission timeout, until the data outstanding at it is acknowledged.
    Loss,
}

impl CaState {
    pub const ALL: [CaState; 5] =
        [CaState::Open, CaState::Disorder, CaState::Cwr, CaState::Recovery, CaState::Loss];

    pub fn as_str(self) -> &'static str {
        match self {
            CaState::Open => "open",
            CaState::Disorder => "disorder",
            CaState::Cwr => "cwr",
            CaState::Recovery => "recovery",
            CaState::Loss => "loss",
        }
    }

    /// The kernel's `enum tcp_ca_state` (TCP_CA_Open = 0 ... TCP_CA_Loss = 4).
    pub fn from_kernel(state: u8) -> Option<CaState> {
        match state {
            0 => Some(CaState::Open),
            1 => Some(CaState::Disorder),
            2 => Some(CaState::Cwr),
            3 => Some(CaState::Recovery),
            4 => Some(CaState::Loss),
            _ => None,
        }
    }
}

/// One row. Field meanings and units: `docs/ack-trace.md`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AckRecord {
    pub time_ns: u64,
    pub flow: String,
    pub cc: String,
    pub event: TraceEvent,
    pub ack: u64,
    pub acked_bytes: u64,
    pub dupack: bool,
    pub sacked_bytes: u64,
    pub credited_bytes: Option<u64>,
    pub rtt_us: Option<f64>,
    pub bwe_bps: Option<f64>,
    pub rtt_min_us: Option<f64>,
    pub cwnd_bytes: u64,
    pub ssthresh_bytes: u64,
    pub mss: u64,
    pub ca_state: CaState,
    pub in_flight_bytes: u64,
}

/// Text of one CSV field: quoted only when it must be (names with commas, quotes, newlines).
fn push_text(line: &mut String, s: &str) {
    if s.contains([',', '"', '\n', '\r']) {
        line.push('"');
        line.push_str(&s.replace('"', "\"\""));
        line.push('"');
    } else {
        line.push_str(s);
    }
}

/// A float in its shortest round-trip form (Rust's `Display`), empty for none or non-finite.
fn push_float(line: &mut String, v: Option<f64>) {
    use fmt::Write as _;
    if let Some(v) = v.filter(|v| v.is_finite()) {
        let _ = write!(line, "{v}");
    }
}

impl AckRecord {
    /// The row as CSV text, without the line end.
    pub fn to_csv_line(&self) -> String {
        use fmt::Write as _;
        let mut l = String::with_capacity(160);
        let _ = write!(l, "{},", self.time_ns);
        push_text(&mut l, &self.flow);
        l.push(',');
        push_text(&mut l, &self.cc);
        let _ = write!(
            l,
            ",{},{},{},{},{},",
            self.event.as_str(),
            self.ack,
            self.acked_bytes,
            u8::from(self.dupack),
            self.sacked_bytes
        );
        if let Some(c) = self.credited_bytes {
            let _ = write!(l, "{c}");
        }
        l.push(',');
        push_float(&mut l, self.rtt_us);
        l.push(',');
        push_float(&mut l, self.bwe_bps);
        l.push(',');
        push_float(&mut l, self.rtt_min_us);
        let _ = write!(
            l,
            ",{},{},{},{},{}",
            self.cwnd_bytes,
            self.ssthresh_bytes,
            self.mss,
            self.ca_state.as_str(),
            self.in_flight_bytes
        );
        l
    }
}

/// Writes the header, then one line per [`AckRecord`].
pub struct AckTraceWriter<W: Write> {
    out: W,
    rows: u64,
}

impl<W: Write> AckTraceWriter<W> {
    pub fn new(mut out: W) -> io::Result<Self> {
        writeln!(out, "{}", COLUMNS.join(","))?;
        Ok(AckTraceWriter { out, rows: 0 })
    }

    pub fn write(&mut self, record: &AckRecord) -> io::Result<()> {
        self.rows += 1;
        writeln!(self.out, "{}", record.to_csv_line())
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

/// A file that appears at its path only when [`AtomicFile::commit`] is called: it is written
/// as `PATH.partial` next to it and renamed; dropped without commit, the partial file is
/// removed. So an interrupted run never leaves a half-written trace under the final name.
pub struct AtomicFile {
    path: PathBuf,
    partial: PathBuf,
    file: Option<BufWriter<File>>,
}

impl AtomicFile {
    pub fn create(path: impl AsRef<Path>) -> io::Result<AtomicFile> {
        let path = path.as_ref().to_path_buf();
        let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
        name.push(".partial");
        let partial = path.with_file_name(name);
        let file = File::create(&partial)?;
        Ok(AtomicFile { path, partial, file: Some(BufWriter::with_capacity(1 << 16, file)) })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flush, sync and rename into place.
    pub fn commit(mut self) -> io::Result<()> {
        let mut w = self.file.take().expect("not yet committed");
        w.flush()?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&self.partial, &self.path)
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.as_mut().expect("not yet committed").write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.as_mut().expect("not yet committed").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.partial);
        }
    }
}

/// An error reading a trace: the file, the line (1-based) and the column it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceError {
    pub file: String,
    pub line: usize,
    pub column: Option<&'static str>,
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        if let Some(c) = self.column {
            write!(f, ": column `{c}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for TraceError {}

/// Reads a trace written by [`AckTraceWriter`] (or any CSV with [`COLUMNS`] in its header, in
/// any order, extra columns ignored), with the `csv` crate.
pub struct AckTraceReader<R: Read> {
    reader: csv::Reader<R>,
    file: String,
    /// The line the last record started on (1: the header).
    line: usize,
    /// Position of each of COLUMNS in the file's rows.
    index: [usize; COLUMNS.len()],
    record: csv::StringRecord,
}

impl AckTraceReader<BufReader<File>> {
    pub fn open(path: impl AsRef<Path>) -> Result<Self, TraceError> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let file = File::open(path).map_err(|e| TraceError {
            file: name.clone(),
            line: 0,
            column: None,
            message: e.to_string(),
        })?;
        AckTraceReader::new(BufReader::with_capacity(1 << 16, file), name)
    }
}

/// A `csv` error as ours: the line it names, its message without the position.
fn csv_error(file: &str, fallback_line: usize, e: csv::Error) -> TraceError {
    let line = e.position().map_or(fallback_line, |p| p.line() as usize);
    let message = match e.kind() {
        csv::ErrorKind::Io(io) => io.to_string(),
        csv::ErrorKind::Utf8 { err, .. } => format!("not UTF-8 text ({err})"),
        _ => e.to_string(),
    };
    TraceError { file: file.to_string(), line, column: None, message }
}

impl<R: Read> AckTraceReader<R> {
    /// `name` is what errors call the input.
    pub fn new(input: R, name: impl Into<String>) -> Result<Self, TraceError> {
        let file = name.into();
        // Flexible: a short row is our error, naming the column it lacks.
        let mut reader = csv::ReaderBuilder::new().has_headers(true).flexible(true).from_reader(input);
        let names = reader.headers().map_err(|e| csv_error(&file, 1, e))?.clone();
        let mut index = [0usize; COLUMNS.len()];
        let mut missing = Vec::new();
        for (i, col) in COLUMNS.iter().enumerate() {
            match names.iter().position(|n| n == *col) {
                Some(p) => index[i] = p,
                None => missing.push(*col),
            }
        }
        if !missing.is_empty() {
            return Err(TraceError {
                file,
                line: 1,
                column: None,
                message: format!(
                    "not a per-ACK trace: the header lacks {} (expected the columns of docs/ack-trace.md: {})",
                    missing.join(", "),
                    COLUMNS.join(",")
                ),
            });
        }
        Ok(AckTraceReader { reader, file, line: 1, index, record: csv::StringRecord::new() })
    }

    /// The line the last record read started on.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The next record, `None` at the end (blank lines are skipped).
    pub fn next_record(&mut self) -> Result<Option<AckRecord>, TraceError> {
        let more =
            self.reader.read_record(&mut self.record).map_err(|e| csv_error(&self.file, self.line + 1, e))?;
        if !more {
            return Ok(None);
        }
        // The record's first line: `csv` counts blank lines before it into its position, so
        // also count back from where it ended (the quoted newlines it holds included); a last
        // record without a line end leaves only the first.
        let start = self.record.position().map_or(self.line + 1, |p| p.line() as usize);
        let quoted_newlines = self.record.iter().map(|f| f.matches('\n').count()).sum::<usize>();
        let from_end = (self.reader.position().line() as usize).saturating_sub(1 + quoted_newlines);
        self.line = start.max(from_end);
        self.parse(&self.record).map(Some)
    }

    fn error(&self, column: Option<&'static str>, message: String) -> TraceError {
        TraceError { file: self.file.clone(), line: self.line, column, message }
    }

    fn field<'a>(&self, fields: &'a csv::StringRecord, i: usize) -> Result<&'a str, TraceError> {
        fields.get(self.index[i]).ok_or_else(|| {
            self.error(
                Some(COLUMNS[i]),
                format!("the row has {} fields, the header {}+", fields.len(), COLUMNS.len()),
            )
        })
    }

    fn int(&self, fields: &csv::StringRecord, i: usize) -> Result<u64, TraceError> {
        let s = self.field(fields, i)?;
        s.parse().map_err(|_| self.error(Some(COLUMNS[i]), format!("{s:?} is not a non-negative integer")))
    }

    fn opt_int(&self, fields: &csv::StringRecord, i: usize) -> Result<Option<u64>, TraceError> {
        if self.field(fields, i)?.is_empty() {
            Ok(None)
        } else {
            self.int(fields, i).map(Some)
        }
    }

    fn opt_float(&self, fields: &csv::StringRecord, i: usize) -> Result<Option<f64>, TraceError> {
        let s = self.field(fields, i)?;
        if s.is_empty() {
            return Ok(None);
        }
        match s.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Some(v)),
            _ => {
                Err(self.error(Some(COLUMNS[i]), format!("{s:?} is not a finite number (empty means none)")))
            }
        }
    }

    fn parse(&self, f: &csv::StringRecord) -> Result<AckRecord, TraceError> {
        let event_text = self.field(f, 3)?;
        let event = TraceEvent::ALL.into_iter().find(|e| e.as_str() == event_text).ok_or_else(|| {
            self.error(Some("event"), format!("{event_text:?} is not one of ack, recovery, timeout"))
        })?;
        let dupack = match self.field(f, 6)? {
            "0" => false,
            "1" => true,
            other => return Err(self.error(Some("dupack"), format!("{other:?} is not 0 or 1"))),
        };
        let state_text = self.field(f, 15)?;
        let ca_state = CaState::ALL.into_iter().find(|s| s.as_str() == state_text).ok_or_else(|| {
            self.error(
                Some("ca_state"),
                format!("{state_text:?} is not one of open, disorder, cwr, recovery, loss"),
            )
        })?;
        Ok(AckRecord {
            time_ns: self.int(f, 0)?,
            flow: self.field(f, 1)?.to_string(),
            cc: self.field(f, 2)?.to_string(),
            event,
            ack: self.int(f, 4)?,
            acked_bytes: self.int(f, 5)?,
            dupack,
            sacked_bytes: self.int(f, 7)?,
            credited_bytes: self.opt_int(f, 8)?,
            rtt_us: self.opt_float(f, 9)?,
            bwe_bps: self.opt_float(f, 10)?,
            rtt_min_us: self.opt_float(f, 11)?,
            cwnd_bytes: self.int(f, 12)?,
            ssthresh_bytes: self.int(f, 13)?,
            mss: self.int(f, 14)?,
            ca_state,
            in_flight_bytes: self.int(f, 16)?,
        })
    }
}

impl<R: Read> Iterator for AckTraceReader<R> {
    type Item = Result<AckRecord, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

/// Every record of the trace at `path`.
pub fn read_ack_trace(path: impl AsRef<Path>) -> Result<Vec<AckRecord>, TraceError> {
    AckTraceReader::open(path)?.collect()
}

/// Turns a 32-bit sequence number stream (the kernel's) into 64-bit offsets from a start value:
/// each new value moves the offset by its signed 32-bit distance from the previous one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeqUnwrapper {
    last32: u32,
    last64: u64,
}

impl SeqUnwrapper {
    pub fn new(start: u32) -> Self {
        SeqUnwrapper { last32: start, last64: 0 }
    }

    /// Continue a stream first seen at `seq`, which is taken as the offset itself (for offsets
    /// already counted from the start, e.g. the kernel's `snd_una - start`, read by a consumer
    /// that attached later).
    pub fn first_seen(seq: u32) -> Self {
        SeqUnwrapper { last32: seq, last64: u64::from(seq) }
    }

    /// Offset of `seq` from the start (never below 0: an older value than the start gives 0).
    pub fn unwrap(&mut self, seq: u32) -> u64 {
        let step = seq.wrapping_sub(self.last32) as i32;
        self.last64 = self.last64.saturating_add_signed(i64::from(step));
        self.last32 = seq;
        self.last64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> AckRecord {
        AckRecord {
            time_ns: 1_234_567_000,
            flow: "ftp".into(),
            cc: "westwood".into(),
            event: TraceEvent::Ack,
            ack: 144_800,
            acked_bytes: 2896,
            dupack: false,
            sacked_bytes: 0,
            credited_bytes: Some(2896),
            rtt_us: Some(100_123.456),
            bwe_bps: Some(1.0 / 3.0 * 1e7),
            rtt_min_us: Some(100_000.0),
            cwnd_bytes: 14480,
            ssthresh_bytes: 2_147_483_647,
            mss: 1448,
            ca_state: CaState::Open,
            in_flight_bytes: 11584,
        }
    }

    #[test]
    fn header_and_row_round_trip() {
        let mut w = AckTraceWriter::new(Vec::new()).unwrap();
        let a = sample();
        let b = AckRecord {
            flow: "10.0.0.1:40000-10.0.0.2:5201".into(),
            event: TraceEvent::Timeout,
            dupack: true,
            credited_bytes: None,
            rtt_us: None,
            bwe_bps: None,
            rtt_min_us: None,
            ca_state: CaState::Loss,
            ..sample()
        };
        let c = AckRecord { event: TraceEvent::TimeoutHeld, ..b.clone() };
        w.write(&a).unwrap();
        w.write(&b).unwrap();
        w.write(&c).unwrap();
        assert_eq!(w.rows(), 3);
        let text = String::from_utf8(w.into_inner()).unwrap();
        assert!(text.starts_with(&format!("{}\n", COLUMNS.join(","))));
        assert_eq!(text.lines().nth(2).unwrap().matches(',').count(), COLUMNS.len() - 1);
        let back: Vec<AckRecord> =
            AckTraceReader::new(text.as_bytes(), "mem").unwrap().collect::<Result<_, _>>().unwrap();
        assert_eq!(back, vec![a, b, c]);
        assert!(text.contains(",timeout_held,"));
        // The float came back bit for bit (shortest round-trip form).
        assert_eq!(back[0].bwe_bps.unwrap().to_bits(), (1.0f64 / 3.0 * 1e7).to_bits());
    }

    #[test]
    fn names_that_need_quoting_survive() {
        let r = AckRecord { flow: "a,\"b\"".into(), ..sample() };
        let line = r.to_csv_line();
        assert!(line.contains("\"a,\"\"b\"\"\""), "{line}");
        let text = format!("{}\n{line}\n", COLUMNS.join(","));
        let back = AckTraceReader::new(text.as_bytes(), "mem").unwrap().next_record().unwrap().unwrap();
        assert_eq!(back.flow, "a,\"b\"");
    }

    #[test]
    fn non_finite_floats_are_written_as_empty() {
        let r = AckRecord { bwe_bps: Some(f64::NAN), rtt_us: Some(f64::INFINITY), ..sample() };
        let text = format!("{}\n{}\n", COLUMNS.join(","), r.to_csv_line());
        let back = AckTraceReader::new(text.as_bytes(), "mem").unwrap().next_record().unwrap().unwrap();
        assert_eq!((back.bwe_bps, back.rtt_us), (None, None));
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let bad =
            format!("{}\n{}\n", COLUMNS.join(","), sample().to_csv_line().replacen(",ack,", ",nak,", 1));
        let e = AckTraceReader::new(bad.as_bytes(), "t.csv").unwrap().next_record().unwrap_err();
        assert_eq!((e.file.as_str(), e.line, e.column), ("t.csv", 2, Some("event")));
        assert!(e.to_string().starts_with("t.csv:2: column `event`"), "{e}");
        let e = AckTraceReader::new("time_ns,flow\n".as_bytes(), "x.csv").err().unwrap();
        assert!(e.message.contains("lacks cc, event"), "{e}");
        let short = format!("{}\n1,f,c\n", COLUMNS.join(","));
        let e = AckTraceReader::new(short.as_bytes(), "s.csv").unwrap().next_record().unwrap_err();
        assert_eq!(e.column, Some("event"));
    }

    #[test]
    fn quoted_names_blank_lines_and_line_numbers() {
        let mut odd = sample();
        odd.flow = "a,\"b\"\nc".into();
        let text = format!(
            "{}\n\n{}\n{}\n",
            COLUMNS.join(","),
            odd.to_csv_line(),
            sample().to_csv_line().replacen(",ack,", ",nak,", 1)
        );
        let mut reader = AckTraceReader::new(text.as_bytes(), "q.csv").unwrap();
        assert_eq!(reader.next_record().unwrap().unwrap(), odd);
        // The blank line is skipped; the quoted newline spans lines 3 and 4.
        assert_eq!(reader.line(), 3);
        let e = reader.next_record().unwrap_err();
        assert_eq!((e.line, e.column), (5, Some("event")));
        let unterminated = format!("{}\n1,\"f,c\n", COLUMNS.join(","));
        let mut reader = AckTraceReader::new(unterminated.as_bytes(), "u.csv").unwrap();
        assert!(reader.next_record().is_err());
    }

    #[test]
    fn columns_in_another_order_and_extra_columns_are_read() {
        let mut cols: Vec<&str> = COLUMNS.to_vec();
        cols.reverse();
        cols.push("extra");
        let r = sample();
        let line = r.to_csv_line();
        let mut fields: Vec<String> = line.split(',').map(String::from).collect();
        fields.reverse();
        fields.push("x".into());
        let text = format!("{}\n{}\n", cols.join(","), fields.join(","));
        let back = AckTraceReader::new(text.as_bytes(), "mem").unwrap().next_record().unwrap().unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn atomic_file_appears_only_on_commit() {
        let dir = std::env::temp_dir().join(format!("westwood-trace-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("acks.csv");
        {
            let mut f = AtomicFile::create(&path).unwrap();
            f.write_all(b"half").unwrap();
            assert!(dir.join("acks.csv.partial").exists());
        }
        assert!(!path.exists() && !dir.join("acks.csv.partial").exists());
        let mut w = AckTraceWriter::new(AtomicFile::create(&path).unwrap()).unwrap();
        w.write(&sample()).unwrap();
        w.into_inner().commit().unwrap();
        assert_eq!(read_ack_trace(&path).unwrap(), vec![sample()]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sequence_numbers_unwrap_across_2_to_the_32() {
        let start = u32::MAX - 1000;
        let mut u = SeqUnwrapper::new(start);
        assert_eq!(u.unwrap(start), 0);
        assert_eq!(u.unwrap(start.wrapping_add(1500)), 1500);
        assert_eq!(u.unwrap(start.wrapping_add(3000)), 3000);
        assert_eq!(u.unwrap(start.wrapping_add(2000)), 2000); // an older ACK moves back
        assert_eq!(SeqUnwrapper::new(10).unwrap(5), 0);
        // Attached 3 GB into a transfer: the first value is the offset, not a step back.
        let mut late = SeqUnwrapper::first_seen(3_000_000_000);
        assert_eq!(late.unwrap(3_000_000_000), 3_000_000_000);
        assert_eq!(late.unwrap(3_000_000_000u32.wrapping_add(2_000_000_000)), 5_000_000_000);
    }

    #[test]
    fn kernel_ca_states() {
        assert_eq!(CaState::from_kernel(3), Some(CaState::Recovery));
        assert_eq!(CaState::from_kernel(9), None);
    }
}
