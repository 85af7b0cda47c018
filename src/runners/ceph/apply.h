/*
 * apply.h: putting a trial configuration into the cluster and taking it
 * out again, through the monitor's configuration database ("config set",
 * "config rm"; never "injectargs", whose values would silently override
 * later "config set"s), and reading the values back.
 *
 * Each option is one of:
 *   runtime  the OSD applies a new value while it runs;
 *   restart  the OSD reads it only when it starts: the catalog flag
 *            "startup", can_update_at_runtime false, or one of the options
 *            that Ceph marks runtime-updatable but that only size thread
 *            pools or caches at start (see apply.c);
 *   create   fixed when an OSD is created (flag "create", e.g.
 *            bluestore_min_alloc_size, osd_objectstore): refused.
 * The classification is asked from the live cluster ("config help").
 */
#ifndef TUNER_CEPH_APPLY_H
#define TUNER_CEPH_APPLY_H

#include <stdbool.h>
#include <stddef.h>

#include <rados/librados.h>

typedef enum
{
	OPT_RUNTIME,
	OPT_RESTART,
	OPT_CREATE
} opt_kind;

extern const char *opt_kind_name(opt_kind k);

/* The configuration section an option is set in: "client" for the
 * librados client's own options (objecter_*, rados_*), else "osd". */
extern const char *option_who(const char *name);

/* Classify name; -1 with Ceph's message in err when Ceph does not know
 * the option.  With allowed, also whether tuner_ceph may set it at all
 * (its type: option_policy.h), the reason in err when not. */
extern int option_classify(rados_t c, const char *name, opt_kind *kind,
						   bool *allowed, char *err, size_t errlen);

/* config set / config rm; -1 with Ceph's message in err when refused. */
extern int option_set(rados_t c, const char *who, const char *name,
					  const char *value, char *err, size_t errlen);
extern int option_rm(rados_t c, const char *who, const char *name, char *err,
					 size_t errlen);

/* The value a daemon of section who gets from the monitor (the stored
 * value in Ceph's normal form, or the default). */
extern int option_get_mon(rados_t c, const char *who, const char *name,
						  char *out, size_t outlen, char *err, size_t errlen);

/* The value an OSD is running with ("tell osd.N config get"). */
extern int option_get_osd(rados_t c, int osd, const char *name, char *out,
						  size_t outlen, char *err, size_t errlen);

/* Remove the values the cluster writes into its own configuration
 * database and that would pollute later trials (each OSD start's mclock
 * capacity benchmark: osd_mclock_max_capacity_iops_*).  Returns how many
 * were removed, or -1. */
extern int remove_cluster_written(rados_t c, char *err, size_t errlen);

/* The state file: "who name" lines of every value the runner has set and
 * not yet removed, so that the next trial and --reset can remove them. */
typedef struct
{
	char who[32];
	char name[128];
} applied_option;

extern int state_load(const char *path, applied_option **opts, int *n,
					  char *err, size_t errlen);
extern int state_append(const char *path, const char *who, const char *name,
						char *err, size_t errlen);
extern int state_clear(const char *path, char *err, size_t errlen);

#endif /* TUNER_CEPH_APPLY_H */
