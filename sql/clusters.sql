-- Parameter clusters: set by hand (set_cluster), learned from the trials
-- (learn_clusters), shown by tuner.clusters, with their errors.
\set SHOW_CONTEXT never

SELECT tuner.create_study('cl', 'y', 'minimize', '{"seed": 21}') > 0 AS created;
SELECT tuner.add_parameter('cl', p, 'float', 0, 1)
  FROM unnest(ARRAY['a', 'b', 'c', 'd', 'e']) AS p;
SELECT tuner.add_parameter('cl', 'f', 'int', 1, 1024, log_scale => true);

-- Not enough to learn from yet.
SELECT * FROM tuner.learn_clusters('cl');
SELECT tuner.add_metric('cl', 'wamp') > 0 AS declared;
SELECT tuner.add_metric('cl', 'lat') > 0 AS declared;
SELECT tuner.add_metric('cl', 'rare') > 0 AS declared;
SELECT * FROM tuner.learn_clusters('cl');

-- 40 random trials.  wamp depends on a (U-shaped) and b, lat on c and on
-- the log-scaled f, rare is reported by three trials only; d and e act on
-- nothing.
SELECT tuner.set_algorithm('cl', 'random');
DO $$
DECLARE
    s jsonb;
    p jsonb;
    m jsonb;
BEGIN
    FOR i IN 1 .. 40 LOOP
        s := tuner.suggest_next('cl');
        p := s -> 'params';
        m := jsonb_build_object(
            'y', (p ->> 'a')::float8 + (p ->> 'c')::float8,
            'wamp', 4 * ((p ->> 'a')::float8 - 0.4) ^ 2 + exp((p ->> 'b')::float8) + 0.05 * sin(37 * i),
            'lat', 2 * (p ->> 'c')::float8 + ln((p ->> 'f')::float8) + 0.05 * cos(41 * i));
        IF i <= 3 THEN
            m := m || jsonb_build_object('rare', i);
        END IF;
        PERFORM tuner.report((s ->> 'trial')::bigint, m);
    END LOOP;
END;
$$;

-- Learned without applying: the strong members are the planted ones; d
-- and e join some cluster as weak members; rare has too few values.
SELECT metric,
       ARRAY(SELECT x FROM unnest(parameters) x EXCEPT SELECT unnest(weak_parameters) ORDER BY 1) AS strong,
       observations,
       confidence > 0.2 AS confident,
       (SELECT array_agg(x ORDER BY x) FROM unnest(weak_parameters) x WHERE x NOT IN ('d', 'e')) AS other_weak,
       scores -> 'a' ? 'adjusted_p' AS has_scores
  FROM tuner.learn_clusters('cl', apply => false) ORDER BY metric;
SELECT count(*) AS weak_d_e
  FROM tuner.learn_clusters('cl', apply => false), unnest(weak_parameters) w
 WHERE w IN ('d', 'e');
SELECT * FROM tuner.clusters WHERE study = 'cl';

-- Applied: tuner.clusters shows the learned groups; the same seed gives
-- the same answer.
SELECT count(*) AS learned FROM tuner.learn_clusters('cl');
SELECT metric, source, confidence IS NOT NULL AS has_confidence,
       parameters @> CASE metric WHEN 'wamp' THEN ARRAY['a', 'b'] ELSE ARRAY['c', 'f'] END AS has_planted
  FROM tuner.clusters WHERE study = 'cl' ORDER BY metric;
SELECT (SELECT array_agg(parameters::text ORDER BY metric) FROM tuner.learn_clusters('cl', false, '{"seed": 7}'))
     = (SELECT array_agg(parameters::text ORDER BY metric) FROM tuner.learn_clusters('cl', false, '{"seed": 7}')) AS reproducible;

-- By hand.
SELECT tuner.set_cluster('cl', 'lat', ARRAY['c', 'f', 'd']);
SELECT metric, parameters, source, confidence FROM tuner.clusters
 WHERE study = 'cl' AND metric = 'lat';
SELECT tuner.set_cluster('cl', 'lat', '{}');
SELECT count(*) AS lat_clusters FROM tuner.clusters WHERE study = 'cl' AND metric = 'lat';

-- clustered-icm tunes each cluster with its metric: one model row per
-- cluster and step, over the cluster's parameters.
SELECT tuner.set_cluster('cl', 'lat', ARRAY['c', 'f']);
SELECT tuner.set_cluster('cl', 'wamp', ARRAY['a', 'b']);
SELECT tuner.set_algorithm('cl', 'clustered-icm');
DO $$
DECLARE
    s jsonb;
    p jsonb;
BEGIN
    FOR i IN 1 .. 3 LOOP
        s := tuner.suggest_next('cl');
        p := s -> 'params';
        PERFORM tuner.report((s ->> 'trial')::bigint, jsonb_build_object(
            'y', (p ->> 'a')::float8 + (p ->> 'c')::float8,
            'wamp', 4 * ((p ->> 'a')::float8 - 0.4) ^ 2 + exp((p ->> 'b')::float8),
            'lat', 2 * (p ->> 'c')::float8 + ln((p ->> 'f')::float8)));
    END LOOP;
END;
$$;
SELECT number, source FROM tuner.trials WHERE study = 'cl' AND number > 40 ORDER BY number;
SELECT m.kind, m.n, m.cluster_metric, m.parameters, m.tasks, m.rank,
       array_length(m.lengthscales, 1) AS lengthscales,
       array_dims(m.task_covariance) AS covariance,
       array_dims(m.task_loadings) AS loadings,
       m.fit_ms > 0 AS timed
  FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'cl' ORDER BY m.id;
SELECT metric, other_metric, correlation BETWEEN -1 AND 1 AS valid
  FROM tuner.task_correlation('cl');
