/*
 * lasso.sql
 *	  Parameter ranking: Lasso and its cross-validation, and selecting the top
 *	  parameters of a study.
 */

-- Tune only the K parameters ranked highest over the complete trials
-- (tuner.lasso_rank: the Lasso, then the GP's evidence); the others are
-- fixed at their defaults.  signal says which ranked each parameter.
CREATE OR REPLACE FUNCTION tuner.select_top(study text, k int, options jsonb DEFAULT '{}')
RETURNS TABLE (parameter text, rank int, importance float8, enabled bool,
			   signal text, gp_evidence float8)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	d int;
	v_ranked jsonb;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null($2, 'k');
	SELECT pg_catalog.count(*) INTO d FROM tuner.parameter p WHERE p.study_id = s.id;
	IF $2 < 1 OR $2 > d THEN
		RAISE EXCEPTION 'k must be between 1 and the number of parameters of study "%" (%)', s.name, d
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', $2),
				  HINT = 'To tune every parameter again, use tuner.enable_parameters() with all their names.';
	END IF;
	SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('parameter', r.parameter, 'rank', r.rank,
															  'importance', r.importance,
															  'entered_at', r.entered_at,
															  'signal', r.signal,
															  'gp_evidence', r.gp_evidence) ORDER BY r.rank)
	  INTO v_ranked
	  FROM tuner.lasso_rank(s.name, $3) r;
	PERFORM tuner.enable_parameters(s.name, ARRAY(
		SELECT e ->> 'parameter' FROM pg_catalog.jsonb_array_elements(v_ranked) e
		 WHERE (e ->> 'rank')::int <= $2));
	INSERT INTO tuner.study_event (study_id, trials, event, detail)
	VALUES (s.id, (SELECT pg_catalog.count(*) FROM tuner.trial t
					WHERE t.study_id = s.id AND t.state = 'complete'),
			'select_top', pg_catalog.jsonb_build_object('k', $2, 'ranking', v_ranked));
	RETURN QUERY
	SELECT e ->> 'parameter', (e ->> 'rank')::int, (e ->> 'importance')::float8,
		   (e ->> 'rank')::int <= $2, e ->> 'signal', (e ->> 'gp_evidence')::float8
	  FROM pg_catalog.jsonb_array_elements(v_ranked) e
	 ORDER BY (e ->> 'rank')::int;
END;
$$;

