-- Lasso: tuner.lasso, tuner.lasso_cv and tuner.lasso_rank
SET extra_float_digits = 0;

-- Orthogonal centred design (||x_j||^2 = n): soft-thresholding of x_j'y/n.
-- x_j'y/n = 1, 0, 0.5 here; at lambda 0.3: 0.7, 0, 0.2.
SELECT r -> 'intercept' AS intercept,
	   (SELECT array_agg(round(c::numeric, 9)) FROM jsonb_array_elements_text(r -> 'coefficients') c) AS coefficients,
	   r -> 'converged' AS converged
  FROM tuner.lasso('{{1,1,1},{-1,1,-1},{1,-1,-1},{-1,-1,1}}',
				   '{2,-1,1,0}', 0.3, '{"tol": 1e-12}') r;

-- the same with the fast solver: the same answer
SELECT (SELECT array_agg(round(c::numeric, 9)) FROM jsonb_array_elements_text(r -> 'coefficients') c) AS coefficients,
	   r -> 'converged' AS converged
  FROM tuner.lasso('{{1,1,1},{-1,1,-1},{1,-1,-1},{-1,-1,1}}',
				   '{2,-1,1,0}', 0.3, '{"solver": "fast"}') r;

-- lambda >= lambda_max (1): all zero, intercept = mean(y) (the replica
-- takes one sweep; the fast solver needs no step there: n_iter 0)
SELECT tuner.lasso('{{1,1,1},{-1,1,-1},{1,-1,-1},{-1,-1,1}}',
				   '{2,-1,1,0}', 1.0);
SELECT tuner.lasso('{{1,1,1},{-1,1,-1},{1,-1,-1},{-1,-1,1}}',
				   '{2,-1,1,0}', 1.0, '{"solver": "fast"}');

-- standardize: coefficients stay in the units of x
SELECT (SELECT array_agg(round(c::numeric, 6)) FROM jsonb_array_elements_text(r -> 'coefficients') c)
  FROM tuner.lasso('{{10,0.1},{20,0.3},{30,0.2},{40,0.5},{50,0.4}}',
				   '{1,2,3,4,5}', 0.1, '{"standardize": true}') r;

-- lasso_cv on an exact linear relation y = 2 x1 (x2, x3 noise columns)
WITH d AS (
	SELECT array_agg(ARRAY[i::float8, ((i * 7) % 5)::float8, ((i * 3) % 4)::float8] ORDER BY i) AS x,
		   array_agg(2.0 * i ORDER BY i) AS y
	  FROM generate_series(1, 20) i
), r AS (
	SELECT tuner.lasso_cv(d.x, d.y, '{"n_lambdas": 10}') AS r FROM d
)
SELECT jsonb_array_length(r -> 'lambdas') AS n_lambdas,
	   round((r ->> 'lambda')::numeric, 6) AS lambda,
	   round((r -> 'coefficients' ->> 0)::numeric, 3) AS b1,
	   r -> 'entered_at' AS entered_at,
	   r -> 'path_nonzero' -> 0 AS nonzero_at_max,
	   (r ->> 'lambda_1se')::float8 >= (r ->> 'lambda')::float8 AS one_se_larger,
	   jsonb_array_length(r -> 'cv_mean') AS cv_len,
	   jsonb_array_length(r -> 'cv_std') AS cv_std_len
  FROM r;

-- both solvers choose the same lambda on it
WITH d AS (
	SELECT array_agg(ARRAY[i::float8, ((i * 7) % 5)::float8, ((i * 3) % 4)::float8] ORDER BY i) AS x,
		   array_agg(2.0 * i + (i % 3) ORDER BY i) AS y
	  FROM generate_series(1, 20) i
)
SELECT f ->> 'lambda' = s ->> 'lambda' AS same_lambda,
	   round((f -> 'coefficients' ->> 0)::numeric, 4) AS b1_fast,
	   round((s -> 'coefficients' ->> 0)::numeric, 4) AS b1_sklearn
  FROM d, LATERAL tuner.lasso_cv(d.x, d.y, '{"n_lambdas": 10, "solver": "fast"}') f,
	   LATERAL tuner.lasso_cv(d.x, d.y, '{"n_lambdas": 10}') s;

-- an explicit grid, sorted descending; folds option
SELECT r -> 'lambdas' AS lambdas, r -> 'lambda' AS lambda
  FROM tuner.lasso_cv('{{1,0},{2,1},{3,0},{4,1},{5,0},{6,1}}', '{1,2,3,4,5,6}',
					  '{"lambdas": [0.01, 1, 0.1], "folds": 3}') r;

