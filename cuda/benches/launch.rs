//! The cost of one `cuLaunchKernel` of an empty kernel through the drop-in library (one CTA
//! of 32 threads, and 64 CTAs of 256 threads), on the JIT: what a program pays per launch on
//! top of its kernel's work. `cargo bench -p ptxjit-cuda --bench launch`.

use criterion::{criterion_group, criterion_main, Criterion};
use cuda::context::*;
use cuda::device::*;
use cuda::errors::*;
use cuda::launch::*;
use cuda::module::*;
use std::ffi::CString;
use std::ptr::null_mut;

const EMPTY: &str =
    ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry empty()\n{\nret;\n}\n";

fn launches(c: &mut Criterion) {
    let f = unsafe {
        assert_eq!(cuInit(0), CUDA_SUCCESS);
        let mut ctx = null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), CUDA_SUCCESS);
        assert_eq!(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
        let text = CString::new(EMPTY).expect("no NUL");
        let mut m = 0u64;
        assert_eq!(cuModuleLoadData(&mut m, text.as_ptr().cast()), CUDA_SUCCESS);
        let mut f = 0u64;
        let name = CString::new("empty").expect("no NUL");
        assert_eq!(cuModuleGetFunction(&mut f, m, name.as_ptr()), CUDA_SUCCESS);
        f
    };
    let mut g = c.benchmark_group("cuLaunchKernel (empty kernel)");
    for (grid, block) in [(1u32, 32u32), (64, 256)] {
        g.bench_function(format!("{grid}x{block} threads"), |b| {
            b.iter(|| {
                let r = unsafe {
                    cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, 0, null_mut(), null_mut())
                };
                assert_eq!(r, CUDA_SUCCESS);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, launches);
criterion_main!(benches);
