#!/usr/bin/env bash
# Builds the CUDA C++ examples with nvcc 13 (PTX only: -gencode arch=compute_80,code=compute_80,
# linked against NVIDIA's libcudart.so.13 as any program is) and runs each on ptxjit's
# libcudart/libcuda under both engines. Every program checks its own result and prints PASS.
#
# Usage: examples/cuda/run.sh [BUILD_DIR]      (default: target/cuda-examples)
#   NVCC=/path/to/nvcc   nvcc 13 (default: the one in .venv-nvcc, made by
#                        `python3 -m venv .venv-nvcc && .venv-nvcc/bin/pip install -r cudart/requirements.txt`)
#   CUDA12=/path/to/site-packages/nvidia   also build examples/cuda/cuda12_host.cpp with g++
#                        against CUDA 12's headers and libcudart.so.12 (pip nvidia-cuda-runtime-cu12
#                        and nvidia-cuda-nvcc-cu12, whose crt/ headers it needs) and run it
#   PTXJIT=/path/to/ptxjit   the ptxjit binary (default: target/release/ptxjit; its directory
#                        holds libcuda.so.1 and libcudart.so.13, built by `cargo build --release`)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SRC=$ROOT/examples/cuda
BUILD=${1:-$ROOT/target/cuda-examples}
PTXJIT=${PTXJIT:-$ROOT/target/release/ptxjit}
if [ -z "${NVCC:-}" ]; then
  NVCC=$(ls "$ROOT"/.venv-nvcc/lib/python3*/site-packages/nvidia/cu13/bin/nvcc 2>/dev/null | head -1)
fi
if [ -z "$NVCC" ] || [ ! -x "$NVCC" ]; then
  echo "run.sh: no nvcc 13 (set NVCC, or: python3 -m venv .venv-nvcc && .venv-nvcc/bin/pip install -r cudart/requirements.txt)" >&2
  exit 2
fi
if ! command -v g++ >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get install -y g++ >/dev/null || { echo "run.sh: installing g++ failed" >&2; exit 2; }
  else
    echo "run.sh: nvcc needs a host C++ compiler: install g++ (apt-get install -y g++)" >&2
    exit 2
  fi
fi
[ -x "$PTXJIT" ] || { echo "run.sh: no $PTXJIT (cargo build --release)" >&2; exit 2; }
# Absolute paths: the library link below and the runs happen in other directories.
NVCC=$(cd "$(dirname "$NVCC")" && pwd)/$(basename "$NVCC")
mkdir -p "$BUILD/nvlib"
BUILD=$(cd "$BUILD" && pwd)
PTXJIT=$(cd "$(dirname "$PTXJIT")" && pwd)/$(basename "$PTXJIT")
CU=$(dirname "$(dirname "$NVCC")")
# nvcc links -lcudart: NVIDIA's library, as for any program (ptxjit's replaces it at run time).
ln -sf "$CU/lib/libcudart.so.13" "$BUILD/nvlib/libcudart.so"
PTX="-gencode arch=compute_80,code=compute_80"

# Programs whose feature ptxjit lacks for now: name and reason. They run, and their failure
# is reported as expected (a pass is reported too, so the list can shrink).
declare -A XFAIL=(
)

build() { # name, nvcc arguments...
  local name=$1; shift
  if ! "$NVCC" --cudart shared -std=c++17 -O2 -L"$BUILD/nvlib" -o "$BUILD/$name" "$@" >"$BUILD/$name.build.log" 2>&1; then
    echo "BUILD FAIL $name (see $BUILD/$name.build.log)"; cat "$BUILD/$name.build.log"; return 1
  fi
}

