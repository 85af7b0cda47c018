/*
 * runner.c: tuner_fastquery_runner, the trial runner of the fastquery
 * preset.
 *
 * Protocol (as tuner_rocksdb's): the trial configuration arrives as one
 * JSON object on stdin (parameter name -> value, plus "_settings"; other
 * "_" keys are metadata); the metrics leave as one JSON object on stdout;
 * exit 0 success, 1 failed run, 2 invalid input, 128+N when terminated by
 * signal N.  The last stderr line says why a trial failed.
 *
 * One run = gen (cached per size, layout and alignment), build, then the
 * fixed query set, each as "mpiexec.mpich -n RANKS tuner_fastquery ...".
 * A trial is one run, or "repeats" runs, and with "paired" each repeat
 * also runs the default configuration, the order alternating per repeat.
 * This is a separate serial program, not a subcommand of tuner_fastquery:
 * it supervises mpiexec (timeouts, signals) and must never be an MPI
 * process itself.  Hydra puts every proxy and rank in a session of its
 * own, so a process-group kill does not reach the ranks: on a timeout or a
 * signal the runner freezes mpiexec's whole process tree (found through
 * /proc) and SIGKILLs it.  See README.md.
 */
#define _GNU_SOURCE
#include "fq_runner.h"
#include "json.h"
#include "pairs.h"
#include "progress.h"
#include "runner_common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_OUTPUT (16 << 20)
#define MAX_ARGS   64

static volatile sig_atomic_t got_signal = 0;

/* The trial's index directory and file, removed when the trial is killed. */
static char index_dir[PATH_MAX + 32];
static char index_path[PATH_MAX + 64];

static void
remove_index(void)
{
	if (index_path[0])
		(void)unlink(index_path);
	if (index_dir[0])
		(void)rmdir(index_dir);
}

