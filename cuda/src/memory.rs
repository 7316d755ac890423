//! Memory (CUDA driver API: Memory Management, Unified Addressing).
//!
//! Device memory is ptxjit's arena, reserved at a fixed host address so device addresses are
//! host addresses. Page-locked host memory (`cuMemHostAlloc`, `cuMemAllocHost`) and managed
//! memory (`cuMemAllocManaged`) are arena allocations too: the program dereferences them
//! directly and kernels reach them at the same address. A kernel never reaches anything else.
//!
//! ⚠ Copies take raw host pointers from the program, as the driver does: a host range is the
//! program's promise. Device ranges are always checked against the live allocations.

use crate::errors::*;
use crate::exports;
use crate::state::{with_context, Driver};
use crate::{entry, out, DrvResult, Fail};
use ptxjit::host::DevicePtr;
use std::collections::BTreeMap;
use std::ffi::{c_uint, c_void};

/// `CUdeviceptr`.
pub type CUdeviceptr = u64;

/// The host pointer of device range `[p, p + len)`. Errors: `CUDA_ERROR_INVALID_VALUE` when
/// the range is not inside one live allocation.
pub fn device_range(d: &Driver, p: u64, len: u64) -> Result<*mut u8, Fail> {
    let m = d.host.memory();
    match m.allocation_at(p) {
        Some((a, within)) if within.checked_add(len).is_some_and(|e| e <= a.size) => {
            // SAFETY: inside a live allocation of the reserved range.
            Ok(unsafe { m.base().add((a.offset + within) as usize) })
        }
        Some((a, within)) => Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!(
                "{len} bytes at {p:#x} run past the end of '{}' ({} bytes, offset {within})",
                a.label, a.size
            ),
        )),
        None => Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{p:#x} is not device memory (no live allocation holds it)"),
        )),
    }
}

/// initcheck: the host wrote `[p, p + len)` through a host pointer (a copy, a memset, the
/// program itself in page-locked or managed memory). Nothing outside the arena, or without
/// initcheck.
pub(crate) fn written(d: &Driver, p: *const u8, len: u64) {
    d.host.memory().mark_written(DevicePtr(p as u64), len);
}

/// Errors when a stream capture prohibits this thread's potentially unsafe call `what`
/// ([`crate::graph::check_unsafe_call`]), and with the fault of earlier work, which such a
/// call waits for ([`Driver::wait_for_work`]).
pub(crate) fn sync_call(what: &str) -> DrvResult {
    with_context(|d| {
        crate::graph::check_unsafe_call(d, what)?;
        d.wait_for_work()?;
        d.flush_printf();
        Ok(())
    })
}

pub(crate) fn alloc(d: &mut Driver, bytes: usize, label: &str) -> Result<u64, Fail> {
    if bytes == 0 {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            "cannot allocate 0 bytes",
        ));
    }
    let p = d
        .host
        .alloc(bytes as u64, Some(label))
        .map(|p| p.0)
        .map_err(crate::host_fail)?;
    d.own(crate::state::Owned::Memory(p));
    Ok(p)
}

exports! { cuMemAlloc_v2 => fn(dptr: *mut CUdeviceptr, bytes: usize) {
    sync_call("cuMemAlloc")?;
    let p = with_context(|d| alloc(d, bytes, "cuMemAlloc"))?;
    unsafe { out(dptr, p) }
}}

exports! { cuMemAllocAsync, cuMemAllocAsync_ptsz => fn(dptr: *mut CUdeviceptr, bytes: usize, stream: u64) {
    let p = with_context(|d| {
        d.check_stream(stream)?;
        if crate::graph::capturing(d, stream)? {
            // A memory-allocation node; the address is the graph's from now on.
            let op = crate::graph::alloc_graph_mem(d, bytes, "cuMemAllocAsync")?;
            let crate::graph::Op::MemAlloc { ptr, .. } = op else {
                return Err(Fail::new(CUDA_ERROR_UNKNOWN, "a graph allocation that is not a memory-allocation node"));
            };
            crate::graph::record(d, stream, op)?;
            return Ok(ptr);
        }
        d.ensure_default_pool();
        let pool = d.current_pool;
        crate::pool::alloc_from(d, pool, bytes, "cuMemAllocAsync")
    })?;
    unsafe { out(dptr, p) }
}}

exports! { cuMemAllocPitch_v2 => fn(dptr: *mut CUdeviceptr, pitch: *mut usize, width: usize, height: usize, elem: c_uint) {
    if !matches!(elem, 4 | 8 | 16) {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "element size must be 4, 8 or 16 bytes"));
    }
    // A width within 511 bytes of the address space's end has no pitch (it would wrap to 0).
    let row = width.checked_next_multiple_of(512);
    let total = row.and_then(|r| r.checked_mul(height)).ok_or_else(|| Fail::new(CUDA_ERROR_INVALID_VALUE, "pitched size overflows"))?;
    let row = row.unwrap_or_default();
    let p = with_context(|d| alloc(d, total, "cuMemAllocPitch"))?;
    unsafe {
        out(pitch, row)?;
        out(dptr, p)
    }
}}

fn free(d: &mut Driver, p: u64) -> DrvResult {
    if p == 0 {
        return Ok(());
    }
    if d.graphs.mem.holds(p) {
        // Graph memory freed outside the graph: it stays reserved for the graph's next
        // launch, at the same address ([`crate::graph::GraphMem`]).
        return Ok(());
    }
    if crate::pool::free_pooled(d, p)? {
        d.managed.remove(&p);
        return Ok(());
    }
    let r = d
        .host
        .free(DevicePtr(p))
        .map_err(|e| Fail::new(CUDA_ERROR_INVALID_VALUE, e.to_string()));
    // Under a tool, a bad free is one of its errors, reported with this message by the
    // entry point that failed (`crate::sanitizer::driver_call`).
    if r.is_ok() {
        d.managed.remove(&p);
        d.owners.remove(&crate::state::Owned::Memory(p));
    }
    r
}

fn mem_free(d: &mut Driver, p: CUdeviceptr) -> DrvResult {
    if d.host_allocs.contains_key(&p) {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{p:#x} is page-locked host memory: free it with cuMemFreeHost"),
        ));
    }
    free(d, p)
}

exports! { cuMemFree_v2 => fn(p: CUdeviceptr) {
    // Also with no current context (`with_owner_context`).
    // cuMemFree waits for the device's work (an implicit synchronisation), so it returns the
    // fault of earlier work.
    crate::state::with_owner_context(crate::state::Owned::Memory(p), |d| {
        d.wait_for_work()?;
        mem_free(d, p)
    })
}}

