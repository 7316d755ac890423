//! Memory pools through the driver API: the default pool behind `cuMemAllocAsync`, pools made
//! with `cuMemPoolCreate`, their attributes (CUDA's documented meanings: used bytes now and at
//! their highest, the release threshold), and the errors. One test: the state is per process.

use cuda::device::*;
use cuda::errors::*;
use cuda::memory::*;
use cuda::pool::*;
use std::ffi::c_void;
use std::ptr::null_mut;

mod common;
use common::setup;

const RELEASE_THRESHOLD: i32 = 4;
const RESERVED_MEM_CURRENT: i32 = 5;
const USED_MEM_CURRENT: i32 = 7;
const USED_MEM_HIGH: i32 = 8;

fn word(pool: u64, attr: i32) -> u64 {
    let mut v = 0u64;
    let r = unsafe { cuMemPoolGetAttribute(pool, attr, (&mut v as *mut u64).cast()) };
    assert_eq!(r, CUDA_SUCCESS, "attribute {attr}");
    v
}

#[test]
fn pools_allocate_and_account() {
    setup();
    unsafe {
        let mut supported = 0;
        assert_eq!(cuDeviceGetAttribute(&mut supported, 115, 0), CUDA_SUCCESS);
        assert_eq!(supported, 1, "CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED");
        let (mut default, mut current) = (0u64, 0u64);
        assert_eq!(cuDeviceGetDefaultMemPool(&mut default, 0), CUDA_SUCCESS);
        assert_eq!(cuDeviceGetMemPool(&mut current, 0), CUDA_SUCCESS);
        assert_eq!(default, current, "the default pool is current at first");
        assert_eq!(
            cuDeviceGetDefaultMemPool(&mut current, 1),
            CUDA_ERROR_INVALID_DEVICE
        );

        // cuMemAllocAsync goes through the current (default) pool.
        let base = word(default, USED_MEM_CURRENT);
        let (mut a, mut b) = (0u64, 0u64);
        assert_eq!(cuMemAllocAsync(&mut a, 1000, 0), CUDA_SUCCESS);
        assert_eq!(cuMemAllocAsync(&mut b, 3000, 0), CUDA_SUCCESS);
        assert_eq!(word(default, USED_MEM_CURRENT), base + 4000);
        assert_eq!(word(default, RESERVED_MEM_CURRENT), base + 4000);
        let data: Vec<u8> = (0..=255).cycle().take(3000).collect();
        assert_eq!(cuMemcpyHtoD_v2(b, data.as_ptr().cast(), 3000), CUDA_SUCCESS);
        let mut back = vec![0u8; 3000];
        assert_eq!(
            cuMemcpyDtoH_v2(back.as_mut_ptr().cast(), b, 3000),
            CUDA_SUCCESS
        );
        assert_eq!(back, data);
        assert_eq!(cuMemFreeAsync(a, 0), CUDA_SUCCESS);
        assert_eq!(word(default, USED_MEM_CURRENT), base + 3000);
        assert_eq!(word(default, USED_MEM_HIGH), base + 4000);
        // cuMemFree may free pool memory too.
        assert_eq!(cuMemFree_v2(b), CUDA_SUCCESS);
        assert_eq!(word(default, USED_MEM_CURRENT), base);
        // Resetting the high-water mark: to the current use.
        let zero = 0u64;
        let r = cuMemPoolSetAttribute(
            default,
            USED_MEM_HIGH,
            (&zero as *const u64 as *mut u64).cast(),
        );
        assert_eq!(r, CUDA_SUCCESS);
        assert_eq!(word(default, USED_MEM_HIGH), base);
        let threshold = u64::MAX;
        let r = cuMemPoolSetAttribute(
            default,
            RELEASE_THRESHOLD,
            (&threshold as *const u64 as *mut u64).cast(),
        );
        assert_eq!(r, CUDA_SUCCESS);
        assert_eq!(word(default, RELEASE_THRESHOLD), u64::MAX);
        assert_eq!(cuMemPoolTrimTo(default, 0), CUDA_SUCCESS);

        // A pool of its own, made current, then destroyed.
        let props = CUmemPoolProps {
            alloc_type: 1,
            handle_types: 0,
            location: [1, 0],
            win32_security_attributes: null_mut(),
            max_size: 0,
            usage: 0,
            reserved: [0; 54],
        };
        let mut pool = 0u64;
        assert_eq!(cuMemPoolCreate(&mut pool, &props), CUDA_SUCCESS);
        assert_ne!(pool, default);
        let mut c = 0u64;
        assert_eq!(cuMemAllocFromPoolAsync(&mut c, 512, pool, 0), CUDA_SUCCESS);
        assert_eq!(word(pool, USED_MEM_CURRENT), 512);
        assert_eq!(cuDeviceSetMemPool(0, pool), CUDA_SUCCESS);
        let mut d = 0u64;
        assert_eq!(cuMemAllocAsync(&mut d, 256, 0), CUDA_SUCCESS);
        assert_eq!(word(pool, USED_MEM_CURRENT), 768);
        assert_eq!(cuMemFreeAsync(c, 0), CUDA_SUCCESS);
        assert_eq!(cuMemFreeAsync(d, 0), CUDA_SUCCESS);
        assert_eq!(
            cuMemFreeAsync(d, 0),
            CUDA_ERROR_INVALID_VALUE,
            "double free"
        );
        assert_eq!(cuMemPoolDestroy(pool), CUDA_SUCCESS);
        assert_eq!(cuDeviceGetMemPool(&mut current, 0), CUDA_SUCCESS);
        assert_eq!(
            current, default,
            "destroying the current pool makes the default current"
        );

        // Errors: a destroyed pool, the default pool, IPC handle types, a zero size.
        assert_eq!(
            cuMemAllocFromPoolAsync(&mut c, 8, pool, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuMemPoolDestroy(default), CUDA_ERROR_INVALID_VALUE);
        let ipc = CUmemPoolProps {
            handle_types: 1,
            ..props
        };
        assert_eq!(cuMemPoolCreate(&mut pool, &ipc), CUDA_ERROR_NOT_SUPPORTED);
        assert_eq!(cuMemAllocAsync(&mut c, 0, 0), CUDA_ERROR_INVALID_VALUE);
        let mut v = 0u64;
        let r = cuMemPoolGetAttribute(default, 99, (&mut v as *mut u64).cast::<c_void>());
        assert_eq!(r, CUDA_ERROR_INVALID_VALUE);
    }
}
