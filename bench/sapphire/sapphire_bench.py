#!/usr/bin/python3
"""
sapphire_bench.py
    The sapphire benchmark (bench/README.md, section "7. Sapphire
    pipeline"): on the 200-parameter synthetic of problem.py, of which 8
    matter, at an equal budget of explore + guided evaluations (300 + 50):

      sapphire (top K)  set_algorithm(study, 'sapphire', {"explore": 300, "top_k": K}):
                        the default + 299 space-filling points, Lasso ranking,
                        the top K enabled, then 50 GP-EI steps over them;
      gp-ei             n_initial 300 (the default + 299 space-filling points),
                        then 50 GP-EI steps over all 200 parameters;
      random            set_algorithm(study, 'random'): the default + 349
                        uniform points.

    Every study is driven through SQL (tuner.suggest_next / tuner.report),
    one trial at a time.  A run is scored by best@k, the NOISELESS objective
    of the best configuration among its first k evaluations (the tuner sees
    the noisy one); for sapphire also the recall of the 8 true parameters in
    the top K it selected (the 'select_top' row of tuner.study_event).

    Normally started by bench/sapphire/run.sh, which provides a throwaway
    cluster through pg_virtualenv; here the PG* environment variables must
    reach a server with tuner installed.
"""
import argparse
import datetime
import hashlib
import json
import os
import platform
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, BENCH)

import numpy as np                                  # noqa: E402

from runinfo import git_info, loadavg, loaded_library  # noqa: E402

import problem                                      # noqa: E402

METHODS = ["sapphire (top 16)", "sapphire (top 8)", "gp-ei", "random"]


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="smoke run (< 2 min): 1 seed, explore 100 + guided 20, every method")
    ap.add_argument("--seeds", type=int, help="seeds 0..N-1 (default 5)")
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--methods", help="comma list of %s" % ", ".join(METHODS))
    ap.add_argument("--explore", type=int, help="space-filling / exploration evaluations (default 300)")
    ap.add_argument("--guided", type=int, help="model evaluations after them (default 50)")
    ap.add_argument("--keep", action="store_true", help="keep the studies (default: dropped after reading)")
    ap.add_argument("--out", help="results JSON (default bench/results/sapphire-<time>.json)")
    a = ap.parse_args()
    a.seeds = a.seeds or (1 if a.quick else 5)
    a.explore = a.explore or (100 if a.quick else 300)
    a.guided = a.guided or (20 if a.quick else 50)
    if a.methods:
        a.methods = [m.strip() for m in a.methods.split(",") if m.strip()]
    else:
        a.methods = list(METHODS)
    for m in a.methods:
        if m not in METHODS:
            ap.error("unknown method %r (known: %s)" % (m, ", ".join(METHODS)))
    return a


# ---------------------------------------------------------------------------
# One run
# ---------------------------------------------------------------------------

def top_k_of(method):
    return int(method.split("top ")[1].rstrip(")")) if method.startswith("sapphire") else None


def create_study(cur, name, method, seed, explore):
    settings = {"seed": seed}
    if method == "gp-ei":
        settings["n_initial"] = explore
    cur.execute("SELECT tuner.create_study(%s, objective => 'tps', direction => 'maximize', settings => %s::jsonb)",
                (name, json.dumps(settings)))
    for p in problem.parameters():
        cur.execute("""SELECT tuner.add_parameter(%s, %s, %s, low => %s, high => %s, default_value => %s,
                                                  log_scale => %s, choices => %s)""",
                    (name, p.name, p.kind, p.low, p.high, p.default_text(), p.log_scale, p.choices))
    if method.startswith("sapphire"):
        cur.execute("SELECT tuner.set_algorithm(%s, 'sapphire', %s::jsonb)",
                    (name, json.dumps({"explore": explore, "top_k": top_k_of(method)})))
    elif method == "random":
        cur.execute("SELECT tuner.set_algorithm(%s, 'random')", (name,))
    return settings


def noise_rng(seed):
    """The observation noise of a run: the same stream for every method (by
    evaluation index), so the methods differ only in where they evaluate."""
    return np.random.default_rng([4093, seed])


