-- Leases and heartbeats (issue 8): suggest_next(study, worker) is
-- idempotent per worker, heartbeats renew a running trial's lease, expired
-- leases are reaped (by suggest_next, report, heartbeat, tuner.progress
-- and tuner.reap) and retried up to max_retries, a report and a reap of
-- one trial exclude each other, background workers renew their leases.
\set SHOW_CONTEXT never
-- Trial ids appear in error messages: make them independent of other tests.
SELECT setval('tuner.trial_id_seq', 9000, false) IS NOT NULL AS restarted;

SELECT tuner.create_study('lease', 'y', 'minimize', '{"seed": 5, "lease_s": 60}') > 0 AS created;
SELECT tuner.add_parameter('lease', 'x', 'float', 0, 10);

-- One trial per worker; asking again gives the same trial back.
SELECT tuner.suggest_next('lease', 'a') AS a1 \gset
SELECT tuner.suggest_next('lease', 'b') AS b1 \gset
SELECT (:'a1'::jsonb ->> 'trial') <> (:'b1'::jsonb ->> 'trial') AS different_trials,
       :'a1'::jsonb ->> 'params' <> :'b1'::jsonb ->> 'params' AS different_params;
SELECT tuner.suggest_next('lease', 'a') = :'a1'::jsonb AS same_for_a,
       tuner.suggest_next('lease', 'b') = :'b1'::jsonb AS same_for_b;
-- The worker is recorded and the lease taken on the database clock.
SELECT number, state, worker, lease_expires_at - heartbeat_at AS lease,
       heartbeat_at >= started_at AS after_start, retry_of
  FROM tuner.trials WHERE study = 'lease' ORDER BY number;
-- The one-argument form still hands out new trials, with a lease too.
SELECT (tuner.suggest_next('lease') ->> 'trial')::bigint AS c1 \gset
SELECT number, worker, lease_expires_at - heartbeat_at AS lease
  FROM tuner.trials WHERE trial = :c1;

-- A heartbeat moves the lease on.
SELECT lease_expires_at AS before FROM tuner.trial WHERE id = (:'a1'::jsonb ->> 'trial')::bigint \gset
SELECT pg_sleep(0.05);
SELECT tuner.heartbeat((:'a1'::jsonb ->> 'trial')::bigint) > :'before'::timestamptz AS moved;
SELECT lease_expires_at > :'before'::timestamptz AS stored,
       lease_expires_at - heartbeat_at AS lease
  FROM tuner.trial WHERE id = (:'a1'::jsonb ->> 'trial')::bigint;
-- Once a's trial is reported, a gets a new one.
SELECT tuner.report((:'a1'::jsonb ->> 'trial')::bigint, '{"y": 1}');
SELECT tuner.suggest_next('lease', 'a') ->> 'trial' <> :'a1'::jsonb ->> 'trial' AS new_trial;
SELECT worker, count(*) FILTER (WHERE state = 'running') AS running,
       count(*) AS trials
  FROM tuner.trials WHERE study = 'lease' GROUP BY worker ORDER BY worker;

-- An expired lease is reaped by the next suggest_next, and the retry (same
-- configuration, retry_of) is handed out first.
SELECT tuner.create_study('short', 'y', 'minimize', '{"seed": 6, "lease_s": 0.2}') > 0 AS created;
SELECT tuner.add_parameter('short', 'x', 'float', 0, 10);
SELECT (tuner.suggest_next('short', 'w1') ->> 'trial')::bigint AS s1 \gset
SELECT pg_sleep(0.3);
SELECT (tuner.suggest_next('short', 'w2') ->> 'trial')::bigint AS s2 \gset
SELECT trial = :s1 AS first, number, state, error, worker, retry_of = :s1 AS retries_first,
       finished_at >= lease_expires_at AS after_expiry
  FROM tuner.trials WHERE study = 'short' ORDER BY number;
SELECT (SELECT params FROM tuner.trials WHERE trial = :s1)
     = (SELECT params FROM tuner.trials WHERE trial = :s2) AS same_config;
