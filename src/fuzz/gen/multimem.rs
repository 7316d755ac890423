//! `multimem` (PTX ISA §9.7.9.14, `sm_90`; the bulk forms §9.7.9.25.4.4-5, PTX ISA 9.1):
//! ptxjit has one device, so a global address is a multicast object bound to memory on that
//! device alone (docs/isa-notes.md) and these forms run on ordinary buffers:
//! `multimem.ld_reduce` reads the read-only input buffer (a reduction over one copy),
//! `multimem.st` and `multimem.red` write the first 128 bytes of the thread's own `out` region
//! (one writer, so the order of a thread's elements does not matter), and (`sm_100` kernels,
//! not `sm_100a`, which then say `.version 9.1`) `multimem.cp.async.bulk` and
//! `multimem.cp.reduce.async.bulk` copy or reduce the thread's own shared slot into those
//! bytes as `Gen::bulk_to_global` does, waited for at once. Scalar `.f16`/`.bf16`
//! `ld_reduce` is not generated: ptxas 13.5 rejects it ("Unexpected instruction types"), and
//! `.acc::f32` needs PTX ISA 8.2 (only the `sm_100` kernels' 8.8 has it).

use super::{Class, Gen, Stmt, IN_BYTES};

/// The element types of `multimem.ld_reduce`/`.red` with their operations, register class and
/// bytes; `x2` types and `.f32` also as `.v2`/`.v4` (at most 16 bytes).
const TYPES: &[(&str, &[&str], Class, u32)] = &[
    ("u32", &["add", "min", "max"], Class::B32, 4),
    ("s32", &["add", "min", "max"], Class::B32, 4),
    ("u64", &["add", "min", "max"], Class::B64, 8),
    ("s64", &["min", "max"], Class::B64, 8),
    ("b32", &["and", "or", "xor"], Class::B32, 4),
    ("b64", &["and", "or", "xor"], Class::B64, 8),
    ("f32", &["add"], Class::F32, 4),
    ("f64", &["add"], Class::F64, 8),
    ("f16x2", &["add", "min", "max"], Class::B32, 4),
    ("bf16x2", &["add", "min", "max"], Class::B32, 4),
];

impl Gen<'_> {
    /// A memory-order qualifier and scope among `sems` (or none, or `.weak` where allowed).
    fn multimem_sem(&mut self, sems: &[&str], weak: bool) -> String {
        match self.rng.below(3) {
            0 => String::new(),
            1 if weak => ".weak".to_string(),
            _ => {
                let sem = *self.rng.pick(sems);
                let scope = *self.rng.pick(&["cta", "cluster", "gpu", "sys"]);
                format!(".{sem}.{scope}")
            }
        }
    }

    /// One `multimem` statement (see the module documentation).
    pub(super) fn multimem(&mut self) -> Stmt {
        // The `sm_100a` kernels keep `.version 8.8` (their `tcgen05` forms).
        let bulk = self.sm100 && !self.sm100a && self.shared;
        let pick = self.rng.below(if bulk { 4 } else { 3 });
        if pick == 3 {
            return self.multimem_bulk();
        }
        let &(ty, ops, class, bytes) = self.rng.pick(TYPES);
        let packed = matches!(ty, "f32" | "f16x2" | "bf16x2");
        let n: u32 = if packed && self.rng.chance(40) {
            *self.rng.pick(&[2, 4])
        } else {
            1
        };
        let total = bytes * n;
        let v = Self::vprefix(n);
        let mut lines = Vec::new();
        match pick {
            0 => {
                let op = *self.rng.pick(ops);
                let acc =
                    if self.sm100 && op == "add" && ty.ends_with("16x2") && self.rng.chance(50) {
                        ".acc::f32"
                    } else {
                        ""
                    };
                let sem = self.multimem_sem(&["relaxed", "acquire"], true);
                self.masked("%gin", (IN_BYTES - total) & !(total - 1), &mut lines);
                let dst = self.vec_dst(class, n);
                lines.push(format!(
                    "multimem.ld_reduce{sem}.global.{op}{acc}{v}.{ty} {dst}, [%td0];"
                ));
            }
            1 => {
                let sem = self.multimem_sem(&["relaxed", "release"], true);
                self.masked("%od", (128 - total) & !(total - 1), &mut lines);
                let src = self.vec_src(class, n);
                lines.push(format!("multimem.st{sem}.global{v}.{ty} [%td0], {src};"));
            }
            _ => {
                // `.red` on floats: `.add` only; `.min`/`.max` of the `x2` types are
                // `ld_reduce`'s.
                let op = if ty.ends_with("16x2") {
                    "add"
                } else {
                    *self.rng.pick(ops)
                };
                let sem = self.multimem_sem(&["relaxed", "release"], false);
                self.masked("%od", (128 - total) & !(total - 1), &mut lines);
                let src = self.vec_src(class, n);
                lines.push(format!(
                    "multimem.red{sem}.global.{op}{v}.{ty} [%td0], {src};"
                ));
            }
        }
        Stmt::Code(lines)
    }

    /// `multimem.cp.async.bulk` or `multimem.cp.reduce.async.bulk` of the own shared slot into
    /// the thread's own `out` bytes, committed and waited for.
    fn multimem_bulk(&mut self) -> Stmt {
        let bytes = *self.rng.pick(&[16u32, 32]);
        let off = *self.rng.pick(&[0u32, 32, 64, 96]);
        let copy = if self.rng.chance(50) {
            let (op, ty) = *self.rng.pick(&[
                ("add", "u32"),
                ("add", "u64"),
                ("min", "s32"),
                ("max", "u32"),
                ("and", "b32"),
                ("or", "b64"),
                ("xor", "b32"),
                ("add", "f32"),
            ]);
            format!(
                "multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.{op}.{ty} [%od+{off}], [%so], {bytes};"
            )
        } else {
            format!(
                "multimem.cp.async.bulk.global.shared::cta.bulk_group [%od+{off}], [%so], {bytes};"
            )
        };
        Stmt::Code(vec![
            "fence.proxy.async.shared::cta;".to_string(),
            copy,
            "cp.async.bulk.commit_group;".to_string(),
            "cp.async.bulk.wait_group 0;".to_string(),
        ])
    }
}
