-- The low-level multi-task GP (ICM): icm_fit and icm_predict on
-- hand-written and fitted models, the units of the fitted model, the
-- fallback for tasks with one observation or no variance, and every input
-- error.
\set SHOW_CONTEXT never

-- A hand-written, fully observed model (Kronecker path).
\set m1 '{"kernel": "matern52", "model": "icm", "x": [[0], [0.5], [1]], "y": [[1, 2], [0, 1], [-1, 0.5]], "lengthscales": [0.4], "W": [[1.0], [0.8]], "v": [0.1, 0.2], "noise": [0.01, 0.02], "mean": [0, 1]}'
SELECT t.task, p.i, round(p.mean::numeric, 6) AS mean, round(p.sd::numeric, 6) AS sd
  FROM generate_series(1, 2) t(task),
       LATERAL tuner.icm_predict(:'m1', ARRAY[[0], [0.25], [1], [5]], t.task)
               WITH ORDINALITY AS p(mean, sd, i)
 ORDER BY t.task, p.i;

-- The same model on the full path agrees with the Kronecker path.
SELECT t.task, max(abs(k.mean - f.mean)) < 1e-10 AS mean_agrees,
       max(abs(k.sd - f.sd)) < 1e-10 AS sd_agrees
  FROM generate_series(1, 2) t(task),
       LATERAL tuner.icm_predict(:'m1', ARRAY[[0.1], [0.7], [3]], t.task)
               WITH ORDINALITY AS k(mean, sd, i)
       JOIN LATERAL tuner.icm_predict(:'m1'::jsonb || '{"force_full": true}',
                                      ARRAY[[0.1], [0.7], [3]], t.task)
               WITH ORDINALITY AS f(mean, sd, i) ON f.i = k.i
 GROUP BY t.task ORDER BY t.task;

-- Missing entries (full path); far from the data the posterior is the
-- prior: the task mean, and sd = sqrt(B[t, t]).
\set m2 '{"x": [[0], [0.5], [1]], "y": [[1, null], [0, 1], [null, 0.5]], "lengthscales": [0.4], "W": [[1.0], [0.8]], "v": [0.1, 0.2], "noise": [0.01, 0.02], "mean": [0, 1]}'
SELECT t.task, p.i, round(p.mean::numeric, 6) AS mean, round(p.sd::numeric, 6) AS sd
  FROM generate_series(1, 2) t(task),
       LATERAL tuner.icm_predict(:'m2', ARRAY[[0], [0.25], [1], [50]], t.task)
               WITH ORDINALITY AS p(mean, sd, i)
 ORDER BY t.task, p.i;
SELECT abs(p.sd - sqrt(0.8 * 0.8 + 0.2)) < 1e-12 AS prior_sd,
       abs(p.mean - 1) < 1e-12 AS prior_mean
  FROM tuner.icm_predict(:'m2', ARRAY[[50]], 2) p;

-- One task is the single-task GP with outputscale W^2 + v.
\set g1 '{"kernel": "matern52", "lengthscales": [0.3, 0.7], "outputscale": 1.25, "noise": 0.05, "mean": 0.5, "x": [[0, 0], [1, 0], [0, 1], [0.4, 0.6]], "y": [1.0, 0.2, 0.9, 0.4]}'
\set i1 '{"lengthscales": [0.3, 0.7], "W": [[1.0]], "v": [0.25], "noise": [0.05], "mean": [0.5], "x": [[0, 0], [1, 0], [0, 1], [0.4, 0.6]], "y": [[1.0], [0.2], [0.9], [0.4]]}'
SELECT max(abs(i.mean - g.mean)) < 1e-10 AS mean_agrees,
       max(abs(i.sd - g.sd)) < 1e-10 AS sd_agrees
  FROM tuner.icm_predict(:'i1', ARRAY[[0.5, 0.5], [0.1, 0.9], [2, 2]], 1)
       WITH ORDINALITY AS i(mean, sd, k)
  JOIN tuner.gp_predict(:'g1', ARRAY[[0.5, 0.5], [0.1, 0.9], [2, 2]])
       WITH ORDINALITY AS g(mean, sd, k) ON g.k = i.k;

-- Extra keys (the outputs of icm_fit) are ignored; "kernel" and "model"
-- are optional.
SELECT round(mean::numeric, 6) AS mean
  FROM tuner.icm_predict(:'m1'::jsonb - 'kernel' - 'model' || '{"rank": 1, "log_likelihood": 5, "kronecker": false}',
                         ARRAY[[0.25]], 1);

