//! Device management (CUDA Runtime API: Device Management): the driver's one device, its
//! `cudaDeviceProp` filled from the driver's attributes.

use crate::errors::*;
use crate::{cu, exports, Fail, RtResult};
use std::ffi::{c_char, c_int, c_uint, c_void};

exports! { cudaGetDeviceCount => fn(count: *mut c_int) {
    let mut n = 0;
    if let Err(e) = cu!(cuDeviceGetCount(&mut n)) {
        // No driver: no devices, as NVIDIA's runtime answers.
        let _ = unsafe { crate::out(count, 0) };
        return Err(e);
    }
    unsafe { crate::out(count, n) }
}}

exports! { cudaDeviceGetAttribute => fn(value: *mut c_int, attr: c_int, dev: c_int) {
    // cudaDeviceAttr and CUdevice_attribute share their values.
    cu!(cuDeviceGetAttribute(value, attr, dev))
}}

exports! { cudaDeviceGetPCIBusId => fn(id: *mut c_char, len: c_int, dev: c_int) {
    cu!(cuDeviceGetPCIBusId(id, len, dev))
}}

exports! { cudaDeviceGetByPCIBusId => fn(dev: *mut c_int, id: *const c_char) {
    cu!(cuDeviceGetByPCIBusId(dev, id))
}}

exports! { cudaDeviceCanAccessPeer => fn(can: *mut c_int, dev: c_int, peer: c_int) {
    cu!(cuDeviceCanAccessPeer(can, dev, peer))
}}

// `cudaDevP2PAttr` has the driver's values (`cudaDevP2PAttrPerformanceRank` = 1 …), and the
// runtime's device ordinals are the driver's devices.
exports! { cudaDeviceGetP2PAttribute => fn(value: *mut c_int, attr: c_int, src: c_int, dst: c_int) {
    cu!(cuDeviceGetP2PAttribute(value, attr, src, dst))
}}

/// The driver's device for runtime ordinal `ordinal`. Errors: `cudaErrorInvalidDevice` for an
/// ordinal that names no device (`cuDeviceGet`'s check).
pub fn device_handle(ordinal: c_int) -> Result<c_int, Fail> {
    let mut dev = 0;
    cu!(cuDeviceGet(&mut dev, ordinal))?;
    Ok(dev)
}

/// Runs `f` with the primary context of `dev` retained, and releases it.
fn with_primary_context(dev: c_int, f: impl FnOnce(u64) -> RtResult) -> RtResult {
    let mut ctx = 0u64;
    cu!(cuDevicePrimaryCtxRetain(&mut ctx, dev))?;
    let r = f(ctx);
    let released = cu!(cuDevicePrimaryCtxRelease_v2(dev));
    r.and(released)
}

/// Whether the current device may access `peer`'s memory (`cudaDeviceCanAccessPeer`).
fn current_can_access(peer: c_int) -> Result<bool, Fail> {
    let mut can = 0;
    cu!(cuDeviceCanAccessPeer(
        &mut can,
        crate::state::device(),
        peer
    ))?;
    Ok(can != 0)
}

// cudaDeviceEnablePeerAccess (CUDA Runtime API: Peer Device Memory Access): the current
// device may access `peer`'s memory from now on, through the driver's cuCtxEnablePeerAccess
// on the peer's primary context. Errors: cudaErrorInvalidDevice for an ordinal that names no
// device or a device the current one cannot access (cudaDeviceCanAccessPeer answers 0: with
// ptxjit's one device always, since NVIDIA's drivers answer 0 for a device and itself, which
// the documents leave open), cudaErrorInvalidValue for flags other than 0, and
// cudaErrorPeerAccessAlreadyEnabled from the driver for a second enable. The documents give
// no order for the checks; this one is ordinal, flags, access.
exports! { cudaDeviceEnablePeerAccess => fn(peer: c_int, flags: c_uint) {
    let peer = device_handle(peer)?;
    crate::state::context()?;
    if flags != 0 {
        return Err(Fail::new(cudaErrorInvalidValue, format!("flags {flags:#x}: must be 0")));
    }
    if !current_can_access(peer)? {
        return Err(Fail::new(
            cudaErrorInvalidDevice,
            format!("device {} cannot access device {peer}'s memory directly (cudaDeviceCanAccessPeer is 0: a device is not its own peer)", crate::state::device()),
        ));
    }
    with_primary_context(peer, |ctx| cu!(cuCtxEnablePeerAccess(ctx, 0)))
}}

