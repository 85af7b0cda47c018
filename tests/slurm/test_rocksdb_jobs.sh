#!/bin/bash
# test_rocksdb_jobs.sh: a RocksDB study (preset rocksdb, the real
# tuner_rocksdb runner with db_bench) run entirely as Slurm jobs on the
# local test cluster (issue 31): 4 trials, 2 jobs at a time on the two
# nodes.  Each trial is a paired measurement (the trial's configuration
# and the default one, interleaved) of 2 s on a small pre-filled base DB
# (100000 keys; the runner fills it once under a lock, which the two
# nodes' first jobs share).  Every trial completes with the preset's
# metrics (the objective ratio_to_default, ops_per_sec, write_amp, and the
# ratio's standard error) and its job's accounting.
#
# Needs the running cluster (SLURM_CONF), a server reachable through the
# PG* environment (pg_virtualenv) with tuner installed, the agent built
# (TUNER_AGENT) and the RocksDB runner installed (make
# install-runner-rocksdb; ROCKSDB_RUNNER, default tuner_rocksdb in
# PostgreSQL's bindir, an absolute path: the jobs' agent is not there).
# About 30 s.
set -euo pipefail
# shellcheck source=tests/slurm/lib.sh
. "$(dirname "$0")/lib.sh"
RUNNER=${ROCKSDB_RUNNER:-$(pg_config --bindir)/tuner_rocksdb}
slurm_test_begin test_rocksdb_jobs tuner_slurm_rdb
trap slurm_test_cleanup EXIT
[ -x "$RUNNER" ] || fail "$RUNNER is not installed (make install-runner-rocksdb)"
slurm_test_database agent
# the jobs run as the server's OS user, whose work directory the runner
# wants to be its own
mkdir "$WORK/wd"
chown "$(stat -c %u "$(sql "SHOW data_directory")")" "$WORK/wd"
sql "SELECT tuner.register_runner('rocksdb', '$RUNNER')" >/dev/null
sql "SELECT tuner.create_study('rdb_jobs', preset => 'rocksdb', settings => '{\"seed\": 11, \"trial_timeout_s\": 300,
       \"lease_s\": 60, \"executor\": \"slurm\",
       \"slurm\": {\"nodes\": 1, \"ntasks\": 1, \"time_limit_s\": 600, \"output_dir\": \"$WORK/out\"},
       \"runner\": {\"duration_s\": 2, \"paired\": true, \"num_keys\": 100000, \"work_dir\": \"$WORK/wd\"}}')" >/dev/null
[ "$(sql "SELECT tuner.run('rdb_jobs', 4, 2)")" = 2 ] || fail "tuner.run did not start 2 workers"
watch_study_job rdb_jobs 300 || true
sql "SELECT number, state, worker, details -> 'slurm' ->> 'nodes' AS node,
            details -> 'slurm' ->> 'elapsed_s' AS elapsed_s, details -> 'slurm' ->> 'max_rss_kib' AS max_rss_kib,
            round(value::numeric, 3) AS ratio, round(std_error::numeric, 3) AS se,
            round((metrics ->> 'ops_per_sec')::numeric) AS ops_per_sec, error
       FROM tuner.trials WHERE study = 'rdb_jobs' ORDER BY number" | note
got=$(sql "SELECT count(*) || ' ' || count(*) FILTER (WHERE state = 'complete' AND value > 0 AND std_error >= 0
                                                   AND (metrics ->> 'ops_per_sec')::float8 > 0
                                                   AND (metrics ->> 'write_amp')::float8 > 0
                                                   AND details -> 'slurm' ->> 'state' = 'COMPLETED'
                                                   AND (details -> 'slurm' ->> 'elapsed_s')::float8 >= 0
                                                   AND (details -> 'slurm' ->> 'cpu_s')::float8 > 0
                                                   AND worker = 'slurm-' || (details -> 'slurm' ->> 'job_id'))
             || ' ' || count(DISTINCT details -> 'slurm' ->> 'nodes')
             FROM tuner.trials WHERE study = 'rdb_jobs'")
[ "$got" = "4 4 2" ] || fail "4 RocksDB trials as jobs (count, complete with metrics and accounting, nodes): $got"
ok "4 RocksDB trials ran as Slurm jobs on 2 nodes, complete with their metrics and accounting"
for id in $(sql "SELECT details -> 'slurm' ->> 'job_id' FROM tuner.trials WHERE study = 'rdb_jobs'"); do
	s=$(sacct -n -P -X -j "$id" -o State)
	[ "$s" = COMPLETED ] || fail "sacct says job $id is $s"
done
overlap=$(max_overlap rdb_jobs)
[ "$overlap" = 2 ] && [ "$MAX_OUT" -le 2 ] ||
	fail "2 trials at once, never more than 2 jobs: $overlap at once, $MAX_OUT jobs outstanding"
ok "sacct: the 4 jobs COMPLETED; 2 ran at once, never more than 2 jobs outstanding"
echo "# test_rocksdb_jobs: all passed"
