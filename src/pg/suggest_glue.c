/*
 * suggest_glue.c
 *	  SQL entry points of one Bayesian-optimisation step.  tuner._suggest
 *	  takes the record of what a suggestion is computed from (a
 *	  tuner.suggestion row: the space, the trials by id, seeds, algorithm,
 *	  design length, warm starts, conditions), reads the data it names over
 *	  SPI (tuner._suggestion_data), checks it, runs src/core/suggest.h in a
 *	  private memory context and returns a tuner.suggest_result: the chosen
 *	  configuration with what the model predicted for it and the models it
 *	  fitted.  tuner.suggest_next and tuner.replay_suggestion both call it.
 *	  tuner._suggest_point, the positional entry point of 0.1.0 and 0.2.0,
 *	  shares the readers.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "executor/spi.h"
#include "utils/memutils.h"

#include "space.h"
#include "suggest.h"
#include "tuner_pg.h"

PG_FUNCTION_INFO_V1(tuner_suggest_point);
PG_FUNCTION_INFO_V1(tuner_suggest_from_record);
PG_FUNCTION_INFO_V1(tuner_unit_points);

/*
 * Attributes of tuner._suggest_point's row: 44 since 0.2.0 (the failure
 * model's trend), 42 in 0.1.0, whose SQL may still call this library
 * between installing it and ALTER EXTENSION ... UPDATE.
 */
#define SUGGEST_NATTS     46
#define SUGGEST_NATTS_0_1 42

/*
 * The inputs of one suggestion, in the order of the positional
 * tuner._suggest_point of 0.1.0 and 0.2.0 (whose scripts still create it
 * before ALTER EXTENSION ... UPDATE), so that both entry points fill one
 * FunctionCallInfo and share the readers below; the failure model's warm
 * start (0.3.0) comes after them.
 */
typedef enum SuggestArg
{
	SA_KINDS,
	SA_LOWS,
	SA_HIGHS,
	SA_LOG_SCALES,
	SA_N_CHOICES,
	SA_X_OBSERVED,
	SA_Y_OBSERVED,
	SA_X_PENDING,
	SA_X_OTHER,
	SA_N_INITIAL,
	SA_DESIGN_INDEX,
	SA_SEED,
	SA_DESIGN_SEED,
	SA_WARM_LENGTHSCALES,
	SA_WARM_OUTPUTSCALE,
	SA_WARM_NOISE,
	SA_WARM_MEAN,
	SA_ALGORITHM,
	SA_Y_AUX,
	SA_ICM_RANK,
	SA_WARM_TASK_LOADINGS,
	SA_WARM_TASK_VARIANCE,
	SA_WARM_TASK_NOISE,
	SA_WARM_TASK_MEAN,
	SA_X_TRANSFER,
	SA_Y_TRANSFER,
	SA_CLUSTER_MEMBERS,
	SA_CLUSTER_METRIC,
	SA_AUX_WEIGHTS,
	SA_WARM_CLUSTER_TASKS,
	SA_WARM_CLUSTER_RANK,
	SA_WARM_CLUSTER_LENGTHSCALES,
	SA_WARM_CLUSTER_LOADINGS,
	SA_WARM_CLUSTER_VARIANCE,
	SA_WARM_CLUSTER_NOISE,
	SA_WARM_CLUSTER_MEAN,
	SA_X_FAILED,
	SA_Y_CONSTRAINT,
	SA_CONSTRAINT_BOUND,
	SA_LINEAR_COEF,
	SA_LINEAR_RHS,
	SA_LINEAR_STRICT,
	SA_CONDITION_PARENT,
	SA_CONDITION_OP,
	SA_CONDITION_VALUES,
	SA_CONDITION_DEFAULT,
	SA_CANONICAL,
	SA_WARM_FEASIBILITY_LENGTHSCALES,
	SA_WARM_FEASIBILITY_OUTPUTSCALE,
	SA_WARM_FEASIBILITY_NOISE,
	SA_WARM_FEASIBILITY_MEAN,
	SA_Y_STD_ERROR,
	SA_DISTURBED,
	SUGGEST_NARGS
} SuggestArg;

/* Check that a parameter array has one element per parameter. */
static void
check_space_length(int n, int d, const char *name)
{
	if (n != d)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must have one element per parameter", name),
				 errdetail("%s has %d elements but there are %d parameters.",
						   name, n, d)));
}

/* Read the search space from five parallel arrays (arguments 0 .. 4). */
static ParamSpec *
read_space(FunctionCallInfo fcinfo, int *d)
{
	int *kinds;
	double *lows;
	double *highs;
	bool *log_scales;
	int *n_choices;
	ParamSpec *params;
	int n;
	int i;

	tuner_require_arg(fcinfo, SA_KINDS, "kinds");
	tuner_require_arg(fcinfo, SA_LOWS, "lows");
	tuner_require_arg(fcinfo, SA_HIGHS, "highs");
	tuner_require_arg(fcinfo, SA_LOG_SCALES, "log_scales");
	tuner_require_arg(fcinfo, SA_N_CHOICES, "n_choices");

	kinds = tuner_array_int4(PG_GETARG_ARRAYTYPE_P(SA_KINDS), "kinds", d);
	if (*d == 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("the search space has no parameters")));
	lows = tuner_array_vector(PG_GETARG_ARRAYTYPE_P(SA_LOWS), "lows", &n);
	check_space_length(n, *d, "lows");
	highs = tuner_array_vector(PG_GETARG_ARRAYTYPE_P(SA_HIGHS), "highs", &n);
	check_space_length(n, *d, "highs");
	log_scales = tuner_array_bool(PG_GETARG_ARRAYTYPE_P(SA_LOG_SCALES),
								  "log_scales", &n);
	check_space_length(n, *d, "log_scales");
	n_choices =
		tuner_array_int4(PG_GETARG_ARRAYTYPE_P(SA_N_CHOICES), "n_choices", &n);
	check_space_length(n, *d, "n_choices");

	params = palloc0(mul_size(*d, sizeof(ParamSpec)));
	for (i = 0; i < *d; i++)
	{
		if (kinds[i] < PARAM_FLOAT || kinds[i] > PARAM_CATEGORICAL)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("parameter %d has unknown kind code %d",
								   i + 1, kinds[i])));
		params[i].kind = (TunerParamKind)kinds[i];
		params[i].low = lows[i];
		params[i].high = highs[i];
		params[i].log_scale = log_scales[i] ? 1 : 0;
		params[i].n_choices = n_choices[i];
		if (kinds[i] == PARAM_CATEGORICAL)
			tuner_check_choices(n_choices[i], i + 1);
	}
	return params;
}

/*
 * Refuse, before any work, models of more rows than tuner.max_fit_rows:
 * the GP or ICM of the observed trials, the feasibility model of the
 * observed and failed ones, the transfer model of both studies' trials.
 * The random algorithm fits none.
 */
static void
check_model_rows(const SuggestInput *in)
{
	if (in->algorithm == SUGGEST_ALG_RANDOM)
		return;
	tuner_check_fit_size(in->n_observed, "the model", "observed trials");
	tuner_check_fit_size(in->n_observed + in->n_failed,
						 "the feasibility model",
						 "observed and failed trials");
	tuner_check_fit_size(in->n_observed + in->n_transfer, "the transfer model",
						 "trials of both studies");
}

/*
 * Read an optional n x d matrix of configurations; NULL or '{}' is zero
 * rows.
 */
static double *
read_configs(FunctionCallInfo fcinfo, int argno, const char *name, int d,
			 int *rows)
{
	double *values;
	int cols;

	if (PG_ARGISNULL(argno))
	{
		*rows = 0;
		return NULL;
	}
	values = tuner_array_matrix(PG_GETARG_ARRAYTYPE_P(argno), name, true, rows,
								&cols);
	if (*rows == 0)
		return NULL;
	if (cols != d)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must have one column per parameter", name),
				 errdetail("%s has %d columns but there are %d parameters.",
						   name, cols, d)));
	return values;
}

