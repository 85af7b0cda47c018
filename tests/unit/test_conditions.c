/*
 * test_conditions.c
 *	  Canonical configurations (issue 26): values on their grid, conditions
 *	  applied parents first with an inactive parent making its children
 *	  inactive, and a property test of the whole suggestion step: in random
 *	  conditional spaces with failures and running trials, no suggestion
 *	  repeats a trial in canonical form, under gp-ei, icm, clustered icm and
 *	  random search.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "suggest.h"
#include "unit.h"

/* The double nearest to the decimal text s. */
static double
dec(const char *s)
{
	return strtod(s, NULL);
}

/* Does v print with at most 15 significant digits? */
static int
short_decimal(double v)
{
	char		buf[64];

	snprintf(buf, sizeof(buf), "%.15g", v);
	return strtod(buf, NULL) == v;
}

static void
test_grid(void)
{
	ParamSpec	logf = {PARAM_FLOAT, 0.25, 25, 1, 0};
	ParamSpec	unitf = {PARAM_FLOAT, 0, 1, 0, 0};
	ParamSpec	sym = {PARAM_FLOAT, -1, 1, 0, 0};
	ParamSpec	odd = {PARAM_FLOAT, 0.1, 0.1 + 0.2, 0, 0};	/* high 0.30000000000000004 */
	ParamSpec	big = {PARAM_FLOAT, 0, 1e20, 0, 0};
	ParamSpec	tiny = {PARAM_FLOAT, 1e-30, 3e-30, 0, 0};
	ParamSpec	ints = {PARAM_INT, 1, 64, 1, 0};
	ParamSpec	cat = {PARAM_CATEGORICAL, 0, 0, 0, 4};
	ParamSpec	flag = {PARAM_BOOL, 0, 0, 0, 0};
	TunerRng	rng;
	int			i;

	/* the noise: the log range's centre and its upper bound */
	CHECK(space_grid_value(&logf, 2.4999999999999982) == 2.5);
	CHECK(space_grid_value(&logf, 24.999999999999986) == 25);
	CHECK(space_grid_value(&logf, 0.25000000000000006) == 0.25);
	/* 15 significant digits of the range: 14 decimals in [0, 1] */
	CHECK(space_grid_value(&unitf, 0.6190476190476187) == dec("0.61904761904762"));
	CHECK(space_grid_value(&unitf, 0.4999999999999999) == 0.5);
	CHECK(space_grid_value(&unitf, 0.123) == 0.123);
	/* no negative zero */
	CHECK(space_grid_value(&sym, -2.7755575615628914e-17) == 0.0);
	CHECK(!signbit(space_grid_value(&sym, -2.7755575615628914e-17)));
	/* a value inside the bounds stays inside, even a bound off the grid */
	CHECK(space_grid_value(&odd, odd.high) <= odd.high);
	CHECK(space_grid_value(&odd, odd.low) >= odd.low);
	/* huge and tiny ranges */
	CHECK(space_grid_value(&big, 12345678901234567890.0) == dec("12345678901235000000"));
	CHECK(space_grid_value(&tiny, 2.1234567890123456789e-30) == dec("2.12345678901235e-30"));
	/* discrete kinds: the nearest grid point */
	CHECK(space_grid_value(&ints, 2.9999999) == 3);
	CHECK(space_grid_value(&ints, 7) == 7);
	CHECK(space_grid_value(&cat, 2.0000001) == 2);
	CHECK(space_grid_value(&flag, 0.9) == 1 && space_grid_value(&flag, 0.2) == 0);

	/* random values: short decimals, idempotent, within 1e-14 of the range */
	rng_seed(&rng, 26);
	for (i = 0; i < 2000; i++)
	{
		double		u = rng_uniform(&rng);
		double		v = exp(log(0.25) + u * (log(25) - log(0.25)));
		double		g = space_grid_value(&logf, v);
		double		w = -1 + 2 * u;
		double		h = space_grid_value(&sym, w);

		CHECK(short_decimal(g) && space_grid_value(&logf, g) == g);
		CHECK(fabs(g - v) <= 1e-14 * v && g >= 0.25 && g <= 25);
		CHECK(short_decimal(h) && space_grid_value(&sym, h) == h);
		CHECK(fabs(h - w) <= 1e-14);
	}
}

