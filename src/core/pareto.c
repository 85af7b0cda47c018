/*
 * pareto.c
 *	  Non-dominated sorting of the first front (see pareto.h).
 */
#include <math.h>

#include "pareto.h"

/* a dominates b (minimization). */
int
pareto_dominates(const double *a, const double *b, int m)
{
	int strictly = 0;
	int k;

	for (k = 0; k < m; k++)
	{
		if (a[k] > b[k])
			return 0;
		if (a[k] < b[k])
			strictly = 1;
	}
	return strictly;
}

/* Rows first .. first + count - 1 of the first front (pareto.h). */
void
pareto_first_front_rows(const double *points, int n, int m, int first,
						int count, int *front)
{
	int i;
	int j;

	for (i = first; i < first + count; i++)
	{
		front[i] = 1;
		for (j = 0; j < n && front[i]; j++)
			if (j != i && pareto_dominates(points + (size_t)j * m,
										   points + (size_t)i * m, m))
				front[i] = 0;
	}
}

/* The first front of n points (pareto.h). */
TunerErrorCode
pareto_first_front(const double *points, int n, int m, int *front,
				   int *n_front, TunerStatus *status)
{
	int i;

	tuner_status_clear(status);
	if (n < 0 || m < 1)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "need at least one objective, got %d", m);
	for (i = 0; i < n * m; i++)
		if (!isfinite(points[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "point %d has a value that is not finite",
							  i / m + 1);
	pareto_first_front_rows(points, n, m, 0, n, front);
	*n_front = 0;
	for (i = 0; i < n; i++)
		*n_front += front[i];
	return TUNER_OK;
}
