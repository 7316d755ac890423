//! From a `.cu` file to a result with ptxjit alone: `ptxjit compile` (NVRTC from the pip
//! wheels), `ptxjit run` on a `.cu` (compiled on the fly and cached), kernels named by their
//! demangled C++ names, and the message when NVRTC is missing.
//!
//! The kernels are `tests/nvrtc/*.cu`. Expected values are computed here on the host. Tests that
//! need NVRTC and the CUDA headers skip, saying why, where they are not installed
//! (`python3 -m pip install -r .ci/requirements-nvrtc.txt`); under CI (`CI=true`) they fail
//! instead.

mod common;

use common::{expect_code, ptxjit_in, root, text};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn source(name: &str) -> String {
    root().join("tests/nvrtc").join(name).display().to_string()
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    common::scratch("nvrtc", name)
}

/// Whether NVRTC and the CUDA headers are installed. Where not, print why the test is skipped
/// (past the test harness's capture), or under CI fail.
fn nvrtc_ready(test: &str) -> bool {
    let why = match ptxjit::nvrtc::Nvrtc::load() {
        Ok(n)
            if ["cuda_cccl", "cuda_runtime", "cuda_nvcc"].iter().all(|wheel| {
                n.location
                    .include_dirs
                    .iter()
                    .any(|d| d.ends_with(Path::new("nvidia").join(wheel).join("include")))
            }) =>
        {
            return true;
        }
        Ok(n) => format!(
            "NVRTC found at {} but not all the CUDA headers of .ci/requirements-nvrtc.txt (found only: {:?})",
            n.location.library.display(),
            n.location.include_dirs
        ),
        Err(e) => e.to_string(),
    };
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{test}: NVRTC is required under CI: {why}");
    }
    let _ = writeln!(
        std::io::stderr(),
        "skipped {test}: {why}\n  (install: python3 -m pip install -r .ci/requirements-nvrtc.txt)"
    );
    false
}

/// Inputs: `n` values in [0, 1000) from a fixed linear congruential sequence.
fn inputs(n: usize, seed: u64) -> Vec<i32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 33) % 1000) as i32
        })
        .collect()
}

fn list<T: std::fmt::Display>(v: &[T]) -> String {
    v.iter().map(T::to_string).collect::<Vec<_>>().join(", ")
}

