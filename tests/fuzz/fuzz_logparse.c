/*
 * fuzz_logparse.c: libFuzzer target for the RocksDB runner's parsers
 * (src/runners/rocksdb/logparse.c): db_bench's result line and statistics
 * dump, and LOG lines with their EVENT_LOG_v1 JSON.  The input is split at
 * newlines and fed line by line, then parsed whole as db_bench output.
 */
#include "logparse.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	char *line, *save = NULL;
	log_stats ls;
	bench_line bl;
	double v;

	memcpy(text, data, size);
	text[size] = '\0';

	parse_bench_line(text, "mixgraph", &bl);
	parse_ticker(text, "rocksdb.stall.micros", &v);
	parse_histogram(text, "rocksdb.db.get.micros", "P99", &v);
	parse_histogram(text, "rocksdb.db.get.micros", "COUNT", &v);

	log_stats_init(&ls);
	for (line = strtok_r(text, "\n", &save); line;
		 line = strtok_r(NULL, "\n", &save))
	{
		if (line[0] == '=' && line[1] == '=')
			log_stats_new_file(&ls);
		else
			log_stats_line(&ls, line);
	}
	percentile(ls.l0_l1_micros, ls.n_l0_l1, 50);
	percentile(ls.l0_l1_micros, ls.n_l0_l1, 99);
	log_stats_free(&ls);
	free(text);
	return 0;
}