-- icm_fit on two correlated tasks over two inputs, in the caller's units.
CREATE TEMP TABLE icm_data AS
SELECT array_agg(ARRAY[a, b] ORDER BY a, b)::float8[] AS x,
       array_agg(ARRAY[10 + sin(3 * a) + b * b, 500 - 100 * sin(3 * a) + 30 * b]
                 ORDER BY a, b)::float8[] AS y
  FROM generate_series(0, 1, 0.25) a, generate_series(0, 1, 0.5) b;
CREATE TEMP TABLE icm_model AS
SELECT tuner.icm_fit(x, y, '{"seed": 1}') AS model FROM icm_data;
SELECT (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(model) k) AS keys,
       model ->> 'kernel' AS kernel, model ->> 'model' AS model_kind,
       model -> 'rank' AS rank, model -> 'kronecker' AS kronecker,
       model -> 'force_full' AS force_full,
       jsonb_array_length(model -> 'lengthscales') AS dims,
       jsonb_array_length(model -> 'W') AS w_rows,
       jsonb_array_length(model -> 'W' -> 0) AS w_cols,
       jsonb_array_length(model -> 'task_correlation') AS corr_rows,
       jsonb_array_length(model -> 'x') AS n
  FROM icm_model;
-- Means and noise are in the caller's units; B = W W^T + diag(v) is the
-- reported task covariance, its correlation is negative.
SELECT (model -> 'mean' ->> 0)::float8 BETWEEN 9 AND 12 AS mean1_in_units,
       (model -> 'mean' ->> 1)::float8 BETWEEN 400 AND 600 AS mean2_in_units,
       (model -> 'noise' ->> 0)::float8 > 0 AND (model -> 'noise' ->> 1)::float8 > 0 AS noise_ok,
       abs((model -> 'task_correlation' -> 0 ->> 0)::float8 - 1) < 1e-12 AS corr_diag,
       (model -> 'task_correlation' -> 0 ->> 1)::float8 < -0.5 AS corr_negative,
       abs((model -> 'task_covariance' -> 1 ->> 1)::float8
           - ((model -> 'W' -> 1 ->> 0)::float8 ^ 2 + (model -> 'W' -> 1 ->> 1)::float8 ^ 2
              + (model -> 'v' ->> 1)::float8)) < 1e-9 * (model -> 'task_covariance' -> 1 ->> 1)::float8 AS b_consistent,
       (model ->> 'log_likelihood')::float8 < 0 AS ll_finite
  FROM icm_model;
SELECT tuner.icm_fit(x, y, '{"seed": 1}') = (SELECT model FROM icm_model) AS deterministic
  FROM icm_data;
-- It follows the data of both tasks.
SELECT t.task, max(abs(p.mean - v.y)) < 0.02 * max(abs(v.y)) AS interpolates
  FROM icm_model, icm_data d, generate_series(1, 2) t(task),
       LATERAL tuner.icm_predict(icm_model.model, d.x, t.task) WITH ORDINALITY AS p(mean, sd, i)
       JOIN LATERAL (SELECT d.y[i][t.task] AS y, i FROM generate_series(1, 15) i) v ON v.i = p.i
 GROUP BY t.task ORDER BY t.task;
-- The fitted (Kronecker) model predicts the same on the full path.
SELECT max(abs(k.mean - f.mean)) < 1e-8 * 500 AS full_agrees
  FROM icm_model,
       LATERAL tuner.icm_predict(model, ARRAY[[0.1, 0.3], [0.9, 0.2]], 2) WITH ORDINALITY AS k(mean, sd, i)
       JOIN LATERAL tuner.icm_predict(model || '{"force_full": true}', ARRAY[[0.1, 0.3], [0.9, 0.2]], 2)
            WITH ORDINALITY AS f(mean, sd, i) ON f.i = k.i;
-- force_full and missing entries both fit on the full path.
SELECT tuner.icm_fit(x, y, '{"seed": 1, "force_full": true, "restarts": 1}') -> 'kronecker' AS forced,
       tuner.icm_fit(x, y, '{"seed": 1, "force_full": true, "restarts": 1}') -> 'force_full' AS forced_key,
       tuner.icm_fit(x, y[1:14] || ARRAY[[1.0, NULL]], '{"seed": 1, "restarts": 1}') -> 'kronecker' AS missing
  FROM icm_data;
-- Options: rank 1, no priors, bounded effort.
SELECT m -> 'rank' AS rank, jsonb_array_length(m -> 'W' -> 0) AS w_cols
  FROM icm_data,
       LATERAL tuner.icm_fit(x, y, '{"seed": 2, "rank": 1, "restarts": 2, "max_evals": 50, "use_priors": false, "min_noise": 1e-6}') m;

