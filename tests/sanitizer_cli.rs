//! `ptxjit run --tool`: the sanitizer's report, summary line, JSON field and exit status.

mod common;

use common::{expect_stderr_on_both_engines, ptxjit};

#[test]
fn memcheck_reports_the_halo_overrun_with_its_cuda_line_and_exits_2() {
    expect_stderr_on_both_engines(
        &[
            "--tool",
            "memcheck",
            "ptx-tests/sanitizer/stencil_halo.toml",
        ],
        2,
        &[
            "========= PTXJIT SANITIZER (memcheck)\n",
            "========= Invalid __global__ read of size 4 bytes\n",
            "=========     at kernel 'stencil3' in stencil_halo.cu:10:5\n",
            "stencil_halo.ptx:59:2 'ld.global.f32'\n",
            "=========     by thread (255,0,0) in block (3,0,0)\n",
            "0 bytes after the end of 'in'",
            "========= ERROR SUMMARY: 1 error\n",
        ],
    );
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
fn synccheck_reports_the_divergent_barrier_with_its_cuda_line_and_exits_2() {
    for engine in ["jit", "interp"] {
        let o = ptxjit(&[
            "run",
            "--engine",
            engine,
            "--tool",
            "synccheck",
            "ptx-tests/sanitizer/sync_in_if.toml",
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        for want in [
            "========= PTXJIT SANITIZER (synccheck)\n",
            "========= Barrier error detected. Divergent thread(s) in warp\n",
            "=========     at kernel 'neighbour_sum' in sync_in_if.cu:9:9\n",
            "sync_in_if.ptx:49:2 'bar.sync'\n",
            "=========     by thread (32,0,0) in block (0,0,0) and 7 more threads of the block\n",
            "lanes 0-7 of warp 1 reached barrier 0 (line 49) while lanes 8-31 of the warp had exited",
            "========= ERROR SUMMARY: 1 error\n",
        ] {
            assert!(err.contains(want), "{engine}: missing {want:?} in:\n{err}");
        }
        // Without the tool the kernel runs as before: no error.
        let o = ptxjit(&[
            "run",
            "--engine",
            engine,
            "ptx-tests/sanitizer/sync_in_if.toml",
        ]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(!out.contains("Divergent"), "{out}");
    }
}

#[test]
fn synccheck_counts_each_distinct_error_in_json() {
    let o = ptxjit(&[
        "run",
        "--json",
        "--tool",
        "synccheck",
        "ptx-tests/sanitizer/shfl_exited.toml",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    // One error per shuffle of the unrolled reduction (five instructions).
    assert_eq!(
        v["sanitizer"],
        serde_json::json!({"tool": "synccheck", "errors": 5})
    );
    assert_eq!(v["error"]["kind"], "sanitizer");
    let o = ptxjit(&[
        "run",
        "--tool",
        "synccheck",
        "ptx-tests/sanitizer/shfl_exited.toml",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(
            "lanes 0-7 of warp 1 synchronize on membermask 0xffffffff, which names lanes 8-31 \
             that exited without executing it"
        ),
        "{err}"
    );
    // The first shuffle's report names its CUDA line, its PTX line:column and instruction,
    // and the threads (warp 1's lanes 0-7: threads 32-39).
    assert!(
        err.contains(
            "=========     at kernel 'tail_sums' in shfl_exited.cu:10:9\n\
             =========     PTX ptx-tests/sanitizer/shfl_exited.ptx:52:2 'shfl.sync.down.b32'\n\
             =========     by thread (32,0,0) in block (0,0,0) and 7 more threads of the block\n"
        ),
        "{err}"
    );
}

#[test]
fn an_unknown_tool_is_refused_with_the_list_of_tools() {
    let o = ptxjit(&[
        "run",
        "--tool",
        "racechek",
        "ptx-tests/kernels/saxpy/saxpy.toml",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("unknown tool 'racechek' (tools: memcheck, racecheck, initcheck, synccheck)"),
        "{err}"
    );
}

#[test]
fn racecheck_reports_the_missing_barrier_with_both_cuda_lines_and_exits_2() {
    expect_stderr_on_both_engines(
        &[
            "--tool",
            "racecheck",
            "ptx-tests/sanitizer/race_reduce.toml",
        ],
        2,
        &[
            "========= PTXJIT SANITIZER (racecheck)\n",
            "========= Error: Race reported between Read access and Write access to __shared__ \
             'block_sum::sdata' (_ZZ9block_sumE5sdata) + 512 (4 bytes at shared address 0x200) \
             [512 hazards]\n",
            "=========     Read at kernel 'block_sum' in race_reduce.cu:13:13\n",
            "race_reduce.ptx:72:2 'ld.shared.f32'\n=========         by thread (0,0,0) in block \
             (0,0,0)\n",
            "=========     Write at kernel 'block_sum' in race_reduce.cu:10:5\n",
            "race_reduce.ptx:56:2 'st.shared.f32'\n=========         by thread (128,0,0) in \
             block (0,0,0)\n",
            "========= ERROR SUMMARY: 1 error\n",
        ],
    );
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

#[test]
fn initcheck_reports_the_unzeroed_histogram_bins_with_its_cuda_line_and_exits_2() {
    expect_stderr_on_both_engines(
        &["--tool", "initcheck", "ptx-tests/sanitizer/histogram.toml"],
        2,
        &[
            "========= PTXJIT SANITIZER (initcheck)\n",
            "========= Uninitialized __global__ memory read of size 4 bytes (by an atomic)\n",
            "=========     at kernel 'histogram' in histogram.cu:17:5\n",
            "histogram.ptx:90:2 'atom.global.add.u32'\n",
            "=========     by thread (0,0,0) in block (0,0,0) and 63 more accesses\n",
            "reads never-written 'bins' (64 bytes) at offset 0\n",
            "========= ERROR SUMMARY: 1 error\n",
        ],
    );
}

#[test]
fn initcheck_reports_shared_memory_read_before_written() {
    expect_stderr_on_both_engines(
        &[
            "--tool",
            "initcheck",
            "ptx-tests/sanitizer/shared_tail.toml",
        ],
        2,
        &[
            "========= Uninitialized __shared__ memory read of size 4 bytes\n",
            "=========     at kernel 'block_sum' in shared_tail.cu:13:9\n",
            "=========     by thread (104,0,0) in block (3,0,0) and 23 more accesses\n",
            "reads never-written shared memory at offset 928\n",
            "========= ERROR SUMMARY: 1 error\n",
        ],
    );
}

#[test]
fn initcheck_is_clean_once_the_bins_are_zeroed_and_counts_in_json() {
    for engine in ["jit", "interp"] {
        let o = ptxjit(&[
            "run",
            "--engine",
            engine,
            "--tool",
            "initcheck",
            "ptx-tests/sanitizer/histogram_zeroed.toml",
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{err}");
        assert!(err.contains("========= ERROR SUMMARY: 0 errors"), "{err}");
    }
    let o = ptxjit(&[
        "run",
        "--json",
        "--tool",
        "initcheck",
        "ptx-tests/sanitizer/histogram.toml",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert_eq!(
        v["sanitizer"],
        serde_json::json!({"tool": "initcheck", "errors": 1})
    );
    assert_eq!(v["error"]["kind"], "sanitizer");
}

#[test]
fn racecheck_prints_its_banner_once_over_several_reports() {
    let o = ptxjit(&[
        "run",
        "--tool",
        "racecheck",
        "--racecheck-global",
        "ptx-tests/sanitizer/race_global.toml",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("========= ERROR SUMMARY: 2 errors\n"), "{err}");
    assert_eq!(
        err.matches("PTXJIT SANITIZER").count(),
        1,
        "one banner for both reports:\n{err}"
    );
    assert_eq!(
        err.matches("========= Error: Race reported").count(),
        2,
        "{err}"
    );
}
