//! IR → CLIF for one kernel: a native function `fn(state, env) -> status` that runs one warp.
//!
//! Shape of the generated function (see `analysis::schedule` for the model):
//! ```text
//! entry:    load env fields used everywhere (bases, sizes, warp index …)
//! dispatch: if *env.abort != 0 → return 1
//!           find the lowest set bit of the active bitset → block priority p, clear it,
//!           br_table p → enter_p            (none set → return 0)
//! enter_p:  mask = pending[p]; pending[p] = 0; mask == 0 → dispatch
//!           segments: a loop over the lanes of `mask` per run of per-lane operations,
//!           a helper call per warp operation (shfl); the terminator updates
//!           pending/parked/exited masks and block-parameter slots, then → dispatch
//! ```
//! Within a segment, values defined in the same lane iteration stay in CLIF values; values
//! used elsewhere are stored to their warp-state slot (`slot + lane * size`). Lanes run one
//! at a time in this backend; the state layout is already the structure-of-arrays layout that
//! SIMD code will use.

use super::helpers::{self, PureDesc, SCRATCH_OFF};
use crate::analysis::schedule::{WarpLayout, EXITED_OFF};
use crate::ir::{self, Effect, Op, Terminator};
use crate::runtime::env::CtaEnv;
use crate::runtime::memory::GLOBAL_BASE;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, AbiParam, BlockArg, InstBuilder, JumpTableData, MemFlagsData, Signature, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use std::collections::HashMap;
use std::mem::offset_of;

type CBlock = cranelift_codegen::ir::Block;
type CType = cranelift_codegen::ir::Type;

/// Data the generated code points into; owned by the `JitKernel`, never moved after codegen
/// (boxed contents).
#[derive(Default)]
pub struct KernelData {
    pub pure: Vec<Box<PureDesc>>,
    pub shfl_slots: Vec<Box<[u32; 5]>>,
}

fn ctype(t: ir::Type) -> CType {
    match t {
        ir::Type::Pred | ir::Type::I8 => types::I8,
        ir::Type::I16 => types::I16,
        ir::Type::I32 => types::I32,
        ir::Type::I64 => types::I64,
        ir::Type::F32 => types::F32,
        ir::Type::F64 => types::F64,
    }
}

/// Env fields loaded once per call.
struct EnvVals {
    env: Value,
    state: Value,
    global_base: Value,
    global_top: Value,
    shared_base: Value,
    shared_size: Value,
    param_base: Value,
    param_size: Value,
    memcheck: Value,
    warp: Value,
}

struct Gen<'a, 'b> {
    f: &'a ir::Function,
    layout: &'a WarpLayout,
    b: FunctionBuilder<'b>,
    e: EnvVals,
    ptr: CType,
    data: &'a mut KernelData,
    dispatch: CBlock,
    /// Segment index of each value's definition (usize::MAX for block params).
    def_seg: Vec<usize>,
    /// Values used outside their defining segment (must be stored to their slot).
    escapes: Vec<bool>,
    sig_pure: cranelift_codegen::ir::SigRef,
    sig_access: cranelift_codegen::ir::SigRef,
    sig_atom: cranelift_codegen::ir::SigRef,
    sig_shfl: cranelift_codegen::ir::SigRef,
    /// Entry block of each block priority (filled by the dispatcher).
    enter: Vec<CBlock>,
}

const TRUSTED: fn() -> MemFlagsData = MemFlagsData::trusted;

