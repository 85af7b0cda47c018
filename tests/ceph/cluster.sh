#!/bin/bash
# cluster.sh: a real, single-host Ceph test cluster for tuner's Ceph runner,
# its tests and benchmark.
#
#   cluster.sh start        create (first time) and start it; idempotent
#   cluster.sh stop         stop every daemon by its own PID file
#   cluster.sh purge        stop and remove the cluster directory entirely
#   cluster.sh status       daemons, `ceph -s`, and the client paths
#   cluster.sh restart-osd [ID|all]   restart OSD(s), wait until writable
#   cluster.sh env          print CEPH_CONF=... CEPH_KEYRING=... POOL=...
#
# `start` also writes catalog.json (the running OSD's option schema) into
# the cluster directory: the catalog of tuner's "ceph" preset.
#
# Layout: 1 monitor, 1 manager and TUNER_CEPH_OSDS (1-3, default 1)
# BlueStore OSDs, each over a sparse file, on 127.0.0.1 with non-default
# ports (monitor TUNER_CEPH_PORT, default 46789; mgr and OSDs bind in
# port+11 .. port+110).  One pool, TUNER_CEPH_POOL (default "tuner"), of
# size 1.  cephx is on: the monitor, manager, OSDs and client.admin each
# have a key written with ceph-authtool or by the monitor, and a client
# without a key is rejected.
#
# Everything lives in TUNER_CEPH_DIR (default /var/tmp/tuner-ceph-<uid>):
# ceph.conf, the keyrings, daemon data, logs, admin sockets and PID files.
#
# Pitfalls handled here:
# - the OSD's block device is BlueStore's own default ($osd_data/block,
#   created sparse by mkfs); bluestore_block_path is NOT set to it, which
#   would make mkfs write a symlink pointing at itself;
# - `ceph-osd --mkfs --key` alone leaves the OSD without a keyring: the key
#   is generated here, registered with `ceph osd new` and written to the
#   OSD's keyring file before mkfs;
# - the disk may be low on free space: mon_data_avail_warn/crit are lowered
#   or the monitor shuts itself down;
# - readiness is a written object, not PG stats.
#
# Only cluster plumbing goes into ceph.conf: values in the file would
# override the monitor's configuration database, which is where the
# runner sets trial values.
set -euo pipefail
# The daemons and clients here use the cluster's own conf and keyrings:
# a caller's CEPH_CONF / CEPH_KEYRING / CEPH_ARGS (e.g. the admin keyring)
# would make an OSD authenticate with the wrong key.
unset CEPH_CONF CEPH_KEYRING CEPH_ARGS

DIR=${TUNER_CEPH_DIR:-/var/tmp/tuner-ceph-$(id -u)}
PORT=${TUNER_CEPH_PORT:-46789}
NOSDS=${TUNER_CEPH_OSDS:-1}
POOL=${TUNER_CEPH_POOL:-tuner}
PG_NUM=${TUNER_CEPH_PG_NUM:-32}
OSD_SIZE=${TUNER_CEPH_OSD_SIZE:-10G}
# A created cluster keeps its port and pool (cluster.env, written at
# creation), whatever the environment says later.
if [ -f "$DIR/cluster.env" ]; then
	# shellcheck disable=SC1091
	. "$DIR/cluster.env"
fi
CONF=$DIR/ceph.conf
ADMIN_KEYRING=$DIR/client.admin.keyring
READY_TIMEOUT=${TUNER_CEPH_READY_TIMEOUT:-120}

die() {
	echo "cluster.sh: $*" >&2
	exit 1
}
say() { echo "cluster.sh: $*" >&2; }

case "$NOSDS" in
	1 | 2 | 3) ;;
	*) die "TUNER_CEPH_OSDS must be 1, 2 or 3 (got $NOSDS)" ;;
esac
case "$PORT" in
	'' | *[!0-9]*) die "TUNER_CEPH_PORT must be a port number (got $PORT)" ;;
