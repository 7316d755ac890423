//! CUDA arrays, channel descriptors, and texture and surface objects (CUDA Runtime API:
//! Memory Management's arrays, Texture Object Management, Surface Object Management),
//! translated onto the driver's `CUarray`, `CUDA_RESOURCE_DESC` and `CUDA_TEXTURE_DESC`.

use crate::errors::*;
use crate::memory::{Memcpy2D, MEM_ARRAY, MEM_UNIFIED};
use crate::state::context;
use crate::{cu, exports, Fail, RtResult};
use std::collections::BTreeMap;
use std::ffi::{c_float, c_int, c_uint, c_void};
use std::sync::Mutex;

/// `struct cudaChannelFormatDesc` (driver_types.h): bits per channel and the kind
/// (`cudaChannelFormatKindSigned` 0, `Unsigned` 1, `Float` 2).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct ChannelFormatDesc {
    pub x: c_int,
    pub y: c_int,
    pub z: c_int,
    pub w: c_int,
    pub f: c_int,
}

#[no_mangle]
pub unsafe extern "C" fn cudaCreateChannelDesc(
    x: c_int,
    y: c_int,
    z: c_int,
    w: c_int,
    f: c_int,
) -> ChannelFormatDesc {
    ChannelFormatDesc { x, y, z, w, f }
}

/// The driver's `CUarray_format` and channel count for a channel descriptor. Errors:
/// `cudaErrorInvalidChannelDescriptor` for channels of different widths or a width/kind the
/// driver has no format for.
fn format(d: &ChannelFormatDesc) -> Result<(c_uint, c_uint), Fail> {
    let bits = [d.x, d.y, d.z, d.w];
    let n = bits.iter().take_while(|&&b| b != 0).count();
    let bad = || Fail::new(cudaErrorInvalidChannelDescriptor, format!("{d:?}"));
    if n == 0 || bits[..n].iter().any(|&b| b != d.x) || bits[n..].iter().any(|&b| b != 0) {
        return Err(bad());
    }
    // CUarray_format (cuda.h).
    let f = match (d.f, d.x) {
        (1, 8) => 0x01,
        (1, 16) => 0x02,
        (1, 32) => 0x03,
        (0, 8) => 0x08,
        (0, 16) => 0x09,
        (0, 32) => 0x0a,
        (2, 16) => 0x10,
        (2, 32) => 0x20,
        _ => return Err(bad()),
    };
    Ok((f, n as c_uint))
}

/// `CUDA_ARRAY3D_DESCRIPTOR` (cuda.h).
#[repr(C)]
#[derive(Default)]
pub struct Array3DDescriptor {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub format: c_uint,
    pub num_channels: c_uint,
    pub flags: c_uint,
}

/// The driver's descriptor of array `a`.
pub fn array_descriptor(a: u64) -> Result<Array3DDescriptor, Fail> {
    let mut d = Array3DDescriptor::default();
    cu!(cuArray3DGetDescriptor_v2(
        (&mut d as *mut Array3DDescriptor).cast(),
        a
    ))?;
    Ok(d)
}

/// The channel descriptor and bytes per element of a driver array format.
pub fn channel_desc(d: &Array3DDescriptor) -> Result<(ChannelFormatDesc, usize), Fail> {
    let (kind, bits) = match d.format {
        0x01 => (1, 8),
        0x02 => (1, 16),
        0x03 => (1, 32),
        0x08 => (0, 8),
        0x09 => (0, 16),
        0x0a => (0, 32),
        0x10 => (2, 16),
        0x20 => (2, 32),
        f => {
            return Err(Fail::new(
                cudaErrorInvalidChannelDescriptor,
                format!("CUarray_format {f:#x}"),
            ))
        }
    };
    let n = d.num_channels as usize;
    let ch = |i: usize| if i < n { bits } else { 0 };
    let desc = ChannelFormatDesc {
        x: ch(0),
        y: ch(1),
        z: ch(2),
        w: ch(3),
        f: kind,
    };
    Ok((desc, n * bits as usize / 8))
}

