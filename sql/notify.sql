-- notify: NOTIFY tuner_trials with {"study_id", "trial", "number",
-- "state"} (and with tuner.notify = full also "study" and "value")
-- whenever a trial completes, fails or is interrupted, however it got
-- there.  A second session (sql/notify_listen.psql) listens; psql
-- prints what it receives, with the sending process's PID masked.
\set SHOW_CONTEXT never
SELECT setval('tuner.trial_id_seq', 9000, false) IS NOT NULL AS restarted;
SELECT setval('tuner.study_id_seq', 9000, false) IS NOT NULL AS restarted;
-- earlier tests' stale trials are settled now, not in the listener
SELECT tuner._reconcile() >= 0 AS reconciled;

SELECT tuner.create_study('note', 'y', 'minimize', '{"seed": 5}') > 0 AS created;
SELECT tuner.add_parameter('note', 'x', 'float', 0, 1, default_value => '0.5');
SELECT tuner.create_study('note_copy', 'y', 'minimize', '{"seed": 6}') > 0 AS created;
SELECT tuner.add_parameter('note_copy', 'x', 'float', 0, 1);
SELECT tuner.register_runner('note_crash', '/bin/sh', ARRAY['-c', 'cat >/dev/null; echo broken >&2; exit 2']);
SELECT tuner.register_runner('note_echo', '/bin/echo', ARRAY['{"y": 7.5}']);
SELECT tuner.create_study('note_run', 'y', 'minimize', '{"seed": 7}', runner => 'note_crash') > 0 AS created;
SELECT tuner.add_parameter('note_run', 'x', 'float', 0, 1);

SELECT (tuner.suggest_next('note') ->> 'trial') AS reported \gset
SELECT (tuner.suggest_next('note') ->> 'trial') AS failed \gset
SELECT (tuner.suggest_next('note') ->> 'trial') AS dead \gset
SELECT (tuner.suggest_next('note') ->> 'trial') AS a \gset
SELECT (tuner.suggest_next('note') ->> 'trial') AS b \gset
SELECT (tuner.suggest_next('note') ->> 'trial') AS c \gset
SELECT (tuner.suggest_next('note') ->> 'trial') AS d \gset
SELECT tuner.enqueue('note', '{"x": 0.125}') AS queued \gset

\setenv TUNER_DB :DBNAME
\setenv TUNER_TRIALS :reported,:failed,:dead,:a,:b,:c,:d
\! psql -X -q -d "$TUNER_DB" -f sql/notify_listen.psql 2>&1 | sed -E 's/PID [0-9]+/PID N/'

-- tuner.notify takes three values, and only a superuser sets it: a
-- grantee must not broadcast the owner's values
SET tuner.notify = 'loud';
CREATE ROLE tuner_notify_plain;
SET ROLE tuner_notify_plain;
SET tuner.notify = full;
SHOW tuner.notify;
RESET ROLE;
DROP ROLE tuner_notify_plain;

SELECT number, state, source, error IS NOT NULL AS has_error
  FROM tuner.trials WHERE study IN ('note', 'note_copy', 'note_run')
 ORDER BY study, number;
SELECT tuner.drop_study(s) FROM unnest(ARRAY['note', 'note_copy', 'note_run']) s;
SELECT tuner.drop_runner(r) FROM unnest(ARRAY['note_crash', 'note_echo']) r;
