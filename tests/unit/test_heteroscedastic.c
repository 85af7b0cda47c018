/*
 * test_heteroscedastic.c
 *	  The GP with per-point extra noise (gp.h extra_noise, issue 29)
 *	  against closed forms: equal extra noise everywhere is the
 *	  homoscedastic GP with the sum as its noise; a huge extra noise makes
 *	  a point irrelevant; the likelihood gradient with extra noise against
 *	  finite differences; GP-EI's mapping of standard errors through the
 *	  warp and the standardisation (delta method) and of disturbed trials;
 *	  and a step without any known noise equal to the plain step.
 */
#include <math.h>
#include <string.h>

#include "gp.h"
#include "output_warp.h"
#include "rng.h"
#include "suggest.h"
#include "suggest_internal.h"
#include "unit.h"

#define N 12
#define D 2

static void
fill_data(double *x, double *y, int n, uint64_t seed)
{
	TunerRng	rng;
	int			i;

	rng_seed(&rng, seed);
	for (i = 0; i < n * D; i++)
		x[i] = rng_uniform(&rng);
	for (i = 0; i < n; i++)
		y[i] = sin(4 * x[i * D]) + cos(3 * x[i * D + 1]) + 0.1 * rng_normal(&rng);
}

static GpModel *
make_model(const double *x, const double *y, int n, double noise,
		   const double *extra)
{
	TunerStatus status;
	GpModel    *m = gp_model_create(n, D, &status);

	memcpy(m->x, x, sizeof(double) * n * D);
	memcpy(m->y, y, sizeof(double) * n);
	m->lengthscales[0] = 0.3;
	m->lengthscales[1] = 0.5;
	m->outputscale = 1.2;
	m->noise = noise;
	m->mean = 0.1;
	CHECK(gp_model_set_extra_noise(m, extra, &status) == TUNER_OK);
	CHECK(gp_prepare(m, &status) == TUNER_OK);
	return m;
}

/* extra_i = c for all i is the homoscedastic GP with noise + c */
static void
check_equal_extra(void)
{
	double		x[N * D],
				y[N],
				extra[N],
				u[3 * D] = {0.1, 0.2, 0.5, 0.5, 0.9, 0.3};
	double		m1[3],
				s1[3],
				m2[3],
				s2[3];
	TunerStatus status;
	GpModel    *a,
			   *b;
	int			i;

	fill_data(x, y, N, 11);
	for (i = 0; i < N; i++)
		extra[i] = 0.04;
	a = make_model(x, y, N, 0.01, extra);
	b = make_model(x, y, N, 0.05, NULL);
	CHECK(a->extra_noise != NULL && b->extra_noise == NULL);
	CHECK_CLOSE(a->log_likelihood, b->log_likelihood, 1e-10);
	CHECK(gp_predict(a, u, 3, m1, s1, &status) == TUNER_OK);
	CHECK(gp_predict(b, u, 3, m2, s2, &status) == TUNER_OK);
	for (i = 0; i < 3; i++)
	{
		CHECK_CLOSE(m1[i], m2[i], 1e-10);
		CHECK_CLOSE(s1[i], s2[i], 1e-10);
	}
	gp_model_free(a);
	gp_model_free(b);

	/* all zero is no extra noise: the model keeps NULL */
	for (i = 0; i < N; i++)
		extra[i] = 0.0;
	a = make_model(x, y, N, 0.05, extra);
	CHECK(a->extra_noise == NULL);
	gp_model_free(a);

	/* a negative or non-finite one is refused */
	a = gp_model_create(N, D, &status);
	extra[3] = -1.0;
	CHECK(gp_model_set_extra_noise(a, extra, &status) == TUNER_ERR_INVALID);
	extra[3] = NAN;
	CHECK(gp_model_set_extra_noise(a, extra, &status) == TUNER_ERR_INVALID);
	gp_model_free(a);
}

/* a huge extra noise at one point: the GP without that point */
static void
check_huge_extra(void)
{
	double		x[N * D],
				y[N],
				extra[N] = {0},
				u[3 * D] = {0.1, 0.2, 0.5, 0.5, 0.9, 0.3};
	double		m1[3],
				s1[3],
				m2[3],
				s2[3],
				m3[3],
				s3[3];
	TunerStatus status;
	GpModel    *a,
			   *b,
			   *c;
	int			i;

	fill_data(x, y, N, 12);
	/* the last point is an outlier, measured with a huge standard error */
	y[N - 1] = 50.0;
	extra[N - 1] = 1e12;
	a = make_model(x, y, N, 0.01, extra);
	b = make_model(x, y, N - 1, 0.01, NULL);
	c = make_model(x, y, N, 0.01, NULL);
	CHECK(gp_predict(a, u, 3, m1, s1, &status) == TUNER_OK);
	CHECK(gp_predict(b, u, 3, m2, s2, &status) == TUNER_OK);
	CHECK(gp_predict(c, u, 3, m3, s3, &status) == TUNER_OK);
	for (i = 0; i < 3; i++)
	{
		CHECK_CLOSE(m1[i], m2[i], 1e-8);
		CHECK_CLOSE(s1[i], s2[i], 1e-8);
	}
	/* without the extra noise the outlier moves the prediction at its point */
	CHECK(gp_predict(a, x + (N - 1) * D, 1, m1, s1, &status) == TUNER_OK);
	CHECK(gp_predict(c, x + (N - 1) * D, 1, m3, s3, &status) == TUNER_OK);
	CHECK(m3[0] > 40.0 && m1[0] < 5.0);
	gp_model_free(a);
	gp_model_free(b);
	gp_model_free(c);
}