exports! { cudaGetChannelDesc => fn(desc: *mut ChannelFormatDesc, a: u64) {
    context()?;
    let (c, _) = channel_desc(&array_descriptor(a)?)?;
    unsafe { crate::out(desc, c) }
}}

exports! { cudaArrayGetInfo => fn(desc: *mut ChannelFormatDesc, extent: *mut Extent, flags: *mut c_uint, a: u64) {
    context()?;
    let d = array_descriptor(a)?;
    let (c, _) = channel_desc(&d)?;
    unsafe {
        if !desc.is_null() {
            crate::out(desc, c)?;
        }
        if !extent.is_null() {
            crate::out(extent, Extent { width: d.width, height: d.height, depth: d.depth })?;
        }
        if !flags.is_null() {
            crate::out(flags, d.flags)?;
        }
    }
    Ok(())
}}

fn make_array(
    a: *mut u64,
    desc: *const ChannelFormatDesc,
    w: usize,
    h: usize,
    depth: usize,
    flags: c_uint,
) -> crate::RtResult {
    context()?;
    if desc.is_null() {
        return Err(Fail::new(cudaErrorInvalidValue, "null channel descriptor"));
    }
    // NVIDIA's runtime writes NULL to `*array` before it checks the rest, so a failed call
    // (a bad descriptor, an empty extent, no memory) leaves NULL there, which `cudaFreeArray`
    // accepts.
    if !a.is_null() {
        // SAFETY: non-null, the program's output pointer.
        unsafe { a.write_unaligned(0) };
    }
    // SAFETY: non-null, the program's descriptor.
    let (format, num_channels) = format(unsafe { &*desc })?;
    // cudaArraySurfaceLoadStore (2), cudaArrayLayered (1), cudaArrayTextureGather (8) are the
    // driver's CUDA_ARRAY3D_* flags.
    let d = Array3DDescriptor {
        width: w,
        height: h,
        depth,
        format,
        num_channels,
        flags,
    };
    cu!(cuArray3DCreate_v2(
        a,
        (&d as *const Array3DDescriptor).cast()
    ))
}

exports! { cudaMallocArray => fn(a: *mut u64, desc: *const ChannelFormatDesc, w: usize, h: usize, flags: c_uint) {
    make_array(a, desc, w, h, 0, flags)
}}

/// `struct cudaExtent`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Extent {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
}

exports! { cudaMalloc3DArray => fn(a: *mut u64, desc: *const ChannelFormatDesc, e: Extent, flags: c_uint) {
    make_array(a, desc, e.width, e.height, e.depth, flags)
}}

exports! { cudaFreeArray => fn(a: u64) {
    context()?;
    if a == 0 {
        return Ok(());
    }
    cu!(cuArrayDestroy(a))
}}

exports! { cudaMemcpy2DToArray, cudaMemcpy2DToArray_ptds => fn(dst: u64, w_off: usize, h_off: usize, src: *const c_void, spitch: usize, width: usize, height: usize, _kind: c_int) {
    to_array(dst, w_off, h_off, src, spitch, width, height, None)
}}

exports! { cudaMemcpy2DToArrayAsync, cudaMemcpy2DToArrayAsync_ptsz => fn(dst: u64, w_off: usize, h_off: usize, src: *const c_void, spitch: usize, width: usize, height: usize, _kind: c_int, stream: u64) {
    to_array(dst, w_off, h_off, src, spitch, width, height, Some(stream))
}}

/// A 2D copy from linear memory into array `dst` at (`w_off` bytes, `h_off` rows), now or in
/// `stream`'s order.
#[allow(clippy::too_many_arguments)]
fn to_array(
    dst: u64,
    w_off: usize,
    h_off: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    stream: Option<u64>,
) -> RtResult {
    context()?;
    crate::memory::check_pitch(width, Some(spitch), None)?;
    let m = Memcpy2D {
        src_memory_type: MEM_UNIFIED,
        src_host: src as usize,
        src_device: src as u64,
        src_pitch: spitch,
        dst_memory_type: MEM_ARRAY,
        dst_array: dst,
        dst_x_in_bytes: w_off,
        dst_y: h_off,
        width_in_bytes: width,
        height,
        ..Default::default()
    };
    crate::memory::memcpy_2d(&m, stream)
}

