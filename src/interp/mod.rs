//! The reference interpreter: the oracle the JIT is compared against.
//!
//! # Model
//! The interpreter runs one warp at a time through a kernel, following the warp schedule of
//! [`crate::analysis::schedule`] exactly as the JIT does: the warp state (exited/live masks,
//! pending and parked masks by block priority, the active bitset, and one 32-lane slot per
//! value) is the same byte buffer, so both engines agree on divergence, reconvergence and
//! barriers by construction. A step picks the pending block of lowest priority, takes its
//! pending lanes as the execution mask, and runs the block's segments in the order
//! [`crate::analysis::segment`] defines for the kernel's [`WarpOrder`], as the JIT's group
//! loops do: a warp operation (`shfl`, `vote` …) for all active lanes at once; any other
//! segment group by group (lanes 0-3, then 4-7 …), each instruction for the group's active
//! lanes before the next. Then each lane's terminator moves it on (pending at the target,
//! parked at a barrier's continuation, exited, or trapped).
//!
//! Parity rules (the JIT follows the same): results are computed and written only for active
//! lanes; inactive lanes' slots are never written. Every operation's semantics come from
//! [`crate::runtime::semantics`]; every memory access goes through
//! [`crate::runtime::env::translate`].
//!
//! The kernel is decoded once ([`decode`]) into a flat form with slot offsets, sizes, target
//! priorities and block-argument move lists precomputed; running it needs no strings, hashing
//! or allocation.

mod decode;
#[cfg(test)]
mod tests;

use crate::analysis::region::MAX_BLOCKS;
use crate::analysis::schedule::{WarpLayout, EXITED_OFF, WARP_SIZE};
use crate::analysis::segment::{WarpOrder, GROUPS, GROUP_LANES};
use crate::ir::verify::VerifiedFunction;
use crate::ir::{Space, Type};
use crate::runtime::env::{init_access, translate, CtaEnv, FaultKind};
use crate::runtime::initcheck::InitAccess;
use crate::runtime::launch::{WarpEngine, WarpStatus};
use crate::runtime::race::AccessKind;
use crate::runtime::semantics;
use decode::{DCall, DInst, DTerm, Exec, Move, Program};
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};

/// A kernel decoded for interpretation.
pub struct Interpreter {
    layout: WarpLayout,
    prog: Program,
}

impl Interpreter {
    /// Decode `f` for the warp-state layout `layout` (made by `analysis::schedule` for `f`);
    /// `lockstep`: keep lockstep order even where the module's target does not ask for it
    /// ([`WarpOrder::of`]). Errors: a layout that breaks the scheduler's invariants (a bug in
    /// ptxjit).
    pub fn new(
        f: &VerifiedFunction,
        layout: WarpLayout,
        lockstep: bool,
    ) -> Result<Interpreter, String> {
        let prog = decode::decode(f, &layout, WarpOrder::of(f, lockstep))?;
        Ok(Interpreter { layout, prog })
    }
}

impl WarpEngine for Interpreter {
    fn layout(&self) -> &WarpLayout {
        &self.layout
    }

    fn run_warp(&self, state: &mut [u8], env: &CtaEnv) -> WarpStatus {
        // Thread-instructions executed (instructions and terminators, times active lanes).
        let mut executed = 0u64;
        let status = loop {
            if env.aborted() {
                break WarpStatus::Aborted;
            }
            let Some(p) = self.next_block(state) else {
                break WarpStatus::Stopped;
            };
            let pend = self.layout.pending(p);
            let mask = rd32(state, pend);
            wr32(state, pend, 0);
            self.set_active(state, p, false);
            if self.prog.regions.is_region(p) {
                let region = self.prog.regions.blocks_of(p);
                executed += self.run_region(region, mask, state, env);
            } else {
                let b = &self.prog.blocks[p as usize];
                executed += mask.count_ones() as u64 * (b.end - b.start + 1) as u64;
                self.run_block(p, mask, state, env);
            }
        };
        env.count_thread_instructions(executed);
        status
    }
}

