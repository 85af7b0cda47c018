#!/bin/bash
# main-job.sh: README command 1.  Installs the packages of the extension
# and its RocksDB runner only (install-deps.sh core rocksdb), builds and
# installs the two (not the other runners or the agent), starts a
# throwaway PostgreSQL cluster (pg_virtualenv; the server runs as
# postgres) and runs the main job: a real RocksDB tuning study run by
# tuner's background workers (examples/rocksdb_study.sh), printing one
# row per trial, then the recommended configuration confirmed by more
# paired runs and its improvement over the default with its 95 %
# confidence interval.
#
#   TRIALS=10 DURATION=30 CONFIRM_PAIRS=3 PARALLEL=1 bash scripts/main-job.sh
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh core rocksdb
make -s -j2 all runner-rocksdb
make -s install install-runner-rocksdb >/dev/null

export TRIALS=${TRIALS:-10} DURATION=${DURATION:-30} PARALLEL=${PARALLEL:-1} \
	CONFIRM_PAIRS=${CONFIRM_PAIRS:-3}
pg_virtualenv -t bash examples/rocksdb_study.sh
