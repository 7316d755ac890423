//! A CUDA C++ program built by nvcc 13 runs on this library: examples/cuda/vector_add.cu
//! (which checks its own result against a host computation and prints PASS), built with PTX
//! only and run with ptxjit's libcudart.so.13 and libcuda.so.1 on the library path.
//!
//! Needs nvcc (NVCC, or the one in .venv-nvcc or .ci/venv-nvcc: `pip install -r
//! cudart/requirements.txt`) and the drop-in libraries built (`cargo build --release`).
//! Skipped with a message when either is missing, except under CI=true, where that is a
//! failure. The whole set of examples runs in examples/cuda/run.sh.

use std::path::{Path, PathBuf};
use support::{build, nvcc, root, run_on_both_engines, skip};

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
    let libflag = format!("-L{}", nvlib.display());
    let source = root().join("examples/cuda/vector_add.cu");
    build(
        &nvcc,
        [
            "--cudart".as_ref(),
            "shared".as_ref(),
            "-gencode".as_ref(),
            "arch=compute_80,code=compute_80".as_ref(),
            "-o".as_ref(),
            app.as_os_str(),
            source.as_os_str(),
            libflag.as_ref(),
        ],
    );
    run_on_both_engines(&app, &libs);
}
