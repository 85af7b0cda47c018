-------------------------------------------------------------------------------
-- A parameter's bounds must be representable and samplable, and a study
-- has at most 2000 parameters (issue 25 b).
--
-- Bounds are float8 columns; an int parameter's values are bigint
-- (suggestions, tuner.best, create_view) and a float's are drawn as
-- low + u * (high - low).  So int bounds past bigint failed later with
-- "bigint out of range", float bounds of +-1e308 made high - low
-- infinite and every suggestion the same (the study was "exhausted"
-- after one trial), and a study of more than 1000 parameters got no
-- design point (the scrambled Halton design, src/core/design.c, spanned
-- at most 1000 dimensions), Ceph's washed catalog of 1153 options
-- included.  The design now spans 2000 (MAX_DESIGN_DIMS), and a trigger on
-- tuner.parameter now refuses such rows however they come
-- (add_parameter, the presets and catalog imports, which go through it,
-- a widening soft bound, direct DML), and a soft bound stops widening
-- before its range would become one.
-------------------------------------------------------------------------------

-- Why a float or int range [low, high] cannot be sampled, or NULL when it
-- can: a bound not finite (or, for int, not an integer or outside
-- bigint), high - low not finite (float) or outside bigint (int), a
-- log-scaled low bound not positive.  Other kinds have no range: NULL.
CREATE FUNCTION tuner._bounds_problem(kind text, low float8, high float8, log_scale bool)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, tuner, pg_temp
AS $$
SELECT CASE
	WHEN $1 NOT IN ('float', 'int') OR $2 IS NULL OR $3 IS NULL THEN NULL
	WHEN $2 IN ('NaN', 'Infinity', '-Infinity') OR $3 IN ('NaN', 'Infinity', '-Infinity')
		THEN 'a bound is not finite'
	WHEN $1 = 'int' AND ($2 <> pg_catalog.trunc($2) OR $3 <> pg_catalog.trunc($3))
		THEN 'a bound is not an integer'
	-- bigint is [-2^63, 2^63 - 1]; 2^63 - 1 itself rounds up to 2^63 in float8
	WHEN $1 = 'int' AND ($2 < '-9223372036854775808'::float8 OR $3 >= '9223372036854775808'::float8)
		THEN 'a bound is outside bigint'
	WHEN $1 = 'int' AND $3 - $2 >= '9223372036854775808'::float8
		THEN 'high - low is outside bigint'
	-- (halved, as high - low itself would raise an overflow)
	WHEN $1 = 'float' AND $3 / 2 - $2 / 2 > '1.7976931348623157e308'::float8 / 2
		THEN 'high - low overflows float8'
	WHEN $4 AND $2 <= 0
		THEN 'the scale is logarithmic and low is not positive'
END;
$$;

-- The most parameters a study may have: the design's dimensions
-- (MAX_DESIGN_DIMS in src/core/design.c).
CREATE FUNCTION tuner._max_parameters()
RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, tuner, pg_temp
AS $$ SELECT 2000 $$;

-- Trigger: a parameter row must be samplable.  Its bounds, and the widest
-- range its soft bounds may reach (up to hard_low and hard_high), pass
-- tuner._bounds_problem; a new row (or one moved to another study) finds
-- fewer than tuner._max_parameters() others in its study.
CREATE FUNCTION tuner._parameter_limits()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, tuner, pg_temp
AS $$
DECLARE
	v_problem text;
	v_count bigint;
BEGIN
	-- (rows already stored stay updatable in their other columns)
	IF TG_OP = 'UPDATE'
	   AND (NEW.kind, NEW.low, NEW.high, NEW.log_scale, NEW.hard_low, NEW.hard_high)
		   IS NOT DISTINCT FROM (OLD.kind, OLD.low, OLD.high, OLD.log_scale, OLD.hard_low, OLD.hard_high)
	   AND NEW.study_id = OLD.study_id THEN
		RETURN NEW;
	END IF;
	v_problem := tuner._bounds_problem(NEW.kind, NEW.low, NEW.high, NEW.log_scale);
	IF v_problem IS NOT NULL THEN
		RAISE EXCEPTION 'bounds [%, %] of % parameter "%" cannot be sampled',
			  NEW.low, NEW.high, NEW.kind, NEW.name
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('In [%s, %s] %s.', NEW.low, NEW.high, v_problem),
				  HINT = CASE WHEN NEW.kind = 'int'
							  THEN 'An int parameter takes bigint values: keep low, high and high - low within bigint (below 9.2e18 in magnitude).'
							  ELSE 'Keep the bounds finite and high - low below 1.7e308; rescale the parameter (for example, tune its logarithm) if it spans more.' END;
	END IF;
	IF NEW.hard_low IS NOT NULL OR NEW.hard_high IS NOT NULL THEN
		v_problem := tuner._bounds_problem(NEW.kind, COALESCE(NEW.hard_low, NEW.low),
										   COALESCE(NEW.hard_high, NEW.high), NEW.log_scale);
		IF v_problem IS NOT NULL THEN
			RAISE EXCEPTION 'hard limits [%, %] of % parameter "%" cannot be sampled',
				  COALESCE(NEW.hard_low::text, 'none'), COALESCE(NEW.hard_high::text, 'none'),
				  NEW.kind, NEW.name
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Its soft bounds may widen to [%s, %s], and there %s.',
												 COALESCE(NEW.hard_low, NEW.low),
												 COALESCE(NEW.hard_high, NEW.high), v_problem),
					  HINT = 'Hard limits bound the widest range the parameter may reach: they must be samplable as bounds are.';
		END IF;
	END IF;
	IF TG_OP = 'INSERT' OR NEW.study_id IS DISTINCT FROM OLD.study_id THEN
		SELECT pg_catalog.count(*) INTO v_count
		  FROM tuner.parameter p
		 WHERE p.study_id = NEW.study_id AND p.id <> NEW.id;
		IF v_count >= tuner._max_parameters() THEN
			RAISE EXCEPTION 'study "%" cannot have more than % parameters',
				  (SELECT s.name FROM tuner.study s WHERE s.id = NEW.study_id),
				  tuner._max_parameters()
				USING ERRCODE = 'program_limit_exceeded',
					  DETAIL = pg_catalog.format('Parameter "%s" would be number %s; the space-filling design spans at most %s dimensions.',
												 NEW.name, v_count + 1, tuner._max_parameters()),
					  HINT = 'Split the space over several studies, or leave out parameters known not to matter.';
		END IF;
	END IF;
	RETURN NEW;
