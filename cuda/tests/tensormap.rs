//! Tensor maps through the driver API: `cuTensorMapEncodeTiled` with the argument checks its
//! documentation lists (each a `CUDA_ERROR_INVALID_VALUE`), and `cuTensorMapReplaceAddress`.

use cuda::errors::*;
use cuda::tensormap::*;
use ptxjit::runtime::tensormap::TensorMap;
use std::ffi::c_void;

#[repr(C, align(64))]
struct CuTensorMap([u8; 128]);

#[test]
fn encode_tiled_and_replace_address() {
    let mut m = CuTensorMap([0; 128]);
    let dims = [100u64, 60];
    let strides = [448u64];
    let boxes = [32u32, 8];
    let es = [1u32, 1];
    let addr = 0x10_0000_0100usize as *mut c_void;
    let enc = |m: &mut CuTensorMap, dtype: u32, strides: &[u64], boxes: &[u32], swizzle: u32| unsafe {
        cuTensorMapEncodeTiled(
            m.0.as_mut_ptr(),
            dtype,
            2,
            addr,
            dims.as_ptr(),
            strides.as_ptr(),
            boxes.as_ptr(),
            es.as_ptr(),
            0,
            swizzle,
            0,
            0,
        )
    };
    assert_eq!(enc(&mut m, 7, &strides, &boxes, 3), CUDA_SUCCESS);
    let t = TensorMap::from_bytes(&m.0).expect("a tensor map");
    assert_eq!(
        (t.global_address, t.dims[0], t.dims[1], t.strides[0]),
        (0x10_0000_0100, 100, 60, 448)
    );
    assert_eq!((t.box_dims[0], t.box_dims[1], t.swizzle), (32, 8, 3));
    // CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B, _ATOM_32B_FLIP_8B, _ATOM_64B (4, 5, 6): the 128B
    // swizzle with the PTX ISA's swizzle atomicity 1, 2, 3 (§9.7.9.26 Table 33); 7 is none.
    for (code, atom) in [(4, 1), (5, 2), (6, 3)] {
        assert_eq!(enc(&mut m, 7, &strides, &boxes, code), CUDA_SUCCESS);
        let t = TensorMap::from_bytes(&m.0).expect("a tensor map");
        assert_eq!((t.swizzle, t.swizzle_atomicity), (3, atom));
    }
    assert_eq!(
        enc(&mut m, 7, &strides, &boxes, 7),
        CUDA_ERROR_INVALID_VALUE
    );
    assert_eq!(enc(&mut m, 7, &strides, &boxes, 3), CUDA_SUCCESS);
    // The documented checks: a stride not a multiple of 16, a box over 256, an inner box
    // wider than the 32B swizzle, an unknown data type.
    assert_eq!(enc(&mut m, 7, &[440], &boxes, 0), CUDA_ERROR_INVALID_VALUE);
    assert_eq!(
        enc(&mut m, 7, &strides, &[32, 257], 0),
        CUDA_ERROR_INVALID_VALUE
    );
    assert_eq!(
        enc(&mut m, 7, &strides, &boxes, 1),
        CUDA_ERROR_INVALID_VALUE
    );
    assert_eq!(
        enc(&mut m, 16, &strides, &boxes, 0),
        CUDA_ERROR_INVALID_VALUE
    );
    // A misaligned object.
    let mut big = CuTensorMap([0; 128]);
    let r = unsafe {
        cuTensorMapEncodeTiled(
            big.0.as_mut_ptr().add(16),
            7,
            1,
            addr,
            dims.as_ptr(),
            strides.as_ptr(),
            boxes.as_ptr(),
            es.as_ptr(),
            0,
            0,
            0,
            0,
        )
    };
    assert_eq!(r, CUDA_ERROR_INVALID_VALUE);
    // cuTensorMapReplaceAddress: 16-byte aligned addresses only.
    let m2 = 0x10_0000_0200usize as *mut c_void;
    assert_eq!(
        unsafe { cuTensorMapReplaceAddress(m.0.as_mut_ptr(), m2) },
        CUDA_SUCCESS
    );
    assert_eq!(
        TensorMap::from_bytes(&m.0).expect("valid").global_address,
        0x10_0000_0200
    );
    let odd = 0x10_0000_0208usize as *mut c_void;
    assert_eq!(
        unsafe { cuTensorMapReplaceAddress(m.0.as_mut_ptr(), odd) },
        CUDA_ERROR_INVALID_VALUE
    );
    assert_eq!(
        unsafe { cuTensorMapReplaceAddress(big.0.as_mut_ptr(), m2) },
        CUDA_ERROR_INVALID_VALUE
    );
}

