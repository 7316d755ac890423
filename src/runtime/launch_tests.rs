//! Reports of the CTA scheduler, on warp states set up by hand.

use super::*;

/// A warp that spins on a flag in global memory (`lower::yields` gives the loop a yield
/// point): the `bra` of the loop is line 13, its first instruction (the load) line 11.
const SPIN_ON_MEMORY: &str = ".version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 a)
{
  .reg .pred %p1;
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [a];
$L:
  ld.volatile.global.u32 %r1, [%rd1];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra $L;
  ret;
}
";

/// Lanes stopped by the time limit at the yield point of a loop without barriers are
/// reported as spinning in that loop, never as waiting at a barrier: warp 0 parked by the
/// yield (as `Op::Yield` parks lanes: each waiting for itself alone, `runtime::warp`), warp 1
/// about to run the yield point's counter in the loop.
#[test]
fn timeout_positions_name_spinning_loops() {
    let (_, kernels) = crate::host::front_end(SPIN_ON_MEMORY, "spin.ptx").expect("loads");
    let k = &kernels[0];
    let layout = crate::analysis::schedule::schedule(k).expect("schedules");
    let locs: Vec<SrcLoc> = k
        .inst_locs
        .iter()
        .copied()
        .chain(k.blocks.iter().map(|b| b.term_loc))
        .collect();
    let ptx: Vec<String> = k
        .inst_ptx
        .iter()
        .cloned()
        .chain(k.blocks.iter().map(|_| "bra".to_string()))
        .collect();
    let sites = Sites {
        locs: &locs,
        ptx: &ptx,
        sources: &[],
        shared_vars: &[],
        file: None,
    };
    let yield_inst = k
        .insts
        .iter()
        .position(|i| matches!(i.op, crate::ir::Op::Yield {}))
        .expect("the loop has a yield point") as u32;
    let header = *layout
        .barrier_targets
        .first()
        .expect("the yield parks lanes");
    // A block of the loop's yield point (its counter), not the entry's initialization of
    // the counter (also the yield point's code): lanes still at the entry have not started.
    let counter = (1..layout.order.len() as u32)
        .rev()
        .find(|&p| sites.is_yield(layout.block_site[p as usize]))
        .expect("a block of the yield point");
    let mut states = vec![vec![0u128; layout.size as usize / 16]; 2];
    for (w, st) in states.iter_mut().enumerate() {
        let s = bytes(st);
        wr32(s, LIVE_OFF, u32::MAX);
        if w == 0 {
            wr32(s, layout.parked(header), u32::MAX);
            wr32(s, WSYNC_WAIT_OFF, u32::MAX);
            for l in 0..WARP_SIZE {
                wr32(s, WSYNC_MASK_OFF + 4 * l, 1 << l);
                wr32(s, WSYNC_INST_OFF + 4 * l, yield_inst + 1);
            }
        } else {
            wr32(s, layout.pending(counter), u32::MAX);
        }
    }
    let text = positions(&layout, &mut states, [0, 0, 0], sites);
    assert!(
        text.contains(
            "warp 0: lanes 0-31 spinning in a loop at line 13, before \
             'ld.volatile.global.u32' at line 11"
        ),
        "{text}"
    );
    assert!(
        text.contains("warp 1: lanes 0-31 spinning in a loop at line 13"),
        "{text}"
    );
    assert!(!text.contains("barrier"), "{text}");
    assert!(!text.contains("yield point"), "{text}");

    // Warps whose lanes are all still at the entry block have not started: they are said to
    // be so, consecutive ones on one line, not placed at the entry block's first line.
    let mut states = vec![vec![0u128; layout.size as usize / 16]; 5];
    for (w, st) in states.iter_mut().enumerate() {
        let s = bytes(st);
        wr32(s, LIVE_OFF, u32::MAX);
        match w {
            0 => wr32(s, layout.pending(counter), u32::MAX),
            // Half of warp 1 has left the entry block.
            1 => {
                wr32(s, layout.pending(0), 0xffff_0000);
                wr32(s, layout.pending(counter), 0x0000_ffff);
            }
            _ => wr32(s, layout.pending(0), u32::MAX),
        }
    }
    let text = positions(&layout, &mut states, [0, 0, 0], sites);
    assert!(
        text.contains("\n  warp 0: lanes 0-31 spinning in a loop at line 13\n"),
        "{text}"
    );
    assert!(
        text.contains("\n  warp 1: lanes 16-31 not started; lanes 0-15 spinning"),
        "{text}"
    );
    assert!(text.ends_with("\n  warps 2-4: not started"), "{text}");
    assert!(!text.contains("line 0"), "{text}");
}

