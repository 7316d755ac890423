//! The grid/CTA/warp scheduler shared by both engines.
//!
//! A launch runs its CTAs in parallel on a thread pool (rayon: one worker per core). Each worker
//! runs whole CTAs: it allocates the CTA's shared memory and one warp state per warp
//! ([`WarpLayout`]), then calls the engine's [`WarpEngine::run_warp`] for each warp until the warp
//! has no pending lanes. When every warp has stopped, lanes parked at barriers are released if
//! every non-exited thread of the CTA is parked; the CTA ends when all threads have exited.

use super::env::{CtaEnv, FaultRecord, FaultSink};
use super::memory::DeviceMemory;
use crate::analysis::schedule::{WarpLayout, EXITED_OFF, LIVE_OFF, WARP_SIZE};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What a call to [`WarpEngine::run_warp`] ended with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpStatus {
    /// No lane is pending: every lane has exited or is parked at a barrier.
    Stopped,
    /// The launch's abort flag was seen (a fault, or the time limit).
    Aborted,
}

/// An engine that runs one warp of a compiled kernel.
pub trait WarpEngine: Sync + Send {
    /// The warp-state layout the engine was built for.
    fn layout(&self) -> &WarpLayout;
    /// Run the warp whose state is `state` (`layout().size` bytes, 16-byte aligned) until no
    /// lane is pending or the launch aborts.
    fn run_warp(&self, state: &mut [u8], env: &CtaEnv) -> WarpStatus;
}

/// Launch geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchDims {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Dynamic shared memory in bytes.
    pub shared_bytes: u32,
}

/// Why a launch did not complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaunchFailure {
    /// A kernel thread faulted; the first fault is reported.
    Fault(FaultRecord, u64),
    /// The launch ran past its time limit.
    Timeout,
}

/// Inputs of one launch that the scheduler needs besides the engine.
pub struct LaunchInput<'a> {
    pub dims: LaunchDims,
    pub static_shared: u64,
    /// Local memory bytes per thread.
    pub local_bytes: u64,
    pub params: &'a mut [u8],
    pub symbols: &'a [u64],
    pub memory: &'a DeviceMemory,
    pub memcheck: bool,
    pub timeout: Option<Duration>,
}

struct SendPtr(*mut u8);
// SAFETY: the pointer targets the parameter buffer, which outlives the launch and is only read
// by kernel code.
unsafe impl Sync for SendPtr {}
// SAFETY: as above.
unsafe impl Send for SendPtr {}

impl SendPtr {
    fn get(&self) -> *mut u8 {
        self.0
    }
}

/// Per-launch statistics.
#[derive(Clone, Copy, Debug, Default)]
pub struct LaunchStats {
    /// Warp calls into the engine.
    pub warp_runs: u64,
    /// How many distinct worker threads ran CTAs of this launch.
    pub workers: u32,
    /// Thread-instructions executed, for engines that count them (the interpreter).
    pub thread_instructions: u64,
}

/// Run a whole grid. Returns statistics, or the failure.
pub fn run_grid(engine: &dyn WarpEngine, input: LaunchInput) -> Result<LaunchStats, LaunchFailure> {
    let abort = AtomicU32::new(0);
    let sink = FaultSink::default();
    let [gx, gy, gz] = input.dims.grid;
    let ctas = gx as u64 * gy as u64 * gz as u64;
    let shared_size = input.static_shared.div_ceil(16) * 16 + input.dims.shared_bytes as u64;
    let params = SendPtr(input.params.as_mut_ptr());
    let param_size = input.params.len() as u64;
    let deadline = input.timeout.map(|t| Instant::now() + t);
    let timed_out = AtomicU32::new(0);
    let runs = AtomicU64::new(0);
    let thread_insts = AtomicU64::new(0);
    // Bit k: pool worker k ran a CTA (bit 63: a thread outside the pool).
    let worker_bits = AtomicU64::new(0);
    let mem = input.memory;
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|scope| {
        // Watchdog: raise the abort flag when the time limit passes (engines check it at every
        // block dispatch, so even an infinite loop stops).
        if let Some(limit) = input.timeout {
            let (abort, timed_out) = (&abort, &timed_out);
            scope.spawn(move || {
                if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = done_rx.recv_timeout(limit)
                {
                    timed_out.store(1, Ordering::Relaxed);
                    abort.store(1, Ordering::Relaxed);
                }
            });
        }
        (0..ctas).into_par_iter().for_each(|c| {
            if abort.load(Ordering::Relaxed) != 0 {
                return;
            }
            if let Some(d) = deadline {
                if Instant::now() > d {
                    timed_out.store(1, Ordering::Relaxed);
                    abort.store(1, Ordering::Relaxed);
                    return;
                }
            }
            let ctaid = [
                (c % gx as u64) as u32,
                ((c / gx as u64) % gy as u64) as u32,
                (c / (gx as u64 * gy as u64)) as u32,
            ];
            let mut shared = vec![0u128; (shared_size as usize).div_ceil(16)];
            let threads =
                (input.dims.block[0] * input.dims.block[1] * input.dims.block[2]) as usize;
            let mut local = vec![0u128; (threads * input.local_bytes as usize).div_ceil(16)];
            let env = CtaEnv {
                global_base: mem.base(),
                global_top: mem.top(),
                shared_base: shared.as_mut_ptr() as *mut u8,
                shared_size,
                param_base: params.get(),
                param_size,
                local_base: local.as_mut_ptr() as *mut u8,
                local_size: input.local_bytes,
                symbols: input.symbols.as_ptr(),
                nsymbols: input.symbols.len() as u64,
                abort: &abort,
                sink: &sink,
                memory: mem,
                ctaid,
                nctaid: input.dims.grid,
                ntid: input.dims.block,
                warp: 0,
                nwarps: 0,
                memcheck: input.memcheck as u32,
                thread_instructions: &thread_insts,
            };
            let n = run_cta(engine, env);
            runs.fetch_add(n, Ordering::Relaxed);
            let w = rayon::current_thread_index().map_or(63, |i| i.min(63));
            worker_bits.fetch_or(1 << w, Ordering::Relaxed);
        });
        let _ = done_tx.send(());
    });
    if timed_out.load(Ordering::Relaxed) != 0 {
        return Err(LaunchFailure::Timeout);
    }
    if let Some(f) = sink.take() {
        return Err(LaunchFailure::Fault(f, sink.count.load(Ordering::Relaxed)));
    }
    Ok(LaunchStats {
        warp_runs: runs.load(Ordering::Relaxed),
        workers: worker_bits.load(Ordering::Relaxed).count_ones(),
        thread_instructions: thread_insts.load(Ordering::Relaxed),
    })
}

