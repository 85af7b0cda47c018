/*
 * runner.c: tuner_ceph, the Ceph trial runner.
 *
 * Protocol (as tuner_rocksdb): the trial configuration arrives as one JSON
 * object on stdin (Ceph option name -> number, string or boolean, plus an
 * optional "_settings" object; other "_" keys are metadata); the metrics
 * leave as one JSON object on stdout; exit 0 on success, 2 on invalid
 * input (unknown option, creation-time option, bad settings), 1 on a
 * failed trial (e.g. Ceph refused a value: its message is the last stderr
 * line), 128+signal when terminated.
 *
 * One trial: remove the values of the previous trial (state file), set
 * this trial's values with "config set", restart the OSDs through the
 * cluster script when a restart-only option changed, read the running
 * values back from every OSD, run the write / sequential read / random
 * read phases through librados aio, remove the objects.
 *
 *   tuner_ceph --reset   remove every value the runner set (restarting the
 *                        OSDs when needed): the default configuration.
 *   tuner_ceph --catalog print the live cluster's option schema (an OSD's
 *                        "config help"), the input of tuner.import_catalog.
 */
#define _GNU_SOURCE
#include "answers.h"
#include "apply.h"
#include "ceph_input.h"
#include "cephcmd.h"
#include "json.h"
#include "pairs.h"
#include "progress.h"
#include "runner_common.h"
#include "work_dir.h"
#include "workload.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_OSDS 16

/* Connected handles, shut down before any exit: librados' threads must
 * not run while the process exits. */
static rados_t admin_handle, bench_handle;

static void
shutdown_handles(void)
{
	if (bench_handle)
		rados_shutdown(bench_handle);
	if (admin_handle)
		rados_shutdown(admin_handle);
	bench_handle = admin_handle = NULL;
}

static void
on_signal(int sig)
{
	workload_stop = sig;
}

/* ---------------------------------------------------------------------
 * Restarting the OSDs through the cluster script
 * ---------------------------------------------------------------------
 */
