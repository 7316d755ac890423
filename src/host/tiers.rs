//! Tiered compilation of JIT kernels: a kernel's first launch waits only for the quick tier
//! (`jit::Tier::Quick`: no egraph pass, the single-pass register allocator, about half the
//! compile time), and one process-wide background thread compiles the optimized tier
//! (`jit::Tier::Optimized`) and swaps it in. Both tiers compile the same CLIF but for the
//! quick tier's fewer unrolled group loops and, in a big kernel (`jit::codegen`'s
//! `BIG_KERNEL_INSTS`), its blocks' single versions and fewer per-group shape tests, all of
//! which run the same operations on the same values, so they compute the same results bit
//! for bit; only compile time and speed differ.
//!
//! The swap happens between launches, never during one: a launch takes the engine it runs
//! ([`Tiers::current`], an `Arc`) once, at its start, and holds it to its end. Once the
//! optimized engine is there, [`Tiers`] drops its own reference to the quick one, whose code
//! is freed when the last launch still running it ends (`jit::JitKernel`'s `Drop`). The
//! background thread holds a kernel only weakly while it waits in the queue: a kernel dropped
//! before its turn is never optimized, and one dropped during its optimization is freed by
//! the background thread when it finishes.
//!
//! A function of more than [`OPTIMIZE_MAX_INSTS`] IR instructions gets the quick tier only.
//!
//! `PTXJIT_TIER=quick` or `optimized` (`switches::Switches::tier`) compiles one tier only.
//! [`Tiers::optimize`] compiles the optimized tier now, or waits for the background thread
//! if it is compiling it.

use crate::ir::verify::VerifiedFunction;
use crate::jit::Tier;
use crate::runtime::launch::WarpEngine;
use std::sync::{mpsc, Arc, Mutex, OnceLock, Weak};

/// An engine that launches share (see the module docs).
pub(super) type SharedEngine = Arc<dyn WarpEngine>;

/// One variant of a kernel (its launch options fixed): the engine its launches run, as
/// compiled so far.
pub(super) struct Tiers {
    /// The quick tier, until the optimized one replaces it; `None` when launches run the
    /// optimized one (or the interpreter).
    quick: Mutex<Option<SharedEngine>>,
    /// The optimized tier (or the interpreter's engine), or its compiler's error.
    optimized: OnceLock<Result<SharedEngine, String>>,
    /// What the optimized tier compiles; `None` for the interpreter, and when only the quick
    /// tier is compiled.
    job: Option<Job>,
    /// Whether the engines are the JIT's.
    jit: bool,
}

/// The optimized tier's compilation.
struct Job {
    ir: Arc<VerifiedFunction>,
    racecheck: bool,
    lockstep: bool,
    /// Prefix of its error messages (`file: kernel 'name': `).
    context: String,
}

/// Functions of more IR instructions than this get the quick tier only, unless
/// `PTXJIT_TIER=optimized` asks for the optimized one: its register allocator (regalloc2's
/// backtracking one) takes time that grows faster than the function (docs/performance.md,
/// "Very large kernels": a straight-line kernel of 10 000 instructions takes 0.54 s of user
/// time, 20 000 take 1.31 s, 50 000 take 4.93 s, against 1.10 s in the quick tier), and a
/// background thread busy for seconds delays every kernel queued after it. The benchmark
/// kernels have a few hundred.
pub(crate) const OPTIMIZE_MAX_INSTS: usize = 8000;

impl Job {
    fn compile(&self, tier: Tier) -> Result<SharedEngine, String> {
        crate::jit::compile_tier(&self.ir, self.racecheck, self.lockstep, tier)
            .map(|j| Arc::new(j) as SharedEngine)
            .map_err(|e| format!("{}{e}", self.context))
    }
}

impl Tiers {
    /// An engine with no tiers (the interpreter's).
    pub(super) fn single(engine: SharedEngine) -> Tiers {
        Tiers {
            quick: Mutex::new(None),
            optimized: OnceLock::from(Ok(engine)),
            job: None,
            jit: false,
        }
    }