/// Generate the CLIF function body into `func`.
pub fn generate(
    f: &ir::Function,
    layout: &WarpLayout,
    func: &mut cranelift_codegen::ir::Function,
    fctx: &mut FunctionBuilderContext,
    data: &mut KernelData,
    ptr: CType,
    frontend: cranelift_codegen::isa::TargetFrontendConfig,
) -> Result<(), String> {
    let mut b = FunctionBuilder::new(func, fctx);
    let sig = |params: &[CType], rets: &[CType]| {
        let mut s = Signature::new(CallConv::SystemV);
        for &p in params {
            s.params.push(AbiParam::new(p));
        }
        for &r in rets {
            s.returns.push(AbiParam::new(r));
        }
        s
    };
    let sig_pure = b.import_signature(sig(
        &[ptr, types::I64, types::I64, types::I64],
        &[types::I64],
    ));
    let sig_access = b.import_signature(sig(
        &[ptr, ptr, types::I64, types::I32, types::I32, types::I32],
        &[ptr],
    ));
    let sig_atom = b.import_signature(sig(
        &[
            ptr,
            ptr,
            types::I64,
            types::I64,
            types::I64,
            types::I32,
            types::I32,
        ],
        &[types::I64],
    ));
    let sig_shfl = b.import_signature(sig(&[ptr, types::I32, types::I32, ptr], &[]));

    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let state = b.block_params(entry)[0];
    let env = b.block_params(entry)[1];
    let ld =
        |b: &mut FunctionBuilder, t: CType, off: usize| b.ins().load(t, TRUSTED(), env, off as i32);
    let e = EnvVals {
        env,
        state,
        global_base: ld(&mut b, ptr, offset_of!(CtaEnv, global_base)),
        global_top: ld(&mut b, types::I64, offset_of!(CtaEnv, global_top)),
        shared_base: ld(&mut b, ptr, offset_of!(CtaEnv, shared_base)),
        shared_size: ld(&mut b, types::I64, offset_of!(CtaEnv, shared_size)),
        param_base: ld(&mut b, ptr, offset_of!(CtaEnv, param_base)),
        param_size: ld(&mut b, types::I64, offset_of!(CtaEnv, param_size)),
        memcheck: ld(&mut b, types::I32, offset_of!(CtaEnv, memcheck)),
        warp: ld(&mut b, types::I32, offset_of!(CtaEnv, warp)),
    };
    let dispatch = b.create_block();
    b.ins().jump(dispatch, &[]);

    // Segment analysis: number segments per block; a warp op is its own segment.
    let nv = f.values.len();
    let mut def_seg = vec![usize::MAX; nv];
    let mut seg_of_inst = vec![0usize; f.insts.len()];
    let mut term_seg = vec![0usize; f.blocks.len()];
    let mut seg = 0usize;
    for (bi, blk) in f.blocks.iter().enumerate() {
        seg += 1;
        for &i in &blk.insts {
            let warp = f.inst(i).op.effect() == Effect::Warp;
            if warp {
                seg += 1;
            }
            seg_of_inst[i.index()] = seg;
            for &r in &f.inst(i).results {
                def_seg[r.index()] = seg;
            }
            if warp {
                seg += 1;
            }
        }
        term_seg[bi] = seg;
    }
    let mut escapes = vec![false; nv];
    for (bi, blk) in f.blocks.iter().enumerate() {
        for &i in &blk.insts {
            let s = seg_of_inst[i.index()];
            let warp = f.inst(i).op.effect() == Effect::Warp;
            for &a in &f.inst(i).args {
                if def_seg[a.index()] != s || warp {
                    escapes[a.index()] = true;
                }
            }
        }
        let mut used = vec![];
        if let Terminator::Branch { cond, .. } = &blk.term {
            used.push(*cond);
        }
        for c in blk.term.targets() {
            used.extend(&c.args);
        }
        for a in used {
            if def_seg[a.index()] != term_seg[bi] {
                escapes[a.index()] = true;
            }
        }
    }
    // Warp-op results are written to slots by helpers.
    for blk in &f.blocks {
        for &i in &blk.insts {
            if f.inst(i).op.effect() == Effect::Warp {
                for &r in &f.inst(i).results {
                    escapes[r.index()] = true;
                }
            }
        }
    }

    let mut g = Gen {
        f,
        layout,
        b,
        e,
        ptr,
        data,
        dispatch,
        def_seg,
        escapes,
        sig_pure,
        sig_access,
        sig_atom,
        sig_shfl,
        enter: vec![],
    };
    g.gen_dispatch()?;
    for &blk in &layout.order {
        g.gen_block(blk)?;
    }
    g.b.seal_all_blocks();
    g.b.finalize(frontend);
    Ok(())
}

impl Gen<'_, '_> {
    fn iconst(&mut self, t: CType, v: i64) -> Value {
        self.b.ins().iconst(t, v)
    }

    fn state_load(&mut self, t: CType, off: u32) -> Value {
        let s = self.e.state;
        self.b.ins().load(t, TRUSTED(), s, off as i32)
    }

