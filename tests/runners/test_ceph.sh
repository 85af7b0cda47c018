#!/bin/bash
# test_ceph.sh: tests of tuner_ceph, the Ceph trial runner, on a real
# throwaway Ceph cluster (tests/ceph/cluster.sh in its own directory and
# port, purged at the end; no mocks).  Prints "N passed, N failed" and
# exits non-zero on any failure.  About 2-3 minutes.
#
#   bash tests/runners/test_ceph.sh [path/to/tuner_ceph]
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
RUNNER=${1:-$ROOT/src/runners/ceph/tuner_ceph}
CLUSTER=$ROOT/tests/ceph/cluster.sh
PY=/usr/bin/python3

if [ ! -x "$RUNNER" ]; then
	make -s -C "$ROOT/src/runners/ceph" || exit 1
fi

export TUNER_CEPH_DIR
TUNER_CEPH_DIR=$(mktemp -d /tmp/tuner-ceph-runner-test.XXXXXX)
export TUNER_CEPH_PORT=${TUNER_CEPH_TEST_PORT:-48789}
CONF=$TUNER_CEPH_DIR/ceph.conf
KEYRING=$TUNER_CEPH_DIR/client.admin.keyring
WORK=$(mktemp -d /tmp/tuner-ceph-runner-work.XXXXXX)
trap 'bash "$CLUSTER" purge >/dev/null 2>&1; rm -rf "$WORK" "$TUNER_CEPH_DIR"' EXIT

passed=0
failed=0
ok() {
	echo "ok - $1"
	passed=$((passed + 1))
}
not_ok() {
	echo "not ok - $1"
	[ -n "${2:-}" ] && echo "$2" | tail -15 | sed 's/^/    /'
	failed=$((failed + 1))
}
check() { # check NAME CMD...: pass when CMD succeeds
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "$out"; fi
}

