"""
loader.py
    Give a tuner study a history of n completed trials at given points,
    for the latency benchmark.

    The SQL API has no call to import finished trials, and driving n trials
    through suggest_next would make the history the tuner's own choices (and
    take minutes at n = 500).  So the rows are inserted straight into
    tuner.trial and tuner.observation (source 'manual'), the way
    tuner.report would leave them.  This depends on the 0.1.0 schema.
"""
import json

import numpy as np

from methods import unique_name


def load_history(conn, d, n, X, f, n_initial=5, seed=1, warm=True, X_failed=None):
    """Create a study of d float parameters in [0, 1] with n complete trials
    at the rows of X and objective f(X); return (name, X, y).  The rows of
    X_failed, when given, are failed trials numbered after them (they feed
    the failure model, src/core/feasibility.h).

    With warm, the study also gets the model row of a previous fit, as any
    study has after its first model-based suggestion (suggest_next then
    refines that fit instead of starting cold): one suggest_next is run and
    committed, its model row detached from the trial, and the trial deleted,
    so the history is again exactly the n loaded trials."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(f(X), dtype=float)
    name = unique_name("latency_d%d_n%d" % (d, n))
    names = ["x%d" % i for i in range(d)]
    configs = [json.dumps({k: float(v) for k, v in zip(names, row)}) for row in X]
    with conn.cursor() as cur:
        cur.execute("SELECT tuner.create_study(%s, objective => 'value', direction => 'minimize', settings => %s::jsonb)",
                    (name, json.dumps({"seed": seed, "n_initial": n_initial})))
        for p in names:
            cur.execute("SELECT tuner.add_parameter(%s, %s, 'float', low => 0, high => 1)",
                        (name, p))
        cur.execute("""
            WITH s AS (SELECT id, objective FROM tuner.study WHERE name = %s),
            t AS (
                INSERT INTO tuner.trial (study_id, number, config, state, source,
                                         started_at, finished_at)
                SELECT s.id, u.i, u.c::jsonb, 'complete', 'manual', now(), now()
                  FROM s, unnest(%s::text[]) WITH ORDINALITY AS u(c, i)
                RETURNING id, number, study_id)
            INSERT INTO tuner.observation (trial_id, metric_id, value)
            SELECT t.id, m.id, (%s::float8[])[t.number]
              FROM t JOIN s ON s.id = t.study_id
              JOIN tuner.metric m ON m.study_id = s.id AND m.name = s.objective
            """, (name, configs, [float(v) for v in y]))
        if X_failed is not None and len(X_failed) > 0:
            failed = [json.dumps({k: float(v) for k, v in zip(names, row)}) for row in X_failed]
            cur.execute("""
                INSERT INTO tuner.trial (study_id, number, config, state, source, error,
                                         started_at, finished_at)
                SELECT s.id, %s + u.i, u.c::jsonb, 'failed', 'manual', 'bench: failing region',
                       now(), now()
                  FROM tuner.study s, unnest(%s::text[]) WITH ORDINALITY AS u(c, i)
                 WHERE s.name = %s""", (n, failed, name))
        if warm:
            cur.execute("SELECT tuner.suggest_next(%s)", (name,))
            trial = cur.fetchone()[0]["trial"]
            # the objective's fit, and with failed trials the failure model's
            cur.execute("UPDATE tuner.model SET trial_id = NULL WHERE trial_id = %s", (trial,))
            if cur.rowcount < 1:
                raise RuntimeError("the warm-up suggestion of %s stored no model" % name)
            cur.execute("DELETE FROM tuner.trial WHERE id = %s", (trial,))
        # Read back what suggest_next will see.
        cur.execute("""SELECT params, value FROM tuner.trials
                        WHERE study = %s AND state = 'complete' ORDER BY number""", (name,))
        rows = cur.fetchall()
    if len(rows) != n:
        raise RuntimeError("loaded %d trials, expected %d" % (len(rows), n))
    Xb = np.array([[float(p[k]) for k in names] for p, _ in rows])
    yb = np.array([float(v) for _, v in rows])
    if not (np.array_equal(Xb, X) and np.array_equal(yb, y)):
        raise RuntimeError("history read back differs from what was loaded")
    return name, Xb, yb
