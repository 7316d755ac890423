//! A CUDA C++ program built by nvcc 13 with its default `--cudart static` (NVIDIA's runtime
//! linked into the program) runs on this library's libcuda.so.1 alone: the runtime reaches
//! the driver through the private export tables (cuda/src/export_tables.rs), including the
//! integrity check, and any mistake there fails its first call. The programs are
//! examples/cuda/vector_add.cu, symbols.cu (`__constant__`, `__device__` and `__managed__`
//! variables, the managed ones read and written by the host) and graph.cu (stream capture,
//! graphs, kernel node parameters read back), which check their results
//! against host computations and print PASS, and [`RESET`], which uses the device again after
//! `cudaDeviceReset`; they run under both engines.
//!
//! Needs nvcc (NVCC, or the one in .venv-nvcc or .ci/venv-nvcc: `pip install -r
//! cudart/requirements.txt`) and libcuda.so.1 built (`cargo build --release`). Skipped with
//! a message when either is missing, except under CI=true, where that is a failure.

use std::path::PathBuf;
use support::{build, nvcc, root, run_on_both_engines, skip};

#[path = "support/nvcc.rs"]
mod support;

/// Work before and after `cudaDeviceReset` (the runtime's per-context state is dropped with
/// the context's local storage; its library stays loaded), each checked against the host.
const RESET: &str = r#"#include <cstdio>
__global__ void k(int* p) { p[threadIdx.x] = threadIdx.x * 3; }
int run() {
  int* d; int h[32];
  if (cudaMalloc(&d, sizeof h)) return 1;
  k<<<1, 32>>>(d);
  if (cudaGetLastError()) return 2;
  if (cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost)) return 3;
  for (int i = 0; i < 32; i++) if (h[i] != 3 * i) return 4;
  return cudaFree(d) ? 5 : 0;
}
int main() {
  int before = run();
  cudaError_t reset = cudaDeviceReset();
  int after = run();
  std::printf("%d %s %d\n", before, cudaGetErrorName(reset), after);
  if (before == 0 && reset == cudaSuccess && after == 0) std::printf("PASS\n");
  return 0;
}
"#;

/// The directory holding this build's libcuda.so.1 (the test binary is in <profile>/deps).
fn lib_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?.parent()?.to_path_buf();
    dir.join("libcuda.so.1").exists().then_some(dir)
}

#[test]
fn nvcc_default_static_runtime_runs() {
    let Some(nvcc) = nvcc() else {
        return skip(
            "no nvcc 13 (set NVCC or pip install -r cudart/requirements.txt into .venv-nvcc)",
        );
    };
    let Some(libs) = lib_dir() else {
        return skip("libcuda.so.1 is not built (cargo build --release)");
    };
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("nvcc-static-test");
    std::fs::create_dir_all(&out).expect("test directory");
    let reset_source = out.join("reset.cu");
    std::fs::write(&reset_source, RESET).expect("write reset.cu");
    for name in ["vector_add", "symbols", "graph", "reset"] {
        let app = out.join(format!("{name}_static"));
        let source = if name == "reset" {
            reset_source.clone()
        } else {
            root().join(format!("examples/cuda/{name}.cu"))
        };
        // No --cudart option: nvcc's default, NVIDIA's runtime linked in from
        // libcudart_static.a.
        build(
            &nvcc,
            [
                "-gencode".as_ref(),
                "arch=compute_80,code=compute_80".as_ref(),
                "-o".as_ref(),
                app.as_os_str(),
                source.as_os_str(),
            ],
        );
        for (engine, stderr) in run_on_both_engines(&app, &libs) {
            // Every table the runtime needs is there: no miss or unknown slot is reported.
            assert!(!stderr.contains("ptxjit:"), "{name} ({engine}): {stderr}");
        }
    }
}
