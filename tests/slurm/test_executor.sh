#!/bin/bash
# test_executor.sh: the Slurm executor (issue 31) on the real local test
# cluster.  A study with executor "slurm" runs through tuner.run: its
# background workers submit each trial as a Slurm job (sbatch, as the
# server's OS user) whose one process is tuner-agent --trial ID, reconcile
# the trial with the job and store the job's accounting (sacct) in the
# trial's details.slurm.
#
#   1. 6 trials, 2 at a time on the 2 nodes: all complete, each with its
#      job's accounting; never more than 2 jobs at once, 2 at once seen.
#   2. a job scancel'ed mid-trial: its trial is failed with Slurm's state,
#      no job and no runner process is left.
#   3. three jobs for two nodes: tuner.progress shows two RUNNING and one
#      PENDING with their job ids; tuner.stop cancels all three, their
#      trials are interrupted ("stopped"), nothing left.
#   4. a job over its time limit (1 minute): its trial is failed with
#      Slurm's TIMEOUT;
#   5. its node set DOWN under a job (slurm.requeue false): the trial is
#      failed with NODE_FAIL; (5b) with requeue true, Slurm requeues the
#      job, the trial stays running and the job's next run completes it;
#      (5c) a job preempted by one of the higher-tier partition "urgent"
#      (requeue false): the trial is failed with PREEMPTED; (5d) with
#      requeue true, the preempted job is requeued and completes the trial;
#   6. the worker killed (a crash restart of the server): the trial is
#      interrupted, the job's agent stops and the job ends by itself;
#   7. the worker killed while its job waits behind two others: the first
#      reap after the restart interrupts the trial and cancels the job;
#   8. the job's agent stopped (SIGSTOP): once its lease expires the
#      worker interrupts the trial and cancels the job.
#
# Needs the running cluster (SLURM_CONF), a server reachable through the
# PG* environment (pg_virtualenv) with tuner installed, whose OS user may
# submit jobs, and the agent built (TUNER_AGENT, default
# src/agent/tuner-agent; copied to a directory the server's user can read
# and named by tuner.agent_path).  About 5 minutes, most of it the
# time-limit job, the requeued jobs' waits and the lost agent's lease.
set -euo pipefail
# shellcheck source=tests/slurm/lib.sh
. "$(dirname "$0")/lib.sh"
slurm_test_begin test_executor tuner_slurm_exec
trap slurm_test_cleanup EXIT
slurm_test_database agent

# The runner: a function of the configuration after a pause of
# _settings.sleep seconds (a little memory touched, so Slurm samples an
# RSS); the node it ran on and its job id go into the details.
cat >"$WORK/f.py" <<'EOF'
#!/usr/bin/python3
import json, os, sys, time
c = json.load(sys.stdin)
ballast = bytearray(32 << 20)
time.sleep(c["_settings"].get("sleep", 3))
print(json.dumps({"value": (c["x"] - 0.3) ** 2 + (c["y"] - 0.6) ** 2,
                  "_node": os.environ.get("SLURMD_NODENAME", ""),
                  "_job": os.environ.get("SLURM_JOB_ID", ""),
                  "_restarts": os.environ.get("SLURM_RESTART_COUNT", "0")}))
EOF
chmod 755 "$WORK/f.py"
sql "SELECT tuner.register_runner('slurm_f', '$WORK/f.py', '{}', '{\"sleep\": 3}')" >/dev/null

