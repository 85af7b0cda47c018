-------------------------------------------------------------------------------
-- _native_rows reads only the trials of its study.
--
-- The native rows of trials were built by joining the given trial ids to
-- tuner.trial and reading each trial's config through the study's
-- parameters in a LATERAL subquery.  Nothing tied the trials to the study,
-- so a plan that scans tuner.trial first (the planner may, depending on
-- the table's statistics) cast other studies' configs with this study's
-- parameter kinds: "cannot cast jsonb numeric to type boolean" from
-- replay_suggestion, seen in the conditions regress test depending on
-- which tests ran before it.  The trial must now belong to the study,
-- which every caller's ids already do.
-------------------------------------------------------------------------------

-- The native rows (src/core/space.h) of trials, in the given order, over
-- the named parameters: what suggest_next builds from its history.
CREATE OR REPLACE FUNCTION tuner._native_rows(p_study_id bigint, ids bigint[], names text[])
RETURNS float8[]
LANGUAGE sql STABLE
AS $$
SELECT pg_catalog.array_agg(r.x ORDER BY o.k)
  FROM pg_catalog.unnest($2) WITH ORDINALITY AS o(id, k)
  JOIN tuner.trial t ON t.id = o.id AND t.study_id = $1
 CROSS JOIN LATERAL (
	SELECT pg_catalog.array_agg(CASE p.kind
				WHEN 'bool' THEN CASE WHEN (t.config -> p.name)::bool THEN 1 ELSE 0 END
				WHEN 'categorical' THEN pg_catalog.array_position(p.choices, t.config ->> p.name) - 1
				ELSE (t.config -> p.name)::float8 END ORDER BY n.j) AS x
	  FROM pg_catalog.unnest($3) WITH ORDINALITY AS n(name, j)
	  JOIN tuner.parameter p ON p.study_id = $1 AND p.name = n.name) r;
$$;