/*
 * a categorical (2 choices); b float active when a = 0; c float active
 * when b > 0.5; e int active when c <= 0.5; f never active; g bool active
 * when a is not 1.
 */
static const ParamSpec chain_space[6] = {
	{PARAM_CATEGORICAL, 0, 0, 0, 2},
	{PARAM_FLOAT, 0, 1, 0, 0},
	{PARAM_FLOAT, 0, 1, 0, 0},
	{PARAM_INT, 1, 9, 0, 0},
	{PARAM_INT, 1, 9, 0, 0},
	{PARAM_BOOL, 0, 0, 0, 0},
};
static const double zero = 0, one = 1, half = 0.5;

static void
chain_conditions(ParamCondition *c)
{
	memset(c, 0, sizeof(ParamCondition) * 6);
	c[1] = (ParamCondition) {COND_IN, 0, &zero, 1, 0.9};
	c[2] = (ParamCondition) {COND_GT, 1, &half, 1, 0.1};
	c[3] = (ParamCondition) {COND_LE, 2, &half, 1, 4};
	c[4] = (ParamCondition) {COND_NEVER, 0, NULL, 0, 3};
	c[5] = (ParamCondition) {COND_NOT_IN, 0, &one, 1, 0};
}

static void
test_chain(void)
{
	ParamCondition c[6];
	TunerStatus status;
	int			active[6];
	int			pass;

	chain_conditions(c);
	CHECK(space_validate_conditions(chain_space, c, 6, &status) == TUNER_OK);
	for (pass = 0; pass < 2; pass++)
	{
		int		   *act = pass == 0 ? active : NULL;

		/* a = 1: b inactive, so c and e too, though b's default is > 0.5 */
		{
			double		x[6] = {1, 0.3, 0.7, 2, 5, 1};
			double		u[6];
			int			j;

			space_to_unit(chain_space, 6, x, u);
			space_canonical(chain_space, c, 6, x, u, act);
			CHECK(x[0] == 1 && x[1] == 0.9 && x[2] == 0.1 && x[3] == 4);
			CHECK(x[4] == 3 && x[5] == 0);
			if (act != NULL)
				CHECK(act[0] && !act[1] && !act[2] && !act[3] && !act[4] && !act[5]);
			/* the unit image follows the values that moved */
			{
				double		v[6];

				space_to_unit(chain_space, 6, x, v);
				for (j = 0; j < 6; j++)
					CHECK_CLOSE(u[j], v[j], 1e-12);
			}
		}
		/* everything active that can be */
		{
			double		x[6] = {0, 0.7, 0.2, 2, 5, 1};

			space_canonical(chain_space, c, 6, x, NULL, act);
			CHECK(x[1] == 0.7 && x[2] == 0.2 && x[3] == 2 && x[4] == 3 && x[5] == 1);
		}
		/* b active but <= 0.5: c inactive, and so e */
		{
			double		x[6] = {0, 0.3, 0.2, 2, 5, 1};

			space_canonical(chain_space, c, 6, x, NULL, act);
			CHECK(x[1] == 0.3 && x[2] == 0.1 && x[3] == 4);
		}
		/* c active but > 0.5: e inactive */
		{
			double		x[6] = {0, 0.7, 0.8, 2, 5, 1};

			space_canonical(chain_space, c, 6, x, NULL, act);
			CHECK(x[2] == 0.8 && x[3] == 4);
		}
	}
	/* space_active agrees, on a configuration not yet canonical */
	{
		double		x[6] = {1, 0.7, 0.2, 2, 5, 1};

		CHECK(space_active(c, 6, x, active) == 5);
		CHECK(space_active(NULL, 6, x, active) == 0);
	}

	/* bad conditions */
	{
		double		nan_value = NAN;
		double		two[2] = {0, 1};

		c[2].parent = 2;		/* itself */
		CHECK(space_validate_conditions(chain_space, c, 6, &status) == TUNER_ERR_INVALID);
		c[2].parent = 3;		/* a later one */
		CHECK(space_validate_conditions(chain_space, c, 6, &status) == TUNER_ERR_INVALID);
		c[2].parent = -1;
		CHECK(space_validate_conditions(chain_space, c, 6, &status) == TUNER_ERR_INVALID);
		chain_conditions(c);
		c[2].parent = 0;		/* orders a categorical */
		CHECK(space_validate_conditions(chain_space, c, 6, &status) == TUNER_ERR_INVALID);
		CHECK(strstr(status.message, "orders") != NULL);
		chain_conditions(c);
		c[2].values = two;		/* compares with two values */
		c[2].n_values = 2;
		CHECK(space_validate_conditions(chain_space, c, 6, &status) == TUNER_ERR_INVALID);
		chain_conditions(c);
		c[1].values = &nan_value;
		CHECK(space_validate_conditions(chain_space, c, 6, &status) == TUNER_ERR_INVALID);
		chain_conditions(c);
		c[4].inactive_value = NAN;
		CHECK(space_validate_conditions(chain_space, c, 6, &status) == TUNER_ERR_INVALID);
		chain_conditions(c);
		c[1].op = (ConditionOp) 42;
		CHECK(space_validate_conditions(chain_space, c, 6, &status) == TUNER_ERR_INVALID);
		chain_conditions(c);
		c[1].values = NULL;
		CHECK(space_validate_conditions(chain_space, c, 6, &status) == TUNER_ERR_INVALID);
		CHECK(space_validate_conditions(chain_space, NULL, 6, &status) == TUNER_OK);
	}
}

