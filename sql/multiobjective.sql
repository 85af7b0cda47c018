-- multiobjective: a study with two objectives (maximize throughput,
-- minimize p99), its Pareto front and hypervolume, ParEGO suggestions that
-- replay, what the single-objective functions say, and every bad input.
\set SHOW_CONTEXT never

SELECT tuner.create_study('mo', 'throughput', 'maximize', '{"seed": 17, "n_initial": 4}') > 0 AS created;
SELECT tuner.add_parameter('mo', 'x', 'float', 0, 1);
SELECT tuner.add_parameter('mo', 'y', 'float', 0, 1);
-- the second objective, with its direction
SELECT tuner.add_metric('mo', 'p99', 'objective', direction => 'minimize', unit => 'ms') > 0 AS declared;
SELECT tuner.add_metric('mo', 'mem', 'constraint', direction => 'minimize', bound => 100) > 0 AS constrained;
SELECT * FROM tuner.objectives('mo');

-- without a direction it is still an error (as for one objective)
SELECT tuner.add_metric('mo', 'cpu', 'objective');
-- the study's own objective keeps its role and direction
SELECT tuner.add_metric('mo', 'throughput', 'auxiliary');
SELECT tuner.add_metric('mo', 'throughput', 'objective', 'minimize');

-- An empty study: no front, no volume.
SELECT count(*) AS front FROM tuner.pareto_front('mo');
SELECT tuner.hypervolume('mo', ARRAY[0, 100]);

-- Eight hand-made trials: A (10, 50), B and its duplicate C (20, 60),
-- D (30, 90), E (15, 70) dominated by B, F (10, 55) dominated by A (a tie
-- in throughput), G (40, 40) dominating all but over its memory bound,
-- H (5, 95) dominated; one failed trial.
DO $$
DECLARE
	v record;
	t jsonb;
BEGIN
	FOR v IN SELECT * FROM (VALUES
		(0.1, 0.1, 10, 50, 10), (0.2, 0.2, 20, 60, 10), (0.3, 0.3, 20, 60, 10),
		(0.4, 0.4, 30, 90, 10), (0.5, 0.5, 15, 70, 10), (0.6, 0.6, 10, 55, 10),
		(0.7, 0.7, 40, 40, 200), (0.8, 0.8, 5, 95, 10)) AS r(x, y, tp, p99, mem)
	LOOP
		PERFORM tuner.enqueue('mo', jsonb_build_object('x', v.x, 'y', v.y));
		t := tuner.suggest_next('mo');
		PERFORM tuner.report((t ->> 'trial')::bigint,
			jsonb_build_object('throughput', v.tp, 'p99', v.p99, 'mem', v.mem));
	END LOOP;
	PERFORM tuner.enqueue('mo', '{"x": 0.9, "y": 0.9}');
	t := tuner.suggest_next('mo');
	PERFORM tuner.fail((t ->> 'trial')::bigint, 'crashed');
END;
$$;
SELECT number, objectives, params FROM tuner.pareto_front('mo');
-- (-10,50), (-20,60), (-30,90) up to (0,100): 100 + 600 + 300
SELECT tuner.hypervolume('mo', ARRAY[0, 100]);
-- a reference only A, B and C beat: (-10,50) and (-20,60) up to (-5,65):
-- 5 x 10 + 15 x 5
SELECT tuner.hypervolume('mo', ARRAY[5, 65]);
-- a reference no trial beats
SELECT tuner.hypervolume('mo', ARRAY[100, 0]);

-- A trial missing an objective is refused.
SELECT tuner.suggest_next('mo') ->> 'trial' IS NOT NULL AS suggested;
SELECT tuner.report(max(id), '{"throughput": 3}') FROM tuner.trial WHERE study_id = (SELECT id FROM tuner.study WHERE name = 'mo');
SELECT tuner.report(max(id), '{"throughput": 25, "p99": 100, "mem": 1}') FROM tuner.trial WHERE study_id = (SELECT id FROM tuner.study WHERE name = 'mo');

-- ParEGO suggestions: the model's, no prediction in objective units, a
-- fresh weight vector each, and replay gives the same configuration.
DO $$
DECLARE
	t jsonb;
	i int;
	x float8;
	y float8;
BEGIN
	FOR i IN 1 .. 4 LOOP
		t := tuner.suggest_next('mo');
		x := (t -> 'params' ->> 'x')::float8;
		y := (t -> 'params' ->> 'y')::float8;
		PERFORM tuner.report((t ->> 'trial')::bigint, jsonb_build_object(
			'throughput', 40 * x, 'p99', 20 + 80 * x * x + 10 * y, 'mem', 10));
	END LOOP;