/// The lanes of a mask, lowest first.
struct Lanes(u32);

impl Iterator for Lanes {
    type Item = u32;
    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.0 == 0 {
            return None;
        }
        let l = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(l)
    }
}

#[inline]
fn rd32(s: &[u8], off: u32) -> u32 {
    ld(s, off as usize, 4) as u32
}

#[inline]
fn wr32(s: &mut [u8], off: u32, v: u32) {
    st(s, off as usize, 4, v as u64)
}

/// Read `bytes` (1, 2, 4 or 8) little-endian bytes at `off`, zero-extended.
#[inline]
fn ld(s: &[u8], off: usize, bytes: u8) -> u64 {
    match bytes {
        1 => s[off] as u64,
        2 => {
            let mut b = [0u8; 2];
            b.copy_from_slice(&s[off..off + 2]);
            u16::from_le_bytes(b) as u64
        }
        4 => {
            let mut b = [0u8; 4];
            b.copy_from_slice(&s[off..off + 4]);
            u32::from_le_bytes(b) as u64
        }
        _ => {
            let mut b = [0u8; 8];
            b.copy_from_slice(&s[off..off + 8]);
            u64::from_le_bytes(b)
        }
    }
}

/// Write the low `bytes` (1, 2, 4 or 8) bytes of `v` at `off`, little-endian.
#[inline]
fn st(s: &mut [u8], off: usize, bytes: u8, v: u64) {
    let b = v.to_le_bytes();
    s[off..off + bytes as usize].copy_from_slice(&b[..bytes as usize]);
}

/// Lane `l` of slot `off` holding `bytes`-byte values.
#[inline]
fn lane(off: u32, l: u32, bytes: u8) -> usize {
    off as usize + l as usize * bytes as usize
}

// ⚠ Host memory access. Global and shared memory are written concurrently by other CTAs (other
// host threads) while a warp runs, so the interpreter never forms a Rust reference to them and
// never uses plain loads/stores: every access is a relaxed atomic of the access size when the
// host pointer is aligned to it (always, for the pointers `translate` returns with
// `align >= size`: the arena is 4096-aligned, shared memory 16-aligned), and otherwise a
// sequence of relaxed byte atomics (the parameter buffer is only byte-aligned, and an `ld`
// with a smaller declared alignment may be unaligned). Racy kernels thus read some value that
// was written, as on a GPU, and never cause undefined behaviour on the host.

/// Load `bytes` bytes at `p`, little-endian, zero-extended.
///
/// # Safety
/// `p` must be valid for reads of `bytes` bytes (as returned by `translate` for that size).
unsafe fn host_load(p: *mut u8, bytes: u32) -> u64 {
    // SAFETY (all arms): `p` is valid for `bytes` bytes; the aligned arms check alignment
    // first; the memory is only ever accessed atomically or by plain accesses that do not
    // race with kernel code (host copies between launches).
    unsafe {
        if (p as usize).is_multiple_of(bytes as usize) {
            match bytes {
                1 => AtomicU8::from_ptr(p).load(Relaxed) as u64,
                2 => AtomicU16::from_ptr(p as *mut u16).load(Relaxed) as u64,
                4 => AtomicU32::from_ptr(p as *mut u32).load(Relaxed) as u64,
                _ => AtomicU64::from_ptr(p as *mut u64).load(Relaxed),
            }
        } else {
            let mut v = 0u64;
            for i in 0..bytes as usize {
                v |= (AtomicU8::from_ptr(p.add(i)).load(Relaxed) as u64) << (8 * i);
            }
            v
        }
    }
}

