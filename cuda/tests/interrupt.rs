//! Ctrl-C during a launch under `ptxjit exec` (`PTXJIT_INTERRUPT=1`): the launch stops, its
//! report says where the warps were (never-started warps said to be so), and the program then
//! ends as SIGINT ends it — or, when the program has its own SIGINT handler, the launch fails
//! and the handler runs. The program parts (`program`, `program_with_handler`) run in a child
//! process of this test binary, which the test interrupts.

use cuda::launch::*;
use std::ffi::CString;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicU32, Ordering::SeqCst};

mod common;
use common::function;

/// Every thread spins on a flag nobody sets.
const SPIN: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\
    .visible .entry spin()\n{\n$L:\nbra $L;\n}\n";

/// The program: runs only in the child (`PTXJIT_INTERRUPT` set).
#[test]
fn program() {
    if std::env::var("PTXJIT_INTERRUPT").is_err() {
        return;
    }
    unsafe {
        common::setup();
        let spin = function(common::load(&CString::new(SPIN).unwrap()), "spin");
        println!("launching");
        // One CTA of 32 warps: warp 0 spins for ever, so the others never start.
        let r = cuLaunchKernel(spin, 1, 1, 1, 1024, 1, 1, 0, 0, null_mut(), null_mut());
        // Not reached: the interrupt ends the process.
        println!("launch returned {r}");
    }
}

/// SIGINTs the program's own handler saw.
static SEEN: AtomicU32 = AtomicU32::new(0);

extern "C" fn count_sigint(_: libc::c_int) {
    SEEN.fetch_add(1, SeqCst);
}

/// The program with a SIGINT handler of its own, installed before `cuInit`: runs only in the
/// child (`PTXJIT_INTERRUPT` set).
#[test]
fn program_with_handler() {
    if std::env::var("PTXJIT_INTERRUPT").is_err() {
        return;
    }
    unsafe {
        libc::signal(
            libc::SIGINT,
            count_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
        common::setup();
        let spin = function(common::load(&CString::new(SPIN).unwrap()), "spin");
        println!("launching");
        let r = cuLaunchKernel(spin, 1, 1, 1, 64, 1, 1, 0, 0, null_mut(), null_mut());
        // The stopped launch's error comes from the next call that waits for the work.
        let sync = cuda::context::cuCtxSynchronize();
        println!(
            "launch returned {r}, the sync {sync}; the handler saw {}",
            SEEN.load(SeqCst)
        );
    }
}

/// Runs `name` in a child under `PTXJIT_INTERRUPT=1`, sends it SIGINT once it spins, and
/// gives its exit status, stdout and stderr.
fn interrupted(name: &str) -> (std::process::ExitStatus, String, String) {
    use std::os::unix::process::CommandExt;
    let mut cmd = common::test_child(name);
    // SAFETY: `signal` is async-signal-safe, as code between fork and exec must be. The child
    // starts with SIGINT's default action whatever the test runner has (a shell without job
    // control starts background jobs with SIGINT ignored, and an ignored SIGINT stays ignored
    // under ptxjit, as a program that ignores it expects).
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            Ok(())
        });
    }
    let child = cmd
        .env("PTXJIT_INTERRUPT", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    // Time to start spinning.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY: a signal to our own child process.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    // A child the SIGINT did not stop is killed after 30 s (its status then says SIGKILL).
    let pid = child.id() as libc::pid_t;
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let killer = {
        let done = done.clone();
        std::thread::spawn(move || {
            for _ in 0..300 {
                std::thread::sleep(std::time::Duration::from_millis(100));
                if done.load(SeqCst) {
                    return;
                }
            }
            // SAFETY: a signal to our own child process, not yet waited for.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        })
    };
    let out = child.wait_with_output().expect("waits");
    done.store(true, SeqCst);
    killer.join().expect("the killer thread");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status, stdout, err)
}

#[test]
fn ctrl_c_stops_the_launch_and_runs_the_programs_own_handler() {
    if std::env::var("PTXJIT_INTERRUPT").is_ok() {
        return;
    }
    let (status, stdout, err) = interrupted("program_with_handler");
    assert!(status.success(), "{status:?}\n{stdout}{err}");
    // The launch succeeds, the sync returns CUDA_ERROR_LAUNCH_FAILED, and the handler ran
    // once.
    assert!(
        stdout.contains("launch returned 0, the sync 719; the handler saw 1"),
        "{stdout}{err}"
    );
    assert!(
        err.contains(
            "kernel 'spin' interrupted: CTA (0,0,0) warp 0, threads (0,0,0) to (31,0,0) \
             (lanes 0-31), was at 'bra'; the warps were at:\nCTA (0,0,0):"
        ),
        "{err}"
    );
}

#[test]
fn ctrl_c_reports_where_the_warps_were_and_ends_the_program() {
    if std::env::var("PTXJIT_INTERRUPT").is_ok() {
        return;
    }
    let (status, stdout, err) = interrupted("program");
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(libc::SIGINT), "{stdout}{err}");
    assert!(stdout.contains("launching") && !stdout.contains("launch returned"));
    assert!(
        err.contains(
            "kernel 'spin' interrupted: CTA (0,0,0) warp 0, threads (0,0,0) to (31,0,0) \
             (lanes 0-31), was at 'bra'; the warps were at:\nCTA (0,0,0):"
        ),
        "{err}"
    );
    assert!(err.contains("\n  warp 0: lanes 0-31 at 'bra'"), "{err}");
    assert!(err.contains("\n  warps 1-31: not started"), "{err}");
}