fn rd32(s: &[u8], off: u32) -> u32 {
    let o = off as usize;
    u32::from_le_bytes([s[o], s[o + 1], s[o + 2], s[o + 3]])
}

fn wr32(s: &mut [u8], off: u32, v: u32) {
    let o = off as usize;
    s[o..o + 4].copy_from_slice(&v.to_le_bytes());
}

/// Mark block priority `p` as possibly pending in a warp state.
pub fn set_active(layout: &WarpLayout, s: &mut [u8], p: u32) {
    let o = (layout.active_off + 8 * (p / 64)) as usize;
    let mut w = u64::from_le_bytes(s[o..o + 8].try_into().unwrap_or([0; 8]));
    w |= 1 << (p % 64);
    s[o..o + 8].copy_from_slice(&w.to_le_bytes());
}

/// Run one CTA to completion; returns the number of warp runs.
fn run_cta(engine: &dyn WarpEngine, mut env: CtaEnv) -> u64 {
    let layout = engine.layout();
    let threads = env.ntid[0] * env.ntid[1] * env.ntid[2];
    let nwarps = threads.div_ceil(WARP_SIZE);
    env.nwarps = nwarps;
    let words = (layout.size as usize).div_ceil(16);
    let mut states: Vec<Vec<u128>> = (0..nwarps).map(|_| vec![0u128; words]).collect();
    let bytes = |v: &mut Vec<u128>| -> &mut [u8] {
        let len = v.len() * 16;
        // SAFETY: a Vec<u128> of n elements is 16n initialized bytes; u8 has no alignment or
        // validity requirements.
        unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut u8, len) }
    };
    for (w, st) in states.iter_mut().enumerate() {
        let s = bytes(st);
        let lanes = (threads - w as u32 * WARP_SIZE).min(WARP_SIZE);
        let live = if lanes == 32 {
            u32::MAX
        } else {
            (1u32 << lanes) - 1
        };
        wr32(s, LIVE_OFF, live);
        wr32(s, layout.pending(0), live);
        set_active(layout, s, 0);
    }
    let nb = layout.order.len() as u32;
    let mut runs = 0u64;
    loop {
        for (w, st) in states.iter_mut().enumerate() {
            env.warp = w as u32;
            runs += 1;
            if engine.run_warp(bytes(st), &env) == WarpStatus::Aborted {
                return runs;
            }
        }
        // Barrier release: all non-exited threads parked?
        let mut parked = 0u32;
        let mut alive = 0u32;
        for st in states.iter_mut() {
            let s = bytes(st);
            alive += (rd32(s, LIVE_OFF) & !rd32(s, EXITED_OFF)).count_ones();
            for p in 0..nb {
                parked += rd32(s, layout.parked(p)).count_ones();
            }
        }
        if parked == 0 {
            return runs;
        }
        // Every warp stopped with no pending lane, so every non-exited thread is parked.
        debug_assert_eq!(parked, alive);
        for st in states.iter_mut() {
            let s = bytes(st);
            for p in 0..nb {
                let m = rd32(s, layout.parked(p));
                if m != 0 {
                    let pend = rd32(s, layout.pending(p));
                    wr32(s, layout.pending(p), pend | m);
                    wr32(s, layout.parked(p), 0);
                    set_active(layout, s, p);
                }
            }
        }
    }
}
