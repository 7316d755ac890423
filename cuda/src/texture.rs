//! CUDA arrays, 2D/3D copies, texture and surface objects (CUDA driver API: Memory Management's
//! arrays and `cuMemcpy2D`/`3D`, Texture Object Management, Surface Object Management).
//!
//! An array is device memory laid out densely (rows of `width × texel` bytes, then rows of the
//! next slice: depth, layer or cube face), described by a [`ptxjit::runtime::texture::ResourceDesc`];
//! texture and surface objects are the runtime's handles over such resources (or over linear
//! and pitched device memory), so kernels' `tex`/`suld`/`sust` read them as on a GPU.

use crate::device::{MAX_TEXTURE2D_LINEAR_PITCH, TEXTURE_ALIGNMENT, TEXTURE_PITCH_ALIGNMENT};
use crate::errors::*;
use crate::exports;
use crate::memory::device_range;
use crate::module::Check;
use crate::state::{with_context, Driver, Kind};
use crate::{out, DrvResult, Fail};
use ptxjit::host::DevicePtr;
use ptxjit::runtime::texture::{
    AddressMode, ChannelFormat, ChannelType, FilterMode, ReadMode, ResourceDesc, ResourceKind,
    TextureDesc,
};
use std::ffi::{c_uint, c_void};

/// A CUDA array (`CUarray`).
pub struct ArrayState {
    pub desc: ResourceDesc,
    /// `CUarray_format` and channel count, as created.
    pub format: c_uint,
    pub channels: c_uint,
    /// `CUDA_ARRAY3D_*` flags.
    pub flags: c_uint,
    /// The extents as the program gave them (0 for absent dimensions).
    pub extent: [usize; 3],
}

impl ArrayState {
    /// (row bytes, rows per slice, slices) of the dense layout.
    fn shape(&self) -> (u64, u64, u64) {
        let d = &self.desc;
        let row = d.width as u64 * d.format.texel_bytes() as u64;
        let slices = match d.kind {
            ResourceKind::D3 => d.depth,
            ResourceKind::D1Layered | ResourceKind::D2Layered => d.layers,
            ResourceKind::Cube => 6,
            ResourceKind::CubeLayered => 6 * d.layers,
            ResourceKind::Linear | ResourceKind::D1 | ResourceKind::D2 => 1,
        };
        (row, d.height as u64, slices as u64)
    }
}

/// `CUDA_ARRAY3D_*` flags.
const ARRAY3D_LAYERED: c_uint = 0x01;
const ARRAY3D_SURFACE_LDST: c_uint = 0x02;
const ARRAY3D_CUBEMAP: c_uint = 0x04;
const ARRAY3D_TEXTURE_GATHER: c_uint = 0x08;

/// The channel type of a `CUarray_format`.
fn channel_type(format: c_uint) -> Result<ChannelType, Fail> {
    Ok(match format {
        0x01 => ChannelType::U8,
        0x02 => ChannelType::U16,
        0x03 => ChannelType::U32,
        0x08 => ChannelType::S8,
        0x09 => ChannelType::S16,
        0x0a => ChannelType::S32,
        0x10 => ChannelType::F16,
        0x20 => ChannelType::F32,
        other => {
            return Err(Fail::new(
                CUDA_ERROR_NOT_SUPPORTED,
                format!("array format {other:#x} is not supported by ptxjit (8/16/32-bit integers, half and float are)"),
            ))
        }
    })
}

fn channel_format(format: c_uint, channels: c_uint) -> Result<ChannelFormat, Fail> {
    if ![1, 2, 4].contains(&channels) {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{channels} channels: arrays have 1, 2 or 4"),
        ));
    }
    Ok(ChannelFormat {
        ty: channel_type(format)?,
        channels,
    })
}

/// `CUDA_ARRAY_DESCRIPTOR`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ArrayDescriptor {
    pub width: usize,
    pub height: usize,
    pub format: c_uint,
    pub channels: c_uint,
}

/// `CUDA_ARRAY3D_DESCRIPTOR`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Array3dDescriptor {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub format: c_uint,
    pub channels: c_uint,
    pub flags: c_uint,
}

