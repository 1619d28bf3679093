//! Packet captures through `_core`: the capture request of `run(..., pcap=...)`, the files it
//! will write (`pcap_paths`), and the analysis of captures (`analyze_pcap`).

use std::path::PathBuf;

use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use westwood_pcap::{AnalyzeOptions, Format};
use westwood_simulator::model::Scenario;
use westwood_simulator::pcap::{self as capture, PcapOptions, PcapTaps};
use westwood_simulator::scenario::{self, ScenarioError as SimScenarioError};
use westwood_simulator::RunError;

use crate::ScenarioError;

create_exception!(
    westwood._core,
    CaptureError,
    PyValueError,
    "A capture file could not be read; the message names the file and the byte offset."
);

/// `(dir, points, snaplen, format)`: where `westwood run --pcap` writes, which capture points
/// (empty: the bottleneck links), bytes kept per packet, `pcapng` or `pcap`.
#[derive(FromPyObject)]
pub struct CaptureRequest(PathBuf, Vec<String>, u32, String);

impl CaptureRequest {
    fn options(&self, scenario: &Scenario) -> Result<PcapOptions, SimScenarioError> {
        let format = Format::parse(&self.3).ok_or_else(|| SimScenarioError {
            file: scenario.source.clone(),
            field: "pcap".into(),
            message: format!("format {:?}: pcapng or pcap", self.3),
        })?;
        Ok(PcapOptions { dir: self.0.clone(), points: self.1.clone(), snaplen: self.2, format })
    }

    pub fn taps(&self, scenario: &Scenario) -> Result<PcapTaps, RunError> {
        PcapTaps::create(scenario, &self.options(scenario)?)
    }
}

/// The files `run(path, overrides, pcap=request)` writes, in order (the capture points
/// resolved, the bottleneck links when none is named). Raises `ScenarioError` for a name that
/// matches no link or flow endpoint.
#[pyfunction]
#[pyo3(signature = (path, overrides, request))]
fn pcap_paths(
    path: PathBuf,
    overrides: Vec<(String, String)>,
    request: CaptureRequest,
) -> PyResult<Vec<String>> {
    let error = |e: SimScenarioError| ScenarioError::new_err(e.to_string());
    let scenario = scenario::load_file(&path, &overrides).map_err(error)?;
    let options = request.options(&scenario).map_err(error)?;
    let points = capture::resolve(&scenario, &options).map_err(error)?;
    Ok(points.into_iter().map(|p| p.path.display().to_string()).collect())
}

/// Analyse the captures at `paths` (docs/measurement.md): a JSON string with `captures`,
/// `connections` (per capture), `flows` (combined) and `udp`. Ctrl-C stops it.
#[pyfunction]
#[pyo3(signature = (paths, max_bins = 2000, max_points = 5000))]
fn analyze_pcap(py: Python<'_>, paths: Vec<PathBuf>, max_bins: usize, max_points: usize) -> PyResult<String> {
    let options = AnalyzeOptions { max_bins, max_points, ..Default::default() };
    let (result, interrupt) = py.detach(move || {
        let interrupt: std::sync::Mutex<Option<PyErr>> = std::sync::Mutex::new(None);
        let interrupted = || match Python::attach(|py| py.check_signals()) {
            Ok(()) => false,
            Err(e) => {
                *interrupt.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                true
            }
        };
        let result = westwood_pcap::analyze_files(&paths, &options, &interrupted);
        (result, interrupt.into_inner().unwrap_or_else(|p| p.into_inner()))
    });
    if let Some(e) = interrupt {
        return Err(e);
    }
    let analysis = result.map_err(|e| {
        if e.message == "interrupted" {
            PyKeyboardInterrupt::new_err("analysis interrupted")
        } else {
            CaptureError::new_err(e.to_string())
        }
    })?;
    serde_json::to_string(&analysis)
        .map_err(|e| PyRuntimeError::new_err(format!("cannot serialise the analysis: {e}")))
}

/// Jain's fairness index of `values` (the simulator's `metrics::jain_index`: one definition for
/// the summary's `fairness` and `westwood measure`'s); `None` without values.
#[pyfunction]
fn jain_index(values: Vec<f64>) -> Option<f64> {
    westwood_simulator::metrics::jain_index(&values)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("CaptureError", m.py().get_type::<CaptureError>())?;
    m.add_function(wrap_pyfunction!(jain_index, m)?)?;
    // The analysis' tables, declared with its rows (`westwood_pcap::analyze`).
    m.add("CONNECTION_COLUMNS", PyTuple::new(m.py(), westwood_pcap::analyze::COLUMNS)?)?;
    m.add("UDP_COLUMNS", PyTuple::new(m.py(), westwood_pcap::analyze::UDP_COLUMNS)?)?;
    m.add_function(wrap_pyfunction!(pcap_paths, m)?)?;
    m.add_function(wrap_pyfunction!(analyze_pcap, m)?)?;
    Ok(())
}
