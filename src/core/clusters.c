/*
 * clusters.c
 *	  Parameter clusters from observed trials: rank quadratic correlations,
 *	  permutation tests, Benjamini-Hochberg, then conditional passes.
 *
 *	  Why this statistic.  Candidates were the larger of |Spearman(x, y)|
 *	  and |Spearman(|x - median|, y)|, Chatterjee's xi, and distance
 *	  correlation.  The folded Spearman only sees a U centred at the median;
 *	  the rank quadratic correlation contains Spearman (it is never smaller
 *	  than |Spearman|) and fits the vertex wherever it is.  Chatterjee's xi
 *	  catches any functional dependence but its null sd is about
 *	  sqrt(2 / (5 n)): on the planted test problem at n = 30 it recovered
 *	  under a tenth of the memberships the rank correlations found, and
 *	  tied x (log-scaled integers) need random tie-breaking.  Distance
 *	  correlation costs O(n^2) per permutation.  Storage parameters act
 *	  monotonically or through one interior optimum, which is what the
 *	  quadratic in rank(x) spans.
 *
 *	  Cost.  After ranking once, the features of x are fixed orthonormal
 *	  vectors, the ranks of y are only permuted, and ||rank(y)|| does not
 *	  change under permutation, so one permutation costs two dot products per
 *	  parameter (marginal pass), or 2 + (conditioning columns) in a
 *	  conditional pass: O(n) each, and one shuffle per metric is shared by
 *	  all parameters.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clusters.h"
#include "rng.h"

#define MAX_PERMUTATIONS 9999
#define MIN_AUTO_PERMS   499
#define MAX_ROUNDS       10
#define DEGENERATE       1e-10 /* relative norm below which a vector is lost */

typedef struct RankPair
{
	double value;
	int index;
} RankPair;

/* Everything computed once per metric over the trials that observed it. */
typedef struct MetricWork
{
	int m;        /* observations */
	int *obs;     /* m: trial indices */
	double *ry;   /* m: centred ranks of y, unit norm */
	double *feat; /* d * 2 * m: orthonormal features of rank(x_j) */
	int *nfeat;   /* d: 0..2 features kept */
} MetricWork;

/* Work for one conditional pass of one metric. */
typedef struct CondWork
{
	int maxc;    /* conditioning columns allowed */
	double *z;   /* d * maxc * m: orthonormal conditioning columns */
	int *nz;     /* d */
	double *u;   /* d * 2 * m: features of x_j with z projected out */
	int *nu;     /* d */
	double *e;   /* d * m: residual of ry on z */
	double *obs; /* d: observed partial R^2 */
	int *count;  /* d: permutations at least as extreme */
} CondWork;

static int
compare_rank_pair(const void *a, const void *b)
{
	double va = ((const RankPair *)a)->value;
	double vb = ((const RankPair *)b)->value;

	if (va < vb)
		return -1;
	if (va > vb)
		return 1;
	/* by index too, so the sort order does not depend on qsort */
	return ((const RankPair *)a)->index - ((const RankPair *)b)->index;
}

/* Ranks 1..m of v with ties given their average rank. */
static void
average_ranks(const double *v, int m, double *rank, RankPair *work)
{
	int i;
	int k;

	for (i = 0; i < m; i++)
	{
		work[i].value = v[i];
		work[i].index = i;
	}
	qsort(work, m, sizeof(RankPair), compare_rank_pair);
	for (i = 0; i < m; i = k + 1)
	{
		double mid;
		int a;

		k = i;
		while (k + 1 < m && work[k + 1].value == work[i].value)
			k++;
		mid = 0.5 * (i + k) + 1.0;
		for (a = i; a <= k; a++)
			rank[work[a].index] = mid;
	}
}

static double
dot(const double *a, const double *b, int m)
{
	double s = 0.0;
	int i;

	for (i = 0; i < m; i++)
		s += a[i] * b[i];
	return s;
}

