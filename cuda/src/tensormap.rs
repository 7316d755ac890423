//! Tensor map objects (CUDA driver API, "Tensor Map Object Management"): `cuTensorMapEncodeTiled`,
//! `cuTensorMapEncodeIm2col`, `cuTensorMapEncodeIm2colWide` (the `.im2col::w` modes of
//! sm_100, CUDA 12.8) and `cuTensorMapReplaceAddress` over
//! [`ptxjit::runtime::tensormap::TensorMap`], whose 128 bytes (ptxjit's layout of the opaque
//! `CUtensorMap`) the program then passes to a kernel as a `const __grid_constant__ CUtensorMap`
//! parameter or copies to device memory. The three encoders share one path (`encode`).

use crate::errors::*;
use crate::exports;
use crate::Fail;
use ptxjit::runtime::tensormap::{EncodeError, TensorMap, TENSOR_MAP_BYTES};
use std::ffi::{c_int, c_uint, c_void};

fn invalid(m: impl Into<String>) -> Fail {
    Fail::new(CUDA_ERROR_INVALID_VALUE, m)
}

/// The 128 bytes at `p` (`CUtensorMap *`), checked for null and 64-byte alignment.
fn map_at<'a>(p: *mut u8) -> Result<&'a mut [u8; TENSOR_MAP_BYTES], Fail> {
    if p.is_null() {
        return Err(invalid("tensorMap is NULL"));
    }
    if !(p as usize).is_multiple_of(64) {
        return Err(invalid(format!(
            "tensorMap {p:p} is not aligned to 64 bytes"
        )));
    }
    // SAFETY: a non-null, aligned `CUtensorMap *` from the program, 128 bytes it owns.
    Ok(unsafe { &mut *(p as *mut [u8; TENSOR_MAP_BYTES]) })
}

/// `n` elements at `p`, or an error naming `what` when `p` is null.
fn array<'a, T>(p: *const T, n: usize, what: &str) -> Result<&'a [T], Fail> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(invalid(format!("{what} is NULL")));
    }
    // SAFETY: the program passes an array of `n` elements (cuTensorMapEncodeTiled's contract:
    // tensorRank entries, tensorRank - 1 for globalStrides).
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

/// The arrays every encoder reads (globalDim: `rank`, globalStrides: `rank − 1`,
/// elementStrides: `rank`), once `rank` is in `ranks` (`what` names the encoder's limit), and
/// the map made from them by `build`, written at `tensor_map`. The one path of
/// `cuTensorMapEncodeTiled`, `cuTensorMapEncodeIm2col` and `cuTensorMapEncodeIm2colWide`.
fn encode(
    tensor_map: *mut u8,
    rank: u32,
    (lo, hi, what): (u32, u32, &str),
    global_dim: *const u64,
    global_strides: *const u64,
    element_strides: *const u32,
    build: impl FnOnce(&[u64], &[u64], &[u32]) -> Result<TensorMap, EncodeError>,
) -> Result<(), Fail> {
    let out = map_at(tensor_map)?;
    if !(lo..=hi).contains(&rank) {
        return Err(invalid(format!(
            "tensorRank {rank} is outside {lo}..={hi}{what}"
        )));
    }
    let r = rank as usize;
    let dims = array(global_dim, r, "globalDim")?;
    let strides = array(global_strides, r - 1, "globalStrides")?;
    let es = array(element_strides, r, "elementStrides")?;
    *out = build(dims, strides, es)
        .map_err(|e| invalid(e.0))?
        .to_bytes();
    Ok(())
}

exports! { cuTensorMapEncodeTiled => fn(tensor_map: *mut u8, dtype: c_uint, rank: u32, global_address: *mut c_void, global_dim: *const u64, global_strides: *const u64, box_dim: *const u32, element_strides: *const u32, interleave: c_uint, swizzle: c_uint, l2_promotion: c_uint, oob_fill: c_uint) {
    let boxes = if (1..=5).contains(&rank) {
        array(box_dim, rank as usize, "boxDim")?
    } else {
        &[]
    };
    encode(tensor_map, rank, (1, 5, ""), global_dim, global_strides, element_strides, |dims, strides, es| {
        TensorMap::encode_tiled(
            dtype,
            rank,
            global_address as u64,
            dims,
            strides,
            boxes,
            es,
            interleave,
            swizzle,
            l2_promotion,
            oob_fill,
        )
    })
}}

exports! { cuTensorMapEncodeIm2col => fn(tensor_map: *mut u8, dtype: c_uint, rank: u32, global_address: *mut c_void, global_dim: *const u64, global_strides: *const u64, pixel_box_lower_corner: *const c_int, pixel_box_upper_corner: *const c_int, channels_per_pixel: u32, pixels_per_column: u32, element_strides: *const u32, interleave: c_uint, swizzle: c_uint, l2_promotion: c_uint, oob_fill: c_uint) {
    let s = if (3..=5).contains(&rank) { rank as usize - 2 } else { 0 };
    let lower = array(pixel_box_lower_corner, s, "pixelBoxLowerCorner")?;
    let upper = array(pixel_box_upper_corner, s, "pixelBoxUpperCorner")?;
    encode(tensor_map, rank, (3, 5, " (im2col)"), global_dim, global_strides, element_strides, |dims, strides, es| {
        TensorMap::encode_im2col(
            dtype,
            rank,
            global_address as u64,
            dims,
            strides,
            lower,
            upper,
            channels_per_pixel,
            pixels_per_column,
            es,
            interleave,
            swizzle,
            l2_promotion,
            oob_fill,
        )
    })
}}

exports! { cuTensorMapEncodeIm2colWide => fn(tensor_map: *mut u8, dtype: c_uint, rank: u32, global_address: *mut c_void, global_dim: *const u64, global_strides: *const u64, pixel_box_lower_corner_width: c_int, pixel_box_upper_corner_width: c_int, channels_per_pixel: u32, pixels_per_column: u32, element_strides: *const u32, interleave: c_uint, mode: c_uint, swizzle: c_uint, l2_promotion: c_uint, oob_fill: c_uint) {
    encode(tensor_map, rank, (3, 5, " (im2col)"), global_dim, global_strides, element_strides, |dims, strides, es| {
        TensorMap::encode_im2col_wide(
            dtype,
            rank,
            global_address as u64,
            dims,
            strides,
            pixel_box_lower_corner_width,
            pixel_box_upper_corner_width,
            channels_per_pixel,
            pixels_per_column,
            es,
            interleave,
            mode,
            swizzle,
            l2_promotion,
            oob_fill,
        )
    })
}}

exports! { cuTensorMapReplaceAddress => fn(tensor_map: *mut u8, global_address: *mut c_void) {
    let b = map_at(tensor_map)?;
    let mut m = TensorMap::from_bytes(b).map_err(invalid)?;
    let a = global_address as u64;
    let align = if m.interleave == 2 { 32 } else { 16 };
    if !a.is_multiple_of(align) {
        return Err(invalid(format!(
            "globalAddress {a:#x} is not {align}-byte aligned"
        )));
    }
    m.global_address = a;
    *b = m.to_bytes();
    Ok(())
}}
