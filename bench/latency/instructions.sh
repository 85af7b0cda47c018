#!/bin/bash
# bench/latency/instructions.sh n d failed: instructions per GP-EI
# suggestion step of tuner_suggest (src/core, no server), counted by
# valgrind (callgrind), so the figure does not depend on what else the
# machine runs.  suggest_core.c is run with 1 and with 5 timed steps
# (each after one cold step, the failure model warm-started as
# tuner.suggest_next does); the difference over 4 is one step's count.
# OpenBLAS's Haswell kernels: valgrind does not emulate AVX-512.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
n=${1:?usage: instructions.sh n d failed}
d=${2:?usage: instructions.sh n d failed}
failed=${3:?usage: instructions.sh n d failed}
command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
core="$here/../../src/core"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
gcc -std=gnu99 -O2 -Wall -I"$core" \
	-I/usr/include/x86_64-linux-gnu/openblas-pthread \
	-o "$out/suggest_core" "$here/suggest_core.c" "$core"/*.c \
	-llapacke -lopenblas -lnlopt -lm
count() {
	OPENBLAS_NUM_THREADS=1 OPENBLAS_CORETYPE=Haswell \
		valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$out/suggest_core" "$n" "$d" "$failed" "$1" 0 1 2>&1 >/dev/null |
		sed -n 's/.*refs: *//p' | tr -d ,
}
one=$(count 1)
five=$(count 5)
echo "n=$n d=$d failed=$failed instructions_per_step=$(( (five - one) / 4 ))"
