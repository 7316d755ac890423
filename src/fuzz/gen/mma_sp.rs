//! Sparse warp-level `mma.sp` (PTX ISA §9.7.14.6) of the `sm_80` shapes and types, on the data
//! registers (floating-point inputs are raw register bits), where `mma.sync` goes (CTA-uniform
//! control flow, full warps). The metadata register holds only 4-bit fields the ISA defines
//! (two different, ascending 2-bit indices per 2:4 chunk; `.tf32`'s 1:2 fields `0b0100` or
//! `0b1110`), the same in every lane, so no expansion is undefined; the sparsity selector is
//! in the range ptxas 13.5 takes for the shape and type. `.sp::ordered_metadata` (PTX ISA 8.5)
//! in the `sm_100` flavour, whose `.version` has it.

use super::{mma_form, Class, Gen, Stmt};
use crate::ir::MmaElem;

/// The `mma.sp` forms (shape and types); their fragments and the range of the sparsity
/// selector (`4 / meta_threads`, as the decoder checks it) come from the decoder's spec.
const SP_FORMS: &[&str] = &[
    "m16n8k16.row.col.f32.f16.f16.f32",
    "m16n8k32.row.col.f32.bf16.bf16.f32",
    "m16n8k16.row.col.f16.f16.f16.f16",
    "m16n8k8.row.col.f32.tf32.tf32.f32",
    "m16n8k16.row.col.f32.tf32.tf32.f32",
    "m16n8k32.row.col.s32.s8.s8.s32",
    "m16n8k64.row.col.satfinite.s32.u8.s8.s32",
];

/// The 2:4 metadata fields: two different indices, ascending (0b_i1_i0).
const FIELDS_2_4: &[u32] = &[0x4, 0x8, 0xC, 0x9, 0xD, 0xE];

impl Gen<'_> {
    /// One `mma.sp` on the data registers.
    pub(super) fn mma_sp(&mut self) -> Stmt {
        let &name = self.rng.pick(SP_FORMS);
        let f = mma_form(name, true);
        let tf32 = f.spec.a == MmaElem::Tf32;
        let selectors = 4 / f.spec.meta_threads() as u64;
        let meta = (0..8).fold(0u32, |acc, _| {
            let field = if tf32 {
                *self.rng.pick(&[0x4u32, 0xE])
            } else {
                *self.rng.pick(FIELDS_2_4)
            };
            acc << 4 | field
        });
        let (dc, dn) = f.d;
        let d = self.distinct_regs(dc, dn);
        let regs = |g: &mut Self, c: Class, n: usize| {
            let r: Vec<String> = (0..n).map(|_| g.src_reg(c)).collect();
            format!("{{{}}}", r.join(", "))
        };
        let a = regs(self, Class::B32, f.a.1);
        let b = regs(self, Class::B32, f.b.1);
        let c = regs(self, dc, dn);
        let sel = self.rng.below(selectors);
        let sp = if self.sm100 && self.rng.chance(50) {
            "sp::ordered_metadata"
        } else {
            "sp"
        };
        Stmt::Code(vec![
            format!("mov.b32 %t0, {meta:#010x};"),
            format!(
                "mma.{sp}.sync.aligned.{} {{{}}}, {a}, {b}, {c}, %t0, {sel:#x};",
                f.name,
                d.join(", ")
            ),
        ])
    }
}
