#!/bin/bash
# test-all.sh: README command 2, and what .ci/run calls.  Runs the whole
# test suite on a fresh Debian 12 machine as root:
#   deps       install every package (scripts/install-deps.sh all)
#   build      compile the extension, the runners and tuner-agent (make
#              world) with -Wall -Wextra -Werror and assertions
#   lean-build tests/lean_build.sh: make alone builds only the extension,
#              from the core packages' headers and libraries
#   format     clang-format check of src/ (fails on any difference)
#   unit       C unit tests of src/core (make unittest)
#   fuzz       tests/fuzz: every SQL function 10,000 times with bad input
#              in a PostgreSQL 15 built from Debian's source with ASan and
#              UBSan (its build is most of the time), then libFuzzer
#              (ASan+UBSan) on the runners' parsers: JSON, RocksDB LOG,
#              FastQuery queries and options, Ceph answers
#   runner-rocksdb  tests/runners/test_rocksdb.sh (tuner_rocksdb, real db_bench)
#   runner-fastquery  tests/runners/test_fastquery.sh (tuner_fastquery, real
#              MPICH ranks and parallel HDF5 files; the paired runner)
#   bench-tuning  tests/bench/test_tuning.py (the benchmarks' sampling,
#              intervals and verdicts, bench/tuning.py)
#   ceph-cluster    tests/ceph/test_cluster.sh (a real throwaway Ceph cluster)
#   runner-ceph     tests/runners/test_ceph.sh (tuner_ceph on such a cluster)
#   install    make install-world (the extension, runners and agent)
#   ceph-study tests/ceph/test_study.sh (a 6-trial study of the ceph preset
#              through background workers on a real cluster, as postgres)
#   slurm      tests/slurm/run.sh: a real throwaway Slurm cluster (munge,
#              MariaDB + slurmdbd, slurmctld, two slurmd nodes), real jobs
#              (concurrency, sacct, scancel, drain, time limit), then
#              tuner-agent trials as Slurm jobs against pg_virtualenv and
#              studies with executor 'slurm' (tuner.run submits the jobs)
#   tap        TAP tests (tests/tap.sh: background workers, runners,
#              crash/restart, pg_cron) in their own clusters, as postgres
#   regress    pg_regress (make installcheck) in a throwaway cluster
#   concurrency, agent (tests/agent.sh: tuner-agent), dump-restore,
#              fastquery-study, plots (tests/plots/test_render.sh), reference/*.py in the
#              same throwaway cluster
# Exits non-zero when any suite fails; the last line is "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

# Debian's python3 has the Debian packages (sklearn, optuna, psycopg2).
PYTHON=/usr/bin/python3

RESULTS=$(mktemp)
trap 'rm -f "$RESULTS"' EXIT

# Run one suite: record its result, keep going.
suite() {
	local name=$1
	shift
	echo
	echo "=== suite: $name"
	if "$@"; then
		echo "=== suite $name: passed"
		echo "passed $name" >> "$RESULTS"
		return 0
	fi
	echo "=== suite $name: FAILED"
	echo "failed $name" >> "$RESULTS"
	return 1
}

summary() {
	local passed failed
	passed=$(grep -c '^passed ' "$RESULTS")
	failed=$(grep -c '^failed ' "$RESULTS")
	echo
	grep '^failed ' "$RESULTS" | sed 's/^failed /FAILED: /'
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}

format_check() {
	local files
	files=$(find src -name '*.c' -o -name '*.h' | sort)
	clang-format --dry-run --Werror $files
}

build() {
	make clean >/dev/null &&
		make -j2 world COPT='-DUSE_ASSERT_CHECKING'
}

# OpenBLAS chooses its kernels from the CPU's model, and its 0.3.21 does
# not know the model some VMs of this kind report ("Intel(R) Xeon(R)
# Processor", with AVX-512): it falls back to its SSE3 kernels (Prescott),
# whose rounding differs from the AVX-512 kernels (SkylakeX) the expected
# outputs were made with, and pg_regress compares fitted models and the
# trials they choose exactly (multitask, lasso, replay and multiobjective
# failed there).  On a CPU with AVX-512 the server of pg_virtualenv's
# cluster therefore runs SkylakeX's kernels, whatever OpenBLAS detects.
pin_blas_kernels() {
	local version cluster
	grep -qw avx512f /proc/cpuinfo || return 0
	read -r version cluster _ < <(pg_lsclusters -h | head -1)
	echo "OPENBLAS_CORETYPE=SkylakeX" >> "$PG_CLUSTER_CONF_ROOT/$version/$cluster/environment"
	pg_ctlcluster "$version" "$cluster" restart
}

