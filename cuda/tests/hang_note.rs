//! A launch that runs long without a time limit says so on stderr once, naming the kernel and
//! how to stop it with a report (`--timeout`, `PTXJIT_INTERRUPT=1` and Ctrl-C), and runs on,
//! as on a GPU without a watchdog; `PTXJIT_HANG_NOTE` sets the delay (0 turns it off) and a
//! launch with a time limit gets no note. The program part runs in a child process of this
//! test binary, whose stderr the tests read.

use cuda::errors::*;
use cuda::launch::*;
use cuda::memory::*;
use std::ffi::CString;
use std::ptr::null_mut;

mod common;
use common::{arg, function, load, setup, test_child};

/// Every thread waits until the word at `flag` is not 0.
const WAIT: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\
    .visible .entry wait_for_flag(.param .u64 flag)\n{\n.reg .b64 %rd<2>;\n.reg .b32 %r<2>;\n\
    .reg .pred %p<2>;\nld.param.u64 %rd1, [flag];\n$L:\nld.volatile.global.u32 %r1, [%rd1];\n\
    setp.eq.u32 %p1, %r1, 0;\n@%p1 bra $L;\nret;\n}\n";

/// The program: a launch that waits 1.5 s for a flag the host sets from another thread
/// (managed memory is the same address for both); runs only in the child.
#[test]
fn program() {
    if std::env::var("HANG_NOTE_CHILD").is_err() {
        return;
    }
    setup();
    let f = function(load(&CString::new(WAIT).unwrap()), "wait_for_flag");
    unsafe {
        let mut flag = 0u64;
        assert_eq!(cuMemAllocManaged(&mut flag, 4, 1), CUDA_SUCCESS);
        (flag as *mut u32).write_volatile(0);
        let addr = flag as usize;
        let setter = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(1500));
            // SAFETY: the managed allocation lives until the launch below has returned.
            std::ptr::write_volatile(addr as *mut u32, 1);
        });
        let mut params = [arg(&flag)];
        let r = cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, params.as_mut_ptr(), null_mut());
        setter.join().unwrap();
        assert_eq!(r, CUDA_SUCCESS);
    }
    println!("launch returned");
}

/// Runs the program with `env` set: its stderr.
fn child(env: &[(&str, &str)]) -> String {
    let mut cmd = test_child("program");
    cmd.env("HANG_NOTE_CHILD", "1")
        .env_remove("PTXJIT_TIMEOUT")
        .env_remove("PTXJIT_HANG_NOTE")
        .env_remove("PTXJIT_INTERRUPT")
        .env_remove("PTXJIT_TOOL");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("runs");
    let (stdout, err) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(
        out.status.success() && stdout.contains("launch returned"),
        "{stdout}\n{err}"
    );
    err
}

#[test]
fn a_long_launch_is_noted_once_and_runs_on() {
    if std::env::var("HANG_NOTE_CHILD").is_ok() {
        return;
    }
    let err = child(&[("PTXJIT_HANG_NOTE", "0.3")]);
    let want =
        "ptxjit: kernel 'wait_for_flag' has been running for 0.3 s and goes on, as on a GPU \
                without a watchdog (an endless loop?); to stop it with a report of where its \
                warps are, rerun with PTXJIT_TIMEOUT=SECONDS (ptxjit exec --timeout \
                SECONDS), or with PTXJIT_INTERRUPT=1 and press Ctrl-C (PTXJIT_HANG_NOTE=0 turns this note off)\n";
    assert_eq!(err.matches(want).count(), 1, "{err}");
    assert_eq!(err.matches("has been running").count(), 1, "{err}");
}

#[test]
fn no_note_when_off_or_with_a_time_limit() {
    if std::env::var("HANG_NOTE_CHILD").is_ok() {
        return;
    }
    let err = child(&[("PTXJIT_HANG_NOTE", "0")]);
    assert!(!err.contains("has been running"), "{err}");
    let err = child(&[("PTXJIT_HANG_NOTE", "0.3"), ("PTXJIT_TIMEOUT", "60")]);
    assert!(!err.contains("has been running"), "{err}");
}