-- The reaped trial can be neither reported nor renewed.
SELECT tuner.report(:s1, '{"y": 1}');
SELECT tuner.heartbeat(:s1);
-- tuner.reap() finds the retry expired too; with max_retries 1 (the
-- default) it is not retried again.
SELECT pg_sleep(0.3);
SELECT tuner.reap() >= 1 AS reaped;
SELECT tuner.reap('short') AS reaped_again;
SELECT number, state, error, retry_of = :s1 AS retries_first
  FROM tuner.trials WHERE study = 'short' ORDER BY number;
-- A report reaps first: a late report of an expired trial is refused (its
-- error rolls the reap back too; the next reap marks the trial).
SELECT (tuner.suggest_next('short', 'w3') ->> 'trial')::bigint AS s3 \gset
SELECT pg_sleep(0.3);
SELECT tuner.report(:s3, '{"y": 2}');
SELECT tuner.reap('short') AS reaped;
SELECT number, state, error, retry_of = :s3 AS retries_s3
  FROM tuner.trials WHERE study = 'short' AND number >= 3 ORDER BY number;
-- A heartbeat of any trial reaps its study: an expired trial of the same
-- study is interrupted (and its retry queued) while this one is renewed.
UPDATE tuner.trial SET lease_expires_at = clock_timestamp() - interval '1 s' WHERE id = :c1;
SELECT tuner.heartbeat((:'b1'::jsonb ->> 'trial')::bigint) > clock_timestamp() AS renewed;
SELECT state, error FROM tuner.trial WHERE id = :c1;
SELECT tuner.suggest_next('lease', 'c') -> 'params' = (SELECT config FROM tuner.trial WHERE id = :c1) AS retry_handed_out;
SELECT number, state, worker, retry_of = :c1 AS retries_c1
  FROM tuner.trials WHERE study = 'lease' ORDER BY number;

-- max_retries 0: no retry; max_retries 2: a lineage of two retries.
SELECT tuner.create_study('noretry', 'y', 'minimize', '{"seed": 7, "lease_s": 0.2, "max_retries": 0}') > 0 AS created;
SELECT tuner.add_parameter('noretry', 'x', 'float', 0, 10);
SELECT tuner.suggest_next('noretry', 'w') IS NOT NULL AS suggested;
SELECT pg_sleep(0.3);
SELECT tuner.reap('noretry') AS reaped;
SELECT number, state, error, retry_of FROM tuner.trials WHERE study = 'noretry' ORDER BY number;

SELECT tuner.create_study('tworetry', 'y', 'minimize', '{"seed": 8, "lease_s": 0.2, "max_retries": 2}') > 0 AS created;
SELECT tuner.add_parameter('tworetry', 'x', 'float', 0, 10);
SELECT tuner.suggest_next('tworetry', 'w') IS NOT NULL AS suggested;
SELECT pg_sleep(0.3);
SELECT tuner.reap('tworetry') AS reaped;
SELECT tuner.suggest_next('tworetry', 'w') IS NOT NULL AS suggested;
SELECT pg_sleep(0.3);
SELECT tuner.reap('tworetry') AS reaped;
SELECT tuner.suggest_next('tworetry', 'w') IS NOT NULL AS suggested;
SELECT pg_sleep(0.3);
SELECT tuner.reap('tworetry') AS reaped;
SELECT t.number, t.state, r.number AS retry_of_number,
       t.params = first_value(t.params) OVER (ORDER BY t.number) AS same_config
  FROM tuner.trials t LEFT JOIN tuner.trial r ON r.id = t.retry_of
 WHERE t.study = 'tworetry' ORDER BY t.number;
-- A new suggestion after the lineage ended is a fresh configuration.
SELECT (tuner.suggest_next('tworetry', 'w') ->> 'trial')::bigint AS t4 \gset
SELECT number, state, retry_of FROM tuner.trials WHERE trial = :t4;