# The suites that need a running server; run inside pg_virtualenv, which
# exports PGHOST, PGPORT, PGUSER, PGPASSWORD and PGDATABASE.
in_cluster() {
	installcheck() {
		if ! make installcheck; then
			[ -f regression.diffs ] && cat regression.diffs
			return 1
		fi
	}
	pin_blas_kernels
	suite regress installcheck
	suite concurrency bash tests/concurrency.sh
	# tuner-agent: parallel agents, hanging and crashing runners, a
	# terminated session, a lease lost while disconnected, SIGTERM, network
	# cuts through a relay (~1 min)
	suite agent bash tests/agent.sh
	# a study through pg_dump and pg_restore into a fresh database
	suite dump-restore bash tests/dump_restore.sh
	# ALTER EXTENSION tuner UPDATE from 0.1.0, the first released version
	suite upgrade bash tests/upgrade.sh
	# a fastquery study through tuner.run's workers: 4 trials at 2^20
	# particles, then a timed-out trial leaves no MPI process (~1.5 min)
	suite fastquery-study bash tests/fastquery_study.sh
	# the main job (README command 1) at a small size: 3 RocksDB trials,
	# then the recommended one confirmed by 2 paired runs (~2 min)
	suite main-job bash tests/main_job.sh
	# every tuner.plot kind: xmllint, then rendered by headless Chromium
	suite plots bash tests/plots/test_render.sh
	if [ ! -f tests/reference/gp_sklearn.py ]; then
		echo "tests/reference/gp_sklearn.py is missing"
		echo "failed reference/gp_sklearn.py (missing)" >> "$RESULTS"
	fi
	local f
	for f in tests/reference/*.py; do
		[ -f "$f" ] || continue
		case "$(basename "$f")" in
			_*) continue ;;	# helper modules, not tests
		esac
		suite "reference/$(basename "$f")" "$PYTHON" "$f"
	done
	return 0
}

if ! suite deps bash scripts/install-deps.sh all; then
	summary
	exit 1
fi
suite build build
# The extension alone from its own dependencies, in a scratch copy (~1 min).
suite lean-build bash tests/lean_build.sh
suite format format_check
suite unit make unittest
# Bad input at volume: sanitized builds, fails on any crash or report.
# run_sql_fuzz.sh first builds PostgreSQL with ASan and UBSan (kept in
# /var/tmp/tuner-pg15-asan for later runs on the same machine).
fuzz() {
	bash tests/fuzz/run_sql_fuzz.sh 10000 && bash tests/fuzz/run_libfuzzer.sh 20
}
suite fuzz fuzz
# RocksDB runner: real db_bench + librocksdb, short trials (~1-2 min).
suite runner-rocksdb bash tests/runners/test_rocksdb.sh
# FastQuery workload program and its paired runner: MPICH + parallel HDF5,
# 2^20 particles (~2-3 min).
suite runner-fastquery bash tests/runners/test_fastquery.sh
# The tuning benchmarks' server-free helpers against scipy (~1 s).
suite bench-tuning "$PYTHON" tests/bench/test_tuning.py
# Ceph test cluster script: start/stop/purge/restart, cephx (~1 min).
suite ceph-cluster bash tests/ceph/test_cluster.sh
# Ceph runner: config set/readback, OSD restarts, refusals, workload (~2 min).
suite runner-ceph bash tests/runners/test_ceph.sh
if suite install make install-world; then
	# The ceph preset: a 6-trial Sapphire study through tuner.run on a real
	# cluster started as postgres (~4 min); needs the installed extension.
	suite ceph-study bash tests/ceph/test_study.sh
	# Slurm: the local cluster and its jobs, two trials run by tuner-agent
	# as Slurm jobs on two nodes at once, studies with executor 'slurm'
	# (faults, requeue, preemption, accounting) and FastQuery and RocksDB
	# studies as jobs (~7 min).
	suite slurm bash tests/slurm/run.sh
	# TAP clusters of their own (PostgreSQL::Test::Cluster, run as postgres).
	suite tap bash tests/tap.sh
	export RESULTS PYTHON
	export -f suite in_cluster pin_blas_kernels
	# -t: a temporary cluster even as root; the server runs as postgres.
	if ! pg_virtualenv -t bash -c 'in_cluster'; then
		echo "failed cluster (pg_virtualenv)" >> "$RESULTS"
	fi
fi

summary
