/*
 * test_suggest.c
 *	  The whole suggestion step: a Branin study converges, the same history
 *	  and seed give the same point, running trials push the next point away,
 *	  discrete spaces are never repeated and run out cleanly.
 */
#include <math.h>
#include <string.h>

#include "suggest.h"
#include "unit.h"

static double
branin(const double *x)
{
	double		a = x[1] - 5.1 / (4 * M_PI * M_PI) * x[0] * x[0] + 5 / M_PI * x[0] - 6;

	return a * a + 10 * (1 - 1 / (8 * M_PI)) * cos(x[0]) + 10;
}

static void
input_init(SuggestInput *in, const ParamSpec *params, int d)
{
	memset(in, 0, sizeof(SuggestInput));
	in->params = params;
	in->d = d;
	in->n_initial = 5;
	in->design_seed = 99;
}

void
test_suggest(void)
{
	ParamSpec	space[2] = {{PARAM_FLOAT, -5, 10, 0, 0}, {PARAM_FLOAT, 0, 15, 0, 0}};
	double		x[60 * 2],
				y[60],
				cfg[2],
				cfg2[2],
				ls[2];
	SuggestInput in;
	SuggestResult out;
	TunerStatus status;
	int			n,
				model_steps = 0;
	double		best = HUGE_VAL;

	memset(&out, 0, sizeof(out));
	out.config = cfg;
	out.lengthscales = ls;
	input_init(&in, space, 2);
	in.x_observed = x;
	in.y_observed = y;
	for (n = 0; n < 30; n++)
	{
		in.n_observed = n;
		in.design_index = n;
		in.seed = 1000 + n;
		if (tuner_suggest(&in, &out, &status) != TUNER_OK)
		{
			fprintf(stderr, "suggest failed: %s\n", status.message);
			CHECK(0);
			break;
		}
		CHECK(cfg[0] >= -5 && cfg[0] <= 10 && cfg[1] >= 0 && cfg[1] <= 15);
		CHECK(out.source == (n < 5 ? SUGGEST_DESIGN : SUGGEST_MODEL));
		if (out.source == SUGGEST_MODEL)
		{
			model_steps++;
			CHECK(isfinite(out.predicted_mean) && out.predicted_sd >= 0.0);
			CHECK(isfinite(out.log_ei) && isfinite(out.log_likelihood));
		}
		x[2 * n] = cfg[0];
		x[2 * n + 1] = cfg[1];
		y[n] = branin(cfg);
		best = fmin(best, y[n]);
	}
	/* the global minimum is 0.397887 */
	CHECK(best < 0.45);
	CHECK(model_steps == 25);

	/* same history and seed: same point; another seed: still valid */
	in.n_observed = 20;
	in.design_index = 20;
	in.seed = 7;
	CHECK(tuner_suggest(&in, &out, &status) == TUNER_OK);
	memcpy(cfg2, cfg, sizeof(cfg2));
	CHECK(tuner_suggest(&in, &out, &status) == TUNER_OK);
	CHECK(cfg[0] == cfg2[0] && cfg[1] == cfg2[1]);

	/*
	 * GP-EI ignores auxiliary metrics, reports its fit time and which task
	 * it modelled, and hands back no ICM model
	 */
	{
		double		aux[20];
		int			used[2] = {7, 7};
		int			i;

		for (i = 0; i < 20; i++)
			aux[i] = i % 3;
		in.y_aux = aux;
		in.n_aux = 1;
		out.task_used = used;
		CHECK(tuner_suggest(&in, &out, &status) == TUNER_OK);
		CHECK(cfg[0] == cfg2[0] && cfg[1] == cfg2[1]);
		CHECK(out.fit_seconds >= 0.0 && out.icm == NULL);
		CHECK(used[0] == 0 && used[1] == -1);
		in.y_aux = NULL;
		in.n_aux = 0;
		out.task_used = NULL;
	}

	/* a running trial at the proposed point moves the next one away */
	in.x_pending = cfg2;
	in.n_pending = 1;
	CHECK(tuner_suggest(&in, &out, &status) == TUNER_OK);
	CHECK(!(fabs(cfg[0] - cfg2[0]) < 1e-6 && fabs(cfg[1] - cfg2[1]) < 1e-6));
	in.x_pending = NULL;
	in.n_pending = 0;

	/* NaN objective is rejected */
	y[3] = NAN;
	CHECK(tuner_suggest(&in, &out, &status) == TUNER_ERR_INVALID);
	CHECK(strlen(status.message) > 0);
	y[3] = 1.0;

	/* a 2 x 3 discrete space: six distinct points, then exhausted */
	{
		ParamSpec	disc[2] = {{PARAM_BOOL, 0, 0, 0, 0}, {PARAM_CATEGORICAL, 0, 0, 0, 3}};
		double		dx[8 * 2],
					dy[8];
		int			i,
					j;

		input_init(&in, disc, 2);
		in.n_initial = 2;
		in.x_observed = dx;
		in.y_observed = dy;
		for (i = 0; i < 6; i++)
		{
			in.n_observed = i;
			in.design_index = i;
			in.seed = i;
			CHECK(tuner_suggest(&in, &out, &status) == TUNER_OK);
			for (j = 0; j < i; j++)
				CHECK(!(dx[2 * j] == cfg[0] && dx[2 * j + 1] == cfg[1]));
			CHECK(cfg[0] == 0 || cfg[0] == 1);
			CHECK(cfg[1] == 0 || cfg[1] == 1 || cfg[1] == 2);
			dx[2 * i] = cfg[0];
			dx[2 * i + 1] = cfg[1];
			dy[i] = cfg[0] + cfg[1];
		}
		in.n_observed = 6;
		CHECK(tuner_suggest(&in, &out, &status) == TUNER_ERR_EXHAUSTED);
	}
}
