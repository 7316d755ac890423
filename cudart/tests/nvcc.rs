//! A CUDA C++ program built by nvcc 13 runs on this library: examples/cuda/vector_add.cu
//! (which checks its own result against a host computation and prints PASS), built with PTX
//! only and run with ptxjit's libcudart.so.13 and libcuda.so.1 on the library path.
//!
//! Needs nvcc (NVCC, or the one in .venv-nvcc or .ci/venv-nvcc: `pip install -r
//! cudart/requirements.txt`) and the drop-in libraries built (`cargo build --release`).
//! Skipped with a message when either is missing, except under CI=true, where that is a
//! failure. The whole set of examples runs in examples/cuda/run.sh.

use std::path::{Path, PathBuf};
use std::process::Command;
use support::{nvcc, root, skip};

#[path = "../../cuda/tests/support/nvcc.rs"]
mod support;

/// The directory holding this build's libcudart.so.13 (the test binary is in <profile>/deps).
fn lib_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?.parent()?.to_path_buf();
    (dir.join("libcudart.so.13").exists() && dir.join("libcuda.so.1").exists()).then_some(dir)
}

#[test]
fn nvcc_vector_add_runs_on_the_drop_in() {
    let Some(nvcc) = nvcc() else {
        return skip(
            "no nvcc 13 (set NVCC or pip install -r cudart/requirements.txt into .venv-nvcc)",
        );
    };
    let Some(libs) = lib_dir() else {
        return skip("libcudart.so.13 and libcuda.so.1 are not both built (cargo build --release)");
    };
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("nvcc-test");
    std::fs::create_dir_all(&out).expect("test directory");
    // nvcc links -lcudart against NVIDIA's library, which sits in lib/ beside bin/.
    let nvlib = out.join("nvlib");
    std::fs::create_dir_all(&nvlib).expect("nvlib directory");
    let cu_lib = nvcc
        .parent()
        .and_then(Path::parent)
        .expect("nvcc's toolkit")
        .join("lib/libcudart.so.13");
    let _ = std::fs::remove_file(nvlib.join("libcudart.so"));
    std::os::unix::fs::symlink(cu_lib, nvlib.join("libcudart.so")).expect("link");
    let app = out.join("vector_add");
    let built = Command::new(&nvcc)
        .args([
            "--cudart",
            "shared",
            "-gencode",
            "arch=compute_80,code=compute_80",
            "-o",
        ])
        .arg(&app)
        .arg(root().join("examples/cuda/vector_add.cu"))
        .arg(format!("-L{}", nvlib.display()))
        .output()
        .expect("run nvcc");
    assert!(
        built.status.success(),
        "nvcc failed:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    for engine in ["jit", "interp"] {
        let run = Command::new(&app)
            .env("LD_LIBRARY_PATH", &libs)
            .env("PTXJIT_ENGINE", engine)
            .output()
            .expect("run the program");
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success() && stdout.lines().any(|l| l == "PASS"),
            "{engine}: exit {:?}\n{stdout}\n{}",
            run.status,
            String::from_utf8_lossy(&run.stderr)
        );
    }
}
