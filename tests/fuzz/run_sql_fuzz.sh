#!/bin/bash
# run_sql_fuzz.sh [CALLS] [SEED]: call every SQL function of schema tuner
# with generated bad and extreme input (tests/fuzz/sql_fuzz.py) in a
# throwaway PostgreSQL 15 server built with AddressSanitizer and UBSan.
#
# The server is PostgreSQL 15 compiled from Debian's source package by
# clang 14 with -fsanitize=address,undefined and assertions
# (tests/fuzz/build_asan_postgres.sh, kept in /var/tmp between runs).  The
# extension is compiled with that server's pg_config (same compiler and
# sanitizer flags) in a copy of the tree, so the worktree's own gcc objects
# stay as they are, and installed into a copy of that server's prefix, so
# the kept build stays clean and concurrent runs do not meet.
# Fails when the server crashes, a sanitizer writes a report, an error is
# XX000 (internal error), or the backend's memory grows past its bound;
# and when the deliberate errors at the end (asan_canary.c) are not reported.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
CALLS=${1:-10000}
SEED=${2:-20261130}
PYTHON=/usr/bin/python3
PG_ASAN_PREFIX=${PG_ASAN_PREFIX:-/var/tmp/tuner-pg15-asan}
# Every program of that build is sanitized, pg_config too; PostgreSQL's
# programs leak by design, and LeakSanitizer's exit at the end would drop
# their unflushed output.
export ASAN_OPTIONS=detect_leaks=0

t0=$(date +%s)
if ! bash tests/fuzz/build_asan_postgres.sh "$PG_ASAN_PREFIX"; then
	echo "run_sql_fuzz: building the sanitized PostgreSQL failed" >&2
	exit 1
fi
echo "run_sql_fuzz: sanitized PostgreSQL ready after $(($(date +%s) - t0)) s"

WORK=$(mktemp -d /tmp/tuner-sqlfuzz.XXXXXX)
chmod 755 "$WORK"
[ "$(id -u)" -eq 0 ] && chown postgres "$WORK"
SERVER_PID=
cleanup() {
	if [ -f "$WORK/data/postmaster.pid" ]; then
		kill -QUIT "$(head -1 "$WORK/data/postmaster.pid")" 2>/dev/null
		sleep 2
	fi
	# a server that never came up (no postmaster.pid): stop it by its pid
	if [ -n "$SERVER_PID" ]; then
		for p in $(ps -o pid= --ppid "$SERVER_PID"); do kill -KILL "$p" 2>/dev/null; done
		kill -KILL "$SERVER_PID" 2>/dev/null
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

# initdb and the server refuse to run as root.
as_postgres() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- env "$@"
	else
		env "$@"
	fi
}

# 1. This run's copy of the server (hard links where the file system
# allows; nothing in it is written, files are only added).
PG=$WORK/pg
cp -al "$PG_ASAN_PREFIX" "$PG" 2>/dev/null || cp -a "$PG_ASAN_PREFIX" "$PG" || exit 1
PG_CONFIG=$PG/bin/pg_config
PKGLIB=$($PG_CONFIG --pkglibdir)
SHARE=$($PG_CONFIG --sharedir)

# 2. The extension, with the server's CFLAGS (clang 14, the sanitizers).
mkdir -p "$WORK/build"
cp -r Makefile tuner.control src "$WORK/build/"
# Objects a build of this tree left in src were compiled against the
# system's headers, not the sanitized server's (and without the
# sanitizers): never reuse them.
make -s -C "$WORK/build" clean PG_CONFIG="$PG_CONFIG" >/dev/null 2>&1
if ! nice -n 10 make -s -C "$WORK/build" -j2 tuner.so scripts PG_CONFIG="$PG_CONFIG" \
	> "$WORK/build.log" 2>&1; then
	tail -30 "$WORK/build.log"
	echo "run_sql_fuzz: sanitized build failed" >&2
	exit 1
fi
cp "$WORK/build/tuner.so" "$PKGLIB/"
cp tuner.control src/sql/released/tuner--*.sql "$WORK"/build/build/tuner--*.sql "$SHARE/extension/"
# The canary, built the same way but not installed: loaded by its path.
CC=$($PG_CONFIG --cc)
# shellcheck disable=SC2046
if ! $CC $($PG_CONFIG --cflags) $($PG_CONFIG --cflags_sl) -I"$($PG_CONFIG --includedir-server)" \
	-shared -o "$WORK/asan_canary.so" tests/fuzz/asan_canary.c >> "$WORK/build.log" 2>&1; then
	tail -30 "$WORK/build.log"
	echo "run_sql_fuzz: building the canary failed" >&2
	exit 1