exports! { cuMemFreeAsync, cuMemFreeAsync_ptsz => fn(p: CUdeviceptr, stream: u64) {
    with_context(|d| {
        d.check_stream(stream)?;
        if crate::graph::capturing(d, stream)? {
            if !d.graphs.mem.holds(p) {
                // CUDA's rule: a captured free must free memory a graph allocated.
                return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("{p:#x} was not allocated by a graph; only graph memory can be freed during capture")));
            }
            return crate::graph::record(d, stream, crate::graph::Op::MemFree { ptr: p });
        }
        free(d, p)
    })
}}

exports! { cuMemGetInfo_v2 => fn(free: *mut usize, total: *mut usize) {
    let (f, t) = with_context(|d| {
        let total = ptxjit::runtime::memory::device_memory_limit();
        let left = total.saturating_sub(d.host.memory().used());
        let can = ptxjit::runtime::memory::available_memory().unwrap_or(left);
        Ok((left.min(can), total))
    })?;
    unsafe {
        out(free, f as usize)?;
        out(total, t as usize)
    }
}}

exports! { cuMemGetAddressRange_v2 => fn(base: *mut CUdeviceptr, size: *mut usize, p: CUdeviceptr) {
    let (b, s) = with_context(|d| {
        let mem = d.host.memory();
        let (a, _) = mem.allocation_at(p).ok_or_else(|| {
            Fail::new(CUDA_ERROR_NOT_FOUND, format!("{p:#x} is in no allocation"))
        })?;
        Ok((ptxjit::runtime::memory::GLOBAL_BASE + a.offset, a.size))
    })?;
    if !base.is_null() {
        unsafe { out(base, b)? };
    }
    if !size.is_null() {
        unsafe { out(size, s as usize)? };
    }
    Ok(())
}}

/// `CU_MEMHOSTALLOC_DEVICEMAP`.
const HOSTALLOC_DEVICEMAP: u32 = 2;

fn host_alloc(pp: *mut *mut c_void, bytes: usize, flags: u32, label: &str) -> DrvResult {
    let p = with_context(|d| {
        let p = alloc(d, bytes, label)?;
        // The program writes page-locked memory directly: initcheck cannot see it.
        written(d, p as *const u8, bytes as u64);
        d.host_allocs.insert(p, (bytes as u64, flags));
        Ok(p)
    })?;
    unsafe { out(pp, p as *mut c_void) }
}

exports! { cuMemHostAlloc => fn(pp: *mut *mut c_void, bytes: usize, flags: c_uint) {
    if flags & !0xf != 0 {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("unknown cuMemHostAlloc flags {flags:#x}")));
    }
    host_alloc(pp, bytes, flags, "cuMemHostAlloc")
}}

exports! { cuMemAllocHost_v2 => fn(pp: *mut *mut c_void, bytes: usize) {
    host_alloc(pp, bytes, HOSTALLOC_DEVICEMAP, "cuMemAllocHost")
}}

// `cuMemFreeHost`: frees page-locked memory of `cuMemHostAlloc`/`cuMemAllocHost`. A null
// pointer is no operation and succeeds, as `free(NULL)` and as NVIDIA's driver answers it
// (and NVIDIA's runtime, which passes `cudaFreeHost(NULL)` on to it); any other pointer that
// is not such memory is `CUDA_ERROR_INVALID_VALUE`. It waits for the device's work, so it
// returns the fault of earlier work (`Driver::wait_for_work`).
exports! { cuMemFreeHost => fn(p: *mut c_void) {
    with_context(|d| {
        d.wait_for_work()?;
        if p.is_null() {
            return Ok(());
        }
        let p = p as u64;
        if d.host_allocs.remove(&p).is_none() {
            return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("{p:#x} is not page-locked host memory from cuMemHostAlloc")));
        }
        free(d, p)
    })
}}

exports! { cuMemHostGetDevicePointer_v2 => fn(dptr: *mut CUdeviceptr, p: *mut c_void, flags: c_uint) {
    if flags != 0 {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "flags must be 0"));
    }
    let p = p as u64;
    let dp = with_context(|d| {
        // Page-locked memory lives in the arena: its device address is its host address,
        // wherever inside the allocation the pointer is.
        match d.host_allocs.range(..=p).next_back() {
            Some((&start, &(size, _))) if p < start + size.max(1) => Ok(p),
            // A registered range: its shadow, made now for one registered without
            // CU_MEMHOSTREGISTER_DEVICEMAP (see `registered::map_on_request`).
            _ => crate::registered::device_of_host(d, p)
                .map(Ok)
                .or_else(|| crate::registered::map_on_request(d, p))
                .unwrap_or_else(|| Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("{p:#x} is not page-locked host memory (from cuMemHostAlloc or cuMemAllocHost, or registered with cuMemHostRegister)")))),
        }
    })?;
    unsafe { out(dptr, dp) }
}}

exports! { cuMemHostGetFlags => fn(flags: *mut c_uint, p: *mut c_void) {
    let p = p as u64;
    let f = with_context(|d| match d.host_allocs.range(..=p).next_back() {
        Some((&start, &(size, f))) if p < start + size.max(1) => Ok(f),
        _ => Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("{p:#x} is not from cuMemHostAlloc"))),
    })?;
    unsafe { out(flags, f) }
}}

exports! { cuMemHostRegister_v2 => fn(p: *mut c_void, bytes: usize, flags: c_uint) {
    if p.is_null() || bytes == 0 {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null or empty range"));
    }
    if flags & !0xf != 0 {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("unknown cuMemHostRegister flags {flags:#x}")));
    }
    with_context(|d| {
        let start = p as u64;
        if d.registered.range(..start + bytes as u64).next_back().is_some_and(|(&s, r)| s + r.bytes > start) {
            return Err(Fail::new(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "the range overlaps a registered range"));
        }
        // A mapped range gets its shadow in the arena (see `crate::registered`).
        let shadow = if flags & crate::registered::DEVICEMAP != 0 {
            let s = alloc(d, bytes, "cuMemHostRegister")?;
            let to = device_range(d, s, bytes as u64)?;
            // SAFETY: the shadow was just allocated; the host range is the program's promise.
            unsafe { std::ptr::copy_nonoverlapping(p as *const u8, to, bytes) };
            written(d, to, bytes as u64);
            Some(s)
        } else {
            None
        };
        d.registered.insert(start, crate::registered::Registered { bytes: bytes as u64, flags, shadow });
        Ok(())
    })
}}

