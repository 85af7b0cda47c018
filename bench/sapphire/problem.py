"""
problem.py
    The synthetic problem of the sapphire benchmark (bench/README.md, section
    "7. Sapphire pipeline"): 200 parameters, every one with a default, of
    which 8 matter.  Maximised objective "tps":

      f(x) = 100 + f_threads + f_cache + f_queue + f_compress_ratio
                 + f_batch + f_timeout + f_io_depth

    with (u-free, on the native values a trial reports):
      threads      int   [1, 256]  log, default 8:
                   12 exp(-((log2 t - 6) / 2)^2)                 max 12 at t = 64
      cache_mb     float [16, 65536] log, default 128:  v = log2(c / 16)
                   10 (1 - exp(-v / 3)) - 0.4 v                  max 6.256 at c = 16 * 2^(3 ln(25/3)) ~ 1315
      queue        categorical {fifo, wpq, mclock, deadline}, default wpq:
                   fifo 0, wpq 3, mclock 8, deadline -4          max 8 (mclock)
      compress     bool, default false, and
      dirty_ratio  float [0, 1], default 0.5 (the interaction):
                   -12 (r - 0.6)^2 + [compress] (2 + 6 r)        max 6.35 at compress, r = 0.85
      batch_size   int   [1, 1000], default 100:
                   6 exp(-((b - 640) / 250)^2)                   max 6 at b = 640
      timeout_ms   float [0.1, 1000] log, default 10:  w = log10(t)
                   5 min(w + 1, 3) / 3                           max 5 for t >= 100
      io_depth     int   [1, 128] log, default 16:
                   3 (1 - |log2 q - 5| / 7)                      max 3 at q = 32

    Optimum 146.606 (100 + 12 + 6.256 + 8 + 6.35 + 6 + 5 + 3; optimum()
    checks it numerically).  Observations add N(0, 0.5^2) noise; scores use
    the noiseless f.

    The 192 distractors cycle through six kinds, 32 of each: float [0, 10]
    (default 5), log float [0.01, 100] (default 1), int [0, 100] (default
    50), log int [1, 4096] (default 64), categorical with 3, 4 or 5 choices
    (default the first) and bool (default false).  The 8 true parameters sit
    at fixed positions among them (TRUE_POSITIONS).  The problem is the same
    for every seed; a seed fixes the study's seed and the noise stream.

    `python3 problem.py` prints the parameters, the optimum and the value of
    the default configuration.
"""
import math

import numpy as np

NOISE_SD = 0.5
QUEUE = {"fifo": 0.0, "wpq": 3.0, "mclock": 8.0, "deadline": -4.0}


class Param:
    """One parameter as tuner.add_parameter declares it."""

    def __init__(self, name, kind, low=None, high=None, default=None, log_scale=False, choices=None):
        self.name, self.kind, self.low, self.high = name, kind, low, high
        self.default, self.log_scale, self.choices = default, log_scale, choices

    def default_text(self):
        if self.kind == "bool":
            return "true" if self.default else "false"
        if self.kind == "categorical":
            return self.default
        if self.kind == "int":
            return str(int(self.default))
        return repr(float(self.default))

    def describe(self):
        if self.kind in ("int", "float"):
            return "%s %s [%g, %g]%s default %s" % (self.name, self.kind, self.low, self.high,
                                                    " log" if self.log_scale else "", self.default_text())
        if self.kind == "categorical":
            return "%s categorical {%s} default %s" % (self.name, ", ".join(self.choices), self.default)
        return "%s bool default %s" % (self.name, self.default_text())


TRUE_PARAMS = [
    Param("threads", "int", 1, 256, 8, log_scale=True),
    Param("cache_mb", "float", 16, 65536, 128, log_scale=True),
    Param("queue", "categorical", default="wpq", choices=list(QUEUE)),
    Param("compress", "bool", default=False),
    Param("dirty_ratio", "float", 0, 1, 0.5),
    Param("batch_size", "int", 1, 1000, 100),
    Param("timeout_ms", "float", 0.1, 1000, 10, log_scale=True),
    Param("io_depth", "int", 1, 128, 16, log_scale=True),
]
TRUE_NAMES = [p.name for p in TRUE_PARAMS]
TRUE_POSITIONS = [3, 29, 57, 88, 111, 140, 166, 193]      # 0-based, in declaration order
N_PARAMS = 200