-- tuner.progress reaps before it lists.
SELECT tuner.create_study('prog', 'y', 'minimize', '{"seed": 9, "lease_s": 0.2, "max_retries": 0}') > 0 AS created;
SELECT tuner.add_parameter('prog', 'x', 'float', 0, 10);
SELECT tuner.suggest_next('prog', 'w') IS NOT NULL AS suggested;
SELECT count(*) AS listed FROM tuner.progress WHERE study = 'prog';
SELECT pg_sleep(0.3);
SELECT count(*) AS listed FROM tuner.progress WHERE study = 'prog';
SELECT state, error FROM tuner.trials WHERE study = 'prog';

-- The race: a report and a reap of one expired trial, in two sessions.
-- Whichever locks the trial first wins; the other sees it finished.
CREATE EXTENSION IF NOT EXISTS dblink;
CREATE FUNCTION public.lease_try_report(trial bigint) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM tuner.report(trial, '{"y": 3}');
	RETURN 'reported';
EXCEPTION WHEN object_not_in_prerequisite_state THEN
	RETURN SQLERRM;
END;
$$;
CREATE FUNCTION public.lease_wait_for_lock() RETURNS bool
LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1 .. 200 LOOP
		PERFORM pg_stat_clear_snapshot();
		IF EXISTS (SELECT 1 FROM pg_stat_activity
					WHERE wait_event_type = 'Lock' AND query LIKE '%lease_try_report%'
					  AND pid <> pg_backend_pid()) THEN
			RETURN true;
		END IF;
		PERFORM pg_sleep(0.05);
	END LOOP;
	RETURN false;
END;
$$;
SELECT dblink_connect('other', format('dbname=%s port=%s host=%s', current_database(),
       current_setting('port'), split_part(current_setting('unix_socket_directories'), ',', 1)));
SELECT tuner.create_study('race', 'y', 'minimize', '{"seed": 10, "lease_s": 1, "max_retries": 0}') > 0 AS created;
SELECT tuner.add_parameter('race', 'x', 'float', 0, 10);
-- The reaper first: it holds the trial while the report waits, then commits.
SELECT (tuner.suggest_next('race', 'w1') ->> 'trial')::bigint AS r1 \gset
SELECT pg_sleep(1.1);
BEGIN;
SELECT tuner.reap('race') AS reaped;
SELECT dblink_send_query('other', format('SELECT public.lease_try_report(%s)', :r1));
SELECT public.lease_wait_for_lock() AS report_waits;
COMMIT;
SELECT * FROM dblink_get_result('other') AS r(outcome text);
SELECT * FROM dblink_get_result('other') AS r(outcome text);
-- The report first: it holds the trial past its lease; the reaper skips it.
SELECT (tuner.suggest_next('race', 'w2') ->> 'trial')::bigint AS r2 \gset
BEGIN;
SELECT public.lease_try_report(:r2);
SELECT pg_sleep(1.1);
SELECT * FROM dblink('other', 'SELECT tuner.reap(''race'')') AS r(reaped int);
COMMIT;
SELECT tuner.reap('race') AS reaped;
-- Either reported or reaped, never both.
SELECT number, state, error, value FROM tuner.trials WHERE study = 'race' ORDER BY number;
SELECT count(*) AS both FROM tuner.trial t
 WHERE t.state <> 'complete' AND EXISTS (SELECT 1 FROM tuner.observation o WHERE o.trial_id = t.id);
SELECT dblink_disconnect('other');

-- Background workers renew their trial's lease while the runner runs: a
-- runner of 10 s outlives a 7 s lease, and tuner.reap() during the run
-- leaves it alone.
SELECT tuner.register_runner('lease_sleep', '/bin/sh',
       ARRAY['-c', 'cat >/dev/null; sleep 10; echo ''{"y": 4}''']);
SELECT tuner.create_study('bg', 'y', 'minimize', '{"seed": 11, "lease_s": 7, "max_retries": 0}',
       runner => 'lease_sleep') > 0 AS created;