END;
$$;
SELECT t.number, t.source, t.predicted_mean IS NULL AS no_mean, t.acquisition IS NOT NULL AS has_acq,
	   g.algorithm, cardinality(g.objective_metrics) AS objectives, g.objective_signs,
	   round((g.scalarization_weights[1] + g.scalarization_weights[2])::numeric, 12) AS weight_sum,
	   g.scalarization_weights[1] > 0 AND g.scalarization_weights[2] > 0 AS positive
  FROM tuner.trial t JOIN tuner.suggestion g ON g.trial_id = t.id
 WHERE t.study_id = (SELECT id FROM tuner.study WHERE name = 'mo') AND t.source = 'model'
 ORDER BY t.number;
SELECT count(DISTINCT g.scalarization_weights) AS distinct_weights
  FROM tuner.suggestion g JOIN tuner.trial t ON t.id = g.trial_id
 WHERE t.study_id = (SELECT id FROM tuner.study WHERE name = 'mo') AND t.source = 'model';
SELECT t.number, tuner.replay_suggestion(t.id) = t.config AS replayed
  FROM tuner.trial t
 WHERE t.study_id = (SELECT id FROM tuner.study WHERE name = 'mo') AND t.source = 'model'
 ORDER BY t.number;
-- the GP saw the scalarization of this suggestion's seed, not the first
-- objective
SELECT t.number,
	   g.history_md5 = tuner._history_md5(tuner._parego_scalarize(
			tuner._objective_matrix(g.observed, g.objective_metrics, g.objective_signs), g.seed), NULL) AS scalarized,
	   g.history_md5 = tuner._history_md5((SELECT array_agg(-ob.value ORDER BY o.k)
			FROM unnest(g.observed) WITH ORDINALITY AS o(id, k)
			JOIN tuner.observation ob ON ob.trial_id = o.id AND ob.metric_id = g.objective_metric), NULL) AS first_only
  FROM tuner.trial t JOIN tuner.suggestion g ON g.trial_id = t.id
 WHERE t.study_id = (SELECT id FROM tuner.study WHERE name = 'mo') AND t.source = 'model'
 ORDER BY t.number;
-- the model row says what it fitted
SELECT DISTINCT kind, tasks FROM tuner.model m WHERE m.study_id = (SELECT id FROM tuner.study WHERE name = 'mo') ORDER BY kind;
-- every front trial is complete and met the constraint
SELECT bool_and(t.state = 'complete' AND tuner._trial_meets_constraints(t.id)) AS valid
  FROM tuner.pareto_front('mo') f JOIN tuner.trial t ON t.id = f.trial;

-- Functions with a single answer point at the front.
SELECT * FROM tuner.best('mo');
SELECT * FROM tuner.recommend('mo');
-- Multi-task algorithms do not take several objectives.
SELECT tuner.set_algorithm('mo', 'icm');
SELECT tuner.suggest_next('mo');
SELECT tuner.set_algorithm('mo', 'gp-ei');

-- The typed view: one column per objective.
SELECT tuner.create_view('mo');
SELECT column_name, data_type FROM information_schema.columns
 WHERE table_schema = 'tuner' AND table_name = 'mo_trials'
   AND column_name IN ('objective', 'p99', 'mem', 'x', 'y') ORDER BY ordinal_position;
SELECT number, objective, p99 FROM tuner.mo_trials WHERE number <= 3 ORDER BY number;

-- The pareto plot takes the two objectives by default.
SELECT left(svg, 4) AS starts, svg LIKE '%p99%' AND svg LIKE '%throughput%' AS both_axes,
	   svg LIKE '%non-dominated%' AS front
  FROM tuner.plot('mo', 'pareto') AS svg;

-- Three objectives: the exact 3-D hypervolume.
SELECT tuner.create_study('mo3', 'a', 'minimize', '{"seed": 3}') > 0 AS created;
SELECT tuner.add_parameter('mo3', 'x', 'float', 0, 1);
-- a soft bound (widened from suggestions only: there is no incumbent)
SELECT tuner.add_parameter('mo3', 'z', 'float', 0, 1, soft_bounds => true, hard_low => -10, hard_high => 10);
SELECT tuner.add_metric('mo3', 'b', 'objective', direction => 'minimize') > 0 AS b;
SELECT tuner.add_metric('mo3', 'c', 'objective', direction => 'maximize') > 0 AS c;
DO $$
DECLARE
	t jsonb;
