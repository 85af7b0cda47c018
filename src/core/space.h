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
 *
 *	  A configuration's canonical form (space_canonical) is the one a
 *	  study stores and compares: every value on its parameter's grid
 *	  (space_grid_value) and every inactive conditional parameter at its
 *	  default (ParamCondition).
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

/*
 * The condition of a conditional parameter: it is active only when the
 * parameter it tests (its parent, an earlier parameter) is active and the
 * parent's native value satisfies op; inactive, it takes inactive_value
 * (its default, native).  A parameter whose parent is inactive is
 * inactive whatever the parent's default would say, so conditions chain.
 * COND_NONE: no condition; COND_NEVER: never active (the study fixed an
 * ancestor at a value that rules it out).  tuner._apply_conditions is the
 * same rule in SQL.
 */
typedef enum ConditionOp
{
	COND_NONE = 0,
	COND_IN,     /* the parent's value is one of values */
	COND_NOT_IN, /* ... is none of values */
	COND_LT,     /* parent < values[0] (float and int parents) */
	COND_LE,
	COND_GT,
	COND_GE,
	COND_NEVER
} ConditionOp;

typedef struct ParamCondition
{
	ConditionOp op;
	int parent;            /* 0-based index of the parent, below its own */
	const double *values;  /* n_values native values of the parent */
	int n_values;          /* >= 1 to compare; 0 with COND_IN: never */
	double inactive_value; /* native value while inactive */
} ParamCondition;

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

/*
 * Check d conditions (NULL: none) against the space: parents earlier,
 * known operators, finite values, no ordering of a bool or categorical.
 */
extern TunerErrorCode space_validate_conditions(const ParamSpec *params,
												const ParamCondition *conds,
												int d, TunerStatus *status);

/*
 * A native value on its parameter's grid: an integer, bool (0/1) or
 * choice index rounded to the nearest; a float rounded to 15 significant
 * digits of its range (FLOAT_GRID_DIGITS of the larger bound's magnitude,
 * of the value itself on a log scale), so that arithmetic noise
 * (2.4999999999999982 for 2.5, 24.999999999999986 for the bound 25) is
 * not part of a configuration.  A value inside the bounds stays inside.
 */
#define FLOAT_GRID_DIGITS 15
extern double space_grid_value(const ParamSpec *param, double value);

/*
 * Whether each parameter is active (1) or not (0) in the native
 * configuration, parents first; conds NULL: all are.  Returns how many are
 * inactive.
 */
extern int space_active(const ParamCondition *conds, int d,
						const double *native, int *active);

/*
 * Put a native configuration in canonical form, in place: values on their
 * grid, then, parents first, inactive parameters at their defaults (conds
 * NULL: no conditions).  unit, when not NULL, is the configuration's
 * unit-cube image, updated where a parameter took its default.  active
 * (d ints, or NULL) receives which parameters are active; without it each
 * parameter's activity is found by walking up its ancestors.
 */
extern void space_canonical(const ParamSpec *params,
							const ParamCondition *conds, int d, double *native,
							double *unit, int *active);

/*
 * The second half of space_canonical: the conditions alone, for a
 * configuration whose values are on their grid already.
 */
extern void space_apply_conditions(const ParamSpec *params,
								   const ParamCondition *conds, int d,
								   double *native, double *unit, int *active);

/* Does some parameter have a condition (conds NULL: none)? */
extern int space_has_conditions(const ParamCondition *conds, int d);

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
