//! The fifth-generation tensor-core statements of the `sm_100a` flavour (`tcgen05`, PTX ISA
//! §9.7.16): tensor memory, its allocator and the multiply on matrices in the shared `fz_wg`.
//! Why the results are determined: the module documentation of [`super`].

use super::wgmma::WGMMA_FORMS;
use super::{Class, Gen, Stmt};

impl Gen<'_> {
    /// A `tcgen05` round (PTX ISA §9.7.16, `sm_100a` flavour, CTA-uniform control flow before
    /// any exit). Every thread fills `fz_wg` as for [`Gen::wgmma`] and fences it for the async
    /// proxy; warp 0 allocates a power of two of tensor-memory columns
    /// (`tcgen05.alloc` into the shared `fz_tm`; at times then
    /// `relinquish_alloc_permit`, after which the kernel allocates no more); after
    /// `tcgen05.fence::before_thread_sync`, `bar.sync 0`, `fence::after_thread_sync`, the
    /// warps 0-3 store data registers into D's cells of their own 32 lanes (`tcgen05.st
    /// .32x32b`, `wait::st`), so no cell the multiply reads is undefined; thread 0 issues a
    /// `tcgen05.mma.cta_group::1` (M = 128, `.kind::f16`, `::tf32` or `::i8`, A and B through
    /// shared-memory descriptors in any canonical layout inside `fz_wg`, a random instruction
    /// descriptor with transposes and negations, a CTA-uniform `enable-input-d`) and
    /// `tcgen05.commit`s it to `fz_mbar`, where every other thread arrives: the phase
    /// completes only after the multiply. Every thread then loads its lane's row of D
    /// (`tcgen05.ld`, `wait::ld`), folded into data registers as for `wgmma`; after a barrier
    /// warp 0 deallocates.
    pub(super) fn tcgen05(&mut self) -> Stmt {
        // (kind, D code, A and B type codes, accumulator is f32, the form whose layout and
        // exact masks the operands use, negation allowed).
        type Tc05Form = (&'static str, u32, (u32, u32), bool, usize, bool);
        let forms: &[Tc05Form] = &[
            ("f16", 1, (0, 0), true, 0, true),
            ("f16", 0, (0, 0), false, 1, true),
            ("f16", 1, (1, 1), true, 2, true),
            ("tf32", 1, (2, 2), true, 3, true),
            ("i8", 2, (1, 1), false, 4, false),
            ("i8", 2, (0, 1), false, 5, false),
            ("i8", 2, (1, 0), false, 6, false),
            ("i8", 2, (0, 0), false, 7, false),
        ];
        let &(kind, dcode, (acode, bcode), f32_acc, wf, neg_ok) = self.rng.pick(forms);
        let f = WGMMA_FORMS[wf];
        let n = *self.rng.pick(&[8u32, 16, 32, 64, 128]);
        let cols = (*self.rng.pick(&[32u32, 64, 128, 256, 512])).max(n);
        let mut lines = Vec::new();
        let exact = f.exact.filter(|_| self.rng.chance(40));
        self.wg_fill(exact, &mut lines);
        lines.push("fence.proxy.async.shared::cta;".to_string());
        let relinquish = self.counters.is_empty() && self.rng.chance(15);
        lines.extend([
            "setp.ge.u32 %pb, %tl, 32;".to_string(),
            "@%pb bra $L__ta$ID$;".to_string(),
            format!("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [fz_tm], {cols};"),
        ]);
        if relinquish {
            lines.push("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;".to_string());
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
        ]);
        // D's input: warps 0-3 store their 32 lanes' N columns.
        let regs: Vec<String> = (0..n).map(|i| format!("%wi{i}")).collect();
        for r in &regs {
            let src = self.src_reg(Class::B32);
            if f32_acc && self.rng.chance(50) {
                lines.push(format!("and.b32 %t1, {src}, 15;"));
                lines.push("cvt.rn.f32.u32 %tf, %t1;".to_string());
                lines.push(format!("mov.b32 {r}, %tf;"));
            } else {
                lines.push(format!("mov.b32 {r}, {src};"));
            }
        }
        lines.extend([
            "setp.ge.u32 %pb, %tl, 128;".to_string(),
            "@%pb bra $L__ts$ID$;".to_string(),
            format!(
                "tcgen05.st.sync.aligned.32x32b.x{n}.b32 [%tmw], {{{}}};",
                regs.join(", ")
            ),
            "tcgen05.wait::st.sync.aligned;".to_string(),
            "$L__ts$ID$:".to_string(),
            "tcgen05.fence::before_thread_sync;".to_string(),
            "bar.sync 0;".to_string(),
            "tcgen05.fence::after_thread_sync;".to_string(),
        ]);
        // The multiply, by thread 0.
        let trans_a = self.rng.chance(25);
        let trans_b = self.rng.chance(25);
        let (neg_a, neg_b) = if neg_ok {
            (self.rng.chance(25), self.rng.chance(25))
        } else {
            (false, false)
        };
        for (reg, mn, trans) in [("%wda0", 128, trans_a), ("%wdb0", n, trans_b)] {
            let (start, bits) = self.wg_desc(mn, f, trans);
            // wgmma's swizzle field (bits 62-63: 1 128-byte, 2 64-byte, 3 32-byte) moved to
            // tcgen05's (bits 61-63: 2, 4, 6), and bits 46-48 = 0b001.
            let bits = (bits & !(3u64 << 62)) | ((bits >> 62) * 2) << 61 | 1 << 46;
            lines.extend(Self::desc_lines(reg, (start, bits)));
        }
        let idesc = dcode << 4
            | acode << 7
            | bcode << 10
            | u32::from(neg_a) << 13
            | u32::from(neg_b) << 14
            | u32::from(trans_a) << 15
            | u32::from(trans_b) << 16
            | (n >> 3) << 17
            | (128 >> 4) << 24;
        let cond = self.uniform_cond();
        lines.extend(cond.setup.iter().cloned());
        if cond.negated {
            lines.push(format!("not.pred {0}, {0};", cond.pred));
        }
        lines.extend([
            format!("mov.u32 %t1, {idesc:#x};"),
            "setp.ne.u32 %pb, %tl, 0;".to_string(),
            "@%pb bra $L__tm$ID$;".to_string(),
            format!(
                "tcgen05.mma.cta_group::1.kind::{kind} [%tma], %wda0, %wdb0, %t1, {};",
                cond.pred
            ),
            "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [fz_mbar];"
                .to_string(),
            "$L__tm$ID$:".to_string(),
            "@%pb mbarrier.arrive.shared::cta.b64 %tdm, [fz_mbar];".to_string(),
            "$L__tw$ID$:".to_string(),
            "mbarrier.try_wait.parity.shared::cta.b64 %pb, [fz_mbar], %mbp;".to_string(),
            "@!%pb bra $L__tw$ID$;".to_string(),
            "xor.b32 %mbp, %mbp, 1;".to_string(),
            "tcgen05.fence::after_thread_sync;".to_string(),
            format!(
                "tcgen05.ld.sync.aligned.32x32b.x{n}.b32 {{{}}}, [%tmw];",
                regs.join(", ")
            ),
            "tcgen05.wait::ld.sync.aligned;".to_string(),
            "mov.u32 %t2, 0;".to_string(),
        ]);
        for r in &regs {
            lines.push(format!("mad.lo.u32 %t2, %t2, 31, {r};"));
        }
        let r = self.data_reg(Class::B32);
        lines.push(format!("xor.b32 {r}, {r}, %t2;"));
        let i = self.rng.below(u64::from(n));
        let d = self.data_reg(Class::B32);
        lines.push(format!("mov.b32 {d}, %wi{i};"));
        lines.extend([
            "tcgen05.fence::before_thread_sync;".to_string(),
            "bar.sync 0;".to_string(),
            "setp.ge.u32 %pb, %tl, 32;".to_string(),
            "@%pb bra $L__td$ID$;".to_string(),
            "tcgen05.fence::after_thread_sync;".to_string(),
            format!("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %tma, {cols};"),
            "$L__td$ID$:".to_string(),
        ]);
        Stmt::Code(lines)
    }
}
