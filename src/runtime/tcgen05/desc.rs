//! The descriptors of `tcgen05.mma`: the 32-bit instruction descriptor (PTX ISA §9.7.16.4.2,
//! Table 42, with the shapes of Table 39) and the 64-bit shared-memory matrix descriptor
//! (§9.7.16.4.1).

use crate::ir::{MmaElem, Tc05Kind};
use crate::runtime::wgmma::Desc;

/// A decoded instruction descriptor (§9.7.16.4.2, Table 42) of a `tcgen05.mma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstrDesc {
    pub d: MmaElem,
    pub a: MmaElem,
    pub b: MmaElem,
    pub neg_a: bool,
    pub neg_b: bool,
    /// A is M-major (transposed), else K-major.
    pub trans_a: bool,
    /// B is N-major (transposed), else K-major.
    pub trans_b: bool,
    pub m: u32,
    pub n: u32,
    /// Saturate (`.kind::i8`).
    pub satfinite: bool,
    /// Bit 2: A is structured sparse (`tcgen05.mma.sp` only).
    pub sparse: bool,
    /// Bits 0-1: the sparsity selector (when `sparse`).
    pub selector: u32,
    /// Block scaling (§9.7.16.10.7): the scale factor A ID (bits 29-30) and B ID (bits 4-5),
    /// and the scale type (bit 23: 1 ue8m0, 0 ue4m3); 0, 0, true for the other kinds.
    pub sfa_id: u32,
    pub sfb_id: u32,
    pub ue8m0: bool,
}

impl InstrDesc {
    /// Decode `v` for `kind`, or say why it is not a form ptxjit runs.
    ///
    /// `ws`: the descriptor of a `tcgen05.mma.ws` (its own shapes; bits 30-31, the maximum
    /// B-reuse shift, are a hint ptxjit ignores).
    pub fn decode(v: u32, kind: Tc05Kind, ws: bool) -> Result<InstrDesc, String> {
        InstrDesc::decode_in(v, kind, ws, false)
    }

