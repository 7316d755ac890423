//! Memory management (CUDA Runtime API: Memory Management, Stream Ordered Memory
//! Allocator): allocations, copies and fills translated onto the driver. Device and host
//! share one address space (unified addressing), so every copy is the driver's `cuMemcpy`
//! family, which tells device memory from host memory by address; the `cudaMemcpyKind` a
//! program passes is checked, not needed.

use crate::errors::*;
use crate::state::context;
use crate::{cu, exports, register, Fail, RtResult};
use std::ffi::{c_int, c_uint, c_void};

/// `cudaMemcpyKind`: host-to-host 0 … device-to-device 3, default (inferred) 4.
pub(crate) fn check_kind(kind: c_int) -> RtResult {
    if !(0..=4).contains(&kind) {
        return Err(Fail::new(
            cudaErrorInvalidMemcpyDirection,
            format!("cudaMemcpyKind {kind}"),
        ));
    }
    Ok(())
}

/// The `kind` of a copy to (`to_symbol`) or from a `__device__`/`__constant__` symbol: the
/// CUDA Runtime API allows `cudaMemcpyHostToDevice`, `cudaMemcpyDeviceToDevice` or
/// `cudaMemcpyDefault` to a symbol and `cudaMemcpyDeviceToHost`, `cudaMemcpyDeviceToDevice` or
/// `cudaMemcpyDefault` from one, and returns `cudaErrorInvalidMemcpyDirection` for the others.
fn check_symbol_kind(kind: c_int, to_symbol: bool) -> RtResult {
    // `cudaMemcpyKind`'s values (driver_types.h).
    const HOST_TO_DEVICE: c_int = 1;
    const DEVICE_TO_HOST: c_int = 2;
    const DEVICE_TO_DEVICE: c_int = 3;
    const DEFAULT: c_int = 4;
    check_kind(kind)?;
    let (allowed, names) = if to_symbol {
        (
            HOST_TO_DEVICE,
            "cudaMemcpyHostToDevice, cudaMemcpyDeviceToDevice or cudaMemcpyDefault to a symbol",
        )
    } else {
        (
            DEVICE_TO_HOST,
            "cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice or cudaMemcpyDefault from a symbol",
        )
    };
    if kind != allowed && kind != DEVICE_TO_DEVICE && kind != DEFAULT {
        return Err(Fail::new(
            cudaErrorInvalidMemcpyDirection,
            format!("cudaMemcpyKind {kind}: a symbol copy takes {names}"),
        ));
    }
    Ok(())
}

exports! { cudaMalloc => fn(p: *mut *mut c_void, size: usize) {
    context()?;
    if size == 0 {
        return unsafe { crate::out(p, std::ptr::null_mut()) };
    }
    crate::non_null(p)?;
    let mut d = 0u64;
    cu!(cuMemAlloc_v2(&mut d, size))?;
    crate::driver::label_allocation(d, c"cudaMalloc");
    unsafe { crate::out(p, d as *mut c_void) }
}}

exports! { cudaFree => fn(p: *mut c_void) {
    context()?;
    if p.is_null() {
        return Ok(());
    }
    cu!(cuMemFree_v2(p as u64))
}}

exports! { cudaMallocAsync, cudaMallocAsync_ptsz => fn(p: *mut *mut c_void, size: usize, stream: u64) {
    context()?;
    crate::non_null(p)?;
    let mut d = 0u64;
    cu!(cuMemAllocAsync(&mut d, size, stream))?;
    crate::driver::label_allocation(d, c"cudaMallocAsync");
    unsafe { crate::out(p, d as *mut c_void) }
}}

exports! { cudaFreeAsync, cudaFreeAsync_ptsz => fn(p: *mut c_void, stream: u64) {
    context()?;
    cu!(cuMemFreeAsync(p as u64, stream))
}}