/*
 * Centre v (when centre), project out nb orthonormal vectors and scale it
 * to unit norm.  Returns 0, leaving v unusable, when what is left is below
 * DEGENERATE relative to the centred input: a constant x, or a square
 * that adds nothing because x takes two values only.
 */
static int
orthonormalize(double *v, int m, const double *basis, int nb, int centre)
{
	double norm0;
	double norm;
	int b;
	int i;

	if (centre)
	{
		double mean = 0.0;

		for (i = 0; i < m; i++)
			mean += v[i];
		mean /= m;
		for (i = 0; i < m; i++)
			v[i] -= mean;
	}
	norm0 = sqrt(dot(v, v, m));
	if (norm0 == 0.0)
		return 0;
	/* modified Gram-Schmidt, twice, for vectors that are nearly dependent */
	for (i = 0; i < 2; i++)
		for (b = 0; b < nb; b++)
		{
			double c = dot(v, basis + (size_t)b * m, m);
			int k;

			for (k = 0; k < m; k++)
				v[k] -= c * basis[(size_t)b * m + k];
		}
	norm = sqrt(dot(v, v, m));
	if (norm <= DEGENERATE * norm0)
		return 0;
	for (i = 0; i < m; i++)
		v[i] /= norm;
	return 1;
}

/* Benjamini-Hochberg step-up adjustment of p[m] into q[m]. */
static void
bh_adjust(const double *p, int m, double *q, RankPair *work)
{
	double running = 1.0;
	int k;

	for (k = 0; k < m; k++)
	{
		work[k].value = p[k];
		work[k].index = k;
	}
	qsort(work, m, sizeof(RankPair), compare_rank_pair);
	for (k = m - 1; k >= 0; k--)
	{
		double v = work[k].value * m / (k + 1);

		if (v < running)
			running = v;
		q[work[k].index] = running;
	}
}

/* Next uniformly random permutation, shuffling the previous one in place. */
static void
shuffle(int *perm, int m, TunerRng *rng)
{
	int i;

	for (i = m - 1; i > 0; i--)
	{
		int k = (int)rng_below(rng, (uint64_t)i + 1);
		int t = perm[i];

		perm[i] = perm[k];
		perm[k] = t;
	}
}

/* sum_i a[i] * b[perm[i]]: a dot product with b permuted. */
static double
dot_permuted(const double *a, const double *b, const int *perm, int m)
{
	double s = 0.0;
	int i;

	for (i = 0; i < m; i++)
		s += a[i] * b[perm[i]];
	return s;
}

/*
 * Observations, ranks of y and the rank features of every x_j for metric
 * t.  Sets w->m to 0 when the metric is not usable.
 */
static void
metric_prepare(const double *x, const double *y, int n, int d, int T, int t,
			   MetricWork *w, double *scratch, RankPair *pairs)
{
	int i;
	int j;
	int m = 0;

	for (i = 0; i < n; i++)
		if (!isnan(y[(size_t)i * T + t]))
		{
			w->obs[m] = i;
			scratch[m] = y[(size_t)i * T + t];
			m++;
		}
	w->m = m;
	if (m < CLUSTER_MIN_OBS)
	{
		w->m = 0;
		return;
	}
	average_ranks(scratch, m, w->ry, pairs);
	if (!orthonormalize(w->ry, m, NULL, 0, 1))
	{
		w->m = 0; /* constant y */
		return;
	}
	for (j = 0; j < d; j++)
	{
		double *f1 = w->feat + (size_t)j * 2 * m;
		double *f2 = f1 + m;
		int nf = 0;

		for (i = 0; i < m; i++)
			scratch[i] = x[(size_t)w->obs[i] * d + j];
		average_ranks(scratch, m, f1, pairs);
		/* scaled to [-1/2, 1/2] so the square stays well conditioned */
		for (i = 0; i < m; i++)
		{
			f1[i] = (f1[i] - 0.5 * (m + 1)) / m;
			f2[i] = f1[i] * f1[i];
		}
		if (orthonormalize(f1, m, NULL, 0, 1))
		{
			nf = 1;
			if (orthonormalize(f2, m, f1, 1, 1))
				nf = 2;
		}
		else if (orthonormalize(f2, m, NULL, 0, 1))
		{
			/* cannot happen: a constant rank gives a constant square */
			memcpy(f1, f2, sizeof(double) * m);
			nf = 1;
		}
		w->nfeat[j] = nf;
	}
}