SELECT tuner.add_parameter('bg', 'x', 'float', 0, 10);
SELECT tuner.run('bg', 1);
DO $$
DECLARE
	reaped int := 0;
BEGIN
	FOR i IN 1 .. 120 LOOP
		reaped := reaped + tuner.reap('bg');
		EXIT WHEN EXISTS (SELECT 1 FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
						   WHERE s.name = 'bg' AND t.state <> 'running');
		PERFORM pg_sleep(0.25);
	END LOOP;
	RAISE NOTICE 'reaped while running: %', reaped;
END;
$$;
SELECT number, state, value, heartbeat_at - started_at >= interval '4 s' AS renewed
  FROM tuner.trials WHERE study = 'bg' ORDER BY number;

-- Errors.
SELECT tuner.suggest_next(NULL, 'w');
SELECT tuner.suggest_next('lease', NULL);
SELECT tuner.suggest_next('nope', 'w');
SELECT tuner.suggest_next('lease', '');
SELECT tuner.suggest_next('lease', '   ');
SELECT tuner.suggest_next('lease', repeat('w', 201));
SELECT tuner.heartbeat(NULL);
SELECT tuner.heartbeat(-1);
SELECT tuner.heartbeat(:s2);
SELECT tuner.reap('nope');
SELECT tuner.reap('');
-- Without lease_s, a plain ask/tell trial has no lease (nobody promised
-- to renew it, and reaping it would lose its report), a named worker's
-- trial has the default 300 s, and a heartbeat opts a trial in.
SELECT tuner.create_study('nolease', 'y', 'minimize', '{"seed": 12}') > 0 AS created;
SELECT tuner.add_parameter('nolease', 'x', 'float', 0, 10);
SELECT (tuner.suggest_next('nolease') ->> 'trial')::bigint AS plain \gset
SELECT (tuner.suggest_next('nolease', 'w') ->> 'trial')::bigint AS named \gset
SELECT trial = :plain AS plain, worker, lease_expires_at IS NULL AS no_lease,
       lease_expires_at - heartbeat_at AS lease
  FROM tuner.trials WHERE study = 'nolease' ORDER BY number;
SELECT tuner.reap('nolease') AS reaped;
SELECT tuner.heartbeat(:plain) IS NOT NULL AS leased_by_heartbeat;
SELECT lease_expires_at - heartbeat_at AS lease FROM tuner.trial WHERE id = :plain;

SELECT tuner.create_study('bad', 'y', 'minimize', '{"lease_s": "10"}');
SELECT tuner.create_study('bad', 'y', 'minimize', '{"lease_s": 0}');
SELECT tuner.create_study('bad', 'y', 'minimize', '{"lease_s": -1}');
SELECT tuner.create_study('bad', 'y', 'minimize', '{"lease_s": 1e7}');
SELECT tuner.create_study('bad', 'y', 'minimize', '{"lease_s": null}');
SELECT tuner.create_study('bad', 'y', 'minimize', '{"max_retries": -1}');
SELECT tuner.create_study('bad', 'y', 'minimize', '{"max_retries": 1.5}');
SELECT tuner.create_study('bad', 'y', 'minimize', '{"max_retries": 101}');
SELECT tuner.create_study('bad', 'y', 'minimize', '{"max_retries": "1"}');
SELECT tuner.create_study('bad', 'y', 'minimize', '{"lease_time": 1}');

-- Leave nothing behind: the tests run in any order (REGRESS is every
-- sql/*.sql), each after only CREATE EXTENSION.
SELECT tuner.drop_study(name) FROM tuner.study
 WHERE name IN ('bg', 'lease', 'nolease', 'noretry', 'prog', 'race', 'short', 'tworetry') ORDER BY name;
SELECT tuner.drop_runner('lease_sleep');
DROP FUNCTION public.lease_try_report(bigint), public.lease_wait_for_lock();
DROP EXTENSION dblink;
