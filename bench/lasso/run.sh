#!/bin/bash
# bench/lasso/run.sh — the Lasso benchmark (bench/README.md, section
# "5. Lasso"): tuner.lasso_cv (path + 5-fold CV) against scikit-learn's
# LassoCV(cv=5) at n = 300 with p = 200 and p = 1000 on the same data, in
# the same run, and the recall of the true top 16 of 200 parameters.
#
# Assumes the extension is built and installed (make && make install).
# Without PGHOST/PGPORT in the environment it starts a throwaway cluster
# with pg_virtualenv; with them it uses that server.  Options go to
# bench/lasso/lasso_bench.py (--repeats, --seeds, --help).
#
# PG_VIRTUALENV_OPTS: extra pg_virtualenv options (word-split), e.g. to load
# a build installed into a private DESTDIR instead of the system:
#   D=/tmp/tuner-dest; make install DESTDIR=$D
#   PG_VIRTUALENV_OPTS="-o extension_destdir=$D -o dynamic_library_path=$D/usr/lib/postgresql/15/lib:/usr/lib/postgresql/15/lib" \
#     bash bench/lasso/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# Everything single-threaded, like the extension (openblas_set_num_threads(1)).
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
py=/usr/bin/python3
for a in "$@"; do
	case "$a" in -h|--help) exec "$py" "$here/lasso_bench.py" "$@" ;; esac
done
if [ -n "${PGHOST:-}${PGPORT:-}" ]; then
	exec "$py" "$here/lasso_bench.py" "$@"
fi
# shellcheck disable=SC2086
exec pg_virtualenv -t ${PG_VIRTUALENV_OPTS:-} "$py" "$here/lasso_bench.py" "$@"
