//! Compiles csrc/ffi.c, which includes ../../kernel/westwood_core.h, into a static library.
//!
//! `-mgeneral-regs-only` (where the compiler has it) makes any floating point in the header a
//! compile error, as it would be for the BPF target.

fn main() {
    let kernel = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernel");
    println!("cargo:rerun-if-changed=csrc/ffi.c");
    println!("cargo:rerun-if-changed={}", kernel.join("westwood_core.h").display());
    cc::Build::new()
        .file("csrc/ffi.c")
        .include(&kernel)
        .std("c11")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .flag_if_supported("-Wshadow")
        .flag_if_supported("-Wdouble-promotion")
        .flag_if_supported("-Wfloat-conversion")
        .flag_if_supported("-mgeneral-regs-only")
        .compile("westwood_core_ffi");
}
