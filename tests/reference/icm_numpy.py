#!/usr/bin/python3
"""
icm_numpy.py
    Reference test of tuner's multi-task GP (tuner.icm_fit, tuner.icm_predict)
    against an independent closed-form NumPy computation.

    For data with missing entries and for fully observed data, in units far
    from the unit cube: fit a model with tuner.icm_fit, replace its
    hyperparameters in the jsonb by fixed values, call tuner.icm_predict for
    every task at new points and compare with the ICM posterior computed
    here from scratch:
      kx(x, x') = (1 + sqrt5 r + 5/3 r^2) exp(-sqrt5 r),
                  r^2 = sum_k (x_k - x'_k)^2 / l_k^2
      B = W W^T + diag(v)
      K[(i,t),(j,s)] = kx(x_i, x_j) B[t,s] + [(i,t) = (j,s)] noise_t
          over the observed entries only
      mean_t(x*) = m_t + k*^T K^-1 (y - m),  k*[(j,s)] = kx(x*, x_j) B[t,s]
      var_t(x*)  = B[t,t] - k*^T K^-1 k*
    The fully observed case is also predicted with "force_full": true (the
    full Cholesky instead of the Kronecker eigen-decomposition); both must
    match NumPy and each other.  Tolerance: |a - b| <= 1e-8 * max(f, |b|)
    with f = min(1, sqrt(B[t,t])): absolute below 1, relative above, and
    a task whose prior sd is below 1 is held to its own scale.

    The fitted models (before editing) are checked too: x and y come back
    unchanged (nulls included), "task_covariance" is W W^T + diag(v),
    "task_correlation" its correlation, "kronecker" says whether the data
    was fully observed, and "log_likelihood" equals the NumPy log marginal
    likelihood at the fitted hyperparameters in the caller's units (to
    1e-8 relative): this checks that the conversion from the standardised
    fit back to the caller's units is a consistent model.

    Connects with the PG* environment variables (psycopg2) and creates the
    extension if it is missing.  Exit status 1 on any failure; the last line
    is "N passed, N failed".
"""
import json
import sys

import numpy as np
import psycopg2
from scipy.linalg import cho_factor, cho_solve

TOL = 1e-8
passed = 0
failed = 0
worst = {"mean": 0.0, "sd": 0.0, "force_full": 0.0, "loglik": 0.0}


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL: %s" % what, flush=True)