    /// [`InstrDesc::decode`] for a `.cta_group::1` (`pair` false) or `.cta_group::2`
    /// multiply, whose shapes differ ([`check_shape`]).
    pub fn decode_in(v: u32, kind: Tc05Kind, ws: bool, pair: bool) -> Result<InstrDesc, String> {
        let bit = |k: u32| (v >> k) & 1 == 1;
        let field = |lo: u32, n: u32| (v >> lo) & ((1 << n) - 1);
        let (dt, at, bt) = (field(4, 2), field(7, 3), field(10, 3));
        use MmaElem::*;
        let elem = |t: u32| -> Option<MmaElem> {
            match (kind, t) {
                (Tc05Kind::F16, 0) => Some(F16),
                (Tc05Kind::F16, 1) => Some(Bf16),
                (Tc05Kind::Tf32, 2) => Some(Tf32),
                (Tc05Kind::I8, 0) => Some(U8),
                (Tc05Kind::I8, 1) => Some(S8),
                (Tc05Kind::F8f6f4 | Tc05Kind::Mxf8f6f4, 0) => Some(E4m3),
                (Tc05Kind::F8f6f4 | Tc05Kind::Mxf8f6f4, 1) => Some(E5m2),
                (Tc05Kind::F8f6f4 | Tc05Kind::Mxf8f6f4, 3) => Some(E2m3),
                (Tc05Kind::F8f6f4 | Tc05Kind::Mxf8f6f4, 4) => Some(E3m2),
                (Tc05Kind::F8f6f4 | Tc05Kind::Mxf8f6f4, 5) => Some(E2m1),
                (Tc05Kind::Mxf4 | Tc05Kind::Mxf4nvf4, 1) => Some(E2m1),
                _ => None,
            }
        };
        let (Some(a), Some(b)) = (elem(at), elem(bt)) else {
            return Err(format!(
                "instruction descriptor A type {at} / B type {bt} is not a .kind::{kind} type"
            ));
        };
        let scaled = kind.block_scaled();
        let d = match (kind, dt) {
            // Block-scaled kinds accumulate in f32; bits 4-5 are the scale factor B ID.
            _ if scaled => F32,
            (Tc05Kind::F16 | Tc05Kind::Tf32 | Tc05Kind::F8f6f4, 1) => F32,
            (Tc05Kind::I8, 2) => S32,
            (Tc05Kind::F16, 0) if a == F16 => F16,
            (Tc05Kind::F16, 0) => {
                return Err(format!(
                    "instruction descriptor: an f16 accumulator (D type 0) takes f16 inputs, \
                     not .{a} (Table 39)"
                ))
            }
            (Tc05Kind::F8f6f4, 0) => F16,
            _ => {
                return Err(format!(
                    "instruction descriptor D type {dt} is not a .kind::{kind} accumulator"
                ))
            }
        };
        if kind == Tc05Kind::F16 && a != b {
            return Err(format!(
                "instruction descriptor: A is .{a} and B .{b} (.kind::f16 takes one type)"
            ));
        }
        let (m, n) = (field(24, 5) << 4, field(17, 6) << 3);
        if pair {
            check_pair_shape(kind, m, n)?;
        } else {
            check_shape(kind, ws, m, n)?;
        }
        let sub_byte = |e: MmaElem| e.bits() < 8;
        if (bit(15) && sub_byte(a)) || (bit(16) && sub_byte(b)) {
            return Err(format!(
                "instruction descriptor: a transposed (MN-major) .{} matrix; 4- and 6-bit types \
                 are K-major only (Table 52)",
                if bit(15) && sub_byte(a) { a } else { b }
            ));
        }
        let satfinite = bit(3) && !scaled;
        if satfinite && kind != Tc05Kind::I8 {
            return Err("instruction descriptor: saturate (bit 3) is for .kind::i8 only".into());
        }
        if kind == Tc05Kind::I8 && (bit(13) || bit(14)) {
            return Err("instruction descriptor: .kind::i8 has no negation (bits 13-14)".into());
        }
        if scaled && bit(31) {
            return Err(format!(
                "instruction descriptor: bit 31 set (dense K = 96 for .kind::mxf4/::mxf4nvf4) \
                 is not supported for .kind::{kind} (K = {}): the ISA names the 48-byte K tile \
                 (shared memory descriptor bit 52, leading-dimension stride mode) but gives no \
                 layout of a 96-element K-major row in shared memory and no scale-factor \
                 layout for K = 96 (§9.7.16.10.7.2-3 show K = 32/64 and K = 64/128 only)",
                kind.k()
            ));
        }
        if scaled && !bit(23) && kind != Tc05Kind::Mxf4nvf4 {
            return Err(format!(
                "instruction descriptor: scale type (bit 23) 0 is ue4m3, which .kind::{kind} \
                 does not take (Table 55: ue8m0)"
            ));
        }
        if !ws && !scaled && field(30, 2) != 0 {
            return Err(
                "instruction descriptor: the B-reuse shift (bits 30-31) is for .ws only".into(),
            );
        }
        Ok(InstrDesc {
            d,
            a,
            b,
            neg_a: bit(13),
            neg_b: bit(14),
            trans_a: bit(15),
            trans_b: bit(16),
            m,
            n,
            satfinite,
            sparse: bit(2),
            selector: field(0, 2),
            sfa_id: if scaled { field(29, 2) } else { 0 },
            sfb_id: if scaled { field(4, 2) } else { 0 },
            ue8m0: !scaled || bit(23),
        })
    }
}

