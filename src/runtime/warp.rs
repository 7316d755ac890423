//! Warp collectives and CTA-barrier arrivals, executed on a warp state for the lanes of an
//! execution mask: one implementation that both engines call (the interpreter directly, the
//! JIT through `jit::helpers::warp_helper`), so they agree by construction.
//!
//! Operands and results live in the value slots of the warp state (`slot + lane * bytes`, see
//! `analysis::schedule`); a [`WarpDesc`] names them. Results are written for the lanes of the
//! mask only. The per-lane results come from `runtime::semantics` (`vote`, `match_any`, …);
//! barrier arrivals update the warp's barrier records, which the CTA scheduler
//! (`runtime::launch`) reads when every warp has stopped.

use super::env::{CtaEnv, FaultKind};
use crate::analysis::schedule::{
    bar_field, BAR_ALIGNED, BAR_ARRIVED, BAR_COUNT, BAR_FLAGS, BAR_INST, BAR_INST2, BAR_LANES2,
    BAR_PRED, BAR_RESULT_OFF, BAR_SPLIT, BAR_THREADS, BAR_WAITING, EXITED_OFF, LIVE_OFF, WARP_SIZE,
    WSYNC_INST_OFF, WSYNC_MASK_OFF, WSYNC_WAIT_OFF,
};
use crate::ir::{Op, Space};
use crate::runtime::semantics;

/// A value slot: lane `l` at `off + l * bytes`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WarpSlot {
    pub off: u32,
    pub bytes: u32,
}

/// One warp operation, resolved to slots.
#[derive(Clone, Debug, PartialEq)]
pub struct WarpDesc {
    pub op: Op,
    /// IR instruction index (fault reports, barrier records).
    pub inst: u32,
    pub args: Vec<WarpSlot>,
    pub res: Vec<WarpSlot>,
}

/// The lanes of a mask, lowest first.
pub(crate) fn lanes(mut m: u32) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        if m == 0 {
            return None;
        }
        let l = m.trailing_zeros();
        m &= m - 1;
        Some(l)
    })
}

fn rd(s: &[u8], off: u32, bytes: u32) -> u64 {
    let o = off as usize;
    // Fixed-size copies (a variable-length copy is a `memmove` call).
    fn get<const N: usize>(s: &[u8], o: usize) -> Option<[u8; N]> {
        s.get(o..o + N).and_then(|b| b.try_into().ok())
    }
    match bytes {
        1 => get::<1>(s, o).map_or(0, |b| b[0] as u64),
        2 => get::<2>(s, o).map_or(0, |b| u16::from_le_bytes(b) as u64),
        4 => get::<4>(s, o).map_or(0, |b| u32::from_le_bytes(b) as u64),
        8 => get::<8>(s, o).map_or(0, u64::from_le_bytes),
        n => {
            let mut b = [0u8; 8];
            let n = (n as usize).min(8);
            if let Some(src) = s.get(o..o + n) {
                b[..n].copy_from_slice(src);
            }
            u64::from_le_bytes(b)
        }
    }
}

fn wr(s: &mut [u8], off: u32, bytes: u32, v: u64) {
    let o = off as usize;
    fn put<const N: usize>(s: &mut [u8], o: usize, b: [u8; N]) {
        if let Some(dst) = s.get_mut(o..o + N) {
            dst.copy_from_slice(&b);
        }
    }
    match bytes {
        1 => put(s, o, [v as u8]),
        2 => put(s, o, (v as u16).to_le_bytes()),
        4 => put(s, o, (v as u32).to_le_bytes()),
        8 => put(s, o, v.to_le_bytes()),
        n => {
            let n = (n as usize).min(8);
            if let Some(dst) = s.get_mut(o..o + n) {
                dst.copy_from_slice(&v.to_le_bytes()[..n]);
            }
        }
    }
}

/// Read a `u32` header word of a warp state.
pub fn rd32(s: &[u8], off: u32) -> u32 {
    rd(s, off, 4) as u32
}

/// Write a `u32` header word of a warp state.
pub fn wr32(s: &mut [u8], off: u32, v: u32) {
    wr(s, off, 4, v as u64)
}