    fn state_store(&mut self, v: Value, off: u32) {
        let s = self.e.state;
        self.b.ins().store(TRUSTED(), v, s, off as i32);
    }

    /// `state[off] |= v` for a u32 mask word.
    fn state_or32(&mut self, off: u32, v: Value) {
        let old = self.state_load(types::I32, off);
        let n = self.b.ins().bor(old, v);
        self.state_store(n, off);
    }

    fn set_active(&mut self, prio: u32) {
        let off = self.layout.active_off + 8 * (prio / 64);
        let old = self.state_load(types::I64, off);
        let n = self.b.ins().bor_imm(old, 1i64 << (prio % 64));
        self.state_store(n, off);
    }

    fn gen_dispatch(&mut self) -> Result<(), String> {
        let dispatch = self.dispatch;
        self.b.switch_to_block(dispatch);
        // Abort check.
        let abort_ptr = self.b.ins().load(
            self.ptr,
            TRUSTED(),
            self.e.env,
            offset_of!(CtaEnv, abort) as i32,
        );
        let abort = self
            .b
            .ins()
            .load(types::I32, MemFlagsData::new().with_notrap(), abort_ptr, 0);
        let ret_abort = self.b.create_block();
        let scan = self.b.create_block();
        self.b.ins().brif(abort, ret_abort, &[], scan, &[]);
        self.b.switch_to_block(ret_abort);
        let one = self.iconst(types::I32, 1);
        self.b.ins().return_(&[one]);

        // Scan the active words.
        self.b.switch_to_block(scan);
        let found = self.b.create_block();
        self.b.append_block_param(found, types::I64); // word
        self.b.append_block_param(found, types::I32); // word index
        for w in 0..self.layout.active_words {
            let word = self.state_load(types::I64, self.layout.active_off + 8 * w);
            let next = self.b.create_block();
            let wi = self.iconst(types::I32, w as i64);
            self.b.ins().brif(
                word,
                found,
                &[BlockArg::Value(word), BlockArg::Value(wi)],
                next,
                &[],
            );
            self.b.switch_to_block(next);
        }
        let zero = self.iconst(types::I32, 0);
        self.b.ins().return_(&[zero]);

        self.b.switch_to_block(found);
        let word = self.b.block_params(found)[0];
        let wi = self.b.block_params(found)[1];
        let bit = self.b.ins().ctz(word);
        let bit32 = self.b.ins().ireduce(types::I32, bit);
        // Clear the bit in its word.
        let one64 = self.iconst(types::I64, 1);
        let m = self.b.ins().ishl(one64, bit);
        let cleared = self.b.ins().band_not(word, m);
        let wi64 = self.b.ins().uextend(types::I64, wi);
        let woff = self.b.ins().imul_imm(wi64, 8);
        let waddr = self.b.ins().iadd(self.e.state, woff);
        self.b
            .ins()
            .store(TRUSTED(), cleared, waddr, self.layout.active_off as i32);
        let base = self.b.ins().imul_imm(wi, 64);
        let prio = self.b.ins().iadd(base, bit32);
        // Jump table over block priorities.
        let n = self.layout.order.len();
        let mut entries = Vec::with_capacity(n);
        let mut enter = Vec::with_capacity(n);
        for _ in 0..n {
            let blk = self.b.create_block();
            enter.push(blk);
            entries.push(self.b.func.dfg.block_call(blk, &[]));
        }
        let def = self.b.func.dfg.block_call(dispatch, &[]);
        let jt = self.b.create_jump_table(JumpTableData::new(def, &entries));
        self.b.ins().br_table(prio, jt);
        self.enter = enter;
        Ok(())
    }
}

/// Per-lane context inside a lane loop.
struct Lane {
    /// The lane index (i32).
    lane: Value,
    /// `1 << lane` (i32).
    bit: Value,
    /// `state + lane * size` for sizes 1, 2, 4, 8.
    base: [Value; 4],
    vals: HashMap<ir::Value, Value>,
}

fn log2(bytes: u32) -> usize {
    match bytes {
        1 => 0,
        2 => 1,
        4 => 2,
        _ => 3,
    }
}

