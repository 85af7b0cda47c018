"""
tuning.py
    What the preset tuning benchmarks (bench/rocksdb, bench/fastquery,
    bench/ceph) share: a log kept for the results file, studies of a preset
    run through tuner.run, direct runs of the preset's runner as the server
    runs it, a random search of the preset's space with those runs,
    re-measurement of the winners paired against the default, the paired
    measurement's noise, and verdicts on the re-measured ratios.  A benchmark names its objective `key` (a ratio to the default
    configuration, higher is better) and the columns of its tables.
"""
import json
import math
import os
import random
import subprocess
import time

lines = []


def log(s=""):
    print(s, flush=True)
    lines.append(s)


def fmt(v, nd=3):
    return "-" if v is None else ("%.*f" % (nd, v))


def q(conn, sql, args=()):
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall() if cur.description else None


class Table:
    """The per-trial table: trial, source, state, some parameters (short
    name, parameter name[, width, default 8]), some metrics (header, key,
    decimals, width), the ratio, the best ratio so far and the trial's
    seconds."""

    def __init__(self, params, metrics):
        self.params = [(p[0], p[1]) for p in params]
        self.metrics = metrics
        self.f = ("%5s %-7s %-9s" + "".join(" %%%ds" % (p[2] if len(p) > 2 else 8) for p in params) +
                  "".join(" %%%ds" % w for _, _, _, w in metrics) + " %6s %6s %5s")

    def header(self):
        return self.f % tuple(["trial", "source", "state"] + [c for c, _ in self.params] +
                              [h for h, _, _, _ in self.metrics] + ["ratio", "best", "s"])

    def row(self, label, source, state, params, metrics, ratio, best, secs, error=None):
        m = metrics or {}
        row = self.f % ((label, source or "-", state) + tuple(str(params.get(p, "-")) for _, p in self.params)
                        + tuple(fmt(m.get(k), nd) for _, k, nd, _ in self.metrics)
                        + (fmt(ratio), fmt(best), fmt(secs, 0)))
        if error:
            row += "  " + error.strip().splitlines()[-1][:80]
        return row


# ---------------------------------------------------------------------------
# Studies through tuner.run
# ---------------------------------------------------------------------------

TRIAL_SQL = """
SELECT trial, number, state, source, params, value, metrics, error,
       extract(epoch FROM finished_at - started_at)::float8, details
  FROM tuner.trials WHERE study = %s ORDER BY number"""


def trial_rows(conn, study, key):
    out = []
    for (trial, number, state, source, params, value, metrics, error, secs, details) in q(conn, TRIAL_SQL, (study,)):
        out.append({"trial": trial, "number": number, "state": state, "source": source, "params": params,
                    key: value, "metrics": metrics, "error": error,
                    "seconds": secs, "details": details})
    return out


