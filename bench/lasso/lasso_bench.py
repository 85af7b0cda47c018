#!/usr/bin/python3
"""
lasso_bench.py
    Lasso benchmark (bench/README.md, section 5).

    Speed: on the same data, in the same run, the wall time of
      SELECT tuner.lasso_cv(x, y, '{"solver": S}') FROM lasso_bench_data
    for S = "sklearn" (the default, scikit-learn's iterates) and "fast"
    (the exact optimum; src/core/lasso_fast.c), the arrays already stored
    in a table (converting them to C arrays is timed; the jsonb result is
    fetched), against LassoCV(cv=5).fit(x, y) in this process, all
    single-threaded, interleaved, median of --repeats calls.
    tuner.lasso_cv also computes the warm-started path on all rows (for
    entered_at), which LassoCV does not: one extra path is in its time.
    Data: x ~ N(0, 1) (n = 300), y = x b + N(0, 1) with 16 effects of size
    0.5-2 and random signs.  Also: whether the chosen lambda is LassoCV's
    and an exact LassoCV's (tol 1e-12, not timed), and the max |coefficient
    difference| against LassoCV's coef_ and against the exact optimum at
    the chosen lambda (Lasso, tol 1e-12).  The last row: LassoCV's own
    distance from the exact optimum.

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
from sklearn.linear_model import Lasso, LassoCV  # noqa: E402

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
    solvers = ("sklearn", "fast")
    sql = "SELECT tuner.lasso_cv(x, y, %s::jsonb) FROM lasso_bench_data WHERE id = %s"
    times = {s: [] for s in solvers}
    t_sk = []
    got = {}
    ref = None
    # one warm-up call each (first-call costs: page cache, function lookup)
    for s in solvers:
        cur.execute(sql, ('{"solver": "%s"}' % s, p))
    LassoCV(cv=5).fit(x, y)
    for _ in range(repeats):
        for s in solvers:
            t0 = time.perf_counter()
            cur.execute(sql, ('{"solver": "%s"}' % s, p))
            got[s] = cur.fetchone()[0]
            times[s].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        ref = LassoCV(cv=5).fit(x, y)
        t_sk.append(time.perf_counter() - t0)
    # the exact answers (not timed): scikit-learn to tol 1e-12
    exact_cv = LassoCV(cv=5, tol=1e-12, max_iter=100000).fit(x, y)
    m_sk = statistics.median(t_sk)
    ok = True
    for s in solvers:
        g = got[s]
        m = statistics.median(times[s])
        coef = np.array(g["coefficients"])
        exact = Lasso(alpha=g["lambda"], tol=1e-12, max_iter=1000000).fit(x, y)
        same = abs(g["lambda"] - ref.alpha_) <= 1e-12 * ref.alpha_
        same_exact = abs(g["lambda"] - exact_cv.alpha_) <= 1e-12 * exact_cv.alpha_
        d_default = float(np.max(np.abs(coef - ref.coef_)))
        d_exact = float(np.max(np.abs(coef - exact.coef_)))
        print("| 300 | %d | %s | %.1f | %.1f | %.2fx | %s | %s | %.1e | %.1e | %.1f-%.1f | %.1f-%.1f |" % (
            p, s, m * 1e3, m_sk * 1e3, m_sk / m, "yes" if same else "NO",
            "yes" if same_exact else "NO", d_default, d_exact,
            min(times[s]) * 1e3, max(times[s]) * 1e3, min(t_sk) * 1e3, max(t_sk) * 1e3),
            flush=True)
        ok = ok and (same if s == "sklearn" else same_exact) and \
            (d_default if s == "sklearn" else d_exact) <= 1e-6
    exact_ref = Lasso(alpha=ref.alpha_, tol=1e-12, max_iter=1000000).fit(x, y)
    print("|  |  | (LassoCV itself) |  |  |  |  | %s | 0 | %.1e |  |  |" % (
        "yes" if abs(ref.alpha_ - exact_cv.alpha_) <= 1e-12 * ref.alpha_ else "NO",
        float(np.max(np.abs(ref.coef_ - exact_ref.coef_)))), flush=True)
    return ok


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
    print("| n | p | solver | tuner ms | LassoCV ms | LassoCV / tuner | same lambda as LassoCV | "
          "same lambda as exact LassoCV | max coef diff vs LassoCV | max coef diff vs exact | "
          "tuner range ms | LassoCV range ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    ok = True
    for p in (200, 1000):
        ok = speed(cur, p, args.repeats, seed=p) and ok
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