/// A zero-byte `cudaMallocManaged`, `cudaMallocHost` or `cudaHostAlloc`: `cudaSuccess` with a
/// null pointer in `*p`, as NVIDIA's CUDA 13 runtime answers without asking the driver, before
/// it looks at the flags (`cudaErrorInvalidValue` for a null `p`). The Runtime API reference
/// says otherwise for `cudaMallocManaged` ("If size is 0, cudaMallocManaged returns
/// cudaErrorInvalidValue"); programs are tested against the runtime, so its answer is the
/// one given, as `cudaMalloc(&p, 0)` gives a null pointer.
fn zero_bytes(p: *mut *mut c_void) -> RtResult {
    // SAFETY: the program's output pointer (null is refused by `out`).
    unsafe { crate::out(p, std::ptr::null_mut()) }
}

exports! { cudaMallocManaged => fn(p: *mut *mut c_void, size: usize, flags: c_uint) {
    context()?;
    if size == 0 {
        return zero_bytes(p);
    }
    // cudaMemAttachGlobal (1) or cudaMemAttachHost (2), as documented; 0 is refused as
    // NVIDIA's runtime refuses it (C++'s default argument is cudaMemAttachGlobal).
    if flags != 1 && flags != 2 {
        return Err(Fail::new(
            cudaErrorInvalidValue,
            format!("cudaMallocManaged flags {flags:#x}: must be cudaMemAttachGlobal (1) or cudaMemAttachHost (2)"),
        ));
    }
    crate::non_null(p)?;
    let mut d = 0u64;
    cu!(cuMemAllocManaged(&mut d, size, flags))?;
    crate::driver::label_allocation(d, c"cudaMallocManaged");
    unsafe { crate::out(p, d as *mut c_void) }
}}

exports! { cudaMallocHost => fn(p: *mut *mut c_void, size: usize) {
    context()?;
    if size == 0 {
        return zero_bytes(p);
    }
    cu!(cuMemHostAlloc(p, size, 0))?;
    // SAFETY: the driver wrote the host pointer to `p` (checked non-null by the call).
    crate::driver::label_allocation(unsafe { *p } as u64, c"cudaMallocHost");
    Ok(())
}}

exports! { cudaHostAlloc => fn(p: *mut *mut c_void, size: usize, flags: c_uint) {
    context()?;
    if size == 0 {
        return zero_bytes(p);
    }
    // cudaHostAllocPortable/Mapped/WriteCombined are CU_MEMHOSTALLOC_PORTABLE/DEVICEMAP/WRITECOMBINED.
    cu!(cuMemHostAlloc(p, size, flags))?;
    // SAFETY: the driver wrote the host pointer to `p` (checked non-null by the call).
    crate::driver::label_allocation(unsafe { *p } as u64, c"cudaHostAlloc");
    Ok(())
}}

exports! { cudaFreeHost => fn(p: *mut c_void) {
    context()?;
    if p.is_null() {
        return Ok(());
    }
    cu!(cuMemFreeHost(p))
}}

exports! { cudaHostRegister => fn(p: *mut c_void, size: usize, flags: c_uint) {
    context()?;
    cu!(cuMemHostRegister_v2(p, size, flags))
}}

exports! { cudaHostUnregister => fn(p: *mut c_void) {
    context()?;
    cu!(cuMemHostUnregister(p))
}}

exports! { cudaHostGetDevicePointer => fn(pd: *mut *mut c_void, p: *mut c_void, flags: c_uint) {
    context()?;
    cu!(cuMemHostGetDevicePointer_v2(pd.cast(), p, flags))
}}

exports! { cudaHostGetFlags => fn(flags: *mut c_uint, p: *mut c_void) {
    context()?;
    cu!(cuMemHostGetFlags(flags, p))
}}

