#!/bin/bash
# install-deps.sh: install the Debian 12 packages tuner needs for a
# purpose.  Idempotent; run as root.
#
#   bash scripts/install-deps.sh [PURPOSE...]
#   bash scripts/install-deps.sh --list [PURPOSE...]   print the packages
#
# Purposes (the Makefile of each program names its own):
#   core       build, install and run the extension (make && make install)
#   rocksdb    tuner_rocksdb and db_bench (make runner-rocksdb)
#   fastquery  tuner_fastquery and its runner, MPICH and parallel HDF5
#              (make runner-fastquery)
#   ceph       tuner_ceph and the daemons of the local test cluster
#              (make runner-ceph)
#   agent      tuner-agent, a libpq client (make agent)
#   slurm      the daemons and clients of the local Slurm test cluster
#              (tests/slurm/cluster.sh): munge, slurmctld, slurmd,
#              slurmdbd and MariaDB's server and client programs for the
#              accounting that sacct reads (no service is started)
#   test       what only the test suite and benchmarks use (pg_cron,
#              IPC::Run, clang-format, clang for the fuzzers, Chromium,
#              scikit-learn, Optuna, ...); scripts/test-all.sh installs all
#   all        every purpose (the default)
set -euo pipefail

CORE=(
	build-essential
	postgresql-15
	postgresql-client-15
	postgresql-server-dev-15
	postgresql-common
	libopenblas-dev
	liblapacke-dev
	libnlopt-dev
)
ROCKSDB=(
	build-essential
	librocksdb-dev
	libjansson-dev
	rocksdb-tools
)
FASTQUERY=(
	build-essential
	pkgconf
	libjansson-dev
	mpich
	libhdf5-mpich-dev
)
CEPH=(
	build-essential
	libjansson-dev
	librados-dev
	ceph-mon
	ceph-mgr
	ceph-osd
	ceph-common
)
AGENT=(
	build-essential
	libpq-dev
)
# The -core MariaDB packages: the programs without the system service
# (mariadb-server would install and start one); cluster.sh runs its own.
SLURM=(
	munge
	slurmctld
	slurmd
	slurmdbd
	slurm-client
	mariadb-server-core
	mariadb-client-core
)
TEST=(
	clang-format
	clang-14
	libclang-rt-14-dev
	bzip2
	libipc-run-perl
	postgresql-15-cron
	libxml2-utils
	chromium
	fonts-dejavu-core
	python3
	python3-numpy
	python3-scipy
	python3-sklearn
	python3-optuna
	python3-psycopg2
	procps
	iproute2
	socat
	hdf5-tools
	python3-h5py
)

usage() {
	echo "usage: install-deps.sh [--list] [core|rocksdb|fastquery|ceph|agent|slurm|test|all]..." >&2
	exit 2
}

list=false
if [ "${1:-}" = --list ]; then
	list=true
	shift
fi
[ $# -eq 0 ] && set -- all

PACKAGES=()
for purpose in "$@"; do
	case "$purpose" in
		core) PACKAGES+=("${CORE[@]}") ;;
		rocksdb) PACKAGES+=("${ROCKSDB[@]}") ;;
		fastquery) PACKAGES+=("${FASTQUERY[@]}") ;;
		ceph) PACKAGES+=("${CEPH[@]}") ;;
		agent) PACKAGES+=("${AGENT[@]}") ;;
		slurm) PACKAGES+=("${SLURM[@]}") ;;
		test) PACKAGES+=("${TEST[@]}") ;;
		all) PACKAGES+=("${CORE[@]}" "${ROCKSDB[@]}" "${FASTQUERY[@]}"
			"${CEPH[@]}" "${AGENT[@]}" "${SLURM[@]}" "${TEST[@]}") ;;
		*) echo "install-deps.sh: unknown purpose \"$purpose\"" >&2; usage ;;
	esac
done
# each package once, in the order first named
mapfile -t PACKAGES < <(printf '%s\n' "${PACKAGES[@]}" | awk '!seen[$0]++')

if $list; then
	printf '%s\n' "${PACKAGES[@]}"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps.sh: run as root (it uses apt-get)" >&2
	exit 1
fi

missing=()
for p in "${PACKAGES[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done

if [ "${#missing[@]}" -eq 0 ]; then
	echo "install-deps.sh: all ${#PACKAGES[@]} packages of $* are installed"
	exit 0
fi

echo "install-deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"

# The Debian package starts a "main" cluster; tuner's scripts use throwaway
# clusters (pg_virtualenv), so it is not needed, but it is left as it is.
echo "install-deps.sh: done"
