/*
 * test_transfer.c
 *	  tuner_suggest with SUGGEST_ALG_ICM and the trials of an earlier study
 *	  as a transfer task: the earlier objective (on another scale and
 *	  offset, as on other hardware) becomes a task of its own, the fit
 *	  learns that it tracks this objective, and with four trials of its own
 *	  the study predicts its objective far better than a GP on those four.
 *	  Plus running trials, an unusable transfer task and bad input.
 */
#include <math.h>
#include <string.h>

#include "gp.h"
#include "icm.h"
#include "rng.h"
#include "suggest.h"
#include "unit.h"

#define TD		3
#define N_OWN	4
#define N_OLD	30
#define N_TEST	50

/* This study's objective, minimised at (0.3, 0.6, 0.2). */
static double
own_objective(const double *x)
{
	return sin(4 * (x[0] - 0.3)) * sin(4 * (x[0] - 0.3)) +
		(x[1] - 0.6) * (x[1] - 0.6) + 0.5 * (x[2] - 0.2) * (x[2] - 0.2);
}

/* The earlier study: the same landscape, three times larger, offset. */
static double
old_objective(const double *x)
{
	return 3.0 * own_objective(x) + 10.0;
}

typedef struct TransferStudy
{
	ParamSpec	space[TD];
	double		x[N_OWN * TD];
	double		y[N_OWN];
	double		xt[N_OLD * TD];
	double		yt[N_OLD];
	double		pending[TD];
	double		cfg[TD];
	double		ls[TD];
	int			used[2];
	SuggestInput in;
	SuggestResult out;
} TransferStudy;

static void
transfer_init(TransferStudy *s)
{
	TunerRng	rng;
	int			i,
				k;

	memset(s, 0, sizeof(TransferStudy));
	for (k = 0; k < TD; k++)
	{
		s->space[k].kind = PARAM_FLOAT;
		s->space[k].low = 0.0;
		s->space[k].high = 1.0;
	}
	rng_seed(&rng, 11);
	for (i = 0; i < N_OWN; i++)
	{
		for (k = 0; k < TD; k++)
			s->x[i * TD + k] = rng_uniform(&rng);
		s->y[i] = own_objective(s->x + i * TD);
	}
	for (i = 0; i < N_OLD; i++)
	{
		for (k = 0; k < TD; k++)
			s->xt[i * TD + k] = rng_uniform(&rng);
		s->yt[i] = old_objective(s->xt + i * TD);
	}
	s->in.params = s->space;
	s->in.d = TD;
	s->in.x_observed = s->x;
	s->in.y_observed = s->y;
	s->in.n_observed = N_OWN;
	s->in.n_initial = 2;
	s->in.design_index = N_OWN;
	s->in.design_seed = 3;
	s->in.seed = 29;
	s->in.algorithm = SUGGEST_ALG_ICM;
	s->in.x_transfer = s->xt;
	s->in.y_transfer = s->yt;
	s->in.n_transfer = N_OLD;
	s->in.n_transfer_tasks = 1;
	s->out.config = s->cfg;
	s->out.lengthscales = s->ls;
	s->out.task_used = s->used;
}

static TunerErrorCode
transfer_suggest(TransferStudy *s, TunerStatus *st)
{
	TunerErrorCode rc = tuner_suggest(&s->in, &s->out, st);

	if (rc != TUNER_OK)
		fprintf(stderr, "suggest failed: %s\n", st->message);
	return rc;
}

/* RMSE of predictions against this study's standardised objective. */
static double
rmse(const double *pred, const double *xs, double mean, double sd)
{
	double		sum = 0.0;
	int			i;

	for (i = 0; i < N_TEST; i++)
	{
		double		e = pred[i] - (own_objective(xs + i * TD) - mean) / sd;

		sum += e * e / N_TEST;
	}
	return sqrt(sum);
}

