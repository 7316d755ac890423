"""Numba kernels that fail on ptxjit's libcuda.so.1: the program gets CUDA's error code and
ptxjit's located report goes to stderr. As on a GPU, the launch itself succeeds and the
exception comes from the next call that waits for the kernel (`cuda.synchronize()`, a copy to
the host); the errors are sticky, so each kernel runs in a child process. Run: ptxjit exec -- python3 cuda/clients/numba_faults.py
Ends with 'N passed, M failed'.

How a numba kernel fails, and what a GPU gives for each:
- a wild store: `CUDA_ERROR_ILLEGAL_ADDRESS` (sticky).
- an assert: numba compiles a Python `assert` (under `debug=True, opt=False`) into its own
  exception protocol, not into PTX: the failing thread stores an error code and its index into
  module globals (`<kernel>__errcode__`, `__tidx__` ...) and returns; after the launch numba reads
  them back and raises `AssertionError` naming the Python line. No CUDA error is involved and the
  context stays usable, on a GPU as here. CUDA's own device assert (what `assert()` in CUDA C
  becomes: a call to `__assertfail`) reaches a numba kernel through a CUDA C device function
  linked with `link=`; it gives `CUDA_ERROR_ASSERT` (sticky) and CUDA's
  "Assertion `...` failed." line for each failing thread.
- a trap: numba-cuda has no trap function (`cuda.brkpt()` emits PTX `brkpt`, a debugger
  breakpoint), so the kernel calls LLVM's `llvm.trap` through an `@intrinsic`, which NVVM lowers
  to PTX `trap;` as `__trap()` in CUDA C is; it gives `CUDA_ERROR_LAUNCH_FAILED` (sticky)."""

import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, run_checks  # noqa: E402

WILD_STORE = """
import numpy as np
from numba import cuda

@cuda.jit
def scatter(out, stride):
    i = cuda.grid(1)
    out[i * stride] = i          # no bounds check: every thread but 0 stores far past the end

out = cuda.device_array(256, dtype=np.int32)
try:
    scatter[1, 64](out, 1 << 20)
    print("LAUNCHED", flush=True)  # the launch succeeds, as on a GPU
    cuda.synchronize()
    print("NO ERROR")
except Exception as e:  # numba (through cuda.core) raises an error naming the CUresult
    print("ERROR", e)
"""

PYTHON_ASSERT = """
import numpy as np
from numba import cuda

@cuda.jit(debug=True, opt=False)
def checked(out, n):
    i = cuda.grid(1)
    assert i < n, "index past the end"
    out[i] = i

out = cuda.device_array(64, dtype=np.int32)
try:
    checked[1, 64](out, 40)
    print("NO ERROR")
except AssertionError as e:
    print("ASSERTION", e)
# numba's exception protocol leaves the context usable: a second launch runs
checked[1, 64](out, 64)
print("AFTER", int(out.copy_to_host().sum()))
"""

# NVRTC declares __assertfail (what CUDA's device assert() expands to) but has no <assert.h>, so
# the macro is spelled out as CUDA's assert.h spells it.
CHECK_INDEX_CU = r"""
#define assert(e) ((e) ? (void)0 : __assertfail(#e, __FILE__, __LINE__, __func__, sizeof(char)))
extern "C" __device__ int check_index(int *ret, int i, int n) {
    assert(i < n);
    *ret = i;
    return 0;
}
"""

CUDA_ASSERT = """
import os, sys, tempfile
import numpy as np
from numba import cuda, int32

path = os.path.join(tempfile.mkdtemp(), "check_index.cu")
with open(path, "w") as f:
    f.write(sys.argv[1])
check_index = cuda.declare_device("check_index", int32(int32, int32))

@cuda.jit(link=[path], lineinfo=True)
def gather(out, n):
    i = cuda.grid(1)
    out[i] = check_index(i, n)

out = cuda.device_array(64, dtype=np.int32)
try:
    gather[1, 64](out, 40)
    print("LAUNCHED", flush=True)
    cuda.synchronize()
    print("NO ERROR")
except Exception as e:
    print("ERROR", e)
"""

