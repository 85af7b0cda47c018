/*
 * test_icm_suggest.c
 *	  tuner_suggest with SUGGEST_ALG_ICM and SUGGEST_ALG_RANDOM: valid,
 *	  untaken and reproducible points; the Kronecker path when every metric
 *	  is reported and the full path when some are missing; unusable metrics
 *	  left out; ICM with no metric left equal to GP-EI; running trials; rank
 *	  defaults and clamping; warm starts; bad input.  And that a correlated
 *	  metric observed at more points predicts the objective better than a
 *	  GP on the objective alone.
 */
#include <math.h>
#include <string.h>

#include "gp.h"
#include "icm.h"
#include "rng.h"
#include "suggest.h"
#include "unit.h"

#define D		3
#define N_AUX	3
#define MAX_N	40

/* The objective, minimised at (0.3, 0.6, 0). */
static double
objective(const double *x)
{
	return (x[0] - 0.3) * (x[0] - 0.3) + (x[1] - 0.6) * (x[1] - 0.6) +
		0.5 * x[2];
}

/*
 * Auxiliary metrics: a noisy multiple of the objective, an unrelated
 * wave, and a constant.
 */
static void
aux_metrics(const double *x, double *aux)
{
	aux[0] = 2.0 * objective(x) + 0.05 * sin(17 * x[2]);
	aux[1] = sin(5 * x[0]) + x[1];
	aux[2] = 3.0;
}

typedef struct Study
{
	ParamSpec	space[D];
	double		x[MAX_N * D];
	double		y[MAX_N];
	double		aux[MAX_N * N_AUX];
	double		cfg[D];
	double		ls[D];
	int			used[1 + N_AUX];
	SuggestInput in;
	SuggestResult out;
} Study;

/* A 3-d float space with n observed trials from the design, all reported. */
static void
study_init(Study *s, int n)
{
	TunerRng	rng;
	int			i,
				k;

	memset(s, 0, sizeof(Study));
	for (k = 0; k < D; k++)
	{
		s->space[k].kind = PARAM_FLOAT;
		s->space[k].low = 0.0;
		s->space[k].high = 1.0;
	}
	rng_seed(&rng, 5);
	for (i = 0; i < n; i++)
	{
		for (k = 0; k < D; k++)
			s->x[i * D + k] = rng_uniform(&rng);
		s->y[i] = objective(s->x + i * D);
		aux_metrics(s->x + i * D, s->aux + i * N_AUX);
	}
	s->in.params = s->space;
	s->in.d = D;
	s->in.x_observed = s->x;
	s->in.y_observed = s->y;
	s->in.n_observed = n;
	s->in.n_initial = 5;
	s->in.design_index = n;
	s->in.design_seed = 3;
	s->in.seed = 17;
	s->in.algorithm = SUGGEST_ALG_ICM;
	s->in.y_aux = s->aux;
	s->in.n_aux = N_AUX;
	s->out.config = s->cfg;
	s->out.lengthscales = s->ls;
	s->out.task_used = s->used;
}

static int
suggest_ok(Study *s)
{
	TunerStatus st;
	TunerErrorCode rc = tuner_suggest(&s->in, &s->out, &st);

	if (rc != TUNER_OK)
		fprintf(stderr, "suggest failed: %s\n", st.message);
	return rc == TUNER_OK;
}

static int
is_observed(const Study *s, const double *c)
{
	int			i;

	for (i = 0; i < s->in.n_observed; i++)
		if (memcmp(s->x + i * D, c, sizeof(double) * D) == 0)
			return 1;
	return 0;
}

