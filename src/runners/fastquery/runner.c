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
 * One trial = gen (cached per size, layout and alignment), build, then the
 * fixed query set, each as "mpiexec.mpich -n RANKS tuner_fastquery ...".
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

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXIT_FAILED   1
#define EXIT_BADINPUT 2
#define MAX_STDIN     (1 << 20)
#define MAX_OUTPUT    (16 << 20)
#define MAX_ARGS      64

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

static void die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

static void
die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
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

int
main(void)
{
	static char input[MAX_STDIN + 1];
	size_t len = 0, k;
	FqTrial t;
	char err[512];
	char *argv[MAX_ARGS];
	int argc;
	char num[64];
	json_t *gen, *build, *query, *v;
	const char *data_path;
	double deadline, build_s, query_s;
	struct sigaction sa;
	strbuf out;
	const char *reported[] = {"read_s", "range_s", "index_s", "write_s"};

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	while ((k = fread(input + len, 1, MAX_STDIN - len, stdin)) > 0)
		len += k;
	if (len == MAX_STDIN)
		die(EXIT_BADINPUT, "configuration larger than %d bytes", MAX_STDIN);
	input[len] = '\0';
	if (!fq_parse_trial(input, &t, err, sizeof err))
		die(EXIT_BADINPUT, "%s", err);
	deadline = now_s() + t.timeout_s;

	/* gen: the data set, cached by gen itself (written, then renamed) */
	argc = start_argv(argv, &t, "gen");
	snprintf(num, sizeof num, "%ld", t.particles);
	add_arg(argv, &argc, "--n", num);
	add_arg(argv, &argc, "--layout", t.layout);
	snprintf(num, sizeof num, "%ld", t.align);
	add_arg(argv, &argc, "--align", num);
	if (t.data_dir[0])
		add_arg(argv, &argc, "--cache-dir", t.data_dir);
	gen = run_step(argv, deadline);
	v = json_object_get(gen, "path");
	if (!json_is_string(v))
		die(EXIT_FAILED, "tuner_fastquery gen reported no path");
	data_path = json_string_value(v);

	/* build: the index goes to a private directory, removed at the end */
	snprintf(index_dir, sizeof index_dir, "%s/fqrun-XXXXXX",
			 t.data_dir[0] ? t.data_dir
						   : (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp"));
	if (mkdtemp(index_dir) == NULL)
		die(EXIT_FAILED, "could not create %s: %s", index_dir,
			strerror(errno));
	snprintf(index_path, sizeof index_path, "%s/index.h5", index_dir);
	argc = start_argv(argv, &t, "build");
	add_arg(argv, &argc, "--file", data_path);
	add_arg(argv, &argc, "--index", index_path);
	snprintf(num, sizeof num, "%d", t.bins);
	add_arg(argv, &argc, "--bins", num);
	snprintf(num, sizeof num, "%d", t.threads);
	add_arg(argv, &argc, "--threads", num);
	add_arg(argv, &argc, "--overlap", t.overlap ? "1" : "0");
	add_arg(argv, &argc, "--io", t.io);
	add_arg(argv, &argc, "--cold", t.cold ? "1" : "0");
	snprintf(num, sizeof num, "%ld", t.align);
	add_arg(argv, &argc, "--align", num);
	add_hints(argv, &argc, &t);
	build = run_step(argv, deadline);

	/* query: the fixed query set, same ranks and hints */
	argc = start_argv(argv, &t, "query");
	add_arg(argv, &argc, "--file", data_path);
	add_arg(argv, &argc, "--index", index_path);
	add_arg(argv, &argc, "--queries", t.queries);
	snprintf(num, sizeof num, "%d", t.random_queries);
	add_arg(argv, &argc, "--random", num);
	snprintf(num, sizeof num, "%ld", t.query_seed);
	add_arg(argv, &argc, "--query-seed", num);
	add_hints(argv, &argc, &t);
	query = run_step(argv, deadline);
	remove_index();

	build_s = metric(build, "build_s", "build");
	query_s = metric(query, "query_s", "query");
	sb_init(&out);
	sb_append(&out, "{\"total_s\": ");
	sb_json_number(&out, build_s + query_s);
	sb_append(&out, ", \"build_s\": ");
	sb_json_number(&out, build_s);
	sb_append(&out, ", \"query_s\": ");
	sb_json_number(&out, query_s);
	for (int i = 0; i < 4; i++)
	{
		sb_printf(&out, ", \"%s\": ", reported[i]);
		sb_json_number(&out, metric(build, reported[i], "build"));
	}
	sb_append(&out, ", \"index_bytes\": ");
	sb_json_number(&out, metric(build, "index_bytes", "build"));
	sb_append(&out, ", \"cpu_s\": ");
	sb_json_number(&out, metric(build, "cpu_s", "build") +
							 metric(query, "cpu_s", "query"));
	sb_append(&out, ", \"gen_s\": ");
	sb_json_number(&out, metric(gen, "gen_s", "gen"));
	fq_append_effective(&out, build, query);
	sb_append(&out, "}");
	puts(out.data);
	return 0;
}
