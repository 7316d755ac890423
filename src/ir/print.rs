//! The IR text printer (`ptxjit dump --ir`).
//!
//! ```text
//! kernel saxpy(n: u32 @0, a: f32 @4, x: u64 @8, y: u64 @16)
//! block0:
//!   v0:i32 = sreg %tid.x            ; 12:3 mov.u32
//!   v4:i64 = ld.param v3            ; 14:3 ld.param.u64
//!   branch v7, block1(v4), block2   ; 20:3 @%p1 bra
//! ```

use super::*;
use std::fmt::Write;

/// Print one kernel as text.
pub fn print_function(f: &Function) -> String {
    let mut s = String::new();
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| format!("{}: {} @{}", p.name, p.ptx_type, p.offset))
        .collect();
    let _ = writeln!(s, "kernel {}({})", f.name, params.join(", "));
    if f.local_bytes > 0 {
        let _ = writeln!(s, "  ; local bytes per thread: {}", f.local_bytes);
    }
    if f.static_shared_bytes > 0 {
        let _ = writeln!(s, "  ; static shared bytes: {}", f.static_shared_bytes);
    }
    for (bi, b) in f.blocks.iter().enumerate() {
        let ps: Vec<String> = b
            .params
            .iter()
            .map(|&v| format!("{v}:{}", f.value_type(v)))
            .collect();
        if ps.is_empty() {
            let _ = writeln!(s, "block{bi}:");
        } else {
            let _ = writeln!(s, "block{bi}({}):", ps.join(", "));
        }
        for &i in &b.insts {
            let line = print_inst(f, i);
            let loc = f.inst_locs[i.index()];
            let _ = writeln!(
                s,
                "  {line:<40} ; {}:{} {}",
                loc.line,
                loc.col,
                f.inst_ptx[i.index()]
            );
        }
        let _ = writeln!(s, "  {}", print_term(&b.term));
    }
    s
}

fn print_call(c: &BlockCall) -> String {
    if c.args.is_empty() {
        format!("{}", c.block)
    } else {
        let a: Vec<String> = c.args.iter().map(|v| v.to_string()).collect();
        format!("{}({})", c.block, a.join(", "))
    }
}

fn print_term(t: &Terminator) -> String {
    match t {
        Terminator::Jump(c) => format!("jump {}", print_call(c)),
        Terminator::Branch { cond, then_, else_ } => {
            format!(
                "branch {cond}, {}, {}",
                print_call(then_),
                print_call(else_)
            )
        }
        Terminator::Exit => "exit".into(),
        Terminator::Barrier { next } => format!("barrier {}", print_call(next)),
        Terminator::Trap => "trap".into(),
    }
}