/* The earlier study is a task of its own, learned to track this one. */
static void
test_transfer_task(void)
{
	TransferStudy s;
	TunerStatus st;
	TunerRng	rng;
	GpFitOptions gopt;
	GpModel    *gp = NULL;
	double		xs[N_TEST * TD],
				mi[N_TEST],
				si[N_TEST],
				mg[N_TEST],
				sg[N_TEST],
				yo[N_OWN],
				xo[N_OWN * TD],
				corr[4];
	double		mean = 0.0,
				sd = 0.0,
				err_icm,
				err_gp;
	int			i;

	transfer_init(&s);
	CHECK(transfer_suggest(&s, &st) == TUNER_OK);
	CHECK(s.out.source == SUGGEST_MODEL);
	CHECK(s.used[0] == 0 && s.used[1] == 1);
	CHECK(s.out.icm != NULL);
	if (s.out.icm == NULL)
		return;
	CHECK(s.out.icm->T == 2);
	CHECK(s.out.icm->n == N_OWN + N_OLD);
	/* this study's trials lack the old objective and vice versa */
	CHECK(s.out.icm->kronecker == 0);
	CHECK(icm_task_correlation(s.out.icm, corr, &st) == TUNER_OK);
	CHECK(corr[1] > 0.8);
	if (!(corr[1] > 0.8))
		fprintf(stderr, "transfer correlation %g\n", corr[1]);
	for (i = 0; i < TD; i++)
		CHECK(s.cfg[i] >= 0.0 && s.cfg[i] <= 1.0);

	/* prediction of this objective against a GP on its four trials */
	rng_seed(&rng, 99);
	for (i = 0; i < N_TEST * TD; i++)
		xs[i] = rng_uniform(&rng);
	for (i = 0; i < N_OWN; i++)
		mean += s.y[i] / N_OWN;
	for (i = 0; i < N_OWN; i++)
		sd += (s.y[i] - mean) * (s.y[i] - mean);
	sd = sqrt(sd / (N_OWN - 1));
	for (i = 0; i < N_OWN; i++)
		yo[i] = (s.y[i] - mean) / sd;
	memcpy(xo, s.x, sizeof(xo));
	CHECK(icm_predict(s.out.icm, xs, N_TEST, 0, mi, si, &st) == TUNER_OK);
	gp_fit_options_init(&gopt);
	gopt.seed = 3;
	CHECK(gp_fit_standardized(xo, yo, N_OWN, TD, &gopt, &gp, &st) == TUNER_OK);
	if (gp != NULL)
	{
		CHECK(gp_predict(gp, xs, N_TEST, mg, sg, &st) == TUNER_OK);
		err_icm = rmse(mi, xs, mean, sd);
		err_gp = rmse(mg, xs, mean, sd);
		CHECK(err_icm < 0.5 * err_gp);
		if (!(err_icm < 0.5 * err_gp))
			fprintf(stderr, "rmse transfer %g gp %g\n", err_icm, err_gp);
	}
	gp_model_free(gp);
	icm_model_free(s.out.icm);
}

/* A running trial is fantasised: the suggestion differs from it. */
static void
test_transfer_pending(void)
{
	TransferStudy s;
	TunerStatus st;

	transfer_init(&s);
	CHECK(transfer_suggest(&s, &st) == TUNER_OK);
	icm_model_free(s.out.icm);
	memcpy(s.pending, s.cfg, sizeof(s.pending));
	s.in.x_pending = s.pending;
	s.in.n_pending = 1;
	CHECK(transfer_suggest(&s, &st) == TUNER_OK);
	CHECK(memcmp(s.pending, s.cfg, sizeof(s.pending)) != 0);
	CHECK(s.out.icm != NULL && s.out.icm->n == N_OWN + N_OLD);
	icm_model_free(s.out.icm);
}

/* An earlier objective with no spread says nothing: GP-EI, as without. */
static void
test_transfer_constant(void)
{
	TransferStudy s;
	TunerStatus st;
	int			i;

	transfer_init(&s);
	for (i = 0; i < N_OLD; i++)
		s.yt[i] = 4.0;
	CHECK(transfer_suggest(&s, &st) == TUNER_OK);
	CHECK(s.used[0] == 0 && s.used[1] == -1);
	CHECK(s.out.icm == NULL);
	CHECK(s.out.source == SUGGEST_MODEL);
}

static void
test_transfer_bad_input(void)
{
	TransferStudy s;
	TunerStatus st;

	transfer_init(&s);
	s.in.y_transfer = NULL;
	CHECK(tuner_suggest(&s.in, &s.out, &st) == TUNER_ERR_INVALID);

	transfer_init(&s);
	s.in.n_transfer_tasks = 0;
	CHECK(tuner_suggest(&s.in, &s.out, &st) == TUNER_ERR_INVALID);

	transfer_init(&s);
	s.in.n_transfer = -1;
	CHECK(tuner_suggest(&s.in, &s.out, &st) == TUNER_ERR_INVALID);

	transfer_init(&s);
	s.xt[4] = NAN;
	CHECK(tuner_suggest(&s.in, &s.out, &st) == TUNER_ERR_INVALID);

	transfer_init(&s);
	s.yt[7] = INFINITY;
	CHECK(tuner_suggest(&s.in, &s.out, &st) == TUNER_ERR_INVALID);
	CHECK(strstr(st.message, "infinite") != NULL);

	/* a missing earlier value (NaN) is allowed */
	transfer_init(&s);
	s.yt[7] = NAN;
	CHECK(tuner_suggest(&s.in, &s.out, &st) == TUNER_OK);
	icm_model_free(s.out.icm);
}

