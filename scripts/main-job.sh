#!/bin/bash
# main-job.sh: README command 1.  Installs the dependencies, builds and
# installs tuner, starts a throwaway PostgreSQL cluster (pg_virtualenv; the
# server runs as postgres) and runs the main job: a complete tuning study
# of the Branin function driven from SQL (examples/branin_study.sql), which
# prints the trials and the best configuration.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
make -j2
make install

pg_virtualenv -t bash -c '
	set -euo pipefail
	psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION IF NOT EXISTS tuner"
	psql -X -v ON_ERROR_STOP=1 -f examples/branin_study.sql
'
