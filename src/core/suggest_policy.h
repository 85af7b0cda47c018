/*
 * suggest_policy.h
 *	  What a suggestion runs, decided from counts a study's tables give:
 *	  which model code (algorithm dispatch) and how many trials the
 *	  space-filling design takes before the model (design length, with
 *	  failed trials counting towards it).  Plain C so that a change of
 *	  policy is a change of this file and its tests, never of the SQL
 *	  schema; tuner.suggest_next records the plan with each suggestion,
 *	  so tuner.replay_suggestion replays what was decided then.
 */
#ifndef TUNER_SUGGEST_POLICY_H
#define TUNER_SUGGEST_POLICY_H

#include "suggest.h"
#include "tuner_status.h"

/* The algorithm a study is set to (tuner.study.algorithm). */
typedef enum StudyAlgorithm
{
	STUDY_ALG_GP_EI = 0,
	STUDY_ALG_ICM,
	STUDY_ALG_CLUSTERED_ICM,
	STUDY_ALG_RANDOM,
	STUDY_ALG_SAPPHIRE
} StudyAlgorithm;

/* The sapphire pipeline's phase (tuner._sapphire_phase). */
typedef enum SapphirePhase
{
	SAPPHIRE_NONE = 0, /* not a sapphire study */
	SAPPHIRE_EXPLORE,  /* the design explores until the ranking */
	SAPPHIRE_MODEL     /* the top parameters are modelled */
} SapphirePhase;

typedef struct SuggestPolicyInput
{
	StudyAlgorithm algorithm;
	SapphirePhase sapphire_phase;
	int d;            /* enabled parameters */
	int n_initial;    /* the study's n_initial setting; 0: none */
	int sapphire_icm; /* sapphire's model is icm (setting sapphire.model) */
	int n_aux;        /* the study's auxiliary metrics */
	int n_transfer;   /* trials of the earlier studies in transfer_from */
	int n_clusters;   /* auxiliary metrics with a cluster of parameters */
	int n_observed;   /* trials with an objective value */
	int n_failed;     /* failed trials */
} SuggestPolicyInput;

typedef struct SuggestPlan
{
	SuggestAlgorithm algorithm; /* what src/core/suggest.c runs */
	int n_initial;              /* design length */
	int use_aux;      /* the model learns from the auxiliary metrics */
	int use_transfer; /* and from the earlier studies' trials */
} SuggestPlan;

/*
 * The plan of the next suggestion.  Fails (TUNER_ERR_INVALID) on counts
 * out of range.
 */
extern TunerErrorCode suggest_policy_plan(const SuggestPolicyInput *in,
										  SuggestPlan *plan,
										  TunerStatus *status);

/*
 * The sapphire pipeline's settings and next step.  explore (trials the
 * design explores with before the ranking) defaults to 2 x parameters
 * within [20, 300] (the paper ranks from about 300); top_k (parameters
 * kept) to 16, the paper's, and never more than there are.  Until the
 * ranking the design explores; the first suggestion that finds explore
 * complete trials ranks (SAPPHIRE_RANK: tuner._sapphire_phase keeps the top
 * K), and the model tunes them from then on.
 */
typedef enum SapphireStep
{
	SAPPHIRE_STEP_EXPLORE = 0,
	SAPPHIRE_STEP_RANK,
	SAPPHIRE_STEP_MODEL
} SapphireStep;

typedef struct SapphirePlan
{
	int explore;
	int top_k;
	SapphireStep step;
} SapphirePlan;

/*
 * explore_setting and top_k_setting: the study's values, 0 when not set.
 * ranked: the study ranked since its algorithm was last set.
 */
extern TunerErrorCode sapphire_plan(int d, int explore_setting,
									int top_k_setting, int ranked,
									int n_complete, SapphirePlan *plan,
									TunerStatus *status);

/* Parse a study's algorithm name; -1 when unknown. */
extern int study_algorithm_from_name(const char *name);

/* The name src/core/suggest.c's algorithm has in tuner.suggestion. */
extern const char *suggest_algorithm_name(SuggestAlgorithm algorithm);

#endif /* TUNER_SUGGEST_POLICY_H */
