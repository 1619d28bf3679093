//! Where a run's time series go as it runs: into memory ([`SeriesMemory`], what the Python API
//! turns into DataFrames) or straight into `flow_series.csv` and `link_series.csv`
//! ([`SeriesCsvFiles`], what `westwood run --out` writes), so that a long or wide run records
//! its series with a bounded buffer instead of holding every sample until the end.
//!
//! The CSV files have the columns and the number format `westwood run --out` has always written
//! (python/westwood/report/tables.py; floats as Python's `str(float)`), so readers see no difference.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use westwood_trace::AtomicFile;

use crate::ack_trace::with_path;

use crate::results::columns::{FLOW_SERIES_COLUMNS, LINK_SERIES_COLUMNS};
use crate::results::{FlowSeries, LinkSeries};

/// One sample of one TCP flow.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlowSample<'a> {
    pub time_seconds: f64,
    pub flow: &'a str,
    pub cwnd_bytes: u64,
    pub ssthresh_bytes: u64,
    pub srtt_seconds: f64,
    pub bwe_bps: f64,
    pub bytes_delivered: u64,
    pub snd_max: u64,
    pub snd_una: u64,
}

/// One sample of one link.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkSample<'a> {
    pub time_seconds: f64,
    pub link: &'a str,
    pub queue_packets: u64,
    pub queue_bytes: u64,
    pub queue_avg_packets: f64,
    pub drops_overflow: u64,
    pub drops_red: u64,
    pub drops_error: u64,
    pub drops_outage: u64,
}

/// Receives the samples of a run in simulated-time order. An error ends the run.
pub trait SeriesSink {
    fn flow_sample(&mut self, sample: &FlowSample<'_>) -> io::Result<()>;
    fn link_sample(&mut self, sample: &LinkSample<'_>) -> io::Result<()>;
}

/// Samples kept as columns in memory.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SeriesMemory {
    pub flows: FlowSeries,
    pub links: LinkSeries,
}

impl SeriesSink for SeriesMemory {
    fn flow_sample(&mut self, x: &FlowSample<'_>) -> io::Result<()> {
        let s = &mut self.flows;
        s.time_seconds.push(x.time_seconds);
        s.flow.push(x.flow.to_string());
        s.cwnd_bytes.push(x.cwnd_bytes);
        s.ssthresh_bytes.push(x.ssthresh_bytes);
        s.srtt_seconds.push(x.srtt_seconds);
        s.bwe_bps.push(x.bwe_bps);
        s.bytes_delivered.push(x.bytes_delivered);
        s.snd_max.push(x.snd_max);
        s.snd_una.push(x.snd_una);
        Ok(())
    }

    fn link_sample(&mut self, x: &LinkSample<'_>) -> io::Result<()> {
        let s = &mut self.links;
        s.time_seconds.push(x.time_seconds);
        s.link.push(x.link.to_string());
        s.queue_packets.push(x.queue_packets);
        s.queue_bytes.push(x.queue_bytes);
        s.queue_avg_packets.push(x.queue_avg_packets);
        s.drops_overflow.push(x.drops_overflow);
        s.drops_red.push(x.drops_red);
        s.drops_error.push(x.drops_error);
        s.drops_outage.push(x.drops_outage);
        Ok(())
    }
}

/// `flow_series.csv` and `link_series.csv` in a directory, written as the run goes through
/// buffered temporary files that take their names only on [`SeriesCsvFiles::commit`]: a failed
/// or interrupted run leaves neither.
pub struct SeriesCsvFiles {
    flows: CsvFile,
    links: CsvFile,
    line: String,
}

struct CsvFile {
    path: PathBuf,
    file: AtomicFile,
}

impl CsvFile {
    fn create(path: PathBuf, columns: &[&str]) -> io::Result<CsvFile> {
        let mut file = AtomicFile::create(&path).map_err(|e| with_path(&path, e))?;
        writeln!(file, "{}", columns.join(",")).map_err(|e| with_path(&path, e))?;
        Ok(CsvFile { path, file })
    }

    fn write_line(&mut self, line: &str) -> io::Result<()> {
        self.file.write_all(line.as_bytes()).map_err(|e| with_path(&self.path, e))
    }

    fn commit(mut self) -> io::Result<()> {
        self.file.flush().map_err(|e| with_path(&self.path, e))?;
        self.file.commit().map_err(|e| with_path(&self.path, e))
    }
}

impl SeriesCsvFiles {
    /// Start both files in `dir` (which must exist).
    pub fn create(dir: impl AsRef<Path>) -> io::Result<SeriesCsvFiles> {
        let dir = dir.as_ref();
        Ok(SeriesCsvFiles {
            flows: CsvFile::create(dir.join("flow_series.csv"), FLOW_SERIES_COLUMNS)?,
            links: CsvFile::create(dir.join("link_series.csv"), LINK_SERIES_COLUMNS)?,
            line: String::with_capacity(256),
        })
    }

