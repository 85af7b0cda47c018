/*
 * test_additive_posterior.c
 *	  additive_posterior.c against closed forms: two terms with known means
 *	  and variances over overlapping subsets of three dimensions; the sum's
 *	  mean and variance at a point and in a batch, and its gradients
 *	  against central finite differences.
 */
#include <math.h>
#include <string.h>

#include "additive_posterior.h"
#include "unit.h"

/*
 * A term over m dimensions with mean sum_j a_j v_j^2 and variance
 * s + sum_j v_j (closed forms, so that the sum is known exactly).
 */
typedef struct QuadTerm
{
	int m;
	double a[3];
	double s;
} QuadTerm;

static void
quad_point(const void *state, const double *v, double *mean, double *var,
		   double *dmean, double *dvar, double *scratch)
{
	const QuadTerm *q = state;
	int j;

	(void) scratch;
	*mean = 0.0;
	*var = q->s;
	for (j = 0; j < q->m; j++)
	{
		*mean += q->a[j] * v[j] * v[j];
		*var += v[j];
		if (dmean != NULL)
		{
			dmean[j] = 2.0 * q->a[j] * v[j];
			dvar[j] = 1.0;
		}
	}
}

static TunerErrorCode
quad_batch(const void *state, const double *v, int n, double *mean,
		   double *sd, TunerStatus *status)
{
	const QuadTerm *q = state;
	int r;

	(void) status;
	for (r = 0; r < n; r++)
	{
		double var;

		quad_point(state, v + (size_t) r * q->m, &mean[r], &var, NULL, NULL,
				   NULL);
		sd[r] = sqrt(var);
	}
	return TUNER_OK;
}

static void
quad_posterior(const QuadTerm *q, Posterior *post, int categorical)
{
	static int	categories[3] = {0, 3, 0};

	memset(post, 0, sizeof(Posterior));
	post->d = q->m;
	post->prior_var = q->s;
	post->n_scratch = 4;
	post->point = quad_point;
	post->batch = quad_batch;
	post->state = q;
	post->categories = categorical ? categories : NULL;
}

void
test_additive_posterior(void)
{
	/* term 0 over (u0, u1), term 1 over (u1, u2): u1 is shared */
	QuadTerm	q0 = {2, {1.5, -2.0, 0}, 0.2};
	QuadTerm	q1 = {2, {0.5, 3.0, 0}, 0.1};
	int			members0[2] = {0, 1};
	int			members1[2] = {1, 2};
	const int  *members[2] = {members0, members1};
	int			m[2] = {2, 2};
	double		coef[2] = {2.0, -0.5};
	Posterior	terms[2],
				post;
	AdditivePosterior additive;
	double		u[3] = {0.3, 0.7, 0.2},
				pts[6] = {0.3, 0.7, 0.2, 0.9, 0.1, 0.5};
	double		mean,
				var,
				dmean[3],
				dvar[3],
				bmean[2],
				bsd[2],
				scratch[64];
	double		want_mean,
				want_var;
	int			j;

	quad_posterior(&q0, &terms[0], 0);
	quad_posterior(&q1, &terms[1], 0);
	memset(&additive, 0, sizeof(additive));
	additive.d = 3;
	additive.k = 2;
	additive.term = terms;
	additive.members = members;
	additive.m = m;
	additive.coef = coef;
	additive.intercept = 0.25;
	CHECK(additive_posterior_init(&additive, &post, NULL) == TUNER_OK);
	CHECK(post.d == 3 && post.categories == NULL);
	CHECK(post.n_scratch <= 64);
	CHECK_CLOSE(post.prior_var, 4.0 * 0.2 + 0.25 * 0.1, 1e-15);

	post.point(post.state, u, &mean, &var, dmean, dvar, scratch);
	want_mean = 0.25 + 2.0 * (1.5 * 0.09 - 2.0 * 0.49) -
		0.5 * (0.5 * 0.49 + 3.0 * 0.04);
	want_var = 4.0 * (0.2 + 0.3 + 0.7) + 0.25 * (0.1 + 0.7 + 0.2);
	CHECK_CLOSE(mean, want_mean, 1e-14);
	CHECK_CLOSE(var, want_var, 1e-14);
	/* u1 gets both terms' gradients */
	CHECK_CLOSE(dmean[0], 2.0 * 2.0 * 1.5 * 0.3, 1e-14);
	CHECK_CLOSE(dmean[1], 2.0 * 2.0 * -2.0 * 0.7 - 0.5 * 2.0 * 0.5 * 0.7,
				1e-14);
	CHECK_CLOSE(dvar[1], 4.0 + 0.25, 1e-14);
	for (j = 0; j < 3; j++)
	{
		double		up[3],
					dn[3],
					m_up,
					m_dn,
					v_up,
					v_dn,
					h = 1e-6;

		memcpy(up, u, sizeof(u));
		memcpy(dn, u, sizeof(u));
		up[j] += h;
		dn[j] -= h;
		post.point(post.state, up, &m_up, &v_up, NULL, NULL, scratch);
		post.point(post.state, dn, &m_dn, &v_dn, NULL, NULL, scratch);
		CHECK_CLOSE(dmean[j], (m_up - m_dn) / (2 * h), 1e-6);
		CHECK_CLOSE(dvar[j], (v_up - v_dn) / (2 * h), 1e-6);
	}

	/* the batch agrees with the point, row by row */
	CHECK(post.batch(post.state, pts, 2, bmean, bsd, NULL) == TUNER_OK);
	CHECK_CLOSE(bmean[0], mean, 1e-14);
	CHECK_CLOSE(bsd[0], sqrt(var), 1e-14);
	post.point(post.state, pts + 3, &mean, &var, NULL, NULL, scratch);
	CHECK_CLOSE(bmean[1], mean, 1e-14);
	CHECK_CLOSE(bsd[1], sqrt(var), 1e-14);
	additive_posterior_free(&additive);

	/* a term's categorical dimension is the sum's, at its place in u */
	quad_posterior(&q1, &terms[1], 1);
	CHECK(additive_posterior_init(&additive, &post, NULL) == TUNER_OK);
	CHECK(post.categories != NULL);
	CHECK(post.categories[0] == 0 && post.categories[1] == 0 &&
		  post.categories[2] == 3);
	additive_posterior_free(&additive);
	CHECK(additive.categories == NULL);
}
