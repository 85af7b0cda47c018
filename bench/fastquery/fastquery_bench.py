#!/usr/bin/python3
"""
fastquery_bench.py
    The FastQuery tuning benchmark (issue 7): GP-EI studies of the
    `fastquery` preset with objective speedup_vs_default (every trial runs
    the default configuration beside the trial's, `repeats` pairs in
    alternating order), run by tuner's background workers, against a random
    search of the same budget measured by running tuner_fastquery_runner
    directly with the same `_settings`; then each study's kept
    configuration, the random search's best and the default (a control)
    are re-measured with more paired runs, and the verdicts (>= 1.5x the
    default, or >= 90% of the measured ceiling when that is below 1.5x) use
    the re-measured speedups.  Normally started by bench/fastquery/run.sh;
    the PG* variables must reach a server where the caller may run
    programs.  See bench/README.md, section 11.
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
import runinfo                                  # noqa: E402
import tuning                                   # noqa: E402
from tuning import log, fmt, q                  # noqa: E402
RESULTS = os.path.join(os.path.dirname(HERE), "results")
KEY = "speedup_vs_default"
PRESET = "fastquery"
# Columns of the per-trial tables: (short name, parameter, width).
TABLE = tuning.Table(
    [("bins", "bins", 4), ("layout", "layout", 10), ("io", "io", 11), ("ds_read", "romio_ds_read", 9),
     ("cb_read", "romio_cb_read", 9), ("cb_write", "romio_cb_write", 9), ("cb_buf", "cb_buffer_size", 8),
     ("rk", "ranks", 2), ("cbn", "cb_nodes", 3), ("th", "threads", 2), ("ovl", "overlap", 5),
     ("align", "align", 7)],
    [("total_s", "total_s", 2, 7), ("dflt_s", "total_s_default", 2, 7)])
# The one constraint of the preset's space, checked against the study's
# own list so that a change of the preset stops the random search here.
CONSTRAINTS = {"cb_nodes <= ranks": lambda c: c["cb_nodes"] <= c["ranks"]}


def detail(m):
    return "total %s s vs default %s s" % (fmt(m.get("total_s"), 2), fmt(m.get("total_s_default"), 2))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--studies", type=int, help="studies per algorithm (default 1; seeds seed-base..)")
    ap.add_argument("--algorithms", default="gp-ei",
                    help="comma-separated tuner algorithms, each run --studies times (default gp-ei)")
    ap.add_argument("--trials", type=int, help="trials per study (default 30)")
    ap.add_argument("--random", type=int, help="random-search configurations (default: --trials, the same budget)")
    ap.add_argument("--particles", type=int, help="data set size (default 16777216 = 2^24)")
    ap.add_argument("--repeats", type=int, help="pairs (default, trial) per trial, order alternating (default 2)")
    ap.add_argument("--remeasure", type=int, help="extra paired runs (each of --repeats pairs) per candidate "
                                                  "(default 5)")
    ap.add_argument("--run-timeout", type=int,
                    help="seconds allowed per run (gen + build + query); a trial's timeout_s is this times "
                         "2 x repeats (default 300)")
    ap.add_argument("--n-initial", type=int, help="study setting n_initial (default: the preset's 5)")
    ap.add_argument("--seed-base", type=int, default=1, help="study seeds (default 1, 2, ...)")
    ap.add_argument("--random-seed", type=int, default=0)
    ap.add_argument("--data-dir", default="/tmp/tuner_bench_fastquery",
                    help="runner data_dir shared by all runs: the cached data sets and the indexes "
                         "(default /tmp/tuner_bench_fastquery; ~470 MB per layout/alignment at 2^24)")
    ap.add_argument("--keep", choices=["recommend", "best"], default="recommend",
                    help="the configuration a study keeps (and is judged by): tuner.recommend (default; the "
                         "best single trial is re-measured too when it differs) or tuner.best")
    ap.add_argument("--target", type=float, default=1.5)
    ap.add_argument("--ceiling-fraction", type=float, default=0.9)
    ap.add_argument("--smoke", action="store_true",
                    help="harness check: 2^20 particles, 1 study x 3 trials (n_initial 2, so trial 3 is GP-EI), "
                         "random 3, remeasure 1, repeats 2")
    ap.add_argument("--out", help="results JSON (default bench/results/fastquery-<time>.json)")
    a = ap.parse_args()
    dflt = (dict(studies=1, trials=3, random=3, particles=1 << 20, repeats=2, remeasure=1, run_timeout=120,
                 n_initial=2) if a.smoke
            else dict(studies=1, trials=30, random=None, particles=1 << 24, repeats=2, remeasure=5,
                      run_timeout=300, n_initial=None))
    for k, v in dflt.items():
        if getattr(a, k) is None:
            setattr(a, k, v)
    if a.random is None:
        a.random = a.trials
    if not 1 <= a.repeats <= 16:
        ap.error("--repeats must be in 1..16 (the runner's limit)")

    t_start = time.time()
    out = {"started": datetime.datetime.now().isoformat(timespec="seconds"), "argv": sys.argv[1:],
           "args": vars(a), "host": platform.node(), "cpus": os.cpu_count(), "git": runinfo.git_info(),
           "loadavg_start": runinfo.loadavg()}
    conn = connect()
    out["server"] = q(conn, "SELECT version()")[0][0]
    out["tuner_version"] = q(conn, "SELECT extversion FROM pg_extension WHERE extname = 'tuner'")[0][0]
    out["tuner_so"] = runinfo.loaded_library(conn)
    # A private install (DESTDIR, as bench/fastquery/run.sh passes it to
    # the server) has its own runner: register that one by absolute path,
    # so the studies' workers and the direct runs run the same program.
    bindir = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=True).stdout.strip()
    program = os.environ.get("DESTDIR", "") + os.path.join(bindir, "tuner_fastquery_runner")
    if not os.access(program, os.X_OK):
        sys.exit("%s is not executable: build and install first (make install install-runner-fastquery [DESTDIR=...])" % program)
    q(conn, "SELECT tuner.register_runner('fastquery', %s)", (program,))
    # The server runs the runner as its own OS user; the direct runs do the
    # same (when we are root) and share the data dir, so every run reads
    # the same cached data files.
    server_user = tuning.server_user(conn, a.data_dir)
    timeout_s = a.run_timeout * 2 * a.repeats
    runner_settings = {"paired": True, "repeats": a.repeats, "particles": a.particles,
                       "data_dir": a.data_dir, "timeout_s": timeout_s}
    study_settings = {"runner": runner_settings, "trial_timeout_s": timeout_s + 60}
    if a.n_initial:
        study_settings["n_initial"] = a.n_initial
    log("FastQuery tuning benchmark  %s  (%s, %d CPUs, load %s)" %
        (out["started"], platform.node(), os.cpu_count(), " ".join("%.2f" % x for x in os.getloadavg())))
    log("tuner %s, %s; runner %s%s; commit %s%s" %
        (out["tuner_version"], out["server"].split(",")[0], program, " as " + server_user if server_user else "",
         out["git"]["commit"], " (dirty)" if out["git"]["dirty"] else ""))
    log("%d studies x %d trials (n_initial %s), random %d, re-measure %d, runner settings %s" %
        (a.studies, a.trials, a.n_initial or "preset default", a.random, a.remeasure, json.dumps(runner_settings)))

    # The space and the exact _settings the studies' trials get.
    space, constraints, settings, trial_timeout = tuning.reference(conn, "fastquery_bench_ref", PRESET, KEY,
                                                                   study_settings)
    unknown = [c for c in constraints if c not in CONSTRAINTS]
    if unknown:
        sys.exit("the random search does not know the preset's constraint(s) %s" % unknown)
    out["space"], out["constraints"], out["direct_settings"] = space, constraints, settings
    runner = tuning.Runner(program, settings, trial_timeout, server_user, KEY, keep_diagnostics=True)

    # 0. Warm-up, not counted: generates the default layout's data set
    # (cached in the data dir afterwards) so that no trial pays for it.
    w = tuning.Runner(program, dict(settings, paired=False, repeats=1), trial_timeout, server_user, "total_s").run({})
    log("warm-up (default configuration, unpaired, not counted): %s, gen %s s, total %s s, %.0f s wall" %
        ("ok" if w["ok"] else w.get("error"), fmt((w.get("metrics") or {}).get("gen_s"), 1),
         fmt(w.get("total_s"), 2), w["seconds"]))
    out["warmup"] = w
    log()

    # 1. The studies, one at a time (parallel trials disturb each other).
    studies = []
    for alg in a.algorithms.split(","):
        for i in range(a.studies):
            seed = a.seed_base + i
            name = "fastquery_bench_s%d" % seed if alg == "gp-ei" else \
                "fastquery_bench_%s_s%d" % (alg.replace("-", "_"), seed)
            studies.append(tuning.run_study(conn, name, PRESET, KEY, dict(study_settings, seed=seed), a.trials,
                                            trial_timeout, TABLE, KEY, alg))
    out["studies"] = studies

    # 2. Random search, the same budget.
    t0 = time.time()
    valid = lambda c: all(CONSTRAINTS[e](c) for e in constraints)  # noqa: E731
    out["random"] = tuning.random_search(runner, space, a.random, a.random_seed, TABLE, KEY, valid)
    out["random"]["seconds"] = time.time() - t0

    # 3. Re-measurement and verdicts.
    cands = [("default", {}, None)]
    for s in studies:
        label = "study s%d" % s["seed"] if s["algorithm"] == "gp-ei" else \
            "study %s s%d" % (s["algorithm"], s["seed"])
        kept = s["kept"] if a.keep == "recommend" else s["best"]
        if kept:
            cands.append((label, kept["params"], kept[KEY]))
        # the best single trial too when it differs: how much the choice matters
        if a.keep == "recommend" and s["best"] and kept and s["best"]["number"] != kept["number"]:
            cands.append((label.replace("study", "best"), s["best"]["params"], s["best"][KEY]))
    if out["random"]["best"]:
        cands.append(("random best", out["random"]["best"]["params"], out["random"]["best"][KEY]))
    t0 = time.time()
    out["remeasure"] = tuning.remeasure(runner, cands, a.remeasure, KEY, detail) if a.remeasure > 0 else []
    out["remeasure_seconds"] = time.time() - t0
    out["verdicts"] = tuning.verdicts(out["remeasure"], a.target, a.ceiling_fraction) if out["remeasure"] else None
    if a.smoke:
        log("  (smoke run: 2^20 particles and 3 trials exercise the harness; the verdicts above mean nothing)")

    st = [r["seconds"] for s in studies for r in s["trials"] if r["seconds"] is not None]
    dt = [r["seconds"] for r in out["random"]["runs"]] + \
         [r["seconds"] for c in out["remeasure"] for r in c["runs"]]
    out["seconds"] = time.time() - t_start
    out["loadavg_end"] = runinfo.loadavg()
    log()
    log("wall time %.0f s (studies %s, random search %.0f s, re-measurement %.0f s); "
        "mean seconds per trial (%d pairs): study %s, direct %s" %
        (out["seconds"], " + ".join("%.0f" % s["seconds"] for s in studies), out["random"]["seconds"],
         out["remeasure_seconds"], a.repeats, fmt(sum(st) / len(st) if st else None, 1),
         fmt(sum(dt) / len(dt) if dt else None, 1)))
    path = a.out or os.path.join(RESULTS, "fastquery-%s.json" % datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
    tuning.write_results(out, path)


if __name__ == "__main__":
    main()
