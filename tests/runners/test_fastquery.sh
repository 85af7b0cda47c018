#!/bin/bash
# test_fastquery.sh: tests of tuner_fastquery (src/runners/fastquery) with
# real MPICH ranks, real parallel HDF5 files and real indexes, 2^20
# particles.  Independent checks use h5py + NumPy (fastquery_check.py).
# Also tuner_fastquery_runner's paired runs.  Prints "N passed, N
# failed"; exit 1 when any check fails.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
DIR=$ROOT/src/runners/fastquery
BIN=$DIR/tuner_fastquery
CHECK="/usr/bin/python3 $ROOT/tests/runners/fastquery_check.py"
MPIEXEC=mpiexec.mpich
N=1048576
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

ok() {
	echo "ok - $1"
	pass=$((pass + 1))
}
not_ok() {
	echo "not ok - $1"
	fail=$((fail + 1))
}
# check NAME COMMAND...: passes when the command succeeds
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
run() {
	local ranks=$1
	shift
	# mpiexec forwards its stdin to rank 0: give it none
	nice -n 10 $MPIEXEC -n "$ranks" "$BIN" "$@" < /dev/null
}
# JSON field of a file (python, for the tests' own use)
field() {
	/usr/bin/python3 -c 'import json,sys
v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v=v[k]
print(json.dumps(v))' "$1" "$2"
}

if ! make -s -C "$DIR" >/dev/null; then
	echo "build of tuner_fastquery failed"
	echo "0 passed, 1 failed"
	exit 1
fi
check "unit tests (WAH, bins, generator)" "$DIR/test_fastquery_units"

# gen: byte-identical contiguous file for 1, 2 and 3 ranks
for r in 1 2 3; do
	run $r gen --n $N --out "$T/g$r.h5" > "$T/gen$r.json" ||
		not_ok "gen with $r ranks exits 0"
done
check "gen metrics well formed" $CHECK metrics gen "$T/gen1.json"
check "gen: 2 ranks byte-identical to 1" cmp -s "$T/g1.h5" "$T/g2.h5"
check "gen: 3 ranks byte-identical to 1" cmp -s "$T/g1.h5" "$T/g3.h5"

# chunked + aligned layout: chunk addresses may differ, the data may not
run 1 gen --n $N --layout chunked --chunk 100000 --align 65536 --out "$T/c1.h5" >/dev/null
run 3 gen --n $N --layout chunked --chunk 100000 --align 65536 --out "$T/c3.h5" >/dev/null
check "chunked layout is chunked" \
	bash -c "h5dump -p -H '$T/c1.h5' | grep -q 'CHUNKED ( 100000 )'"
check "chunked: 3 ranks same content as 1 (h5dump)" \
	bash -c "[ \"\$(h5dump '$T/c1.h5' | tail -n +2 | md5sum)\" = \"\$(h5dump '$T/c3.h5' | tail -n +2 | md5sum)\" ]"
check "chunked: same values as contiguous (h5dump)" \
	bash -c "[ \"\$(h5dump -d /energy '$T/c1.h5' | tail -n +2 | md5sum)\" = \"\$(h5dump -d /energy '$T/g1.h5' | tail -n +2 | md5sum)\" ]"

# the cache: second gen of the same size and layout is a hit
run 2 gen --n 65536 --cache-dir "$T/cache" > "$T/cache1.json"
run 1 gen --n 65536 --cache-dir "$T/cache" > "$T/cache2.json"
check "gen cache: first run generates" [ "$(field "$T/cache1.json" cached)" = false ]
check "gen cache: second run is cached, same path" \
	[ "$(field "$T/cache2.json" cached)" = true -a \
	"$(field "$T/cache1.json" path)" = "$(field "$T/cache2.json" path)" ]

# build: the reference index, then the same index for every split
run 1 build --file "$T/g1.h5" --index "$T/ref.h5" --bins 64 > "$T/build.json"
check "build metrics well formed" $CHECK metrics build "$T/build.json"
check "index decodes to the binned data (h5py, WAH format)" \
	$CHECK index "$T/g1.h5" "$T/ref.h5" x y energy
