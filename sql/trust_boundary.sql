-- trust_boundary: issue 25's attacks by a hostile co-tenant, each tried
-- as an unprivileged member of tuner_user who was granted write on the
-- victim's study: operator shadowing against every trigger (a schema of
-- its own ahead of pg_catalog), runner input written straight into
-- tuner.trial, job tampering, transfer_from set by UPDATE, and
-- tuner.study_view naming someone else's view.  Roles regress_tuner_tb_*,
-- dropped at the end.
\set SHOW_CONTEXT never

-- Run a statement; its SQLSTATE and message (numbers as N) if it fails.
CREATE FUNCTION public.regress_tuner_tb_try(statement text)
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
	n bigint;
BEGIN
	EXECUTE statement;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN 'ok, ' || n || ' rows';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || pg_catalog.regexp_replace(SQLERRM, '\d+', 'N', 'g');
END;
$$;

-- Every function of the extension runs with a fixed search_path, except
-- the two SQL-standard bodies the policies inline (parsed at creation).
SELECT p.oid::regprocedure AS without_fixed_search_path
  FROM pg_proc p
 WHERE p.pronamespace = 'tuner'::regnamespace
   AND p.prosqlbody IS NULL
   AND NOT COALESCE(p.proconfig @> ARRAY['search_path=pg_catalog, tuner, pg_temp'], false)
 ORDER BY 1;
SELECT p.oid::regprocedure AS sql_standard_body
  FROM pg_proc p
 WHERE p.pronamespace = 'tuner'::regnamespace AND p.prosqlbody IS NOT NULL
 ORDER BY 1;

-- What tuner_user may write, table by table: only what tuner's own
-- functions write (row-level security then narrows it to the studies a
-- role may write; UPDATE of study is on some columns only); the tables
-- marked functions_only are written through tuner's functions alone.
SELECT c.relname AS "table",
	   has_table_privilege('tuner_user', c.oid, 'INSERT') AS ins,
	   has_any_column_privilege('tuner_user', c.oid, 'UPDATE') AS upd,
	   has_table_privilege('tuner_user', c.oid, 'DELETE') AS del,
	   EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid
				  AND t.tgname = 'bookkeeping_guard') AS functions_only
  FROM pg_class c
 WHERE c.relnamespace = 'tuner'::regnamespace AND c.relkind = 'r'
 ORDER BY 1;

CREATE ROLE regress_tuner_tb_owner LOGIN IN ROLE tuner_user;		-- the victim
CREATE ROLE regress_tuner_tb_attacker LOGIN IN ROLE tuner_user;	-- granted write
CREATE ROLE regress_tuner_tb_runner LOGIN IN ROLE tuner_user, pg_execute_server_program;
GRANT EXECUTE ON FUNCTION tuner.step(text), tuner.register_runner(text, text, text[], jsonb)
	TO regress_tuner_tb_runner;
CREATE SCHEMA regress_tuner_tb_evil AUTHORIZATION regress_tuner_tb_attacker;
CREATE SCHEMA regress_tuner_tb_victim AUTHORIZATION regress_tuner_tb_owner;

