//! The IR verifier. Engines accept only a [`VerifiedFunction`], which only [`verify`] makes.
//!
//! Checks: every operation's operand and result types ([`Op::signature`] rules), block-call
//! argument counts and types, that the entry block has no parameters, that every value is
//! defined once, and that every use is dominated by its definition (SSA).

use super::*;
use crate::analysis::cfg::Cfg;

/// A function that passed [`verify`]. Dereferences to the function.
#[derive(Debug)]
pub struct VerifiedFunction(Function);

impl std::ops::Deref for VerifiedFunction {
    type Target = Function;
    fn deref(&self) -> &Function {
        &self.0
    }
}

/// A verifier error: what is wrong, and where (instruction or block).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyError {
    pub message: String,
    pub loc: SrcLoc,
}

impl std::fmt::Display for VerifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "IR verifier: {} (PTX line {})",
            self.message, self.loc.line
        )
    }
}

impl Op {
    /// Check operand and result types of this operation. Returns a message on mismatch.
    pub fn signature(&self, args: &[Type], res: &[Type]) -> Result<(), String> {
        use Type::*;
        let n = |k: usize, r: usize| -> Result<(), String> {
            if args.len() != k || res.len() != r {
                Err(format!(
                    "expects {k} operands and {r} results, has {} and {}",
                    args.len(),
                    res.len()
                ))
            } else {
                Ok(())
            }
        };
        let same = |want: &dyn Fn(Type) -> bool| -> Result<(), String> {
            let t = res[0];
            if !want(t) || args.iter().any(|&a| a != t) {
                Err(format!("operand types {args:?} do not fit result {t}"))
            } else {
                Ok(())
            }
        };
        let addr = |a: Type| -> Result<(), String> {
            if a == I64 || a == I32 {
                Ok(())
            } else {
                Err(format!("address must be i32 or i64, is {a}"))
            }
        };
        match self {
            Op::Const { .. } | Op::SymAddr { .. } => n(0, 1),
            Op::SReg { .. } => {
                n(0, 1)?;
                (res[0] == reg_ty(self))
                    .then_some(())
                    .ok_or("sreg has the register's type".into())
            }
            Op::Bitcast {} => {
                n(1, 1)?;
                (args[0].bits() == res[0].bits() && args[0] != Pred)
                    .then_some(())
                    .ok_or(format!("bitcast {} to {}", args[0], res[0]))
            }
            Op::IAdd {}
            | Op::ISub {}
            | Op::IMul {}
            | Op::IMulHi { .. }
            | Op::IDiv { .. }
            | Op::IRem { .. }
            | Op::IMin { .. }
            | Op::IMax { .. } => {
                n(2, 1)?;
                same(&|t| t.is_int())
            }
            Op::IMulWide { .. } => {
                n(2, 1)?;
                let ok = args[0] == args[1]
                    && matches!((args[0], res[0]), (I16, I32) | (I32, I64) | (I8, I16));
                ok.then_some(())
                    .ok_or("mul.wide needs double-width result".into())
            }
            Op::INeg {} | Op::IAbs {} => {
                n(1, 1)?;
                same(&|t| t.is_int())
            }
            Op::And {} | Op::Or {} | Op::Xor {} => {
                n(2, 1)?;
                same(&|t| t.is_int() || t == Pred)
            }
            Op::Not {} => {
                n(1, 1)?;
                same(&|t| t.is_int() || t == Pred)
            }
            Op::Shl {} | Op::Shr { .. } => {
                n(2, 1)?;
                (args[0] == res[0] && res[0].is_int() && args[1] == I32)
                    .then_some(())
                    .ok_or("shift: value of result type, count i32".into())
            }
            Op::Popc {} | Op::Clz {} => {
                n(1, 1)?;
                (args[0].is_int() && res[0] == I32)
                    .then_some(())
                    .ok_or("popc/clz: integer operand, i32 result".into())
            }
            Op::FAdd { .. } | Op::FSub { .. } | Op::FMul { .. } | Op::FDiv { .. } => {
                n(2, 1)?;
                same(&|t| t.is_float())
            }
            Op::FFma { .. } => {
                n(3, 1)?;
                same(&|t| t.is_float())
            }
            Op::FNeg { .. } | Op::FAbs { .. } | Op::FSqrt { .. } | Op::FRcp { .. } => {
                n(1, 1)?;
                same(&|t| t.is_float())
            }
            Op::ICmp { .. } => {
                n(2, 1)?;
                (args[0] == args[1] && args[0].is_int() && res[0] == Pred)
                    .then_some(())
                    .ok_or("icmp: two integers of one type → pred".into())
            }
            Op::FCmp { .. } => {
                n(2, 1)?;
                (args[0] == args[1] && args[0].is_float() && res[0] == Pred)
                    .then_some(())
                    .ok_or("fcmp: two floats of one type → pred".into())
            }
            Op::Select {} => {
                n(3, 1)?;
                (args[0] == res[0] && args[1] == res[0] && args[2] == Pred)
                    .then_some(())
                    .ok_or("select: (a, b, pred) with a, b of the result type".into())
            }
            Op::Cvt { dst, src, .. } => {
                n(1, 1)?;
                (args[0] == src.ir() && res[0] == dst.ir())
                    .then_some(())
                    .ok_or(format!("cvt.{dst}.{src} on {} → {}", args[0], res[0]))
            }
            Op::CvtNarrow { conv, .. } => {
                use crate::ir::NarrowCvt::*;
                let pair: [Type; 1];
                let scaled: [Type; 2];
                let (want_args, want_res): (&[Type], Type) = match conv {
                    ToMiniX2(f) => (&[F32, F32], f.pair_ty()),
                    FromMiniX2(f) => {
                        pair = [f.pair_ty()];
                        (&pair, I32)
                    }
                    ToUe8m0x2 { .. } => (&[F32, F32], I16),
                    FromUe8m0x2 => (&[I16], I32),
                    ToTf32(..) => (&[F32], I32),
                    SatFinite(_) => (&[I16], I16),
                    HalfX2Rs { .. } => (&[F32, F32, I32], I32),
                    MiniX2Rs { fmt, .. } => (&[F32, F32, I32], fmt.pair_ty()),
                    FromMiniX2Bf16 { fmt, .. } => {
                        scaled = [fmt.pair_ty(), I16];
                        (&scaled, I32)
                    }
                    ToS2f6x2 => (&[F32, F32, I16], I16),
                    FromS2f6x2 { .. } => (&[I16, I16], I32),
                };
                n(want_args.len(), 1)?;
                (args == want_args && res[0] == want_res)
                    .then_some(())
                    .ok_or(format!("cvt.{conv}: {args:?} → {}", res[0]))
            }
            Op::Cvta { .. } => {
                n(1, 1)?;
                (args[0].is_int() && args[0] == res[0] && args[0].bits() >= 32)
                    .then_some(())
                    .ok_or("cvta: i32 or i64 in and out".into())
            }
            Op::IsSpace { .. } => {
                n(1, 1)?;
                (args[0] == I64 && res[0] == Pred)
                    .then_some(())
                    .ok_or("isspacep: i64 → pred".into())
            }
            Op::Fence {} => n(0, 0),
            Op::Load { .. } => {
                n(1, 1)?;
                addr(args[0])?;
                (res[0] != Pred)
                    .then_some(())
                    .ok_or("ld of a predicate".into())
            }
            Op::Store { .. } => {
                n(2, 0)?;
                addr(args[0])?;
                (args[1] != Pred)
                    .then_some(())
                    .ok_or("st of a predicate".into())
            }
            Op::Atom { op, .. } => {
                n(2, 1)?;
                addr(args[0])?;
                let t = res[0];
                let ok = args[1] == t
                    && match op {
                        AtomOp::FAdd => t == F32 || t == F64,
                        AtomOp::Inc | AtomOp::Dec => t == I32,
                        AtomOp::HAdd { pair, .. } | AtomOp::HMinMax { pair, .. } => {
                            t == if *pair { I32 } else { I16 }
                        }
                        _ => t == I32 || t == I64,
                    };
                ok.then_some(()).ok_or(format!("atom {op:?} on {t}"))
            }
            Op::AtomCas { .. } => {
                n(3, 1)?;
                addr(args[0])?;
                (args[1] == res[0] && args[2] == res[0] && res[0].is_int() && res[0].bits() >= 16)
                    .then_some(())
                    .ok_or("atom.cas: (addr, cmp, new) of b16/b32/b64".into())
            }
            Op::Atom128 { cas, .. } => {
                let halves = if *cas { 4 } else { 2 };
                n(1 + halves, 2)?;
                addr(args[0])?;
                (args[1..].iter().all(|&t| t == I64) && res == [I64, I64])
                    .then_some(())
                    .ok_or("atom.b128: (addr, i64 halves of b[, c]) → (i64, i64)".into())
            }
            Op::Strong128 { store, .. } => {
                if *store {
                    n(3, 0)?;
                } else {
                    n(1, 2)?;
                }
                addr(args[0])?;
                (args[1..].iter().chain(res.iter()).all(|&t| t == I64))
                    .then_some(())
                    .ok_or("strong 16-byte access: (addr[, low, high]) → [(low, high)]".into())
            }
            Op::IAddSat {} | Op::ISubSat {} => {
                n(2, 1)?;
                same(&|t| t == I32)
            }
            Op::AddCarry { .. } | Op::CarryOut { .. } => {
                n(3, 1)?;
                let t = args[0];
                let want = if matches!(self, Op::AddCarry { .. }) {
                    t
                } else {
                    Pred
                };
                (args[1] == t && args[2] == Pred && (t == I32 || t == I64) && res[0] == want)
                    .then_some(())
                    .ok_or("add with carry: (a, b, cf: pred) on i32/i64".into())
            }
            Op::IMul24 { .. } => {
                n(2, 1)?;
                same(&|t| t == I32)
            }
            Op::Sad { .. } => {
                n(3, 1)?;
                same(&|t| t.is_int())
            }
            Op::Bfind { .. } => {
                n(1, 1)?;
                ((args[0] == I32 || args[0] == I64) && res[0] == I32)
                    .then_some(())
                    .ok_or("bfind: i32/i64 → i32".into())
            }
            Op::Fns {} | Op::Dp4a { .. } | Op::Dp2a { .. } | Op::Shf { .. } | Op::Prmt { .. } => {
                n(3, 1)?;
                same(&|t| t == I32)
            }
            Op::Brev {} => {
                n(1, 1)?;
                same(&|t| t == I32 || t == I64)
            }
            Op::Bfe { .. } => {
                n(3, 1)?;
                ((res[0] == I32 || res[0] == I64)
                    && args[0] == res[0]
                    && args[1] == I32
                    && args[2] == I32)
                    .then_some(())
                    .ok_or("bfe: (a, pos: i32, len: i32) on i32/i64".into())
            }
            Op::Bfi {} => {
                n(3, 1)?;
                ((res[0] == I32 || res[0] == I64)
                    && args[0] == res[0]
                    && args[1] == res[0]
                    && args[2] == I32)
                    .then_some(())
                    .ok_or("bfi: (a, b, poslen: i32) on i32/i64".into())
            }
            Op::Bmsk { .. } | Op::Szext { .. } => {
                n(2, 1)?;
                same(&|t| t == I32)
            }
            Op::Lop3 { .. } => {
                n(3, 1)?;
                same(&|t| t == I32 || t == I64)
            }
            Op::FMinMax { .. } | Op::CopySign {} => {
                n(2, 1)?;
                same(&|t| t.is_float())
            }
            Op::TestP { .. } => {
                n(1, 1)?;
                (args[0].is_float() && res[0] == Pred)
                    .then_some(())
                    .ok_or("testp: float → pred".into())
            }
            Op::FApprox { .. } => {
                n(1, 1)?;
                same(&|t| t.is_float())
            }
            Op::HAdd { .. } | Op::HSub { .. } | Op::HMul { .. } | Op::HMinMax { .. } => {
                n(2, 1)?;
                same(&|t| t == I16)
            }
            Op::HFma { .. } => {
                n(3, 1)?;
                same(&|t| t == I16)
            }
            Op::HNeg { .. } | Op::HAbs { .. } | Op::HApprox { .. } | Op::HRelu { .. } => {
                n(1, 1)?;
                same(&|t| t == I16)
            }
            Op::Video { .. } | Op::VideoSimd { .. } | Op::VMad { .. } => {
                n(3, 1)?;
                same(&|t| t == I32)
            }
            Op::HCmp { .. } => {
                n(2, 1)?;
                (args[0] == I16 && args[1] == I16 && res[0] == Pred)
                    .then_some(())
                    .ok_or("hcmp: two halves (i16) → pred".into())
            }
            Op::Shfl { .. } => {
                n(4, 2)?;
                (args[0] == I32
                    && args[1] == I32
                    && args[2] == I32
                    && args[3] == I32
                    && res[0] == I32
                    && res[1] == Pred)
                    .then_some(())
                    .ok_or("shfl: (i32 value, i32 b, i32 c, i32 mask) → (i32, pred)".into())
            }
            Op::Vote { mode } => {
                n(2, 1)?;
                let want = if *mode == crate::ir::VoteMode::Ballot {
                    I32
                } else {
                    Pred
                };
                (args[0] == Pred && args[1] == I32 && res[0] == want)
                    .then_some(())
                    .ok_or("vote: (pred, i32 mask) → pred (ballot: i32)".into())
            }
            Op::Mma { spec } => {
                let (na, ta) = spec.regs(crate::ir::MmaFrag::A, false);
                let (nb, tb) = spec.regs(crate::ir::MmaFrag::B, false);
                let (nc, tc) = spec.regs(crate::ir::MmaFrag::C, false);
                let (nd, td) = spec.regs(crate::ir::MmaFrag::C, true);
                let mut want = vec![ta; na as usize];
                want.extend(std::iter::repeat_n(tb, nb as usize));
                want.extend(std::iter::repeat_n(tc, nc as usize));
                if spec.sparse.is_some() {
                    want.push(Type::I32);
                }
                if spec.scale.is_some() {
                    // scale-a-data, byte-id-a, thread-id-a and the same for B.
                    want.extend([Type::I32; 6]);
                }
                let want_res = vec![td; nd as usize];
                if args != want.as_slice() || res != want_res.as_slice() {
                    return Err(format!(
                        "mma{spec}: operands {args:?} → {res:?}, expected {want:?} → {want_res:?}"
                    ));
                }
                Ok(())
            }
            Op::Wgmma { spec } => {
                let want = spec.operand_types();
                let (nd, td) = spec.d_regs();
                let want_res = vec![td; nd as usize];
                if args != want.as_slice() || res != want_res.as_slice() {
                    return Err(format!(
                        "wgmma{spec}: operands {args:?} → {res:?}, expected {want:?} → {want_res:?}"
                    ));
                }
                Ok(())
            }
            Op::Tensor { op } => {
                use crate::ir::{LoadMode, TensorOp};
                let d = op.dims();
                let c = op.coords();
                let k = op.offsets();
                let coords = |from: usize| args[from..from + c].iter().all(|t| *t == I32);
                let offs = |from: usize| args[from..from + k].iter().all(|t| *t == I32);
                // im2col needs a 3d..5d tensor, the four-row modes a 2d one.
                let mode_ok = match op.load_mode() {
                    Some(LoadMode::Im2col | LoadMode::Im2colW | LoadMode::Im2colW128) => {
                        (3..=5).contains(&d)
                    }
                    Some(LoadMode::Gather4) => d == 2,
                    Some(LoadMode::Tile) => true,
                    None if op.im2col_store() => (3..=5).contains(&d) && !op.four_rows(),
                    None => !op.four_rows() || d == 2,
                };
                let ok = mode_ok
                    && match op {
                        TensorOp::Load { .. } => {
                            n(c + 3 + k, 0)?;
                            args[0] == I64
                                && args[1] == I64
                                && coords(2)
                                && args[c + 2] == I64
                                && offs(c + 3)
                        }
                        TensorOp::Store { .. } | TensorOp::Reduce { .. } => {
                            n(c + 2, 0)?;
                            args[0] == I64 && coords(1) && args[c + 1] == I64
                        }
                        TensorOp::Prefetch { .. } => {
                            n(c + 1 + k, 0)?;
                            args[0] == I64 && coords(1) && offs(c + 1)
                        }
                        TensorOp::Replace { space, .. } => {
                            n(3, 0)?;
                            matches!(space, Space::Global | Space::Shared | Space::Generic)
                                && args == [I64, I32, I64]
                        }
                    };
                let dims_ok = matches!(op, TensorOp::Replace { .. }) || (1..=5).contains(&d);
                (ok && dims_ok)
                    .then_some(())
                    .ok_or(format!("tensor.{op}: bad operand types {args:?} → {res:?}"))
            }
            Op::MBarrier { op, space } => {
                use crate::ir::MbarOp;
                if !matches!(space, Space::Shared | Space::Generic) {
                    return Err(format!(
                        "mbarrier: the object is in shared memory, not {space}"
                    ));
                }
                let addr = args.first().is_some_and(|t| *t == I32 || *t == I64);
                let ok = match op {
                    MbarOp::Init | MbarOp::ExpectTx | MbarOp::CompleteTx => {
                        n(2, 0)?;
                        addr && args[1] == I32
                    }
                    MbarOp::Inval | MbarOp::CpAsyncArrive { .. } => {
                        n(1, 0)?;
                        addr
                    }
                    MbarOp::Arrive { .. } => {
                        n(3, 1)?;
                        addr && args[1] == I32 && args[2] == I32 && res[0] == I64
                    }
                    MbarOp::Wait { parity, .. } => {
                        n(2, 1)?;
                        let tok = if *parity { I32 } else { I64 };
                        addr && args[1] == tok && res[0] == Pred
                    }
                    MbarOp::PendingCount => {
                        n(1, 1)?;
                        args[0] == I64 && res[0] == I32
                    }
                };
                ok.then_some(()).ok_or(format!(
                    "mbarrier.{op}: bad operand types {args:?} → {res:?}"
                ))
            }
            Op::Tcgen05 { op } => {
                use crate::ir::Tc05Op;
                let r = op.regs() as usize;
                let (want, want_res): (Vec<Type>, Vec<Type>) = match op {
                    Tc05Op::Alloc { pair, .. } => {
                        let addr = if args.first() == Some(&I64) { I64 } else { I32 };
                        (vec![addr, I32], if *pair { vec![Pred] } else { vec![] })
                    }
                    Tc05Op::Dealloc { pair } => {
                        (vec![I32, I32], if *pair { vec![Pred] } else { vec![] })
                    }
                    Tc05Op::Relinquish { .. } => (vec![], vec![]),
                    Tc05Op::Ld { red, .. } => {
                        (vec![I32], vec![I32; r + usize::from(red.is_some())])
                    }
                    Tc05Op::St { .. } => {
                        let mut v = vec![I32];
                        v.extend(std::iter::repeat_n(I32, r));
                        (v, vec![])
                    }
                    Tc05Op::Mma {
                        a_tmem,
                        sparse,
                        mask,
                        scale_vec,
                        pair,
                        ..
                    } => {
                        let mut v = vec![I32, if *a_tmem { I32 } else { I64 }, I64, I32, Pred];
                        if *sparse {
                            v.push(I32);
                        }
                        if *mask {
                            v.extend(if *pair { &[I32; 8][..] } else { &[I32; 4][..] });
                        }
                        if *scale_vec != 0 {
                            v.extend([I32; 2]);
                        }
                        (v, vec![])
                    }
                    Tc05Op::MmaWs {
                        a_tmem,
                        sparse,
                        zero_mask,
                        ..
                    } => {
                        let mut v = vec![I32, if *a_tmem { I32 } else { I64 }, I64, I32, Pred];
                        if *sparse {
                            v.push(I32);
                        }
                        if *zero_mask {
                            v.push(I64);
                        }
                        (v, vec![])
                    }
                    Tc05Op::Cp { .. } => (vec![I32, I64], vec![]),
                    Tc05Op::Shift { .. } => (vec![I32], vec![]),
                };
                if args != want.as_slice() || res != want_res.as_slice() {
                    return Err(format!(
                        "tcgen05.{op}: operands {args:?} → {res:?}, expected {want:?} → {want_res:?}"
                    ));
                }
                Ok(())
            }
            Op::ClusterBarrier { op } => match op {
                crate::ir::ClusterBarOp::Arrive => n(0, 0),
                crate::ir::ClusterBarOp::Wait => {
                    n(0, 1)?;
                    (res[0] == Pred)
                        .then_some(())
                        .ok_or("barrier.cluster.wait → pred".into())
                }
            },
            Op::Mapa { .. } => {
                n(2, 1)?;
                addr(args[0])?;
                (args[1] == I32 && res[0] == args[0])
                    .then_some(())
                    .ok_or("mapa: (address, i32 rank) → address of the same type".into())
            }
            Op::GetCtaRank { .. } => {
                n(1, 1)?;
                addr(args[0])?;
                (res[0] == I32)
                    .then_some(())
                    .ok_or("getctarank: (address) → i32".into())
            }
            Op::ClcTryCancel {} => {
                n(0, 2)?;
                (res == [I64, I64])
                    .then_some(())
                    .ok_or("clc.try_cancel → (i64, i64)".into())
            }
            Op::Activemask {} => {
                n(0, 1)?;
                (res[0] == I32)
                    .then_some(())
                    .ok_or("activemask → i32".into())
            }
            Op::Match { .. } => {
                n(2, 2)?;
                ((args[0] == I32 || args[0] == I64)
                    && args[1] == I32
                    && res[0] == I32
                    && res[1] == Pred)
                    .then_some(())
                    .ok_or("match: (i32|i64 value, i32 mask) → (i32, pred)".into())
            }
            Op::Redux { op } => {
                n(2, 1)?;
                let t = if op.is_float() { F32 } else { I32 };
                (args[0] == t && args[1] == I32 && res[0] == t)
                    .then_some(())
                    .ok_or("redux: (i32 value, i32 mask) → i32 (f32 for min/max.f32)".into())
            }
            Op::Elect {} => {
                n(1, 2)?;
                (args[0] == I32 && res[0] == I32 && res[1] == Pred)
                    .then_some(())
                    .ok_or("elect: (i32 mask) → (i32, pred)".into())
            }
            Op::BarArrive { .. } => {
                n(3, 0)?;
                (args[0] == I32 && args[1] == I32 && args[2] == Pred)
                    .then_some(())
                    .ok_or("barrier: (i32 id, i32 count, pred)".into())
            }
            Op::BarResult { kind } => {
                n(0, 1)?;
                let want = if *kind == crate::ir::BarKind::RedPopc {
                    I32
                } else {
                    Pred
                };
                (res[0] == want)
                    .then_some(())
                    .ok_or("barrier.result: i32 (popc) or pred".into())
            }
            Op::Printf {} => {
                n(2, 1)?;
                (args[0] == I64 && args[1] == I64 && res[0] == I32)
                    .then_some(())
                    .ok_or("printf: (i64 format, i64 arguments) → i32".into())
            }
            Op::Malloc {} => {
                n(2, 1)?;
                (args == [I64, I64] && res[0] == I64)
                    .then_some(())
                    .ok_or("malloc: (i64 size, i64 align) → i64".into())
            }
            Op::Free {} => {
                n(1, 0)?;
                (args[0] == I64)
                    .then_some(())
                    .ok_or("free: (i64 pointer)".into())
            }
            Op::Yield {} => {
                n(0, 1)?;
                (res[0] == Pred)
                    .then_some(())
                    .ok_or("yield: () → pred".into())
            }
            Op::AssertFail {} => {
                n(4, 0)?;
                (args == [I64, I64, I32, I64])
                    .then_some(())
                    .ok_or("assertfail: (i64 message, i64 file, i32 line, i64 function)".into())
            }
            Op::Tex { .. }
            | Op::Tld4 { .. }
            | Op::Txq { .. }
            | Op::Istypep { .. }
            | Op::Suld { .. }
            | Op::Sust { .. }
            | Op::Sured { .. }
            | Op::Suq { .. } => {
                let (want_args, want_res) = texture_signature(self, args, res)?;
                if args != want_args.as_slice() || res != want_res.as_slice() {
                    return Err(format!(
                        "{}: operands {args:?} → {res:?}, expected {want_args:?} → {want_res:?}",
                        self.mnemonic()
                    ));
                }
                Ok(())
            }
            Op::CallCheck { .. } => {
                n(4, 1)?;
                (args[0] == I64
                    && args[1] == I32
                    && args[2] == I64
                    && args[3] == I32
                    && res[0] == Pred)
                    .then_some(())
                    .ok_or("callcheck: (i64 top, i32 depth, i64 pointer, i32 state) → pred".into())
            }
            Op::WarpSync { .. } => {
                n(1, 1)?;
                (args[0] == I32 && res[0] == Pred)
                    .then_some(())
                    .ok_or("warpsync: (i32 mask) → pred".into())
            }
        }
    }
}