def run_study(conn, method, seed, explore, guided, keep, log):
    name = "sap_%s_s%d_%s" % ("".join(ch for ch in method if ch.isalnum()), seed, uuid.uuid4().hex[:8])
    budget = explore + guided
    t0 = time.perf_counter()
    with conn.cursor() as cur:
        settings = create_study(cur, name, method, seed, explore)
    rng = noise_rng(seed)
    trials = []
    tick = time.perf_counter()
    for i in range(budget):
        with conn.cursor() as cur:
            s0 = time.perf_counter()
            cur.execute("SELECT tuner.suggest_next(%s)", (name,))
            r = cur.fetchone()[0]
            s1 = time.perf_counter()
            if isinstance(r, str):
                r = json.loads(r)
            cfg = r["params"]
            obs, truth = problem.observe(cfg, rng)
            cur.execute("SELECT tuner.report(%s, %s::jsonb)", (r["trial"], json.dumps({"tps": obs})))
        trials.append({"trial": r["trial"], "true_params": {n: cfg[n] for n in problem.TRUE_NAMES},
                       "distractors_changed": sum(1 for p in problem.parameters()
                                                  if p.name not in problem.TRUE_NAMES
                                                  and str(cfg[p.name]).lower() != p.default_text().lower()
                                                  and not (p.kind in ("int", "float")
                                                           and float(cfg[p.name]) == float(p.default))),
                       "observed": obs, "true": truth, "suggest_ms": (s1 - s0) * 1000.0})
        if (i + 1) % 50 == 0 or i + 1 == explore + 1 or (i >= explore and time.perf_counter() - tick > 60):
            tick = time.perf_counter()
            print("     %s seed %d: %d/%d evaluations, %.0f s, last suggest %.0f ms, best so far %.2f"
                  % (method, seed, i + 1, budget, tick - t0, trials[-1]["suggest_ms"],
                     max(t["true"] for t in trials)), flush=True)
    seconds = time.perf_counter() - t0
    with conn.cursor() as cur:
        cur.execute("SELECT trial, source FROM tuner.trials WHERE study = %s", (name,))
        source_of = dict(cur.fetchall())
        for t in trials:
            t["source"] = source_of.get(t["trial"])
        cur.execute("SELECT trial FROM tuner.best(%s)", (name,))
        row = cur.fetchone()
        chosen = next((t["true"] for t in trials if row and t["trial"] == row[0]), None)
        cur.execute("""SELECT e.event, e.trials, e.detail FROM tuner.study_event e
                         JOIN tuner.study s ON s.id = e.study_id WHERE s.name = %s ORDER BY e.id""", (name,))
        events = [{"event": a, "trials": b, "detail": c} for a, b, c in cur.fetchall()]
        cur.execute("""SELECT m.kind, m.n, m.fit_ms, cardinality(m.parameters), m.log_likelihood
                         FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
                        WHERE s.name = %s ORDER BY m.id""", (name,))
        models = [{"kind": a, "n": b, "fit_ms": c, "d": d, "log_likelihood": e} for a, b, c, d, e in cur.fetchall()]
        if not keep:
            cur.execute("SELECT tuner.drop_study(%s)", (name,))
    ranking = next((e["detail"]["ranking"] for e in events if e["event"] == "select_top"), None)
    return {"method": method, "seed": seed, "study": name, "settings": settings, "seconds": seconds,
            "trials": trials, "chosen_true": chosen, "events": events, "models": models, "ranking": ranking}


# ---------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------

def best_curve(run):
    return np.maximum.accumulate(np.array([t["true"] for t in run["trials"]]))


def quartiles(values):
    q1, med, q3 = np.percentile(values, [25, 50, 75])
    return {"median": float(med), "q1": float(q1), "q3": float(q3)}


def cell(s, f="%.2f"):
    return ("%s [%s, %s]" % (f, f, f)) % (s["median"], s["q1"], s["q3"])


def recall(run, k):
    """Share of the 8 true parameters among the top k of the run's ranking
    (None without a ranking)."""
    if not run["ranking"]:
        return None
    top = {e["parameter"] for e in run["ranking"] if e["rank"] <= k}
    return len(top & set(problem.TRUE_NAMES)) / len(problem.TRUE_NAMES)


def ranks_of_true(run):
    if not run["ranking"]:
        return None
    rk = {e["parameter"]: e["rank"] for e in run["ranking"]}
    return {n: rk.get(n) for n in problem.TRUE_NAMES}