def _distractor(i):
    kind = i % 6
    name = "d%03d" % i
    if kind == 0:
        return Param(name, "float", 0, 10, 5)
    if kind == 1:
        return Param(name, "float", 0.01, 100, 1, log_scale=True)
    if kind == 2:
        return Param(name, "int", 0, 100, 50)
    if kind == 3:
        return Param(name, "int", 1, 4096, 64, log_scale=True)
    if kind == 4:
        n = 3 + (i // 6) % 3
        return Param(name, "categorical", default="c0", choices=["c%d" % k for k in range(n)])
    return Param(name, "bool", default=False)


def parameters():
    """All 200 parameters in declaration order."""
    out, t, dn = [], 0, 0
    for pos in range(N_PARAMS):
        if t < len(TRUE_PARAMS) and pos == TRUE_POSITIONS[t]:
            out.append(TRUE_PARAMS[t])
            t += 1
        else:
            out.append(_distractor(dn))
            dn += 1
    assert len(out) == N_PARAMS and t == len(TRUE_PARAMS)
    return out


def effects(cfg):
    """The 8 effects of a configuration (a dict of native values, as a trial
    reports them: bools true/false, categoricals their labels)."""
    t = float(cfg["threads"])
    c = float(cfg["cache_mb"])
    q = cfg["queue"]
    comp = cfg["compress"]
    if isinstance(comp, str):
        comp = comp == "true"
    r = float(cfg["dirty_ratio"])
    b = float(cfg["batch_size"])
    tm = float(cfg["timeout_ms"])
    io = float(cfg["io_depth"])
    v = math.log2(c / 16.0)
    w = math.log10(tm)
    return {
        "threads": 12.0 * math.exp(-((math.log2(t) - 6.0) / 2.0) ** 2),
        "cache_mb": 10.0 * (1.0 - math.exp(-v / 3.0)) - 0.4 * v,
        "queue": QUEUE[q],
        "compress*dirty_ratio": -12.0 * (r - 0.6) ** 2 + (2.0 + 6.0 * r if comp else 0.0),
        "batch_size": 6.0 * math.exp(-((b - 640.0) / 250.0) ** 2),
        "timeout_ms": 5.0 * min(w + 1.0, 3.0) / 3.0,
        "io_depth": 3.0 * (1.0 - abs(math.log2(io) - 5.0) / 7.0),
    }


def true_value(cfg):
    """Noiseless objective."""
    return 100.0 + sum(effects(cfg).values())


def observe(cfg, rng):
    """(observed, noiseless) objective; rng draws the noise."""
    f = true_value(cfg)
    return f + NOISE_SD * float(rng.standard_normal()), f


def default_config():
    cfg = {}
    for p in parameters():
        cfg[p.name] = p.default
    return cfg


def optimum():
    """(config of the 8, value): each effect maximised on its own (ints
    enumerated, floats on a fine grid refined by golden section), the
    interaction pair jointly."""
    def golden(fn, lo, hi, it=200):
        g = (math.sqrt(5) - 1) / 2
        a, b = lo, hi
        for _ in range(it):
            c, d = b - g * (b - a), a + g * (b - a)
            if fn(c) > fn(d):
                b = d
            else:
                a = c
        return (a + b) / 2

    def best_float(fn, lo, hi):
        xs = np.linspace(lo, hi, 2001)
        vals = [fn(x) for x in xs]
        i = int(np.argmax(vals))
        x = golden(fn, xs[max(i - 1, 0)], xs[min(i + 1, len(xs) - 1)])
        return max([(fn(x), x), (vals[i], xs[i])])[1]

    base = {"threads": 8, "cache_mb": 128.0, "queue": "wpq", "compress": False, "dirty_ratio": 0.5,
            "batch_size": 100, "timeout_ms": 10.0, "io_depth": 16}

    def eff(name, key, value):
        cfg = dict(base)
        cfg[name] = value
        return effects(cfg)[key]

    x = {}
    x["threads"] = max(range(1, 257), key=lambda t: eff("threads", "threads", t))
    x["cache_mb"] = 16.0 * 2.0 ** best_float(lambda v: eff("cache_mb", "cache_mb", 16.0 * 2.0 ** v), 0, 12)
    x["queue"] = max(QUEUE, key=QUEUE.get)
    pair = []
    for comp in (False, True):
        def fr(r, comp=comp):
            cfg = dict(base, compress=comp, dirty_ratio=r)
            return effects(cfg)["compress*dirty_ratio"]
        r = best_float(fr, 0.0, 1.0)
        pair.append((fr(r), comp, r))
    _, x["compress"], x["dirty_ratio"] = max(pair)
    x["batch_size"] = max(range(1, 1001), key=lambda b: eff("batch_size", "batch_size", b))
    x["timeout_ms"] = 10.0 ** best_float(lambda w: eff("timeout_ms", "timeout_ms", 10.0 ** w), -1, 3)
    x["io_depth"] = max(range(1, 129), key=lambda q: eff("io_depth", "io_depth", q))
    return x, true_value(x)


def random_configs(rng, n):
    """n uniform configurations of the 8 (log-uniform where log-scaled)."""
    out = []
    for _ in range(n):
        cfg = {}
        for p in TRUE_PARAMS:
            if p.kind == "categorical":
                cfg[p.name] = p.choices[int(rng.integers(len(p.choices)))]
            elif p.kind == "bool":
                cfg[p.name] = bool(rng.integers(2))
            else:
                u = rng.uniform()
                if p.log_scale:
                    v = math.exp(math.log(p.low) + u * (math.log(p.high) - math.log(p.low)))
                else:
                    v = p.low + u * (p.high - p.low)
                cfg[p.name] = round(v) if p.kind == "int" else v
        out.append(cfg)
    return out


if __name__ == "__main__":
    ps = parameters()
    kinds = {}
    for p in ps:
        k = p.kind + (" log" if p.log_scale else "")
        kinds[k] = kinds.get(k, 0) + 1
    print("%d parameters: %s" % (len(ps), ", ".join("%d %s" % (v, k) for k, v in sorted(kinds.items()))))
    for pos, p in zip(TRUE_POSITIONS, TRUE_PARAMS):
        print("  position %3d: %s" % (pos + 1, p.describe()))
    x, fo = optimum()
    print("optimum %.3f at %s" % (fo, x))
    print("effects at the optimum: %s" % {k: round(v, 3) for k, v in effects(x).items()})
    d = default_config()
    print("default configuration %.3f (%s)" % (true_value(d), {k: round(v, 3) for k, v in effects(d).items()}))
    vals = [true_value(c) for c in random_configs(np.random.default_rng(1), 20000)]
    print("uniform configurations: median %.2f, q99 %.2f, max of 20000 %.2f"
          % (np.median(vals), np.percentile(vals, 99), np.max(vals)))
