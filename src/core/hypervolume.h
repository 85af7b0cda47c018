/*
 * hypervolume.h
 *	  The hypervolume indicator: the volume of the region dominated by a set
 *	  of points (every objective minimized) and bounded by a reference
 *	  point.  Exact, by slicing along the first objective (HSO): a sweep
 *	  in two dimensions (O(n log n)), recursive slices above (O(n^(m-1)
 *	  log n) over the non-dominated points, refused beyond about 10^9
 *	  steps).  Points that do not dominate the reference strictly in every
 *	  objective add nothing.
 */
#ifndef TUNER_HYPERVOLUME_H
#define TUNER_HYPERVOLUME_H

#include "tuner_status.h"

/* Most objectives the recursive slicing accepts (its cost is O(n^(m-1))). */
#define HYPERVOLUME_MAX_OBJECTIVES 6

/* Most points above two objectives (the dominance filter is O(n^2)). */
#define HYPERVOLUME_MAX_POINTS 20000

/*
 * The hypervolume of the n x m row-major points with respect to
 * reference (m values) in *volume.  n may be 0 (volume 0).
 */
extern TunerErrorCode hypervolume(const double *points, int n, int m,
								  const double *reference, double *volume,
								  TunerStatus *status);

#endif /* TUNER_HYPERVOLUME_H */
