//! An unmodified cudarc program on ptxjit's drop-in libcuda.so.1: CUDA C++ compiled to PTX by
//! NVRTC, loaded as a module, launched, its result copied back and checked against the host's.
//!
//! Run from the repository root after `cargo build --release`, with NVRTC's directory (the
//! nvidia-cuda-nvrtc-cu12 wheel's `nvidia/cuda_nvrtc/lib`) on `LD_LIBRARY_PATH`:
//!
//! ```text
//! LD_LIBRARY_PATH=$NVRTC_LIB target/release/ptxjit exec -- \
//!     cargo run --release --manifest-path cuda/clients/cudarc/Cargo.toml
//! ```
//!
//! `.ci/clients.sh` does this, on both engines. Prints `N passed, M failed` and exits non-zero
//! on a failure.

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::error::Error;

/// Each block sums x[i] * y[i] over its threads' elements in shared memory (a tree reduction
/// with barriers) and writes the sum to partial[block].
const SOURCE: &str = r#"
extern "C" __global__ void block_dot(const float *x, const float *y, float *partial, unsigned n) {
    __shared__ float s[256];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] * y[i] : 0.0f;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) {
            s[threadIdx.x] += s[threadIdx.x + k];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = s[0];
    }
}
"#;

const BLOCK: usize = 256;

/// Launches `block_dot` on 1000 elements and compares its partial sums with the host's.
fn block_dot() -> Result<(), Box<dyn Error>> {
    let ptx = compile_ptx(SOURCE)?;
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(ptx)?;
    let f = module.load_function("block_dot")?;

    let n = 1000usize;
    // Small integers: every product and partial sum is exact in f32, whatever the order of
    // the additions.
    let x: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 5) as f32 - 2.0).collect();
    let blocks = n.div_ceil(BLOCK);
    let want: Vec<f32> = (0..blocks)
        .map(|b| {
            (b * BLOCK..((b + 1) * BLOCK).min(n))
                .map(|i| x[i] * y[i])
                .sum()
        })
        .collect();

    let dx = stream.clone_htod(&x)?;
    let dy = stream.clone_htod(&y)?;
    let mut partial = stream.alloc_zeros::<f32>(blocks)?;
    let count = n as u32;
    let cfg = LaunchConfig {
        grid_dim: (blocks as u32, 1, 1),
        block_dim: (BLOCK as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut launch = stream.launch_builder(&f);
    launch.arg(&dx).arg(&dy).arg(&mut partial).arg(&count);
    // SAFETY: the arguments match the kernel's parameters (two input arrays of n floats, an
    // output array of `blocks` floats, the count).
    unsafe { launch.launch(cfg) }?;
    let got = stream.clone_dtoh(&partial)?;
    if got != want {
        return Err(format!("partial sums {got:?}, expected {want:?}").into());
    }
    Ok(())
}

/// A check: Ok, or what went wrong.
type Check = fn() -> Result<(), Box<dyn Error>>;

fn main() {
    let checks: [(&str, Check); 1] = [("block_dot", block_dot)];
    let mut failed = 0;
    for (name, check) in checks {
        match check() {
            Ok(()) => println!("ok: {name}"),
            Err(e) => {
                println!("FAILED: {name}: {e}");
                failed += 1;
            }
        }
    }
    println!("{} passed, {failed} failed", checks.len() - failed);
    if failed > 0 {
        std::process::exit(1);
    }
}