-------------------------------------------------------------------------------
-- Lasso: low-level fits and parameter ranking (src/core/lasso.h)
--
-- scikit-learn's conventions: minimise (1/2n) ||y - X b - b0||^2 +
-- lambda ||b||_1 with a fitted intercept, no feature scaling unless
-- {"standardize": true} (columns divided by their population sd, over all
-- rows, before any fold is cut), warm starts along the grid (lasso_cv),
-- stopping by the duality gap (tol relative to ||y - mean||^2, at most
-- max_iter sweeps per lambda), contiguous unshuffled folds.  Two solvers
-- (option "solver"): "sklearn" (the default: scikit-learn's coordinate
-- descent step for step, tol 1e-4; tuner.lasso agrees with
-- Lasso(alpha=lambda) and tuner.lasso_cv with LassoCV(cv=folds)) and
-- "fast" (a working-set homotopy with strong-rule screening, tol 1e-12:
-- the exact optimum, which scikit-learn reaches only with a tight tol; its
-- lambda is that of an exact LassoCV, which on a flat CV curve can differ
-- from LassoCV's at tol 1e-4) (tests/reference/lasso_sklearn.py).
-------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION tuner._lasso(x float8[], y float8[], lambda float8,
							 standardize bool, tol float8, max_iter int,
							 solver text,
							 OUT intercept float8, OUT coefficients float8[],
							 OUT n_iter int, OUT converged bool)
RETURNS record
AS 'MODULE_PATHNAME', 'tuner_lasso_arrays'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION tuner._lasso_cv(x float8[], y float8[], standardize bool,
								tol float8, max_iter int, n_lambdas int,
								eps float8, folds int, grid float8[],
								solver text,
								OUT lambda float8, OUT lambda_1se float8,
								OUT intercept float8,
								OUT coefficients float8[],
								OUT lambdas float8[], OUT cv_mean float8[],
								OUT cv_std float8[], OUT entered_at int[],
								OUT standardized_coefficients float8[],
								OUT scale float8[], OUT best int,
								OUT best_1se int, OUT path_nonzero int[],
								OUT n_iter int, OUT converged bool)
RETURNS record
AS 'MODULE_PATHNAME', 'tuner_lasso_cv_arrays'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- The options of the Lasso functions, checked: known keys (allowed), types
-- and ranges; absent options are NULL (the defaults of src/core).  fn names
-- the function in errors.
CREATE OR REPLACE FUNCTION tuner._lasso_options(options jsonb, fn text, allowed text[],
									 OUT standardize bool, OUT tol float8,
									 OUT max_iter int, OUT n_lambdas int,
									 OUT eps float8, OUT folds int,
									 OUT lambdas float8[], OUT rule text,
									 OUT solver text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	k text;
	v jsonb;
BEGIN
	PERFORM tuner._not_null(options, 'options');
	IF pg_catalog.jsonb_typeof(options) <> 'object' THEN
		RAISE EXCEPTION 'options must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(options)),
				  HINT = pg_catalog.format('Known options of %s: %s.', fn,
										   pg_catalog.array_to_string(allowed, ', '));
	END IF;
	FOR k IN SELECT pg_catalog.jsonb_object_keys(options)
	LOOP
		IF NOT k = ANY (allowed) THEN
			RAISE EXCEPTION 'unknown % option "%"', fn, k
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = pg_catalog.format('Known options: %s.',
											   pg_catalog.array_to_string(allowed, ', '));
		END IF;
	END LOOP;
	IF options ? 'standardize' THEN
		IF pg_catalog.jsonb_typeof(options -> 'standardize') <> 'boolean' THEN
			RAISE EXCEPTION '% option standardize must be a boolean', fn
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', options -> 'standardize');
		END IF;
		standardize := (options ->> 'standardize')::bool;
	END IF;
	FOREACH k IN ARRAY ARRAY['tol', 'eps']
	LOOP
		IF options ? k THEN
			v := options -> k;
			IF pg_catalog.jsonb_typeof(v) <> 'number' THEN
				RAISE EXCEPTION '% option % must be a number', fn, k
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('Got %s.', v);
			END IF;
			IF (k = 'tol' AND v::numeric < 0) OR (k = 'eps' AND (v::numeric <= 0 OR v::numeric > 1)) THEN
				RAISE EXCEPTION '% option % is out of range', fn, k
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('Got %s.', v),
						  HINT = CASE k WHEN 'tol' THEN 'tol must not be negative (default 1e-4).'
								 ELSE 'eps is lambda_min / lambda_max of the default grid: greater than 0, at most 1 (default 1e-3).' END;
			END IF;
		END IF;
	END LOOP;
	tol := (options -> 'tol')::float8;
	eps := (options -> 'eps')::float8;
	IF options ? 'max_iter' THEN
		max_iter := tuner._json_int(options -> 'max_iter', fn || ' option max_iter', 1, 100000000);
	END IF;
	IF options ? 'n_lambdas' THEN
		n_lambdas := tuner._json_int(options -> 'n_lambdas', fn || ' option n_lambdas', 1, 100000);
	END IF;
	IF options ? 'folds' THEN
		folds := tuner._json_int(options -> 'folds', fn || ' option folds', 2, 1000000);
	END IF;
	IF options ? 'lambdas' THEN
		lambdas := tuner._jsonb_vector(options -> 'lambdas', fn || ' option lambdas');
		IF EXISTS (SELECT 1 FROM pg_catalog.unnest(lambdas) l WHERE l < 0) THEN
			RAISE EXCEPTION '% option lambdas must not contain negative values', fn
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', options -> 'lambdas');
		END IF;
	END IF;
	IF options ? 'rule' THEN
		IF options -> 'rule' NOT IN ('"min"', '"1se"') THEN
			RAISE EXCEPTION '% option rule must be "min" or "1se"', fn
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', options -> 'rule'),
					  HINT = '"min" ranks at the lambda of least CV error, "1se" at the largest lambda within one standard error of it.';
		END IF;
		rule := options ->> 'rule';
	END IF;
	IF options ? 'solver' THEN
		IF options -> 'solver' NOT IN ('"fast"', '"sklearn"') THEN
			RAISE EXCEPTION '% option solver must be "fast" or "sklearn"', fn
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', options -> 'solver'),
					  HINT = '"fast" converges to the exact optimum, "sklearn" reproduces scikit-learn''s coordinate descent step for step.';
		END IF;
		solver := options ->> 'solver';
	END IF;
END;
$$;

-- One Lasso fit of y (n) on the rows of x (n x p) at lambda.  Returns
-- {"intercept", "coefficients" (in the units of x, also with
-- standardize), "n_iter" (sweeps, and homotopy steps with the fast
-- solver), "converged"}.  Options: solver, standardize, tol, max_iter.
CREATE OR REPLACE FUNCTION tuner.lasso(x float8[], y float8[], lambda float8,
							options jsonb DEFAULT '{}')
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	o record;
	r record;
BEGIN
	PERFORM tuner._not_null(x, 'x');
	PERFORM tuner._not_null(y, 'y');
	PERFORM tuner._not_null(lambda, 'lambda');
	o := tuner._lasso_options(options, 'lasso', ARRAY['solver', 'standardize', 'tol', 'max_iter']);
	r := tuner._lasso(x, y, lambda, o.standardize, o.tol, o.max_iter, o.solver);
	RETURN pg_catalog.jsonb_build_object(
		'intercept', r.intercept,
		'coefficients', pg_catalog.to_jsonb(r.coefficients),
		'n_iter', r.n_iter,
		'converged', r.converged);
END;
$$;

-- k-fold cross-validated Lasso over a grid of lambdas (descending).
-- Returns {"lambda" (least mean CV error; the first, i.e. largest, on a
-- tie), "lambda_1se" (the largest lambda whose mean is within cv_std/sqrt(folds)
-- of that minimum), "intercept" and "coefficients" (the fit on every row at
-- lambda: refit from zero with "sklearn", the full-data path's fit with
-- "fast"), "lambdas", "cv_mean" and "cv_std" (mean and sd,
-- ddof 1, of the folds' test MSE per lambda), "entered_at" (per column,
-- the 1-based position in lambdas where its coefficient first becomes
-- non-zero on the warm-started path over all rows, null if never),
-- "standardized_coefficients" (coefficients times the column's population
-- sd), "path_nonzero", "n_iter", "converged"}.  Options: solver ("sklearn"),
-- standardize, tol, max_iter, folds (5), n_lambdas (100), eps (1e-3),
-- lambdas (an explicit grid, which replaces n_lambdas and eps).
CREATE OR REPLACE FUNCTION tuner.lasso_cv(x float8[], y float8[], options jsonb DEFAULT '{}')
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	o record;
	r record;
BEGIN
	PERFORM tuner._not_null(x, 'x');
	PERFORM tuner._not_null(y, 'y');
	o := tuner._lasso_options(options, 'lasso_cv',
							  ARRAY['solver', 'standardize', 'tol', 'max_iter',
									'folds', 'n_lambdas', 'eps', 'lambdas']);
	r := tuner._lasso_cv(x, y, o.standardize, o.tol, o.max_iter, o.n_lambdas,
						 o.eps, o.folds, o.lambdas, o.solver);
	RETURN pg_catalog.jsonb_build_object(
		'lambda', r.lambda,
		'lambda_1se', r.lambda_1se,
		'intercept', r.intercept,
		'coefficients', pg_catalog.to_jsonb(r.coefficients),
		'lambdas', pg_catalog.to_jsonb(r.lambdas),
		'cv_mean', pg_catalog.to_jsonb(r.cv_mean),
		'cv_std', pg_catalog.to_jsonb(r.cv_std),
		'entered_at', (SELECT pg_catalog.jsonb_agg(NULLIF(e, 0) ORDER BY i)
						 FROM pg_catalog.unnest(r.entered_at) WITH ORDINALITY AS u(e, i)),
		'standardized_coefficients', pg_catalog.to_jsonb(r.standardized_coefficients),
		'path_nonzero', pg_catalog.to_jsonb(r.path_nonzero),
		'n_iter', r.n_iter,
		'converged', r.converged);
END;
$$;

-- lasso_rank's fit: the columns of the trials' features (xrows, n rows
-- of cols columns) that vary (kept, NULL when none does) and, on those,
-- the cross-validated Lasso of ys with lasso_rank's options o and folds:
-- each kept column's standardized coefficient (at lambda_1se with the
-- option rule "1se") and where on the lambda path it entered.
CREATE OR REPLACE FUNCTION tuner._lasso_rank_fit(xrows float8[], ys float8[], n int, cols int,
												 o record, folds int,
												 OUT kept int[], OUT std_coef float8[], OUT entered int[])
RETURNS record
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
	xmat float8[];
	r record;
	fit jsonb;
BEGIN
	SELECT pg_catalog.array_agg(c ORDER BY c) INTO kept
	  FROM pg_catalog.generate_series(1, cols) c
	 WHERE (SELECT pg_catalog.count(DISTINCT xrows[i][c])
			  FROM pg_catalog.generate_series(1, n) i) > 1;

	IF kept IS NOT NULL THEN
		xmat := ARRAY(SELECT ARRAY(SELECT xrows[i][c] FROM pg_catalog.unnest(kept) WITH ORDINALITY AS k(c, j) ORDER BY j)
						FROM pg_catalog.generate_series(1, n) i ORDER BY i);
		r := tuner._lasso_cv(xmat, ys, true, o.tol, o.max_iter, o.n_lambdas,
							 o.eps, folds, o.lambdas, o.solver);
		std_coef := r.standardized_coefficients;
		entered := r.entered_at;
		IF o.rule = '1se' AND r.lambda_1se <> r.lambda THEN
			fit := pg_catalog.to_jsonb(tuner._lasso(xmat, ys, r.lambda_1se, true, o.tol, o.max_iter, o.solver));
			std_coef := ARRAY(SELECT (fit -> 'coefficients' ->> (u.i - 1)::int)::float8 * u.sd
								FROM pg_catalog.unnest(r.scale) WITH ORDINALITY AS u(sd, i) ORDER BY u.i);
		END IF;
	END IF;
END;
$$;

-- lasso_rank's Lasso per parameter of study s, in position order: the
-- columns' coefficients (std_coef and entered of tuner._lasso_rank_fit,
-- for the columns kept; colp: each column's parameter position) summed
-- per parameter: names, importance (the sum of the absolute values),
-- coefficients (NULL for a categorical of several levels), entered_at (0:
-- never) and categories (the number of choices of a categorical of three
-- or more, else 0).
CREATE OR REPLACE FUNCTION tuner._lasso_rank_by_parameter(s tuner.study, colp int[], kept int[],
														  std_coef float8[], entered int[],
														  OUT names text[], OUT importance float8[],
														  OUT coefficients float8[], OUT entered_at int[],
														  OUT categories int[])
RETURNS record
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
BEGIN
	WITH col AS (
		SELECT colp[k.c] AS position, std_coef[k.j] AS b, NULLIF(entered[k.j], 0) AS e
		  FROM pg_catalog.unnest(kept) WITH ORDINALITY AS k(c, j)
	), agg AS (
		SELECT pr.name, pr.position, pr.kind, pr.choices,
			   pg_catalog.sum(pg_catalog.abs(col.b)) AS imp,
			   pg_catalog.min(col.e) AS e,
			   pg_catalog.sum(col.b) AS b
		  FROM tuner.parameter pr
		  LEFT JOIN col ON col.position = pr.position
		 WHERE pr.study_id = s.id
		 GROUP BY pr.name, pr.position, pr.kind, pr.choices
	)
	SELECT pg_catalog.array_agg(agg.name ORDER BY agg.position),
		   pg_catalog.array_agg(COALESCE(agg.imp, 0)::float8 ORDER BY agg.position),
		   pg_catalog.array_agg(CASE WHEN agg.kind = 'categorical' AND pg_catalog.cardinality(agg.choices) > 1 THEN NULL
									 ELSE COALESCE(agg.b, 0) END::float8 ORDER BY agg.position),
		   pg_catalog.array_agg(COALESCE(agg.e, 0)::int ORDER BY agg.position),
		   pg_catalog.array_agg(CASE WHEN agg.kind = 'categorical' AND pg_catalog.cardinality(agg.choices) >= 3
									 THEN pg_catalog.cardinality(agg.choices) ELSE 0 END ORDER BY agg.position)
	  INTO names, importance, coefficients, entered_at, categories
	  FROM agg;
END;
$$;

-- Rank a study's parameters by their effect on the objective (Sapphire):
-- a cross-validated Lasso over its complete trials, and where it finds
-- nothing, a Gaussian process over the same trials.  Lasso features:
--   * int/float parameters: log-scale ones by ln(value); others by
--     log1p(value - least(low, 0)), i.e. log1p of the value, shifted by
--     the low bound when that bound is negative so the argument stays >= 0;
--   * bool parameters: one 0/1 column;
--   * categorical parameters: one 0/1 column per choice (one-hot);
-- a value missing from a trial's config takes the parameter's default
-- (else the low bound, false or the first choice).  The objective y is
-- log1p(value - least(min value, 0)), negated when the study minimises, so
-- a positive coefficient means larger values improve the objective.
-- Columns are standardized (lasso_cv "standardize"); a constant column is
-- left out of the fit and its parameter gets importance 0 (no variance,
-- no evidence).  importance = |standardized coefficient|, summed over the
-- levels of a categorical; coefficient is the standardized coefficient
-- (NULL for a categorical of several levels); entered_at is the 1-based
-- position on the lambda path where the parameter's first column entered
-- (NULL if never).
--
-- The GP (option fill "gp", the default) sees one coordinate per
-- parameter: ln(value) for log-scale numbers, the value for others, 0/1
-- for bools and two-choice categoricals, the choice's bin for other
-- categoricals (the overlap metric of the suggestion models); y as above.
-- It is fitted when some parameter has importance 0, and gp_evidence is
-- its evidence for those (NULL for the others): the log-likelihood drop
-- when a refit leaves the parameter out, >= 3 counting as evidence.
-- rank: parameters with a non-zero Lasso coefficient first, by importance
-- (signal 'lasso'); then those with GP evidence, by gp_evidence ('gp');
-- then the rest, without evidence, by entered_at ('none').  Ties go to the
-- earlier entry, then the earlier position.  fill "none" skips the GP
-- (the ranking of 0.2.0, every zero 'none').  Options: folds (5),
-- n_lambdas, eps, tol, max_iter, lambdas, rule ("min" or "1se": which
-- lambda to rank at), solver (as tuner.lasso_cv), fill.
CREATE OR REPLACE FUNCTION tuner.lasso_rank(study text, options jsonb DEFAULT '{}')
RETURNS TABLE (parameter text, coefficient float8, importance float8,
			   rank int, entered_at int, signal text, gp_evidence float8)
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	o record;
	p record;
	t record;
	n int;
	folds int;
	cols int := 0;
	ymin float8;
	ys float8[];
	xrows float8[][];
	grows float8[][];			-- the GP's coordinates, one per parameter
	colp int[] := '{}';			-- parameter position of each column
	val text;
	num float8;
	rowv float8[];
	growv float8[];
	kept int[] := '{}';			-- columns with variance
	std_coef float8[];
	entered int[];
	v_fill text := 'gp';
	v_names text[];
	v_imp float8[];
	v_coef float8[];
	v_entered int[];
	v_cats int[];
	rk record;
	-- (expected/lasso.out and ranking.out show the line numbers of this
	-- function's errors: what comes before the objective check keeps its
	-- lines.)
BEGIN
	s := tuner._find_study($1);
	o := tuner._lasso_options($2, 'lasso_rank',
							  ARRAY['folds', 'n_lambdas', 'eps', 'tol',
									'max_iter', 'lambdas', 'rule', 'solver',
									'fill']);
	IF $2 ? 'fill' THEN
		IF $2 -> 'fill' NOT IN ('"gp"', '"none"') THEN
			RAISE EXCEPTION 'lasso_rank option fill must be "gp" or "none"'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', $2 -> 'fill'),
					  HINT = '"gp" ranks what the Lasso leaves at zero by a Gaussian process''s evidence, "none" by the order of entry on the Lasso path.';
		END IF;
		v_fill := $2 ->> 'fill';
	END IF;
	folds := COALESCE(o.folds, 5);
	SELECT pg_catalog.count(*) INTO n
	  FROM tuner.trial tr
	  JOIN tuner.observation ob ON ob.trial_id = tr.id
	  JOIN tuner.metric m ON m.id = ob.metric_id AND m.name = s.objective
	 WHERE tr.study_id = s.id AND tr.state = 'complete';
	IF n < folds THEN
		RAISE EXCEPTION 'study "%" has % complete trials, too few to rank its parameters with %-fold cross-validation',
						s.name, n, folds
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = pg_catalog.format('Complete at least %s trials (random ones are best for ranking), or lower the option folds (at least 2).', folds);
	END IF;
	IF NOT EXISTS (SELECT 1 FROM tuner.parameter WHERE study_id = s.id) THEN
		RAISE EXCEPTION 'study "%" has no parameters', s.name
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Add parameters with tuner.add_parameter().';
	END IF;

	-- the objective
	SELECT LEAST(pg_catalog.min(ob.value), 0) INTO ymin
	  FROM tuner.trial tr
	  JOIN tuner.observation ob ON ob.trial_id = tr.id
	  JOIN tuner.metric m ON m.id = ob.metric_id AND m.name = s.objective
	 WHERE tr.study_id = s.id AND tr.state = 'complete';

	-- one row of features (and of GP coordinates) per trial, in trial order
	FOR t IN
		SELECT tr.config, ob.value
		  FROM tuner.trial tr
		  JOIN tuner.observation ob ON ob.trial_id = tr.id
		  JOIN tuner.metric m ON m.id = ob.metric_id AND m.name = s.objective
		 WHERE tr.study_id = s.id AND tr.state = 'complete'
		 ORDER BY tr.number
	LOOP
		rowv := '{}';
		growv := '{}';
		FOR p IN SELECT * FROM tuner.parameter WHERE study_id = s.id ORDER BY position
		LOOP
			val := COALESCE(t.config ->> p.name, p.default_value #>> '{}');
			IF p.kind IN ('int', 'float') THEN
				num := COALESCE(val::float8, p.low);
				IF p.log_scale THEN
					rowv := rowv || pg_catalog.ln(GREATEST(num, p.low));
					growv := growv || pg_catalog.ln(GREATEST(num, p.low));
				ELSE
					rowv := rowv || pg_catalog.ln(1 + GREATEST(num - LEAST(p.low, 0), 0));
					growv := growv || num;
				END IF;
				IF ys IS NULL THEN colp := colp || p.position; END IF;
			ELSIF p.kind = 'bool' THEN
				rowv := rowv || CASE WHEN COALESCE(val::bool, false) THEN 1 ELSE 0 END::float8;
				growv := growv || CASE WHEN COALESCE(val::bool, false) THEN 1 ELSE 0 END::float8;
				IF ys IS NULL THEN colp := colp || p.position; END IF;
			ELSE
				rowv := rowv || ARRAY(SELECT CASE WHEN c = COALESCE(val, p.choices[1]) THEN 1 ELSE 0 END::float8
										FROM pg_catalog.unnest(p.choices) WITH ORDINALITY AS u(c, i) ORDER BY i);
				-- the choice's index from 0 (a choice no longer listed: the first)
				num := COALESCE(pg_catalog.array_position(p.choices, COALESCE(val, p.choices[1])), 1) - 1;
				growv := growv || CASE WHEN pg_catalog.cardinality(p.choices) >= 3
									   THEN (num + 0.5) / pg_catalog.cardinality(p.choices)
									   ELSE num END;
				IF ys IS NULL THEN
					colp := colp || ARRAY(SELECT p.position FROM pg_catalog.generate_series(1, pg_catalog.cardinality(p.choices)));
				END IF;
			END IF;
		END LOOP;
		xrows := xrows || ARRAY[rowv];
		grows := grows || ARRAY[growv];
		ys := COALESCE(ys, '{}') || (CASE s.direction WHEN 'minimize' THEN -1 ELSE 1 END
									 * pg_catalog.ln(1 + t.value - ymin));
	END LOOP;
	cols := pg_catalog.cardinality(colp);

	IF (SELECT pg_catalog.count(DISTINCT v) FROM pg_catalog.unnest(ys) v) < 2 THEN
		RAISE EXCEPTION 'the objective of study "%" has the same value in every complete trial', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Nothing can be ranked without variation in the objective.';
	END IF;

	-- the Lasso on the columns that vary, then per parameter
	SELECT f.kept, f.std_coef, f.entered INTO kept, std_coef, entered
	  FROM tuner._lasso_rank_fit(xrows, ys, n, cols, o, folds) f;
	SELECT a.names, a.importance, a.coefficients, a.entered_at, a.categories
	  INTO v_names, v_imp, v_coef, v_entered, v_cats
	  FROM tuner._lasso_rank_by_parameter(s, colp, kept, std_coef, entered) a;

	rk := tuner._rank_parameters(v_imp, v_entered,
								 CASE WHEN v_fill = 'gp' THEN grows END, ys,
								 v_cats, s.seed);

	RETURN QUERY
	SELECT u.name, v_coef[u.i], v_imp[u.i], rk.rank[u.i], NULLIF(v_entered[u.i], 0),
		   rk.signal[u.i], rk.gp_evidence[u.i]
	  FROM pg_catalog.unnest(v_names) WITH ORDINALITY AS u(name, i)
	 ORDER BY rk.rank[u.i];
END;
$$;

-------------------------------------------------------------------------------
-- Ranking with few trials: a second signal fills what the Lasso leaves
-- (issue 26, item 6).
--
-- With 16-32 explored trials the cross-validated Lasso of lasso_rank often
-- keeps one parameter or none (every coefficient zero at the chosen
-- lambda), and 0.2.0 then ranked the rest by their entry on the lambda
-- path: select_top filled its slots with parameters of importance 0 even
-- when the trials showed another parameter mattered (a non-monotone
-- effect has no linear trend for the Lasso to find).  Now a Gaussian
-- process fitted to the same trials measures its evidence for each
-- parameter the Lasso left at zero (src/core/relevance.h: the drop of the
-- log marginal likelihood when a refit leaves the parameter out), and the
-- ranking puts the Lasso's evidence first, the GP's next and parameters
-- without evidence last (in path order, as before).  Each row says which
-- signal ranked it.  The policy lives in C (tuner._rank_parameters).
--
-- lasso_rank and select_top gain columns, so they are dropped and made
-- again; nothing in the extension uses their row types (_sapphire_phase
-- and the importance plot read them by column name).
-------------------------------------------------------------------------------

-- The ranking policy: rank and signal per parameter from the Lasso's
-- importance and path entry (0 for never), and the GP's evidence over the
-- trials x (n x p, the GP's coordinates; NULL: no GP) and y.
CREATE OR REPLACE FUNCTION tuner._rank_parameters(importance float8[], entered_at int[],
									   x float8[], y float8[],
									   categories int[], seed bigint,
									   OUT rank int[], OUT signal text[],
									   OUT gp_evidence float8[])
RETURNS record
AS 'MODULE_PATHNAME', 'tuner_rank_parameters'
LANGUAGE C STABLE PARALLEL SAFE;
