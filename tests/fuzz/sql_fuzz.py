#!/usr/bin/python3
"""sql_fuzz.py: call every SQL function of schema tuner with generated bad
and extreme arguments and check that the server answers each with a clean
error or a result.

Connects through the PG* environment (run_sql_fuzz.sh starts the server,
built with ASan and UBSan).  The functions are enumerated from pg_proc with
their argument types; each call is its own transaction under a
statement_timeout.  Arguments are SQL expressions drawn from a seeded
generator: NULLs, NaN and +-Infinity, empty, ragged, 3-d and non-1-based
arrays, large n and d, malformed and deeply nested jsonb, unknown and
huge names, negative and zero counts, mixed with values that are valid
for the fixture studies, so that calls get past the first check.

Fails (exit 1) when the connection is lost (a crashed backend), an error
has SQLSTATE XX000 (internal error) or none, a call outlives its timeout
by far (a loop that does not check for interrupts), or the backend's RSS
grows past --rss-limit-mb.  Prints calls, errors by SQLSTATE and crashes.
"""
import argparse
import collections
import json
import random
import sys
import time

import psycopg2

FIXTURE = [
    "CREATE EXTENSION IF NOT EXISTS tuner",
    "SELECT tuner.create_study('d', 'score', 'maximize', '{\"seed\": 11}')",
    "SELECT tuner.add_parameter('d', 'rate', 'float', 0.001, 1, "
    "default_value => '0.01', log_scale => true)",
    "SELECT tuner.add_parameter('d', 'threads', 'int', 1, 64, default_value => '8')",
    "SELECT tuner.add_parameter('d', 'compress', 'bool', default_value => 'false')",
    "SELECT tuner.add_parameter('d', 'engine', 'categorical', "
    "choices => ARRAY['lsm', 'btree', 'hash'], default_value => 'btree')",
    "SELECT tuner.create_study('m', 'y', 'minimize', '{\"seed\": 3, \"n_initial\": 3}')",
    "SELECT tuner.add_parameter('m', 'a', 'float', 0, 1)",
    "SELECT tuner.add_parameter('m', 'b', 'float', -5, 5)",
]
# A few finished trials per study, so that fits, plots and recommendations
# have data.
TRIALS = {"d": "score", "m": "y"}

NAMES = ["d", "m", "nosuch", "score", "y", "rate", "threads", "compress",
         "engine", "a", "b", "convergence", "slice", "pareto", "importance",
         "heatmap", "task_correlation", "matern52", "rocksdb", "minimize",
         "maximize", "float", "int", "bool", "categorical", "lasso", "", " ",
         "D", "d; DROP TABLE x", "\u00e9\u00e8\u4e2d", "'", '"', "\\",
         "tuner.study", "pg_catalog", "%s%n", "null"]
JSON_KEYS = ["seed", "n_initial", "kernel", "lengthscales", "outputscale",
             "noise", "mean", "x", "y", "tasks", "task", "rank", "metric",
             "metrics", "score", "rate", "threads", "compress", "engine", "a",
             "b", "folds", "alpha", "alphas", "max_iter", "k", "by", "method",
             "width", "height", "parameters", "noise_sd", "acquisition",
             "constraints", "transfer_from", "log_likelihood", "candidates",
             "restarts", "xi", "beta", "timeout", "program", "args", "env",
             "settings", "preset", "n", "d", "trials", "parallel"]


