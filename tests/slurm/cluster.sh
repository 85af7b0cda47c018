#!/bin/bash
# cluster.sh: a real, single-host Slurm test cluster for tuner's tests (issue
# 31): munge, MariaDB, slurmdbd, slurmctld and TUNER_SLURM_NODES slurmd
# "nodes" on this machine, each node a slurmd of its own (slurmd -N tnI).
#
#   cluster.sh start    create (first time) and start it; idempotent
#   cluster.sh stop     cancel every job, stop every daemon by its PID file
#   cluster.sh purge    stop and remove the cluster directory entirely
#   cluster.sh status   what runs (daemons and PIDs), sinfo and squeue
#   cluster.sh env      print SLURM_CONF=... (eval it to use the clients)
#
# Layout (ports from TUNER_SLURM_PORT, default 46817; all on 127.0.0.1):
#   munged      socket $DIR/munge/munge.socket, key $DIR/etc/munge.key
#   mariadbd    port+4, datadir $DIR/mysql; only slurmdbd uses it
#   slurmdbd    port+1: job accounting for sacct (accounting_storage/mysql)
#   slurmctld   port:   the controller, state in $DIR/ctld
#   slurmd      port+2, port+3, ...: nodes tn1, tn2, ... (NodeHostname
#               localhost), spool $DIR/spool/tnI, each with
#               TUNER_SLURM_CPUS CPUs (default: this machine's)
#   partition   "tuner" (default), all nodes, OverSubscribe=EXCLUSIVE: a
#               job has its nodes to itself, as a benchmark trial must;
#               "urgent" (hidden), the same nodes at a higher PriorityTier:
#               its jobs preempt tuner's (requeued or cancelled)
#
# Accounting: sacct needs slurmdbd (accounting_storage/slurmdbd), and Slurm
# 22.05's slurmdbd stores into MySQL/MariaDB only; jobcomp/filetxt writes
# a completion log that sacct cannot read and that has no MaxRSS.  So a
# throwaway MariaDB server runs here too, on its own datadir and port.
# Job steps are tracked by process tree (proctrack/linuxproc) and sampled
# every second (jobacct_gather/linux), so MaxRSS is measured without
# cgroups (containers often have no writable cgroup hierarchy).
#
# Everything lives in TUNER_SLURM_DIR (default /tmp/tuner-slurm-<uid>):
# configuration, keys, state, spool, logs, PID files and the database.
# The daemons and the jobs run as the user who starts the cluster (root in
# CI); clients need only SLURM_CONF (cluster.sh env).
set -euo pipefail

DIR=${TUNER_SLURM_DIR:-/tmp/tuner-slurm-$(id -u)}
PORT=${TUNER_SLURM_PORT:-46817}
NODES=${TUNER_SLURM_NODES:-2}
CPUS=${TUNER_SLURM_CPUS:-$(nproc)}
# A created cluster keeps its port and nodes (cluster.env, written at
# creation), whatever the environment says later.
if [ -f "$DIR/cluster.env" ]; then
	# shellcheck disable=SC1091
	. "$DIR/cluster.env"
fi
CONF=$DIR/etc/slurm.conf
MUNGE_SOCKET=$DIR/munge/munge.socket
MYSQL_SOCKET=$DIR/mysql/mysqld.sock
READY_TIMEOUT=${TUNER_SLURM_READY_TIMEOUT:-60}
# Every daemon started here carries this in its environment, so that stop
# can find the slurmstepd processes its slurmd left (they have no PID file).
MARK="TUNER_SLURM_CLUSTER=$DIR"
export SLURM_CONF=$CONF

die() {
	echo "cluster.sh: $*" >&2
	exit 1
}
say() { echo "cluster.sh: $*" >&2; }

case "$NODES" in
	1 | 2 | 3 | 4) ;;
	*) die "TUNER_SLURM_NODES must be 1 to 4 (got $NODES)" ;;
esac
case "$PORT" in
	'' | *[!0-9]*) die "TUNER_SLURM_PORT must be a port number (got $PORT)" ;;
esac
if [ "$PORT" -lt 1024 ] || [ "$PORT" -gt 65000 ]; then
	die "TUNER_SLURM_PORT must be in 1024..65000 (got $PORT)"
fi
case "$CPUS" in
	'' | *[!0-9]* | 0) die "TUNER_SLURM_CPUS must be a count of at least 1 (got $CPUS)" ;;
esac

check_tools() {
	local t
	for t in munged munge slurmctld slurmd slurmstepd slurmdbd sbatch sacct \
		sacctmgr scontrol mariadbd mariadb-install-db mariadb; do
		command -v "$t" >/dev/null ||
			die "$t not found; bash scripts/install-deps.sh slurm"
	done
}

