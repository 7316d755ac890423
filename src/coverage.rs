//! The PTX ISA coverage report (`ptxjit coverage`, `docs/coverage.md`).
//!
//! Every instruction of the PTX ISA (9.x, §9.7) is listed with example instructions covering
//! the forms ptxjit claims. The report is generated, not written: each example is compiled by
//! the real front end (parse, lower, verify) and the instruction is reported as supported only
//! if all its examples compile; otherwise the first decoder error is shown. The IR operations
//! come from the op table ([`crate::ir::OP_TABLE`]).

use crate::ir::OP_TABLE;

/// One PTX instruction: name, ISA section, the forms claimed (types and modifiers), and
/// examples that exercise them (registers: `%p1-3` pred, `%h1-4` b16, `%r1-5` b32, `%rd1-5`
/// b64, `%f1-4` f32, `%fd1-4` f64; `sm` is a `.shared` array; `$L` a label, `$T` a
/// `.branchtargets` list of it; `cov_f` a `.func` taking one `.b32` parameter).
pub struct Instr {
    pub name: &'static str,
    pub section: &'static str,
    pub forms: &'static str,
    pub examples: &'static [&'static str],
}

macro_rules! isa {
    ($( $name:literal $sec:literal $forms:literal [ $($ex:literal),* $(,)? ] )*) => {
        &[ $( Instr { name: $name, section: $sec, forms: $forms, examples: &[$($ex),*] }, )* ]
    };
}

