/*
 * pareto.h
 *	  Pareto dominance among points of m objectives, every objective to be
 *	  minimized (callers negate maximized ones first).  Used by
 *	  tuner.pareto_front and by the hypervolume.
 */
#ifndef TUNER_PARETO_H
#define TUNER_PARETO_H

#include "tuner_status.h"

/*
 * True when a dominates b: a is no worse in every objective and strictly
 * better in at least one.  Equal points do not dominate each other.
 */
extern int pareto_dominates(const double *a, const double *b, int m);

/*
 * Mark in front[i] (1 or 0) whether point i of the n x m row-major points
 * is dominated by no other point, and set *n_front to their count.
 * Duplicates of a non-dominated point are all kept.  O(n^2 m): studies
 * have hundreds of trials, not millions.
 */
extern TunerErrorCode pareto_first_front(const double *points, int n, int m,
										 int *front, int *n_front,
										 TunerStatus *status);

/*
 * The same for rows first .. first + count - 1 only (each compared with all
 * n points), so that the glue can check for interrupts between blocks of
 * rows.  points must be finite (pareto_first_front checks).
 */
extern void pareto_first_front_rows(const double *points, int n, int m,
									int first, int count, int *front);

#endif /* TUNER_PARETO_H */
