/*
 * plot_scale.h
 *	  Axis scales of the plots: the data range of an axis, padded, mapped
 *	  linearly or logarithmically onto pixels, and "nice" ticks: steps of
 *	  1, 2 or 5 times a power of ten on a linear axis, decades (or 1-2-5
 *	  within decades when the range spans less than one) on a log axis.
 *	  Tick labels are short decimal strings.  No PostgreSQL here.
 */
#ifndef TUNER_PLOT_SCALE_H
#define TUNER_PLOT_SCALE_H

#define PLOT_MAX_TICKS 24

typedef struct PlotScale
{
	int log;   /* log10 axis (lo > 0) */
	double lo; /* domain, in data units */
	double hi;
	double px0; /* pixels of lo and hi */
	double px1;
} PlotScale;

/*
 * The nice step for about target ticks over [lo, hi]: the smallest of 1, 2,
 * 5 (times a power of ten) at least (hi - lo) / target.
 */
extern double plot_nice_step(double lo, double hi, int target);

/*
 * Multiples of the nice step inside [lo, hi] (at most max); returns their
 * number.  Values within a millionth of a step of zero are exactly zero.
 */
extern int plot_linear_ticks(double lo, double hi, int target, double *ticks,
							 int max);

/*
 * Ticks of a log axis over [lo, hi] (lo > 0): powers of ten, every k-th
 * decade when there are more than target; 1, 2 and 5 times powers of ten
 * when fewer than three decades fall inside; linear ticks when even those
 * are fewer than three.
 */
extern int plot_log_ticks(double lo, double hi, int target, double *ticks,
						  int max);

/*
 * A tick label: on a linear axis with as many decimals as the step needs
 * (step 0.25 -> 2; step 5 -> 0); on a log axis or for very large or small
 * numbers the shortest %g form, with "1e6" instead of "1e+06".
 */
extern void plot_tick_label(double value, double step, int log, char *out,
							int size);

/*
 * The domain of data values in [lo, hi]: padded by frac of the range (in
 * log space on a log axis); a single value gets a range around it.
 */
extern void plot_scale_domain(PlotScale *scale, double lo, double hi, int log,
							  double frac);

/* Pixel position of a data value. */
extern double plot_scale_px(const PlotScale *scale, double value);

/* The ticks of a scale's domain (linear or log). */
extern int plot_scale_ticks(const PlotScale *scale, int target, double *ticks,
							int max);

#endif /* TUNER_PLOT_SCALE_H */
