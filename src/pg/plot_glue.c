/*
 * plot_glue.c
 *	  SQL entry points of the plots (src/core/plot.h): tuner._plot_* take
 *	  the arrays and labels tuner.plot gathered in plpgsql, check them,
 *	  convert text to UTF-8 for the drawing and the SVG back to the server
 *	  encoding, and run the core in a private memory context.
 *
 *	  Entry points whose SQL signature changed keep their old form for a
 *	  library newer than the extension's SQL (as pg_stat_statements does):
 *	  tuner_plot_convergence, _slice and _pareto are 0.1.0's, and the
 *	  _0_3 ones take which trials are feasible (and the best so far, or
 *	  the best trial) from the SQL side, tuner.best's definition.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/memutils.h"

#include "plot.h"
#include "tuner_pg.h"

PG_FUNCTION_INFO_V1(tuner_plot_convergence);
PG_FUNCTION_INFO_V1(tuner_plot_convergence_0_3);
PG_FUNCTION_INFO_V1(tuner_plot_slice);
PG_FUNCTION_INFO_V1(tuner_plot_slice_0_3);
PG_FUNCTION_INFO_V1(tuner_plot_pareto);
PG_FUNCTION_INFO_V1(tuner_plot_pareto_0_3);
PG_FUNCTION_INFO_V1(tuner_plot_importance);
PG_FUNCTION_INFO_V1(tuner_plot_heatmap);
PG_FUNCTION_INFO_V1(tuner_plot_progress);

/* A text argument (not NULL) as a UTF-8 C string. */
static const char *
utf8_arg(FunctionCallInfo fcinfo, int argno, const char *name)
{
	char *s;

	tuner_require_arg(fcinfo, argno, name);
	s = text_to_cstring(PG_GETARG_TEXT_PP(argno));
	return pg_server_to_any(s, strlen(s), PG_UTF8);
}

/* A float8[] argument; an empty array gives n = 0 when allow_empty. */
static double *
vector_arg(FunctionCallInfo fcinfo, int argno, const char *name,
		   bool allow_empty, int *n)
{
	ArrayType *array;

	tuner_require_arg(fcinfo, argno, name);
	array = PG_GETARG_ARRAYTYPE_P(argno);
	if (allow_empty && ARR_NDIM(array) == 0)
	{
		*n = 0;
		return palloc(sizeof(double));
	}
	return tuner_array_vector(array, name, n);
}

/*
 * A one-dimensional float8[] argument whose NULL elements come back as
 * missing; NaN is refused, and so is infinity unless allow_infinity.
 */
static double *
vector_missing_arg(FunctionCallInfo fcinfo, int argno, const char *name,
				   double missing, bool allow_infinity, int *n)
{
	ArrayType *array;
	Datum *datums;
	bool *nulls;
	double *values;
	int i;

	tuner_require_arg(fcinfo, argno, name);
	array = PG_GETARG_ARRAYTYPE_P(argno);
	if (ARR_ELEMTYPE(array) != FLOAT8OID)
		elog(ERROR, "%s must be a float8[]", name);
	if (ARR_NDIM(array) != 1)
		ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
						errmsg("%s must be a one-dimensional, non-empty array",
							   name)));
	deconstruct_array(array, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL,
					  TYPALIGN_DOUBLE, &datums, &nulls, n);
	values = palloc(mul_size(Max(*n, 1), sizeof(double)));
	for (i = 0; i < *n; i++)
	{
		values[i] = nulls[i] ? missing : DatumGetFloat8(datums[i]);
		if (!nulls[i] &&
			(isnan(values[i]) || (isinf(values[i]) && !allow_infinity)))
			ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
							errmsg("%s must not contain NaN%s", name,
								   allow_infinity ? "" : " or infinity"),
							errdetail("Element %d is %s.", i + 1,
									  isnan(values[i]) ? "NaN" : "infinite"),
							errhint("Use NULL for a missing value.")));
	}
	return values;
}

/* A bool[] argument without NULLs, as ints, of length n. */
static int *
flags_arg(FunctionCallInfo fcinfo, int argno, const char *name, int n)
{
	bool *flags;
	int *values;
	int m;
	int i;

	tuner_require_arg(fcinfo, argno, name);
	flags = tuner_array_bool(PG_GETARG_ARRAYTYPE_P(argno), name, &m);
	if (m != n)
		ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
						errmsg("%s must have one element per trial", name),
						errdetail("It has %d elements for %d trials.", m, n)));
	values = palloc(mul_size(Max(n, 1), sizeof(int)));
	for (i = 0; i < n; i++)
		values[i] = flags[i] ? 1 : 0;
	return values;
}

