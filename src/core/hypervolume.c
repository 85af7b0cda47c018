/*
 * hypervolume.c
 *	  Exact hypervolume by slicing objectives (see hypervolume.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hypervolume.h"
#include "pareto.h"

/*
 * Order rows by their first value.  Rows are compared through their first
 * element only, so one comparator serves rows of any length.
 */
static int
compare_first(const void *a, const void *b)
{
	double x = *(const double *)a;
	double y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Volume of n rows (each m values, all strictly below ref) in m
 * dimensions, slicing along the first objective.  rows is sorted in place;
 * scratch holds n (m - 1) values per level of the recursion.
 */
static double
volume_of(double *rows, int n, int m, const double *ref, double *scratch)
{
	double volume = 0.0;
	int i;

	if (n == 0)
		return 0.0;
	if (m == 1)
	{
		double best = rows[0];

		for (i = 1; i < n; i++)
			best = fmin(best, rows[i]);
		return ref[0] - best;
	}
	qsort(rows, n, sizeof(double) * m, compare_first);
	if (m == 2)
	{
		/* sweep along the first objective, keeping the best second one */
		double best_y = ref[1];

		for (i = 0; i < n; i++)
		{
			double next = i + 1 < n ? rows[(i + 1) * 2] : ref[0];

			best_y = fmin(best_y, rows[i * 2 + 1]);
			volume += (next - rows[i * 2]) * (ref[1] - best_y);
		}
		return volume;
	}
	/*
	 * The slab between the first values of rows i and i + 1 holds what
	 * the rows up to i dominate in the other m - 1 objectives.
	 */
	for (i = 0; i < n; i++)
	{
		double next = i + 1 < n ? rows[(size_t)(i + 1) * m] : ref[0];
		double width = next - rows[(size_t)i * m];
		int j;

		if (width <= 0.0)
			continue;
		for (j = 0; j <= i; j++)
			memcpy(scratch + (size_t)j * (m - 1), rows + (size_t)j * m + 1,
				   sizeof(double) * (m - 1));
		volume += width * volume_of(scratch, i + 1, m - 1, ref + 1,
									scratch + (size_t)(i + 1) * (m - 1));
	}
	return volume;
}

/* Hypervolume of points with respect to reference (hypervolume.h). */
TunerErrorCode
hypervolume(const double *points, int n, int m, const double *reference,
			double *volume, TunerStatus *status)
{
	double *rows;
	double *scratch;
	int *front;
	int n_front;
	int kept = 0;
	int i;
	int k;
	TunerErrorCode rc = TUNER_OK;

	tuner_status_clear(status);
	*volume = 0.0;
	if (m < 1 || m > HYPERVOLUME_MAX_OBJECTIVES)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "the hypervolume takes 1 to %d objectives, got %d",
						  HYPERVOLUME_MAX_OBJECTIVES, m);
	for (k = 0; k < m; k++)
		if (!isfinite(reference[k]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "reference value %d is not finite", k + 1);
	for (i = 0; i < n * m; i++)
		if (!isfinite(points[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "point %d has a value that is not finite",
							  i / m + 1);
	if (n == 0)
		return TUNER_OK;
	/* above two objectives, the dominated points are dropped first: an
	 * O(n^2) filter, bounded like the slicing */
	if (m > 2 && n > HYPERVOLUME_MAX_POINTS)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "%d points are too many for an exact hypervolume "
						  "in %d objectives (at most %d)",
						  n, m, HYPERVOLUME_MAX_POINTS);
	front = tuner_alloc(sizeof(int) * (size_t)n);
	rows = tuner_alloc(sizeof(double) * (size_t)n * m);
	/* each level of the recursion keeps one projected copy */
	scratch = tuner_alloc(sizeof(double) * ((size_t)n + 1) * m * m);
	if (front == NULL || rows == NULL || scratch == NULL)
	{
		tuner_free(front);
		tuner_free(rows);
		tuner_free(scratch);
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for the hypervolume");
	}
	if (m > 2)
		rc = pareto_first_front(points, n, m, front, &n_front, status);
	else
		for (i = 0; i < n; i++)
			front[i] = 1;
	if (rc == TUNER_OK)
	{
		/* the points inside the reference box: the others add nothing */
		for (i = 0; i < n; i++)
		{
			int inside = front[i];

			for (k = 0; k < m && inside; k++)
				inside = points[(size_t)i * m + k] < reference[k];
			if (inside)
			{
				memcpy(rows + (size_t)kept * m, points + (size_t)i * m,
					   sizeof(double) * m);
				kept++;
			}
		}
		/* slicing costs O(kept^(m-1) log kept) */
		if (m > 2 && (m - 1) * log10((double)kept) > 9.0)
			rc = tuner_fail(status, TUNER_ERR_INVALID,
							"%d non-dominated points are too many for an "
							"exact hypervolume in %d objectives",
							kept, m);
		else
			*volume = volume_of(rows, kept, m, reference, scratch);
	}
	tuner_free(front);
	tuner_free(rows);
	tuner_free(scratch);
	return rc;
}
