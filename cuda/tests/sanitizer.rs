//! `PTXJIT_TOOL=memcheck` as a program sees it: red zones between its allocations, bad frees
//! and leaks reported as `=========` lines, the summary at exit and exit status 2. The tool's
//! state is per process and its exit status ends the process, so the test runs the program
//! part (`program`) in a child process of this test binary.

use cuda::context::*;
use cuda::device::*;
use cuda::errors::*;
use cuda::launch::*;
use cuda::memory::*;
use cuda::proc_address::CUuuid;

use std::ffi::CString;
use std::ptr::null_mut;

mod common;
use common::{arg, function, test_child};

const STORE: &str = ".version 7.0\n.target sm_80\n.address_size 64\n\
    .visible .entry store(.param .u64 p)\n{\n.reg .b64 %rd<2>;\n\
    ld.param.u64 %rd1, [p];\nst.global.u32 [%rd1], 7;\nret;\n}\n";

/// The program: runs only in the child (`PTXJIT_TOOL` set).
#[test]
fn program() {
    let Ok(tool) = std::env::var("PTXJIT_TOOL") else {
        return;
    };
    unsafe {
        if tool == "memchek" {
            // A misspelt tool: cuInit fails rather than run the program unchecked.
            assert_eq!(cuInit(0), CUDA_ERROR_INVALID_VALUE);
            return;
        }
        assert_eq!(cuInit(0), CUDA_SUCCESS);
        let mut ctx = null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), CUDA_SUCCESS);
        assert_eq!(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
        let (mut a, mut b) = (0u64, 0u64);
        assert_eq!(cuMemAlloc_v2(&mut a, 4096), CUDA_SUCCESS);
        assert_eq!(cuMemAlloc_v2(&mut b, 1000), CUDA_SUCCESS);
        assert!(b >= a + 4096 + 256, "a red zone between the allocations");
        // One element past the end of `a`: a fault, although `b` follows.
        let store = function(common::load(&CString::new(STORE).unwrap()), "store");
        let past = a + 4096;
        let mut params = [arg(&past)];
        let r = cuLaunchKernel(
            store,
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
        // The launch succeeds, as on a GPU; the synchronisation returns the fault.
        assert_eq!(r, CUDA_SUCCESS);
        assert_eq!(
            cuda::context::cuCtxSynchronize(),
            CUDA_ERROR_ILLEGAL_ADDRESS
        );
        // The reset frees `a` and `b` (leaks, under the leak check): freeing `a` now is a
        // bad free.
        assert_eq!(cuDevicePrimaryCtxReset_v2(0), CUDA_SUCCESS);
        assert_eq!(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
        assert_eq!(
            cuMemFree_v2(a),
            CUDA_ERROR_INVALID_VALUE,
            "freed by the reset"
        );
        assert_eq!(cuMemAlloc_v2(&mut a, 4096), CUDA_SUCCESS);
        assert_eq!(cuMemAlloc_v2(&mut b, 1000), CUDA_SUCCESS);
        assert_eq!(cuMemFree_v2(a), CUDA_SUCCESS);
        assert_eq!(cuMemFree_v2(a), CUDA_ERROR_INVALID_VALUE, "double free");
        assert_eq!(cuMemFree_v2(b + 4), CUDA_ERROR_INVALID_VALUE, "inside b");
        // A copy and a memset past the end of `b` fail, and are errors of the tool.
        let host = [0u8; 2000];
        assert_eq!(
            cuMemcpyHtoD_v2(b, host.as_ptr().cast(), 2000),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuMemsetD32_v2(b, 0, 500), CUDA_ERROR_INVALID_VALUE);
        // `b` leaks, and so does `c`, which ptxjit's libcudart would name after its runtime
        // call through ptxjit's export table.
        let mut c = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut c, 512), CUDA_SUCCESS);
        use cuda::proc_address::{cuGetExportTable, PtxjitExports, PTXJIT_EXPORT_TABLE_ID};
        let mut table = std::ptr::null();
        let id = CUuuid {
            bytes: PTXJIT_EXPORT_TABLE_ID.map(|b| b as std::ffi::c_char),
        };
        assert_eq!(cuGetExportTable(&mut table, &id), CUDA_SUCCESS);
        let t = &*(table as *const PtxjitExports);
        assert_eq!(t.size, std::mem::size_of::<PtxjitExports>());
        let label = (t.set_allocation_label)(c, c"cudaMalloc".as_ptr());
        assert_eq!(label, CUDA_SUCCESS);
        // Only where an allocation starts, with a sensible label.
        let inside = (t.set_allocation_label)(c + 4, c"cudaMalloc".as_ptr());
        assert_eq!(inside, CUDA_ERROR_INVALID_VALUE);
        let empty = (t.set_allocation_label)(c, c"".as_ptr());
        assert_eq!(empty, CUDA_ERROR_INVALID_VALUE);
        assert_eq!(
            (t.set_allocation_label)(c, std::ptr::null()),
            CUDA_ERROR_INVALID_VALUE
        );
    }
}