/*
 * The prior mean of W (IcmFitOptions.w_prior_mean) that transfer uses: all
 * zeros is the default prior exactly; with a positive mean for both tasks,
 * fits from two trials of this study and thirty of the earlier one (no
 * point observes both) learn a positive correlation whatever the seed.
 */
static void
test_transfer_prior(void)
{
	TransferStudy s;
	TunerStatus st;
	IcmFitOptions opt;
	IcmModel   *plain = NULL,
			   *zero = NULL,
			   *pos = NULL;
	double		x[(2 + N_OLD) * TD],
				y[(2 + N_OLD) * 2],
				mean = 0.0,
				sd = 0.0,
				corr[4],
				zeros[4] = {0.0, 0.0, 0.0, 0.0},
				loading[4] = {1.0, 0.0, 1.0, 0.0};
	int			i,
				seed,
				negative = 0;

	transfer_init(&s);
	memcpy(x, s.x, sizeof(double) * 2 * TD);
	memcpy(x + 2 * TD, s.xt, sizeof(double) * N_OLD * TD);
	for (i = 0; i < N_OLD; i++)
		mean += s.yt[i] / N_OLD;
	for (i = 0; i < N_OLD; i++)
		sd += (s.yt[i] - mean) * (s.yt[i] - mean);
	sd = sqrt(sd / (N_OLD - 1));
	for (i = 0; i < 2 + N_OLD; i++)
	{
		y[i * 2] = i < 2 ? (i == 0 ? -0.7071 : 0.7071) : NAN;
		y[i * 2 + 1] = i < 2 ? NAN : (s.yt[i - 2] - mean) / sd;
	}
	/* the two trials of this study, standardised: the worse one second */
	if (s.y[0] > s.y[1])
	{
		y[0] = 0.7071;
		y[2] = -0.7071;
	}

	icm_fit_options_init(&opt);
	opt.rank = 2;
	opt.seed = 5;
	CHECK(icm_fit(x, y, 2 + N_OLD, TD, 2, &opt, &plain, &st) == TUNER_OK);
	opt.w_prior_mean = zeros;
	CHECK(icm_fit(x, y, 2 + N_OLD, TD, 2, &opt, &zero, &st) == TUNER_OK);
	if (plain != NULL && zero != NULL)
	{
		CHECK(plain->log_likelihood == zero->log_likelihood);
		CHECK(memcmp(plain->W, zero->W, sizeof(double) * 4) == 0);
		CHECK(memcmp(plain->lengthscales, zero->lengthscales,
					 sizeof(double) * TD) == 0);
	}
	icm_model_free(plain);
	icm_model_free(zero);

	for (seed = 1; seed <= 8; seed++)
	{
		opt.seed = seed;
		opt.w_prior_mean = NULL;
		plain = NULL;
		if (icm_fit(x, y, 2 + N_OLD, TD, 2, &opt, &plain, &st) == TUNER_OK &&
			icm_task_correlation(plain, corr, &st) == TUNER_OK)
			negative += corr[1] < 0.0;
		icm_model_free(plain);

		opt.w_prior_mean = loading;
		pos = NULL;
		CHECK(icm_fit(x, y, 2 + N_OLD, TD, 2, &opt, &pos, &st) == TUNER_OK);
		if (pos == NULL)
			continue;
		CHECK(icm_task_correlation(pos, corr, &st) == TUNER_OK);
		CHECK(corr[1] > 0.0);
		if (!(corr[1] > 0.0))
			fprintf(stderr, "seed %d: correlation %g\n", seed, corr[1]);
		icm_model_free(pos);
	}
	printf("  transfer from 2 own trials: correlation negative in %d of 8 "
		   "fits without the prior mean, 0 with it\n", negative);
}

void
test_transfer(void)
{
	test_transfer_prior();
	test_transfer_task();
	test_transfer_pending();
	test_transfer_constant();
	test_transfer_bad_input();
}
