# Runner programs must be safe to exec (issue 25): the server runs them as
# its own OS user, so registering a program that someone else could change
# is refused, and a program registered safely but changed afterwards (its
# directory made writable by everyone, or the file replaced by a symbolic
# link into such a directory) fails its trial in the background worker
# with the reason, and the swapped-in script never runs.  Everything here
# is done by a role that is no superuser (tuner_user and
# pg_execute_server_program).  A directory owned by another OS user needs
# root to set up: sql/runner_program_safety.sql (the regress test) covers it.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use TunerTAP;

my $node = TunerTAP::new_node('program_safety');
my $dir = PostgreSQL::Test::Utils::tempdir;
my $in = TunerTAP::read_input();

my $role = 'regress_tuner_tap_safety';
$node->safe_psql('postgres', qq{
	CREATE ROLE $role LOGIN IN ROLE tuner_user, pg_execute_server_program;
	GRANT EXECUTE ON FUNCTION tuner.register_runner(text, text, text[], jsonb),
		tuner.run(text, int, int), tuner.step(text) TO $role;
});

sub as_role
{
	my ($sql) = @_;
	return $node->safe_psql('postgres', $sql, extra_params => [ '-U', $role ]);
}

sub as_role_err
{
	my ($sql) = @_;
	my ($rc, $out, $err) =
	  $node->psql('postgres', $sql, extra_params => [ '-U', $role ]);
	return $err;
}

# The script an attacker would swap in: it leaves a marker when it runs.
my $marker = "$dir/swapped-in-script-ran";
my $evil_body = "touch $marker\necho '{\"value\": 0}'\n";
my $good_body = $in . "echo \"{\\\"value\\\": \$x}\"\n";

# Registration: a directory writable by everyone (no sticky bit).
mkdir "$dir/open" or die;
chmod 0777, "$dir/open";
my $open = TunerTAP::write_runner("$dir/open", 'run.sh', $evil_body);
like(
	as_role_err("SELECT tuner.register_runner('open', '$open')"),
	qr/runner program "\Q$open\E" is unsafe to run: directory "\Q$dir\E\/open" is writable by every user \(mode 0777\)/,
	'a program in a world-writable directory is refused');

# Registration: a symbolic link, in a safe directory, to that program.
symlink $open, "$dir/link.sh" or die;
like(
	as_role_err("SELECT tuner.register_runner('link', '$dir/link.sh')"),
	qr/runner program "\Q$dir\E\/link.sh" is unsafe to run: directory "\Q$dir\E\/open" is writable by every user/,
	'a symbolic link to it is refused');

# Registration: the file itself writable by everyone.
mkdir "$dir/lax" or die;
my $lax = TunerTAP::write_runner("$dir/lax", 'run.sh', $good_body);
chmod 0777, $lax;
like(
	as_role_err("SELECT tuner.register_runner('lax', '$lax')"),
	qr/is unsafe to run: file "\Q$lax\E" is writable by every user/,
	'a world-writable program is refused');
is($node->safe_psql('postgres', 'SELECT count(*) FROM tuner.runner'),
	'0', 'none of them was registered');

# A safe registration, then a swap before the worker runs it; returns
# the trial's state and error.
sub swapped_trial
{
	my ($name, $swap) = @_;
	mkdir "$dir/$name" or die;
	my $program = TunerTAP::write_runner("$dir/$name", 'run.sh', $good_body);
	as_role(qq{
		SELECT tuner.register_runner('$name', '$program');
		SELECT tuner.create_study('$name', 'value', 'minimize', '{"seed": 5}', runner => '$name');
		SELECT tuner.add_parameter('$name', 'x', 'float', 0, 1);
	});
	$swap->($program);
	as_role("SELECT tuner.run('$name', 1)");
	ok( $node->poll_query_until(
			'postgres', qq{SELECT count(*) = 1 FROM tuner.trials
						   WHERE study = '$name' AND state <> 'running'}),
		"$name: the trial ends");
	return split /\|/,
	  $node->safe_psql('postgres', qq{SELECT state, error FROM tuner.trials
									 WHERE study = '$name'});
}

# Swap 1: the directory made writable by everyone, the file replaced.
my ($state, $error) = swapped_trial(
	'widened',
	sub {
		my ($program) = @_;
		chmod 0777, "$dir/widened";
		unlink $program;
		TunerTAP::write_runner("$dir/widened", 'run.sh', $evil_body);
	});
is($state, 'failed', 'widened: the trial failed');
like(
	$error,
	qr/^runner program "\Q$dir\E\/widened\/run.sh" is unsafe to run: directory "\Q$dir\E\/widened" is writable by every user \(mode 0777\)$/,
	'widened: its error says why');
ok(!-e $marker, 'widened: the swapped-in script never ran');

# Swap 2: the file replaced by a symbolic link into an unsafe directory.
($state, $error) = swapped_trial(
	'relinked',
	sub {
		my ($program) = @_;
		unlink $program;
		symlink $open, $program or die;
	});
is($state, 'failed', 'relinked: the trial failed');
like(
	$error,
	qr/^runner program "\Q$dir\E\/relinked\/run.sh" is unsafe to run: directory "\Q$dir\E\/open" is writable by every user \(mode 0777\)$/,
	'relinked: its error says why');
ok(!-e $marker, 'relinked: the swapped-in script never ran');

# The same study with its program put back safe runs (so the failures
# above came from the check, not from a broken runner).
unlink "$dir/relinked/run.sh";
TunerTAP::write_runner("$dir/relinked", 'run.sh', $good_body);
is(as_role("SELECT tuner.step('relinked') ->> 'state'"),
	'complete', 'put back safe, the program runs');

# tuner.step, in the session, checks as the workers do.
chmod 0777, "$dir/relinked";
like(
	as_role("SELECT tuner.step('relinked') ->> 'error'"),
	qr/is unsafe to run: directory "\Q$dir\E\/relinked" is writable by every user/,
	'tuner.step refuses it too');
ok(!-e $marker, 'no swapped-in script ever ran');

$node->stop;
done_testing();
