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
