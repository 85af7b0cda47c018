/*
 * test_output_warp.c
 *	  The objective's transform (output_warp.h): the skewness against a
 *	  closed form, when it applies, that it is monotone and invertible with
 *	  the slope of its inverse, and a 10-D suggestion on a skewed objective
 *	  whose prediction comes back in the objective's units.
 */
#include <math.h>
#include <string.h>

#include "gp.h"
#include "output_warp.h"
#include "rng.h"
#include "suggest.h"
#include "unit.h"

/* Rosenbrock in d dimensions on native coordinates */
static double
rosenbrock(const double *x, int d)
{
	double		s = 0.0;
	int			k;

	for (k = 0; k + 1 < d; k++)
		s += 100.0 * pow(x[k + 1] - x[k] * x[k], 2) + pow(1.0 - x[k], 2);
	return s;
}

void
test_output_warp(void)
{
	OutputWarp	w;
	double		skewed[8] = {1, 2, 3, 4, 5, 6, 7, 1000};
	double		flat[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	int			i;

	/* Bernoulli(1/4): skewness (1 - 2p) / sqrt(p (1 - p)) */
	{
		double		b[4] = {0, 0, 0, 1};

		CHECK_CLOSE(output_warp_skewness(b, 4), 0.5 / sqrt(0.1875), 1e-14);
		CHECK(output_warp_skewness(flat, 8) == 0.0 ||
			  fabs(output_warp_skewness(flat, 8)) < 1e-14);
		CHECK(output_warp_skewness(b, 1) == 0.0);
	}

	/* when it applies */
	CHECK(output_warp_choose(skewed, 8, GP_HIGH_DIM, 1, &w) == 1);
	CHECK(w.active && w.shift == 1.0 && w.scale == 5.0 - 1.0);
	CHECK(output_warp_choose(skewed, 8, GP_HIGH_DIM - 1, 1, &w) == 0);
	CHECK(!w.active);
	CHECK(output_warp_choose(skewed, 8, 20, 0, &w) == 0);
	CHECK(output_warp_choose(flat, 8, 20, 1, &w) == 0);
	CHECK(output_warp_choose(skewed, 2, 20, 1, &w) == 0);
	{
		double		bad[8];

		memcpy(bad, skewed, sizeof(bad));
		bad[3] = NAN;
		CHECK(output_warp_choose(bad, 8, 20, 1, &w) == 0);
		/* more than half the values at the minimum: no scale, identity */
		for (i = 0; i < 8; i++)
			bad[i] = i < 5 ? 0.0 : 100.0 * i;
		CHECK(output_warp_choose(bad, 8, 20, 1, &w) == 0);
	}
	/* the identity when inactive */
	CHECK(output_warp_apply(&w, 3.25) == 3.25);
	CHECK(output_warp_invert(&w, -7.5) == -7.5);
	CHECK(output_warp_slope(&w, 2.0) == 1.0);

	/* monotone, invertible, the slope of the inverse */
	CHECK(output_warp_choose(skewed, 8, 12, 1, &w) == 1);
	CHECK(output_warp_apply(&w, 1.0) == 0.0);
	CHECK_CLOSE(output_warp_apply(&w, 5.0), log(2.0), 1e-15);
	{
		double		prev = -HUGE_VAL;
		double		y;

		for (y = 1.0; y < 1e6; y *= 1.7)
		{
			double		z = output_warp_apply(&w, y);
			double		h = 1e-6 * fmax(1.0, fabs(z));

			CHECK(z > prev);
			prev = z;
			CHECK_CLOSE(output_warp_invert(&w, z), y, 1e-12);
			CHECK_CLOSE(output_warp_slope(&w, z),
						(output_warp_invert(&w, z + h) -
						 output_warp_invert(&w, z - h)) / (2 * h), 1e-6);
		}
		/* below the observed minimum (a prediction) it still inverts */
		CHECK_CLOSE(output_warp_invert(&w, output_warp_apply(&w, 0.5)), 0.5, 1e-12);
	}

	/*
	 * A 10-D Rosenbrock study: the model steps run warped (the values are
	 * far right-skewed) and predict in the objective's units, inside the
	 * range the warp can express (above y_min - scale).
	 */
	{
		enum
		{
		D = 10, N = 16
		};
		ParamSpec	space[D];
		double		x[N * D],
					y[N],
					cfg[D],
					ls[D];
		SuggestInput in;
		SuggestResult out;
		TunerStatus status;
		TunerRng	rng;
		OutputWarp	used;
		int			k;

		for (k = 0; k < D; k++)
		{
			ParamSpec	p = {PARAM_FLOAT, -5, 10, 0, 0};

			space[k] = p;
		}
		rng_seed(&rng, 7);
		/* most trials near the valley's floor, a few anywhere */
		for (i = 0; i < N; i++)
		{
			for (k = 0; k < D; k++)
				x[i * D + k] = i < 12 ? 1.0 + 0.5 * (rng_uniform(&rng) - 0.5)
					: -5.0 + 15.0 * rng_uniform(&rng);
			y[i] = rosenbrock(x + i * D, D);
		}
		CHECK(output_warp_choose(y, N, D, 1, &used) == 1);
		memset(&in, 0, sizeof(in));
		memset(&out, 0, sizeof(out));
		out.config = cfg;
		out.lengthscales = ls;
		in.params = space;
		in.d = D;
		in.n_initial = 5;
		in.design_seed = 99;
		in.x_observed = x;
		in.y_observed = y;
		in.n_observed = N;
		in.design_index = N;
		in.seed = 3;
		CHECK(tuner_suggest(&in, &out, &status) == TUNER_OK);
		CHECK(out.source == SUGGEST_MODEL);
		CHECK(isfinite(out.predicted_mean) && isfinite(out.predicted_sd));
		CHECK(out.predicted_mean > used.shift - used.scale);
		CHECK(out.predicted_sd >= 0.0);
		for (k = 0; k < D; k++)
			CHECK(cfg[k] >= -5 && cfg[k] <= 10);
	}
}
