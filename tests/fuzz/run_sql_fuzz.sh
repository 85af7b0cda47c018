#!/bin/bash
# run_sql_fuzz.sh [CALLS] [SEED]: call every SQL function of schema tuner
# with generated bad and extreme input (tests/fuzz/sql_fuzz.py) against a
# build with AddressSanitizer and UBSan, in a throwaway server of its own.
#
# The extension is compiled with clang in a copy of the tree (the worktree's
# own gcc objects stay as they are) and installed into a private directory
# loaded with extension_destdir / dynamic_library_path, never into the
# system.  The server is stock Debian PostgreSQL (not instrumented) with
# clang's sanitizer runtime preloaded.
# Fails when the server crashes, a sanitizer writes a report, an error is
# XX000 (internal error), or the backend's memory grows past its bound.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
CALLS=${1:-10000}
SEED=${2:-20261130}
PYTHON=/usr/bin/python3

# SANITIZE=address,undefined asks for ASan as well, but on Debian 12 the
# stock postgres binary hangs at startup with clang 14's ASan runtime
# preloaded (a deadlock in glibc's bindtextdomain under ASan's textdomain
# interceptor, llvm-project issue 49223), so the default is UBSan only,
# whose standalone runtime preloads cleanly.  ASan covers the pure-C
# parsers instead (tests/fuzz/run_libfuzzer.sh).
SANITIZE=${SANITIZE:-undefined}
RTDIR=$(ls -d /usr/lib/llvm-14/lib/clang/14*/lib/linux 2>/dev/null | head -1)
case "$SANITIZE" in
	*address*) SAN_RT=$RTDIR/libclang_rt.asan-x86_64.so ;;
	*) SAN_RT=$RTDIR/libclang_rt.ubsan_standalone-x86_64.so ;;
esac
if [ ! -f "$SAN_RT" ]; then
	echo "run_sql_fuzz: clang 14's sanitizer runtime is missing (libclang-rt-14-dev)" >&2
	exit 1
fi

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

# 1. Sanitized build in a copy of the tree.  Debian's pg_config CFLAGS are
# gcc's (-fexcess-precision=standard), so CFLAGS is replaced; PostgreSQL's
# headers use gnu_printf, which clang ignores with a warning.
SAN="-fsanitize=$SANITIZE -fno-sanitize-recover=all -fno-omit-frame-pointer"
mkdir -p "$WORK/build"
cp -r Makefile tuner.control sql src "$WORK/build/"
if ! nice -n 10 make -s -C "$WORK/build" -j2 tuner.so CC=clang-14 with_llvm=no \
	CFLAGS="-O1 -g -fno-strict-aliasing -fwrapv -Wno-ignored-attributes $SAN -DUSE_ASSERT_CHECKING" \
	LDFLAGS_SL="-shared-libsan $SAN" > "$WORK/build.log" 2>&1; then
	tail -30 "$WORK/build.log"
	echo "run_sql_fuzz: sanitized build failed" >&2
	exit 1
fi
D=$WORK/dest
# where extension_destdir looks for $libdir/tuner (as make install DESTDIR=)
LIB=$D/usr/lib/postgresql/15/lib
mkdir -p "$LIB" "$D/usr/share/postgresql/15/extension"
cp "$WORK/build/tuner.so" "$LIB/"
cp tuner.control sql/tuner--*.sql "$D/usr/share/postgresql/15/extension/"
chmod -R a+rX "$D"

# 2. A throwaway server with the sanitizer runtime preloaded.  PostgreSQL is
# not built for LeakSanitizer (it frees by memory context, at exit not at
# all), so leaks are not reported; memory growth is measured instead.
mkdir -p "$WORK/asan"
chown postgres "$WORK/asan" 2>/dev/null
as_postgres /usr/lib/postgresql/15/bin/initdb -D "$WORK/data" -A trust -U postgres >"$WORK/initdb.log" 2>&1 || {
	cat "$WORK/initdb.log"
	exit 1
}
PORT=$((20000 + RANDOM % 20000))
cat >> "$WORK/data/postgresql.conf" <<EOF
listen_addresses = ''
port = $PORT
unix_socket_directories = '$WORK'
extension_destdir = '$D'
dynamic_library_path = '$LIB:/usr/lib/postgresql/15/lib'
max_worker_processes = 8
log_min_messages = warning
EOF
ASAN_OPTS="detect_leaks=0:abort_on_error=1:disable_coredump=1:log_path=$WORK/asan/asan:detect_odr_violation=0"
UBSAN_OPTS="print_stacktrace=1:halt_on_error=1:log_path=$WORK/asan/ubsan"
# postgres itself, not pg_ctl, so that the runtime's options reach it.
touch "$WORK/server.log"
chown postgres "$WORK/server.log" 2>/dev/null
as_postgres LD_PRELOAD="$SAN_RT" ASAN_OPTIONS="$ASAN_OPTS" UBSAN_OPTIONS="$UBSAN_OPTS" \
	/usr/lib/postgresql/15/bin/postgres -D "$WORK/data" >>"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 60); do
	pg_isready -q -h "$WORK" -p "$PORT" && break
	sleep 1
done
if ! pg_isready -q -h "$WORK" -p "$PORT"; then
	cat "$WORK/server.log"
	echo "run_sql_fuzz: the sanitized server did not start" >&2
	exit 1
fi
chmod a+r "$WORK/server.log"

# 3. The fuzzer.
status=0
PGHOST=$WORK PGPORT=$PORT PGUSER=postgres PGDATABASE=postgres \
	nice -n 10 "$PYTHON" tests/fuzz/sql_fuzz.py --calls "$CALLS" --seed "$SEED" \
	--expect-map "$LIB/tuner.so" || status=1

# 4. The server's own evidence.
if grep -E 'terminated by signal|was terminated|server process .* exited with exit code [^0]|PANIC' "$WORK/server.log"; then
	echo "run_sql_fuzz: the server log shows a crashed backend" >&2
	status=1
fi
if ls "$WORK"/asan/* >/dev/null 2>&1; then
	echo "run_sql_fuzz: sanitizer reports:" >&2
	cat "$WORK"/asan/* >&2
	status=1
fi
if [ $status -eq 0 ]; then
	echo "run_sql_fuzz: no crash, no sanitizer report"
fi
exit $status
