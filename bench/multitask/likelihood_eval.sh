#!/bin/bash
# bench/multitask/likelihood_eval.sh [n [reps]]: build likelihood_eval.c
# against src/core (no server needed) and run it, one BLAS thread, with
# OpenBLAS's SkylakeX kernels unless OPENBLAS_CORETYPE says otherwise.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
core="$here/../../src/core"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
gcc -std=gnu99 -O2 -Wall -I"$core" \
	-I/usr/include/x86_64-linux-gnu/openblas-pthread \
	-o "$out/likelihood_eval" "$here/likelihood_eval.c" "$core"/*.c \
	-llapacke -lopenblas -lnlopt -lm
OPENBLAS_NUM_THREADS=1 OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-SkylakeX} \
	"$out/likelihood_eval" "$@"