impl WarpDesc {
    /// Argument `k` of `lane`, zero-extended (0 when there is none).
    pub(crate) fn arg(&self, s: &[u8], k: usize, lane: u32) -> u64 {
        match self.args.get(k) {
            Some(a) => rd(s, a.off + lane * a.bytes, a.bytes),
            None => 0,
        }
    }

    /// Whether argument `k` is `v` in every lane of `mask`, read straight from the slot when
    /// it holds 64-bit values and every lane is in `mask`.
    pub(crate) fn arg_in_lanes_is(&self, s: &[u8], k: usize, mask: u32, v: u64) -> bool {
        let words = self
            .args
            .get(k)
            .filter(|a| a.bytes == 8)
            .and_then(|a| s.get(a.off as usize..a.off as usize + 8 * WARP_SIZE as usize));
        match words {
            Some(src) if mask == u32::MAX => src
                .chunks_exact(8)
                .all(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]) == v),
            _ => lanes(mask).all(|l| self.arg(s, k, l) == v),
        }
    }

    /// Set result `k` of `lane` (truncated to the slot's width).
    pub(crate) fn set(&self, s: &mut [u8], k: usize, lane: u32, v: u64) {
        if let Some(r) = self.res.get(k) {
            wr(s, r.off + lane * r.bytes, r.bytes, v);
        }
    }

    /// Argument `k` of every lane of `mask` as 32-bit values (others 0), read straight from
    /// the slot when it holds 32-bit values.
    pub(crate) fn gather32(&self, s: &[u8], k: usize, mask: u32) -> [u32; WARP_SIZE as usize] {
        let mut v = [0u32; WARP_SIZE as usize];
        let words = self
            .args
            .get(k)
            .filter(|a| a.bytes == 4)
            .and_then(|a| s.get(a.off as usize..a.off as usize + 4 * WARP_SIZE as usize));
        match words {
            // Every lane: the slot as it is (one copy, not a loop over the mask's bits).
            Some(src) if mask == u32::MAX => {
                for (w, b) in v.iter_mut().zip(src.chunks_exact(4)) {
                    *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                }
            }
            Some(src) => {
                for l in lanes(mask) {
                    let o = l as usize * 4;
                    v[l as usize] =
                        u32::from_le_bytes([src[o], src[o + 1], src[o + 2], src[o + 3]]);
                }
            }
            None => {
                for l in lanes(mask) {
                    v[l as usize] = self.arg(s, k, l) as u32;
                }
            }
        }
        v
    }

    /// Set result `k` of every lane of `mask` to its value in `v` (truncated to the slot's
    /// width), written straight into the slot when it holds 32-bit values.
    pub(crate) fn scatter32(
        &self,
        s: &mut [u8],
        k: usize,
        mask: u32,
        v: &[u32; WARP_SIZE as usize],
    ) {
        let Some(r) = self.res.get(k) else { return };
        let words = (r.bytes == 4)
            .then(|| s.get_mut(r.off as usize..r.off as usize + 4 * WARP_SIZE as usize))
            .flatten();
        match words {
            Some(dst) if mask == u32::MAX => {
                for (b, w) in dst.chunks_exact_mut(4).zip(v) {
                    b.copy_from_slice(&w.to_le_bytes());
                }
            }
            Some(dst) => {
                for l in lanes(mask) {
                    let o = l as usize * 4;
                    dst[o..o + 4].copy_from_slice(&v[l as usize].to_le_bytes());
                }
            }
            None => {
                for l in lanes(mask) {
                    self.set(s, k, l, v[l as usize] as u64);
                }
            }
        }
    }

    /// Argument `k` of every lane of `mask` (others 0).
    fn gather(&self, s: &[u8], k: usize, mask: u32) -> [u64; WARP_SIZE as usize] {
        let mut v = [0u64; WARP_SIZE as usize];
        for l in lanes(mask) {
            v[l as usize] = self.arg(s, k, l);
        }
        v
    }
}