exports! { cudaMallocPitch => fn(p: *mut *mut c_void, pitch: *mut usize, width: usize, height: usize) {
    context()?;
    if width == 0 || height == 0 {
        // Nothing to allocate: NVIDIA's runtime answers a null pointer and a pitch of 0
        // without asking the driver (which refuses an empty allocation), as `cudaMalloc`
        // does for 0 bytes.
        unsafe { crate::out(pitch, 0) }?;
        return unsafe { crate::out(p, std::ptr::null_mut()) };
    }
    crate::non_null(p)?;
    crate::non_null(pitch)?;
    let mut d = 0u64;
    cu!(cuMemAllocPitch_v2(&mut d, pitch, width, height, 16))?;
    crate::driver::label_allocation(d, c"cudaMallocPitch");
    unsafe { crate::out(p, d as *mut c_void) }
}}

exports! { cudaMemGetInfo => fn(free: *mut usize, total: *mut usize) {
    context()?;
    cu!(cuMemGetInfo_v2(free, total))
}}

/// A copy as its `kind` names it: host-to-device, device-to-host and device-to-device go to
/// the driver's functions of those kinds, which check that the sides named device memory are
/// device allocations (`cudaErrorInvalidValue` otherwise, as with NVIDIA's runtime, instead of
/// an access at a wild address); host-to-host and `cudaMemcpyDefault` let the driver tell the
/// sides apart by address. Now, or in `stream`'s order. `call` names the runtime function the
/// program called, for the reason of a refusal ([`past_the_end`]).
fn copy_by_kind(
    call: &str,
    dst: *mut c_void,
    src: *const c_void,
    n: usize,
    kind: c_int,
    stream: Option<u64>,
) -> RtResult {
    check_kind(kind)?;
    context()?;
    let (d, s) = (dst as u64, src as u64);
    let r = match (kind, stream) {
        (1, None) => cu!(cuMemcpyHtoD_v2(d, src, n)),
        (2, None) => cu!(cuMemcpyDtoH_v2(dst, s, n)),
        (3, None) => cu!(cuMemcpyDtoD_v2(d, s, n)),
        (_, None) => cu!(cuMemcpy(d, s, n)),
        (1, Some(st)) => cu!(cuMemcpyHtoDAsync_v2(d, src, n, st)),
        (2, Some(st)) => cu!(cuMemcpyDtoHAsync_v2(dst, s, n, st)),
        (3, Some(st)) => cu!(cuMemcpyDtoDAsync_v2(d, s, n, st)),
        (_, Some(st)) => cu!(cuMemcpyAsync(d, s, n, st)),
    };
    r.map_err(|f| past_the_end(call, f, [(d, "destination"), (s, "source")], n))
}

/// A copy of `n` bytes the driver refused (`f`) because a side runs past the end of its
/// device allocation: the refusal says so, naming runtime call `call`
/// (`ptxjit: cudaMemcpy: the source, 32 bytes at 0x…, runs 16 bytes past the end of its
/// 16-byte allocation at 0x… (cudaErrorInvalidValue)`). NVIDIA's `cudaMalloc` carves
/// allocations out of larger pages at 256-byte or coarser alignment, so there such a copy
/// usually succeeds, reading or overwriting bytes the program never allocated (whatever the
/// allocator placed next); ptxjit keeps each allocation's exact size and refuses it, which
/// without the reason would be a bare `cudaErrorInvalidValue`. Any other failure passes
/// through unchanged. Only on the failure path: a copy that succeeds asks nothing more.
fn past_the_end(call: &str, f: Fail, sides: [(u64, &str); 2], n: usize) -> Fail {
    if f.code != cudaErrorInvalidValue {
        return f;
    }
    for (p, what) in sides {
        let (mut base, mut size) = (0u64, 0usize);
        if cu!(cuMemGetAddressRange_v2(&mut base, &mut size, p)).is_err() {
            continue;
        }
        let end = p.saturating_add(n as u64);
        let limit = base.saturating_add(size as u64);
        if end > limit {
            let f = Fail::new(
                f.code,
                format!(
                    "the {what}, {n} bytes at {p:#x}, runs {} bytes past the end of its \
                     {size}-byte allocation at {base:#x}",
                    end - limit
                ),
            );
            crate::say_refused(call, &f);
            return f;
        }
    }
    f
}