/* A text[] argument without NULLs, as UTF-8 C strings. */
static const char **
names_arg(FunctionCallInfo fcinfo, int argno, const char *name, int *n)
{
	ArrayType *array;
	Datum *datums;
	bool *nulls;
	const char **names;
	int i;

	tuner_require_arg(fcinfo, argno, name);
	array = PG_GETARG_ARRAYTYPE_P(argno);
	if (ARR_NDIM(array) > 1)
		ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
						errmsg("%s must be a one-dimensional array", name)));
	deconstruct_array(array, TEXTOID, -1, false, TYPALIGN_INT, &datums, &nulls,
					  n);
	names = palloc(mul_size(Max(*n, 1), sizeof(char *)));
	for (i = 0; i < *n; i++)
	{
		char *s;

		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s must not contain NULL elements", name)));
		s = TextDatumGetCString(datums[i]);
		names[i] = pg_server_to_any(s, strlen(s), PG_UTF8);
	}
	return names;
}

/* A text[] argument of three labels: the title, the x and the y axis'. */
static void
labels_arg(FunctionCallInfo fcinfo, int argno, const char **title,
		   const char **x_label, const char **y_label)
{
	int n;
	const char **labels = names_arg(fcinfo, argno, "labels", &n);

	if (n != 3)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("labels must have 3 elements, not %d", n),
				 errhint("Give the title, the x axis' label and the y axis' "
						 "label.")));
	*title = labels[0];
	*x_label = labels[1];
	*y_label = labels[2];
}

/* Check that two arrays have the same length. */
static void
same_length(int n, int m, const char *a, const char *b)
{
	if (n != m)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s and %s have different lengths", a, b),
				 errdetail("%s has %d elements but %s has %d.", a, n, b, m)));
}

/* A bool argument (not NULL). */
static int
bool_arg(FunctionCallInfo fcinfo, int argno, const char *name)
{
	tuner_require_arg(fcinfo, argno, name);
	return PG_GETARG_BOOL(argno) ? 1 : 0;
}

/* An int argument (not NULL). */
static int
int_arg(FunctionCallInfo fcinfo, int argno, const char *name)
{
	tuner_require_arg(fcinfo, argno, name);
	return PG_GETARG_INT32(argno);
}

/* Create the private context of one plot and switch to it. */
static MemoryContext
plot_context(MemoryContext *oldcxt)
{
	MemoryContext cxt = AllocSetContextCreate(
		CurrentMemoryContext, "tuner plot", ALLOCSET_DEFAULT_SIZES);

	*oldcxt = MemoryContextSwitchTo(cxt);
	return cxt;
}

/*
 * Report a failed drawing, or return the SVG (UTF-8) as text in the
 * server encoding, made in the caller's context.
 */
static Datum
plot_result(TunerErrorCode code, const TunerStatus *status, char *svg,
			MemoryContext cxt, MemoryContext oldcxt, const char *what)
{
	text *result;
	char *server;

	if (code != TUNER_OK)
		tuner_report_status(status, what);
	server = pg_any_to_server(svg, strlen(svg), PG_UTF8);
	MemoryContextSwitchTo(oldcxt);
	result = cstring_to_text(server);
	MemoryContextDelete(cxt);
	PG_RETURN_TEXT_P(result);
}

/*
 * tuner._plot_convergence(title text, y_label text, numbers float8[],
 *		values float8[], failed float8[], default_value float8,
 *		minimize bool, log_y bool, width int, height int) returns text
 *		(0.1.0): every trial feasible, the best so far drawn from the
 *		values.  default_value NULL: no default line.
 */
Datum
tuner_plot_convergence(PG_FUNCTION_ARGS)
{
	MemoryContext oldcxt;
	MemoryContext cxt = plot_context(&oldcxt);
	ConvergencePlot p;
	TunerStatus status;
	TunerErrorCode code;
	char *svg = NULL;
	int m;

	tuner_status_clear(&status);
	memset(&p, 0, sizeof(p));
	p.title = utf8_arg(fcinfo, 0, "title");
	p.y_label = utf8_arg(fcinfo, 1, "y_label");
	p.number = vector_arg(fcinfo, 2, "numbers", false, &p.n);
	p.value = vector_arg(fcinfo, 3, "values", false, &m);
	same_length(p.n, m, "numbers", "values");
	p.failed_number = vector_arg(fcinfo, 4, "failed", true, &p.n_failed);
	p.has_default = !PG_ARGISNULL(5);
	p.default_value = p.has_default ? PG_GETARG_FLOAT8(5) : 0.0;
	p.minimize = bool_arg(fcinfo, 6, "minimize");
	p.log_y = bool_arg(fcinfo, 7, "log_y");
	p.width = int_arg(fcinfo, 8, "width");
	p.height = int_arg(fcinfo, 9, "height");
	code = plot_convergence(&p, &svg, &status);
	return plot_result(code, &status, svg, cxt, oldcxt, "convergence plot");
}