/*
 * The marginal pass for metric t: score[j] and the p-value against
 * permutations of rank(y).
 */
static int
marginal_pass(const MetricWork *w, int d, int T, int t, int B, uint64_t seed,
			  double *score, double *pvalue, int *perm, double *observed,
			  int *count)
{
	int m = w->m;
	TunerRng rng;
	int b;
	int i;
	int j;

	for (j = 0; j < d; j++)
	{
		const double *f = w->feat + (size_t)j * 2 * m;
		double s = 0.0;
		int k;

		for (k = 0; k < w->nfeat[j]; k++)
		{
			double c = dot(f + (size_t)k * m, w->ry, m);

			s += c * c;
		}
		observed[j] = s;
		count[j] = 0;
	}
	for (i = 0; i < m; i++)
		perm[i] = i;
	rng_seed(&rng, rng_mix(rng_mix(seed, 0), (uint64_t)t));
	for (b = 0; b < B; b++)
	{
		if (tuner_interrupted())
			return -1;
		shuffle(perm, m, &rng);
		for (j = 0; j < d; j++)
		{
			const double *f = w->feat + (size_t)j * 2 * m;
			double s = 0.0;
			int k;

			for (k = 0; k < w->nfeat[j]; k++)
			{
				double c = dot_permuted(f + (size_t)k * m, w->ry, perm, m);

				s += c * c;
			}
			/* ties count as extreme, so rounding cannot make p too small */
			if (s >= observed[j] - 1e-12)
				count[j]++;
		}
	}
	for (j = 0; j < d; j++)
	{
		score[(size_t)j * T + t] = sqrt(fmin(1.0, observed[j]));
		pvalue[(size_t)j * T + t] = (count[j] + 1.0) / (B + 1.0);
	}
	return 0;
}

/*
 * One conditional pass for metric t: each x_j is tested given the other
 * current members (sig), at most cw->maxc columns of them, the most
 * significant first.  Freedman-Lane: permute the residual e of rank(y) on
 * the conditioning columns Z; the statistic is the partial R^2
 * ||U^T e*||^2 / ||(I - Z Z^T) e*||^2 with U the features of x_j made
 * orthogonal to Z, which is what refitting the full model to Z-fit + e*
 * gives.
 */
