//! Ctrl-C under `ptxjit exec` (`PTXJIT_INTERRUPT=1`, which `exec` sets): the first SIGINT
//! during a kernel launch stops the launch, which reports where its warps were on stderr
//! (`kernel 'k' interrupted; the warps were at:` …, the report `ptxjit run` gives); a second
//! one ends the program at once.
//! - A program that leaves SIGINT at its default action then ends as SIGINT ends it, and a
//!   SIGINT outside a launch ends it at once: ptxjit's handler is installed at `cuInit`.
//! - A program with its own handler (Python's, which raises `KeyboardInterrupt`; a C
//!   program's `signal(SIGINT, h)`) keeps it outside launches; during each launch ptxjit's
//!   handler stands in for it, and after a launch that a SIGINT stopped, the program's
//!   handler is put back and the signal raised again, so the program sees its Ctrl-C; the
//!   launch fails with `CUDA_ERROR_LAUNCH_FAILED`.
//!
//! Launches register with the runtime's interrupt watcher (one thread per process, polling
//! every 50 ms).

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Mutex;

/// Launches in progress.
static LAUNCHING: AtomicU32 = AtomicU32::new(0);
/// A SIGINT arrived during a launch.
static PRESSED: AtomicBool = AtomicBool::new(false);
/// `PTXJIT_INTERRUPT` is set and ptxjit's handler is not installed for good: the program
/// has its own, which [`begin`] swaps out while launches run.
static SWAPPING: AtomicBool = AtomicBool::new(false);
/// The program's SIGINT disposition while ptxjit's handler stands in for it.
static SAVED: Mutex<Option<libc::sigaction>> = Mutex::new(None);

/// The SIGINT handler: only async-signal-safe calls (atomics, `signal`, `raise`).
extern "C" fn on_sigint(_: libc::c_int) {
    if LAUNCHING.load(Ordering::SeqCst) > 0 && !PRESSED.swap(true, Ordering::SeqCst) {
        ptxjit::runtime::launch::INTERRUPT.store(true, Ordering::SeqCst);
        return;
    }
    default_action();
}

/// Ends the process as SIGINT's default action does.
fn default_action() {
    // SAFETY: restores the default disposition and raises the signal (both async-signal-safe).
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
        libc::raise(libc::SIGINT);
    }
}

/// ptxjit's handler as a `sigaction`.
fn our_action() -> libc::sigaction {
    // SAFETY: a zeroed sigaction is a valid value; the mask is then emptied.
    unsafe {
        let mut act: libc::sigaction = std::mem::zeroed();
        act.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as usize;
        act.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut act.sa_mask);
        act
    }
}

/// Installs the handler when `PTXJIT_INTERRUPT` is set and SIGINT has its default action;
/// with another disposition (the program's own handler, or SIGINT ignored), launches swap
/// the handler in while they run (a program that ignores SIGINT keeps ignoring it).
pub fn install_from_env() {
    if !ptxjit::host::env_flag("PTXJIT_INTERRUPT") {
        return;
    }
    // SAFETY: reads the current disposition into a zeroed sigaction, then installs a plain
    // `extern "C"` handler with an empty mask.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(libc::SIGINT, std::ptr::null(), &mut old) != 0
            || old.sa_sigaction == libc::SIG_IGN
        {
            return;
        }
        if old.sa_sigaction != libc::SIG_DFL {
            SWAPPING.store(true, Ordering::SeqCst);
            ptxjit::runtime::launch::INTERRUPTIBLE.store(true, Ordering::SeqCst);
            return;
        }
        if libc::sigaction(libc::SIGINT, &our_action(), std::ptr::null_mut()) == 0 {
            ptxjit::runtime::launch::INTERRUPTIBLE.store(true, Ordering::SeqCst);
        }
    }
}

/// A launch begins (counted for the handler; the first of concurrent launches swaps
/// ptxjit's handler in for the program's).
pub fn begin() {
    if !SWAPPING.load(Ordering::SeqCst) {
        LAUNCHING.fetch_add(1, Ordering::SeqCst);
        return;
    }
    let mut saved = SAVED.lock().unwrap_or_else(|e| e.into_inner());
    if LAUNCHING.fetch_add(1, Ordering::SeqCst) == 0 {
        // SAFETY: installs a plain handler, keeping the program's disposition to put back.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGINT, &our_action(), &mut old) == 0 {
                *saved = Some(old);
            }
        }
    }
}

/// A launch ended: whether a SIGINT arrived during it (the caller then flushes the device
/// printf text and calls [`end_process`]). The last of concurrent launches puts the
/// program's handler back.
pub fn end() -> bool {
    if !SWAPPING.load(Ordering::SeqCst) {
        LAUNCHING.fetch_sub(1, Ordering::SeqCst);
        return PRESSED.load(Ordering::SeqCst);
    }
    let mut saved = SAVED.lock().unwrap_or_else(|e| e.into_inner());
    // The program's handler goes back before the count drops, so a SIGINT never finds
    // ptxjit's handler with no launch to stop.
    if LAUNCHING.load(Ordering::SeqCst) == 1 {
        if let Some(old) = saved.take() {
            // SAFETY: puts back the disposition `begin` saved.
            unsafe { libc::sigaction(libc::SIGINT, &old, std::ptr::null_mut()) };
        }
    }
    LAUNCHING.fetch_sub(1, Ordering::SeqCst);
    PRESSED.load(Ordering::SeqCst)
}

/// After a launch that a SIGINT stopped: flushes the program's C stdio streams and ends the
/// process as SIGINT does, or, where the program has its own handler, raises SIGINT for it
/// (once the last concurrent launch has put it back) and returns.
pub fn end_process() {
    // SAFETY: flushes every C stdio stream.
    unsafe { libc::fflush(std::ptr::null_mut()) };
    if !SWAPPING.load(Ordering::SeqCst) {
        default_action();
        return;
    }
    let _saved = SAVED.lock().unwrap_or_else(|e| e.into_inner());
    if LAUNCHING.load(Ordering::SeqCst) == 0 && PRESSED.swap(false, Ordering::SeqCst) {
        ptxjit::runtime::launch::INTERRUPT.store(false, Ordering::SeqCst);
        // SAFETY: raises the signal for the program's own handler, now back in place.
        unsafe { libc::raise(libc::SIGINT) };
    }
}
