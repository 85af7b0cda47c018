#!/bin/bash
# main_job.sh: the main job (examples/rocksdb_study.sh, README command 1)
# end to end at a small size: 3 trials of 2 s db_bench runs through
# tuner's background workers, then the recommended configuration
# confirmed by 2 paired runs.  Checks that every trial and confirmation
# run completed, and that the job ends with a confirmed figure (an
# improvement or regression with its 95 % interval, or "no improvement
# was shown"), never with one trial's figure.
# Needs a server reachable through the PG* environment (pg_virtualenv)
# with tuner and tuner_rocksdb installed.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT

TRIALS=3 DURATION=2 CONFIRM_PAIRS=2 bash examples/rocksdb_study.sh | tee "$OUT"

fail() {
	echo "main_job: FAILED: $*" >&2
	exit 1
}

states=$(psql -X -At -c "SELECT string_agg(source || ':' || state, ' ' ORDER BY number) FROM tuner.trials WHERE study = 'rocksdb_study'")
echo "main_job: trials $states"
[ "$(psql -X -At -c "SELECT count(*) FROM tuner.trials WHERE study = 'rocksdb_study' AND state = 'complete' AND source <> 'confirm'")" = 3 ] ||
	fail "the study's 3 trials did not all complete: $states"
[ "$(psql -X -At -c "SELECT count(*) FROM tuner.trials WHERE study = 'rocksdb_study' AND state = 'complete' AND source = 'confirm'")" = 2 ] ||
	fail "the 2 confirmation runs did not complete: $states"
[ "$(psql -X -At -c "SELECT pairs FROM tuner.confirmation('rocksdb_study')")" = 2 ] ||
	fail "tuner.confirmation does not count 2 pairs"
last=$(tail -n 1 "$OUT")
case "$last" in
	"Improvement over the default: "*" % ["*", "*"] (95 % CI, 2 pairs)" | \
	"Regression over the default: "*" % ["*", "*"] (95 % CI, 2 pairs)" | \
	"No improvement over the default was shown: "*"(95 % CI, 2 pairs) contains no change.")
		echo "main_job: ok: $last" ;;
	*) fail "the job did not end with a confirmed figure: $last" ;;
esac
grep -q "one noisy measurement, not the result" "$OUT" ||
	fail "the best single trial is not labelled as one noisy measurement"
