# Progress streamed by runners (issue 30): lines a runner writes on fd 3
# land in tuner.trial_progress while it runs (worker and tuner.step), a
# study with a pruning rule prunes a bad trial (state pruned, its runner's
# whole process group gone, its progress kept), and a malformed, too long
# or flooding fd 3 fails the trial cleanly with the reason, its runner's
# group gone too.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use TunerTAP;

my $node = TunerTAP::new_node('progress');
my $dir = PostgreSQL::Test::Utils::tempdir;
my $in = TunerTAP::read_input();

# 1. A runner that reports steps 1 and 2, waits (with "wait") until the
# test lets it go, then reports step 3 and its final value.
my $stream = TunerTAP::write_runner($dir, 'stream.sh', $in . <<SH);
echo "{\\"step\\": 1, \\"metrics\\": {\\"value\\": 5, \\"n\\": \$n}}" >&3
echo '{"step": 2.5, "metrics": {"value": 4, "n": null}}' >&3
if [ "\$1" = wait ]; then
	while [ ! -e $dir/go ]; do sleep 0.1; done
fi
echo '{"step": 3, "metrics": {"value": 3}}' >&3
echo '{"value": 3}'
SH
$node->safe_psql('postgres', qq{
	SELECT tuner.register_runner('stream_wait', '$stream', ARRAY['wait']);
	SELECT tuner.create_study('stream', 'value', 'minimize', '{"seed": 1, "trial_timeout_s": 120}',
							  runner => 'stream_wait');
	SELECT tuner.add_parameter('stream', 'x', 'float', 0, 1);
	SELECT tuner.run('stream', 1);
});
ok( $node->poll_query_until(
		'postgres',
		q{SELECT count(*) = 2 FROM tuner.trial_progress p JOIN tuner.trial t ON t.id = p.trial_id
		   WHERE p.trial_id = tuner.trial_id('stream', 1) AND t.state = 'running'}),
	'worker: the first two progress rows land while the runner runs');
is( $node->safe_psql(
		'postgres', q{SELECT string_agg(step || '=' || metrics::text, ' ' ORDER BY step)
					   FROM tuner.trial_progress WHERE trial_id = tuner.trial_id('stream', 1)}),
	'1={"n": 1, "value": 5} 2.5={"n": null, "value": 4}',
	'worker: the rows hold the steps and metrics the runner wrote');
open my $go, '>', "$dir/go" or die "could not write $dir/go: $!";
close $go;
ok( $node->poll_query_until(
		'postgres', q{SELECT state FROM tuner.trials WHERE study = 'stream' AND number = 1}, 'complete'),
	'worker: the trial completes');
is( $node->safe_psql(
		'postgres', q{SELECT string_agg(step::text, ',' ORDER BY step)
					   FROM tuner.trial_progress WHERE trial_id = tuner.trial_id('stream', 1)}),
	'1,2.5,3', 'worker: the last line, written just before the runner exited, is stored too');

# tuner.step stores them in the caller's transaction; a reader role of
# the study sees them (row-level security as for its trials).
$node->safe_psql('postgres', qq{
	SELECT tuner.register_runner('stream_now', '$stream', ARRAY['now']);
	SELECT tuner.create_study('stream_step', 'value', 'minimize', '{"seed": 2}', runner => 'stream_now');
	SELECT tuner.add_parameter('stream_step', 'x', 'float', 0, 1);
	CREATE ROLE progress_reader IN ROLE tuner_user;
	SELECT tuner.grant_study('stream_step', 'progress_reader', 'read');
});
like($node->safe_psql('postgres', q{SELECT tuner.step('stream_step')}),
	qr/"state": "complete"/, 'tuner.step: the trial completes');
is( $node->safe_psql(
		'postgres', q{SET ROLE progress_reader;
					  SELECT string_agg(step::text, ',' ORDER BY step) FROM tuner.trial_progress}),
	'1,2.5,3', 'tuner.step: the study\'s reader sees its three progress rows, and no others');

# 2. Pruning: trial 1 reports value 1 at steps 1 to 3; trial 2 reports 10
# and 9 and would then sleep for five minutes.  The median rule stops it.
my $prune = TunerTAP::write_runner($dir, 'prune.sh', $in . <<SH);
if [ "\$n" = 1 ]; then
	for s in 1 2 3; do echo "{\\"step\\": \$s, \\"metrics\\": {\\"value\\": 1}}" >&3; done
	echo '{"value": 1}'
	exit 0
fi
echo \$\$ > $dir/prune.pid
sleep 300 &
echo \$! > $dir/prune.child
echo '{"step": 1, "metrics": {"value": 10}}' >&3
echo '{"step": 2, "metrics": {"value": 9}}' >&3
wait
echo '{"value": 9}'
SH
TunerTAP::study_with_runner($node, 'prune', 'prune', $prune,
	'{"seed": 3, "trial_timeout_s": 120, "pruning": {"rule": "median", "warmup_steps": 0, "min_trials": 1}}');