#define MAX_D	  7
#define MAX_TRIALS 24

/* A random conditional space of d parameters and its conditions. */
static int
random_space(TunerRng *rng, ParamSpec *params, ParamCondition *conds,
			 double *values)
{
	int			d = 4 + (int) rng_below(rng, 4);
	int			j;

	memset(conds, 0, sizeof(ParamCondition) * MAX_D);
	for (j = 0; j < d; j++)
	{
		ParamSpec  *p = &params[j];
		ParamCondition *c = &conds[j];

		memset(p, 0, sizeof(ParamSpec));
		switch (rng_below(rng, 5))
		{
			case 0:
				p->kind = PARAM_CATEGORICAL;
				p->n_choices = 3;
				break;
			case 1:
				p->kind = PARAM_BOOL;
				break;
			case 2:
				p->kind = PARAM_FLOAT;
				p->high = 1;
				break;
			default:
				p->kind = PARAM_INT;
				p->low = 1;
				p->high = 2 + (double) rng_below(rng, 6);
				break;
		}
		c->inactive_value = p->kind == PARAM_FLOAT ? 0.25
			: p->kind == PARAM_INT ? p->low : 0;
		if (j == 0 || rng_uniform(rng) >= 0.6)
			continue;
		c->parent = (int) rng_below(rng, j);
		c->values = values + 2 * j;
		switch (params[c->parent].kind)
		{
			case PARAM_CATEGORICAL:
				c->op = rng_below(rng, 2) ? COND_IN : COND_NOT_IN;
				values[2 * j] = 0;
				values[2 * j + 1] = 1;
				c->n_values = 1 + (int) rng_below(rng, 2);
				break;
			case PARAM_BOOL:
				c->op = COND_IN;
				values[2 * j] = (double) rng_below(rng, 2);
				c->n_values = 1;
				break;
			case PARAM_FLOAT:
				c->op = rng_below(rng, 2) ? COND_LT : COND_GE;
				values[2 * j] = 0.5;
				c->n_values = 1;
				break;
			default:
				c->op = COND_GT + (int) rng_below(rng, 2);	/* > or >= */
				values[2 * j] = 1 + (double) rng_below(rng, (uint64_t) params[c->parent].high);
				c->n_values = 1;
				break;
		}
	}
	return d;
}

