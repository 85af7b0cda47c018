#!/bin/bash
# test_cluster.sh: real jobs on the running local Slurm test cluster
# (tests/slurm/cluster.sh start; SLURM_CONF from `cluster.sh env`, or
# TUNER_SLURM_DIR).  TAP: each check prints "ok N - ..." or "not ok N -
# ...", the plan comes last; exits non-zero on any failure.
#   1. two jobs at once run on the two nodes (squeue: both RUNNING);
#   2. a finished job's accounting (sacct): COMPLETED, elapsed, node list,
#      MaxRSS of its batch step near what it allocated;
#   3. scancel of a running job: CANCELLED, its processes gone;
#   4. a node drained under a running job (draining; the job completes),
#      then drained: a new job waits rather than run there, and runs there
#      once the node is resumed;
#   5. a job past its --time limit ends TIMEOUT, its processes gone.
# Waits are bounded by generous timeouts; nothing asserts wall-clock time.
# About 2 minutes (Slurm's time limits are whole minutes).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
ROOT=$(pwd)

if [ -z "${SLURM_CONF:-}" ]; then
	eval "$(bash "$ROOT/tests/slurm/cluster.sh" env)"
	export SLURM_CONF
fi
[ -f "$SLURM_CONF" ] || {
	echo "test_cluster.sh: no cluster ($SLURM_CONF missing); run tests/slurm/cluster.sh start" >&2
	exit 1
}
WORK=$(mktemp -d /tmp/tuner-slurm-test.XXXXXX)
chmod 755 "$WORK"
JOBS=()
cleanup() {
	[ "${#JOBS[@]}" -gt 0 ] && scancel "${JOBS[@]}" 2>/dev/null
	scontrol update nodename=tn2 state=resume 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

passed=0
failed=0
ok() {
	passed=$((passed + 1))
	echo "ok $((passed + failed)) - $1"
}
not_ok() {
	failed=$((failed + 1))
	echo "not ok $((passed + failed)) - $1"
	[ -n "${2:-}" ] && echo "$2" | tail -20 | sed 's/^/#   /'
}
# expect NAME GOT WANT: ok when GOT equals WANT.
expect() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "got [$2], want [$3]"; fi
}

# submit ARGS...: sbatch in $WORK; prints the job id.
submit() {
	local id
	id=$(cd "$WORK" && sbatch --parsable -o "$WORK/%j.out" "$@") || return 1
	JOBS+=("$id")
	echo "$id"
}
sq() { squeue -h -j "$1" -o "$2" 2>/dev/null; }
# The job's allocation line in the accounting database (-X: not its steps).
acct() { sacct -n -P -X -j "$1" -o "$2" 2>/dev/null; }
# wait_for SECONDS CMD...: poll CMD every 0.2 s until it succeeds.
wait_for() {
	local limit=$1 i
	shift
	for ((i = 0; i < limit * 5; i++)); do
		if "$@" >/dev/null 2>&1; then return 0; fi
		sleep 0.2
	done
	return 1
}
running() { [ "$(sq "$1" %T)" = RUNNING ]; }
# The accounting database has the job's final state (PATTERN, a regex).
acct_state() { [[ "$(acct "$1" State)" =~ ^$2 ]]; }
node_state() { sinfo -h -n "$1" -o %T 2>/dev/null; }
alive() {
	local stat
	stat=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	[[ "$stat" != Z* ]]
}
# gone FILE: no process of the PIDs listed in FILE is alive.
gone() {
	local p
	for p in $(cat "$1"); do
		if alive "$p"; then return 1; fi
	done
	return 0
}
# A job script that records its own and its child's PID, then sleeps.
sleeper() { # sleeper SECONDS NAME
	echo "sleep $1 & echo \$\$ \$! > $WORK/$2.pids; wait"
}
# MaxRSS as sacct prints it (e.g. 219712K, 1.5G) in MiB.
mib() {
	awk -v v="$1" 'BEGIN {
		n = v + 0; u = substr(v, length(v))
		if (u == "K") n /= 1024; else if (u == "G") n *= 1024; else if (u == "T") n *= 1048576
		else if (u ~ /[0-9]/) n /= 1048576
		printf "%d", n }'
}

# 1. Two jobs at once, one per node (the partition is exclusive).
a=$(submit -J two-a --wrap "$(sleeper 120 two-a)")
b=$(submit -J two-b --wrap "$(sleeper 120 two-b)")
if wait_for 60 running "$a" && wait_for 60 running "$b"; then
	ok "two jobs RUNNING at once ($a, $b)"
else
	not_ok "two jobs RUNNING at once" "$(squeue)"
fi
nodes="$(sq "$a" %N) $(sq "$b" %N)"
case "$nodes" in
	"tn1 tn2" | "tn2 tn1") ok "they run on different nodes ($nodes)" ;;
	*) not_ok "they run on different nodes" "nodes: $nodes" ;;
esac

# 3. scancel of a running job (job a): CANCELLED, its processes gone.
wait_for 30 test -s "$WORK/two-a.pids" || not_ok "job $a wrote its PIDs"
scancel "$a"
if wait_for 60 acct_state "$a" CANCELLED; then
	ok "scancel: job $a is CANCELLED in sacct ($(acct "$a" State))"
else
	not_ok "scancel: job $a is CANCELLED in sacct" "$(acct "$a" State)"
fi
if wait_for 60 gone "$WORK/two-a.pids"; then
	ok "scancel: the job's processes are gone ($(cat "$WORK/two-a.pids"))"
else
	not_ok "scancel: the job's processes are gone" "$(ps -o pid,stat,cmd -p "$(tr ' ' , <"$WORK/two-a.pids")")"
