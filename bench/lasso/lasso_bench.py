#!/usr/bin/python3
"""
lasso_bench.py
    Lasso benchmark (bench/README.md, section 5).

    Speed: on the same data, in the same run, the wall time of
      SELECT tuner.lasso_cv(x, y) FROM lasso_bench_data WHERE id = ...
    (the arrays already stored in a table, so parsing them is not timed;
    the jsonb result is fetched) against LassoCV(cv=5).fit(x, y) in this
    process, both single-threaded, interleaved, median of --repeats calls.
    tuner.lasso_cv also computes the warm-started path on all rows (for
    entered_at), which LassoCV does not: one extra path is in its time.
    Data: x ~ N(0, 1) (n = 300), y = x b + N(0, 1) with 16 effects of size
    0.5-2 and random signs.  Also: the chosen lambda, the same or not, and
    max |coefficient difference|.

    Recall: 16 true effects among 200 parameters, x ~ U(0, 1), n = 300,
    noise sd 1, effects 1-2 with random signs; tuner.lasso_cv(x, y,
    '{"standardize": true}'); parameters ranked by |standardized
    coefficient|, ties (zeros) by entered_at; recall = |top 16 ∩ true| / 16,
    per seed.
"""
import argparse
import os
import statistics
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from db import connect  # noqa: E402

from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.linear_model import LassoCV  # noqa: E402

warnings.filterwarnings("ignore", category=ConvergenceWarning)


def pg_array(a):
    if a.ndim == 1:
        return "{" + ",".join(repr(float(v)) for v in a) + "}"
    return "{" + ",".join(pg_array(r) for r in a) + "}"


def speed(cur, p, repeats, seed):
    rng = np.random.default_rng(seed)
    n = 300
    x = rng.standard_normal((n, p))
    beta = np.zeros(p)
    idx = rng.choice(p, 16, replace=False)
    beta[idx] = rng.uniform(0.5, 2.0, 16) * rng.choice([-1.0, 1.0], 16)
    y = x @ beta + rng.standard_normal(n)
    cur.execute("INSERT INTO lasso_bench_data (id, x, y) VALUES (%s, %s::float8[], %s::float8[])",
                (p, pg_array(x), pg_array(y)))
    t_pg, t_sk = [], []
    got = ref = None
    # one warm-up call each (first-call costs: page cache, function lookup)
    cur.execute("SELECT tuner.lasso_cv(x, y) FROM lasso_bench_data WHERE id = %s", (p,))
    LassoCV(cv=5).fit(x, y)
    for _ in range(repeats):
        t0 = time.perf_counter()
        cur.execute("SELECT tuner.lasso_cv(x, y) FROM lasso_bench_data WHERE id = %s", (p,))
        got = cur.fetchone()[0]
        t_pg.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        ref = LassoCV(cv=5).fit(x, y)
        t_sk.append(time.perf_counter() - t0)
    m_pg, m_sk = statistics.median(t_pg), statistics.median(t_sk)
    coef_diff = float(np.max(np.abs(np.array(got["coefficients"]) - ref.coef_)))
    same_lambda = abs(got["lambda"] - ref.alpha_) <= 1e-12 * ref.alpha_
    print("| 300 | %d | %.1f | %.1f | %.2fx | %s | %.1e | %.1f-%.1f | %.1f-%.1f |" % (
        p, m_pg * 1e3, m_sk * 1e3, m_sk / m_pg, "yes" if same_lambda else "NO",
        coef_diff, min(t_pg) * 1e3, max(t_pg) * 1e3, min(t_sk) * 1e3, max(t_sk) * 1e3),
        flush=True)
    return m_sk / m_pg, same_lambda, coef_diff


def recall(cur, seed):
    rng = np.random.default_rng(seed)
    n, p, k = 300, 200, 16
    x = rng.uniform(0.0, 1.0, (n, p))
    beta = np.zeros(p)
    true = rng.choice(p, k, replace=False)
    beta[true] = rng.uniform(1.0, 2.0, k) * rng.choice([-1.0, 1.0], k)
    y = x @ beta + rng.standard_normal(n)
    cur.execute("SELECT tuner.lasso_cv(%s::float8[], %s::float8[], '{\"standardize\": true}')",
                (pg_array(x), pg_array(y)))
    got = cur.fetchone()[0]
    imp = np.abs(np.array(got["standardized_coefficients"]))
    entered = np.array([e if e is not None else 10 ** 9 for e in got["entered_at"]])
    order = sorted(range(p), key=lambda j: (-imp[j], entered[j], j))
    top = set(order[:k])
    hits = len(top & set(int(t) for t in true))
    return hits / k, int(np.sum(imp > 0))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--seeds", type=int, default=10, help="recall seeds")
    args = ap.parse_args()
    conn = connect()
    cur = conn.cursor()
    cur.execute("CREATE TEMP TABLE lasso_bench_data (id int PRIMARY KEY, x float8[], y float8[])")
    print("### Speed: tuner.lasso_cv vs LassoCV(cv=5), median of %d calls" % args.repeats)
    print()
    print("| n | p | tuner ms | sklearn ms | sklearn / tuner | same lambda | max abs coef diff | tuner range ms | sklearn range ms |")
    print("|---|---|---|---|---|---|---|---|---|")
    ok = True
    for p in (200, 1000):
        ratio, same, diff = speed(cur, p, args.repeats, seed=p)
        ok = ok and same and diff <= 1e-6
    print()
    print("### Recall of the true top 16 of 200 (n = 300, %d seeds)" % args.seeds)
    print()
    print("| seed | recall | non-zero coefficients |")
    print("|---|---|---|")
    rs = []
    for s in range(args.seeds):
        r, nz = recall(cur, 100 + s)
        rs.append(r)
        print("| %d | %.4f | %d |" % (100 + s, r, nz), flush=True)
    print()
    print("mean recall %.4f, min %.4f" % (statistics.mean(rs), min(rs)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
