//! Runtime helpers that JIT code calls (`extern "C"`): the slow paths of memory access, atomics,
//! warp collectives, and pure operations not emitted inline. Each one calls the single
//! definition in `runtime::semantics` / `runtime::env`, so the JIT and the interpreter agree by
//! construction.
//!
//! ⚠ Safety banner: these functions receive raw pointers from JIT code: `env` is the CTA
//! environment of the running warp, `state` its warp state (`WarpLayout::size` bytes), and
//! descriptor pointers point into the owning `JitKernel`, which outlives every call.

use crate::analysis::schedule::WarpLayout;
use crate::ir::{Op, SReg, ShflMode, Space, Type};
use crate::runtime::env::{self, space_from_code, CtaEnv};
use crate::runtime::initcheck::InitAccess;
use crate::runtime::race::AccessKind;
use crate::runtime::semantics;

/// Offset of an 8-byte scratch area in the warp state header that faulting accesses are
/// redirected to (reads 0, writes vanish).
pub const SCRATCH_OFF: u32 = 8;

/// A pure operation evaluated by [`pure_helper`].
#[derive(Debug, Clone)]
pub struct PureDesc {
    pub op: Op,
    pub arg_tys: Vec<Type>,
    pub res_ty: Type,
}

/// Evaluate a pure operation through `semantics::eval_pure`.
///
/// # Safety
/// `desc` points to a live [`PureDesc`].
pub unsafe extern "C" fn pure_helper(desc: *const PureDesc, a: u64, b: u64, c: u64) -> u64 {
    // SAFETY: `desc` points to a PureDesc owned by the JitKernel whose code is running.
    let d = unsafe { &*desc };
    let args = [a, b, c];
    semantics::eval_pure(&d.op, &args[..d.arg_tys.len().min(3)], &d.arg_tys, d.res_ty)
}

/// Full address translation for an access (the slow path: generic addresses, memcheck,
/// and every access that failed the inline check) by the lanes of `lanes`: one lane, or
/// every active lane of a warp-uniform access the code makes once for the warp (`ld.param`
/// in the scalar section, `codegen.rs`). The address is translated for the lowest of them
/// (the same for all: a uniform access reads no per-thread space). Returns the host pointer,
/// or — after recording the fault for every lane of `lanes`, as the interpreter does lane by
/// lane — a pointer to the zeroed scratch area in the warp state.
///
/// `info` packs `space_code | size << 8 | align << 16 | write << 24` (and [`ACCESS_ATOMIC`]
/// for an atomic's address). With initcheck, each lane's access is checked or marked.
///
/// # Safety
/// `env` is the running warp's CTA environment and `state` its warp state.
pub unsafe extern "C" fn access_helper(
    env: *const CtaEnv,
    state: *mut u8,
    addr: u64,
    info: u32,
    lanes: u32,
    inst: u32,
) -> *mut u8 {
    // SAFETY: JIT code passes its own env and state pointers.
    let env = unsafe { &*env };
    let space = space_from_code(info & 0xff);
    let size = (info >> 8) & 0xff;
    let align = (info >> 16) & 0xff;
    let write = (info >> 24) & 1 != 0;
    match env::translate(env, space, addr, size, align, lanes.trailing_zeros() & 31) {
        Ok(p) => {
            if env.memcheck & env::CHECK_INIT != 0 {
                let access = init_kind(info);
                for lane in crate::runtime::warp::lanes(lanes) {
                    env::init_access(env, space, addr, size, lane, inst, access);
                }
            }
            if !env.race.is_null() {
                let kind = race_kind(info);
                for lane in crate::runtime::warp::lanes(lanes) {
                    env.race_access(lane, inst, p, size, kind);
                }
            }
            p
        }
        Err(e) => {
            for lane in crate::runtime::warp::lanes(lanes) {
                env.access_fault(lane, inst, e, addr, size, align, write);
            }
            // SAFETY: the scratch area lies in the warp state header.
            unsafe {
                let p = state.add(SCRATCH_OFF as usize);
                std::ptr::write_bytes(p, 0, 8);
                p
            }
        }
    }
}