exports! { cudaMemcpy2DFromArray, cudaMemcpy2DFromArray_ptds => fn(dst: *mut c_void, dpitch: usize, src: u64, w_off: usize, h_off: usize, width: usize, height: usize, _kind: c_int) {
    from_array(dst, dpitch, src, w_off, h_off, width, height, None)
}}

exports! { cudaMemcpy2DFromArrayAsync, cudaMemcpy2DFromArrayAsync_ptsz => fn(dst: *mut c_void, dpitch: usize, src: u64, w_off: usize, h_off: usize, width: usize, height: usize, _kind: c_int, stream: u64) {
    from_array(dst, dpitch, src, w_off, h_off, width, height, Some(stream))
}}

/// A 2D copy from array `src` at (`w_off` bytes, `h_off` rows) into linear memory, now or in
/// `stream`'s order.
#[allow(clippy::too_many_arguments)]
fn from_array(
    dst: *mut c_void,
    dpitch: usize,
    src: u64,
    w_off: usize,
    h_off: usize,
    width: usize,
    height: usize,
    stream: Option<u64>,
) -> RtResult {
    context()?;
    crate::memory::check_pitch(width, None, Some(dpitch))?;
    let m = Memcpy2D {
        src_memory_type: MEM_ARRAY,
        src_array: src,
        src_x_in_bytes: w_off,
        src_y: h_off,
        dst_memory_type: MEM_UNIFIED,
        dst_host: dst as usize,
        dst_device: dst as u64,
        dst_pitch: dpitch,
        width_in_bytes: width,
        height,
        ..Default::default()
    };
    crate::memory::memcpy_2d(&m, stream)
}

/// `struct cudaResourceDesc` (driver_types.h): a type and a union, whose members the
/// accessors below read (CUDA 13: 144 bytes, the union at offset 8).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ResourceDesc {
    pub res_type: c_int,
    pad: c_int,
    pub res: [u64; 16],
    pub flags: c_uint,
    pad2: c_uint,
}

/// `CUDA_RESOURCE_DESC` (cuda.h): type, a 128-byte union, flags.
#[repr(C)]
struct DrvResourceDesc {
    res_type: c_uint,
    pad: c_uint,
    res: [u64; 16],
    flags: c_uint,
    pad2: c_uint,
}

/// `struct cudaTextureDesc` (driver_types.h).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TextureDesc {
    pub address_mode: [c_int; 3],
    pub filter_mode: c_int,
    pub read_mode: c_int,
    pub srgb: c_int,
    pub border_color: [c_float; 4],
    pub normalized_coords: c_int,
    pub max_anisotropy: c_uint,
    pub mipmap_filter_mode: c_int,
    pub mipmap_level_bias: c_float,
    pub min_mipmap_level_clamp: c_float,
    pub max_mipmap_level_clamp: c_float,
    pub disable_trilinear_optimization: c_int,
    pub seamless_cubemap: c_int,
}

/// `CUDA_TEXTURE_DESC` (cuda.h).
#[repr(C)]
struct DrvTextureDesc {
    address_mode: [c_int; 3],
    filter_mode: c_int,
    flags: c_uint,
    max_anisotropy: c_uint,
    mipmap_filter_mode: c_int,
    mipmap_level_bias: c_float,
    min_mipmap_level_clamp: c_float,
    max_mipmap_level_clamp: c_float,
    border_color: [c_float; 4],
    reserved: [c_int; 12],
}