/// Little-endian i32s of a `--dump NAME=PATH.bin` file.
fn read_i32(p: &Path) -> Vec<i32> {
    let b = std::fs::read(p).expect("read dump");
    b.chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

fn read_f32(p: &Path) -> Vec<f32> {
    let b = std::fs::read(p).expect("read dump");
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

fn read_f64(p: &Path) -> Vec<f64> {
    let b = std::fs::read(p).expect("read dump");
    b.chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

/// The `*.ptx` entries of a cache directory.
fn cache_entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The cooperative-groups case: 300 inputs, 3 CTAs of 128 threads, 12 warp tiles. Expected
/// per tile: the sum of its 32 inputs (0 past the end) twice; per input, `v * 0.5`, which f16
/// holds exactly for v < 2048.
fn tile_sums_case(ptx: &str, xs: &[i32]) -> String {
    let sums: Vec<i32> = xs
        .chunks(32)
        .map(|c| c.iter().sum())
        .chain(std::iter::repeat(0))
        .take(12)
        .collect();
    let halves: Vec<f32> = xs.iter().map(|&v| v as f32 * 0.5).collect();
    format!(
        "ptx = \"{ptx}\"\nkernel = \"tile_sums\"\ngrid = [3]\nblock = [128]\n\
         args = [{{ buffer = \"in\" }}, {{ buffer = \"reduced\" }}, {{ buffer = \"shuffled\" }}, \
         {{ buffer = \"halves\" }}, {{ s32 = {n} }}]\n\
         [buffers.in]\ntype = \"s32\"\ninit = {{ values = [{xs}] }}\n\
         [buffers.reduced]\ntype = \"s32\"\nlen = 12\n\
         [buffers.shuffled]\ntype = \"s32\"\nlen = 12\n\
         [buffers.halves]\ntype = \"f32\"\nlen = {n}\n\
         [expect.reduced]\nvalues = [{sums}]\ntolerance = \"exact\"\n\
         [expect.shuffled]\nvalues = [{sums}]\ntolerance = \"exact\"\n\
         [expect.halves]\nvalues = [{halves}]\ntolerance = \"exact\"\n",
        n = xs.len(),
        xs = list(xs),
        sums = list(&sums),
        halves = list(&halves),
    )
}

#[test]
fn cooperative_groups_kernel_compiles_and_runs() {
    if !nvrtc_ready("cooperative_groups_kernel_compiles_and_runs") {
        return;
    }
    let dir = scratch("cg");
    let xs = inputs(300, 1);
    let o = ptxjit_in(
        &dir,
        &["compile", &source("tile_sums.cu"), "-o", "tile_sums.ptx"],
        &[],
    );
    expect_code(&o, 0);
    let ptx = std::fs::read_to_string(dir.join("tile_sums.ptx")).unwrap();
    assert!(ptx.contains(".entry tile_sums("), "{ptx}");
    std::fs::write(dir.join("cg.toml"), tile_sums_case("tile_sums.ptx", &xs)).unwrap();
    for engine in ["jit", "interp"] {
        let o = ptxjit_in(&dir, &["run", "cg.toml", "--engine", engine], &[]);
        expect_code(&o, 0);
        let out = text(&o.stdout);
        for b in ["reduced", "shuffled", "halves"] {
            assert!(out.lines().any(|l| l == format!("PASS {b}")), "{out}");
        }
    }
    // A negative input fails the kernel's assert (from <assert.h>): a fault naming it.
    let mut bad = xs.clone();
    bad[77] = -5;
    let case = tile_sums_case("tile_sums.ptx", &bad);
    std::fs::write(dir.join("assert.toml"), case).unwrap();
    let o = ptxjit_in(&dir, &["run", "assert.toml"], &[]);
    expect_code(&o, 2);
    let err = text(&o.stderr);
    assert!(
        err.contains("assertion failed") && err.contains("v >= 0") && err.contains("tile_sums.cu"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A debug build (`-G`) of the multi-warp cooperative-groups tiles of
/// `ptx-tests/kernels/cg_tiles`: `-G` keeps the reserved-shared-memory scratch code
/// (`%reserved_smem_offset_1`) of every partition; the cases and their expected outputs
/// (numpy, `gen.py` there) are the release build's.
#[test]
fn debug_build_of_multi_warp_tiles_runs() {
    if !nvrtc_ready("debug_build_of_multi_warp_tiles_runs") {
        return;
    }
    let dir = scratch("cg-debug");
    let cases = root().join("ptx-tests/kernels/cg_tiles");
    let cu = cases.join("cg_tiles.cu").display().to_string();
    let o = ptxjit_in(
        &dir,
        &["compile", &cu, "-o", "cg_tiles.ptx", "--", "-G"],
        &[],
    );
    expect_code(&o, 0);
    let ptx = std::fs::read_to_string(dir.join("cg_tiles.ptx")).unwrap();
    assert!(
        ptx.contains(", debug") && ptx.contains("%reserved_smem_offset_1"),
        "{ptx:.400}"
    );
    for f in [
        "x.npy",
        "tile64.toml",
        "tile64_expected.npy",
        "tile128.toml",
        "tile128_expected.npy",
    ] {
        std::fs::copy(cases.join(f), dir.join(f)).unwrap();
    }
    for case in ["tile64.toml", "tile128.toml"] {
        for engine in ["jit", "interp"] {
            let o = ptxjit_in(&dir, &["run", case, "--engine", engine], &[]);
            expect_code(&o, 0);
            let out = text(&o.stdout);
            assert!(
                out.lines().any(|l| l == "PASS out"),
                "{case} on {engine}: {out}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cub_kernel_compiles_and_runs_by_its_template_name() {
    if !nvrtc_ready("cub_kernel_compiles_and_runs_by_its_template_name") {
        return;
    }
    let dir = scratch("cub");
    let o = ptxjit_in(
        &dir,
        &["compile", &source("block_sums.cu"), "-o", "block_sums.ptx"],
        &[],
    );
    expect_code(&o, 0);
    let xs = inputs(1000, 2);
    let o = ptxjit_in(
        &dir,
        &[
            "run",
            "--ptx",
            "block_sums.ptx",
            "--kernel",
            "block_sums<128>",
            "--grid",
            "8",
            "--block",
            "128",
            "--arg",
            &format!("buf:in:s32=values:{}", list(&xs).replace(' ', "")),
            "--arg",
            "buf:out:s32:8",
            "--arg",
            "s32=1000",
            "--dump",
            "out=out.bin",
        ],
        &[],
    );
    expect_code(&o, 0);
    let want: Vec<i32> = xs.chunks(128).map(|c| c.iter().sum()).collect();
    assert_eq!(read_i32(&dir.join("out.bin")), want);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_compiles_a_cu_file_once_and_then_uses_the_cache() {
    if !nvrtc_ready("run_compiles_a_cu_file_once_and_then_uses_the_cache") {
        return;
    }
    let dir = scratch("cache");
    let cache = dir.join("cache");
    // The source beside the case, with a local header, so that edits can be made.
    let cu = std::fs::read_to_string(source("tile_sums.cu")).unwrap();
    let cu = cu.replace(
        "#include <assert.h>",
        "#include <assert.h>\n#include \"local.h\"",
    );
    std::fs::write(dir.join("tile_sums.cu"), &cu).unwrap();
    std::fs::write(dir.join("local.h"), "#define LOCAL 1\n").unwrap();
    let xs = inputs(300, 3);
    std::fs::write(dir.join("cg.toml"), tile_sums_case("tile_sums.cu", &xs)).unwrap();
    let run = || {
        let o = ptxjit_in(&dir, &["run", "cg.toml"], &[]);
        expect_code(&o, 0);
        assert!(
            text(&o.stdout).contains("PASS reduced"),
            "{}",
            text(&o.stdout)
        );
    };
    run();
    let entries = cache_entries(&cache);
    assert_eq!(entries.len(), 1, "{entries:?}");
    let cached = std::fs::read_to_string(&entries[0]).unwrap();
    assert!(cached.contains(".entry tile_sums("), "{cached}");
    // `ptxjit compile` with `-lineinfo` (what `run` adds) gives the same PTX.
    let o = ptxjit_in(
        &dir,
        &["compile", "tile_sums.cu", "-lineinfo", "-o", "-"],
        &[],
    );
    expect_code(&o, 0);
    assert_eq!(text(&o.stdout), cached);
    // The second run finds its entry: still one, unchanged.
    run();
    assert_eq!(cache_entries(&cache), entries);
    assert_eq!(std::fs::read_to_string(&entries[0]).unwrap(), cached);
    // It is what runs: with `v * 0.5` changed to `v * 1.0` in the entry, `halves` fails.
    let tampered = cached.replace("0f3F000000", "0f3F800000");
    assert_ne!(tampered, cached, "the PTX multiplies by 0.5 as 0f3F000000");
    std::fs::write(&entries[0], &tampered).unwrap();
    let o = ptxjit_in(&dir, &["run", "cg.toml"], &[]);
    expect_code(&o, 1);
    assert!(
        text(&o.stdout).contains("FAIL halves"),
        "{}",
        text(&o.stdout)
    );
    std::fs::write(&entries[0], &cached).unwrap();
    // Editing the local header is a new entry.
    std::fs::write(dir.join("local.h"), "#define LOCAL 2\n").unwrap();
    run();
    assert_eq!(cache_entries(&cache).len(), 2);
    // So is the ad-hoc form on another source.
    let o = ptxjit_in(
        &dir,
        &[
            "run",
            "--ptx",
            &source("names.cu"),
            "--kernel",
            "negate",
            "--grid",
            "1",
            "--block",
            "32",
            "--arg",
            "buf:x:s32=values:1,-2,3",
            "--arg",
            "s32=3",
            "--dump",
            "x=x.bin",
        ],
        &[],
    );
    expect_code(&o, 0);
    assert_eq!(read_i32(&dir.join("x.bin")), vec![-1, 2, -3]);
    assert_eq!(cache_entries(&cache).len(), 3);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn kernels_are_found_by_demangled_names() {
    if !nvrtc_ready("kernels_are_found_by_demangled_names") {
        return;
    }
    let dir = scratch("names");
    let o = ptxjit_in(
        &dir,
        &["compile", &source("names.cu"), "-o", "names.ptx"],
        &[],
    );
    expect_code(&o, 0);
    let ptx = std::fs::read_to_string(dir.join("names.ptx")).unwrap();
    // The PTX names are mangled: the lookup is what finds them.
    assert!(
        !ptx.contains(".entry transpose") && ptx.contains("_Z9transpose"),
        "{ptx}"
    );
    let launch = |kernel: &str, grid: &str, block: &str, args: &[String]| {
        let mut a: Vec<String> = [
            "run",
            "--ptx",
            "names.ptx",
            "--kernel",
            kernel,
            "--grid",
            grid,
            "--block",
            block,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for x in args {
            a.push("--arg".into());
            a.push(x.clone());
        }
        a.extend(["--dump".into(), "out=out.bin".into()]);
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        ptxjit_in(&dir, &refs, &[])
    };
    // A 5×7 matrix transposed, as float and as double.
    let (rows, cols) = (5usize, 7usize);
    let m: Vec<i32> = (0..(rows * cols) as i32).map(|v| v * 3 - 20).collect();
    let mt: Vec<i32> = (0..rows * cols)
        .map(|k| m[(k % rows) * cols + k / rows])
        .collect();
    for (kernel, ty) in [
        ("transpose<float>", "f32"),
        (
            "void transpose<double>(double*, double const*, int, int)",
            "f64",
        ),
        ("_Z9transposeIfEvPT_PKS0_ii", "f32"),
    ] {
        let o = launch(
            kernel,
            "1",
            "8,8",
            &[
                format!("buf:out:{ty}:{}", rows * cols),
                format!("buf:in:{ty}=values:{}", list(&m).replace(' ', "")),
                format!("s32={rows}"),
                format!("s32={cols}"),
            ],
        );
        expect_code(&o, 0);
        let got: Vec<i32> = if ty == "f32" {
            read_f32(&dir.join("out.bin"))
                .iter()
                .map(|&v| v as i32)
                .collect()
        } else {
            read_f64(&dir.join("out.bin"))
                .iter()
                .map(|&v| v as i32)
                .collect()
        };
        assert_eq!(got, mt, "{kernel}");
    }
    // Overloads in a namespace, by their parameter lists; the extern "C" kernel by its name.
    let o = launch(
        "ns::scale(float*, int)",
        "1",
        "32",
        &["buf:out:f32=values:1.5,-2,4".into(), "s32=3".into()],
    );
    expect_code(&o, 0);
    assert_eq!(read_f32(&dir.join("out.bin")), vec![3.0, -4.0, 8.0]);
    let o = launch(
        "ns::scale(double*, int)",
        "1",
        "32",
        &["buf:out:f64=values:1.5,-2,4".into(), "s32=3".into()],
    );
    expect_code(&o, 0);
    assert_eq!(read_f64(&dir.join("out.bin")), vec![4.5, -6.0, 12.0]);
    let o = launch(
        "negate",
        "1",
        "32",
        &["buf:out:s32=values:7,0,-9".into(), "s32=3".into()],
    );
    expect_code(&o, 0);
    assert_eq!(read_i32(&dir.join("out.bin")), vec![-7, 0, 9]);
    // Names that match several kernels: an error listing them.
    for (name, a, b) in [
        ("transpose", "transpose<float>", "transpose<double>"),
        (
            "ns::scale",
            "ns::scale(float*, int)",
            "ns::scale(double*, int)",
        ),
        // The last part alone, without the namespace.
        ("scale", "ns::scale(float*, int)", "ns::scale(double*, int)"),
    ] {
        let o = launch(name, "1", "32", &["buf:out:f32:4".into(), "s32=4".into()]);
        expect_code(&o, 2);
        let err = text(&o.stderr);
        assert!(
            err.contains(&format!("kernel name '{name}' is ambiguous"))
                && err.contains(a)
                && err.contains(b),
            "{err}"
        );
    }
    // An unknown name lists the kernels, demangled.
    let o = launch("scal", "1", "32", &["buf:out:f32:4".into(), "s32=4".into()]);
    expect_code(&o, 2);
    let err = text(&o.stderr);
    assert!(
        err.contains("no kernel named 'scal'")
            && err.contains("ns::scale(float*, int) (_ZN2ns5scaleEPfi)"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compile_errors_show_the_log_with_file_and_line() {
    if !nvrtc_ready("compile_errors_show_the_log_with_file_and_line") {
        return;
    }
    let dir = scratch("errors");
    std::fs::write(
        dir.join("bad.cu"),
        "extern \"C\" __global__ void k(int* x)\n{\n    x[0] = undefined_name;\n}\n",
    )
    .unwrap();
    let o = ptxjit_in(&dir, &["compile", "bad.cu"], &[]);
    expect_code(&o, 2);
    let err = text(&o.stderr);
    assert!(
        err.contains("bad.cu:3: error: identifier \"undefined_name\" is undefined"),
        "{err}"
    );
    assert!(!dir.join("bad.ptx").exists());
    // The same through `ptxjit run`, and through a case file.
    let o = ptxjit_in(
        &dir,
        &[
            "run",
            "--ptx",
            "bad.cu",
            "--kernel",
            "k",
            "--grid",
            "1",
            "--block",
            "1",
            "--arg",
            "buf:x:s32:1",
        ],
        &[],
    );
    expect_code(&o, 2);
    assert!(
        text(&o.stderr).contains("bad.cu:3: error"),
        "{}",
        text(&o.stderr)
    );
    // CUB's umbrella header is not for NVRTC: the log says what to include instead.
    std::fs::write(
        dir.join("umbrella.cu"),
        "#include <cub/cub.cuh>\nextern \"C\" __global__ void k(int* x) { x[0] = 1; }\n",
    )
    .unwrap();
    let o = ptxjit_in(&dir, &["compile", "umbrella.cu"], &[]);
    expect_code(&o, 2);
    assert!(
        text(&o.stderr).contains("<cub/block/block_reduce.cuh>"),
        "{}",
        text(&o.stderr)
    );
    // Options NVRTC cannot take for ptxjit.
    let o = ptxjit_in(&dir, &["compile", "bad.cu", "--arch", "sm_80"], &[]);
    expect_code(&o, 2);
    assert!(
        text(&o.stderr).contains("compute_80"),
        "{}",
        text(&o.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compile_options_reach_nvrtc() {
    if !nvrtc_ready("compile_options_reach_nvrtc") {
        return;
    }
    let dir = scratch("options");
    std::fs::create_dir_all(dir.join("inc")).unwrap();
    std::fs::write(dir.join("inc/value.h"), "#define FROM_HEADER 40\n").unwrap();
    std::fs::write(
        dir.join("k.cu"),
        "#include <value.h>\nextern \"C\" __global__ void k(int* x)\n{\n    x[0] = FROM_HEADER + EXTRA;\n}\n",
    )
    .unwrap();
    let o = ptxjit_in(
        &dir,
        &[
            "compile",
            "k.cu",
            "-I",
            "inc",
            "-DEXTRA=2",
            "-lineinfo",
            "--arch",
            "compute_75",
        ],
        &[],
    );
    expect_code(&o, 0);
    let ptx = std::fs::read_to_string(dir.join("k.ptx")).unwrap();
    assert!(ptx.contains(".target sm_75"), "{ptx}");
    assert!(ptx.contains(".loc"), "-lineinfo: {ptx}");
    let o = ptxjit_in(
        &dir,
        &[
            "run",
            "--ptx",
            "k.ptx",
            "--kernel",
            "k",
            "--grid",
            "1",
            "--block",
            "1",
            "--arg",
            "buf:x:s32:1",
            "--dump",
            "x=x.bin",
        ],
        &[],
    );
    expect_code(&o, 0);
    assert_eq!(read_i32(&dir.join("x.bin")), vec![42]);
    // Without the macro the source does not compile.
    let o = ptxjit_in(&dir, &["compile", "k.cu", "-I", "inc"], &[]);
    expect_code(&o, 2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `<cstdio>`, `<cstdint>`, `<cmath>`, `<cfloat>`, … (and the `.h` forms) compile under NVRTC
/// through ptxjit's in-memory headers, with the values the C standard and IEEE 754 give.
#[test]
fn standard_headers_compile_and_give_their_values() {
    if !nvrtc_ready("standard_headers_compile_and_give_their_values") {
        return;
    }
    let dir = scratch("std_headers");
    let arg = |s: &str| s.to_string();
    let mut args: Vec<String> = ["run", "--ptx", &source("std_headers.cu"), "--kernel", "k"]
        .map(arg)
        .to_vec();
    for a in [
        "--grid",
        "1",
        "--block",
        "4",
        "--arg",
        "buf:o:f32:4",
        "--arg",
        "buf:u:u32:4",
        "--arg",
        "buf:d:f64:4",
        "--dump",
        "o=o.bin",
        "--dump",
        "u=u.bin",
        "--dump",
        "d=d.bin",
    ] {
        args.push(arg(a));
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = ptxjit_in(&dir, &args, &[("PTXJIT_CACHE_DIR", dir.to_str().unwrap())]);
    expect_code(&o, 0);
    assert!(
        text(&o.stdout).contains("max 2147483647"),
        "{}",
        text(&o.stdout)
    );
    let want_o: Vec<f32> = (0..4).map(|i| (i as f32).sqrt() + 1.0).collect();
    assert_eq!(read_f32(&dir.join("o.bin")), want_o);
    // (UINT64_MAX >> 40) + (INT32_MIN == INT_MIN) + abs(-3)
    let want_u = ((u64::MAX >> 40) + 1 + 3) as i32;
    assert_eq!(read_i32(&dir.join("u.bin")), vec![want_u; 4]);
    // DBL_EPSILON + 0 + isinf(HUGE_VAL) + floor(2.5) + (INFINITY > FLT_MAX)
    let want_d = f64::EPSILON + 1.0 + 2.0 + 1.0;
    assert_eq!(read_f64(&dir.join("d.bin")), vec![want_d; 4]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_and_check_take_include_dirs_and_macros_and_faults_name_the_cuda_line() {
    if !nvrtc_ready("run_and_check_take_include_dirs_and_macros_and_faults_name_the_cuda_line") {
        return;
    }
    let dir = scratch("run-options");
    std::fs::create_dir_all(dir.join("inc")).unwrap();
    std::fs::write(dir.join("inc/value.h"), "#define FROM_HEADER 40\n").unwrap();
    // Line 5 stores through x[i * STRIDE].
    std::fs::write(
        dir.join("k.cu"),
        "#include <value.h>\nextern \"C\" __global__ void k(int* x)\n{\n    int i = threadIdx.x;\n    x[i * STRIDE] = FROM_HEADER + i;\n}\n",
    )
    .unwrap();
    let launch = |stride: &str| {
        ptxjit_in(
            &dir,
            &[
                "run",
                "--ptx",
                "k.cu",
                "--kernel",
                "k",
                "--grid",
                "1",
                "--block",
                "4",
                "--arg",
                "buf:x:s32:4",
                "--dump",
                "x=x.bin",
                "-I",
                "inc",
                "-D",
                stride,
            ],
            &[],
        )
    };
    expect_code(&launch("STRIDE=1"), 0);
    assert_eq!(read_i32(&dir.join("x.bin")), vec![40, 41, 42, 43]);
    // Thread 1 stores 1000 ints past x: the fault names k.cu's line 5.
    let o = launch("STRIDE=1000");
    expect_code(&o, 2);
    let err = text(&o.stderr);
    assert!(err.contains("k.cu:5:"), "{err}");
    assert!(err.contains("out of bounds"), "{err}");
    // `check` compiles a case's .cu module with the same options.
    std::fs::write(
        dir.join("k.toml"),
        "ptx = \"k.cu\"\nkernel = \"k\"\ngrid = [1, 1, 1]\nblock = [4, 1, 1]\n\
         args = [{ buffer = \"x\" }]\n[buffers.x]\ntype = \"s32\"\nlen = 4\n\
         [expect.x]\nvalues = [40, 41, 42, 43]\n",
    )
    .unwrap();
    let o = ptxjit_in(&dir, &["check", "k.toml", "-I", "inc", "-DSTRIDE=1"], &[]);
    expect_code(&o, 0);
    let o = ptxjit_in(&dir, &["run", "k.toml", "-I", "inc", "-DSTRIDE=1"], &[]);
    expect_code(&o, 0);
    assert!(text(&o.stdout).contains("PASS x"), "{}", text(&o.stdout));
    // Without -I the header is not found: NVRTC's log says so.
    let o = ptxjit_in(&dir, &["run", "k.toml", "-DSTRIDE=1"], &[]);
    expect_code(&o, 2);
    assert!(text(&o.stderr).contains("value.h"), "{}", text(&o.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Needs no NVRTC: it hides it.
#[test]
fn missing_nvrtc_says_how_to_install_it() {
    let dir = scratch("missing");
    let cu = source("names.cu");
    let missing = dir.join("nowhere/libnvrtc.so.12").display().to_string();
    let hidden = [("PTXJIT_NVRTC", missing.as_str())];
    let o = ptxjit_in(&dir, &["compile", &cu], &hidden);
    expect_code(&o, 2);
    let err = text(&o.stderr);
    assert!(
        err.contains(&missing) && err.contains("python3 -m pip install nvidia-cuda-nvrtc-cu12"),
        "{err}"
    );
    let o = ptxjit_in(
        &dir,
        &[
            "run",
            "--ptx",
            &cu,
            "--kernel",
            "negate",
            "--grid",
            "1",
            "--block",
            "1",
            "--arg",
            "buf:x:s32:1",
            "--arg",
            "s32=1",
        ],
        &hidden,
    );
    expect_code(&o, 2);
    assert!(
        text(&o.stderr).contains("pip install nvidia-cuda-nvrtc-cu12"),
        "{}",
        text(&o.stderr)
    );
    // No Python environment at all: no $VIRTUAL_ENV, no python3 on PATH.
    let o = Command::new(env!("CARGO_BIN_EXE_ptxjit"))
        .args(["compile", &cu])
        .current_dir(&dir)
        .env_remove("PTXJIT_NVRTC")
        .env_remove("VIRTUAL_ENV")
        .env("PATH", dir.join("empty"))
        .output()
        .expect("run ptxjit");
    expect_code(&o, 2);
    let err = text(&o.stderr);
    assert!(
        err.contains("NVRTC (libnvrtc.so.12) not found")
            && err.contains("python3 -m pip install nvidia-cuda-nvrtc-cu12"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The ad-hoc launch of a small kernel of `k.cu` in `dir` (its cache in `dir/cache`).
fn run_k(dir: &Path) -> Output {
    ptxjit_in(
        dir,
        &[
            "run",
            "--ptx",
            "k.cu",
            "--kernel",
            "k",
            "--grid",
            "1",
            "--block",
            "32",
            "--arg",
            "buf:x:s32:32",
        ],
        &[],
    )
}

/// `compile time` names NVRTC's time apart when NVRTC ran, and not for PTX from the cache.
#[test]
fn compile_time_names_nvrtc_when_it_ran() {
    if !nvrtc_ready("compile_time_names_nvrtc_when_it_ran") {
        return;
    }
    let dir = scratch("nvrtc-time");
    std::fs::write(
        dir.join("k.cu"),
        "extern \"C\" __global__ void k(int* x) { x[threadIdx.x] = threadIdx.x; }\n",
    )
    .unwrap();
    let o = run_k(&dir);
    expect_code(&o, 0);
    let out = text(&o.stdout);
    assert!(out.contains(" ms (jit); NVRTC: "), "{out}");
    let o = run_k(&dir);
    expect_code(&o, 0);
    let out = text(&o.stdout);
    assert!(
        out.contains("compile time: ") && !out.contains("NVRTC"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A cache entry damaged from outside (cut short) is compiled again, with a note naming it.
#[test]
fn a_damaged_cache_entry_is_compiled_again() {
    if !nvrtc_ready("a_damaged_cache_entry_is_compiled_again") {
        return;
    }
    let dir = scratch("damaged");
    std::fs::write(
        dir.join("k.cu"),
        "extern \"C\" __global__ void k(int* x) { x[threadIdx.x] = threadIdx.x + 1; }\n",
    )
    .unwrap();
    expect_code(&run_k(&dir), 0);
    let entries = cache_entries(&dir.join("cache"));
    assert_eq!(entries.len(), 1, "{entries:?}");
    let whole = std::fs::read_to_string(&entries[0]).unwrap();
    let cut = &whole[..whole.find(".entry").expect("an entry") + 20];
    std::fs::write(&entries[0], cut).unwrap();
    let o = run_k(&dir);
    expect_code(&o, 0);
    let err = text(&o.stderr);
    // The parser stops on the cut text's last line (the cut is in the middle of a token).
    let line = cut.lines().count();
    assert!(
        err.contains(&format!(
            "the cached PTX of k.cu does not parse ({}:{line}:",
            entries[0].display()
        )) && err.contains("compiling it again"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&entries[0]).unwrap(), whole);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A program with host code (a C++ standard header, `main`) fails in NVRTC with a note that
/// says to build it with nvcc and run it with `ptxjit exec`.
#[test]
fn host_code_in_a_cu_file_says_to_use_nvcc_and_exec() {
    if !nvrtc_ready("host_code_in_a_cu_file_says_to_use_nvcc_and_exec") {
        return;
    }
    let dir = scratch("hostcode");
    std::fs::write(
        dir.join("app.cu"),
        "#include <cstring>\n__global__ void k(int* x) { x[0] = 1; }\nint main() { return 0; }\n",
    )
    .unwrap();
    let o = ptxjit_in(
        &dir,
        &[
            "run",
            "--ptx",
            "app.cu",
            "--kernel",
            "k",
            "--grid",
            "1",
            "--block",
            "1",
            "--arg",
            "buf:x:s32:1",
        ],
        &[],
    );
    expect_code(&o, 2);
    let err = text(&o.stderr);
    assert!(err.contains("cannot open source file \"cstring\""), "{err}");
    assert!(
        err.contains("NVRTC compiles device code only") && err.contains("ptxjit exec"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