/// The PTX ISA's instructions, in the ISA's order.
pub const ISA: &[Instr] = isa! {
    "add" "9.7.1.1" "u16-64, s16-64 (wrapping); .u16x2/.s16x2 (each half wrapping); .sat.s32; .sat.u32, .sat.u16x2/.sat.s16x2 (each half clamped; PTX ISA 9.2, sm_120f family); .cc (see add.cc); .u8x4/.s8x4 and .sat.u8x4/.s8x4 (each byte wrapping or clamped; PTX ISA 9.2, sm_120f family)" [
        "add.u16 %h1, %h2, %h3", "add.s32 %r1, %r2, %r3", "add.u64 %rd1, %rd2, %rd3",
        "add.sat.s32 %r1, %r2, %r3", "add.s16x2 %r1, %r2, %r3", "add.sat.u32 %r1, %r2, %r3",
        "add.sat.u16x2 %r1, %r2, %r3", "add.sat.s16x2 %r1, %r2, %r3", "add.u8x4 %r1, %r2, %r3",
        "add.sat.s8x4 %r1, %r2, %r3"]
    "sub" "9.7.1.2" "u16-64, s16-64; .sat.s32; {.sat}.u8x4/.s8x4 (per byte; PTX ISA 9.2, sm_120f family)" [
        "sub.s64 %rd1, %rd2, %rd3", "sub.sat.s32 %r1, %r2, %r3", "sub.sat.u8x4 %r1, %r2, %r3"]
    "mul" "9.7.1.3" ".lo/.hi/.wide on u16-64, s16-64 (.wide on 16/32)" [
        "mul.lo.s32 %r1, %r2, %r3", "mul.hi.u64 %rd1, %rd2, %rd3", "mul.wide.s32 %rd1, %r2, %r3",
        "mul.wide.u16 %r1, %h1, %h2"]
    "mad" "9.7.1.4" ".lo/.hi/.wide on u16-64, s16-64; .hi.sat.s32" [
        "mad.lo.s32 %r1, %r2, %r3, %r4", "mad.hi.u32 %r1, %r2, %r3, %r4",
        "mad.wide.s32 %rd1, %r2, %r3, %rd4", "mad.hi.sat.s32 %r1, %r2, %r3, %r4"]
    "mul24" "9.7.1.5" ".lo/.hi on u32, s32" ["mul24.lo.s32 %r1, %r2, %r3", "mul24.hi.u32 %r1, %r2, %r3"]
    "mad24" "9.7.1.6" ".lo/.hi on u32, s32; .hi.sat.s32" [
        "mad24.lo.u32 %r1, %r2, %r3, %r4", "mad24.hi.sat.s32 %r1, %r2, %r3, %r4"]
    "sad" "9.7.1.7" "u16-64, s16-64" ["sad.u32 %r1, %r2, %r3, %r4", "sad.s64 %rd1, %rd2, %rd3, %rd4"]
    "div" "9.7.1.8" "u16-64, s16-64 (x/0 → all ones, see isa-notes)" ["div.s32 %r1, %r2, %r3", "div.u64 %rd1, %rd2, %rd3"]
    "rem" "9.7.1.9" "u16-64, s16-64" ["rem.s32 %r1, %r2, %r3", "rem.u16 %h1, %h2, %h3"]
    "abs" "9.7.1.10" "s16-64" ["abs.s32 %r1, %r2", "abs.s64 %rd1, %rd2"]
    "neg" "9.7.1.11" "s16-64; .s8x4 (per byte, wrapping; PTX ISA 9.2, sm_120f family)" [
        "neg.s32 %r1, %r2", "neg.s16 %h1, %h2", "neg.s8x4 %r1, %r2"]
    "min" "9.7.1.12" "u16-64, s16-64, .relu.s32, u16x2, s16x2, .relu.s16x2; .u8x4/.s8x4, .relu.s8x4 (per byte; PTX ISA 9.2, sm_120f family)" [
        "min.u32 %r1, %r2, %r3", "min.relu.s32 %r1, %r2, %r3", "min.u16x2 %r1, %r2, %r3",
        "min.relu.s16x2 %r1, %r2, %r3", "min.relu.s8x4 %r1, %r2, %r3"]
    "max" "9.7.1.13" "as min" ["max.s64 %rd1, %rd2, %rd3", "max.relu.s32 %r1, %r2, %r3", "max.s16x2 %r1, %r2, %r3"]
    "popc" "9.7.1.14" "b32, b64" ["popc.b32 %r1, %r2", "popc.b64 %r1, %rd2"]
    "clz" "9.7.1.15" "b32, b64" ["clz.b32 %r1, %r2", "clz.b64 %r1, %rd2"]
    "bfind" "9.7.1.16" "u32, u64, s32, s64; .shiftamt" ["bfind.u32 %r1, %r2", "bfind.shiftamt.s64 %r1, %rd2"]
    "fns" "9.7.1.17" "b32" ["fns.b32 %r1, %r2, %r3, %r4"]
    "brev" "9.7.1.18" "b32, b64" ["brev.b32 %r1, %r2", "brev.b64 %rd1, %rd2"]
    "bfe" "9.7.1.19" "u32, u64, s32, s64" ["bfe.u32 %r1, %r2, %r3, %r4", "bfe.s64 %rd1, %rd2, %r3, %r4"]
    "bfi" "9.7.1.20" "b32, b64" ["bfi.b32 %r1, %r2, %r3, %r4, %r5", "bfi.b64 %rd1, %rd2, %rd3, %r4, %r5"]
    "szext" "9.7.1.21" ".clamp/.wrap on u32, s32" ["szext.clamp.s32 %r1, %r2, %r3", "szext.wrap.u32 %r1, %r2, %r3"]
    "bmsk" "9.7.1.22" ".clamp/.wrap .b32" ["bmsk.clamp.b32 %r1, %r2, %r3", "bmsk.wrap.b32 %r1, %r2, %r3"]
    "dp4a" "9.7.1.23" "u32/s32 × u32/s32" ["dp4a.u32.u32 %r1, %r2, %r3, %r4", "dp4a.s32.u32 %r1, %r2, %r3, %r4"]
    "dp2a" "9.7.1.24" ".lo/.hi, u32/s32 × u32/s32" ["dp2a.lo.s32.s32 %r1, %r2, %r3, %r4", "dp2a.hi.u32.s32 %r1, %r2, %r3, %r4"]
    "add.cc" "9.7.2.1" "u32, s32, u64, s64 (CC.CF is a hidden predicate)" ["add.cc.u32 %r1, %r2, %r3", "add.cc.s64 %rd1, %rd2, %rd3"]
    "addc" "9.7.2.2" "{.cc} u32, s32, u64, s64" ["addc.u32 %r1, %r2, %r3", "addc.cc.s64 %rd1, %rd2, %rd3"]
    "sub.cc" "9.7.2.3" "u32, s32, u64, s64" ["sub.cc.u32 %r1, %r2, %r3"]
    "subc" "9.7.2.4" "{.cc} u32, s32, u64, s64" ["subc.cc.u32 %r1, %r2, %r3", "subc.s64 %rd1, %rd2, %rd3"]
    "mad.cc" "9.7.2.5" ".lo/.hi on u32, s32, u64, s64" ["mad.lo.cc.u32 %r1, %r2, %r3, %r4"]
    "madc" "9.7.2.6" "{.cc} .lo/.hi on u32, s32, u64, s64" ["madc.hi.cc.u32 %r1, %r2, %r3, %r4", "madc.lo.u64 %rd1, %rd2, %rd3, %rd4"]
    "testp" "9.7.3.1" ".finite .infinite .number .notanumber .normal .subnormal on f32, f64" [
        "testp.finite.f32 %p1, %f1", "testp.subnormal.f64 %p1, %fd1", "testp.notanumber.f32 %p1, %f1"]
    "copysign" "9.7.3.2" "f32, f64" ["copysign.f32 %f1, %f2, %f3", "copysign.f64 %fd1, %fd2, %fd3"]
    "add (float)" "9.7.3.3" ".rn .rz .rm .rp, .ftz, .sat on f32; rounding on f64; .f32x2 (two f32 in a .b64 register, each as .f32: rounding, .ftz)" [
        "add.f32 %f1, %f2, %f3", "add.rz.ftz.sat.f32 %f1, %f2, %f3", "add.rm.f64 %fd1, %fd2, %fd3",
        "add.rn.ftz.f32x2 %rd1, %rd2, %rd3"]
    "sub (float)" "9.7.3.4" "as add" ["sub.rp.f32 %f1, %f2, %f3", "sub.rn.f64 %fd1, %fd2, %fd3", "sub.rz.f32x2 %rd1, %rd2, %rd3"]
    "mul (float)" "9.7.3.5" "as add" ["mul.rz.ftz.f32 %f1, %f2, %f3", "mul.rp.f64 %fd1, %fd2, %fd3", "mul.f32x2 %rd1, %rd2, %rd3"]
    "fma (float)" "9.7.3.6" ".rn .rz .rm .rp, .ftz, .sat on f32; rounding on f64; .f32x2 (as add)" [
        "fma.rn.f32 %f1, %f2, %f3, %f4", "fma.rm.ftz.sat.f32 %f1, %f2, %f3, %f4", "fma.rz.f64 %fd1, %fd2, %fd3, %fd4",
        "fma.rn.f32x2 %rd1, %rd2, %rd3, %rd4"]
    "mad (float)" "9.7.3.7" "fused, as fma" ["mad.rn.f32 %f1, %f2, %f3, %f4", "mad.rp.f64 %fd1, %fd2, %fd3, %fd4"]
    "div (float)" "9.7.3.8" ".approx{.ftz}.f32, .full{.ftz}.f32, .rn .rz .rm .rp{.ftz} f32 and f64" [
        "div.approx.f32 %f1, %f2, %f3", "div.full.ftz.f32 %f1, %f2, %f3", "div.rz.f32 %f1, %f2, %f3",
        "div.rp.f64 %fd1, %fd2, %fd3"]
    "abs (float)" "9.7.3.9" "{.ftz} f32, f64" ["abs.ftz.f32 %f1, %f2", "abs.f64 %fd1, %fd2"]
    "neg (float)" "9.7.3.10" "{.ftz} f32, f64" ["neg.f32 %f1, %f2", "neg.f64 %fd1, %fd2"]
    "min (float)" "9.7.3.11" "{.ftz}{.NaN}{.xorsign.abs}.f32, three inputs {.abs}, f64" [
        "min.f32 %f1, %f2, %f3", "min.ftz.NaN.f32 %f1, %f2, %f3", "min.xorsign.abs.f32 %f1, %f2, %f3",
        "min.abs.f32 %f1, %f2, %f3, %f4", "min.f64 %fd1, %fd2, %fd3"]
    "max (float)" "9.7.3.12" "as min" ["max.NaN.f32 %f1, %f2, %f3", "max.f64 %fd1, %fd2, %fd3"]
    "rcp" "9.7.3.13" ".approx{.ftz}.f32; .rn .rz .rm .rp{.ftz} f32, f64 (.ftz on f64 as ptxas takes it: no effect, the same cubin)" [
        "rcp.approx.ftz.f32 %f1, %f2", "rcp.rz.f32 %f1, %f2", "rcp.rm.f64 %fd1, %fd2",
        "rcp.rn.ftz.f64 %fd1, %fd2"]
    "rcp.approx.ftz.f64" "9.7.3.14" "1.11.20 upper-word form" ["rcp.approx.ftz.f64 %fd1, %fd2"]
    "sqrt" "9.7.3.15" ".approx{.ftz}.f32; .rn .rz .rm .rp{.ftz} f32, f64" [
        "sqrt.approx.f32 %f1, %f2", "sqrt.rp.ftz.f32 %f1, %f2", "sqrt.rz.f64 %fd1, %fd2"]
    "rsqrt" "9.7.3.16" ".approx{.ftz}.f32, .approx.f64" ["rsqrt.approx.f32 %f1, %f2", "rsqrt.approx.f64 %fd1, %fd2"]
    "rsqrt.approx.ftz.f64" "9.7.3.17" "1.11.20 upper-word form" ["rsqrt.approx.ftz.f64 %fd1, %fd2"]
    "sin" "9.7.3.18" ".approx{.ftz}.f32; .approx.ftz.2pi.f32 (input in cycles, PTX ISA 9.5; see isa-notes)" [
        "sin.approx.f32 %f1, %f2", "sin.approx.ftz.f32 %f1, %f2", "sin.approx.ftz.2pi.f32 %f1, %f2"]
    "cos" "9.7.3.19" ".approx{.ftz}.f32; .approx.ftz.2pi.f32 (as sin)" [
        "cos.approx.ftz.f32 %f1, %f2", "cos.approx.ftz.2pi.f32 %f1, %f2"]
    "lg2" "9.7.3.20" ".approx{.ftz}.f32" ["lg2.approx.f32 %f1, %f2"]
    "ex2" "9.7.3.21" ".approx{.ftz}.f32" ["ex2.approx.ftz.f32 %f1, %f2"]
    "tanh" "9.7.3.22" ".approx.f32" ["tanh.approx.f32 %f1, %f2"]
    "add (half)" "9.7.4.1" "{.rn}{.ftz}{.sat} f16, f16x2; {.rn} bf16, bf16x2" [
        "add.f16 %h1, %h2, %h3", "add.rn.ftz.sat.f16x2 %r1, %r2, %r3", "add.rn.bf16 %h1, %h2, %h3",
        "add.bf16x2 %r1, %r2, %r3"]
    "sub (half)" "9.7.4.2" "as add" ["sub.f16 %h1, %h2, %h3", "sub.bf16x2 %r1, %r2, %r3"]
    "mul (half)" "9.7.4.3" "as add" ["mul.ftz.f16 %h1, %h2, %h3", "mul.rn.bf16x2 %r1, %r2, %r3"]
    "fma (half)" "9.7.4.4" ".rn{.ftz}{.sat|.relu} f16, f16x2; .rn .rz .rm .rp{.relu} bf16, bf16x2 (ptxas 13.5 takes all four roundings there); .oob{.relu} on all four (.rn only on f16; +0 when a source is the OOB NaN, ptxjit's canonical NaN: docs/isa-notes.md)" [
        "fma.rn.f16 %h1, %h2, %h3, %h4", "fma.rn.ftz.relu.f16x2 %r1, %r2, %r3, %r4",
        "fma.rn.relu.bf16 %h1, %h2, %h3, %h4", "fma.rn.bf16x2 %r1, %r2, %r3, %r4",
        "fma.rn.oob.f16 %h1, %h2, %h3, %h4", "fma.rn.oob.relu.bf16x2 %r1, %r2, %r3, %r4"]
    "neg (half)" "9.7.4.5" "{.ftz} f16, f16x2; bf16, bf16x2" ["neg.ftz.f16 %h1, %h2", "neg.bf16x2 %r1, %r2"]
    "abs (half)" "9.7.4.6" "{.ftz} f16, f16x2; bf16, bf16x2" ["abs.f16x2 %r1, %r2", "abs.bf16 %h1, %h2"]
    "min (half)" "9.7.4.7" "{.ftz}{.NaN}{.xorsign.abs} f16, f16x2; {.NaN}{.xorsign.abs} bf16, bf16x2" [
        "min.NaN.f16 %h1, %h2, %h3", "min.xorsign.abs.bf16x2 %r1, %r2, %r3"]
    "max (half)" "9.7.4.8" "as min" ["max.ftz.f16x2 %r1, %r2, %r3", "max.bf16 %h1, %h2, %h3"]
    "tanh (half)" "9.7.4.9" ".approx f16, f16x2, bf16, bf16x2" ["tanh.approx.f16 %h1, %h2", "tanh.approx.bf16x2 %r1, %r2"]
    "ex2 (half)" "9.7.4.10" ".approx f16, f16x2; .approx.ftz bf16, bf16x2" ["ex2.approx.f16x2 %r1, %r2", "ex2.approx.ftz.bf16 %h1, %h2"]
    "add/sub/fma (mixed precision)" "9.7.5.1" "{.rnd}{.sat}.f32.f16/.bf16" [
        "add.f32.f16 %f1, %h1, %f2", "sub.rz.sat.f32.bf16 %f1, %h1, %f2", "fma.rn.f32.f16 %f1, %h1, %h2, %f2"]
    "set" "9.7.6.1" "every compare, .and/.or/.xor with {!}c, .ftz; u32/s32/f32 destinations from b/u/s16-64, f32, f64" [
        "set.lt.u32.s32 %r1, %r2, %r3", "set.gtu.ftz.f32.f32 %f1, %f2, %f3", "set.eq.and.s32.f64 %r1, %fd1, %fd2, !%p1"]
    "setp" "9.7.6.2" "every compare, p|q, .and/.or/.xor with {!}c, .ftz" [
        "setp.lt.s32 %p1|%p2, %r1, %r2", "setp.num.and.f64 %p1, %fd1, %fd2, !%p2", "setp.hs.u64 %p1, %rd1, %rd2"]
    "selp" "9.7.6.3" "b16-64, u, s, f32, f64" ["selp.f32 %f1, %f2, %f3, %p1", "selp.b64 %rd1, %rd2, %rd3, %p1"]
    "slct" "9.7.6.4" "dtype from b16-64, u, s, f32, f64; .s32 or {.ftz}.f32 selector" [
        "slct.u32.s32 %r1, %r2, %r3, %r4", "slct.ftz.f64.f32 %fd1, %fd2, %fd3, %f1"]
    "set (half)" "9.7.7.1" "f16/bf16/x2 sources; f16, bf16, x2, u32, s32 destinations" [
        "set.lt.f16.f16 %h1, %h2, %h3", "set.ne.u32.f16x2 %r1, %r2, %r3", "set.lt.bf16x2.bf16x2 %r1, %r2, %r3"]
    "setp (half)" "9.7.7.2" "f16, f16x2 (p|q), bf16, bf16x2; .and/.or/.xor; .ftz" [
        "setp.lt.f16 %p1, %h1, %h2", "setp.geu.ftz.f16x2 %p1|%p2, %r1, %r2", "setp.eq.and.bf16 %p1, %h1, %h2, %p3"]
    "and" "9.7.8.1" "pred, b16-64" ["and.pred %p1, %p2, %p3", "and.b32 %r1, %r2, %r3"]
    "or" "9.7.8.2" "pred, b16-64" ["or.b64 %rd1, %rd2, %rd3", "or.pred %p1, !%p2, %p3"]
    "xor" "9.7.8.3" "pred, b16-64" ["xor.b16 %h1, %h2, %h3"]
    "not" "9.7.8.4" "pred, b16-64" ["not.pred %p1, %p2", "not.b32 %r1, %r2"]
    "cnot" "9.7.8.5" "b16-64" ["cnot.b32 %r1, %r2", "cnot.b16 %h1, %h2"]
    "lop3" "9.7.8.6" "b32 (b64 too); .and/.or with the d|p predicate output" [
        "lop3.b32 %r1, %r2, %r3, %r4, 0x96",
        "lop3.or.b32 %r1|%p1, %r2, %r3, %r4, 0x80, %p2"]
    "shf" "9.7.8.7" ".l/.r .clamp/.wrap .b32" ["shf.l.wrap.b32 %r1, %r2, %r3, %r4", "shf.r.clamp.b32 %r1, %r2, %r3, %r4"]
    "shl" "9.7.8.8" "b16-64 (counts ≥ width give 0)" ["shl.b32 %r1, %r2, %r3", "shl.b64 %rd1, %rd2, %r3"]
    "shr" "9.7.8.9" "b/u/s16-64 (counts ≥ width clamp)" ["shr.s32 %r1, %r2, %r3", "shr.u64 %rd1, %rd2, %r3"]
    "mov" "9.7.9.3" "pred, b16-64, u, s, f32, f64; vector pack/unpack; symbol addresses" [
        "mov.pred %p1, %p2", "mov.f32 %f1, %f2", "mov.b64 %rd1, {%r1, %r2}", "mov.b64 {%r1, %r2}, %rd1",
        "mov.u64 %rd1, sm"]
    "shfl.sync" "9.7.9.6" ".up .down .bfly .idx .b32, with p; waits for its membermask" ["shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1"]
    "prmt" "9.7.9.7" "default (with sign replication) and .f4e .b4e .rc8 .ecl .ecr .rc16" [
        "prmt.b32 %r1, %r2, %r3, %r4", "prmt.b32.f4e %r1, %r2, %r3, %r4", "prmt.b32.rc16 %r1, %r2, %r3, %r4"]
    "ld" "9.7.9.8" "global/shared/local/const/param/generic, every type incl. .b128 (into .b128 registers), v2/v4 (v8 of 32-bit, v4 of 64-bit), cache hints and .L2::cache_hint policies; .proxy::readonly on global and generic addresses (PTX ISA 9.4, sm_90: a plain load, one proxy)" [
        "ld.global.u32 %r1, [%rd1]", "ld.shared.v2.f32 {%f1, %f2}, [sm]", "ld.param.u64 %rd2, [cov_p]",
        "ld.global.proxy::readonly.u32 %r1, [%rd1]", "ld.proxy::readonly.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1]",
        "ld.global.v4.b64 {%rd2, %rd3, %rd4, %rd5}, [%rd1]",
        "ld.global.L2::cache_hint.v2.b32 {%r1, %r2}, [%rd1], %rd2",
        "ld.acquire.cluster.global.u32 %r1, [%rd1]", "ld.relaxed.gpu.shared.u32 %r1, [sm]"]
    "ld.global.nc" "9.7.9.9" "" ["ld.global.nc.f32 %f1, [%rd1]", "ld.global.nc.v2.u32 {%r1, %r2}, [%rd1]"]
    "ldu" "9.7.9.10" "global" ["ldu.global.f32 %f1, [%rd1]"]
    "st" "9.7.9.11" "global/shared/local/generic, every type incl. .b128, v2/v4 (v8 of 32-bit, v4 of 64-bit), .L2::cache_hint" [
        "st.global.u32 [%rd1], %r1", "st.shared.v2.b32 [sm+8], {%r1, %r2}",
        "st.global.L2::cache_hint.u32 [%rd1], %r1, %rd2"]
    "st.async" "9.7.9.12" "{.weak}{.shared::cluster}.mbarrier::complete_tx::bytes{.v2, .v4}, b32/b64/u32/s32/u64/s64/f32/f64: a store to shared memory of a CTA of the cluster, then complete-tx of its bytes; .shared::cta (as ptxas 13.5 takes it, no vectors): with [mbar] the same, without it a plain store (also b16/u16)" [
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r1], %r2, [%r3]",
        "st.async.shared::cta.mbarrier::complete_tx::bytes.b64 [%r1], %rd2, [%r3]",
        "st.async.weak.shared::cta.f32 [%r1], %f1",
        "st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.v2.f64 [%r1], {%fd1, %fd2}, [%r3]",
        "st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%r1], {%r2, %r3, %r4, %r5}, [%r3]"]
    "st.bulk" "9.7.9.13" "{.weak}{.shared::cta} or generic, size u32/u64 (constant: a multiple of 8 up to 16777216), initval 0: 8-byte zero stores; a bad run-time size or a generic address outside shared memory traps" [
        "st.bulk.weak.shared::cta [%r1], %rd1, 0", "st.bulk [%rd1], 4096, 0",
        "st.bulk.shared::cta [%r1], %r2, 0"]
    "multimem.ld_reduce / multimem.st / multimem.red" "9.7.9.14" "one device (isa-notes): ld_reduce = a load of the one copy (any .op; .add with .acc::f32/.acc::f16), st = a store, red = an atomic reduction; .weak or .relaxed/.acquire/.release with a scope; .global or generic (outside global traps); b32/b64/u32/u64/s32/s64 and f16/bf16 (x2), f32, f64, e5m2/e4m3 (x2, x4) with .v2/.v4/.v8 of 32, 64 or 128 bits; the ISA's .op/type table, and .red.min/.max on f16/bf16 (x2) in vector forms, as ptxas 13.5 (tests/ptxas_forms: every combination checked against ptxas); multimem.st.async (.b32/.b64/.u32/.u64/.s32/.s64/.f32/.f64) and multimem.red.async (.add.u32/.s32/.u64), .release.{gpu,sys} (PTX ISA 9.3, sm_100): the store / reduction, complete when it executes" [
        "multimem.ld_reduce.relaxed.gpu.global.add.u32 %r1, [%rd1]",
        "multimem.ld_reduce.weak.min.s64 %rd2, [%rd1]",
        "multimem.ld_reduce.acquire.sys.global.add.acc::f32.v2.f16x2 {%r1, %r2}, [%rd1]",
        "multimem.ld_reduce.add.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1]",
        "multimem.ld_reduce.add.acc::f16.v4.e5m2x2 {%h1, %h2, %h3, %h4}, [%rd1]",
        "multimem.ld_reduce.relaxed.cluster.max.e4m3x4 %r1, [%rd1]",
        "multimem.st.relaxed.gpu.global.f32 [%rd1], %f1", "multimem.st.weak.b64 [%rd1], %rd2",
        "multimem.st.release.cta.v8.bf16 [%rd1], {%h1, %h2, %h3, %h4, %h1, %h2, %h3, %h4}",
        "multimem.red.relaxed.gpu.global.add.u32 [%rd1], %r1",
        "multimem.red.release.sys.global.xor.b64 [%rd1], %rd2",
        "multimem.red.add.f64 [%rd1], %fd1",
        "multimem.red.relaxed.cta.add.v2.bf16x2 [%rd1], {%r1, %r2}",
        "multimem.red.relaxed.gpu.max.v4.f16 [%rd1], {%h1, %h2, %h3, %h4}",
        "multimem.st.async.release.gpu.global.b32 [%rd1], %r1",
        "multimem.st.async.release.sys.f64 [%rd1], %fd1",
        "multimem.red.async.release.gpu.global.add.u64 [%rd1], %rd2"]
    "prefetch" "9.7.9.15" "accepted (no effect)" ["prefetch.global.L1 [%rd1]"]
    "applypriority" "9.7.9.16" "{.global}.L2::evict_normal, size 128: a hint with no effect; an address not 128-byte aligned or (generic) outside global memory traps" [
        "applypriority.global.L2::evict_normal [%rd1], 128", "applypriority.L2::evict_normal [%rd1+128], 128"]
    "discard" "9.7.9.17" "{.global}.L2, size 128: the indeterminate value is the bytes already there (isa-notes); an address not 128-byte aligned or (generic) outside global memory traps" [
        "discard.global.L2 [%rd1], 128", "discard.L2 [%rd1], 128"]
    "mapa" "9.7.9.23" ".shared::cluster and generic, u32/u64: the address in CTA b of the cluster (encoding in runtime::cluster); a bad rank or address faults" [
        "mapa.shared::cluster.u32 %r1, %r2, %r3", "mapa.shared::cluster.u64 %rd1, %rd2, %r3",
        "mapa.u64 %rd2, %rd1, 0", "mapa.shared::cluster.u32 %r1, sm, 1"]
    "getctarank" "9.7.9.24" ".shared::cluster and generic, u32/u64 source" [
        "getctarank.shared::cluster.u32 %r1, %r2", "getctarank.u64 %r1, %rd1",
        "getctarank.shared::cluster.u64 %r1, %rd1"]
    "cp.async" "9.7.9.25" ".ca/.cg .shared{::cta}.global, cp-size 4/8/16, src-size (constant or register) and ignore-src zero fill; the copy is done when the instruction executes" [
        "cp.async.ca.shared.global [sm], [%rd1], 4", "cp.async.cg.shared.global [sm], [%rd1], 16, %r1",
        "cp.async.ca.shared.global [sm], [%rd1], 8, %p1"]
    "cp.async.commit_group" "9.7.9.25" "no effect (copies are complete)" ["cp.async.commit_group"]
    "cp.async.wait_group" "9.7.9.25" "no effect (copies are complete)" ["cp.async.wait_group 1"]
    "cp.async.wait_all" "9.7.9.25" "no effect (copies are complete)" ["cp.async.wait_all"]
    "cp.async.bulk" "9.7.9.25.4.1" ".shared::{cta,cluster}.global and .shared::cluster.shared::cta with .mbarrier::complete_tx::bytes (.multicast::cluster: every CTA of the cluster named in ctaMask), .global.shared::cta with .bulk_group (.cp_mask: byte i of each 16-byte chunk copied when bit i of byteMask is set, the rest of the destination untouched); the copy is done when the instruction executes, then complete-tx of its bytes; misaligned addresses or sizes trap; .b128 and (PTX ISA 9.3) .relaxed.{cta,cluster,gpu,sys}.b128: each 16-byte element one relaxed single-copy-atomic load and store" [
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 64, [%r2]",
        "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.relaxed.gpu.b128 [sm], [%rd1], 64, [%r2]",
        "cp.async.bulk.global.shared::cta.bulk_group.b128 [%rd1], [%r1], 32",
        "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [sm], [%rd1], %r1, [%r2]",
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r1], [%rd1], 32, [%r2], %h1",
        "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r1], [sm], 16, [%r2]",
        "cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%rd1], [%r1], %r2, %rd2",
        "cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.cp_mask [%rd1], [%r1], 32, %rd2, %h1"]
    "cp.reduce.async.bulk" "9.7.9.25.4.2" "into .global (.bulk_group): .add u32/s32/u64/f32/f64 and .noftz f16/bf16, .min/.max u32/s32/u64/s64/f16/bf16, .inc/.dec u32, .and/.or/.xor b32/b64; into .shared::cluster (.mbarrier::complete_tx::bytes): .add u32/s32/u64, .min/.max u32/s32, .inc/.dec u32, .and/.or/.xor b32 (element-wise atomics); PTX 9.3 .relaxed with .cta/.cluster/.gpu/.sys (.global) or .cta/.cluster (.shared::cluster)" [
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%r1], 64",
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.relaxed.gpu.add.u32 [%rd1], [%r1], 64",
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.bf16 [%rd1], [%r1], %r2",
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.max.s64 [%rd1], [%r1], 32",
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.min.bf16 [%rd1], [%r1], 32",
        "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.xor.b32 [%r1], [sm], 16, [%r2]"]
    "cp.async.bulk.prefetch" "9.7.9.25.4.3" "accepted (no effect)" ["cp.async.bulk.prefetch.L2.global [%rd1], 64"]
    "multimem.cp.async.bulk" "9.7.9.25.4.4" "one device (isa-notes): .global.shared::cta.bulk_group {.cp_mask} as cp.async.bulk into the one copy (PTX ISA 9.1; .cp_mask sm_100)" [
        "multimem.cp.async.bulk.global.shared::cta.bulk_group [%rd1], [sm], 64",
        "multimem.cp.async.bulk.global.shared::cta.bulk_group.cp_mask [%rd1], [sm], 32, %h1"]
    "multimem.cp.reduce.async.bulk" "9.7.9.25.4.5" "one device (isa-notes): .global.shared::cta.bulk_group with the .redOp/.type pairs of cp.reduce.async.bulk into .global, on the one copy (PTX ISA 9.1)" [
        "multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [sm], 64",
        "multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.bf16 [%rd1], [sm], 32",
        "multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.xor.b64 [%rd1], [sm], 16"]
    "cp.async.bulk.tensor" "9.7.9.25.5.1" ".1d-.5d .tile: .shared::{cluster,cta}.global with .mbarrier::complete_tx::bytes, .global.shared::cta with .bulk_group; .3d-.5d .im2col loads with their im2col offsets (maps as cuTensorMapEncodeIm2col makes them: pixel-box corners, channels per pixel, pixels per column, traversal strides; docs/tensor-maps.md); .3d-.5d .im2col::w and .im2col::w::128 loads with {wHalo, wOffset} (maps as cuTensorMapEncodeIm2colWide makes them, W or W128 mode: pixels along W only, halo pixels after the column or each 32; ptxjit's reading of the ISA's figures, docs/isa-notes.md); tensor maps as cuTensorMapEncodeTiled makes them (a param, const or global object), swizzle none/32B/64B/128B (128B with 16B, 32B, 32B + 8B-flip or 64B atomicity, §5.5.7: the driver's 128B_ATOM_* modes or tensormap.replace.swizzle_atomicity), element strides, OOB fill zero/NaN; interleaved maps (16B, 32B: NC/8HWC8, NC/16HWC16) in tile mode with a box row of one interleave group, moved densely as without interleaving (a narrower row, or im2col and four-row modes, fault: their shared-memory layout is not documented); .2d .tile::gather4 loads and .tile::scatter4 stores (a column and four row indices; maps with a box one row high); the copy is done when the instruction executes ; .3d-.5d .im2col_no_offs stores with an im2col map: the elements an .im2col load with zero offsets reads, in-bound ones written (ptxjit's reading, docs/tensor-maps.md); .cta_group::1 loads (sm_100 family: the copy without it); .cta_group::2 loads: the mbarrier may be in the destination's peer CTA, and with .multicast::cluster each destination's signal goes to the mbarrier at mbar's offset in the CTA of its pair with the parity of mbar's CTA; .multicast::cluster loads: the same copy into each CTA of the cluster named in ctaMask, complete-tx on the mbarrier at the same offset in each; the packed sub-byte types (maps from cuTensorMapEncodeTiled/Im2col with CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B, 16U4_ALIGN16B, 16U6_ALIGN16B and the driver's checks on them, or tensormap.replace.elemtype 13-15) in tile, four-row and im2col modes (.b4x16 loads and stores, .b4x16_p64 and .b6x16_p32 loads, .b6p2x16 stores: §5.5.1.1.1's packing and padding, a four-row or im2col copy's rows laid out as tile-mode rows, §9.7.9.25.5.1's restrictions checked) and the 96B swizzle (§5.5.7's table; docs/tensor-maps.md; from tensormap.replace only: CUtensorMapSwizzle has no 96B value, so the driver's encoders cannot make it)" [
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4]",
        "cp.async.bulk.tensor.1d.shared::cta.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2}], [%r4]",
        "cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group [%rd1, {%r1, %r2, %r3, %r4, %r5}], [sm]",
        "cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group [%rd1, {%r1, %r2, %r3}], [sm]",
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint [%r1], [%rd1, {%r2, %r3, %r4}], [%r5], %rd2",
        "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3, %r4, %r5}], [%r4], {%h1, %h2}",
        "cp.async.bulk.tensor.3d.shared::cta.global.im2col.mbarrier::complete_tx::bytes.L2::cache_hint [%r1], [%rd1, {%r2, %r3, %r4}], [%r5], {%h1}, %rd2",
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%r1], [%rd1, {%r2, %r3}], [%r4], %h1",
        "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [%r1], [%rd1, {%r2}], [%r4]",
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster.cta_group::2 [%r1], [%rd1, {%r2, %r3}], [%r4], %h1",
        "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster [%r1], [%rd1, {%r2, %r3, %r4, %r5}], [%r4], {%h1, %h2}, %h3",
        "cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3, %r4, %r5, %r1}], [%r4]",
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes.multicast::cluster [%r1], [%rd1, {%r2, %r3, %r4, %r5, %r1}], [%r4], %h1",
        "cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [%rd1, {%r2, %r3, %r4, %r5, %r1}], [sm]",
        "cp.async.bulk.tensor.4d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3, %r4, %r5}], [%r4], {%h1, %h2}",
        "cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w::128.mbarrier::complete_tx::bytes.multicast::cluster [%r1], [%rd1, {%r2, %r3, %r4}], [%r4], {%h1, %h2}, %h3"]
    "cp.reduce.async.bulk.tensor" "9.7.9.25.5.2" ".1d-.5d .tile, .2d .tile::scatter4 and .3d-.5d .im2col_no_offs (as the store's) .global.shared::cta .bulk_group: .add u32/s32/u64/f32/f16/bf16, .min/.max u32/s32/u64/s64/f16/bf16, .inc/.dec u32, .and/.or/.xor 32/64-bit integers (the type is the tensor map's, checked when it runs); element-wise atomics" [
        "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd1, {%r2, %r3}], [%r1]",
        "cp.reduce.async.bulk.tensor.1d.global.shared::cta.max.tile.bulk_group [%rd1, {%r2}], [sm]",
        "cp.reduce.async.bulk.tensor.4d.global.shared::cta.add.im2col_no_offs.bulk_group [%rd1, {%r2, %r3, %r4, %r5}], [sm]",
        "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile::scatter4.bulk_group [%rd1, {%r2, %r3, %r4, %r5, %r1}], [%r1]"]
    "cp.async.bulk.prefetch.tensor" "9.7.9.25.5.3" ".1d-.5d .L2.global .tile, .2d .tile::gather4, .3d-.5d .im2col with its offsets, .im2col::w and .im2col::w::128 with {wHalo, wOffset}: checks the tensor map and the im2col info (no other effect)" [
        "cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd1, {%r2, %r3}]",
        "cp.async.bulk.prefetch.tensor.5d.L2.global.im2col [%rd1, {%r1, %r2, %r3, %r4, %r5}], {%h1, %h2, %h3}",
        "cp.async.bulk.prefetch.tensor.2d.L2.global.tile::gather4 [%rd1, {%r1, %r2, %r3, %r4, %r5}]",
        "cp.async.bulk.prefetch.tensor.5d.L2.global.im2col::w::128 [%rd1, {%r1, %r2, %r3, %r4, %r5}], {%h1, %h2}"]
    "cp.async.bulk.commit_group" "9.7.9.25.6.1" "no effect (copies are complete)" ["cp.async.bulk.commit_group"]
    "cp.async.bulk.wait_group" "9.7.9.25.6.2" "{.read}, .sync_restrict::proxy::async (PTX ISA 9.5): no effect (copies are complete)" [
        "cp.async.bulk.wait_group 0", "cp.async.bulk.wait_group.read 1",
        "cp.async.bulk.wait_group.sync_restrict::proxy::async 0"]
    "tensormap.replace" "9.7.9.26" ".tile, every field (global_address, rank, box_dim, global_dim, global_stride, element_stride, elemtype, interleave_layout, swizzle_mode, swizzle_atomicity, fill_mode) in .global, .shared::cta or generic memory, in ptxjit's tensor-map layout (docs/tensor-maps.md); the enumerated fields as Table 33 numbers them (immediates); .swizzle_atomicity 32B, 32B + 8B flip or 64B changes how copies swizzle with the 128B mode (§5.5.7); the packed element types (13-15: PTX ISA 8.7, sm_100a/sm_101a/sm_120a and the family targets) and the 96B swizzle (4: PTX ISA 8.8, sm_103a) are refused at load below those, are written, and copies through the map use them (cp.async.bulk.tensor's row); PTX ISA 9.5 allocation classes: .global_address with .alloc_small/.alloc_large/.alloc_same and the field-less .alloc_small/.alloc_large (the class kept in the map, read by tensormap.query.alloc_class_large)" [
        "tensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2",
        "tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r1], 1, %r2",
        "tensormap.replace.tile.swizzle_mode.b1024.b32 [%rd1], 3",
        "tensormap.replace.tile.swizzle_atomicity.shared::cta.b1024.b32 [%r1], 2",
        "tensormap.replace.tile.global_address.alloc_large.global.b1024.b64 [%rd1], %rd2",
        "tensormap.replace.tile.global_address.alloc_same.shared::cta.b1024.b64 [%r1], %rd2",
        "tensormap.replace.tile.alloc_small.b1024 [%rd1]"]
    "tensormap.query.alloc_class_large" "9.7.9.26" "{.global, .shared::cta, .param, .const}.b1024 p, [map] (PTX ISA 9.5; the targets of tensormap.replace): whether the map's allocation class is large, as .alloc_large/.alloc_small last wrote it (encoded maps are small; docs/tensor-maps.md)" [
        "tensormap.query.alloc_class_large.b1024 %p1, [%rd1]",
        "tensormap.query.alloc_class_large.shared::cta.b1024 %p1, [sm]",
        "tensormap.query.alloc_class_large.param.b1024 %p1, [cov_p]"]
    "createpolicy" "9.7.9.18" "range{.global}, fractional (a primary and at most one secondary .L2 eviction priority), cvt.L2: an opaque policy (0; a hint only)" [
        "createpolicy.fractional.L2::evict_last.b64 %rd2, 1.0",
        "createpolicy.range.global.L2::evict_last.L2::evict_unchanged.b64 %rd2, [%rd1], 1024, 4096",
        "createpolicy.cvt.L2.b64 %rd2, %rd1"]
    "isspacep" "9.7.9.19" "global/shared/local; const: inside one of the module's .const variables; param/param::entry: the kernel-parameter window (cvta.param)" ["isspacep.global %p1, %rd1", "isspacep.const %p1, %rd1", "isspacep.param::entry %p1, %rd1"]
    "cvta" "9.7.9.20" "to and from generic, u64 (.u32 is a 32-bit address: a load error, as in ptxas)" ["cvta.shared.u64 %rd1, %rd2", "cvta.to.global.u64 %rd1, %rd2"]
    "cvt" "9.7.9.21" "every pair of u8-64, s8-64, f16, bf16, f32, f64; .rn .rz .rm .rp, .rni .rzi .rmi .rpi, .sat, .ftz, .relu (f16 <-> bf16 without a rounding: .rn); .f16x2/.bf16x2 from two f32; .satfinite on f16/bf16; .e4m3x2/.e5m2x2/.e2m3x2/.e3m2x2/.e2m1x2 (from two f32, f16x2 or bf16x2) and back to f16x2, or to bf16x2 with .satfinite and .scaled::n2::ue8m0 scale factors; .s2f6x2 (from two f32 or bf16x2 and back to bf16x2, .scaled::n2::ue8m0); .ue8m0x2 (.rz/.rp from two f32 or bf16x2, back to bf16x2); .tf32 (.rna/.rn/.rz, .satfinite, .relu); stochastic rounding .rs to .f16x2/.bf16x2 (with rbits) and the x4 forms .e4m3x4/.e5m2x4/.e2m3x4/.e3m2x4/.e2m1x4" [
        "cvt.rzi.s32.f32 %r1, %f1", "cvt.rp.f32.f64 %f1, %fd1", "cvt.rn.f16.f32 %h1, %f1",
        "cvt.bf16.f16 %h1, %h2", "cvt.rz.f16.bf16 %h1, %h2",
        "cvt.f32.bf16 %f1, %h1", "cvt.rz.bf16.u64 %h1, %rd1", "cvt.rni.f16.f16 %h1, %h2",
        "cvt.sat.u8.s32 %h1, %r1", "cvt.rn.relu.f16x2.f32 %r1, %f1, %f2",
        "cvt.rn.satfinite.bf16x2.f32 %r1, %f1, %f2", "cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2",
        "cvt.rn.satfinite.relu.e5m2x2.f16x2 %h1, %r1", "cvt.rn.f16x2.e4m3x2 %r1, %h1",
        "cvt.rna.satfinite.tf32.f32 %r1, %f1", "cvt.rn.satfinite.e3m2x2.f32 %h1, %f1, %f2",
        "cvt.rp.satfinite.ue8m0x2.bf16x2 %h1, %r1", "cvt.rn.bf16x2.ue8m0x2 %r1, %h1",
        "cvt.rs.relu.satfinite.f16x2.f32 %r1, %f1, %f2, %r2",
        "cvt.rs.satfinite.e4m3x4.f32 %r1, {%f1, %f2, %f1, %f2}, %r2",
        "cvt.rn.satfinite.e2m3x2.bf16x2 %h1, %r1",
        "cvt.rn.satfinite.relu.scaled::n2::ue8m0.bf16x2.e4m3x2 %r1, %h1, %h2",
        "cvt.rn.satfinite.scaled::n2::ue8m0.s2f6x2.f32 %h1, %f1, %f2, %h2",
        "cvt.rn.bf16x2.s2f6x2 %r1, %h1"]
    "cvt.pack" "9.7.9.22" ".sat u16, s16 from s32; u8, s8, u4, s4, u2, s2 with .b32 c" [
        "cvt.pack.sat.s16.s32 %r1, %r2, %r3", "cvt.pack.sat.u8.s32.b32 %r1, %r2, %r3, %r4",
        "cvt.pack.sat.s4.s32.b32 %r1, %r2, %r3, %r4"]
    "tex" "9.7.10.3" "1d/2d/3d/a1d/a2d/cube/acube/2dms/a2dms, .level, .grad, f32/s32 coordinates, f32/s32/u32, .v4.f16 and .v2.f16x2 results, texel offsets, depth compare, the residency predicate, texture objects and .texref" [
        "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}]",
        "tex.level.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}], %f3",
        "tex.grad.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}], {%f1, %f2}, {%f3, %f4}",
        "tex.a2d.v4.u32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%r5, %f1, %f2, %f3}]",
        "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [%rd1, {%f1, %f2}], {%r1, -2}, %f3",
        "tex.2d.v2.f16x2.f32 {%r1, %r2}, [%rd1, {%f1, %f2}]",
        "tex.cube.v4.f16.f32 {%h1, %h2, %h3, %h4}, [%rd1, {%f1, %f2, %f3, %f4}]",
        "tex.a2dms.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2, %r3, %r4}]"]
    "tld4" "9.7.10.4" "r/g/b/a, 2d, a2d, cube and acube, texel offsets (not on cube maps), depth compare, the residency predicate" [
        "tld4.g.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}]",
        "tld4.r.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [%rd1, {%f1, %f2}], {%r1, %r2}, %f3",
        "tld4.b.cube.v4.u32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f1, %f2, %f3, %f4}]",
        "tld4.a.acube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %f1, %f2, %f3}], %f4"]
    "txq" "9.7.10.5" "every attribute, .level" ["txq.width.b32 %r1, [%rd1]", "txq.level.height.b32 %r1, [%rd1], %r2"]
    "istypep" "9.7.10.6" ".texref, .samplerref, .surfref" ["istypep.texref %p1, %rd1"]
    "suld" "9.7.11.1" ".b and .p, 1d/2d/3d/a1d/a2d, .trap/.clamp/.zero" [
        "suld.b.1d.b32.trap {%r1}, [%rd1, {%r2}]", "suld.b.2d.v4.b8.zero {%h1, %h2, %h3, %h4}, [%rd1, {%r1, %r2}]"]
    "sust" "9.7.11.2" ".b and .p, 1d/2d/3d/a1d/a2d, .trap/.clamp/.zero" ["sust.b.3d.v2.b32.clamp [%rd1, {%r1, %r2, %r3, %r4}], {%r5, %r1}"]
    "sured" "9.7.11.3" ".b: .add/.min/.max/.and/.or on 32- and 64-bit integers; .p: .b32 (signedness by the surface format; on 8- and 16-bit channels the R channel alone, at its width), .b64 .min/.max" [
        "sured.b.add.2d.u32.trap [%rd1, {%r1, %r2}], %r3", "sured.p.min.1d.b32.zero [%rd1, {%r1}], %r3"]
    "suq" "9.7.11.4" "every attribute" ["suq.width.b32 %r1, [%rd1]"]
    "bra" "9.7.12.3" "uniform and divergent" ["bra $L", "@%p1 bra $L"]
    "brx.idx" "9.7.12.4" "with a .branchtargets list" ["brx.idx %r1, $T"]
    "call" "9.7.12.5" "direct (inlined), recursive and through a register (.calltargets, .callprototype)" [
        "call.uni cov_f, (%r1)", "call cov_f, (%r2)"]
    "ret" "9.7.12.6" "" ["ret"]
    "exit" "9.7.12.7" "" ["exit"]
    "bar / barrier" "9.7.13.1" "bar.sync 0 / barrier.sync" ["bar.sync 0", "barrier.sync 0"]
    "barrier.cluster" "9.7.13.3" "arrive{.release, .relaxed}{.aligned}, wait{.acquire}{.aligned}: all non-exited threads of the cluster's CTAs (co-resident); guarded forms; a deadlock is reported" [
        "barrier.cluster.arrive", "barrier.cluster.wait", "barrier.cluster.arrive.relaxed.aligned", "@%p1 barrier.cluster.arrive",
        "barrier.cluster.arrive.release", "barrier.cluster.wait.acquire.aligned"]
    "fabric.submit" "cccl:fabric_submit" "{.op_restrict::fetching} (PTX ISA 9.3), .commit_group (9.5); sm_100 or higher: no effect (ptxjit issues no fabric operation and completes every memory operation when it executes; docs/isa-notes.md)" [
        "fabric.submit", "fabric.submit.op_restrict::fetching", "fabric.submit.commit_group", "@%p1 fabric.submit"]
    "fabric.wait" "cccl:fabric_submit" ".sync_restrict::reads {N} (PTX ISA 9.3, deprecated in 9.5), .sync_restrict::read N (9.5); sm_100 or higher: no effect, as fabric.submit" [
        "fabric.wait.sync_restrict::reads", "fabric.wait.sync_restrict::read 0", "fabric.wait.sync_restrict::read 2"]
    "bar.warp.sync" "9.7.13.2" "waits for its membermask (lanes may arrive from different instructions)" ["bar.warp.sync -1"]
    "membar / fence" "9.7.13.4" "membar, fence; .acquire/.release .sync_restrict; .proxy.alias, .proxy.async{.global, .shared::cta, .shared::cluster} and .mbarrier_init.release.cluster, .proxy.tensormap::generic.{release,acquire}, .proxy.async::generic.{acquire,release}.sync_restrict (one proxy: plain fences); fence.alias.sync_restrict::read.release.sys (PTX ISA 9.5: a release fence, see isa-notes)" [
        "membar.gl", "fence.acq_rel.gpu", "fence.proxy.async", "fence.proxy.async.shared::cta",
        "fence.alias.sync_restrict::read.release.sys",
        "membar.proxy.alias", "fence.mbarrier_init.release.cluster",
        "fence.acquire.sync_restrict::shared::cluster.cluster",
        "fence.release.sync_restrict::shared::cta.cluster",
        "fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster",
        "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster",
        "fence.proxy.async::generic.release.sync_restrict::shared::cluster::read.cluster",
        "fence.proxy.tensormap::generic.release.gpu",
        "fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128"]
    "atom" "9.7.13.5" "add/and/or/xor/exch/min/max/inc/dec/cas on b32/b64, cas.b16, add.f32/f64, add.noftz on f16/bf16/f16x2/bf16x2, vector add (.v2/.v4 f32) and add/min/max (.v2-.v8 f16/bf16, .v2/.v4 f16x2/bf16x2), .L2::cache_hint; cas.b128 and exch.b128 on .b128 registers (the host's 16-byte compare-and-swap; PTX ISA 8.3, .sys from 8.4)" [
        "atom.global.add.u32 %r1, [%rd1], %r2", "atom.shared.cas.b32 %r1, [sm], %r2, %r3",
        ".reg .b128 %q<4>;\natom.global.cas.b128 %q1, [%rd1], %q2, %q3",
        ".reg .b128 %q<4>;\natom.acq_rel.sys.shared.exch.b128 %q1, [sm], %q2",
        ".reg .b128 %q<4>;\natom.cas.b128 %q1, [%rd1], %q2, %q3",
        "atom.global.cas.b16 %h1, [%rd1], %h2, %h3", "atom.add.noftz.f16 %h1, [%rd1], %h2",
        "atom.global.add.noftz.bf16x2 %r1, [%rd1], %r2",
        "atom.global.v2.f32.add {%f1, %f2}, [%rd1], {%f3, %f4}",
        "atom.global.v2.f16x2.min.noftz {%r1, %r2}, [%rd1], {%r3, %r4}",
        "atom.global.L2::cache_hint.add.u32 %r1, [%rd1], %r2, %rd2"]
    "red" "9.7.13.6" "as atom" ["red.global.add.u32 [%rd1], %r2", "red.shared.add.noftz.f16x2 [sm], %r1"]
    "red.async" "9.7.13.7" ".relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes: .add u32/s32/u64, .min/.max u32/s32, .inc/.dec u32, .and/.or/.xor b32 (an atomic on shared memory of a CTA of the cluster, then complete-tx of its bytes)" [
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r1], %r2, [%r3]"]
    "vote" "9.7.13.9" "" ["vote.sync.ballot.b32 %r1, %p1, -1"]
    "match.sync" "9.7.13.10" "" ["match.any.sync.b32 %r1, %r2, -1"]
    "activemask" "9.7.13.11" "" ["activemask.b32 %r1"]
    "redux.sync" "9.7.13.12" "add/min/max .u32/.s32, and/or/xor .b32, min/max{.abs}{.NaN}.f32" [
        "redux.sync.add.s32 %r1, %r2, -1", "redux.sync.max.abs.NaN.f32 %f1, %f2, -1"]
    "griddepcontrol" "9.7.13.13" "no effect (launches run one after another)" ["griddepcontrol.launch_dependents", "griddepcontrol.wait"]
    "elect.sync" "9.7.13.14" "" ["elect.sync %r1|%p1, -1"]
    "mbarrier" "9.7.13.15" "init, inval, arrive (count, .expect_tx, .noComplete, sink), arrive_drop, expect_tx, complete_tx, test_wait/try_wait (token or .parity, suspend-time hint), pending_count; .release/.acquire/.relaxed, .cta/.cluster; .shared{::cta}, .shared::cluster (any CTA of the cluster) or generic addresses; layout in runtime::mbarrier" [
        "mbarrier.init.shared.b64 [sm], %r1", "mbarrier.inval.shared::cta.b64 [sm]",
        "mbarrier.arrive.shared.b64 %rd1, [sm]", "mbarrier.arrive.release.cta.b64 %rd1, [%rd2], %r1",
        "mbarrier.arrive.noComplete.shared.b64 %rd1, [sm], 2",
        "mbarrier.arrive.expect_tx.relaxed.cluster.shared::cluster.b64 _, [%r1], 64",
        "mbarrier.arrive_drop.shared.b64 %rd1, [sm]", "mbarrier.arrive_drop.noComplete.b64 %rd1, [%rd2], %r1",
        "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [sm], %r1",
        "mbarrier.complete_tx.shared::cluster.b64 [%r1], 16",
        "mbarrier.test_wait.shared.b64 %p1, [sm], %rd1",
        "mbarrier.test_wait.parity.acquire.cta.shared.b64 %p1, [sm], %r1",
        "mbarrier.try_wait.b64 %p1, [%rd2], %rd1, 1000",
        "mbarrier.try_wait.parity.relaxed.cluster.shared::cta.b64 %p1, [sm], 1",
        "mbarrier.pending_count.b64 %r1, %rd1"]
    "cp.async.mbarrier.arrive" "9.7.13.15.15" ".noinc, .shared{::cta} or generic (the copies are complete: an arrive-on at once, none without .noinc)" [
        "cp.async.mbarrier.arrive.shared.b64 [sm]", "cp.async.mbarrier.arrive.noinc.b64 [%rd1]"]
    "tensormap.cp_fenceproxy" "9.7.13.16" ".global.shared::cta.tensormap::generic.release.{cta,cluster,gpu,sys}.sync.aligned, 128 bytes (a copy; one proxy, so the fence orders nothing more)" [
        "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r1], 128"]
    "clusterlaunchcontrol.try_cancel" "9.7.13.17.1" ".async{.shared::cta}.mbarrier::complete_tx::bytes{.multicast::cluster::all}.b128, shared or generic addresses: cancels a cluster (a CTA without clusters) no worker has taken, answered at once; the 16-byte response then complete-tx of 16 bytes (multicast, on the sm_100/sm_120 family targets as ptxas: in every CTA of the cluster); ptxjit's response encoding in runtime::clc" [
        "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%r1], [%r2]",
        "clusterlaunchcontrol.try_cancel.async.mbarrier::complete_tx::bytes.b128 [%rd1], [%rd2]",
        "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [sm], [%r2]"]
    "clusterlaunchcontrol.query_cancel" "9.7.13.17.2" ".is_canceled.pred, .get_first_ctaid::{x,y,z}.b32, .get_first_ctaid.v4.b32, of a .b128 response" [
        ".reg .b128 %q<2>;\nclusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p1, %q1",
        ".reg .b128 %q<2>;\nclusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %r1, %q1",
        ".reg .b128 %q<2>;\nclusterlaunchcontrol.query_cancel.get_first_ctaid::z.b32.b128 %r1, %q1",
        ".reg .b128 %q<2>;\nclusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%r1, %r2, %r3, _}, %q1"]
    "wmma.load" "9.7.14.4.2" ".a/.b/.c, .row/.col, optional stride, global/shared/generic: .m16n16k16/.m32n8k16/.m8n32k16 .f16/.bf16/.s8/.u8 (C: .f16/.f32/.s32), .m16n16k8 .tf32, .m8n8k4 .f64, .m8n8k32 .s4/.u4 and .m8n8k128 .b1 (A .row, B .col; C .s32); ptxjit's own fragment layout (isa-notes)" [
        "wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r1, %r2, %r3, %r4, %r1, %r2, %r3, %r4}, [%rd1]",
        "wmma.load.b.sync.aligned.col.m8n8k128.global.b1 {%r1}, [%rd1], %r2",
        "wmma.load.b.sync.aligned.col.m16n16k16.global.s8 {%r1, %r2}, [%rd1], %r3",
        "wmma.load.c.sync.aligned.row.m16n16k8.f32 {%f1, %f2, %f3, %f4, %f1, %f2, %f3, %f4}, [%rd1], %r1",
        "wmma.load.a.sync.aligned.row.m8n8k4.f64 {%fd1}, [%rd1], %r1"]
    "wmma.store" "9.7.14.4.3" ".d, .row/.col, optional stride: .f16/.f32/.s32 on the 16-bit and 8-bit shapes, .f32 .m16n16k8, .f64 .m8n8k4, .s32 .m8n8k32/.m8n8k128" [
        "wmma.store.d.sync.aligned.col.m16n16k16.global.s32 [%rd1], {%r1, %r2, %r3, %r4, %r1, %r2, %r3, %r4}, %r5",
        "wmma.store.d.sync.aligned.row.m8n8k4.f64 [%rd1], {%fd1, %fd2}, %r1"]
    "wmma.mma" "9.7.14.4.4" ".f16 (.f16/.f32 accumulators), .bf16, .tf32, .s8/.u8 (.satfinite), .f64 (.rn, .rz, .rm, .rp) on the shapes above; .s4/.u4 .m8n8k32 (.satfinite) and .b1 .m8n8k128 with .xor.popc/.and.popc, .row.col" [
        "wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r1, %r2}, {%r3}, {%r4}, {%r1, %r2}",
        "wmma.mma.sync.aligned.row.col.m8n8k32.satfinite.s32.u4.u4.s32 {%r1, %r2}, {%r3}, {%r4}, {%r1, %r2}",
        "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f1, %f2, %f3, %f4, %f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4, %r1, %r2, %r3, %r4}, {%r1, %r2, %r3, %r4, %r1, %r2, %r3, %r4}, {%f1, %f2, %f3, %f4, %f1, %f2, %f3, %f4}",
        "wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64.rn {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd1, %fd2}",
        "wmma.mma.sync.aligned.row.col.m8n8k4.rm.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd1, %fd2}"]
    "mma" "9.7.14.5.14" ".m8n8k4 .f16 (four quad-pair products, .row/.col A and B), .m16n8k8/.m16n8k16 .f16 (.f16/.f32 accumulators) and .bf16; .m16n8k4/.m16n8k8 .tf32; .m8n8k4/.m16n8k4/.m16n8k8/.m16n8k16 .f64 (.rn, .rz, .rm, .rp); .m8n8k16/.m16n8k16/.m16n8k32 .s8/.u8 and .m8n8k32/.m16n8k32/.m16n8k64 .s4/.u4 {.satfinite}; .m8n8k128/.m16n8k128/.m16n8k256 .b1 .xor/.and.popc; .m16n8k16/.m16n8k32 .e4m3/.e5m2 (.f16/.f32 accumulators); .m16n8k32 .kind::f8f6f4 (A and B each .e4m3/.e5m2/.e3m2/.e2m3/.e2m1 in 8-bit containers: 6-bit at bits 0-5, .e2m1 at bits 2-5, docs/isa-notes.md; .f16/.f32 accumulators); block scaling .block_scale (D = (A·scale_A)·(B·scale_B) + C, f32): .m16n8k32 .kind::mxf8f6f4 (.scale_vec::1X, .ue8m0, .kind::f8f6f4's types and containers), .m16n8k64 .kind::mxf4 (.scale_vec::2X .ue8m0) and .kind::mxf4nvf4 (.scale_vec::2X .ue8m0, .scale_vec::4X .ue4m3 or, from PTX ISA 9.1, .ue8m0) with .e2m1 packed eight to a register; scale-a-data/scale-b-data with {byte-id, thread-id} immediates or .b16 registers: row i of A from byte byte-id + block of lane 4(i%8) + 2·thread-id-a + i/8, column j of B from lane 4j + thread-id-b (⚠ ptxjit's reading of the figures: docs/isa-notes.md); selectors that differ across the warp and .ue4m3 codes with bit 7 set fault" [
        "mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f16 {%f1, %f2, %f3, %f4, %f1, %f2, %f3, %f4}, {%r1, %r2}, {%r3, %r4}, {%r1, %r2, %r3, %r4}",
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r3}, {%f1, %f2, %f3, %f4}",
        "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r1, %r2}, {%r1, %r2, %r3, %r4}, {%r5, %r1}, {%r3, %r4}",
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r1}, {%f1, %f2, %f3, %f4}",
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r1}, {%f1, %f2, %f3, %f4}",
        "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd1, %fd2}",
        "mma.sync.aligned.m8n8k4.row.col.rz.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd1, %fd2}",
        "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32 {%r1, %r2, %r3, %r4}, {%r1, %r2, %r3, %r4}, {%r5, %r1}, {%r1, %r2, %r3, %r4}",
        "mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32 {%r1, %r2}, {%r3}, {%r4}, {%r5, %r1}",
        "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {%r1, %r2}, {%r3}, {%r4}, {%r5, %r1}",
        "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r1}, {%f1, %f2, %f3, %f4}",
        "mma.sync.aligned.m16n8k16.row.col.f16.e5m2.e5m2.f16 {%r1, %r2}, {%r3, %r4}, {%r5}, {%r1, %r2}",
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e3m2.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r1}, {%f1, %f2, %f3, %f4}",
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m1.f32.ue8m0 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r1}, {%f1, %f2, %f3, %f4}, %r2, {3, 1}, %r3, {0, 2}",
        "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r1}, {%f1, %f2, %f3, %f4}, %r2, {2, 0}, %r3, {0, 3}",
        "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r1}, {%f1, %f2, %f3, %f4}, %r2, {0, 1}, %r3, {0, 1}"]
    "mma.sp" "9.7.14.6" ".sp and .sp::ordered_metadata: .m16n8k16/.m16n8k32 .f16 (.f16/.f32 accumulators) and .bf16; .m16n8k8/.m16n8k16 .tf32; .m16n8k32/.m16n8k64 .s8/.u8 and .m16n8k64/.m16n8k128 .s4/.u4 {.satfinite}; .m16n8k64 .e4m3/.e5m2; .sp::ordered_metadata .m16n8k64 .kind::f8f6f4 (A and B .e4m3/.e5m2/.e3m2/.e2m3/.e2m1 in 8-bit containers, 2:4 as the 8-bit forms, .f16/.f32 accumulators, selector 0) and .kind::mxf8f6f4 .block_scale (f32; one factor per row of A and column of B over K = 64, as mma's block scaling), .m16n8k128 .kind::mxf4/::mxf4nvf4 .block_scale (.e2m1 packed eight to a register, 4:8 in pairs and laid out as the .s4/.u4 form, as the ISA's fragment section for both says; f32; .scale_vec::2X/4X factors each over K/2 or K/4 of the dense K = 128; sm_120a/sm_121a); metadata and sparsity selector per the ISA's figures as ptxjit reads them (⚠ four metadata lanes a group, 16 fields a row, from public sm_90/sm_120 code: docs/isa-notes.md); undefined metadata faults" [
        "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r3, %r4}, {%f1, %f2, %f3, %f4}, %r5, 0x0",
        "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r1, %r2, %r3, %r4}, {%f1, %f2, %f3, %f4}, %r5, 1",
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.satfinite.s32.s8.u8.s32 {%r1, %r2, %r3, %r4}, {%r1, %r2, %r3, %r4}, {%r1, %r2, %r3, %r4}, {%r1, %r2, %r3, %r4}, %r5, 0",
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r1, %r2, %r3, %r4}, {%f1, %f2, %f3, %f4}, %r5, 0",
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f16.e2m1.e3m2.f16 {%r1, %r2}, {%r1, %r2, %r3, %r4}, {%r1, %r2, %r3, %r4}, {%r3, %r4}, %r5, 0",
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.f32.e2m3.e4m3.f32.ue8m0 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r1, %r2, %r3, %r4}, {%f1, %f2, %f3, %f4}, %r5, 0, %r2, {1, 0}, %r3, {2, 3}",
        "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r1, %r2, %r3, %r4}, {%f1, %f2, %f3, %f4}, %r5, 0, %r2, {2, 1}, %r3, {0, 3}",
        "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r1, %r2, %r3, %r4}, {%f1, %f2, %f3, %f4}, %r5, 0, %r2, {0, 0}, %r3, {0, 1}"]
    "ldmatrix" "9.7.14.5.15" ".m8n8 .x1/.x2/.x4 {.trans} .b16; .m16n16 .x1/.x2 .trans .b8 (two registers a matrix: register 2i+h, byte v+2u of lane l holds row 4(l%4)+2h+v, column l/4+8u; ⚠ ptxjit's reading: docs/isa-notes.md); .m16n16 .x1/.x2 .trans and .m8n16 .x1/.x2/.x4 .b8x16.b6x16_p32/.b8x16.b4x16_p64 (each row's sixteen packed 6-/4-bit elements unpacked into the low bits of their bytes, then laid out as .b8); .shared{::cta} or generic" [
        "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r1}, [%r2]",
        "ldmatrix.sync.aligned.m8n8.x4.trans.shared::cta.b16 {%r1, %r2, %r3, %r4}, [%r5]",
        "ldmatrix.sync.aligned.m8n8.x2.b16 {%r1, %r2}, [%rd1]",
        "ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8 {%r1, %r2, %r3, %r4}, [%r5]",
        "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8x16.b6x16_p32 {%r1, %r2}, [%r5]",
        "ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64 {%r1, %r2, %r3, %r4}, [%r5]"]
    "stmatrix" "9.7.14.5.16" ".m8n8 .x1/.x2/.x4 {.trans} .b16; .m16n8 .x1/.x2/.x4 .trans .b8 (byte v+2u of lane l's register i to row 2(l%4)+v, column l/4+8u of matrix i: the m16n8 accumulator fragment transposed; ⚠ ptxjit's reading: docs/isa-notes.md); .shared{::cta} or generic" [
        "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r1], {%r2, %r3, %r4, %r5}",
        "stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%r1], {%r2}",
        "stmatrix.sync.aligned.m16n8.x4.trans.shared.b8 [%r1], {%r2, %r3, %r4, %r5}"]
    "movmatrix" "9.7.14.5.17" ".m8n8.trans.b16" ["movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2"]
    "wgmma.mma_async" "9.7.15.5.2" ".m64nNk16 (N = 8..256 by 8) .f16 (.f16/.f32 accumulators) and .bf16, .m64nNk8 .tf32, .m64nNk32 .s8/.u8 {.satfinite} and .e4m3/.e5m2 (.f16/.f32 accumulators); A from a shared-memory descriptor (K- or M-major) or registers, B from a descriptor (K- or N-major); no swizzle, 32/64/128-byte swizzles; imm-scale-a/b ±1, scale-d; .m64nNk256.s32.b1.b1.and.popc (N as for 8-bit integers; bits 8 to a byte, little-endian, in the 8-bit layouts). A nonzero descriptor base offset faults: the ISA says how to compute the field for a pattern-misaligned start address but not how other values change the addressing, and ptxjit swizzles on the whole shared address" [
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, 1, 1, 0, 1",
        "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%r1, %r2}, %rd1, %rd2, %p1, -1, 1, 1, 0",
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, %rd2, %p1, 1, -1, 1",
        "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, 1, 1",
        "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.u8 {%r1, %r2, %r3, %r4}, %rd1, %rd2, %p1",
        "wgmma.mma_async.sync.aligned.m64n8k32.satfinite.s32.u8.u8 {%r1, %r2, %r3, %r4}, %rd1, %rd2, 0",
        "wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e5m2 {%r1, %r2}, %rd1, %rd2, %p1, 1, -1",
        "wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc {%r1, %r2, %r3, %r4}, %rd1, %rd2, %p1"]
    "wgmma.fence" "9.7.15.7.1" ".sync{.aligned} (the multiply runs synchronously: a warp-wide wait)" ["wgmma.fence.sync.aligned", "wgmma.fence.sync"]
    "wgmma.commit_group" "9.7.15.7.2" ".sync{.aligned} (a warp-wide wait)" ["wgmma.commit_group.sync.aligned", "wgmma.commit_group.sync"]
    "wgmma.wait_group" "9.7.15.7.3" ".sync{.aligned} N (nothing is pending: a warp-wide wait)" ["wgmma.wait_group.sync.aligned 0", "wgmma.wait_group.sync 0"]
    "wgmma.mma_async.sp" "9.7.15.6.2" "the dense forms with a 2:4 sparse A (1:2 for .tf32) and K doubled: .m64nNk32 .f16/.bf16, .m64nNk16 .tf32, .m64nNk64 .s8/.u8 {.satfinite} and .e4m3/.e5m2; A's stored half from a descriptor or registers; sp-meta per lane and sp-sel (0-1, 0 for 8-bit inputs) as mma.sp's per warp; undefined metadata faults" [
        "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %r1, 0, %p1, 1, 1, 0, 0",
        "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.bf16.bf16 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, %rd2, %r5, 1, %p1, 1, -1, 1",
        "wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %r1, 1, %p1, 1, 1",
        "wgmma.mma_async.sp.sync.aligned.m64n8k64.satfinite.s32.s8.u8 {%r1, %r2, %r3, %r4}, %rd1, %rd2, %r5, 0, %p1",
        "wgmma.mma_async.sp.sync.aligned.m64n16k64.f16.e4m3.e5m2 {%r1, %r2, %r3, %r4}, %rd1, %rd2, %r5, 0, 1, -1, 1"]
    "tcgen05.alloc / dealloc / relinquish_alloc_permit" "9.7.16.7.1" ".cta_group::1 .sync.aligned, .shared::cta or generic destination; 32..512 columns, powers of two (a full tensor memory faults: no waiting); .cta_group::2 over the CTA pair of a cluster (ranks differing in bit 0): the first warp waits for the peer CTA's, then the same columns are allocated (freed) in both; relinquish_alloc_permit ::2 stops allocations of the pair" [
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32",
        "tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r1], 64",
        "tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r1, 64",
        "tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned",
        "tcgen05.alloc.cta_group::1.sync.aligned.b32 [%rd1], %r2",
        "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 32",
        "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned"]
    "tcgen05.cp" "9.7.16.9.2" ".cta_group::1 .128x256b, .4x256b, .128x128b, .64x128b.warpx2::02_13, .64x128b.warpx2::01_23, .32x128b.warpx4; source in the descriptor's K-major canonical layout, any swizzle; decompression .b8x16.b6x16_p32/.b8x16.b4x16_p64 (§9.7.16.9.1: each 16-byte group's sixteen 6- or 4-bit elements into 8-bit containers, a 6-bit one at bits 0-5, a 4-bit one at bits 2-5, as CUTLASS and public hardware probes place them: docs/isa-notes.md); .cta_group::2 (issued by one thread of the pair): each CTA of the pair copies from its own shared memory at s-desc's offsets into its own tensor memory at taddr (⚠ ptxjit's reading, as the pair's tcgen05.mma reads its halves: docs/isa-notes.md) (done when it executes)" [
        "tcgen05.cp.cta_group::1.128x256b [%r1], %rd1",
        "tcgen05.cp.cta_group::2.128x128b [%r1], %rd1",
        "tcgen05.cp.cta_group::2.32x128b.warpx4.b8x16.b4x16_p64 [%r1], %rd1",
        "tcgen05.cp.cta_group::1.4x256b [%r1+8], %rd1",
        "tcgen05.cp.cta_group::1.128x128b [%r1], %rd2",
        "tcgen05.cp.cta_group::1.64x128b.warpx2::02_13 [%r1], %rd1",
        "tcgen05.cp.cta_group::1.64x128b.warpx2::01_23 [%r1], %rd1",
        "tcgen05.cp.cta_group::1.32x128b.warpx4 [%r1], %rd1",
        "tcgen05.cp.cta_group::1.128x256b.b8x16.b6x16_p32 [%r1], %rd1",
        "tcgen05.cp.cta_group::1.64x128b.warpx2::02_13.b8x16.b4x16_p64 [%r1], %rd1"]
    "tcgen05.shift" "9.7.16.9.3" ".cta_group::1 .down (either order): 32 lanes from a multiple of 32, 8 columns; .cta_group::2: the same shift in the tensor memory of both CTAs of the pair" [
        "tcgen05.shift.cta_group::1.down [%r1]", "tcgen05.shift.down.cta_group::1 [%r1+16]",
        "tcgen05.shift.cta_group::2.down [%r1]"]
    "tcgen05.ld" "9.7.16.8.3" ".32x32b, .16x64b, .16x128b, .16x256b and .16x32bx2 (immHalfSplitoff) with their .num (at most 128 registers) {.pack::16b} .b32, thread/register layouts per the ISA's figures; .red .32x32b/.16x32bx2 .x2 and up, .min/.max .f32 {.abs} {.NaN}, .u32, .s32 with its redval (a 16-lane access must fit the warp's 32 lanes)" [
        "tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r1}, [%r2]",
        "tcgen05.ld.sync.aligned.32x32b.x2.pack::16b.b32 {%r1, %r3}, [%r2+8]",
        "tcgen05.ld.sync.aligned.16x64b.x2.b32 {%r1, %r3}, [%r2]",
        "tcgen05.ld.sync.aligned.16x128b.x1.pack::16b.b32 {%r1, %r3}, [%r2]",
        "tcgen05.ld.sync.aligned.16x256b.x1.b32 {%r1, %r3, %r4, %r5}, [%r2]",
        "tcgen05.ld.sync.aligned.16x32bx2.x1.b32 {%r1}, [%r2], 16",
        "tcgen05.ld.red.sync.aligned.32x32b.x2.min.abs.NaN.f32 {%r1, %r3}, %r4, [%r2]",
        "tcgen05.ld.red.sync.aligned.16x32bx2.x2.u32.max {%r1, %r3}, %r4, [%r2], 8"]
    "tcgen05.st" "9.7.16.8.4" ".32x32b, .16x64b, .16x128b, .16x256b and .16x32bx2 (immHalfSplitoff) with their .num (at most 128 registers) {.unpack::16b} .b32, layouts as tcgen05.ld" [
        "tcgen05.st.sync.aligned.32x32b.x1.b32 [%r2], {%r1}",
        "tcgen05.st.sync.aligned.32x32b.x2.unpack::16b.b32 [%r2], {%r1, %r3}",
        "tcgen05.st.sync.aligned.16x64b.x1.b32 [%r2], {%r1}",
        "tcgen05.st.sync.aligned.16x128b.x1.unpack::16b.b32 [%r2], {%r1, %r3}",
        "tcgen05.st.sync.aligned.16x256b.x1.b32 [%r2], {%r1, %r3, %r4, %r5}",
        "tcgen05.st.sync.aligned.16x32bx2.x2.b32 [%r2], 16, {%r1, %r3}"]
    "tcgen05.wait" "9.7.16.8.5" "::ld, ::st .sync.aligned (ld/st complete when they execute: a warp-wide wait)" ["tcgen05.wait::ld.sync.aligned", "tcgen05.wait::st.sync.aligned"]
    "tcgen05.mma" "9.7.16.10.9.1" ".cta_group::1 .kind::f16 (f16/bf16 with an f32 accumulator, f16 with an f16 one), .kind::tf32, .kind::f8f6f4 (A and B each e4m3, e5m2, e2m3, e3m2 or e2m1 as the instruction descriptor says, f32 or f16 accumulator; 4- and 6-bit elements packed 16 to a 16-byte group in shared memory, K-major), .kind::i8 (s32, saturate); M = 128 (tensor-memory layout D: row i in lane i) or M = 64 (layout F: 16 rows per 32-lane partition from lane 0 or 16 of each; block-scaled kinds M = 128 only), N = 8..256 by 8 (.kind::i8: 8, 16, 24, 32, then by 16); A from a shared-memory descriptor (K- or M-major) or tensor memory (with M = 64 at D's lane alignment), B from a descriptor (K- or N-major); no swizzle, 32/64/128-byte swizzles; negate A/B; enable-input-d; disable-output-lane (4 words: set bits keep their lanes of D); scale-input-d 0..15 for .kind::f16/.kind::tf32 (D = A·B + D·2^-s); block scaling .block_scale: .kind::mxf8f6f4 (.scale_vec::1X/.block32, ue8m0, K = 32), .kind::mxf4 (.scale_vec::2X/.block32, the default; e2m1 two to a byte, K = 64), .kind::mxf4nvf4 (.scale_vec::2X ue8m0, .scale_vec::4X/.block16 ue8m0 or ue4m3), scale_A/scale_B in tensor memory (row i at lane i % 32, column + i / 32, bytes from the descriptor's scale factor ID; scale factors not duplicated to all four 32-lane partitions fault); .collector::a::fill/use/lastuse/discard on every kind (one buffer per CTA keeping A as read; ::use/::lastuse multiply by the kept A, not the operand's; an empty buffer or a kept A of another type or shape faults) and .ashift (A in tensor memory, M = 128 or 256, not with block scaling, ::fill or ::use: A's rows in tensor memory move one row down once read) (a 4- or 6-bit A of .kind::f8f6f4/::mxf8f6f4 in tensor memory, one element per 8-bit container as tcgen05.cp's decompression writes it (bits 2-5 or 0-5; docs/isa-notes.md); a 4-bit A of .kind::mxf4/::mxf4nvf4 in tensor memory packed eight e2m1 to a column as in shared memory (⚠ isa-notes) (not yet, each for a layout or field the text does not give: K = 96 (the block-scaled instruction descriptor's bit 31), whose 48-byte K-major rows in shared memory and scale-factor columns in tensor memory no text places (§9.7.16.10.7.2-3 show K = 32/64 and 64/128 only; a fault when it runs); scale-input-d with .kind::i8, which ptxas 13.5 takes but the ISA defines for .kind::f16/.kind::tf32 only (a load error))); disable-output-lane takes registers only (ptxas refuses immediates); .cta_group::2 (.kind::f16, ::tf32, ::f8f6f4, ::i8 and the block-scaled kinds) over the CTA pair: M = 256 (layout A) or 128 (layout B: each CTA's 64 rows as layout E), N = 16..256 by 16 (.kind::i8 32..256 by 32), the even rank holding rows 0..M/2 of A and D and columns 0..N/2 of B at the same addresses as the odd one, A from descriptors or tensor memory (M = 128: each CTA's 64 rows duplicated in lanes 0-63 and 64-127, copies that differ fault; ⚠ CUTLASS's reading), block scaling with each CTA's scale_A (its rows) and scale_B (all N; 2x2 — columns 0..N/2 in partitions 0-1, the rest in 2-3 — with M = 128) in its own tensor memory (⚠ public sm_100 code's layout, isa-notes), disable-output-lane 8 words (words 0-3 the even rank's lanes, 4-7 the odd rank's; ⚠ isa-notes)" [
        "tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1",
        "tcgen05.mma.cta_group::2.kind::f16 [%r1], %rd1, %rd2, %r2, %p1",
        "tcgen05.mma.cta_group::2.kind::i8 [%r1], [%r3], %rd2, %r2, {%r2, %r3, %r4, %r5, %r2, %r3, %r4, %r5}, 1",
        "tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, {%r2, %r3, %r4, %r5}, %p1, 3",
        "tcgen05.mma.cta_group::1.kind::tf32 [%r1], %rd1, %rd2, %r2, %p1, 15",
        "tcgen05.mma.cta_group::1.kind::f8f6f4 [%r1], %rd1, %rd2, %r2, %p1",
        "tcgen05.mma.cta_group::1.kind::tf32 [%r1], [%r3], %rd2, %r2, %p1",
        "tcgen05.mma.cta_group::1.kind::i8 [%r1], %rd1, %rd2, %r2, 1",
        "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1",
        "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32 [%r1], [%r5], %rd2, %r2, [%r3], [%r4], %p1",
        "tcgen05.mma.cta_group::1.kind::mxf4.block_scale [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1",
        "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1",
        "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16 [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1",
        "tcgen05.mma.cta_group::1.kind::f16.collector::a::fill [%r1], %rd1, %rd2, %r2, %p1",
        "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.collector::a::use [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1",
        "tcgen05.mma.cta_group::2.kind::i8.ashift.collector::a::lastuse [%r1], [%r3], %rd2, %r2, 1",
        "tcgen05.mma.cta_group::1.kind::tf32.collector::a::discard.ashift [%r1], [%r3], %rd2, %r2, %p1",
        "tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.scale_vec::1X [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1",
        "tcgen05.mma.cta_group::2.kind::mxf4nvf4.block_scale.block16 [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1",
        "tcgen05.mma.cta_group::2.kind::f16 [%r1], [%r3], %rd2, %r2, %p1",
        "tcgen05.mma.cta_group::1.kind::mxf4.block_scale [%r1], [%r5], %rd2, %r2, [%r3], [%r4], %p1",
        "tcgen05.mma.cta_group::2.kind::f16 [%r1], %rd1, %rd2, %r2, {%r2, %r3, %r4, %r5, %r2, %r3, %r4, %r5}, %p1"]
    "tcgen05.mma.sp" "9.7.16.10.9.2" ".cta_group::1 .kind::f16 (K = 32), .kind::tf32 (1:2, K = 16), .kind::i8 and .kind::f8f6f4 (K = 64), M = 128 and 64 (Layout F), and .cta_group::2 M = 256: the dense forms with a 2:4 sparse A (1:2 for .kind::tf32: one stored element per pair, field 0b0100 or 0b1110 as mma.sp's .tf32), its stored half from a descriptor or tensor memory, metadata in tensor memory at [sp-meta] as public sm_100 code lays it out (isa-notes, ⚠ not checked on a GPU; .kind::tf32's pairs in .kind::f16's places; .kind::f8f6f4 as .kind::i8, one figure for both), sparsity selector in the instruction descriptor; fields outside the ISA's meaningful list fault; M = 64: each 16-row block of metadata in the lanes of D's rows at D's lane alignment (⚠ ptxjit's reading of Figures 262/264/266, no public code writes it); .cta_group::2 M = 256: each CTA's 128 rows' metadata in its own tensor memory as M = 128's; block scaling .kind::mxf8f6f4 (2:4, K = 64) and .kind::mxf4/::mxf4nvf4 (4:8 in pairs, K = 128), the metadata as .kind::i8's (Figure 267), selector not read, scale factors as tcgen05.mma's (K/N elements per factor); disable-output-lane and scale-input-d as tcgen05.mma (not yet: .cta_group::2 with M = 128, whose per-CTA metadata layout is in figures only (a fault when it runs))" [
        "tcgen05.mma.sp.cta_group::1.kind::tf32 [%r1], %rd1, %rd2, [%r3], %r2, %p1",
        "tcgen05.mma.sp.cta_group::1.kind::f16 [%r1], %rd1, %rd2, [%r3], %r2, %p1",
        "tcgen05.mma.sp.cta_group::1.kind::i8 [%r1], [%r4], %rd2, [%r3], %r2, 1",
        "tcgen05.mma.sp.cta_group::1.kind::f8f6f4 [%r1], %rd1, %rd2, [%r3], %r2, %p1",
        "tcgen05.mma.sp.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%r1], %rd1, %rd2, [%r3], %r2, [%r4], [%r5], %p1",
        "tcgen05.mma.sp.cta_group::1.kind::mxf4nvf4.block_scale.block16 [%r1], %rd1, %rd2, [%r3], %r2, [%r4], [%r5], %p1",
        "tcgen05.mma.sp.cta_group::2.kind::f16 [%r1], %rd1, %rd2, [%r3], %r2, %p1",
        "tcgen05.mma.sp.cta_group::2.kind::mxf8f6f4.block_scale.scale_vec::1X [%r1], [%r2], %rd2, [%r3], %r2, [%r4], [%r5], %p1"]
    "tcgen05.mma.ws" "9.7.16.10.9.3" ".cta_group::1 .kind::f16, .kind::tf32, .kind::f8f6f4, .kind::i8 as tcgen05.mma; M = 128 (layout D), 64 (layout E: N folded in halves over lanes 0-63 and 64-127) or 32 (layout G: N folded in quarters over the four 32-lane partitions) with N = 64, 128 or 256; A from a descriptor or tensor memory (M = 64 and 32: A's row r in lane r of every lane group that computes a part of N, 128/M copies M lanes apart, as public sm_100 code run on hardware writes it; ⚠ not checked on a GPU, isa-notes; copies that differ fault); .collector::b0-b3::fill/use/lastuse/discard keep B between instructions; the zero-column-mask-desc operand zeroes the columns of B its mask names (one, two or four sub-masks by M; a Column Shift faults) ; .ws.sp: A 2:4 sparse (1:2 for .kind::tf32) as tcgen05.mma.sp, with M = 64 or 32 the metadata of rows 0..M in the M = 128 places and repeated every M lanes (public sm_100 code's layout, isa-notes, ⚠ not checked on a GPU; copies that differ fault)" [
        "tcgen05.mma.ws.sp.cta_group::1.kind::f16 [%r1], %rd1, %rd2, [%r3], %r2, %p1",
        "tcgen05.mma.ws.sp.cta_group::1.kind::i8.collector::b1::fill [%r1], [%r4], %rd2, [%r3], %r2, %p1, %rd3",
        "tcgen05.mma.ws.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1",
        "tcgen05.mma.ws.cta_group::1.kind::tf32.collector::b1::fill [%r1], [%r3], %rd2, %r2, %p1",
        "tcgen05.mma.ws.cta_group::1.kind::i8.collector::b3::use [%r1], %rd1, %rd2, %r2, 1",
        "tcgen05.mma.ws.cta_group::1.kind::f16.collector::b0::lastuse [%r1], %rd1, %rd2, %r2, %p1",
        "tcgen05.mma.ws.cta_group::1.kind::f16.collector::b2::discard [%r1], %rd1, %rd2, %r2, %p1",
        "tcgen05.mma.ws.cta_group::1.kind::f8f6f4.collector::b0::fill [%r1], %rd1, %rd2, %r2, %p1",
        "tcgen05.mma.ws.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1, %rd3"]
    "tcgen05.commit" "9.7.16.12.1" ".cta_group::1 and ::2 .mbarrier::arrive::one {.shared::cluster} .b64 (the mma is done: arrives at once); .shared::cluster.multicast::cluster with a 16-bit ctaMask: one arrive on the mbarrier at the same offset in each CTA of the cluster whose rank's bit is set" [
        "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%r1], %h1",
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r1]",
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%r1], %h1",
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%rd1]"]
    "tcgen05.fence" "9.7.16.11.1" "::before_thread_sync, ::after_thread_sync (nothing to order beyond program order)" ["tcgen05.fence::before_thread_sync", "tcgen05.fence::after_thread_sync"]
    "stacksave" "9.7.17.1" ".u32/.u64: a per-thread stack of 1024 bytes of local memory (lower::decode_stack)" ["stacksave.u64 %rd1"]
    "stackrestore" "9.7.17.2" ".u32/.u64; outside the stack traps" ["stackrestore.u64 %rd1"]
    "alloca" "9.7.17.3" ".u32/.u64, alignment a power of two up to 16 (default 8); beyond the stack traps" ["alloca.u64 %rd1, %rd2", "alloca.u64 %rd1, %rd2, 16"]
    "vadd / vsub / vabsdiff / vmin / vmax" "9.7.18.1.1" "u32/s32 each operand; .b0-.b3/.h0/.h1 selectors; .sat; .add/.min/.max or .dsel merge" [
        "vadd.s32.u32.s32.sat %r1, %r2.b0, %r3.h0", "vabsdiff.s32.s32.s32.sat %r1.h0, %r2.b0, %r3.b2, %r4",
        "vmin.s32.s32.s32.sat.add %r1, %r2, %r3, %r4", "vsub.u32.u32.u32 %r1, %r2, %r3", "vmax.s32.s32.s32.max %r1, %r2, %r3, %r4"]
    "vshl / vshr" "9.7.18.1.2" ".clamp/.wrap, selectors, .sat, secondary op or merge" [
        "vshl.s32.u32.u32.clamp %r1, %r2, %r3", "vshr.u32.u32.u32.wrap %r1, %r2, %r3.h1"]
    "vmad" "9.7.18.1.3" "selectors, .po, .sat, .shr7/.shr15, operand negation (-a, -b, -c)" [
        "vmad.s32.s32.s32 %r1, %r2, %r3, %r4", "vmad.u32.u32.u32.shr15 %r1, %r2.h0, %r3.h0, %r4",
        "vmad.s32.s32.u32.po.sat %r1, %r2, %r3, %r4", "vmad.s32.u32.u32.sat %r1, -%r2, %r3.b1, %r4",
        "vmad.s32.u32.u32 %r1, %r2, %r3, -%r4"]
    "vset" "9.7.18.1.4" "every integer compare, selectors, secondary op or merge" [
        "vset.s32.u32.lt %r1, %r2, %r3", "vset.u32.u32.ne %r1, %r2, %r3.h1", "vset.u32.u32.eq.add %r1, %r2, %r3, %r4"]
    "vadd2 / vsub2 / vavrg2 / vabsdiff2 / vmin2 / vmax2" "9.7.18.2.1" ".hxy selectors, .h0/.h1/.h10 masks, .sat merge or .add accumulate" [
        "vadd2.s32.s32.u32.sat %r1, %r2, %r3, %r1", "vsub2.s32.s32.s32.sat %r1.h0, %r2.h10, %r3.h32, %r1",
        "vmin2.s32.u32.u32.add %r1.h10, %r2.h00, %r3.h22, %r1", "vavrg2.u32.u32.u32 %r1, %r2, %r3, %r4"]
    "vset2" "9.7.18.2.2" "every integer compare, merge or .add" ["vset2.s32.u32.lt %r1, %r2, %r3, %r4", "vset2.u32.u32.ne.add %r1, %r2, %r3, %r4"]
    "vadd4 / vsub4 / vavrg4 / vabsdiff4 / vmin4 / vmax4" "9.7.18.3.1" ".bxyzw selectors, .b0-.b3210 masks, .sat merge or .add accumulate" [
        "vadd4.s32.s32.s32 %r1, %r2, %r3, %r4", "vabsdiff4.u32.u32.u32.add %r1, %r2, %r3, %r4",
        "vmax4.u32.u32.u32 %r1.b20, %r2.b0000, %r3.b4444, %r4"]
    "vset4" "9.7.18.3.2" "every integer compare, merge or .add" ["vset4.s32.s32.lt %r1, %r2, %r3, %r4", "vset4.u32.u32.gt.add %r1, %r2, %r3, %r4"]
    "trap" "9.7.19.4" "" ["trap"]
    "brkpt" "9.7.19.1" "" ["brkpt"]
    "pmevent" "9.7.19.3" "accepted (no effect)" ["pmevent 1", "pmevent.mask 0x1"]
    "nanosleep" "9.7.19.2" "" ["nanosleep.u32 %r1"]
    "setmaxnreg" "9.7.19.5" "no effect; the count is checked (a multiple of 8 in 24..=256)" ["setmaxnreg.inc.sync.aligned.u32 240", "setmaxnreg.dec.sync.aligned.u32 40"]
};

