//! Finds librunway.so and tells rustc how to link it.
//!
//! Search order: the `RUNWAY_LIB_DIR` environment variable, then the repository's build folder
//! (`<crate>/../../build`). The folder is also written as an rpath into every test, example and
//! binary of this package, so they run without `LD_LIBRARY_PATH`.

use std::env;
use std::path::PathBuf;
use std::process;

fn main() {
    println!("cargo:rerun-if-env-changed=RUNWAY_LIB_DIR");
    println!("cargo:rerun-if-changed=build.rs");

    let (dir, origin) = match env::var_os("RUNWAY_LIB_DIR") {
        Some(d) if !d.is_empty() => (PathBuf::from(d), "RUNWAY_LIB_DIR"),
        _ => {
            let manifest = env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
            (PathBuf::from(manifest).join("../../build"), "the repository build folder")
        }
    };
    let lib = dir.join("librunway.so");
    if !lib.is_file() {
        eprintln!(
            "error: librunway.so not found in {} ({origin}).\n\
             Build the library first (`make` at the repository root puts it in build/), or set\n\
             RUNWAY_LIB_DIR to the folder that holds librunway.so.",
            dir.display()
        );
        process::exit(1);
    }
    let dir = dir.canonicalize().unwrap_or(dir);
    let dir = dir.display();

    println!("cargo:rerun-if-changed={}", lib.display());
    println!("cargo:rustc-link-search=native={dir}");
    println!("cargo:rustc-link-lib=dylib=runway");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    // Exposed to crates that depend on this one as DEP_RUNWAY_LIB_DIR.
    println!("cargo:lib_dir={dir}");
}
