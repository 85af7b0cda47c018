/*
 * hypervolume.c
 *	  Exact hypervolume by slicing objectives (see hypervolume.h).
 */
#include <math.h>
#include <string.h>

#include "hypervolume.h"
#include "pareto.h"

/*
 * Sort n rows of m values by their last value, ascending (insertion sort:
 * fronts are small, and no comparator state outlives the call).
 */
static void
sort_by_last(double *rows, int n, int m, double *tmp)
{
	int i;
	int j;

	for (i = 1; i < n; i++)
	{
		memcpy(tmp, rows + (size_t)i * m, sizeof(double) * m);
		for (j = i; j > 0 && rows[(size_t)(j - 1) * m + m - 1] > tmp[m - 1];
			 j--)
			memcpy(rows + (size_t)j * m, rows + (size_t)(j - 1) * m,
				   sizeof(double) * m);
		memcpy(rows + (size_t)j * m, tmp, sizeof(double) * m);
	}
}

/*
 * Volume of n rows (each m values, all strictly below ref) in m
 * dimensions.  rows is sorted in place; scratch holds (n + 1) m^2 values
 * (a sort buffer and a projected copy per level).
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
	sort_by_last(rows, n, m, scratch);
	if (m == 2)
	{
		/* sweep up the second objective, keeping the best first one */
		double best_x = ref[0];

		for (i = 0; i < n; i++)
		{
			double next = i + 1 < n ? rows[(i + 1) * 2 + 1] : ref[1];

			best_x = fmin(best_x, rows[i * 2]);
			volume += (ref[0] - best_x) * (next - rows[i * 2 + 1]);
		}
		return volume;
	}
	/*
	 * Slab between the last coordinates of rows i and i + 1: the points up
	 * to i, projected onto the other m - 1 objectives.
	 */
	for (i = 0; i < n; i++)
	{
		double next =
			i + 1 < n ? rows[(size_t)(i + 1) * m + m - 1] : ref[m - 1];
		double height = next - rows[(size_t)i * m + m - 1];
		double *sub;
		int j;
		int k;

		if (height <= 0.0)
			continue;
		sub = scratch + m;
		for (j = 0; j <= i; j++)
			for (k = 0; k < m - 1; k++)
				sub[(size_t)j * (m - 1) + k] = rows[(size_t)j * m + k];
		volume += height * volume_of(sub, i + 1, m - 1, ref,
									 sub + (size_t)(i + 1) * (m - 1));
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
	TunerErrorCode rc;

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
	if (n == 0)
		return TUNER_OK;
	front = tuner_alloc(sizeof(int) * (size_t)n);
	rows = tuner_alloc(sizeof(double) * (size_t)n * m);
	/* each level of the recursion: a sort buffer and one projected copy */
	scratch = tuner_alloc(sizeof(double) * ((size_t)n + 1) * m * (m + 1));
	if (front == NULL || rows == NULL || scratch == NULL)
	{
		tuner_free(front);
		tuner_free(rows);
		tuner_free(scratch);
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for the hypervolume");
	}
	rc = pareto_first_front(points, n, m, front, &n_front, status);
	if (rc == TUNER_OK)
	{
		/* the front's points inside the reference box; dominated ones
		 * and duplicates add no volume but would cost time */
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
		*volume = volume_of(rows, kept, m, reference, scratch);
	}
	tuner_free(front);
	tuner_free(rows);
	tuner_free(scratch);
	return rc;
}
