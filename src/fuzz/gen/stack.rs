//! Dynamic stack allocation (PTX ISA §9.7.17): `stacksave`, `alloca` and `stackrestore` as one
//! statement that saves the stack pointer, allocates (a constant or register size, the default
//! or a given alignment), stores the thread's data into the new bytes and reads them back
//! (`.local` or generic through `cvta.local`), then restores the pointer, so every statement
//! frees what it allocated and the stack never outgrows its reservation. The pointers stay in
//! scratch registers (their values are the implementation's); only bytes the statement
//! stored are read. Both `.u64` and `.u32` pointers (local addresses fit 32 bits).

use super::{Class, Gen, Stmt};

impl Gen<'_> {
    /// One save/allocate/use/restore statement.
    pub(super) fn stack(&mut self) -> Stmt {
        let wide = self.rng.chance(70);
        let (ty, save, ptr) = if wide {
            ("u64", "%td1", "%td0")
        } else {
            ("u32", "%t1", "%t0")
        };
        let mut lines = vec![format!("stacksave.{ty} {save};")];
        // 8 to 64 bytes: enough for the stored pair.
        if self.rng.chance(30) {
            let src = self.src_reg(Class::B32);
            lines.push(format!("and.b32 %t2, {src}, 56;"));
            lines.push("add.u32 %t2, %t2, 8;".to_string());
            if wide {
                lines.push(format!("cvt.u64.u32 {ptr}, %t2;"));
                lines.push(format!("alloca.{ty} {ptr}, {ptr};"));
            } else {
                lines.push(format!("alloca.{ty} {ptr}, %t2;"));
            }
        } else {
            let size = 8 * self.rng.range(1, 8);
            let align = *self.rng.pick(&["", ", 8", ", 16"]);
            lines.push(format!("alloca.{ty} {ptr}, {size}{align};"));
        }
        let space = if wide && self.rng.chance(30) {
            lines.push(format!("cvta.local.u64 {ptr}, {ptr};"));
            ""
        } else {
            ".local"
        };
        let a = self.src_reg(Class::B32);
        let b = self.src_reg(Class::B32);
        lines.push(format!("st{space}.v2.b32 [{ptr}], {{{a}, {b}}};"));
        let (lty, class, size) = *self.rng.pick(&[
            ("u8", Class::B16, 1u64),
            ("s16", Class::B32, 2),
            ("b32", Class::B32, 4),
            ("f32", Class::F32, 4),
            ("b64", Class::B64, 8),
        ]);
        let off = size * self.rng.below(8 / size);
        let d = self.data_reg(class);
        lines.push(format!("ld{space}.{lty} {d}, [{ptr}+{off}];"));
        lines.push(format!("stackrestore.{ty} {save};"));
        Stmt::Code(lines)
    }
}
