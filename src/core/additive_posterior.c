/*
 * additive_posterior.c
 *	  The posterior of a weighted sum of independent models over subsets of
 *	  the dimensions; see additive_posterior.h.
 */
#include <math.h>
#include <string.h>

#include "additive_posterior.h"

/* PosteriorPointFn: each term at its own coordinates, gradients scattered. */
static void
additive_point(const void *state, const double *u, double *mean, double *var,
			   double *dmean, double *dvar, double *scratch)
{
	const AdditivePosterior *a = state;
	double *sub = scratch;
	double *sub_dmean = scratch + a->d;
	double *sub_dvar = scratch + 2 * a->d;
	double *inner = scratch + 3 * a->d;
	int i, j;

	*mean = a->intercept;
	*var = 0.0;
	if (dmean != NULL)
	{
		memset(dmean, 0, sizeof(double) * a->d);
		memset(dvar, 0, sizeof(double) * a->d);
	}
	for (i = 0; i < a->k; i++)
	{
		const Posterior *t = &a->term[i];
		double c = a->coef[i], mk, vk;

		for (j = 0; j < a->m[i]; j++)
			sub[j] = u[a->members[i][j]];
		t->point(t->state, sub, &mk, &vk, dmean != NULL ? sub_dmean : NULL,
				 dmean != NULL ? sub_dvar : NULL, inner);
		*mean += c * mk;
		*var += c * c * vk;
		if (dmean == NULL)
			continue;
		for (j = 0; j < a->m[i]; j++)
		{
			dmean[a->members[i][j]] += c * sub_dmean[j];
			dvar[a->members[i][j]] += c * c * sub_dvar[j];
		}
	}
}

/* PosteriorBatchFn: each term at its own columns of the m points. */
static TunerErrorCode
additive_batch(const void *state, const double *u, int m, double *mean,
			   double *sd, TunerStatus *status)
{
	const AdditivePosterior *a = state;
	int max_m = 0;
	double *sub, *tmean, *tsd;
	TunerErrorCode rc = TUNER_OK;
	int i, j, r;

	for (i = 0; i < a->k; i++)
		if (a->m[i] > max_m)
			max_m = a->m[i];
	sub = tuner_alloc(sizeof(double) * (size_t)m * (max_m > 0 ? max_m : 1));
	tmean = tuner_alloc(sizeof(double) * m);
	tsd = tuner_alloc(sizeof(double) * m);
	if (!sub || !tmean || !tsd)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory predicting an additive model");
		goto done;
	}
	for (r = 0; r < m; r++)
	{
		mean[r] = a->intercept;
		sd[r] = 0.0; /* the variance until the end */
	}
	for (i = 0; i < a->k; i++)
	{
		const Posterior *t = &a->term[i];
		double c = a->coef[i];

		for (r = 0; r < m; r++)
			for (j = 0; j < a->m[i]; j++)
				sub[(size_t)r * a->m[i] + j] =
					u[(size_t)r * a->d + a->members[i][j]];
		rc = t->batch(t->state, sub, m, tmean, tsd, status);
		if (rc != TUNER_OK)
			goto done;
		for (r = 0; r < m; r++)
		{
			mean[r] += c * tmean[r];
			sd[r] += c * c * tsd[r] * tsd[r];
		}
	}
	for (r = 0; r < m; r++)
		sd[r] = sqrt(fmax(sd[r], 0.0));
done:
	tuner_free(sub);
	tuner_free(tmean);
	tuner_free(tsd);
	return rc;
}

/* See additive_posterior.h. */
TunerErrorCode
additive_posterior_init(AdditivePosterior *a, Posterior *post,
						TunerStatus *status)
{
	int inner = 0, any_categorical = 0;
	double prior_var = 0.0;
	int i, j;

	a->categories = tuner_alloc_zero(sizeof(int) * a->d);
	if (a->categories == NULL)
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory building an additive model");
	for (i = 0; i < a->k; i++)
	{
		const Posterior *t = &a->term[i];

		if (t->n_scratch > inner)
			inner = t->n_scratch;
		prior_var += a->coef[i] * a->coef[i] * t->prior_var;
		for (j = 0; t->categories != NULL && j < a->m[i]; j++)
			if (t->categories[j] > 0)
			{
				a->categories[a->members[i][j]] = t->categories[j];
				any_categorical = 1;
			}
	}
	if (!any_categorical)
	{
		tuner_free(a->categories);
		a->categories = NULL;
	}
	post->d = a->d;
	post->prior_var = prior_var;
	post->n_scratch = 3 * a->d + inner;
	post->point = additive_point;
	post->batch = additive_batch;
	post->state = a;
	post->categories = a->categories;
	post->feasibility = NULL;
	return TUNER_OK;
}

void
additive_posterior_free(AdditivePosterior *a)
{
	tuner_free(a->categories);
	a->categories = NULL;
}
