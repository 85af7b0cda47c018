#!/usr/bin/env python3
"""
pruning_bench.py
    Pruning on synthetic learning curves (issue 30, bench (a)): tuner's
    pruning rules (median, successive halving, model), driven through SQL
    (tuner.suggest_next / report_progress / should_stop / prune / report),
    against Optuna's MedianPruner and SuccessiveHalvingPruner with TPE, at
    an equal total budget of steps.

    The problem: x in [0, 1]^3; a trial's curve is
        y(s) = f(x) + a(x) * exp(-s / tau(x)) + e_s,  s = 1 .. STEPS,
    minimized, with f = Hartmann-3 + 4 (final values 0.14 .. 4; the optimum
    0.137 at (0.115, 0.556, 0.853)), a(x) = 1 + 2 x2 (the curve's start
    above its end), tau(x) = 2 + 8 x1 (how slowly it gets there: slow
    learners look worse early than they end) and e_s ~ N(0, NOISE^2),
    independent per step, from a generator seeded by (seed, trial number).
    A complete trial's final value, reported to the optimizer, is y(STEPS)
    (with its noise); its true final value is f(x).

    Every method gets BUDGET steps in all: trials run one after another,
    each step costs 1, a pruned trial stops costing, and the trial running
    when the budget ends is abandoned (not complete).  Scored per seed:
    the true final value f(x) of the complete trial whose reported final
    value was best (what the method would recommend), and the trials
    started (configurations evaluated), and the pruned trials whose true
    final value was better than that result (good configurations the rule
    threw away).

    Methods
      tuner-none     tuner's default optimizer (GP-EI), no pruning
      tuner-median   {"rule": "median", "warmup_steps": 5, "min_trials": 5}
      tuner-halving  {"rule": "halving", "min_step": 1, "reduction": 3, "min_trials": 5}
      tuner-model    {"rule": "model", "threshold": 0.05, "warmup_steps": 5, "min_trials": 5}
      tuner-halving1 {"rule": "halving", "min_step": 1, "reduction": 3, "min_trials": 1}
                     (judging from the first trial at a rung, as Optuna's
                     bootstrap_count=0 does)
      tuner-halving1-fail  a diagnostic: tuner-halving1 with a stopped
                     trial failed (tuner.fail) instead of pruned, so that
                     the model gets no value from it (only the feasibility
                     model's "failed here")
      optuna-none    TPESampler(seed), no pruning
      optuna-median  MedianPruner(n_startup_trials=5, n_warmup_steps=5)
      optuna-halving SuccessiveHalvingPruner(min_resource=1, reduction_factor=3)
    Optuna's trials report every step and ask should_prune at every step,
    as tuner's do.
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
from runinfo import git_info, loadavg, loaded_library  # noqa: E402

STEPS = 27
NOISE = 0.05

H3_A = np.array([[3.0, 10, 30], [0.1, 10, 35], [3.0, 10, 30], [0.1, 10, 35]])
H3_P = 1e-4 * np.array([[3689, 1170, 2673], [4699, 4387, 7470], [1091, 8732, 5547], [381, 5743, 8828]])
H3_ALPHA = np.array([1.0, 1.2, 3.0, 3.2])

TUNER_RULES = {
    "tuner-none": None,
    "tuner-median": {"rule": "median", "warmup_steps": 5, "min_trials": 5},
    "tuner-halving": {"rule": "halving", "min_step": 1, "reduction": 3, "min_trials": 5},
    "tuner-model": {"rule": "model", "threshold": 0.05, "warmup_steps": 5, "min_trials": 5},
    # Optuna's SuccessiveHalvingPruner judges from the first trial at a rung
    # (bootstrap_count 0): the same with min_trials 1
    "tuner-halving1": {"rule": "halving", "min_step": 1, "reduction": 3, "min_trials": 1},
    # a diagnostic: the same, but a stopped trial is failed (tuner.fail)
    # instead of pruned, so that the model gets no value from it
    "tuner-halving1-fail": {"rule": "halving", "min_step": 1, "reduction": 3, "min_trials": 1},
}
OPTUNA_METHODS = ("optuna-none", "optuna-median", "optuna-halving")


def final_value(x):
    x = np.asarray(x, dtype=float)
    return float(4.0 - np.sum(H3_ALPHA * np.exp(-np.sum(H3_A * (x - H3_P) ** 2, axis=1))))


class Curve:
    """One trial's learning curve, its noise drawn from (seed, number)."""

    def __init__(self, x, seed, number):
        self.f = final_value(x)
        self.a = 1.0 + 2.0 * x[2]
        self.tau = 2.0 + 8.0 * x[1]
        self.noise = np.random.default_rng([seed, number]).normal(0.0, NOISE, STEPS)

    def at(self, s):
        return self.f + self.a * math.exp(-s / self.tau) + float(self.noise[s - 1])


