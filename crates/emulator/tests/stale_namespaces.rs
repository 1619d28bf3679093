//! Which namespaces `remove_stale` takes for left behind, against real namespaces and real
//! processes (root; about a second): one whose owner is a zombie, or whose owner's pid now
//! belongs to a process with another start time, is removed; one whose owner runs is kept.
//! And a child of ours dies with the thread that spawned it (no root needed).
//!
//! Without root (no network namespaces for us) the namespace tests print `SKIPPED: <reason>`
//! and pass. Each names its namespaces after its own owner, so the tests (and other runs on the
//! machine) do not meet each other's; remove_stale may remove another test's stale namespace
//! first, so each checks that its namespace is gone rather than that it removed it.

use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use westwood_emulator::netns::{self, Stale};
use westwood_emulator::process::{self, Gone, Owner};

fn skip_reason() -> Option<String> {
    if unsafe { libc::geteuid() } != 0 {
        return Some("not root (creating network namespaces needs it)".into());
    }
    if !std::path::Path::new("/proc/self/ns/net").exists() {
        return Some("the kernel has no network namespaces".into());
    }
    if westwood_linux::netns::tool("ip", "iproute2").is_err() {
        return Some("`ip` (iproute2) is not installed".into());
    }
    None
}

macro_rules! require_namespaces {
    () => {
        if let Some(reason) = skip_reason() {
            println!("SKIPPED: {reason}");
            return;
        }
    };
}

/// A namespace named as the testbed names them for `owner`, deleted on drop if still there.
struct Namespace(String);

impl Namespace {
    fn create(owner: Owner, tag: &str) -> Namespace {
        let name = format!("{}-0-{tag}", netns::owner_prefix(owner));
        let out = Command::new("ip").args(["netns", "add", &name]).output().expect("running ip");
        assert!(out.status.success(), "ip netns add {name}: {}", String::from_utf8_lossy(&out.stderr));
        Namespace(name)
    }

    fn exists(&self) -> bool {
        netns::existing().contains(&self.0)
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        if self.exists() {
            let _ = Command::new("ip").args(["netns", "del", &self.0]).stderr(Stdio::null()).status();
        }
    }
}

/// Poll `f` until it holds, at most `limit`.
fn wait_for(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    f()
}

/// `child` as a namespace owner: its pid and start time.
fn owner_of(child: &Child) -> Owner {
    let pid = child.id() as i32;
    let stat = process::stat(pid).unwrap().expect("the child has a /proc entry");
    Owner { pid, start_time: Some(stat.start_time) }
}

#[test]
fn a_namespace_whose_owner_is_a_zombie_is_removed() {
    require_namespaces!();
    // A child that exits and is not waited for: a zombie, whose /proc/PID still exists.
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id() as i32;
    let zombie = wait_for(Duration::from_secs(5), || {
        process::stat(pid).ok().flatten().is_some_and(|s| s.has_exited())
    });
    assert!(zombie, "`true` did not become a zombie: {:?}", process::stat(pid));
    let ns = Namespace::create(owner_of(&child), "zombie");
    assert_eq!(netns::stale(&ns.0), Some(Stale::Owner(Gone::Zombie)));

    let removals = netns::remove_stale();
    assert!(!ns.exists(), "a zombie's namespace was kept: {removals:?}");
    if let Some(r) = removals.iter().find(|r| r.name == ns.0) {
        assert_eq!((r.why, &r.error), (Stale::Owner(Gone::Zombie), &None));
    }
    child.wait().unwrap();
}

#[test]
fn a_namespace_whose_owner_pid_has_another_start_time_is_removed() {
    require_namespaces!();
    // Our own pid (certainly alive) with a start time that is not ours: the pid was reused.
    let me = Owner::current().unwrap();
    let not_me = Owner { start_time: me.start_time.map(|t| t + 1), ..me };
    let ns = Namespace::create(not_me, "reused");
    assert_eq!(netns::stale(&ns.0), Some(Stale::Owner(Gone::PidReused)));

    let removals = netns::remove_stale();
    assert!(!ns.exists(), "a reused pid's namespace was kept: {removals:?}");
}

#[test]
fn a_namespace_whose_owner_runs_is_kept_until_it_exits() {
    require_namespaces!();
    let me = Namespace::create(Owner::current().unwrap(), "self");
    // Another live process, so the check is not just "our own pid".
    let mut sleeper = Command::new("sleep").arg("30").spawn().unwrap();
    let other = Namespace::create(owner_of(&sleeper), "sleeper");
    assert_eq!(netns::stale(&me.0), None);
    assert_eq!(netns::stale(&other.0), None);

    let removals = netns::remove_stale();
    assert!(me.exists() && other.exists(), "a live owner's namespace was removed: {removals:?}");
    assert!(!removals.iter().any(|r| r.name == me.0 || r.name == other.0), "{removals:?}");

    // Once the owner has exited and been reaped, its namespace goes.
    sleeper.kill().unwrap();
    sleeper.wait().unwrap();
    assert_eq!(netns::stale(&other.0), Some(Stale::Owner(Gone::Exited)));
    netns::remove_stale();
    assert!(!other.exists() && me.exists());
}

#[test]
fn a_child_dies_with_the_thread_that_spawned_it() {
    // PR_SET_PDEATHSIG follows the spawning thread: when it ends, the kernel kills the child.
    // (Which is why the testbed spawns and waits on the same thread.)
    let mut child =
        std::thread::spawn(|| process::command("sleep").arg("30").spawn().unwrap()).join().unwrap();
    let end = Instant::now() + Duration::from_secs(5);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > end {
            let _ = child.kill();
            panic!("the child outlived the thread that spawned it");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(status.signal(), Some(libc::SIGKILL), "{status:?}");
}