class Gen:
    def __init__(self, seed, conn):
        self.r = random.Random(seed)
        self.conn = conn

    def lit(self, s):
        # standard_conforming_strings: only the quote is special
        return "'" + s.replace("'", "''") + "'"

    def num(self):
        r = self.r
        return r.choice([
            "0", "-0", "1", "-1", "0.5", "1e308", "-1e308", "5e-324", "1e-300",
            "'NaN'", "'Infinity'", "'-Infinity'", "2147483647",
            "-2147483648", "9223372036854775807", "3",
            repr(r.uniform(-1e6, 1e6)), repr(r.uniform(-2, 2)),
            str(r.randint(-10, 100))])

    def float8(self):
        return "(%s)::float8" % self.num()

    def integer(self, kind):
        r = self.r
        v = r.choice(["0", "-1", "1", "2", "3", "5", "10", "100", "1000000",
                      "2147483647", "-2147483648", str(r.randint(-5, 50))])
        if kind == "bigint" and r.random() < 0.2:
            v = r.choice(["9223372036854775807", "-9223372036854775808",
                          "(SELECT max(id) FROM tuner.trial)",
                          "(SELECT min(id) FROM tuner.trial)"])
        return v

    def text(self):
        r = self.r
        p = r.random()
        if p < 0.6:
            return self.lit(r.choice(NAMES))
        if p < 0.7:
            return "repeat('x', %d)" % r.choice([64, 65, 1000, 100000, 10000000])
        if p < 0.8:
            return "repeat(%s, %d)" % (self.lit(r.choice(NAMES[:10])), r.randint(2, 50))
        n = r.randint(0, 40)
        return self.lit("".join(chr(r.choice([r.randint(1, 127), r.randint(128, 0x2fff)]))
                                for _ in range(n)))

    def text_array(self):
        r = self.r
        p = r.random()
        if p < 0.15:
            return "'{}'::text[]"
        if p < 0.25:
            return "ARRAY[NULL]::text[]"
        if p < 0.3:
            return "'{{a,b},{c,d}}'::text[]"
        if p < 0.35:
            return "array_fill('x'::text, ARRAY[%d])" % r.choice([1000, 100000])
        n = r.randint(1, 5)
        return "ARRAY[%s]::text[]" % ",".join(self.text() for _ in range(n))

    def float_array(self):
        r = self.r
        p = r.random()
        if p < 0.08:
            return "'{}'::float8[]"
        if p < 0.12:
            return "ARRAY[NULL]::float8[]"
        if p < 0.16:
            return "'[0:1]={1,2}'::float8[]"
        if p < 0.2:
            return "'{{{1,2},{3,4}},{{5,6},{7,8}}}'::float8[]"
        if p < 0.24:
            return "ARRAY[[1, NULL], [2, 3]]::float8[]"
        if p < 0.3:
            # large n and d, within memory: at most 200k elements
            n, d = r.choice([(20000, 1), (2000, 2), (500, 20), (50, 1000),
                             (1, 4000), (100000, 2)])
            if r.random() < 0.5:
                return "array_fill(%s::float8, ARRAY[%d, %d])" % (self.num(), n, d)
            return "array_fill(%s::float8, ARRAY[%d])" % (self.num(), n * d)
        if p < 0.65:
            n, d = r.randint(1, 8), r.randint(1, 4)
            return "ARRAY[%s]::float8[]" % ",".join(
                "[%s]" % ",".join(self.num() for _ in range(d)) for _ in range(n))
        n = r.randint(1, 10)
        return "ARRAY[%s]::float8[]" % ",".join(self.num() for _ in range(n))

    def json_value(self, depth=0):
        r = self.r
        p = r.random()
        if depth > 3 or p < 0.45:
            return r.choice([None, True, False, 0, -1, 1, 2, 0.5, 1e308, -1e308,
                             1e-320, 10 ** 30, "NaN", "Infinity", "-1", "",
                             "matern52", "x" * r.choice([1, 100, 10000]),
                             r.randint(-100, 100), r.uniform(-10, 10),
                             r.choice(NAMES)])
        if p < 0.75:
            return [self.json_value(depth + 1) for _ in range(r.randint(0, 5))]
        return {r.choice(JSON_KEYS): self.json_value(depth + 1)
                for _ in range(r.randint(0, 5))}

    def jsonb(self):
        r = self.r
        p = r.random()
        if p < 0.05:
            return "'%s'::jsonb" % ("[" * 5000 + "]" * 5000)
        if p < 0.08:
            return "'%s1%s'::jsonb" % ('{"a":' * 3000, "}" * 3000)
        if p < 0.12:
            return r.choice(["'{}'", "'[]'", "'null'", "'1'", "'\"s\"'",
                             "'true'", "'{\"a\": }'", "'{'", "''"]) + "::jsonb"
        if p < 0.18:
            # a valid model, with one key spoiled
            m = {"kernel": "matern52", "lengthscales": [1], "outputscale": 1,
                 "noise": 0.01, "mean": 0, "x": [[0]], "y": [1]}
            m[r.choice(list(m))] = self.json_value(2)
            return "%s::jsonb" % self.lit(json.dumps(m))
        if p < 0.22:
            return "(SELECT jsonb_object_agg('k' || i, i) FROM generate_series(1, %d) i)" % \
                r.choice([1000, 50000])
        if p < 0.26:
            return "(SELECT config FROM tuner.trial ORDER BY random() LIMIT 1)"
        v = self.json_value()
        if not isinstance(v, (dict, list)) or r.random() < 0.7:
            v = {r.choice(JSON_KEYS): self.json_value(1) for _ in range(r.randint(1, 4))}
        return "%s::jsonb" % self.lit(json.dumps(v))

    def arg(self, typ):
        r = self.r
        if r.random() < 0.08 and typ not in ("anyelement", "record"):
            return "NULL::%s" % typ
        if typ in ("text", "name", "character varying", "regclass"):
            return "(%s)::%s" % (self.text(), typ)
        if typ in ("integer", "bigint", "smallint"):
            return "(%s)::%s" % (self.integer(typ), typ)
        if typ in ("double precision", "real", "numeric"):
            return "(%s)::%s" % (self.num(), typ)
        if typ == "boolean":
            return r.choice(["true", "false"])
        if typ == "double precision[]":
            return self.float_array()
        if typ in ("text[]", "name[]"):
            return "(%s)::%s" % (self.text_array(), typ)
        if typ in ("bigint[]", "integer[]"):
            return "(%s)::%s" % (r.choice(["'{}'", "'{1,2,3}'", "'{-1}'", "ARRAY[NULL]",
                                           "(SELECT array_agg(id) FROM tuner.trial)"]), typ)
        if typ == "jsonb":
            return self.jsonb()
        if typ == "anyelement":
            return r.choice(["NULL::int", "1", "'x'::text", "'NaN'::float8"])
        if typ == "record":
            return r.choice(["NULL::record", "ROW(1, 'x')", "ROW()"])
        if typ.startswith("tuner."):
            table = typ
            return r.choice(["NULL::%s" % typ,
                             "(SELECT t FROM %s t ORDER BY random() LIMIT 1)" % table,
                             "ROW()::%s" % typ])
        return "NULL::%s" % typ


