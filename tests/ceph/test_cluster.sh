#!/bin/bash
# test_cluster.sh: tests of tests/ceph/cluster.sh on a real throwaway Ceph
# cluster (its own directory and port, purged at the end).  Prints
# "N passed, N failed" and exits non-zero on any failure.  About 1 minute.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
CLUSTER=$ROOT/tests/ceph/cluster.sh

export TUNER_CEPH_DIR
TUNER_CEPH_DIR=$(mktemp -d /tmp/tuner-ceph-test.XXXXXX)
export TUNER_CEPH_PORT=${TUNER_CEPH_TEST_PORT:-47789}
CONF=$TUNER_CEPH_DIR/ceph.conf
KEYRING=$TUNER_CEPH_DIR/client.admin.keyring
WORK=$(mktemp -d /tmp/tuner-ceph-test-work.XXXXXX)
trap 'bash "$CLUSTER" purge >/dev/null 2>&1; rm -rf "$WORK" "$TUNER_CEPH_DIR"' EXIT

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
check() { # check NAME CMD...: pass when CMD succeeds
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "$out"; fi
}
# check_denied NAME CMD...: pass when CMD fails with a permission error
check_denied() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then not_ok "$name (it succeeded)" "$out"
	elif grep -qiE 'permission denied|errno 13|\(13\)|handle_auth_bad_method' <<<"$out"; then ok "$name"
	else not_ok "$name (failed, but not with permission denied)" "$out"; fi
}
check_fails() { # check_fails NAME CMD...: pass when CMD fails
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then not_ok "$name (it succeeded)" "$out"; else ok "$name"; fi
}

# PIDs of the cluster's daemons from their PID files (running or not).
daemon_pids() { cat "$TUNER_CEPH_DIR"/*.pid 2>/dev/null; }
# Running ceph daemons whose command line names this cluster's conf.
cluster_procs() { pgrep -f -- "--conf $CONF" || true; }

admin_rados() { timeout 60 rados --conf "$CONF" --name client.admin --keyring "$KEYRING" -p tuner "$@"; }

roundtrip() { # write an object with the admin key, read it back, remove it
	head -c 1048576 /dev/urandom >"$WORK/obj.in"
	admin_rados put test-object "$WORK/obj.in" &&
		admin_rados get test-object "$WORK/obj.out" &&
		cmp "$WORK/obj.in" "$WORK/obj.out" &&
		admin_rados rm test-object
}

start_out=$(bash "$CLUSTER" start 2>&1)
if [ $? -eq 0 ]; then ok "start creates and starts the cluster"; else
	not_ok "start creates and starts the cluster" "$start_out"
	echo "$passed passed, $failed failed"
	exit 1
fi
check "start prints the client conf and keyring paths" \
	grep -qx "CEPH_CONF=$CONF" <<<"$start_out"
check "start prints the keyring path" grep -qx "CEPH_KEYRING=$KEYRING" <<<"$start_out"
check "cephx is required in ceph.conf" \
	grep -qx 'auth_client_required = cephx' "$CONF"
check "the monitor is at 127.0.0.1 on the non-default port" bash -c \
	"timeout 60 ceph --conf $CONF --keyring $KEYRING mon dump 2>/dev/null | grep -q 'v2:127.0.0.1:$TUNER_CEPH_PORT/0'"

if [ -n "$(cluster_procs)" ]; then ok "the daemons run with this cluster's conf"; else
	not_ok "the daemons run with this cluster's conf" "$(pgrep -af ceph-)"
fi

status_out=$(bash "$CLUSTER" status 2>&1)
check "status succeeds with mon, mgr and osd running" bash -c '
	grep -q "^mon.a: running" <<<"$1" && grep -q "^mgr.x: running" <<<"$1" &&
	grep -q "^osd.0: running" <<<"$1" && grep -q "1 osds: 1 up" <<<"$1"' _ "$status_out"

check "admin writes and reads back an object" roundtrip
check "the pool has size 1" bash -c \
	"timeout 60 ceph --conf $CONF --keyring $KEYRING osd pool get tuner size | grep -qx 'size: 1'"

# cephx: a client without a key, with a wrong key, or one that only
# offers no authentication must be turned away.
check_denied "a client without a keyring is rejected" \
	timeout 60 rados --conf "$CONF" --name client.nobody --keyring /dev/null \
	--connect-timeout 10 -p tuner ls
ceph-authtool --create-keyring "$WORK/wrong.keyring" --gen-key -n client.admin >/dev/null
check_denied "client.admin with a wrong key is rejected" \
	timeout 60 rados --conf "$CONF" --name client.admin --keyring "$WORK/wrong.keyring" \
	--connect-timeout 10 -p tuner ls
check_denied "a client offering auth none is rejected" \
	timeout 60 rados --conf "$CONF" --name client.admin --keyring "$KEYRING" \
	--auth_client_required none --connect-timeout 10 -p tuner ls

old_pid=$(cat "$TUNER_CEPH_DIR/osd.0.pid")
check "restart-osd restarts the OSD and waits until writable" bash "$CLUSTER" restart-osd 0
new_pid=$(cat "$TUNER_CEPH_DIR/osd.0.pid" 2>/dev/null)
if [ -n "$new_pid" ] && [ "$new_pid" != "$old_pid" ] && kill -0 "$new_pid" 2>/dev/null &&
	! kill -0 "$old_pid" 2>/dev/null; then
	ok "restart-osd replaced the OSD process ($old_pid -> $new_pid)"
else not_ok "restart-osd replaced the OSD process" "old $old_pid new $new_pid"; fi
check "object I/O works after restart-osd" roundtrip
check_fails "restart-osd of an unknown OSD fails" bash "$CLUSTER" restart-osd 7

check "start on a running cluster is a no-op" bash "$CLUSTER" start
pids_before=$(daemon_pids | sort)
check "stop succeeds" bash "$CLUSTER" stop
sleep 1
if [ -z "$(cluster_procs)" ]; then ok "stop leaves no daemon running"; else
	not_ok "stop leaves no daemon running" "$(ps -fp "$(cluster_procs | tr '\n' ,)")"
fi
check "stop twice is a no-op" bash "$CLUSTER" stop
check_fails "status of a stopped cluster fails" bash "$CLUSTER" status
check "start again after stop" bash "$CLUSTER" start
pids_after=$(daemon_pids | sort)
[ "$pids_before" != "$pids_after" ] && ok "the daemons are new processes" ||
	not_ok "the daemons are new processes" "$pids_after"
check "data survives stop/start: object I/O" roundtrip

check "purge succeeds" bash "$CLUSTER" purge
sleep 1
if [ -z "$(cluster_procs)" ]; then ok "purge leaves no process"; else
	not_ok "purge leaves no process" "$(cluster_procs)"
fi
if [ ! -e "$TUNER_CEPH_DIR" ]; then ok "purge removes the cluster directory"; else
	not_ok "purge removes the cluster directory" "$(ls -la "$TUNER_CEPH_DIR")"
fi
check "purge twice is a no-op" bash "$CLUSTER" purge

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
