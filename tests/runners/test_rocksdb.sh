#!/bin/bash
# test_rocksdb.sh: tests of tuner_rocksdb, the RocksDB trial runner, with
# the real db_bench and librocksdb (no mocks).  Prints "N passed, N failed"
# and exits non-zero on any failure.  About 1-2 minutes.
#
#   bash tests/runners/test_rocksdb.sh [path/to/tuner_rocksdb]
#
# Runs as root (CI) or as any user; when run as root and a "postgres" user
# exists, one trial also runs as postgres with the default work directory.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
RUNNER=${1:-$ROOT/src/runners/rocksdb/tuner_rocksdb}
FIXTURES=$ROOT/tests/runners/fixtures
PY=/usr/bin/python3

if [ ! -x "$RUNNER" ]; then
	make -s -C "$ROOT/src/runners/rocksdb" || exit 1
fi

WORK=$(mktemp -d /tmp/tuner_rocksdb_test.XXXXXX)
# A small base DB keeps the one-time fill short in CI.
NUM_KEYS=${TUNER_TEST_NUM_KEYS:-300000}
trap 'rm -rf "$WORK"' EXIT

passed=0
failed=0
ok() {
	echo "ok - $1"
	passed=$((passed + 1))
}
not_ok() {
	echo "not ok - $1"
	[ -n "${2:-}" ] && echo "$2" | sed 's/^/    /'
	failed=$((failed + 1))
}
# check NAME CMD...: pass when CMD succeeds.
check() {
	local name=$1
	shift
	local out
	if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "$out"; fi
}

settings() { # settings DURATION [extra json members]
	echo "\"_settings\": {\"duration_s\": $1, \"work_dir\": \"$WORK/wd\", \"num_keys\": $NUM_KEYS${2:+, $2}}"
}

# --- LOG parsing of a real LOG excerpt against an independent reading ----
logcheck() { # logcheck FILE...: runner's --parse-log equals python's count
	"$RUNNER" --parse-log "$@" > "$WORK/parse.json" || return 1
	$PY - "$WORK/parse.json" "$@" <<'EOF'
import json, sys
got = json.load(open(sys.argv[1]))
flush = comp = moves = 0
fbytes = cbytes = 0.0
l0l1 = []
for path in sys.argv[2:]:
    fjobs, l0jobs = set(), set()
    for line in open(path, errors="replace"):
        if line.startswith("== "):       # LOG.excerpt: next LOG file
            fjobs, l0jobs = set(), set()
        if "EVENT_LOG_v1 " not in line:
            continue
        ev = json.loads(line.split("EVENT_LOG_v1 ", 1)[1])
        e, job = ev.get("event"), ev.get("job")
        if e == "flush_started": fjobs.add(job)
        elif e == "flush_finished": flush += 1
        elif e == "table_file_creation" and job in fjobs: fbytes += ev["file_size"]
        elif e == "trivial_move": moves += 1
        elif e == "compaction_started" and ev.get("files_L0"): l0jobs.add(job)
        elif e == "compaction_finished":
            comp += 1
            cbytes += ev["total_output_size"]
            if ev["output_level"] == 1 and job in l0jobs:
                l0l1.append(ev["compaction_time_micros"] / 1000.0)
want = {"flush_count": flush, "compaction_count": comp, "trivial_moves": moves,
        "flush_bytes": fbytes, "compaction_bytes": cbytes}
for k, v in want.items():
    assert abs(got[k] - v) < 1e-6, (k, got[k], v)
assert len(got["l0_l1_compaction_ms"]) == len(l0l1), (got, l0l1)
for a, b in zip(sorted(got["l0_l1_compaction_ms"]), sorted(l0l1)):
    assert abs(a - b) < 1e-9, (a, b)
if l0l1:
    import statistics
    s = sorted(l0l1); r = 0.99 * (len(s) - 1); lo = int(r)
    p99 = s[-1] if lo >= len(s) - 1 else s[lo] + (r - lo) * (s[lo + 1] - s[lo])
    assert abs(got["p99_l0_l1_compaction_ms"] - p99) < 1e-6, (got, p99)
else:
    assert got["p99_l0_l1_compaction_ms"] is None
assert got["bad_lines"] == 0, got
print(got)
EOF
}
check "LOG parsing: fixture $(basename "$FIXTURES"/LOG.mixgraph-7.8.3)" \
	logcheck "$FIXTURES/LOG.mixgraph-7.8.3"
