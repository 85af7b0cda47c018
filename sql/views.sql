-- views: tuner.create_view makes one typed view per study (a column per
-- parameter and metric), keeps it current, quotes every name, serves a
-- reader role with nothing but USAGE and SELECT, and goes with the study.
\set SHOW_CONTEXT never
SELECT setval('tuner.trial_id_seq', 7000, false) IS NOT NULL AS restarted;

-- A study and parameters with odd names: spaces, quotes, capitals, a
-- name of a fixed column ("state"), one over 63 bytes.
SELECT tuner.create_study('My "Odd" Study', 'Ops/s', 'maximize', '{"seed": 3}') > 0 AS created;
SELECT tuner.add_parameter('My "Odd" Study', 'Block Size', 'int', 1, 64, default_value => '8');
SELECT tuner.add_parameter('My "Odd" Study', 'ratio"q', 'float', 0, 1, default_value => '0.5');
SELECT tuner.add_parameter('My "Odd" Study', 'Engine', 'categorical', choices => ARRAY['lsm', 'b tree'], default_value => 'lsm');
SELECT tuner.add_parameter('My "Odd" Study', 'direct io', 'bool', default_value => 'false');
SELECT tuner.add_parameter('My "Odd" Study', 'state', 'int', 0, 3, default_value => '1');
SELECT tuner.add_parameter('My "Odd" Study', repeat('very_long_parameter_name_', 4), 'float', 1, 1000,
                           log_scale => true, default_value => '10');
SELECT tuner.add_metric('My "Odd" Study', 'p99 latency', direction => 'minimize', unit => 'ms') > 0 AS declared;

SELECT tuner.create_view('My "Odd" Study');
SELECT column_name, data_type
  FROM information_schema.columns
 WHERE table_schema = 'tuner' AND table_name = 'My "Odd" Study_trials'
 ORDER BY ordinal_position;
SELECT a.attname, col_description(a.attrelid, a.attnum)
  FROM pg_attribute a
 WHERE a.attrelid = 'tuner."My ""Odd"" Study_trials"'::regclass AND a.attnum > 0
 ORDER BY a.attnum;
SELECT obj_description('tuner."My ""Odd"" Study_trials"'::regclass, 'pg_class');

-- Trials: the default, two queued ones, a failure.
SELECT tuner.enqueue('My "Odd" Study', '{"Block Size": 32, "Engine": "b tree", "direct io": true}') AS q1 \gset
SELECT tuner.enqueue('My "Odd" Study', '{"Block Size": 4, "ratio\"q": 0.25}') AS q2 \gset
SELECT (tuner.suggest_next('My "Odd" Study') ->> 'trial')::bigint AS t1 \gset
SELECT (tuner.suggest_next('My "Odd" Study') ->> 'trial')::bigint AS t2 \gset
SELECT (tuner.suggest_next('My "Odd" Study') ->> 'trial')::bigint AS t3 \gset
SELECT (tuner.suggest_next('My "Odd" Study') ->> 'trial')::bigint AS t4 \gset
SELECT tuner.report(:t1, '{"Ops/s": 1200, "p99 latency": 3.5}');
SELECT tuner.fail(:t2, 'crashed');
SELECT tuner.report(:t3, '{"Ops/s": 1000, "p99 latency": 4.0}');
SELECT tuner.report(:t4, '{"Ops/s": 1500, "p99 latency": 2.0}');

SELECT trial - 7000 AS trial, number, state, source, objective, best_so_far,
       round(ratio_to_default::numeric, 4) AS ratio_to_default, error,
       "Block Size", "ratio""q", "Engine", "direct io", param_state,
       "very_long_parameter_name_very_long_parameter_name_very_77946641" IS NOT NULL AS long_set,
       "Ops/s", "p99 latency",
       created_at <= started_at AS created_first, finished_at >= started_at AS finished_after
  FROM tuner."My ""Odd"" Study_trials";

-- Kept current: a declared metric, and a metric a report brings in.
SELECT tuner.add_metric('My "Odd" Study', 'cpu %', unit => 'percent') > 0 AS declared;
SELECT (tuner.suggest_next('My "Odd" Study') ->> 'trial')::bigint AS t5 \gset
SELECT tuner.report(:t5, '{"Ops/s": 900, "cpu %": 71, "Write Amp": 2.5}');
SELECT number, objective, best_so_far, "cpu %", "Write Amp"
  FROM tuner."My ""Odd"" Study_trials" WHERE number >= 4;
SELECT column_name FROM information_schema.columns
 WHERE table_schema = 'tuner' AND table_name = 'My "Odd" Study_trials' AND ordinal_position > 17
 ORDER BY ordinal_position;