/* A study run with ICM: valid, new points; the constant metric left out. */
static void
test_study(void)
{
	Study		s;
	int			n,
				k;
	double		best = HUGE_VAL;

	study_init(&s, 0);
	for (n = 0; n < 20; n++)
	{
		s.in.n_observed = n;
		s.in.design_index = n;
		s.in.seed = 100 + n;
		if (!suggest_ok(&s))
		{
			CHECK(0);
			break;
		}
		for (k = 0; k < D; k++)
			CHECK(s.cfg[k] >= 0.0 && s.cfg[k] <= 1.0);
		CHECK(!is_observed(&s, s.cfg));
		CHECK(s.out.source == (n < 5 ? SUGGEST_DESIGN : SUGGEST_MODEL));
		if (s.out.source == SUGGEST_MODEL && n < 10)
		{
			/* fewer than ICM_MIN_TRIALS: GP-EI's step */
			CHECK(s.out.icm == NULL && s.used[0] == 0 && s.used[1] == -1);
			CHECK(isfinite(s.out.log_ei) && isfinite(s.out.log_likelihood));
		}
		else if (s.out.source == SUGGEST_MODEL)
		{
			CHECK(s.out.icm != NULL);
			if (s.out.icm == NULL)
				break;
			CHECK(s.out.icm->T == 3 && s.out.icm->rank == 2);
			CHECK(s.used[0] == 0 && s.used[1] == 1 && s.used[2] == 2 &&
				  s.used[3] == -1);
			CHECK(s.out.icm->kronecker == 1);
			CHECK(isfinite(s.out.predicted_mean) && s.out.predicted_sd >= 0);
			CHECK(isfinite(s.out.log_ei) && isfinite(s.out.log_likelihood));
			CHECK(s.out.fit_seconds >= 0.0);
			CHECK_CLOSE(s.out.outputscale, s.out.icm->B[0], 0);
			CHECK(s.out.noise == s.out.icm->noise[0]);
			CHECK(s.ls[0] == s.out.icm->lengthscales[0]);
			icm_model_free(s.out.icm);
		}
		else
		{
			CHECK(s.out.icm == NULL && isnan(s.out.fit_seconds));
			CHECK(s.used[0] == -1);
		}
		memcpy(s.x + n * D, s.cfg, sizeof(s.cfg));
		s.y[n] = objective(s.cfg);
		aux_metrics(s.cfg, s.aux + n * N_AUX);
		best = fmin(best, s.y[n]);
	}
	/* the minimum is 0; a design point alone rarely gets below 0.05 */
	CHECK(best < 0.02);
}

/* Same input and seed, same point; missing metrics use the full path. */
static void
test_paths_and_determinism(void)
{
	Study		s;
	double		first[D];

	study_init(&s, 12);
	CHECK(suggest_ok(&s));
	memcpy(first, s.cfg, sizeof(first));
	CHECK(s.out.icm != NULL && s.out.icm->kronecker == 1);
	icm_model_free(s.out.icm);
	CHECK(suggest_ok(&s));
	CHECK(memcmp(first, s.cfg, sizeof(first)) == 0);
	icm_model_free(s.out.icm);

	/* some trials did not report the first metric */
	s.aux[2 * N_AUX] = NAN;
	s.aux[7 * N_AUX] = NAN;
	CHECK(suggest_ok(&s));
	CHECK(s.out.icm != NULL && s.out.icm->kronecker == 0);
	CHECK(s.out.icm != NULL && isnan(s.out.icm->y[2 * 3 + 1]));
	CHECK(s.used[1] == 1 && s.used[2] == 2);
	icm_model_free(s.out.icm);

	/* a metric reported once only is left out */
	{
		int			i;

		for (i = 1; i < 12; i++)
			s.aux[i * N_AUX + 1] = NAN;
	}
	CHECK(suggest_ok(&s));
	CHECK(s.used[1] == 1 && s.used[2] == -1 && s.used[3] == -1);
	CHECK(s.out.icm != NULL && s.out.icm->T == 2 && s.out.icm->rank == 2);
	icm_model_free(s.out.icm);
}

/* With no usable metric, ICM is exactly GP-EI. */
static void
test_one_task_is_gp(void)
{
	Study		s;
	double		icm_cfg[D],
				icm_ls[D];
	double		icm_mean,
				icm_sd,
				icm_ll;
	int			variant;

	for (variant = 0; variant < 2; variant++)
	{
		int			i;

		study_init(&s, 10);
		if (variant == 0)
			s.in.n_aux = 0;
		else
			for (i = 0; i < 10; i++)
			{
				s.aux[i * N_AUX] = NAN; /* never reported */
				s.aux[i * N_AUX + 1] = -1.0;	/* constant */
			}
		s.in.x_pending = s.x + 9 * D;	/* and one running trial */
		s.in.n_pending = 1;
		s.in.n_observed = 9;
		CHECK(suggest_ok(&s));
		CHECK(s.out.icm == NULL);
		CHECK(s.used[0] == 0);
		if (variant == 1)
			CHECK(s.used[1] == -1 && s.used[2] == -1 && s.used[3] == -1);
		memcpy(icm_cfg, s.cfg, sizeof(icm_cfg));
		memcpy(icm_ls, s.ls, sizeof(icm_ls));
		icm_mean = s.out.predicted_mean;
		icm_sd = s.out.predicted_sd;
		icm_ll = s.out.log_likelihood;

		s.in.algorithm = SUGGEST_ALG_GP_EI;
		CHECK(suggest_ok(&s));
		CHECK(memcmp(icm_cfg, s.cfg, sizeof(icm_cfg)) == 0);
		CHECK(memcmp(icm_ls, s.ls, sizeof(icm_ls)) == 0);
		CHECK(icm_mean == s.out.predicted_mean && icm_sd == s.out.predicted_sd);
		CHECK(icm_ll == s.out.log_likelihood);
		CHECK(s.out.fit_seconds >= 0.0);
	}
}

