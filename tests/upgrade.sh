#!/bin/bash
# upgrade.sh: ALTER EXTENSION tuner UPDATE from the first released version
# (issue 8, durability).  A database created with tuner 0.1.0 and holding
# a study (trials complete, failed and running, metrics, models, a typed
# view) is updated to the current version; then
#   - every row is still there, unchanged (fingerprints as dump_restore.sh);
#   - the study goes on where it stopped;
#   - the updated extension's objects are those of a fresh CREATE EXTENSION
#     (members, function definitions, columns, policies, triggers);
#   - the released scripts src/sql/released/tuner--0.1.0.sql and
#     tuner--0.1.0--0.2.0.sql are byte for byte the ones released: changes
#     belong in the unreleased update script.
# Needs a server reachable through the PG* environment (pg_virtualenv)
# with tuner installed.
set -euo pipefail
cd "$(dirname "$0")/.."
. tests/lib/kept_study.sh

FIRST=0.1.0
# sha256 of each released script as released; never edit those files.
RELEASED=src/sql/released
declare -A RELEASED_SHA256=(
	[tuner--0.1.0.sql]=c7e324de31995200fb485fd08d236ae4a04a097af94aa882446d337626b7e5c5
	[tuner--0.1.0--0.2.0.sql]=9ebb3e5dec4cfe28964f22fe23aac4d1c0757fe9bb2fcbd424109de1dfa8049f
)
OLD=tuner_upgrade_old
NEW=tuner_upgrade_new
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $OLD" -c "DROP DATABASE IF EXISTS $NEW" >/dev/null 2>&1 || true' EXIT

fail() {
	echo "upgrade: FAILED: $*" >&2
	exit 1
}

for script in "${!RELEASED_SHA256[@]}"; do
	sha=$(sha256sum "$RELEASED/$script" | cut -d' ' -f1)
	[ "$sha" = "${RELEASED_SHA256[$script]}" ] ||
		fail "$RELEASED/$script changed since it was released (sha256 $sha); put changes in the unreleased update script"
done

current=$(psql -X -At -v ON_ERROR_STOP=1 -d postgres -c \
	"SELECT default_version FROM pg_catalog.pg_available_extensions WHERE name = 'tuner'")
[ -n "$current" ] || fail "tuner is not installed"
echo "upgrade: from $FIRST to $current"

psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $OLD" -c "DROP DATABASE IF EXISTS $NEW" \
	-c "CREATE DATABASE $OLD" -c "CREATE DATABASE $NEW"
psql -X -q -v ON_ERROR_STOP=1 -d "$OLD" -c "CREATE EXTENSION tuner VERSION '$FIRST'"
kept_study_create "$OLD"
kept_study_fingerprint "$OLD" > "$WORK/before"

psql -X -q -v ON_ERROR_STOP=1 -d "$OLD" -c "ALTER EXTENSION tuner UPDATE"
got=$(psql -X -At -v ON_ERROR_STOP=1 -d "$OLD" -c "SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'tuner'")
[ "$got" = "$current" ] || fail "after ALTER EXTENSION tuner UPDATE the version is '$got', expected '$current'"

kept_study_fingerprint "$OLD" > "$WORK/after"
if ! diff -u "$WORK/before" "$WORK/after"; then
	fail "the study's rows changed in the update"
fi
echo "upgrade: every row kept:"
sed 's/^/  /' "$WORK/after"

# The study goes on: the running trial is reported, the next one is
# number 14 and computed by the model.
next=$(kept_study_next "$OLD")
[ "$next" = "14 model" ] || fail "the updated study's next trial is '$next', expected '14 model'"
echo "upgrade: the updated study continues (trial 14 from the model)"