/* A smooth objective, low near 30% of each numeric range. */
static double
objective(const ParamSpec *params, int d, const double *x)
{
	double		v = 0;
	int			j;

	for (j = 0; j < d; j++)
		if (params[j].kind == PARAM_FLOAT || params[j].kind == PARAM_INT)
		{
			double		t = (x[j] - params[j].low) / (params[j].high - params[j].low) - 0.3;

			v += t * t;
		}
		else
			v += 0.2 * x[j];
	return v;
}

/* The clusters' models of a clustered ICM step. */
static void
free_clusters(const SuggestInput *in, SuggestResult *out)
{
	int			c;

	if (out->cluster_icm == NULL)
		return;
	for (c = 0; c < in->n_clusters; c++)
		icm_model_free(out->cluster_icm[c]);
	tuner_free(out->cluster_icm);
	out->cluster_icm = NULL;
}

/*
 * The property: every suggestion is canonical and none is a trial made
 * before (in canonical form), whatever the mix of failures (about one in
 * five), trials running (every fourth stays pending) and trials stored
 * before their conditions were applied (each failure is given to the step
 * with its inactive parameters scrambled).
 */
static void
test_property(void)
{
	TunerRng	rng;
	int			space_no;
	int			repeats = 0,
				not_canonical = 0,
				steps = 0,
				errors = 0,
				inactive_seen = 0;

	rng_seed(&rng, 2026);
	for (space_no = 0; space_no < 16; space_no++)
	{
		ParamSpec	params[MAX_D];
		ParamCondition conds[MAX_D];
		double		values[2 * MAX_D];
		int			d = random_space(&rng, params, conds, values);
		SuggestAlgorithm algs[4] = {SUGGEST_ALG_RANDOM, SUGGEST_ALG_GP_EI,
			SUGGEST_ALG_ICM, SUGGEST_ALG_CLUSTERED_ICM};
		SuggestAlgorithm alg = algs[space_no % 4];
		int			members[2 * MAX_D];
		int			metric[2] = {0, 0};
		double		made[MAX_TRIALS * MAX_D];	/* every suggestion, canonical */
		double		xo[MAX_TRIALS * MAX_D],
					yo[MAX_TRIALS],
					aux[MAX_TRIALS],
					xp[MAX_TRIALS * MAX_D],
					xf[MAX_TRIALS * MAX_D];
		int			state[MAX_TRIALS];	/* 0 observed, 1 pending, 2 failed */
		double		cfg[MAX_D],
					ls[MAX_D],
					check[MAX_D];
		int			active[MAX_D];
		int			t,
					i;

		for (t = 0; t < MAX_TRIALS; t++)
		{
			SuggestInput in;
			SuggestResult out;
			TunerStatus status;
			int			no = 0,
						np = 0,
						nf = 0;

			/* the history as the step sees it */
			for (i = 0; i < t; i++)
			{
				const double *x = made + (size_t) i * d;

				if (state[i] == 0 || (state[i] == 1 && i + 2 < t))
				{
					memcpy(xo + (size_t) no * d, x, sizeof(double) * d);
					yo[no] = objective(params, d, x);
					aux[no] = yo[no] + x[0];
					no++;
				}
				else if (state[i] == 1)
					memcpy(xp + (size_t) np++ * d, x, sizeof(double) * d);
				else
				{
					double	   *f = xf + (size_t) nf++ * d;
					int			j;

					memcpy(f, x, sizeof(double) * d);
					space_active(conds, d, f, active);
					for (j = 0; j < d; j++)
						if (!active[j] && params[j].kind == PARAM_FLOAT)
							f[j] = rng_uniform(&rng);
				}
			}
			memset(&in, 0, sizeof(in));
			in.params = params;
			in.d = d;
			in.conditions = conds;
			in.canonical = 1;
			in.algorithm = alg;
			in.x_observed = xo;
			in.y_observed = yo;
			in.n_observed = no;
			in.x_pending = xp;
			in.n_pending = np;
			in.x_failed = xf;
			in.n_failed = nf;
			in.n_initial = 5;
			in.design_index = t;
			in.design_seed = 1000 + space_no;
			in.seed = rng_next(&rng);
			if (alg == SUGGEST_ALG_ICM || alg == SUGGEST_ALG_CLUSTERED_ICM)
			{
				in.y_aux = aux;
				in.n_aux = 1;
			}
			if (alg == SUGGEST_ALG_CLUSTERED_ICM)
			{
				/* two clusters: the first half, the rest, both on aux */
				for (i = 0; i < 2 * d; i++)
					members[i] = i < d ? i < d / 2 : i - d >= d / 2;
				in.n_clusters = 2;
				in.cluster_members = members;
				in.cluster_metric = metric;
			}
			memset(&out, 0, sizeof(out));
			out.config = cfg;
			out.lengthscales = ls;
			if (tuner_suggest(&in, &out, &status) != TUNER_OK)
			{
				/* a small discrete space may run out; nothing else may fail */
				if (status.code != TUNER_ERR_EXHAUSTED)
				{
					fprintf(stderr, "space %d step %d: %s\n", space_no, t, status.message);
					errors++;
				}
				icm_model_free(out.icm);
				free_clusters(&in, &out);
				break;
			}
			icm_model_free(out.icm);
			free_clusters(&in, &out);
			steps++;
			memcpy(check, cfg, sizeof(double) * d);
			space_canonical(params, conds, d, check, NULL, active);
			not_canonical += memcmp(check, cfg, sizeof(double) * d) != 0;
			inactive_seen += space_active(conds, d, cfg, active) > 0;
			/* as stored: canonical (tuner.suggest_next checks it is) */
			for (i = 0; i < t; i++)
				repeats += space_same_config(params, d, made + (size_t) i * d, check);
			memcpy(made + (size_t) t * d, check, sizeof(double) * d);
			state[t] = (rng_next(&rng) % 5 == 0) ? 2 : (t % 4 == 3 ? 1 : 0);
		}
	}
	CHECK(errors == 0);
	CHECK(repeats == 0);
	CHECK(not_canonical == 0);
	CHECK(steps > 200);
	CHECK(inactive_seen > 20);
}