// cudaDeviceDisablePeerAccess (CUDA Runtime API: Peer Device Memory Access): ends the current
// device's access to `peer`'s memory. Errors: cudaErrorInvalidDevice for an ordinal that
// names no device, cudaErrorPeerAccessNotEnabled when access was never enabled (always for a
// device the current one cannot access, hence always on ptxjit's one device).
exports! { cudaDeviceDisablePeerAccess => fn(peer: c_int) {
    let peer = device_handle(peer)?;
    crate::state::context()?;
    if !current_can_access(peer)? {
        return Err(Fail::new(
            cudaErrorPeerAccessNotEnabled,
            format!("access to device {peer}'s memory was never enabled (cudaDeviceCanAccessPeer is 0: a device is not its own peer)"),
        ));
    }
    with_primary_context(peer, |ctx| cu!(cuCtxDisablePeerAccess(ctx)))
}}

// cudaChooseDevice: the one device matches any wish.
exports! { cudaChooseDevice => fn(dev: *mut c_int, _prop: *const c_void) {
    let mut n = 0;
    cu!(cuDeviceGetCount(&mut n))?;
    if n == 0 {
        return Err(Fail::new(cudaErrorNoDevice, "no device"));
    }
    unsafe { crate::out(dev, 0) }
}}

/// One field of `struct cudaDeviceProp`, in header order, and where its value comes from.
/// The layout follows from the list by C's rules (each field at its own alignment: 1 for
/// bytes, 4 for ints, 8 for `size_t`; the struct padded to 8).
#[derive(Clone, Copy)]
enum F {
    /// `char name[256]`.
    Name,
    /// `cudaUUID_t uuid` (16 bytes).
    Uuid,
    /// `char` bytes left zero (`luid`).
    Bytes(usize),
    /// An `int` (or `unsigned int`) from a `cudaDevAttr`; 0 is a field no attribute gives,
    /// left zero.
    Int(c_int),
    /// `int name[N]` from N attributes.
    Ints(&'static [c_int]),
    /// A `size_t` from a `cudaDevAttr`.
    Size(c_int),
    /// `size_t totalGlobalMem`.
    TotalMem,
    /// `int reserved[N]`, zero.
    Reserved(usize),
}

use F::*;

/// `struct cudaDeviceProp` of CUDA 13 (driver_types.h of 13.5: 1008 bytes), what
/// `cudaGetDeviceProperties` fills.
const PROP_13: &[F] = &[
    Name,
    Uuid,
    Bytes(8),
    Int(0),
    TotalMem,
    Size(8),          // sharedMemPerBlock
    Int(12),          // regsPerBlock
    Int(10),          // warpSize
    Size(11),         // memPitch
    Int(1),           // maxThreadsPerBlock
    Ints(&[2, 3, 4]), // maxThreadsDim
    Ints(&[5, 6, 7]), // maxGridSize
    Size(9),          // totalConstMem
    Int(75),
    Int(76), // major, minor
    Size(14),
    Size(51), // textureAlignment, texturePitchAlignment
    Int(16),  // multiProcessorCount
    Int(18),
    Int(19), // integrated, canMapHostMemory
    Int(21),
    Int(77), // maxTexture1D, maxTexture1DMipmap
    Ints(&[22, 23]),
    Ints(&[73, 74]),
    Ints(&[70, 71, 72]),
    Ints(&[45, 46]),
    Ints(&[24, 25, 26]),
    Ints(&[47, 48, 49]),
    Int(52),
    Ints(&[42, 43]),
    Ints(&[27, 28, 29]),
    Ints(&[53, 54]), // ... maxTextureCubemapLayered
    Int(55),
    Ints(&[56, 57]),
    Ints(&[58, 59, 60]),
    Ints(&[61, 62]),
    Ints(&[63, 64, 65]),
    Int(66),
    Ints(&[67, 68]), // ... maxSurfaceCubemapLayered
    Size(30),        // surfaceAlignment
    Int(31),
    Int(32),
    Int(33),
    Int(34),
    Int(50),
    Int(35),
    Int(40),
    Int(41), // ... unifiedAddressing
    Int(37),
    Int(38),
    Int(108),
    Int(39),
    Int(78),
    Int(79),
    Int(80),  // ... localL1CacheSupported
    Size(81), // sharedMemPerMultiprocessor
    Int(82),
    Int(83),
    Int(84),
    Int(85),
    Int(86),
    Int(88),
    Int(89),
    Int(90),
    Int(91),
    Int(95),
    Size(97), // sharedMemPerBlockOptin
    Int(100),
    Int(101),
    Int(106),
    Int(109),
    Size(111), // reservedSharedMemPerBlock
    Int(99),
    Int(112),
    Int(113),
    Int(114),
    Int(115),
    Int(116),
    Int(117),
    Int(118),
    Int(119),
    Int(121),
    Int(125),
    Int(120),
    Int(0),
    Int(130),
    Int(131),
    Int(133),
    Int(134),
    Int(139),
    Int(140),
    Int(143), // ... hostNumaMultinodeIpcSupported
    Reserved(56),
];

/// `struct cudaDeviceProp` of CUDA 12 (driver_types.h of 12.9: 1032 bytes), what
/// `cudaGetDeviceProperties_v2` fills for programs built with CUDA 12.
const PROP_12: &[F] = &[
    Name,
    Uuid,
    Bytes(8),
    Int(0),
    TotalMem,
    Size(8),
    Int(12),
    Int(10),
    Size(11),
    Int(1),
    Ints(&[2, 3, 4]),
    Ints(&[5, 6, 7]),
    Int(13), // clockRate
    Size(9),
    Int(75),
    Int(76),
    Size(14),
    Size(51),
    Int(15), // deviceOverlap
    Int(16),
    Int(17), // kernelExecTimeoutEnabled
    Int(18),
    Int(19),
    Int(20), // computeMode
    Int(21),
    Int(77),
    Int(69), // maxTexture1DLinear
    Ints(&[22, 23]),
    Ints(&[73, 74]),
    Ints(&[70, 71, 72]),
    Ints(&[45, 46]),
    Ints(&[24, 25, 26]),
    Ints(&[47, 48, 49]),
    Int(52),
    Ints(&[42, 43]),
    Ints(&[27, 28, 29]),
    Ints(&[53, 54]),
    Int(55),
    Ints(&[56, 57]),
    Ints(&[58, 59, 60]),
    Ints(&[61, 62]),
    Ints(&[63, 64, 65]),
    Int(66),
    Ints(&[67, 68]),
    Size(30),
    Int(31),
    Int(32),
    Int(33),
    Int(34),
    Int(50),
    Int(35),
    Int(40),
    Int(41),
    Int(36), // memoryClockRate
    Int(37),
    Int(38),
    Int(108),
    Int(39),
    Int(78),
    Int(79),
    Int(80),
    Size(81),
    Int(82),
    Int(83),
    Int(84),
    Int(85),
    Int(86),
    Int(87), // singleToDoublePrecisionPerfRatio
    Int(88),
    Int(89),
    Int(90),
    Int(91),
    Int(95),
    Int(96), // cooperativeMultiDeviceLaunch
    Size(97),
    Int(100),
    Int(101),
    Int(106),
    Int(109),
    Size(111),
    Int(99),
    Int(112),
    Int(113),
    Int(114),
    Int(115),
    Int(116),
    Int(117),
    Int(118),
    Int(119),
    Int(121),
    Int(125),
    Int(120),
    Int(0), // ... unifiedFunctionPointers
    Reserved(63),
];

/// The byte size of a layout, and each field's offset.
fn layout(fields: &[F]) -> (usize, Vec<usize>) {
    let mut at = 0usize;
    let mut offsets = Vec::with_capacity(fields.len());
    for f in fields {
        let (align, size) = match f {
            Name => (1, 256),
            Uuid => (1, 16),
            Bytes(n) => (1, *n),
            Int(_) => (4, 4),
            Ints(a) => (4, 4 * a.len()),
            Size(_) | TotalMem => (8, 8),
            Reserved(n) => (4, 4 * n),
        };
        at = at.next_multiple_of(align);
        offsets.push(at);
        at += size;
    }
    (at.next_multiple_of(8), offsets)
}

/// Device attribute `a` of device `dev` (`cuDeviceGetAttribute`); one the driver does not
/// know reads as 0.
pub(crate) fn attr(a: c_int, dev: c_int) -> Result<c_int, Fail> {
    if a == 0 {
        return Ok(0);
    }
    let mut v = 0;
    match cu!(cuDeviceGetAttribute(&mut v, a, dev)) {
        Ok(()) => Ok(v),
        // An attribute the driver does not know (a newer or retired one) reads as 0.
        Err(e) if e.code == cudaErrorInvalidValue => Ok(0),
        Err(e) => Err(e),
    }
}

/// Fills a `cudaDeviceProp` of layout `fields` for device `dev` at `prop` from the driver's
/// name, UUID, memory size and attributes.
///
/// # Safety
/// `prop` is null or points to the struct of that layout (the caller's promise).
unsafe fn fill(prop: *mut u8, fields: &[F], dev: c_int) -> RtResult {
    if prop.is_null() {
        return Err(Fail::new(cudaErrorInvalidValue, "null cudaDeviceProp"));
    }
    let (size, offsets) = layout(fields);
    let mut buf = vec![0u8; size];
    for (f, &at) in fields.iter().zip(&offsets) {
        let put_int =
            |buf: &mut [u8], at: usize, v: c_int| buf[at..at + 4].copy_from_slice(&v.to_ne_bytes());
        match *f {
            Name => {
                let mut name = [0 as c_char; 256];
                cu!(cuDeviceGetName(name.as_mut_ptr(), 255, dev))?;
                for (b, c) in buf[at..at + 256].iter_mut().zip(name) {
                    *b = c as u8;
                }
            }
            Uuid => {
                let mut uuid = [0u8; 16];
                cu!(cuDeviceGetUuid_v2(&mut uuid, dev))?;
                buf[at..at + 16].copy_from_slice(&uuid);
            }
            Bytes(_) | Reserved(_) => {}
            Int(a) => put_int(&mut buf, at, attr(a, dev)?),
            Ints(list) => {
                for (i, &a) in list.iter().enumerate() {
                    put_int(&mut buf, at + 4 * i, attr(a, dev)?);
                }
            }
            Size(a) => {
                let v = attr(a, dev)? as usize;
                buf[at..at + 8].copy_from_slice(&v.to_ne_bytes());
            }
            TotalMem => {
                let mut total = 0usize;
                cu!(cuDeviceTotalMem_v2(&mut total, dev))?;
                buf[at..at + 8].copy_from_slice(&total.to_ne_bytes());
            }
        }
    }
    // SAFETY: `prop` holds a struct of this layout, `size` bytes.
    unsafe { std::ptr::copy_nonoverlapping(buf.as_ptr(), prop, size) };
    Ok(())
}

exports! { cudaGetDeviceProperties => fn(prop: *mut c_void, dev: c_int) {
    unsafe { fill(prop.cast(), PROP_13, dev) }
}}

exports! { cudaGetDeviceProperties_v2 => fn(prop: *mut c_void, dev: c_int) {
    unsafe { fill(prop.cast(), PROP_12, dev) }
}}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sizes and offsets as a C compiler lays out `struct cudaDeviceProp` (a C program
    /// printing `sizeof` and `offsetof` with each version's driver_types.h).
    #[test]
    fn layouts_are_nvidias() {
        let (size, at) = layout(PROP_13);
        assert_eq!(size, 1008);
        assert_eq!(at[4], 288, "totalGlobalMem");
        assert_eq!(at[17], 384, "multiProcessorCount");
        assert_eq!(at[PROP_13.len() - 1], 784, "reserved");
        let (size, at) = layout(PROP_12);
        assert_eq!(size, 1032);
        assert_eq!(at[PROP_12.len() - 1], 780, "reserved");
    }
}
