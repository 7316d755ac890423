//! The words of PTX: every modifier the PTX ISA (9.x) defines (the instruction names are the
//! opcodes of the decoder's table, `decode_table.rs`), so that the decoder tells a construct
//! ptxjit does not implement yet ("unsupported", valid PTX) from one that is not PTX at all
//! ("invalid", as ptxas reports it: `Unknown modifier '.f33'`).
//!
//! A modifier in none of the lists is rejected before its instruction is decoded ("unknown
//! modifier"), so the lists must hold every modifier of every instruction ptxjit decodes (the
//! coverage examples and `ptx-tests/` load through this check). A modifier shaped like a type
//! (`.u31`, `.f33`, `.s128`, `.e9m9`) that is no PTX type is named as such. The type list was
//! checked against ptxas 12.9: of all `.{u,s,b,f,bf,tf}N{xM}` and `.{u}eAmB{xM}` words, ptxas
//! knows exactly those below (PTX ISA §5.2.1, §5.2.5). Every other entry is a word ptxas accepts
//! in some instruction; a word of an instruction ptxjit does not decode that is missing here
//! only makes its error "invalid" instead of "unsupported".

/// Instruction types (PTX ISA §5.2.1 fundamental types, §5.2.5 alternate floating-point
/// formats, packed and sub-byte forms of mma/ldmatrix/tensormap, and the opaque types).
const TYPES: &[&str] = &[
    "b1",
    "b8",
    "b16",
    "b32",
    "b64",
    "b128",
    "b1024",
    "b8x16",
    "u2",
    "u4",
    "u8",
    "u8x4",
    "u16",
    "u16x2",
    "u32",
    "u64",
    "s2",
    "s4",
    "s8",
    "s8x4",
    "s16",
    "s16x2",
    "s32",
    "s64",
    "f16",
    "f16x2",
    "f32",
    "f32x2",
    "f64",
    "bf16",
    "bf16x2",
    "tf32",
    "e2m1",
    "e2m1x2",
    "e2m1x4",
    "e2m3",
    "e2m3x2",
    "e2m3x4",
    "e3m2",
    "e3m2x2",
    "e3m2x4",
    "e4m3",
    "e4m3x2",
    "e4m3x4",
    "e5m2",
    "e5m2x2",
    "e5m2x4",
    "ue4m3",
    "ue8m0",
    "ue8m0x2",
    "ue8m0x4",
    // §5.2.5.3 packed fixed-point: two `.s2f6` (§5.2.4) values, an instruction type of `cvt`.
    "s2f6x2",
    "pred",
    "texref",
    "samplerref",
    "surfref",
];

/// The fields `tensormap.replace` writes (PTX ISA §9.7.9.26, `.field1`/`.field2`/`.field3`).
pub(super) const TENSORMAP_FIELDS: &[&str] = &[
    "global_address",
    "rank",
    "box_dim",
    "global_dim",
    "global_stride",
    "element_stride",
    "elemtype",
    "interleave_layout",
    "swizzle_mode",
    "swizzle_atomicity",
    "fill_mode",
];

