//! A launch the driver refuses before it runs says why on stderr: the program usually shows
//! only the code (`CUDA_ERROR_INVALID_VALUE`), and NVIDIA's driver says no more. Each distinct
//! reason is printed once; under a tool each refusal is one of its errors, as
//! compute-sanitizer reports a failed API call.

use cuda::errors::*;
use cuda::launch::*;
use cuda::memory::*;
use std::ptr::null_mut;

mod common;
use common::{arg, function, load, repo_file, setup, test_child};

/// The refused launches; run in a child process (`LAUNCH_REFUSED_CHILD`) by the tests below,
/// which read its stderr.
#[test]
fn refused_launches() {
    if std::env::var("LAUNCH_REFUSED_CHILD").is_err() {
        return;
    }
    setup();
    let f = function(
        load(&repo_file("ptx-tests/kernels/saxpy/saxpy.ptx")),
        "saxpy",
    );
    unsafe {
        let mut y = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut y, 4096), CUDA_SUCCESS);
        let (n, a) = (1024u32, 2.0f32);
        let mut params = [arg(&n), arg(&a), arg(&y), arg(&y)];
        for _ in 0..2 {
            let r = cuLaunchKernel(
                f,
                1,
                1,
                1,
                1025,
                1,
                1,
                0,
                0,
                params.as_mut_ptr(),
                null_mut(),
            );
            assert_eq!(r, CUDA_ERROR_INVALID_VALUE, "1025 threads per block");
        }
        // One entry short: the word after the array is 0x4.
        let mut short = [
            arg(&n),
            arg(&a),
            arg(&y),
            std::ptr::without_provenance_mut(4),
        ];
        let r = cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, short.as_mut_ptr(), null_mut());
        assert_eq!(r, CUDA_ERROR_INVALID_VALUE, "kernelParams[3] = 0x4");
        // A launch that runs says nothing.
        let r = cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, 0, params.as_mut_ptr(), null_mut());
        assert_eq!(r, CUDA_SUCCESS);
    }
}

fn child(tool: Option<&str>) -> (std::process::Output, String) {
    let mut cmd = test_child("refused_launches");
    cmd.env("LAUNCH_REFUSED_CHILD", "1")
        .env_remove("PTXJIT_TRACE");
    match tool {
        Some(t) => cmd.env("PTXJIT_TOOL", t),
        None => cmd.env_remove("PTXJIT_TOOL"),
    };
    let out = cmd.output().expect("runs");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("test refused_launches ... ok"),
        "{err}"
    );
    (out, err)
}

const BLOCK: &str = "kernel 'saxpy': invalid block [1025, 1, 1]";
const PARAM: &str = "kernel 'saxpy': kernelParams[3] ('saxpy_param_3', 8 bytes) is 0x4, \
                     which is no host address";

#[test]
fn a_refused_launch_says_why_once_per_reason() {
    if std::env::var("LAUNCH_REFUSED_CHILD").is_ok() {
        return;
    }
    let (out, err) = child(None);
    assert!(out.status.success(), "{err}");
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("kernel 'saxpy'"))
        .collect();
    assert_eq!(lines.len(), 2, "one line per distinct reason:\n{err}");
    assert!(
        lines[0].starts_with("ptxjit: cuLaunchKernel: ") && lines[0].contains(BLOCK),
        "{err}"
    );
    assert!(lines[0].ends_with("(CUDA_ERROR_INVALID_VALUE)"), "{err}");
    assert!(lines[1].contains(PARAM), "{err}");
}

#[test]
fn under_a_tool_each_refused_launch_is_an_error() {
    if std::env::var("LAUNCH_REFUSED_CHILD").is_ok() {
        return;
    }
    let (out, err) = child(Some("memcheck"));
    assert_eq!(
        out.status.code(),
        Some(2),
        "errors end the program with 2:\n{err}"
    );
    // Each report is the compute-sanitizer line, then ptxjit's reason on the next line.
    let lines: Vec<&str> = err.lines().collect();
    let hits: Vec<&str> = lines
        .windows(2)
        .filter(|w| {
            w[0] == "========= Program hit CUDA_ERROR_INVALID_VALUE (error 1) due to \"invalid \
                     argument\" on CUDA API call to cuLaunchKernel."
        })
        .map(|w| w[1])
        .collect();
    assert_eq!(hits.len(), 3, "{err}");
    assert!(hits[0].contains(BLOCK) && hits[1].contains(BLOCK), "{err}");
    assert!(hits[2].contains(PARAM), "{err}");
    assert!(err.contains("========= ERROR SUMMARY: 3 errors"), "{err}");
}

/// A kernel that stores to its dynamic shared memory.
const DYNAMIC_SHARED_PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.extern .shared .align 4 .b8 dyn[];
.visible .entry dyn_shared()
{
    .reg .b32 %r<2>;
    mov.u32 %r1, %tid.x;
    st.shared.u32 [dyn], %r1;
    ret;
}
"#;

/// A launch asking for 64 KiB of dynamic shared memory without the opt-in attribute, under
/// the capability `PTXJIT_CC` gives; prints `OPTIN=<cuDeviceGetAttribute(
/// CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)>` (run by the test below).
#[test]
fn dynamic_shared_past_the_default() {
    if std::env::var("LAUNCH_REFUSED_CHILD").is_err() {
        return;
    }
    setup();
    let text = std::ffi::CString::new(DYNAMIC_SHARED_PTX).unwrap();
    let f = function(load(&text), "dyn_shared");
    let mut optin = 0;
    unsafe {
        assert_eq!(
            cuda::device::cuDeviceGetAttribute(&mut optin, 97, 0),
            CUDA_SUCCESS
        );
        let r = cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 64 << 10, 0, null_mut(), null_mut());
        assert_eq!(r, CUDA_ERROR_INVALID_VALUE);
    }
    println!("OPTIN={optin}");
}

/// The opt-in limit a refused launch names is the reported capability's, the value the device
/// attribute gives (CUDA C++ Programming Guide, "Technical Specifications per Compute
/// Capability": 163 KB of shared memory per block at 8.0, 227 KB at 9.0, 64 KB at 7.5).
#[test]
fn the_opt_in_hint_follows_the_compute_capability() {
    if std::env::var("LAUNCH_REFUSED_CHILD").is_ok() {
        return;
    }
    for (cc, want) in [("8.0", 163 << 10), ("9.0", 227 << 10), ("7.5", 64 << 10)] {
        let out = test_child("dynamic_shared_past_the_default")
            .env("LAUNCH_REFUSED_CHILD", "1")
            .env("PTXJIT_CC", cc)
            .env_remove("PTXJIT_TOOL")
            .output()
            .expect("runs");
        let (stdout, err) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(out.status.success(), "{cc}: {stdout}\n{err}");
        assert!(
            stdout.contains(&format!("OPTIN={want}\n")),
            "{cc}: {stdout}"
        );
        assert!(
            err.contains(&format!(
                "cudaFuncAttributeMaxDynamicSharedMemorySize attribute set first \
                 (cudaFuncSetAttribute, or cuFuncSetAttribute with \
                 CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), up to {want} bytes"
            )),
            "{cc}: {err}"
        );
    }
}
