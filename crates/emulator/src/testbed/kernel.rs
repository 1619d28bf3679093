//! What the machine must have for a testbed (its congestion controls: `crate::kernel_cc`).

use super::*;

/// Check root and tools before anything else (exit 2 with what is missing).
pub fn prerequisites() -> Result<()> {
    netns::require_root("the testbed")?;
    tool("iperf3", "iperf3")?;
    Ok(())
}