fn create_array(d: &mut Driver, a: Array3dDescriptor) -> Result<u64, Fail> {
    let format = channel_format(a.format, a.channels)?;
    let known = ARRAY3D_LAYERED | ARRAY3D_SURFACE_LDST | ARRAY3D_CUBEMAP | ARRAY3D_TEXTURE_GATHER;
    if a.flags & !known != 0 {
        return Err(Fail::new(
            CUDA_ERROR_NOT_SUPPORTED,
            format!(
                "array flags {:#x} are not supported by ptxjit",
                a.flags & !known
            ),
        ));
    }
    let dim = |v: usize| {
        u32::try_from(v).map_err(|_| Fail::new(CUDA_ERROR_INVALID_VALUE, "array extent too large"))
    };
    let (w, h, dep) = (dim(a.width)?, dim(a.height)?, dim(a.depth)?);
    let layered = a.flags & ARRAY3D_LAYERED != 0;
    let cube = a.flags & ARRAY3D_CUBEMAP != 0;
    let (kind, dims, layers) = match (cube, layered, h, dep) {
        (true, false, _, 6) => (ResourceKind::Cube, [w, h, 1], 1),
        (true, true, _, n) if n > 0 && n % 6 == 0 => (ResourceKind::CubeLayered, [w, h, 1], n / 6),
        (true, ..) => {
            return Err(Fail::new(
                CUDA_ERROR_INVALID_VALUE,
                "a cube map array has depth 6 (layered: a multiple of 6)",
            ))
        }
        (false, true, 0, n) => (ResourceKind::D1Layered, [w, 1, 1], n),
        (false, true, h, n) => (ResourceKind::D2Layered, [w, h, 1], n),
        (false, false, 0, 0) => (ResourceKind::D1, [w, 1, 1], 1),
        (false, false, 0, _) => {
            return Err(Fail::new(
                CUDA_ERROR_INVALID_VALUE,
                "a 3D array needs a height",
            ))
        }
        (false, false, h, 0) => (ResourceKind::D2, [w, h, 1], 1),
        (false, false, h, dd) => (ResourceKind::D3, [w, h, dd], 1),
    };
    if w == 0 || layers == 0 {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            "array width and layer count must be at least 1",
        ));
    }
    let desc = d
        .host
        .alloc_array(kind, format, dims, layers, 1, Some("CUDA array"))
        .map_err(crate::host_fail)?;
    let h = d.handle(Kind::Array);
    d.arrays.insert(
        h,
        ArrayState {
            desc,
            format: a.format,
            channels: a.channels,
            flags: a.flags,
            extent: [a.width, a.height, a.depth],
        },
    );
    Ok(h)
}

fn array(d: &Driver, a: u64) -> Result<&ArrayState, Fail> {
    d.arrays.get(&a).ok_or_else(|| {
        Fail::new(
            CUDA_ERROR_INVALID_HANDLE,
            format!("{a:#x} is not a live CUarray"),
        )
    })
}

exports! { cuArrayCreate_v2 => fn(pa: *mut u64, desc: *const ArrayDescriptor) {
    if desc.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null array descriptor"));
    }
    // SAFETY: a descriptor by the API's contract.
    let a = unsafe { desc.read_unaligned() };
    let h = with_context(|d| create_array(d, Array3dDescriptor { width: a.width, height: a.height, depth: 0, format: a.format, channels: a.channels, flags: 0 }))?;
    unsafe { out(pa, h) }
}}

exports! { cuArray3DCreate_v2 => fn(pa: *mut u64, desc: *const Array3dDescriptor) {
    if desc.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null array descriptor"));
    }
    // SAFETY: a descriptor by the API's contract.
    let a = unsafe { desc.read_unaligned() };
    let h = with_context(|d| create_array(d, a))?;
    unsafe { out(pa, h) }
}}

exports! { cuArrayDestroy => fn(a: u64) {
    with_context(|d| {
        let st = d.arrays.remove(&a).ok_or_else(|| Fail::new(CUDA_ERROR_INVALID_HANDLE, format!("{a:#x} is not a live CUarray")))?;
        d.host.free(st.desc.ptr).map_err(crate::host_fail)
    })
}}

