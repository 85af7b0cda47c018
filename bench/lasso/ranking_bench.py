#!/usr/bin/python3
"""
ranking_bench.py
    Ranking with few trials (bench/README.md, section 5, "Ranking with few
    trials"; issue 26, item 6): the recall of the true drivers in the top 3
    of tuner.lasso_rank after 16, 24 and 32 explored trials.

    Problems (maximise; every parameter has a default; noise N(0, sd^2) on
    each observation, --noise, default 0.5 and 2):
      mixed10  10 parameters, 3 drivers (the shapes of bench/sapphire's):
                 threads     int [1, 256] log:  12 exp(-((log2 t - 6) / 2)^2)   a bump
                 batch_size  int [1, 1000]:      6 exp(-((b - 640) / 250)^2)    a bump
                 timeout_ms  float [0.1, 1000] log: 5 min(log10 t + 1, 3) / 3   rises, then flat
      mixed30  30 parameters, 3 drivers:
                 threads     as above
                 queue       categorical {fifo, wpq, mclock, deadline}: 0, 3, 8, -4
                 dirty_ratio float [0, 1]:     -12 (r - 0.6)^2                  a bump
      bumps10  10 parameters, 3 drivers, each an optimum in the middle of
               its range (on the scale the Lasso sees), so no linear trend:
                 pool        int [1, 256] log:  12 exp(-((log2 p - 4) / 2)^2)
                 window      int [1, 1000]:      6 exp(-((w - 500) / 200)^2)
                 fill_ratio  float [0, 1]:     -12 (r - 0.5)^2
    The distractors cycle through six kinds: float [0, 10], log float
    [0.01, 100], int [0, 100], log int [1, 4096], categorical of 3-5
    choices, bool.  f = 100 + the drivers' effects.

    A run: a study with the run's seed, algorithm sapphire with explore
    1000 (so it stays in its exploration: the default configuration, then
    space-filling points), driven through SQL one trial at a time
    (tuner.suggest_next, tuner.report of the noisy objective).  When 16, 24
    and 32 trials are complete, tuner.lasso_rank ranks the parameters; the
    top 3 by rank are what tuner.select_top(study, 3) enables (select_top
    itself is not called: it would fix the others for the later trials).
    recall = |top 3 and drivers| / 3.

    On a build with the second signal it ranks twice per point: with the
    default options (the GP fills what the Lasso leaves) and with
    {"fill": "none"} (0.2.0's ranking; the "before" on the same trials).
    On a 0.2.0 build only the default exists (that is the "before").

    Normally started by bench/lasso/ranking.sh.
"""
import argparse
import datetime
import json
import math
import os
import statistics
import sys
import time
import uuid

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
sys.path.insert(0, BENCH)

from db import connect  # noqa: E402
from runinfo import git_info, loadavg, loaded_library  # noqa: E402

QUEUE = {"fifo": 0.0, "wpq": 3.0, "mclock": 8.0, "deadline": -4.0}

DRIVERS = {
    "threads": dict(kind="int", low=1, high=256, default="8", log_scale=True),
    "batch_size": dict(kind="int", low=1, high=1000, default="100"),
    "timeout_ms": dict(kind="float", low=0.1, high=1000, default="10", log_scale=True),
    "queue": dict(kind="categorical", default="wpq", choices=list(QUEUE)),
    "dirty_ratio": dict(kind="float", low=0, high=1, default="0.5"),
    "pool": dict(kind="int", low=1, high=256, default="8", log_scale=True),
    "window": dict(kind="int", low=1, high=1000, default="100"),
    "fill_ratio": dict(kind="float", low=0, high=1, default="0.2"),
}

PROBLEMS = {
    "mixed10": dict(d=10, drivers=["threads", "batch_size", "timeout_ms"], positions=[1, 4, 7]),
    "mixed30": dict(d=30, drivers=["threads", "queue", "dirty_ratio"], positions=[3, 14, 25]),
    "bumps10": dict(d=10, drivers=["pool", "window", "fill_ratio"], positions=[2, 5, 8]),
}

CHECKPOINTS = (16, 24, 32)
TOP_K = 3


