//! `wmma` (PTX ISA §9.7.14.4): every shape and type the decoder takes
//! ([`crate::lower::WMMA_SHAPES`], [`crate::lower::wmma_accumulators`]) but the sub-byte ones:
//! `wmma.load` of A, B and C from the read-only input buffer (`.row` or `.col`, the default
//! or a larger stride, at 32-byte-aligned offsets that keep the matrix inside the buffer),
//! `wmma.mma`, and the result folded into data registers; where the kernel has shared
//! memory, at times `wmma.store` of D into the warp's own 32 slots (a 16×16 or 32×8 matrix of
//! 32-bit elements fills them exactly) and, after `bar.warp.sync`, a load of a word of the
//! thread's own slot. A warp collective: it appears where `shfl.sync` may (CTA-uniform
//! control flow, full warps). The fragment registers are the decoder's ([`MmaSpec::regs`]);
//! the fragment layout is ptxjit's (`runtime::mma`), which both engines share; raw input bits
//! (NaNs, infinities, subnormals) are inputs like any.

use super::{Class, Gen, Stmt, IN_BYTES, SHARED_SLOT};
use crate::ir::{MmaElem, MmaFrag, MmaSpec, Type};
use crate::lower::{wmma_accumulators, wmma_spec_of, WMMA_SHAPES};

/// The input types the generator gives `wmma`: every one of the decoder's
/// ([`WMMA_SHAPES`]) but the sub-byte `.s4`, `.u4` and `.b1` (not generated). Shapes,
/// accumulator types and fragment registers come from the decoder ([`WMMA_SHAPES`],
/// [`wmma_accumulators`], [`MmaSpec::regs`]).
const INPUTS: &[MmaElem] = &[
    MmaElem::F16,
    MmaElem::Bf16,
    MmaElem::Tf32,
    MmaElem::S8,
    MmaElem::U8,
    MmaElem::F64,
];

/// The register class of a fragment register of IR type `ty`.
fn class_of(ty: Type) -> Class {
    match ty {
        Type::F32 => Class::F32,
        Type::F64 => Class::F64,
        _ => Class::B32,
    }
}

#[cfg(test)]
/// Fragment registers of each class the renderer declares (`%wm<32>`, `%wmf<16>`,
/// `%wmd<6>`).
fn declared(class: Class) -> usize {
    match class {
        Class::F32 => 16,
        Class::F64 => 6,
        _ => 32,
    }
}

/// Every `wmma` form the generator may draw: `(shape, input type, accumulator type)`.
pub(super) fn wmma_forms() -> Vec<((u8, u8, u16), MmaElem, MmaElem)> {
    let mut forms = Vec::new();
    for &(input, shapes) in WMMA_SHAPES {
        if !INPUTS.contains(&input) {
            continue;
        }
        for &shape in shapes {
            for &acc in wmma_accumulators(input) {
                forms.push((shape, input, acc));
            }
        }
    }
    forms
}

/// The `wmma.mma` type list after the shape (PTX ISA §9.7.14.4.4: `.dtype.ctype` for
/// `.f16` inputs, `.dtype.atype.btype.ctype` for the others).
fn mma_types(input: MmaElem, acc: MmaElem) -> String {
    if input == MmaElem::F16 {
        format!("{acc}.{acc}")
    } else {
        format!("{acc}.{input}.{input}.{acc}")
    }
}

/// The first fragment register of A, B, C and D: each class's matrices one after another.
fn firsts(spec: &MmaSpec) -> [(Class, usize, usize); 4] {
    let mut next = [(Class::B32, 0usize), (Class::F32, 0), (Class::F64, 0)];
    let mut out = [(Class::B32, 0, 0); 4];
    let frags = [
        spec.regs(MmaFrag::A, false),
        spec.regs(MmaFrag::B, false),
        spec.regs(MmaFrag::C, false),
        spec.regs(MmaFrag::C, true),
    ];
    for (i, (n, ty)) in frags.into_iter().enumerate() {
        let class = class_of(ty);
        let slot = next.iter_mut().find(|(c, _)| *c == class).expect("a class");
        out[i] = (class, slot.1, n as usize);
        slot.1 += n as usize;
    }
    out
}

/// The fragment registers `first..first + n` of a class (`%wm` `.b32`, `%wmf` `.f32`,
/// `%wmd` `.f64`, declared by the renderer) as a vector operand.
fn frag(class: Class, first: usize, n: usize) -> String {
    let prefix = match class {
        Class::F32 => "%wmf",
        Class::F64 => "%wmd",
        _ => "%wm",
    };
    let regs: Vec<String> = (first..first + n).map(|i| format!("{prefix}{i}")).collect();
    format!("{{{}}}", regs.join(", "))
}

