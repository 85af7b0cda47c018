#!/bin/bash
# bench/deps/run.sh: what each purpose of scripts/install-deps.sh would
# install on a fresh Debian 12 machine, without one: apt-get simulates the
# install (-s, no download, no change) against a dpkg status file that
# holds only a base system, taken from this machine: its Essential,
# required and important packages and their dependencies.  Prints, per
# purpose, the packages listed, the packages apt would install, and their
# download and installed sizes (apt's Size and Installed-Size of the
# candidate versions).  Runs as any user; reads only local apt data.
#
#   bash bench/deps/run.sh ["core rocksdb" all ...]   (default: the purposes
#                                                     one by one, then
#                                                     "core rocksdb" and all)
set -euo pipefail
cd "$(dirname "$0")/../.."

WORK=$(mktemp -d /tmp/tuner-deps.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# The base system: installed packages that are Essential or of priority
# required/important, closed over Depends and Pre-Depends.
/usr/bin/python3 - "$WORK/status" <<'EOF'
import re, sys
stanzas = [s for s in open("/var/lib/dpkg/status").read().split("\n\n")
           if "Status: install ok installed" in s]
pkgs, provides = {}, {}
for s in stanzas:
    name = re.search(r"^Package: (\S+)", s, re.M).group(1)
    pkgs[name] = s
    m = re.search(r"^Provides: (.*)$", s, re.M)
    for p in (m.group(1).split(",") if m else []):
        provides.setdefault(p.strip().split()[0], name)

def depends(s):
    for field in ("Depends", "Pre-Depends"):
        m = re.search(r"^%s: (.*)$" % field, s, re.M)
        for alts in (m.group(1).split(",") if m else []):
            for a in alts.split("|"):
                n = a.strip().split()[0].split(":")[0]
                if n in pkgs or n in provides:
                    yield n if n in pkgs else provides[n]
                    break

todo = [n for n, s in pkgs.items()
        if re.search(r"^(Essential: yes|Priority: (required|important))$", s, re.M)]
base = set()
while todo:
    n = todo.pop()
    if n not in base:
        base.add(n)
        todo.extend(depends(pkgs[n]))
open(sys.argv[1], "w").write("\n\n".join(pkgs[n] for n in sorted(base)) + "\n\n")
print("base system: %d packages (of %d installed here)" % (len(base), len(pkgs)))
EOF

[ $# -eq 0 ] && set -- core rocksdb fastquery ceph agent test "core rocksdb" all
printf '%-14s %7s %8s %9s %10s\n' purpose listed installs "download" "installed"
for purpose in "$@"; do
	# shellcheck disable=SC2086
	mapfile -t listed < <(bash scripts/install-deps.sh --list $purpose)
	apt-get -s -o Dir::State::status="$WORK/status" install \
		--no-install-recommends "${listed[@]}" > "$WORK/sim" 2>&1 || {
		echo "$purpose: apt-get -s failed:"
		tail -5 "$WORK/sim"
		continue
	}
	# "Inst NAME [OLD] (VERSION REPO [ARCH])": NAME=VERSION
	mapfile -t inst < <(awk '/^Inst / { v = $0; sub(/.*\(/, "", v); split(v, a, " ");
		print $2 "=" a[1] }' "$WORK/sim")
	apt-cache show --no-all-versions "${inst[@]}" 2>/dev/null |
		awk -v p="$purpose" -v l="${#listed[@]}" -v n="${#inst[@]}" '
			/^Size:/ { s += $2 } /^Installed-Size:/ { i += $2 }
			END { printf "%-14s %7d %8d %6.0f MB %7.0f MB\n", p, l, n, s / 1e6, i / 1024 }'
done
