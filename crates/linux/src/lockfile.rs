//! Lock files (`flock(2)`) that serialise what must not run at once: loads and unloads
//! ([`crate::loader`]), the per-ACK trace's consumer ([`crate::acks`]), the testbed's runs
//! against the kernel tests. The lock goes with the returned file (closed at exit, also after a
//! kill).

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::Path;

use crate::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Many holders at once, none beside an exclusive one.
    Shared,
    Exclusive,
}

impl Mode {
    fn operation(self) -> libc::c_int {
        match self {
            Mode::Shared => libc::LOCK_SH,
            Mode::Exclusive => libc::LOCK_EX,
        }
    }
}

/// The lock file at `path`, created if missing.
pub fn open(path: &Path) -> Result<File> {
    std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| Error::failed(format!("opening {}", path.display()), e))
}

/// Take `file`'s lock if it is free now; whether it was.
pub fn try_lock(file: &File, mode: Mode) -> bool {
    // SAFETY: flock on a file descriptor `file` owns.
    unsafe { libc::flock(file.as_raw_fd(), mode.operation() | libc::LOCK_NB) == 0 }
}

/// The lock file at `path`, locked: at once if it is free, else after saying `waiting` on
/// stderr and waiting for the holder.
pub fn lock(path: &Path, mode: Mode, waiting: &str) -> Result<File> {
    let file = open(path)?;
    if !try_lock(&file, mode) {
        eprintln!("{waiting}");
        // SAFETY: as in `try_lock`; blocking until the holder is done.
        if unsafe { libc::flock(file.as_raw_fd(), mode.operation()) } != 0 {
            return Err(Error::failed(
                format!("locking {}", path.display()),
                std::io::Error::last_os_error(),
            ));
        }
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_holders_exclude_an_exclusive_one_until_they_let_go() {
        let path = std::env::temp_dir().join(format!("westwood-lockfile-test-{}", std::process::id()));
        let a = lock(&path, Mode::Shared, "").unwrap();
        let b = open(&path).unwrap();
        assert!(try_lock(&b, Mode::Shared));
        let c = open(&path).unwrap();
        assert!(!try_lock(&c, Mode::Exclusive));
        drop((a, b));
        assert!(try_lock(&c, Mode::Exclusive));
        std::fs::remove_file(&path).unwrap();
    }
}