for cfg in "2 1 0 collective" "3 1 0 collective" "1 2 0 collective" \
	"2 2 1 collective" "3 1 1 independent" "1 2 1 independent"; do
	set -- $cfg
	run "$1" build --file "$T/g1.h5" --index "$T/ix.h5" --bins 64 \
		--threads "$2" --overlap "$3" --io "$4" --cold 1 > "$T/b.json"
	check "index identical: ranks $1 threads $2 overlap $3 $4 I/O" \
		cmp -s "$T/ref.h5" "$T/ix.h5"
done
run 2 build --file "$T/c1.h5" --index "$T/ix.h5" --bins 64 > /dev/null
check "index of the chunked file identical" cmp -s "$T/ref.h5" "$T/ix.h5"
check "collective read reported as collective" \
	[ "$(field "$T/build.json" read_io_mode)" = '"contiguous_collective"' ]
check "independent read reported as no_collective" \
	[ "$(field "$T/b.json" read_io_mode)" = '"no_collective"' ]

# --cold 1 evicts the data file before reading it: stop the build right
# after the eviction (the index cannot be created) and look at the cache
cat "$T/g1.h5" > /dev/null
run 1 build --file "$T/g1.h5" --index "$T/no/such/dir/ix.h5" --cold 1 \
	>/dev/null 2>&1
check "build --cold 1 fails with exit 1 on an uncreatable index" [ $? -eq 1 ]
res=$(fincore --bytes --noheadings -o RES "$T/g1.h5")
check "--cold 1 evicted the data file ($res bytes still cached)" \
	[ "$res" -lt 1048576 ]

# hints: striping_factor cannot be honored off Lustre; ROMIO's cb hints are
run 2 build --file "$T/g1.h5" --index "$T/ix.h5" --striping_factor 4 \
	--striping_unit 1048576 --romio_cb_read enable --cb_buffer_size 1048576 \
	> "$T/hints.json"
check "striping_factor reported ignored on $(stat -f -c %T "$T")" \
	[ "$(field "$T/hints.json" hints_data.requested.striping_factor.honored)" = false ]
check "romio_cb_read=enable reported honored" \
	[ "$(field "$T/hints.json" hints_data.requested.romio_cb_read.honored)" = true ]
check "cb_buffer_size=1048576 reported honored" \
	[ "$(field "$T/hints.json" hints_data.requested.cb_buffer_size.honored)" = true ]
check "ROMIO's file-system driver reported" \
	grep -q '"fs_type_romio":"UFS' "$T/hints.json"

# queries: 25 random + hand-written ones, index vs NumPy full scan
Q='energy>1,x>=150;y<0.5,y>-0.5;ux<=-2;z>=0;x<0'
run 2 query --file "$T/g1.h5" --index "$T/ref.h5" --random 25 --queries "$Q" \
	--ids "$T/ids.txt" > "$T/q.json"
check "query metrics well formed" $CHECK metrics query "$T/q.json"
check "every index answer equals a NumPy full scan (hits and ids)" \
	$CHECK queries "$T/g1.h5" "$T/q.json" "$T/ids.txt"
run 3 query --file "$T/g1.h5" --scan 1 --random 25 --queries "$Q" \
	--ids "$T/ids_scan.txt" > "$T/qs.json"
check "index answers equal the program's own scan mode (3 ranks)" \
	cmp -s "$T/ids.txt" "$T/ids_scan.txt"
check "index mode read fewer values than a scan" \
	[ "$(field "$T/q.json" values_read)" -lt "$(field "$T/qs.json" values_read)" ]

# ragged sizes: n not a multiple of the block or of 31, and a rank with no
# block at all (5000 particles = 2 blocks of 4096 over 3 ranks)
for n in 100003 5000; do
	run 1 gen --n $n --out "$T/s.h5" >/dev/null
	run 1 build --file "$T/s.h5" --index "$T/s1.h5" --block 4096 --bins 7 >/dev/null
	run 3 build --file "$T/s.h5" --index "$T/s3.h5" --block 4096 --bins 7 \
		--threads 2 --overlap 1 >/dev/null
	check "n=$n: index identical for 1 and 3 ranks" cmp -s "$T/s1.h5" "$T/s3.h5"
	check "n=$n: index decodes to the binned data" \
		$CHECK index "$T/s.h5" "$T/s3.h5" x energy
	run 3 query --file "$T/s.h5" --index "$T/s3.h5" --random 20 \
		--ids "$T/sids.txt" > "$T/sq.json"
	check "n=$n: 20 answers equal the full scan" \
		$CHECK queries "$T/s.h5" "$T/sq.json" "$T/sids.txt"
