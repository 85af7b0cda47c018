# Background workers: tuner.run runs trials (success with a standard
# error, crash with stderr, garbage, NaN), tuner.progress and pg_stat_activity while they run, the
# trial timeout kills a hanging runner and its child, tuner.stop,
# pg_terminate_backend and pg_cancel_backend of a worker, and a cancelled
# tuner.step; every time the runner's whole process group is gone.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use TunerTAP;

my $node = TunerTAP::new_node('workers');
my $dir = PostgreSQL::Test::Utils::tempdir;
my $in = TunerTAP::read_input();

# 1. A study whose runner succeeds, crashes, prints garbage or NaN by trial
# number; the study goes on through every failure.
my $mixed = TunerTAP::write_runner($dir, 'mixed.sh', $in . <<'SH');
sleep 1
case "$n" in
	2) echo "disk on fire" >&2; exit 3 ;;
	3) echo "this is not json" ;;
	4) echo '{"value": NaN}' ;;
	*) echo "{\"value\": $x, \"aux\": $n, \"_raw\": \"trial $n\", \"_std_error\": {\"value\": 0.25, \"aux\": null}}" ;;
esac
SH
TunerTAP::study_with_runner($node, 'mixed', 'mixed', $mixed, '{"seed": 5}');
is($node->safe_psql('postgres', "SELECT tuner.run('mixed', 5)"),
	'1', 'tuner.run starts one worker');
ok( $node->poll_query_until(
		'postgres',
		q{SELECT count(*) > 0 FROM pg_stat_activity
		   WHERE backend_type = 'tuner worker'
			 AND query LIKE 'tuner: study "mixed" trial % running for %'}),
	'pg_stat_activity shows the running trial');
ok( $node->poll_query_until(
		'postgres',
		q{SELECT count(*) = 1 FROM tuner.progress
		   WHERE study = 'mixed' AND worker LIKE 'job % worker 1/1' AND alive
			 AND elapsed >= interval '0'}),
	'tuner.progress shows the running trial');
ok( $node->poll_query_until(
		'postgres', q{SELECT state FROM tuner.job WHERE id = 1}, 'finished'),
	'the job finishes');
is( $node->safe_psql(
		'postgres', q{SELECT string_agg(number || ':' || state, ',' ORDER BY number)
					   FROM tuner.trials WHERE study = 'mixed'}),
	'1:complete,2:failed,3:failed,4:failed,5:complete',
	'five trials: complete, crash, garbage, NaN, complete');
like(
	$node->safe_psql(
		'postgres', q{SELECT error FROM tuner.trials WHERE study = 'mixed' AND number = 2}),
	qr/^runner exited with exit code 3\ndisk on fire$/,
	'a crash records the exit code and the stderr tail');
like(
	$node->safe_psql(
		'postgres', q{SELECT error FROM tuner.trials WHERE study = 'mixed' AND number = 3}),
	qr/^runner output is not valid JSON .*this is not json/,
	'garbage output gives a clear reason');
like(
	$node->safe_psql(
		'postgres', q{SELECT error FROM tuner.trials WHERE study = 'mixed' AND number = 4}),
	qr/NaN and Infinity are not JSON numbers/,
	'a NaN metric gives a clear reason');
is( $node->safe_psql(
		'postgres', q{SELECT t.metrics ->> 'aux', t.details ->> '_raw', r.worker_pid IS NOT NULL
					   FROM tuner.trials t JOIN tuner.trial r ON r.id = t.trial
					  WHERE t.study = 'mixed' AND t.number = 5}),
	'5|trial 5|t', 'auxiliary metrics and "_" extras are stored');
is( $node->safe_psql(
		'postgres', q{SELECT t.std_error, t.std_errors, t.details ? '_std_error'
					   FROM tuner.trials t WHERE t.study = 'mixed' AND t.number = 5}),
	'0.25|{"value": 0.25}|f', 'the runner\'s _std_error is stored with the value, not in details');

# 2. Two workers share one job's trial budget.
my $quick = TunerTAP::write_runner($dir, 'quick.sh', $in . <<'SH');
echo "{\"value\": $x}"
SH
TunerTAP::study_with_runner($node, 'quick', 'quick', $quick, '{"seed": 6}');
is($node->safe_psql('postgres', "SELECT tuner.run('quick', 6, parallel => 2)"),
	'2', 'parallel => 2 starts two workers');
