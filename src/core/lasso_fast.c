/*
 * lasso_fast.c
 *	  The default Lasso solver: converges to the exact optimum of
 *
 *	    minimise (1/2) ||y - X w||^2 + alpha ||w||_1,   alpha = n lambda
 *
 *	  (X, y centred; the Design of lasso_int.h), certified by the duality
 *	  gap, along a descending grid with warm starts.  All the work happens
 *	  on a working set W of features (the ones that were, or nearly were,
 *	  active), in covariance form: the Gram matrix of W is computed once
 *	  per feature, when it joins (one dgemm), and the gradient over W,
 *	  g_W = X_W^T y - G_WW w_W, is kept without touching the n rows.
 *	  Per lambda:
 *
 *	  1. Screening (the sequential strong rule): a feature outside W with
 *	     |g_j| >= 2 alpha - alpha_prev at the previous solution joins W.
 *	  2. Homotopy on W.  When the previous solution is exact, with support
 *	     A, signs s and the Cholesky factor L of G_AA, the optimum moves
 *	     linearly as alpha decreases, w_A += t G_AA^-1 s_A, until a
 *	     coefficient reaches zero (it leaves A) or a feature of W reaches
 *	     |g_j| = alpha (it joins A); L is updated in O(|A|^2) (a row added,
 *	     or a row removed and the factor restored by Givens rotations).  At
 *	     the new alpha the solution is recomputed from L, and checked.
 *	  3. Otherwise (after a violation, a singular support or a failed
 *	     check): cyclic coordinate descent on W, and once a sweep leaves the
 *	     support and signs unchanged, the exact solve G_AA w_A = X_A^T y -
 *	     alpha s_A by Cholesky, accepted if the signs hold and every other
 *	     feature of W has |g_j| <= alpha (a rejected attempt doubles the
 *	     sweeps before the next).
 *	  4. Certificate.  Outside W a feature satisfies the KKT condition
 *	     |x_j^T r| <= alpha provably when |g_j| + ||x_j|| ||r - r_then|| is
 *	     below alpha, where g_j was exact at residual r_then (the distances
 *	     between checkpoints are exact, from the Gram matrix, and add up by
 *	     the triangle inequality); the others get an exact dot product with
 *	     r.  Violators join W and the fit continues (step 3).  Then the
 *	     duality gap, from the Gram matrix and with that bound on
 *	     max |X^T r|, must be below tol ||y||^2 (else step 3 with a tighter
 *	     threshold).  max_iter bounds the sweeps per lambda.
 *
 *	  The result is the optimum to the tolerance (default 1e-12), not
 *	  scikit-learn's iterates at its 1e-4: the two differ by up to 1e-2 on
 *	  ill-conditioned problems (bench/README.md, section 5).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#include "lasso_int.h"

/* Relative slack of |g_j| <= alpha, above the rounding of a dot product. */
#define KKT_SLACK 1e-12

/* Relative slack of the screening bound. */
#define BOUND_SLACK 1e-9

/* Fewest features added to the working set at once. */
#define MIN_ADD 16

/* A new pivot of L below this fraction of G_jj: the support is singular. */
#define PIVOT_MIN 1e-10

#define Max(a, b) ((a) > (b) ? (a) : (b))
#define Min(a, b) ((a) < (b) ? (a) : (b))

/* Free the arrays of a state (safe on a zeroed or partial one). */
void
fast_free(FastState *s)
{
	tuner_free(s->w);
	tuner_free(s->g);
	tuner_free(s->ga);
	tuner_free(s->r);
	tuner_free(s->widx);
	tuner_free(s->pos);
	tuner_free(s->xw);
	tuner_free(s->gram);
	tuner_free(s->gw);
	tuner_free(s->ww);
	tuner_free(s->wref);
	tuner_free(s->sgn);
	tuner_free(s->chol);
	tuner_free(s->aidx);
	tuner_free(s->dvec);
	tuner_free(s->dg);
	tuner_free(s->wdir);
	tuner_free(s->cand);
	tuner_free(s->key);
	memset(s, 0, sizeof(FastState));
}

/*
 * Zero coefficients and an empty working set: g = X^T y exactly, and zero
 * is the exact optimum at lambda_max.
 */