static int
conditional_pass(const MetricWork *w, CondWork *cw, int d, int T, int t, int B,
				 uint64_t seed, int round, const int *sig,
				 const double *adjusted, double *partial, double *pvalue,
				 int *perm, RankPair *pairs)
{
	int m = w->m;
	TunerRng rng;
	int b;
	int i;
	int j;

	for (j = 0; j < d; j++)
	{
		double *z = cw->z + (size_t)j * cw->maxc * m;
		double *u = cw->u + (size_t)j * 2 * m;
		double *e = cw->e + (size_t)j * m;
		int ncand = 0;
		int nz = 0;
		int nu = 0;
		int c;
		int k;
		double ee;
		double s;

		/* the other members, most significant first */
		for (k = 0; k < d; k++)
			if (k != j && sig[(size_t)k * T + t])
			{
				pairs[ncand].value = adjusted[(size_t)k * T + t];
				pairs[ncand].index = k;
				ncand++;
			}
		qsort(pairs, ncand, sizeof(RankPair), compare_rank_pair);
		for (c = 0; c < ncand; c++)
		{
			int p = pairs[c].index;
			int f;

			if (nz + w->nfeat[p] > cw->maxc)
				break;
			for (f = 0; f < w->nfeat[p]; f++)
			{
				memcpy(z + (size_t)nz * m, w->feat + ((size_t)p * 2 + f) * m,
					   sizeof(double) * m);
				if (orthonormalize(z + (size_t)nz * m, m, z, nz, 0))
					nz++;
			}
		}
		cw->nz[j] = nz;

		memcpy(e, w->ry, sizeof(double) * m);
		for (k = 0; k < nz; k++)
		{
			double cz = dot(e, z + (size_t)k * m, m);

			for (i = 0; i < m; i++)
				e[i] -= cz * z[(size_t)k * m + i];
		}
		for (k = 0; k < w->nfeat[j]; k++)
		{
			memcpy(u + (size_t)nu * m, w->feat + ((size_t)j * 2 + k) * m,
				   sizeof(double) * m);
			/* u is orthogonal to Z and to the u before it */
			if (orthonormalize(u + (size_t)nu * m, m, z, nz, 0) &&
				orthonormalize(u + (size_t)nu * m, m, u, nu, 0))
				nu++;
		}
		cw->nu[j] = nu;

		ee = dot(e, e, m);
		s = 0.0;
		for (k = 0; k < nu; k++)
		{
			double cu = dot(u + (size_t)k * m, e, m);

			s += cu * cu;
		}
		/* the others explain rank(y) exactly: nothing is left for x_j */
		cw->obs[j] = ee > 1e-20 ? s / ee : -1.0;
		cw->count[j] = 0;
	}

	for (i = 0; i < m; i++)
		perm[i] = i;
	rng_seed(&rng, rng_mix(rng_mix(seed, (uint64_t)round), (uint64_t)t));
	for (b = 0; b < B; b++)
	{
		if (tuner_interrupted())
			return -1;
		shuffle(perm, m, &rng);
		for (j = 0; j < d; j++)
		{
			const double *z = cw->z + (size_t)j * cw->maxc * m;
			const double *u = cw->u + (size_t)j * 2 * m;
			const double *e = cw->e + (size_t)j * m;
			double num = 0.0;
			double den;
			int k;

			if (cw->obs[j] < 0.0)
				continue;
			den = dot(e, e, m);
			for (k = 0; k < cw->nu[j]; k++)
			{
				double c = dot_permuted(u + (size_t)k * m, e, perm, m);

				num += c * c;
			}
			for (k = 0; k < cw->nz[j]; k++)
			{
				double c = dot_permuted(z + (size_t)k * m, e, perm, m);

				den -= c * c;
			}
			if (num >= (cw->obs[j] - 1e-12) * den)
				cw->count[j]++;
		}
	}
	for (j = 0; j < d; j++)
	{
		if (cw->obs[j] < 0.0)
		{
			partial[(size_t)j * T + t] = 0.0;
			pvalue[(size_t)j * T + t] = 1.0;
			continue;
		}
		partial[(size_t)j * T + t] = sqrt(fmin(1.0, cw->obs[j]));
		pvalue[(size_t)j * T + t] = (cw->count[j] + 1.0) / (B + 1.0);
	}
	return 0;
}

/* BH over the valid metrics' tests; sig = adjusted < alpha. */
static void
adjust_all(const ClusterResult *r, double alpha, double *pbuf, double *qbuf,
		   RankPair *pairs, int *sig)
{
	int m = 0;
	int j;
	int t;

	for (j = 0; j < r->d; j++)
		for (t = 0; t < r->T; t++)
			if (r->valid[t])
				pbuf[m++] = r->pvalue[(size_t)j * r->T + t];
	bh_adjust(pbuf, m, qbuf, pairs);
	m = 0;
	for (j = 0; j < r->d; j++)
		for (t = 0; t < r->T; t++)
		{
			size_t jt = (size_t)j * r->T + t;

			if (r->valid[t])
			{
				r->adjusted[jt] = qbuf[m++];
				sig[jt] = r->adjusted[jt] < alpha;
			}
			else
				sig[jt] = 0;
		}
}

/*
 * Place parameters significant for no metric with their strongest metric
 * (smallest p-value, then largest partial score, then lowest index), then
 * fill in sizes and confidences.
 */
