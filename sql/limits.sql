-- Limits of the numerics and the hyperparameters a model accepts
-- (issue 25): tuner.max_fit_rows, tuner.max_choices and
-- tuner.max_lasso_size refuse bigger inputs up front, only a superuser
-- raises them, and lengthscales, outputscales, variances and noise must be
-- positive (noise may be zero) normal numbers.
\set SHOW_CONTEXT never
LOAD 'tuner';

-- The defaults.
SHOW tuner.max_fit_rows;
SHOW tuner.max_choices;
SHOW tuner.max_lasso_size;

-- A GP model to perturb.
\set m1 '{"kernel": "matern52", "lengthscales": [0.5], "outputscale": 1, "noise": 0.01, "mean": 0, "x": [[0], [0.5], [1]], "y": [1, 2, 0]}'
SELECT round(mean::numeric, 6) AS mean, round(sd::numeric, 6) AS sd
  FROM tuner.gp_predict(:'m1', ARRAY[[0.25]]);

-- A subnormal lengthscale made every prediction NaN.
SELECT * FROM tuner.gp_predict(jsonb_set(:'m1', '{lengthscales}', '[1e-320]'), ARRAY[[0.25]]);
SELECT tuner.gp_log_likelihood(jsonb_set(:'m1', '{lengthscales}', '[1e-320]'));
-- normal, but its inverse square overflows
SELECT * FROM tuner.gp_predict(jsonb_set(:'m1', '{lengthscales}', '[1e-200]'), ARRAY[[0.25]]);
-- the smallest accepted: the points are independent, the predictions finite
SELECT round(mean::numeric, 6) AS mean, round(sd::numeric, 6) AS sd
  FROM tuner.gp_predict(jsonb_set(:'m1', '{lengthscales}', '[1e-150]'), ARRAY[[0.25], [0.5]]);
-- and so is a huge one (a constant kernel)
SELECT round(mean::numeric, 6) AS mean, round(sd::numeric, 6) AS sd
  FROM tuner.gp_predict(jsonb_set(:'m1', '{lengthscales}', '[1e300]'), ARRAY[[0.25]]);
SELECT * FROM tuner.gp_predict(jsonb_set(:'m1', '{lengthscales}', '[0]'), ARRAY[[0.25]]);
SELECT * FROM tuner.gp_predict(jsonb_set(:'m1', '{lengthscales}', '[-1]'), ARRAY[[0.25]]);
SELECT * FROM tuner.gp_predict(jsonb_set(:'m1', '{outputscale}', '1e-310'), ARRAY[[0.25]]);
SELECT * FROM tuner.gp_predict(jsonb_set(:'m1', '{outputscale}', '0'), ARRAY[[0.25]]);
SELECT * FROM tuner.gp_predict(jsonb_set(:'m1', '{noise}', '4e-320'), ARRAY[[0.25]]);
SELECT * FROM tuner.gp_predict(jsonb_set(:'m1', '{noise}', '-1e-3'), ARRAY[[0.25]]);
-- noise zero is allowed (exact observations; jitter keeps K definite)
SELECT round(mean::numeric, 6) AS mean
  FROM tuner.gp_predict(jsonb_set(:'m1', '{noise}', '0'), ARRAY[[0.5]]);
-- non-finite values through the C entry point
SELECT * FROM tuner._gp_predict('{{0},{1}}', '{1,2}', '{NaN}', 1, 0.01, 0, '{{0.5}}');
SELECT * FROM tuner._gp_predict('{{0},{1}}', '{1,2}', '{Infinity}', 1, 0.01, 0, '{{0.5}}');
SELECT * FROM tuner._gp_predict('{{0},{1}}', '{1,2}', '{1}', 'Infinity', 0.01, 0, '{{0.5}}');
SELECT * FROM tuner._gp_predict('{{0},{1}}', '{1,2}', '{1}', 1, 'NaN', 0, '{{0.5}}');

-- The same for an ICM model: lengthscales, v and noise.
\set i1 '{"kernel": "matern52", "model": "icm", "x": [[0], [0.5], [1]], "y": [[1, 2], [0, 1], [-1, 0.5]], "lengthscales": [0.4], "W": [[1.0], [0.8]], "v": [0.1, 0.2], "noise": [0.01, 0.02], "mean": [0, 1]}'
SELECT round(mean::numeric, 6) AS mean FROM tuner.icm_predict(:'i1', ARRAY[[0.25]], 1);
SELECT * FROM tuner.icm_predict(jsonb_set(:'i1', '{lengthscales}', '[1e-320]'), ARRAY[[0.25]], 1);
SELECT * FROM tuner.icm_predict(jsonb_set(:'i1', '{lengthscales}', '[1e-160]'), ARRAY[[0.25]], 1);
SELECT * FROM tuner.icm_predict(jsonb_set(:'i1', '{v}', '[0.1, 1e-310]'), ARRAY[[0.25]], 1);
SELECT * FROM tuner.icm_predict(jsonb_set(:'i1', '{noise}', '[5e-324, 0.02]'), ARRAY[[0.25]], 2);

