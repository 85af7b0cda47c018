#!/bin/bash
# test_study.sh: a 6-trial Sapphire study of the "ceph" preset end to end on
# a real throwaway Ceph cluster, run by tuner.run's background workers in a
# throwaway PostgreSQL cluster (pg_virtualenv).  No mocks: the cluster is
# tests/ceph/cluster.sh's, started as the OS user postgres (the server runs
# trials as postgres) in a temporary directory on its own port and purged
# at the end; the trials run the installed tuner_ceph.  Needs root (runuser)
# and the extension and tuner_ceph installed (make install
# install-runner-ceph).  Prints "N passed, N failed",
# exits non-zero on any failure.  About 3-5 minutes.
#
#   bash tests/ceph/test_study.sh
#
# Environment, for a private install (CI leaves them unset):
#   TUNER_PGV_OPTS     extra pg_virtualenv arguments, e.g.
#                      "-o extension_destdir=/tmp/dest -o dynamic_library_path=..."
#   TUNER_CEPH_RUNNER  absolute path of tuner_ceph to register as runner
#                      "ceph" (default: the preset registers the bare name
#                      tuner_ceph, found in pg_config --bindir)
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
PY=/usr/bin/python3

if [ "$(id -u)" -ne 0 ]; then
	echo "test_study.sh: run as root (the cluster is started as postgres with runuser)" >&2
	exit 1
fi

WORK=$(mktemp -d /tmp/tuner-ceph-study-work.XXXXXX)
CDIR=$(mktemp -d /tmp/tuner-ceph-study.XXXXXX)
PORT=${TUNER_CEPH_STUDY_TEST_PORT:-49789}
chmod 755 "$WORK"
chown postgres: "$CDIR"
# the script from a place postgres can read, whatever the checkout's modes
install -m 755 "$ROOT/tests/ceph/cluster.sh" "$WORK/cluster.sh"
as_pg() { runuser -u postgres -- env TUNER_CEPH_DIR="$CDIR" TUNER_CEPH_PORT="$PORT" "$@"; }
cleanup() {
	as_pg bash "$WORK/cluster.sh" purge >/dev/null 2>&1
	rm -rf "$WORK" "$CDIR"
}
trap cleanup EXIT

passed=0
failed=0
ok() {
	echo "ok - $1"
	passed=$((passed + 1))
}
not_ok() {
	echo "not ok - $1"
	[ -n "${2:-}" ] && echo "$2" | tail -20 | sed 's/^/    /'
	failed=$((failed + 1))
}
# is NAME GOT WANT
is() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "got: $2; want: $3"; fi; }

cephc() { as_pg timeout 60 ceph --conf "$CDIR/ceph.conf" --name client.admin --keyring "$CDIR/client.admin.keyring" "$@"; }
# the configuration database, sorted, one "section name value" a line
config_db() {
	cephc config dump -f json | $PY -c '
import json, sys
for o in sorted(json.load(sys.stdin), key=lambda o: (o["section"], o["name"])):
    print(o["section"], o["name"], o["value"])'
}

if ! out=$(as_pg bash "$WORK/cluster.sh" start 2>&1); then
	not_ok "cluster starts as postgres" "$out"
	echo "$passed passed, $failed failed"
	exit 1
fi
ok "cluster starts as postgres"
if [ -s "$CDIR/catalog.json" ] &&
	$PY - "$CDIR/catalog.json" "$ROOT/tests/ceph/catalog-16.2.json" <<'EOF'; then
import json, sys
live, committed = (json.load(open(f)) for f in sys.argv[1:3])
assert live["system"] == "ceph" and live["version"] == committed["version"], live["version"]
# the same options as the committed schema of this Ceph version
assert sorted(o["name"] for o in live["options"]) == sorted(o["name"] for o in committed["options"])
EOF
	ok "cluster.sh start writes the live catalog"
else
	not_ok "cluster.sh start writes the live catalog" "$(ls -l "$CDIR")"