    /// Flush both files and move them into place.
    pub fn commit(self) -> io::Result<()> {
        self.flows.commit()?;
        self.links.commit()
    }
}

impl SeriesSink for SeriesCsvFiles {
    fn flow_sample(&mut self, x: &FlowSample<'_>) -> io::Result<()> {
        let l = &mut self.line;
        l.clear();
        push_float(l, x.time_seconds);
        l.push(',');
        push_text(l, x.flow);
        let _ = write!(l, ",{},{},", x.cwnd_bytes, x.ssthresh_bytes);
        push_float(l, x.srtt_seconds);
        l.push(',');
        push_float(l, x.bwe_bps);
        let _ = writeln!(l, ",{},{},{}", x.bytes_delivered, x.snd_max, x.snd_una);
        self.flows.write_line(&self.line)
    }

    fn link_sample(&mut self, x: &LinkSample<'_>) -> io::Result<()> {
        let l = &mut self.line;
        l.clear();
        push_float(l, x.time_seconds);
        l.push(',');
        push_text(l, x.link);
        let _ = write!(l, ",{},{},", x.queue_packets, x.queue_bytes);
        push_float(l, x.queue_avg_packets);
        let _ = writeln!(l, ",{},{},{},{}", x.drops_overflow, x.drops_red, x.drops_error, x.drops_outage);
        self.links.write_line(&self.line)
    }
}

/// Python's `repr(float)` (what its csv module writes): `1.0`, `0.25`, `1e-05`, `nan`, `inf`.
pub fn float_text(v: f64) -> String {
    let mut s = String::new();
    push_float(&mut s, v);
    s
}

/// [`float_text`] appended to `out`: the one number writer of the run files' CSV cells (the
/// simulator's series here, the emulator's tables).
pub fn push_float(out: &mut String, v: f64) {
    if v.is_nan() {
        out.push_str("nan");
    } else if v.is_infinite() {
        out.push_str(if v > 0.0 { "inf" } else { "-inf" });
    } else if v != 0.0 && (v.abs() < 1e-4 || v.abs() >= 1e16) {
        // Python's repr switches to an exponent outside [1e-4, 1e16): shortest digits, then
        // `e`, a sign and at least two digits (`1e-05`, `1.5e+16`).
        let text = format!("{v:e}");
        let (mantissa, exponent) = text.split_once('e').expect("{:e} has an exponent");
        let exponent: i32 = exponent.parse().expect("an integer exponent");
        let sign = if exponent < 0 { '-' } else { '+' };
        let _ = write!(out, "{mantissa}e{sign}{:02}", exponent.unsigned_abs());
    } else if v == v.trunc() {
        let _ = write!(out, "{v:.1}");
    } else {
        let _ = write!(out, "{v}");
    }
}

/// A text field, quoted as Python's csv module quotes (only when it must be): the one text writer
/// of the run files' CSV cells. Lines end in `\n` (Python's writers are told so too).
pub fn push_text(out: &mut String, s: &str) {
    if s.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(flow: &str) -> FlowSample<'_> {
        FlowSample {
            time_seconds: 0.5,
            flow,
            cwnd_bytes: 4000,
            ssthresh_bytes: u64::MAX,
            srtt_seconds: f64::NAN,
            bwe_bps: 2.0e6,
            bytes_delivered: 12,
            snd_max: 13,
            snd_una: 1,
        }
    }

    #[test]
    fn floats_read_as_pythons_repr() {
        // Python 3.11's repr of each (its csv module writes floats so).
        let cases: [(f64, &str); 15] = [
            (1e-05, "1e-05"),
            (1.5e-05, "1.5e-05"),
            (0.0001, "0.0001"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (1234567890123456.0, "1234567890123456.0"),
            (0.1 + 0.2, "0.30000000000000004"),
            (-2.5e-07, "-2.5e-07"),
            (6.02e23, "6.02e+23"),
            (1e300, "1e+300"),
            (5e-324, "5e-324"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (123456789.123, "123456789.123"),
            (2f64.powi(60), "1.152921504606847e+18"),
        ];
        for (v, python) in cases {
            assert_eq!(float_text(v), python, "{v:?}");
        }
    }

    #[test]
    fn csv_files_appear_only_on_commit_with_python_number_text() {
        let dir = std::env::temp_dir().join(format!("westwood-series-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut files = SeriesCsvFiles::create(&dir).unwrap();
        files.flow_sample(&sample("ftp")).unwrap();
        files.flow_sample(&sample("a,\"b\"")).unwrap();
        assert!(!dir.join("flow_series.csv").exists(), "no file before commit");
        files.commit().unwrap();
        let text = std::fs::read_to_string(dir.join("flow_series.csv")).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], FLOW_SERIES_COLUMNS.join(","));
        assert_eq!(lines[1], "0.5,ftp,4000,18446744073709551615,nan,2000000.0,12,13,1");
        assert_eq!(lines[2], "0.5,\"a,\"\"b\"\"\",4000,18446744073709551615,nan,2000000.0,12,13,1");
        let links = std::fs::read_to_string(dir.join("link_series.csv")).unwrap();
        assert_eq!(links.trim_end(), LINK_SERIES_COLUMNS.join(","));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_uncommitted_run_leaves_no_file() {
        let dir = std::env::temp_dir().join(format!("westwood-series-drop-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut files = SeriesCsvFiles::create(&dir).unwrap();
        files.flow_sample(&sample("ftp")).unwrap();
        drop(files);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn floats_read_as_python_writes_them() {
        for (v, text) in [(1.0, "1.0"), (0.25, "0.25"), (-3.0, "-3.0"), (f64::INFINITY, "inf")] {
            assert_eq!(float_text(v), text);
        }
    }
}
