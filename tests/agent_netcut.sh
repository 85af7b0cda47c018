#!/bin/bash
# agent_netcut.sh: tuner-agent (src/agent) when the network between it and
# the server is cut, not just its backend killed.  The agent reaches the
# server over TCP through a relay (socat on a local port, forwarding to the
# server of the PG* environment), which the test cuts and restores while
# the agent's runner (a real program waiting for a flag file) runs:
#   a. the relay is killed (the connection is reset) and restarted before
#      the trial's lease expires: the agent reconnects, renews the lease
#      and reports; the trial is complete once and has no retry;
#   b. the relay stays down past the lease and tuner.reap() runs: the trial
#      is interrupted ("lease expired") and its retry queued; when the
#      relay is back the agent learns it, stops its runner, its outcome is
#      refused (reported or reaped, never both) and it goes on to claim and
#      complete the retry;
#   c. the relay is stopped (SIGSTOP: the connection hangs without a reset,
#      the kernel still acknowledging what the agent sends): the agent gives
#      up on its heartbeat within a bounded time instead of waiting forever,
#      and once the relay resumes it reconnects and reports.
# Run by tests/agent.sh; needs what it needs, and socat.
set -euo pipefail
cd "$(dirname "$0")/.."

AGENT=$(realpath "${TUNER_AGENT:-src/agent/tuner-agent}")
DB=tuner_agent_net
WORK=$(mktemp -d)
chmod 755 "$WORK"
TEST_NAME=agent-netcut
. tests/lib/agent_lib.sh

