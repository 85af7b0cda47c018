# agent_lib.sh: what tests/agent.sh and tests/agent_netcut.sh share.
# Source it after setting TEST_NAME (the prefix of messages), DB (the test
# database) and WORK (a scratch directory whose *.log files are shown on
# failure).  psql reaches the server through the PG* environment.

# Fail the test, showing the end of every agent log.
fail() {
	echo "$TEST_NAME: FAILED: $*" >&2
	local f
	for f in "$WORK"/*.log; do
		[ -f "$f" ] || continue
		echo "--- $f" >&2
		tail -20 "$f" >&2
	done
	exit 1
}

# Is process $1 alive (a zombie waiting for a reaper that is not init
# does not count)?
alive() {
	local stat
	stat=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	[[ "$stat" != Z* ]]
}

sql() {
	psql -X -At -v ON_ERROR_STOP=1 -d "$DB" -c "$1"
}

# Wait (at most $2 s) until the query $1 returns t.
wait_for() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		[ "$(sql "$1")" = t ] && return 0
		sleep 0.1
	done
	return 1
}

# Write the runner "wait.py" into $WORK: it prints the sum of the
# configuration once the file named by _settings.flag exists, so a test
# decides when a trial ends.
write_wait_runner() {
	cat > "$WORK/wait.py" <<'EOF'
#!/usr/bin/python3
import json, os, sys, time
c = json.load(sys.stdin)
while not os.path.exists(c["_settings"]["flag"]):
    time.sleep(0.05)
print(json.dumps({"value": c["x"] + c["y"]}))
EOF
	chmod 755 "$WORK/wait.py"
}
