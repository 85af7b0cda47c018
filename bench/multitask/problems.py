"""
problems.py
    Synthetic multi-task tuning problems shaped like the RocksDB paper's
    picture (rocksdb-multitask-bo-paper, sections 3.3-3.4): a throughput-like
    objective that is made of a few internal components (auxiliary metrics
    such as write amplification, P99 read latency and compaction time), each
    driven by its own subset of the parameters.

    Every problem has
      - parameters of kind int or float, log-scaled where the range spans
        decades (declared to tuner exactly like this, tuner.add_parameter);
      - components: positive metrics, each a smooth nonlinear function of a
        subset of the parameters (two subsets share at most one parameter;
        some parameters drive nothing), each observed with its own
        multiplicative log-normal noise, value * exp(sigma * N(0, 1));
      - an objective computed from the noiseless components, observed with
        its own noise of the same form.

    The formulas are written in u, the position of a parameter in its range:
    u = (x - low) / (high - low), or (log x - log low) / (log high - log low)
    for log-scaled ones, computed from the value actually evaluated (an int
    parameter's rounded value).  The problems are defined in PROBLEMS below;
    bench/README.md, section 4, prints the same formulas.

    `python3 problems.py` checks them and prints their ranges and optima.
"""
import math

import numpy as np


class Param:
    """One tuning parameter as tuner.add_parameter declares it."""

    def __init__(self, name, kind, low, high, log_scale=False):
        assert kind in ("int", "float")
        assert low < high and (not log_scale or low > 0)
        self.name, self.kind, self.low, self.high = name, kind, low, high
        self.log_scale = log_scale

    def to_unit(self, x):
        """Native value(s) -> u in [0, 1] (log space where log-scaled)."""
        x = np.asarray(x, dtype=float)
        if self.log_scale:
            return (np.log(x) - math.log(self.low)) / (math.log(self.high) - math.log(self.low))
        return (x - self.low) / (self.high - self.low)

    def from_unit(self, u):
        """u -> native value(s); int parameters rounded and clipped."""
        u = np.clip(np.asarray(u, dtype=float), 0.0, 1.0)
        if self.log_scale:
            x = np.exp(math.log(self.low) + u * (math.log(self.high) - math.log(self.low)))
        else:
            x = self.low + u * (self.high - self.low)
        if self.kind == "int":
            x = np.clip(np.round(x), self.low, self.high)
        return x

    def describe(self):
        return "%s %s [%g, %g]%s" % (self.name, self.kind, self.low, self.high,
                                     " log" if self.log_scale else "")


class Component:
    """An auxiliary metric: fn maps a dict of u columns to its values."""

    def __init__(self, name, unit, params, fn, noise, formula):
        self.name, self.unit, self.params = name, unit, list(params)
        self.fn, self.noise, self.formula = fn, noise, formula