exports! { cuMemHostUnregister => fn(p: *mut c_void) {
    with_context(|d| match d.registered.remove(&(p as u64)) {
        Some(r) => match r.shadow {
            Some(s) => free(d, s),
            None => Ok(()),
        },
        None => Err(Fail::new(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "not a registered range")),
    })
}}

exports! { cuMemAllocManaged => fn(dptr: *mut CUdeviceptr, bytes: usize, flags: c_uint) {
    if flags != 1 && flags != 2 {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "flags must be CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST"));
    }
    let p = with_context(|d| {
        let p = alloc(d, bytes, "cuMemAllocManaged")?;
        // The program writes managed memory directly: initcheck cannot see it.
        written(d, p as *const u8, bytes as u64);
        managed_added(d, p, bytes as u64);
        Ok(p)
    })?;
    unsafe { out(dptr, p) }
}}

/// Copies `n` bytes between two pointers of any kind: device ranges are checked, host ranges
/// are the program's promise. The bytes may overlap (memmove).
fn copy(d: &Driver, dst: u64, src: u64, n: usize, what: &str) -> DrvResult {
    if n == 0 {
        return Ok(());
    }
    // A side in a registered range's shadow acts on the host range itself.
    let dst = crate::registered::host_of_shadow(d, dst, n as u64).unwrap_or(dst);
    let src = crate::registered::host_of_shadow(d, src, n as u64).unwrap_or(src);
    let to = if in_arena(d, dst) {
        device_range(d, dst, n as u64)?
    } else {
        host_ptr(dst, n, what)?
    };
    let from = if in_arena(d, src) {
        device_range(d, src, n as u64)?
    } else {
        host_ptr(src, n, what)?
    };
    // SAFETY: device ranges were checked; host ranges are valid by the program's promise.
    unsafe { std::ptr::copy(from, to, n) };
    written(d, to, n as u64);
    Ok(())
}

/// Whether `p` lies in the arena's address range at all (then it must be a live allocation).
pub(crate) fn in_arena(d: &Driver, p: u64) -> bool {
    let base = d.host.memory().base() as u64;
    p >= base && p < base + ptxjit::runtime::memory::device_memory_limit()
}

/// The host side of a copy of `n` bytes at `p`: null, or a range that cannot be host memory
/// ([`crate::maybe_host_address`]: a size or small integer given for the pointer), is
/// `CUDA_ERROR_INVALID_VALUE`, where reading or writing it would crash the program.
fn host_ptr(p: u64, n: usize, what: &str) -> Result<*mut u8, Fail> {
    if p == 0 {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{what}: null pointer"),
        ));
    }
    if !crate::maybe_host_address(p as usize, n) {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{what}: the host pointer {p:#x} ({n} bytes) is no host address"),
        ));
    }
    Ok(p as *mut u8)
}

/// A copy whose device side must be device memory (`HtoD`, `DtoH`, `DtoD`).
pub(crate) fn copy_checked(
    dst: u64,
    dst_dev: bool,
    src: u64,
    src_dev: bool,
    n: usize,
    what: &str,
) -> DrvResult {
    with_context(|d| {
        // A copy of 0 bytes does nothing and succeeds, whatever the pointers (as the driver
        // answers: numba copies empty arrays through null device pointers).
        if n == 0 {
            return Ok(());
        }
        if dst_dev && crate::registered::host_of_shadow(d, dst, n as u64).is_none() {
            device_range(d, dst, n as u64)?;
        }
        if src_dev && crate::registered::host_of_shadow(d, src, n as u64).is_none() {
            device_range(d, src, n as u64)?;
        }
        copy(d, dst, src, n, what)
    })
}

exports! { cuMemcpyHtoD_v2, cuMemcpyHtoD_v2_ptds => fn(dst: CUdeviceptr, src: *const c_void, n: usize) {
    sync_call("cuMemcpyHtoD_v2")?;
    copy_checked(dst, true, src as u64, false, n, "cuMemcpyHtoD")
}}

exports! { cuMemcpyHtoDAsync_v2, cuMemcpyHtoDAsync_v2_ptsz => fn(dst: CUdeviceptr, src: *const c_void, n: usize, stream: u64) {
    crate::graph::enqueue(stream, crate::graph::Op::Copy { dst, dst_dev: true, src: src as u64, src_dev: false, n, what: "cuMemcpyHtoDAsync" })
}}

exports! { cuMemcpyDtoH_v2, cuMemcpyDtoH_v2_ptds => fn(dst: *mut c_void, src: CUdeviceptr, n: usize) {
    sync_call("cuMemcpyDtoH_v2")?;
    copy_checked(dst as u64, false, src, true, n, "cuMemcpyDtoH")
}}

exports! { cuMemcpyDtoHAsync_v2, cuMemcpyDtoHAsync_v2_ptsz => fn(dst: *mut c_void, src: CUdeviceptr, n: usize, stream: u64) {
    crate::graph::enqueue(stream, crate::graph::Op::Copy { dst: dst as u64, dst_dev: false, src, src_dev: true, n, what: "cuMemcpyDtoHAsync" })
}}

exports! { cuMemcpyDtoD_v2, cuMemcpyDtoD_v2_ptds => fn(dst: CUdeviceptr, src: CUdeviceptr, n: usize) {
    sync_call("cuMemcpyDtoD_v2")?;
    copy_checked(dst, true, src, true, n, "cuMemcpyDtoD")
}}

exports! { cuMemcpyDtoDAsync_v2, cuMemcpyDtoDAsync_v2_ptsz => fn(dst: CUdeviceptr, src: CUdeviceptr, n: usize, stream: u64) {
    crate::graph::enqueue(stream, crate::graph::Op::Copy { dst, dst_dev: true, src, src_dev: true, n, what: "cuMemcpyDtoDAsync" })
}}

exports! { cuMemcpy, cuMemcpy_ptds => fn(dst: CUdeviceptr, src: CUdeviceptr, n: usize) {
    sync_call("cuMemcpy")?;
    with_context(|d| copy(d, dst, src, n, "cuMemcpy"))
}}

exports! { cuMemcpyAsync, cuMemcpyAsync_ptsz => fn(dst: CUdeviceptr, src: CUdeviceptr, n: usize, stream: u64) {
    crate::graph::enqueue(stream, crate::graph::Op::Copy { dst, dst_dev: false, src, src_dev: false, n, what: "cuMemcpyAsync" })
}}

