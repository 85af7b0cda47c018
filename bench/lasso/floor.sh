#!/bin/bash
# bench/lasso/floor.sh — the floor of an exact Lasso path + 5-fold CV on
# this machine against LassoCV (bench/README.md, section 5): builds
# bench/lasso/floor.c against src/core and runs bench/lasso/floor.py.
# No PostgreSQL needed.  Options go to floor.py (--repeats).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
cc -O2 -std=gnu99 -I"$root/src/core" -I/usr/include/x86_64-linux-gnu/openblas-pthread \
	-o "$bin/floor" "$here/floor.c" "$root"/src/core/*.c -llapacke -lopenblas -lnlopt -lm
/usr/bin/python3 "$here/floor.py" --floor "$bin/floor" "$@"