/* An int4[] of n C ints. */
static ArrayType *
int4_vector(const int *values, int n)
{
	Datum *datums = palloc(sizeof(Datum) * Max(n, 1));
	int i;

	for (i = 0; i < n; i++)
		datums[i] = Int32GetDatum(values[i]);
	return construct_array(datums, n, INT4OID, sizeof(int32), true,
						   TYPALIGN_INT);
}

/* The algorithm named by argument argno ('gp-ei', 'icm' or 'random'). */
static SuggestAlgorithm
read_algorithm(FunctionCallInfo fcinfo, int argno)
{
	char *name;

	if (PG_NARGS() <= argno || PG_ARGISNULL(argno))
		return SUGGEST_ALG_GP_EI;
	name = text_to_cstring(PG_GETARG_TEXT_PP(argno));
	if (strcmp(name, "gp-ei") == 0)
		return SUGGEST_ALG_GP_EI;
	if (strcmp(name, "icm") == 0)
		return SUGGEST_ALG_ICM;
	if (strcmp(name, "random") == 0)
		return SUGGEST_ALG_RANDOM;
	if (strcmp(name, "clustered-icm") == 0)
		return SUGGEST_ALG_CLUSTERED_ICM;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown algorithm \"%s\"", name),
			 errhint("Known algorithms: gp-ei, icm, clustered-icm, random.")));
	return SUGGEST_ALG_GP_EI; /* keep the compiler quiet */
}

/* An optional 1-D float8[] argument of exactly n elements, else NULL. */
static const double *
read_optional_vector(FunctionCallInfo fcinfo, int argno, const char *name,
					 int n)
{
	ArrayType *array;
	double *values;
	int len;

	if (PG_NARGS() <= argno || PG_ARGISNULL(argno))
		return NULL;
	array = PG_GETARG_ARRAYTYPE_P(argno);
	if (ARR_NDIM(array) == 0)
		return NULL;
	values = tuner_array_vector(array, name, &len);
	return len == n ? values : NULL;
}

/*
 * The multi-task inputs (arguments 18 .. 23): the auxiliary metrics of the
 * observed trials, the rank, and the previous ICM fit to start from.  A
 * previous fit of other dimensions is ignored, as for the GP.
 */
static void
read_icm_inputs(FunctionCallInfo fcinfo, SuggestInput *input)
{
	int rows;
	int T;
	int rank;

	if (PG_NARGS() > SA_Y_AUX && !PG_ARGISNULL(SA_Y_AUX))
	{
		input->y_aux = tuner_array_matrix_missing(
			PG_GETARG_ARRAYTYPE_P(SA_Y_AUX), "y_aux", &rows, &input->n_aux);
		if (rows != input->n_observed)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("x_observed and y_aux have different lengths"),
					 errdetail("x_observed has %d rows but y_aux has %d.",
							   input->n_observed, rows)));
	}
	if (PG_NARGS() > SA_ICM_RANK && !PG_ARGISNULL(SA_ICM_RANK))
	{
		input->icm_rank = PG_GETARG_INT32(SA_ICM_RANK);
		if (input->icm_rank < 1)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("icm_rank must be at least 1")));
	}
	if (input->warm_lengthscales == NULL || PG_NARGS() <= SA_WARM_TASK_MEAN ||
		PG_ARGISNULL(SA_WARM_TASK_LOADINGS))
		return;
	{
		ArrayType *wa = PG_GETARG_ARRAYTYPE_P(SA_WARM_TASK_LOADINGS);
		double *loadings;

		if (ARR_NDIM(wa) != 2)
			return;
		loadings =
			tuner_array_matrix(wa, "warm_task_loadings", false, &T, &rank);
		input->warm_v = read_optional_vector(fcinfo, SA_WARM_TASK_VARIANCE,
											 "warm_task_variance", T);
		input->warm_task_noise = read_optional_vector(
			fcinfo, SA_WARM_TASK_NOISE, "warm_task_noise", T);
		input->warm_task_mean = read_optional_vector(fcinfo, SA_WARM_TASK_MEAN,
													 "warm_task_mean", T);
		if (input->warm_v == NULL || input->warm_task_noise == NULL ||
			input->warm_task_mean == NULL)
		{
			input->warm_v = input->warm_task_noise = input->warm_task_mean =
				NULL;
			return;
		}
		input->warm_W = loadings;
		input->warm_T = T;
		input->warm_rank = rank;
	}
}

/*
 * The earlier studies' trials (arguments 24 and 25): x_transfer (native
 * values, n x d) and y_transfer (n x sources, NULL but for the trial's own
 * study).
 */
static void
read_transfer_inputs(FunctionCallInfo fcinfo, SuggestInput *input)
{
	int rows;
	int cols;

	if (PG_NARGS() <= SA_Y_TRANSFER || PG_ARGISNULL(SA_X_TRANSFER) ||
		PG_ARGISNULL(SA_Y_TRANSFER))
		return;
	input->x_transfer =
		tuner_array_matrix(PG_GETARG_ARRAYTYPE_P(SA_X_TRANSFER), "x_transfer",
						   true, &input->n_transfer, &cols);
	if (input->n_transfer == 0)
		return;
	if (cols != input->d)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("x_transfer must have one column per parameter"),
				 errdetail("x_transfer has %d columns but there are %d "
						   "parameters.",
						   cols, input->d)));
	input->y_transfer = tuner_array_matrix_missing(
		PG_GETARG_ARRAYTYPE_P(SA_Y_TRANSFER), "y_transfer", &rows,
		&input->n_transfer_tasks);
	if (rows != input->n_transfer)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("x_transfer and y_transfer have different lengths"),
				 errdetail("x_transfer has %d rows but y_transfer has %d.",
						   input->n_transfer, rows)));
}

/*
 * The joint target's weights (argument 28): one signed weight per
 * auxiliary metric (column of y_aux), 0 = not in the target.  Read only
 * when there are auxiliary metrics; NULL = the objective alone.
 */
static void
read_joint_weights(FunctionCallInfo fcinfo, SuggestInput *input)
{
	int n;

	if (PG_NARGS() <= SA_AUX_WEIGHTS || PG_ARGISNULL(SA_AUX_WEIGHTS) ||
		input->n_aux == 0)
		return;
	input->aux_weights = tuner_array_vector(
		PG_GETARG_ARRAYTYPE_P(SA_AUX_WEIGHTS), "aux_weights", &n);
	if (n != input->n_aux)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("aux_weights must have one element per auxiliary "
						"metric"),
				 errdetail("aux_weights has %d elements but y_aux has %d "
						   "columns.",
						   n, input->n_aux)));
}

/*
 * The clusters of clustered ICM (arguments 26 and 27): cluster_members
 * (n_clusters x d, 1 = member) and cluster_metric (0-based columns of
 * y_aux).  The core checks their values.
 */
static void
read_cluster_inputs(FunctionCallInfo fcinfo, SuggestInput *input)
{
	ArrayType *ma;
	int *members;
	int n_metric;
	int i;

	if (PG_NARGS() <= SA_CLUSTER_METRIC || PG_ARGISNULL(SA_CLUSTER_MEMBERS) ||
		PG_ARGISNULL(SA_CLUSTER_METRIC))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						errmsg("clustered-icm needs cluster_members and "
							   "cluster_metric")));
	ma = PG_GETARG_ARRAYTYPE_P(SA_CLUSTER_MEMBERS);
	if (ARR_ELEMTYPE(ma) != INT4OID || ARR_NDIM(ma) != 2 ||
		array_contains_nulls(ma) || ARR_DIMS(ma)[1] != input->d)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("cluster_members must be an int[] of one row per "
						"cluster and one column per parameter")));
	input->n_clusters = ARR_DIMS(ma)[0];
	members = palloc(mul_size(input->n_clusters * input->d, sizeof(int)));
	for (i = 0; i < input->n_clusters * input->d; i++)
		members[i] = ((int32 *)ARR_DATA_PTR(ma))[i];
	input->cluster_members = members;
	input->cluster_metric = tuner_array_int4(
		PG_GETARG_ARRAYTYPE_P(SA_CLUSTER_METRIC), "cluster_metric", &n_metric);
	if (n_metric != input->n_clusters)
		ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
						errmsg("cluster_metric must have one element per "
							   "cluster")));
}

