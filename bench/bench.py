#!/usr/bin/python3
"""
bench.py
    The tuner benchmark: suggestion latency and sample efficiency against
    scikit-learn GP-EI, Optuna TPE and random search.  Normally started by
    bench/run.sh, which provides a throwaway cluster through pg_virtualenv;
    here the PG* environment variables must reach a server with tuner
    installed.  See bench/README.md.
"""
import argparse
import datetime
import json
import os
import platform
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def int_list(s):
    return [int(v) for v in s.split(",") if v]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="small subset: latency n=10,100 d=10 (5 calls); efficiency branin,hartmann6, 3 seeds")
    ap.add_argument("--skip-latency", action="store_true")
    ap.add_argument("--skip-efficiency", action="store_true")
    ap.add_argument("--no-tuner", action="store_true", help="baselines only (no database needed)")
    ap.add_argument("--ns", type=int_list, help="latency: observations (default 10,50,100,200,500)")
    ap.add_argument("--ds", type=int_list, help="latency: dimensions (default 6,10,20)")
    ap.add_argument("--reps", type=int, help="latency: timed calls per method (default 10)")
    ap.add_argument("--sk-reps-large", type=int, help="latency: sklearn GP-EI calls when n >= 200 (default 5)")
    ap.add_argument("--cold", action="store_true",
                    help="latency: no previous fit stored in the study (default: warm)")
    ap.add_argument("--failed-percent", type=float, default=0,
                    help="latency: also time each study with this many failed trials per 100 "
                         "completed ones (issue 28)")
    ap.add_argument("--no-latency-sklearn", action="store_true")
    ap.add_argument("--no-latency-tpe", action="store_true")
    ap.add_argument("--functions", help="efficiency: comma list of branin,hartmann6,ackley10,rosenbrock10,levy10,stybtang20,griewank10")
    ap.add_argument("--methods", help="efficiency: comma list of tuner,random,tpe,gpei; tuner-wK: tuner with K "
                    "trials kept outstanding (K concurrent workers, deterministic)")
    ap.add_argument("--seeds", type=int, help="efficiency: number of seeds (default 10), seeds 0..N-1")
    ap.add_argument("--budget", type=int, default=50)
    ap.add_argument("--jobs", type=int, default=2, help="efficiency: parallel processes (default 2)")
    ap.add_argument("--ackley-domain", choices=["offcentre", "sfu"], default="offcentre",
                    help="offcentre = [-5,10]^10 (default), sfu = [-32.768,32.768]^10")
    ap.add_argument("--tuner-settings", default="{}",
                    help="efficiency: extra study settings (jsonb) for tuner, e.g. '{\"n_initial\": 10}'")
    ap.add_argument("--out", help="results JSON (default bench/results/bench-<time>.json)")
    a = ap.parse_args()

    ns = a.ns or ([10, 100] if a.quick else [10, 50, 100, 200, 500])
    ds = a.ds or ([10] if a.quick else [6, 10, 20])
    reps = a.reps or (5 if a.quick else 10)
    sk_reps_large = a.sk_reps_large or (3 if a.quick else 5)
    fnames = (a.functions.split(",") if a.functions
              else (["branin", "hartmann6"] if a.quick else ["branin", "hartmann6", "ackley10", "rosenbrock10"]))
    mnames = a.methods.split(",") if a.methods else ["tuner", "random", "tpe", "gpei"]
    if a.no_tuner:
        mnames = [m for m in mnames if not m.startswith("tuner")]
    seeds = list(range(a.seeds if a.seeds else (3 if a.quick else 10)))

    import latency
    import efficiency

    lines = []

    def log(s=""):
        print(s, flush=True)
        lines.append(s)

    out = {"started": datetime.datetime.now().isoformat(timespec="seconds"),
           "argv": sys.argv[1:], "host": platform.node(), "cpus": os.cpu_count(),
           "openblas_threads": os.environ.get("OPENBLAS_NUM_THREADS")}
    log("tuner benchmark  %s  (%s, %d CPUs, OPENBLAS_NUM_THREADS=%s)"
        % (out["started"], platform.node(), os.cpu_count(), out["openblas_threads"]))
    if not a.no_tuner:
        import methods
        conn = methods.connect()
        with conn.cursor() as cur:
            cur.execute("SELECT extversion FROM pg_extension WHERE extname = 'tuner'")
            out["tuner_version"] = cur.fetchone()[0]
            cur.execute("SELECT version()")
            out["server"] = cur.fetchone()[0]
        import hashlib
        from runinfo import loaded_library
        out["tuner_so"] = loaded_library(conn)
        conn.close()
        try:
            with open(out["tuner_so"], "rb") as fh:
                out["tuner_so_sha256"] = hashlib.sha256(fh.read()).hexdigest()
        except (OSError, TypeError):
            out["tuner_so_sha256"] = None
        log("tuner %s (%s, sha256 %s) on %s" % (out["tuner_version"], out["tuner_so"],
                                                    (out["tuner_so_sha256"] or "?")[:12],
                                                    out["server"].split(",")[0]))

    t0 = time.time()
    if not a.skip_latency:
        out["latency"] = latency.run(ns, ds, reps, sk_reps_large, not a.no_tuner,
                                     not a.no_latency_sklearn, not a.no_latency_tpe, log,
                                     warm=not a.cold, failed_percent=a.failed_percent)
    if not a.skip_efficiency:
        out["efficiency"] = efficiency.run(fnames, mnames, seeds, a.budget, a.jobs,
                                           a.ackley_domain, json.loads(a.tuner_settings), log)
    out["seconds"] = time.time() - t0
    log("")
    log("total %.0f s" % out["seconds"])

    path = a.out or os.path.join(HERE, "results",
                                 "bench-%s.json" % datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    out["log"] = lines
    with open(path, "w") as fh:
        json.dump(out, fh, indent=1)
    print("results written to %s" % os.path.relpath(path), flush=True)


if __name__ == "__main__":
    main()
