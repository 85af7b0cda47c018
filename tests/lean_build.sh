#!/bin/bash
# lean_build.sh: "make" builds the extension alone, with its own
# dependencies only (scripts/install-deps.sh core), and none of the
# runners or tuner-agent, whose libraries (librocksdb, jansson, MPICH/HDF5,
# librados, libpq) are theirs alone.  On a machine that has every package
# this cannot simply be a build without them, so it builds a scratch copy
# of the tree with "make all" and checks what the build used:
#   - it ran nothing in src/runners or src/agent and wrote no file there;
#   - the link line of tuner.so names no library but -llapacke -lopenblas
#     -lnlopt -lm (PGXS adds none of its own to a MODULE_big link on
#     Debian's PostgreSQL 15: only -L and -Wl flags);
#   - every header the compiler read (gcc -MD) and every library tuner.so
#     loads (ldd) belongs to a package that the core packages pull in
#     (apt-cache depends --recurse over install-deps.sh --list core).
# Prints "N passed, N failed" and exits non-zero on any failure.
#
#   bash tests/lean_build.sh [TREE]     (default: this repository)
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SRC=$(realpath "${1:-$ROOT}")

WORK=$(mktemp -d /tmp/tuner-lean.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

passed=0
failed=0
ok() {
	echo "ok: $1"
	passed=$((passed + 1))
}
not_ok() {
	echo "FAILED: $1"
	[ -n "${2:-}" ] && echo "$2" | head -20 | sed 's/^/    /'
	failed=$((failed + 1))
}

# The tree as it is in the working copy (tracked files and new ones git
# does not ignore), without anything built; outside git, a copy cleaned.
mkdir "$WORK/tree"
if git -C "$SRC" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	(cd "$SRC" && git ls-files -z -co --exclude-standard |
		tar --null --ignore-failed-read -cf - -T - 2>/dev/null) |
		tar -xf - -C "$WORK/tree"
	cd "$WORK/tree"
else
	cp -a "$SRC/." "$WORK/tree"
	cd "$WORK/tree"
	make -s clean > /dev/null 2>&1
fi

find src/runners src/agent -type f | sort > "$WORK/before"
# -MD: gcc writes each object's headers into a .d file beside it.
if make -j2 all COPT=-MD > "$WORK/make.log" 2>&1 && [ -f tuner.so ]; then
	ok "make all builds tuner.so"
else
	not_ok "make all builds tuner.so" "$(tail -20 "$WORK/make.log")"
fi

# --- nothing of the runners or the agent ---------------------------------
if grep -E 'src/(runners|agent)|tuner_(rocksdb|ceph|fastquery)|tuner-agent' \
	"$WORK/make.log" > "$WORK/programs"; then
	not_ok "make all runs nothing in src/runners or src/agent" "$(cat "$WORK/programs")"
else
	ok "make all runs nothing in src/runners or src/agent"
fi
find src/runners src/agent -type f | sort > "$WORK/after"
if diff "$WORK/before" "$WORK/after" > "$WORK/new"; then
	ok "make all writes no file in src/runners or src/agent"
else
	not_ok "make all writes no file in src/runners or src/agent" "$(cat "$WORK/new")"
fi

# --- the link line -------------------------------------------------------
link=$(grep -E -- '-o tuner\.so( |$)' "$WORK/make.log")
libs=$(echo "$link" | tr ' ' '\n' | grep -E '^-l' | sort -u | tr '\n' ' ')
if [ -z "$link" ]; then
	not_ok "the link line of tuner.so names only its libraries" "no link line in make's output"
elif [ "$libs" = "-llapacke -lm -lnlopt -lopenblas " ]; then
	ok "the link line of tuner.so names only -llapacke -lopenblas -lnlopt -lm"
else
	not_ok "the link line of tuner.so names only -llapacke -lopenblas -lnlopt -lm" \
		"it names: $libs"
fi

# --- headers and libraries come from the core packages ---------------------
# shellcheck disable=SC2046
apt-cache depends --recurse --installed --no-recommends --no-suggests \
	--no-conflicts --no-breaks --no-replaces --no-enhances \
	$(bash "$ROOT/scripts/install-deps.sh" --list core) 2>/dev/null |
	grep -v '^ ' | sort -u > "$WORK/core"

# owned FILE...: "package<TAB>file" for each file dpkg knows, once per
# package (dpkg-query -S prints "pkg1, pkg2:arch: /path"; diversions
# aside).
owned() {
	[ $# -gt 0 ] || return 0
	dpkg-query -S "$@" 2>/dev/null | grep -v '^diversion by' |
		awk '{ i = index($0, ": /"); n = split(substr($0, 1, i - 1), p, ", ");
			for (k = 1; k <= n; k++) { sub(/:.*/, "", p[k]); print p[k] "\t" substr($0, i + 2) } }'
}

# not_core FILE...: "package (file)" for each file of no core package,
# "? (file)" for a file of no package (merged /usr: dpkg may know a file
# of /usr/lib as /lib).
not_core() {
	local others
	printf '%s\n' "$@" | sort -u > "$WORK/files"
	owned "$@" > "$WORK/owned"
	mapfile -t others < <(cut -f2 "$WORK/owned" | sort -u |
		comm -23 "$WORK/files" - | sed -n 's|^/usr/|/|p')
	owned "${others[@]}" >> "$WORK/owned"
	awk -F '\t' 'FILENAME == ARGV[1] { core[$1] = 1; next }
		FILENAME == ARGV[2] { seen[$2] = 1; if (!($1 in core)) print $1 " (" $2 ")"; next }
		!($0 in seen) && !(substr($0, 5) in seen) { print "? (" $0 ")" }' \
		"$WORK/core" "$WORK/owned" "$WORK/files"
}

mapfile -t headers < <(find src -name '*.d' -exec cat {} + | tr ' \\' '\n\n' |
	grep -E '^/.*\.h$' | xargs -r realpath | sort -u)
if [ ${#headers[@]} -lt 20 ]; then
	not_ok "the headers the extension includes are the core packages'" \
		"only ${#headers[@]} system headers in the .d files (did gcc -MD run?)"
else
	bad=$(not_core "${headers[@]}" | sort -u)
	if [ -z "$bad" ]; then
		ok "the ${#headers[@]} system headers the extension includes are the core packages'"
	else
		not_ok "the headers the extension includes are the core packages'" "$bad"
	fi
fi

mapfile -t loaded < <(ldd tuner.so 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
	xargs -r realpath | sort -u)
if [ ${#loaded[@]} -eq 0 ]; then
	not_ok "the libraries tuner.so loads are the core packages'" "ldd tuner.so found none"
else
	bad=$(not_core "${loaded[@]}" | sort -u)
	if [ -z "$bad" ]; then
		ok "the ${#loaded[@]} libraries tuner.so loads are the core packages'"
	else
		not_ok "the libraries tuner.so loads are the core packages'" "$bad"
	fi
fi

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
