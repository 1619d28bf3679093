//! The kernel congestion controls a run needs, and what the machine must have for a testbed.

use super::*;

/// The kernel congestion control `name` is registered, loading its module if need be.
pub fn ensure_kernel_cc(name: &str) -> Result<()> {
    let available = || westwood_linux::prereq::available_congestion_controls().iter().any(|c| c == name);
    if available() {
        return Ok(());
    }
    let _ = process::command("modprobe").arg(format!("tcp_{name}")).stderr(Stdio::null()).status();
    if available() {
        return Ok(());
    }
    Err(Error::Prereq(format!(
        "congestion control {name} is not available in this kernel (net.ipv4.tcp_available_congestion_control) and \
         `modprobe tcp_{name}` did not add it"
    )))
}

/// Check root and tools before anything else (exit 2 with what is missing).
pub fn prerequisites() -> Result<()> {
    netns::require_root("the testbed")?;
    tool("iperf3", "iperf3")?;
    Ok(())
}
