/*
 * test_progress_channel.c
 *	  A runner's progress lines (src/exec/progress_channel.c): the line
 *	  parser on good and bad lines, and the channel over a real file
 *	  written in pieces (unfinished lines, order of steps, the limits).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "progress_channel.h"
#include "unit.h"

/* Parse a NUL-terminated line; the metrics slice goes to metrics. */
static bool
parse(const char *line, double *step, char *metrics, char *err)
{
	size_t off = 0;
	size_t len = 0;
	bool ok = progress_parse_line(line, strlen(line), step, &off, &len, err,
								  256);

	if (ok)
	{
		memcpy(metrics, line + off, len);
		metrics[len] = '\0';
	}
	return ok;
}

static void
lines(void)
{
	double step = -1;
	char m[256];
	char err[256];

	CHECK(parse("{\"step\": 3, \"metrics\": {\"tps\": 12.5, \"p99\": null}}",
				&step, m, err));
	CHECK(step == 3);
	CHECK(strcmp(m, "{\"tps\": 12.5, \"p99\": null}") == 0);
	CHECK(parse(" { \"metrics\" : { } , \"step\" : 0.5e1 } \r", &step, m,
				err));
	CHECK(step == 5 && strcmp(m, "{ }") == 0);
	CHECK(parse("{\"step\":0,\"metrics\":{\"caf\\u00e9 \xc3\xa9\\n\":-1E-3}}",
				&step, m, err));
	CHECK(parse("{\"step\":1,\"metrics\":{\"\\ud83d\\ude00\":1}}", &step, m,
				err));

	CHECK(!parse("", &step, m, err) && strstr(err, "JSON object") != NULL);
	CHECK(!parse("[1]", &step, m, err));
	CHECK(!parse("{\"step\": 1}", &step, m, err) &&
		  strcmp(err, "no \"metrics\"") == 0);
	CHECK(!parse("{\"metrics\": {}}", &step, m, err) &&
		  strcmp(err, "no \"step\"") == 0);
	CHECK(!parse("{\"step\": -1, \"metrics\": {}}", &step, m, err) &&
		  strstr(err, "at least 0") != NULL);
	CHECK(!parse("{\"step\": NaN, \"metrics\": {}}", &step, m, err) &&
		  strstr(err, "must be a number") != NULL);
	CHECK(!parse("{\"step\": 1e999, \"metrics\": {}}", &step, m, err) &&
		  strstr(err, "range") != NULL);
	CHECK(!parse("{\"step\": 1, \"metrics\": {\"a\": 1e-400}}", &step, m,
				 err) &&
		  strstr(err, "metric \"a\"") != NULL);
	CHECK(!parse("{\"step\": 1, \"metrics\": {\"a\": \"1\"}}", &step, m,
				 err) &&
		  strstr(err, "number or null") != NULL);
	CHECK(!parse("{\"step\": 1, \"metrics\": {\"a\": Infinity}}", &step, m,
				 err));
	CHECK(!parse("{\"step\": 1, \"metrics\": [1]}", &step, m, err));
	CHECK(!parse("{\"step\": 1, \"metrics\": {}, \"x\": 1}", &step, m, err) &&
		  strstr(err, "unknown key \"x\"") != NULL);
	CHECK(!parse("{\"step\": 1, \"step\": 2, \"metrics\": {}}", &step, m,
				 err) &&
		  strstr(err, "twice") != NULL);
	CHECK(!parse("{\"step\": 1, \"metrics\": {}} {}", &step, m, err) &&
		  strstr(err, "text after") != NULL);
	CHECK(!parse("{\"step\": 01, \"metrics\": {}}", &step, m, err));
	CHECK(!parse("{\"step\": 1., \"metrics\": {}}", &step, m, err));
	CHECK(!parse("{\"step\": 1, \"metrics\": {\"a\\u0000\": 1}}", &step, m,
				 err) &&
		  strstr(err, "u0000") != NULL);
	CHECK(!parse("{\"step\": 1, \"metrics\": {\"\\ud83d\": 1}}", &step, m,
				 err) &&
		  strstr(err, "surrogate") != NULL);
	CHECK(!parse("{\"step\": 1, \"metrics\": {\"\xff\": 1}}", &step, m, err) &&
		  strstr(err, "UTF-8") != NULL);
	CHECK(!parse("{\"step\": 1, \"metrics\": {\"a\tb\": 1}}", &step, m, err) &&
		  strstr(err, "control") != NULL);
	CHECK(!parse("{\"step\": 1, \"metrics\": {\"a\": 1", &step, m, err));
	CHECK(!parse("{\"step\": 1, \"metrics\": {\"a", &step, m, err) &&
		  strstr(err, "unterminated") != NULL);
}

