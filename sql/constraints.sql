-- Failures and constraints the optimizer learns from (issue 10): failed
-- trials feed a feasibility model, bounded constraint metrics a model each
-- (constrained EI), tuner.best and tuner.trials respect the constraints,
-- parameter constraints are never broken, the models are relations and
-- tuner.predict_feasibility answers for any configuration.  Then the
-- errors.
\set SHOW_CONTEXT never

-- A square whose right part (x > 0.6) crashes; the objective is lowest
-- inside it, at (0.8, 0.3).
SELECT tuner.create_study('fz', 'value', 'minimize', settings => '{"seed": 7, "n_initial": 5}') > 0 AS created;
SELECT tuner.add_parameter('fz', 'x', 'float', low => 0, high => 1);
SELECT tuner.add_parameter('fz', 'y', 'float', low => 0, high => 1);
DO $$
DECLARE
	r jsonb;
	x float8;
	y float8;
BEGIN
	FOR i IN 1 .. 20 LOOP
		r := tuner.suggest_next('fz');
		x := (r -> 'params' ->> 'x')::float8;
		y := (r -> 'params' ->> 'y')::float8;
		IF x > 0.6 THEN
			PERFORM tuner.fail((r ->> 'trial')::bigint, 'crashed');
		ELSE
			PERFORM tuner.report((r ->> 'trial')::bigint,
								 pg_catalog.jsonb_build_object('value', (x - 0.8) ^ 2 + (y - 0.3) ^ 2));
		END IF;
	END LOOP;
END $$;
-- Failures are not objective values: the GP learned from the complete
-- trials only, the feasibility model from all of them.
SELECT m.kind, m.n = (SELECT count(*) FROM tuner.trials t WHERE t.study = 'fz' AND t.state = 'complete'
					  AND t.trial < m.trial_id) AS n_is_complete
  FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'fz' AND m.kind = 'gp' ORDER BY m.id DESC LIMIT 1;
SELECT m.kind, m.n = (SELECT count(*) FROM tuner.trials t WHERE t.study = 'fz' AND t.state IN ('complete', 'failed')
					  AND t.trial < m.trial_id) AS n_is_all,
	   cardinality(m.lengthscales) AS d, m.bound IS NOT NULL AS has_bound,
	   m.outcome_sd > 0 AS scaled, m.parameters
  FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'fz' AND m.kind = 'feasibility' ORDER BY m.id DESC LIMIT 1;
-- The failure model's trend points into the failing region (x > 0.6):
-- up along x, and more along x than along y.
SELECT m.trend_intercept IS NOT NULL AS has_trend,
	   cardinality(m.trend_slopes) AS slopes, m.trend_slopes[1] > 0 AS up_in_x,
	   abs(m.trend_slopes[1]) > abs(m.trend_slopes[2]) AS mostly_x
  FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'fz' AND m.kind = 'feasibility' ORDER BY m.id DESC LIMIT 1;
-- The failure model's probability is calibrated on its leave-one-out
-- predictions: a threshold and a positive spread.
SELECT m.calibration_threshold IS NOT NULL AS calibrated,
	   m.calibration_spread > 0 AS spread
  FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'fz' AND m.kind = 'feasibility' ORDER BY m.id DESC LIMIT 1;
-- The model steps probe the edge of the failing region, where the
-- feasible optimum is, and rarely go deep into it.
SELECT count(*) FILTER (WHERE state = 'failed') AS failed,
	   count(*) FILTER (WHERE state = 'failed' AND (params ->> 'x')::float8 > 0.7) <= 2 AS rarely_deep,
	   count(*) FILTER (WHERE state = 'complete') >= 3 AS some_ran
  FROM tuner.trials WHERE study = 'fz' AND source = 'model';
-- The optimum lies on the edge of the failing region: the best trial is near it.
SELECT round(value::numeric, 2) <= 0.05 AS near_edge_optimum FROM tuner.best('fz');
-- With the trend, the corners beyond the failures fail too.
SELECT tuner.predict_feasibility('fz', '{"x": 1, "y": 0}') < 0.2 AS corner_low,
	   tuner.predict_feasibility('fz', '{"x": 1, "y": 1}') < 0.2 AS corner_high;
