/*
 * models.sql
 *	  The Gaussian-process and multi-task (ICM) models as SQL functions over
 *	  arrays and over a study's stored models.
 */

-------------------------------------------------------------------------------
-- C functions (internal: arrays in, arrays out; see src/pg)
-------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION tuner._gp_fit(x float8[], y float8[], restarts int,
							  max_evals int, seed bigint, use_priors bool,
							  min_noise float8, std_error float8[] DEFAULT NULL,
							  OUT lengthscales float8[], OUT outputscale float8,
							  OUT noise float8, OUT mean float8,
							  OUT log_likelihood float8)
RETURNS record
AS 'MODULE_PATHNAME', 'tuner_gp_fit_arrays'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION tuner._gp_predict(train_x float8[], train_y float8[],
								  lengthscales float8[], outputscale float8,
								  noise float8, mean float8, x float8[],
								  std_error float8[] DEFAULT NULL,
								  OUT mean float8[], OUT sd float8[])
RETURNS record
AS 'MODULE_PATHNAME', 'tuner_gp_predict_arrays'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION tuner._gp_log_likelihood(train_x float8[], train_y float8[],
										 lengthscales float8[],
										 outputscale float8, noise float8,
										 mean float8, std_error float8[] DEFAULT NULL)
RETURNS float8
AS 'MODULE_PATHNAME', 'tuner_gp_log_likelihood_arrays'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- A jsonb array of numbers as float8[] (what names it in errors).
CREATE OR REPLACE FUNCTION tuner._jsonb_vector(value jsonb, what text)
RETURNS float8[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	result float8[];
	bad bigint;
	bad_type text;
BEGIN
	IF pg_catalog.jsonb_typeof(value) IS DISTINCT FROM 'array' THEN
		RAISE EXCEPTION '% must be a JSON array of numbers', what
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(value));
	END IF;
	IF pg_catalog.jsonb_array_length(value) = 0 THEN
		RAISE EXCEPTION '% must not be empty', what
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	SELECT i, pg_catalog.jsonb_typeof(e) INTO bad, bad_type
	  FROM pg_catalog.jsonb_array_elements(value) WITH ORDINALITY AS a(e, i)
	 WHERE pg_catalog.jsonb_typeof(e) <> 'number'
	 ORDER BY i LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION '% must contain only numbers', what
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Element %s is a JSON %s.', bad, bad_type);
	END IF;
	SELECT pg_catalog.array_agg(e::float8 ORDER BY i) INTO result
	  FROM pg_catalog.jsonb_array_elements(value) WITH ORDINALITY AS a(e, i);
	RETURN result;
END;
$$;

-- A jsonb array of equally long arrays of numbers as a 2-D float8[]; with
-- allow_null, JSON nulls (values not observed) become NULL elements.
CREATE OR REPLACE FUNCTION tuner._jsonb_matrix(value jsonb, what text,
									allow_null bool DEFAULT false)
