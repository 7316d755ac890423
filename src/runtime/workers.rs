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

/// Stack the calling thread keeps free below a kernel's frame and [`RUNTIME_RESERVE`] when a
/// launch runs on it (`runtime::launch`): a margin for the estimate of where its stack
/// pointer is (64 KiB).
const CALLER_MARGIN: usize = 64 << 10;

/// The lowest address of the current thread's stack (Linux: `pthread_getattr_np`, which
/// gives the main thread its stack limit), once per thread; `None` where it is not known.
fn stack_low() -> Option<usize> {
    thread_local! {
        static LOW: std::cell::Cell<Option<Option<usize>>> = const { std::cell::Cell::new(None) };
    }
    LOW.with(|low| {
        if let Some(v) = low.get() {
            return v;
        }
        let v = query_stack_low();
        low.set(Some(v));
        v
    })
}

#[cfg(target_os = "linux")]
fn query_stack_low() -> Option<usize> {
    // SAFETY: `attr` is initialised by `pthread_getattr_np` before it is read and destroyed
    // once; the out-pointers are valid locals.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return None;
        }
        let mut addr: *mut libc::c_void = std::ptr::null_mut();
        let mut size: libc::size_t = 0;
        let r = libc::pthread_attr_getstack(&attr, &mut addr, &mut size);
        libc::pthread_attr_destroy(&mut attr);
        (r == 0 && !addr.is_null() && size > 0).then_some(addr as usize)
    }
}

#[cfg(not(target_os = "linux"))]
fn query_stack_low() -> Option<usize> {
    None
}

/// Whether code with a native frame of `frame` bytes can run on the current thread as on a
/// worker: its stack has room below the caller for the frame, [`RUNTIME_RESERVE`] and a
/// margin. `false` where the thread's stack bounds are not known (a thread another program
/// made, a Python or C++ caller's, may have a small stack).
pub fn fits_on_this_thread(frame: usize) -> bool {
    let Some(low) = stack_low() else {
        return false;
    };
    let here = 0u8;
    let sp = std::hint::black_box(&here) as *const u8 as usize;
    let need = frame
        .saturating_add(RUNTIME_RESERVE)
        .saturating_add(CALLER_MARGIN);
    sp.checked_sub(low).is_some_and(|left| left >= need)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `frame` fits on a new thread of `stack` bytes.
    fn fits_on_new_thread(stack: usize, frame: usize) -> bool {
        std::thread::Builder::new()
            .stack_size(stack)
            .spawn(move || fits_on_this_thread(frame))
            .expect("spawns")
            .join()
            .expect("no panic")
    }

    /// The check measures the thread's own stack: a frame fits with the reserve and the
    /// margin below it, not past it.
    #[test]
    fn frames_fit_the_thread_they_run_on() {
        let stack = 16 << 20;
        assert!(fits_on_new_thread(stack, 4 << 20));
        assert!(fits_on_new_thread(
            stack,
            stack - RUNTIME_RESERVE - (256 << 10)
        ));
        assert!(!fits_on_new_thread(stack, stack - RUNTIME_RESERVE));
        assert!(!fits_on_new_thread(stack, stack));
        assert!(!fits_on_new_thread(256 << 10, 0));
    }
}
