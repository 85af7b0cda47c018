/*
 * clusters.sql
 *	  Clusters of parameters per auxiliary metric for the clustered multi-task
 *	  model: set by hand or learned.
 */

CREATE OR REPLACE FUNCTION tuner._learn_clusters(x float8[], y float8[], permutations int,
									 alpha float8, refine_rounds int, seed bigint,
									 OUT score float8[], OUT partial float8[],
									 OUT pvalue float8[], OUT adjusted float8[],
									 OUT member int[], OUT weak int[],
									 OUT n_obs int[], OUT valid int[],
									 OUT size int[], OUT confidence float8[])
RETURNS record
AS 'MODULE_PATHNAME', 'tuner_learn_clusters_arrays'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- Set by hand the parameters a clustered multi-task model tunes with an
-- auxiliary metric ('{}' clears it).
CREATE OR REPLACE FUNCTION tuner.set_cluster(study text, metric text, parameters text[])
RETURNS void
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	m tuner.metric;
	p_metric text := $2;
	p_parameters text[] := $3;
	v_unknown text;
	v_dup text;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null(p_metric, 'metric');
	PERFORM tuner._not_null(p_parameters, 'parameters');
	SELECT * INTO m FROM tuner.metric
	 WHERE study_id = s.id AND name = p_metric;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'study "%" has no metric "%"', s.name, p_metric
			USING ERRCODE = 'undefined_object',
				  HINT = 'Declare it with tuner.add_metric(study, metric, ''auxiliary'').';
	END IF;
	IF m.role <> 'auxiliary' THEN
		RAISE EXCEPTION 'metric "%" of study "%" is %, not auxiliary', p_metric, s.name, m.role
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Clusters group parameters under auxiliary metrics; declare it with tuner.add_metric(study, metric, ''auxiliary'').';
	END IF;
	IF pg_catalog.array_position(p_parameters, NULL) IS NOT NULL THEN
		RAISE EXCEPTION 'parameters must not contain NULL'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	SELECT u.name INTO v_unknown
	  FROM pg_catalog.unnest(p_parameters) AS u(name)
	 WHERE NOT EXISTS (SELECT 1 FROM tuner.parameter p
						WHERE p.study_id = s.id AND p.name = u.name)
	 LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'study "%" has no parameter "%"', s.name, v_unknown
			USING ERRCODE = 'undefined_object',
				  HINT = 'tuner.parameter lists the study''s parameters.';
	END IF;
	SELECT u.name INTO v_dup
	  FROM pg_catalog.unnest(p_parameters) AS u(name)
	 GROUP BY u.name HAVING pg_catalog.count(*) > 1 LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'parameter "%" is named twice', v_dup
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	UPDATE tuner.metric
	   SET cluster = CASE WHEN pg_catalog.cardinality(p_parameters) = 0 THEN NULL
						  ELSE p_parameters END,
		   cluster_source = CASE WHEN pg_catalog.cardinality(p_parameters) = 0 THEN NULL
								 ELSE 'user' END,
		   cluster_confidence = NULL
	 WHERE id = m.id;
END;
$$;