done

# invalid input: exit 2, reason on stderr; a missing file: exit 1
run 1 build --file "$T/g1.h5" --index "$T/ix.h5" --bogus 1 >/dev/null 2>&1
check "unknown option exits 2" [ $? -eq 2 ]
run 1 query --file "$T/g1.h5" --index "$T/ref.h5" --queries "mass>1" >/dev/null 2>&1
check "unknown variable exits 2" [ $? -eq 2 ]
# every rank finds bad input alike: each exits 2, rank 0 alone says why
run 3 query --file "$T/g1.h5" --index "$T/ref.h5" --queries "mass>1" \
	>/dev/null 2>"$T/bad3.err"
check "unknown variable with 3 ranks exits 2" [ $? -eq 2 ]
check "unknown variable with 3 ranks: the reason once" \
	[ "$(grep -c 'unknown variable' "$T/bad3.err")" -eq 1 ]
run 1 query --file "$T/g1.h5" --index "$T/ref.h5" --queries "x<nan" >/dev/null 2>&1
check "NaN constant exits 2" [ $? -eq 2 ]
run 1 build --file "$T/missing.h5" --index "$T/ix.h5" >/dev/null 2>&1
check "missing data file exits 1" [ $? -eq 1 ]

# the runner, paired: the default configuration (an empty one) against
# itself, repeats 2 = 4 runs in the order default, trial, trial, default
RUNNER=$DIR/tuner_fastquery_runner
S="\"particles\": $N, \"random_queries\": 4, \"data_dir\": \"$T/fqdata\""
mkdir -p "$T/fqdata"
echo "{\"_settings\": {$S, \"paired\": true, \"repeats\": 2}}" |
	nice -n 10 "$RUNNER" > "$T/paired.json" 3> "$T/paired.progress"
check "paired runner run exits 0" [ $? -eq 0 ]
check "paired output: metrics, total_s_default, speedup_vs_default, 4 runs" \
	/usr/bin/python3 - "$T/paired.json" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
keys = ["total_s", "build_s", "query_s", "read_s", "range_s", "index_s",
        "write_s", "index_bytes", "cpu_s", "gen_s"]
runs = d["_diagnostics"]["runs"]
assert [(r["role"], r["repeat"]) for r in runs] == \
    [("default", 1), ("trial", 1), ("trial", 2), ("default", 2)], runs
assert d["_diagnostics"]["paired"] is True and d["_diagnostics"]["repeats"] == 2
for k in keys:
    mean = sum(r[k] for r in runs if r["role"] == "trial") / 2
    assert math.isclose(d[k], mean, rel_tol=1e-12, abs_tol=1e-12), (k, d[k], mean)
    assert all(isinstance(r[k], (int, float)) for r in runs), k
dflt = sum(r["total_s"] for r in runs if r["role"] == "default") / 2
assert math.isclose(d["total_s_default"], dflt, rel_tol=1e-12), d
# geometric mean of default/trial per repeat, computed here independently
by = {(r["role"], r["repeat"]): r["total_s"] for r in runs}
ref = math.exp(sum(math.log(by["default", k] / by["trial", k]) for k in (1, 2)) / 2)
s = d["speedup_vs_default"]
assert math.isfinite(s) and s > 0 and math.isclose(s, ref, rel_tol=1e-9), (s, ref)
for r in runs:
    assert math.isclose(r["total_s"], r["build_s"] + r["query_s"], rel_tol=1e-12)
# the same index for the same configuration
assert len({r["index_bytes"] for r in runs}) == 1
assert "hints_data" in d["_effective"]
PY
# issue 29: the pairs in ABBA order, speedup_vs_default their geometric
# mean, its _std_error the delta method's from their spread
PAIRED_CHECK="/usr/bin/python3 $ROOT/tests/runners/paired_check.py"
check "paired: ABBA order, speedup = geometric mean of the pair ratios, _std_error" \
	$PAIRED_CHECK pairs "$T/paired.json" speedup_vs_default pair_ratios 2 pair_ratio_sd_log
# issue 30: one progress line per phase on fd 3, as tuner reads them, and
# the numbers are those of the runs the output reports
check "progress: well-formed lines on fd 3, one per phase (12)" \
	$PAIRED_CHECK progress "$T/paired.progress" 12 '(gen|build|query|total)_s(_default)?'