-- The victim: a study with two complete trials, a view, and a private
-- study the attacker may not read.
SET ROLE regress_tuner_tb_owner;
SELECT tuner.create_study('tb_v', 'y', 'minimize', '{"seed": 1, "n_initial": 3}') > 0 AS created;
SELECT tuner.add_parameter('tb_v', 'x', 'float', 0, 1);
SELECT tuner.add_parameter('tb_v', 'k', 'categorical', choices => ARRAY['a', 'b'], default_value => 'a');
SELECT tuner.report((tuner.suggest_next('tb_v') ->> 'trial')::bigint, '{"y": 1.5}');
SELECT tuner.report((tuner.suggest_next('tb_v') ->> 'trial')::bigint, '{"y": 0.5}');
SELECT tuner.fail((tuner.suggest_next('tb_v') ->> 'trial')::bigint, 'broken');
SELECT tuner.create_view('tb_v', 'regress_tuner_tb_victim.tb_v');
SELECT tuner.create_study('tb_private', 'y') > 0 AS created;
SELECT tuner.add_parameter('tb_private', 'x', 'float', 0, 1);
SELECT tuner.report((tuner.suggest_next('tb_private') ->> 'trial')::bigint, '{"y": 3}');
SELECT tuner.grant_study('tb_v', 'regress_tuner_tb_attacker', 'write');
RESET ROLE;
SELECT id AS study_v FROM tuner.study WHERE name = 'tb_v' \gset
SELECT min(t.id) AS trial_v FROM tuner.trial t WHERE t.study_id = :study_v \gset
SELECT t.id AS failed_v FROM tuner.trial t WHERE t.study_id = :study_v AND t.state = 'failed' \gset
SELECT m.id AS metric_v FROM tuner.metric m WHERE m.study_id = :study_v AND m.name = 'y' \gset
SELECT value AS best_before FROM tuner.best('tb_v');

-- 6. Operators of the attacker's own, ahead of pg_catalog: "=" true and
-- "<>" false for text and bigint.  Every trigger still holds.
SET ROLE regress_tuner_tb_attacker;
CREATE FUNCTION regress_tuner_tb_evil.yes(text, text) RETURNS bool LANGUAGE sql AS 'SELECT true';
CREATE FUNCTION regress_tuner_tb_evil.no(text, text) RETURNS bool LANGUAGE sql AS 'SELECT false';
CREATE FUNCTION regress_tuner_tb_evil.yes(bigint, bigint) RETURNS bool LANGUAGE sql AS 'SELECT true';
CREATE FUNCTION regress_tuner_tb_evil.no(bigint, bigint) RETURNS bool LANGUAGE sql AS 'SELECT false';
CREATE OPERATOR regress_tuner_tb_evil.= (LEFTARG = text, RIGHTARG = text, FUNCTION = regress_tuner_tb_evil.yes);
CREATE OPERATOR regress_tuner_tb_evil.<> (LEFTARG = text, RIGHTARG = text, FUNCTION = regress_tuner_tb_evil.no);
CREATE OPERATOR regress_tuner_tb_evil.= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = regress_tuner_tb_evil.yes);
CREATE OPERATOR regress_tuner_tb_evil.<> (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = regress_tuner_tb_evil.no);
SET search_path = regress_tuner_tb_evil, pg_catalog, public;
SELECT 'running' = 'complete' AS shadowed;
-- trial_guard: a finished trial's state and configuration
SELECT regress_tuner_tb_try(format($$UPDATE tuner.trial SET state = 'running', config = '{"x": 0.001, "k": "a"}' WHERE id = %s$$, :trial_v));
-- observation_guard: a value for a failed trial; removing or changing
-- the objective is not even granted
SELECT regress_tuner_tb_try(format($$INSERT INTO tuner.observation (trial_id, metric_id, value) VALUES (%s, %s, -1e6)$$, :failed_v, :metric_v));
SELECT regress_tuner_tb_try(format($$DELETE FROM tuner.observation WHERE trial_id = %s$$, :trial_v));
SELECT regress_tuner_tb_try(format($$UPDATE tuner.observation SET value = -1e6 WHERE trial_id = %s$$, :trial_v));
-- trial_config_guard: an unknown key in a queued trial
SELECT regress_tuner_tb_try(format($$INSERT INTO tuner.trial (study_id, number, config, state, source) VALUES (%s, 50, '{"x": 0.5, "k": "a", "osd_class_dir": "/tmp"}', 'queued', 'manual')$$, :study_v));
-- study_settings_guard: an unchecked timeout
SELECT regress_tuner_tb_try($$UPDATE tuner.study SET settings = settings || '{"trial_timeout_s": 1e9}' WHERE name = 'tb_v'$$);
-- study_runner_guard: choosing what the server runs
SELECT regress_tuner_tb_try($$UPDATE tuner.study SET settings = settings || '{"runner": {"db_bench": "/bin/sh"}}' WHERE name = 'tb_v'$$);
-- metric_constraint_known: a bound on a metric no trial reported
SELECT regress_tuner_tb_try($$SELECT tuner.add_metric('tb_v', 'p99us', 'constraint', 'minimize', bound => 5)$$);
-- study_grant: written by grant_study and revoke_study only; through
-- their statements, still only by the study's owner
SELECT regress_tuner_tb_try(format($$INSERT INTO tuner.study_grant (study_id, grantee, privilege, owner) VALUES (%s, 'regress_tuner_tb_attacker', 'write', 'regress_tuner_tb_attacker')$$, :study_v));
SELECT regress_tuner_tb_try(format($$DELETE FROM tuner.study_grant WHERE study_id = %s$$, :study_v));
SELECT regress_tuner_tb_try(format($$SELECT tuner._grant_insert(%s, 'regress_tuner_tb_runner', 'write')$$, :study_v));
SELECT tuner._grant_forget(:study_v, 'regress_tuner_tb_attacker') AS grants_taken_back;
-- job_guard and study_view_guard: below, under the same search_path
RESET ROLE;
RESET search_path;
SELECT value AS best_after FROM tuner.best('tb_v');
SELECT number, state, config FROM tuner.trial WHERE study_id = :study_v ORDER BY number;
SELECT count(*) AS observations FROM tuner.observation o JOIN tuner.trial t ON t.id = o.trial_id
 WHERE t.study_id = :study_v;