def run_study(conn, name, preset, objective, settings, trials, timeout_s, table, key, algorithm="gp-ei",
              algorithm_options=None):
    """Create study `name` of `preset` (objective None: the preset's), set
    its algorithm (with algorithm_options, e.g. sapphire's explore and
    top_k), run `trials` trials with one background worker, log each trial
    as it completes; the study's best single trial and what it keeps
    (tuner.recommend)."""
    q(conn, "SELECT tuner.drop_study(name) FROM tuner.study WHERE name = %s", (name,))
    q(conn, "SELECT tuner.create_study(%s, %s, preset => %s, settings => %s)",
      (name, objective, preset, json.dumps(settings)))
    q(conn, "SELECT tuner.set_algorithm(%s, %s, %s)", (name, algorithm, json.dumps(algorithm_options or {})))
    # The model takes over once n_initial trials are complete (the default
    # trial counts): the study's setting (a preset sets one), else
    # clamp(d + 1, 4, 10); sapphire's once `explore` trials are complete.
    d, stored, explore = q(conn, """SELECT st.parameters, (s.settings ->> 'n_initial')::int,
                                           (s.settings #>> '{sapphire,explore}')::int
                                      FROM tuner.studies st JOIN tuner.study s ON s.name = st.name
                                     WHERE st.name = %s""", (name,))[0]
    n_init = stored or max(4, min(10, d + 1))
    if algorithm == "sapphire":
        if explore is not None and trials <= explore:
            log("note: sapphire explores %d trials: no model trial in %d (the first is %d)" %
                (explore, trials, explore + 1))
    elif trials <= n_init:
        log("note: n_initial = %d: trials 1..%d are the default and space-filling points, no %s trial "
            "(the first model trial is %d; --n-initial changes it)" % (n_init, trials, algorithm, n_init + 1))
    started = q(conn, "SELECT tuner.run(%s, %s)", (name, trials))[0][0]
    if started != 1:
        raise RuntimeError("tuner.run started %s workers, expected 1" % started)
    log("study %s (seed %s, %s): %d trials" % (name, settings.get("seed"), algorithm, trials))
    log(table.header())
    shown, best, t0 = 0, None, time.time()
    try:
        while True:
            rows = [r for r in trial_rows(conn, name, key) if r["state"] not in ("running", "queued")]
            for r in rows[shown:]:
                if r[key] is not None:
                    best = max(best or r[key], r[key])
                log(table.row(r["number"], r["source"], r["state"], r["params"], r["metrics"],
                              r[key], best, r["seconds"], r["error"]))
            shown = len(rows)
            job = q(conn, """SELECT j.state, j.error FROM tuner.job j JOIN tuner.study s ON s.id = j.study_id
                              WHERE s.name = %s ORDER BY j.id DESC LIMIT 1""", (name,))[0]
            if job[0] != "running":
                if job[0] != "finished" or shown < trials:
                    log("  job %s after %d of %d trials: %s" % (job[0], shown, trials, job[1]))
                break
            if time.time() - t0 > trials * (timeout_s + 60) + 300:
                raise RuntimeError("study %s timed out" % name)
            time.sleep(3)
    except BaseException:
        q(conn, "SELECT tuner.stop(%s)", (name,))
        raise
    rows = trial_rows(conn, name, key)
    b = q(conn, "SELECT trial, value, params FROM tuner.best(%s)", (name,))
    best_row = None
    if b:
        best_row = next(r for r in rows if r["trial"] == b[0][0])
    # What the study keeps: the tried configuration with the best posterior
    # mean (tuner.recommend), less exposed to the winner's curse than best.
    k = q(conn, "SELECT trial, value, predicted, predicted_sd FROM tuner.recommend(%s)", (name,))
    kept_row = None
    if k:
        kept_row = next(r for r in rows if r["trial"] == k[0][0])
    sources = {}
    for r in rows:
        sources[r["source"]] = sources.get(r["source"], 0) + 1
    log("  best: trial %s, ratio %s (single noisy trial); trials by source %s; %.0f s" %
        (best_row and best_row["number"], fmt(best_row and best_row[key]),
         json.dumps(sources), time.time() - t0))
    full_space = None
    if algorithm == "clustered-icm":
        # model steps taken by one GP over every parameter, since every
        # combination of the clusters' proposals had been tried
        full_space = [r[0] for r in q(conn, """SELECT t.number FROM tuner.model m
                                                 JOIN tuner.study s ON s.id = m.study_id
                                                 JOIN tuner.trial t ON t.id = m.trial_id
                                                WHERE s.name = %s AND m.kind = 'gp'
                                                ORDER BY t.number""", (name,))]
        log("  full-space GP steps (every cluster proposal tried): %s" %
            (" ".join(str(n) for n in full_space) or "none"))
    log("  kept (tuner.recommend): trial %s, ratio %s, predicted %s +- %s" %
        (kept_row and kept_row["number"], fmt(kept_row and kept_row[key]),
         fmt(k and k[0][2]), fmt(k and k[0][3])))
    log()
    return {"name": name, "seed": settings.get("seed"), "algorithm": algorithm, "trials": rows,
            "best": best_row and {"number": best_row["number"], "params": best_row["params"], key: best_row[key]},
            "kept": kept_row and
            {"number": kept_row["number"], "params": kept_row["params"], key: kept_row[key],
             "predicted": k[0][2], "predicted_sd": k[0][3]},
            "full_space_steps": full_space,
            "seconds": time.time() - t0}


