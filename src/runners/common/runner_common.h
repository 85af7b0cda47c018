/*
 * runner_common.h: what every trial runner under src/runners/ does the
 * same way, written once: the exit codes of the runner protocol, dying
 * with the reason as the last stderr line, the termination handlers and
 * reading the trial configuration from stdin.  Each runner's Makefile
 * compiles runner_common.c into its own program (program.mk).
 */
#ifndef TUNER_RUNNER_COMMON_H
#define TUNER_RUNNER_COMMON_H

#include <signal.h>
#include <stddef.h>

/* Exit codes of the protocol: 0 success, 128+N terminated by signal N. */
#define EXIT_FAILED   1
#define EXIT_BADINPUT 2

/* The most a trial configuration on stdin may hold. */
#define MAX_STDIN (1 << 20)

/*
 * Name die() puts before each message (NULL: none), and a function it
 * calls after printing, before exiting (NULL: none), e.g. to shut down a
 * library's threads.
 */
extern void runner_init(const char *progname, void (*cleanup)(void));

/* Print the reason a trial failed as the last stderr line and exit. */
extern void die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/*
 * Exit at once (no cleanup, no atexit) after termination signal sig,
 * with 128 + sig and the reason: "terminated by signal N (name) during
 * <during>".
 */
extern void runner_exit_on_signal(int sig, const char *during)
	__attribute__((noreturn));

/*
 * handler for SIGTERM, SIGINT and SIGHUP, without SA_RESTART: a blocking
 * call (read, waitpid, poll, sleep) returns EINTR and the runner stops.
 */
extern void runner_install_signals(void (*handler)(int));

/*
 * All of stdin, NUL-terminated (malloc'd), its length in *len when len is
 * not NULL.  Dies with EXIT_BADINPUT "<what> larger than MAX_STDIN bytes"
 * or when stdin cannot be read; when a read is interrupted and *stop is
 * set (the signal a handler recorded), exits as runner_exit_on_signal()
 * "during reading stdin".
 */
extern char *runner_read_stdin(const char *what,
							   const volatile sig_atomic_t *stop, size_t *len);

#endif /* TUNER_RUNNER_COMMON_H */
