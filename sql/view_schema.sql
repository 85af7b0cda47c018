-- view_schema: tuner.create_view with its default name, as README's
-- quickstart calls it, by a role in tuner_user (not a superuser).  The
-- view goes to the caller's own schema (named like the role, as "$user"
-- finds it), else to public if the caller may create there; never to
-- schema tuner, which a tuner_user may not create in; and only a role
-- that may read (and, to register it, write) the study gets a view of
-- it.  Before 0.3.0 the default was schema tuner, and every tuner_user
-- got "permission denied to create a view in schema tuner".
-- Roles regress_tuner_vs_*, dropped at the end.
\set VERBOSITY default
\set SHOW_CONTEXT never

CREATE ROLE regress_tuner_vs_alice LOGIN IN ROLE tuner_user;
CREATE ROLE regress_tuner_vs_bob LOGIN IN ROLE tuner_user;

SET ROLE regress_tuner_vs_alice;
SET search_path = "$user", public;
SELECT tuner.create_study('vs_quick', objective => 'seconds', direction => 'minimize',
						  settings => '{"seed": 42}') > 0 AS created;
SELECT tuner.add_parameter('vs_quick', 'threads', 'int', low => 1, high => 16, default_value => '4');
SELECT tuner.add_parameter('vs_quick', 'compress', 'bool', default_value => 'false');
-- no schema of her own yet, and she may not create in public
SELECT tuner.create_view('vs_quick');
-- schema tuner stays closed to her, named or not
SELECT tuner.create_view('vs_quick', 'tuner.vs_quick_trials');
SELECT tuner.create_view('vs_quick', 'mine');
RESET ROLE;

-- with a schema of her own
CREATE SCHEMA AUTHORIZATION regress_tuner_vs_alice;
SET ROLE regress_tuner_vs_alice;
SET search_path = "$user", public;
SELECT tuner.create_view('vs_quick');
SELECT tuner.create_view('vs_quick', 'mine');
SELECT tuner.report((tuner.suggest_next('vs_quick') ->> 'trial')::bigint, '{"seconds": 12.5}');
SELECT number, source, threads, compress, seconds FROM vs_quick_trials;
SELECT number, threads FROM mine;
SELECT view_schema, view_name FROM tuner.study_view ORDER BY 1, 2;
-- her own schema whatever her search_path says (views are made with the
-- extension's fixed search_path)
SET search_path = public;
SELECT tuner.create_view('vs_quick', 'later');
RESET ROLE;

-- Bob, with a schema of his own, may not read her study: no view of it,
-- in his schema or hers.
CREATE SCHEMA AUTHORIZATION regress_tuner_vs_bob;
SET ROLE regress_tuner_vs_bob;
SET search_path = "$user", public;
SELECT tuner.create_view('vs_quick');
SELECT tuner.create_view('vs_quick', 'regress_tuner_vs_alice.stolen');
RESET ROLE;
-- Granted read, he still gets no view of it: views are registered with
-- the study, which only its writers change.  Granted write, he gets his
-- own, in his schema; still not in hers.
SET ROLE regress_tuner_vs_alice;
SELECT tuner.grant_study('vs_quick', 'regress_tuner_vs_bob', 'read');
RESET ROLE;
SET ROLE regress_tuner_vs_bob;
SET search_path = "$user", public;
SELECT tuner.create_view('vs_quick');
RESET ROLE;
SET ROLE regress_tuner_vs_alice;
SELECT tuner.grant_study('vs_quick', 'regress_tuner_vs_bob', 'write');
RESET ROLE;
SET ROLE regress_tuner_vs_bob;
SET search_path = "$user", public;
SELECT tuner.create_view('vs_quick');
SELECT tuner.create_view('vs_quick', 'regress_tuner_vs_alice.stolen');
SELECT number, threads, seconds FROM vs_quick_trials;
RESET ROLE;

-- A superuser's default is still schema tuner.
SET search_path = "$user", public;
SELECT tuner.create_view('vs_quick');
DROP VIEW tuner.vs_quick_trials;
RESET search_path;

-- Clean up.
SELECT tuner.drop_study('vs_quick');
DROP SCHEMA regress_tuner_vs_alice CASCADE;
DROP SCHEMA regress_tuner_vs_bob CASCADE;
DROP OWNED BY regress_tuner_vs_alice, regress_tuner_vs_bob;
DROP ROLE regress_tuner_vs_alice, regress_tuner_vs_bob;
