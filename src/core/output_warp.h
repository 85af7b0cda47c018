/*
 * output_warp.h
 *	  A monotone transform of the objective before the GP models it, for
 *	  10 or more dimensions and strongly right-skewed values (a valley such
 *	  as Rosenbrock's, where a few points are 100x worse than the rest):
 *
 *	    z = log(1 + (y - y_min) / (y_med - y_min))
 *
 *	  with y_min and y_med (the upper median) of the observed values.  It
 *	  keeps the order of the values, so the incumbent and EI's notion of
 *	  improvement stay the same trials; it only compresses the bad tail
 *	  that a stationary GP otherwise reads as the whole signal.  Used when
 *	  d >= GP_HIGH_DIM (gp.h), at least OUTPUT_WARP_MIN_POINTS values, all
 *	  finite, skewness above OUTPUT_WARP_MIN_SKEW and a positive y_med -
 *	  y_min; else the transform is the identity.  Why, and the ablations,
 *	  in bench/README.md (section 2, "10-20 dimensions").
 */
#ifndef TUNER_OUTPUT_WARP_H
#define TUNER_OUTPUT_WARP_H

#define OUTPUT_WARP_MIN_SKEW   1.5
#define OUTPUT_WARP_MIN_POINTS 3

typedef struct OutputWarp
{
	int active;   /* 0: the identity */
	double shift; /* y_min */
	double scale; /* y_med - y_min, > 0 when active */
} OutputWarp;

/*
 * Sample skewness m3 / m2^1.5 (population moments) of n values; 0 when
 * they have no spread.
 */
extern double output_warp_skewness(const double *y, int n);

/*
 * Decide the warp for n observed values y in d dimensions; allowed = 0
 * forces the identity (a caller that compares raw values elsewhere).
 * Returns warp->active.
 */
extern int output_warp_choose(const double *y, int n, int d, int allowed,
							  OutputWarp *warp);

/* z for one value y. */
extern double output_warp_apply(const OutputWarp *warp, double y);

/* y for one z: the inverse of output_warp_apply. */
extern double output_warp_invert(const OutputWarp *warp, double z);

/* dy/dz at z, for carrying a predictive sd back (delta method). */
extern double output_warp_slope(const OutputWarp *warp, double z);

#endif /* TUNER_OUTPUT_WARP_H */
