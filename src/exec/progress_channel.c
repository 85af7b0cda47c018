/*
 * progress_channel.c
 *	  Reading a runner's progress lines (see progress_channel.h): a small
 *	  JSON parser for the one shape a line may have, strict enough that
 *	  what it accepts PostgreSQL's jsonb and float8 accept too (no NaN,
 *	  no \u0000, no lone surrogate, valid UTF-8, every number a finite
 *	  double), so that storing a line it passed cannot fail.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "progress_channel.h"

/* A parse in progress over one line. */
typedef struct Parser
{
	const char *s;
	size_t len;
	size_t pos;
	char *err;
	size_t errlen;
} Parser;

static bool fail(Parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Set the error (if none is set yet); returns false. */
static bool
fail(Parser *p, const char *fmt, ...)
{
	va_list ap;

	if (p->err[0] != '\0')
		return false;
	va_start(ap, fmt);
	vsnprintf(p->err, p->errlen, fmt, ap);
	va_end(ap);
	return false;
}

static void
skip_ws(Parser *p)
{
	while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
							   p->s[p->pos] == '\r' || p->s[p->pos] == '\n'))
		p->pos++;
}

/* The next byte, or -1 at the end. */
static int
peek(Parser *p)
{
	return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

static bool
expect(Parser *p, char c, const char *what)
{
	skip_ws(p);
	if (peek(p) != (unsigned char)c)
		return fail(p, "expected %s at byte %zu", what, p->pos + 1);
	p->pos++;
	return true;
}

/* Four hex digits at the position; -1 if not. */
static long
hex4(Parser *p)
{
	long v = 0;
	int i;

	if (p->len - p->pos < 4)
		return -1;
	for (i = 0; i < 4; i++)
	{
		char c = p->s[p->pos + i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	p->pos += 4;
	return v;
}

/* Length of the valid UTF-8 sequence at the position, or 0. */
static int
utf8_length(Parser *p)
{
	const unsigned char *u = (const unsigned char *)p->s + p->pos;
	size_t left = p->len - p->pos;
	int n;
	unsigned long cp;
	int i;

	if (u[0] >= 0xC2 && u[0] <= 0xDF)
		n = 2, cp = u[0] & 0x1F;
	else if (u[0] >= 0xE0 && u[0] <= 0xEF)
		n = 3, cp = u[0] & 0x0F;
	else if (u[0] >= 0xF0 && u[0] <= 0xF4)
		n = 4, cp = u[0] & 0x07;
	else
		return 0;
	if (left < (size_t)n)
		return 0;
	for (i = 1; i < n; i++)
	{
		if ((u[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (u[i] & 0x3F);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
		(n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
		return 0;
	return n;
}

/*
 * A JSON string at the position; its first keylen - 1 bytes (when key is
 * not NULL, escapes kept as written) go to key.
 */
static bool
parse_string(Parser *p, char *key, size_t keylen)
{
	size_t k = 0;

	skip_ws(p);
	if (peek(p) != '"')
		return fail(p, "expected a string at byte %zu", p->pos + 1);
	p->pos++;
	for (;;)
	{
		int c = peek(p);

		if (c < 0)
			return fail(p, "unterminated string");
		if (c == '"')
		{
			p->pos++;
			break;
		}
		if (c < 0x20)
			return fail(p, "control character in a string at byte %zu",
						p->pos + 1);
		if (key != NULL && k + 1 < keylen)
			key[k++] = (char)c;
		if (c == '\\')
		{
			p->pos++;
			c = peek(p);
			if (c == 'u')
			{
				long cp;

				p->pos++;
				cp = hex4(p);
				if (cp < 0)
					return fail(p, "bad \\u escape at byte %zu", p->pos + 1);
				if (cp == 0)
					return fail(p, "\\u0000 is not allowed in a string");
				if (cp >= 0xDC00 && cp <= 0xDFFF)
					return fail(p, "lone Unicode low surrogate");
				if (cp >= 0xD800 && cp <= 0xDBFF)
				{
					long low;

					if (p->len - p->pos < 2 || p->s[p->pos] != '\\' ||
						p->s[p->pos + 1] != 'u')
						return fail(p, "lone Unicode high surrogate");
					p->pos += 2;
					low = hex4(p);
					if (low < 0xDC00 || low > 0xDFFF)
						return fail(p, "lone Unicode high surrogate");
				}
			}
			else if (c >= 0 && strchr("\"\\/bfnrt", c) != NULL && c != 0)
				p->pos++;
			else
				return fail(p, "bad escape in a string at byte %zu",
							p->pos + 1);
		}
		else if (c >= 0x80)
		{
			int n = utf8_length(p);

			if (n == 0)
				return fail(p, "invalid UTF-8 at byte %zu", p->pos + 1);
			p->pos += n;
		}
		else
			p->pos++;
	}
	if (key != NULL)
		key[k] = '\0';
	return true;
}

/* A JSON number that is a finite double (with no range error). */
static bool
parse_number(Parser *p, const char *what, double *value)
{
	char num[PROGRESS_LINE_MAX + 1];
	size_t start;
	size_t n;
	char *end;
	double v;

	skip_ws(p);
	start = p->pos;
	if (peek(p) == '-')
		p->pos++;
	if (peek(p) == '0')
		p->pos++;
	else if (peek(p) >= '1' && peek(p) <= '9')
		while (peek(p) >= '0' && peek(p) <= '9')
			p->pos++;
	else
		return fail(p, "%s must be a number", what);
	if (peek(p) == '.')
	{
		p->pos++;
		if (!(peek(p) >= '0' && peek(p) <= '9'))
			return fail(p, "%s: bad number", what);
		while (peek(p) >= '0' && peek(p) <= '9')
			p->pos++;
	}
	if (peek(p) == 'e' || peek(p) == 'E')
	{
		p->pos++;
		if (peek(p) == '+' || peek(p) == '-')
			p->pos++;
		if (!(peek(p) >= '0' && peek(p) <= '9'))
			return fail(p, "%s: bad number", what);
		while (peek(p) >= '0' && peek(p) <= '9')
			p->pos++;
	}
	n = p->pos - start;
	if (n >= sizeof(num))
		return fail(p, "%s: number too long", what);
	memcpy(num, p->s + start, n);
	num[n] = '\0';
	errno = 0;
	v = strtod(num, &end);
	if (errno != 0 || !isfinite(v) || *end != '\0')
		return fail(p, "%s is out of the range of a double: %.40s", what, num);
	if (value != NULL)
		*value = v;
	return true;
}

/* The metrics object: names to numbers or null. */
static bool
parse_metrics(Parser *p)
{
	char name[72];
	char what[96];

	if (!expect(p, '{', "\"metrics\" to be an object"))
		return false;
	skip_ws(p);
	if (peek(p) == '}')
	{
		p->pos++;
		return true;
	}
	for (;;)
	{
		if (!parse_string(p, name, sizeof(name)) ||
			!expect(p, ':', "':' after a metric's name"))
			return false;
		skip_ws(p);
		if (p->len - p->pos >= 4 && memcmp(p->s + p->pos, "null", 4) == 0)
			p->pos += 4;
		else
		{
			snprintf(what, sizeof(what), "metric \"%s\"", name);
			if (peek(p) != '-' && !(peek(p) >= '0' && peek(p) <= '9'))
				return fail(p, "metric \"%s\" must be a number or null", name);
			if (!parse_number(p, what, NULL))
				return false;
		}
		skip_ws(p);
		if (peek(p) == ',')
		{
			p->pos++;
			continue;
		}
		return expect(p, '}', "',' or '}' in \"metrics\"");
	}
}

/* See progress_channel.h. */
bool
progress_parse_line(const char *line, size_t len, double *step,
					size_t *metrics_off, size_t *metrics_len, char *err,
					size_t errlen)
{
	Parser p;
	bool have_step = false;
	bool have_metrics = false;
	char key[72];

	memset(&p, 0, sizeof(p));
	p.s = line;
	p.len = len;
	p.err = err;
	p.errlen = errlen;
	err[0] = '\0';

	if (!expect(&p, '{', "a JSON object"))
		return false;
	skip_ws(&p);
	if (peek(&p) != '}')
		for (;;)
		{
			if (!parse_string(&p, key, sizeof(key)) ||
				!expect(&p, ':', "':' after a key"))
				return false;
			if (strcmp(key, "step") == 0)
			{
				if (have_step)
					return fail(&p, "\"step\" appears twice");
				if (!parse_number(&p, "\"step\"", step))
					return false;
				if (*step < 0)
					return fail(&p, "\"step\" must be at least 0, got %g",
								*step);
				have_step = true;
			}
			else if (strcmp(key, "metrics") == 0)
			{
				if (have_metrics)
					return fail(&p, "\"metrics\" appears twice");
				skip_ws(&p);
				*metrics_off = p.pos;
				if (!parse_metrics(&p))
					return false;
				*metrics_len = p.pos - *metrics_off;
				have_metrics = true;
			}
			else
				return fail(&p,
							"unknown key \"%s\" (a line has \"step\" and "
							"\"metrics\")",
							key);
			skip_ws(&p);
			if (peek(&p) == ',')
			{
				p.pos++;
				continue;
			}
			if (!expect(&p, '}', "',' or '}'"))
				return false;
			break;
		}
	else
		p.pos++;
	skip_ws(&p);
	if (p.pos < p.len)
		return fail(&p, "text after the JSON object at byte %zu", p.pos + 1);
	if (!have_step)
		return fail(&p, "no \"step\"");
	if (!have_metrics)
		return fail(&p, "no \"metrics\"");
	return true;
}

/* See progress_channel.h. */
void
progress_channel_init(ProgressChannel *c, int fd)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd;
}

/* Fail the channel at its current line, quoting the line's start. */
static bool
channel_fail(ProgressChannel *c, const char *why, const char *line, size_t len)
{
	char quote[64];
	size_t n = len < sizeof(quote) - 1 ? len : sizeof(quote) - 1;
	size_t i;

	for (i = 0; i < n; i++)
		quote[i] = (line[i] >= 0x20 && line[i] < 0x7F) ? line[i] : '?';
	quote[n] = '\0';
	snprintf(c->error, sizeof(c->error), "progress line %ld (fd %d): %s%s%s%s",
			 c->lines, PROGRESS_FD, why, n > 0 ? ": " : "", quote,
			 len > n ? "..." : "");
	c->failed = true;
	return false;
}

/* Take one line (no newline): check it and hand it on. */
static bool
take_line(ProgressChannel *c, char *line, size_t len, ProgressSink sink,
		  void *arg)
{
	char err[256];
	double step;
	size_t off = 0;
	size_t mlen = 0;
	size_t i;
	char saved;

	c->lines++;
	if (c->lines > PROGRESS_MAX_LINES)
		return channel_fail(c, "more lines than a trial may write (10000)", "",
							0);
	if (len > 0 && line[len - 1] == '\r')
		len--;
	for (i = 0; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t')
			break;
	if (i == len)
		return true; /* a blank line */
	if (!progress_parse_line(line, len, &step, &off, &mlen, err, sizeof(err)))
		return channel_fail(c, err, line, len);
	if (c->have_step && !(step > c->last_step))
	{
		snprintf(err, sizeof(err),
				 "step %.17g is not after the line before's %.17g", step,
				 c->last_step);
		return channel_fail(c, err, line, len);
	}
	c->have_step = true;
	c->last_step = step;
	if (sink != NULL)
	{
		/* the metrics end before the object's '}', inside line */
		saved = line[off + mlen];
		line[off + mlen] = '\0';
		sink(arg, step, line + off);
		line[off + mlen] = saved;
	}
	return true;
}

/* See progress_channel.h. */
bool
progress_channel_read(ProgressChannel *c, bool final, ProgressSink sink,
					  void *arg)
{
	if (c->failed)
		return false;
	if (c->fd < 0)
		return true;
	for (;;)
	{
		size_t space = PROGRESS_LINE_MAX - c->held;
		size_t start = 0;
		size_t i;
		ssize_t n;

		if (space == 0)
		{
			c->lines++;
			return channel_fail(c,
								"line longer than 4096 bytes (or no newline)",
								c->buf, c->held);
		}
		n = pread(c->fd, c->buf + c->held, space, c->offset);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
		{
			snprintf(c->error, sizeof(c->error),
					 "could not read the progress file (fd %d): %s",
					 PROGRESS_FD, strerror(errno));
			c->failed = true;
			return false;
		}
		if (n == 0)
			break;
		c->offset += n;
		for (i = c->held; i < c->held + (size_t)n; i++)
			if (c->buf[i] == '\n')
			{
				if (!take_line(c, c->buf + start, i - start, sink, arg))
					return false;
				start = i + 1;
			}
		c->held = c->held + (size_t)n - start;
		memmove(c->buf, c->buf + start, c->held);
	}
	if (final && c->held > 0)
	{
		size_t held = c->held;

		c->held = 0;
		return take_line(c, c->buf, held, sink, arg);
	}
	return true;
}
