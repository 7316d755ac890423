//! The `ptxjit` binary itself: exit codes, PASS/FAIL lines, error messages, `--json` shape,
//! the ad-hoc form (with `--expect`), `--dump`, pipelines of launches, `check` (with the
//! `[expect.NAME]` comparison options) and `dump --ir`.

mod common;

use common::{expect_stderr_on_both_engines, ptxjit, text};
use ptxjit::case::Case;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    common::scratch("cli", name)
}

/// `spin.ptx` in `dir`: kernel `k(.param .u64 a)` that loops forever (for the interrupt and
/// hang-note tests).
fn write_spin_ptx(dir: &Path) -> PathBuf {
    let ptx = dir.join("spin.ptx");
    std::fs::write(
        &ptx,
        ".version 8.5\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 a)\n{\n$L:\nbra $L;\n}\n",
    )
    .expect("write spin.ptx");
    ptx
}

fn vector_add_ptx() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("ptx-tests/kernels/vector_add/vector_add.ptx")
        .display()
        .to_string()
        .replace('\\', "/")
}

/// Write `dir/file`: a case that launches vector_add on `grid` × `block` threads with `n`
/// for its element count over buffers of 4 floats (a = 1, 2, 3, 4; b = 1.0 each) and expects
/// c to hold `expect_c` (the values as TOML writes them). Returns its path.
fn vector_add_case(
    dir: &Path,
    file: &str,
    grid: u32,
    block: u32,
    n: u32,
    expect_c: &str,
) -> PathBuf {
    let case = dir.join(file);
    std::fs::write(
        &case,
        format!(
            r#"ptx = "{}"
kernel = "vector_add"
grid = [{grid}]
block = [{block}]
args = [{{ buffer = "a" }}, {{ buffer = "b" }}, {{ buffer = "c" }}, {{ u32 = {n} }}]
[buffers.a]
type = "f32"
init = {{ values = [1, 2, 3, 4] }}
[buffers.b]
type = "f32"
len = 4
init = {{ fill = 1.0 }}
[buffers.c]
type = "f32"
len = 4
[expect.c]
values = [{expect_c}]
"#,
            vector_add_ptx()
        ),
    )
    .expect("write the case");
    case
}

#[test]
fn run_real_case_passes() {
    let o = ptxjit(&["run", "ptx-tests/kernels/sgemm_tiled/sgemm_tiled.toml"]);
    let out = text(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "stdout:\n{out}\nstderr:\n{}",
        text(&o.stderr)
    );
    assert!(out.lines().any(|l| l == "PASS C"), "{out}");
    assert!(
        out.contains("compile time:") && out.contains("kernel time:"),
        "{out}"
    );
}

#[test]
fn error_cases_exit_2_with_their_message() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("ptx-tests/errors");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        let case = Case::load(&p).unwrap();
        let want = case
            .spec
            .expect_error
            .clone()
            .expect("error cases have [expect_error]");
        let path = p.display().to_string();
        let mut args = vec!["run", path.as_str()];
        if want.memcheck {
            args.push("--memcheck");
        }
        let o = ptxjit(&args);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{path}: stderr:\n{err}");
        // The lines of failed device asserts come first on stderr, as CUDA prints them.
        let first = err.lines().find(|l| !l.contains(" Assertion `"));
        assert!(
            first.is_some_and(|l| l.starts_with("error: ")),
            "{path}: {err}"
        );
        assert!(
            err.contains(&want.contains),
            "{path}: want '{}' in:\n{err}",
            want.contains
        );
        // An argument mismatch names the case file it comes from.
        if want.kind == "argument" {
            assert!(
                err.contains(&format!("{path}: ")) && err.contains("`args`"),
                "{path}: the file is not named in:\n{err}"
            );
        }
        // --json: the same error in the error field, with its kind.
        args.push("--json");
        let o = ptxjit(&args);
        assert_eq!(o.status.code(), Some(2), "{path} --json");
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
        assert_eq!(v["error"]["kind"], want.kind.as_str(), "{path}: {v}");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .contains(&want.contains),
            "{path}: {v}"
        );
        n += 1;
    }
    assert!(n >= 7, "found only {n} error cases");
}

