"""
bench/latency/sql_studies.py N D FAILED_PERCENT: load the two studies of a
bench/latency.py row into the server in PG* (N complete trials of the
row's smooth objective in D dimensions, and the same with
round(N * FAILED_PERCENT / 100) failed trials more, each holding a
previous fit as after any model-based suggestion) and print their names,
without failures first.  For bench/latency/instructions_sql.sh.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np          # noqa: E402

import latency              # noqa: E402
import methods              # noqa: E402


def main():
    n, d, percent = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    conn = methods.connect()
    conn.autocommit = True
    # the data of bench/latency.py's row (n, d)
    f = latency.smooth_objective(d, seed=1000 * d + n)
    rng = np.random.default_rng(d * 7919 + n)
    X = rng.uniform(size=(n, d))
    for i in range(n):
        while X[i, 0] + X[i, 1] > 1.4:
            X[i] = rng.uniform(size=d)
    X_failed = latency.failing_points(rng, int(round(n * percent / 100.0)), d)
    plain, _, _ = latency.tuner_load(conn, d, n, X, f, True)
    failed, _, _ = latency.tuner_load(conn, d, n, X, f, True, X_failed)
    print(plain, failed)


if __name__ == "__main__":
    main()
