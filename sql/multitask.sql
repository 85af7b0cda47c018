-- Metrics with roles, algorithms, the multi-task (ICM) suggestion, the
-- model relation and tuner.task_correlation, with their errors.
\set SHOW_CONTEXT never

SELECT tuner.create_study('mt', 'latency', 'minimize', '{"seed": 5, "n_initial": 4}') > 0 AS created;
SELECT tuner.add_parameter('mt', 'a', 'float', 0, 1);
SELECT tuner.add_parameter('mt', 'b', 'float', 0, 1);
SELECT tuner.add_parameter('mt', 'c', 'int', 1, 64, log_scale => true);

-- Declaring metrics.
SELECT tuner.add_metric('mt', 'cpu') > 0 AS declared;
SELECT tuner.add_metric('mt', 'io_wait', 'auxiliary', 'minimize', 'ms') > 0 AS declared;
SELECT tuner.add_metric('mt', 'flat', direction => 'maximize') > 0 AS declared;
SELECT tuner.add_metric('mt', 'errors', 'constraint') > 0 AS declared;
SELECT tuner.add_metric('mt', 'rare') > 0 AS declared;
-- re-declaring changes the role and keeps what is not given
SELECT tuner.add_metric('mt', 'errors', 'auxiliary') > 0 AS redeclared;
SELECT tuner.add_metric('mt', 'errors', 'constraint') > 0 AS redeclared;
-- the objective may be re-declared, with its own role and direction
SELECT tuner.add_metric('mt', 'latency', 'objective', unit => 'ms') > 0 AS redeclared;
SELECT m.name, m.role, m.direction, m.unit FROM tuner.metric m
  JOIN tuner.study s ON s.id = m.study_id WHERE s.name = 'mt' ORDER BY m.id;

-- Their errors.
SELECT tuner.add_metric('nope', 'cpu');
SELECT tuner.add_metric('mt', NULL);
SELECT tuner.add_metric('mt', ' ');
SELECT tuner.add_metric('mt', '_raw');
SELECT tuner.add_metric('mt', 'cpu', 'recorded');
SELECT tuner.add_metric('mt', 'cpu', 'target');
SELECT tuner.add_metric('mt', 'cpu', NULL);
SELECT tuner.add_metric('mt', 'cpu', direction => 'up');
SELECT tuner.add_metric('mt', 'cpu', 'objective');
SELECT tuner.add_metric('mt', 'latency', 'auxiliary');
SELECT tuner.add_metric('mt', 'latency', 'objective', 'maximize');

-- Choosing the algorithm, and its errors.
SELECT tuner.set_algorithm('mt', 'icm');
SELECT algorithm, settings ? 'icm_rank' AS has_rank FROM tuner.study WHERE name = 'mt';
SELECT tuner.set_algorithm('mt', 'icm', '{"rank": 2}');
SELECT algorithm, settings -> 'icm_rank' AS rank FROM tuner.study WHERE name = 'mt';
SELECT tuner.set_algorithm('nope', 'icm');
SELECT tuner.set_algorithm('mt', NULL);
SELECT tuner.set_algorithm('mt', 'bayes');
SELECT tuner.set_algorithm('mt', 'icm', NULL);
SELECT tuner.set_algorithm('mt', 'icm', '[1]');
SELECT tuner.set_algorithm('mt', 'icm', '{"rank": 0}');
SELECT tuner.set_algorithm('mt', 'icm', '{"rank": 1.5}');
SELECT tuner.set_algorithm('mt', 'icm', '{"rank": "two"}');
SELECT tuner.set_algorithm('mt', 'icm', '{"restarts": 2}');
SELECT tuner.set_algorithm('mt', 'gp-ei', '{"rank": 2}');
SELECT tuner.create_study('bad_rank', 'y', settings => '{"icm_rank": 0}');

-- No multi-task model yet.
SELECT * FROM tuner.task_correlation('mt');
SELECT * FROM tuner.task_correlation('nope');

-- A study driven to 14 trials.  cpu follows the objective closely, io_wait
-- depends on another parameter, flat never changes and rare is reported
-- once (both left out of the model), errors is a constraint (not
-- modelled).  Until trial 10 every
-- trial reports every metric; then io_wait goes missing in some.
DO $$
DECLARE
    s jsonb;
    a float8;
    b float8;
    c float8;
    y float8;
    metrics jsonb;
