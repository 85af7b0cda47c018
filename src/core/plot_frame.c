/*
 * plot_frame.c
 *	  The frame of the x-y plots: layout, grid, ticks, labels, legend (see
 *	  plot_frame.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plot_frame.h"

#define MARGIN_LEFT   84.0
#define MARGIN_RIGHT  24.0
#define MARGIN_TOP    48.0
#define MARGIN_BOTTOM 58.0
#define TICK_FONT     11.0
#define LABEL_FONT    13.0
#define TITLE_FONT    15.0

/* Lay out the frame. */
void
plot_frame_init(PlotFrame *f, int width, int height, double x_lo, double x_hi,
				int x_log, double y_lo, double y_hi, int y_log)
{
	memset(f, 0, sizeof(*f));
	f->width = width;
	f->height = height;
	f->left = MARGIN_LEFT;
	f->right = width - MARGIN_RIGHT;
	f->top = MARGIN_TOP;
	f->bottom = height - MARGIN_BOTTOM;
	plot_scale_domain(&f->x, x_lo, x_hi, x_log, 0.04);
	plot_scale_domain(&f->y, y_lo, y_hi, y_log, 0.06);
	f->x.px0 = f->left;
	f->x.px1 = f->right;
	f->y.px0 = f->bottom; /* y grows upwards */
	f->y.px1 = f->top;
}

/* A categorical x axis: labels at 0 .. n-1. */
void
plot_frame_categories(PlotFrame *f, const char *const *labels, int n)
{
	f->x_categories = labels;
	f->n_x_categories = n;
	f->x.log = 0;
	f->x.lo = -0.5;
	f->x.hi = n - 0.5;
}

double
plot_frame_x(const PlotFrame *f, double x)
{
	return plot_scale_px(&f->x, x);
}

double
plot_frame_y(const PlotFrame *f, double y)
{
	return plot_scale_px(&f->y, y);
}

/* The x ticks: categories, or nice ticks (integers only if asked). */
static int
x_ticks(const PlotFrame *f, double *ticks, double *step)
{
	int n;
	int i;
	int kept = 0;

	if (f->x_categories != NULL)
	{
		for (i = 0; i < f->n_x_categories && i < PLOT_MAX_TICKS; i++)
			ticks[i] = i;
		*step = 1.0;
		return i;
	}
	n = plot_scale_ticks(&f->x, 8, ticks, PLOT_MAX_TICKS);
	*step = plot_nice_step(f->x.lo, f->x.hi, 8);
	if (!f->x_integer)
		return n;
	for (i = 0; i < n; i++)
		if (ticks[i] == floor(ticks[i]))
			ticks[kept++] = ticks[i];
	if (*step < 1.0)
		*step = 1.0;
	return kept;
}

/* Draw the frame. */
void
plot_frame_draw(SvgBuf *buf, const PlotFrame *f, const char *title,
				const char *x_label, const char *y_label)
{
	double ticks[PLOT_MAX_TICKS];
	double step;
	char label[64];
	int n;
	int i;

	svg_text(buf, f->width / 2.0, 28.0, SVG_MIDDLE, TITLE_FONT, 0, PLOT_INK,
			 title, 90);

	/* y grid, ticks and labels */
	n = plot_scale_ticks(&f->y, 6, ticks, PLOT_MAX_TICKS);
	step = plot_nice_step(f->y.lo, f->y.hi, 6);
	svg_printf(buf, "<g class=\"y-ticks\">\n");
	for (i = 0; i < n; i++)
	{
		double py = plot_frame_y(f, ticks[i]);

		svg_line(buf, f->left, py, f->right, py, "#e6e6e6", 1.0, NULL);
		svg_line(buf, f->left - 5, py, f->left, py, PLOT_INK, 1.0, NULL);
		plot_tick_label(ticks[i], step, f->y.log, label, sizeof(label));
		svg_text(buf, f->left - 8, py + 4, SVG_END, TICK_FONT, 0, PLOT_INK,
				 label, 0);
	}
	svg_printf(buf, "</g>\n");

	/* x grid, ticks and labels */
	n = x_ticks(f, ticks, &step);
	svg_printf(buf, "<g class=\"x-ticks\">\n");
	for (i = 0; i < n; i++)
	{
		double px = plot_frame_x(f, ticks[i]);

		svg_line(buf, px, f->top, px, f->bottom, "#e6e6e6", 1.0, NULL);
		svg_line(buf, px, f->bottom, px, f->bottom + 5, PLOT_INK, 1.0, NULL);
		if (f->x_categories != NULL)
			svg_text(buf, px, f->bottom + 18, SVG_MIDDLE, TICK_FONT, 0,
					 PLOT_INK, f->x_categories[i], 16);
		else
		{
			plot_tick_label(ticks[i], step, f->x.log, label, sizeof(label));
			svg_text(buf, px, f->bottom + 18, SVG_MIDDLE, TICK_FONT, 0,
					 PLOT_INK, label, 0);
		}
	}
	svg_printf(buf, "</g>\n");

	svg_rect(buf, f->left, f->top, f->right - f->left, f->bottom - f->top,
			 "none", PLOT_INK);
	svg_text(buf, (f->left + f->right) / 2.0, f->height - 14.0, SVG_MIDDLE,
			 LABEL_FONT, 0, PLOT_INK, x_label, PLOT_LABEL_CHARS);
	svg_text(buf, 20.0, (f->top + f->bottom) / 2.0, SVG_MIDDLE, LABEL_FONT,
			 -90.0, PLOT_INK, y_label, PLOT_LABEL_CHARS);
}

