//! The stack of the threads that run a launch's CTAs (rayon's global pool,
//! `runtime::launch`). The JIT's code for a very large kernel has a large stack frame (the
//! quick tier's single-pass register allocator gives each spilled value its own slot: about
//! 16 bytes per straight-line PTX instruction), more than the 2 MiB a thread gets by default,
//! so the pool is built with [`WORKER_STACK`] bytes per thread (address space: only the pages
//! a frame touches are ever committed), and the JIT refuses code whose frame does not fit
//! ([`max_frame`]) with an error instead of overflowing the stack at run time.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

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

/// The helpers' entry to a launch's work ([`run_with_helpers`]): whether the caller has
/// closed it, and how many helpers are inside.
struct Gate {
    /// [`Gate::CLOSED`]: the caller is done with the work and waits for the helpers inside;
    /// the other bits: how many helpers are inside.
    state: AtomicU64,
    /// The thread that waits for the last helper to leave.
    caller: std::thread::Thread,
    /// The first panic of a helper, for the caller to resume.
    panic: Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

impl Gate {
    const CLOSED: u64 = 1 << 63;

    /// Enter (`true`) unless the caller has closed the gate.
    fn enter(&self) -> bool {
        self.state
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |s| {
                (s & Self::CLOSED == 0).then_some(s + 1)
            })
            .is_ok()
    }

    /// Leave after [`enter`](Self::enter); the last helper out of a closed gate wakes the
    /// caller. (The gate is shared by count, so the wake-up may follow the caller's return.)
    fn leave(&self) {
        if self.state.fetch_sub(1, Ordering::AcqRel) == Self::CLOSED | 1 {
            self.caller.unpark();
        }
    }

    /// Close the gate and wait until no helper is inside.
    fn close_and_wait(&self) {
        let mut s = self.state.fetch_or(Self::CLOSED, Ordering::AcqRel);
        let mut spins = 0u32;
        while s & !Self::CLOSED != 0 {
            // A helper inside is running the last of the work: a short spin, then sleep until
            // it leaves (`leave` unparks this thread; a spurious wake-up loops).
            if spins < 200 {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::park();
            }
            s = self.state.load(Ordering::Acquire);
        }
    }
}

/// [`run_with_helpers`]' work as its helpers hold it: a pointer without the borrow's
/// lifetime, which a job that runs after the caller has returned holds but never follows.
#[derive(Clone, Copy)]
struct Work(*const (dyn Fn() + Sync + 'static));

// SAFETY: the work is `Sync` (its runs share it by reference), and the pointer is followed
// only inside the gate, where the caller keeps the work alive (`Work::call`).
unsafe impl Send for Work {}

impl Work {
    fn new(work: &(dyn Fn() + Sync)) -> Work {
        let p: *const (dyn Fn() + Sync + '_) = work;
        // SAFETY: only the trait object's lifetime bound changes (same pointer and vtable);
        // `call`'s contract keeps every use within the borrow.
        Work(unsafe {
            std::mem::transmute::<*const (dyn Fn() + Sync + '_), *const (dyn Fn() + Sync + 'static)>(
                p,
            )
        })
    }

    /// Run the work.
    ///
    /// # Safety
    /// Only between a successful [`Gate::enter`] and its [`Gate::leave`]: `run_with_helpers`
    /// does not return or unwind before its gate is closed (no `enter` succeeds after that)
    /// and no helper is inside, so the borrow the work came from is alive.
    unsafe fn call(self) {
        // SAFETY: the caller's contract above.
        unsafe { (*self.0)() }
    }
}

/// Closes the gate and waits for its helpers when the caller's own part ends, returning or
/// unwinding: no helper uses the caller's borrowed work after [`run_with_helpers`] returns.
struct CloseOnDrop<'a>(&'a Gate);

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.close_and_wait();
    }
}