exports! { cuMemcpyPeer, cuMemcpyPeer_ptds => fn(dst: CUdeviceptr, _dc: u64, src: CUdeviceptr, _sc: u64, n: usize) {
    sync_call("cuMemcpyPeer")?;
    copy_checked(dst, true, src, true, n, "cuMemcpyPeer")
}}

exports! { cuMemcpyPeerAsync, cuMemcpyPeerAsync_ptsz => fn(dst: CUdeviceptr, _dc: u64, src: CUdeviceptr, _sc: u64, n: usize, stream: u64) {
    crate::graph::enqueue(stream, crate::graph::Op::Copy { dst, dst_dev: true, src, src_dev: true, n, what: "cuMemcpyPeerAsync" })
}}

/// Fills `count` elements of `width` bytes with `value`'s low bytes, `rows` rows of
/// `pitch` bytes apart (1 row for the linear forms).
pub(crate) fn memset(
    dst: u64,
    pitch: usize,
    value: u32,
    width: usize,
    count: usize,
    rows: usize,
) -> DrvResult {
    with_context(|d| memset_in(d, dst, pitch, value, width, count, rows))
}

/// The shape rule of the 2D memsets (`cuMemsetD2D8`/`16`/`32` and their async forms, a
/// memset node): a row of `count` elements of `width` bytes fits in the pitch, unless there
/// is one row ("dstPitch: unused if Height is 1"); else `CUDA_ERROR_INVALID_VALUE`.
pub fn check_memset_pitch(pitch: usize, width: usize, count: usize, rows: usize) -> DrvResult {
    let row = count.checked_mul(width);
    if rows <= 1 || row.is_some_and(|r| r <= pitch) {
        return Ok(());
    }
    Err(Fail::new(
        CUDA_ERROR_INVALID_VALUE,
        format!(
            "a row of {count} {width}-byte elements is wider than the pitch of {pitch} bytes \
             ({rows} rows)"
        ),
    ))
}

/// [`memset`] with the driver locked.
fn memset_in(
    d: &Driver,
    dst: u64,
    pitch: usize,
    value: u32,
    width: usize,
    count: usize,
    rows: usize,
) -> DrvResult {
    if !dst.is_multiple_of(width as u64) {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{dst:#x} is not aligned to {width} bytes"),
        ));
    }
    check_memset_pitch(pitch, width, count, rows)?;
    let bytes = count
        .checked_mul(width)
        .ok_or_else(|| Fail::new(CUDA_ERROR_INVALID_VALUE, "size overflows"))?;
    for r in 0..rows {
        let row = (r as u64)
            .checked_mul(pitch as u64)
            .and_then(|o| dst.checked_add(o))
            .ok_or_else(|| {
                Fail::new(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("row {r} of pitch {pitch} from {dst:#x} passes the end of the address space"),
                )
            })?;
        let p = match crate::registered::host_of_shadow(d, row, bytes as u64) {
            Some(host) => host as *mut u8,
            None => device_range(d, row, bytes as u64)?,
        };
        let pattern = &value.to_le_bytes()[..width];
        for i in 0..count {
            // SAFETY: inside the checked device range.
            unsafe { std::ptr::copy_nonoverlapping(pattern.as_ptr(), p.add(i * width), width) };
        }
        written(d, p, bytes as u64);
    }
    Ok(())
}

exports! { cuMemsetD8_v2, cuMemsetD8_v2_ptds => fn(dst: CUdeviceptr, v: u8, n: usize) { sync_call("cuMemsetD8_v2")?; memset(dst, 0, v.into(), 1, n, 1) }}
exports! { cuMemsetD16_v2, cuMemsetD16_v2_ptds => fn(dst: CUdeviceptr, v: u16, n: usize) { sync_call("cuMemsetD16_v2")?; memset(dst, 0, v.into(), 2, n, 1) }}
exports! { cuMemsetD32_v2, cuMemsetD32_v2_ptds => fn(dst: CUdeviceptr, v: u32, n: usize) { sync_call("cuMemsetD32_v2")?; memset(dst, 0, v, 4, n, 1) }}
exports! { cuMemsetD8Async, cuMemsetD8Async_ptsz => fn(dst: CUdeviceptr, v: u8, n: usize, s: u64) {
    crate::graph::enqueue(s, crate::graph::Op::Memset { dst, pitch: 0, value: v.into(), width: 1, count: n, rows: 1 })
}}
exports! { cuMemsetD16Async, cuMemsetD16Async_ptsz => fn(dst: CUdeviceptr, v: u16, n: usize, s: u64) {
    crate::graph::enqueue(s, crate::graph::Op::Memset { dst, pitch: 0, value: v.into(), width: 2, count: n, rows: 1 })
}}
exports! { cuMemsetD32Async, cuMemsetD32Async_ptsz => fn(dst: CUdeviceptr, v: u32, n: usize, s: u64) {
    crate::graph::enqueue(s, crate::graph::Op::Memset { dst, pitch: 0, value: v, width: 4, count: n, rows: 1 })
}}
exports! { cuMemsetD2D8_v2, cuMemsetD2D8_v2_ptds => fn(dst: CUdeviceptr, pitch: usize, v: u8, w: usize, h: usize) { sync_call("cuMemsetD2D8_v2")?; memset(dst, pitch, v.into(), 1, w, h) }}
exports! { cuMemsetD2D16_v2, cuMemsetD2D16_v2_ptds => fn(dst: CUdeviceptr, pitch: usize, v: u16, w: usize, h: usize) { sync_call("cuMemsetD2D16_v2")?; memset(dst, pitch, v.into(), 2, w, h) }}
exports! { cuMemsetD2D32_v2, cuMemsetD2D32_v2_ptds => fn(dst: CUdeviceptr, pitch: usize, v: u32, w: usize, h: usize) { sync_call("cuMemsetD2D32_v2")?; memset(dst, pitch, v, 4, w, h) }}
exports! { cuMemsetD2D8Async, cuMemsetD2D8Async_ptsz => fn(dst: CUdeviceptr, pitch: usize, v: u8, w: usize, h: usize, s: u64) {
    check_memset_pitch(pitch, 1, w, h)?;
    crate::graph::enqueue(s, crate::graph::Op::Memset { dst, pitch, value: v.into(), width: 1, count: w, rows: h })
}}
exports! { cuMemsetD2D16Async, cuMemsetD2D16Async_ptsz => fn(dst: CUdeviceptr, pitch: usize, v: u16, w: usize, h: usize, s: u64) {
    check_memset_pitch(pitch, 2, w, h)?;
    crate::graph::enqueue(s, crate::graph::Op::Memset { dst, pitch, value: v.into(), width: 2, count: w, rows: h })
}}
exports! { cuMemsetD2D32Async, cuMemsetD2D32Async_ptsz => fn(dst: CUdeviceptr, pitch: usize, v: u32, w: usize, h: usize, s: u64) {
    check_memset_pitch(pitch, 4, w, h)?;
    crate::graph::enqueue(s, crate::graph::Op::Memset { dst, pitch, value: v, width: 4, count: w, rows: h })
}}

