# Crash recovery: three faults, each in the middle of trial 4 of a study
# whose trials 1-3 finished: SIGKILL of the runner, SIGKILL of the
# background worker (the postmaster treats it as a crash and restarts,
# restart_after_crash = on), and an immediate shutdown of the server.
# After each: the runner's whole process group is gone, no trial is left
# running, the interrupted trial says why, the finished trials keep every
# metric, and the study goes on with new trials that complete.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use TunerTAP;

my $node = TunerTAP::new_node('crash', 'restart_after_crash = on');
my $dir = PostgreSQL::Test::Utils::tempdir;
my $in = TunerTAP::read_input();

# Quick trials reporting two metrics, except the first run of trial 4 of
# each study (tag $1): it records its pid, starts a child and waits.
my $runner = TunerTAP::write_runner($dir, 'runner.sh', $in . <<SH);
if [ "\$n" = 4 ] && [ ! -e $dir/\$1.child ]; then
	echo \$\$ > $dir/\$1.pid
	sleep 300 &
	echo \$! > $dir/\$1.child
	wait
fi
echo "{\\"value\\": \$x, \\"aux\\": \$n}"
SH

# Start a study of $trials trials; wait until trial 4 hangs.  Returns the
# runner's pid and its child's.
sub start_study
{
	my ($tag, $trials) = @_;
	$node->safe_psql('postgres', qq{
		SELECT tuner.register_runner('$tag', '$runner', ARRAY['$tag']);
		SELECT tuner.create_study('$tag', 'value', 'minimize', '{"seed": 3, "kill_grace_s": 1}', runner => '$tag');
		SELECT tuner.add_parameter('$tag', 'x', 'float', 0, 1);
		SELECT tuner.run('$tag', $trials);
	});
	ok(TunerTAP::wait_until(sub { defined TunerTAP::read_pid("$dir/$tag.child") }, 60),
		"$tag: trial 4 runs");
	return (TunerTAP::read_pid("$dir/$tag.pid"), TunerTAP::read_pid("$dir/$tag.child"));
}

# The finished trials of a study with their metrics, and how many
# observations (metric values) the study has.
sub finished
{
	my ($tag) = @_;
	return $node->safe_psql('postgres', qq{
		SELECT string_agg(number || ' ' || state || ' ' || metrics::text, E'\\n' ORDER BY number)
		  FROM tuner.trials WHERE study = '$tag' AND state <> 'running'});
}

sub observations
{
	my ($tag) = @_;
	return $node->safe_psql('postgres', qq{
		SELECT count(*) FROM tuner.observation o
		  JOIN tuner.trial t ON t.id = o.trial_id
		  JOIN tuner.study s ON s.id = t.study_id
		 WHERE s.name = '$tag'});
}

# Before a fault: trials 1-3 complete with both metrics, 4 running.
sub before_fault
{
	my ($tag) = @_;
	is( $node->safe_psql('postgres', qq{
			SELECT string_agg(number || ':' || state, ',' ORDER BY number)
			  FROM tuner.trials WHERE study = '$tag'}),
		'1:complete,2:complete,3:complete,4:running',
		"$tag: three finished trials and one running before the fault");
	is(observations($tag), '6', "$tag: six metric values before the fault");
	return finished($tag);
}

# After recovery: the finished trials are intact and nothing runs.
sub after_recovery
{
	my ($tag, $before) = @_;
	like(finished($tag), qr/^\Q$before\E\n/,
		"$tag: the trials finished before the fault kept every metric");
	is($node->safe_psql('postgres', q{SELECT count(*) FROM tuner.trial WHERE state = 'running'}),
		'0', "$tag: no trial is left running");
	is($node->safe_psql('postgres', qq{
			SELECT count(*) FROM tuner.observation o
			  JOIN tuner.trial t ON t.id = o.trial_id
			  JOIN tuner.study s ON s.id = t.study_id
			 WHERE s.name = '$tag' AND t.number = 4}),
		'0', "$tag: the interrupted trial has no metric");
	return;
}

# The parent pid and process group of a process.
sub ppid_pgid
{
	my ($p) = @_;
	open my $fh, '<', "/proc/$p/stat" or return (undef, undef);
	my $stat = <$fh>;
	close $fh;
	return $stat =~ /^\d+ \(.*\) \S+ (\d+) (\d+)/ ? ($1, $2) : (undef, undef);
}

# Does a process map PostgreSQL's shared memory (the SysV segment, or the
# anonymous shared mapping)?
sub maps_shmem
{
	my ($p) = @_;
	open my $fh, '<', "/proc/$p/maps" or die "no /proc/$p/maps: $!";
	my $maps = join '', <$fh>;
	close $fh;
	return $maps =~ m{/SYSV|/dev/zero \(deleted\)|anon_hugepage} ? 1 : 0;
}

# 1. SIGKILL of the runner: the worker records trial 4 as failed (killed
# by signal 9), kills what is left of its group, and goes on.
my ($pid, $child) = start_study('runner_kill', 6);