-- tuner.max_fit_rows: fits, predictions and suggestions of more rows are
-- refused before any work.
SET tuner.max_fit_rows = 2;
SELECT tuner.gp_fit('{{0},{0.5},{1}}', '{1,2,0}');
SELECT * FROM tuner.gp_predict(:'m1', ARRAY[[0.25]]);
-- an ICM model counts observed values: 3 rows x 2 tasks
SET tuner.max_fit_rows = 5;
SELECT tuner.icm_fit('{{0},{0.5},{1}}', '{{1,2},{0,1},{-1,0.5}}');
SELECT * FROM tuner.icm_predict(:'i1', ARRAY[[0.25]], 1);
SELECT round(mean::numeric, 6) AS mean
  FROM tuner.icm_predict(jsonb_set(:'i1', '{y}', '[[1, 2], [0, null], [-1, 0.5]]'), ARRAY[[0.25]], 1);
SET tuner.max_fit_rows = 3;
SELECT tuner.gp_fit('{{0},{0.5},{1}}', '{1,2,0}', '{"seed": 1}') ? 'lengthscales' AS fits_at_the_limit;
-- learn_clusters (through its C entry point) too
SELECT score FROM tuner._learn_clusters('{{0},{0.25},{0.5},{0.75},{1}}', '{{1},{2},{0},{1},{3}}', 10, 0.1, 1, 1);
RESET tuner.max_fit_rows;
-- at least 1
SET tuner.max_fit_rows = 0;

-- tuner.max_lasso_size: cells of x.
SET tuner.max_lasso_size = 11;
SELECT tuner.lasso('{{1,1,1},{-1,1,-1},{1,-1,-1},{-1,-1,1}}', '{2,-1,1,0}', 0.3);
SELECT tuner.lasso_cv('{{1,1,1},{-1,1,-1},{1,-1,-1},{-1,-1,1}}', '{2,-1,1,0}');
SET tuner.max_lasso_size = 12;
SELECT tuner.lasso('{{1,1,1},{-1,1,-1},{1,-1,-1},{-1,-1,1}}', '{2,-1,1,0}', 0.3) ? 'coefficients' AS fits_at_the_limit;
RESET tuner.max_lasso_size;

-- tuner.max_choices: a study's categorical parameter, and 2^31 - 1
-- choices through the C entry point, refused at once.
SELECT tuner.create_study('limits_cat', 'value', 'minimize', '{"seed": 3, "n_initial": 2}') > 0 AS created;
SELECT tuner.add_parameter('limits_cat', 'x', 'float', 0, 1);
SELECT tuner.add_parameter('limits_cat', 'c', 'categorical',
                           choices => ARRAY['a', 'b', 'c', 'd', 'e']);
SET tuner.max_choices = 4;
SELECT tuner.suggest_next('limits_cat');
-- (through tuner._suggest, the C entry point, with a record of its own)
SELECT tuner._suggest(0, jsonb_populate_record(NULL::tuner.suggestion,
                      '{"algorithm": "gp-ei", "parameters": ["c"], "kinds": [3], "lows": [0], "highs": [0],
                        "log_scales": [false], "n_choices": [2147483647], "fixed": {}, "sign": 1,
                        "observed": [], "pending": [], "other": [], "n_initial": 5, "design_index": 0,
                        "seed": 1, "design_seed": 1, "canonical": true}'));
SET tuner.max_choices = 5;
SELECT tuner.suggest_next('limits_cat') ? 'trial' AS suggests_at_the_limit;
RESET tuner.max_choices;
SELECT tuner.drop_study('limits_cat');

-- A suggestion refuses to fit more trials than tuner.max_fit_rows; the
-- random algorithm fits none.
SELECT tuner.create_study('limits_rows', 'value', 'minimize', '{"seed": 4, "n_initial": 2}') > 0 AS created;
SELECT tuner.add_parameter('limits_rows', 'x', 'float', 0, 1);
DO $$
DECLARE
    s jsonb;
BEGIN
    FOR i IN 1 .. 3 LOOP
        s := tuner.suggest_next('limits_rows');
        PERFORM tuner.report((s ->> 'trial')::bigint,
            jsonb_build_object('value', (s -> 'params' ->> 'x')::float8));
    END LOOP;
END
$$;
SET tuner.max_fit_rows = 2;
SELECT tuner.suggest_next('limits_rows');
SELECT tuner.set_algorithm('limits_rows', 'random');
SELECT tuner.suggest_next('limits_rows') ? 'trial' AS random_still_suggests;
RESET tuner.max_fit_rows;
SELECT tuner.drop_study('limits_rows');

-- Only a superuser sets them.
CREATE ROLE regress_tuner_limits;
SET ROLE regress_tuner_limits;
SET tuner.max_fit_rows = 100000;
SET tuner.max_choices = 100000000;
SET tuner.max_lasso_size = 100000000;
RESET ROLE;
DROP ROLE regress_tuner_limits;
