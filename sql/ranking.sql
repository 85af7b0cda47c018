-- Ranking with few trials (issue 26, item 6): when the Lasso keeps fewer
-- parameters than select_top needs, a Gaussian process's evidence fills
-- the slots, each row says which signal ranked it, and no parameter
-- without evidence ranks above one with evidence.
--
-- 16 explored trials (sapphire's exploration), 5 parameters, 3 drivers:
-- threads rises linearly, ratio has its optimum in the middle of its range
-- and workers a broad bump (no linear trend for the Lasso to find in
-- either); noise1 and noise2 do nothing.
SELECT tuner.create_study('rank16', 'score', 'maximize', '{"seed": 5}') > 0 AS created;
SELECT tuner.add_parameter('rank16', 'threads', 'float', 0, 1, default_value => '0.5');
SELECT tuner.add_parameter('rank16', 'ratio', 'float', 0, 1, default_value => '0.2');
SELECT tuner.add_parameter('rank16', 'noise1', 'float', 0, 10, default_value => '5');
SELECT tuner.add_parameter('rank16', 'workers', 'int', 1, 64, default_value => '4');
SELECT tuner.add_parameter('rank16', 'noise2', 'int', 0, 100, default_value => '50');
SELECT tuner.set_algorithm('rank16', 'sapphire', '{"explore": 16, "top_k": 3}');
DO $$
DECLARE
	s jsonb;
	c jsonb;
BEGIN
	FOR i IN 1..16 LOOP
		s := tuner.suggest_next('rank16');
		c := s -> 'params';
		PERFORM tuner.report((s ->> 'trial')::bigint, pg_catalog.jsonb_build_object('score',
			100 + 10 * (c ->> 'threads')::float8
				- 60 * pg_catalog.power((c ->> 'ratio')::float8 - 0.5, 2)
				+ 15 * pg_catalog.exp(-pg_catalog.power(((c ->> 'workers')::float8 - 32) / 20, 2))
				+ 0.1 * pg_catalog.sin(7 * i)));
	END LOOP;
END
$$;

-- The Lasso alone finds fewer than 3 ...
SELECT pg_catalog.count(*) FILTER (WHERE importance > 0) AS lasso_nonzero
  FROM tuner.lasso_rank('rank16');
-- ... and 0.2.0's ranking (path order after it) misses a driver
SELECT pg_catalog.array_agg(parameter ORDER BY parameter) AS top3_path_order
  FROM tuner.lasso_rank('rank16', '{"fill": "none"}') WHERE rank <= 3;
-- now: the three drivers, two of them by the GP's evidence
SELECT parameter, signal, gp_evidence >= 3 AS gp_evidence_3
  FROM tuner.lasso_rank('rank16') WHERE rank <= 3 ORDER BY parameter;
-- no parameter without evidence ranks above one with evidence; each
-- signal is backed by what it says
CREATE TEMP TABLE r AS SELECT * FROM tuner.lasso_rank('rank16');
SELECT NOT EXISTS (SELECT 1 FROM r a, r b
					WHERE a.signal = 'none' AND b.signal <> 'none' AND a.rank < b.rank) AS evidence_first,
	   NOT EXISTS (SELECT 1 FROM r a, r b
					WHERE a.signal = 'gp' AND b.signal = 'lasso' AND a.rank < b.rank) AS lasso_before_gp,
	   bool_and(CASE signal WHEN 'lasso' THEN importance > 0 AND gp_evidence IS NULL
							WHEN 'gp' THEN importance = 0 AND gp_evidence >= 3
							ELSE importance = 0 AND gp_evidence < 3 END) AS signals_backed,
	   pg_catalog.array_agg(rank ORDER BY rank) = ARRAY[1, 2, 3, 4, 5] AS ranks
  FROM r;
-- fill "none": 0.2.0's ranking; nothing from the GP
SELECT parameter, rank, signal, gp_evidence
  FROM tuner.lasso_rank('rank16', '{"fill": "none"}')
 WHERE importance = 0 ORDER BY rank;

-- The sapphire pipeline: the 17th suggestion ranks (select_top) and
-- tunes the three drivers
SELECT (tuner.suggest_next('rank16') -> 'params') ? 'threads' AS suggested;
SELECT pg_catalog.array_agg(p.name ORDER BY p.name) AS enabled
  FROM tuner.parameter p JOIN tuner.study s ON s.id = p.study_id
 WHERE s.name = 'rank16' AND p.enabled;
SELECT e ->> 'parameter' AS parameter, e ->> 'signal' AS signal
  FROM tuner.study_event ev JOIN tuner.study s ON s.id = ev.study_id,
	   pg_catalog.jsonb_array_elements(ev.detail -> 'ranking') e
 WHERE s.name = 'rank16' AND ev.event = 'select_top' AND (e ->> 'rank')::int <= 3
 ORDER BY 1;
-- select_top itself reports the signal
SELECT parameter, enabled, signal
  FROM tuner.select_top('rank16', 3) ORDER BY parameter;
SELECT * FROM tuner.lasso_rank('rank16', '{"fill": "gp2"}');
SELECT * FROM tuner.lasso_rank('rank16', '{"fill": 1}');
SELECT * FROM tuner.lasso_rank('rank16', '{"fil": "gp"}');

-- Over tuner.max_fit_rows trials the GP is skipped with a notice
SET tuner.max_fit_rows = 10;
SELECT pg_catalog.array_agg(parameter ORDER BY rank) = (SELECT pg_catalog.array_agg(parameter ORDER BY rank)
														  FROM tuner.lasso_rank('rank16', '{"fill": "none"}')) AS path_order,
	   bool_and(gp_evidence IS NULL) AS no_gp
  FROM tuner.lasso_rank('rank16');
RESET tuner.max_fit_rows;

-- The policy directly (tuner._rank_parameters): Lasso evidence, then GP
-- evidence, then path order.  A categorical column (3 choices, bin
-- centres) that drives y, an ordered one that does not.
SELECT u.rank, u.signal, u.evidence >= 3 AS gp_evidence_3
  FROM tuner._rank_parameters('{0, 0, 0.5}', '{2, 1, 3}',
	   (SELECT pg_catalog.array_agg(ARRAY[((i % 3) + 0.5) / 3, ((i * 7) % 11) / 10.0, i / 20.0] ORDER BY i)
		  FROM pg_catalog.generate_series(1, 20) i),
	   (SELECT pg_catalog.array_agg(CASE i % 3 WHEN 1 THEN 5 ELSE 0 END + 0.01 * pg_catalog.sin(i) ORDER BY i)
		  FROM pg_catalog.generate_series(1, 20) i),
	   '{3, 0, 0}', 1) r,
	   ROWS FROM (pg_catalog.unnest(r.rank), pg_catalog.unnest(r.signal), pg_catalog.unnest(r.gp_evidence))
		 WITH ORDINALITY AS u(rank, signal, evidence, i)
 ORDER BY u.i;
-- without x: no GP, path order
SELECT * FROM tuner._rank_parameters('{0, 0, 0.5}', '{2, 1, 0}', NULL, NULL, NULL, NULL);
-- every parameter with Lasso evidence: the GP is not needed
SELECT * FROM tuner._rank_parameters('{0.1, 0.3}', '{2, 1}', '{{0, 1}, {1, 0}, {0.5, 0.5}}', '{1, 2, 3}', NULL, 1);
-- errors
SELECT * FROM tuner._rank_parameters(NULL, '{1}', NULL, NULL, NULL, NULL);
SELECT * FROM tuner._rank_parameters('{1}', NULL, NULL, NULL, NULL, NULL);
SELECT * FROM tuner._rank_parameters('{-1, 0}', '{1, 2}', NULL, NULL, NULL, NULL);
SELECT * FROM tuner._rank_parameters('{1, 0}', '{1, -2}', NULL, NULL, NULL, NULL);
SELECT * FROM tuner._rank_parameters('{1, 0}', '{1}', NULL, NULL, NULL, NULL);
SELECT * FROM tuner._rank_parameters('{1, NaN}', '{1, 2}', NULL, NULL, NULL, NULL);
SELECT * FROM tuner._rank_parameters('{1, 0}', '{1, NULL}', NULL, NULL, NULL, NULL);
SELECT * FROM tuner._rank_parameters('{1, 0}', '{1, 2}', '{{0, 1, 2}, {1, 0, 2}}', '{1, 2}', NULL, NULL);
SELECT * FROM tuner._rank_parameters('{1, 0}', '{1, 2}', '{{0, 1}, {1, 0}}', '{1, 2, 3}', NULL, NULL);
SELECT * FROM tuner._rank_parameters('{1, 0}', '{1, 2}', '{{0, 1}, {1, 0}}', NULL, NULL, NULL);
SELECT * FROM tuner._rank_parameters('{1, 0}', '{1, 2}', '{{0, 1}, {1, Infinity}}', '{1, 2}', NULL, NULL);
SELECT * FROM tuner._rank_parameters('{1, 0}', '{1, 2}', '{{0, 1}, {1, 0}}', '{1, 2}', '{0, 1}', NULL);
SELECT * FROM tuner._rank_parameters('{1, 0}', '{1, 2}', '{{0, 1}, {1, 0}}', '{1, 2}', '{0, -3}', NULL);
SELECT * FROM tuner._rank_parameters('{1, 0}', '{1, 2}', '{{0, 1}, {1, 0}}', '{1, 2}', '{0}', NULL);
SELECT * FROM tuner._rank_parameters('{1, 0}', '{1, 2}', '{{0, 1}, {1, 1.5}}', '{1, 2}', '{0, 3}', NULL);
SELECT * FROM tuner._rank_parameters('{1, 0}', '{1, 2}', '{{0, 1}, {1, 0}}', '{2, 2}', NULL, NULL);

SELECT tuner.drop_study('rank16');
