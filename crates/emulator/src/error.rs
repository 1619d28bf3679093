//! Errors, by what the user should do about them (and the exit status): westwood-linux's, whose
//! loader, namespaces and signal handling the testbed uses, so one type crosses both crates.
//! `Usage` also covers a scenario the testbed cannot map (exit 2).

pub use westwood_linux::{Error, Result};

/// A scenario that does not load is the user's to fix (exit 2), as in `westwood run`.
pub fn scenario_error(e: westwood_simulator::scenario::ScenarioError) -> Error {
    Error::Usage(e.to_string())
}
