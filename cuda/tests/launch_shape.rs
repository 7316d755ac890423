//! `cuLaunchKernel` against a kernel's `.reqntid` (PTX ISA §11.4.3: the exact CTA shape; the
//! real driver answers another shape with CUDA_ERROR_INVALID_VALUE) and with a kernel
//! parameter of 8000 bytes (PTX ISA 8.1+ on sm_70+ allows 32764 bytes of parameters).
//! Expected values come from the PTX text and host computations.

use cuda::context::*;
use cuda::errors::*;
use cuda::launch::*;
use cuda::memory::*;
use std::ptr::null_mut;

mod common;
use common::{arg, function, load, repo_file, setup};

#[test]
fn reqntid_kernels_launch_only_with_their_block_shape() {
    setup();
    let m = load(&repo_file("ptx-tests/errors/reqntid.ptx"));
    unsafe {
        let mut out = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut out, 4 * 64), CUDA_SUCCESS);
        let mut params = [arg(&out)];
        let p = params.as_mut_ptr();
        let req64 = function(m, "req64");
        let r = cuLaunchKernel(req64, 1, 1, 1, 32, 1, 1, 0, 0, p, null_mut());
        assert_eq!(r, CUDA_ERROR_INVALID_VALUE, ".reqntid 64 with 32 threads");
        let r = cuLaunchKernel(req64, 1, 1, 1, 64, 1, 1, 0, 0, p, null_mut());
        assert_eq!(r, CUDA_SUCCESS);
        let req8x8 = function(m, "req8x8");
        let r = cuLaunchKernel(req8x8, 1, 1, 1, 64, 1, 1, 0, 0, p, null_mut());
        assert_eq!(
            r, CUDA_ERROR_INVALID_VALUE,
            ".reqntid 8, 8, 1 with 64 x 1 x 1"
        );
        let r = cuLaunchKernel(req8x8, 1, 1, 1, 8, 8, 1, 0, 0, p, null_mut());
        assert_eq!(r, CUDA_SUCCESS);
        assert_eq!(cuCtxSynchronize(), CUDA_SUCCESS);
        let mut host = [0u32; 64];
        assert_eq!(
            cuMemcpyDtoH_v2(host.as_mut_ptr().cast(), out, 4 * 64),
            CUDA_SUCCESS
        );
        // Thread (x, y) of req8x8 writes y * 8 + x at that index.
        for (i, v) in host.iter().enumerate() {
            assert_eq!(*v, i as u32);
        }
    }
}

#[test]
fn an_8000_byte_struct_passes_by_value() {
    setup();
    // big_param(Big b, unsigned *out): out[j] = b.v[j]; out[2000 + t] = thread t's sum.
    let m = load(&repo_file("ptx-tests/kernels/big_param/big_param.ptx"));
    let f = function(m, "big_param");
    let v: Vec<u32> = (0..2000u32)
        .map(|j| j.wrapping_mul(2654435761) ^ 0x5a5a)
        .collect();
    unsafe {
        let mut out = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut out, 4 * 2064), CUDA_SUCCESS);
        let mut params = [v.as_ptr() as *mut std::ffi::c_void, arg(&out)];
        let r = cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, 0, params.as_mut_ptr(), null_mut());
        assert_eq!(r, CUDA_SUCCESS);
        assert_eq!(cuCtxSynchronize(), CUDA_SUCCESS);
        let mut host = vec![0u32; 2064];
        assert_eq!(
            cuMemcpyDtoH_v2(host.as_mut_ptr().cast(), out, 4 * 2064),
            CUDA_SUCCESS
        );
        assert_eq!(&host[..2000], &v[..]);
        for t in 0..64usize {
            let want = (t..2000)
                .step_by(64)
                .fold(0u32, |s, j| s.wrapping_add(v[j].wrapping_mul(j as u32 + 1)));
            assert_eq!(host[2000 + t], want, "thread {t}");
        }
    }
}

/// `max64` has `.maxntid 64` (PTX ISA §11.4.2: the most threads a CTA may have); `out[tid.x]
/// = tid.x`.
const MAXNTID_PTX: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.visible .entry max64(.param .u64 out)
.maxntid 64, 1, 1
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    ret;
}
"#;

#[test]
fn more_threads_than_maxntid_is_out_of_resources_and_not_sticky() {
    setup();
    let m = load(&std::ffi::CString::new(MAXNTID_PTX).unwrap());
    let f = function(m, "max64");
    unsafe {
        let mut attr = 0;
        assert_eq!(
            cuda::module::cuFuncGetAttribute(&mut attr, 0, f),
            CUDA_SUCCESS
        );
        assert_eq!(attr, 64, "CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK");
        let mut out = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut out, 4 * 1024), CUDA_SUCCESS);
        assert_eq!(cuMemsetD32_v2(out, 0xdead, 1024), CUDA_SUCCESS);
        let mut params = [arg(&out)];
        let p = params.as_mut_ptr();
        // 65 and 32 x 4 threads: more than .maxntid, within the device's 1024.
        for block in [[65, 1, 1], [32, 4, 1], [1024, 1, 1]] {
            let r = cuLaunchKernel(
                f,
                1,
                1,
                1,
                block[0],
                block[1],
                block[2],
                0,
                0,
                p,
                null_mut(),
            );
            assert_eq!(r, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "block {block:?}");
        }
        // Beyond the device's limits: the shape itself is invalid.
        let r = cuLaunchKernel(f, 1, 1, 1, 2048, 1, 1, 0, 0, p, null_mut());
        assert_eq!(r, CUDA_ERROR_INVALID_VALUE, "2048 threads");
        // Nothing ran, and the context still works.
        let mut host = [0u32; 1024];
        assert_eq!(
            cuMemcpyDtoH_v2(host.as_mut_ptr().cast(), out, 4 * 1024),
            CUDA_SUCCESS
        );
        assert!(host.iter().all(|&v| v == 0xdead));
        let r = cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, 0, p, null_mut());
        assert_eq!(r, CUDA_SUCCESS);
        assert_eq!(cuCtxSynchronize(), CUDA_SUCCESS);
        assert_eq!(
            cuMemcpyDtoH_v2(host.as_mut_ptr().cast(), out, 4 * 1024),
            CUDA_SUCCESS
        );
        for (i, v) in host.iter().enumerate() {
            assert_eq!(*v, if i < 64 { i as u32 } else { 0xdead }, "out[{i}]");
        }
    }
}