    /// Compile `ir` on the JIT for launches with `racecheck` instrumentation and `lockstep`
    /// order: with `tiers` `None`, the quick tier now and the optimized one queued for the
    /// background thread; with a tier, that one only, now. `context` prefixes error messages.
    /// Errors: the compiler's (an internal error).
    pub(super) fn jit(
        ir: Arc<VerifiedFunction>,
        racecheck: bool,
        lockstep: bool,
        context: String,
        tier: Option<Tier>,
    ) -> Result<Arc<Tiers>, String> {
        // A very large function gets the quick tier only (see `OPTIMIZE_MAX_INSTS`).
        let forced = crate::switches::switches().tier == Some(Tier::Optimized);
        let tier = if ir.insts.len() > OPTIMIZE_MAX_INSTS && !forced {
            Some(Tier::Quick)
        } else {
            tier
        };
        let job = Job {
            ir,
            racecheck,
            lockstep,
            context,
        };
        match tier {
            Some(Tier::Optimized) => Ok(Arc::new(Tiers {
                quick: Mutex::new(None),
                optimized: OnceLock::from(Ok(job.compile(Tier::Optimized)?)),
                job: None,
                jit: true,
            })),
            Some(Tier::Quick) => Ok(Arc::new(Tiers {
                quick: Mutex::new(Some(job.compile(Tier::Quick)?)),
                optimized: OnceLock::new(),
                job: None,
                jit: true,
            })),
            None => {
                let quick = job.compile(Tier::Quick)?;
                let t = Arc::new(Tiers {
                    quick: Mutex::new(Some(quick)),
                    optimized: OnceLock::new(),
                    job: Some(job),
                    jit: true,
                });
                queue(&t);
                Ok(t)
            }
        }
    }

    /// The engine a launch starting now runs: the optimized tier once it is compiled, the
    /// quick one until then. The launch holds it to its end.
    pub(super) fn current(&self) -> SharedEngine {
        if let Some(Ok(e)) = self.optimized.get() {
            return e.clone();
        }
        // A poisoned lock only means a panic elsewhere while holding it; the value is whole.
        let quick = self.quick.lock().unwrap_or_else(|p| p.into_inner());
        match (&*quick, self.optimized.get()) {
            (Some(q), _) => q.clone(),
            // The quick tier is dropped only after the optimized one is stored.
            (None, Some(Ok(e))) => e.clone(),
            (None, _) => unreachable!("a kernel variant without any engine"),
        }
    }

    /// The tier [`current`](Self::current) gives now (`None` for the interpreter).
    pub(super) fn tier(&self) -> Option<Tier> {
        if !self.jit {
            return None;
        }
        let quick = self.quick.lock().unwrap_or_else(|p| p.into_inner());
        Some(if quick.is_some() {
            Tier::Quick
        } else {
            Tier::Optimized
        })
    }

    /// Compile the optimized tier now if nothing has (on this thread; a compilation the
    /// background thread is running is waited for instead), and make it what launches run
    /// from now on. Nothing to do where there are no tiers (the interpreter, or
    /// `PTXJIT_TIER`). Errors: the optimized tier's compiler error; launches then keep
    /// running the quick tier.
    pub(super) fn optimize(&self) -> Result<(), String> {
        let Some(job) = &self.job else {
            return Ok(());
        };
        let r = self.optimized.get_or_init(|| job.compile(Tier::Optimized));
        match r {
            Ok(_) => {
                // Launches that started earlier keep their reference to the quick tier.
                let old = self.quick.lock().unwrap_or_else(|p| p.into_inner()).take();
                drop(old);
                Ok(())
            }
            Err(e) => Err(e.clone()),
        }
    }
}

/// Held by the background thread while it optimizes a kernel, and by an [`OptimizerPause`].
static GATE: Mutex<()> = Mutex::new(());

/// While alive, the background thread starts no optimized tier (one it is compiling
/// finishes first): a kernel compiled meanwhile keeps its quick tier until
/// `Kernel::compile_optimized` or the pause ends. For tests of launches that run while the
/// optimized tier is pending; not part of the API.
#[doc(hidden)]
pub struct OptimizerPause(#[allow(dead_code)] std::sync::MutexGuard<'static, ()>);

/// Pause the background thread (see [`OptimizerPause`]). Pauses taken on several threads
/// wait for each other.
#[doc(hidden)]
pub fn pause_optimizer() -> OptimizerPause {
    OptimizerPause(GATE.lock().unwrap_or_else(|p| p.into_inner()))
}

/// Queue `t`'s optimized tier for the background thread (started at the first call). Where
/// the thread cannot be started, launches keep running the quick tier.
fn queue(t: &Arc<Tiers>) {
    static QUEUE: OnceLock<Option<Mutex<mpsc::Sender<Weak<Tiers>>>>> = OnceLock::new();
    let sender = QUEUE.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Weak<Tiers>>();
        std::thread::Builder::new()
            .name("ptxjit-optimize".into())
            .spawn(move || {
                for w in rx {
                    let _gate = GATE.lock().unwrap_or_else(|p| p.into_inner());
                    // A kernel dropped before its turn is not compiled.
                    let Some(t) = w.upgrade() else { continue };
                    // A compiler panic (a bug) must not stop the thread: the kernel keeps its
                    // quick tier, and `Kernel::compile_optimized` reports it on its thread.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        let _ = t.optimize();
                    }));
                }
            })
            .ok()
            .map(|_| Mutex::new(tx))
    });
    if let Some(tx) = sender {
        let tx = tx.lock().unwrap_or_else(|p| p.into_inner());
        // The thread only stops when the channel closes, which a static sender never does.
        let _ = tx.send(Arc::downgrade(t));
    }
}