# Suggestions made before the update (tuner.suggestion.canonical false:
# no canonical form) replay as they were computed, and so does the first
# one after it (canonical).
replayed=$(psql -X -At -v ON_ERROR_STOP=1 -d "$OLD" -c \
	"SELECT count(*) FILTER (WHERE tuner.replay_suggestion(t.id) = t.config) || ' of ' || count(*)
	        || ', canonical ' || count(*) FILTER (WHERE g.canonical)
	   FROM tuner.trial t JOIN tuner.suggestion g ON g.trial_id = t.id")
[ "$replayed" = "14 of 14, canonical 1" ] ||
	fail "replaying the study's suggestions gave '$replayed', expected '14 of 14, canonical 1'"
echo "upgrade: every suggestion replays, before the update and after"

# What the extension is made of, in a form comparable across databases:
# members, function definitions and privileges, columns in order,
# constraints by name, indexes, views and their options, triggers,
# policies, privileges, comments, the tables pg_dump keeps and the rows
# the extension seeds.
objects() {
	psql -X -At -v ON_ERROR_STOP=1 -d "$1" <<'SQL'
SELECT 'member ' || pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid)
  FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid
 WHERE e.extname = 'tuner' AND d.deptype = 'e' ORDER BY 1;
SELECT 'config ' || c.cfg::regclass || ' ' || COALESCE(e.extcondition[c.n], '')
  FROM pg_catalog.pg_extension e, unnest(e.extconfig) WITH ORDINALITY c(cfg, n) WHERE e.extname = 'tuner' ORDER BY 1;
SELECT 'rows catalog_type ' || count(*) || ' ' || md5(string_agg(t::text, ',' ORDER BY t::text)) FROM tuner.catalog_type t;
SELECT 'rows catalog_wash_rule ' || count(*) || ' ' || md5(string_agg(t::text, ',' ORDER BY t::text)) FROM tuner.catalog_wash_rule t;
SELECT 'rows catalog_module ' || count(*) || ' ' || md5(string_agg(t::text, ',' ORDER BY t::text)) FROM tuner.catalog_module t;
SELECT 'rows preset ' || count(*) || ' ' || md5(string_agg((t.name, t.owner, t.definition)::text, ',' ORDER BY t.name)) FROM tuner.preset t;
SELECT 'function ' || p.oid::regprocedure || ' ' || md5(pg_catalog.pg_get_functiondef(p.oid)) || ' acl ' || COALESCE(p.proacl::text, '')
  FROM pg_catalog.pg_proc p WHERE p.pronamespace = 'tuner'::regnamespace ORDER BY 1;
SELECT 'column ' || c.relname || '.' || a.attname || ' ' || pg_catalog.format_type(a.atttypid, a.atttypmod)
	   || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
	   || COALESCE(' default ' || pg_catalog.pg_get_expr(ad.adbin, ad.adrelid), '') || ' #' || a.attnum
  FROM pg_catalog.pg_class c
  JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
  LEFT JOIN pg_catalog.pg_attrdef ad ON ad.adrelid = c.oid AND ad.adnum = a.attnum
 WHERE c.relnamespace = 'tuner'::regnamespace AND c.relkind IN ('r', 'v', 'p')
   AND c.relname NOT LIKE 'kept%'
 ORDER BY c.relname, a.attnum;
SELECT 'constraint ' || r.conrelid::regclass || ' ' || r.conname || ' ' || pg_catalog.pg_get_constraintdef(r.oid)
  FROM pg_catalog.pg_constraint r WHERE r.connamespace = 'tuner'::regnamespace ORDER BY 1;
SELECT 'index ' || pg_catalog.pg_get_indexdef(i.indexrelid)
  FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
 WHERE c.relnamespace = 'tuner'::regnamespace ORDER BY 1;
SELECT 'view ' || c.relname || ' ' || md5(pg_catalog.pg_get_viewdef(c.oid)) || ' ' || COALESCE(c.reloptions::text, '')
  FROM pg_catalog.pg_class c WHERE c.relnamespace = 'tuner'::regnamespace AND c.relkind = 'v' AND c.relname NOT LIKE 'kept%' ORDER BY 1;
SELECT 'trigger ' || t.tgrelid::regclass || ' ' || pg_catalog.pg_get_triggerdef(t.oid)
  FROM pg_catalog.pg_trigger t
 WHERE NOT t.tgisinternal AND t.tgrelid IN (SELECT oid FROM pg_catalog.pg_class WHERE relnamespace = 'tuner'::regnamespace) ORDER BY 1;
SELECT 'policy ' || p.tablename || ' ' || p.policyname || ' ' || p.cmd || ' ' || p.roles::text || ' ' || COALESCE(p.qual, '') || ' ' || COALESCE(p.with_check, '')
  FROM pg_catalog.pg_policies p WHERE p.schemaname = 'tuner' ORDER BY 1;
SELECT 'rls ' || c.relname || ' ' || c.relrowsecurity || ' ' || c.relforcerowsecurity
  FROM pg_catalog.pg_class c WHERE c.relnamespace = 'tuner'::regnamespace AND c.relkind = 'r' ORDER BY 1;
SELECT 'acl ' || c.relname || ' ' || c.relkind::text || ' ' || COALESCE(c.relacl::text, '')
  FROM pg_catalog.pg_class c WHERE c.relnamespace = 'tuner'::regnamespace AND c.relname NOT LIKE 'kept%' ORDER BY 1;
SELECT 'column acl ' || c.relname || '.' || a.attname || ' ' || a.attacl::text
  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid
 WHERE c.relnamespace = 'tuner'::regnamespace AND a.attacl IS NOT NULL AND c.relname NOT LIKE 'kept%' ORDER BY 1;
SELECT 'comment ' || pg_catalog.pg_describe_object(d.classoid, d.objoid, d.objsubid) || ' ' || md5(d.description)
  FROM pg_catalog.pg_description d
 WHERE pg_catalog.pg_describe_object(d.classoid, d.objoid, d.objsubid) ~ '(^| )tuner\.'
   AND pg_catalog.pg_describe_object(d.classoid, d.objoid, d.objsubid) !~ 'tuner\.kept' ORDER BY 1;
SELECT 'type ' || t.typname || ' ' || t.typtype::text FROM pg_catalog.pg_type t
 WHERE t.typnamespace = 'tuner'::regnamespace AND t.typtype NOT IN ('c') AND t.typname !~ '^_' ORDER BY 1;
SELECT 'schema acl ' || COALESCE(n.nspacl::text, '') FROM pg_catalog.pg_namespace n WHERE n.nspname = 'tuner';
SQL
}
psql -X -q -v ON_ERROR_STOP=1 -d "$NEW" -c "CREATE EXTENSION tuner"
objects "$OLD" > "$WORK/updated"
objects "$NEW" > "$WORK/fresh"
if ! diff -u "$WORK/fresh" "$WORK/updated"; then
	fail "the updated extension differs from a fresh CREATE EXTENSION tuner"