AGENT_PIDS=()
RELAY_PID=
cleanup() {
	local p
	for p in "${AGENT_PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null || true
	done
	if [ -n "$RELAY_PID" ]; then
		kill -CONT -- "-$RELAY_PID" 2>/dev/null || true
		kill -KILL -- "-$RELAY_PID" 2>/dev/null || true
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

[ -x "$AGENT" ] || fail "$AGENT is not built (make agent)"
command -v socat >/dev/null || fail "socat is not installed (scripts/install-deps.sh)"

# Where the relay forwards to: the server of the PG* environment.
if [[ "${PGHOST:-/}" == /* ]]; then
	UPSTREAM="UNIX-CONNECT:${PGHOST:-/var/run/postgresql}/.s.PGSQL.${PGPORT:-5432}"
else
	UPSTREAM="TCP:$PGHOST:${PGPORT:-5432}"
fi
RELAY_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# Start the relay in a process group of its own (socat forks a child per
# connection; the group is what gets cut) and wait until it listens.
relay_start() {
	local i
	setsid socat "TCP-LISTEN:$RELAY_PORT,bind=127.0.0.1,reuseaddr,fork" "$UPSTREAM" \
		2>> "$WORK/socat.err" &
	RELAY_PID=$!
	for ((i = 0; i < 100; i++)); do
		ss -Htln "sport = :$RELAY_PORT" | grep -q . && return 0
		sleep 0.05
	done
	fail "the relay does not listen on port $RELAY_PORT: $(cat "$WORK/socat.err")"
}

# Cut the relay: kill its whole group, so the agent's connection is reset
# and new ones are refused.
relay_kill() {
	local i
	kill -KILL -- "-$RELAY_PID"
	wait "$RELAY_PID" 2>/dev/null || true # without bash's "Killed" notice
	for ((i = 0; i < 100; i++)); do
		kill -0 -- "-$RELAY_PID" 2>/dev/null || break
		sleep 0.05
	done
	RELAY_PID=
}

# Wait (at most $3 s) until the log $1 has a line matching $2.
wait_log() {
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		grep -q -- "$2" "$1" && return 0
		sleep 0.05
	done
	return 1
}

# A study for one case: lease_s $2, runner flag $WORK/$1.flag.
make_study() {
	sql "SELECT tuner.create_study('$1', 'value', 'minimize',
	       '{\"seed\": 31, \"lease_s\": $2, \"runner\": {\"flag\": \"$WORK/$1.flag\"}}')" >/dev/null
	sql "SELECT tuner.add_parameter('$1', 'x', 'float', 0, 1)" >/dev/null
	sql "SELECT tuner.add_parameter('$1', 'y', 'float', 0, 1)" >/dev/null
}

# Start an agent for study $1 (worker $1, log $WORK/$1.log) through the
# relay; $2 trials.  Sets AGENT_PID.
start_agent() {
	"$AGENT" --dsn "host=127.0.0.1 port=$RELAY_PORT dbname=$DB" --study "$1" \
		--runner-path "$WORK/wait.py" --worker "$1" --trials "$2" \
		--heartbeat-s 0.3 --max-backoff-s 0.5 2> "$WORK/$1.log" &
	AGENT_PID=$!
	AGENT_PIDS+=($AGENT_PID)
	wait_for "SELECT count(*) = 1 FROM tuner.trial WHERE worker = '$1' AND state = 'running'" 20 ||
		fail "the $1 agent never claimed a trial"
}

# Every trial of study $1: number, state, error, whether it has metrics,
# the number of the trial it retries.
trials_of() {
	sql "SELECT string_agg(t.number || ' ' || t.state || ' ' || coalesce(t.error, '-') || ' '
	                       || (t.metrics <> '{}') || ' ' || coalesce(o.number::text, '-'),
	                       '; ' ORDER BY t.number)
	       FROM tuner.trials t LEFT JOIN tuner.trials o ON o.trial = t.retry_of
	      WHERE t.study = '$1'"
}

psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
sql "CREATE EXTENSION tuner" >/dev/null
write_wait_runner
relay_start

# a. A reset shorter than the lease.
make_study neta 6
start_agent neta 1
relay_kill
wait_log "$WORK/neta.log" "lost the connection" 10 || fail "the neta agent did not notice the cut"
wait_log "$WORK/neta.log" "could not connect" 10 || fail "the neta agent did not try to reconnect"
relay_start
wait_log "$WORK/neta.log" "reconnected; renewing the lease" 10 ||
	fail "the neta agent did not reconnect when the relay came back"
touch "$WORK/neta.flag"
wait "$AGENT_PID" || fail "the neta agent exited with $?"
got=$(trials_of neta)
[ "$got" = "1 complete - true -" ] || fail "reset shorter than the lease: trials $got"
echo "$TEST_NAME: relay reset and restored within the lease: reconnected, reported once ($got)"

# b. A cut longer than the lease.
make_study netb 2
start_agent netb 2
relay_kill
wait_log "$WORK/netb.log" "lost the connection" 10 || fail "the netb agent did not notice the cut"
wait_for "SELECT lease_expires_at < clock_timestamp() FROM tuner.trial
           WHERE worker = 'netb' AND state = 'running'" 10 || fail "the netb lease did not expire"
[ "$(sql "SELECT tuner.reap('netb')")" = 1 ] || fail "reap did not interrupt the netb trial"
got=$(trials_of netb)
[ "$got" = "1 interrupted lease expired false -; 2 queued - false 1" ] ||
	fail "reaped while cut off: trials $got"
relay_start
wait_log "$WORK/netb.log" "is no longer running" 10 ||
	fail "the netb agent did not learn that its trial was reaped"
wait_log "$WORK/netb.log" "not recorded, the trial is already interrupted: lease expired" 10 ||
	fail "the netb agent did not log why its outcome was refused"
# It goes on: the next trial it claims is the retry.
wait_for "SELECT state = 'running' AND worker = 'netb' FROM tuner.trials
           WHERE study = 'netb' AND number = 2" 20 || fail "the netb agent did not claim the retry"
touch "$WORK/netb.flag"
wait "$AGENT_PID" || fail "the netb agent exited with $?"
got=$(trials_of netb)
[ "$got" = "1 interrupted lease expired false -; 2 complete - true 1" ] ||
	fail "cut past the lease: trials $got"
echo "$TEST_NAME: relay cut past the lease: reaped, late outcome refused, retry claimed and reported ($got)"

# c. A relay that hangs: no reset, the agent's bytes are acknowledged and
# never answered.  The agent must give up within its heartbeat timeout
# (here 1 s: --heartbeat-s 0.3, at least 1 s), far from the lease.
make_study netc 30
start_agent netc 1
sleep 0.5 # a heartbeat or two through the relay first
stopped_at=$(date +%s.%N)
kill -STOP -- "-$RELAY_PID"
wait_log "$WORK/netc.log" "lost the connection: no answer from the database" 10 ||
	fail "the netc agent hung on a stopped relay"
noticed=$(python3 -c "import time; print(round(time.time() - $stopped_at, 1))")
python3 -c "import sys; sys.exit(0 if $noticed <= 5 else 1)" ||
	fail "the netc agent took $noticed s to notice a stopped relay"
[ "$(sql "SELECT state FROM tuner.trials WHERE study = 'netc'")" = running ] ||
	fail "the netc trial ended while the relay was stopped"
kill -CONT -- "-$RELAY_PID"
wait_log "$WORK/netc.log" "reconnected; renewing the lease" 15 ||
	fail "the netc agent did not reconnect when the relay resumed"
touch "$WORK/netc.flag"
wait "$AGENT_PID" || fail "the netc agent exited with $?"
got=$(trials_of netc)
[ "$got" = "1 complete - true -" ] || fail "stopped relay: trials $got"
echo "$TEST_NAME: relay stopped (no reset): noticed after $noticed s, reconnected, reported once ($got)"

relay_kill
psql -X -q -d postgres -c "DROP DATABASE $DB"
echo "$TEST_NAME: all checks passed"