/// Modifiers other than types, by family.
const MODIFIERS: &[&[&str]] = &[
    // State spaces (§5.1) and address conversion.
    &[
        "global",
        "shared",
        "shared::cta",
        "shared::cluster",
        "local",
        "const",
        "param",
        "param::entry",
        "param::func",
        "tex",
        "to",
    ],
    // Vectors (§5.4.2).
    &["v2", "v4", "v8"],
    // Cache operators, eviction priorities, prefetch sizes (§9.7.9.1, §9.7.9.8).
    &[
        "ca",
        "cg",
        "cs",
        "lu",
        "cv",
        "wb",
        "wt",
        "nc",
        "L1",
        "L2",
        "L1::evict_normal",
        "L1::evict_unchanged",
        "L1::evict_first",
        "L1::evict_last",
        "L1::no_allocate",
        "L2::evict_first",
        "L2::evict_last",
        "L2::evict_normal",
        "L2::evict_unchanged",
        "L2::cache_hint",
        "L2::64B",
        "L2::128B",
        "L2::256B",
        "fractional",
        "range",
        "cvt",
    ],
    // Memory consistency: semantics and scopes (§8).
    &[
        "weak", "relaxed", "acquire", "release", "acq_rel", "sc", "volatile", "mmio", "cta",
        "cluster", "gpu", "sys", "gl",
    ],
    // Rounding and floating-point modes (§9.7.3, §9.7.9.21).
    &[
        "rn",
        "rz",
        "rm",
        "rp",
        "rni",
        "rzi",
        "rmi",
        "rpi",
        "rna",
        "rs",
        "ftz",
        "sat",
        "satfinite",
        // `cvt`'s packed pair of `.ue8m0` scale factors (§9.7.9.21).
        "scaled::n2::ue8m0",
        "approx",
        // `sin`/`cos` with the input in cycles (PTX ISA 9.5).
        "2pi",
        "full",
        "relu",
        "NaN",
        "xorsign",
        "abs",
        "oob",
        "noftz",
        "pack",
    ],
    // Integer forms (§9.7.1, §9.7.2, §9.7.8).
    &[
        "lo", "hi", "wide", "cc", "clamp", "wrap", "shiftamt", "l", "r",
    ],
    // Comparisons and boolean combinations (§9.7.6).
    &[
        "eq", "ne", "lt", "le", "gt", "ge", "ls", "hs", "equ", "neu", "ltu", "leu", "gtu", "geu",
        "num", "nan", "and", "or", "xor", "popc",
    ],
    // testp (§9.7.3.1).
    &[
        "finite",
        "infinite",
        "number",
        "notanumber",
        "normal",
        "subnormal",
    ],
    // Atomic and reduction operations (§9.7.13.5).
    &["add", "sub", "inc", "dec", "min", "max", "exch", "cas"],
    // Warp and CTA synchronization (§9.7.13).
    &[
        "no_membermask_overlap",
        "all",
        "any",
        "uni",
        "ballot",
        "sync",
        "aligned",
        "up",
        "down",
        "bfly",
        "idx",
        "arrive",
        "red",
        "warp",
        "wait",
        "init",
        "inval",
        "arrive_drop",
        "test_wait",
        "try_wait",
        "pending_count",
        "complete_tx",
        "expect_tx",
        "noComplete",
        "parity",
        "launch_dependents",
        "proxy",
        "alias",
        "async",
        "async::global",
        "async::shared::cta",
        "async::shared::cluster",
        "async::generic",
        "tensormap::generic",
        "op_restrict",
        "mbarrier_init",
        "sync_restrict::shared::cta",
        "sync_restrict::shared::cluster",
        "sync_restrict::shared::cluster::read",
        // PTX ISA 9.5: `cp.async.bulk.wait_group.sync_restrict::proxy::async`,
        // `fence.alias.sync_restrict::read.release.sys`.
        "sync_restrict::proxy::async",
        "sync_restrict::read",
        // PTX ISA 9.3/9.5 `fabric.submit{.op_restrict::fetching|.commit_group}`,
        // `fabric.wait.sync_restrict::reads` (deprecated in 9.5 for `::read N`).
        "submit",
        "op_restrict::fetching",
        "sync_restrict::reads",
        // PTX ISA 9.4 `ld{.global}.proxy::readonly`.
        "proxy::readonly",
        "mask",
    ],
    // prmt modes (§9.7.8.7).
    &["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"],
    // Texture and surface instructions (§9.7.10, §9.7.11).
    &[
        "1d",
        "2d",
        "3d",
        "a1d",
        "a2d",
        "cube",
        "acube",
        "2dms",
        "a2dms",
        "base",
        "level",
        "grad",
        "a",
        "g",
        "b",
        "p",
        "trap",
        "zero",
        "width",
        "height",
        "depth",
        "channel_data_type",
        "channel_order",
        "normalized_coords",
        "filter_mode",
        "addr_mode_0",
        "addr_mode_1",
        "addr_mode_2",
        "force_unnormalized_coords",
        "array_size",
        "num_mipmap_levels",
        "num_samples",
        "memory_layout",
    ],
    // Asynchronous copies and the tensor memory accelerator (§9.7.9.25).
    &[
        "bulk",
        "tensor",
        "commit_group",
        "wait_group",
        "wait_all",
        "mbarrier",
        "noinc",
        "mbarrier::complete_tx::bytes",
        "bulk_group",
        "cp_mask",
        "read",
        "tile",
        "im2col",
        "im2col_no_offs",
        "multicast::cluster",
        "4d",
        "5d",
        "reduce",
        "prefetch",
        "tile::gather4",
        "tile::scatter4",
        "im2col::w",
        "im2col::w::128",
        "cta_group::1",
        "cta_group::2",
        "tensormap",
        "cp_fenceproxy",
        "replace",
        // PTX ISA 9.5 `tensormap.replace` allocation classes and
        // `tensormap.query.alloc_class_large`.
        "alloc_small",
        "alloc_large",
        "alloc_same",
        "query",
        "alloc_class_large",
    ],
    TENSORMAP_FIELDS,
    // Matrix instructions (§9.7.14 to §9.7.16).
    &[
        "load",
        "store",
        "mma",
        "a",
        "b",
        "c",
        "d",
        "row",
        "col",
        "sp",
        "sp::ordered_metadata",
        "block_scale",
        "block16",
        "block32",
        "scale_vec::1X",
        "scale_vec::2X",
        "scale_vec::4X",
        "kind::f8f6f4",
        "kind::mxf4",
        "kind::mxf4nvf4",
        "kind::mxf8f6f4",
        "kind::f16",
        "kind::tf32",
        "kind::i8",
        "x1",
        "x2",
        "x4",
        "x8",
        "x16",
        "x32",
        "x64",
        "x128",
        "trans",
        "mma_async",
        "fence",
        "collector::a::fill",
        "collector::a::use",
        "collector::a::lastuse",
        "collector::a::discard",
        "collector::b0::fill",
        "collector::b0::use",
        "collector::b0::lastuse",
        "collector::b0::discard",
        "collector::b1::fill",
        "collector::b1::use",
        "collector::b1::lastuse",
        "collector::b1::discard",
        "collector::b2::fill",
        "collector::b2::use",
        "collector::b2::lastuse",
        "collector::b2::discard",
        "collector::b3::fill",
        "collector::b3::use",
        "collector::b3::lastuse",
        "collector::b3::discard",
        "16x64b",
        "16x128b",
        "16x256b",
        "32x32b",
        "16x32bx2",
        "pack::16b",
        "unpack::16b",
        "ws",
        "ashift",
        "128x256b",
        "4x256b",
        "128x128b",
        "64x128b",
        "warpx2::02_13",
        "warpx2::01_23",
        "warpx4",
        "32x128b",
        "b6x16_p32",
        "b4x16_p64",
        "mbarrier::arrive::one",
        "wait::ld",
        "wait::st",
        "alloc",
        "dealloc",
        "relinquish_alloc_permit",
        "ld",
        "st",
        "shift",
        "cp",
        "commit",
        "fence::before_thread_sync",
        "fence::after_thread_sync",
        "ld_reduce",
        "multimem",
        // `multimem.ld_reduce` accumulation precision (§9.7.9.14).
        "acc::f32",
        "acc::f16",
    ],
    // Cluster launch control (§9.7.13.17).
    &[
        "try_cancel",
        "multicast::cluster::all",
        "query_cancel",
        "is_canceled",
        "get_first_ctaid",
        "get_first_ctaid::x",
        "get_first_ctaid::y",
        "get_first_ctaid::z",
    ],
    // Video instructions (§9.7.17).
    &["po", "shr7", "shr15"],
];

