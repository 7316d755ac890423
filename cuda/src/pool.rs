//! Memory pools (CUDA driver API: Stream Ordered Memory Allocator). The pools and their
//! accounting are the host layer's ([`ptxjit::host::pool::MemPool`]): an allocation or free
//! enqueued on a stream takes effect at once, freed memory goes straight back to the device,
//! and a pool's reserved bytes are its used bytes. One device, so one default pool; pools
//! over other memory (host, IPC handle types) are not supported.

use crate::device::check_device;
use crate::errors::*;
use crate::exports;
use crate::memory::CUmemLocation;
use crate::state::{with_context, with_driver, Driver, Kind};
use crate::{out, DrvResult, Fail};
use ptxjit::host::pool::MemPool;
use ptxjit::host::DevicePtr;
use std::ffi::{c_int, c_uint, c_void};

/// `CUmemPool_attribute` values.
const ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES: c_int = 1;
const ATTR_REUSE_ALLOW_OPPORTUNISTIC: c_int = 2;
const ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: c_int = 3;
const ATTR_RELEASE_THRESHOLD: c_int = 4;
const ATTR_RESERVED_MEM_CURRENT: c_int = 5;
const ATTR_RESERVED_MEM_HIGH: c_int = 6;
const ATTR_USED_MEM_CURRENT: c_int = 7;
const ATTR_USED_MEM_HIGH: c_int = 8;

/// `CUmemPoolProps` (the fields read here; the rest is reserved padding).
#[repr(C)]
pub struct CUmemPoolProps {
    /// `CUmemAllocationType`: 1 = `CU_MEM_ALLOCATION_TYPE_PINNED`.
    pub alloc_type: c_int,
    /// `CUmemAllocationHandleType`: 0 = none.
    pub handle_types: c_int,
    /// `CUmemLocation`: type (1 = `CU_MEM_LOCATION_TYPE_DEVICE`) and id.
    pub location: [c_int; 2],
    pub win32_security_attributes: *mut c_void,
    pub max_size: usize,
    pub usage: u16,
    pub reserved: [u8; 54],
}

/// The pool of handle `h`.
fn pool(d: &mut Driver, h: u64) -> Result<&mut MemPool, Fail> {
    d.ensure_default_pool();
    d.pools.get_mut(&h).ok_or_else(|| {
        Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{h:#x} is not a live CUmemoryPool"),
        )
    })
}

/// Allocates `bytes` from pool `h` (`cuMemAllocAsync` uses the device's current pool).
pub fn alloc_from(d: &mut Driver, h: u64, bytes: usize, label: &str) -> Result<u64, Fail> {
    if bytes == 0 {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            "cannot allocate 0 bytes",
        ));
    }
    let Driver { pools, host, .. } = d;
    let pool = pools.get_mut(&h).ok_or_else(|| {
        Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{h:#x} is not a live CUmemoryPool"),
        )
    })?;
    pool.alloc(host, bytes as u64, label)
        .map(|p| p.0)
        .map_err(crate::host_fail)
}

/// Frees `p` through the pool it came from; `false` if no pool owns it.
pub fn free_pooled(d: &mut Driver, p: u64) -> Result<bool, Fail> {
    let Driver { pools, host, .. } = d;
    match pools.values_mut().find(|pool| pool.owns(DevicePtr(p))) {
        Some(pool) => pool
            .free(host, DevicePtr(p))
            .map(|()| true)
            .map_err(|e| Fail::new(CUDA_ERROR_INVALID_VALUE, e.to_string())),
        None => Ok(false),
    }
}

/// The default pool of device `dev`.
fn default_pool(dev: c_int) -> Result<u64, Fail> {
    check_device(dev)?;
    with_driver(|d| {
        d.ensure_default_pool();
        Ok(d.default_pool)
    })
}

/// The current pool of device `dev` (its default pool until one is set).
fn current_pool(dev: c_int) -> Result<u64, Fail> {
    check_device(dev)?;
    with_driver(|d| {
        d.ensure_default_pool();
        Ok(d.current_pool)
    })
}

