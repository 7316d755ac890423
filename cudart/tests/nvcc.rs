//! A CUDA C++ program built by nvcc 13 runs on this library: examples/cuda/vector_add.cu
//! (which checks its own result against a host computation and prints PASS), built with PTX
//! only and run with ptxjit's libcudart.so.13 and libcuda.so.1 on the library path.
//!
//! Needs nvcc (NVCC, or the one in .venv-nvcc or .ci/venv-nvcc: `pip install -r
//! cudart/requirements.txt`) and the drop-in libraries built (`cargo build --release`).
//! Skipped with a message when either is missing, except under CI=true, where that is a
//! failure. The whole set of examples runs in examples/cuda/run.sh.

use std::path::{Path, PathBuf};
use support::{build, nvcc, require_fresh, root, run_checked, run_on_both_engines, skip};

#[path = "../../cuda/tests/support/nvcc.rs"]
mod support;

/// The directory holding this build's libcudart.so.13 (the test binary is in <profile>/deps).
fn lib_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?.parent()?.to_path_buf();
    (dir.join("libcudart.so.13").exists() && dir.join("libcuda.so.1").exists()).then_some(dir)
}

/// nvcc 13 and this build's libraries, or `None` after skipping the test with a message.
fn toolchain() -> Option<(PathBuf, PathBuf)> {
    let Some(nvcc) = nvcc() else {
        skip("no nvcc 13 (set NVCC or pip install -r cudart/requirements.txt into .venv-nvcc)");
        return None;
    };
    let Some(libs) = lib_dir() else {
        skip("libcudart.so.13 and libcuda.so.1 are not both built (cargo build --release)");
        return None;
    };
    require_fresh(&libs, "libcuda.so");
    require_fresh(&libs, "libcudart.so");
    Some((nvcc, libs))
}

/// Builds `source` (a .cu file) with `--cudart shared` for compute_80 PTX into the test
/// directory as `name`, with `extra` nvcc arguments; gives the program's path.
fn build_shared(nvcc: &Path, name: &str, source: &Path, extra: &[&str]) -> PathBuf {
    build_for(nvcc, "compute_80", name, source, extra)
}

/// [`build_shared`] for PTX of virtual architecture `arch` (`compute_90a`).
fn build_for(nvcc: &Path, arch: &str, name: &str, source: &Path, extra: &[&str]) -> PathBuf {
    let out = test_dir();
    // nvcc links -lcudart against NVIDIA's library, which sits in lib/ beside bin/.
    let nvlib = out.join("nvlib");
    std::fs::create_dir_all(&nvlib).expect("nvlib directory");
    let cu_lib = nvcc
        .parent()
        .and_then(Path::parent)
        .expect("nvcc's toolkit")
        .join("lib/libcudart.so.13");
    let link = nvlib.join("libcudart.so");
    if std::fs::read_link(&link).ok().as_deref() != Some(cu_lib.as_path()) {
        let _ = std::fs::remove_file(&link);
        // Another test may have made it meanwhile.
        let _ = std::os::unix::fs::symlink(&cu_lib, &link);
    }
    let app = out.join(name);
    let libflag = format!("-L{}", nvlib.display());
    let gencode = format!("arch={arch},code={arch}");
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "--cudart".as_ref(),
        "shared".as_ref(),
        "-gencode".as_ref(),
        gencode.as_ref(),
        "-o".as_ref(),
        app.as_os_str(),
        source.as_os_str(),
        libflag.as_ref(),
    ];
    args.extend(extra.iter().map(|a| std::ffi::OsStr::new(*a)));
    build(nvcc, args);
    app
}

/// The directory the tests build their programs in.
fn test_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("nvcc-test");
    std::fs::create_dir_all(&dir).expect("test directory");
    dir
}

/// Writes `source` (CUDA C++) to the test directory as `name.cu` and builds it there as
/// `name` ([`build_shared`], with `extra` nvcc arguments): the program and the directory of
/// the drop-in libraries, or `None` after skipping the test (no nvcc or libraries).
fn built(name: &str, source: &str, extra: &[&str]) -> Option<(PathBuf, PathBuf)> {
    let (nvcc, libs) = toolchain()?;
    let src = test_dir().join(format!("{name}.cu"));
    std::fs::write(&src, source).expect("write the source");
    Some((build_shared(&nvcc, name, &src, extra), libs))
}

/// [`built`], then [`run_on_both_engines`]: each engine's stderr, or `None` after skipping
/// the test.
fn build_and_run(name: &str, source: &str, extra: &[&str]) -> Option<Vec<(&'static str, String)>> {
    let (app, libs) = built(name, source, extra)?;
    Some(run_on_both_engines(&app, &libs))
}

#[test]
fn nvcc_vector_add_runs_on_the_drop_in() {
    let Some((nvcc, libs)) = toolchain() else {
        return;
    };
    let app = build_shared(
        &nvcc,
        "vector_add",
        &root().join("examples/cuda/vector_add.cu"),
        &[],
    );
    run_on_both_engines(&app, &libs);
}

/// Failing runtime and driver calls, and peer access on ptxjit's one device. The codes are
/// the documented ones (CUDA Runtime API: Peer Device Memory Access; a device is not its own
/// peer, as NVIDIA's drivers answer); the program checks them itself and prints PASS.
const API_ERRORS: &str = r#"#include <cstdio>
#include <dlfcn.h>
#define EXPECT(c) do { if (!(c)) { std::printf("line %d: %s\n", __LINE__, #c); return 1; } } while (0)
typedef int (*mem_free_t)(unsigned long long);
int main() {
  void* d = nullptr;
  // Runtime calls that fail.
  EXPECT(cudaMalloc(&d, (size_t)1 << 60) == cudaErrorMemoryAllocation);
  EXPECT(cudaSetDevice(7) == cudaErrorInvalidDevice);
  // Reads the last error: no failure of its own.
  EXPECT(cudaGetLastError() == cudaErrorInvalidDevice);
  // The runtime's driver call fails as it expects (a host pointer is no device memory); the
  // runtime call succeeds.
  int host = 0;
  cudaPointerAttributes a;
  EXPECT(cudaPointerGetAttributes(&a, &host) == cudaSuccess);
  EXPECT(a.type == cudaMemoryTypeUnregistered);
  // Peer access: device 0 with itself, a device that does not exist, flags other than 0,
  // disabling what was never enabled.
  int can = -1;
  EXPECT(cudaDeviceCanAccessPeer(&can, 0, 0) == cudaSuccess && can == 0);
  EXPECT(cudaDeviceCanAccessPeer(&can, 0, 1) == cudaErrorInvalidDevice);
  EXPECT(cudaDeviceEnablePeerAccess(0, 0) == cudaErrorInvalidDevice);
  EXPECT(cudaDeviceEnablePeerAccess(1, 0) == cudaErrorInvalidDevice);
  EXPECT(cudaDeviceEnablePeerAccess(0, 1) == cudaErrorInvalidValue);
  EXPECT(cudaDeviceDisablePeerAccess(0) == cudaErrorPeerAccessNotEnabled);
  EXPECT(cudaDeviceDisablePeerAccess(1) == cudaErrorInvalidDevice);
  EXPECT(cudaMemcpyPeer(d, 0, d, 3, 0) == cudaErrorInvalidDevice);
  // A driver call the program makes itself (CUDA_ERROR_INVALID_VALUE: no allocation there).
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW);
  mem_free_t mem_free = cuda ? (mem_free_t)dlsym(cuda, "cuMemFree_v2") : nullptr;
  EXPECT(mem_free && mem_free(0x10) == 1);
  std::printf("PASS\n");
  return 0;
}
"#;

/// Builds [`API_ERRORS`] once for the tests that run it (`None` after skipping): the tests run
/// in parallel, and rebuilding the program while another test runs it fails that run with
/// `ETXTBSY`.
fn api_errors_program() -> Option<(PathBuf, PathBuf)> {
    static BUILT: std::sync::OnceLock<Option<(PathBuf, PathBuf)>> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| built("api_errors", API_ERRORS, &["-ldl"]))
        .clone()
}

