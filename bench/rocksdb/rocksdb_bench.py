#!/usr/bin/python3
"""
rocksdb_bench.py
    The RocksDB tuning benchmark (issue 3): independent GP-EI studies of the
    `rocksdb` preset, run by tuner's background workers, against a long
    random search of the same space measured by running tuner_rocksdb
    directly with the same runner settings; then the best configuration of
    each study, the random search's best and the default are re-measured
    (paired against the default) to undo the winner's curse, and the
    verdicts use the re-measured ratios.  Normally started by
    bench/rocksdb/run.sh (pg_virtualenv); the PG* variables must reach a
    server where the caller may run programs.  See bench/README.md,
    section "3. RocksDB tuning".
"""
import argparse
import datetime
import json
import math
import os
import platform
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))       # bench/: the shared db.py
from db import connect                          # noqa: E402
RESULTS = os.path.join(os.path.dirname(HERE), "results")
# Columns of the per-trial tables (short names, parameter names).
KEY_PARAMS = [("wbs", "write_buffer_size"), ("mwbn", "max_write_buffer_number"),
              ("merge", "min_write_buffer_number_to_merge"),
              ("l0trig", "level0_file_num_compaction_trigger"),
              ("bgc", "max_background_compactions"), ("block", "block_size")]

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


# ---------------------------------------------------------------------------
# Studies through tuner.run
# ---------------------------------------------------------------------------

TRIAL_SQL = """
SELECT trial, number, state, source, params, value, metrics, error,
       extract(epoch FROM finished_at - started_at)::float8, details
  FROM tuner.trials WHERE study = %s ORDER BY number"""


def trial_rows(conn, study):
    out = []
    for (trial, number, state, source, params, value, metrics, error, secs, details) in q(conn, TRIAL_SQL, (study,)):
        out.append({"trial": trial, "number": number, "state": state, "source": source, "params": params,
                    "ratio_to_default": value, "metrics": metrics, "error": error,
                    "seconds": secs, "details": details})
    return out


def table_header():
    cols = ["trial", "source", "state"] + [c for c, _ in KEY_PARAMS] + ["ops/s", "dflt ops/s", "ratio", "best", "s"]
    f = "%5s %-7s %-9s" + " %8s" * len(KEY_PARAMS) + " %8s %10s %6s %6s %5s"
    return f, f % tuple(cols)


def table_row(f, label, source, state, params, metrics, ratio, best, secs, error=None):
    m = metrics or {}
    row = f % ((label, source or "-", state) + tuple(str(params.get(p, "-")) for _, p in KEY_PARAMS)
               + (fmt(m.get("ops_per_sec"), 0), fmt(m.get("ops_per_sec_default"), 0),
                  fmt(ratio), fmt(best), fmt(secs, 0)))
    if error:
        row += "  " + error.strip().splitlines()[-1][:80]
    return row