# The runner runs under a keeper: the worker's child, leader of the
# runner's process group, detached from the server's shared memory.
my ($keeper, $group) = ppid_pgid($pid);
my ($keeper_parent, $keeper_group) = ppid_pgid($keeper);
is($keeper_parent,
	$node->safe_psql('postgres', q{SELECT pid FROM tuner.progress WHERE study = 'runner_kill'}),
	"the runner's parent (the keeper) is the worker's child");
is("$group $keeper_group", "$keeper $keeper", 'the keeper leads the runner\'s process group');
ok(maps_shmem($keeper_parent), 'the worker maps the shared memory');
ok(!maps_shmem($keeper), 'the keeper does not');
my $before = before_fault('runner_kill');
kill 'KILL', $pid;
ok( $node->poll_query_until(
		'postgres', q{SELECT j.state FROM tuner.job j JOIN tuner.study s ON s.id = j.study_id
					   WHERE s.name = 'runner_kill'}, 'finished'),
	'runner_kill: the job finishes');
ok(TunerTAP::wait_until(sub { !TunerTAP::alive($child) }, 10),
	"runner_kill: the runner's child is gone with it");
is( $node->safe_psql(
		'postgres', q{SELECT state || ': ' || error FROM tuner.trials
					   WHERE study = 'runner_kill' AND number = 4}),
	'failed: runner was terminated by signal 9: Killed',
	'runner_kill: trial 4 failed, killed by signal 9');
is( $node->safe_psql(
		'postgres', q{SELECT string_agg(number || ':' || state, ',' ORDER BY number)
					   FROM tuner.trials WHERE study = 'runner_kill' AND number > 4}),
	'5:complete,6:complete', 'runner_kill: the study goes on with trials 5 and 6');
after_recovery('runner_kill', $before);

# The study continues after a crash: tuner.run reconciles first (trial 4
# "server restarted", its job interrupted, its retry queued as trial 5),
# then runs two trials.
sub continues
{
	my ($tag) = @_;
	$node->safe_psql('postgres', "SELECT tuner.run('$tag', 2)");
	is( $node->safe_psql(
			'postgres', qq{SELECT state || ': ' || error FROM tuner.trials
						   WHERE study = '$tag' AND number = 4}),
		'interrupted: server restarted', "$tag: trial 4 is interrupted: server restarted");
	is( $node->safe_psql(
			'postgres', qq{SELECT string_agg(j.state, ',' ORDER BY j.id)
						   FROM tuner.job j JOIN tuner.study s ON s.id = j.study_id
						  WHERE s.name = '$tag' AND j.state <> 'running'}),
		'interrupted', "$tag: the crashed job is interrupted");
	ok( $node->poll_query_until(
			'postgres', qq{SELECT string_agg(j.state, ',' ORDER BY j.id)
						   FROM tuner.job j JOIN tuner.study s ON s.id = j.study_id
						  WHERE s.name = '$tag'}, 'interrupted,finished'),
		"$tag: the new job finishes");
	is( $node->safe_psql(
			'postgres', qq{SELECT string_agg(number || ':' || state, ',' ORDER BY number)
						   FROM tuner.trials WHERE study = '$tag' AND number > 4}),
		'5:complete,6:complete', "$tag: the study goes on with trials 5 and 6");
	is( $node->safe_psql(
			'postgres', qq{SELECT r.number || ' ' || (r.config = o.config)
						   FROM tuner.trial r JOIN tuner.trial o ON o.id = r.retry_of
						   JOIN tuner.study s ON s.id = r.study_id
						  WHERE s.name = '$tag'}),
		'5 true', "$tag: trial 5 retried trial 4's configuration (retry_of)");
	return;
}

# 2. SIGKILL of the background worker: the postmaster restarts every
# process; the runner's group dies with the worker.
my $worker;
($pid, $child) = start_study('worker_kill', 6);
$worker = $node->safe_psql('postgres', q{SELECT pid FROM tuner.progress WHERE study = 'worker_kill'});
ok($worker =~ /^\d+$/, 'worker_kill: the worker pid is in tuner.progress');
$before = before_fault('worker_kill');
kill 'KILL', $worker;
ok(TunerTAP::wait_until(sub { !TunerTAP::alive($worker) }, 10), 'worker_kill: the worker is gone');
ok($node->poll_query_until('postgres', 'SELECT count(*) > 0 FROM tuner.study'),
	'worker_kill: the server is back after the crash');
ok(TunerTAP::wait_until(sub { !TunerTAP::alive($pid) && !TunerTAP::alive($child) }, 10),
	'worker_kill: the runner and its child are gone');
is($node->safe_psql('postgres', q{SELECT count(*) FROM tuner.progress WHERE study = 'worker_kill' AND NOT alive}),
	'1', 'worker_kill: tuner.progress shows that the process of trial 4 is gone');
continues('worker_kill');
after_recovery('worker_kill', $before);

# 3. Immediate shutdown of the server (no worker gets to clean up), then
# a start.
($pid, $child) = start_study('immediate', 6);
$before = before_fault('immediate');
$node->stop('immediate');
ok(TunerTAP::wait_until(sub { !TunerTAP::alive($pid) && !TunerTAP::alive($child) }, 10),
	'immediate: the runner and its child are gone');
$node->start;
continues('immediate');
after_recovery('immediate', $before);

$node->stop;
done_testing();
