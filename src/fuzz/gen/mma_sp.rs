//! Sparse warp-level `mma.sp` (PTX ISA §9.7.14.6) of every shape and type the decoder takes
//! that the kernel's header admits ([`super::matrix`]), on the data registers (floating-point
//! inputs are raw register bits), where `mma.sync` goes (CTA-uniform control flow, full
//! warps). The metadata register holds only 4-bit fields the ISA defines (two different,
//! ascending 2-bit indices per chunk: 2:4, and for the 4-bit types 4:8 in pairs; `.tf32`'s 1:2
//! fields `0b0100` or `0b1110`), the same in every lane, so no expansion is undefined; the
//! sparsity selector is in the range the decoder checks (`4 / meta_threads`).
//! `.sp::ordered_metadata` (PTX ISA 8.5) where the header admits it.

use super::{Class, Gen, Stmt};
use crate::ir::MmaElem;

/// The 2:4 metadata fields: two different indices, ascending (0b_i1_i0).
const FIELDS_2_4: &[u32] = &[0x4, 0x8, 0xC, 0x9, 0xD, 0xE];

/// The share (percent) of the `mma.sp` statements of a kernel whose pool holds the sparse
/// block-scaled 4-bit forms (`.m16n8k128` `.kind::mxf4`/`::mxf4nvf4`, `sm_120a`) that draw
/// one of them (through [`Gen::pick_mma`] over those forms alone, each spelling as often as
/// the others); the rest draw from the whole pool. Without it they were one `mma.sp` in five
/// of the 3.5% of kernels that are `sm_120a`: about one kernel in 800.
const SPARSE_FP4_SHARE: u32 = 35;

impl Gen<'_> {
    /// One `mma.sp` on the data registers.
    pub(super) fn mma_sp(&mut self) -> Stmt {
        let forms = self.mma_pool(true);
        let fp4: Vec<_> = forms
            .iter()
            .filter(|f| f.name.contains(".kind::mxf4"))
            .copied()
            .collect();
        let f = if !fp4.is_empty() && self.rng.chance(SPARSE_FP4_SHARE) {
            self.pick_mma(&fp4)
        } else {
            self.pick_mma(&forms)
        };
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
        // The `.kind` forms: `::ordered_metadata` and selector 0 only ([`super::mma_kind`]).
        let sel = if f.ordered_only() {
            0
        } else {
            self.rng.below(selectors)
        };
        let ordered =
            crate::lower::admits("mma", &f.words(Some("sp::ordered_metadata")), self.header());
        let sp = if f.needs_ordered() || (ordered && self.rng.chance(50)) {
            "sp::ordered_metadata"
        } else {
            "sp"
        };
        let mut lines = vec![format!("mov.b32 %t0, {meta:#010x};")];
        let scale = self.scale_operands(&f, &mut lines);
        lines.push(format!(
            "mma.{sp}.sync.aligned.{} {{{}}}, {a}, {b}, {c}, %t0, {sel:#x}{scale};",
            f.name,
            d.join(", ")
        ));
        Stmt::Code(lines)
    }
}
