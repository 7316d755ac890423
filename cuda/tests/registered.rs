//! Host memory registered with `cuMemHostRegister(CU_MEMHOSTREGISTER_DEVICEMAP)`: kernels
//! reach it through `cuMemHostGetDevicePointer`'s address, and see host writes made before
//! a launch; the host sees the kernel's writes once the launch returns; copies and memsets
//! through the device address act on the host memory. Expected values are host
//! computations.

use cuda::errors::*;
use cuda::launch::*;
use cuda::memory::*;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

mod common;
use common::{arg, function, load, setup, AXPC_PTX as PTX};

const DEVICEMAP: u32 = 2;

#[test]
fn mapped_registered_memory() {
    setup();
    let f = function(load(&CString::new(PTX).unwrap()), "axpc");
    let n = 1000u32;
    let mut host: Vec<u32> = (0..n).collect();
    // From here on the memory is reached only through `hp` (the driver writes it too).
    let hp = host.as_mut_ptr().cast::<c_void>();
    let view = |i: usize, len: usize| unsafe {
        std::slice::from_raw_parts(hp.cast::<u32>().add(i), len).to_vec()
    };
    let bytes = n as usize * 4;
    unsafe {
        let mut dp = 0u64;
        assert_eq!(
            cuMemHostGetDevicePointer_v2(&mut dp, hp, 0),
            CUDA_ERROR_INVALID_VALUE,
            "not registered yet"
        );
        assert_eq!(cuMemHostRegister_v2(hp, bytes, DEVICEMAP), CUDA_SUCCESS);
        assert_eq!(
            cuMemHostRegister_v2(hp, 4, DEVICEMAP),
            CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
        );
        assert_eq!(cuMemHostGetDevicePointer_v2(&mut dp, hp, 0), CUDA_SUCCESS);
        let mut dp8 = 0u64;
        assert_eq!(
            cuMemHostGetDevicePointer_v2(&mut dp8, hp.cast::<u8>().add(8).cast(), 0),
            CUDA_SUCCESS
        );
        assert_eq!(dp8, dp + 8, "an interior pointer maps to the same offset");

        let launch = |x: u64, m: u32, c: u32| {
            let mut params = [arg(&x), arg(&m), arg(&c), arg(&n)];
            cuLaunchKernel(
                f,
                n.div_ceil(128),
                1,
                1,
                128,
                1,
                1,
                0,
                0,
                params.as_mut_ptr(),
                null_mut(),
            )
        };
        assert_eq!(launch(dp, 3, 1), CUDA_SUCCESS);
        let mut want: Vec<u32> = (0..n).map(|i| i * 3 + 1).collect();
        assert_eq!(
            view(0, n as usize),
            want,
            "the kernel's writes reach the host"
        );
        // A host write before the next launch is seen by it.
        *hp.cast::<u32>().add(5) = 100;
        want[5] = 100;
        assert_eq!(launch(dp, 2, 0), CUDA_SUCCESS);
        for v in &mut want {
            *v *= 2;
        }
        assert_eq!(view(0, n as usize), want);
        // Copies and memsets through the device address act on the host memory.
        let mut back = vec![0u32; n as usize];
        assert_eq!(
            cuMemcpyDtoH_v2(back.as_mut_ptr().cast(), dp, bytes),
            CUDA_SUCCESS
        );
        assert_eq!(back, want);
        assert_eq!(cuMemsetD32_v2(dp + 4, 7, 2), CUDA_SUCCESS);
        assert_eq!(view(0, 4), [want[0], 7, 7, want[3]]);
        let src = [11u32, 12];
        assert_eq!(cuMemcpyHtoD_v2(dp8, src.as_ptr().cast(), 8), CUDA_SUCCESS);
        assert_eq!(view(2, 2), [11, 12]);

        assert_eq!(cuMemHostUnregister(hp), CUDA_SUCCESS);
        assert_eq!(
            cuMemHostGetDevicePointer_v2(&mut dp, hp, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuMemHostUnregister(hp),
            CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED
        );
    }
    drop(host);
}