node_names() { seq 1 "$NODES" | sed 's/^/tn/'; }

# alive PID: the process runs (a zombie that init has not reaped yet, as a
# container's init may never do, does not count).
alive() {
	local stat
	stat=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	[[ "$stat" != Z* ]]
}

# pid_of NAME: the PID in $DIR/run/NAME.pid when that process runs, else "".
pid_of() {
	local f=$DIR/run/$1.pid pid
	[ -s "$f" ] || return 0
	pid=$(tr -dc 0-9 <"$f")
	[ -n "$pid" ] || return 0
	if alive "$pid"; then echo "$pid"; fi
}

# stop_daemon NAME: TERM the PID in NAME's PID file, KILL after 30 s.
stop_daemon() {
	local name=$1 pid i
	pid=$(pid_of "$name")
	if [ -n "$pid" ]; then
		kill -TERM "$pid" 2>/dev/null || true
		for i in $(seq 1 300); do
			alive "$pid" || break
			sleep 0.1
		done
		if alive "$pid"; then
			say "$name (pid $pid) did not stop in 30 s; killing it"
			kill -KILL "$pid" 2>/dev/null || true
			sleep 0.5
		fi
	fi
	rm -f "$DIR/run/$name.pid"
}

# PIDs of processes whose environment carries this cluster's mark (the
# daemons and the slurmstepd processes of its nodes).
marked_pids() {
	local e pid
	for e in /proc/[0-9]*/environ; do
		pid=${e#/proc/}
		pid=${pid%/environ}
		[ "$pid" = $$ ] && continue
		if { tr '\0' '\n' <"$e"; } 2>/dev/null | grep -qxF "$MARK"; then
			echo "$pid"
		fi
	done
}

# descendants PID: every process below PID (children first listed last).
descendants() {
	ps -e -o pid=,ppid= | awk -v root="$1" '
		{ parent[$1] = $2 }
		END {
			found[root] = 1
			do {
				more = 0
				for (p in parent)
					if (!(p in found) && (parent[p] in found)) { found[p] = 1; more = 1; print p }
			} while (more)
		}'
}

# wait_until SECONDS CMD...: run CMD every 0.2 s until it succeeds.
wait_until() {
	local limit=$1 i
	shift
	for ((i = 0; i < limit * 5; i++)); do
		if "$@" >/dev/null 2>&1; then return 0; fi
		sleep 0.2
	done
	return 1
}

write_conf() {
	local mem node i=0 dbpass=$1 user
	user=$(id -un)
	mem=$(awk '/^MemTotal:/ {print int($2 / 1024 / 2)}' /proc/meminfo)
	cat >"$CONF" <<EOF
# tuner's Slurm test cluster (tests/slurm/cluster.sh); generated, do not edit.
ClusterName=tuner
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$PORT
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
# cred_expire: a job step credential's lifetime, and also how long Slurm
# holds a requeued job before it may start again (slurm.conf(5), AuthInfo;
# default 120 s).  20 s is ample for steps launched on this one host and
# lets the tests see a requeued trial run again within a minute.
AuthInfo=socket=$MUNGE_SOCKET,cred_expire=20
StateSaveLocation=$DIR/ctld
SlurmdSpoolDir=$DIR/spool/%n
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd-%n.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups: processes are tracked by their parent chain.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=task=1
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$((PORT + 1))
# For connections to slurmdbd, Slurm takes munge's socket from here, not
# from AuthInfo.
AccountingStoragePass=$MUNGE_SOCKET
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# The node lines below are the truth, whatever slurmd detects (several
# nodes share this machine's CPUs and memory).
SlurmdParameters=config_overrides
ReturnToService=2
SlurmdTimeout=300
InactiveLimit=0
# A job's processes get SIGTERM, then SIGKILL after KillWait seconds, on
# scancel or at its time limit.
KillWait=5
OverTimeLimit=0
MinJobAge=300
# Preemption by partition: a job of the higher PriorityTier partition
# "urgent" takes the nodes of "tuner" jobs, which are requeued when they
# may be (sbatch --requeue, or JobRequeue) and else cancelled (PREEMPTED).
PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
EOF
	for node in $(node_names); do
		echo "NodeName=$node NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((PORT + 2 + i)) CPUs=$CPUS RealMemory=$mem State=UNKNOWN" >>"$CONF"
		i=$((i + 1))
	done
	echo "PartitionName=tuner Nodes=tn[1-$NODES] Default=YES MaxTime=INFINITE State=UP OverSubscribe=EXCLUSIVE PriorityTier=1" >>"$CONF"
	# Hidden: sinfo and squeue show it only with -a (a node's state is one
	# line: its state in "tuner").
	echo "PartitionName=urgent Nodes=tn[1-$NODES] Default=NO MaxTime=INFINITE State=UP OverSubscribe=EXCLUSIVE PriorityTier=10 Hidden=YES" >>"$CONF"
	chmod 644 "$CONF"
	# slurmdbd reads slurmdbd.conf beside slurm.conf; it holds the database
	# password, so only its owner may read it (slurmdbd insists).
	(
		umask 077
		cat >"$DIR/etc/slurmdbd.conf" <<EOF
# tuner's Slurm test cluster (tests/slurm/cluster.sh); generated, do not edit.
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCKET
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$((PORT + 1))
SlurmUser=$user
PidFile=$DIR/run/slurmdbd.pid
LogFile=$DIR/log/slurmdbd.log
DebugLevel=info
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$((PORT + 4))
StorageUser=slurm
StoragePass=$dbpass
StorageLoc=slurm_acct_db
EOF
	)
}

create() {
	local dbpass
	mkdir -p "$DIR"
	# munged insists that everyone may traverse the socket's directories.
	chmod 755 "$DIR"
	mkdir -p "$DIR/etc" "$DIR/munge" "$DIR/mysql" "$DIR/ctld" "$DIR/log" "$DIR/run"
	chmod 755 "$DIR/etc" "$DIR/munge" "$DIR/run" "$DIR/log"
	chmod 700 "$DIR/mysql" "$DIR/ctld"
	for node in $(node_names); do mkdir -p "$DIR/spool/$node"; done
	printf 'PORT=%d\nNODES=%d\nCPUS=%d\n' "$PORT" "$NODES" "$CPUS" >"$DIR/cluster.env"
	(
		umask 077
		head -c 1024 /dev/urandom >"$DIR/etc/munge.key"
	)
	chmod 400 "$DIR/etc/munge.key"
	dbpass=$(head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')
	mariadb-install-db --no-defaults --datadir="$DIR/mysql/data" --user="$(id -un)" \
		--auth-root-authentication-method=socket --skip-test-db \
		>"$DIR/log/mariadb-install.log" 2>&1 ||
		die "mariadb-install-db failed: $(tail -3 "$DIR/log/mariadb-install.log")"
	write_conf "$dbpass"
	start_mariadb
	mariadb --no-defaults -S "$MYSQL_SOCKET" -u root <<EOF ||
CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$dbpass';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
EOF
		die "could not create the slurm database user"
}

start_munge() {
	[ -n "$(pid_of munged)" ] && return 0
	env "$MARK" munged --socket="$MUNGE_SOCKET" --key-file="$DIR/etc/munge.key" \
		--log-file="$DIR/log/munged.log" --pid-file="$DIR/run/munged.pid" \
		--seed-file="$DIR/munge/munged.seed" ||
		die "munged did not start: $(tail -3 "$DIR/log/munged.log")"
	wait_until "$READY_TIMEOUT" bash -c \
		"munge -S '$MUNGE_SOCKET' -n | unmunge -S '$MUNGE_SOCKET'" ||
		die "munge does not answer (log: $DIR/log/munged.log)"
}

start_mariadb() {
	[ -n "$(pid_of mariadbd)" ] && return 0
	# mariadbd does not detach: run it in the background, in its own session.
	env "$MARK" setsid mariadbd --no-defaults --datadir="$DIR/mysql/data" \
		--socket="$MYSQL_SOCKET" --port=$((PORT + 4)) --bind-address=127.0.0.1 \
		--skip-name-resolve --pid-file="$DIR/run/mariadbd.pid" \
		--log-error="$DIR/log/mariadbd.log" --user="$(id -un)" \
		--innodb-buffer-pool-size=128M --innodb-lock-wait-timeout=900 \
		</dev/null >/dev/null 2>&1 &
	wait_until "$READY_TIMEOUT" mariadb --no-defaults -S "$MYSQL_SOCKET" -u root -e 'SELECT 1' ||
		die "MariaDB did not answer in ${READY_TIMEOUT} s (log: $DIR/log/mariadbd.log)"
}

start_slurmdbd() {
	[ -n "$(pid_of slurmdbd)" ] && return 0
	env "$MARK" slurmdbd ||
		die "slurmdbd did not start: $(tail -3 "$DIR/log/slurmdbd.log")"
	wait_until "$READY_TIMEOUT" timeout 10 sacctmgr -n list cluster ||
		die "slurmdbd does not answer (log: $DIR/log/slurmdbd.log)"
	if [ -z "$(sacctmgr -n -P list cluster tuner format=cluster)" ]; then
		sacctmgr -i add cluster tuner >/dev/null ||
			die "could not add the cluster to the accounting database"
	fi
}

start_slurmctld() {
	[ -n "$(pid_of slurmctld)" ] && return 0
	env "$MARK" slurmctld ||
		die "slurmctld did not start: $(tail -3 "$DIR/log/slurmctld.log")"
	wait_until "$READY_TIMEOUT" bash -c 'timeout 10 scontrol ping | grep -q "is UP"' ||
		die "slurmctld does not answer (log: $DIR/log/slurmctld.log)"
}

start_slurmd() {
	local node=$1
	[ -n "$(pid_of "slurmd-$node")" ] && return 0
	env "$MARK" slurmd -N "$node" ||
		die "slurmd $node did not start: $(tail -3 "$DIR/log/slurmd-$node.log")"
}

# All nodes answer and are not down (a drained node counts: drain is the
# administrator's, and survives a restart).
nodes_up() {
	local states
	states=$(timeout 10 sinfo -h -N -o '%N %T' 2>/dev/null) || return 1
	[ "$(wc -l <<<"$states")" -ge "$NODES" ] || return 1
	! grep -qE 'down|unknown|not_responding|\*|future|fail' <<<"$states"
}

print_env() {
	echo "SLURM_CONF=$CONF"
}

cmd_start() {
	check_tools
	local node t0
	t0=$(date +%s.%N)
	if [ ! -f "$CONF" ]; then
		[ -e "$DIR" ] && [ -n "$(ls -A "$DIR" 2>/dev/null)" ] &&
			die "$DIR exists but holds no complete cluster; run purge first"
		say "creating a cluster in $DIR (port $PORT, $NODES node(s) of $CPUS CPU(s))"
		mkdir -p "$DIR"
		create
	fi
	start_munge
	start_mariadb
	start_slurmdbd
	start_slurmctld
	for node in $(node_names); do start_slurmd "$node"; done
	wait_until "$READY_TIMEOUT" nodes_up ||
		die "the nodes did not come up in ${READY_TIMEOUT} s: $(sinfo -N 2>&1) (logs: $DIR/log)"
	say "ready in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s"
	print_env
}

cmd_stop() {
	local node jobs pid limit
	[ -f "$CONF" ] || return 0
	# Jobs first, while the nodes can still kill their processes.
	if [ -n "$(pid_of slurmctld)" ]; then
		jobs=$(squeue -a -h -o %i 2>/dev/null || true)
		if [ -n "$jobs" ]; then
			say "cancelling jobs ${jobs//$'\n'/ }"
			# shellcheck disable=SC2086
			scancel $jobs 2>/dev/null || true
			# A node whose slurmd is gone cannot end its jobs: no long wait
			# then (its leftovers are killed below).
			limit=60
			for node in $(node_names); do
				[ -n "$(pid_of "slurmd-$node")" ] || limit=5
			done
			wait_until "$limit" bash -c '[ -z "$(squeue -a -h -o %i)" ]' ||
				say "jobs still listed after $limit s: $(squeue -a -h -o '%i %T' | tr '\n' ' ')"
		fi
	fi
	for node in $(node_names); do stop_daemon "slurmd-$node"; done
	stop_daemon slurmctld
	stop_daemon slurmdbd
	stop_daemon mariadbd
	stop_daemon munged
	# Whatever a node left behind (a slurmstepd whose job outlived its
	# slurmd, found by the mark in its environment): the job's processes
	# (its descendants) first, then the slurmstepd itself.
	for pid in $(marked_pids); do
		say "killing leftover $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) (pid $pid) and its descendants"
		# shellcheck disable=SC2046
		kill -KILL $(descendants "$pid") "$pid" 2>/dev/null || true
	done
}

cmd_purge() {
	cmd_stop
	rm -rf "$DIR"
}

cmd_status() {
	local name pid any=false
	[ -f "$CONF" ] || {
		echo "no cluster in $DIR"
		return 1
	}
	for name in munged mariadbd slurmdbd slurmctld $(node_names | sed 's/^/slurmd-/'); do
		pid=$(pid_of "$name")
		if [ -n "$pid" ]; then
			echo "$name: running (pid $pid)"
			any=true
		else echo "$name: stopped"; fi
	done
	$any || return 1
	if [ -n "$(pid_of slurmctld)" ]; then
		sinfo -N -o '%N %P %T %c %E'
		squeue -a -o '%i %j %P %T %N %M %l'
	fi
	print_env
}

case "${1:-}" in
	start) cmd_start ;;
	stop) cmd_stop ;;
	purge) cmd_purge ;;
	status) cmd_status ;;
	env) print_env ;;
	*)
		echo "usage: $0 start|stop|purge|status|env" >&2
		exit 2
		;;
esac