/* A running trial at the proposed point moves the next one away. */
static void
test_pending(void)
{
	Study		s;
	double		first[D];
	int			k,
				same = 1;

	study_init(&s, 12);
	CHECK(suggest_ok(&s));
	icm_model_free(s.out.icm);
	memcpy(first, s.cfg, sizeof(first));
	s.in.x_pending = first;
	s.in.n_pending = 1;
	CHECK(suggest_ok(&s));
	CHECK(s.out.source == SUGGEST_MODEL);
	for (k = 0; k < D; k++)
		same &= fabs(s.cfg[k] - first[k]) < 1e-6;
	CHECK(!same);
	/* the fit itself does not include the running trial */
	CHECK(s.out.icm != NULL && s.out.icm->n == 12);
	icm_model_free(s.out.icm);
}

/* Default rank min(2, T), the user's clamped to T; warm starts. */
static void
test_rank_and_warm(void)
{
	Study		s;
	IcmModel   *prev;
	double		warm_ls[D];
	int			rank;

	study_init(&s, 12);
	for (rank = 1; rank <= 5; rank += 2)
	{
		s.in.icm_rank = rank;
		CHECK(suggest_ok(&s));
		CHECK(s.out.icm != NULL && s.out.icm->rank == (rank < 3 ? rank : 3));
		icm_model_free(s.out.icm);
	}

	/* warm start from the previous fit, as the glue would pass it */
	s.in.icm_rank = 0;
	CHECK(suggest_ok(&s));
	prev = s.out.icm;
	CHECK(prev != NULL && prev->rank == 2);
	if (prev == NULL)
		return;
	memcpy(warm_ls, prev->lengthscales, sizeof(warm_ls));
	s.in.warm_lengthscales = warm_ls;
	s.in.warm_T = prev->T;
	s.in.warm_rank = prev->rank;
	s.in.warm_W = prev->W;
	s.in.warm_v = prev->v;
	s.in.warm_task_noise = prev->noise;
	s.in.warm_task_mean = prev->mean;
	s.in.n_observed = 13;
	s.x[12 * D] = 0.31;
	s.x[12 * D + 1] = 0.62;
	s.x[12 * D + 2] = 0.05;
	s.y[12] = objective(s.x + 12 * D);
	aux_metrics(s.x + 12 * D, s.aux + 12 * N_AUX);
	CHECK(suggest_ok(&s));
	CHECK(s.out.icm != NULL);
	/* refining the previous fit ends no worse than where it started */
	icm_model_free(s.out.icm);

	/* a warm start of another shape is ignored, not an error */
	s.in.warm_T = 4;
	CHECK(suggest_ok(&s));
	CHECK(s.out.icm != NULL);
	icm_model_free(s.out.icm);
	icm_model_free(prev);
}

/* SUGGEST_ALG_RANDOM: no design, no model. */
static void
test_random(void)
{
	Study		s;
	int			i;

	study_init(&s, 3);
	s.in.algorithm = SUGGEST_ALG_RANDOM;
	for (i = 0; i < 5; i++)
	{
		s.in.seed = i;
		CHECK(suggest_ok(&s));
		CHECK(s.out.source == SUGGEST_RANDOM);
		CHECK(s.out.icm == NULL && isnan(s.out.fit_seconds));
		CHECK(isnan(s.out.predicted_mean) && s.used[0] == -1);
		CHECK(!is_observed(&s, s.cfg));
	}
}

static void
expect_invalid(Study *s, const char *fragment)
{
	TunerStatus st;

	tuner_status_clear(&st);
	CHECK(tuner_suggest(&s->in, &s->out, &st) == TUNER_ERR_INVALID);
	CHECK(strstr(st.message, fragment) != NULL);
	if (strstr(st.message, fragment) == NULL)
		fprintf(stderr, "message: %s\n", st.message);
	CHECK(s->out.icm == NULL);
}

static void
test_bad_input(void)
{
	Study		s;

	study_init(&s, 8);
	s.in.y_aux = NULL;
	expect_invalid(&s, "auxiliary metric values are missing");
	s.in.y_aux = s.aux;
	s.in.n_aux = -1;
	expect_invalid(&s, "must not be negative");
	s.in.n_aux = N_AUX;
	s.aux[4 * N_AUX + 1] = INFINITY;
	expect_invalid(&s, "auxiliary metric 2 of trial 5 is infinite");
	s.aux[4 * N_AUX + 1] = -INFINITY;
	expect_invalid(&s, "infinite");
	s.aux[4 * N_AUX + 1] = 0.5;
	s.in.icm_rank = -2;
	expect_invalid(&s, "rank must not be negative");
	s.in.icm_rank = 0;
	s.in.algorithm = (SuggestAlgorithm) 7;
	expect_invalid(&s, "unknown suggestion algorithm");
	s.in.algorithm = SUGGEST_ALG_ICM;
	s.y[2] = NAN;
	expect_invalid(&s, "objective value is NaN");
	s.y[2] = 1.0;
	CHECK(suggest_ok(&s));
	icm_model_free(s.out.icm);
}

