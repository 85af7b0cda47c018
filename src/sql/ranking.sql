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
CREATE FUNCTION tuner._rank_parameters(importance float8[], entered_at int[],
									   x float8[], y float8[],
									   categories int[], seed bigint,
									   OUT rank int[], OUT signal text[],
									   OUT gp_evidence float8[])
RETURNS record
AS 'MODULE_PATHNAME', 'tuner_rank_parameters'
LANGUAGE C STABLE PARALLEL SAFE;

DROP FUNCTION tuner.select_top(text, int, jsonb);
DROP FUNCTION tuner.lasso_rank(text, jsonb);

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
CREATE FUNCTION tuner.lasso_rank(study text, options jsonb DEFAULT '{}')
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
	xmat float8[];
	val text;
	num float8;
	rowv float8[];
	growv float8[];
	kept int[] := '{}';			-- columns with variance
	r record;
	std_coef float8[];
	entered int[];
	fit jsonb;
	v_fill text := 'gp';
	v_names text[];
	v_imp float8[];
	v_coef float8[];
	v_entered int[];
	v_cats int[];
	rk record;
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

	-- columns that vary
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

	-- the Lasso per parameter, in position order
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
	  INTO v_names, v_imp, v_coef, v_entered, v_cats
	  FROM agg;

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

-- Tune only the K parameters ranked highest over the complete trials
-- (tuner.lasso_rank: the Lasso, then the GP's evidence); the others are
-- fixed at their defaults.  signal says which ranked each parameter.
CREATE FUNCTION tuner.select_top(study text, k int, options jsonb DEFAULT '{}')
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
