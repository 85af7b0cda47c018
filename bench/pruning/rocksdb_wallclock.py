#!/usr/bin/env python3
"""
rocksdb_wallclock.py
    Issue 30, bench (b): the real RocksDB study with and without pruning at
    the same wall-clock budget.

    For each seed and arm (pruning off; pruning on with --rule), a study of
    the rocksdb preset (paired ratio_to_default, db_bench mixgraph) is run
    by tuner.run with one background worker until --budget-s seconds have
    passed since it started; then tuner.stop, and the trial the stop
    interrupted does not count.  The configuration tuner.recommend picks is
    then confirmed by --pairs paired runs (tuner.confirm, run by one more
    worker) and tuner.confirmation gives its ratio with a 95 % CI.  Arms are
    interleaved (seed 1 off, seed 1 on, seed 2 off, ...) so that the
    machine's load hits both alike.

    Reported per study and per arm: configurations evaluated (complete +
    pruned trials within the budget), trials completed, best confirmed
    ratio with its CI, wall time, disturbed trials (tuner.trials.disturbed)
    and disturbed confirmation pairs, load averages.  Target (issue 30):
    at least 1.5x more configurations evaluated, and a best confirmed ratio
    no worse than without pruning.

    Needs tuner and tuner_rocksdb installed and a server where the caller
    may run programs; run through bench/pruning/run.sh --rocksdb (server
    choice: bench/server.sh).  With DESTDIR set, the runner registered is
    DESTDIR's tuner_rocksdb.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from db import connect  # noqa: E402
from runinfo import git_info, loadavg, loaded_library  # noqa: E402


def log(msg):
    print(time.strftime("%H:%M:%S"), msg, flush=True)


def q(conn, sql, args=None):
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall() if cur.description else None


def workers_alive(conn, study):
    return q(conn, "SELECT count(*) FROM tuner.job j JOIN tuner.study s ON s.id = j.study_id "
                   "WHERE s.name = %s AND j.state = 'running'", (study,))[0][0]


def wait_workers(conn, study, timeout_s):
    deadline = time.time() + timeout_s
    while workers_alive(conn, study) > 0:
        if time.time() > deadline:
            raise SystemExit("rocksdb_wallclock: the workers of %s did not stop within %d s" %
                             (study, timeout_s))
        time.sleep(1)


def run_arm(conn, a, seed, arm, rule):
    name = "wallclock_s%d_%s" % (seed, arm)
    q(conn, "SELECT tuner.drop_study(name) FROM tuner.study WHERE name = %s", (name,))
    settings = {"seed": seed, "max_retries": 0,
                "runner": {"duration_s": a.duration, "work_dir": a.work_dir}}
    if rule is not None:
        settings["pruning"] = rule
    q(conn, "SELECT tuner.create_study(%s, preset => 'rocksdb', settings => %s)",
      (name, json.dumps(settings)))
    load0 = loadavg()
    t0 = time.time()
    q(conn, "SELECT tuner.run(%s, trials => 10000, parallel => 1)", (name,))
    while time.time() - t0 < a.budget_s:
        if workers_alive(conn, name) == 0 and time.time() - t0 > 5:
            raise SystemExit("rocksdb_wallclock: the worker of %s stopped before the budget" % name)
        time.sleep(min(2.0, max(0.1, a.budget_s - (time.time() - t0))))
    q(conn, "SELECT tuner.stop(%s)", (name,))
    wait_workers(conn, name, 120)
    wall = time.time() - t0
    rows = q(conn, """
        SELECT state, count(*), count(*) FILTER (WHERE disturbed AND state IN ('complete', 'pruned'))
          FROM tuner.trials WHERE study = %s AND source NOT IN ('confirm', 'baseline')
         GROUP BY state""", (name,))
    states = {r[0]: r[1] for r in rows}
    disturbed = sum(r[2] for r in rows)
    # how long each finished trial took, by state
    dur = dict(q(conn, """
        SELECT state, avg(extract(epoch FROM finished_at - started_at))::float8
          FROM tuner.trials WHERE study = %s AND state IN ('complete', 'pruned')
           AND source NOT IN ('confirm', 'baseline') GROUP BY state""", (name,)))
    best = q(conn, "SELECT value FROM tuner.best(%s)", (name,))
    rec = q(conn, "SELECT r.trial, t.number, r.value, r.predicted FROM tuner.recommend(%s) r "
                  "JOIN tuner.trials t ON t.trial = r.trial", (name,))
    out = {"study": name, "seed": seed, "arm": arm, "rule": rule, "wall_s": wall,
           "complete": states.get("complete", 0), "pruned": states.get("pruned", 0),
           "failed": states.get("failed", 0), "interrupted": states.get("interrupted", 0),
           "disturbed": disturbed, "mean_s": dur, "best_single": best[0][0] if best else None,
           "load_start": load0, "load_end": loadavg()}
    out["configurations"] = out["complete"] + out["pruned"]
    # where the pruned trials were stopped (seconds into their db_bench runs)
    out["pruned_steps"] = [r[0] for r in q(conn, """
        SELECT max(p.step) FROM tuner.trials t JOIN tuner.trial_progress p ON p.trial_id = t.trial
         WHERE t.study = %s AND t.state = 'pruned' GROUP BY t.trial ORDER BY t.trial""", (name,))]
    # the search trials' curves and finals, for choosing a rule offline
    out["curves"] = [{"trial": r[0], "state": r[1], "value": r[2], "curve": r[3]} for r in q(conn, """
        SELECT t.number, t.state, t.value,
               (SELECT jsonb_agg(jsonb_build_array(p.step, p.metrics -> 'ratio_to_default') ORDER BY p.step)
                  FROM tuner.trial_progress p WHERE p.trial_id = t.trial
                   AND jsonb_typeof(p.metrics -> 'ratio_to_default') = 'number')
          FROM tuner.trials t WHERE t.study = %s AND t.state IN ('complete', 'pruned')
           AND t.source NOT IN ('confirm', 'baseline') ORDER BY t.number""", (name,))]
    log("%s: %.0f s, %d configurations (%d complete, %d pruned, %d failed), %d disturbed, "
        "mean trial %s, best single %s" %
        (name, wall, out["configurations"], out["complete"], out["pruned"], out["failed"], disturbed,
         {k: round(v, 1) for k, v in dur.items()}, None if best is None or not best else round(best[0][0], 3)))
    if not rec:
        log("%s: no complete trial, nothing to confirm" % name)
        out["confirmation"] = None
        return out
    out["recommended"] = {"trial": rec[0][1], "value": rec[0][2], "predicted": rec[0][3]}
    t1 = time.time()
    queued = q(conn, "SELECT tuner.confirm(%s, pairs => %s)", (name, a.pairs))[0][0]
    q(conn, "SELECT tuner.run(%s, trials => %s, parallel => 1)", (name, queued))
    time.sleep(1)
    wait_workers(conn, name, 60 * 60)
    c = q(conn, "SELECT number, pairs, ratio, ratio_low, ratio_high, verdict, lost, disturbed "
                "FROM tuner.confirmation(%s)", (name,))
    c = c[0] if c else None
    out["confirm_states"] = dict(q(conn, "SELECT state, count(*) FROM tuner.trials WHERE study = %s "
                                         "AND source IN ('confirm', 'baseline') GROUP BY state", (name,)))
    out["confirm_s"] = time.time() - t1
    out["confirmation"] = None if c is None else {
        "trial": c[0], "pairs": c[1], "ratio": c[2], "low": c[3], "high": c[4], "verdict": c[5],
        "lost": c[6], "disturbed": c[7]}
    if c is not None:
        log("%s: recommended trial %s confirmed %s [%s, %s] (%s pairs, %s lost, %s disturbed) in %.0f s" %
            (name, c[0], fmt(c[2]), fmt(c[3]), fmt(c[4]), c[1], c[6], c[7], out["confirm_s"]))
    return out


def fmt(x, d=3):
    return "-" if x is None else ("%.*f" % (d, x))


def summarise(results):
    print()
    print("| seed | arm | configurations | complete | pruned | failed | disturbed | wall s | "
          "recommended (its value, predicted) | confirmed ratio [95% CI] | pairs (disturbed) | load start -> end |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        c = r["confirmation"]
        rec = r.get("recommended")
        print("| %d | %s | %d | %d | %d | %d | %d | %.0f | %s | %s | %s | %s -> %s |" % (
            r["seed"], r["arm"], r["configurations"], r["complete"], r["pruned"], r["failed"],
            r["disturbed"], r["wall_s"],
            "-" if not rec else "%s (%s, %s)" % (rec["trial"], fmt(rec["value"]), fmt(rec["predicted"])),
            "-" if c is None else "%s [%s, %s]" % (fmt(c["ratio"]), fmt(c["low"]), fmt(c["high"])),
            "-" if c is None else "%s (%s)" % (c["pairs"], c["disturbed"]),
            r["load_start"][0], r["load_end"][0]))
    print()
    arms = {}
    for r in results:
        arms.setdefault(r["arm"], []).append(r)
    print("| arm | studies | configurations (mean) | complete (mean) | best confirmed ratio (mean) | "
          "confirmed ratios |")
    print("|---|---|---|---|---|---|")
    means = {}
    for arm, rs in arms.items():
        cf = sum(r["configurations"] for r in rs) / len(rs)
        cp = sum(r["complete"] for r in rs) / len(rs)
        ratios = [r["confirmation"]["ratio"] for r in rs if r["confirmation"] and r["confirmation"]["ratio"]]
        mr = sum(ratios) / len(ratios) if ratios else None
        means[arm] = (cf, mr)
        print("| %s | %d | %.1f | %.1f | %s | %s |" % (arm, len(rs), cf, cp, fmt(mr),
                                                       ", ".join(fmt(x) for x in ratios)))
    print()
    print("| arm | recommended trial's own value - its confirmed ratio (mean) | predicted - confirmed (mean) |")
    print("|---|---|---|")
    for arm, rs in arms.items():
        pairs = [(r["recommended"]["value"], r["recommended"]["predicted"], r["confirmation"]["ratio"])
                 for r in rs if r.get("recommended") and r["confirmation"] and r["confirmation"]["ratio"]]
        if pairs:
            predicted = [p - c for _, p, c in pairs if p is not None]
            print("| %s | %+.3f | %s |" % (
                arm, sum(v - c for v, _, c in pairs) / len(pairs),
                "%+.3f" % (sum(predicted) / len(predicted)) if predicted else "-"))
    if "off" in means and "on" in means and means["off"][0] > 0:
        print()
        print("configurations evaluated, on/off: %.2fx (target >= 1.5x)" % (means["on"][0] / means["off"][0]))
        if means["on"][1] is not None and means["off"][1] is not None:
            print("mean best confirmed ratio: on %.3f, off %.3f" % (means["on"][1], means["off"][1]))
        paired_difference(results)


def paired_difference(results):
    """The seeds' differences on - off of the best confirmed ratio, with a
    95 % t-interval of their mean: the arms of one seed ran back to back,
    so the pair shares the machine's state, and the spread between seeds
    (which configuration each study found, how its confirmation fell) is
    what the interval must cover."""
    from scipy import stats
    by_seed = {}
    for r in results:
        c = r["confirmation"]
        if c and c["ratio"] is not None:
            by_seed.setdefault(r["seed"], {})[r["arm"]] = c["ratio"]
    diffs = [v["on"] - v["off"] for _, v in sorted(by_seed.items()) if "on" in v and "off" in v]
    if len(diffs) < 2:
        return
    m = sum(diffs) / len(diffs)
    low, high = stats.t.interval(0.95, len(diffs) - 1, loc=m, scale=stats.sem(diffs))
    print("best confirmed ratio, on - off over %d seeds: mean %+.3f [%+.3f, %+.3f] (95 %% t-interval); "
          "per seed %s; on higher in %d of %d" %
          (len(diffs), m, low, high, ", ".join("%+.3f" % x for x in diffs),
           sum(x > 0 for x in diffs), len(diffs)))


def replay(conn, path, rules):
    """The rules replayed on the 'off' studies' complete trials of an
    earlier run (its --json): each trial in turn against the complete
    trials before it, as should_stop would have judged it at each second
    of its ratio curve (one worker: the trials before it are the complete
    ones).  How many each rule would have stopped, where, and whether it
    would have stopped the trial that ended best; the server's own rule
    code decides (tuner._prune_decision, tuner._prune_model_probability)."""
    with open(path) as fh:
        data = json.load(fh)
    print("| rule | studies | trials | would stop | of their ratio curve seen (mean) | "
          "stopped the best trial | stopped trials' finals above the default (1.0) |")
    print("|---|---|---|---|---|---|---|")
    for rule in rules:
        n = stopped = best_stopped = above = 0
        seen = []
        studies = 0
        for r in data["results"]:
            if r["arm"] != "off":
                continue
            studies += 1
            done = []  # (curve, final) of the complete trials so far
            trials = [c for c in r["curves"] if c["state"] == "complete" and c["curve"]]
            best = max(c["value"] for c in trials) if trials else None
            for c in trials:
                curve = [(float(st), float(v)) for st, v in c["curve"]]
                stop_at = None
                for i, (step, v) in enumerate(curve):
                    if step < rule.get("warmup_steps", 0):
                        continue
                    k = rule.get("min_trials", 5)
                    if rule["rule"] == "median":
                        value = v if rule.get("value") == "latest" else max(x for _, x in curve[:i + 1])
                        others = []
                        for oc, _ in done:
                            if oc[-1][0] >= step:
                                upto = [x for st, x in oc if st <= step]
                                if upto:
                                    others.append(upto[-1])
                        stop = q(conn, "SELECT tuner._prune_decision('median', %s::float8[], %s, true, %s, NULL)",
                                 (others, value, k))[0][0]
                    else:
                        partial, final = [], []
                        for oc, f in done:
                            if oc[-1][0] >= step:
                                upto = [x for st, x in oc if st <= step]
                                if upto:
                                    partial.append(upto[-1])
                                    final.append(f)
                        inc = max((f for _, f in done), default=None)
                        p = None if inc is None else q(
                            conn, "SELECT tuner._prune_model_probability(%s::float8[], %s::float8[], %s, %s, true, %s)",
                            (partial, final, v, inc, k))[0][0]
                        stop = p is not None and p < rule.get("threshold", 0.05)
                    if stop:
                        stop_at = i
                        break
                n += 1
                if stop_at is not None:
                    stopped += 1
                    seen.append((stop_at + 1) / len(curve))
                    best_stopped += c["value"] == best
                    above += c["value"] > 1.0
                done.append((curve, c["value"]))
        print("| `%s` | %d | %d | %d | %s | %d | %d |" % (
            json.dumps(rule), studies, n, stopped,
            "-" if not seen else "%.0f %%" % (100 * sum(seen) / len(seen)), best_stopped, above))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=3, help="seeds (studies per arm), default 3")
    ap.add_argument("--first-seed", type=int, default=1, help="the first study seed (default 1)")
    ap.add_argument("--budget-s", type=float, default=540, help="wall-clock seconds per study (default 540)")
    ap.add_argument("--duration", type=int, default=12,
                    help="runner duration_s: db_bench seconds per side of a paired trial (default 12)")
    ap.add_argument("--pairs", type=int, default=3, help="confirmation pairs (default 3)")
    ap.add_argument("--rule", default='{"rule": "median", "min_trials": 3}',
                    help="the pruning setting of the 'on' arm (JSON)")
    ap.add_argument("--work-dir", default="/tmp/tuner_bench_rocksdb",
                    help="runner work dir (its DB checkpoint is made once and shared)")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--smoke", action="store_true",
                    help="a 2-minute check: 1 seed, 45 s budgets, 4 s runs, 2 confirmation pairs")
    ap.add_argument("--summarise", metavar="JSON", nargs="+",
                    help="no studies: the tables of earlier --json files, pooled (seeds of several runs)")
    ap.add_argument("--replay", metavar="JSON",
                    help="no studies: replay pruning rules (--replay-rules) on the 'off' studies of an earlier --json")
    ap.add_argument("--replay-rules", default='[{"rule": "median", "min_trials": 3}, '
                    '{"rule": "median", "min_trials": 5}, {"rule": "model", "min_trials": 3}, '
                    '{"rule": "model", "min_trials": 5}, {"rule": "model", "min_trials": 3, "threshold": 0.2}]',
                    help="a JSON list of pruning settings for --replay")
    a = ap.parse_args()
    if a.summarise:
        results = []
        for path in a.summarise:
            with open(path) as fh:
                results += json.load(fh)["results"]
        summarise(results)
        return
    if a.replay:
        replay(connect(), a.replay, json.loads(a.replay_rules))
        return
    if a.smoke:
        a.seeds, a.budget_s, a.duration, a.pairs = 1, 45, 4, 2
    rule = json.loads(a.rule)
    conn = connect()
    info = {"git": git_info(), "library": loaded_library(conn), "load_start": loadavg(),
            "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
            "args": vars(a)}
    destdir = os.environ.get("DESTDIR")
    program = "tuner_rocksdb"
    if destdir:
        program = os.path.join(destdir, "usr/lib/postgresql/15/bin/tuner_rocksdb")
    q(conn, "SELECT tuner.register_runner('rocksdb', %s) WHERE NOT EXISTS "
            "(SELECT 1 FROM tuner.runner WHERE name = 'rocksdb')", (program,))
    info["runner"] = q(conn, "SELECT program FROM tuner.runner WHERE name = 'rocksdb'")[0][0]
    log("commit %s%s, library %s, runner %s" % (info["git"]["commit"], " (dirty)" if info["git"]["dirty"] else "",
                                                info["library"], info["runner"]))
    log("%d seeds x 2 arms, budget %.0f s a study, duration_s %d, %d confirmation pairs, rule %s; load %s" %
        (a.seeds, a.budget_s, a.duration, a.pairs, json.dumps(rule), " ".join(info["load_start"])))
    results = []
    for seed in range(a.first_seed, a.first_seed + a.seeds):
        for arm in ("off", "on"):
            results.append(run_arm(conn, a, seed, arm, rule if arm == "on" else None))
    info["load_end"] = loadavg()
    log("load at start %s, at end %s" % (" ".join(info["load_start"]), " ".join(info["load_end"])))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"info": info, "results": results}, fh, indent=1, default=str)
    summarise(results)


if __name__ == "__main__":
    main()