/*
 * A float8[] argument of rows x cols (NULL elements as NaN), or NULL when
 * it is NULL or of another shape.
 */
static const double *
read_optional_matrix(FunctionCallInfo fcinfo, int argno, const char *name,
					 int rows, int cols)
{
	ArrayType *array;
	const double *values;
	int r;
	int c;

	if (PG_NARGS() <= argno || PG_ARGISNULL(argno))
		return NULL;
	array = PG_GETARG_ARRAYTYPE_P(argno);
	if (ARR_NDIM(array) != 2)
		return NULL;
	values = tuner_array_matrix_missing(array, name, &r, &c);
	return r == rows && c == cols ? values : NULL;
}

/*
 * Failed trials and outcome constraints (arguments 36 .. 38): x_failed
 * (native values, n x d), y_constraint (n_observed x constraints, NULL =
 * not reported) and constraint_bound (one per column, in the <= form).
 */
static void
read_constraint_inputs(FunctionCallInfo fcinfo, SuggestInput *input)
{
	int rows;
	int n;
	int k;

	input->x_failed = read_configs(fcinfo, SA_X_FAILED, "x_failed", input->d,
								   &input->n_failed);
	if (PG_NARGS() <= SA_CONSTRAINT_BOUND || PG_ARGISNULL(SA_CONSTRAINT_BOUND))
		return;
	input->constraint_bound = tuner_array_vector(
		PG_GETARG_ARRAYTYPE_P(SA_CONSTRAINT_BOUND), "constraint_bound", &n);
	for (k = 0; k < n; k++)
		tuner_check_finite(input->constraint_bound[k], "constraint_bound");
	if (n == 0)
		return;
	if (input->n_observed == 0)
	{
		/* nothing observed: no values to read, the bounds still apply */
		input->y_constraint = input->constraint_bound;
		input->n_constraints = n;
		return;
	}
	tuner_require_arg(fcinfo, SA_Y_CONSTRAINT, "y_constraint");
	input->y_constraint = tuner_array_matrix_missing(
		PG_GETARG_ARRAYTYPE_P(SA_Y_CONSTRAINT), "y_constraint", &rows,
		&input->n_constraints);
	if (rows != input->n_observed || input->n_constraints != n)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("y_constraint must have one row per observed trial "
						"and one column per constraint bound"),
				 errdetail("y_constraint is %d x %d; there are %d observed "
						   "trials and %d bounds.",
						   rows, input->n_constraints, input->n_observed, n)));
}

/*
 * Linear parameter constraints (arguments 39 .. 41): linear_coef (rows x
 * d), linear_rhs and linear_strict (one per row).
 */
static void
read_linear_inputs(FunctionCallInfo fcinfo, SuggestInput *input)
{
	bool *strict;
	int *strict_int;
	int cols;
	int n;
	int r;

	if (PG_NARGS() <= SA_LINEAR_STRICT || PG_ARGISNULL(SA_LINEAR_COEF))
		return;
	input->linear_coef =
		tuner_array_matrix(PG_GETARG_ARRAYTYPE_P(SA_LINEAR_COEF),
						   "linear_coef", true, &input->n_linear, &cols);
	if (input->n_linear == 0)
		return;
	if (cols != input->d)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("linear_coef must have one column per parameter")));
	tuner_require_arg(fcinfo, SA_LINEAR_RHS, "linear_rhs");
	tuner_require_arg(fcinfo, SA_LINEAR_STRICT, "linear_strict");
	input->linear_rhs = tuner_array_vector(
		PG_GETARG_ARRAYTYPE_P(SA_LINEAR_RHS), "linear_rhs", &n);
	if (n != input->n_linear)
		ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
						errmsg("linear_rhs must have one element per row of "
							   "linear_coef")));
	strict = tuner_array_bool(PG_GETARG_ARRAYTYPE_P(SA_LINEAR_STRICT),
							  "linear_strict", &n);
	if (n != input->n_linear)
		ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
						errmsg("linear_strict must have one element per row "
							   "of linear_coef")));
	strict_int = palloc(mul_size(n, sizeof(int)));
	for (r = 0; r < n; r++)
		strict_int[r] = strict[r] ? 1 : 0;
	input->linear_strict = strict_int;
}

/* The ConditionOp of an operator's name as tuner.parameter has it. */
static ConditionOp
condition_op(const char *name, int param)
{
	static const struct
	{
		const char *name;
		ConditionOp op;
	} ops[] = {
		{"=", COND_IN},          {"in", COND_IN}, {"<>", COND_NOT_IN},
		{"not in", COND_NOT_IN}, {"<", COND_LT},  {"<=", COND_LE},
		{">", COND_GT},          {">=", COND_GE}, {"never", COND_NEVER}};
	int i;

	for (i = 0; i < lengthof(ops); i++)
		if (strcmp(name, ops[i].name) == 0)
			return ops[i].op;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("the condition of parameter %d has unknown operator "
					"\"%s\"",
					param, name),
			 errhint("Known operators: =, in, <>, not in, <, <=, >, >=, "
					 "never.")));
	return COND_NONE; /* keep the compiler quiet */
}

/*
 * Conditional parameters (arguments 42 .. 46): condition_parent (one per
 * parameter, the 1-based parameter its condition tests), condition_op
 * (NULL: no condition), condition_values (one row per parameter of the
 * parent's native values, NULL-padded; NULL when no condition has
 * values), condition_default (the native value while inactive, NULL
 * without a condition) and canonical (tuner.suggest_next's: compare in
 * canonical form; false, or a 0.2.0 definition of _suggest_point without
 * these arguments, is tuner 0.2.0's step).  The core checks the rest
 * (space_validate_conditions).
 */