SELECT settings FROM tuner.study WHERE id = :study_v;

-- One write path: what no function changes, nobody changes.
SET ROLE regress_tuner_tb_attacker;
SELECT regress_tuner_tb_try(format($$DELETE FROM tuner.trial WHERE study_id = %s$$, :study_v));
SELECT regress_tuner_tb_try(format($$UPDATE tuner.suggestion SET observed = '{}' WHERE trial_id = %s$$, :trial_v));
SELECT regress_tuner_tb_try($$DELETE FROM tuner.model$$);
SELECT regress_tuner_tb_try($$DELETE FROM tuner.study_event$$);
SELECT regress_tuner_tb_try($$UPDATE tuner.parameter_source SET level = 'x'$$);
SELECT regress_tuner_tb_try($$DELETE FROM tuner.parameter$$);
SELECT regress_tuner_tb_try($$DELETE FROM tuner.metric$$);
-- Models and suggestion records: written by the suggestion that made the
-- trial, in its transaction, and nothing else (a warm start reads the
-- latest model; replay reads the record).
SELECT regress_tuner_tb_try(format($$INSERT INTO tuner.model (study_id, trial_id, kind, n, lengthscales, outputscale, noise) VALUES (%s, %s, 'gp', 1, '{1e-300}', 1, 1)$$, :study_v, :trial_v));
SELECT regress_tuner_tb_try(format($$SELECT tuner._model_insert(ARRAY[jsonb_populate_record(NULL::tuner.model, '{"study_id": %s, "trial_id": %s, "kind": "gp", "n": 1, "lengthscales": [1e-300], "outputscale": 1, "noise": 1}')])$$, :study_v, :trial_v));
SELECT regress_tuner_tb_try(format($$SELECT tuner._suggestion_insert(jsonb_populate_record(s, '{"trial_id": %s}')) FROM tuner.suggestion s LIMIT 1$$, :trial_v));
SELECT regress_tuner_tb_try(format($$INSERT INTO tuner.suggestion SELECT * FROM tuner.suggestion WHERE trial_id = %s$$, :trial_v));
-- what tuner records about a run: the confirmation link, the context and
-- the disturbed flag agree with what tuner set
SELECT regress_tuner_tb_try(format($$UPDATE tuner.trial SET disturbed = true WHERE id = %s$$, :trial_v));
SELECT regress_tuner_tb_try(format($$UPDATE tuner.trial SET details = COALESCE(details, '{}') || '{"context": {"others_cpu_share": 2}}' WHERE id = %s$$, :trial_v));
SELECT regress_tuner_tb_try(format($$UPDATE tuner.trial SET details = COALESCE(details, '{}') || '{"context": {"others_cpu_share": 0.9}}' WHERE id = %s$$, :trial_v));
SELECT regress_tuner_tb_try(format($$UPDATE tuner.trial SET confirms = id, confirm_pair = 1 WHERE id = %s$$, :trial_v));
-- nor in the transaction of a suggestion of its own, for another study
BEGIN;
SELECT (tuner.suggest_next('tb_v') ->> 'trial') AS fresh \gset
SELECT regress_tuner_tb_try(format($$SELECT tuner._model_insert(ARRAY[jsonb_populate_record(NULL::tuner.model, '{"study_id": %s, "trial_id": %s, "kind": "gp", "n": 1, "lengthscales": [1], "outputscale": 1, "noise": 1}')])$$, :study_v + 1000000, :fresh));
ROLLBACK;
RESET ROLE;
SELECT count(*) AS trials_kept FROM tuner.trial WHERE study_id = :study_v;
SELECT count(*) AS models_of_the_trial FROM tuner.model WHERE trial_id = :trial_v;