/* What a sink saw. */
typedef struct Seen
{
	int n;
	double steps[8];
	char metrics[8][64];
} Seen;

static void
sink(void *arg, double step, const char *metrics)
{
	Seen *s = arg;

	if (s->n < 8)
	{
		s->steps[s->n] = step;
		snprintf(s->metrics[s->n], sizeof(s->metrics[0]), "%s", metrics);
	}
	s->n++;
}

/* An unlinked temporary file. */
static int
temp_file(void)
{
	char path[] = "/tmp/test_progress.XXXXXX";
	int fd = mkstemp(path);

	if (fd >= 0)
		unlink(path);
	return fd;
}

static void
put(int fd, const char *s)
{
	CHECK(write(fd, s, strlen(s)) == (ssize_t)strlen(s));
}

static void
channel(void)
{
	ProgressChannel *c = malloc(sizeof(ProgressChannel));
	Seen seen;
	int fd = temp_file();
	int i;

	CHECK(fd >= 0);
	memset(&seen, 0, sizeof(seen));
	progress_channel_init(c, fd);
	CHECK(progress_channel_read(c, false, sink, &seen) && seen.n == 0);
	put(fd, "{\"step\": 1, \"metrics\": {\"x\": 1}}\n{\"step\": 2, ");
	CHECK(progress_channel_read(c, false, sink, &seen) && seen.n == 1);
	CHECK(seen.steps[0] == 1 && strcmp(seen.metrics[0], "{\"x\": 1}") == 0);
	put(fd, "\"metrics\": {\"x\": 2}}\n\n   \n{\"step\": 3, \"metrics\": {}}");
	CHECK(progress_channel_read(c, false, sink, &seen) && seen.n == 2);
	CHECK(seen.steps[1] == 2 && strcmp(seen.metrics[1], "{\"x\": 2}") == 0);
	/* the unfinished last line counts once the runner has exited */
	CHECK(progress_channel_read(c, true, sink, &seen) && seen.n == 3);
	CHECK(seen.steps[2] == 3 && c->lines == 5);
	/* steps only increase */
	put(fd, "\n{\"step\": 3, \"metrics\": {}}\n");
	CHECK(!progress_channel_read(c, false, sink, &seen) && seen.n == 3);
	CHECK(strstr(c->error, "progress line 7 (fd 3): step 3 is not after") ==
		  c->error);
	/* a failed channel stays failed */
	put(fd, "{\"step\": 9, \"metrics\": {}}\n");
	CHECK(!progress_channel_read(c, true, sink, &seen) && seen.n == 3);
	close(fd);

	/* a line too long, with or without its newline */
	fd = temp_file();
	progress_channel_init(c, fd);
	for (i = 0; i < 5000; i++)
		put(fd, "x");
	CHECK(!progress_channel_read(c, false, sink, &seen));
	CHECK(strstr(c->error, "longer than 4096 bytes") != NULL);
	CHECK(strstr(c->error, "xxx...") != NULL);
	close(fd);

	/* the longest line that fits: 4095 bytes and its newline */
	fd = temp_file();
	progress_channel_init(c, fd);
	memset(&seen, 0, sizeof(seen));
	put(fd, "{\"step\": 1, \"metrics\": {}}");
	for (i = 0; i < PROGRESS_LINE_MAX - 1 - 26; i++)
		put(fd, " ");
	put(fd, "\n");
	CHECK(progress_channel_read(c, true, sink, &seen) && seen.n == 1);
	close(fd);

	/* a flood */
	fd = temp_file();
	progress_channel_init(c, fd);
	memset(&seen, 0, sizeof(seen));
	for (i = 0; i < PROGRESS_MAX_LINES + 5; i++)
	{
		char line[64];

		snprintf(line, sizeof(line), "{\"step\": %d, \"metrics\": {}}\n", i);
		put(fd, line);
	}
	CHECK(!progress_channel_read(c, false, sink, &seen));
	CHECK(seen.n == PROGRESS_MAX_LINES);
	CHECK(strstr(c->error, "more lines than a trial may write") != NULL);
	close(fd);

	/* a malformed line after good ones: those before were handed on */
	fd = temp_file();
	progress_channel_init(c, fd);
	memset(&seen, 0, sizeof(seen));
	put(fd, "{\"step\": 1, \"metrics\": {}}\nthroughput=5\n");
	CHECK(!progress_channel_read(c, false, sink, &seen) && seen.n == 1);
	CHECK(strcmp(c->error, "progress line 2 (fd 3): expected a JSON object "
						   "at byte 1: throughput=5") == 0);
	close(fd);

	/* no file: nothing to read */
	progress_channel_init(c, -1);
	CHECK(progress_channel_read(c, true, sink, &seen));
	free(c);
}

void
test_progress_channel(void)
{
	lines();
	channel();
}
