//! The kernel congestion controls a run needs, made available for it: the registry's eBPF
//! twins (tcpw*) registered through westwood-linux's loader and unregistered after the run, also
//! after a kill; the kernel's own (reno, cubic, ...) through `modprobe tcp_NAME` when missing.
//! [`KernelCcs::ensure`] is the one way in: the testbed, `path` and (through `westwood-emu
//! hold`) `westwood measure` all call it.
//!
//! A run that registers a program records it under [`RECORD_DIR`] in a file named after the run
//! (`bpf-<pid>-s<starttime>`, [`Owner`] as the namespaces record theirs), written before it
//! loads anything: the programs it uses, and then those it loaded. A kill -9 leaves the record
//! and the programs registered; the next run, and `westwood-emu cleanup`, find the records of
//! runs that no longer run and unregister what they loaded, unless a running run uses it.

use std::fs;
use std::path::{Path, PathBuf};

use westwood_linux::loader::{LoadOptions, Params};
use westwood_linux::prereq::is_registered;
use westwood_linux::Algo;

use crate::error::{Error, Result};
use crate::process::{self, Owner};

/// Where runs record the programs they use (tmpfs: gone at reboot, as the programs are).
pub const RECORD_DIR: &str = "/run/westwood-emu";

const RECORD_PREFIX: &str = "bpf-";

/// What one run's record says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Record {
    pub uses: Vec<Algo>,
    pub loaded: Vec<Algo>,
}

impl Record {
    fn text(&self) -> String {
        let mut text = String::new();
        for (word, algos) in [("uses", &self.uses), ("loaded", &self.loaded)] {
            for a in algos {
                text.push_str(&format!("{word} {}\n", a.name()));
            }
        }
        text
    }

    fn parse(text: &str) -> Record {
        let mut record = Record::default();
        for line in text.lines() {
            let Some((word, name)) = line.split_once(' ') else { continue };
            let Some(algo) = Algo::from_name(name.trim()) else { continue };
            match word {
                "uses" => record.uses.push(algo),
                "loaded" => record.loaded.push(algo),
                _ => {}
            }
        }
        record
    }
}

/// The record file of `owner` in `dir`.
fn record_path(dir: &Path, owner: Owner) -> PathBuf {
    dir.join(format!("{RECORD_PREFIX}{}-s{}", owner.pid, owner.start_time.unwrap_or(0)))
}

/// The owner a record file is named after (`None`: not one of ours).
fn owner_of(name: &str) -> Option<Owner> {
    let (pid, start) = name.strip_prefix(RECORD_PREFIX)?.split_once("-s")?;
    Some(Owner { pid: pid.parse().ok()?, start_time: Some(start.parse().ok()?) })
}

/// What [`reclaim`] did for one record of a run gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reclaimed {
    pub owner: Owner,
    pub unloaded: Vec<Algo>,
    /// Programs it loaded that a running run uses: left registered (that run does not own
    /// them, so they go at the next reclaim after it).
    pub kept: Vec<Algo>,
    pub error: Option<String>,
}

/// The records in `dir` of runs that no longer run: unregister what they loaded (unless a
/// running run's record uses it) with `unload`, and remove the records.
fn reclaim_in(
    dir: &Path,
    unload: &mut dyn FnMut(&[Algo]) -> std::result::Result<(), String>,
) -> Vec<Reclaimed> {
    let Ok(entries) = fs::read_dir(dir) else { return Vec::new() };
    let mut live_uses = Vec::new();
    let mut dead = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(owner) = owner_of(&name) else { continue };
        let record = Record::parse(&fs::read_to_string(entry.path()).unwrap_or_default());
        if owner.gone().is_none() {
            live_uses.extend(record.uses.iter().chain(&record.loaded).copied());
        } else {
            dead.push((owner, entry.path(), record));
        }
    }
    let mut done = Vec::new();
    for (owner, path, record) in dead {
        let (kept, unloaded): (Vec<Algo>, Vec<Algo>) =
            record.loaded.iter().copied().partition(|a| live_uses.contains(a));
        let mut error = if unloaded.is_empty() { None } else { unload(&unloaded).err() };
        if error.is_none() {
            error = fs::remove_file(&path).err().map(|e| format!("removing {}: {e}", path.display()));
        }
        done.push(Reclaimed { owner, unloaded, kept, error });
    }
    done
}