ok( $node->poll_query_until(
		'postgres', q{SELECT state FROM tuner.job j JOIN tuner.study s ON s.id = j.study_id
					   WHERE s.name = 'quick'}, 'finished'),
	'the parallel job finishes');
is( $node->safe_psql(
		'postgres', q{SELECT count(*) FILTER (WHERE state = 'complete') || '/' || count(*)
					   || '/' || count(DISTINCT worker)
					   FROM tuner.trials WHERE study = 'quick'}),
	'6/6/2', 'six complete trials from two workers');
is( $node->safe_psql(
		'postgres', q{SELECT count(*) FROM tuner.trials WHERE study = 'quick'
					   AND disturbed IS NOT NULL
					   AND (details #>> '{context,others_cpu_share}')::float8 BETWEEN 0 AND 1
					   AND (details #>> '{context,elapsed_s}')::float8 > 0}),
	'6', 'each worker trial records how busy the machine was');

# 3. A runner that ignores SIGTERM and leaves a child: the timeout kills
# the whole group (SIGTERM, then SIGKILL after the grace period).
my $hang = TunerTAP::write_runner($dir, 'hang.sh', $in . <<SH);
trap '' TERM
echo \$\$ > $dir/hang.pid
sleep 300 &
echo \$! > $dir/hang.child
wait
wait
SH
TunerTAP::study_with_runner($node, 'hang', 'hang', $hang,
	'{"seed": 7, "trial_timeout_s": 1, "kill_grace_s": 1}');
$node->safe_psql('postgres', "SELECT tuner.run('hang', 1)");
ok( $node->poll_query_until(
		'postgres', q{SELECT state FROM tuner.trials WHERE study = 'hang'}, 'failed'),
	'a hanging runner fails its trial');
like(
	$node->safe_psql('postgres', q{SELECT error FROM tuner.trials WHERE study = 'hang'}),
	qr/^runner timed out after 1 s/,
	'the reason is the timeout');
like(
	$node->safe_psql('postgres', q{SELECT details ->> 'exit' FROM tuner.trials WHERE study = 'hang'}),
	qr/signal 9/, 'SIGKILL ended the runner that ignored SIGTERM');
my ($hang_pid, $hang_child) = (TunerTAP::read_pid("$dir/hang.pid"), TunerTAP::read_pid("$dir/hang.child"));
ok(defined $hang_pid && defined $hang_child, 'the hanging runner started a child');
ok(TunerTAP::wait_until(sub { !TunerTAP::alive($hang_pid) && !TunerTAP::alive($hang_child) }, 10),
	'the runner and its child are gone');

# A runner that sleeps (with a child) the first time it runs trial 1 of
# its tag (\$1) and is quick afterwards.
my $slow = TunerTAP::write_runner($dir, 'slow.sh', $in . <<SH);
if [ "\$n" = 1 ] && [ ! -e $dir/\$1.pid ]; then
	echo \$\$ > $dir/\$1.pid
	sleep 300 &
	echo \$! > $dir/\$1.child
	wait
fi
echo '{"value": 1}'
SH

# Run a study of the slow runner (tag $tag) and wait until trial 1 runs.
sub start_slow
{
	my ($tag, $trials) = @_;
	$node->safe_psql('postgres', qq{
		SELECT tuner.register_runner('$tag', '$slow', ARRAY['$tag']);
		SELECT tuner.create_study('$tag', 'value', 'minimize', '{"kill_grace_s": 2}', runner => '$tag');
		SELECT tuner.add_parameter('$tag', 'x', 'float', 0, 1);
		SELECT tuner.run('$tag', $trials);
	});
	ok(TunerTAP::wait_until(sub { defined TunerTAP::read_pid("$dir/$tag.child") }, 60),
		"$tag: the runner runs");
	return (TunerTAP::read_pid("$dir/$tag.pid"), TunerTAP::read_pid("$dir/$tag.child"),
		$node->safe_psql('postgres', "SELECT pid FROM tuner.progress WHERE study = '$tag'"));
}

# 4. tuner.stop: the running trial is interrupted ("stopped"), its group
# killed, no further trial is claimed and the job is stopped.
my ($pid, $child, $worker) = start_slow('stopme', 3);
is($node->safe_psql('postgres', "SELECT tuner.stop('stopme')"), '1', 'tuner.stop asks one job');
ok( $node->poll_query_until(
		'postgres', q{SELECT state || ': ' || error FROM tuner.trials WHERE study = 'stopme'},
		'interrupted: stopped'),
	'tuner.stop interrupts the running trial');
ok(TunerTAP::wait_until(sub { !TunerTAP::alive($pid) && !TunerTAP::alive($child) }, 10),
	'tuner.stop kills the runner and its child');
ok( $node->poll_query_until(
		'postgres', q{SELECT j.state FROM tuner.job j JOIN tuner.study s ON s.id = j.study_id
					   WHERE s.name = 'stopme'}, 'stopped'),
	'the job is stopped');
is($node->safe_psql('postgres', q{SELECT count(*) FROM tuner.trials WHERE study = 'stopme'}),
	'1', 'no trial after the stop');

# 5. pg_terminate_backend on the worker kills the runner's whole group; the
# trial is interrupted ("worker terminated") and the worker exits.
($pid, $child, $worker) = start_slow('term', 3);
ok($worker =~ /^\d+$/, 'the worker pid is in tuner.progress');
$node->safe_psql('postgres', "SELECT pg_terminate_backend($worker)");
ok(TunerTAP::wait_until(sub { !TunerTAP::alive($pid) && !TunerTAP::alive($child) }, 10),
	'pg_terminate_backend kills the runner and its child');
ok( $node->poll_query_until(
		'postgres', q{SELECT state || ': ' || error FROM tuner.trials WHERE study = 'term'},
		'interrupted: worker terminated'),
	'the trial is interrupted by the terminated worker');
ok( $node->poll_query_until(
		'postgres', "SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = $worker"),
	'the worker exits');

# 6. pg_cancel_backend on the worker cancels the trial (its group is
# killed) and the worker goes on with the next one.
($pid, $child, $worker) = start_slow('cancel', 2);
$node->safe_psql('postgres', "SELECT pg_cancel_backend($worker)");
ok(TunerTAP::wait_until(sub { !TunerTAP::alive($pid) && !TunerTAP::alive($child) }, 10),
	'pg_cancel_backend kills the runner and its child');
ok( $node->poll_query_until(
		'postgres', q{SELECT string_agg(number || ':' || state, ',' ORDER BY number)
					   FROM tuner.trials WHERE study = 'cancel'},
		'1:interrupted,2:complete'),
	'the cancelled trial is interrupted and the worker runs the next');
like($node->safe_psql('postgres', q{SELECT error FROM tuner.trials WHERE study = 'cancel' AND number = 1}),
	qr/^cancelled: canceling statement due to user request/, 'the reason is the cancel');

# 7. A cancelled tuner.step (statement_timeout) kills the runner's group
# and rolls the step back.
$node->safe_psql('postgres', qq{
	SELECT tuner.register_runner('stepper', '$slow', ARRAY['stepper']);
	SELECT tuner.create_study('stepper', 'value', 'minimize', '{}', runner => 'stepper');
	SELECT tuner.add_parameter('stepper', 'x', 'float', 0, 1);
});
my ($ret, $stdout, $stderr) = $node->psql('postgres',
	"SET statement_timeout = '3s'; SELECT tuner.step('stepper')");
like($stderr, qr/canceling statement due to statement timeout/, 'statement_timeout cancels tuner.step');
($pid, $child) = (TunerTAP::read_pid("$dir/stepper.pid"), TunerTAP::read_pid("$dir/stepper.child"));
ok(defined $pid && defined $child, 'the step runner had started');
ok(TunerTAP::wait_until(sub { !TunerTAP::alive($pid) && !TunerTAP::alive($child) }, 10),
	'the cancel kills the step runner and its child');
is($node->safe_psql('postgres', q{SELECT count(*) FROM tuner.trials WHERE study = 'stepper'}),
	'0', 'the cancelled step left no trial');
is($node->safe_psql('postgres', q{SELECT tuner.step('stepper') ->> 'state'}),
	'complete', 'the next step completes');

is($node->safe_psql('postgres', q{SELECT count(*) FROM tuner.trial WHERE state = 'running'}),
	'0', 'no trial is left running');
$node->stop;
done_testing();
