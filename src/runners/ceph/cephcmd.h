/*
 * cephcmd.h: connecting to the cluster and sending commands to the
 * monitor and to OSDs through librados, with Ceph's own answer and
 * status text kept for error messages.
 */
#ifndef TUNER_CEPH_CEPHCMD_H
#define TUNER_CEPH_CEPHCMD_H

#include <jansson.h>
#include <rados/librados.h>

/* Where and as whom to connect. */
typedef struct
{
	const char *conf;
	const char *keyring;
	const char *client_name; /* "client.admin" */
	int timeout_s;           /* mon and OSD operation timeouts */
} ceph_target;

/* A command's answer: ret is 0 or a negative errno; out is the payload
 * (JSON when "format": "json" was asked), status Ceph's message. */
typedef struct
{
	int ret;
	char *out;
	char *status;
} ceph_answer;

/* Create, configure and connect a handle; on failure returns a negative
 * errno and writes why into err. */
extern int ceph_connect(const ceph_target *t, rados_t *cluster, char *err,
						size_t errlen);

/* Send a command (a JSON object, which is consumed) to the monitor, or to
 * one OSD ("tell osd.N").  Always fills *a; returns a->ret. */
extern int ceph_mon(rados_t cluster, json_t *cmd, ceph_answer *a);
extern int ceph_osd(rados_t cluster, int osd, json_t *cmd, ceph_answer *a);
extern void ceph_answer_free(ceph_answer *a);

/* Ceph's message of a failed answer: status text, else strerror. */
extern const char *ceph_why(const ceph_answer *a);

/* The answer's payload parsed as JSON, or NULL. */
extern json_t *ceph_answer_json(const ceph_answer *a);

/* The ids of all OSDs ("osd ls"); returns their number or -errno. */
extern int ceph_osd_ids(rados_t cluster, int *ids, int max);

#endif /* TUNER_CEPH_CEPHCMD_H */