exports! { cuArrayGetDescriptor_v2 => fn(desc: *mut ArrayDescriptor, a: u64) {
    let v = with_context(|d| {
        let st = array(d, a)?;
        Ok(ArrayDescriptor { width: st.extent[0], height: st.extent[1], format: st.format, channels: st.channels })
    })?;
    unsafe { out(desc, v) }
}}

exports! { cuArray3DGetDescriptor_v2 => fn(desc: *mut Array3dDescriptor, a: u64) {
    let v = with_context(|d| {
        let st = array(d, a)?;
        Ok(Array3dDescriptor { width: st.extent[0], height: st.extent[1], depth: st.extent[2], format: st.format, channels: st.channels, flags: st.flags })
    })?;
    unsafe { out(desc, v) }
}}

/// One side of a 2D/3D copy: where byte (x, y, z) of the copied box is.
#[derive(Clone, Copy)]
enum Side {
    /// Host memory: base, pitch, rows per slice.
    Host(u64, u64, u64),
    /// Device memory: base, pitch, rows per slice.
    Device(u64, u64, u64),
}

/// `CUmemorytype`.
const MEM_HOST: c_uint = 1;
const MEM_DEVICE: c_uint = 2;
const MEM_ARRAY: c_uint = 3;
const MEM_UNIFIED: c_uint = 4;

/// Resolves one side of a copy: (memory type, host, device, array, pitch, height) at
/// offset (x bytes, y, z), for a box of `extent` (width in bytes, height, depth). Errors
/// (`CUDA_ERROR_INVALID_VALUE`, nothing copied), as the driver's: a row wider than a linear
/// side's pitch (more than one row), slices of more rows than a linear side's height (`depth` > 1), a box
/// outside an array.
#[allow(clippy::too_many_arguments)]
fn side(
    d: &Driver,
    what: &str,
    kind: c_uint,
    host: u64,
    dev: u64,
    arr: u64,
    pitch: usize,
    height: usize,
    (x, y, z): (usize, usize, usize),
    (width, rows_n, depth): (usize, usize, usize),
) -> Result<Side, Fail> {
    let start =
        |base: u64, pitch: u64, rows: u64| base + x as u64 + (y as u64 + z as u64 * rows) * pitch;
    let linear = || -> Result<(), Fail> {
        // The pitch steps from row to row: a box of one row does not use it.
        if width > pitch && (rows_n > 1 || depth > 1) {
            return Err(Fail::new(
                CUDA_ERROR_INVALID_VALUE,
                format!("WidthInBytes {width} exceeds the {what} pitch {pitch}"),
            ));
        }
        if depth > 1 && rows_n > height {
            return Err(Fail::new(
                CUDA_ERROR_INVALID_VALUE,
                format!("Height {rows_n} exceeds the {what} height {height} (rows per slice)"),
            ));
        }
        Ok(())
    };
    // The end of the box's last row past a linear side's `base`, which must not pass the end
    // of the address space (a huge position or pitch would wrap around to another address).
    let box_end = |base: u64| -> Result<(), Fail> {
        let (pitch, rows) = (pitch as u64, height as u64);
        let last_row = (y as u64).checked_add((rows_n as u64).saturating_sub(1));
        let last_slice = (z as u64).checked_add((depth as u64).saturating_sub(1));
        let end = last_slice
            .and_then(|s| s.checked_mul(rows))
            .zip(last_row)
            .and_then(|(s, r)| s.checked_add(r))
            .and_then(|r| r.checked_mul(pitch))
            .and_then(|o| o.checked_add(x as u64))
            .and_then(|o| o.checked_add(width as u64))
            .and_then(|o| base.checked_add(o));
        match end {
            Some(_) => Ok(()),
            None => Err(Fail::new(
                CUDA_ERROR_INVALID_VALUE,
                format!(
                    "the {what} box ({width} bytes x {rows_n} rows x {depth} slices at byte {x}, \
                     row {y}, slice {z}, pitch {pitch}, {height} rows per slice) from {base:#x} \
                     passes the end of the address space"
                ),
            )),
        }
    };
    match kind {
        MEM_HOST => {
            linear()?;
            box_end(host)?;
            Ok(Side::Host(
                start(host, pitch as u64, height as u64),
                pitch as u64,
                height as u64,
            ))
        }
        MEM_DEVICE => {
            linear()?;
            box_end(dev)?;
            Ok(Side::Device(
                start(dev, pitch as u64, height as u64),
                pitch as u64,
                height as u64,
            ))
        }
        MEM_UNIFIED => {
            linear()?;
            box_end(dev)?;
            let p = start(dev, pitch as u64, height as u64);
            // Device memory when the pointer or the box's start is in the device's address
            // range, whose rows must then be in allocations: a box starting past the end of
            // its allocation is an error, not host memory to write.
            if crate::memory::in_arena(d, dev) || crate::memory::in_arena(d, p) {
                Ok(Side::Device(p, pitch as u64, height as u64))
            } else {
                Ok(Side::Host(p, pitch as u64, height as u64))
            }
        }
        MEM_ARRAY => {
            let a = array(d, arr)?;
            let (row, rows, slices) = a.shape();
            let fits = |off: usize, n: usize, limit: u64| {
                (off as u64)
                    .checked_add(n as u64)
                    .is_some_and(|e| e <= limit)
            };
            if !(fits(x, width, row) && fits(y, rows_n, rows) && fits(z, depth, slices)) {
                return Err(Fail::new(
                    CUDA_ERROR_INVALID_VALUE,
                    format!(
                        "the {what} box ({width} bytes x {rows_n} rows x {depth} slices at \
                         byte {x}, row {y}, slice {z}) is outside the array ({row} bytes x \
                         {rows} rows x {slices} slices)"
                    ),
                ));
            }
            Ok(Side::Device(start(a.desc.ptr.0, row, rows), row, rows))
        }
        other => Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("unknown memory type {other}"),
        )),
    }
}

