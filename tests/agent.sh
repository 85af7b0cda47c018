#!/bin/bash
# agent.sh: tuner-agent (src/agent) against a real server, with real runner
# programs on this machine.  Needs a server reachable through the PG*
# environment (pg_virtualenv) with tuner installed, and the agent built
# (TUNER_AGENT, default src/agent/tuner-agent).  AGENT_COUNT and
# AGENT_TRIALS (default 3 and 6) size part 1.
#   1. three agents in parallel on one study (two queued configurations
#      first): every trial claimed once, numbers 1..N without gaps, no
#      configuration twice, all reported, trials overlapping in time, and
#      suggestions that saw the other agents' trials as pending;
#   2. a runner that ignores SIGTERM and hangs, with a child in its group:
#      the trial fails on the study's timeout, the whole group is killed;
#   3. a runner killed by a signal, one exiting 3, one writing invalid
#      UTF-8 and NUL to stderr, one printing garbage: failed trials with the
#      reason and the stderr tail (bad bytes as '?');
#   4. pg_terminate_backend of the agent's session while its runner runs:
#      it reconnects, renews the lease and the trial is reported (once);
#   5. the same while connections are refused until the lease expired: the
#      trial is reaped (interrupted, retried) and the agent's late outcome
#      is refused, never both;
#   6. SIGTERM to an agent: its runner's group is killed, the trial is
#      interrupted ("agent terminated") and the agent exits 0;
#   7. progress lines on fd 3 (issue 30): stored in tuner.trial_progress,
#      a study's pruning rule prunes a bad trial (its runner's group gone),
#      a malformed line fails the trial (its runner's group gone too);
#   8. network cuts between an agent and the server, through a relay that
#      is reset, kept down past the lease, or hung (tests/agent_netcut.sh);
#   9. --trial ID: exactly that trial, with the registered runner.
set -euo pipefail
cd "$(dirname "$0")/.."

AGENT=$(realpath "${TUNER_AGENT:-src/agent/tuner-agent}")
DB=tuner_agent
WORK=$(mktemp -d)
chmod 755 "$WORK"
AGENT_PIDS=()
cleanup() {
	local p
	for p in "${AGENT_PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null || true
	done
	psql -X -q -d postgres -c "ALTER DATABASE $DB ALLOW_CONNECTIONS true" >/dev/null 2>&1 || true
	rm -rf "$WORK"
}
trap cleanup EXIT
TEST_NAME=agent
. tests/lib/agent_lib.sh

# The agent with the test database (the rest of the connection comes from
# the PG* environment).  An array, not a function: $! must be the agent.
RUN_AGENT=("$AGENT" --dsn "dbname=$DB")

[ -x "$AGENT" ] || fail "$AGENT is not built (make agent)"

# Usage errors exit 2 before connecting.
expect_exit() {
	local want=$1 rc=0
	shift
	"$@" > /dev/null 2> "$WORK/usage.err" || rc=$?
	[ "$rc" = "$want" ] || fail "$* exited with $rc, want $want: $(cat "$WORK/usage.err")"
}
expect_exit 0 "$AGENT" --help
expect_exit 2 "$AGENT" --study s
expect_exit 2 "$AGENT" --study s --runner-path "$WORK/missing"
expect_exit 2 "$AGENT" --study s --runner-path /bin/true --trials -1
expect_exit 2 "$AGENT" --study s --runner-path /bin/true --worker ""
expect_exit 2 "$AGENT" --study s --runner-path /bin/true --heartbeat-s nan
expect_exit 2 "$AGENT" --study s --runner-path /bin/true --call-timeout-s 0.5
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
sql "CREATE EXTENSION tuner" >/dev/null
# A study that does not exist: the database refuses, the agent exits 1.
expect_exit 1 "${RUN_AGENT[@]}" --study nosuch --runner-path /bin/true
grep -q 'study "nosuch" does not exist' "$WORK/usage.err" || fail "unknown study: $(cat "$WORK/usage.err")"

