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


def _declare_aux(cur, study, problem):
    for c in problem.components:
        cur.execute("SELECT tuner.add_metric(%s, %s, 'auxiliary', direction => 'minimize', unit => %s)",
                    (study, c.name, c.unit))


def _setup_gp_ei(cur, study, problem, options):
    """Single-task GP-EI: the study's default algorithm, nothing declared."""


def _setup_icm(cur, study, problem, options):
    """ICM: every component declared auxiliary, then algorithm 'icm'."""
    _declare_aux(cur, study, problem)
    cur.execute("SELECT tuner.set_algorithm(%s, 'icm', %s::jsonb)", (study, json.dumps(options)))


def _setup_random(cur, study, problem, options):
    cur.execute("SELECT tuner.set_algorithm(%s, 'random')", (study,))


def _setup_cicm_given(cur, study, problem, options):
    """clustered-icm with the true clusters: every component declared
    auxiliary, tuner.set_cluster(study, component, its parameter subset from
    problems.py); algorithm 'icm' for the first suggestion, then
    'clustered-icm' (_cicm_after_first).  Work-around: on this build
    suggest_next of a clustered-icm study that has clusters but no complete
    trial fails ("invalid input to suggest: cluster 1 names auxiliary
    metric 1, but there are 0": y_aux is NULL with no complete trial, so
    the core sees 0 auxiliary metrics; see bench/README.md section 4).
    The first suggestion is a design point under either algorithm."""
    _declare_aux(cur, study, problem)
    for c in problem.components:
        cur.execute("SELECT tuner.set_cluster(%s, %s, %s::text[])", (study, c.name, c.params))
    cur.execute("SELECT tuner.set_algorithm(%s, 'icm', %s::jsonb)", (study, json.dumps(options)))


def _cicm_after_first(cur, study, problem, n_complete):
    """Before-suggestion hook of clustered-icm (given): switch to
    clustered-icm once one trial is complete."""
    if n_complete == 1:
        cur.execute("SELECT tuner.set_algorithm(%s, 'clustered-icm', %s::jsonb)",
                    (study, json.dumps(METHODS["clustered-icm (given)"].options)))
    return None


def _setup_cicm_learned(cur, study, problem, options):
    """clustered-icm with learned clusters: every component declared
    auxiliary and algorithm 'clustered-icm', no cluster yet (so until the
    first tuner.learn_clusters the model steps are plain icm, as the README
    documents); _learn_schedule then learns them from the trials."""
    _declare_aux(cur, study, problem)
    cur.execute("SELECT tuner.set_algorithm(%s, 'clustered-icm', %s::jsonb)", (study, json.dumps(options)))


# When clustered-icm (learned) calls tuner.learn_clusters(study) (apply,
# default options): before every suggestion while 4..LEARN_EVERY_UNTIL
# trials are complete (learn_clusters needs >= 4; the clusters matter most
# for the first evaluations), then before every LEARN_EVERY-th.
LEARN_EVERY_UNTIL = 12
LEARN_EVERY = 5


def _learn_schedule(cur, study, problem, n_complete):
    """Before-suggestion hook of clustered-icm (learned); returns the
    learn_clusters rows when it ran, else None."""
    if n_complete < 4:
        return None
    if n_complete > LEARN_EVERY_UNTIL and (n_complete - LEARN_EVERY_UNTIL) % LEARN_EVERY != 0:
        return None
    cur.execute("""SELECT metric, parameters, confidence, weak_parameters
                     FROM tuner.learn_clusters(%s)""", (study,))
    return [{"metric": m, "parameters": p, "confidence": c, "weak": w} for m, p, c, w in cur.fetchall()]


# ---------------------------------------------------------------------------
# Transfer: the source study, "the same system on other hardware".
# ---------------------------------------------------------------------------

SOURCE_TRIALS = 30
SOURCE_ALGORITHM = "gp-ei"