# Programs built from one .cu each with PTX only; the rest are built their own way below.
PLAIN=(vector_add managed memory pools launch_errors bad_arguments matmul reduce scan histogram streams texture symbols printf_assert new_delete grid_sync graph graph_nodes graph_edit graph_pipeline fault library barrier thrust_by_key)
fails=0
build_all() {
  for f in "${PLAIN[@]}"; do
    build "$f" $PTX "$SRC/$f.cu" || fails=$((fails + 1))
  done
  build thrust_sort $PTX "$SRC/thrust_sort.cu" || fails=$((fails + 1))
  # Also calls the driver API: linked with ptxjit's libcuda.so (pip's CUDA has no libcuda stub).
  build mixed $PTX "$SRC/mixed.cu" -L"$(dirname "$PTXJIT")" -lcuda || fails=$((fails + 1))
  build sass_and_ptx -gencode arch=compute_80,code=[sm_80,compute_80] "$SRC/vector_add.cu" || fails=$((fails + 1))
  build sass_only -gencode arch=compute_80,code=sm_80 "$SRC/sass_only.cu" || fails=$((fails + 1))
  build rdc -rdc=true $PTX "$SRC/rdc/main.cu" "$SRC/rdc/helper.cu" || fails=$((fails + 1))
  build rdc_symbols -rdc=true $PTX "$SRC/rdc_symbols/main.cu" "$SRC/rdc_symbols/helper.cu" \
    "$SRC/rdc_symbols/vars.cu" || fails=$((fails + 1))
  # Thread block clusters need compute capability 9.0: PTX for compute_90, run with --cc 9.0.
  build cluster -gencode arch=compute_90,code=compute_90 "$SRC/cluster.cu" || fails=$((fails + 1))
}

if [ -n "${CUDA12:-}" ]; then
  mkdir -p "$BUILD/nvlib12"
  ln -sf "$CUDA12/cuda_runtime/lib/libcudart.so.12" "$BUILD/nvlib12/libcudart.so"
  g++ -O1 -I"$CUDA12/cuda_runtime/include" -I"$CUDA12/cuda_nvcc/include" -o "$BUILD/cuda12_host" \
    "$SRC/cuda12_host.cpp" -L"$BUILD/nvlib12" -lcudart >"$BUILD/cuda12_host.build.log" 2>&1 \
    || { echo "BUILD FAIL cuda12_host"; cat "$BUILD/cuda12_host.build.log"; fails=$((fails + 1)); }
fi

check() { # name, engine, runner...
  local name=$1 engine=$2; shift 2
  local out="$BUILD/$name.$engine"
  ( cd "$BUILD" && timeout 300 "$@" "./$name" >"$out.stdout" 2>"$out.stderr" )
  local rc=$?
  local ok=0
  if [ $rc = 0 ] && grep -q '^PASS$' "$out.stdout"; then ok=1; fi
  # The fault must come with ptxjit's located report, naming the buffer by the runtime call
  # that made it (cudaMalloc); the SASS-only binary with advice.
  if [ "$name" = fault ] && ! grep -q "ptxjit.*'cudaMalloc'" "$out.stderr"; then ok=0; fi
  # ... and the kernel's printf text before the host's next line.
  if [ "$name" = fault ] && [ "$(grep -m1 -e '^device: before' -e '^kernel:' "$out.stdout")" != "device: before the store" ]; then ok=0; fi
  if [ "$name" = sass_only ] && ! grep -q 'compute_' "$out.stderr"; then ok=0; fi
  if [ -n "${XFAIL[$name]:-}" ]; then
    if [ $ok = 1 ]; then echo "XPASS $name ($engine): passes now; remove it from XFAIL"
    else echo "XFAIL $name ($engine): ${XFAIL[$name]}"; fi
  elif [ $ok = 1 ]; then
    echo "ok    $name ($engine)"
  else
    echo "FAIL  $name ($engine), exit $rc"; sed 's/^/    /' "$out.stdout" "$out.stderr" | tail -20
    fails=$((fails + 1))
  fi
}

build_all
for name in "${PLAIN[@]}" thrust_sort mixed sass_and_ptx sass_only rdc rdc_symbols cuda12_host; do
  [ -x "$BUILD/$name" ] || continue
  for engine in jit interp; do
    check "$name" "$engine" "$PTXJIT" exec --engine "$engine" --
  done
done
if [ -x "$BUILD/cluster" ]; then
  for engine in jit interp; do
    check cluster "$engine" "$PTXJIT" exec --cc 9.0 --engine "$engine" --
  done
fi
# The plain way, without ptxjit exec: the loader finds ptxjit's libraries on the path.
check vector_add ld_library_path env LD_LIBRARY_PATH="$(dirname "$PTXJIT")"
if [ $fails != 0 ]; then echo "run.sh: $fails failed"; exit 1; fi
echo "run.sh: all passed"
