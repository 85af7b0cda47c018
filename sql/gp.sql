-- The low-level Gaussian process: gp_fit, gp_predict, gp_log_likelihood on
-- hand-written and fitted models, and every input error.
\set SHOW_CONTEXT never

-- A hand-written model with one point: the posterior is known in closed
-- form.  k(r) = s (1 + sqrt5 r + 5/3 r^2) exp(-sqrt5 r), r = |x - x'| / l.
\set m1 '{"kernel": "matern52", "lengthscales": [1], "outputscale": 1, "noise": 0.01, "mean": 0, "x": [[0]], "y": [1]}'
SELECT round(mean::numeric, 6) AS mean, round(sd::numeric, 6) AS sd
  FROM tuner.gp_predict(:'m1', ARRAY[[0], [1], [100]]);
WITH k AS (SELECT (1 + sqrt(5) + 5.0 / 3) * exp(-sqrt(5)) AS k1)
SELECT abs(p.mean - k1 / 1.01) < 1e-12 AS mean_exact,
       abs(p.sd - sqrt(1 - k1 * k1 / 1.01)) < 1e-12 AS sd_exact
  FROM k, tuner.gp_predict(:'m1', ARRAY[[1.0]]) p;
SELECT round(tuner.gp_log_likelihood(:'m1')::numeric, 9) AS ll,
       abs(tuner.gp_log_likelihood(:'m1') - (-0.5 / 1.01 - 0.5 * ln(2 * pi() * 1.01))) < 1e-12 AS ll_exact;

-- The kernel key is optional; extra keys (log_likelihood) are ignored.
SELECT round(tuner.gp_log_likelihood(:'m1'::jsonb - 'kernel' || '{"log_likelihood": 5}')::numeric, 9) AS ll;

-- Two dimensions, anisotropic lengthscales, a constant mean.
\set m2 '{"kernel": "matern52", "lengthscales": [0.5, 2.0], "outputscale": 2.0, "noise": 0.1, "mean": 3.0, "x": [[0, 0], [1, 0], [0, 1]], "y": [3.5, 2.0, 4.0]}'
SELECT round(mean::numeric, 4) AS mean, round(sd::numeric, 4) AS sd
  FROM tuner.gp_predict(:'m2', ARRAY[[0, 0], [1, 0], [0, 1], [10, 10]]);
SELECT round(tuner.gp_log_likelihood(:'m2')::numeric, 6) AS ll;

-- gp_fit on a smooth function: deterministic, in the caller's units, and
-- its log_likelihood is the one gp_log_likelihood computes.
CREATE TEMP TABLE data AS
SELECT array_agg(ARRAY[a, b] ORDER BY a, b) AS x,
       array_agg(10 + sin(3 * a) + b * b ORDER BY a, b) AS y
  FROM generate_series(0, 1, 0.25) a, generate_series(0, 1, 0.5) b;
CREATE TEMP TABLE fit AS
SELECT tuner.gp_fit(x::float8[], y::float8[], '{"seed": 1}') AS model FROM data;
SELECT (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(model) k) AS keys,
       model ->> 'kernel' AS kernel,
       jsonb_array_length(model -> 'lengthscales') AS dims,
       (model ->> 'outputscale')::float8 > 0 AS outputscale_ok,
       (model ->> 'noise')::float8 >= 0 AS noise_ok,
       (model ->> 'mean')::float8 BETWEEN 8 AND 13 AS mean_in_units,
       jsonb_array_length(model -> 'x') AS n
  FROM fit;
SELECT abs(tuner.gp_log_likelihood(model) - (model ->> 'log_likelihood')::float8)
       <= 1e-8 * abs((model ->> 'log_likelihood')::float8) AS ll_consistent
  FROM fit;
SELECT tuner.gp_fit(x::float8[], y::float8[], '{"seed": 1}') = (SELECT model FROM fit) AS deterministic
  FROM data;
SELECT max(abs(p.mean - v.y)) < 0.2 AS interpolates
  FROM fit, data d,
       LATERAL tuner.gp_predict(fit.model, d.x::float8[]) WITH ORDINALITY AS p(mean, sd, i)
       JOIN LATERAL unnest(d.y::float8[]) WITH ORDINALITY AS v(y, i) ON v.i = p.i;
SELECT tuner.gp_fit(x::float8[], y::float8[], '{"seed": 2, "restarts": 2, "max_evals": 50, "use_priors": false, "min_noise": 1e-6}') ? 'lengthscales' AS options_ok
  FROM data;