/* the likelihood gradient with extra noise, by finite differences */
static void
check_gradient_extra(int use_priors, uint64_t seed)
{
	double		x[N * D],
				y[N],
				extra[N],
				theta[D + 3],
				grad[D + 3],
				value,
				plain;
	TunerStatus status;
	TunerRng	rng;
	int			i,
				k;

	fill_data(x, y, N, seed);
	rng_seed(&rng, seed + 100);
	for (i = 0; i < N; i++)
		extra[i] = i % 3 == 0 ? 0.0 : 0.5 * rng_uniform(&rng);
	theta[0] = log(0.3);
	theta[1] = log(0.6);
	theta[D] = 0.2;
	theta[D + 1] = log(0.02);
	theta[D + 2] = 0.1;
	CHECK(gp_fit_objective_noise(x, y, N, D, NULL, extra, use_priors, theta,
								 &value, grad, &status) == TUNER_OK);
	CHECK(gp_fit_objective(x, y, N, D, use_priors, theta, &plain, NULL,
						   &status) == TUNER_OK);
	CHECK(fabs(value - plain) > 1e-3);
	for (k = 0; k < D + 3; k++)
	{
		double		h = 1e-6;
		double		tp[D + 3],
					tm[D + 3];
		double		vp,
					vm;

		memcpy(tp, theta, sizeof(tp));
		memcpy(tm, theta, sizeof(tm));
		tp[k] += h;
		tm[k] -= h;
		gp_fit_objective_noise(x, y, N, D, NULL, extra, use_priors, tp, &vp,
							   NULL, &status);
		gp_fit_objective_noise(x, y, N, D, NULL, extra, use_priors, tm, &vm,
							   NULL, &status);
		CHECK_CLOSE(grad[k], (vp - vm) / (2 * h), 1e-5);
	}

	/* equal extra c everywhere: the objective without priors at noise + c */
	if (!use_priors)
	{
		double		t2[D + 3];

		for (i = 0; i < N; i++)
			extra[i] = 0.03;
		CHECK(gp_fit_objective_noise(x, y, N, D, NULL, extra, 0, theta,
									 &value, NULL, &status) == TUNER_OK);
		memcpy(t2, theta, sizeof(t2));
		t2[D + 1] = log(0.02 + 0.03);
		CHECK(gp_fit_objective(x, y, N, D, 0, t2, &plain, NULL, &status) ==
			  TUNER_OK);
		CHECK_CLOSE(value, plain, 1e-10);
	}
}

/* gp_fit in the caller's units scales the extra noise with y's variance */
static void
check_fit_units(void)
{
	double		x[N * D],
				y[N],
				y10[N],
				extra[N],
				extra100[N];
	GpFitOptions opt;
	GpModel    *a,
			   *b;
	TunerStatus status;
	int			i;

	fill_data(x, y, N, 21);
	for (i = 0; i < N; i++)
	{
		y10[i] = 10.0 * y[i];
		extra[i] = i == 4 ? 0.5 : 0.0;
		extra100[i] = 100.0 * extra[i];
	}
	gp_fit_options_init(&opt);
	opt.seed = 3;
	opt.extra_noise = extra;
	CHECK(gp_fit(x, y, N, D, &opt, &a, &status) == TUNER_OK);
	opt.extra_noise = extra100;
	CHECK(gp_fit(x, y10, N, D, &opt, &b, &status) == TUNER_OK);
	CHECK(a->extra_noise != NULL && a->extra_noise[4] == 0.5);
	CHECK(b->extra_noise != NULL && b->extra_noise[4] == 50.0);
	CHECK_CLOSE(b->noise, 100.0 * a->noise, 1e-6);
	CHECK_CLOSE(b->outputscale, 100.0 * a->outputscale, 1e-6);
	gp_model_free(a);
	gp_model_free(b);

	/* a negative or NaN one is refused */
	extra[2] = -1.0;
	opt.extra_noise = extra;
	CHECK(gp_fit(x, y, N, D, &opt, &a, &status) == TUNER_ERR_INVALID && a == NULL);
	extra[2] = NAN;
	CHECK(gp_fit(x, y, N, D, &opt, &a, &status) == TUNER_ERR_INVALID && a == NULL);
}

