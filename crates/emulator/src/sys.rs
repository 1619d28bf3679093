//! Thin wrappers over the system calls the emulator needs: CLOCK_MONOTONIC, timerfd, epoll,
//! setns, CPU affinity, timer slack. Everything returns `io::Result`.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use westwood_simulator::model::Nanos;

fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// CLOCK_MONOTONIC in nanoseconds (the same clock in every network namespace).
pub fn monotonic_ns() -> Nanos {
    clock_ns(libc::CLOCK_MONOTONIC)
}

/// CPU time of the calling thread, nanoseconds.
pub fn thread_cpu_ns() -> Nanos {
    clock_ns(libc::CLOCK_THREAD_CPUTIME_ID)
}

fn clock_ns(clock: libc::clockid_t) -> Nanos {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn timespec(ns: Nanos) -> libc::timespec {
    libc::timespec {
        tv_sec: (ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (ns % 1_000_000_000) as libc::c_long,
    }
}

/// Sleep until CLOCK_MONOTONIC reaches `deadline_ns` (absolute; no drift from repeated sleeps).
pub fn sleep_until(deadline_ns: Nanos) {
    let ts = timespec(deadline_ns);
    loop {
        let r = unsafe {
            libc::clock_nanosleep(libc::CLOCK_MONOTONIC, libc::TIMER_ABSTIME, &ts, std::ptr::null_mut())
        };
        if r != libc::EINTR {
            return;
        }
    }
}

/// Timer slack of the calling thread: 1 ns, so timed waits (epoll, nanosleep) are not rounded up
/// by the default 50 us.
pub fn minimal_timer_slack() {
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
}

/// Pin the calling thread to one CPU.
pub fn pin_to_cpu(cpu: usize) -> io::Result<()> {
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        check(libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set))?;
    }
    Ok(())
}

/// Online CPUs.
pub fn cpus() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// Move the calling thread into the network namespace at `path` (e.g. /run/netns/NAME).
/// Sockets it creates afterwards belong to that namespace, also after it moves on.
pub fn enter_netns(path: &str) -> io::Result<()> {
    let f = std::fs::File::open(path)?;
    check(unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) })?;
    Ok(())
}

/// A CLOCK_MONOTONIC timerfd armed with absolute deadlines.
pub struct TimerFd(OwnedFd);

impl TimerFd {
    pub fn new() -> io::Result<TimerFd> {
        let fd = check(unsafe {
            libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC)
        })?;
        Ok(TimerFd(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// Fire once at `deadline_ns` (absolute CLOCK_MONOTONIC); `None` disarms.
    pub fn set(&self, deadline_ns: Option<Nanos>) -> io::Result<()> {
        let value = match deadline_ns {
            // A zero it_value disarms: use 1 ns for "right away".
            Some(d) => timespec(d.max(1)),
            None => timespec(0),
        };
        let spec = libc::itimerspec { it_interval: timespec(0), it_value: value };
        check(unsafe {
            libc::timerfd_settime(self.0.as_raw_fd(), libc::TFD_TIMER_ABSTIME, &spec, std::ptr::null_mut())
        })?;
        Ok(())
    }

    /// Consume an expiry (so the fd stops being readable).
    pub fn clear(&self) {
        let mut n = 0u64;
        unsafe { libc::read(self.0.as_raw_fd(), &mut n as *mut u64 as *mut libc::c_void, 8) };
    }

    pub fn fd(&self) -> RawFd {
        self.0.as_raw_fd()
    }
}

/// An epoll instance over fds identified by a u64 token.
pub struct Epoll(OwnedFd);

impl Epoll {
    pub fn new() -> io::Result<Epoll> {
        let fd = check(unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) })?;
        Ok(Epoll(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    pub fn add(&self, fd: RawFd, token: u64) -> io::Result<()> {
        let mut ev = libc::epoll_event { events: libc::EPOLLIN as u32, u64: token };
        check(unsafe { libc::epoll_ctl(self.0.as_raw_fd(), libc::EPOLL_CTL_ADD, fd, &mut ev) })?;
        Ok(())
    }

    /// Wait up to `timeout_ns` (`None`: forever) with nanosecond resolution (epoll_pwait2,
    /// Linux 5.11+; `ErrorKind::Unsupported` before). The ready fds' tokens go in `ready`.
    pub fn wait_ns(&self, ready: &mut Vec<u64>, timeout_ns: Option<Nanos>) -> io::Result<()> {
        let mut events = [libc::epoll_event { events: 0, u64: 0 }; 16];
        ready.clear();
        let ts = timeout_ns.map(timespec);
        let ts_ptr = ts.as_ref().map_or(std::ptr::null(), |t| t as *const libc::timespec);
        let n = unsafe {
            libc::syscall(
                libc::SYS_epoll_pwait2,
                self.0.as_raw_fd(),
                events.as_mut_ptr(),
                events.len() as libc::c_int,
                ts_ptr,
                std::ptr::null::<libc::sigset_t>(),
                0usize,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(libc::EINTR) => Ok(()),
                Some(libc::ENOSYS) => Err(io::Error::new(io::ErrorKind::Unsupported, "epoll_pwait2")),
                _ => Err(e),
            };
        }
        ready.extend(events[..n as usize].iter().map(|e| e.u64));
        Ok(())
    }

    /// Wait up to `timeout_ms`; returns the tokens of the ready fds (in `ready`).
    pub fn wait(&self, ready: &mut Vec<u64>, timeout_ms: i32) -> io::Result<()> {
        let mut events = [libc::epoll_event { events: 0, u64: 0 }; 16];
        ready.clear();
        let n = unsafe {
            libc::epoll_wait(self.0.as_raw_fd(), events.as_mut_ptr(), events.len() as i32, timeout_ms)
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            return if e.kind() == io::ErrorKind::Interrupted { Ok(()) } else { Err(e) };
        }
        ready.extend(events[..n as usize].iter().map(|e| e.u64));
        Ok(())
    }
}

/// Whether the process has an effective UID of 0.
pub fn is_root() -> bool {
    unsafe { libc::geteuid() == 0 }
}

/// The inode of a network namespace file (what the kernel reports as the namespace's id).
pub fn netns_inode(path: &str) -> io::Result<u64> {
    use std::os::unix::fs::MetadataExt;
    Ok(std::fs::metadata(path)?.ino())
}
