/*
 * fuzz_json.c: libFuzzer target for the runners' JSON helpers
 * (src/runners/common/json.c) on the path a runner's configuration takes:
 * jansson parses the bytes, json_type_name names every value, and the
 * strings and numbers are written back through sb_json_string and
 * sb_json_number; any input, escaped as a string, must parse back to
 * itself.
 */
#include "json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
walk(const json_t *v, strbuf *sb, int depth)
{
	const char *key;
	json_t *item;
	size_t i;

	if (depth > 64)
		return;
	sb_append(sb, json_type_name(v));
	switch (json_typeof(v))
	{
		case JSON_STRING:
			sb_json_string(sb, json_string_value(v));
			break;
		case JSON_INTEGER:
		case JSON_REAL:
			sb_json_number(sb, json_number_value(v));
			break;
		case JSON_ARRAY:
			json_array_foreach(v, i, item) walk(item, sb, depth + 1);
			break;
		case JSON_OBJECT:
			json_object_foreach((json_t *)v, key, item)
			{
				sb_json_string(sb, key);
				walk(item, sb, depth + 1);
			}
			break;
		default:
			break;
	}
}

/* Only ASCII round-trips: jansson rejects invalid UTF-8, which the
 * escaper passes through as bytes. */
static int
ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s > 0x7f)
			return 0;
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t err;
	json_t *root = json_loadb((const char *)data, size, 0, &err);
	strbuf sb, back;
	char *text;
	json_t *again;

	if (root != NULL)
	{
		sb_init(&sb);
		walk(root, &sb, 0);
		sb_free(&sb);
		json_decref(root);
	}

	/* The input as a C string, escaped, parses back to the same string. */
	text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	sb_init(&back);
	sb_json_string(&back, text);
	sb_appendn(&back, "", 0);
	if (ascii(text))
	{
		again = json_loadb(back.data, back.len, JSON_DECODE_ANY, &err);
		if (again == NULL || strcmp(json_string_value(again), text) != 0)
			abort();
		json_decref(again);
	}
	sb_free(&back);
	free(text);
	return 0;
}