/// Whether `m` (without its dot) is a PTX type.
pub(super) fn is_type(m: &str) -> bool {
    TYPES.contains(&m)
}

/// Whether `m` looks like a type: `{u,s,b,f,bf,tf}N` or `{u}eAmB`, with an optional `xM`.
fn type_shaped(m: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    let base = match m.rsplit_once('x') {
        Some((b, lanes)) if digits(lanes) => b,
        _ => m,
    };
    let minifloat = |s: &str| {
        s.strip_prefix('e')
            .and_then(|s| s.split_once('m'))
            .is_some_and(|(a, b)| digits(a) && digits(b))
    };
    ["bf", "tf", "u", "s", "b", "f"]
        .iter()
        .any(|p| base.strip_prefix(p).is_some_and(digits))
        || minifloat(base)
        || base.strip_prefix('u').is_some_and(minifloat)
}

/// Whether `m` (without its dot) is a modifier of some PTX instruction; the `mNnNkN` matrix
/// shapes are a family (`.m16n8k16`, `.m64n256k8`, ...).
pub(super) fn is_modifier(m: &str) -> bool {
    is_type(m) || is_word(m) || matrix_shape(m)
}

/// Whether `m` (without its dot) is a modifier word of the lists, not a type nor a matrix
/// shape: the words a decoder table row declares it takes. The lists' words are put in a
/// set once per process (each instruction's modifiers are looked up several times).
pub(super) fn is_word(m: &str) -> bool {
    static WORDS: std::sync::OnceLock<std::collections::HashSet<&'static str>> =
        std::sync::OnceLock::new();
    WORDS
        .get_or_init(|| MODIFIERS.iter().flat_map(|f| f.iter().copied()).collect())
        .contains(m)
}