fi
config_db >"$WORK/config.before"

# The study, in a throwaway PostgreSQL cluster; the results go to files
# this script checks afterwards.
export CDIR WORK
export TUNER_CEPH_RUNNER=${TUNER_CEPH_RUNNER:-}
cat >"$WORK/study.sh" <<'EOF'
set -euo pipefail
q() { psql -X -v ON_ERROR_STOP=1 -Atq -c "$1"; }
q "CREATE EXTENSION tuner"
if [ -n "$TUNER_CEPH_RUNNER" ]; then
	q "SELECT tuner.register_runner('ceph', '$TUNER_CEPH_RUNNER')"
fi
# 2 s phases, paired with the default: about 15 s a trial plus restarts
q "SELECT tuner.create_study('ceph_e2e', preset => 'ceph',
	settings => '{\"seed\": 7, \"runner\": {\"cluster_dir\": \"$CDIR\", \"duration_s\": 2}}')"
# explore 5 trials (5-fold cross-validation of the ranking needs 5), then
# rank and model the top 3: the whole pipeline in 6 trials
q "SELECT tuner.set_algorithm('ceph_e2e', 'sapphire', '{\"explore\": 5, \"top_k\": 3}')"
q "SELECT count(*) FROM tuner.parameter p JOIN tuner.study s ON s.id = p.study_id WHERE s.name = 'ceph_e2e'" >"$WORK/params"
q "SELECT tuner.run('ceph_e2e', 6)" >"$WORK/workers"
for i in $(seq 1 900); do
	state=$(q "SELECT string_agg(j.state || coalesce(' ' || j.error, ''), ',') FROM tuner.job j
				JOIN tuner.study s ON s.id = j.study_id WHERE s.name = 'ceph_e2e'")
	[ "$state" != running ] && break
	sleep 1
done
echo "$state" >"$WORK/job"
q "SELECT number, state, source, coalesce(error, '') FROM tuner.trials WHERE study = 'ceph_e2e' ORDER BY number" >"$WORK/trials"
q "SELECT t.number, m.name, o.value FROM tuner.observation o JOIN tuner.trial t ON t.id = o.trial_id
     JOIN tuner.metric m ON m.id = o.metric_id JOIN tuner.study s ON s.id = t.study_id
    WHERE s.name = 'ceph_e2e' AND m.name IN ('write_mbps', 'write_ratio', 'rand_read_iops')
    ORDER BY 1, 2" >"$WORK/observations"
q "SELECT count(*) FROM tuner.study_event e JOIN tuner.study s ON s.id = e.study_id
    WHERE s.name = 'ceph_e2e' AND e.event = 'sapphire_model'" >"$WORK/model_events"
q "SELECT parameter, rank FROM tuner.lasso_rank('ceph_e2e') ORDER BY rank" >"$WORK/rank" 2>"$WORK/rank.err" || true
# issue 30: the seconds of each complete trial's workload that tuner_ceph
# streamed on fd 3 (2 runs x 3 phases x 2 s: up to 12 lines a trial)
q "SELECT count(*) FROM (SELECT t.id FROM tuner.trial_progress p JOIN tuner.trial t ON t.id = p.trial_id
     JOIN tuner.study s ON s.id = t.study_id
    WHERE s.name = 'ceph_e2e' AND t.state = 'complete'
    GROUP BY t.id HAVING count(*) >= 6
       AND bool_and((SELECT bool_and(k ~ '^(write|seq_read|rand_read)_(iops|mbps|lat_mean_ms)(_default)?\$')
                       FROM jsonb_object_keys(p.metrics) k))) x" >"$WORK/progress_trials"
EOF
# shellcheck disable=SC2086
pg_virtualenv -t -o max_worker_processes=16 ${TUNER_PGV_OPTS:-} bash "$WORK/study.sh" >"$WORK/pg.log" 2>&1
pg_rc=$?
if [ $pg_rc -eq 0 ]; then ok "the study runs in PostgreSQL"; else not_ok "the study runs in PostgreSQL" "$(cat "$WORK/pg.log")"; fi

