//! Builds kernel/tcpw.bpf.c, tcpw_watch.bpf.c, lossy.bpf.c and tcp_ack_probe.bpf.c into BPF objects and libbpf-rs
//! skeletons (OUT_DIR/<name>.skel.rs).
//!
//! 1. `vmlinux.h` (every kernel type, for CO-RE) is generated into OUT_DIR with
//!    `bpftool btf dump file /sys/kernel/btf/vmlinux format c` — or copied from
//!    `$WESTWOOD_VMLINUX_H`, or dumped from the BTF file `$WESTWOOD_BTF`, for a build machine
//!    without kernel BTF. The object is CO-RE: it loads into other kernels than the build's.
//! 2. clang compiles the program (libbpf-cargo's SkeletonBuilder; the libbpf headers come
//!    from the vendored libbpf, so libbpf-dev is not required).
//!
//! A missing tool fails the build with the Debian package that provides it.

use std::env;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{exit, Command};

use libbpf_cargo::SkeletonBuilder;

fn fail(msg: &str) -> ! {
    eprintln!("\nerror: westwood-linux build: {msg}\n");
    exit(1);
}

/// A tool from $PATH or, for bpftool (installed in /usr/sbin), the sbin directories.
fn find_tool(name: &str, env_var: &str) -> Option<PathBuf> {
    if let Some(p) = env::var_os(env_var) {
        return Some(PathBuf::from(p));
    }
    let mut dirs: Vec<PathBuf> =
        env::var_os("PATH").map(|p| env::split_paths(&p).collect()).unwrap_or_default();
    dirs.extend(["/usr/local/sbin", "/usr/sbin", "/sbin"].map(PathBuf::from));
    dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file())
}

fn runs(tool: &Path, arg: &str) -> bool {
    Command::new(tool).arg(arg).output().map(|o| o.status.success()).unwrap_or(false)
}

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let kernel_dir = manifest.join("../../kernel");
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    let source = kernel_dir.join("tcpw.bpf.c");
    if !kernel_dir.join("lossy.bpf.c").is_file() {
        fail(&format!("{} not found", kernel_dir.join("lossy.bpf.c").display()));
    }

    for env_var in ["WESTWOOD_VMLINUX_H", "WESTWOOD_BTF", "WESTWOOD_CLANG", "WESTWOOD_BPFTOOL"] {
        println!("cargo:rerun-if-env-changed={env_var}");
    }
    println!("cargo:rerun-if-changed={}", kernel_dir.display());
    if let Ok(entries) = fs::read_dir(&kernel_dir) {
        for e in entries.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name.ends_with(".bpf.c") || name.ends_with(".h") {
                println!("cargo:rerun-if-changed={}", e.path().display());
            }
        }
    }
    if !source.is_file() {
        fail(&format!("{} not found", source.display()));
    }

    // clang first: without it nothing else matters.
    let clang = find_tool("clang", "WESTWOOD_CLANG").unwrap_or_else(|| {
        fail(
            "`clang` not found: it compiles the BPF program. Install it (Debian/Ubuntu: \
             `apt-get install clang llvm`) or set WESTWOOD_CLANG to a clang binary.",
        )
    });
    if !runs(&clang, "--version") {
        fail(&format!(
            "`{} --version` failed: a working clang is needed (apt-get install clang)",
            clang.display()
        ));
    }

    // vmlinux.h
    let vmlinux_h = out.join("vmlinux.h");
    if let Some(given) = env::var_os("WESTWOOD_VMLINUX_H") {
        fs::copy(&given, &vmlinux_h).unwrap_or_else(|e| {
            fail(&format!("cannot copy WESTWOOD_VMLINUX_H={}: {e}", Path::new(&given).display()))
        });
    } else {
        let btf = env::var_os("WESTWOOD_BTF")
            .map(PathBuf::from)
            .unwrap_or_else(|| "/sys/kernel/btf/vmlinux".into());
        println!("cargo:rerun-if-changed={}", btf.display());
        if !btf.exists() {
            fail(&format!(
                "kernel BTF not found at {}: vmlinux.h is generated from it. This kernel was built \
                 without CONFIG_DEBUG_INFO_BTF=y (which BPF struct_ops needs anyway). Build on a kernel \
                 with BTF, or set WESTWOOD_BTF to a BTF file / WESTWOOD_VMLINUX_H to a vmlinux.h.",
                btf.display()
            ))
        }
        let bpftool = find_tool("bpftool", "WESTWOOD_BPFTOOL").unwrap_or_else(|| {
            fail(
                "`bpftool` not found: it generates vmlinux.h from the kernel's BTF. Install it \
                 (Debian 12: `apt-get install bpftool`; Ubuntu: linux-tools-common / linux-tools-$(uname -r)) \
                 or set WESTWOOD_BPFTOOL.",
            )
        });
        let output = Command::new(&bpftool)
            .args([
                OsString::from("btf"),
                "dump".into(),
                "file".into(),
                btf.clone().into(),
                "format".into(),
                "c".into(),
            ])
            .output()
            .unwrap_or_else(|e| fail(&format!("cannot run {}: {e}", bpftool.display())));
        if !output.status.success() || output.stdout.is_empty() {
            fail(&format!(
                "`{} btf dump file {} format c` failed: {}",
                bpftool.display(),
                btf.display(),
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        fs::write(&vmlinux_h, &output.stdout)
            .unwrap_or_else(|e| fail(&format!("cannot write vmlinux.h: {e}")));
    }

    let kernel_inc = kernel_dir.canonicalize().unwrap_or(kernel_dir.clone());
    // tcpw.bpf.c: the congestion controls; tcpw_watch.bpf.c: the iterators `watch` reads (loaded
    // separately, so a kernel that refuses one never blocks registration); lossy.bpf.c: random
    // loss for bench --loss and tests; tcp_ack_probe.bpf.c: the per-ACK trace of the kernel's own
    // congestion controls.
    for source_file in ["tcpw.bpf.c", "tcpw_watch.bpf.c", "lossy.bpf.c", "tcp_ack_probe.bpf.c"] {
        let name = source_file.trim_end_matches(".bpf.c");
        let source = kernel_dir.join(source_file);
        let result = SkeletonBuilder::new()
            .source(&source)
            .clang(&clang)
            .clang_args([
                OsString::from("-I"),
                out.clone().into_os_string(),
                OsString::from("-I"),
                kernel_inc.clone().into_os_string(),
                OsString::from("-Wall"),
                OsString::from("-Werror"),
                // BPF ISA v3 (kernel 5.1+; the congestion controls need 5.13): atomic
                // fetch-and-add, which hands out the trace's connection ids.
                OsString::from("-mcpu=v3"),
            ])
            .build_and_generate(out.join(format!("{name}.skel.rs")));
        if let Err(e) = result {
            fail(&format!("compiling {} failed:\n{e:#}", source.display()));
        }
    }
}