/// The modifiers of an op as printed after its mnemonic.
pub fn print_modifiers(op: &Op) -> String {
    let flag = |on: bool, s: &'static str| if on { s } else { "" };
    let mode = |clamp: bool| if clamp { ".clamp" } else { ".wrap" };
    let fl = |rnd: &Round, ftz: &bool, sat: &bool| {
        format!(
            ".{rnd}{}{}",
            if *ftz { ".ftz" } else { "" },
            if *sat { ".sat" } else { "" }
        )
    };
    match op {
        Op::Const { bits } => format!(" {bits:#x}"),
        Op::SReg { reg } => format!(" {}", reg.name()),
        Op::SymAddr { sym, space } => format!(".{space} sym{sym}"),
        Op::IMulHi { sign }
        | Op::IMulWide { sign }
        | Op::IDiv { sign }
        | Op::IRem { sign }
        | Op::IMin { sign }
        | Op::IMax { sign }
        | Op::Shr { sign } => format!(".{sign}"),
        Op::FAdd { rnd, ftz, sat }
        | Op::FSub { rnd, ftz, sat }
        | Op::FMul { rnd, ftz, sat }
        | Op::FFma { rnd, ftz, sat } => fl(rnd, ftz, sat),
        Op::FDiv { rnd, approx, ftz }
        | Op::FSqrt { rnd, approx, ftz }
        | Op::FRcp { rnd, approx, ftz } => {
            let r = if *approx {
                ".approx".to_string()
            } else {
                format!(".{rnd}")
            };
            format!("{r}{}", if *ftz { ".ftz" } else { "" })
        }
        Op::FNeg { ftz } | Op::FAbs { ftz } => {
            if *ftz {
                ".ftz".into()
            } else {
                String::new()
            }
        }
        Op::ICmp { cc, sign } => format!(".{}.{sign}", format!("{cc:?}").to_lowercase()),
        Op::FCmp { cc, ftz } => format!(
            ".{}{}",
            format!("{cc:?}").to_lowercase(),
            if *ftz { ".ftz" } else { "" }
        ),
        Op::Cvt {
            dst,
            src,
            rnd,
            sat,
            ftz,
        } => {
            let r = match rnd {
                CvtRound::None => String::new(),
                CvtRound::Float(r) => format!(".{r}"),
                CvtRound::Int(r) => format!(".{r}i"),
            };
            format!(
                "{r}{}{}.{dst}.{src}",
                if *ftz { ".ftz" } else { "" },
                if *sat { ".sat" } else { "" }
            )
        }
        Op::Cvta { space, to_generic } => {
            if *to_generic {
                format!(".{space}")
            } else {
                format!(".to.{space}")
            }
        }
        Op::Load { space, align } | Op::Store { space, align } => format!(".{space}.align{align}"),
        Op::Atom { op, space } => format!(".{space}.{}", format!("{op:?}").to_lowercase()),
        Op::AtomCas { space } => format!(".{space}"),
        Op::Atom128 { cas, space } => format!(".{space}.{}", if *cas { "cas" } else { "exch" }),
        Op::Strong128 { store, space } => {
            format!(".{space}.{}", if *store { "store" } else { "load" })
        }
        Op::Shfl { mode } => format!(".{mode}"),
        Op::Vote { mode } => format!(".{mode}"),
        Op::Match { all } => {
            if *all {
                ".all".into()
            } else {
                ".any".into()
            }
        }
        Op::Redux { op } => format!(".{op}"),
        Op::Mma { spec } => format!("{spec}"),
        Op::Wgmma { spec } => format!("{spec}"),
        Op::MBarrier { op, space } => format!(".{op}.{space}"),
        Op::Tcgen05 { op } => format!(".{op}"),
        Op::Tensor { op } => format!(".{op}"),
        Op::ClusterBarrier { op } => format!(".{op}"),
        Op::Mapa { generic } | Op::GetCtaRank { generic } => {
            if *generic {
                String::new()
            } else {
                ".shared::cluster".into()
            }
        }
        Op::BarArrive { kind, aligned } => {
            format!(".{kind}{}", if *aligned { ".aligned" } else { "" })
        }
        Op::BarResult { kind } => format!(".{kind}"),
        Op::Activemask {}
        | Op::Elect {}
        | Op::Printf {}
        | Op::AssertFail {}
        | Op::Yield {}
        | Op::Malloc {}
        | Op::Free {}
        | Op::ClcTryCancel {} => String::new(),
        Op::CallCheck { base } => format!(" base={base}"),
        Op::WarpSync { fence } => {
            if *fence {
                ".bar".into()
            } else {
                ".collective".into()
            }
        }
        Op::Tex {
            geom,
            lod,
            int_coords,
            sampler,
            opts,
        } => format!(
            ".{geom}.{lod}{}{}{opts}",
            if *int_coords { ".icoord" } else { "" },
            if *sampler { ".sampler" } else { "" }
        ),
        Op::Tld4 {
            comp,
            geom,
            sampler,
            opts,
        } => format!(
            ".{}.{geom}{}{opts}",
            ["r", "g", "b", "a"].get(*comp as usize).unwrap_or(&"?"),
            if *sampler { ".sampler" } else { "" }
        ),
        Op::Txq { attr, level } => format!("{}.{attr}", if *level { ".level" } else { "" }),
        Op::Istypep { kind } => format!(".{kind}"),
        Op::Suld {
            geom,
            clamp,
            formatted,
            vec,
        }
        | Op::Sust {
            geom,
            clamp,
            formatted,
            vec,
        } => format!(
            ".{}.{geom}.v{vec}.{clamp}",
            if *formatted { "p" } else { "b" }
        ),
        Op::Sured {
            op,
            geom,
            clamp,
            formatted,
        } => format!(
            ".{}.{}.{geom}.{clamp}",
            if *formatted { "p" } else { "b" },
            format!("{op:?}").to_lowercase()
        ),
        Op::Suq { attr } => format!(".{attr}"),
        Op::IsSpace { space } => format!(".{space}"),
        Op::AddCarry { sub } | Op::CarryOut { sub } => {
            if *sub {
                ".sub".into()
            } else {
                ".add".into()
            }
        }
        Op::IMul24 { hi, sign } => format!(".{}.{sign}", if *hi { "hi" } else { "lo" }),
        Op::Sad { sign } | Op::Bfe { sign } => format!(".{sign}"),
        Op::Bfind { sign, shiftamt } => {
            format!("{}.{sign}", if *shiftamt { ".shiftamt" } else { "" })
        }
        Op::Bmsk { clamp } => mode(*clamp).into(),
        Op::Szext { clamp, sign } => format!("{}.{sign}", mode(*clamp)),
        Op::Dp4a { sa, sb } => format!(".{sa}.{sb}"),
        Op::Dp2a { sa, sb, hi } => format!(".{}.{sa}.{sb}", if *hi { "hi" } else { "lo" }),
        Op::Lop3 { lut } => format!(" {lut:#04x}"),
        Op::Shf { left, clamp } => format!(".{}{}", if *left { "l" } else { "r" }, mode(*clamp)),
        Op::Prmt { mode } => format!(".{}", format!("{mode:?}").to_lowercase()),
        Op::FMinMax {
            max,
            ftz,
            nan,
            xorsign,
        } => format!(
            ".{}{}{}{}",
            if *max { "max" } else { "min" },
            flag(*ftz, ".ftz"),
            flag(*nan, ".NaN"),
            flag(*xorsign, ".xorsign.abs")
        ),
        Op::TestP { prop } => format!(".{prop}"),
        Op::FApprox { f, ftz } => format!(".{f}{}", flag(*ftz, ".ftz")),
        Op::HAdd { fmt, rnd, ftz, sat }
        | Op::HSub { fmt, rnd, ftz, sat }
        | Op::HMul { fmt, rnd, ftz, sat } => format!(".{fmt}{}", fl(rnd, ftz, sat)),
        Op::HFma {
            fmt,
            rnd,
            ftz,
            sat,
            relu,
            oob,
        } => format!(
            ".{fmt}{}{}{}",
            fl(rnd, ftz, sat),
            flag(*oob, ".oob"),
            flag(*relu, ".relu")
        ),
        Op::HMinMax {
            fmt,
            max,
            ftz,
            nan,
            xorsign,
        } => format!(
            ".{fmt}.{}{}{}{}",
            if *max { "max" } else { "min" },
            flag(*ftz, ".ftz"),
            flag(*nan, ".NaN"),
            flag(*xorsign, ".xorsign.abs")
        ),
        Op::HNeg { fmt, ftz } | Op::HAbs { fmt, ftz } => format!(".{fmt}{}", flag(*ftz, ".ftz")),
        Op::HCmp { fmt, cc, ftz } => format!(
            ".{fmt}.{}{}",
            format!("{cc:?}").to_lowercase(),
            flag(*ftz, ".ftz")
        ),
        Op::HApprox { fmt, f } => format!(".{fmt}.{f}"),
        Op::HRelu { fmt } => format!(".{fmt}"),
        Op::CvtNarrow { conv, relu } => format!(".{conv}{}", flag(*relu, ".relu")),
        Op::Video {
            op,
            ty,
            sat,
            asel,
            bsel,
            dsel,
            sec,
        } => {
            format!(
                ".{op:?}.{}{}{}.a{asel}.b{bsel}.d{dsel}.{sec:?}",
                ty.d, ty.a, ty.b
            )
            .to_lowercase()
                + flag(*sat, ".sat")
        }
        Op::VideoSimd {
            op,
            lanes,
            ty,
            sat,
            asel,
            bsel,
            mask,
            add,
        } => format!(
            ".{op:?}{lanes}.{}{}{}.a{asel:x}.b{bsel:x}.m{mask:b}{}{}",
            ty.d,
            ty.a,
            ty.b,
            flag(*sat, ".sat"),
            flag(*add, ".add")
        )
        .to_lowercase(),
        Op::VMad {
            ty,
            sat,
            asel,
            bsel,
            po,
            shr,
            neg_ab,
            neg_c,
        } => format!(
            ".{}{}{}.a{asel}.b{bsel}.shr{shr}{}{}{}{}",
            ty.d,
            ty.a,
            ty.b,
            flag(*po, ".po"),
            flag(*sat, ".sat"),
            flag(*neg_ab, ".negab"),
            flag(*neg_c, ".negc")
        ),
        Op::IAddSat {}
        | Op::ISubSat {}
        | Op::Fns {}
        | Op::Brev {}
        | Op::Bfi {}
        | Op::CopySign {} => String::new(),
        Op::Bitcast {}
        | Op::IAdd {}
        | Op::ISub {}
        | Op::IMul {}
        | Op::INeg {}
        | Op::IAbs {}
        | Op::And {}
        | Op::Or {}
        | Op::Xor {}
        | Op::Not {}
        | Op::Shl {}
        | Op::Popc {}
        | Op::Clz {}
        | Op::Select {}
        | Op::Fence {} => String::new(),
    }
}

/// Print one instruction without its location.
pub fn print_inst(f: &Function, i: Inst) -> String {
    let d = f.inst(i);
    let res: Vec<String> = d
        .results
        .iter()
        .map(|&v| format!("{v}:{}", f.value_type(v)))
        .collect();
    let args: Vec<String> = d.args.iter().map(|v| v.to_string()).collect();
    let lhs = if res.is_empty() {
        String::new()
    } else {
        format!("{} = ", res.join(", "))
    };
    format!(
        "{lhs}{}{} {}",
        d.op.mnemonic(),
        print_modifiers(&d.op),
        args.join(", ")
    )
    .trim_end()
    .to_string()
}
