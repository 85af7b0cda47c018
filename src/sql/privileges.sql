/*
 * privileges.sql
 *	  Roles, grants and row-level security.  tuner_user may make studies and
 *	  write them through tuner's functions; tuner_reader may read what it was
 *	  granted.  Table privileges are the least tuner's functions need as their
 *	  caller: every write of a study goes through a function that checks it.
 */

-- Security (issue 8): who may see and change a study, and who may make the
-- server run programs.
--
-- Row-level security on every table that holds a study's data: a study and
-- everything of it (parameters, metrics, trials, observations, models,
-- suggestions, jobs, events, bound changes, constraints, catalog imports,
-- registered views and grants) is visible to its owner, to the roles it
-- was granted to (tuner.grant_study, 'read' or 'write') and to members of
-- tuner_reader (BI tools: every study, read only).  Only the owner and
-- 'write' grantees change it; only the owner drops or grants it.  Being
-- "the owner" or "a grantee" includes having that role's privileges
-- (pg_has_role USAGE).  Superusers and the tables' owner (the role that
-- ran CREATE EXTENSION) bypass row-level security, as always.  Roles use
-- tuner through the group tuner_user.  The extension's views are
-- security_invoker, so they show each caller what it may see; the typed
-- views of tuner.create_view run as their owner (see tuner._build_view).
--
-- Programs: register_runner, run and step check pg_execute_server_program
-- (tuner_check_program_privilege_for, in C); so do creating a study with
-- a runner or a preset, choosing a study's runner and changing its runner
-- settings (they name paths and programs the runner uses), by any route
-- (trigger study_runner_guard); and the runner table accepts rows only
-- from such roles.  A background worker runs as the role that called
-- tuner.run and checks that role again before every exec (runner_exec.c).
--
-- No function of the extension is SECURITY DEFINER, and none builds a
-- shell command: a runner is exec'd with the fixed argv of its row
-- (runner_exec.c), dynamic SQL quotes with %I/%L.
--
-- pg_dump leaves these policies and grants to CREATE EXTENSION (checked
-- with pg_dump 15.20 by tests/dump_restore.sh); the groups are roles of
-- the cluster, made here when missing.
-------------------------------------------------------------------------------

-- Two groups (cluster-wide, kept when the extension is dropped):
-- tuner_user may use tuner (create studies, work on the studies it owns
-- or was granted); tuner_reader reads every study and changes none.
DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'tuner_user') THEN
		CREATE ROLE tuner_user NOLOGIN;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'tuner_reader') THEN
		CREATE ROLE tuner_reader NOLOGIN;
	END IF;
END
$$;

-- Table privileges go to the two groups; the policies below decide which
-- rows.  (Functions keep EXECUTE for PUBLIC, but without USAGE on the
-- schema nobody else reaches them.)
GRANT USAGE ON SCHEMA tuner TO tuner_user, tuner_reader;

GRANT USAGE ON ALL SEQUENCES IN SCHEMA tuner TO tuner_user;

GRANT SELECT ON ALL TABLES IN SCHEMA tuner TO tuner_user, tuner_reader;

-- tuner.study: owner is not updatable (UPDATE on the other columns only).
ALTER TABLE tuner.study ENABLE ROW LEVEL SECURITY;

GRANT INSERT, DELETE ON tuner.study TO tuner_user;

GRANT UPDATE (name, objective, direction, algorithm, settings, seed, runner)
	ON tuner.study TO tuner_user;

CREATE POLICY study_read ON tuner.study FOR SELECT
	USING (tuner._has_role(owner) OR tuner._has_role('tuner_reader')
		   OR EXISTS (SELECT 1 FROM tuner.study_grant g
					   WHERE g.study_id = id AND tuner._has_role(g.grantee)));

CREATE POLICY study_insert ON tuner.study FOR INSERT
	WITH CHECK (tuner._has_role(owner));

CREATE POLICY study_update ON tuner.study FOR UPDATE
	USING (tuner._has_role(owner)
		   OR EXISTS (SELECT 1 FROM tuner.study_grant g
					   WHERE g.study_id = id AND g.privilege = 'write'
						 AND tuner._has_role(g.grantee)))
	WITH CHECK (tuner._has_role(owner)
		   OR EXISTS (SELECT 1 FROM tuner.study_grant g
					   WHERE g.study_id = id AND g.privilege = 'write'
						 AND tuner._has_role(g.grantee)));

CREATE POLICY study_delete ON tuner.study FOR DELETE
	USING (tuner._has_role(owner));

-- tuner.study_grant: seen by the grantee and the owner, made and removed
-- by the owner (tuner.grant_study, tuner.revoke_study).
ALTER TABLE tuner.study_grant ENABLE ROW LEVEL SECURITY;