echo "# parameters: $(cat "$WORK/params" 2>/dev/null); job: $(cat "$WORK/job" 2>/dev/null)"
sed 's/^/# trial /' "$WORK/trials" 2>/dev/null
sed 's/^/# observed /' "$WORK/observations" 2>/dev/null
sed 's/^/# rank /' "$WORK/rank" 2>/dev/null

is "the background worker finished its job" "$(cat "$WORK/job" 2>/dev/null)" finished
is "6 trials" "$(wc -l <"$WORK/trials" 2>/dev/null | tr -d ' ')" 6
# every trial complete, or failed with Ceph's own message
bad=$(awk -F'|' '$2 != "complete" && !($2 == "failed" && $4 ~ /Ceph|ceph|OSD|osd/)' "$WORK/trials" 2>/dev/null)
if [ -s "$WORK/trials" ] && [ -z "$bad" ]; then ok "trials complete (or failed with Ceph's message)"; else not_ok "trials complete (or failed with Ceph's message)" "$bad"; fi
is "trial 1 measures the default configuration" "$(awk -F'|' '$1 == 1 {print $2 "|" $3}' "$WORK/trials" 2>/dev/null)" "complete|default"
is "the model phase ran after the exploration" "$(awk -F'|' '$1 == 6 {print $3}' "$WORK/trials" 2>/dev/null)" model
is "one sapphire_model event" "$(cat "$WORK/model_events" 2>/dev/null)" 1
# metrics in tuner.observation: positive write bandwidth and a paired ratio
# for every complete trial
complete=$(awk -F'|' '$2 == "complete"' "$WORK/trials" 2>/dev/null | wc -l | tr -d ' ')
is "write_mbps > 0 observed for every complete trial" \
	"$(awk -F'|' '$2 == "write_mbps" && $3 > 0' "$WORK/observations" 2>/dev/null | wc -l | tr -d ' ')" "$complete"
is "write_ratio observed for every complete trial" \
	"$(awk -F'|' '$2 == "write_ratio" && $3 > 0' "$WORK/observations" 2>/dev/null | wc -l | tr -d ' ')" "$complete"
is "every complete trial streamed its workload's seconds on fd 3 into tuner.trial_progress" \
	"$(cat "$WORK/progress_trials" 2>/dev/null)" "$complete"
if [ "$(wc -l <"$WORK/rank" 2>/dev/null | tr -d ' ')" = "$(cat "$WORK/params" 2>/dev/null)" ] &&
	[ "$(head -1 "$WORK/rank" | cut -d'|' -f2)" = 1 ]; then
	ok "tuner.lasso_rank ranks every parameter"
else
	not_ok "tuner.lasso_rank ranks every parameter" "$(cat "$WORK/rank" "$WORK/rank.err" 2>/dev/null)"
fi

# The study ended: the cluster is back at its defaults.
config_db >"$WORK/config.after"
if diff "$WORK/config.before" "$WORK/config.after" >"$WORK/config.diff"; then
	ok "the configuration database is back to the defaults"
else
	not_ok "the configuration database is back to the defaults" "$(cat "$WORK/config.diff")"
fi
applied=$(cat "$CDIR/tuner_ceph.applied" 2>/dev/null | tr -d '{}[] \n')
is "the runner's state holds no value" "$applied" ""
is "no benchmark object left in the pool" \
	"$(as_pg timeout 60 rados --conf "$CDIR/ceph.conf" --name client.admin --keyring "$CDIR/client.admin.keyring" -p tuner ls 2>&1 | wc -l | tr -d ' ')" 0
if as_pg bash "$WORK/cluster.sh" status >/dev/null 2>&1; then ok "the cluster still runs"; else not_ok "the cluster still runs"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