-- P(feasible): low deep in the failing region, high far from it.
SELECT tuner.predict_feasibility('fz', '{"x": 0.95, "y": 0.5}') < 0.2 AS crash_side,
	   tuner.predict_feasibility('fz', '{"x": 0.1, "y": 0.5}') > 0.8 AS safe_side,
	   tuner.predict_feasibility('fz', '{"x": 0.5, "y": 0.5}') BETWEEN 0 AND 1 AS a_probability;

-- From 50 trials on, the failure model refines its last fit while no
-- trial has failed since (issue 28: tuner.suggestion
-- .warm_feasibility_model; below 50 it is fitted from cold starts), and
-- every suggestion, warm-started or not, replays.
SELECT tuner.create_study('fw', 'value', 'minimize', settings => '{"seed": 3, "n_initial": 5}') > 0 AS created;
SELECT tuner.add_parameter('fw', 'x', 'float', low => 0, high => 1);
SELECT tuner.add_parameter('fw', 'y', 'float', low => 0, high => 1);
DO $$
DECLARE
	r jsonb;
	x float8;
	y float8;
BEGIN
	FOR i IN 1 .. 58 LOOP
		r := tuner.suggest_next('fw');
		x := (r -> 'params' ->> 'x')::float8;
		y := (r -> 'params' ->> 'y')::float8;
		IF x > 0.6 OR i % 9 = 0 THEN
			PERFORM tuner.fail((r ->> 'trial')::bigint, 'crashed');
		ELSE
			PERFORM tuner.report((r ->> 'trial')::bigint,
								 pg_catalog.jsonb_build_object('value', (x - 0.3) ^ 2 + (y - 0.3) ^ 2));
		END IF;
	END LOOP;
END $$;
SELECT count(*) FILTER (WHERE g.warm_feasibility_model IS NOT NULL) > 0 AS warm_started,
	   count(*) FILTER (WHERE g.warm_feasibility_model IS NULL AND t.source = 'model') > 0 AS some_cold,
	   bool_and(g.warm_feasibility_model IS NULL OR m.kind = 'feasibility') AS from_feasibility,
	   bool_and(tuner.replay_suggestion(t.id) = t.config) AS all_replay
  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
  JOIN tuner.suggestion g ON g.trial_id = t.id
  LEFT JOIN tuner.model m ON m.id = g.warm_feasibility_model
 WHERE s.name = 'fw';

-- A categorical parameter in the failure model: choice 'c' crashes
-- whatever x is.  tuner.predict_feasibility measures the choices as the
-- acquisition's model does (unordered, src/core/matern.h), so 'c' is
-- predicted to fail where 'a' runs.
SELECT tuner.create_study('fcat', 'value', 'minimize', settings => '{"seed": 5, "n_initial": 6}') > 0 AS created;
SELECT tuner.add_parameter('fcat', 'x', 'float', low => 0, high => 1);
SELECT tuner.add_parameter('fcat', 'k', 'categorical', choices => '{a,b,c}');
DO $$
DECLARE
	r jsonb;
BEGIN
	FOR i IN 1 .. 14 LOOP
		r := tuner.suggest_next('fcat');
		IF r -> 'params' ->> 'k' = 'c' THEN
			PERFORM tuner.fail((r ->> 'trial')::bigint, 'crashed');
		ELSE
			PERFORM tuner.report((r ->> 'trial')::bigint,
								 pg_catalog.jsonb_build_object('value', ((r -> 'params' ->> 'x')::float8 - 0.3) ^ 2));
		END IF;
	END LOOP;
END $$;
SELECT count(*) FILTER (WHERE state = 'failed') > 0 AS some_failed FROM tuner.trials WHERE study = 'fcat';
SELECT tuner.predict_feasibility('fcat', '{"x": 0.3, "k": "c"}') < 0.5 AS c_fails,
	   tuner.predict_feasibility('fcat', '{"x": 0.3, "k": "a"}') > 0.5 AS a_runs;