GRANT INSERT, DELETE ON tuner.study_grant TO tuner_user;

CREATE POLICY study_grant_read ON tuner.study_grant FOR SELECT
	USING (tuner._has_role(grantee) OR tuner._has_role(owner));

CREATE POLICY study_grant_insert ON tuner.study_grant FOR INSERT
	WITH CHECK (tuner._has_role(owner));

CREATE POLICY study_grant_delete ON tuner.study_grant FOR DELETE
	USING (tuner._has_role(owner));

-- The tables with a study_id: read with the study, written by its writers.
-- The policies are written out, not wrapped in functions: a SQL function
-- with a subquery is never inlined, and calling one for every row made a
-- study of 1000 trials ten times slower for a non-superuser.  As "IN
-- (uncorrelated subquery)" each is a hashed subplan: the visible (or
-- writable) studies are found once per statement, through tuner.study's
-- own policy.
DO $$
DECLARE
	t text;
	v_read text := 'study_id IN (SELECT s.id FROM tuner.study s)';
	v_write text := 'study_id IN (SELECT s.id FROM tuner.study s'
		' WHERE tuner._has_role(s.owner)'
		' OR EXISTS (SELECT 1 FROM tuner.study_grant g WHERE g.study_id = s.id'
		' AND g.privilege = ''write'' AND tuner._has_role(g.grantee)))';
BEGIN
	FOREACH t IN ARRAY ARRAY['parameter', 'metric', 'trial', 'model', 'job',
							 'study_event', 'bound_change', 'study_view',
							 'parameter_constraint', 'catalog_import',
							 'catalog_drop']
	LOOP
		EXECUTE pg_catalog.format('ALTER TABLE tuner.%I ENABLE ROW LEVEL SECURITY', t);
		EXECUTE pg_catalog.format('GRANT INSERT, UPDATE, DELETE ON tuner.%I TO tuner_user', t);
		EXECUTE pg_catalog.format('CREATE POLICY %I ON tuner.%I FOR SELECT USING (%s)',
								  t || '_read', t, v_read);
		EXECUTE pg_catalog.format('CREATE POLICY %I ON tuner.%I FOR INSERT WITH CHECK (%s)',
								  t || '_insert', t, v_write);
		EXECUTE pg_catalog.format('CREATE POLICY %I ON tuner.%I FOR UPDATE USING (%s) WITH CHECK (%s)',
								  t || '_update', t, v_write, v_write);
		EXECUTE pg_catalog.format('CREATE POLICY %I ON tuner.%I FOR DELETE USING (%s)',
								  t || '_delete', t, v_write);
	END LOOP;
END
$$;

-- The tables of a trial (observation, suggestion) and of a parameter
-- (parameter_source) follow the study of their trial or parameter, also
-- as hashed subplans.  Not as a correlated EXISTS per row: the planner
-- costs that at thousands per row, and a plan over a few hundred rows
-- then crossed jit_above_cost; JIT compilation took 0.7-2 s of a 1 ms
-- query (measured on a loaded 2-core machine).
DO $$
DECLARE
	t text;
	v_read text;
	v_write text;
	v_writable text := 'IN (SELECT s.id FROM tuner.study s'
		' WHERE tuner._has_role(s.owner)'
		' OR EXISTS (SELECT 1 FROM tuner.study_grant g WHERE g.study_id = s.id'
		' AND g.privilege = ''write'' AND tuner._has_role(g.grantee)))';
BEGIN
	FOREACH t IN ARRAY ARRAY['observation', 'suggestion', 'parameter_source']
	LOOP
		IF t = 'parameter_source' THEN
			v_read := 'parameter_id IN (SELECT p.id FROM tuner.parameter p)';
			v_write := 'parameter_id IN (SELECT p.id FROM tuner.parameter p WHERE p.study_id ' || v_writable || ')';
		ELSE
			v_read := 'trial_id IN (SELECT x.id FROM tuner.trial x)';
			v_write := 'trial_id IN (SELECT x.id FROM tuner.trial x WHERE x.study_id ' || v_writable || ')';
		END IF;
		EXECUTE pg_catalog.format('ALTER TABLE tuner.%I ENABLE ROW LEVEL SECURITY', t);
		EXECUTE pg_catalog.format('GRANT INSERT, UPDATE, DELETE ON tuner.%I TO tuner_user', t);
		EXECUTE pg_catalog.format('CREATE POLICY %I ON tuner.%I FOR SELECT USING (%s)',
								  t || '_read', t, v_read);
		EXECUTE pg_catalog.format('CREATE POLICY %I ON tuner.%I FOR INSERT WITH CHECK (%s)',
								  t || '_insert', t, v_write);
		EXECUTE pg_catalog.format('CREATE POLICY %I ON tuner.%I FOR UPDATE USING (%s) WITH CHECK (%s)',
								  t || '_update', t, v_write, v_write);
		EXECUTE pg_catalog.format('CREATE POLICY %I ON tuner.%I FOR DELETE USING (%s)',
								  t || '_delete', t, v_write);
	END LOOP;