/*
 * tuner._plot_convergence(labels text[], numbers float8[], values float8[],
 *		feasible bool[], disturbed bool[], best float8[], failed float8[],
 *		default_value float8, minimize bool, log_y bool, width int,
 *		height int) returns text: labels are the title and the axes' labels,
 *		feasible marks the trials tuner.best may choose, disturbed those run
 *		while the machine was busy, best the best so far at each trial (NULL
 *		before the first feasible one).  default_value NULL: no default line.
 */
Datum
tuner_plot_convergence_0_3(PG_FUNCTION_ARGS)
{
	MemoryContext oldcxt;
	MemoryContext cxt = plot_context(&oldcxt);
	ConvergencePlot p;
	TunerStatus status;
	TunerErrorCode code;
	char *svg = NULL;
	int m;

	tuner_status_clear(&status);
	memset(&p, 0, sizeof(p));
	labels_arg(fcinfo, 0, &p.title, &p.x_label, &p.y_label);
	p.number = vector_arg(fcinfo, 1, "numbers", false, &p.n);
	p.value = vector_arg(fcinfo, 2, "values", false, &m);
	same_length(p.n, m, "numbers", "values");
	p.feasible = flags_arg(fcinfo, 3, "feasible", p.n);
	p.disturbed = flags_arg(fcinfo, 4, "disturbed", p.n);
	p.best =
		vector_missing_arg(fcinfo, 5, "best", get_float8_nan(), false, &m);
	same_length(p.n, m, "numbers", "best");
	p.failed_number = vector_arg(fcinfo, 6, "failed", true, &p.n_failed);
	p.has_default = !PG_ARGISNULL(7);
	p.default_value = p.has_default ? PG_GETARG_FLOAT8(7) : 0.0;
	p.minimize = bool_arg(fcinfo, 8, "minimize");
	p.log_y = bool_arg(fcinfo, 9, "log_y");
	p.width = int_arg(fcinfo, 10, "width");
	p.height = int_arg(fcinfo, 11, "height");
	code = plot_convergence(&p, &svg, &status);
	return plot_result(code, &status, svg, cxt, oldcxt, "convergence plot");
}

/*
 * The arguments both forms of tuner._plot_slice share: x, y and numbers
 * from argument x_arg on, the categories and the options from argument
 * categories_arg on.  The caller has read the three labels.
 */
static void
slice_args(FunctionCallInfo fcinfo, SlicePlot *p, int x_arg,
		   int categories_arg)
{
	int m;
	int k = categories_arg;

	p->x = vector_arg(fcinfo, x_arg, "x", false, &p->n);
	p->y = vector_arg(fcinfo, x_arg + 1, "y", false, &m);
	same_length(p->n, m, "x", "y");
	p->number = vector_arg(fcinfo, x_arg + 2, "numbers", false, &m);
	same_length(p->n, m, "x", "numbers");
	if (!PG_ARGISNULL(k))
		p->categories = names_arg(fcinfo, k, "categories", &p->n_categories);
	p->x_log = bool_arg(fcinfo, k + 1, "x_log");
	p->log_y = bool_arg(fcinfo, k + 2, "log_y");
	p->minimize = bool_arg(fcinfo, k + 3, "minimize");
	p->width = int_arg(fcinfo, k + 4, "width");
	p->height = int_arg(fcinfo, k + 5, "height");
}

/*
 * tuner._plot_slice(title text, x_label text, y_label text, x float8[],
 *		y float8[], numbers float8[], categories text[], x_log bool,
 *		log_y bool, minimize bool, width int, height int) returns text
 *		(0.1.0): every trial feasible, the best the best value.
 *		categories NULL: a numeric x axis; else x holds label indexes.
 */
