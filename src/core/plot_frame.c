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

/*
 * The legend: rows of LEGEND_ROW pixels, a mark of 20 pixels and the label
 * (font TICK_FONT, at most LEGEND_CHARS characters, each taken as
 * LEGEND_CHAR_PX wide, generously for DejaVu Sans), inside a white box
 * LEGEND_INSET pixels in from the plot area's edges; data within
 * LEGEND_CLEAR pixels of the box counts as under it.
 */
#define LEGEND_ROW     18.0
#define LEGEND_CHARS   20
#define LEGEND_CHAR_PX 6.6
#define LEGEND_PAD     6.0
#define LEGEND_INSET   6.0
#define LEGEND_CLEAR   2.0
#define LEGEND_STRIP_Y 38.0  /* the strip's top, below the title */
#define PLOT_AREA_MIN  100.0 /* pixels of plot area under a strip, at least */

/* The width of an entry's label. */
static double
label_px(const char *label)
{
	int n = svg_utf8_length(label);

	return LEGEND_CHAR_PX * (n > LEGEND_CHARS ? LEGEND_CHARS : n);
}

/* The width of an entry: mark, gap, label. */
static double
entry_px(const PlotLegendEntry *e)
{
	return 20.0 + 8.0 + label_px(e->label);
}

/* Declare a legend entry. */
void
plot_legend_add(PlotFrame *f, int mark, const char *colour, const char *label)
{
	PlotLegendEntry *e;

	if (f->legend_entries >= PLOT_LEGEND_MAX)
		return;
	e = &f->legend[f->legend_entries++];
	e->mark = mark;
	e->colour = colour;
	e->label = label;
}

/*
 * Lay the legend out: a box in one of the plot area's corners, or a strip
 * of entries side by side (wrapping) above it, the plot area moving down.
 */
void
plot_frame_legend_layout(PlotFrame *f, int outside)
{
	int i;

	f->legend_outside = outside;
	memset(f->blocked, 0, sizeof(f->blocked));
	if (f->legend_entries == 0)
		return;
	if (outside)
	{
		double width = f->right - f->left;
		double x = 0.0;
		int rows = 1;

		for (i = 0; i < f->legend_entries; i++)
		{
			double w = entry_px(&f->legend[i]) + 16.0;

			if (x > 0.0 && x + w > width)
			{
				rows++;
				x = 0.0;
			}
			x += w;
		}
		f->legend_x = f->left;
		f->legend_y = LEGEND_STRIP_Y;
		f->legend_w = width;
		f->legend_h = rows * LEGEND_ROW + 4.0;
		f->top = fmax(f->top, f->legend_y + f->legend_h + 8.0);
		f->y.px1 = f->top;
		/* a small canvas grows to keep a plot area under the strip */
		if (f->bottom - f->top < PLOT_AREA_MIN)
		{
			double grow = ceil(PLOT_AREA_MIN - (f->bottom - f->top));

			f->height += (int)grow;
			f->bottom += grow;
			f->y.px0 = f->bottom;
		}
		return;
	}
	f->legend_w = 0.0;
	for (i = 0; i < f->legend_entries; i++)
		f->legend_w = fmax(f->legend_w, entry_px(&f->legend[i]));
	f->legend_w += 2.0 * LEGEND_PAD;
	f->legend_h = f->legend_entries * LEGEND_ROW + 2.0 * LEGEND_PAD - 4.0;
	/* top right, top left, bottom right, bottom left */
	f->corner_x[0] = f->corner_x[2] = f->right - LEGEND_INSET - f->legend_w;
	f->corner_x[1] = f->corner_x[3] = f->left + LEGEND_INSET;
	f->corner_y[0] = f->corner_y[1] = f->top + LEGEND_INSET;
	f->corner_y[2] = f->corner_y[3] = f->bottom - LEGEND_INSET - f->legend_h;
	/* a box wider or taller than the plot area has no free corner */
	if (f->legend_w + 2.0 * LEGEND_INSET > f->right - f->left ||
		f->legend_h + 2.0 * LEGEND_INSET > f->bottom - f->top)
		for (i = 0; i < 4; i++)
			f->blocked[i] = 1;
}

/* The box of corner k, grown by the clearance: x0, y0, x1, y1. */
static void
corner_box(const PlotFrame *f, int k, double *box)
{
	box[0] = f->corner_x[k] - LEGEND_CLEAR;
	box[1] = f->corner_y[k] - LEGEND_CLEAR;
	box[2] = f->corner_x[k] + f->legend_w + LEGEND_CLEAR;
	box[3] = f->corner_y[k] + f->legend_h + LEGEND_CLEAR;
}

/* Note data over the rectangle (x0, y0) - (x1, y1). */
void
plot_frame_block(PlotFrame *f, double x0, double y0, double x1, double y1)
{
	double box[4];
	int k;

	if (f->legend_outside || f->legend_entries == 0)
		return;
	for (k = 0; k < 4; k++)
	{
		corner_box(f, k, box);
		if (fmin(x0, x1) <= box[2] && fmax(x0, x1) >= box[0] &&
			fmin(y0, y1) <= box[3] && fmax(y0, y1) >= box[1])
			f->blocked[k] = 1;
	}
}

/*
 * Whether the segment crosses the box (Liang-Barsky: clip the segment's
 * parameter range [0, 1] by each of the four edges).
 */
