# Cancellation and limits of the numerics (issue 25): a 5,000-row GP fit,
# a 400-row ICM fit with missing values and a suggestion over a
# categorical parameter of 10^6 choices, each stopped by statement_timeout,
# by pg_cancel_backend from another session and by pg_terminate_backend,
# within 10 s and without a server restart; then the limits that refuse
# such inputs by default (tuner.max_fit_rows, tuner.max_choices), which
# only a superuser can raise.  The measured times are printed (note lines
# of prove -v) and go into RELIABILITY.md.
use strict;
use warnings;

use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);
use TunerTAP;

my $BOUND = 10;    # seconds from the interrupt to the error, generous

my $node = TunerTAP::new_node('cancel');
my $connstr = $node->connstr('postgres');
my $start_time =
  $node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()');

# The data: gp (5,000 x 5), icm (400 x 3, three tasks with a third of the
# second and third missing, so the fit takes the full, non-Kronecker path)
# and a study whose categorical parameter has 10^6 choices, with its
# initial design reported so that the next suggestion fits a model.
$node->safe_psql('postgres', q{
	SELECT setseed(0.25);
	CREATE TABLE gp AS
	SELECT array_agg(ARRAY[a, b, c, d, e] ORDER BY i) AS x,
	       array_agg(sin(6 * a) + b * c - d + 0.1 * e ORDER BY i) AS y
	  FROM (SELECT i, random() a, random() b, random() c, random() d, random() e
	          FROM generate_series(1, 5000) i) s;
	CREATE TABLE icm AS
	SELECT array_agg(ARRAY[a, b, c] ORDER BY i) AS x,
	       array_agg(ARRAY[sin(5 * a) + b,
	                       CASE WHEN i % 3 = 0 THEN NULL ELSE sin(5 * a) + c END,
	                       CASE WHEN i % 3 = 1 THEN NULL ELSE cos(3 * b) END]
	                 ORDER BY i) AS y
	  FROM (SELECT i, random() a, random() b, random() c
	          FROM generate_series(1, 400) i) s;
});
$node->safe_psql('postgres', q{
	SET tuner.max_choices = 1000000;
	SELECT tuner.create_study('wide', 'value', 'minimize', '{"seed": 5, "n_initial": 16}');
	SELECT tuner.add_parameter('wide', 'x', 'float', 0, 1);
	SELECT tuner.add_parameter('wide', 'c', 'categorical',
		choices => (SELECT array_agg('c' || i) FROM generate_series(1, 1000000) i));
	DO $$
	DECLARE
		s jsonb;
	BEGIN
		FOR i IN 1 .. 16 LOOP
			s := tuner.suggest_next('wide');
			PERFORM tuner.report((s ->> 'trial')::bigint,
				jsonb_build_object('value', (s -> 'params' ->> 'x')::float8));
		END LOOP;
	END
	$$;
});

my %work = (
	gp_fit => {
		set => 'SET tuner.max_fit_rows = 5000',
		sql => 'SELECT tuner.gp_fit(x, y) FROM gp',
	},
	icm_fit => {
		set => 'SELECT 1',
		sql => 'SELECT tuner.icm_fit(x, y) FROM icm',
	},
	suggest_next => {
		set => 'SET tuner.max_choices = 1000000',
		sql => q{SELECT tuner.suggest_next('wide')},
	},
);

# Start $sql in its own session (application_name $app), after $set and,
# if given, a statement_timeout; returns the harness and its stderr.
sub start_session
{
	my ($app, $set, $sql, $timeout_ms) = @_;
	my ($out, $err) = ('', '');
	my @cmd = (
		'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1',
		'-d', "$connstr application_name=$app",
		'-c', $set);
	push @cmd, '-c', "SET statement_timeout = $timeout_ms" if $timeout_ms;
	push @cmd, '-c', $sql;
	my $h = IPC::Run::start(\@cmd, '>', \$out, '2>', \$err);
	return ($h, \$err);
}

# The pid of session $app once its statement has run for $seconds.
sub running_pid
{
	my ($app, $seconds) = @_;
	my $pid;
	TunerTAP::wait_until(
		sub {
			$pid = $node->safe_psql('postgres', qq{
				SELECT pid FROM pg_stat_activity
				 WHERE application_name = '$app' AND state = 'active'
				   AND now() - query_start > interval '$seconds s'});
			return $pid ne '';
		},
		60);
	return $pid;
}

# Wait for a session to end (up to 120 s); returns the seconds it took.
sub wait_end
{
	my ($h) = @_;
	my $t0 = time();
	while ($h->pumpable && time() - $t0 < 120)
	{
		$h->pump_nb;
		usleep(20_000);
	}
	eval { $h->finish; };
	$h->kill_kill if $h->pumpable;
	return time() - $t0;
}

