//! Write the test vectors (docs/vectors.md) into a folder:
//!
//! ```text
//! cargo run -p westwood-algorithms --example generate_vectors -- vectors
//! ```
//!
//! Writes `<folder>/<variant>/<sequence>.jsonl` for every variant and scripted sequence, removes
//! `.jsonl` files the generator no longer produces from those variant folders, and prints what
//! it wrote.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use westwood_algorithms::vectors::{self, Variant};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [folder] = args.as_slice() else {
        eprintln!("usage: generate_vectors <folder>   (e.g. `-- vectors` from the repository root)");
        return ExitCode::from(2);
    };
    match write_all(Path::new(folder)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("generate_vectors: {e}");
            ExitCode::FAILURE
        }
    }
}

fn write_all(root: &Path) -> std::io::Result<()> {
    let files = vectors::generate();
    let written: BTreeSet<PathBuf> = files.iter().map(|f| root.join(&f.path)).collect();
    let mut total_bytes = 0;
    let mut total_lines = 0;
    for file in &files {
        let path = root.join(&file.path);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        let unchanged = fs::read_to_string(&path).is_ok_and(|old| old == file.contents);
        if !unchanged {
            fs::write(&path, &file.contents)?;
        }
        let lines = file.contents.lines().count();
        total_bytes += file.contents.len();
        total_lines += lines;
        println!(
            "{} {:>6} lines {:>8} bytes{}",
            path.display(),
            lines,
            file.contents.len(),
            if unchanged { "  (unchanged)" } else { "" }
        );
    }
    for variant in Variant::ALL {
        let dir = root.join(variant.name());
        for entry in fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "jsonl") && !written.contains(&path) {
                fs::remove_file(&path)?;
                println!("{} removed (no longer generated)", path.display());
            }
        }
    }
    println!("{} files, {total_lines} lines, {total_bytes} bytes in {}", files.len(), root.display());
    Ok(())
}