fi
[ -z "$(sq "$a" %T)" ] && ok "scancel: squeue no longer lists job $a" ||
	not_ok "scancel: squeue no longer lists job $a" "$(sq "$a" %T)"
scancel "$b"
wait_for 60 acct_state "$b" CANCELLED || not_ok "job $b cancelled" "$(acct "$b" State)"

# 2. Accounting of a finished job: a Python process that holds 200 MiB.
c=$(submit -J acct --wrap "/usr/bin/python3 -c 'import time; x = bytearray(200 << 20); time.sleep(3)'")
if wait_for 120 acct_state "$c" COMPLETED; then
	ok "sacct: job $c COMPLETED"
else
	not_ok "sacct: job $c COMPLETED" "$(acct "$c" State,ExitCode,Reason)"
fi
line=$(acct "$c" Elapsed,NodeList,ExitCode)
IFS='|' read -r elapsed nodelist exitcode <<<"$line"
if [[ "$elapsed" =~ ^[0-9]{2}:[0-9]{2}:[0-9]{2}$ ]] && [ "$elapsed" != 00:00:00 ]; then
	ok "sacct: elapsed $elapsed"
else not_ok "sacct: elapsed" "$line"; fi
case "$nodelist" in
	tn1 | tn2) ok "sacct: node list $nodelist" ;;
	*) not_ok "sacct: node list" "$line" ;;
esac
expect "sacct: exit code" "$exitcode" "0:0"
maxrss=$(sacct -n -P -j "$c.batch" -o MaxRSS 2>/dev/null)
rss=$(mib "${maxrss:-0}")
if [ "$rss" -ge 190 ] && [ "$rss" -le 400 ]; then
	ok "sacct: MaxRSS of the batch step $maxrss (${rss} MiB, 200 MiB allocated)"
else
	not_ok "sacct: MaxRSS of the batch step is about 200 MiB" "MaxRSS [$maxrss]: $(sacct -P -j "$c" -o JobID,State,MaxRSS)"
fi

# 4. A node drained under a running job, then while drained.
d=$(submit -J drain-mid -w tn2 --wrap "sleep 5")
wait_for 60 running "$d" || not_ok "job $d runs on tn2" "$(squeue)"
scontrol update nodename=tn2 state=drain reason="tuner test" ||
	not_ok "scontrol drain tn2"
st=$(node_state tn2)
case "$st" in
	draining | drained) ok "drain: tn2 is $st with job $d on it" ;;
	*) not_ok "drain: tn2 is draining" "state $st" ;;
esac
if wait_for 60 acct_state "$d" COMPLETED; then
	ok "drain: the job running on tn2 completes"
else
	not_ok "drain: the job running on tn2 completes" "$(acct "$d" State)"
fi
if wait_for 30 bash -c '[ "$(sinfo -h -n tn2 -o %T)" = drained ]'; then
	ok "drain: tn2 is drained once its job ended"
else
	not_ok "drain: tn2 is drained once its job ended" "$(node_state tn2)"
fi
e=$(submit -J drain-busy --wrap "$(sleeper 120 drain-busy)")
if wait_for 60 running "$e"; then
	expect "drain: a new job runs on tn1, not the drained tn2" "$(sq "$e" %N)" tn1
else
	not_ok "drain: a new job runs on tn1" "$(squeue)"
fi
f=$(submit -J drain-wait --wrap "hostname; echo \$SLURMD_NODENAME")
# Pending with a reason: the scheduler has looked at it and left it.
considered() { [ "$(sq "$1" %T)" = PENDING ] && [ "$(sq "$1" %r)" != None ]; }
if wait_for 60 considered "$f"; then
	ok "drain: with tn1 busy and tn2 drained, job $f waits ($(sq "$f" %r))"
else
	not_ok "drain: job $f waits" "$(squeue -o '%i %T %N %r')"
fi
scontrol update nodename=tn2 state=resume || not_ok "scontrol resume tn2"
if wait_for 60 acct_state "$f" COMPLETED; then
	expect "resume: the waiting job ran on tn2" "$(acct "$f" NodeList)" tn2
else
	not_ok "resume: the waiting job ran" "$(acct "$f" State,NodeList) $(squeue)"
fi
st=$(node_state tn2)
case "$st" in
	idle | mixed | allocated | completing) ok "resume: tn2 is back in service ($st)" ;;
	*) not_ok "resume: tn2 is back in service" "state $st" ;;
esac
scancel "$e"
wait_for 60 acct_state "$e" CANCELLED || not_ok "job $e cancelled" "$(acct "$e" State)"

# 5. A job past its time limit (1 minute, Slurm's smallest): TIMEOUT, and
# its processes are gone.
g=$(submit -J timeout --time=1 --wrap "$(sleeper 600 timeout)")
wait_for 60 running "$g" || not_ok "job $g runs" "$(squeue)"
if wait_for 240 acct_state "$g" TIMEOUT; then
	ok "time limit: job $g ends TIMEOUT"
else
	not_ok "time limit: job $g ends TIMEOUT" "$(acct "$g" State,Elapsed,Timelimit)"
fi
if wait_for 60 gone "$WORK/timeout.pids"; then
	ok "time limit: the job's processes are gone"
else
	not_ok "time limit: the job's processes are gone" "$(ps -o pid,stat,cmd -p "$(tr ' ' , <"$WORK/timeout.pids")")"
fi
expect "time limit: its limit in sacct" "$(acct "$g" Timelimit)" "00:01:00"

echo "# $passed passed, $failed failed"
echo "1..$((passed + failed))"
[ "$failed" -eq 0 ]