exports! { cudaMemcpy, cudaMemcpy_ptds => fn(dst: *mut c_void, src: *const c_void, n: usize, kind: c_int) {
    copy_by_kind("cudaMemcpy", dst, src, n, kind, None)
}}

exports! { cudaMemcpyAsync, cudaMemcpyAsync_ptsz => fn(dst: *mut c_void, src: *const c_void, n: usize, kind: c_int, stream: u64) {
    copy_by_kind("cudaMemcpyAsync", dst, src, n, kind, Some(stream))
}}

/// `cudaMemcpyPeer`'s device ordinals: each must name a device (`cudaErrorInvalidDevice`,
/// the driver's `cuDeviceGet` check).
fn peer_devices(dst_dev: c_int, src_dev: c_int) -> RtResult {
    crate::device::device_handle(dst_dev)?;
    crate::device::device_handle(src_dev)?;
    Ok(())
}

exports! { cudaMemcpyPeer => fn(dst: *mut c_void, dst_dev: c_int, src: *const c_void, src_dev: c_int, n: usize) {
    context()?;
    peer_devices(dst_dev, src_dev)?;
    cu!(cuMemcpy(dst as u64, src as u64, n))
}}

exports! { cudaMemcpyPeerAsync => fn(dst: *mut c_void, dst_dev: c_int, src: *const c_void, src_dev: c_int, n: usize, stream: u64) {
    context()?;
    peer_devices(dst_dev, src_dev)?;
    cu!(cuMemcpyAsync(dst as u64, src as u64, n, stream))
}}

exports! { cudaMemset, cudaMemset_ptds => fn(p: *mut c_void, value: c_int, n: usize) {
    context()?;
    cu!(cuMemsetD8_v2(p as u64, value as u8, n))
}}

exports! { cudaMemsetAsync, cudaMemsetAsync_ptsz => fn(p: *mut c_void, value: c_int, n: usize, stream: u64) {
    context()?;
    cu!(cuMemsetD8Async(p as u64, value as u8, n, stream))
}}

exports! { cudaMemset2D, cudaMemset2D_ptds => fn(p: *mut c_void, pitch: usize, value: c_int, width: usize, height: usize) {
    context()?;
    cu!(cuMemsetD2D8_v2(p as u64, pitch, value as u8, width, height))
}}

exports! { cudaMemset2DAsync, cudaMemset2DAsync_ptsz => fn(p: *mut c_void, pitch: usize, value: c_int, width: usize, height: usize, stream: u64) {
    context()?;
    cu!(cuMemsetD2D8Async(p as u64, pitch, value as u8, width, height, stream))
}}

/// The device range `[offset, offset + n)` of the variable at host shadow `symbol`.
fn symbol_range(symbol: *const c_void, n: usize, offset: usize) -> Result<u64, Fail> {
    context()?;
    let (base, size) = register::symbol(symbol)?;
    if offset.checked_add(n).is_none_or(|end| end > size) {
        return Err(Fail::new(
            cudaErrorInvalidValue,
            format!("{n} bytes at offset {offset} of a {size}-byte symbol"),
        ));
    }
    Ok(base + offset as u64)
}

exports! { cudaMemcpyToSymbol, cudaMemcpyToSymbol_ptds => fn(symbol: *const c_void, src: *const c_void, n: usize, offset: usize, kind: c_int) {
    check_symbol_kind(kind, true)?;
    let d = symbol_range(symbol, n, offset)?;
    cu!(cuMemcpy(d, src as u64, n))
}}

exports! { cudaMemcpyFromSymbol, cudaMemcpyFromSymbol_ptds => fn(dst: *mut c_void, symbol: *const c_void, n: usize, offset: usize, kind: c_int) {
    check_symbol_kind(kind, false)?;
    let s = symbol_range(symbol, n, offset)?;
    cu!(cuMemcpy(dst as u64, s, n))
}}