/// Execute warp operation `d` for the lanes of `mask` on warp state `s`. Operations other
/// than the collectives and barrier ops listed in `ir::ops` (`Shfl` has its own code paths)
/// do nothing.
pub fn exec(d: &WarpDesc, mask: u32, s: &mut [u8], env: &CtaEnv) {
    if mask == 0 {
        return;
    }
    if d.op.is_texture() {
        super::texwarp::exec(d, mask, s, env);
        return;
    }
    match d.op {
        Op::Vote { mode } => {
            let mut preds = 0u32;
            for l in lanes(mask) {
                if d.arg(s, 0, l) != 0 {
                    preds |= 1 << l;
                }
            }
            let groups = d.gather32(s, 1, mask);
            // The usual case, every lane naming the same membermask (`0xffffffff`): one
            // result for every lane, computed once and written lane-consecutively.
            let group0 = groups[mask.trailing_zeros() as usize] & mask;
            let results: [u32; WARP_SIZE as usize] =
                if lanes(mask).all(|l| groups[l as usize] & mask == group0) {
                    [semantics::vote(mode, preds, group0); WARP_SIZE as usize]
                } else {
                    std::array::from_fn(|l| semantics::vote(mode, preds, groups[l] & mask))
                };
            d.scatter32(s, 0, mask, &results);
        }
        Op::Mma { spec } => super::mma::exec(d, &spec, mask, s, env),
        Op::Wgmma { spec } => super::wgmma::exec(d, &spec, mask, s, env),
        Op::MBarrier { op, space } => super::mbarrier::exec(d, op, space, mask, s, env),
        Op::Tcgen05 { op } => super::tcgen05::exec(d, op, mask, s, env),
        Op::Tensor { op } => super::tma::exec(d, op, mask, s, env),
        Op::ClusterBarrier { op } => super::cluster::exec_barrier(d, op, mask, s, env),
        Op::Mapa { generic } => super::cluster::exec_map(d, true, generic, mask, s, env),
        Op::GetCtaRank { generic } => super::cluster::exec_map(d, false, generic, mask, s, env),
        Op::ClcTryCancel {} => super::clc::exec(d, mask, s, env),
        Op::Atom128 { cas, space } => super::atom128::exec(d, cas, space, mask, s, env),
        Op::Strong128 { store, space } => {
            super::atom128::exec_strong(d, store, space, mask, s, env)
        }
        Op::Activemask {} => {
            for l in lanes(mask) {
                d.set(s, 0, l, mask as u64);
            }
        }
        Op::Match { all } => {
            let vals = d.gather(s, 0, mask);
            for l in lanes(mask) {
                let group = d.arg(s, 1, l) as u32 & mask;
                if all {
                    let (m, p) = semantics::match_all(&vals, group);
                    d.set(s, 0, l, m as u64);
                    d.set(s, 1, l, p as u64);
                } else {
                    d.set(s, 0, l, semantics::match_any(&vals, group, l) as u64);
                    d.set(s, 1, l, 1);
                }
            }
        }
        Op::Redux { op } => {
            let wide = d.gather(s, 0, mask);
            let vals: [u32; WARP_SIZE as usize] = std::array::from_fn(|k| wide[k] as u32);
            for l in lanes(mask) {
                let group = d.arg(s, 1, l) as u32 & mask;
                d.set(s, 0, l, semantics::redux(op, &vals, group) as u64);
            }
        }
        Op::Elect {} => {
            for l in lanes(mask) {
                let group = d.arg(s, 0, l) as u32 & mask;
                let (leader, me) = semantics::elect(group, l);
                d.set(s, 0, l, leader as u64);
                d.set(s, 1, l, me as u64);
            }
        }
        Op::BarArrive { kind, aligned } => {
            // Fast path: every lane names the same barrier and thread count (the usual
            // `bar.sync 0`), so the lanes arrive together as one mask.
            let first = mask.trailing_zeros();
            let (id0, threads0) = (d.arg(s, 0, first) as u32, d.arg(s, 1, first) as u32);
            let mut pred_bits = 0u32;
            let mut same = true;
            for l in lanes(mask) {
                if !same {
                    break;
                }
                same = d.arg(s, 0, l) as u32 == id0 && d.arg(s, 1, l) as u32 == threads0;
                if d.arg(s, 2, l) != 0 {
                    pred_bits |= 1 << l;
                }
            }
            if same {
                bar_arrive_mask(
                    s, mask, id0, threads0, pred_bits, kind, aligned, d.inst, env,
                );
                return;
            }
            for l in lanes(mask) {
                let id = d.arg(s, 0, l) as u32;
                let threads = d.arg(s, 1, l) as u32;
                let pred = d.arg(s, 2, l) != 0;
                let bad = bad_barrier_operand(id, threads);
                if let Some(v) = bad {
                    env.fault(
                        l,
                        d.inst,
                        FaultKind::Barrier,
                        Space::Generic,
                        v as u64,
                        0,
                        false,
                    );
                    continue;
                }
                let p = if pred { 1 << l } else { 0 };
                arrive(s, id, 1 << l, kind, aligned, threads, p, d.inst);
            }
        }
        Op::BarResult { .. } => {
            for l in lanes(mask) {
                let r = rd32(s, BAR_RESULT_OFF + 4 * l);
                d.set(s, 0, l, r as u64);
            }
        }
        Op::Printf {} => {
            let mut text = String::new();
            for l in lanes(mask) {
                let (fmt, args) = (d.arg(s, 0, l), d.arg(s, 1, l));
                let mem = LaneMem { env, lane: l };
                let n = match super::printf::format(&mem, fmt, args) {
                    Some(t) => {
                        text.push_str(&t);
                        t.len() as i64
                    }
                    None => {
                        env.fault(
                            l,
                            d.inst,
                            FaultKind::OutOfBounds,
                            Space::Generic,
                            fmt,
                            1,
                            false,
                        );
                        -1
                    }
                };
                d.set(s, 0, l, n as u32 as u64);
            }
            if !text.is_empty() {
                write_printf(env, &text);
            }
        }
        Op::Yield {} => {
            // Each lane waits for itself alone: released at the scheduler's next round.
            for l in lanes(mask) {
                let bit = 1u32 << l;
                wr32(s, WSYNC_WAIT_OFF, rd32(s, WSYNC_WAIT_OFF) | bit);
                wr32(s, WSYNC_MASK_OFF + 4 * l, bit);
                wr32(s, WSYNC_INST_OFF + 4 * l, d.inst + 1);
                d.set(s, 0, l, 1);
            }
        }
        Op::Malloc {} => {
            // SAFETY: `heap` is null or points to the context's heap, which outlives the
            // launch (the launch borrows the context).
            let heap = unsafe { env.heap.as_ref() };
            for l in lanes(mask) {
                let (size, align) = (d.arg(s, 0, l), d.arg(s, 1, l));
                let p = heap.map_or(0, |h| h.malloc(size, align));
                if p != 0 {
                    // racecheck: the block is new memory to the CTA (the heap orders its
                    // earlier life, under another owner, before this one).
                    env.race_fresh(p, size);
                }
                d.set(s, 0, l, p);
            }
        }
        Op::Free {} => {
            // SAFETY: as for `Malloc`.
            let heap = unsafe { env.heap.as_ref() };
            for l in lanes(mask) {
                let p = d.arg(s, 0, l);
                if p != 0 && heap.is_none_or(|h| h.free(p).is_err()) {
                    env.fault(l, d.inst, FaultKind::BadFree, Space::Generic, p, 0, false);
                }
            }
        }
        Op::AssertFail {} => {
            for l in lanes(mask) {
                let mem = LaneMem { env, lane: l };
                let text_at = |k: usize| super::printf::c_string(&mem, d.arg(s, k, l));
                let (msg, file, func) = (text_at(0), text_at(1), text_at(3));
                let line = d.arg(s, 2, l) as u32;
                let [bx, by, bz] = env.ctaid;
                let [tx, ty, tz] = env.tid(l);
                // CUDA's own wording, one line per failing thread, printed when the launch
                // ends (in order of CTA and thread).
                let text = format!(
                    "{file}:{line}: {func}: block: [{bx},{by},{bz}], thread: [{tx},{ty},{tz}] \
                     Assertion `{msg}` failed.\n"
                );
                let detail = format!("`{msg}` ({file}:{line}, in {func})");
                env.assert_failed(l, d.inst, detail, text);
            }
        }
        Op::CallCheck { base } => {
            // The stack ends where the thread's local memory does: the launch sizes it.
            let (limit, size) = (env.local_size, env.local_size.saturating_sub(base as u64));
            for l in lanes(mask) {
                let (top, depth) = (d.arg(s, 0, l), d.arg(s, 1, l) as u32);
                let (ptr, state) = (d.arg(s, 2, l), d.arg(s, 3, l) as u32);
                let fault = if state == u32::MAX {
                    Some((FaultKind::BadCallTarget, ptr, 0))
                } else if top > limit {
                    Some((FaultKind::StackOverflow, depth as u64, size as u32))
                } else {
                    None
                };
                match fault {
                    Some((kind, addr, sz)) => {
                        env.fault(l, d.inst, kind, Space::Local, addr, sz, false)
                    }
                    // What the next CTA on this buffer must zero-fill (`CtaEnv::clear_local`).
                    None => {
                        env.stack_high
                            .fetch_max(top, std::sync::atomic::Ordering::Relaxed);
                    }
                }
                d.set(s, 0, l, fault.is_none() as u64);
            }
        }
        Op::WarpSync { fence } => {
            warp_sync(d, mask, s, env);
            if fence {
                // All lanes of the warp run on this host thread; the fence orders their
                // accesses with respect to other CTAs as `membar.cta` would.
                std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
            }
        }
        // Both engines build a `WarpDesc` only for `warp_ops!()` (texture ops returned above),
        // so any other op here is a bug of ptxjit: report it as a fault, never skip it.
        op => {
            let lane = mask.trailing_zeros();
            let detail = format!("internal error: {op:?} reached the warp-operation routine");
            env.fault_detail(lane, d.inst, FaultKind::Unsupported, detail);
        }
    }
}