def source_problem(problem):
    """The related problem a transfer source study tunes (problems.py,
    Problem.related): same parameters and components, objective scaled by
    1.7 plus an offset, its optimum shifted by +0.05 in u on every
    parameter, its own noise stream."""
    if problem.direction == "maximize":
        return problem.related(scale=1.7, offset=-2000.0, shift=0.05)
    return problem.related(scale=1.7, offset=15.0, shift=0.05)


def run_source(conn, problem, problem_index, seed, n_initial):
    """The source study of a transfer run: SOURCE_TRIALS trials of
    SOURCE_ALGORITHM on source_problem(problem), seed 1000 + seed, kept
    until drop_source.  Returns its name and its trials."""
    src = source_problem(problem)
    settings = {"seed": 1000 + seed}
    if n_initial is not None:
        settings["n_initial"] = n_initial
    name = unique_name("mt_src_%s_s%d" % (problem.name, seed))
    study = MultiTaskStudy(conn, name, src, settings)
    with conn.cursor() as cur:
        if SOURCE_ALGORITHM != "gp-ei":
            cur.execute("SELECT tuner.set_algorithm(%s, %s)", (name, SOURCE_ALGORITHM))
    rng = np.random.default_rng([104729, problem_index, seed])
    trials = []
    for _ in range(SOURCE_TRIALS):
        trial, x = study.suggest()
        metrics, truth = src.observe(x, rng)
        study.report(trial, metrics)
        trials.append({"x": [float(v) for v in x], "true": truth})
    return name, trials


def _setup_transfer(algorithm):
    def setup(cur, study, problem, options):
        if algorithm == "icm":
            _setup_icm(cur, study, problem, options)
    setup.__doc__ = "%s with transfer_from the source study (settings)" % algorithm
    return setup


class Method:
    """One row of the methods table.

    setup(cur, study, problem, options) runs after the parameters are
    declared; before_suggest(cur, study, problem, n_complete), if any,
    before every suggestion; n_initial None uses the run's (--n-initial),
    'transfer' leaves it out (tuner's default with transfer: 2), an int
    forces it; transfer creates a source study per seed first."""

    def __init__(self, setup, options, description, before_suggest=None, n_initial=None, transfer=False):
        self.setup, self.options, self.description = setup, options, description
        self.before_suggest, self.n_initial, self.transfer = before_suggest, n_initial, transfer


# name -> Method.  The order is the order of the tables; DEFAULT_METHODS
# is what runs without --methods.
METHODS = {
    "gp-ei": Method(_setup_gp_ei, {}, "single-task GP-EI on the objective (the default algorithm)"),
    "icm": Method(_setup_icm, {}, "ICM multi-task GP: objective + every component as auxiliary tasks"),
    "random": Method(_setup_random, {}, "uniform random configurations (set_algorithm 'random')"),
    "clustered-icm (given)": Method(
        _setup_cicm_given, {},
        "clustered-icm, every component's cluster set to its true parameter subset (tuner.set_cluster); "
        "icm for the first (design) suggestion, see _setup_cicm_given", before_suggest=_cicm_after_first),
    "clustered-icm (learned)": Method(
        _setup_cicm_learned, {},
        "clustered-icm, clusters from tuner.learn_clusters(study) before each suggestion at 4..%d complete "
        "trials, then every %d (icm until the first)" % (LEARN_EVERY_UNTIL, LEARN_EVERY),
        before_suggest=_learn_schedule),
    "gp-ei (n_initial 2)": Method(_setup_gp_ei, {}, "gp-ei cold, n_initial 2 (transfer's default)",
                                  n_initial=2),
    "gp-ei + transfer": Method(
        _setup_transfer("gp-ei"), {},
        "gp-ei, transfer_from a %d-trial %s source study of the related problem, n_initial left to tuner (2)"
        % (SOURCE_TRIALS, SOURCE_ALGORITHM), n_initial="transfer", transfer=True),
    "icm (n_initial 2)": Method(_setup_icm, {}, "icm cold, n_initial 2 (transfer's default)", n_initial=2),
    "icm + transfer": Method(
        _setup_transfer("icm"), {},
        "icm, transfer_from the same source study, n_initial left to tuner (2)",
        n_initial="transfer", transfer=True),
}
DEFAULT_METHODS = list(METHODS)

