/*
 * unit.h
 *	  A minimal test harness: each test file registers functions in
 *	  test_main.c; CHECK records a pass or a failure with its location.
 */
#ifndef TUNER_UNIT_H
#define TUNER_UNIT_H

#include <math.h>
#include <stdio.h>

extern int	unit_passed;
extern int	unit_failed;

#define CHECK(cond) \
	do { \
		if (cond) \
			unit_passed++; \
		else \
		{ \
			unit_failed++; \
			fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
		} \
	} while (0)

/* |a - b| <= tol * max(1, |b|), with a message showing both values */
#define CHECK_CLOSE(a, b, tol) \
	do { \
		double unit_a_ = (a), unit_b_ = (b); \
		if (fabs(unit_a_ - unit_b_) <= (tol) * fmax(1.0, fabs(unit_b_))) \
			unit_passed++; \
		else \
		{ \
			unit_failed++; \
			fprintf(stderr, "FAIL %s:%d: %s = %.17g, expected %.17g (tol %g)\n", \
					__FILE__, __LINE__, #a, unit_a_, unit_b_, (double) (tol)); \
		} \
	} while (0)

void		test_linalg(void);
void		test_log_ei(void);
void		test_gp(void);
void		test_heteroscedastic(void);
void		test_output_warp(void);
void		test_acquisition(void);
void		test_space(void);
void		test_conditions(void);
void		test_design(void);
void		test_suggest(void);
void		test_icm(void);
void		test_icm_posterior(void);
void		test_icm_suggest(void);
void		test_clusters(void);
void		test_transfer(void);
void		test_clustered_suggest(void);
void		test_additive_posterior(void);
void		test_icm_units(void);
void		test_icm_joint(void);
void		test_lasso(void);
void		test_relevance(void);
void		test_categorical(void);
void		test_plot(void);
void		test_feasibility(void);
void		test_feasibility_calibration(void);
void		test_interrupt(void);
void		test_multiobjective(void);
void		test_program_safety(void);
void		test_mean_interval(void);
void		test_measure_context(void);
void		test_progress_channel(void);
void		test_pruning(void);
void		test_suggest_policy(void);
void		test_soft_bounds(void);

#endif