/// Copies a box of `width` bytes × `height` rows × `depth` slices.
fn copy_box(
    d: &Driver,
    src: Side,
    dst: Side,
    width: usize,
    height: usize,
    depth: usize,
) -> DrvResult {
    let at = |s: Side, y: u64, z: u64| -> Result<*mut u8, Fail> {
        let (base, pitch, rows, dev) = match s {
            Side::Host(b, p, r) => (b, p, r, false),
            Side::Device(b, p, r) => (b, p, r, true),
        };
        let p = base + y * pitch + z * rows * pitch;
        if dev {
            device_range(d, p, width as u64)
        } else if p == 0 {
            Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null host pointer"))
        } else {
            Ok(p as *mut u8)
        }
    };
    for z in 0..depth as u64 {
        for y in 0..height as u64 {
            let (s, t) = (at(src, y, z)?, at(dst, y, z)?);
            // SAFETY: device rows were checked; host rows are the program's promise.
            unsafe { std::ptr::copy(s, t, width) };
            crate::memory::written(d, t, width as u64);
        }
    }
    Ok(())
}

/// `CUDA_MEMCPY2D`.
#[repr(C)]
pub struct Memcpy2d {
    pub src_x: usize,
    pub src_y: usize,
    pub src_type: c_uint,
    pub src_host: *const c_void,
    pub src_device: u64,
    pub src_array: u64,
    pub src_pitch: usize,
    pub dst_x: usize,
    pub dst_y: usize,
    pub dst_type: c_uint,
    pub dst_host: *mut c_void,
    pub dst_device: u64,
    pub dst_array: u64,
    pub dst_pitch: usize,
    pub width: usize,
    pub height: usize,
}

pub(crate) fn memcpy2d(p: *const Memcpy2d) -> DrvResult {
    if p.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null copy descriptor"));
    }
    // SAFETY: a descriptor by the API's contract.
    let c = unsafe { &*p };
    with_context(|d| {
        let extent = (c.width, c.height, 1);
        let src = side(
            d,
            "source",
            c.src_type,
            c.src_host as u64,
            c.src_device,
            c.src_array,
            c.src_pitch,
            0,
            (c.src_x, c.src_y, 0),
            extent,
        )?;
        let dst = side(
            d,
            "destination",
            c.dst_type,
            c.dst_host as u64,
            c.dst_device,
            c.dst_array,
            c.dst_pitch,
            0,
            (c.dst_x, c.dst_y, 0),
            extent,
        )?;
        copy_box(d, src, dst, c.width, c.height, 1)
    })
}

