//! Ctrl-C during a launch under `ptxjit exec` (`PTXJIT_INTERRUPT=1`): the launch stops, its
//! report says where the warps were (never-started warps said to be so), and the program then
//! ends as SIGINT ends it. The program part (`program`) runs in a child process of this test
//! binary, which the test interrupts.

use cuda::launch::*;
use std::ffi::CString;
use std::ptr::null_mut;

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

#[test]
fn ctrl_c_reports_where_the_warps_were_and_ends_the_program() {
    if std::env::var("PTXJIT_INTERRUPT").is_ok() {
        return;
    }
    let exe = std::env::current_exe().expect("the test binary");
    let child = std::process::Command::new(exe)
        .args(["--exact", "program", "--test-threads", "1", "--nocapture"])
        .env("PTXJIT_INTERRUPT", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    // Time to start spinning.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY: a signal to our own child process.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let out = child.wait_with_output().expect("waits");
    let err = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(out.status.signal(), Some(libc::SIGINT), "{stdout}{err}");
    assert!(stdout.contains("launching") && !stdout.contains("launch returned"));
    assert!(
        err.contains("kernel 'spin' interrupted; the warps were at:\nCTA (0,0,0):"),
        "{err}"
    );
    assert!(err.contains("\n  warp 0: lanes 0-31 at 'bra'"), "{err}");
    assert!(err.contains("\n  warps 1-31: not started"), "{err}");
}