/// Store the low `bytes` bytes of `v` at `p`, little-endian.
///
/// # Safety
/// `p` must be valid for writes of `bytes` bytes (as returned by `translate` for that size).
unsafe fn host_store(p: *mut u8, bytes: u32, v: u64) {
    // SAFETY: as in `host_load`.
    unsafe {
        if (p as usize).is_multiple_of(bytes as usize) {
            match bytes {
                1 => AtomicU8::from_ptr(p).store(v as u8, Relaxed),
                2 => AtomicU16::from_ptr(p as *mut u16).store(v as u16, Relaxed),
                4 => AtomicU32::from_ptr(p as *mut u32).store(v as u32, Relaxed),
                _ => AtomicU64::from_ptr(p as *mut u64).store(v, Relaxed),
            }
        } else {
            for i in 0..bytes as usize {
                AtomicU8::from_ptr(p.add(i)).store((v >> (8 * i)) as u8, Relaxed);
            }
        }
    }
}

impl Interpreter {
    /// The lowest priority with pending lanes, clearing stale active bits on the way.
    fn next_block(&self, s: &mut [u8]) -> Option<u32> {
        let nb = self.prog.blocks.len() as u32;
        for w in 0..self.layout.active_words {
            let off = (self.layout.active_off + 8 * w) as usize;
            let mut word = ld(s, off, 8);
            let mut found = None;
            while word != 0 {
                let bit = word.trailing_zeros();
                let p = w * 64 + bit;
                if p < nb && rd32(s, self.layout.pending(p)) != 0 {
                    found = Some(p);
                    break;
                }
                word &= !(1u64 << bit);
            }
            st(s, off, 8, word);
            if found.is_some() {
                return found;
            }
        }
        None
    }

    fn set_active(&self, s: &mut [u8], p: u32, on: bool) {
        let off = (self.layout.active_off + 8 * (p / 64)) as usize;
        let w = ld(s, off, 8);
        let bit = 1u64 << (p % 64);
        st(s, off, 8, if on { w | bit } else { w & !bit });
    }

    /// Run block `p` for the lanes of `mask`, then its terminator.
    fn run_block(&self, p: u32, mask: u32, s: &mut [u8], env: &CtaEnv) {
        let b = &self.prog.blocks[p as usize];
        for sg in &self.prog.segs[b.seg_start as usize..b.seg_end as usize] {
            let insts = &self.prog.insts[sg.start as usize..sg.end as usize];
            if sg.warp {
                for di in insts {
                    if let Exec::Warp(k) = di.exec {
                        crate::runtime::warp::exec(&self.prog.warp[k as usize], mask, s, env);
                    } else {
                        exec_inst(di, mask, s, env);
                    }
                }
                continue;
            }
            for g in 0..GROUPS {
                let gmask = mask & (((1u32 << GROUP_LANES) - 1) << (g * GROUP_LANES));
                if gmask == 0 {
                    continue;
                }
                for di in insts {
                    exec_inst(di, gmask, s, env);
                }
            }
        }
        self.terminate(b.term, mask, s, env, None);
    }

    /// Run the region of blocks `region` (priorities; `analysis::region`) for the lanes of
    /// `mask`, entered at its head: group by group, each group through all of the region's
    /// blocks in priority order before the next group. In a loop region a group's lanes that
    /// take a back edge to the head run another pass, until none does (or the launch is
    /// aborted: they are then pending at the head, as the dispatcher would leave them).
    /// Returns the thread-instructions executed.
    fn run_region(
        &self,
        region: std::ops::Range<u32>,
        mask: u32,
        s: &mut [u8],
        env: &CtaEnv,
    ) -> u64 {
        let mut executed = 0u64;
        let looped = self.prog.regions.is_loop(region.start);
        for g in 0..GROUPS {
            let mut head = mask & (((1u32 << GROUP_LANES) - 1) << (g * GROUP_LANES));
            while head != 0 {
                let mut local = [0u32; MAX_BLOCKS];
                local[0] = head;
                for (k, p) in region.clone().enumerate() {
                    let m = std::mem::take(&mut local[k]);
                    if m == 0 {
                        continue;
                    }
                    let b = &self.prog.blocks[p as usize];
                    executed += m.count_ones() as u64 * (b.end - b.start + 1) as u64;
                    // A region block is one segment: it has no warp operation.
                    for di in &self.prog.insts[b.start as usize..b.end as usize] {
                        exec_inst(di, m, s, env);
                    }
                    let ctx = Local {
                        region: region.clone(),
                        looped,
                        masks: &mut local,
                    };
                    self.terminate(b.term, m, s, env, Some(ctx));
                }
                // The lanes back at the head (a loop region's back edges).
                head = local[0];
                if head != 0 && env.aborted() {
                    self.mark_pending(region.start, head, s);
                    break;
                }
            }
        }
        executed
    }

