/*
 * plot_importance.c
 *	  The importance plot: one row per parameter with a horizontal bar for
 *	  its Lasso importance (the size of its standardized coefficient) and/or
 *	  its GP importance (1 / length-scale in the unit cube: a short
 *	  length-scale means the objective changes quickly along it; a
 *	  parameter the model left out, disabled, has an infinite one: no bar
 *	  but "not in the model"), each
 *	  in a panel of its own with a scale from zero.
 */
#include <math.h>
#include <stdio.h>

#include "plot.h"
#include "plot_frame.h"

#define ROW_PX     24.0 /* at least, per parameter */
#define ROW_MAX_PX 48.0
#define TOP_PX     56.0
#define BOTTOM_PX  56.0
#define NAME_CHARS 32

/* One panel of bars over pixels [left, right]. */
typedef struct Panel
{
	const char *label;
	const double *value;
	int invert; /* bars show 1 / value */
	double left;
	double right;
} Panel;

/* A bar's length in data units. */
static double
bar_value(const Panel *panel, int i)
{
	return panel->invert ? 1.0 / panel->value[i] : panel->value[i];
}

/* Check the input of an importance plot. */
static TunerErrorCode
check(const ImportancePlot *p, TunerStatus *status)
{
	int i;

	if (p->n < 1)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "an importance plot needs a parameter");
	if (p->lasso == NULL && p->lengthscale == NULL)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "an importance plot needs Lasso importances or "
						  "length-scales");
	if (plot_check_size(p->width, p->height, status) != TUNER_OK)
		return status->code;
	for (i = 0; i < p->n; i++)
	{
		if (p->lasso != NULL && !(isfinite(p->lasso[i]) && p->lasso[i] >= 0))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "Lasso importance %d is not a finite number "
							  ">= 0",
							  i + 1);
		if (p->lengthscale != NULL && !(p->lengthscale[i] > 0))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "length-scale %d is not a number > 0", i + 1);
	}
	return TUNER_OK;
}

/* Draw one panel: scale, ticks, bars with their values, label. */
static void
draw_panel(SvgBuf *buf, const ImportancePlot *p, const Panel *panel,
		   double top, double bottom)
{
	PlotScale scale;
	double ticks[PLOT_MAX_TICKS];
	double max = 0.0;
	double step;
	char label[64];
	double row = (bottom - top) / p->n;
	int n;
	int i;

	for (i = 0; i < p->n; i++)
		max = fmax(max, bar_value(panel, i));
	if (!(max > 0.0))
		max = 1.0;
	scale.log = 0;
	scale.lo = 0.0;
	scale.hi = max * 1.12; /* room for the value after the longest bar */
	scale.px0 = panel->left;
	scale.px1 = panel->right;
	n = plot_scale_ticks(&scale, 4, ticks, PLOT_MAX_TICKS);
	step = plot_nice_step(scale.lo, scale.hi, 4);
	for (i = 0; i < n; i++)
	{
		double px = plot_scale_px(&scale, ticks[i]);

		svg_line(buf, px, top, px, bottom, "#e6e6e6", 1.0, NULL);
		plot_tick_label(ticks[i], step, 0, label, sizeof(label));
		svg_text(buf, px, bottom + 16, SVG_MIDDLE, 11, 0, PLOT_INK, label, 0);
	}
	svg_printf(buf, "<g class=\"bars\">\n");
	for (i = 0; i < p->n; i++)
	{
		double v = bar_value(panel, i);
		double y = top + row * i + row * 0.2;
		double w = plot_scale_px(&scale, v) - panel->left;

		if (panel->invert && isinf(panel->value[i]))
		{
			/* no length-scale: the model left the parameter out */
			svg_text(buf, panel->left + 4, y + row * 0.3 + 4, SVG_START, 10, 0,
					 PLOT_GREY, "not in the model", 0);
			continue;
		}
		svg_rect(buf, panel->left, y, w, row * 0.6,
				 panel->invert ? PLOT_ORANGE : PLOT_BLUE, NULL);
		snprintf(label, sizeof(label), "%.3g", v);
		svg_text(buf, panel->left + w + 4, y + row * 0.3 + 4, SVG_START, 10, 0,
				 PLOT_INK, label, 0);
	}
	svg_printf(buf, "</g>\n");
	svg_line(buf, panel->left, top, panel->left, bottom, PLOT_INK, 1.0, NULL);
	svg_line(buf, panel->left, bottom, panel->right, bottom, PLOT_INK, 1.0,
			 NULL);
	svg_text(buf, (panel->left + panel->right) / 2, bottom + 36, SVG_MIDDLE,
			 12, 0, PLOT_INK, panel->label, 0);
}

/* Draw an importance plot. */
TunerErrorCode
plot_importance(const ImportancePlot *p, char **out, TunerStatus *status)
{
	SvgBuf buf;
	Panel panels[2];
	int n_panels = 0;
	int height;
	int longest = 0;
	double names_px;
	double top = TOP_PX;
	double row;
	double bottom;
	double left;
	double panel_px;
	int i;

	*out = NULL;
	if (check(p, status) != TUNER_OK)
		return status->code;
	/* rows fill the height asked for, within limits; many rows grow it */
	row = fmin(ROW_MAX_PX,
			   fmax(ROW_PX, (p->height - TOP_PX - BOTTOM_PX) / p->n));
	bottom = top + row * p->n;
	height = (int)fmax(p->height, bottom + BOTTOM_PX);
	for (i = 0; i < p->n; i++)
	{
		int len = svg_utf8_length(p->names[i]);

		longest = len > longest ? len : longest;
	}
	if (longest > NAME_CHARS)
		longest = NAME_CHARS;
	names_px = fmin(16.0 + 7.0 * longest, p->width * 0.4);
	if (p->lasso != NULL)
		panels[n_panels++] =
			(Panel){"Lasso: |standardized coefficient|", p->lasso, 0, 0, 0};
	if (p->lengthscale != NULL)
		panels[n_panels++] = (Panel){"GP: 1 / length-scale (unit cube)",
									 p->lengthscale, 1, 0, 0};
	left = names_px;
	panel_px = (p->width - names_px - 20.0 - 30.0 * (n_panels - 1)) / n_panels;
	for (i = 0; i < n_panels; i++)
	{
		panels[i].left = left;
		panels[i].right = left + panel_px;
		left += panel_px + 30.0;
	}

	svg_init(&buf);
	svg_begin(&buf, p->width, height);
	svg_text(&buf, p->width / 2.0, 28.0, SVG_MIDDLE, 15, 0, PLOT_INK, p->title,
			 90);
	svg_printf(&buf, "<g class=\"names\">\n");
	for (i = 0; i < p->n; i++)
		svg_text(&buf, names_px - 8, top + row * (i + 0.5) + 4, SVG_END, 11, 0,
				 PLOT_INK, p->names[i], NAME_CHARS);
	svg_printf(&buf, "</g>\n");
	for (i = 0; i < n_panels; i++)
		draw_panel(&buf, p, &panels[i], top, bottom);
	svg_end(&buf);
	return svg_finish(&buf, out, status);
}