-- bad input
SELECT tuner.lasso(NULL, '{1,2}', 0.1);
SELECT tuner.lasso('{{1},{2}}', NULL, 0.1);
SELECT tuner.lasso('{{1},{2}}', '{1,2}', NULL);
SELECT tuner.lasso('{{1},{2}}', '{1,2}', 0.1, NULL);
SELECT tuner.lasso('{{1},{2}}', '{1,2}', -0.1);
SELECT tuner.lasso('{{1},{2}}', '{1,2}', 'NaN');
SELECT tuner.lasso('{{1},{2}}', '{1,2}', 'Infinity');
SELECT tuner.lasso('{{1},{NaN}}', '{1,2}', 0.1);
SELECT tuner.lasso('{{1},{2}}', '{1,Infinity}', 0.1);
SELECT tuner.lasso('{{1},{NULL}}', '{1,2}', 0.1);
SELECT tuner.lasso('{}', '{1,2}', 0.1);
SELECT tuner.lasso('{{1},{2}}', '{}', 0.1);
SELECT tuner.lasso('{1,2}', '{1,2}', 0.1);
SELECT tuner.lasso('{{{1}},{{2}}}', '{1,2}', 0.1);
SELECT tuner.lasso('{{1,2},{3}}', '{1,2}', 0.1);
SELECT tuner.lasso('{{1},{2},{3}}', '{1,2}', 0.1);
SELECT tuner.lasso('{{1},{2}}', '{{1,2}}', 0.1);
SELECT tuner.lasso('{{1},{2}}', '{1,2}', 0.1, '[1]');
SELECT tuner.lasso('{{1},{2}}', '{1,2}', 0.1, '{"alpha": 1}');
SELECT tuner.lasso('{{1},{2}}', '{1,2}', 0.1, '{"folds": 3}');
SELECT tuner.lasso('{{1},{2}}', '{1,2}', 0.1, '{"standardize": 1}');
SELECT tuner.lasso('{{1},{2}}', '{1,2}', 0.1, '{"tol": "small"}');
SELECT tuner.lasso('{{1},{2}}', '{1,2}', 0.1, '{"tol": -1}');
SELECT tuner.lasso('{{1},{2}}', '{1,2}', 0.1, '{"max_iter": 0}');
SELECT tuner.lasso('{{1},{2}}', '{1,2}', 0.1, '{"max_iter": 2.5}');
SELECT tuner.lasso('{{1},{2}}', '{1,2}', 0.1, '{"solver": "glmnet"}');
SELECT tuner.lasso('{{1},{2}}', '{1,2}', 0.1, '{"solver": 1}');
SELECT tuner.lasso_cv('{{1},{2},{3}}', '{1,2,3}', '{"folds": 2, "solver": "lars"}');
SELECT tuner.lasso_cv(NULL, '{1,2}');
SELECT tuner.lasso_cv('{{1},{2},{3}}', '{1,2,3}');
SELECT tuner.lasso_cv('{{1},{2},{3}}', '{1,2,3}', '{"folds": 1}');
SELECT tuner.lasso_cv('{{1},{2},{3}}', '{1,2,3}', '{"folds": "2"}');
SELECT tuner.lasso_cv('{{1},{2},{3}}', '{1,2,3}', '{"folds": 2, "eps": 0}');
SELECT tuner.lasso_cv('{{1},{2},{3}}', '{1,2,3}', '{"folds": 2, "eps": 2}');
SELECT tuner.lasso_cv('{{1},{2},{3}}', '{1,2,3}', '{"folds": 2, "n_lambdas": 0}');
SELECT tuner.lasso_cv('{{1},{2},{3}}', '{1,2,3}', '{"folds": 2, "lambdas": []}');
SELECT tuner.lasso_cv('{{1},{2},{3}}', '{1,2,3}', '{"folds": 2, "lambdas": 0.1}');
SELECT tuner.lasso_cv('{{1},{2},{3}}', '{1,2,3}', '{"folds": 2, "lambdas": [0.1, -1]}');
SELECT tuner.lasso_cv('{{1},{2},{3}}', '{1,2,3}', '{"folds": 2, "lambdas": [0.1, "x"]}');
SELECT tuner.lasso_cv('{{1},{2},{3}}', '{1,2,3}', '{"folds": 2, "rule": "min"}');
SELECT tuner.lasso_cv('{{1},{NaN},{3}}', '{1,2,3}', '{"folds": 2}');
SELECT tuner.lasso_cv('{{1},{2},{3}}', '{1,2}', '{"folds": 2}');

-- lasso_rank: 6 parameters, the objective depends on x1 and x2 only
SELECT tuner.create_study('lasso_rank', 'throughput', 'maximize', '{"seed": 7}') > 0 AS created;
SELECT tuner.add_parameter('lasso_rank', 'x1', 'float', 0, 10);
SELECT tuner.add_parameter('lasso_rank', 'x2', 'int', 1, 4096, log_scale => true);
SELECT tuner.add_parameter('lasso_rank', 'x3', 'float', -5, 5);
SELECT tuner.add_parameter('lasso_rank', 'x4', 'categorical', choices => '{a,b,c}');
SELECT tuner.add_parameter('lasso_rank', 'x5', 'bool');
SELECT tuner.add_parameter('lasso_rank', 'x6', 'int', 0, 100);
SELECT tuner.set_algorithm('lasso_rank', 'random');