/// The driver's resource descriptor for the runtime's. The union's members: array
/// `{cudaArray_t}`; linear `{devPtr, cudaChannelFormatDesc (20 bytes), sizeInBytes}`;
/// pitch2D `{devPtr, desc, width, height, pitchInBytes}` become the driver's
/// `{devPtr, format, numChannels, ...}`.
fn resource(r: &ResourceDesc) -> Result<DrvResourceDesc, Fail> {
    let mut d = DrvResourceDesc {
        res_type: r.res_type as c_uint,
        pad: 0,
        res: [0; 16],
        flags: 0,
        pad2: 0,
    };
    let desc_at = |i: usize| {
        // The channel descriptor: 20 bytes from u64 slot i.
        let b: Vec<u8> = r.res[i..i + 3]
            .iter()
            .flat_map(|w| w.to_ne_bytes())
            .collect();
        let int = |k: usize| c_int::from_ne_bytes([b[k], b[k + 1], b[k + 2], b[k + 3]]);
        ChannelFormatDesc {
            x: int(0),
            y: int(4),
            z: int(8),
            w: int(12),
            f: int(16),
        }
    };
    match r.res_type {
        // Array, mipmapped array: the handle.
        0 | 1 => d.res[0] = r.res[0],
        // Linear: devPtr, desc (slots 1-3), sizeInBytes (slot 4).
        2 => {
            let (f, n) = format(&desc_at(1))?;
            d.res[0] = r.res[0];
            d.res[1] = f as u64 | (n as u64) << 32;
            d.res[2] = r.res[4];
        }
        // Pitch 2D: devPtr, desc, width, height, pitchInBytes (slots 4-6).
        3 => {
            let (f, n) = format(&desc_at(1))?;
            d.res[0] = r.res[0];
            d.res[1] = f as u64 | (n as u64) << 32;
            d.res[2] = r.res[4];
            d.res[3] = r.res[5];
            d.res[4] = r.res[6];
        }
        t => {
            return Err(Fail::new(
                cudaErrorInvalidValue,
                format!("cudaResourceType {t}"),
            ))
        }
    }
    Ok(d)
}

/// The runtime descriptors each texture (with its `TextureDesc`) or surface object was created
/// with, by handle, for the `cudaGet*Object*Desc` calls. The driver's handles carry a
/// generation, so a destroyed object's handle is not reused.
static OBJECTS: Mutex<BTreeMap<u64, (ResourceDesc, Option<TextureDesc>)>> =
    Mutex::new(BTreeMap::new());

fn objects() -> std::sync::MutexGuard<'static, BTreeMap<u64, (ResourceDesc, Option<TextureDesc>)>> {
    OBJECTS.lock().unwrap_or_else(|e| e.into_inner())
}

exports! { cudaCreateTextureObject => fn(obj: *mut u64, res: *const ResourceDesc, tex: *const TextureDesc, view: *const c_void) {
    context()?;
    if res.is_null() || tex.is_null() {
        return Err(Fail::new(cudaErrorInvalidValue, "null resource or texture descriptor"));
    }
    if !view.is_null() {
        return Err(Fail::new(cudaErrorNotSupported, "resource views are not supported by ptxjit"));
    }
    if obj.is_null() {
        return Err(Fail::new(cudaErrorInvalidValue, "null texture object pointer"));
    }
    // SAFETY: non-null, the program's descriptors.
    let (r, t) = unsafe { (&*res, &*tex) };
    let d = resource(r)?;
    // CU_TRSF_READ_AS_INTEGER 1 (cudaReadModeElementType), NORMALIZED_COORDINATES 2,
    // SRGB 0x10, DISABLE_TRILINEAR_OPTIMIZATION 0x20, SEAMLESS_CUBEMAP 0x40.
    let flags = (t.read_mode == 0) as c_uint
        | ((t.normalized_coords != 0) as c_uint) << 1
        | ((t.srgb != 0) as c_uint) << 4
        | ((t.disable_trilinear_optimization != 0) as c_uint) << 5
        | ((t.seamless_cubemap != 0) as c_uint) << 6;
    let dt = DrvTextureDesc {
        address_mode: t.address_mode,
        filter_mode: t.filter_mode,
        flags,
        max_anisotropy: t.max_anisotropy,
        mipmap_filter_mode: t.mipmap_filter_mode,
        mipmap_level_bias: t.mipmap_level_bias,
        min_mipmap_level_clamp: t.min_mipmap_level_clamp,
        max_mipmap_level_clamp: t.max_mipmap_level_clamp,
        border_color: t.border_color,
        reserved: [0; 12],
    };
    cu!(cuTexObjectCreate(obj, (&d as *const DrvResourceDesc).cast(), (&dt as *const DrvTextureDesc).cast(), std::ptr::null()))?;
    // SAFETY: non-null, and the driver wrote the handle.
    objects().insert(unsafe { *obj }, (*r, Some(*t)));
    Ok(())
}}