esac
if [ "$PORT" -lt 1024 ] || [ "$PORT" -gt 65000 ]; then
	die "TUNER_CEPH_PORT must be in 1024..65000 (got $PORT)"
fi

check_tools() {
	local t
	for t in ceph ceph-mon ceph-mgr ceph-osd ceph-authtool monmaptool rados; do
		command -v "$t" >/dev/null ||
			die "$t not found; apt-get install -y ceph-mon ceph-mgr ceph-osd ceph-common"
	done
}

# ceph/rados as client.admin with a bounded wait.
cephc() { timeout 60 ceph --conf "$CONF" --name client.admin --keyring "$ADMIN_KEYRING" --connect-timeout 30 "$@"; }
radosc() { rados --conf "$CONF" --name client.admin --keyring "$ADMIN_KEYRING" "$@"; }

# pid_of NAME: the PID in NAME's PID file when that process runs, else "".
pid_of() {
	local f=$DIR/$1.pid pid
	[ -s "$f" ] || return 0
	pid=$(cat "$f")
	if kill -0 "$pid" 2>/dev/null; then echo "$pid"; fi
}

# stop_daemon NAME: TERM the PID in NAME's PID file, KILL after 30 s.
stop_daemon() {
	local name=$1 pid i
	pid=$(pid_of "$name")
	if [ -n "$pid" ]; then
		kill -TERM "$pid" 2>/dev/null || true
		for i in $(seq 1 300); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$pid" 2>/dev/null; then
			say "$name (pid $pid) did not stop in 30 s; killing it"
			kill -KILL "$pid" 2>/dev/null || true
			sleep 0.5
		fi
	fi
	rm -f "$DIR/$name.pid"
}

write_conf() {
	local fsid=$1
	cat >"$CONF" <<EOF
# tuner's Ceph test cluster (tests/ceph/cluster.sh).  Plumbing only: trial
# values go to the monitor's configuration database.
[global]
fsid = $fsid
mon_host = v2:127.0.0.1:$PORT
public_addr = 127.0.0.1
ms_bind_msgr1 = false
ms_bind_port_min = $((PORT + 11))
ms_bind_port_max = $((PORT + 110))
auth_cluster_required = cephx
auth_service_required = cephx
auth_client_required = cephx
auth_allow_insecure_global_id_reclaim = false
mon_data_avail_warn = 1
mon_data_avail_crit = 0
mon_allow_pool_size_one = true
mon_warn_on_pool_no_redundancy = false
osd_pool_default_size = 1
osd_pool_default_min_size = 1
osd_crush_chooseleaf_type = 0
run_dir = $DIR
admin_socket = $DIR/\$name.asok
log_file = $DIR/\$name.log
keyring = $DIR/\$name.keyring
[mon]
mon_data = $DIR/mon-\$id
[mgr]
mgr_data = $DIR/mgr-\$id
[osd]
osd_data = $DIR/osd-\$id
osd_objectstore = bluestore
bluestore_block_size = $(numfmt --from=iec "$OSD_SIZE")
EOF
}

# Wait until the monitor answers an authenticated client.
wait_mon() {
	local i
	for i in $(seq 1 "$READY_TIMEOUT"); do
		if cephc mon stat >/dev/null 2>&1; then return 0; fi
		sleep 1
	done
	die "the monitor did not answer in ${READY_TIMEOUT} s (log: $DIR/mon.a.log)"
}

start_mon() {
	[ -n "$(pid_of mon.a)" ] && return 0
	ceph-mon --conf "$CONF" -i a --pid-file "$DIR/mon.a.pid"
	wait_mon
}

start_mgr() {
	[ -n "$(pid_of mgr.x)" ] && return 0
	ceph-mgr --conf "$CONF" -i x --pid-file "$DIR/mgr.x.pid"
}

start_osd() {
	local id=$1
	[ -n "$(pid_of "osd.$id")" ] && return 0
	ceph-osd --conf "$CONF" -i "$id" --pid-file "$DIR/osd.$id.pid"
}