def run_study(conn, name, seed, trials, runner, timeout_s, n_initial, algorithm="gp-ei", noise_sd=None):
    q(conn, "SELECT tuner.drop_study(name) FROM tuner.study WHERE name = %s", (name,))
    settings = {"seed": seed, "runner": runner}
    if n_initial:
        settings["n_initial"] = n_initial
    if noise_sd:
        settings["noise_sd"] = noise_sd
    q(conn, "SELECT tuner.create_study(%s, preset => 'rocksdb', settings => %s)", (name, json.dumps(settings)))
    # clustered-icm uses the preset's clusters (tuner.clusters)
    q(conn, "SELECT tuner.set_algorithm(%s, %s)", (name, algorithm))
    # The model takes over once n_initial trials are complete (the default
    # trial counts): the study's setting (the preset sets one), else
    # clamp(d + 1, 4, 10).
    d, stored = q(conn, """SELECT st.parameters, (s.settings ->> 'n_initial')::int
                             FROM tuner.studies st JOIN tuner.study s ON s.name = st.name
                            WHERE st.name = %s""", (name,))[0]
    n_init = stored or max(4, min(10, d + 1))
    if trials <= n_init:
        log("note: n_initial = %d: trials 1..%d are the default and space-filling points, no GP-EI trial "
            "(the first model trial is %d; --n-initial changes it)" % (n_init, trials, n_init + 1))
    started = q(conn, "SELECT tuner.run(%s, %s)", (name, trials))[0][0]
    if started != 1:
        raise RuntimeError("tuner.run started %s workers, expected 1" % started)
    log("study %s (seed %d, %s): %d trials" % (name, seed, algorithm, trials))
    f, head = table_header()
    log(head)
    shown, best, t0 = 0, None, time.time()
    try:
        while True:
            rows = [r for r in trial_rows(conn, name) if r["state"] not in ("running", "queued")]
            for r in rows[shown:]:
                if r["ratio_to_default"] is not None:
                    best = max(best or r["ratio_to_default"], r["ratio_to_default"])
                log(table_row(f, r["number"], r["source"], r["state"], r["params"], r["metrics"],
                              r["ratio_to_default"], best, r["seconds"], r["error"]))
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
    rows = trial_rows(conn, name)
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
        (best_row and best_row["number"], fmt(best_row and best_row["ratio_to_default"]),
         json.dumps(sources), time.time() - t0))
    log("  kept (tuner.recommend): trial %s, ratio %s, predicted %s +- %s" %
        (kept_row and kept_row["number"], fmt(kept_row and kept_row["ratio_to_default"]),
         fmt(k and k[0][2]), fmt(k and k[0][3])))
    log()
    return {"name": name, "seed": seed, "algorithm": algorithm, "trials": rows, "best": best_row and
            {"number": best_row["number"], "params": best_row["params"],
             "ratio_to_default": best_row["ratio_to_default"]},
            "kept": kept_row and
            {"number": kept_row["number"], "params": kept_row["params"],
             "ratio_to_default": kept_row["ratio_to_default"], "predicted": k[0][2],
             "predicted_sd": k[0][3]},
            "seconds": time.time() - t0}


def earlier_candidates(path, top):
    """Ceiling candidates from an earlier run's results: its random search's
    `top` best single trials and its best re-measured configuration, to be
    re-measured again in this run (the runner does not depend on tuner's
    code, so an earlier random search still says where the ceiling is)."""
    with open(path) as fh:
        old = json.load(fh)
    out = []
    runs = [r for r in (old.get("random") or {}).get("runs", []) if r.get("ratio_to_default") is not None]
    for r in sorted(runs, key=lambda r: -r["ratio_to_default"])[:top]:
        out.append(("prev rnd #%d" % r["number"], r["params"], r["ratio_to_default"]))
    rem = [c for c in old.get("remeasure", []) if c["label"] != "default" and c.get("mean") is not None]
    if rem:
        c = max(rem, key=lambda c: c["mean"])
        out.append(("prev " + c["label"].replace("study ", ""), c["params"], c["mean"]))
    return out


# ---------------------------------------------------------------------------
# Direct runs of tuner_rocksdb (random search, re-measurement)
# ---------------------------------------------------------------------------

class Runner:
    """Runs tuner_rocksdb as the server does (same user, settings, cwd)."""

    def __init__(self, program, settings, timeout_s, as_user):
        self.program, self.settings, self.timeout_s = program, settings, timeout_s
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
        res["ratio_to_default"] = res["metrics"].get("ratio_to_default")
        res["effective"] = out.get("_effective")
        res["trial_dir"] = (out.get("_diagnostics") or {}).get("trial_dir")
        return res


def sample(space, rng):
    """One configuration uniform in the space (log-scaled: uniform in log)."""
    cfg = {}
    for name, kind, low, high, log_scale in space:
        if kind == "int" and log_scale:
            v = int(round(math.exp(rng.uniform(math.log(low), math.log(high)))))
            cfg[name] = min(max(v, int(low)), int(high))
        elif kind == "int":
            cfg[name] = rng.randint(int(low), int(high))
        elif kind == "float":
            cfg[name] = (math.exp(rng.uniform(math.log(low), math.log(high))) if log_scale
                         else rng.uniform(low, high))
        else:
            raise RuntimeError("parameter %s: kind %s not supported by the random search" % (name, kind))
    return cfg


