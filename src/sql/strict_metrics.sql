-------------------------------------------------------------------------------
-- The study setting strict_metrics: report refuses a metric name the
-- study does not declare.
--
-- report keeps every metric it is given, and a name it has not seen
-- becomes a new "recorded" metric.  A typo in a constraint's or an
-- auxiliary metric's name was then stored quietly under the wrong name,
-- and the constraint went unreported.  With strict_metrics true, every
-- name must be declared (tuner.add_metric, or the objective); a runner's
-- output goes through report too, so a runner's extra metrics must be
-- declared as well.  The body is 0.1.0's otherwise.
-------------------------------------------------------------------------------

-- Record the metrics a trial measured and mark it complete.  The study's
-- objective must be among them; every metric is kept.
CREATE OR REPLACE FUNCTION tuner.report(trial bigint, metrics jsonb)
RETURNS void
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
	t tuner.trial;
	s tuner.study;
	k text;
	v jsonb;
	v_value float8;
	v_metric bigint;
	v_values float8[] := '{}';
	v_names text[] := '{}';
	i int;
BEGIN
	PERFORM tuner._not_null($1, 'trial');
	PERFORM tuner._not_null($2, 'metrics');
	-- A trial whose lease expired is interrupted, not reported.
	PERFORM tuner._reap_of_trial($1);
	t := tuner._open_trial($1);
	SELECT * INTO s FROM tuner.study WHERE id = t.study_id;

	IF pg_catalog.jsonb_typeof($2) <> 'object' THEN
		RAISE EXCEPTION 'metrics must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof($2)),
				  HINT = pg_catalog.format('Pass {"metric": value, ...}, for example {"%s": 1.5}.', s.objective);
	END IF;
	IF NOT $2 ? s.objective THEN
		RAISE EXCEPTION 'metrics must include the objective "%"', s.objective
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', $2),
				  HINT = 'A trial that produced no objective value should be marked with tuner.fail().';
	END IF;
	-- a multi-objective study: every objective
	SELECT o.name INTO k FROM tuner._objectives(s.id) o
	 WHERE NOT $2 ? o.name ORDER BY o.ordinal LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'metrics must include every objective; "%" is missing', k
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', $2),
				  HINT = 'A trial that produced no value of an objective should be marked with tuner.fail().';
	END IF;

	FOR k, v IN SELECT key, value FROM pg_catalog.jsonb_each($2) ORDER BY key
	LOOP
		IF k = '' THEN
			RAISE EXCEPTION 'metric names must not be empty'
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		IF pg_catalog.jsonb_typeof(v) <> 'number' THEN
			IF pg_catalog.jsonb_typeof(v) = 'string'
			   AND pg_catalog.lower(v #>> '{}') IN ('nan', 'infinity', '+infinity', '-infinity', 'inf', '+inf', '-inf') THEN
				RAISE EXCEPTION 'metric "%" must be a finite number', k
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('Got %s.', v),
						  HINT = 'Mark a trial that measured nothing valid with tuner.fail().';
			END IF;
			RAISE EXCEPTION 'metric "%" must be a number', k
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got a JSON %s: %s.', pg_catalog.jsonb_typeof(v), v);
		END IF;
		BEGIN
			v_value := v::float8;
		EXCEPTION WHEN numeric_value_out_of_range THEN
			RAISE EXCEPTION 'metric "%" is out of range for double precision', k
				USING ERRCODE = 'numeric_value_out_of_range';
		END;
		v_names := v_names || k;
		v_values := v_values || v_value;
	END LOOP;

	-- strict_metrics: a name the study does not declare is a typo, not a
	-- new metric.
	IF COALESCE((s.settings ->> 'strict_metrics')::bool, false) THEN
		SELECT n INTO k FROM pg_catalog.unnest(v_names) AS n
		 WHERE NOT EXISTS (SELECT 1 FROM tuner.metric m
							WHERE m.study_id = s.id AND m.name = n)
		 ORDER BY n LIMIT 1;
		IF FOUND THEN
			RAISE EXCEPTION 'metric "%" is not declared in study "%"', k, s.name
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('The study''s metrics are %s; its setting strict_metrics refuses others.',
						(SELECT pg_catalog.string_agg(pg_catalog.format('"%s"', m.name), ', ' ORDER BY m.name)
						   FROM tuner.metric m WHERE m.study_id = s.id)),
					  HINT = 'Correct the name, or declare the metric with tuner.add_metric() first.';
		END IF;
	END IF;

	FOR i IN 1 .. pg_catalog.cardinality(v_names)
	LOOP
		INSERT INTO tuner.metric (study_id, name, role)
		VALUES (s.id, v_names[i], 'recorded')
		ON CONFLICT (study_id, name) DO NOTHING;
		SELECT id INTO v_metric FROM tuner.metric
		 WHERE study_id = s.id AND name = v_names[i];
		INSERT INTO tuner.observation (trial_id, metric_id, value)
		VALUES (t.id, v_metric, v_values[i]);
	END LOOP;

	UPDATE tuner.trial SET state = 'complete', finished_at = pg_catalog.now()
	 WHERE id = t.id;
END;
$$;
