-- The sapphire pipeline: a space-filling exploration, Lasso ranking, the
-- top K enabled, then the model over them; select_top alone; every error.
\set SHOW_CONTEXT never

-- 12 parameters of every kind; the objective depends on three of them.
SELECT tuner.create_study('sap', 'mbps', 'maximize', '{"seed": 11}') > 0 AS created;
SELECT tuner.add_parameter('sap', 'threads', 'int', 1, 64, default_value => '8', log_scale => true);
SELECT tuner.add_parameter('sap', 'cache_mb', 'float', 16, 4096, default_value => '128', log_scale => true);
SELECT tuner.add_parameter('sap', 'queue', 'categorical', choices => ARRAY['wpq', 'mclock', 'fifo'], default_value => 'wpq');
SELECT tuner.add_parameter('sap', 'compress', 'bool', default_value => 'false');
SELECT tuner.add_parameter('sap', 'noise_' || i, 'float', 0, 1, default_value => '0.5')
  FROM generate_series(1, 8) i;
SELECT tuner.set_algorithm('sap', 'sapphire', '{"explore": 24, "top_k": 3}');
SELECT algorithm, settings -> 'sapphire' AS sapphire FROM tuner.studies s JOIN tuner.study t USING (name)
 WHERE name = 'sap';

CREATE TEMP TABLE sap_trials (i int, id bigint, params jsonb);
DO $$
DECLARE
	r jsonb;
	p jsonb;
BEGIN
	FOR i IN 1 .. 32 LOOP
		r := tuner.suggest_next('sap');
		p := r -> 'params';
		INSERT INTO sap_trials VALUES (i, (r ->> 'trial')::bigint, p);
		PERFORM tuner.report((r ->> 'trial')::bigint, jsonb_build_object('mbps',
			100 + 40 * ln((p ->> 'threads')::float8) / ln(64)
			    + 30 * ln((p ->> 'cache_mb')::float8 / 16) / ln(256)
			    + CASE p ->> 'queue' WHEN 'mclock' THEN 25 WHEN 'fifo' THEN -10 ELSE 0 END
			    + 0.5 * (p ->> 'noise_1')::float8));
	END LOOP;
END;
$$;

-- Phases: the default, 23 design points, then the model (trial 25 on).
SELECT source, min(number), max(number), count(*) FROM tuner.trials
 WHERE study = 'sap' GROUP BY source ORDER BY min(number);
-- What the study recorded: the algorithm, the selection and the switch.
SELECT event, trials, detail -> 'k' AS k, detail -> 'enabled' AS enabled
  FROM tuner.study_event e JOIN tuner.study s ON s.id = e.study_id
 WHERE s.name = 'sap' ORDER BY e.id;
SELECT jsonb_path_query_array(detail -> 'ranking', '$[0 to 2].parameter') AS top_3
  FROM tuner.study_event e JOIN tuner.study s ON s.id = e.study_id
 WHERE s.name = 'sap' AND event = 'select_top';
-- Model trials tune only the top 3; the rest stay at their defaults.
SELECT count(*) AS model_trials,
       count(*) FILTER (WHERE (params ->> 'compress')::bool = false
                          AND (params ->> 'noise_3')::float8 = 0.5
                          AND (params ->> 'noise_8')::float8 = 0.5) AS others_at_default,
       count(DISTINCT params::text) > 1 AS configs_vary
  FROM tuner.trials WHERE study = 'sap' AND source = 'model';
SELECT DISTINCT parameters FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'sap';
-- The model found the best corner of the three.
SELECT (params ->> 'queue') = 'mclock' AS mclock, (params ->> 'threads')::int >= 32 AS many_threads
  FROM tuner.best('sap');

-- select_top alone, on the same study: the ranking and what is enabled.
SELECT parameter, rank, enabled FROM tuner.select_top('sap', 2) ORDER BY rank LIMIT 4;
SELECT count(*) FILTER (WHERE enabled) AS enabled FROM tuner.parameter p
  JOIN tuner.study s ON s.id = p.study_id WHERE s.name = 'sap';

-- Errors.
SELECT * FROM tuner.select_top('sap', 0);
SELECT * FROM tuner.select_top('sap', 13);
SELECT * FROM tuner.select_top('sap', NULL);
SELECT * FROM tuner.select_top('nosuch', 2);
SELECT tuner.create_study('sap_few', 'v') > 0 AS created;
SELECT tuner.add_parameter('sap_few', 'a', 'float', 0, 1, default_value => '0.5');
SELECT tuner.add_parameter('sap_few', 'b', 'float', 0, 1, default_value => '0.5');
SELECT * FROM tuner.select_top('sap_few', 1);
SELECT tuner.set_algorithm('sap_few', 'sapphire', '{"top_k": 3}');
SELECT tuner.set_algorithm('sap_few', 'sapphire', '{"explore": 1}');
SELECT tuner.set_algorithm('sap_few', 'sapphire', '{"model": "bo"}');
SELECT tuner.set_algorithm('sap_few', 'sapphire', '{"rank": 2}');
SELECT tuner.set_algorithm('sap_few', 'sapphire', '{"top_k": "x"}');

SELECT tuner.drop_study(n) FROM unnest(ARRAY['sap', 'sap_few']) n;