static void
assign_and_score(ClusterResult *r, double alpha)
{
	int d = r->d;
	int T = r->T;
	int j;
	int t;

	for (j = 0; j < d; j++)
	{
		int any = 0;
		int best = -1;

		for (t = 0; t < T; t++)
			any |= r->member[(size_t)j * T + t];
		if (any)
			continue;
		for (t = 0; t < T; t++)
		{
			size_t jt = (size_t)j * T + t;

			if (!r->valid[t])
				continue;
			if (best < 0)
				best = t;
			else
			{
				size_t jb = (size_t)j * T + best;

				if (r->pvalue[jt] < r->pvalue[jb] ||
					(r->pvalue[jt] == r->pvalue[jb] &&
					 r->partial[jt] > r->partial[jb]))
					best = t;
			}
		}
		r->member[(size_t)j * T + best] = 1;
		r->weak[(size_t)j * T + best] = 1;
	}

	for (t = 0; t < T; t++)
	{
		double qmax = 0.0;
		double s_in = INFINITY;
		double s_out = 0.0;
		int size = 0;
		int outside = 0;
		double certainty;
		double separation;

		r->size[t] = 0;
		r->confidence[t] = 0.0;
		if (!r->valid[t])
			continue;
		for (j = 0; j < d; j++)
		{
			size_t jt = (size_t)j * T + t;

			if (r->member[jt])
			{
				size++;
				qmax = fmax(qmax, r->adjusted[jt]);
				s_in = fmin(s_in, r->partial[jt]);
			}
			else
			{
				outside = 1;
				s_out = fmax(s_out, r->partial[jt]);
			}
		}
		r->size[t] = size;
		if (size == 0)
			continue;
		certainty = fmax(0.0, 1.0 - qmax / alpha);
		if (!outside)
			separation = 1.0;
		else if (s_in <= 0.0)
			separation = 0.0;
		else
			separation = fmin(1.0, fmax(0.0, (s_in - s_out) / s_in));
		r->confidence[t] = certainty * separation;
	}
}

void
cluster_options_init(ClusterOptions *options)
{
	options->permutations = 0;
	options->alpha = 0.05;
	options->refine_rounds = 2;
	options->seed = 0;
}

void
cluster_result_free(ClusterResult *result)
{
	if (result == NULL)
		return;
	tuner_free(result->score);
	tuner_free(result->partial);
	tuner_free(result->pvalue);
	tuner_free(result->adjusted);
	tuner_free(result->member);
	tuner_free(result->weak);
	tuner_free(result->n_obs);
	tuner_free(result->valid);
	tuner_free(result->size);
	tuner_free(result->confidence);
	tuner_free(result);
}

static ClusterResult *
result_create(int d, int T)
{
	size_t dt = (size_t)d * T;
	ClusterResult *r = tuner_alloc_zero(sizeof(ClusterResult));

	if (r == NULL)
		return NULL;
	r->d = d;
	r->T = T;
	r->score = tuner_alloc(sizeof(double) * dt);
	r->partial = tuner_alloc(sizeof(double) * dt);
	r->pvalue = tuner_alloc(sizeof(double) * dt);
	r->adjusted = tuner_alloc(sizeof(double) * dt);
	r->member = tuner_alloc_zero(sizeof(int) * dt);
	r->weak = tuner_alloc_zero(sizeof(int) * dt);
	r->n_obs = tuner_alloc_zero(sizeof(int) * T);
	r->valid = tuner_alloc_zero(sizeof(int) * T);
	r->size = tuner_alloc_zero(sizeof(int) * T);
	r->confidence = tuner_alloc_zero(sizeof(double) * T);
	if (!r->score || !r->partial || !r->pvalue || !r->adjusted || !r->member ||
		!r->weak || !r->n_obs || !r->valid || !r->size || !r->confidence)
	{
		cluster_result_free(r);
		return NULL;
	}
	return r;
}

