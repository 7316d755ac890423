//! The `.kind` forms of `mma` that [`crate::lower::mma_forms`] does not list, which the
//! generator adds to the decoder's forms ([`super::all_mma_forms`]): the block-scaled
//! `mma.sync` (PTX ISA §9.7.14.3, §9.7.14.5.14: `.kind::mxf8f6f4` `.m16n8k32` with every pair of
//! the narrow input types, `.kind::mxf4` and `.kind::mxf4nvf4` `.m16n8k64` `.e2m1`, each with
//! the `.scale_vec::NX` spellings and scale types Table 36 allows) and the sparse `.kind` forms
//! (`mma.sp::ordered_metadata` `.m16n8k64` `.kind::f8f6f4` with an `.f16` or `.f32`
//! accumulator and `.kind::mxf8f6f4 .block_scale`). A test checks the list against the
//! decoder: every combination of kind, scale vector, scale type, shape and types lowers if and
//! only if the list has it (or [`super::matrix::MATRIX_NOT_GENERATED`] says why not).
//!
//! # Operands that are valid by construction
//! A block-scaled `mma` faults (`runtime::mma`, by design) where a byte-id or thread-id selector
//! differs across the warp or is outside ptxas's range, and where a selected `.ue4m3` factor
//! has bit 7 set. So the generated selectors are one value for the whole warp (an immediate,
//! or a `.b16` data register set to one just before), byte-id a multiple of the vector size
//! below 4 (`.scale_vec::1X`: 0-3, `2X`: 0 or 2, `4X`: 0), thread-id-a 0 or 1, thread-id-b
//! 0-3; the scale data registers are any `.b32` source (every `.ue8m0` code is a factor,
//! `0xff` NaN), masked with `0x7f7f7f7f` for `.ue4m3`. One statement in [`FAULTING_ONE_IN`]
//! gives thread-id-a a per-lane value on purpose (`%ln & 1`): both engines must report the
//! same fault. The sparse `.kind` forms take `.sp::ordered_metadata` only and selector 0
//! (ptxas 13.5: "unexpected value '1', expected to be 0"), with [`super::mma_sp`]'s ordered
//! metadata.

use super::{Class, Gen, MmaForm};
use crate::ir::{MmaElem, MmaFamily, MmaScale, MmaScaleKind, MmaSparse, MmaSpec};

/// The input types of `.kind::f8f6f4` and `.kind::mxf8f6f4` (8-bit containers).
const NARROW: [MmaElem; 5] = [
    MmaElem::E4m3,
    MmaElem::E5m2,
    MmaElem::E3m2,
    MmaElem::E2m3,
    MmaElem::E2m1,
];

/// One block-scaled statement in this many gets a per-lane thread-id-a (a fault by design).
pub(super) const FAULTING_ONE_IN: u64 = 40;

