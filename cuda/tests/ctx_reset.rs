//! Destroying a context frees what it owns, as on a GPU: `cuDevicePrimaryCtxReset` ("Destroy
//! all allocations and reset all state on the primary context") and `cuCtxDestroy` (the
//! context's resources are released) free its allocations, unload its modules and destroy its
//! streams and events, so an old pointer is no longer device memory (`cuMemFree` of it is
//! `CUDA_ERROR_INVALID_VALUE`, as for any pointer the driver did not allocate) and an old
//! handle is `CUDA_ERROR_INVALID_HANDLE`. What another context owns stays.
//!
//! A reset frees every allocation of the primary context, so this binary holds one test (the
//! tests of one binary share the process's driver).

use cuda::context::*;
use cuda::errors::*;
use cuda::memory::*;
use cuda::module::*;
use cuda::stream::*;
use std::ffi::CString;
use std::ptr::null_mut;

mod common;
use common::{function, load, setup, AXPC_PTX};

/// Whether `p` is still a device allocation (`cuMemGetAddressRange`).
fn allocated(p: u64) -> bool {
    let (mut base, mut size) = (0u64, 0usize);
    unsafe { cuMemGetAddressRange_v2(&mut base, &mut size, p) == CUDA_SUCCESS }
}

#[test]
fn destroying_a_context_frees_its_memory_modules_streams_and_events() {
    setup();
    unsafe {
        let mut primary = null_mut();
        assert_eq!(cuCtxGetCurrent(&mut primary), CUDA_SUCCESS);

        // What the primary context owns.
        let (mut a, mut kept) = (0u64, 0u64);
        assert_eq!(cuMemAlloc_v2(&mut a, 1024), CUDA_SUCCESS);
        let m = load(&CString::new(AXPC_PTX).unwrap());
        let _ = function(m, "axpc");
        let (mut s, mut e) = (0u64, 0u64);
        assert_eq!(cuStreamCreate(&mut s, 0), CUDA_SUCCESS);
        assert_eq!(cuEventCreate(&mut e, 0), CUDA_SUCCESS);

        // A context of its own: destroying it frees its allocation, not the primary's.
        let mut other = null_mut();
        assert_eq!(cuCtxCreate_v2(&mut other, 0, 0), CUDA_SUCCESS);
        let mut x = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut x, 256), CUDA_SUCCESS);
        assert_eq!(cuCtxDestroy_v2(other), CUDA_SUCCESS);
        assert_eq!(cuCtxSetCurrent(primary), CUDA_SUCCESS);
        assert!(!allocated(x), "cuCtxDestroy frees the context's memory");
        assert_eq!(cuMemFree_v2(x), CUDA_ERROR_INVALID_VALUE);
        assert!(allocated(a), "another context's memory stays");

        // The primary context's reset.
        assert_eq!(cuDevicePrimaryCtxReset_v2(0), CUDA_SUCCESS);
        // The handle stays usable: the context is made again on next use.
        assert_eq!(cuCtxSetCurrent(primary), CUDA_SUCCESS);
        assert!(!allocated(a), "the reset gave the memory back");
        assert_eq!(cuMemFree_v2(a), CUDA_ERROR_INVALID_VALUE);
        let mut f = 0u64;
        let name = CString::new("axpc").unwrap();
        assert_eq!(
            cuModuleGetFunction(&mut f, m, name.as_ptr()),
            CUDA_ERROR_INVALID_HANDLE,
            "the module was unloaded"
        );
        assert_eq!(cuModuleUnload(m), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(cuStreamDestroy_v2(s), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(cuEventDestroy_v2(e), CUDA_ERROR_INVALID_HANDLE);

        // The context works after the reset, and what it makes now is its own again.
        assert_eq!(cuMemAlloc_v2(&mut kept, 64), CUDA_SUCCESS);
        let m2 = load(&CString::new(AXPC_PTX).unwrap());
        let _ = function(m2, "axpc");
        assert_eq!(cuMemFree_v2(kept), CUDA_SUCCESS);
        assert_eq!(cuModuleUnload(m2), CUDA_SUCCESS);
    }
}
