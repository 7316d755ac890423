//! Scalar code for one lane: every operation's CLIF (inline where it is trivially the same as
//! `runtime::semantics`, a call to the shared semantics otherwise), memory access with inline
//! bounds checks, special registers and conversions. The SIMD code of `vector.rs` uses it for
//! the lanes of operations it does not vectorize.

use super::codegen::{ctype, EnvField, Gen, TRUSTED};
use super::helpers::{self, PureDesc};
use crate::ir::{self, Op};
use crate::runtime::env::CtaEnv;
use crate::runtime::memory::GLOBAL_BASE;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, MemFlagsData, Value};
use std::mem::offset_of;

impl Gen<'_, '_> {
    pub(super) fn ty(&self, v: ir::Value) -> ir::Type {
        self.f.value_type(v)
    }

    /// An address operand as `i64` (32-bit addresses are zero-extended).
    pub(super) fn addr64(&mut self, x: Value, v: ir::Value) -> Value {
        if self.ty(v) == ir::Type::I32 {
            self.b.ins().uextend(types::I64, x)
        } else {
            x
        }
    }

    pub(super) fn bits_of(&mut self, x: Value, t: ir::Type) -> Value {
        match t {
            ir::Type::I64 => x,
            ir::Type::F64 => self.b.ins().bitcast(types::I64, MemFlagsData::new(), x),
            ir::Type::F32 => {
                let i = self.b.ins().bitcast(types::I32, MemFlagsData::new(), x);
                self.b.ins().uextend(types::I64, i)
            }
            _ => self.b.ins().uextend(types::I64, x),
        }
    }

    pub(super) fn of_bits(&mut self, x: Value, t: ir::Type) -> Value {
        match t {
            ir::Type::I64 => x,
            ir::Type::F64 => self.b.ins().bitcast(types::F64, MemFlagsData::new(), x),
            ir::Type::F32 => {
                let i = self.b.ins().ireduce(types::I32, x);
                self.b.ins().bitcast(types::F32, MemFlagsData::new(), i)
            }
            _ => self.b.ins().ireduce(ctype(t), x),
        }
    }

    /// Replace a NaN result by PTX's canonical NaN.
    pub(super) fn canon(&mut self, x: Value, t: ir::Type) -> Value {
        let uno = self.b.ins().fcmp(FloatCC::Unordered, x, x);
        let c = match t {
            ir::Type::F32 => self
                .b
                .ins()
                .f32const(f32::from_bits(crate::runtime::semantics::F32_CANONICAL_NAN)),
            _ => self
                .b
                .ins()
                .f64const(f64::from_bits(crate::runtime::semantics::F64_CANONICAL_NAN)),
        };
        self.b.ins().select(uno, c, x)
    }

    pub(super) fn fn_ptr(&mut self, f: usize) -> Value {
        self.b.ins().iconst(self.ptr, f as i64)
    }

    /// Evaluate a pure op through `semantics::eval_pure` (the shared definition).
    fn call_pure(&mut self, i: ir::Inst, argv: &[Value]) -> Result<Value, String> {
        let d = self.f.inst(i).clone();
        let arg_tys: Vec<ir::Type> = d.args.iter().map(|&a| self.ty(a)).collect();
        let res_ty = self.ty(d.results[0]);
        let desc = Box::new(PureDesc {
            op: d.op,
            arg_tys: arg_tys.clone(),
            res_ty,
        });
        let dp = &*desc as *const PureDesc as usize;
        self.data.pure.push(desc);
        let mut args = vec![self.fn_ptr(dp)];
        for k in 0..3 {
            let v = match (d.args.get(k), arg_tys.get(k)) {
                (Some(_), Some(&t)) => {
                    let x = argv.get(k).copied().ok_or("missing operand")?;
                    self.bits_of(x, t)
                }
                _ => self.iconst(types::I64, 0),
            };
            args.push(v);
        }
        let callee = self.fn_ptr(helpers::pure_helper as *const () as usize);
        let call = self.b.ins().call_indirect(self.sig_pure, callee, &args);
        let r = self.b.inst_results(call)[0];
        Ok(self.of_bits(r, res_ty))
    }

    /// The inline window of `space` for code that translates device addresses itself:
    /// (host base, window size in bytes, the device address the window starts at), or
    /// `None` where every access goes through `helpers::access_helper`. Global and const
    /// memory (const banks live in the global arena) from `GLOBAL_BASE`; the CTA's shared
    /// memory from 0 unless racecheck must see each access; the parameter buffer from 0;
    /// local and generic addresses have no inline window. Used by the per-lane translation
    /// ([`Gen::access_ptr`]), the group accesses and atomics, and the affine and group
    /// range tests.
    pub(super) fn window(&mut self, space: ir::Space) -> Option<(Value, Value, i64)> {
        match space {
            ir::Space::Global | ir::Space::Const => Some((
                self.env_val(EnvField::GlobalBase),
                self.env_val(EnvField::GlobalTop),
                GLOBAL_BASE as i64,
            )),
            ir::Space::Shared if !self.racecheck => Some((
                self.env_val(EnvField::SharedBase),
                self.env_val(EnvField::SharedSize),
                0,
            )),
            ir::Space::Param => Some((
                self.env_val(EnvField::ParamBase),
                self.env_val(EnvField::ParamSize),
                0,
            )),
            ir::Space::Shared | ir::Space::Local | ir::Space::Generic => None,
        }
    }

