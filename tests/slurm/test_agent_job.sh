#!/bin/bash
# test_agent_job.sh: tuner trials run as Slurm jobs on the local test
# cluster (issue 31, first end-to-end path).  Each job is a batch script
# whose one job step (srun) is tuner-agent --trials 1: it claims the
# study's next trial, runs the runner on its node and reports through the
# same validated path as any agent.  Two jobs are submitted at once, so two
# trials run at the same time on tn1 and tn2.
#
# Needs the running cluster (SLURM_CONF, or TUNER_SLURM_DIR) and a server
# reachable through the PG* environment (pg_virtualenv) with tuner
# installed, and the agent built (TUNER_AGENT, default src/agent/tuner-agent).
# The jobs inherit the submitter's environment (sbatch --export=ALL), PG*
# included.  Prints the measured submit-to-start latency of each job.
set -euo pipefail
# shellcheck source=tests/slurm/lib.sh
. "$(dirname "$0")/lib.sh"
slurm_test_begin test_agent_job tuner_slurm
JOBS=()
trap 'slurm_test_cleanup "${JOBS[@]}"' EXIT
slurm_test_database plain
sql "SELECT tuner.create_study('slurm', 'value', 'minimize', '{\"seed\": 31, \"lease_s\": 30}')" >/dev/null
sql "SELECT tuner.add_parameter('slurm', 'x', 'float', 0, 1)" >/dev/null
sql "SELECT tuner.add_parameter('slurm', 'y', 'float', 0, 1)" >/dev/null

# The runner: a function of the configuration, after a pause long enough
# for the two trials to overlap; the Slurm job id as a metric, the node it
# ran on into the trial's details ("_" keys are not metrics).
cat >"$WORK/f.py" <<'EOF'
#!/usr/bin/python3
import json, os, sys, time
c = json.load(sys.stdin)
time.sleep(3)
print(json.dumps({"value": (c["x"] - 0.3) ** 2 + (c["y"] - 0.6) ** 2,
                  "slurm_job_id": int(os.environ["SLURM_JOB_ID"]),
                  "_node": os.environ.get("SLURMD_NODENAME", "")}))
EOF
# The job: one step, the agent, for exactly one trial; its worker name is
# the job id, so the trial says which job ran it.
cat >"$WORK/trial.sbatch" <<EOF
#!/bin/bash
#SBATCH --job-name=tuner-trial
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --time=5
#SBATCH --output=$WORK/job-%j.out
date +%s.%N > $WORK/start-\$SLURM_JOB_ID
exec srun --ntasks=1 $AGENT --dsn "dbname=$DB" --study slurm \\
	--runner-path $WORK/f.py --worker "slurm-\$SLURM_JOB_ID" --trials 1
EOF
chmod 755 "$WORK"/f.py "$WORK"/trial.sbatch

declare -A SUBMITTED
for i in 1 2; do
	t=$(date +%s.%N)
	id=$(cd "$WORK" && sbatch --parsable "$WORK/trial.sbatch") || fail "sbatch failed"
	JOBS+=("$id")
	SUBMITTED[$id]=$t
done
echo "# test_agent_job: submitted jobs ${JOBS[*]}"

# Both jobs end COMPLETED in Slurm's accounting (bounded wait).
finished() {
	local id s
	for id in "${JOBS[@]}"; do
		s=$(sacct -n -P -X -j "$id" -o State 2>/dev/null)
		case "$s" in
			COMPLETED) ;;
			RUNNING | PENDING | COMPLETING | "") return 1 ;;
			*) fail "job $id ended $s: $(sacct -P -j "$id" -o JobID,State,ExitCode,NodeList)" ;;
		esac
	done
}
for ((i = 0; i < 600; i++)); do
	finished && break
	sleep 0.2
done
finished || fail "the jobs did not complete in 120 s: $(squeue) $(sacct -P -j "$(
	IFS=,
	echo "${JOBS[*]}"
)" -o JobID,State)"

for id in "${JOBS[@]}"; do
	start=$(cat "$WORK/start-$id")
	echo "# test_agent_job: job $id: submit-to-start $(awk -v a="${SUBMITTED[$id]}" -v b="$start" \
		'BEGIN {printf "%.2f", b - a}') s, $(sacct -n -P -X -j "$id" -o State,Elapsed,NodeList)"
done

# The database: two trials, both complete, with their value and metrics,
# each reported by the agent of its own job (worker slurm-<job id>, metric
# slurm_job_id) on the node Slurm gave that job.
got=$(sql "SELECT count(*) || ' ' || count(*) FILTER (WHERE state = 'complete' AND value IS NOT NULL
                  AND worker = 'slurm-' || (metrics ->> 'slurm_job_id'))
                  || ' ' || count(DISTINCT details ->> '_node')
             FROM tuner.trials WHERE study = 'slurm'")
[ "$got" = "2 2 2" ] ||
	fail "trials (count, complete with the job's metrics, distinct nodes): $got
$(sql "SELECT number, state, worker, value, metrics, details, error FROM tuner.trials WHERE study = 'slurm'")"
for id in "${JOBS[@]}"; do
	node=$(sacct -n -P -X -j "$id" -o NodeList)
	tnode=$(sql "SELECT details ->> '_node' FROM tuner.trials
	              WHERE study = 'slurm' AND (metrics ->> 'slurm_job_id')::int = $id")
	[ "$node" = "$tnode" ] || fail "job $id ran on $node by sacct, its trial says [$tnode]"
done
overlap=$(sql "SELECT count(*) FROM tuner.trials a JOIN tuner.trials b ON a.number < b.number
                WHERE a.study = 'slurm' AND b.study = 'slurm'
                  AND a.started_at < b.finished_at AND b.started_at < a.finished_at")
[ "$overlap" = 1 ] || fail "the two trials did not overlap in time"
sql "SELECT number, state, worker, details ->> '_node' AS node, round(value::numeric, 4) AS value
       FROM tuner.trials WHERE study = 'slurm' ORDER BY number" | note
ok "2 trials ran as Slurm jobs on two nodes at once, complete with metrics"