/// A small kernel around one example instruction (`.version 8.5`, `.target sm_90`).
pub fn example_kernel(inst: &str) -> String {
    example_kernel_for(inst, "8.5", "sm_90")
}

/// The headers [`check`] tries, in order: an example compiles if it does under one of them
/// (wgmma needs sm_90a, tcgen05 the sm_100 family's `a` targets, `tcgen05.ld.red` sm_103a,
/// `add.sat.u16x2` the sm_120 family).
const HEADERS: &[(&str, &str)] = &[
    ("8.5", "sm_90"),
    ("9.5", "sm_90a"),
    ("9.5", "sm_100a"),
    ("9.5", "sm_103a"),
    ("9.5", "sm_120a"),
];

/// [`example_kernel`] with the given `.version` and `.target`.
pub fn example_kernel_for(inst: &str, version: &str, target: &str) -> String {
    format!(
        ".version {version}\n.target {target}\n.address_size 64\n\
         .func cov_f(.param .b32 cov_x)\n{{\nret;\n}}\n\
         .visible .entry cov(.param .u64 cov_p)\n{{\n\
         .reg .pred %p<4>;\n.reg .b16 %h<5>;\n.reg .b32 %r<6>;\n.reg .b64 %rd<6>;\n\
         .reg .f32 %f<5>;\n.reg .f64 %fd<5>;\n.shared .align 8 .b32 sm[32];\n\
         ld.param.u64 %rd1, [cov_p];\n{inst};\n$L:\nret;\n$T: .branchtargets $L;\n}}\n"
    )
}

