//! What the tests that build CUDA C++ with nvcc 13 share (cuda/tests/nvcc_static.rs and
//! cudart/tests/nvcc.rs, which includes this file by path): the repository root, finding
//! nvcc, and skipping a test that lacks it.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root (both crates sit one directory below it).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Skips the calling test with a message on stderr, or fails it under `CI=true`, where
/// everything it needs is installed.
pub fn skip(why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{why} (required under CI=true)");
    }
    eprintln!("skipped: {why}");
}

/// nvcc 13: `NVCC`, else the one in `.venv-nvcc` or `.ci/venv-nvcc` (`pip install -r
/// cudart/requirements.txt`); `None` when neither exists.
pub fn nvcc() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("NVCC") {
        return Some(PathBuf::from(p));
    }
    [".venv-nvcc/lib", ".ci/venv-nvcc/lib"]
        .iter()
        .find_map(|lib| {
            std::fs::read_dir(root().join(lib))
                .ok()?
                .flatten()
                .find_map(|e| {
                    let p = e.path().join("site-packages/nvidia/cu13/bin/nvcc");
                    p.exists().then_some(p)
                })
        })
}

/// Runs `nvcc` with `args` and fails the test with nvcc's stderr when it fails.
pub fn build<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(nvcc: &Path, args: I) {
    let built = Command::new(nvcc).args(args).output().expect("run nvcc");
    assert!(
        built.status.success(),
        "nvcc failed:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
}

/// Runs `app` with `libs` as its library path on each engine (`PTXJIT_ENGINE`); fails the
/// test unless it exits successfully and prints a `PASS` line ([`run_checked`]). Gives each
/// run's stderr, `(engine, stderr)`.
pub fn run_on_both_engines(app: &Path, libs: &Path) -> Vec<(&'static str, String)> {
    ["jit", "interp"]
        .into_iter()
        .map(|engine| (engine, run_checked(app, libs, engine, &[], &[])))
        .collect()
}

/// Runs `app` with arguments `args` on `engine` with the drop-in libraries in `libs` and the
/// variables `env` set (no tool, tracing or PTX dump otherwise); fails the test unless it
/// exits successfully and prints a `PASS` line. Gives its stderr.
pub fn run_checked(
    app: &Path,
    libs: &Path,
    engine: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> String {
    let mut cmd = Command::new(app);
    cmd.args(args)
        .env("LD_LIBRARY_PATH", libs)
        .env("PTXJIT_ENGINE", engine)
        .env_remove("PTXJIT_TOOL")
        .env_remove("PTXJIT_TRACE")
        .env_remove("PTXJIT_DUMP_PTX");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let run = cmd.output().expect("run the program");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(
        run.status.success() && stdout.lines().any(|l| l == "PASS"),
        "{} {args:?} ({engine}): exit {:?}\n{stdout}\n{stderr}",
        app.display(),
        run.status
    );
    stderr
}

/// Fails the calling test when `dir/file` (a drop-in library, e.g. `libcuda.so.1`) is older
/// than a source file it was built from, as cargo's dep-info file beside it (`libcuda.d`)
/// lists them. `cargo test` builds the crates' test harnesses but not the `cdylib`s these
/// tests load, so after an edit without `cargo build --release` they would run the old
/// library and pass or fail for its code, not this checkout's. A missing dep-info file
/// (another build tool) checks nothing.
pub fn require_fresh(dir: &Path, file: &str) {
    let lib = dir.join(file);
    let stem = file.split(".so").next().unwrap_or(file);
    let Ok(dep_info) = std::fs::read_to_string(dir.join(format!("{stem}.d"))) else {
        return;
    };
    let Ok(built) = std::fs::metadata(&lib).and_then(|m| m.modified()) else {
        return;
    };
    // "TARGET: SOURCE SOURCE …" with spaces inside a path escaped as "\ ".
    let Some((_, sources)) = dep_info.split_once(": ") else {
        return;
    };
    let joined = sources.replace("\\ ", "\u{0}");
    for source in joined.split_whitespace() {
        let source = PathBuf::from(source.replace('\u{0}', " "));
        let newer = std::fs::metadata(&source)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t > built);
        assert!(
            !newer,
            "{} is older than {}, which it is built from: run `cargo build --release` \
             before the tests (they load the library, which `cargo test` does not rebuild)",
            lib.display(),
            source.display()
        );
    }
}