static void
read_condition_inputs(FunctionCallInfo fcinfo, SuggestInput *input)
{
	int d = input->d;
	ParamCondition *conds;
	int *parents;
	Datum *ops;
	bool *op_nulls;
	Datum *defaults;
	bool *default_nulls;
	double *values = NULL;
	int m = 0;
	int n;
	int j;

	if (PG_NARGS() <= SA_CANONICAL)
		return;
	tuner_require_arg(fcinfo, SA_CANONICAL, "canonical");
	input->canonical = PG_GETARG_BOOL(SA_CANONICAL) ? 1 : 0;
	if (!input->canonical || PG_ARGISNULL(SA_CONDITION_OP))
		return;
	tuner_require_arg(fcinfo, SA_CONDITION_PARENT, "condition_parent");
	tuner_require_arg(fcinfo, SA_CONDITION_DEFAULT, "condition_default");
	parents = tuner_array_int4(PG_GETARG_ARRAYTYPE_P(SA_CONDITION_PARENT),
							   "condition_parent", &n);
	check_space_length(n, d, "condition_parent");
	if (ARR_NDIM(PG_GETARG_ARRAYTYPE_P(SA_CONDITION_OP)) != 1 ||
		ARR_ELEMTYPE(PG_GETARG_ARRAYTYPE_P(SA_CONDITION_OP)) != TEXTOID)
		ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
						errmsg("condition_op must be a one-dimensional "
							   "text[]")));
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(SA_CONDITION_OP), TEXTOID, -1,
					  false, TYPALIGN_INT, &ops, &op_nulls, &n);
	check_space_length(n, d, "condition_op");
	if (ARR_NDIM(PG_GETARG_ARRAYTYPE_P(SA_CONDITION_DEFAULT)) != 1 ||
		ARR_ELEMTYPE(PG_GETARG_ARRAYTYPE_P(SA_CONDITION_DEFAULT)) != FLOAT8OID)
		ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
						errmsg("condition_default must be a one-dimensional "
							   "float8[]")));
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(SA_CONDITION_DEFAULT), FLOAT8OID,
					  sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &defaults, &default_nulls, &n);
	check_space_length(n, d, "condition_default");
	if (!PG_ARGISNULL(SA_CONDITION_VALUES) &&
		ARR_NDIM(PG_GETARG_ARRAYTYPE_P(SA_CONDITION_VALUES)) != 0)
	{
		int rows;

		if (ARR_NDIM(PG_GETARG_ARRAYTYPE_P(SA_CONDITION_VALUES)) != 2)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("condition_values must be a two-dimensional "
							"array"),
					 errhint("Pass one row per parameter, NULL-padded, for "
							 "example ARRAY[[NULL, NULL], [0, 2]].")));
		values = tuner_array_matrix_missing(
			PG_GETARG_ARRAYTYPE_P(SA_CONDITION_VALUES), "condition_values",
			&rows, &m);
		if (rows != d)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("condition_values must have one row per "
							"parameter"),
					 errdetail("condition_values has %d rows but there are "
							   "%d parameters.",
							   rows, d)));
	}

	conds = palloc0(mul_size(d, sizeof(ParamCondition)));
	for (j = 0; j < d; j++)
	{
		ParamCondition *c = &conds[j];

		if (op_nulls[j])
			continue;
		c->op = condition_op(TextDatumGetCString(ops[j]), j + 1);
		if (default_nulls[j])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("conditional parameter %d has no default", j + 1),
					 errdetail("A parameter takes its default while its "
							   "condition does not hold.")));
		c->inactive_value = DatumGetFloat8(defaults[j]);
		c->parent = parents[j] - 1;
		/* the row's values up to its first NULL */
		c->values = values != NULL ? values + (size_t)j * m : NULL;
		while (c->n_values < m && !isnan(c->values[c->n_values]))
			c->n_values++;
	}
	input->conditions = conds;
}

/*
 * The feasibility terms' fits (attributes 32 .. 45): P(feasible) at the
 * point, then per term (failures first, then each outcome constraint) its
 * number of trials (0: not modelled), lengthscales (a row each),
 * outputscale, noise, mean, log likelihood, the outcome's mean and sd, the
 * standardised bound, its trend's intercept and slopes (a row each;
 * NaN without a trend) and its calibration's threshold and spread (NaN
 * without one).  A 0.1.0 row type ends at 41 and drops the rest.
 */
static void
fill_constraint_outputs(const SuggestInput *in, const SuggestResult *result,
						Datum *values, bool *nulls)
{
	int nt = 1 + in->n_constraints, d = in->d;
	int *n = palloc(sizeof(int) * nt);
	double *ls = palloc(sizeof(double) * nt * d);
	double *intercepts = palloc(sizeof(double) * nt);
	double *slopes = palloc(sizeof(double) * nt * d);
	double *thresholds = palloc(sizeof(double) * nt);
	double *spreads = palloc(sizeof(double) * nt);
	double *cols[7];
	int t, j;

	for (j = 0; j < 7; j++)
		cols[j] = palloc(sizeof(double) * nt);
	for (t = 0; t < nt; t++)
	{
		const ConstraintFit *f = &result->constraint_fits[t];

		n[t] = f->fitted ? f->n : 0;
		for (j = 0; j < d; j++)
		{
			ls[t * d + j] = f->fitted ? f->lengthscales[j] : NAN;
			slopes[t * d + j] = f->fitted && !isnan(f->trend_intercept)
									? f->trend_slopes[j]
									: NAN;
		}
		intercepts[t] = f->fitted ? f->trend_intercept : NAN;
		thresholds[t] = f->fitted ? f->calibration_threshold : NAN;
		spreads[t] = f->fitted ? f->calibration_spread : NAN;
		cols[0][t] = f->outputscale;
		cols[1][t] = f->noise;
		cols[2][t] = f->mean;
		cols[3][t] = f->log_likelihood;
		cols[4][t] = f->y_mean;
		cols[5][t] = f->y_sd;
		cols[6][t] = f->bound;
	}
	values[32] = Float8GetDatum(result->feasibility);
	nulls[32] = isnan(result->feasibility);
	values[33] = PointerGetDatum(int4_vector(n, nt));
	values[34] = PointerGetDatum(tuner_float8_matrix(ls, nt, d));
	for (j = 0; j < 7; j++)
		values[35 + j] = PointerGetDatum(tuner_float8_array(cols[j], nt));
	values[42] = PointerGetDatum(tuner_float8_array(intercepts, nt));
	values[43] = PointerGetDatum(tuner_float8_matrix(slopes, nt, d));
	values[44] = PointerGetDatum(tuner_float8_array(thresholds, nt));
	values[45] = PointerGetDatum(tuner_float8_array(spreads, nt));
	for (j = 33; j <= 45; j++)
		nulls[j] = false;
}

/*
 * The previous step's cluster fits (arguments 29 .. 35), to start each
 * cluster's fit from; ignored unless complete and of the clusters' shape,
 * as the single-model warm start is.
 */
static void
read_cluster_warm(FunctionCallInfo fcinfo, SuggestInput *input)
{
	int nc = input->n_clusters;
	int n;

	if (PG_NARGS() <= SA_WARM_CLUSTER_MEAN ||
		PG_ARGISNULL(SA_WARM_CLUSTER_TASKS) ||
		PG_ARGISNULL(SA_WARM_CLUSTER_RANK))
		return;
	input->warm_cluster_T =
		tuner_array_int4(PG_GETARG_ARRAYTYPE_P(SA_WARM_CLUSTER_TASKS),
						 "warm_cluster_tasks", &n);
	if (n != nc)
		goto ignore;
	input->warm_cluster_rank = tuner_array_int4(
		PG_GETARG_ARRAYTYPE_P(SA_WARM_CLUSTER_RANK), "warm_cluster_rank", &n);
	if (n != nc)
		goto ignore;
	input->warm_cluster_lengthscales =
		read_optional_matrix(fcinfo, SA_WARM_CLUSTER_LENGTHSCALES,
							 "warm_cluster_lengthscales", nc, input->d);
	input->warm_cluster_W = read_optional_matrix(
		fcinfo, SA_WARM_CLUSTER_LOADINGS, "warm_cluster_loadings", nc, 4);
	input->warm_cluster_v = read_optional_matrix(
		fcinfo, SA_WARM_CLUSTER_VARIANCE, "warm_cluster_variance", nc, 2);
	input->warm_cluster_noise = read_optional_matrix(
		fcinfo, SA_WARM_CLUSTER_NOISE, "warm_cluster_noise", nc, 2);
	input->warm_cluster_mean = read_optional_matrix(
		fcinfo, SA_WARM_CLUSTER_MEAN, "warm_cluster_mean", nc, 2);
	if (input->warm_cluster_lengthscales && input->warm_cluster_W &&
		input->warm_cluster_v && input->warm_cluster_noise &&
		input->warm_cluster_mean)
		return;
ignore:
	input->warm_cluster_T = input->warm_cluster_rank = NULL;
	input->warm_cluster_lengthscales = input->warm_cluster_W = NULL;
	input->warm_cluster_v = input->warm_cluster_noise = NULL;
	input->warm_cluster_mean = NULL;
}

/*
 * The clusters' fits (attributes 20 .. 31): per cluster whether it set a
 * parameter, its number of tasks (0: left out), lengthscales on the full
 * parameter list (NULL for non-members), the 2 x 2 task covariance and
 * correlation, the per-task noise and mean (NULL beyond its tasks), log
 * likelihood, which solve it used, its rank, and its W (T x rank in a
 * row of 4) and v.
 */