create_mon() {
	local fsid
	fsid=$(cat /proc/sys/kernel/random/uuid)
	mkdir -p "$DIR"
	chmod 700 "$DIR"
	write_conf "$fsid"
	printf 'PORT=%d\nPOOL=%q\n' "$PORT" "$POOL" >"$DIR/cluster.env"
	ceph-authtool --create-keyring "$DIR/mon.a.keyring" --gen-key -n mon. \
		--cap mon 'allow *' >/dev/null
	ceph-authtool --create-keyring "$ADMIN_KEYRING" --gen-key -n client.admin \
		--cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' \
		--cap mds 'allow *' >/dev/null
	ceph-authtool "$DIR/mon.a.keyring" --import-keyring "$ADMIN_KEYRING" >/dev/null
	monmaptool --create --addv a "[v2:127.0.0.1:$PORT]" --fsid "$fsid" \
		"$DIR/monmap" >/dev/null
	ceph-mon --conf "$CONF" --mkfs -i a --monmap "$DIR/monmap" \
		--keyring "$DIR/mon.a.keyring"
}

create_mgr() {
	mkdir -p "$DIR/mgr-x"
	cephc auth get-or-create mgr.x mon 'allow profile mgr' osd 'allow *' \
		mds 'allow *' -o "$DIR/mgr.x.keyring" >/dev/null
}

create_osd() {
	local id=$1 uuid key got
	uuid=$(cat /proc/sys/kernel/random/uuid)
	key=$(ceph-authtool --gen-print-key)
	# The monitor registers osd.$id with this key and the OSD caps.
	got=$(echo "{\"cephx_secret\": \"$key\"}" |
		cephc osd new "$uuid" "$id" -i -)
	[ "$got" = "$id" ] || die "ceph osd new gave id '$got', expected $id"
	ceph-authtool --create-keyring "$DIR/osd.$id.keyring" --name "osd.$id" \
		--add-key "$key" >/dev/null
	mkdir -p "$DIR/osd-$id"
	ceph-osd --conf "$CONF" -i "$id" --mkfs --osd-uuid "$uuid" \
		>"$DIR/osd.$id.mkfs.log" 2>&1 ||
		die "mkfs of osd.$id failed: $(tail -3 "$DIR/osd.$id.mkfs.log")"
}

# Values the cluster writes into its own configuration database (the
# mclock capacity benchmark of each OSD start) would pollute later trials.
clean_cluster_written() {
	local who name
	cephc config dump --format json 2>/dev/null |
		/usr/bin/python3 -c '
import json, sys
for o in json.load(sys.stdin):
    if o["name"].startswith("osd_mclock_max_capacity_iops"):
        print(o["section"], o["name"])' |
		while read -r who name; do
			cephc config rm "$who" "$name" >/dev/null
		done
}

# Ready = an object can be written and read back (PG stats need the mgr).
wait_writable() {
	local i obj=cluster-sh-ready
	for i in $(seq 1 "$READY_TIMEOUT"); do
		if echo ready | timeout 10 rados --conf "$CONF" --name client.admin \
			--keyring "$ADMIN_KEYRING" -p "$POOL" put "$obj" - 2>/dev/null &&
			timeout 10 rados --conf "$CONF" --name client.admin \
				--keyring "$ADMIN_KEYRING" -p "$POOL" rm "$obj" 2>/dev/null; then
			return 0
		fi
		sleep 1
	done
	die "pool $POOL not writable after ${READY_TIMEOUT} s (logs: $DIR/*.log)"
}

