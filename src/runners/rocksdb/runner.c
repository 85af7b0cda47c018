/*
 * runner.c: tuner_rocksdb, the RocksDB trial runner.
 *
 * Protocol: the trial configuration arrives as one JSON object on stdin
 * (Table 1 parameter name -> number, plus an optional "_settings" object);
 * the metrics leave as one JSON object on stdout; exit 0 on success, 2 on
 * invalid input, 1 on a failed run, 128+signal when terminated.  The last
 * stderr line says why a trial failed.
 *
 * One run = restore the pre-filled DB checkpoint into a fresh directory,
 * fork/exec db_bench mixgraph on it (fixed argv, no shell), read back the
 * effective options, reopen the DB through librocksdb to flush and wait for
 * compactions (the deferred work), then parse db_bench's output and the LOG.
 * A trial is one run, or with "paired" the default configuration and the
 * trial configuration interleaved, "repeats" times.  A paired repeat is
 * cut into "segments" pairs of shorter runs (duration_s shared among
 * them) in ABBA order, so that a slow drift of the machine cancels; the
 * pairs' ratios give the ratio (their geometric mean) and its standard
 * error (pairs.h).  See README.md.
 *
 * Progress (issue 30): when file descriptor 3 is open (tuner opens it
 * for every trial, docs/runners.md), db_bench reports its throughput
 * every second (--report_interval_seconds=1, --report_file) and the
 * runner passes each second on as a progress line: step = seconds into
 * the trial's db_bench runs (one run after the other), metrics
 * ops_per_sec_default in a default run, ops_per_sec in the trial's run,
 * and, in a pair's second run once the first had the same second,
 * ratio_this_second and ratio_to_default, the trial's ratio so far
 * (ratio_so_far.h): what a pruning rule should judge, since one second's
 * ratio is mostly noise and warm-up.
 *
 * Signals: SIGTERM/SIGINT/SIGHUP forward SIGTERM to db_bench, then SIGKILL
 * after a grace period; the runner exits 128+signal.  db_bench also gets
 * PR_SET_PDEATHSIG so it cannot outlive a SIGKILLed runner.
 */
#define _GNU_SOURCE
#include "json.h"
#include "logparse.h"
#include "pairs.h"
#include "progress.h"
#include "rdb.h"
#include "rdb_input.h"
#include "ratio_so_far.h"
#include "runner_common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ARGS 96
/* the runs of a trial: its pairs' (repeats x segments) two runs each */
#define MAX_RUNS (2 * RDB_MAX_PAIRS)

/* ---------------------------------------------------------------------
 * The fixed, scaled workload (README.md explains every value).
 * ---------------------------------------------------------------------
 */
#define KEY_SIZE          48
#define FILL_VALUE_SIZE   36
#define CACHE_BYTES       (8 << 20)
#define LEVEL_BASE_BYTES  (1 << 20)
#define TARGET_FILE_BYTES (256 << 10)
#define FILL_WRITE_BUFFER (16 << 20)

/* Mixgraph model of Cao et al. (FAST'20) as in the paper's Listing 1, plus
 * the key-distribution flags that Listing 1 omits. */
static const char *const mixgraph_flags[] = {
	"--key_dist_a=0.002312",
	"--key_dist_b=0.3467",
	"--keyrange_dist_a=14.18",
	"--keyrange_dist_b=-2.917",
	"--keyrange_dist_c=0.0164",
	"--keyrange_dist_d=-0.08082",
	"--keyrange_num=30",
	"--value_k=0.2615",
	"--value_sigma=25.45",
	"--iter_k=2.517",
	"--iter_sigma=14.236",
	"--mix_get_ratio=0.85",
	"--mix_put_ratio=0.14",
	"--mix_seek_ratio=0.01",
	"--sine_mix_rate=true",
	"--sine_mix_rate_interval_milliseconds=5000",
	"--sine_a=1000",
	"--sine_b=0.000000073",
	"--sine_d=4500000",
	"--perf_level=1",
	NULL};

/* Everything one db_bench run measured. */
typedef struct
{
	const char *role; /* "default" or "trial" */
	int repeat;       /* 1..repeats */
	int segment;      /* 1..segments of the repeat */
	int pair; /* 1..repeats x segments: (repeat-1) x segments + segment */
	int duration_s; /* db_bench --duration of this run */
	char dir[PATH_MAX];
	bench_line bench;
	double workload_s;
	double final_s;
	double ops_per_sec;
	double ops_per_sec_with_compaction;
	double write_amp;
	double bytes_ingested;
	double p99_block_read_us;
	double p99_l0_l1_compaction_ms;
	double stall_ms;
	double flush_count;
	double compaction_count;
	double trivial_moves;
	double flush_bytes;
	double compaction_bytes;
	double n_l0_l1;
	double cpu_s;
	double cpu_db_bench_s;
	double cpu_final_s;
	rdb_effective eff;
	char result_line[512];
	char stderr_tail[512];
	char log_tail[1024];
} run_result;

/* ---------------------------------------------------------------------
 * Signals and errors
 * ---------------------------------------------------------------------
 */
static volatile sig_atomic_t got_signal = 0;
static volatile pid_t child_pid = 0;

/* ---------------------------------------------------------------------
 * Progress on fd 3 (see the header)
 * ---------------------------------------------------------------------
 */
#define MAX_REPORT_S 100000

/* fd 3 is open and takes our lines */
static bool progress_on = false;
/* the last step written, and where the current run's steps start */
static double progress_last = 0;
static double progress_base = 0;
/* the pairs' seconds so far, for the ratio so far */
static ratio_so_far so_far;

/* The db_bench report file of one run, read as it grows. */
typedef struct report_tail
{
	const char *path;
	const char *role; /* "default" or "trial" */
	int fd;
	char pend[256];
	size_t pendn;
} report_tail;