TRAP = """
import numpy as np
from llvmlite import ir
from numba import cuda, types
from numba.core.extending import intrinsic

@intrinsic
def trap(typingctx):
    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.VoidType(), [])
        fn = builder.module.globals.get("llvm.trap") or ir.Function(builder.module, fnty, "llvm.trap")
        builder.call(fn, ())
    return types.void(), codegen

@cuda.jit(lineinfo=True)
def guarded(out):
    i = cuda.grid(1)
    if i == 5:
        trap()  # line 19
    out[i] = i

out = cuda.device_array(64, dtype=np.int32)
try:
    guarded[1, 64](out)
    print("LAUNCHED", flush=True)
    out.copy_to_host()  # a copy to the host waits for the kernel too
    print("NO ERROR")
except Exception as e:
    print("ERROR", e)
"""


DYNAMIC_SHARED = """
import numpy as np
from numba import cuda, float32
from cuda.bindings import driver

@cuda.jit
def reverse(out):
    s = cuda.shared.array(0, dtype=float32)
    i = cuda.threadIdx.x
    s[i] = i
    cuda.syncthreads()
    out[i] = s[cuda.blockDim.x - 1 - i]

out = cuda.device_array(32, dtype=np.float32)
try:
    reverse[1, 32, 0, 64 * 1024](out)
    print("NO ERROR")
except Exception as e:
    print("REFUSED", e)
# What the refusal tells a numba user to do.
kernel = reverse
attr = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
(err,) = driver.cuKernelSetAttribute(
    attr, 64 * 1024, kernel.overloads[kernel.signatures[0]]._codelibrary.get_cufunc().handle, 0)
print("SET", err.name)
reverse[1, 32, 0, 64 * 1024](out)
print("RAN", out.copy_to_host().astype(int).tolist() == list(range(31, -1, -1)))
"""


