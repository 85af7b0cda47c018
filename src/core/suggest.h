/*
 * suggest.h
 *	  One step of Bayesian optimisation: given the study's history, choose
 *	  the next configuration.  All configurations are native values (see
 *	  space.h), n * d row-major.  Objective values are minimised; the glue
 *	  negates them for a maximised objective.
 */
#ifndef TUNER_SUGGEST_H
#define TUNER_SUGGEST_H

#include <stdint.h>
#include "space.h"
#include "tuner_status.h"

typedef struct SuggestInput
{
	const ParamSpec *params;
	int d;

	const double *x_observed; /* completed trials, n_observed * d */
	const double *y_observed; /* their objective, to be minimised */
	int n_observed;

	const double *x_pending; /* running trials, fantasised */
	int n_pending;

	const double *x_other; /* failed and other trials: never repeated */
	int n_other;

	int n_initial;        /* space-filling points before the GP */
	int design_index;     /* which space-filling point comes next */
	uint64_t design_seed; /* the study's: fixes the whole design */
	uint64_t seed;        /* this suggestion's: restarts, candidates */

	/* Optional warm start from the previous fit (normalised; NULL = none). */
	const double *warm_lengthscales;
	double warm_outputscale;
	double warm_noise;
	double warm_mean;
} SuggestInput;

typedef enum SuggestSource
{
	SUGGEST_DESIGN = 0, /* space-filling initial design */
	SUGGEST_MODEL,      /* GP + expected improvement */
	SUGGEST_RANDOM      /* fallback when the model's picks were taken */
} SuggestSource;

typedef struct SuggestResult
{
	double *config; /* d native values, caller-allocated */
	SuggestSource source;

	/* Only when source == SUGGEST_MODEL, in the y units given. */
	double predicted_mean;
	double predicted_sd;
	double log_ei; /* log expected improvement, standardised units */

	/* What the fit learned (normalised coordinates), for the model table. */
	double *lengthscales; /* d, caller-allocated */
	double outputscale;
	double noise;
	double mean;
	double log_likelihood;
} SuggestResult;

extern TunerErrorCode tuner_suggest(const SuggestInput *input,
									SuggestResult *result,
									TunerStatus *status);

#endif /* TUNER_SUGGEST_H */
