#!/bin/bash
# bench/latency/instructions_sql.sh n d failed_percent [calls]: the
# instructions of a whole suggest_next (plpgsql, SPI, the numerics), for
# the study of bench/latency.py's row (n, d) and for the same study with
# failed_percent failed trials more, counted by valgrind (callgrind) in a
# single-user backend, so the figures do not depend on what else the
# machine runs.  Each count is (calls + 1 calls less 1 call) / calls, each
# call in BEGIN .. ROLLBACK as bench/latency.py times it.  Starts its own
# throwaway cluster (pg_virtualenv) of the installed extension, or with
# DESTDIR=/path of a private install (make install DESTDIR=...).  Run as
# root (the backend runs as postgres).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
n=${1:?usage: instructions_sql.sh n d failed_percent [calls]}
d=${2:?usage: instructions_sql.sh n d failed_percent [calls]}
percent=${3:?usage: instructions_sql.sh n d failed_percent [calls]}
calls=${4:-3}
command -v valgrind >/dev/null || { echo "instructions_sql.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
if [ -z "${TUNER_IN_VIRTUALENV:-}" ]; then
	opts=()
	if [ -n "${DESTDIR:-}" ]; then
		opts=(-o "extension_destdir=$DESTDIR"
			  -o "dynamic_library_path=$DESTDIR/usr/lib/postgresql/15/lib:/usr/lib/postgresql/15/lib")
	fi
	exec env TUNER_IN_VIRTUALENV=1 pg_virtualenv -t "${opts[@]}" bash "$0" "$@"
fi
read -r plain failed < <(/usr/bin/python3 "$here/sql_studies.py" "$n" "$d" "$percent")
db=$(psql -X -At -c "SELECT current_database()")
data=$(psql -X -At -c "SHOW data_directory")
conf=$(psql -X -At -c "SHOW config_file")
pg_ctlcluster "$PGVERSION" regress stop
settings=()
if [ -n "${DESTDIR:-}" ]; then
	settings=(-c "extension_destdir=$DESTDIR"
			  -c "dynamic_library_path=$DESTDIR/usr/lib/postgresql/15/lib:/usr/lib/postgresql/15/lib")
fi
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
count() { # count STUDY CALLS: instructions of the backend
	local i
	for ((i = 0; i < $2; i++)); do
		echo "BEGIN; SELECT tuner.suggest_next('$1') IS NOT NULL; ROLLBACK;"
	done >"$work/calls.sql"
	chmod 644 "$work/calls.sql"
	runuser -u postgres -- env OPENBLAS_NUM_THREADS=1 OPENBLAS_CORETYPE=Haswell \
		valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$(pg_config --bindir)/postgres" --single -D "$data" -c config_file="$conf" \
		"${settings[@]}" "$db" <"$work/calls.sql" >"$work/out" 2>"$work/err"
	grep -q '= "t"' "$work/out" ||
		{ echo "instructions_sql.sh: suggest_next failed:" >&2; tail -20 "$work/out" "$work/err" >&2; exit 1; }
	sed -n 's/.*refs: *//p' "$work/err" | tr -d ,
}
per_call() {
	local one more
	one=$(count "$1" 1)
	more=$(count "$1" $((calls + 1)))
	echo $(((more - one) / calls))
}
a=$(per_call "$plain")
b=$(per_call "$failed")
awk -v n="$n" -v d="$d" -v p="$percent" -v a="$a" -v b="$b" 'BEGIN {
	printf "n=%d d=%d: suggest_next %.1fM instructions, with %g%% failed %.1fM (%.2fx)\n",
		n, d, a / 1e6, p, b / 1e6, b / a }'
