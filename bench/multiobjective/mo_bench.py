#!/usr/bin/env python3
"""
mo_bench.py
    Multi-objective tuning (issue 9): the hypervolume a method reaches on a
    standard two-objective problem within a fixed budget of evaluations.

    problems  branincurrin  Branin and Currin on [0, 1]^2, both minimized,
                            reference point (18, 6) (BoTorch's)
              zdt1          ZDT1 in 6 dimensions, both minimized,
                            reference point (11, 11); its true front
                            f2 = 1 - sqrt(f1) has hypervolume 121 - 1/3
              zdt1-shifted  not a standard problem: ZDT1 with g's minimum
                            moved inside the box (x2..x6 = 0.35 instead of
                            0, g = 1 + 9/5 sum |x_i - 0.35| / 0.65), to see
                            how much of a method's ZDT1 result comes from
                            probing the box's faces; same reference and
                            best hypervolume
    methods   tuner         a tuner study with two objectives, gp-ei
                            (ParEGO scalarization), through tuner.suggest_next
                            and tuner.report
              random        uniform random search (numpy, seeded)
              nsga2         Optuna NSGAIISampler, default population 50
              nsga2-pop10   Optuna NSGAIISampler, population 10
              tpe           Optuna TPESampler (multi-objective), defaults

    Every method gets the same budget and the same seeds.  The hypervolume
    of each run is computed by Optuna's WFG routine on the points it
    evaluated (one yardstick for all); for tuner runs it is also computed
    by tuner.hypervolume(study, reference) and the two must agree.
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np
import optuna
from optuna._hypervolume import WFG

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from db import connect  # noqa: E402
from runinfo import git_info, loadavg, loaded_library  # noqa: E402


def branin_currin(u):
    x1 = 15.0 * u[0] - 5.0
    x2 = 15.0 * u[1]
    branin = ((x2 - 5.1 / (4 * math.pi ** 2) * x1 ** 2 + 5 / math.pi * x1 - 6) ** 2
              + 10 * (1 - 1 / (8 * math.pi)) * math.cos(x1) + 10)
    a, b = u
    factor = 1.0 if b == 0 else 1.0 - math.exp(-1.0 / (2.0 * b))
    currin = factor * (2300 * a ** 3 + 1900 * a ** 2 + 2092 * a + 60) / (100 * a ** 3 + 500 * a ** 2 + 4 * a + 20)
    return branin, currin


def zdt1(u):
    f1 = u[0]
    g = 1.0 + 9.0 / (len(u) - 1) * sum(u[1:])
    return f1, g * (1.0 - math.sqrt(f1 / g))


def zdt1_shifted(u):
    f1 = u[0]
    g = 1.0 + 9.0 / (len(u) - 1) * sum(abs(x - 0.35) / 0.65 for x in u[1:])
    return f1, g * (1.0 - math.sqrt(f1 / g))


PROBLEMS = {
    "branincurrin": {"f": branin_currin, "d": 2, "ref": [18.0, 6.0]},
    "zdt1": {"f": zdt1, "d": 6, "ref": [11.0, 11.0]},
    "zdt1-shifted": {"f": zdt1_shifted, "d": 6, "ref": [11.0, 11.0]},
}


def hv(points, ref):
    """Hypervolume (minimization) of the points inside the reference box."""
    pts = np.array([p for p in points if p[0] < ref[0] and p[1] < ref[1]], dtype=float)
    if len(pts) == 0:
        return 0.0
    return float(WFG().compute(pts, np.array(ref, dtype=float)))


def run_tuner(conn, prob, seed, budget, name, f1_only=False):
    d = prob["d"]
    with conn.cursor() as cur:
        cur.execute("SELECT tuner.drop_study(%s) FROM tuner.study WHERE name = %s", (name, name))
        cur.execute("SELECT tuner.create_study(%s, 'f1', 'minimize', %s)",
                    (name, json.dumps({"seed": seed})))
        for i in range(d):
            cur.execute("SELECT tuner.add_parameter(%s, %s, 'float', 0, 1)", (name, "u%d" % (i + 1)))
        cur.execute("SELECT tuner.add_metric(%s, 'f2', %s, direction => 'minimize')",
                    (name, "auxiliary" if f1_only else "objective"))
        points = []
        for _ in range(budget):
            cur.execute("SELECT tuner.suggest_next(%s)", (name,))
            s = cur.fetchone()[0]
            u = [float(s["params"]["u%d" % (i + 1)]) for i in range(d)]
            f = prob["f"](u)
            points.append(f)
            cur.execute("SELECT tuner.report(%s, %s)", (s["trial"], json.dumps({"f1": f[0], "f2": f[1]})))
        extra = {}
        if not f1_only:
            cur.execute("SELECT tuner.hypervolume(%s, %s)", (name, prob["ref"]))
            extra["sql_hv"] = cur.fetchone()[0]
            cur.execute("SELECT count(*) FROM tuner.pareto_front(%s)", (name,))
            extra["front"] = cur.fetchone()[0]
        cur.execute("SELECT tuner.drop_study(%s)", (name,))
    return points, extra


def run_random(prob, seed, budget):
    rng = np.random.default_rng(seed)
    return [prob["f"](list(rng.uniform(0, 1, prob["d"]))) for _ in range(budget)], {}


def run_optuna(prob, seed, budget, sampler):
    d = prob["d"]

    def objective(trial):
        return prob["f"]([trial.suggest_float("u%d" % (i + 1), 0.0, 1.0) for i in range(d)])

    study = optuna.create_study(directions=["minimize", "minimize"], sampler=sampler)
    study.optimize(objective, n_trials=budget)
    return [tuple(t.values) for t in study.trials], {}


def sampler_for(method, seed):
    if method == "nsga2":
        return optuna.samplers.NSGAIISampler(seed=seed)
    if method == "nsga2-pop10":
        return optuna.samplers.NSGAIISampler(seed=seed, population_size=10)
    if method == "tpe":
        return optuna.samplers.TPESampler(seed=seed)
    raise ValueError(method)


def quartiles(values):
    q1, med, q3 = np.percentile(values, [25, 50, 75])
    return med, q1, q3


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--problems", default="branincurrin,zdt1")
    ap.add_argument("--methods", default="tuner,random,nsga2,nsga2-pop10,tpe,tuner-f1only")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--budget", type=int, default=40)
    ap.add_argument("--checkpoints", default="20,40", help="budgets at which the hypervolume is reported")
    ap.add_argument("--smoke", action="store_true", help="1 seed, budget 12, branincurrin: a quick check that it runs")
    ap.add_argument("--out", default=None, help="write every run as JSON here")
    args = ap.parse_args()
    if args.smoke:
        args.problems, args.seeds, args.budget, args.checkpoints = "branincurrin", 1, 12, "12"
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    checkpoints = [int(c) for c in args.checkpoints.split(",") if int(c) <= args.budget]
    methods = args.methods.split(",")
    conn = connect() if any(m.startswith("tuner") for m in methods) else None
    info = {"git": git_info(), "loadavg_start": loadavg(), "budget": args.budget, "seeds": args.seeds,
            "library": loaded_library(conn) if conn else None, "optuna": optuna.__version__,
            "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}
    runs = []
    for pname in args.problems.split(","):
        prob = PROBLEMS[pname]
        for method in methods:
            for seed in range(args.seeds):
                t0 = time.time()
                if method == "tuner":
                    points, extra = run_tuner(conn, prob, seed, args.budget, "mo_bench_%s_%d" % (pname, seed))
                elif method == "tuner-f1only":
                    points, extra = run_tuner(conn, prob, seed, args.budget, "mo_bench_%s_%d" % (pname, seed),
                                              f1_only=True)
                elif method == "random":
                    points, extra = run_random(prob, seed, args.budget)
                else:
                    points, extra = run_optuna(prob, seed, args.budget, sampler_for(method, seed))
                elapsed = time.time() - t0
                hvs = {str(c): hv(points[:c], prob["ref"]) for c in checkpoints}
                if method == "tuner":
                    full = hv(points, prob["ref"])
                    if abs(extra["sql_hv"] - full) > 1e-9 * max(1.0, full):
                        raise SystemExit("tuner.hypervolume %r != WFG %r (%s seed %d)"
                                         % (extra["sql_hv"], full, pname, seed))
                runs.append({"problem": pname, "method": method, "seed": seed, "hv": hvs,
                             "seconds": elapsed, "points": points, **extra})
                print("%-13s %-12s seed %2d  hv %s  (%.1f s)" % (
                    pname, method, seed, " ".join("@%s %.4f" % kv for kv in hvs.items()), elapsed),
                    flush=True)
    info["loadavg_end"] = loadavg()
    print()
    print("| problem | method | " + " | ".join("HV @%d median [q1, q3]" % c for c in checkpoints) + " |")
    print("|---|---|" + "---|" * len(checkpoints))
    for pname in args.problems.split(","):
        for method in methods:
            cells = []
            for c in checkpoints:
                vals = [r["hv"][str(c)] for r in runs if r["problem"] == pname and r["method"] == method]
                cells.append("%.3f [%.3f, %.3f]" % quartiles(vals))
            print("| %s | %s | %s |" % (pname, method, " | ".join(cells)))
    print()
    print(json.dumps(info))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump({"info": info, "runs": runs}, fh)


if __name__ == "__main__":
    main()