/// [`reclaim_in`] [`RECORD_DIR`], unregistering with westwood-linux's loader.
pub fn reclaim() -> Vec<Reclaimed> {
    reclaim_in(Path::new(RECORD_DIR), &mut |algos| {
        westwood_linux::loader::unload(algos).map(|_| ()).map_err(|e| e.to_string())
    })
}

/// One line per reclaimed record, for `cleanup` and the run's log (`None`: nothing to say).
pub fn describe(reclaimed: &[Reclaimed]) -> Option<String> {
    let names = |algos: &[Algo]| algos.iter().map(|a| a.name()).collect::<Vec<_>>().join(", ");
    let lines: Vec<String> = reclaimed
        .iter()
        .map(|r| {
            let mut line = format!("run {} (gone): ", r.owner.pid);
            line += &if r.unloaded.is_empty() {
                "nothing to unregister".to_string()
            } else {
                format!("unregistered {}", names(&r.unloaded))
            };
            if !r.kept.is_empty() {
                line += &format!("; {} left to a running run that uses it", names(&r.kept));
            }
            if let Some(e) = &r.error {
                line += &format!("; failed: {e}");
            }
            line
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// The kernel congestion controls a run needs, available while this lives. The tcpw* among them
/// are registered for it: loaded if missing and unloaded again at the end (or, after a kill, by
/// the next run: see the module notes), with a shared lock on the westwood-linux tests' lock file
/// held meanwhile, so those tests (which unload everything) wait for the run. A congestion control
/// the kernel cannot offer is a missing prerequisite (exit 2, with the reason).
pub struct KernelCcs {
    loaded: Vec<Algo>,
    record: Option<PathBuf>,
    _lock: Option<fs::File>,
}

impl KernelCcs {
    /// Make `names` available (kernel names: `tcpw_abse`, `reno`; duplicates allowed), the tcpw*
    /// with the estimator parameters `params` (a registered program with others is an error);
    /// `None`: a registered program as it is, a missing one with the papers' parameters.
    pub fn ensure(names: &[&str], params: Option<Params>) -> Result<KernelCcs> {
        let mut algos: Vec<Algo> = Vec::new();
        for &name in names {
            match Algo::from_name(name) {
                Some(a) if !algos.contains(&a) => algos.push(a),
                Some(_) => {}
                None => ensure_builtin(name)?,
            }
        }
        let nothing = || KernelCcs { loaded: Vec::new(), record: None, _lock: None };
        if algos.is_empty() {
            return Ok(nothing());
        }
        // Without root nothing can be registered or unregistered (nor recorded): what is
        // registered already is what there is.
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            let missing: Vec<&str> = algos.iter().map(|a| a.name()).filter(|n| !is_registered(n)).collect();
            if missing.is_empty() {
                return Ok(nothing());
            }
            let missing = missing.join(",");
            return Err(Error::Prereq(format!(
                "{missing} is not registered and registering it needs root: run `sudo westwood linux load \
                 {missing}` first, or run this as root"
            )));
        }
        Self::register(algos, params)
    }

    fn register(algos: Vec<Algo>, params: Option<Params>) -> Result<KernelCcs> {
        let path = std::env::temp_dir().join("westwood-linux-tests.lock");
        let waiting = format!("waiting for {} (westwood-linux tests are running)", path.display());
        let lock = westwood_linux::lockfile::lock(&path, westwood_linux::lockfile::Mode::Shared, &waiting)?;
        if let Some(text) = describe(&reclaim()) {
            eprintln!("left by earlier runs: {text}");
        }
        // The record says what this run uses before it loads anything, so that a reclaim by
        // another run meanwhile leaves those programs alone.
        let mut held = KernelCcs { loaded: Vec::new(), record: None, _lock: Some(lock) };
        let owner =
            Owner::current().map_err(|e| Error::failed("reading this process's start time from /proc", e))?;
        fs::create_dir_all(RECORD_DIR).map_err(|e| Error::failed(format!("creating {RECORD_DIR}"), e))?;
        let record_file = record_path(Path::new(RECORD_DIR), owner);
        write_record(&record_file, &Record { uses: algos.clone(), loaded: Vec::new() })?;
        held.record = Some(record_file.clone());
        let to_load = match params {
            Some(_) => algos.clone(),
            None => algos.iter().copied().filter(|a| !is_registered(a.name())).collect(),
        };
        if to_load.is_empty() {
            return Ok(held);
        }
        let options = LoadOptions { algos: to_load, params: params.unwrap_or_default() };
        let report = westwood_linux::loader::load(&options).map_err(|e| match e {
            westwood_linux::Error::Prereq(m) | westwood_linux::Error::Failed(m) => {
                let names: Vec<&str> = algos.iter().map(|a| a.name()).collect();
                Error::Prereq(format!("{} unavailable on this kernel: {m}", names.join(", ")))
            }
            other => other,
        })?;
        held.loaded = report.loaded;
        write_record(&record_file, &Record { uses: algos, loaded: held.loaded.clone() })?;
        Ok(held)
    }
}

fn write_record(path: &Path, record: &Record) -> Result<()> {
    fs::write(path, record.text()).map_err(|e| Error::failed(format!("writing {}", path.display()), e))
}

/// A congestion control of the kernel's own (not one of ours) is registered, loading its module
/// if need be; it stays loaded after the run, as any module the kernel loads on demand does.
fn ensure_builtin(name: &str) -> Result<()> {
    if is_registered(name) {
        return Ok(());
    }
    let _ =
        process::command("modprobe").arg(format!("tcp_{name}")).stderr(std::process::Stdio::null()).status();
    if is_registered(name) {
        return Ok(());
    }
    Err(Error::Prereq(format!(
        "congestion control {name} is not available in this kernel (net.ipv4.tcp_available_congestion_control) and \
         `modprobe tcp_{name}` did not add it"
    )))
}

impl Drop for KernelCcs {
    fn drop(&mut self) {
        if !self.loaded.is_empty() {
            if let Err(e) = westwood_linux::loader::unload(&self.loaded) {
                eprintln!("warning: unloading {:?}: {e}", self.loaded);
                // The record stays: the next run or `cleanup` tries again.
                return;
            }
        }
        if let Some(path) = &self.record {
            let _ = fs::remove_file(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_and_names_its_owner() {
        let record = Record {
            uses: vec![Algo::from_name("tcpw").unwrap(), Algo::from_name("tcpw_abse").unwrap()],
            loaded: vec![Algo::from_name("tcpw").unwrap()],
        };
        assert_eq!(Record::parse(&record.text()), record);
        let owner = Owner { pid: 42, start_time: Some(7) };
        let path = record_path(Path::new("/x"), owner);
        assert_eq!(owner_of(path.file_name().unwrap().to_str().unwrap()), Some(owner));
        assert_eq!(owner_of("bpf-42"), None);
        assert_eq!(owner_of("wwtb-42-s7-0-rt"), None);
    }

    #[test]
    fn what_a_run_gone_loaded_is_unregistered_unless_a_running_run_uses_it() {
        let dir = std::env::temp_dir().join(format!("westwood-kernel-cc-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let me = Owner::current().unwrap();
        // A process that has exited: its pid with a start time no process has.
        let gone = Owner { pid: me.pid, start_time: Some(me.start_time.unwrap() + 1) };
        let write =
            |owner: Owner, record: Record| fs::write(record_path(&dir, owner), record.text()).unwrap();
        write(
            gone,
            Record {
                uses: vec![Algo::from_name("tcpw").unwrap(), Algo::from_name("tcpw_tr").unwrap()],
                loaded: vec![Algo::from_name("tcpw").unwrap(), Algo::from_name("tcpw_tr").unwrap()],
            },
        );
        write(me, Record { uses: vec![Algo::from_name("tcpw_tr").unwrap()], loaded: vec![] });
        let mut unloaded = Vec::new();
        let done = reclaim_in(&dir, &mut |algos| {
            unloaded.extend_from_slice(algos);
            Ok(())
        });
        assert_eq!(unloaded, [Algo::from_name("tcpw").unwrap()]);
        assert_eq!(done.len(), 1);
        assert_eq!(
            (done[0].owner, done[0].kept.as_slice()),
            (gone, &[Algo::from_name("tcpw_tr").unwrap()][..])
        );
        assert!(!record_path(&dir, gone).exists() && record_path(&dir, me).exists());
        let text = describe(&done).unwrap();
        assert!(
            text.contains("unregistered tcpw") && text.contains("tcpw_tr left to a running run"),
            "{text}"
        );
        // Nothing left to reclaim; a failed unload keeps the record for the next try.
        assert!(reclaim_in(&dir, &mut |_| Ok(())).is_empty());
        write(gone, Record { uses: vec![], loaded: vec![Algo::from_name("tcpw_plus").unwrap()] });
        let done = reclaim_in(&dir, &mut |_| Err("busy".into()));
        assert_eq!(done[0].error.as_deref(), Some("busy"));
        assert!(record_path(&dir, gone).exists());
        fs::remove_dir_all(&dir).unwrap();
    }
}