/// The lanes of warp state `s` parked at a yield point (`Op::Yield`), with the yield's IR
/// instruction index per lane (others: 0). A yielded lane waits for itself alone, which no
/// warp-level synchronization does ([`warp_sync`] parks a lane only for lanes of its
/// membermask that are not executing with it), so that is how the two are told apart.
pub(crate) fn yielded_lanes(s: &[u8]) -> (u32, [u32; WARP_SIZE as usize]) {
    let mut yielded = 0u32;
    let mut inst = [0u32; WARP_SIZE as usize];
    for l in lanes(rd32(s, WSYNC_WAIT_OFF)) {
        if rd32(s, WSYNC_MASK_OFF + 4 * l) == 1 << l {
            yielded |= 1 << l;
            inst[l as usize] = rd32(s, WSYNC_INST_OFF + 4 * l).saturating_sub(1);
        }
    }
    (yielded, inst)
}

/// The arrival of the lanes of `mask` at a warp-level synchronization (`Op::WarpSync`): each
/// lane's result says whether it must wait, i.e. whether some non-exited lane of its
/// membermask is not executing with it (PTX ISA §9.7.13.2 `bar.warp.sync`; the `.sync`
/// collectives §9.7.9.6, §9.7.13.9–14: "wait until all non-exited threads in membermask have
/// executed" them). Lanes that do not exist (a partial last warp) count as exited. A waiting
/// lane's membermask and instruction are recorded (`WSYNC_*` in the warp state); the CTA
/// scheduler releases it once every non-exited lane of its membermask waits as well
/// (`launch::release_warp_syncs`), so lanes that took different paths to their
/// synchronization meet there, as with independent thread scheduling.
///
/// Faults: a lane not in its own membermask (undefined in PTX).
fn warp_sync(d: &WarpDesc, mask: u32, s: &mut [u8], env: &CtaEnv) {
    let live = rd32(s, LIVE_OFF);
    let exited = rd32(s, EXITED_OFF) & live;
    let alive = live & !exited;
    // The usual case without racecheck: every lane names one membermask that holds all of
    // them (`__syncwarp()` by the whole warp), so none faults and none waits.
    let mms = d.gather32(s, 0, mask);
    let mm0 = mms[mask.trailing_zeros() as usize];
    if env.race.is_null()
        && mask & !mm0 == 0
        && mm0 & alive & !mask == 0
        && lanes(mask).all(|l| mms[l as usize] == mm0)
    {
        d.scatter32(s, 0, mask, &[0; WARP_SIZE as usize]);
        if env.synccheck().is_some() {
            check_warp_sync(d, mask, s, env, alive, exited);
        }
        return;
    }
    let mut synced = None;
    for l in lanes(mask) {
        let mm = mms[l as usize];
        let bit = 1u32 << l;
        if mm & bit == 0 {
            env.fault(
                l,
                d.inst,
                FaultKind::MemberMask,
                Space::Generic,
                mm as u64,
                0,
                false,
            );
            d.set(s, 0, l, 0);
            continue;
        }
        let wait = mm & alive & !mask != 0;
        if wait {
            wr32(s, WSYNC_WAIT_OFF, rd32(s, WSYNC_WAIT_OFF) | bit);
            wr32(s, WSYNC_MASK_OFF + 4 * l, mm);
            wr32(s, WSYNC_INST_OFF + 4 * l, d.inst + 1);
        } else if !env.race.is_null() && synced != Some(mm) {
            // racecheck: the lane synchronizes with its membermask's lanes, all here (once
            // per run of lanes with the same membermask).
            env.race_warp_sync(mm & alive);
            synced = Some(mm);
        }
        d.set(s, 0, l, wait as u64);
    }
    if env.synccheck().is_some() {
        check_warp_sync(d, mask, s, env, alive, exited);
    }
}