    /// Run terminator `term` for the lanes of `mask`. In a region (`local`), lanes going to
    /// one of its blocks other than the head (or to the head of a loop region) join that
    /// block's mask instead of becoming pending.
    fn terminate(
        &self,
        term: DTerm,
        mask: u32,
        s: &mut [u8],
        env: &CtaEnv,
        mut local: Option<Local<'_>>,
    ) {
        let mut go = |c: DCall, m: u32, s: &mut [u8]| match local.as_mut() {
            Some(l) if l.holds(c.prio) => {
                self.moves(c, m, s);
                l.masks[(c.prio - l.region.start) as usize] |= m;
            }
            _ => self.enter(c, m, s, false),
        };
        match term {
            DTerm::Jump(c) => go(c, mask, s),
            DTerm::Branch { cond, then_, else_ } => {
                let mut taken = 0u32;
                for l in Lanes(mask) {
                    if ld(s, lane(cond.off, l, cond.bytes), cond.bytes) != 0 {
                        taken |= 1 << l;
                    }
                }
                if taken != 0 {
                    go(then_, taken, s);
                }
                if mask & !taken != 0 {
                    go(else_, mask & !taken, s);
                }
            }
            DTerm::Exit => {
                let e = rd32(s, EXITED_OFF);
                wr32(s, EXITED_OFF, e | mask);
            }
            DTerm::Barrier(c) => self.enter(c, mask, s, true),
            DTerm::Trap { fault_inst } => {
                for l in Lanes(mask) {
                    env.fault(l, fault_inst, FaultKind::Trap, Space::Generic, 0, 0, false);
                }
                let e = rd32(s, EXITED_OFF);
                wr32(s, EXITED_OFF, e | mask);
            }
        }
    }

    /// Pass the lanes of `mask` to a block call: copy the arguments into the target's
    /// parameter slots, then make the lanes pending there (or parked, at a barrier).
    fn enter(&self, c: DCall, mask: u32, s: &mut [u8], park: bool) {
        self.moves(c, mask, s);
        if park {
            let off = self.layout.parked(c.prio);
            let m = rd32(s, off);
            wr32(s, off, m | mask);
        } else {
            self.mark_pending(c.prio, mask, s);
        }
    }

    /// Make the lanes of `mask` pending at priority `p`.
    fn mark_pending(&self, p: u32, mask: u32, s: &mut [u8]) {
        let off = self.layout.pending(p);
        let m = rd32(s, off);
        wr32(s, off, m | mask);
        self.set_active(s, p, true);
    }

    /// Copy a block call's arguments into the target's parameter slots for the lanes of
    /// `mask`.
    fn moves(&self, c: DCall, mask: u32, s: &mut [u8]) {
        let mut temp = [0u64; WARP_SIZE as usize];
        for m in &self.prog.moves[c.start as usize..c.end as usize] {
            match *m {
                Move::Copy { src, dst, bytes } => {
                    for l in Lanes(mask) {
                        let v = ld(s, lane(src, l, bytes), bytes);
                        st(s, lane(dst, l, bytes), bytes, v);
                    }
                }
                Move::Save { src, bytes } => {
                    for l in Lanes(mask) {
                        temp[l as usize] = ld(s, lane(src, l, bytes), bytes);
                    }
                }
                Move::Restore { dst, bytes } => {
                    for l in Lanes(mask) {
                        st(s, lane(dst, l, bytes), bytes, temp[l as usize]);
                    }
                }
            }
        }
    }
}