/// The texel offsets (`n` i32) and depth-compare value (f32) of a `tex`/`tld4`.
fn tex_extras(a: &mut Vec<Type>, opts: crate::ir::TexOpts, n: usize) {
    if opts.offset {
        a.extend(std::iter::repeat_n(Type::I32, n));
    }
    if opts.compare {
        a.push(Type::F32);
    }
}

/// The operand and result types a texture or surface operation must have (see the op table):
/// the result element types are taken from `res[0]` (and the stored values' from the last
/// argument) where the op allows several.
fn texture_signature(
    op: &Op,
    args: &[Type],
    res: &[Type],
) -> Result<(Vec<Type>, Vec<Type>), String> {
    use Type::*;
    let elem = |t: Option<&Type>| t.copied().unwrap_or(I32);
    Ok(match *op {
        Op::Tex {
            geom,
            lod,
            int_coords,
            sampler,
            opts,
        } => {
            let mut a = vec![I64];
            if sampler {
                a.push(I64);
            }
            if geom.arrayed() {
                a.push(I32);
            }
            if geom.multisample() {
                a.push(I32);
            }
            let n = geom.dims() as usize;
            a.extend(std::iter::repeat_n(if int_coords { I32 } else { F32 }, n));
            match lod {
                crate::ir::TexLod::Base => {}
                // A level index with integer coordinates, a fractional level otherwise.
                crate::ir::TexLod::Level => a.push(if int_coords { I32 } else { F32 }),
                crate::ir::TexLod::Grad => a.extend(std::iter::repeat_n(F32, 2 * n)),
            }
            tex_extras(&mut a, opts, n);
            if opts.f16x2 && opts.f16 {
                return Err("tex results are .f16x2 or .f16, not both".into());
            }
            if opts.f16x2 {
                (a, vec![I32; 2])
            } else if opts.f16 {
                (a, vec![I16; 4])
            } else {
                let r = elem(res.first());
                if r != F32 && r != I32 {
                    return Err("tex results are f32 or i32".into());
                }
                (a, vec![r; 4])
            }
        }
        Op::Tld4 {
            geom,
            sampler,
            opts,
            ..
        } => {
            let mut a = vec![I64];
            if sampler {
                a.push(I64);
            }
            if geom.arrayed() {
                a.push(I32);
            }
            let n = geom.dims() as usize;
            a.extend(std::iter::repeat_n(F32, n));
            tex_extras(&mut a, opts, n);
            let r = elem(res.first());
            if r != F32 && r != I32 || opts.f16x2 || opts.f16 {
                return Err("tld4 results are f32 or i32".into());
            }
            (a, vec![r; 4])
        }
        Op::Txq { level, .. } => {
            let mut a = vec![I64];
            if level {
                a.push(I32);
            }
            (a, vec![I32])
        }
        Op::Istypep { .. } => (vec![I64], vec![Pred]),
        Op::Suq { .. } => (vec![I64], vec![I32]),
        Op::Suld { geom, vec, .. } => {
            let mut a = vec![I64];
            a.extend(std::iter::repeat_n(
                I32,
                geom.arrayed() as usize + geom.dims() as usize,
            ));
            let r = elem(res.first());
            if r == Pred || r == F64 {
                return Err("suld results are integers or f32".into());
            }
            (a, vec![r; vec as usize])
        }
        Op::Sust { geom, vec, .. } => {
            let mut a = vec![I64];
            a.extend(std::iter::repeat_n(
                I32,
                geom.arrayed() as usize + geom.dims() as usize,
            ));
            let v = elem(args.last());
            if v == Pred || v == F64 {
                return Err("sust values are integers or f32".into());
            }
            a.extend(std::iter::repeat_n(v, vec as usize));
            (a, vec![])
        }
        Op::Sured { geom, .. } => {
            let mut a = vec![I64];
            a.extend(std::iter::repeat_n(
                I32,
                geom.arrayed() as usize + geom.dims() as usize,
            ));
            let v = elem(args.last());
            if !matches!(v, I32 | I64 | F32) {
                return Err("sured values are i32, i64 or f32".into());
            }
            a.push(v);
            (a, vec![])
        }
        _ => return Err(format!("internal: {} is not a texture op", op.mnemonic())),
    })
}