def functions(cur):
    cur.execute("""
        SELECT p.oid::regprocedure::text, p.proname,
               coalesce((SELECT array_agg(format_type(t, NULL) ORDER BY o)
                           FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY u(t, o)),
                        '{}')
          FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
         WHERE n.nspname = 'tuner' AND p.prokind = 'f'
           AND p.prorettype NOT IN ('trigger'::regtype, 'event_trigger'::regtype)
         ORDER BY 1""")
    return cur.fetchall()


def setup(cur):
    # the extension itself must install; the rest may already exist
    cur.execute(FIXTURE[0])
    for sql in FIXTURE[1:]:
        try:
            cur.execute(sql)
        except psycopg2.Error:
            pass
    for study, metric in TRIALS.items():
        cur.execute("SELECT count(*) FROM tuner.trial t JOIN tuner.study s "
                    "ON s.id = t.study_id WHERE s.name = %s", (study,))
        for i in range(max(0, 5 - cur.fetchone()[0])):
            try:
                cur.execute("SELECT tuner.suggest_next(%s)", (study,))
                trial = cur.fetchone()[0]["trial"]
                cur.execute("SELECT tuner.report(%s, jsonb_build_object(%s, %s::float8))",
                            (trial, metric, float(i * i) - 2 * i))
            except psycopg2.Error:
                pass


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def connect(timeout_ms):
    conn = psycopg2.connect("")
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("SET statement_timeout = %s", (timeout_ms,))
    cur.execute("SET client_min_messages = error")
    return conn, cur


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--timeout-ms", type=int, default=3000)
    ap.add_argument("--rss-limit-mb", type=int, default=1500)
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--expect-map", action="append", default=[],
                    help="a file the backend must have mapped (the sanitized "
                    "tuner.so, the sanitized postgres); repeatable")
    args = ap.parse_args()

    conn, cur = connect(args.timeout_ms)
    setup(cur)
    funcs = functions(cur)
    if not funcs:
        print("sql_fuzz: no functions in schema tuner")
        return 1
    gen = Gen(args.seed, conn)
    states = collections.Counter()
    per_func = collections.Counter()
    findings = []
    crashes = 0
    slow = []
    max_rss = 0
    cur.execute("SELECT pg_backend_pid()")
    pid = cur.fetchone()[0]
    first_rss = None
    # The run means nothing unless the backend runs the sanitized build
    # (a C function loads tuner.so).
    cur.execute("""SELECT tuner.gp_log_likelihood('{"lengthscales": [1],
        "outputscale": 1, "noise": 0.01, "mean": 0, "x": [[0]], "y": [1]}')""")
    with open("/proc/%d/maps" % pid) as f:
        maps = f.read()
    for want in args.expect_map:
        if want not in maps:
            print("sql_fuzz: the backend has not mapped %s" % want)
            return 1
    start = time.time()

    for i in range(args.calls):
        # round robin over the functions, so that each gets its share
        sig, name, types = funcs[i % len(funcs)]
        argv = [gen.arg(t) for t in types]
        sql = "SELECT md5(r::text) FROM (SELECT tuner.%s(%s) AS r) s" % (
            name, ", ".join(argv))
        per_func[sig] += 1
        t0 = time.time()
        try:
            cur.execute(sql)
            cur.fetchall()
            states["ok"] += 1
        except psycopg2.OperationalError as e:
            if conn.closed or e.pgcode is None:
                crashes += 1
                findings.append(("crash", sig, sql[:2000], str(e)[:500]))
                print("sql_fuzz: CONNECTION LOST on %s\n  %s" % (sig, sql[:2000]))
                time.sleep(5)
                conn, cur = connect(args.timeout_ms)
                cur.execute("SELECT pg_backend_pid()")
                pid = cur.fetchone()[0]
                continue
            states[e.pgcode] += 1
        except psycopg2.Error as e:
            code = e.pgcode or "none"
            states[code] += 1
            if code in ("XX000", "none") or code.startswith("XX"):
                findings.append((code, sig, sql[:500], str(e).strip()[:300]))
        elapsed = time.time() - t0
        if elapsed > 10 * args.timeout_ms / 1000.0:
            slow.append((elapsed, sig, sql[:300]))
        if (i + 1) % args.batch == 0:
            if conn.closed:
                continue
            kb = rss_kb(pid)
            max_rss = max(max_rss, kb)
            if first_rss is None:
                first_rss = kb
            print("sql_fuzz: %d calls, %.0f s, backend RSS %d MB" %
                  (i + 1, time.time() - start, kb // 1024), flush=True)
            # drop_study and friends may have eaten the fixture
            setup(cur)

    errors = sum(v for k, v in states.items() if k != "ok")
    print("sql_fuzz: seed %d, %d functions, %d calls in %.0f s" %
          (args.seed, len(funcs), args.calls, time.time() - start))
    print("sql_fuzz: %d returned a result, %d errors, %d crashes" %
          (states["ok"], errors, crashes))
    print("sql_fuzz: errors by SQLSTATE:")
    for code, n in sorted(states.items(), key=lambda kv: -kv[1]):
        if code != "ok":
            print("  %s %d" % (code, n))
    print("sql_fuzz: backend RSS max %d MB (first batch %d MB, limit %d MB)" %
          (max_rss // 1024, (first_rss or 0) // 1024, args.rss_limit_mb))
    failed = False
    for f in findings:
        print("sql_fuzz: FINDING %s in %s\n  %s\n  %s" % f)
        failed = True
    for s in slow:
        print("sql_fuzz: SLOW %.1f s (timeout %d ms) in %s\n  %s" %
              (s[0], args.timeout_ms, s[1], s[2]))
        failed = True
    if max_rss // 1024 > args.rss_limit_mb:
        print("sql_fuzz: backend RSS %d MB is over the limit" % (max_rss // 1024))
        failed = True
    never = [sig for sig, _, _ in funcs if per_func[sig] < 10]
    if never:
        print("sql_fuzz: functions called fewer than 10 times: %s" % never)
        failed = True
    if args.calls < 10000:
        print("sql_fuzz: (fewer than 10,000 calls: a short run)")
    print("sql_fuzz: %s" % ("FAILED" if failed else "passed"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
