//! A grid-wide barrier that can never complete: a cooperative kernel in which CTA 0 returns
//! before `cudaCGSynchronize` (numba's `this_grid().sync()`, which ptxjit supplies) while the
//! other CTAs wait for it there. On a GPU the launch hangs; here it ends with
//! `CUDA_ERROR_LAUNCH_FAILED` (sticky) and a report naming the kernel, the CTA that ended and
//! the CTAs that wait. The same kernel with every CTA arriving completes. One test: the
//! error is sticky for the process.

use cuda::context::*;
use cuda::errors::*;
use cuda::launch::*;
use cuda::memory::*;
use std::ffi::CString;

mod common;
use common::{arg, function, load, setup, test_child};

/// out[ctaid] = 1 after the grid sync, for CTAs with ctaid >= skip (the CTAs below `skip`
/// return before it).
const PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.extern .func (.param .b64 h) cudaCGGetIntrinsicHandle(.param .b32 scope);
.extern .func (.param .b32 s) cudaCGSynchronize(.param .b64 h, .param .b32 flags);
.visible .entry early_exit(.param .u64 out, .param .u32 skip)
{
    .reg .u32 %r<4>;
    .reg .u64 %rd<4>;
    .reg .pred %p;
    mov.u32 %r1, %ctaid.x;
    ld.param.u32 %r2, [skip];
    setp.lt.u32 %p, %r1, %r2;
    @%p ret;
    {
        .param .b32 scope;
        .param .b64 h;
        st.param.b32 [scope], 1;
        call.uni (h), cudaCGGetIntrinsicHandle, (scope);
        ld.param.b64 %rd1, [h];
    }
    {
        .param .b64 h;
        .param .b32 flags;
        .param .b32 s;
        st.param.b64 [h], %rd1;
        st.param.b32 [flags], 0;
        call.uni (s), cudaCGSynchronize, (h, flags);
    }
    ld.param.u64 %rd2, [out];
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd2, %rd2, %rd3;
    mov.u32 %r3, 1;
    st.global.u32 [%rd2], %r3;
    ret;
}
"#;

const GRID: u32 = 4;

fn launch(f: u64, out: u64, skip: u32) -> CUresult {
    let mut params = [arg(&out), arg(&skip)];
    unsafe { cuLaunchCooperativeKernel(f, GRID, 1, 1, 64, 1, 1, 0, 0, params.as_mut_ptr()) }
}

/// The launches; run in a child process (`GRID_DEADLOCK_CHILD`) by the test below, which reads
/// its stderr.
#[test]
fn launches() {
    if std::env::var("GRID_DEADLOCK_CHILD").is_err() {
        return;
    }
    setup();
    let f = function(load(&CString::new(PTX).unwrap()), "early_exit");
    unsafe {
        let mut out = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut out, GRID as usize * 4), CUDA_SUCCESS);
        assert_eq!(cuMemsetD32_v2(out, 0, GRID as usize), CUDA_SUCCESS);
        // Every CTA arrives: the barrier completes.
        assert_eq!(launch(f, out, 0), CUDA_SUCCESS);
        let mut v = [0u32; GRID as usize];
        assert_eq!(
            cuMemcpyDtoH_v2(v.as_mut_ptr().cast(), out, 16),
            CUDA_SUCCESS
        );
        assert_eq!(v, [1; GRID as usize]);
        // CTA 0 returns first: the others wait for it forever.
        // The launch succeeds, as on a GPU; the synchronisation returns the error.
        assert_eq!(launch(f, out, 1), CUDA_SUCCESS);
        assert_eq!(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
        assert_eq!(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED, "sticky");
    }
}

#[test]
fn a_grid_sync_a_cta_skipped_is_reported_not_hung() {
    if std::env::var("GRID_DEADLOCK_CHILD").is_ok() {
        return;
    }
    let out = test_child("launches")
        .env("GRID_DEADLOCK_CHILD", "1")
        // Without the deadlock check the launch spins until this limit and fails otherwise.
        .env("PTXJIT_TIMEOUT", "120")
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("test launches ... ok"));
    for want in [
        "kernel 'early_exit': grid-wide deadlock in a cooperative launch: CTA (0,0,0) ended while 3 other CTAs wait",
        "needs every CTA of the grid",
        "CTA (1,0,0):",
        "CTA (2,0,0):",
        "CTA (3,0,0):",
        "lanes 0 at 'ld.acquire.gpu.u32'",
    ] {
        assert!(err.contains(want), "missing {want:?} in:\n{err}");
    }
}
