/*
 * multiobjective.sql
 *	  Several objectives: the Pareto front, hypervolume and ParEGO's
 *	  scalarization.
 */

-------------------------------------------------------------------------------
-- Multi-objective studies (issue 9): two or more objectives, each with its
-- direction; the Pareto front, its hypervolume, and ParEGO suggestions
-- (src/core/pareto.h, hypervolume.h, parego.h).
--
-- The study's own objective (tuner.study.objective, set by create_study)
-- is the first objective; tuner.add_metric(study, name, 'objective',
-- direction => ...) adds the others, in the order they were added.
-------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION tuner._pareto_first_front(points float8[])
RETURNS bool[]
AS 'MODULE_PATHNAME', 'tuner_pareto_first_front'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION tuner._hypervolume(points float8[], reference float8[])
RETURNS float8
AS 'MODULE_PATHNAME', 'tuner_hypervolume_points'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION tuner._parego_scalarize(points float8[], seed bigint)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'tuner_parego_scalarize'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION tuner._parego_weights(objectives int, seed bigint)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'tuner_parego_weights'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- The objectives of a study in order: its own objective first, then the
-- metrics added with role 'objective' by id; sign is 1 to minimize, -1 to
-- maximize.
CREATE OR REPLACE FUNCTION tuner._objectives(study_id bigint)
RETURNS TABLE (ordinal int, id bigint, name text, direction text, sign float8)
LANGUAGE sql STABLE
AS $$
SELECT (pg_catalog.row_number() OVER (ORDER BY m.name <> s.objective, m.id))::int,
	   m.id, m.name, COALESCE(m.direction, s.direction),
	   CASE COALESCE(m.direction, s.direction) WHEN 'maximize' THEN -1 ELSE 1 END::float8
  FROM tuner.study s
  JOIN tuner.metric m ON m.study_id = s.id AND m.role = 'objective'
 WHERE s.id = $1
 ORDER BY 1;
$$;

-- Whether a study has more than one objective.
CREATE OR REPLACE FUNCTION tuner._is_multiobjective(study_id bigint)
RETURNS bool
LANGUAGE sql STABLE
AS $$
SELECT pg_catalog.count(*) > 1 FROM tuner.metric m
 WHERE m.study_id = $1 AND m.role = 'objective';
$$;

-- The objectives of a study, in the order of pareto_front's values.
CREATE OR REPLACE FUNCTION tuner.objectives(study text)
RETURNS TABLE (ordinal int, metric text, direction text)
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	s tuner.study;
BEGIN
	s := tuner._find_study($1);
	RETURN QUERY SELECT o.ordinal, o.name, o.direction FROM tuner._objectives(s.id) o;
END;
$$;

COMMENT ON FUNCTION tuner.objectives(text) IS
	'The objectives of a study in order (its own objective first) with their directions';

-- The signed objectives of the trials ids (every objective minimized), one
-- row per trial in the order of ids; NULL for no trials.
CREATE OR REPLACE FUNCTION tuner._objective_matrix(ids bigint[], metrics bigint[], signs float8[])
RETURNS float8[]
LANGUAGE sql STABLE
AS $$
SELECT pg_catalog.array_agg(ARRAY(
			SELECT c.sign * ob.value
			  FROM ROWS FROM (pg_catalog.unnest($2), pg_catalog.unnest($3)) WITH ORDINALITY AS c(id, sign, j)
			  LEFT JOIN tuner.observation ob ON ob.trial_id = o.id AND ob.metric_id = c.id
			 ORDER BY c.j) ORDER BY o.k)
  FROM pg_catalog.unnest($1) WITH ORDINALITY AS o(id, k);
$$;

-- The error of functions that need a single objective.
CREATE OR REPLACE FUNCTION tuner._require_one_objective(s tuner.study, fn text)
RETURNS void
LANGUAGE plpgsql STABLE
AS $$
BEGIN
	IF tuner._is_multiobjective(s.id) THEN
		RAISE EXCEPTION 'study "%" has % objectives, so % has no single answer', s.name,
			  (SELECT pg_catalog.count(*) FROM tuner._objectives(s.id)), fn
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = pg_catalog.format('Its objectives: %s.',
						   (SELECT pg_catalog.string_agg(pg_catalog.format('%s (%s)', o.name, o.direction), ', ' ORDER BY o.ordinal)
							  FROM tuner._objectives(s.id) o)),
				  HINT = pg_catalog.format('Its best trials are the non-dominated ones: SELECT * FROM tuner.pareto_front(%L).', s.name);
	END IF;
END;
$$;