static void
fill_cluster_outputs(const SuggestInput *in, const SuggestResult *result,
					 Datum *values, bool *nulls)
{
	int nc = in->n_clusters, d = in->d;
	int *used = palloc0(sizeof(int) * nc);
	int *tasks = palloc0(sizeof(int) * nc);
	int *kron = palloc0(sizeof(int) * nc);
	int *rank = palloc0(sizeof(int) * nc);
	double *ls = palloc(sizeof(double) * nc * d);
	double *cov = palloc(sizeof(double) * nc * 4);
	double *corr = palloc(sizeof(double) * nc * 4);
	double *noise = palloc(sizeof(double) * nc * 2);
	double *mean = palloc(sizeof(double) * nc * 2);
	double *ll = palloc(sizeof(double) * nc);
	double *loadings = palloc(sizeof(double) * nc * 4);
	double *variance = palloc(sizeof(double) * nc * 2);
	double c4[4];
	TunerStatus status;
	int c, j, k, t;

	for (c = 0; c < nc * d; c++)
		ls[c] = NAN;
	for (c = 0; c < nc * 4; c++)
		cov[c] = corr[c] = NAN;
	for (c = 0; c < nc * 2; c++)
		noise[c] = mean[c] = variance[c] = NAN;
	for (c = 0; c < nc * 4; c++)
		loadings[c] = NAN;
	for (c = 0; c < nc; c++)
	{
		const IcmModel *m =
			result->cluster_icm != NULL ? result->cluster_icm[c] : NULL;

		ll[c] = NAN;
		if (result->cluster_used != NULL)
			used[c] = result->cluster_used[c];
		if (m == NULL)
			continue;
		tasks[c] = m->T;
		kron[c] = m->kronecker != 0;
		rank[c] = m->rank;
		ll[c] = m->log_likelihood;
		for (j = 0, k = 0; j < d; j++)
			if (in->cluster_members[c * d + j] && k < m->d)
				ls[c * d + j] = m->lengthscales[k++];
		tuner_status_clear(&status);
		if (icm_task_correlation(m, c4, &status) != TUNER_OK)
			tuner_report_status(&status, "suggest");
		for (t = 0; t < m->T * m->T; t++)
		{
			cov[c * 4 + (t / m->T) * 2 + t % m->T] = m->B[t];
			corr[c * 4 + (t / m->T) * 2 + t % m->T] = c4[t];
		}
		for (t = 0; t < m->T; t++)
		{
			noise[c * 2 + t] = m->noise[t];
			mean[c * 2 + t] = m->mean[t];
			variance[c * 2 + t] = m->v[t];
		}
		for (t = 0; t < m->T * m->rank; t++)
			loadings[c * 4 + t] = m->W[t];
	}
	values[20] = PointerGetDatum(int4_vector(used, nc));
	values[21] = PointerGetDatum(int4_vector(tasks, nc));
	values[22] = PointerGetDatum(tuner_float8_matrix(ls, nc, d));
	values[23] = PointerGetDatum(tuner_float8_matrix(cov, nc, 4));
	values[24] = PointerGetDatum(tuner_float8_matrix(corr, nc, 4));
	values[25] = PointerGetDatum(tuner_float8_matrix(noise, nc, 2));
	values[26] = PointerGetDatum(tuner_float8_matrix(mean, nc, 2));
	values[27] = PointerGetDatum(tuner_float8_array(ll, nc));
	values[28] = PointerGetDatum(int4_vector(kron, nc));
	values[29] = PointerGetDatum(int4_vector(rank, nc));
	values[30] = PointerGetDatum(tuner_float8_matrix(loadings, nc, 4));
	values[31] = PointerGetDatum(tuner_float8_matrix(variance, nc, 2));
	for (c = 20; c <= 31; c++)
		nulls[c] = false;
}

/* The ICM fit's outputs (attributes 11 .. 19) of a model suggestion. */
static void
fill_icm_outputs(const SuggestResult *result, int n_tasks, Datum *values,
				 bool *nulls)
{
	const IcmModel *m = result->icm;
	double *corr;
	TunerStatus status;
	int i;

	values[11] = PointerGetDatum(int4_vector(result->task_used, n_tasks));
	values[12] = Int32GetDatum(m->rank);
	values[13] = BoolGetDatum(m->kronecker != 0);
	values[14] = PointerGetDatum(tuner_float8_matrix(m->W, m->T, m->rank));
	values[15] = PointerGetDatum(tuner_float8_array(m->v, m->T));
	values[16] = PointerGetDatum(tuner_float8_matrix(m->B, m->T, m->T));
	corr = palloc(sizeof(double) * m->T * m->T);
	tuner_status_clear(&status);
	if (icm_task_correlation(m, corr, &status) != TUNER_OK)
		tuner_report_status(&status, "suggest");
	values[17] = PointerGetDatum(tuner_float8_matrix(corr, m->T, m->T));
	values[18] = PointerGetDatum(tuner_float8_array(m->noise, m->T));
	values[19] = PointerGetDatum(tuner_float8_array(m->mean, m->T));
	for (i = 11; i <= 19; i++)
		nulls[i] = false;
}

/*
 * The failure model's warm start (0.3.0):
 * warm_feasibility_lengthscales (d values), warm_feasibility_outputscale,
 * warm_feasibility_noise and warm_feasibility_mean, the hyperparameters
 * of the study's last feasibility model (tuner.model, kind feasibility).
 * Used only when all four are set, the lengthscales are d and the core
 * finds them valid (feasibility_warm_usable); else the failure model is
 * fitted from cold starts, as before.
 */
static void
read_feasibility_warm(FunctionCallInfo fcinfo, SuggestInput *input)
{
	const double *ls;
	int k;

	if (PG_NARGS() <= SA_WARM_FEASIBILITY_MEAN ||
		PG_ARGISNULL(SA_WARM_FEASIBILITY_OUTPUTSCALE) ||
		PG_ARGISNULL(SA_WARM_FEASIBILITY_NOISE) ||
		PG_ARGISNULL(SA_WARM_FEASIBILITY_MEAN))
		return;
	ls = read_optional_vector(fcinfo, SA_WARM_FEASIBILITY_LENGTHSCALES,
							  "warm_feasibility_lengthscales", input->d);
	if (ls == NULL)
		return;
	for (k = 0; k < input->d; k++)
		tuner_check_finite(ls[k], "warm_feasibility_lengthscales");
	input->warm_feasibility_lengthscales = ls;
	input->warm_feasibility_outputscale =
		PG_GETARG_FLOAT8(SA_WARM_FEASIBILITY_OUTPUTSCALE);
	input->warm_feasibility_noise =
		PG_GETARG_FLOAT8(SA_WARM_FEASIBILITY_NOISE);
	input->warm_feasibility_mean = PG_GETARG_FLOAT8(SA_WARM_FEASIBILITY_MEAN);
	tuner_check_finite(input->warm_feasibility_outputscale,
					   "warm_feasibility_outputscale");
	tuner_check_finite(input->warm_feasibility_noise,
					   "warm_feasibility_noise");
	tuner_check_finite(input->warm_feasibility_mean, "warm_feasibility_mean");
}

/*
 * The known noise of the observed values (SuggestInput.y_std_error and
 * .disturbed): y_std_error a float8[] of n_observed standard errors, NULL
 * where a value has none; disturbed a bool[] of n_observed flags.  Either
 * may be NULL (none).  The entry point of 0.1.0 and 0.2.0 has neither.
 */
