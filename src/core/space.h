/*
 * space.h
 *	  The search space: how a configuration in the user's units ("native"
 *	  values) maps to and from the unit cube the model works in.
 *
 *	  Native value of each kind:
 *	    PARAM_FLOAT        the value itself, low <= v <= high
 *	    PARAM_INT          an integer-valued double, low <= v <= high
 *	    PARAM_BOOL         0 or 1
 *	    PARAM_CATEGORICAL  the choice's index, 0 .. n_choices - 1
 *	  Every parameter takes exactly one unit-cube coordinate.  A
 *	  categorical's coordinate is the centre of its choice's bin, but its
 *	  choices are not ordered: the models measure it with the overlap
 *	  distance of matern.h (space_kernel_categories), not by the distance
 *	  between bin centres.
 */
#ifndef TUNER_SPACE_H
#define TUNER_SPACE_H

#include <stdint.h>
#include "tuner_status.h"

typedef enum TunerParamKind
{
	PARAM_FLOAT = 0,
	PARAM_INT,
	PARAM_BOOL,
	PARAM_CATEGORICAL
} TunerParamKind;

typedef struct ParamSpec
{
	TunerParamKind kind;
	double low;    /* float/int only */
	double high;   /* float/int only */
	int log_scale; /* float/int only; requires low > 0 */
	int n_choices; /* categorical only; >= 1 */
} ParamSpec;

/* Check bounds, log scale and choice counts; name the first bad parameter. */
extern TunerErrorCode space_validate(const ParamSpec *params, int d,
									 TunerStatus *status);

/* Native -> unit cube (values outside bounds are clamped). */
extern void space_to_unit(const ParamSpec *params, int d, const double *native,
						  double *unit);

/* Unit cube -> native, rounded to the parameter grid. */
extern void space_from_unit(const ParamSpec *params, int d, const double *unit,
							double *native);

/* Snap a unit-cube point to the unit image of its rounded native value. */
extern void space_snap_unit(const ParamSpec *params, int d, double *unit);

/* True when two native configurations are the same point of the space. */
extern int space_same_config(const ParamSpec *params, int d, const double *a,
							 const double *b);

/*
 * Number of distinct configurations when every parameter is discrete, or
 * -1 when some parameter is continuous (or the count overflows).
 */
extern double space_cardinality(const ParamSpec *params, int d);

/*
 * The models' input metric (matern.h) for the space: categories[j] =
 * n_choices for a categorical parameter of three or more choices, else 0
 * (ordered: floats, integers, bools, and categoricals of one or two
 * choices, whose two bin centres are already equidistant).  Returns how
 * many are categorical.
 */
extern int space_kernel_categories(const ParamSpec *params, int d,
								   int *categories);

#endif /* TUNER_SPACE_H */