void
fast_reset(FastState *s)
{
	const Design *d = s->d;
	double amax = 0.0;
	int j;

	memset(s->w, 0, sizeof(double) * d->p);
	memcpy(s->g, d->xty, sizeof(double) * d->p);
	memset(s->ga, 0, sizeof(double) * d->p);
	for (j = 0; j < d->p; j++)
	{
		s->pos[j] = -1;
		amax = fmax(amax, fabs(d->xty[j]));
	}
	s->c = 0.0;
	s->s = 0;
	s->m = 0;
	s->exact = 1;
	s->lambda_prev = amax / d->n;
}

/* Allocate the per-feature arrays; the working set grows on demand. */
TunerErrorCode
fast_init(FastState *s, const Design *d, TunerStatus *status)
{
	memset(s, 0, sizeof(FastState));
	s->d = d;
	s->w = tuner_alloc(sizeof(double) * d->p);
	s->g = tuner_alloc(sizeof(double) * d->p);
	s->ga = tuner_alloc(sizeof(double) * d->p);
	s->r = tuner_alloc(sizeof(double) * d->n);
	s->n_alloc = d->n;
	s->pos = tuner_alloc(sizeof(int) * d->p);
	s->cand = tuner_alloc(sizeof(int) * d->p);
	s->key = tuner_alloc(sizeof(double) * d->p);
	if (!s->w || !s->g || !s->ga || !s->r || !s->pos || !s->cand || !s->key)
	{
		fast_free(s);
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for lasso state");
	}
	fast_reset(s);
	return TUNER_OK;
}

/*
 * Move the state to another design with the same columns and at most as
 * many rows (the folds of a cross-validation), at zero; the working set's
 * memory is kept.
 */
void
fast_bind(FastState *s, const Design *d)
{
	s->d = d;
	fast_reset(s);
}

/* Copy the first rows x cols of a column-major matrix to a new one. */
static void
copy_block(double *to, int ld_to, const double *from, int ld_from, int rows,
		   int cols)
{
	int b;

	for (b = 0; b < cols; b++)
		memcpy(to + (size_t)b * ld_to, from + (size_t)b * ld_from,
			   sizeof(double) * rows);
}

/* Room for need working-set slots (the capacity at least doubles). */
static TunerErrorCode
fast_grow(FastState *s, int need, TunerStatus *status)
{
	int n = s->d->n;
	int p = s->d->p;
	int cap = Max(Max(s->cap * 2, need), MIN_ADD);
	size_t n_alloc = s->n_alloc;
	int *widx, *aidx;
	double *xw, *gram, *chol, *gw, *ww, *wref, *sgn, *dvec, *dg, *wdir;

	if (need <= s->cap)
		return TUNER_OK;
	cap = Min(cap, p);
	widx = tuner_alloc(sizeof(int) * cap);
	aidx = tuner_alloc(sizeof(int) * cap);
	xw = tuner_alloc(sizeof(double) * n_alloc * cap);
	gram = tuner_alloc(sizeof(double) * (size_t)cap * cap);
	chol = tuner_alloc(sizeof(double) * (size_t)cap * cap);
	gw = tuner_alloc(sizeof(double) * cap);
	ww = tuner_alloc(sizeof(double) * cap);
	wref = tuner_alloc(sizeof(double) * cap);
	sgn = tuner_alloc(sizeof(double) * cap);
	dvec = tuner_alloc(sizeof(double) * cap);
	dg = tuner_alloc(sizeof(double) * cap);
	wdir = tuner_alloc(sizeof(double) * cap);
	if (!widx || !aidx || !xw || !gram || !chol || !gw || !ww || !wref ||
		!sgn || !dvec || !dg || !wdir)
	{
		tuner_free(widx);
		tuner_free(aidx);
		tuner_free(xw);
		tuner_free(gram);
		tuner_free(chol);
		tuner_free(gw);
		tuner_free(ww);
		tuner_free(wref);
		tuner_free(sgn);
		tuner_free(dvec);
		tuner_free(dg);
		tuner_free(wdir);
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for a lasso working set of %d "
						  "features",
						  cap);
	}
	if (s->s > 0)
	{
		memcpy(widx, s->widx, sizeof(int) * s->s);
		memcpy(xw, s->xw, sizeof(double) * (size_t)n * s->s);
		copy_block(gram, cap, s->gram, s->cap, s->s, s->s);
		copy_block(chol, cap, s->chol, s->cap, s->m, s->m);
		memcpy(aidx, s->aidx, sizeof(int) * s->m);
		memcpy(gw, s->gw, sizeof(double) * s->s);
		memcpy(ww, s->ww, sizeof(double) * s->s);
		memcpy(wref, s->wref, sizeof(double) * s->s);
		memcpy(sgn, s->sgn, sizeof(double) * s->s);
	}
	tuner_free(s->widx);
	tuner_free(s->aidx);
	tuner_free(s->xw);
	tuner_free(s->gram);
	tuner_free(s->chol);
	tuner_free(s->gw);
	tuner_free(s->ww);
	tuner_free(s->wref);
	tuner_free(s->sgn);
	tuner_free(s->dvec);
	tuner_free(s->dg);
	tuner_free(s->wdir);
	s->widx = widx;
	s->aidx = aidx;
	s->xw = xw;
	s->gram = gram;
	s->chol = chol;
	s->gw = gw;
	s->ww = ww;
	s->wref = wref;
	s->sgn = sgn;
	s->dvec = dvec;
	s->dg = dg;
	s->wdir = wdir;
	s->cap = cap;
	return TUNER_OK;
}