class Problem:
    """A multi-task problem: parameters, components and the objective."""

    def __init__(self, name, title, direction, objective, objective_unit,
                 params, components, combine, objective_noise, objective_formula):
        assert direction in ("maximize", "minimize")
        self.name, self.title, self.direction = name, title, direction
        self.objective, self.objective_unit = objective, objective_unit
        self.params, self.components = params, components
        self.combine, self.objective_noise = combine, objective_noise
        self.objective_formula = objective_formula
        self.by_name = {p.name: p for p in params}
        for c in components:
            for p in c.params:
                assert p in self.by_name, (c.name, p)

    @property
    def dim(self):
        return len(self.params)

    @property
    def metric_names(self):
        return [c.name for c in self.components]

    def irrelevant(self):
        used = {p for c in self.components for p in c.params}
        return [p.name for p in self.params if p.name not in used]

    def better(self, a, b):
        """True if objective value a is at least as good as b."""
        return a >= b if self.direction == "maximize" else a <= b

    def best_of(self, values):
        return max(values) if self.direction == "maximize" else min(values)

    def related(self, scale, offset, shift):
        """The same system "on other hardware", for transfer: the same
        parameters (names, kinds, bounds) and components, but every
        component evaluated at u - shift (clipped to [0, 1]), which moves
        each interior optimum by +shift in u, and the objective
        scale * (this objective) + offset, with the same noise levels."""
        comps = [Component(c.name, c.unit, c.params,
                           (lambda fn: lambda u: fn({k: np.clip(v - shift, 0.0, 1.0) for k, v in u.items()}))(c.fn),
                           c.noise, "%s at u - %g" % (c.formula, shift))
                 for c in self.components]
        combine = self.combine
        return Problem("%s-related" % self.name, "%s, related: objective x %g %+g, optimum shifted by %+g in u"
                       % (self.title, scale, offset, shift), self.direction, self.objective,
                       self.objective_unit, self.params, comps,
                       lambda c: scale * combine(c) + offset, self.objective_noise,
                       "%g (%s) %+g" % (scale, self.objective_formula, offset))

    # -- evaluation ----------------------------------------------------------

    def _units(self, X):
        """Rows of native values (N x d, in self.params order) -> u columns."""
        X = np.atleast_2d(np.asarray(X, dtype=float))
        return {p.name: p.to_unit(X[:, j]) for j, p in enumerate(self.params)}

    def true_values(self, X):
        """Noiseless (objective array, {component: array}) at rows of X."""
        u = self._units(X)
        comps = {c.name: np.asarray(c.fn(u), dtype=float) * np.ones(len(next(iter(u.values()))))
                 for c in self.components}
        return np.asarray(self.combine(comps), dtype=float), comps

    def native_row(self, params):
        """A suggest_next params object -> one row of native values."""
        return np.array([float(params[p.name]) for p in self.params])

    def observe(self, x, rng):
        """Noisy metrics of one configuration (native row): a dict with the
        objective and every component, plus the noiseless objective."""
        f, comps = self.true_values(x[None, :])
        out = {c.name: float(comps[c.name][0] * math.exp(c.noise * rng.standard_normal()))
               for c in self.components}
        out[self.objective] = float(f[0] * math.exp(self.objective_noise * rng.standard_normal()))
        return out, float(f[0])

    def sample_unit(self, rng, n):
        """n uniform points in u, mapped to native values (ints rounded)."""
        U = rng.uniform(size=(n, self.dim))
        return np.column_stack([p.from_unit(U[:, j]) for j, p in enumerate(self.params)])

    def optimum(self, n_random=200000, n_polish=8, seed=12345):
        """An estimate of the best noiseless objective: the best of n_random
        uniform points, then L-BFGS-B on the continuous relaxation from the
        best n_polish of them, rounded back to the integer grid and compared
        on that grid.  (x_native, value)."""
        from scipy.optimize import minimize
        rng = np.random.default_rng(seed)
        X = np.vstack([self.sample_unit(rng, 20000) for _ in range(n_random // 20000)])
        f, _ = self.true_values(X)
        sign = -1.0 if self.direction == "maximize" else 1.0
        order = np.argsort(sign * f)[:n_polish]
        best_x, best_f = X[order[0]], float(f[order[0]])

        def cont(U):          # continuous relaxation (no rounding) in u
            X = np.column_stack([
                (np.exp(math.log(p.low) + U[:, j] * (math.log(p.high) - math.log(p.low)))
                 if p.log_scale else p.low + U[:, j] * (p.high - p.low))
                for j, p in enumerate(self.params)])
            return X

        for i in order:
            u0 = np.array([p.to_unit(X[i, j]) for j, p in enumerate(self.params)])
            res = minimize(lambda u: sign * float(self.true_values(cont(u[None, :]))[0][0]),
                           u0, method="L-BFGS-B", bounds=[(0.0, 1.0)] * self.dim)
            xr = np.array([p.from_unit(res.x[j]) for j, p in enumerate(self.params)])
            fr = float(self.true_values(xr[None, :])[0][0])
            if self.better(fr, best_f):
                best_x, best_f = xr, fr
        return best_x, best_f


# ---------------------------------------------------------------------------
# Problem "rocksdb": throughput = 2e6 / (8 WA + 0.4 RL + 0.8 CT), maximised.
# The ten parameters of the paper's Table 1 (its ranges, with write buffer
# and block size starting at 64 KiB and 1 KiB), a float bloom filter
# setting, and two parameters that drive nothing.  Three components as in
# the paper: write amplification, P99 block read latency, P99 L0->L1
# compaction time.  WA and CT share write_buffer_size (larger buffers lower
# the write amplification but lengthen compactions); RL and CT share
# max_write_buffer_number.
# ---------------------------------------------------------------------------

def _rocksdb():
    P = [
        Param("max_background_compactions", "int", 1, 256, log_scale=True),
        Param("max_background_flushes", "int", 1, 10),
        Param("write_buffer_size", "int", 65536, 150000000, log_scale=True),
        Param("max_write_buffer_number", "int", 1, 128, log_scale=True),
        Param("min_write_buffer_number_to_merge", "int", 1, 32, log_scale=True),
        Param("max_bytes_for_level_multiplier", "int", 5, 15),
        Param("block_size", "int", 1024, 500000, log_scale=True),
        Param("level0_file_num_compaction_trigger", "int", 1, 256, log_scale=True),
        Param("level0_slowdown_writes_trigger", "int", 1, 1024, log_scale=True),
        Param("level0_stop_writes_trigger", "int", 1, 1024, log_scale=True),
        Param("bloom_bits_per_key", "float", 0, 20),
        Param("stats_dump_period_sec", "int", 1, 3600, log_scale=True),   # irrelevant
        Param("log_file_time_to_roll", "float", 0, 1000),                 # irrelevant
    ]
    wbs, merge, mult, l0 = ("write_buffer_size", "min_write_buffer_number_to_merge",
                            "max_bytes_for_level_multiplier", "level0_file_num_compaction_trigger")
    nbuf, blk, bloom = "max_write_buffer_number", "block_size", "bloom_bits_per_key"
    bgc, bgf, slow, stop = ("max_background_compactions", "max_background_flushes",
                            "level0_slowdown_writes_trigger", "level0_stop_writes_trigger")
    C = [
        Component("write_amp", "ratio", [wbs, merge, mult, l0],
                  lambda u: (2 + 6 * (u[mult] - 0.3) ** 2 + 3 * np.exp(-3 * u[wbs])
                             + 4 * (u[l0] - 0.5 - 0.3 * u[merge]) ** 2 + 1.5 * u[merge] ** 2),
                  0.03,
                  "2 + 6 (u_mult - 0.3)^2 + 3 exp(-3 u_wbs) + 4 (u_l0trig - 0.5 - 0.3 u_merge)^2 + 1.5 u_merge^2"),
        Component("p99_read_us", "us", [nbuf, blk, bloom],
                  lambda u: (60 + 150 * (u[blk] - 0.35) ** 2 + 80 * np.exp(-4 * u[bloom])
                             + 50 * u[nbuf] ** 2),
                  0.10,
                  "60 + 150 (u_block - 0.35)^2 + 80 exp(-4 u_bloom) + 50 u_nbuf^2"),
        Component("p99_compaction_ms", "ms", [bgc, bgf, wbs, nbuf, slow, stop],
                  lambda u: (15 + 40 * u[wbs] ** 2 + 35 * np.exp(-3 * u[bgc])
                             + 20 * (u[bgf] - 0.6) ** 2 + 20 * (1 - u[nbuf]) ** 2
                             + 15 * (u[slow] - 0.5) ** 2 + 25 * (u[stop] - u[slow] - 0.2) ** 2),
                  0.15,
                  "15 + 40 u_wbs^2 + 35 exp(-3 u_bgcomp) + 20 (u_bgflush - 0.6)^2 + 20 (1 - u_nbuf)^2"
                  " + 15 (u_slowdown - 0.5)^2 + 25 (u_stop - u_slowdown - 0.2)^2"),
    ]
    return Problem(
        "rocksdb", "RocksDB-like throughput (3 components, reciprocal)", "maximize",
        "ops_per_sec", "ops/s", P, C,
        lambda c: 2e6 / (8 * c["write_amp"] + 0.4 * c["p99_read_us"] + 0.8 * c["p99_compaction_ms"]),
        0.05, "ops_per_sec = 2e6 / (8 write_amp + 0.4 p99_read_us + 0.8 p99_compaction_ms)")


# ---------------------------------------------------------------------------
# Problem "cost": a service's cost = cpu + 6 mem + 8 read_p99 + 25 space_amp,
# minimised (linear in the components, unlike "rocksdb").  Eleven
# parameters, four components; cpu_pct has a periodic (two-basin) term in
# queue_depth.  Shared parameters: cpu/mem io_threads, mem/read cache_mb
# (a larger cache costs memory and saves reads), cpu/space compaction_rate,
# mem/space sst_file_mb.
# ---------------------------------------------------------------------------

def _cost():
    P = [
        Param("cache_mb", "int", 16, 65536, log_scale=True),
        Param("io_threads", "int", 1, 64, log_scale=True),
        Param("queue_depth", "int", 1, 256, log_scale=True),
        Param("compaction_rate", "float", 0, 1),
        Param("prefetch_kb", "int", 0, 4096),
        Param("sst_file_mb", "int", 2, 1024, log_scale=True),
        Param("bloom_bits", "float", 0, 20),
        Param("sync_interval_ms", "int", 1, 10000, log_scale=True),
        Param("gc_threshold", "float", 0.1, 0.9),
        Param("numa_hint", "int", 0, 7),                  # irrelevant
        Param("trace_sample_rate", "float", 0, 1),        # irrelevant
    ]
    C = [
        Component("cpu_pct", "%", ["io_threads", "queue_depth", "compaction_rate", "sync_interval_ms"],
                  lambda u: (25 + 30 * (u["io_threads"] - 0.45) ** 2
                             + 12 * (1 - np.cos(2 * math.pi * (u["queue_depth"] - 0.3)))
                             + 15 * u["compaction_rate"] ** 2 + 10 * np.exp(-3 * u["sync_interval_ms"])),
                  0.05,
                  "25 + 30 (u_io - 0.45)^2 + 12 (1 - cos(2 pi (u_qd - 0.3))) + 15 u_comp^2 + 10 exp(-3 u_sync)"),
        Component("mem_gb", "GB", ["cache_mb", "io_threads", "sst_file_mb"],
                  lambda u: 0.5 + 8 * u["cache_mb"] ** 2 + 1.5 * u["io_threads"]
                  + (u["sst_file_mb"] - 0.2) ** 2,
                  0.02,
                  "0.5 + 8 u_cache^2 + 1.5 u_io + (u_sst - 0.2)^2"),
        Component("read_p99_ms", "ms", ["cache_mb", "prefetch_kb", "bloom_bits"],
                  lambda u: (1 + 6 * np.exp(-3 * u["cache_mb"]) + 2 * (u["prefetch_kb"] - 0.3) ** 2
                             + 3 * np.exp(-4 * u["bloom_bits"]) * (1 - 0.6 * u["cache_mb"])),
                  0.12,
                  "1 + 6 exp(-3 u_cache) + 2 (u_prefetch - 0.3)^2 + 3 exp(-4 u_bloom) (1 - 0.6 u_cache)"),
        Component("space_amp", "ratio", ["compaction_rate", "sst_file_mb", "gc_threshold"],
                  lambda u: (1.1 + 1.5 * (1 - u["compaction_rate"]) ** 2
                             + 2 * (u["gc_threshold"] - 0.3) ** 2 + 0.6 * (u["sst_file_mb"] - 0.5) ** 2),
                  0.04,
                  "1.1 + 1.5 (1 - u_comp)^2 + 2 (u_gc - 0.3)^2 + 0.6 (u_sst - 0.5)^2"),
    ]
    return Problem(
        "cost", "Service cost (4 components, linear)", "minimize", "cost", "units", P, C,
        lambda c: c["cpu_pct"] + 6 * c["mem_gb"] + 8 * c["read_p99_ms"] + 25 * c["space_amp"],
        0.05, "cost = cpu_pct + 6 mem_gb + 8 read_p99_ms + 25 space_amp")


PROBLEMS = {p.name: p for p in (_rocksdb(), _cost())}


def _check():
    rng = np.random.default_rng(0)
    for prob in PROBLEMS.values():
        # Pairwise overlap of the component subsets is at most one parameter.
        for i, a in enumerate(prob.components):
            for b in prob.components[i + 1:]:
                shared = set(a.params) & set(b.params)
                assert len(shared) <= 1, (prob.name, a.name, b.name, shared)
        assert prob.irrelevant(), prob.name
        X = prob.sample_unit(rng, 20000)
        f, comps = prob.true_values(X)
        assert np.all(np.isfinite(f)) and np.all(f > 0)
        # Int parameters come back as integers inside their bounds.
        for j, p in enumerate(prob.params):
            assert np.all(X[:, j] >= p.low) and np.all(X[:, j] <= p.high)
            if p.kind == "int":
                assert np.all(X[:, j] == np.round(X[:, j]))
        # Irrelevant parameters do not change the objective.
        x0 = X[0].copy()
        x1 = X[1].copy()
        for name in prob.irrelevant():
            j = [q.name for q in prob.params].index(name)
            x1[j] = x0[j]
        x2 = x0.copy()
        for name in prob.irrelevant():
            j = [q.name for q in prob.params].index(name)
            x2[j] = X[5, j]
        assert prob.true_values(x2[None, :])[0][0] == prob.true_values(x0[None, :])[0][0]
        # Noisy observations average to the truth.
        obs = [prob.observe(X[3], rng)[0][prob.objective] for _ in range(4000)]
        assert abs(np.median(obs) / f[3] - 1) < 0.01
        xo, fo = prob.optimum()
        q = np.percentile(f, [0, 25, 50, 75, 100])
        print("%s: %s, %s, d=%d, T=%d (objective + %d components), irrelevant: %s"
              % (prob.name, prob.title, prob.direction, prob.dim, 1 + len(prob.components),
                 len(prob.components), ", ".join(prob.irrelevant())))
        print("  objective over 20000 uniform points: min %.5g  q1 %.5g  median %.5g  q3 %.5g  max %.5g"
              % tuple(q))
        print("  optimum estimate %.5g at %s" % (fo, {p.name: float(v) for p, v in zip(prob.params, xo)}))
        for c in prob.components:
            v = comps[c.name]
            corr = np.corrcoef(v, f)[0, 1]
            print("  %-18s %-36s range %.4g..%.4g  corr with objective %+.2f  noise %g"
                  % (c.name, ",".join(c.params)[:36], v.min(), v.max(), corr, c.noise))
        # The transfer source problem (drivers.source_problem) is related:
        # its objective is strongly correlated with this one's.
        import os
        import sys
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))   # bench/, for drivers
        import drivers
        src = drivers.source_problem(prob)
        fs, _ = src.true_values(X)
        xs, fso = src.optimum(n_random=40000)
        print("  transfer source: %s; corr with the objective over uniform points %+.3f, "
              "its optimum %.5g, this objective there %.5g (%.1f%% of the gap median -> optimum)"
              % (src.title, np.corrcoef(fs, f)[0, 1], fso, prob.true_values(xs[None, :])[0][0],
                 100 * (prob.true_values(xs[None, :])[0][0] - q[2]) / (fo - q[2])))
    print("problems ok")


if __name__ == "__main__":
    _check()