/// Verify a function; on success it becomes a [`VerifiedFunction`].
pub fn verify(f: Function) -> Result<VerifiedFunction, VerifyError> {
    check(&f)?;
    Ok(VerifiedFunction(f))
}

/// The result type of an `Op::SReg`.
fn reg_ty(op: &Op) -> Type {
    match op {
        Op::SReg { reg } => reg.ty(),
        _ => Type::I32,
    }
}

fn err<T>(message: String, loc: SrcLoc) -> Result<T, VerifyError> {
    Err(VerifyError { message, loc })
}

fn check(f: &Function) -> Result<(), VerifyError> {
    let nb = f.blocks.len();
    if f.entry.index() >= nb {
        return err("entry block out of range".into(), SrcLoc::default());
    }
    if !f.block(f.entry).params.is_empty() {
        return err("entry block has parameters".into(), SrcLoc::default());
    }
    let nv = f.values.len();
    // Each instruction appears in exactly one block.
    let mut inst_block = vec![None; f.insts.len()];
    // Position of each instruction in its block (so dominance checks stay linear).
    let mut inst_pos = vec![0usize; f.insts.len()];
    for (bi, b) in f.blocks.iter().enumerate() {
        for (k, &i) in b.insts.iter().enumerate() {
            if i.index() >= f.insts.len() || inst_block[i.index()].is_some() {
                return err(
                    format!("{i} placed twice or out of range"),
                    SrcLoc::default(),
                );
            }
            inst_block[i.index()] = Some(bi);
            inst_pos[i.index()] = k;
        }
    }
    for (ii, d) in f.insts.iter().enumerate() {
        let loc = f.inst_locs.get(ii).copied().unwrap_or_default();
        for &v in d.args.iter().chain(&d.results) {
            if v.index() >= nv {
                return err(format!("i{ii}: value {v} out of range"), loc);
            }
        }
        for (n, &r) in d.results.iter().enumerate() {
            if f.values[r.index()].def != ValueDef::Result(Inst(ii as u32), n as u8) {
                return err(format!("i{ii}: result {r} has another definition"), loc);
            }
        }
        let at: Vec<Type> = d.args.iter().map(|&v| f.value_type(v)).collect();
        let rt: Vec<Type> = d.results.iter().map(|&v| f.value_type(v)).collect();
        if let Err(m) = d.op.signature(&at, &rt) {
            return err(
                format!(
                    "i{ii} {}: {m}",
                    crate::ir::print::print_inst(f, Inst(ii as u32))
                ),
                loc,
            );
        }
    }
    for (bi, b) in f.blocks.iter().enumerate() {
        for (n, &p) in b.params.iter().enumerate() {
            if p.index() >= nv
                || f.values[p.index()].def != ValueDef::Param(Block(bi as u32), n as u16)
            {
                return err(format!("block{bi}: bad parameter {p}"), b.term_loc);
            }
        }
        if let Terminator::Branch { cond, .. } = &b.term {
            if cond.index() >= nv || f.value_type(*cond) != Type::Pred {
                return err(
                    format!("block{bi}: branch condition is not a predicate"),
                    b.term_loc,
                );
            }
        }
        for c in b.term.targets() {
            if c.block.index() >= nb {
                return err(
                    format!("block{bi}: branch to missing {}", c.block),
                    b.term_loc,
                );
            }
            let tp = &f.block(c.block).params;
            if tp.len() != c.args.len() {
                return err(
                    format!(
                        "block{bi}: {} takes {} arguments, given {}",
                        c.block,
                        tp.len(),
                        c.args.len()
                    ),
                    b.term_loc,
                );
            }
            for (&a, &p) in c.args.iter().zip(tp) {
                if a.index() >= nv || f.value_type(a) != f.value_type(p) {
                    return err(
                        format!("block{bi}: argument {a} does not match {p} of {}", c.block),
                        b.term_loc,
                    );
                }
            }
        }
    }
    // SSA dominance: a use in block B at position k is dominated by its definition.
    let cfg = Cfg::new(f);
    let def_pos = |v: Value| -> (usize, usize) {
        match f.values[v.index()].def {
            ValueDef::Param(b, _) => (b.index(), 0),
            ValueDef::Result(i, _) => {
                let b = inst_block[i.index()].unwrap_or(usize::MAX);
                let pos = if b == usize::MAX {
                    0
                } else {
                    inst_pos[i.index()] + 1
                };
                (b, pos)
            }
        }
    };
    let dominated = |v: Value, b: usize, pos: usize| -> bool {
        let (db, dp) = def_pos(v);
        if db == usize::MAX {
            return false;
        }
        if db == b {
            dp <= pos
        } else {
            cfg.dominates(Block(db as u32), Block(b as u32))
        }
    };
    for (bi, b) in f.blocks.iter().enumerate() {
        if !cfg.reachable(Block(bi as u32)) {
            continue;
        }
        for (k, &i) in b.insts.iter().enumerate() {
            for &a in &f.inst(i).args {
                if !dominated(a, bi, k) {
                    return err(
                        format!("{a} used in block{bi} by {i} is not dominated by its definition"),
                        f.inst_locs[i.index()],
                    );
                }
            }
        }
        let end = b.insts.len();
        let mut used: Vec<Value> = vec![];
        if let Terminator::Branch { cond, .. } = &b.term {
            used.push(*cond);
        }
        for c in b.term.targets() {
            used.extend(&c.args);
        }
        for a in used {
            if !dominated(a, bi, end) {
                return err(
                    format!("{a} used by the terminator of block{bi} is not dominated by its definition"),
                    b.term_loc,
                );
            }
        }
    }
    Ok(())
}
