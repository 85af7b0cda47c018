#!/bin/bash
# bench/sapphire/run.sh — the sapphire benchmark (bench/README.md, section
# "6. Sapphire pipeline"): the sapphire pipeline (exploration, Lasso
# ranking, top K, GP-EI) against GP-EI over all 200 parameters and random
# search, at an equal budget of 300 + 50 evaluations, on a 200-parameter
# synthetic of which 8 parameters matter (bench/sapphire/problem.py).
#
# Assumes the extension is built and installed (make && make install).
# Without PGHOST/PGPORT in the environment it starts a throwaway cluster
# with pg_virtualenv; with them it uses that server.  Options go to
# bench/sapphire/sapphire_bench.py (--quick, --seeds, --methods, --explore,
# --guided, --help ...).
#
# PG_VIRTUALENV_OPTS: extra pg_virtualenv options (word-split), e.g. to load
# a build installed into a private DESTDIR instead of the system:
#   D=/tmp/tuner-dest; make install DESTDIR=$D
#   PG_VIRTUALENV_OPTS="-o extension_destdir=$D -o dynamic_library_path=$D/usr/lib/postgresql/15/lib:/usr/lib/postgresql/15/lib" \
#     bash bench/sapphire/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# Everything single-threaded, like the extension (openblas_set_num_threads(1)).
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
py=/usr/bin/python3
for a in "$@"; do
	case "$a" in -h|--help) exec "$py" "$here/sapphire_bench.py" "$@" ;; esac
done
if [ -n "${PGHOST:-}${PGPORT:-}" ]; then
	exec "$py" "$here/sapphire_bench.py" "$@"
fi
# shellcheck disable=SC2086
exec pg_virtualenv -t ${PG_VIRTUALENV_OPTS:-} "$py" "$here/sapphire_bench.py" "$@"