def scaled_err(a, b, floor=1.0):
    """max |a - b| / max(floor, |b|), elementwise over arrays."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.max(np.abs(a - b) / np.maximum(floor, np.abs(b))))


def matern52(X1, X2, ls):
    diff = (X1[:, None, :] - X2[None, :, :]) / np.asarray(ls)[None, None, :]
    r = np.sqrt(np.sum(diff * diff, axis=2))
    s5r = np.sqrt(5.0) * r
    return (1.0 + s5r + 5.0 / 3.0 * r * r) * np.exp(-s5r)


def icm_reference(X, Y, ls, W, v, noise, mean, xs):
    """(means T x m, sds T x m, log marginal likelihood) in closed form."""
    X, Y, xs = np.asarray(X, float), np.asarray(Y, float), np.asarray(xs, float)
    W = np.asarray(W, float)
    T = Y.shape[1]
    B = W @ W.T + np.diag(v)
    obs = [(i, t) for i in range(Y.shape[0]) for t in range(T) if not np.isnan(Y[i, t])]
    pi = np.array([i for i, _ in obs])
    pt = np.array([t for _, t in obs])
    Kx = matern52(X, X, ls)
    K = Kx[np.ix_(pi, pi)] * B[np.ix_(pt, pt)] + np.diag(np.asarray(noise)[pt])
    resid = Y[pi, pt] - np.asarray(mean)[pt]
    cf = cho_factor(K, lower=True)
    alpha = cho_solve(cf, resid)
    logdet = 2.0 * np.sum(np.log(np.diag(cf[0])))
    ll = -0.5 * resid @ alpha - 0.5 * logdet - 0.5 * len(obs) * np.log(2.0 * np.pi)
    Ks = matern52(xs, X, ls)[:, pi]                  # m x N
    means, sds = [], []
    for t in range(T):
        kstar = Ks * B[t, pt][None, :]               # m x N
        mu = mean[t] + kstar @ alpha
        var = B[t, t] - np.sum(kstar * cho_solve(cf, kstar.T).T, axis=1)
        means.append(mu)
        sds.append(np.sqrt(np.maximum(var, 0.0)))
    return np.array(means), np.array(sds), ll


def pg_matrix(a):
    """A PostgreSQL 2-D float8 array literal, NULL for NaN, exact floats."""
    rows = []
    for row in np.asarray(a, float):
        rows.append("{" + ",".join("NULL" if np.isnan(e) else repr(float(e)) for e in row) + "}")
    return "{" + ",".join(rows) + "}"


def as_json(value):
    return json.loads(value) if isinstance(value, str) else value


def icm_fit(cur, X, Y, options):
    cur.execute("SELECT tuner.icm_fit(%s::float8[], %s::float8[], %s::jsonb)",
                (pg_matrix(X), pg_matrix(Y), json.dumps(options)))
    return as_json(cur.fetchone()[0])


def icm_predict(cur, model, xs, task):
    cur.execute("SELECT mean, sd FROM tuner.icm_predict(%s::jsonb, %s::float8[], %s)",
                (json.dumps(model), pg_matrix(xs), task))
    rows = cur.fetchall()
    return np.array([r[0] for r in rows]), np.array([r[1] for r in rows])


def check_fitted(tag, model, X, Y):
    """The keys icm_fit writes, and its log likelihood in the caller's units."""
    keys = ("kernel", "model", "x", "y", "rank", "lengthscales", "W", "v", "noise",
            "mean", "task_covariance", "task_correlation", "log_likelihood", "kronecker")
    missing = [k for k in keys if k not in model]
    check(not missing, "%s: model lacks %s" % (tag, missing))
    if missing:
        return
    mx = np.array(model["x"], float)
    my = np.array([[np.nan if e is None else e for e in row] for row in model["y"]], float)
    check(np.array_equal(mx, X), "%s: model x is not the caller's x" % tag)
    check(np.array_equal(np.isnan(my), np.isnan(Y)) and
          np.array_equal(my[~np.isnan(my)], Y[~np.isnan(Y)]),
          "%s: model y is not the caller's y (with nulls)" % tag)
    W = np.array(model["W"], float)
    B = W @ W.T + np.diag(model["v"])
    check(W.shape == (Y.shape[1], model["rank"]), "%s: W has shape %s" % (tag, W.shape))
    err = scaled_err(np.array(model["task_covariance"]), B)
    check(err <= TOL, "%s: task_covariance differs from W W^T + diag(v) by %.3g" % (tag, err))
    corr = B / np.sqrt(np.outer(np.diag(B), np.diag(B)))
    err = scaled_err(np.array(model["task_correlation"]), corr)
    check(err <= TOL, "%s: task_correlation differs by %.3g" % (tag, err))
    check(model["kronecker"] == (not np.isnan(Y).any()),
          "%s: kronecker is %s for %s data" % (tag, model["kronecker"],
                                               "missing" if np.isnan(Y).any() else "complete"))
    _, _, ll = icm_reference(X, Y, model["lengthscales"], W, model["v"], model["noise"],
                             model["mean"], X[:1])
    rel = abs(ll - model["log_likelihood"]) / max(1.0, abs(ll))
    worst["loglik"] = max(worst["loglik"], rel)
    check(rel <= TOL, "%s: log_likelihood %.17g, NumPy %.17g (rel %.3g)"
          % (tag, model["log_likelihood"], ll, rel))