static void
read_known_noise(FunctionCallInfo fcinfo, SuggestInput *input)
{
	int n = input->n_observed;

	if (PG_NARGS() > SA_Y_STD_ERROR && !PG_ARGISNULL(SA_Y_STD_ERROR))
	{
		ArrayType *a = PG_GETARG_ARRAYTYPE_P(SA_Y_STD_ERROR);
		Datum *datums;
		bool *isnull;
		double *se;
		int len;
		int i;

		if (ARR_ELEMTYPE(a) != FLOAT8OID || ARR_NDIM(a) > 1)
			ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
							errmsg("y_std_error must be a float8[] vector")));
		deconstruct_array(a, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL,
						  TYPALIGN_DOUBLE, &datums, &isnull, &len);
		if (len != n)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("y_std_error must have one element per observed "
							"trial"),
					 errdetail("y_std_error has %d elements but there are %d "
							   "observed trials.",
							   len, n)));
		se = palloc(mul_size(Max(n, 1), sizeof(double)));
		for (i = 0; i < len; i++)
		{
			se[i] = isnull[i] ? NAN : DatumGetFloat8(datums[i]);
			if (!isnull[i] && !(isfinite(se[i]) && se[i] >= 0.0))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("y_std_error must be finite and not negative"),
						 errdetail("Element %d is %g.", i + 1, se[i])));
		}
		input->y_std_error = se;
	}
	if (PG_NARGS() > SA_DISTURBED && !PG_ARGISNULL(SA_DISTURBED))
	{
		bool *flags;
		int *disturbed;
		int len;
		int i;

		flags = tuner_array_bool(PG_GETARG_ARRAYTYPE_P(SA_DISTURBED),
								 "disturbed", &len);
		if (len != n)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("disturbed must have one element per observed "
							"trial"),
					 errdetail("disturbed has %d elements but there are %d "
							   "observed trials.",
							   len, n)));
		disturbed = palloc(mul_size(Max(n, 1), sizeof(int)));
		for (i = 0; i < len; i++)
			disturbed[i] = flags[i] ? 1 : 0;
		input->disturbed = disturbed;
	}
}

/*
 * tuner._suggest_point(kinds int[], lows float8[], highs float8[],
 *		log_scales bool[], n_choices int[], x_observed float8[],
 *		y_observed float8[], x_pending float8[], x_other float8[],
 *		n_initial int, design_index int, seed bigint, design_seed bigint,
 *		warm_lengthscales float8[], warm_outputscale float8,
 *		warm_noise float8, warm_mean float8, algorithm text, y_aux float8[],
 *		icm_rank int, warm_task_loadings float8[], warm_task_variance
 *		float8[], warm_task_noise float8[], warm_task_mean float8[],
 *		x_transfer float8[], y_transfer float8[], cluster_members int[],
 *		cluster_metric int[], aux_weights float8[], warm_cluster_tasks int[],
 *		warm_cluster_rank int[], warm_cluster_lengthscales float8[],
 *		warm_cluster_loadings float8[], warm_cluster_variance float8[],
 *		warm_cluster_noise float8[], warm_cluster_mean float8[],
 *		x_failed float8[], y_constraint float8[], constraint_bound float8[],
 *		linear_coef float8[], linear_rhs float8[], linear_strict bool[],
 *		condition_parent int[], condition_op text[],
 *		condition_values float8[], condition_default float8[],
 *		canonical bool, warm_feasibility_lengthscales float8[],
 *		warm_feasibility_outputscale float8, warm_feasibility_noise float8,
 *		warm_feasibility_mean float8)
 * returns (config float8[], source text, predicted_mean, predicted_sd,
 *		acquisition, lengthscales float8[], outputscale, noise,
 *		log_likelihood, mean, fit_ms, tasks_used int[], rank, kronecker,
 *		task_loadings, task_variance, task_covariance, task_correlation,
 *		task_noise, task_mean, cluster_used, cluster_tasks,
 *		cluster_lengthscales, cluster_task_covariance,
 *		cluster_task_correlation, cluster_task_noise, cluster_task_mean,
 *		cluster_log_likelihood, cluster_kronecker, cluster_rank,
 *		cluster_task_loadings, cluster_task_variance, feasibility,
 *		constraint_n, constraint_lengthscales, constraint_outputscale,
 *		constraint_noise, constraint_mean, constraint_log_likelihood,
 *		constraint_y_mean, constraint_y_sd, constraint_bound_std).
 * Configurations are native values,
 * objective values are minimised; y_aux is n_observed x n_aux with NULL
 * where a trial did not report a metric; aux_weights (icm only, one per
 * column of y_aux) makes the acquisition optimise the joint target (see
 * SuggestInput.aux_weights).  The task_* outputs are NULL unless an ICM
 * model chose the point.
 */
