/*
 * test_acquisition.c
 *	  The log-EI gradient against finite differences, agreement with the
 *	  batch prediction path, and that maximisation finds a known optimum.
 */
#include <math.h>
#include <string.h>

#include "acquisition.h"
#include "gp.h"
#include "log_ei.h"
#include "matern.h"
#include "rng.h"
#include "unit.h"

static GpModel *
toy_model(int n, int d, uint64_t seed)
{
	TunerStatus status;
	GpModel    *m = gp_model_create(n, d, &status);
	TunerRng	rng;
	int			i,
				k;

	rng_seed(&rng, seed);
	for (i = 0; i < n * d; i++)
		m->x[i] = rng_uniform(&rng);
	for (i = 0; i < n; i++)
	{
		double		r2 = 0.0;

		for (k = 0; k < d; k++)
			r2 += (m->x[i * d + k] - 0.3) * (m->x[i * d + k] - 0.3);
		m->y[i] = r2 - 0.5;
	}
	for (k = 0; k < d; k++)
		m->lengthscales[k] = 0.3 + 0.1 * k;
	m->outputscale = 1.0;
	m->noise = 1e-4;
	m->mean = 0.0;
	gp_prepare(m, &status);
	return m;
}

void
test_acquisition(void)
{
	int			d = 3;
	GpModel    *m = toy_model(15, d, 7);
	Posterior	post;
	double		scratch[64];
	double		best = m->y[0];
	TunerRng	rng;
	TunerStatus status;
	int			i,
				k,
				t;

	for (i = 1; i < m->n; i++)
		best = fmin(best, m->y[i]);
	gp_posterior(m, &post);
	CHECK(acquisition_scratch_size(&post) <= 64);

	rng_seed(&rng, 11);
	for (t = 0; t < 5; t++)
	{
		double		u[3],
					grad[3],
					mu,
					sd;
		double		v;

		for (k = 0; k < d; k++)
			u[k] = 0.05 + 0.9 * rng_uniform(&rng);
		v = acquisition_log_ei(&post, best, u, grad, scratch);
		/* same value as the batch path */
		gp_predict(m, u, 1, &mu, &sd, &status);
		CHECK_CLOSE(v, log_ei(mu, sd, best), 1e-9);
		for (k = 0; k < d; k++)
		{
			double		up[3],
						um[3],
						h = 1e-6;

			memcpy(up, u, sizeof(up));
			memcpy(um, u, sizeof(um));
			up[k] += h;
			um[k] -= h;
			CHECK_CLOSE(grad[k],
						(acquisition_log_ei(&post, best, up, NULL, scratch) -
						 acquisition_log_ei(&post, best, um, NULL, scratch)) / (2 * h),
						1e-5);
		}
	}

	/* the ranked list is sorted and its head beats every random point */
	{
		AcquisitionOptions opt;
		double		points[32 * 3],
					values[32];
		int			n_out = 0;

		acquisition_options_init(&opt, d);
		CHECK(acquisition_rank(&post, best, m->x, 2, &opt, &rng, 32, points, values,
							   &n_out, &status) == TUNER_OK);
		CHECK(n_out == 32);
		for (i = 1; i < n_out; i++)
			CHECK(values[i] <= values[i - 1]);
		for (t = 0; t < 200; t++)
		{
			double		u[3];

			for (k = 0; k < d; k++)
				u[k] = rng_uniform(&rng);
			if (acquisition_log_ei(&post, best, u, NULL, scratch) > values[0] + 1e-9)
			{
				CHECK(!"a random point beat the maximiser");
				break;
			}
		}
		for (i = 0; i < n_out * d; i++)
			CHECK(points[i] >= 0.0 && points[i] <= 1.0);
	}

	/*
	 * gp_kernel_weights: with a's first column alpha, k(u)^T a is the
	 * posterior mean less the constant mean; its gradient against
	 * differences, for that column and an arbitrary second one.
	 */
	{
		double		a[15 * 2],
					w[2],
					dw[2 * 3],
					wp[2],
					wm[2],
					u[3] = {0.3, 0.6, 0.45},
					mu,
					sd;

		CHECK(m->n == 15);
		for (i = 0; i < m->n; i++)
		{
			a[2 * i] = m->alpha[i];
			a[2 * i + 1] = sin(1.0 + i);
		}
		gp_kernel_weights(m, u, a, 2, w, dw, scratch);
		gp_predict(m, u, 1, &mu, &sd, &status);
		CHECK_CLOSE(w[0], mu - m->mean, 1e-10);
		for (k = 0; k < d; k++)
		{
			double		up[3],
						um[3],
						h = 1e-6;

			memcpy(up, u, sizeof(up));
			memcpy(um, u, sizeof(um));
			up[k] += h;
			um[k] -= h;
			gp_kernel_weights(m, up, a, 2, wp, NULL, scratch);
			gp_kernel_weights(m, um, a, 2, wm, NULL, scratch);
			for (t = 0; t < 2; t++)
				CHECK_CLOSE(dw[t * d + k], (wp[t] - wm[t]) / (2 * h), 1e-6);
		}
	}

	/*
	 * gp_kernel_row and the *_from_row functions (one exp per training
	 * point for the kernel and its radial derivative) give exactly, bit
	 * for bit, the values of the formulas they replace: s matern52_unit(r)
	 * and s matern52_radial(r) with r from the divided differences, the
	 * posterior's point function, and k(u)^T a summed column by column.
	 */
	{
		double		u[3] = {0.81, 0.07, 0.52},
					kvec[15],
					radial[15],
					kvec2[15],
					a[15 * 2],
					w[2],
					dw[2 * 3],
					w2[2],
					dw2[2 * 3],
					mu,
					var,
					dmu[3],
					dvar[3],
					mu2,
					var2,
					dmu2[3],
					dvar2[3];
		int			j;

		gp_kernel_row(m, u, kvec, radial);
		gp_kernel_row(m, u, kvec2, NULL);
		for (i = 0; i < m->n; i++)
		{
			double		r2 = 0.0,
						r;

			for (k = 0; k < d; k++)
			{
				double		t = (u[k] - m->x[i * d + k]) / m->lengthscales[k];

				r2 += t * t;
			}
			r = sqrt(r2);
			CHECK(kvec[i] == m->outputscale * matern52_unit(r));
			CHECK(radial[i] == m->outputscale * matern52_radial(r));
			CHECK(kvec2[i] == kvec[i]);
			a[2 * i] = cos(0.3 * i);
			a[2 * i + 1] = sin(1.0 + i);
		}
		gp_kernel_weights_from_row(m, u, kvec, radial, a, 2, w, dw);
		gp_kernel_weights(m, u, a, 2, w2, dw2, scratch);
		for (j = 0; j < 2; j++)
		{
			double		sum = 0.0;

			for (i = 0; i < m->n; i++)
				sum += kvec[i] * a[i * 2 + j];
			CHECK(w[j] == sum);
			CHECK(w2[j] == sum);
			for (k = 0; k < d; k++)
				CHECK(dw[j * d + k] == dw2[j * d + k]);
		}
		gp_point_from_row(m, u, kvec, radial, &mu, &var, dmu, dvar);
		post.point(post.state, u, &mu2, &var2, dmu2, dvar2, scratch);
		CHECK(mu == mu2 && var == var2);
		for (k = 0; k < d; k++)
			CHECK(dmu[k] == dmu2[k] && dvar[k] == dvar2[k]);
		gp_point_from_row(m, u, kvec2, NULL, &mu, &var, NULL, NULL);
		CHECK(mu == mu2 && var == var2);

		/*
		 * gp_predict_weights: gp_predict's mean and sd exactly, and k(u)^T
		 * a as gp_kernel_weights gives it (up to rounding: the cross
		 * covariance multiplies by 1 / l where the row divides by l).
		 */
		{
			double		us[3 * 3] = {0.81, 0.07, 0.52, 0.1, 0.9, 0.3, 0.5, 0.5, 0.5},
						pm[3],
						ps[3],
						wm2[3],
						ws2[3],
						pw[3 * 2];

			CHECK(gp_predict(m, us, 3, pm, ps, &status) == TUNER_OK);
			CHECK(gp_predict_weights(m, us, 3, a, 2, pw, wm2, ws2, &status) == TUNER_OK);
			for (t = 0; t < 3; t++)
			{
				CHECK(pm[t] == wm2[t] && ps[t] == ws2[t]);
				gp_kernel_weights(m, us + 3 * t, a, 2, w, NULL, scratch);
				for (j = 0; j < 2; j++)
					CHECK_CLOSE(pw[t * 2 + j], w[j], 1e-12 * (1.0 + fabs(w[j])));
			}
		}
	}
	gp_model_free(m);
}