RETURNS float8[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	result float8[];
	bad bigint;
	bad_type text;
	first_len int;
	bad_len int;
	example text := CASE WHEN allow_null
		THEN 'Write one JSON array per point with one value per task, null where the task was not observed, for example [[1.0, null], [2.0, 3.0]].'
		ELSE 'Write one JSON array per point, for example [[0.1, 0.2], [0.3, 0.4]].' END;
BEGIN
	IF pg_catalog.jsonb_typeof(value) IS DISTINCT FROM 'array' THEN
		RAISE EXCEPTION '% must be a JSON array of rows', what
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(value)),
				  HINT = example;
	END IF;
	IF pg_catalog.jsonb_array_length(value) = 0 THEN
		RAISE EXCEPTION '% must not be empty', what
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	SELECT i, pg_catalog.jsonb_typeof(r) INTO bad, bad_type
	  FROM pg_catalog.jsonb_array_elements(value) WITH ORDINALITY AS a(r, i)
	 WHERE pg_catalog.jsonb_typeof(r) <> 'array'
	 ORDER BY i LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION '% must be a JSON array of rows (two-dimensional)', what
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Element %s is a JSON %s, not an array.', bad, bad_type),
				  HINT = example;
	END IF;
	first_len := pg_catalog.jsonb_array_length(value -> 0);
	IF first_len = 0 THEN
		RAISE EXCEPTION '% rows must not be empty', what
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	SELECT i, pg_catalog.jsonb_array_length(r) INTO bad, bad_len
	  FROM pg_catalog.jsonb_array_elements(value) WITH ORDINALITY AS a(r, i)
	 WHERE pg_catalog.jsonb_array_length(r) <> first_len
	 ORDER BY i LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION '% rows must all have the same length', what
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Row 1 has %s elements but row %s has %s.',
											 first_len, bad, bad_len);
	END IF;
	SELECT a.i, b.k, pg_catalog.jsonb_typeof(b.e) INTO bad, bad_len, bad_type
	  FROM pg_catalog.jsonb_array_elements(value) WITH ORDINALITY AS a(r, i),
		   pg_catalog.jsonb_array_elements(a.r) WITH ORDINALITY AS b(e, k)
	 WHERE pg_catalog.jsonb_typeof(b.e) <> 'number'
	   AND NOT (allow_null AND pg_catalog.jsonb_typeof(b.e) = 'null')
	 ORDER BY a.i, b.k LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION '% must contain only numbers%', what,
			  CASE WHEN allow_null THEN ' and nulls' ELSE '' END
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Row %s, column %s is a JSON %s.', bad, bad_len, bad_type);
	END IF;
	SELECT pg_catalog.array_agg(row_values ORDER BY i) INTO result
	  FROM (SELECT a.i,
				   pg_catalog.array_agg(CASE WHEN pg_catalog.jsonb_typeof(b.e) = 'null'
											 THEN NULL ELSE b.e::float8 END
										ORDER BY b.k) AS row_values
			  FROM pg_catalog.jsonb_array_elements(value) WITH ORDINALITY AS a(r, i),
				   pg_catalog.jsonb_array_elements(a.r) WITH ORDINALITY AS b(e, k)
			 GROUP BY a.i) rows;
	RETURN result;
END;
$$;

-- The checks every model jsonb passes first: not NULL, an object, and the
-- Matern-5/2 kernel if it names one; fitter names the function that
-- returns such models.
CREATE OR REPLACE FUNCTION tuner._check_model_object(model jsonb, fitter text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
BEGIN
	IF model IS NULL THEN
		RAISE EXCEPTION 'model must not be NULL'
			USING ERRCODE = 'null_value_not_allowed',
				  HINT = pg_catalog.format('%s returns a model; see README.md for its keys.', fitter);
	END IF;
	IF pg_catalog.jsonb_typeof(model) <> 'object' THEN
		RAISE EXCEPTION 'model must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(model)),
				  HINT = pg_catalog.format('%s returns a model; see README.md for its keys.', fitter);
	END IF;
	IF model ? 'kernel' AND model -> 'kernel' IS DISTINCT FROM '"matern52"'::jsonb THEN
		RAISE EXCEPTION 'unsupported kernel %', model -> 'kernel'
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'The only kernel is "matern52".';
	END IF;
END;
$$;

-- The arrays and hyperparameters of a model jsonb, with its errors.
CREATE OR REPLACE FUNCTION tuner._model_arrays(model jsonb,
									OUT x float8[], OUT y float8[],
									OUT lengthscales float8[],
									OUT outputscale float8, OUT noise float8,
									OUT mean float8)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	k text;
BEGIN
	PERFORM tuner._check_model_object(model, 'tuner.gp_fit()');
	FOREACH k IN ARRAY ARRAY['lengthscales', 'outputscale', 'noise', 'mean', 'x', 'y']
	LOOP
		IF NOT model ? k THEN
			RAISE EXCEPTION 'model is missing key "%"', k
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'A model has the keys "kernel", "lengthscales", "outputscale", "noise", "mean", "x" and "y".';
		END IF;
	END LOOP;
	FOREACH k IN ARRAY ARRAY['outputscale', 'noise', 'mean']
	LOOP
		IF pg_catalog.jsonb_typeof(model -> k) <> 'number' THEN
			RAISE EXCEPTION 'model key "%" must be a number', k
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(model -> k));
		END IF;
	END LOOP;
	outputscale := (model -> 'outputscale')::float8;
	noise := (model -> 'noise')::float8;
	mean := (model -> 'mean')::float8;
	lengthscales := tuner._jsonb_vector(model -> 'lengthscales', 'lengthscales');
	y := tuner._jsonb_vector(model -> 'y', 'y');
	x := tuner._jsonb_matrix(model -> 'x', 'x');
END;
$$;