/* Descending order of doubles for qsort. */
static int
cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y) - (x > y);
}

/*
 * Keep in cand[0..k) at most limit features, those of largest |g_j|.
 * Returns the new count.
 */
static int
keep_largest(FastState *s, int k, int limit)
{
	double cut;
	int kept = 0, t;

	if (k <= limit)
		return k;
	for (t = 0; t < k; t++)
		s->key[t] = fabs(s->g[s->cand[t]]);
	qsort(s->key, k, sizeof(double), cmp_desc);
	cut = s->key[limit - 1];
	for (t = 0; t < k && kept < limit; t++)
		if (fabs(s->g[s->cand[t]]) >= cut)
			s->cand[kept++] = s->cand[t];
	return kept;
}

/*
 * Add the k features cand[0..k) to the working set: their columns, their
 * Gram columns (one dgemm, mirrored into the old columns) and their exact
 * gradients g_j = x_j^T y - sum_t G_jt w_t.
 */
static TunerErrorCode
fast_add(FastState *s, int k, TunerStatus *status)
{
	const Design *d = s->d;
	int n = d->n;
	int s0 = s->s;
	int cap, t, b;
	TunerErrorCode rc;

	if (k == 0)
		return TUNER_OK;
	if ((rc = fast_grow(s, s0 + k, status)) != TUNER_OK)
		return rc;
	cap = s->cap;
	for (t = 0; t < k; t++)
	{
		int slot = s0 + t;
		int j = s->cand[t];

		s->widx[slot] = j;
		s->pos[j] = slot;
		memcpy(s->xw + (size_t)slot * n, d->x + (size_t)j * n,
			   sizeof(double) * n);
		s->ww[slot] = 0.0;
		s->wref[slot] = 0.0;
		s->sgn[slot] = 0.0;
	}
	cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, s0 + k, k, n, 1.0,
				s->xw, n, s->xw + (size_t)s0 * n, n, 0.0,
				s->gram + (size_t)s0 * cap, cap);
	for (b = 0; b < s0; b++)
		for (t = 0; t < k; t++)
			s->gram[(size_t)b * cap + s0 + t] =
				s->gram[(size_t)(s0 + t) * cap + b];
	for (t = 0; t < k; t++)
	{
		const double *col = s->gram + (size_t)(s0 + t) * cap;
		double gj = d->xty[s->cand[t]];

		for (b = 0; b < s0; b++)
			if (s->ww[b] != 0.0)
				gj -= col[b] * s->ww[b];
		s->gw[s0 + t] = gj;
	}
	s->s = s0 + k;
	return TUNER_OK;
}

/*
 * One cyclic sweep over the working set.  Returns the largest squared
 * change of the fit, (delta_j)^2 ||x_j||^2; *changed is set when a
 * coefficient left or reached zero or changed sign.
 */