/// `CUpointer_attribute` values this library answers.
mod attr {
    pub const CONTEXT: u32 = 1;
    pub const MEMORY_TYPE: u32 = 2;
    pub const DEVICE_POINTER: u32 = 3;
    pub const HOST_POINTER: u32 = 4;
    pub const SYNC_MEMOPS: u32 = 6;
    pub const BUFFER_ID: u32 = 7;
    pub const IS_MANAGED: u32 = 8;
    pub const DEVICE_ORDINAL: u32 = 9;
    pub const RANGE_START_ADDR: u32 = 11;
    pub const RANGE_SIZE: u32 = 12;
    pub const MAPPED: u32 = 13;
    pub const ACCESS_FLAGS: u32 = 16;
    pub const MEMPOOL_HANDLE: u32 = 17;
}

/// `CUmemorytype`.
const MEMORYTYPE_HOST: u32 = 1;
const MEMORYTYPE_DEVICE: u32 = 2;

/// Writes pointer attribute `a` of `p` to `data`; `Ok(false)` when `p` is not memory the
/// driver knows (the singular call's `CUDA_ERROR_INVALID_VALUE`).
unsafe fn pointer_attribute(
    d: &mut Driver,
    a: u32,
    p: u64,
    data: *mut c_void,
) -> Result<bool, Fail> {
    let Some((offset, size)) = d
        .host
        .memory()
        .allocation_at(p)
        .map(|(a, _)| (a.offset, a.size))
    else {
        return unsafe { registered_attribute(d, a, p, data) };
    };
    let start = ptxjit::runtime::memory::GLOBAL_BASE + offset;
    let host = d.host_allocs.contains_key(&start);
    let managed = d.managed.contains_key(&start);
    let facts = PointerFacts {
        memory_type: if host {
            MEMORYTYPE_HOST
        } else {
            MEMORYTYPE_DEVICE
        },
        device_pointer: p,
        host_pointer: (host || managed).then_some(p),
        managed,
        start,
        size,
    };
    unsafe { write_attribute(d, a, data, &facts)? };
    Ok(true)
}

/// What pointer attributes say of one address: device memory ([`pointer_attribute`]) and
/// registered host memory ([`registered_attribute`]) answer the same attributes from these.
struct PointerFacts {
    /// `CU_MEMORYTYPE_HOST` or `CU_MEMORYTYPE_DEVICE`.
    memory_type: u32,
    device_pointer: u64,
    /// `None`: device memory, which has no host pointer.
    host_pointer: Option<u64>,
    managed: bool,
    /// The allocation or registered range: its start (also its buffer id) and size.
    start: u64,
    size: u64,
}

/// Writes pointer attribute `a` of the address `facts` describe to `data`. Errors: device
/// memory's host pointer, an attribute this library does not answer
/// (`CUDA_ERROR_INVALID_VALUE`).
unsafe fn write_attribute(
    d: &Driver,
    a: u32,
    data: *mut c_void,
    facts: &PointerFacts,
) -> Result<(), Fail> {
    let ctx = d
        .primary
        .or_else(|| d.contexts.keys().next().copied())
        .unwrap_or(0);
    // SAFETY: `data` is valid for a write of the attribute's type (the caller's promise).
    unsafe {
        match a {
            attr::CONTEXT => out(data.cast::<u64>(), ctx),
            attr::MEMORY_TYPE => out(data.cast::<u32>(), facts.memory_type),
            attr::DEVICE_POINTER => out(data.cast::<u64>(), facts.device_pointer),
            attr::HOST_POINTER => match facts.host_pointer {
                Some(h) => out(data.cast::<u64>(), h),
                None => Err(Fail::new(
                    CUDA_ERROR_INVALID_VALUE,
                    "device memory has no host pointer",
                )),
            },
            attr::SYNC_MEMOPS => out(data.cast::<u8>(), 1),
            attr::BUFFER_ID => out(data.cast::<u64>(), facts.start),
            attr::IS_MANAGED => out(data.cast::<u8>(), facts.managed as u8),
            attr::DEVICE_ORDINAL => out(data.cast::<i32>(), 0),
            attr::RANGE_START_ADDR => out(data.cast::<u64>(), facts.start),
            attr::RANGE_SIZE => out(data.cast::<usize>(), facts.size as usize),
            attr::MAPPED => out(data.cast::<u8>(), 1),
            attr::ACCESS_FLAGS => out(data.cast::<u32>(), 3),
            attr::MEMPOOL_HANDLE => out(data.cast::<u64>(), 0),
            other => Err(Fail::new(
                CUDA_ERROR_INVALID_VALUE,
                format!("pointer attribute {other} is not supported by ptxjit"),
            )),
        }
    }
}

/// Writes pointer attribute `a` of host address `p` in a range registered with
/// `cuMemHostRegister` to `data`; `Ok(false)` where `p` is in no registered range. Such
/// memory is host memory; its device pointer is its shadow's address (see
/// `crate::registered`), made now for a range registered without
/// `CU_MEMHOSTREGISTER_DEVICEMAP`, as `cuMemHostGetDevicePointer` makes it: registered
/// memory is mapped on a device with unified addressing.
unsafe fn registered_attribute(
    d: &mut Driver,
    a: u32,
    p: u64,
    data: *mut c_void,
) -> Result<bool, Fail> {
    let Some((host, bytes)) = d
        .registered
        .range(..=p)
        .next_back()
        .filter(|(&h, r)| p < h + r.bytes)
        .map(|(&h, r)| (h, r.bytes))
    else {
        return Ok(false);
    };
    // The device pointer is made only when asked for.
    let device_pointer = if a == attr::DEVICE_POINTER {
        match crate::registered::device_of_host(d, p) {
            Some(dp) => dp,
            None => crate::registered::map_on_request(d, p).unwrap_or_else(|| {
                Err(Fail::new(
                    CUDA_ERROR_INVALID_VALUE,
                    "not a registered range",
                ))
            })?,
        }
    } else {
        0
    };
    let facts = PointerFacts {
        memory_type: MEMORYTYPE_HOST,
        device_pointer,
        host_pointer: Some(p),
        managed: false,
        start: host,
        size: bytes,
    };
    unsafe { write_attribute(d, a, data, &facts)? };
    Ok(true)
}