def main():
    a = parse_args()
    from db import connect
    lines = []

    def log(s=""):
        print(s, flush=True)
        lines.append(s)

    out = {"started": datetime.datetime.now().isoformat(timespec="seconds"), "argv": sys.argv[1:],
           "host": platform.node(), "cpus": os.cpu_count(), "git": git_info(), "loadavg_start": loadavg(),
           "explore": a.explore, "guided": a.guided, "methods": a.methods}
    conn = connect()
    with conn.cursor() as cur:
        cur.execute("SELECT extversion FROM pg_extension WHERE extname = 'tuner'")
        out["tuner_version"] = cur.fetchone()[0]
        cur.execute("SELECT version()")
        out["server"] = cur.fetchone()[0]
    out["tuner_so"] = loaded_library(conn)
    try:
        with open(out["tuner_so"], "rb") as fh:
            out["tuner_so_sha256"] = hashlib.sha256(fh.read()).hexdigest()
    except (OSError, TypeError):
        out["tuner_so_sha256"] = None
    g = out["git"]
    xo, fo = problem.optimum()
    fd = problem.true_value(problem.default_config())
    log("# tuner sapphire benchmark %s" % out["started"])
    log("")
    log("%s, %d CPUs, load average at start %s; tuner %s (%s sha256 %s) on %s; commit %s%s \"%s\""
        % (platform.node(), os.cpu_count(), " ".join(out["loadavg_start"] or []), out["tuner_version"],
           out["tuner_so"], (out["tuner_so_sha256"] or "?")[:12], out["server"].split(",")[0],
           g["commit"], " (uncommitted changes)" if g["dirty"] else "", g["subject"]))
    log("")
    budget = a.explore + a.guided
    seeds = list(range(a.first_seed, a.first_seed + a.seeds))
    ks = sorted({a.explore, a.explore + a.guided // 2, budget})
    log("Problem: 200 parameters, 8 matter (problem.py); maximise tps; optimum %.3f, default configuration %.3f; "
        "noise sd %.1f. Budget %d = %d exploration + %d guided; seeds %s; methods in order per seed: %s."
        % (fo, fd, problem.NOISE_SD, budget, a.explore, a.guided, ", ".join(map(str, seeds)), ", ".join(a.methods)))
    log("")
    t0 = time.time()
    runs = []
    for s in seeds:
        for m in a.methods:
            r = run_study(conn, m, s, a.explore, a.guided, a.keep, log)
            runs.append(r)
            c = best_curve(r)
            model_ms = [t["suggest_ms"] for t in r["trials"][a.explore:]]
            k = top_k_of(m)
            log("   %-18s seed %d: best@%d %.2f, best@%d %.2f, %.0f s, median suggest %.0f ms (guided %.0f ms)%s"
                % (m, s, a.explore, c[a.explore - 1], budget, c[-1], r["seconds"],
                   np.median([t["suggest_ms"] for t in r["trials"]]), np.median(model_ms) if model_ms else 0,
                   ", recall@%d %.3f" % (k, recall(r, k)) if k else ""))
    conn.close()
    wall = time.time() - t0
    log("(%.0f s wall for %d runs)" % (wall, len(runs)))

    # Tables.
    summ = {}
    log("")
    log("Noiseless tps of the best configuration among the first k evaluations (best@k), median [q1, q3] "
        "over %d seeds (optimum %.3f):" % (len(seeds), fo))
    log("")
    log("| method | " + " | ".join("best@%d" % k for k in ks) + " | chosen by tuner.best | s/run |")
    log("|---|" + "---|" * len(ks) + "---|---|")
    for m in a.methods:
        rs = [r for r in runs if r["method"] == m]
        curves = np.array([best_curve(r) for r in rs])
        sm = {"best": {str(k): quartiles(curves[:, k - 1]) for k in ks},
              "chosen": quartiles([r["chosen_true"] for r in rs]),
              "seconds_per_run": float(np.mean([r["seconds"] for r in rs])),
              "per_seed_best": {str(r["seed"]): float(best_curve(r)[-1]) for r in rs}}
        summ[m] = sm
        log("| %s | %s | %s | %.0f |" % (m, " | ".join(cell(sm["best"][str(k)]) for k in ks),
                                          cell(sm["chosen"]), sm["seconds_per_run"]))

    log("")
    log("Time per suggestion (client wall ms, suggest_next only), median [q1, q3] over every suggestion of "
        "every seed; 'guided' = evaluations %d..%d; GP fit ms from tuner.model (median):" % (a.explore + 1, budget))
    log("")
    log("| method | all | exploration | guided | first guided (select_top for sapphire) | GP fit ms | GP dims |")
    log("|---|---|---|---|---|---|---|")
    for m in a.methods:
        rs = [r for r in runs if r["method"] == m]
        allv = [t["suggest_ms"] for r in rs for t in r["trials"]]
        ex = [t["suggest_ms"] for r in rs for t in r["trials"][:a.explore]]
        gd = [t["suggest_ms"] for r in rs for t in r["trials"][a.explore:]]
        first = [r["trials"][a.explore]["suggest_ms"] for r in rs if len(r["trials"]) > a.explore]
        fits = [md["fit_ms"] for r in rs for md in r["models"] if md["fit_ms"] is not None]
        dims = sorted({md["d"] for r in rs for md in r["models"]})
        summ[m]["suggest_ms"] = {"all": quartiles(allv), "explore": quartiles(ex),
                                 "guided": quartiles(gd) if gd else None,
                                 "first_guided": quartiles(first) if first else None,
                                 "fit_ms": quartiles(fits) if fits else None}
        log("| %s | %s | %s | %s | %s | %s | %s |" % (
            m, cell(quartiles(allv), "%.0f"), cell(quartiles(ex), "%.0f"),
            cell(quartiles(gd), "%.0f") if gd else "-", cell(quartiles(first), "%.0f") if first else "-",
            "%.0f" % np.median(fits) if fits else "-", ",".join(map(str, dims)) or "-"))
        srcs = {}
        for r in rs:
            for t in r["trials"]:
                srcs[t["source"]] = srcs.get(t["source"], 0) + 1
        summ[m]["sources"] = srcs

    sap = [m for m in a.methods if m.startswith("sapphire")]
    if sap:
        log("")
        log("Recall of the 8 true parameters in sapphire's top K (the 'select_top' ranking of tuner.study_event, "
            "from the %d exploration trials), median [min, max] over seeds; rank of each true parameter "
            "(median over seeds, of 200):" % a.explore)
        log("")
        log("| method | recall@K | recall@8 | recall@16 | %s |" % " | ".join(problem.TRUE_NAMES))
        log("|---|---|---|---|%s" % ("---|" * len(problem.TRUE_NAMES)))
        for m in sap:
            rs = [r for r in runs if r["method"] == m and r["ranking"]]
            k = top_k_of(m)
            rec = {kk: [recall(r, kk) for r in rs] for kk in (k, 8, 16)}
            ranks = {n: [ranks_of_true(r)[n] for r in rs] for n in problem.TRUE_NAMES}
            summ[m]["recall"] = {str(kk): v for kk, v in rec.items()}
            summ[m]["ranks"] = ranks

            def mm(v):
                return "%.3f [%.3f, %.3f]" % (np.median(v), np.min(v), np.max(v)) if v else "-"
            log("| %s | %s | %s | %s | %s |" % (m, mm(rec[k]), mm(rec[8]), mm(rec[16]),
                                                " | ".join("%g" % np.median(ranks[n]) for n in problem.TRUE_NAMES)))
        log("")
        log("(per seed, ranks of %s: %s)" % (", ".join(problem.TRUE_NAMES), "; ".join(
            "%s seed %d: %s" % (r["method"], r["seed"], " ".join(str(v) for v in ranks_of_true(r).values()))
            for r in runs if r["method"] in sap and r["ranking"])))

    verdicts = []
    for m in sap:
        for other in ("gp-ei", "random"):
            if other not in summ:
                continue
            a_ = summ[m]["per_seed_best"]
            b_ = summ[other]["per_seed_best"]
            common = sorted(set(a_) & set(b_))
            wins = sum(1 for s in common if a_[s] > b_[s])
            ties = sum(1 for s in common if a_[s] == b_[s])
            ma, mb = summ[m]["best"][str(budget)]["median"], summ[other]["best"][str(budget)]["median"]
            ok = ma > mb
            verdicts.append({"target": "%s beats %s at %d evaluations (median best@%d)" % (m, other, budget, budget),
                             "pass": bool(ok),
                             "value": "%.2f vs %.2f, %+.2f; %s wins %d of %d seeds%s"
                                      % (ma, mb, ma - mb, m, wins, len(common),
                                         ", %d ties" % ties if ties else "")})
    if verdicts:
        log("")
        for v in verdicts:
            log("- **%s** %s (%s)" % ("PASS" if v["pass"] else "MISS", v["target"], v["value"]))
    if a.explore != 300 or a.guided != 50 or a.seeds < 3:
        log("")
        log("(subset run: %d seeds, %d + %d evaluations; the benchmark is defined for 300 + 50 and at least "
            "3 seeds)" % (a.seeds, a.explore, a.guided))
    out["runs"] = runs
    out["summary"] = summ
    out["verdicts"] = verdicts
    out["optimum"] = {"config": xo, "value": fo}
    out["seconds"] = wall
    out["loadavg_end"] = loadavg()
    log("")
    log("total %.0f s; load average at the end %s" % (wall, " ".join(out["loadavg_end"] or [])))
    path = a.out or os.path.join(BENCH, "results", "sapphire-%s.json"
                                 % datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    out["log"] = lines
    with open(path, "w") as fh:
        json.dump(out, fh, indent=1, default=float)
    print("results written to %s" % os.path.relpath(path), flush=True)


if __name__ == "__main__":
    main()
