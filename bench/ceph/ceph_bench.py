#!/usr/bin/python3
"""
ceph_bench.py
    The Ceph tuning benchmark (issue 6): Sapphire studies of the `ceph`
    preset on the local test cluster (tests/ceph/cluster.sh), run by tuner's
    background workers, with objective write_ratio: each trial runs the
    default configuration beside the trial's (`repeats` pairs, order
    alternating) and reports the geometric mean of the per-pair ratios of
    4 MiB write bandwidth.  Against them, a random search of the same budget
    over the same space, measured by running tuner_ceph directly with the
    same `_settings`.  Then each study's kept configuration, its best single
    trial, the random search's best and the default (a control, default
    against default) are re-measured with more paired runs; printed are
    the Lasso ranking each study produced, the verdicts (>= 1.5x the
    default, or >= 90% of the measured ceiling when that is below 1.5x) on
    the re-measured ratios, and the paired ratio's noise (the control's CV
    across runs, the per-pair CV within a run, the raw default bandwidth's
    CV).  Normally started by bench/ceph/run.sh, which starts (or reuses)
    the cluster as the server's OS user; the PG* variables must reach a
    server where the caller may run programs.  See bench/README.md,
    section 12.
"""
import argparse
import datetime
import json
import os
import platform
import pwd
import subprocess
import sys
import time

import psycopg2

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))       # bench/: the shared db.py, tuning.py
from db import connect                          # noqa: E402
import runinfo                                  # noqa: E402
import tuning                                   # noqa: E402
from tuning import log, fmt, q                  # noqa: E402
RESULTS = os.path.join(os.path.dirname(HERE), "results")
PRESET = "ceph"
# Columns of the per-trial tables (short name, parameter, width): the
# preset's thread and throttle knobs; those the space lacks are left out.
PARAM_COLUMNS = [("shards", "osd_op_num_shards", 6), ("thr", "osd_op_num_threads_per_shard", 3),
                 ("msgr", "ms_async_op_threads", 4), ("bs_thr_bytes", "bluestore_throttle_bytes", 12),
                 ("dfr_ops", "bluestore_deferred_batch_ops", 7), ("csum", "bluestore_csum_type", 8),
                 ("cmsg", "osd_client_message_cap", 5), ("objops", "objecter_inflight_ops", 6)]
# Per objective: the phase and the throughput measure the tables show.
OBJECTIVES = {"write_ratio": ("write", "mbps", "MiB/s"), "rand_read_ratio": ("rand_read", "iops", "IOPS")}