exports! { cuMemcpy2D_v2, cuMemcpy2D_v2_ptds, cuMemcpy2DUnaligned_v2, cuMemcpy2DUnaligned_v2_ptds => fn(p: *const Memcpy2d) { crate::memory::sync_call("cuMemcpy2D")?; memcpy2d(p) }}

exports! { cuMemcpy2DAsync_v2, cuMemcpy2DAsync_v2_ptsz => fn(p: *const Memcpy2d, s: u64) {
    let words = unsafe { crate::graph::descriptor_words(p)? };
    crate::graph::enqueue(s, crate::graph::Op::Copy2d(words))
}}

/// `CUDA_MEMCPY3D`.
#[repr(C)]
pub struct Memcpy3d {
    pub src_x: usize,
    pub src_y: usize,
    pub src_z: usize,
    pub src_lod: usize,
    pub src_type: c_uint,
    pub src_host: *const c_void,
    pub src_device: u64,
    pub src_array: u64,
    pub reserved0: *mut c_void,
    pub src_pitch: usize,
    pub src_height: usize,
    pub dst_x: usize,
    pub dst_y: usize,
    pub dst_z: usize,
    pub dst_lod: usize,
    pub dst_type: c_uint,
    pub dst_host: *mut c_void,
    pub dst_device: u64,
    pub dst_array: u64,
    pub reserved1: *mut c_void,
    pub dst_pitch: usize,
    pub dst_height: usize,
    pub width: usize,
    pub height: usize,
    pub depth: usize,
}

pub(crate) fn memcpy3d(p: *const Memcpy3d) -> DrvResult {
    if p.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null copy descriptor"));
    }
    // SAFETY: a descriptor by the API's contract.
    let c = unsafe { &*p };
    if c.src_lod != 0 || c.dst_lod != 0 {
        return Err(Fail::new(
            CUDA_ERROR_NOT_SUPPORTED,
            "copies to mipmap levels other than 0 are not supported by ptxjit",
        ));
    }
    with_context(|d| {
        let extent = (c.width, c.height.max(1), c.depth.max(1));
        let src = side(
            d,
            "source",
            c.src_type,
            c.src_host as u64,
            c.src_device,
            c.src_array,
            c.src_pitch,
            c.src_height,
            (c.src_x, c.src_y, c.src_z),
            extent,
        )?;
        let dst = side(
            d,
            "destination",
            c.dst_type,
            c.dst_host as u64,
            c.dst_device,
            c.dst_array,
            c.dst_pitch,
            c.dst_height,
            (c.dst_x, c.dst_y, c.dst_z),
            extent,
        )?;
        copy_box(d, src, dst, extent.0, extent.1, extent.2)
    })
}

exports! { cuMemcpy3D_v2, cuMemcpy3D_v2_ptds => fn(p: *const Memcpy3d) { crate::memory::sync_call("cuMemcpy3D")?; memcpy3d(p) }}

exports! { cuMemcpy3DAsync_v2, cuMemcpy3DAsync_v2_ptsz => fn(p: *const Memcpy3d, s: u64) {
    let words = unsafe { crate::graph::descriptor_words(p)? };
    crate::graph::enqueue(s, crate::graph::Op::Copy3d(words))
}}

/// A linear copy to or from an array at a byte offset of its dense layout.
fn array_linear(a: u64, offset: usize, n: usize) -> Result<u64, Fail> {
    with_context(|d| {
        let st = array(d, a)?;
        let (row, rows, slices) = st.shape();
        if offset
            .checked_add(n)
            .is_none_or(|e| e as u64 > row * rows * slices)
        {
            return Err(Fail::new(
                CUDA_ERROR_INVALID_VALUE,
                format!("{n} bytes at offset {offset} run past the array's end"),
            ));
        }
        Ok(st.desc.ptr.0 + offset as u64)
    })
}

