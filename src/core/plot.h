/*
 * plot.h
 *	  The plots of a study, drawn as standalone SVG from plain arrays (the
 *	  SQL side gathers them): one function per kind, each in its own file
 *	  (plot_convergence.c, plot_slice.c, plot_pareto.c, plot_importance.c,
 *	  plot_heatmap.c, plot_progress.c).  Each checks its input, returns TUNER_OK and the SVG
 *	  text in *out (tuner_alloc'd, NUL-terminated), or an error in status.
 *	  Text (titles, labels, names) is escaped here.  No PostgreSQL here.
 */
#ifndef TUNER_PLOT_H
#define TUNER_PLOT_H

#include <stdint.h>

#include "tuner_status.h"

/*
 * Objective of each complete trial against its number, best so far.  A
 * trial that may not be the best (it broke an outcome constraint) is
 * drawn as a ring; the best so far is given (the SQL side's, tuner.best's
 * definition) or, without it, the running best of the feasible values.
 */
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
	const int *feasible;  /* NULL: every trial; else 0: broke a constraint */
	const double *best;   /* NULL, or the best so far at each trial (NaN:
						  * no feasible trial yet) */
	const int *disturbed; /* NULL: none; else 1: the machine was busy
						   * while the trial ran (tuner.trial.disturbed) */
	const char *x_label;  /* NULL: "trial" */
} ConvergencePlot;

/*
 * Objective against one parameter (numeric or categorical).  On a
 * categorical axis the trials of a label are spread across its column
 * (slots in an order drawn from each trial's number, the same every
 * time).  The best trial is the one numbered best_number when best_given
 * (none when it is NaN), else the best feasible value.
 */
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
	const int *feasible; /* NULL: every trial; else 0: broke a constraint */
	int best_given;
	double best_number;
} SlicePlot;

/*
 * Two metrics of every trial that has both; the Pareto front of the
 * feasible ones drawn (a trial that broke a constraint is never on it).
 */
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
	const int *feasible; /* NULL: every trial; else 0: broke a constraint */
} ParetoPlot;

/* Horizontal bars per parameter: Lasso and/or GP importance. */
typedef struct ImportancePlot
{
	const char *title;
	int n; /* parameters, top row first */
	const char *const *names;
	const double *lasso;       /* |standardized coefficient|, or NULL */
	const double *lengthscale; /* GP length-scales (unit cube), or NULL;
								* +Inf: a parameter the model left out */
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

/*
 * Intermediate results (tuner.trial_progress): one curve per trial, the
 * metric against the step.  A pruned trial's curve is dashed and ends in
 * a cross where it was stopped; a trial still running or that failed is
 * grey; a complete trial that ran while the machine was busy is orange.
 * Points come grouped by trial, steps ascending within a trial.
 */
#define PROGRESS_COMPLETE  0
#define PROGRESS_PRUNED    1
#define PROGRESS_OTHER     2 /* running, failed, interrupted */
#define PROGRESS_DISTURBED 3 /* complete; tuner.trial.disturbed */

typedef struct ProgressPlot
{
	const char *title;
	const char *x_label;
	const char *y_label;
	int n;                /* points (>= 1) */
	const double *number; /* trial number of each point */
	const double *step;
	const double *value;
	const int *state; /* per point, its trial's PROGRESS_* */
	int log_y;        /* values must be > 0 */
	int width;
	int height;
} ProgressPlot;

extern TunerErrorCode plot_progress(const ProgressPlot *p, char **out,
									TunerStatus *status);

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
 * least as good in both and better in one.  With feasible (else NULL),
 * only the points it marks compete: the others are never on the front.
 */
extern int pareto_front_mask(int n, const double *x, const double *y,
							 int x_minimize, int y_minimize,
							 const int *feasible, int *front);

/*
 * The x offset, in units of a category's column, of each of n points
 * drawn at a categorical x (category index in x, trial number in number):
 * the points of a category take evenly spaced slots across the middle
 * width of the column, in an order drawn from their numbers and seed.
 */
extern TunerErrorCode plot_category_offsets(int n, const double *x,
											const double *number, double width,
											uint64_t seed, double *offset,
											TunerStatus *status);

#endif /* TUNER_PLOT_H */
