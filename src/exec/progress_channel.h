/*
 * progress_channel.h
 *	  A runner's intermediate results (issue 30), read by whoever runs it:
 *	  the server (src/pg/runner_exec.c) and tuner-agent (src/agent/run.c).
 *	  No PostgreSQL headers.
 *
 *	  The runner may write one JSON object per line on file descriptor 3:
 *	      {"step": 12, "metrics": {"throughput": 1234.5, "p99_us": null}}
 *	  step a finite number, at least 0, greater than the line before's;
 *	  metrics an object of finite numbers or nulls (the names of the
 *	  trial's final metrics).  Descriptor 3 is an unlinked scratch file,
 *	  so a write never blocks the runner; the parent reads what was
 *	  appended since it last looked (progress_channel_read) at every poll.
 *	  A line longer than PROGRESS_LINE_MAX bytes, more than
 *	  PROGRESS_MAX_LINES lines, or a line that is not as above fails the
 *	  channel: the parent stops the runner and fails the trial with the
 *	  reason (docs/runners.md).
 */
#ifndef PROGRESS_CHANNEL_H
#define PROGRESS_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The runner's progress descriptor. */
#define PROGRESS_FD 3
/* Longest line, its newline included. */
#define PROGRESS_LINE_MAX 4096
/* Most lines of one trial (tuner._max_progress_steps() in SQL). */
#define PROGRESS_MAX_LINES 10000

/*
 * Parse one line (without its newline; len bytes, not NUL-terminated).
 * true with *step and the metrics object's bytes (*metrics_off,
 * *metrics_len: a slice of line, valid JSON) set; false with why in err
 * (errlen bytes, NUL-terminated).
 */
extern bool progress_parse_line(const char *line, size_t len, double *step,
								size_t *metrics_off, size_t *metrics_len,
								char *err, size_t errlen);

/* Receives each good line: its step and its metrics (NUL-terminated). */
typedef void (*ProgressSink)(void *arg, double step, const char *metrics);

/* What has been read of a runner's progress file. */
typedef struct ProgressChannel
{
	int fd;       /* the scratch file, or -1 */
	off_t offset; /* bytes read so far */
	long lines;   /* lines taken (blank ones too) */
	bool have_step;
	double last_step;
	bool failed;     /* error says why; nothing more is read */
	char error[320]; /* "progress line 3 (fd 3): ..." */
	size_t held;     /* bytes of an unfinished line in buf */
	char buf[PROGRESS_LINE_MAX + 1];
} ProgressChannel;

/* A channel reading fd from its start. */
extern void progress_channel_init(ProgressChannel *c, int fd);

/*
 * Read what the runner appended since the last call and hand each
 * complete, good line to sink, in order.  With final (the runner has
 * exited) an unfinished last line counts as a line.  Returns false once
 * the channel failed (c->error says why; lines before the bad one were
 * handed on).
 */
extern bool progress_channel_read(ProgressChannel *c, bool final,
								  ProgressSink sink, void *arg);

#endif /* PROGRESS_CHANNEL_H */