my %figures;
for my $what (sort keys %work)
{
	my $w = $work{$what};

	# (a) statement_timeout of 3 s: the time past the timeout
	{
		my $t0 = time();
		my ($h, $err) = start_session("${what}_timeout", $w->{set}, $w->{sql}, 3000);
		wait_end($h);
		my $late = time() - $t0 - 3.0;
		like($$err, qr/canceling statement due to statement timeout/,
			"$what: statement_timeout cancels it");
		cmp_ok($late, '<', $BOUND, "$what: within $BOUND s of the timeout");
		$figures{$what}{timeout} = $late;
	}

	# (b) pg_cancel_backend from another session, 2 s into the statement
	{
		my ($h, $err) = start_session("${what}_cancel", $w->{set}, $w->{sql});
		my $pid = running_pid("${what}_cancel", 2);
		ok($pid, "$what: running for 2 s");
		my $t0 = time();
		$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
		wait_end($h);
		my $took = time() - $t0;
		like($$err, qr/canceling statement due to user request/,
			"$what: pg_cancel_backend cancels it");
		cmp_ok($took, '<', $BOUND, "$what: within $BOUND s of the cancel");
		$figures{$what}{cancel} = $took;
	}

	# (b') for the GP, a cancel deep into the fit too (after the first
	# likelihood evaluations, inside the blocked factorisation)
	if ($what eq 'gp_fit')
	{
		my ($h, $err) = start_session("${what}_late", $w->{set}, $w->{sql});
		my $pid = running_pid("${what}_late", 10);
		ok($pid, "$what: running for 10 s");
		my $t0 = time();
		$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
		wait_end($h);
		my $took = time() - $t0;
		like($$err, qr/canceling statement due to user request/,
			"$what: pg_cancel_backend 10 s in cancels it");
		cmp_ok($took, '<', $BOUND, "$what: within $BOUND s of the late cancel");
		$figures{$what}{late} = $took;
	}

	# (c) pg_terminate_backend
	{
		my ($h, $err) = start_session("${what}_terminate", $w->{set}, $w->{sql});
		my $pid = running_pid("${what}_terminate", 2);
		ok($pid, "$what: running for 2 s");
		my $t0 = time();
		$node->safe_psql('postgres', "SELECT pg_terminate_backend($pid)");
		wait_end($h);
		my $took = time() - $t0;
		like($$err, qr/terminating connection due to administrator command/,
			"$what: pg_terminate_backend ends it");
		cmp_ok($took, '<', $BOUND, "$what: within $BOUND s of the termination");
		ok( TunerTAP::wait_until(
				sub {
					!TunerTAP::alive($pid);
				},
				$BOUND),
			"$what: the backend has exited");
		$figures{$what}{terminate} = $took;
	}
}

for my $what (sort keys %figures)
{
	note(sprintf('%-13s statement_timeout +%.2f s, pg_cancel_backend %.2f s, '
		  . 'pg_terminate_backend %.2f s',
		$what, @{ $figures{$what} }{qw(timeout cancel terminate)}));
}
note(sprintf('gp_fit        pg_cancel_backend 10 s into the fit %.2f s',
	$figures{gp_fit}{late}));

# No crash, no restart: the same postmaster, and nothing in the log of a
# backend that died by a signal or of crash recovery.
is($node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()'),
	$start_time, 'the server did not restart');
my $log = slurp_file($node->logfile);
unlike($log, qr/was terminated by signal|terminating any other active server processes|database system was interrupted/,
	'no backend crashed');

# The limits: by default the same inputs are refused up front, quickly,
# with the size, the limit and the setting named.
my ($ret, $stdout, $stderr);
my $t0 = time();
($ret, $stdout, $stderr) =
  $node->psql('postgres', 'SELECT tuner.gp_fit(x, y) FROM gp');
isnt($ret, 0, 'a 5,000-row fit is refused by default');
like($stderr, qr/ERROR:  x has 5000 rows, more than tuner.max_fit_rows \(1000\)/,
	'the error names the size and the limit');
like($stderr, qr/HINT:  A superuser can raise tuner.max_fit_rows/,
	'the hint names the setting');
cmp_ok(time() - $t0, '<', $BOUND, 'the refusal is immediate');

($ret, $stdout, $stderr) =
  $node->psql('postgres', q{SELECT tuner.suggest_next('wide')});
like($stderr,
	qr/ERROR:  categorical parameter 2 has 1000000 choices, more than tuner.max_choices \(100000\)/,
	'a 10^6-choice suggestion is refused by default');

# 2^31 - 1 choices: refused before anything is computed.
$t0 = time();
($ret, $stdout, $stderr) = $node->psql('postgres', q{
	SELECT tuner._suggest(0, jsonb_populate_record(NULL::tuner.suggestion,
		'{"algorithm": "gp-ei", "parameters": ["c"], "kinds": [3], "lows": [0],
		  "highs": [0], "log_scales": [false], "n_choices": [2147483647],
		  "fixed": {}, "sign": 1, "observed": [], "pending": [], "other": [],
		  "n_initial": 5, "design_index": 0, "seed": 1, "design_seed": 1,
		  "canonical": true}'))});
like($stderr,
	qr/ERROR:  categorical parameter 1 has 2147483647 choices, more than tuner.max_choices/,
	'2^31 - 1 choices are refused');
cmp_ok(time() - $t0, '<', $BOUND, 'and at once');

# Only a superuser raises the limits.
$node->safe_psql('postgres',
	'CREATE ROLE regress_tuner_small LOGIN IN ROLE tuner_user');
# a small fit loads the library, which defines the settings
my $load = q{SELECT tuner.gp_fit('{{0.1},{0.5},{0.9}}', '{1,2,3}') IS NOT NULL;};
($ret, $stdout, $stderr) = $node->psql('postgres',
	$load . 'SET tuner.max_fit_rows = 5000',
	extra_params => [ '-U', 'regress_tuner_small' ]);
like($stderr, qr/permission denied to set parameter "tuner.max_fit_rows"/,
	'a plain role cannot raise tuner.max_fit_rows');
($ret, $stdout, $stderr) = $node->psql('postgres',
	$load . 'SET tuner.max_choices = 1000000',
	extra_params => [ '-U', 'regress_tuner_small' ]);
like($stderr, qr/permission denied to set parameter "tuner.max_choices"/,
	'nor tuner.max_choices');

$node->stop;
done_testing();