/// Runs `app` under memcheck with `PTXJIT_REPORT_API_ERRORS` set to `mode` when given:
/// (exit status, stdout, stderr).
fn under_memcheck(app: &Path, libs: &Path, mode: Option<&str>) -> (Option<i32>, String, String) {
    let mut cmd = std::process::Command::new(app);
    cmd.env("LD_LIBRARY_PATH", libs)
        .env("PTXJIT_TOOL", "memcheck")
        .env_remove("PTXJIT_REPORT_API_ERRORS");
    if let Some(m) = mode {
        cmd.env("PTXJIT_REPORT_API_ERRORS", m);
    }
    let out = cmd.output().expect("run the program");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn peer_access_answers_as_documented_for_one_device() {
    let Some((app, libs)) = api_errors_program() else {
        return;
    };
    run_on_both_engines(&app, &libs);
}

#[test]
fn memcheck_reports_the_failed_api_calls_the_program_made() {
    let Some((app, libs)) = api_errors_program() else {
        return;
    };
    let (code, stdout, err) = under_memcheck(&app, &libs, None);
    assert!(stdout.contains("PASS"), "{stdout}\n{err}");
    // compute-sanitizer's line for each failed call, under the name the program called.
    for want in [
        "========= Program hit cudaErrorMemoryAllocation (error 2) due to \"out of memory\" on CUDA API call to cudaMalloc.\n=========     cuMemAlloc_v2 returned CUDA_ERROR_OUT_OF_MEMORY",
        "========= Program hit cudaErrorInvalidDevice (error 101) due to \"invalid device ordinal\" on CUDA API call to cudaSetDevice.\n",
        "========= Program hit cudaErrorInvalidDevice (error 101) due to \"invalid device ordinal\" on CUDA API call to cudaDeviceEnablePeerAccess.\n",
        "========= Program hit cudaErrorInvalidValue (error 1) due to \"invalid argument\" on CUDA API call to cudaDeviceEnablePeerAccess.\n",
        "========= Program hit cudaErrorPeerAccessNotEnabled (error 705) due to \"peer access has not been enabled\" on CUDA API call to cudaDeviceDisablePeerAccess.\n",
        "========= Program hit cudaErrorInvalidDevice (error 101) due to \"invalid device ordinal\" on CUDA API call to cudaMemcpyPeer.\n",
        "========= Program hit CUDA_ERROR_INVALID_VALUE (error 1) due to \"invalid argument\" on CUDA API call to cuMemFree_v2.\n",
    ] {
        assert!(err.contains(want), "missing {want:?} in:\n{err}");
    }
    // Not the runtime's own driver calls, nor the one it expects to fail.
    assert!(!err.contains("cuPointerGetAttribute"), "{err}");
    assert!(!err.contains("on CUDA API call to cuMemAlloc"), "{err}");
    assert!(
        !err.contains("on CUDA API call to cudaGetLastError"),
        "{err}"
    );
    // cudaMalloc, cudaSetDevice, cudaDeviceCanAccessPeer, 3 enables, 2 disables,
    // cudaMemcpyPeer, cuMemFree_v2.
    assert!(err.contains("========= ERROR SUMMARY: 10 errors"), "{err}");
    assert_eq!(code, Some(2), "{err}");
}

#[test]
fn report_api_errors_no_and_all() {
    let Some((app, libs)) = api_errors_program() else {
        return;
    };
    let (code, stdout, err) = under_memcheck(&app, &libs, Some("no"));
    assert!(stdout.contains("PASS"), "{stdout}\n{err}");
    assert!(!err.contains("Program hit"), "{err}");
    assert!(err.contains("========= ERROR SUMMARY: 0 errors"), "{err}");
    assert_eq!(code, Some(0), "{err}");
    // `all`: also the driver calls the runtime made, the expected failure among them.
    let (code, _, err) = under_memcheck(&app, &libs, Some("all"));
    for want in [
        "on CUDA API call to cuPointerGetAttribute (made by the runtime).\n",
        "on CUDA API call to cuMemAlloc_v2 (made by the runtime).\n",
        "on CUDA API call to cudaMalloc.",
    ] {
        assert!(err.contains(want), "missing {want:?} in:\n{err}");
    }
    assert_eq!(code, Some(2), "{err}");
}

/// Launches and copies the runtime refuses itself, before the driver sees them: a block of
/// 2048 threads (twice), a grid of 70000 in y, a block of 128 in z (each
/// `cudaErrorInvalidConfiguration`, CUDA Runtime API: `cudaLaunchKernel`), a copy past the
/// end of a `__device__` symbol (`cudaErrorInvalidValue`) and a copy kind that is none of
/// `cudaMemcpyKind`'s (`cudaErrorInvalidMemcpyDirection`), 64 KiB of dynamic shared memory
/// before `cudaFuncSetAttribute` raised the kernel's 48 KiB default (`cudaErrorInvalidValue`,
/// NVIDIA's "invalid argument"; after it the launch runs); then a launch that runs. The
/// program checks the codes itself and prints PASS.
const REFUSED: &str = r#"#include <cstdio>
#define EXPECT(c) do { if (!(c)) { std::printf("line %d: %s\n", __LINE__, #c); return 1; } } while (0)
__device__ int sym[4];
__global__ void fill(int* p) { p[threadIdx.x] = threadIdx.x; }
__global__ void shm(int* p) { extern __shared__ int s[]; s[threadIdx.x] = 1; p[0] = s[0]; }
int main() {
  int* d = nullptr;
  EXPECT(cudaMalloc(&d, 4096) == cudaSuccess);
  for (int i = 0; i < 2; ++i) {
    fill<<<1, 2048>>>(d);
    EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
  }
  fill<<<dim3(1, 70000), 32>>>(d);
  EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
  fill<<<1, dim3(8, 1, 128)>>>(d);
  EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
  // 64 KiB of dynamic shared memory needs the kernel's attribute raised first.
  shm<<<1, 32, 65536>>>(d);
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
  EXPECT(cudaFuncSetAttribute(shm, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536) == cudaSuccess);
  shm<<<1, 32, 65536>>>(d);
  EXPECT(cudaGetLastError() == cudaSuccess);
  int h[8] = {};
  EXPECT(cudaMemcpyToSymbol(sym, h, 32) == cudaErrorInvalidValue);
  EXPECT(cudaMemcpy(d, h, 16, (cudaMemcpyKind)7) == cudaErrorInvalidMemcpyDirection);
  fill<<<1, 32>>>(d);
  EXPECT(cudaDeviceSynchronize() == cudaSuccess);
  EXPECT(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess);
  for (int i = 0; i < 8; ++i) EXPECT(h[i] == i);
  std::printf("PASS\n");
  return 0;
}
"#;

/// A refused launch says why on stderr, naming the kernel, once per distinct reason (as
/// ptxjit's driver does for the launches it refuses), where the runtime alone gives only the
/// code; and under a tool each refused call's report gives the runtime's reason on its second
/// line, under the name of the API function (`cudaLaunchKernel`, as compute-sanitizer names
/// the call nvcc's `<<<...>>>` makes).
#[test]
fn refused_launches_and_copies_say_why() {
    let Some((app, libs)) = built("refused", REFUSED, &[]) else {
        return;
    };
    let kernel = "kernel 'fill(int*)' (_Z4fillPi)";
    // 166912: compute capability 8.0's 163 KiB opt-in limit (the default device's).
    let shared = "kernel 'shm(int*)' (_Z3shmPi): 65536 bytes of dynamic shared memory exceed \
                  the kernel's limit of 49152 bytes (its cudaFuncAttributeMaxDynamicSharedMemorySize; \
                  it has 0 bytes of static shared memory); call cudaFuncSetAttribute(kernel, \
                  cudaFuncAttributeMaxDynamicSharedMemorySize, 65536) before the launch to allow \
                  more (up to 166912 bytes on this device)";
    for (engine, err) in run_on_both_engines(&app, &libs) {
        // The runtime call the program made and the runtime's code, not the driver's.
        assert!(!err.contains("cuLaunchKernel"), "{engine}: {err}");
        for want in [
            format!("ptxjit: cudaLaunchKernel: {shared} (cudaErrorInvalidValue)\n"),
            format!("ptxjit: cudaLaunchKernel: {kernel}: blockDim.x = 2048 (1 to 1024) (cudaErrorInvalidConfiguration)\n"),
            format!("ptxjit: cudaLaunchKernel: {kernel}: gridDim.y = 70000 (1 to 65535) (cudaErrorInvalidConfiguration)\n"),
            format!("ptxjit: cudaLaunchKernel: {kernel}: blockDim.z = 128 (1 to 64) (cudaErrorInvalidConfiguration)\n"),
        ] {
            assert_eq!(err.matches(&want).count(), 1, "{engine}: want {want:?} once in:\n{err}");
        }
    }
    let (code, stdout, err) = under_memcheck(&app, &libs, None);
    assert!(stdout.contains("PASS"), "{stdout}\n{err}");
    let hit = |code: &str, n: u32, what: &str, call: &str| {
        format!("========= Program hit {code} (error {n}) due to \"{what}\" on CUDA API call to {call}.\n=========     ")
    };
    let config = hit(
        "cudaErrorInvalidConfiguration",
        9,
        "invalid configuration argument",
        "cudaLaunchKernel",
    );
    for want in [
        format!("{config}{kernel}: blockDim.x = 2048 (1 to 1024)\n"),
        format!("{config}{kernel}: gridDim.y = 70000 (1 to 65535)\n"),
        format!("{config}{kernel}: blockDim.z = 128 (1 to 64)\n"),
        format!(
            "{}{shared}\n",
            hit(
                "cudaErrorInvalidValue",
                1,
                "invalid argument",
                "cudaLaunchKernel"
            )
        ),
        format!(
            "{}32 bytes at offset 0 of a 16-byte symbol\n",
            hit(
                "cudaErrorInvalidValue",
                1,
                "invalid argument",
                "cudaMemcpyToSymbol"
            )
        ),
        format!(
            "{}cudaMemcpyKind 7\n",
            hit(
                "cudaErrorInvalidMemcpyDirection",
                21,
                "invalid copy direction for memcpy",
                "cudaMemcpy"
            )
        ),
    ] {
        assert!(err.contains(&want), "missing {want:?} in:\n{err}");
    }
    // Under the tool the reasons are in its reports only.
    assert!(!err.contains("ptxjit: cudaLaunchKernel:"), "{err}");
    // The 2048-thread launch twice, the other three launches, the two copies.
    assert!(err.contains("========= ERROR SUMMARY: 7 errors"), "{err}");
    assert_eq!(code, Some(2), "{err}");
}

/// Empty pitched and 3D allocations: NVIDIA's CUDA 13 runtime (nvcc's default static
/// `libcudart`, run over this driver, which it does not ask) answers `cudaSuccess` with a null
/// pointer and a pitch of 0, keeping the extent's width and height, as `cudaMalloc(&p, 0)`
/// answers a null pointer. The program checks this itself and prints PASS.
const EMPTY_PITCHED: &str = r#"#include <cstdio>
#define EXPECT(c) do { if (!(c)) { std::printf("line %d: %s\n", __LINE__, #c); return 1; } } while (0)
int main() {
  size_t widths[] = {0, 16, 0}, heights[] = {4, 0, 0};
  for (int i = 0; i < 3; ++i) {
    void* p = (void*)0x1234;
    size_t pitch = 77;
    EXPECT(cudaMallocPitch(&p, &pitch, widths[i], heights[i]) == cudaSuccess);
    EXPECT(p == nullptr && pitch == 0);
    EXPECT(cudaFree(p) == cudaSuccess);
  }
  size_t extents[][3] = {{0, 4, 4}, {16, 0, 4}, {16, 4, 0}, {0, 0, 0}};
  for (auto& e : extents) {
    cudaPitchedPtr pp{(void*)0x1234, 77, 77, 77};
    EXPECT(cudaMalloc3D(&pp, make_cudaExtent(e[0], e[1], e[2])) == cudaSuccess);
    EXPECT(pp.ptr == nullptr && pp.pitch == 0 && pp.xsize == e[0] && pp.ysize == e[1]);
  }
  // A non-empty one still allocates.
  void* p = nullptr;
  size_t pitch = 0;
  EXPECT(cudaMallocPitch(&p, &pitch, 100, 3) == cudaSuccess && p != nullptr && pitch >= 100);
  EXPECT(cudaFree(p) == cudaSuccess);
  std::printf("PASS\n");
  return 0;
}
"#;

#[test]
fn empty_pitched_allocations_are_null_as_on_nvidias_runtime() {
    build_and_run("empty_pitched", EMPTY_PITCHED, &[]);
}

/// Zero-byte managed and pinned allocations and failed CUDA array allocations, as NVIDIA's
/// CUDA 13 runtime answers them (nvcc's default static `libcudart`, run over this driver,
/// which these answers do not reach): a zero-byte `cudaMallocManaged`, `cudaMallocHost` or
/// `cudaHostAlloc` is `cudaSuccess` with a null pointer, whatever the flags (the reference
/// manual says `cudaErrorInvalidValue` for `cudaMallocManaged`); a failed `cudaMallocArray` or
/// `cudaMalloc3DArray` leaves NULL in `*array`. The program checks this itself and prints PASS.
const ZERO_BYTES: &str = r#"#include <cstdio>
#define EXPECT(c) do { if (!(c)) { std::printf("line %d: %s\n", __LINE__, #c); return 1; } } while (0)
int main() {
  void* p = (void*)0x1234;
  EXPECT(cudaMallocManaged(&p, 0) == cudaSuccess && p == nullptr);
  p = (void*)0x1234;
  EXPECT(cudaMallocManaged(&p, 0, 7) == cudaSuccess && p == nullptr);
  p = (void*)0x1234;
  EXPECT(cudaMallocHost(&p, 0) == cudaSuccess && p == nullptr);
  p = (void*)0x1234;
  EXPECT(cudaHostAlloc(&p, 0, cudaHostAllocMapped) == cudaSuccess && p == nullptr);
  EXPECT(cudaMallocManaged(nullptr, 0) == cudaErrorInvalidValue);
  EXPECT(cudaHostAlloc(nullptr, 0, 0) == cudaErrorInvalidValue);
  cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
  cudaChannelFormatDesc bad = cudaCreateChannelDesc(3, 0, 0, 0, cudaChannelFormatKindFloat);
  cudaArray_t a = (cudaArray_t)0x1234;
  EXPECT(cudaMallocArray(&a, &f, 0, 0) == cudaErrorInvalidValue && a == nullptr);
  a = (cudaArray_t)0x1234;
  EXPECT(cudaMallocArray(&a, &bad, 4, 4) == cudaErrorInvalidChannelDescriptor && a == nullptr);
  a = (cudaArray_t)0x1234;
  EXPECT(cudaMallocArray(&a, &f, 1 << 20, 1 << 20) == cudaErrorMemoryAllocation && a == nullptr);
  a = (cudaArray_t)0x1234;
  EXPECT(cudaMalloc3DArray(&a, &f, make_cudaExtent(4, 0, 4)) == cudaErrorInvalidValue && a == nullptr);
  EXPECT(cudaFreeArray(a) == cudaSuccess);
  // Non-empty ones still allocate.
  EXPECT(cudaMallocManaged(&p, 64) == cudaSuccess && p != nullptr);
  EXPECT(cudaFree(p) == cudaSuccess);
  EXPECT(cudaMallocHost(&p, 64) == cudaSuccess && p != nullptr);
  EXPECT(cudaFreeHost(p) == cudaSuccess);
  EXPECT(cudaMallocArray(&a, &f, 4, 4) == cudaSuccess && a != nullptr);
  EXPECT(cudaFreeArray(a) == cudaSuccess);
  std::printf("PASS\n");
  return 0;
}
"#;

#[test]
fn zero_byte_allocations_and_failed_arrays_answer_as_nvidias_runtime() {
    build_and_run("zero_bytes", ZERO_BYTES, &[]);
}

/// A faulting launch, as on a GPU: the launch returns `cudaSuccess` (so do
/// `cudaPeekAtLastError` and `cudaGetLastError` right after it) and the next call that waits
/// for the work returns the sticky error (CUDA Runtime API, `cudaLaunchKernel`: "may also
/// return error codes from previous, asynchronous launches"), which every later call
/// returns; a launch the runtime or driver refuses (too many threads, too much shared
/// memory) still returns its error from the launch. `argv[1]` picks the call that returns
/// the fault; the program checks the codes itself and prints PASS.
const ASYNC_FAULT: &str = r#"#include <cstdio>
#include <cstring>
#define EXPECT(c) do { if (!(c)) { std::printf("line %d: %s\n", __LINE__, #c); return 1; } } while (0)
__global__ void oops(int* p) { p[int(threadIdx.x) - (1 << 24)] = 1; }
__global__ void trapper() { if (threadIdx.x == 5) __trap(); }
__global__ void shm(int* p) { extern __shared__ int s[]; s[threadIdx.x] = 1; p[0] = s[0]; }
int main(int argc, char** argv) {
  const char* m = argv[1];
  int* d;
  EXPECT(cudaMalloc(&d, 256) == cudaSuccess);
  // Refused launches still fail at the launch.
  shm<<<1, 32, 200 * 1024>>>(d);
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
  shm<<<1, 2048, 4>>>(d);
  EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
  cudaError_t want = cudaErrorIllegalAddress;
  cudaStream_t s;
  EXPECT(cudaStreamCreate(&s) == cudaSuccess);
  cudaEvent_t ev;
  EXPECT(cudaEventCreate(&ev) == cudaSuccess);
  if (!strcmp(m, "trap")) {
    want = cudaErrorLaunchFailure;
    trapper<<<2, 32>>>();
  } else if (!strcmp(m, "ex")) {
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(1);
    c.blockDim = dim3(32);
    EXPECT(cudaLaunchKernelEx(&c, oops, d) == cudaSuccess);
  } else {
    oops<<<1, 32, 0, s>>>(d);
  }
  EXPECT(cudaPeekAtLastError() == cudaSuccess);
  EXPECT(cudaGetLastError() == cudaSuccess);
  int h = 0;
  if (!strcmp(m, "stream")) EXPECT(cudaStreamSynchronize(s) == want);
  else if (!strcmp(m, "memcpy")) EXPECT(cudaMemcpy(&h, d, 4, cudaMemcpyDeviceToHost) == want);
  else if (!strcmp(m, "event")) {
    // Recording an event queues it behind the kernel; waiting for it returns the fault.
    EXPECT(cudaEventRecord(ev, s) == cudaSuccess);
    EXPECT(cudaEventSynchronize(ev) == want);
  } else if (!strcmp(m, "query")) EXPECT(cudaStreamQuery(s) == want);
  else if (!strcmp(m, "twice")) {
    // A second launch before anything waits is taken too (it does not run).
    oops<<<1, 32, 0, s>>>(d);
    EXPECT(cudaGetLastError() == cudaSuccess);
    EXPECT(cudaDeviceSynchronize() == want);
  } else EXPECT(cudaDeviceSynchronize() == want);
  EXPECT(cudaPeekAtLastError() == want);
  EXPECT(cudaGetLastError() == want);
  EXPECT(cudaGetLastError() == want);
  // Later launches return it at once.
  shm<<<1, 32, 4>>>(d);
  EXPECT(cudaGetLastError() == want);
  EXPECT(cudaDeviceSynchronize() == want);
  std::printf("PASS\n");
  return 0;
}
"#;

#[test]
fn a_kernel_fault_comes_from_the_next_synchronising_call() {
    let Some((app, libs)) = built("async_fault", ASYNC_FAULT, &[]) else {
        return;
    };
    for engine in ["jit", "interp"] {
        for mode in [
            "device", "stream", "memcpy", "event", "query", "twice", "trap", "ex",
        ] {
            let stderr = run_checked(&app, &libs, engine, &[mode], &[]);
            // The fault's report is on stderr all the same.
            assert!(
                stderr.contains("fault in kernel") || stderr.contains("trap"),
                "{mode}: {stderr}"
            );
        }
    }
}

/// A fault in a program built without `-lineinfo` is located in the PTX nvcc embedded in it
/// (`cuModuleLoadData image (compute_80 PTX):LINE:COL`), a file the user never sees: the
/// report says so and how to get a source line (`nvcc -lineinfo`) or the PTX
/// (`PTXJIT_DUMP_PTX=DIR`). With that set, the report names the written file, whose line
/// it gives holds the faulting store (`oops`'s `p[threadIdx.x - (1 << 24)] = 1`).
#[test]
fn a_fault_without_lineinfo_says_how_to_see_the_source_or_the_ptx() {
    let Some((app, libs)) = built("fault_no_lineinfo", ASYNC_FAULT, &[]) else {
        return;
    };
    let dump = test_dir().join("fault_no_lineinfo-ptx");
    let _ = std::fs::remove_dir_all(&dump);
    let dump_dir = dump.to_str().expect("a UTF-8 path");
    for dumping in [false, true] {
        let env: &[(&str, &str)] = if dumping {
            &[("PTXJIT_DUMP_PTX", dump_dir)]
        } else {
            &[]
        };
        let stderr = run_checked(&app, &libs, "jit", &["device"], env);
        let fault = stderr
            .lines()
            .find(|l| l.contains("fault in kernel 'oops(int*)'"))
            .unwrap_or_else(|| panic!("no fault report in:\n{stderr}"));
        if !dumping {
            let image = "cuModuleLoadData image (compute_80 PTX)";
            assert!(fault.starts_with(&format!("ptxjit: {image}:")), "{fault}");
            let note = format!(
                "ptxjit: '{image}' is the PTX the program loaded from memory (there is no such \
                 file), and the kernel has no line information: rebuild with `nvcc -lineinfo` (numba: \
                 `@cuda.jit(lineinfo=True)`) to have the report name the source line, or run \
                 with PTXJIT_DUMP_PTX=DIR to have ptxjit write each PTX text it loads to a file \
                 in DIR, which the report then names\n"
            );
            assert_eq!(stderr.matches(&note).count(), 1, "{stderr}");
            continue;
        }
        // `ptxjit: DIR/ptxjit-PID-N.ptx:LINE:COL: fault in kernel …`
        let at = fault.strip_prefix("ptxjit: ").expect("prefix");
        let at = &at[..at.find(": fault").expect("location")];
        let mut parts = at.rsplitn(3, ':');
        let (_col, line, file) = (parts.next(), parts.next(), parts.next());
        let (line, file): (usize, &str) = (line.unwrap().parse().expect("line"), file.unwrap());
        assert!(
            file.starts_with(dump.to_str().unwrap()) && file.ends_with(".ptx"),
            "{fault}"
        );
        assert!(
            stderr.contains(&format!(
                "ptxjit: PTXJIT_DUMP_PTX: cuModuleLoadData image (compute_80 PTX) is {file}\n"
            )),
            "{stderr}"
        );
        let text = std::fs::read_to_string(file).expect("the dumped PTX");
        let source_line = text.lines().nth(line - 1).expect("the reported line");
        assert!(
            source_line.trim_start().starts_with("st.global"),
            "{source_line}"
        );
        assert!(text.contains(".entry _Z4oopsPi"), "{text}");
        // No note: the report names a file there is.
        assert!(
            !stderr.contains("is the PTX the program loaded from memory"),
            "{stderr}"
        );
    }
}

/// `cudaGetDeviceFlags` includes `cudaDeviceMapHost` whatever was set: "All contexts as of
/// CUDA 3.2 behave as though the flag is enabled" (CUDA Driver API, deprecated
/// `CU_CTX_MAP_HOST`), and the runtime documents that the flags it returns may include it
/// "because it is implicit in runtime API flags"; the scheduling flag is the one set, before
/// and after the primary context is active, and a context the program made current through
/// the driver API gives its own flags. NVIDIA's runtime (`--cudart static`) over ptxjit's
/// driver gives the same answers as ptxjit's runtime.
const DEVICE_FLAGS: &str = r#"#include <cstdio>
#include <dlfcn.h>
#define EXPECT(c) do { if (!(c)) { std::printf("line %d: %s\n", __LINE__, #c); return 1; } } while (0)
typedef int (*ctx_create_t)(void**, unsigned, int);
typedef int (*ctx_t)(void*);
int main() {
  unsigned f = 99;
  EXPECT(cudaGetDeviceFlags(&f) == cudaSuccess && f == (cudaDeviceScheduleAuto | cudaDeviceMapHost));
  EXPECT(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) == cudaSuccess);
  EXPECT(cudaGetDeviceFlags(&f) == cudaSuccess && f == (cudaDeviceScheduleBlockingSync | cudaDeviceMapHost));
  EXPECT(cudaFree(0) == cudaSuccess);
  EXPECT(cudaGetDeviceFlags(&f) == cudaSuccess && f == (cudaDeviceScheduleBlockingSync | cudaDeviceMapHost));
  EXPECT(cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceMapHost) == cudaSuccess);
  EXPECT(cudaGetDeviceFlags(&f) == cudaSuccess && f == (cudaDeviceScheduleSpin | cudaDeviceMapHost));
  // A driver API context with CU_CTX_SCHED_YIELD, current to the thread.
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW);
  ctx_create_t create = cuda ? (ctx_create_t)dlsym(cuda, "cuCtxCreate_v2") : nullptr;
  ctx_t destroy = cuda ? (ctx_t)dlsym(cuda, "cuCtxDestroy_v2") : nullptr;
  void* ctx = nullptr;
  EXPECT(create && destroy && create(&ctx, 2, 0) == 0);
  EXPECT(cudaGetDeviceFlags(&f) == cudaSuccess && f == (cudaDeviceScheduleYield | cudaDeviceMapHost));
  EXPECT(destroy(ctx) == 0);
  std::printf("PASS\n");
  return 0;
}
"#;