/// Makes pool `h` the current pool of device `dev`.
fn set_current_pool(dev: c_int, h: u64) -> DrvResult {
    check_device(dev)?;
    with_driver(|d| {
        pool(d, h)?;
        d.current_pool = h;
        Ok(())
    })
}

exports! { cuDeviceGetDefaultMemPool => fn(pool_out: *mut u64, dev: c_int) {
    let h = default_pool(dev)?;
    unsafe { out(pool_out, h) }
}}

exports! { cuDeviceGetMemPool => fn(pool_out: *mut u64, dev: c_int) {
    let h = current_pool(dev)?;
    unsafe { out(pool_out, h) }
}}

exports! { cuDeviceSetMemPool => fn(dev: c_int, h: u64) {
    set_current_pool(dev, h)
}}

/// The device a `CUmemLocation` and `CUmemAllocationType` name for the location-based pool
/// functions of CUDA 13 (`cuMemGetDefaultMemPool` …): pinned memory on a device is the only
/// kind of pool ptxjit has, so host and managed pools answer `CUDA_ERROR_NOT_SUPPORTED`.
fn pool_device(location: *const CUmemLocation, alloc_type: c_int) -> Result<c_int, Fail> {
    if location.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null location"));
    }
    // SAFETY: a CUmemLocation by the API's contract.
    let loc = unsafe { *location };
    if loc.kind != CU_MEM_LOCATION_TYPE_DEVICE || alloc_type != CU_MEM_ALLOCATION_TYPE_PINNED {
        return Err(Fail::new(
            CUDA_ERROR_NOT_SUPPORTED,
            format!(
                "pools of allocation type {alloc_type} at location type {} are not supported by ptxjit (only pinned device memory)",
                loc.kind
            ),
        ));
    }
    check_device(loc.id)?;
    Ok(loc.id)
}

/// `CUmemLocationType`: device memory.
const CU_MEM_LOCATION_TYPE_DEVICE: c_uint = 1;
/// `CUmemAllocationType`: pinned (non-migratable) memory.
const CU_MEM_ALLOCATION_TYPE_PINNED: c_int = 1;

// `cuMemGetDefaultMemPool` (CUDA 13.0): `cuDeviceGetDefaultMemPool` for a device location.
exports! { cuMemGetDefaultMemPool => fn(pool_out: *mut u64, location: *const CUmemLocation, alloc_type: c_int) {
    let h = default_pool(pool_device(location, alloc_type)?)?;
    unsafe { out(pool_out, h) }
}}

// `cuMemGetMemPool` (CUDA 13.0): `cuDeviceGetMemPool` for a device location.
exports! { cuMemGetMemPool => fn(pool_out: *mut u64, location: *const CUmemLocation, alloc_type: c_int) {
    let h = current_pool(pool_device(location, alloc_type)?)?;
    unsafe { out(pool_out, h) }
}}

// `cuMemSetMemPool` (CUDA 13.0): `cuDeviceSetMemPool` for a device location.
exports! { cuMemSetMemPool => fn(location: *const CUmemLocation, alloc_type: c_int, h: u64) {
    set_current_pool(pool_device(location, alloc_type)?, h)
}}

exports! { cuMemPoolCreate => fn(pool_out: *mut u64, props: *const CUmemPoolProps) {
    if props.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null pool properties"));
    }
    // SAFETY: a CUmemPoolProps by the API's contract.
    let p = unsafe { &*props };
    if p.alloc_type != 1 || p.location[0] != 1 {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "a pool must hold pinned device memory (CU_MEM_ALLOCATION_TYPE_PINNED on CU_MEM_LOCATION_TYPE_DEVICE)"));
    }
    check_device(p.location[1])?;
    if p.handle_types != 0 {
        return Err(Fail::new(CUDA_ERROR_NOT_SUPPORTED, "pools exportable to other processes (IPC handle types) are not supported by ptxjit"));
    }
    let h = with_driver(|d| {
        let h = d.handle(Kind::MemPool);
        d.pools.insert(h, MemPool::new());
        Ok(h)
    })?;
    unsafe { out(pool_out, h) }
}}

