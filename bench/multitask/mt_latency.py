"""
mt_latency.py
    Multi-task latency measurements:
      - suggest_next of a warm ICM study with n completed trials, T tasks
        (the objective and T - 1 auxiliary metrics) and d float parameters,
        next to a warm single-task GP-EI study on the same points;
      - tuner.icm_fit through the Kronecker path against the full
        nT x nT matrix ({"force_full": true}) on fully observed y;
      - the same two paths inside suggest_next (cold, no stored fit): a
        study whose trials reported every auxiliary metric (Kronecker)
        against the same study with one auxiliary value removed (full).

    The history is loaded with bench/loader.py (trials inserted directly,
    see there), extended here with the auxiliary metrics: they are declared
    with tuner.add_metric and their observations inserted for the same
    trials before the study's first model suggestion.
"""
import json
import time

import numpy as np

import loader
from latency import backend_cpu_ns, pg_array, smooth_objective, summarize


def task_functions(d, T, seed):
    """T smooth functions on the unit cube: the objective (bench/latency.py's
    smooth random function) and T - 1 auxiliary ones, each half the
    objective and half a function of its own, so the tasks are correlated
    (about 0.7) as in a real multi-task study."""
    f0 = smooth_objective(d, seed)
    others = [smooth_objective(d, seed + 1000 * (k + 1)) for k in range(T - 1)]

    def aux(g):
        return lambda X: 0.5 * f0(X) + 0.5 * g(X)
    return [f0] + [aux(g) for g in others]


