//! The warpgroup matrix multiply of the `sm_90a` flavour: `wgmma.mma_async` (dense and
//! `.sp`) on registers and matrices in the shared `fz_wg`, and the helpers that fill `fz_wg` and
//! build its matrix descriptors, which the `tcgen05` statements ([`super::tcgen05`]) share.
//! Why the results are determined: the module documentation of [`super`].

use super::{Class, Gen, Stmt, WG_BYTES};

/// A dense `wgmma.mma_async` type combination (PTX ISA §9.7.15.5.2) the generator emits:
/// `.dtype.atype.btype` (with `.and.popc` for `.b1`), A's element bytes (1 for the bit and
/// 8-bit types, whose layouts are those of bytes), K, and the immediates after `scale-d`:
/// imm-scale-a/b (`scale`) and imm-trans-a/b (`trans`, 16-bit types only).
#[derive(Clone, Copy)]
pub(super) struct WgmmaForm {
    pub(super) types: &'static str,
    /// `.f32` accumulators (`%wf`), else `.b32` ones (`%wi`: `.s32`, or `.f16x2`).
    pub(super) f32_acc: bool,
    /// Two `.f16` per accumulator register.
    pub(super) f16_acc: bool,
    pub(super) ebytes: u32,
    pub(super) k: u32,
    pub(super) scale: bool,
    pub(super) trans: bool,
    /// 8-bit integers may saturate (`.satfinite`).
    pub(super) int8: bool,
    /// N must be 8, 16, 24 or a multiple of 16 (8-bit and bit inputs).
    pub(super) n16: bool,
    /// The `or` mask and `and` mask (over a `.b32` of packed elements) that make elements
    /// small values with few significand bits (exact products and sums), or none.
    pub(super) exact: Option<(u32, u32)>,
}

const fn wg(
    types: &'static str,
    acc: u8,
    ebytes: u32,
    k: u32,
    scale: bool,
    trans: bool,
    exact: Option<(u32, u32)>,
) -> WgmmaForm {
    WgmmaForm {
        types,
        f32_acc: acc == 0,
        f16_acc: acc == 2,
        ebytes,
        k,
        scale,
        trans,
        int8: acc == 1 && ebytes == 1 && k == 32,
        n16: ebytes == 1 && !scale,
        exact,
    }
}

/// `acc`: 0 `.f32`, 1 `.s32`, 2 `.f16`.
pub(super) const WGMMA_FORMS: &[WgmmaForm] = &[
    wg(
        "f32.f16.f16",
        0,
        2,
        16,
        true,
        true,
        Some((0x3c00_3c00, 0x8300_8300)),
    ),
    wg(
        "f16.f16.f16",
        2,
        2,
        16,
        true,
        true,
        Some((0x3c00_3c00, 0x8300_8300)),
    ),
    wg(
        "f32.bf16.bf16",
        0,
        2,
        16,
        true,
        true,
        Some((0x3f80_3f80, 0x8060_8060)),
    ),
    wg(
        "f32.tf32.tf32",
        0,
        4,
        8,
        true,
        false,
        Some((0x3f80_0000, 0x8060_0000)),
    ),
    wg("s32.s8.s8", 1, 1, 32, false, false, None),
    wg("s32.u8.s8", 1, 1, 32, false, false, None),
    wg("s32.s8.u8", 1, 1, 32, false, false, None),
    wg("s32.u8.u8", 1, 1, 32, false, false, None),
    wg(
        "f32.e4m3.e4m3",
        0,
        1,
        32,
        true,
        false,
        Some((0x3838_3838, 0x8686_8686)),
    ),
    wg(
        "f32.e5m2.e4m3",
        0,
        1,
        32,
        true,
        false,
        Some((0x3c3c_3c3c, 0x8383_8383)),
    ),
    wg(
        "f16.e4m3.e5m2",
        2,
        1,
        32,
        true,
        false,
        Some((0x3838_3838, 0x8686_8686)),
    ),
    wg("s32.b1.b1.and.popc", 1, 1, 256, false, false, None),
];