exports! { cuMemPoolDestroy => fn(h: u64) {
    with_driver(|d| {
        d.ensure_default_pool();
        if h == d.default_pool {
            return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "the device's default memory pool cannot be destroyed"));
        }
        // Its live allocations stay valid until freed (cuMemFree, cuMemFreeAsync).
        d.pools.remove(&h).ok_or_else(|| Fail::new(CUDA_ERROR_INVALID_VALUE, format!("{h:#x} is not a live CUmemoryPool")))?;
        if d.current_pool == h {
            d.current_pool = d.default_pool;
        }
        Ok(())
    })
}}

exports! { cuMemAllocFromPoolAsync, cuMemAllocFromPoolAsync_ptsz => fn(dptr: *mut u64, bytes: usize, h: u64, stream: u64) {
    let p = with_context(|d| {
        d.check_stream(stream)?;
        pool(d, h)?;
        alloc_from(d, h, bytes, "cuMemAllocFromPoolAsync")
    })?;
    unsafe { out(dptr, p) }
}}

exports! { cuMemPoolTrimTo => fn(h: u64, keep: usize) {
    with_driver(|d| {
        pool(d, h)?.trim_to(keep as u64);
        Ok(())
    })
}}

exports! { cuMemPoolSetAttribute => fn(h: u64, attr: c_int, value: *mut c_void) {
    if value.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null attribute value"));
    }
    with_driver(|d| {
        let p = pool(d, h)?;
        // SAFETY: an int or a cuuint64_t, by attribute (the API's contract).
        let flag = || unsafe { value.cast::<c_int>().read_unaligned() } != 0;
        let word = || unsafe { value.cast::<u64>().read_unaligned() };
        match attr {
            ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES => p.reuse_follow_event_dependencies = flag(),
            ATTR_REUSE_ALLOW_OPPORTUNISTIC => p.reuse_allow_opportunistic = flag(),
            ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES => p.reuse_allow_internal_dependencies = flag(),
            ATTR_RELEASE_THRESHOLD => p.release_threshold = word(),
            ATTR_RESERVED_MEM_HIGH | ATTR_USED_MEM_HIGH if word() == 0 => p.reset_high(),
            ATTR_RESERVED_MEM_HIGH | ATTR_USED_MEM_HIGH => {
                return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "a high-water mark can only be reset (set to 0)"));
            }
            other => {
                return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("memory pool attribute {other} cannot be set")));
            }
        }
        Ok(())
    })
}}

exports! { cuMemPoolGetAttribute => fn(h: u64, attr: c_int, value: *mut c_void) {
    enum V {
        Flag(bool),
        Word(u64),
    }
    let v = with_driver(|d| {
        let p = pool(d, h)?;
        Ok(match attr {
            ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES => V::Flag(p.reuse_follow_event_dependencies),
            ATTR_REUSE_ALLOW_OPPORTUNISTIC => V::Flag(p.reuse_allow_opportunistic),
            ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES => V::Flag(p.reuse_allow_internal_dependencies),
            ATTR_RELEASE_THRESHOLD => V::Word(p.release_threshold),
            ATTR_RESERVED_MEM_CURRENT => V::Word(p.reserved()),
            ATTR_RESERVED_MEM_HIGH | ATTR_USED_MEM_HIGH => V::Word(p.used_high()),
            ATTR_USED_MEM_CURRENT => V::Word(p.used()),
            other => {
                return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("unknown memory pool attribute {other}")));
            }
        })
    })?;
    match v {
        V::Flag(b) => unsafe { out(value.cast::<c_int>(), b as c_int) },
        V::Word(w) => unsafe { out(value.cast::<u64>(), w) },
    }
}}
