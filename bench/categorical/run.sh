#!/bin/bash
# bench/categorical/run.sh [seeds [trials [n_initial]]]: build middle.c
# against src/core (no server needed) and run it, niced, one BLAS thread.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
core="$here/../../src/core"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
nice -n 19 gcc -std=gnu99 -O2 -I"$core" \
	-I/usr/include/x86_64-linux-gnu/openblas-pthread \
	-o "$out/middle" "$here/middle.c" "$core"/*.c \
	-llapacke -lopenblas -lnlopt -lm
OPENBLAS_NUM_THREADS=1 nice -n 19 "$out/middle" "$@"
