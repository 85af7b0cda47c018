/*
 * plot.h
 *	  The plots of a study, drawn as standalone SVG from plain arrays (the
 *	  SQL side gathers them): one function per kind, each in its own file
 *	  (plot_convergence.c, plot_slice.c, plot_pareto.c, plot_importance.c,
 *	  plot_heatmap.c).  Each checks its input, returns TUNER_OK and the SVG
 *	  text in *out (tuner_alloc'd, NUL-terminated), or an error in status.
 *	  Text (titles, labels, names) is escaped here.  No PostgreSQL here.
 */
#ifndef TUNER_PLOT_H
#define TUNER_PLOT_H

#include "tuner_status.h"

/* Objective of each complete trial against its number, best so far. */
typedef struct ConvergencePlot
{
	const char *title;
	const char *y_label;
	int n;                /* complete trials (>= 1) */
	const double *number; /* their numbers, ascending */
	const double *value;  /* their objective values */
	int n_failed;         /* failed trials, marked on the x axis */
	const double *failed_number;
	int has_default; /* draw the default's value as a line */
	double default_value;
	int minimize;
	int log_y; /* values must be > 0 */
	int width;
	int height;
} ConvergencePlot;

/* Objective against one parameter (numeric or categorical). */
typedef struct SlicePlot
{
	const char *title;
	const char *x_label;
	const char *y_label;
	int n;                         /* complete trials (>= 1) */
	const double *x;               /* parameter values, or category index */
	const double *y;               /* objective values */
	const double *number;          /* trial numbers (tooltips) */
	const char *const *categories; /* NULL, or labels of x = 0 .. */
	int n_categories;
	int x_log; /* x values must be > 0 */
	int log_y;
	int minimize;
	int width;
	int height;
} SlicePlot;

/* Two metrics of every trial that has both; the Pareto front drawn. */
typedef struct ParetoPlot
{
	const char *title;
	const char *x_label;
	const char *y_label;
	int n;
	const double *x;
	const double *y;
	const double *number;
	int x_minimize;
	int y_minimize;
	int width;
	int height;
} ParetoPlot;

/* Horizontal bars per parameter: Lasso and/or GP importance. */
typedef struct ImportancePlot
{
	const char *title;
	int n; /* parameters, top row first */
	const char *const *names;
	const double *lasso;       /* |standardized coefficient|, or NULL */
	const double *lengthscale; /* GP length-scales (unit cube), or NULL */
	int width;
	int height; /* grown to fit n rows */
} ImportancePlot;

/* A heat map of a symmetric matrix of correlations in [-1, 1]. */
typedef struct HeatmapPlot
{
	const char *title;
	int n;
	const char *const *names;
	const double *matrix; /* n x n, row-major; NaN: not learned */
	int width;
	int height;
} HeatmapPlot;

extern TunerErrorCode plot_convergence(const ConvergencePlot *p, char **out,
									   TunerStatus *status);
extern TunerErrorCode plot_slice(const SlicePlot *p, char **out,
								 TunerStatus *status);
extern TunerErrorCode plot_pareto(const ParetoPlot *p, char **out,
								  TunerStatus *status);
extern TunerErrorCode plot_importance(const ImportancePlot *p, char **out,
									  TunerStatus *status);
extern TunerErrorCode plot_heatmap(const HeatmapPlot *p, char **out,
								   TunerStatus *status);

/*
 * Mark the non-dominated points of n (x, y) pairs in front (1 or 0) and
 * return how many there are: a point is dominated when another is at
 * least as good in both and better in one.
 */
extern int pareto_front_mask(int n, const double *x, const double *y,
							 int x_minimize, int y_minimize, int *front);

#endif /* TUNER_PLOT_H */
