/*
 * suggest_cluster.h
 *	  One cluster of clustered ICM (suggest_clustered.c): its model over the
 *	  cluster's parameters and its ranked proposals for them.  Internal to
 *	  src/core/suggest*.c.
 */
#ifndef TUNER_SUGGEST_CLUSTER_H
#define TUNER_SUGGEST_CLUSTER_H

#include "icm.h"
#include "icm_posterior.h"
#include "suggest_internal.h"

/* Ranked proposals kept per cluster, for when the best combination is taken. */
#define CLUSTER_MAX_CANDIDATES 16

typedef struct ClusterProposal
{
	int m;            /* members */
	int *members;     /* m parameter indices, ascending */
	int T;            /* 2: objective and metric; 1: metric unusable */
	IcmModel *fitted; /* the fit to the observed trials */
	IcmModel *model;  /* fitted plus fantasised pending trials, or fitted */
	IcmPosterior *objective; /* of model, task 0 */
	double fit_seconds;
	int n_cand;    /* proposals, best first */
	double *cand;  /* n_cand * m, unit cube, snapped to the grid */
	double *value; /* n_cand: log EI, standardised objective */
} ClusterProposal;

/*
 * Fit cluster c to the observed trials (x: n x d unit cube; y0: the
 * objective standardised for all clusters alike) and rank its proposals.
 * proposal is zeroed first; free it with cluster_proposal_free whatever
 * the result.
 */
extern TunerErrorCode cluster_propose(const SuggestInput *in, int c,
									  const double *x, const double *y0,
									  TunerRng *rng, ClusterProposal *proposal,
									  TunerStatus *status);

/* Free what cluster_propose allocated (fitted too, unless set to NULL). */
extern void cluster_proposal_free(ClusterProposal *proposal);

#endif /* TUNER_SUGGEST_CLUSTER_H */
