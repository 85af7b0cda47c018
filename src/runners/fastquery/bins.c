/*
 * bins.c: bin edges, bin lookup and condition classification.
 */
#include "bins.h"

#include <math.h>

/* Equal-width edges; the last edge is hi exactly (no rounding drift). */
void
fq_bin_edges(double lo, double hi, int nbins, double *edges)
{
	int k;

	for (k = 0; k < nbins; k++)
		edges[k] = lo + (hi - lo) * ((double)k / nbins);
	edges[nbins] = hi;
}

/*
 * Arithmetic guess, then corrected against the stored edges so that the
 * result agrees with the edges exactly whatever the rounding of the guess.
 */
int
fq_bin_of(const double *edges, int nbins, double v)
{
	double width = edges[nbins] - edges[0];
	int k = 0;

	if (width > 0)
	{
		double g = floor((v - edges[0]) / width * nbins);

		k = g < 0 ? 0 : (g >= nbins ? nbins - 1 : (int)g);
	}
	while (k > 0 && v < edges[k])
		k--;
	while (k < nbins - 1 && v >= edges[k + 1])
		k++;
	return k;
}

/* Does v satisfy "v op c"? */
int
fq_op_eval(double v, FqOp op, double c)
{
	switch (op)
	{
		case FQ_LT:
			return v < c;
		case FQ_LE:
			return v <= c;
		case FQ_GT:
			return v > c;
		case FQ_GE:
			return v >= c;
	}
	return 0;
}

/* All when both ends satisfy it, none when neither can. */
FqBinClass
fq_bin_class(double lo, double hi, FqOp op, double c)
{
	switch (op)
	{
		case FQ_LT:
			return hi < c ? FQ_BIN_ALL
						  : (lo >= c ? FQ_BIN_NONE : FQ_BIN_CANDIDATE);
		case FQ_LE:
			return hi <= c ? FQ_BIN_ALL
						   : (lo > c ? FQ_BIN_NONE : FQ_BIN_CANDIDATE);
		case FQ_GT:
			return lo > c ? FQ_BIN_ALL
						  : (hi <= c ? FQ_BIN_NONE : FQ_BIN_CANDIDATE);
		case FQ_GE:
			return lo >= c ? FQ_BIN_ALL
						   : (hi < c ? FQ_BIN_NONE : FQ_BIN_CANDIDATE);
	}
	return FQ_BIN_CANDIDATE;
}

/* The operator at the start of s; returns its length (0: none). */
int
fq_op_parse(const char *s, FqOp *op)
{
	if (s[0] == '<')
	{
		*op = s[1] == '=' ? FQ_LE : FQ_LT;
		return s[1] == '=' ? 2 : 1;
	}
	if (s[0] == '>')
	{
		*op = s[1] == '=' ? FQ_GE : FQ_GT;
		return s[1] == '=' ? 2 : 1;
	}
	return 0;
}

/* The operator as written in queries. */
const char *
fq_op_name(FqOp op)
{
	static const char *const names[] = {"<", "<=", ">", ">="};

	return names[op];
}