exports! { cuPointerGetAttribute => fn(data: *mut c_void, a: c_uint, p: CUdeviceptr) {
    with_context(|d| {
        if unsafe { pointer_attribute(d, a, p, data)? } {
            Ok(())
        } else {
            Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("{p:#x} is not memory allocated through the driver")))
        }
    })
}}

exports! { cuPointerGetAttributes => fn(n: c_uint, attrs: *const c_uint, data: *mut *mut c_void, p: CUdeviceptr) {
    if attrs.is_null() || data.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null attribute or data array"));
    }
    with_context(|d| {
        for i in 0..n as usize {
            // SAFETY: arrays of n entries by the API's contract.
            let (a, slot) = unsafe { (*attrs.add(i), *data.add(i)) };
            if slot.is_null() {
                continue;
            }
            // Device memory's host pointer is NULL here, not an error (cudaPointerGetAttributes
            // of NVIDIA's runtime asks for it with the rest, and gets hostPointer = NULL).
            let known = match unsafe { pointer_attribute(d, a, p, slot) } {
                Err(f) if a == attr::HOST_POINTER && f.code == CUDA_ERROR_INVALID_VALUE => {
                    unsafe { out(slot.cast::<u64>(), 0)? };
                    true
                }
                other => other?,
            };
            // Unknown memory: the plural call succeeds and reports "unregistered" values.
            if !known {
                unsafe {
                    match a {
                        attr::MEMORY_TYPE => out(slot.cast::<u32>(), 0)?,
                        attr::DEVICE_ORDINAL => out(slot.cast::<i32>(), -2)?,
                        attr::IS_MANAGED | attr::MAPPED | attr::SYNC_MEMOPS => out(slot.cast::<u8>(), 0)?,
                        _ => out(slot.cast::<u64>(), 0)?,
                    }
                }
            }
        }
        Ok(())
    })
}}

/// `CUmemLocation`, passed by value.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUmemLocation {
    pub kind: c_uint,
    pub id: i32,
}

/// Prefetching's and advice's rule (CUDA Driver API, `cuMemPrefetchAsync`, `cuMemAdvise`):
/// "the memory range must refer to managed memory allocated via cuMemAllocManaged or declared
/// via __managed__ variables" (pageable system memory qualifies only with
/// `CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS`, which ptxjit's device reports as 0). Else
/// `CUDA_ERROR_INVALID_VALUE`, as NVIDIA's driver answers.
fn managed_range(d: &Driver, p: CUdeviceptr, n: usize, what: &str) -> DrvResult {
    let inside = d
        .managed
        .range(..=p)
        .next_back()
        .is_some_and(|(&start, &bytes)| {
            let end = start + bytes;
            p < end.max(start + 1) && (n as u64) <= end - p
        });
    if inside {
        return Ok(());
    }
    Err(Fail::new(
        CUDA_ERROR_INVALID_VALUE,
        format!(
            "{what}: [{p:#x}, +{n}) is not managed memory (cuMemAllocManaged, a managed pool or \
             a __managed__ variable)"
        ),
    ))
}

/// `CU_DEVICE_CPU`.
const DEVICE_CPU: i32 = -1;

/// A device argument of prefetching or advice: device 0 or `CU_DEVICE_CPU`, else
/// `CUDA_ERROR_INVALID_DEVICE`.
fn device_or_cpu(dev: i32, what: &str) -> DrvResult {
    if dev == 0 || dev == DEVICE_CPU {
        return Ok(());
    }
    Err(Fail::new(
        CUDA_ERROR_INVALID_DEVICE,
        format!("{what}: device {dev} (ptxjit has device 0, and CU_DEVICE_CPU is -1)"),
    ))
}

/// `CUmemLocationType`'s `CU_MEM_LOCATION_TYPE_DEVICE`: its id is a device ordinal.
const LOCATION_DEVICE: c_uint = 1;
/// `CU_MEM_LOCATION_TYPE_HOST`.
const LOCATION_HOST: c_uint = 2;
/// `CU_MEM_LOCATION_TYPE_HOST_NUMA`: its id is a host NUMA node.
const LOCATION_HOST_NUMA: c_uint = 3;
/// `CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT`, the last location type.
const LOCATION_HOST_NUMA_CURRENT: c_uint = 4;

/// A `CUmemLocation` of prefetching or advice: a type CUDA defines (`CUDA_ERROR_INVALID_VALUE`
/// else), and for a device, device 0.
fn location(loc: CUmemLocation, what: &str) -> DrvResult {
    match loc.kind {
        LOCATION_DEVICE if loc.id == 0 => Ok(()),
        LOCATION_DEVICE => Err(Fail::new(
            CUDA_ERROR_INVALID_DEVICE,
            format!("{what}: device {} (ptxjit has device 0)", loc.id),
        )),
        LOCATION_HOST..=LOCATION_HOST_NUMA_CURRENT => Ok(()),
        other => Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{what}: memory location type {other}"),
        )),
    }
}

/// `CUmem_advise`: `CU_MEM_ADVISE_SET_READ_MOSTLY` (1) to `CU_MEM_ADVISE_UNSET_ACCESSED_BY` (6).
/// Returns whether the advice reads its device or location (the read-mostly pair ignores it).
fn advice(a: c_uint, what: &str) -> Result<bool, Fail> {
    if (1..=6).contains(&a) {
        return Ok(a >= 3);
    }
    Err(Fail::new(
        CUDA_ERROR_INVALID_VALUE,
        format!("{what}: advice {a} (CU_MEM_ADVISE_* are 1 to 6)"),
    ))
}

// Prefetching and advice move or place a GPU's pages; managed memory is the host's one memory
// here, so a valid call moves nothing. What they asked for is kept, page by page, for
// `cuMemRangeGetAttribute(s)` to report, as CUDA documents it. CUDA 12.2's `_v2` ABIs take a
// location in place of a device.

