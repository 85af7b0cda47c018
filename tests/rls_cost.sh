#!/bin/bash
# rls_cost.sh: what row-level security costs a role that is not a
# superuser (RELIABILITY.md, "Security").  One study per role with the
# random algorithm: 200 suggest+report cycles, then 100 more timed, and
# two reads of tuner.trials; as superuser, as a tuner_user role, and as
# that role with jit = off.  Needs a server reachable through the PG*
# environment (pg_virtualenv) with tuner installed; prints psql's
# timings.  Not part of CI (it asserts nothing).
set -euo pipefail
DB=tuner_rls_cost
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
trap 'psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true' EXIT
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" -c "CREATE EXTENSION tuner" \
	-c "DROP ROLE IF EXISTS tuner_rls_cost_user" \
	-c "CREATE ROLE tuner_rls_cost_user IN ROLE tuner_user"
for who in superuser user user_nojit; do
	role=tuner_rls_cost_user
	[ $who = superuser ] && role=$(psql -X -At -d "$DB" -c 'SELECT current_user')
	jit=on
	[ $who = user_nojit ] && jit=off
	echo "== $who"
	psql -X -q -v ON_ERROR_STOP=1 -d "$DB" <<SQL
SET ROLE $role; SET jit = $jit;
SELECT tuner.create_study('s_$who', 'y', 'minimize', '{"seed": 1}') > 0 AS created;
SELECT tuner.set_algorithm('s_$who', 'random');
SELECT tuner.add_parameter('s_$who', 'x', 'float', 0, 1);
DO \$\$ DECLARE s jsonb; BEGIN FOR i IN 1..200 LOOP s := tuner.suggest_next('s_$who'); PERFORM tuner.report((s->>'trial')::bigint, jsonb_build_object('y', (s->'params'->>'x')::float8)); END LOOP; END \$\$;
\timing on
DO \$\$ DECLARE s jsonb; BEGIN FOR i IN 1..100 LOOP s := tuner.suggest_next('s_$who'); PERFORM tuner.report((s->>'trial')::bigint, jsonb_build_object('y', (s->'params'->>'x')::float8)); END LOOP; END \$\$;
\o /dev/null
SELECT * FROM tuner.trials WHERE study = 's_$who';
SELECT * FROM tuner.trials WHERE study = 's_$who';
\o
SQL
done
psql -X -q -d postgres -c "DROP DATABASE $DB" -c "DROP ROLE tuner_rls_cost_user"
trap - EXIT
