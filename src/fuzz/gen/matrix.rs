//! Warp-level matrix instructions drawn from the decoder's own lists: `mma.sync` and `mma.sp`
//! of every shape and type the decoder takes ([`crate::lower::mma_forms`]: the `sm_80`
//! shapes, `.f64` with its roundings and `.m16n8` shapes, the quad-pair `.m8n8k4` `.f16`
//! layouts, `.e4m3`/`.e5m2` `.m16n8k16`/`k32`, `.kind::f8f6f4`, the sparse 4-bit and FP8 forms),
//! and the matrix moves `ldmatrix`, `stmatrix` and `movmatrix` of every shape and element
//! format ([`crate::lower::MATRIX_MOVES`]: also `.m16n16`/`.m8n16` `.b8` and the packed
//! `.b8x16.b6x16_p32`/`.b4x16_p64` unpacking, `stmatrix .m16n8 .b8`). A kernel draws only the
//! forms its module header admits ([`crate::lower::admits`], the decoder table's own target
//! and version checks), so a form the decoder learns is fuzzed without an edit here; the
//! generator's test fails when a form of those lists is drawn by no flavour and not listed
//! as not generated, with why.
//!
//! Inputs are the data registers' raw bits, NaN and infinity encodings of every format
//! included: both engines call the one `runtime::mma` routine, whose sum order
//! (docs/isa-notes.md) is fixed, so a NaN or an overflow gives the same bits in both.

use super::{all_mma_forms, flavour_header, mma_kind, Class, Gen, MmaForm, Stmt, SHARED_SLOT};
use crate::lower::{admits, MoveTrans, MATRIX_MOVES};
use crate::ptx::target::{Header, Version};

/// A matrix move form of [`MATRIX_MOVES`] with one count and `.trans` choice: opcode, shape,
/// element words, count, `.trans`, registers per matrix.
pub(super) type Move = (&'static str, &'static str, &'static str, u32, bool, u32);

/// The modifier words of a move (as [`admits`] takes them).
pub(super) fn move_words(m: &Move) -> Vec<String> {
    let (_, shape, elems, n, trans, _) = *m;
    let mut w = vec!["sync".to_string(), "aligned".into(), shape.into()];
    if n > 0 {
        w.push(format!("x{n}"));
    }
    if trans {
        w.push("trans".into());
    }
    if n > 0 {
        w.push("shared".into());
    }
    w.extend(elems.split('.').map(str::to_string));
    w
}

/// Every move of [`MATRIX_MOVES`] (each count, each `.trans` choice the form takes).
pub(super) fn all_moves() -> Vec<Move> {
    let mut out = Vec::new();
    for &(op, shape, elems, nums, trans, per) in MATRIX_MOVES {
        let ts: &[bool] = match trans {
            MoveTrans::Optional => &[false, true],
            MoveTrans::Required => &[true],
            MoveTrans::Refused => &[false],
        };
        let ns: &[u32] = if nums.is_empty() { &[0] } else { nums };
        for &n in ns {
            for &t in ts {
                out.push((op, shape, elems, n, t, per));
            }
        }
    }
    out
}

/// Forms of the decoder's lists the generator leaves out, each with why: a form whose name
/// (`mma.sync NAME`, `mma.sp NAME`, `ldmatrix WORDS`, as [`form_name`] spells it) contains
/// the pattern. The generator's test checks that each pattern still matches a form.
pub(super) const MATRIX_NOT_GENERATED: &[(&str, &str)] = &[];

/// The name of an `mma` form in [`MATRIX_NOT_GENERATED`] and the generator's tests.
pub(super) fn form_name(f: &MmaForm) -> String {
    let op = if f.spec.sparse.is_some() {
        "mma.sp"
    } else {
        "mma.sync"
    };
    format!("{op} {}", f.name)
}

/// The `mma` forms `header` admits (`sparse`: the `.sp` ones, as `mma.sp`), but those of
/// [`MATRIX_NOT_GENERATED`].
pub(super) fn mma_pool(header: Header, sparse: bool) -> Vec<MmaForm> {
    all_mma_forms()
        .iter()
        .filter(|f| f.spec.sparse.is_some() == sparse)
        .filter(|f| {
            let name = form_name(f);
            !MATRIX_NOT_GENERATED.iter().any(|(p, _)| name.contains(p))
        })
        .filter(|f| {
            let words = f.words(sparse.then_some(sp_word(f)));
            admits("mma", &words, form_header(header, f))
        })
        .copied()
        .collect()
}

/// The `.sp` word [`mma_pool`] checks a sparse form with: `.sp::ordered_metadata` for the
/// forms that take nothing else ([`MmaForm::needs_ordered`]: the `.kind` forms, FP8 with an
/// `.f16` accumulator), `.sp` for the others.
fn sp_word(f: &MmaForm) -> &'static str {
    if f.needs_ordered() {
        "sp::ordered_metadata"
    } else {
        "sp"
    }
}

