/*
 * test_main.c
 *	  Runs every unit test of src/core and prints the plain summary line.
 */
#include <stdio.h>
#include <string.h>

#include "unit.h"

int			unit_passed = 0;
int			unit_failed = 0;

typedef struct
{
	const char *name;
	void		(*fn) (void);
} UnitTest;

int
main(int argc, char **argv)
{
	UnitTest	tests[] = {
		{"linalg", test_linalg},
		{"log_ei", test_log_ei},
		{"gp", test_gp},
		{"heteroscedastic", test_heteroscedastic},
		{"output_warp", test_output_warp},
		{"acquisition", test_acquisition},
		{"space", test_space},
		{"conditions", test_conditions},
		{"design", test_design},
		{"suggest", test_suggest},
		{"icm", test_icm},
		{"icm_posterior", test_icm_posterior},
		{"icm_suggest", test_icm_suggest},
		{"clusters", test_clusters},
		{"transfer", test_transfer},
		{"additive", test_additive_posterior},
		{"clustered", test_clustered_suggest},
		{"icm_units", test_icm_units},
		{"icm_joint", test_icm_joint},
		{"lasso", test_lasso},
		{"relevance", test_relevance},
		{"categorical", test_categorical},
		{"plot", test_plot},
		{"feasibility", test_feasibility},
		{"calibration", test_feasibility_calibration},
		{"multiobjective", test_multiobjective},
		{"program_safety", test_program_safety},
		{"mean_interval", test_mean_interval},
		{"measure_context", test_measure_context},
		{"progress_channel", test_progress_channel},
		{"pruning", test_pruning},
		{"suggest_policy", test_suggest_policy},
		{"soft_bounds", test_soft_bounds},
		{"interrupt", test_interrupt},
	};
	size_t		i;

	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
	{
		int			before = unit_failed;

		if (argc > 1 && strcmp(argv[1], tests[i].name) != 0)
			continue;
		tests[i].fn();
		printf("%-14s %s\n", tests[i].name, unit_failed == before ? "ok" : "FAILED");
	}
	printf("unit: %d passed, %d failed\n", unit_passed, unit_failed);
	return unit_failed == 0 ? 0 : 1;
}
