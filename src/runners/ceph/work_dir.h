/*
 * work_dir.h: the runner's work directory (the cluster directory:
 * ceph.conf, the keyring, cluster.sh, which the runner executes, and the
 * state file) must be the runner's own.  Its default lies in /var/tmp,
 * where anyone may create /var/tmp/tuner-ceph-<uid> first and fill it with
 * a cluster.sh of their own.
 */
#ifndef TUNER_CEPH_WORK_DIR_H
#define TUNER_CEPH_WORK_DIR_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Create dir with mode 0700 when it does not exist; then true when it is a
 * directory (not a symbolic link) owned by the runner's effective uid with
 * no permission for group or others.  Else false with the reason in why.
 */
extern bool work_dir_check(const char *dir, char *why, size_t whylen);

#endif /* TUNER_CEPH_WORK_DIR_H */
