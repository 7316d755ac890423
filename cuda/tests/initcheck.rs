//! `PTXJIT_TOOL=initcheck` as a program sees it: a kernel's load of device memory the program
//! never wrote is reported as `=========` lines (and the kernel runs on), memsets and copies
//! count as writes byte by byte, managed memory counts as written; the summary at exit and
//! exit status 2. The tool's state is per process and its exit status ends the process, so
//! the test runs the program part (`program`) in a child process of this test binary.

use cuda::errors::*;
use cuda::launch::*;
use cuda::memory::*;

use std::ffi::CString;
use std::ptr::null_mut;

mod common;
use common::{arg, function, test_child};

/// `*q = *p` (one 4-byte word).
const COPY: &str = ".version 7.0\n.target sm_80\n.address_size 64\n\
    .visible .entry copy(.param .u64 p, .param .u64 q)\n{\n.reg .b32 %r<2>;\n.reg .b64 %rd<3>;\n\
    ld.param.u64 %rd1, [p];\nld.param.u64 %rd2, [q];\nld.global.u32 %r1, [%rd1];\n\
    st.global.u32 [%rd2], %r1;\nret;\n}\n";

/// The program: runs only in the child (`PTXJIT_TOOL` set).
#[test]
fn program() {
    if std::env::var("PTXJIT_TOOL").is_err() {
        return;
    }
    unsafe {
        common::setup();
        let copy = function(common::load(&CString::new(COPY).unwrap()), "copy");
        let run = |p: u64, q: u64| {
            let mut params = [arg(&p), arg(&q)];
            let r = cuLaunchKernel(
                copy,
                1,
                1,
                1,
                1,
                1,
                1,
                0,
                0,
                params.as_mut_ptr(),
                null_mut(),
            );
            assert_eq!(r, CUDA_SUCCESS, "a finding does not stop the kernel");
        };
        let (mut a, mut b, mut out, mut m) = (0u64, 0u64, 0u64, 0u64);
        assert_eq!(cuMemAlloc_v2(&mut a, 4096), CUDA_SUCCESS);
        assert_eq!(cuMemAlloc_v2(&mut b, 64), CUDA_SUCCESS);
        assert_eq!(cuMemAlloc_v2(&mut out, 4), CUDA_SUCCESS);
        assert_eq!(cuMemAllocManaged(&mut m, 4, 1), CUDA_SUCCESS);
        // The first half of `b` memset: its second half stays unwritten.
        assert_eq!(cuMemsetD32_v2(b, 0, 8), CUDA_SUCCESS);
        run(b + 28, out); // clean
        run(b + 32, out); // one finding: 32 bytes into 'cuMemAlloc'
        let word = 5u32.to_le_bytes();
        assert_eq!(
            cuMemcpyHtoD_v2(a + 100, word.as_ptr().cast(), 4),
            CUDA_SUCCESS
        );
        run(a + 100, out); // clean: copied in
        (m as *mut u32).write(9); // managed memory: written by the program directly
        run(m, out); // clean
        run(out, out); // clean: the kernel wrote `out`
        for p in [a, b, out, m] {
            assert_eq!(cuMemFree_v2(p), CUDA_SUCCESS);
        }
    }
}

#[test]
fn initcheck_reports_and_exit_status() {
    if std::env::var("PTXJIT_TOOL").is_ok() {
        return;
    }
    let out = test_child("program")
        .env("PTXJIT_TOOL", "initcheck")
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for want in [
        "========= Uninitialized __global__ memory read of size 4 bytes\n=========     at kernel 'copy'\n",
        "=========     by thread (0,0,0) in block (0,0,0)\n",
        "reads never-written 'cuMemAlloc' (64 bytes) at offset 32\n",
        "========= ERROR SUMMARY: 1 error\n",
    ] {
        assert!(err.contains(want), "missing {want:?} in:\n{err}");
    }
    assert!(String::from_utf8_lossy(&out.stdout).contains("test program ... ok"));
}
