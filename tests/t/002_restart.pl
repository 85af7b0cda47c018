# Restart reconciliation: a trial running when a backend crashes (kill -9,
# restart_after_crash = on) is interrupted with "server restarted" once
# the extension is used again; a clean restart (fast shutdown) stops the
# runner and records "worker terminated".  Never left running.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use TunerTAP;

my $node = TunerTAP::new_node('restart', 'restart_after_crash = on');
my $dir = PostgreSQL::Test::Utils::tempdir;
my $in = TunerTAP::read_input();

my $slow = TunerTAP::write_runner($dir, 'slow.sh', $in . <<SH);
echo \$\$ > $dir/\$1.\$n.pid
sleep 300 &
wait
echo '{"value": 1}'
SH

# Start a study whose runner hangs; wait until trial 1 runs.
sub start_slow
{
	my ($tag) = @_;
	$node->safe_psql('postgres', qq{
		SELECT tuner.register_runner('$tag', '$slow', ARRAY['$tag']);
		SELECT tuner.create_study('$tag', 'value', 'minimize', '{"kill_grace_s": 1}', runner => '$tag');
		SELECT tuner.add_parameter('$tag', 'x', 'float', 0, 1);
		SELECT tuner.run('$tag', 2);
	});
	ok(TunerTAP::wait_until(sub { defined TunerTAP::read_pid("$dir/$tag.1.pid") }, 60),
		"$tag: the runner runs");
	return TunerTAP::read_pid("$dir/$tag.1.pid");
}

# 1. Crash: kill -9 a backend; the postmaster reinitializes and every
# server process dies without cleanup.
my $pid = start_slow('crash');
my $psql = $node->background_psql('postgres');
my $victim = $psql->query_safe('SELECT pg_backend_pid()');
kill 'KILL', $victim;
ok( $node->poll_query_until('postgres', 'SELECT count(*) > 0 FROM tuner.study'),
	'the server is back after the crash');
ok(TunerTAP::wait_until(sub { !TunerTAP::alive($pid) }, 10),
	'the runner died with its worker (PR_SET_PDEATHSIG)');
is( $node->safe_psql(
		'postgres', q{SELECT state FROM tuner.trials WHERE study = 'crash' AND number = 1}),
	'running', 'before reconciliation the trial still says running');
is($node->safe_psql('postgres', q{SELECT count(*) FROM tuner.progress WHERE study = 'crash' AND NOT alive}),
	'1', 'tuner.progress shows that its process is gone');
# Using the extension again reconciles (here: restarting the study).
$node->safe_psql('postgres', q{SELECT tuner.run('crash', 1)});
is( $node->safe_psql(
		'postgres', q{SELECT state || ': ' || error FROM tuner.trials
					   WHERE study = 'crash' AND number = 1}),
	'interrupted: server restarted', 'tuner.run marks it interrupted: server restarted');
is( $node->safe_psql(
		'postgres', q{SELECT state FROM tuner.job WHERE id = 1}),
	'interrupted', 'the job of the crashed worker is interrupted');
$node->safe_psql('postgres', q{SELECT tuner.stop('crash')});
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) = 0 FROM tuner.trials WHERE study = 'crash' AND state = 'running'}),
	'the new job stops');

# 2. Clean restart (fast shutdown): the worker stops its runner and records
# the trial before it exits.
$pid = start_slow('clean');
$node->restart;
ok(!TunerTAP::alive($pid), 'the runner is gone after the restart');
is( $node->safe_psql(
		'postgres', q{SELECT state || ': ' || error FROM tuner.trials
					   WHERE study = 'clean' AND number = 1}),
	'interrupted: worker terminated', 'the trial was interrupted at shutdown');
is($node->safe_psql('postgres', q{SELECT count(*) FROM tuner.trials WHERE study = 'clean'}),
	'1', 'no trial started after the shutdown');

# 3. A trial left running by an earlier server lifetime (as after kill -9 of
# the postmaster) is reconciled by suggest_next too.
# (Rewriting a finished trial needs the guards off, as a restore would.)
$node->safe_psql('postgres', q{
	SET session_replication_role = replica;
	UPDATE tuner.trial SET state = 'running', error = NULL, finished_at = NULL
	 WHERE study_id = (SELECT id FROM tuner.study WHERE name = 'clean')});
$node->safe_psql('postgres', q{SELECT tuner.suggest_next('clean')});
is( $node->safe_psql(
		'postgres', q{SELECT state || ': ' || error FROM tuner.trials
					   WHERE study = 'clean' AND number = 1}),
	'interrupted: server restarted', 'suggest_next reconciles it');
is( $node->safe_psql(
		'postgres', q{SELECT string_agg(number || ':' || state, ',' ORDER BY number)
					   FROM tuner.trials WHERE study = 'clean' AND retry_of IS NOT NULL}),
	'2:running', 'and its retry, queued, is the trial suggest_next hands out');

# 4. tuner.reap() (a pg_cron schedule, report, heartbeat) finds such a trial
# too, without a new trial being asked for.
$node->safe_psql('postgres', q{
	SET session_replication_role = replica;
	UPDATE tuner.trial SET state = 'running', error = NULL, finished_at = NULL
	 WHERE study_id = (SELECT id FROM tuner.study WHERE name = 'clean') AND number = 1});
is($node->safe_psql('postgres', q{SELECT tuner.reap()}), '1', 'tuner.reap() finds it');
is( $node->safe_psql(
		'postgres', q{SELECT state || ': ' || error FROM tuner.trials
					   WHERE study = 'clean' AND number = 1}),
	'interrupted: server restarted', 'and marks it interrupted: server restarted');

$node->stop;
done_testing();