-- Units do not matter: x and one task rescaled give the same model,
-- rescaled (up to the optimiser's round-off).
SELECT max(abs(b.mean - (1000 * a.mean + 50))) < 1e-6 * 1000 AS mean_scales,
       max(abs(b.sd - 1000 * a.sd)) < 1e-6 * 1000 AS sd_scales
  FROM icm_data d,
       LATERAL tuner.icm_fit(d.x, d.y, '{"seed": 3, "restarts": 1}') ma,
       LATERAL tuner.icm_fit((SELECT array_agg(ARRAY[100 * x[i][1] - 7, x[i][2]] ORDER BY i)
                                FROM generate_series(1, 15) i),
                             (SELECT array_agg(ARRAY[1000 * y[i][1] + 50, y[i][2]] ORDER BY i)
                                FROM generate_series(1, 15) i),
                             '{"seed": 3, "restarts": 1}') mb,
       LATERAL tuner.icm_predict(ma, ARRAY[[0.3, 0.2], [0.8, 0.9]], 1) WITH ORDINALITY AS a(mean, sd, i)
       JOIN LATERAL tuner.icm_predict(mb, ARRAY[[23.0, 0.2], [73.0, 0.9]], 1) WITH ORDINALITY AS b(mean, sd, i)
            ON b.i = a.i;

-- Fallback: a task observed once, or whose values are all equal, is
-- centred on its mean but not scaled.  The fit works, and each such task is
-- predicted near its value.
CREATE TEMP TABLE icm_fallback AS
SELECT tuner.icm_fit(ARRAY[[0.0], [0.2], [0.4], [0.6], [0.8], [1.0]],
                     ARRAY[[1.0, NULL, 5.0], [2.0, 7.5, 5.0], [1.5, NULL, 5.0],
                           [0.5, NULL, 5.0], [0.0, NULL, 5.0], [0.7, NULL, 5.0]],
                     '{"seed": 4, "rank": 1}') AS model;
SELECT model -> 'kronecker' AS kronecker,
       (SELECT bool_and(e::float8 > 0) FROM jsonb_array_elements_text(model -> 'noise') e) AS noise_ok,
       (SELECT bool_and(e::float8 > 0) FROM jsonb_array_elements_text(model -> 'v') e) AS v_ok
  FROM icm_fallback;
SELECT abs(p.mean - 7.5) < 0.5 AS single_near_value
  FROM icm_fallback, tuner.icm_predict(model, ARRAY[[0.2]], 2) p;
SELECT max(abs(p.mean - 5.0)) < 0.05 AS constant_near_value
  FROM icm_fallback, tuner.icm_predict(model, ARRAY[[0.0], [0.5], [1.0]], 3) p;

-- Errors of icm_fit: NULL arguments and bad options.
SELECT tuner.icm_fit(NULL, ARRAY[[1.0]]);
SELECT tuner.icm_fit(ARRAY[[1.0]], NULL);
SELECT tuner.icm_fit(ARRAY[[1.0]], ARRAY[[1.0]], NULL);
SELECT tuner.icm_fit(ARRAY[[1.0]], ARRAY[[1.0]], '[]');
SELECT tuner.icm_fit(ARRAY[[1.0]], ARRAY[[1.0]], '{"ranks": 1}');
SELECT tuner.icm_fit(ARRAY[[0.0], [1.0]], ARRAY[[1.0, 2.0], [3.0, 4.0]], '{"rank": 0}');
SELECT tuner.icm_fit(ARRAY[[0.0], [1.0]], ARRAY[[1.0, 2.0], [3.0, 4.0]], '{"rank": 3}');
SELECT tuner.icm_fit(ARRAY[[0.0], [1.0]], ARRAY[[1.0, 2.0], [3.0, 4.0]], '{"rank": "2"}');
SELECT tuner.icm_fit(ARRAY[[0.0], [1.0]], ARRAY[[1.0, 2.0], [3.0, 4.0]], '{"rank": 1.5}');
SELECT tuner.icm_fit(ARRAY[[0.0], [1.0]], ARRAY[[1.0, 2.0], [3.0, 4.0]], '{"restarts": 0}');
SELECT tuner.icm_fit(ARRAY[[0.0], [1.0]], ARRAY[[1.0, 2.0], [3.0, 4.0]], '{"max_evals": -1}');
SELECT tuner.icm_fit(ARRAY[[0.0], [1.0]], ARRAY[[1.0, 2.0], [3.0, 4.0]], '{"seed": "x"}');
SELECT tuner.icm_fit(ARRAY[[0.0], [1.0]], ARRAY[[1.0, 2.0], [3.0, 4.0]], '{"use_priors": 1}');
SELECT tuner.icm_fit(ARRAY[[0.0], [1.0]], ARRAY[[1.0, 2.0], [3.0, 4.0]], '{"force_full": "yes"}');
SELECT tuner.icm_fit(ARRAY[[0.0], [1.0]], ARRAY[[1.0, 2.0], [3.0, 4.0]], '{"min_noise": "small"}');
SELECT tuner.icm_fit(ARRAY[[0.0], [1.0]], ARRAY[[1.0, 2.0], [3.0, 4.0]], '{"min_noise": -1}');

-- Errors of icm_fit: the data.
SELECT tuner.icm_fit(ARRAY[[0.0], ['NaN'::float8]], ARRAY[[1.0], [2.0]]);
SELECT tuner.icm_fit(ARRAY[[0.0, 1.0], [2.0, 'Infinity']], ARRAY[[1.0], [2.0]]);
SELECT tuner.icm_fit(ARRAY[[0.0], [1.0]], ARRAY[[1.0, 2.0], ['NaN', 3.0]]);
SELECT tuner.icm_fit(ARRAY[[0.0], [1.0]], ARRAY[[1.0, '-Infinity'], [2.0, 3.0]]);
SELECT tuner.icm_fit(ARRAY[[0.0], [NULL::float8]], ARRAY[[1.0], [2.0]]);
SELECT tuner.icm_fit(ARRAY[[0.0], [1.0], [2.0]], ARRAY[[1.0], [2.0]]);
SELECT tuner.icm_fit(ARRAY[[0.0], [1.0]], ARRAY[1.0, 2.0]);
SELECT tuner.icm_fit(ARRAY[[0.0], [1.0]], ARRAY[[[1.0]], [[2.0]]]);
SELECT tuner.icm_fit(ARRAY[0.0, 1.0], ARRAY[[1.0], [2.0]]);
SELECT tuner.icm_fit('{}', ARRAY[[1.0]]);
SELECT tuner.icm_fit(ARRAY[[1.0]], '{}');
SELECT tuner.icm_fit(ARRAY[[0.0], [1.0]], ARRAY[[1.0, NULL], [2.0, NULL]]);

-- Errors of icm_predict: the model jsonb.
SELECT * FROM tuner.icm_predict(NULL, ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict('[1]', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"kernel": "rbf"}', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"model": "gp"}', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb - 'x', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb - 'y', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb - 'lengthscales', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb - 'W', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb - 'v', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb - 'noise', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb - 'mean', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"force_full": "yes"}', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"rank": 2}', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"y": [1, 0, -1]}', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"y": [[1, 2], [0, "a"], [-1, 0.5]]}', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"y": [[1, 2], [0, 1]]}', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"y": [[1, 2], [0], [-1, 0.5]]}', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"y": [[1, null], [0, null], [-1, null]]}', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"x": [0, 0.5, 1]}', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"lengthscales": [0.4, 1]}', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"lengthscales": [0]}', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"W": [1.0, 0.8]}', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"W": [[1.0], [0.8], [0.5]]}', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"W": [[1, 0, 0], [0.8, 0, 0]]}', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"W": [[1.0], ["a"]]}', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"v": [0.1]}', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"v": [0.1, 0]}', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"v": [-0.1, 0.2]}', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"noise": [0.01, 0]}', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"noise": [0.01, 0.02, 0.03]}', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"noise": 0.01}', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"mean": [0]}', ARRAY[[0.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1'::jsonb || '{"mean": [0, null]}', ARRAY[[0.0]], 1);

-- Errors of icm_predict: the query points and the task.
SELECT * FROM tuner.icm_predict(:'m1', NULL, 1);
SELECT * FROM tuner.icm_predict(:'m1', ARRAY[[0.0]], NULL);
SELECT * FROM tuner.icm_predict(:'m1', ARRAY[[0.0]], 0);
SELECT * FROM tuner.icm_predict(:'m1', ARRAY[[0.0]], 3);
SELECT * FROM tuner.icm_predict(:'m1', ARRAY[[0.0, 1.0]], 1);
SELECT * FROM tuner.icm_predict(:'m1', ARRAY[0.0, 1.0], 1);
SELECT * FROM tuner.icm_predict(:'m1', ARRAY[['NaN'::float8]], 1);
SELECT * FROM tuner.icm_predict(:'m1', '{}', 1);