check "LOG parsing: fixture has flushes and L0->L1 compactions" \
	$PY -c "import json,sys; d=json.load(open('$WORK/parse.json')); sys.exit(not (d['flush_count'] >= 5 and len(d['l0_l1_compaction_ms']) >= 2))"

# --- bad input --------------------------------------------------------------
badinput() { # badinput NAME INPUT EXPECTED-STDERR-SUBSTRING
	local rc
	echo "$2" | "$RUNNER" > "$WORK/bad.out" 2> "$WORK/bad.err"
	rc=$?
	if [ "$rc" -ne 2 ]; then
		not_ok "$1" "exit status $rc, want 2; stderr: $(cat "$WORK/bad.err")"
	elif [ -s "$WORK/bad.out" ]; then
		not_ok "$1" "stdout not empty: $(cat "$WORK/bad.out")"
	elif ! tail -1 "$WORK/bad.err" | grep -qF -- "$3"; then
		not_ok "$1" "last stderr line lacks '$3': $(cat "$WORK/bad.err")"
	else
		ok "$1: $(tail -1 "$WORK/bad.err")"
	fi
}
badinput "bad input: unknown parameter" '{"cache_size": 8388608}' 'unknown parameter "cache_size"'
badinput "bad input: garbage" 'this is not json' 'input is not valid JSON'
badinput "bad input: truncated JSON" '{"block_size": 4096' 'input is not valid JSON'
badinput "bad input: empty" '' 'input is not valid JSON'
badinput "bad input: not an object" '[1, 2]' 'must be a JSON object'
badinput "bad input: non-numeric value" '{"block_size": "big"}' '"block_size" in the configuration must be a number, not a string'
badinput "bad input: non-integer" '{"write_buffer_size": 1.5}' 'must be an integer'
badinput "bad input: out of range" '{"max_write_buffer_number": 0}' 'outside the accepted range'
badinput "bad input: bad settings" '{"_settings": {"duration_s": "long"}}' '_settings.duration_s must be an integer'
badinput "bad input: bad default_config" '{"_settings": {"default_config": {"nope": 1}}}' 'unknown parameter "nope" in _settings.default_config'
badinput "bad input: segments 0" '{"_settings": {"paired": true, "segments": 0}}' '_settings.segments must be an integer in [1, 16]'
badinput "bad input: segments 17" '{"_settings": {"paired": true, "segments": 17}}' '_settings.segments must be an integer in [1, 16]'
badinput "bad input: segments longer than duration_s" '{"_settings": {"paired": true, "duration_s": 3, "segments": 4}}' 'must not exceed duration_s (3)'
badinput "bad input: segments x repeats above 40 pairs" '{"_settings": {"paired": true, "segments": 16, "repeats": 3}}' 'must not exceed 40 pairs'
badinput "bad input: a newline in a key stays on the last line" '{"bad\nkey": 1}' 'unknown parameter "bad\x0akey"'

# --- end to end: real db_bench, short trials ----------------------------------
METRICS="ops_per_sec ops_per_sec_with_compaction write_amp p99_block_read_us p99_l0_l1_compaction_ms stall_ms flush_count compaction_count cpu_s"

# validate OUT [paired]: one JSON object, every metric a finite number or null.
validate() {
	$PY - "$1" "${2:-}" "$METRICS" <<'EOF'
import json, math, os, sys
text = open(sys.argv[1]).read()
d = json.loads(text)                     # stdout is exactly one JSON object
assert text.strip().startswith("{") and text.strip().endswith("}")
names = sys.argv[3].split()
if sys.argv[2] == "paired":
    names += ["ops_per_sec_default", "ratio_to_default"]
for k in names:
    assert k in d, "missing " + k
    v = d[k]
    assert v is None or (isinstance(v, (int, float)) and math.isfinite(v)), (k, v)
for k, v in d.items():
    if not k.startswith("_"):
        assert v is None or isinstance(v, (int, float)), (k, v)
assert d["ops_per_sec"] > 0 and d["ops_per_sec_with_compaction"] > 0
assert d["ops_per_sec_with_compaction"] <= d["ops_per_sec"] * 1.05
assert d["cpu_s"] > 0 and d["write_amp"] > 0 and d["p99_block_read_us"] > 0
assert d["flush_count"] >= 1, d          # the final flush at least
if sys.argv[2] == "paired":
    assert d["ratio_to_default"] > 0
for r in d["_diagnostics"]["runs"]:
    assert os.path.isfile(r["db_bench_out"]) and os.path.isfile(r["log_excerpt"])
    assert r["db_bench_result"].startswith("mixgraph")
    assert r["gets"] > r["puts"] > r["seeks"] > 0, r   # 85/14/1 mix
    assert r["reads_found"] == r["reads_total"], r     # every Get hits
    assert not os.path.exists(os.path.join(r["dir"], "db"))  # DB removed
print({k: d[k] for k in names})
EOF
}

