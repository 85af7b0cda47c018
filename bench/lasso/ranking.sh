#!/bin/bash
# bench/lasso/ranking.sh — ranking with few trials (bench/README.md,
# section 5, "Ranking with few trials"): recall of the true drivers in the
# top 3 of tuner.lasso_rank after 16, 24 and 32 explored trials, on the
# synthetic studies of bench/lasso/ranking_bench.py.
#
# Assumes the extension is built and installed (make && make install).
# Without PGHOST/PGPORT in the environment it starts a throwaway cluster
# with pg_virtualenv; with them it uses that server.  Options go to
# ranking_bench.py (--seeds, --noise, --problems, --help).
#
# PG_VIRTUALENV_OPTS: extra pg_virtualenv options (word-split), e.g. to load
# a build installed into a private DESTDIR instead of the system:
#   D=/tmp/tuner-dest; make install DESTDIR=$D
#   PG_VIRTUALENV_OPTS="-o extension_destdir=$D -o dynamic_library_path=$D/usr/lib/postgresql/15/lib:/usr/lib/postgresql/15/lib" \
#     bash bench/lasso/ranking.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# Everything single-threaded, like the extension (openblas_set_num_threads(1)).
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
py=/usr/bin/python3
for a in "$@"; do
	case "$a" in -h|--help) exec "$py" "$here/ranking_bench.py" "$@" ;; esac
done
if [ -n "${PGHOST:-}${PGPORT:-}" ]; then
	exec "$py" "$here/ranking_bench.py" "$@"
fi
# shellcheck disable=SC2086
exec pg_virtualenv -t ${PG_VIRTUALENV_OPTS:-} "$py" "$here/ranking_bench.py" "$@"
