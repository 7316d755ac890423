//! Rendering a generated [`Kernel`] as PTX: module variables, the entry with its four
//! parameters (two more with a texture and a surface, one more with a tensor map), register
//! declarations, the fixed prologue (parameters, thread ids, per-thread bases, data registers
//! from the input, shared and local memory zeroed), the body, and the epilogue that stores
//! every data register into the thread's region of `out`.

use std::fmt::Write as _;

use super::forms::Class;
use super::gen::*;

/// Facts about a kernel body that the prologue and epilogue depend on.
#[derive(Default)]
struct Facts {
    real_exit: bool,
    /// A `multimem.cp` form (PTX ISA 9.1) is in the body.
    multimem_cp: bool,
    /// A `fabric` instruction (PTX ISA 9.3; `.commit_group` and `::read N` 9.5) is in the body.
    fabric: bool,
    /// A block-scaled `mma` with `.scale_vec::4X` and `.ue8m0` (PTX ISA 9.1) is in the body.
    mma_91: bool,
}

fn facts(body: &[Stmt], f: &mut Facts) {
    for s in body {
        match s {
            Stmt::If { then, els, .. } => {
                facts(then, f);
                facts(els, f);
            }
            Stmt::Loop { body, .. } => facts(body, f),
            Stmt::Switch { arms, .. } => arms.iter().for_each(|a| facts(a, f)),
            Stmt::Exit { how, .. } => f.real_exit |= *how != ExitHow::ToEpilogue,
            Stmt::Code(lines) => {
                f.multimem_cp |= lines.iter().any(|l| l.contains("multimem.cp."));
                f.fabric |= lines.iter().any(|l| l.starts_with("fabric."));
                f.mma_91 |= lines.iter().any(|l| {
                    l.starts_with("mma.") && l.contains(".scale_vec::4X.") && l.contains(".ue8m0 ")
                });
            }
            Stmt::Barrier(_) | Stmt::Exchange { .. } => {}
        }
    }
}

struct Render {
    out: String,
    labels: u32,
    /// Threads per CTA (`$NT$` in statement lines).
    nt: u32,
}

