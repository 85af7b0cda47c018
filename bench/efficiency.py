"""
efficiency.py
    Sample efficiency: best value found after 10, 25 and 50 evaluations, over
    several seeds, for tuner (through SQL), random search, Optuna TPE and
    scikit-learn GP-EI on Branin, Hartmann6, Ackley-10 and Rosenbrock-10.
"""
import multiprocessing as mp
import time

import numpy as np

import methods
from quiet import silence_stdout
from functions import make_functions

CHECKPOINTS = (10, 25, 50)
TARGET_FUNCS = ("hartmann6", "ackley10")
HARTMANN_TARGET = -3.1


def _job(args):
    method, fname, seed, budget, ackley_domain, settings = args
    func = make_functions(ackley_domain)[fname]
    t0 = time.perf_counter()
    if is_tuner(method):
        values = methods.run_tuner(func, seed, budget, settings=settings,
                                   workers=tuner_workers(method))
    else:
        values = methods.METHODS[method](func, seed, budget)
    return {"method": method, "function": fname, "seed": seed,
            "values": [float(v) for v in values],
            "seconds": time.perf_counter() - t0}


def is_tuner(method):
    """tuner, or tuner-wK: tuner with K trials kept outstanding (K workers)."""
    return method == "tuner" or (method.startswith("tuner-w") and method[7:].isdigit())


def tuner_workers(method):
    return int(method[7:]) if method.startswith("tuner-w") else 1


def best_at(values, k):
    return float(np.min(values[:k]))


def stats(runs, k):
    b = np.array([best_at(r["values"], k) for r in runs])
    q1, med, q3 = np.percentile(b, [25, 50, 75])
    return {"median": float(med), "q1": float(q1), "q3": float(q3)}


def run(fnames, method_names, seeds, budget, jobs, ackley_domain, tuner_settings, log):
    funcs = make_functions(ackley_domain)
    order = {"gpei": 0, "tuner": 1, "tpe": 2, "random": 3}   # slow ones first
    order.update({m: 1 for m in method_names if is_tuner(m)})
    tasks = [(m, f, s, budget, ackley_domain, tuner_settings)
             for m in sorted(method_names, key=lambda m: order.get(m, 9))
             for f in fnames for s in seeds]
    log("")
    log("== Sample efficiency: %d seeds (%s), budget %d, %d runs on %d processes ==" %
        (len(seeds), ",".join(map(str, seeds)) if len(seeds) <= 12 else "%d..%d" % (seeds[0], seeds[-1]),
         budget, len(tasks), jobs))
    t0 = time.time()
    runs = []
    with mp.get_context("fork").Pool(max(1, jobs), initializer=silence_stdout) as pool:
        for r in pool.imap_unordered(_job, tasks):
            runs.append(r)
    log("(%.0f s wall)" % (time.time() - t0))

    summary = {}
    cps = [k for k in CHECKPOINTS if k <= budget]
    if budget > CHECKPOINTS[-1]:
        cps += [k for k in (75, 100, 150, 200) if k < budget] + [budget]
    for fname in fnames:
        fn = funcs[fname]
        log("")
        log("%s on %s (global min %g); best-so-far: median [q1, q3]" % (fname, fn.note, fn.optimum))
        hdr = "%-8s | " % "method" + " | ".join("%-32s" % ("best@%d" % k) for k in cps) + " | s/run"
        log(hdr)
        log("-" * len(hdr))
        summary[fname] = {}
        for m in method_names:
            rs = [r for r in runs if r["method"] == m and r["function"] == fname]
            if not rs:
                continue
            summary[fname][m] = {k: stats(rs, k) for k in cps}
            summary[fname][m]["seconds_per_run"] = float(np.mean([r["seconds"] for r in rs]))
            cells = []
            for k in cps:
                s = summary[fname][m][k]
                cells.append("%-32s" % ("%9.4g [%.4g, %.4g]" % (s["median"], s["q1"], s["q3"])))
            log("%-8s | " % m + " | ".join(cells) + " | %5.1f" % summary[fname][m]["seconds_per_run"])

    verdicts = []
    if "tuner" in method_names:
        baselines = [m for m in method_names if not is_tuner(m)]
        for fname in TARGET_FUNCS:
            if fname not in summary or not baselines:
                continue
            for k in (25, 50):
                if k not in cps:
                    continue
                t = summary[fname]["tuner"][k]["median"]
                others = {m: summary[fname][m][k]["median"] for m in baselines}
                ok = all(t < v for v in others.values())
                verdicts.append(("tuner median best@%d < every baseline on %s" % (k, fname), ok,
                                 "tuner %.4g vs %s" % (t, ", ".join("%s %.4g" % kv for kv in others.items()))))
        if "hartmann6" in summary and 25 in cps:
            t = summary["hartmann6"]["tuner"][25]["median"]
            verdicts.append(("hartmann6 tuner median best@25 <= %g" % HARTMANN_TARGET,
                             t <= HARTMANN_TARGET, "%.4f" % t))
        if len(seeds) < 10 or budget < 50:
            log("")
            log("(subset run: %d seeds, budget %d; the targets are defined for 10 seeds, budget 50)"
                % (len(seeds), budget))
        log("")
        for text, ok, val in verdicts:
            log("%-4s %s (%s)" % ("PASS" if ok else "MISS", text, val))
    else:
        log("")
        log("(tuner disabled: no targets checked)")
    return {"runs": runs, "summary": {f: {m: {str(k): v for k, v in s.items()}
                                          for m, s in ms.items()} for f, ms in summary.items()},
            "verdicts": [{"target": t, "pass": ok, "value": v} for t, ok, v in verdicts]}