-- 3. Runner input written straight into tuner.trial: only the study's
-- parameters, within their bounds and choices, the missing ones at their
-- defaults, with enqueue's errors.
SET ROLE regress_tuner_tb_attacker;
SELECT regress_tuner_tb_try(format($$INSERT INTO tuner.trial (study_id, number, config, state, source) VALUES (%s, 50, '{"x": 0.5, "plugin_dir": "/tmp"}', 'queued', 'manual')$$, :study_v));
SELECT regress_tuner_tb_try(format($$INSERT INTO tuner.trial (study_id, number, config, state, source) VALUES (%s, 50, '{"x": 7, "k": "a"}', 'queued', 'manual')$$, :study_v));
SELECT regress_tuner_tb_try(format($$INSERT INTO tuner.trial (study_id, number, config, state, source) VALUES (%s, 50, '{"x": "NaN", "k": "a"}', 'queued', 'manual')$$, :study_v));
SELECT regress_tuner_tb_try(format($$INSERT INTO tuner.trial (study_id, number, config, state, source) VALUES (%s, 50, '{"x": 0.5, "k": "c; rm -rf /"}', 'queued', 'manual')$$, :study_v));
SELECT regress_tuner_tb_try(format($$INSERT INTO tuner.trial (study_id, number, config, state, source) VALUES (%s, 50, '{"k": "b"}', 'queued', 'manual')$$, :study_v));
SELECT regress_tuner_tb_try(format($$INSERT INTO tuner.trial (study_id, number, config, state, source) VALUES (%s, 51, '{"x": 0.25}', 'queued', 'manual')$$, :study_v));
SELECT number, state, config FROM tuner.trial WHERE study_id = :study_v AND number > 2 ORDER BY number;
-- ... and a queued trial's configuration changed afterwards
SELECT regress_tuner_tb_try(format($$UPDATE tuner.trial SET config = config || '{"log_file": "/etc/passwd"}' WHERE study_id = %s AND number = 51$$, :study_v));
RESET ROLE;