/// synccheck at a warp-level synchronization executed by the lanes of `mask` (`alive`: the
/// warp's non-exited lanes, `exited`: those that exited): membermasks that name lanes that
/// have exited (checked here for the lanes that go on; for those that wait, when they are
/// released: `launch::release_warp_syncs`), and lanes executing together that name each
/// other with different membermasks (CUDA: "all non-exited threads named in mask must
/// execute the same intrinsic with the same mask"). Lanes that do not exist (a partial last
/// warp) are not findings: `__syncwarp()` in a block of 80 threads is fine.
fn check_warp_sync(d: &WarpDesc, mask: u32, s: &[u8], env: &CtaEnv, alive: u32, exited: u32) {
    use super::synccheck::SyncKind;
    let mm: [u32; WARP_SIZE as usize] = std::array::from_fn(|l| d.arg(s, 0, l as u32) as u32);
    let (mut gone, mut mismatch) = (0u32, 0u32);
    let (mut gone_first, mut mismatch_first) = (None, None);
    for l in lanes(mask) {
        let m = mm[l as usize];
        if m & (1 << l) == 0 {
            continue; // a fault already (`FaultKind::MemberMask`)
        }
        let goes_on = m & alive & !mask == 0;
        if goes_on && m & exited != 0 {
            gone |= 1 << l;
            gone_first.get_or_insert((m, m & exited));
        }
        if let Some(k) = lanes(m & mask).find(|&k| mm[k as usize] != m) {
            mismatch |= 1 << l;
            mismatch_first.get_or_insert((l, m, k, mm[k as usize]));
        }
    }
    if let Some((m, g)) = gone_first {
        env.sync_finding(SyncKind::MaskExited, d.inst, gone, || {
            mask_exited_detail(env.warp, gone, m, g)
        });
    }
    if let Some((l, m, k, mk)) = mismatch_first {
        env.sync_finding(SyncKind::MaskMismatch, d.inst, mismatch, || {
            format!(
                "lane {l} of warp {} names lane {k} in membermask {m:#010x}, but lane {k} \
                 executes it with membermask {mk:#010x}",
                env.warp
            )
        });
    }
}