exports! { cudaDestroyTextureObject => fn(obj: u64) {
    context()?;
    cu!(cuTexObjectDestroy(obj))?;
    objects().remove(&obj);
    Ok(())
}}

exports! { cudaCreateSurfaceObject => fn(obj: *mut u64, res: *const ResourceDesc) {
    context()?;
    if res.is_null() || obj.is_null() {
        return Err(Fail::new(cudaErrorInvalidValue, "null resource descriptor or surface object pointer"));
    }
    // SAFETY: non-null, the program's descriptor.
    let r = unsafe { &*res };
    let d = resource(r)?;
    cu!(cuSurfObjectCreate(obj, (&d as *const DrvResourceDesc).cast()))?;
    // SAFETY: non-null, and the driver wrote the handle.
    objects().insert(unsafe { *obj }, (*r, None));
    Ok(())
}}

exports! { cudaDestroySurfaceObject => fn(obj: u64) {
    context()?;
    cu!(cuSurfObjectDestroy(obj))?;
    objects().remove(&obj);
    Ok(())
}}

/// The runtime descriptors of `obj`, a live texture object (`texture`) or surface object
/// created through this runtime; `cudaErrorInvalidValue` for any other handle (one destroyed,
/// one of the other kind, or one the program made with the driver API, whose descriptors
/// are the driver's).
fn object(obj: u64, texture: bool) -> Result<(ResourceDesc, Option<TextureDesc>), Fail> {
    let what = if texture { "texture" } else { "surface" };
    match objects().get(&obj) {
        Some(&(r, t)) if t.is_some() == texture => Ok((r, t)),
        _ => Err(Fail::new(
            cudaErrorInvalidValue,
            format!("{obj:#x} is not a live {what} object of this runtime"),
        )),
    }
}

/// Writes `value` to the program's `p`: `cudaErrorInvalidValue` for a null pointer.
fn write_out<T>(p: *mut T, value: T) -> RtResult {
    if p.is_null() {
        return Err(Fail::new(cudaErrorInvalidValue, "null output pointer"));
    }
    // SAFETY: non-null, the program's output by the API's contract.
    unsafe { p.write_unaligned(value) };
    Ok(())
}

exports! { cudaGetTextureObjectResourceDesc => fn(p: *mut ResourceDesc, obj: u64) {
    context()?;
    write_out(p, object(obj, true)?.0)
}}

exports! { cudaGetTextureObjectTextureDesc => fn(p: *mut TextureDesc, obj: u64) {
    context()?;
    let Some(t) = object(obj, true)?.1 else {
        return Err(Fail::new(cudaErrorInvalidValue, "not a texture object"));
    };
    write_out(p, t)
}}

// ptxjit refuses resource views at creation, so no texture object has one: the documented
// answer for an object created without a view is cudaErrorInvalidValue.
exports! { cudaGetTextureObjectResourceViewDesc => fn(_p: *mut c_void, obj: u64) {
    context()?;
    object(obj, true)?;
    Err(Fail::new(
        cudaErrorInvalidValue,
        format!("texture object {obj:#x} was created without a resource view"),
    ))
}}

exports! { cudaGetSurfaceObjectResourceDesc => fn(p: *mut ResourceDesc, obj: u64) {
    context()?;
    write_out(p, object(obj, false)?.0)
}}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::size_of;

    /// Sizes as a C compiler lays out CUDA 13.5's structs (driver_types.h, `sizeof`).
    #[test]
    fn layouts_are_cuda_13s() {
        assert_eq!(size_of::<ResourceDesc>(), 144);
        assert_eq!(size_of::<TextureDesc>(), 72);
        assert_eq!(size_of::<ChannelFormatDesc>(), 20);
    }
}
