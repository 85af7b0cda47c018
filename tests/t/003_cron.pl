# pg_cron drives tuner.step: a job scheduled every minute runs trials.
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
$node->safe_psql('postgres', q{SELECT cron.unschedule('tune')});
$node->stop;
done_testing();