END
$$;

-- tuner.runner: everyone reads the registered runners; only roles that may
-- run programs register them, and change or drop only their own.
ALTER TABLE tuner.runner ENABLE ROW LEVEL SECURITY;

GRANT INSERT, UPDATE, DELETE ON tuner.runner TO tuner_user;

CREATE POLICY runner_read ON tuner.runner FOR SELECT USING (true);

CREATE POLICY runner_insert ON tuner.runner FOR INSERT
	WITH CHECK (tuner._may_run_programs() AND tuner._has_role(owner));

CREATE POLICY runner_update ON tuner.runner FOR UPDATE
	USING (tuner._may_run_programs() AND tuner._has_role(owner))
	WITH CHECK (tuner._may_run_programs() AND tuner._has_role(owner));

CREATE POLICY runner_delete ON tuner.runner FOR DELETE
	USING (tuner._may_run_programs() AND tuner._has_role(owner));

ALTER TABLE tuner.preset ENABLE ROW LEVEL SECURITY;

GRANT SELECT ON tuner.preset TO tuner_user, tuner_reader;

-- (written by create_preset and drop_preset, which run as their caller;
-- never changed in place)
GRANT INSERT (name, owner, definition), DELETE ON tuner.preset TO tuner_user;

CREATE POLICY preset_read ON tuner.preset FOR SELECT
	USING (owner IS NULL OR tuner._has_role(owner));

CREATE POLICY preset_insert ON tuner.preset FOR INSERT
	WITH CHECK (owner IS NOT NULL AND tuner._has_role(owner));

CREATE POLICY preset_delete ON tuner.preset FOR DELETE
	USING (owner IS NOT NULL AND tuner._has_role(owner));

GRANT SELECT ON tuner.presets TO tuner_user, tuner_reader;

-- Read with the trial's study, written (through report_progress only,
-- bookkeeping_writes.sql) by its writers.
ALTER TABLE tuner.trial_progress ENABLE ROW LEVEL SECURITY;

GRANT SELECT ON tuner.trial_progress TO tuner_user, tuner_reader;

GRANT INSERT ON tuner.trial_progress TO tuner_user;

CREATE POLICY trial_progress_read ON tuner.trial_progress FOR SELECT
	USING (trial_id IN (SELECT x.id FROM tuner.trial x));

CREATE POLICY trial_progress_insert ON tuner.trial_progress FOR INSERT
	WITH CHECK (trial_id IN (SELECT x.id FROM tuner.trial x WHERE x.study_id IN (
		SELECT s.id FROM tuner.study s
		 WHERE tuner._has_role(s.owner)
			OR EXISTS (SELECT 1 FROM tuner.study_grant g WHERE g.study_id = s.id
						  AND g.privilege = 'write' AND tuner._has_role(g.grantee)))));

-------------------------------------------------------------------------------
-- tuner_user keeps only the table privileges tuner's own functions use.
--
-- tuner's functions run as their caller, so tuner_user holds the table
-- privileges they need, and row-level security narrows them to the
-- studies a role may write.  It held more than that: UPDATE and DELETE on
-- tables that no function ever changes, so a write grantee could delete
-- another's trials, rewrite the record of what a suggestion saw, or
-- remove the event log.  Those go: what remains is what the API itself
-- writes, each guarded by its trigger.  Rows still go with their study,
-- trial or parameter: foreign-key cascades run as the tables' owner.
-------------------------------------------------------------------------------

-- Written once, never changed or removed by a function: the record of
-- what happened.
REVOKE UPDATE, DELETE ON tuner.observation, tuner.model, tuner.suggestion,
	tuner.study_event, tuner.bound_change, tuner.parameter_source
	FROM tuner_user;

-- Changed, never removed, by a function: trials, jobs, parameters,
-- metrics, catalog imports.
REVOKE DELETE ON tuner.trial, tuner.job, tuner.parameter, tuner.metric,
	tuner.catalog_import, tuner.parameter_constraint
	FROM tuner_user;

-- Made and forgotten, never changed: a study's views; a runner is
-- registered and dropped, never changed in place.
REVOKE UPDATE ON tuner.study_view, tuner.runner FROM tuner_user;
