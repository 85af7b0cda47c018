#!/usr/bin/python3
"""paired_check.py: checks shared by the runner tests (issues 29 and 30).

  paired_check.py pairs OUT RATIO PAIR_RATIOS PAIRS [SD_LOG]
      OUT is a paired trial's output.  Its _diagnostics.order is ABBA
      (pair 1 default, trial; pair 2 trial, default; ...) over PAIRS
      pairs; RATIO (a metric) is the geometric mean of
      _diagnostics[PAIR_RATIOS]; _std_error[RATIO] is finite, >= 0 and
      equal to RATIO * sd(log pair ratios) / sqrt(pairs) with two pairs or
      more, and absent with one; _diagnostics[SD_LOG] (when named) is that
      sd.  A key path may be "a.b" for nested objects.
  paired_check.py progress FILE MIN_LINES [METRIC_REGEX]
      FILE holds what a runner wrote on fd 3: at least MIN_LINES lines,
      each one JSON object {"step", "metrics"} under 4096 bytes, steps
      increasing, every metric a finite number or null (and, when given,
      every metric name matching METRIC_REGEX).
  paired_check.py fd3 MODE INPUT OUT -- CMD...
      Runs CMD with stdin from INPUT and stdout to OUT, fd 3 a pipe that
      MODE "closed" has no reader (a write gives EPIPE) or MODE "full"
      is already full and never read (a write gives EAGAIN); passes when
      CMD exits 0 with one JSON object on stdout, within 600 s.
"""
import fcntl
import json
import math
import os
import re
import subprocess
import sys


def get(d, path):
    for part in path.split("."):
        d = d[part]
    return d


def pairs(out, ratio_key, ratios_key, npairs, sd_key=None):
    d = json.load(open(out))
    diag = d["_diagnostics"]
    npairs = int(npairs)
    order = diag["order"]
    want = []
    for k in range(1, npairs + 1):
        want += ["default", "trial"] if k % 2 == 1 else ["trial", "default"]
    assert order == want, ("order is not ABBA", order, want)
    assert diag["pairs"] == npairs, diag["pairs"]
    ratios = get(diag, ratios_key)
    assert len(ratios) == npairs, ratios
    assert all(isinstance(r, (int, float)) and r > 0 for r in ratios), ratios
    logs = [math.log(r) for r in ratios]
    geo = math.exp(sum(logs) / len(logs))
    got = d[ratio_key]
    assert abs(got - geo) <= 1e-9 * geo, (ratio_key, got, geo)
    se = d.get("_std_error", {})
    assert isinstance(se, dict), se
    for k, v in se.items():
        assert k in d and not k.startswith("_"), ("std error of no metric", k)
        assert isinstance(v, (int, float)) and math.isfinite(v) and v >= 0, (k, v)
    if npairs >= 2:
        m = sum(logs) / npairs
        sd = math.sqrt(sum((x - m) ** 2 for x in logs) / (npairs - 1))
        want_se = geo * sd / math.sqrt(npairs)
        assert ratio_key in se, ("no _std_error", ratio_key, d.get("_std_error"))
        assert abs(se[ratio_key] - want_se) <= 1e-9 + 1e-9 * want_se, (se, want_se)
        if sd_key:
            assert abs(get(diag, sd_key) - sd) <= 1e-9 + 1e-9 * sd, (sd_key, sd)
    else:
        assert ratio_key not in se, ("a _std_error from one pair", se)
    print(ratio_key, round(got, 4), "pairs", [round(r, 4) for r in ratios],
          "std_error", se.get(ratio_key))


def progress(path, min_lines, regex=None):
    text = open(path).read()
    lines = [l for l in text.split("\n") if l.strip()]
    assert text == "" or text.endswith("\n"), "last line without newline"
    assert len(lines) >= int(min_lines), (len(lines), lines[:5])
    last = None
    for l in lines:
        assert len(l) + 1 <= 4096, l
        r = json.loads(l)
        assert isinstance(r, dict) and set(r) == {"step", "metrics"}, l
        s = r["step"]
        assert isinstance(s, (int, float)) and math.isfinite(s) and s >= 0, l
        assert last is None or s > last, ("steps not increasing", last, s)
        last = s
        assert isinstance(r["metrics"], dict) and r["metrics"], l
        for k, v in r["metrics"].items():
            assert v is None or (isinstance(v, (int, float)) and math.isfinite(v)), l
            if regex:
                assert re.fullmatch(regex, k), (k, regex)
    print(len(lines), "lines, steps", lines[0][:60], "...", last)


def fd3(mode, inp, out, cmd):
    r, w = os.pipe()
    # keep both ends off fd 3, which becomes the write end
    r2, w2 = fcntl.fcntl(r, fcntl.F_DUPFD, 10), fcntl.fcntl(w, fcntl.F_DUPFD, 10)
    os.close(r)
    os.close(w)
    r, w = r2, w2
    if mode == "closed":
        os.close(r)
        r = None
    elif mode == "full":
        fl = fcntl.fcntl(w, fcntl.F_GETFL)
        fcntl.fcntl(w, fcntl.F_SETFL, fl | os.O_NONBLOCK)
        n = 0
        try:
            while True:
                n += os.write(w, b"x" * 4096)
        except BlockingIOError:
            pass
        fcntl.fcntl(w, fcntl.F_SETFL, fl)
        assert n > 0
    else:
        raise SystemExit("mode: closed or full")
    os.dup2(w, 3, inheritable=True)
    os.close(w)
    with open(inp) as i, open(out, "w") as o:
        p = subprocess.run(cmd, stdin=i, stdout=o, pass_fds=(3,), timeout=600)
    os.close(3)
    if r is not None:
        os.close(r)
    assert p.returncode == 0, ("exit status", p.returncode)
    json.load(open(out))
    print("fd 3", mode, ": exit 0, output parsed")


if __name__ == "__main__":
    a = sys.argv[1:]
    if a[0] == "pairs":
        pairs(*a[1:])
    elif a[0] == "progress":
        progress(*a[1:])
    elif a[0] == "fd3":
        sep = a.index("--")
        fd3(a[1], a[2], a[3], a[sep + 1:])
    else:
        raise SystemExit(__doc__)