/// Check M and N of a `.cta_group::2` dense `tcgen05.mma`: M = 128 or 256, N from 16 to 256
/// in steps of 16 (`.kind::i8`: 32 to 256 in steps of 32). ⚠ The ISA's Table 39 rows for
/// `.cta_group::2` were not readable here; these are the ranges CUTLASS's `2x1SM` atoms
/// assert (`SM100_MMA_F16BF16_2x1SM_SS`, `SM100_MMA_S8_2x1SM_SS`), docs/isa-notes.md.
fn check_pair_shape(kind: Tc05Kind, m: u32, n: u32) -> Result<(), String> {
    if m != 128 && m != 256 {
        return Err(format!(
            "instruction descriptor M = {m}: .cta_group::2 .kind::{kind} takes M = 128 or 256"
        ));
    }
    let step = if kind == Tc05Kind::I8 { 32 } else { 16 };
    if !(step..=256).contains(&n) || !n.is_multiple_of(step) {
        return Err(format!(
            "instruction descriptor N = {n}: .cta_group::2 .kind::{kind} takes N from {step} to \
             256 in steps of {step}"
        ));
    }
    Ok(())
}

/// Check M and N of a `.cta_group::1` `tcgen05.mma` (`.ws` or not) against Table 39
/// (§9.7.16.2.1): without `.ws` M = 64 or 128 (block-scaled kinds: 128) and N from 8 to 256
/// in steps of 8 (`.kind::i8`: 8, 16, 24, 32, then steps of 16 to 256); with `.ws` M = 32,
/// 64 or 128 and N = 64, 128 or 256.
fn check_shape(kind: Tc05Kind, ws: bool, m: u32, n: u32) -> Result<(), String> {
    if ws {
        if !matches!(m, 32 | 64 | 128) {
            return Err(format!(
                "instruction descriptor M = {m}: tcgen05.mma.ws takes M = 32, 64 or 128"
            ));
        }
        if !matches!(n, 64 | 128 | 256) {
            return Err(format!(
                "instruction descriptor N = {n}: tcgen05.mma.ws takes N = 64, 128 or 256"
            ));
        }
        return Ok(());
    }
    let m_ok = if kind.block_scaled() {
        m == 128
    } else {
        m == 64 || m == 128
    };
    if !m_ok {
        return Err(format!(
            "instruction descriptor M = {m}: .cta_group::1 .kind::{kind} takes M = {}",
            if kind.block_scaled() {
                "128"
            } else {
                "64 or 128"
            }
        ));
    }
    let n_ok = match kind {
        Tc05Kind::I8 => {
            matches!(n, 8 | 16 | 24 | 32) || ((48..=256).contains(&n) && n.is_multiple_of(16))
        }
        Tc05Kind::F16
        | Tc05Kind::Tf32
        | Tc05Kind::F8f6f4
        | Tc05Kind::Mxf8f6f4
        | Tc05Kind::Mxf4
        | Tc05Kind::Mxf4nvf4 => (8..=256).contains(&n) && n.is_multiple_of(8),
    };
    if !n_ok {
        return Err(format!(
            "instruction descriptor N = {n}: .cta_group::1 .kind::{kind} takes N from 8 to 256 \
             in steps of 8{} (Table 39)",
            if kind == Tc05Kind::I8 {
                " up to 32, then steps of 16"
            } else {
                ""
            }
        ));
    }
    Ok(())
}