def ranking(conn, name):
    """The ranking a Sapphire study produced: the parameters it kept for
    its model phase (the sapphire_model event, after `explore` trials) and
    tuner.lasso_rank over all its complete trials."""
    ev = q(conn, """SELECT e.trials, e.detail FROM tuner.study_event e JOIN tuner.study s ON s.id = e.study_id
                     WHERE s.name = %s AND e.event = 'sapphire_model' ORDER BY e.id DESC LIMIT 1""", (name,))
    complete = q(conn, "SELECT count(*) FROM tuner.trials WHERE study = %s AND state = 'complete'", (name,))[0][0]
    out = {"study": name, "complete": complete, "model_after": ev[0][0] if ev else None,
           "enabled": ev[0][1].get("enabled") if ev else None, "lasso": None, "error": None}
    if ev:
        log("sapphire ranked after %d complete trials and modelled its top %d (in parameter order): %s" %
            (ev[0][0], len(out["enabled"]), ", ".join(out["enabled"])))
    else:
        log("sapphire never reached its model phase (fewer complete trials than explore)")
    try:
        rows = q(conn, """SELECT parameter, coefficient, importance, rank, entered_at
                            FROM tuner.lasso_rank(%s) ORDER BY rank""", (name,))
    except psycopg2.Error as e:
        out["error"] = str(e).strip()
        log("tuner.lasso_rank(%s) failed: %s" % (name, out["error"].splitlines()[0]))
        log()
        return out
    out["lasso"] = [{"parameter": p, "coefficient": c, "importance": i, "rank": r, "entered_at": e}
                    for p, c, i, r, e in rows]
    log("Lasso ranking (tuner.lasso_rank over the %d complete trials; importance = |standardized coefficient|)"
        % complete)
    log("%4s  %-34s %10s %11s %7s" % ("rank", "parameter", "importance", "coefficient", "entered"))
    for r in out["lasso"]:
        log("%4d  %-34s %10s %11s %7s" % (r["rank"], r["parameter"], fmt(r["importance"], 4),
                                          fmt(r["coefficient"], 4), r["entered_at"] or "-"))
    log()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--studies", type=int, help="Sapphire studies (default 1; seeds seed-base..)")
    ap.add_argument("--trials", type=int, help="trials per study (default 40)")
    ap.add_argument("--explore", type=int, help="sapphire exploration trials before the ranking (default 20, "
                                                "the preset's)")
    ap.add_argument("--top-k", type=int, help="parameters sapphire models after the ranking (default 5, "
                                              "the preset's)")
    ap.add_argument("--random", type=int, help="random-search configurations (default: --trials, the same budget)")
    ap.add_argument("--repeats", type=int, help="pairs (default, trial) per trial, order alternating (default 2)")
    ap.add_argument("--duration", type=float, help="seconds of each phase (write, seq read, rand read) of a run "
                                                   "(default 3, the preset's)")
    ap.add_argument("--remeasure", type=int, help="extra paired runs (each of --repeats pairs) per candidate "
                                                  "(default 5)")
    ap.add_argument("--objective", choices=sorted(OBJECTIVES), default="write_ratio",
                    help="write_ratio (4 MiB writes, the preset's default measure; default) or rand_read_ratio "
                         "(4 KiB random reads)")
    ap.add_argument("--trial-timeout", type=int,
                    help="seconds allowed per trial (default: 600, or more for many pairs or long phases)")
    ap.add_argument("--noise-sd", type=float,
                    help="study setting noise_sd that tuner.recommend floors its fit with (default: not set)")
    ap.add_argument("--cluster-dir",
                    help="the test cluster's directory (default $TUNER_CEPH_DIR, else /var/tmp/tuner-ceph-<uid> "
                         "of the server's OS user)")
    ap.add_argument("--seed-base", type=int, default=1, help="study seeds (default 1, 2, ...)")
    ap.add_argument("--random-seed", type=int, default=0)
    ap.add_argument("--keep", choices=["recommend", "best"], default="recommend",
                    help="the configuration a study keeps (and is judged by): tuner.recommend (default; the "
                         "best single trial is re-measured too when it differs) or tuner.best")
    ap.add_argument("--target", type=float, default=1.5)
    ap.add_argument("--ceiling-fraction", type=float, default=0.9)
    ap.add_argument("--smoke", action="store_true",
                    help="harness check: 1 study x 6 trials (explore 5, top_k 3, so trial 6 is a model trial), "
                         "random 2, re-measure 1, 2 pairs per trial, 1 s phases")
    ap.add_argument("--out", help="results JSON (default bench/results/ceph-<time>.json)")
    a = ap.parse_args()
    dflt = (dict(studies=1, trials=6, explore=5, top_k=3, random=2, repeats=2, duration=1.0, remeasure=1)
            if a.smoke else
            dict(studies=1, trials=40, explore=20, top_k=5, random=None, repeats=2, duration=3.0, remeasure=5))
    for k, v in dflt.items():
        if getattr(a, k) is None:
            setattr(a, k, v)
    if a.random is None:
        a.random = a.trials
    if not 1 <= a.repeats <= 16:
        ap.error("--repeats must be in 1..16 (the runner's limit)")
    if a.explore < 5:
        ap.error("--explore must be at least 5 (the ranking's 5-fold cross-validation)")
    phase, measure, unit = OBJECTIVES[a.objective]
    key = a.objective
    # A paired trial: 2 x repeats runs of three phases, and an OSD restart
    # at each switch between configurations that differ in a restart-only
    # option (~10-20 s here), plus the restore.
    if a.trial_timeout is None:
        a.trial_timeout = max(600, int(a.repeats * (6 * a.duration + 90) + 120))

    t_start = time.time()
    out = {"started": datetime.datetime.now().isoformat(timespec="seconds"), "argv": sys.argv[1:],
           "args": vars(a), "host": platform.node(), "cpus": os.cpu_count(), "git": runinfo.git_info(),
           "loadavg_start": runinfo.loadavg()}
    conn = connect()
    out["server"] = q(conn, "SELECT version()")[0][0]
    out["tuner_version"] = q(conn, "SELECT extversion FROM pg_extension WHERE extname = 'tuner'")[0][0]
    out["tuner_so"] = runinfo.loaded_library(conn)
    # A private install (DESTDIR, as bench/ceph/run.sh passes it to the
    # server) has its own runner: register that one by absolute path, so
    # the studies' workers and the direct runs run the same program.
    bindir = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=True).stdout.strip()
    program = os.environ.get("DESTDIR", "") + os.path.join(bindir, "tuner_ceph")
    if not os.access(program, os.X_OK):
        sys.exit("%s is not executable: build and install first (make install install-runner-ceph [DESTDIR=...])" % program)
    q(conn, "SELECT tuner.register_runner('ceph', %s)", (program,))
    dba = q(conn, "SELECT pg_catalog.pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'template0'")[0][0]
    cluster_dir = a.cluster_dir or os.environ.get("TUNER_CEPH_DIR") or \
        "/var/tmp/tuner-ceph-%d" % (pwd.getpwnam(dba).pw_uid if os.geteuid() == 0 else os.geteuid())
    if not os.path.exists(os.path.join(cluster_dir, "catalog.json")):
        sys.exit("no test cluster in %s (no catalog.json): start it as the server's OS user, "
                 "runuser -u %s -- bash tests/ceph/cluster.sh start, or run bench/ceph/run.sh" % (cluster_dir, dba))
    # The server runs the runner as its own OS user; the direct runs do the
    # same (when we are root): the cluster's keyring and state are its.
    server_user = dba if os.geteuid() == 0 else None
    runner_settings = {"cluster_dir": cluster_dir, "duration_s": a.duration, "repeats": a.repeats,
                       "paired": True, "restore": True}
    study_settings = {"runner": runner_settings, "trial_timeout_s": a.trial_timeout}
    if a.noise_sd:
        study_settings["noise_sd"] = a.noise_sd
    log("Ceph tuning benchmark  %s  (%s, %d CPUs, load %s)" %
        (out["started"], platform.node(), os.cpu_count(), " ".join("%.2f" % x for x in os.getloadavg())))
    log("tuner %s, %s; runner %s%s; commit %s%s" %
        (out["tuner_version"], out["server"].split(",")[0], program, " as " + server_user if server_user else "",
         out["git"]["commit"], " (dirty)" if out["git"]["dirty"] else ""))
    log("objective %s; %d sapphire studies x %d trials (explore %d, top_k %d), random %d, re-measure %d, "
        "trial timeout %d s, runner settings %s" %
        (key, a.studies, a.trials, a.explore, a.top_k, a.random, a.remeasure, a.trial_timeout,
         json.dumps(runner_settings)))

    # The space and the exact _settings the studies' trials get.
    space, constraints, settings, trial_timeout = tuning.reference(conn, "ceph_bench_ref", PRESET, key,
                                                                   study_settings)
    if constraints:
        sys.exit("the random search does not know the preset's constraint(s) %s" % constraints)
    out["space"], out["direct_settings"] = space, settings
    names = [p[0] for p in space]
    log("space: %d parameters: %s" % (len(space), ", ".join(names)))
    table = tuning.Table([c for c in PARAM_COLUMNS if c[1] in names],
                         [(unit, "%s_%s" % (phase, measure), 1, 7), ("dflt", "%s_%s_default" % (phase, measure), 1, 7),
                          ("pairCV", "%s_ratio_cv" % phase, 3, 6)])
    runner = tuning.Runner(program, settings, trial_timeout, server_user, key, keep_diagnostics=True)

    # 0. Warm-up, not counted: the first writes after a cluster start
    # allocate BlueStore's space; and it shows the cluster works.
    w = tuning.Runner(program, dict(settings, paired=False, repeats=1), trial_timeout, server_user,
                      "%s_%s" % (phase, measure)).run({})
    log("warm-up (default configuration, unpaired, not counted): %s, %s %s, %.0f s wall" %
        ("ok" if w["ok"] else w.get("error"), unit, fmt(w.get("%s_%s" % (phase, measure)), 1), w["seconds"]))
    out["warmup"] = w
    log()
    if not w["ok"]:
        sys.exit("the cluster does not work: %s" % w.get("error"))

    # 1. The studies, one at a time (one cluster: trials cannot overlap),
    # each followed by the ranking it produced.
    studies, rankings = [], []
    for i in range(a.studies):
        seed = a.seed_base + i
        name = "ceph_bench_s%d" % seed
        studies.append(tuning.run_study(conn, name, PRESET, key, dict(study_settings, seed=seed), a.trials,
                                        trial_timeout, table, key, "sapphire",
                                        {"explore": a.explore, "top_k": min(a.top_k, len(space))}))
        rankings.append(ranking(conn, name))
    out["studies"], out["rankings"] = studies, rankings
    # The random search draws every parameter independently: a conditional
    # parameter would need its condition honoured.
    cond = q(conn, """SELECT p.name FROM tuner.parameter p JOIN tuner.study s ON s.id = p.study_id
                       WHERE s.name = %s AND p.condition IS NOT NULL""", (studies[0]["name"],))
    if cond:
        sys.exit("the random search does not know conditional parameters: %s" % [c[0] for c in cond])

    # 2. Random search, the same budget.
    t0 = time.time()
    out["random"] = tuning.random_search(runner, space, a.random, a.random_seed, table, key)
    out["random"]["seconds"] = time.time() - t0

    # 3. Re-measurement and verdicts.
    cands = [("default", {}, None)]
    for s in studies:
        label = "study s%d" % s["seed"]
        kept = s["kept"] if a.keep == "recommend" else s["best"]
        if kept:
            cands.append((label, kept["params"], kept[key]))
        # the best single trial too when it differs: how much the choice matters
        if a.keep == "recommend" and s["best"] and kept and s["best"]["number"] != kept["number"]:
            cands.append((label.replace("study", "best"), s["best"]["params"], s["best"][key]))
    if out["random"]["best"]:
        cands.append(("random best", out["random"]["best"]["params"], out["random"]["best"][key]))
    t0 = time.time()

    def detail(m):
        return "%s %s vs default %s, pair CV %s" % (unit, fmt(m.get("%s_%s" % (phase, measure)), 1),
                                                     fmt(m.get("%s_%s_default" % (phase, measure)), 1),
                                                     fmt(tuning.finite(m.get("%s_ratio_cv" % phase))))
    out["remeasure"] = tuning.remeasure(runner, cands, a.remeasure, key, detail) if a.remeasure > 0 else []
    out["remeasure_seconds"] = time.time() - t0
    out["verdicts"] = tuning.verdicts(out["remeasure"], a.target, a.ceiling_fraction) if out["remeasure"] else None

    # 4. The paired measurement's noise: every run of the default against
    # itself (the studies' default trials, the re-measured control) and,
    # for the raw default measurement, every paired run.
    control = [r["metrics"] for s in studies for r in s["trials"] if r["source"] == "default" and r["metrics"]]
    control += [r["metrics"] for c in out["remeasure"] if c["label"] == "default" for r in c["runs"]
                if r.get("metrics")]
    others = [r["metrics"] for s in studies for r in s["trials"] if r["source"] != "default" and r["metrics"]]
    others += [r["metrics"] for r in out["random"]["runs"] if r.get("metrics")]
    others += [r["metrics"] for c in out["remeasure"] if c["label"] != "default" for r in c["runs"]
               if r.get("metrics")]
    n = tuning.paired_noise(control, others, key, "%s_%s_default" % (phase, measure), "%s_ratio_cv" % phase)
    out["noise"] = n
    log()
    log("noise of the paired measurement (default against default)")
    log("  %s over %d runs (%d pairs each): geometric mean %s, CV %s across runs" %
        (key, n["n"], a.repeats, fmt(n["gmean"]), fmt(n["cv"])))
    log("  per-pair ratio CV within a run (the runner's %s_ratio_cv): %s (mean of %d runs%s)" %
        (phase, fmt(n["within_cv"]), n["n_within"], "; needs 2 pairs" if a.repeats < 2 else ""))
    log("  raw default %s %s over %d runs (every paired run's default side): CV %s, the drift between runs "
        "that a paired ratio does not see" %
        (phase, unit, n["n_raw"], fmt(n["raw_cv"])))
    if a.smoke:
        log("  (smoke run: 1 s phases and 6 trials exercise the harness; the verdicts and noise above mean nothing)")

    # The cluster back at its defaults (each run restores them; this also
    # covers a run killed at its timeout).
    p = subprocess.run((["runuser", "-u", server_user, "--"] if server_user else []) + [program, "--reset"],
                       input=json.dumps({"_settings": settings}), capture_output=True, text=True, timeout=600,
                       cwd="/tmp")
    log("reset: %s" % (p.stdout.strip() if p.returncode == 0 else "exit %d: %s" % (p.returncode, p.stderr.strip())))

    st = [r["seconds"] for s in studies for r in s["trials"] if r["seconds"] is not None]
    dt = [r["seconds"] for r in out["random"]["runs"]] + \
         [r["seconds"] for c in out["remeasure"] for r in c["runs"]]
    out["seconds"] = time.time() - t_start
    out["loadavg_end"] = runinfo.loadavg()
    log()
    log("wall time %.0f s (warm-up %.0f s, studies %s, random search %.0f s, re-measurement %.0f s); "
        "mean seconds per trial (%d pairs): study %s, direct %s" %
        (out["seconds"], w["seconds"], " + ".join("%.0f" % s["seconds"] for s in studies), out["random"]["seconds"],
         out["remeasure_seconds"], a.repeats, fmt(sum(st) / len(st) if st else None, 1),
         fmt(sum(dt) / len(dt) if dt else None, 1)))
    path = a.out or os.path.join(RESULTS, "ceph-%s.json" % datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
    tuning.write_results(out, path)


if __name__ == "__main__":
    main()
