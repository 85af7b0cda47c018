/*
 * options.c
 *	  tuner-agent's command line (see usage()).
 */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "run.h"

/* Print the usage on f. */
static void
usage(FILE *f)
{
	fprintf(
		f,
		"Usage: tuner-agent --study NAME --runner-path PROGRAM [OPTION]... "
		"[-- RUNNER-ARG...]\n"
		"  or:  tuner-agent --trial ID [--runner-path PROGRAM] [OPTION]... "
		"[-- RUNNER-ARG...]\n"
		"Run trials of a tuner study on this host with a local runner "
		"program.\n\n"
		"  --dsn CONNINFO        libpq connection string (default: the PG* "
		"environment)\n"
		"  --study NAME          the study whose trials to run\n"
		"  --runner-path PROGRAM the runner to execute here (no shell); "
		"arguments\n"
		"                        after -- are passed to it\n"
		"  --trial ID            run exactly the trial with this id (queued, "
		"or\n"
		"                        submitted to this worker, as a Slurm job "
		"is),\n"
		"                        then exit; without --runner-path the "
		"study's\n"
		"                        registered runner program and arguments "
		"run\n"
		"  --leave-on-signal     on SIGTERM/SIGINT stop the runner but record\n"
		"                        nothing: the submitter of its Slurm job records\n"
		"                        the trial with Slurm's reason (cancel, time limit)\n"
		"  --worker NAME         the agent's worker name (default "
		"agent@HOST:PID)\n"
		"  --trials N            run N trials, then exit (default: until "
		"SIGTERM)\n"
		"  --heartbeat-s S       renew the trial's lease every S seconds\n"
		"                        (default: a third of the study's lease_s, "
		"at most 10)\n"
		"  --max-backoff-s S     longest wait between reconnects (default "
		"30)\n"
		"  --call-timeout-s S    longest wait for the database to answer a "
		"claim or\n"
		"                        an outcome before the connection counts "
		"as lost\n"
		"                        (default 60; heartbeats wait one "
		"heartbeat interval,\n"
		"                        at least 1 s, at most this)\n"
		"  --help                show this help\n\n"
		"Exit status: 0 when done or stopped by SIGTERM/SIGINT, 1 when the "
		"database\nrefused to give it trials (with --trial: that trial), 2 "
		"on a usage error.\n");
}

/* Exit 2 with a message and the hint to see --help. */
static void
usage_error(const char *what, const char *value)
{
	fprintf(stderr, "tuner-agent: %s%s%s\n", what, value ? ": " : "",
			value ? value : "");
	fprintf(stderr, "Try \"tuner-agent --help\".\n");
	exit(2);
}

/* A number of seconds in [lo, hi]. */
static double
seconds_arg(const char *name, const char *value, double lo, double hi)
{
	char *end;
	double v = strtod(value, &end);

	if (end == value || *end != '\0' || !isfinite(v) || v < lo || v > hi)
	{
		fprintf(stderr, "tuner-agent: %s must be a number between %g and %g\n",
				name, lo, hi);
		usage_error("invalid value", value);
	}
	return v;
}

/* The default worker name: agent@HOST:PID. */
static char *
default_worker(void)
{
	char host[256];
	char *name = malloc(300);

	if (gethostname(host, sizeof(host)) != 0)
		strcpy(host, "unknown");
	host[sizeof(host) - 1] = '\0';
	snprintf(name, 300, "agent@%s:%d", host, (int)getpid());
	return name;
}

/* See agent.h. */
void
agent_parse_options(int argc, char **argv, AgentOptions *opts)
{
	static const struct option longopts[] = {
		{"dsn", required_argument, NULL, 'd'},
		{"study", required_argument, NULL, 's'},
		{"runner-path", required_argument, NULL, 'r'},
		{"worker", required_argument, NULL, 'w'},
		{"trials", required_argument, NULL, 'n'},
		{"trial", required_argument, NULL, 'i'},
		{"leave-on-signal", no_argument, NULL, 'l'},
		{"heartbeat-s", required_argument, NULL, 'h'},
		{"max-backoff-s", required_argument, NULL, 'b'},
		{"call-timeout-s", required_argument, NULL, 't'},
		{"help", no_argument, NULL, '?' + 256},
		{NULL, 0, NULL, 0}};
	const char *runner = NULL;
	int c;
	int i;
	int nargs;
	char *end;

	memset(opts, 0, sizeof(*opts));
	opts->dsn = "";
	opts->max_backoff_s = 30;
	opts->call_timeout_s = 60;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1)
	{
		switch (c)
		{
			case 'd':
				opts->dsn = optarg;
				break;
			case 's':
				opts->study = optarg;
				break;
			case 'r':
				runner = optarg;
				break;
			case 'w':
				opts->worker = optarg;
				break;
			case 'n':
				opts->trials = strtol(optarg, &end, 10);
				if (end == optarg || *end != '\0' || opts->trials < 0 ||
					opts->trials == LONG_MAX)
					usage_error("--trials must be a count of at least 0",
								optarg);
				break;
			case 'i':
				opts->trial_id = strtoll(optarg, &end, 10);
				if (end == optarg || *end != '\0' || opts->trial_id < 1 ||
					opts->trial_id == LLONG_MAX)
					usage_error("--trial must be a trial id (at least 1)",
								optarg);
				break;
			case 'l':
				opts->leave_on_signal = true;
				break;
			case 'h':
				opts->heartbeat_s =
					seconds_arg("--heartbeat-s", optarg, 0.05, 3600);
				break;
			case 'b':
				opts->max_backoff_s =
					seconds_arg("--max-backoff-s", optarg, 0.1, 3600);
				break;
			case 't':
				opts->call_timeout_s =
					seconds_arg("--call-timeout-s", optarg, 1, 3600);
				break;
			case '?' + 256:
				usage(stdout);
				exit(0);
			default:
				usage_error("invalid option", NULL);
		}
	}
	if (opts->trial_id != 0)
	{
		if (opts->study != NULL)
			usage_error("--trial and --study exclude each other", NULL);
		if (opts->trials != 0)
			usage_error("--trial and --trials exclude each other", NULL);
		opts->study = "";
	}
	else if (opts->study == NULL || opts->study[0] == '\0')
		usage_error("--study (or --trial) is required", NULL);
	if ((runner == NULL || runner[0] == '\0') && opts->trial_id == 0)
		usage_error("--runner-path is required", NULL);
	if (opts->worker == NULL)
		opts->worker = default_worker();
	else if (opts->worker[0] == '\0' || strlen(opts->worker) > 200)
		usage_error("--worker must be a name of 1 to 200 characters",
					opts->worker);

	if (runner == NULL || runner[0] == '\0')
	{
		if (argc > optind)
			usage_error("runner arguments after -- need --runner-path", NULL);
		return; /* the registered runner (agent_claim_trial) */
	}
	/* An absolute path, resolved once: the runner runs in P_tmpdir. */
	opts->runner_path = realpath(runner, NULL);
	if (opts->runner_path == NULL || !agent_is_executable(opts->runner_path))
		usage_error("--runner-path is not an executable file", runner);

	nargs = argc - optind;
	opts->runner_argv = calloc(nargs + 2, sizeof(char *));
	opts->runner_argv[0] = opts->runner_path;
	for (i = 0; i < nargs; i++)
		opts->runner_argv[i + 1] = argv[optind + i];
}
