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

/// The exit status of a command whose reader went away (`westwood-linux --help | head -1`):
/// 128 + SIGPIPE, as a command killed by the signal would have.
pub const BROKEN_PIPE_EXIT: i32 = 128 + libc::SIGPIPE;

/// Run a command's `main`, ending quietly with [`BROKEN_PIPE_EXIT`] when its standard output
/// is a pipe nobody reads any more. Rust ignores SIGPIPE, so `println!` then panics ("failed
/// printing to stdout"); the panic unwinds through the command's guards (they remove
/// namespaces, switch the trace off, unpin what they pinned) and is caught here, its message
/// and backtrace left out. Any other panic is reported as usual.
pub fn main_with_quiet_broken_pipe(main: impl FnOnce() -> i32 + std::panic::UnwindSafe) -> i32 {
    fn broken_pipe(message: &str) -> bool {
        message.starts_with("failed printing to stdout") && message.contains("Broken pipe")
    }
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if !broken_pipe(message) {
            default_hook(info);
        }
    }));
    match std::panic::catch_unwind(main) {
        Ok(code) => code,
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("");
            if broken_pipe(message) {
                BROKEN_PIPE_EXIT
            } else {
                101
            }
        }
    }
}
