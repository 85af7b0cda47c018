#!/bin/bash
# bench/latency/core_program.sh NAME [args]: build NAME.c of this directory
# against src/core (no server needed) and run it with args, one BLAS
# thread, with OpenBLAS's SkylakeX kernels unless OPENBLAS_CORETYPE says
# otherwise (as bench/multitask/core_program.sh: OpenBLAS does not know
# this VM's CPU model and would pick its SSE3 kernels).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=${1:?usage: core_program.sh NAME [args]}
shift
core="$here/../../src/core"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
gcc -std=gnu99 -O2 -Wall -I"$core" \
	-I/usr/include/x86_64-linux-gnu/openblas-pthread \
	-o "$out/$name" "$here/$name.c" "$core"/*.c \
	-llapacke -lopenblas -lnlopt -lm
OPENBLAS_NUM_THREADS=1 OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-SkylakeX} \
	"$out/$name" "$@"
