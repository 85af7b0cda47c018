#!/usr/bin/python3
"""
lasso_sklearn.py
    Reference test of tuner.lasso and tuner.lasso_cv against scikit-learn.

    On random data of several shapes (n > p, n < p, n = p, tiny, with
    columns of very different scales and offsets, a constant column), with
    and without {"standardize": true}, for each solver:

    {"solver": "fast"} against the exact optimum, i.e. scikit-learn run to
    tol 1e-12 (max_iter 10^6):
      tuner.lasso(x, y, lambda)      coefficients and intercept equal
                                     Lasso(alpha=lambda, tol=1e-12) to 1e-6
                                     at several lambdas of the grid, and
                                     satisfy the KKT conditions (to 1e-9
                                     relative)
      tuner.lasso_cv(x, y)           the grid equals LassoCV(cv=5).alphas_
                                     (relative 1e-12), the chosen lambda
                                     equals the tight LassoCV's alpha_
                                     (and whether it equals the default
                                     LassoCV's is printed), cv_mean equals
                                     the tight LassoCV's mse_path_.mean(
                                     axis=1) (relative 1e-6) down to 10
                                     lambdas past the chosen one (the
                                     largest difference beyond is printed),
                                     coefficients and intercept equal the
                                     tight coef_ and intercept_ to 1e-6

    {"solver": "sklearn"} (the default) against scikit-learn at its
    defaults, step for step:
      tuner.lasso(x, y, lambda)      coefficients and intercept equal
                                     Lasso(alpha=lambda) to 1e-6 at several
                                     lambdas of the grid, and the sweep
                                     count equals its n_iter_ (within one
                                     at lambda_max, a rounding knife edge)
      tuner.lasso_cv(x, y)           the grid equals LassoCV(cv=5).alphas_
                                     (relative 1e-12), the chosen lambda
                                     equals alpha_, cv_mean equals
                                     mse_path_.mean(axis=1) (relative 1e-8),
                                     coefficients and intercept equal coef_
                                     and intercept_ to 1e-6
    With standardize, scikit-learn sees StandardScaler().fit_transform(x)
    and its coefficients are divided by the scaler's scale_ (tuner reports
    coefficients in the units of x).  Also LassoCV(cv=3) against
    {"folds": 3}, and an explicit grid.  Prints, per case, how far the
    default LassoCV's coefficients are from the exact optimum.

    Connects with the PG* environment variables (psycopg2) and creates the
    extension if it is missing.  Exit status 1 on any failure; the last line
    is "N passed, N failed".
"""
import json
import sys
import warnings

import numpy as np
import psycopg2
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Lasso, LassoCV
from sklearn.preprocessing import StandardScaler

warnings.filterwarnings("ignore", category=ConvergenceWarning)

ATOL = 1e-6
TIGHT = dict(tol=1e-12, max_iter=1000000)
passed = 0
failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL: %s" % what, flush=True)


def pg_array(a):
    """A float8[] literal of a numpy array (1-D or 2-D), exact digits."""
    if a.ndim == 1:
        return "{" + ",".join(repr(float(v)) for v in a) + "}"
    return "{" + ",".join(pg_array(r) for r in a) + "}"


def make_data(rng, n, p, constant_column):
    """Columns with different scales and offsets, 5 true effects + noise."""
    scale = rng.uniform(0.1, 10.0, p)
    offset = rng.uniform(-20.0, 20.0, p)
    x = rng.standard_normal((n, p)) * scale + offset
    if constant_column:
        x[:, p - 1] = 3.25
    beta = np.zeros(p)
    k = min(5, p - 1)
    beta[:k] = rng.uniform(0.5, 2.0, k) * rng.choice([-1.0, 1.0], k) / scale[:k]
    y = x @ beta + rng.standard_normal(n) * 0.5 + 7.0
    return x, y


def sklearn_view(x, standardize):
    """What scikit-learn is given, and how to map its coefficients back."""
    if not standardize:
        return x, np.ones(x.shape[1])
    scaler = StandardScaler().fit(x)
    return scaler.transform(x), scaler.scale_


