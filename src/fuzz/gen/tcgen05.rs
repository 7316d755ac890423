//! The fifth-generation tensor-core statements of the `sm_100a` flavour (`tcgen05`, PTX ISA
//! §9.7.16): tensor memory, its allocator, `ld`/`st` of every shape, the multiply on matrices
//! in the shared `fz_wg` (dense, `.ws` with collector buffers, `.sp`, the collector buffer for
//! A and `.ashift`), `cp` and `shift`, on one CTA or on a CTA pair (`.cta_group::2`).
//! Why the results are determined: the module documentation of [`super`]; in short, every
//! tensor-memory cell a statement reads was stored by it first, thread 0 issues the
//! single-thread operations (`mma`, `cp`, `shift`) and commits them to `fz_mbar`, and every
//! thread waits for that phase before loading.

use super::wgmma::{WgmmaForm, WGMMA_FORMS};
use super::{Class, Gen, Stmt};
use crate::ir::{Tc05CpShape, Tc05Shape};

/// What the thread-0 part of a [`Gen::tcgen05`] round issues.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Round {
    /// `tcgen05.mma.cta_group::1` (dense).
    Mma,
    /// `tcgen05.mma.ws.cta_group::1`, once or twice (a collector buffer filled, then used).
    Ws,
    /// `tcgen05.mma.sp.cta_group::1`.
    Sparse,
    /// `tcgen05.cp.cta_group::1` from a descriptor in `fz_wg`.
    Copy,
    /// `tcgen05.shift.cta_group::1.down`.
    Shift,
}

/// The multiply's types: `.kind`, D type code, A and B type codes (instruction descriptor,
/// PTX ISA §9.7.16.4.2 Table 42), accumulator is f32, the [`WGMMA_FORMS`] entry whose
/// layout (element bytes, K) and exact masks the operands use, negation allowed, and whether
/// A or B is a 4- or 6-bit type (K-major only, not in tensor memory).
#[derive(Clone, Copy)]
struct Types {
    kind: &'static str,
    dcode: u32,
    acode: u32,
    bcode: u32,
    f32_acc: bool,
    layout: WgmmaForm,
    exact: Option<(u32, u32)>,
    neg_ok: bool,
    sub_byte: bool,
}

/// The 2:4 metadata fields the ISA calls meaningful (PTX ISA §9.7.16.10.8.2).
const META_FIELDS: [u32; 7] = [0b0100, 0b1000, 0b1100, 0b1001, 0b1101, 0b0110, 0b1110];