cephc() { timeout 60 ceph --conf "$CONF" --name client.admin --keyring "$KEYRING" "$@"; }
osd_get() { cephc tell osd.0 config get "$1" -f json | $PY -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
osd_pid() { cat "$TUNER_CEPH_DIR/osd.0.pid"; }
# thread_count NAME_PREFIX: threads of osd.0 whose name starts so
thread_count() { cat /proc/"$(osd_pid)"/task/*/comm | grep -c "^$1"; }
# entries in the configuration database
config_dump() { cephc config dump -f json | $PY -c "import json,sys; print(len(json.load(sys.stdin)))"; }

# trial JSON_MEMBERS [OUT]: run one short trial, stdout to $WORK/out.json,
# stderr to $WORK/err.txt; returns the runner's exit status.
trial() {
	echo "{$1${1:+, }\"_settings\": {\"duration_s\": 2, \"object_size\": 1048576, \"concurrency\": 8}}" |
		"$RUNNER" >"$WORK/out.json" 2>"$WORK/err.txt"
}
jget() { $PY -c "import json,sys; d=json.load(open('$WORK/out.json')); print(eval(sys.argv[1]))" "$1"; }

# --- refusals before connecting (no cluster needed) ------------------------
# Option classes the runner never sets: each is refused (exit 2) naming
# the option, before the runner reads anything of the cluster.
for opt in osd_class_dir plugin_dir erasure_code_dir log_file log_to_file \
	mon_cluster_log_file admin_socket keyring osd_class_load_list_path \
	debug_osd ms_bind_port_min public_addr auth_allow_insecure_global_id_reclaim \
	osd_command_thread_timeout; do
	trial "\"$opt\": 1"
	rc=$?
	check "$opt is refused before connecting (exit 2, got $rc)" test "$rc" -eq 2
	check "naming it and its class" grep -q "^tuner_ceph: $opt: tuner_ceph refuses options" "$WORK/err.txt"
done
# The work directory must be the runner's own, mode 0700, no link.
wd() { # wd DIR: a default trial with that work directory, stderr in err.txt
	echo '{}' | TUNER_CEPH_DIR=$1 "$RUNNER" >/dev/null 2>"$WORK/err.txt"
}
wd "$WORK/fresh"
check "a missing work directory is created" test -d "$WORK/fresh"
check "with mode 0700" test "$(stat -c %a "$WORK/fresh")" = 700
mkdir -m 755 "$WORK/open"
wd "$WORK/open"
rc=$?
check "a work directory with mode 0755 is refused (exit 2, got $rc)" test "$rc" -eq 2
check "saying it must be 0700" grep -q "has mode 0755; it must be 0700" "$WORK/err.txt"
ln -s "$WORK/fresh" "$WORK/link"
wd "$WORK/link"
rc=$?
check "a work directory that is a symbolic link is refused (exit 2, got $rc)" test "$rc" -eq 2
check "saying so" grep -q "is a symbolic link" "$WORK/err.txt"
# another owner: a directory given to nobody (as root), else /root
if [ "$(id -u)" -eq 0 ]; then
	mkdir -m 700 "$WORK/theirs"
	chown nobody "$WORK/theirs"
	theirs=$WORK/theirs
else
	theirs=/root
fi
wd "$theirs"
rc=$?
check "a work directory of another user is refused (exit 2, got $rc)" test "$rc" -eq 2
check "naming its owner" grep -q "is owned by uid [0-9]*, not by the runner's uid" "$WORK/err.txt"

if ! out=$(bash "$CLUSTER" start 2>&1); then
	not_ok "the test cluster starts" "$out"
	echo "$passed passed, $failed failed"
	exit 1
fi
ok "the test cluster starts"

# --- a runtime change: applied, read back, metrics well-formed -----------
if trial '"osd_client_message_size_cap": 209715200'; then
	ok "a trial with a runtime option succeeds"
else not_ok "a trial with a runtime option succeeds" "$(cat "$WORK/err.txt")"; fi
check "the runtime value is reported effective" \
	test "$(jget 'd["_effective"]["osd_client_message_size_cap"]')" = 209715200
check "the OSD runs with the runtime value (tell osd.0 config get)" \
	test "$(osd_get osd_client_message_size_cap)" = 209715200
check "the runtime option did not restart the OSD" \
	test "$(jget 'd["_diagnostics"]["restarted"]')" = False
check "metrics: positive throughput, IOPS and ordered latencies in every phase" \
	$PY - "$WORK/out.json" <<'EOF'
import json, math, sys
d = json.load(open(sys.argv[1]))
for p in ("write", "seq_read", "rand_read"):
    for k in ("mbps", "iops", "lat_mean_ms", "lat_p50_ms", "lat_p99_ms", "lat_max_ms", "seconds"):
        v = d[p + "_" + k]
        assert isinstance(v, float) and math.isfinite(v) and v > 0, (p, k, v)
    assert d[p + "_ops"] > 0
    assert d[p + "_lat_p50_ms"] <= d[p + "_lat_p99_ms"] <= d[p + "_lat_max_ms"], p
    assert d[p + "_lat_mean_ms"] <= d[p + "_lat_max_ms"], p
    # MB/s and IOPS agree: 1 MiB objects
    assert abs(d[p + "_mbps"] - d[p + "_iops"]) < 1e-6 * d[p + "_iops"], p
    assert abs(d[p + "_iops"] - d[p + "_ops"] / d[p + "_seconds"]) < 1e-6 * d[p + "_iops"]
assert d["_diagnostics"]["objects"] == d["write_ops"]
assert d["_diagnostics"]["not_effective"] == []
EOF
check "the trial removed its objects" \
	bash -c "[ -z \"\$(timeout 60 rados --conf $CONF --keyring $KEYRING -p tuner ls | grep '^tuner_ceph_')\" ]"

# --- restart-only options: effective after the runner's OSD restart -------
pid_before=$(osd_pid)
workers_before=$(thread_count msgr-worker)
if trial '"ms_async_op_threads": 5, "osd_op_num_shards": 3, "osd_op_num_threads_per_shard": 2'; then
	ok "a trial with restart-only options succeeds"
else not_ok "a trial with restart-only options succeeds" "$(cat "$WORK/err.txt")"; fi
check "the runner restarted the OSD" test "$(jget 'd["_diagnostics"]["restarted"]')" = True
check "the OSD is a new process" test "$(osd_pid)" != "$pid_before"
check "restart options are classified restart" \
	test "$(jget 'sorted(set(d["_diagnostics"]["kind"].values()))')" = "['restart']"
check "the OSD runs 5 messenger workers (was $workers_before)" test "$(thread_count msgr-worker)" -eq 5
check "the OSD runs 3 shards x 2 op threads" test "$(thread_count tp_osd_tp)" -eq 6
check "effective values read back from the OSD" \
	test "$(jget 'd["_effective"]["ms_async_op_threads"] + "," + d["_effective"]["osd_op_num_shards"]')" = "5,3"

# --- the next trial starts from the defaults -----------------------------
pid_before=$(osd_pid)
if trial ''; then ok "a default trial succeeds"; else
	not_ok "a default trial succeeds" "$(cat "$WORK/err.txt")"
fi
check "the previous trial's restart values are gone: OSD restarted" test "$(osd_pid)" != "$pid_before"
check "the OSD is back to 3 messenger workers" test "$(thread_count msgr-worker)" -eq 3
check "the previous runtime value is removed" test "$(osd_get osd_client_message_size_cap)" = 524288000
check "the configuration database is empty" test "$(config_dump)" = 0

# --- values Ceph refuses become failed trials with Ceph's message --------
trial '"osd_client_message_size_cap": 104857600, "ms_async_op_threads": 99'
rc=$?
check "an out-of-range value fails the trial (exit 1, got $rc)" test "$rc" -eq 1
check "the last stderr line is Ceph's message" \
	grep -q "Value '99' exceeds maximum 24" <<<"$(tail -1 "$WORK/err.txt")"
check "a refused trial leaves no value behind" test "$(config_dump)" = 0
trial '"osd_client_message_size_cap": "lots"'
rc=$?
check "an unparsable size fails the trial (exit 1, got $rc)" test "$rc" -eq 1
check "with Ceph's parse error" grep -q "error parsing value" "$WORK/err.txt"
trial '"bluestore_min_alloc_size": 8192'
rc=$?
check "a creation-time option is refused (exit 2, got $rc)" test "$rc" -eq 2
check "saying it is fixed at OSD creation" grep -q 'fixed when an OSD is created' "$WORK/err.txt"
trial '"no_such_ceph_option": 1'
rc=$?
check "an unknown option is refused (exit 2, got $rc)" test "$rc" -eq 2
check "naming the option" grep -q 'no option named "no_such_ceph_option"' "$WORK/err.txt"
trial '"": 1'
rc=$?
check "an empty option name is refused (exit 2, got $rc)" test "$rc" -eq 2
check "saying it is not an option name" grep -q '"" is not a Ceph option name' "$WORK/err.txt"
trial '"osd\nmax": 1'
rc=$?
check "a name with a newline is refused (exit 2, got $rc)" test "$rc" -eq 2
check "on one last stderr line, the newline escaped" \
	grep -qF '"osd\x0amax" is not a Ceph option name' <<<"$(tail -1 "$WORK/err.txt")"
trial '"osd_max_write_size": 100, "osd_max_write_size": 90'
rc=$?
check "a repeated option is refused (exit 2, got $rc)" test "$rc" -eq 2
check "saying the key is repeated" grep -q 'duplicate object key' "$WORK/err.txt"

# Refused by type, from the live cluster's config help: free-form strings
# (hosts, lists, paths Ceph names otherwise) and uuids; a string with
# Ceph's enum_values passes.
trial '"mon_host": "127.0.0.1:1"'
rc=$?
check "a free-form string option is refused (exit 2, got $rc)" test "$rc" -eq 2
check "saying its type" grep -q 'mon_host: tuner_ceph refuses options of type str without enum_values' "$WORK/err.txt"
trial '"osd_class_load_list": "*"'
rc=$?
check "osd_class_load_list is refused (exit 2, got $rc)" test "$rc" -eq 2
trial '"fsid": "00000000-0000-0000-0000-000000000000"'
rc=$?
check "a uuid option is refused (exit 2, got $rc)" test "$rc" -eq 2
check "saying its type" grep -q 'fsid: tuner_ceph refuses options of type uuid' "$WORK/err.txt"
check "refused options leave the configuration database empty" test "$(config_dump)" = 0
if trial '"bluestore_csum_type": "crc32c"'; then ok "a string option with enum_values is set"; else
	not_ok "a string option with enum_values is set" "$(cat "$WORK/err.txt")"
fi

# --- values the cluster writes itself are removed ------------------------
cephc config set osd.0 osd_mclock_max_capacity_iops_hdd 123.4 >/dev/null 2>&1
if trial '"osd_max_write_size": 100, "ms_async_op_threads": 4'; then ok "a trial after a cluster-written value"; else
	not_ok "a trial after a cluster-written value" "$(cat "$WORK/err.txt")"
fi
check "the mclock capacity value was removed" \
	bash -c "! timeout 60 ceph --conf $CONF --keyring $KEYRING config dump | grep -q osd_mclock_max_capacity_iops"

# --- --reset restores the defaults ---------------------------------------
out=$(echo '{}' | "$RUNNER" --reset 2>&1)
check "--reset succeeds and restarts the OSD" grep -q '"reset": true, "restarted": true' <<<"$out"
check "the OSD is back to 3 messenger workers after --reset" test "$(thread_count msgr-worker)" -eq 3
check "--reset leaves an empty configuration database" test "$(config_dump)" = 0

# --- "restore": the trial's values are removed after its runs ------------
pid_before=$(osd_pid)
if echo '{"osd_client_message_size_cap": 209715200, "ms_async_op_threads": 4, "_settings": {"duration_s": 1, "object_size": 1048576, "restore": true}}' |
	"$RUNNER" >"$WORK/out.json" 2>"$WORK/err.txt"; then
	ok "a trial with restore succeeds"
else not_ok "a trial with restore succeeds" "$(cat "$WORK/err.txt")"; fi
check "the trial ran with its values" \
	test "$(jget 'd["_effective"]["osd_client_message_size_cap"] + "," + d["_effective"]["ms_async_op_threads"]')" = "209715200,4"
check "restore leaves an empty configuration database" test "$(config_dump)" = 0
check "restore restarted the OSD back to 3 messenger workers" test "$(thread_count msgr-worker)" -eq 3
check "the OSD runs the default runtime value again" test "$(osd_get osd_client_message_size_cap)" = 524288000
echo '{"_settings": {"restore": "yes"}}' | "$RUNNER" >/dev/null 2>"$WORK/err.txt"
rc=$?
check "restore must be a boolean (exit 2, got $rc)" test "$rc" -eq 2
check "the OSD is back to the default osd_max_write_size" test "$(osd_get osd_max_write_size)" = 90

# --- paired measurement: default and trial interleaved ------------------
ptrial() { # ptrial REPEATS [DURATION]: a paired trial of a runtime option, 1 s phases
	echo "{\"osd_client_message_size_cap\": 209715200, \"_settings\": {\"duration_s\": ${2:-1}, \"object_size\": 65536, \"paired\": true, \"repeats\": $1}}" |
		"$RUNNER" >"$WORK/out.json" 2>"$WORK/err.txt" 3>"$WORK/progress.txt"
}
PAIRED_CHECK="$PY $ROOT/tests/runners/paired_check.py"
if ptrial 1; then ok "a paired trial succeeds"; else
	not_ok "a paired trial succeeds" "$(cat "$WORK/err.txt")"
fi
check "one pair: each ratio is trial MiB/s over default MiB/s, 2 runs" \
	$PY - "$WORK/out.json" <<'EOF'
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["_diagnostics"]["runs"] == 2
for p in ("write", "seq_read", "rand_read"):
    assert d[p + "_mbps_default"] > 0 and d[p + "_iops_default"] > 0
    want = d[p + "_mbps"] / d[p + "_mbps_default"]
    assert abs(d[p + "_ratio"] - want) < 1e-9 * want, (p, d[p + "_ratio"], want)
    assert d[p + "_ratio_cv"] is None  # one pair: no spread
EOF
for p in write seq_read rand_read; do
	check "one pair: $p order, ratio, no _std_error" \
		$PAIRED_CHECK pairs "$WORK/out.json" ${p}_ratio ${p}_pair_ratios 1
done
if ptrial 2 2; then ok "a paired trial with 2 repeats succeeds"; else
	not_ok "a paired trial with 2 repeats succeeds" "$(cat "$WORK/err.txt")"
fi
check "two pairs: 4 runs, finite ratios and their CV" \
	$PY - "$WORK/out.json" <<'EOF'
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["_diagnostics"]["runs"] == 4
for p in ("write", "seq_read", "rand_read"):
    assert d[p + "_ratio"] > 0 and math.isfinite(d[p + "_ratio"])
    assert d[p + "_ratio_cv"] >= 0 and math.isfinite(d[p + "_ratio_cv"])
EOF
# issue 29: ABBA order, each ratio the geometric mean of the pairs', its
# _std_error from their spread
for p in write seq_read rand_read; do
	check "two pairs: $p ABBA order, ratio = geometric mean of the pairs, _std_error" \
		$PAIRED_CHECK pairs "$WORK/out.json" ${p}_ratio ${p}_pair_ratios 2 ${p}_pair_ratio_sd_log
done
# issue 30: one line a second of the workload on fd 3 (2 s phases, 4 runs
# of 3 phases: about 24 lines), steps on the fixed grid
check "progress: well-formed lines on fd 3, about one per second" \
	$PAIRED_CHECK progress "$WORK/progress.txt" 12 '(write|seq_read|rand_read)_(iops|mbps|lat_mean_ms)(_default)?'
check "progress: each phase's lines within its slot of the step grid, default runs named _default" \
	$PY - "$WORK/progress.txt" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
phases = ["write", "seq_read", "rand_read"]
order = ["default", "trial", "trial", "default"]
seen = set()
for r in rows:
    slot = int((r["step"] - 1e-9) // 2)      # 2 s phases: slot = 3 run + phase
    run, phase = divmod(slot, 3)
    sfx = "_default" if order[run] == "default" else ""
    p = phases[phase]
    assert set(r["metrics"]) == {p + "_iops" + sfx, p + "_mbps" + sfx, p + "_lat_mean_ms" + sfx}, r
    assert all(v > 0 for v in r["metrics"].values()), r
    seen.add(slot)
assert len(seen) >= 10, sorted(seen)   # (nearly) every phase of every run
EOF
check "paired trials removed their objects" \
	bash -c "[ -z \"\$(timeout 60 rados --conf $CONF --keyring $KEYRING -p tuner ls | grep '^tuner_ceph_')\" ]"

# --- --catalog: the live schema, the same as the committed catalog -------
if "$RUNNER" --catalog >"$WORK/catalog.json" 2>"$WORK/err.txt"; then
	ok "--catalog succeeds"
else not_ok "--catalog succeeds" "$(cat "$WORK/err.txt")"; fi
check "--catalog equals tests/ceph/catalog-16.2.json option by option" \
	$PY - "$WORK/catalog.json" "$ROOT/tests/ceph/catalog-16.2.json" <<'EOF'
import json, sys
live, committed = (json.load(open(f)) for f in sys.argv[1:3])
assert live["system"] == "ceph" and live["version"] == committed["version"], live["version"]
assert live["count"] == len(live["options"]) == committed["count"], live["count"]
want = {o["name"]: o for o in committed["options"]}
for o in live["options"]:
    assert want.pop(o["name"]) == o, o["name"]
assert not want, sorted(want)[:5]
EOF

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
