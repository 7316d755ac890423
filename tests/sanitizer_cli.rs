//! `ptxjit run --tool`: the sanitizer's report, summary line, JSON field and exit status.

use std::process::{Command, Output};

fn ptxjit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxjit"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run ptxjit")
}

#[test]
fn memcheck_reports_the_halo_overrun_with_its_cuda_line_and_exits_2() {
    for engine in ["jit", "interp"] {
        let o = ptxjit(&[
            "run",
            "--engine",
            engine,
            "--tool",
            "memcheck",
            "ptx-tests/sanitizer/stencil_halo.toml",
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        for want in [
            "========= PTXJIT SANITIZER (memcheck)\n",
            "========= Invalid __global__ read of size 4 bytes\n",
            "=========     at kernel 'stencil3' in stencil_halo.cu:10:5\n",
            "stencil_halo.ptx:59:2 'ld.global.f32'\n",
            "=========     by thread (255,0,0) in block (3,0,0)\n",
            "0 bytes after the end of 'in'",
            "========= ERROR SUMMARY: 1 error\n",
        ] {
            assert!(err.contains(want), "{engine}: missing {want:?} in:\n{err}");
        }
    }
}

#[test]
fn a_clean_kernel_has_no_errors() {
    let o = ptxjit(&[
        "run",
        "--tool",
        "memcheck",
        "ptx-tests/kernels/saxpy/saxpy.toml",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("========= ERROR SUMMARY: 0 errors"), "{err}");
    let o = ptxjit(&[
        "run",
        "--json",
        "--tool",
        "memcheck",
        "ptx-tests/kernels/saxpy/saxpy.toml",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert_eq!(
        v["sanitizer"],
        serde_json::json!({"tool": "memcheck", "errors": 0})
    );
}

#[test]
fn json_counts_the_error() {
    let o = ptxjit(&[
        "run",
        "--json",
        "--tool",
        "memcheck",
        "ptx-tests/sanitizer/use_after_free.toml",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert_eq!(v["sanitizer"]["errors"], 1);
    assert_eq!(v["error"]["kind"], "fault");
}

#[test]
fn unimplemented_tools_say_so() {
    for t in ["initcheck", "synccheck"] {
        let o = ptxjit(&["run", "--tool", t, "ptx-tests/kernels/saxpy/saxpy.toml"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!("the {t} tool is not implemented yet")),
            "{err}"
        );
    }
}

#[test]
fn racecheck_reports_the_missing_barrier_with_both_cuda_lines_and_exits_2() {
    for engine in ["jit", "interp"] {
        let o = ptxjit(&[
            "run",
            "--engine",
            engine,
            "--tool",
            "racecheck",
            "ptx-tests/sanitizer/race_reduce.toml",
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        for want in [
            "========= PTXJIT SANITIZER (racecheck)\n",
            "========= Error: Race reported between Read access and Write access to __shared__ \
             '_ZZ9block_sumE5sdata' + 512 (4 bytes at shared address 0x200) [512 hazards]\n",
            "=========     Read at kernel 'block_sum' in race_reduce.cu:13:13\n",
            "race_reduce.ptx:72:2 'ld.shared.f32'\n=========         by thread (0,0,0) in block \
             (0,0,0)\n",
            "=========     Write at kernel 'block_sum' in race_reduce.cu:10:5\n",
            "race_reduce.ptx:56:2 'st.shared.f32'\n=========         by thread (128,0,0) in \
             block (0,0,0)\n",
            "========= ERROR SUMMARY: 1 error\n",
        ] {
            assert!(err.contains(want), "{engine}: missing {want:?} in:\n{err}");
        }
    }
    let o = ptxjit(&[
        "run",
        "--json",
        "--tool",
        "racecheck",
        "ptx-tests/sanitizer/race_reduce.toml",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert_eq!(
        v["sanitizer"],
        serde_json::json!({"tool": "racecheck", "errors": 1})
    );
    assert_eq!(v["error"]["kind"], "sanitizer");
}

#[test]
fn racecheck_runs_correct_kernels_clean() {
    for case in [
        "ptx-tests/sanitizer/race_reduce_ok.toml",
        "ptx-tests/sanitizer/race_warp_ok.toml",
        "ptx-tests/sanitizer/race_sgemm_ok.toml",
    ] {
        let o = ptxjit(&["run", "--tool", "racecheck", case]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{case}: {err}");
        assert!(err.contains("========= ERROR SUMMARY: 0 errors"), "{err}");
    }
}