/// Whether every example of `i` compiles; otherwise the first error (one line).
pub fn check(i: &Instr) -> Result<(), String> {
    for ex in i.examples {
        let mut first = None;
        for (version, target) in HEADERS {
            let ptx = example_kernel_for(ex, version, target);
            match crate::host::front_end(&ptx, "coverage.ptx") {
                Ok(_) => {
                    first = None;
                    break;
                }
                Err(e) => {
                    first.get_or_insert(e.to_string());
                }
            }
        }
        if let Some(msg) = first {
            let line = msg.lines().next().unwrap_or("").to_string();
            return Err(format!("`{}`: {line}", ex.replace('\n', " ")));
        }
    }
    Ok(())
}

/// The report as Markdown.
pub fn report() -> String {
    let mut s = String::from(
        "# PTX ISA coverage\n\n\
         Generated by `ptxjit coverage` (`src/coverage.rs`): every PTX ISA instruction, with the \
         forms ptxjit claims. An instruction is **yes** only if each of its example \
         instructions compiles through the real front end (parse, lower, verify); otherwise the \
         decoder's first error is shown. `cargo test` keeps this file current (`BLESS=1` \
         rewrites it). Semantics choices the ISA leaves open: `docs/isa-notes.md`.\n\n\
         | Instruction | PTX ISA § | Supported | Forms | Examples checked / first error |\n\
         |---|---|---|---|---|\n",
    );
    let (mut yes, mut total) = (0, 0);
    for i in ISA {
        total += 1;
        let (st, note) = match check(i) {
            Ok(()) => {
                yes += 1;
                ("yes", format!("{} examples", i.examples.len()))
            }
            Err(e) => ("**no**", e.replace('|', "\\|")),
        };
        let forms = if i.forms.is_empty() { "—" } else { i.forms };
        s += &format!(
            "| `{}` | {} | {st} | {} | {note} |\n",
            i.name,
            i.section,
            forms.replace('|', "\\|")
        );
    }
    s += &format!("\n{yes} of {total} instruction entries supported.\n");
    s += "\n## Decoder table\n\nEach PTX opcode's decoding has one home: a row of the \
          decoder's table (`src/lower/decode_table.rs`) per ISA section defining it, chosen by \
          the instruction's type modifiers; forms the ISA describes in sections of their own \
          follow. The last column is what the row needs of the module's `.version` and \
          `.target` (its section's PTX ISA and Target ISA notes, checked when an instruction \
          is decoded), then the forms that need more.\n\n\
          | Instruction | Forms | PTX ISA § | Needs (PTX ISA version, target) |\n\
          |---|---|---|---|\n";
    for (op, forms, sec, needs) in crate::lower::decoder_table() {
        let forms = if forms.is_empty() { "(form)" } else { forms };
        let needs = if needs.is_empty() {
            "(as its opcode)".to_string()
        } else {
            needs
        };
        s += &format!(
            "| `{op}` | {forms} | {sec} | {} |\n",
            needs.replace('|', "\\|")
        );
    }
    s += "\n## IR operations\n\nFrom the op table (`src/ir/ops.rs`).\n\n| Op | PTX ISA § | Semantics |\n|---|---|---|\n";
    for (mn, sec, doc) in OP_TABLE {
        s += &format!("| `{mn}` | {sec} | {} |\n", doc.trim().replace('|', "\\|"));
    }
    s
}

