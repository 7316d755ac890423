//! `stmatrix` (PTX ISA §9.7.14.5.16, `sm_90`): a warp stores one to four matrices (8×8 of
//! `.b16`, or `.m16n8` of `.b8` on the `sm_100a`/`sm_120a` flavours: the forms of the decoder's
//! list the header admits, [`super::matrix`]) from its fragment registers, each 16-byte row
//! to the address one lane gives (lanes 0-7 for `.x1`, 0-15 for `.x2`, all for `.x4`). Every lane gives a row in its own shared slot
//! (either half), so each row lands in the slot of the lane that named it and no two rows
//! overlap; the statement runs where `ldmatrix` does (CTA-uniform control flow, full warps)
//! and ends with a `bar.warp.sync` before the lanes read their slots back.

use super::matrix::move_pool;
use super::{Class, Gen, Stmt};

impl Gen<'_> {
    /// One `stmatrix` and a read of the own slot's row.
    pub(super) fn stmatrix(&mut self) -> Stmt {
        let moves = move_pool(self.header(), "stmatrix");
        let &(_, shape, elems, n, trans, _) = self.rng.pick(&moves);
        let trans = if trans { ".trans" } else { "" };
        let space = *self.rng.pick(&[".shared", ".shared::cta"]);
        let half = if self.rng.chance(50) { 16 } else { 0 };
        let srcs: Vec<String> = (0..n).map(|_| self.src_reg(Class::B32)).collect();
        let (ty, class, size) = *self.rng.pick(&[
            ("b32", Class::B32, 4u32),
            ("u16", Class::B16, 2),
            ("v2.b32", Class::B32, 8),
        ]);
        let off = half + size * self.rng.below((16 / size) as u64) as u32;
        let dst = if ty == "v2.b32" {
            format!("{{{}}}", self.distinct_regs(class, 2).join(", "))
        } else {
            self.data_reg(class)
        };
        Stmt::Code(vec![
            "bar.warp.sync -1;".to_string(),
            format!(
                "stmatrix.sync.aligned.{shape}.x{n}{trans}{space}.{elems} [%so+{half}], {{{}}};",
                srcs.join(", ")
            ),
            "bar.warp.sync -1;".to_string(),
            format!("ld.shared.{ty} {dst}, [%so+{off}];"),
        ])
    }
}
