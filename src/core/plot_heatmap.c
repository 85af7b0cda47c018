/*
 * plot_heatmap.c
 *	  The heat map of a correlation matrix (a multi-task model's learned
 *	  task correlations): square cells coloured on a diverging scale, blue
 *	  at -1, white at 0, red at +1, each with its value, and a colour bar.
 *	  A NaN is a pair the model did not learn (a clustered model pairs the
 *	  objective with each cluster's metric only): a grey cell marked "n/a".
 */
#include <math.h>
#include <stdio.h>

#include "plot.h"
#include "plot_frame.h"

#define NAME_CHARS 20

/* The colour of a correlation in [-1, 1] as #rrggbb. */
static void
diverging(double v, char *out, int size)
{
	/* #2166ac at -1, #f7f7f7 at 0, #b2182b at +1 (ColorBrewer RdBu) */
	static const double neg[3] = {0x21, 0x66, 0xac};
	static const double mid[3] = {0xf7, 0xf7, 0xf7};
	static const double pos[3] = {0xb2, 0x18, 0x2b};
	const double *end = v < 0 ? neg : pos;
	double t = fmin(fabs(v), 1.0);
	int c[3];
	int k;

	for (k = 0; k < 3; k++)
		c[k] = (int)lround(mid[k] + t * (end[k] - mid[k]));
	snprintf(out, size, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* Check the input of a heat map. */
static TunerErrorCode
check(const HeatmapPlot *p, TunerStatus *status)
{
	int i;

	if (p->n < 1)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "a heat map needs at least one row");
	if (p->n > 100)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "a heat map of %d rows is too large (at most 100)",
						  p->n);
	if (plot_check_size(p->width, p->height, status) != TUNER_OK)
		return status->code;
	for (i = 0; i < p->n * p->n; i++)
		if (isinf(p->matrix[i]) || fabs(p->matrix[i]) > 1.0 + 1e-9)
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "correlation %g (row %d, column %d) is "
							  "outside [-1, 1]",
							  p->matrix[i], i / p->n + 1, i % p->n + 1);
	return TUNER_OK;
}

/* The colour bar from -1 to 1 at the right. */
static void
colour_bar(SvgBuf *buf, double x, double top, double height)
{
	char colour[8];
	char label[16];
	int steps = 40;
	int i;

	for (i = 0; i < steps; i++)
	{
		double v = 1.0 - 2.0 * (i + 0.5) / steps;

		diverging(v, colour, sizeof(colour));
		svg_rect(buf, x, top + height * i / steps, 16, height / steps + 0.5,
				 colour, NULL);
	}
	svg_rect(buf, x, top, 16, height, "none", PLOT_INK);
	for (i = 0; i <= 4; i++)
	{
		double v = 1.0 - 0.5 * i;

		plot_tick_label(v, 0.5, 0, label, sizeof(label));
		svg_text(buf, x + 22, top + height * i / 4.0 + 4, SVG_START, 11, 0,
				 PLOT_INK, label, 0);
	}
}

/* Draw a heat map. */
TunerErrorCode
plot_heatmap(const HeatmapPlot *p, char **out, TunerStatus *status)
{
	SvgBuf buf;
	char colour[8];
	char label[16];
	double names_px;
	double cell;
	double top = 56.0;
	int longest = 0;
	int i;
	int j;

	*out = NULL;
	if (check(p, status) != TUNER_OK)
		return status->code;
	for (i = 0; i < p->n; i++)
	{
		int len = svg_utf8_length(p->names[i]);

		longest = len > longest ? len : longest;
	}
	if (longest > NAME_CHARS)
		longest = NAME_CHARS;
	names_px = fmin(16.0 + 7.0 * longest, p->width * 0.35);
	cell = fmin((p->width - names_px - 90.0) / p->n,
				(p->height - top - 60.0) / p->n);

	svg_init(&buf);
	svg_begin(&buf, p->width, p->height);
	svg_text(&buf, p->width / 2.0, 28.0, SVG_MIDDLE, 15, 0, PLOT_INK, p->title,
			 90);
	svg_printf(&buf, "<g class=\"cells\">\n");
	for (i = 0; i < p->n; i++)
		for (j = 0; j < p->n; j++)
		{
			double v = p->matrix[i * p->n + j];
			double x = names_px + cell * j;
			double y = top + cell * i;

			if (isnan(v))
			{
				svg_rect(&buf, x, y, cell, cell, "#d9d9d9", "#ffffff");
				svg_text(&buf, x + cell / 2, y + cell / 2 + 4, SVG_MIDDLE,
						 fmin(12.0, cell / 4), 0, PLOT_INK, "n/a", 0);
				continue;
			}
			diverging(v, colour, sizeof(colour));
			svg_rect(&buf, x, y, cell, cell, colour, "#ffffff");
			snprintf(label, sizeof(label), "%.2f", v);
			svg_text(&buf, x + cell / 2, y + cell / 2 + 4, SVG_MIDDLE,
					 fmin(12.0, cell / 4), 0,
					 fabs(v) > 0.6 ? "#ffffff" : PLOT_INK, label, 0);
		}
	svg_printf(&buf, "</g>\n<g class=\"names\">\n");
	for (i = 0; i < p->n; i++)
	{
		svg_text(&buf, names_px - 8, top + cell * (i + 0.5) + 4, SVG_END, 11,
				 0, PLOT_INK, p->names[i], NAME_CHARS);
		svg_text(&buf, names_px + cell * (i + 0.5), top + cell * p->n + 18,
				 SVG_MIDDLE, 11, 0, PLOT_INK, p->names[i],
				 (int)fmax(4.0, cell / 7.0));
	}
	svg_printf(&buf, "</g>\n");
	colour_bar(&buf, names_px + cell * p->n + 20, top, cell * p->n);
	svg_end(&buf);
	return svg_finish(&buf, out, status);
}
