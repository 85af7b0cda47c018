-- replay: every suggestion records what it saw (tuner.suggestion: the
-- algorithm, the space, the trials by id, the seeds and the warm start);
-- tuner.replay_suggestion computes it again and gets the same
-- configuration, for the design, gp-ei (with failures and running trials
-- in the history) and random search.
\set SHOW_CONTEXT never
SELECT setval('tuner.trial_id_seq', 6000, false) IS NOT NULL AS restarted;

SELECT tuner.create_study('rp', 'y', 'minimize', '{"seed": 31, "n_initial": 3}') > 0 AS created;
SELECT tuner.add_parameter('rp', 'x', 'float', -2, 3, default_value => '0');
SELECT tuner.add_parameter('rp', 'k', 'int', 1, 50, log_scale => true, default_value => '4');
SELECT tuner.add_parameter('rp', 'mode', 'categorical', choices => ARRAY['a', 'b', 'c'], default_value => 'a');
SELECT tuner.add_parameter('rp', 'on', 'bool', default_value => 'false');

-- Ten trials: the default, the design, then the GP; one fails, one stays
-- running while the next ones are suggested, one was queued by hand.
SELECT tuner.enqueue('rp', '{"x": 1.5, "k": 20}') > 0 AS queued;
DO $$
DECLARE
	t jsonb;
	i int;
	keep bigint;
BEGIN
	FOR i IN 1 .. 10 LOOP
		t := tuner.suggest_next('rp');
		IF i = 4 THEN
			PERFORM tuner.fail((t ->> 'trial')::bigint, 'crashed');
		ELSIF i = 5 THEN
			keep := (t ->> 'trial')::bigint;
		ELSE
			PERFORM tuner.report((t ->> 'trial')::bigint, jsonb_build_object('y',
				((t -> 'params' ->> 'x')::float8 - 1) ^ 2
				+ ln((t -> 'params' ->> 'k')::float8)
				+ CASE t -> 'params' ->> 'mode' WHEN 'b' THEN 0 ELSE 1 END
				+ CASE WHEN (t -> 'params' ->> 'on')::bool THEN 0.5 ELSE 0 END));
		END IF;
	END LOOP;
	PERFORM tuner.report(keep, '{"y": 2}');
END;
$$;

SELECT t.number, t.source, g.algorithm,
       cardinality(g.observed) AS observed, cardinality(g.pending) AS pending,
       cardinality(g.other) AS other, g.warm_model IS NOT NULL AS warm,
       tuner.replay_suggestion(t.id) = t.config AS same
  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
  LEFT JOIN tuner.suggestion g ON g.trial_id = t.id
 WHERE s.name = 'rp' AND t.source NOT IN ('default', 'manual')
 ORDER BY t.number;
