/*
 * bins.h: equal-width bins of a variable's global range and the bin-level
 * logic of range conditions.
 *
 * edges[0..nbins] with edges[0] = min and edges[nbins] = max; bin k holds
 * the values v with edges[k] <= v < edges[k+1], the last bin also v = max.
 * So every value of bin k lies in the closed interval [edges[k],
 * edges[k+1]], which is all the query side relies on.
 */
#ifndef FQ_BINS_H
#define FQ_BINS_H

typedef enum FqOp
{
	FQ_LT,
	FQ_LE,
	FQ_GT,
	FQ_GE
} FqOp;

/* How a bin relates to a condition. */
typedef enum FqBinClass
{
	FQ_BIN_NONE,     /* no value of the bin satisfies it */
	FQ_BIN_ALL,      /* every value of the bin satisfies it */
	FQ_BIN_CANDIDATE /* the values must be checked */
} FqBinClass;

/* Fill edges[0..nbins] for the range [lo, hi]. */
void fq_bin_edges(double lo, double hi, int nbins, double *edges);

/* The bin of v: the largest k < nbins with edges[k] <= v (0 below min). */
int fq_bin_of(const double *edges, int nbins, double v);

/* Does value v satisfy "v op c"?  Compared as doubles (exact for floats). */
int fq_op_eval(double v, FqOp op, double c);

/* Classify the closed interval [lo, hi] against "v op c". */
FqBinClass fq_bin_class(double lo, double hi, FqOp op, double c);

/* Parse "<", "<=", ">", ">="; returns characters used (0 if none). */
int fq_op_parse(const char *s, FqOp *op);

/* The operator's text. */
const char *fq_op_name(FqOp op);

#endif