/// Loads or stores for the active lanes of a group of four (the general path of the SIMD code:
/// gathers, scatters, generic addresses, faults, memcheck). `io` holds four `u64` addresses,
/// then at byte 32 the four lanes' values packed, `size` bytes each (read for stores, written
/// for loads). `mask4` has bit j for lane `lane0 + j`. Faulting lanes are recorded and load 0.
///
/// # Safety
/// `env`/`state` are the running warp's; `io` points to 64 writable bytes.
pub unsafe extern "C" fn group_access_helper(
    env: *const CtaEnv,
    state: *mut u8,
    io: *mut u8,
    mask4: u32,
    info: u32,
    lane0: u32,
    inst: u32,
) {
    // SAFETY: JIT code passes its own env and a 64-byte stack buffer.
    let (env, io) = unsafe { (&*env, std::slice::from_raw_parts_mut(io, 64)) };
    let _ = state;
    let size = (info >> 8) & 0xff;
    // Without memcheck, initcheck and racecheck no tool hooks an access, so a lane whose
    // address `translate_plain` resolves (this CTA's shared memory, the global arena, the
    // parameters) is copied here; the others (faults, the reserved region, other CTAs'
    // shared memory, local space) take the general path. Lanes go in order either way. The
    // value's size is decided once per call.
    let plain = env.memcheck == 0 && env.race.is_null();
    let m = mask4 & 0xf;
    // SAFETY: `io` is the 64-byte buffer; each lane's value area is inside it.
    unsafe {
        match (size as usize).min(8) {
            1 => group_lanes::<1>(env, io, m, lane0, inst, info, plain),
            2 => group_lanes::<2>(env, io, m, lane0, inst, info, plain),
            4 => group_lanes::<4>(env, io, m, lane0, inst, info, plain),
            8 => group_lanes::<8>(env, io, m, lane0, inst, info, plain),
            _ => group_lanes::<0>(env, io, m, lane0, inst, info, false),
        }
    }
}

/// The lanes `m` of [`group_access_helper`] with values of `N` bytes each (`N` = 0: another
/// size, every lane through [`group_lane_general`]): `plain` (no tool on), a lane that
/// [`env::translate_plain`] resolves is a fixed-size copy; the others go through
/// [`group_lane_general`].
///
/// # Safety
/// `io` is the helper's 64-byte buffer, and `N` is the access's value size (at most 8).
#[inline(always)]
unsafe fn group_lanes<const N: usize>(
    env: &CtaEnv,
    io: &mut [u8],
    mut m: u32,
    lane0: u32,
    inst: u32,
    info: u32,
    plain: bool,
) {
    let space = space_from_code(info & 0xff);
    let size = (info >> 8) & 0xff;
    let align = (info >> 16) & 0xff;
    let write = (info >> 24) & 1 != 0;
    while m != 0 {
        let j = m.trailing_zeros() as usize;
        m &= m - 1;
        if N != 0 && plain {
            let mut a = [0u8; 8];
            a.copy_from_slice(&io[8 * j..8 * j + 8]);
            let addr = u64::from_le_bytes(a);
            if let Some(p) = env::translate_plain(env, space, addr, size, align) {
                let v = &mut io[32 + N * j..32 + N * j + N];
                // SAFETY: translate_plain checked that [p, p+size) is inside the space, and
                // N <= size; `v` is N bytes of the buffer.
                unsafe {
                    if write {
                        std::ptr::copy_nonoverlapping(v.as_ptr(), p, N);
                    } else {
                        std::ptr::copy_nonoverlapping(p, v.as_mut_ptr(), N);
                    }
                }
                continue;
            }
        }
        group_lane_general(env, io, j, lane0 + j as u32, inst, info);
    }
}