static TunerErrorCode
check_inputs(const double *x, const double *y, int n, int d, int T,
			 const ClusterOptions *o, TunerStatus *status)
{
	size_t i;

	if (n < CLUSTER_MIN_OBS)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "clusters need at least %d trials, got %d",
						  CLUSTER_MIN_OBS, n);
	if (d < 1 || T < 1)
		return tuner_fail(
			status, TUNER_ERR_INVALID,
			"clusters need at least one parameter and one metric, got %d and %d",
			d, T);
	if (x == NULL || y == NULL || o == NULL)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "clusters got a NULL argument");
	if (o->permutations < 0 || o->permutations > MAX_PERMUTATIONS)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "permutations must be between 0 and %d, got %d",
						  MAX_PERMUTATIONS, o->permutations);
	if (!(o->alpha > 0.0 && o->alpha < 1.0))
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "alpha must be in (0, 1), got %g", o->alpha);
	if (o->refine_rounds < 0 || o->refine_rounds > MAX_ROUNDS)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "refine_rounds must be between 0 and %d, got %d",
						  MAX_ROUNDS, o->refine_rounds);
	for (i = 0; i < (size_t)n * d; i++)
		if (!isfinite(x[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "x of trial %d, parameter %d is not finite",
							  (int)(i / d), (int)(i % d));
	for (i = 0; i < (size_t)n * T; i++)
		if (isinf(y[i]))
			return tuner_fail(
				status, TUNER_ERR_INVALID,
				"metric %d of trial %d is infinite (NaN marks a missing value)",
				(int)(i % T), (int)(i / T));
	return TUNER_OK;
}

TunerErrorCode
cluster_learn(const double *x, const double *y, int n, int d, int T,
			  const ClusterOptions *options, ClusterResult **result,
			  TunerStatus *status)
{
	TunerErrorCode rc;
	ClusterResult *r = NULL;
	MetricWork *mw = NULL;
	CondWork cw;
	RankPair *pairs = NULL;
	double *scratch = NULL;
	double *pbuf = NULL;
	double *qbuf = NULL;
	double *observed = NULL;
	int *count = NULL;
	int *perm = NULL;
	int *sig = NULL;
	int *prev = NULL;
	size_t dt = (size_t)d * T;
	int n_valid = 0;
	int B;
	int round;
	int t;
	size_t k;

	memset(&cw, 0, sizeof(cw));
	rc = check_inputs(x, y, n, d, T, options, status);
	if (rc != TUNER_OK)
		return rc;

	r = result_create(d, T);
	mw = tuner_alloc_zero(sizeof(MetricWork) * T);
	k = (size_t)n > dt ? (size_t)n : dt;
	pairs = tuner_alloc(sizeof(RankPair) * k);
	scratch = tuner_alloc(sizeof(double) * n);
	pbuf = tuner_alloc(sizeof(double) * dt);
	qbuf = tuner_alloc(sizeof(double) * dt);
	observed = tuner_alloc(sizeof(double) * d);
	count = tuner_alloc(sizeof(int) * d);
	perm = tuner_alloc(sizeof(int) * n);
	sig = tuner_alloc_zero(sizeof(int) * dt);
	prev = tuner_alloc_zero(sizeof(int) * dt);
	if (!r || !mw || !pairs || !scratch || !pbuf || !qbuf || !observed ||
		!count || !perm || !sig || !prev)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM, "out of memory for clusters");
		goto done;
	}
	for (t = 0; t < T; t++)
	{
		mw[t].obs = tuner_alloc(sizeof(int) * n);
		mw[t].ry = tuner_alloc(sizeof(double) * n);
		mw[t].feat = tuner_alloc(sizeof(double) * 2 * d * n);
		mw[t].nfeat = tuner_alloc(sizeof(int) * d);
		if (!mw[t].obs || !mw[t].ry || !mw[t].feat || !mw[t].nfeat)
		{
			rc = tuner_fail(status, TUNER_ERR_NOMEM,
							"out of memory for clusters");
			goto done;
		}
		metric_prepare(x, y, n, d, T, t, &mw[t], scratch, pairs);
		for (k = 0; k < (size_t)n; k++)
			r->n_obs[t] += !isnan(y[k * T + t]);
		r->valid[t] = mw[t].m > 0;
		n_valid += r->valid[t];
	}
	if (n_valid == 0)
	{
		rc = tuner_fail(
			status, TUNER_ERR_INVALID,
			"no metric has %d observations with some variance, so no parameter can be clustered",
			CLUSTER_MIN_OBS);
		goto done;
	}

	B = options->permutations;
	if (B == 0)
	{
		double want = ceil(1.25 * d * n_valid / options->alpha) - 1.0;

		B = (int)fmin(MAX_PERMUTATIONS, fmax(MIN_AUTO_PERMS, want));
	}
	r->permutations = B;

	for (k = 0; k < dt; k++)
	{
		r->score[k] = NAN;
		r->partial[k] = NAN;
		r->pvalue[k] = NAN;
		r->adjusted[k] = NAN;
	}
	for (t = 0; t < T; t++)
		if (r->valid[t] &&
			marginal_pass(&mw[t], d, T, t, B, options->seed, r->score,
						  r->pvalue, perm, observed, count) != 0)
		{
			rc = tuner_fail(status, TUNER_ERR_INTERRUPTED,
							"learning clusters was interrupted");
			goto done;
		}
	for (k = 0; k < dt; k++)
		r->partial[k] = r->score[k];
	adjust_all(r, options->alpha, pbuf, qbuf, pairs, sig);

	/* conditional passes, until the membership stops changing */
	cw.maxc = n / 4;
	cw.z = tuner_alloc(sizeof(double) * ((size_t)d * cw.maxc * n + 1));
	cw.nz = tuner_alloc(sizeof(int) * d);
	cw.u = tuner_alloc(sizeof(double) * 2 * d * n);
	cw.nu = tuner_alloc(sizeof(int) * d);
	cw.e = tuner_alloc(sizeof(double) * d * n);
	cw.obs = tuner_alloc(sizeof(double) * d);
	cw.count = tuner_alloc(sizeof(int) * d);
	if (!cw.z || !cw.nz || !cw.u || !cw.nu || !cw.e || !cw.obs || !cw.count)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM, "out of memory for clusters");
		goto done;
	}
	for (round = 1; round <= options->refine_rounds; round++)
	{
		memcpy(prev, sig, sizeof(int) * dt);
		for (t = 0; t < T; t++)
			if (r->valid[t])
			{
				CondWork one = cw;

				/* a quarter of the observations at most, for residual df */
				one.maxc = mw[t].m / 4;
				if (conditional_pass(&mw[t], &one, d, T, t, B, options->seed,
									 round, prev, r->adjusted, r->partial,
									 r->pvalue, perm, pairs) != 0)
				{
					rc = tuner_fail(status, TUNER_ERR_INTERRUPTED,
									"learning clusters was interrupted");
					goto done;
				}
			}
		adjust_all(r, options->alpha, pbuf, qbuf, pairs, sig);
		r->rounds = round;
		if (memcmp(prev, sig, sizeof(int) * dt) == 0)
			break;
	}

	memcpy(r->member, sig, sizeof(int) * dt);
	assign_and_score(r, options->alpha);
	*result = r;
	r = NULL;
	rc = TUNER_OK;

done:
	if (mw != NULL)
		for (t = 0; t < T; t++)
		{
			tuner_free(mw[t].obs);
			tuner_free(mw[t].ry);
			tuner_free(mw[t].feat);
			tuner_free(mw[t].nfeat);
		}
	tuner_free(mw);
	tuner_free(cw.z);
	tuner_free(cw.nz);
	tuner_free(cw.u);
	tuner_free(cw.nu);
	tuner_free(cw.e);
	tuner_free(cw.obs);
	tuner_free(cw.count);
	tuner_free(pairs);
	tuner_free(scratch);
	tuner_free(pbuf);
	tuner_free(qbuf);
	tuner_free(observed);
	tuner_free(count);
	tuner_free(perm);
	tuner_free(sig);
	tuner_free(prev);
	cluster_result_free(r);
	return rc;
}
