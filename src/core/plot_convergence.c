/*
 * plot_convergence.c
 *	  The convergence plot: every complete trial's objective and the best
 *	  value so far against the trial number, the default configuration's
 *	  value as a dashed reference line, failed trials as crosses along the
 *	  bottom of the plot area.
 */
#include <math.h>
#include <stdio.h>

#include "plot.h"
#include "plot_frame.h"

/* Check the input of a convergence plot. */
static TunerErrorCode
check(const ConvergencePlot *p, TunerStatus *status)
{
	int i;

	if (p->n < 1)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "a convergence plot needs a complete trial");
	if (plot_check_size(p->width, p->height, status) != TUNER_OK ||
		plot_check_finite(p->number, p->n, "trial number", status) !=
			TUNER_OK ||
		plot_check_finite(p->value, p->n, "objective value", status) !=
			TUNER_OK ||
		plot_check_finite(p->failed_number, p->n_failed, "failed trial number",
						  status) != TUNER_OK)
		return status->code;
	if (p->has_default && !isfinite(p->default_value))
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "the default value is not a finite number");
	if (!p->log_y)
		return TUNER_OK;
	for (i = 0; i < p->n; i++)
		if (p->value[i] <= 0.0)
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "a log axis needs positive values, but trial "
							  "%.0f has %g",
							  p->number[i], p->value[i]);
	if (p->has_default && p->default_value <= 0.0)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "a log axis needs positive values, but the "
						  "default has %g",
						  p->default_value);
	return TUNER_OK;
}

/* Draw a convergence plot. */
TunerErrorCode
plot_convergence(const ConvergencePlot *p, char **out, TunerStatus *status)
{
	SvgBuf buf;
	PlotFrame f;
	char tip[96];
	double x_lo;
	double x_hi;
	double y_lo;
	double y_hi;
	double best;
	int i;

	*out = NULL;
	if (check(p, status) != TUNER_OK)
		return status->code;
	x_lo = x_hi = p->number[0];
	y_lo = y_hi = p->value[0];
	for (i = 0; i < p->n; i++)
	{
		x_lo = fmin(x_lo, p->number[i]);
		x_hi = fmax(x_hi, p->number[i]);
		y_lo = fmin(y_lo, p->value[i]);
		y_hi = fmax(y_hi, p->value[i]);
	}
	for (i = 0; i < p->n_failed; i++)
	{
		x_lo = fmin(x_lo, p->failed_number[i]);
		x_hi = fmax(x_hi, p->failed_number[i]);
	}
	if (p->has_default)
	{
		y_lo = fmin(y_lo, p->default_value);
		y_hi = fmax(y_hi, p->default_value);
	}

	svg_init(&buf);
	svg_begin(&buf, p->width, p->height);
	plot_frame_init(&f, p->width, p->height, x_lo, x_hi, 0, y_lo, y_hi,
					p->log_y);
	f.x_integer = 1;
	plot_frame_draw(&buf, &f, p->title, "trial", p->y_label);

	if (p->has_default)
	{
		double py = plot_frame_y(&f, p->default_value);

		svg_line(&buf, f.left, py, f.right, py, PLOT_GREY, 1.5, "6 4");
	}

	/* best so far, as a step line */
	svg_polyline_begin(&buf, PLOT_RED, 2.0, NULL);
	best = p->value[0];
	for (i = 0; i < p->n; i++)
	{
		double px = plot_frame_x(&f, p->number[i]);
		int better = p->minimize ? p->value[i] < best : p->value[i] > best;

		if (i > 0)
			svg_polyline_point(&buf, px, plot_frame_y(&f, best));
		if (better)
			best = p->value[i];
		svg_polyline_point(&buf, px, plot_frame_y(&f, best));
	}
	svg_polyline_point(&buf, f.right, plot_frame_y(&f, best));
	svg_polyline_end(&buf);

	svg_printf(&buf, "<g class=\"trials\">\n");
	for (i = 0; i < p->n; i++)
	{
		snprintf(tip, sizeof(tip), "trial %.0f: %.6g", p->number[i],
				 p->value[i]);
		svg_circle(&buf, plot_frame_x(&f, p->number[i]),
				   plot_frame_y(&f, p->value[i]), 3.5, PLOT_BLUE, NULL, tip);
	}
	svg_printf(&buf, "</g>\n<g class=\"failed\">\n");
	for (i = 0; i < p->n_failed; i++)
	{
		snprintf(tip, sizeof(tip), "trial %.0f failed", p->failed_number[i]);
		plot_cross(&buf, plot_frame_x(&f, p->failed_number[i]), f.bottom - 8.0,
				   4.0, PLOT_RED, tip);
	}
	svg_printf(&buf, "</g>\n");

	plot_legend(&buf, &f, PLOT_MARK_POINT, PLOT_BLUE, "trial");
	plot_legend(&buf, &f, PLOT_MARK_LINE, PLOT_RED, "best so far");
	if (p->has_default)
		plot_legend(&buf, &f, PLOT_MARK_DASH, PLOT_GREY, "default");
	if (p->n_failed > 0)
		plot_legend(&buf, &f, PLOT_MARK_CROSS, PLOT_RED, "failed");
	svg_end(&buf);
	return svg_finish(&buf, out, status);
}
