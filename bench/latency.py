"""
latency.py
    Suggestion latency: tuner.suggest_next against scikit-learn GP-EI and
    Optuna TPE on the same history of n completed observations in d float
    parameters (unit cube, a smooth random objective).

    Each tuner call runs inside BEGIN ... ROLLBACK, so every call sees the
    same history; the time is the client-side wall time of the SELECT.
"""
import multiprocessing as mp
import time

import numpy as np
import optuna
from optuna.distributions import FloatDistribution

import methods
from methods import SkGpEi
from quiet import silence_stdout

TARGET_MS = 20.0
TARGET_RATIO = 30.0
HEADLINE = (100, 10)                # (n, d) of the targets


def smooth_objective(d, seed):
    """A smooth random function on the unit cube (sum of 5 random waves)."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=(5, d)) * 3.0 / np.sqrt(d)
    b = rng.uniform(0, 2 * np.pi, size=5)
    a = rng.uniform(0.5, 1.5, size=5)
    c = rng.uniform(size=d)

    def f(X):
        X = np.atleast_2d(X)
        return np.sin(X @ w.T + b) @ a + np.sum((X - c) ** 2, axis=1)
    return f


def summarize(times_s):
    t = np.asarray(times_s) * 1000.0
    return {"median_ms": float(np.median(t)), "p90_ms": float(np.percentile(t, 90)),
            "calls": int(len(t)), "all_ms": [float(v) for v in t]}


# --------------------------------------------------------------------------
# tuner: load a history, then time suggest_next in BEGIN ... ROLLBACK
# --------------------------------------------------------------------------

def tuner_load(conn, d, n, X, f, warm, X_failed=None):
    """
    Create a study with n completed trials whose configurations are the rows
    of X (and failed trials at the rows of X_failed), and return (study,
    X_loaded, y_loaded) as the database holds them.
    """
    import loader
    return loader.load_history(conn, d, n, X, f, warm=warm, X_failed=X_failed)


def failing_points(rng, count, d):
    """count uniform points of the failing region u_1 + u_2 > 1.4 (as
    bench/latency/suggest_core.c's)."""
    out = []
    while len(out) < count:
        u = rng.uniform(size=d)
        if u[0] + u[1] > 1.4:
            out.append(u)
    return np.array(out).reshape(count, d)


def row_data(n, d, failed_percent):
    """The data of the latency row (n, d): its objective f, the n complete
    trials X and, with failed_percent > 0, round(n * failed_percent / 100)
    failed trials in the region u_1 + u_2 > 1.4 (X then outside it), else
    None."""
    f = smooth_objective(d, seed=1000 * d + n)
    rng = np.random.default_rng(d * 7919 + n)
    X = rng.uniform(size=(n, d))
    n_failed = int(round(n * failed_percent / 100.0))
    if n_failed == 0:
        return f, X, None
    # the completed trials ran: none in the failing region
    for i in range(n):
        while X[i, 0] + X[i, 1] > 1.4:
            X[i] = rng.uniform(size=d)
    return f, X, failing_points(rng, n_failed, d)


def backend_cpu_ns(pid):
    """CPU time a local backend has run, in ns (/proc/PID/schedstat), or None."""
    try:
        with open("/proc/%d/schedstat" % pid) as fh:
            return int(fh.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def tuner_latency(conn, study_name, reps):
    """Wall times of suggest_next, and the backend's CPU times when the
    server runs on this machine (robust to other load on it)."""
    times, cpu = [], []
    with conn.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        pid = cur.fetchone()[0]
        for i in range(reps + 1):
            cur.execute("BEGIN")
            c0 = backend_cpu_ns(pid)
            t0 = time.perf_counter()
            cur.execute("SELECT tuner.suggest_next(%s)", (study_name,))
            r = cur.fetchone()[0]
            t1 = time.perf_counter()
            c1 = backend_cpu_ns(pid)
            if i > 0 and c0 is not None and c1 is not None:
                cpu.append((c1 - c0) * 1e-9)
            cur.execute("SELECT source FROM tuner.trial WHERE id = %s", (r["trial"],))
            source = cur.fetchone()[0]
            cur.execute("ROLLBACK")
            if source != "model":
                raise RuntimeError("suggest_next on %s came from %r, not the GP model"
                                   % (study_name, source))
            if i > 0:                   # the first call is a warm-up
                times.append(t1 - t0)
    return times, (cpu if len(cpu) == len(times) else None), r


def pg_array(a):
    """A float8[] literal (text), exact: one string is far cheaper for the
    server to read than psycopg2's ARRAY[...] of n * d constants."""
    a = np.asarray(a, dtype=float)
    if a.ndim == 1:
        return "{" + ",".join(repr(float(v)) for v in a) + "}"
    return "{" + ",".join(pg_array(r) for r in a) + "}"


def core_call(conn, X, y, n_initial=5, seed=1):
    """
    The SQL and the arguments that call the C function behind suggest_next,
    tuner._suggest_point, directly with this history (no plpgsql, no history
    query): what the numerics cost, for comparison with the whole call.
    Arguments are named and typed from the function's current signature;
    any unknown one is passed NULL.  None if the function is not there.
    """
    n, d = X.shape
    with conn.cursor() as cur:
        # The seed suggest_next would use for trial number n + 1 (0.1.0).
        cur.execute("SELECT pg_catalog.hashint8extended(%s, %s)", (n + 1, seed))
        call_seed = cur.fetchone()[0]
    known = {"kinds": [0] * d, "lows": [0.0] * d, "highs": [1.0] * d,
             "log_scales": [False] * d, "n_choices": [0] * d,
             "x_observed": pg_array(X), "y_observed": pg_array(y),
             "x_pending": None, "x_other": None, "n_initial": n_initial,
             "design_index": n, "seed": call_seed, "design_seed": seed,
             "algorithm": "gp-ei", "canonical": True}
    # Each argument's type as the catalog has it (all of them, OUT ones
    # included, when the function has OUT parameters).
    with conn.cursor() as cur:
        cur.execute("""SELECT p.proargnames, p.proargmodes,
                              ARRAY(SELECT pg_catalog.format_type(t, NULL)
                                      FROM unnest(COALESCE(p.proallargtypes,
                                                           p.proargtypes::oid[])) WITH ORDINALITY AS a(t, k)
                                     ORDER BY k)
                         FROM pg_proc p
                        WHERE p.proname = '_suggest_point'
                          AND p.pronamespace = 'tuner'::regnamespace""")
        row = cur.fetchone()
    if row is None:
        return None
    names, modes, types = row
    args, vals = [], []
    for i, name in enumerate(names):
        if modes is not None and modes[i] not in ("i", "b"):
            continue
        args.append("%s => %%s::%s" % (name, types[i]))
        vals.append(known.get(name))
    return "SELECT (r).source FROM (SELECT tuner._suggest_point(%s) AS r) q" % ", ".join(args), vals


def record_latency(conn, study_name, reps):
    """
    Wall times of tuner._suggest, the C entry point behind suggest_next
    since 0.3.0, recomputing the study's next suggestion from its record
    (it reads the trials the record names, but runs no plpgsql planning):
    the numerics' cost, for comparison with the whole call.  None if the
    function is not there (0.2.0 and earlier: see core_call).
    """
    times = []
    with conn.cursor() as cur:
        cur.execute("SELECT to_regprocedure('tuner._suggest(bigint, tuner.suggestion, float8[], float8[])')")
        if cur.fetchone()[0] is None:
            return None
        cur.execute("BEGIN")
        cur.execute("SELECT tuner.suggest_next(%s)", (study_name,))
        trial = cur.fetchone()[0]["trial"]
        sql = ("SELECT (tuner._suggest(t.study_id, g)).source FROM tuner.suggestion g"
               " JOIN tuner.trial t ON t.id = g.trial_id WHERE g.trial_id = %s")
        for i in range(reps + 1):
            t0 = time.perf_counter()
            cur.execute(sql, (trial,))
            source = cur.fetchone()[0]
            t1 = time.perf_counter()
            if i > 0:
                times.append(t1 - t0)
        cur.execute("ROLLBACK")
    if source != "model":
        raise RuntimeError("tuner._suggest on %s came from %r, not the GP model" % (study_name, source))
    return times


def core_latency(conn, X, y, reps, study_name=None):
    if study_name is not None:
        times = record_latency(conn, study_name, reps)
        if times is not None:
            return times, None
    call = core_call(conn, X, y)
    if call is None:
        return None, "tuner._suggest_point not found"
    sql, vals = call
    times = []
    with conn.cursor() as cur:
        try:
            for i in range(reps + 1):
                t0 = time.perf_counter()
                cur.execute(sql, vals)
                source = cur.fetchone()[0]
                t1 = time.perf_counter()
                if i > 0:
                    times.append(t1 - t0)
        except Exception as e:                      # a changed signature
            conn.rollback() if not conn.autocommit else None
            return None, "%s: %s" % (type(e).__name__, str(e).splitlines()[0])
    if source != "model":
        return None, "tuner._suggest_point returned source %r" % source
    return times, None


# --------------------------------------------------------------------------
# Baselines on the same data
# --------------------------------------------------------------------------

def _sklearn_latency(X, y, reps, seed):
    d = X.shape[1]
    times = []
    for i in range(reps):
        opt = SkGpEi(d, seed=seed + i)
        t0 = time.perf_counter()
        opt.suggest(X, y)
        times.append(time.perf_counter() - t0)
    return times


def sklearn_latency(X, y, reps, seed=1):
    """Timed in a child process whose stdout is silenced (see quiet.py)."""
    with mp.get_context("fork").Pool(1, initializer=silence_stdout) as pool:
        return pool.apply(_sklearn_latency, (X, y, reps, seed))


def tpe_latency(X, y, reps, seed=1):
    n, d = X.shape
    dists = {"x%d" % j: FloatDistribution(0.0, 1.0) for j in range(d)}
    study = optuna.create_study(direction="minimize",
                                sampler=optuna.samplers.TPESampler(seed=seed))
    for i in range(n):
        study.add_trial(optuna.trial.create_trial(
            params={"x%d" % j: float(X[i, j]) for j in range(d)},
            distributions=dists, value=float(y[i])))
    times = []
    for i in range(reps + 1):
        t0 = time.perf_counter()
        trial = study.ask(dists)
        t1 = time.perf_counter()
        # A failed trial is ignored by TPE, so the history stays the same.
        study.tell(trial, state=optuna.trial.TrialState.FAIL)
        if i > 0:
            times.append(t1 - t0)
    return times


# --------------------------------------------------------------------------

def run(ns, ds, reps, sk_reps_large, use_tuner, use_sklearn, use_tpe, log, warm=True,
        failed_percent=0):
    results = []
    conn = methods.connect() if use_tuner else None
    core_errors = []
    hdr = ("%3s %4s | %-17s | %-8s | %-8s | %-19s | %-17s | %9s %9s"
           % ("d", "n", "tuner med/p90 ms", "CPU", "C only", "sklearn med/p90 ms", "TPE med/p90 ms",
              "sk/tuner", "TPE/tuner"))
    log("")
    log("== Suggestion latency (ms; tuner: %d calls, BEGIN..ROLLBACK; TPE: %d; "
        "sklearn GP-EI: %d, %d when n >= 200) ==" % (reps, reps, reps, sk_reps_large))
    if use_tuner:
        log("   tuner: %s" % ("warm (the study holds a previous fit, as after any model-based "
                              "suggestion); the fit refines the previous fit, plus one other start "
                              "when n % 4 == 0, from n = 200 on when n % 16 == 0 (src/core/suggest_gp.c)" if warm else
                              "cold (no previous fit stored: 3 starts every call)"))
    if failed_percent > 0:
        log("   with failed trials: each row also times the study with round(n * %g / 100) "
            "failed trials more (region u_1 + u_2 > 1.4, the n completed ones outside it), "
            "'+failed' and its ratio to the row without them" % failed_percent)
    log("   'CPU' = median CPU time of the server backend per suggest_next call "
        "(/proc/PID/schedstat: excludes waiting for a CPU, though a busy sibling vCPU still slows it)")
    log("   'C only' = median of tuner._suggest on the suggestion's record (0.3.0: the numerics with the "
        "record's warm start and its trials read by id, without the plpgsql planning); before 0.3.0, of "
        "tuner._suggest_point on the same arrays without a previous fit")
    log(hdr)
    log("-" * len(hdr))
    pairs = [(d, n) for d in ds for n in ns]
    # Next to the headline (n=100, a multi-start step), the refine-only step after it.
    if warm and use_tuner and (HEADLINE[1], HEADLINE[0]) in pairs:
        pairs.insert(pairs.index((HEADLINE[1], HEADLINE[0])) + 1, (HEADLINE[1], HEADLINE[0] + 1))
    for d, n in pairs:
        if True:
            f, X, X_failed = row_data(n, d, failed_percent)
            n_failed = 0 if X_failed is None else len(X_failed)
            row = {"n": n, "d": d}
            if use_tuner:
                study, X, y = tuner_load(conn, d, n, X, f, warm)
                row["study"] = study
                tt, cpu, last = tuner_latency(conn, study, reps)
                row["tuner"] = summarize(tt)
                if cpu:
                    row["tuner_backend_cpu"] = summarize(cpu)
                row["tuner_last_suggestion"] = last
                if n_failed > 0:
                    fstudy, _, _ = tuner_load(conn, d, n, X, f, warm, X_failed)
                    row["failed"] = n_failed
                    row["study_failed"] = fstudy
                    ft, fcpu, _ = tuner_latency(conn, fstudy, reps)
                    row["tuner_failed"] = summarize(ft)
                    if fcpu:
                        row["tuner_failed_backend_cpu"] = summarize(fcpu)
                ct, err = core_latency(conn, X, y, reps, study)
                if ct is not None:
                    row["tuner_core"] = summarize(ct)
                elif err not in core_errors:
                    core_errors.append(err)
                    log("(C function alone not timed: %s)" % err)
            else:
                y = f(X)
            if use_sklearn:
                r = reps if n < 200 else sk_reps_large
                row["sklearn_gpei"] = summarize(sklearn_latency(X, y, r))
            if use_tpe:
                row["optuna_tpe"] = summarize(tpe_latency(X, y, reps))
            results.append(row)

            def cell(key, w):
                if key not in row:
                    return "%-*s" % (w, "-")
                return "%-*s" % (w, "%8.1f %8.1f" % (row[key]["median_ms"], row[key]["p90_ms"]))

            def ratio(key):
                if key in row and "tuner" in row:
                    return "%8.1fx" % (row[key]["median_ms"] / row["tuner"]["median_ms"])
                return "%9s" % "-"
            core = "%8.1f" % row["tuner_core"]["median_ms"] if "tuner_core" in row else "%8s" % "-"
            cpu = ("%8.1f" % row["tuner_backend_cpu"]["median_ms"]
                   if "tuner_backend_cpu" in row else "%8s" % "-")
            log("%3d %4d | %s | %s | %s | %s | %s | %s %s" % (
                d, n, cell("tuner", 17), cpu, core, cell("sklearn_gpei", 19), cell("optuna_tpe", 17),
                ratio("sklearn_gpei"), ratio("optuna_tpe")))
            if "tuner_failed" in row:
                fcpu = row.get("tuner_failed_backend_cpu")
                log("         +%d failed: tuner med/p90 %8.1f %8.1f ms, CPU %s, "
                    "%.2fx the row without them (CPU %s)" % (
                        n_failed, row["tuner_failed"]["median_ms"], row["tuner_failed"]["p90_ms"],
                        "%.1f" % fcpu["median_ms"] if fcpu else "-",
                        row["tuner_failed"]["median_ms"] / row["tuner"]["median_ms"],
                        "%.2fx" % (fcpu["median_ms"] / row["tuner_backend_cpu"]["median_ms"])
                        if fcpu and "tuner_backend_cpu" in row else "-"))
    if conn is not None:
        conn.close()

    verdicts = []
    head = [r for r in results if (r["n"], r["d"]) == HEADLINE]
    if head and "tuner" in head[0]:
        m = head[0]["tuner"]["median_ms"]
        verdicts.append(("tuner median <= %g ms at n=%d, d=%d" % (TARGET_MS, HEADLINE[0], HEADLINE[1]),
                         m <= TARGET_MS, "%.1f ms" % m))
        if "sklearn_gpei" in head[0]:
            ratio = head[0]["sklearn_gpei"]["median_ms"] / m
            verdicts.append(("sklearn GP-EI / tuner >= %gx at n=%d, d=%d" % (TARGET_RATIO, HEADLINE[0], HEADLINE[1]),
                             ratio >= TARGET_RATIO, "%.1fx" % ratio))
    both = [r for r in results if "tuner" in r and "sklearn_gpei" in r]
    if both:
        worst = min(both, key=lambda r: r["sklearn_gpei"]["median_ms"] / r["tuner"]["median_ms"])
        ratio = worst["sklearn_gpei"]["median_ms"] / worst["tuner"]["median_ms"]
        verdicts.append(("sklearn GP-EI / tuner >= %gx at every (n, d) measured" % TARGET_RATIO,
                         ratio >= TARGET_RATIO,
                         "lowest %.1fx at n=%d, d=%d" % (ratio, worst["n"], worst["d"])))
    if verdicts:
        log("")
        for text, ok, val in verdicts:
            log("%-4s %s (%s)" % ("PASS" if ok else "MISS", text, val))
    elif not use_tuner:
        log("(tuner disabled: no targets checked)")
    return {"rows": results,
            "verdicts": [{"target": t, "pass": ok, "value": v} for t, ok, v in verdicts]}