def child(code, *args):
    """Runs `code` as a script file (so numba's line info names a real file) in a child."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "kernel.py")
        with open(path, "w") as f:
            f.write(code)
        return subprocess.run([sys.executable, path, *args], capture_output=True, text=True,
                              timeout=600)


def result_line(r, prefixes):
    last = [l for l in r.stdout.splitlines() if l.startswith(prefixes)]
    assert last, f"no result line; stdout: {r.stdout[-2000:]!r} stderr: {r.stderr[-2000:]!r}"
    return last[-1]


@check
def out_of_bounds_store_is_illegal_address_with_a_report():
    r = child(WILD_STORE)
    last = result_line(r, ("ERROR", "NO ERROR"))
    assert "CUDA_ERROR_ILLEGAL_ADDRESS" in last, last
    # the error came from the synchronisation, not from the launch
    assert "LAUNCHED" in r.stdout.splitlines(), r.stdout[-2000:]
    assert "fault in kernel" in r.stderr and "out of bounds" in r.stderr and "store of 4 bytes" in r.stderr, r.stderr[-2000:]
    assert "CTA (0,0,0) thread (1,0,0)" in r.stderr, r.stderr[-2000:]
    # The kernel by its Python name, numba's mangled name once; no neighbour that is numba's
    # environment object (`_ZN08NumbaEnv…`, a module variable each function has).
    report = [l for l in r.stderr.splitlines() if "fault in kernel" in l][0]
    assert "fault in kernel '__main__.scatter' (_ZN8__main__7scatterB2v1" in report, report
    assert report.count("_ZN8__main__7scatter") == 1, report
    assert "NumbaEnv" not in report, report
    # Without lineinfo the report points into numba's in-memory PTX: it says so, and how to
    # get the Python line or a file of the PTX.
    assert "ptxjit: <cudapy-ptx>:" in r.stderr, r.stderr[-2000:]
    note = ("ptxjit: '<cudapy-ptx>' is the PTX the program loaded from memory (there is no "
            "such file), and the kernel has no line information: rebuild with `nvcc -lineinfo` "
            "(numba: `@cuda.jit(lineinfo=True)`)")
    assert note in r.stderr, r.stderr[-2000:]


@check
def ptx_dump_names_a_file_with_the_faulting_store():
    with tempfile.TemporaryDirectory() as dump:
        os.environ["PTXJIT_DUMP_PTX"] = dump
        try:
            r = child(WILD_STORE)
        finally:
            del os.environ["PTXJIT_DUMP_PTX"]
        result_line(r, ("ERROR", "NO ERROR"))
        report = [l for l in r.stderr.splitlines() if "fault in kernel" in l]
        assert report, r.stderr[-2000:]
        # `ptxjit: DUMP/ptxjit-PID-N.ptx:LINE:COL: fault in kernel …`
        at = report[0].removeprefix("ptxjit: ").split(": fault in kernel")[0]
        path, line, _col = at.rsplit(":", 2)
        assert path.startswith(dump) and path.endswith(".ptx"), report[0]
        with open(path) as f:
            text = f.read().splitlines()
        assert text[int(line) - 1].strip().startswith("st.global"), text[int(line) - 1]
        assert "is the PTX the program loaded from memory" not in r.stderr, r.stderr[-2000:]


@check
def python_assert_raises_assertion_error_naming_the_line():
    r = child(PYTHON_ASSERT)
    line = result_line(r, ("ASSERTION", "NO ERROR"))
    # numba prints the thread index as [z, y, x]; thread 40 is the first with i >= n
    assert line.startswith("ASSERTION") and "index past the end" in line, line
    assert "kernel.py, line 8, " in line and "tid=[0, 0, 40]" in line and "ctaid=[0, 0, 0]" in line, line
    assert "AFTER 2016" in r.stdout, (r.stdout[-2000:], r.stderr[-2000:])  # sum(range(64))


@check
def cuda_assert_is_cuda_error_assert_with_a_report():
    r = child(CUDA_ASSERT, CHECK_INDEX_CU)
    line = result_line(r, ("ERROR", "NO ERROR"))
    assert "CUDA_ERROR_ASSERT" in line, line
    assert "LAUNCHED" in r.stdout.splitlines(), r.stdout[-2000:]
    # CUDA's line for each failing thread (24 of them), then ptxjit's located report
    out = r.stdout + r.stderr
    assert "check_index: block: [0,0,0], thread: [40,0,0] Assertion `i < n` failed." in out, out[-2000:]
    assert out.count("Assertion `i < n` failed.") == 24, out[-2000:]
    assert "fault in kernel" in r.stderr and "assertion failed: `i < n`" in r.stderr, r.stderr[-2000:]
    assert "in check_index) by CTA (0,0,0) thread (40,0,0)" in r.stderr, r.stderr[-2000:]


@check
def trap_is_launch_failed_with_a_report():
    r = child(TRAP)
    line = result_line(r, ("ERROR", "NO ERROR"))
    assert "CUDA_ERROR_LAUNCH_FAILED" in line, line
    assert "LAUNCHED" in r.stdout.splitlines(), r.stdout[-2000:]
    assert "fault in kernel" in r.stderr and ": trap by CTA (0,0,0) thread (5,0,0)" in r.stderr, r.stderr[-2000:]
    # the report names the Python line of the trap() call (numba's line info, lineinfo=True)
    assert "kernel.py:19:" in r.stderr, r.stderr[-2000:]


@check
def dynamic_shared_past_the_default_says_what_numba_does():
    r = child(DYNAMIC_SHARED)
    line = result_line(r, ("REFUSED", "NO ERROR"))
    assert "CUDA_ERROR_INVALID_VALUE" in line, line
    report = [l for l in r.stderr.splitlines() if "bytes of dynamic shared memory" in l]
    assert report, r.stderr[-2000:]
    assert "kernel '__main__.reverse' (_ZN8__main__7reverseB2v1" in report[0], report[0]
    assert "numba-cuda has no option that raises it" in report[0], report[0]
    assert "cudaFuncSetAttribute" not in report[0], report[0]
    # The advice works: the attribute is set and the launch runs.
    assert "SET CUDA_SUCCESS" in r.stdout and "RAN True" in r.stdout, (r.stdout[-2000:], r.stderr[-2000:])


if __name__ == "__main__":
    sys.exit(run_checks())