static double
fast_sweep(FastState *s, double alpha, int *changed)
{
	int cap = s->cap;
	int ns = s->s;
	double worst = 0.0;
	int t;

	*changed = 0;
	for (t = 0; t < ns; t++)
	{
		double gjj = s->gram[(size_t)t * cap + t];
		double wj = s->ww[t];
		double tmp, wn;

		if (gjj <= 0.0)
			continue;
		tmp = s->gw[t] + gjj * wj;
		wn = fabs(tmp) > alpha ? copysign(fabs(tmp) - alpha, tmp) / gjj : 0.0;
		if (wn != wj)
		{
			double delta = wn - wj;

			cblas_daxpy(ns, -delta, s->gram + (size_t)t * cap, 1, s->gw, 1);
			s->ww[t] = wn;
			if ((wj == 0.0) != (wn == 0.0) || wj * wn < 0.0)
				*changed = 1;
			worst = fmax(worst, delta * delta * gjj);
		}
	}
	return worst;
}

/* Solve G_AA x = b in place with L (two triangular solves). */
static void
chol_solve(FastState *s, double *b)
{
	cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, s->m,
				s->chol, s->cap, b, 1);
	cblas_dtrsv(CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, s->m,
				s->chol, s->cap, b, 1);
}

/*
 * Append working-set slot to the support: a new last row of L.  Returns 0
 * when the support would be (numerically) singular.
 */
static int
chol_add(FastState *s, int slot)
{
	int cap = s->cap;
	int m = s->m;
	double *row = s->dvec;
	double gjj = s->gram[(size_t)slot * cap + slot];
	double piv;
	int a;

	for (a = 0; a < m; a++)
		row[a] = s->gram[(size_t)slot * cap + s->aidx[a]];
	if (m > 0)
		cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, m,
					s->chol, cap, row, 1);
	piv = gjj - cblas_ddot(m, row, 1, row, 1);
	if (!(piv > PIVOT_MIN * gjj))
		return 0;
	for (a = 0; a < m; a++)
		s->chol[m + (size_t)a * cap] = row[a];
	s->chol[m + (size_t)m * cap] = sqrt(piv);
	s->aidx[m] = slot;
	s->m = m + 1;
	return 1;
}

/*
 * Remove row q of the support: drop row q of L, then rotate pairs of
 * columns (Givens) to make it lower triangular again.
 */
static void
chol_drop(FastState *s, int q)
{
	int cap = s->cap;
	int m = s->m;
	double *l = s->chol;
	int i, j, k;

	for (j = 0; j < m; j++)
		for (i = q; i < m - 1; i++)
			l[i + (size_t)j * cap] = l[i + 1 + (size_t)j * cap];
	for (k = q; k < m - 1; k++)
	{
		double a = l[k + (size_t)k * cap];
		double b = l[k + (size_t)(k + 1) * cap];
		double h = hypot(a, b);
		double cs = h > 0.0 ? a / h : 1.0;
		double sn = h > 0.0 ? b / h : 0.0;

		for (i = k; i < m - 1; i++)
		{
			double u = l[i + (size_t)k * cap];
			double v = l[i + (size_t)(k + 1) * cap];

			l[i + (size_t)k * cap] = cs * u + sn * v;
			l[i + (size_t)(k + 1) * cap] = -sn * u + cs * v;
		}
	}
	for (k = q; k < m - 1; k++)
		s->aidx[k] = s->aidx[k + 1];
	s->m = m - 1;
}

/*
 * The optimum at alpha on the support of L with its signs: w_A = G_AA^-1
 * (X_A^T y - alpha s_A), the gradient over W, and the checks that make it
 * the optimum on W (signs hold, |g_j| <= alpha elsewhere in W).  Installs
 * it and returns 1, or returns 0 leaving ww and gw as they were.
 */
static int
fast_settle(FastState *s, double alpha)
{
	const Design *d = s->d;
	int cap = s->cap;
	int ns = s->s;
	int m = s->m;
	double *x = s->dvec;
	int a, t;

	for (a = 0; a < m; a++)
		x[a] = d->xty[s->widx[s->aidx[a]]] - alpha * s->sgn[s->aidx[a]];
	chol_solve(s, x);
	for (a = 0; a < m; a++)
		if (!isfinite(x[a]) || x[a] * s->sgn[s->aidx[a]] <= 0.0)
			return 0;
	memset(s->wdir, 0, sizeof(double) * ns);
	for (a = 0; a < m; a++)
		s->wdir[s->aidx[a]] = x[a];
	for (t = 0; t < ns; t++)
		s->dg[t] = d->xty[s->widx[t]];
	cblas_dgemv(CblasColMajor, CblasNoTrans, ns, ns, -1.0, s->gram, cap,
				s->wdir, 1, 1.0, s->dg, 1);
	for (t = 0; t < ns; t++)
		if (s->sgn[t] == 0.0 && fabs(s->dg[t]) > alpha * (1.0 + KKT_SLACK))
			return 0;
	for (t = 0; t < ns; t++)
		s->ww[t] = 0.0;
	for (a = 0; a < m; a++)
		s->ww[s->aidx[a]] = x[a];
	memcpy(s->gw, s->dg, sizeof(double) * ns);
	return 1;
}

