/*
 * log_ei.h
 *	  Expected improvement in log space.  For minimisation with incumbent
 *	  f*, posterior N(mu, sd^2) and z = (f* - mu) / sd:
 *	    EI = sd * h(z),  h(z) = z Phi(z) + phi(z).
 *	  log h is computed without underflow for very negative z, so that the
 *	  acquisition still ranks points when every improvement is tiny
 *	  (Ament et al. 2023, "Unexpected improvements to expected improvement").
 */
#ifndef TUNER_LOG_EI_H
#define TUNER_LOG_EI_H

/* log h(z), finite for every finite z. */
extern double log_ei_log_h(double z);

/* d/dz log h(z) = Phi(z) / h(z), finite and positive for every finite z. */
extern double log_ei_dlog_h(double z);

/* log EI for one mean/sd (sd > 0); -inf if sd == 0 and mu >= best. */
extern double log_ei(double mu, double sd, double best);

/* log Phi(z), the standard normal CDF, finite for every finite z. */
extern double log_normal_cdf(double z);

/* d/dz log Phi(z) = phi(z) / Phi(z), finite for every finite z. */
extern double dlog_normal_cdf(double z);

#endif /* TUNER_LOG_EI_H */