    /// [`Gen::window`] of a space the affine and group planners chose (global, const, or
    /// shared without racecheck); any other space is an internal error.
    pub(super) fn strided_window(
        &mut self,
        space: ir::Space,
    ) -> Result<(Value, Value, i64), String> {
        self.window(space)
            .ok_or_else(|| format!("internal: a lane-strided access to {space} memory"))
    }

    /// Whether `size` bytes at offset `off` lie inside a window of `limit` bytes and `addr`
    /// is a multiple of `align` (an `i8` condition): the inline test of [`Gen::access_ptr`]
    /// and of the parameter loads computed before the warp loop (`preloop.rs`).
    pub(super) fn in_window(
        &mut self,
        off: Value,
        limit: Value,
        addr: Value,
        size: u32,
        align: u32,
    ) -> Value {
        let lt = self.b.ins().icmp(IntCC::UnsignedLessThan, off, limit);
        let room = self.b.ins().isub(limit, off);
        let fits =
            self.b
                .ins()
                .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, room, i64::from(size));
        let mut ok = self.b.ins().band(lt, fits);
        if align > 1 {
            let low = self.b.ins().band_imm_s(addr, i64::from(align) - 1);
            let al = self.b.ins().icmp_imm_s(IntCC::Equal, low, 0);
            ok = self.b.ins().band(ok, al);
        }
        ok
    }

    /// A host pointer for one lane's access (or, in the scalar section, the warp's: see
    /// [`Gen::uniform_mask`](super::codegen::Gen)): inline bounds check for
    /// global/shared/param, `access_helper` otherwise (which records faults and returns the
    /// scratch area). `atomic`: 0, or `helpers::ACCESS_ATOMIC` (and `ACCESS_EXCH`) for an
    /// atomic's address, which initcheck treats as a read (`runtime::initcheck`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn access_ptr(
        &mut self,
        lane: Value,
        inst: ir::Inst,
        space: ir::Space,
        addr: Value,
        size: u32,
        align: u32,
        write: bool,
        atomic: u32,
    ) -> Value {
        let merge = self.b.create_block();
        self.b.append_block_param(merge, self.ptr);
        let slow = self.b.create_block();
        if let Some((base, limit, bias)) = self.window(space) {
            let off = if bias == 0 {
                addr
            } else {
                self.b.ins().iadd_imm_s(addr, -bias)
            };
            // ok = in bounds and aligned [&& !memcheck for global]
            let mut ok = self.in_window(off, limit, addr, size, align);
            if matches!(space, ir::Space::Global | ir::Space::Const) {
                let checks = self.env_val(EnvField::Memcheck);
                let nm = self.b.ins().icmp_imm_s(IntCC::Equal, checks, 0);
                ok = self.b.ins().band(ok, nm);
                if self.combine {
                    // The access's bytes miss the pending reductions (`combine.rs`).
                    let clear = self.pending_clear(addr, i64::from(size));
                    ok = self.b.ins().band(ok, clear);
                }
            }
            let fast = self.b.create_block();
            self.b.ins().brif(ok, fast, &[], slow, &[]);
            self.b.switch_to_block(fast);
            let p = self.b.ins().iadd(base, off);
            self.b.ins().jump(merge, &[BlockArg::Value(p)]);
        } else {
            self.b.ins().jump(slow, &[]);
        }
        self.b.switch_to_block(slow);
        let info = helpers::access_info(space, size, align, write) | atomic;
        let callee = self.fn_ptr(helpers::access_helper as *const () as usize);
        let info_v = self.iconst(types::I32, info as i64);
        let inst_v = self.iconst(types::I32, inst.0 as i64);
        // The lanes making the access: this one, or the warp's for a uniform access.
        let lanes = match self.uniform_mask {
            Some(mask) => mask,
            None => {
                let one = self.iconst(types::I32, 1);
                self.b.ins().ishl(one, lane)
            }
        };
        let state = self.state();
        let call = self.b.ins().call_indirect(
            self.sig_access,
            callee,
            &[self.e.env, state, addr, info_v, lanes, inst_v],
        );
        let p = self.b.inst_results(call)[0];
        self.b.ins().jump(merge, &[BlockArg::Value(p)]);
        self.b.switch_to_block(merge);
        self.b.block_params(merge)[0]
    }

    /// An atomic (`atom`, PTX ISA §9.7.13.5) of one lane emitted inline, or `None` (nothing
    /// emitted) for the forms left to `helpers::atom_helper`. The address goes through the
    /// same checked translation as a store (`access_ptr`, size-aligned; a fault yields 0 from
    /// the zeroed scratch area, as the helper does), then [`Self::atomic_at`] performs it.
    fn inline_atomic(
        &mut self,
        i: ir::Inst,
        lane: Value,
        argv: &[Value],
    ) -> Result<Option<Value>, String> {
        let Some(form) = self.inline_atomic_form(i) else {
            return Ok(None);
        };
        let arg = |k: usize| -> Result<Value, String> {
            argv.get(k)
                .copied()
                .ok_or_else(|| format!("{i}: missing operand {k}"))
        };
        let a0 = arg(0)?;
        let a = self.addr64(a0, self.f.inst(i).args[0]);
        let bv = arg(1)?;
        let cv = match form.op {
            None => Some(arg(2)?),
            Some(_) => None,
        };
        let size = form.t.bytes();
        // initcheck: an atomic reads; an exchange also writes (`runtime::initcheck`).
        let atomic = if form.op == Some(ir::AtomOp::Exch) {
            helpers::ACCESS_ATOMIC | helpers::ACCESS_EXCH
        } else {
            helpers::ACCESS_ATOMIC
        };
        let p = self.access_ptr(lane, i, form.space, a, size, size, true, atomic);
        self.atomic_at(&form, p, bv, cv).map(Some)
    }

    /// The form of atomic `i` when it can be emitted inline ([`Self::atomic_at`]), `None`
    /// for the forms left to `helpers::atom_helper`:
    /// - global: a host atomic (`atomic_rmw`/`atomic_cas`, sequentially consistent) for the
    ///   operations that map onto one: add, and, or, xor, exch, min, max, cas on 32/64-bit
    ///   integers; other CTAs run on other host threads at the same time;
    /// - shared (not under racecheck): a plain load, operation, store: the warps of a CTA run
    ///   one after another on one host thread (`runtime::launch::run_cta`), and nothing else
    ///   sees the CTA's shared memory, so no other access can come in between. Also
    ///   `inc`/`dec` (32-bit).
    pub(super) fn inline_atomic_form(&self, i: ir::Inst) -> Option<InlineAtomic> {
        use cranelift_codegen::ir::AtomicRmwOp as R;
        use ir::{AtomOp, Sign};
        let d = self.f.inst(i);
        let &res = d.results.first()?;
        let t = self.ty(res);
        let (space, op) = match d.op {
            Op::Atom { op, space } => (space, Some(op)),
            Op::AtomCas { space } => (space, None),
            _ => return None,
        };
        let int = matches!(t, ir::Type::I32 | ir::Type::I64);
        if !int || d.args[1..].iter().any(|&a| self.ty(a) != t) {
            return None;
        }
        let rmw = match op {
            Some(AtomOp::Add) => Some(R::Add),
            Some(AtomOp::And) => Some(R::And),
            Some(AtomOp::Or) => Some(R::Or),
            Some(AtomOp::Xor) => Some(R::Xor),
            Some(AtomOp::Exch) => Some(R::Xchg),
            Some(AtomOp::Min(Sign::Unsigned)) => Some(R::Umin),
            Some(AtomOp::Max(Sign::Unsigned)) => Some(R::Umax),
            Some(AtomOp::Min(Sign::Signed)) => Some(R::Smin),
            Some(AtomOp::Max(Sign::Signed)) => Some(R::Smax),
            Some(
                AtomOp::Inc
                | AtomOp::Dec
                | AtomOp::FAdd
                | AtomOp::HAdd { .. }
                | AtomOp::HMinMax { .. },
            )
            | None => None,
        };
        let ok = match space {
            ir::Space::Global => rmw.is_some() || op.is_none(),
            ir::Space::Shared if !self.racecheck => match op {
                Some(AtomOp::FAdd | AtomOp::HAdd { .. } | AtomOp::HMinMax { .. }) => false,
                Some(AtomOp::Inc | AtomOp::Dec) => t == ir::Type::I32,
                _ => true,
            },
            _ => false,
        };
        ok.then_some(InlineAtomic { space, op, rmw, t })
    }

    /// Atomic `form` on the host pointer `p` (already translated and checked) with operand
    /// `bv` (and `cv`, the new value of a compare-and-swap); returns the old value. The
    /// operation is `runtime::semantics::atomic_rmw`'s, written in CLIF.
    pub(super) fn atomic_at(
        &mut self,
        form: &InlineAtomic,
        p: Value,
        bv: Value,
        cv: Option<Value>,
    ) -> Result<Value, String> {
        use ir::{AtomOp, Sign};
        let ct = ctype(form.t);
        let fl = MemFlagsData::new().with_notrap();
        let cas_new = || cv.ok_or_else(|| "internal: atom.cas without its new value".to_string());
        if form.space == ir::Space::Global {
            return Ok(match form.rmw {
                Some(r) => self.b.ins().atomic_rmw(ct, fl, r, p, bv),
                None => {
                    let cv = cas_new()?;
                    self.b.ins().atomic_cas(fl, p, bv, cv)
                }
            });
        }
        let old = self.b.ins().load(ct, fl, p, 0);
        let new = match form.op {
            Some(AtomOp::Add) => self.b.ins().iadd(old, bv),
            Some(AtomOp::And) => self.b.ins().band(old, bv),
            Some(AtomOp::Or) => self.b.ins().bor(old, bv),
            Some(AtomOp::Xor) => self.b.ins().bxor(old, bv),
            Some(AtomOp::Exch) => bv,
            Some(AtomOp::Min(Sign::Unsigned)) => self.b.ins().umin(old, bv),
            Some(AtomOp::Max(Sign::Unsigned)) => self.b.ins().umax(old, bv),
            Some(AtomOp::Min(Sign::Signed)) => self.b.ins().smin(old, bv),
            Some(AtomOp::Max(Sign::Signed)) => self.b.ins().smax(old, bv),
            Some(AtomOp::Inc) => {
                // old >= b ? 0 : old + 1
                let ge = self
                    .b
                    .ins()
                    .icmp(IntCC::UnsignedGreaterThanOrEqual, old, bv);
                let inc = self.b.ins().iadd_imm_s(old, 1);
                let zero = self.iconst(ct, 0);
                self.b.ins().select(ge, zero, inc)
            }
            Some(AtomOp::Dec) => {
                // (old == 0 || old > b) ? b : old - 1
                let z = self.b.ins().icmp_imm_s(IntCC::Equal, old, 0);
                let gt = self.b.ins().icmp(IntCC::UnsignedGreaterThan, old, bv);
                let wrap = self.b.ins().bor(z, gt);
                let dec = self.b.ins().iadd_imm_s(old, -1);
                self.b.ins().select(wrap, bv, dec)
            }
            Some(AtomOp::FAdd | AtomOp::HAdd { .. } | AtomOp::HMinMax { .. }) => {
                return Err("internal: inline float atomic".into())
            }
            None => {
                let cv = cas_new()?;
                let eq = self.b.ins().icmp(IntCC::Equal, old, bv);
                self.b.ins().select(eq, cv, old)
            }
        };
        self.b.ins().store(fl, new, p, 0);
        Ok(old)
    }

    fn sreg(&mut self, lane: Value, r: ir::SReg) -> Value {
        use ir::SReg::*;
        let env = self.e.env;
        let ld = |g: &mut Self, off: usize| g.b.ins().load(types::I32, TRUSTED(), env, off as i32);
        let ntid = offset_of!(CtaEnv, ntid);
        let ctaid = offset_of!(CtaEnv, ctaid);
        let nctaid = offset_of!(CtaEnv, nctaid);
        match r {
            TidX | TidY | TidZ => {
                let warp = self.env_val(EnvField::Warp);
                let w32 = self.b.ins().imul_imm_s(warp, 32);
                let linear = self.b.ins().iadd(w32, lane);
                let nx = ld(self, ntid);
                match r {
                    TidX => self.b.ins().urem(linear, nx),
                    TidY => {
                        let ny = ld(self, ntid + 4);
                        let q = self.b.ins().udiv(linear, nx);
                        self.b.ins().urem(q, ny)
                    }
                    _ => {
                        let ny = ld(self, ntid + 4);
                        let nxy = self.b.ins().imul(nx, ny);
                        self.b.ins().udiv(linear, nxy)
                    }
                }
            }
            NtidX => ld(self, ntid),
            NtidY => ld(self, ntid + 4),
            NtidZ => ld(self, ntid + 8),
            CtaidX => ld(self, ctaid),
            CtaidY => ld(self, ctaid + 4),
            CtaidZ => ld(self, ctaid + 8),
            NctaidX => ld(self, nctaid),
            NctaidY => ld(self, nctaid + 4),
            NctaidZ => ld(self, nctaid + 8),
            LaneId => lane,
            WarpId => self.env_val(EnvField::Warp),
            NWarpId => ld(self, offset_of!(CtaEnv, nwarps)),
            LanemaskEq | LanemaskLe | LanemaskLt | LanemaskGe | LanemaskGt => {
                // semantics::lanemask: eq = 1 << lane, lt = eq - 1.
                let one = self.b.ins().iconst(types::I32, 1);
                let eq = self.b.ins().ishl(one, lane);
                let lt = self.b.ins().iadd_imm_s(eq, -1);
                let le = self.b.ins().bor(lt, eq);
                match r {
                    LanemaskEq => eq,
                    LanemaskLt => lt,
                    LanemaskLe => le,
                    LanemaskGe => self.b.ins().bnot(lt),
                    _ => self.b.ins().bnot(le),
                }
            }
            // The other %envreg registers read 0 (`CtaEnv::sreg`).
            EnvReg(0 | 3..) => self.b.ins().iconst(types::I32, 0),
            // The performance-monitoring counters read 0 (`CtaEnv::sreg`).
            Pm(_) => self.b.ins().iconst(types::I32, 0),
            Pm64(_) => self.b.ins().iconst(types::I64, 0),
            // One locality domain, holding every SM (`CtaEnv::sreg`).
            LocalityDomainId | LocalityDomainSupplementalSm => self.b.ins().iconst(types::I32, 0),
            // %envreg1/2 (the grid workspace's halves) are read once per grid sync: through
            // `CtaEnv::sreg`, their one definition.
            EnvReg(1 | 2) | Clock | ClockHi | Clock64 | GlobalTimer | GlobalTimerLo
            | GlobalTimerHi | SmId | NSmId | GridId | DynamicSmemSize | TotalSmemSize
            | AggrSmemSize | ReservedSmemBegin | ReservedSmemEnd | ReservedSmemCap
            | ReservedSmemOffset0 | ReservedSmemOffset1 | ClusterIdX | ClusterIdY | ClusterIdZ
            | NClusterIdX | NClusterIdY | NClusterIdZ | ClusterCtaidX | ClusterCtaidY
            | ClusterCtaidZ | ClusterNctaidX | ClusterNctaidY | ClusterNctaidZ | ClusterCtaRank
            | ClusterNctaRank | IsExplicitCluster | CurrentGraphExec => {
                let code = helpers::HELPER_SREGS
                    .iter()
                    .position(|&x| x == r)
                    .unwrap_or(0);
                let callee = self.fn_ptr(helpers::sreg_helper as *const () as usize);
                let codev = self.b.ins().iconst(types::I32, code as i64);
                let call =
                    self.b
                        .ins()
                        .call_indirect(self.sig_sreg, callee, &[self.e.env, codev, lane]);
                let v = self.b.inst_results(call)[0];
                if r.ty() == ir::Type::I64 {
                    v
                } else {
                    self.b.ins().ireduce(types::I32, v)
                }
            }
        }
    }

    /// Emit one instruction for one lane, from scalar operand values (predicates as `i8` 0/1).
    /// `lane` is the lane index (`i32`), for special registers and fault reports. Returns the
    /// first result, or `None` for operations without one.
    pub(super) fn scalar_op(
        &mut self,
        i: ir::Inst,
        argv: &[Value],
        lane: Value,
    ) -> Result<Option<Value>, String> {
        if self.needs_flush(i, false) {
            self.flush_if_pending();
        }
        let d = self.f.inst(i).clone();
        let rt = d.results.first().map(|&r| self.ty(r));
        let arg = |_g: &mut Self, _l: (), k: usize| -> Result<Value, String> {
            argv.get(k)
                .copied()
                .ok_or_else(|| format!("{i}: missing operand {k}"))
        };
        let l = ();
        let r = match d.op {
            Op::Const { bits } => {
                let t = rt.unwrap_or(ir::Type::I32);
                match t {
                    ir::Type::F32 => self.b.ins().f32const(f32::from_bits(bits as u32)),
                    ir::Type::F64 => self.b.ins().f64const(f64::from_bits(bits)),
                    _ => self.iconst(ctype(t), bits as i64),
                }
            }
            Op::SReg { reg } => self.sreg(lane, reg),
            Op::SymAddr { sym, .. } => {
                let p = self.b.ins().load(
                    self.ptr,
                    TRUSTED(),
                    self.e.env,
                    offset_of!(CtaEnv, symbols) as i32,
                );
                self.b
                    .ins()
                    .load(types::I64, TRUSTED(), p, (sym * 8) as i32)
            }
            Op::Bitcast {} => {
                let x = arg(self, l, 0)?;
                let (from, to) = (self.ty(d.args[0]), rt.unwrap_or(ir::Type::I32));
                if from == to {
                    x
                } else {
                    self.b.ins().bitcast(ctype(to), MemFlagsData::new(), x)
                }
            }
            Op::IAdd {} | Op::ISub {} | Op::IMul {} | Op::And {} | Op::Or {} | Op::Xor {} => {
                let (x, y) = (arg(self, l, 0)?, arg(self, l, 1)?);
                match d.op {
                    Op::IAdd {} => self.b.ins().iadd(x, y),
                    Op::ISub {} => self.b.ins().isub(x, y),
                    Op::IMul {} => self.b.ins().imul(x, y),
                    Op::And {} => self.b.ins().band(x, y),
                    Op::Or {} => self.b.ins().bor(x, y),
                    _ => self.b.ins().bxor(x, y),
                }
            }
            Op::Not {} => {
                let x = arg(self, l, 0)?;
                if rt == Some(ir::Type::Pred) {
                    self.b.ins().bxor_imm_s(x, 1)
                } else {
                    self.b.ins().bnot(x)
                }
            }
            Op::INeg {} => {
                let x = arg(self, l, 0)?;
                self.b.ins().ineg(x)
            }
            Op::IAbs {} => {
                let x = arg(self, l, 0)?;
                self.b.ins().iabs(x)
            }
            Op::IMulHi { sign } => {
                let t = rt.unwrap_or(ir::Type::I32);
                let (x, y) = (arg(self, l, 0)?, arg(self, l, 1)?);
                if t == ir::Type::I64 {
                    match sign {
                        ir::Sign::Signed => self.b.ins().smulhi(x, y),
                        ir::Sign::Unsigned => self.b.ins().umulhi(x, y),
                    }
                } else {
                    let (x, y) = match sign {
                        ir::Sign::Signed => (
                            self.b.ins().sextend(types::I64, x),
                            self.b.ins().sextend(types::I64, y),
                        ),
                        ir::Sign::Unsigned => (
                            self.b.ins().uextend(types::I64, x),
                            self.b.ins().uextend(types::I64, y),
                        ),
                    };
                    let p = self.b.ins().imul(x, y);
                    let h = self.b.ins().ushr_imm_s(p, t.bits() as i64);
                    self.b.ins().ireduce(ctype(t), h)
                }
            }
            Op::IMulWide { sign } => {
                let t = ctype(rt.unwrap_or(ir::Type::I64));
                let (x, y) = (arg(self, l, 0)?, arg(self, l, 1)?);
                let (x, y) = match sign {
                    ir::Sign::Signed => (self.b.ins().sextend(t, x), self.b.ins().sextend(t, y)),
                    ir::Sign::Unsigned => (self.b.ins().uextend(t, x), self.b.ins().uextend(t, y)),
                };
                self.b.ins().imul(x, y)
            }
            Op::IDiv { sign } | Op::IRem { sign } => {
                let t = ctype(rt.unwrap_or(ir::Type::I32));
                let (x, y) = (arg(self, l, 0)?, arg(self, l, 1)?);
                let zero = self.b.ins().icmp_imm_s(IntCC::Equal, y, 0);
                let one = self.iconst(t, 1);
                let safe = match sign {
                    ir::Sign::Unsigned => self.b.ins().select(zero, one, y),
                    ir::Sign::Signed => {
                        // MIN / -1 → divide by 1 instead: gives MIN (div) and 0 (rem).
                        let m1 = self.b.ins().icmp_imm_s(IntCC::Equal, y, -1);
                        let bad = self.b.ins().bor(zero, m1);
                        self.b.ins().select(bad, one, y)
                    }
                };
                let is_div = matches!(d.op, Op::IDiv { .. });
                let q = match (sign, is_div) {
                    (ir::Sign::Unsigned, true) => self.b.ins().udiv(x, safe),
                    (ir::Sign::Unsigned, false) => self.b.ins().urem(x, safe),
                    (ir::Sign::Signed, true) => {
                        // x / -1 = -x (wrapping), which is MIN for MIN.
                        let m1 = self.b.ins().icmp_imm_s(IntCC::Equal, y, -1);
                        let qd = self.b.ins().sdiv(x, safe);
                        let nx = self.b.ins().ineg(x);
                        self.b.ins().select(m1, nx, qd)
                    }
                    (ir::Sign::Signed, false) => {
                        let m1 = self.b.ins().icmp_imm_s(IntCC::Equal, y, -1);
                        let r = self.b.ins().srem(x, safe);
                        let z = self.iconst(t, 0);
                        self.b.ins().select(m1, z, r)
                    }
                };
                if is_div {
                    let ones = self.iconst(t, -1);
                    self.b.ins().select(zero, ones, q)
                } else {
                    self.b.ins().select(zero, x, q)
                }
            }
            Op::IMin { sign } | Op::IMax { sign } => {
                let (x, y) = (arg(self, l, 0)?, arg(self, l, 1)?);
                match (d.op, sign) {
                    (Op::IMin { .. }, ir::Sign::Signed) => self.b.ins().smin(x, y),
                    (Op::IMin { .. }, ir::Sign::Unsigned) => self.b.ins().umin(x, y),
                    (_, ir::Sign::Signed) => self.b.ins().smax(x, y),
                    (_, ir::Sign::Unsigned) => self.b.ins().umax(x, y),
                }
            }
            Op::Shl {} | Op::Shr { .. } => {
                let t = rt.unwrap_or(ir::Type::I32);
                let (x, n) = (arg(self, l, 0)?, arg(self, l, 1)?);
                let bits = t.bits() as i64;
                match d.op {
                    Op::Shr {
                        sign: ir::Sign::Signed,
                    } => {
                        let lim = self.iconst(types::I32, bits - 1);
                        let c = self.b.ins().umin(n, lim);
                        self.b.ins().sshr(x, c)
                    }
                    _ => {
                        let big =
                            self.b
                                .ins()
                                .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, n, bits);
                        let s = if matches!(d.op, Op::Shl {}) {
                            self.b.ins().ishl(x, n)
                        } else {
                            self.b.ins().ushr(x, n)
                        };
                        let z = self.iconst(ctype(t), 0);
                        self.b.ins().select(big, z, s)
                    }
                }
            }
            Op::Popc {} | Op::Clz {} => {
                let x = arg(self, l, 0)?;
                let c = if matches!(d.op, Op::Popc {}) {
                    self.b.ins().popcnt(x)
                } else {
                    self.b.ins().clz(x)
                };
                if self.ty(d.args[0]) == ir::Type::I64 {
                    self.b.ins().ireduce(types::I32, c)
                } else {
                    c
                }
            }
            Op::FAdd { rnd, ftz, sat }
            | Op::FSub { rnd, ftz, sat }
            | Op::FMul { rnd, ftz, sat }
                if rnd == ir::Round::Nearest && !ftz && !sat =>
            {
                let t = rt.unwrap_or(ir::Type::F32);
                let (x, y) = (arg(self, l, 0)?, arg(self, l, 1)?);
                let r = match d.op {
                    Op::FAdd { .. } => self.b.ins().fadd(x, y),
                    Op::FSub { .. } => self.b.ins().fsub(x, y),
                    _ => self.b.ins().fmul(x, y),
                };
                self.canon(r, t)
            }
            Op::FFma { rnd, ftz, sat } if rnd == ir::Round::Nearest && !ftz && !sat => {
                let t = rt.unwrap_or(ir::Type::F32);
                let (x, y, z) = (arg(self, l, 0)?, arg(self, l, 1)?, arg(self, l, 2)?);
                let r = self.b.ins().fma(x, y, z);
                self.canon(r, t)
            }
            Op::FDiv {
                rnd,
                ftz,
                approx: false,
            } if rnd == ir::Round::Nearest && !ftz => {
                let t = rt.unwrap_or(ir::Type::F32);
                let (x, y) = (arg(self, l, 0)?, arg(self, l, 1)?);
                let r = self.b.ins().fdiv(x, y);
                self.canon(r, t)
            }
            Op::FSqrt { rnd, ftz, .. } if rnd == ir::Round::Nearest && !ftz => {
                let t = rt.unwrap_or(ir::Type::F32);
                let x = arg(self, l, 0)?;
                let r = self.b.ins().sqrt(x);
                self.canon(r, t)
            }
            Op::FRcp { rnd, ftz, .. } if rnd == ir::Round::Nearest && !ftz => {
                let t = rt.unwrap_or(ir::Type::F32);
                let x = arg(self, l, 0)?;
                let one = if t == ir::Type::F32 {
                    self.b.ins().f32const(1.0)
                } else {
                    self.b.ins().f64const(1.0)
                };
                let r = self.b.ins().fdiv(one, x);
                self.canon(r, t)
            }
            Op::FNeg { ftz: false } => {
                let x = arg(self, l, 0)?;
                self.b.ins().fneg(x)
            }
            Op::FAbs { ftz: false } => {
                let x = arg(self, l, 0)?;
                self.b.ins().fabs(x)
            }
            Op::ICmp { cc, sign } => {
                let (x, y) = (arg(self, l, 0)?, arg(self, l, 1)?);
                let c = super::vector::int_cc(cc, sign);
                self.b.ins().icmp(c, x, y)
            }
            Op::FCmp { cc, ftz: false } => {
                let (x, y) = (arg(self, l, 0)?, arg(self, l, 1)?);
                let c = super::vector::float_cc(cc);
                self.b.ins().fcmp(c, x, y)
            }
            Op::Select {} => {
                let (x, y, p) = (arg(self, l, 0)?, arg(self, l, 1)?, arg(self, l, 2)?);
                self.b.ins().select(p, x, y)
            }
            Op::Cvt {
                dst,
                src,
                rnd,
                sat: false,
                ftz: false,
            } if self.cvt_inline(dst, src, rnd) => {
                let x = arg(self, l, 0)?;
                self.gen_cvt(dst, src, rnd, x)
            }
            Op::Cvta { space, to_generic } => {
                let t = rt.unwrap_or(ir::Type::I64);
                let x = arg(self, l, 0)?;
                let w = crate::runtime::env::cvta(space, true, 0);
                let w = if to_generic { w } else { w.wrapping_neg() };
                let w = (w & t.mask()) as i64;
                self.b.ins().iadd_imm_s(x, w)
            }
            Op::Load { space, align } => {
                let t = rt.unwrap_or(ir::Type::I32);
                let a0 = arg(self, l, 0)?;
                let a = self.addr64(a0, d.args[0]);
                let p = self.access_ptr(lane, i, space, a, t.bytes(), align as u32, false, 0);
                self.b
                    .ins()
                    .load(ctype(t), MemFlagsData::new().with_notrap(), p, 0)
            }
            Op::Store { space, align } => {
                let a0 = arg(self, l, 0)?;
                let a = self.addr64(a0, d.args[0]);
                let v = arg(self, l, 1)?;
                let t = self.ty(d.args[1]);
                let p = self.access_ptr(lane, i, space, a, t.bytes(), align as u32, true, 0);
                self.b
                    .ins()
                    .store(MemFlagsData::new().with_notrap(), v, p, 0);
                return Ok(None);
            }
            Op::Atom { .. } | Op::AtomCas { .. } => {
                let t = rt.unwrap_or(ir::Type::I32);
                if let Some(r) = self.inline_atomic(i, lane, argv)? {
                    return Ok(Some(r));
                }
                let desc = Box::new(PureDesc {
                    op: d.op,
                    arg_tys: d.args.iter().map(|&a| self.ty(a)).collect(),
                    res_ty: t,
                });
                let dp = &*desc as *const PureDesc as usize;
                self.data.pure.push(desc);
                let a0 = arg(self, l, 0)?;
                let a = self.addr64(a0, d.args[0]);
                let bv = arg(self, l, 1)?;
                let bv = self.bits_of(bv, t);
                let cv = if d.args.len() > 2 {
                    let c = arg(self, l, 2)?;
                    self.bits_of(c, t)
                } else {
                    self.iconst(types::I64, 0)
                };
                let descv = self.fn_ptr(dp);
                let inst_v = self.iconst(types::I32, i.0 as i64);
                let callee = self.fn_ptr(helpers::atom_helper as *const () as usize);
                let call = self.b.ins().call_indirect(
                    self.sig_atom,
                    callee,
                    &[self.e.env, descv, a, bv, cv, lane, inst_v],
                );
                let r = self.b.inst_results(call)[0];
                self.of_bits(r, t)
            }
            Op::Shfl { .. } | crate::warp_ops!() => {
                return Err("internal: warp op inside a lane loop".into())
            }
            Op::Fence {} => {
                self.b.ins().fence();
                return Ok(None);
            }
            Op::Lop3 { .. }
            | Op::Brev {}
            | Op::Bfind { .. }
            | Op::Bfe { .. }
            | Op::Bfi {}
            | Op::Shf { .. }
            | Op::Prmt { .. }
            | Op::Bmsk { .. }
            | Op::Szext { .. }
                if self.bits_inline(i) =>
            {
                self.gen_bits(i, argv)?
            }
            // Everything else: the shared semantics function.
            Op::FAdd { .. }
            | Op::FSub { .. }
            | Op::FMul { .. }
            | Op::FFma { .. }
            | Op::FDiv { .. }
            | Op::FSqrt { .. }
            | Op::FRcp { .. }
            | Op::FNeg { .. }
            | Op::FAbs { .. }
            | Op::FCmp { .. }
            | Op::IsSpace { .. }
            | Op::Cvt { .. }
            | crate::helper_ops!() => self.call_pure(i, argv)?,
        };
        Ok(Some(r))
    }

    fn cvt_inline(&self, dst: ir::CvtType, src: ir::CvtType, rnd: ir::CvtRound) -> bool {
        let half = |t: ir::CvtType| matches!(t, ir::CvtType::F16 | ir::CvtType::Bf16);
        if half(dst) || half(src) {
            return false;
        }
        match (src.is_float(), dst.is_float()) {
            (false, false) => true,
            (false, true) => rnd == ir::CvtRound::Float(ir::Round::Nearest),
            (true, true) => {
                src != dst
                    && (rnd == ir::CvtRound::None || rnd == ir::CvtRound::Float(ir::Round::Nearest))
            }
            (true, false) => matches!(rnd, ir::CvtRound::Int(_)) && dst.ir().bits() >= 32,
        }
    }

    fn gen_cvt(
        &mut self,
        dst: ir::CvtType,
        src: ir::CvtType,
        rnd: ir::CvtRound,
        x: Value,
    ) -> Value {
        let (dt, st) = (dst.ir(), src.ir());
        match (src.is_float(), dst.is_float()) {
            (false, false) => {
                if dt.bits() == st.bits() {
                    x
                } else if dt.bits() < st.bits() {
                    self.b.ins().ireduce(ctype(dt), x)
                } else if src.is_signed() {
                    self.b.ins().sextend(ctype(dt), x)
                } else {
                    self.b.ins().uextend(ctype(dt), x)
                }
            }
            (false, true) => {
                let x = if st.bits() < 32 {
                    if src.is_signed() {
                        self.b.ins().sextend(types::I32, x)
                    } else {
                        self.b.ins().uextend(types::I32, x)
                    }
                } else {
                    x
                };
                if src.is_signed() {
                    self.b.ins().fcvt_from_sint(ctype(dt), x)
                } else {
                    self.b.ins().fcvt_from_uint(ctype(dt), x)
                }
            }
            (true, true) => {
                let r = if dt == ir::Type::F64 {
                    self.b.ins().fpromote(types::F64, x)
                } else {
                    self.b.ins().fdemote(types::F32, x)
                };
                self.canon(r, dt)
            }
            (true, false) => {
                let r = match rnd {
                    ir::CvtRound::Int(ir::Round::Nearest) => self.b.ins().nearest(x),
                    ir::CvtRound::Int(ir::Round::Down) => self.b.ins().floor(x),
                    ir::CvtRound::Int(ir::Round::Up) => self.b.ins().ceil(x),
                    _ => self.b.ins().trunc(x),
                };
                if dst.is_signed() {
                    self.b.ins().fcvt_to_sint_sat(ctype(dt), r)
                } else {
                    self.b.ins().fcvt_to_uint_sat(ctype(dt), r)
                }
            }
        }
    }
}

/// An atomic that [`Gen::atomic_at`] emits inline ([`Gen::inline_atomic_form`]).
pub(super) struct InlineAtomic {
    /// Global or shared.
    pub(super) space: ir::Space,
    /// The operation; `None` for `atom.cas`.
    pub(super) op: Option<ir::AtomOp>,
    /// The host read-modify-write of a global atomic; `None` for `atom.cas` and the shared
    /// space's `inc`/`dec`.
    pub(super) rmw: Option<cranelift_codegen::ir::AtomicRmwOp>,
    /// The operand and result type (`i32` or `i64`).
    pub(super) t: ir::Type,
}
