/*
 * plot_pareto.c
 *	  The Pareto plot: two metrics of every trial that measured both, the
 *	  non-dominated trials highlighted and the front drawn as the staircase
 *	  that bounds the region they dominate.  Trials that broke an outcome
 *	  constraint are rings and never on the front.  The legend goes where
 *	  no data is (plot_frame.h).
 */
#include <math.h>
#include <stdio.h>

#include "plot.h"
#include "plot_frame.h"

/* Whether a is at least as good as b in one metric. */
static int
no_worse(double a, double b, int minimize)
{
	return minimize ? a <= b : a >= b;
}

/* Mark the non-dominated points (O(n^2); studies have few trials). */
int
pareto_front_mask(int n, const double *x, const double *y, int x_minimize,
				  int y_minimize, const int *feasible, int *front)
{
	int count = 0;
	int i;
	int j;

	for (i = 0; i < n; i++)
	{
		front[i] = feasible == NULL || feasible[i];
		for (j = 0; j < n && front[i]; j++)
			if (j != i && (feasible == NULL || feasible[j]) &&
				no_worse(x[j], x[i], x_minimize) &&
				no_worse(y[j], y[i], y_minimize) &&
				(x[j] != x[i] || y[j] != y[i]))
				front[i] = 0;
		count += front[i];
	}
	return count;
}

/* Check the input of a Pareto plot. */
static TunerErrorCode
check(const ParetoPlot *p, TunerStatus *status)
{
	if (p->n < 1)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "a pareto plot needs a trial with both metrics");
	if (plot_check_size(p->width, p->height, status) != TUNER_OK ||
		plot_check_finite(p->x, p->n, "x value", status) != TUNER_OK ||
		plot_check_finite(p->y, p->n, "y value", status) != TUNER_OK)
		return status->code;
	return TUNER_OK;
}

/* The front's points in order of x (insertion sort of their indexes). */
static int
sorted_front(const ParetoPlot *p, const int *front, int *order)
{
	int m = 0;
	int i;

	for (i = 0; i < p->n; i++)
	{
		int k = m++;

		if (!front[i])
		{
			m--;
			continue;
		}
		while (k > 0 && (p->x[order[k - 1]] > p->x[i] ||
						 (p->x[order[k - 1]] == p->x[i] &&
						  p->y[order[k - 1]] > p->y[i])))
		{
			order[k] = order[k - 1];
			k--;
		}
		order[k] = i;
	}
	return m;
}

/*
 * The staircase through the front: with x minimized the best y reachable
 * up to x is the last front point's, so the line runs right, then to the
 * next point; with x maximized it rises to the next point first.
 */
static void
draw_front(SvgBuf *buf, PlotFrame *f, const ParetoPlot *p, const int *order,
		   int m)
{
	int k;

	plot_line_begin(buf, f, PLOT_RED, 2.0, NULL);
	for (k = 0; k < m; k++)
	{
		double px = plot_frame_x(f, p->x[order[k]]);
		double py = plot_frame_y(f, p->y[order[k]]);

		if (k > 0)
		{
			double prev_px = plot_frame_x(f, p->x[order[k - 1]]);
			double prev_py = plot_frame_y(f, p->y[order[k - 1]]);

			if (p->x_minimize)
				plot_line_point(buf, f, px, prev_py);
			else
				plot_line_point(buf, f, prev_px, py);
		}
		plot_line_point(buf, f, px, py);
	}
	plot_line_end(buf, f, NULL);
}

/* Draw the plot once (see plot_convergence.c's draw). */
static int
draw(const ParetoPlot *p, const int *front, const int *order, int m,
	 int outside, SvgBuf *buf)
{
	PlotFrame f;
	char tip[160];
	double x_lo;
	double x_hi;
	double y_lo;
	double y_hi;
	int n_infeasible = 0;
	int n_dominated = 0;
	int i;

	x_lo = x_hi = p->x[0];
	y_lo = y_hi = p->y[0];
	for (i = 0; i < p->n; i++)
	{
		int ok = p->feasible == NULL || p->feasible[i];

		x_lo = fmin(x_lo, p->x[i]);
		x_hi = fmax(x_hi, p->x[i]);
		y_lo = fmin(y_lo, p->y[i]);
		y_hi = fmax(y_hi, p->y[i]);
		n_infeasible += !ok;
		n_dominated += ok && !front[i];
	}

	plot_frame_init(&f, p->width, p->height, x_lo, x_hi, 0, y_lo, y_hi, 0);
	if (n_dominated > 0)
		plot_legend_add(&f, PLOT_MARK_POINT, PLOT_LIGHT, "dominated");
	if (n_infeasible > 0)
		plot_legend_add(&f, PLOT_MARK_RING, PLOT_GREY, "broke a constraint");
	if (m > 0)
	{
		plot_legend_add(&f, PLOT_MARK_POINT, PLOT_RED, "non-dominated");
		plot_legend_add(&f, PLOT_MARK_LINE, PLOT_RED, "Pareto front");
	}
	plot_frame_legend_layout(&f, outside);

	svg_begin(buf, f.width, f.height);
	plot_frame_draw(buf, &f, p->title, p->x_label, p->y_label);
	if (m > 0)
		draw_front(buf, &f, p, order, m);
	svg_printf(buf, "<g class=\"trials\">\n");
	for (i = 0; i < p->n; i++)
	{
		int ok = p->feasible == NULL || p->feasible[i];

		if (front[i])
			continue;
		snprintf(tip, sizeof(tip), "trial %.0f: %.6g, %.6g%s", p->number[i],
				 p->x[i], p->y[i], ok ? "" : " (broke a constraint)");
		plot_point(buf, &f, plot_frame_x(&f, p->x[i]),
				   plot_frame_y(&f, p->y[i]), 3.5, ok ? PLOT_LIGHT : "#ffffff",
				   PLOT_GREY, tip);
	}
	svg_printf(buf, "</g>\n<g class=\"front\">\n");
	for (i = 0; i < p->n; i++)
	{
		if (!front[i])
			continue;
		snprintf(tip, sizeof(tip), "trial %.0f (non-dominated): %.6g, %.6g",
				 p->number[i], p->x[i], p->y[i]);
		plot_point(buf, &f, plot_frame_x(&f, p->x[i]),
				   plot_frame_y(&f, p->y[i]), 5.0, PLOT_RED, NULL, tip);
	}
	svg_printf(buf, "</g>\n");
	if (!plot_legend_draw(buf, &f))
		return 0;
	svg_end(buf);
	return 1;
}

/* Draw a Pareto plot. */
TunerErrorCode
plot_pareto(const ParetoPlot *p, char **out, TunerStatus *status)
{
	SvgBuf buf;
	int *front;
	int *order;
	int outside;
	int m;

	*out = NULL;
	if (check(p, status) != TUNER_OK)
		return status->code;
	front = tuner_alloc(sizeof(int) * (size_t)p->n);
	order = tuner_alloc(sizeof(int) * (size_t)p->n);
	if (front == NULL || order == NULL)
	{
		tuner_free(front);
		tuner_free(order);
		return tuner_fail(status, TUNER_ERR_NOMEM, "out of memory");
	}
	pareto_front_mask(p->n, p->x, p->y, p->x_minimize, p->y_minimize,
					  p->feasible, front);
	m = sorted_front(p, front, order);
	for (outside = 0; outside <= 1; outside++)
	{
		svg_init(&buf);
		if (draw(p, front, order, m, outside, &buf))
			break;
		svg_free(&buf);
	}
	tuner_free(front);
	tuner_free(order);
	return svg_finish(&buf, out, status);
}