exports! { cuMemcpyHtoA_v2, cuMemcpyHtoA_v2_ptds => fn(a: u64, offset: usize, src: *const c_void, n: usize) {
    let p = array_linear(a, offset, n)?;
    unsafe { crate::memory::cuMemcpyHtoD_v2(p, src, n) }.check()
}}

exports! { cuMemcpyAtoH_v2, cuMemcpyAtoH_v2_ptds => fn(dst: *mut c_void, a: u64, offset: usize, n: usize) {
    let p = array_linear(a, offset, n)?;
    unsafe { crate::memory::cuMemcpyDtoH_v2(dst, p, n) }.check()
}}

exports! { cuMemcpyDtoA_v2, cuMemcpyDtoA_v2_ptds => fn(a: u64, offset: usize, src: u64, n: usize) {
    let p = array_linear(a, offset, n)?;
    unsafe { crate::memory::cuMemcpyDtoD_v2(p, src, n) }.check()
}}

exports! { cuMemcpyAtoD_v2, cuMemcpyAtoD_v2_ptds => fn(dst: u64, a: u64, offset: usize, n: usize) {
    let p = array_linear(a, offset, n)?;
    unsafe { crate::memory::cuMemcpyDtoD_v2(dst, p, n) }.check()
}}

/// `CUDA_RESOURCE_DESC`: the type, a 128-byte union, flags.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ResourceDescC {
    pub res_type: c_uint,
    pub res: [u64; 16],
    pub flags: c_uint,
}

/// `CUresourcetype`.
const RES_ARRAY: c_uint = 0;
const RES_MIPMAPPED: c_uint = 1;
const RES_LINEAR: c_uint = 2;
const RES_PITCH2D: c_uint = 3;

/// `cuTexObjectCreate`'s rule for a linear or pitched resource (`kind`): its `devPtr` must be
/// aligned to `CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT`, else `CUDA_ERROR_INVALID_VALUE`. An
/// allocation's start meets it on a GPU (`cudaMalloc`'s pointers need no texture offset), and
/// ptxjit aligns allocations to 256 bytes only, so the rule is applied to the offset of `ptr`
/// in its allocation; an address in no allocation is left to the range check.
fn texture_base_aligned(d: &Driver, ptr: u64, kind: &str) -> Result<(), Fail> {
    let align = TEXTURE_ALIGNMENT as u64;
    let m = d.host.memory();
    let Some((a, within)) = m.allocation_at(ptr) else {
        return Ok(());
    };
    if within % align == 0 {
        return Ok(());
    }
    Err(Fail::new(
        CUDA_ERROR_INVALID_VALUE,
        format!(
            "{kind} texture: devPtr {ptr:#x} is {within} bytes into '{}', not aligned to \
             CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT ({align} bytes)",
            a.label
        ),
    ))
}

