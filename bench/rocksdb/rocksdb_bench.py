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
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))       # bench/: the shared db.py, tuning.py
from db import connect                          # noqa: E402
import tuning                                   # noqa: E402
from tuning import log, fmt, q                  # noqa: E402
RESULTS = os.path.join(os.path.dirname(HERE), "results")
KEY = "ratio_to_default"
# Columns of the per-trial tables (short names, parameter names).
KEY_PARAMS = [("wbs", "write_buffer_size"), ("mwbn", "max_write_buffer_number"),
              ("merge", "min_write_buffer_number_to_merge"),
              ("l0trig", "level0_file_num_compaction_trigger"),
              ("bgc", "max_background_compactions"), ("block", "block_size")]
TABLE = tuning.Table(KEY_PARAMS, [("ops/s", "ops_per_sec", 0, 8), ("dflt ops/s", "ops_per_sec_default", 0, 10)])


def run_study(conn, name, seed, trials, runner, timeout_s, n_initial, algorithm="gp-ei", noise_sd=None):
    settings = {"seed": seed, "runner": runner}
    if n_initial:
        settings["n_initial"] = n_initial
    if noise_sd:
        settings["noise_sd"] = noise_sd
    # clustered-icm uses the preset's clusters (tuner.clusters)
    return tuning.run_study(conn, name, "rocksdb", None, settings, trials, timeout_s, TABLE, KEY, algorithm)


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
    server_user = tuning.server_user(conn, a.work_dir)
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
    space, _, settings, timeout_s = tuning.reference(conn, "rocksdb_bench_ref", "rocksdb", None,
                                                     {"runner": runner_settings})
    out["space"], out["direct_settings"] = space, settings
    runner = tuning.Runner(program, settings, timeout_s, server_user, KEY)

    # 2. Random search.
    t0 = time.time()
    out["random"] = tuning.random_search(runner, space, a.random, a.random_seed, TABLE, KEY)
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
    out["remeasure"] = tuning.remeasure(
        runner, cands, a.remeasure, KEY,
        lambda m: "%s ops/s vs default %s" % (fmt(m.get("ops_per_sec"), 0), fmt(m.get("ops_per_sec_default"), 0))
    ) if a.remeasure > 0 else []
    out["remeasure_seconds"] = time.time() - t0
    out["verdicts"] = tuning.verdicts(out["remeasure"], a.target, a.ceiling_fraction) if out["remeasure"] else None
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
    tuning.write_results(out, path)


if __name__ == "__main__":
    main()
