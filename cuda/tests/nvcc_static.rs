//! A CUDA C++ program built by nvcc 13 with its default `--cudart static` (NVIDIA's runtime
//! linked into the program) runs on this library's libcuda.so.1 alone: the runtime reaches
//! the driver through the private export tables (cuda/src/export_tables.rs), including the
//! integrity check, and any mistake there fails its first call. The programs are
//! examples/cuda/vector_add.cu, symbols.cu (`__constant__`, `__device__` and `__managed__`
//! variables, the managed ones read and written by the host) and graph.cu (stream capture,
//! graphs, kernel node parameters read back), which check their results
//! against host computations and print PASS, [`RESET`], which uses the device again after
//! `cudaDeviceReset`, and [`DRIVER_ERRORS`], the error codes the runtime passes on from the
//! driver; they run under both engines. `-rdc=true` programs (device code across
//! translation units) run that way too.
//!
//! Needs nvcc (NVCC, or the one in .venv-nvcc or .ci/venv-nvcc: `pip install -r
//! cudart/requirements.txt`) and libcuda.so.1 built (`cargo build --release`). Skipped with
//! a message when either is missing, except under CI=true, where that is a failure.

use std::path::PathBuf;
use support::{build, nvcc, require_fresh, root, run_on_both_engines, skip};

#[path = "support/nvcc.rs"]
mod support;

/// Work before and after `cudaDeviceReset` (the runtime's per-context state is dropped with
/// the context's local storage; its library stays loaded), each checked against the host.
const RESET: &str = r#"#include <cstdio>
__global__ void k(int* p) { p[threadIdx.x] = threadIdx.x * 3; }
int run() {
  int* d; int h[32];
  if (cudaMalloc(&d, sizeof h)) return 1;
  k<<<1, 32>>>(d);
  if (cudaGetLastError()) return 2;
  if (cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost)) return 3;
  for (int i = 0; i < 32; i++) if (h[i] != 3 * i) return 4;
  return cudaFree(d) ? 5 : 0;
}
int main() {
  int before = run();
  cudaError_t reset = cudaDeviceReset();
  int after = run();
  std::printf("%d %s %d\n", before, cudaGetErrorName(reset), after);
  if (before == 0 && reset == cudaSuccess && after == 0) std::printf("PASS\n");
  return 0;
}
"#;

