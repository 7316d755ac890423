//! `PTXJIT_TOOL=racecheck` as a program sees it: a kernel with a shared-memory race launches
//! successfully (a race does not stop it, as under compute-sanitizer), the race is reported as
//! `=========` lines naming both accesses, and the exit summary counts it and ends the process
//! with status 2. The tool's state is per process, so the program part runs in a child.

use cuda::context::*;
use cuda::errors::*;
use cuda::launch::*;
use cuda::memory::*;

use std::ffi::CString;
use std::ptr::null_mut;

mod common;
use common::{arg, function, test_child};

/// Thread t stores s[t] and reads s[t + 1] with no barrier in between.
const SHIFT: &str = ".version 7.0\n.target sm_80\n.address_size 64\n\
    .visible .entry shift(.param .u64 out)\n{\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n\
    .shared .align 4 .b32 s[65];\n\
    mov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 2;\nmov.u32 %r3, s;\nadd.s32 %r4, %r3, %r2;\n\
    st.shared.u32 [%r4], %r1;\nld.shared.u32 %r5, [%r4+4];\n\
    ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\nmul.wide.u32 %rd2, %r1, 4;\n\
    add.s64 %rd1, %rd1, %rd2;\nst.global.u32 [%rd1], %r5;\nret;\n}\n";

/// The program: runs only in the child (`PTXJIT_TOOL` set).
#[test]
fn program() {
    if std::env::var("PTXJIT_TOOL").is_err() {
        return;
    }
    unsafe {
        common::setup();
        let mut out = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut out, 256), CUDA_SUCCESS);
        let shift = function(common::load(&CString::new(SHIFT).unwrap()), "shift");
        let mut params = [arg(&out)];
        let r = cuLaunchKernel(
            shift,
            1,
            1,
            1,
            64,
            1,
            1,
            0,
            0,
            params.as_mut_ptr(),
            null_mut(),
        );
        assert_eq!(r, CUDA_SUCCESS, "a race does not fail the launch");
        assert_eq!(cuCtxSynchronize(), CUDA_SUCCESS);
        // `out` is left allocated: a leak, which memcheck reports and racecheck does not.
    }
}

#[test]
fn racecheck_reports_and_exit_status() {
    if std::env::var("PTXJIT_TOOL").is_ok() {
        return;
    }
    let out = test_child("program")
        .env("PTXJIT_TOOL", "racecheck")
        // Lockstep order (every store of a warp before its loads), so the first race found
        // is the one across warps below; in group-major order (the default for sm_80) lane
        // 3 reads s[4] before lane 4 stores it, a race of the same instruction pair.
        .env("PTXJIT_LOCKSTEP", "1")
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for want in [
        "========= Error: Race reported between Read access and Write access to __shared__ 's' + 128",
        "=========     Read at kernel 'shift'\n",
        "'ld.shared.u32'\n=========         by thread (31,0,0) in block (0,0,0)\n",
        "=========     Write at kernel 'shift'\n",
        "'st.shared.u32'\n=========         by thread (32,0,0) in block (0,0,0)\n",
        "========= ERROR SUMMARY: 2 errors",
    ] {
        assert!(err.contains(want), "missing {want:?} in:\n{err}");
    }
    assert!(
        !err.contains("Leaked"),
        "a leak report outside memcheck:\n{err}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("test program ... ok"));
}
