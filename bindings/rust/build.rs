//! Records, for the run-time loader (src/library.rs), the `make install` prefix this crate is
//! built for, if any: `$RUNWAY_PREFIX/lib`, else the `libdir` of an installed `runway.pc` that
//! `pkg-config` finds (PKG_CONFIG_PATH; an uninstalled `runway-uninstalled.pc` does not count:
//! the build folder has its own place in the search order). Nothing is linked: librunway is
//! loaded with `dlopen` when first used, so this crate builds without the library and a
//! program that depends on it needs no rpath and no build script of its own.

use std::env;
use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=RUNWAY_PREFIX");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG");
    let libdir = match env::var("RUNWAY_PREFIX") {
        Ok(p) if !p.is_empty() => Some(Path::new(&p).join("lib").display().to_string()),
        _ => pkg_config_libdir(),
    };
    if let Some(dir) = &libdir {
        println!("cargo:rerun-if-changed={dir}");
    }
    println!("cargo:rustc-env=RUNWAY_INSTALLED_LIBDIR={}", libdir.unwrap_or_default());
}

fn pkg_config_libdir() -> Option<String> {
    let tool = env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".into());
    let out = Command::new(tool)
        .args(["--variable=libdir", "runway"])
        .env("PKG_CONFIG_DISABLE_UNINSTALLED", "1")
        .output()
        .ok()?;
    let dir = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (out.status.success() && !dir.is_empty()).then_some(dir)
}