# The live cluster's option schema, for the "ceph" preset of tuner.create_study
# (read with pg_read_file): the first OSD's `config help` from its admin
# socket, with a header, in the shape of tests/ceph/catalog-16.2.json.
# Written atomically, readable by everyone (it holds no secret).
write_catalog() {
	local id
	id=$(osd_ids | head -1)
	timeout 60 ceph --admin-daemon "$DIR/osd.$id.asok" config help -f json |
		OUT=$DIR/catalog.json VERSION=$(ceph-osd --version) /usr/bin/python3 -c '
import json, os, re, sys
options = json.load(sys.stdin)["options"]
m = re.match(r"ceph version (\S+)", os.environ["VERSION"])
head = {"system": "ceph", "version": m.group(1) if m else os.environ["VERSION"],
        "ceph_version": os.environ["VERSION"],
        "source": "config help of the running OSD (tests/ceph/cluster.sh start)",
        "count": len(options)}
out = os.environ["OUT"]
with open(out + ".tmp", "w") as f:
    f.write(json.dumps(dict(head, options=options)))
os.chmod(out + ".tmp", 0o644)
os.replace(out + ".tmp", out)' || die "could not write $DIR/catalog.json"
}

osd_ids() {
	local d
	for d in "$DIR"/osd-*; do
		[ -d "$d" ] && echo "${d##*/osd-}"
	done
}

print_env() {
	echo "CEPH_CONF=$CONF"
	echo "CEPH_KEYRING=$ADMIN_KEYRING"
	echo "CEPH_NAME=client.admin"
	echo "POOL=$POOL"
}

cmd_start() {
	check_tools
	local id fresh=false
	if [ ! -f "$DIR/mon-a/keyring" ]; then
		[ -e "$DIR" ] && [ -n "$(ls -A "$DIR" 2>/dev/null)" ] &&
			die "$DIR exists but holds no complete cluster; run purge first"
		say "creating a cluster in $DIR (port $PORT, $NOSDS OSD(s))"
		create_mon
		fresh=true
	fi
	# A copy of this script in the cluster directory: the runner's default
	# for restarting OSDs, whatever the checkout it came from.
	if [ "$(realpath "$0")" != "$(realpath -m "$DIR/cluster.sh")" ]; then
		install -m 755 "$0" "$DIR/cluster.sh"
	fi
	start_mon
	if $fresh; then
		create_mgr
		for id in $(seq 0 $((NOSDS - 1))); do create_osd "$id"; done
	fi
	start_mgr
	for id in $(osd_ids); do start_osd "$id"; done
	if $fresh; then
		cephc osd pool create "$POOL" "$PG_NUM" "$PG_NUM" >/dev/null
		cephc osd pool set "$POOL" pg_autoscale_mode off >/dev/null
		cephc osd pool set "$POOL" size 1 --yes-i-really-mean-it >/dev/null
		cephc osd pool application enable "$POOL" rados >/dev/null
	fi
	wait_writable
	clean_cluster_written
	write_catalog
	say "ready"
	print_env
}

cmd_stop() {
	local id
	[ -d "$DIR" ] || return 0
	for id in $(osd_ids); do stop_daemon "osd.$id"; done
	stop_daemon mgr.x
	stop_daemon mon.a
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
	for name in mon.a mgr.x $(osd_ids | sed 's/^/osd./'); do
		pid=$(pid_of "$name")
		if [ -n "$pid" ]; then
			echo "$name: running (pid $pid)"
			any=true
		else echo "$name: stopped"; fi
	done
	$any || return 1
	[ -n "$(pid_of mon.a)" ] && cephc -s
	print_env
}

cmd_restart_osd() {
	local which=${1:-all} id ids
	[ -n "$(pid_of mon.a)" ] || die "the cluster is not running (start it first)"
	if [ "$which" = all ]; then
		ids=$(osd_ids)
	else
		[ -d "$DIR/osd-$which" ] || die "no osd.$which in $DIR"
		ids=$which
	fi
	for id in $ids; do
		stop_daemon "osd.$id"
		start_osd "$id"
	done
	wait_writable
	clean_cluster_written
}

case "${1:-}" in
	start) cmd_start ;;
	stop) cmd_stop ;;
	purge) cmd_purge ;;
	status) cmd_status ;;
	restart-osd) cmd_restart_osd "${2:-all}" ;;
	env) print_env ;;
	*)
		echo "usage: $0 start|stop|purge|status|restart-osd [ID|all]|env" >&2
		exit 2
		;;
esac