/// A kernel with barriers 0 (`bar.sync`, `bar.red.popc`) and 1 (for 64 threads): three
/// barrier terminators, so three blocks lanes can be parked at.
const BARRIERS: &str = ".version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 a)
{
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 40;
  bar.sync 0;
  bar.red.popc.u32 %r2, 0, %p1;
  bar.sync 1, 64;
  ret;
}
";

/// The one-pass completion ([`complete_uniform`]) decides as the general path does: on warp
/// states set up as a scheduler round can leave them (every lane parked at the same
/// barrier, then perturbed: lanes exited or not arrived, whole warps exited, a second
/// instruction, another thread count or barrier, a warp-level synchronization, `bar.red`
/// kinds and predicates), wherever it decides, the round's outcome and every byte of every
/// warp state equal the general path's ([`complete_general`]).
#[test]
fn uniform_completion_matches_general_path() {
    let (_, kernels) = crate::host::front_end(BARRIERS, "bar.ptx").expect("loads");
    let layout = crate::analysis::schedule::schedule(&kernels[0]).expect("schedules");
    assert!(layout.barrier_targets.len() >= 2, "{layout:?}");
    let words = (layout.size as usize).div_ceil(16);
    // A linear congruential generator (Knuth's MMIX constants).
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: u32| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) % u64::from(n)) as u32
    };
    let (mut decided, mut released) = (0, 0);
    for _ in 0..4000 {
        let nwarps = 1 + next(6) as usize;
        let threads = if next(4) == 0 {
            (nwarps as u32 - 1) * 32 + 1 + next(32)
        } else {
            nwarps as u32 * 32
        };
        let id = if next(4) == 0 { 1 } else { 0 };
        let kind = [
            BarKind::Sync,
            BarKind::RedPopc,
            BarKind::RedAnd,
            BarKind::RedOr,
        ][next(4) as usize];
        let count = match next(4) {
            0 => 32 * nwarps as u32,
            1 => 32 * (1 + next(nwarps as u32)),
            _ => 0,
        };
        let target = layout.barrier_targets[next(layout.barrier_targets.len() as u32) as usize];
        let mut states: Vec<Vec<u128>> = (0..nwarps).map(|_| vec![0u128; words]).collect();
        for (w, st) in states.iter_mut().enumerate() {
            let s = bytes(st);
            let lanes = (threads - w as u32 * 32).min(32);
            let live = if lanes == 32 {
                u32::MAX
            } else {
                (1 << lanes) - 1
            };
            let exited = match next(8) {
                0 => live,
                1 => 1 << next(32),
                _ => 0,
            } & live;
            let alive = live & !exited;
            let arrived = match next(16) {
                0 => alive & !(1 << next(32)),
                // A warp that arrived, then exited.
                1 if alive == 0 => live,
                _ => alive,
            };
            wr32(s, LIVE_OFF, live);
            wr32(s, EXITED_OFF, exited);
            if arrived != 0 {
                let f = |field| bar_field(id, field);
                wr32(s, f(BAR_ARRIVED), arrived);
                let waiting = arrived & !exited;
                wr32(s, f(BAR_WAITING), waiting);
                wr32(s, f(BAR_PRED), next(u32::MAX));
                let threads_field = if next(16) == 0 { 32 } else { count };
                wr32(s, f(BAR_THREADS), threads_field);
                wr32(s, f(BAR_INST), 3);
                let mut flags = kind.code() | if next(2) == 0 { BAR_ALIGNED } else { 0 };
                if next(16) == 0 {
                    flags |= BAR_SPLIT;
                    wr32(s, f(BAR_INST2), 4);
                    wr32(s, f(BAR_LANES2), waiting & 0xff);
                }
                wr32(s, f(BAR_FLAGS), flags);
                wr32(s, layout.parked(target), waiting);
            }
            match next(24) {
                0 => {
                    // Lanes of another barrier.
                    let other = 1 - id;
                    wr32(s, bar_field(other, BAR_ARRIVED), 1);
                    wr32(s, bar_field(other, BAR_WAITING), 1);
                }
                1 => {
                    // A lane at a warp-level synchronization.
                    wr32(s, WSYNC_WAIT_OFF, 2);
                    wr32(s, WSYNC_MASK_OFF + 4, 3);
                }
                _ => {}
            }
        }
        let mut general = states.clone();
        let Some(fast) = complete_uniform(&layout, &mut states) else {
            continue;
        };
        let slow = complete_general(&layout, &mut general, None, None);
        assert_eq!(format!("{fast:?}"), format!("{slow:?}"));
        assert!(states == general, "warp states differ");
        decided += 1;
        released += matches!(fast, Round::Released) as u32;
    }
    // The fast path must decide often, and release often, for the comparison to mean much.
    assert!(
        decided > 1000 && released > 500,
        "{decided} decided, {released} released"
    );
}