/// A `.scale_vec` spelling (empty, or with its leading dot), its vector size and whether the
/// scale type is `.ue4m3`.
type ScaleVec = (&'static str, u8, bool);

/// A block-scaled kind: its [`MmaScaleKind`], `.kind` word, dense K and [`ScaleVec`]s.
type ScaleKind = (MmaScaleKind, &'static str, u16, &'static [ScaleVec]);

/// The `.kind` word, its shape's K (dense), the `.scale_vec` spellings and scale types it takes
/// (Table 36 as the decoder checks it: `.kind::mxf8f6f4` 1X, `.kind::mxf4` 2X, both also
/// without `.scale_vec`; `.kind::mxf4nvf4` 2X or 4X; `.ue4m3` with `.kind::mxf4nvf4` 4X only).
fn scale_kinds() -> [ScaleKind; 3] {
    [
        (
            MmaScaleKind::Mxf8f6f4,
            "mxf8f6f4",
            32,
            &[("", 1, false), (".scale_vec::1X", 1, false)],
        ),
        (
            MmaScaleKind::Mxf4,
            "mxf4",
            64,
            &[("", 2, false), (".scale_vec::2X", 2, false)],
        ),
        (
            MmaScaleKind::Mxf4nvf4,
            "mxf4nvf4",
            64,
            &[
                (".scale_vec::2X", 2, false),
                (".scale_vec::4X", 4, false),
                (".scale_vec::4X", 4, true),
            ],
        ),
    ]
}

/// Every form of this module: the words after `mma.sync.aligned.` (or
/// `mma.sp::ordered_metadata.sync.aligned.`) and the spec they decode to (sparse ones with
/// selector 0).
pub(super) fn kind_forms() -> Vec<(String, MmaSpec)> {
    use MmaElem::{E2m1, F16, F32};
    let mut out = Vec::new();
    let ordered = Some(MmaSparse {
        selector: 0,
        ordered: true,
    });
    for (kind, word, k, vecs) in scale_kinds() {
        let types: Vec<(MmaElem, MmaElem)> = if kind == MmaScaleKind::Mxf8f6f4 {
            NARROW
                .iter()
                .flat_map(|&a| NARROW.iter().map(move |&b| (a, b)))
                .collect()
        } else {
            vec![(E2m1, E2m1)]
        };
        for &(vw, vec, ue4m3) in vecs {
            let st = if ue4m3 { "ue4m3" } else { "ue8m0" };
            let scale = Some(MmaScale { kind, vec, ue4m3 });
            for &(a, b) in &types {
                let spec = |k: u16| MmaSpec {
                    b,
                    scale,
                    ..MmaSpec::new(MmaFamily::Mma, (16, 8, k), a, F32)
                };
                let tail = format!(".kind::{word}.block_scale{vw}.f32.{a}.{b}.f32.{st}");
                out.push((format!("m16n8k{k}.row.col{tail}"), spec(k)));
                // The sparse block-scaled forms: `.m16n8k64` `.kind::mxf8f6f4` and `.m16n8k128`
                // `.kind::mxf4`/`::mxf4nvf4` (twice the dense K).
                let k = 2 * k;
                out.push((
                    format!("m16n8k{k}.row.col{tail}"),
                    MmaSpec {
                        sparse: ordered,
                        ..spec(k)
                    },
                ));
            }
        }
    }
    for a in NARROW {
        for b in NARROW {
            for c in [F16, F32] {
                out.push((
                    format!("m16n8k64.row.col.kind::f8f6f4.{c}.{a}.{b}.{c}"),
                    MmaSpec {
                        b,
                        sparse: ordered,
                        ..MmaSpec::new(MmaFamily::Mma, (16, 8, 64), a, c)
                    },
                ));
            }
        }
    }
    out
}

/// Whether a form of this name needs PTX ISA 9.1 (`.scale_vec::4X` with `.ue8m0`: ptxas 13.5
/// "Feature 'mma with .scale_vec::4X and .ue8m0 scale type' requires PTX ISA .version 9.1 or
/// later"), which the `sm_120a` flavour's 8.8 is not: its kernels then say `.version 9.1`
/// (`render`).
pub(super) fn needs_ptx_91(name: &str) -> bool {
    name.contains(".scale_vec::4X.") && name.ends_with(".ue8m0")
}

/// The share (percent) of the `mma` statements of a kernel whose pool has forms of this
/// module that draw one of them ([`Gen::pick_mma`]): they are a small part of the `sm_120a`
/// pools, which hold every dense and sparse form of the earlier targets too.
const KIND_SHARE: u32 = 35;

impl Gen<'_> {
    /// A form of `forms` (a non-empty pool): [`KIND_SHARE`] percent of the time, where the pool
    /// has any, one of the block-scaled or sparse `.kind` forms, its spelling (kind,
    /// `.scale_vec`, scale type) drawn first and then its types, so that each spelling is
    /// drawn as often as the others however many type pairs it has; otherwise any form.
    pub(super) fn pick_mma(&mut self, forms: &[MmaForm]) -> MmaForm {
        let key = |f: &MmaForm| -> Option<String> {
            let kind = f.spec.scale.is_some() || f.ordered_only();
            kind.then(|| {
                let words: Vec<&str> = f
                    .name
                    .split('.')
                    .filter(|w| MmaElem::from_modifier(w).is_none())
                    .collect();
                words.join(".")
            })
        };
        let mut keys: Vec<String> = forms.iter().filter_map(key).collect();
        keys.sort();
        keys.dedup();
        if keys.is_empty() || !self.rng.chance(KIND_SHARE) {
            return *self.rng.pick(forms);
        }
        let k = self.rng.pick(&keys).clone();
        let group: Vec<MmaForm> = forms
            .iter()
            .filter(|f| key(f).as_ref() == Some(&k))
            .copied()
            .collect();
        *self.rng.pick(&group)
    }

    /// The operands a block-scaled form `f` takes after C (and `mma.sp`'s selector), with a
    /// leading `, `: `scale-a-data, {byte-id-a, thread-id-a}, scale-b-data, {byte-id-b,
    /// thread-id-b}` (module documentation); the lines that set them up go to `lines`, which
    /// uses `%t1` and `%t2`. Empty for the other forms.
    pub(super) fn scale_operands(&mut self, f: &MmaForm, lines: &mut Vec<String>) -> String {
        let Some(sc) = f.spec.scale else {
            return String::new();
        };
        let faulting = self.rng.below(FAULTING_ONE_IN) == 0;
        // Four different `.b16` registers, one a selector, so that no selector's register is
        // set twice.
        let hs = self.distinct_regs(Class::B16, 4);
        let mut out = String::new();
        for (i, (which, tmp, threads)) in [('a', "%t1", 2u64), ('b', "%t2", 4)]
            .into_iter()
            .enumerate()
        {
            let mut data = self.src_reg(Class::B32);
            if sc.ue4m3 {
                lines.push(format!("and.b32 {tmp}, {data}, 0x7f7f7f7f;"));
                data = tmp.to_string();
            }
            let vec = u64::from(sc.vec);
            let byte = vec * self.rng.below(4 / vec);
            let thread = self.rng.below(threads);
            let mut sel = [byte.to_string(), thread.to_string()];
            for (j, s) in sel.iter_mut().enumerate() {
                let h = &hs[2 * i + j];
                if faulting && which == 'a' && j == 1 {
                    lines.push(format!("cvt.u16.u32 {h}, %ln;"));
                    lines.push(format!("and.b16 {h}, {h}, 1;"));
                    *s = h.clone();
                } else if self.rng.chance(40) {
                    lines.push(format!("mov.b16 {h}, {s};"));
                    *s = h.clone();
                }
            }
            out += &format!(", {data}, {{{}, {}}}", sel[0], sel[1]);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::gen::matrix::{form_name, MATRIX_NOT_GENERATED};

    /// A `sm_120a` module of PTX ISA 9.1 (which admits every form here) with one `mma`.
    fn lowers(inst: &str) -> Result<(), String> {
        let text = format!(
            ".version 9.1\n.target sm_120a\n.address_size 64\n.visible .entry k()\n{{\n\
             .reg .b32 %r<40>;\n.reg .f32 %f<40>;\n{inst}\nret;\n}}\n"
        );
        crate::host::front_end(&text, "m.ptx")
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn regs(prefix: &str, first: usize, n: usize) -> String {
        let r: Vec<String> = (first..first + n).map(|i| format!("{prefix}{i}")).collect();
        format!("{{{}}}", r.join(", "))
    }

    /// The generator's `mma` forms ([`kind_forms`] with the decoder's list) are exactly what
    /// the decoder takes of the `.kind` words: every
    /// combination of kind, `.scale_vec`, scale type, K, input and accumulator types, dense and
    /// sparse, lowers if and only if the list has it and no [`MATRIX_NOT_GENERATED`] pattern
    /// leaves it out (those are the forms the decoder refuses for now). The fragments are the
    /// sizes §9.7.14.5.14 gives these shapes (A four registers, B two, four when sparse; C and D
    /// four `.f32` or two `.f16x2`), and the list's specs must give the same.
    #[test]
    fn kind_forms_are_the_decoders() {
        let listed: std::collections::HashMap<(String, bool), MmaSpec> =
            super::super::all_mma_forms()
                .iter()
                .map(|f| ((f.name.to_string(), f.spec.sparse.is_some()), f.spec))
                .collect();
        let mut checked = 0;
        for sparse in [false, true] {
            for kind in ["f8f6f4", "mxf8f6f4", "mxf4", "mxf4nvf4"] {
                let scaled = kind != "f8f6f4";
                let vecs: &[&str] = if scaled {
                    &["", ".scale_vec::1X", ".scale_vec::2X", ".scale_vec::4X"]
                } else {
                    &[""]
                };
                let sts: &[&str] = if scaled {
                    &["", ".ue8m0", ".ue4m3"]
                } else {
                    &[""]
                };
                let bs = if scaled { ".block_scale" } else { "" };
                for vw in vecs {
                    for st in sts {
                        for k in [32u16, 64, 128] {
                            for a in NARROW {
                                for b in NARROW {
                                    for c in [MmaElem::F16, MmaElem::F32] {
                                        let name = format!(
                                            "m16n8k{k}.row.col.kind::{kind}{bs}{vw}.{c}.{a}.{b}.{c}{st}"
                                        );
                                        let (cc, cn) = if c == MmaElem::F32 {
                                            ("%f", 4)
                                        } else {
                                            ("%r", 2)
                                        };
                                        let nb = if sparse { 4 } else { 2 };
                                        let (op, sel) = if sparse {
                                            ("mma.sp::ordered_metadata", ", %r30, 0")
                                        } else {
                                            ("mma", "")
                                        };
                                        let scale = if scaled {
                                            ", %r31, {0, 0}, %r32, {0, 0}"
                                        } else {
                                            ""
                                        };
                                        let inst = format!(
                                            "{op}.sync.aligned.{name} {}, {}, {}, {}{sel}{scale};",
                                            regs(cc, 0, cn),
                                            regs("%r", 10, 4),
                                            regs("%r", 20, nb),
                                            regs(cc, 5, cn),
                                        );
                                        let got = lowers(&inst);
                                        let entry = listed.get(&(name.clone(), sparse));
                                        let shown = format!(
                                            "{} {name}",
                                            if sparse { "mma.sp" } else { "mma.sync" }
                                        );
                                        let excused = MATRIX_NOT_GENERATED
                                            .iter()
                                            .any(|(p, _)| shown.contains(p));
                                        match (got, entry.is_some() && !excused) {
                                            (Ok(()), true) | (Err(_), false) => {}
                                            (Ok(()), false) => panic!(
                                                "{inst} lowers but the generator does not have \
                                                 it (kind_forms), or MATRIX_NOT_GENERATED \
                                                 leaves it out"
                                            ),
                                            (Err(e), true) => {
                                                panic!("{inst} is the generator's but: {e}")
                                            }
                                        }
                                        if let Some(spec) = entry {
                                            let f = MmaForm::of("", *spec);
                                            assert_eq!(
                                                (f.a.1, f.b.1, f.c.1, f.d.1),
                                                (4, nb, cn, cn),
                                                "{name}"
                                            );
                                            assert_eq!(form_name(&f).starts_with("mma.sp"), sparse);
                                        }
                                        checked += 1;
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 1000);
    }

    /// A kernel with a `.scale_vec::4X` `.ue8m0` `mma` says `.version 9.1` (which its form
    /// needs, or 9.5 for a `fabric` instruction); other `sm_120a` kernels keep 8.8 unless a
    /// `multimem.cp` form or a `fabric` instruction raises them.
    #[test]
    fn scale_4x_ue8m0_raises_the_version() {
        use crate::fuzz::gen::{generate, GenConfig};
        use crate::fuzz::rng::Rng;
        let (mut raised, mut kept) = (0, 0);
        for seed in 0..3000 {
            let k = generate(&mut Rng::seeded(seed), GenConfig { size: 60 });
            if !k.sm120a {
                continue;
            }
            let text = k.render();
            let needs = text
                .lines()
                .any(|l| l.contains(".scale_vec::4X.") && l.contains(".ue8m0 {"));
            // 9.5 with a `fabric` instruction.
            let v91 = text.contains(".version 9.1\n") || text.contains(".version 9.5\n");
            if needs {
                assert!(v91, "seed {seed}: 4X .ue8m0 without .version 9.1");
                raised += 1;
            } else if !text.contains("multimem.cp.") && !text.contains("fabric.") {
                assert!(text.contains(".version 8.8\n"), "seed {seed}");
                kept += 1;
            }
        }
        assert!(raised > 0 && kept > 0, "{raised} raised, {kept} kept");
    }
}
