/*
 * fq_runner.h: the trial of tuner_fastquery_runner: its configuration
 * (parameters and "_settings", parsed and checked from the JSON input)
 * and the "_effective" part of its output.  No MPI, no HDF5.
 */
#ifndef TUNER_FQ_RUNNER_H
#define TUNER_FQ_RUNNER_H

#include "json.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/* Upper bound of the "repeats" setting (the preset checks the same). */
#define FQ_MAX_REPEATS 16

typedef struct
{
	/* tuned parameters */
	int bins;
	char layout[16];        /* contiguous or chunked */
	char io[16];            /* collective or independent */
	char romio_ds_read[16]; /* "" = ROMIO's default */
	char romio_cb_read[16];
	char romio_cb_write[16];
	long cb_buffer_size; /* 0 = ROMIO's default */
	int cb_nodes;        /* 0 = ROMIO's default */
	int ranks;
	int threads;
	bool overlap;
	long align; /* HDF5 alignment of data and index file; 0 = HDF5's */
	/* settings */
	long particles;
	char data_dir[PATH_MAX]; /* "" = tuner_fastquery's default cache */
	double timeout_s;
	char queries[1024];
	int random_queries;
	long query_seed;
	bool cold;
	bool paired;   /* also run the default configuration, interleaved */
	int repeats;   /* runs of the trial (and of the default when paired) */
	int max_ranks; /* more ranks than this (the host's cores) is refused */
	char program[PATH_MAX];
	char mpiexec[PATH_MAX];
} FqTrial;

/* Parse and check the input; false with a message in err on bad input. */
extern bool fq_parse_trial(const char *input, FqTrial *t, char *err,
						   size_t errlen);

/* Reset the tuned parameters of t to what an empty configuration gives
 * (the default configuration a paired trial is compared with). */
extern void fq_default_params(FqTrial *t);

/*
 * Append ", \"_effective\": {...}": the hints ROMIO kept on the data and
 * the index file, the requested hints it did not honor, the file-system
 * type and HDF5's actual I/O modes, from build's and query's metrics.
 */
extern void fq_append_effective(strbuf *out, json_t *build, json_t *query);

#endif /* TUNER_FQ_RUNNER_H */