/// The header a kernel of `header` has where it holds form `f`: PTX ISA 9.1 for the forms
/// that need it ([`mma_kind::needs_ptx_91`]; `render` raises the kernel's `.version`).
pub(super) fn form_header(header: Header, f: &MmaForm) -> Header {
    let v91 = Version(9, 1);
    if mma_kind::needs_ptx_91(f.name) && header.version < v91 {
        Header {
            version: v91,
            ..header
        }
    } else {
        header
    }
}

/// The moves of opcode `op` that `header` admits.
pub(super) fn move_pool(header: Header, op: &str) -> Vec<Move> {
    all_moves()
        .into_iter()
        .filter(|m| m.0 == op)
        .filter(|m| {
            let words = move_words(m);
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            admits(op, &words, header)
        })
        .collect()
}

impl Gen<'_> {
    /// The module header of this kernel's flavour.
    pub(super) fn header(&self) -> Header {
        flavour_header(self.sm90, self.sm100, self.sm90a, self.sm100a, self.sm120a)
    }

    /// The `mma` forms this kernel may draw. Not the `.f64` forms beside `tcgen05`: ptxas
    /// 13.5 then fails register allocation (255 registers) on kernels whose `tcgen05.ld`
    /// loads 128 registers.
    pub(super) fn mma_pool(&self, sparse: bool) -> Vec<MmaForm> {
        let mut pool = mma_pool(self.header(), sparse);
        if self.sm100a {
            pool.retain(|f| ![f.a.0, f.b.0, f.c.0, f.d.0].contains(&Class::F64));
        }
        pool
    }

    /// A warp-wide matrix instruction (convergent code, full warps only): `mma.sync` of a
    /// form the header admits on the data registers, `movmatrix`, or (with shared memory)
    /// `ldmatrix` of rows in the warp's own shared slots after a `bar.warp.sync`, each lane
    /// giving the row of another lane of its warp (`%ln ^ x`, either half of its slot; every
    /// shape's rows are 16 bytes).
    pub(super) fn matrix(&mut self) -> Stmt {
        let pick = self.rng.below(if self.shared { 6 } else { 5 });
        if pick == 4 {
            let moves = move_pool(self.header(), "movmatrix");
            let &(_, shape, elems, _, _, _) = self.rng.pick(&moves);
            let d = self.data_reg(Class::B32);
            let a = self.src_reg(Class::B32);
            return Stmt::Code(vec![format!(
                "movmatrix.sync.aligned.{shape}.trans.{elems} {d}, {a};"
            )]);
        }
        if pick == 5 {
            let moves = move_pool(self.header(), "ldmatrix");
            let &(_, shape, elems, n, trans, per) = self.rng.pick(&moves);
            let trans = if trans { ".trans" } else { "" };
            let x = self.rng.below(32);
            let half = if self.rng.chance(50) { 16 } else { 0 };
            let dst = self.distinct_regs(Class::B32, (n * per) as usize);
            return Stmt::Code(vec![
                "bar.warp.sync -1;".to_string(),
                format!("xor.b32 %t0, %ln, {x};"),
                "sub.s32 %t0, %t0, %ln;".to_string(),
                format!("mul.wide.s32 %td0, %t0, {SHARED_SLOT};"),
                "add.s64 %td0, %so, %td0;".to_string(),
                format!(
                    "ldmatrix.sync.aligned.{shape}.x{n}{trans}.shared.{elems} {{{}}}, [%td0+{half}];",
                    dst.join(", ")
                ),
            ]);
        }
        let forms = self.mma_pool(false);
        let f = self.pick_mma(&forms);
        let (dc, dn) = f.d;
        // More `.f32` results than the pool has registers (the quad-pair `.m8n8k4` form's
        // eight): `.b32` ones, which the decoder and ptxas take for `.f32` elements.
        let room = super::POOL.iter().find(|p| p.0 == dc).map_or(0, |p| p.2) as usize;
        let dc = if dn > room { Class::B32 } else { dc };
        let d = self.distinct_regs(dc, dn);
        let mut srcs = Vec::new();
        for (c, n) in [f.a, f.b, f.c] {
            let regs: Vec<String> = (0..n).map(|_| self.src_reg(c)).collect();
            srcs.push(format!("{{{}}}", regs.join(", ")));
        }
        let mut lines = Vec::new();
        let scale = self.scale_operands(&f, &mut lines);
        lines.push(format!(
            "mma.sync.aligned.{} {{{}}}, {}{scale};",
            f.name,
            d.join(", "),
            srcs.join(", ")
        ));
        Stmt::Code(lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::gen::flavour_header;

    /// A module of `header` with one instruction `inst` (registers `%r`, `%f`, `%d` and the
    /// address `%rd1` declared).
    fn module(header: Header, inst: &str) -> String {
        let arch = header.arch.expect("a target");
        format!(
            ".version {}\n.target {arch}\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
             .reg .b32 %r<40>;\n.reg .f32 %f<40>;\n.reg .f64 %d<40>;\n.reg .b64 %rd<2>;\n\
             .shared .align 16 .b8 s[512];\nmov.u64 %rd1, s;\n{inst}\nret;\n}}\n",
            header.version
        )
    }

    fn regs(prefix: &str, first: usize, n: usize) -> String {
        let r: Vec<String> = (first..first + n).map(|i| format!("{prefix}{i}")).collect();
        format!("{{{}}}", r.join(", "))
    }

    fn reg_prefix(c: Class) -> &'static str {
        match c {
            Class::F32 => "%f",
            Class::F64 => "%d",
            _ => "%r",
        }
    }

    /// [`MATRIX_MOVES`] is exactly what the decoder takes: every combination of the moves'
    /// shapes, element words, counts and `.trans` lowers on `sm_120a` (which admits them all)
    /// if and only if the list has it.
    #[test]
    fn matrix_moves_are_the_decoders() {
        let h = flavour_header(true, true, false, false, true);
        let listed = all_moves();
        for op in ["ldmatrix", "stmatrix"] {
            for shape in ["m8n8", "m16n16", "m8n16", "m16n8"] {
                for elems in ["b16", "b8", "b8x16.b6x16_p32", "b8x16.b4x16_p64"] {
                    for n in [1u32, 2, 4] {
                        for trans in [false, true] {
                            let per = if shape == "m16n16" { 2 } else { 1 };
                            let m: Move = (op, shape, elems, n, trans, per);
                            let w = move_words(&m).join(".");
                            let r = regs("%r", 0, (n * per) as usize);
                            let inst = if op == "ldmatrix" {
                                format!("ldmatrix.{w} {r}, [%rd1];")
                            } else {
                                format!("stmatrix.{w} [%rd1], {r};")
                            };
                            let ok = crate::host::front_end(&module(h, &inst), "m.ptx").is_ok();
                            assert_eq!(ok, listed.contains(&m), "{inst}");
                        }
                    }
                }
            }
        }
    }

    /// Every `mma` form a flavour draws lowers in a module of its header (the decoder's list
    /// and its checks agree).
    #[test]
    fn drawn_mma_forms_lower() {
        for (sm90, sm100, sm90a, sm100a, sm120a) in [
            (false, false, false, false, false),
            (true, false, true, false, false),
            (true, true, false, false, false),
            (true, true, false, false, true),
        ] {
            let h = flavour_header(sm90, sm100, sm90a, sm100a, sm120a);
            for sparse in [false, true] {
                for f in mma_pool(h, sparse) {
                    let mut at = 0;
                    let mut frag = |(c, n): (Class, usize)| {
                        at += n;
                        regs(reg_prefix(c), at - n, n)
                    };
                    let (d, a, b, c) = (frag(f.d), frag(f.a), frag(f.b), frag(f.c));
                    let scale = if f.spec.scale.is_some() {
                        ", %r37, {0, 0}, %r38, {0, 0}"
                    } else {
                        ""
                    };
                    let inst = if sparse {
                        format!(
                            "mma.{}.sync.aligned.{} {d}, {a}, {b}, {c}, %r39, 0{scale};",
                            sp_word(&f),
                            f.name
                        )
                    } else {
                        format!("mma.sync.aligned.{} {d}, {a}, {b}, {c}{scale};", f.name)
                    };
                    let h = form_header(h, &f);
                    if let Err(e) = crate::host::front_end(&module(h, &inst), "m.ptx") {
                        panic!("{inst} ({:?}): {e}", h.arch);
                    }
                }
            }
        }
    }
}
