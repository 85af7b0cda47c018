/*
 * plot_frame.h
 *	  The frame shared by the x-y plots (convergence, slice, pareto): the
 *	  plot area inside fixed margins, the two scales, the grid, ticks and
 *	  their labels, the axis labels, the title and a legend.  An x axis may
 *	  be categorical (one tick per label at 0, 1, ...).  No PostgreSQL here.
 */
#ifndef TUNER_PLOT_FRAME_H
#define TUNER_PLOT_FRAME_H

#include "plot_scale.h"
#include "svg.h"

/* Longest label drawn in full (characters); the rest is elided. */
#define PLOT_LABEL_CHARS 48

/* Colours of the plots (a colour-blind safe set). */
#define PLOT_BLUE  "#1f77b4"
#define PLOT_RED   "#d62728"
#define PLOT_GREY  "#7f7f7f"
#define PLOT_LIGHT "#c7c7c7"
#define PLOT_INK   "#333333"

typedef struct PlotFrame
{
	int width;
	int height;
	double left; /* the plot area, in pixels */
	double right;
	double top;
	double bottom;
	PlotScale x;
	PlotScale y;
	int x_integer;                   /* x ticks only at integers */
	const char *const *x_categories; /* NULL or labels of x = 0, 1, ... */
	int n_x_categories;
	int legend_entries; /* drawn so far */
} PlotFrame;

/* Legend marks. */
#define PLOT_MARK_POINT 0
#define PLOT_MARK_LINE  1
#define PLOT_MARK_DASH  2
#define PLOT_MARK_CROSS 3

/*
 * Lay out a frame of width x height pixels over the data ranges (padded);
 * a log axis needs lo > 0.
 */
extern void plot_frame_init(PlotFrame *f, int width, int height, double x_lo,
							double x_hi, int x_log, double y_lo, double y_hi,
							int y_log);

/* Make x categorical with n labels (at x = 0 .. n-1). */
extern void plot_frame_categories(PlotFrame *f, const char *const *labels,
								  int n);

/* Draw the title, grid, axes, ticks and axis labels. */
extern void plot_frame_draw(SvgBuf *buf, const PlotFrame *f, const char *title,
							const char *x_label, const char *y_label);

/* A data point's pixel position. */
extern double plot_frame_x(const PlotFrame *f, double x);
extern double plot_frame_y(const PlotFrame *f, double y);

/* A cross (x mark) centred at pixel (px, py). */
extern void plot_cross(SvgBuf *buf, double px, double py, double r,
					   const char *colour, const char *tooltip);

/* Add one entry to the legend in the plot area's top right corner. */
extern void plot_legend(SvgBuf *buf, PlotFrame *f, int mark,
						const char *colour, const char *label);

/*
 * Check a plot's size (PLOT_MIN_SIZE .. PLOT_MAX_SIZE pixels) and that its
 * n values are finite (what names them in the error).
 */
#define PLOT_MIN_SIZE 200
#define PLOT_MAX_SIZE 4000
extern TunerErrorCode plot_check_size(int width, int height,
									  TunerStatus *status);
extern TunerErrorCode plot_check_finite(const double *values, int n,
										const char *what, TunerStatus *status);

/* "name (unit)", or name when unit is NULL or empty, into out. */
extern void plot_axis_label(const char *name, const char *unit, char *out,
							int size);

#endif /* TUNER_PLOT_FRAME_H */