def reference(conn, name, preset, objective, settings):
    """The space (name, kind, low, high, log_scale, choices per parameter),
    the constraint expressions, the exact runner `_settings` and the trial
    timeout that a study of `preset` with these settings gives its trials
    (from a study created and dropped for that)."""
    q(conn, "SELECT tuner.drop_study(name) FROM tuner.study WHERE name = %s", (name,))
    q(conn, "SELECT tuner.create_study(%s, %s, preset => %s, settings => %s)",
      (name, objective, preset, json.dumps(settings)))
    space = q(conn, """SELECT p.name, p.kind, p.low, p.high, p.log_scale, p.choices FROM tuner.parameter p
                        JOIN tuner.study s ON s.id = p.study_id WHERE s.name = %s ORDER BY p.position""", (name,))
    constraints = [r[0] for r in q(conn, """SELECT c.expression FROM tuner.parameter_constraint c
                                             JOIN tuner.study s ON s.id = c.study_id WHERE s.name = %s
                                            ORDER BY c.expression""", (name,))]
    runner_settings, timeout_s = q(conn, """SELECT r.settings || (s.settings -> 'runner'), (s.settings ->> 'trial_timeout_s')::int
                                              FROM tuner.study s JOIN tuner.runner r ON r.name = s.runner
                                             WHERE s.name = %s""", (name,))[0]
    q(conn, "SELECT tuner.drop_study(%s)", (name,))
    return space, constraints, runner_settings, timeout_s


def server_user(conn, work_dir):
    """The server's OS user when we are root (the direct runs then run as
    it, like the server's trials), with work_dir created and owned by it;
    None otherwise."""
    if os.geteuid() != 0:
        return None
    user = q(conn, "SELECT pg_catalog.pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'template0'")[0][0]
    import pwd
    pw = pwd.getpwnam(user)
    os.makedirs(work_dir, mode=0o700, exist_ok=True)
    os.chown(work_dir, pw.pw_uid, pw.pw_gid)
    return user


# ---------------------------------------------------------------------------
# Direct runs of a runner (random search, re-measurement)
# ---------------------------------------------------------------------------

class Runner:
    """Runs a preset's runner program as the server does (same user,
    settings, cwd); `key` is the ratio read from its metrics."""

    def __init__(self, program, settings, timeout_s, as_user, key, keep_diagnostics=False):
        self.program, self.settings, self.timeout_s, self.key = program, settings, timeout_s, key
        self.keep_diagnostics = keep_diagnostics
        self.prefix = ["runuser", "-u", as_user, "--"] if as_user else []

    def run(self, params):
        cfg = dict(params)
        cfg["_settings"] = self.settings
        t0 = time.time()
        try:
            p = subprocess.run(self.prefix + [self.program], input=json.dumps(cfg), capture_output=True,
                               text=True, timeout=self.timeout_s, cwd="/tmp")
        except subprocess.TimeoutExpired:
            return {"params": params, "ok": False, "error": "timed out after %d s" % self.timeout_s,
                    "seconds": time.time() - t0}
        res = {"params": params, "ok": p.returncode == 0, "seconds": time.time() - t0,
               "exit": p.returncode}
        if p.returncode != 0:
            tail = p.stderr.strip().splitlines()
            res["error"] = "exit %d: %s" % (p.returncode, tail[-1] if tail else "")
            return res
        try:
            out = json.loads(p.stdout)
        except ValueError:
            res.update(ok=False, error="stdout is not JSON: %r" % p.stdout[:200])
            return res
        res["metrics"] = {k: v for k, v in out.items() if not k.startswith("_")}
        res[self.key] = res["metrics"].get(self.key)
        res["effective"] = out.get("_effective")
        diagnostics = out.get("_diagnostics") or {}
        res["trial_dir"] = diagnostics.get("trial_dir")
        if self.keep_diagnostics:
            res["diagnostics"] = diagnostics
        return res


def sample(space, rng, valid=None):
    """One configuration uniform in the space (log-scaled: uniform in log;
    categorical and bool: a uniform choice), drawn again until valid(cfg)
    holds (the space's constraints)."""
    for _ in range(10000):
        cfg = {}
        for name, kind, low, high, log_scale, choices in space:
            if kind == "int" and log_scale:
                v = int(round(math.exp(rng.uniform(math.log(low), math.log(high)))))
                cfg[name] = min(max(v, int(low)), int(high))
            elif kind == "int":
                cfg[name] = rng.randint(int(low), int(high))
            elif kind == "float":
                cfg[name] = (math.exp(rng.uniform(math.log(low), math.log(high))) if log_scale
                             else rng.uniform(low, high))
            elif kind == "categorical":
                cfg[name] = rng.choice(list(choices))
            elif kind == "bool":
                cfg[name] = rng.random() < 0.5
            else:
                raise RuntimeError("parameter %s: kind %s not supported by the random search" % (name, kind))
        if valid is None or valid(cfg):
            return cfg
    raise RuntimeError("no configuration meets the constraints in 10000 draws")


