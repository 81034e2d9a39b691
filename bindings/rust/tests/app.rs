//! An application crate outside bindings/rust (Tests/rust-app, depending on this crate by path,
//! with no build script of its own) builds and runs with no LD_LIBRARY_PATH and no
//! RUNWAY_LIBRARY: against the repository's build/, against a `make install` prefix (the one
//! pkg-config names when it is built), and with the library copied beside its executable. Each
//! time it reports which file it loaded, and that file is the one the search order promises.
//! Also: RUNWAY_LIBRARY wins and must load (a missing file or a library that is not librunway
//! is the error, with no fallback).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn app_dir() -> PathBuf {
    repo().join("Tests/rust-app")
}

/// Builds the app into `target` (with `env` for the build) and returns its binary.
fn build(target: &Path, env: &[(&str, &str)]) -> PathBuf {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.args(["build", "--offline", "--quiet", "--manifest-path"])
        .arg(app_dir().join("Cargo.toml"))
        .arg("--target-dir")
        .arg(target)
        .env_remove("RUNWAY_PREFIX")
        .env_remove("PKG_CONFIG_PATH")
        .env_remove("RUSTFLAGS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("running cargo build");
    assert!(out.status.success(), "cargo build of the app failed:\n{}", String::from_utf8_lossy(&out.stderr));
    target.join("debug/runway-app")
}

/// Runs the app with no LD_LIBRARY_PATH and no RUNWAY_LIBRARY (plus `env`).
fn run(bin: &Path, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(bin);
    cmd.env_remove("LD_LIBRARY_PATH").env_remove("RUNWAY_LIBRARY").current_dir("/");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("running the app")
}

/// The app's report: the library it loaded and its figures, checked.
fn loaded(out: &Output) -> PathBuf {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the app failed: {}\n{stdout}", String::from_utf8_lossy(&out.stderr));
    let field = |k: &str| {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(k).map(|v| v.trim().to_owned()))
            .unwrap_or_else(|| panic!("no {k} in {stdout}"))
    };
    // 30 steps of 6 m due north: 180 m, auto laps every 100 m and the final one.
    let d: f64 = field("distance_m").parse().unwrap();
    assert!((d - 180.0).abs() < 0.5, "{stdout}");
    assert_eq!(field("laps"), "2", "{stdout}");
    assert_eq!(field("points"), "31", "{stdout}");
    assert_eq!(field("version"), runway::sys::RUNWAY_VERSION_STRING);
    PathBuf::from(field("library"))
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn an_app_crate_runs_without_ld_library_path_from_build_an_install_prefix_and_beside_itself() {
    let build_lib = repo().join("build/librunway.so");
    assert!(build_lib.is_file(), "{} not built (make lib)", build_lib.display());
    let tmp = common::TempDir::new("app");
    let target = tmp.join("target");

    // 1. Built plainly: the repository's build folder (no install prefix known, none beside it;
    //    the system loader would come first, so this checks it has none either).
    let bin = build(&target, &[]);
    let out = run(&bin, &[]);
    assert_eq!(canonical(&loaded(&out)), canonical(&build_lib));

    // 2. Beside the executable: a copy of the program with the library next to it.
    let alone = tmp.join("shipped");
    std::fs::create_dir_all(&alone).unwrap();
    std::fs::copy(&bin, alone.join("runway-app")).unwrap();
    std::fs::copy(&build_lib, alone.join(runway::SONAME)).unwrap();
    let out = run(&alone.join("runway-app"), &[]);
    assert_eq!(loaded(&out), canonical(&alone.join(runway::SONAME)));

    // 3. RUNWAY_LIBRARY comes first, and when it names nothing loadable that is the error.
    let out = run(&alone.join("runway-app"), &[("RUNWAY_LIBRARY", build_lib.to_str().unwrap())]);
    assert_eq!(canonical(&loaded(&out)), canonical(&build_lib));
    let out = run(&bin, &[("RUNWAY_LIBRARY", "/no/such/librunway.so")]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("$RUNWAY_LIBRARY = /no/such/librunway.so: no such file"), "{err}");
    let libm = ["/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib64/libm.so.6", "/lib64/libm.so.6"]
        .into_iter()
        .find(|p| Path::new(p).exists());
    if let Some(libm) = libm {
        let out = run(&bin, &[("RUNWAY_LIBRARY", libm)]);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("not librunway: no runway_"), "{err}");
    }

    // 4. A `make install` prefix, named by pkg-config when the app is built: the installed
    //    library, not build/, even though build/ is still there.
    let prefix = tmp.join("prefix");
    let install = Command::new(repo().join("scripts/install.sh"))
        .env("PREFIX", &prefix)
        .env_remove("DESTDIR")
        .output()
        .expect("running scripts/install.sh");
    assert!(install.status.success(), "install: {}", String::from_utf8_lossy(&install.stderr));
    let pc = prefix.join("lib/pkgconfig");
    let bin = build(&target, &[("PKG_CONFIG_PATH", pc.to_str().unwrap())]);
    let out = run(&bin, &[]);
    let real =
        format!("librunway.so.{}.{}", runway::sys::RUNWAY_VERSION_MAJOR, runway::sys::RUNWAY_VERSION_MINOR);
    assert_eq!(canonical(&loaded(&out)), canonical(&prefix.join("lib").join(real)));

    // 5. The same with RUNWAY_PREFIX at build time instead of pkg-config.
    let bin = build(&target, &[("RUNWAY_PREFIX", prefix.to_str().unwrap())]);
    let out = run(&bin, &[]);
    assert!(canonical(&loaded(&out)).starts_with(canonical(&prefix)));
}

#[test]
fn the_search_order_is_the_documented_one() {
    let c = runway::library_candidates();
    let names: Vec<&str> = c.iter().map(|(w, _)| w.as_str()).collect();
    let pos = |w: &str| names.iter().position(|n| *n == w).unwrap_or_else(|| panic!("{w} not in {names:?}"));
    assert!(pos("beside the executable") < pos("the system loader"));
    assert!(pos("the system loader") < pos("the repository's build folder"));
    if let Some(p) = names.iter().position(|n| *n == "the install prefix this crate was built for") {
        assert!(pos("beside the executable") < p && p < pos("the system loader"));
    }
    if std::env::var_os("RUNWAY_LIBRARY").is_some() {
        assert_eq!(names[0], "$RUNWAY_LIBRARY");
    }
    // The system loader is asked for the SONAME, a bare name.
    let (_, system) = &c[pos("the system loader")];
    assert_eq!(system, Path::new(runway::SONAME));
    assert_eq!(runway::SONAME, format!("librunway.so.{}", runway::sys::RUNWAY_VERSION_MAJOR));
}