BEGIN
    FOR i IN 1 .. 14 LOOP
        s := tuner.suggest_next('mt');
        a := (s -> 'params' ->> 'a')::float8;
        b := (s -> 'params' ->> 'b')::float8;
        c := (s -> 'params' ->> 'c')::float8;
        y := (a - 0.3) ^ 2 + 0.5 * (b - 0.6) ^ 2 + 0.01 * ln(c);
        metrics := jsonb_build_object('latency', y, 'cpu', 40 + 80 * y + 0.1 * a,
                                      'flat', 7, 'errors', 0, 'disk', 3 * b);
        IF i = 1 THEN
            metrics := metrics || '{"rare": 3}';
        END IF;
        IF i < 10 OR i % 2 = 0 THEN
            metrics := metrics || jsonb_build_object('io_wait', sin(6 * b) + c / 64.0);
        END IF;
        PERFORM tuner.report((s ->> 'trial')::bigint, metrics);
    END LOOP;
END;
$$;

-- Undeclared metrics that trials report are recorded, not modelled.
SELECT m.name, m.role FROM tuner.metric m
  JOIN tuner.study s ON s.id = m.study_id WHERE s.name = 'mt' AND m.name = 'disk';

-- Every trial is valid and in bounds; the model chose the later ones.
SELECT count(*) AS trials, count(DISTINCT params) AS distinct_configs,
       bool_and((params ->> 'a')::float8 BETWEEN 0 AND 1
                AND (params ->> 'b')::float8 BETWEEN 0 AND 1
                AND (params ->> 'c')::int BETWEEN 1 AND 64) AS in_bounds,
       count(*) FILTER (WHERE source = 'model') AS by_model
  FROM tuner.trials WHERE study = 'mt';

-- The model relation: an ICM fit per model trial over the objective, cpu
-- and io_wait (flat has no variance, rare one value; errors is a
-- constraint).
SELECT m.kind, m.n, m.tasks, m.rank, m.kronecker,
       array_length(m.lengthscales, 1) AS lengthscales,
       array_dims(m.task_loadings) AS loadings,
       array_dims(m.task_covariance) AS covariance,
       array_length(m.task_noise, 1) AS noises,
       m.fit_ms > 0 AS timed,
       m.outputscale = m.task_covariance[1][1] AS outputscale_is_b11,
       m.noise = m.task_noise[1] AS noise_is_task1
  FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'mt' ORDER BY m.id;

-- What it learned between metrics: a symmetric correlation matrix with a
-- unit diagonal; cpu (a linear function of the objective) is the most
-- correlated with it.
SELECT metric, other_metric, round(correlation::numeric, 6) = round(
           (SELECT c2.correlation FROM tuner.task_correlation('mt') c2
             WHERE c2.metric = c.other_metric AND c2.other_metric = c.metric)::numeric, 6) AS symmetric,
       CASE WHEN metric = other_metric THEN round(correlation::numeric, 9) END AS diagonal
  FROM tuner.task_correlation('mt') c ORDER BY metric, other_metric;
SELECT (SELECT correlation FROM tuner.task_correlation('mt')
         WHERE metric = 'latency' AND other_metric = 'cpu') > 0.9 AS cpu_follows_latency,
       (SELECT abs(correlation) FROM tuner.task_correlation('mt')
         WHERE metric = 'latency' AND other_metric = 'cpu')
     > (SELECT abs(correlation) FROM tuner.task_correlation('mt')
         WHERE metric = 'latency' AND other_metric = 'io_wait') AS cpu_more_than_io_wait;

-- Rank 1, then a rank larger than the tasks (clamped to the 3 tasks).
SELECT tuner.set_algorithm('mt', 'icm', '{"rank": 1}');
SELECT (tuner.suggest_next('mt') ->> 'trial') IS NOT NULL AS suggested;
SELECT tuner.set_algorithm('mt', 'icm', '{"rank": 9}');
SELECT (tuner.suggest_next('mt') ->> 'trial') IS NOT NULL AS suggested;
SELECT m.rank, array_dims(m.task_loadings) AS loadings
  FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'mt' ORDER BY m.id DESC LIMIT 2;

-- Back to the single-task GP: its model rows are kind gp, objective only.
SELECT tuner.set_algorithm('mt', 'gp-ei');
SELECT (tuner.suggest_next('mt') ->> 'trial') IS NOT NULL AS suggested;
SELECT m.kind, m.tasks, m.rank, m.task_covariance IS NULL AS no_tasks, m.fit_ms > 0 AS timed
  FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'mt' ORDER BY m.id DESC LIMIT 1;