check "progress: step = phase index, the phase's seconds and the running total" \
	/usr/bin/python3 - "$T/paired.progress" "$T/paired.json" <<'PY'
import json, math, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
runs = json.load(open(sys.argv[2]))["_diagnostics"]["runs"]
assert len(rows) == 3 * len(runs), (len(rows), len(runs))
for j, r in enumerate(runs):
    sfx = "_default" if r["role"] == "default" else ""
    for i, phase in enumerate(["gen", "build", "query"]):
        row = rows[3 * j + i]
        assert row["step"] == 3 * j + i + 1, row
        assert set(row["metrics"]) == {phase + "_s" + sfx, "total_s" + sfx}, row
        assert math.isclose(row["metrics"][phase + "_s" + sfx], r[phase + "_s"],
                            rel_tol=1e-9, abs_tol=1e-12), (row, r)
    assert math.isclose(rows[3 * j + 2]["metrics"]["total_s" + sfx], r["total_s"],
                        rel_tol=1e-9), (rows[3 * j + 2], r)
PY
echo "{\"_settings\": {$S, \"paired\": true}}" > "$T/paired1.in"
nice -n 10 "$RUNNER" < "$T/paired1.in" > "$T/paired1.json" 3>&-
check "paired, one pair: no _std_error (one pair gives no spread), no fd 3" \
	$PAIRED_CHECK pairs "$T/paired1.json" speedup_vs_default pair_ratios 1
# fd 3 must never stop the trial: a pipe without reader (EPIPE) or one
# that is full and never read (EAGAIN) ends the streaming, not the trial
check "progress: fd 3 without reader (EPIPE): the trial goes on" \
	$PAIRED_CHECK fd3 closed "$T/paired1.in" "$T/epipe.json" -- nice -n 10 "$RUNNER"
check "progress: fd 3 full, never read (EAGAIN): the trial goes on" \
	$PAIRED_CHECK fd3 full "$T/paired1.in" "$T/eagain.json" -- nice -n 10 "$RUNNER"
echo "{\"bins\": 16, \"_settings\": {$S}}" | nice -n 10 "$RUNNER" > "$T/unpaired.json"
check "unpaired runner output has no paired keys and no _diagnostics" \
	/usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert list(d) == ["total_s", "build_s", "query_s", "read_s", "range_s", "index_s",
                   "write_s", "index_bytes", "cpu_s", "gen_s", "_effective"], list(d)' "$T/unpaired.json"
for bad in '"repeats": 0' '"repeats": 17' '"repeats": 1.5' '"paired": "yes"' '"max_ranks": 0' '"max_ranks": 65'; do
	echo "{\"_settings\": {$S, $bad}}" | "$RUNNER" >/dev/null 2>"$T/bad.err"
	check "runner setting $bad exits 2 with a reason" \
		bash -c "[ $? -eq 2 ] && tail -1 '$T/bad.err' | grep -q 'setting'"
done
# more ranks than the setting max_ranks (the trial host's cores): refused
# before any MPI run, with the reason
echo "{\"ranks\": 3, \"_settings\": {$S, \"max_ranks\": 2}}" | "$RUNNER" >/dev/null 2>"$T/bad.err"
check "ranks above max_ranks exits 2 with a reason" \
	bash -c "[ $? -eq 2 ] && tail -1 '$T/bad.err' | grep -q 'ranks 3 exceeds setting max_ranks 2'"
# a newline in a parameter name stays escaped on the last stderr line
echo "{\"bad\\nkey\": 1, \"_settings\": {$S}}" | "$RUNNER" >/dev/null 2>"$T/bad.err"
check "a newline in a parameter name exits 2, escaped on the last line" \
	bash -c "[ $? -eq 2 ] && tail -1 '$T/bad.err' | grep -qF 'unknown parameter \"bad\\x0akey\"'"
# a repeated parameter is refused, not one of its values taken
echo "{\"bins\": 10, \"bins\": 20, \"_settings\": {$S}}" | "$RUNNER" >/dev/null 2>"$T/bad.err"
check "a repeated parameter exits 2 with a reason" \
	bash -c "[ $? -eq 2 ] && tail -1 '$T/bad.err' | grep -q 'duplicate object key'"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