exports! { cudaMemcpyToSymbolAsync, cudaMemcpyToSymbolAsync_ptsz => fn(symbol: *const c_void, src: *const c_void, n: usize, offset: usize, kind: c_int, stream: u64) {
    check_symbol_kind(kind, true)?;
    let d = symbol_range(symbol, n, offset)?;
    cu!(cuMemcpyAsync(d, src as u64, n, stream))
}}

exports! { cudaMemcpyFromSymbolAsync, cudaMemcpyFromSymbolAsync_ptsz => fn(dst: *mut c_void, symbol: *const c_void, n: usize, offset: usize, kind: c_int, stream: u64) {
    check_symbol_kind(kind, false)?;
    let s = symbol_range(symbol, n, offset)?;
    cu!(cuMemcpyAsync(dst as u64, s, n, stream))
}}

/// `CUDA_MEMCPY2D` (cuda.h).
#[repr(C)]
#[derive(Default)]
pub struct Memcpy2D {
    pub src_x_in_bytes: usize,
    pub src_y: usize,
    pub src_memory_type: c_uint,
    pub src_host: usize,
    pub src_device: u64,
    pub src_array: u64,
    pub src_pitch: usize,
    pub dst_x_in_bytes: usize,
    pub dst_y: usize,
    pub dst_memory_type: c_uint,
    pub dst_host: usize,
    pub dst_device: u64,
    pub dst_array: u64,
    pub dst_pitch: usize,
    pub width_in_bytes: usize,
    pub height: usize,
}

/// `CU_MEMORYTYPE_UNIFIED`: the driver tells host from device memory by address.
pub const MEM_UNIFIED: c_uint = 4;
/// `CU_MEMORYTYPE_ARRAY`.
pub const MEM_ARRAY: c_uint = 3;

/// Copies as `m` describes: now, or in `stream`'s order (`Some`: the `Async` forms, which a
/// capturing stream records).
pub fn memcpy_2d(m: &Memcpy2D, stream: Option<u64>) -> RtResult {
    let m = (m as *const Memcpy2D).cast();
    match stream {
        Some(s) => cu!(cuMemcpy2DAsync_v2(m, s)),
        None => cu!(cuMemcpy2D_v2(m)),
    }
}

/// The runtime's rule for the 2D copies: a row of `width` bytes fits in each linear side's
/// pitch (`None`: an array side, which the driver checks against the array's shape), else
/// `cudaErrorInvalidPitchValue` and nothing is copied.
pub fn check_pitch(width: usize, spitch: Option<usize>, dpitch: Option<usize>) -> RtResult {
    for (side, pitch) in [("source", spitch), ("destination", dpitch)] {
        if let Some(p) = pitch.filter(|&p| width > p) {
            return Err(Fail::new(
                cudaErrorInvalidPitchValue,
                format!("width {width} bytes exceeds the {side} pitch {p}"),
            ));
        }
    }
    Ok(())
}

/// A 2D copy between linear memories (any side host or device), now or in `stream`'s order.
pub fn copy_2d(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    stream: Option<u64>,
) -> RtResult {
    context()?;
    check_pitch(width, Some(spitch), Some(dpitch))?;
    let m = Memcpy2D {
        src_memory_type: MEM_UNIFIED,
        src_host: src as usize,
        src_device: src as u64,
        src_pitch: spitch,
        dst_memory_type: MEM_UNIFIED,
        dst_host: dst as usize,
        dst_device: dst as u64,
        dst_pitch: dpitch,
        width_in_bytes: width,
        height,
        ..Default::default()
    };
    memcpy_2d(&m, stream)
}

exports! { cudaMemcpy2D, cudaMemcpy2D_ptds => fn(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: c_int) {
    check_kind(kind)?;
    copy_2d(dst, dpitch, src, spitch, width, height, None)
}}

exports! { cudaMemcpy2DAsync, cudaMemcpy2DAsync_ptsz => fn(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: c_int, stream: u64) {
    check_kind(kind)?;
    copy_2d(dst, dpitch, src, spitch, width, height, Some(stream))
}}

