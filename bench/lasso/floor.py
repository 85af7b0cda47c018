#!/usr/bin/python3
"""
floor.py
    How fast could an exact Lasso path + 5-fold CV be on this machine?
    (bench/README.md, section 5.)  For the speed benchmark's data (the
    generator of lasso_bench.py, seed = p), in one run, single-threaded,
    best CPU time of --repeats:
      - LassoCV(cv=5).fit(x, y) (scikit-learn, Debian's python3-sklearn);
      - tuner's exact solver, lasso_cv with {"solver": "fast"}, called from
        C on the same arrays (no PostgreSQL);
      - the floor of any exact homotopy solver (bench/lasso/floor.c): only
        the BLAS calls that the support changes of the six paths force.
    LassoCV / floor is the largest speed-up an exact homotopy solver could
    reach here, whatever else it did better; "the 5 fold paths" drops
    tuner's extra path on every row (entered_at), which LassoCV does not
    compute.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LassoCV

warnings.filterwarnings("ignore", category=ConvergenceWarning)
here = os.path.dirname(os.path.abspath(__file__))


def data(p, seed):
    # the same draws, in the same order, as lasso_bench.speed()
    rng = np.random.default_rng(seed)
    n = 300
    x = rng.standard_normal((n, p))
    beta = np.zeros(p)
    idx = rng.choice(p, 16, replace=False)
    beta[idx] = rng.uniform(0.5, 2.0, 16) * rng.choice([-1.0, 1.0], 16)
    y = x @ beta + rng.standard_normal(n)
    return x, y


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--floor", required=True, help="the built floor program")
    args = ap.parse_args()
    print("| n | p | LassoCV ms | tuner fast ms | LassoCV / tuner | support changes | "
          "floor: steps ms | floor: Gram ms | floor ms | LassoCV / floor | floor of the 5 fold paths ms | LassoCV / that |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for p in (200, 1000):
            x, y = data(p, seed=p)
            xf, yf = os.path.join(tmp, "x.bin"), os.path.join(tmp, "y.bin")
            x.astype("<f8").tofile(xf)
            y.astype("<f8").tofile(yf)
            ts = []
            for _ in range(args.repeats):
                t = time.process_time()
                LassoCV(cv=5).fit(x, y)
                ts.append(time.process_time() - t)
            sk = 1000 * min(ts)
            out = subprocess.run([args.floor, xf, yf, str(len(y)), str(p), str(args.repeats)],
                                 check=True, capture_output=True, text=True).stdout
            r = dict(line.split() for line in out.splitlines())
            fl = float(r["floor_ms"])
            fast = float(r["fast_solver_ms"])
            ff = float(r["floor_folds_ms"])
            print("| %d | %d | %.1f | %.1f | %.2fx | %s | %s | %s | %.1f | %.2fx | %.1f | %.2fx |"
                  % (len(y), p, sk, fast, sk / fast, r["support_changes"],
                     r["floor_steps_ms"], r["floor_gram_ms"], fl, sk / fl, ff, sk / ff),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
