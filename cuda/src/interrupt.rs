//! Ctrl-C under `ptxjit exec` (`PTXJIT_INTERRUPT=1`, which `exec` sets): the first SIGINT
//! during a kernel launch stops the launch, which reports where its warps were on stderr
//! (`kernel 'k' interrupted; the warps were at:` …, the report `ptxjit run` gives), and the
//! program then ends as SIGINT ends it; a SIGINT outside a launch, or a second one, ends the
//! program at once. The handler is installed at `cuInit` only while SIGINT has its default
//! action (a program with its own handler, such as Python's, keeps it). Launches then register
//! with the runtime's interrupt watcher (one thread per process, polling every 50 ms).

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// Launches in progress.
static LAUNCHING: AtomicU32 = AtomicU32::new(0);
/// A SIGINT arrived during a launch.
static PRESSED: AtomicBool = AtomicBool::new(false);

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

/// Installs the handler when `PTXJIT_INTERRUPT` is set and SIGINT has its default action.
pub fn install_from_env() {
    if !ptxjit::host::env_flag("PTXJIT_INTERRUPT") {
        return;
    }
    // SAFETY: reads the current disposition into a zeroed sigaction, then installs a plain
    // `extern "C"` handler with an empty mask.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(libc::SIGINT, std::ptr::null(), &mut old) != 0
            || old.sa_sigaction != libc::SIG_DFL
        {
            return;
        }
        let mut act: libc::sigaction = std::mem::zeroed();
        act.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as usize;
        act.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut act.sa_mask);
        if libc::sigaction(libc::SIGINT, &act, std::ptr::null_mut()) == 0 {
            ptxjit::runtime::launch::INTERRUPTIBLE.store(true, Ordering::SeqCst);
        }
    }
}

/// A launch begins (counted for the handler).
pub fn begin() {
    LAUNCHING.fetch_add(1, Ordering::SeqCst);
}

/// A launch ended: whether a SIGINT arrived during it (the caller then flushes the device
/// printf text and calls [`end_process`]).
pub fn end() -> bool {
    LAUNCHING.fetch_sub(1, Ordering::SeqCst);
    PRESSED.load(Ordering::SeqCst)
}

/// Flushes the program's C stdio streams and ends the process as SIGINT does.
pub fn end_process() {
    // SAFETY: flushes every C stdio stream.
    unsafe { libc::fflush(std::ptr::null_mut()) };
    default_action();
}
