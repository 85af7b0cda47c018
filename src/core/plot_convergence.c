/*
 * plot_convergence.c
 *	  The convergence plot: every complete trial's objective and the best
 *	  value so far against the trial number, the default configuration's
 *	  value as a dashed reference line, failed trials as crosses along the
 *	  bottom of the plot area, trials that broke an outcome constraint as
 *	  rings (never the best so far), trials run while the machine was busy
 *	  in orange, so a reader weighs them less.  The legend goes where no
 *	  data is (plot_frame.h).
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
	for (i = 0; p->best != NULL && i < p->n; i++)
		if (isinf(p->best[i]) || (p->log_y && p->best[i] <= 0.0))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "best so far %d is not a finite%s number or "
							  "NaN",
							  i + 1, p->log_y ? " positive" : "");
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

/* The best so far at each trial: given, or the feasible values' running best. */
static void
best_so_far(const ConvergencePlot *p, double *best)
{
	double b = NAN;
	int i;

	for (i = 0; i < p->n; i++)
	{
		if (p->best != NULL)
			b = p->best[i];
		else if (p->feasible == NULL || p->feasible[i])
		{
			if (isnan(b) || (p->minimize ? p->value[i] < b : p->value[i] > b))
				b = p->value[i];
		}
		best[i] = b;
	}
}

/*
 * Draw the plot once, its legend inside the plot area or (outside) in a
 * strip above it; returns 0 when inside found no free corner.
 */
static int
draw(const ConvergencePlot *p, const double *best, int outside, SvgBuf *buf)
{
	PlotFrame f;
	char tip[128];
	double x_lo;
	double x_hi;
	double y_lo;
	double y_hi;
	int n_infeasible = 0;
	int n_disturbed = 0;
	int first = -1;
	int i;

	x_lo = x_hi = p->number[0];
	y_lo = y_hi = p->value[0];
	for (i = 0; i < p->n; i++)
	{
		x_lo = fmin(x_lo, p->number[i]);
		x_hi = fmax(x_hi, p->number[i]);
		y_lo = fmin(y_lo, p->value[i]);
		y_hi = fmax(y_hi, p->value[i]);
		if (p->feasible != NULL && !p->feasible[i])
			n_infeasible++;
		if (p->disturbed != NULL && p->disturbed[i])
			n_disturbed++;
		if (first < 0 && !isnan(best[i]))
			first = i;
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

	plot_frame_init(&f, p->width, p->height, x_lo, x_hi, 0, y_lo, y_hi,
					p->log_y);
	f.x_integer = 1;
	plot_legend_add(&f, PLOT_MARK_POINT, PLOT_BLUE, "trial");
	if (n_infeasible > 0)
		plot_legend_add(&f, PLOT_MARK_RING, PLOT_BLUE, "broke a constraint");
	if (n_disturbed > 0)
		plot_legend_add(&f, PLOT_MARK_POINT, PLOT_ORANGE, "disturbed");
	if (first >= 0)
		plot_legend_add(&f, PLOT_MARK_LINE, PLOT_RED, "best so far");
	if (p->has_default)
		plot_legend_add(&f, PLOT_MARK_DASH, PLOT_GREY, "default");
	if (p->n_failed > 0)
		plot_legend_add(&f, PLOT_MARK_CROSS, PLOT_RED, "failed");
	plot_frame_legend_layout(&f, outside);

	svg_begin(buf, f.width, f.height);
	plot_frame_draw(buf, &f, p->title, p->x_label ? p->x_label : "trial",
					p->y_label);

	if (p->has_default)
	{
		double py = plot_frame_y(&f, p->default_value);

		svg_line(buf, f.left, py, f.right, py, PLOT_GREY, 1.5, "6 4");
		plot_frame_block_segment(&f, f.left, py, f.right, py);
	}

	/* best so far, as a step line from the first feasible trial */
	if (first >= 0)
	{
		plot_line_begin(buf, &f, PLOT_RED, 2.0, NULL);
		for (i = first; i < p->n; i++)
		{
			double px = plot_frame_x(&f, p->number[i]);

			if (i > first)
				plot_line_point(buf, &f, px, plot_frame_y(&f, best[i - 1]));
			plot_line_point(buf, &f, px, plot_frame_y(&f, best[i]));
		}
		plot_line_point(buf, &f, f.right, plot_frame_y(&f, best[p->n - 1]));
		snprintf(tip, sizeof(tip), "best so far: %.6g", best[p->n - 1]);
		plot_line_end(buf, &f, tip);
	}

	svg_printf(buf, "<g class=\"trials\">\n");
	for (i = 0; i < p->n; i++)
	{
		int ok = p->feasible == NULL || p->feasible[i];
		int busy = p->disturbed != NULL && p->disturbed[i];
		const char *colour = busy ? PLOT_ORANGE : PLOT_BLUE;

		snprintf(tip, sizeof(tip), "trial %.0f: %.6g%s%s", p->number[i],
				 p->value[i], ok ? "" : " (broke a constraint)",
				 busy ? " (disturbed)" : "");
		plot_point(buf, &f, plot_frame_x(&f, p->number[i]),
				   plot_frame_y(&f, p->value[i]), 3.5, ok ? colour : "#ffffff",
				   ok ? NULL : colour, tip);
	}
	svg_printf(buf, "</g>\n<g class=\"failed\">\n");
	for (i = 0; i < p->n_failed; i++)
	{
		snprintf(tip, sizeof(tip), "trial %.0f failed", p->failed_number[i]);
		plot_mark_cross(buf, &f, plot_frame_x(&f, p->failed_number[i]),
						f.bottom - 8.0, 4.0, PLOT_RED, tip);
	}
	svg_printf(buf, "</g>\n");
	if (!plot_legend_draw(buf, &f))
		return 0;
	svg_end(buf);
	return 1;
}

/* Draw a convergence plot. */
TunerErrorCode
plot_convergence(const ConvergencePlot *p, char **out, TunerStatus *status)
{
	SvgBuf buf;
	double *best;
	int outside;

	*out = NULL;
	if (check(p, status) != TUNER_OK)
		return status->code;
	best = tuner_alloc(sizeof(double) * (size_t)p->n);
	if (best == NULL)
		return tuner_fail(status, TUNER_ERR_NOMEM, "out of memory");
	best_so_far(p, best);
	for (outside = 0; outside <= 1; outside++)
	{
		svg_init(&buf);
		if (draw(p, best, outside, &buf))
			break;
		svg_free(&buf);
	}
	tuner_free(best);
	return svg_finish(&buf, out, status);
}
