//! Processes around the testbed: who owns a namespace, whether that owner still runs, and
//! children that go down with us.
//!
//! * A pid alone does not say a run is alive: a SIGKILLed run stays a zombie until its parent
//!   reaps it (so /proc/PID exists), and the kernel reuses pids. An [`Owner`] is therefore the
//!   pid *and* the process's start time (field 22 of /proc/PID/stat, clock ticks after boot),
//!   which no later process with the same pid can share. It is alive only if /proc/PID/stat
//!   exists, is not a zombie (`Z`) or dead (`X`), and has the recorded start time.
//! * Every child we spawn gets `PR_SET_PDEATHSIG(SIGKILL)` ([`die_with_parent`]), so a
//!   SIGKILLed testbed does not leave iperf3 running its experiment to the end.

use std::io;
use std::os::unix::process::CommandExt;
use std::process::Command;

/// What /proc/PID/stat says about a process, as far as liveness goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    /// Field 3: `R`, `S`, `D`, `Z` (zombie), `X` (dead)...
    pub state: char,
    /// Field 22: when the process started, in clock ticks after boot.
    pub start_time: u64,
}

impl ProcStat {
    /// A zombie or a dead process: it exited, only its entry is left.
    pub fn has_exited(&self) -> bool {
        matches!(self.state, 'Z' | 'X' | 'x')
    }
}

/// Parse the text of /proc/PID/stat. The command name (field 2) is in parentheses and may
/// itself contain spaces and parentheses, so the fields are counted after the *last* `)`.
pub fn parse_stat(text: &str) -> Option<ProcStat> {
    let (_, rest) = text.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // fields[0] is field 3 (state), so field 22 (starttime) is fields[19].
    let state = fields.first()?.chars().next()?;
    let start_time = fields.get(19)?.parse().ok()?;
    Some(ProcStat { state, start_time })
}

/// /proc/PID/stat of `pid`: `Ok(None)` if there is no such process.
pub fn stat(pid: i32) -> io::Result<Option<ProcStat>> {
    if pid <= 0 {
        return Ok(None);
    }
    let text = match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(text) => text,
        // ESRCH: the process went away between open and read.
        Err(e) if e.kind() == io::ErrorKind::NotFound || e.raw_os_error() == Some(libc::ESRCH) => {
            return Ok(None)
        }
        Err(e) => return Err(e),
    };
    parse_stat(&text)
        .map(Some)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, format!("/proc/{pid}/stat: {text:?}")))
}

/// The process that created something (a namespace): its pid and, when recorded, its start
/// time. Names written before start times were recorded have only the pid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner {
    pub pid: i32,
    pub start_time: Option<u64>,
}

/// Why an owner no longer counts as running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gone {
    /// No process has that pid.
    Exited,
    /// The process exited but its parent has not reaped it.
    Zombie,
    /// Another process has the pid now (its start time differs).
    PidReused,
}

impl std::fmt::Display for Gone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Gone::Exited => "exited",
            Gone::Zombie => "is a zombie",
            Gone::PidReused => "exited, pid reused",
        })
    }
}

impl Owner {
    /// This process, with its start time (an error only if /proc is unreadable).
    pub fn current() -> io::Result<Owner> {
        let pid = std::process::id() as i32;
        let stat = stat(pid)?.ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "/proc/self/stat"))?;
        Ok(Owner { pid, start_time: Some(stat.start_time) })
    }

    /// `None` while the owner runs; otherwise why it does not. A /proc entry that cannot be
    /// read or parsed counts as running: removing a live run's namespaces would break it,
    /// leaving a dead run's costs nothing but a namespace.
    pub fn gone(&self) -> Option<Gone> {
        let stat = match stat(self.pid) {
            Ok(Some(stat)) => stat,
            Ok(None) => return Some(Gone::Exited),
            Err(_) => return None,
        };
        if self.start_time.is_some_and(|t| t != stat.start_time) {
            return Some(Gone::PidReused);
        }
        stat.has_exited().then_some(Gone::Zombie)
    }
}

/// Have the kernel SIGKILL the child `cmd` spawns when the thread that spawns it ends
/// (`PR_SET_PDEATHSIG`; kept across exec, so `ip netns exec iperf3 ...` gets it too).
///
/// The "parent" is the spawning *thread*, not the process: spawn from a thread that waits for
/// (or kills) the child before it ends, as every spawn in this crate does (`.output()`,
/// `.status()`, or a `ChildGuard` dropped on the same thread).
///
/// If we died between fork and prctl, the child is already re-parented and would never get
/// the signal; as the man page advises, it checks its parent after the prctl and gives up
/// (spawn fails with ESRCH). The closure runs between fork and exec: only async-signal-safe
/// calls, no allocation.
pub fn die_with_parent(cmd: &mut Command) -> &mut Command {
    let parent = std::process::id() as libc::pid_t;
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            if libc::getppid() != parent {
                return Err(io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        })
    }
}

/// A [`Command`] for `program` whose process dies with us ([`die_with_parent`]).
pub fn command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut cmd = Command::new(program);
    die_with_parent(&mut cmd);
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = "1234 (a) b) c) S 1 1234 1234 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 987654 \
                        10000000 300 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";

    #[test]
    fn stat_fields_are_counted_after_the_last_parenthesis() {
        assert_eq!(parse_stat(STAT), Some(ProcStat { state: 'S', start_time: 987654 }));
        let zombie = STAT.replace(") S ", ") Z ");
        assert!(parse_stat(&zombie).unwrap().has_exited());
        assert!(!parse_stat(STAT).unwrap().has_exited());
    }

    #[test]
    fn a_malformed_stat_is_none_not_a_panic() {
        for bad in [
            "",
            "1234",
            "1234 (x)",
            "1234 (x) S 1 2",
            "1234 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 zz",
        ] {
            assert_eq!(parse_stat(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn this_process_is_alive_and_a_wrong_start_time_is_a_reused_pid() {
        let me = Owner::current().unwrap();
        assert_eq!(me.gone(), None);
        assert_eq!(Owner { start_time: None, ..me }.gone(), None);
        let other = Owner { start_time: me.start_time.map(|t| t + 1), ..me };
        assert_eq!(other.gone(), Some(Gone::PidReused));
        assert_eq!(Owner { pid: -1, start_time: None }.gone(), Some(Gone::Exited));
    }
}