$node->safe_psql('postgres', q{SELECT tuner.run('prune', 2)});
ok( $node->poll_query_until(
		'postgres', q{SELECT string_agg(state, ',' ORDER BY number) FROM tuner.trials WHERE study = 'prune'},
		'complete,pruned'),
	'pruning: trial 1 completes, trial 2 is pruned');
like(
	$node->safe_psql('postgres', q{SELECT error FROM tuner.trials WHERE study = 'prune' AND number = 2}),
	qr/^pruned at step 2 by the study's pruning rule; its process group was stopped$/,
	'pruning: the reason names the step');
my ($prune_pid, $prune_child) = (TunerTAP::read_pid("$dir/prune.pid"), TunerTAP::read_pid("$dir/prune.child"));
ok(defined $prune_pid && defined $prune_child, 'pruning: the bad trial\'s runner started a child');
ok(TunerTAP::wait_until(sub { !TunerTAP::alive($prune_pid) && !TunerTAP::alive($prune_child) }, 10),
	'pruning: the runner and its child are gone');
is( $node->safe_psql(
		'postgres', q{SELECT count(*) || ' rows, value ' || t.value
					   FROM tuner.trial_progress p JOIN tuner.trials t ON t.trial = p.trial_id
					  WHERE t.study = 'prune' AND t.number = 2
					  GROUP BY t.value}),
	'2 rows, value 9', 'pruning: the pruned trial keeps its progress and its last value');
is($node->safe_psql('postgres', q{SELECT state FROM tuner.job WHERE study_id = (SELECT id FROM tuner.study WHERE name = 'prune')}),
	'finished', 'pruning: the job went on and finished');

# 3. A malformed, too long or flooding fd 3 fails the trial; the runner
# (which would sleep for five minutes) and its child are stopped.
my $bad = TunerTAP::write_runner($dir, 'bad.sh', $in . <<SH);
echo \$\$ > $dir/\$1.pid
sleep 300 &
echo \$! > $dir/\$1.child
case "\$1" in
	garbage) echo '{"step": 1, "metrics": {"value": 1}}' >&3; echo 'throughput=5' >&3 ;;
	backwards) echo '{"step": 2, "metrics": {}}' >&3; echo '{"step": 1, "metrics": {}}' >&3 ;;
	long) head -c 5000 /dev/zero | tr '\\0' x >&3 ;;
	flood) i=0; while [ \$i -lt 10050 ]; do echo "{\\"step\\": \$i, \\"metrics\\": {}}"; i=\$((i+1)); done >&3 ;;
esac
wait
echo '{"value": 1}'
SH
my %expect = (
	garbage => qr/^progress line 2 \(fd 3\): expected a JSON object at byte 1: throughput=5; the runner's process group was stopped$/,
	backwards => qr/^progress line 2 \(fd 3\): step 1 is not after the line before's 2: /,
	long => qr/^progress line 1 \(fd 3\): line longer than 4096 bytes \(or no newline\): xxxx/,
	flood => qr/^progress line 10001 \(fd 3\): more lines than a trial may write \(10000\)/);
for my $mode (sort keys %expect)
{
	$node->safe_psql('postgres', qq{
		SELECT tuner.register_runner('bad_$mode', '$bad', ARRAY['$mode']);
		SELECT tuner.create_study('bad_$mode', 'value', 'minimize', '{"trial_timeout_s": 120}', runner => 'bad_$mode');
		SELECT tuner.add_parameter('bad_$mode', 'x', 'float', 0, 1);
		SELECT tuner.run('bad_$mode', 1);
	});
	ok( $node->poll_query_until(
			'postgres', qq{SELECT state FROM tuner.trials WHERE study = 'bad_$mode'}, 'failed'),
		"$mode: the trial fails");
	like($node->safe_psql('postgres', qq{SELECT error FROM tuner.trials WHERE study = 'bad_$mode'}),
		$expect{$mode}, "$mode: the error says why");
	my ($pid, $child) = (TunerTAP::read_pid("$dir/$mode.pid"), TunerTAP::read_pid("$dir/$mode.child"));
	ok(defined $pid && defined $child
		  && TunerTAP::wait_until(sub { !TunerTAP::alive($pid) && !TunerTAP::alive($child) }, 10),
		"$mode: the runner and its child are gone");
}
is( $node->safe_psql(
		'postgres', q{SELECT count(*) FROM tuner.trial_progress
					   WHERE trial_id = tuner.trial_id('bad_garbage', 1)}),
	'1', 'garbage: the good line before the bad one was stored');

# tuner.step with a malformed channel: a failed trial and a normal return.
$node->safe_psql('postgres', qq{
	SELECT tuner.register_runner('bad_step', '$bad', ARRAY['garbage']);
	SELECT tuner.create_study('bad_step', 'value', 'minimize', '{"trial_timeout_s": 120}', runner => 'bad_step');
	SELECT tuner.add_parameter('bad_step', 'x', 'float', 0, 1);
});
like($node->safe_psql('postgres', q{SELECT tuner.step('bad_step')}),
	qr/"state": "failed"/, 'tuner.step: a malformed line fails the trial and step returns');

$node->stop;
done_testing();