static Datum
suggest_compute(FunctionCallInfo fcinfo, TupleDesc tupdesc, Datum history_md5)
{
	MemoryContext suggestcxt;
	MemoryContext oldcxt;
	SuggestInput input;
	SuggestResult result;
	TunerStatus status;
	ParamSpec *params;
	int d;
	int ny = 0;
	double *y_observed = NULL;
	double *warm = NULL;
	double *config;
	double *lengthscales;
	Datum values[SUGGEST_NATTS + 1];
	bool nulls[SUGGEST_NATTS + 1];
	const char *source;

	suggestcxt = AllocSetContextCreate(CurrentMemoryContext, "tuner suggest",
									   ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(suggestcxt);

	memset(&input, 0, sizeof(input));
	params = read_space(fcinfo, &d);
	input.params = params;
	input.d = d;

	tuner_status_clear(&status);
	if (space_validate(params, d, &status) != TUNER_OK)
		tuner_report_status(&status, "suggest");

	input.x_observed = read_configs(fcinfo, SA_X_OBSERVED, "x_observed", d,
									&input.n_observed);
	if (!PG_ARGISNULL(SA_Y_OBSERVED))
	{
		ArrayType *ya = PG_GETARG_ARRAYTYPE_P(SA_Y_OBSERVED);

		if (ARR_NDIM(ya) != 0)
			y_observed = tuner_array_vector(ya, "y_observed", &ny);
	}
	if (ny != input.n_observed)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("x_observed and y_observed have different lengths"),
				 errdetail("x_observed has %d rows but y_observed has %d "
						   "elements.",
						   input.n_observed, ny)));
	input.y_observed = y_observed;
	input.x_pending =
		read_configs(fcinfo, SA_X_PENDING, "x_pending", d, &input.n_pending);
	input.x_other =
		read_configs(fcinfo, SA_X_OTHER, "x_other", d, &input.n_other);

	tuner_require_arg(fcinfo, SA_N_INITIAL, "n_initial");
	tuner_require_arg(fcinfo, SA_DESIGN_INDEX, "design_index");
	tuner_require_arg(fcinfo, SA_SEED, "seed");
	tuner_require_arg(fcinfo, SA_DESIGN_SEED, "design_seed");
	input.n_initial = PG_GETARG_INT32(SA_N_INITIAL);
	input.design_index = PG_GETARG_INT32(SA_DESIGN_INDEX);
	if (input.n_initial < 1)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("n_initial must be at least 1")));
	if (input.design_index < 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("design_index must not be negative")));
	input.seed = (uint64_t)PG_GETARG_INT64(SA_SEED);
	input.design_seed = (uint64_t)PG_GETARG_INT64(SA_DESIGN_SEED);

	/* The warm start is used only when complete and of the right size. */
	if (!PG_ARGISNULL(SA_WARM_LENGTHSCALES) &&
		!PG_ARGISNULL(SA_WARM_OUTPUTSCALE) && !PG_ARGISNULL(SA_WARM_NOISE))
	{
		ArrayType *wa = PG_GETARG_ARRAYTYPE_P(SA_WARM_LENGTHSCALES);
		int nw = 0;

		if (ARR_NDIM(wa) != 0)
			warm = tuner_array_vector(wa, "warm_lengthscales", &nw);
		if (nw == d)
		{
			input.warm_lengthscales = warm;
			input.warm_outputscale = PG_GETARG_FLOAT8(SA_WARM_OUTPUTSCALE);
			input.warm_noise = PG_GETARG_FLOAT8(SA_WARM_NOISE);
			tuner_check_finite(input.warm_outputscale, "warm_outputscale");
			tuner_check_finite(input.warm_noise, "warm_noise");
			/* a model row from before the mean was stored has none */
			if (PG_NARGS() > SA_WARM_MEAN && !PG_ARGISNULL(SA_WARM_MEAN))
			{
				input.warm_mean = PG_GETARG_FLOAT8(SA_WARM_MEAN);
				tuner_check_finite(input.warm_mean, "warm_mean");
			}
		}
	}

	input.algorithm = read_algorithm(fcinfo, SA_ALGORITHM);
	if (input.algorithm == SUGGEST_ALG_ICM)
	{
		read_icm_inputs(fcinfo, &input);
		read_transfer_inputs(fcinfo, &input);
		read_joint_weights(fcinfo, &input);
	}
	else if (input.algorithm == SUGGEST_ALG_CLUSTERED_ICM)
	{
		read_icm_inputs(fcinfo, &input);
		read_cluster_inputs(fcinfo, &input);
		read_cluster_warm(fcinfo, &input);
	}
	read_constraint_inputs(fcinfo, &input);
	read_linear_inputs(fcinfo, &input);
	read_condition_inputs(fcinfo, &input);
	read_feasibility_warm(fcinfo, &input);
	read_known_noise(fcinfo, &input);

	config = palloc0(mul_size(d, sizeof(double)));
	lengthscales = palloc0(mul_size(d, sizeof(double)));
	memset(&result, 0, sizeof(result));
	result.config = config;
	result.lengthscales = lengthscales;
	result.task_used = palloc0(
		mul_size(1 + input.n_aux + input.n_transfer_tasks, sizeof(int)));
	if (input.n_clusters > 0)
		result.cluster_used = palloc0(mul_size(input.n_clusters, sizeof(int)));
	result.constraint_fits =
		palloc0(mul_size(1 + input.n_constraints, sizeof(ConstraintFit)));
	{
		int t;

		for (t = 0; t <= input.n_constraints; t++)
		{
			result.constraint_fits[t].lengthscales =
				palloc0(mul_size(d, sizeof(double)));
			result.constraint_fits[t].trend_slopes =
				palloc0(mul_size(d, sizeof(double)));
		}
	}

	CHECK_FOR_INTERRUPTS();
	check_model_rows(&input);
	if (tuner_suggest(&input, &result, &status) != TUNER_OK)
		tuner_report_status(&status, "suggest");

	memset(nulls, true, sizeof(nulls));
	if (tupdesc->natts == SUGGEST_NATTS + 1)
	{
		values[SUGGEST_NATTS] = history_md5;
		nulls[SUGGEST_NATTS] = false;
	}
	values[0] = PointerGetDatum(tuner_float8_array(result.config, d));
	nulls[0] = false;
	switch (result.source)
	{
		case SUGGEST_DESIGN:
			source = "design";
			break;
		case SUGGEST_MODEL:
			source = "model";
			break;
		case SUGGEST_RANDOM:
			source = "random";
			break;
		default:
			elog(ERROR, "unknown suggestion source %d", (int)result.source);
	}
	values[1] = CStringGetTextDatum(source);
	nulls[1] = false;
	if (result.source == SUGGEST_MODEL)
	{
		values[2] = Float8GetDatum(result.predicted_mean);
		values[3] = Float8GetDatum(result.predicted_sd);
		values[4] = Float8GetDatum(result.log_ei);
		values[5] =
			PointerGetDatum(tuner_float8_array(result.lengthscales, d));
		values[6] = Float8GetDatum(result.outputscale);
		values[7] = Float8GetDatum(result.noise);
		values[8] = Float8GetDatum(result.log_likelihood);
		values[9] = Float8GetDatum(result.mean);
		values[10] = Float8GetDatum(result.fit_seconds * 1000.0);
		memset(nulls + 2, false, sizeof(bool) * 9);
		if (result.icm != NULL)
			fill_icm_outputs(&result, 1 + input.n_aux + input.n_transfer_tasks,
							 values, nulls);
		if (input.algorithm == SUGGEST_ALG_CLUSTERED_ICM)
			fill_cluster_outputs(&input, &result, values, nulls);
		fill_constraint_outputs(&input, &result, values, nulls);
	}
	/* the fitted model lives in suggestcxt, with the arrays made from it */
	icm_model_free(result.icm);
	result.icm = NULL;
	if (result.cluster_icm != NULL)
	{
		int c;

		for (c = 0; c < input.n_clusters; c++)
			icm_model_free(result.cluster_icm[c]);
		tuner_free(result.cluster_icm);
	}

	/* form the tuple in the caller's context, then drop everything else */
	MemoryContextSwitchTo(oldcxt);
	tupdesc = BlessTupleDesc(tupdesc);
	{
		HeapTuple tuple = heap_form_tuple(tupdesc, values, nulls);

		MemoryContextDelete(suggestcxt);
		PG_RETURN_DATUM(HeapTupleGetDatum(tuple));
	}
}

/*
 * tuner._suggest_point(kinds, ..., canonical): the positional entry point
 * of 0.1.0 and 0.2.0, which their scripts create (and so need this
 * symbol) before ALTER EXTENSION ... UPDATE replaces it by tuner._suggest.
 */
Datum
tuner_suggest_point(PG_FUNCTION_ARGS)
{
	TupleDesc tupdesc;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (tupdesc->natts != SUGGEST_NATTS && tupdesc->natts != SUGGEST_NATTS_0_1)
		elog(ERROR, "tuner._suggest_point returns %d attributes, not %d",
			 tupdesc->natts, SUGGEST_NATTS);
	return suggest_compute(fcinfo, tupdesc, (Datum)0);
}

/* Where each input of a suggestion comes from (see tuner_suggest_from_record). */
typedef enum SuggestArgOrigin
{
	FROM_SUGGESTION, /* a column of the tuner.suggestion record */
	FROM_DATA,       /* a column of tuner._suggestion_data's row */
	FROM_CALL        /* an argument of tuner._suggest */
} SuggestArgOrigin;