#[test]
fn json_has_exactly_the_documented_keys() {
    let o = ptxjit(&[
        "run",
        "ptx-tests/kernels/saxpy/saxpy.toml",
        "--json",
        "--repeat",
        "3",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "case",
            "kernel",
            "engine",
            "compile_ms",
            "kernel_ms",
            "launches",
            "results",
            "error"
        ]
    );
    assert_eq!(v["launches"].as_array().map(Vec::len), Some(1));
    let lk: Vec<&str> = v["launches"][0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(lk, ["kernel", "kernel_ms"]);
    assert_eq!(v["launches"][0]["kernel"], "saxpy");
    assert_eq!(v["case"], "ptx-tests/kernels/saxpy/saxpy.toml");
    assert_eq!(
        (v["kernel"].as_str(), v["engine"].as_str()),
        (Some("saxpy"), Some("jit"))
    );
    let km: Vec<&str> = v["kernel_ms"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(km, ["min", "median", "max"]);
    assert!(v["compile_ms"].as_f64().unwrap() > 0.0);
    let r = &v["results"][0];
    let rk: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(rk, ["buffer", "pass", "mismatches", "first"]);
    assert_eq!(r["buffer"], "y");
    assert_eq!(o.status.code(), Some(0), "{v}");
    assert_eq!(
        (r["pass"].as_bool(), r["mismatches"].as_u64()),
        (Some(true), Some(0))
    );
    assert!(r["first"].is_null() && v["error"].is_null());
}

#[test]
fn wrong_expectation_exits_1_and_prints_fail() {
    let d = scratch("wrong");
    let case = vector_add_case(&d, "wrong.toml", 1, 32, 4, "2, 3, 4, 6");
    let o = ptxjit(&["run", case.to_str().unwrap()]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}{}", text(&o.stderr));
    assert!(out.contains("FAIL c: index 3: got 5, want 6"), "{out}");
    assert!(out.contains("FAIL c: 1 of 4 elements differ"), "{out}");
    let o = ptxjit(&["run", case.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        v["results"][0]["first"],
        serde_json::json!({"index": 3, "got": "5", "want": "6"})
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn bad_case_files_exit_2_without_panicking() {
    let d = scratch("bad");
    let bad = d.join("bad.toml");
    std::fs::write(&bad, "ptx = \"x.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [1]\n[buffers.x]\ntype = \"f31\"\nlen = 1\n").unwrap();
    let o = ptxjit(&["run", bad.to_str().unwrap()]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("bad.toml:6:") && err.contains("buffers.x.type: unknown type 'f31'"),
        "{err}"
    );
    let o = ptxjit(&["run", "no/such/case.toml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("cannot read case file no/such/case.toml"));
    std::fs::write(&bad, "ptx = \n").unwrap();
    let o = ptxjit(&["run", bad.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "case");
    let o = ptxjit(&[
        "run",
        "--ptx",
        &vector_add_ptx(),
        "--kernel",
        "vector_add",
        "--grid",
        "1",
        "--block",
        "x",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--block: 'x' is not a dimension"));
    // A number past u32: out of range, not "not a dimension" (2^32 - 1 = 4294967295).
    let o = ptxjit(&[
        "run",
        "--ptx",
        &vector_add_ptx(),
        "--kernel",
        "vector_add",
        "--grid",
        "1",
        "--block",
        "99999999999",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr)
            .contains("--block: dimension '99999999999' is out of range: more than 4294967295"),
        "{}",
        text(&o.stderr)
    );
    let o = ptxjit(&["run"]);
    assert_eq!(o.status.code(), Some(2), "usage error");
    // A directory where the PTX file belongs: named, not an empty path.
    let o = ptxjit(&[
        "run", "--ptx", ".", "--kernel", "k", "--grid", "1", "--block", "1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains(". is a directory, not a PTX or CUDA C++ file"),
        "{}",
        text(&o.stderr)
    );
    // A kernel source where a case file belongs: advice, not a TOML parse error.
    for sub in ["run", "check"] {
        let o = ptxjit(&[sub, "ptx-tests/kernels/saxpy/saxpy.ptx"]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{sub}: {err}");
        assert!(
            err.contains("saxpy.ptx is a PTX file, not a case file")
                && err.contains("--ptx ptx-tests/kernels/saxpy/saxpy.ptx --kernel NAME"),
            "{sub}: {err}"
        );
    }
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn ad_hoc_run_with_dump() {
    let d = scratch("adhoc");
    let out = d.join("c.npy");
    let dump = format!("c={}", out.display());
    let o = ptxjit(&[
        "run",
        "--ptx",
        &vector_add_ptx(),
        "--kernel",
        "vector_add",
        "--grid",
        "4",
        "--block",
        "256",
        "--arg",
        "buf:a:f32:1000=iota",
        "--arg",
        "buf:b:f32:1000=fill:0.5",
        "--arg",
        "buf:c:f32:1000",
        "--arg",
        "u32=1000",
        "--dump",
        &dump,
    ]);
    let stdout = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{stdout}{}", text(&o.stderr));
    assert!(
        stdout.contains("kernel time:") && !stdout.contains("PASS"),
        "{stdout}"
    );
    let bytes = ptxjit::case::data::read_file(&out, ptxjit::case::DType::F32).unwrap();
    let c: Vec<f32> = bytes
        .chunks(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(c.len(), 1000);
    assert!(c.iter().enumerate().all(|(i, &v)| v == i as f32 + 0.5));
    std::fs::remove_dir_all(&d).ok();
}

/// `--dump` and `--png` naming no buffer of the launch: an error that names the option.
#[test]
fn dump_of_an_unknown_buffer_names_the_option() {
    for (option, value) in [("--dump", "nope=x.npy"), ("--png", "nope=x.png:2x2x1")] {
        let o = ptxjit(&[
            "run",
            "--ptx",
            &vector_add_ptx(),
            "--kernel",
            "vector_add",
            "--grid",
            "1",
            "--block",
            "4",
            "--arg",
            "buf:a:f32:4",
            "--arg",
            "buf:b:f32:4",
            "--arg",
            "buf:c:f32:4",
            "--arg",
            "u32=4",
            option,
            value,
        ]);
        let stderr = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!(
                "error: {option} nope: no buffer named 'nope' to write (buffers: a, b, c)"
            )),
            "{stderr}"
        );
    }
}

/// `--timeout` past what a deadline can hold (a launch panicked adding it to the clock) and
/// `--png` sizes that cannot fit the buffer (its `len`, or its `.npy` file's count) are
/// errors before the launch that say why.
#[test]
fn bad_timeout_and_png_options_say_what_is_wrong() {
    let d = scratch("bad_options");
    let case = vector_add_case(&d, "va.toml", 1, 4, 4, "2, 3, 4, 5");
    let case = case.to_str().expect("utf-8 path");
    for (args, want) in [
        (
            vec!["run", case, "--timeout", "1e19"],
            "error: --timeout 1e19: too large: the limit must be under 1e9 seconds",
        ),
        (
            vec!["check", case, "--timeout", "1e300"],
            "error: --timeout 1e300: too large",
        ),
        (
            vec!["run", case, "--timeout", "0"],
            "error: --timeout 0: expected a number of seconds > 0",
        ),
        (
            vec!["run", case, "--png", "c=x.png:3x1x1"],
            "error: --png 'c=x.png:3x1x1': 3x1x1 is 3 elements; buffer 'c' has 4",
        ),
        (
            // A buffer sized by its .npy file (no `len`): the file's header tells its count.
            vec![
                "run",
                "ptx-tests/kernels/saxpy/saxpy.toml",
                "--png",
                "y=never_written.png:3x1x1",
            ],
            "error: --png 'y=never_written.png:3x1x1': 3x1x1 is 3 elements; buffer 'y' has 100000",
        ),
        (
            vec!["run", case, "--png", "c=x.png:2x2"],
            "error: --png 'c=x.png:2x2': the size '2x2' has 2 of the 3 numbers",
        ),
        (
            vec!["run", case, "--png", "c=x.png:2x0x1"],
            "error: --png 'c=x.png:2x0x1': HEIGHT must be at least 1",
        ),
    ] {
        let o = ptxjit(&args);
        let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(want), "{args:?}: {stderr}");
        assert!(
            !stdout.contains("PASS"),
            "{args:?} ran the launch: {stdout}"
        );
    }
}

/// The ad-hoc launch options given with a case file are an error before anything runs, not
/// silently ignored (the case would run with its own grid, block, kernel and arguments).
#[test]
fn ad_hoc_options_with_a_case_file_are_refused() {
    for args in [
        &["--grid", "8"][..],
        &["--block", "64"],
        &["--kernel", "other"],
        &["--arg", "u32=1"],
        &["--shared-bytes", "16"],
        &["--max-dynamic-shared-bytes", "65536"],
        &["--expect", "y=y.npy"],
    ] {
        let mut all = vec!["run", "ptx-tests/kernels/saxpy/saxpy.toml"];
        all.extend_from_slice(args);
        let o = ptxjit(&all);
        let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stdout}{stderr}");
        assert!(
            stderr.contains("cannot be used with")
                && stderr.contains("CASE.toml")
                && stderr.contains(args[0]),
            "{args:?}: {stderr}"
        );
        assert!(!stdout.contains("PASS"), "{args:?} ran the case: {stdout}");
    }
}

#[test]
fn check_agrees_on_a_real_kernel() {
    let o = ptxjit(&["check", "ptx-tests/kernels/saxpy/saxpy.toml"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
    assert!(
        out.contains("[interp] PASS y") && out.contains("[jit] PASS y") && out.contains("SAME"),
        "{out}"
    );
}

#[test]
fn dump_ir_names_the_kernel() {
    let o = ptxjit(&["dump", "--ir", "ptx-tests/kernels/saxpy/saxpy.ptx"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("saxpy"));
    let o = ptxjit(&["dump", "--ir", "ptx-tests/errors/malformed.ptx"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("malformed.ptx:46:"));
}

/// When every CTA faults, the report names the lowest CTA, however the CTAs were spread over
/// the host threads (a fault stops only the CTAs after it): the same on both engines and on
/// every run.
#[test]
fn fault_report_names_the_lowest_faulting_cta() {
    for engine in ["jit", "interp"] {
        for _ in 0..6 {
            let o = ptxjit(&[
                "run",
                "--ptx",
                "ptx-tests/sandbox/sandbox.ptx",
                "--kernel",
                "local_oob",
                "--grid",
                "64",
                "--block",
                "64",
                "--arg",
                "buf:guard:u32:64",
                "--engine",
                engine,
            ]);
            let err = text(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{engine}: {err}");
            assert!(
                err.contains("by CTA (0,0,0) thread (0,0,0)"),
                "{engine}: {err}"
            );
        }
    }
}

/// Inputs a first-time user tried that used to crash, hang or mislead: each is now a clean
/// error (exit 2) with its location, and nothing is reported for a launch that never ran.
#[test]
fn hostile_inputs_are_clean_errors() {
    let d = scratch("hostile");
    let w = |name: &str, text: &str| {
        let p = d.join(name);
        std::fs::write(&p, text).expect("write");
        p.display().to_string()
    };
    let head = ".version 8.5\n.target sm_80\n.address_size 64\n";
    // A huge parameterized register count (was: an allocation abort).
    let huge = w(
        "huge.ptx",
        &format!(
            "{head}.visible .entry k(.param .u64 a)\n{{\n.reg .b32 %q<2000000000>;\nret;\n}}\n"
        ),
    );
    let o = ptxjit(&["dump", "--ir", &huge]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("huge.ptx:6:"),
        "{}",
        text(&o.stderr)
    );
    // Two definitions of one kernel (was: the first one ran).
    let dup = w(
        "dup.ptx",
        &format!("{head}.visible .entry k(.param .u64 a)\n{{\nret;\n}}\n.visible .entry k(.param .u64 a)\n{{\nret;\n}}\n"),
    );
    let o = ptxjit(&["dump", "--ir", &dup]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("defined twice"),
        "{}",
        text(&o.stderr)
    );
    // A buffer larger than device memory (was: an allocation abort).
    let spin = w(
        "spin.ptx",
        &format!("{head}.visible .entry k(.param .u64 a)\n{{\n$L:\nbra $L;\n}}\n"),
    );
    let o = ptxjit(&[
        "run",
        "--ptx",
        &spin,
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "1",
        "--arg",
        "buf:a:u32:20000000000",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("more than the device memory of"),
        "{}",
        text(&o.stderr)
    );
    // A time limit stops even an absurdly large grid (was: skipping 2^62 CTAs one by one).
    let o = ptxjit(&[
        "run",
        "--ptx",
        &spin,
        "--kernel",
        "k",
        "--grid",
        "2147483647,65535,65535",
        "--block",
        "1024",
        "--arg",
        "buf:a:u32:64",
        "--timeout",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("time limit"),
        "{}",
        text(&o.stderr)
    );
    // A launch that never started reports no PASS/FAIL lines (was: FAIL lines).
    let case = w(
        "b2048.toml",
        &format!(
            "ptx = \"{}\"\nkernel = \"vector_add\"\ngrid = [1]\nblock = [2048]\n\
             args = [{{ buffer = \"a\" }}, {{ buffer = \"b\" }}, {{ buffer = \"c\" }}, {{ u32 = 4 }}]\n\
             [buffers.a]\ntype = \"f32\"\nlen = 4\n[buffers.b]\ntype = \"f32\"\nlen = 4\n\
             [buffers.c]\ntype = \"f32\"\nlen = 4\n[expect.c]\nvalues = [1.0, 1.0, 1.0, 1.0]\n",
            vector_add_ptx()
        ),
    );
    let o = ptxjit(&["run", &case]);
    assert_eq!(o.status.code(), Some(2));
    let out = text(&o.stdout);
    assert!(!out.contains("FAIL") && !out.contains("PASS"), "{out}");
    assert!(
        text(&o.stderr).contains("invalid block"),
        "{}",
        text(&o.stderr)
    );
}

/// `ptxjit coverage` prints the report that docs/coverage.md holds.
#[test]
fn coverage_subcommand_prints_the_report() {
    let o = ptxjit(&["coverage"]);
    assert_eq!(o.status.code(), Some(0));
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/coverage.md"))
            .expect("docs/coverage.md");
    assert_eq!(text(&o.stdout), doc);
}

/// `--json` keeps stdout one JSON object even when the kernel prints (printf goes to stderr).
#[test]
fn json_stdout_stays_json_with_device_printf() {
    let o = ptxjit(&["run", "ptx-tests/kernels/printf/printf.toml", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("stdout is one JSON value");
    assert_eq!(v["error"], serde_json::Value::Null);
    assert!(
        !text(&o.stderr).is_empty(),
        "printf output should be on stderr"
    );
}

/// Ctrl-C (SIGINT) stops a launch that would spin forever and reports where the warps were.
#[cfg(unix)]
#[test]
fn interrupt_reports_where_the_warps_were() {
    let dir = scratch("interrupt");
    let ptx = write_spin_ptx(&dir);
    let child = Command::new(env!("CARGO_BIN_EXE_ptxjit"))
        .args(["run", "--ptx"])
        .arg(&ptx)
        .args(["--kernel", "k", "--grid", "1", "--block", "32"])
        .args(["--arg", "buf:a:u32:1", "--timeout", "60"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn ptxjit");
    // Give it time to install its handler and start spinning.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let o = child.wait_with_output().expect("wait for ptxjit");
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    // First the place (spin.ptx's `bra` on line 7), the kernel and the warp, as for a timeout.
    assert!(
        err.contains(&format!(
            "{}:7:1: kernel 'k' interrupted: CTA (0,0,0) warp 0, threads (0,0,0) to (31,0,0) \
             (lanes 0-31), was at 'bra'; the warps were at:",
            ptx.display()
        )),
        "{err}"
    );
    assert!(err.contains("warp 0: lanes 0-31 at 'bra'"), "{err}");
}

#[test]
fn pipeline_case_runs_every_launch_and_times_each() {
    let case = "ptx-tests/kernels/scan/scan.toml";
    let o = ptxjit(&["run", case, "--repeat", "2"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
    assert!(
        out.contains("PASS out") && out.contains("PASS sums"),
        "{out}"
    );
    assert!(out.contains("(2 runs after 1 warm-up;"), "{out}");
    for l in [
        "  launch[0] scan_blocks: min ",
        "  launch[1] scan_sums: min ",
        "  launch[2] add_offsets: min ",
    ] {
        assert!(out.contains(l), "{l} in:\n{out}");
    }
    let o = ptxjit(&["run", case, "--json", "--engine", "interp"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert_eq!(o.status.code(), Some(0), "{v}");
    assert_eq!(v["kernel"], "scan_blocks, scan_sums, add_offsets");
    let kernels: Vec<&str> = v["launches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["kernel"].as_str().unwrap())
        .collect();
    assert_eq!(kernels, ["scan_blocks", "scan_sums", "add_offsets"]);
    assert!(v["launches"]
        .as_array()
        .unwrap()
        .iter()
        .all(|l| l["kernel_ms"]["min"].as_f64().is_some()));
    let o = ptxjit(&["check", case]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("SAME 3 buffers (100196 elements) identical bit for bit"),
        "{out}"
    );
}

#[test]
fn pipeline_errors_name_the_launch() {
    let d = scratch("pipe-err");
    let scan = Path::new(env!("CARGO_MANIFEST_DIR")).join("ptx-tests/kernels/scan");
    let text_of = |p: &str| std::fs::read_to_string(scan.join(p)).unwrap();
    for f in [
        "scan.ptx",
        "uniform_add.ptx",
        "in.npy",
        "out_expected.npy",
        "sums_expected.npy",
    ] {
        std::fs::copy(scan.join(f), d.join(f)).unwrap();
    }
    let case = text_of("scan.toml");
    let write = |name: &str, body: String| {
        let p = d.join(name);
        std::fs::write(&p, body).unwrap();
        p.display().to_string()
    };
    // An argument list that does not match launch[1]'s kernel.
    let p = write(
        "args.toml",
        case.replace(
            "args = [{ buffer = \"sums\" }, { s32 = 196 }]",
            "args = [{ buffer = \"sums\" }]",
        ),
    );
    let o = ptxjit(&["run", &p]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("launch[1] (scan_sums): kernel 'scan_sums' expects 2 arguments")
            && err.contains("(see the `args` of launch[1] (scan_sums))"),
        "{err}"
    );
    // An unknown kernel in launch[2]'s own file.
    let p = write(
        "kernel.toml",
        case.replace("\"add_offsets\"", "\"add_offset\""),
    );
    let o = ptxjit(&["run", &p, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "unknown_kernel", "{v}");
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("kernel.toml: launch[2].kernel: no kernel named 'add_offset' in ")
            && msg.contains("uniform_add.ptx (kernels: add_offsets)"),
        "{msg}"
    );
    // Both forms at once.
    let p = write("both.toml", format!("kernel = \"scan_blocks\"\n{case}"));
    let o = ptxjit(&["run", &p]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("not both (this one has [[launch]] and kernel)"),
        "{err}"
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn ad_hoc_expectations() {
    let d = scratch("adhoc-expect");
    // c = a + b with a = iota, b = 0.5: computed here, on the host.
    let want: Vec<u8> = (0..1000)
        .flat_map(|i| (i as f32 + 0.5).to_le_bytes())
        .collect();
    let good = d.join("c_expected.npy");
    ptxjit::case::data::write_file(&good, ptxjit::case::DType::F32, &want).unwrap();
    let mut off = want.clone();
    off[4 * 7..4 * 8].copy_from_slice(&7.5001f32.to_le_bytes());
    let near = d.join("c_near.npy");
    ptxjit::case::data::write_file(&near, ptxjit::case::DType::F32, &off).unwrap();
    let run = |expect: &str| {
        let ptx = vector_add_ptx();
        ptxjit(&[
            "run",
            "--ptx",
            &ptx,
            "--kernel",
            "vector_add",
            "--grid",
            "4",
            "--block",
            "256",
            "--arg",
            "buf:a:f32:1000=iota",
            "--arg",
            "buf:b:f32:1000=fill:0.5",
            "--arg",
            "buf:c:f32:1000",
            "--arg",
            "u32=1000",
            "--expect",
            expect,
        ])
    };
    let o = run(&format!("c={}", good.display()));
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
    assert!(out.contains("PASS c"), "{out}");
    let o = run(&format!("c={}", near.display()));
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("FAIL c: index 7: got 7.5, want 7.5001"),
        "{out}"
    );
    let o = run(&format!("c={}:abs=1e-3", near.display()));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    let o = run(&format!("c={}:rel=1e-7,ulp=1", near.display()));
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stdout));
    let o = run(&format!("d={}", good.display()));
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("no buffer named 'd'"), "{err}");
    let o = run(&format!("c={}:close", good.display()));
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("tolerance 'close'"));
    std::fs::remove_dir_all(&d).ok();
}

/// The atomic-append kernel (`ptx-tests/kernels/append`): its case compares `out` as a
/// multiset and passes `check`; the same case with `out` compared in index order fails
/// because the engines really appended in different orders. That order comes from CTAs
/// racing on several worker threads (four here, whatever the machine has), so one attempt
/// may happen to give both engines the same order; the test tries up to ten times.
#[test]
fn check_compares_atomically_appended_output_as_a_multiset() {
    let case = "ptx-tests/kernels/append/append.toml";
    let o = ptxjit(&["check", case]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
    assert!(
        out.contains("[interp] PASS out")
            && out.contains("[jit] PASS out")
            && out.contains(
                "SAME 3 buffers (16385 elements) agree (bit for bit, except out: as multisets)"
            ),
        "{out}"
    );
    assert!(
        out.contains("NOTE kernel append_matches: atom.global.add.u32 (PTX line 119): the returned old value is used"),
        "{out}"
    );
    let d = scratch("append");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("ptx-tests/kernels/append");
    for f in ["append.ptx", "in.npy", "out_expected.npy"] {
        std::fs::copy(dir.join(f), d.join(f)).unwrap();
    }
    let toml = std::fs::read_to_string(dir.join("append.toml")).unwrap();
    let table = "[expect.out]\nfile = \"out_expected.npy\"\norder = \"any\"\n";
    assert!(toml.contains(table));
    // `out` in index order (no table: bit for bit), and not compared at all.
    let index = d.join("index.toml");
    std::fs::write(&index, toml.replace(table, "")).unwrap();
    let skip = d.join("skip.toml");
    std::fs::write(
        &skip,
        toml.replace(table, "[expect.out]\ncheck = \"skip\"\n"),
    )
    .unwrap();
    let o = ptxjit(&["check", skip.to_str().unwrap()]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains(
            "SAME 2 buffers (8193 elements) agree (bit for bit, except out: not compared)"
        ),
        "{out}"
    );
    let mut attempts = vec![];
    for _ in 0..10 {
        let o = Command::new(env!("CARGO_BIN_EXE_ptxjit"))
            .args(["check", index.to_str().unwrap()])
            .env("RAYON_NUM_THREADS", "4")
            .output()
            .expect("run ptxjit");
        let out = text(&o.stdout);
        if o.status.code() == Some(1) {
            assert!(
                out.contains("DIFF out: index ") && out.contains(" of 8192 elements differ"),
                "{out}"
            );
            assert!(
                !out.contains("DIFF count") && !out.contains("DIFF in"),
                "{out}"
            );
            std::fs::remove_dir_all(&d).ok();
            return;
        }
        assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
        attempts.push(out);
    }
    panic!(
        "the engines appended in the same order in all 10 attempts:\n{}",
        attempts.join("\n")
    );
}

/// `MemAvailable` of /proc/meminfo in bytes (read here, independently of ptxjit).
fn mem_available() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = s.lines().find(|l| l.starts_with("MemAvailable:"))?;
    line.split_whitespace()
        .nth(1)?
        .parse::<u64>()
        .ok()
        .map(|k| k * 1024)
}

#[test]
fn a_buffer_larger_than_the_machine_can_back_is_a_clear_error() {
    let Some(avail) = mem_available() else {
        eprintln!("skipped: no MemAvailable in /proc/meminfo");
        return;
    };
    // As many f32 as the available memory holds: with its device copy and read-back it cannot
    // fit, and the run must say so at once instead of being killed while filling it.
    let n = avail / 4;
    let buf = format!("buf:x:f32:{n}=fill:1");
    let o = ptxjit(&[
        "run",
        "--ptx",
        &vector_add_ptx(),
        "--kernel",
        "vector_add",
        "--grid",
        "1",
        "--block",
        "1",
        "--arg",
        &buf,
        "--arg",
        "buf:b:f32:1",
        "--arg",
        "buf:c:f32:1",
        "--arg",
        "u32=1",
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    // (On a machine with more than the 64 GiB the device ever has, the device limit speaks.)
    assert!(
        err.contains("more than this machine can hold now")
            || err.contains("more than the device memory"),
        "{err}"
    );
}

#[test]
fn expect_error_cases_print_their_verdict() {
    // The run fails as the case expects: the error, then PASS; the exit status stays 2.
    let o = ptxjit(&["run", "ptx-tests/errors/assert.toml"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("PASS [expect_error]: the run failed as the case expects"),
        "{}",
        text(&o.stdout)
    );
    let o = ptxjit(&["run", "--json", "ptx-tests/errors/assert.toml"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert_eq!(v["expect_error"]["pass"], serde_json::json!(true), "{v}");
    // A case that expects an error from a kernel that runs clean: FAIL, exit 1.
    let d = scratch("expect-error");
    let case = d.join("clean.toml");
    std::fs::write(
        &case,
        format!(
            "ptx = \"{}\"\nkernel = \"vector_add\"\ngrid = [1]\nblock = [4]\n\
             args = [{{ buffer = \"a\" }}, {{ buffer = \"b\" }}, {{ buffer = \"c\" }}, {{ u32 = 4 }}]\n\
             [buffers.a]\ntype = \"f32\"\ninit = {{ values = [1, 2, 3, 4] }}\n\
             [buffers.b]\ntype = \"f32\"\ninit = {{ values = [1, 2, 3, 4] }}\n\
             [buffers.c]\ntype = \"f32\"\nlen = 4\n\
             [expect_error]\nkind = \"fault\"\ncontains = \"out of bounds\"\n",
            vector_add_ptx()
        ),
    )
    .expect("write case");
    let o = ptxjit(&["run", case.to_str().expect("utf-8 path")]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}{}", text(&o.stderr));
    assert!(
        out.contains("FAIL [expect_error]: expected a 'fault' error containing 'out of bounds', but the run succeeded"),
        "{out}"
    );
}

#[test]
fn exec_keeps_the_users_engine_unless_told() {
    // `exec` only checks that the library directory holds libcuda.so.1; `env` shows what the
    // program is given.
    let d = scratch("exec-engine");
    std::fs::write(d.join("libcuda.so.1"), b"").expect("write stand-in");
    let lib = d.to_str().expect("utf-8 path");
    let run = |extra: &[&str]| {
        let mut args = vec!["exec", "--lib-dir", lib];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--", "env"]);
        let o = Command::new(env!("CARGO_BIN_EXE_ptxjit"))
            .args(&args)
            .env("PTXJIT_ENGINE", "interp")
            .output()
            .expect("run ptxjit exec");
        text(&o.stdout)
    };
    assert!(run(&[]).contains("PTXJIT_ENGINE=interp\n"));
    assert!(run(&["--engine", "jit"]).contains("PTXJIT_ENGINE=jit\n"));
}

#[test]
fn exec_has_cupy_compile_ptx_unless_the_user_says_otherwise() {
    let d = scratch("exec-cupy");
    std::fs::write(d.join("libcuda.so.1"), b"").expect("write stand-in");
    let lib = d.to_str().expect("utf-8 path");
    let run = |user: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_ptxjit"));
        c.args(["exec", "--lib-dir", lib, "--", "env"]);
        match user {
            Some(v) => c.env("CUPY_COMPILE_WITH_PTX", v),
            None => c.env_remove("CUPY_COMPILE_WITH_PTX"),
        };
        let o = c.output().expect("run ptxjit exec");
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        text(&o.stdout)
    };
    assert!(run(None).contains("\nCUPY_COMPILE_WITH_PTX=1\n"));
    let kept = run(Some("0"));
    assert!(kept.contains("\nCUPY_COMPILE_WITH_PTX=0\n"), "{kept}");
    assert!(!kept.contains("CUPY_COMPILE_WITH_PTX=1"), "{kept}");
}

#[test]
fn exec_rejects_a_compute_capability_that_is_not_major_minor() {
    let d = scratch("exec-cc");
    std::fs::write(d.join("libcuda.so.1"), b"").expect("write stand-in");
    let lib = d.to_str().expect("utf-8 path");
    let run = |cc: &str| ptxjit(&["exec", "--lib-dir", lib, "--cc", cc, "--", "env"]);
    for bad in ["abc", "9", "99.9", "", "4.0", "13.0", "9.10"] {
        let o = run(bad);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "--cc {bad:?}: {err}");
        assert!(
            err.contains("is not a compute capability MAJOR.MINOR from 5.0 to 12.9"),
            "--cc {bad:?}: {err}"
        );
    }
    let o = run("9.0");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("PTXJIT_CC=9.0\n"));
}

#[test]
fn a_timeout_under_the_shuffled_schedule_says_why() {
    let args = |extra: &[&'static str]| {
        let mut a = vec![
            "run",
            "--ptx",
            "ptx-tests/errors/cta_pair_wait.ptx",
            "--kernel",
            "pair",
            "--grid",
            "2",
            "--block",
            "1",
            "--arg",
            "buf:f:u32:2",
            "--timeout",
            "1",
        ];
        a.extend_from_slice(extra);
        a
    };
    let o = ptxjit(&args(&["--schedule", "shuffle:1"]));
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    // The first line is at the wait loop's load (line 22, after a tab), in the CTA that ran
    // first (one thread each).
    assert!(
        err.contains(
            "ptx-tests/errors/cta_pair_wait.ptx:22:2: kernel 'pair' exceeded the time limit"
        ) && err.contains("the shuffled schedule runs one CTA at a time"),
        "{err}"
    );
}

/// A launch stopped at its time limit reports, on its first line as a fault report does, the
/// PTX line:column of the instruction where the first running warp was, the kernel, and that
/// warp's CTA, threads and lanes; then every warp. Here threads 0-39 of a block of 64 return
/// and threads 40-63 (warp 1's lanes 8-31) wait for a flag that nobody sets, in a loop whose
/// first instruction is the load on line 15, column 3.
#[test]
fn a_timeout_report_begins_with_the_ptx_line_and_the_warp() {
    let d = scratch("timeout_first_line");
    let ptx = d.join("wait_flag.ptx");
    std::fs::write(
        &ptx,
        ".version 8.0\n.target sm_80\n.address_size 64\n\
         .visible .entry wait_flag(.param .u64 flag)\n{\n  .reg .b64 %rd<4>;\n  .reg .b32 %r<4>;\n\
         \x20 .reg .pred %p<3>;\n  ld.param.u64 %rd1, [flag];\n  cvta.to.global.u64 %rd2, %rd1;\n\
         \x20 mov.u32 %r2, %tid.x;\n  setp.lt.u32 %p2, %r2, 40;\n  @%p2 bra DONE;\nLOOP:\n\
         \x20 ld.volatile.global.u32 %r1, [%rd2];\n  setp.eq.u32 %p1, %r1, 0;\n  @%p1 bra LOOP;\n\
         DONE:\n  ret;\n}\n",
    )
    .expect("write");
    let ptx = ptx.display().to_string();
    for engine in ["jit", "interp"] {
        let o = ptxjit(&[
            "run",
            "--engine",
            engine,
            "--ptx",
            &ptx,
            "--kernel",
            "wait_flag",
            "--grid",
            "1",
            "--block",
            "64",
            "--arg",
            "buf:f:u32:1",
            "--timeout",
            "1",
        ]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{engine}: {err}");
        let want = format!(
            "error: {ptx}:15:3: kernel 'wait_flag' exceeded the time limit of 1s: CTA (0,0,0) \
             warp 1, threads (40,0,0) to (63,0,0) (lanes 8-31), was at \
             'ld.volatile.global.u32'; the warps were at:\nCTA (0,0,0):\n  warp 0: exited\n  \
             warp 1: lanes 8-31 at 'ld.volatile.global.u32' at line 15\n"
        );
        assert!(err.contains(&want), "{engine}: want {want:?} in:\n{err}");
    }
    std::fs::remove_dir_all(&d).ok();
}

/// A cluster's CTAs run one at a time on one worker, taking turns; a time limit that passes
/// while some of them are between turns names them and where they wait, as it names the CTA
/// it stopped during its turn. `cloop`: both CTAs of the cluster loop forever through
/// `barrier.cluster.arrive`/`wait` (no deadlock: each wait completes), so the limit usually
/// passes between turns (reported as "no CTA was running" before). `cspin`: rank 0 spins
/// on a flag nobody sets while rank 1 waits at `barrier.cluster.wait` on line 15 (rank 1 was
/// left out before).
#[test]
fn a_cluster_timeout_names_the_ctas_between_their_turns() {
    let d = scratch("cluster_timeout");
    let head = ".version 8.0\n.target sm_90\n.address_size 64\n";
    let cloop = d.join("cloop.ptx");
    std::fs::write(
        &cloop,
        format!(
            "{head}.visible .entry cloop(.param .u64 flag) .reqnctapercluster 2, 1, 1\n{{\n\
             LOOP:\n  barrier.cluster.arrive;\n  barrier.cluster.wait;\n  bra LOOP;\n}}\n"
        ),
    )
    .expect("write");
    let cspin = d.join("cspin.ptx");
    std::fs::write(
        &cspin,
        format!(
            "{head}.visible .entry cspin(.param .u64 flag) .reqnctapercluster 2, 1, 1\n{{\n\
             \x20 .reg .b64 %rd<3>;\n  .reg .b32 %r<3>;\n  .reg .pred %p<3>;\n\
             \x20 ld.param.u64 %rd1, [flag];\n  cvta.to.global.u64 %rd2, %rd1;\n\
             \x20 mov.u32 %r2, %cluster_ctarank;\n  setp.eq.u32 %p2, %r2, 0;\n  @%p2 bra SPIN;\n\
             \x20 barrier.cluster.arrive;\n  barrier.cluster.wait;\n  ret;\nSPIN:\n\
             \x20 ld.volatile.global.u32 %r1, [%rd2];\n  setp.eq.u32 %p1, %r1, 0;\n  @%p1 bra SPIN;\n\
             \x20 barrier.cluster.arrive;\n  barrier.cluster.wait;\n  ret;\n}}\n"
        ),
    )
    .expect("write");
    // Where a CTA waits: a warp stopped during its turn is named by what it was doing then
    // (at 'barrier.cluster.wait', or "spinning in a loop"), one between turns at
    // 'barrier.cluster.wait'; which CTA had the turn when the limit passed depends on the
    // timing, so only the CTA, its warp and the line are checked, and that both engines
    // name the instruction (the interpreter said 'barrier wait' for a warp stopped during
    // its turn at the wait's loop). The yield point a CTA stopped at during its turn depends
    // on the host's load, so any line of its loop is accepted (cloop's 7-9, cspin's spin
    // loop 18-20); cspin's rank 1 waits at its `barrier.cluster.wait` on line 15.
    for (ptx, kernel, lines, wait_lines) in [
        (&cloop, "cloop", 7..=9, 7..=9),
        (&cspin, "cspin", 18..=20, 15..=15),
    ] {
        let ptx = ptx.display().to_string();
        for engine in ["jit", "interp"] {
            let o = ptxjit(&[
                "run",
                "--engine",
                engine,
                "--ptx",
                &ptx,
                "--kernel",
                kernel,
                "--grid",
                "2",
                "--block",
                "32",
                "--arg",
                "buf:f:u32:1",
                "--timeout",
                "1",
            ]);
            let err = text(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{kernel} ({engine}): {err}");
            let first = |line| {
                format!(
                    "error: {ptx}:{line}:3: kernel '{kernel}' exceeded the time limit of 1s: CTA ("
                )
            };
            assert!(
                lines.clone().any(|l| err.contains(&first(l))),
                "{kernel} ({engine}): want {:?} (or lines to {}) in:\n{err}",
                first(*lines.start()),
                lines.end()
            );
            assert!(
                !err.contains("no CTA was running"),
                "{kernel} ({engine}): {err}"
            );
            assert!(
                !err.contains("'barrier wait'"),
                "{kernel} ({engine}): the wait must be named by its instruction:\n{err}"
            );
            assert!(
                err.contains("\nCTA (0,0,0):\n  warp 0: lanes 0-31 "),
                "{kernel} ({engine}): {err}"
            );
            let rank1 = err
                .split_once("\nCTA (1,0,0):\n")
                .and_then(|(_, rest)| rest.lines().next())
                .unwrap_or_default();
            assert!(
                rank1.starts_with("  warp 0: lanes 0-31 ")
                    && wait_lines
                        .clone()
                        .any(|l| rank1.ends_with(&format!(" at line {l}"))),
                "{kernel} ({engine}): CTA (1,0,0) at lines {wait_lines:?} wanted in:\n{err}"
            );
        }
    }
    std::fs::remove_dir_all(&d).ok();
}

/// A CTA of a cluster that never had a turn when the time limit passed is listed as not
/// started (it was left out of the report before): in a cluster of 4, rank 0 waits at
/// `barrier.cluster.wait` (line 12), rank 1 loops forever on registers in its first turn
/// (line 15), so ranks 2 and 3, which the cluster's worker runs after it, never start.
#[test]
fn a_cluster_timeout_lists_the_ctas_that_never_started() {
    let d = scratch("cluster_not_started");
    let ptx = d.join("cstall.ptx");
    std::fs::write(
        &ptx,
        ".version 8.0\n.target sm_90\n.address_size 64\n\
         .visible .entry cstall() .reqnctapercluster 4, 1, 1\n{\n  .reg .b32 %r<3>;\n\
         \x20 .reg .pred %p<2>;\n  mov.u32 %r1, %cluster_ctarank;\n  setp.ne.u32 %p1, %r1, 0;\n\
         \x20 @%p1 bra SPIN;\n  barrier.cluster.arrive;\n  barrier.cluster.wait;\n  ret;\nSPIN:\n\
         \x20 add.u32 %r2, %r2, 1;\n  bra SPIN;\n}\n",
    )
    .expect("write");
    let ptx = ptx.display().to_string();
    for engine in ["jit", "interp"] {
        let o = ptxjit(&[
            "run",
            "--engine",
            engine,
            "--ptx",
            &ptx,
            "--kernel",
            "cstall",
            "--grid",
            "4",
            "--block",
            "32",
            "--timeout",
            "1",
        ]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{engine}: {err}");
        let want = "\nCTA (0,0,0):\n  warp 0: lanes 0-31 at 'barrier.cluster.wait' at line 12\n\
                    CTA (1,0,0):\n  warp 0: lanes 0-31 at 'add.u32' at line 15\n\
                    CTA (2,0,0): not started\nCTA (3,0,0): not started";
        assert!(err.contains(want), "{engine}: want {want:?} in:\n{err}");
    }
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn json_names_the_schedule_and_lockstep_when_not_the_default() {
    let json = |extra: &[&str]| {
        let mut a = vec!["run", "--json"];
        a.extend_from_slice(extra);
        a.push("ptx-tests/kernels/vector_add/vector_add.toml");
        let o = ptxjit(&a);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
        v
    };
    let v = json(&[]);
    assert!(
        v.get("schedule").is_none() && v.get("lockstep").is_none(),
        "{v}"
    );
    let v = json(&["--schedule", "shuffle:7", "--lockstep"]);
    assert_eq!(v["schedule"], serde_json::json!("shuffle:7"), "{v}");
    assert_eq!(v["lockstep"], serde_json::json!(true), "{v}");
}

#[test]
fn compile_refuses_ptx_with_what_to_do() {
    // Before NVRTC is looked for: the same answer with or without it.
    let o = ptxjit(&["compile", "ptx-tests/kernels/saxpy/saxpy.ptx"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("saxpy.ptx is PTX already") && err.contains("ptxjit run --ptx"),
        "{err}"
    );
}

/// An ad-hoc launch's errors name the option the user wrote (`--arg N (TEXT)`, `--expect
/// (TEXT)`, `--ptx`, `--grid`), never the case-file keys it became (`buffers.x`, `args[1]`).
#[test]
fn ad_hoc_errors_name_the_options() {
    let ptx = vector_add_ptx();
    let run = |grid: &str, args: &[&str], expect: &[&str]| {
        let mut v = vec![
            "run",
            "--ptx",
            &ptx,
            "--kernel",
            "vector_add",
            "--grid",
            grid,
            "--block",
            "32",
        ];
        for a in args {
            v.extend(["--arg", a]);
        }
        for e in expect {
            v.extend(["--expect", e]);
        }
        let o = ptxjit(&v);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o.stdout));
        text(&o.stderr)
    };
    let good = [
        "buf:a:f32:32=iota",
        "buf:b:f32:32",
        "buf:c:f32:32",
        "u32=32",
    ];
    let e = run(
        "1",
        &[
            "buf:a:f32:99999999999=iota",
            "buf:b:f32:1",
            "buf:c:f32:1",
            "u32=1",
        ],
        &[],
    );
    assert!(
        e.starts_with("error: --arg 1 (buf:a:f32:99999999999=iota): len 99999999999 is too large"),
        "{e}"
    );
    let e = run(
        "1",
        &["buf:a:f32:4", "buf:b:f32:4", "ptr:a+64", "u32=4"],
        &[],
    );
    assert!(
        e.starts_with(
            "error: --arg 3 (ptr:a+64): offset 64 is past the end of buffer 'a' (16 bytes)"
        ),
        "{e}"
    );
    let e = run(
        "1",
        &[
            "buf:a:f32:32=file:missing.npy",
            "buf:b:f32:32",
            "buf:c:f32:32",
            "u32=32",
        ],
        &[],
    );
    assert!(
        e.starts_with("error: --arg 1 (buf:a:f32:32=file:missing.npy): cannot read missing.npy"),
        "{e}"
    );
    let e = run("1", &good, &["c=missing.npy"]);
    assert!(
        e.starts_with("error: --expect (c=missing.npy): cannot read missing.npy"),
        "{e}"
    );
    let e = run("1", &["buf:a:f32:32", "f32", "buf:c:f32:32", "u32=32"], &[]);
    assert!(
        e.starts_with("error: --arg 2 (f32): expected TYPE=VALUE"),
        "{e}"
    );
    let e = run("0", &good, &[]);
    assert!(
        e.starts_with("error: --grid: kernel 'vector_add': invalid grid [0, 1, 1]"),
        "{e}"
    );
    let o = ptxjit(&[
        "run",
        "--ptx",
        "missing.ptx",
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "1",
    ]);
    let e = text(&o.stderr);
    assert!(
        e.starts_with("error: --ptx: cannot read missing.ptx"),
        "{e}"
    );
}

/// An ad-hoc launch's argument list that does not fit the kernel names the `--arg` at fault
/// (its position and text), and too much dynamic shared memory names `--shared-bytes` and the
/// option that raises the limit, never a case-file key.
#[test]
fn ad_hoc_argument_and_shared_memory_errors_name_the_options() {
    let ptx = vector_add_ptx();
    let run = |extra: &[&str], args: &[&str]| {
        let mut v = vec![
            "run",
            "--ptx",
            &ptx,
            "--kernel",
            "vector_add",
            "--grid",
            "1",
            "--block",
            "32",
        ];
        v.extend(extra);
        for a in args {
            v.extend(["--arg", a]);
        }
        let o = ptxjit(&v);
        (o.status.code(), text(&o.stderr))
    };
    let bufs = ["buf:a:f32:32", "buf:b:f32:32", "buf:c:f32:32"];
    // The fourth parameter is .u32: a u64 value is the wrong size.
    let (code, e) = run(&[], &[bufs[0], bufs[1], bufs[2], "u64=32"]);
    assert_eq!(code, Some(2), "{e}");
    assert!(
        e.starts_with(
            "error: --arg 4 (u64=32): kernel 'vector_add' argument 4 ('vector_add_param_3') is \
             a .u32 parameter of 4 bytes"
        ),
        "{e}"
    );
    // A 32-bit value where a pointer goes.
    let (_, e) = run(&[], &[bufs[0], "u32=7", bufs[2], "u32=32"]);
    assert!(
        e.starts_with("error: --arg 2 (u32=7): kernel 'vector_add' argument 2"),
        "{e}"
    );
    // One too many: the first extra one is at fault.
    let (_, e) = run(&[], &[bufs[0], bufs[1], bufs[2], "u32=32", "u32=1"]);
    assert!(
        e.starts_with("error: --arg 5 (u32=1): kernel 'vector_add' expects 4 arguments"),
        "{e}"
    );
    // Too few: the list as a whole.
    let (_, e) = run(&[], &bufs);
    assert!(
        e.starts_with("error: --arg: kernel 'vector_add' expects 4 arguments")
            && e.contains("got 3"),
        "{e}"
    );
    assert!(!e.contains("args["), "{e}");
    // 64 KiB of dynamic shared memory needs the opt-in attribute.
    let good = [bufs[0], bufs[1], bufs[2], "u32=32"];
    let (code, e) = run(&["--shared-bytes", "65536"], &good);
    assert_eq!(code, Some(2), "{e}");
    assert!(
        e.starts_with("error: --shared-bytes: kernel 'vector_add': 65536 bytes of dynamic shared memory exceed")
            && e.contains("(set it with --max-dynamic-shared-bytes N)")
            && !e.contains("case key"),
        "{e}"
    );
    let (code, e) = run(
        &[
            "--shared-bytes",
            "65536",
            "--max-dynamic-shared-bytes",
            "65536",
        ],
        &good,
    );
    assert_eq!(code, Some(0), "{e}");
    let (code, e) = run(&["--max-dynamic-shared-bytes", "999999"], &good);
    assert_eq!(code, Some(2), "{e}");
    assert!(
        e.starts_with("error: --max-dynamic-shared-bytes: kernel 'vector_add': cudaFuncAttributeMaxDynamicSharedMemorySize of 999999 bytes exceeds"),
        "{e}"
    );
}

/// An argument-count error lists a struct-by-value parameter with its size, alignment and
/// what it is, not as a bare `.b8`.
#[test]
fn argument_count_errors_describe_struct_parameters() {
    let dir = scratch("struct-param");
    let ptx = dir.join("k.ptx");
    std::fs::write(
        &ptx,
        ".version 7.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .align 8 .b8 s[16], .param .u64 p)\n{\nret;\n}\n",
    )
    .unwrap();
    let o = ptxjit(&[
        "run",
        "--ptx",
        &ptx.display().to_string(),
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "1",
        "--arg",
        "u32=1",
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "expects 2 arguments (s: 16 bytes by value (.align 8 .b8 array: a struct), p: .u64), got 1"
        ),
        "{err}"
    );
}

/// The note of a launch that runs long under `ptxjit run` names the command's own ways to stop
/// it (Ctrl-C, `--timeout`), not the drop-in library's `PTXJIT_TIMEOUT`, which `ptxjit run`
/// does not read.
#[cfg(unix)]
#[test]
fn the_hang_note_under_run_names_its_timeout_option() {
    let dir = scratch("hang_note_run");
    let ptx = write_spin_ptx(&dir);
    let child = Command::new(env!("CARGO_BIN_EXE_ptxjit"))
        .args(["run", "--ptx"])
        .arg(&ptx)
        .args(["--kernel", "k", "--grid", "1", "--block", "32"])
        .args(["--arg", "buf:a:u32:1"])
        .env("PTXJIT_HANG_NOTE", "0.2")
        .env_remove("PTXJIT_TIMEOUT")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn ptxjit");
    // The note comes after 0.2 s (the watcher looks every 0.25 s); then Ctrl-C ends the run.
    std::thread::sleep(std::time::Duration::from_millis(2000));
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let o = child.wait_with_output().expect("wait for ptxjit");
    let err = text(&o.stderr);
    let want = "ptxjit: kernel 'k' has been running for 0.2 s and goes on, as on a GPU without a \
                watchdog (an endless loop?); press Ctrl-C to stop it with a report of where its \
                warps are, or rerun with --timeout SECONDS (PTXJIT_HANG_NOTE=0 turns this note \
                off)\n";
    assert_eq!(err.matches(want).count(), 1, "{err}");
    assert!(!err.contains("PTXJIT_TIMEOUT"), "{err}");
}

/// A kernel that loops forever across `bar.sync` (a uniform barrier, which the JIT completes
/// inside its call for the whole CTA and then runs the next round without returning to the
/// scheduler) still stops at `--timeout`, and the report names where the warps were.
#[test]
fn a_loop_across_barriers_stops_at_the_time_limit() {
    let d = scratch("bar_forever");
    let ptx = d.join("bar_forever.ptx");
    let src = ".version 8.5\n.target sm_80\n.address_size 64\n\
                .visible .entry k(.param .u64 a)\n{\n.reg .b32 %r<2>;\nmov.u32 %r1, 0;\n\
                $L:\nadd.u32 %r1, %r1, 1;\nbar.sync 0;\nbra $L;\n}\n";
    std::fs::write(&ptx, src).expect("write");
    let ptx = ptx.display().to_string();
    for engine in ["jit", "interp"] {
        let o = ptxjit(&[
            "run",
            "--ptx",
            &ptx,
            "--kernel",
            "k",
            "--grid",
            "2",
            "--block",
            "128",
            "--arg",
            "buf:a:u32:1",
            "--engine",
            engine,
            "--timeout",
            "1",
        ]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{engine}: {err}");
        assert!(
            err.contains("time limit") && err.contains("line "),
            "{engine}: {err}"
        );
    }
}

/// A fault inside a device function that the PTX calls (`call`, as nvcc emits for a
/// `__noinline__` function) names the function and the call stack, each frame with its PTX
/// line and the `.loc` source line, the same on both engines.
#[test]
fn a_fault_in_a_called_function_prints_the_device_call_stack() {
    let dir = scratch("callstack");
    let ptx = dir.join("callf.ptx");
    std::fs::write(
        &ptx,
        ".version 7.0\n.target sm_70\n.address_size 64\n.file 1 \"inl.cu\"\n\
         .func put(.param .b64 p, .param .b32 i)\n{\n\
         .reg .b32 %r<2>;\n.reg .b64 %rd<4>;\n\
         ld.param.u64 %rd1, [p];\nld.param.u32 %r1, [i];\n\
         .loc 1 5 3\n\
         mul.wide.s32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r1;\nret;\n}\n\
         .func mid(.param .b64 p, .param .b32 i)\n{\n\
         .reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n\
         ld.param.u64 %rd1, [p];\nld.param.u32 %r1, [i];\n\
         .loc 1 8 3\n\
         {\n.param .b64 a0;\nst.param.b64 [a0], %rd1;\n.param .b32 a1;\nst.param.b32 [a1], %r1;\n\
         call.uni put, (a0, a1);\n}\nret;\n}\n\
         .visible .entry caller(.param .u64 buf)\n{\n\
         .reg .b32 %r<3>;\n.reg .b64 %rd<2>;\n\
         ld.param.u64 %rd1, [buf];\nmov.u32 %r1, %tid.x;\nadd.u32 %r2, %r1, 1000;\n\
         .loc 1 12 3\n\
         {\n.param .b64 a0;\nst.param.b64 [a0], %rd1;\n.param .b32 a1;\nst.param.b32 [a1], %r2;\n\
         call.uni mid, (a0, a1);\n}\nret;\n}\n",
    )
    .expect("write the PTX");
    let path = ptx.display().to_string();
    // Lines of the text above: the store (14), the call in 'mid' (29), the call in the kernel (46).
    let want = "fault in kernel 'caller' in function 'put' at inl.cu:5:3: out of bounds";
    let stack = format!(
        "    device call stack, innermost first:\n      'put' at {path}:14:1 (inl.cu:5:3)\n      \
         'mid' at {path}:29:1 (inl.cu:8:3)\n      kernel 'caller' at {path}:46:1 (inl.cu:12:3)\n"
    );
    for engine in ["jit", "interp"] {
        let o = ptxjit(&[
            "run",
            "--ptx",
            &path,
            "--kernel",
            "caller",
            "--grid",
            "1",
            "--block",
            "32",
            "--arg",
            "buf:b:u32:64",
            "--engine",
            engine,
        ]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{engine}: {err}");
        assert!(err.contains(want), "{engine}: {err}");
        assert!(err.contains(&stack), "{engine}: {err}");
    }
}

/// The hint to give dynamic shared memory follows a shared fault only in a kernel that uses
/// the module-scope `extern .shared` array (NVRTC and nvcc declare it at module scope, where
/// every kernel of the module sees it).
#[test]
fn the_dynamic_shared_hint_needs_a_kernel_that_uses_the_array() {
    let dir = scratch("dynhint");
    let ptx = dir.join("two.ptx");
    std::fs::write(
        &ptx,
        ".version 7.0\n.target sm_70\n.address_size 64\n\
         .extern .shared .align 16 .b8 dyn[];\n\
         .visible .entry uses_dyn()\n{\n.reg .b32 %r<3>;\n\
         mov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 2;\nmov.u32 %r1, dyn;\nadd.u32 %r2, %r2, %r1;\n\
         st.shared.u32 [%r2], %r1;\nret;\n}\n\
         .visible .entry static_far()\n{\n.reg .b32 %r<3>;\n.shared .align 4 .b32 a[32];\n\
         mov.u32 %r1, a;\nmov.u32 %r2, 7;\nst.shared.u32 [%r1+400], %r2;\nret;\n}\n",
    )
    .expect("write the PTX");
    let path = ptx.display().to_string();
    let hint = "the kernel's extern .shared array has no memory";
    for (kernel, hinted) in [("uses_dyn", true), ("static_far", false)] {
        let o = ptxjit(&[
            "run", "--ptx", &path, "--kernel", kernel, "--grid", "1", "--block", "32",
        ]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{kernel}: {err}");
        assert!(
            err.contains("out of bounds store of 4 bytes at shared address"),
            "{kernel}: {err}"
        );
        assert_eq!(err.contains(hint), hinted, "{kernel}: {err}");
    }
}

/// A launch that faults leaves a partial result: the case's expectations are reported as not
/// checked, without FAIL lines (a case that expects the fault still compares them).
#[test]
fn expectations_after_a_faulting_launch_are_not_checked() {
    let d = scratch("faulted");
    // 64K elements of 4-element buffers: the threads far past the end fault.
    let case = vector_add_case(&d, "faulted.toml", 256, 256, 65536, "7, 7, 7, 7");
    let o = ptxjit(&["run", case.to_str().unwrap()]);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(err.contains("fault in kernel 'vector_add'"), "{err}");
    assert!(out.contains("not checked c: the launch faulted"), "{out}");
    assert!(!out.contains("FAIL"), "{out}");
    std::fs::remove_dir_all(&d).ok();
}

/// The benchmark examples print their options with `--help`. `cargo test` builds the
/// examples next to the binary; a run of this test file alone (`--test cli`) does not, so the
/// test builds them then, as `cargo test` would (same target directory and profile): the check
/// always runs.
#[test]
fn benchmark_examples_print_their_options() {
    let bin = Path::new(env!("CARGO_BIN_EXE_ptxjit"));
    let profile_dir = bin.parent().expect("the binary's directory");
    let examples = profile_dir.join("examples");
    for (name, option) in [
        ("bench_table", "--compile-runs N"),
        ("compile_time", "--runs N"),
    ] {
        let exe = examples.join(name);
        if !exe.exists() {
            let target_dir = profile_dir.parent().expect("the target directory");
            let mut cargo = Command::new(env!("CARGO"));
            cargo
                .args(["build", "--example", name, "--manifest-path"])
                .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
                .arg("--target-dir")
                .arg(target_dir);
            match profile_dir.file_name().and_then(|n| n.to_str()) {
                Some("debug") => {}
                Some(profile) => {
                    cargo.args(["--profile", profile]);
                }
                None => panic!("no profile directory in {}", bin.display()),
            }
            let o = cargo.output().expect("run cargo");
            assert!(
                o.status.success() && exe.exists(),
                "cargo build --example {name}: {}",
                text(&o.stderr)
            );
        }
        let o = Command::new(&exe)
            .arg("--help")
            .output()
            .expect("run the example");
        let out = text(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{name}: {out}{}", text(&o.stderr));
        assert!(out.starts_with(&format!("Usage: {name}")), "{name}: {out}");
        assert!(out.contains(option), "{name}: {out}");
    }
}

/// C++ kernels and device functions without `extern "C"` (ptx-tests/errors/cpp_names.cu) are
/// named demangled, then mangled, in a fault's device call stack (both engines) and in the
/// list of a module's kernels (names written from the C++ source).
#[test]
fn cpp_names_are_shown_demangled_then_mangled() {
    let scale = "'geom::scale<float>(float*, float const*, int, float)' \
                 (_ZN4geom5scaleIfEEvPT_PKS1_iS1_)";
    let put = "'geom::put<float>(float*, int, float)' (_ZN4geom3putIfEEvPT_iS1_)";
    let wants = [
        format!("fault in kernel {scale} in function {put} at cpp_names.cu:11:5: "),
        "    device call stack, innermost first:\n".to_string(),
        format!("      {put} at ptx-tests/errors/cpp_names.ptx:"),
        format!(" (cpp_names.cu:11:5)\n      kernel {scale} at ptx-tests/errors/cpp_names.ptx:"),
        " (cpp_names.cu:18:5)\n".to_string(),
    ];
    let wants: Vec<&str> = wants.iter().map(String::as_str).collect();
    expect_stderr_on_both_engines(&["ptx-tests/errors/cpp_names_fault.toml"], 2, &wants);
    // A name no kernel has: the list of the module's kernels, demangled then mangled.
    let o = ptxjit(&[
        "run",
        "--ptx",
        "ptx-tests/errors/cpp_names.ptx",
        "--kernel",
        "scal",
        "--grid",
        "1",
        "--block",
        "1",
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "no kernel named 'scal' in ptx-tests/errors/cpp_names.ptx (kernels: \
             fill(float*, int, float) (_Z4fillPfif), fill(int*, int, int) (_Z4fillPiii), \
             rotate<64>(int*) (_Z6rotateILi64EEvPi), geom::scale<float>(float*, float const*, \
             int, float) (_ZN4geom5scaleIfEEvPT_PKS1_iS1_), geom::scale<int>(int*, int const*, \
             int, int) (_ZN4geom5scaleIiEEvPT_PKS1_iS1_))"
        ),
        "{err}"
    );
}

/// `PTXJIT_TIER` forces one JIT tier (`PTXJIT_COMPILE_TIMES` names the tier of each
/// compilation); without it a case run compiles the optimized tier before its first launch
/// (the API's tiered default is for programs that launch a kernel many times). Every run
/// passes.
#[test]
fn ptxjit_tier_forces_one_tier() {
    let run = |tier: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_ptxjit"));
        c.args(["run", "ptx-tests/kernels/saxpy/saxpy.toml"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("PTXJIT_COMPILE_TIMES", "1")
            .env_remove("PTXJIT_TIER");
        if let Some(t) = tier {
            c.env("PTXJIT_TIER", t);
        }
        let o = c.output().expect("run ptxjit");
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{}{err}", text(&o.stdout));
        assert!(text(&o.stdout).contains("PASS"), "{}", text(&o.stdout));
        (
            err.contains("ptx_saxpy (quick tier)"),
            err.contains("ptx_saxpy (optimized tier)"),
        )
    };
    assert_eq!(run(Some("quick")), (true, false));
    assert_eq!(run(Some("optimized")), (false, true));
    // A case run compiles the optimized tier only, before its first launch.
    assert_eq!(run(None), (false, true));
}

/// A kernel written for warps in lockstep (ptx-tests/kernels/lockstep: volatile shared memory,
/// no `__syncwarp()`, `.target sm_80`) gets a note naming its PTX line when it runs in
/// group-major order, and none under `--lockstep` (or for a kernel without the idiom).
#[test]
fn warp_synchronous_code_gets_a_note_unless_run_in_lockstep() {
    let adhoc = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "--ptx",
            "ptx-tests/kernels/lockstep/lockstep.ptx",
            "--kernel",
            "warp_reduce",
            "--grid",
            "4",
            "--block",
            "64",
            "--arg",
            "buf:x:s32:256=iota",
            "--arg",
            "buf:out:s32:4=fill:0",
        ];
        args.extend_from_slice(extra);
        let o = ptxjit(&args);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        text(&o.stderr)
    };
    let err = adhoc(&[]);
    assert!(
        err.contains("note: kernel 'warp_reduce' (ptx-tests/kernels/lockstep/lockstep.ptx:")
            && err.contains("never calls __syncwarp()")
            && err.contains("--lockstep"),
        "{err}"
    );
    let err = adhoc(&["--lockstep"]);
    assert!(!err.contains("__syncwarp"), "{err}");
    let o = ptxjit(&["run", "ptx-tests/kernels/lockstep/lockstep.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(!text(&o.stderr).contains("__syncwarp"));
    let o = ptxjit(&["run", "ptx-tests/kernels/saxpy/saxpy.toml"]);
    assert!(!text(&o.stderr).contains("__syncwarp"));
}

/// A time limit reached while a warp waits at `bar.sync` names the barrier instruction and
/// its own line, on the first line (`FILE:LINE:COL`) and in the warp's line, not the
/// instruction after it; on both engines. Warp 0 waits at the barrier (line 14) for warp 1,
/// which loops forever (line 12).
#[test]
fn a_time_limit_at_a_barrier_names_the_barrier_and_its_line() {
    let d = scratch("barrier_timeout");
    let ptx = d.join("bar.ptx");
    std::fs::write(
        &ptx,
        ".version 8.5\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 a)\n{\n.reg .u32 %r<2>;\n.reg .pred %p<2>;\n\
         mov.u32 %r1, %tid.x;\nsetp.lt.u32 %p1, %r1, 32;\n@%p1 bra BAR;\nSPIN:\nbra SPIN;\n\
         BAR:\nbar.sync 0;\nret;\n}\n",
    )
    .expect("write bar.ptx");
    let path = ptx.to_str().expect("utf-8 path");
    let first = format!(
        "error: {path}:14:1: kernel 'k' exceeded the time limit of 1s: CTA (0,0,0) warp 0, \
         threads (0,0,0) to (31,0,0) (lanes 0-31), was waiting at 'bar.sync'; the warps were at:"
    );
    expect_stderr_on_both_engines(
        &[
            "--ptx",
            path,
            "--kernel",
            "k",
            "--grid",
            "1",
            "--block",
            "64",
            "--arg",
            "u64=0",
            "--timeout",
            "1",
        ],
        2,
        &[
            &first,
            "  warp 0: lanes 0-31 waiting at 'bar.sync' at line 14\n",
            "  warp 1: lanes 0-31 at 'bra' at line 12",
        ],
    );
}

/// Options that name a file or directory to write, and `--repeat`, are checked before any
/// work: `--dump`/`--png` into a directory that does not exist (the launch does not run),
/// `fuzz --emit`/`--out` where no directory can be made (each names its option), and a
/// negative `--repeat` (what it takes, not clap's "unexpected argument").
#[test]
fn output_paths_and_repeat_are_checked_before_the_work() {
    let d = scratch("output_paths");
    let case = vector_add_case(&d, "va.toml", 1, 4, 4, "2, 3, 4, 5");
    let case = case.to_str().expect("utf-8 path");
    let file = d.join("plain_file");
    std::fs::write(&file, "not a directory").expect("write plain_file");
    let under_file = file.join("sub");
    let under_file = under_file.to_str().expect("utf-8 path");
    let missing = d.join("missing/c.npy");
    let missing = missing.to_str().expect("utf-8 path");
    let dump = format!("c={missing}");
    let png = format!("c={}:2x2x1", d.join("missing/c.png").display());
    let missing_dir = format!("directory {} does not exist", d.join("missing").display());
    for (args, want) in [
        (
            vec!["run", case, "--dump", dump.as_str()],
            format!("error: --dump c: cannot write {missing}: {missing_dir}"),
        ),
        (
            vec!["run", case, "--png", png.as_str()],
            format!(
                "error: --png c: cannot write {}: {missing_dir}",
                &png[2..png.len() - 6]
            ),
        ),
        (
            vec!["run", case, "--repeat", "-1"],
            "'-1' is not a count of launches: --repeat takes a whole number from 0".to_string(),
        ),
        (
            vec!["fuzz", "--cases", "1", "--seed", "1", "--emit", under_file],
            format!("error: --emit {under_file}: cannot make the directory: "),
        ),
        (
            vec!["fuzz", "--cases", "1", "--seed", "1", "--out", under_file],
            format!("error: --out {under_file}: cannot make the directory: "),
        ),
    ] {
        let o = ptxjit(&args);
        let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&want),
            "{args:?}: want {want:?} in:\n{stderr}"
        );
        assert!(
            !stdout.contains("PASS") && !stdout.contains("cases in"),
            "{args:?} did the work: {stdout}"
        );
    }
    assert!(!d.join("missing").exists());
}

/// A barrier deadlock's first line begins, as a fault's does, with `FILE:LINE:COL` of the
/// barrier the first waiting warp waits at (warp 0 at `bar.sync 0`, line 14; warp 1 at
/// `bar.sync 1, 64`, line 11, which warp 0 never reaches); the detail names both.
#[test]
fn a_barrier_deadlock_begins_with_the_barriers_line_and_column() {
    let d = scratch("deadlock_place");
    let ptx = d.join("dl.ptx");
    std::fs::write(
        &ptx,
        ".version 8.5\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 a)\n{\n.reg .u32 %r<2>;\n.reg .pred %p<2>;\n\
         mov.u32 %r1, %tid.x;\nsetp.lt.u32 %p1, %r1, 32;\n@%p1 bra BAR;\n  bar.sync 1, 64;\n\
         ret;\nBAR:\n  bar.sync 0;\nret;\n}\n",
    )
    .expect("write dl.ptx");
    let path = ptx.to_str().expect("utf-8 path");
    let first = format!(
        "error: {path}:14:3: kernel 'k': barrier deadlock in CTA (0,0,0): threads wait at \
         barriers that can never complete\n"
    );
    expect_stderr_on_both_engines(
        &[
            "--ptx", path, "--kernel", "k", "--grid", "1", "--block", "64", "--arg", "u64=0",
        ],
        2,
        &[
            &first,
            "  warp 0: lanes 0-31 wait at barrier 0 ('bar.sync' at line 14, for all threads)",
            "  warp 1: lanes 0-31 wait at barrier 1 ('bar.sync' at line 11, for 64 threads)",
        ],
    );
}