/// A managed range's pages as advice and prefetching left them: a value per page over the
/// CPU pages each call covered (CUDA rounds a range down and up to whole CPU pages). Each map
/// holds disjoint byte ranges, page-aligned.
#[derive(Default)]
pub struct Advice {
    /// `CU_MEM_ADVISE_SET_READ_MOSTLY`.
    read_mostly: RangeValues<()>,
    /// `CU_MEM_ADVISE_SET_PREFERRED_LOCATION`'s location.
    preferred: RangeValues<Place>,
    /// `CU_MEM_ADVISE_SET_ACCESSED_BY` for device 0 and for the host (`CU_DEVICE_CPU`).
    accessed_by: [RangeValues<()>; 2],
    /// The location of the last `cuMemPrefetchAsync` that covered each page.
    last_prefetch: RangeValues<Place>,
}

/// A location of advice or prefetching, as a range attribute reports it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Place {
    /// Device 0.
    Device,
    /// The host (`CU_MEM_LOCATION_TYPE_HOST`, `CU_DEVICE_CPU`).
    Host,
    /// Host NUMA node `id` (`CU_MEM_LOCATION_TYPE_HOST_NUMA`; `..._HOST_NUMA_CURRENT` is
    /// node 0, the one node ptxjit's host is taken to have).
    HostNuma(i32),
}

impl Place {
    /// The place of a `CUmemLocation` that [`location`] accepted.
    fn of(loc: CUmemLocation) -> Place {
        match loc.kind {
            LOCATION_DEVICE => Place::Device,
            LOCATION_HOST_NUMA => Place::HostNuma(loc.id),
            LOCATION_HOST_NUMA_CURRENT => Place::HostNuma(0),
            _ => Place::Host,
        }
    }

    /// The place of a device argument that [`device_or_cpu`] accepted.
    fn of_device(dev: i32) -> Place {
        if dev == DEVICE_CPU {
            Place::Host
        } else {
            Place::Device
        }
    }

    /// As a device ordinal: 0, or `CU_DEVICE_CPU` for any host location.
    fn device(self) -> i32 {
        match self {
            Place::Device => 0,
            Place::Host | Place::HostNuma(_) => DEVICE_CPU,
        }
    }

    /// As a `CUmemLocation`'s type and id.
    fn location(self) -> (c_uint, i32) {
        match self {
            Place::Device => (LOCATION_DEVICE, 0),
            Place::Host => (LOCATION_HOST, 0),
            Place::HostNuma(id) => (LOCATION_HOST_NUMA, id),
        }
    }
}

/// Values over disjoint byte ranges `[start, end)`, by start.
struct RangeValues<V> {
    map: BTreeMap<u64, (u64, V)>,
}

impl<V> Default for RangeValues<V> {
    fn default() -> Self {
        RangeValues {
            map: BTreeMap::new(),
        }
    }
}

impl<V: Copy + PartialEq> RangeValues<V> {
    /// Gives `[start, end)` the value `v`, or none; the parts of other ranges outside it keep
    /// theirs.
    fn set(&mut self, start: u64, end: u64, v: Option<V>) {
        if let Some((&s, &(e, old))) = self.map.range(..start).next_back() {
            if e > start {
                self.map.insert(s, (start, old));
                if e > end {
                    self.map.insert(end, (e, old));
                }
            }
        }
        let inside: Vec<u64> = self.map.range(start..end).map(|(&s, _)| s).collect();
        for s in inside {
            if let Some((e, old)) = self.map.remove(&s) {
                if e > end {
                    self.map.insert(end, (e, old));
                }
            }
        }
        if let Some(v) = v {
            self.map.insert(start, (end, v));
        }
    }

    /// The value every byte of `[start, end)` has, if they all have the same one; `None` when
    /// some byte has none or two bytes differ.
    fn uniform(&self, start: u64, end: u64) -> Option<V> {
        let from = self
            .map
            .range(..=start)
            .next_back()
            .map_or(start, |(&s, _)| s);
        let (mut at, mut value) = (start, None);
        for (&s, &(e, v)) in self.map.range(from..end.max(start + 1)) {
            if e <= at {
                continue;
            }
            if s > at || value.is_some_and(|w| w != v) {
                return None;
            }
            value = Some(v);
            at = e;
            if at >= end {
                return value;
            }
        }
        None
    }
}

impl Advice {
    /// Forgets what was asked for `[start, end)`, whose memory is new.
    fn forget(&mut self, start: u64, end: u64) {
        self.read_mostly.set(start, end, None);
        self.preferred.set(start, end, None);
        for a in &mut self.accessed_by {
            a.set(start, end, None);
        }
        self.last_prefetch.set(start, end, None);
    }
}

/// The CPU page size, in bytes, that advice and range queries round to.
fn cpu_page() -> u64 {
    static PAGE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *PAGE.get_or_init(|| {
        // SAFETY: sysconf has no preconditions.
        let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if p > 0 {
            p as u64
        } else {
            4096
        }
    })
}

/// `[p, p + n)` rounded out to whole CPU pages.
fn pages(p: CUdeviceptr, n: usize) -> (u64, u64) {
    let page = cpu_page();
    let end = p.saturating_add(n as u64).max(p + 1);
    (p / page * page, end.div_ceil(page).saturating_mul(page))
}

/// Records that `[p, p + bytes)` is new managed memory (`cuMemAllocManaged`, a `__managed__`
/// variable), with no advice and no prefetch yet.
pub fn managed_added(d: &mut Driver, p: u64, bytes: u64) {
    d.managed.insert(p, bytes);
    d.advice.forget(p, p.saturating_add(bytes.max(1)));
}

/// Keeps advice `a` (1 to 6, checked) for `[p, p + n)` at `place` (read by the location
/// advice only).
fn keep_advice(d: &mut Driver, p: CUdeviceptr, n: usize, a: c_uint, place: Place) {
    let (start, end) = pages(p, n);
    let by = usize::from(place != Place::Device);
    match a {
        1 => d.advice.read_mostly.set(start, end, Some(())),
        2 => d.advice.read_mostly.set(start, end, None),
        3 => d.advice.preferred.set(start, end, Some(place)),
        4 => d.advice.preferred.set(start, end, None),
        5 => d.advice.accessed_by[by].set(start, end, Some(())),
        6 => d.advice.accessed_by[by].set(start, end, None),
        _ => {}
    }
}

/// Keeps `place` as the last prefetch location of `[p, p + n)`.
fn keep_prefetch(d: &mut Driver, p: CUdeviceptr, n: usize, place: Place) {
    let (start, end) = pages(p, n);
    d.advice.last_prefetch.set(start, end, Some(place));
}

