//! The runtime's error rules, without a driver: names and strings as CUDA documents them,
//! driver codes mapped to runtime codes, and the last-error and sticky-error rules of the
//! CUDA Runtime API ("Error Handling").

use cudart::errors::*;
use std::ffi::CStr;

fn name(code: cudaError_t) -> String {
    // SAFETY: the function returns a static C string.
    unsafe { CStr::from_ptr(cudart::state::cudaGetErrorName(code)) }
        .to_string_lossy()
        .into_owned()
}

fn string(code: cudaError_t) -> String {
    // SAFETY: as above.
    unsafe { CStr::from_ptr(cudart::state::cudaGetErrorString(code)) }
        .to_string_lossy()
        .into_owned()
}

#[test]
fn names_and_strings() {
    assert_eq!(name(0), "cudaSuccess");
    assert_eq!(string(0), "no error");
    assert_eq!(name(700), "cudaErrorIllegalAddress");
    assert_eq!(string(700), "an illegal memory access was encountered");
    assert_eq!(name(209), "cudaErrorNoKernelImageForDevice");
    assert_eq!(string(2), "out of memory");
    assert_eq!(name(123456), "unrecognized error code");
    assert_eq!(string(123456), "unrecognized error code");
}

#[test]
fn driver_codes_become_runtime_codes() {
    use cudart::driver::runtime_code;
    // cuda.h's values: CUDA_ERROR_OUT_OF_MEMORY 2, _INVALID_HANDLE 400, _NO_BINARY_FOR_GPU 209,
    // _ILLEGAL_ADDRESS 700, _ASSERT 710, _LAUNCH_FAILED 719, _NOT_SUPPORTED 801.
    assert_eq!(runtime_code(2), cudaErrorMemoryAllocation);
    assert_eq!(runtime_code(400), cudaErrorInvalidResourceHandle);
    assert_eq!(runtime_code(209), cudaErrorNoKernelImageForDevice);
    assert_eq!(runtime_code(700), cudaErrorIllegalAddress);
    assert_eq!(runtime_code(710), cudaErrorAssert);
    assert_eq!(runtime_code(719), cudaErrorLaunchFailure);
    assert_eq!(runtime_code(801), cudaErrorNotSupported);
    // Every driver code of cuda.h has its decided runtime code; none is left unknown except
    // where decided so.
    for &(drv, drv_name, rt) in FROM_DRIVER {
        assert!(
            code(rt).is_some(),
            "{drv_name} ({drv}) maps to {rt}, not a runtime code"
        );
    }
}

/// Last-error rules on one thread (each test runs on its own thread).
#[test]
fn last_error_is_per_call_and_sticky_errors_stay() {
    use cudart::state::{cudaGetLastError, cudaPeekAtLastError, record_error};
    // SAFETY: the functions take no arguments.
    unsafe {
        assert_eq!(cudaGetLastError(), cudaSuccess);
        record_error(cudaErrorInvalidValue);
        assert_eq!(cudaPeekAtLastError(), cudaErrorInvalidValue);
        assert_eq!(cudaPeekAtLastError(), cudaErrorInvalidValue);
        assert_eq!(cudaGetLastError(), cudaErrorInvalidValue);
        assert_eq!(cudaGetLastError(), cudaSuccess);
        // A success does not clear an error; a later error replaces it.
        record_error(cudaErrorInvalidValue);
        record_error(cudaSuccess);
        record_error(cudaErrorMemoryAllocation);
        assert_eq!(cudaGetLastError(), cudaErrorMemoryAllocation);
        // A sticky error is never cleared nor replaced.
        record_error(cudaErrorIllegalAddress);
        record_error(cudaErrorInvalidValue);
        assert_eq!(cudaGetLastError(), cudaErrorIllegalAddress);
        assert_eq!(cudaGetLastError(), cudaErrorIllegalAddress);
    }
}
