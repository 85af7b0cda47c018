# Privileges of the background workers: a worker runs as the role that
# called tuner.run (not as a superuser), sees the study through row-level
# security like that role, and looks at pg_execute_server_program again
# before every exec: a role that loses it while its job runs gets its
# running trial finished and the next one refused, with the runner never
# started again.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use TunerTAP;

# TUNER_DESTDIR: a private install (make install DESTDIR=...) to test
# instead of the system's.
my @conf;
if ($ENV{TUNER_DESTDIR})
{
	my $d = $ENV{TUNER_DESTDIR};
	my $libdir = `pg_config --pkglibdir`;
	chomp $libdir;
	push @conf, "extension_destdir = '$d'",
	  "dynamic_library_path = '$d$libdir:$libdir'";
}
my $node = TunerTAP::new_node('privileges', @conf);
my $dir = PostgreSQL::Test::Utils::tempdir;
my $in = TunerTAP::read_input();

my $role = 'regress_tuner_tap_runner';
$node->safe_psql('postgres', qq{
	CREATE ROLE $role LOGIN IN ROLE tuner_user, pg_execute_server_program;
	GRANT EXECUTE ON FUNCTION tuner.register_runner(text, text, text[], jsonb),
		tuner.run(text, int, int), tuner.step(text) TO $role;
});

# Each start of the runner leaves a line in $log; trial 1 takes 3 s.
my $log = "$dir/starts.log";
my $runner = TunerTAP::write_runner($dir, 'slow.sh', $in . <<SH);
echo "start \$n" >> $log
[ "\$n" = 1 ] && sleep 3
echo "{\\"value\\": \$x}"
SH

sub as_role
{
	my ($sql) = @_;
	return $node->safe_psql('postgres', $sql, extra_params => [ '-U', $role ]);
}

as_role(qq{
	SELECT tuner.register_runner('slow', '$runner');
	SELECT tuner.create_study('priv', 'value', 'minimize', '{"seed": 3}', runner => 'slow');
	SELECT tuner.add_parameter('priv', 'x', 'float', 0, 1);
});
is(as_role("SELECT tuner.run('priv', 3)"), '1', 'the role starts a worker');

ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) = 1 FROM tuner.trial WHERE state = 'running'}),
	'trial 1 runs');
is( $node->safe_psql(
		'postgres', q{SELECT string_agg(usename, ',') FROM pg_stat_activity
					   WHERE backend_type = 'tuner worker'}),
	$role, 'the worker runs as the role that called tuner.run');
is( $node->safe_psql(
		'postgres', qq{SELECT usesuper FROM pg_user WHERE usename = '$role'}),
	'f', 'which is not a superuser');

# Take the privilege away while trial 1 runs.
$node->safe_psql('postgres', "REVOKE pg_execute_server_program FROM $role");
ok( $node->poll_query_until(
		'postgres', q{SELECT state FROM tuner.job WHERE id = 1}, 'failed'),
	'the job ends as failed');
is( $node->safe_psql(
		'postgres', q{SELECT string_agg(number || ':' || state, ',' ORDER BY number)
					   FROM tuner.trial}),
	'1:complete,2:failed',
	'the running trial finishes, the next one is refused');
like(
	$node->safe_psql('postgres', q{SELECT error FROM tuner.trial WHERE number = 2}),
	qr/^tuner worker error: permission denied to run a runner$/,
	'the refused trial says why');
like(
	$node->safe_psql('postgres', q{SELECT error FROM tuner.job WHERE id = 1}),
	qr/permission denied to run a runner/,
	'so does the job');
is(slurp_file($log), "start 1\n", 'the runner was started once only');
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) = 0 FROM pg_stat_activity
					   WHERE backend_type = 'tuner worker'}),
	'the worker exits');

# Without the privilege the role can neither start workers nor step.
my ($rc, $out, $err) = $node->psql('postgres', "SELECT tuner.run('priv', 1)",
	extra_params => [ '-U', $role ]);
like($err, qr/permission denied to run a runner/, 'tuner.run is refused');
($rc, $out, $err) = $node->psql('postgres', "SELECT tuner.step('priv')",
	extra_params => [ '-U', $role ]);
like($err, qr/permission denied to run a runner/, 'tuner.step is refused');

# Given back, the study goes on, and another role still sees nothing of it.
$node->safe_psql('postgres', qq{
	GRANT pg_execute_server_program TO $role;
	CREATE ROLE regress_tuner_tap_other LOGIN IN ROLE tuner_user;
});
is(as_role("SELECT tuner.step('priv') ->> 'state'"), 'complete',
	'with the privilege back, a step completes');
is( $node->safe_psql(
		'postgres', 'SELECT count(*) FROM tuner.trials',
		extra_params => [ '-U', 'regress_tuner_tap_other' ]),
	'0', 'a role not granted the study sees none of its trials');

$node->stop;
done_testing();