#[cfg(test)]
mod tests {
    /// docs/coverage.md is the current report; `BLESS=1` rewrites it.
    #[test]
    fn coverage_doc_is_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/coverage.md");
        let now = super::report();
        if std::env::var_os("BLESS").is_some() {
            std::fs::write(path, &now).expect("write docs/coverage.md");
            return;
        }
        let old = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            old == now,
            "docs/coverage.md is stale: run `BLESS=1 cargo test --lib coverage` and commit it"
        );
    }

    /// Every entry's examples compile (a "**no**" row is a regression: the ISA is covered).
    #[test]
    fn every_coverage_entry_is_supported() {
        let bad: Vec<String> = super::ISA
            .iter()
            .filter_map(|i| super::check(i).err().map(|e| format!("{}: {e}", i.name)))
            .collect();
        assert!(bad.is_empty(), "entries not supported:\n{}", bad.join("\n"));
    }

    /// The decoder table's (opcode or form, section) pairs.
    fn table() -> Vec<(&'static str, &'static str)> {
        crate::lower::instruction_sections().collect()
    }

    /// Whether `sec` is `of` or one of its sub-sections.
    fn within(sec: &str, of: &str) -> bool {
        sec == of || sec.strip_prefix(of).is_some_and(|r| r.starts_with('.'))
    }

    /// Each coverage entry's section is the one the decoder's table gives its instruction (the
    /// table row of the longest opcode or form its name starts with), or a sub-section of it.
    #[test]
    fn coverage_sections_agree_with_the_decoder_table() {
        let table = table();
        let mut bad = vec![];
        for i in super::ISA {
            let name = i.name.split([' ', '/']).next().unwrap_or(i.name);
            let starts = |n: &str| name == n || name.starts_with(&format!("{n}."));
            let Some(len) = table
                .iter()
                .filter(|(n, _)| starts(n))
                .map(|(n, _)| n.len())
                .max()
            else {
                bad.push(format!("{}: not in the decoder's table", i.name));
                continue;
            };
            let ok = table
                .iter()
                .filter(|(n, _)| n.len() == len && starts(n))
                .any(|(_, s)| within(i.section, s));
            if !ok {
                bad.push(format!("{} {}", i.name, i.section));
            }
        }
        assert!(bad.is_empty(), "sections disagree:\n{}", bad.join("\n"));
    }

    /// Every section of the IR op table (`src/ir/ops.rs`) and every `§9.7...` written in
    /// `src/` names a section of the decoder's table, a chapter holding one, a sub-section of
    /// one, or one of the ISA's sections that describe no instruction of their own (below).
    #[test]
    fn section_numbers_in_the_sources_agree_with_the_decoder_table() {
        // Sections without an instruction of their own: fragment layouts and the like.
        const OTHER: &[&str] = &[
            "9.7.9.1",  // Cache operators
            "9.7.9.2",  // Cache eviction priority hints
            "9.7.13.8", // vote (deprecated: without .sync)
            "9.7.14.1", // Matrix shape
            "9.7.14.2", // Matrix data types
            "9.7.14.3", // Block scaling for mma.sync
            "9.7.14.5.1",
            "9.7.14.5.8", // mma: fragments, m16n8k16 and the like
            "9.7.15.5.1.1",
            "9.7.15.5.1.2",
            "9.7.15.5.1.2.1.3", // wgmma: register fragments
            "9.7.13.15.3",
            "9.7.13.15.4",
            "9.7.13.15.5",
            "9.7.13.15.6",
            "9.7.13.15.9",
            "9.7.13.15.16",
            "9.7.13.15.17", // mbarrier operations
        ];
        let table = table();
        let known = |s: &str| {
            OTHER.contains(&s)
                || table.iter().any(|(_, t)| {
                    within(s, t) || within(t, s) || OTHER.iter().any(|o| within(s, o))
                })
        };
        let mut bad = vec![];
        for (mn, sec, _) in crate::ir::OP_TABLE {
            if sec.starts_with("9.7") && !known(sec) {
                bad.push(format!("op {mn}: {sec}"));
            }
        }
        let mut files = vec![std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src"
        ))];
        while let Some(p) = files.pop() {
            if p.is_dir() {
                for e in std::fs::read_dir(&p).expect("read src/").flatten() {
                    files.push(e.path());
                }
                continue;
            }
            if p.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            for (k, _) in text.match_indices("§9.7") {
                let num: String = text[k + "§".len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.')
                    .collect();
                let num = num.trim_end_matches('.');
                if !known(num) {
                    bad.push(format!("{}: §{num}", p.display()));
                }
            }
        }
        assert!(bad.is_empty(), "unknown sections:\n{}", bad.join("\n"));
    }

    /// The scalar ISA (integer, float, comparison, logic, data movement) is complete: none of
    /// its instructions is reported missing.
    #[test]
    fn scalar_isa_is_covered() {
        let scalar = |s: &str| {
            s.starts_with("9.7.1.")
                || s.starts_with("9.7.2.")
                || s.starts_with("9.7.3.")
                || s.starts_with("9.7.4.")
                || s.starts_with("9.7.6.")
                || s.starts_with("9.7.7.")
                || s.starts_with("9.7.8.")
                || s.starts_with("9.7.18.")
                || matches!(s, "9.7.9.3" | "9.7.9.7" | "9.7.9.21" | "9.7.9.22")
        };
        let missing: Vec<String> = super::ISA
            .iter()
            .filter(|i| scalar(i.section))
            .filter_map(|i| super::check(i).err().map(|e| format!("{}: {e}", i.name)))
            .collect();
        assert!(missing.is_empty(), "missing:\n{}", missing.join("\n"));
    }

    /// Forms the ISA (and ptxas) reject are load errors with the instruction's location.
    #[test]
    fn invalid_forms_are_rejected() {
        for (inst, want) in [
            ("vmad.s32.s32.s32.po %r1, -%r2, %r3, %r4", "negation"),
            ("vmad.s32.s32.s32 %r1, -%r2, %r3, -%r4", "not both"),
            ("vadd.s32.s32.s32 %r1, -%r2, %r3", "negation"),
            ("add.s32 %r1, -%r2, %r3", "not allowed"),
            ("add.relaxed.s32 %r1, %r2, %r3", "illegal modifier '.relaxed'"),
            ("atom.sc.global.add.u32 %r1, [%rd1], %r2", "illegal modifier '.sc'"),
            ("red.acquire.gpu.global.add.u32 [%rd1], %r2", "illegal modifier '.acquire'"),
            ("fence.relaxed.gpu", "illegal modifier '.relaxed'"),
            (
                "cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group.cta_group::2 [%rd1, {%r1}], [sm]",
                ".cta_group applies to copies into shared memory",
            ),
            (
                "multimem.cp.async.bulk.relaxed.sys.global.shared::cta.bulk_group [%rd1], [sm], 16",
                "no memory-order qualifier",
            ),
            (
                "multimem.cp.async.bulk.global.shared::cta.mbarrier::complete_tx::bytes [%rd1], [sm], 16, [sm]",
                "illegal modifier '.mbarrier::complete_tx::bytes' for instruction 'multimem'",
            ),
            ("fence.release.sync_restrict::shared::cluster.cluster", "fence.sync_restrict is"),
            (
                "fence.proxy.async::generic.acquire.sync_restrict::shared::cta.cluster",
                "fence.proxy.async::generic is",
            ),
            ("membar.proxy.async.global", "membar.proxy takes .alias or .async"),
            ("fma.rn.sat.oob.f16 %h1, %h2, %h3, %h4", ".oob takes no .ftz/.sat"),
            ("fma.rz.oob.f16 %h1, %h2, %h3, %h4", "illegal rounding modifier '.rz'"),
            ("neg.ftz.s32 %r1, %r2", ".ftz"),
            ("rem.f32 %f1, %f2, %f3", "no floating-point"),
            ("mov.u64 %rd1, %tid.x", "has 32 bits"),
            ("lop3.b32 %r1|%p1, %r2, %r3, %r4, 0x80, %p2", ".and or .or"),
            ("lop3.or.b32 %r1, %r2, %r3, %r4, 0x80", "expects d|p"),
            ("ld.global.L2::cache_hint.u32 %r1, [%rd1]", "cache-policy"),
            (
                "ld.global.L2::cache_hint.u32 %r1, [%rd1], %r2",
                "cache-policy",
            ),
            (
                "ld.global.v8.b64 {%rd1, %rd2, %rd3, %rd4, %rd1, %rd2, %rd3, %rd4}, [%rd1]",
                ".v8",
            ),
            ("atom.global.add.f16 %h1, [%rd1], %h2", ".noftz"),
            (
                "atom.shared.v2.f32.add {%f1, %f2}, [sm], {%f3, %f4}",
                "vector atomics",
            ),
            (
                "cvt.rs.f16.f32 %h1, %f1",
                "no stochastic-rounding conversion",
            ),
            (
                "cvt.rs.e4m3x2.f32 %h1, %f1, %f2",
                "no stochastic-rounding conversion",
            ),
            (
                "cvt.rs.e4m3x4.f32 %r1, {%f1, %f2, %f1, %f2}, %r2",
                "need .satfinite",
            ),
            (
                "cvt.rs.satfinite.e4m3x4.f32 %r1, %f1, %r2",
                "vector of four",
            ),
            (
                "cvt.rn.satfinite.e4m3x4.f32 %r1, {%f1, %f2, %f1, %f2}, %r2",
                "need .rs",
            ),
            ("cvt.rs.f16x2.f32 %r1, %f1, %f2", "operand"),
            (
                "cp.async.cg.shared.global [sm], [%rd1], 8",
                "copies 16 bytes",
            ),
            (
                "cp.async.ca.shared.global [sm], [%rd1], 12",
                "cp-size must be",
            ),
            (
                "cp.async.ca.shared.global [sm], [%rd1], 4, 9",
                "outside 0..=4",
            ),
            ("cp.async.ca.global.global [%rd2], [%rd1], 4", ".shared"),
            ("cp.async.wait_group %r1", "integer constant"),
            (
                "mbarrier.arrive.acquire.shared.b64 %rd1, [sm]",
                "illegal modifier '.acquire'",
            ),
            (
                "mbarrier.init.shared.b32 [sm], %r1",
                "illegal modifier '.b32'",
            ),
            (
                "mbarrier.test_wait.shared::cluster.b64 %p1, [sm], %rd1",
                "illegal modifier '.shared::cluster'",
            ),
            (
                "mbarrier.arrive.noComplete.shared.b64 %rd1, [sm]",
                "and a count",
            ),
            (
                "mbarrier.test_wait.b64 %p1, [%rd2], %rd1, 100",
                "state or parity",
            ),
            (
                "mbarrier.pending_count.shared.b64 %r1, %rd1",
                "no state space",
            ),
            ("mbarrier.wait.b64 %p1, [%rd2], %rd1", "illegal modifier '.wait'"),
            (
                "cp.async.mbarrier.arrive.noinc.b64 [sm], %r1",
                "expects 1 operands",
            ),
            (
                "fence.proxy.tensormap::generic.acquire.gpu [%rd1], 64",
                "size of 128",
            ),
            (
                "cp.async.bulk.tensor.2d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4], {%h1}",
                "needs a .3d, .4d or .5d tensor",
            ),
            (
                "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3, %r4, %r5}], [%r4], {%h1}",
                "takes 2 im2col offsets",
            ),
            (
                "cp.async.bulk.tensor.4d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3, %r4, %r5}], [%r4], {%h1}",
                "takes 2 im2col info values {wHalo, wOffset} (.im2col::w)",
            ),
            (
                "cp.async.bulk.tensor.2d.shared::cta.global.im2col::w::128.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4], {%h1, %h2}",
                "the .im2col::w::128 load mode needs a .3d, .4d or .5d tensor",
            ),
            (
                "cp.async.bulk.tensor.2d.shared::cta.global.tile::scatter4.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3, %r4, %r5, %r1}], [%r4]",
                "illegal modifier '.tile::scatter4' for instruction 'cp.async.bulk.tensor'",
            ),
            (
                "cp.async.bulk.tensor.2d.global.shared::cta.im2col_no_offs.bulk_group [%rd1, {%r2, %r3}], [%r4]",
                "modifier '.2d' cannot be combined with modifier '.im2col_no_offs'",
            ),
            (
                "cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.tile.im2col_no_offs.bulk_group [%rd1, {%r2, %r3, %r4}], [%r4]",
                "takes one load mode",
            ),
            (
                "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4]",
                "takes 3 coordinates",
            ),
            (
                "cp.async.bulk.tensor.3d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3, %r4, %r5, %r1}], [%r4]",
                "needs a .2d tensor",
            ),
            (
                "cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4]",
                "takes 5 coordinates",
            ),
            (
                "cp.async.bulk.tensor.2d.global.shared::cta.tile.tile::scatter4.bulk_group [%rd1, {%r2, %r3, %r4, %r5, %r1}], [%r4]",
                "takes one load mode",
            ),
            (
                "cp.async.bulk.tensor.2d.global.shared::cta.tile.mbarrier::complete_tx::bytes [%rd1, {%r2, %r3}], [%r4]",
                "illegal modifier",
            ),
            (
                "wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1 {%r1, %r2, %r3, %r4}, %rd1, %rd2, %p1",
                "take .and.popc",
            ),
            (
                "wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.xor.popc {%r1, %r2, %r3, %r4}, %rd1, %rd2, %p1",
                "illegal modifier '.xor' for instruction 'wgmma'",
            ),
            ("mul.u32 %r1, %r2, %r3", ".lo, .hi or .wide"),
            (
                "cp.async.bulk.shared::cluster.global.bulk_group [%r1], [%rd1], 64",
                "copies .shared",
            ),
            (
                "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 24, [%r2]",
                "multiple of 16",
            ),
            (
                "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], 32, [%r2]",
                "expects 3 operands",
            ),
            (
                "cp.reduce.async.bulk.global.shared::cta.bulk_group.inc.u64 [%rd1], [%r1], 64",
                "has no .inc.u64",
            ),
            (
                "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f16 [%rd1], [%r1], 64",
                ".noftz",
            ),
            (
                "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.s64 [%r1], %rd2, [%r3]",
                "illegal modifier '.s64'",
            ),
            (
                "st.async.shared::cluster.u32 [%r1], %r2, [%r3]",
                "needs .mbarrier::complete_tx::bytes",
            ),
            ("setmaxnreg.inc.sync.aligned.u32 20", "multiple of 8"),
            ("setmaxnreg.sync.aligned.u32 32", "needs .inc or .dec"),
            ("griddepcontrol.wait %r1", "expects 0 operands"),
            ("alloca.u64 %rd1, %rd2, 32", "power of two up to 16"),
            ("alloca.u64 %rd1, %rd2, 12", "power of two up to 16"),
            ("stacksave.b64 %rd1", ".u32 or .u64"),
            ("shfl.down.b32 %r1, %r2, 1, 31", "shfl without .sync"),
            ("vote.any.pred %p1, %p2", "vote without .sync"),
            (
                "ld.global.v3.u32 {%r1, %r2, %r3}, [%rd1]",
                ".v3 is not a PTX vector width",
            ),
            ("mov.u32 %r1, %nctaid", "'%nctaid' needs a component"),
            ("add.rn.u32 %r1, %r2, %r3", "illegal modifier '.rn'"),
            ("mad.rz.lo.s32 %r1, %r2, %r3, %r4", "illegal modifier '.rz'"),
            (
                "tex.cube.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2, %r3, %r4}]",
                ".f32 coordinates",
            ),
            (
                "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, 1, 1, 0",
                "expects 8 operands",
            ),
            (
                "wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, 1, 1, 0, 0",
                "no wgmma form .m64n12k16",
            ),
            (
                "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, 1, 1, 0, 0",
                "no wgmma form",
            ),
            (
                "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, 2, 1, 0, 0",
                "imm-scale-a must be",
            ),
            (
                "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3}, %rd1, %rd2, %p1, 1, 1, 0, 0",
                "needs 4 registers",
            ),
            (
                "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %r1, 2, %p1, 1, 1, 0, 0",
                "sp-sel (the sparsity selector) must be an integer constant in [0, 1]",
            ),
            (
                "wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.s8 {%r1, %r2, %r3, %r4}, %rd1, %rd2, %r5, 1, %p1",
                "must be an integer constant in [0]",
            ),
            (
                "wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %r1, 0, %p1, 1, 1, 0, 0",
                "no wgmma.sp form .m64n8k16",
            ),
            (
                "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 0, %p1, 1, 1, 0, 0",
                "expects 10 operands",
            ),
            (
                "tcgen05.mma.sp.cta_group::1.kind::mxf4.block_scale [%r1], %rd1, %rd2, [%r3], %r2, [%r4], %p1",
                "b-desc, [sp-meta], idesc, [scale-A-tmem], [scale-B-tmem], enable-input-d; found 7",
            ),
            (
                "tcgen05.mma.ws.sp.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r3, %r2, %p1",
                "expects the metadata's tensor-memory address [sp-meta] as operand 4",
            ),
            (
                "tcgen05.mma.ws.sp.cta_group::1.kind::f16 [%r1], %rd1, %rd2, [%r3], %r2",
                "b-desc, [sp-meta], idesc, enable-input-d and an optional zero-column-mask-desc; \
                 found 5 operands",
            ),
            (
                "tcgen05.mma.sp.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1",
                "expects the metadata's tensor-memory address [sp-meta] as operand 4",
            ),
            (
                "tcgen05.mma.cta_group::1.kind::f8f6f4 [%r1], %rd1, %rd2, %r2, %p1, 2",
                "scale-input-d is for .kind::f16 and .kind::tf32 only",
            ),
            (
                "tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, {0, 0, 0, 0}, %p1",
                "disable-output-lane takes registers only",
            ),
            (
                "tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1, 16",
                "scale-input-d must be an integer constant",
            ),
            (
                "tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, {%r3, %r4}, %p1",
                "needs 4 registers",
            ),
            (
                "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::1X [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1",
                "cannot be combined with .scale_vec::1X",
            ),
            (
                "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1",
                "needs a scale vector size",
            ),
            (
                "tcgen05.mma.cta_group::1.kind::mxf8f6f4 [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1",
                "needs .block_scale",
            ),
            (
                "tcgen05.mma.cta_group::1.kind::f16.block_scale [%r1], %rd1, %rd2, %r2, %p1",
                ".block_scale is for",
            ),
            (
                "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1, 2",
                "found 8 operands",
            ),
            (
                "cvt.rn.satfinite.scaled::n2::ue8m0.e4m3x2.f32 %h1, %f1, %f2, %h2",
                ".scaled::n2::ue8m0 is not allowed with cvt .e4m3x2.f32",
            ),
            ("cvt.rn.bf16x2.s2f6x2 %r1, %h1, %h2", "expects 2 operands"),
            (
                "mma.sync.aligned.m16n8k8.row.col.rz.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r3}, {%f1, %f2, %f3, %f4}",
                "needs .f64 inputs",
            ),
            ("cvt.rn.relu.s2f6x2.f32 %h1, %f1, %f2", "need .rn.satfinite"),
            ("wgmma.fence.aligned", "needs .sync"),
            ("wgmma.wait_group.sync.aligned %r1", "integer constant"),
        ] {
            // Rejected under every header the report tries; the reason is the decoder's under
            // a header that meets the instruction's requirements.
            let errs: Vec<String> = super::HEADERS
                .iter()
                .map(|(v, t)| {
                    crate::host::front_end(&super::example_kernel_for(inst, v, t), "bad.ptx")
                        .err()
                        .unwrap_or_else(|| panic!("`{inst}` was accepted under {v} {t}"))
                        .to_string()
                })
                .collect();
            let err = errs
                .iter()
                .find(|e| e.contains(want))
                .unwrap_or_else(|| panic!("`{inst}`: {errs:?}"));
            assert!(
                err.contains("bad.ptx:18:"),
                "`{inst}`: no location in {err}"
            );
        }
    }

    /// Block scaling's PTX ISA versions, as ptxas 12.9 reports them: `.scale_vec::1X`/`::2X`
    /// from 8.6, `.kind::mxf4nvf4` and `.scale_vec::4X` from 8.7, `.block16`/`.block32` and
    /// the default size (`.block32`) from 8.8.
    #[test]
    fn block_scale_needs_its_ptx_isa_version() {
        let ops = "[%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1";
        for (mods, since) in [
            ("mxf8f6f4.block_scale.scale_vec::1X", "8.6"),
            ("mxf4.block_scale.scale_vec::2X", "8.6"),
            ("mxf4nvf4.block_scale.scale_vec::2X", "8.7"),
            ("mxf8f6f4.block_scale.scale_vec::1X", "8.6"),
            ("mxf4nvf4.block_scale.scale_vec::4X", "8.7"),
            ("mxf4.block_scale", "8.8"),
            ("mxf8f6f4.block_scale.block32", "8.8"),
            ("mxf4nvf4.block_scale.block16", "8.8"),
        ] {
            let inst = format!("tcgen05.mma.cta_group::1.kind::{mods} {ops}");
            for v in ["8.6", "8.7", "8.8"] {
                let ptx = super::example_kernel_for(&inst, v, "sm_100a");
                let r = crate::host::front_end(&ptx, "v.ptx");
                assert_eq!(r.is_ok(), v >= since, "{inst} under {v}: {:?}", r.err());
            }
        }
    }

    /// `shfl`/`vote` without `.sync` still load where the module's header allows them
    /// (before PTX ISA 6.4, or a target below sm_70), as ptxas accepts them there.
    #[test]
    fn legacy_warp_ops_load_for_old_headers() {
        for (version, target) in [("6.3", "sm_70"), ("8.0", "sm_60"), ("6.0", "sm_52")] {
            for inst in ["shfl.down.b32 %r1, %r2, 1, 31", "vote.any.pred %p1, %p2"] {
                let text = super::example_kernel(inst)
                    .replace(".version 8.5", &format!(".version {version}"))
                    .replace(".target sm_90", &format!(".target {target}"));
                if let Err(e) = crate::host::front_end(&text, "old.ptx") {
                    panic!("{version} {target} `{inst}`: {e}");
                }
            }
        }
    }

    /// A `.b128` register is only for ld/st/mov.b128 and atom.cas/exch.b128 (and
    /// `clusterlaunchcontrol.query_cancel`): any other use is a load error naming it, as are
    /// the atomics ptxas rejects on .b128 (other operations, `red`, 64-bit operands).
    #[test]
    fn b128_registers_outside_ld_st_mov_are_rejected() {
        for inst in [
            "add.s64 %rd2, %q1, 1",
            "mov.b64 %rd2, %q1",
            "ld.global.b128 %rd2, [%rd1]",
            "atom.global.add.b128 %q1, [%rd1], %q0",
            "red.global.exch.b128 [%rd1], %q0",
            "atom.global.cas.b128 %q1, [%rd1], %rd2, %rd3",
            "atom.global.exch.b128 %rd2, [%rd1], %q0",
            "atom.global.cas.b64 %rd2, [%rd1], %q0, %rd3",
        ] {
            let ptx = super::example_kernel(&format!(".reg .b128 %q<2>;\n{inst}"));
            let err = crate::host::front_end(&ptx, "b128.ptx")
                .err()
                .unwrap_or_else(|| panic!("`{inst}` was accepted"))
                .to_string();
            assert!(err.contains("b128"), "`{inst}`: {err}");
        }
        let ok = super::example_kernel(
            ".reg .b128 %q<2>;\nld.global.b128 %q1, [%rd1];\nmov.b128 {%rd2, %rd3}, %q1;\n\
             mov.b128 %q0, {%rd3, %rd2};\nst.global.b128 [%rd1], %q0",
        );
        crate::host::front_end(&ok, "b128.ptx").expect("ld/st/mov.b128 load");
    }

    /// `atom .b128` needs PTX ISA 8.3, and 8.4 with `.sys` (ptxas 12.9: "Feature '.b128 with
    /// .sys' requires PTX ISA .version 8.4 or later"): forms of the decoder table's `atom` row.
    #[test]
    fn b128_atomics_need_ptx_isa_8_3_and_8_4_with_sys() {
        let cases = [
            (
                "8.2",
                "atom.global.cas.b128 %q1, [%rd1], %q0, %q1",
                Some("8.3"),
            ),
            ("8.3", "atom.global.cas.b128 %q1, [%rd1], %q0, %q1", None),
            (
                "8.3",
                "atom.relaxed.sys.global.exch.b128 %q1, [%rd1], %q0",
                Some("8.4"),
            ),
            (
                "8.4",
                "atom.relaxed.sys.global.exch.b128 %q1, [%rd1], %q0",
                None,
            ),
        ];
        for (version, inst, needs) in cases {
            let ptx = super::example_kernel(&format!(".reg .b128 %q<2>;\n{inst}"))
                .replace(".version 8.5", &format!(".version {version}"));
            let r = crate::host::front_end(&ptx, "b128.ptx");
            match (needs, r) {
                (None, Ok(_)) => {}
                (Some(v), Err(e)) => {
                    let e = e.to_string();
                    assert!(
                        e.contains(&format!("requires PTX ISA {v} (.version {version} here)")),
                        "{inst}: {e}"
                    );
                }
                (None, Err(e)) => panic!("{version} `{inst}`: {e}"),
                (Some(_), Ok(_)) => panic!("{version} `{inst}` was accepted"),
            }
        }
    }
}