run_trial() { # run_trial NAME INPUT OUT
	local rc
	echo "$2" | "$RUNNER" > "$3" 2> "$3.err" 3>&-
	rc=$?
	if [ "$rc" -ne 0 ]; then
		not_ok "$1" "exit status $rc: $(tail -3 "$3.err")"
		return 1
	fi
	check "$1" validate "$3"
}

run_trial "end to end: trial 1 (defaults, 3 s, builds the base DB)" \
	"{$(settings 3)}" "$WORK/t1.json"

# A configuration RocksDB corrects: stop trigger below slowdown (raised to
# it), tiny write buffer (raised to 64 KiB), merge > buffers (lowered to 1).
CORR='"level0_stop_writes_trigger": 5, "level0_slowdown_writes_trigger": 20, "write_buffer_size": 1000, "max_write_buffer_number": 2, "min_write_buffer_number_to_merge": 4, "block_size": 8192'
# (with the worker's "_trial" metadata, which the runner must ignore)
run_trial "end to end: trial 2 (corrected config, 3 s)" \
	"{$CORR, \"_trial\": {\"study\": \"s\", \"id\": 7, \"number\": 2}, $(settings 3)}" "$WORK/t2.json"
check "effective options: corrections reported" $PY - "$WORK/t2.json" <<'EOF'
import json, sys
e = json.load(open(sys.argv[1]))["_effective"]
c = e["corrected"]
assert c["level0_stop_writes_trigger"] == {"requested": 5, "effective": 20}, c
assert c["write_buffer_size"] == {"requested": 1000, "effective": 65536}, c
assert c["min_write_buffer_number_to_merge"]["effective"] == 1, c
assert "block_size" not in c and e["effective"]["block_size"] == 8192, e
assert set(c) == {"level0_stop_writes_trigger", "write_buffer_size",
                  "min_write_buffer_number_to_merge"}, c
print(c)
EOF
check "effective options: defaults are not corrected" $PY -c "
import json; e = json.load(open('$WORK/t1.json'))['_effective']
assert e['corrected'] == {}, e['corrected']; assert e['requested'] == e['effective']"

# The LOG excerpt the runner kept is a real LOG: parse it both ways.
EXCERPT=$($PY -c "import json; print(json.load(open('$WORK/t2.json'))['_diagnostics']['runs'][0]['log_excerpt'])")
check "LOG parsing: excerpt kept from trial 2" logcheck "$EXCERPT"
check "LOG parsing: runner metrics match its LOG" $PY -c "
import json; d = json.load(open('$WORK/t2.json')); p = json.load(open('$WORK/parse.json'))
assert d['flush_count'] == p['flush_count'] and d['compaction_count'] == p['compaction_count'], (d, p)"

run_trial "end to end: paired trial (default vs default, 3 s)" \
	"{$(settings 3 '"paired": true')}" "$WORK/t3.json"
# issue 29: without the setting a paired trial of 3 s runs 3 segments (the
# default 4 needs 4 s) of 1 s, in ABBA order; the ratios are the
# geometric means of the pairs', with their standard errors
PAIRED_CHECK="$PY $ROOT/tests/runners/paired_check.py"
check "paired: 3 segments of 1 s, roles in the runs' order" $PY -c "
import json; d = json.load(open('$WORK/t3.json'))['_diagnostics']
runs = d['runs']
assert d['segments'] == 3 and d['pairs'] == 3, d
assert [r['role'] for r in runs] == d['order'], d['order']
assert [(r['pair'], r['segment'], r['repeat'], r['duration_s']) for r in runs] == \
    [(1, 1, 1, 1), (1, 1, 1, 1), (2, 2, 1, 1), (2, 2, 1, 1), (3, 3, 1, 1), (3, 3, 1, 1)], runs"
check "paired: ABBA order, ratio_to_default = geometric mean of the pairs, _std_error" \
	$PAIRED_CHECK pairs "$WORK/t3.json" ratio_to_default pair_ratios 3 pair_ratio_sd_log
