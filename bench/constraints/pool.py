#!/usr/bin/env python3
"""
pool.py RESULTS.json [RESULTS.json ...]
    Pools runs of constraints_bench.py (e.g. --first-seed 0, 10 and 20)
    over all their seeds: per problem, failed (or constraint-breaking)
    trials after the design, constrained against worst-seen, with a 95%
    bootstrap interval of the ratio (seeds resampled with replacement,
    the same seeds for both methods, 4000 resamples, fixed RNG seed), the
    ratio per file, bad trials in all 50, and the median best feasible
    value at 25 and 50 evaluations.  Prints a Markdown table.
"""
import json
import sys

import numpy as np

RESAMPLES = 4000


def ratio(num, den):
    return num / den if den > 0 else float("inf")


def main(paths):
    files = [json.load(open(p))["results"] for p in paths]
    problems = []
    for res in files:
        for key in res:
            prob = key.split("/")[0]
            if prob not in problems:
                problems.append(prob)
    print("| problem | bad after design, constrained vs worst-seen | ratio [95% interval] | "
          "ratio per file | bad in all 50 | best @25 | best @50 |")
    print("|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    n_seeds = 0
    for prob in problems:
        runs = {m: [] for m in ("constrained", "worst-seen")}
        per_file = []
        for res in files:
            c, w = res.get(prob + "/constrained"), res.get(prob + "/worst-seen")
            if c is None or w is None:
                continue
            if [r["seed"] for r in c] != [r["seed"] for r in w]:
                sys.exit("%s: the two methods ran different seeds" % prob)
            runs["constrained"] += c
            runs["worst-seen"] += w
            per_file.append(ratio(sum(r["late_bad"] for r in w), sum(r["late_bad"] for r in c)))
        c, w = runs["constrained"], runs["worst-seen"]
        if not c:
            continue
        n_seeds = max(n_seeds, len(c))
        late_c = np.array([r["late_bad"] for r in c], float)
        late_w = np.array([r["late_bad"] for r in w], float)
        boot = []
        for _ in range(RESAMPLES):
            i = rng.integers(0, len(c), len(c))
            boot.append(ratio(late_w[i].sum(), late_c[i].sum()))
        # order statistics: a resample without constrained failures has
        # an infinite ratio, which np.percentile cannot interpolate
        boot.sort()
        lo, hi = boot[int(0.025 * RESAMPLES)], boot[int(0.975 * RESAMPLES) - 1]
        best = {m: np.array([r["best"] for r in runs[m]]) for m in runs}
        print("| %s | %d vs %d | %.2fx [%.2f, %.2f] | %s | %d vs %d | %.4f vs %.4f | %.4f vs %.4f |" % (
            prob, late_c.sum(), late_w.sum(), ratio(late_w.sum(), late_c.sum()), lo, hi,
            " / ".join("%.2f" % r for r in per_file),
            sum(r["all_bad"] for r in c), sum(r["all_bad"] for r in w),
            np.median(best["constrained"][:, 1]), np.median(best["worst-seen"][:, 1]),
            np.median(best["constrained"][:, 2]), np.median(best["worst-seen"][:, 2])))
    print()
    print("(%d seeds from %s; ratio = worst-seen / constrained; best = median over seeds)" % (
        n_seeds, ", ".join(paths)))


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) >= 2 else 2)
    main(sys.argv[1:])
