/*
 * design.h
 *	  Space-filling initial points: a Halton sequence whose digits are
 *	  scrambled by a random permutation per dimension (seeded), which keeps
 *	  Halton's low discrepancy while breaking the correlation between its
 *	  high-prime dimensions.  Point i is fixed by (seed, i) alone, so a study
 *	  can take design points one at a time.
 */
#ifndef TUNER_DESIGN_H
#define TUNER_DESIGN_H

#include <stdint.h>
#include "tuner_status.h"

/* Point index (0-based) of the scrambled Halton sequence, into unit[d]. */
extern TunerErrorCode design_halton_point(uint64_t seed, int index, int d,
										  double *unit, TunerStatus *status);

#endif /* TUNER_DESIGN_H */