check "paired: the same for ratio_with_compaction_to_default" \
	$PAIRED_CHECK pairs "$WORK/t3.json" ratio_with_compaction_to_default pair_ratios_with_compaction 3 pair_ratio_with_compaction_sd_log
check "paired: each pair's ratio is its runs' ops/s ratio" $PY -c "
import json, math; d = json.load(open('$WORK/t3.json')); g = d['_diagnostics']
by = {(r['pair'], r['role']): r for r in g['runs']}
for k, x in enumerate(g['pair_ratios'], 1):
    assert math.isclose(x, by[k, 'trial']['ops_per_sec'] / by[k, 'default']['ops_per_sec'], rel_tol=1e-12), (k, x)
m = sum(r['ops_per_sec'] for r in g['runs'] if r['role'] == 'default') / 3
assert math.isclose(d['ops_per_sec_default'], m, rel_tol=1e-12), (d['ops_per_sec_default'], m)"

# 5 s in 2 segments: pairs of 2 s then 3 s, each side 5 s in all; fd 3
# is a pipe nobody reads (EPIPE): the streaming stops, the trial goes on
echo "{$(settings 5 '"paired": true, "segments": 2')}" > "$WORK/t5.in"
check "segments 2 of 5 s, fd 3 without reader (EPIPE): the trial goes on" \
	$PAIRED_CHECK fd3 closed "$WORK/t5.in" "$WORK/t5.json" -- "$RUNNER"
check "segments 2 of 5 s: runs of 2 s then 3 s, ABBA" $PY -c "
import json; d = json.load(open('$WORK/t5.json'))['_diagnostics']
assert [(r['role'], r['duration_s']) for r in d['runs']] == \
    [('default', 2), ('trial', 2), ('trial', 3), ('default', 3)], d['runs']
assert d['order'] == ['default', 'trial', 'trial', 'default'] and d['pairs'] == 2, d"
check "segments 2 of 5 s: ratios and _std_error" \
	$PAIRED_CHECK pairs "$WORK/t5.json" ratio_to_default pair_ratios 2 pair_ratio_sd_log
run_trial "end to end: paired trial with segments 1 (one pair of 3 s)" \
	"{$(settings 3 '"paired": true, "segments": 1')}" "$WORK/t6.json"
check "segments 1: one pair, no _std_error (one pair has no spread)" \
	$PAIRED_CHECK pairs "$WORK/t6.json" ratio_to_default pair_ratios 1
check "unpaired: one run of duration_s, segments 1, no _std_error" $PY -c "
import json; d = json.load(open('$WORK/t1.json'))
assert '_std_error' not in d and d['_diagnostics']['segments'] == 1, d['_diagnostics']
assert [r['duration_s'] for r in d['_diagnostics']['runs']] == [3]"

# Progress on fd 3 (issue 30): a paired trial of 4 s with fd 3 open gives
# one line a second for each run, as tuner reads them: steps increasing,
# the default's throughput, then the trial's and its ratio to the same
# second of the default's; without fd 3 db_bench reports nothing.
echo "{$(settings 4 '"paired": true, "segments": 1')}" | "$RUNNER" > "$WORK/t4.json" 2> "$WORK/t4.err" 3> "$WORK/t4.progress"
rc=$?
if [ "$rc" -ne 0 ]; then
	not_ok "progress: paired trial with fd 3" "exit status $rc: $(tail -3 "$WORK/t4.err")"
else
	check "progress: one line a second for each run, as tuner reads them" $PY - "$WORK/t4.progress" "$WORK/t4.json" <<'EOF'
import json, math, sys
lines = open(sys.argv[1]).read().splitlines()
final = json.load(open(sys.argv[2]))
rows = [json.loads(l) for l in lines]
assert all(set(r) == {"step", "metrics"} and len(l) < 4096 for r, l in zip(rows, lines)), lines
steps = [r["step"] for r in rows]
assert all(b > a for a, b in zip(steps, steps[1:])) and steps[0] >= 0, steps
default = [r for r in rows if "ops_per_sec_default" in r["metrics"]]
trial = [r for r in rows if "ops_per_sec" in r["metrics"]]
assert len(default) + len(trial) == len(rows), rows
# db_bench reports every second of a 4 s run (the last one may be cut)
assert 3 <= len(default) <= 5 and 3 <= len(trial) <= 5, (len(default), len(trial))
assert max(r["step"] for r in default) < min(r["step"] for r in trial), steps
for r in rows:
    for v in r["metrics"].values():
        assert math.isfinite(v) and v >= 0, r