/// The words of a [`super::synccheck::SyncKind::MaskExited`] finding: lanes `lanes` of warp
/// `warp` went on with membermask `m`, whose lanes `gone` exited without executing the
/// synchronization (before it, or while the others waited there).
pub(crate) fn mask_exited_detail(warp: u32, lanes: u32, m: u32, gone: u32) -> String {
    format!(
        "lanes {} of warp {warp} synchronize on membermask {m:#010x}, which names lanes {} \
         that exited without executing it",
        super::launch::fmt_lanes(lanes),
        super::launch::fmt_lanes(gone)
    )
}

/// The offending value of a barrier's operands, if any (PTX ISA §9.7.13.1: ids 0..15; a
/// thread count is a multiple of the warp size).
fn bad_barrier_operand(id: u32, threads: u32) -> Option<u32> {
    if id >= BAR_COUNT {
        Some(id)
    } else if !threads.is_multiple_of(WARP_SIZE) {
        Some(threads)
    } else {
        None
    }
}

/// Write one warp's `printf` or `assert` text to the launching context's printf output
/// (stdout when the environment has none).
fn write_printf(env: &CtaEnv, text: &str) {
    // SAFETY: `printf` is null or points to the launching context's output, which outlives
    // the launch (the launch borrows the context).
    match unsafe { env.printf.as_ref() } {
        Some(out) => out.write(text),
        None => super::printf::PrintfOutput::default().write(text),
    }
}

