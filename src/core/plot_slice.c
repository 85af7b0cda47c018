/*
 * plot_slice.c
 *	  The slice plot: the objective of every complete trial against one
 *	  parameter, on a log axis when the parameter is log-scaled, or against
 *	  its labels when it is categorical, the trials of a label spread
 *	  across its column; the best trial is highlighted, trials that broke
 *	  an outcome constraint are rings.  The legend goes where no data is
 *	  (plot_frame.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "plot.h"
#include "plot_frame.h"
#include "rng.h"

/*
 * The trials of a category share its column's middle CATEGORY_SPREAD (in
 * columns), in slots ordered by a hash of their numbers under this seed:
 * the same picture every time, and no trial order read into the x offset.
 */
#define CATEGORY_SPREAD 0.6
#define CATEGORY_SEED   UINT64_C(0x74756e6572)

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

/* A point's category and slot key, to sort the points into slots. */
typedef struct SlotKey
{
	double category;
	uint64_t key;
	int point;
} SlotKey;

/* By category, then key (ties, which need equal hashes, by point). */
static int
slot_cmp(const void *a, const void *b)
{
	const SlotKey *x = a;
	const SlotKey *y = b;

	if (x->category != y->category)
		return x->category < y->category ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->point - y->point;
}

/* Spread each category's points across its column. */
TunerErrorCode
plot_category_offsets(int n, const double *x, const double *number,
					  double width, uint64_t seed, double *offset,
					  TunerStatus *status)
{
	SlotKey *keys = tuner_alloc(sizeof(SlotKey) * (size_t)(n > 0 ? n : 1));
	int start;
	int i;

	if (keys == NULL)
		return tuner_fail(status, TUNER_ERR_NOMEM, "out of memory");
	for (i = 0; i < n; i++)
	{
		keys[i].category = x[i];
		keys[i].key = rng_mix(seed, (uint64_t)(int64_t)number[i]);
		keys[i].point = i;
	}
	qsort(keys, n, sizeof(SlotKey), slot_cmp);
	/* each run of one category: slots 0 .. count-1 in key order */
	for (start = 0; start < n;)
	{
		int end = start;

		while (end < n && keys[end].category == keys[start].category)
			end++;
		for (i = start; i < end; i++)
			offset[keys[i].point] =
				end - start == 1
					? 0.0
					: width * ((i - start + 0.5) / (end - start) - 0.5);
		start = end;
	}
	tuner_free(keys);
	return TUNER_OK;
}

/* Which point is the best trial (-1: none). */
static int
best_point(const SlicePlot *p)
{
	int best = -1;
	int i;

	for (i = 0; i < p->n; i++)
	{
		if (p->best_given)
		{
			if (p->number[i] == p->best_number)
				return i;
			continue;
		}
		if (p->feasible != NULL && !p->feasible[i])
			continue;
		if (best < 0 ||
			(p->minimize ? p->y[i] < p->y[best] : p->y[i] > p->y[best]))
			best = i;
	}
	return best;
}

/* Draw the plot once (see plot_convergence.c's draw). */
static int
draw(const SlicePlot *p, const double *offset, int outside, SvgBuf *buf)
{
	PlotFrame f;
	char tip[128];
	double x_lo;
	double x_hi;
	double y_lo;
	double y_hi;
	int best = best_point(p);
	int n_infeasible = 0;
	int pass;
	int i;

	x_lo = x_hi = p->x[0];
	y_lo = y_hi = p->y[0];
	for (i = 0; i < p->n; i++)
	{
		x_lo = fmin(x_lo, p->x[i]);
		x_hi = fmax(x_hi, p->x[i]);
		y_lo = fmin(y_lo, p->y[i]);
		y_hi = fmax(y_hi, p->y[i]);
		if (p->feasible != NULL && !p->feasible[i])
			n_infeasible++;
	}

	plot_frame_init(&f, p->width, p->height, x_lo, x_hi, p->x_log, y_lo, y_hi,
					p->log_y);
	if (p->categories != NULL)
		plot_frame_categories(&f, p->categories, p->n_categories);
	plot_legend_add(&f, PLOT_MARK_POINT, PLOT_BLUE, "trial");
	if (n_infeasible > 0)
		plot_legend_add(&f, PLOT_MARK_RING, PLOT_BLUE, "broke a constraint");
	if (best >= 0)
		plot_legend_add(&f, PLOT_MARK_POINT, PLOT_RED, "best trial");
	plot_frame_legend_layout(&f, outside);

	svg_begin(buf, f.width, f.height);
	plot_frame_draw(buf, &f, p->title, p->x_label, p->y_label);

	svg_printf(buf, "<g class=\"trials\">\n");
	/* the best trial last, on top */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < p->n; i++)
		{
			int ok = p->feasible == NULL || p->feasible[i];
			double px;

			if ((i == best) != (pass == 1))
				continue;
			if (p->categories != NULL)
			{
				snprintf(tip, sizeof(tip), "trial %.0f: %.6g%s", p->number[i],
						 p->y[i], ok ? "" : " (broke a constraint)");
				px = plot_frame_x(&f, p->x[i] + offset[i]);
			}
			else
			{
				snprintf(tip, sizeof(tip), "trial %.0f: %.6g at %.6g%s",
						 p->number[i], p->y[i], p->x[i],
						 ok ? "" : " (broke a constraint)");
				px = plot_frame_x(&f, p->x[i]);
			}
			if (i == best)
				plot_point(buf, &f, px, plot_frame_y(&f, p->y[i]), 5.5,
						   PLOT_RED, NULL, tip);
			else
				plot_point(buf, &f, px, plot_frame_y(&f, p->y[i]), 3.5,
						   ok ? PLOT_BLUE : "#ffffff", ok ? NULL : PLOT_BLUE,
						   tip);
		}
	svg_printf(buf, "</g>\n");
	if (!plot_legend_draw(buf, &f))
		return 0;
	svg_end(buf);
	return 1;
}

/* Draw a slice plot. */
TunerErrorCode
plot_slice(const SlicePlot *p, char **out, TunerStatus *status)
{
	SvgBuf buf;
	double *offset;
	int outside;
	int i;

	*out = NULL;
	if (check(p, status) != TUNER_OK)
		return status->code;
	offset = tuner_alloc(sizeof(double) * (size_t)p->n);
	if (offset == NULL)
		return tuner_fail(status, TUNER_ERR_NOMEM, "out of memory");
	for (i = 0; i < p->n; i++)
		offset[i] = 0.0;
	if (p->categories != NULL &&
		plot_category_offsets(p->n, p->x, p->number, CATEGORY_SPREAD,
							  CATEGORY_SEED, offset, status) != TUNER_OK)
	{
		tuner_free(offset);
		return status->code;
	}
	for (outside = 0; outside <= 1; outside++)
	{
		svg_init(&buf);
		if (draw(p, offset, outside, &buf))
			break;
		svg_free(&buf);
	}
	tuner_free(offset);
	return svg_finish(&buf, out, status);
}