ratios = [r["metrics"]["ratio_to_default"] for r in trial if "ratio_to_default" in r["metrics"]]
assert len(ratios) >= 3 and all(0.2 < x < 5 for x in ratios), ratios
# second s of the trial's run pairs with second s of the default's: the
# ratio that second, and the ratio so far (the paired seconds' trial ops
# over their default ops)
by_second = {r["step"]: r["metrics"]["ops_per_sec_default"] for r in default}
base = max(by_second)
sum_t = sum_d = 0
for r in trial:
    m = r["metrics"]
    d = by_second.get(r["step"] - base)
    assert ("ratio_to_default" in m) == (d is not None), (r, by_second)
    if d is None:
        continue
    sum_t += m["ops_per_sec"]
    sum_d += d
    assert math.isclose(m["ratio_this_second"], m["ops_per_sec"] / d, rel_tol=1e-8), (r, d)
    assert math.isclose(m["ratio_to_default"], sum_t / sum_d, rel_tol=1e-8), (r, sum_t, sum_d)
# ... which by the last second estimates the final ratio of the runs
assert 2 / 3 < ratios[-1] / final["ratio_to_default"] < 3 / 2, (ratios[-1], final["ratio_to_default"])
# the per-second throughputs are those of the runs the final metrics measured
mean_d = sum(r["metrics"]["ops_per_sec_default"] for r in default) / len(default)
assert 0.5 < mean_d / final["ops_per_sec_default"] < 2, (mean_d, final["ops_per_sec_default"])
print(len(rows), "lines; ratios", [round(x, 3) for x in ratios])
EOF
fi
# In segments, the ratios come with each pair's second run: the trial's
# in pair 1 (D T), the default's in pair 2 (T D), never against another
# pair's run; the ratio so far is the geometric mean of pair 1's ratio
# and pair 2's so far
echo "{$(settings 6 '"paired": true, "segments": 2')}" | "$RUNNER" > "$WORK/t7.json" 2> "$WORK/t7.err" 3> "$WORK/t7.progress"
rc=$?
if [ "$rc" -ne 0 ]; then
	not_ok "progress in segments: paired trial with fd 3" "exit status $rc: $(tail -3 "$WORK/t7.err")"
else
	check "progress in segments: ratios in each pair's second run, the ratio so far across pairs" $PY - "$WORK/t7.progress" <<'EOF'
import itertools, json, math, re, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
def kind(m):
    if "ratio_to_default" in m:
        return "Q" if "ops_per_sec_default" in m else "R"
    return "D" if "ops_per_sec_default" in m else "T"
kinds = "".join(kind(r["metrics"]) for r in rows)
# D T T D: default lines, trial lines with ratios, trial lines without,
# default lines with ratios
assert re.fullmatch(r"D+R+T+Q+", kinds), kinds
# each run's seconds count from the step before its first line
runs, last = [], 0
for _, group in itertools.groupby(rows, lambda r: kind(r["metrics"])):
    group = list(group)
    runs.append([(r["step"] - last, r["metrics"]) for r in group])
    last = group[-1]["step"]
d1, t1, t2, d2 = runs
first = dict(d1)
sum_t = sum_d = 0
for sec, m in t1:
    sum_t += m["ops_per_sec"]
    sum_d += first[sec]["ops_per_sec_default"]
    assert math.isclose(m["ratio_this_second"], m["ops_per_sec"] / first[sec]["ops_per_sec_default"], rel_tol=1e-8), m
    assert math.isclose(m["ratio_to_default"], sum_t / sum_d, rel_tol=1e-8), (m, sum_t, sum_d)
r1 = sum_t / sum_d
first = dict(t2)
sum_t = sum_d = 0
for sec, m in d2:
    sum_t += first[sec]["ops_per_sec"]
    sum_d += m["ops_per_sec_default"]
    assert math.isclose(m["ratio_this_second"], first[sec]["ops_per_sec"] / m["ops_per_sec_default"], rel_tol=1e-8), m
    assert math.isclose(m["ratio_to_default"], math.sqrt(r1 * sum_t / sum_d), rel_tol=1e-8), (m, r1)
