#!/bin/bash
# dump_restore.sh: a study survives pg_dump and pg_restore into a fresh
# database (issue 8, durability): the extension's tables are registered
# with pg_extension_config_dump, so a dump holds every study, parameter,
# trial, observation, model, event and typed view, and the restored study
# goes on where it stopped (next trial number, warm-started model).  Needs
# a server reachable through the PG* environment (pg_virtualenv) with
# tuner installed.
set -euo pipefail
cd "$(dirname "$0")/.."
. tests/lib/kept_study.sh

SRC=tuner_dump_src
DST=tuner_dump_dst
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $SRC" -c "DROP DATABASE IF EXISTS $DST" >/dev/null 2>&1 || true' EXIT

psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $SRC" -c "DROP DATABASE IF EXISTS $DST" \
	-c "CREATE DATABASE $SRC" -c "CREATE DATABASE $DST"
psql -X -q -v ON_ERROR_STOP=1 -d "$SRC" -c "CREATE EXTENSION tuner"
kept_study_create "$SRC"
# A role's own preset (tuner.preset keeps only those in a dump; the
# built-ins come with CREATE EXTENSION).
psql -X -q -v ON_ERROR_STOP=1 -d "$SRC" -c "SELECT tuner.create_preset('kept_preset',
	'{\"objective\": \"y\", \"parameters\": [{\"name\": \"x\", \"type\": \"float\", \"low\": 0, \"high\": 1}]}')"
presets() {
	psql -X -At -v ON_ERROR_STOP=1 -d "$1" -c \
		"SELECT name, owner IS NULL, md5(definition::text) FROM tuner.preset ORDER BY name, owner"
}

kept_study_fingerprint "$SRC" > "$WORK/before"
presets "$SRC" > "$WORK/presets_before"

pg_dump -Fc -f "$WORK/dump" "$SRC"
pg_restore --exit-on-error -d "$DST" "$WORK/dump"
kept_study_fingerprint "$DST" > "$WORK/after"
presets "$DST" > "$WORK/presets_after"
if ! diff -u "$WORK/presets_before" "$WORK/presets_after"; then
	echo "dump_restore: FAILED: the restored presets differ" >&2
	exit 1
fi

if ! diff -u "$WORK/before" "$WORK/after"; then
	echo "dump_restore: FAILED: the restored database differs" >&2
	exit 1
fi
echo "dump_restore: restored identically:"
sed 's/^/  /' "$WORK/after"

# The restored study goes on: the running trial is reported, the next one
# is number 14 and computed by the model.
next=$(kept_study_next "$DST")
if [ "$next" != "14 model" ]; then
	echo "dump_restore: FAILED: the restored study's next trial is '$next', expected '14 model'" >&2
	exit 1
fi
echo "dump_restore: the restored study continues (trial 14 from the model)"
