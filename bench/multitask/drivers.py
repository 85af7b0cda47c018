"""
drivers.py
    The optimisation methods of the multi-task benchmark, every one a tuner
    study driven through the SQL API on the same problem, and their scoring.

    METHODS is the table of methods: how each sets up its study before the
    first suggestion.  Every method reports every metric of every trial
    (the objective and all components) with tuner.report, so the studies
    differ only in what the tuner is told to model: undeclared metrics are
    stored with role 'recorded' and not modelled.

    A run is scored by best@k: the NOISELESS objective of the best
    configuration among the first k evaluated (the best noiseless value; the
    noisy observations are what the tuner sees).  Each run also records the
    noiseless value of the trial the study itself would pick (tuner.best,
    by its noisy objective) in the results JSON.
"""
import json
import time

import numpy as np

from methods import TunerStudy, unique_name


def _setup_gp_ei(cur, study, problem, options):
    """Single-task GP-EI: the study's default algorithm, nothing declared."""


def _setup_icm(cur, study, problem, options):
    """ICM: every component declared auxiliary, then algorithm 'icm'."""
    for c in problem.components:
        cur.execute("SELECT tuner.add_metric(%s, %s, 'auxiliary', direction => 'minimize', unit => %s)",
                    (study, c.name, c.unit))
    cur.execute("SELECT tuner.set_algorithm(%s, 'icm', %s::jsonb)", (study, json.dumps(options)))


def _setup_random(cur, study, problem, options):
    cur.execute("SELECT tuner.set_algorithm(%s, 'random')", (study,))


# name -> (setup function, algorithm options, description).  The order is
# the order of the tables.
METHODS = {
    "gp-ei": (_setup_gp_ei, {}, "single-task GP-EI on the objective (the default algorithm)"),
    "icm": (_setup_icm, {}, "ICM multi-task GP: objective + every component as auxiliary tasks"),
    "random": (_setup_random, {}, "uniform random configurations (set_algorithm 'random')"),
}

# Hooks for later methods.  They are listed so that --methods names them
# with a reason rather than an unknown-name error, and are never run until
# an entry in METHODS implements them.
PLANNED = {
    "clustered-icm": "not benchmarked yet: set_algorithm(study, 'clustered-icm') exists (main, \"SQL: "
                     "clustered-icm from the metrics' clusters\"); a setup function must also give "
                     "each component its cluster (tuner.set_cluster from the problem's parameter "
                     "subsets, or tuner.learn_clusters) and be validated before its numbers count",
    "icm-transfer": "not benchmarked yet: needs a finished source study of a related problem "
                    "(settings transfer_from); a setup function must create and run it first",
}


class MultiTaskStudy(TunerStudy):
    """A tuner study of a Problem: its int/float (log-scaled) parameters,
    its objective and direction; reports every metric."""

    def __init__(self, conn, name, problem, settings):
        self.conn, self.name, self.problem = conn, name, problem
        self.names = [p.name for p in problem.params]
        with conn.cursor() as cur:
            cur.execute("SELECT tuner.create_study(%s, objective => %s, direction => %s, settings => %s::jsonb)",
                        (name, problem.objective, problem.direction, json.dumps(settings)))
            for p in problem.params:
                cur.execute("SELECT tuner.add_parameter(%s, %s, %s, low => %s, high => %s, log_scale => %s)",
                            (name, p.name, p.kind, float(p.low), float(p.high), p.log_scale))

    def report(self, trial, metrics):
        with self.conn.cursor() as cur:
            cur.execute("SELECT tuner.report(%s, %s::jsonb)", (trial, json.dumps(metrics)))


def _noise_rng(problem_index, seed):
    """The observation noise of a run: the same stream for every method
    (by evaluation index), so methods differ only in where they evaluate."""
    return np.random.default_rng([7919, problem_index, seed])


def run_study(conn, problem, problem_index, method, seed, budget, n_initial, keep=False):
    """One optimisation run; returns the record of every trial and the study's models."""
    setup, options, _ = METHODS[method]
    settings = {"seed": seed}
    if n_initial is not None:
        settings["n_initial"] = n_initial
    name = unique_name("mt_%s_%s_s%d" % (problem.name, method.replace("-", ""), seed))
    t0 = time.perf_counter()
    study = MultiTaskStudy(conn, name, problem, settings)
    with conn.cursor() as cur:
        setup(cur, name, problem, options)
    rng = _noise_rng(problem_index, seed)
    trials = []
    for _ in range(budget):
        s0 = time.perf_counter()
        trial, x = study.suggest()
        s1 = time.perf_counter()
        metrics, truth = problem.observe(x, rng)
        study.report(trial, metrics)
        trials.append({"trial": trial, "x": [float(v) for v in x], "observed": metrics,
                       "true": truth, "suggest_ms": (s1 - s0) * 1000.0})
    seconds = time.perf_counter() - t0
    with conn.cursor() as cur:
        cur.execute("""SELECT trial, source FROM tuner.trials WHERE study = %s""", (name,))
        source = dict(cur.fetchall())
        for t in trials:
            t["source"] = source.get(t["trial"])
        cur.execute("SELECT trial FROM tuner.best(%s)", (name,))
        row = cur.fetchone()
        chosen = next((t["true"] for t in trials if row and t["trial"] == row[0]), None)
        # Every column of the study's model rows, whatever the schema holds.
        cur.execute("""SELECT row_to_json(m) FROM tuner.model m
                         JOIN tuner.study s ON s.id = m.study_id
                        WHERE s.name = %s ORDER BY m.id""", (name,))
        models = [r[0] for r in cur.fetchall()]
        if not keep:
            cur.execute("SELECT tuner.drop_study(%s)", (name,))
    return {"problem": problem.name, "method": method, "seed": seed, "study": name,
            "settings": settings, "seconds": seconds, "trials": trials,
            "chosen_true": chosen, "models": models}


# ---------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------

def best_curve(problem, run):
    """best@k for k = 1..len: best noiseless objective among the first k."""
    v = np.array([t["true"] for t in run["trials"]])
    return np.maximum.accumulate(v) if problem.direction == "maximize" else np.minimum.accumulate(v)


def quartiles(values):
    q1, med, q3 = np.percentile(values, [25, 50, 75])
    return {"median": float(med), "q1": float(q1), "q3": float(q3)}


def summary(problem, runs, ks):
    """{k: median/q1/q3 over runs of best@k} plus the median curve."""
    curves = np.array([best_curve(problem, r) for r in runs])
    out = {k: quartiles(curves[:, k - 1]) for k in ks if k <= curves.shape[1]}
    out["median_curve"] = [float(v) for v in np.median(curves, axis=0)]
    return out


def first_k_reaching(problem, median_curve, target):
    """Smallest k whose median best@k is at least as good as target, or None."""
    for k, v in enumerate(median_curve, start=1):
        if problem.better(v, target):
            return k
    return None


def model_stats(run):
    """What the study's model rows say: kinds, fit time, last task correlation."""
    ms = run["models"]
    kinds = {}
    for m in ms:
        kinds[m.get("kind", "?")] = kinds.get(m.get("kind", "?"), 0) + 1
    fit = [m["fit_ms"] for m in ms if m.get("fit_ms") is not None]
    last_icm = next((m for m in reversed(ms) if m.get("kind") == "icm"), None)
    return {"kinds": kinds, "fit_ms": fit,
            "last_icm": ({k: last_icm.get(k) for k in ("n", "tasks", "rank", "task_correlation",
                                                       "kronecker", "fit_ms", "log_likelihood")}
                         if last_icm else None)}
