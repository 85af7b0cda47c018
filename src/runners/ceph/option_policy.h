/*
 * option_policy.h: which Ceph options tuner_ceph may set at all.  The OSDs
 * run as the same OS user as the runner (the PostgreSQL server's, for a
 * study), so an option naming a directory, a plugin, a log file, a socket,
 * a keyring, a command or an address would let whoever writes a trial's
 * input make them load code or write files as that user.  Only options of
 * runtime-safe classes pass; option_policy.c states the rule.
 */
#ifndef TUNER_CEPH_OPTION_POLICY_H
#define TUNER_CEPH_OPTION_POLICY_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The name rule, checked before the runner connects: false with the
 * reason in why when the name belongs to a refused class.
 */
extern bool option_name_allowed(const char *name, char *why, size_t whylen);

/*
 * The type rule, from the option's "config help -f json" answer (help):
 * false with the reason in why unless its type is a number, a boolean, a
 * size or a duration, or a string limited to enum_values.
 */
extern bool option_type_allowed(const char *name, const char *help, char *why,
								size_t whylen);

#endif /* TUNER_CEPH_OPTION_POLICY_H */