/// `struct cudaPointerAttributes` (driver_types.h).
#[repr(C)]
pub struct PointerAttributes {
    pub memory_type: c_int,
    pub device: c_int,
    pub device_pointer: *mut c_void,
    pub host_pointer: *mut c_void,
    pub reserved: [i64; 8],
}

exports! { cudaPointerGetAttributes => fn(attr: *mut PointerAttributes, p: *const c_void) {
    context()?;
    // CU_POINTER_ATTRIBUTE_MEMORY_TYPE (2): CU_MEMORYTYPE_HOST 1 / DEVICE 2; IS_MANAGED (8).
    let mut mem_type: c_uint = 0;
    let known = cu!(cuPointerGetAttribute((&mut mem_type as *mut c_uint).cast(), 2, p as u64)).is_ok();
    let mut managed: c_int = 0;
    if known {
        let _ = cu!(cuPointerGetAttribute((&mut managed as *mut c_int).cast(), 8, p as u64));
    }
    // cudaMemoryType: unregistered 0, host 1, device 2, managed 3.
    let (t, dev, host) = match (known, mem_type, managed != 0) {
        (false, _, _) => (0, -1, p as *mut c_void),
        (true, _, true) => (3, 0, p as *mut c_void),
        (true, 1, false) => (1, 0, p as *mut c_void),
        (true, _, false) => (2, 0, std::ptr::null_mut()),
    };
    // A registered host range's device pointer is not its host address (its shadow's).
    let mut device_pointer: u64 = 0;
    if t != 0 && cu!(cuPointerGetAttribute((&mut device_pointer as *mut u64).cast(), 3, p as u64)).is_err() {
        device_pointer = p as u64;
    }
    let a = PointerAttributes {
        memory_type: t,
        device: dev,
        device_pointer: device_pointer as *mut c_void,
        host_pointer: host,
        reserved: [0; 8],
    };
    unsafe { crate::out(attr, a) }
}}

/// `struct cudaMemLocation` (driver_types.h): a location type and an id, passed by value.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct MemLocation {
    pub kind: c_int,
    pub id: c_int,
}

// Prefetching and advice move or place pages on a GPU; ptxjit's memory is the host's, so they
// change nothing, but the driver checks them as CUDA documents (managed memory only, a valid
// location, advice and stream). `cudaMemLocation` and `cudaMemoryAdvise` share the driver's
// layout and values. CUDA 13's plain names are CUDA 12's `_v2` ABIs (a location in place of a
// device); a CUDA 12 program's plain names pass a device.

/// `cudaCpuDeviceId`.
const CPU_DEVICE_ID: c_int = -1;

/// The location CUDA 12's device argument names: the host for `cudaCpuDeviceId`, else that
/// device (`cudaMemLocationTypeHost` 2, `cudaMemLocationTypeDevice` 1).
fn device_location(device: c_int) -> MemLocation {
    if device == CPU_DEVICE_ID {
        MemLocation { kind: 2, id: 0 }
    } else {
        MemLocation {
            kind: 1,
            id: device,
        }
    }
}

// CUDA 13: (devPtr, count, location, flags, stream); CUDA 12: (devPtr, count, int dstDevice,
// stream), whose device is the low half of the location's register and whose stream is in the
// flags' (a whole register, read as `a4`).
exports! { cudaMemPrefetchAsync, cudaMemPrefetchAsync_ptsz => fn(p: *const c_void, n: usize, loc: MemLocation, a4: u64, a5: u64) {
    context()?;
    if crate::state::runtime_version() < 13000 {
        return cu!(cuMemPrefetchAsync_v2(p as u64, n, device_location(loc.kind), 0, a4));
    }
    cu!(cuMemPrefetchAsync_v2(p as u64, n, loc, a4 as c_uint, a5))
}}

exports! { cudaMemPrefetchAsync_v2, cudaMemPrefetchAsync_v2_ptsz => fn(p: *const c_void, n: usize, loc: MemLocation, flags: c_uint, stream: u64) {
    context()?;
    cu!(cuMemPrefetchAsync_v2(p as u64, n, loc, flags, stream))
}}

