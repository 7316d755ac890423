//! `cuCtxSetLimit(CU_LIMIT_STACK_SIZE, N)` sizes the per-thread call stack of later launches,
//! as recursion deeper than the default needs on a GPU; `cuCtxGetLimit` returns what was set,
//! and a limit over the 512 KiB of local memory a thread may have is refused. The kernel is
//! `deep` of ptx-tests/kernels/recursion/recursion.cu: out[i] = depth(N) + trail[0] with
//! N = n + i, whose value the host computes here from the C++ source's meaning.

use cuda::context::*;
use cuda::errors::*;
use cuda::launch::*;
use cuda::memory::*;
use std::ptr::null_mut;

mod common;
use common::{arg, function, load, repo_file, setup};

/// `CU_LIMIT_STACK_SIZE`.
const STACK_SIZE: u32 = 0;

/// depth(N) = N; trail[0]'s last store is N' - 1 at the largest N' <= N with N' % 4 == 0.
fn deep(big: u32) -> u32 {
    big + big / 4 * 4 - 1
}

#[test]
fn a_raised_stack_limit_runs_deep_recursion() {
    setup();
    let m = load(&repo_file("ptx-tests/kernels/recursion/recursion.ptx"));
    let f = function(m, "deep");
    unsafe {
        let mut v = 0usize;
        assert_eq!(cuCtxGetLimit(&mut v, STACK_SIZE), CUDA_SUCCESS);
        assert_eq!(v, 1024, "CUDA's default");
        // 300 to 363 calls deep needs more than ptxjit's default 16 KiB.
        assert_eq!(cuCtxSetLimit(STACK_SIZE, 65536), CUDA_SUCCESS);
        assert_eq!(cuCtxGetLimit(&mut v, STACK_SIZE), CUDA_SUCCESS);
        assert_eq!(v, 65536);
        assert_eq!(
            cuCtxSetLimit(STACK_SIZE, 1 << 20),
            CUDA_ERROR_INVALID_VALUE,
            "over the 512 KiB of local memory per thread"
        );
        assert_eq!(cuCtxGetLimit(&mut v, STACK_SIZE), CUDA_SUCCESS);
        assert_eq!(v, 65536, "a refused limit leaves the old one");
        let mut out = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut out, 4 * 64), CUDA_SUCCESS);
        let n = 300u32;
        let mut params = [arg(&out), arg(&n)];
        let r = cuLaunchKernel(f, 2, 1, 1, 32, 1, 1, 0, 0, params.as_mut_ptr(), null_mut());
        assert_eq!(r, CUDA_SUCCESS);
        assert_eq!(cuCtxSynchronize(), CUDA_SUCCESS);
        let mut host = [0u32; 64];
        assert_eq!(
            cuMemcpyDtoH_v2(host.as_mut_ptr().cast(), out, 4 * 64),
            CUDA_SUCCESS
        );
        let want: Vec<u32> = (0..64).map(|i| deep(n + i)).collect();
        assert_eq!(host.to_vec(), want);
    }
}

/// `big` declares 800 000 bytes of `.local` per thread, more than the 512 KiB a thread may
/// have; `small` writes its thread index.
const BIG_LOCAL_PTX: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry big(.param .u64 out)
{
    .local .align 4 .b8 a[800000];
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    st.local.u32 [a+799996], %r1;
    ld.local.u32 %r2, [a+799996];
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r2;
    ret;
}
.visible .entry small(.param .u64 out)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r1;
    ret;
}
"#;

#[test]
fn a_kernel_over_the_local_memory_limit_fails_its_launches_not_its_module() {
    // ptxas compiles such a kernel (800000 bytes stack frame), so the module loads on a GPU
    // and its other kernels run; a launch of it is refused and the error is not sticky.
    setup();
    let m = load(&std::ffi::CString::new(BIG_LOCAL_PTX).unwrap());
    let (big, small) = (function(m, "big"), function(m, "small"));
    unsafe {
        let mut out = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut out, 4 * 32), CUDA_SUCCESS);
        let mut params = [arg(&out)];
        let mut launch =
            |f: u64| cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, params.as_mut_ptr(), null_mut());
        assert_eq!(launch(big), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(launch(small), CUDA_SUCCESS);
        assert_eq!(cuCtxSynchronize(), CUDA_SUCCESS);
        let mut host = [0u32; 32];
        assert_eq!(
            cuMemcpyDtoH_v2(host.as_mut_ptr().cast(), out, 4 * 32),
            CUDA_SUCCESS
        );
        assert_eq!(host.to_vec(), (0..32).collect::<Vec<u32>>());
        assert_eq!(cuMemFree_v2(out), CUDA_SUCCESS);
    }
}

/// `CU_LIMIT_PRINTF_FIFO_SIZE`.
const PRINTF_FIFO_SIZE: u32 = 1;
/// `CU_LIMIT_MALLOC_HEAP_SIZE`.
const MALLOC_HEAP_SIZE: u32 = 2;

/// `quiet` writes nothing; `say` calls `vprintf` with an empty format (it prints nothing).
const PRINTF_PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 fmt, .param .b64 args);
.global .align 1 .b8 $str[1] = {0};
.visible .entry quiet()
{
    ret;
}
.visible .entry say()
{
    .reg .b64 %rd<2>;
    .reg .b32 %r<2>;
    cvta.global.u64 %rd1, $str;
    {
    .param .b64 p0;
    st.param.b64 [p0], %rd1;
    .param .b64 p1;
    st.param.b64 [p1], 0;
    .param .b32 rv;
    call.uni (rv), vprintf, (p0, p1);
    ld.param.b32 %r1, [rv];
    }
    ret;
}
"#;

/// CUDA's manual for `cuCtxSetLimit`: setting `CU_LIMIT_PRINTF_FIFO_SIZE` "must be performed
/// before launching any kernel that uses the printf() device system call, otherwise
/// CUDA_ERROR_INVALID_VALUE will be returned". A kernel without printf does not count.
#[test]
fn the_printf_buffer_size_is_refused_after_a_printf_kernel_ran() {
    setup();
    let m = load(&std::ffi::CString::new(PRINTF_PTX).unwrap());
    let quiet = function(m, "quiet");
    let say = function(m, "say");
    let launch = |f: u64| unsafe {
        let r = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, null_mut(), null_mut());
        assert_eq!(r, CUDA_SUCCESS);
        assert_eq!(cuCtxSynchronize(), CUDA_SUCCESS);
    };
    unsafe {
        let mut v = 0usize;
        assert_eq!(cuCtxGetLimit(&mut v, PRINTF_FIFO_SIZE), CUDA_SUCCESS);
        assert_eq!(v, 1 << 20, "CUDA's default");
        assert_eq!(cuCtxSetLimit(PRINTF_FIFO_SIZE, 2 << 20), CUDA_SUCCESS);
        launch(quiet);
        assert_eq!(cuCtxSetLimit(PRINTF_FIFO_SIZE, 3 << 20), CUDA_SUCCESS);
        launch(say);
        assert_eq!(
            cuCtxSetLimit(PRINTF_FIFO_SIZE, 4 << 20),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuCtxGetLimit(&mut v, PRINTF_FIFO_SIZE), CUDA_SUCCESS);
        assert_eq!(v, 3 << 20, "a refused limit leaves the old one");
        // The heap's own rule is about malloc, which `say` does not call.
        assert_eq!(cuCtxSetLimit(MALLOC_HEAP_SIZE, 16 << 20), CUDA_SUCCESS);
    }
}
