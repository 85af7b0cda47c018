#!/bin/bash
# run_libfuzzer.sh [SECONDS]: build the libFuzzer targets of the runners'
# pure-C parsers with clang -fsanitize=fuzzer,address,undefined and run
# each for SECONDS (default 30) from its seed corpus in
# tests/fuzz/corpus/<target>: logparse (RocksDB db_bench output and LOG),
# json (the runners' JSON output helpers), fastquery (query language,
# options, the runner's trial input and "_effective" output), ceph (Ceph's
# answers, the catalog, the state file), rocksdb_input and ceph_input (the
# trial input of tuner_rocksdb and of tuner_ceph).  Fails on any crash,
# leak, timeout or sanitizer report; prints the executions of each target.
set -uo pipefail
cd "$(dirname "$0")/../.."
SECONDS_PER_TARGET=${1:-30}
WORK=$(mktemp -d /tmp/tuner-libfuzzer.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
SAN='-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer'
CFLAGS="-std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter $SAN"
RDB=src/runners/rocksdb
COMMON=src/runners/common
FQ=src/runners/fastquery
CEPH=src/runners/ceph
# fq.h includes mpi.h (MPICH's headers only; nothing of MPI is linked)
MPI_CFLAGS=$(pkg-config --cflags mpich) || exit 1

build() {
	local name=$1
	shift
	if ! clang-14 $CFLAGS -I$RDB -I$COMMON -I$FQ -I$CEPH $MPI_CFLAGS -o "$WORK/$name" "$@" -ljansson -lm; then
		echo "run_libfuzzer: building $name failed" >&2
		return 1
	fi
}

status=0
# the builds side by side (two cores); any failure stops the run
build fuzz_logparse tests/fuzz/fuzz_logparse.c $RDB/logparse.c $COMMON/json.c &
build fuzz_json tests/fuzz/fuzz_json.c $COMMON/json.c &
build fuzz_fastquery tests/fuzz/fuzz_fastquery.c $FQ/query_parse.c $FQ/opts.c $FQ/bins.c \
	$FQ/trial.c $COMMON/json.c &
build fuzz_ceph tests/fuzz/fuzz_ceph.c $CEPH/answers.c &
build fuzz_rocksdb_input tests/fuzz/fuzz_rocksdb_input.c $RDB/rdb_input.c $COMMON/json.c &
build fuzz_ceph_input tests/fuzz/fuzz_ceph_input.c $CEPH/ceph_input.c $CEPH/option_policy.c $COMMON/json.c &
for job in $(jobs -p); do
	wait "$job" || status=1
done
[ $status -eq 0 ] || exit 1

for t in logparse json fastquery ceph rocksdb_input ceph_input; do
	# a scratch copy: new inputs found in the run do not touch the repository
	mkdir -p "$WORK/corpus-$t"
	cp tests/fuzz/corpus/$t/* "$WORK/corpus-$t/"
	echo "--- libFuzzer: $t for $SECONDS_PER_TARGET s"
	if ! UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		nice -n 10 "$WORK/fuzz_$t" -max_total_time="$SECONDS_PER_TARGET" \
		-seed=1 -timeout=10 -rss_limit_mb=1024 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix="$WORK/" \
		"$WORK/corpus-$t" > "$WORK/$t.log" 2>&1; then
		tail -60 "$WORK/$t.log"
		for a in "$WORK"/crash-* "$WORK"/leak-* "$WORK"/timeout-* "$WORK"/oom-*; do
			[ -f "$a" ] || continue
			echo "run_libfuzzer: $t failing input $a (base64):"
			base64 "$a" | head -20
		done
		echo "run_libfuzzer: $t FAILED" >&2
		status=1
		continue
	fi
	runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$WORK/$t.log" | grep -o '[0-9]*$')
	echo "run_libfuzzer: $t: $runs executions in $SECONDS_PER_TARGET s, no crash"
done
exit $status