/// `cuTensorMapEncodeIm2col`: an N H W C map with its corners, channels and pixels, and the
/// documented checks (rank 3..=5, corner ranges by rank, channelsPerPixel <= 256,
/// pixelsPerColumn <= 1024), each a `CUDA_ERROR_INVALID_VALUE`.
#[test]
fn encode_im2col() {
    let mut m = CuTensorMap([0; 128]);
    let dims = [16u64, 9, 6, 2];
    let strides = [64u64, 576, 3456];
    let es = [1u32, 2, 1, 1];
    let addr = 0x10_0000_0100usize as *mut c_void;
    let enc = |m: &mut CuTensorMap, rank: u32, lower: &[i32], upper: &[i32], ch: u32, px: u32| unsafe {
        cuTensorMapEncodeIm2col(
            m.0.as_mut_ptr(),
            7,
            rank,
            addr,
            dims.as_ptr(),
            strides.as_ptr(),
            lower.as_ptr(),
            upper.as_ptr(),
            ch,
            px,
            es.as_ptr(),
            0,
            0,
            0,
            0,
        )
    };
    assert_eq!(enc(&mut m, 4, &[-1, -2], &[-1, 0], 8, 100), CUDA_SUCCESS);
    let t = TensorMap::from_bytes(&m.0).expect("a tensor map");
    let ic = t.im2col.expect("an im2col map");
    assert_eq!(
        (
            ic.lower[..2].to_vec(),
            ic.upper[..2].to_vec(),
            ic.channels,
            ic.pixels
        ),
        (vec![-1, -2], vec![-1, 0], 8, 100)
    );
    assert_eq!(
        (t.dims[1], t.element_strides[1], t.box_bytes()),
        (9, 2, 8 * 100 * 4)
    );
    assert_eq!(enc(&mut m, 2, &[0], &[0], 8, 100), CUDA_ERROR_INVALID_VALUE);
    assert_eq!(
        enc(&mut m, 4, &[-129, 0], &[0, 0], 8, 100),
        CUDA_ERROR_INVALID_VALUE
    );
    assert_eq!(
        enc(&mut m, 4, &[0, 0], &[0, 128], 8, 100),
        CUDA_ERROR_INVALID_VALUE
    );
    assert_eq!(
        enc(&mut m, 4, &[0, 0], &[0, 0], 257, 100),
        CUDA_ERROR_INVALID_VALUE
    );
    assert_eq!(
        enc(&mut m, 4, &[0, 0], &[0, 0], 8, 1025),
        CUDA_ERROR_INVALID_VALUE
    );
    let null = unsafe {
        cuTensorMapEncodeIm2col(
            m.0.as_mut_ptr(),
            7,
            4,
            addr,
            dims.as_ptr(),
            strides.as_ptr(),
            std::ptr::null(),
            [0, 0].as_ptr(),
            8,
            100,
            es.as_ptr(),
            0,
            0,
            0,
            0,
        )
    };
    assert_eq!(null, CUDA_ERROR_INVALID_VALUE);
}

/// `cuTensorMapEncodeIm2colWide`: an N H W C map in W and W128 mode with W's corners, and the
/// documented checks (rank 3..=5, corners within ±32767, a non-empty W box, the mode, swizzle
/// 64B/128B, no interleave, pixelsPerColumn <= 1024 in W mode only), each a
/// `CUDA_ERROR_INVALID_VALUE`.
#[test]
fn encode_im2col_wide() {
    use ptxjit::runtime::tensormap::Im2colWide;
    let mut m = CuTensorMap([0; 128]);
    let dims = [16u64, 9, 6, 2];
    let strides = [64u64, 576, 3456];
    let es = [1u32, 2, 1, 1];
    let addr = 0x10_0000_0100usize as *mut c_void;
    let enc = |m: &mut CuTensorMap, rank: u32, lw: i32, uw: i32, px: u32, mode: u32, sw: u32| unsafe {
        cuTensorMapEncodeIm2colWide(
            m.0.as_mut_ptr(),
            7,
            rank,
            addr,
            dims.as_ptr(),
            strides.as_ptr(),
            lw,
            uw,
            16,
            px,
            es.as_ptr(),
            0,
            mode,
            sw,
            0,
            0,
        )
    };
    assert_eq!(enc(&mut m, 4, -1000, 3, 100, 0, 2), CUDA_SUCCESS);
    let ic = TensorMap::from_bytes(&m.0)
        .expect("a tensor map")
        .im2col
        .expect("an im2col map");
    assert_eq!(
        (ic.lower[0], ic.upper[0], ic.channels, ic.pixels, ic.wide),
        (-1000, 3, 16, 100, Some(Im2colWide::W))
    );
    assert_eq!(enc(&mut m, 3, 0, 0, 4096, 1, 3), CUDA_SUCCESS);
    let ic = TensorMap::from_bytes(&m.0).expect("valid").im2col;
    assert_eq!(
        ic.map(|ic| (ic.pixels, ic.wide)),
        Some((128, Some(Im2colWide::W128)))
    );
    for (rank, lw, uw, px, mode, sw) in [
        (2, 0, 0, 8, 0, 2),
        (4, -32769, 0, 8, 0, 2),
        (4, 0, 32768, 8, 0, 2),
        (4, 9, 0, 8, 0, 2),
        (4, 0, 0, 1025, 0, 2),
        (4, 0, 0, 8, 2, 2),
        (4, 0, 0, 8, 0, 0),
        (4, 0, 0, 8, 0, 1),
    ] {
        assert_eq!(
            enc(&mut m, rank, lw, uw, px, mode, sw),
            CUDA_ERROR_INVALID_VALUE,
            "rank {rank} corners {lw}|{uw} pixels {px} mode {mode} swizzle {sw}"
        );
    }
}