-- too few trials for the folds
SELECT * FROM tuner.lasso_rank('lasso_rank');
SELECT * FROM tuner.lasso_rank('no_such_study');
SELECT * FROM tuner.lasso_rank(NULL);
SELECT * FROM tuner.lasso_rank('lasso_rank', '{"standardize": false}');

DO $$
DECLARE
	s jsonb;
	p jsonb;
BEGIN
	FOR i IN 1..40 LOOP
		s := tuner.suggest_next('lasso_rank');
		p := s -> 'params';
		PERFORM tuner.report((s ->> 'trial')::bigint,
			jsonb_build_object('throughput',
				exp(0.15 * (p ->> 'x1')::float8) * (1 + (p ->> 'x2')::float8) ^ 0.4
				* (1 + 0.01 * sin(i))));
	END LOOP;
END;
$$;

SELECT parameter, rank FROM tuner.lasso_rank('lasso_rank') WHERE rank <= 2 ORDER BY rank;
SELECT count(*) AS rows, count(DISTINCT rank) AS ranks,
	   bool_and(importance >= 0) AS nonnegative,
	   bool_and(coefficient IS NULL) FILTER (WHERE parameter = 'x4') AS categorical_null
  FROM tuner.lasso_rank('lasso_rank');
SELECT parameter, rank FROM tuner.lasso_rank('lasso_rank', '{"rule": "1se", "folds": 4}') WHERE rank <= 2 ORDER BY rank;
SELECT * FROM tuner.lasso_rank('lasso_rank', '{"folds": 41}');

-- minimize: fewer threads mean higher latency, so more threads improve the
-- objective: a positive coefficient
SELECT tuner.create_study('lasso_rank_min', 'latency', 'minimize', '{"seed": 3}') > 0 AS created;
SELECT tuner.add_parameter('lasso_rank_min', 'threads', 'int', 1, 64);
SELECT tuner.add_parameter('lasso_rank_min', 'noise', 'float', 0, 1);
SELECT tuner.add_parameter('lasso_rank_min', 'mode', 'categorical', choices => '{fixed}');
SELECT tuner.set_algorithm('lasso_rank_min', 'random');
DO $$
DECLARE
	s jsonb;
BEGIN
	FOR i IN 1..12 LOOP
		s := tuner.suggest_next('lasso_rank_min');
		PERFORM tuner.report((s ->> 'trial')::bigint,
			jsonb_build_object('latency', 100.0 / (s -> 'params' ->> 'threads')::float8));
	END LOOP;
END;
$$;
-- mode has a single level: a constant column, importance 0
SELECT parameter, sign(coefficient) AS sign, importance > 0 AS important, rank
  FROM tuner.lasso_rank('lasso_rank_min') ORDER BY rank;

-- all-categorical study
SELECT tuner.create_study('lasso_rank_cat', 'score', 'maximize', '{"seed": 5}') > 0 AS created;
SELECT tuner.add_parameter('lasso_rank_cat', 'engine', 'categorical', choices => '{slow,fast,medium}');
SELECT tuner.add_parameter('lasso_rank_cat', 'color', 'categorical', choices => '{red,blue}');
SELECT tuner.add_parameter('lasso_rank_cat', 'flag', 'bool');
SELECT tuner.set_algorithm('lasso_rank_cat', 'random');
DO $$
DECLARE
	s jsonb;
BEGIN
	FOR i IN 1..12 LOOP	-- every configuration of the space
		s := tuner.suggest_next('lasso_rank_cat');
		PERFORM tuner.report((s ->> 'trial')::bigint,
			jsonb_build_object('score', CASE s -> 'params' ->> 'engine'
				WHEN 'fast' THEN 10 WHEN 'medium' THEN 5 ELSE 1 END + 0.01 * (i % 3)));
	END LOOP;
END;
$$;
SELECT parameter, coefficient IS NULL AS no_signed_coefficient, rank, entered_at
  FROM tuner.lasso_rank('lasso_rank_cat') WHERE rank = 1;

-- constant objective
SELECT tuner.create_study('lasso_rank_flat', 'v', 'maximize', '{"seed": 1}') > 0 AS created;
SELECT tuner.add_parameter('lasso_rank_flat', 'a', 'float', 0, 1);
SELECT tuner.set_algorithm('lasso_rank_flat', 'random');
DO $$
DECLARE
	s jsonb;
BEGIN
	FOR i IN 1..6 LOOP
		s := tuner.suggest_next('lasso_rank_flat');
		PERFORM tuner.report((s ->> 'trial')::bigint, '{"v": 3}');
	END LOOP;
END;
$$;
SELECT * FROM tuner.lasso_rank('lasso_rank_flat');

SELECT tuner.drop_study(s) FROM unnest(ARRAY['lasso_rank', 'lasso_rank_min', 'lasso_rank_cat', 'lasso_rank_flat']) s;
