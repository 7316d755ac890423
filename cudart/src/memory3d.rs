//! Pitched and 3D memory (CUDA Runtime API: Memory Management): `cudaMalloc3D`,
//! `cudaMemset3D`, `cudaMemcpy3D` between linear memory and CUDA arrays, translated onto the
//! driver's `cuMemAllocPitch`, `cuMemsetD2D8` and `CUDA_MEMCPY3D`. As the runtime defines
//! them, positions and widths count bytes in linear memory and elements in arrays.

use crate::errors::*;
use crate::memory::{MEM_ARRAY, MEM_UNIFIED};
use crate::state::context;
use crate::texture::{array_descriptor, channel_desc, Extent};
use crate::{cu, exports, Fail, RtResult};
use std::ffi::{c_int, c_uint, c_void};

/// `struct cudaPitchedPtr`: a pitched allocation (pitch and width in bytes, height in rows).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct PitchedPtr {
    pub ptr: *mut c_void,
    pub pitch: usize,
    pub xsize: usize,
    pub ysize: usize,
}

/// `struct cudaPos`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Pos {
    pub x: usize,
    pub y: usize,
    pub z: usize,
}

/// `struct cudaMemcpy3DParms` (driver_types.h; 160 bytes).
#[repr(C)]
pub struct Memcpy3DParms {
    pub src_array: u64,
    pub src_pos: Pos,
    pub src_ptr: PitchedPtr,
    pub dst_array: u64,
    pub dst_pos: Pos,
    pub dst_ptr: PitchedPtr,
    pub extent: Extent,
    pub kind: c_int,
}

/// `CUDA_MEMCPY3D` (cuda.h).
#[repr(C)]
#[derive(Default)]
pub(crate) struct DrvMemcpy3D {
    src_x_in_bytes: usize,
    src_y: usize,
    src_z: usize,
    src_lod: usize,
    src_memory_type: c_uint,
    src_host: usize,
    src_device: u64,
    src_array: u64,
    reserved0: usize,
    src_pitch: usize,
    src_height: usize,
    dst_x_in_bytes: usize,
    dst_y: usize,
    dst_z: usize,
    dst_lod: usize,
    dst_memory_type: c_uint,
    dst_host: usize,
    dst_device: u64,
    dst_array: u64,
    reserved1: usize,
    dst_pitch: usize,
    dst_height: usize,
    width_in_bytes: usize,
    height: usize,
    depth: usize,
}

exports! { cudaMalloc3D => fn(p: *mut PitchedPtr, e: Extent) {
    context()?;
    if e.width == 0 || e.height == 0 || e.depth == 0 {
        // Nothing to allocate: NVIDIA's runtime answers a null pointer with a pitch of 0 (and
        // the extent's width and height) without asking the driver, as `cudaMallocPitch`.
        let empty = PitchedPtr { ptr: std::ptr::null_mut(), pitch: 0, xsize: e.width, ysize: e.height };
        return unsafe { crate::out(p, empty) };
    }
    crate::non_null(p)?;
    let rows = e.height.max(1) * e.depth.max(1);
    let (mut d, mut pitch) = (0u64, 0usize);
    cu!(cuMemAllocPitch_v2(&mut d, &mut pitch, e.width.max(1), rows, 16))?;
    crate::driver::label_allocation(d, c"cudaMalloc3D");
    unsafe { crate::out(p, PitchedPtr { ptr: d as *mut c_void, pitch, xsize: e.width, ysize: e.height }) }
}}

/// Fills `e` of `p` slice by slice, now or in `stream`'s order.
fn memset_3d(p: PitchedPtr, value: c_int, e: Extent, stream: Option<u64>) -> RtResult {
    context()?;
    // "The pitch field of pitchedDevPtr is ignored when height and depth are both equal to 1";
    // otherwise a row wider than the pitch is refused before any slice is set (the driver's
    // 2D memset refuses it only where a slice has several rows, and a slice at a time).
    if (e.height > 1 || e.depth > 1) && e.width > p.pitch {
        return Err(Fail::new(
            cudaErrorInvalidValue,
            format!(
                "extent width {} bytes exceeds the pitch {}",
                e.width, p.pitch
            ),
        ));
    }
    let stride = p.pitch.checked_mul(p.ysize);
    let last = e
        .depth
        .checked_sub(1)
        .map(|z| stride.and_then(|s| s.checked_mul(z)));
    if let Some(None) = last {
        return Err(Fail::new(
            cudaErrorInvalidValue,
            format!(
                "{} slices of {} rows of {} bytes pass the end of the address space",
                e.depth, p.ysize, p.pitch
            ),
        ));
    }
    for z in 0..e.depth {
        // Checked above: the last slice's offset fits (slice 0 is at 0 even where the
        // stride does not); an address past the end is the driver's to refuse.
        let off = stride.and_then(|s| s.checked_mul(z)).unwrap_or(0);
        let slice = (p.ptr as u64).wrapping_add(off as u64);
        match stream {
            Some(s) => cu!(cuMemsetD2D8Async(
                slice,
                p.pitch,
                value as u8,
                e.width,
                e.height,
                s
            ))?,
            None => cu!(cuMemsetD2D8_v2(
                slice,
                p.pitch,
                value as u8,
                e.width,
                e.height
            ))?,
        }
    }
    Ok(())
}