-- Failed trials count towards the design's length (n_initial 4), but
-- the model needs two trials that ran: three failures and one run are
-- not enough, three failures and two runs are.
SELECT tuner.create_study('fd', 'value', 'minimize', settings => '{"seed": 2, "n_initial": 4}') > 0 AS created;
SELECT tuner.add_parameter('fd', 'x', 'float', low => 0, high => 1);
DO $$
DECLARE
	r jsonb;
BEGIN
	FOR i IN 1 .. 6 LOOP
		r := tuner.suggest_next('fd');
		IF i <= 3 THEN
			PERFORM tuner.fail((r ->> 'trial')::bigint, 'crashed');
		ELSIF i <= 5 THEN
			PERFORM tuner.report((r ->> 'trial')::bigint,
								 pg_catalog.jsonb_build_object('value', (r -> 'params' ->> 'x')::float8));
		END IF;
	END LOOP;
END $$;
SELECT row_number() OVER (ORDER BY trial) AS n, state, source
  FROM tuner.trials WHERE study = 'fd' ORDER BY trial;
-- The suggestion records the design length it used, for replay.
SELECT sg.n_initial, tuner.replay_suggestion(t.id) = t.config AS replays
  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
  JOIN tuner.suggestion sg ON sg.trial_id = t.id
 WHERE s.name = 'fd' ORDER BY t.number DESC LIMIT 1;

