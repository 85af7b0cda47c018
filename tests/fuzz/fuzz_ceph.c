/*
 * fuzz_ceph.c: libFuzzer target for the Ceph runner's readers of Ceph's
 * answers and of its state file (src/runners/ceph/answers.c).  Every
 * input goes to every reader, as if Ceph had answered it:
 *   osd ls          at most max ids;
 *   config help     a kind of the enum;
 *   config get      a NUL-terminated value that fits and has no trailing
 *                   newline or space (small and large buffers);
 *   version         NUL-terminated strings that fit;
 *   catalog         when accepted, the bytes passed on are one JSON array
 *                   of the counted options (what tuner_ceph --catalog
 *                   prints inside its own object);
 *   state file      each line's who and name fit and hold no space.
 */
#include "answers.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* out holds a NUL within outlen and no trailing newline or space. */
static void
check_trimmed(const char *out, size_t outlen)
{
	size_t n = strnlen(out, outlen);

	if (n == outlen)
		abort();
	if (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
		abort();
}

static void
check_catalog(const char *text)
{
	size_t start, len, count;
	json_t *array;

	if (ceph_parse_catalog(text, &start, &len, &count) < 0)
		return;
	if (start + len > strlen(text) || count == 0)
		abort();
	array = json_loadb(text + start, len, JSON_DECODE_INT_AS_REAL, NULL);
	if (!json_is_array(array) || json_array_size(array) != count)
		abort();
	json_decref(array);
}

static void
check_state_lines(char *text)
{
	char *line;
	char *save = NULL;
	applied_option o;

	for (line = strtok_r(text, "\n", &save); line;
		 line = strtok_r(NULL, "\n", &save))
	{
		if (!ceph_parse_state_line(line, &o))
			continue;
		if (strnlen(o.who, sizeof(o.who)) == sizeof(o.who) ||
			strnlen(o.name, sizeof(o.name)) == sizeof(o.name) ||
			o.who[0] == '\0' || o.name[0] == '\0' || strchr(o.who, ' ') ||
			strchr(o.name, ' '))
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	int ids[4];
	opt_kind kind = OPT_RUNTIME;
	char small[8];
	char large[512];
	char full[64];
	char number[16];
	int n;

	memcpy(text, data, size);
	text[size] = '\0';

	n = ceph_parse_osd_ids(text, ids, 4);
	if (n > 4)
		abort();
	if (ceph_parse_option_kind("bluestore_cache_size", text, &kind) == 0 &&
		kind != OPT_RUNTIME && kind != OPT_RESTART && kind != OPT_CREATE)
		abort();
	if (ceph_parse_config_value(text, "osd_op_num_shards", small,
								sizeof(small)) == 0)
		check_trimmed(small, sizeof(small));
	if (ceph_parse_config_value(text, "osd_op_num_shards", large,
								sizeof(large)) == 0)
		check_trimmed(large, sizeof(large));
	ceph_copy_trimmed(small, sizeof(small), text);
	check_trimmed(small, sizeof(small));
	ceph_parse_version(text, full, sizeof(full), number, sizeof(number));
	if (strnlen(full, sizeof(full)) == sizeof(full) ||
		strnlen(number, sizeof(number)) == sizeof(number))
		abort();
	check_catalog(text);
	check_state_lines(text);
	free(text);
	return 0;
}