/// [`group_access_helper`] for lane `lane` (slot `j` of `io`) through [`env::translate`],
/// with initcheck's and racecheck's hooks; a fault is recorded and a load yields 0.
#[inline(never)]
fn group_lane_general(env: &CtaEnv, io: &mut [u8], j: usize, lane: u32, inst: u32, info: u32) {
    let space = space_from_code(info & 0xff);
    let size = (info >> 8) & 0xff;
    let align = (info >> 16) & 0xff;
    let write = (info >> 24) & 1 != 0;
    let n = (size as usize).min(8);
    let mut a = [0u8; 8];
    a.copy_from_slice(&io[8 * j..8 * j + 8]);
    let addr = u64::from_le_bytes(a);
    let val = 32 + n * j;
    match env::translate(env, space, addr, size, align, lane) {
        Ok(p) => {
            env::init_access(env, space, addr, size, lane, inst, init_kind(info));
            match race_kind(info) {
                // SAFETY: translate checked that [p, p+size) is inside the space.
                AccessKind::Write => unsafe {
                    env.race_store(lane, inst, p, size, &io[val..val + n])
                },
                kind @ (AccessKind::Read | AccessKind::Atomic) => {
                    env.race_access(lane, inst, p, size, kind)
                }
            }
            // SAFETY: translate checked that [p, p+size) is inside the space; the value
            // area of lane j is `n` bytes inside the 64-byte buffer.
            unsafe {
                if write {
                    std::ptr::copy_nonoverlapping(io[val..val + n].as_ptr(), p, n);
                } else {
                    std::ptr::copy_nonoverlapping(p, io[val..val + n].as_mut_ptr(), n);
                }
            }
        }
        Err(e) => {
            env.access_fault(lane, inst, e, addr, size, align, write);
            if !write {
                io[val..val + n].fill(0);
            }
        }
    }
}

/// An atomic operation for one lane: translate (size-aligned), then `semantics::atomic_rmw`
/// or `atomic_cas`. A faulting atomic does nothing and yields 0.
///
/// # Safety
/// `env` is the running warp's CTA environment; `desc` points to a live [`PureDesc`].
pub unsafe extern "C" fn atom_helper(
    env: *const CtaEnv,
    desc: *const PureDesc,
    addr: u64,
    b: u64,
    c: u64,
    lane: u32,
    inst: u32,
) -> u64 {
    // SAFETY: as in access_helper; `desc` is owned by the running JitKernel.
    let (env, d) = unsafe { (&*env, &*desc) };
    let (space, cas, op) = match d.op {
        Op::Atom { op, space } => (space, false, Some(op)),
        Op::AtomCas { space } => (space, true, None),
        _ => return 0,
    };
    let size = d.res_ty.bytes();
    match env::translate(env, space, addr, size, size, lane) {
        Ok(p) => {
            let access = if matches!(op, Some(crate::ir::AtomOp::Exch)) && !cas {
                InitAccess::Exchange
            } else {
                InitAccess::Atomic
            };
            env::init_access(env, space, addr, size, lane, inst, access);
            env.race_access(lane, inst, p, size, AccessKind::Atomic);
            // SAFETY: translate returned a pointer valid for `size` bytes, aligned to `size`.
            unsafe {
                match op {
                    Some(op) if !cas => {
                        let global = env::resolves_to_global(space, addr);
                        semantics::atomic_rmw(p, op, d.res_ty, b, global)
                    }
                    _ => semantics::atomic_cas(p, d.res_ty, b, c),
                }
            }
        }
        Err((kind, sp)) => {
            env.fault(lane, inst, kind, sp, addr, size, true);
            0
        }
    }
}

