#!/usr/bin/env python3
"""
constraints_bench.py
    Failures and outcome constraints (issue 10): studies driven through SQL
    (tuner.suggest_next / tuner.report / tuner.fail) on Branin and
    Hartmann6 with a failing region of 30-50% of the box, and with an
    outcome constraint that excludes the unconstrained optimum, against
    GP-EI that treats a failure (or a broken constraint) as the worst value
    seen so far.

    constrained  failed trials are tuner.fail()ed (the feasibility model
                 learns from them); the constraint metric is declared with
                 role 'constraint' and a bound and reported with each trial
    worst-seen   the same GP-EI study without either: a failed or
                 constraint-breaking trial is reported with the worst
                 objective value seen so far (kept open until a first value
                 exists, during the design)

    Reports per problem and method, over the seeds: failed (or
    constraint-breaking) trials after the initial design (source model or
    random), and the best feasible value after 10, 25 and 50 trials.
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from db import connect  # noqa: E402
from functions import make_functions  # noqa: E402
from runinfo import git_info, loadavg, loaded_library  # noqa: E402

FUNCS = make_functions()
H6_OPT = np.array([0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573])


def branin_fails(u):
    # u1 > 0.7 or u2 > 0.75 (x1 > 5.5 or x2 > 11.25): 47.5% of the box,
    # two of Branin's three optima, (-3.14, 12.28) and (9.42, 2.47),
    # inside it; (3.14, 2.28) stays feasible
    return u[0] > 0.7 or u[1] > 0.75


def branin_hole_fails(u):
    # a disk of radius 0.3 around the centre of the unit square fails: 28%
    # of the box, reaching no edge, so no linear trend points at it; the
    # three optima stay outside (the nearest, (3.14, 2.28), at 0.35)
    return (u[0] - 0.5) ** 2 + (u[1] - 0.5) ** 2 < 0.09


def hartmann_fails(u):
    # x1 + x6 > 1.05: 45% of the box; the optimum (sum 0.86) stays outside
    return u[0] + u[5] > 1.05


def branin_band(x):
    # (x2 - 7)^2 <= 9, i.e. 4 <= x2 <= 10: the three optima (x2 = 12.3,
    # 2.3, 2.5) are all outside; 40% of the box is feasible
    return (x[1] - 7.0) ** 2


def hartmann_distance(x):
    # distance from the optimum >= 0.35: excludes it
    return float(np.linalg.norm(np.asarray(x) - H6_OPT))


PROBLEMS = {
    "branin-fail": dict(f="branin", fails=branin_fails),
    "hartmann6-fail": dict(f="hartmann6", fails=hartmann_fails),
    "branin-hole": dict(f="branin", fails=branin_hole_fails),
    "branin-band": dict(f="branin", metric=branin_band, bound=9.0, direction="minimize"),
    "hartmann6-ring": dict(f="hartmann6", metric=hartmann_distance, bound=0.35,
                           direction="maximize"),
}


def run_study(conn, problem, method, seed, budget):
    spec = PROBLEMS[problem]
    fn = FUNCS[spec["f"]]
    name = "%s_%s_%d" % (problem, method, seed)
    cur = conn.cursor()
    cur.execute("SELECT tuner.drop_study(name) FROM tuner.study WHERE name = %s", (name,))
    cur.execute("SELECT tuner.create_study(%s, 'value', 'minimize', %s)",
                (name, json.dumps({"seed": 1000 + seed})))
    for k in range(fn.dim):
        cur.execute("SELECT tuner.add_parameter(%s, %s, 'float', low => %s, high => %s)",
                    (name, "x%d" % k, float(fn.bounds[k, 0]), float(fn.bounds[k, 1])))
    constrained = method == "constrained"
    if "metric" in spec and constrained:
        cur.execute("SELECT tuner.add_metric(%s, 'c', role => 'constraint', bound => %s, "
                    "direction => %s)", (name, spec["bound"], spec["direction"]))
    rows = []          # (source, feasible, value)
    worst = None
    waiting = []       # baseline: failed trials waiting for a first value
    t0 = time.time()
    for _ in range(budget):
        cur.execute("SELECT tuner.suggest_next(%s)", (name,))
        r = cur.fetchone()[0]
        trial = r["trial"]
        x = [r["params"]["x%d" % k] for k in range(fn.dim)]
        cur.execute("SELECT source FROM tuner.trial WHERE id = %s", (trial,))
        source = cur.fetchone()[0]
        value = fn(x)
        if "fails" in spec:
            feasible = not spec["fails"](fn.to_unit(x))
            metrics = {"value": value}
        else:
            c = spec["metric"](x)
            feasible = c <= spec["bound"] if spec["direction"] == "minimize" else c >= spec["bound"]
            metrics = {"value": value, "c": c}
        rows.append((source, feasible, value))
        if constrained:
            if "fails" in spec and not feasible:
                cur.execute("SELECT tuner.fail(%s, 'crashed')", (trial,))
            else:
                cur.execute("SELECT tuner.report(%s, %s)", (trial, json.dumps(metrics)))
        else:
            if feasible:
                worst = value if worst is None else max(worst, value)
                cur.execute("SELECT tuner.report(%s, %s)", (trial, json.dumps({"value": value})))
                for w in waiting:
                    cur.execute("SELECT tuner.report(%s, %s)", (w, json.dumps({"value": worst})))
                waiting = []
            elif worst is None:
                waiting.append(trial)
            else:
                cur.execute("SELECT tuner.report(%s, %s)", (trial, json.dumps({"value": worst})))
    elapsed = time.time() - t0
    for w in waiting:
        cur.execute("SELECT tuner.fail(%s, 'never a value to report')", (w,))
    cur.execute("SELECT tuner.drop_study(%s)", (name,))
    return rows, elapsed


def summarise(rows, checkpoints):
    all_bad = sum(1 for _, f, _ in rows if not f)
    late_bad = sum(1 for s, f, _ in rows if s in ("model", "random") and not f)
    late = sum(1 for s, _, _ in rows if s in ("model", "random"))
    best = []
    for c in checkpoints:
        vals = [v for _, f, v in rows[:c] if f]
        best.append(min(vals) if vals else float("nan"))
    return late_bad, late, best, all_bad


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--problems", default=",".join(PROBLEMS))
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--first-seed", type=int, default=0,
                    help="seeds first..first+seeds-1 (study seed 1000 + seed); a second set "
                    "such as --first-seed 10 checks that a change is not tuned to the first")
    ap.add_argument("--methods", default="constrained,worst-seen")
    ap.add_argument("--budget", type=int, default=50)
    ap.add_argument("--out", default=None, help="write the raw results as JSON")
    args = ap.parse_args()
    checkpoints = [c for c in (10, 25, 50) if c <= args.budget]
    conn = connect()
    info = {"git": git_info(), "loadavg_start": loadavg(), "library": loaded_library(conn)}
    print("# %s" % json.dumps(info), flush=True)
    results = {}
    for problem in args.problems.split(","):
        for method in args.methods.split(","):
            per_seed = []
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                rows, elapsed = run_study(conn, problem, method, seed, args.budget)
                late_bad, late, best, all_bad = summarise(rows, checkpoints)
                per_seed.append({"seed": seed, "late_bad": late_bad, "late": late, "best": best,
                                 "all_bad": all_bad, "seconds": elapsed})
                print("%-15s %-12s seed %2d: bad after design %2d of %2d, in all %2d, best %s (%.1f s)" % (
                    problem, method, seed, late_bad, late, all_bad,
                    " ".join("%.4f" % b for b in best), elapsed), flush=True)
            results[(problem, method)] = per_seed
    print("\n| problem | method | bad after design (mean, sum) | model steps (mean) | bad in all 50 (sum) | "
          + " | ".join("best feasible @%d (median)" % c for c in checkpoints) + " |")
    print("|---|---|---|---|---|" + "---|" * len(checkpoints))
    for (problem, method), per_seed in results.items():
        bad = [p["late_bad"] for p in per_seed]
        cells = []
        for i in range(len(checkpoints)):
            v = [p["best"][i] for p in per_seed]
            nan = sum(1 for b in v if math.isnan(b))
            med = float(np.nanmedian(v)) if nan < len(v) else float("nan")
            cells.append("%.4f%s" % (med, " (%d none)" % nan if nan else ""))
        print("| %s | %s | %.1f, %d | %.1f | %d | %s |" % (
            problem, method, np.mean(bad), sum(bad), np.mean([p["late"] for p in per_seed]),
            sum(p["all_bad"] for p in per_seed), " | ".join(cells)))
    info["loadavg_end"] = loadavg()
    print("# loadavg at the end: %s" % info["loadavg_end"])
    if args.out:
        with open(args.out, "w") as fh:
            json.dump({"info": info, "results": {"%s/%s" % k: v for k, v in results.items()}}, fh, indent=1)


if __name__ == "__main__":
    main()
