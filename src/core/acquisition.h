/*
 * acquisition.h
 *	  Maximising log expected improvement over the unit cube: many random
 *	  and incumbent-centred starts scored in one batch, the best few refined
 *	  by NLopt's bounded L-BFGS with analytic gradients, and the choices of
 *	  categorical dimensions searched one coordinate at a time (see
 *	  acquisition.c).  Works on any Posterior (posterior.h): the
 *	  single-task GP or an ICM task.
 */
#ifndef TUNER_ACQUISITION_H
#define TUNER_ACQUISITION_H

#include "posterior.h"
#include "rng.h"
#include "tuner_status.h"

typedef struct AcquisitionOptions
{
	int n_random;  /* uniform candidates */
	int n_local;   /* candidates perturbed around incumbents */
	int n_refine;  /* best candidates refined by L-BFGS */
	int max_evals; /* per refinement */
	/*
	 * With a feasibility term, how many of the points returned must be
	 * ranked exactly (0: all of them).  The term is computed lazily
	 * (acquisition.c, score_feasibility): after the first n_exact, the
	 * points whose term was not needed follow in order of log EI alone,
	 * with value -inf.
	 */
	int n_exact;
} AcquisitionOptions;

extern void acquisition_options_init(AcquisitionOptions *options, int d);

/*
 * Rank points of the unit cube by log EI under post (minimisation, incumbent
 * best).  incumbents (n_incumbents x d) are the points to search around.
 * Writes up to max_out points (max_out x d) and their log EI, best first,
 * and their number to *n_out.
 */
extern TunerErrorCode
acquisition_rank(const Posterior *post, double best, const double *incumbents,
				 int n_incumbents, const AcquisitionOptions *options,
				 TunerRng *rng, int max_out, double *points, double *values,
				 int *n_out, TunerStatus *status);

/* Doubles of scratch that acquisition_log_ei needs for post. */
extern int acquisition_scratch_size(const Posterior *post);

/*
 * log EI at one point with its gradient wrt u (grad may be NULL); scratch
 * holds acquisition_scratch_size(post) doubles.
 */
extern double acquisition_log_ei(const Posterior *post, double best,
								 const double *u, double *grad,
								 double *scratch);

#endif /* TUNER_ACQUISITION_H */
