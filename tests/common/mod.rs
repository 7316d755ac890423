//! What the test binaries that run the `ptxjit` command share: running it (in the repository
//! root, or in a scratch directory with its own PTX cache), a fresh scratch directory per
//! test, and the check of an exit code that shows both streams when it fails. Each binary
//! includes this module (`mod common;`) and uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root (where case paths such as `ptx-tests/...` start).
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Run the `ptxjit` binary in the repository root.
pub fn ptxjit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxjit"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run ptxjit")
}

/// Run the `ptxjit` binary in `dir`, with its PTX cache in `dir/cache` and the variables of
/// `env` set.
pub fn ptxjit_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ptxjit"));
    c.args(args)
        .current_dir(dir)
        .env("PTXJIT_CACHE_DIR", dir.join("cache"));
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run ptxjit")
}

/// A stream's bytes as text (lossy).
pub fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).into_owned()
}

/// A fresh, empty scratch directory for test `name` of the binary `binary`, unique to this
/// process.
pub fn scratch(binary: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptxjit-{binary}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create scratch dir");
    d
}

/// Assert exit code `code`; show both streams otherwise.
pub fn expect_code(o: &Output, code: i32) {
    assert_eq!(
        o.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        text(&o.stdout),
        text(&o.stderr)
    );
}

/// Run `ptxjit run --engine E ARGS` with the JIT and with the interpreter: each run must exit
/// with `code` and its stderr hold every one of `wants`.
pub fn expect_stderr_on_both_engines(args: &[&str], code: i32, wants: &[&str]) {
    for engine in ["jit", "interp"] {
        let mut a = vec!["run", "--engine", engine];
        a.extend_from_slice(args);
        let o = ptxjit(&a);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(code), "{engine}: {err}");
        for want in wants {
            assert!(err.contains(want), "{engine}: missing {want:?} in:\n{err}");
        }
    }
}
