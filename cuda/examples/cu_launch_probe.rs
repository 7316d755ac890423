//! Latency of `cuLaunchKernel` of an empty kernel through the drop-in library: min, 10th
//! percentile, median and mean of N timed launches after 100 warm-ups.
//! `cargo run --release -p ptxjit-cuda --example cu_launch_probe -- [N=5000] [GRID=1] [BLOCK=32]`.
use cuda::context::*;
use cuda::device::*;
use cuda::errors::*;
use cuda::launch::*;
use cuda::module::*;
use std::ffi::CString;
use std::ptr::null_mut;

const EMPTY: &str =
    ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry empty()\n{\nret;\n}\n";

fn main() {
    let n: usize = std::env::args().nth(1).map_or(5000, |s| s.parse().unwrap());
    let grid: u32 = std::env::args().nth(2).map_or(1, |s| s.parse().unwrap());
    let block: u32 = std::env::args().nth(3).map_or(32, |s| s.parse().unwrap());
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
    let launch = || {
        let r = unsafe { cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, 0, null_mut(), null_mut()) };
        assert_eq!(r, CUDA_SUCCESS);
    };
    for _ in 0..100 {
        launch();
    }
    let mut v = vec![];
    for _ in 0..n {
        let t = std::time::Instant::now();
        launch();
        v.push(t.elapsed().as_secs_f64() * 1e6);
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "{grid}x{block}: min {:.1} us, p10 {:.1}, median {:.1} us, mean {:.1}",
        v[0],
        v[n / 10],
        v[n / 2],
        v.iter().sum::<f64>() / n as f64
    );
}