/* Pass one CSV line of db_bench's report on, as a progress line. */
static void
progress_line(report_tail *rt, const char *line)
{
	double secs, qps, step, this_second, ratio;
	bool is_default = strcmp(rt->role, "default") == 0;
	const char *qps_key = is_default ? "ops_per_sec_default" : "ops_per_sec";
	char buf[256];
	int n;

	if (sscanf(line, "%lf,%lf", &secs, &qps) != 2 || !isfinite(secs) ||
		!isfinite(qps) || secs < 0 || qps < 0)
		return; /* the header, or nothing we know */
	step = progress_base + secs;
	if (!(step > progress_last))
		return;
	n = snprintf(buf, sizeof(buf),
				 "{\"step\": %.17g, \"metrics\": {\"%s\": %.10g", step,
				 qps_key, qps);
	if (secs < MAX_REPORT_S &&
		ratio_so_far_second(&so_far, is_default, (int)secs, qps, &this_second,
							&ratio))
	{
		if (isfinite(ratio) && n > 0 && (size_t)n < sizeof(buf))
			n += snprintf(buf + n, sizeof(buf) - n,
						  ", \"ratio_to_default\": %.10g", ratio);
		if (isfinite(this_second) && n > 0 && (size_t)n < sizeof(buf))
			n += snprintf(buf + n, sizeof(buf) - n,
						  ", \"ratio_this_second\": %.10g", this_second);
	}
	if (n > 0 && (size_t)n < sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - n, "}}\n");
	if (n <= 0 || (size_t)n >= sizeof(buf) ||
		write(PROGRESS_FD, buf, (size_t)n) != n)
	{
		progress_on = false; /* fd 3 went away: the trial goes on */
		return;
	}
	progress_last = step;
}

/* Read what db_bench appended to its report; pass whole lines on. */
static void
report_read(report_tail *rt)
{
	char buf[4096];
	ssize_t got;

	if (!progress_on)
		return;
	if (rt->fd < 0)
		rt->fd = open(rt->path, O_RDONLY | O_CLOEXEC);
	if (rt->fd < 0)
		return;
	while ((got = read(rt->fd, buf, sizeof(buf))) > 0)
	{
		ssize_t i;

		for (i = 0; i < got; i++)
		{
			if (buf[i] != '\n')
			{
				if (rt->pendn < sizeof(rt->pend) - 1)
					rt->pend[rt->pendn++] = buf[i];
				continue;
			}
			rt->pend[rt->pendn] = '\0';
			progress_line(rt, rt->pend);
			rt->pendn = 0;
		}
	}
}

/* Forward the first termination signal to db_bench. */
static void
on_signal(int sig)
{
	if (got_signal == 0)
		got_signal = sig;
	if (child_pid > 0)
		kill(child_pid, SIGTERM);
}

static bool
should_stop(void)
{
	return got_signal != 0;
}

/* ---------------------------------------------------------------------
 * Files and directories
 * ---------------------------------------------------------------------
 */

/* snprintf into a PATH_MAX buffer or die. */
static void path_fmt(char *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
path_fmt(char *out, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, PATH_MAX, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATH_MAX)
		die(EXIT_FAILED, "path too long");
}

/* Create dir (mode 0700) unless it exists; it must be ours and a dir. */
static void
ensure_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		die(EXIT_FAILED, "cannot create directory \"%s\": %s", dir,
			strerror(errno));
	if (lstat(dir, &st) != 0)
		die(EXIT_FAILED, "cannot stat \"%s\": %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		die(EXIT_FAILED, "\"%s\" is not a directory", dir);
	if (st.st_uid != geteuid())
		die(EXIT_FAILED,
			"directory \"%s\" belongs to uid %u, not to the user running "
			"the runner (uid %u); set _settings.work_dir to a directory of "
			"this user",
			dir, (unsigned)st.st_uid, (unsigned)geteuid());
}

/* mkdir -p, each created component mode 0700; the last must be ours. */
static void
ensure_dir_path(const char *path)
{
	char tmp[PATH_MAX];
	char *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++)
	{
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
			die(EXIT_FAILED, "cannot create directory \"%s\": %s", tmp,
				strerror(errno));
		*p = '/';
	}
	ensure_dir(tmp);
}

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) == 0 || errno == ENOENT ? 0 : -1;
	return unlink(path) == 0 || errno == ENOENT ? 0 : -1;
}

