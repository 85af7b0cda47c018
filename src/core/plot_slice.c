/*
 * plot_slice.c
 *	  The slice plot: the objective of every complete trial against one
 *	  parameter, on a log axis when the parameter is log-scaled, or against
 *	  its labels when it is categorical; the best trial is highlighted.
 */
#include <math.h>
#include <stdio.h>

#include "plot.h"
#include "plot_frame.h"

/* Check the input of a slice plot. */
static TunerErrorCode
check(const SlicePlot *p, TunerStatus *status)
{
	int i;

	if (p->n < 1)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "a slice plot needs a complete trial");
	if (plot_check_size(p->width, p->height, status) != TUNER_OK ||
		plot_check_finite(p->x, p->n, "parameter value", status) != TUNER_OK ||
		plot_check_finite(p->y, p->n, "objective value", status) != TUNER_OK)
		return status->code;
	for (i = 0; i < p->n; i++)
	{
		if (p->x_log && p->x[i] <= 0.0)
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "a log axis needs positive values, but "
							  "parameter value %d is %g",
							  i + 1, p->x[i]);
		if (p->log_y && p->y[i] <= 0.0)
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "a log axis needs positive values, but "
							  "objective value %d is %g",
							  i + 1, p->y[i]);
		if (p->categories != NULL &&
			(p->x[i] < 0 || p->x[i] >= p->n_categories ||
			 p->x[i] != floor(p->x[i])))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "category index %g is not one of the %d "
							  "labels",
							  p->x[i], p->n_categories);
	}
	return TUNER_OK;
}

/* Draw a slice plot. */
TunerErrorCode
plot_slice(const SlicePlot *p, char **out, TunerStatus *status)
{
	SvgBuf buf;
	PlotFrame f;
	char tip[96];
	double x_lo;
	double x_hi;
	double y_lo;
	double y_hi;
	int best = 0;
	int i;

	*out = NULL;
	if (check(p, status) != TUNER_OK)
		return status->code;
	x_lo = x_hi = p->x[0];
	y_lo = y_hi = p->y[0];
	for (i = 0; i < p->n; i++)
	{
		x_lo = fmin(x_lo, p->x[i]);
		x_hi = fmax(x_hi, p->x[i]);
		y_lo = fmin(y_lo, p->y[i]);
		y_hi = fmax(y_hi, p->y[i]);
		if (p->minimize ? p->y[i] < p->y[best] : p->y[i] > p->y[best])
			best = i;
	}

	svg_init(&buf);
	svg_begin(&buf, p->width, p->height);
	plot_frame_init(&f, p->width, p->height, x_lo, x_hi, p->x_log, y_lo, y_hi,
					p->log_y);
	if (p->categories != NULL)
		plot_frame_categories(&f, p->categories, p->n_categories);
	plot_frame_draw(&buf, &f, p->title, p->x_label, p->y_label);

	svg_printf(&buf, "<g class=\"trials\">\n");
	for (i = 0; i < p->n; i++)
	{
		if (p->categories != NULL)
			snprintf(tip, sizeof(tip), "trial %.0f: %.6g", p->number[i],
					 p->y[i]);
		else
			snprintf(tip, sizeof(tip), "trial %.0f: %.6g at %.6g",
					 p->number[i], p->y[i], p->x[i]);
		svg_circle(&buf, plot_frame_x(&f, p->x[i]), plot_frame_y(&f, p->y[i]),
				   i == best ? 5.5 : 3.5, i == best ? PLOT_RED : PLOT_BLUE,
				   NULL, tip);
	}
	svg_printf(&buf, "</g>\n");
	plot_legend(&buf, &f, PLOT_MARK_POINT, PLOT_BLUE, "trial");
	plot_legend(&buf, &f, PLOT_MARK_POINT, PLOT_RED, "best trial");
	svg_end(&buf);
	return svg_finish(&buf, out, status);
}