static int
segment_hits(double x0, double y0, double x1, double y1, const double *box)
{
	double p[4];
	double q[4];
	double t0 = 0.0;
	double t1 = 1.0;
	int i;

	p[0] = -(x1 - x0);
	q[0] = x0 - box[0];
	p[1] = x1 - x0;
	q[1] = box[2] - x0;
	p[2] = -(y1 - y0);
	q[2] = y0 - box[1];
	p[3] = y1 - y0;
	q[3] = box[3] - y0;
	for (i = 0; i < 4; i++)
	{
		double t;

		if (p[i] == 0.0)
		{
			if (q[i] < 0.0)
				return 0;
			continue;
		}
		t = q[i] / p[i];
		if (p[i] < 0.0)
		{
			if (t > t1)
				return 0;
			t0 = fmax(t0, t);
		}
		else
		{
			if (t < t0)
				return 0;
			t1 = fmin(t1, t);
		}
	}
	return 1;
}

/* Note data along the segment (x0, y0) - (x1, y1). */
void
plot_frame_block_segment(PlotFrame *f, double x0, double y0, double x1,
						 double y1)
{
	double box[4];
	int k;

	if (f->legend_outside || f->legend_entries == 0)
		return;
	for (k = 0; k < 4; k++)
	{
		corner_box(f, k, box);
		if (segment_hits(x0, y0, x1, y1, box))
			f->blocked[k] = 1;
	}
}

/* A data point: a circle (its stroke included in what it covers). */
void
plot_point(SvgBuf *buf, PlotFrame *f, double px, double py, double r,
		   const char *fill, const char *stroke, const char *tooltip)
{
	svg_circle(buf, px, py, r, fill, stroke, tooltip);
	plot_frame_block(f, px - r - 1.0, py - r - 1.0, px + r + 1.0,
					 py + r + 1.0);
}

/* A data cross. */
void
plot_mark_cross(SvgBuf *buf, PlotFrame *f, double px, double py, double r,
				const char *colour, const char *tooltip)
{
	plot_cross(buf, px, py, r, colour, tooltip);
	plot_frame_block(f, px - r - 1.0, py - r - 1.0, px + r + 1.0,
					 py + r + 1.0);
}

/* Start a data polyline. */
void
plot_line_begin(SvgBuf *buf, PlotFrame *f, const char *stroke, double width,
				const char *dash)
{
	svg_polyline_begin(buf, stroke, width, dash);
	f->line_open = 0;
}

/* One point of a data polyline. */
void
plot_line_point(SvgBuf *buf, PlotFrame *f, double px, double py)
{
	svg_polyline_point(buf, px, py);
	if (f->line_open)
		plot_frame_block_segment(f, f->line_x, f->line_y, px, py);
	else
		plot_frame_block(f, px - 1.0, py - 1.0, px + 1.0, py + 1.0);
	f->line_open = 1;
	f->line_x = px;
	f->line_y = py;
}

/* End a data polyline. */
void
plot_line_end(SvgBuf *buf, PlotFrame *f, const char *tooltip)
{
	svg_polyline_end(buf, tooltip);
	f->line_open = 0;
}

/* One entry's mark and label, the entry's top left at (x, y). */
static void
legend_entry(SvgBuf *buf, const PlotLegendEntry *e, double x, double y)
{
	double my = y + 9.0; /* the mark's middle */

	switch (e->mark)
	{
		case PLOT_MARK_POINT:
			svg_circle(buf, x + 10, my, 4, e->colour, NULL, NULL);
			break;
		case PLOT_MARK_RING:
			svg_circle(buf, x + 10, my, 3.5, "#ffffff", e->colour, NULL);
			break;
		case PLOT_MARK_LINE:
			svg_line(buf, x, my, x + 20, my, e->colour, 2.0, NULL);
			break;
		case PLOT_MARK_DASH:
			svg_line(buf, x, my, x + 20, my, e->colour, 1.5, "6 4");
			break;
		default:
			plot_cross(buf, x + 10, my, 4, e->colour, NULL);
			break;
	}
	svg_text(buf, x + 28, y + 13, SVG_START, TICK_FONT, 0, PLOT_INK, e->label,
			 LEGEND_CHARS);
}

/* Draw the legend where it covers no data. */
int
plot_legend_draw(SvgBuf *buf, const PlotFrame *f)
{
	int k;
	int i;

	if (f->legend_entries == 0)
		return 1;
	if (f->legend_outside)
	{
		double x = 0.0;
		double y = f->legend_y + 2.0;

		svg_printf(buf, "<g class=\"legend\">\n");
		svg_rect(buf, f->legend_x, f->legend_y, f->legend_w, f->legend_h,
				 "#ffffff", NULL);
		for (i = 0; i < f->legend_entries; i++)
		{
			double w = entry_px(&f->legend[i]) + 16.0;

			if (x > 0.0 && x + w > f->legend_w)
			{
				x = 0.0;
				y += LEGEND_ROW;
			}
			legend_entry(buf, &f->legend[i], f->legend_x + x, y);
			x += w;
		}
		svg_printf(buf, "</g>\n");
		return 1;
	}
	for (k = 0; k < 4 && f->blocked[k]; k++)
		;
	if (k == 4)
		return 0;
	svg_printf(buf, "<g class=\"legend\">\n");
	svg_rect(buf, f->corner_x[k], f->corner_y[k], f->legend_w, f->legend_h,
			 "#ffffff", "#e6e6e6");
	for (i = 0; i < f->legend_entries; i++)
		legend_entry(buf, &f->legend[i], f->corner_x[k] + LEGEND_PAD,
					 f->corner_y[k] + LEGEND_PAD - 2.0 + LEGEND_ROW * i);
	svg_printf(buf, "</g>\n");
	return 1;
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