-- The trials whose objectives pareto_front and hypervolume compare:
-- complete, with every objective reported and every outcome constraint
-- met; values in the objectives' order and units.
CREATE OR REPLACE FUNCTION tuner._objective_rows(study_id bigint)
RETURNS TABLE (trial bigint, number int, objectives float8[], signed float8[], params jsonb)
LANGUAGE sql STABLE
AS $$
WITH o AS MATERIALIZED (
	SELECT pg_catalog.array_agg(x.id ORDER BY x.ordinal) AS ids,
		   pg_catalog.array_agg(x.sign ORDER BY x.ordinal) AS signs
	  FROM tuner._objectives($1) x
)
SELECT t.id, t.number, v.objectives, v.signed, t.config
  FROM tuner.trial t
 CROSS JOIN o
 CROSS JOIN LATERAL (
	SELECT pg_catalog.array_agg(ob.value ORDER BY c.j) AS objectives,
		   pg_catalog.array_agg(c.sign * ob.value ORDER BY c.j) AS signed,
		   pg_catalog.count(ob.value) AS n
	  FROM ROWS FROM (pg_catalog.unnest(o.ids), pg_catalog.unnest(o.signs)) WITH ORDINALITY AS c(id, sign, j)
	  LEFT JOIN tuner.observation ob ON ob.trial_id = t.id AND ob.metric_id = c.id) v
 WHERE t.study_id = $1 AND t.state = 'complete'
   AND v.n = pg_catalog.cardinality(o.ids)
   AND tuner._trial_meets_constraints(t.id) IS NOT FALSE
 ORDER BY t.number;
$$;

-- The Pareto front of a study: its complete trials that met every outcome
-- constraint and that no other such trial dominates (no worse in every
-- objective, better in one, each in its direction).  objectives holds the
-- trial's values in the order of tuner.objectives(study).  Trials with
-- equal values are all on the front or all off it.  With one objective
-- the front is every trial at the best value.  Failed, interrupted and
-- running trials are not compared, nor trials missing an objective.
CREATE OR REPLACE FUNCTION tuner.pareto_front(study text)
RETURNS TABLE (trial bigint, number int, objectives float8[], params jsonb)
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	v_ids bigint[];
	v_points float8[];
	v_front bool[];
BEGIN
	s := tuner._find_study($1);
	SELECT pg_catalog.array_agg(r.trial ORDER BY r.number),
		   pg_catalog.array_agg(r.signed ORDER BY r.number)
	  INTO v_ids, v_points
	  FROM tuner._objective_rows(s.id) r;
	IF v_ids IS NULL THEN
		RETURN;
	END IF;
	v_front := tuner._pareto_first_front(v_points);
	RETURN QUERY
	SELECT r.trial, r.number, r.objectives, r.params
	  FROM tuner._objective_rows(s.id) r
	  JOIN ROWS FROM (pg_catalog.unnest(v_ids), pg_catalog.unnest(v_front)) AS f(id, on_front)
		ON f.id = r.trial
	 WHERE f.on_front
	 ORDER BY r.signed[1], r.number;
END;
$$;

COMMENT ON FUNCTION tuner.pareto_front(text) IS
	'The non-dominated complete trials of a study, with their objectives in the order of tuner.objectives()';

-- The hypervolume of a study's front: the volume of objective space its
-- trials dominate, bounded by reference (one value per objective, in the
-- order of tuner.objectives(), in each objective's units: a worst
-- acceptable value, above the front of a minimized objective and below
-- that of a maximized one).  Trials not better than the reference in
-- every objective add nothing; no trial gives 0.  Exact, for up to 6
-- objectives.
CREATE OR REPLACE FUNCTION tuner.hypervolume(study text, reference float8[])
RETURNS float8
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	s tuner.study;
	v_signs float8[];
	v_names text[];
	v_points float8[];
	v_ref float8[];
	i int;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null(reference, 'reference');
	SELECT pg_catalog.array_agg(o.sign ORDER BY o.ordinal),
		   pg_catalog.array_agg(o.name ORDER BY o.ordinal)
	  INTO v_signs, v_names
	  FROM tuner._objectives(s.id) o;
	IF pg_catalog.array_ndims(reference) > 1 THEN
		RAISE EXCEPTION 'reference must be a one-dimensional array'
			USING ERRCODE = 'array_subscript_error',
				  DETAIL = pg_catalog.format('It has %s dimensions.', pg_catalog.array_ndims(reference)),
				  HINT = pg_catalog.format('Give a worst acceptable value of %s, in this order.',
										   pg_catalog.array_to_string(v_names, ', '));
	END IF;
	IF pg_catalog.cardinality(reference) <> pg_catalog.cardinality(v_names) THEN
		RAISE EXCEPTION 'reference must have one value per objective of study "%"', s.name
			USING ERRCODE = 'array_subscript_error',
				  DETAIL = pg_catalog.format('Got %s values for %s objectives.',
											 COALESCE(pg_catalog.cardinality(reference), 0),
											 pg_catalog.cardinality(v_names)),
				  HINT = pg_catalog.format('Give a worst acceptable value of %s, in this order.',
										   pg_catalog.array_to_string(v_names, ', '));
	END IF;
	FOR i IN 1 .. pg_catalog.cardinality(v_names)
	LOOP
		IF reference[i] IS NULL OR reference[i] IN ('NaN', 'Infinity', '-Infinity') THEN
			RAISE EXCEPTION 'reference value of "%" must be a finite number', v_names[i]
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', COALESCE(reference[i]::text, 'NULL'));
		END IF;
		v_ref := v_ref || v_signs[i] * reference[i];
	END LOOP;
	SELECT pg_catalog.array_agg(r.signed ORDER BY r.number) INTO v_points
	  FROM tuner._objective_rows(s.id) r;
	RETURN tuner._hypervolume(COALESCE(v_points, '{}'), v_ref);
END;
$$;

COMMENT ON FUNCTION tuner.hypervolume(text, float8[]) IS
	'Volume of objective space the study''s trials dominate up to a reference point (one worst acceptable value per objective)';