/// A region pass's routing context (`Interpreter::run_region`).
struct Local<'a> {
    /// The region's priorities.
    region: std::ops::Range<u32>,
    /// Whether it is a loop region: its back edges lead to the head's mask.
    looped: bool,
    /// The group's lane mask per block of the region, by position.
    masks: &'a mut [u32; MAX_BLOCKS],
}

impl Local<'_> {
    /// Whether lanes going to priority `p` stay in the pass.
    fn holds(&self, p: u32) -> bool {
        let r = &self.region;
        (p > r.start || self.looped && p == r.start) && p < r.end
    }
}

/// Read argument `k` of `di` for lane `l`.
#[inline]
fn arg(s: &[u8], di: &DInst, k: usize, l: u32) -> u64 {
    let a = di.args[k];
    ld(s, lane(a.off, l, a.bytes), a.bytes)
}

/// Write result `k` of `di` for lane `l`.
#[inline]
fn set_res(s: &mut [u8], di: &DInst, k: usize, l: u32, v: u64) {
    let r = di.res[k];
    st(s, lane(r.off, l, r.bytes), r.bytes, v)
}

/// Execute one instruction for the lanes of `mask`.
fn exec_inst(di: &DInst, mask: u32, s: &mut [u8], env: &CtaEnv) {
    match di.exec {
        Exec::Const(bits) => {
            for l in Lanes(mask) {
                set_res(s, di, 0, l, bits);
            }
        }
        Exec::Pure(op) => {
            let n = di.nargs as usize;
            let tys = &di.arg_tys[..n];
            for l in Lanes(mask) {
                let mut a = [0u64; 4];
                for (k, x) in a.iter_mut().enumerate().take(n) {
                    *x = arg(s, di, k, l);
                }
                let v = semantics::eval_pure(&op, &a[..n], tys, di.res_ty);
                set_res(s, di, 0, l, v);
            }
        }
        Exec::SReg(r) => {
            // Warp-uniform registers (the clocks included) are read once per instruction.
            let once = r
                .is_warp_uniform()
                .then(|| env.sreg(r, mask.trailing_zeros()));
            for l in Lanes(mask) {
                let v = once.unwrap_or_else(|| env.sreg(r, l));
                set_res(s, di, 0, l, v);
            }
        }
        Exec::SymAddr(sym) => {
            // The symbol table is built from the same module as the kernel, so `sym` is in
            // range; an out-of-range index (a loader bug) reads as address 0, which faults
            // on use.
            let v = if (sym as u64) < env.nsymbols {
                // SAFETY: `symbols` points to `nsymbols` addresses alive for the launch.
                unsafe { *env.symbols.add(sym as usize) }
            } else {
                0
            };
            for l in Lanes(mask) {
                set_res(s, di, 0, l, v);
            }
        }
        Exec::Load { space, align } => {
            let size = di.res[0].bytes as u32;
            for l in Lanes(mask) {
                let addr = arg(s, di, 0, l);
                let v = match translate(env, space, addr, size, align, l) {
                    Ok(p) => {
                        init_access(env, space, addr, size, l, di.inst, InitAccess::Read);
                        env.race_access(l, di.inst, p, size, AccessKind::Read);
                        // SAFETY: `translate` checked `size` bytes at `p`.
                        unsafe { host_load(p, size) }
                    }
                    Err(e) => {
                        env.access_fault(l, di.inst, e, addr, size, align, false);
                        0
                    }
                };
                set_res(s, di, 0, l, v);
            }
        }
        Exec::Store { space, align } => {
            let size = di.args[1].bytes as u32;
            for l in Lanes(mask) {
                let addr = arg(s, di, 0, l);
                let v = arg(s, di, 1, l);
                match translate(env, space, addr, size, align, l) {
                    Ok(p) => {
                        init_access(env, space, addr, size, l, di.inst, InitAccess::Write);
                        // SAFETY: `translate` checked `size` bytes at `p`.
                        unsafe { env.race_store(l, di.inst, p, size, &v.to_le_bytes()) };
                        // SAFETY: `translate` checked `size` bytes at `p`.
                        unsafe { host_store(p, size, v) }
                    }
                    Err(e) => env.access_fault(l, di.inst, e, addr, size, align, true),
                }
            }
        }
        Exec::Atom { op, space } => {
            let ty = di.res_ty;
            let access = if matches!(op, crate::ir::AtomOp::Exch) {
                InitAccess::Exchange
            } else {
                InitAccess::Atomic
            };
            for l in Lanes(mask) {
                let addr = arg(s, di, 0, l);
                let b = arg(s, di, 1, l);
                let old = match atomic_ptr(env, space, addr, ty, l, di.inst, access) {
                    Ok(p) => {
                        env.race_access(l, di.inst, p, ty.bytes(), AccessKind::Atomic);
                        let global = crate::runtime::env::resolves_to_global(space, addr);
                        // SAFETY: valid and aligned for `ty.bytes()` bytes (atomic_ptr).
                        unsafe { semantics::atomic_rmw(p, op, ty, b, global) }
                    }
                    Err((kind, sp)) => {
                        env.fault(l, di.inst, kind, sp, addr, ty.bytes(), true);
                        0
                    }
                };
                set_res(s, di, 0, l, old);
            }
        }
        Exec::AtomCas { space } => {
            let ty = di.res_ty;
            for l in Lanes(mask) {
                let addr = arg(s, di, 0, l);
                let cmp = arg(s, di, 1, l);
                let new = arg(s, di, 2, l);
                let old = match atomic_ptr(env, space, addr, ty, l, di.inst, InitAccess::Atomic) {
                    Ok(p) => {
                        env.race_access(l, di.inst, p, ty.bytes(), AccessKind::Atomic);
                        // SAFETY: valid and aligned for `ty.bytes()` bytes (atomic_ptr).
                        unsafe { semantics::atomic_cas(p, ty, cmp, new) }
                    }
                    Err((kind, sp)) => {
                        env.fault(l, di.inst, kind, sp, addr, ty.bytes(), true);
                        0
                    }
                };
                set_res(s, di, 0, l, old);
            }
        }
        Exec::Fence => {
            // One fence orders the accesses of every active lane: they are all this host
            // thread's.
            if mask != 0 {
                std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
            }
        }
        Exec::Shfl { mode } => {
            // Every active lane reads its source lane's value as it was before the shuffle.
            let src = di.args[0];
            let mut snap = [0u32; WARP_SIZE as usize];
            for (l, v) in snap.iter_mut().enumerate() {
                *v = ld(s, lane(src.off, l as u32, src.bytes), src.bytes) as u32;
            }
            for l in Lanes(mask) {
                let b = arg(s, di, 1, l) as u32;
                let c = arg(s, di, 2, l) as u32;
                let members = arg(s, di, 3, l) as u32 & mask;
                let (j, pred) = semantics::shfl(mode, l, b, c, members);
                set_res(s, di, 0, l, snap[j as usize & 31] as u64);
                set_res(s, di, 1, l, pred as u64);
            }
        }
        // Run by `run_block` through `runtime::warp::exec` (a segment of its own).
        Exec::Warp(_) => {}
    }
}

/// The host pointer for an atomic of type `ty` at `addr`: aligned to its size, as the host
/// atomics need (a misaligned device address faults in `translate`; a host pointer is then
/// aligned because the arena and shared memory bases are). With initcheck, the atomic reads
/// and writes its bytes (IR instruction `inst`).
fn atomic_ptr(
    env: &CtaEnv,
    space: Space,
    addr: u64,
    ty: Type,
    lane: u32,
    inst: u32,
    access: InitAccess,
) -> Result<*mut u8, (FaultKind, Space)> {
    let size = ty.bytes();
    let p = translate(env, space, addr, size, size, lane)?;
    if !(p as usize).is_multiple_of(size as usize) {
        return Err((FaultKind::Misaligned, space));
    }
    init_access(env, space, addr, size, lane, inst, access);
    Ok(p)
}
