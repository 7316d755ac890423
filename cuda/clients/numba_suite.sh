#!/usr/bin/env bash
# Runs numba-cuda's own test suite (the installed wheel's numba.cuda.tests.cudadrv and
# numba.cuda.tests.cudapy) on ptxjit's drop-in libcuda.so.1, through `ptxjit exec`.
#
# Usage: cuda/clients/numba_suite.sh [--python PY] [--full] [--engine jit|interp] [PYTEST ARGS...]
#   --python PY   the Python with numba-cuda, pytest, pytest-timeout and filecheck installed
#                 (default: $PYTHON, else python3); see cuda/clients/README.md
#   --full        the whole suite (tens of minutes); default: a few quick modules (CI subset)
#   --engine E    ptxjit's engine for the kernels (default jit)
#   PYTEST ARGS   passed to pytest after ours (e.g. -x, -k pattern, --junitxml=FILE); test ids
#                 (numba/cuda/tests/cudapy/test_x.py::TestX::test_y) or module names
#                 (numba.cuda.tests.cudapy.test_x) replace the selection
#
# Needs `cargo build --release` (target/release/ptxjit and libcuda.so.1). The tests listed in
# cuda/clients/numba_suite/expected_failures.txt (each with its reason) are deselected; pytest's
# summary is printed and its exit status is this script's.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="${PYTHON:-python3}"
full=0
engine=jit
selection=()
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --python) python="$2"; shift 2 ;;
        --python=*) python="${1#--python=}"; shift ;;
        --full) full=1; shift ;;
        --engine) engine="$2"; shift 2 ;;
        --engine=*) engine="${1#--engine=}"; shift ;;
        -h|--help) sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        numba.cuda.tests.*|numba/cuda/tests/*) selection+=("$1"); shift ;;
        *) extra+=("$1"); shift ;;
    esac
done

ptxjit="$root/target/release/ptxjit"
if [ ! -x "$ptxjit" ] || [ ! -e "$root/target/release/libcuda.so.1" ]; then
    echo "numba_suite.sh: build first: cargo build --release (in $root)" >&2
    exit 2
fi
# The directory pytest's node ids are relative to: .../site-packages/numba_cuda.
pkg="$("$python" -c 'import os, numba.cuda as c; print(os.path.dirname(os.path.dirname(os.path.dirname(c.__file__))))')"

# The CI subset: quick modules that cover the driver API numba uses (contexts, memory,
# streams, events, modules, linking) and common kernel features.
quick=(
    numba.cuda.tests.cudadrv.test_cuda_driver
    numba.cuda.tests.cudadrv.test_cuda_memory
    numba.cuda.tests.cudadrv.test_deallocations
    numba.cuda.tests.cudadrv.test_events
    numba.cuda.tests.cudadrv.test_host_alloc
    numba.cuda.tests.cudadrv.test_context_stack
    numba.cuda.tests.cudadrv.test_init
    numba.cuda.tests.cudadrv.test_linker
    numba.cuda.tests.cudadrv.test_profiler
    numba.cuda.tests.cudapy.test_multiprocessing
    numba.cuda.tests.cudapy.test_atomics
    numba.cuda.tests.cudapy.test_sync
    numba.cuda.tests.cudapy.test_warp_ops
)
if [ ${#selection[@]} -eq 0 ]; then
    if [ $full -eq 1 ]; then
        selection=(numba.cuda.tests.cudadrv numba.cuda.tests.cudapy)
    else
        selection=("${quick[@]}")
    fi
fi
# Module names go through --pyargs; node ids are paths under the package directory.
targets=()
for s in "${selection[@]}"; do
    case "$s" in
        numba/*) targets+=("$pkg/$s") ;;
        *) targets+=("$s") ;;
    esac
done

cd "$root"
export PYTHONPATH="$here/numba_suite${PYTHONPATH:+:$PYTHONPATH}"
exec "$ptxjit" exec --engine "$engine" --timeout 120 -- "$python" -m pytest \
    -p numba_suite_plugin -p no:cacheprovider \
    --import-mode=importlib --rootdir "$pkg" \
    --expected-failures "$here/numba_suite/expected_failures.txt" \
    --timeout 300 --timeout-method=thread \
    -q -rfE \
    --pyargs "${targets[@]}" "${extra[@]}"