#[test]
fn device_flags_include_map_host_on_both_runtimes() {
    let Some((app, libs)) = built("device_flags", DEVICE_FLAGS, &["-ldl"]) else {
        return;
    };
    run_on_both_engines(&app, &libs);
    let nvcc = nvcc().expect("nvcc, found by built");
    let (src, nvidia) = (
        test_dir().join("device_flags.cu"),
        test_dir().join("device_flags_static"),
    );
    build(
        &nvcc,
        [
            "--cudart".as_ref(),
            "static".as_ref(),
            "-gencode".as_ref(),
            "arch=compute_80,code=compute_80".as_ref(),
            "-o".as_ref(),
            nvidia.as_os_str(),
            src.as_os_str(),
            "-ldl".as_ref(),
        ] as [&std::ffi::OsStr; 8],
    );
    run_on_both_engines(&nvidia, &libs);
}

/// Refusals and faults whose reports a CUDA programmer reads: a launch on a destroyed stream
/// (`cudaLaunchKernel` and `<<<...>>>`: `cudaErrorInvalidResourceHandle`, CUDA Runtime API),
/// a 32-byte `cudaMemcpy` from a 16-byte `cudaMalloc` (NVIDIA's allocator would hand over
/// whatever lies after the 16 bytes; ptxjit refuses, `cudaErrorInvalidValue`), a shared
/// memory load past the CTA's 256 static + 128 dynamic bytes (mode `shared`), and a store far
/// past a `__device__` array in a module whose `printf` made nvcc's `$str` string (mode
/// `wild`).
const REPORTED: &str = r#"#include <cstdio>
#include <cstring>
#define EXPECT(c) do { if (!(c)) { std::printf("line %d: %s\n", __LINE__, #c); return 1; } } while (0)
__device__ int data[4];
__global__ void fill(int* p) { p[threadIdx.x] = threadIdx.x; }
__global__ void say(int v) { if (v < 0) printf("never %d\n", v); }
__global__ void wild(int* p, long off) { p[off] = 1; }
__global__ void tile(int* out, int i) {
  __shared__ int s[64];
  extern __shared__ int more[];
  s[threadIdx.x] = threadIdx.x;
  more[threadIdx.x] = 1;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x + i];
}
int main(int argc, char** argv) {
  int* d = nullptr;
  EXPECT(cudaMalloc(&d, 128) == cudaSuccess);
  if (argc > 1 && !strcmp(argv[1], "shared")) {
    tile<<<1, 32, 128>>>(d, 90);
    EXPECT(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  } else if (argc > 1 && !strcmp(argv[1], "wild")) {
    say<<<1, 1>>>(1);
    int* p;
    EXPECT(cudaGetSymbolAddress((void**)&p, data) == cudaSuccess);
    wild<<<1, 1>>>(p, atol(argv[2]));
    EXPECT(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  } else {
    cudaStream_t s;
    EXPECT(cudaStreamCreate(&s) == cudaSuccess);
    EXPECT(cudaStreamDestroy(s) == cudaSuccess);
    void* args[] = {&d};
    EXPECT(cudaLaunchKernel((const void*)fill, dim3(1), dim3(32), args, 0, s) == cudaErrorInvalidResourceHandle);
    fill<<<1, 32, 0, s>>>(d);
    EXPECT(cudaGetLastError() == cudaErrorInvalidResourceHandle);
    char* small = nullptr;
    char h[32] = {};
    EXPECT(cudaMalloc(&small, 16) == cudaSuccess);
    EXPECT(cudaMemcpy(h, small, 32, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
    EXPECT(cudaMemcpy(h, small, 16, cudaMemcpyDeviceToHost) == cudaSuccess);
    fill<<<1, 32>>>(d);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
  }
  std::printf("PASS\n");
  return 0;
}
"#;

/// Each refusal says why in one line naming the runtime call the program made (not the
/// driver's), once, and under memcheck on the line after its "Program hit" line (not the
/// driver calls the runtime made to find the reason); a shared-memory fault gives the CTA's shared size; a wild store's
/// neighbours are the program's variables, never nvcc's own strings.
#[test]
fn refusals_and_fault_reports_name_what_the_program_wrote() {
    let Some((app, libs)) = built("reported", REPORTED, &["-lineinfo"]) else {
        return;
    };
    for (engine, err) in run_on_both_engines(&app, &libs) {
        assert!(!err.contains("cuLaunchKernel"), "{engine}: {err}");
        let stream = "ptxjit: cudaLaunchKernel: kernel 'fill(int*)' (_Z4fillPi): stream ";
        let dead = " is not a live stream (destroyed, or never created) \
                    (cudaErrorInvalidResourceHandle)\n";
        assert_eq!(err.lines().count(), 2, "{engine}: {err}");
        assert!(
            err.starts_with(stream) && err.contains(dead),
            "{engine}: {err}"
        );
        assert!(
            err.contains("ptxjit: cudaMemcpy: the source, 32 bytes at 0x")
                && err.contains(", runs 16 bytes past the end of its 16-byte allocation at 0x")
                && err.ends_with(" (cudaErrorInvalidValue)\n"),
            "{engine}: {err}"
        );
    }
    // Under memcheck, each refused launch's second line is the runtime's reason, not the
    // failure of the driver call the runtime made to check the stream.
    let (code, stdout, err) = under_memcheck(&app, &libs, None);
    assert!(stdout.contains("PASS"), "{stdout}\n{err}");
    let hit = "========= Program hit cudaErrorInvalidResourceHandle (error 400) due to \"invalid \
               resource handle\" on CUDA API call to cudaLaunchKernel.\n=========     kernel \
               'fill(int*)' (_Z4fillPi): stream ";
    assert_eq!(err.matches(hit).count(), 2, "{err}");
    assert!(
        err.contains("on CUDA API call to cudaMemcpy.\n=========     the source, 32 bytes at 0x"),
        "{err}"
    );
    assert!(
        !err.contains("cuStreamGetFlags") && !err.contains("cuMemGetAddressRange"),
        "{err}"
    );
    assert!(err.contains("========= ERROR SUMMARY: 3 errors"), "{err}");
    assert_eq!(code, Some(2), "{err}");
    let run = |args: &[&str]| run_checked(&app, &libs, "jit", args, &[]);
    let err = run(&["shared"]);
    assert!(
        err.contains("fault in kernel 'tile(int*, int)'")
            && err.contains("out of bounds load of 4 bytes at shared address 0x180")
            && err.contains("; the CTA has 384 bytes of shared memory (256 static + 128 dynamic)"),
        "{err}"
    );
    // 64 KiB past `data`: far from every allocation, so the report gives the neighbours.
    let err = run(&["wild", "16384"]);
    assert!(
        err.contains("fault in kernel 'wild(int*, long)'")
            && err.contains("; neighbours: ")
            && err.contains("after the end of module variable 'data' (__device__) (16 bytes)")
            && !err.contains("$str"),
        "{err}"
    );
}

/// Which calls reset the thread's last error, as NVIDIA's runtime answers (its static
/// runtime, run over this driver, gives the same codes): a successful `cudaFuncSetAttribute`
/// clears it; successful `cudaFuncGetAttributes`, `cudaMemset` and others keep it. And
/// `cudaFreeHost(NULL)` succeeds (NVIDIA's runtime passes it on to `cuMemFreeHost`, which
/// treats it as `free(NULL)`).
const LAST_ERROR: &str = r#"#include <cstdio>
#define EXPECT(c) do { if (!(c)) { std::printf("line %d: %s\n", __LINE__, #c); return 1; } } while (0)
__global__ void k(int* p) { extern __shared__ int s[]; s[0] = 1; p[0] = s[0]; }
int main() {
  int* d;
  EXPECT(cudaMalloc(&d, 4) == cudaSuccess);
  EXPECT(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 1 << 30) == cudaErrorInvalidValue);
  EXPECT(cudaPeekAtLastError() == cudaErrorInvalidValue);
  cudaFuncAttributes fa;
  EXPECT(cudaFuncGetAttributes(&fa, k) == cudaSuccess);
  EXPECT(cudaPeekAtLastError() == cudaErrorInvalidValue);
  EXPECT(cudaMemset(d, 0, 4) == cudaSuccess);
  EXPECT(cudaPeekAtLastError() == cudaErrorInvalidValue);
  EXPECT(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024) == cudaSuccess);
  EXPECT(cudaPeekAtLastError() == cudaSuccess);
  EXPECT(cudaSetDevice(99) == cudaErrorInvalidDevice);
  EXPECT(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, 50) == cudaSuccess);
  EXPECT(cudaGetLastError() == cudaSuccess);
  EXPECT(cudaFreeHost(nullptr) == cudaSuccess);
  EXPECT(cudaGetLastError() == cudaSuccess);
  std::printf("PASS\n");
  return 0;
}
"#;

#[test]
fn a_successful_func_set_attribute_clears_the_last_error() {
    build_and_run("last_error", LAST_ERROR, &[]);
}

/// Allocation calls given a null output pointer are `cudaErrorInvalidValue` and allocate
/// nothing (the program could never free it: memcheck's leak check finds no leak); and
/// `cudaDeviceSetLimit(cudaLimitPrintfFifoSize, …)` is `cudaErrorInvalidValue` once a kernel
/// that calls `printf` has been launched ("must not be performed after launching any kernel
/// that uses the printf() device system call", CUDA Runtime API), while a kernel without
/// `printf` leaves it settable, and so does `cudaDeviceReset`, after which the limits are the
/// defaults again and the heap size may be set until a `malloc` kernel runs;
/// `cudaDeviceGetCacheConfig` returns the preference `cudaDeviceSetCacheConfig` set, as CUDA
/// documents for devices whose L1 and shared memory share one memory (compute capability
/// 8.0).
const NULL_OUTPUTS: &str = r#"#include <cstdio>
#define EXPECT(c) do { if (!(c)) { std::printf("line %d: %s\n", __LINE__, #c); return 1; } } while (0)
__global__ void quiet(int* p) { p[threadIdx.x] = 1; }
__global__ void say(int v) { if (v < 0) printf("never %d\n", v); }
// ok[0] = whether malloc gave `bytes` (more than the default 8 MiB heap holds).
__global__ void heap(int* ok, size_t bytes) {
  void* p = malloc(bytes);
  if (ok) ok[0] = p != nullptr;
  free(p);
}
int main() {
  size_t pitch = 0;
  cudaStream_t s;
  EXPECT(cudaStreamCreate(&s) == cudaSuccess);
  EXPECT(cudaMalloc(nullptr, 256) == cudaErrorInvalidValue);
  EXPECT(cudaMallocManaged(nullptr, 256) == cudaErrorInvalidValue);
  EXPECT(cudaMallocPitch(nullptr, &pitch, 64, 4) == cudaErrorInvalidValue);
  EXPECT(cudaMalloc3D(nullptr, make_cudaExtent(64, 4, 2)) == cudaErrorInvalidValue);
  EXPECT(cudaMallocAsync(nullptr, 256, s) == cudaErrorInvalidValue);
  EXPECT(cudaStreamSynchronize(s) == cudaSuccess);
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
  int* d;
  EXPECT(cudaMalloc(&d, 128) == cudaSuccess);
  size_t v = 0;
  EXPECT(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize) == cudaSuccess && v == (1 << 20));
  EXPECT(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 2 << 20) == cudaSuccess);
  quiet<<<1, 32>>>(d);
  EXPECT(cudaDeviceSynchronize() == cudaSuccess);
  EXPECT(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 3 << 20) == cudaSuccess);
  say<<<1, 32>>>(1);
  EXPECT(cudaDeviceSynchronize() == cudaSuccess);
  EXPECT(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 4 << 20) == cudaErrorInvalidValue);
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
  EXPECT(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize) == cudaSuccess && v == (3 << 20));
  EXPECT(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 16 << 20) == cudaSuccess);
  // Compute capability 8.0 shares L1 and shared memory: the preference set is returned.
  cudaFuncCache cc = cudaFuncCachePreferEqual;
  EXPECT(cudaDeviceGetCacheConfig(&cc) == cudaSuccess && cc == cudaFuncCachePreferNone);
  EXPECT(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared) == cudaSuccess);
  EXPECT(cudaDeviceGetCacheConfig(&cc) == cudaSuccess && cc == cudaFuncCachePreferShared);
  EXPECT(cudaDeviceSetCacheConfig((cudaFuncCache)7) == cudaErrorInvalidValue);
  EXPECT(cudaDeviceGetCacheConfig(&cc) == cudaSuccess && cc == cudaFuncCachePreferShared);
  EXPECT(cudaFree(d) == cudaSuccess);
  EXPECT(cudaStreamDestroy(s) == cudaSuccess);
  // A reset context has launched no printf kernel and starts with default limits and
  // preferences; a heap size may be set until a kernel calling malloc runs.
  heap<<<1, 1>>>(nullptr, 16);
  EXPECT(cudaDeviceSynchronize() == cudaSuccess);
  EXPECT(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 32 << 20) == cudaErrorInvalidValue);
  EXPECT(cudaDeviceReset() == cudaSuccess);
  EXPECT(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize) == cudaSuccess && v == (1 << 20));
  EXPECT(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize) == cudaSuccess && v == (8 << 20));
  EXPECT(cudaDeviceGetCacheConfig(&cc) == cudaSuccess && cc == cudaFuncCachePreferNone);
  EXPECT(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 4 << 20) == cudaSuccess);
  EXPECT(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 32 << 20) == cudaSuccess);
  EXPECT(cudaMalloc(&d, 4) == cudaSuccess);
  heap<<<1, 1>>>(d, 24 << 20);
  EXPECT(cudaDeviceSynchronize() == cudaSuccess);
  int got = 0;
  EXPECT(cudaMemcpy(&got, d, 4, cudaMemcpyDeviceToHost) == cudaSuccess && got == 1);
  EXPECT(cudaFree(d) == cudaSuccess);
  std::printf("PASS\n");
  return 0;
}
"#;

