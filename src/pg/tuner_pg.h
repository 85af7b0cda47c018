/*
 * tuner_pg.h
 *	  Shared helpers of the SQL glue: float8[] <-> double arrays with input
 *	  checks, and TunerStatus -> ereport.  No numerics live here.
 */
#ifndef TUNER_PG_H
#define TUNER_PG_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/array.h"

#include "tuner_status.h"

/* A 1-D, non-empty float8[] without NULLs, NaN or infinity. */
extern double *tuner_array_vector(ArrayType *array, const char *name, int *n);

/*
 * A 2-D float8[] (rows x columns) without NULLs, NaN or infinity.  With
 * allow_empty, an empty array ('{}') gives zero rows.
 */
extern double *tuner_array_matrix(ArrayType *array, const char *name,
								  bool allow_empty, int *rows, int *cols);

/*
 * A 2-D, non-empty float8[] whose NULL elements (missing entries) come back
 * as NaN; NaN and infinity in the input are rejected.
 */
extern double *tuner_array_matrix_missing(ArrayType *array, const char *name,
										  int *rows, int *cols);

/* A 1-D int4[] without NULLs; *n is its length (0 for '{}'). */
extern int *tuner_array_int4(ArrayType *array, const char *name, int *n);

/* A 1-D bool[] without NULLs; *n is its length (0 for '{}'). */
extern bool *tuner_array_bool(ArrayType *array, const char *name, int *n);

/* A float8[] of n values, in the current memory context. */
extern ArrayType *tuner_float8_array(const double *values, int n);

/* A 2-D float8[] of row-major values, NaN as NULL. */
extern ArrayType *tuner_float8_matrix(const double *values, int rows,
									  int cols);

/* A GP's training data and hyperparameters read from SQL arguments. */
typedef struct GpArgs
{
	int n;
	int d;
	double *x;
	double *y;
	double *lengthscales;
	double outputscale;
	double noise;
	double mean;
	double *extra_noise; /* n extra noise variances, or NULL (none) */
} GpArgs;

/*
 * Read x (n x d, argument xarg) and y (n, argument yarg) and check that
 * they agree (gp_glue.c).
 */
extern void tuner_read_gp_training_data(FunctionCallInfo fcinfo, int xarg,
										int yarg, const char *xname,
										const char *yname, GpArgs *args);

/*
 * Read and check lengthscales (args->d of them), outputscale, noise and
 * mean from arguments first .. first + 3 (gp_glue.c).
 */
extern void tuner_read_gp_hyperparameters(FunctionCallInfo fcinfo, int first,
										  GpArgs *args);

/* Raise an error for a NULL argument the SQL wrappers should never pass. */
extern void tuner_require_arg(FunctionCallInfo fcinfo, int argno,
							  const char *name);

/* Reject NaN and infinity in a scalar argument. */
extern void tuner_check_finite(double value, const char *name);

/* Raise the error a failed src/core call recorded in status. */
extern void tuner_report_status(const TunerStatus *status, const char *what)
	pg_attribute_noreturn();

/*
 * Reject a scale hyperparameter (a lengthscale, an outputscale, a variance
 * or a noise) that is negative, zero unless allow_zero, or subnormal;
 * element is 1-based, 0 for a scalar (arrays.c).
 */
extern void tuner_check_scale(double value, const char *name, int element,
							  bool allow_zero);

/*
 * Reject lengthscales whose inverse square is not a finite normal number,
 * which would make the Matern kernel NaN (arrays.c).
 */
extern void tuner_check_lengthscales(const double *values, int n);

/*
 * Install the interrupt callback of src/core and define tuner.max_fit_rows,
 * tuner.max_choices and tuner.max_lasso_size (limits.c); called by
 * _PG_init.
 */
extern void tuner_define_limits(void);

/* The Slurm executor's settings (slurm_exec.c). */
extern void tuner_define_slurm_settings(void);

/* Refuse a model of more rows than tuner.max_fit_rows (limits.c). */
extern void tuner_check_fit_rows(int rows, const char *what);

/*
 * The same for count things of another unit, e.g. "observed values" of an
 * ICM model, whose covariance has one row per observed value.
 */
extern void tuner_check_fit_size(int count, const char *what,
								 const char *unit);

/* Refuse a categorical of more choices than tuner.max_choices. */
extern void tuner_check_choices(int choices, int param);

/* Refuse a lasso design of more cells than tuner.max_lasso_size. */
extern void tuner_check_lasso_size(int rows, int cols);

/* Defines the tuner.notify setting (notify_guc.c); called by _PG_init. */
extern void tuner_define_notify_guc(void);

#endif /* TUNER_PG_H */