def random_search(runner, space, n, seed, table, key, valid=None):
    rng = random.Random(seed)
    log("random search: %d configurations, uniform in the preset's space (seed %d)" % (n, seed))
    log(table.header())
    rows, best = [], None
    for i in range(n):
        r = runner.run(sample(space, rng, valid))
        if r.get(key) is not None:
            best = max(best or r[key], r[key])
        r["number"] = i + 1
        rows.append(r)
        log(table.row(i + 1, "random", "complete" if r["ok"] else "failed", r["params"],
                      r.get("metrics"), r.get(key), best, r["seconds"], r.get("error")))
    ok = sorted((r[key] for r in rows if r.get(key) is not None), reverse=True)
    bi = max((r for r in rows if r.get(key) is not None), key=lambda r: r[key], default=None)
    marks = [k for k in (10, 20, 30, 60, 100) if k <= n] + ([n] if n not in (10, 20, 30, 60, 100) else [])
    best_at = {k: max((r[key] for r in rows[:k] if r.get(key) is not None), default=None) for k in marks}
    log("  %d complete, %d failed; ratio median %s, top 5 %s" %
        (len(ok), n - len(ok), fmt(ok[len(ok) // 2] if ok else None), ", ".join(fmt(v) for v in ok[:5])))
    log("  best so far after " + ", ".join("%d: %s" % (k, fmt(v)) for k, v in best_at.items()))
    if bi:
        log("  best: #%d, ratio %s, %s" % (bi["number"], fmt(bi[key]), json.dumps(bi["params"])))
    log()
    return {"seed": seed, "runs": rows, "best_at": best_at,
            "best": bi and {"number": bi["number"], "params": bi["params"], key: bi[key]}}


def interval(ratios):
    """Geometric mean and 95% t-interval of the ratios (computed on logs)."""
    logs = [math.log(r) for r in ratios]
    n = len(logs)
    if n == 0:
        return None, None, None
    m = sum(logs) / n
    if n < 2:
        return math.exp(m), None, None
    sd = math.sqrt(sum((x - m) ** 2 for x in logs) / (n - 1))
    try:
        from scipy.stats import t
        tq = t.ppf(0.975, n - 1)
    except ImportError:
        tq = {2: 12.71, 3: 4.30, 4: 3.18, 5: 2.78, 6: 2.57, 7: 2.45, 8: 2.36, 9: 2.31, 10: 2.26}.get(n, 2.2)
    h = tq * sd / math.sqrt(n)
    return math.exp(m), math.exp(m - h), math.exp(m + h)


def finite(v):
    """v when it is a finite number, else None (a runner's NaN, a missing value)."""
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None


def cv(values):
    """Coefficient of variation (sample standard deviation over the mean) of
    the finite values; None below two of them or at mean 0."""
    xs = [v for v in map(finite, values) if v is not None]
    if len(xs) < 2:
        return None
    m = sum(xs) / len(xs)
    if m == 0:
        return None
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) / m


def paired_noise(control, others, key, raw_key, within_key):
    """How noisy the paired measurement is, from the metrics of paired runs:
    `control` are runs of the default configuration against itself,
    `others` every other paired run.  The control's ratios (`key`) with their
    CV across runs; the mean CV of the per-pair ratios within a run
    (`within_key`, the runner's, defined from two pairs on); and the CV of
    the default's raw measurement (`raw_key`) over the control and every
    other run: the drift between runs that pairing is there to cancel."""
    ratios = [v for v in (finite(m.get(key)) for m in control) if v is not None]
    within = [v for v in (finite(m.get(within_key)) for m in control) if v is not None]
    raw = [v for v in (finite(m.get(raw_key)) for m in list(control) + list(others)) if v is not None]
    return {"n": len(ratios), "ratios": ratios, "gmean": interval(ratios)[0], "cv": cv(ratios),
            "n_within": len(within), "within_cv": sum(within) / len(within) if within else None,
            "n_raw": len(raw), "raw_cv": cv(raw)}


def remeasure(runner, candidates, reps, key, detail):
    """candidates: [(label, params, single-trial ratio)]; each run `reps` more
    times, paired against the default, interleaved round by round (the order
    rotates, so a slow period of the machine hits every candidate).
    detail(metrics): what a run's line shows beside its ratio."""
    log("re-measurement: %d paired runs of each candidate, interleaved" % reps)
    runs = {label: [] for label, _, _ in candidates}
    for rep in range(reps):
        k = rep % len(candidates)
        for label, params, _ in candidates[k:] + candidates[:k]:
            r = runner.run(params)
            r["round"] = rep + 1
            runs[label].append(r)
            log("  round %d %-16s ratio %s  (%s)%s" %
                (rep + 1, label, fmt(r.get(key)), detail(r.get("metrics") or {}),
                 "  " + r["error"] if r.get("error") else ""))
    out = []
    log()
    log("%-16s %8s %4s %9s %17s %9s" % ("candidate", "found", "n", "re-meas.", "95% interval", "failed"))
    for label, params, found in candidates:
        ratios = [r[key] for r in runs[label] if r.get(key) is not None]
        mean, lo, hi = interval(ratios)
        out.append({"label": label, "params": params, "found_ratio": found, "n": len(ratios),
                    "mean": mean, "lo": lo, "hi": hi, "ratios": ratios, "runs": runs[label]})
        log("%-16s %8s %4d %9s %17s %9d" % (label, fmt(found), len(ratios), fmt(mean),
                                             "[%s, %s]" % (fmt(lo), fmt(hi)) if lo else "n/a",
                                             len(runs[label]) - len(ratios)))
    log("(geometric mean of the per-run ratios; interval: t on the log ratios; "
        "\"found\" is the single trial that made it the best)")
    log()
    return out


def verdicts(re, target, frac):
    """Per study (candidates labelled "study ..."): >= target, and >= frac
    of the ceiling (the best re-measured configuration, at least 1.0);
    overall PASS if every study reaches the target, or the ceiling is below
    it and every study reaches frac of the ceiling."""
    by = {c["label"]: c for c in re}
    studies = [c for c in re if c["label"].startswith("study")]
    others = [c for c in re if c["label"] != "default" and c["mean"] is not None]
    ceiling = max(others, key=lambda c: c["mean"], default=None)
    rnd = by.get("random best")
    log("verdicts (re-measured ratios)")
    log("  ceiling: best re-measured configuration = %s (%s); re-measured random-search best = %s" %
        (fmt(ceiling and ceiling["mean"]), ceiling and ceiling["label"], fmt(rnd and rnd["mean"])))
    if by.get("default"):
        log("  control: default vs default = %s" % fmt(by["default"]["mean"]))
    # The default is a configuration of the space: the ceiling is at least 1.
    c = max(1.0, ceiling["mean"]) if ceiling else None
    if ceiling and ceiling["mean"] < 1.0:
        log("  no configuration re-measured above the default: ceiling taken as 1.0 (the default)")
    res = []
    for s in studies:
        m = s["mean"]
        a = m is not None and m >= target
        b = m is not None and c is not None and m >= frac * c
        res.append({"label": s["label"], "mean": m, "target": a, "ceiling": b})
        log("  %-10s %s: >= %.2fx %s; >= %.0f%% of ceiling (%s) %s" %
            (s["label"], fmt(m), target, "PASS" if a else "MISS", 100 * frac,
             fmt(c and frac * c), "PASS" if b else "MISS"))
    all_target = bool(res) and all(r["target"] for r in res)
    all_ceiling = bool(res) and all(r["ceiling"] for r in res)
    if all_target:
        overall = "PASS (>= %.2fx in all %d studies)" % (target, len(res))
    elif c is not None and c < target and all_ceiling:
        overall = "PASS (ceiling %s < %.2fx; every study >= %.0f%% of it)" % (fmt(c), target, 100 * frac)
    elif c is not None and c < target:
        overall = "MISS (ceiling %s < %.2fx, but not every study reaches %.0f%% of it)" % (fmt(c), target, 100 * frac)
    else:
        overall = "MISS (ceiling %s >= %.2fx, not reached in every study)" % (fmt(c), target)
    log("  overall: " + overall)
    if ceiling and c < target and ceiling["hi"] is not None and ceiling["hi"] >= target:
        log("  note: the ceiling's 95%% interval [%s, %s] includes %.2fx: these runs do not show that the"
            " ceiling is below the target" % (fmt(ceiling["lo"]), fmt(ceiling["hi"]), target))
    if ceiling and ceiling["hi"] is None:
        log("  note: one re-measurement per candidate gives no interval; the verdicts rest on single noisy runs")
    return {"ceiling": c, "ceiling_label": ceiling and ceiling["label"], "studies": res, "overall": overall}


def write_results(out, path):
    """The results JSON (with the printed lines) at path."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    out["log"] = lines
    with open(path, "w") as fh:
        json.dump(out, fh, indent=1, default=str)
    print("results written to %s" % os.path.relpath(path), flush=True)
