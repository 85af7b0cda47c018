/*
 * progress.h: intermediate results on file descriptor 3 (issue 30,
 * docs/runners.md "Progress while it runs"), written once for the
 * runners: one line {"step": S, "metrics": {...}} per call.
 *
 * Never blocking and never fatal: when fd 3 is not open at start nothing
 * is written; fd 3 is made non-blocking and close-on-exec (the runners'
 * children do not inherit it), and the first write that fails or is
 * short (EPIPE, EAGAIN, a full disk, ...) stops the streaming for the
 * rest of the trial, which goes on.  SIGPIPE is blocked around the
 * write, so a reader that went away gives EPIPE, not the signal.
 */
#ifndef TUNER_RUNNER_PROGRESS_H
#define TUNER_RUNNER_PROGRESS_H

#include <stdbool.h>

#define PROGRESS_FD 3

/* Check fd 3 once, at start: true when lines will be written. */
extern bool progress_init(void);

/* Streaming still on (fd 3 was open and no write has failed). */
extern bool progress_active(void);

/*
 * Write one line: step (must be greater than the previous line's; a step
 * that is not is skipped) and n metrics (a value that is not finite is
 * written as null).  Returns whether the line was written.
 */
extern bool progress_emit(double step, int n, const char *const *names,
						  const double *values);

/* The last step written (0 before any). */
extern double progress_last_step(void);

#endif /* TUNER_RUNNER_PROGRESS_H */
