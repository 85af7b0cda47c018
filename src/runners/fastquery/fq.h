/*
 * fq.h: shared declarations of tuner_fastquery, a FastQuery-style parallel
 * bitmap indexer over HDF5 (MPI + parallel HDF5 + pthreads).
 *
 * Threads: only the main thread of a rank calls HDF5 or MPI (Debian's
 * parallel HDF5 is not thread-safe); worker threads only compute on memory.
 */
#ifndef FQ_H
#define FQ_H

#include <jansson.h>
#include <mpi.h>
#include <stdint.h>

#define FQ_NVARS     7
#define FQ_MAX_HINTS 16
#define FQ_MAX_CONDS 8

/* The variables, in file order. */
extern const char *const fq_var_names[FQ_NVARS];

/* One requested MPI-IO hint. */
typedef struct FqHint
{
	const char *key;
	const char *value;
} FqHint;

/* Options of all subcommands (each uses its own subset). */
typedef struct FqOptions
{
	/* gen */
	uint64_t n; /* particles */
	uint64_t seed;
	int chunked;           /* layout: 0 contiguous, 1 chunked */
	uint64_t chunk;        /* chunk size in particles */
	uint64_t align;        /* H5Pset_alignment (0: HDF5 default) */
	const char *cache_dir; /* where generated files are cached */
	const char *file;      /* data file (gen --out, build/query input) */
	/* build */
	const char *index; /* index file */
	int nbins;
	uint64_t block; /* particles per index block */
	int threads;    /* worker threads per rank */
	int overlap;    /* read next variable while indexing */
	int collective; /* H5FD_MPIO_COLLECTIVE or independent */
	int cold;       /* posix_fadvise(DONTNEED) the input first */
	FqHint hints[FQ_MAX_HINTS];
	int nhints;
	/* query */
	const char *queries; /* "x<1,y>=2;energy>3" */
	int random_queries;  /* number of random queries */
	uint64_t query_seed;
	int scan;             /* answer by full scan instead of the index */
	const char *ids_file; /* write hit ids here (rank 0) */
} FqOptions;

/* A range query: a conjunction of conditions "var op value". */
typedef struct FqCond
{
	int var;
	int op;       /* FqOp */
	double value; /* already rounded to float32 */
} FqCond;

typedef struct FqQuery
{
	int ncond;
	FqCond cond[FQ_MAX_CONDS];
} FqQuery;

/* opts.c: parse "--key value" pairs; exit 2 with a message on bad input. */
void fq_parse_options(int argc, char **argv, FqOptions *o);

/*
 * query_parse.c: parse "x<1,y>=2;energy>3" into *out (malloc'ed) and
 * return the number of queries, or -1 with the reason in err.
 */
int fq_parse_queries(const char *text, FqQuery **out, char *err,
					 size_t errlen);

/* query_parse.c: the canonical text of a query (parses back to it). */
void fq_query_text(const FqQuery *q, char *buf, size_t len);

/* hints.c */
MPI_Info fq_hints_info(const FqOptions *o);
json_t *fq_hints_report(const FqOptions *o, MPI_Info used, const char *path);
const char *fq_fs_type(const char *path);

/* query_parse.c: index of a variable name, or -1 */
int fq_var_index(const char *name);

/* util.c */
double fq_now(void);
double fq_cpu_seconds(void);
void fq_fail(int code, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));
void fq_print_json(json_t *obj);
void fq_slab(uint64_t nblocks, int rank, int nranks, uint64_t *b0,
			 uint64_t *b1);
void fq_evict(const char *path);

/* subcommands */
int fq_gen(const FqOptions *o);
int fq_build(const FqOptions *o);
int fq_query(const FqOptions *o);

#endif
