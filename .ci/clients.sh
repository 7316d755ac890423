#!/usr/bin/env bash
# Unmodified CUDA client programs (numba-cuda, cuda-python, Rust's cudarc) on ptxjit's drop-in
# libcuda.so.1, on both engines. Needs `cargo build --release` first (the ptxjit binary and
# libcuda.so). Makes its own venv (.ci/venv-clients) with the pinned wheels of
# cuda/clients/requirements.txt; the cudarc program (its own Cargo project, locked) takes NVRTC
# from that venv.
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
    echo "--- numba kernels that fault, assert and trap ($engine)"
    "${exec_[@]}" --engine "$engine" -- "$py" cuda/clients/numba_faults.py
done
echo "--- cuda-python, per-thread default stream"
CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM=1 "${exec_[@]}" -- "$py" cuda/clients/cuda_python.py
echo "--- cudarc (Rust; NVRTC from the venv's wheel)"
nvrtc_lib=$("$py" -c 'import nvidia.cuda_nvrtc as m, os; print(os.path.join(list(m.__path__)[0], "lib"))')
cudarc=(cargo run --release --locked -q --manifest-path cuda/clients/cudarc/Cargo.toml)
cargo build --release --locked -q --manifest-path cuda/clients/cudarc/Cargo.toml
for engine in jit interp; do
    echo "--- cudarc ($engine)"
    LD_LIBRARY_PATH="$nvrtc_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        "${exec_[@]}" --engine "$engine" -- "${cudarc[@]}"
done
echo "--- numba-cuda's own test suite (CI subset; the whole suite: cuda/clients/numba_suite.sh --full)"
cuda/clients/numba_suite.sh --python "$py"
echo "--- CUDA C++ programs built by nvcc 13 (examples/cuda), on libcudart + libcuda"
nvcc_venv=.ci/venv-nvcc
if [ ! -x "$nvcc_venv/bin/python" ]; then
    python3 -m venv "$nvcc_venv"
fi
"$nvcc_venv/bin/pip" install -q --disable-pip-version-check -r cudart/requirements.txt
NVCC=$(ls "$nvcc_venv"/lib/python3*/site-packages/nvidia/cu13/bin/nvcc | head -1) \
CUDA12=$("$py" -c 'import nvidia.cuda_runtime as m, os; print(os.path.dirname(list(m.__path__)[0]))') \
    examples/cuda/run.sh target/cuda-examples
