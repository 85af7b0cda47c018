"""
methods.py
    The optimisers the benchmarks compare: tuner (driven through SQL), random
    search, Optuna TPE and a scikit-learn GP-EI baseline.  Every objective is
    minimised.
"""
import collections
import json
import uuid
import warnings

import numpy as np
from scipy.optimize import minimize
from scipy.stats import norm

warnings.filterwarnings("ignore")

import optuna                                               # noqa: E402
from sklearn.exceptions import ConvergenceWarning           # noqa: E402
from sklearn.gaussian_process import GaussianProcessRegressor  # noqa: E402
from sklearn.gaussian_process.kernels import (ConstantKernel, Matern,  # noqa: E402
                                              WhiteKernel)

optuna.logging.set_verbosity(optuna.logging.ERROR)
warnings.filterwarnings("ignore", category=ConvergenceWarning)
warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)


# --------------------------------------------------------------------------
# scikit-learn GP-EI
# --------------------------------------------------------------------------

class SkGpEi:
    """
    GP-EI with scikit-learn, in the unit cube:
      GPR(ConstantKernel * Matern(nu=2.5, ARD) + WhiteKernel, normalize_y=True,
          n_restarts_optimizer=2),
      EI of the latent f, maximised over n_candidates uniform random points,
      then L-BFGS-B (bounded, batched finite-difference gradient) from the
      best n_refine of them.
    """

    def __init__(self, d, seed, n_restarts=2, n_candidates=2000, n_refine=3,
                 refine_maxiter=50):
        self.d = d
        self.rng = np.random.default_rng(seed)
        self.n_restarts = n_restarts
        self.n_candidates = n_candidates
        self.n_refine = n_refine
        self.refine_maxiter = refine_maxiter

    def _kernel(self):
        d = self.d
        return (ConstantKernel(1.0, (1e-3, 1e3))
                * Matern(length_scale=np.full(d, 0.5),
                         length_scale_bounds=(1e-3, 1e3), nu=2.5)
                + WhiteKernel(1e-4, (1e-6, 1.0)))

    def fit(self, X, y):
        gp = GaussianProcessRegressor(
            kernel=self._kernel(), normalize_y=True,
            n_restarts_optimizer=self.n_restarts,
            random_state=int(self.rng.integers(2 ** 31 - 1)))
        gp.fit(X, y)
        return gp

    @staticmethod
    def _latent(gp, Xs):
        mu, sd = gp.predict(Xs, return_std=True)
        noise = gp.kernel_.k2.noise_level * gp._y_train_std ** 2
        var = np.maximum(sd ** 2 - noise, 1e-18)
        return mu, np.sqrt(var)

    @classmethod
    def _ei(cls, gp, Xs, best):
        mu, sd = cls._latent(gp, Xs)
        imp = best - mu
        z = imp / sd
        return imp * norm.cdf(z) + sd * norm.pdf(z)

    def suggest(self, X, y):
        """Next point in the unit cube given observations X (n x d), y."""
        X = np.asarray(X, dtype=float)
        y = np.asarray(y, dtype=float)
        gp = self.fit(X, y)
        best = float(np.min(y))
        cand = self.rng.uniform(size=(self.n_candidates, self.d))
        ei = self._ei(gp, cand, best)
        order = np.argsort(-ei)[: self.n_refine]
        h = 1e-6
        eye = np.eye(self.d) * h

        def neg_ei(x):
            pts = np.vstack([x[None, :], x[None, :] + eye])
            v = self._ei(gp, pts, best)
            return -v[0], -(v[1:] - v[0]) / h

        best_x, best_v = cand[order[0]], ei[order[0]]
        for i in order:
            res = minimize(neg_ei, cand[i], jac=True, method="L-BFGS-B",
                           bounds=[(0.0, 1.0)] * self.d,
                           options={"maxiter": self.refine_maxiter})
            x = np.clip(res.x, 0.0, 1.0)
            if np.isfinite(res.fun) and -res.fun > best_v:
                best_x, best_v = x, -res.fun
        # Never repeat an observed point.
        if np.min(np.max(np.abs(X - best_x[None, :]), axis=1)) < 1e-9:
            best_x = self.rng.uniform(size=self.d)
        return best_x


