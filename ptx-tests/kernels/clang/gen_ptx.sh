#!/bin/sh
# Compiles each kernel of this folder to PTX with clang's CUDA front end and no CUDA
# installation (cuda_min.h supplies the CUDA names): NAME.ptx at -O2 and NAME_O0.ptx at -O0,
# both for sm_80; const_table also with 32-bit pointers for the const, shared and local
# spaces (-nvptx-short-ptr) as const_table_short.ptx (-O2) and const_table_short_O0.ptx.
# The committed PTX came from Debian clang version 14.0.6 (clang-14 1:14.0.6-12). -target-feature +ptx70 lets clang accept the shfl.sync builtins, which it
# otherwise refuses when it finds no CUDA installation to take a PTX version from.
set -e
cd "$(dirname "$0")"
CLANG=${CLANG:-clang-14}
for cu in *.cu; do
    k=${cu%.cu}
    for opt in O2 O0; do
        out=$k.ptx
        [ "$opt" = O2 ] || out=${k}_$opt.ptx
        "$CLANG" -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib \
            -Xclang -target-feature -Xclang +ptx70 -$opt -S "$cu" -o "$out"
    done
done
for opt in O2 O0; do
    out=const_table_short.ptx
    [ "$opt" = O2 ] || out=const_table_short_$opt.ptx
    "$CLANG" -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib \
        -Xclang -target-feature -Xclang +ptx70 -Xclang -fcuda-short-ptr -mllvm -nvptx-short-ptr \
        -$opt -S const_table.cu -o "$out"
done
