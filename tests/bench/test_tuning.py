#!/usr/bin/python3
"""
test_tuning.py: the parts of bench/tuning.py that need no server (the
random search's sampling, the re-measurement's interval, the verdicts,
the paired measurement's noise),
checked against scipy and hand-computed cases.  Run with Debian's python3.
"""
import math
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import tuning  # noqa: E402

# The fastquery preset's space as tuner.parameter gives it (a subset).
SPACE = [("bins", "int", 8, 512, True, None),
         ("layout", "categorical", None, None, False, ["contiguous", "chunked"]),
         ("ranks", "int", 1, 4, False, None),
         ("cb_nodes", "int", 1, 4, False, None),
         ("overlap", "bool", None, None, False, None),
         ("align", "categorical", None, None, False, ["0", "65536", "1048576"]),
         ("rate", "float", 0.01, 1.0, True, None)]


class Sample(unittest.TestCase):
    def setUp(self):
        tuning.lines.clear()
        rng = random.Random(7)
        self.cfgs = [tuning.sample(SPACE, rng, lambda c: c["cb_nodes"] <= c["ranks"]) for _ in range(4000)]

    def test_constraint_holds(self):
        self.assertTrue(all(c["cb_nodes"] <= c["ranks"] for c in self.cfgs))
        # and does not collapse the space: cb_nodes 4 needs ranks 4
        self.assertIn((4, 4), {(c["ranks"], c["cb_nodes"]) for c in self.cfgs})

    def test_kinds_and_bounds(self):
        for c in self.cfgs:
            self.assertTrue(8 <= c["bins"] <= 512 and isinstance(c["bins"], int))
            self.assertIn(c["layout"], ("contiguous", "chunked"))
            self.assertIn(c["align"], ("0", "65536", "1048576"))
            self.assertIsInstance(c["overlap"], bool)
            self.assertTrue(0.01 <= c["rate"] <= 1.0)
        self.assertEqual({c["align"] for c in self.cfgs}, {"0", "65536", "1048576"})
        self.assertEqual({c["overlap"] for c in self.cfgs}, {True, False})

    def test_log_scale_is_uniform_in_log(self):
        # median of a log-uniform draw on [8, 512] is sqrt(8 * 512) = 64
        bins = sorted(c["bins"] for c in self.cfgs)
        self.assertLess(abs(bins[len(bins) // 2] - 64), 8)

    def test_impossible_constraint_raises(self):
        with self.assertRaises(RuntimeError):
            tuning.sample(SPACE, random.Random(1), lambda c: False)

    def test_unknown_kind_raises(self):
        with self.assertRaises(RuntimeError):
            tuning.sample([("x", "complex", 0, 1, False, None)], random.Random(1))


class Interval(unittest.TestCase):
    def test_against_scipy(self):
        from scipy import stats
        ratios = [1.2, 1.5, 0.9, 1.31, 1.05]
        logs = [math.log(r) for r in ratios]
        lo, hi = stats.t.interval(0.95, len(logs) - 1, loc=sum(logs) / len(logs), scale=stats.sem(logs))
        mean, a, b = tuning.interval(ratios)
        self.assertAlmostEqual(mean, stats.gmean(ratios), places=12)
        self.assertAlmostEqual(a, math.exp(lo), places=12)
        self.assertAlmostEqual(b, math.exp(hi), places=12)

    def test_small(self):
        self.assertEqual(tuning.interval([]), (None, None, None))
        self.assertEqual(tuning.interval([2.0]), (2.0, None, None))


def cand(label, mean, lo=None, hi=None):
    return {"label": label, "mean": mean, "lo": lo, "hi": hi}


class Verdicts(unittest.TestCase):
    def setUp(self):
        tuning.lines.clear()

    def test_target_reached(self):
        v = tuning.verdicts([cand("default", 1.0), cand("study s1", 1.6), cand("random best", 1.7)], 1.5, 0.9)
        self.assertTrue(v["overall"].startswith("PASS (>= 1.50x"))
        self.assertEqual(v["ceiling_label"], "random best")

    def test_ceiling_below_target(self):
        v = tuning.verdicts([cand("study s1", 1.2), cand("random best", 1.3)], 1.5, 0.9)
        self.assertAlmostEqual(v["ceiling"], 1.3)
        self.assertTrue(v["overall"].startswith("PASS (ceiling 1.300 < 1.50x"))
        v = tuning.verdicts([cand("study s1", 1.1), cand("random best", 1.3)], 1.5, 0.9)
        self.assertTrue(v["overall"].startswith("MISS (ceiling 1.300 < 1.50x"))

    def test_ceiling_above_target_missed(self):
        v = tuning.verdicts([cand("study s1", 1.4), cand("random best", 1.8)], 1.5, 0.9)
        self.assertTrue(v["overall"].startswith("MISS (ceiling 1.800 >= 1.50x"))

    def test_ceiling_at_least_the_default(self):
        v = tuning.verdicts([cand("default", 0.98), cand("study s1", 0.8), cand("random best", 0.7)], 1.5, 0.9)
        self.assertEqual(v["ceiling"], 1.0)
        self.assertEqual([s["ceiling"] for s in v["studies"]], [False])


class Noise(unittest.TestCase):
    def test_cv_against_numpy(self):
        import numpy as np
        xs = [1.02, 0.91, 1.10, 0.97, 1.05, 0.88]
        self.assertAlmostEqual(tuning.cv(xs), np.std(xs, ddof=1) / np.mean(xs), places=12)

    def test_cv_by_hand(self):
        # mean 2, sample sd sqrt(((1)^2 + (1)^2) / 1) = sqrt(2)
        self.assertAlmostEqual(tuning.cv([1.0, 3.0]), math.sqrt(2) / 2, places=12)
        self.assertEqual(tuning.cv([5.0, 5.0, 5.0]), 0.0)

    def test_cv_skips_what_is_not_a_finite_number(self):
        # the runner's NaN (one pair), a missing metric, a bool are no values
        self.assertAlmostEqual(tuning.cv([1.0, float("nan"), None, 3.0, float("inf"), True]),
                               math.sqrt(2) / 2, places=12)
        self.assertIsNone(tuning.cv([1.0, float("nan"), None]))
        self.assertIsNone(tuning.cv([]))
        self.assertIsNone(tuning.cv([-1.0, 1.0]))      # mean 0

    def test_paired_noise(self):
        control = [{"write_ratio": 0.9, "write_ratio_cv": 0.10, "write_mbps_default": 50.0},
                   {"write_ratio": 1.1, "write_ratio_cv": 0.20, "write_mbps_default": 100.0},
                   {"write_ratio": 1.0, "write_ratio_cv": float("nan"), "write_mbps_default": 75.0},
                   {}]                                  # a failed run: no metrics
        others = [{"write_ratio": 1.6, "write_mbps_default": 25.0}, {"write_mbps_default": None}]
        n = tuning.paired_noise(control, others, "write_ratio", "write_mbps_default", "write_ratio_cv")
        self.assertEqual(n["n"], 3)
        self.assertEqual(n["ratios"], [0.9, 1.1, 1.0])
        self.assertAlmostEqual(n["gmean"], (0.9 * 1.1 * 1.0) ** (1 / 3), places=12)
        self.assertAlmostEqual(n["cv"], 0.1, places=12)          # sd 0.1 around 1.0
        # the within-run CV only where the runner defined it (2+ pairs)
        self.assertEqual(n["n_within"], 2)
        self.assertAlmostEqual(n["within_cv"], 0.15, places=12)
        # the raw default over the control and the other runs: 25..100
        self.assertEqual(n["n_raw"], 4)
        self.assertAlmostEqual(n["raw_cv"], tuning.cv([50.0, 100.0, 75.0, 25.0]), places=12)
        self.assertGreater(n["raw_cv"], n["cv"])    # the drift pairing cancels

    def test_paired_noise_empty(self):
        n = tuning.paired_noise([], [], "write_ratio", "write_mbps_default", "write_ratio_cv")
        self.assertEqual((n["n"], n["gmean"], n["cv"], n["n_within"], n["within_cv"], n["n_raw"], n["raw_cv"]),
                         (0, None, None, 0, None, 0, None))


if __name__ == "__main__":
    unittest.main(verbosity=1)