static void
on_signal(int sig)
{
	got_signal = sig;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The parent pid of a process, or -1 when it is gone. */
static pid_t
parent_of(pid_t pid)
{
	char path[64], buf[512];
	FILE *f;
	char *close_paren;
	int ppid = -1;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	if (fgets(buf, sizeof buf, f) != NULL &&
		(close_paren = strrchr(buf, ')')) != NULL)
		(void)sscanf(close_paren + 1, " %*c %d", &ppid);
	fclose(f);
	return (pid_t)ppid;
}

/* Append the descendants of root (found through /proc) to list. */
static int
descendants(pid_t root, pid_t *list, int n, int cap)
{
	int first = n;

	list[n++] = root;
	for (int i = first; i < n; i++)
	{
		DIR *d = opendir("/proc");
		struct dirent *e;

		if (d == NULL)
			break;
		while ((e = readdir(d)) != NULL && n < cap)
		{
			char *end;
			long pid = strtol(e->d_name, &end, 10);

			if (*end != '\0' || pid <= 0)
				continue;
			if (parent_of((pid_t)pid) == list[i])
			{
				bool seen = false;

				for (int j = 0; j < n; j++)
					seen = seen || list[j] == (pid_t)pid;
				if (!seen)
					list[n++] = (pid_t)pid;
			}
		}
		closedir(d);
	}
	return n;
}

/*
 * Kill mpiexec and everything under it.  Stopping the tree first keeps a
 * proxy from starting a rank (or a dying proxy's ranks from moving to
 * init) between the scan and the kill.
 */
static void
kill_tree(pid_t root)
{
	pid_t list[1024];
	int n = 0;

	for (int pass = 0; pass < 3; pass++)
	{
		int before = n;

		n = descendants(root, list, 0, 1024);
		for (int i = 0; i < n; i++)
			(void)kill(list[i], SIGSTOP);
		if (n == before)
			break;
	}
	for (int i = 0; i < n; i++)
		(void)kill(list[i], SIGKILL);
}

/*
 * Run argv (mpiexec) with stdin from /dev/null (mpiexec forwards its stdin
 * to rank 0), stdout captured, stderr inherited.  Returns the child's exit
 * status; on a timeout or a signal kills the tree and exits.
 */
static int
run_child(char *const argv[], double deadline, strbuf *out)
{
	int pipefd[2];
	pid_t pid;
	int status;
	bool eof = false;

	if (pipe(pipefd) != 0)
		die(EXIT_FAILED, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die(EXIT_FAILED, "fork: %s", strerror(errno));
	if (pid == 0)
	{
		int devnull = open("/dev/null", O_RDONLY);

		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(pipefd[1], 1) < 0)
			_exit(127);
		close(pipefd[0]);
		close(pipefd[1]);
		close(devnull);
		execvp(argv[0], argv);
		fprintf(stderr, "could not run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	while (!eof)
	{
		struct pollfd p = {pipefd[0], POLLIN, 0};
		double left = deadline - now_s();
		int r;

		if (got_signal)
		{
			kill_tree(pid);
			(void)waitpid(pid, NULL, 0);
			remove_index();
			die(128 + got_signal,
				"terminated by signal %d: killed mpiexec and its ranks",
				(int)got_signal);
		}
		if (left <= 0)
		{
			kill_tree(pid);
			(void)waitpid(pid, NULL, 0);
			remove_index();
			die(EXIT_FAILED,
				"timeout: %s %s ran past the runner's timeout_s; killed mpiexec and its ranks",
				argv[0], argv[4]);
		}
		r = poll(&p, 1, (int)(left > 0.2 ? 200 : left * 1000 + 1));
		if (r > 0)
		{
			char buf[8192];
			ssize_t k = read(pipefd[0], buf, sizeof buf);

			if (k > 0 && out->len + k <= MAX_OUTPUT)
				sb_appendn(out, buf, (size_t)k);
			else if (k == 0)
				eof = true;
		}
	}
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0)
	{
		if (errno != EINTR)
			die(EXIT_FAILED, "waitpid: %s", strerror(errno));
	}
	return status;
}

/* The last line of out that parses as a JSON object. */
static json_t *
last_json_object(const char *out)
{
	const char *p = out + strlen(out);

	while (p > out)
	{
		const char *line = p - 1;
		json_t *j;

		while (line > out && line[-1] != '\n')
			line--;
		j = json_loadb(line, (size_t)(p - line), 0, NULL);
		if (j != NULL && json_is_object(j))
			return j;
		json_decref(j);
		p = line;
	}
	return NULL;
}

/* Run one tuner_fastquery step; its JSON metrics, or exit on failure. */
static json_t *
run_step(char *const argv[], double deadline)
{
	strbuf out;
	int status;
	json_t *j;

	sb_init(&out);
	sb_append(&out, "");
	status = run_child(argv, deadline, &out);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
	{
		if (WIFEXITED(status))
			die(WEXITSTATUS(status) == EXIT_BADINPUT ? EXIT_BADINPUT
													 : EXIT_FAILED,
				"tuner_fastquery %s exited with status %d", argv[4],
				WEXITSTATUS(status));
		die(EXIT_FAILED, "tuner_fastquery %s killed by signal %d", argv[4],
			WTERMSIG(status));
	}
	j = last_json_object(out.data);
	sb_free(&out);
	if (j == NULL)
		die(EXIT_FAILED, "tuner_fastquery %s printed no JSON object", argv[4]);
	return j;
}

static double
metric(json_t *j, const char *key, const char *step)
{
	json_t *v = json_object_get(j, key);

	if (!json_is_number(v))
		die(EXIT_FAILED, "tuner_fastquery %s reported no number %s", step,
			key);
	return json_number_value(v);
}

/* Append "--key value" to an argv under construction. */
static void
add_arg(char **argv, int *argc, const char *key, const char *value)
{
	if (*argc + 3 > MAX_ARGS)
		die(EXIT_FAILED, "too many arguments");
	argv[(*argc)++] = strdup(key);
	argv[(*argc)++] = strdup(value);
	argv[*argc] = NULL;
}

/* The start of every step's command line: mpiexec -n R program step. */
static int
start_argv(char **argv, const FqTrial *t, const char *step)
{
	char ranks[16];

	snprintf(ranks, sizeof ranks, "%d", t->ranks);
	argv[0] = (char *)t->mpiexec;
	argv[1] = "-n";
	argv[2] = strdup(ranks);
	argv[3] = (char *)t->program;
	argv[4] = (char *)step;
	argv[5] = NULL;
	return 5;
}

/* The MPI-IO hints given to every step (only those the trial sets). */
static void
add_hints(char **argv, int *argc, const FqTrial *t)
{
	char num[32];

	if (t->romio_ds_read[0])
		add_arg(argv, argc, "--romio_ds_read", t->romio_ds_read);
	if (t->romio_cb_read[0])
		add_arg(argv, argc, "--romio_cb_read", t->romio_cb_read);
	if (t->romio_cb_write[0])
		add_arg(argv, argc, "--romio_cb_write", t->romio_cb_write);
	if (t->cb_buffer_size > 0)
	{
		snprintf(num, sizeof num, "%ld", t->cb_buffer_size);
		add_arg(argv, argc, "--cb_buffer_size", num);
	}
	if (t->cb_nodes > 0)
	{
		snprintf(num, sizeof num, "%d", t->cb_nodes);
		add_arg(argv, argc, "--cb_nodes", num);
		/* ROMIO's default "*:1" allows one aggregator per host: on one
		 * machine any cb_nodes above 1 would be dropped */
		add_arg(argv, argc, "--cb_config_list", "*:*");
	}
}

/* The numbers one run of a configuration reports (the output's keys). */
#define N_METRICS 10
static const char *const metric_names[N_METRICS] = {
	"total_s", "build_s", "query_s",     "read_s", "range_s",
	"index_s", "write_s", "index_bytes", "cpu_s",  "gen_s"};

/*
 * Progress (issue 30): one line on fd 3 when a step of a run ends; step
 * = the phase's index over the whole trial (gen, build, query of the
 * first run are 1, 2, 3; of the second 4, 5, 6; ...), metrics = that
 * phase's seconds and the run's running total (build_s + query_s so far,
 * as total_s), suffixed "_default" in a default run.
 */
static int phases_done = 0;

static void
progress_phase(const char *role, const char *phase, double secs,
			   double running_total)
{
	bool dflt = strcmp(role, "default") == 0;
	char name[32], total[32];
	const char *names[2] = {name, total};
	double values[2] = {secs, running_total};

	phases_done++;
	snprintf(name, sizeof name, "%s_s%s", phase, dflt ? "_default" : "");
	snprintf(total, sizeof total, "total_s%s", dflt ? "_default" : "");
	progress_emit(phases_done, 2, names, values);
}

/* One run (gen, build, query) of one configuration. */
typedef struct
{
	const char *role; /* "trial" or "default" */
	int repeat;       /* 1..repeats */
	double m[N_METRICS];
	json_t *build, *query; /* their metrics, for "_effective" */
} FqRun;

/*
 * Run configuration t once: gen (cached), build into a private directory
 * (removed afterwards), then the fixed query set with the same ranks and
 * hints.  Exits on a failed step, a timeout or a signal.
 */
static void
run_once(const FqTrial *t, double deadline, FqRun *r)
{
	double b;
	char *argv[MAX_ARGS];
	int argc;
	char num[64];
	json_t *gen, *v;
	const char *data_path;
	const char *build_parts[] = {"read_s", "range_s", "index_s", "write_s"};

	/* gen: the data set, cached by gen itself (written, then renamed) */
	argc = start_argv(argv, t, "gen");
	snprintf(num, sizeof num, "%ld", t->particles);
	add_arg(argv, &argc, "--n", num);
	add_arg(argv, &argc, "--layout", t->layout);
	snprintf(num, sizeof num, "%ld", t->align);
	add_arg(argv, &argc, "--align", num);
	if (t->data_dir[0])
		add_arg(argv, &argc, "--cache-dir", t->data_dir);
	gen = run_step(argv, deadline);
	v = json_object_get(gen, "path");
	if (!json_is_string(v))
		die(EXIT_FAILED, "tuner_fastquery gen reported no path");
	data_path = json_string_value(v);
	progress_phase(r->role, "gen", metric(gen, "gen_s", "gen"), 0);

	/* build: the index goes to a private directory, removed at the end */
	snprintf(index_dir, sizeof index_dir, "%s/fqrun-XXXXXX",
			 t->data_dir[0] ? t->data_dir
							: (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp"));
	if (mkdtemp(index_dir) == NULL)
		die(EXIT_FAILED, "could not create %s: %s", index_dir,
			strerror(errno));
	snprintf(index_path, sizeof index_path, "%s/index.h5", index_dir);
	argc = start_argv(argv, t, "build");
	add_arg(argv, &argc, "--file", data_path);
	add_arg(argv, &argc, "--index", index_path);
	snprintf(num, sizeof num, "%d", t->bins);
	add_arg(argv, &argc, "--bins", num);
	snprintf(num, sizeof num, "%d", t->threads);
	add_arg(argv, &argc, "--threads", num);
	add_arg(argv, &argc, "--overlap", t->overlap ? "1" : "0");
	add_arg(argv, &argc, "--io", t->io);
	add_arg(argv, &argc, "--cold", t->cold ? "1" : "0");
	snprintf(num, sizeof num, "%ld", t->align);
	add_arg(argv, &argc, "--align", num);
	add_hints(argv, &argc, t);
	r->build = run_step(argv, deadline);
	b = metric(r->build, "build_s", "build");
	progress_phase(r->role, "build", b, b);

	/* query: the fixed query set, same ranks and hints */
	argc = start_argv(argv, t, "query");
	add_arg(argv, &argc, "--file", data_path);
	add_arg(argv, &argc, "--index", index_path);
	add_arg(argv, &argc, "--queries", t->queries);
	snprintf(num, sizeof num, "%d", t->random_queries);
	add_arg(argv, &argc, "--random", num);
	snprintf(num, sizeof num, "%ld", t->query_seed);
	add_arg(argv, &argc, "--query-seed", num);
	add_hints(argv, &argc, t);
	r->query = run_step(argv, deadline);
	progress_phase(r->role, "query", metric(r->query, "query_s", "query"),
				   b + metric(r->query, "query_s", "query"));
	remove_index();
	index_path[0] = index_dir[0] = '\0';

	/* in the order of metric_names */
	r->m[1] = metric(r->build, "build_s", "build");
	r->m[2] = metric(r->query, "query_s", "query");
	r->m[0] = r->m[1] + r->m[2];
	for (int i = 0; i < 4; i++)
		r->m[3 + i] = metric(r->build, build_parts[i], "build");
	r->m[7] = metric(r->build, "index_bytes", "build");
	r->m[8] = metric(r->build, "cpu_s", "build") +
			  metric(r->query, "cpu_s", "query");
	r->m[9] = metric(gen, "gen_s", "gen");
	json_decref(gen);
}

/* Mean of metric i over the runs of one role. */
static double
mean_of(const FqRun *runs, int n, const char *role, int i)
{
	double sum = 0;
	int k = 0;

	for (int j = 0; j < n; j++)
		if (strcmp(runs[j].role, role) == 0)
		{
			sum += runs[j].m[i];
			k++;
		}
	return k ? sum / k : NAN;
}

/*
 * Each repeat's default total_s / trial total_s (NaN: not measured):
 * each pair ran back to back, so a slow period of the machine cancels;
 * their geometric mean is speedup_vs_default (pairs.h).
 */
static void
pair_speedups(const FqRun *runs, int n, int repeats, double *out)
{
	for (int k = 1; k <= repeats; k++)
	{
		const FqRun *d = NULL, *t = NULL;

		for (int j = 0; j < n; j++)
			if (runs[j].repeat == k)
			{
				if (strcmp(runs[j].role, "default") == 0)
					d = &runs[j];
				else
					t = &runs[j];
			}
		out[k - 1] = NAN;
		if (d != NULL && t != NULL && d->m[0] > 0 && t->m[0] > 0)
			out[k - 1] = d->m[0] / t->m[0];
	}
}

/*
 * The output: every metric as the mean over the trial's runs; when paired
 * total_s_default and speedup_vs_default; "_effective" of the first trial
 * run; with more than one run, each run's numbers in "_diagnostics".  One
 * unpaired run prints exactly what the runner printed before pairing.
 */
static void
emit(const FqTrial *t, const FqRun *runs, int n)
{
	const FqRun *first = NULL;
	strbuf out;
	double ratios[FQ_MAX_REPEATS];
	pair_stats ps;

	if (t->paired)
		pair_speedups(runs, n, t->repeats, ratios);
	pair_stats_of(ratios, t->paired ? t->repeats : 0, &ps);

	for (int j = 0; j < n && first == NULL; j++)
		if (strcmp(runs[j].role, "trial") == 0)
			first = &runs[j];
	sb_init(&out);
	sb_append(&out, "{");
	for (int i = 0; i < N_METRICS; i++)
	{
		sb_printf(&out, "%s\"%s\": ", i ? ", " : "", metric_names[i]);
		sb_json_number(&out, mean_of(runs, n, "trial", i));
	}
	if (t->paired)
	{
		sb_append(&out, ", \"total_s_default\": ");
		sb_json_number(&out, mean_of(runs, n, "default", 0));
		sb_append(&out, ", \"speedup_vs_default\": ");
		sb_json_number(&out, ps.geomean);
		/* its standard error, when two pairs or more give one */
		if (ps.n >= 2 && isfinite(ps.std_error))
		{
			sb_append(&out, ", \"_std_error\": {\"speedup_vs_default\": ");
			sb_json_number(&out, ps.std_error);
			sb_append(&out, "}");
		}
	}
	fq_append_effective(&out, first->build, first->query);
	if (n > 1)
	{
		sb_printf(&out,
				  ", \"_diagnostics\": {\"paired\": %s, \"repeats\": %d, "
				  "\"runs\": [",
				  t->paired ? "true" : "false", t->repeats);
		for (int j = 0; j < n; j++)
		{
			sb_printf(&out, "%s{\"role\": \"%s\", \"repeat\": %d",
					  j ? ", " : "", runs[j].role, runs[j].repeat);
			for (int i = 0; i < N_METRICS; i++)
			{
				sb_printf(&out, ", \"%s\": ", metric_names[i]);
				sb_json_number(&out, runs[j].m[i]);
			}
			sb_append(&out, "}");
		}
		sb_append(&out, "]");
		if (t->paired)
		{
			/* the pairs: their order (ABBA), speedups and spread */
			sb_append(&out, ", \"order\": [");
			for (int j = 0; j < n; j++)
				sb_printf(&out, "%s\"%s\"", j ? ", " : "", runs[j].role);
			sb_printf(&out, "], \"pairs\": %d, \"pair_ratios\": ", t->repeats);
			sb_json_numbers(&out, ratios, t->repeats);
			sb_append(&out, ", \"pair_ratio_sd_log\": ");
			sb_json_number(&out, ps.sd_log);
			sb_append(&out, ", \"pair_ratio_cv\": ");
			sb_json_number(&out, ps.cv);
		}
		sb_append(&out, "}");
	}
	sb_append(&out, "}");
	puts(out.data);
	sb_free(&out);
}

int
main(void)
{
	char *input;
	static FqRun runs[2 * FQ_MAX_REPEATS];
	FqTrial t, dflt;
	char err[512];
	double deadline;
	int n = 0;

	/* die() without a prefix: this runner's messages never had one */
	runner_init(NULL, NULL);
	runner_install_signals(on_signal);
	/* fd 3: progress lines, when it is open (progress.h) */
	(void)progress_init();
	input = runner_read_stdin("configuration", &got_signal, NULL);
	if (!fq_parse_trial(input, &t, err, sizeof err))
		die(EXIT_BADINPUT, "%s", err);
	/* the same settings, the parameters of an empty configuration */
	dflt = t;
	fq_default_params(&dflt);
	deadline = now_s() + t.timeout_s;

	for (int rep = 1; rep <= t.repeats; rep++)
	{
		/* Pairs alternate order (default first, then trial first, ...) so
		 * that a drift of the machine, or the page cache one run leaves
		 * for the next, favours neither side. */
		bool default_first = (rep % 2) == 1;

		for (int slot = 0; slot < (t.paired ? 2 : 1); slot++)
		{
			bool is_default = t.paired && (slot == 0) == default_first;

			runs[n].role = is_default ? "default" : "trial";
			runs[n].repeat = rep;
			run_once(is_default ? &dflt : &t, deadline, &runs[n]);
			n++;
		}
	}
	emit(&t, runs, n);
	return 0;
}
