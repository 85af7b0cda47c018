# pg_cron drives tuner.step: a job scheduled every minute runs trials;
# another one runs tuner.reap().
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use TunerTAP;

my $node = PostgreSQL::Test::Cluster->new('cron');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_cron'
cron.database_name = 'postgres'
cron.host = '@{[ $node->host ]}'
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION pg_cron');
$node->safe_psql('postgres', 'CREATE EXTENSION tuner');

my $dir = PostgreSQL::Test::Utils::tempdir;
my $runner = TunerTAP::write_runner($dir, 'cron.sh', TunerTAP::read_input() . <<'SH');
echo "{\"value\": $x}"
SH
TunerTAP::study_with_runner($node, 'cs', 'cron', $runner, '{"seed": 9}');
$node->safe_psql('postgres',
	q{SELECT cron.schedule('tune', '* * * * *', $$SELECT tuner.step('cs')$$)});

# pg_cron also finds stale trials while nobody asks: an ask/tell client
# takes a trial with a 1 s lease and disappears; the scheduled
# tuner.reap() interrupts it and queues its retry.  (tuner.trials does not
# reap by itself, so only the schedule can.)
$node->safe_psql('postgres', q{
	SELECT tuner.create_study('leased', 'value', 'minimize', '{"seed": 10, "lease_s": 1}');
	SELECT tuner.add_parameter('leased', 'x', 'float', 0, 1);
	SELECT tuner.suggest_next('leased', 'gone-client');
	SELECT cron.schedule('reap', '* * * * *', $$SELECT tuner.reap()$$);
});

# The schedule has minute granularity: the first run is within ~60 s.
ok( $node->poll_query_until(
		'postgres',
		q{SELECT count(*) >= 1 FROM tuner.trials WHERE study = 'cs' AND state = 'complete'}),
	'pg_cron ran tuner.step: a complete trial appeared');
ok( $node->poll_query_until(
		'postgres',
		q{SELECT count(*) >= 1 FROM cron.job_run_details
		   WHERE command LIKE '%tuner.step%' AND status = 'succeeded'}),
	'cron.job_run_details records the run as succeeded');
is($node->safe_psql('postgres', q{SELECT worker FROM tuner.trials WHERE study = 'cs' AND number = 1}),
	'step', 'the trial was run by tuner.step');
ok( $node->poll_query_until(
		'postgres',
		q{SELECT state = 'interrupted' AND error = 'lease expired'
		    FROM tuner.trials WHERE study = 'leased' AND number = 1}),
	'the scheduled tuner.reap() interrupted the trial whose lease expired');
is( $node->safe_psql('postgres',
		q{SELECT state || ' ' || (retry_of = (SELECT trial FROM tuner.trials
											 WHERE study = 'leased' AND number = 1))
		    FROM tuner.trials WHERE study = 'leased' AND number = 2}),
	'queued true', 'and queued its retry');
$node->safe_psql('postgres', q{SELECT cron.unschedule('tune')});
$node->safe_psql('postgres', q{SELECT cron.unschedule('reap')});
$node->stop;
done_testing();