/// The resource a `CUDA_RESOURCE_DESC` names, with its array's flags (0 for memory).
fn resource(d: &Driver, r: &ResourceDescC) -> Result<(ResourceDesc, c_uint), Fail> {
    let word = |i: usize| r.res[i];
    let low = |i: usize| (r.res[i] & 0xffff_ffff) as c_uint;
    let high = |i: usize| (r.res[i] >> 32) as c_uint;
    match r.res_type {
        RES_ARRAY => {
            let a = array(d, word(0))?;
            Ok((a.desc, a.flags))
        }
        RES_LINEAR => {
            // devPtr, format, numChannels, sizeInBytes.
            let (ptr, format, channels, size) = (word(0), low(1), high(1), word(2));
            let f = channel_format(format, channels)?;
            texture_base_aligned(d, ptr, "linear")?;
            device_range(d, ptr, size)?;
            let texels = size / f.texel_bytes() as u64;
            let w = u32::try_from(texels)
                .map_err(|_| Fail::new(CUDA_ERROR_INVALID_VALUE, "linear texture too large"))?;
            Ok((
                ResourceDesc::new(ResourceKind::Linear, DevicePtr(ptr), f, [w, 1, 1]),
                0,
            ))
        }
        RES_PITCH2D => {
            // devPtr, format, numChannels, width, height, pitchInBytes.
            let (ptr, format, channels) = (word(0), low(1), high(1));
            let (w, h, pitch) = (word(2), word(3), word(4));
            let f = channel_format(format, channels)?;
            texture_base_aligned(d, ptr, "pitched")?;
            let (align, max) = (
                TEXTURE_PITCH_ALIGNMENT as u64,
                MAX_TEXTURE2D_LINEAR_PITCH as u64,
            );
            if pitch % align != 0 || pitch > max {
                return Err(Fail::new(
                    CUDA_ERROR_INVALID_VALUE,
                    format!(
                        "pitched texture: pitchInBytes {pitch} must be a multiple of \
                         CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT ({align} bytes) and at most \
                         CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH ({max} bytes)"
                    ),
                ));
            }
            let row = w.saturating_mul(f.texel_bytes() as u64);
            if row > pitch {
                return Err(Fail::new(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("pitched texture: a row of {w} texels ({row} bytes) is wider than pitchInBytes {pitch}"),
                ));
            }
            device_range(d, ptr, pitch.saturating_mul(h))?;
            let dim = |v: u64| {
                u32::try_from(v)
                    .map_err(|_| Fail::new(CUDA_ERROR_INVALID_VALUE, "pitched texture too large"))
            };
            let mut desc =
                ResourceDesc::new(ResourceKind::D2, DevicePtr(ptr), f, [dim(w)?, dim(h)?, 1]);
            desc.pitch_bytes = pitch;
            Ok((desc, 0))
        }
        RES_MIPMAPPED => Err(Fail::new(
            CUDA_ERROR_NOT_SUPPORTED,
            "mipmapped arrays are not supported by ptxjit's driver library yet",
        )),
        other => Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("unknown resource type {other}"),
        )),
    }
}

/// `CUDA_TEXTURE_DESC`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TextureDescC {
    pub address: [c_uint; 3],
    pub filter: c_uint,
    pub flags: c_uint,
    pub max_anisotropy: c_uint,
    pub mip_filter: c_uint,
    pub mip_bias: f32,
    pub min_lod: f32,
    pub max_lod: f32,
    pub border: [f32; 4],
    pub reserved: [i32; 12],
}

/// `CU_TRSF_*` flags.
const TRSF_READ_AS_INTEGER: c_uint = 0x01;
const TRSF_NORMALIZED_COORDINATES: c_uint = 0x02;

fn sampler(t: &TextureDescC, format: ChannelFormat) -> Result<TextureDesc, Fail> {
    let mode = |m: c_uint| match m {
        0 => Ok(AddressMode::Wrap),
        1 => Ok(AddressMode::Clamp),
        2 => Ok(AddressMode::Mirror),
        3 => Ok(AddressMode::Border),
        other => Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("unknown address mode {other}"),
        )),
    };
    let filter = |m: c_uint| match m {
        0 => Ok(FilterMode::Point),
        1 => Ok(FilterMode::Linear),
        other => Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("unknown filter mode {other}"),
        )),
    };
    // The driver API promotes 8- and 16-bit integer texels to [0, 1] floats unless
    // CU_TRSF_READ_AS_INTEGER is set.
    let small_int = matches!(
        format.ty,
        ChannelType::U8 | ChannelType::S8 | ChannelType::U16 | ChannelType::S16
    );
    let read_mode = if small_int && t.flags & TRSF_READ_AS_INTEGER == 0 {
        ReadMode::NormalizedFloat
    } else {
        ReadMode::ElementType
    };
    Ok(TextureDesc {
        address: [
            mode(t.address[0])?,
            mode(t.address[1])?,
            mode(t.address[2])?,
        ],
        filter: filter(t.filter)?,
        read_mode,
        normalized_coords: t.flags & TRSF_NORMALIZED_COORDINATES != 0,
        border_color: t.border,
        mip_filter: filter(t.mip_filter)?,
        mip_lod_bias: t.mip_bias,
        min_lod: t.min_lod,
        max_lod: t.max_lod,
    })
}