/// Decode a tcgen05 shared-memory descriptor (see the module documentation).
pub fn smem_desc(v: u64) -> Result<Desc, String> {
    if (v >> 46) & 7 != 1 {
        return Err(format!(
            "shared-memory descriptor {v:#x}: bits 46-48 must hold 0b001"
        ));
    }
    let x = match v >> 61 {
        0 => 1,
        2 => 8,
        4 => 4,
        6 => 2,
        1 => {
            return Err(format!(
                "shared-memory descriptor {v:#x}: 128-byte swizzling with 32-byte atoms is not \
                 supported yet"
            ))
        }
        m => {
            return Err(format!(
                "shared-memory descriptor {v:#x}: swizzle mode {m} is invalid"
            ))
        }
    };
    if (v >> 49) & 7 != 0 {
        return Err(format!(
            "shared-memory descriptor {v:#x}: a non-zero base offset is not supported"
        ));
    }
    if (v >> 52) & 1 != 0 {
        return Err(format!(
            "shared-memory descriptor {v:#x}: the absolute leading-dimension mode (bit 52) \
             is not supported"
        ));
    }
    Ok(Desc {
        start: (v & 0x3fff) << 4,
        lbo: ((v >> 16) & 0x3fff) << 4,
        sbo: ((v >> 32) & 0x3fff) << 4,
        base: 0,
        x,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Table 42's fields: f16 inputs, f32 D, M = 128, N = 64, transposed B, negated A.
    #[test]
    fn instruction_descriptor() {
        let v = 1 << 4 | 1 << 13 | 1 << 16 | (64 >> 3) << 17 | (128 >> 4) << 24;
        let id = InstrDesc::decode(v, Tc05Kind::F16, false).expect("valid");
        assert_eq!(
            (id.d, id.a, id.b),
            (MmaElem::F32, MmaElem::F16, MmaElem::F16)
        );
        assert_eq!((id.m, id.n), (128, 64));
        assert!(id.neg_a && !id.neg_b && !id.trans_a && id.trans_b);
        let bf = 1 << 4 | 1 << 7 | 1 << 10 | 2 << 17 | 8 << 24;
        assert_eq!(
            InstrDesc::decode(bf, Tc05Kind::F16, false).map(|i| i.a),
            Ok(MmaElem::Bf16)
        );
        // tf32: types 2; i8: D type 2, signed A, unsigned B.
        let tf = 1 << 4 | 2 << 7 | 2 << 10 | 2 << 17 | 8 << 24;
        assert_eq!(
            InstrDesc::decode(tf, Tc05Kind::Tf32, false).map(|i| i.a),
            Ok(MmaElem::Tf32)
        );
        let i8 = 2 << 4 | 1 << 7 | 2 << 17 | 8 << 24;
        let id = InstrDesc::decode(i8, Tc05Kind::I8, false).expect("valid");
        assert_eq!((id.d, id.a, id.b), (MmaElem::S32, MmaElem::S8, MmaElem::U8));
        assert!(InstrDesc::decode(tf, Tc05Kind::F16, false).is_err());
        assert!(
            InstrDesc::decode(v | 1 << 2 | 1, Tc05Kind::F16, false)
                .is_ok_and(|i| i.sparse && i.selector == 1),
            "sparse"
        );
        // Table 39: M = 64 or 128, N from 8 to 256 in steps of 8 (i8: 8, 16, 24, 32, 48, …).
        let mn = |m: u32, n: u32| 1 << 4 | (n >> 3) << 17 | (m >> 4) << 24;
        assert!(InstrDesc::decode(mn(64, 8), Tc05Kind::F16, false).is_ok_and(|i| i.m == 64));
        assert!(InstrDesc::decode(mn(128, 24), Tc05Kind::F16, false).is_ok());
        assert!(InstrDesc::decode(mn(32, 64), Tc05Kind::F16, false).is_err());
        assert!(InstrDesc::decode(mn(64, 264), Tc05Kind::F16, false).is_err());
        assert!(InstrDesc::decode(mn(64, 0), Tc05Kind::F16, false).is_err());
        let i8 = |m: u32, n: u32| 2 << 4 | 1 << 7 | (n >> 3) << 17 | (m >> 4) << 24;
        assert!(InstrDesc::decode(i8(64, 24), Tc05Kind::I8, false).is_ok());
        assert!(InstrDesc::decode(i8(64, 40), Tc05Kind::I8, false).is_err());
        assert!(InstrDesc::decode(i8(128, 48), Tc05Kind::I8, false).is_ok());
        assert!(InstrDesc::decode(i8(128, 56), Tc05Kind::I8, false).is_err());
    }

    /// Table 42's `.kind::f8f6f4` type codes (E4M3 0, E5M2 1, E2M3 3, E3M2 4, E2M1 5; 2, 6 and
    /// 7 name nothing), its f16 and f32 accumulators; `.kind::f16`'s f16 accumulator with f16
    /// inputs only (Table 39); no transposed 4- or 6-bit matrix (Table 52).
    #[test]
    fn f8f6f4_and_f16_accumulator_descriptors() {
        let v = |d: u32, a: u32, b: u32| d << 4 | a << 7 | b << 10 | 8 << 17 | 8 << 24;
        let kind = Tc05Kind::F8f6f4;
        let id = InstrDesc::decode(v(1, 0, 1), kind, false).expect("valid");
        assert_eq!(
            (id.d, id.a, id.b),
            (MmaElem::F32, MmaElem::E4m3, MmaElem::E5m2)
        );
        let id = InstrDesc::decode(v(0, 3, 4), kind, false).expect("valid");
        assert_eq!(
            (id.d, id.a, id.b),
            (MmaElem::F16, MmaElem::E2m3, MmaElem::E3m2)
        );
        let id = InstrDesc::decode(v(1, 5, 5), kind, false).expect("valid");
        assert_eq!((id.a, id.b), (MmaElem::E2m1, MmaElem::E2m1));
        for bad in [2, 6, 7] {
            assert!(
                InstrDesc::decode(v(1, bad, 0), kind, false).is_err(),
                "A type {bad}"
            );
            assert!(
                InstrDesc::decode(v(1, 0, bad), kind, false).is_err(),
                "B type {bad}"
            );
        }
        assert!(InstrDesc::decode(v(2, 0, 0), kind, false).is_err(), "s32 D");
        assert!(InstrDesc::decode(v(1, 5, 0) | 1 << 15, kind, false).is_err());
        assert!(InstrDesc::decode(v(1, 0, 4) | 1 << 16, kind, false).is_err());
        assert!(InstrDesc::decode(v(1, 0, 1) | 3 << 15, kind, false).is_ok());
        let f16 = InstrDesc::decode(v(0, 0, 0), Tc05Kind::F16, false).expect("valid");
        assert_eq!(f16.d, MmaElem::F16);
        assert!(
            InstrDesc::decode(v(0, 1, 1), Tc05Kind::F16, false).is_err(),
            "bf16, f16 D"
        );
    }

    /// The block-scaled kinds' descriptor (§9.7.16.10.7, CUTLASS's `InstrDescriptorBlockScaled`):
    /// scale factor B ID at bits 4-5, A ID at 29-30, scale type at bit 23, f32 D; e2m1 is type 1
    /// for .kind::mxf4/::mxf4nvf4 and 5 for .kind::mxf8f6f4; ue4m3 only for .kind::mxf4nvf4;
    /// K = 96 (bit 31) not supported; no transposed 4-bit matrix.
    #[test]
    fn block_scaled_instruction_descriptor() {
        let v = |a: u32, b: u32| a << 7 | b << 10 | 8 << 17 | 1 << 23 | 8 << 24;
        let id = InstrDesc::decode(v(0, 5) | 3 << 4 | 2 << 29, Tc05Kind::Mxf8f6f4, false)
            .expect("valid");
        assert_eq!(
            (id.a, id.b, id.d),
            (MmaElem::E4m3, MmaElem::E2m1, MmaElem::F32)
        );
        assert_eq!((id.sfa_id, id.sfb_id, id.ue8m0), (2, 3, true));
        assert!(!id.satfinite);
        let id = InstrDesc::decode(v(1, 1), Tc05Kind::Mxf4, false).expect("valid");
        assert_eq!((id.a, id.b), (MmaElem::E2m1, MmaElem::E2m1));
        assert!(InstrDesc::decode(v(5, 5), Tc05Kind::Mxf4, false).is_err());
        assert!(InstrDesc::decode(v(1, 1) & !(1 << 23), Tc05Kind::Mxf4, false).is_err());
        let nv = InstrDesc::decode(v(1, 1) & !(1 << 23), Tc05Kind::Mxf4nvf4, false);
        assert!(nv.is_ok_and(|i| !i.ue8m0), "ue4m3");
        assert!(InstrDesc::decode(v(1, 1) | 1 << 31, Tc05Kind::Mxf4nvf4, false).is_err());
        assert!(InstrDesc::decode(v(1, 1) | 1 << 15, Tc05Kind::Mxf4, false).is_err());
        assert!(InstrDesc::decode(v(0, 1) | 3 << 15, Tc05Kind::Mxf8f6f4, false).is_ok());
    }

    /// `.cta_group::2` shapes: M = 128 or 256, N by 16 (`.kind::i8` by 32).
    #[test]
    fn pair_instruction_descriptor() {
        // .kind::f16, f32 D, f16 A and B, N = 64, M = 256: a .cta_group::2 shape only.
        let v = 1 << 4 | (64 >> 3) << 17 | (256 >> 4) << 24;
        assert!(InstrDesc::decode(v, Tc05Kind::F16, false).is_err());
        let d = InstrDesc::decode_in(v, Tc05Kind::F16, false, true).unwrap();
        assert_eq!((d.m, d.n), (256, 64));
        // M = 64 and N = 8 are .cta_group::1 shapes only; .kind::i8 takes N by 32.
        let v64 = 1 << 4 | (64 >> 3) << 17 | (64 >> 4) << 24;
        assert!(InstrDesc::decode_in(v64, Tc05Kind::F16, false, true).is_err());
        let n8 = 1 << 4 | 1 << 17 | (128 >> 4) << 24;
        assert!(InstrDesc::decode_in(n8, Tc05Kind::F16, false, true).is_err());
        let i8n48 = 2 << 4 | (48 >> 3) << 17 | (128 >> 4) << 24;
        assert!(InstrDesc::decode_in(i8n48, Tc05Kind::I8, false, true).is_err());
        let i8n64 = 2 << 4 | (64 >> 3) << 17 | (128 >> 4) << 24;
        assert!(InstrDesc::decode_in(i8n64, Tc05Kind::I8, false, true).is_ok());
    }

    /// `.ws` shapes (Table 39): M = 32, 64 or 128 with N = 64, 128 or 256; bits 30-31 allowed.
    #[test]
    fn ws_instruction_descriptor() {
        let v = |m: u32, n: u32| 1 << 4 | (n >> 3) << 17 | (m >> 4) << 24;
        assert!(InstrDesc::decode(v(128, 64), Tc05Kind::F16, true).is_ok());
        assert!(InstrDesc::decode(v(128, 128) | 3 << 30, Tc05Kind::F16, true).is_ok());
        assert!(InstrDesc::decode(v(128, 128) | 3 << 30, Tc05Kind::F16, false).is_err());
        assert!(InstrDesc::decode(v(128, 32), Tc05Kind::F16, true).is_err());
        assert!(InstrDesc::decode(v(128, 256), Tc05Kind::F16, true).is_ok());
        assert!(InstrDesc::decode(v(64, 64), Tc05Kind::F16, true).is_ok_and(|i| i.m == 64));
        assert!(InstrDesc::decode(v(32, 256), Tc05Kind::F16, true).is_ok_and(|i| i.m == 32));
        assert!(InstrDesc::decode(v(32, 192), Tc05Kind::F16, true).is_err());
        assert!(InstrDesc::decode(v(256, 64), Tc05Kind::F16, true).is_err());
    }

    /// Table 40's fields.
    #[test]
    fn shared_memory_descriptor() {
        let v = 1u64 << 46 | 2 << 61 | 0x40 | 2 << 16 | 64 << 32;
        let d = smem_desc(v).expect("valid");
        assert_eq!((d.start, d.lbo, d.sbo, d.x), (0x400, 32, 1024, 8));
        assert_eq!(smem_desc(1 << 46 | 6 << 61).map(|d| d.x), Ok(2));
        assert_eq!(smem_desc(1 << 46 | 4 << 61).map(|d| d.x), Ok(4));
        assert!(smem_desc(0).is_err(), "version bits");
        assert!(smem_desc(1 << 46 | 3 << 61).is_err());
        assert!(smem_desc(1 << 46 | 1 << 49).is_err());
    }
}