/* GP-EI's extra noise of each observed value */
static void
check_suggest_extra(void)
{
	ParamSpec	space[1] = {{PARAM_FLOAT, 0, 1, 0, 0}};
	double		yv[4] = {1.0, 2.0, 3.0, 9.0};
	double		se[4] = {0.5, NAN, NAN, 0.0};
	int			dist[4] = {0, 1, 0, 1};
	double		z[4];
	double	   *extra;
	OutputWarp	warp;
	SuggestInput in;
	TunerStatus status;
	int			i;

	memset(&in, 0, sizeof(in));
	in.params = space;
	in.d = 1;
	in.y_observed = yv;
	in.n_observed = 4;

	/* none known: NULL, the homoscedastic step */
	memset(&warp, 0, sizeof(warp));
	CHECK(suggest_gp_extra_noise(&in, &warp, yv, 2.0, &extra, &status) == TUNER_OK);
	CHECK(extra == NULL);
	in.y_std_error = se;
	in.disturbed = NULL;
	se[0] = NAN;
	CHECK(suggest_gp_extra_noise(&in, &warp, yv, 2.0, &extra, &status) == TUNER_OK);
	CHECK(extra == NULL);
	se[0] = 0.5;

	/* identity warp: (se / y_sd)^2; disturbed without se: the constant */
	in.disturbed = dist;
	CHECK(suggest_gp_extra_noise(&in, &warp, yv, 2.0, &extra, &status) == TUNER_OK);
	CHECK(extra != NULL);
	CHECK_CLOSE(extra[0], 0.0625, 1e-15);
	CHECK(extra[1] == SUGGEST_DISTURBED_NOISE);
	CHECK(extra[2] == 0.0);
	/* a disturbed value with a known standard error (0) keeps it */
	CHECK(extra[3] == 0.0);
	tuner_free(extra);

	/*
	 * the log warp z = log(1 + (y - shift) / scale): dz/dy = 1 / (scale +
	 * y - shift), so extra = (se / (scale + y - shift) / y_sd)^2
	 */
	warp.active = 1;
	warp.shift = 1.0;
	warp.scale = 2.0;
	for (i = 0; i < 4; i++)
		z[i] = output_warp_apply(&warp, yv[i]);
	se[3] = 0.3;
	CHECK(suggest_gp_extra_noise(&in, &warp, z, 0.7, &extra, &status) == TUNER_OK);
	CHECK_CLOSE(extra[0], pow(0.5 / (2.0 + 0.0) / 0.7, 2), 1e-12);
	CHECK_CLOSE(extra[3], pow(0.3 / (2.0 + 8.0) / 0.7, 2), 1e-12);
	CHECK(extra[1] == SUGGEST_DISTURBED_NOISE);
	tuner_free(extra);

	/* a standard error whose square overflows: the largest extra noise */
	se[0] = 1e300;
	CHECK(suggest_gp_extra_noise(&in, &warp, z, 0.7, &extra, &status) == TUNER_OK);
	CHECK(extra[0] == GP_MAX_EXTRA_NOISE);
	tuner_free(extra);
}

/* a step with no known noise (NaN, no disturbed) is the plain step */
static void
check_step_unchanged(void)
{
	ParamSpec	space[2] = {{PARAM_FLOAT, 0, 1, 0, 0}, {PARAM_FLOAT, 0, 1, 0, 0}};
	double		x[N * D],
				y[N],
				se[N],
				cfg1[2],
				cfg2[2],
				cfg3[2];
	int			dist[N] = {0};
	SuggestInput in;
	SuggestResult out;
	TunerStatus status;
	double		mean1,
				ll1;
	int			i;

	fill_data(x, y, N, 31);
	for (i = 0; i < N; i++)
		se[i] = NAN;
	memset(&in, 0, sizeof(in));
	in.params = space;
	in.d = 2;
	in.x_observed = x;
	in.y_observed = y;
	in.n_observed = N;
	in.n_initial = 5;
	in.design_index = N;
	in.design_seed = 1;
	in.seed = 99;
	in.canonical = 1;
	memset(&out, 0, sizeof(out));
	out.config = cfg1;
	CHECK(tuner_suggest(&in, &out, &status) == TUNER_OK);
	CHECK(out.source == SUGGEST_MODEL);
	mean1 = out.predicted_mean;
	ll1 = out.log_likelihood;
	in.y_std_error = se;
	in.disturbed = dist;
	out.config = cfg2;
	CHECK(tuner_suggest(&in, &out, &status) == TUNER_OK);
	CHECK(cfg1[0] == cfg2[0] && cfg1[1] == cfg2[1]);
	CHECK(out.predicted_mean == mean1 && out.log_likelihood == ll1);

	/* known noise is an input: the fit sees it */
	for (i = 0; i < N; i++)
		se[i] = 0.2;
	out.config = cfg3;
	CHECK(tuner_suggest(&in, &out, &status) == TUNER_OK);
	CHECK(out.log_likelihood != ll1);
}

void
test_heteroscedastic(void)
{
	check_equal_extra();
	check_huge_extra();
	check_gradient_extra(0, 41);
	check_gradient_extra(1, 42);
	check_fit_units();
	check_suggest_extra();
	check_step_unchanged();
}