-- icm without auxiliary metrics is the single-task GP.
SELECT tuner.create_study('solo', 'y', 'minimize', '{"seed": 8, "n_initial": 3}') > 0 AS created;
SELECT tuner.add_parameter('solo', 'a', 'float', 0, 1);
SELECT tuner.set_algorithm('solo', 'icm');
DO $$
DECLARE
    s jsonb;
BEGIN
    FOR i IN 1 .. 5 LOOP
        s := tuner.suggest_next('solo');
        PERFORM tuner.report((s ->> 'trial')::bigint,
            jsonb_build_object('y', ((s -> 'params' ->> 'a')::float8 - 0.4) ^ 2, 'other', i));
    END LOOP;
END;
$$;
SELECT m.kind, m.tasks FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'solo' ORDER BY m.id;

-- random: uniform points, no model.
SELECT tuner.create_study('rnd', 'y', 'minimize', '{"seed": 2}') > 0 AS created;
SELECT tuner.add_parameter('rnd', 'a', 'float', 0, 1);
SELECT tuner.add_parameter('rnd', 'b', 'int', 1, 10);
SELECT tuner.set_algorithm('rnd', 'random');
DO $$
DECLARE
    s jsonb;
BEGIN
    FOR i IN 1 .. 6 LOOP
        s := tuner.suggest_next('rnd');
        PERFORM tuner.report((s ->> 'trial')::bigint, '{"y": 1}');
    END LOOP;
END;
$$;
SELECT source, count(*) FROM tuner.trials WHERE study = 'rnd' GROUP BY source ORDER BY source;
SELECT count(*) AS models FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'rnd';

-- Joint optimisation under icm: {"joint": w} (setting icm_joint) makes the
-- acquisition optimise the objective plus w times the auxiliary metrics
-- with a direction (standardised, each in its direction).
SELECT tuner.set_algorithm('mt', 'icm', '{"joint": 0.5}');
SELECT algorithm, settings -> 'icm_joint' AS joint, settings -> 'icm_rank' AS rank
  FROM tuner.study WHERE name = 'mt';
-- options not given keep their setting; true is 1, false is 0 (off)
SELECT tuner.set_algorithm('mt', 'icm', '{"rank": 2}');
SELECT settings -> 'icm_joint' AS joint FROM tuner.study WHERE name = 'mt';
SELECT tuner.set_algorithm('mt', 'icm', '{"joint": true}');
SELECT settings -> 'icm_joint' AS joint FROM tuner.study WHERE name = 'mt';
SELECT tuner.set_algorithm('mt', 'icm', '{"joint": false, "rank": 1}');
SELECT settings -> 'icm_joint' AS joint, settings -> 'icm_rank' AS rank
  FROM tuner.study WHERE name = 'mt';
SELECT tuner.set_algorithm('mt', 'icm', '{"joint": 2}');
SELECT (tuner.suggest_next('mt') ->> 'trial') IS NOT NULL AS suggested;
SELECT t.source, t.predicted_mean IS NOT NULL AS predicted, t.acquisition IS NOT NULL AS log_ei
  FROM tuner.trials t WHERE t.study = 'mt' ORDER BY t.trial DESC LIMIT 1;
-- Its errors.
SELECT tuner.set_algorithm('mt', 'icm', '{"joint": -1}');
SELECT tuner.set_algorithm('mt', 'icm', '{"joint": -0.001}');
SELECT tuner.set_algorithm('mt', 'icm', '{"joint": 1001}');
SELECT tuner.set_algorithm('mt', 'icm', '{"joint": "1"}');
SELECT tuner.set_algorithm('mt', 'icm', '{"joint": null}');
SELECT tuner.set_algorithm('mt', 'icm', '{"joint": [1]}');
SELECT tuner.set_algorithm('mt', 'icm', '{"joint": {"w": 1}}');
SELECT tuner.set_algorithm('mt', 'gp-ei', '{"joint": 1}');
SELECT tuner.set_algorithm('mt', 'clustered-icm', '{"joint": 1}');
SELECT tuner.set_algorithm('mt', 'random', '{"joint": 1}');
SELECT settings -> 'icm_joint' AS unchanged FROM tuner.study WHERE name = 'mt';
SELECT tuner.create_study('bad_joint', 'y', settings => '{"icm_joint": -2}');
SELECT tuner.create_study('bad_joint', 'y', settings => '{"icm_joint": "on"}');
SELECT tuner.create_study('bad_joint', 'y', settings => '{"joint": 1}');
-- aux_weights the model code refuses: tuner._suggest (the C entry point)
-- with a record of three trials of a study of its own
SELECT tuner.create_study('mt_w', 'y', 'minimize', '{"seed": 1, "n_initial": 2}') > 0 AS created;
SELECT tuner.add_parameter('mt_w', 'x', 'float', 0, 1);
SELECT tuner.add_metric('mt_w', 'aux') > 0 AS added;
SELECT count(tuner.report((tuner.suggest_next('mt_w') ->> 'trial')::bigint,
						  jsonb_build_object('y', i, 'aux', 2 * i))) AS reported
  FROM generate_series(1, 3) i;