exports! { cudaMemset3D, cudaMemset3D_ptds => fn(p: PitchedPtr, value: c_int, e: Extent) {
    memset_3d(p, value, e, None)
}}

exports! { cudaMemset3DAsync, cudaMemset3DAsync_ptsz => fn(p: PitchedPtr, value: c_int, e: Extent, stream: u64) {
    memset_3d(p, value, e, Some(stream))
}}

/// The copy `p` describes, now or in `stream`'s order.
fn copy_3d(p: *const Memcpy3DParms, stream: Option<u64>) -> RtResult {
    context()?;
    let m = driver_copy(p)?;
    let m = (&m as *const DrvMemcpy3D).cast();
    match stream {
        Some(s) => cu!(cuMemcpy3DAsync_v2(m, s)),
        None => cu!(cuMemcpy3D_v2(m)),
    }
}

/// The driver's `CUDA_MEMCPY3D` for the runtime's `cudaMemcpy3DParms` (array positions and
/// widths in elements become bytes). Errors: a null pointer, a side given both as an array and
/// as a pointer ("Passing more than one non-zero source or destination will cause
/// cudaMemcpy3D() to return an error", CUDA Runtime API), an unknown `kind`
/// (`cudaErrorInvalidMemcpyDirection`), an unknown array.
pub(crate) fn driver_copy(p: *const Memcpy3DParms) -> Result<DrvMemcpy3D, Fail> {
    if p.is_null() {
        return Err(Fail::new(cudaErrorInvalidValue, "null cudaMemcpy3DParms"));
    }
    // SAFETY: non-null, the program's parameters.
    let p = unsafe { &*p };
    crate::memory::check_kind(p.kind)?;
    for (side, array, ptr) in [
        ("source", p.src_array, p.src_ptr.ptr),
        ("destination", p.dst_array, p.dst_ptr.ptr),
    ] {
        if array != 0 && !ptr.is_null() {
            return Err(Fail::new(
                cudaErrorInvalidValue,
                format!("the {side} is both a CUDA array ({array:#x}) and a pointer ({ptr:p})"),
            ));
        }
    }
    let mut m = DrvMemcpy3D::default();
    // The element size that turns array positions and the extent's width into bytes.
    let mut elem = None;
    if p.src_array != 0 {
        let (_, size) = channel_desc(&array_descriptor(p.src_array)?)?;
        elem = Some(size);
        m.src_memory_type = MEM_ARRAY;
        m.src_array = p.src_array;
        m.src_x_in_bytes = p.src_pos.x * size;
    } else {
        m.src_memory_type = MEM_UNIFIED;
        m.src_host = p.src_ptr.ptr as usize;
        m.src_device = p.src_ptr.ptr as u64;
        m.src_pitch = p.src_ptr.pitch;
        m.src_height = p.src_ptr.ysize;
        m.src_x_in_bytes = p.src_pos.x;
    }
    m.src_y = p.src_pos.y;
    m.src_z = p.src_pos.z;
    if p.dst_array != 0 {
        let (_, size) = channel_desc(&array_descriptor(p.dst_array)?)?;
        elem = elem.or(Some(size));
        m.dst_memory_type = MEM_ARRAY;
        m.dst_array = p.dst_array;
        m.dst_x_in_bytes = p.dst_pos.x * size;
    } else {
        m.dst_memory_type = MEM_UNIFIED;
        m.dst_host = p.dst_ptr.ptr as usize;
        m.dst_device = p.dst_ptr.ptr as u64;
        m.dst_pitch = p.dst_ptr.pitch;
        m.dst_height = p.dst_ptr.ysize;
        m.dst_x_in_bytes = p.dst_pos.x;
    }
    m.dst_y = p.dst_pos.y;
    m.dst_z = p.dst_pos.z;
    m.width_in_bytes = p.extent.width * elem.unwrap_or(1);
    m.height = p.extent.height;
    m.depth = p.extent.depth;
    Ok(m)
}