/// `shfl.sync` over the active lanes of a warp: reads the 32-lane slots of the value and the
/// `b`/`c`/membermask operands, writes the result and predicate slots. `slots` packs
/// `[val, b, c, res, pred, membermask]` offsets.
///
/// # Safety
/// `state` is a warp state and `slots` six 32-lane slot offsets inside it.
pub unsafe extern "C" fn shfl_helper(state: *mut u8, mask: u32, mode: u32, slots: *const u32) {
    // SAFETY: `slots` points to 6 offsets owned by the running JitKernel; every offset is a
    // 32-lane slot inside the warp state.
    let s = unsafe { std::slice::from_raw_parts(slots, 6) };
    let rd = |off: u32, lane: u32| -> u32 {
        // SAFETY: slot offsets are inside the state; i32 slots are 4 bytes per lane.
        unsafe { (state.add((off + 4 * lane) as usize) as *const u32).read_unaligned() }
    };
    let mode = match mode {
        0 => ShflMode::Up,
        1 => ShflMode::Down,
        2 => ShflMode::Bfly,
        _ => ShflMode::Idx,
    };
    let mut vals = [0u32; 32];
    for (l, v) in vals.iter_mut().enumerate() {
        *v = rd(s[0], l as u32);
    }
    let mut m = mask;
    while m != 0 {
        let lane = m.trailing_zeros();
        m &= m - 1;
        let members = rd(s[5], lane) & mask;
        let (j, p) = semantics::shfl(mode, lane, rd(s[1], lane), rd(s[2], lane), members);
        // SAFETY: as above; the JIT's predicate slots are 4 bytes per lane.
        unsafe {
            (state.add((s[3] + 4 * lane) as usize) as *mut u32).write_unaligned(vals[j as usize]);
            (state.add((s[4] + 4 * lane) as usize) as *mut u32).write_unaligned(p as u32);
        }
    }
}

/// `trap` (PTX ISA §9.7.19.3): every lane of `mask` faults at IR location `fault_inst` (the
/// terminator's index, `env::terminator_fault_index`).
///
/// # Safety
/// `env` is the running warp's CTA environment.
pub unsafe extern "C" fn trap_helper(env: *const CtaEnv, mask: u32, fault_inst: u32) {
    // SAFETY: JIT code passes its own env pointer.
    let env = unsafe { &*env };
    let mut m = mask;
    while m != 0 {
        let lane = m.trailing_zeros();
        m &= m - 1;
        env.fault(
            lane,
            fault_inst,
            env::FaultKind::Trap,
            Space::Generic,
            0,
            0,
            false,
        );
    }
}

/// A warp collective or barrier op for [`warp_helper`]: the shared descriptor and the size of
/// the warp state it runs on.
#[derive(Debug, Clone)]
pub struct WarpOpDesc {
    pub desc: crate::runtime::warp::WarpDesc,
    pub state_size: u32,
}

/// A warp collective or barrier op over the lanes of `mask`: `runtime::warp::exec`, the same
/// code the interpreter runs.
///
/// # Safety
/// `env` is the running warp's CTA environment, `state` its warp state of
/// `desc.state_size` bytes, and `desc` points to a live [`WarpOpDesc`].
pub unsafe extern "C" fn warp_helper(
    env: *const CtaEnv,
    state: *mut u8,
    mask: u32,
    desc: *const WarpOpDesc,
) {
    // SAFETY: JIT code passes its own env and warp state (`state_size` bytes, the layout the
    // code was generated for); `desc` is owned by the running JitKernel.
    let (env, d) = unsafe { (&*env, &*desc) };
    // SAFETY: as above; the warp state is not otherwise borrowed during the call.
    let s = unsafe { std::slice::from_raw_parts_mut(state, d.state_size as usize) };
    crate::runtime::warp::exec(&d.desc, mask, s, env);
}

/// A barrier arrival whose barrier id, thread count and predicate are warp-uniform (scalars
/// in the JIT code): `runtime::warp::bar_arrive_mask` for the lanes of `mask` at once, without
/// reading per-lane operand slots.
///
/// # Safety
/// As [`warp_helper`]; `desc` describes a `BarArrive` op.
pub unsafe extern "C" fn bar_uniform_helper(
    env: *const CtaEnv,
    state: *mut u8,
    mask: u32,
    id: u32,
    threads: u32,
    pred: u32,
    desc: *const WarpOpDesc,
) {
    // SAFETY: as in warp_helper.
    let (env, d) = unsafe { (&*env, &*desc) };
    // SAFETY: as in warp_helper.
    let s = unsafe { std::slice::from_raw_parts_mut(state, d.state_size as usize) };
    if let Op::BarArrive { kind, aligned } = d.desc.op {
        let pred_bits = if pred != 0 { mask } else { 0 };
        crate::runtime::warp::bar_arrive_mask(
            s,
            mask,
            id,
            threads,
            pred_bits,
            kind,
            aligned,
            d.desc.inst,
            env,
        );
    }
}

