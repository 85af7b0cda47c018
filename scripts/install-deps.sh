#!/bin/bash
# install-deps.sh: install every Debian 12 package that tuner needs to build,
# test, benchmark and run its main job.  Idempotent; run as root.
set -euo pipefail

PACKAGES=(
	build-essential
	postgresql-15
	postgresql-client-15
	postgresql-server-dev-15
	libpq-dev
	postgresql-common
	libopenblas-dev
	liblapacke-dev
	libnlopt-dev
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
	librocksdb-dev
	libjansson-dev
	rocksdb-tools
	mpich
	libhdf5-mpich-dev
	procps
	iproute2
	socat
	hdf5-tools
	python3-h5py
	ceph-mon
	ceph-mgr
	ceph-osd
	ceph-common
	librados-dev
)

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
	echo "install-deps.sh: all ${#PACKAGES[@]} packages are installed"
	exit 0
fi

echo "install-deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"

# The Debian package starts a "main" cluster; tuner's scripts use throwaway
# clusters (pg_virtualenv), so it is not needed, but it is left as it is.
echo "install-deps.sh: done"
