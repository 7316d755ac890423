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

mod common;

/// Loads a 2-D box through a tensor map into a 1024-byte-aligned shared buffer first filled
/// with 0xA5, then copies the 1024 bytes to `out` (thread 0 alone).
const PACKED_PTX: &str = r#"
.version 8.6
.target sm_100a
.address_size 64
.visible .entry packed_load(.param .align 64 .b8 tm[128], .param .u64 out, .param .u32 bytes)
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    .reg .pred %p<3>;
    .shared .align 1024 .b8 box[1024];
    .shared .align 8 .b64 bar;
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    mov.u32 %r6, box;
    mov.u32 %r7, bar;
    mbarrier.init.shared.b64 [bar], 1;
    mov.u32 %r2, 0;
FILL:
    add.u32 %r4, %r6, %r2;
    mov.u32 %r8, 0xA5A5A5A5;
    st.shared.u32 [%r4], %r8;
    add.u32 %r2, %r2, 4;
    setp.lt.u32 %p2, %r2, 1024;
    @%p2 bra FILL;
    fence.proxy.async.shared::cta;
    mov.b64 %rd5, tm;
    cvta.param.u64 %rd5, %rd5;
    mov.u32 %r9, 0;
    mov.u32 %r10, 0;
    ld.param.u32 %r11, [bytes];
    mbarrier.arrive.expect_tx.shared.b64 %rd1, [bar], %r11;
    cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [%r6], [%rd5, {%r9, %r10}], [%r7];
WAIT:
    mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;
    @!%p2 bra WAIT;
    ld.param.u64 %rd2, [out];
    mov.u32 %r2, 0;
DUMP:
    add.u32 %r4, %r6, %r2;
    ld.shared.u32 %r8, [%r4];
    cvt.u64.u32 %rd3, %r2;
    add.u64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r8;
    add.u32 %r2, %r2, 4;
    setp.lt.u32 %p2, %r2, 1024;
    @%p2 bra DUMP;
DONE:
    ret;
}
"#;