def compare(cur, tag, model, X, Y, xs, force_full_too):
    W = np.array(model["W"], float)
    ref_mean, ref_sd, _ = icm_reference(X, Y, model["lengthscales"], W, model["v"],
                                        model["noise"], model["mean"], xs)
    B = W @ W.T + np.diag(model["v"])
    for t in range(Y.shape[1]):
        # absolute below 1, relative above; tasks on a scale below 1 (prior
        # sd sqrt(B[t,t])) are held to their own scale
        floor = min(1.0, np.sqrt(B[t, t]))
        mean, sd = icm_predict(cur, model, xs, t + 1)
        em, es = scaled_err(mean, ref_mean[t], floor), scaled_err(sd, ref_sd[t], floor)
        worst["mean"] = max(worst["mean"], em)
        worst["sd"] = max(worst["sd"], es)
        check(em <= TOL, "%s task %d: mean differs from NumPy by %.3g" % (tag, t + 1, em))
        check(es <= TOL, "%s task %d: sd differs from NumPy by %.3g" % (tag, t + 1, es))
        if force_full_too:
            fmean, fsd = icm_predict(cur, dict(model, force_full=True), xs, t + 1)
            ef = max(scaled_err(fmean, ref_mean[t], floor), scaled_err(fsd, ref_sd[t], floor))
            ek = max(scaled_err(fmean, mean, floor), scaled_err(fsd, sd, floor))
            worst["force_full"] = max(worst["force_full"], ef, ek)
            check(ef <= TOL, "%s task %d: force_full differs from NumPy by %.3g" % (tag, t + 1, ef))
            check(ek <= TOL, "%s task %d: force_full differs from Kronecker by %.3g" % (tag, t + 1, ek))


def make_data(rng, n, missing):
    """Three tasks on very different scales over x in [-5, 5] x [100, 300]."""
    X = np.column_stack([rng.uniform(-5, 5, n), rng.uniform(100, 300, n)])
    f = np.sin(0.6 * X[:, 0]) + 0.5 * np.cos(X[:, 1] / 40.0)
    g = np.cos(0.4 * X[:, 0]) - 0.3 * (X[:, 1] - 200) / 100.0
    Y = np.column_stack([2.0 + f + 0.05 * rng.normal(size=n),
                         1000.0 - 400.0 * f + 200.0 * g + 10.0 * rng.normal(size=n),
                         0.01 * (g - f) + 1e-4 * rng.normal(size=n)])
    if missing:
        mask = rng.uniform(size=Y.shape) < 0.35
        mask[0, :] = False                 # every task observed at least once
        Y[mask] = np.nan
    return X, Y


def fixed_hyperparameters(model, rank):
    """Hand-picked hyperparameters in the caller's units."""
    W = [[0.9, 0.3], [-350.0, 120.0], [-0.008, 0.004]]
    return dict(model,
                lengthscales=[2.5, 90.0],
                W=[row[:rank] for row in W],
                rank=rank,
                v=[0.05, 2500.0, 1e-6],
                noise=[0.01, 400.0, 2e-8],
                mean=[2.0, 950.0, -0.001])


def test_case(cur, tag, seed, n, missing, rank):
    rng = np.random.default_rng(seed)
    X, Y = make_data(rng, n, missing)
    xs = np.vstack([np.column_stack([rng.uniform(-6, 6, 7), rng.uniform(90, 310, 7)]),
                    X[:3], [[40.0, 1000.0]]])        # new points, data points, far away
    model = icm_fit(cur, X, Y, {"seed": seed, "rank": rank, "restarts": 2})
    check_fitted(tag + " fitted", model, X, Y)
    compare(cur, tag + " fitted", model, X, Y, xs, not missing)
    compare(cur, tag + " fixed", fixed_hyperparameters(model, rank), X, Y, xs, not missing)
    print("%s: n=%d, %d of %d entries observed, rank %d, kronecker %s"
          % (tag, n, int(np.sum(~np.isnan(Y))), Y.size, rank, model.get("kronecker")), flush=True)


def main():
    conn = psycopg2.connect("")
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("CREATE EXTENSION IF NOT EXISTS tuner")
    cases = [("missing", 1, 24, True, 2), ("missing rank 1", 2, 17, True, 1),
             ("complete", 3, 15, False, 2), ("complete rank 1", 4, 20, False, 1)]
    for case in cases:
        try:
            test_case(cur, *case)
        except Exception as e:       # an SQL error is a failure, not a crash
            check(False, "%s raised %s: %s" % (case[0], type(e).__name__, e))
    conn.close()
    print("max scaled differences: mean %.3g, sd %.3g, force_full %.3g, log_likelihood %.3g"
          % (worst["mean"], worst["sd"], worst["force_full"], worst["loglik"]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