def clustered_task_functions(d, T, seed):
    """T smooth functions on the unit cube with known clusters: T - 1
    components, component k a smooth random function (bench/latency.py's)
    of its own block of parameters, consecutive blocks sharing one
    parameter, the last parameter in no block; the objective is their sum.
    Returns (functions, blocks as lists of column indices)."""
    k = T - 1
    total = d - 1 + k - 1                        # block sizes summed (k - 1 shared parameters)
    sizes = [total // k + (1 if i < total % k else 0) for i in range(k)]   # d = 10, T = 4: 4, 4, 3
    blocks, start = [], 0
    for sz in sizes:
        blocks.append(list(range(start, start + sz)))
        start += sz - 1
    gs = [smooth_objective(len(b), seed + 1000 * (i + 1)) for i, b in enumerate(blocks)]

    def comp(g, b):
        return lambda X: g(np.atleast_2d(X)[:, b])
    comps = [comp(g, b) for g, b in zip(gs, blocks)]
    return [lambda X: sum(c(X) for c in comps)] + comps, blocks


def warm_model(cur, study):
    """Give the study the model row(s) of a previous fit, as after its first
    model-based suggestion (bench/loader.py does the same for the GP): one
    committed suggest_next, its model rows (one, or one per cluster under
    clustered-icm) detached from its trial, the trial deleted.  Returns the
    first model row (jsonb of every column)."""
    cur.execute("SELECT tuner.suggest_next(%s)", (study,))
    trial = cur.fetchone()[0]["trial"]
    cur.execute("""UPDATE tuner.model m SET trial_id = NULL WHERE trial_id = %s
                   RETURNING row_to_json(m)""", (trial,))
    rows = cur.fetchall()
    if len(rows) < 1:
        raise RuntimeError("the warm-up suggestion of %s stored no model row" % study)
    if len(rows) > 1 and any(r[0]["kind"] != "cluster" for r in rows):
        raise RuntimeError("the warm-up suggestion of %s stored %d model rows, expected 1"
                           % (study, len(rows)))
    cur.execute("DELETE FROM tuner.trial WHERE id = %s", (trial,))
    return dict(rows[0][0], rows=len(rows))


def load_multitask_history(conn, d, n, X, fs, algorithm="icm", options=None, warm=True,
                           n_initial=5, seed=1, clusters=None, missing=None):
    """
    A study of d float parameters in [0, 1] with n complete trials at the
    rows of X: objective fs[0](X), and auxiliary metrics aux1..aux{T-1}
    with values fs[k](X), declared with tuner.add_metric; algorithm set with
    tuner.set_algorithm; clusters (lists of column indices, one per
    auxiliary metric) are set with tuner.set_cluster before.  missing, a
    (trial number, metric) pair, is left out (a complete trial's
    observations cannot be deleted afterwards).  Returns (name, Y as n x T
    read back, NaN where missing, warm model row).
    """
    X = np.asarray(X, dtype=float)
    name, Xb, y0 = loader.load_history(conn, d, n, X, fs[0], n_initial=n_initial, seed=seed,
                                       warm=False)
    aux = ["aux%d" % k for k in range(1, len(fs))]
    with conn.cursor() as cur:
        for k, m in enumerate(aux, start=1):
            cur.execute("SELECT tuner.add_metric(%s, %s, 'auxiliary')", (name, m))
            cur.execute("""
                INSERT INTO tuner.observation (trial_id, metric_id, value)
                SELECT t.id, m.id, (%s::float8[])[t.number]
                  FROM tuner.study s
                  JOIN tuner.trial t ON t.study_id = s.id
                  JOIN tuner.metric m ON m.study_id = s.id AND m.name = %s
                 WHERE s.name = %s AND (t.number, m.name) IS DISTINCT FROM (%s, %s)""",
                        ([float(v) for v in fs[k](Xb)], m, name,
                         missing[0] if missing else None, missing[1] if missing else None))
            expected = n - (missing is not None and missing[1] == m)
            if cur.rowcount != expected:
                raise RuntimeError("inserted %d observations of %s, expected %d" % (cur.rowcount, m, expected))
        for m, b in zip(aux, clusters or []):
            cur.execute("SELECT tuner.set_cluster(%s, %s, %s::text[])", (name, m, ["x%d" % j for j in b]))
        cur.execute("SELECT tuner.set_algorithm(%s, %s, %s::jsonb)",
                    (name, algorithm, json.dumps(options or {})))
        model = warm_model(cur, name) if warm else None
        # Read back what suggest_next will see.
        cur.execute("""SELECT metrics FROM tuner.trials
                        WHERE study = %s AND state = 'complete' ORDER BY number""", (name,))
        rows = [r[0] for r in cur.fetchall()]
    Y = np.array([[float(r.get(m, "nan")) for m in ["value"] + aux] for r in rows])
    if Y.shape != (n, len(fs)) or not np.array_equal(Y[:, 0], y0) or \
            np.isnan(Y).sum() != (missing is not None):
        raise RuntimeError("multi-task history read back differs from what was loaded")
    return name, Xb, Y, model


def timed_suggestions(conn, study, reps):
    """bench/latency.py's tuner_latency (one warm-up, then reps calls of
    BEGIN; SELECT tuner.suggest_next; ROLLBACK, client wall time and the
    backend's CPU time), plus what the call's own model row says before the
    rollback: its kind, fit_ms and kronecker flag."""
    times, cpu, fits = [], [], []
    with conn.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        pid = cur.fetchone()[0]
        for i in range(reps + 1):
            cur.execute("BEGIN")
            c0 = backend_cpu_ns(pid)
            t0 = time.perf_counter()
            cur.execute("SELECT tuner.suggest_next(%s)", (study,))
            r = cur.fetchone()[0]
            t1 = time.perf_counter()
            c1 = backend_cpu_ns(pid)
            cur.execute("""SELECT t.source, m.kind, m.fit_ms, m.kronecker
                             FROM tuner.trial t LEFT JOIN tuner.model m ON m.trial_id = t.id
                            WHERE t.id = %s ORDER BY m.id""", (r["trial"],))
            mrows = cur.fetchall()
            # clustered-icm: one row per cluster, each with the step's fit_ms.
            source, kind, fit_ms, kron = mrows[0]
            if len(mrows) > 1:
                kind = "%s x%d" % (kind, len(mrows))
                kron = all(m[3] for m in mrows)
            cur.execute("ROLLBACK")
            if source != "model":
                raise RuntimeError("suggest_next on %s came from %r, not the model" % (study, source))
            if i > 0:                   # the first call is a warm-up
                times.append(t1 - t0)
                if c0 is not None and c1 is not None:
                    cpu.append((c1 - c0) * 1e-9)
                fits.append({"kind": kind, "fit_ms": fit_ms, "kronecker": kron})
    return times, (cpu if len(cpu) == len(times) else None), fits, r


def other_start(n):
    """Does the warm fit at n complete trials also run another start?  The
    schedule of suggest_alternate_start (src/core/suggest_internal.h):
    every 4th trial below 50, every 16th from there."""
    return n % 4 == 0 if n < 50 else n % 16 == 0


def consecutive_steps(conn, n, d, T, steps, icm_options):
    """A real run of ICM suggestions: the warm ICM study of latency() at n
    trials, then steps committed suggest_next calls in a row, each trial
    reported with the task functions' values before the next call, so
    the fits follow their schedule (a rolled-back call at one n always
    repeats the same step).  Returns each call's wall time and its model
    row's fit_ms, with the n it was made at."""
    rng = np.random.default_rng(d * 7919 + n)
    X = rng.uniform(size=(n, d))
    fs = task_functions(d, T, seed=1000 * d + n)
    name, _, _, _ = load_multitask_history(conn, d, n, X, fs, "icm", icm_options)
    aux = ["aux%d" % k for k in range(1, T)]
    out = []
    with conn.cursor() as cur:
        for i in range(steps):
            t0 = time.perf_counter()
            cur.execute("SELECT tuner.suggest_next(%s)", (name,))
            r = cur.fetchone()[0]
            wall = time.perf_counter() - t0
            cur.execute("""SELECT t.source, m.kind, m.fit_ms FROM tuner.trial t
                             LEFT JOIN tuner.model m ON m.trial_id = t.id WHERE t.id = %s""",
                        (r["trial"],))
            source, kind, fit_ms = cur.fetchone()
            if source != "model" or kind != "icm":
                raise RuntimeError("step %d of %s: source %r, model %r, not an ICM suggestion"
                                   % (i + 1, name, source, kind))
            x = np.array([[r["params"]["x%d" % k] for k in range(d)]])
            metrics = {"value": float(fs[0](x)[0])}
            metrics.update({m: float(f(x)[0]) for m, f in zip(aux, fs[1:])})
            cur.execute("SELECT tuner.report(%s, %s)", (r["trial"], json.dumps(metrics)))
            out.append({"n": n + i, "wall_ms": 1e3 * wall, "fit_ms": fit_ms,
                        "other_start": other_start(n + i)})
    return {"study": name, "steps": out}


def latency(conn, n, d, T, reps, icm_options, log, clustered=True):
    """Warm suggest_next latency: ICM (T tasks) and GP-EI on the same points;
    with clustered, also ICM and clustered-icm (the true clusters set) on a
    history whose components each depend on a block of the parameters
    (clustered_task_functions)."""
    rng = np.random.default_rng(d * 7919 + n)
    X = rng.uniform(size=(n, d))
    fs = task_functions(d, T, seed=1000 * d + n)
    rows = []
    # Baseline: exactly bench/latency.py's warm GP-EI study.
    gp_name, _, _ = loader.load_history(conn, d, n, X, fs[0], warm=True)
    with conn.cursor() as cur:
        cur.execute("""SELECT row_to_json(m) FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
                        WHERE s.name = %s ORDER BY m.id DESC LIMIT 1""", (gp_name,))
        gp_model = cur.fetchone()[0]
    t, cpu, fits, last = timed_suggestions(conn, gp_name, reps)
    rows.append({"method": "gp-ei", "n": n, "d": d, "T": 1, "study": gp_name, "wall": summarize(t),
                 "cpu": summarize(cpu) if cpu else None, "fits": fits, "warm_model": gp_model,
                 "last": last})
    icm_name, _, Y, icm_model = load_multitask_history(conn, d, n, X, fs, "icm", icm_options)
    t, cpu, fits, last = timed_suggestions(conn, icm_name, reps)
    rows.append({"method": "icm", "n": n, "d": d, "T": T, "study": icm_name, "wall": summarize(t),
                 "cpu": summarize(cpu) if cpu else None, "fits": fits, "warm_model": icm_model,
                 "last": last,
                 "task_correlation_data": np.corrcoef(Y.T).tolist()})
    if clustered:
        # clustered-icm with the true clusters, on components that each
        # depend on their own block of parameters; icm on the same history.
        cfs, blocks = clustered_task_functions(d, T, seed=1000 * d + n + 7)
        for alg in ("icm", "clustered-icm"):
            name, _, Y, model = load_multitask_history(conn, d, n, X, cfs, alg, icm_options,
                                                       clusters=blocks if alg == "clustered-icm" else None)
            t, cpu, fits, last = timed_suggestions(conn, name, reps)
            rows.append({"method": "%s (clustered history)" % alg, "n": n, "d": d, "T": T, "study": name,
                         "wall": summarize(t), "cpu": summarize(cpu) if cpu else None, "fits": fits,
                         "warm_model": model, "last": last, "clusters": [["x%d" % j for j in b] for b in blocks],
                         "task_correlation_data": np.corrcoef(Y.T).tolist()})
    return rows


def icm_fit_time(conn, n, d, T, reps, log, seed=1):
    """Wall time of tuner.icm_fit on fully observed y (n x T), through the
    Kronecker path ({}) and the full matrix ({"force_full": true})."""
    rng = np.random.default_rng(seed + n)
    X = rng.uniform(size=(n, d))
    fs = task_functions(d, T, seed=77 + n)
    Y = np.column_stack([f(X) for f in fs])
    xs, ys = pg_array(X), pg_array(Y)
    out = {}
    for label, opts in (("kronecker", {}), ("full", {"force_full": True})):
        opts = dict(opts, seed=seed)
        times, info = [], None
        with conn.cursor() as cur:
            for i in range(reps):
                t0 = time.perf_counter()
                cur.execute("SELECT tuner.icm_fit(%s::float8[], %s::float8[], %s::jsonb)",
                            (xs, ys, json.dumps(opts)))
                m = cur.fetchone()[0]
                times.append(time.perf_counter() - t0)
                info = {"kronecker": m.get("kronecker"), "log_likelihood": m.get("log_likelihood"),
                        "rank": m.get("rank"), "task_correlation": m.get("task_correlation")}
                log("   icm_fit %-9s n=%d T=%d d=%d call %d: %.2f s (kronecker=%s, log-lik %s)"
                    % (label, n, T, d, i + 1, times[-1], info["kronecker"],
                       "%.3f" % info["log_likelihood"] if info["log_likelihood"] is not None else "?"))
        out[label] = {"options": opts, "seconds": times, "median_s": float(np.median(times)), **info}
    return {"n": n, "d": d, "T": T, "paths": out,
            "ratio_full_over_kronecker": out["full"]["median_s"] / out["kronecker"]["median_s"]}


def suggest_fit_paths(conn, n, d, T, reps):
    """Cold suggest_next on an ICM study with every auxiliary value
    (Kronecker path) and on the same study without aux1 of trial 1 (the
    full covariance over the values reported): wall, CPU and the model
    row's fit_ms and kronecker flag of each call."""
    rng = np.random.default_rng(d * 7919 + n)
    X = rng.uniform(size=(n, d))
    fs = task_functions(d, T, seed=1000 * d + n)
    out = {}
    for label in ("complete", "one missing"):
        name, _, _, _ = load_multitask_history(conn, d, n, X, fs, "icm", warm=False,
                                               missing=(1, "aux1") if label == "one missing" else None)
        t, cpu, fits, _ = timed_suggestions(conn, name, reps)
        out[label] = {"study": name, "wall": summarize(t), "cpu": summarize(cpu) if cpu else None,
                      "fits": fits}
    return {"n": n, "d": d, "T": T, "paths": out}