#[test]
fn null_outputs_allocate_nothing_and_limits_follow_cuda() {
    let Some((app, libs)) = built("null_outputs", NULL_OUTPUTS, &[]) else {
        return;
    };
    run_on_both_engines(&app, &libs);
    let out = std::process::Command::new(&app)
        .env("LD_LIBRARY_PATH", &libs)
        .env("PTXJIT_TOOL", "memcheck")
        .env("PTXJIT_LEAK_CHECK", "full")
        .env("PTXJIT_REPORT_API_ERRORS", "no")
        .output()
        .expect("run the program");
    let (stdout, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(stdout.contains("PASS"), "{stdout}\n{err}");
    assert!(
        err.contains("========= LEAK SUMMARY: 0 bytes leaked in 0 allocations"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(0), "{err}");
}

/// Copies the CUDA Runtime API refuses by their arguments: a symbol copy in a direction its
/// function does not take (`cudaMemcpyToSymbol` takes host-to-device, device-to-device or
/// default, `cudaMemcpyFromSymbol` device-to-host, device-to-device or default:
/// `cudaErrorInvalidMemcpyDirection`, and nothing is copied), and a `cudaMemcpy3D` whose side
/// is both a CUDA array and a pointer ("Passing more than one non-zero source or destination
/// will cause cudaMemcpy3D() to return an error") or whose `kind` is no `cudaMemcpyKind`; and
/// 3D copies and 2D memsets whose device rows lie past their allocation or wrap around the
/// address space (`cudaErrorInvalidValue`; the copy wrote there, and crashed, before).
const COPY_ARGUMENTS: &str = r#"#include <cstdio>
#define EXPECT(c) do { if (!(c)) { std::printf("line %d: %s\n", __LINE__, #c); return 1; } } while (0)
__device__ int sym[4];
int main() {
  int h[4] = {1, 2, 3, 4}, back[4] = {0, 0, 0, 0};
  EXPECT(cudaMemcpyToSymbol(sym, h, 16) == cudaSuccess);
  int other[4] = {9, 9, 9, 9};
  EXPECT(cudaMemcpyToSymbol(sym, other, 16, 0, cudaMemcpyDeviceToHost) == cudaErrorInvalidMemcpyDirection);
  EXPECT(cudaGetLastError() == cudaErrorInvalidMemcpyDirection);
  EXPECT(cudaMemcpyToSymbol(sym, other, 16, 0, cudaMemcpyHostToHost) == cudaErrorInvalidMemcpyDirection);
  EXPECT(cudaMemcpyToSymbolAsync(sym, other, 16, 0, cudaMemcpyDeviceToHost, 0) == cudaErrorInvalidMemcpyDirection);
  EXPECT(cudaMemcpyFromSymbol(back, sym, 16, 0, cudaMemcpyHostToDevice) == cudaErrorInvalidMemcpyDirection);
  EXPECT(cudaMemcpyFromSymbolAsync(back, sym, 16, 0, cudaMemcpyHostToHost, 0) == cudaErrorInvalidMemcpyDirection);
  EXPECT(back[0] == 0);
  EXPECT(cudaMemcpyFromSymbol(back, sym, 16, 0, cudaMemcpyDefault) == cudaSuccess);
  EXPECT(back[0] == 1 && back[3] == 4);
  EXPECT(cudaMemcpyToSymbol(sym, other, 8, 8, cudaMemcpyDefault) == cudaSuccess);
  EXPECT(cudaMemcpyFromSymbol(back, sym, 16, 0, cudaMemcpyDeviceToHost) == cudaSuccess);
  EXPECT(back[1] == 2 && back[2] == 9 && back[3] == 9);
  // cudaMemcpy3D: a side both an array and a pointer, an unknown kind.
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  cudaArray_t arr;
  EXPECT(cudaMalloc3DArray(&arr, &cd, make_cudaExtent(8, 4, 2)) == cudaSuccess);
  float src[64], dst[64];
  for (int i = 0; i < 64; i++) { src[i] = i; dst[i] = -1; }
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(src, 32, 8, 4);
  p.dstArray = arr;
  p.extent = make_cudaExtent(8, 4, 2);
  p.kind = cudaMemcpyHostToDevice;
  EXPECT(cudaMemcpy3D(&p) == cudaSuccess);
  cudaMemcpy3DParms q = {};
  q.srcArray = arr;
  q.srcPtr = make_cudaPitchedPtr(src, 32, 8, 4);
  q.dstPtr = make_cudaPitchedPtr(dst, 32, 8, 4);
  q.extent = make_cudaExtent(8, 4, 2);
  q.kind = cudaMemcpyDeviceToHost;
  EXPECT(cudaMemcpy3D(&q) == cudaErrorInvalidValue);
  EXPECT(cudaMemcpy3DAsync(&q, 0) == cudaErrorInvalidValue);
  q.srcPtr = make_cudaPitchedPtr(nullptr, 0, 0, 0);
  q.dstArray = arr;
  EXPECT(cudaMemcpy3D(&q) == cudaErrorInvalidValue);
  q.dstArray = nullptr;
  q.kind = (cudaMemcpyKind)7;
  EXPECT(cudaMemcpy3D(&q) == cudaErrorInvalidMemcpyDirection);
  EXPECT(dst[5] == -1);
  q.kind = cudaMemcpyDeviceToHost;
  EXPECT(cudaMemcpy3D(&q) == cudaSuccess);
  for (int i = 0; i < 64; i++) EXPECT(dst[i] == i);
  EXPECT(cudaFreeArray(arr) == cudaSuccess);
  // A box past the end of its device allocation, or one whose position wraps around the
  // address space, is refused, not written to whatever memory the address names.
  char* dd;
  EXPECT(cudaMalloc(&dd, 256) == cudaSuccess);
  cudaMemcpy3DParms r = {};
  r.srcPtr = make_cudaPitchedPtr(src, 64, 16, 4);
  r.dstPtr = make_cudaPitchedPtr(dd, 64, 16, 4);
  r.extent = make_cudaExtent(64, 2, 1);
  r.kind = cudaMemcpyHostToDevice;
  EXPECT(cudaMemcpy3D(&r) == cudaSuccess);
  r.dstPos = make_cudaPos(0, 1000, 0);
  EXPECT(cudaMemcpy3D(&r) == cudaErrorInvalidValue);
  r.dstPos = make_cudaPos(0, (size_t)-1 / 64, 0);
  EXPECT(cudaMemcpy3D(&r) == cudaErrorInvalidValue);
  r.kind = cudaMemcpyDefault;
  EXPECT(cudaMemcpy3D(&r) == cudaErrorInvalidValue);
  r.dstPos = make_cudaPos(0, 0, 0);
  r.srcPos = make_cudaPos((size_t)-8, 0, 0);
  EXPECT(cudaMemcpy3D(&r) == cudaErrorInvalidValue);
  EXPECT(cudaMemset2D(dd, (size_t)-1 / 2, 0, 16, 4) == cudaErrorInvalidValue);
  EXPECT(cudaFree(dd) == cudaSuccess);
  std::printf("PASS\n");
  return 0;
}
"#;

#[test]
fn symbol_and_3d_copies_refuse_what_cuda_documents() {
    build_and_run("copy_arguments", COPY_ARGUMENTS, &[]);
}

/// Prefetching and advice take managed memory only (a `__managed__` variable is managed
/// memory); texture and surface objects give back the descriptors they were created with;
/// `cudaMemset2D` refuses a row wider than the pitch. The codes are the CUDA Runtime API's
/// documented ones; the program checks them and prints PASS.
const DROP_IN_GAPS: &str = r#"#include <cstdio>
#include <cstring>
#define EXPECT(c) do { if (!(c)) { std::printf("line %d: %s\n", __LINE__, #c); return 1; } } while (0)
__managed__ int counts[64];
__global__ void bump() { atomicAdd(&counts[threadIdx.x], 1); }
int main() {
  cudaMemLocation dev0 = {cudaMemLocationTypeDevice, 0};
  cudaMemLocation host = {cudaMemLocationTypeHost, 0};
  int* managed = nullptr;
  int* plain = nullptr;
  EXPECT(cudaMallocManaged(&managed, 256) == cudaSuccess);
  EXPECT(cudaMalloc(&plain, 256) == cudaSuccess);
  EXPECT(cudaMemPrefetchAsync(managed, 256, dev0, 0, 0) == cudaSuccess);
  EXPECT(cudaMemPrefetchAsync(counts, sizeof counts, dev0, 0, 0) == cudaSuccess);
  EXPECT(cudaMemPrefetchAsync(counts, sizeof counts, host, 0, 0) == cudaSuccess);
  EXPECT(cudaMemAdvise(counts, sizeof counts, cudaMemAdviseSetReadMostly, dev0) == cudaSuccess);
  EXPECT(cudaMemAdvise(managed, 256, cudaMemAdviseSetPreferredLocation, dev0) == cudaSuccess);
  EXPECT(cudaMemPrefetchAsync(plain, 256, dev0, 0, 0) == cudaErrorInvalidValue);
  EXPECT(cudaMemAdvise(plain, 256, cudaMemAdviseSetReadMostly, dev0) == cudaErrorInvalidValue);
  EXPECT(cudaMemPrefetchAsync(managed, 257, dev0, 0, 0) == cudaErrorInvalidValue);
  int local[4];
  EXPECT(cudaMemPrefetchAsync(local, sizeof local, dev0, 0, 0) == cudaErrorInvalidValue);
  cudaPointerAttributes a;
  EXPECT(cudaPointerGetAttributes(&a, counts) == cudaSuccess && a.type == cudaMemoryTypeManaged);
  bump<<<1, 64>>>();
  EXPECT(cudaDeviceSynchronize() == cudaSuccess);
  EXPECT(counts[0] == 1 && counts[63] == 1);

  // A linear texture of uchar4 over `plain`.
  cudaResourceDesc res;
  std::memset(&res, 0, sizeof res);
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = plain;
  res.res.linear.desc = cudaCreateChannelDesc<uchar4>();
  res.res.linear.sizeInBytes = 256;
  cudaTextureDesc tex;
  std::memset(&tex, 0, sizeof tex);
  tex.addressMode[0] = cudaAddressModeClamp;
  tex.filterMode = cudaFilterModePoint;
  tex.readMode = cudaReadModeElementType;
  tex.borderColor[2] = 0.5f;
  tex.maxMipmapLevelClamp = 2.0f;
  cudaTextureObject_t t = 0;
  EXPECT(cudaCreateTextureObject(&t, &res, &tex, nullptr) == cudaSuccess);
  cudaResourceDesc got_res;
  cudaTextureDesc got_tex;
  std::memset(&got_res, 0xff, sizeof got_res);
  std::memset(&got_tex, 0xff, sizeof got_tex);
  EXPECT(cudaGetTextureObjectResourceDesc(&got_res, t) == cudaSuccess);
  EXPECT(std::memcmp(&got_res, &res, sizeof res) == 0);
  EXPECT(cudaGetTextureObjectTextureDesc(&got_tex, t) == cudaSuccess);
  EXPECT(std::memcmp(&got_tex, &tex, sizeof tex) == 0);
  cudaResourceViewDesc view;
  EXPECT(cudaGetTextureObjectResourceViewDesc(&view, t) == cudaErrorInvalidValue);
  EXPECT(cudaGetSurfaceObjectResourceDesc(&got_res, t) == cudaErrorInvalidValue);
  EXPECT(cudaDestroyTextureObject(t) == cudaSuccess);
  EXPECT(cudaGetTextureObjectResourceDesc(&got_res, t) == cudaErrorInvalidValue);

  // A surface over a 16 x 8 float array.
  cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
  cudaArray_t arr;
  EXPECT(cudaMallocArray(&arr, &f, 16, 8, cudaArraySurfaceLoadStore) == cudaSuccess);
  std::memset(&res, 0, sizeof res);
  res.resType = cudaResourceTypeArray;
  res.res.array.array = arr;
  cudaSurfaceObject_t s = 0;
  EXPECT(cudaCreateSurfaceObject(&s, &res) == cudaSuccess);
  EXPECT(cudaGetSurfaceObjectResourceDesc(&got_res, s) == cudaSuccess);
  EXPECT(std::memcmp(&got_res, &res, sizeof res) == 0);
  EXPECT(cudaGetTextureObjectResourceDesc(&got_res, s) == cudaErrorInvalidValue);
  EXPECT(cudaDestroySurfaceObject(s) == cudaSuccess);
  EXPECT(cudaFreeArray(arr) == cudaSuccess);

  // A row of 65 bytes in a pitch of 64.
  EXPECT(cudaMemset2D(plain, 64, 1, 65, 2) == cudaErrorInvalidValue);
  EXPECT(cudaMemset2DAsync(plain, 64, 1, 65, 2, 0) == cudaErrorInvalidValue);
  EXPECT(cudaMemset2D(plain, 64, 1, 64, 4) == cudaSuccess);
  // cudaMemset3D: the pitch matters unless height and depth are both 1, and a refused
  // memset writes no slice.
  unsigned char back[256];
  EXPECT(cudaMemset(plain, 0, 256) == cudaSuccess);
  EXPECT(cudaMemset3D(make_cudaPitchedPtr(plain, 32, 32, 2), 7, make_cudaExtent(33, 1, 2)) == cudaErrorInvalidValue);
  EXPECT(cudaMemset3D(make_cudaPitchedPtr(plain, 32, 32, 2), 7, make_cudaExtent(33, 2, 1)) == cudaErrorInvalidValue);
  EXPECT(cudaMemcpy(back, plain, 256, cudaMemcpyDeviceToHost) == cudaSuccess);
  for (int i = 0; i < 256; i++) EXPECT(back[i] == 0);
  EXPECT(cudaMemset3D(make_cudaPitchedPtr(plain, 32, 32, 2), 7, make_cudaExtent(40, 1, 1)) == cudaSuccess);
  EXPECT(cudaMemset3D(make_cudaPitchedPtr(plain, 32, 32, 2), 7, make_cudaExtent(32, 2, 2)) == cudaSuccess);
  EXPECT(cudaMemcpy(back, plain, 256, cudaMemcpyDeviceToHost) == cudaSuccess);
  for (int i = 0; i < 256; i++) EXPECT(back[i] == (i < 128 ? 7 : 0));
  EXPECT(cudaFree(plain) == cudaSuccess);
  EXPECT(cudaFree(managed) == cudaSuccess);
  std::printf("PASS\n");
  return 0;
}
"#;

#[test]
fn managed_memory_texture_descriptors_and_2d_memsets_answer_as_documented() {
    build_and_run("drop_in_gaps", DROP_IN_GAPS, &[]);
}

/// Host pointers a CUDA programmer hands a kernel, and a buffer used after `cudaFree`: each
/// mode faults (or, for registered memory, runs) as on a GPU. `register`: a range
/// registered with `cudaHostRegisterDefault`, which CUDA documents as mapped on a device
/// with unified addressing, has a device pointer (`cudaHostGetDevicePointer`, and
/// `cudaPointerGetAttributes`, which calls it host memory) that kernels write through. The
/// fault modes leave the reports to the test.
const HOST_POINTERS: &str = r#"#include <cstdio>
#include <cstdlib>
#include <cstring>
#define EXPECT(c) do { if (!(c)) { std::printf("line %d: %s\n", __LINE__, #c); return 1; } } while (0)
__device__ int calls[64];
__global__ void fill(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i;
  if (i == 0) calls[0]++;
}
int main(int argc, char** argv) {
  const char* m = argv[1];
  int* d;
  EXPECT(cudaMalloc(&d, 4096) == cudaSuccess);
  if (!strcmp(m, "stack")) {
    int h[64];
    fill<<<1, 64>>>(h, 64);
    EXPECT(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  } else if (!strcmp(m, "heap")) {
    int* h = (int*)malloc(64 * sizeof(int));
    fill<<<1, 64>>>(h, 64);
    EXPECT(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  } else if (!strcmp(m, "freed")) {
    // Freed before the first launch, which loads the module: its variable `calls` takes
    // the buffer's first 256 bytes, the rest stays freed.
    EXPECT(cudaFree(d) == cudaSuccess);
    fill<<<4, 256>>>(d, 1024);
    EXPECT(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  } else if (!strcmp(m, "register")) {
    int* h = (int*)aligned_alloc(4096, 4096 * sizeof(int));
    for (int i = 0; i < 4096; i++) h[i] = -1;
    EXPECT(cudaHostRegister(h, 4096 * sizeof(int), cudaHostRegisterDefault) == cudaSuccess);
    int* dp = nullptr;
    EXPECT(cudaHostGetDevicePointer((void**)&dp, h, 0) == cudaSuccess && dp != nullptr);
    int* mid = nullptr;
    EXPECT(cudaHostGetDevicePointer((void**)&mid, h + 100, 0) == cudaSuccess && mid == dp + 100);
    cudaPointerAttributes at;
    EXPECT(cudaPointerGetAttributes(&at, h + 7) == cudaSuccess);
    EXPECT(at.type == cudaMemoryTypeHost && at.devicePointer == dp + 7 && at.hostPointer == h + 7);
    fill<<<16, 256>>>(dp, 4096);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    for (int i = 0; i < 4096; i++) EXPECT(h[i] == i);
    EXPECT(cudaHostUnregister(h) == cudaSuccess);
    // Unregistered: no device pointer any more, and unregistered memory to the runtime.
    EXPECT(cudaPointerGetAttributes(&at, h) == cudaSuccess && at.type == cudaMemoryTypeUnregistered);
    EXPECT(cudaHostGetDevicePointer((void**)&dp, h, 0) == cudaErrorInvalidValue);
    int plain[4];
    EXPECT(cudaHostGetDevicePointer((void**)&dp, plain, 0) == cudaErrorInvalidValue);
    free(h);
  }
  std::printf("PASS\n");
  return 0;
}
"#;

/// A kernel given a host pointer (a stack array, a `malloc` block) faults with a report that
/// says the address is the host's, where in the process it is, and which memory a kernel can
/// reach; a buffer freed before the first launch (whose module's variables then take its
/// first bytes) is reported as a use after free of that `cudaMalloc` buffer, at the source
/// line (`-lineinfo`), with the CTA and thread; a `cudaHostRegisterDefault` range has a device
/// pointer kernels write through.
#[test]
fn host_pointers_and_freed_buffers_in_kernels_say_what_they_are() {
    let Some((app, libs)) = built("host_pointers", HOST_POINTERS, &["-lineinfo"]) else {
        return;
    };
    for engine in ["jit", "interp"] {
        for mode in ["stack", "heap", "freed", "register"] {
            let stderr = run_checked(&app, &libs, engine, &[mode], &[]);
            let report = stderr
                .lines()
                .find(|l| l.contains("fault in kernel"))
                .unwrap_or("");
            let site = "fault in kernel 'fill(int*, int)' (_Z4fillPii) at ";
            let host = "not device memory by CTA (0,0,0) thread (0,0,0) in 'st.global.u32'; \
                        a kernel reaches host memory only where it is page-locked and mapped";
            match mode {
                "stack" => {
                    assert!(report.contains(site), "{mode} ({engine}): {stderr}");
                    assert!(
                        report.contains("host_pointers.cu:8:")
                            && report.contains(", a host address (the process's stack), ")
                            && report.contains(host)
                            && !report.contains("neighbours"),
                        "{mode} ({engine}): {stderr}"
                    );
                }
                "heap" => {
                    // A small malloc block is in the heap; the report names the mapping.
                    assert!(
                        report.contains(site)
                            && report.contains(", a host address (the process's heap")
                            && report.contains(host),
                        "{mode} ({engine}): {stderr}"
                    );
                }
                "freed" => {
                    assert!(
                        report.contains(site)
                            && report.contains(
                                "use after free (256 bytes into 'cudaMalloc' (4096 bytes), \
                                 which was freed) store of 4 bytes at global address"
                            )
                            && report.contains("by CTA (0,0,0) thread (64,0,0)"),
                        "{mode} ({engine}): {stderr}"
                    );
                }
                _ => assert!(report.is_empty(), "{mode} ({engine}): {stderr}"),
            }
        }
    }
}

/// CUDA C++ programs written as the CUDA samples write them (cudart/tests/programs), each
/// checking its results against the host's computation and printing PASS: streams with
/// callbacks, events, symbol, 2D and 3D copies, managed, pinned, mapped and registered
/// memory, graphs (capture, explicit nodes, updates), cooperative groups, device
/// properties, dynamic shared memory past 48 KiB, device printf, texture objects and
/// surfaces, host threads on per-thread default streams, managed memory advice read back with
/// `cudaMemRangeGetAttribute`, 2D and 3D async copies with a graph captured across two
/// streams, cooperative grid sync, warp intrinsics and atomics, a failing `assert`;
/// templates and device lambdas in kernels with a block reduction written by hand,
/// `__constant__` memory, 64 KiB of dynamic shared memory; two streams ordered by
/// `cudaStreamWaitEvent`, event timing, `cudaMemset2D`, a `uchar4` texture with border
/// addressing; device and peer queries and bad input (null pointers, launches too big,
/// freed memory and handles), each a CUDA error.
/// Built with `-lineinfo` and run on both engines.
#[test]
fn cuda_cpp_programs_check_themselves_on_both_engines() {
    let Some((nvcc, libs)) = toolchain() else {
        return;
    };
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    let programs: [(&str, &[&str]); 14] = [
        ("streams_callbacks", &[]),
        ("symbol_2d_3d_copies", &[]),
        ("managed_pinned_mapped", &[]),
        ("graphs_capture_update", &[]),
        ("cooperative_groups", &[]),
        ("props_dynamic_shared_printf", &[]),
        ("texture_objects", &[]),
        (
            "host_threads_per_thread_stream",
            &["--default-stream", "per-thread"],
        ),
        ("textures_3d_layered_surfaces", &[]),
        ("pipeline_graphs", &[]),
        ("coop_atomics_errors", &[]),
        ("templates_reduce_constant", &["--extended-lambda"]),
        ("streams_events_textures_memset2d", &[]),
        ("devices_bad_input", &[]),
    ];
    for (name, extra) in programs {
        let mut args = vec!["-lineinfo"];
        args.extend_from_slice(extra);
        let app = build_shared(&nvcc, name, &dir.join(format!("{name}.cu")), &args);
        for (engine, stderr) in run_on_both_engines(&app, &libs) {
            match name {
                // The one fault it makes on purpose, at its source line.
                "textures_3d_layered_surfaces" => assert!(
                    stderr.contains("fault in kernel 'surfw(unsigned long long, int, int)'")
                        && stderr.contains("textures_3d_layered_surfaces.cu:10:")
                        && stderr.contains("surface store of 4 bytes out of range (.trap)"),
                    "{name} ({engine}): {stderr}"
                ),
                // The launch refused before cudaFuncSetAttribute, and nothing else.
                "props_dynamic_shared_printf" => assert!(
                    stderr.lines().count() == 1
                        && stderr.contains("cudaFuncAttributeMaxDynamicSharedMemorySize"),
                    "{name} ({engine}): {stderr}"
                ),
                // The too-large cooperative grid, and nothing else.
                "cooperative_groups" => assert!(
                    stderr.lines().count() == 1
                        && stderr.starts_with("ptxjit: cudaLaunchCooperativeKernel: kernel ")
                        && stderr.ends_with(" (cudaErrorCooperativeLaunchTooLarge)\n"),
                    "{name} ({engine}): {stderr}"
                ),
                // The too-large cooperative grid and the 1025-thread block, each under the
                // runtime call the program made, and nothing else.
                "coop_atomics_errors" => assert!(
                    stderr.lines().count() == 2
                        && stderr.starts_with("ptxjit: cudaLaunchCooperativeKernel: kernel ")
                        && stderr.contains(" (cudaErrorCooperativeLaunchTooLarge)\n")
                        && stderr.contains(
                            "ptxjit: cudaLaunchKernel: kernel 'warp_ops(unsigned int const*, \
                             unsigned int*)' (_Z8warp_opsPKjPj): blockDim.x = 1025 (1 to 1024) \
                             (cudaErrorInvalidConfiguration)\n"
                        ),
                    "{name} ({engine}): {stderr}"
                ),
                // Each refused call once, under the runtime call the program made: the copy
                // past the end, the three launch shapes and the dynamic shared memory.
                "devices_bad_input" => assert!(
                    stderr.lines().count() == 5
                        && stderr.lines().all(|l| {
                            l.starts_with("ptxjit: cudaMemcpy: the source, 8192 bytes at ")
                                || l.starts_with(
                                    "ptxjit: cudaLaunchKernel: kernel 'fill(int*, int)' \
                                     (_Z4fillPii): ",
                                )
                        }),
                    "{name} ({engine}): {stderr}"
                ),
                _ => assert!(stderr.is_empty(), "{name} ({engine}): {stderr}"),
            }
        }
    }
    // The assert that fails: cudaErrorAssert from the synchronisation after it, and every
    // failing thread's message.
    let app = test_dir().join("coop_atomics_errors");
    for engine in ["jit", "interp"] {
        let stderr = run_checked(&app, &libs, engine, &["assert"], &[]);
        assert!(
            stderr.contains("fault in kernel 'checker(int const*, int)'")
                && stderr.contains("assertion failed: `p[i] >= 0`"),
            "{engine}: {stderr}"
        );
    }
}

/// A new user's programs (cudart/tests/programs): occupancy_symbols_half_streams (block
/// sizes from the occupancy calculator with shared memory a function of the block size,
/// `__constant__` and `__device__` symbols written, read and addressed, `cg::reduce`,
/// `__half2` arithmetic, prioritised streams with an event and a host function, managed
/// memory prefetched to the device and back) and intrinsics_pitch_heap (integer intrinsics
/// against the host's definitions, CAS and 64-bit atomics, warp votes and
/// `__reduce_add_sync`, the device heap, pitched 2D copies and memsets on a stream,
/// `cudaLaunchKernelEx`) and user_kernels (the ptx-tests kernels warp_scan, spmv_csr,
/// stencil2d and bitonic_sort launched with `<<<...>>>`) and user_evening (nbody, half2_ops,
/// transpose_tile and radix_count: float4 and rsqrtf, a `__half2` argument by value, a 2-D
/// grid, dynamic `extern __shared__`); each result checked against the host's. The `printf` line of each is on stdout, formatted as C formats it, and stderr is
/// empty.
#[test]
fn a_new_users_programs_check_themselves_on_both_engines() {
    let Some((nvcc, libs)) = toolchain() else {
        return;
    };
    for (name, line) in [
        (
            "occupancy_symbols_half_streams",
            "managed_step tag=5 n=4096 first=5 hex=0xff  2.50|ok |",
        ),
        (
            "intrinsics_pitch_heap",
            "heap i=0 s=0 big=18446744073709551615 e=1.234568e+04 g=0.0001",
        ),
        (
            "user_kernels",
            "user_kernels scan=3000 spmv_nnz=7937 stencil=3150 sort=1536",
        ),
        (
            "user_evening",
            "user_evening nbody=300 half2=777 transpose=5895 radix=5000",
        ),
    ] {
        let src =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/programs/{name}.cu"));
        let app = build_shared(&nvcc, name, &src, &["-lineinfo"]);
        let tag = line.split(' ').next().unwrap_or(line);
        for engine in ["jit", "interp"] {
            let (stdout, stderr) = run_with_output(&app, &libs, engine, &[], &[]);
            assert!(stderr.is_empty(), "{name} ({engine}): {stderr}");
            assert_eq!(
                stdout
                    .lines()
                    .filter(|l| l.starts_with(tag))
                    .collect::<Vec<_>>(),
                [line],
                "{name} ({engine}): {stdout}"
            );
        }
    }
}

/// CUDA C++ programs a Hopper programmer writes (cudart/tests/programs/hopper_*), built for
/// `compute_90a` PTX and run with compute capability 9.0 reported (`PTXJIT_CC=9.0`) on both
/// engines, each checking its results against the host's computation: a histogram in
/// distributed shared memory over a cluster launched with `cudaLaunchKernelEx` and sized with
/// `cudaOccupancyMaxActiveClusters`; tiles copied with `cuda::memcpy_async` and the TMA bulk
/// copy `cuda::device::memcpy_async_tx` into `cuda::barrier`s; per-cluster sums handed to
/// rank 0 through distributed shared memory with a release counter it polls with
/// `__nanosleep`, in a `__cluster_dims__` kernel; clusters of 8 and 16 CTAs that each take
/// most of a multiprocessor's shared memory, as many as `cudaOccupancyMaxActiveClusters`
/// gives (at least one).
#[test]
fn hopper_programs_check_themselves_on_both_engines() {
    let Some((nvcc, libs)) = toolchain() else {
        return;
    };
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    for name in [
        "hopper_cluster_histogram",
        "hopper_tma_barrier",
        "hopper_cluster_reduce_nanosleep",
        "hopper_cluster_occupancy",
    ] {
        let app = build_for(
            &nvcc,
            "compute_90a",
            name,
            &dir.join(format!("{name}.cu")),
            &["-lineinfo"],
        );
        for engine in ["jit", "interp"] {
            let stderr = run_checked(&app, &libs, engine, &[], &[("PTXJIT_CC", "9.0")]);
            match name {
                // The launch whose cluster shape does not divide the grid, and nothing else.
                "hopper_cluster_histogram" => assert!(
                    stderr.lines().count() == 1
                        && stderr.starts_with("ptxjit: cudaLaunchKernelExC: kernel ")
                        && stderr.contains("is not a whole number of clusters of [3, 1, 1]")
                        && stderr.ends_with(" (cudaErrorInvalidClusterSize)\n"),
                    "{name} ({engine}): {stderr}"
                ),
                _ => assert!(stderr.is_empty(), "{name} ({engine}): {stderr}"),
            }
        }
    }
}

/// Failing device asserts, and launches the driver refuses: `each` fails the assertion in
/// the threads whose element is negative (global index i with i % 37 == 5, a
/// `__syncthreads()` after the assert, which the ended threads do not hold up); `many` fails
/// it in every odd thread of 1000 CTAs of 256; `refused` launches a `__launch_bounds__(64)`
/// kernel with 128 threads (`cudaErrorLaunchOutOfResources`) and a cooperative grid too large
/// for the device (`cudaErrorCooperativeLaunchTooLarge`), both refused by the driver under the
/// runtime call. The program checks the codes itself and prints PASS.
const ASSERTS: &str = r#"#include <cstdio>
#include <cstring>
#include <cassert>
#define EXPECT(c) do { if (!(c)) { std::printf("line %d: %s\n", __LINE__, #c); return 1; } } while (0)
__global__ void each(const int* v, int n) {
  __shared__ int s[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(v[i] >= 0);
  s[threadIdx.x] = i;
  __syncthreads();
  if (s[63 - threadIdx.x] < 0) printf("never\n");
}
__global__ void many() { assert(threadIdx.x % 2 == 0); }
__global__ void __launch_bounds__(64) bounded(int* p) { p[threadIdx.x] = 1; }
__global__ void coop(int* p) { p[blockIdx.x] = 1; }
#include <cooperative_groups.h>
__global__ void synced(int* p) {
  assert(!(blockIdx.x == 1 && threadIdx.x < 32));
  cooperative_groups::this_grid().sync();
  p[blockIdx.x] = 1;
}
__global__ void spin(int* flag) {
  if (threadIdx.x == 0) { assert(flag[1] == 1); atomicExch(flag, 1); }
  else if (threadIdx.x == 32) { while (atomicAdd(flag, 0) == 0) {} }
}
int main(int argc, char** argv) {
  const char* m = argc > 1 ? argv[1] : "each";
  if (!strcmp(m, "synced") || !strcmp(m, "spin")) {
    int* d;
    EXPECT(cudaMalloc(&d, 64) == cudaSuccess);
    EXPECT(cudaMemset(d, 0, 64) == cudaSuccess);
    void* args[] = {&d};
    if (!strcmp(m, "synced"))
      EXPECT(cudaLaunchCooperativeKernel((void*)synced, dim3(4), dim3(64), args, 0, 0) == cudaSuccess);
    else
      spin<<<1, 64>>>(d);
    EXPECT(cudaDeviceSynchronize() == cudaErrorAssert);
    std::fflush(stdout);
    std::printf("PASS\n");
    return 0;
  }
  if (!strcmp(m, "refused")) {
    int* d;
    EXPECT(cudaMalloc(&d, 1 << 20) == cudaSuccess);
    bounded<<<1, 128>>>(d);
    EXPECT(cudaGetLastError() == cudaErrorLaunchOutOfResources);
    void* args[] = {&d};
    EXPECT(cudaLaunchCooperativeKernel((void*)coop, dim3(100000), dim3(1024), args, 0, 0) == cudaErrorCooperativeLaunchTooLarge);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    std::printf("PASS\n");
    return 0;
  }
  if (!strcmp(m, "each")) {
    const int n = 256;
    int h[n];
    for (int i = 0; i < n; i++) h[i] = i % 37 == 5 ? -1 : i;
    int* d;
    EXPECT(cudaMalloc(&d, sizeof h) == cudaSuccess);
    EXPECT(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice) == cudaSuccess);
    each<<<4, 64>>>(d, n);
  } else {
    many<<<1000, 256>>>();
  }
  EXPECT(cudaGetLastError() == cudaSuccess);
  EXPECT(cudaDeviceSynchronize() == cudaErrorAssert);
  EXPECT(cudaGetLastError() == cudaErrorAssert);
  std::fflush(stdout);
  std::printf("PASS\n");
  return 0;
}
"#;

/// Runs `app` with `args` on `engine` (`env` set too): (stdout, stderr), after checking that
/// it exited successfully and printed PASS.
fn run_with_output(
    app: &Path,
    libs: &Path,
    engine: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> (String, String) {
    let mut cmd = std::process::Command::new(app);
    cmd.args(args)
        .env("LD_LIBRARY_PATH", libs)
        .env("PTXJIT_ENGINE", engine)
        .env_remove("PTXJIT_TOOL")
        .env_remove("PTXJIT_TRACE")
        .env_remove("PTXJIT_TIMEOUT")
        .env_remove("PTXJIT_ASSERT_GRACE")
        .env_remove("PTXJIT_REPORT_API_ERRORS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = output_within(cmd, 300);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(
        out.status.success() && stdout.lines().any(|l| l == "PASS"),
        "{args:?} ({engine}): exit {:?}\n{stdout}\n{stderr}",
        out.status
    );
    (stdout, stderr)
}

/// Runs `cmd` to its end and gives its output, killing it (and failing) when it runs past
/// `secs` seconds: a program that would hang fails its test rather than the test run.
fn output_within(mut cmd: std::process::Command, secs: u64) -> std::process::Output {
    use std::process::Stdio;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the program");
    // Read both pipes on threads so a full pipe never stalls the program.
    let mut out_pipe = child.stdout.take().expect("stdout pipe");
    let mut err_pipe = child.stderr.take().expect("stderr pipe");
    let out_reader = std::thread::spawn(move || {
        let mut v = vec![];
        let _ = std::io::Read::read_to_end(&mut out_pipe, &mut v);
        v
    });
    let err_reader = std::thread::spawn(move || {
        let mut v = vec![];
        let _ = std::io::Read::read_to_end(&mut err_pipe, &mut v);
        v
    });
    let end = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait for the program") {
            break s;
        }
        if std::time::Instant::now() > end {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} still ran after {secs} s: killed");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    std::process::Output {
        status,
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
    }
}

/// The failed-assertion lines of `text`, each from the source line on (`8: void each(…`:
/// the path before it is where the test built the program).
fn assertion_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.contains(" Assertion `"))
        .map(|l| l.split_once(".cu:").map_or(l, |(_, rest)| rest))
        .collect()
}

/// Each thread that fails a device assert prints CUDA's line for it on stderr (CUDA C++
/// Programming Guide, Assertion: "each thread for which expression is equal to zero prints a
/// message to stderr"), in order of CTA and thread, on both engines, and none of them on
/// stdout; the threads that end at the assert do not hold up a `__syncthreads()` after it;
/// the launch's note names the runtime's code and calls (the program used the runtime).
#[test]
fn every_failing_assert_prints_in_order_and_the_note_uses_the_runtimes_words() {
    let Some((app, libs)) = built("asserts", ASSERTS, &["-lineinfo"]) else {
        return;
    };
    // Global index i fails where i % 37 == 5: CTA i / 64, thread i % 64.
    let want: Vec<String> = (0..256)
        .filter(|i| i % 37 == 5)
        .map(|i| {
            format!(
                "8: void each(const int *, int): block: [{},0,0], thread: [{},0,0] \
                 Assertion `v[i] >= 0` failed.",
                i / 64,
                i % 64
            )
        })
        .collect();
    assert_eq!(want.len(), 7);
    for engine in ["jit", "interp"] {
        let (stdout, stderr) = run_with_output(&app, &libs, engine, &["each"], &[]);
        assert_eq!(
            assertion_lines(&stderr),
            want,
            "{engine}: {stdout}\n{stderr}"
        );
        assert!(assertion_lines(&stdout).is_empty(), "{engine}: {stdout}");
        assert!(
            stderr.contains("assertion failed: `v[i] >= 0` (")
                && stderr.contains(
                    "asserts.cu:8, in void each(const int *, int)) by CTA (0,0,0) thread (5,0,0)"
                ),
            "{engine}: {stderr}"
        );
        assert!(
            stderr.contains("; cudaErrorAssert (710) comes back from the next call that waits")
                && stderr.contains("(cudaDeviceSynchronize, cudaStreamSynchronize, ")
                && !stderr.contains("CUDA_ERROR_ASSERT")
                && !stderr.contains("cuCtxSynchronize"),
            "{engine}: {stderr}"
        );
        assert!(!stdout.contains("never"), "{engine}: {stdout}");
    }
}

/// A launch whose every odd thread fails its assertion prints the first 1024 lines (CTAs 0
/// to 7, each with its 128 odd threads, in order) on stderr and says that it stops there.
#[test]
fn failing_asserts_print_at_most_1024_lines_per_launch() {
    let Some((app, libs)) = built("asserts_many", ASSERTS, &["-lineinfo"]) else {
        return;
    };
    let want: Vec<String> = (0..8)
        .flat_map(|b| (1..256).step_by(2).map(move |t| (b, t)))
        .map(|(b, t)| {
            format!(
                "13: void many(): block: [{b},0,0], thread: [{t},0,0] \
                 Assertion `threadIdx.x % 2 == 0` failed."
            )
        })
        .collect();
    for engine in ["jit", "interp"] {
        let (_, stderr) = run_with_output(&app, &libs, engine, &["many"], &[]);
        assert_eq!(assertion_lines(&stderr), want, "{engine}");
        assert!(
            stderr.contains("ptxjit: at most 1024 failed-assertion lines are printed per launch"),
            "{engine}: {stderr}"
        );
    }
}

/// Threads that wait for one that a failed assertion ended are not the launch's error, the
/// assertion is (on a GPU its trap ends the grid): a cooperative grid whose CTA 1 fails it in
/// its first warp before `grid.sync()` (a grid-wide deadlock here) and a thread spinning on a
/// flag the failing thread would have set both give `cudaErrorAssert`, with CUDA's line for
/// each failing thread. The spin ends once the assertion's grace has passed
/// (`PTXJIT_ASSERT_GRACE`), with no time limit set.
#[test]
fn threads_left_waiting_by_a_failed_assert_do_not_hide_it() {
    let Some((app, libs)) = built("asserts_waiting", ASSERTS, &["-lineinfo"]) else {
        return;
    };
    let want: Vec<String> = (0..32)
        .map(|t| {
            format!(
                "18: void synced(int *): block: [1,0,0], thread: [{t},0,0] \
                 Assertion `!(blockIdx.x == 1 && threadIdx.x < 32)` failed."
            )
        })
        .collect();
    for engine in ["jit", "interp"] {
        let (stdout, stderr) = run_with_output(&app, &libs, engine, &["synced"], &[]);
        assert_eq!(assertion_lines(&stderr), want, "{engine}: {stdout}");
        assert!(!stderr.contains("deadlock"), "{engine}: {stderr}");
        let (_, stderr) = run_with_output(
            &app,
            &libs,
            engine,
            &["spin"],
            &[("PTXJIT_ASSERT_GRACE", "0.2")],
        );
        assert_eq!(
            assertion_lines(&stderr),
            ["23: void spin(int *): block: [0,0,0], thread: [0,0,0] Assertion `flag[1] == 1` failed."],
            "{engine}: {stderr}"
        );
        assert!(
            stderr.contains("cudaErrorAssert (710)") && !stderr.contains("imeout"),
            "{engine}: {stderr}"
        );
    }
}

/// A kernel whose PTX does not load (an instruction ptxjit does not know, passed through by
/// nvcc's inline `asm`), launched twice: each launch fails, and the second's error, which
/// the runtime answers without loading the fatbin again, names what failed and where as
/// the first does.
const BAD_LOAD: &str = r#"#include <cstdio>
__global__ void bad(int* p) { asm volatile("frobnicate.b32;"); p[0] = 1; }
int main() {
  int* d;
  if (cudaMalloc(&d, 4) != cudaSuccess) return 1;
  for (int k = 0; k < 2; k++) {
    bad<<<1, 1>>>(d);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) { std::printf("launch %d: no error\n", k); return 1; }
  }
  std::printf("PASS\n");
  return 0;
}
"#;

/// Under memcheck, every launch of a kernel whose fatbin failed to load reports why (the
/// driver call that failed and the PTX line:column), the later ones too.
#[test]
fn a_failed_load_says_why_at_each_launch_under_memcheck() {
    let Some((app, libs)) = built("bad_load", BAD_LOAD, &[]) else {
        return;
    };
    let (_, stdout, err) = under_memcheck(&app, &libs, None);
    assert!(stdout.contains("PASS"), "{stdout}\n{err}");
    let reports: Vec<&str> = err
        .split("========= Program hit ")
        .skip(1)
        .filter(|r| r.contains("on CUDA API call to cudaLaunchKernel."))
        .collect();
    assert_eq!(reports.len(), 2, "{err}");
    for r in &reports {
        assert!(
            r.contains("cuModuleLoadData returned ") && r.contains("frobnicate"),
            "{r}\nin:\n{err}"
        );
    }
    assert!(reports[1].contains("did not load: "), "{err}");
}

/// Under memcheck, a launch the driver refuses inside a runtime call is reported under the
/// runtime call with the reason as its second line, not the driver call's failure
/// (`cuLaunchKernel returned CUDA_ERROR_…`); without a tool the reason goes to stderr once
/// under the runtime call's name and code.
#[test]
fn driver_refused_launches_are_reported_in_the_runtimes_words() {
    let Some((app, libs)) = built("asserts_refused", ASSERTS, &[]) else {
        return;
    };
    let bounded = "kernel 'bounded(int*)' (_Z7boundedPi): block [128, 1, 1] has 128 threads; \
                   the kernel's .maxntid (__launch_bounds__) allows at most 64 threads per block";
    let coop = "kernel 'coop(int*)' (_Z4coopPi): a cooperative grid of 100000 CTAs exceeds the ";
    for engine in ["jit", "interp"] {
        let (_, err) = run_with_output(&app, &libs, engine, &["refused"], &[]);
        assert!(
            err.contains(&format!(
                "ptxjit: cudaLaunchKernel: {bounded} (cudaErrorLaunchOutOfResources)\n"
            )) && err.contains(&format!("ptxjit: cudaLaunchCooperativeKernel: {coop}")),
            "{engine}: {err}"
        );
        assert_eq!(err.lines().count(), 2, "{engine}: {err}");
    }
    let mut cmd = std::process::Command::new(&app);
    cmd.arg("refused")
        .env("LD_LIBRARY_PATH", &libs)
        .env("PTXJIT_TOOL", "memcheck")
        .env_remove("PTXJIT_REPORT_API_ERRORS");
    let out = cmd.output().expect("run the program");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("PASS"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "on CUDA API call to cudaLaunchKernel.\n=========     {bounded}\n"
        )) && err.contains(&format!(
            "on CUDA API call to cudaLaunchCooperativeKernel.\n=========     {coop}"
        )),
        "{err}"
    );
    assert!(!err.contains("returned CUDA_ERROR"), "{err}");
    assert!(!err.contains("ptxjit: cudaLaunch"), "{err}");
    assert!(err.contains("========= ERROR SUMMARY: 2 errors"), "{err}");
}