-- And right before exec: a trial whose input is wrong however it got
-- there (here planted with the trigger off) fails without running.
SET ROLE regress_tuner_tb_runner;
SELECT tuner.register_runner('tb_cat', '/bin/cat');
SELECT tuner.create_study('tb_run', 'x', runner => 'tb_cat') > 0 AS created;
SELECT tuner.add_parameter('tb_run', 'x', 'float', 0, 1);
RESET ROLE;
ALTER TABLE tuner.trial DISABLE TRIGGER trial_config_guard;
INSERT INTO tuner.trial (study_id, number, config, state, source)
SELECT s.id, 1, '{"x": 0.5, "osd_class_dir": "/tmp/evil"}', 'queued', 'manual'
  FROM tuner.study s WHERE s.name = 'tb_run';
ALTER TABLE tuner.trial ENABLE TRIGGER trial_config_guard;
SET ROLE regress_tuner_tb_runner;
SELECT tuner.step('tb_run') ->> 'state' AS state;
SELECT number, state, error, details ->> 'exit' AS exit FROM tuner.trials WHERE study = 'tb_run';
-- a valid one runs (cat echoes the configuration: x is the objective)
SELECT tuner.enqueue('tb_run', '{"x": 0.75}') > 0 AS queued;
SELECT tuner.step('tb_run') ->> 'value' AS value;
RESET ROLE;
-- tuner-agent's claim, likewise: the planted trial is failed and the
-- agent is handed the next one
ALTER TABLE tuner.trial DISABLE TRIGGER trial_config_guard;
INSERT INTO tuner.trial (study_id, number, config, state, source)
SELECT s.id, 3, '{"x": 2}', 'queued', 'manual'
  FROM tuner.study s WHERE s.name = 'tb_run';
ALTER TABLE tuner.trial ENABLE TRIGGER trial_config_guard;
SET ROLE regress_tuner_tb_runner;
SELECT number FROM tuner.agent_claim('tb_run', 'tb-agent');
SELECT number, state, error FROM tuner.trials WHERE study = 'tb_run' ORDER BY number;
RESET ROLE;

-- 4. Job tampering: a job is written by tuner's functions only, and its
-- counts are its starter's.  tb_v has no runner, so the victim's running
-- job is made here as a superuser may (restoring a dump) in its name.
INSERT INTO tuner.job (study_id, trials, parallel, owner)
VALUES (:study_v, 2, 1, 'regress_tuner_tb_owner');
SELECT max(id) AS job_v FROM tuner.job WHERE study_id = :study_v \gset
SET ROLE regress_tuner_tb_owner;
-- no job without tuner.run, whose checks apply whatever inserts it
SELECT regress_tuner_tb_try(format($$INSERT INTO tuner.job (study_id, trials, parallel) VALUES (%s, 2, 1)$$, :study_v));
SELECT regress_tuner_tb_try(format($$SELECT tuner._job_insert(%s, 2, 1)$$, :study_v));
SELECT regress_tuner_tb_try($$SELECT tuner.run('tb_v', 2)$$);
RESET ROLE;
SET ROLE regress_tuner_tb_attacker;
SET search_path = regress_tuner_tb_evil, pg_catalog, public;
SELECT regress_tuner_tb_try(format($$INSERT INTO tuner.job (study_id, trials, parallel, owner) VALUES (%s, 2, 1, 'regress_tuner_tb_attacker')$$, :study_v));
SELECT regress_tuner_tb_try(format($$UPDATE tuner.job SET trials = 1000000 WHERE id = %s$$, :job_v));
SELECT regress_tuner_tb_try(format($$UPDATE tuner.job SET claimed = 0, parallel = 64 WHERE id = %s$$, :job_v));
SELECT regress_tuner_tb_try(format($$UPDATE tuner.job SET owner = 'regress_tuner_tb_attacker' WHERE id = %s$$, :job_v));
SELECT regress_tuner_tb_try(format($$DELETE FROM tuner.job WHERE id = %s$$, :job_v));
-- ... and through the functions that write jobs, the starter's counts
-- stay the starter's (job_guard)
SELECT regress_tuner_tb_try(format($$SELECT tuner._job_count_claim(%s)$$, :job_v));
SELECT regress_tuner_tb_try(format($$SELECT tuner._job_set_launched(%s, 64)$$, :job_v));
SELECT regress_tuner_tb_try(format($$SELECT tuner._job_count_worker_done(%s, NULL)$$, :job_v));
-- nor raise the timeouts its trials run under; lowering them is allowed
SELECT regress_tuner_tb_try($$UPDATE tuner.study SET settings = settings || '{"trial_timeout_s": 900000}' WHERE name = 'tb_v'$$);
SELECT regress_tuner_tb_try($$UPDATE tuner.study SET settings = settings || '{"lease_s": 100000}' WHERE name = 'tb_v'$$);
SELECT regress_tuner_tb_try($$UPDATE tuner.study SET settings = settings || '{"trial_timeout_s": 60}' WHERE name = 'tb_v'$$);
-- stopping it is allowed (tuner.stop), starting it again is not
SELECT tuner.stop('tb_v') AS stopped;
SELECT regress_tuner_tb_try(format($$UPDATE tuner.job SET stop_requested = false WHERE id = %s$$, :job_v));
RESET search_path;
RESET ROLE;
SELECT trials, parallel, launched, claimed, workers_done, stop_requested, state, owner
  FROM tuner.job WHERE id = :job_v;