/// The program under memcheck, with `PTXJIT_LEAK_CHECK` set to `leak_check` when given:
/// (exit status, stderr).
fn run_program(leak_check: Option<&str>) -> (Option<i32>, String) {
    let mut cmd = test_child("program");
    cmd.env("PTXJIT_TOOL", "memcheck")
        .env_remove("PTXJIT_LEAK_CHECK");
    if let Some(v) = leak_check {
        cmd.env("PTXJIT_LEAK_CHECK", v);
    }
    let out = cmd.output().expect("runs");
    // The program's own checks passed before the exit-time report.
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("test program ... ok"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// What memcheck reports of the program whatever the leak check: the fault, the failed
/// calls (in compute-sanitizer's words: "Program hit CODE (error N) due to \"DESCRIPTION\"
/// on CUDA API call to NAME.", its reason on the next line): the synchronisation that
/// returned the fault (the launch itself succeeds, as on a GPU), the bad
/// frees (one of a pointer the reset freed), the copy and the memset.
const API_AND_FAULT_ERRORS: [&str; 9] = [
    "========= Invalid __global__ write of size 4 bytes\n=========     at kernel 'store'\n",
    "=========     out of bounds (0 bytes after the end of 'cuMemAlloc') store of 4 bytes",
    "========= Program hit CUDA_ERROR_ILLEGAL_ADDRESS (error 700) due to \"an illegal memory access was encountered\" on CUDA API call to cuCtxSynchronize.\n",
    "========= Program hit CUDA_ERROR_INVALID_VALUE (error 1) due to \"invalid argument\" on CUDA API call to cuMemFree_v2.\n=========     free of ",
    ": double free: 'cuMemAlloc' (4096 bytes) was freed already",
    "invalid free: the pointer is 4 bytes inside 'cuMemAlloc' (1000 bytes), not its start",
    "========= Program hit CUDA_ERROR_INVALID_VALUE (error 1) due to \"invalid argument\" on CUDA API call to cuMemcpyHtoD_v2.\n=========     2000 bytes at ",
    " run past the end of 'cuMemAlloc' (1000 bytes, offset 0)",
    "========= Program hit CUDA_ERROR_INVALID_VALUE (error 1) due to \"invalid argument\" on CUDA API call to cuMemsetD32_v2.\n=========     2000 bytes at ",
];

#[test]
fn memcheck_reports_and_exit_status() {
    if std::env::var("PTXJIT_TOOL").is_ok() {
        return;
    }
    // Leaks are not checked by default, as compute-sanitizer's --leak-check none.
    let (code, err) = run_program(None);
    assert_eq!(code, Some(2), "{err}");
    for want in API_AND_FAULT_ERRORS {
        assert!(err.contains(want), "missing {want:?} in:\n{err}");
    }
    assert!(
        !err.contains("Leaked") && !err.contains("LEAK SUMMARY"),
        "{err}"
    );
    // The fault, the failed launch, three bad frees, the copy and the memset.
    assert!(err.contains("========= ERROR SUMMARY: 7 errors"), "{err}");
    // Its calls of ptxjit's export table that fail are not API errors.
    assert!(!err.contains("set_allocation_label"), "{err}");
}

#[test]
fn the_leak_check_is_opt_in_and_runs_at_reset_and_exit() {
    if std::env::var("PTXJIT_TOOL").is_ok() {
        return;
    }
    let (code, err) = run_program(Some("full"));
    assert_eq!(code, Some(2), "{err}");
    for want in API_AND_FAULT_ERRORS {
        assert!(err.contains(want), "missing {want:?} in:\n{err}");
    }
    for want in [
        // At the reset, which destroys the primary context and frees them.
        "========= Leaked 4096 bytes at ",
        "========= Leaked 1000 bytes at ",
        "(allocated with cuMemAlloc, never freed)",
        // At exit.
        "========= Leaked 512 bytes at ",
        "(allocated with cudaMalloc, never freed)",
        "========= LEAK SUMMARY: 6608 bytes leaked in 4 allocations\n",
        "========= ERROR SUMMARY: 11 errors",
    ] {
        assert!(err.contains(want), "missing {want:?} in:\n{err}");
    }
    assert_eq!(err.matches("Leaked 1000 bytes").count(), 2, "{err}");
}

#[test]
fn a_misspelt_tool_fails_cuinit() {
    if std::env::var("PTXJIT_TOOL").is_ok() {
        return;
    }
    let out = test_child("program")
        .env("PTXJIT_TOOL", "memchek")
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("PTXJIT_TOOL=memchek: unknown tool 'memchek'") && err.contains("memcheck"),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("test program ... ok"));
}