static const struct
{
	const char *name;
	SuggestArgOrigin origin;
} suggest_arg_origin[SUGGEST_NARGS] = {
	[SA_KINDS] = {"kinds", FROM_SUGGESTION},
	[SA_LOWS] = {"lows", FROM_SUGGESTION},
	[SA_HIGHS] = {"highs", FROM_SUGGESTION},
	[SA_LOG_SCALES] = {"log_scales", FROM_SUGGESTION},
	[SA_N_CHOICES] = {"n_choices", FROM_SUGGESTION},
	[SA_X_OBSERVED] = {"x_observed", FROM_DATA},
	[SA_Y_OBSERVED] = {"y_observed", FROM_DATA},
	[SA_X_PENDING] = {"x_pending", FROM_DATA},
	[SA_X_OTHER] = {"x_other", FROM_DATA},
	[SA_N_INITIAL] = {"n_initial", FROM_SUGGESTION},
	[SA_DESIGN_INDEX] = {"design_index", FROM_SUGGESTION},
	[SA_SEED] = {"seed", FROM_SUGGESTION},
	[SA_DESIGN_SEED] = {"design_seed", FROM_SUGGESTION},
	[SA_WARM_LENGTHSCALES] = {"warm_lengthscales", FROM_DATA},
	[SA_WARM_OUTPUTSCALE] = {"warm_outputscale", FROM_DATA},
	[SA_WARM_NOISE] = {"warm_noise", FROM_DATA},
	[SA_WARM_MEAN] = {"warm_mean", FROM_DATA},
	[SA_ALGORITHM] = {"algorithm", FROM_SUGGESTION},
	[SA_Y_AUX] = {"y_aux", FROM_DATA},
	[SA_ICM_RANK] = {"icm_rank", FROM_SUGGESTION},
	[SA_WARM_TASK_LOADINGS] = {"warm_task_loadings", FROM_DATA},
	[SA_WARM_TASK_VARIANCE] = {"warm_task_variance", FROM_DATA},
	[SA_WARM_TASK_NOISE] = {"warm_task_noise", FROM_DATA},
	[SA_WARM_TASK_MEAN] = {"warm_task_mean", FROM_DATA},
	[SA_X_TRANSFER] = {"x_transfer", FROM_CALL},
	[SA_Y_TRANSFER] = {"y_transfer", FROM_CALL},
	[SA_CLUSTER_MEMBERS] = {"cluster_members", FROM_SUGGESTION},
	[SA_CLUSTER_METRIC] = {"cluster_metric", FROM_SUGGESTION},
	[SA_AUX_WEIGHTS] = {"aux_weights", FROM_SUGGESTION},
	[SA_WARM_CLUSTER_TASKS] = {"warm_cluster_tasks", FROM_SUGGESTION},
	[SA_WARM_CLUSTER_RANK] = {"warm_cluster_rank", FROM_SUGGESTION},
	[SA_WARM_CLUSTER_LENGTHSCALES] = {"warm_cluster_lengthscales",
									  FROM_SUGGESTION},
	[SA_WARM_CLUSTER_LOADINGS] = {"warm_cluster_loadings", FROM_SUGGESTION},
	[SA_WARM_CLUSTER_VARIANCE] = {"warm_cluster_variance", FROM_SUGGESTION},
	[SA_WARM_CLUSTER_NOISE] = {"warm_cluster_noise", FROM_SUGGESTION},
	[SA_WARM_CLUSTER_MEAN] = {"warm_cluster_mean", FROM_SUGGESTION},
	[SA_X_FAILED] = {"x_failed", FROM_DATA},
	[SA_Y_CONSTRAINT] = {"y_constraint", FROM_DATA},
	[SA_CONSTRAINT_BOUND] = {"constraint_bound", FROM_DATA},
	[SA_LINEAR_COEF] = {"linear_coef", FROM_DATA},
	[SA_LINEAR_RHS] = {"linear_rhs", FROM_DATA},
	[SA_LINEAR_STRICT] = {"linear_strict", FROM_DATA},
	[SA_CONDITION_PARENT] = {"condition_parent", FROM_SUGGESTION},
	[SA_CONDITION_OP] = {"condition_op", FROM_SUGGESTION},
	[SA_CONDITION_VALUES] = {"condition_values", FROM_SUGGESTION},
	[SA_CONDITION_DEFAULT] = {"condition_default", FROM_SUGGESTION},
	[SA_CANONICAL] = {"canonical", FROM_SUGGESTION},
	[SA_WARM_FEASIBILITY_LENGTHSCALES] = {"warm_feasibility_lengthscales",
										  FROM_DATA},
	[SA_WARM_FEASIBILITY_OUTPUTSCALE] = {"warm_feasibility_outputscale",
										 FROM_DATA},
	[SA_WARM_FEASIBILITY_NOISE] = {"warm_feasibility_noise", FROM_DATA},
	[SA_WARM_FEASIBILITY_MEAN] = {"warm_feasibility_mean", FROM_DATA},
	[SA_Y_STD_ERROR] = {"y_std_error", FROM_DATA},
	[SA_DISTURBED] = {"disturbed", FROM_DATA},
};

/*
 * The row tuner._suggestion_data(study_id, g) reads from the study's
 * tables: the trials' configurations as native values and their metrics,
 * the constraints and the warm start, in the caller's memory context.
 */
static HeapTuple
read_suggestion_data(Datum study_id, Datum suggestion, Oid suggestion_type,
					 TupleDesc *tupdesc)
{
	MemoryContext callercxt = CurrentMemoryContext;
	Oid argtypes[2] = {INT8OID, suggestion_type};
	Datum args[2] = {study_id, suggestion};
	HeapTuple tuple;
	int rc;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	rc = SPI_execute_with_args("SELECT * FROM tuner._suggestion_data($1, $2)",
							   2, argtypes, args, NULL, true, 1);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "tuner._suggestion_data returned no row (%d)", rc);
	MemoryContextSwitchTo(callercxt);
	tuple = heap_copytuple(SPI_tuptable->vals[0]);
	*tupdesc = CreateTupleDescCopy(SPI_tuptable->tupdesc);
	SPI_finish();
	return tuple;
}

/*
 * tuner._suggest(study_id, g tuner.suggestion, x_transfer, y_transfer):
 * one suggestion of a study from the record of what it is computed from
 * (the space, the trials by id, seeds, the algorithm and design length
 * tuner._plan_suggestion chose, warm starts, conditions).  What the
 * record names is read over SPI (tuner._suggestion_data), so that
 * tuner.suggest_next and tuner.replay_suggestion compute from one
 * definition; earlier studies' trials (x_transfer, y_transfer) are not
 * recorded and come with the call.  Returns a tuner.suggest_result.
 */
Datum
tuner_suggest_from_record(PG_FUNCTION_ARGS)
{
	TupleDesc tupdesc;
	TupleDesc datadesc;
	HeapTupleHeader suggestion;
	HeapTuple data;
	Datum history_md5;
	bool isnull;
	int i;

	LOCAL_FCINFO(inputs, SUGGEST_NARGS);

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE ||
		tupdesc->natts != SUGGEST_NATTS + 1)
		elog(ERROR, "tuner._suggest must return tuner.suggest_result");
	tuner_require_arg(fcinfo, 0, "study_id");
	tuner_require_arg(fcinfo, 1, "suggestion");
	suggestion = PG_GETARG_HEAPTUPLEHEADER(1);
	data = read_suggestion_data(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1),
								get_fn_expr_argtype(fcinfo->flinfo, 1),
								&datadesc);

	InitFunctionCallInfoData(*inputs, NULL, SUGGEST_NARGS, InvalidOid, NULL,
							 NULL);
	for (i = 0; i < SUGGEST_NARGS; i++)
	{
		const char *name = suggest_arg_origin[i].name;
		NullableDatum *arg = &inputs->args[i];

		switch (suggest_arg_origin[i].origin)
		{
			case FROM_SUGGESTION:
				arg->value =
					GetAttributeByName(suggestion, name, &arg->isnull);
				break;
			case FROM_DATA:
			{
				int attno = SPI_fnumber(datadesc, name);

				if (attno <= 0)
					elog(ERROR, "tuner.suggestion_data has no column %s",
						 name);
				/*
				 * SPI_getbinval, not heap_getattr: 15.20's inline
				 * heap_getattr calls a server function 15.18 lacks (the
				 * sanitized build of tests/fuzz is 15.18).
				 */
				arg->value =
					SPI_getbinval(data, datadesc, attno, &arg->isnull);
			}
			break;
			case FROM_CALL:
				arg->isnull = PG_ARGISNULL(i == SA_X_TRANSFER ? 2 : 3);
				arg->value = arg->isnull
								 ? (Datum)0
								 : PG_GETARG_DATUM(i == SA_X_TRANSFER ? 2 : 3);
				break;
		}
	}
	history_md5 = SPI_getbinval(data, datadesc,
								SPI_fnumber(datadesc, "history_md5"), &isnull);
	if (isnull)
		elog(ERROR, "tuner._suggestion_data gave no history_md5");
	return suggest_compute(inputs, tupdesc, history_md5);
}

/*
 * tuner._unit_points(kinds, lows, highs, log_scales, n_choices, x):
 * configurations (rows of native values) in the unit cube the model works
 * in, so that SQL can fit and query a GP on a study's own coordinates.
 */
Datum
tuner_unit_points(PG_FUNCTION_ARGS)
{
	ParamSpec *params;
	TunerStatus status;
	double *native;
	double *unit;
	int d;
	int rows;
	int i;

	params = read_space(fcinfo, &d);
	tuner_status_clear(&status);
	if (space_validate(params, d, &status) != TUNER_OK)
		tuner_report_status(&status, "the search space");
	tuner_require_arg(fcinfo, 5, "x");
	native = read_configs(fcinfo, 5, "x", d, &rows);
	if (rows == 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("x has no configurations")));
	unit = palloc(mul_size(mul_size(rows, d), sizeof(double)));
	for (i = 0; i < rows; i++)
		space_to_unit(params, d, native + (size_t)i * d, unit + (size_t)i * d);
	PG_RETURN_ARRAYTYPE_P(tuner_float8_matrix(unit, rows, d));
}