impl Render {
    fn line(&mut self, s: &str) {
        self.out.push('\t');
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn label(&mut self) -> String {
        self.labels += 1;
        format!("$L__fz{}", self.labels)
    }

    fn place(&mut self, l: &str) {
        let _ = writeln!(self.out, "{l}:");
    }

    /// Branch to `target` where `cond` is false (`want = false`) or true.
    fn branch(&mut self, cond: &Cond, when: bool, target: &str) {
        for s in &cond.setup {
            self.line(s);
        }
        let neg = cond.negated ^ !when;
        let bang = if neg { "!" } else { "" };
        self.line(&format!("@{bang}{} bra {target};", cond.pred));
    }

    fn stmts(&mut self, body: &[Stmt]) {
        for s in body {
            self.stmt(s);
        }
    }

    /// A statement's lines with `$NT$` replaced by the threads per CTA and `$ID$` by a number
    /// of the statement's own (for its local labels).
    fn lines(&mut self, lines: &[String]) {
        let id = if lines.iter().any(|l| l.contains("$ID$")) {
            self.labels += 1;
            self.labels
        } else {
            0
        };
        for l in lines {
            let l = l
                .replace("$NT$", &self.nt.to_string())
                .replace("$ID$", &id.to_string());
            self.line(&l);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Code(lines) => self.lines(lines),
            Stmt::Barrier(b) => self.lines(std::slice::from_ref(b)),
            Stmt::Switch {
                setup,
                uniform,
                arms,
            } => {
                let table = self.label();
                let end = self.label();
                let targets: Vec<String> = arms.iter().map(|_| self.label()).collect();
                setup.iter().for_each(|l| self.line(l));
                self.line(&format!("{table}: .branchtargets {};", targets.join(", ")));
                let uni = if *uniform { ".uni" } else { "" };
                self.line(&format!("brx.idx{uni} %t0, {table};"));
                for (arm, target) in arms.iter().zip(&targets) {
                    self.place(target);
                    self.stmts(arm);
                    self.line(&format!("bra {end};"));
                }
                self.place(&end);
            }
            Stmt::Exchange { store, load } => {
                store.iter().for_each(|l| self.line(l));
                self.line("bar.sync 0;");
                load.iter().for_each(|l| self.line(l));
                self.line("bar.sync 0;");
            }
            Stmt::If { cond, then, els } => {
                let (else_l, end_l) = (self.label(), self.label());
                if els.is_empty() {
                    self.branch(cond, false, &end_l);
                    self.stmts(then);
                } else {
                    self.branch(cond, false, &else_l);
                    self.stmts(then);
                    self.line(&format!("bra {end_l};"));
                    self.place(&else_l);
                    self.stmts(els);
                }
                self.place(&end_l);
            }
            Stmt::Loop {
                level,
                trip,
                test_first,
                body,
                brk,
            } => {
                let (head, end) = (self.label(), self.label());
                self.line(&format!("mov.u32 %lc{level}, 0;"));
                let limit = match trip {
                    Trip::Fixed(n) => format!("{n}"),
                    Trip::PerLane(lines) => {
                        lines.iter().for_each(|l| self.line(l));
                        format!("%ll{level}")
                    }
                };
                self.place(&head);
                if *test_first {
                    self.line(&format!("setp.ge.u32 %pl, %lc{level}, {limit};"));
                    self.line(&format!("@%pl bra {end};"));
                }
                self.stmts(body);
                if let Some(c) = brk {
                    self.branch(c, true, &end);
                }
                self.line(&format!("add.u32 %lc{level}, %lc{level}, 1;"));
                if *test_first {
                    self.line(&format!("bra {head};"));
                } else {
                    self.line(&format!("setp.lt.u32 %pl, %lc{level}, {limit};"));
                    self.line(&format!("@%pl bra {head};"));
                }
                self.place(&end);
            }
            Stmt::Exit { cond, how } => {
                let target = match how {
                    ExitHow::Ret => None,
                    ExitHow::Exit => Some("exit"),
                    ExitHow::ToEpilogue => Some("bra $L__epilogue"),
                };
                for l in &cond.setup {
                    self.line(l);
                }
                let bang = if cond.negated { "!" } else { "" };
                self.line(&format!(
                    "@{bang}{} {};",
                    cond.pred,
                    target.unwrap_or("ret")
                ));
            }
        }
    }
}

fn byte_list(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| b.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl Kernel {
    /// The kernel as a PTX module (`.version 8.0`, `.target sm_80`, 64-bit addresses; the
    /// flavours' targets: `sm_90` and `sm_90a` with `.version 8.1` and 8.4, `sm_100` and
    /// `sm_100a` with 8.8, `sm_100` with 9.1 where the body has a `multimem.cp` form or a
    /// block-scaled `mma` with `.scale_vec::4X` and `.ue8m0`, and
    /// both with 9.5 where it has a `fabric` instruction; the `sm_120a` flavour as `sm_100`).
    ///
    /// Parameters: `in` (u64 pointer, [`IN_BYTES`]), `out` (u64 pointer, [`OUT_REGION`] bytes
    /// per thread), `atom` (u64 pointer, [`ATOM_BYTES`]), `k` (u32); with [`Kernel::tex`],
    /// also `tex` and `surf` (u64 texture and surface object handles); with [`Kernel::tmap`],
    /// then `tmap` (a 128-byte tensor map by value); with [`Kernel::tmap_out`], then `tmapo`
    /// (the same).
    pub fn render(&self) -> String {
        let mut f = Facts::default();
        facts(&self.body, &mut f);
        let name = &self.name;
        let nt = self.threads_per_cta();
        let mut r = Render {
            out: String::new(),
            labels: 0,
            nt,
        };
        let o = &mut r.out;
        let _ = writeln!(o, "// Generated by ptxjit fuzz (src/fuzz/gen.rs).");
        if self.sm100a {
            let v = if f.fabric { "9.5" } else { "8.8" };
            let _ = writeln!(o, ".version {v}\n.target sm_100a\n.address_size 64\n");
        } else if self.sm100 {
            let target = if self.sm120a { "sm_120a" } else { "sm_100" };
            let v = if f.fabric {
                "9.5"
            } else if f.multimem_cp || f.mma_91 {
                "9.1"
            } else {
                "8.8"
            };
            let _ = writeln!(o, ".version {v}\n.target {target}\n.address_size 64\n");
        } else if self.sm90a {
            let _ = writeln!(o, ".version 8.4\n.target sm_90a\n.address_size 64\n");
        } else if self.sm90 {
            let _ = writeln!(o, ".version 8.1\n.target sm_90\n.address_size 64\n");
        } else {
            let _ = writeln!(o, ".version 8.0\n.target sm_80\n.address_size 64\n");
        }
        let _ = writeln!(
            o,
            ".const .align 8 .b8 ctab[64] = {{{}}};",
            byte_list(&self.ctab)
        );
        let _ = writeln!(
            o,
            ".global .align 8 .b8 gtab[64] = {{{}}};",
            byte_list(&self.gtab)
        );
        match self.shared {
            SharedMode::None => {}
            SharedMode::Static => {
                let _ = writeln!(o, ".shared .align 16 .b8 smem[{}];", self.shared_bytes());
            }
            SharedMode::Dynamic => {
                let _ = writeln!(o, ".extern .shared .align 16 .b8 smem[];");
            }
        }
        if self.sm90 {
            let _ = writeln!(o, ".shared .align 8 .b64 fz_mbar;");
            let _ = writeln!(o, ".shared .align 8 .b64 fz_mbd;");
            let _ = writeln!(o, ".shared .align 8 .b64 fz_mbc;");
            let _ = writeln!(o, ".shared .align 128 .b8 fz_bulk[{BULK_BYTES}];");
        }
        if self.sm90a || self.sm100a {
            let _ = writeln!(o, ".shared .align 1024 .b8 fz_wg[{WG_BYTES}];");
        }
        if self.sm100a {
            let _ = writeln!(o, ".shared .align 4 .b32 fz_tm;");
        }
        self.funcs(o);
        // The texture and surface handles follow `k` where the kernel has them.
        let mut handles = if self.tex.is_some() {
            format!(",\n\t.param .u64 {name}_tex,\n\t.param .u64 {name}_surf")
        } else {
            String::new()
        };
        if self.tmap.is_some() {
            let _ = write!(handles, ",\n\t.param .align 64 .b8 {name}_tmap[128]");
        }
        if self.tmap_out.is_some() {
            let _ = write!(handles, ",\n\t.param .align 64 .b8 {name}_tmapo[128]");
        }
        let _ = writeln!(
            o,
            "\n.visible .entry {name}(\n\t.param .u64 {name}_in,\n\t.param .u64 {name}_out,\n\t.param .u64 {name}_atom,\n\t.param .u32 {name}_k{handles}\n)\n{{"
        );
        for (class, prefix, n) in POOL {
            let ty = match class {
                Class::B16 => "b16",
                Class::B32 => "b32",
                Class::B64 => "b64",
                Class::F32 => "f32",
                Class::F64 => "f64",
                Class::Pred => "pred",
            };
            r.line(&format!(".reg .{ty} {prefix}<{n}>;"));
        }
        r.line(&format!(
            ".reg .b32 {}, %t0, %t1, %t2, %lc<{MAX_LOOPS}>, %ll<{MAX_LOOPS}>;",
            FIXED.join(", ")
        ));
        r.line(".reg .b64 %pin, %pout, %patm, %gin, %gatm, %od, %odp, %td0, %td1, %sb, %so, %sacc, %sgen, %lb, %lgen;");
        r.line(".reg .b64 %ur<4>;");
        r.line(".reg .pred %pu, %pl, %pb;");
        r.line(".reg .f32 %tf;");
        r.line(".reg .b32 %mbp;");
        r.line(".reg .b64 %tdm;");
        r.line(".reg .v4 .b32 %vv;");
        r.line(".reg .v2 .f64 %vd;");
        r.line(".reg .v2 .b32 %vw;");
        r.line(".reg .v4 .f32 %vf;");
        r.line(".reg .v2 .f32 %vg;");
        r.line(".reg .v2 .u64 %vl;");
        r.line(".reg .v4 .b16 %vh;");
        r.line(".reg .b64 %htex, %hsurf, %htmap, %htmo;");
        if self.sm90 {
            r.line(".reg .b32 %tk<5>;");
        }
        r.line(".reg .f32 %tc<3>;");
        r.line(".reg .b32 %tci<4>;");
        r.line(".reg .b32 %wm<32>;");
        r.line(".reg .f32 %wmf<16>;");
        r.line(".reg .f64 %wmd<6>;");
        if self.sm100a {
            r.line(".reg .b32 %tma, %tmw;");
        }
        if self.sm90a || self.sm100a {
            r.line(&format!(".reg .f32 %wf<{WG_REGS}>;"));
            r.line(&format!(".reg .b32 %wi<{WG_REGS}>, %wt<4>;"));
            r.line(".reg .b64 %wda<3>, %wdb<3>;");
        }
        r.line(".local .align 16 .b8 lbuf[64];");
        self.prologue(&mut r, nt);
        r.stmts(&self.body);
        self.epilogue(&mut r, &f);
        r.out.push_str("}\n");
        r.out
    }

    fn prologue(&self, r: &mut Render, nt: u32) {
        let name = &self.name;
        for l in [
            format!("ld.param.u64 %pin, [{name}_in];"),
            format!("ld.param.u64 %pout, [{name}_out];"),
            format!("ld.param.u64 %patm, [{name}_atom];"),
            format!("ld.param.u32 %k, [{name}_k];"),
            if self.tex.is_some() {
                format!("ld.param.u64 %htex, [{name}_tex];")
            } else {
                "mov.u64 %htex, 0;".into()
            },
            if self.tex.is_some() {
                format!("ld.param.u64 %hsurf, [{name}_surf];")
            } else {
                "mov.u64 %hsurf, 0;".into()
            },
            // The tensor map's generic address (in the parameter space).
            if self.tmap.is_some() {
                format!("mov.b64 %htmap, {name}_tmap;")
            } else {
                "mov.u64 %htmap, 0;".into()
            },
            if self.tmap.is_some() {
                "cvta.param.u64 %htmap, %htmap;".into()
            } else {
                "mov.u64 %htmap, 0;".into()
            },
            if self.tmap_out.is_some() {
                format!("mov.b64 %htmo, {name}_tmapo;")
            } else {
                "mov.u64 %htmo, 0;".into()
            },
            if self.tmap_out.is_some() {
                "cvta.param.u64 %htmo, %htmo;".into()
            } else {
                "mov.u64 %htmo, 0;".into()
            },
            "cvta.to.global.u64 %gin, %pin;".into(),
            "cvta.to.global.u64 %gatm, %patm;".into(),
            // Linear thread id in the CTA: x + y*nx + z*nx*ny.
            "mov.u32 %ntx, %ntid.x;".into(),
            "mov.u32 %t0, %ntid.y;".into(),
            "mov.u32 %t1, %tid.z;".into(),
            "mov.u32 %t2, %tid.y;".into(),
            "mad.lo.u32 %tl, %t1, %t0, %t2;".into(),
            "mov.u32 %t2, %tid.x;".into(),
            "mad.lo.u32 %tl, %tl, %ntx, %t2;".into(),
            // Linear CTA id, with the same rule.
            "mov.u32 %t0, %nctaid.x;".into(),
            "mov.u32 %t1, %nctaid.y;".into(),
            "mov.u32 %t2, %ctaid.z;".into(),
            "mov.u32 %cl, %ctaid.y;".into(),
            "mad.lo.u32 %cl, %t2, %t1, %cl;".into(),
            "mov.u32 %t2, %ctaid.x;".into(),
            "mad.lo.u32 %cl, %cl, %t0, %t2;".into(),
            format!("mad.lo.u32 %gl, %cl, {nt}, %tl;"),
            // CTA-uniform address roots and `root + constant` chains (`gen::UNIFORM_ROOTS`),
            // in the first block: in + ((cl·40 + k) & 504), + 8, + 16; gtab + (k & 24).
            "mad.lo.u32 %t1, %cl, 40, %k;".into(),
            "and.b32 %t1, %t1, 504;".into(),
            "cvt.u64.u32 %td1, %t1;".into(),
            "add.s64 %ur0, %gin, %td1;".into(),
            "add.s64 %ur1, %ur0, 8;".into(),
            "add.s64 %ur2, %ur1, 16;".into(),
            "and.b32 %t1, %k, 24;".into(),
            "cvt.u64.u32 %td1, %t1;".into(),
            "mov.u64 %ur3, gtab;".into(),
            "add.s64 %ur3, %ur3, %td1;".into(),
            "mov.u32 %ln, %laneid;".into(),
            "mov.u32 %wp, %warpid;".into(),
            format!("mul.wide.u32 %td0, %gl, {OUT_REGION};"),
            "add.s64 %odp, %pout, %td0;".into(),
            "cvta.to.global.u64 %od, %odp;".into(),
            "mov.u64 %lb, lbuf;".into(),
            "cvta.local.u64 %lgen, %lb;".into(),
            "mov.u32 %t0, 0;".into(),
            "st.local.v4.u32 [%lb], {%t0, %t0, %t0, %t0};".into(),
            "st.local.v4.u32 [%lb+16], {%t0, %t0, %t0, %t0};".into(),
            "st.local.v4.u32 [%lb+32], {%t0, %t0, %t0, %t0};".into(),
            "st.local.v4.u32 [%lb+48], {%t0, %t0, %t0, %t0};".into(),
        ] {
            r.line(&l);
        }
        for level in 0..MAX_LOOPS {
            r.line(&format!("mov.u32 %lc{level}, 0;"));
            r.line(&format!("mov.u32 %ll{level}, 0;"));
        }
        // Data registers: from the input buffer at thread-dependent places, and thread ids.
        let inits: &[(&str, u32, &str, u32)] = &[
            ("%r", 8, "u32", 4),
            ("%rd", 4, "u64", 8),
            ("%f", 4, "f32", 4),
            ("%fd", 4, "f64", 8),
            ("%h", 4, "u16", 2),
        ];
        let mut salt = 0u32;
        for &(prefix, n, ty, size) in inits {
            for i in 0..n {
                salt += 1;
                let mul = 4 * (2 * salt + 1);
                r.line(&format!("mad.lo.u32 %t0, %gl, {mul}, {};", salt * 12));
                r.line(&format!("and.b32 %t0, %t0, {};", IN_BYTES - size));
                r.line("cvt.u64.u32 %td0, %t0;");
                r.line("add.s64 %td0, %gin, %td0;");
                r.line(&format!("ld.global.{ty} {prefix}{i}, [%td0];"));
            }
        }
        r.line("xor.b32 %r6, %r6, %tl;");
        r.line("add.u32 %r7, %r7, %gl;");
        r.line("setp.lt.u32 %p0, %r0, %r1;");
        r.line("and.b32 %t0, %tl, 1;");
        r.line("setp.eq.u32 %p1, %t0, 0;");
        r.line("setp.gt.s32 %p2, %r2, %r3;");
        r.line("setp.ne.u32 %p3, %r4, 0;");
        if self.sm90 {
            // The mbarrier every thread of the CTA arrives on; its phase parity in `%mbp`.
            r.line("setp.eq.u32 %pb, %tl, 0;");
            r.line(&format!(
                "@%pb mbarrier.init.shared::cta.b64 [fz_mbar], {nt};"
            ));
            r.line("bar.sync 0;");
        }
        r.line("mov.u32 %mbp, 0;");
        if self.shared != SharedMode::None {
            // Own slot at smem + tl*32; the atomic area after all slots. Zero both, then wait.
            r.line("mov.u64 %sb, smem;");
            r.line(&format!("mul.wide.u32 %td0, %tl, {SHARED_SLOT};"));
            r.line("add.s64 %so, %sb, %td0;");
            r.line(&format!("add.s64 %sacc, %sb, {};", nt * SHARED_SLOT));
            r.line("cvta.shared.u64 %sgen, %sb;");
            r.line("mov.u32 %t0, 0;");
            r.line("st.shared.v4.u32 [%so], {%t0, %t0, %t0, %t0};");
            r.line("st.shared.v4.u32 [%so+16], {%t0, %t0, %t0, %t0};");
            // The atomic area: thread tl zeroes words tl, tl + nt, ... (a divergent loop).
            r.line("mov.u32 %t1, %tl;");
            r.place("$L__zero");
            r.line(&format!("setp.ge.u32 %pu, %t1, {};", ATOM_BYTES / 4));
            r.line("@%pu bra $L__zero_end;");
            r.line("shl.b32 %t2, %t1, 2;");
            r.line("cvt.u64.u32 %td0, %t2;");
            r.line("add.s64 %td0, %sacc, %td0;");
            r.line("st.shared.u32 [%td0], %t0;");
            r.line(&format!("add.u32 %t1, %t1, {nt};"));
            r.line("bra $L__zero;");
            r.place("$L__zero_end");
            r.line("bar.sync 0;");
        } else {
            r.line("mov.u64 %sb, 0;");
            r.line("mov.u64 %so, 0;");
            r.line("mov.u64 %sacc, 0;");
            r.line("mov.u64 %sgen, 0;");
        }
    }

    /// The device functions `fz_f0` (`.param` parameters and return value) and `fz_f1`
    /// (`.reg` ones): the fixed entry code sets [`FUNC_REGS`] from the parameters, then the
    /// generated middle part, then `%q2` is returned.
    fn funcs(&self, o: &mut String) {
        let regs = FUNC_REGS.join(", ");
        let _ = writeln!(
            o,
            "\n.func (.param .b32 fz_f0_r) fz_f0(.param .b32 fz_f0_a, .param .b32 fz_f0_b)\n{{"
        );
        let _ = writeln!(o, "\t.reg .b32 {regs};\n\t.reg .pred %qp;");
        let _ = writeln!(o, "\tld.param.b32 %q0, [fz_f0_a];");
        let _ = writeln!(o, "\tld.param.b32 %q1, [fz_f0_b];");
        let _ = writeln!(o, "\txor.b32 %q2, %q0, %q1;\n\tadd.u32 %q3, %q0, 7;");
        for l in &self.funcs[0] {
            let _ = writeln!(o, "\t{l}");
        }
        let _ = writeln!(o, "\tst.param.b32 [fz_f0_r], %q2;\n\tret;\n}}");
        let _ = writeln!(
            o,
            "\n.func (.reg .b32 %fz_r) fz_f1(.reg .b64 %fz_a, .reg .b32 %fz_b)\n{{"
        );
        let _ = writeln!(o, "\t.reg .b32 {regs};\n\t.reg .pred %qp;");
        let _ = writeln!(o, "\tmov.b64 {{%q0, %q1}}, %fz_a;");
        let _ = writeln!(o, "\tmov.u32 %q2, %fz_b;\n\tsub.u32 %q3, %q1, %fz_b;");
        for l in &self.funcs[1] {
            let _ = writeln!(o, "\t{l}");
        }
        let _ = writeln!(o, "\tmov.u32 %fz_r, %q2;\n\tret;\n}}");
    }

    fn epilogue(&self, r: &mut Render, f: &Facts) {
        r.place("$L__epilogue");
        let mut off = 128;
        for (class, prefix, n) in POOL {
            for i in 0..*n {
                let reg = format!("{prefix}{i}");
                match class {
                    Class::B32 => r.line(&format!("st.global.u32 [%od+{off}], {reg};")),
                    Class::F32 => r.line(&format!("st.global.f32 [%od+{off}], {reg};")),
                    Class::B64 => r.line(&format!("st.global.u64 [%od+{off}], {reg};")),
                    Class::F64 => r.line(&format!("st.global.f64 [%od+{off}], {reg};")),
                    Class::B16 => r.line(&format!("st.global.u16 [%od+{off}], {reg};")),
                    Class::Pred => {
                        r.line(&format!("selp.u32 %t0, 1, 0, {reg};"));
                        r.line(&format!("st.global.u8 [%od+{off}], %t0;"));
                    }
                }
                off += match class {
                    Class::B64 | Class::F64 => 8,
                    Class::B32 | Class::F32 => 4,
                    Class::B16 => 2,
                    Class::Pred => 1,
                };
            }
        }
        debug_assert!(off <= OUT_REGION - 4);
        if self.shared != SharedMode::None && !f.real_exit {
            // Every thread is here: read back one word of the shared atomic area.
            r.line("bar.sync 0;");
            r.line(&format!("rem.u32 %t0, %tl, {};", ATOM_BYTES / 4));
            r.line("shl.b32 %t0, %t0, 2;");
            r.line("cvt.u64.u32 %td0, %t0;");
            r.line("add.s64 %td0, %sacc, %td0;");
            r.line("ld.shared.u32 %t1, [%td0];");
            r.line(&format!("st.global.u32 [%od+{}], %t1;", OUT_REGION - 4));
        }
        r.line("ret;");
    }
}