-- Without any cluster, clustered-icm is icm.
SELECT tuner.set_cluster('cl', 'lat', '{}');
SELECT tuner.set_cluster('cl', 'wamp', '{}');
SELECT (tuner.suggest_next('cl') ->> 'trial') IS NOT NULL AS suggested;
SELECT m.kind, m.tasks FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'cl' ORDER BY m.id DESC LIMIT 1;

-- A clustered-icm study starts with its design before any trial reported
-- (the first two suggestions, the first still running).
SELECT tuner.create_study('cl_new', 'y', 'minimize', '{"seed": 3}') > 0 AS created;
SELECT tuner.add_parameter('cl_new', 'a', 'float', 0, 1);
SELECT tuner.add_parameter('cl_new', 'b', 'float', 0, 1);
SELECT tuner.add_metric('cl_new', 'm') > 0 AS declared;
SELECT tuner.set_cluster('cl_new', 'm', ARRAY['a']);
SELECT tuner.set_algorithm('cl_new', 'clustered-icm');
SELECT (tuner.suggest_next('cl_new') ->> 'trial') IS NOT NULL AS first,
       (tuner.suggest_next('cl_new') ->> 'trial') IS NOT NULL AS second;
SELECT number, source, state FROM tuner.trials WHERE study = 'cl_new' ORDER BY number;
SELECT tuner.drop_study('cl_new');

-- Clusters with nothing new to propose: two booleans, one per cluster,
-- and a float in none, with all four boolean combinations tried at the
-- best trial's float.  The step is one GP over every parameter (it was a
-- random point): a model step, stored as a row of kind gp beside the
-- clusters' rows.  The metrics are unrelated to y, so the additive step
-- does not apply.
SELECT tuner.create_study('cl_done', 'y', 'minimize', '{"seed": 5, "n_initial": 5}') > 0 AS created;
SELECT tuner.add_parameter('cl_done', 'b0', 'bool');
SELECT tuner.add_parameter('cl_done', 'b1', 'bool');
SELECT tuner.add_parameter('cl_done', 'x', 'float', 0, 1);
SELECT tuner.add_metric('cl_done', 'm0') > 0 AS declared;
SELECT tuner.add_metric('cl_done', 'm1') > 0 AS declared;
SELECT tuner.set_cluster('cl_done', 'm0', ARRAY['b0']);
SELECT tuner.set_cluster('cl_done', 'm1', ARRAY['b1']);
SELECT tuner.set_algorithm('cl_done', 'clustered-icm');
DO $$
DECLARE
    t RECORD;
    i int := 0;
BEGIN
    FOR t IN SELECT * FROM (VALUES (false, false, 0.3), (false, true, 0.3),
                                   (true, false, 0.3), (true, true, 0.3),
                                   (false, false, 0.9), (true, true, 0.05),
                                   (false, true, 0.7)) AS v(b0, b1, x)
    LOOP
        PERFORM tuner.enqueue('cl_done', jsonb_build_object('b0', t.b0, 'b1', t.b1, 'x', t.x));
        PERFORM tuner.report((tuner.suggest_next('cl_done') ->> 'trial')::bigint,
                             jsonb_build_object(
                                 'y', 4 * (t.x - 0.5) ^ 2 + 0.3 * (t.b0::int + t.b1::int),
                                 'm0', sin(7 * i), 'm1', cos(5 * i)));
        i := i + 1;
    END LOOP;
END;
$$;
SELECT (tuner.suggest_next('cl_done') -> 'params') IS NOT NULL AS suggested;
SELECT t.number, t.source,
       (SELECT string_agg(m.kind || coalesce(':' || m.cluster_metric, ''), ', ' ORDER BY m.id)
          FROM tuner.model m WHERE m.trial_id = t.trial) AS models,
       (SELECT cardinality(m.lengthscales) FROM tuner.model m
         WHERE m.trial_id = t.trial AND m.kind = 'gp') AS gp_lengthscales
  FROM tuner.trials t WHERE t.study = 'cl_done' AND t.number = 8;
SELECT tuner.drop_study('cl_done');

-- Errors.
SELECT tuner.set_cluster('nope', 'lat', ARRAY['a']);
SELECT tuner.set_cluster('cl', NULL, ARRAY['a']);
SELECT tuner.set_cluster('cl', 'lat', NULL);
SELECT tuner.set_cluster('cl', 'lat', ARRAY['a', NULL]);
SELECT tuner.set_cluster('cl', 'nope', ARRAY['a']);
SELECT tuner.set_cluster('cl', 'y', ARRAY['a']);
SELECT tuner.set_cluster('cl', 'lat', ARRAY['a', 'zz']);
SELECT tuner.set_cluster('cl', 'lat', ARRAY['a', 'a']);
SELECT * FROM tuner.learn_clusters('nope');
SELECT * FROM tuner.learn_clusters('cl', NULL);
SELECT * FROM tuner.learn_clusters('cl', options => NULL);
SELECT * FROM tuner.learn_clusters('cl', options => '[]');
SELECT * FROM tuner.learn_clusters('cl', options => '{"method": "lasso"}');
SELECT * FROM tuner.learn_clusters('cl', options => '{"alpha": 1.5}');
SELECT * FROM tuner.learn_clusters('cl', options => '{"alpha": "low"}');
SELECT * FROM tuner.learn_clusters('cl', options => '{"permutations": -1}');
SELECT * FROM tuner.learn_clusters('cl', options => '{"refine_rounds": 11}');
SELECT tuner.create_study('cl_empty', 'y') > 0 AS created;
SELECT * FROM tuner.learn_clusters('cl_empty');

SELECT tuner.drop_study(name) FROM tuner.study WHERE name IN ('cl', 'cl_empty');