impl Gen<'_> {
    /// The multiply's types for `round` (`.sp`: no `.kind::tf32`).
    fn tc05_types(&mut self, round: Round) -> Types {
        // (kind, D code, A and B type codes, accumulator is f32, WGMMA_FORMS entry, negation).
        type Tc05Form = (&'static str, u32, (u32, u32), bool, usize, bool);
        const FORMS: &[Tc05Form] = &[
            ("f16", 1, (0, 0), true, 0, true),
            ("f16", 0, (0, 0), false, 1, true),
            ("f16", 1, (1, 1), true, 2, true),
            ("tf32", 1, (2, 2), true, 3, true),
            ("i8", 2, (1, 1), false, 4, false),
            ("i8", 2, (0, 1), false, 5, false),
            ("i8", 2, (1, 0), false, 6, false),
            ("i8", 2, (0, 0), false, 7, false),
        ];
        if self.rng.chance(30) {
            // `.kind::f8f6f4`: E4M3 0, E5M2 1, E2M3 3, E3M2 4, E2M1 5, each operand its own;
            // D f32 (1) or f16 (0). The layouts are those of 8-bit elements (the 4- and 6-bit
            // ones packed into the same 16-byte groups), K = 32.
            let codes = [0u32, 1, 3, 4, 5];
            let (acode, bcode) = (*self.rng.pick(&codes), *self.rng.pick(&codes));
            let f32_acc = self.rng.chance(60);
            let exact = match (acode, bcode) {
                (0, 0) => WGMMA_FORMS[8].exact,
                (1, 1) => Some((0x3c3c_3c3c, 0x8383_8383)),
                _ => None,
            };
            return Types {
                kind: "f8f6f4",
                dcode: u32::from(f32_acc),
                acode,
                bcode,
                f32_acc,
                layout: WGMMA_FORMS[8],
                exact,
                neg_ok: true,
                sub_byte: acode > 1 || bcode > 1,
            };
        }
        let forms: Vec<&Tc05Form> = FORMS
            .iter()
            .filter(|f| round != Round::Sparse || f.0 != "tf32")
            .collect();
        let &&(kind, dcode, (acode, bcode), f32_acc, wf, neg_ok) = self.rng.pick(&forms);
        Types {
            kind,
            dcode,
            acode,
            bcode,
            f32_acc,
            layout: WGMMA_FORMS[wf],
            exact: WGMMA_FORMS[wf].exact,
            neg_ok,
            sub_byte: false,
        }
    }

    /// A `tcgen05` round (PTX ISA §9.7.16, `sm_100a` flavour, CTA-uniform control flow before
    /// any exit). Every thread fills `fz_wg` as for [`Gen::wgmma`] and fences it for the async
    /// proxy; warp 0 allocates a power of two of tensor-memory columns
    /// (`tcgen05.alloc` into the shared `fz_tm`; at times then
    /// `relinquish_alloc_permit`, after which the kernel allocates no more); after
    /// `tcgen05.fence::before_thread_sync`, `bar.sync 0`, `fence::after_thread_sync`, the
    /// warps 0-3 store data registers into the cells of their own 32 lanes the round reads
    /// (`tcgen05.st .32x32b`: D's N columns, and 16 more for an A in tensor memory and the
    /// sparsity metadata; at times again with another shape, `.unpack::16b` included;
    /// `wait::st`), so no cell is undefined. Thread 0 then issues one of: a
    /// `tcgen05.mma.cta_group::1` (M = 64 or 128; `.kind::f16`, `::tf32`, `::i8` or
    /// `::f8f6f4` of any types; A through a shared-memory descriptor in any canonical layout
    /// inside `fz_wg` or in tensor memory; B through a descriptor; a random instruction
    /// descriptor with transposes, negations and saturation; at times `disable-output-lane`
    /// and `scale-input-d`; a CTA-uniform `enable-input-d`), a `tcgen05.mma.ws` (M = 32, 64 or
    /// 128, N = 64, 128 or 256; A through a descriptor or in tensor memory, with M = 64 and 32
    /// the same words in every M-lane group; once, or twice with `.collector::bK::fill` then
    /// `::use`, `::lastuse` or `::discard`), a `tcgen05.mma.sp` (M = 128, metadata of meaningful fields
    /// only, in tensor memory), a `tcgen05.cp` of any shape into D's columns, or a
    /// `tcgen05.shift.down` of one 32-lane partition; and `tcgen05.commit`s it to `fz_mbar`,
    /// where every other thread arrives: the phase completes only after the operation. Every
    /// thread then loads its lane's row of D (`tcgen05.ld .32x32b`, at most 128 columns at a
    /// time, `wait::ld`), folded into data registers as for `wgmma`, and at times part of it
    /// again with another shape (`.pack::16b`, `.16x32bx2`'s second access); after a barrier warp 0 deallocates.
    /// The dense and sparse multiplies use the collector buffer for A as
    /// [`Gen::tc05_collector_a`] picks (one to three instructions, `::use`/`::lastuse` only
    /// after a `::fill`) and, with A in tensor memory and M = 128 or 256, `.ashift`. In a
    /// kernel of CTA pairs (`Gen`'s `pair`) every `tcgen05` instruction that takes
    /// `.cta_group` has `::2`, the rounds are the dense multiply (M = 128 or 256, N by 16, by
    /// 32 for `.kind::i8`; A and B's descriptors each CTA's half; an A in tensor memory with
    /// M = 256 only; no disable-output-lane) and the shift; the barriers around the issue are
    /// the cluster's, and thread 0 of the even or odd CTA issues.
    pub(super) fn tcgen05(&mut self) -> Stmt {
        let pair = self.pair;
        // A CTA pair's kernel: the dense multiply and the shift only (`.ws` is
        // `.cta_group::1` only; `.sp` and `cp` with `::2` are not supported by ptxjit).
        let rounds: &[Round] = if pair {
            &[Round::Mma, Round::Mma, Round::Mma, Round::Shift]
        } else {
            &[
                Round::Mma,
                Round::Mma,
                Round::Mma,
                Round::Ws,
                Round::Ws,
                Round::Sparse,
                Round::Copy,
                Round::Shift,
            ]
        };
        let round = *self.rng.pick(rounds);
        let ty = self.tc05_types(round);
        let m = match round {
            Round::Mma if pair => *self.rng.pick(&[128u32, 256]),
            Round::Mma => *self.rng.pick(&[64u32, 128, 128]),
            Round::Ws => *self.rng.pick(&[32u32, 64, 128]),
            Round::Sparse | Round::Copy | Round::Shift => 128,
        };
        let n = match round {
            Round::Ws => *self.rng.pick(&[64u32, 64, 128, 128, 256]),
            // `.cta_group::2`: N from 16 by 16 (`.kind::i8` from 32 by 32).
            Round::Mma if pair => {
                let step = if ty.kind == "i8" { 32 } else { 16 };
                let ns: Vec<u32> = [16u32, 32, 48, 64, 96, 128, 256]
                    .into_iter()
                    .filter(|v| v % step == 0)
                    .collect();
                *self.rng.pick(&ns)
            }
            _ => *self.rng.pick(&[8u32, 16, 24, 32, 64, 128]),
        };
        // An A in tensor memory: Layout D (M = 128) or F (M = 64) only, 8-bit or wider;
        // with `.cta_group::2` M = 256 only (each CTA's 128 rows as Layout D); with `.ws`
        // any M (M = 64 and 32: row r in lane r of every M-lane group, `dup`).
        let a_tmem = matches!(round, Round::Mma | Round::Ws | Round::Sparse)
            && if pair {
                m == 256
            } else {
                m == 128 || (m == 64 && round == Round::Mma) || round == Round::Ws
            }
            && !ty.sub_byte
            && self.rng.chance(40);
        let cg = if pair { 2 } else { 1 };
        // Columns: D at 0..N; A (8 columns) at N, the sparsity metadata (2) at N + 8.
        let side = matches!(round, Round::Mma | Round::Ws | Round::Sparse);
        let used = n + if side { 16 } else { 0 };
        let cols = (*self.rng.pick(&[32u32, 64, 128, 256, 512])).max(used.next_power_of_two());
        let mut lines = Vec::new();
        let exact = ty.exact.filter(|_| self.rng.chance(40));
        self.wg_fill(exact, &mut lines);
        lines.push("fence.proxy.async.shared::cta;".to_string());
        let relinquish = self.counters.is_empty() && self.rng.chance(15);
        lines.extend([
            "setp.ge.u32 %pb, %tl, 32;".to_string(),
            "@%pb bra $L__ta$ID$;".to_string(),
            format!("tcgen05.alloc.cta_group::{cg}.sync.aligned.shared::cta.b32 [fz_tm], {cols};"),
        ]);
        if relinquish {
            lines.push(format!(
                "tcgen05.relinquish_alloc_permit.cta_group::{cg}.sync.aligned;"
            ));
            self.relinquished = true;
        }
        lines.extend([
            "$L__ta$ID$:".to_string(),
            "tcgen05.fence::before_thread_sync;".to_string(),
            "bar.sync 0;".to_string(),
            "tcgen05.fence::after_thread_sync;".to_string(),
            "ld.shared.u32 %tma, [fz_tm];".to_string(),
            // This warp's lanes: 32·(warp % 4) in bits 31-16.
            "shr.u32 %t0, %tl, 5;".to_string(),
            "and.b32 %t0, %t0, 3;".to_string(),
            "shl.b32 %t0, %t0, 21;".to_string(),
            "add.u32 %tmw, %tma, %t0;".to_string(),
            // Warps 0-3 store their 32 lanes.
            "setp.ge.u32 %pb, %tl, 128;".to_string(),
            "@%pb bra $L__ts$ID$;".to_string(),
        ]);
        // D's input, in power-of-two runs of at most 128 columns (`.num`).
        for (c0, w) in Self::tc05_runs(n) {
            let regs = Self::tc05_regs(w);
            for r in &regs {
                let src = self.src_reg(Class::B32);
                if ty.f32_acc && self.rng.chance(50) {
                    lines.push(format!("and.b32 %t1, {src}, 15;"));
                    lines.push("cvt.rn.f32.u32 %tf, %t1;".to_string());
                    lines.push(format!("mov.b32 {r}, %tf;"));
                } else {
                    lines.push(format!("mov.b32 {r}, {src};"));
                }
            }
            lines.push(format!(
                "tcgen05.st.sync.aligned.32x32b.x{w}.b32 [%tmw+{c0}], {{{}}};",
                regs.join(", ")
            ));
        }
        if side {
            // A's 8 columns (the exact masks where the fill uses them), then the metadata's.
            // A `.ws` A in tensor memory with M = 64 or 32 holds row r in lane r of each of
            // the 128/M lane groups, copies that must agree (docs/isa-notes.md, "D layout,
            // M = 64 and M = 32"): its words are a function of the lane within the group
            // (`%tl` mod M; warps 0-3 store lanes `%tl`), not of the thread's data.
            let dup = a_tmem && round == Round::Ws && m < 128;
            if dup {
                lines.push(format!("and.b32 %t2, %tl, {};", m - 1));
            }
            let regs = Self::tc05_regs(16);
            for r in &regs[..8] {
                let src = if dup {
                    let mul = self.rng.next_u32() | 1;
                    let add = self.rng.next_u32();
                    lines.push(format!("mad.lo.u32 {r}, %t2, {mul:#x}, {add:#x};"));
                    lines.push(format!("shr.b32 %t1, {r}, {};", 7 + self.rng.below(17)));
                    lines.push(format!("xor.b32 {r}, {r}, %t1;"));
                    r.clone()
                } else {
                    self.src_reg(Class::B32)
                };
                match exact {
                    Some((or, and)) => {
                        lines.push(format!("and.b32 {r}, {src}, {and:#x};"));
                        lines.push(format!("or.b32 {r}, {r}, {or:#x};"));
                    }
                    None if dup => {}
                    None => lines.push(format!("mov.b32 {r}, {src};")),
                }
            }
            for r in &regs[8..] {
                let words: Vec<u32> = (0..2)
                    .map(|_| (0..8).fold(0, |w, _| w << 4 | *self.rng.pick(&META_FIELDS)))
                    .collect();
                let src = self.src_reg(Class::B32);
                lines.push(format!("and.b32 %t1, {src}, 1;"));
                lines.push("setp.ne.u32 %pb, %t1, 0;".to_string());
                lines.push(format!(
                    "selp.b32 {r}, {:#x}, {:#x}, %pb;",
                    words[0], words[1]
                ));
            }
            lines.push(format!(
                "tcgen05.st.sync.aligned.32x32b.x16.b32 [%tmw+{n}], {{{}}};",
                regs.join(", ")
            ));
        }
        if self.rng.chance(30) {
            self.tc05_other_access(false, n, &mut lines);
        }
        lines.extend([
            "tcgen05.wait::st.sync.aligned;".to_string(),
            "$L__ts$ID$:".to_string(),
            "tcgen05.fence::before_thread_sync;".to_string(),
        ]);
        // With `.cta_group::2` the issuing thread reads the peer CTA's tensor and shared
        // memory too: both CTAs' stores end before it (a cluster barrier).
        lines.extend(Self::tc05_barrier(pair));
        lines.push("tcgen05.fence::after_thread_sync;".to_string());
        // Thread 0's operation.
        let cond = self.uniform_cond();
        lines.extend(cond.setup.iter().cloned());
        if cond.negated {
            lines.push(format!("not.pred {0}, {0};", cond.pred));
        }
        let issue = match round {
            Round::Mma | Round::Ws | Round::Sparse => {
                self.tc05_mma(round, ty, m, n, a_tmem, &cond.pred, &mut lines)
            }
            Round::Copy => self.tc05_cp(n, &mut lines),
            Round::Shift => {
                let lane = 32 * self.rng.below(4) as u32;
                let col = 8 * self.rng.below(u64::from(n / 8)) as u32;
                vec![format!(
                    "tcgen05.shift.cta_group::{cg}.down [%tma+{}];",
                    lane << 16 | col
                )]
            }
        };
        if pair {
            // Thread 0 of the pair's even or odd CTA issues; every other thread of both
            // CTAs arrives on its own CTA's `fz_mbar`.
            let parity = self.rng.below(2);
            lines.extend([
                "mov.u32 %wt0, %cluster_ctarank;".to_string(),
                "and.b32 %wt0, %wt0, 1;".to_string(),
                format!("xor.b32 %wt0, %wt0, {parity};"),
                "or.b32 %wt0, %wt0, %tl;".to_string(),
                "setp.ne.u32 %pb, %wt0, 0;".to_string(),
            ]);
        } else {
            lines.push("setp.ne.u32 %pb, %tl, 0;".to_string());
        }
        lines.push("@%pb bra $L__tm$ID$;".to_string());
        lines.extend(issue);
        lines.extend([
            format!(
                "tcgen05.commit.cta_group::{cg}.mbarrier::arrive::one.shared::cluster.b64 [fz_mbar];"
            ),
            "$L__tm$ID$:".to_string(),
            "@%pb mbarrier.arrive.shared::cta.b64 %tdm, [fz_mbar];".to_string(),
            "$L__tw$ID$:".to_string(),
            "mbarrier.try_wait.parity.shared::cta.b64 %pb, [fz_mbar], %mbp;".to_string(),
            "@!%pb bra $L__tw$ID$;".to_string(),
            "xor.b32 %mbp, %mbp, 1;".to_string(),
        ]);
        if pair {
            // The other CTA of the pair learns that the operation is done from the
            // issuing CTA's threads, which passed its phase.
            lines.push("tcgen05.fence::before_thread_sync;".to_string());
            lines.extend(Self::tc05_barrier(true));
        }
        lines.extend([
            "tcgen05.fence::after_thread_sync;".to_string(),
            "mov.u32 %t2, 0;".to_string(),
        ]);
        // D back, in the same runs, each folded.
        let mut last = 0;
        for (c0, w) in Self::tc05_runs(n) {
            let regs = Self::tc05_regs(w);
            lines.push(format!(
                "tcgen05.ld.sync.aligned.32x32b.x{w}.b32 {{{}}}, [%tmw+{c0}];",
                regs.join(", ")
            ));
            lines.push("tcgen05.wait::ld.sync.aligned;".to_string());
            for r in &regs {
                lines.push(format!("mad.lo.u32 %t2, %t2, 31, {r};"));
            }
            last = w;
        }
        let r = self.data_reg(Class::B32);
        lines.push(format!("xor.b32 {r}, {r}, %t2;"));
        let i = self.rng.below(u64::from(last));
        let d = self.data_reg(Class::B32);
        lines.push(format!("mov.b32 {d}, %wi{i};"));
        if self.rng.chance(35) {
            // Warps 4-7 reach the same lanes as warps 0-3.
            self.tc05_other_access(true, n, &mut lines);
        }
        lines.extend([
            "tcgen05.fence::before_thread_sync;".to_string(),
            "bar.sync 0;".to_string(),
            "setp.ge.u32 %pb, %tl, 32;".to_string(),
            "@%pb bra $L__td$ID$;".to_string(),
            "tcgen05.fence::after_thread_sync;".to_string(),
            format!("tcgen05.dealloc.cta_group::{cg}.sync.aligned.b32 %tma, {cols};"),
            "$L__td$ID$:".to_string(),
        ]);
        Stmt::Code(lines)
    }

    /// The barrier between a round's phases: `bar.sync 0`, or for a CTA pair
    /// (`.cta_group::2`) the cluster's (`barrier.cluster.arrive` releases, `wait` acquires,
    /// PTX ISA §9.7.13.2; every thread of the cluster runs the statement).
    fn tc05_barrier(pair: bool) -> Vec<String> {
        if pair {
            vec![
                "barrier.cluster.arrive;".to_string(),
                "barrier.cluster.wait;".to_string(),
            ]
        } else {
            vec!["bar.sync 0;".to_string()]
        }
    }

    /// `n` columns as power-of-two runs of at most 128 (a `.32x32b` `.num` each): (first
    /// column, columns).
    fn tc05_runs(n: u32) -> Vec<(u32, u32)> {
        let mut runs = Vec::new();
        let mut c0 = 0;
        while c0 < n {
            let w = 1 << (n - c0).min(128).ilog2();
            runs.push((c0, w));
            c0 += w;
        }
        runs
    }

    /// `%wi0` … `%wi{n-1}`.
    fn tc05_regs(n: u32) -> Vec<String> {
        (0..n).map(|i| format!("%wi{i}")).collect()
    }

    /// A `tcgen05.ld` (`load`; its registers folded into a data register) or `tcgen05.st` (of data registers) of a random
    /// shape and `.num` within D's first `n` columns of the warp's lanes (PTX ISA
    /// §9.7.16.8.3-4): `.16x64b`, `.16x128b`, `.16x256b` at lane 0 or 16 of the warp's
    /// partition, `.16x32bx2` with its second access 16 lanes or some columns on, `.32x32b`;
    /// `.pack::16b`/`.unpack::16b` at times.
    fn tc05_other_access(&mut self, load: bool, n: u32, lines: &mut Vec<String>) {
        // The lanes each reaches, its columns and registers per repetition: the IR's
        // (`Tc05Shape`, PTX ISA §9.7.16.2.3), which the decoder and runtime follow.
        const SHAPES: &[Tc05Shape] = &[
            Tc05Shape::S32x32b,
            Tc05Shape::S16x64b,
            Tc05Shape::S16x128b,
            Tc05Shape::S16x256b,
            Tc05Shape::S16x32bx2,
        ];
        let s = *self.rng.pick(SHAPES);
        let (lanes, cpn, rpn) = (s.lanes(), s.columns(1), s.regs_per_num());
        let shape = s.to_string();
        let pack = self.rng.chance(30);
        let per = cpn * if pack { 2 } else { 1 };
        // `.16x32bx2`: the second access 16 lanes on (from lane 0), or some columns on.
        let split = if s == Tc05Shape::S16x32bx2 {
            if self.rng.chance(50) {
                Some((0u32, 16u32 << 16, 1u32))
            } else {
                let off = 1 + self.rng.below(u64::from(n / 2)) as u32;
                Some((16 * self.rng.below(2) as u32, off, off + 1))
            }
        } else {
            None
        };
        // Columns the accesses need per repetition beyond the first: `per`; the split's
        // column offset adds to the width.
        let extra_cols = split.map_or(0, |(_, _, c)| c - 1);
        let max_num = ((n - extra_cols) / per).min(s.max_num());
        let nums: Vec<u32> = [1u32, 2, 4, 8, 16, 32, 64, 128]
            .into_iter()
            .filter(|&k| k <= max_num)
            .collect();
        if nums.is_empty() {
            return;
        }
        let num = *self.rng.pick(&nums);
        let room = n - extra_cols - num * per;
        let col = self.rng.below(u64::from(room) + 1) as u32;
        let lane = match split {
            Some((l, _, _)) => l,
            None if lanes == 16 => 16 * self.rng.below(2) as u32,
            None => 0,
        };
        let addr = format!("[%tmw+{}]", lane << 16 | col);
        let imm = split.map_or(String::new(), |(_, s, _)| format!(", {s}"));
        let regs = Self::tc05_regs(num * rpn);
        let list = format!("{{{}}}", regs.join(", "));
        if load {
            let pk = if pack { ".pack::16b" } else { "" };
            lines.push(format!(
                "tcgen05.ld.sync.aligned.{shape}.x{num}{pk}.b32 {list}, {addr}{imm};"
            ));
            lines.push("tcgen05.wait::ld.sync.aligned;".to_string());
            lines.push("mov.u32 %t1, 0;".to_string());
            for r in &regs {
                lines.push(format!("mad.lo.u32 %t1, %t1, 31, {r};"));
            }
            let r = self.data_reg(Class::B32);
            lines.push(format!("xor.b32 {r}, {r}, %t1;"));
        } else {
            for r in &regs {
                let src = self.src_reg(Class::B32);
                lines.push(format!("mov.b32 {r}, {src};"));
            }
            let pk = if pack { ".unpack::16b" } else { "" };
            lines.push(format!(
                "tcgen05.st.sync.aligned.{shape}.x{num}{pk}.b32 {addr}{imm}, {list};"
            ));
        }
    }

    /// Thread 0's multiply of a round: descriptor setup lines pushed to `lines` (every
    /// thread computes them) and the instructions returned.
    #[allow(clippy::too_many_arguments)]
    fn tc05_mma(
        &mut self,
        round: Round,
        ty: Types,
        m: u32,
        n: u32,
        a_tmem: bool,
        enable: &str,
        lines: &mut Vec<String>,
    ) -> Vec<String> {
        let f = ty.layout;
        let pair = self.pair;
        let cg = if pair { 2 } else { 1 };
        let sparse = round == Round::Sparse;
        let transposes = !ty.sub_byte;
        let trans_a = transposes && !a_tmem && self.rng.chance(25);
        let trans_b = transposes && self.rng.chance(25);
        let (neg_a, neg_b) = if ty.neg_ok {
            (self.rng.chance(25), self.rng.chance(25))
        } else {
            (false, false)
        };
        // `.sp`: K doubled for B (A holds the stored half, laid out as a dense A).
        let fb = if sparse {
            WgmmaForm { k: 2 * f.k, ..f }
        } else {
            f
        };
        // With `.cta_group::2` each CTA holds half of A's rows and of B's columns at the
        // same descriptors.
        let (ma, nb) = if pair { (m / 2, n / 2) } else { (m, n) };
        if a_tmem {
            lines.push(format!("add.u32 %t0, %tma, {n};"));
        } else {
            self.tc05_desc("%wda0", ma, f, trans_a, lines);
        }
        self.tc05_desc("%wdb0", nb, fb, trans_b, lines);
        let selector = if sparse && ty.kind == "f16" {
            self.rng.below(2) as u32
        } else {
            0
        };
        let satfinite = ty.kind == "i8" && self.rng.chance(30);
        let idesc = ty.dcode << 4
            | ty.acode << 7
            | ty.bcode << 10
            | u32::from(neg_a) << 13
            | u32::from(neg_b) << 14
            | u32::from(trans_a) << 15
            | u32::from(trans_b) << 16
            | (n >> 3) << 17
            | (m >> 4) << 24
            | u32::from(satfinite) << 3
            | if sparse { 1 << 2 | selector } else { 0 };
        lines.push(format!("mov.u32 %t1, {idesc:#x};"));
        let a = if a_tmem { "[%t0]" } else { "%wda0" };
        let k = ty.kind;
        let mut out = Vec::new();
        match round {
            Round::Ws => {
                let buf = self.rng.below(4);
                let uses: Vec<String> = if self.rng.chance(50) {
                    let second = *self.rng.pick(&["use", "lastuse", "discard"]);
                    vec![format!(".collector::b{buf}::fill"), {
                        format!(".collector::b{buf}::{second}")
                    }]
                } else {
                    vec![match self.rng.below(3) {
                        0 => String::new(),
                        1 => format!(".collector::b{buf}::discard"),
                        _ => format!(".collector::b{buf}::fill"),
                    }]
                };
                for c in uses {
                    out.push(format!(
                        "tcgen05.mma.ws.cta_group::1.kind::{k}{c} [%tma], {a}, %wdb0, %t1, {enable};"
                    ));
                }
            }
            Round::Mma | Round::Sparse => {
                let (sp, meta) = if sparse {
                    lines.push(format!("add.u32 %t2, %tma, {};", n + 8));
                    (".sp", " [%t2],")
                } else {
                    ("", "")
                };
                let mut tail = String::new();
                // disable-output-lane: 8 words with `.cta_group::2`, whose set bits ptxjit
                // does not place (it faults on them): only with `::1`.
                if !pair && self.rng.chance(20) {
                    let r: Vec<String> = (0..4).map(|_| self.src_reg(Class::B32)).collect();
                    tail.push_str(&format!(" {{{}}},", r.join(", ")));
                }
                tail.push_str(&format!(" {enable}"));
                if matches!(k, "f16" | "tf32") && self.rng.chance(25) {
                    tail.push_str(&format!(", {}", self.rng.below(16)));
                }
                // `.ashift`: A in tensor memory with M = 128 or 256.
                let shift_ok = a_tmem && matches!(m, 128 | 256);
                for (c, ashift) in self.tc05_collector_a(shift_ok) {
                    let c = match (c, ashift) {
                        (Some(c), false) => format!(".collector::a::{c}"),
                        (Some(c), true) if self.rng.chance(50) => {
                            format!(".collector::a::{c}.ashift")
                        }
                        (Some(c), true) => format!(".ashift.collector::a::{c}"),
                        (None, true) => ".ashift".to_string(),
                        (None, false) => String::new(),
                    };
                    out.push(format!(
                        "tcgen05.mma{sp}.cta_group::{cg}.kind::{k}{c} [%tma], {a}, %wdb0,{meta} %t1,{tail};"
                    ));
                }
            }
            Round::Copy | Round::Shift => {}
        }
        out
    }

    /// The uses of the CTA's collector buffer for A by a round's multiplies (PTX ISA
    /// §9.7.16.10.9.1), one instruction each: the qualifier (`None`: none, which is
    /// `::discard`) and whether it has `.ashift` (only where `shift_ok`, and never with
    /// `::fill` or `::use`, as the ISA and ptxas 13.5 require). A `::use` or `::lastuse` comes
    /// only after a `::fill` of the same round (same types and shape), so the buffer is never
    /// empty; a round may leave the buffer filled, and the next one's first use is a `::fill`
    /// again or none.
    fn tc05_collector_a(&mut self, shift_ok: bool) -> Vec<(Option<&'static str>, bool)> {
        // The sequences of uses (`None`: no qualifier, which is `::discard`).
        const SEQS: &[&[Option<&str>]] = &[
            &[None],
            &[None],
            &[Some("discard")],
            &[Some("fill")],
            &[Some("fill"), Some("use")],
            &[Some("fill"), Some("lastuse")],
            &[Some("fill"), Some("discard")],
            &[Some("fill"), Some("use"), Some("lastuse")],
        ];
        let seq = *self.rng.pick(SEQS);
        seq.iter()
            .map(|&c| {
                let ashift = shift_ok && !matches!(c, Some("fill" | "use")) && self.rng.chance(75);
                (c, ashift)
            })
            .collect()
    }

    /// Lines setting `reg` to a `tcgen05` shared-memory descriptor (PTX ISA §9.7.16.4.1) of an
    /// `mn` × K operand laid out as [`Gen::wg_desc`] picks: `wgmma`'s swizzle field (bits
    /// 62-63: 1 128-byte, 2 64-byte, 3 32-byte) moved to `tcgen05`'s (bits 61-63: 2, 4, 6),
    /// and bits 46-48 = 0b001.
    fn tc05_desc(
        &mut self,
        reg: &str,
        mn: u32,
        f: WgmmaForm,
        mn_major: bool,
        lines: &mut Vec<String>,
    ) {
        let (start, bits) = self.wg_desc(mn, f, mn_major);
        let bits = (bits & !(3u64 << 62)) | ((bits >> 62) * 2) << 61 | 1 << 46;
        lines.extend(Self::desc_lines(reg, (start, bits)));
    }

    /// A `tcgen05.cp` (PTX ISA §9.7.16.9.2) of a random shape from a K-major matrix in
    /// `fz_wg` (rows of 32 or 16 bytes) into D's first `n` columns at lane 0: the descriptor
    /// lines pushed to `lines`, the instruction returned.
    fn tc05_cp(&mut self, n: u32, lines: &mut Vec<String>) -> Vec<String> {
        // Rows and columns of each: the IR's (`Tc05CpShape`, PTX ISA §9.7.16.9.2).
        const SHAPES: &[Tc05CpShape] = &[
            Tc05CpShape::S128x256b,
            Tc05CpShape::S4x256b,
            Tc05CpShape::S128x128b,
            Tc05CpShape::S64x128bW0213,
            Tc05CpShape::S64x128bW0123,
            Tc05CpShape::S32x128bW4,
        ];
        let shapes: Vec<_> = SHAPES.iter().filter(|s| s.columns() <= n).collect();
        let s = **self.rng.pick(&shapes);
        let (shape, rows, bytes) = (s.to_string(), s.rows(), 4 * s.columns());
        let f = WgmmaForm {
            ebytes: 1,
            k: bytes,
            ..WGMMA_FORMS[4]
        };
        self.tc05_desc("%wda0", rows.max(8), f, false, lines);
        let col = self.rng.below(u64::from(n - bytes / 4) + 1);
        vec![format!(
            "tcgen05.cp.cta_group::1.{shape} [%tma+{col}], %wda0;"
        )]
    }
}
