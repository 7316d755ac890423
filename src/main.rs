//! The `ptxjit` command; everything lives in [`ptxjit::cli`].

fn main() -> std::process::ExitCode {
    restore_sigpipe();
    ptxjit::cli::main()
}

/// Let a closed pipe end the process quietly (`ptxjit dump --ir k.ptx | head`), as command-line
/// tools do, instead of Rust's default of ignoring SIGPIPE and panicking on the failed write.
#[cfg(unix)]
fn restore_sigpipe() {
    // SAFETY: called first thing in main, before any other thread exists; setting a signal
    // disposition to SIG_DFL has no other preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn restore_sigpipe() {}