/// Which instructions of the report run somewhere: an ISA table row (`ptx-tests/isa`) or an
/// executed case's PTX (`ptx-tests/kernels`, `ptx-tests/sanitizer`, `ptx-tests/sandbox`).
#[cfg(test)]
mod executed {
    use std::path::Path;

    /// Instructions of the report that no table row and no executed case contains yet: the
    /// list shrinks as cases are written, and the test fails when it is not exactly current
    /// (a new gap, or a gap closed without removing it here). The check is by opcode (and
    /// dotted prefix): an entry for one family of an opcode (`add (float)`) counts as
    /// executed when any form of the opcode runs.
    const NOT_YET_EXECUTED: &[&str] = &[];

    /// Every whitespace-separated word of the PTX text under `dir` (`.ptx`, `.isa`, `.toml`).
    fn words(dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                words(&p, out);
            } else if p
                .extension()
                .is_some_and(|x| x == "ptx" || x == "isa" || x == "toml")
            {
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                out.extend(
                    text.split(|c: char| c.is_whitespace() || matches!(c, ';' | '{' | '"'))
                        .map(|w| w.trim_start_matches(['@', '!']).to_string()),
                );
            }
        }
    }

    /// The opcodes (or opcode prefixes, `tcgen05.mma.sp`) a report entry names:
    /// `add (float)` → `add`, `vadd / vsub` → both, `tcgen05.alloc / dealloc` →
    /// `tcgen05.alloc`, `tcgen05.dealloc`.
    fn names(entry: &str) -> Vec<String> {
        let parts: Vec<&str> = entry
            .split(" / ")
            .map(|n| n.split(' ').next().unwrap_or(n))
            .flat_map(|n| n.split('/'))
            .collect();
        let stem = parts[0].split_once('.').map(|(s, _)| s);
        parts
            .iter()
            .map(|p| match stem {
                Some(st) if !p.contains('.') && !p.starts_with(st) => format!("{st}.{p}"),
                _ => p.to_string(),
            })
            .collect()
    }

    /// Instructions with no effect a case could observe on the CPU, and why.
    const NO_EFFECT: &[(&str, &str)] = &[
        (
            "brkpt",
            "a debugger breakpoint: nothing happens without a debugger",
        ),
        (
            "pmevent",
            "a performance-monitor event: no counters to observe",
        ),
        (
            "setmaxnreg",
            "a register-allocation hint: the count is checked, nothing else",
        ),
        (
            "tcgen05.fence",
            "orders tensor-memory accesses, which already complete in program order",
        ),
    ];

    #[test]
    fn every_instruction_is_executed_by_some_case() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("ptx-tests");
        let mut all = Vec::new();
        for d in ["isa", "kernels", "sanitizer", "sandbox"] {
            words(&root.join(d), &mut all);
        }
        // `n` itself or a longer dotted form of it (`ld` in `ld.global.f32`); a name with
        // modifiers the syntax puts after others (`match.sync` in `match.any.sync.b32`)
        // matches a word with its opcode and every one of those modifiers.
        let found = |n: &str| {
            let dotted = format!("{n}.");
            let (stem, mods) = n.split_once('.').unwrap_or((n, ""));
            all.iter().any(|w| {
                w == n
                    || w.starts_with(&dotted)
                    || (!mods.is_empty() && w.split('.').next() == Some(stem) && {
                        // `wait::ld` is the modifier `wait` with its qualifier.
                        let segs: Vec<&str> = w
                            .split('.')
                            .map(|m| m.split("::").next().unwrap_or(m))
                            .collect();
                        mods.split('.').all(|m| segs.contains(&m))
                    })
            })
        };
        let missing: Vec<&str> = super::ISA
            .iter()
            .filter(|i| !names(i.name).iter().all(|n| found(n)))
            .map(|i| i.name)
            .filter(|n| !NO_EFFECT.iter().any(|(e, _)| e == n))
            .collect();
        assert_eq!(
            missing, NOT_YET_EXECUTED,
            "instructions no ISA table row or executed case contains (write a case, or \
             update NOT_YET_EXECUTED)"
        );
    }
}