/* canonical = 0 is the step of 0.2.0: conditions are not applied. */
static void
test_legacy(void)
{
	ParamCondition c[6];
	SuggestInput in;
	SuggestResult out;
	TunerStatus status;
	double		cfg[6],
				ls[6];
	int			active[6];
	int			t,
				raw = 0;

	chain_conditions(c);
	memset(&in, 0, sizeof(in));
	in.params = chain_space;
	in.d = 6;
	in.conditions = c;
	in.n_initial = 5;
	in.design_seed = 3;
	memset(&out, 0, sizeof(out));
	out.config = cfg;
	out.lengthscales = ls;
	for (t = 0; t < 5; t++)
	{
		double		check[6];

		in.design_index = t;
		CHECK(tuner_suggest(&in, &out, &status) == TUNER_OK);
		memcpy(check, cfg, sizeof(check));
		space_canonical(chain_space, c, 6, check, NULL, active);
		raw += memcmp(check, cfg, sizeof(check)) != 0;
	}
	CHECK(raw > 0);
	/* and a canonical step refuses bad conditions */
	in.canonical = 1;
	c[3].parent = 5;
	CHECK(tuner_suggest(&in, &out, &status) == TUNER_ERR_INVALID);
}

void
test_conditions(void)
{
	test_grid();
	test_chain();
	test_property();
	test_legacy();
}