print(kinds, "pair 1 ratio %.3f" % r1)
EOF
fi
check "progress: with fd 3 db_bench reports every second" grep -q -- '--report_interval_seconds=1' "$(
	$PY -c "import json; print(json.load(open('$WORK/t4.json'))['_diagnostics']['runs'][0]['dir'])")/db_bench.argv"
check "progress: without fd 3 db_bench reports nothing" $PY -c "
import json; d = json.load(open('$WORK/t3.json'))
for r in d['_diagnostics']['runs']:
    argv = open(r['dir'] + '/db_bench.argv').read()
    assert '--benchmarks=mixgraph' in argv and '--report_file' not in argv, argv
"

# A db_bench that fails gives its exit status as the reason.
echo "{$(settings 3 '"db_bench": "/bin/false"')}" | "$RUNNER" > "$WORK/f.out" 2> "$WORK/f.err"
rc=$?
if [ "$rc" -eq 1 ] && [ ! -s "$WORK/f.out" ] && tail -1 "$WORK/f.err" | grep -q 'db_bench exited with status 1'; then
	ok "failure: db_bench exit status -> exit 1: $(tail -1 "$WORK/f.err")"
else
	not_ok "failure: db_bench exit status" "rc=$rc $(cat "$WORK/f.err")"
fi
echo "{$(settings 3 "\"db_bench\": \"$WORK/no-such-db_bench\"")}" |
	"$RUNNER" > "$WORK/f.out" 2> "$WORK/f.err"
rc=$?
if [ "$rc" -eq 1 ] && tail -1 "$WORK/f.err" | grep -q 'is not executable'; then
	ok "failure: missing db_bench -> exit 1: $(tail -1 "$WORK/f.err")"
else
	not_ok "failure: missing db_bench" "rc=$rc $(cat "$WORK/f.err")"
fi

# --- SIGTERM during a run -------------------------------------------------------
sigterm_test() {
	local pid child rc i
	echo "{$(settings 60)}" | setsid "$RUNNER" > "$WORK/s.out" 2> "$WORK/s.err" &
	pid=$!
	child=
	for i in $(seq 1 300); do
		child=$(pgrep -P "$pid" -x db_bench || true)
		[ -n "$child" ] && break
		sleep 0.1
	done
	if [ -z "$child" ]; then
		kill -KILL "$pid" 2>/dev/null
		echo "db_bench never started"
		return 1
	fi
	sleep 1
	kill -TERM "$pid" # the runner only, not its group: it must stop db_bench
	for i in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" "$child" 2>/dev/null
		echo "runner still running 10 s after SIGTERM"
		return 1
	fi
	wait "$pid"
	rc=$?
	if kill -0 "$child" 2>/dev/null; then
		kill -KILL "$child"
		echo "db_bench $child survived"
		return 1
	fi
	[ "$rc" -ne 0 ] || { echo "exit status 0"; return 1; }
	[ ! -s "$WORK/s.out" ] || { echo "stdout not empty"; return 1; }
	tail -1 "$WORK/s.err" | grep -q 'terminated by signal 15' || {
		cat "$WORK/s.err"
		return 1
	}
	echo "exit $rc: $(tail -1 "$WORK/s.err")"
}
check "SIGTERM during a run: db_bench gone, non-zero exit" sigterm_test

# --- the production user ----------------------------------------------------
if [ "$(id -u)" -eq 0 ] && id postgres > /dev/null 2>&1; then
	PGTMP=$(mktemp -d /tmp/tuner_rocksdb_pgtest.XXXXXX)
	chown postgres "$PGTMP"
	# TMPDIR points at a fresh dir so the default work dir
	# ($TMPDIR/tuner_rocksdb-<uid>) is created by postgres itself.
	echo '{"_settings": {"duration_s": 3, "num_keys": 100000}}' |
		runuser -u postgres -- env TMPDIR="$PGTMP" "$RUNNER" > "$WORK/pg.json" 2> "$WORK/pg.err"
	rc=$?
	if [ "$rc" -eq 0 ] && validate "$WORK/pg.json" > /dev/null 2>&1 &&
		[ "$(stat -c '%U %a' "$PGTMP/tuner_rocksdb-$(id -u postgres)")" = "postgres 700" ]; then
		ok "runs as postgres with the default work dir (mode 700)"
	else
		not_ok "runs as postgres" "rc=$rc $(tail -3 "$WORK/pg.err")"
	fi
	rm -rf "$PGTMP"
fi

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