/// `mA nB {kC}` (PTX ISA §9.7.14.2 and on: matrix shapes).
fn matrix_shape(m: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    let Some(rest) = m.strip_prefix('m') else {
        return false;
    };
    let Some((a, rest)) = rest.split_once('n') else {
        return false;
    };
    match rest.split_once('k') {
        Some((b, c)) => digits(a) && digits(b) && digits(c),
        None => digits(a) && digits(rest),
    }
}

/// A modifier that looks like a type but is none (`.u31`, `.f33`): never PTX.
pub(super) fn bad_type(m: &str) -> bool {
    type_shaped(m) && !is_type(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The type-shaped words ptxas 12.9 rejects with "Unknown modifier" (`.u31`, `.f33`, ...)
    /// and some it knows (PTX ISA §5.2.1, §5.2.5).
    #[test]
    fn type_shaped_words() {
        for bad in [
            "u31", "f33", "s128", "b4", "f8", "u1", "f16x3", "f64x2", "e9m9", "ue4m3x2", "tf16",
            "bf32", "u8x3", "s8x2",
        ] {
            assert!(bad_type(bad), "{bad}");
        }
        for good in [
            "u32", "f16x2", "bf16x2", "s16x2", "u8x4", "s8x4", "f32x2", "b128", "b1024", "e4m3x2",
            "ue8m0x2", "tf32", "u4", "b1", "pred",
        ] {
            assert!(!bad_type(good), "{good}");
        }
        for other in [
            "x4", "rc8", "b4e", "f4e", "16x64b", "m16n8k16", "L2::64B", "v4", "shr7",
        ] {
            assert!(!bad_type(other), "{other}");
        }
    }

    #[test]
    fn modifiers_and_shapes() {
        for m in [
            "global",
            "m16n8k16",
            "m8n8",
            "m64n256k32",
            "L1::evict_last",
            "u32",
        ] {
            assert!(is_modifier(m), "{m}");
        }
        for m in ["foo", "m16", "mn8", "globl", "f33"] {
            assert!(!is_modifier(m), "{m}");
        }
    }

    /// Loads one instruction in a kernel with `%f1` (f32) and `%rd1` (u64) registers.
    fn load(inst: &str) -> Result<(), crate::host::Error> {
        let ptx = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n\
             .visible .entry k(.param .u64 p)\n{{\n.reg .f32 %f<2>;\n.reg .b64 %rd<2>;\n\
             ld.param.u64 %rd1, [p];\n{inst};\nret;\n}}\n"
        );
        crate::host::front_end(&ptx, "k.ptx").map(|_| ())
    }

    /// Unknown types and modifiers are invalid PTX naming the word, anywhere; known modifiers
    /// in the wrong instruction are illegal; valid forms ptxjit lacks stay unsupported. The
    /// expected classes are ptxas 12.9's ("Unknown modifier", "Illegal modifier", "Not a name
    /// of any known instruction"; the mmio form assembles).
    #[test]
    fn errors_are_classified_as_ptxas_does() {
        use crate::host::Error;
        let invalid = |inst: &str, want: &str| match load(inst) {
            Err(Error::Invalid(m)) => assert!(m.contains(want), "{inst}: {m}"),
            other => panic!("{inst}: {other:?}"),
        };
        invalid(
            "st.global.f33 [%rd1], %f1",
            "unknown modifier '.f33' (not a PTX type)",
        );
        invalid(
            "ld.global.u31 %f1, [%rd1]",
            "unknown modifier '.u31' (not a PTX type)",
        );
        invalid("ld.global.v4.s128 %f1, [%rd1]", "unknown modifier '.s128'");
        invalid("ld.global.foo.f32 %f1, [%rd1]", "unknown modifier '.foo'");
        invalid("add.u31.f32 %f1, %f1, %f1", "unknown modifier '.u31'");
        invalid("add.fast.f32 %f1, %f1, %f1", "unknown modifier '.fast'");
        invalid(
            "ld.global.rn.f32 %f1, [%rd1]",
            "illegal modifier '.rn' for instruction 'ld'",
        );
        invalid(
            "ld.global.e4m3.f32 %f1, [%rd1]",
            "illegal modifier '.e4m3' for 'ld'",
        );
        invalid("frob.b32 %f1, %f1", "'frob' is not a PTX instruction");
        load("ld.mmio.relaxed.sys.global.f32 %f1, [%rd1]").expect("ld.mmio: a plain load");
        load("ld.acquire.cluster.global.f32 %f1, [%rd1]").expect("ld.acquire.cluster");
        load("ld.global.nc.L1::no_allocate.f32 %f1, [%rd1]").expect("a valid load");
    }
}
