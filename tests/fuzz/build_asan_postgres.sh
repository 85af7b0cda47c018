#!/bin/bash
# build_asan_postgres.sh [PREFIX]: build PostgreSQL 15 from Debian's source
# package with clang 14 and -fsanitize=address,undefined, assertions on,
# and install the parts the SQL fuzzer needs (the server, initdb,
# pg_config, plpgsql, the headers and PGXS) into PREFIX (default
# /var/tmp/tuner-pg15-asan).  Prints PREFIX on its last line.
#
# Why not Debian's server with the sanitizer runtime preloaded: with ASan's
# runtime (clang's or gcc's) in LD_PRELOAD, the stock postgres hangs at
# startup in glibc's bindtextdomain, before any tuner code runs.  A server
# compiled with the sanitizers needs no preload, and its own allocations
# are checked too.
#
# The build is kept: PREFIX/.tuner-asan-stamp names the source version and
# flags, and a later call with the same ones returns at once (one build per
# machine; CI starts fresh).  Needs root only for apt-get (source download
# into a private apt directory; the system's apt sources are not touched).
set -euo pipefail
PREFIX=${1:-/var/tmp/tuner-pg15-asan}
CC=clang-14
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
CFLAGS="-O1 -g $SAN"
# No readline, zlib, ICU or NLS: fewer build dependencies, and no
# bindtextdomain at startup.  Time zones from the system's tzdata.
CONFIGURE_OPTS="--enable-cassert --enable-debug --without-readline --without-zlib --without-icu --disable-nls --with-system-tzdata=/usr/share/zoneinfo"
# Test programs of configure and initdb leak by design.
export ASAN_OPTIONS=detect_leaks=0

mkdir -p "$(dirname "$PREFIX")"
exec 9>"$PREFIX.lock"
flock 9

want_stamp() {
	echo "source $1; CC $CC; CFLAGS $CFLAGS; configure $CONFIGURE_OPTS"
}
# A kept build is used whatever Debian now serves, if its flags match.
if [ -f "$PREFIX/.tuner-asan-stamp" ] && [ -x "$PREFIX/bin/postgres" ]; then
	kept=$(sed -n 's/^source \([^;]*\);.*/\1/p' "$PREFIX/.tuner-asan-stamp")
	if [ "$(cat "$PREFIX/.tuner-asan-stamp")" = "$(want_stamp "$kept")" ]; then
		echo "build_asan_postgres: kept build of $kept in $PREFIX"
		echo "$PREFIX"
		exit 0
	fi
fi

WORK=$(mktemp -d /var/tmp/tuner-pgbuild.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# 1. The source package, through apt with a private configuration: the
# system's deb lines for Debian's archive, as deb-src.  apt checks the
# files against the signed Sources index.
APTDIR=$WORK/apt
mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" "$APTDIR/sources"
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
	sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
		> "$APTDIR/sources/debian-src.sources"
else
	cat > "$APTDIR/sources/debian-src.sources" <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
fi
cat > "$APTDIR/apt.conf" <<EOF
Dir::Etc::sourcelist "/dev/null";
Dir::Etc::sourceparts "$APTDIR/sources";
Dir::State::Lists "$APTDIR/lists";
Dir::Cache "$APTDIR/cache";
APT::Sandbox::User "root";
EOF
export APT_CONFIG=$APTDIR/apt.conf
apt-get update -qq
# The installed server's version first, then the others newest first: a
# mirror may list a version whose files it no longer (or not yet) serves
# (here bookworm-security's 15.20 answers 404, bookworm's 15.18 does not).
installed=$(dpkg-query -W -f='${Version}' postgresql-15 2>/dev/null || true)
versions=$(apt-cache showsrc --only-source postgresql-15 | sed -n 's/^Version: //p' | sort -rV | uniq)
got=
mkdir -p "$WORK/dl"
for v in $installed $(echo "$versions" | grep -vxF "$installed"); do
	if (cd "$WORK/dl" && apt-get source -qq --download-only "postgresql-15=$v") >"$WORK/dl.log" 2>&1; then
		got=$v
		break
	fi
	echo "build_asan_postgres: postgresql-15 $v's source could not be downloaded:" >&2
	grep -E '^(E|W):' "$WORK/dl.log" | head -3 >&2 || true
done
unset APT_CONFIG
if [ -z "$got" ]; then
	echo "build_asan_postgres: no postgresql-15 source package could be downloaded" >&2
	exit 1
fi
upstream=${got%%-*}
echo "build_asan_postgres: building PostgreSQL $upstream (Debian source $got)"
# Upstream's tarball, without Debian's patches: they fix the library and
# include directories to /usr/lib/postgresql/15, which a private prefix
# cannot use.
tar -xjf "$WORK/dl/postgresql-15_$upstream.orig.tar.bz2" -C "$WORK"
SRC=$WORK/postgresql-$upstream

# 2. Configure and build only what the fuzzer runs: the server with its
# catalog files, the text search dictionaries and plpgsql that initdb
# installs, initdb, pg_config, and what PGXS needs to build an extension.
cd "$SRC"
if ! ./configure -q --prefix="$PREFIX" $CONFIGURE_OPTS CC="$CC" CFLAGS="$CFLAGS" \
	LDFLAGS="$SAN" > "$WORK/configure.log" 2>&1; then
	tail -40 "$WORK/configure.log" config.log >&2
	exit 1
fi
# Parts built one after the other, in the order of src/Makefile (the
# generated headers first, once: two makes at once race on their links).
PARTS="src/backend/utils/mb/conversion_procs src/backend/snowball src/pl/plpgsql src/bin/initdb src/bin/pg_config"
make -s -C src/backend generated-headers > "$WORK/make.log" 2>&1 || {
	tail -40 "$WORK/make.log" >&2
	exit 1
}
for d in src/common src/port src/backend $PARTS; do
	make -s -j2 -C "$d" > "$WORK/make.log" 2>&1 || {
		tail -40 "$WORK/make.log" >&2
		exit 1
	}
done
rm -rf "$PREFIX"
for d in src/backend $PARTS src/include src/timezone src/makefiles config; do
	make -s -C "$d" install > "$WORK/install.log" 2>&1 || {
		tail -40 "$WORK/install.log" >&2
		exit 1
	}
done
make -s -C src install-local > "$WORK/install.log" 2>&1 || {
	tail -40 "$WORK/install.log" >&2
	exit 1
}
want_stamp "$got" > "$PREFIX/.tuner-asan-stamp"
echo "build_asan_postgres: installed into $PREFIX"
echo "$PREFIX"
