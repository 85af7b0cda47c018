/*
 * test_suggest_policy.c
 *	  Algorithm dispatch and design length (suggest_policy.c), case by case
 *	  as tuner.suggest_next decided them in plpgsql up to 0.3.0's move of
 *	  the policy into C, and the refusals.
 */
#include <string.h>

#include "suggest_policy.h"
#include "unit.h"

static SuggestPlan
plan_of(StudyAlgorithm algorithm, int d, int n_aux, int n_transfer,
		int n_clusters, int n_observed, int n_failed)
{
	SuggestPolicyInput in = {0};
	SuggestPlan plan = {0};
	TunerStatus status;

	in.algorithm = algorithm;
	in.sapphire_phase = algorithm == STUDY_ALG_SAPPHIRE ? SAPPHIRE_MODEL
														: SAPPHIRE_NONE;
	in.sapphire_icm = 1;
	in.d = d;
	in.n_aux = n_aux;
	in.n_transfer = n_transfer;
	in.n_clusters = n_clusters;
	in.n_observed = n_observed;
	in.n_failed = n_failed;
	tuner_status_clear(&status);
	CHECK(suggest_policy_plan(&in, &plan, &status) == TUNER_OK);
	return plan;
}

static void
dispatch_cases(void)
{
	/* nothing besides the objective: the single-task GP */
	CHECK(plan_of(STUDY_ALG_GP_EI, 3, 0, 0, 0, 5, 0).algorithm == SUGGEST_ALG_GP_EI);
	CHECK(plan_of(STUDY_ALG_ICM, 3, 0, 0, 0, 5, 0).algorithm == SUGGEST_ALG_GP_EI);
	CHECK(plan_of(STUDY_ALG_CLUSTERED_ICM, 3, 0, 0, 0, 5, 0).algorithm == SUGGEST_ALG_GP_EI);
	/* gp-ei learns from earlier studies with the multi-task model */
	CHECK(plan_of(STUDY_ALG_GP_EI, 3, 0, 7, 0, 5, 0).algorithm == SUGGEST_ALG_ICM);
	CHECK(plan_of(STUDY_ALG_GP_EI, 3, 0, 7, 0, 5, 0).use_transfer);
	/* ... but not from auxiliary metrics */
	CHECK(plan_of(STUDY_ALG_GP_EI, 3, 2, 0, 0, 5, 0).algorithm == SUGGEST_ALG_GP_EI);
	CHECK(!plan_of(STUDY_ALG_GP_EI, 3, 2, 0, 0, 5, 0).use_aux);
	CHECK(plan_of(STUDY_ALG_ICM, 3, 2, 0, 0, 5, 0).algorithm == SUGGEST_ALG_ICM);
	CHECK(plan_of(STUDY_ALG_ICM, 3, 2, 0, 0, 5, 0).use_aux);
	/* random stays random whatever the study has */
	CHECK(plan_of(STUDY_ALG_RANDOM, 3, 2, 7, 1, 5, 0).algorithm == SUGGEST_ALG_RANDOM);
	/* clustered-icm: a cluster and a reported trial, else icm or the GP */
	CHECK(plan_of(STUDY_ALG_CLUSTERED_ICM, 3, 2, 0, 1, 5, 0).algorithm == SUGGEST_ALG_CLUSTERED_ICM);
	CHECK(plan_of(STUDY_ALG_CLUSTERED_ICM, 3, 2, 0, 1, 0, 0).algorithm == SUGGEST_ALG_GP_EI);
	CHECK(plan_of(STUDY_ALG_CLUSTERED_ICM, 3, 2, 0, 0, 5, 0).algorithm == SUGGEST_ALG_ICM);
	/* clustered-icm does not learn from earlier studies */
	CHECK(plan_of(STUDY_ALG_CLUSTERED_ICM, 3, 0, 7, 0, 5, 0).algorithm == SUGGEST_ALG_GP_EI);
	/* sapphire models with icm when it has auxiliary metrics */
	CHECK(plan_of(STUDY_ALG_SAPPHIRE, 3, 2, 0, 0, 5, 0).algorithm == SUGGEST_ALG_ICM);
	CHECK(plan_of(STUDY_ALG_SAPPHIRE, 3, 0, 7, 0, 5, 0).algorithm == SUGGEST_ALG_GP_EI);
}