impl Gen<'_, '_> {
    fn ty(&self, v: ir::Value) -> ir::Type {
        self.f.value_type(v)
    }

    /// The value of `v` for the current lane.
    fn get(&mut self, l: &mut Lane, v: ir::Value) -> Result<Value, String> {
        if let Some(&x) = l.vals.get(&v) {
            return Ok(x);
        }
        let slot = self.layout.slot[v.index()];
        if slot == u32::MAX {
            return Err(format!("value {v} has no slot"));
        }
        let t = self.ty(v);
        let base = l.base[log2(t.bytes())];
        let x = self.b.ins().load(ctype(t), TRUSTED(), base, slot as i32);
        l.vals.insert(v, x);
        Ok(x)
    }

    /// Define `v` for the current lane (stored to its slot if used outside this segment).
    fn def(&mut self, l: &mut Lane, v: ir::Value, x: Value) {
        l.vals.insert(v, x);
        if self.escapes[v.index()] {
            let t = self.ty(v);
            let base = l.base[log2(t.bytes())];
            let slot = self.layout.slot[v.index()];
            self.b.ins().store(TRUSTED(), x, base, slot as i32);
        }
    }

    fn to_u64(&mut self, x: Value, t: ir::Type) -> Value {
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

    fn from_u64(&mut self, x: Value, t: ir::Type) -> Value {
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
    fn canon(&mut self, x: Value, t: ir::Type) -> Value {
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

    fn fn_ptr(&mut self, f: usize) -> Value {
        self.b.ins().iconst(self.ptr, f as i64)
    }

    /// Evaluate a pure op through `semantics::eval_pure` (the shared definition).
    fn call_pure(&mut self, l: &mut Lane, i: ir::Inst) -> Result<Value, String> {
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
            let v = match d.args.get(k) {
                Some(&a) => {
                    let x = self.get(l, a)?;
                    self.to_u64(x, arg_tys[k])
                }
                None => self.iconst(types::I64, 0),
            };
            args.push(v);
        }
        let callee = self.fn_ptr(helpers::pure_helper as *const () as usize);
        let call = self.b.ins().call_indirect(self.sig_pure, callee, &args);
        let r = self.b.inst_results(call)[0];
        Ok(self.from_u64(r, res_ty))
    }

    /// A host pointer for one lane's access: inline bounds check for global/shared/param,
    /// `access_helper` otherwise (which records faults and returns the scratch area).
    fn access_ptr(
        &mut self,
        l: &Lane,
        inst: ir::Inst,
        space: ir::Space,
        addr: Value,
        size: u32,
        align: u32,
        write: bool,
    ) -> Value {
        let merge = self.b.create_block();
        self.b.append_block_param(merge, self.ptr);
        let slow = self.b.create_block();
        let (base, limit, off) = match space {
            ir::Space::Global | ir::Space::Const => {
                let off = self.b.ins().iadd_imm(addr, -(GLOBAL_BASE as i64));
                (Some(self.e.global_base), Some(self.e.global_top), off)
            }
            ir::Space::Shared => (Some(self.e.shared_base), Some(self.e.shared_size), addr),
            ir::Space::Param => (Some(self.e.param_base), Some(self.e.param_size), addr),
            _ => (None, None, addr),
        };
        if let (Some(base), Some(limit)) = (base, limit) {
            // ok = off < limit && limit - off >= size && aligned [&& !memcheck for global]
            let lt = self.b.ins().icmp(IntCC::UnsignedLessThan, off, limit);
            let room = self.b.ins().isub(limit, off);
            let fits = self
                .b
                .ins()
                .icmp_imm(IntCC::UnsignedGreaterThanOrEqual, room, size as i64);
            let mut ok = self.b.ins().band(lt, fits);
            if align > 1 {
                let low = self.b.ins().band_imm(addr, align as i64 - 1);
                let al = self.b.ins().icmp_imm(IntCC::Equal, low, 0);
                ok = self.b.ins().band(ok, al);
            }
            if matches!(space, ir::Space::Global | ir::Space::Const) {
                let nm = self.b.ins().icmp_imm(IntCC::Equal, self.e.memcheck, 0);
                ok = self.b.ins().band(ok, nm);
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
        let info = helpers::access_info(space, size, align, write);
        let callee = self.fn_ptr(helpers::access_helper as *const () as usize);
        let info_v = self.iconst(types::I32, info as i64);
        let inst_v = self.iconst(types::I32, inst.0 as i64);
        let call = self.b.ins().call_indirect(
            self.sig_access,
            callee,
            &[self.e.env, self.e.state, addr, info_v, l.lane, inst_v],
        );
        let p = self.b.inst_results(call)[0];
        self.b.ins().jump(merge, &[BlockArg::Value(p)]);
        self.b.switch_to_block(merge);
        self.b.block_params(merge)[0]
    }

    fn addr64(&mut self, l: &mut Lane, v: ir::Value) -> Result<Value, String> {
        let x = self.get(l, v)?;
        Ok(if self.ty(v) == ir::Type::I32 {
            self.b.ins().uextend(types::I64, x)
        } else {
            x
        })
    }

    fn sreg(&mut self, l: &Lane, r: ir::SReg) -> Value {
        use ir::SReg::*;
        let env = self.e.env;
        let ld = |g: &mut Self, off: usize| g.b.ins().load(types::I32, TRUSTED(), env, off as i32);
        let ntid = offset_of!(CtaEnv, ntid);
        let ctaid = offset_of!(CtaEnv, ctaid);
        let nctaid = offset_of!(CtaEnv, nctaid);
        match r {
            TidX | TidY | TidZ => {
                let w32 = self.b.ins().imul_imm(self.e.warp, 32);
                let linear = self.b.ins().iadd(w32, l.lane);
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
            LaneId => l.lane,
            WarpId => self.e.warp,
            NWarpId => ld(self, offset_of!(CtaEnv, nwarps)),
        }
    }

    /// Emit one per-lane instruction.
    fn gen_inst(&mut self, l: &mut Lane, i: ir::Inst) -> Result<(), String> {
        let d = self.f.inst(i).clone();
        let rt = d.results.first().map(|&r| self.ty(r));
        let arg = |g: &mut Self, l: &mut Lane, k: usize| g.get(l, d.args[k]);
        let r = match d.op {
            Op::Const { bits } => {
                let t = rt.unwrap_or(ir::Type::I32);
                match t {
                    ir::Type::F32 => self.b.ins().f32const(f32::from_bits(bits as u32)),
                    ir::Type::F64 => self.b.ins().f64const(f64::from_bits(bits)),
                    _ => self.iconst(ctype(t), bits as i64),
                }
            }
            Op::SReg { reg } => self.sreg(l, reg),
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
                    self.b.ins().bxor_imm(x, 1)
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
                    let h = self.b.ins().ushr_imm(p, t.bits() as i64);
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
                let zero = self.b.ins().icmp_imm(IntCC::Equal, y, 0);
                let one = self.iconst(t, 1);
                let safe = match sign {
                    ir::Sign::Unsigned => self.b.ins().select(zero, one, y),
                    ir::Sign::Signed => {
                        // MIN / -1 → divide by 1 instead: gives MIN (div) and 0 (rem).
                        let m1 = self.b.ins().icmp_imm(IntCC::Equal, y, -1);
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
                        let m1 = self.b.ins().icmp_imm(IntCC::Equal, y, -1);
                        let qd = self.b.ins().sdiv(x, safe);
                        let nx = self.b.ins().ineg(x);
                        self.b.ins().select(m1, nx, qd)
                    }
                    (ir::Sign::Signed, false) => {
                        let m1 = self.b.ins().icmp_imm(IntCC::Equal, y, -1);
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
                        let big = self
                            .b
                            .ins()
                            .icmp_imm(IntCC::UnsignedGreaterThanOrEqual, n, bits);
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
            Op::FDiv { rnd, ftz, .. } if rnd == ir::Round::Nearest && !ftz => {
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
                use ir::ICmp::*;
                use ir::Sign::*;
                let c = match (cc, sign) {
                    (Eq, _) => IntCC::Equal,
                    (Ne, _) => IntCC::NotEqual,
                    (Lt, Signed) => IntCC::SignedLessThan,
                    (Le, Signed) => IntCC::SignedLessThanOrEqual,
                    (Gt, Signed) => IntCC::SignedGreaterThan,
                    (Ge, Signed) => IntCC::SignedGreaterThanOrEqual,
                    (Lt, Unsigned) => IntCC::UnsignedLessThan,
                    (Le, Unsigned) => IntCC::UnsignedLessThanOrEqual,
                    (Gt, Unsigned) => IntCC::UnsignedGreaterThan,
                    (Ge, Unsigned) => IntCC::UnsignedGreaterThanOrEqual,
                };
                self.b.ins().icmp(c, x, y)
            }
            Op::FCmp { cc, ftz: false } => {
                let (x, y) = (arg(self, l, 0)?, arg(self, l, 1)?);
                use ir::FCmp::*;
                let c = match cc {
                    Eq => FloatCC::Equal,
                    Ne => FloatCC::OrderedNotEqual,
                    Lt => FloatCC::LessThan,
                    Le => FloatCC::LessThanOrEqual,
                    Gt => FloatCC::GreaterThan,
                    Ge => FloatCC::GreaterThanOrEqual,
                    Equ => FloatCC::UnorderedOrEqual,
                    Neu => FloatCC::NotEqual,
                    Ltu => FloatCC::UnorderedOrLessThan,
                    Leu => FloatCC::UnorderedOrLessThanOrEqual,
                    Gtu => FloatCC::UnorderedOrGreaterThan,
                    Geu => FloatCC::UnorderedOrGreaterThanOrEqual,
                    Num => FloatCC::Ordered,
                    Nan => FloatCC::Unordered,
                };
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
                self.b.ins().iadd_imm(x, w)
            }
            Op::Load { space, align } => {
                let t = rt.unwrap_or(ir::Type::I32);
                let a = self.addr64(l, d.args[0])?;
                let p = self.access_ptr(l, i, space, a, t.bytes(), align as u32, false);
                self.b
                    .ins()
                    .load(ctype(t), MemFlagsData::new().with_notrap(), p, 0)
            }
            Op::Store { space, align } => {
                let a = self.addr64(l, d.args[0])?;
                let v = arg(self, l, 1)?;
                let t = self.ty(d.args[1]);
                let p = self.access_ptr(l, i, space, a, t.bytes(), align as u32, true);
                self.b
                    .ins()
                    .store(MemFlagsData::new().with_notrap(), v, p, 0);
                return Ok(());
            }
            Op::Atom { .. } | Op::AtomCas { .. } => {
                let t = rt.unwrap_or(ir::Type::I32);
                let desc = Box::new(PureDesc {
                    op: d.op,
                    arg_tys: d.args.iter().map(|&a| self.ty(a)).collect(),
                    res_ty: t,
                });
                let dp = &*desc as *const PureDesc as usize;
                self.data.pure.push(desc);
                let a = self.addr64(l, d.args[0])?;
                let bv = arg(self, l, 1)?;
                let bv = self.to_u64(bv, t);
                let cv = if d.args.len() > 2 {
                    let c = arg(self, l, 2)?;
                    self.to_u64(c, t)
                } else {
                    self.iconst(types::I64, 0)
                };
                let descv = self.fn_ptr(dp);
                let inst_v = self.iconst(types::I32, i.0 as i64);
                let callee = self.fn_ptr(helpers::atom_helper as *const () as usize);
                let call = self.b.ins().call_indirect(
                    self.sig_atom,
                    callee,
                    &[self.e.env, descv, a, bv, cv, l.lane, inst_v],
                );
                let r = self.b.inst_results(call)[0];
                self.from_u64(r, t)
            }
            Op::Shfl { .. } => return Err("internal: warp op inside a lane loop".into()),
            Op::Fence {} => {
                self.b.ins().fence();
                return Ok(());
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
            | Op::FMin { .. }
            | Op::FMax { .. }
            | Op::FCmp { .. }
            | Op::IsSpace { .. }
            | Op::Cvt { .. }
            | Op::IAddSat {}
            | Op::ISubSat {}
            | Op::AddCarry { .. }
            | Op::CarryOut { .. }
            | Op::IMul24 { .. }
            | Op::Sad { .. }
            | Op::Bfind { .. }
            | Op::Fns {}
            | Op::Brev {}
            | Op::Bfe { .. }
            | Op::Bfi {}
            | Op::Bmsk { .. }
            | Op::Szext { .. }
            | Op::Dp4a { .. }
            | Op::Dp2a { .. }
            | Op::Lop3 { .. }
            | Op::Shf { .. }
            | Op::Prmt { .. }
            | Op::FMinMax { .. }
            | Op::CopySign {}
            | Op::TestP { .. }
            | Op::FApprox { .. }
            | Op::HAdd { .. }
            | Op::HSub { .. }
            | Op::HMul { .. }
            | Op::HFma { .. }
            | Op::HMinMax { .. }
            | Op::HNeg { .. }
            | Op::HAbs { .. }
            | Op::HCmp { .. }
            | Op::HApprox { .. }
            | Op::HRelu { .. } => self.call_pure(l, i)?,
        };
        if let Some(&res) = d.results.first() {
            self.def(l, res, r);
        }
        Ok(())
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

    /// Open a loop over the lanes of `mask`; returns the lane context and the exit block.
    fn lane_loop_begin(&mut self, mask: Value) -> (Lane, CBlock, CBlock, Value) {
        let head = self.b.create_block();
        self.b.append_block_param(head, types::I32);
        let body = self.b.create_block();
        let exit = self.b.create_block();
        self.b.ins().jump(head, &[BlockArg::Value(mask)]);
        self.b.switch_to_block(head);
        let m = self.b.block_params(head)[0];
        self.b.ins().brif(m, body, &[], exit, &[]);
        self.b.switch_to_block(body);
        let lane = self.b.ins().ctz(m);
        let one = self.iconst(types::I32, 1);
        let bit = self.b.ins().ishl(one, lane);
        let l64 = self.b.ins().uextend(self.ptr, lane);
        let mut base = [self.e.state; 4];
        for (k, slot) in base.iter_mut().enumerate() {
            let o = if k == 0 {
                l64
            } else {
                self.b.ins().ishl_imm(l64, k as i64)
            };
            *slot = self.b.ins().iadd(self.e.state, o);
        }
        (
            Lane {
                lane,
                bit,
                base,
                vals: HashMap::new(),
            },
            head,
            exit,
            m,
        )
    }

    fn lane_loop_end(&mut self, head: CBlock, exit: CBlock, m: Value) {
        let m1 = self.b.ins().iadd_imm(m, -1);
        let next = self.b.ins().band(m, m1);
        self.b.ins().jump(head, &[BlockArg::Value(next)]);
        self.b.switch_to_block(exit);
    }

    /// Copy block-call arguments into the target's parameter slots for this lane (all read
    /// before any write), and add the lane to the target's pending (or parked) mask.
    fn lane_call(
        &mut self,
        l: &mut Lane,
        call: &ir::BlockCall,
        parked: bool,
    ) -> Result<(), String> {
        let vals = call
            .args
            .iter()
            .map(|&a| self.get(l, a))
            .collect::<Result<Vec<_>, _>>()?;
        let params = self.f.block(call.block).params.clone();
        for (&p, x) in params.iter().zip(vals) {
            let t = self.ty(p);
            let slot = self.layout.slot[p.index()];
            let base = l.base[log2(t.bytes())];
            self.b.ins().store(TRUSTED(), x, base, slot as i32);
        }
        let prio = self.layout.prio[call.block.index()];
        let off = if parked {
            self.layout.parked(prio)
        } else {
            self.layout.pending(prio)
        };
        let bit = l.bit;
        self.state_or32(off, bit);
        Ok(())
    }

    fn gen_block(&mut self, blk: ir::Block) -> Result<(), String> {
        let prio = self.layout.prio[blk.index()];
        let enter = self.enter[prio as usize];
        self.b.switch_to_block(enter);
        let mask = self.state_load(types::I32, self.layout.pending(prio));
        let zero = self.iconst(types::I32, 0);
        self.state_store(zero, self.layout.pending(prio));
        let body = self.b.create_block();
        self.b.ins().brif(mask, body, &[], self.dispatch, &[]);
        self.b.switch_to_block(body);

        let bd = self.f.block(blk).clone();
        // Runs of per-lane instructions between warp operations.
        let mut runs: Vec<(Vec<ir::Inst>, Option<ir::Inst>)> = vec![(vec![], None)];
        for &i in &bd.insts {
            if self.f.inst(i).op.effect() == Effect::Warp {
                if let Some(last) = runs.last_mut() {
                    last.1 = Some(i);
                }
                runs.push((vec![], None));
            } else if let Some(last) = runs.last_mut() {
                last.0.push(i);
            }
        }
        let term_needs_lanes = match &bd.term {
            Terminator::Branch { .. } => true,
            t => t.targets().iter().any(|c| !c.args.is_empty()),
        };
        let nruns = runs.len();
        for (k, (insts, warp_op)) in runs.into_iter().enumerate() {
            let with_term = k + 1 == nruns && term_needs_lanes;
            if !insts.is_empty() || with_term {
                let (mut l, head, exit, m) = self.lane_loop_begin(mask);
                for &i in &insts {
                    self.gen_inst(&mut l, i)?;
                }
                if with_term {
                    match &bd.term {
                        Terminator::Branch { cond, then_, else_ } => {
                            let c = self.get(&mut l, *cond)?;
                            let tb = self.b.create_block();
                            let eb = self.b.create_block();
                            let join = self.b.create_block();
                            self.b.ins().brif(c, tb, &[], eb, &[]);
                            for (blk, call) in [(tb, then_), (eb, else_)] {
                                self.b.switch_to_block(blk);
                                let mut l2 = Lane {
                                    lane: l.lane,
                                    bit: l.bit,
                                    base: l.base,
                                    vals: l.vals.clone(),
                                };
                                self.lane_call(&mut l2, call, false)?;
                                self.b.ins().jump(join, &[]);
                            }
                            self.b.switch_to_block(join);
                        }
                        Terminator::Jump(c) => self.lane_call(&mut l, c, false)?,
                        Terminator::Barrier { next } => self.lane_call(&mut l, next, true)?,
                        Terminator::Exit | Terminator::Trap => {}
                    }
                }
                self.lane_loop_end(head, exit, m);
            }
            if let Some(w) = warp_op {
                self.gen_warp_op(w, mask)?;
            }
        }
        // Mask-level terminator work.
        match &bd.term {
            Terminator::Jump(c) => {
                if !term_needs_lanes {
                    let p = self.layout.prio[c.block.index()];
                    self.state_or32(self.layout.pending(p), mask);
                }
                self.set_active(self.layout.prio[c.block.index()]);
            }
            Terminator::Branch { then_, else_, .. } => {
                self.set_active(self.layout.prio[then_.block.index()]);
                self.set_active(self.layout.prio[else_.block.index()]);
            }
            Terminator::Barrier { next } => {
                if !term_needs_lanes {
                    let p = self.layout.prio[next.block.index()];
                    self.state_or32(self.layout.parked(p), mask);
                }
            }
            Terminator::Exit => self.state_or32(EXITED_OFF, mask),
            Terminator::Trap => self.state_or32(EXITED_OFF, mask),
        }
        self.b.ins().jump(self.dispatch, &[]);
        Ok(())
    }

    fn gen_warp_op(&mut self, i: ir::Inst, mask: Value) -> Result<(), String> {
        let d = self.f.inst(i).clone();
        match d.op {
            Op::Shfl { mode } => {
                let slot = |v: ir::Value| self.layout.slot[v.index()];
                let slots = Box::new([
                    slot(d.args[0]),
                    slot(d.args[1]),
                    slot(d.args[2]),
                    slot(d.results[0]),
                    slot(d.results[1]),
                ]);
                if slots.contains(&u32::MAX) {
                    return Err(format!("shfl operand without a slot at {i}"));
                }
                let sp = slots.as_ptr() as usize;
                self.data.shfl_slots.push(slots);
                let callee = self.fn_ptr(helpers::shfl_helper as *const () as usize);
                let modev = self.iconst(types::I32, helpers::shfl_mode_code(mode) as i64);
                let spv = self.fn_ptr(sp);
                self.b.ins().call_indirect(
                    self.sig_shfl,
                    callee,
                    &[self.e.state, mask, modev, spv],
                );
                Ok(())
            }
            _ => Err(format!("internal: {} is not a warp op", d.op.mnemonic())),
        }
    }
}