/// A kernel without warp operations or barriers: the JIT zeroes only parts of the header of
/// a reused warp state.
const STREAM: &str = ".version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 a, .param .u32 n)
{
  .reg .pred %p1;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [a];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra $DONE;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
$DONE:
  ret;
}
";

/// `start_cta`'s word template for full warps whose state is reused sets every state as
/// the general path does (zero each of the engine's ranges, then write the live mask, the
/// entry block's pending mask and its active bit), over states full of other bytes; the
/// partial warp takes the general path. For a kernel without barriers and for one with
/// barriers 0 and 1 and `bar.red` (whose ranges hold those two records and the `bar.red`
/// results, a few words, not the whole header).
#[test]
fn state_template_matches_zeroed_ranges() {
    state_template_matches(STREAM);
    state_template_matches(BARRIERS);
    // More than eight consecutive words to write (the blocks' pending and parked masks and
    // the active bitset): runs split at eight words.
    let runs = state_template_matches(include_str!(
        "../../ptx-tests/kernels/reduce_shared/reduce_shared.ptx"
    ));
    assert!(
        runs.windows(2).any(|r| r[0].0 + r[0].1 == r[1].0),
        "a run of more than eight words is split: {runs:?}"
    );
}

/// [`state_template_matches_zeroed_ranges`] for the kernel `ptx`, on a CTA of 80 threads.
/// Returns the template's runs (first word, length).
fn state_template_matches(ptx: &str) -> Vec<(usize, usize)> {
    let (_, kernels) = crate::host::front_end(ptx, "k.ptx").expect("loads");
    let jit = crate::jit::compile(&kernels[0]).expect("compiles");
    let engine: &dyn WarpEngine = &jit;
    let threads = 80;
    let init = StateInit::new(engine, threads);
    let runs: Vec<(usize, usize)> = init
        .words_to_write()
        .expect("the kernel's zeroed ranges are whole words")
        .runs()
        .map(|(first, run)| (first, run.len()))
        .collect();
    // Runs in increasing order, apart, of one to eight words.
    assert!(
        runs.iter().all(|&(_, n)| (1..=MAX_RUN_WORDS).contains(&n))
            && runs.windows(2).all(|r| r[0].0 + r[0].1 <= r[1].0),
        "{runs:?}"
    );
    let ranges = engine.zeroed_ranges().expect("the JIT reuses states");
    let layout = engine.layout();
    let mut states: Vec<Vec<u128>> = vec![];
    start_cta(engine, &init, &mut states);
    for (w, st) in states.iter_mut().enumerate() {
        for (i, x) in st.iter_mut().enumerate() {
            *x = u128::from_le_bytes([(0x5a ^ w ^ i) as u8; 16]);
        }
    }
    let mut expected = states.clone();
    for (w, st) in expected.iter_mut().enumerate() {
        let s = bytes(st);
        for &(off, len) in ranges {
            if let Some(r) = s.get_mut(off as usize..(off + len) as usize) {
                r.fill(0);
            }
        }
        let lanes = (threads - 32 * w as u32).min(32);
        let live = if lanes == 32 {
            u32::MAX
        } else {
            (1 << lanes) - 1
        };
        wr32(s, LIVE_OFF, live);
        wr32(s, layout.pending(0), live);
        set_active(layout, s, 0);
    }
    start_cta(engine, &init, &mut states);
    assert_eq!(states.len(), 3);
    for (w, (got, want)) in states.iter().zip(&expected).enumerate() {
        assert!(got == want, "warp {w}'s state differs");
    }
    runs
}

/// The interpreter's warps, recording the thread each ran on and reporting a given native
/// frame ([`WarpEngine::frame_bytes`]).
struct OnThread {
    inner: crate::interp::Interpreter,
    frame: Option<usize>,
    threads: Mutex<Vec<std::thread::ThreadId>>,
}

impl WarpEngine for OnThread {
    fn layout(&self) -> &WarpLayout {
        self.inner.layout()
    }
    fn run_warp(&self, state: &mut [u8], env: &CtaEnv) -> WarpStatus {
        self.threads
            .lock()
            .expect("not poisoned")
            .push(std::thread::current().id());
        self.inner.run_warp(state, env)
    }
    fn frame_bytes(&self) -> Option<usize> {
        self.frame
    }
}