-- A GP's per-point standard errors (gp_fit's option std_error, a model's
-- key of that name): a JSON array of numbers and nulls as float8[], NULL
-- when absent or JSON null.  Lengths and values are checked by the C
-- functions.
CREATE OR REPLACE FUNCTION tuner._jsonb_std_error(value jsonb, what text)
RETURNS float8[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	e jsonb;
	r float8[] := '{}';
BEGIN
	IF value IS NULL OR pg_catalog.jsonb_typeof(value) = 'null' THEN
		RETURN NULL;
	END IF;
	IF pg_catalog.jsonb_typeof(value) <> 'array' THEN
		RAISE EXCEPTION '% must be a JSON array of standard errors', what
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(value)),
				  HINT = 'One number (or null: not known) per row of x, for example [0.1, null, 0.3].';
	END IF;
	FOR e IN SELECT a.v FROM pg_catalog.jsonb_array_elements(value) WITH ORDINALITY AS a(v, i) ORDER BY a.i
	LOOP
		IF pg_catalog.jsonb_typeof(e) NOT IN ('number', 'null') THEN
			RAISE EXCEPTION '% must hold numbers and nulls', what
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got a JSON %s: %s.', pg_catalog.jsonb_typeof(e),
												 pg_catalog.left(e::text, 100));
		END IF;
		BEGIN
			r := r || (e #>> '{}')::float8;
		EXCEPTION WHEN numeric_value_out_of_range THEN
			RAISE EXCEPTION '% is out of range for double precision', what
				USING ERRCODE = 'numeric_value_out_of_range';
		END;
	END LOOP;
	RETURN r;
END;
$$;

-- What the study's latest multi-task model learned between its metrics:
-- one row per ordered pair of tasks, the objective first.  For
-- clustered-icm, the latest step's cluster models together (each pairs the
-- objective with its cluster's metric).
CREATE OR REPLACE FUNCTION tuner.task_correlation(study text)
RETURNS TABLE (metric text, other_metric text, correlation float8,
			   covariance float8, model bigint, n int)
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	m tuner.model;
BEGIN
	s := tuner._find_study($1);
	SELECT * INTO m FROM tuner.model
	 WHERE study_id = s.id AND kind IN ('icm', 'cluster')
	   AND task_covariance IS NOT NULL
	 ORDER BY id DESC LIMIT 1;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'study "%" has no multi-task model yet', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Declare auxiliary metrics with tuner.add_metric(), choose tuner.set_algorithm(study, ''icm''), and let tuner.suggest_next() fit one after the initial design.';
	END IF;
	RETURN QUERY
	SELECT u.a, u.b, u.corr, u.cov, u.id, u.n
	  FROM (SELECT DISTINCT ON (q.a, q.b) q.a, q.b, q.corr, q.cov, q.id, q.n
			  FROM (SELECT mm.tasks[i] AS a, mm.tasks[j] AS b,
						   mm.task_correlation[i][j] AS corr,
						   mm.task_covariance[i][j] AS cov, mm.id, mm.n
					  FROM tuner.model mm,
						   pg_catalog.generate_subscripts(mm.tasks, 1) AS i,
						   pg_catalog.generate_subscripts(mm.tasks, 1) AS j
					 WHERE mm.id = m.id
						OR (m.kind = 'cluster' AND mm.study_id = s.id
							AND mm.kind = 'cluster' AND mm.trial_id = m.trial_id
							AND mm.task_covariance IS NOT NULL)) q
			 ORDER BY q.a, q.b, q.id) u
	 ORDER BY u.a <> s.objective, u.a, u.b <> s.objective, u.b;
END;
$$;

-------------------------------------------------------------------------------
-- Low-level Gaussian process
-------------------------------------------------------------------------------

-- Fit a Matern-5/2 GP to rows of x (n x d) and y (n); returns the model
-- jsonb in the caller's coordinates.  The option std_error (one standard
-- error per point, in y's units, null = not known) gives each point
-- extra noise std_error^2; the model keeps it, so gp_predict and
-- gp_log_likelihood use it too.
CREATE OR REPLACE FUNCTION tuner.gp_fit(x float8[], y float8[], options jsonb DEFAULT '{}')
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	k text;
	r record;
BEGIN
	PERFORM tuner._not_null(x, 'x');
	PERFORM tuner._not_null(y, 'y');
	PERFORM tuner._not_null(options, 'options');
	IF pg_catalog.jsonb_typeof(options) <> 'object' THEN
		RAISE EXCEPTION 'options must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(options));
	END IF;
	FOR k IN SELECT pg_catalog.jsonb_object_keys(options)
	LOOP
		IF k NOT IN ('restarts', 'max_evals', 'seed', 'use_priors', 'min_noise', 'std_error') THEN
			RAISE EXCEPTION 'unknown gp_fit option "%"', k
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Known options: restarts, max_evals, seed, use_priors, min_noise, std_error.';
		END IF;
	END LOOP;
	IF options ? 'use_priors' AND pg_catalog.jsonb_typeof(options -> 'use_priors') <> 'boolean' THEN
		RAISE EXCEPTION 'gp_fit option use_priors must be a boolean'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF options ? 'min_noise' AND pg_catalog.jsonb_typeof(options -> 'min_noise') <> 'number' THEN
		RAISE EXCEPTION 'gp_fit option min_noise must be a number'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;

	r := tuner._gp_fit(x, y,
		CASE WHEN options ? 'restarts' THEN tuner._json_int(options -> 'restarts', 'gp_fit option restarts', 1, 1000)::int END,
		CASE WHEN options ? 'max_evals' THEN tuner._json_int(options -> 'max_evals', 'gp_fit option max_evals', 1, 1000000)::int END,
		CASE WHEN options ? 'seed' THEN tuner._json_int(options -> 'seed', 'gp_fit option seed',
														-9223372036854775808, 9223372036854775807) END,
		(options ->> 'use_priors')::bool,
		(options -> 'min_noise')::float8,
		tuner._jsonb_std_error(options -> 'std_error', 'gp_fit option std_error'));

	RETURN pg_catalog.jsonb_build_object(
		'kernel', 'matern52',
		'lengthscales', pg_catalog.to_jsonb(r.lengthscales),
		'outputscale', r.outputscale,
		'noise', r.noise,
		'mean', r.mean,
		'x', pg_catalog.to_jsonb(x),
		'y', pg_catalog.to_jsonb(y),
		'log_likelihood', r.log_likelihood)
		|| CASE WHEN pg_catalog.jsonb_typeof(options -> 'std_error') = 'array'
				THEN pg_catalog.jsonb_build_object('std_error', options -> 'std_error')
				ELSE '{}' END;
END;
$$;

-- Posterior mean and standard deviation of the latent function at each
-- row of x (m x d), in order.
CREATE OR REPLACE FUNCTION tuner.gp_predict(model jsonb, x float8[])
RETURNS TABLE (mean float8, sd float8)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
#variable_conflict use_column
DECLARE
	m record;
	p record;
BEGIN
	m := tuner._model_arrays($1);
	PERFORM tuner._not_null($2, 'x');
	p := tuner._gp_predict(m.x, m.y, m.lengthscales, m.outputscale, m.noise,
						   m.mean, $2, tuner._jsonb_std_error($1 -> 'std_error', 'model key "std_error"'));
	RETURN QUERY
	SELECT u.mean, u.sd
	  FROM unnest(p.mean, p.sd) WITH ORDINALITY AS u(mean, sd, i)
	 ORDER BY u.i;
END;
$$;

-- Log marginal likelihood of the model's y under its hyperparameters.
CREATE OR REPLACE FUNCTION tuner.gp_log_likelihood(model jsonb)
RETURNS float8
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	m record;
BEGIN
	m := tuner._model_arrays($1);
	RETURN tuner._gp_log_likelihood(m.x, m.y, m.lengthscales, m.outputscale,
									m.noise, m.mean,
									tuner._jsonb_std_error($1 -> 'std_error', 'model key "std_error"'));
END;
$$;

-------------------------------------------------------------------------------
-- Low-level multi-task Gaussian process (ICM)
--
-- k((x, i), (x', j)) = k52(x, x') B[i, j] with B = W W^T + diag(v), a noise
-- variance and a constant mean per task (src/core/icm.h).  y is n x T with
-- NULL where a task was not observed.  The model jsonb is in the caller's
-- units, like gp_fit's (README.md, "Low-level multi-task GP").
-------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION tuner._icm_fit(x float8[], y float8[], rank int, restarts int,
							   max_evals int, seed bigint, use_priors bool,
							   min_noise float8, force_full bool,
							   OUT lengthscales float8[], OUT w float8[],
							   OUT v float8[], OUT noise float8[],
							   OUT mean float8[], OUT task_covariance float8[],
							   OUT task_correlation float8[],
							   OUT log_likelihood float8, OUT kronecker bool)
RETURNS record
AS 'MODULE_PATHNAME', 'tuner_icm_fit_arrays'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION tuner._icm_predict(train_x float8[], train_y float8[],
								   lengthscales float8[], w float8[],
								   v float8[], noise float8[], mean float8[],
								   force_full bool, x float8[], task int,
								   OUT mean float8[], OUT sd float8[],
								   OUT kronecker bool)
RETURNS record
AS 'MODULE_PATHNAME', 'tuner_icm_predict_arrays'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- The arrays and hyperparameters of an ICM model jsonb, with its errors.
-- Shapes and values are checked by tuner._icm_predict.
CREATE OR REPLACE FUNCTION tuner._icm_model_arrays(model jsonb,
										OUT x float8[], OUT y float8[],
										OUT lengthscales float8[],
										OUT w float8[], OUT v float8[],
										OUT noise float8[], OUT mean float8[],
										OUT force_full bool)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	k text;
BEGIN
	PERFORM tuner._check_model_object(model, 'tuner.icm_fit()');
	IF model ? 'model' AND model -> 'model' IS DISTINCT FROM '"icm"'::jsonb THEN
		RAISE EXCEPTION 'model % is not a multi-task (ICM) model', model -> 'model'
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'tuner.icm_predict() takes the model of tuner.icm_fit(), whose "model" key is "icm".';
	END IF;
	FOREACH k IN ARRAY ARRAY['x', 'y', 'lengthscales', 'W', 'v', 'noise', 'mean']
	LOOP
		IF NOT model ? k THEN
			RAISE EXCEPTION 'model is missing key "%"', k
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'An ICM model has the keys "x", "y", "lengthscales", "W", "v", "noise" and "mean"; see README.md.';
		END IF;
	END LOOP;
	IF model ? 'force_full' AND pg_catalog.jsonb_typeof(model -> 'force_full') <> 'boolean' THEN
		RAISE EXCEPTION 'model key "force_full" must be a boolean'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(model -> 'force_full'));
	END IF;
	force_full := coalesce((model ->> 'force_full')::bool, false);
	x := tuner._jsonb_matrix(model -> 'x', 'x');
	y := tuner._jsonb_matrix(model -> 'y', 'y', allow_null => true);
	lengthscales := tuner._jsonb_vector(model -> 'lengthscales', 'lengthscales');
	IF pg_catalog.jsonb_typeof(model -> 'W') = 'array'
	   AND pg_catalog.jsonb_array_length(model -> 'W') > 0
	   AND pg_catalog.jsonb_typeof(model -> 'W' -> 0) <> 'array' THEN
		RAISE EXCEPTION 'W must be a JSON array of rows (two-dimensional)'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Element 1 is a JSON %s, not an array.',
											 pg_catalog.jsonb_typeof(model -> 'W' -> 0)),
				  HINT = 'W has one row per task and rank columns, for example [[1.0], [0.8]] for two tasks and rank 1.';
	END IF;
	w := tuner._jsonb_matrix(model -> 'W', 'W');
	v := tuner._jsonb_vector(model -> 'v', 'v');
	noise := tuner._jsonb_vector(model -> 'noise', 'noise');
	mean := tuner._jsonb_vector(model -> 'mean', 'mean');
	IF model ? 'rank'
	   AND model -> 'rank' IS DISTINCT FROM pg_catalog.to_jsonb(pg_catalog.array_length(w, 2)) THEN
		RAISE EXCEPTION 'model key "rank" does not match W'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('rank is %s but W has %s columns.',
											 model -> 'rank', pg_catalog.array_length(w, 2)),
				  HINT = 'rank is the number of columns of W; change both or drop "rank".';
	END IF;
