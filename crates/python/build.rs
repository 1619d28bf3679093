//! Records which source the extension module was built from, so `westwood --version` can say
//! (a wheel installed elsewhere has no checkout to ask). `git describe --always --dirty` at build
//! time, or "unknown" when git or the repository is absent (a build from an sdist).

use std::process::Command;

/// The output of `git ARGS` run in this crate's directory, trimmed; None if git fails.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// Asks cargo to rebuild when the commit or the index moves (HEAD, the branch ref, packed refs),
/// so the recorded build does not go stale between commits.
fn watch_git() {
    let mut paths = vec!["HEAD".to_string(), "index".to_string(), "packed-refs".to_string()];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        paths.push(branch);
    }
    for p in paths {
        if let Some(path) = git(&["rev-parse", "--path-format=absolute", "--git-path", &p]) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
}

fn main() {
    println!("cargo:rerun-if-env-changed=WESTWOOD_BUILD");
    watch_git();
    let build = std::env::var("WESTWOOD_BUILD")
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| git(&["describe", "--always", "--dirty"]))
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=WESTWOOD_BUILD={build}");
}