static void
restart_osds(const ceph_settings *s)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die(EXIT_FAILED, "fork: %s", strerror(errno));
	if (pid == 0)
	{
		/* the script's messages go to our stderr, never to stdout */
		dup2(STDERR_FILENO, STDOUT_FILENO);
		setenv("TUNER_CEPH_DIR", s->cluster_dir, 1);
		setenv("TUNER_CEPH_POOL", s->pool, 1);
		execl("/bin/bash", "bash", s->cluster_script, "restart-osd", "all",
			  (char *)NULL);
		fprintf(stderr, "tuner_ceph: exec %s: %s\n", s->cluster_script,
				strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die(EXIT_FAILED, "waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die(EXIT_FAILED, "%s restart-osd all failed (status %d)",
			s->cluster_script, status);
}

/* ---------------------------------------------------------------------
 * Applying a configuration
 * ---------------------------------------------------------------------
 */

/* Marker: restart-only values changed and the OSDs have not restarted yet
 * (a runner killed in between leaves it for the next one). */
static void
restart_marker(const ceph_settings *s, char *path)
{
	snprintf(path, PATH_MAX, "%.4000s.restart", s->state_file);
}

typedef struct
{
	char who[32];
	char name[128];
	char before[256];
} watched;

/*
 * Remove the previous trial's values, set the new ones (opts may be empty:
 * the defaults), restart the OSDs when a restart-only option changed its
 * value in the configuration database.  Returns whether it restarted.
 */
static bool
apply_config(rados_t c, const ceph_settings *s, trial_option *opts, int nopts)
{
	applied_option *prev;
	int nprev, i, k, nwatch = 0;
	watched *watch;
	char err[1024], marker[PATH_MAX];
	bool restart = false, pending;
	struct stat st;

	if (state_load(s->state_file, &prev, &nprev, err, sizeof(err)) < 0)
		die(EXIT_FAILED, "%s", err);
	watch = calloc(nprev + nopts + 1, sizeof(watched));
	/* The restart-only options whose value may change: their values
	 * before, to compare with after. */
	for (i = 0; i < nprev + nopts; i++)
	{
		const char *who = i < nprev ? prev[i].who : opts[i - nprev].who;
		const char *name = i < nprev ? prev[i].name : opts[i - nprev].name;
		opt_kind kind;

		if (i < nprev)
		{
			if (option_classify(c, name, &kind, NULL, err, sizeof(err)) < 0)
				die(EXIT_FAILED, "%s", err);
		}
		else
			kind = opts[i - nprev].kind;
		if (kind != OPT_RESTART || strcmp(who, "osd") != 0)
			continue;
		for (k = 0; k < nwatch; k++)
			if (strcmp(watch[k].name, name) == 0)
				break;
		if (k < nwatch)
			continue;
		snprintf(watch[nwatch].who, sizeof(watch[nwatch].who), "%s", who);
		snprintf(watch[nwatch].name, sizeof(watch[nwatch].name), "%s", name);
		if (option_get_mon(c, who, name, watch[nwatch].before,
						   sizeof(watch[nwatch].before), err, sizeof(err)) < 0)
			die(EXIT_FAILED, "%s", err);
		nwatch++;
	}

	/* From here until the OSDs restart, a runner that dies leaves the
	 * marker for the next one: the OSDs may run with stale values. */
	restart_marker(s, marker);
	pending = stat(marker, &st) == 0;
	if (nwatch > 0 && !pending)
	{
		FILE *f = fopen(marker, "w");

		if (f == NULL || fclose(f) != 0)
			die(EXIT_FAILED, "writing %s: %s", marker, strerror(errno));
	}

	for (i = 0; i < nprev; i++)
		if (option_rm(c, prev[i].who, prev[i].name, err, sizeof(err)) < 0)
			die(EXIT_FAILED, "%s", err);
	if (state_clear(s->state_file, err, sizeof(err)) < 0)
		die(EXIT_FAILED, "%s", err);
	free(prev);

	for (i = 0; i < nopts; i++)
	{
		/* recorded first: a refused or interrupted set is still removed
		 * by the next trial */
		if (state_append(s->state_file, opts[i].who, opts[i].name, err,
						 sizeof(err)) < 0)
			die(EXIT_FAILED, "%s", err);
		if (option_set(c, opts[i].who, opts[i].name, opts[i].value, err,
					   sizeof(err)) < 0)
		{
			/* leave the configuration as it was before this trial */
			apply_config(c, s, NULL, 0);
			die(EXIT_FAILED, "Ceph refused the value: %s", err);
		}
	}
	if (remove_cluster_written(c, err, sizeof(err)) < 0)
		die(EXIT_FAILED, "%s", err);

	restart = pending;
	for (k = 0; k < nwatch; k++)
	{
		char after[256];

		if (option_get_mon(c, watch[k].who, watch[k].name, after,
						   sizeof(after), err, sizeof(err)) < 0)
			die(EXIT_FAILED, "%s", err);
		if (strcmp(after, watch[k].before) != 0)
			restart = true;
	}
	free(watch);
	if (restart)
		restart_osds(s);
	unlink(marker);
	if (restart)
	{
		/* the OSD start writes its mclock capacity benchmark result */
		if (remove_cluster_written(c, err, sizeof(err)) < 0)
			die(EXIT_FAILED, "%s", err);
	}
	return restart;
}

/*
 * Read the running values back: every OSD must run with the monitor's
 * (normalized) value; waits up to apply_timeout_s for the monitor to push
 * runtime values.  The client's options are read from the benchmark's own
 * librados handle, which fetched them when it connected.
 */
static void
read_effective(rados_t admin, rados_t bench, const ceph_settings *s,
			   trial_option *opts, int nopts, const int *osds, int nosds)
{
	char err[1024];
	int i, k;

	for (i = 0; i < nopts; i++)
	{
		trial_option *o = &opts[i];
		char want[256], got[256];
		time_t deadline = time(NULL) + s->apply_timeout_s;

		if (strcmp(o->who, "client") == 0)
		{
			if (rados_conf_get(bench, o->name, o->effective,
							   sizeof(o->effective)) < 0)
				die(EXIT_FAILED, "reading the client's %s failed", o->name);
			if (option_get_mon(admin, "client", o->name, want, sizeof(want),
							   err, sizeof(err)) < 0)
				die(EXIT_FAILED, "%s", err);
			o->effective_ok = strcmp(want, o->effective) == 0;
			continue;
		}
		if (option_get_mon(admin, o->who, o->name, want, sizeof(want), err,
						   sizeof(err)) < 0)
			die(EXIT_FAILED, "%s", err);
		for (;;)
		{
			bool all = true;

			for (k = 0; k < nosds; k++)
			{
				if (option_get_osd(admin, osds[k], o->name, got, sizeof(got),
								   err, sizeof(err)) < 0)
					die(EXIT_FAILED, "%s", err);
				if (k == 0)
					snprintf(o->effective, sizeof(o->effective), "%s", got);
				if (strcmp(got, want) != 0)
					all = false;
			}
			o->effective_ok = all;
			if (all || time(NULL) >= deadline)
				break;
			usleep(200 * 1000);
		}
	}
}

/* ---------------------------------------------------------------------
 * Output
 * ---------------------------------------------------------------------
 */
/* ---------------------------------------------------------------------
 * Workload runs
 * ---------------------------------------------------------------------
 */
#define N_PHASES 3
#define N_VALUES 8

static const char *const phase_names[N_PHASES] = {"write", "seq_read",
												  "rand_read"};
static const char *const value_names[N_VALUES] = {
	"mbps",       "iops",       "lat_mean_ms", "lat_p50_ms",
	"lat_p99_ms", "lat_max_ms", "ops",         "seconds"};

typedef struct
{
	double v[N_PHASES][N_VALUES];
	uint64_t objects;
} run_metrics;

static void
phase_values(const phase_result *r, double *out)
{
	out[0] = r->seconds > 0 ? (double)r->bytes / 1048576.0 / r->seconds : NAN;
	out[1] = r->seconds > 0 ? (double)r->ops / r->seconds : NAN;
	out[2] = r->lat.mean_ms;
	out[3] = r->lat.p50_ms;
	out[4] = r->lat.p99_ms;
	out[5] = r->lat.max_ms;
	out[6] = (double)r->ops;
	out[7] = r->seconds;
}

/*
 * Progress (issue 30): one line on fd 3 per second of the workload.  step
 * = seconds into the trial's workload on a fixed grid: phase k (0..2) of
 * the trial's run r (0..) starts at (3 r + k) x duration_s, whatever the
 * OSD restarts and removals between them took, so that the same step is
 * the same point of the workload in every trial.  metrics: the phase's
 * P_iops, P_mbps (operations and MiB per second so far in the phase) and
 * P_lat_mean_ms (mean latency so far), with "_default" after each name in
 * a default run.
 */
typedef struct
{
	const ceph_settings *s;
	const char *role; /* "trial" or "default" */
	int run;          /* 0.. */
	int phase;        /* the phase of next_s */
	int next_s;       /* the next whole second of the phase to report */
} progress_state;

static progress_state progress;

static void
progress_tick(void *arg, int phase, double elapsed_s, uint64_t ops,
			  double lat_sum_ms)
{
	progress_state *ps = arg;
	bool dflt = strcmp(ps->role, "default") == 0;
	char n_iops[48], n_mbps[48], n_lat[48];
	const char *names[3] = {n_iops, n_mbps, n_lat};
	double values[3];

	if (!progress_active() || ops == 0)
		return;
	if (phase != ps->phase)
	{
		ps->phase = phase;
		ps->next_s = 1;
	}
	/* whole seconds within the phase's slot of the grid: the draining of
	 * the last operations after duration_s reports nothing */
	if (elapsed_s < ps->next_s || ps->next_s > ps->s->w.duration_s)
		return;
	snprintf(n_iops, sizeof n_iops, "%s_iops%s", phase_names[phase],
			 dflt ? "_default" : "");
	snprintf(n_mbps, sizeof n_mbps, "%s_mbps%s", phase_names[phase],
			 dflt ? "_default" : "");
	snprintf(n_lat, sizeof n_lat, "%s_lat_mean_ms%s", phase_names[phase],
			 dflt ? "_default" : "");
	values[0] = (double)ops / elapsed_s;
	values[1] =
		(double)ops * (double)ps->s->w.object_size / 1048576.0 / elapsed_s;
	values[2] = lat_sum_ms / (double)ops;
	progress_emit((3.0 * ps->run + phase) * ps->s->w.duration_s +
					  (double)ps->next_s,
				  3, names, values);
	/* one line a second: skip the seconds no operation ended in */
	ps->next_s = (int)elapsed_s + 1;
}

/*
 * One run of the workload with whatever configuration is applied: a fresh
 * benchmark handle (it fetches the client options set for this run), the
 * three phases, then the removal of every object written.
 */
static void
run_once(const ceph_target *t, const ceph_settings *s, rados_t admin,
		 trial_option *opts, int nopts, bool read_back, const int *osds,
		 int nosds, run_metrics *m)
{
	rados_t bench;
	rados_ioctx_t io;
	phase_result ph[N_PHASES];
	char err[1024], rerr[1024];
	int failed = 0, p;

	if (ceph_connect(t, &bench, err, sizeof(err)) < 0)
		die(EXIT_FAILED, "%s", err);
	bench_handle = bench;
	if (read_back)
		read_effective(admin, bench, s, opts, nopts, osds, nosds);
	if (rados_ioctx_create(bench, s->pool, &io) < 0)
		die(EXIT_FAILED, "pool %s: cannot open it", s->pool);
	m->objects = 0;
	progress.phase = -1;
	if (workload_write(io, &s->w, &ph[0], &m->objects, err, sizeof(err)) < 0 ||
		workload_read(io, &s->w, false, m->objects, &ph[1], err, sizeof(err)) <
			0 ||
		workload_read(io, &s->w, true, m->objects, &ph[2], err, sizeof(err)) <
			0)
		failed = 1;
	if (workload_remove(io, &s->w, m->objects, rerr, sizeof(rerr)) < 0 &&
		!failed)
	{
		snprintf(err, sizeof(err), "%s", rerr);
		failed = 1;
	}
	rados_ioctx_destroy(io);
	rados_shutdown(bench);
	bench_handle = NULL;
	if (workload_stop)
		die(128 + workload_stop, "terminated by signal %d",
			(int)workload_stop);
	if (failed)
		die(EXIT_FAILED, "%s", err);
	for (p = 0; p < N_PHASES; p++)
		phase_values(&ph[p], m->v[p]);
}

/* Mean over runs of one value, ignoring NaN; NaN when none. */
static double
mean_of(const run_metrics *runs, int n, int phase, int value)
{
	double sum = 0;
	int i, k = 0;

	for (i = 0; i < n; i++)
		if (isfinite(runs[i].v[phase][value]))
		{
			sum += runs[i].v[phase][value];
			k++;
		}
	return k ? sum / k : NAN;
}

/*
 * The option schema of the running cluster, as the first OSD knows it
 * ("tell osd.N config help", one command), in the shape of
 * tests/ceph/catalog-16.2.json: a header, then the options in the OSD's
 * order.  The options are passed through as Ceph wrote them: one bound
 * (rgw_rados_pool_recovery_priority's min, 2^64 - 10) does not fit a
 * jansson integer, so the answer is parsed (integers as reals) only to
 * check its shape and count the options.
 */
static void
print_catalog(rados_t c)
{
	int osds[MAX_OSDS], nosds;
	ceph_answer a, v;
	size_t start, len, count;
	char full[256];
	char number[64];
	strbuf sb;

	nosds = ceph_osd_ids(c, osds, MAX_OSDS);
	if (nosds <= 0)
		die(EXIT_FAILED, "the cluster has no OSDs (osd ls: %d)", nosds);
	if (ceph_osd(
			c, osds[0],
			json_pack("{s:s, s:s}", "prefix", "config help", "format", "json"),
			&a) < 0)
		die(EXIT_FAILED, "tell osd.%d config help: %s", osds[0], ceph_why(&a));
	if (ceph_parse_catalog(a.out, &start, &len, &count) < 0)
		die(EXIT_FAILED, "tell osd.%d config help: no \"options\" array",
			osds[0]);
	if (ceph_mon(
			c, json_pack("{s:s, s:s}", "prefix", "version", "format", "json"),
			&v) < 0)
		die(EXIT_FAILED, "version: %s", ceph_why(&v));
	ceph_parse_version(v.out, full, sizeof(full), number, sizeof(number));
	sb_init(&sb);
	sb_append(&sb, "{\"system\": \"ceph\", \"version\": ");
	sb_json_string(&sb, number);
	sb_append(&sb, ", \"ceph_version\": ");
	sb_json_string(&sb, full);
	sb_printf(&sb,
			  ", \"source\": \"tell osd.%d config help -f json (tuner_ceph "
			  "--catalog)\", \"count\": %zu,\n\"options\": ",
			  osds[0], count);
	sb_appendn(&sb, a.out + start, len);
	sb_append(&sb, "}\n");
	fputs(sb.data, stdout);
	sb_free(&sb);
	ceph_answer_free(&v);
	ceph_answer_free(&a);
}

static void
usage(void)
{
	printf(
		"usage: tuner_ceph [--reset] < config.json\n"
		"  stdin: {\"option\": value, ..., \"_settings\": {...}}; see README.md\n");
}

int
main(int argc, char **argv)
{
	ceph_settings s;
	const char *input = "";
	size_t input_len = 0;
	strbuf input_err;
	trial_option *opts = calloc(CEPH_MAX_OPTIONS, sizeof(trial_option));
	int nopts, i, nosds, osds[MAX_OSDS];
	bool reset = false, catalog = false, restarted = false;
	ceph_target t;
	rados_t admin;
	char err[1024];
	run_metrics *trial_runs, *default_runs;
	uint64_t nobjects;
	int runs, r, p, v;
	bool read_back_done = false;
	strbuf sb;
	double *pair_ratio[N_PHASES];
	pair_stats pstats[N_PHASES];

	/* die() shuts down the librados handles before exiting */
	runner_init("tuner_ceph", shutdown_handles);
	for (i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--reset") == 0)
			reset = true;
		else if (strcmp(argv[i], "--catalog") == 0)
			catalog = true;
		else if (strcmp(argv[i], "--help") == 0)
		{
			usage();
			return 0;
		}
		/* other arguments: a study's fixed arguments, ignored */
	}
	runner_install_signals(on_signal);

	/* --catalog reads no input: the settings' defaults */
	if (!catalog)
		input = runner_read_stdin("input", &workload_stop, &input_len);
	if (!ceph_parse_input(input, input_len, !reset, &s, opts, &nopts,
						  &input_err))
		die(EXIT_BADINPUT, "%s", input_err.data);
	sb_free(&input_err);
	/* before reading anything from it: the runner executes its cluster.sh */
	if (!work_dir_check(s.cluster_dir, err, sizeof(err)))
		die(EXIT_BADINPUT, "%s", err);
	/* the configuration section of each option (apply.c) */
	for (i = 0; i < nopts; i++)
		opts[i].who = option_who(opts[i].name);

	t.conf = s.conf;
	t.keyring = s.keyring;
	t.client_name = s.client_name;
	t.timeout_s = s.timeout_s;
	if (ceph_connect(&t, &admin, err, sizeof(err)) < 0)
		die(EXIT_FAILED, "%s", err);
	admin_handle = admin;
	if (catalog)
	{
		print_catalog(admin);
		shutdown_handles();
		return 0;
	}

	/* Classify before changing anything: refuse unknown and
	 * creation-time options. */
	for (i = 0; i < nopts; i++)
	{
		bool allowed;

		if (option_classify(admin, opts[i].name, &opts[i].kind, &allowed, err,
							sizeof(err)) < 0)
			die(EXIT_BADINPUT, "unknown option: %s", err);
		if (opts[i].kind == OPT_CREATE)
			die(EXIT_BADINPUT,
				"%s is fixed when an OSD is created (Ceph flag \"create\"); "
				"tuner_ceph refuses creation-time options rather than re-creating OSDs",
				opts[i].name);
		if (!allowed)
			die(EXIT_BADINPUT, "%s", err);
	}

	if (reset)
	{
		restarted = apply_config(admin, &s, NULL, 0);
		printf("{\"reset\": true, \"restarted\": %s}\n",
			   restarted ? "true" : "false");
		shutdown_handles();
		return 0;
	}

	nosds = ceph_osd_ids(admin, osds, MAX_OSDS);
	if (nosds <= 0)
		die(EXIT_FAILED, "the cluster has no OSDs (osd ls: %d)", nosds);

	/*
	 * Runs: the trial configuration "repeats" times; with "paired", each
	 * repeat is a pair with the default configuration, the order
	 * alternating (pair 1 default first, pair 2 trial first, ...).
	 */
	trial_runs = calloc(s.repeats, sizeof(run_metrics));
	default_runs = calloc(s.repeats, sizeof(run_metrics));
	runs = s.paired ? 2 * s.repeats : s.repeats;
	for (p = 0; p < N_PHASES; p++)
	{
		pair_ratio[p] = calloc(s.repeats, sizeof(double));
		pstats[p].n = 0;
		pstats[p].geomean = pstats[p].sd_log = pstats[p].std_error =
			pstats[p].cv = NAN;
	}
	/* fd 3: progress lines, when it is open (progress.h) */
	if (progress_init())
	{
		progress.s = &s;
		s.w.tick = progress_tick;
		s.w.tick_arg = &progress;
	}
	for (r = 0; r < runs; r++)
	{
		int pair = s.paired ? r / 2 : r;
		bool is_trial = !s.paired || ((r % 2 == 1) != (pair % 2 == 1));

		/* unpaired repeats keep the configuration applied once */
		if (r == 0 || s.paired)
		{
			bool restart = is_trial ? apply_config(admin, &s, opts, nopts)
									: apply_config(admin, &s, NULL, 0);

			restarted = restarted || restart;
		}
		progress.role = is_trial ? "trial" : "default";
		progress.run = r;
		run_once(&t, &s, admin, opts, nopts, is_trial && !read_back_done, osds,
				 nosds, is_trial ? &trial_runs[pair] : &default_runs[pair]);
		if (is_trial)
			read_back_done = true;
	}
	/*
	 * "restore": leave the cluster at its defaults after every trial, so
	 * that it is back at them whenever a study ends or is stopped between
	 * trials (the next trial sets its own values anyway).
	 */
	if (s.restore)
		restarted = apply_config(admin, &s, NULL, 0) || restarted;
	shutdown_handles();

	sb_init(&sb);
	sb_append(&sb, "{");
	for (p = 0; p < N_PHASES; p++)
		for (v = 0; v < N_VALUES; v++)
		{
			sb_printf(&sb, "\"%s_%s\": ", phase_names[p], value_names[v]);
			sb_json_number(&sb, mean_of(trial_runs, s.repeats, p, v));
			sb_append(&sb, ", ");
		}
	if (s.paired)
	{
		for (p = 0; p < N_PHASES; p++)
		{
			for (v = 0; v < 2; v++)
			{
				sb_printf(&sb, "\"%s_%s_default\": ", phase_names[p],
						  value_names[v]);
				sb_json_number(&sb, mean_of(default_runs, s.repeats, p, v));
				sb_append(&sb, ", ");
			}
			for (r = 0; r < s.repeats; r++)
				pair_ratio[p][r] =
					trial_runs[r].v[p][0] / default_runs[r].v[p][0];
			pair_stats_of(pair_ratio[p], s.repeats, &pstats[p]);
			/* geometric mean of the per-pair ratios of MiB/s (= of IOPS) */
			sb_printf(&sb, "\"%s_ratio\": ", phase_names[p]);
			sb_json_number(&sb, pstats[p].geomean);
			/* their coefficient of variation (sample sd / mean) */
			sb_printf(&sb, ", \"%s_ratio_cv\": ", phase_names[p]);
			sb_json_number(&sb, pstats[p].cv);
			sb_append(&sb, ", ");
		}
	}
	/* the ratios' standard errors, when two pairs or more give them */
	if (s.paired && s.repeats >= 2)
	{
		bool first = true;

		for (p = 0; p < N_PHASES; p++)
		{
			if (pstats[p].n < 2 || !isfinite(pstats[p].std_error))
				continue;
			sb_printf(&sb,
					  "%s\"%s_ratio\": ", first ? "\"_std_error\": {" : ", ",
					  phase_names[p]);
			sb_json_number(&sb, pstats[p].std_error);
			first = false;
		}
		if (!first)
			sb_append(&sb, "}, ");
	}
	nobjects = trial_runs[0].objects;
	sb_append(&sb, "\"_requested\": {");
	for (i = 0; i < nopts; i++)
	{
		sb_append(&sb, i ? ", " : "");
		sb_json_string(&sb, opts[i].name);
		sb_append(&sb, ": ");
		sb_json_string(&sb, opts[i].value);
	}
	sb_append(&sb, "}, \"_effective\": {");
	for (i = 0; i < nopts; i++)
	{
		sb_append(&sb, i ? ", " : "");
		sb_json_string(&sb, opts[i].name);
		sb_append(&sb, ": ");
		sb_json_string(&sb, opts[i].effective);
	}
	sb_append(&sb, "}, \"_diagnostics\": {\"restarted\": ");
	sb_append(&sb, restarted ? "true" : "false");
	sb_append(&sb, ", \"kind\": {");
	for (i = 0; i < nopts; i++)
	{
		sb_append(&sb, i ? ", " : "");
		sb_json_string(&sb, opts[i].name);
		sb_append(&sb, ": ");
		sb_json_string(&sb, opt_kind_name(opts[i].kind));
	}
	sb_append(&sb, "}, \"not_effective\": [");
	for (i = 0, nosds = 0; i < nopts; i++)
		if (!opts[i].effective_ok)
		{
			sb_append(&sb, nosds++ ? ", " : "");
			sb_json_string(&sb, opts[i].name);
		}
	sb_printf(&sb,
			  "], \"runs\": %d, \"objects\": %llu, \"object_size\": %zu, "
			  "\"concurrency\": %d, \"duration_s\": ",
			  runs, (unsigned long long)nobjects, s.w.object_size,
			  s.w.concurrency);
	sb_json_number(&sb, s.w.duration_s);
	if (s.paired)
	{
		/* the pairs: their order (ABBA), each phase's ratios, spread */
		sb_append(&sb, ", \"order\": [");
		for (r = 0; r < runs; r++)
		{
			int pair = r / 2;

			sb_append(&sb, r ? ", " : "");
			sb_append(&sb, (r % 2 == 1) != (pair % 2 == 1) ? "\"trial\""
														   : "\"default\"");
		}
		sb_printf(&sb, "], \"pairs\": %d", s.repeats);
		for (p = 0; p < N_PHASES; p++)
		{
			sb_printf(&sb, ", \"%s_pair_ratios\": ", phase_names[p]);
			sb_json_numbers(&sb, pair_ratio[p], s.repeats);
			sb_printf(&sb, ", \"%s_pair_ratio_sd_log\": ", phase_names[p]);
			sb_json_number(&sb, pstats[p].sd_log);
		}
	}
	sb_append(&sb, "}}\n");
	fputs(sb.data, stdout);
	sb_free(&sb);
	free(opts);
	free(trial_runs);
	free(default_runs);
	for (p = 0; p < N_PHASES; p++)
		free(pair_ratio[p]);
	return 0;
}