END;
$$;

CREATE TRIGGER parameter_limits BEFORE INSERT OR UPDATE ON tuner.parameter
	FOR EACH ROW EXECUTE FUNCTION tuner._parameter_limits();

-- A soft bound widens (see 0.1.0) only while the range stays samplable.
CREATE OR REPLACE FUNCTION tuner._widen_soft_bounds(s tuner.study, p_trial bigint)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, tuner, pg_temp
AS $$
DECLARE
	p tuner.parameter;
	v_margin float8 := COALESCE((s.settings ->> 'bound_margin')::float8, 0.05);
	v_hits int := COALESCE((s.settings ->> 'bound_hits')::int, 3);
	v_best jsonb;
	v_since bigint;
	v_count int;
	v_incumbent bool;
	v_old float8;
	v_new float8;
	v_side text;
BEGIN
	IF NOT EXISTS (SELECT 1 FROM tuner.parameter q
					WHERE q.study_id = s.id AND q.soft_bounds AND q.enabled) THEN
		RETURN;
	END IF;
	-- (several objectives have no single incumbent)
	IF NOT tuner._is_multiobjective(s.id) THEN
		SELECT b.params INTO v_best FROM tuner.best(s.name) b;
	END IF;
	FOR p IN SELECT * FROM tuner.parameter q
			  WHERE q.study_id = s.id AND q.soft_bounds AND q.enabled
			  ORDER BY q.position
	LOOP
		FOREACH v_side IN ARRAY ARRAY['low', 'high']
		LOOP
			SELECT COALESCE(pg_catalog.max(c.trial_id), 0) INTO v_since
			  FROM tuner.bound_change c
			 WHERE c.parameter_id = p.id AND c.side = v_side;
			SELECT pg_catalog.count(*) INTO v_count
			  FROM tuner.trial t
			 WHERE t.study_id = s.id AND t.id > v_since AND t.source = 'model'
			   AND tuner._near_bound(p, (t.config ->> p.name)::float8, v_side, v_margin);
			v_incumbent := v_best IS NOT NULL
				AND tuner._near_bound(p, (v_best ->> p.name)::float8, v_side, v_margin);
			CONTINUE WHEN v_count + v_incumbent::int < v_hits;

			v_old := CASE v_side WHEN 'low' THEN p.low ELSE p.high END;
			IF p.log_scale THEN
				v_new := CASE v_side WHEN 'low' THEN p.low * p.low / p.high
							  ELSE p.high * p.high / p.low END;
			ELSE
				v_new := CASE v_side WHEN 'low' THEN 2 * p.low - p.high
							  ELSE 2 * p.high - p.low END;
			END IF;
			IF p.kind = 'int' THEN
				v_new := CASE v_side WHEN 'low' THEN pg_catalog.floor(v_new) ELSE pg_catalog.ceil(v_new) END;
				IF p.log_scale THEN
					v_new := GREATEST(v_new, 1);
				END IF;
			END IF;
			v_new := CASE v_side WHEN 'low' THEN GREATEST(v_new, COALESCE(p.hard_low, v_new))
						  ELSE LEAST(v_new, COALESCE(p.hard_high, v_new)) END;
			CONTINUE WHEN v_new = v_old;
			-- never past what can be sampled (tuner._parameter_limits)
			CONTINUE WHEN tuner._bounds_problem(p.kind,
				CASE v_side WHEN 'low' THEN v_new ELSE p.low END,
				CASE v_side WHEN 'high' THEN v_new ELSE p.high END, p.log_scale) IS NOT NULL;

			IF v_side = 'low' THEN
				UPDATE tuner.parameter SET low = v_new WHERE id = p.id;
				p.low := v_new;
			ELSE
				UPDATE tuner.parameter SET high = v_new WHERE id = p.id;
				p.high := v_new;
			END IF;
			INSERT INTO tuner.bound_change (study_id, parameter_id, trial_id, side,
											old_value, new_value, reason)
			VALUES (s.id, p.id, p_trial, v_side, v_old, v_new,
					pg_catalog.format('%s model suggestions%s within %s of the range of the %s bound',
									  v_count, CASE WHEN v_incumbent THEN ' and the incumbent' ELSE '' END,
									  v_margin, v_side));
		END LOOP;
	END LOOP;
END;
$$;
