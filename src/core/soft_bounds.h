/*
 * soft_bounds.h
 *	  When and how far a parameter's soft bound widens.  A soft bound is a
 *	  guess (a catalog's derived range, a user's "probably within"): when
 *	  the model keeps suggesting values next to it, or the incumbent sits
 *	  there, the optimum may lie beyond, so the range doubles on that side
 *	  (mirrored around the bound, in log space for a log-scaled parameter),
 *	  never past the parameter's hard limit.  tuner._widen_soft_bounds
 *	  counts the suggestions and records each change.
 */
#ifndef TUNER_SOFT_BOUNDS_H
#define TUNER_SOFT_BOUNDS_H

typedef struct SoftBound
{
	double low;
	double high;
	int is_int;       /* an int parameter: widened bounds are integers */
	int log_scale;    /* log-scaled: low > 0, widened in log space */
	double hard_low;  /* NAN: none */
	double hard_high; /* NAN: none */
} SoftBound;

/*
 * Whether value lies within margin (a share of the range, of the log range
 * for a log-scaled parameter) of the low bound (high = 0) or the high one.
 */
extern int soft_bound_near(const SoftBound *b, double value, int high,
						   double margin);

/*
 * The low (high = 0) or high bound after widening: the range doubled on
 * that side, rounded outwards to an integer for an int parameter (at least
 * 1 when log-scaled), clamped to the hard limit.  Equal to the bound when
 * the hard limit leaves no room.
 */
extern double soft_bound_widened(const SoftBound *b, int high);

#endif /* TUNER_SOFT_BOUNDS_H */