-- The replay of the last trial, key by key (the digits themselves depend
-- on the CPU's BLAS kernels, so they are not printed).
SELECT e.key, e.value = r.stored -> e.key AS same
  FROM (SELECT tuner.replay_suggestion(t.id) AS replayed, t.config AS stored
		  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
		 WHERE s.name = 'rp' ORDER BY t.number DESC LIMIT 1) r,
	   jsonb_each(r.replayed) e
 ORDER BY e.key;

-- Random search.
SELECT tuner.set_algorithm('rp', 'random');
SELECT (tuner.suggest_next('rp') ->> 'trial')::bigint AS r1 \gset
SELECT tuner.report(:r1, '{"y": 4}');
SELECT (tuner.suggest_next('rp') ->> 'trial')::bigint AS r2 \gset
SELECT t.source, g.algorithm, tuner.replay_suggestion(t.id) = t.config AS same
  FROM tuner.trial t JOIN tuner.suggestion g ON g.trial_id = t.id
 WHERE t.id IN (:r1, :r2) ORDER BY t.number;

-- icm: the auxiliary metric's values and the warm start from the previous
-- fit are part of what it saw.
SELECT tuner.create_study('rp_icm', 'y', 'minimize', '{"seed": 33, "n_initial": 4}') > 0 AS created;
SELECT tuner.add_parameter('rp_icm', 'x', 'float', 0, 1);
SELECT tuner.add_parameter('rp_icm', 'z', 'float', 0, 1);
SELECT tuner.add_metric('rp_icm', 'aux') > 0 AS declared;
SELECT tuner.set_algorithm('rp_icm', 'icm');
DO $$
DECLARE
	t jsonb;
	x float8;
	z float8;
BEGIN
	FOR i IN 1 .. 13 LOOP
		t := tuner.suggest_next('rp_icm');
		x := (t -> 'params' ->> 'x')::float8;
		z := (t -> 'params' ->> 'z')::float8;
		PERFORM tuner.report((t ->> 'trial')::bigint, jsonb_build_object(
			'y', (x - 0.3) ^ 2 + 0.5 * (z - 0.6) ^ 2, 'aux', (x - 0.3) ^ 2 + 0.1 * z));
	END LOOP;
END;
$$;
SELECT t.number, t.source, g.algorithm, g.aux_metrics IS NOT NULL AS aux,
       m.kind AS warm_from, tuner.replay_suggestion(t.id) = t.config AS same
  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
  JOIN tuner.suggestion g ON g.trial_id = t.id
  LEFT JOIN tuner.model m ON m.id = g.warm_model
 WHERE s.name = 'rp_icm' AND t.number >= 10
 ORDER BY t.number;

-- A replay uses the space as it was: with parameters disabled since, every
-- suggestion still replays.
SELECT tuner.enable_parameters('rp', ARRAY['x', 'k']);
SELECT count(*) FILTER (WHERE tuner.replay_suggestion(t.id) = t.config) AS same, count(*) AS replayed
  FROM tuner.trial t JOIN tuner.suggestion g ON g.trial_id = t.id
  JOIN tuner.study s ON s.id = t.study_id WHERE s.name = 'rp';

-- Errors: trials not made by the algorithm, a history that changed.
SELECT t.id AS default_trial FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
 WHERE s.name = 'rp' AND t.source = 'default' \gset
SELECT tuner.replay_suggestion(:default_trial);
SELECT t.id AS manual_trial FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
 WHERE s.name = 'rp' AND t.source = 'manual' \gset
SELECT tuner.replay_suggestion(:manual_trial);
SELECT tuner.replay_suggestion(NULL);
SELECT tuner.replay_suggestion(-1);
SELECT max(t.id) AS last_model FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
 WHERE s.name = 'rp' AND t.source = 'model' \gset
SELECT min(t.id) AS first_complete FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
 WHERE s.name = 'rp' AND t.state = 'complete' AND t.source = 'design' \gset
-- (A finished trial's observations are guarded; an edit behind tuner's
-- back, as a restore of altered data would make, needs the guards off.)
SET session_replication_role = replica;
UPDATE tuner.observation SET value = value + 1 WHERE trial_id = :first_complete;
RESET session_replication_role;
SELECT tuner.replay_suggestion(:last_model);
SET session_replication_role = replica;
UPDATE tuner.observation SET value = value - 1 WHERE trial_id = :first_complete;
RESET session_replication_role;
SELECT tuner.replay_suggestion(:last_model) IS NOT NULL AS replays_again;
DELETE FROM tuner.trial WHERE id = :first_complete;
SELECT tuner.replay_suggestion(:last_model);

-- Transfer from an earlier study is not recorded: refused.
SELECT tuner.create_study('rp_t', 'y', 'minimize', '{"seed": 32, "transfer_from": ["rp"]}') > 0 AS created;
SELECT tuner.add_parameter('rp_t', 'x', 'float', -2, 3);
SELECT (tuner.suggest_next('rp_t') ->> 'trial')::bigint AS tt \gset
SELECT tuner.replay_suggestion(:tt);

SELECT tuner.drop_study(s) FROM unnest(ARRAY['rp', 'rp_t', 'rp_icm']) s;
SELECT count(*) AS suggestions_left FROM tuner.suggestion g
  JOIN tuner.trial t ON t.id = g.trial_id JOIN tuner.study s ON s.id = t.study_id
 WHERE s.name IN ('rp', 'rp_t', 'rp_icm');