def random_search(runner, space, n, seed):
    rng = random.Random(seed)
    log("random search: %d configurations, uniform in the preset's space (seed %d)" % (n, seed))
    f, head = table_header()
    log(head)
    rows, best = [], None
    for i in range(n):
        r = runner.run(sample(space, rng))
        if r.get("ratio_to_default") is not None:
            best = max(best or r["ratio_to_default"], r["ratio_to_default"])
        r["number"] = i + 1
        rows.append(r)
        log(table_row(f, i + 1, "random", "complete" if r["ok"] else "failed", r["params"],
                      r.get("metrics"), r.get("ratio_to_default"), best, r["seconds"], r.get("error")))
    ok = sorted((r["ratio_to_default"] for r in rows if r.get("ratio_to_default") is not None), reverse=True)
    bi = max((r for r in rows if r.get("ratio_to_default") is not None),
             key=lambda r: r["ratio_to_default"], default=None)
    marks = [k for k in (10, 20, 30, 60, 100) if k <= n] + ([n] if n not in (10, 20, 30, 60, 100) else [])
    best_at = {k: max((r["ratio_to_default"] for r in rows[:k] if r.get("ratio_to_default") is not None),
                      default=None) for k in marks}
    log("  %d complete, %d failed; ratio median %s, top 5 %s" %
        (len(ok), n - len(ok), fmt(ok[len(ok) // 2] if ok else None), ", ".join(fmt(v) for v in ok[:5])))
    log("  best so far after " + ", ".join("%d: %s" % (k, fmt(v)) for k, v in best_at.items()))
    if bi:
        log("  best: #%d, ratio %s, %s" % (bi["number"], fmt(bi["ratio_to_default"]), json.dumps(bi["params"])))
    log()
    return {"seed": seed, "runs": rows, "best_at": best_at,
            "best": bi and {"number": bi["number"], "params": bi["params"],
                            "ratio_to_default": bi["ratio_to_default"]}}


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


def remeasure(runner, candidates, reps):
    """candidates: [(label, params, single-trial ratio)]; each run `reps` more
    times, paired against the default, interleaved round by round (the order
    rotates, so a slow period of the machine hits every candidate)."""
    log("re-measurement: %d paired runs of each candidate, interleaved" % reps)
    runs = {label: [] for label, _, _ in candidates}
    for rep in range(reps):
        k = rep % len(candidates)
        for label, params, _ in candidates[k:] + candidates[:k]:
            r = runner.run(params)
            r["round"] = rep + 1
            runs[label].append(r)
            log("  round %d %-16s ratio %s  (%s ops/s vs default %s)%s" %
                (rep + 1, label, fmt(r.get("ratio_to_default")), fmt((r.get("metrics") or {}).get("ops_per_sec"), 0),
                 fmt((r.get("metrics") or {}).get("ops_per_sec_default"), 0),
                 "  " + r["error"] if r.get("error") else ""))
    out = []
    log()
    log("%-16s %8s %4s %9s %17s %9s" % ("candidate", "found", "n", "re-meas.", "95% interval", "failed"))
    for label, params, found in candidates:
        ratios = [r["ratio_to_default"] for r in runs[label] if r.get("ratio_to_default") is not None]
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--studies", type=int, help="studies per algorithm (default 3; seeds seed-base..)")
    ap.add_argument("--algorithms", default="gp-ei",
                    help="comma-separated tuner algorithms, each run --studies times (default gp-ei; "
                         "e.g. gp-ei,clustered-icm for issue 4's comparison)")
    ap.add_argument("--trials", type=int, help="trials per study (default 10)")
    ap.add_argument("--random", type=int, help="random-search configurations (default 60)")
    ap.add_argument("--duration", type=int, help="seconds per db_bench run (default 30)")
    ap.add_argument("--remeasure", type=int, help="extra paired runs per candidate (default 5)")
    ap.add_argument("--num-keys", type=int, help="keys of the pre-filled DB (default: the runner's, 2000000)")
    ap.add_argument("--direct-io", choices=["true", "false"], default="true")
    ap.add_argument("--n-initial", type=int,
                    help="study setting n_initial (default: not set, the preset's 3)")
    ap.add_argument("--seed-base", type=int, default=1, help="study seeds (default 1, 2, 3)")
    ap.add_argument("--random-seed", type=int, default=0)
    ap.add_argument("--work-dir", default="/tmp/tuner_bench_rocksdb",
                    help="runner work dir shared by all runs (default /tmp/tuner_bench_rocksdb)")
    ap.add_argument("--keep", choices=["recommend", "best"], default="recommend",
                    help="the configuration a study keeps (and is judged by): tuner.recommend (default; the "
                         "best single trial is re-measured too when it differs) or tuner.best")
    ap.add_argument("--ceiling-from", action="append", metavar="RESULTS_JSON",
                    help="re-measure an earlier run's random-search top trials and its best re-measured "
                         "configuration as ceiling candidates (repeatable)")
    ap.add_argument("--ceiling-top", type=int, default=2,
                    help="random-search trials taken from each --ceiling-from file (default 2)")
    ap.add_argument("--noise-sd", type=float,
                    help="study setting noise_sd, the paired ratio's measurement sd that tuner.recommend "
                         "floors its fit with (default: the preset's 0.2, measured with direct I/O)")
    ap.add_argument("--target", type=float, default=1.3)
    ap.add_argument("--ceiling-fraction", type=float, default=0.9)
    ap.add_argument("--smoke", action="store_true",
                    help="duration 3, num_keys 100000, 1 study x 3 trials (n_initial 2, so trial 3 is GP-EI), "
                         "random 3, remeasure 1")
    ap.add_argument("--out", help="results JSON (default bench/results/rocksdb-<time>.json)")
    a = ap.parse_args()
    dflt = (dict(studies=1, trials=3, random=3, duration=3, remeasure=1, num_keys=100000, n_initial=2) if a.smoke
            else dict(studies=3, trials=10, random=60, duration=30, remeasure=5, num_keys=None, n_initial=None))
    for k, v in dflt.items():
        if getattr(a, k) is None:
            setattr(a, k, v)

    t_start = time.time()
    out = {"started": datetime.datetime.now().isoformat(timespec="seconds"), "argv": sys.argv[1:],
           "args": vars(a), "host": platform.node(), "cpus": os.cpu_count()}
    conn = connect()
    out["server"] = q(conn, "SELECT version()")[0][0]
    out["tuner_version"] = q(conn, "SELECT extversion FROM pg_extension WHERE extname = 'tuner'")[0][0]
    bindir = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=True).stdout.strip()
    program = os.path.join(bindir, "tuner_rocksdb")
    # The server runs the runner as its own OS user; the direct runs do the
    # same (when we are root) and share the work dir, so every run restores
    # the same base DB on the same disk.
    server_user = None
    if os.geteuid() == 0:
        server_user = q(conn, "SELECT pg_catalog.pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'template0'")[0][0]
        import pwd
        pw = pwd.getpwnam(server_user)
        os.makedirs(a.work_dir, mode=0o700, exist_ok=True)
        os.chown(a.work_dir, pw.pw_uid, pw.pw_gid)
    runner_settings = {"duration_s": a.duration, "direct_io": a.direct_io == "true", "work_dir": a.work_dir}
    if a.num_keys:
        runner_settings["num_keys"] = a.num_keys
    log("RocksDB tuning benchmark  %s  (%s, %d CPUs, load %s)" %
        (out["started"], platform.node(), os.cpu_count(), " ".join("%.2f" % x for x in os.getloadavg())))
    log("tuner %s, %s; runner %s%s" % (out["tuner_version"], out["server"].split(",")[0], program,
                                      " as " + server_user if server_user else ""))
    log("%d studies x %d trials (n_initial %s), random %d, re-measure %d, runner settings %s" %
        (a.studies, a.trials, a.n_initial or "preset default", a.random, a.remeasure, json.dumps(runner_settings)))
    log()

    # 1. The studies, one at a time (gp-ei keeps its old names).
    studies = []
    for alg in a.algorithms.split(","):
        for i in range(a.studies):
            seed = a.seed_base + i
            name = "rocksdb_bench_s%d" % seed if alg == "gp-ei" else \
                "rocksdb_bench_%s_s%d" % (alg.replace("-", "_"), seed)
            studies.append(run_study(conn, name, seed, a.trials, runner_settings, 600,
                                     a.n_initial, alg, a.noise_sd))
    out["studies"] = studies

    # The space and the exact runner settings, as the studies have them.
    ref = "rocksdb_bench_ref"
    q(conn, "SELECT tuner.drop_study(name) FROM tuner.study WHERE name = %s", (ref,))
    q(conn, "SELECT tuner.create_study(%s, preset => 'rocksdb', settings => %s)",
      (ref, json.dumps({"runner": runner_settings})))
    space = q(conn, """SELECT p.name, p.kind, p.low, p.high, p.log_scale FROM tuner.parameter p
                        JOIN tuner.study s ON s.id = p.study_id WHERE s.name = %s ORDER BY p.position""", (ref,))
    settings, timeout_s = q(conn, """SELECT r.settings || (s.settings -> 'runner'), (s.settings ->> 'trial_timeout_s')::int
                                       FROM tuner.study s JOIN tuner.runner r ON r.name = s.runner
                                      WHERE s.name = %s""", (ref,))[0]
    q(conn, "SELECT tuner.drop_study(%s)", (ref,))
    out["space"], out["direct_settings"] = space, settings
    runner = Runner(program, settings, timeout_s, server_user)

    # 2. Random search.
    t0 = time.time()
    out["random"] = random_search(runner, space, a.random, a.random_seed)
    out["random"]["seconds"] = time.time() - t0

    # 3. Re-measurement and verdicts.
    cands = [("default", {}, None)]
    for s in studies:
        label = "study s%d" % s["seed"] if s["algorithm"] == "gp-ei" else \
            "study %s s%d" % (s["algorithm"], s["seed"])
        kept = s["kept"] if a.keep == "recommend" else s["best"]
        if kept:
            cands.append((label, kept["params"], kept["ratio_to_default"]))
        # the best single trial too when it differs: how much the choice matters
        if a.keep == "recommend" and s["best"] and kept and s["best"]["number"] != kept["number"]:
            cands.append((label.replace("study", "best"), s["best"]["params"], s["best"]["ratio_to_default"]))
    if out["random"]["best"]:
        cands.append(("random best", out["random"]["best"]["params"], out["random"]["best"]["ratio_to_default"]))
    for path in a.ceiling_from or []:
        cands += earlier_candidates(path, a.ceiling_top)
    t0 = time.time()
    out["remeasure"] = remeasure(runner, cands, a.remeasure) if a.remeasure > 0 else []
    out["remeasure_seconds"] = time.time() - t0
    out["verdicts"] = verdicts(out["remeasure"], a.target, a.ceiling_fraction) if out["remeasure"] else None
    if a.smoke:
        log("  (smoke run: 3 s runs on a 100000-key DB exercise the harness; the verdicts above mean nothing)")

    # Wall time, and per-trial times (for estimating other sizes).
    st = [r["seconds"] for s in studies for r in s["trials"] if r["seconds"] is not None]
    dt = [r["seconds"] for r in out["random"]["runs"]] + \
         [r["seconds"] for c in out["remeasure"] for r in c["runs"]]
    out["seconds"] = time.time() - t_start
    log()
    log("wall time %.0f s (studies %s, random search %.0f s, re-measurement %.0f s); "
        "mean seconds per paired trial: study %s, direct %s" %
        (out["seconds"], " + ".join("%.0f" % s["seconds"] for s in studies), out["random"]["seconds"],
         out["remeasure_seconds"], fmt(sum(st) / len(st) if st else None, 1),
         fmt(sum(dt) / len(dt) if dt else None, 1)))

    path = a.out or os.path.join(RESULTS, "rocksdb-%s.json" % datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    out["log"] = lines
    with open(path, "w") as fh:
        json.dump(out, fh, indent=1, default=str)
    print("results written to %s" % os.path.relpath(path), flush=True)


if __name__ == "__main__":
    main()