-- Trials a runner loses are data too, through tuner.step and a real
-- program (awk): configurations with y < 0.25 hang until
-- trial_timeout_s kills them, the others with x > 0.6 crash (exit 3, "out
-- of memory" on stderr); elsewhere the objective is (x - 0.5)^2 +
-- (y - 0.3)^2, lowest 0.05 from the hanging region.  max_disturbance 1:
-- no trial counts as disturbed, which would down-weight it in the model
-- and make the trials depend on how busy the machine is.
SELECT tuner.register_runner('regions', 'awk', ARRAY[
	'function val(s, k,  t) { if (match(s, "\"" k "\": *[-0-9.eE+]+")) { t = substr(s, RSTART, RLENGTH); sub(/^[^:]*: */, "", t); return t + 0 } return -1 }
	 { s = s $0 }
	 END { x = val(s, "x"); y = val(s, "y");
		   if (y < 0.25) system("sleep 30");
		   if (x > 0.6) { print "out of memory" > "/dev/stderr"; exit 3 }
		   printf "{\"value\": %.9f}\n", (x - 0.5) ^ 2 + (y - 0.3) ^ 2 }']);
SELECT tuner.create_study('rg', 'value', 'minimize',
	'{"seed": 4, "n_initial": 6, "trial_timeout_s": 2, "kill_grace_s": 0, "max_disturbance": 1}', runner => 'regions') > 0 AS created;
SELECT tuner.add_parameter('rg', 'x', 'float', low => 0, high => 1);
SELECT tuner.add_parameter('rg', 'y', 'float', low => 0, high => 1);
DO $$
BEGIN
	FOR i IN 1 .. 20 LOOP
		PERFORM tuner.step('rg');
	END LOOP;
END $$;
-- Each failure has its cause, and each region's configurations failed.
SELECT count(*) FILTER (WHERE error LIKE 'runner exited with exit code 3%out of memory%') > 0 AS crashed,
	   count(*) FILTER (WHERE error LIKE 'runner timed out%') > 0 AS timed_out,
	   bool_and(state = 'failed') FILTER (WHERE (params ->> 'x')::float8 > 0.6
											 OR (params ->> 'y')::float8 < 0.25) AS regions_failed,
	   bool_and(state = 'complete') FILTER (WHERE (params ->> 'x')::float8 <= 0.6
											  AND (params ->> 'y')::float8 >= 0.25) AS others_ran
  FROM tuner.trials WHERE study = 'rg';
-- The feasibility model learned both regions from them, and the model's
-- steps mostly kept out of them.
SELECT m.kind, m.n = (SELECT count(*) FROM tuner.trials t WHERE t.study = 'rg'
						AND t.state IN ('complete', 'failed') AND t.trial < m.trial_id) AS n_is_all
  FROM tuner.model m
 WHERE m.study_id = (SELECT id FROM tuner.study WHERE name = 'rg') AND m.kind = 'feasibility'
 ORDER BY m.id DESC LIMIT 1;
SELECT tuner.predict_feasibility('rg', '{"x": 0.9, "y": 0.6}') < 0.2 AS crash_region,
	   tuner.predict_feasibility('rg', '{"x": 0.3, "y": 0.05}') < 0.2 AS hang_region,
	   tuner.predict_feasibility('rg', '{"x": 0.3, "y": 0.5}') > 0.8 AS runs;
SELECT count(*) FILTER (WHERE state = 'failed') < count(*) / 2 AS model_mostly_ran,
	   min(value) < 0.01 AS near_optimum
  FROM tuner.trials WHERE study = 'rg' AND source = 'model';

-- An outcome constraint p99 <= 0.8 (p99 = x + y) excludes the
-- unconstrained optimum (0.7, 0.6); throughput >= 1 always holds.
SELECT tuner.create_study('oc', 'value', 'minimize', settings => '{"seed": 3, "n_initial": 5}') > 0 AS created;
SELECT tuner.add_parameter('oc', 'x', 'float', low => 0, high => 1);
SELECT tuner.add_parameter('oc', 'y', 'float', low => 0, high => 1);
SELECT tuner.add_metric('oc', 'p99', role => 'constraint', bound => 0.8, direction => 'minimize') > 0 AS declared;
SELECT tuner.add_metric('oc', 'throughput', role => 'constraint', bound => 1, direction => 'maximize') > 0 AS declared;
SELECT name, role, direction, bound FROM tuner.metric m
 WHERE m.study_id = (SELECT id FROM tuner.study WHERE name = 'oc') ORDER BY id;
DO $$
DECLARE
	r jsonb;
	x float8;
	y float8;
BEGIN
	FOR i IN 1 .. 18 LOOP
		r := tuner.suggest_next('oc');
		x := (r -> 'params' ->> 'x')::float8;
		y := (r -> 'params' ->> 'y')::float8;
		PERFORM tuner.report((r ->> 'trial')::bigint,
							 pg_catalog.jsonb_build_object('value', (x - 0.7) ^ 2 + (y - 0.6) ^ 2,
														   'p99', x + y, 'throughput', 2));
	END LOOP;
END $$;
-- tuner.trials says which trials broke the constraint, and rightly.
SELECT count(*) FILTER (WHERE constraints_met = ((metrics ->> 'p99')::float8 <= 0.8)) = count(*) AS flags_right,
	   count(*) FILTER (WHERE NOT constraints_met) > 0 AS some_broke
  FROM tuner.trials WHERE study = 'oc';
-- tuner.best: the best trial that met every constraint, close to the
-- constrained optimum (0.45, 0.35), value 0.125.
SELECT (t.metrics ->> 'p99')::float8 <= 0.8 AS meets, round(b.value::numeric, 2) <= 0.15 AS near_optimum
  FROM tuner.best('oc') b JOIN tuner.trials t ON t.trial = b.trial;
-- The best value overall broke the constraint.
SELECT min(value) < (SELECT value FROM tuner.best('oc')) AS unconstrained_better
  FROM tuner.trials WHERE study = 'oc';
-- Model steps mostly met it.
SELECT count(*) FILTER (WHERE constraints_met) > count(*) / 2 AS mostly_met
  FROM tuner.trials WHERE study = 'oc' AND source = 'model';
-- One model per constraint with spread (throughput is constant: none).
-- An outcome constraint's model has no trend and no calibration.
SELECT m.kind, m.constraint_metric, m.tasks, m.trend_intercept IS NULL AS no_trend,
	   m.calibration_threshold IS NULL AND m.calibration_spread IS NULL AS not_calibrated
  FROM tuner.model m
 WHERE m.study_id = (SELECT id FROM tuner.study WHERE name = 'oc')
   AND m.trial_id = (SELECT max(trial_id) FROM tuner.model WHERE kind = 'constraint')
   AND m.kind <> 'gp' ORDER BY m.id;
SELECT tuner.predict_feasibility('oc', '{"x": 0.1, "y": 0.1}') > 0.9 AS low_p99,
	   tuner.predict_feasibility('oc', '{"x": 0.95, "y": 0.95}') < 0.1 AS high_p99;

-- No feasible trial yet: the step heads for feasibility.  Every design
-- point broke "x <= 0.15" (reported x as the metric, lower x worse).
SELECT tuner.create_study('nf', 'value', 'minimize', settings => '{"seed": 11, "n_initial": 4}') > 0 AS created;
SELECT tuner.add_parameter('nf', 'x', 'float', low => 0, high => 1);
SELECT tuner.add_parameter('nf', 'y', 'float', low => 0, high => 1);
SELECT tuner.add_metric('nf', 'c', role => 'constraint', bound => 0.15, direction => 'minimize') > 0 AS declared;
DO $$
DECLARE
	r jsonb;
BEGIN
	FOR i IN 1 .. 4 LOOP
		r := tuner.suggest_next('nf');
		PERFORM tuner.report((r ->> 'trial')::bigint,
							 pg_catalog.jsonb_build_object('value', -(r -> 'params' ->> 'x')::float8,
														   'c', (r -> 'params' ->> 'x')::float8));
	END LOOP;
END $$;
SELECT count(*) FILTER (WHERE constraints_met) AS met FROM tuner.trials WHERE study = 'nf';
SELECT * FROM tuner.best('nf');
SELECT (tuner.suggest_next('nf') -> 'params' ->> 'x')::float8 < 0.3 AS towards_feasible;

-- A constraint metric without a bound is recorded, not enforced (as
-- before); a bound given later enforces it.
SELECT tuner.add_metric('oc', 'errors', 'constraint') > 0 AS declared;
SELECT name, bound FROM tuner.metric WHERE name = 'errors';

-- A bounded constraint on a metric the trials do not report: refused
-- where it is declared, new or given its bound later; nothing changes.
SELECT tuner.add_metric('oc', 'p99x', role => 'constraint', bound => 1, direction => 'minimize');
SELECT tuner.add_metric('oc', 'errors', role => 'constraint', bound => 0, direction => 'minimize');
UPDATE tuner.metric SET bound = 0, direction = 'minimize' WHERE name = 'errors';
SELECT name, bound FROM tuner.metric
 WHERE study_id = (SELECT id FROM tuner.study WHERE name = 'oc') AND name IN ('errors', 'p99x');
-- A metric the trials report but nobody declared becomes a constraint.
SELECT tuner.create_study('rc', 'value', settings => '{"seed": 1, "n_initial": 2}') > 0 AS created;
SELECT tuner.add_parameter('rc', 'x', 'float', low => 0, high => 1);
SELECT tuner.report((tuner.suggest_next('rc') ->> 'trial')::bigint, '{"value": 1, "lat": 3}');
SELECT tuner.add_metric('rc', 'lat', role => 'constraint', bound => 5, direction => 'minimize') > 0 AS declared;
SELECT name, role, bound FROM tuner.metric
 WHERE study_id = (SELECT id FROM tuner.study WHERE name = 'rc') ORDER BY id;

-- Parameter constraints: never suggested, in the design or later.
SELECT tuner.create_study('pc', 'value', 'minimize', settings => '{"seed": 5, "n_initial": 5}') > 0 AS created;
SELECT tuner.add_parameter('pc', 'a', 'int', low => 1, high => 20);
SELECT tuner.add_parameter('pc', 'b', 'int', low => 1, high => 20);
SELECT tuner.add_parameter('pc', 'c', 'float', low => 0, high => 10);
SELECT tuner.add_constraint('pc', 'a < b') > 0 AS added;
SELECT tuner.add_constraint('pc', 'a + 2*b <= 40') > 0 AS added;
SELECT tuner.add_constraint('pc', '0.5 c - 1 >= 3 - b') > 0 AS added;
SELECT expression, coefficients, strict, rhs, source FROM tuner.parameter_constraint pc
 WHERE pc.study_id = (SELECT id FROM tuner.study WHERE name = 'pc') ORDER BY id;
DO $$
DECLARE
	r jsonb;
BEGIN
	FOR i IN 1 .. 14 LOOP
		r := tuner.suggest_next('pc');
		-- best at a = b = 20, c = 0: breaks all three
		PERFORM tuner.report((r ->> 'trial')::bigint, pg_catalog.jsonb_build_object('value',
			-((r -> 'params' ->> 'a')::float8 + (r -> 'params' ->> 'b')::float8)
			+ (r -> 'params' ->> 'c')::float8));
	END LOOP;
END $$;
SELECT count(*) AS trials,
	   count(*) FILTER (WHERE NOT ((params ->> 'a')::int < (params ->> 'b')::int
							   AND (params ->> 'a')::int + 2 * (params ->> 'b')::int <= 40
							   AND 0.5 * (params ->> 'c')::float8 - 1 >= 3 - (params ->> 'b')::int)) AS broken,
	   count(*) FILTER (WHERE source = 'model') > 0 AS modelled
  FROM tuner.trials WHERE study = 'pc';
-- The RocksDB preset declares RocksDB's orderings.
SELECT tuner.create_study('rdbc', preset => 'rocksdb') > 0 AS created;
SELECT expression, source FROM tuner.parameter_constraint
 WHERE study_id = (SELECT id FROM tuner.study WHERE name = 'rdbc') ORDER BY id;

-- Errors of add_metric's bound.
SELECT tuner.add_metric('oc', 'p50', role => 'constraint', bound => 'NaN', direction => 'minimize');
SELECT tuner.add_metric('oc', 'p50', role => 'constraint', bound => 'Infinity', direction => 'minimize');
SELECT tuner.add_metric('oc', 'p50', role => 'constraint', bound => 5);
SELECT tuner.add_metric('oc', 'p50', role => 'auxiliary', bound => 5, direction => 'minimize');
SELECT tuner.add_metric('nosuch', 'p50', role => 'constraint', bound => 5, direction => 'minimize');
-- A constraint metric that is never reported.
SELECT tuner.create_study('nr', 'value', settings => '{"seed": 1, "n_initial": 3}') > 0 AS created;
SELECT tuner.add_parameter('nr', 'x', 'float', low => 0, high => 1);
SELECT tuner.add_metric('nr', 'latency', role => 'constraint', bound => 5, direction => 'minimize') > 0 AS declared;
SELECT tuner.report((tuner.suggest_next('nr') ->> 'trial')::bigint, '{"value": 1}');
SELECT tuner.report((tuner.suggest_next('nr') ->> 'trial')::bigint, '{"value": 2}');
SELECT tuner.report((tuner.suggest_next('nr') ->> 'trial')::bigint, '{"value": 3}');
SELECT tuner.suggest_next('nr');
-- Errors of add_constraint.
SELECT tuner.add_constraint('pc', 'a <= nosuch');
SELECT tuner.add_constraint('pc', 'a = b');
SELECT tuner.add_constraint('pc', 'a <= b <= c');
SELECT tuner.add_constraint('pc', 'a <=');
SELECT tuner.add_constraint('pc', 'a + * b <= 3');
SELECT tuner.add_constraint('pc', '2 <= 3');
SELECT tuner.add_constraint('pc', 'a - a <= 3');
SELECT tuner.add_constraint('pc', 'a >= 25');
SELECT tuner.add_constraint('pc', 'a + b > 40');
SELECT tuner.add_constraint('pc', 'b < a');
SELECT tuner.add_constraint('pc', NULL);
SELECT tuner.add_constraint('nosuch', 'a < b');
SELECT tuner.add_constraint('pc', 'a < b', 'robot');
SELECT tuner.create_study('cat', 'value', settings => '{"seed": 1}') > 0 AS created;
SELECT tuner.add_parameter('cat', 'k', 'categorical', choices => '{p,q}');
SELECT tuner.add_parameter('cat', 'n', 'int', low => 1, high => 9, default_value => '5');
SELECT tuner.add_parameter('cat', 'm', 'int', low => 1, high => 9, default_value => '2');
SELECT tuner.add_constraint('cat', 'k <= 3');
SELECT tuner.add_constraint('cat', 'n <= m');
-- The failed calls added nothing.
SELECT count(*) FROM tuner.parameter_constraint
 WHERE study_id IN (SELECT id FROM tuner.study WHERE name IN ('pc', 'cat'));
-- One stored model's probability, tuner._feasibility_predict, against
-- closed forms: one trial at 0.5 with outcome 0 or 1, unit lengthscale,
-- outputscale and noise, mean 0, no trend: at 0.5 the posterior mean is
-- y / 2 and its variance 1/2, so P(holds) = Phi((bound - y / 2) / sqrt(1/2)):
-- Phi(sqrt 2) = 0.921350 (y 0, bound 1), Phi(sqrt 2 / 2) = 0.760250 (y 1).
SELECT round(p[1]::numeric, 6) AS y0, round(q[1]::numeric, 6) AS y1
  FROM tuner._feasibility_predict(ARRAY[[0.5]], ARRAY[0.0], ARRAY[1.0], 1, 1, 0,
								  ARRAY[0], false, 1, NULL, NULL, ARRAY[[0.5]]) AS p,
	   tuner._feasibility_predict(ARRAY[[0.5]], ARRAY[1.0], ARRAY[1.0], 1, 1, 0,
								  ARRAY[0], false, 1, NULL, NULL, ARRAY[[0.5]]) AS q;
-- Its errors.
SELECT tuner._feasibility_predict(ARRAY[[0.5], [0.6]], ARRAY[0.0], ARRAY[1.0], 1, 1, 0,
								  ARRAY[0], false, 1, NULL, NULL, ARRAY[[0.5]]);
SELECT tuner._feasibility_predict(ARRAY[[0.5]], ARRAY[0.0], ARRAY[0.0], 1, 1, 0,
								  ARRAY[0], false, 1, NULL, NULL, ARRAY[[0.5]]);
SELECT tuner._feasibility_predict(ARRAY[[0.5]], ARRAY[0.0], ARRAY[1.0], 1, 'NaN', 0,
								  ARRAY[0], false, 1, NULL, NULL, ARRAY[[0.5]]);
SELECT tuner._feasibility_predict(ARRAY[[0.5]], ARRAY[0.0], ARRAY[1.0], 1, 1, 0,
								  ARRAY[2], false, 1, NULL, NULL, ARRAY[[0.5]]);
SELECT tuner._feasibility_predict(ARRAY[[0.5]], ARRAY[0.0], ARRAY[1.0], 1, 1, 0,
								  ARRAY[0], true, 1, 0.5, NULL, ARRAY[[0.5]]);
SELECT tuner._feasibility_predict(ARRAY[[0.5]], ARRAY[0.0], ARRAY[1.0], 1, 1, 0,
								  ARRAY[0], false, 1, 0.5, 0.2, ARRAY[[0.5]]);
SELECT tuner._feasibility_predict(ARRAY[[0.5]], ARRAY[0.0], ARRAY[1.0], 1, 1, 0,
								  ARRAY[0], true, 1, 0.5, 0, ARRAY[[0.5]]);
SELECT tuner._feasibility_predict(ARRAY[[0.5]], ARRAY[0.0], ARRAY[1.0], 1, 1, 0,
								  ARRAY[0], false, 1, NULL, NULL, ARRAY[[0.5, 0.5]]);
SELECT tuner._feasibility_predict(ARRAY[[0.5]], ARRAY[0.0], ARRAY[1.0], 1, 1, 0,
								  ARRAY[0], false, NULL, NULL, NULL, ARRAY[[0.5]]);
-- Errors of predict_feasibility.
SELECT tuner.predict_feasibility('nosuch', '{}');
SELECT tuner.predict_feasibility('fz', NULL);
SELECT tuner.predict_feasibility('fz', '[1]');
SELECT tuner.predict_feasibility('fz', '{"z": 1}');
SELECT tuner.predict_feasibility('fz', '{"x": 0.5}');
SELECT tuner.predict_feasibility('pc', '{"a": 1, "b": 2, "c": 3}');

-- Leave nothing behind: the tests run in any order (REGRESS is every
-- sql/*.sql), each after only CREATE EXTENSION.
SELECT tuner.drop_study(name) FROM tuner.study
 WHERE name IN ('cat', 'fcat', 'fd', 'fw', 'fz', 'nf', 'nr', 'oc', 'pc', 'rc', 'rdbc', 'rg') ORDER BY name;
SELECT tuner.drop_runner(name) FROM tuner.runner
 WHERE name IN ('regions', 'rocksdb') ORDER BY name;