/*
 * The exact solve on the current support and signs of a coordinate
 * descent iterate (step 3): factor G_AA afresh and settle.  On success
 * the state is exact.
 */
static int
fast_exact(FastState *s, double alpha)
{
	int cap = s->cap;
	int ns = s->s;
	int m = 0, a, b, t;

	for (t = 0; t < ns; t++)
	{
		s->sgn[t] = s->ww[t] > 0.0 ? 1.0 : s->ww[t] < 0.0 ? -1.0 : 0.0;
		if (s->ww[t] != 0.0)
			s->aidx[m++] = t;
	}
	s->n_newton++;
	for (b = 0; b < m; b++)
	{
		const double *col = s->gram + (size_t)s->aidx[b] * cap;

		for (a = b; a < m; a++)
			s->chol[a + (size_t)b * cap] = col[s->aidx[a]];
	}
	s->m = m;
	if (m > 0 &&
		LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', m, s->chol, cap) != 0)
	{
		s->m = 0;
		return 0;
	}
	if (!fast_settle(s, alpha))
	{
		s->m = 0;
		return 0;
	}
	s->exact = 1;
	s->n_newton_ok++;
	return 1;
}

/* Leave the exact state (coordinate descent takes over). */
static void
fast_inexact(FastState *s)
{
	s->exact = 0;
	s->m = 0;
}

/*
 * The homotopy of step 2 from the exact optimum at alpha0 down to alpha1.
 * Returns 1 with the exact optimum at alpha1 installed, 0 when it had to
 * stop (the iterate is then the optimum at some alpha between, and the
 * state is no longer exact).
 */
static int
fast_homotopy(FastState *s, double alpha0, double alpha1,
			  const LassoOptions *o, int *steps)
{
	int cap = s->cap;
	int ns = s->s;
	double a = alpha0;
	int last_drop = -1;
	int guard = 4 * ns + 100;
	int a_i, t;

	if (alpha1 > alpha0)
		return 0;
	while (a > alpha1)
	{
		int m = s->m;
		double step = a - alpha1;
		int ev_drop = -1, ev_add = -1;
		double *dir;

		if (--guard < 0 || tuner_interrupted())
			return 0; /* fast_solve's next poll reports the interrupt */
		(*steps)++;
		s->n_steps++;
		if (o->progress != NULL && (s->n_steps & 63) == 63)
			o->progress();
		/* direction of w_A per unit decrease of alpha: G_AA^-1 s_A */
		dir = s->dvec;
		for (a_i = 0; a_i < m; a_i++)
			dir[a_i] = s->sgn[s->aidx[a_i]];
		if (m > 0)
			chol_solve(s, dir);
		/* and of g_W: -G_WA dir, one product with dir spread over W */
		memset(s->wdir, 0, sizeof(double) * ns);
		for (a_i = 0; a_i < m; a_i++)
			s->wdir[s->aidx[a_i]] = dir[a_i];
		cblas_dgemv(CblasColMajor, CblasNoTrans, ns, ns, -1.0, s->gram, cap,
					s->wdir, 1, 0.0, s->dg, 1);
		for (a_i = 0; a_i < m; a_i++)
		{
			double w = s->ww[s->aidx[a_i]];

			if (w * dir[a_i] < 0.0 && -w / dir[a_i] < step)
			{
				step = -w / dir[a_i];
				ev_drop = a_i;
				ev_add = -1;
			}
		}
		for (t = 0; t < ns; t++)
		{
			double gj = s->gw[t], dj = s->dg[t], tau;

			if (s->sgn[t] != 0.0 || t == last_drop ||
				s->gram[(size_t)t * cap + t] <= 0.0)
				continue;
			/* |g_j + tau dj| reaches a - tau */
			if (1.0 + dj > 0.0)
			{
				tau = fmax((a - gj) / (1.0 + dj), 0.0);
				if (tau < step)
				{
					step = tau;
					ev_add = t;
					ev_drop = -1;
				}
			}
			if (1.0 - dj > 0.0)
			{
				tau = fmax((a + gj) / (1.0 - dj), 0.0);
				if (tau < step)
				{
					step = tau;
					ev_add = t;
					ev_drop = -1;
				}
			}
		}
		for (a_i = 0; a_i < m; a_i++)
			s->ww[s->aidx[a_i]] += step * dir[a_i];
		cblas_daxpy(ns, step, s->dg, 1, s->gw, 1);
		a -= step;
		last_drop = -1;
		if (ev_drop >= 0)
		{
			int slot = s->aidx[ev_drop];

			s->ww[slot] = 0.0;
			s->sgn[slot] = 0.0;
			chol_drop(s, ev_drop);
			last_drop = slot;
		}
		else if (ev_add >= 0)
		{
			s->sgn[ev_add] = s->gw[ev_add] > 0.0 ? 1.0 : -1.0;
			if (!chol_add(s, ev_add))
			{
				s->sgn[ev_add] = 0.0;
				s->n_homotopy_fail++;
				fast_inexact(s);
				return 0;
			}
		}
		else
			a = alpha1;
	}
	/* recompute at alpha1 from L: no drift from the steps */
	if (!fast_settle(s, alpha1))
	{
		s->n_homotopy_fail++;
		fast_inexact(s);
		return 0;
	}
	return 1;
}

/*
 * The KKT check outside W (step 4).  Returns the number of violators,
 * left in cand; *dual_norm receives an upper bound on max_j |x_j^T r| over
 * all features (exact over W).
 */
static int
fast_check(FastState *s, double alpha, double *dual_norm)
{
	const Design *d = s->d;
	int cap = s->cap;
	int ns = s->s;
	double q = 0.0, dist, dn = 0.0;
	int have_r = 0, k = 0, t, j;

	/* ||r - r_ref||^2 = dw^T G dw over the working set */
	if (ns > 0)
		memset(s->dg, 0, sizeof(double) * ns);
	for (t = 0; t < ns; t++)
	{
		double dw = s->ww[t] - s->wref[t];

		if (dw != 0.0)
			cblas_daxpy(ns, dw, s->gram + (size_t)t * cap, 1, s->dg, 1);
	}
	for (t = 0; t < ns; t++)
		q += (s->ww[t] - s->wref[t]) * s->dg[t];
	dist = sqrt(fmax(q, 0.0));
	/* rounding of q: a relative 1e-9 of the fit's size, safely above it */
	if (dist > 0.0)
		dist += BOUND_SLACK * sqrt(d->yy);
	s->c += dist;
	memcpy(s->wref, s->ww, sizeof(double) * ns);
	for (t = 0; t < ns; t++)
		dn = fmax(dn, fabs(s->gw[t]));
	for (j = 0; j < d->p; j++)
	{
		double bound;

		if (s->pos[j] >= 0 || d->norm2[j] == 0.0)
			continue;
		bound = fabs(s->g[j]) + d->norm[j] * (s->c - s->ga[j]);
		if (bound * (1.0 + BOUND_SLACK) <= alpha)
		{
			dn = fmax(dn, bound * (1.0 + BOUND_SLACK));
			continue;
		}
		if (!have_r)
		{
			memcpy(s->r, d->y, sizeof(double) * d->n);
			if (ns > 0)
				cblas_dgemv(CblasColMajor, CblasNoTrans, d->n, ns, -1.0, s->xw,
							d->n, s->ww, 1, 1.0, s->r, 1);
			have_r = 1;
		}
		s->g[j] = cblas_ddot(d->n, d->x + (size_t)j * d->n, 1, s->r, 1);
		s->ga[j] = s->c;
		s->n_exact_dots++;
		dn = fmax(dn, fabs(s->g[j]));
		if (fabs(s->g[j]) > alpha * (1.0 + KKT_SLACK))
			s->cand[k++] = j;
	}
	*dual_norm = dn;
	return k;
}

/*
 * Duality gap with the Gram matrix: ||r||^2 = ||y||^2 - 2 c^T w + w^T G w
 * and r^T y = ||y||^2 - c^T w, where G w = c - g (lasso.c's formula).
 */
static double
fast_gap(FastState *s, double alpha, double dual_norm)
{
	const Design *d = s->d;
	double l1 = 0.0, cw = 0.0, wgw = 0.0, r2, ry, cst, gap;
	int t;

	for (t = 0; t < s->s; t++)
		if (s->ww[t] != 0.0)
		{
			double c = d->xty[s->widx[t]];

			l1 += fabs(s->ww[t]);
			cw += c * s->ww[t];
			wgw += s->ww[t] * (c - s->gw[t]);
		}
	r2 = fmax(d->yy - 2.0 * cw + wgw, 0.0);
	ry = d->yy - cw;
	if (dual_norm > alpha)
	{
		cst = alpha / dual_norm;
		gap = 0.5 * (r2 + r2 * cst * cst);
	}
	else
	{
		cst = 1.0;
		gap = r2;
	}
	return gap + alpha * l1 - cst * ry;
}

/*
 * Fit at lambda from the state's coefficients (warm start).  *n_iter is
 * the number of sweeps and homotopy steps over the working set,
 * *converged 0 when max_iter sweeps ended the fit before the gap met the
 * tolerance.
 */
TunerErrorCode
fast_solve(FastState *s, double lambda, const LassoOptions *o, int *n_iter,
		   int *converged, TunerStatus *status)
{
	const Design *d = s->d;
	double alpha = lambda * d->n;
	double alpha_prev = s->lambda_prev * d->n;
	double tol = o->tol * d->yy;
	double inner = tol;
	int sweeps = 0, steps = 0, backoff = 1, next_try = 0, k, t, j;
	TunerErrorCode rc;

	*converged = 0;
	if (d->yy == 0.0)
	{
		/* constant y: zero is the solution (and the gap test cannot pass) */
		fast_reset(s);
		s->lambda_prev = lambda;
		*n_iter = 1;
		*converged = 1;
		return TUNER_OK;
	}
	/* the strong rule (never a threshold above alpha: lambda may rise) */
	k = 0;
	for (j = 0; j < d->p; j++)
		if (s->pos[j] < 0 && d->norm2[j] > 0.0 &&
			fabs(s->g[j]) >=
				fmin(2.0 * alpha - alpha_prev, alpha) * (1.0 - KKT_SLACK))
			s->cand[k++] = j;
	k = keep_largest(s, k, Max(MIN_ADD, s->s));
	if ((rc = fast_add(s, k, status)) != TUNER_OK)
		return rc;
	if (s->exact && !fast_homotopy(s, alpha_prev, alpha, o, &steps))
		fast_inexact(s);
	for (;;)
	{
		double dual_norm;

		if (tuner_interrupted())
			return tuner_fail(status, TUNER_ERR_INTERRUPTED,
							  "fitting the lasso was interrupted");
		while (!s->exact && sweeps < o->max_iter)
		{
			int changed;
			double worst;

			if (tuner_interrupted())
				return tuner_fail(status, TUNER_ERR_INTERRUPTED,
								  "fitting the lasso was interrupted");
			worst = fast_sweep(s, alpha, &changed);

			sweeps++;
			s->n_sweeps++;
			if (o->progress != NULL && (sweeps & 63) == 63)
				o->progress();
			if (worst <= inner)
				break;
			if (!changed && sweeps >= next_try)
			{
				if (fast_exact(s, alpha))
					break;
				backoff *= 2;
				next_try = sweeps + backoff;
			}
		}
		k = fast_check(s, alpha, &dual_norm);
		if (k > 0)
		{
			k = keep_largest(s, k, Max(MIN_ADD, s->s));
			if ((rc = fast_add(s, k, status)) != TUNER_OK)
				return rc;
			fast_inexact(s);
			if (sweeps < o->max_iter)
				continue;
			/* out of sweeps: the gap decides (it will not pass) */
			k = fast_check(s, alpha, &dual_norm);
		}
		if (k == 0 && fast_gap(s, alpha, dual_norm) <= tol)
		{
			*converged = 1;
			break;
		}
		if (sweeps >= o->max_iter)
			break;
		fast_inexact(s);
		inner *= 0.01;
	}
	memset(s->w, 0, sizeof(double) * d->p);
	for (t = 0; t < s->s; t++)
		s->w[s->widx[t]] = s->ww[t];
	s->lambda_prev = lambda;
	*n_iter = sweeps + steps;
	return TUNER_OK;
}
