"""A faulting numba kernel on ptxjit's libcuda.so.1: the program gets CUDA's error code and
ptxjit's located report goes to stderr. The fault is sticky (as on a GPU), so it runs in a
child process. Run: ptxjit exec -- python3 cuda/clients/numba_faults.py
Ends with 'N passed, M failed'."""

import os
import subprocess
import sys

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
    cuda.synchronize()
    print("NO ERROR")
except Exception as e:  # numba (through cuda.core) raises an error naming the CUresult
    print("ERROR", e)
"""


def child(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600)


@check
def out_of_bounds_store_is_illegal_address_with_a_report():
    r = child(WILD_STORE)
    last = [l for l in r.stdout.splitlines() if l.startswith(("ERROR", "NO ERROR"))]
    assert last, f"no result line; stdout: {r.stdout!r} stderr: {r.stderr[-2000:]!r}"
    assert "CUDA_ERROR_ILLEGAL_ADDRESS" in last[-1], last[-1]
    assert "fault in kernel" in r.stderr and "out of bounds" in r.stderr and "store of 4 bytes" in r.stderr, r.stderr[-2000:]
    assert "CTA (0,0,0) thread (1,0,0)" in r.stderr, r.stderr[-2000:]


if __name__ == "__main__":
    sys.exit(run_checks())