fi
echo "upgrade: the updated extension equals a fresh install ($(wc -l < "$WORK/fresh") objects compared)"

# The update script holds only real changes: every function it creates
# is new in its version or differs from the one it replaces (SET clauses
# aside: function_settings.sql pins those for every function).  An event
# trigger records the functions each update creates.
UNCHANGED=tuner_upgrade_unchanged
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $UNCHANGED" -c "CREATE DATABASE $UNCHANGED"
trap 'rm -rf "$WORK"; psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $OLD" -c "DROP DATABASE IF EXISTS $NEW" -c "DROP DATABASE IF EXISTS $UNCHANGED" >/dev/null 2>&1 || true' EXIT
unchanged=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$UNCHANGED" <<'SQL'
CREATE TABLE public.made (version text, fn regprocedure, def text);
CREATE TABLE public.before (version text, fn text, def text);
CREATE FUNCTION public.record_made() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO public.made
	SELECT (SELECT e.extversion FROM pg_catalog.pg_extension e WHERE e.extname = 'tuner'),
		   c.objid::regprocedure, NULL
	  FROM pg_catalog.pg_event_trigger_ddl_commands() c
	 WHERE c.command_tag = 'CREATE FUNCTION';
END
$$;
CREATE EXTENSION tuner VERSION '0.1.0';
CREATE FUNCTION public.defs() RETURNS TABLE (fn text, def text) LANGUAGE sql AS $$
	SELECT p.oid::regprocedure::text,
		   pg_catalog.regexp_replace(pg_catalog.pg_get_functiondef(p.oid), E'\n SET [a-z_]+ TO [^\n]*', '', 'g')
	  FROM pg_catalog.pg_proc p WHERE p.pronamespace = 'tuner'::regnamespace
$$;
CREATE EVENT TRIGGER record_made ON ddl_command_end WHEN TAG IN ('CREATE FUNCTION')
	EXECUTE FUNCTION public.record_made();
INSERT INTO public.before SELECT '0.1.0', d.* FROM public.defs() d;
ALTER EXTENSION tuner UPDATE TO '0.2.0';
INSERT INTO public.before SELECT '0.2.0', d.* FROM public.defs() d;
ALTER EXTENSION tuner UPDATE;
SELECT pg_catalog.string_agg(m.fn::text, ', ' ORDER BY m.fn::text)
  FROM (SELECT DISTINCT m.version, m.fn FROM public.made m) m
  JOIN public.before b ON b.fn = m.fn::text
  JOIN public.defs() d ON d.fn = m.fn::text
 WHERE m.version NOT IN ('0.1.0', '0.2.0') AND b.version = '0.2.0' AND b.def = d.def;
SQL
)
made=$(psql -X -At -v ON_ERROR_STOP=1 -d "$UNCHANGED" -c "SELECT count(DISTINCT fn) FROM public.made WHERE version NOT IN ('0.1.0', '0.2.0')")
[ "$made" -gt 0 ] || fail "the event trigger saw no function created by the update to $current"
[ -z "$unchanged" ] || fail "the 0.2.0 to 0.3.0 update script re-creates functions it does not change: $unchanged"
echo "upgrade: the update script re-creates no unchanged function ($made functions created, each new or changed)"

