//! Kernel faults as a CUDA program sees them on a GPU: the launch succeeds (the kernel runs
//! after `cuLaunchKernel` returns there), the fault's code comes back from the next call that
//! waits for the work (`cuCtxSynchronize`, `cuStreamSynchronize`, `cuStreamQuery`, a blocking
//! copy …) and is sticky from then on, until the primary context is reset; ptxjit's located
//! report goes to stderr when the fault happens. One test: the state is per process.

use cuda::context::*;
use cuda::errors::*;
use cuda::launch::*;
use cuda::memory::*;
use cuda::stream::*;

use std::ffi::{c_void, CString};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicU32, Ordering::SeqCst};

const STORE: &str = ".version 7.0\n.target sm_80\n.address_size 64\n\
    .visible .entry store(.param .u64 p)\n{\n.reg .b64 %rd<2>;\n\
    ld.param.u64 %rd1, [p];\nst.global.u32 [%rd1], 7;\nret;\n}\n";
const TRAP: &str = ".version 7.0\n.target sm_80\n.address_size 64\n\
    .visible .entry stop()\n{\ntrap;\nret;\n}\n";

mod common;
use common::{arg, function};

fn load(text: &str) -> u64 {
    common::load(&CString::new(text).unwrap())
}

#[test]
fn faults_are_sticky_codes() {
    unsafe {
        common::setup();

        // A store through a wild pointer: CUDA_ERROR_ILLEGAL_ADDRESS, and it sticks.
        let store = function(load(STORE), "store");
        let wild = 0x10u64;
        let mut params = [arg(&wild)];
        let r = cuLaunchKernel(
            store,
            1,
            1,
            1,
            32,
            1,
            1,
            0,
            0,
            params.as_mut_ptr(),
            null_mut(),
        );
        assert_eq!(r, CUDA_SUCCESS, "the launch itself succeeds, as on a GPU");
        // Until a call waits for the work, launches are taken (and do not run) and a
        // launch-configuration error is still the launch's own.
        let r = cuLaunchKernel(
            store,
            1,
            1,
            1,
            32,
            1,
            1,
            0,
            0,
            params.as_mut_ptr(),
            null_mut(),
        );
        assert_eq!(r, CUDA_SUCCESS);
        let r = cuLaunchKernel(
            store,
            1,
            1,
            1,
            4096,
            1,
            1,
            0,
            0,
            params.as_mut_ptr(),
            null_mut(),
        );
        assert_eq!(r, CUDA_ERROR_INVALID_VALUE, "4096 threads per block");
        let mut ctx0 = null_mut();
        assert_eq!(cuCtxGetCurrent(&mut ctx0), CUDA_SUCCESS);
        // A host function queued behind the fault is not called; a stream callback is, with
        // the fault as its status.
        static CALLS: AtomicU32 = AtomicU32::new(0);
        static STATUS: AtomicU32 = AtomicU32::new(0);
        unsafe extern "C" fn host_fn(_: *mut c_void) {
            CALLS.fetch_add(1, SeqCst);
        }
        unsafe extern "C" fn callback(_: u64, status: CUresult, _: *mut c_void) {
            STATUS.store(status, SeqCst);
        }
        assert_eq!(cuLaunchHostFunc(0, Some(host_fn), null_mut()), CUDA_SUCCESS);
        assert_eq!(CALLS.load(SeqCst), 0, "a host function after a fault");
        assert_eq!(
            cuStreamAddCallback(0, Some(callback), null_mut(), 0),
            CUDA_SUCCESS
        );
        assert_eq!(STATUS.load(SeqCst), CUDA_ERROR_ILLEGAL_ADDRESS);
        // The synchronisation returns the fault, and from then on every call does.
        assert_eq!(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
        let r = cuLaunchKernel(
            store,
            1,
            1,
            1,
            32,
            1,
            1,
            0,
            0,
            params.as_mut_ptr(),
            null_mut(),
        );
        assert_eq!(r, CUDA_ERROR_ILLEGAL_ADDRESS, "sticky: the next launch");
        let mut p = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut p, 16), CUDA_ERROR_ILLEGAL_ADDRESS);
        assert_eq!(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
        let mut ctx = null_mut();
        assert_eq!(cuCtxGetCurrent(&mut ctx), CUDA_SUCCESS);
        // CUDA 13's cuCtxSynchronize_v2, with the context named (as NVIDIA's runtime calls it
        // for cudaDeviceSynchronize) or null.
        assert_eq!(cuCtxSynchronize_v2(ctx), CUDA_ERROR_ILLEGAL_ADDRESS);
        assert_eq!(cuCtxSynchronize_v2(null_mut()), CUDA_ERROR_ILLEGAL_ADDRESS);
        // For the whole process: another thread with the context current gets it too.
        let ctx = ctx as usize;
        let other = std::thread::spawn(move || {
            let mut q = 0u64;
            assert_eq!(cuCtxSetCurrent(ctx as _), CUDA_SUCCESS);
            cuMemAlloc_v2(&mut q, 16)
        })
        .join()
        .unwrap();
        assert_eq!(other, CUDA_ERROR_ILLEGAL_ADDRESS);
        assert_eq!(cuDevicePrimaryCtxReset_v2(0), CUDA_SUCCESS);
        assert_eq!(cuMemAlloc_v2(&mut p, 16), CUDA_SUCCESS);
        // The reset unloaded the module (as on a GPU): its function handle is stale.
        let mut params = [arg(&p)];
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
        assert_eq!(r, CUDA_ERROR_INVALID_HANDLE);
        let store = function(load(STORE), "store");

        // A misaligned store: CUDA_ERROR_MISALIGNED_ADDRESS.
        let odd = p + 1;
        let mut params = [arg(&odd)];
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
        assert_eq!(r, CUDA_SUCCESS);
        assert_eq!(cuStreamSynchronize(0), CUDA_ERROR_MISALIGNED_ADDRESS);
        assert_eq!(cuDevicePrimaryCtxReset_v2(0), CUDA_SUCCESS);

        // A device-side assert: CUDA_ERROR_ASSERT.
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../ptx-tests/errors/assert.ptx"
        ))
        .unwrap();
        let check = function(load(&text), "check_sorted");
        let mut xs: Vec<i32> = (0..128).collect();
        xs[70] = 75;
        let (mut dx, mut dout) = (0u64, 0u64);
        assert_eq!(cuMemAlloc_v2(&mut dx, 512), CUDA_SUCCESS);
        assert_eq!(cuMemAlloc_v2(&mut dout, 512), CUDA_SUCCESS);
        assert_eq!(cuMemcpyHtoD_v2(dx, xs.as_ptr().cast(), 512), CUDA_SUCCESS);
        let n = 128i32;
        let mut params = [arg(&dx), arg(&dout), arg(&n)];
        let r = cuLaunchKernel(
            check,
            4,
            1,
            1,
            32,
            1,
            1,
            0,
            0,
            params.as_mut_ptr(),
            null_mut(),
        );
        assert_eq!(r, CUDA_SUCCESS);
        // A blocking copy waits for the work.
        assert_eq!(
            cuMemcpyDtoH_v2(xs.as_mut_ptr().cast(), dout, 512),
            CUDA_ERROR_ASSERT
        );
        assert_eq!(cuDevicePrimaryCtxReset_v2(0), CUDA_SUCCESS);

        // trap: CUDA_ERROR_LAUNCH_FAILED.
        let stop = function(load(TRAP), "stop");
        let r = cuLaunchKernel(stop, 1, 1, 1, 1, 1, 1, 0, 0, null_mut(), null_mut());
        assert_eq!(r, CUDA_SUCCESS);
        // A stream query waits for nothing but sees the fault.
        assert_eq!(cuStreamQuery(0), CUDA_ERROR_LAUNCH_FAILED);
        assert_eq!(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
        assert_eq!(cuDevicePrimaryCtxReset_v2(0), CUDA_SUCCESS);
        assert_eq!(cuCtxSynchronize(), CUDA_SUCCESS);
    }
}
