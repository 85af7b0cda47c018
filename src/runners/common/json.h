/*
 * json.h: JSON helpers shared by the trial runners under src/runners/.
 *
 * A runner reads its trial configuration as JSON (the RocksDB runner also
 * parses the EVENT_LOG_v1 lines of RocksDB's LOG, the Ceph runner the
 * answers of Ceph's commands) with jansson (Debian's libjansson) rather
 * than a parser of our own.  It writes its metrics as one JSON object
 * through a growable string buffer with JSON string escaping.  Each
 * runner's Makefile compiles this code into its own program.
 */
#ifndef TUNER_RUNNER_JSON_H
#define TUNER_RUNNER_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/*
 * Name of a JSON value's type with its article ("an array"), for error
 * messages; parsing itself is jansson's.
 */
extern const char *json_type_name(const json_t *v);

/* Growable output buffer; aborts the process on out of memory. */
typedef struct
{
	char *data;
	size_t len;
	size_t cap;
} strbuf;

extern void sb_init(strbuf *sb);
extern void sb_free(strbuf *sb);
extern void sb_append(strbuf *sb, const char *s);
extern void sb_appendn(strbuf *sb, const char *s, size_t n);
extern void sb_printf(strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Append the reason for refusing input to err; returns false, for a
 * parser to return. */
extern bool sb_refuse(strbuf *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Append s as a quoted, escaped JSON string. */
extern void sb_json_string(strbuf *sb, const char *s);
/* Append a finite number, or null when x is NaN/Inf. */
extern void sb_json_number(strbuf *sb, double x);

#endif /* TUNER_RUNNER_JSON_H */