def effect(name, v):
    if name == "threads":
        return 12.0 * math.exp(-((math.log2(float(v)) - 6.0) / 2.0) ** 2)
    if name == "batch_size":
        return 6.0 * math.exp(-((float(v) - 640.0) / 250.0) ** 2)
    if name == "timeout_ms":
        return 5.0 * min(math.log10(float(v)) + 1.0, 3.0) / 3.0
    if name == "queue":
        return QUEUE[v]
    if name == "dirty_ratio":
        return -12.0 * (float(v) - 0.6) ** 2
    if name == "pool":
        return 12.0 * math.exp(-((math.log2(float(v)) - 4.0) / 2.0) ** 2)
    if name == "window":
        return 6.0 * math.exp(-((float(v) - 500.0) / 200.0) ** 2)
    if name == "fill_ratio":
        return -12.0 * (float(v) - 0.5) ** 2
    raise KeyError(name)


def distractor(i):
    kind = i % 6
    if kind == 0:
        return dict(kind="float", low=0, high=10, default="5")
    if kind == 1:
        return dict(kind="float", low=0.01, high=100, default="1", log_scale=True)
    if kind == 2:
        return dict(kind="int", low=0, high=100, default="50")
    if kind == 3:
        return dict(kind="int", low=1, high=4096, default="64", log_scale=True)
    if kind == 4:
        n = 3 + (i // 6) % 3
        return dict(kind="categorical", default="c0", choices=["c%d" % k for k in range(n)])
    return dict(kind="bool", default="false")


def parameters(problem):
    """[(name, spec)] in declaration order."""
    spec = PROBLEMS[problem]
    out, t, dn = [], 0, 0
    for pos in range(spec["d"]):
        if t < len(spec["drivers"]) and pos == spec["positions"][t]:
            name = spec["drivers"][t]
            out.append((name, DRIVERS[name]))
            t += 1
        else:
            out.append(("d%02d" % dn, distractor(dn)))
            dn += 1
    return out


def true_value(problem, cfg):
    return 100.0 + sum(effect(n, cfg[n]) for n in PROBLEMS[problem]["drivers"])


def rank(cur, name, options):
    t0 = time.perf_counter()
    cur.execute("SELECT * FROM tuner.lasso_rank(%s, %s::jsonb)", (name, json.dumps(options)))
    rows = cur.fetchall()
    ms = (time.perf_counter() - t0) * 1000.0
    cols = [c.name for c in cur.description]
    return [dict(zip(cols, r)) for r in rows], ms


def run(conn, problem, noise, seed, has_fill, log):
    name = "rank_%s_n%g_s%d_%s" % (problem, noise, seed, uuid.uuid4().hex[:6])
    drivers = set(PROBLEMS[problem]["drivers"])
    rng = np.random.default_rng([7919, seed, int(noise * 1000)])
    out = []
    with conn.cursor() as cur:
        cur.execute("SELECT tuner.create_study(%s, objective => 'y', direction => 'maximize', settings => %s::jsonb)",
                    (name, json.dumps({"seed": seed})))
        for pname, p in parameters(problem):
            cur.execute("""SELECT tuner.add_parameter(%s, %s, %s, low => %s, high => %s, default_value => %s,
                                                      log_scale => %s, choices => %s)""",
                        (name, pname, p["kind"], p.get("low"), p.get("high"), p["default"],
                         p.get("log_scale", False), p.get("choices")))
        cur.execute("SELECT tuner.set_algorithm(%s, 'sapphire', '{\"explore\": 1000}')", (name,))
        for i in range(max(CHECKPOINTS)):
            cur.execute("SELECT tuner.suggest_next(%s)", (name,))
            r = cur.fetchone()[0]
            if isinstance(r, str):
                r = json.loads(r)
            y = true_value(problem, r["params"]) + noise * float(rng.standard_normal())
            cur.execute("SELECT tuner.report(%s, %s::jsonb)", (r["trial"], json.dumps({"y": y})))
            if i + 1 not in CHECKPOINTS:
                continue
            variants = [("default", {})]
            if has_fill:
                variants.append(("fill_none", {"fill": "none"}))
            for label, opts in variants:
                rows, ms = rank(cur, name, opts)
                top = [row for row in rows if row["rank"] <= TOP_K]
                rec = {
                    "problem": problem, "noise": noise, "seed": seed, "n": i + 1, "variant": label, "ms": ms,
                    "recall": sum(1 for row in top if row["parameter"] in drivers) / TOP_K,
                    "lasso_nonzero": sum(1 for row in rows if row["importance"] > 0),
                    "top": [{"parameter": row["parameter"], "signal": row.get("signal"),
                             "importance": row["importance"], "gp_evidence": row.get("gp_evidence"),
                             "driver": row["parameter"] in drivers} for row in top],
                    "gp_evidence_drivers": {row["parameter"]: row.get("gp_evidence") for row in rows
                                            if row["parameter"] in drivers},
                    "gp_signal": sum(1 for row in rows if row.get("signal") == "gp"),
                    "gp_signal_null": sum(1 for row in rows
                                          if row.get("signal") == "gp" and row["parameter"] not in drivers),
                }
                out.append(rec)
        cur.execute("SELECT tuner.drop_study(%s)", (name,))
    log("  %s noise %g seed %d: %s" % (problem, noise, seed, ", ".join(
        "n=%d %s %.2f" % (r["n"], r["variant"], r["recall"]) for r in out)))
    return out


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def summary(records, log):
    variants = sorted({r["variant"] for r in records})
    log("")
    log("| problem | noise sd | trials | variant | recall (mean) | runs at recall 1 | Lasso < 3 non-zero | "
        "recall when Lasso < 3 | GP-ranked in top 3 (drivers / all) | GP evidence >= 3, null parameters | lasso_rank ms (median) |")
    log("|---|---|---|---|---|---|---|---|---|---|---|")
    for problem in PROBLEMS:
        for noise in sorted({r["noise"] for r in records}):
            for n in CHECKPOINTS:
                for v in variants:
                    rs = [r for r in records if r["problem"] == problem and r["noise"] == noise
                          and r["n"] == n and r["variant"] == v]
                    if not rs:
                        continue
                    few = [r for r in rs if r["lasso_nonzero"] < TOP_K]
                    gp_top = [t for r in rs for t in r["top"] if t["signal"] == "gp"]
                    log("| %s | %g | %d | %s | %.3f | %d/%d | %d | %s | %d / %d | %d | %.0f |" % (
                        problem, noise, n, v, mean([r["recall"] for r in rs]),
                        sum(1 for r in rs if r["recall"] == 1.0), len(rs), len(few),
                        "%.3f" % mean([r["recall"] for r in few]) if few else "-",
                        sum(1 for t in gp_top if t["driver"]), len(gp_top),
                        sum(r["gp_signal_null"] for r in rs),
                        statistics.median(r["ms"] for r in rs)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=20, help="seeds 0..N-1 (default 20)")
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--noise", default="0.5,2", help="comma list of noise sds (default 0.5,2)")
    ap.add_argument("--problems", default=",".join(PROBLEMS), help="comma list of %s" % ", ".join(PROBLEMS))
    ap.add_argument("--out", help="results JSON (default bench/results/ranking-<time>.json)")
    args = ap.parse_args()

    def log(msg):
        print(msg, flush=True)

    conn = connect()
    with conn.cursor() as cur:
        cur.execute("""SELECT EXISTS (SELECT 1 FROM pg_proc p
                                        WHERE p.oid = 'tuner.lasso_rank(text, jsonb)'::regprocedure
                                          AND 'signal' = ANY (p.proargnames))""")
        has_fill = cur.fetchone()[0]
        cur.execute("SELECT extversion FROM pg_extension WHERE extname = 'tuner'")
        version = cur.fetchone()[0]
    started = datetime.datetime.now(datetime.timezone.utc)
    info = {"started": started.isoformat(), "git": git_info(), "loadavg": loadavg(),
            "library": loaded_library(conn), "extversion": version, "second_signal": has_fill,
            "args": vars(args)}
    log("ranking bench: %s, tuner %s, library %s, second signal %s, load %s" % (
        info["git"], version, info["library"], has_fill, info["loadavg"]))
    records = []
    for problem in args.problems.split(","):
        for noise in [float(v) for v in args.noise.split(",")]:
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                records += run(conn, problem, noise, seed, has_fill, log)
    summary(records, log)
    out = args.out or os.path.join(BENCH, "results", "ranking-%s.json" % started.strftime("%Y%m%d-%H%M%S"))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as fh:
        json.dump({"info": info, "records": records}, fh, indent=1, default=str)
    log("wrote %s" % out)


if __name__ == "__main__":
    main()
