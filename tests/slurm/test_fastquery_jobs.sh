#!/bin/bash
# test_fastquery_jobs.sh: a FastQuery study (preset fastquery, the real
# tuner_fastquery_runner and tuner_fastquery) run entirely as Slurm jobs on
# the local test cluster (issue 31): 6 trials, 2 jobs at a time on the two
# nodes.  The parameter ranks is each job's task count (slurm.ntasks_
# parameter), and the runner starts its ranks with Slurm's srun (runner
# setting mpiexec; slurm.mpi = pmi2 for MPICH), so Slurm places them.
# Every trial completes with its metrics and its job's accounting, and a
# trial's job had as many tasks as the trial had ranks.
#
# Needs the running cluster (SLURM_CONF), a server reachable through the
# PG* environment (pg_virtualenv) with tuner installed, the agent built
# (TUNER_AGENT) and the FastQuery runner installed (make
# install-runner-fastquery; FQ_RUNNER, default tuner_fastquery_runner in
# PostgreSQL's bindir, an absolute path: the jobs' agent is not there).
set -euo pipefail
# shellcheck source=tests/slurm/lib.sh
. "$(dirname "$0")/lib.sh"
RUNNER=${FQ_RUNNER:-$(pg_config --bindir)/tuner_fastquery_runner}
slurm_test_begin test_fastquery_jobs tuner_slurm_fq
trap slurm_test_cleanup EXIT
mkdir -m 1777 "$WORK/data"
SRUN=$(command -v srun) || fail "no srun"
slurm_test_database agent
sql "SELECT tuner.register_runner('fastquery', '$RUNNER')" >/dev/null
# max_ranks 2: a node of the test cluster has this machine's CPUs (2 here)
sql "SELECT tuner.create_study('fq_jobs', preset => 'fastquery', settings => '{\"seed\": 7, \"trial_timeout_s\": 300,
       \"lease_s\": 60, \"executor\": \"slurm\",
       \"slurm\": {\"ntasks_parameter\": \"ranks\", \"nodes\": 1, \"mpi\": \"pmi2\", \"time_limit_s\": 600,
                  \"output_dir\": \"$WORK/out\"},
       \"runner\": {\"particles\": 1048576, \"random_queries\": 4, \"max_ranks\": 2,
                   \"mpiexec\": \"$SRUN\", \"data_dir\": \"$WORK/data\"}}')" >/dev/null
[ "$(sql "SELECT tuner.run('fq_jobs', 6, 2)")" = 2 ] || fail "tuner.run did not start 2 workers"
watch_study_job fq_jobs 600 || true
sql "SELECT number, state, worker, params ->> 'ranks' AS ranks, details -> 'slurm' ->> 'nodes' AS node,
            details -> 'slurm' ->> 'elapsed_s' AS elapsed_s, round(value::numeric, 3) AS total_s, error
       FROM tuner.trials WHERE study = 'fq_jobs' ORDER BY number" | note
got=$(sql "SELECT count(*) || ' ' || count(*) FILTER (WHERE state = 'complete' AND value > 0
                                                   AND details -> 'slurm' ->> 'state' = 'COMPLETED'
                                                   AND worker = 'slurm-' || (details -> 'slurm' ->> 'job_id'))
             || ' ' || count(DISTINCT details -> 'slurm' ->> 'nodes')
             FROM tuner.trials WHERE study = 'fq_jobs'")
[ "$got" = "6 6 2" ] || fail "6 FastQuery trials as jobs (count, complete with accounting, nodes): $got"
ok "6 FastQuery trials ran as Slurm jobs on 2 nodes, complete with their metrics and accounting"
# each job had as many tasks as its trial had ranks (sacct's AllocTRES and
# NTasks of the srun steps: gen, build and query ran as steps of ranks tasks)
for row in $(sql "SELECT (details -> 'slurm' ->> 'job_id') || ':' || (params ->> 'ranks')
                    FROM tuner.trials WHERE study = 'fq_jobs'"); do
	job=${row%:*}
	ranks=${row#*:}
	steps=$(sacct -n -P -j "$job" -o JobID,NTasks | awk -F'|' '$1 ~ /\.[0-9]+$/ {print $2}' | sort -u | tr '\n' ' ')
	[ "$steps" = "$ranks " ] || fail "job $job (ranks $ranks): its srun steps had tasks [$steps]"
done
ranks=$(sql "SELECT string_agg(DISTINCT params ->> 'ranks', ',') FROM tuner.trials WHERE study = 'fq_jobs'")
ok "every job's srun steps ran as many tasks as its trial's ranks (ranks seen: $ranks)"
echo "# test_fastquery_jobs: all passed"
