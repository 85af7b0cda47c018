/*
 * logparse.h: what the RocksDB runner reads back from db_bench's output
 * and from RocksDB's LOG files.
 *
 * db_bench (7.8) prints one result line per benchmark
 * ("mixgraph : X micros/op Y ops/sec Z seconds N operations; ...") and,
 * with -statistics, the statistics dump ("rocksdb.<ticker> COUNT : n",
 * "rocksdb.<histogram> P50 : .. P99 : .. COUNT : .."). RocksDB's LOG holds
 * one EVENT_LOG_v1 JSON object per flush/compaction event.  Pure parsing,
 * no RocksDB library calls.
 */
#ifndef TUNER_RUNNER_LOGPARSE_H
#define TUNER_RUNNER_LOGPARSE_H

#include <stdbool.h>
#include <stddef.h>

/* The mixgraph result line of db_bench's stdout. */
typedef struct
{
	bool found;
	double micros_per_op;
	double ops_per_sec;
	double seconds;
	double operations;
	/* "( Gets:g Puts:p Seek:s, reads r in f found, ...)" */
	bool have_mix;
	double gets;
	double puts;
	double seeks;
	double reads_found;
	double reads_total;
} bench_line;

/* Parse "<name> : ..." result line of benchmark name in text. */
extern bool parse_bench_line(const char *text, const char *name,
							 bench_line *out);

/*
 * Statistics dump: the COUNT of a ticker ("rocksdb.stall.micros") or a
 * histogram field ("P99", "COUNT") of a histogram.  Return false when the
 * line or the field is absent.
 */
extern bool parse_ticker(const char *text, const char *ticker, double *out);
extern bool parse_histogram(const char *text, const char *hist,
							const char *field, double *out);

/* What the EVENT_LOG_v1 lines of one or more LOG files say. */
typedef struct
{
	int events;              /* EVENT_LOG_v1 lines parsed */
	int bad_lines;           /* EVENT_LOG_v1 lines that were not JSON */
	int flush_count;         /* flush_finished events */
	int compaction_count;    /* compaction_finished events (real I/O) */
	int trivial_moves;       /* trivial_move events (no I/O) */
	double flush_bytes;      /* file_size of SSTs created by flush jobs */
	double compaction_bytes; /* total_output_size of compactions */
	double compaction_input_bytes; /* input_data_size of compactions */
	/* compaction_time_micros of each L0->L1 compaction */
	double *l0_l1_micros;
	int n_l0_l1;
	int cap_l0_l1;
	/* per-file job bookkeeping (job ids restart with every DB open) */
	int *flush_jobs;
	int n_flush_jobs;
	int cap_flush_jobs;
	int *l0_jobs;
	int n_l0_jobs;
	int cap_l0_jobs;
} log_stats;

extern void log_stats_init(log_stats *ls);
extern void log_stats_free(log_stats *ls);

/* Call before each LOG file: job ids are per DB open. */
extern void log_stats_new_file(log_stats *ls);

/* Feed one LOG line; ignored unless it is an EVENT_LOG_v1 line. */
extern void log_stats_line(log_stats *ls, const char *line);

/* Feed a whole LOG file (or a runner LOG.excerpt, whose "== name" lines
 * start a new file); false (with errno) when it cannot be read. */
extern bool log_stats_file(log_stats *ls, const char *path);

/* Percentile (0..100) with linear interpolation; NaN when n == 0. */
extern double percentile(const double *values, int n, double p);

/* Read a whole file into a NUL-terminated malloc'd buffer, or NULL. */
extern char *read_file_all(const char *path, size_t *len_out);

#endif /* TUNER_RUNNER_LOGPARSE_H */
