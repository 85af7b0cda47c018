#!/usr/bin/python3
"""Independent checks of tuner_fastquery's output with h5py + NumPy
(Debian's serial python3-h5py; nothing here shares code with the C program).

  fastquery_check.py queries DATA.h5 QUERY.json IDS.txt
      every query's hit count and hit ids equal a NumPy full scan
  fastquery_check.py index DATA.h5 INDEX.h5 VAR...
      every WAH bitmap decodes (format of src/runners/fastquery/wah.h) to
      exactly the particles whose value falls in that bin
  fastquery_check.py metrics build|query|gen JSON
      the metrics object is well formed
Exit 0 when all checks pass; the failures are printed.
"""
import json
import math
import re
import sys

import h5py
import numpy as np

OPS = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}
COND = re.compile(r"^([a-z]+)(<=|>=|<|>)(.+)$")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def scan(data, text):
    """Boolean mask of a query, compared in float32 as the program does."""
    mask = None
    for cond in text.split(","):
        m = COND.match(cond)
        if not m:
            fail("cannot parse condition %r" % cond)
        var, op, val = m.group(1), m.group(2), np.float32(float(m.group(3)))
        r = OPS[op](data[var], val)
        mask = r if mask is None else mask & r
    return mask


def check_queries(data_path, json_path, ids_path):
    out = json.load(open(json_path))
    with h5py.File(data_path, "r") as f:
        data = {k: f[k][:] for k in f.keys()}
    ids = {}
    for line in open(ids_path):
        q, i = line.split()
        ids.setdefault(int(q), []).append(int(i))
    nonzero = 0
    for q, entry in enumerate(out["queries"]):
        mask = scan(data, entry["query"])
        want = np.flatnonzero(mask)
        if entry["hits"] != len(want):
            fail("query %r: %d hits, full scan %d" % (entry["query"], entry["hits"], len(want)))
        got = np.array(sorted(ids.get(q, [])), dtype=np.int64)
        if not np.array_equal(got, want):
            fail("query %r: hit ids differ from the full scan" % entry["query"])
        nonzero += len(want) > 0
    if nonzero < len(out["queries"]) // 3:
        fail("too few queries with hits (%d of %d): the check is weak" % (nonzero, len(out["queries"])))
    print("queries: %d answers equal the full scan (%d non-empty)" % (len(out["queries"]), nonzero))


def decode_wah(words, nbits):
    """WAH32: MSB 0 literal of 31 bits; MSB 1 fill, bit 30 value, 30-bit run."""
    groups = []
    for w in words.tolist():
        if w & 0x80000000:
            run = w & 0x3FFFFFFF
            if run == 0:
                fail("zero-length fill")
            groups.append(np.full(run * 31, 1 if w & 0x40000000 else 0, dtype=np.uint8))
        else:
            groups.append(((w >> np.arange(31)) & 1).astype(np.uint8))
    bits = np.concatenate(groups) if groups else np.zeros(0, np.uint8)
    ngroups = (nbits + 30) // 31
    if len(bits) != ngroups * 31:
        fail("bitmap has %d groups, expected %d" % (len(bits) // 31, ngroups))
    if bits[nbits:].any():
        fail("padding bits set")
    return bits[:nbits].astype(bool)


def check_index(data_path, index_path, variables):
    with h5py.File(data_path, "r") as f, h5py.File(index_path, "r") as ix:
        n, block, nbins = (int(ix.attrs[k]) for k in ("n", "block", "nbins"))
        if int(ix.attrs["word_bits"]) != 32:
            fail("word_bits")
        for var in variables:
            values = f[var][:].astype(np.float64)
            edges = ix[var]["edges"][:]
            off = ix[var]["offsets"][:]
            words = ix[var]["words"][:]
            if edges[0] != values.min() or edges[-1] != values.max():
                fail("%s: edges do not span the data range" % var)
            if off[-1] != len(words):
                fail("%s: last offset %d != %d words" % (var, off[-1], len(words)))
            # the bin of v: the largest k < nbins with edges[k] <= v
            bins = np.searchsorted(edges[1:nbins], values, side="right")
            nblocks = (n + block - 1) // block
            for b in range(nblocks):
                lo, hi = b * block, min((b + 1) * block, n)
                for k in range(nbins):
                    j = b * nbins + k
                    bits = decode_wah(words[off[j]:off[j + 1]], hi - lo)
                    if not np.array_equal(bits, bins[lo:hi] == k):
                        fail("%s: bitmap of block %d bin %d is wrong" % (var, b, k))
            print("index %s: %d blocks x %d bins decode to the binned data" % (var, nblocks, nbins))


def finite(obj, key):
    v = obj.get(key)
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) or v < 0:
        fail("metric %s is %r" % (key, v))


def check_metrics(kind, json_path):
    text = open(json_path).read()
    if text.count("\n") != 1:
        fail("stdout is not exactly one line")
    obj = json.loads(text)
    if obj.get("subcommand") != kind:
        fail("subcommand %r" % obj.get("subcommand"))
    keys = {"gen": ["n", "gen_s", "file_bytes"],
            "build": ["n", "build_s", "read_s", "range_s", "index_s", "write_s",
                      "build_MBps", "read_MBps", "index_bytes", "index_file_bytes", "cpu_s"],
            "query": ["n", "query_s", "cpu_s", "values_read", "query_count"]}[kind]
    for k in keys:
        finite(obj, k)
    if kind == "build":
        for k in ("read_io_mode", "write_io_mode"):
            if obj[k] not in ("no_collective", "chunk_independent", "chunk_collective",
                              "chunk_mixed", "contiguous_collective"):
                fail("%s = %r" % (k, obj[k]))
        for h in ("hints_data", "hints_index"):
            if not isinstance(obj[h]["effective"], dict) or not obj[h]["effective"]:
                fail("%s has no effective hints" % h)
    print("metrics %s: well formed" % kind)


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "queries":
        check_queries(*sys.argv[2:5])
    elif len(sys.argv) >= 5 and sys.argv[1] == "index":
        check_index(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif len(sys.argv) == 4 and sys.argv[1] == "metrics":
        check_metrics(sys.argv[2], sys.argv[3])
    else:
        fail(__doc__)


if __name__ == "__main__":
    main()