/// Error codes NVIDIA's runtime passes on from the driver's documented answers: more threads
/// than `__launch_bounds__` (`CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES`, not sticky), a copy from
/// memory that is no allocation (`CUDA_ERROR_INVALID_VALUE`), a null `cudaFreeHost`, which
/// the runtime passes on to `cuMemFreeHost` (`CUDA_SUCCESS`, as `free(NULL)`), and a kernel
/// fault (`CUDA_ERROR_ILLEGAL_ADDRESS`: not the launch's, so `cudaGetLastError` right after
/// it is `cudaSuccess`, but the next synchronisation's, and sticky from then on: every later
/// call that reaches the driver returns it, on any thread). The runtime returns the driver's number unchanged, so the codes the
/// examples launch_errors.cu, fault.cu and library.cu also check that only the runtime could
/// decide (`cudaErrorInvalidConfiguration`, `cudaErrorInvalidDeviceFunction`, a second
/// `cudaGetLastError`) are not here: see the README's "CUDA C++ programs".
const DRIVER_ERRORS: &str = r#"#include <cstdio>
#include <thread>
__global__ void __launch_bounds__(64) bounded(int* p) { p[threadIdx.x] = 2; }
__global__ void oops(int* p) { p[int(threadIdx.x) - (1 << 24)] = 1; }
#define EXPECT(c) do { if (!(c)) { std::printf("line %d: %s\n", __LINE__, #c); return 1; } } while (0)
int main() {
  int* d;
  EXPECT(cudaMalloc(&d, 64 * sizeof(int)) == cudaSuccess);
  bounded<<<1, 128>>>(d);
  EXPECT(cudaGetLastError() == cudaErrorLaunchOutOfResources);
  int h[8] = {};
  EXPECT(cudaMemcpy(h, (void*)0x10, sizeof h, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
  bounded<<<1, 64>>>(d);
  EXPECT(cudaGetLastError() == cudaSuccess);
  EXPECT(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess);
  for (int i = 0; i < 8; i++) EXPECT(h[i] == 2);
  EXPECT(cudaFreeHost(nullptr) == cudaSuccess);
  oops<<<1, 32>>>(d);
  EXPECT(cudaGetLastError() == cudaSuccess);
  EXPECT(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  EXPECT(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  EXPECT(cudaMemset(d, 0, 4) == cudaErrorIllegalAddress);
  cudaError_t other = cudaSuccess;
  std::thread([&] {
    int* q = nullptr;
    other = cudaMalloc(&q, 16);
  }).join();
  EXPECT(other == cudaErrorIllegalAddress);
  std::printf("PASS\n");
  return 0;
}
"#;

/// The directory holding this build's libcuda.so.1 (the test binary is in <profile>/deps).
fn lib_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?.parent()?.to_path_buf();
    dir.join("libcuda.so.1").exists().then_some(dir)
}

/// What every test here needs: nvcc, this build's libcuda.so.1 and a directory for the
/// programs.
struct Setup {
    nvcc: PathBuf,
    libs: PathBuf,
    out: PathBuf,
}

/// The [`Setup`], or `None` after saying why the test is skipped.
fn setup() -> Option<Setup> {
    let Some(nvcc) = nvcc() else {
        skip("no nvcc 13 (set NVCC or pip install -r cudart/requirements.txt into .venv-nvcc)");
        return None;
    };
    let Some(libs) = lib_dir() else {
        skip("libcuda.so.1 is not built (cargo build --release)");
        return None;
    };
    require_fresh(&libs, "libcuda.so");
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("nvcc-static-test");
    std::fs::create_dir_all(&out).expect("test directory");
    Some(Setup { nvcc, libs, out })
}

#[test]
fn nvcc_default_static_runtime_runs() {
    let Some(Setup { nvcc, libs, out }) = setup() else {
        return;
    };
    for (name, text) in [("reset", RESET), ("driver_errors", DRIVER_ERRORS)] {
        std::fs::write(out.join(format!("{name}.cu")), text).expect("write the program");
    }
    for name in [
        "vector_add",
        "symbols",
        "graph",
        "bad_arguments",
        "reset",
        "driver_errors",
    ] {
        let app = out.join(format!("{name}_static"));
        let source = if matches!(name, "reset" | "driver_errors") {
            out.join(format!("{name}.cu"))
        } else {
            root().join(format!("examples/cuda/{name}.cu"))
        };
        // No --cudart option: nvcc's default, NVIDIA's runtime linked in from
        // libcudart_static.a.
        build(
            &nvcc,
            [
                "-gencode".as_ref(),
                "arch=compute_80,code=compute_80".as_ref(),
                "-o".as_ref(),
                app.as_os_str(),
                source.as_os_str(),
            ],
        );
        for (engine, stderr) in run_on_both_engines(&app, &libs) {
            // Every table the runtime needs is there: no miss or unknown slot is reported.
            assert!(
                !stderr.contains("ptxjit: cuGetExportTable"),
                "{name} ({engine}): {stderr}"
            );
            // The fault is reported where it happened, and nothing else is.
            assert_eq!(
                stderr.contains("ptxjit:"),
                name == "driver_errors",
                "{name} ({engine}): {stderr}"
            );
            if name == "driver_errors" {
                assert!(
                    stderr.contains("fault in kernel 'oops(int*)'"),
                    "{engine}: {stderr}"
                );
            }
        }
        // (graph.cu makes a failing call of its own, cudaGraphExecUpdate.)
        if matches!(name, "vector_add" | "symbols") {
            // Under a tool, the runtime's own driver calls that fail as it expects (its
            // context storage answering "nothing stored", its release of the primary
            // context at thread exit) are no API errors of the program.
            let run = std::process::Command::new(&app)
                .env("LD_LIBRARY_PATH", &libs)
                .env("PTXJIT_TOOL", "memcheck")
                .env_remove("PTXJIT_REPORT_API_ERRORS")
                .output()
                .expect("run the program");
            let stderr = String::from_utf8_lossy(&run.stderr);
            assert!(
                run.status.success()
                    && stderr.contains("========= ERROR SUMMARY: 0 errors")
                    && !stderr.contains("internal error"),
                "{name} under memcheck: {stderr}"
            );
        }
    }
}

/// A program built with nvcc's default architecture (`-arch=sm_75`: `compute_75` PTX beside
/// `sm_75` SASS, so the PTX runs here): a function's PTX version is the PTX's `.target`, 75,
/// the `__CUDA_ARCH__` its code was compiled with, and its binary version the device's 8.0.
/// CUB's dispatch chooses its tuning policy from the PTX version, so a reduction over
/// host-summed values checks that the policy it launches with is its kernels' own.
const DEFAULT_ARCH: &str = r#"#include <cstdio>
#include <cub/device/device_reduce.cuh>
__global__ void arch(int* out) {
#ifdef __CUDA_ARCH__
  *out = __CUDA_ARCH__;
#endif
}
#define EXPECT(c) do { if (!(c)) { std::printf("line %d: %s\n", __LINE__, #c); return 1; } } while (0)
int main() {
  const int n = 10007;
  static int h[n];
  long long want = 0;
  for (int i = 0; i < n; i++) { h[i] = (i * 7919) % 2001 - 1000; want += h[i]; }
  int *d, *sum;
  EXPECT(cudaMalloc(&d, n * sizeof(int)) == cudaSuccess);
  EXPECT(cudaMalloc(&sum, sizeof(int)) == cudaSuccess);
  EXPECT(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice) == cudaSuccess);
  arch<<<1, 1>>>(sum);
  int compiled_for = 0;
  EXPECT(cudaMemcpy(&compiled_for, sum, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  cudaFuncAttributes fa;
  EXPECT(cudaFuncGetAttributes(&fa, arch) == cudaSuccess);
  std::printf("__CUDA_ARCH__ %d ptxVersion %d binaryVersion %d\n", compiled_for, fa.ptxVersion, fa.binaryVersion);
  EXPECT(compiled_for == 750);
  EXPECT(fa.ptxVersion == 75);
  EXPECT(fa.binaryVersion == 80);
  void* tmp = nullptr;
  size_t bytes = 0;
  EXPECT(cub::DeviceReduce::Sum(tmp, bytes, d, sum, n) == cudaSuccess);
  EXPECT(cudaMalloc(&tmp, bytes) == cudaSuccess);
  EXPECT(cub::DeviceReduce::Sum(tmp, bytes, d, sum, n) == cudaSuccess);
  int got = 0;
  EXPECT(cudaMemcpy(&got, sum, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  std::printf("sum %d, host %lld\n", got, want);
  EXPECT(got == want);
  std::printf("PASS\n");
  return 0;
}
"#;

#[test]
fn nvcc_default_arch_reports_the_ptx_target_as_ptx_version() {
    let Some(Setup { nvcc, libs, out }) = setup() else {
        return;
    };
    let source = out.join("default_arch.cu");
    std::fs::write(&source, DEFAULT_ARCH).expect("write the program");
    let app = out.join("default_arch_static");
    // No -gencode or --cudart option: nvcc's defaults.
    build(&nvcc, ["-o".as_ref(), app.as_os_str(), source.as_os_str()]);
    for (engine, stderr) in run_on_both_engines(&app, &libs) {
        assert!(!stderr.contains("ptxjit:"), "{engine}: {stderr}");
    }
}

/// `-rdc=true` programs under NVIDIA's static runtime, which hands the driver the version-2
/// fatbin wrapper nvcc registers (`cuLibraryLoadData`): its fatbin is the device linker's,
/// SASS alone for nvcc's default architecture and no entry at all for
/// `code=compute_80` alone, and the driver loads the linked PTX of the fatbins it lists
/// instead. The programs are examples/cuda/rdc (a kernel calling a device function of
/// another file) and examples/cuda/rdc_symbols (three files: `extern` `__device__`,
/// `__constant__` and `__managed__` variables, reached from the host by symbol), each built
/// both ways, checked against host computations on both engines, and at compute capability
/// 12.1, for which the device runtime's fatbin, also listed, has PTX.
#[test]
fn nvcc_rdc_static_runtime_links_the_translation_units() {
    let Some(Setup { nvcc, libs, out }) = setup() else {
        return;
    };
    for (example, files) in [
        ("rdc", &["main.cu", "helper.cu"][..]),
        ("rdc_symbols", &["main.cu", "helper.cu", "vars.cu"][..]),
    ] {
        for (arch, gencode) in [
            ("default", None),
            ("compute_80", Some("arch=compute_80,code=compute_80")),
        ] {
            let app = out.join(format!("{example}_{arch}_static"));
            let sources: Vec<PathBuf> = files
                .iter()
                .map(|f| root().join(format!("examples/cuda/{example}/{f}")))
                .collect();
            let os = std::ffi::OsStr::new;
            let mut args = vec![os("-rdc=true")];
            if let Some(g) = gencode {
                args.extend([os("-gencode"), os(g)]);
            }
            args.extend([os("-o"), app.as_os_str()]);
            args.extend(sources.iter().map(|s| s.as_os_str()));
            build(&nvcc, args);
            for (engine, stderr) in run_on_both_engines(&app, &libs) {
                assert!(
                    !stderr.contains("ptxjit:"),
                    "{example} {arch} ({engine}): {stderr}"
                );
            }
            // At compute capability 12.1 the device runtime's fatbin (also listed) has PTX
            // for the device, compute_121, which is left out as a cudadevrt link input is.
            let run = std::process::Command::new(&app)
                .env("LD_LIBRARY_PATH", &libs)
                .env("PTXJIT_CC", "12.1")
                .output()
                .expect("run the program");
            let stdout = String::from_utf8_lossy(&run.stdout);
            assert!(
                run.status.success() && stdout.lines().any(|l| l == "PASS"),
                "{example} {arch} at 12.1: {stdout}\n{}",
                String::from_utf8_lossy(&run.stderr)
            );
        }
    }
}

/// Two translation units of an `-rdc=true -lineinfo` program: a kernel that faults in the
/// first, and a kernel that calls a device function of the second, which faults.
const RDC_FAULT_A: &str = r#"#include <cstdio>
#include <cstring>
extern __device__ void put(int* p, int i);
__global__ void own(int* p) { p[threadIdx.x * 1000000] = 1; }
__global__ void other(int* p) { put(p, threadIdx.x); }
int main(int argc, char** argv) {
  int* d = nullptr;
  cudaMalloc(&d, 256);
  if (argc > 1 && !std::strcmp(argv[1], "own")) own<<<1, 32>>>(d); else other<<<1, 32>>>(d);
  std::printf("%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
"#;
const RDC_FAULT_B: &str = r#"__device__ void put(int* p, int i) {
  p[i * 1000000] = 2;
}
"#;

/// Each translation unit's PTX numbers its `.file`s from 1; in the module the driver links
/// from them, a fault names the file of the translation unit the faulting code came from
/// (and each frame of the device call stack its own), not the last unit's file 1. The PTX
/// location is the unit's own PTX and its own line, as `nvcc -ptx` (and `cuobjdump -ptx`)
/// numbers it, not a line of the text the driver linked, which the user never sees.
#[test]
fn nvcc_rdc_fault_names_each_translation_units_own_file() {
    let Some(Setup { nvcc, libs, out }) = setup() else {
        return;
    };
    let dir = out.join("rdc_fault");
    std::fs::create_dir_all(&dir).expect("source directory");
    let (a, b) = (dir.join("fault_a.cu"), dir.join("fault_b.cu"));
    std::fs::write(&a, RDC_FAULT_A).expect("write the source");
    std::fs::write(&b, RDC_FAULT_B).expect("write the source");
    let app = dir.join("app");
    let os = std::ffi::OsStr::new;
    build(
        &nvcc,
        [
            os("-rdc=true"),
            os("-lineinfo"),
            os("-o"),
            app.as_os_str(),
            a.as_os_str(),
            b.as_os_str(),
        ],
    );
    // Each unit's own PTX (nvcc's default architecture, as in the program's fatbins): the
    // 1-based line of the first line that starts with `instruction`.
    let ptx_line = |cu: &std::path::Path, instruction: &str| {
        let ptx = cu.with_extension("ptx");
        build(
            &nvcc,
            [
                os("-ptx"),
                os("-rdc=true"),
                os("-lineinfo"),
                os("-o"),
                ptx.as_os_str(),
                cu.as_os_str(),
            ],
        );
        let text = std::fs::read_to_string(&ptx).expect("nvcc's PTX");
        let at = text
            .lines()
            .position(|l| l.trim_start().starts_with(instruction))
            .unwrap_or_else(|| panic!("no {instruction} in {}", ptx.display()));
        at + 1
    };
    let own_store = ptx_line(&a, "st.global.u32");
    let own_call = ptx_line(&a, "call.uni");
    let put_store = ptx_line(&b, "st.u32");
    let (a, b) = (a.display().to_string(), b.display().to_string());
    for (mode, wants) in [
        (
            "own",
            vec![format!(
                "fault_a.cu):{own_store}:1: fault in kernel 'own(int*)' (_Z3ownPi)"
            )],
        ),
        (
            "other",
            vec![
                format!("fault_b.cu):{put_store}:1: fault in kernel 'other(int*)'"),
                format!(
                    "kernel 'other(int*)' (_Z5otherPi) at cuLibraryLoadData image, linked \
                     fatbin 0 (compute_75 PTX of {a}):{own_call}:1 ({a}:5:30)\n"
                ),
            ],
        ),
        (
            "own",
            vec![format!(
                "fault in kernel 'own(int*)' (_Z3ownPi) at {a}:4:30: "
            )],
        ),
        (
            "other",
            vec![
                format!("in function 'put(int*, int)' (_Z3putPii) at {b}:2:3: "),
                // The kernel's frame of the device call stack: its call of `put`.
                format!(" ({a}:5:30)\n"),
            ],
        ),
    ] {
        let run = std::process::Command::new(&app)
            .arg(mode)
            .env("LD_LIBRARY_PATH", &libs)
            .output()
            .expect("run the program");
        let stdout = String::from_utf8_lossy(&run.stdout);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(
            stdout.contains("cudaErrorIllegalAddress"),
            "{mode}: {stdout}\n{stderr}"
        );
        for want in wants {
            assert!(
                stderr.contains(&want),
                "{mode}: missing {want:?} in:\n{stderr}"
            );
        }
    }
}