# --------------------------------------------------------------------------
# tuner through SQL
# --------------------------------------------------------------------------

def connect():
    """A psycopg2 connection from the PG* environment variables (db.py)."""
    from db import connect as db_connect     # psycopg2 only when needed
    return db_connect()


def unique_name(prefix):
    return "%s_%s" % (prefix, uuid.uuid4().hex[:10])


class TunerStudy:
    """One tuner study, minimising "value", driven through the SQL API."""

    def __init__(self, conn, name, bounds, settings, param_names=None):
        self.conn = conn
        self.name = name
        self.names = param_names or ["x%d" % i for i in range(len(bounds))]
        with conn.cursor() as cur:
            cur.execute("SELECT tuner.create_study(%s, objective => 'value', direction => 'minimize', settings => %s::jsonb)",
                        (name, json.dumps(settings)))
            for pname, (lo, hi) in zip(self.names, bounds):
                cur.execute("SELECT tuner.add_parameter(%s, %s, 'float', low => %s, high => %s)",
                            (name, pname, float(lo), float(hi)))

    def suggest(self):
        """(trial id, native x as a numpy array)."""
        with self.conn.cursor() as cur:
            cur.execute("SELECT tuner.suggest_next(%s)", (self.name,))
            r = cur.fetchone()[0]
        if isinstance(r, str):
            r = json.loads(r)
        return r["trial"], np.array([float(r["params"][n]) for n in self.names])

    def report(self, trial, value):
        with self.conn.cursor() as cur:
            cur.execute("SELECT tuner.report(%s, %s::jsonb)",
                        (trial, json.dumps({"value": float(value)})))


# --------------------------------------------------------------------------
# One optimisation run per method: returns the values in evaluation order.
# --------------------------------------------------------------------------

def run_random(func, seed, budget):
    rng = np.random.default_rng(seed)
    return [func(func.from_unit(rng.uniform(size=func.dim))) for _ in range(budget)]


def run_tpe(func, seed, budget):
    sampler = optuna.samplers.TPESampler(seed=seed)
    study = optuna.create_study(direction="minimize", sampler=sampler)
    values = []

    def objective(trial):
        x = [trial.suggest_float("x%d" % i, lo, hi)
             for i, (lo, hi) in enumerate(func.bounds)]
        v = func(x)
        values.append(v)
        return v

    study.optimize(objective, n_trials=budget)
    return values


def gpei_initial(d):
    """Size of the random initial design of the scikit-learn GP-EI baseline."""
    return min(d + 1, 10)


def run_gpei(func, seed, budget):
    rng = np.random.default_rng(seed)
    opt = SkGpEi(func.dim, seed=seed + 1000)
    n0 = gpei_initial(func.dim)
    X = [rng.uniform(size=func.dim) for _ in range(n0)]
    y = [func(func.from_unit(u)) for u in X]
    while len(y) < budget:
        u = opt.suggest(np.array(X), np.array(y))
        X.append(u)
        y.append(func(func.from_unit(u)))
    return y[:budget]


def run_tuner(func, seed, budget, conn=None, settings=None, workers=1):
    """Values in the order they were reported.  With workers > 1, `workers`
    trials are kept outstanding, as that many concurrent workers would: the
    first `workers` suggestions are made before any report, then the oldest
    outstanding trial is reported and one more suggested (suggest_next
    fantasises the running ones).  Deterministic: one connection, a fixed
    order of calls."""
    own = conn is None
    if own:
        conn = connect()
    try:
        st = dict(settings or {})
        st["seed"] = seed
        study = TunerStudy(conn, unique_name("bench_%s_s%d" % (func.name, seed)),
                           func.bounds, st)
        values = []
        outstanding = collections.deque()
        suggested = 0
        while len(values) < budget:
            while len(outstanding) < max(1, workers) and suggested < budget:
                outstanding.append(study.suggest())
                suggested += 1
            trial, x = outstanding.popleft()
            v = func(x)
            study.report(trial, v)
            values.append(v)
        return values
    finally:
        if own:
            conn.close()


METHODS = {
    "tuner": run_tuner,
    "random": run_random,
    "tpe": run_tpe,
    "gpei": run_gpei,
}