class Ledger:
    """The steps spent and the trials' outcomes."""

    def __init__(self, budget):
        self.left = budget
        self.started = 0
        self.complete = []  # (reported final, true final)
        self.pruned = 0
        self.pruned_true = []  # the pruned trials' true finals

    def score(self):
        if not self.complete:
            return float("nan")
        return min(self.complete)[1]


def run_tuner(conn, method, seed, budget):
    name = "prune_%s_%d" % (method, seed)
    cur = conn.cursor()
    cur.execute("SELECT tuner.drop_study(name) FROM tuner.study WHERE name = %s", (name,))
    settings = {"seed": 1000 + seed}
    if TUNER_RULES[method] is not None:
        settings["pruning"] = TUNER_RULES[method]
    cur.execute("SELECT tuner.create_study(%s, 'loss', 'minimize', %s)", (name, json.dumps(settings)))
    for k in range(3):
        cur.execute("SELECT tuner.add_parameter(%s, %s, 'float', 0, 1)", (name, "x%d" % k))
    led = Ledger(budget)
    while led.left > 0:
        cur.execute("SELECT tuner.suggest_next(%s)", (name,))
        r = cur.fetchone()[0]
        trial = r["trial"]
        curve = Curve([r["params"]["x%d" % k] for k in range(3)], seed, led.started)
        led.started += 1
        done = False
        for s in range(1, STEPS + 1):
            if led.left == 0:
                break
            led.left -= 1
            y = curve.at(s)
            cur.execute("SELECT tuner.report_progress(%s, %s, %s)", (trial, s, json.dumps({"loss": y})))
            if s == STEPS:
                cur.execute("SELECT tuner.report(%s, %s)", (trial, json.dumps({"loss": y})))
                led.complete.append((y, curve.f))
                done = True
                break
            cur.execute("SELECT tuner.should_stop(%s)", (trial,))
            if cur.fetchone()[0]:
                if method.endswith("-fail"):
                    cur.execute("SELECT tuner.fail(%s, 'stopped')", (trial,))
                else:
                    cur.execute("SELECT tuner.prune(%s)", (trial,))
                led.pruned += 1
                led.pruned_true.append(curve.f)
                done = True
                break
        if not done:
            cur.execute("SELECT tuner.fail(%s, 'out of budget')", (trial,))
    cur.execute("SELECT tuner.drop_study(%s)", (name,))
    return led


def run_optuna(method, seed, budget):
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    pruner = {
        "optuna-none": optuna.pruners.NopPruner(),
        "optuna-median": optuna.pruners.MedianPruner(n_startup_trials=5, n_warmup_steps=5),
        "optuna-halving": optuna.pruners.SuccessiveHalvingPruner(min_resource=1, reduction_factor=3),
    }[method]
    study = optuna.create_study(direction="minimize", sampler=optuna.samplers.TPESampler(seed=1000 + seed),
                                pruner=pruner)
    led = Ledger(budget)
    while led.left > 0:
        trial = study.ask()
        x = [trial.suggest_float("x%d" % k, 0.0, 1.0) for k in range(3)]
        curve = Curve(x, seed, led.started)
        led.started += 1
        state = optuna.trial.TrialState.FAIL
        value = None
        for s in range(1, STEPS + 1):
            if led.left == 0:
                break
            led.left -= 1
            y = curve.at(s)
            trial.report(y, s)
            if s == STEPS:
                led.complete.append((y, curve.f))
                state, value = optuna.trial.TrialState.COMPLETE, y
                break
            if trial.should_prune():
                led.pruned += 1
                led.pruned_true.append(curve.f)
                state = optuna.trial.TrialState.PRUNED
                break
        study.tell(trial, value, state=state)
    return led