/// Special registers the JIT reads through [`sreg_helper`] (the others are inline), by code.
pub const HELPER_SREGS: [SReg; 35] = [
    SReg::EnvReg(1),
    SReg::EnvReg(2),
    SReg::Clock,
    SReg::ClockHi,
    SReg::Clock64,
    SReg::GlobalTimer,
    SReg::GlobalTimerLo,
    SReg::GlobalTimerHi,
    SReg::SmId,
    SReg::NSmId,
    SReg::GridId,
    SReg::DynamicSmemSize,
    SReg::TotalSmemSize,
    SReg::AggrSmemSize,
    SReg::ReservedSmemBegin,
    SReg::ReservedSmemEnd,
    SReg::ReservedSmemCap,
    SReg::ReservedSmemOffset0,
    SReg::ReservedSmemOffset1,
    SReg::ClusterIdX,
    SReg::ClusterIdY,
    SReg::ClusterIdZ,
    SReg::NClusterIdX,
    SReg::NClusterIdY,
    SReg::NClusterIdZ,
    SReg::ClusterCtaidX,
    SReg::ClusterCtaidY,
    SReg::ClusterCtaidZ,
    SReg::ClusterNctaidX,
    SReg::ClusterNctaidY,
    SReg::ClusterNctaidZ,
    SReg::ClusterCtaRank,
    SReg::ClusterNctaRank,
    SReg::IsExplicitCluster,
    SReg::CurrentGraphExec,
];

/// Read special register `HELPER_SREGS[code]` for `lane` (`CtaEnv::sreg`).
///
/// # Safety
/// `env` is the running warp's CTA environment.
pub unsafe extern "C" fn sreg_helper(env: *const CtaEnv, code: u32, lane: u32) -> u64 {
    // SAFETY: JIT code passes its own env pointer.
    let env = unsafe { &*env };
    match HELPER_SREGS.get(code as usize) {
        Some(&r) => env.sreg(r, lane),
        None => 0,
    }
}

/// The encoding of a shuffle mode for [`shfl_helper`].
pub fn shfl_mode_code(m: ShflMode) -> u32 {
    match m {
        ShflMode::Up => 0,
        ShflMode::Down => 1,
        ShflMode::Bfly => 2,
        ShflMode::Idx => 3,
    }
}

/// Pack access info for [`access_helper`].
pub fn access_info(space: Space, size: u32, align: u32, write: bool) -> u32 {
    env::space_code(space) | size << 8 | align.min(255) << 16 | (write as u32) << 24
}

/// [`access_info`]'s bit for an atomic's address (initcheck: a read, see
/// [`InitAccess::Atomic`]).
pub const ACCESS_ATOMIC: u32 = 1 << 25;
/// [`access_info`]'s bit, with [`ACCESS_ATOMIC`], for `atom.exch` (initcheck: a read, then a
/// write).
pub const ACCESS_EXCH: u32 = 1 << 26;

/// How an access of `info` ([`access_info`], [`ACCESS_ATOMIC`]) uses its bytes.
fn init_kind(info: u32) -> InitAccess {
    if info & ACCESS_EXCH != 0 {
        InitAccess::Exchange
    } else if info & ACCESS_ATOMIC != 0 {
        InitAccess::Atomic
    } else if (info >> 24) & 1 != 0 {
        InitAccess::Write
    } else {
        InitAccess::Read
    }
}

/// How an access of `info` ([`access_info`], [`ACCESS_ATOMIC`]) counts for racecheck.
fn race_kind(info: u32) -> AccessKind {
    if info & ACCESS_ATOMIC != 0 {
        AccessKind::Atomic
    } else if (info >> 24) & 1 != 0 {
        AccessKind::Write
    } else {
        AccessKind::Read
    }
}

/// Layout facts the code generator needs beyond [`WarpLayout`].
pub fn header_ok(layout: &WarpLayout) -> bool {
    layout.pending_off >= SCRATCH_OFF + 8
}