# The runners.  f: a function of the configuration after a short sleep (so
# that the agents' trials overlap).
cat > "$WORK/f.py" <<'EOF'
#!/usr/bin/python3
import json, sys, time
c = json.load(sys.stdin)
time.sleep(float(c["_settings"].get("sleep", 0.3)))
print(json.dumps({"value": (c["x"] - 0.3) ** 2 + (c["y"] - 0.6) ** 2,
                  "trial_number": c["_trial"]["number"]}))
EOF
write_wait_runner
cat > "$WORK/hang.sh" <<EOF
#!/bin/bash
trap '' TERM
sleep 1000 &
echo \$! > $WORK/hang.child
wait
EOF
cat > "$WORK/segv.sh" <<'EOF'
#!/bin/bash
echo "about to crash" >&2
kill -SEGV $$
EOF
cat > "$WORK/exit3.sh" <<'EOF'
#!/bin/bash
echo "disk full" >&2
exit 3
EOF
cat > "$WORK/badbytes.sh" <<'EOF'
#!/bin/bash
printf 'bad \xff\xfe byte\0nul \xc3\xa9\n' >&2
exit 1
EOF
cat > "$WORK/garbage.sh" <<'EOF'
#!/bin/bash
cat > /dev/null
echo "value: 12 (NaN)"
EOF
cat > "$WORK/long.sh" <<EOF
#!/bin/bash
cat > /dev/null
echo \$\$ > $WORK/long.pid
sleep 60
EOF
chmod 755 "$WORK"/*.py "$WORK"/*.sh

# 1. Three agents, one study.
AGENTS=${AGENT_COUNT:-3}
PER_AGENT=${AGENT_TRIALS:-6}
TOTAL=$((AGENTS * PER_AGENT))
sql "SELECT tuner.create_study('par', 'value', 'minimize',
       '{\"seed\": 21, \"n_initial\": 5, \"lease_s\": 30, \"runner\": {\"sleep\": 0.3}}')" >/dev/null
sql "SELECT tuner.add_parameter('par', 'x', 'float', 0, 1)" >/dev/null
sql "SELECT tuner.add_parameter('par', 'y', 'float', 0, 1)" >/dev/null
sql "SELECT tuner.enqueue('par', '{\"x\": 0.25, \"y\": 0.5}')" >/dev/null
sql "SELECT tuner.enqueue('par', '{\"x\": 0.75, \"y\": 0.5}')" >/dev/null
pids=()
for i in $(seq 1 $AGENTS); do
	"${RUN_AGENT[@]}" --study par --runner-path "$WORK/f.py" --worker "par-$i" \
		--trials "$PER_AGENT" 2> "$WORK/par-$i.log" &
	pids+=($!)
	AGENT_PIDS+=($!)
done
for p in "${pids[@]}"; do
	wait "$p" || fail "an agent of study par exited with $?"
done
checks=$(sql "
WITH t AS (SELECT * FROM tuner.trials WHERE study = 'par')
SELECT concat_ws(' ',
       (SELECT count(*) FROM t) = $TOTAL,
       (SELECT count(DISTINCT number) FROM t) = $TOTAL,
       (SELECT min(number) = 1 AND max(number) = $TOTAL FROM t),
       (SELECT count(*) FROM t WHERE state = 'complete' AND value IS NOT NULL
           AND (metrics ->> 'trial_number')::int = number) = $TOTAL,
       (SELECT count(DISTINCT params) FROM t) = $TOTAL,
       (SELECT bool_and(c = $PER_AGENT) AND count(*) = $AGENTS
          FROM (SELECT worker, count(*) AS c FROM t GROUP BY worker) w),
       (SELECT count(*) FROM t WHERE source = 'manual') = 2,
       (SELECT count(*) > 0 FROM t a JOIN t b ON a.worker < b.worker
         WHERE a.started_at < b.finished_at AND b.started_at < a.finished_at),
       (SELECT count(*) > 0 FROM tuner.suggestion g JOIN t ON t.trial = g.trial_id
         WHERE cardinality(g.pending) > 0),
       (SELECT count(*) FROM t WHERE disturbed IS NOT NULL
           AND (details #>> '{context,others_cpu_share}')::float8 BETWEEN 0 AND 1
           AND (details #>> '{context,cpus}')::int >= 1) = $TOTAL)")
sql "SELECT worker, count(*) AS trials, round(min(value)::numeric, 4) AS best
       FROM tuner.trials WHERE study = 'par' GROUP BY worker ORDER BY worker"
pending=$(sql "SELECT count(*) FILTER (WHERE cardinality(pending) > 0) || ' of ' || count(*)
                 FROM tuner.suggestion g JOIN tuner.trial t ON t.id = g.trial_id
                 JOIN tuner.study s ON s.id = t.study_id WHERE s.name = 'par'")
echo "agent: suggestions that saw pending trials: $pending"
[ "$checks" = "t t t t t t t t t t" ] ||
	fail "parallel agents (count, distinct numbers, no gaps, all reported, distinct configs, per agent, queued taken, overlapping, pending seen, context measured): $checks"
echo "agent: $AGENTS agents x $PER_AGENT trials: no duplicate numbers or configurations, all reported"

# 2. A runner that hangs past the study's timeout and ignores SIGTERM.
sql "SELECT tuner.create_study('hang', 'value', 'minimize',
       '{\"seed\": 22, \"trial_timeout_s\": 1, \"kill_grace_s\": 1}')" >/dev/null
sql "SELECT tuner.add_parameter('hang', 'x', 'float', 0, 1)" >/dev/null
"${RUN_AGENT[@]}" --study hang --runner-path "$WORK/hang.sh" --worker hang --trials 1 2> "$WORK/hang.log" ||
	fail "the hang agent exited with $?"
got=$(sql "SELECT state || ': ' || error FROM tuner.trials WHERE study = 'hang'")
[ "$got" = "failed: runner timed out after 1 s (trial_timeout_s); its process group was killed" ] ||
	fail "hanging runner: $got"
child=$(cat "$WORK/hang.child")
if alive "$child"; then
	fail "the hanging runner's child $child survived"
fi
echo "agent: hanging runner: $got; its child is gone"

# 3. Runners that crash, exit non-zero, print garbage.
check_failed() {
	local study=$1 script=$2 want=$3 got
	sql "SELECT tuner.create_study('$study', 'value')" >/dev/null
	sql "SELECT tuner.add_parameter('$study', 'x', 'float', 0, 1)" >/dev/null
	"${RUN_AGENT[@]}" --study "$study" --runner-path "$WORK/$script" --worker "$study" \
		--trials 1 2> "$WORK/$study.log" || fail "the $study agent exited with $?"
	got=$(sql "SELECT state || ': ' || error FROM tuner.trials WHERE study = '$study'")
	[ "$got" = "$want" ] || fail "$study: got [$got], want [$want]"
	echo "agent: $study: ${got//$'\n'/ | }"
}
check_failed segv segv.sh "failed: runner was terminated by signal 11: Segmentation fault
about to crash"
check_failed exit3 exit3.sh "failed: runner exited with exit code 3
disk full"
check_failed badbytes badbytes.sh "failed: runner exited with exit code 1
bad ?? byte?nul é"
check_failed garbage garbage.sh "failed: runner output is not valid JSON (invalid input syntax for type json): value: 12 (NaN) (NaN and Infinity are not JSON numbers; print null for a metric without a value)"

# The backend of the one agent running now (an earlier agent's backend may
# still be exiting).
agent_backend() {
	wait_for "SELECT count(*) = 1 FROM pg_stat_activity WHERE datname = '$DB'
	            AND application_name = 'tuner-agent'" 20 ||
		fail "no single agent session"
	sql "SELECT pid FROM pg_stat_activity WHERE datname = '$DB'
	        AND application_name = 'tuner-agent'"
}

# 4. The agent's session is terminated while its runner runs (the runner
# waits for a file, so the order of events is fixed): the agent reconnects
# and renews the lease, then the runner ends and its trial is reported.
sql "SELECT tuner.create_study('conn', 'value', 'minimize',
       '{\"seed\": 23, \"lease_s\": 5, \"runner\": {\"flag\": \"$WORK/conn.flag\"}}')" >/dev/null
sql "SELECT tuner.add_parameter('conn', 'x', 'float', 0, 1)" >/dev/null
sql "SELECT tuner.add_parameter('conn', 'y', 'float', 0, 1)" >/dev/null
"${RUN_AGENT[@]}" --study conn --runner-path "$WORK/wait.py" --worker conn --trials 1 \
	--heartbeat-s 0.3 --max-backoff-s 0.5 2> "$WORK/conn.log" &
agent=$!
AGENT_PIDS+=($agent)
wait_for "SELECT count(*) = 1 FROM tuner.trial WHERE worker = 'conn' AND state = 'running'" 20 ||
	fail "the conn agent never claimed a trial"
backend=$(agent_backend)
[ "$(sql "SELECT pg_terminate_backend($backend)")" = t ] || fail "could not terminate $backend"
wait_for "SELECT count(*) = 1 FROM pg_stat_activity WHERE datname = '$DB'
            AND application_name = 'tuner-agent' AND pid <> $backend" 20 ||
	fail "the conn agent did not reconnect"
touch "$WORK/conn.flag"
wait "$agent" || fail "the conn agent exited with $?"
got=$(sql "SELECT count(*) || ' ' || string_agg(state, ',') || ' ' || bool_and(value IS NOT NULL)
             FROM tuner.trials WHERE study = 'conn'")
[ "$got" = "1 complete true" ] || fail "terminated session: trials $got"
grep -q "lost the connection" "$WORK/conn.log" || fail "the conn agent did not see its connection go"
grep -q "reconnected; renewing the lease" "$WORK/conn.log" || fail "the conn agent did not renew after reconnecting"
echo "agent: session $backend terminated mid-trial: reconnected, trial reported ($got)"

# 5. The session is terminated and connections are refused until the lease
# expired; then the runner ends: the trial was reaped and retried, and the
# agent's late outcome is refused.
sql "SELECT tuner.create_study('lost', 'value', 'minimize',
       '{\"seed\": 24, \"lease_s\": 2, \"runner\": {\"flag\": \"$WORK/lost.flag\"}}')" >/dev/null
sql "SELECT tuner.add_parameter('lost', 'x', 'float', 0, 1)" >/dev/null
sql "SELECT tuner.add_parameter('lost', 'y', 'float', 0, 1)" >/dev/null
"${RUN_AGENT[@]}" --study lost --runner-path "$WORK/wait.py" --worker lost --trials 1 \
	--heartbeat-s 0.3 --max-backoff-s 0.5 2> "$WORK/lost.log" &
agent=$!
AGENT_PIDS+=($agent)
wait_for "SELECT count(*) = 1 FROM tuner.trial WHERE worker = 'lost' AND state = 'running'" 20 ||
	fail "the lost agent never claimed a trial"
backend=$(agent_backend)
terminated=$(psql -X -q -At -v ON_ERROR_STOP=1 -d postgres \
	-c "ALTER DATABASE $DB ALLOW_CONNECTIONS false" \
	-c "SELECT pg_terminate_backend($backend)")
[ "$terminated" = t ] || fail "could not terminate $backend"
sleep 3 # past the 2 s lease
touch "$WORK/lost.flag"
sleep 1
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "ALTER DATABASE $DB ALLOW_CONNECTIONS true"
wait "$agent" || fail "the lost agent exited with $?"
got=$(sql "SELECT string_agg(number || ' ' || state || ' ' || coalesce(error, '-') || ' '
                             || (metrics = '{}') || ' ' || coalesce(retry_of::text, '-'), '; ' ORDER BY number)
             FROM tuner.trials WHERE study = 'lost'")
first=$(sql "SELECT trial FROM tuner.trials WHERE study = 'lost' AND number = 1")
[ "$got" = "1 interrupted lease expired true -; 2 queued - true $first" ] ||
	fail "lease expired while disconnected: trials $got"
grep -q "not recorded, the trial is already interrupted: lease expired" "$WORK/lost.log" ||
	fail "the lost agent did not log its refused outcome"
echo "agent: connections refused past the lease: trial reaped and retried, late outcome refused ($got)"

# 6. SIGTERM to an agent while its runner runs.
sql "SELECT tuner.create_study('term', 'value', 'minimize', '{\"seed\": 25, \"kill_grace_s\": 1}')" >/dev/null
sql "SELECT tuner.add_parameter('term', 'x', 'float', 0, 1)" >/dev/null
"${RUN_AGENT[@]}" --study term --runner-path "$WORK/long.sh" --worker term 2> "$WORK/term.log" &
agent=$!
AGENT_PIDS+=($agent)
wait_for "SELECT count(*) = 1 FROM tuner.trial WHERE worker = 'term' AND state = 'running'" 20 ||
	fail "the term agent never claimed a trial"
for ((i = 0; i < 100; i++)); do
	[ -s "$WORK/long.pid" ] && break
	sleep 0.1
done
runner=$(cat "$WORK/long.pid")
kill -TERM "$agent"
rc=0
wait "$agent" || rc=$?
[ "$rc" = 0 ] || fail "the term agent exited with $rc after SIGTERM"
if alive "$runner"; then
	fail "the runner $runner survived the agent's SIGTERM"
fi
got=$(sql "SELECT count(*) || ' ' || string_agg(state || ': ' || error, ',') FROM tuner.trials WHERE study = 'term'")
[ "$got" = "1 interrupted: agent terminated" ] || fail "SIGTERM: trials $got"
echo "agent: SIGTERM: runner killed, trial $got"

# 7. Progress on fd 3: trial 1 reports value 1 at steps 1 to 3 and
# completes; trial 2 reports 10 and 9, then would sleep for a minute: the
# median rule prunes it.  Then a runner that writes garbage on fd 3.
cat > "$WORK/prune.sh" <<EOF
#!/bin/bash
n=\$(python3 -c 'import json, sys; print(json.load(sys.stdin)["_trial"]["number"])')
if [ "\$n" = 1 ] && [ -z "\$1" ]; then
	for s in 1 2 3; do echo "{\"step\": \$s, \"metrics\": {\"value\": 1}}" >&3; done
	echo '{"value": 1}'
	exit 0
fi
echo \$\$ > $WORK/prune.pid
sleep 60 &
echo \$! > $WORK/prune.child
[ -n "\$1" ] && echo 'throughput=5' >&3
echo '{"step": 1, "metrics": {"value": 10}}' >&3
echo '{"step": 2, "metrics": {"value": 9}}' >&3
wait
echo '{"value": 9}'
EOF
printf '#!/bin/bash\nexec %s garbage\n' "$WORK/prune.sh" > "$WORK/badprogress.sh"
chmod 755 "$WORK/prune.sh" "$WORK/badprogress.sh"
sql "SELECT tuner.create_study('prune', 'value', 'minimize',
       '{\"seed\": 26, \"pruning\": {\"rule\": \"median\", \"warmup_steps\": 0, \"min_trials\": 1}}')" >/dev/null
sql "SELECT tuner.add_parameter('prune', 'x', 'float', 0, 1)" >/dev/null
"${RUN_AGENT[@]}" --study prune --runner-path "$WORK/prune.sh" --worker prune --trials 2 2> "$WORK/prune.log" ||
	fail "the prune agent exited with $?"
got=$(sql "SELECT string_agg(number || ' ' || state || ' ' || value || ' ' || COALESCE(error, '') || ' '
                             || (SELECT string_agg(p.step::text, ',' ORDER BY p.step)
                                   FROM tuner.trial_progress p WHERE p.trial_id = t.trial), '; ' ORDER BY number)
             FROM tuner.trials t WHERE study = 'prune'")
want="1 complete 1  1,2,3; 2 pruned 9 pruned at step 2 by the study's pruning rule; its process group was stopped 1,2"
[ "$got" = "$want" ] || fail "pruning: got [$got], want [$want]"
check_gone() {
	local p
	for p in "$(cat "$WORK/prune.pid")" "$(cat "$WORK/prune.child")"; do
		if alive "$p"; then
			fail "$1: the runner's process $p survived"
		fi
	done
	rm -f "$WORK/prune.pid" "$WORK/prune.child"
}
check_gone pruning
grep -q "pruned: pruned at step 2" "$WORK/prune.log" || fail "the prune agent did not log the pruning"
echo "agent: progress stored, bad trial pruned, its runner's group gone: $got"
sql "SELECT tuner.create_study('badprogress', 'value')" >/dev/null
sql "SELECT tuner.add_parameter('badprogress', 'x', 'float', 0, 1)" >/dev/null
"${RUN_AGENT[@]}" --study badprogress --runner-path "$WORK/badprogress.sh" --worker badprogress \
	--trials 1 2> "$WORK/badprogress.log" || fail "the badprogress agent exited with $?"
got=$(sql "SELECT state || ': ' || error FROM tuner.trials WHERE study = 'badprogress'")
want="failed: progress line 1 (fd 3): expected a JSON object at byte 1: throughput=5; the runner's process group was stopped"
[ "$got" = "$want" ] || fail "malformed progress: got [$got], want [$want]"
check_gone "malformed progress"
echo "agent: malformed progress: $got; its runner's group is gone"

# 9. --trial ID (issue 31; a Slurm job's agent): exactly that trial, with
# the registered runner's program and arguments when no --runner-path is
# given; a trial already over is refused (exit 1); a configuration no
# longer in the space fails the trial at its claim (exit 1).
expect_exit 2 "$AGENT" --trial 0
expect_exit 2 "$AGENT" --trial 1x
expect_exit 2 "$AGENT" --trial 1 --study s
expect_exit 2 "$AGENT" --trial 1 --trials 2
expect_exit 2 "$AGENT" --trial 1 -- --arg
sql "SELECT tuner.register_runner('agent_by_id', '$WORK/f.py', '{}', '{\"sleep\": 0.1}')" >/dev/null
sql "SELECT tuner.create_study('byid', 'value', 'minimize', '{\"seed\": 3}', runner => 'agent_by_id')" >/dev/null
sql "SELECT tuner.add_parameter('byid', 'x', 'float', 0, 1)" >/dev/null
sql "SELECT tuner.add_parameter('byid', 'y', 'float', 0, 1)" >/dev/null
t1=$(sql "SELECT tuner.enqueue('byid', '{\"x\": 0.1, \"y\": 0.1}')")
t2=$(sql "SELECT tuner.enqueue('byid', '{\"x\": 0.3, \"y\": 0.6}')")
"${RUN_AGENT[@]}" --trial "$t2" --worker byid-2 2> "$WORK/byid.log" || fail "--trial $t2 exited with $?"
got=$(sql "SELECT string_agg(number || ' ' || state || ' ' || COALESCE(worker, '-') || ' '
                  || COALESCE(value::text, '-'), ', ' ORDER BY number) FROM tuner.trials WHERE study = 'byid'")
[ "$got" = "1 queued - -, 2 complete byid-2 0" ] || fail "--trial $t2 (registered runner): $got"
expect_exit 1 "${RUN_AGENT[@]}" --trial "$t2" --worker byid-2
grep -q "cannot be claimed by worker" "$WORK/usage.err" || fail "--trial of a complete trial: $(cat "$WORK/usage.err")"
"${RUN_AGENT[@]}" --trial "$t1" --runner-path "$WORK/f.py" 2> "$WORK/byid.log" || fail "--trial $t1 exited with $?"
[ "$(sql "SELECT state FROM tuner.trial WHERE id = $t1")" = complete ] || fail "--trial $t1 with --runner-path"
t3=$(sql "SELECT tuner.enqueue('byid', '{\"x\": 0.9, \"y\": 0.9}')")
sql "UPDATE tuner.parameter SET high = 0.5 WHERE name = 'x' AND study_id = (SELECT id FROM tuner.study WHERE name = 'byid')" >/dev/null
expect_exit 1 "${RUN_AGENT[@]}" --trial "$t3"
got=$(sql "SELECT state || ': ' || error FROM tuner.trial WHERE id = $t3")
[[ "$got" == "failed: runner input refused: "* ]] || fail "--trial of a trial out of the space: $got"
echo "agent: --trial: that trial with the registered runner, a finished one refused, one out of the space failed"

# 8. Network cuts (its own database, its own agents).
TUNER_AGENT="$AGENT" bash tests/agent_netcut.sh || fail "network cuts (tests/agent_netcut.sh)"

psql -X -q -d postgres -c "DROP DATABASE $DB"
echo "agent: all checks passed"
