//! The fixed cost of a launch: an empty kernel (`ret;` only) launched many times back to back
//! on a few grid shapes, through the JIT's host API and through POCL (an empty OpenCL kernel),
//! for `examples/bench_table.rs`'s launch-overhead table.
//!
//! A JIT launch's time is the wall time of `LaunchBuilder::launch` (argument packing, the
//! CTA scheduling, the warps, the return); a POCL launch's is `clEnqueueNDRangeKernel` to the
//! end of `clFinish`, as for the benchmark kernels (`pocl::Pocl::timed_launch`). Wall time
//! always (`--cpu-time` would count the idle workers' spinning). Each figure is the median of
//! the timed launches after [`WARM_UP`] untimed ones.

use ptxjit::host::{Context, Engine};
use std::time::{Duration, Instant};

/// The empty kernel as PTX.
pub const PTX: &str =
    ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry empty()\n{\nret;\n}\n";

/// The empty kernel as OpenCL C.
pub const OPENCL: &str = "__kernel void empty(void) {}\n";

/// The grid shapes measured: (CTAs, threads per CTA).
pub const SHAPES: [(u32, u32); 6] = [
    (1, 32),
    (1, 256),
    (64, 32),
    (64, 256),
    (1024, 32),
    (1024, 256),
];

/// Untimed launches before the timed ones (the pools' threads started, buffers kept).
pub const WARM_UP: usize = 100;

/// The warps of a grid of `ctas` CTAs of `threads` threads (32 threads each, the last of a
/// CTA maybe partial).
pub fn warps(ctas: u32, threads: u32) -> u64 {
    u64::from(ctas) * u64::from(threads.div_ceil(32))
}

/// The wall times of `runs` launches of the empty kernel on the JIT (its optimized tier,
/// as the benchmark table's JIT column), grid `ctas` × `threads`, after [`WARM_UP`].
pub fn jit_times(ctas: u32, threads: u32, runs: usize) -> Result<Vec<Duration>, String> {
    let mut ctx = Context::new();
    let module = ctx
        .load_module(PTX, "empty.ptx", Engine::Jit)
        .map_err(|e| e.to_string())?;
    let kernel = module.kernel("empty").map_err(|e| e.to_string())?;
    kernel.compile_optimized().map_err(|e| e.to_string())?;
    let mut times = Vec::with_capacity(runs);
    for i in 0..WARM_UP + runs {
        let t = Instant::now();
        ctx.launch_builder(&kernel)
            .grid(ctas)
            .block(threads)
            .launch()
            .map_err(|e| e.to_string())?;
        if i >= WARM_UP {
            times.push(t.elapsed());
        }
    }
    Ok(times)
}