/* rm -rf dir (no symlinks followed). */
static void
remove_tree(const char *dir)
{
	struct stat st;

	if (lstat(dir, &st) != 0)
		return;
	if (nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
		fprintf(stderr, "tuner_rocksdb: warning: cannot remove \"%s\": %s\n",
				dir, strerror(errno));
}

/* Copy a regular file. */
static bool
copy_file(const char *from, const char *to)
{
	char buf[1 << 16];
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out;
	ssize_t n;
	bool ok = true;

	if (in < 0)
		return false;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0)
	{
		close(in);
		return false;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
	{
		char *p = buf;

		while (n > 0)
		{
			ssize_t w = write(out, p, (size_t)n);

			if (w < 0)
			{
				if (errno == EINTR)
					continue;
				ok = false;
				break;
			}
			p += w;
			n -= w;
		}
		if (!ok)
			break;
	}
	if (n < 0)
		ok = false;
	close(in);
	if (close(out) != 0)
		ok = false;
	return ok;
}

/*
 * Restore the checkpoint into a fresh DB directory: SST files are immutable,
 * so they are hard-linked (copied when linking is impossible); MANIFEST,
 * CURRENT, OPTIONS and any WAL are copied.
 */
static void
restore_checkpoint(const char *checkpoint, const char *db_dir)
{
	DIR *d = opendir(checkpoint);
	struct dirent *de;

	if (d == NULL)
		die(EXIT_FAILED, "cannot open checkpoint \"%s\": %s", checkpoint,
			strerror(errno));
	if (mkdir(db_dir, 0700) != 0)
		die(EXIT_FAILED, "cannot create \"%s\": %s", db_dir, strerror(errno));
	while ((de = readdir(d)) != NULL)
	{
		char from[PATH_MAX], to[PATH_MAX];
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.')
			continue;
		path_fmt(from, "%s/%s", checkpoint, de->d_name);
		path_fmt(to, "%s/%s", db_dir, de->d_name);
		if (len > 4 && strcmp(de->d_name + len - 4, ".sst") == 0 &&
			link(from, to) == 0)
			continue;
		if (!copy_file(from, to))
			die(EXIT_FAILED, "cannot restore \"%s\" into \"%s\": %s", from, to,
				strerror(errno));
	}
	closedir(d);
}

/* Last non-empty line of text (\r counts as a line break), sanitized. */
static void
last_line(const char *text, char *out, size_t outlen)
{
	const char *end, *start;
	size_t n, i;

	out[0] = '\0';
	if (text == NULL)
		return;
	end = text + strlen(text);
	while (end > text && (end[-1] == '\n' || end[-1] == '\r' ||
						  end[-1] == ' ' || end[-1] == '\t'))
		end--;
	start = end;
	while (start > text && start[-1] != '\n' && start[-1] != '\r')
		start--;
	n = (size_t)(end - start);
	if (n >= outlen)
	{
		start = end - (outlen - 1);
		n = outlen - 1;
	}
	for (i = 0; i < n; i++)
	{
		unsigned char c = (unsigned char)start[i];

		out[i] = (c < 0x20 || c >= 0x7f) ? ' ' : (char)c;
	}
	out[n] = '\0';
}

/* Last up to outlen-1 bytes of text, control characters as spaces. */
static void
tail_text(const char *text, char *out, size_t outlen)
{
	size_t len = text ? strlen(text) : 0;
	size_t n = len < outlen - 1 ? len : outlen - 1;
	size_t i;

	for (i = 0; i < n; i++)
	{
		unsigned char c = (unsigned char)text[len - n + i];

		out[i] = (c == '\n') ? '\n' : (c < 0x20 || c >= 0x7f) ? ' ' : (char)c;
	}
	out[n] = '\0';
}

/* ---------------------------------------------------------------------
 * Running db_bench
 * ---------------------------------------------------------------------
 */
typedef struct
{
	const char *argv[MAX_ARGS + 1];
	char store[MAX_ARGS][PATH_MAX + 64];
	int argc;
} arglist;

static void arg_add(arglist *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
arg_add(arglist *a, const char *fmt, ...)
{
	va_list ap;

	if (a->argc >= MAX_ARGS)
		die(EXIT_FAILED, "internal error: too many db_bench arguments");
	va_start(ap, fmt);
	vsnprintf(a->store[a->argc], sizeof(a->store[0]), fmt, ap);
	va_end(ap);
	a->argv[a->argc] = a->store[a->argc];
	a->argc++;
	a->argv[a->argc] = NULL;
}

/* Write the argv, one argument a line, for diagnosis and re-running. */
static void
write_argv(const arglist *a, const char *path)
{
	FILE *f = fopen(path, "w");
	int i;

	if (f == NULL)
		return;
	for (i = 0; i < a->argc; i++)
		fprintf(f, "%s\n", a->argv[i]);
	fclose(f);
}

/* In the child: become db_bench or _exit(127). */
static void
exec_child(const arglist *a, const char *cwd, const char *out_path,
		   const char *err_path)
{
	sigset_t none;
	int fd;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0)
	{
		dup2(fd, 0);
		close(fd);
	}
	fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		_exit(127);
	dup2(fd, 1);
	close(fd);
	fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		_exit(127);
	dup2(fd, 2);
	close(fd);
	if (chdir(cwd) != 0)
		_exit(127);
	execv(a->argv[0], (char *const *)a->argv);
	dprintf(2, "cannot execute %s: %s\n", a->argv[0], strerror(errno));
	_exit(127);
}

/*
 * Run db_bench to completion; stdout/stderr go to out_path/err_path.
 * Returns the wait status; *cpu_s is its user+system CPU time.
 */
static int
run_db_bench(const arglist *a, const char *cwd, const char *out_path,
			 const char *err_path, double max_s, double *cpu_s,
			 const char *during, report_tail *rt)
{
	pid_t pid;
	int status = 0;
	struct rusage ru;
	double t0 = now_s();
	double term_at = 0;
	bool timed_out = false;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		die(EXIT_FAILED, "fork failed: %s", strerror(errno));
	if (pid == 0)
		exec_child(a, cwd, out_path, err_path);
	child_pid = pid;
	if (got_signal)
		kill(pid, SIGTERM);
	for (;;)
	{
		struct timespec ts = {0, 20 * 1000 * 1000};
		pid_t r = wait4(pid, &status, WNOHANG, &ru);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			die(EXIT_FAILED, "waiting for db_bench failed: %s",
				strerror(errno));
		if ((got_signal || timed_out) && term_at == 0)
		{
			kill(pid, SIGTERM);
			term_at = now_s();
		}
		if (!got_signal && !timed_out && now_s() - t0 > max_s)
		{
			timed_out = true;
			continue;
		}
		if (term_at > 0 && now_s() - term_at > 3.0)
			kill(pid, SIGKILL);
		if (rt != NULL)
			report_read(rt);
		nanosleep(&ts, NULL);
	}
	child_pid = 0;
	if (rt != NULL)
	{
		report_read(rt);
		if (rt->fd >= 0)
			close(rt->fd);
		rt->fd = -1;
	}
	*cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
			 (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	if (got_signal)
		runner_exit_on_signal(got_signal, during);
	if (timed_out)
		die(EXIT_FAILED,
			"db_bench did not finish within %.0f s during %s (killed); "
			"output in %s",
			max_s, during, out_path);
	return status;
}

/* Fail with db_bench's own last words when it did not exit 0. */
static void
check_db_bench_status(int status, const char *out_path, const char *err_path)
{
	char *out, *err;
	char line[600] = "";
	char how[64];

	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return;
	if (WIFEXITED(status))
		snprintf(how, sizeof(how), "exited with status %d",
				 WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(how, sizeof(how), "was killed by signal %d (%s)",
				 WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(how, sizeof(how), "ended with wait status %d", status);
	err = read_file_all(err_path, NULL);
	out = read_file_all(out_path, NULL);
	last_line(err, line, sizeof(line));
	if (line[0] == '\0' || strncmp(line, "... finished", 12) == 0)
		last_line(out, line, sizeof(line));
	free(err);
	free(out);
	die(EXIT_FAILED, "db_bench %s: %s (output in %s)", how,
		line[0] ? line : "(no output)", out_path);
}

/* ---------------------------------------------------------------------
 * The pre-filled base DB and its checkpoint
 * ---------------------------------------------------------------------
 */

/* FNV-1a of a string, to name the base directory after its fill spec. */
static uint64_t
fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
	{
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

/* The db_bench fill command for the base DB. */
static void
fill_args(const rdb_trial *st, const char *db_dir, arglist *a)
{
	a->argc = 0;
	arg_add(a, "%s", st->db_bench);
	arg_add(a, "--benchmarks=fillseq");
	arg_add(a, "--db=%s", db_dir);
	arg_add(a, "--num=%ld", st->num_keys);
	arg_add(a, "--key_size=%d", KEY_SIZE);
	arg_add(a, "--value_size=%d", FILL_VALUE_SIZE);
	arg_add(a, "--compression_type=snappy");
	arg_add(a, "--disable_wal=true");
	arg_add(a, "--write_buffer_size=%d", FILL_WRITE_BUFFER);
	arg_add(a, "--target_file_size_base=%d", TARGET_FILE_BYTES);
	arg_add(a, "--max_bytes_for_level_base=%d", LEVEL_BASE_BYTES);
	arg_add(a, "--block_size=4096");
	arg_add(a, "--seed=1");
	arg_add(a, "--stats_dump_period_sec=0");
}

/*
 * Make sure the checkpoint of the pre-filled DB exists (build it once,
 * under an exclusive lock so parallel runners share it) and return its path.
 */
static void
ensure_base(const rdb_trial *st, char *checkpoint)
{
	char lock_path[PATH_MAX], base[PATH_MAX], ready[PATH_MAX];
	char fill_db[PATH_MAX], out_path[PATH_MAX], err_path[PATH_MAX];
	char spec_path[PATH_MAX], err[1024];
	strbuf spec;
	arglist *a = malloc(sizeof(arglist));
	int fd, i, status;
	double cpu;
	struct stat sb;

	if (a == NULL)
		die(EXIT_FAILED, "out of memory");
	fill_args(st, "@", a);
	sb_init(&spec);
	for (i = 1; i < a->argc; i++)
		sb_append(&spec, a->argv[i]);
	path_fmt(base, "%s/base-%ld-%016llx", st->work_dir, st->num_keys,
			 (unsigned long long)fnv1a(spec.data));
	sb_free(&spec);
	path_fmt(checkpoint, "%s/checkpoint", base);
	path_fmt(ready, "%s/READY", base);
	if (stat(ready, &sb) == 0)
	{
		free(a);
		return;
	}

	path_fmt(lock_path, "%s/base.lock", st->work_dir);
	fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		die(EXIT_FAILED, "cannot open \"%s\": %s", lock_path, strerror(errno));
	while (flock(fd, LOCK_EX) != 0)
	{
		if (errno != EINTR)
			die(EXIT_FAILED, "cannot lock \"%s\": %s", lock_path,
				strerror(errno));
		if (got_signal)
			runner_exit_on_signal(got_signal, "waiting for the base DB lock");
	}
	if (stat(ready, &sb) != 0)
	{
		remove_tree(base);
		ensure_dir(base);
		path_fmt(fill_db, "%s/filldb", base);
		path_fmt(out_path, "%s/fill.out", base);
		path_fmt(err_path, "%s/fill.err", base);
		fill_args(st, fill_db, a);
		path_fmt(spec_path, "%s/fill.argv", base);
		write_argv(a, spec_path);
		status = run_db_bench(a, base, out_path, err_path, 3600.0, &cpu,
							  "the base DB fill", NULL);
		check_db_bench_status(status, out_path, err_path);
		if (!rdb_settle_and_checkpoint(fill_db, checkpoint, err, sizeof(err)))
			die(EXIT_FAILED, "base DB in %s: %s", fill_db, err);
		if (got_signal)
			runner_exit_on_signal(got_signal, "the base DB fill");
		remove_tree(fill_db);
		write_argv(a, ready);
	}
	flock(fd, LOCK_UN);
	close(fd);
	free(a);
}

/* ---------------------------------------------------------------------
 * One run
 * ---------------------------------------------------------------------
 */

/* Format a parameter value for a db_bench flag. */
static void
param_arg(arglist *a, int i, double v)
{
	if (rdb_params[i].integer)
		arg_add(a, "--%s=%.0f", rdb_params[i].name, v);
	else
		arg_add(a, "--%s=%.17g", rdb_params[i].name, v);
}

/* The db_bench mixgraph command for one run. */
static void
mixgraph_args(const rdb_trial *st, const char *db_dir, const double *cfg,
			  int duration_s, arglist *a)
{
	int i;

	a->argc = 0;
	arg_add(a, "%s", st->db_bench);
	arg_add(a, "--benchmarks=mixgraph,stats");
	arg_add(a, "--db=%s", db_dir);
	arg_add(a, "--use_existing_db=true");
	arg_add(a, "--num=%ld", st->num_keys);
	arg_add(a, "--key_size=%d", KEY_SIZE);
	arg_add(a, "--duration=%d", duration_s);
	arg_add(a, "--seed=%ld", st->seed);
	arg_add(a, "--statistics=1");
	arg_add(a, "--histogram=1");
	arg_add(a, "--stats_dump_period_sec=0");
	arg_add(a, "--cache_size=%d", CACHE_BYTES);
	arg_add(a, "--compression_type=snappy");
	arg_add(a, "--use_direct_reads=%s", st->direct_io ? "true" : "false");
	arg_add(a, "--use_direct_io_for_flush_and_compaction=%s",
			st->direct_io ? "true" : "false");
	arg_add(a, "--max_bytes_for_level_base=%d", LEVEL_BASE_BYTES);
	arg_add(a, "--target_file_size_base=%d", TARGET_FILE_BYTES);
	for (i = 0; mixgraph_flags[i] != NULL; i++)
		arg_add(a, "%s", mixgraph_flags[i]);
	for (i = 0; i < RDB_N_PARAMS; i++)
		param_arg(a, i, cfg[i]);
}

/* Write the EVENT_LOG/WARN/ERROR lines of every LOG* file to excerpt. */
static void
write_log_excerpt(const char *db_dir, char **logs, int nlogs,
				  const char *excerpt, char *tail, size_t taillen)
{
	FILE *out = fopen(excerpt, "w");
	strbuf last;
	int i, lines = 0;

	sb_init(&last);
	tail[0] = '\0';
	if (out == NULL)
		return;
	for (i = 0; i < nlogs; i++)
	{
		char path[PATH_MAX];
		FILE *in;
		char *line = NULL;
		size_t cap = 0;

		path_fmt(path, "%s/%s", db_dir, logs[i]);
		in = fopen(path, "r");
		if (in == NULL)
			continue;
		fprintf(out, "== %s\n", logs[i]);
		while (getline(&line, &cap, in) >= 0)
		{
			if (strstr(line, "EVENT_LOG_v1") == NULL &&
				strstr(line, "[WARN]") == NULL &&
				strstr(line, "[ERROR]") == NULL &&
				strstr(line, "Stalling") == NULL &&
				strstr(line, "Stopping") == NULL)
				continue;
			if (++lines <= 5000)
				fputs(line, out);
			if (strstr(line, "EVENT_LOG_v1") != NULL)
			{
				sb_free(&last);
				sb_init(&last);
				sb_append(&last, line);
			}
		}
		free(line);
		fclose(in);
	}
	if (lines > 5000)
		fprintf(out, "== %d more lines not kept\n", lines - 5000);
	fclose(out);
	tail_text(last.data, tail, taillen);
	sb_free(&last);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names of the LOG files in db_dir, oldest first (LOG.old.* then LOG). */
static int
list_logs(const char *db_dir, char **names, int max)
{
	DIR *d = opendir(db_dir);
	struct dirent *de;
	int n = 0, i;
	bool have_log = false;

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL && n < max - 1)
	{
		if (strcmp(de->d_name, "LOG") == 0)
			have_log = true;
		else if (strncmp(de->d_name, "LOG.old.", 8) == 0)
			names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(char *), cmp_str);
	if (have_log)
		names[n++] = strdup("LOG");
	for (i = 0; i < n; i++)
		if (names[i] == NULL)
			die(EXIT_FAILED, "out of memory");
	return n;
}

/* CPU time of this process (all librocksdb threads) in seconds. */
static double
self_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		   (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/*
 * Pairs alternate order, default first in odd pairs and trial first in
 * even ones (ABBA), so that a drift of the machine favours neither side.
 */
static bool
pair_runs_default_first(int pair)
{
	return pair % 2 == 1;
}

/* Restore, run db_bench, finish the deferred work, and measure. */
static void
do_run(const rdb_trial *st, const char *checkpoint, const char *trial_dir,
	   const char *role, int repeat, int segment, int duration_s,
	   const double *cfg, run_result *r)
{
	char db_dir[PATH_MAX], out_path[PATH_MAX], err_path[PATH_MAX];
	char excerpt[PATH_MAX], argv_path[PATH_MAX], err[1024];
	char report_path[PATH_MAX];
	report_tail rt;
	char *logs[256];
	char *out, *errtext;
	arglist *a = malloc(sizeof(arglist));
	log_stats ls;
	int status, nlogs, i;
	double cpu0, v;
	bool is_default = strcmp(role, "default") == 0;

	if (a == NULL)
		die(EXIT_FAILED, "out of memory");
	memset(r, 0, sizeof(*r));
	r->role = role;
	r->repeat = repeat;
	r->segment = segment;
	r->pair = (repeat - 1) * st->segments + segment;
	r->duration_s = duration_s;
	path_fmt(r->dir, "%s/run%d-%s", trial_dir, r->pair, role);
	ensure_dir(r->dir);
	path_fmt(db_dir, "%s/db", r->dir);
	path_fmt(out_path, "%s/db_bench.out", r->dir);
	path_fmt(err_path, "%s/db_bench.err", r->dir);
	path_fmt(excerpt, "%s/LOG.excerpt", r->dir);
	path_fmt(argv_path, "%s/db_bench.argv", r->dir);

	path_fmt(report_path, "%s/report.csv", r->dir);

	restore_checkpoint(checkpoint, db_dir);
	mixgraph_args(st, db_dir, cfg, duration_s, a);
	if (progress_on)
	{
		arg_add(a, "--report_interval_seconds=1");
		arg_add(a, "--report_file=%s", report_path);
	}
	write_argv(a, argv_path);
	memset(&rt, 0, sizeof(rt));
	rt.path = report_path;
	rt.role = role;
	rt.fd = -1;
	progress_base = progress_last;
	ratio_so_far_start_run(&so_far, is_default,
						   is_default == pair_runs_default_first(r->pair));
	status = run_db_bench(a, r->dir, out_path, err_path,
						  duration_s + 60.0 + 2.0 * duration_s,
						  &r->cpu_db_bench_s, "the db_bench run", &rt);
	free(a);
	check_db_bench_status(status, out_path, err_path);

	out = read_file_all(out_path, NULL);
	if (out == NULL)
		die(EXIT_FAILED, "cannot read %s: %s", out_path, strerror(errno));
	if (!parse_bench_line(out, "mixgraph", &r->bench))
		die(EXIT_FAILED,
			"db_bench printed no mixgraph result line (output in %s)",
			out_path);
	{
		const char *p = strstr(out, "\nmixgraph ");
		size_t n;

		p = p ? p + 1 : out;
		n = strcspn(p, "\n");
		if (n >= sizeof(r->result_line))
			n = sizeof(r->result_line) - 1;
		memcpy(r->result_line, p, n);
		r->result_line[n] = '\0';
	}
	errtext = read_file_all(err_path, NULL);
	last_line(errtext, r->stderr_tail, sizeof(r->stderr_tail));
	free(errtext);

	/* Effective options: what db_bench's DB wrote in its OPTIONS file. */
	if (!rdb_effective_options(db_dir, &r->eff, err, sizeof(err)))
		die(EXIT_FAILED, "reading back the effective options: %s", err);

	/* The deferred work: final flush and all pending compactions. */
	cpu0 = self_cpu_s();
	if (!rdb_final_flush_and_wait(db_dir, CACHE_BYTES, 60.0 + 4.0 * duration_s,
								  should_stop, &r->final_s, err, sizeof(err)))
	{
		if (got_signal)
			runner_exit_on_signal(got_signal,
								  "the final flush and compaction wait");
		die(EXIT_FAILED, "final flush and compaction wait in %s: %s", db_dir,
			err);
	}
	r->cpu_final_s = self_cpu_s() - cpu0;

	/* LOG events of the whole run (db_bench's LOG and the final phase's). */
	nlogs = list_logs(db_dir, logs, 256);
	log_stats_init(&ls);
	for (i = 0; i < nlogs; i++)
	{
		char path[PATH_MAX];

		path_fmt(path, "%s/%s", db_dir, logs[i]);
		if (!log_stats_file(&ls, path))
			die(EXIT_FAILED, "cannot read %s: %s", path, strerror(errno));
	}
	write_log_excerpt(db_dir, logs, nlogs, excerpt, r->log_tail,
					  sizeof(r->log_tail));
	for (i = 0; i < nlogs; i++)
		free(logs[i]);

	r->workload_s = r->bench.seconds;
	r->ops_per_sec = r->bench.ops_per_sec;
	r->ops_per_sec_with_compaction =
		r->bench.operations / (r->bench.seconds + r->final_s);
	r->flush_count = ls.flush_count;
	r->compaction_count = ls.compaction_count;
	r->trivial_moves = ls.trivial_moves;
	r->flush_bytes = ls.flush_bytes;
	r->compaction_bytes = ls.compaction_bytes;
	r->n_l0_l1 = ls.n_l0_l1;
	r->p99_l0_l1_compaction_ms =
		ls.n_l0_l1 > 0 ? percentile(ls.l0_l1_micros, ls.n_l0_l1, 99.0) / 1000.0
					   : NAN;
	log_stats_free(&ls);

	r->bytes_ingested = NAN;
	r->write_amp = NAN;
	if (parse_ticker(out, "rocksdb.bytes.written", &v))
	{
		r->bytes_ingested = v;
		if (v > 0)
			r->write_amp = (r->flush_bytes + r->compaction_bytes) / v;
	}
	r->p99_block_read_us = NAN;
	if (parse_histogram(out, "rocksdb.read.block.get.micros", "COUNT", &v) &&
		v > 0 &&
		parse_histogram(out, "rocksdb.read.block.get.micros", "P99", &v))
		r->p99_block_read_us = v;
	r->stall_ms = NAN;
	if (parse_ticker(out, "rocksdb.stall.micros", &v))
		r->stall_ms = v / 1000.0;
	r->cpu_s = r->cpu_db_bench_s + r->cpu_final_s;
	free(out);

	if (!st->keep_db)
		remove_tree(db_dir);
}

/* ---------------------------------------------------------------------
 * Output
 * ---------------------------------------------------------------------
 */

/* Mean of a run_result field over the runs of one role; NaN if none. */
static double
mean_of(const run_result *runs, int n, const char *role, size_t offset)
{
	double sum = 0;
	int cnt = 0, i;

	for (i = 0; i < n; i++)
	{
		double v = *(const double *)((const char *)&runs[i] + offset);

		if (strcmp(runs[i].role, role) != 0 || !isfinite(v))
			continue;
		sum += v;
		cnt++;
	}
	return cnt ? sum / cnt : NAN;
}

#define MEAN(runs, n, role, field) \
	mean_of(runs, n, role, offsetof(run_result, field))

static void
key_num(strbuf *sb, const char *key, double v, bool comma)
{
	if (comma)
		sb_append(sb, ", ");
	sb_json_string(sb, key);
	sb_append(sb, ": ");
	sb_json_number(sb, v);
}

static void
key_str(strbuf *sb, const char *key, const char *v, bool comma)
{
	if (comma)
		sb_append(sb, ", ");
	sb_json_string(sb, key);
	sb_append(sb, ": ");
	sb_json_string(sb, v);
}

/* Effective value of parameter i. */
static double
eff_value(const rdb_effective *e, int i)
{
	const double vals[RDB_N_PARAMS] = {
		e->max_background_compactions,
		e->max_background_flushes,
		e->write_buffer_size,
		e->max_write_buffer_number,
		e->min_write_buffer_number_to_merge,
		e->max_bytes_for_level_multiplier,
		e->block_size,
		e->level0_file_num_compaction_trigger,
		e->level0_slowdown_writes_trigger,
		e->level0_stop_writes_trigger,
	};

	return vals[i];
}

/* {"requested": {...}, "effective": {...}, "corrected": {...}} */
static void
effective_json(strbuf *sb, const double *cfg, const rdb_effective *e)
{
	int i;
	bool first = true;

	sb_append(sb, "{\"requested\": {");
	for (i = 0; i < RDB_N_PARAMS; i++)
		key_num(sb, rdb_params[i].name, cfg[i], i > 0);
	sb_append(sb, "}, \"effective\": {");
	for (i = 0; i < RDB_N_PARAMS; i++)
		key_num(sb, rdb_params[i].name, eff_value(e, i), i > 0);
	sb_append(sb, "}, \"corrected\": {");
	for (i = 0; i < RDB_N_PARAMS; i++)
	{
		if (eff_value(e, i) == cfg[i])
			continue;
		if (!first)
			sb_append(sb, ", ");
		first = false;
		sb_json_string(sb, rdb_params[i].name);
		sb_append(sb, ": {");
		key_num(sb, "requested", cfg[i], false);
		key_num(sb, "effective", eff_value(e, i), true);
		sb_append(sb, "}");
	}
	sb_append(sb, "}");
	key_str(sb, "options_file", e->options_file, true);
	sb_append(sb, "}");
}

/* Diagnostics of one run. */
static void
run_json(strbuf *sb, const run_result *r)
{
	char path[PATH_MAX];

	sb_append(sb, "{");
	key_str(sb, "role", r->role, false);
	key_num(sb, "repeat", r->repeat, true);
	key_num(sb, "segment", r->segment, true);
	key_num(sb, "pair", r->pair, true);
	key_num(sb, "duration_s", r->duration_s, true);
	key_str(sb, "dir", r->dir, true);
	path_fmt(path, "%s/db_bench.out", r->dir);
	key_str(sb, "db_bench_out", path, true);
	path_fmt(path, "%s/db_bench.err", r->dir);
	key_str(sb, "db_bench_err", path, true);
	path_fmt(path, "%s/db_bench.argv", r->dir);
	key_str(sb, "db_bench_argv", path, true);
	path_fmt(path, "%s/LOG.excerpt", r->dir);
	key_str(sb, "log_excerpt", path, true);
	key_str(sb, "db_bench_result", r->result_line, true);
	key_str(sb, "db_bench_stderr_tail", r->stderr_tail, true);
	key_str(sb, "log_tail", r->log_tail, true);
	key_num(sb, "ops_per_sec", r->ops_per_sec, true);
	key_num(sb, "ops_per_sec_with_compaction", r->ops_per_sec_with_compaction,
			true);
	key_num(sb, "operations", r->bench.operations, true);
	key_num(sb, "gets", r->bench.gets, true);
	key_num(sb, "puts", r->bench.puts, true);
	key_num(sb, "seeks", r->bench.seeks, true);
	key_num(sb, "reads_found", r->bench.reads_found, true);
	key_num(sb, "reads_total", r->bench.reads_total, true);
	key_num(sb, "workload_s", r->workload_s, true);
	key_num(sb, "final_flush_compaction_s", r->final_s, true);
	key_num(sb, "bytes_ingested", r->bytes_ingested, true);
	key_num(sb, "flush_bytes", r->flush_bytes, true);
	key_num(sb, "compaction_bytes", r->compaction_bytes, true);
	key_num(sb, "write_amp", r->write_amp, true);
	key_num(sb, "flush_count", r->flush_count, true);
	key_num(sb, "compaction_count", r->compaction_count, true);
	key_num(sb, "l0_l1_compactions", r->n_l0_l1, true);
	key_num(sb, "trivial_moves", r->trivial_moves, true);
	key_num(sb, "p99_block_read_us", r->p99_block_read_us, true);
	key_num(sb, "p99_l0_l1_compaction_ms", r->p99_l0_l1_compaction_ms, true);
	key_num(sb, "stall_ms", r->stall_ms, true);
	key_num(sb, "cpu_db_bench_s", r->cpu_db_bench_s, true);
	key_num(sb, "cpu_final_s", r->cpu_final_s, true);
	sb_append(sb, "}");
}

/* The metrics object written to stdout. */
static void
emit(const rdb_trial *st, const char *trial_dir, const run_result *runs, int n)
{
	strbuf sb;
	int i, k;
	const run_result *first_trial = NULL;
	int npairs = st->paired ? st->repeats * st->segments : 0;
	double ratio[MAX_RUNS], ratio_c[MAX_RUNS];
	pair_stats ps, ps_c;

	for (i = 0; i < n; i++)
		if (strcmp(runs[i].role, "trial") == 0 && first_trial == NULL)
			first_trial = &runs[i];
	/* each pair's ratios trial / default (NaN: not measured) */
	for (k = 0; k < npairs; k++)
	{
		const run_result *d = NULL, *t = NULL;

		for (i = 0; i < n; i++)
		{
			if (runs[i].pair != k + 1)
				continue;
			if (strcmp(runs[i].role, "default") == 0)
				d = &runs[i];
			else
				t = &runs[i];
		}
		ratio[k] = ratio_c[k] = NAN;
		if (d == NULL || t == NULL)
			continue;
		if (d->ops_per_sec > 0 && t->ops_per_sec > 0)
			ratio[k] = t->ops_per_sec / d->ops_per_sec;
		if (d->ops_per_sec_with_compaction > 0 &&
			t->ops_per_sec_with_compaction > 0)
			ratio_c[k] = t->ops_per_sec_with_compaction /
						 d->ops_per_sec_with_compaction;
	}
	pair_stats_of(ratio, npairs, &ps);
	pair_stats_of(ratio_c, npairs, &ps_c);

	sb_init(&sb);
	sb_append(&sb, "{");
	key_num(&sb, "ops_per_sec", MEAN(runs, n, "trial", ops_per_sec), false);
	key_num(&sb, "ops_per_sec_with_compaction",
			MEAN(runs, n, "trial", ops_per_sec_with_compaction), true);
	key_num(&sb, "write_amp", MEAN(runs, n, "trial", write_amp), true);
	key_num(&sb, "p99_block_read_us",
			MEAN(runs, n, "trial", p99_block_read_us), true);
	key_num(&sb, "p99_l0_l1_compaction_ms",
			MEAN(runs, n, "trial", p99_l0_l1_compaction_ms), true);
	key_num(&sb, "stall_ms", MEAN(runs, n, "trial", stall_ms), true);
	key_num(&sb, "flush_count", MEAN(runs, n, "trial", flush_count), true);
	key_num(&sb, "compaction_count", MEAN(runs, n, "trial", compaction_count),
			true);
	key_num(&sb, "cpu_s", MEAN(runs, n, "trial", cpu_s), true);
	if (st->paired)
	{
		key_num(&sb, "ops_per_sec_default",
				MEAN(runs, n, "default", ops_per_sec), true);
		key_num(&sb, "ops_per_sec_with_compaction_default",
				MEAN(runs, n, "default", ops_per_sec_with_compaction), true);
		/* geometric means of the per-pair ratios (pairs.h) */
		key_num(&sb, "ratio_to_default", ps.geomean, true);
		key_num(&sb, "ratio_with_compaction_to_default", ps_c.geomean, true);
		/* their standard errors, when two pairs or more give one */
		if (ps.n >= 2 && isfinite(ps.std_error))
		{
			sb_append(&sb, ", \"_std_error\": {");
			key_num(&sb, "ratio_to_default", ps.std_error, false);
			if (ps_c.n >= 2 && isfinite(ps_c.std_error))
				key_num(&sb, "ratio_with_compaction_to_default",
						ps_c.std_error, true);
			sb_append(&sb, "}");
		}
	}

	sb_append(&sb, ", \"_effective\": ");
	if (first_trial != NULL)
		effective_json(&sb, st->cfg_trial, &first_trial->eff);
	else
		sb_append(&sb, "null");

	sb_append(&sb, ", \"_diagnostics\": {");
	key_str(&sb, "trial_dir", trial_dir, false);
	key_num(&sb, "duration_s", st->duration_s, true);
	sb_append(&sb, ", \"paired\": ");
	sb_append(&sb, st->paired ? "true" : "false");
	key_num(&sb, "repeats", st->repeats, true);
	key_num(&sb, "segments", st->segments, true);
	key_num(&sb, "seed", (double)st->seed, true);
	key_num(&sb, "num_keys", (double)st->num_keys, true);
	key_str(&sb, "write_amp_definition",
			"(bytes of SST files written by flushes + bytes written by "
			"compactions, from the LOG's EVENT_LOG_v1 events, final flush "
			"and compactions included) / rocksdb.bytes.written (user bytes "
			"written by db_bench)",
			true);
	key_str(&sb, "ignored_settings",
			st->ignored_settings.data ? st->ignored_settings.data : "", true);
	if (st->paired)
	{
		sb_append(&sb, ", \"default_effective\": ");
		for (i = 0; i < n; i++)
			if (strcmp(runs[i].role, "default") == 0)
				break;
		if (i < n)
			effective_json(&sb, st->cfg_default, &runs[i].eff);
		else
			sb_append(&sb, "null");
		/* the pairs: their order (ABBA: default, trial, trial, default,
		 * ...), each pair's ratios and their spread */
		key_num(&sb, "pairs", npairs, true);
		sb_append(&sb, ", \"order\": [");
		for (i = 0; i < n; i++)
		{
			if (i)
				sb_append(&sb, ", ");
			sb_json_string(&sb, runs[i].role);
		}
		sb_append(&sb, "], \"pair_ratios\": ");
		sb_json_numbers(&sb, ratio, npairs);
		sb_append(&sb, ", \"pair_ratios_with_compaction\": ");
		sb_json_numbers(&sb, ratio_c, npairs);
		key_num(&sb, "pair_ratio_sd_log", ps.sd_log, true);
		key_num(&sb, "pair_ratio_cv", ps.cv, true);
		key_num(&sb, "pair_ratio_with_compaction_sd_log", ps_c.sd_log, true);
		key_num(&sb, "pair_ratio_with_compaction_cv", ps_c.cv, true);
	}
	sb_append(&sb, ", \"runs\": [");
	for (i = 0; i < n; i++)
	{
		if (i)
			sb_append(&sb, ", ");
		run_json(&sb, &runs[i]);
	}
	sb_append(&sb, "]}}\n");
	fwrite(sb.data, 1, sb.len, stdout);
	fflush(stdout);
	sb_free(&sb);
}

/* ---------------------------------------------------------------------
 * Tool modes used by the tests
 * ---------------------------------------------------------------------
 */

/* --parse-log FILE...: what the runner reads from LOG files, as JSON. */
static int
tool_parse_log(int argc, char **argv)
{
	log_stats ls;
	strbuf sb;
	int i;

	log_stats_init(&ls);
	for (i = 0; i < argc; i++)
		if (!log_stats_file(&ls, argv[i]))
			die(EXIT_FAILED, "cannot read %s: %s", argv[i], strerror(errno));
	sb_init(&sb);
	sb_append(&sb, "{");
	key_num(&sb, "events", ls.events, false);
	key_num(&sb, "bad_lines", ls.bad_lines, true);
	key_num(&sb, "flush_count", ls.flush_count, true);
	key_num(&sb, "compaction_count", ls.compaction_count, true);
	key_num(&sb, "trivial_moves", ls.trivial_moves, true);
	key_num(&sb, "flush_bytes", ls.flush_bytes, true);
	key_num(&sb, "compaction_bytes", ls.compaction_bytes, true);
	sb_append(&sb, ", \"l0_l1_compaction_ms\": [");
	for (i = 0; i < ls.n_l0_l1; i++)
	{
		if (i)
			sb_append(&sb, ", ");
		sb_json_number(&sb, ls.l0_l1_micros[i] / 1000.0);
	}
	sb_append(&sb, "]");
	key_num(&sb, "p99_l0_l1_compaction_ms",
			ls.n_l0_l1 ? percentile(ls.l0_l1_micros, ls.n_l0_l1, 99.0) / 1000.0
					   : NAN,
			true);
	sb_append(&sb, "}\n");
	fwrite(sb.data, 1, sb.len, stdout);
	sb_free(&sb);
	log_stats_free(&ls);
	return 0;
}

/* --effective-options DBDIR: the effective Table 1 options, as JSON. */
static int
tool_effective(const char *dir)
{
	rdb_effective e;
	char err[1024];
	strbuf sb;
	int i;

	if (!rdb_effective_options(dir, &e, err, sizeof(err)))
		die(EXIT_FAILED, "%s", err);
	sb_init(&sb);
	sb_append(&sb, "{");
	for (i = 0; i < RDB_N_PARAMS; i++)
		key_num(&sb, rdb_params[i].name, eff_value(&e, i), i > 0);
	key_str(&sb, "options_file", e.options_file, true);
	sb_append(&sb, "}\n");
	fwrite(sb.data, 1, sb.len, stdout);
	sb_free(&sb);
	return 0;
}

/* --defaults: the built-in default configuration, as JSON. */
static int
tool_defaults(void)
{
	strbuf sb;
	int i;

	sb_init(&sb);
	sb_append(&sb, "{");
	for (i = 0; i < RDB_N_PARAMS; i++)
		key_num(&sb, rdb_params[i].name, rdb_params[i].def, i > 0);
	sb_append(&sb, "}\n");
	fwrite(sb.data, 1, sb.len, stdout);
	sb_free(&sb);
	return 0;
}

/* ---------------------------------------------------------------------
 * main
 * ---------------------------------------------------------------------
 */
int
main(int argc, char **argv)
{
	rdb_trial st;
	strbuf err;
	char *input;
	char checkpoint[PATH_MAX], trials[PATH_MAX], trial_dir[PATH_MAX];
	run_result *runs;
	int nruns = 0, k;
	time_t t = time(NULL);
	struct tm tm;
	char stamp[64];

	runner_init("tuner_rocksdb", NULL);
	if (argc >= 2 && strcmp(argv[1], "--parse-log") == 0)
		return tool_parse_log(argc - 2, argv + 2);
	if (argc == 3 && strcmp(argv[1], "--effective-options") == 0)
		return tool_effective(argv[2]);
	if (argc == 2 && strcmp(argv[1], "--defaults") == 0)
		return tool_defaults();
	/* Other arguments are the study's fixed arguments; none are used. */

	/* fd 3 open: tuner takes progress lines; db_bench does not inherit it,
	 * and it is non-blocking (progress.h) */
	if (progress_init())
		progress_on = ratio_so_far_init(&so_far, MAX_REPORT_S);
	runner_install_signals(on_signal);
	/* a closed pipe is an error to report, not a death */
	signal(SIGPIPE, SIG_IGN);
	umask(077);
	input = runner_read_stdin("input", &got_signal, NULL);
	if (!rdb_parse_input(input, &st, &err))
		die(EXIT_BADINPUT, "%s", err.data);
	sb_free(&err);
	free(input);

	ensure_dir_path(st.work_dir);
	if (access(st.db_bench, X_OK) != 0)
		die(EXIT_FAILED, "db_bench \"%s\" is not executable: %s", st.db_bench,
			strerror(errno));
	ensure_base(&st, checkpoint);

	path_fmt(trials, "%s/trials", st.work_dir);
	ensure_dir(trials);
	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	path_fmt(trial_dir, "%s/%s-%d", trials, stamp, (int)getpid());
	ensure_dir(trial_dir);

	runs = calloc(MAX_RUNS, sizeof(run_result));
	if (runs == NULL)
		die(EXIT_FAILED, "out of memory");
	for (k = 1; k <= st.repeats; k++)
	{
		int seg;

		for (seg = 1; seg <= st.segments; seg++)
		{
			/* A paired repeat's duration_s is shared by its segments
			 * (30 s in 4: 7, 8, 7, 8), each a short pair of its own. */
			int pair = (k - 1) * st.segments + seg;
			bool default_first = pair_runs_default_first(pair);
			int dur = st.duration_s * seg / st.segments -
					  st.duration_s * (seg - 1) / st.segments;

			if (st.paired && default_first)
				do_run(&st, checkpoint, trial_dir, "default", k, seg, dur,
					   st.cfg_default, &runs[nruns++]);
			do_run(&st, checkpoint, trial_dir, "trial", k, seg, dur,
				   st.cfg_trial, &runs[nruns++]);
			if (st.paired && !default_first)
				do_run(&st, checkpoint, trial_dir, "default", k, seg, dur,
					   st.cfg_default, &runs[nruns++]);
		}
	}
	emit(&st, trial_dir, runs, nruns);
	free(runs);
	rdb_trial_free(&st);
	return 0;
}