/// Device memory as one lane sees it (generic addresses, its own local window).
struct LaneMem<'e> {
    env: &'e CtaEnv,
    lane: u32,
}

impl super::printf::DeviceBytes for LaneMem<'_> {
    fn byte(&self, addr: u64) -> Option<u8> {
        let p = super::env::translate(self.env, Space::Generic, addr, 1, 1, self.lane).ok()?;
        // SAFETY: `translate` checked one byte at `p`; other threads may write device memory
        // concurrently, so it is read atomically.
        Some(
            unsafe { std::sync::atomic::AtomicU8::from_ptr(p) }
                .load(std::sync::atomic::Ordering::Relaxed),
        )
    }
}

/// `bar`/`barrier` (PTX ISA §9.7.13.1) for the lanes of `mask`, which all name barrier `id`
/// and thread count `threads` (0: all threads); `pred_bits` are the lanes whose predicate is
/// true. A bad id or count faults every lane of the mask. The same as the lanes arriving one
/// after another.
#[allow(clippy::too_many_arguments)]
pub fn bar_arrive_mask(
    s: &mut [u8],
    mask: u32,
    id: u32,
    threads: u32,
    pred_bits: u32,
    kind: crate::ir::BarKind,
    aligned: bool,
    inst: u32,
    env: &CtaEnv,
) {
    let bad = bad_barrier_operand(id, threads);
    if let Some(v) = bad {
        for l in lanes(mask) {
            env.fault(
                l,
                inst,
                FaultKind::Barrier,
                Space::Generic,
                v as u64,
                0,
                false,
            );
        }
        return;
    }
    arrive(s, id, mask, kind, aligned, threads, pred_bits & mask, inst);
}

/// Record the arrival of the lanes `bits` (all at the same instruction, naming the same
/// barrier and thread count) at barrier `id`; `pred_bits` are those whose predicate is true.
/// The same as their arrivals one lane after another.
#[allow(clippy::too_many_arguments)]
fn arrive(
    s: &mut [u8],
    id: u32,
    bits: u32,
    kind: crate::ir::BarKind,
    aligned: bool,
    threads: u32,
    pred_bits: u32,
    inst: u32,
) {
    let arrived = rd32(s, bar_field(id, BAR_ARRIVED));
    if arrived == 0 {
        wr32(s, bar_field(id, BAR_THREADS), threads);
        wr32(s, bar_field(id, BAR_INST), inst + 1);
        let flags = kind.code() | if aligned { BAR_ALIGNED } else { 0 };
        wr32(s, bar_field(id, BAR_FLAGS), flags);
    } else if rd32(s, bar_field(id, BAR_INST)) != inst + 1 {
        let f = rd32(s, bar_field(id, BAR_FLAGS));
        let a = if aligned { BAR_ALIGNED } else { 0 };
        wr32(s, bar_field(id, BAR_FLAGS), f | BAR_SPLIT | a);
        wr32(s, bar_field(id, BAR_INST2), inst + 1);
        let l2 = rd32(s, bar_field(id, BAR_LANES2));
        wr32(s, bar_field(id, BAR_LANES2), l2 | bits);
    }
    wr32(s, bar_field(id, BAR_ARRIVED), arrived | bits);
    if kind.waits() {
        let w = rd32(s, bar_field(id, BAR_WAITING));
        wr32(s, bar_field(id, BAR_WAITING), w | bits);
    }
    if pred_bits != 0 {
        let p = rd32(s, bar_field(id, BAR_PRED));
        wr32(s, bar_field(id, BAR_PRED), p | pred_bits);
    }
}