/// Run `work` on the calling thread and on up to `helpers` jobs of rayon's global pool, and
/// return once every run of it has ended. A job that starts after the caller's own run of
/// `work` has ended does nothing, and the caller does not wait for it: the caller's run ends
/// when it finds no work left, so a job that starts later would find none either. A launch
/// whose CTAs all ran on the calling thread (a small grid, or pool threads that did not get
/// a core in time) then ends without waiting for a pool thread to wake up. (`rayon::scope`
/// would wait for every job it spawned to run, however late.) A helper's panic is resumed
/// on the caller, as `rayon::scope` does.
pub fn run_with_helpers(helpers: usize, work: &(dyn Fn() + Sync)) {
    if helpers == 0 {
        work();
        return;
    }
    let gate = Arc::new(Gate {
        state: AtomicU64::new(0),
        caller: std::thread::current(),
        panic: Mutex::new(None),
    });
    let shared = Work::new(work);
    for _ in 0..helpers {
        let gate = Arc::clone(&gate);
        rayon::spawn(move || {
            if !gate.enter() {
                return;
            }
            // SAFETY: inside the gate (`Work::call`).
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || unsafe {
                shared.call()
            }));
            if let Err(p) = r {
                if let Ok(mut first) = gate.panic.lock() {
                    first.get_or_insert(p);
                }
            }
            gate.leave();
        });
    }
    let closer = CloseOnDrop(&gate);
    work();
    drop(closer);
    let panic = gate.panic.lock().ok().and_then(|mut p| p.take());
    if let Some(p) = panic {
        std::panic::resume_unwind(p);
    }
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
    /// Items of a shared counter taken by every run of `work` until none is left, as a
    /// launch's workers take CTAs: each item once, and all of them done when
    /// `run_with_helpers` returns, with helpers that take part (items long enough for a pool
    /// thread to wake up and take some) and with helpers that mostly start too late
    /// (10 000 calls of a few short items each: a lost wake-up of the caller would hang).
    #[test]
    fn helpers_share_the_work_and_are_waited_for() {
        use std::sync::atomic::AtomicU32;
        let taken = AtomicU64::new(0);
        let items: Vec<AtomicU32> = (0..64).map(|_| AtomicU32::new(0)).collect();
        let helper_items = AtomicU64::new(0);
        let caller = std::thread::current().id();
        let work = |n: u64, sleep: std::time::Duration| loop {
            let i = taken.fetch_add(1, Ordering::Relaxed);
            if i >= n {
                return;
            }
            std::thread::sleep(sleep);
            items[i as usize].fetch_add(1, Ordering::Relaxed);
            if std::thread::current().id() != caller {
                helper_items.fetch_add(1, Ordering::Relaxed);
            }
        };
        run_with_helpers(1, &|| work(64, std::time::Duration::from_millis(2)));
        assert!(items.iter().all(|c| c.load(Ordering::Relaxed) == 1));
        assert!(
            helper_items.load(Ordering::Relaxed) > 0,
            "a helper took part in 128 ms of work"
        );
        for round in 0..10_000 {
            taken.store(0, Ordering::Relaxed);
            for c in &items[..4] {
                c.store(0, Ordering::Relaxed);
            }
            run_with_helpers(2, &|| work(4, std::time::Duration::ZERO));
            assert!(
                items[..4].iter().all(|c| c.load(Ordering::Relaxed) == 1),
                "round {round}: every item once, all done on return"
            );
        }
    }

    /// A helper that starts after the caller's run has ended does not run the work, and the
    /// caller does not wait for it: the caller runs on the only free thread of a two-thread
    /// pool (the other blocked until the call has returned), where its helper's job waits in
    /// the caller's own queue. (Waiting for every job, as `rayon::scope` does, would run the
    /// job on the caller and the work twice.)
    #[test]
    fn late_helpers_do_nothing_and_are_not_waited_for() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("builds");
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let (blocked_tx, blocked_rx) = std::sync::mpsc::channel::<()>();
        pool.spawn(move || {
            let _ = blocked_tx.send(());
            let _ = release_rx.recv();
        });
        blocked_rx.recv().expect("the other thread is blocked");
        let runs = Arc::new(AtomicU64::new(0));
        let r = Arc::clone(&runs);
        pool.install(move || {
            run_with_helpers(1, &|| {
                r.fetch_add(1, Ordering::SeqCst);
            })
        });
        assert_eq!(
            runs.load(Ordering::SeqCst),
            1,
            "only the caller ran the work"
        );
        release_tx.send(()).expect("releases");
        // The late job now runs on a free thread and finds the gate closed.
        pool.install(|| std::thread::sleep(std::time::Duration::from_millis(20)));
        drop(pool);
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(
            runs.load(Ordering::SeqCst),
            1,
            "the late helper did nothing"
        );
    }

    /// A helper's panic reaches the caller once the caller's own run has ended, as
    /// `rayon::scope` resumes a job's panic.
    #[test]
    fn a_helpers_panic_is_resumed_on_the_caller() {
        let entered = std::sync::atomic::AtomicBool::new(false);
        let caller = std::thread::current().id();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_with_helpers(1, &|| {
                if std::thread::current().id() == caller {
                    // Wait (up to 10 s) for the helper to enter before the gate closes.
                    let t = std::time::Instant::now();
                    while !entered.load(Ordering::SeqCst) && t.elapsed().as_secs() < 10 {
                        std::thread::yield_now();
                    }
                } else {
                    entered.store(true, Ordering::SeqCst);
                    panic!("helper panics");
                }
            })
        }));
        assert!(entered.load(Ordering::SeqCst), "the helper entered");
        let payload = r.expect_err("the helper's panic is resumed");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"helper panics"));
    }
}