-- the starter changes its own job through the functions, not directly,
-- and may raise its timeouts
SET ROLE regress_tuner_tb_owner;
SELECT regress_tuner_tb_try(format($$UPDATE tuner.job SET trials = 3 WHERE id = %s$$, :job_v));
SELECT regress_tuner_tb_try(format($$SELECT tuner._job_count_claim(%s)$$, :job_v));
SELECT regress_tuner_tb_try($$UPDATE tuner.study SET settings = settings || '{"trial_timeout_s": 900000}' WHERE name = 'tb_v'$$);
RESET ROLE;
SELECT claimed FROM tuner.job WHERE id = :job_v;

-- 5. transfer_from by UPDATE: the writer must see the source, the owner
-- must be allowed to read it, and so again at use.
SET ROLE regress_tuner_tb_attacker;
SELECT tuner.create_study('tb_a', 'y', 'minimize', '{"seed": 2, "n_initial": 2}') > 0 AS created;
SELECT tuner.add_parameter('tb_a', 'x', 'float', 0, 1);
SELECT regress_tuner_tb_try($$UPDATE tuner.study SET settings = settings || '{"transfer_from": ["tb_private"]}' WHERE name = 'tb_a'$$);
SELECT regress_tuner_tb_try($$UPDATE tuner.study SET settings = settings || '{"transfer_from": "tb_private"}' WHERE name = 'tb_a'$$);
-- the victim's tb_v: the attacker may read it, so it may transfer from it
SELECT regress_tuner_tb_try($$UPDATE tuner.study SET settings = settings || '{"transfer_from": ["tb_v"]}' WHERE name = 'tb_a'$$);
-- a victim's study it may write, from a source only the attacker reads
SELECT regress_tuner_tb_try($$UPDATE tuner.study SET settings = settings || '{"transfer_from": ["tb_a"]}' WHERE name = 'tb_v'$$);
RESET ROLE;
-- At use: the victim revokes; a superuser's suggestion for tb_a (which
-- sees every study) must not fit tb_v's trials.
SET ROLE regress_tuner_tb_owner;
SELECT tuner.revoke_study('tb_v', 'regress_tuner_tb_attacker');
RESET ROLE;
SELECT regress_tuner_tb_try($$SELECT tuner.suggest_next('tb_a')$$);
SELECT count(*) AS tb_a_trials FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id WHERE s.name = 'tb_a';
-- a superuser's own setting is checked against the study owner too
SELECT regress_tuner_tb_try($$UPDATE tuner.study SET settings = settings || '{"transfer_from": ["tb_private"]}' WHERE name = 'tb_a'$$);
UPDATE tuner.study SET settings = settings - 'transfer_from' WHERE name = 'tb_a';

