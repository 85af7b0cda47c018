/*
 * suggest_policy.c
 *	  Algorithm dispatch and design length of a suggestion (see the header).
 */
#include <string.h>

#include "suggest_policy.h"

static const char *const study_algorithm_names[] = {
	"gp-ei", "icm", "clustered-icm", "random", "sapphire"};

int
study_algorithm_from_name(const char *name)
{
	int i;

	for (i = 0; i < (int)(sizeof(study_algorithm_names) /
						  sizeof(study_algorithm_names[0]));
		 i++)
		if (strcmp(name, study_algorithm_names[i]) == 0)
			return i;
	return -1;
}

const char *
suggest_algorithm_name(SuggestAlgorithm algorithm)
{
	switch (algorithm)
	{
		case SUGGEST_ALG_GP_EI:
			return "gp-ei";
		case SUGGEST_ALG_ICM:
			return "icm";
		case SUGGEST_ALG_RANDOM:
			return "random";
		case SUGGEST_ALG_CLUSTERED_ICM:
			return "clustered-icm";
	}
	return "gp-ei";
}

/*
 * Which data the study's algorithm learns from: the auxiliary metrics
 * under the multi-task algorithms (sapphire once it models with icm), the
 * earlier studies' trials under gp-ei and icm.
 */
static void
data_used(const SuggestPolicyInput *in, SuggestPlan *plan)
{
	plan->use_aux =
		(in->algorithm == STUDY_ALG_ICM ||
		 in->algorithm == STUDY_ALG_CLUSTERED_ICM ||
		 (in->algorithm == STUDY_ALG_SAPPHIRE &&
		  in->sapphire_phase == SAPPHIRE_MODEL && in->sapphire_icm)) &&
		in->n_aux > 0;
	plan->use_transfer =
		(in->algorithm == STUDY_ALG_ICM || in->algorithm == STUDY_ALG_GP_EI) &&
		in->n_transfer > 0;
}

/*
 * The model code to run.  Anything to learn from besides the objective
 * makes it the multi-task model (icm); a multi-task study without it runs
 * the single-task GP; clustered-icm needs a cluster, and a trial that
 * reported (something to cluster on), else it runs icm or the GP.
 */
static SuggestAlgorithm
dispatch(const SuggestPolicyInput *in, const SuggestPlan *plan)
{
	int multi_task = plan->use_aux || plan->use_transfer;

	switch (in->algorithm)
	{
		case STUDY_ALG_SAPPHIRE:
			return multi_task ? SUGGEST_ALG_ICM : SUGGEST_ALG_GP_EI;
		case STUDY_ALG_CLUSTERED_ICM:
			if (plan->use_aux && in->n_clusters > 0)
				return in->n_observed > 0 ? SUGGEST_ALG_CLUSTERED_ICM
										  : SUGGEST_ALG_GP_EI;
			return multi_task ? SUGGEST_ALG_ICM : SUGGEST_ALG_GP_EI;
		case STUDY_ALG_RANDOM:
			return SUGGEST_ALG_RANDOM;
		case STUDY_ALG_ICM:
		case STUDY_ALG_GP_EI:
		default:
			return multi_task ? SUGGEST_ALG_ICM : SUGGEST_ALG_GP_EI;
	}
}

/*
 * Design length: the study's setting, else 2 with earlier studies to
 * learn from, else d + 1 within [4, 10].  Failed trials count towards it,
 * as they do for a tuner that records them as the worst value, but the
 * model needs two trials that ran: counting only trials that ran made a
 * study whose design hit a failing region spend 3-4 more trials on the
 * design (bench/README.md, section 9).  Sapphire explores with the design
 * until it has ranked (also while exploration trials still run), then
 * models from the first trial on.
 */
static int
design_length(const SuggestPolicyInput *in, int plan_transfer)
{
	int n;

	if (in->n_initial > 0)
		n = in->n_initial;
	else if (plan_transfer)
		n = 2;
	else
		n = in->d + 1 < 4 ? 4 : (in->d + 1 > 10 ? 10 : in->d + 1);
	if (in->n_failed > 0)
	{
		int floor = n < 2 ? n : 2;

		n = n - in->n_failed > floor ? n - in->n_failed : floor;
	}
	if (in->sapphire_phase == SAPPHIRE_EXPLORE)
		n = in->n_observed + 1;
	else if (in->sapphire_phase == SAPPHIRE_MODEL)
		n = 1;
	return n;
}

TunerErrorCode
suggest_policy_plan(const SuggestPolicyInput *in, SuggestPlan *plan,
					TunerStatus *status)
{
	if (in->algorithm < STUDY_ALG_GP_EI || in->algorithm > STUDY_ALG_SAPPHIRE)
		return tuner_fail(status, TUNER_ERR_INVALID, "unknown algorithm %d",
						  (int)in->algorithm);
	if ((in->sapphire_phase != SAPPHIRE_NONE) !=
		(in->algorithm == STUDY_ALG_SAPPHIRE))
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "a sapphire phase is given for a study that is "
						  "not sapphire, or none for one that is");
	if (in->d < 1 || in->n_initial < 0 || in->n_aux < 0 ||
		in->n_transfer < 0 || in->n_clusters < 0 || in->n_observed < 0 ||
		in->n_failed < 0)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "counts of a suggestion's plan must not be negative "
						  "and it needs a parameter");
	data_used(in, plan);
	plan->algorithm = dispatch(in, plan);
	plan->n_initial = design_length(in, plan->use_transfer);
	return TUNER_OK;
}

TunerErrorCode
sapphire_plan(int d, int explore_setting, int top_k_setting, int ranked,
			  int n_complete, SapphirePlan *plan, TunerStatus *status)
{
	if (d < 0 || explore_setting < 0 || top_k_setting < 0 || n_complete < 0)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "sapphire's counts and settings must not be "
						  "negative");
	if (explore_setting > 0)
		plan->explore = explore_setting;
	else
		plan->explore = 2 * d < 20 ? 20 : (2 * d > 300 ? 300 : 2 * d);
	plan->top_k = top_k_setting > 0 ? top_k_setting : 16;
	if (plan->top_k > d)
		plan->top_k = d;
	if (ranked)
		plan->step = SAPPHIRE_STEP_MODEL;
	else if (n_complete < plan->explore)
		plan->step = SAPPHIRE_STEP_EXPLORE;
	else
		plan->step = SAPPHIRE_STEP_RANK;
	return TUNER_OK;
}
