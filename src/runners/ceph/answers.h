/*
 * answers.h: reading Ceph's answers (the text of "osd ls", "config help",
 * "tell osd.N config get", "version", the OSD's whole "config help" for the
 * catalog) and the runner's state file lines.  Plain text in, no librados
 * calls, so that a fuzzer can drive every parser (tests/fuzz/fuzz_ceph.c).
 */
#ifndef TUNER_CEPH_ANSWERS_H
#define TUNER_CEPH_ANSWERS_H

#include <stdbool.h>
#include <stddef.h>

#include "apply.h"

/* The OSD ids of an "osd ls -f json" answer (at most max); returns their
 * number, or -EPROTO when it is not a JSON array. */
extern int ceph_parse_osd_ids(const char *text, int *ids, int max);

/* The kind of option name from its "config help -f json" answer; -1 when
 * the answer is not a JSON object. */
extern int ceph_parse_option_kind(const char *name, const char *text,
								  opt_kind *kind);

/* The string value of name in a "tell osd.N config get -f json" answer,
 * trimmed, into out; -1 when there is none. */
extern int ceph_parse_config_value(const char *text, const char *name,
								   char *out, size_t outlen);

/* s without trailing newlines and spaces, into out (truncated to fit). */
extern void ceph_copy_trimmed(char *out, size_t outlen, const char *s);

/* The "version -f json" answer: the whole version string ("" if none) and
 * its number ("16.2.11"; "" if it does not start "ceph version "). */
extern void ceph_parse_version(const char *text, char *full, size_t fulllen,
							   char *number, size_t numberlen);

/*
 * The options array of an OSD's whole "config help -f json" answer
 * ({"options": [...]}, nothing else), as the bytes Ceph wrote:
 * text[*start .. *start + *len) and how many options it holds.  The bytes
 * are passed on as they are, because one bound (2^64 - 10) does not fit a
 * jansson integer.  -1 when the answer has another shape.
 */
extern int ceph_parse_catalog(const char *text, size_t *start, size_t *len,
							  size_t *count);

/* One "who name" line of the state file; false for a line without both. */
extern bool ceph_parse_state_line(const char *line, applied_option *o);

#endif /* TUNER_CEPH_ANSWERS_H */