-- A reader with USAGE on the schema and SELECT on the view, nothing else.
CREATE ROLE regress_tuner_reader;
GRANT USAGE ON SCHEMA tuner TO regress_tuner_reader;
GRANT SELECT ON tuner."My ""Odd"" Study_trials" TO regress_tuner_reader;
SET ROLE regress_tuner_reader;
SELECT count(*) AS trials, max(best_so_far) AS best FROM tuner."My ""Odd"" Study_trials";
SELECT count(*) FROM tuner.trial;	-- the tables stay closed
RESET ROLE;
-- The grant survives the view being rebuilt.
SELECT tuner.add_metric('My "Odd" Study', 'disk', 'constraint') > 0 AS declared;
SET ROLE regress_tuner_reader;
SELECT count(*) AS trials, count(disk) AS disk FROM tuner."My ""Odd"" Study_trials";
RESET ROLE;

-- A name of one's choosing, quoted, in another schema; a minimized study;
-- ratio_to_default from the study's own paired metric when it has one.
CREATE SCHEMA "Reports X";
SELECT tuner.create_study('lat', 'latency', 'minimize', '{"seed": 4}') > 0 AS created;
SELECT tuner.add_parameter('lat', 'x', 'float', 0, 10, default_value => '5');
SELECT tuner.create_view('lat', '"Reports X"."Latency View"');
SELECT tuner.create_view('lat', 'lat_plain');
SELECT (tuner.suggest_next('lat') ->> 'trial')::bigint AS l1 \gset
SELECT (tuner.suggest_next('lat') ->> 'trial')::bigint AS l2 \gset
SELECT (tuner.suggest_next('lat') ->> 'trial')::bigint AS l3 \gset
SELECT tuner.report(:l1, '{"latency": 10}');
SELECT tuner.report(:l2, '{"latency": 12}');
SELECT tuner.report(:l3, '{"latency": 5}');
SELECT number, objective, best_so_far, ratio_to_default FROM "Reports X"."Latency View";
SELECT (tuner.suggest_next('lat') ->> 'trial')::bigint AS l4 \gset
SELECT tuner.report(:l4, '{"latency": 8, "ratio_to_default": 0.75}');
SELECT number, objective, best_so_far, ratio_to_default FROM tuner.lat_plain;
-- Called again it rebuilds; a view dropped by hand is forgotten.
SELECT tuner.create_view('lat', 'lat_plain');
DROP VIEW tuner.lat_plain;
SELECT tuner.add_metric('lat', 'cpu') > 0 AS declared;
SELECT study_id IS NOT NULL, view_schema, view_name FROM tuner.study_view ORDER BY 2, 3;

-- A very long study name: the default name is cut to 63 bytes with a hash.
SELECT tuner.create_study(repeat('long study name ', 8), 'y') > 0 AS created;
SELECT tuner.create_view(repeat('long study name ', 8));
SELECT tuner.create_study(repeat('long study name ', 8) || '2', 'y') > 0 AS created;
SELECT tuner.create_view(repeat('long study name ', 8) || '2');

-- Errors.
SELECT tuner.create_view(NULL);
SELECT tuner.create_view('nope');
SELECT tuner.create_view('lat', 'a b');
SELECT tuner.create_view('lat', 'a.b.c');
SELECT tuner.create_view('lat', '');
SELECT tuner.create_view('lat', repeat('v', 64));
SELECT tuner.create_view('lat', 'no_such_schema.v');
SELECT tuner.create_view('lat', 'tuner.trial');
SELECT tuner.create_view('lat', 'tuner."My ""Odd"" Study_trials"');
SET ROLE regress_tuner_reader;
SELECT tuner.create_view('lat', 'tuner.mine');
RESET ROLE;

-- A view the trigger cannot rebuild (another view depends on it) warns;
-- the report goes through.
CREATE VIEW "Reports X".on_top AS SELECT number FROM "Reports X"."Latency View";
SELECT (tuner.suggest_next('lat') ->> 'trial')::bigint AS l5 \gset
SELECT tuner.report(:l5, '{"latency": 9, "new metric": 1}');
SELECT state FROM tuner.trial WHERE id = :l5;
DROP VIEW "Reports X".on_top;

-- The views go with their study.
SELECT tuner.drop_study('My "Odd" Study');
SELECT tuner.drop_study('lat');
SELECT to_regclass('tuner."My ""Odd"" Study_trials"') AS odd,
       to_regclass('"Reports X"."Latency View"') AS latency;
SELECT count(*) AS registered FROM tuner.study_view
 WHERE view_name NOT LIKE 'long study%';
SELECT tuner.drop_study(repeat('long study name ', 8));
SELECT tuner.drop_study(repeat('long study name ', 8) || '2');
DROP SCHEMA "Reports X";
REVOKE USAGE ON SCHEMA tuner FROM regress_tuner_reader;
DROP ROLE regress_tuner_reader;
