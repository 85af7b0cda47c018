# After a crash restart a tuner_user's tuner.reap() reconciles the jobs
# and trials of the studies it may write, as a superuser's does, and
# nobody else's.  Until 0.3.0 it missed the restart: pg_stat_activity
# hides the checkpointer's start from a role without pg_read_all_stats,
# so the role's reap took the postmaster's start (which a crash restart
# keeps) for the last restart, left the crashed job running and called
# the crashed trial's error "worker exited".
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use TunerTAP;

my $node = TunerTAP::new_node('reap_role', 'restart_after_crash = on');
my $dir = PostgreSQL::Test::Utils::tempdir;
my $in = TunerTAP::read_input();

# alice runs programs (she starts the job); bob is only a tuner_user.
my $alice = 'regress_tuner_tap_alice';
my $bob = 'regress_tuner_tap_bob';
$node->safe_psql('postgres', qq{
	CREATE ROLE $alice LOGIN IN ROLE tuner_user, pg_execute_server_program;
	CREATE ROLE $bob LOGIN IN ROLE tuner_user;
	GRANT EXECUTE ON FUNCTION tuner.register_runner(text, text, text[], jsonb),
		tuner.run(text, int, int) TO $alice;
});

sub as_role
{
	my ($role, $sql) = @_;
	return $node->safe_psql('postgres', $sql, extra_params => [ '-U', $role ]);
}

# Trial 2 records its pid and hangs; the others report at once.
my $runner = TunerTAP::write_runner($dir, 'runner.sh', $in . <<SH);
if [ "\$n" = 2 ]; then
	echo \$\$ > $dir/runner.pid
	sleep 300 &
	wait
fi
echo "{\\"value\\": \$x}"
SH

as_role($alice, qq{
	SELECT tuner.register_runner('own', '$runner');
	SELECT tuner.create_study('own', 'value', 'minimize', '{"seed": 3, "kill_grace_s": 1}', runner => 'own');
	SELECT tuner.add_parameter('own', 'x', 'float', 0, 1);
});
is(as_role($alice, "SELECT tuner.run('own', 3)"), '1', 'alice starts a job of one worker');
ok(TunerTAP::wait_until(sub { defined TunerTAP::read_pid("$dir/runner.pid") }, 60),
	'trial 2 runs');
my $runner_pid = TunerTAP::read_pid("$dir/runner.pid");

# The cause: to alice the checkpointer has no backend_type.
is(as_role($alice, q{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'checkpointer'}),
	'0', "pg_stat_activity hides the checkpointer from alice");

# (tuner.trial and tuner.job are read directly: tuner.progress would reap)
sub states
{
	return $node->safe_psql('postgres', q{
		SELECT string_agg(t.number || ':' || t.state || COALESCE(' (' || t.error || ')', ''),
						  ', ' ORDER BY t.number)
		  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id WHERE s.name = 'own'});
}

sub job
{
	return $node->safe_psql('postgres', q{
		SELECT j.state || COALESCE(' (' || j.error || ')', '')
		  FROM tuner.job j JOIN tuner.study s ON s.id = j.study_id WHERE s.name = 'own'});
}
is(states(), '1:complete, 2:running', 'before the crash: trial 1 complete, trial 2 running');

# SIGKILL of the worker: the postmaster restarts every process (a crash
# restart keeps pg_postmaster_start_time()).
my $worker = $node->safe_psql('postgres', q{SELECT worker_pid FROM tuner.trial WHERE state = 'running'});
ok($worker =~ /^\d+$/, 'the worker pid is recorded');
my $postmaster_start = $node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()');
kill 'KILL', $worker;
ok(TunerTAP::wait_until(sub { !TunerTAP::alive($worker) }, 10), 'the worker is gone');
ok($node->poll_query_until('postgres', 'SELECT count(*) > 0 FROM tuner.study'),
	'the server is back after the crash');
ok(TunerTAP::wait_until(sub { !TunerTAP::alive($runner_pid) }, 10), 'the runner is gone');
is($node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()'), $postmaster_start,
	'the postmaster kept its start time');
is(states(), '1:complete, 2:running', 'after the crash, before any reap: trial 2 still says running');
is(job(), 'running', 'and its job too');

# bob may not write alice's study: his reap changes nothing of it.
is(as_role($bob, 'SELECT tuner.reap()'), '0', "bob's reap marks nothing");
is(states(), '1:complete, 2:running', "alice's trial is untouched by bob's reap");
is(job(), 'running', "alice's job is untouched by bob's reap");

# alice's reap reconciles her job and trial as a superuser's would.
is(as_role($alice, 'SELECT tuner.reap()'), '1', "alice's reap marks one trial");
is(states(), '1:complete, 2:interrupted (server restarted), 3:queued',
	'trial 2 is interrupted because the server restarted, its retry queued');
is(job(), 'interrupted (server restarted)', 'the crashed job is interrupted');
is( $node->safe_psql('postgres', q{
		SELECT r.number || ' retries ' || o.number || ' ' || (r.config = o.config)
		  FROM tuner.trial r JOIN tuner.trial o ON o.id = r.retry_of}),
	'3 retries 2 true', "trial 3 retries trial 2's configuration");
is(as_role($alice, 'SELECT tuner.reap()'), '0', 'a second reap finds nothing');

$node->stop;
done_testing();