impl Gen<'_> {
    /// `wmma.load` of a `rows` × `cols` matrix of `bytes`-byte elements from the input buffer
    /// into `dst`, with a random layout and stride.
    fn wmma_load(
        &mut self,
        what: &str,
        shape: &str,
        dims: (u32, u32),
        (ty, bytes): (&str, u32),
        dst: &str,
    ) -> Vec<String> {
        let col = self.rng.chance(50);
        let layout = if col { "col" } else { "row" };
        let (outer, inner) = if col { (dims.1, dims.0) } else { dims };
        // The stride in elements: the leading dimension, or up to 8 more (written out).
        let span_of = |stride: u32| ((outer - 1) * stride + inner) * bytes;
        let mut extra = if self.rng.chance(30) {
            self.rng.range(1, 8) as u32
        } else {
            0
        };
        if span_of(inner + extra) > IN_BYTES {
            extra = 0;
        }
        let stride = inner + extra;
        let span = span_of(stride);
        let mut lines = Vec::new();
        self.masked("%gin", (IN_BYTES - span) & !31, &mut lines);
        let stride_op = if extra > 0 || self.rng.chance(30) {
            format!(", {stride}")
        } else {
            String::new()
        };
        lines.push(format!(
            "wmma.load.{what}.sync.aligned.{layout}.{shape}.global.{ty} {dst}, [%td0]{stride_op};"
        ));
        lines
    }

    /// One `wmma` statement (see the module documentation).
    pub(super) fn wmma(&mut self) -> Stmt {
        let forms = wmma_forms();
        let (shape, input, acc) = forms[self.rng.below(forms.len() as u64) as usize];
        let spec = wmma_spec_of(shape, input, acc);
        let (m, n, k) = (shape.0 as u32, shape.1 as u32, shape.2 as u32);
        let shape = format!("m{m}n{n}k{k}");
        // Registers: A, B, C, D one after another in each class (`%wm` `.b32`, `%wmf`
        // `.f32`, `%wmd` `.f64`).
        let [a, b, c, d] = firsts(&spec).map(|(class, first, n)| frag(class, first, n));
        let cd_class = class_of(spec.regs(MmaFrag::C, true).1);
        let mut lines = Vec::new();
        let ab = (input.to_string(), input.bits() / 8);
        let cd = (acc.to_string(), acc.bits() / 8);
        lines.extend(self.wmma_load("a", &shape, (m, k), (&ab.0, ab.1), &a));
        lines.extend(self.wmma_load("b", &shape, (k, n), (&ab.0, ab.1), &b));
        lines.extend(self.wmma_load("c", &shape, (m, n), (&cd.0, cd.1), &c));
        let al = *self.rng.pick(&["row", "col"]);
        let bl = *self.rng.pick(&["row", "col"]);
        let extra = match acc {
            MmaElem::S32 if self.rng.chance(50) => ".satfinite",
            MmaElem::F64 => *self.rng.pick(&["", ".rn", ".rz", ".rm", ".rp"]),
            _ => "",
        };
        let (rnd, sat) = if acc == MmaElem::F64 {
            (extra, "")
        } else {
            ("", extra)
        };
        lines.push(format!(
            "wmma.mma.sync.aligned.{al}.{bl}.{shape}{rnd}.{}{sat} {d}, {a}, {b}, {c};",
            mma_types(input, acc)
        ));
        // Fold D's registers into data registers (bit patterns, so nothing is rounded).
        let d_regs: Vec<String> = d
            .trim_matches(|ch| ch == '{' || ch == '}')
            .split(", ")
            .map(str::to_string)
            .collect();
        for reg in d_regs {
            match cd_class {
                Class::F64 => {
                    let dst = self.data_reg(Class::B64);
                    lines.push(format!("mov.b64 %td0, {reg};"));
                    lines.push(format!("xor.b64 {dst}, {dst}, %td0;"));
                }
                Class::F32 => {
                    let dst = self.data_reg(Class::B32);
                    lines.push(format!("mov.b32 %t0, {reg};"));
                    lines.push(format!("xor.b32 {dst}, {dst}, %t0;"));
                }
                _ => {
                    let dst = self.data_reg(Class::B32);
                    lines.push(format!("xor.b32 {dst}, {dst}, {reg};"));
                }
            }
        }
        // D into the warp's own slots (a 16×16 of 32-bit elements fills them; the others
        // less), then a word of the thread's own slot.
        if self.shared && self.rng.chance(60) {
            let layout = *self.rng.pick(&["row", "col"]);
            lines.push(format!("mul.wide.u32 %td0, %ln, {SHARED_SLOT};"));
            lines.push("sub.s64 %td0, %so, %td0;".to_string());
            lines.push(format!(
                "wmma.store.d.sync.aligned.{layout}.{shape}.shared.{acc} [%td0], {d};"
            ));
            lines.push("bar.warp.sync -1;".to_string());
            let dst = self.data_reg(Class::B32);
            let at = 4 * self.rng.below((SHARED_SLOT / 4) as u64);
            lines.push(format!("ld.shared.b32 {dst}, [%so+{at}];"));
        }
        Stmt::Code(lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every form's fragments fit the registers the renderer declares, and D stored whole
    /// fits the warp's 32 shared slots.
    #[test]
    fn wmma_forms_fit() {
        let forms = wmma_forms();
        assert!(forms.len() >= 10, "{forms:?}");
        for (shape, input, acc) in forms {
            let spec = wmma_spec_of(shape, input, acc);
            for (class, first, n) in firsts(&spec) {
                assert!(first + n <= declared(class), "{shape:?} {input} {acc}");
            }
            let d_bytes = shape.0 as u32 * shape.1 as u32 * acc.bits() / 8;
            assert!(d_bytes <= 32 * SHARED_SLOT, "{shape:?} {input} {acc}");
        }
    }
}