impl Gen<'_> {
    /// A `wgmma.mma_async` group (PTX ISA §9.7.15, `sm_90a` flavour, CTA-uniform control flow
    /// before any exit: every warpgroup of the CTA runs it whole). Every thread fills its
    /// 16-byte units of `fz_wg` from data registers (raw bits, or small values with few
    /// significand bits), then `fence.proxy.async.shared::cta` (its generic-proxy stores
    /// before the async proxy reads them) and `bar.sync 0`, sometimes a `setmaxnreg` (no
    /// effect; its count checked); the accumulators are set from
    /// data registers; then `wgmma.fence`, one to three `wgmma.mma_async` on the same
    /// accumulators (A from a descriptor or from registers, B from a descriptor; the
    /// descriptors CTA-uniform, each matrix inside `fz_wg` in any canonical layout, swizzled
    /// ones at the pattern's alignment; a uniform `scale-d`), `commit_group`s,
    /// `wait_group 0`, and `bar.sync 0` before the next fill. The accumulators are folded
    /// into a data register (and one copied), so every one reaches the output. The sum order
    /// of the multiply is unspecified by the ISA; ptxjit documents its own (docs/isa-notes.md,
    /// the "`wgmma` sum order and precision" row), which both engines share.
    pub(super) fn wgmma(&mut self) -> Stmt {
        let f = *self.rng.pick(WGMMA_FORMS);
        let ns: &[u32] = if f.n16 {
            &[8, 16, 24, 32, 48, 64, 128, 256]
        } else {
            &[8, 16, 24, 32, 40, 64, 72, 128, 256]
        };
        // `wgmma.mma_async.sp` (§9.7.15.6): K doubled, so B (N × 2K) fits in `fz_wg` up to
        // N = 128; no `.b1` form.
        let sparse = f.k != 256 && self.rng.chance(35);
        let upto = if self.rng.chance(80) { 6 } else { ns.len() };
        let ns: Vec<u32> = ns[..upto]
            .iter()
            .copied()
            .filter(|&n| !sparse || n <= 128)
            .collect();
        let n = *self.rng.pick(&ns);
        let fb = if sparse {
            WgmmaForm { k: 2 * f.k, ..f }
        } else {
            f
        };
        let mut lines = Vec::new();
        let exact = f.exact.filter(|_| self.rng.chance(40));
        self.wg_fill(exact, &mut lines);
        lines.push("fence.proxy.async.shared::cta;".to_string());
        lines.push("bar.sync 0;".to_string());
        // Sometimes a warpgroup register reconfiguration (§9.7.19.5), warpgroup-uniform as
        // wgmma is: a hint without effect, its count a multiple of 8 in 24 ..= 256, `.inc`
        // counts at or above the kernel's pivot and `.dec` counts at or below it
        // (`Gen::maxnreg`).
        if self.rng.chance(25) {
            let pivot = match self.maxnreg {
                Some(c) => c,
                None => *self.maxnreg.insert(self.rng.range(3, 32)),
            };
            let (dir, count) = if self.rng.chance(50) {
                ("inc", self.rng.range(pivot, 32))
            } else {
                ("dec", self.rng.range(3, pivot))
            };
            lines.push(format!("setmaxnreg.{dir}.sync.aligned.u32 {};", 8 * count));
        }
        // The accumulators.
        let (acc, nacc) = if f.f32_acc {
            ("%wf", n / 2)
        } else if f.f16_acc {
            ("%wi", n / 4)
        } else {
            ("%wi", n / 2)
        };
        for i in 0..nacc {
            if f.f32_acc {
                if self.rng.chance(50) {
                    let src = self.src_reg(Class::F32);
                    lines.push(format!("mov.f32 {acc}{i}, {src};"));
                } else {
                    let src = self.src_reg(Class::B32);
                    lines.push(format!("and.b32 %t1, {src}, 15;"));
                    lines.push(format!("cvt.rn.f32.u32 {acc}{i}, %t1;"));
                }
            } else {
                let src = self.src_reg(Class::B32);
                lines.push(format!("mov.b32 {acc}{i}, {src};"));
            }
        }
        // scale-d: CTA-uniform.
        let cond = self.uniform_cond();
        lines.extend(cond.setup.iter().cloned());
        if cond.negated {
            lines.push(format!("not.pred {0}, {0};", cond.pred));
        }
        let count = self.rng.range(1, 3) as usize;
        let mut insts = Vec::new();
        for j in 0..count {
            let trans_a = f.trans && self.rng.chance(30);
            let trans_b = f.trans && self.rng.chance(30);
            let a_regs = self.rng.chance(30);
            let a = if a_regs {
                let r: Vec<String> = (0..4).map(|_| self.src_reg(Class::B32)).collect();
                format!("{{{}}}", r.join(", "))
            } else {
                let d = self.wg_desc(64, f, trans_a);
                lines.extend(Self::desc_lines(&format!("%wda{j}"), d));
                format!("%wda{j}")
            };
            let d = self.wg_desc(n, fb, trans_b);
            lines.extend(Self::desc_lines(&format!("%wdb{j}"), d));
            let mut imms = Vec::new();
            let mut sp = Vec::new();
            if sparse {
                // sp-meta: every 4-bit field one the ISA defines (two different 2-bit
                // indices; `.tf32`'s 1:2 fields 0b0100 or 0b1110), per lane; sp-sel 0 or 1
                // (0 for 8-bit inputs).
                let src = self.src_reg(Class::B32);
                let meta = format!("%wt{j}");
                if f.ebytes == 4 {
                    lines.push(format!("and.b32 {meta}, {src}, 0x11111111;"));
                    lines.push(format!("mul.lo.u32 {meta}, {meta}, 10;"));
                    lines.push(format!("or.b32 {meta}, {meta}, 0x44444444;"));
                } else {
                    // Low index i0 from the register, high index i0 ^ x with x in 1..=3.
                    let x = (0..8).fold(0u32, |acc, _| acc << 4 | self.rng.range(1, 3) as u32);
                    lines.push(format!("and.b32 {meta}, {src}, 0x33333333;"));
                    lines.push(format!("xor.b32 %t1, {meta}, {x:#x};"));
                    lines.push("shl.b32 %t1, %t1, 2;".to_string());
                    lines.push(format!("or.b32 {meta}, {meta}, %t1;"));
                }
                let sel = if f.ebytes == 1 { 0 } else { self.rng.below(2) };
                sp = vec![meta, sel.to_string()];
            }
            if f.scale {
                imms.push(*self.rng.pick(&["1", "-1"]));
                imms.push(*self.rng.pick(&["1", "-1"]));
            }
            if f.trans {
                if !a_regs {
                    imms.push(if trans_a { "1" } else { "0" });
                }
                imms.push(if trans_b { "1" } else { "0" });
            }
            let sat = if f.int8 && self.rng.chance(40) {
                ".satfinite"
            } else {
                ""
            };
            let dregs: Vec<String> = (0..nacc).map(|i| format!("{acc}{i}")).collect();
            let mut ops = vec![format!("{{{}}}", dregs.join(", ")), a, format!("%wdb{j}")];
            ops.extend(sp);
            ops.push(cond.pred.clone());
            ops.extend(imms.iter().map(|s| s.to_string()));
            insts.push(format!(
                "wgmma.mma_async{}.sync.aligned.m64n{n}k{}{sat}.{} {};",
                if sparse { ".sp" } else { "" },
                fb.k,
                f.types,
                ops.join(", ")
            ));
        }
        lines.push("wgmma.fence.sync.aligned;".to_string());
        let groups = self.rng.chance(30);
        for i in insts {
            lines.push(i);
            if groups {
                lines.push("wgmma.commit_group.sync.aligned;".to_string());
            }
        }
        if !groups {
            lines.push("wgmma.commit_group.sync.aligned;".to_string());
        } else if count > 1 && self.rng.chance(50) {
            lines.push("wgmma.wait_group.sync.aligned 1;".to_string());
        }
        lines.push("wgmma.wait_group.sync.aligned 0;".to_string());
        // Fold every accumulator into a data register; copy one.
        lines.push("mov.u32 %t2, 0;".to_string());
        for i in 0..nacc {
            lines.push(format!("mov.b32 %t1, {acc}{i};"));
            lines.push("mad.lo.u32 %t2, %t2, 31, %t1;".to_string());
        }
        let r = self.data_reg(Class::B32);
        lines.push(format!("xor.b32 {r}, {r}, %t2;"));
        let i = self.rng.below(nacc as u64);
        if f.f32_acc {
            let d = self.data_reg(Class::F32);
            lines.push(format!("mov.f32 {d}, {acc}{i};"));
        } else {
            let d = self.data_reg(Class::B32);
            lines.push(format!("mov.b32 {d}, {acc}{i};"));
        }
        lines.push("bar.sync 0;".to_string());
        Stmt::Code(lines)
    }

    /// Lines filling `fz_wg`: 16-byte unit u = `%tl` + i·NT for i = 0..4 (all of them from
    /// 128 threads up) from data registers, raw or (`exact`: the `or` and `and` masks of a
    /// [`WgmmaForm`]) small values with few significand bits.
    pub(super) fn wg_fill(&mut self, exact: Option<(u32, u32)>, lines: &mut Vec<String>) {
        for i in 0..4 {
            lines.push("mov.u32 %t1, $NT$;".to_string());
            lines.push(format!("mul.lo.u32 %t1, %t1, {i};"));
            lines.push("add.u32 %t0, %tl, %t1;".to_string());
            lines.push(format!("setp.lt.u32 %pb, %t0, {};", WG_BYTES / 16));
            lines.push("mul.wide.u32 %td1, %t0, 16;".to_string());
            lines.push("mov.u64 %td0, fz_wg;".to_string());
            lines.push("add.s64 %td0, %td0, %td1;".to_string());
            let mut regs = Vec::new();
            for _ in 0..4 {
                let r = self.src_reg(Class::B32);
                regs.push(r);
            }
            if let Some((or, and)) = exact {
                for (j, r) in regs.iter_mut().enumerate() {
                    lines.push(format!("and.b32 %wt{j}, {r}, {and:#x};"));
                    lines.push(format!("or.b32 %wt{j}, %wt{j}, {or:#x};"));
                    *r = format!("%wt{j}");
                }
            }
            lines.push(format!(
                "@%pb st.shared.v4.b32 [%td0], {{{}}};",
                regs.join(", ")
            ));
        }
    }

    /// A matrix descriptor (PTX ISA §9.7.15.5.1.1) for the `mn` × K operand of form `f` in
    /// `fz_wg`, K-major or (`mn_major`: the instruction's transpose immediate) MN-major:
    /// (offset of the start in `fz_wg`, the descriptor's bits without the start address).
    /// The layout (swizzle, LBO, SBO) is random; the matrix lies inside `fz_wg`, and a
    /// swizzled one starts at its pattern's alignment (so the base offset is 0).
    pub(super) fn wg_desc(&mut self, mn: u32, f: WgmmaForm, mn_major: bool) -> (u32, u64) {
        use crate::runtime::wgmma::Desc;
        // K in elements of the layout (the bit type's are bytes).
        let kk = u64::from(if f.k == 256 { 32 } else { f.k });
        let e = u64::from(f.ebytes);
        for attempt in 0..12 {
            let last = attempt == 11;
            let (code, x) = if last {
                (0u64, 1u64)
            } else {
                *self
                    .rng
                    .pick(&[(0u64, 1u64), (0, 1), (1, 8), (2, 4), (3, 2)])
            };
            let (lbo, sbo) = if last || self.rng.chance(60) {
                match (x, mn_major) {
                    (1, false) => (128u64, 256u64),
                    (1, true) => (128 * (16 / e), 128),
                    (_, false) => (128, 128 * x),
                    (_, true) => (2 * 128 * x, 128 * x),
                }
            } else {
                (16 * self.rng.range(1, 96), 16 * self.rng.range(1, 96))
            };
            let bits = (lbo >> 4) << 16 | (sbo >> 4) << 32 | code << 62;
            let desc = Desc::decode(bits);
            let mut ext = 0;
            for m in 0..u64::from(mn) {
                for c in 0..kk {
                    ext = ext.max(desc.addr(m, c, e, mn_major));
                }
            }
            // The 128-byte block of the last element (a swizzle stays in its block).
            let ext = (ext + 128) & !127;
            let align = if x == 1 { 16 } else { 128 * x };
            if ext > u64::from(WG_BYTES) {
                continue;
            }
            let room = (u64::from(WG_BYTES) - ext) / align;
            let start = self.rng.below(room + 1) * align;
            return (start as u32, bits);
        }
        // Not reached: the dense layout of the last attempt fits every N up to 256.
        (0, (128u64 >> 4) << 16 | (256u64 >> 4) << 32)
    }

    /// Lines setting `reg` to the descriptor `(start, bits)` of [`Gen::wg_desc`]: the start
    /// address field from `fz_wg`'s shared address.
    pub(super) fn desc_lines(reg: &str, (start, bits): (u32, u64)) -> Vec<String> {
        vec![
            "mov.u64 %td0, fz_wg;".to_string(),
            format!("add.s64 %td0, %td0, {start};"),
            "shr.u64 %td0, %td0, 4;".to_string(),
            "and.b64 %td0, %td0, 16383;".to_string(),
            format!("or.b64 {reg}, %td0, {bits:#x};"),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::MmaElem;

    /// Every form's K, immediate operands and element bytes are the decoder's
    /// ([`crate::lower::wgmma_operands`]).
    #[test]
    fn wgmma_forms_match_decoder() {
        for f in WGMMA_FORMS {
            let a = f
                .types
                .split('.')
                .nth(1)
                .and_then(MmaElem::from_modifier)
                .expect("an input type");
            let (k, nscale, ntrans) = crate::lower::wgmma_operands(a).expect("a wgmma input type");
            assert_eq!(f.k, u32::from(k), "{}", f.types);
            assert_eq!(f.scale, nscale == 2, "{}", f.types);
            assert_eq!(f.trans, ntrans == 2, "{}", f.types);
            assert_eq!(f.ebytes, (a.bits() / 8).max(1), "{}", f.types);
        }
    }

    /// Every `.dec` count of a kernel is at or below every `.inc` count (`Gen::maxnreg`:
    /// ptxas 13.5 refuses a `.dec` count above the kernel's largest `.inc` count, and the
    /// shrinker may cut any of them), and kernels with several of them, both directions,
    /// different counts in one kernel and a `.dec` below an `.inc` are drawn.
    #[test]
    fn setmaxnreg_decs_stay_below_incs() {
        use crate::fuzz::gen::{generate, GenConfig};
        use crate::fuzz::rng::Rng;
        let (mut several, mut both, mut below) = (0, 0, 0);
        let mut counts = std::collections::BTreeSet::new();
        for seed in 0..3000 {
            let k = generate(&mut Rng::seeded(seed), GenConfig { size: 60 });
            if !k.sm90a {
                continue;
            }
            let text = k.render();
            let regs: Vec<(&str, &str)> = text
                .lines()
                .filter_map(|l| l.trim().strip_prefix("setmaxnreg."))
                .filter_map(|l| {
                    let (dir, rest) = l.split_once(".sync.aligned.u32 ")?;
                    Some((dir, rest.trim_end_matches(';')))
                })
                .collect();
            let of = |dir: &str| -> Vec<u32> {
                regs.iter()
                    .filter(|r| r.0 == dir)
                    .filter_map(|r| r.1.parse().ok())
                    .collect()
            };
            let (incs, decs) = (of("inc"), of("dec"));
            assert_eq!(incs.len() + decs.len(), regs.len(), "seed {seed}: {regs:?}");
            if let (Some(lo), Some(hi)) = (incs.iter().min(), decs.iter().max()) {
                assert!(hi <= lo, "seed {seed}: a .dec above an .inc: {regs:?}");
                below += usize::from(hi < lo);
            }
            counts.extend(regs.iter().map(|r| r.1.to_string()));
            several += usize::from(regs.len() > 1);
            both += usize::from(!incs.is_empty() && !decs.is_empty());
        }
        assert!(
            several > 0 && both > 0 && below > 0 && counts.len() > 5,
            "{several} with several, {both} with both, {below} with a .dec below an .inc, \
             counts {counts:?}"
        );
    }
}
