#!/usr/bin/env bash
# Unmodified CUDA client programs (numba-cuda, cuda-python) on ptxjit's drop-in libcuda.so.1,
# on both engines. Needs `cargo build --release` first (the ptxjit binary and libcuda.so).
# Makes its own venv (.ci/venv-clients) with the pinned wheels of cuda/clients/requirements.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.ci/venv-clients
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q --disable-pip-version-check -r cuda/clients/requirements.txt

py="$venv/bin/python"
exec_=(target/release/ptxjit exec)
for engine in jit interp; do
    echo "--- numba-cuda ($engine)"
    "${exec_[@]}" --engine "$engine" -- "$py" cuda/clients/numba_kernels.py
    echo "--- cuda-python ($engine)"
    "${exec_[@]}" --engine "$engine" -- "$py" cuda/clients/cuda_python.py
done
echo "--- cuda-python, per-thread default stream"
CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM=1 "${exec_[@]}" -- "$py" cuda/clients/cuda_python.py
echo "--- numba-cuda's own test suite (CI subset; the whole suite: cuda/clients/numba_suite.sh --full)"
cuda/clients/numba_suite.sh --python "$py"
