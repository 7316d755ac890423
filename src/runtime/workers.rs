//! The stack of the threads that run a launch's CTAs (rayon's global pool,
//! `runtime::launch`). The JIT's code for a very large kernel has a large stack frame (the
//! quick tier's single-pass register allocator gives each spilled value its own slot: about
//! 16 bytes per straight-line PTX instruction), more than the 2 MiB a thread gets by default,
//! so the pool is built with [`WORKER_STACK`] bytes per thread (address space: only the pages
//! a frame touches are ever committed), and the JIT refuses code whose frame does not fit
//! ([`max_frame`]) with an error instead of overflowing the stack at run time.

use std::sync::OnceLock;

/// The stack of each worker thread where this module builds the pool (32 MiB).
pub const WORKER_STACK: usize = 32 << 20;

/// What the runtime's own frames below and above a kernel's code (the worker loop, the CTA
/// scheduler, the helpers the code calls) may use of a worker's stack (1 MiB).
pub const RUNTIME_RESERVE: usize = 1 << 20;

/// The stack of a thread spawned without a size (Rust's default, which `RUST_MIN_STACK`
/// changes), what the workers have where the pool was built before [`worker_stack`] could.
fn default_stack() -> usize {
    std::env::var("RUST_MIN_STACK")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(2 << 20)
}

/// The stack, in bytes, of each thread that runs CTAs: [`WORKER_STACK`] when the first call
/// builds rayon's global pool, else (a program that built the pool itself, or ran rayon
/// work first) the default thread stack. Cheap after the first call.
pub fn worker_stack() -> usize {
    static STACK: OnceLock<usize> = OnceLock::new();
    *STACK.get_or_init(|| {
        match rayon::ThreadPoolBuilder::new()
            .stack_size(WORKER_STACK)
            .build_global()
        {
            Ok(()) => WORKER_STACK,
            Err(_) => default_stack(),
        }
    })
}

/// The largest stack frame, in bytes, a kernel's generated code may have: the workers'
/// stack ([`worker_stack`]) less [`RUNTIME_RESERVE`].
pub fn max_frame() -> usize {
    worker_stack().saturating_sub(RUNTIME_RESERVE)
}
