#!/bin/bash
# tap.sh: run the TAP tests (tests/t/*.pl: background workers, runners,
# crash/restart, pg_cron) with PostgreSQL::Test::Cluster against the
# installed extension (make install first), or with TUNER_DESTDIR=DIR
# against the one installed by make install DESTDIR=DIR (extension_destdir
# and dynamic_library_path in each node's configuration; the system install
# is not touched).  initdb refuses root, so as root the tests run as user
# postgres from a copy in a temporary directory.
# Extra arguments go to prove (default: -j2, the pg_cron test waits for
# the next minute while the others run).
set -euo pipefail
cd "$(dirname "$0")/.."

BINDIR=$(pg_config --bindir)
PGXS_DIR=$(dirname "$(dirname "$(dirname "$(pg_config --pgxs)")")")
PERL_LIB=$PGXS_DIR/src/test/perl
PG_REGRESS=$PGXS_DIR/src/test/regress/pg_regress
for f in "$PERL_LIB/PostgreSQL/Test/Cluster.pm" "$PG_REGRESS"; do
	if [ ! -e "$f" ]; then
		echo "tap.sh: $f is missing (postgresql-server-dev-15)" >&2
		exit 1
	fi
done

WORK=$(mktemp -d /tmp/tuner-tap.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cp -r tests/t "$WORK/t"
RUN=()
if [ "$(id -u)" -eq 0 ]; then
	chown -R postgres:postgres "$WORK"
	RUN=(runuser -u postgres --)
fi

# Arguments ending in .pl choose the tests (t/NNN_name.pl); the others go
# to prove.
ARGS=()
TESTS=()
for a in "$@"; do
	case "$a" in
		*.pl) TESTS+=("t/$(basename "$a")") ;;
		*) ARGS+=("$a") ;;
	esac
done
[ ${#ARGS[@]} -eq 0 ] && ARGS=(-j2 --timer)
if [ ${#TESTS[@]} -eq 0 ]; then
	for f in tests/t/*.pl; do
		TESTS+=("t/$(basename "$f")")
	done
fi
status=0
(cd "$WORK" && "${RUN[@]}" env PATH="$BINDIR:$PATH" PG_REGRESS="$PG_REGRESS" \
	TUNER_DESTDIR="${TUNER_DESTDIR:-}" \
	TESTDIR="$WORK" prove -I "$PERL_LIB" -I t "${ARGS[@]}" "${TESTS[@]}") || status=$?
if [ $status -ne 0 ]; then
	# Server logs of the failed run.
	for log in "$WORK"/tmp_check/log/*.log; do
		[ -f "$log" ] || continue
		echo "=== $log (last 60 lines)"
		tail -n 60 "$log"
	done
fi
exit $status
