//! Ctrl-C (SIGINT) and SIGTERM as a flag: long-running commands poll [`interrupted`] and
//! return [`crate::Error::Interrupted`], so the RAII guards on the way out remove namespaces,
//! kill child processes and unpin what they pinned.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Install the handler for SIGINT and SIGTERM (idempotent).
pub fn install() {
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_signal as *const () as usize;
        libc::sigemptyset(&mut action.sa_mask);
        action.sa_flags = 0;
        libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut());
        libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut());
    }
}

pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Sleep for `d`, waking early (returning `Err(Interrupted)`) on Ctrl-C.
pub fn sleep(d: Duration) -> crate::Result<()> {
    let end = Instant::now() + d;
    loop {
        if interrupted() {
            return Err(crate::Error::Interrupted);
        }
        let now = Instant::now();
        if now >= end {
            return Ok(());
        }
        std::thread::sleep((end - now).min(Duration::from_millis(50)));
    }
}