# Hooks for later methods: listed so that --methods names them with a
# reason rather than an unknown-name error.
PLANNED = {}


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


def run_study(conn, problem, problem_index, method, seed, budget, n_initial, keep=False, source=None):
    """One optimisation run; returns the record of every trial and the
    study's models.  source: the name of the transfer source study."""
    m = METHODS[method]
    settings = {"seed": seed}
    if m.n_initial == "transfer":
        pass
    elif m.n_initial is not None:
        settings["n_initial"] = m.n_initial
    elif n_initial is not None:
        settings["n_initial"] = n_initial
    if m.transfer:
        settings["transfer_from"] = [source]
    name = unique_name("mt_%s_%s_s%d" % (problem.name, "".join(ch for ch in method if ch.isalnum()), seed))
    t0 = time.perf_counter()
    study = MultiTaskStudy(conn, name, problem, settings)
    with conn.cursor() as cur:
        m.setup(cur, name, problem, m.options)
    rng = _noise_rng(problem_index, seed)
    trials, learned = [], []
    for i in range(budget):
        if m.before_suggest:
            with conn.cursor() as cur:
                l0 = time.perf_counter()
                got = m.before_suggest(cur, name, problem, i)
                if got is not None:
                    learned.append({"n": i, "ms": (time.perf_counter() - l0) * 1000.0, "clusters": got})
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
        source_of = dict(cur.fetchall())
        for t in trials:
            t["source"] = source_of.get(t["trial"])
        cur.execute("SELECT trial FROM tuner.best(%s)", (name,))
        row = cur.fetchone()
        chosen = next((t["true"] for t in trials if row and t["trial"] == row[0]), None)
        # Every column of the study's model rows, whatever the schema holds.
        cur.execute("""SELECT row_to_json(m) FROM tuner.model m
                         JOIN tuner.study s ON s.id = m.study_id
                        WHERE s.name = %s ORDER BY m.id""", (name,))
        models = [r[0] for r in cur.fetchall()]
        # The clusters the study ended with, and (clustered-icm) what
        # learn_clusters finds from all its trials (not applied).
        cur.execute("SELECT metric, parameters, source, confidence FROM tuner.clusters WHERE study = %s", (name,))
        clusters = [{"metric": a, "parameters": b, "source": c, "confidence": d} for a, b, c, d in cur.fetchall()]
        final_learned = None
        if method.startswith("clustered-icm"):
            cur.execute("""SELECT metric, parameters, confidence, weak_parameters
                             FROM tuner.learn_clusters(%s, apply => false)""", (name,))
            final_learned = [{"metric": a, "parameters": b, "confidence": c, "weak": w}
                             for a, b, c, w in cur.fetchall()]
        if not keep:
            cur.execute("SELECT tuner.drop_study(%s)", (name,))
    return {"problem": problem.name, "method": method, "seed": seed, "study": name,
            "settings": settings, "seconds": seconds, "trials": trials,
            "chosen_true": chosen, "models": models, "clusters": clusters,
            "learned": learned, "final_learned": final_learned}


def cluster_recovery(problem, clusters):
    """Precision and recall of (metric, parameter) pairs of clusters (a list
    of {metric, parameters, weak}) against the problem's true subsets;
    also without the weak members."""
    true = {(c.name, p) for c in problem.components for p in c.params}
    got = {(c["metric"], p) for c in clusters for p in (c["parameters"] or [])}
    strong = {(c["metric"], p) for c in clusters for p in (c["parameters"] or [])
              if p not in (c.get("weak") or [])}

    def pr(g):
        tp = len(g & true)
        return (tp / len(g) if g else float("nan"), tp / len(true))
    return {"precision": pr(got)[0], "recall": pr(got)[1],
            "precision_strong": pr(strong)[0], "recall_strong": pr(strong)[1],
            "pairs": len(got), "strong_pairs": len(strong), "true_pairs": len(true)}


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
