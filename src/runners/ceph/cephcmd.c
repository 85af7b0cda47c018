/*
 * cephcmd.c: librados handles and monitor/OSD commands (see cephcmd.h).
 */
#include "cephcmd.h"
#include "answers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
ceph_connect(const ceph_target *t, rados_t *cluster, char *err, size_t errlen)
{
	char timeout[32];
	int r;

	r = rados_create2(cluster, "ceph", t->client_name, 0);
	if (r < 0)
	{
		snprintf(err, errlen, "rados_create2(%s): %s", t->client_name,
				 strerror(-r));
		return r;
	}
	r = rados_conf_read_file(*cluster, t->conf);
	if (r < 0)
	{
		snprintf(err, errlen, "reading %s: %s", t->conf, strerror(-r));
		goto fail;
	}
	snprintf(timeout, sizeof(timeout), "%d", t->timeout_s);
	if ((r = rados_conf_set(*cluster, "keyring", t->keyring)) < 0 ||
		(r = rados_conf_set(*cluster, "client_mount_timeout", timeout)) < 0 ||
		(r = rados_conf_set(*cluster, "rados_mon_op_timeout", timeout)) < 0 ||
		(r = rados_conf_set(*cluster, "rados_osd_op_timeout", timeout)) < 0 ||
		(r = rados_conf_set(*cluster, "log_to_stderr", "false")) < 0 ||
		(r = rados_conf_set(*cluster, "log_file", "")) < 0)
	{
		snprintf(err, errlen, "configuring the client: %s", strerror(-r));
		goto fail;
	}
	r = rados_connect(*cluster);
	if (r < 0)
	{
		snprintf(err, errlen, "connecting to the cluster of %s as %s: %s",
				 t->conf, t->client_name, strerror(-r));
		goto fail;
	}
	return 0;

fail:
	rados_shutdown(*cluster);
	*cluster = NULL;
	return r;
}

/* Copy librados' buffer into a NUL-terminated string of ours. */
static char *
dup_buffer(const char *buf, size_t len)
{
	char *s = malloc(len + 1);

	if (s == NULL)
	{
		fprintf(stderr, "tuner_ceph: out of memory\n");
		exit(1);
	}
	if (len > 0)
		memcpy(s, buf, len);
	s[len] = '\0';
	return s;
}

static int
send_command(rados_t cluster, int osd, json_t *cmd, ceph_answer *a)
{
	char *text = json_dumps(cmd, JSON_COMPACT);
	const char *argv[1];
	char *out = NULL, *status = NULL;
	size_t outlen = 0, statuslen = 0;

	json_decref(cmd);
	argv[0] = text;
	if (osd < 0)
		a->ret = rados_mon_command(cluster, argv, 1, "", 0, &out, &outlen,
								   &status, &statuslen);
	else
		a->ret = rados_osd_command(cluster, osd, argv, 1, "", 0, &out, &outlen,
								   &status, &statuslen);
	free(text);
	a->out = dup_buffer(out, out ? outlen : 0);
	a->status = dup_buffer(status, status ? statuslen : 0);
	if (out)
		rados_buffer_free(out);
	if (status)
		rados_buffer_free(status);
	return a->ret;
}

int
ceph_mon(rados_t cluster, json_t *cmd, ceph_answer *a)
{
	return send_command(cluster, -1, cmd, a);
}

int
ceph_osd(rados_t cluster, int osd, json_t *cmd, ceph_answer *a)
{
	return send_command(cluster, osd, cmd, a);
}

void
ceph_answer_free(ceph_answer *a)
{
	free(a->out);
	free(a->status);
	a->out = a->status = NULL;
}

const char *
ceph_why(const ceph_answer *a)
{
	if (a->status && a->status[0])
		return a->status;
	return strerror(a->ret < 0 ? -a->ret : a->ret);
}

json_t *
ceph_answer_json(const ceph_answer *a)
{
	return json_loads(a->out ? a->out : "", JSON_DECODE_ANY, NULL);
}

int
ceph_osd_ids(rados_t cluster, int *ids, int max)
{
	ceph_answer a;
	int n;

	if (ceph_mon(cluster,
				 json_pack("{s:s, s:s}", "prefix", "osd ls", "format", "json"),
				 &a) < 0)
	{
		int r = a.ret;

		ceph_answer_free(&a);
		return r;
	}
	n = ceph_parse_osd_ids(a.out, ids, max);
	ceph_answer_free(&a);
	return n;
}
