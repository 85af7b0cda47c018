-- A study wide enough that its trial configs are stored compressed (200
-- parameters of every kind): suggest_next reads the history with one
-- jsonb_each per trial, and the model sees every parameter of every trial
-- in position order.
\set SHOW_CONTEXT never

SELECT tuner.create_study('wide', 'v', 'maximize', '{"seed": 5, "n_initial": 8}') > 0 AS created;
SELECT pg_catalog.count(*) FROM (
	SELECT CASE i % 4
		WHEN 0 THEN tuner.add_parameter('wide', 'f' || i, 'float', 0, 10, default_value => '5')
		WHEN 1 THEN tuner.add_parameter('wide', 'n' || i, 'int', 1, 1000, default_value => '10', log_scale => true)
		WHEN 2 THEN tuner.add_parameter('wide', 'c' || i, 'categorical', choices => ARRAY['a', 'b', 'c'], default_value => 'b')
		ELSE tuner.add_parameter('wide', 'b' || i, 'bool', default_value => 'true') END
	  FROM generate_series(0, 199) i) x;

CREATE TEMP TABLE wide_trials (i int, id bigint, params jsonb);
DO $$
DECLARE
	r jsonb;
	p jsonb;
BEGIN
	FOR i IN 1 .. 12 LOOP
		r := tuner.suggest_next('wide');
		p := r -> 'params';
		INSERT INTO wide_trials VALUES (i, (r ->> 'trial')::bigint, p);
		-- depends on the last parameter of each kind
		PERFORM tuner.report((r ->> 'trial')::bigint, jsonb_build_object('v',
			10 - abs((p ->> 'f196')::float8 - 7)
			   + ln((p ->> 'n197')::float8)
			   + CASE p ->> 'c198' WHEN 'c' THEN 3 ELSE 0 END
			   + CASE WHEN (p ->> 'b199')::bool THEN 0 ELSE 2 END));
	END LOOP;
END;
$$;

-- The configs are stored compressed, and complete.
SELECT bool_and(pg_column_size(t.config) < octet_length(t.config::text)) AS compressed,
	   bool_and((SELECT count(*) FROM jsonb_object_keys(t.config)) = 200) AS complete
  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id WHERE s.name = 'wide';
SELECT source, count(*) FROM tuner.trials WHERE study = 'wide' GROUP BY source ORDER BY min(number);
-- Every model saw all 200 parameters and every complete trial.
SELECT m.n, cardinality(m.lengthscales) AS lengthscales, cardinality(m.parameters) AS parameters
  FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id WHERE s.name = 'wide' ORDER BY m.id;
-- The model's predictions at its own suggestions are finite numbers.
SELECT count(*) FILTER (WHERE predicted_mean IS NOT NULL AND predicted_sd > 0) AS predicted
  FROM tuner.trials WHERE study = 'wide' AND source = 'model';

SELECT tuner.drop_study('wide');
