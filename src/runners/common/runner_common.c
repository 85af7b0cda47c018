/*
 * runner_common.c: the exit, signal and input handling every trial runner
 * under src/runners/ shares (runner_common.h).
 */
#define _GNU_SOURCE
#include "runner_common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *runner_progname;
static void (*runner_cleanup)(void);

/* Set the prefix of die()'s messages and its cleanup function. */
void
runner_init(const char *progname, void (*cleanup)(void))
{
	runner_progname = progname;
	runner_cleanup = cleanup;
}

/* Print "progname: message" as the last stderr line, clean up, exit. */
void
die(int code, const char *fmt, ...)
{
	va_list ap;

	/* what the runner printed so far leaves before the reason */
	fflush(stdout);
	if (runner_progname)
		fprintf(stderr, "%s: ", runner_progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	if (runner_cleanup)
		runner_cleanup();
	exit(code);
}

/* Exit 128 + sig at once, saying during what the signal came. */
void
runner_exit_on_signal(int sig, const char *during)
{
	if (runner_progname)
		fprintf(stderr, "%s: ", runner_progname);
	fprintf(stderr, "terminated by signal %d (%s) during %s\n", sig,
			strsignal(sig), during);
	fflush(stderr);
	_exit(128 + sig);
}

/* Install handler for the termination signals (no SA_RESTART). */
void
runner_install_signals(void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* Read all of stdin, at most MAX_STDIN bytes. */
char *
runner_read_stdin(const char *what, const volatile sig_atomic_t *stop,
				  size_t *len)
{
	char *buf = malloc(MAX_STDIN + 1);
	size_t n = 0;
	ssize_t r;

	if (buf == NULL)
		die(EXIT_FAILED, "out of memory");
	for (;;)
	{
		/* one byte more than allowed tells a too large input */
		r = read(0, buf + n, MAX_STDIN + 1 - n);
		if (r < 0 && errno == EINTR)
		{
			if (stop && *stop)
				runner_exit_on_signal(*stop, "reading stdin");
			continue;
		}
		if (r <= 0)
			break;
		n += (size_t)r;
		if (n > MAX_STDIN)
			die(EXIT_BADINPUT, "%s larger than %d bytes", what, MAX_STDIN);
	}
	if (r < 0)
		die(EXIT_BADINPUT, "cannot read stdin: %s", strerror(errno));
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}
