#!/usr/bin/env python3
"""
bar_share.py PROBLEM BAR [BAR ...] [--k K] [--n N] [--seed S]
    How hard a best@k bar is on a synthetic problem of problems.py: the
    share of N uniform configurations (noiseless objective) at least as
    good as BAR, and the probability that the best of K uniform
    configurations reaches it.  For a verdict that asks a method to reach
    BAR within K evaluations, this is what random search would do.
"""
import argparse

import numpy as np

import problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("problem", choices=sorted(problems.PROBLEMS))
    ap.add_argument("bars", type=float, nargs="+")
    ap.add_argument("--k", type=int, default=10, help="evaluations (default 10)")
    ap.add_argument("--n", type=int, default=400000, help="uniform configurations (default 400000)")
    ap.add_argument("--seed", type=int, default=11)
    a = ap.parse_args()
    p = problems.PROBLEMS[a.problem]
    values = p.true_values(p.sample_unit(np.random.default_rng(a.seed), a.n))[0]
    print("%s (%s): median uniform configuration %.6g, %d points" % (p.name, p.direction, np.median(values), a.n))
    for bar in a.bars:
        share = float(np.mean(values >= bar if p.direction == "maximize" else values <= bar))
        print("  bar %.6g: share at least as good %.4f; best of %d uniform reaches it with probability %.3f"
              % (bar, share, a.k, 1.0 - (1.0 - share) ** a.k))


if __name__ == "__main__":
    main()
