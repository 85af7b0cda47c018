-- A suggestion and its replay do not depend on the session that asked:
-- clients set extra_float_digits to 0 (15 digits) or 3 (17 digits), and
-- float8 becomes text and JSON by that setting.  Suggestions asked under
-- one setting replay byte for byte under another, and two studies with
-- the same seed and the same reports, asked under different settings,
-- get the same trials byte for byte.
\set SHOW_CONTEXT never
CREATE FUNCTION pg_temp.run(p_study text, p_n int, p_digits text[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	t jsonb;
	y float8;
BEGIN
	FOR i IN 1 .. p_n LOOP
		PERFORM set_config('extra_float_digits', p_digits[1 + i % cardinality(p_digits)], true);
		t := tuner.suggest_next(p_study);
		IF i = 5 THEN
			PERFORM tuner.fail((t ->> 'trial')::bigint, 'crashed');
			CONTINUE;
		END IF;
		y := ((t -> 'params' ->> 'x')::float8 - 0.3) ^ 2
			 + ((t -> 'params' ->> 'z')::float8 + 1) ^ 2 / 7
			 + sin(3 * (t -> 'params' ->> 'w')::float8)
			 + ln((t -> 'params' ->> 'k')::float8) / 5
			 + CASE t -> 'params' ->> 'mode' WHEN 'b' THEN 0 ELSE 0.5 END;
		-- the same reports: the caller's own JSON follows its setting too
		PERFORM set_config('extra_float_digits', '1', true);
		PERFORM tuner.report((t ->> 'trial')::bigint, jsonb_build_object('y', y, 'lat', y * 3,
			'cost', (t -> 'params' ->> 'k')::float8 / 100 + (t -> 'params' ->> 'w')::float8));
	END LOOP;
END;
$$;
SELECT s, tuner.create_study(s, 'y', 'minimize', '{"seed": 41, "n_initial": 5}') > 0 AS created
  FROM unnest(ARRAY['fd_a', 'fd_b']) s;
SELECT tuner.add_parameter(s, 'x', 'float', -2, 3), tuner.add_parameter(s, 'z', 'float', -4, 4),
	   tuner.add_parameter(s, 'w', 'float', 0.001, 10, log_scale => true),
	   tuner.add_parameter(s, 'k', 'int', 1, 500, log_scale => true),
	   tuner.add_parameter(s, 'mode', 'categorical', choices => ARRAY['a', 'b', 'c']),
	   tuner.add_metric(s, 'lat', 'constraint', 'minimize', bound => 20) > 0
  FROM unnest(ARRAY['fd_a', 'fd_b']) s;
-- the same under icm (lat as an auxiliary metric) and with two objectives
SELECT s, tuner.create_study(s, 'y', 'minimize', '{"seed": 43, "n_initial": 5}') > 0 AS created
  FROM unnest(ARRAY['fd_icm', 'fd_mo']) s;
SELECT tuner.add_parameter(s, 'x', 'float', -2, 3), tuner.add_parameter(s, 'z', 'float', -4, 4),
	   tuner.add_parameter(s, 'w', 'float', 0.001, 10, log_scale => true),
	   tuner.add_parameter(s, 'k', 'int', 1, 500, log_scale => true),
	   tuner.add_parameter(s, 'mode', 'categorical', choices => ARRAY['a', 'b', 'c'])
  FROM unnest(ARRAY['fd_icm', 'fd_mo']) s;
SELECT tuner.add_metric('fd_icm', 'lat') > 0 AS auxiliary;
SELECT tuner.set_algorithm('fd_icm', 'icm');
SELECT tuner.add_metric('fd_mo', 'cost', 'objective', 'minimize') > 0 AS second_objective;
SELECT pg_temp.run('fd_a', 14, ARRAY['0', '3', '1']);
SELECT pg_temp.run('fd_b', 14, ARRAY['3', '1', '-5', '2']);
-- clustered-icm (lat driven by x and z) and sapphire (explore, rank, keep 3)
SELECT s, tuner.create_study(s, 'y', 'minimize', '{"seed": 47, "n_initial": 5}') > 0 AS created
  FROM unnest(ARRAY['fd_cl', 'fd_sa']) s;
-- (sapphire disables the parameters it does not keep: they need defaults)
SELECT tuner.add_parameter(s, 'x', 'float', -2, 3, default_value => '0'),
	   tuner.add_parameter(s, 'z', 'float', -4, 4, default_value => '0'),
	   tuner.add_parameter(s, 'w', 'float', 0.001, 10, log_scale => true, default_value => '1'),
	   tuner.add_parameter(s, 'k', 'int', 1, 500, log_scale => true, default_value => '10'),
	   tuner.add_parameter(s, 'mode', 'categorical', choices => ARRAY['a', 'b', 'c'], default_value => 'a')
  FROM unnest(ARRAY['fd_cl', 'fd_sa']) s;
SELECT tuner.add_metric('fd_cl', 'lat') > 0 AS auxiliary;
SELECT tuner.set_cluster('fd_cl', 'lat', ARRAY['x', 'z']);
SELECT tuner.set_algorithm('fd_cl', 'clustered-icm');
SELECT tuner.set_algorithm('fd_sa', 'sapphire', '{"explore": 6, "top_k": 3}');
SELECT pg_temp.run('fd_icm', 12, ARRAY['0', '3', '1']);
SELECT pg_temp.run('fd_mo', 12, ARRAY['3', '0', '2']);
SELECT pg_temp.run('fd_cl', 12, ARRAY['0', '1', '3']);
SELECT pg_temp.run('fd_sa', 12, ARRAY['3', '1', '0']);
-- sapphire ranked and kept its top 3 on the way
SELECT count(*) FILTER (WHERE p.enabled) AS sapphire_kept
  FROM tuner.parameter p JOIN tuner.study s ON s.id = p.study_id WHERE s.name = 'fd_sa';
-- each algorithm's own suggestions are among them
SELECT s.name, array_agg(DISTINCT g.algorithm ORDER BY g.algorithm) AS algorithms,
	   array_agg(DISTINCT t.source ORDER BY t.source) AS sources
  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
  JOIN tuner.suggestion g ON g.trial_id = t.id
 WHERE s.name LIKE 'fd\_%' GROUP BY s.name ORDER BY s.name;
-- the same trials, byte for byte
SELECT count(*) AS trials,
	   count(*) FILTER (WHERE a.config::text = b.config::text) AS same_bytes
  FROM tuner.trial a JOIN tuner.study sa ON sa.id = a.study_id AND sa.name = 'fd_a'
  JOIN tuner.trial b ON b.number = a.number
  JOIN tuner.study sb ON sb.id = b.study_id AND sb.name = 'fd_b';
-- every suggestion replays byte for byte, from sessions with each setting
SET extra_float_digits = 3;
SELECT s.name, count(*) AS replayed,
	   count(*) FILTER (WHERE tuner.replay_suggestion(t.id)::text = t.config::text) AS same_bytes
  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
  JOIN tuner.suggestion g ON g.trial_id = t.id
 WHERE s.name LIKE 'fd\_%' GROUP BY s.name ORDER BY s.name;
SET extra_float_digits = 0;
SELECT s.name, count(*) AS replayed,
	   count(*) FILTER (WHERE tuner.replay_suggestion(t.id)::text = t.config::text) AS same_bytes
  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
  JOIN tuner.suggestion g ON g.trial_id = t.id
 WHERE s.name LIKE 'fd\_%' GROUP BY s.name ORDER BY s.name;
RESET extra_float_digits;
-- the stored numbers are the shortest exact ones, whatever the session
SELECT count(*) FILTER (WHERE (t.config ->> 'x') <> ((t.config ->> 'x')::float8)::text) AS not_shortest
  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id WHERE s.name IN ('fd_a', 'fd_b');
-- every function of the extension carries the setting (but the two
-- SQL-standard bodies the row-level security policies inline)
SELECT p.oid::regprocedure AS without_fixed_float_digits
  FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'tuner'
 WHERE p.prosqlbody IS NULL
   AND NOT COALESCE(p.proconfig @> ARRAY['extra_float_digits=1'], false);
SELECT tuner.drop_study(s) FROM unnest(ARRAY['fd_a', 'fd_b', 'fd_icm', 'fd_mo', 'fd_cl', 'fd_sa']) s;
