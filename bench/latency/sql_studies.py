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

import latency              # noqa: E402
import methods              # noqa: E402


def main():
    n, d, percent = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    conn = methods.connect()
    conn.autocommit = True
    f, X, X_failed = latency.row_data(n, d, percent)
    plain, _, _ = latency.tuner_load(conn, d, n, X, f, True)
    failed, _, _ = latency.tuner_load(conn, d, n, X, f, True, X_failed)
    print(plain, failed)


if __name__ == "__main__":
    main()