#[no_mangle]
pub unsafe extern "C" fn cuMemAdvise_v2(
    p: CUdeviceptr,
    n: usize,
    a: c_uint,
    loc: CUmemLocation,
) -> CUresult {
    entry("cuMemAdvise_v2", || {
        with_context(|d| {
            if advice(a, "cuMemAdvise_v2")? {
                location(loc, "cuMemAdvise_v2")?;
            }
            managed_range(d, p, n, "cuMemAdvise_v2")?;
            keep_advice(d, p, n, a, Place::of(loc));
            Ok(())
        })
    })
}

exports! { cuMemPrefetchAsync, cuMemPrefetchAsync_ptsz => fn(p: CUdeviceptr, n: usize, dev: i32, s: u64) {
    with_context(|d| {
        d.check_stream(s)?;
        device_or_cpu(dev, "cuMemPrefetchAsync")?;
        managed_range(d, p, n, "cuMemPrefetchAsync")?;
        keep_prefetch(d, p, n, Place::of_device(dev));
        Ok(())
    })
}}

exports! { cuMemPrefetchAsync_v2, cuMemPrefetchAsync_v2_ptsz => fn(p: CUdeviceptr, n: usize, loc: CUmemLocation, _flags: c_uint, s: u64) {
    with_context(|d| {
        d.check_stream(s)?;
        location(loc, "cuMemPrefetchAsync_v2")?;
        managed_range(d, p, n, "cuMemPrefetchAsync_v2")?;
        keep_prefetch(d, p, n, Place::of(loc));
        Ok(())
    })
}}

exports! { cuMemAdvise => fn(p: CUdeviceptr, n: usize, a: c_uint, dev: i32) {
    with_context(|d| {
        if advice(a, "cuMemAdvise")? {
            device_or_cpu(dev, "cuMemAdvise")?;
        }
        managed_range(d, p, n, "cuMemAdvise")?;
        keep_advice(d, p, n, a, Place::of_device(dev));
        Ok(())
    })
}}

/// `CU_DEVICE_INVALID`: no device (a range attribute's answer where pages differ or have none).
const DEVICE_INVALID: i32 = -2;
/// `CU_MEM_LOCATION_TYPE_INVALID`.
const LOCATION_INVALID: c_uint = 0;

/// One `CUmem_range_attribute` of `[p, p + n)` (managed memory, checked by the caller) into
/// `size` bytes at `data`, as the CUDA Driver API documents `cuMemRangeGetAttribute`:
/// READ_MOSTLY (1): 1 when every page has it; PREFERRED_LOCATION (2) and
/// LAST_PREFETCH_LOCATION (4): device 0, `CU_DEVICE_CPU` for a host location, or
/// `CU_DEVICE_INVALID` where the pages differ or some have none; ACCESSED_BY (3): the devices
/// with the advice over the whole range (0, then `CU_DEVICE_CPU` for the host), the rest of
/// the array `CU_DEVICE_INVALID`; the `_TYPE` (5, 7) and `_ID` (6, 8) forms: the location's
/// `CUmemLocationType` (`CU_MEM_LOCATION_TYPE_INVALID` where the pages differ) and id. Errors:
/// `CUDA_ERROR_INVALID_VALUE` for another attribute, a null `data`, or a size other than 4
/// (a non-zero multiple of 4 for ACCESSED_BY).
fn range_attribute(
    d: &Driver,
    data: *mut c_void,
    size: usize,
    attribute: c_uint,
    p: CUdeviceptr,
    n: usize,
) -> DrvResult {
    let size_ok = if attribute == 3 {
        size > 0 && size.is_multiple_of(4)
    } else {
        size == 4
    };
    if data.is_null() || !size_ok || !(1..=8).contains(&attribute) {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!(
                "cuMemRangeGetAttribute: attribute {attribute} into {size} bytes at {data:p} \
                 (CU_MEM_RANGE_ATTRIBUTE_* are 1 to 8, each a 4-byte value; ACCESSED_BY an \
                 array of them)"
            ),
        ));
    }
    let (start, end) = pages(p, n);
    let a = &d.advice;
    let int = |v: i32| unsafe { out(data.cast::<i32>(), v) };
    match attribute {
        1 => int(i32::from(a.read_mostly.uniform(start, end).is_some())),
        2 => int(a
            .preferred
            .uniform(start, end)
            .map_or(DEVICE_INVALID, Place::device)),
        3 => {
            let mut ids = [0, DEVICE_CPU]
                .into_iter()
                .zip(&a.accessed_by)
                .filter(|(_, r)| r.uniform(start, end).is_some())
                .map(|(id, _)| id);
            for i in 0..size / 4 {
                let v = ids.next().unwrap_or(DEVICE_INVALID);
                // SAFETY: `size` bytes at `data`, by the API's contract.
                unsafe { data.cast::<i32>().add(i).write_unaligned(v) };
            }
            Ok(())
        }
        4 => int(a
            .last_prefetch
            .uniform(start, end)
            .map_or(DEVICE_INVALID, Place::device)),
        5 | 7 => {
            let r = if attribute == 5 {
                &a.preferred
            } else {
                &a.last_prefetch
            };
            let kind = r
                .uniform(start, end)
                .map_or(LOCATION_INVALID, |pl| pl.location().0);
            unsafe { out(data.cast::<c_uint>(), kind) }
        }
        _ => {
            let r = if attribute == 6 {
                &a.preferred
            } else {
                &a.last_prefetch
            };
            int(r
                .uniform(start, end)
                .map_or(DEVICE_INVALID, |pl| pl.location().1))
        }
    }
}

exports! { cuMemRangeGetAttribute => fn(data: *mut c_void, size: usize, attribute: c_uint, p: CUdeviceptr, n: usize) {
    with_context(|d| {
        managed_range(d, p, n, "cuMemRangeGetAttribute")?;
        range_attribute(d, data, size, attribute, p, n)
    })
}}

exports! { cuMemRangeGetAttributes => fn(data: *mut *mut c_void, sizes: *const usize, attributes: *const c_uint, count: usize, p: CUdeviceptr, n: usize) {
    if count > 0 && (data.is_null() || sizes.is_null() || attributes.is_null()) {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "cuMemRangeGetAttributes: a null array"));
    }
    with_context(|d| {
        managed_range(d, p, n, "cuMemRangeGetAttributes")?;
        for i in 0..count {
            // SAFETY: `count` entries in each array, by the API's contract.
            let (dp, size, attribute) = unsafe { (*data.add(i), *sizes.add(i), *attributes.add(i)) };
            range_attribute(d, dp, size, attribute, p, n)?;
        }
        Ok(())
    })
}}