-- Errors of gp_fit: NULLs, empty and mismatched arrays, NaN/Inf, NULL
-- elements, wrong dimensions, bad options.
SELECT tuner.gp_fit(NULL, ARRAY[1.0]);
SELECT tuner.gp_fit(ARRAY[[1.0]], NULL);
SELECT tuner.gp_fit(ARRAY[[1.0]], ARRAY[1.0], NULL);
SELECT tuner.gp_fit(ARRAY[[0.0], [1.0], [2.0]], ARRAY[1.0, 2.0]);
SELECT tuner.gp_fit('{}', ARRAY[1.0]);
SELECT tuner.gp_fit(ARRAY[[1.0]], '{}');
SELECT tuner.gp_fit(ARRAY[[0.0], ['NaN'::float8]], ARRAY[1.0, 2.0]);
SELECT tuner.gp_fit(ARRAY[[0.0, 1.0], [2.0, 'Infinity']], ARRAY[1.0, 2.0]);
SELECT tuner.gp_fit(ARRAY[[0.0], [1.0]], ARRAY[1.0, 'NaN']);
SELECT tuner.gp_fit(ARRAY[[0.0], [1.0]], ARRAY[1.0, '-Infinity']);
SELECT tuner.gp_fit(ARRAY[[0.0], [NULL::float8]], ARRAY[1.0, 2.0]);
SELECT tuner.gp_fit(ARRAY[[0.0], [1.0]], ARRAY[1.0, NULL]);
SELECT tuner.gp_fit(ARRAY[0.0, 1.0, 2.0], ARRAY[1.0, 2.0, 3.0]);
SELECT tuner.gp_fit(ARRAY[[[0.0]], [[1.0]]], ARRAY[1.0, 2.0]);
SELECT tuner.gp_fit(ARRAY[[0.0], [1.0]], ARRAY[[1.0, 2.0]]);
SELECT tuner.gp_fit(ARRAY[[0.0], [1.0]], ARRAY[1.0, 2.0], '[]');
SELECT tuner.gp_fit(ARRAY[[0.0], [1.0]], ARRAY[1.0, 2.0], '{"restart": 3}');
SELECT tuner.gp_fit(ARRAY[[0.0], [1.0]], ARRAY[1.0, 2.0], '{"restarts": 0}');
SELECT tuner.gp_fit(ARRAY[[0.0], [1.0]], ARRAY[1.0, 2.0], '{"restarts": "3"}');
SELECT tuner.gp_fit(ARRAY[[0.0], [1.0]], ARRAY[1.0, 2.0], '{"seed": 1.5}');
SELECT tuner.gp_fit(ARRAY[[0.0], [1.0]], ARRAY[1.0, 2.0], '{"use_priors": 1}');
SELECT tuner.gp_fit(ARRAY[[0.0], [1.0]], ARRAY[1.0, 2.0], '{"min_noise": -1}');
SELECT tuner.gp_fit(ARRAY[[0.0], [1.0]], ARRAY[1.0, 2.0], '{"min_noise": "small"}');

-- Errors of gp_predict and gp_log_likelihood: the model jsonb.
SELECT * FROM tuner.gp_predict(NULL, ARRAY[[0.0]]);
SELECT * FROM tuner.gp_predict('[1]', ARRAY[[0.0]]);
SELECT * FROM tuner.gp_predict(:'m1'::jsonb - 'lengthscales', ARRAY[[0.0]]);
SELECT * FROM tuner.gp_predict(:'m1'::jsonb - 'outputscale', ARRAY[[0.0]]);
SELECT * FROM tuner.gp_predict(:'m1'::jsonb - 'noise', ARRAY[[0.0]]);
SELECT * FROM tuner.gp_predict(:'m1'::jsonb - 'mean', ARRAY[[0.0]]);
SELECT * FROM tuner.gp_predict(:'m1'::jsonb - 'x', ARRAY[[0.0]]);
SELECT * FROM tuner.gp_predict(:'m1'::jsonb - 'y', ARRAY[[0.0]]);
SELECT tuner.gp_log_likelihood(:'m1'::jsonb - 'y');
SELECT tuner.gp_log_likelihood(NULL);
SELECT tuner.gp_log_likelihood(:'m1'::jsonb || '{"kernel": "rbf"}');
SELECT tuner.gp_log_likelihood(:'m1'::jsonb || '{"lengthscales": [1, 2]}');
SELECT tuner.gp_log_likelihood(:'m1'::jsonb || '{"lengthscales": []}');
SELECT tuner.gp_log_likelihood(:'m1'::jsonb || '{"lengthscales": 1}');
SELECT tuner.gp_log_likelihood(:'m1'::jsonb || '{"lengthscales": ["1"]}');
SELECT tuner.gp_log_likelihood(:'m1'::jsonb || '{"lengthscales": [0]}');
SELECT tuner.gp_log_likelihood(:'m1'::jsonb || '{"lengthscales": [-1]}');
SELECT tuner.gp_log_likelihood(:'m1'::jsonb || '{"outputscale": 0}');
SELECT tuner.gp_log_likelihood(:'m1'::jsonb || '{"outputscale": "1"}');
SELECT tuner.gp_log_likelihood(:'m1'::jsonb || '{"noise": -0.1}');
SELECT tuner.gp_log_likelihood(:'m1'::jsonb || '{"mean": null}');
SELECT tuner.gp_log_likelihood(:'m1'::jsonb || '{"y": [1, 2]}');
SELECT tuner.gp_log_likelihood(:'m1'::jsonb || '{"y": [1, "a"]}');
SELECT tuner.gp_log_likelihood(:'m1'::jsonb || '{"x": [0]}');
SELECT tuner.gp_log_likelihood(:'m1'::jsonb || '{"x": [[0, 1]]}');
SELECT tuner.gp_log_likelihood(:'m1'::jsonb || '{"x": [[0], [1, 2]], "y": [1, 2]}');
SELECT tuner.gp_log_likelihood(:'m1'::jsonb || '{"x": [[]]}');
SELECT tuner.gp_log_likelihood(:'m1'::jsonb || '{"x": []}');
SELECT tuner.gp_log_likelihood(:'m1'::jsonb || '{"x": [[null]]}');

-- Errors of gp_predict: the query points.
SELECT * FROM tuner.gp_predict(:'m1', NULL);
SELECT * FROM tuner.gp_predict(:'m1', ARRAY[0.0, 1.0]);
SELECT * FROM tuner.gp_predict(:'m1', ARRAY[[0.0, 1.0]]);
SELECT * FROM tuner.gp_predict(:'m1', ARRAY[['NaN'::float8]]);
SELECT * FROM tuner.gp_predict(:'m1', ARRAY[[NULL::float8]]);
SELECT * FROM tuner.gp_predict(:'m1', '{}');