CREATE FUNCTION regress_aux_record(weights float8[])
RETURNS tuner.suggestion
LANGUAGE sql
AS $$
SELECT jsonb_populate_record(NULL::tuner.suggestion, jsonb_build_object(
		'algorithm', 'icm', 'parameters', ARRAY['x'], 'kinds', ARRAY[0], 'lows', ARRAY[0.0],
		'highs', ARRAY[1.0], 'log_scales', ARRAY[false], 'n_choices', ARRAY[0], 'fixed', '{}'::jsonb,
		'sign', 1, 'objective_metric', (SELECT m.id FROM tuner.metric m WHERE m.study_id = s.id AND m.name = 'y'),
		'aux_metrics', ARRAY(SELECT m.id FROM tuner.metric m WHERE m.study_id = s.id AND m.name = 'aux'),
		'observed', ARRAY(SELECT t.id FROM tuner.trial t WHERE t.study_id = s.id ORDER BY t.number),
		'pending', '{}'::bigint[], 'other', '{}'::bigint[], 'n_initial', 2, 'design_index', 3,
		'seed', 1, 'design_seed', 1, 'aux_weights', weights, 'canonical', true))
  FROM tuner.study s WHERE s.name = 'mt_w';
$$;
SELECT tuner._suggest(s.id, regress_aux_record(ARRAY[1.0, 1.0])) FROM tuner.study s WHERE s.name = 'mt_w';
SELECT tuner._suggest(s.id, regress_aux_record(ARRAY['NaN'::float8])) FROM tuner.study s WHERE s.name = 'mt_w';
-- (the same record with one weight suggests)
SELECT (tuner._suggest(s.id, regress_aux_record(ARRAY[1.0]))).source FROM tuner.study s WHERE s.name = 'mt_w';
DROP FUNCTION regress_aux_record(float8[]);
SELECT tuner.drop_study('mt_w');

-- A study run under it, next to its twin without: the objective depends on
-- c only (flat in a and b), wear (minimize) is lowest at a = 0.8, b = 0.2,
-- speed (maximize) highest there, note has no direction (modelled, not in
-- the target).  With the joint target the model's trials find lower wear,
-- and a trial good for both.
SELECT tuner.create_study('jt', 'y', 'minimize',
                          '{"seed": 11, "n_initial": 6, "icm_joint": true}') > 0 AS created;
SELECT tuner.create_study('jt_off', 'y', 'minimize', '{"seed": 11, "n_initial": 6}') > 0 AS created;
SELECT settings -> 'icm_joint' AS joint FROM tuner.study WHERE name = 'jt';
SELECT tuner.add_parameter(s, p, 'float', 0, 1)
  FROM unnest(ARRAY['jt', 'jt_off']) s, unnest(ARRAY['a', 'b', 'c']) p;
-- no auxiliary metric with a direction yet: a notice
SELECT tuner.set_algorithm('jt', 'icm', '{"joint": 1}');
SELECT tuner.add_metric(s, 'wear', 'auxiliary', 'minimize') > 0 AS declared,
       tuner.add_metric(s, 'speed', 'auxiliary', 'maximize') > 0 AS declared,
       tuner.add_metric(s, 'note', 'auxiliary') > 0 AS declared,
       tuner.set_algorithm(s, 'icm')
  FROM unnest(ARRAY['jt', 'jt_off']) s;
DO $$
DECLARE
    s jsonb;
    a float8;
    b float8;
    c float8;
    st text;
BEGIN
    FOREACH st IN ARRAY ARRAY['jt', 'jt_off'] LOOP
        FOR i IN 1 .. 14 LOOP
            s := tuner.suggest_next(st);
            a := (s -> 'params' ->> 'a')::float8;
            b := (s -> 'params' ->> 'b')::float8;
            c := (s -> 'params' ->> 'c')::float8;
            PERFORM tuner.report((s ->> 'trial')::bigint, jsonb_build_object(
                'y', (c - 0.5) ^ 2,
                'wear', (a - 0.8) ^ 2 + (b - 0.2) ^ 2,
                'speed', 10 - 3 * ((a - 0.8) ^ 2 + (b - 0.2) ^ 2) + 0.1 * c,
                'note', sin(5 * a)));
        END LOOP;
    END LOOP;