fi
# Instrumented, not merely linked: the code calls the sanitizers' checks.
for f in "$PKGLIB/tuner.so" "$PG/bin/postgres"; do
	syms=$(nm "$f")
	for sym in __asan_report_load8 __ubsan_handle_; do
		if ! grep -q "$sym" <<<"$syms"; then
			echo "run_sql_fuzz: $f has no $sym: not built with ASan and UBSan" >&2
			exit 1
		fi
	done
done
chmod -R a+rX "$WORK"

# 3. A throwaway server.  PostgreSQL frees by memory context (at exit not
# at all), so leak detection is off; memory growth is measured instead.
# ASan and UBSan write their reports into $WORK/san, one file per process.
mkdir -p "$WORK/san"
chown postgres "$WORK/san" 2>/dev/null
SAN_ENV=(ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:disable_coredump=1:log_path=$WORK/san/report"
	UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$WORK/san/report")
as_postgres "${SAN_ENV[@]}" "$PG/bin/initdb" -D "$WORK/data" -A trust -U postgres >"$WORK/initdb.log" 2>&1 || {
	cat "$WORK/initdb.log" "$WORK"/san/* 2>/dev/null
	exit 1
}
PORT=$((20000 + RANDOM % 20000))
cat >> "$WORK/data/postgresql.conf" <<EOF
listen_addresses = ''
port = $PORT
unix_socket_directories = '$WORK'
max_worker_processes = 8
log_min_messages = warning
EOF
touch "$WORK/server.log"
chown postgres "$WORK/server.log" 2>/dev/null
as_postgres "${SAN_ENV[@]}" "$PG/bin/postgres" -D "$WORK/data" >>"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 120); do
	pg_isready -q -h "$WORK" -p "$PORT" && break
	sleep 1
done
if ! pg_isready -q -h "$WORK" -p "$PORT"; then
	cat "$WORK/server.log" "$WORK"/san/* 2>/dev/null
	echo "run_sql_fuzz: the sanitized server did not start" >&2
	exit 1
fi
chmod a+r "$WORK/server.log"

# 4. The fuzzer.  It checks that its backend runs this postgres and has
# mapped this tuner.so.
status=0
t1=$(date +%s)
PGHOST=$WORK PGPORT=$PORT PGUSER=postgres PGDATABASE=postgres \
	nice -n 10 "$PYTHON" tests/fuzz/sql_fuzz.py --calls "$CALLS" --seed "$SEED" \
	--expect-map "$PKGLIB/tuner.so" --expect-map "$PG/bin/postgres" || status=1
echo "run_sql_fuzz: the fuzzer took $(($(date +%s) - t1)) s"

# 5. The server's own evidence.
if grep -E 'terminated by signal|was terminated|server process .* exited with exit code [^0]|PANIC' "$WORK/server.log"; then
	echo "run_sql_fuzz: the server log shows a crashed backend" >&2
	status=1
fi
if ls "$WORK"/san/* >/dev/null 2>&1; then
	echo "run_sql_fuzz: sanitizer reports:" >&2
	cat "$WORK"/san/* >&2
	status=1
fi

# 6. The canaries: a deliberate heap overflow and a deliberate shift past
# int's width, each in a backend of this server, must each leave a report
# in $WORK/san.  (Each backend aborts and the server restarts its other
# processes, which is why this comes last.)
canary() {
	local fn=$1 want=$2
	for _ in $(seq 30); do
		pg_isready -q -h "$WORK" -p "$PORT" && break
		sleep 1
	done
	PGHOST=$WORK PGPORT=$PORT PGUSER=postgres PGDATABASE=postgres psql -X -q -c \
		"CREATE FUNCTION pg_temp.$fn() RETURNS int AS '$WORK/asan_canary.so', '$fn' LANGUAGE C; SELECT pg_temp.$fn();" \
		>"$WORK/canary.log" 2>&1
	sleep 2
	if grep -qs "$want" "$WORK"/san/* && grep -qs "in $fn " "$WORK"/san/*; then
		echo "run_sql_fuzz: $fn's deliberate error was reported: $want"
	else
		echo "run_sql_fuzz: $fn's deliberate error left no report in $WORK/san:" >&2
		cat "$WORK/canary.log" "$WORK"/san/* >&2 2>/dev/null
		status=1
	fi
}
if [ $status -eq 0 ]; then
	canary ubsan_canary 'shift exponent 40 is too large'
	canary asan_canary 'heap-buffer-overflow'
fi
if [ $status -eq 0 ]; then
	echo "run_sql_fuzz: no crash, no sanitizer report ($(($(date +%s) - t0)) s in all)"
fi
exit $status
