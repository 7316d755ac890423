#!/usr/bin/env bash
# Remakes the fatbins of this folder from kernels.cu with CUDA 13's nvcc (the
# nvidia-cuda-nvcc wheel: python3 -m venv /tmp/nvcc13 && /tmp/nvcc13/bin/pip install
# 'nvidia-cuda-nvcc>=13,<14', then PATH=/tmp/nvcc13/lib/python3*/site-packages/nvidia/cu13/bin:$PATH).
# The tests read the committed files and never run nvcc.
set -euo pipefail
cd "$(dirname "$0")"
nvcc --version | tail -2
f() { out=$1; shift; nvcc -fatbin "$@" kernels.cu -o "$out"; }
# PTX for compute_80: compressed by default (zstd), LZ4 (--compress-mode=speed), not at all.
f ptx-zstd.fatbin -gencode arch=compute_80,code=compute_80
f ptx-lz4.fatbin -gencode arch=compute_80,code=compute_80 --compress-mode=speed
f ptx-plain.fatbin -gencode arch=compute_80,code=compute_80 --no-compress
# SASS for sm_80 and PTX: the ELF stays uncompressed unless -compress-all.
f sass-ptx.fatbin -gencode arch=compute_80,code=[sm_80,compute_80]
f sass-ptx-all.fatbin -gencode arch=compute_80,code=[sm_80,compute_80] -Xfatbin=-compress-all
# SASS only: nothing ptxjit can run.
f sass.fatbin -gencode arch=compute_80,code=sm_80
# SASS for sm_80 and PTX only for a newer architecture (as CuPy's wheels ship CUB): a GPU of
# compute capability 8.x runs the SASS, ptxjit the compute_100 PTX in its place.
f sass-newer-ptx.fatbin -gencode arch=compute_80,code=sm_80 -gencode arch=compute_100,code=compute_100
# Several PTX architectures: the driver takes the highest one not above the device's.
f multi.fatbin -gencode arch=compute_75,code=compute_75 -gencode arch=compute_80,code=compute_80 \
    -gencode arch=compute_90,code=compute_90
# Architecture- and family-specific PTX (sm_90a, sm_100f) beside plain compute_90.
f specific.fatbin -gencode arch=compute_90a,code=compute_90a \
    -gencode arch=compute_100f,code=compute_100f -gencode arch=compute_90,code=compute_90 --no-compress
# The PTX that nvcc writes for compute_80: the fatbins' compute_80 entries are this text less
# its comments and indentation.
nvcc -ptx -arch=compute_80 kernels.cu -o kernels.compute_80.ptx
ls -l ./*.fatbin