END;
$$;

-- Fit an ICM multi-task GP to rows of x (n x d) and y (n x T, NULL where a
-- task was not observed); returns the model jsonb in the caller's units.
CREATE OR REPLACE FUNCTION tuner.icm_fit(x float8[], y float8[], options jsonb DEFAULT '{}')
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	k text;
	r record;
BEGIN
	IF x IS NULL THEN
		RAISE EXCEPTION 'x must not be NULL'
			USING ERRCODE = 'null_value_not_allowed',
				  HINT = 'Pass the inputs as a 2-D float8[] with one row per point.';
	END IF;
	IF y IS NULL THEN
		RAISE EXCEPTION 'y must not be NULL'
			USING ERRCODE = 'null_value_not_allowed',
				  HINT = 'Pass the observations as a 2-D float8[] with one row per point and one column per task.';
	END IF;
	IF options IS NULL THEN
		RAISE EXCEPTION 'options must not be NULL'
			USING ERRCODE = 'null_value_not_allowed',
				  HINT = 'Pass ''{}'' for the defaults.';
	END IF;
	IF pg_catalog.jsonb_typeof(options) <> 'object' THEN
		RAISE EXCEPTION 'options must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(options)),
				  HINT = 'Pass ''{}'' for the defaults.';
	END IF;
	FOR k IN SELECT pg_catalog.jsonb_object_keys(options)
	LOOP
		IF k NOT IN ('rank', 'restarts', 'max_evals', 'seed', 'use_priors',
					 'min_noise', 'force_full') THEN
			RAISE EXCEPTION 'unknown icm_fit option "%"', k
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Known options: rank, restarts, max_evals, seed, use_priors, min_noise, force_full.';
		END IF;
	END LOOP;
	FOREACH k IN ARRAY ARRAY['use_priors', 'force_full']
	LOOP
		IF options ? k AND pg_catalog.jsonb_typeof(options -> k) <> 'boolean' THEN
			RAISE EXCEPTION 'icm_fit option % must be a boolean', k
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', options -> k),
					  HINT = 'Write true or false without quotes.';
		END IF;
	END LOOP;
	IF options ? 'min_noise' AND pg_catalog.jsonb_typeof(options -> 'min_noise') <> 'number' THEN
		RAISE EXCEPTION 'icm_fit option min_noise must be a number'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', options -> 'min_noise'),
				  HINT = 'min_noise is a variance in standardised units, for example 1e-6.';
	END IF;

	r := tuner._icm_fit(x, y,
		CASE WHEN options ? 'rank' THEN tuner._json_int(options -> 'rank', 'icm_fit option rank', 1, 1000)::int END,
		CASE WHEN options ? 'restarts' THEN tuner._json_int(options -> 'restarts', 'icm_fit option restarts', 1, 1000)::int END,
		CASE WHEN options ? 'max_evals' THEN tuner._json_int(options -> 'max_evals', 'icm_fit option max_evals', 1, 1000000)::int END,
		CASE WHEN options ? 'seed' THEN tuner._json_int(options -> 'seed', 'icm_fit option seed',
														-9223372036854775808, 9223372036854775807) END,
		(options ->> 'use_priors')::bool,
		(options -> 'min_noise')::float8,
		(options ->> 'force_full')::bool);

	RETURN pg_catalog.jsonb_build_object(
		'kernel', 'matern52',
		'model', 'icm',
		'x', pg_catalog.to_jsonb(x),
		'y', pg_catalog.to_jsonb(y),
		'rank', pg_catalog.array_length(r.w, 2),
		'lengthscales', pg_catalog.to_jsonb(r.lengthscales),
		'W', pg_catalog.to_jsonb(r.w),
		'v', pg_catalog.to_jsonb(r.v),
		'noise', pg_catalog.to_jsonb(r.noise),
		'mean', pg_catalog.to_jsonb(r.mean),
		'task_covariance', pg_catalog.to_jsonb(r.task_covariance),
		'task_correlation', pg_catalog.to_jsonb(r.task_correlation),
		'log_likelihood', r.log_likelihood,
		'kronecker', r.kronecker,
		'force_full', coalesce((options ->> 'force_full')::bool, false));
