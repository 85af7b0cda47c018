#!/bin/bash
# bench/lasso/relevance_null.sh — the calibration of the ranking's GP
# evidence threshold on pure noise (bench/README.md, section 5): builds
# bench/lasso/relevance_null.c against src/core and runs it.  No
# PostgreSQL needed.  The argument is the number of studies per shape
# (default 40).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
cc -O2 -std=gnu99 -I"$root/src/core" -I/usr/include/x86_64-linux-gnu/openblas-pthread \
	-o "$bin/relevance_null" "$here/relevance_null.c" "$root"/src/core/*.c -llapacke -lopenblas -lnlopt -lm
"$bin/relevance_null" "$@"