def kkt_violation(x, y, coef, b0, lam):
    """Largest violation of the KKT conditions, relative to lambda."""
    n = x.shape[0]
    r = y - x @ coef - b0
    g = x.T @ r / n
    act = coef != 0
    worst = abs(float(np.sum(r))) / n / max(lam, 1e-300)
    if np.any(act):
        worst = max(worst, float(np.max(np.abs(g[act] - lam * np.sign(coef[act])))) / lam)
    if np.any(~act):
        worst = max(worst, float(np.max(np.abs(g[~act]) - lam)) / lam)
    return worst


def compare_case(cur, name, x, y, standardize, folds=5, solver="fast"):
    fast = solver == "fast"
    opts = {"standardize": True} if standardize else {}
    if folds != 5:
        opts["folds"] = folds
    if fast:
        opts["solver"] = "fast"
    name = "%s %s" % (name, solver)
    xs, scale = sklearn_view(x, standardize)
    ref = LassoCV(cv=folds).fit(xs, y)
    exact = LassoCV(cv=folds, **TIGHT).fit(xs, y) if fast else ref
    cur.execute("SELECT tuner.lasso_cv(%s::float8[], %s::float8[], %s::jsonb)",
                (pg_array(x), pg_array(y), json.dumps(opts)))
    got = cur.fetchone()[0]
    lambdas = np.array(got["lambdas"])
    check(lambdas.shape == ref.alphas_.shape and
          np.allclose(lambdas, ref.alphas_, rtol=1e-12, atol=0),
          "%s: lasso_cv grid differs from LassoCV.alphas_" % name)
    check(got["lambda"] == float(exact.alpha_) or
          abs(got["lambda"] - exact.alpha_) <= 1e-12 * exact.alpha_,
          "%s: lasso_cv lambda %r, LassoCV alpha_ %r (index %d vs %d)"
          % (name, got["lambda"], exact.alpha_,
             int(np.argmin(np.abs(lambdas - got["lambda"]))),
             int(np.argmin(np.abs(exact.alphas_ - exact.alpha_)))))
    mse = exact.mse_path_.mean(axis=1)
    rel = np.abs(np.array(got["cv_mean"]) - mse) / mse
    best = int(np.argmin(np.abs(lambdas - got["lambda"])))
    upto = best + 11 if fast else len(rel)
    worst = float(np.max(rel[:upto]))
    check(worst <= (1e-6 if fast else 1e-8),
          "%s: cv_mean differs from mse_path_ by %.3g (relative)" % (name, worst))
    if fast:
        same = abs(got["lambda"] - ref.alpha_) <= 1e-12 * ref.alpha_
        print("  %s: lambda index %d, default LassoCV's %d (%s); cv_mean vs tight "
              "LassoCV beyond index %d: %.2g (relative)"
              % (name, best, int(np.argmin(np.abs(lambdas - ref.alpha_))),
                 "same" if same else "DIFFERENT", upto - 1,
                 float(np.max(rel[upto:])) if upto < len(rel) else 0.0))
    coef = np.array(got["coefficients"])
    if fast:
        # the coefficients at the chosen lambda, exactly
        exact_fit = Lasso(alpha=float(exact.alpha_), **TIGHT).fit(xs, y)
        ref_coef = exact_fit.coef_ / scale
        ref_b0 = exact_fit.intercept_
        print("  %s: default LassoCV coef_ is %.2g from the exact optimum, tuner %.2g"
              % (name, float(np.max(np.abs(ref.coef_ / scale - ref_coef))),
                 float(np.max(np.abs(coef - ref_coef)))))
    else:
        ref_coef = ref.coef_ / scale
        ref_b0 = ref.intercept_
    diff = float(np.max(np.abs(coef - ref_coef)))
    check(diff <= ATOL, "%s: lasso_cv coefficients differ by %.3g" % (name, diff))
    if standardize:
        ref_b0 = ref_b0 - float(np.sum(ref_coef * ref_scaler_mean(x)))
    check(abs(got["intercept"] - ref_b0) <= ATOL * max(1.0, abs(ref_b0)),
          "%s: lasso_cv intercept %r vs %r" % (name, got["intercept"], ref_b0))

    # single fits along the grid
    for k in (0, 5, len(ref.alphas_) // 2, len(ref.alphas_) - 1):
        alpha = float(ref.alphas_[k])
        one = Lasso(alpha=alpha, **(TIGHT if fast else {})).fit(xs, y)
        cur.execute("SELECT tuner.lasso(%s::float8[], %s::float8[], %s, %s::jsonb)",
                    (pg_array(x), pg_array(y), alpha,
                     json.dumps({k2: v for k2, v in opts.items() if k2 != "folds"})))
        fit = cur.fetchone()[0]
        c = np.array(fit["coefficients"])
        d = float(np.max(np.abs(c - one.coef_ / scale)))
        check(d <= ATOL, "%s: lasso at lambda[%d] = %.4g differs by %.3g"
              % (name, k, alpha, d))
        b0 = one.intercept_
        if standardize:
            b0 = one.intercept_ - float(np.sum(one.coef_ * ref_scaler_mean(x) / scale))
        check(abs(fit["intercept"] - b0) <= ATOL * max(1.0, abs(b0)),
              "%s: lasso intercept at lambda[%d]: %r vs %r"
              % (name, k, fit["intercept"], b0))
        if fast:
            # the KKT conditions in the units scikit-learn sees
            b0_xs = fit["intercept"]
            if standardize:
                b0_xs += float(np.sum(c * ref_scaler_mean(x)))
            v = kkt_violation(xs, y, c * scale, b0_xs, alpha)
            check(fit["converged"] and v <= 1e-9,
                  "%s: lasso at lambda[%d]: KKT violated by %.3g (relative), converged %r"
                  % (name, k, v, fit["converged"]))
        else:
            # lambda[0] is lambda_max to the last bit: whether the top
            # feature gets a coefficient of 1e-17 there is decided by
            # rounding (and scikit-learn's StandardScaler rounds
            # differently), so its sweep count may differ by one;
            # everywhere else it must be equal.
            check(fit["n_iter"] == one.n_iter_ or (k == 0 and abs(fit["n_iter"] - one.n_iter_) <= 1),
                  "%s: lasso at lambda[%d]: %d sweeps, scikit-learn %d"
                  % (name, k, fit["n_iter"], one.n_iter_))


def ref_scaler_mean(x):
    return StandardScaler().fit(x).mean_


def main():
    conn = psycopg2.connect("")
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("CREATE EXTENSION IF NOT EXISTS tuner")

    shapes = [(60, 8), (40, 100), (50, 50), (12, 3), (300, 200), (100, 400)]
    for seed, (n, p) in enumerate(shapes):
        rng = np.random.default_rng(1000 + seed)
        x, y = make_data(rng, n, p, constant_column=(seed % 2 == 0))
        for standardize in (False, True):
            for solver in ("fast", "sklearn"):
                compare_case(cur, "n=%d p=%d seed=%d std=%s" % (n, p, seed, standardize),
                             x, y, standardize, solver=solver)
    # three folds, uneven fold sizes (n % 3 != 0)
    rng = np.random.default_rng(7)
    x, y = make_data(rng, 37, 6, constant_column=False)
    for solver in ("fast", "sklearn"):
        compare_case(cur, "n=37 p=6 folds=3", x, y, False, folds=3, solver=solver)

    # an explicit grid: sorted descending, the same choice as LassoCV(alphas=)
    grid = [0.5, 0.001, 0.05, 0.01, 0.2]
    ref = LassoCV(cv=5, alphas=grid).fit(x, y)
    cur.execute("SELECT tuner.lasso_cv(%s::float8[], %s::float8[], %s::jsonb)",
                (pg_array(x), pg_array(y), json.dumps({"lambdas": grid})))
    got = cur.fetchone()[0]
    check(got["lambdas"] == sorted(grid, reverse=True),
          "explicit grid not sorted descending: %r" % got["lambdas"])
    check(got["lambda"] == ref.alpha_,
          "explicit grid: lambda %r, LassoCV alpha_ %r" % (got["lambda"], ref.alpha_))
    d = float(np.max(np.abs(np.array(got["coefficients"]) - ref.coef_)))
    check(d <= ATOL, "explicit grid: coefficients differ by %.3g" % d)

    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