END;
$$;

-- Posterior mean and standard deviation of the latent function of task
-- (1-based: a column of the model's y) at each row of x (m x d), in order.
CREATE OR REPLACE FUNCTION tuner.icm_predict(model jsonb, x float8[], task int)
RETURNS TABLE (mean float8, sd float8)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
#variable_conflict use_column
DECLARE
	m record;
	p record;
BEGIN
	m := tuner._icm_model_arrays($1);
	IF $2 IS NULL THEN
		RAISE EXCEPTION 'x must not be NULL'
			USING ERRCODE = 'null_value_not_allowed',
				  HINT = 'Pass the query points as a 2-D float8[] with one row per point.';
	END IF;
	IF $3 IS NULL THEN
		RAISE EXCEPTION 'task must not be NULL'
			USING ERRCODE = 'null_value_not_allowed',
				  HINT = 'Tasks are numbered from 1 to the number of columns of the model''s y.';
	END IF;
	p := tuner._icm_predict(m.x, m.y, m.lengthscales, m.w, m.v, m.noise,
							m.mean, m.force_full, $2, $3);
	RETURN QUERY
	SELECT u.mean, u.sd
	  FROM unnest(p.mean, p.sd) WITH ORDINALITY AS u(mean, sd, i)
	 ORDER BY u.i;
END;
$$;
