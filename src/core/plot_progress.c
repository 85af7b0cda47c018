/*
 * plot_progress.c
 *	  The progress plot: every trial's intermediate results as a curve of
 *	  the metric against the step, so that a study's learning curves (and
 *	  where a pruning rule stopped a trial) can be seen at once.  Complete
 *	  trials are blue lines (orange when the machine was busy while they
 *	  ran, as in the convergence plot), pruned ones red dashed lines ending
 *	  in a cross at the step they were stopped, others (running, failed)
 *	  grey.  The legend goes where no data is (plot_frame.h).
 */
#include <math.h>
#include <stdio.h>

#include "plot.h"
#include "plot_frame.h"

/* Check the input of a progress plot. */
static TunerErrorCode
check(const ProgressPlot *p, TunerStatus *status)
{
	int i;

	if (p->n < 1)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "a progress plot needs an intermediate result");
	if (plot_check_size(p->width, p->height, status) != TUNER_OK ||
		plot_check_finite(p->number, p->n, "trial number", status) !=
			TUNER_OK ||
		plot_check_finite(p->step, p->n, "step", status) != TUNER_OK ||
		plot_check_finite(p->value, p->n, "value", status) != TUNER_OK)
		return status->code;
	for (i = 0; i < p->n; i++)
	{
		if (p->state[i] < PROGRESS_COMPLETE ||
			p->state[i] > PROGRESS_DISTURBED)
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "point %d has an unknown state %d", i + 1,
							  p->state[i]);
		if (p->log_y && p->value[i] <= 0.0)
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "a log axis needs positive values, but trial "
							  "%.0f has %g",
							  p->number[i], p->value[i]);
		if (i > 0 && p->number[i] == p->number[i - 1] &&
			(p->step[i] <= p->step[i - 1] || p->state[i] != p->state[i - 1]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "the points of trial %.0f are not in step "
							  "order with one state",
							  p->number[i]);
	}
	return TUNER_OK;
}

static const char *
state_colour(int state)
{
	return state == PROGRESS_COMPLETE    ? PLOT_BLUE
		   : state == PROGRESS_PRUNED    ? PLOT_RED
		   : state == PROGRESS_DISTURBED ? PLOT_ORANGE
										 : PLOT_GREY;
}

/* Draw one trial's curve, points first .. last - 1. */
static void
draw_curve(const ProgressPlot *p, int first, int end, SvgBuf *buf,
		   PlotFrame *f)
{
	int state = p->state[first];
	const char *colour = state_colour(state);
	char tip[128];
	int i;

	snprintf(tip, sizeof(tip), "trial %.0f%s: %.6g at step %.6g",
			 p->number[first],
			 state == PROGRESS_PRUNED      ? " (pruned)"
			 : state == PROGRESS_DISTURBED ? " (disturbed)"
										   : "",
			 p->value[end - 1], p->step[end - 1]);
	if (end - first > 1)
	{
		plot_line_begin(buf, f, colour, 1.5,
						state == PROGRESS_PRUNED ? "6 4" : NULL);
		for (i = first; i < end; i++)
			plot_line_point(buf, f, plot_frame_x(f, p->step[i]),
							plot_frame_y(f, p->value[i]));
		plot_line_end(buf, f, tip);
	}
	if (state == PROGRESS_PRUNED)
		plot_mark_cross(buf, f, plot_frame_x(f, p->step[end - 1]),
						plot_frame_y(f, p->value[end - 1]), 4.0, PLOT_RED,
						tip);
	else if (end - first == 1)
		plot_point(buf, f, plot_frame_x(f, p->step[first]),
				   plot_frame_y(f, p->value[first]), 3.0, colour, NULL, tip);
}

/*
 * Draw the plot once, its legend inside the plot area or (outside) in a
 * strip above it; returns 0 when inside found no free corner.
 */
static int
draw(const ProgressPlot *p, int outside, SvgBuf *buf)
{
	PlotFrame f;
	double x_lo = p->step[0];
	double x_hi = p->step[0];
	double y_lo = p->value[0];
	double y_hi = p->value[0];
	int seen[4] = {0, 0, 0, 0};
	int first;
	int i;

	for (i = 0; i < p->n; i++)
	{
		x_lo = fmin(x_lo, p->step[i]);
		x_hi = fmax(x_hi, p->step[i]);
		y_lo = fmin(y_lo, p->value[i]);
		y_hi = fmax(y_hi, p->value[i]);
		seen[p->state[i]] = 1;
	}
	plot_frame_init(&f, p->width, p->height, x_lo, x_hi, 0, y_lo, y_hi,
					p->log_y);
	if (seen[PROGRESS_COMPLETE])
		plot_legend_add(&f, PLOT_MARK_LINE, PLOT_BLUE, "complete");
	if (seen[PROGRESS_PRUNED])
		plot_legend_add(&f, PLOT_MARK_CROSS, PLOT_RED, "pruned");
	if (seen[PROGRESS_DISTURBED])
		plot_legend_add(&f, PLOT_MARK_LINE, PLOT_ORANGE, "disturbed");
	if (seen[PROGRESS_OTHER])
		plot_legend_add(&f, PLOT_MARK_LINE, PLOT_GREY, "running or failed");
	plot_frame_legend_layout(&f, outside);

	svg_begin(buf, f.width, f.height);
	plot_frame_draw(buf, &f, p->title, p->x_label, p->y_label);
	svg_printf(buf, "<g class=\"curves\">\n");
	for (first = 0; first < p->n;)
	{
		int end = first + 1;

		while (end < p->n && p->number[end] == p->number[first])
			end++;
		draw_curve(p, first, end, buf, &f);
		first = end;
	}
	svg_printf(buf, "</g>\n");
	if (!plot_legend_draw(buf, &f))
		return 0;
	svg_end(buf);
	return 1;
}

/* Draw a progress plot. */
TunerErrorCode
plot_progress(const ProgressPlot *p, char **out, TunerStatus *status)
{
	SvgBuf buf;
	int outside;

	*out = NULL;
	if (check(p, status) != TUNER_OK)
		return status->code;
	for (outside = 0; outside <= 1; outside++)
	{
		svg_init(&buf);
		if (draw(p, outside, &buf))
			break;
		svg_free(&buf);
	}
	return svg_finish(&buf, out, status);
}