BEGIN
	t := tuner.suggest_next('mo3');
	PERFORM tuner.report((t ->> 'trial')::bigint, '{"a": 0, "b": 1, "c": 2}');
	t := tuner.suggest_next('mo3');
	PERFORM tuner.report((t ->> 'trial')::bigint, '{"a": 1, "b": 0, "c": 2}');
END;
$$;
-- boxes [0,2]x[1,2]x[-2,0] and [1,2]x[0,2]x[-2,0]: 2*1*2 + 1*2*2 - 1*1*2
SELECT tuner.hypervolume('mo3', ARRAY[2, 2, 0]);
SELECT number, objectives FROM tuner.pareto_front('mo3') ORDER BY number;

-- Model suggestions with three objectives and a soft bound.
DO $$
DECLARE
	t jsonb;
	i int;
BEGIN
	FOR i IN 1 .. 6 LOOP
		t := tuner.suggest_next('mo3');
		PERFORM tuner.report((t ->> 'trial')::bigint, jsonb_build_object(
			'a', (t -> 'params' ->> 'x')::float8, 'b', 1 - (t -> 'params' ->> 'x')::float8,
			'c', (t -> 'params' ->> 'z')::float8));
	END LOOP;
END;
$$;
SELECT count(*) >= 8 AS suggested FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
 WHERE s.name = 'mo3' AND t.state = 'complete';

-- One objective: the front is every trial at the best value (ties kept).
SELECT tuner.create_study('so', 'y', 'minimize', '{"seed": 5}') > 0 AS created;
SELECT tuner.add_parameter('so', 'x', 'float', 0, 1);
DO $$
DECLARE
	t jsonb;
	v float8;
BEGIN
	FOREACH v IN ARRAY ARRAY[3, 1, 2, 1]::float8[] LOOP
		t := tuner.suggest_next('so');
		PERFORM tuner.report((t ->> 'trial')::bigint, jsonb_build_object('y', v));
	END LOOP;
END;
$$;
SELECT number, objectives FROM tuner.pareto_front('so');
SELECT tuner.hypervolume('so', ARRAY[4]);
SELECT * FROM tuner.objectives('so');
SELECT number FROM tuner.best('so') b JOIN tuner.trial t ON t.id = b.trial;

-- Bad input.
SELECT * FROM tuner.pareto_front(NULL);
SELECT * FROM tuner.pareto_front('nope');
SELECT * FROM tuner.objectives(NULL);
SELECT * FROM tuner.objectives('nope');
SELECT tuner.hypervolume(NULL, ARRAY[0, 100]);
SELECT tuner.hypervolume('nope', ARRAY[0, 100]);
SELECT tuner.hypervolume('mo', NULL);
SELECT tuner.hypervolume('mo', ARRAY[0]);
SELECT tuner.hypervolume('mo', ARRAY[0, 1, 2]);
SELECT tuner.hypervolume('mo', '{}');
SELECT tuner.hypervolume('mo', ARRAY[[0, 100]]);
SELECT tuner.hypervolume('mo', ARRAY['NaN', 100]::float8[]);
SELECT tuner.hypervolume('mo', ARRAY[0, 'Infinity']::float8[]);
SELECT tuner.hypervolume('mo', ARRAY[0, NULL]);
SELECT tuner.add_metric('mo', 'q', 'objective', direction => 'sideways');
-- the internal functions check their arrays too
SELECT tuner._hypervolume(ARRAY[[1, 2]], ARRAY[3]);
SELECT tuner._hypervolume(ARRAY[[1, 2, 3, 4, 5, 6, 7]], ARRAY[9, 9, 9, 9, 9, 9, 9]);
SELECT tuner._hypervolume(ARRAY[1, 2], ARRAY[3, 3]);
SELECT tuner._parego_scalarize('{}', 1);
SELECT tuner._parego_weights(0, 1);
SELECT tuner._pareto_first_front(ARRAY[[1, NULL]]::float8[]);
-- 10^10 comparisons: the filter checks for interrupts, so it can be cancelled
SET statement_timeout = '300ms';
SELECT cardinality(tuner._pareto_first_front(array_agg(ARRAY[g, -g]::float8[])))
  FROM generate_series(1, 100000) g;
RESET statement_timeout;

SELECT tuner.drop_study('mo');
SELECT tuner.drop_study('mo3');
SELECT tuner.drop_study('so');