Datum
tuner_plot_slice(PG_FUNCTION_ARGS)
{
	MemoryContext oldcxt;
	MemoryContext cxt = plot_context(&oldcxt);
	SlicePlot p;
	TunerStatus status;
	TunerErrorCode code;
	char *svg = NULL;

	tuner_status_clear(&status);
	memset(&p, 0, sizeof(p));
	p.title = utf8_arg(fcinfo, 0, "title");
	p.x_label = utf8_arg(fcinfo, 1, "x_label");
	p.y_label = utf8_arg(fcinfo, 2, "y_label");
	slice_args(fcinfo, &p, 3, 6);
	code = plot_slice(&p, &svg, &status);
	return plot_result(code, &status, svg, cxt, oldcxt, "slice plot");
}

/*
 * tuner._plot_slice(labels text[], x float8[], y float8[],
 *		numbers float8[], feasible bool[], best_number float8,
 *		categories text[], x_log bool, log_y bool, minimize bool,
 *		width int, height int) returns text: labels are the title and the
 *		axes' labels, feasible marks the trials tuner.best may choose,
 *		best_number is its trial's (NULL: none).
 */
Datum
tuner_plot_slice_0_3(PG_FUNCTION_ARGS)
{
	MemoryContext oldcxt;
	MemoryContext cxt = plot_context(&oldcxt);
	SlicePlot p;
	TunerStatus status;
	TunerErrorCode code;
	char *svg = NULL;

	tuner_status_clear(&status);
	memset(&p, 0, sizeof(p));
	labels_arg(fcinfo, 0, &p.title, &p.x_label, &p.y_label);
	slice_args(fcinfo, &p, 1, 6);
	p.feasible = flags_arg(fcinfo, 4, "feasible", p.n);
	p.best_given = 1;
	p.best_number = PG_ARGISNULL(5) ? get_float8_nan() : PG_GETARG_FLOAT8(5);
	code = plot_slice(&p, &svg, &status);
	return plot_result(code, &status, svg, cxt, oldcxt, "slice plot");
}

/* The arguments both forms of tuner._plot_pareto share. */
static void
pareto_args(FunctionCallInfo fcinfo, ParetoPlot *p, int rest)
{
	int m;

	memset(p, 0, sizeof(*p));
	p->title = utf8_arg(fcinfo, 0, "title");
	p->x_label = utf8_arg(fcinfo, 1, "x_label");
	p->y_label = utf8_arg(fcinfo, 2, "y_label");
	p->x = vector_arg(fcinfo, 3, "x", false, &p->n);
	p->y = vector_arg(fcinfo, 4, "y", false, &m);
	same_length(p->n, m, "x", "y");
	p->number = vector_arg(fcinfo, 5, "numbers", false, &m);
	same_length(p->n, m, "x", "numbers");
	p->x_minimize = bool_arg(fcinfo, rest, "x_minimize");
	p->y_minimize = bool_arg(fcinfo, rest + 1, "y_minimize");
	p->width = int_arg(fcinfo, rest + 2, "width");
	p->height = int_arg(fcinfo, rest + 3, "height");
}

/*
 * tuner._plot_pareto(title text, x_label text, y_label text, x float8[],
 *		y float8[], numbers float8[], x_minimize bool, y_minimize bool,
 *		width int, height int) returns text (0.1.0: every trial feasible).
 */
Datum
tuner_plot_pareto(PG_FUNCTION_ARGS)
{
	MemoryContext oldcxt;
	MemoryContext cxt = plot_context(&oldcxt);
	ParetoPlot p;
	TunerStatus status;
	TunerErrorCode code;
	char *svg = NULL;

	tuner_status_clear(&status);
	pareto_args(fcinfo, &p, 6);
	code = plot_pareto(&p, &svg, &status);
	return plot_result(code, &status, svg, cxt, oldcxt, "pareto plot");
}

/*
 * tuner._plot_pareto(title text, x_label text, y_label text, x float8[],
 *		y float8[], numbers float8[], feasible bool[], x_minimize bool,
 *		y_minimize bool, width int, height int) returns text: only the
 *		feasible trials compete for the front.
 */
Datum
tuner_plot_pareto_0_3(PG_FUNCTION_ARGS)
{
	MemoryContext oldcxt;
	MemoryContext cxt = plot_context(&oldcxt);
	ParetoPlot p;
	TunerStatus status;
	TunerErrorCode code;
	char *svg = NULL;

	tuner_status_clear(&status);
	pareto_args(fcinfo, &p, 7);
	p.feasible = flags_arg(fcinfo, 6, "feasible", p.n);
	code = plot_pareto(&p, &svg, &status);
	return plot_result(code, &status, svg, cxt, oldcxt, "pareto plot");
}