study() { # study NAME SLURM-SETTINGS [RUNNER-SETTINGS]
	sql "SELECT tuner.create_study('$1', 'value', 'minimize',
	       '{\"seed\": 31, \"lease_s\": 30, \"executor\": \"slurm\",
	         \"slurm\": $2, \"runner\": ${3:-{\}}}', runner => 'slurm_f')" >/dev/null
	sql "SELECT tuner.add_parameter('$1', 'x', 'float', 0, 1)" >/dev/null
	sql "SELECT tuner.add_parameter('$1', 'y', 'float', 0, 1)" >/dev/null
}
# wait_job STUDY SECONDS: watch_study_job, failing the test if the job still runs.
wait_job() {
	watch_study_job "$1" "$2" ||
		fail "the job of study $1 did not end in $2 s: $(sql "SELECT number, state, worker, error FROM tuner.trials WHERE study = '$1'") $(squeue)"
}
# running_job STUDY: the Slurm job id of the study's trial once its job runs.
running_job() {
	local i id
	for ((i = 0; i < 300; i++)); do
		id=$(sql "SELECT substr(worker, 7) FROM tuner.trials WHERE study = '$1' AND state = 'running'
		           AND worker ~ '^slurm-[0-9]+$'")
		# the job runs and so does its runner
		if [ -n "$id" ] && [ "$(squeue -h -j "$id" -o %T 2>/dev/null)" = RUNNING ] &&
			pgrep -f "$WORK/f.py" >/dev/null &&
			[ "$(sql "SELECT slurm_state FROM tuner.progress WHERE study = '$1' AND slurm_job = $id")" = RUNNING ]; then
			echo "$id"
			return 0
		fi
		sleep 0.2
	done
	fail "no running job for study $1: $(squeue)"
}
nothing_left() { # nothing_left JOB: no job in squeue, no runner process of WORK
	local i
	for ((i = 0; i < 150; i++)); do
		if [ -z "$(squeue -h -j "$1" -t PENDING,RUNNING,COMPLETING -o %i 2>/dev/null)" ] &&
			! pgrep -f "$WORK/f.py" >/dev/null; then
			return 0
		fi
		sleep 0.2
	done
	fail "job $1 or its runner is left: $(squeue) $(pgrep -af "$WORK/f.py")"
}

# wait_node NODE: until the node is idle again (resumed after a while)
wait_node() {
	local i st
	for ((i = 0; i < 150; i++)); do
		st=$(sinfo -h -n "$1" -o %T)
		[ "$st" = idle ] && return 0
		[ "$i" = 25 ] && scontrol update nodename="$1" state=resume 2>/dev/null
		sleep 0.2
	done
	fail "node $1 did not come back: $st"
}
# --- 1. six trials, two at a time, on two nodes -------------------------------
study slurm_six "{\"partition\": \"tuner\", \"time_limit_s\": 300, \"nodes\": 1, \"ntasks\": 1,
                 \"output_dir\": \"$WORK/out\"}"
[ "$(sql "SELECT tuner.run('slurm_six', 6, 2)")" = 2 ] || fail "tuner.run did not start 2 workers"
wait_job slurm_six 185
got=$(sql "SELECT count(*) || ' ' || count(*) FILTER (WHERE state = 'complete' AND value IS NOT NULL)
             || ' ' || count(*) FILTER (WHERE worker = 'slurm-' || (details -> 'slurm' ->> 'job_id')
                                         AND details ->> '_job' = details -> 'slurm' ->> 'job_id'
                                         AND details -> 'slurm' ->> 'state' = 'COMPLETED'
                                         AND details -> 'slurm' ->> 'nodes' = details ->> '_node'
                                         AND (details -> 'slurm' ->> 'elapsed_s')::float8 >= 0
                                         AND (details -> 'slurm' ->> 'queue_wait_s')::float8 >= 0
                                         AND (details -> 'slurm' ->> 'cpu_s')::float8 >= 0)
             || ' ' || count(DISTINCT details ->> '_node')
             || ' ' || count(*) FILTER (WHERE (details -> 'slurm' ->> 'max_rss_kib')::float8 > 0)
             FROM tuner.trials WHERE study = 'slurm_six'")
read -r n complete accounted nodes rss <<<"$got"
[ "$n $complete $accounted $nodes" = "6 6 6 2" ] ||
	fail "six trials (count, complete, with their job's accounting, nodes): $got
$(sql "SELECT number, state, worker, details, error FROM tuner.trials WHERE study = 'slurm_six'")"
ok "6 trials ran as Slurm jobs on 2 nodes, complete, each with its job's accounting"
[ "$rss" -ge 1 ] || fail "no trial has a MaxRSS"
ok "$rss of 6 trials have their job's MaxRSS"
for id in $(sql "SELECT details -> 'slurm' ->> 'job_id' FROM tuner.trials WHERE study = 'slurm_six'"); do
	s=$(sacct -n -P -X -j "$id" -o State)
	[ "$s" = COMPLETED ] || fail "sacct says job $id is $s"
done
ok "sacct: the 6 jobs COMPLETED"
overlap=$(max_overlap slurm_six)
[ "$overlap" = 2 ] || fail "at most 2 trials at once, and 2 at some time: got $overlap"
[ "$MAX_OUT" -le 2 ] || fail "$MAX_OUT jobs were outstanding at once (parallel 2)"
ok "2 trials ran at once, never more than 2 jobs outstanding (seen $MAX_OUT)"
# What a trial costs beyond its runner (3 s): submission, Slurm's queue and
# start, the agent's connection and claim, the recording; and the span.
sql "SELECT 'overhead per trial (s): min ' || round(min(d)::numeric, 2) || ', median '
            || round((percentile_cont(0.5) WITHIN GROUP (ORDER BY d))::numeric, 2)
            || ', max ' || round(max(d)::numeric, 2) || '; 6 trials in '
            || round(extract(epoch FROM max(finished_at) - min(started_at))::numeric, 1) || ' s'
       FROM (SELECT extract(epoch FROM finished_at - started_at) - 3 AS d, started_at, finished_at
               FROM tuner.trials WHERE study = 'slurm_six') x" | note
sql "SELECT number, worker, details -> 'slurm' ->> 'nodes' AS node,
            details -> 'slurm' ->> 'queue_wait_s' AS wait_s, details -> 'slurm' ->> 'elapsed_s' AS elapsed_s,
            details -> 'slurm' ->> 'cpu_s' AS cpu_s, details -> 'slurm' ->> 'max_rss_kib' AS max_rss_kib,
            round(value::numeric, 4) AS value
       FROM tuner.trials WHERE study = 'slurm_six' ORDER BY number" | note

# --- 2. a job scancel'ed mid-trial --------------------------------------------
study slurm_cancel '{"time_limit_s": 300}' '{"sleep": 120}'
sql "SELECT tuner.run('slurm_cancel', 1, 1)" >/dev/null
job=$(running_job slurm_cancel)
scancel "$job"
wait_job slurm_cancel 60
got=$(sql "SELECT state || ': ' || error FROM tuner.trials WHERE study = 'slurm_cancel'")
[[ "$got" == "failed: Slurm job $job ended CANCELLED"* ]] || fail "scancel'ed trial: $got"
[ "$(sql "SELECT details -> 'slurm' ->> 'state' FROM tuner.trials WHERE study = 'slurm_cancel'")" = CANCELLED ] ||
	fail "the cancelled trial has no accounting"
nothing_left "$job"
ok "job $job scancel'ed mid-trial: trial $got; nothing left running"

# --- 3. tuner.stop cancels the study's jobs, queued and running --------------
# Three jobs for two exclusive nodes: two run, one waits in Slurm's queue;
# tuner.progress shows which, with their job ids.
study slurm_stop '{"time_limit_s": 300}' '{"sleep": 120}'
sql "SELECT tuner.run('slurm_stop', 3, 3)" >/dev/null
for ((i = 0; i < 300; i++)); do
	got=$(sql "SELECT string_agg(slurm_state, ' ' ORDER BY slurm_state) FROM tuner.progress
	            WHERE study = 'slurm_stop' AND worker = 'slurm-' || slurm_job")
	[ "$got" = "PENDING RUNNING RUNNING" ] && [ "$(pgrep -fc "$WORK/f.py")" = 2 ] && break
	sleep 0.2
done
[ "$got" = "PENDING RUNNING RUNNING" ] || fail "tuner.progress of 3 jobs on 2 nodes: $got $(squeue)"
jobs=$(sql "SELECT string_agg(slurm_job::text, ',' ORDER BY slurm_job) FROM tuner.progress WHERE study = 'slurm_stop'")
sq=$(squeue -h -j "$jobs" -o %T | sort | tr '\n' ' ')
[ "$sq" = "PENDING RUNNING RUNNING " ] || fail "squeue of jobs $jobs: $sq"
ok "tuner.progress: jobs $jobs, 2 RUNNING and 1 PENDING, as squeue says"
sql "SELECT tuner.stop('slurm_stop')" >/dev/null
wait_job slurm_stop 60
got=$(sql "SELECT count(*) FILTER (WHERE state = 'interrupted'
                                   AND error = 'stopped (Slurm job ' || (details -> 'slurm' ->> 'job_id') || ' cancelled)'
                                   AND details -> 'slurm' ->> 'state' = 'CANCELLED')
            FROM tuner.trials WHERE study = 'slurm_stop'")
[ "$got" = 3 ] || fail "stopped trials: $(sql "SELECT state, error, details FROM tuner.trials WHERE study = 'slurm_stop'")"
for job in ${jobs//,/ }; do
	s=$(sacct -n -P -X -j "$job" -o State)
	[[ "$s" == CANCELLED* ]] || fail "sacct says the stopped job $job is $s"
	nothing_left "$job"
done
ok "tuner.stop: jobs $jobs cancelled, their 3 trials interrupted (stopped); nothing left running"

# --- 4. a job over its time limit ---------------------------------------------
study slurm_timeout '{"time_limit_s": 60}' '{"sleep": 600}'
sql "SELECT tuner.run('slurm_timeout', 1, 1)" >/dev/null
job=$(running_job slurm_timeout)
wait_job slurm_timeout 180
got=$(sql "SELECT state || ': ' || error FROM tuner.trials WHERE study = 'slurm_timeout'")
[[ "$got" == "failed: Slurm job $job ended TIMEOUT"* ]] || fail "timed-out trial: $got"
nothing_left "$job"
ok "job $job over its 1-minute limit: trial $got; nothing left running"
# --- 5. a node fails under a job (requeue false) ------------------------------
# The node goes DOWN (scontrol, as an admin would, or slurmctld when its
# slurmd stops answering): the job ends NODE_FAIL, its trial is failed with
# that; the node comes back by itself (ReturnToService=2) or is resumed.
study slurm_node '{"time_limit_s": 300, "requeue": false}' '{"sleep": 120}'
sql "SELECT tuner.run('slurm_node', 1, 1)" >/dev/null
job=$(running_job slurm_node)
node=$(squeue -h -j "$job" -o %N)
scontrol update nodename="$node" state=down reason=tuner-test
wait_job slurm_node 60
got=$(sql "SELECT state || ': ' || error FROM tuner.trials WHERE study = 'slurm_node'")
[[ "$got" == "failed: Slurm job $job ended NODE_FAIL"* ]] || fail "trial of a failed node: $got"
nothing_left "$job"
wait_node "$node"
ok "node $node DOWN under job $job: trial $got; nothing left running; the node is back"
# --- 5b. a node fails under a job (requeue true) -------------------------------
# Slurm requeues the job (the same id; it waits cred_expire, 20 s on the
# test cluster, before it may start again): its trial stays running,
# held by slurm-JOBID; the requeued job's agent claims it again and the
# runner runs from the start; the trial completes, its accounting names
# the earlier run (NODE_FAIL).
study slurm_requeue '{"time_limit_s": 300, "requeue": true}' '{"sleep": 10}'
sql "SELECT tuner.run('slurm_requeue', 1, 1)" >/dev/null
job=$(running_job slurm_requeue)
node=$(squeue -h -j "$job" -o %N)
scontrol update nodename="$node" state=down reason=tuner-test
for ((i = 0; i < 150; i++)); do
	[ "$(squeue -h -j "$job" -o %T)" = PENDING ] && ! pgrep -f "$WORK/f.py" >/dev/null && break
	sleep 0.2
done
[ "$(squeue -h -j "$job" -o %T)" = PENDING ] || fail "job $job was not requeued: $(squeue -j "$job")"
got=$(sql "SELECT state || ' ' || worker FROM tuner.trials WHERE study = 'slurm_requeue'")
[ "$got" = "running slurm-$job" ] || fail "the trial of requeued job $job: $got"
ok "node $node DOWN under job $job (requeue true): the job is requeued, its trial stays $got"
wait_node "$node"
wait_job slurm_requeue 180
got=$(sql "SELECT state || ' ' || worker || ' ' || (details ->> '_job') || ' ' || (details ->> '_restarts')
                  || ' ' || (details -> 'slurm' ->> 'state')
                  || ' ' || (details -> 'slurm' -> 'requeues' -> 0 ->> 'state')
                  || ' ' || jsonb_array_length(details -> 'slurm' -> 'requeues')
             FROM tuner.trials WHERE study = 'slurm_requeue'")
[ "$got" = "complete slurm-$job $job 1 COMPLETED NODE_FAIL 1" ] ||
	fail "the requeued trial (state worker job restarts slurm.state requeues): $got
$(sql "SELECT error, details FROM tuner.trials WHERE study = 'slurm_requeue'")"
[ "$(sql "SELECT count(*) FROM tuner.trials WHERE study = 'slurm_requeue'")" = 1 ] ||
	fail "the requeued trial was retried as another trial"
nothing_left "$job"
ok "the requeued job $job ran again and its agent completed the same trial (accounting: requeued after NODE_FAIL)"
# --- 5c. a job preempted (requeue false) ----------------------------------------
# A job of the higher-tier partition "urgent" takes the trial's node
# (PreemptType=preempt/partition_prio, PreemptMode=REQUEUE): a job that may
# not be requeued is cancelled, PREEMPTED, and its trial failed with that.
study slurm_preempt '{"time_limit_s": 300, "requeue": false}' '{"sleep": 120}'
sql "SELECT tuner.run('slurm_preempt', 1, 1)" >/dev/null
job=$(running_job slurm_preempt)
node=$(squeue -h -j "$job" -o %N)
urgent=$(sbatch --parsable --partition=urgent --nodelist="$node" --chdir=/tmp -o /dev/null --wrap 'sleep 3')
wait_job slurm_preempt 60
got=$(sql "SELECT state || ': ' || error FROM tuner.trials WHERE study = 'slurm_preempt'")
[[ "$got" == "failed: Slurm job $job ended PREEMPTED"* ]] || fail "trial of a preempted job: $got"
[ "$(sql "SELECT details -> 'slurm' ->> 'state' FROM tuner.trials WHERE study = 'slurm_preempt'")" = PREEMPTED ] ||
	fail "the preempted trial's accounting: $(sql "SELECT details FROM tuner.trials WHERE study = 'slurm_preempt'")"
nothing_left "$job"
for ((i = 0; i < 150; i++)); do
	s=$(sacct -n -P -X -j "$urgent" -o State)
	[ "$s" = COMPLETED ] && break
	sleep 0.2
done
[ "$s" = COMPLETED ] || fail "the preempting job $urgent: $s"
ok "job $job preempted by job $urgent (partition urgent): trial $got; nothing left running"
# --- 5d. a job preempted (requeue true) -----------------------------------------
# The same preemption of a job that may be requeued: Slurm requeues it, its
# trial stays running and completes in the job's next run, once the
# preempting job is done and cred_expire has passed.
study slurm_preempt_rq '{"time_limit_s": 300, "requeue": true}' '{"sleep": 10}'
sql "SELECT tuner.run('slurm_preempt_rq', 1, 1)" >/dev/null
job=$(running_job slurm_preempt_rq)
node=$(squeue -h -j "$job" -o %N)
urgent=$(sbatch --parsable --partition=urgent --nodelist="$node" --chdir=/tmp -o /dev/null --wrap 'sleep 3')
for ((i = 0; i < 150; i++)); do
	[ "$(squeue -h -j "$job" -o %T)" = PENDING ] && ! pgrep -f "$WORK/f.py" >/dev/null && break
	sleep 0.2
done
[ "$(squeue -h -j "$job" -o %T)" = PENDING ] || fail "preempted job $job was not requeued: $(squeue -a)"
got=$(sql "SELECT state || ' ' || worker FROM tuner.trials WHERE study = 'slurm_preempt_rq'")
[ "$got" = "running slurm-$job" ] || fail "the trial of preempted and requeued job $job: $got"
wait_job slurm_preempt_rq 180
got=$(sql "SELECT state || ' ' || (details ->> '_restarts') || ' ' || (details -> 'slurm' ->> 'state')
                  || ' ' || (details -> 'slurm' -> 'requeues' -> 0 ->> 'state')
             FROM tuner.trials WHERE study = 'slurm_preempt_rq'")
[ "$got" = "complete 1 COMPLETED PREEMPTED" ] ||
	fail "the preempted, requeued trial (state restarts slurm.state requeues): $got"
nothing_left "$job"
ok "job $job preempted by job $urgent (requeue true): requeued, the same trial completed in its next run"
# --- 6. the worker dies under a job (a crash of the server) -------------------
# kill -9 of the worker: the server restarts after a crash; the trial is
# interrupted as a local trial is (tuner.reap, "server restarted"), and the
# job's agent, whose next heartbeat finds its trial no longer running,
# stops its runner and ends: nothing stays running in either system.
study slurm_crash '{"time_limit_s": 300}' '{"sleep": 120}'
sql "SELECT tuner.run('slurm_crash', 1, 1)" >/dev/null
job=$(running_job slurm_crash)
pid=$(sql "SELECT worker_pid FROM tuner.trials t JOIN tuner.trial x ON x.id = t.trial WHERE t.study = 'slurm_crash' AND t.state = 'running'")
[ -n "$pid" ] || fail "no worker pid for the crash"
kill -KILL "$pid"
for ((i = 0; i < 300; i++)); do
	sql "SELECT 1" >/dev/null 2>&1 && break
	sleep 0.2
done
for ((i = 0; i < 300; i++)); do
	got=$(sql "SELECT string_agg(state || ': ' || COALESCE(error, '-'), ', ' ORDER BY number)
	             FROM tuner.trials WHERE study = 'slurm_crash' AND retry_of IS NULL" 2>/dev/null) || got=""
	[[ "$got" == interrupted:* ]] && [ -z "$(squeue -h -j "$job" -t PENDING,RUNNING,COMPLETING -o %i 2>/dev/null)" ] && break
	sleep 0.2
done
[ "$got" = "interrupted: server restarted" ] || fail "the trial of a crashed worker: $got"
nothing_left "$job"
[ "$(sql "SELECT count(*) FROM tuner.trials WHERE study = 'slurm_crash' AND state = 'running'")" = 0 ] ||
	fail "a trial of the crashed worker is still running"
s=$(sacct -n -P -X -j "$job" -o State)
ok "worker killed under job $job: trial $got, the job ended by itself ($s); nothing left running"
# --- 7. a job still pending when the server crashes ---------------------------
# Both nodes busy with jobs of another user of the cluster: the trial's job
# waits in Slurm's queue; the worker is killed (the server restarts).  The
# next reap after the restart (tuner.progress, tuner.run, tuner.reap, an
# agent's call) interrupts the trial (server restarted) and cancels its
# job: nothing stays pending or running in either system.
blockers=""
for node in tn1 tn2; do
	blockers="$blockers $(sbatch --parsable --nodelist=$node --chdir=/tmp -o /dev/null --wrap 'sleep 600')"
done
# shellcheck disable=SC2064,SC2086
trap "slurm_test_cleanup $blockers" EXIT
study slurm_pending '{"time_limit_s": 300}' '{"sleep": 3}'
sql "SELECT tuner.run('slurm_pending', 1, 1)" >/dev/null
for ((i = 0; i < 300; i++)); do
	got=$(sql "SELECT slurm_job || ' ' || slurm_state FROM tuner.progress WHERE study = 'slurm_pending'")
	[[ "$got" == *" PENDING" ]] && break
	sleep 0.2
done
[[ "$got" == *" PENDING" ]] || fail "the trial's job is not pending behind the blockers: $got $(squeue)"
job=${got% *}
[ "$(squeue -h -j "$job" -o %T)" = PENDING ] || fail "squeue: job $job is not pending"
pid=$(sql "SELECT worker_pid FROM tuner.trials t JOIN tuner.trial x ON x.id = t.trial WHERE t.study = 'slurm_pending' AND t.state = 'running'")
[ -n "$pid" ] || fail "no worker pid for the crash"
kill -KILL "$pid"
sleep 1
for ((i = 0; i < 300; i++)); do
	sql "SELECT 1" >/dev/null 2>&1 && break
	sleep 0.2
done
# what an operator looks at after the restart
sql "SELECT count(*) FROM tuner.progress" >/dev/null
for ((i = 0; i < 150; i++)); do
	[ -z "$(squeue -h -j "$job" -t PENDING,RUNNING,COMPLETING -o %i 2>/dev/null)" ] && break
	sleep 0.2
done
got=$(sql "SELECT state || ': ' || COALESCE(error, '-') || ' ' || COALESCE(details -> 'slurm' ->> 'state', '-')
             FROM tuner.trials WHERE study = 'slurm_pending' AND retry_of IS NULL")
[ "$got" = "interrupted: server restarted CANCELLED" ] || fail "the trial of a job pending at the crash: $got"
[ -z "$(squeue -h -j "$job" -t PENDING,RUNNING,COMPLETING -o %i)" ] || fail "job $job is left: $(squeue -j "$job")"
# shellcheck disable=SC2086
scancel $blockers
nothing_left "$job"
for ((i = 0; i < 150; i++)); do
	[ -z "$(squeue -h -t PENDING,RUNNING,COMPLETING -o %i)" ] && break
	sleep 0.2
done
[ "$(sql "SELECT count(*) FROM tuner.trials WHERE study = 'slurm_pending' AND state = 'running'")" = 0 ] ||
	fail "a trial of the crashed worker is still running"
ok "worker killed while job $job was pending: after the restart the trial is $got; the job is gone from the queue"
# --- 8. the agent inside a running job is lost ---------------------------------
# The agent stopped (SIGSTOP: no heartbeat, its runner goes on): once the
# trial's lease (30 s) expires, the worker's reap interrupts the trial
# ("lease expired") and cancels the job at once; Slurm kills the stopped
# agent and its runner.
sql "SELECT tuner.create_study('slurm_lost', 'value', 'minimize',
       '{\"seed\": 31, \"lease_s\": 30, \"max_retries\": 0, \"executor\": \"slurm\",
         \"slurm\": {\"time_limit_s\": 300}, \"runner\": {\"sleep\": 120}}', runner => 'slurm_f')" >/dev/null
sql "SELECT tuner.add_parameter('slurm_lost', 'x', 'float', 0, 1)" >/dev/null
sql "SELECT tuner.add_parameter('slurm_lost', 'y', 'float', 0, 1)" >/dev/null
sql "SELECT tuner.run('slurm_lost', 1, 1)" >/dev/null
job=$(running_job slurm_lost)
trial=$(sql "SELECT trial FROM tuner.trials WHERE study = 'slurm_lost'")
agent=$(pgrep -o -f "tuner-agent --trial $trial ")
[ -n "$agent" ] || fail "no agent process of trial $trial"
kill -STOP "$agent"
wait_job slurm_lost 120
got=$(sql "SELECT state || ': ' || COALESCE(error, '-') || ' ' || COALESCE(details -> 'slurm' ->> 'state', '-')
             FROM tuner.trials WHERE study = 'slurm_lost'")
[ "$got" = "interrupted: lease expired CANCELLED" ] || fail "the trial of a lost agent: $got"
nothing_left "$job"
pgrep -f "tuner-agent --trial $trial " >/dev/null && fail "the stopped agent of trial $trial is left"
ok "agent of job $job stopped: the trial is $got; job, agent and runner gone"
echo "# test_executor: all passed"
