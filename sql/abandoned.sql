-- abandoned: ask/tell trials whose client went away (issue 26, item 8).
-- tuner.progress shows when each running trial last showed a sign of
-- life, and alive only where a server process runs the trial; the study
-- setting abandon_after_s lets tuner.reap end a trial without a lease
-- that stayed silent that long ("abandoned", retried like an expired
-- lease), and tuner.progress leaves such a trial out.  No wall-clock time
-- is asserted: a trial is either seconds old against a threshold of
-- 1000000 s, or slept past a threshold of 0.1 s.
\set SHOW_CONTEXT never
SELECT setval('tuner.trial_id_seq', 13000, false) IS NOT NULL AS restarted;

-- the setting is checked where settings are: create_study and any UPDATE
SELECT tuner.create_study('silent_bad', 'y', settings => '{"abandon_after_s": "1h"}');
SELECT tuner.create_study('silent_bad', 'y', settings => '{"abandon_after_s": 0}');
SELECT tuner.create_study('silent_bad', 'y', settings => '{"abandon_after_s": -5}');
SELECT tuner.create_study('silent_bad', 'y', settings => '{"abandon_after_s": 2000000}');
SELECT tuner.create_study('silent_bad', 'y', settings => '{"abandon_after": 60}');
SELECT tuner.create_study('silent_keep', 'y', 'minimize', '{"seed": 1, "abandon_after_s": 1000000}') > 0 AS created;
UPDATE tuner.study SET settings = settings || '{"abandon_after_s": null}' WHERE name = 'silent_keep';
UPDATE tuner.study SET settings = settings || '{"abandon_after_s": 0.5e7}' WHERE name = 'silent_keep';
SELECT settings ->> 'abandon_after_s' AS abandon_after_s FROM tuner.study WHERE name = 'silent_keep';
SELECT tuner.create_study('silent_end', 'y', 'minimize', '{"seed": 2, "max_retries": 1}') > 0 AS created;
SELECT tuner.add_parameter(s, 'x', 'float', 0, 1) FROM unnest(ARRAY['silent_keep', 'silent_end']) s;
-- a study with a lease: its trials are the lease's, not abandon_after_s's
SELECT tuner.create_study('silent_lease', 'y', 'minimize',
                          '{"seed": 3, "lease_s": 1000000, "abandon_after_s": 0.1}') > 0 AS created;
SELECT tuner.add_parameter('silent_lease', 'x', 'float', 0, 1);

-- One ask/tell trial each, never reported.
SELECT (tuner.suggest_next('silent_keep') ->> 'trial')::bigint AS keep \gset
SELECT (tuner.suggest_next('silent_end') ->> 'trial')::bigint AS ended \gset
SELECT (tuner.suggest_next('silent_lease') ->> 'trial')::bigint AS leased \gset
-- and one that heartbeats: a heartbeat gives it a lease (lease_s default 300)
SELECT (tuner.suggest_next('silent_end') ->> 'trial')::bigint AS beating \gset
SELECT tuner.heartbeat(:beating) > now() AS leased_now;

-- progress: alive is NULL where no server process runs the trial; the
-- last sign of life is the start, or the last heartbeat
SELECT study, number, alive, pid,
       last_seen = GREATEST(started_at, heartbeat_at) AS last_seen_is_start_or_heartbeat,
       silent_for >= interval '0' AS silent_for_shown
  FROM tuner.progress WHERE study LIKE 'silent\_%' ORDER BY study, number;

-- From now on silent_end's trials end after 0.1 s of silence.
UPDATE tuner.study SET settings = settings || '{"abandon_after_s": 0.1}' WHERE name = 'silent_end';
SELECT pg_sleep(0.3);
-- Past 0.1 s of silence: progress leaves the trial out (it reaps first),
-- reap marked it abandoned and queued its retry (max_retries 1); the
-- trial with a heartbeat, the one with a lease and the one under a
-- threshold of 1000000 s stay.
SELECT study, number FROM tuner.progress WHERE study LIKE 'silent\_%' ORDER BY study, number;
SELECT study, number, state, error, retry_of IS NOT NULL AS retry
  FROM tuner.trials WHERE study LIKE 'silent\_%' ORDER BY study, number;
SELECT tuner.reap() AS reaped_again;
-- a report after that is refused, as after an expired lease
SELECT tuner.report(:ended, '{"y": 1}');
-- the retry is handed out next, with the same configuration
SELECT (s -> 'params') = (SELECT params FROM tuner.trials WHERE trial = :ended) AS same_config
  FROM tuner.suggest_next('silent_end') s;

SELECT tuner.drop_study(s) FROM unnest(ARRAY['silent_keep', 'silent_end', 'silent_lease']) s;