/*
 * tuner._plot_importance(title text, names text[], lasso float8[],
 *		lengthscales float8[], width int, height int) returns text.
 *		lasso or lengthscales NULL: that panel is left out; a NULL
 *		length-scale: a parameter the model left out (disabled).
 */
Datum
tuner_plot_importance(PG_FUNCTION_ARGS)
{
	MemoryContext oldcxt;
	MemoryContext cxt = plot_context(&oldcxt);
	ImportancePlot p;
	TunerStatus status;
	TunerErrorCode code;
	char *svg = NULL;
	int m;

	tuner_status_clear(&status);
	p.title = utf8_arg(fcinfo, 0, "title");
	p.names = names_arg(fcinfo, 1, "names", &p.n);
	p.lasso = NULL;
	p.lengthscale = NULL;
	if (!PG_ARGISNULL(2))
	{
		p.lasso = vector_arg(fcinfo, 2, "lasso", false, &m);
		same_length(p.n, m, "names", "lasso");
	}
	if (!PG_ARGISNULL(3))
	{
		/* NULL (or 0.1.0's Infinity): a parameter the model left out */
		p.lengthscale = vector_missing_arg(fcinfo, 3, "lengthscales",
										   get_float8_infinity(), true, &m);
		same_length(p.n, m, "names", "lengthscales");
	}
	p.width = int_arg(fcinfo, 4, "width");
	p.height = int_arg(fcinfo, 5, "height");
	code = plot_importance(&p, &svg, &status);
	return plot_result(code, &status, svg, cxt, oldcxt, "importance plot");
}

/*
 * tuner._plot_heatmap(title text, names text[], matrix float8[][],
 *		width int, height int) returns text: matrix is n x n for n names,
 *		NULL where a pair was not learned.
 */
Datum
tuner_plot_heatmap(PG_FUNCTION_ARGS)
{
	MemoryContext oldcxt;
	MemoryContext cxt = plot_context(&oldcxt);
	HeatmapPlot p;
	TunerStatus status;
	TunerErrorCode code;
	char *svg = NULL;
	int rows;
	int cols;

	tuner_status_clear(&status);
	p.title = utf8_arg(fcinfo, 0, "title");
	p.names = names_arg(fcinfo, 1, "names", &p.n);
	tuner_require_arg(fcinfo, 2, "matrix");
	p.matrix = tuner_array_matrix_missing(PG_GETARG_ARRAYTYPE_P(2), "matrix",
										  &rows, &cols);
	if (rows != p.n || cols != p.n)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("matrix must be %d x %d, one row and column per name",
						p.n, p.n),
				 errdetail("It is %d x %d.", rows, cols)));
	p.width = int_arg(fcinfo, 3, "width");
	p.height = int_arg(fcinfo, 4, "height");
	code = plot_heatmap(&p, &svg, &status);
	return plot_result(code, &status, svg, cxt, oldcxt, "heat map");
}

/*
 * tuner._plot_progress(labels text[], numbers float8[], steps float8[],
 *		vals float8[], states int[], log_y bool, width int, height int)
 *		returns text: labels are the title and the axes' labels; one point
 *		per intermediate result, grouped by trial number, steps ascending;
 *		states per point: 0 complete, 1 pruned, 2 other.
 */
Datum
tuner_plot_progress(PG_FUNCTION_ARGS)
{
	MemoryContext oldcxt;
	MemoryContext cxt = plot_context(&oldcxt);
	ProgressPlot p;
	TunerStatus status;
	TunerErrorCode code;
	char *svg = NULL;
	int m;

	tuner_status_clear(&status);
	memset(&p, 0, sizeof(p));
	labels_arg(fcinfo, 0, &p.title, &p.x_label, &p.y_label);
	p.number = vector_arg(fcinfo, 1, "numbers", false, &p.n);
	p.step = vector_arg(fcinfo, 2, "steps", false, &m);
	same_length(p.n, m, "numbers", "steps");
	p.value = vector_arg(fcinfo, 3, "vals", false, &m);
	same_length(p.n, m, "numbers", "vals");
	tuner_require_arg(fcinfo, 4, "states");
	p.state = tuner_array_int4(PG_GETARG_ARRAYTYPE_P(4), "states", &m);
	same_length(p.n, m, "numbers", "states");
	p.log_y = bool_arg(fcinfo, 5, "log_y");
	p.width = int_arg(fcinfo, 6, "width");
	p.height = int_arg(fcinfo, 7, "height");
	code = plot_progress(&p, &svg, &status);
	return plot_result(code, &status, svg, cxt, oldcxt, "progress plot");
}
