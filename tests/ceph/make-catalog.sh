#!/bin/bash
# make-catalog.sh [OUTPUT]: regenerate tests/ceph/catalog-16.2.json, the
# option schema of the installed Ceph (Debian's 16.2 packages), which the
# pg_regress test "catalog" imports with tuner.import_catalog.
#
# How: a throwaway monitor, started only for this, answers "config ls" and
# "config help <name>" (the JSON that `ceph config help NAME -f json`
# prints) for every option it knows.  The same schema is also dumped from
# the monitor's admin socket ("config help" without a name) and the two
# must agree, option by option.
#
# The monitor lives in a temporary directory, listens on 127.0.0.1 on a
# free non-default port, keeps cephx on (its keyring and the admin keyring
# are written with ceph-authtool), has lowered mon_data_avail_warn/crit
# (the disk may be nearly full) and is stopped by its own PID file; the
# directory is removed afterwards, whatever happens.
#
# Needs the Debian packages ceph-mon and ceph-common (ceph-authtool,
# monmaptool, python3-rados).  Not run by CI: the JSON it writes is
# committed and is the test input.  The output is deterministic (options
# sorted by name, no timestamps), so a rerun on the same packages gives
# the same file.
set -euo pipefail

cd "$(dirname "$0")"
OUT=${1:-$(pwd)/catalog-16.2.json}
PYTHON=/usr/bin/python3		# Debian's, which has python3-rados

for tool in ceph-mon ceph-authtool monmaptool; do
	if ! command -v "$tool" >/dev/null; then
		echo "make-catalog.sh: $tool not found; apt-get install -y ceph-mon ceph-common" >&2
		exit 1
	fi
done
if ! "$PYTHON" -c 'import rados' 2>/dev/null; then
	echo "make-catalog.sh: python3-rados not found; apt-get install -y ceph-common" >&2
	exit 1
fi

DIR=$(mktemp -d /tmp/tuner-ceph-catalog.XXXXXX)
PIDFILE=$DIR/mon.a.pid

# Stop the monitor by its PID (TERM, then KILL after 10 s) and remove
# everything it wrote.
cleanup() {
	local pid
	if [ -s "$PIDFILE" ]; then
		pid=$(cat "$PIDFILE")
		if kill -0 "$pid" 2>/dev/null; then
			kill -TERM "$pid" 2>/dev/null || true
			for _ in $(seq 1 100); do
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.1
			done
			kill -KILL "$pid" 2>/dev/null || true
		fi
	fi
	rm -rf "$DIR"
}
trap cleanup EXIT

# A free TCP port on 127.0.0.1 away from Ceph's defaults (3300, 6789).
PORT=$("$PYTHON" - <<'EOF'
import random, socket
rng = random.SystemRandom()
for _ in range(200):
    port = rng.randrange(40000, 60000)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        s.close()
    print(port)
    break
else:
    raise SystemExit("no free port")
EOF
)

FSID=$(cat /proc/sys/kernel/random/uuid)
CONF=$DIR/ceph.conf
cat >"$CONF" <<EOF
[global]
fsid = $FSID
mon_host = v2:127.0.0.1:$PORT
auth_cluster_required = cephx
auth_service_required = cephx
auth_client_required = cephx
mon_data_avail_warn = 1
mon_data_avail_crit = 0
run_dir = $DIR
admin_socket = $DIR/\$name.asok
log_file = $DIR/\$name.log
keyring = $DIR/\$name.keyring
[mon]
mon_data = $DIR/mon-\$id
EOF

ceph-authtool --create-keyring "$DIR/mon.a.keyring" --gen-key -n mon. \
	--cap mon 'allow *' >/dev/null
ceph-authtool --create-keyring "$DIR/client.admin.keyring" --gen-key \
	-n client.admin --cap mon 'allow *' >/dev/null
ceph-authtool "$DIR/mon.a.keyring" --import-keyring "$DIR/client.admin.keyring" >/dev/null
monmaptool --create --addv a "[v2:127.0.0.1:$PORT]" --fsid "$FSID" "$DIR/monmap" >/dev/null
ceph-mon -c "$CONF" --mkfs -i a --monmap "$DIR/monmap" --keyring "$DIR/mon.a.keyring"
ceph-mon -c "$CONF" -i a --pid-file "$PIDFILE"

VERSION=$(ceph-mon --version)
PACKAGE="ceph-mon $(dpkg-query -W -f='${Version}' ceph-mon)"

CONF=$CONF ASOK=$DIR/mon.a.asok OUT=$OUT VERSION=$VERSION PACKAGE=$PACKAGE \
	"$PYTHON" - <<'EOF'
import json, os, re, subprocess, sys, time
import rados

conf, asok, out = os.environ["CONF"], os.environ["ASOK"], os.environ["OUT"]

def mon_command(cluster, cmd):
    ret, buf, err = cluster.mon_command(json.dumps(cmd), b"", timeout=30)
    if ret != 0:
        raise SystemExit("mon command %s failed: %d %s" % (cmd, ret, err))
    return json.loads(buf)

# cephx is on: a client without a key must be turned away.
anon = rados.Rados(conffile=conf, name="client.nobody",
                   conf={"keyring": "/dev/null"})
try:
    anon.connect(timeout=5)
    raise SystemExit("the monitor accepted a client without a key")
except rados.Error:
    pass

cluster = rados.Rados(conffile=conf, name="client.admin")
deadline = time.time() + 60
while True:
    try:
        cluster.connect(timeout=10)
        break
    except rados.Error as e:
        if time.time() > deadline:
            raise SystemExit("the monitor did not come up: %s" % e)
        time.sleep(1)

names = mon_command(cluster, {"prefix": "config ls", "format": "json"})
options = [mon_command(cluster, {"prefix": "config help", "key": n, "format": "json"})
           for n in names]
cluster.shutdown()

# The admin socket dumps the same schema in one go; they must agree.
dump = json.loads(subprocess.run(
    ["ceph", "--admin-daemon", asok, "config", "help", "-f", "json"],
    check=True, capture_output=True).stdout)["options"]
by_name = {o["name"]: o for o in dump}
if sorted(by_name) != sorted(names):
    raise SystemExit("admin socket and monitor list different options")
for o in options:
    if by_name[o["name"]] != o:
        raise SystemExit("admin socket and monitor differ on %s" % o["name"])

options.sort(key=lambda o: o["name"])
m = re.match(r"ceph version (\S+)", os.environ["VERSION"])
head = {
    "system": "ceph",
    "version": m.group(1) if m else os.environ["VERSION"],
    "ceph_version": os.environ["VERSION"],
    "package": os.environ["PACKAGE"],
    "source": "ceph config help <name> -f json for every name of ceph config ls, "
              "from a throwaway monitor (tests/ceph/make-catalog.sh)",
    "count": len(options),
}
# One option per line: small diffs when Ceph changes.
with open(out + ".tmp", "w") as f:
    f.write("{\n")
    for k, v in head.items():
        f.write("%s: %s,\n" % (json.dumps(k), json.dumps(v)))
    f.write('"options": [\n')
    f.write(",\n".join(json.dumps(o) for o in options))
    f.write("\n]\n}\n")
os.replace(out + ".tmp", out)
print("make-catalog.sh: %d options of %s written to %s"
      % (len(options), head["ceph_version"], out))
EOF