/// Launches an empty kernel of `grid` CTAs of 32 threads on a new thread with a stack of
/// `stack` bytes, the engine reporting a native frame of `frame` bytes; returns whether
/// every warp ran on the launching thread, whether some did, and the warp runs counted.
fn launch_on_thread(grid: u32, stack: usize, frame: Option<usize>) -> (bool, bool, u64) {
    let engine = OnThread {
        inner: empty_interpreter(),
        frame,
        threads: Mutex::new(vec![]),
    };
    let (caller, runs) = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(stack)
            .spawn_scoped(scope, || {
                (
                    std::thread::current().id(),
                    launch_empty(&engine, [grid, 1, 1]),
                )
            })
            .expect("spawns")
            .join()
            .expect("no panic")
    });
    let threads = engine.threads.into_inner().expect("not poisoned");
    (
        threads.iter().all(|&t| t == caller),
        threads.contains(&caller),
        runs,
    )
}

/// A grid of one CTA runs on the launching thread when the engine's frame is known and the
/// thread's stack has room for it and the runtime's reserve; otherwise, and for a frame that
/// is not known, on a pool worker.
#[test]
fn small_grids_run_on_the_caller_when_the_frame_fits() {
    let big = 16 << 20;
    assert_eq!(launch_on_thread(1, big, Some(4096)), (true, true, 1));
    // Not known: a pool worker.
    assert_eq!(launch_on_thread(1, big, None), (false, false, 1));
    // A frame larger than the thread's stack, and a stack smaller than the reserve (glibc
    // may give a thread a cached stack up to 4 times the size asked for).
    assert_eq!(launch_on_thread(1, big, Some(4 * big)), (false, false, 1));
    assert_eq!(
        launch_on_thread(1, crate::runtime::workers::RUNTIME_RESERVE / 8, Some(0)),
        (false, false, 1)
    );
    // 64 CTAs of one warp each, shared by the caller and the pool: every CTA runs once.
    assert_eq!(launch_on_thread(64, big, Some(4096)).2, 64);
}

/// The interpreter's warps, recording the thread and the CTA (linear index) of each run.
struct CtaRecorder {
    inner: crate::interp::Interpreter,
    runs: Mutex<Vec<(std::thread::ThreadId, u64)>>,
}

impl WarpEngine for CtaRecorder {
    fn layout(&self) -> &WarpLayout {
        self.inner.layout()
    }
    fn run_warp(&self, state: &mut [u8], env: &CtaEnv) -> WarpStatus {
        let [x, y, z] = env.ctaid.map(u64::from);
        let [gx, gy, _] = env.nctaid.map(u64::from);
        self.runs
            .lock()
            .expect("not poisoned")
            .push((std::thread::current().id(), x + gx * (y + gy * z)));
        self.inner.run_warp(state, env)
    }
}

/// Launches an empty kernel (no barriers: its CTAs run in batches) on a grid of `grid` CTAs
/// of 32 threads; returns the (thread, CTA) of every warp run, in the order each thread ran
/// them.
fn record_ctas(grid: [u32; 3]) -> Vec<(std::thread::ThreadId, u64)> {
    let engine = CtaRecorder {
        inner: empty_interpreter(),
        runs: Mutex::new(vec![]),
    };
    let warp_runs = launch_empty(&engine, grid);
    let runs = engine.runs.into_inner().expect("not poisoned");
    assert_eq!(warp_runs, runs.len() as u64);
    runs
}