/// The driver's `CUDA_MEMCPY3D` for a linear copy of `n` bytes as `cudaMemcpyKind` `kind`
/// names its sides: host (`CU_MEMORYTYPE_HOST`) or device (`CU_MEMORYTYPE_DEVICE`, which the
/// driver checks is device memory), both told apart by address (`CU_MEMORYTYPE_UNIFIED`)
/// for `cudaMemcpyDefault`. Errors: an unknown kind (`cudaErrorInvalidMemcpyDirection`).
pub(crate) fn driver_linear_copy(
    dst: *mut c_void,
    src: *const c_void,
    n: usize,
    kind: c_int,
) -> Result<DrvMemcpy3D, Fail> {
    crate::memory::check_kind(kind)?;
    const HOST: c_uint = 1;
    const DEVICE: c_uint = 2;
    let (src_type, dst_type) = match kind {
        0 => (HOST, HOST),
        1 => (HOST, DEVICE),
        2 => (DEVICE, HOST),
        3 => (DEVICE, DEVICE),
        _ => (MEM_UNIFIED, MEM_UNIFIED),
    };
    Ok(DrvMemcpy3D {
        src_memory_type: src_type,
        src_host: src as usize,
        src_device: src as u64,
        dst_memory_type: dst_type,
        dst_host: dst as usize,
        dst_device: dst as u64,
        width_in_bytes: n,
        height: 1,
        depth: 1,
        ..DrvMemcpy3D::default()
    })
}

exports! { cudaMemcpy3D, cudaMemcpy3D_ptds => fn(p: *const Memcpy3DParms) {
    copy_3d(p, None)
}}

exports! { cudaMemcpy3DAsync, cudaMemcpy3DAsync_ptsz => fn(p: *const Memcpy3DParms, stream: u64) {
    copy_3d(p, Some(stream))
}}

/// The runtime's `cudaMemcpy3DParms` for the driver's `CUDA_MEMCPY3D` (array positions and
/// the width back in elements where a side is an array; the direction from the sides'
/// memory types, `cudaMemcpyDefault` where a side is named by address). A pitched pointer's
/// `xsize`, which the driver's descriptor does not keep, is its pitch.
pub(crate) fn runtime_copy(m: &DrvMemcpy3D) -> Result<Memcpy3DParms, Fail> {
    const HOST: c_uint = 1;
    const DEVICE: c_uint = 2;
    let mut elem = None;
    let side = |ty: c_uint, host: usize, dev: u64, arr: u64, x: usize, y, z, pitch, height| {
        let mut ptr = PitchedPtr {
            ptr: std::ptr::null_mut(),
            pitch: 0,
            xsize: 0,
            ysize: 0,
        };
        let mut pos = Pos { x, y, z };
        let mut array = 0;
        let mut size = None;
        if ty == MEM_ARRAY {
            let (_, s) = channel_desc(&array_descriptor(arr)?)?;
            size = Some(s);
            array = arr;
            pos.x = x / s;
        } else {
            ptr.ptr = if ty == HOST {
                host as *mut c_void
            } else {
                dev as *mut c_void
            };
            ptr.pitch = pitch;
            ptr.xsize = pitch;
            ptr.ysize = height;
        }
        Ok::<_, Fail>((array, pos, ptr, size))
    };
    let (src_array, src_pos, src_ptr, s) = side(
        m.src_memory_type,
        m.src_host,
        m.src_device,
        m.src_array,
        m.src_x_in_bytes,
        m.src_y,
        m.src_z,
        m.src_pitch,
        m.src_height,
    )?;
    elem = elem.or(s);
    let (dst_array, dst_pos, dst_ptr, s) = side(
        m.dst_memory_type,
        m.dst_host,
        m.dst_device,
        m.dst_array,
        m.dst_x_in_bytes,
        m.dst_y,
        m.dst_z,
        m.dst_pitch,
        m.dst_height,
    )?;
    elem = elem.or(s);
    // Arrays are device memory.
    let place = |ty: c_uint| match ty {
        HOST => Some(false),
        DEVICE | MEM_ARRAY => Some(true),
        _ => None,
    };
    let kind = match (place(m.src_memory_type), place(m.dst_memory_type)) {
        (Some(false), Some(false)) => 0,
        (Some(false), Some(true)) => 1,
        (Some(true), Some(false)) => 2,
        (Some(true), Some(true)) => 3,
        _ => 4,
    };
    Ok(Memcpy3DParms {
        src_array,
        src_pos,
        src_ptr,
        dst_array,
        dst_pos,
        dst_ptr,
        extent: Extent {
            width: m.width_in_bytes / elem.unwrap_or(1),
            height: m.height,
            depth: m.depth,
        },
        kind,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::size_of;

    /// Sizes as a C compiler lays out CUDA 13.5's structs (driver_types.h, `sizeof`).
    #[test]
    fn layouts_are_cuda_13s() {
        assert_eq!(size_of::<Memcpy3DParms>(), 160);
        assert_eq!(size_of::<PitchedPtr>(), 32);
        assert_eq!(size_of::<Extent>(), 24);
    }
}
