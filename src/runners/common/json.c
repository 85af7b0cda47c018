/*
 * json.c: JSON helpers shared by the trial runners under src/runners/.
 *
 * Parsing is jansson's; what is here is the type name for error messages
 * and a string buffer that writes escaped JSON strings and finite numbers.
 */
#define _GNU_SOURCE /* program_invocation_short_name */
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Abort on allocation failure: the runner cannot do anything useful. */
static void *
xrealloc(void *ptr, size_t size)
{
	void *r = realloc(ptr, size ? size : 1);

	if (r == NULL)
	{
		fprintf(stderr, "%s: out of memory\n", program_invocation_short_name);
		exit(1);
	}
	return r;
}

/* Type name for messages. */
const char *
json_type_name(const json_t *v)
{
	switch (json_typeof(v))
	{
		case JSON_NULL:
			return "null";
		case JSON_TRUE:
		case JSON_FALSE:
			return "a boolean";
		case JSON_INTEGER:
		case JSON_REAL:
			return "a number";
		case JSON_STRING:
			return "a string";
		case JSON_ARRAY:
			return "an array";
		case JSON_OBJECT:
			return "an object";
	}
	return "unknown";
}

void
sb_init(strbuf *sb)
{
	sb->data = NULL;
	sb->len = 0;
	sb->cap = 0;
}

void
sb_free(strbuf *sb)
{
	free(sb->data);
	sb_init(sb);
}

/* Append n bytes, keeping the buffer NUL-terminated. */
void
sb_appendn(strbuf *sb, const char *s, size_t n)
{
	if (sb->len + n + 1 > sb->cap)
	{
		size_t cap = sb->cap ? sb->cap : 64;

		while (cap < sb->len + n + 1)
			cap *= 2;
		sb->data = xrealloc(sb->data, cap);
		sb->cap = cap;
	}
	memcpy(sb->data + sb->len, s, n);
	sb->len += n;
	sb->data[sb->len] = '\0';
}

void
sb_append(strbuf *sb, const char *s)
{
	sb_appendn(sb, s, strlen(s));
}

/* sb_printf's work, on a va_list (copied: it may be read twice). */
static void
sb_vprintf(strbuf *sb, const char *fmt, va_list ap)
{
	va_list again;
	int n;
	char small[256];

	va_copy(again, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n >= 0 && (size_t)n < sizeof(small))
		sb_appendn(sb, small, (size_t)n);
	else if (n >= 0)
	{
		char *big = xrealloc(NULL, (size_t)n + 1);

		vsnprintf(big, (size_t)n + 1, fmt, again);
		sb_appendn(sb, big, (size_t)n);
		free(big);
	}
	va_end(again);
}

void
sb_printf(strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(sb, fmt, ap);
	va_end(ap);
}

/*
 * The reason lands on one line of stderr, whose last line the worker keeps
 * as the trial's error: a control character from the input (a newline in
 * a JSON key) would cut it short, so each becomes \xNN.
 */
bool
sb_refuse(strbuf *err, const char *fmt, ...)
{
	strbuf raw;
	va_list ap;
	size_t i;

	sb_init(&raw);
	va_start(ap, fmt);
	sb_vprintf(&raw, fmt, ap);
	va_end(ap);
	for (i = 0; i < raw.len; i++)
	{
		unsigned char c = (unsigned char)raw.data[i];

		if (c < 0x20 || c == 0x7f)
			sb_printf(err, "\\x%02x", c);
		else
			sb_appendn(err, raw.data + i, 1);
	}
	sb_free(&raw);
	return false;
}

/* Quote and escape; control characters become \u00XX. */
void
sb_json_string(strbuf *sb, const char *s)
{
	sb_append(sb, "\"");
	for (; *s; s++)
	{
		unsigned char c = (unsigned char)*s;

		if (c == '"')
			sb_append(sb, "\\\"");
		else if (c == '\\')
			sb_append(sb, "\\\\");
		else if (c == '\n')
			sb_append(sb, "\\n");
		else if (c == '\t')
			sb_append(sb, "\\t");
		else if (c == '\r')
			sb_append(sb, "\\r");
		else if (c < 0x20)
			sb_printf(sb, "\\u%04x", c);
		else
			sb_appendn(sb, s, 1);
	}
	sb_append(sb, "\"");
}

/* Integers exactly, others with 17 digits (round-trip safe); null for
 * non-finite values. */
void
sb_json_number(strbuf *sb, double x)
{
	if (!isfinite(x))
		sb_append(sb, "null");
	else if (x == floor(x) && fabs(x) < 1e15)
		sb_printf(sb, "%.0f", x);
	else
		sb_printf(sb, "%.17g", x);
}