static void
design_cases(void)
{
	SuggestPolicyInput in = {0};
	SuggestPlan plan;
	TunerStatus status;

	/* d + 1 within [4, 10] */
	CHECK(plan_of(STUDY_ALG_GP_EI, 1, 0, 0, 0, 0, 0).n_initial == 4);
	CHECK(plan_of(STUDY_ALG_GP_EI, 5, 0, 0, 0, 0, 0).n_initial == 6);
	CHECK(plan_of(STUDY_ALG_GP_EI, 30, 0, 0, 0, 0, 0).n_initial == 10);
	/* two with earlier studies to learn from */
	CHECK(plan_of(STUDY_ALG_GP_EI, 5, 0, 7, 0, 0, 0).n_initial == 2);
	/* failed trials count towards it, down to 2 */
	CHECK(plan_of(STUDY_ALG_GP_EI, 5, 0, 0, 0, 0, 3).n_initial == 3);
	CHECK(plan_of(STUDY_ALG_GP_EI, 5, 0, 0, 0, 0, 9).n_initial == 2);
	/* the setting, and a setting of 1 is not raised by failures */
	in.algorithm = STUDY_ALG_GP_EI;
	in.d = 5;
	in.n_initial = 7;
	tuner_status_clear(&status);
	CHECK(suggest_policy_plan(&in, &plan, &status) == TUNER_OK && plan.n_initial == 7);
	in.n_initial = 1;
	in.n_failed = 4;
	CHECK(suggest_policy_plan(&in, &plan, &status) == TUNER_OK && plan.n_initial == 1);
	/* sapphire: the design until the ranking, the model after it */
	in = (SuggestPolicyInput){0};
	in.algorithm = STUDY_ALG_SAPPHIRE;
	in.sapphire_phase = SAPPHIRE_EXPLORE;
	in.d = 40;
	in.n_observed = 12;
	CHECK(suggest_policy_plan(&in, &plan, &status) == TUNER_OK && plan.n_initial == 13);
	in.sapphire_phase = SAPPHIRE_MODEL;
	CHECK(suggest_policy_plan(&in, &plan, &status) == TUNER_OK && plan.n_initial == 1);
}

static void
refusals(void)
{
	SuggestPolicyInput in = {0};
	SuggestPlan plan;
	TunerStatus status;

	tuner_status_clear(&status);
	in.algorithm = STUDY_ALG_GP_EI;
	CHECK(suggest_policy_plan(&in, &plan, &status) == TUNER_ERR_INVALID); /* d 0 */
	in.d = 2;
	in.n_failed = -1;
	CHECK(suggest_policy_plan(&in, &plan, &status) == TUNER_ERR_INVALID);
	in.n_failed = 0;
	in.sapphire_phase = SAPPHIRE_MODEL;
	CHECK(suggest_policy_plan(&in, &plan, &status) == TUNER_ERR_INVALID);
	in.algorithm = 9;
	CHECK(suggest_policy_plan(&in, &plan, &status) == TUNER_ERR_INVALID);
	CHECK(study_algorithm_from_name("clustered-icm") == STUDY_ALG_CLUSTERED_ICM);
	CHECK(study_algorithm_from_name("bayes") == -1);
	CHECK(strcmp(suggest_algorithm_name(SUGGEST_ALG_CLUSTERED_ICM), "clustered-icm") == 0);
}

static void
sapphire_cases(void)
{
	SapphirePlan plan;
	TunerStatus status;

	tuner_status_clear(&status);
	/* defaults: 2 x parameters within [20, 300], top 16 or all */
	CHECK(sapphire_plan(5, 0, 0, 0, 3, &plan, &status) == TUNER_OK);
	CHECK(plan.explore == 20 && plan.top_k == 5 && plan.step == SAPPHIRE_STEP_EXPLORE);
	CHECK(sapphire_plan(60, 0, 0, 0, 119, &plan, &status) == TUNER_OK);
	CHECK(plan.explore == 120 && plan.top_k == 16 && plan.step == SAPPHIRE_STEP_EXPLORE);
	CHECK(sapphire_plan(400, 0, 0, 0, 300, &plan, &status) == TUNER_OK);
	CHECK(plan.explore == 300 && plan.step == SAPPHIRE_STEP_RANK);
	/* the settings, top_k never more than the parameters */
	CHECK(sapphire_plan(8, 6, 12, 0, 6, &plan, &status) == TUNER_OK);
	CHECK(plan.explore == 6 && plan.top_k == 8 && plan.step == SAPPHIRE_STEP_RANK);
	/* ranked: the model, whatever the count */
	CHECK(sapphire_plan(8, 6, 3, 1, 0, &plan, &status) == TUNER_OK);
	CHECK(plan.step == SAPPHIRE_STEP_MODEL && plan.top_k == 3);
	CHECK(sapphire_plan(8, -1, 3, 0, 0, &plan, &status) == TUNER_ERR_INVALID);
}

void
test_suggest_policy(void)
{
	sapphire_cases();
	dispatch_cases();
	design_cases();
	refusals();
}