-- 1. tuner.study_view: written by tuner's functions only; through them,
-- a row naming a view that is not the writer's is refused.
SET ROLE regress_tuner_tb_attacker;
SELECT regress_tuner_tb_try(format($$INSERT INTO tuner.study_view (study_id, view_schema, view_name) SELECT id, 'regress_tuner_tb_evil', 'mine' FROM tuner.study WHERE name = 'tb_a'$$));
SELECT regress_tuner_tb_try(format($$INSERT INTO tuner.study_view (study_id, view_schema, view_name, owner) SELECT id, 'regress_tuner_tb_evil', 'later', 'regress_tuner_tb_owner' FROM tuner.study WHERE name = 'tb_a'$$));
SELECT regress_tuner_tb_try(format($$SELECT tuner._view_insert(id, 'regress_tuner_tb_victim', 'tb_v') FROM tuner.study WHERE name = 'tb_a'$$));
SELECT regress_tuner_tb_try(format($$SELECT tuner._view_insert(id, 'pg_catalog', 'pg_roles') FROM tuner.study WHERE name = 'tb_a'$$));
-- a name nobody has taken yet is accepted; later someone else's view
-- of that name is neither rebuilt nor dropped through it
SELECT regress_tuner_tb_try(format($$SELECT tuner._view_insert(id, 'regress_tuner_tb_victim', 'later') FROM tuner.study WHERE name = 'tb_a'$$));
SELECT regress_tuner_tb_try($$UPDATE tuner.study_view SET view_name = 'tb_v' WHERE view_name = 'later'$$);
SELECT regress_tuner_tb_try($$DELETE FROM tuner.study_view WHERE view_name = 'tb_v'$$);
-- a row is forgotten only once its view is gone
SELECT tuner._view_forget('regress_tuner_tb_victim', 'tb_v') AS forgotten;
RESET ROLE;
SET ROLE regress_tuner_tb_owner;
CREATE VIEW regress_tuner_tb_victim.later AS SELECT 42 AS answer;
RESET ROLE;
-- a privileged session changes the attacker's study: a warning, no harm
SELECT tuner.add_parameter('tb_a', 'z', 'float', 0, 1);
SELECT * FROM regress_tuner_tb_victim.later;
-- nor does a privileged create_view of that name
SELECT regress_tuner_tb_try($$SELECT tuner.create_view('tb_a', 'regress_tuner_tb_victim.later')$$);
SELECT * FROM regress_tuner_tb_victim.later;
SET ROLE regress_tuner_tb_attacker;
SELECT tuner.drop_study('tb_a');
RESET ROLE;
SELECT * FROM regress_tuner_tb_victim.later;
SELECT count(*) AS tb_v_view_rows FROM regress_tuner_tb_victim.tb_v;

-- A confirmation run stays in the trial and pair it was queued for, even
-- for the study's owner.
SELECT tuner.confirm('tb_v', :trial_v, pairs => 2, paired => true) AS queued;
SET ROLE regress_tuner_tb_owner;
SELECT regress_tuner_tb_try(format($$UPDATE tuner.trial SET confirm_pair = 3 WHERE confirms = %s$$, :trial_v));
RESET ROLE;

-- Clean up.
SELECT tuner.drop_study(name) FROM tuner.study WHERE name IN ('tb_v', 'tb_private', 'tb_run') ORDER BY name;
SELECT tuner.drop_runner('tb_cat');
DROP SCHEMA regress_tuner_tb_evil CASCADE;
DROP SCHEMA regress_tuner_tb_victim CASCADE;
DROP FUNCTION public.regress_tuner_tb_try(text);
DROP OWNED BY regress_tuner_tb_owner, regress_tuner_tb_attacker, regress_tuner_tb_runner;
DROP ROLE regress_tuner_tb_owner, regress_tuner_tb_attacker, regress_tuner_tb_runner;
