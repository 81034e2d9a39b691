//! The README's Rust example is `examples/readme.rs`, word for word, and running it prints
//! exactly the output the README shows under it.
//!
//! `cargo test` builds every example before it runs the tests, so the example's binary sits in
//! `target/<profile>/examples/` beside this test's own folder (`target/<profile>/deps/`).

use std::path::{Path, PathBuf};
use std::process::Command;

fn readme() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The lines of the first code block tagged `tag` after the heading `heading`, each with its `\n`.
fn block(text: &str, heading: &str, tag: &str) -> String {
    let start = text.find(&format!("\n{heading}\n")).unwrap_or_else(|| panic!("README has no {heading:?}"));
    let mut lines = text[start..].lines().skip_while(|l| *l != format!("```{tag}")).skip(1);
    let mut out = String::new();
    for line in lines.by_ref() {
        if line == "```" {
            return out;
        }
        out.push_str(line);
        out.push('\n');
    }
    panic!("README: no closed ```{tag} block after {heading:?}");
}

fn example_binary() -> PathBuf {
    let test = std::env::current_exe().expect("the test's own path");
    let profile = test.parent().and_then(Path::parent).expect("target/<profile>/deps/<test>");
    let binary = profile.join("examples").join(format!("readme{}", std::env::consts::EXE_SUFFIX));
    assert!(
        binary.is_file(),
        "{} not built: run the whole `cargo test` (it builds the examples) or `cargo build --example readme`",
        binary.display()
    );
    binary
}

#[test]
fn the_readme_rust_example_is_examples_readme_rs() {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/readme.rs");
    let source = std::fs::read_to_string(&source).unwrap_or_else(|e| panic!("{}: {e}", source.display()));
    assert_eq!(
        block(&readme(), "## A run from Rust", "rust"),
        source,
        "README.md and examples/readme.rs differ"
    );
}

#[test]
fn the_readme_rust_example_prints_what_the_readme_shows() {
    let out = Command::new(example_binary()).output().expect("the example runs");
    assert!(out.status.success(), "the example failed: {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), block(&readme(), "## A run from Rust", "text"));
}
