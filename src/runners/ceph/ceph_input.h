/*
 * ceph_input.h: the trial input of tuner_ceph (the JSON object on its
 * stdin: Ceph option name -> value, plus an optional "_settings" object),
 * parsed and checked into the runner's settings and the trial's options.
 * No librados calls, no I/O and no exit, so that a fuzzer can drive it
 * (tests/fuzz/fuzz_ceph_input.c); the runner prints the message of a
 * refused input and exits 2.
 */
#ifndef TUNER_CEPH_INPUT_H
#define TUNER_CEPH_INPUT_H

#include "apply.h"
#include "json.h"
#include "workload.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define CEPH_MAX_OPTIONS 256

typedef struct
{
	char cluster_dir[PATH_MAX];
	char conf[PATH_MAX];
	char keyring[PATH_MAX];
	char client_name[64];
	char pool[128];
	char cluster_script[PATH_MAX];
	char state_file[PATH_MAX];
	workload_spec w;
	int apply_timeout_s;
	int timeout_s;
	bool paired;
	bool restore;
	int repeats;
} ceph_settings;

/* One option of the trial; the parser fills name and value (Ceph's text
 * form), the runner the rest. */
typedef struct
{
	char name[128];
	const char *who;
	char value[256];
	opt_kind kind;
	char effective[256];
	bool effective_ok;
} trial_option;

/*
 * Parse and check the input: text holds len bytes and a NUL after them
 * (blank text is an empty object).  Fills *s, and unless options is
 * false also opts (room for CEPH_MAX_OPTIONS) and *nopts.  On a refused
 * input returns false with the reason, one message without the program's
 * name, in *err (initialized here; the caller frees it).
 */
extern bool ceph_parse_input(const char *text, size_t len, bool options,
							 ceph_settings *s, trial_option *opts, int *nopts,
							 strbuf *err);

#endif /* TUNER_CEPH_INPUT_H */