/// Grids of single CTAs run every CTA once, each worker its CTAs in increasing order in runs
/// of consecutive CTAs: one CTA, fewer CTAs than workers, counts that are no multiple of any
/// run's length, and a 2-D grid whose runs cross rows. A large grid is handed out in long
/// runs: the guided runs (up to 256 CTAs per worker, `left / (2 × workers)`) make about 130
/// of 65 536 CTAs with 2 workers and stay under 1 024 up to some 128 workers. (The general
/// schedule's batches of 32 CTAs make 2 048, fewer where a thread takes two in a row: on a
/// busy host this bound alone may not tell the two schedules apart, on an idle one it does;
/// `runtime::clc`'s tests check the runs' lengths.)
#[test]
fn single_cta_grids_run_every_cta_once_in_runs() {
    for grid in [
        [1, 1, 1],
        [2, 1, 1],
        [3, 1, 1],
        [33, 1, 1],
        [1000, 1, 1],
        [4099, 1, 1],
        [37, 29, 3],
        [65_536, 1, 1],
    ] {
        let n = grid.iter().map(|&g| u64::from(g)).product::<u64>();
        let runs = record_ctas(grid);
        let mut seen = vec![0u32; n as usize];
        for &(_, c) in &runs {
            seen[c as usize] += 1;
        }
        assert!(seen.iter().all(|&k| k == 1), "{grid:?}: every CTA once");
        // Per thread: increasing CTAs; count the runs of consecutive ones.
        let mut last: std::collections::HashMap<std::thread::ThreadId, u64> = Default::default();
        let mut breaks = 0u64;
        for &(t, c) in &runs {
            match last.insert(t, c) {
                Some(p) => {
                    assert!(p < c, "{grid:?}: a thread's CTAs in increasing order");
                    breaks += u64::from(c != p + 1);
                }
                None => breaks += 1,
            }
        }
        if n == 65_536 {
            assert!(breaks < 1024, "{grid:?}: {breaks} runs of consecutive CTAs");
        }
    }
}

/// The empty kernel on the interpreter, reporting a small native frame so that launches run
/// a worker on the calling thread (as the JIT's do) with the pool's workers as its helpers.
fn inline_empty_engine() -> OnThread {
    OnThread {
        inner: empty_interpreter(),
        frame: Some(4096),
        threads: Mutex::new(vec![]),
    }
}

/// The interpreter running an empty kernel (`ret;` only).
fn empty_interpreter() -> crate::interp::Interpreter {
    const EMPTY: &str =
        ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry empty()\n{\nret;\n}\n";
    let (_, kernels) = crate::host::front_end(EMPTY, "empty.ptx").expect("loads");
    let k = &kernels[0];
    let layout = crate::analysis::schedule::schedule(k).expect("schedules");
    crate::interp::Interpreter::new(k, layout, false).expect("decodes")
}

/// One launch of `engine` on a grid of `grid` CTAs of 32 threads; its warp runs. The
/// launch says what the empty kernel uses (no tensor memory, mbarrier, reserved shared
/// memory or cluster barrier), as a host launch would, so its CTAs take the single-round
/// schedule (`batch_worker`'s guided runs).
fn launch_empty(engine: &dyn WarpEngine, grid: [u32; 3]) -> u64 {
    let memory = DeviceMemory::new();
    let mut params = vec![0u8; 1];
    let mut input = LaunchInput::bare(
        LaunchDims {
            grid,
            block: [32, 1, 1],
            shared_bytes: 0,
        },
        &mut params,
        &memory,
    );
    input.uses = CtaStateUse {
        tensor_memory: false,
        mbarrier: false,
        reserved_shared: false,
        cluster_barrier: false,
    };
    run_grid(engine, input).expect("runs").warp_runs
}

/// Many small launches in a row, each with a pool helper that mostly starts after the
/// caller ran every CTA (and so does nothing, unwaited): every launch ends, having run each
/// of its warps once (a lost wake-up of the caller would hang here; a helper running a
/// launch's CTAs after it returned would add runs to a later launch's count).
#[test]
fn ten_thousand_small_launches_in_a_row() {
    let engine = inline_empty_engine();
    for i in 0..10_000u64 {
        let grid = 1 + (i % 4) as u32;
        assert_eq!(
            launch_empty(&engine, [grid, 1, 1]),
            u64::from(grid),
            "launch {i}"
        );
    }
    let threads = engine.threads.into_inner().expect("not poisoned");
    assert_eq!(threads.len(), 25_000, "every warp ran once");
}

/// A launch from a thread of a pool with more threads than the grid has CTAs: the caller
/// is one of the pool's threads and its helpers are jobs of the same pool; every CTA runs
/// once, some on the caller.
#[test]
fn launches_from_a_pool_thread_with_more_workers_than_ctas() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(8)
        .build()
        .expect("builds");
    for grid in [1u32, 3, 7, 64] {
        let engine = inline_empty_engine();
        let (caller, runs) = pool.install(|| {
            let runs: Vec<u64> = (0..50)
                .map(|_| launch_empty(&engine, [grid, 1, 1]))
                .collect();
            (std::thread::current().id(), runs)
        });
        assert!(
            runs.iter().all(|&r| r == u64::from(grid)),
            "{grid}: {runs:?}"
        );
        let threads = engine.threads.into_inner().expect("not poisoned");
        assert_eq!(threads.len(), 50 * grid as usize);
        assert!(threads.contains(&caller), "{grid}: the caller ran CTAs");
    }
}
