# TunerTAP.pm: helpers of the tuner TAP tests: a node with the extension,
# runner scripts written by the test, and process checks.
package TunerTAP;

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

# A started node with tuner installed in database postgres.  %conf lines
# are appended to postgresql.conf.
sub new_node
{
	my ($name, @conf) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	# TUNER_DESTDIR (tests/tap.sh): the extension installed with
	# make install DESTDIR=..., not into the system.
	if ($ENV{TUNER_DESTDIR})
	{
		my $d = $ENV{TUNER_DESTDIR};
		my $libdir = `pg_config --pkglibdir`;
		chomp $libdir;
		unshift @conf, "extension_destdir = '$d'",
		  "dynamic_library_path = '$d$libdir:$libdir'";
	}
	$node->append_conf('postgresql.conf',
		join("\n", "max_worker_processes = 16", @conf) . "\n");
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION tuner');
	if ($ENV{TUNER_DESTDIR})
	{
		my $maps = $node->safe_psql('postgres',
			q{LOAD 'tuner'; SELECT pg_read_file('/proc/self/maps')});
		die "tuner.so of TUNER_DESTDIR=$ENV{TUNER_DESTDIR} is not the one loaded"
		  unless $maps =~ m{\Q$ENV{TUNER_DESTDIR}\E\S*/tuner\.so};
	}
	return $node;
}

# Write an executable runner script; returns its path.
sub write_runner
{
	my ($dir, $name, $body) = @_;
	my $path = "$dir/$name";
	open my $fh, '>', $path or die "could not write $path: $!";
	print $fh "#!/bin/sh\n$body";
	close $fh;
	chmod 0755, $path;
	return $path;
}

# Shell lines that read the configuration from stdin into $input and set
# $n (trial number) and $x (parameter x).
sub read_input
{
	return <<'SH';
input=$(cat)
n=$(printf '%s' "$input" | sed -n 's/.*"number": \([0-9]*\).*/\1/p')
x=$(printf '%s' "$input" | sed -n 's/.*"x": \([-0-9.e]*\).*/\1/p')
SH
}

# Does process $pid exist (zombies count as gone)?
sub alive
{
	my ($pid) = @_;
	return 0 unless defined $pid && $pid =~ /^\d+$/;
	open my $fh, '<', "/proc/$pid/stat" or return 0;
	my $stat = <$fh>;
	close $fh;
	return 0 unless defined $stat;
	return ($stat =~ /^\d+ \(.*\) ([A-Za-z])/ && $1 ne 'Z') ? 1 : 0;
}

# Wait until $code returns true (checked every 100 ms, up to $seconds).
sub wait_until
{
	my ($code, $seconds) = @_;
	my $deadline = time() + $seconds;
	while (time() < $deadline)
	{
		return 1 if $code->();
		usleep(100_000);
	}
	return $code->() ? 1 : 0;
}

# The first line of a file, or undef.
sub read_pid
{
	my ($path) = @_;
	open my $fh, '<', $path or return undef;
	my $line = <$fh>;
	close $fh;
	return undef unless defined $line;
	chomp $line;
	return $line;
}

# Create a study with one float parameter x in [0, 1] and a runner.
sub study_with_runner
{
	my ($node, $study, $runner, $program, $settings) = @_;
	$settings //= '{}';
	$node->safe_psql('postgres', qq{
		SELECT tuner.register_runner('$runner', '$program');
		SELECT tuner.create_study('$study', 'value', 'minimize', '$settings', runner => '$runner');
		SELECT tuner.add_parameter('$study', 'x', 'float', 0, 1);
	});
	return;
}

1;