// CUDA 13: (devPtr, count, advice, location); CUDA 12: (devPtr, count, advice, int device),
// the device in the low half of the location's register.
exports! { cudaMemAdvise => fn(p: *const c_void, n: usize, advice: c_int, loc: MemLocation) {
    context()?;
    let loc = if crate::state::runtime_version() < 13000 { device_location(loc.kind) } else { loc };
    cu!(cuMemAdvise_v2(p as u64, n, advice as c_uint, loc))
}}

exports! { cudaMemAdvise_v2 => fn(p: *const c_void, n: usize, advice: c_int, loc: MemLocation) {
    context()?;
    cu!(cuMemAdvise_v2(p as u64, n, advice as c_uint, loc))
}}

// Range attributes: `cudaMemRangeAttribute` and `CUmem_range_attribute` share their values
// (1 read mostly … 8 last prefetch location id), and `cudaCpuDeviceId`/`cudaInvalidDeviceId`
// are the driver's `CU_DEVICE_CPU`/`CU_DEVICE_INVALID`, so the answers pass through.

exports! { cudaMemRangeGetAttribute => fn(data: *mut c_void, size: usize, attribute: c_int, p: *const c_void, n: usize) {
    context()?;
    cu!(cuMemRangeGetAttribute(data, size, attribute as c_uint, p as u64, n))
}}

exports! { cudaMemRangeGetAttributes => fn(data: *mut *mut c_void, sizes: *const usize, attributes: *const c_int, count: usize, p: *const c_void, n: usize) {
    context()?;
    cu!(cuMemRangeGetAttributes(data, sizes, attributes.cast(), count, p as u64, n))
}}

// Memory pools (CUDA Runtime API: Stream Ordered Memory Allocator). `cudaMemPoolProps`,
// `cudaMemPoolAttr` and `cudaMemAccessDesc` share the driver's layouts and values
// (`CUmemPoolProps`, `CUmemPool_attribute`, `CUmemAccessDesc`), so they pass through.

exports! { cudaDeviceGetDefaultMemPool => fn(pool: *mut u64, device: c_int) {
    context()?;
    cu!(cuDeviceGetDefaultMemPool(pool, device))
}}

exports! { cudaDeviceGetMemPool => fn(pool: *mut u64, device: c_int) {
    context()?;
    cu!(cuDeviceGetMemPool(pool, device))
}}

exports! { cudaDeviceSetMemPool => fn(device: c_int, pool: u64) {
    context()?;
    cu!(cuDeviceSetMemPool(device, pool))
}}

exports! { cudaMemPoolCreate => fn(pool: *mut u64, props: *const c_void) {
    context()?;
    cu!(cuMemPoolCreate(pool, props))
}}

exports! { cudaMemPoolDestroy => fn(pool: u64) {
    context()?;
    cu!(cuMemPoolDestroy(pool))
}}

exports! { cudaMallocFromPoolAsync, cudaMallocFromPoolAsync_ptsz => fn(p: *mut *mut c_void, size: usize, pool: u64, stream: u64) {
    context()?;
    crate::non_null(p)?;
    let mut d = 0u64;
    cu!(cuMemAllocFromPoolAsync(&mut d, size, pool, stream))?;
    crate::driver::label_allocation(d, c"cudaMallocFromPoolAsync");
    unsafe { crate::out(p, d as *mut c_void) }
}}

exports! { cudaMemPoolTrimTo => fn(pool: u64, keep: usize) {
    context()?;
    cu!(cuMemPoolTrimTo(pool, keep))
}}

exports! { cudaMemPoolSetAttribute => fn(pool: u64, attr: c_int, value: *mut c_void) {
    context()?;
    cu!(cuMemPoolSetAttribute(pool, attr, value))
}}

exports! { cudaMemPoolGetAttribute => fn(pool: u64, attr: c_int, value: *mut c_void) {
    context()?;
    cu!(cuMemPoolGetAttribute(pool, attr, value))
}}