END;
$$;
SELECT t.study, count(*) AS trials, count(*) FILTER (WHERE t.source = 'model') AS by_model,
       bool_and(t.acquisition IS NOT NULL AND t.predicted_mean IS NOT NULL)
           FILTER (WHERE t.source = 'model') AS predicted
  FROM tuner.trials t WHERE t.study IN ('jt', 'jt_off') GROUP BY t.study ORDER BY t.study;
SELECT DISTINCT m.kind, m.tasks FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'jt' ORDER BY m.kind;
SELECT (SELECT min(o.value) FROM tuner.observation o
          JOIN tuner.metric m ON m.id = o.metric_id AND m.name = 'wear'
          JOIN tuner.trial t ON t.id = o.trial_id AND t.source = 'model'
          JOIN tuner.study s ON s.id = t.study_id AND s.name = 'jt')
     < (SELECT min(o.value) FROM tuner.observation o
          JOIN tuner.metric m ON m.id = o.metric_id AND m.name = 'wear'
          JOIN tuner.trial t ON t.id = o.trial_id AND t.source = 'model'
          JOIN tuner.study s ON s.id = t.study_id AND s.name = 'jt_off') AS lower_wear_when_joint;
SELECT t.study, bool_or((t.metrics ->> 'wear')::float8 < 0.01 AND t.value < 0.01) AS good_for_both
  FROM tuner.trials t WHERE t.study IN ('jt', 'jt_off') GROUP BY t.study ORDER BY t.study;

-- Below 10 complete trials an icm study's steps are GP-EI's, and each is
-- warm-started from the previous gp fit as a gp-ei study's are: its gp-ei
-- twin (same seed, same reports) suggests the same trials and stores the
-- same fits.  From trial 10 on the icm study fits ICM models.
SELECT tuner.create_study(s, 'y', 'minimize', '{"seed": 21, "n_initial": 3}') > 0 AS created
  FROM unnest(ARRAY['tw_icm', 'tw_gp']) s;
SELECT tuner.add_parameter(s, p, 'float', 0, 1)
  FROM unnest(ARRAY['tw_icm', 'tw_gp']) s, unnest(ARRAY['a', 'b', 'c']) p;
SELECT tuner.add_metric('tw_icm', 'aux', 'auxiliary', 'minimize') > 0 AS declared;
SELECT tuner.set_algorithm('tw_icm', 'icm');
DO $$
DECLARE
    s jsonb;
    a float8;
    b float8;
    c float8;
    st text;
BEGIN
    FOREACH st IN ARRAY ARRAY['tw_icm', 'tw_gp'] LOOP
        FOR i IN 1 .. 12 LOOP
            s := tuner.suggest_next(st);
            a := (s -> 'params' ->> 'a')::float8;
            b := (s -> 'params' ->> 'b')::float8;
            c := (s -> 'params' ->> 'c')::float8;
            PERFORM tuner.report((s ->> 'trial')::bigint, jsonb_build_object(
                'y', (a - 0.3) ^ 2 + 2 * (b - 0.6) ^ 2 + 0.1 * c,
                'aux', (a - 0.3) ^ 2 + 0.05 * sin(9 * c)));
        END LOOP;
    END LOOP;
END;
$$;
SELECT i.number, i.source, i.params = g.params AS same_config
  FROM tuner.trials i JOIN tuner.trials g ON g.study = 'tw_gp' AND g.number = i.number
 WHERE i.study = 'tw_icm' ORDER BY i.number;
SELECT mi.n, mi.kind, mg.kind AS twin_kind,
       mi.kind = 'gp' AND mi.lengthscales = mg.lengthscales AND mi.noise = mg.noise
           AND mi.outputscale = mg.outputscale AS same_fit
  FROM tuner.model mi JOIN tuner.study si ON si.id = mi.study_id AND si.name = 'tw_icm'
  JOIN tuner.model mg ON mg.n = mi.n
  JOIN tuner.study sg ON sg.id = mg.study_id AND sg.name = 'tw_gp'
 ORDER BY mi.n;

SELECT tuner.drop_study(name) FROM tuner.study
 WHERE name IN ('mt', 'solo', 'rnd', 'jt', 'jt_off', 'tw_icm', 'tw_gp');