/*
 * A metric that tracks the objective, reported at 30 points, against the
 * objective measured at 8: the ICM's objective task predicts held-out
 * points better than a GP fitted to the 8.
 */
static void
test_correlated_metric_helps(void)
{
	int			n = 30,
				n_obj = 8,
				d = 2,
				T = 2,
				m = 60,
				i;
	double		x[30 * 2],
				y[30 * 2],
				xo[8 * 2],
				yo[8],
				xs[60 * 2],
				truth[60],
				mi[60],
				si[60],
				mg[60],
				sg[60];
	double		err_icm = 0.0,
				err_gp = 0.0;
	TunerRng	rng;
	TunerStatus st;
	IcmFitOptions iopt;
	GpFitOptions gopt;
	IcmModel   *icm = NULL;
	GpModel    *gp = NULL;

	rng_seed(&rng, 77);
	for (i = 0; i < n * d; i++)
		x[i] = rng_uniform(&rng);
	for (i = 0; i < m * d; i++)
		xs[i] = rng_uniform(&rng);
	/* aux a(x); objective 1.5 a + 0.3: standardised, the same function */
	for (i = 0; i < n; i++)
	{
		double		a = sin(3 * x[i * d]) + cos(4 * x[i * d + 1]);

		y[i * T + 1] = a;
		y[i * T] = i < n_obj ? 1.5 * a + 0.3 : NAN;
		if (i < n_obj)
		{
			xo[i * d] = x[i * d];
			xo[i * d + 1] = x[i * d + 1];
			yo[i] = y[i * T];
		}
	}
	for (i = 0; i < m; i++)
		truth[i] = 1.5 * (sin(3 * xs[i * d]) + cos(4 * xs[i * d + 1])) + 0.3;

	/* both fitted in the same (objective-standardised) units */
	{
		double		mean = 0.0,
					sd = 0.0;

		for (i = 0; i < n_obj; i++)
			mean += yo[i] / n_obj;
		for (i = 0; i < n_obj; i++)
			sd += (yo[i] - mean) * (yo[i] - mean);
		sd = sqrt(sd / (n_obj - 1));
		for (i = 0; i < n_obj; i++)
		{
			yo[i] = (yo[i] - mean) / sd;
			y[i * T] = yo[i];
		}
		for (i = 0; i < m; i++)
			truth[i] = (truth[i] - mean) / sd;
		/* the aux standardised over its own values */
		{
			double		am = 0.0,
						as = 0.0;

			for (i = 0; i < n; i++)
				am += y[i * T + 1] / n;
			for (i = 0; i < n; i++)
				as += (y[i * T + 1] - am) * (y[i * T + 1] - am);
			as = sqrt(as / (n - 1));
			for (i = 0; i < n; i++)
				y[i * T + 1] = (y[i * T + 1] - am) / as;
		}
	}

	icm_fit_options_init(&iopt);
	iopt.rank = 1;
	iopt.seed = 3;
	CHECK(icm_fit(x, y, n, d, T, &iopt, &icm, &st) == TUNER_OK);
	gp_fit_options_init(&gopt);
	gopt.seed = 3;
	CHECK(gp_fit_standardized(xo, yo, n_obj, d, &gopt, &gp, &st) == TUNER_OK);
	if (icm == NULL || gp == NULL)
	{
		icm_model_free(icm);
		gp_model_free(gp);
		return;
	}
	CHECK(icm_predict(icm, xs, m, 0, mi, si, &st) == TUNER_OK);
	CHECK(gp_predict(gp, xs, m, mg, sg, &st) == TUNER_OK);
	for (i = 0; i < m; i++)
	{
		err_icm += (mi[i] - truth[i]) * (mi[i] - truth[i]) / m;
		err_gp += (mg[i] - truth[i]) * (mg[i] - truth[i]) / m;
	}
	/* not a close call: the metric pins the objective's shape down */
	CHECK(sqrt(err_icm) < 0.5 * sqrt(err_gp));
	if (!(sqrt(err_icm) < 0.5 * sqrt(err_gp)))
		fprintf(stderr, "rmse icm %g gp %g\n", sqrt(err_icm), sqrt(err_gp));
	icm_model_free(icm);
	gp_model_free(gp);
}

void
test_icm_suggest(void)
{
	test_study();
	test_paths_and_determinism();
	test_one_task_is_gp();
	test_pending();
	test_rank_and_warm();
	test_random();
	test_bad_input();
	test_correlated_metric_helps();
}
