-------------------------------------------------------------------------------
-- Conditions chain: an inactive parent makes its children inactive
-- (issue 26).
--
-- A conditional parameter was active whenever its own condition held on
-- its parent's value, and an inactive parent has its default: with b
-- active when a = 'x' and c active when b > 0.5, c went on varying while
-- a <> 'x' because b's default was above 0.5.  A parameter is now active
-- only when its parent is active too, transitively.  Parents come
-- before their children (tuner.add_parameter takes a condition on an
-- existing parameter only), so one pass in position order decides each
-- parameter after its parent.  This is the rule of space_canonical in
-- src/core/space.c, which the suggestions apply in C (see
-- canonical_suggestions.sql); enqueue, the trial guard and the runner
-- check get it through tuner._complete_config.
-------------------------------------------------------------------------------

-- A configuration with every inactive parameter at its default, in
-- position order (so a condition sees the final value of the parameter
-- it tests): a parameter is inactive when its condition fails or the
-- parameter it tests is inactive.
CREATE OR REPLACE FUNCTION tuner._apply_conditions(study_id bigint, config jsonb)
RETURNS jsonb
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	p tuner.parameter;
	c jsonb := $2;
	v_inactive text[] := '{}';
BEGIN
	FOR p IN SELECT * FROM tuner.parameter q
			  WHERE q.study_id = $1 AND q.condition_parameter IS NOT NULL
			  ORDER BY q.position
	LOOP
		IF p.condition_parameter = ANY (v_inactive) OR NOT tuner._condition_holds(p, c) THEN
			c := c || pg_catalog.jsonb_build_object(p.name, p.default_value);
			v_inactive := v_inactive || p.name;
		END IF;
	END LOOP;
	RETURN c;
END;
$$;