PAIRS = (("tuner-median", "optuna-median"), ("tuner-halving", "optuna-halving"),
         ("tuner-halving1", "optuna-halving"), ("tuner-model", "optuna-median"),
         ("tuner-model", "optuna-halving"), ("tuner-median", "tuner-none"),
         ("tuner-halving", "tuner-none"), ("tuner-model", "tuner-none"),
         ("tuner-halving1-fail", "tuner-halving1"), ("tuner-halving1-fail", "optuna-halving"),
         ("optuna-median", "optuna-none"),
         ("optuna-halving", "optuna-none"))


def summarise(results):
    print("\n| method | best true final (median) | (quartiles) | configurations (median) | complete (median) "
          "| pruned better than the result (mean) |")
    print("|---|---|---|---|---|---|")
    for method, per_seed in results.items():
        b = np.array([p["best_true_final"] for p in per_seed])
        print("| %s | %.4f | %.4f - %.4f | %g | %g | %.2f |" % (
            method, np.nanmedian(b), np.nanpercentile(b, 25), np.nanpercentile(b, 75),
            np.median([p["started"] for p in per_seed]), np.median([p["complete"] for p in per_seed]),
            np.mean([p["lost"] for p in per_seed])))
    # seed by seed (same seed, same curves' noise and study seed)
    from scipy.stats import wilcoxon
    import warnings
    print()
    for a, b in PAIRS:
        if a not in results or b not in results:
            continue
        x = np.array([p["best_true_final"] for p in results[a]])
        y = np.array([p["best_true_final"] for p in results[b]])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pv = wilcoxon(x, y).pvalue if np.any(x != y) else 1.0
        print("%-19s vs %-15s better in %2d of %d seeds, worse in %2d, median difference %+.4f, "
              "Wilcoxon p %.3f" % (a, b, int(np.sum(x < y)), len(x), int(np.sum(x > y)),
                                   float(np.median(x - y)), pv))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--budget", type=int, default=25 * STEPS,
                    help="steps per study (default 25 full trials of %d steps)" % STEPS)
    ap.add_argument("--methods", default=",".join(list(TUNER_RULES) + list(OPTUNA_METHODS)))
    ap.add_argument("--out", default=None, help="write the raw results as JSON")
    ap.add_argument("--summarise", default=None, nargs="+", metavar="JSON",
                    help="only print the tables of the files --out wrote (several: their seeds pooled)")
    args = ap.parse_args()
    if args.summarise:
        pooled = {}
        for path in args.summarise:
            with open(path) as fh:
                for method, per_seed in json.load(fh)["results"].items():
                    pooled.setdefault(method, []).extend(per_seed)
        summarise(pooled)
        return
    methods = args.methods.split(",")
    conn = connect() if any(m.startswith("tuner-") for m in methods) else None
    info = {"git": git_info(), "loadavg_start": loadavg(), "budget": args.budget, "steps": STEPS,
            "noise": NOISE, "library": loaded_library(conn) if conn else None}
    print("# %s" % json.dumps(info), flush=True)
    results = {}
    for method in methods:
        per_seed = []
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            t0 = time.time()
            led = run_tuner(conn, method, seed, args.budget) if method.startswith("tuner-") \
                else run_optuna(method, seed, args.budget)
            per_seed.append({"seed": seed, "best_true_final": led.score(), "started": led.started,
                             "complete": len(led.complete), "pruned": led.pruned,
                             "lost": sum(1 for f in led.pruned_true if f < led.score()),
                             "seconds": time.time() - t0})
            print("%-15s seed %2d: best true final %.4f, %3d trials (%2d complete, %3d pruned) (%.1f s)" % (
                method, seed, led.score(), led.started, len(led.complete), led.pruned,
                time.time() - t0), flush=True)
        results[method] = per_seed
    summarise(results)
    info["loadavg_end"] = loadavg()
    print("# loadavg at the end: %s" % info["loadavg_end"])
    if args.out:
        with open(args.out, "w") as fh:
            json.dump({"info": info, "results": results}, fh, indent=1)


if __name__ == "__main__":
    main()
