/*
 * plot_frame.h
 *	  The frame shared by the x-y plots (convergence, slice, pareto): the
 *	  plot area inside fixed margins, the two scales, the grid, ticks and
 *	  their labels, the axis labels, the title and a legend.  An x axis may
 *	  be categorical (one tick per label at 0, 1, ...).
 *
 *	  The legend never covers data.  Its entries are declared before the
 *	  drawing (plot_legend_add, plot_frame_legend_layout), every data mark
 *	  is drawn through plot_point, plot_line_* or plot_mark_cross (or
 *	  declared with plot_frame_block*), which note the legend positions it
 *	  would fall under, and plot_legend_draw puts the legend in the first
 *	  free corner of the plot area: top right, top left, bottom right,
 *	  bottom left.  When every corner holds data it returns 0 and the plot
 *	  is drawn again with the legend in a strip above the plot area
 *	  (plot_frame_legend_layout(f, 1)), outside the data.  No PostgreSQL
 *	  here.
 */
#ifndef TUNER_PLOT_FRAME_H
#define TUNER_PLOT_FRAME_H

#include "plot_scale.h"
#include "svg.h"

/* Longest label drawn in full (characters); the rest is elided. */
#define PLOT_LABEL_CHARS 48

/* Colours of the plots (a colour-blind safe set). */
#define PLOT_BLUE   "#1f77b4"
#define PLOT_RED    "#d62728"
#define PLOT_GREY   "#7f7f7f"
#define PLOT_ORANGE "#ff7f0e"
#define PLOT_LIGHT  "#c7c7c7"
#define PLOT_INK    "#333333"

/* Legend marks. */
#define PLOT_MARK_POINT 0
#define PLOT_MARK_LINE  1
#define PLOT_MARK_DASH  2
#define PLOT_MARK_CROSS 3
#define PLOT_MARK_RING  4 /* a hollow circle */

/* Entries a legend holds at most. */
#define PLOT_LEGEND_MAX 6

typedef struct PlotLegendEntry
{
	int mark;
	const char *colour;
	const char *label;
} PlotLegendEntry;

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
	/* the legend: its entries, its place, the corners data falls into */
	int legend_entries;
	PlotLegendEntry legend[PLOT_LEGEND_MAX];
	int legend_outside; /* a strip above the plot area */
	double legend_w;    /* the box (or the strip) in pixels */
	double legend_h;
	double legend_x; /* the strip's top left */
	double legend_y;
	double corner_x[4]; /* top left of the box in each corner */
	double corner_y[4];
	int blocked[4]; /* data under the box in that corner */
	int line_open;  /* a polyline being drawn, and its last point */
	double line_x;
	double line_y;
} PlotFrame;

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

/*
 * Declare a legend entry (at most PLOT_LEGEND_MAX; label up to 20
 * characters), then lay the legend out (outside: in a strip above the
 * plot area, which moves down; a canvas too small for both grows, so
 * begin the SVG with f->height), both before plot_frame_draw.
 */
extern void plot_legend_add(PlotFrame *f, int mark, const char *colour,
							const char *label);
extern void plot_frame_legend_layout(PlotFrame *f, int outside);

/* Note data drawn over a pixel rectangle, or along a segment. */
extern void plot_frame_block(PlotFrame *f, double x0, double y0, double x1,
							 double y1);
extern void plot_frame_block_segment(PlotFrame *f, double x0, double y0,
									 double x1, double y1);

/* Data marks, noted for the legend: a circle, a cross, a polyline. */
extern void plot_point(SvgBuf *buf, PlotFrame *f, double px, double py,
					   double r, const char *fill, const char *stroke,
					   const char *tooltip);
extern void plot_mark_cross(SvgBuf *buf, PlotFrame *f, double px, double py,
							double r, const char *colour, const char *tooltip);
extern void plot_line_begin(SvgBuf *buf, PlotFrame *f, const char *stroke,
							double width, const char *dash);
extern void plot_line_point(SvgBuf *buf, PlotFrame *f, double px, double py);
extern void plot_line_end(SvgBuf *buf, PlotFrame *f, const char *tooltip);

/*
 * Draw the legend (<g class="legend">, its box the group's first rect):
 * in its strip, or in the first corner no data fell into.  Returns 0,
 * drawing nothing, when the legend is inside and every corner holds data.
 */
extern int plot_legend_draw(SvgBuf *buf, const PlotFrame *f);

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