exports! { cuTexObjectCreate => fn(pt: *mut u64, res: *const ResourceDescC, tex: *const TextureDescC, view: *const c_void) {
    if res.is_null() || tex.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null resource or texture descriptor"));
    }
    if !view.is_null() {
        return Err(Fail::new(CUDA_ERROR_NOT_SUPPORTED, "resource views are not supported by ptxjit"));
    }
    // SAFETY: descriptors by the API's contract.
    let (r, t) = unsafe { (&*res, &*tex) };
    let h = with_context(|d| {
        let (desc, _) = resource(d, r)?;
        let s = sampler(t, desc.format)?;
        let h = d.host.create_texture_object(desc, s).map_err(crate::host_fail)?;
        d.object_descs.insert(h, ObjectDescs { resource: *r, texture: Some(*t) });
        Ok(h)
    })?;
    unsafe { out(pt, h) }
}}

exports! { cuSurfObjectCreate => fn(ps: *mut u64, res: *const ResourceDescC) {
    if res.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null resource descriptor"));
    }
    // SAFETY: a descriptor by the API's contract.
    let r = unsafe { &*res };
    let h = with_context(|d| {
        if r.res_type != RES_ARRAY {
            return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "a surface object needs a CUDA array resource"));
        }
        let (desc, flags) = resource(d, r)?;
        if flags & ARRAY3D_SURFACE_LDST == 0 {
            return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "the array was not created with CUDA_ARRAY3D_SURFACE_LDST"));
        }
        let h = d.host.create_surface_object(desc).map_err(crate::host_fail)?;
        d.object_descs.insert(h, ObjectDescs { resource: *r, texture: None });
        Ok(h)
    })?;
    unsafe { out(ps, h) }
}}

exports! { cuTexObjectDestroy, cuSurfObjectDestroy => fn(h: u64) {
    with_context(|d| {
        d.host.destroy_object(h).map_err(|e| Fail::new(CUDA_ERROR_INVALID_VALUE, e.to_string()))?;
        d.object_descs.remove(&h);
        Ok(())
    })
}}

/// The descriptors a texture or surface object was created with, which the
/// `cu{Tex,Surf}ObjectGet*Desc` calls return.
#[derive(Clone, Copy)]
pub struct ObjectDescs {
    pub resource: ResourceDescC,
    /// `None` for a surface object.
    pub texture: Option<TextureDescC>,
}

/// The descriptors of live object `h` when it is a texture object (`texture`) or a surface
/// object; `CUDA_ERROR_INVALID_VALUE` otherwise (a destroyed or foreign handle, or an object
/// of the other kind).
fn object_descs(h: u64, texture: bool) -> Result<ObjectDescs, Fail> {
    let what = if texture { "texture" } else { "surface" };
    with_context(|d| match d.object_descs.get(&h) {
        Some(o) if o.texture.is_some() == texture => Ok(*o),
        _ => Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{h:#x} is not a live {what} object"),
        )),
    })
}

exports! { cuTexObjectGetResourceDesc => fn(p: *mut ResourceDescC, h: u64) {
    let o = object_descs(h, true)?;
    unsafe { out(p, o.resource) }
}}

exports! { cuSurfObjectGetResourceDesc => fn(p: *mut ResourceDescC, h: u64) {
    let o = object_descs(h, false)?;
    unsafe { out(p, o.resource) }
}}

exports! { cuTexObjectGetTextureDesc => fn(p: *mut TextureDescC, h: u64) {
    let o = object_descs(h, true)?;
    // A texture object has its texture descriptor (`object_descs` checked the kind).
    let Some(t) = o.texture else {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "not a texture object"));
    };
    unsafe { out(p, t) }
}}

// ptxjit refuses resource views at creation, so no texture object has one: the documented
// answer for an object created without a view is CUDA_ERROR_INVALID_VALUE.
exports! { cuTexObjectGetResourceViewDesc => fn(_p: *mut c_void, h: u64) {
    object_descs(h, true)?;
    Err(Fail::new(
        CUDA_ERROR_INVALID_VALUE,
        format!("texture object {h:#x} was created without a resource view"),
    ))
}}