/* An x mark. */
void
plot_cross(SvgBuf *buf, double px, double py, double r, const char *colour,
		   const char *tooltip)
{
	svg_printf(buf,
			   "<path d=\"M%.2f %.2fL%.2f %.2fM%.2f %.2fL%.2f %.2f\" "
			   "stroke=\"%s\" stroke-width=\"2\" fill=\"none\">",
			   px - r, py - r, px + r, py + r, px - r, py + r, px + r, py - r,
			   colour);
	if (tooltip != NULL)
	{
		svg_printf(buf, "<title>");
		svg_escape(buf, tooltip, 0);
		svg_printf(buf, "</title>");
	}
	svg_printf(buf, "</path>\n");
}

/* One legend entry, stacked down from the top right of the plot area. */
void
plot_legend(SvgBuf *buf, PlotFrame *f, int mark, const char *colour,
			const char *label)
{
	double y = f->top + 16.0 + 18.0 * f->legend_entries;
	double x = f->right - 150.0;

	svg_rect(buf, x - 8, y - 12, 154, 18, "#ffffff", NULL);
	switch (mark)
	{
		case PLOT_MARK_POINT:
			svg_circle(buf, x + 10, y - 3, 4, colour, NULL, NULL);
			break;
		case PLOT_MARK_LINE:
			svg_line(buf, x, y - 3, x + 20, y - 3, colour, 2.0, NULL);
			break;
		case PLOT_MARK_DASH:
			svg_line(buf, x, y - 3, x + 20, y - 3, colour, 1.5, "6 4");
			break;
		default:
			plot_cross(buf, x + 10, y - 3, 4, colour, NULL);
			break;
	}
	svg_text(buf, x + 28, y + 1, SVG_START, TICK_FONT, 0, PLOT_INK, label, 20);
	f->legend_entries++;
}

/* "name (unit)". */
void
plot_axis_label(const char *name, const char *unit, char *out, int size)
{
	if (unit != NULL && unit[0] != '\0')
		snprintf(out, size, "%s (%s)", name, unit);
	else
		snprintf(out, size, "%s", name);
}

/* Check the size of a plot. */
TunerErrorCode
plot_check_size(int width, int height, TunerStatus *status)
{
	if (width < PLOT_MIN_SIZE || width > PLOT_MAX_SIZE ||
		height < PLOT_MIN_SIZE || height > PLOT_MAX_SIZE)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "the plot size %d x %d is outside %d .. %d pixels",
						  width, height, PLOT_MIN_SIZE, PLOT_MAX_SIZE);
	return TUNER_OK;
}

/* Check that n values are finite. */
TunerErrorCode
plot_check_finite(const double *values, int n, const char *what,
				  TunerStatus *status)
{
	int i;

	for (i = 0; i < n; i++)
		if (!isfinite(values[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "%s %d is not a finite number", what, i + 1);
	return TUNER_OK;
}