-- Find from the study's complete trials which parameters drive each
-- auxiliary metric (src/core/clusters.h: a rank quadratic correlation per
-- parameter and metric, permutation p-values, Benjamini-Hochberg, then
-- conditional passes given each metric's other members).  A parameter may
-- land in several clusters; one significant for no metric joins the
-- cluster of its strongest metric as a weak member.  With apply, each
-- metric's cluster is replaced by the learned one.
CREATE OR REPLACE FUNCTION tuner.learn_clusters(study text, apply bool DEFAULT true,
									 options jsonb DEFAULT '{}')
RETURNS TABLE (metric text, parameters text[], confidence float8,
			   observations int, weak_parameters text[], scores jsonb)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	p_apply bool := $2;
	p_options jsonb := $3;
	opt_key text;
	v_names text[];
	v_kinds text[];
	v_choices text[];
	v_metric_ids bigint[];
	v_metric_names text[];
	v_x float8[];
	v_y float8[];
	v_n int;
	r record;
	ti int;
	d int;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null(p_apply, 'apply');
	PERFORM tuner._not_null(p_options, 'options');
	IF pg_catalog.jsonb_typeof(p_options) <> 'object' THEN
		RAISE EXCEPTION 'options must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(p_options));
	END IF;
	FOR opt_key IN SELECT pg_catalog.jsonb_object_keys(p_options)
	LOOP
		IF opt_key NOT IN ('permutations', 'alpha', 'refine_rounds', 'seed') THEN
			RAISE EXCEPTION 'unknown learn_clusters option "%"', opt_key
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Known options: permutations, alpha, refine_rounds, seed.';
		END IF;
	END LOOP;
	IF p_options ? 'alpha' AND (pg_catalog.jsonb_typeof(p_options -> 'alpha') <> 'number'
			OR (p_options ->> 'alpha')::float8 <= 0 OR (p_options ->> 'alpha')::float8 >= 1) THEN
		RAISE EXCEPTION 'learn_clusters option alpha must be a number between 0 and 1'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', p_options -> 'alpha');
	END IF;

	SELECT pg_catalog.array_agg(p.name ORDER BY p.position),
		   pg_catalog.array_agg(p.kind ORDER BY p.position)
	  INTO v_names, v_kinds
	  FROM tuner.parameter p WHERE p.study_id = s.id;
	d := COALESCE(pg_catalog.cardinality(v_names), 0);
	IF d = 0 THEN
		RAISE EXCEPTION 'study "%" has no parameters', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Add parameters with tuner.add_parameter().';
	END IF;
	SELECT pg_catalog.array_agg(m.id ORDER BY m.id), pg_catalog.array_agg(m.name ORDER BY m.id)
	  INTO v_metric_ids, v_metric_names
	  FROM tuner.metric m WHERE m.study_id = s.id AND m.role = 'auxiliary';
	IF v_metric_ids IS NULL THEN
		RAISE EXCEPTION 'study "%" has no auxiliary metrics', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Declare the metrics to cluster under with tuner.add_metric(study, metric, ''auxiliary'').';
	END IF;

	-- One row per complete trial: its parameter values (ranks are all the
	-- method uses, so native values serve; categoricals by their choice
	-- index) and its auxiliary metrics, NULL where it reported none.
	SELECT pg_catalog.array_agg(h.x ORDER BY h.number),
		   pg_catalog.array_agg(h.y ORDER BY h.number),
		   pg_catalog.count(*)
	  INTO v_x, v_y, v_n
	  FROM (SELECT t.number,
				   ARRAY(SELECT CASE p.kind
							WHEN 'bool' THEN CASE WHEN (t.config -> p.name)::bool THEN 1 ELSE 0 END
							WHEN 'categorical' THEN pg_catalog.array_position(p.choices, t.config ->> p.name) - 1
							ELSE (t.config -> p.name)::float8 END
						   FROM tuner.parameter p WHERE p.study_id = s.id
						  ORDER BY p.position) AS x,
				   ARRAY(SELECT ob.value
						   FROM pg_catalog.unnest(v_metric_ids) WITH ORDINALITY AS a(id, k)
						   LEFT JOIN tuner.observation ob
							 ON ob.trial_id = t.id AND ob.metric_id = a.id
						  ORDER BY a.k) AS y
			  FROM tuner.trial t
			 WHERE t.study_id = s.id AND t.state = 'complete') h;
	IF COALESCE(v_n, 0) < 4 THEN
		RAISE EXCEPTION 'study "%" has % complete trials; learning clusters needs at least 4', s.name, COALESCE(v_n, 0)
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Run more trials first; with tens of trials the clusters become reliable.';
	END IF;

	r := tuner._learn_clusters(v_x, v_y,
		CASE WHEN p_options ? 'permutations' THEN tuner._json_int(p_options -> 'permutations', 'learn_clusters option permutations', 0, 100000)::int END,
		(p_options ->> 'alpha')::float8,
		CASE WHEN p_options ? 'refine_rounds' THEN tuner._json_int(p_options -> 'refine_rounds', 'learn_clusters option refine_rounds', 0, 10)::int END,
		COALESCE(CASE WHEN p_options ? 'seed' THEN tuner._json_int(p_options -> 'seed', 'learn_clusters option seed',
																	 -9223372036854775808, 9223372036854775807) END,
				 s.seed));

	FOR ti IN 1 .. pg_catalog.cardinality(v_metric_ids)
	LOOP
		metric := v_metric_names[ti];
		observations := r.n_obs[ti];
		IF r.valid[ti] = 0 THEN
			-- too few observations or no variance: no cluster learned
			parameters := NULL;
			confidence := NULL;
			weak_parameters := NULL;
			scores := NULL;
		ELSE
			parameters := ARRAY(SELECT v_names[i] FROM pg_catalog.generate_series(1, d) i
								 WHERE r.member[i][ti] = 1 ORDER BY i);
			weak_parameters := ARRAY(SELECT v_names[i] FROM pg_catalog.generate_series(1, d) i
									  WHERE r.weak[i][ti] = 1 ORDER BY i);
			confidence := r.confidence[ti];
			SELECT pg_catalog.jsonb_object_agg(v_names[i], pg_catalog.jsonb_build_object(
						'score', r.score[i][ti], 'partial', r.partial[i][ti],
						'p_value', r.pvalue[i][ti], 'adjusted_p', r.adjusted[i][ti]))
			  INTO scores
			  FROM pg_catalog.generate_series(1, d) i;
			IF p_apply THEN
				UPDATE tuner.metric
				   SET cluster = parameters, cluster_source = 'learned',
					   cluster_confidence = confidence
				 WHERE id = v_metric_ids[ti];
			END IF;
		END IF;
		RETURN NEXT;
	END LOOP;
END;
$$;