/// The packed sub-byte types (`CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B`, `_16U4_ALIGN16B`,
/// `_16U6_ALIGN16B`) from `cuTensorMapEncodeTiled`, loaded by a kernel: the shared-memory box
/// each makes is computed here from the CUDA driver API's description of the types ("16 x U4
/// packed values ... no gaps"; "8 byte gaps between every 8 byte chunk"; "4 byte gaps between
/// every 12 byte chunk": PTX ISA §5.5.1.1.1's `.b4x16`, `.b4x16_p64`, `.b6x16_p32`; the gap
/// bytes keep what shared memory held) and §5.5.7's 128B swizzle (16-byte chunk `c` of
/// 128-byte row `r` at chunk `c ^ (r % 8)`), and the encoder's documented checks on them
/// (each a `CUDA_ERROR_INVALID_VALUE`).
#[test]
fn encode_tiled_packed_types() {
    use cuda::context::*;
    use cuda::launch::*;
    use cuda::memory::*;
    use std::ptr::null_mut;
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::env::set_var("PTXJIT_CC", "10.0"));
    common::setup();
    let f = common::function(
        common::load(&std::ffi::CString::new(PACKED_PTX).unwrap()),
        "packed_load",
    );
    let mut g = 0u64;
    assert_eq!(unsafe { cuMemAlloc_v2(&mut g, 1024) }, CUDA_SUCCESS);
    let mut out = 0u64;
    assert_eq!(unsafe { cuMemAlloc_v2(&mut out, 1024) }, CUDA_SUCCESS);
    // Global bytes: a fixed pseudo-random pattern (an LCG).
    let mut x = 0x1234_5678u32;
    let src: Vec<u8> = (0..1024)
        .map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (x >> 24) as u8
        })
        .collect();
    assert_eq!(
        unsafe { cuMemcpyHtoD_v2(g, src.as_ptr().cast(), 1024) },
        CUDA_SUCCESS
    );
    let enc = |m: &mut CuTensorMap,
               dtype: u32,
               addr: u64,
               dims: [u64; 2],
               stride: u64,
               bx: [u32; 2],
               sw: u32,
               oob: u32| unsafe {
        cuTensorMapEncodeTiled(
            m.0.as_mut_ptr(),
            dtype,
            2,
            addr as *mut c_void,
            dims.as_ptr(),
            [stride].as_ptr(),
            bx.as_ptr(),
            [1u32, 1].as_ptr(),
            0,
            sw,
            0,
            oob,
        )
    };
    let run = |m: &CuTensorMap, bytes: u32| -> Vec<u8> {
        let mut params = [common::arg(m), common::arg(&out), common::arg(&bytes)];
        let r =
            unsafe { cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, params.as_mut_ptr(), null_mut()) };
        assert_eq!(r, CUDA_SUCCESS);
        assert_eq!(unsafe { cuCtxSynchronize() }, CUDA_SUCCESS);
        let mut v = vec![0u8; 1024];
        assert_eq!(
            unsafe { cuMemcpyDtoH_v2(v.as_mut_ptr().cast(), out, 1024) },
            CUDA_SUCCESS
        );
        v
    };
    let mut m = CuTensorMap([0; 128]);
    // 16U4_ALIGN16B, 256 x 2 elements (rows of 128 bytes), a box of 128 x 2, 128B swizzle:
    // each 8 global bytes into the first half of a 16-byte chunk.
    assert_eq!(
        enc(&mut m, 14, g, [256, 2], 128, [128, 2], 3, 0),
        CUDA_SUCCESS
    );
    let got = run(&m, 256);
    let mut want = vec![0xa5u8; 1024];
    for r in 0..2 {
        for c in 0..8 {
            let at = r * 128 + (c ^ (r % 8)) * 16;
            want[at..at + 8].copy_from_slice(&src[r * 128 + c * 8..r * 128 + c * 8 + 8]);
        }
    }
    assert_eq!(got, want, "16U4_ALIGN16B");
    // 16U6_ALIGN16B, 128 x 2 elements (rows of 96 bytes), no swizzle: each 12 global bytes
    // into the first 12 of a 16-byte chunk.
    assert_eq!(
        enc(&mut m, 15, g, [128, 2], 96, [128, 2], 0, 0),
        CUDA_SUCCESS
    );
    let got = run(&m, 256);
    let mut want = vec![0xa5u8; 1024];
    for r in 0..2 {
        for c in 0..8 {
            let at = r * 128 + c * 16;
            want[at..at + 12].copy_from_slice(&src[r * 96 + c * 12..r * 96 + c * 12 + 12]);
        }
    }
    assert_eq!(got, want, "16U6_ALIGN16B");
    // 16U4_ALIGN8B, 64 x 3 elements (rows of 32 bytes), a box of 32 x 2: packed as in global
    // memory, 16 bytes a row.
    assert_eq!(enc(&mut m, 13, g, [64, 3], 32, [32, 2], 0, 0), CUDA_SUCCESS);
    let got = run(&m, 32);
    let mut want = vec![0xa5u8; 1024];
    want[..16].copy_from_slice(&src[..16]);
    want[16..32].copy_from_slice(&src[32..48]);
    assert_eq!(got, want, "16U4_ALIGN8B");
    // The checks cuTensorMapEncodeTiled's documentation lists for the packed types.
    for (what, dtype, addr, dims, stride, bx, sw, oob) in [
        (
            "16U4_ALIGN16B box[0] not 128",
            14,
            g,
            [256, 2],
            128,
            [64, 2],
            0,
            0,
        ),
        (
            "16U6_ALIGN16B box[0] not 128",
            15,
            g,
            [256, 2],
            192,
            [64, 2],
            0,
            0,
        ),
        (
            "16U4_ALIGN16B globalDim[0] not a multiple of 128",
            14,
            g,
            [192, 2],
            128,
            [128, 2],
            0,
            0,
        ),
        (
            "16U4_ALIGN8B globalDim[0] odd",
            13,
            g,
            [63, 2],
            32,
            [32, 2],
            0,
            0,
        ),
        (
            "16U4_ALIGN16B stride not a multiple of 32",
            14,
            g,
            [256, 2],
            144,
            [128, 2],
            0,
            0,
        ),
        (
            "16U6_ALIGN16B address not 32-byte aligned",
            15,
            g + 16,
            [128, 2],
            96,
            [128, 2],
            0,
            0,
        ),
        (
            "16U4_ALIGN16B 32B swizzle",
            14,
            g,
            [256, 2],
            128,
            [128, 2],
            1,
            0,
        ),
        (
            "16U4_ALIGN16B 128B_ATOM_64B",
            14,
            g,
            [256, 2],
            128,
            [128, 2],
            6,
            0,
        ),
        (
            "16U6_ALIGN16B 128B_ATOM_32B_FLIP_8B",
            15,
            g,
            [128, 2],
            96,
            [128, 2],
            5,
            0,
        ),
        (
            "16U4_ALIGN8B box row of 8 bytes",
            13,
            g,
            [64, 2],
            32,
            [16, 2],
            0,
            0,
        ),
        ("16U4_ALIGN8B NaN fill", 13, g, [64, 2], 32, [32, 2], 0, 1),
    ] {
        assert_eq!(
            enc(&mut m, dtype, addr, dims, stride, bx, sw, oob),
            CUDA_ERROR_INVALID_VALUE,
            "{what}"
        );
    }
    // The swizzles the documentation lists for them are accepted.
    for (dtype, dims, stride, sw) in [
        (15, [128u64, 2], 96, 3),
        (15, [128, 2], 96, 4),
        (15, [128, 2], 96, 6),
        (14, [256, 2], 128, 4),
    ] {
        assert_eq!(
            enc(&mut m, dtype, g, dims, stride, [128, 2], sw, 0),
            CUDA_SUCCESS,
            "type {dtype} swizzle {sw}"
        );
    }
}
