/*
 * option_policy.c: which Ceph options tuner_ceph may set (option_policy.h
 * says why).  An allow-list by class, in two rules, both refusing the
 * whole input (exit 2) before anything is set:
 *
 * 1. The type (from the live cluster's "config help"): bool, int, uint,
 *    float, size, secs and millisecs pass; str only when Ceph declares
 *    enum_values for it (Ceph then accepts nothing else); every other type
 *    (free-form str: paths, lists, commands, hosts; addr, addrvec, uuid)
 *    is refused.
 * 2. The name, checked first (no cluster needed), for what a number or a
 *    boolean can still switch on: logging targets and levels (prefixes
 *    log_, clog_, err_to_, debug_, and "log_to_" anywhere), the admin
 *    socket (admin_), authentication (auth_, cephx_), binding (ms_bind_),
 *    plugins (plugin), daemon plumbing (daemonize, no_config_file,
 *    setuser, setgroup, chdir, crash_); and any name with one of these
 *    words between underscores: dir, path, file, plugin(s), keyring,
 *    keyfile, secret, socket, asok, cmd, command, exec, addr(s), bind,
 *    port, syslog, graylog, journald.
 * On Ceph 16.2's 1744 options this leaves 1439, every option of the
 * "ceph" preset among them.
 */
#include "option_policy.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static const char *const refused_prefixes[] = {
	"log_",     "clog_",     "err_to_",        "debug_",
	"admin_",   "auth_",     "cephx_",         "ms_bind_",
	"plugin",   "daemonize", "no_config_file", "setuser",
	"setgroup", "chdir",     "crash_",         NULL};

static const char *const refused_words[] = {
	"dir",    "path",   "file", "plugin", "plugins", "keyring",  "keyfile",
	"secret", "socket", "asok", "cmd",    "command", "exec",     "addr",
	"addrs",  "bind",   "port", "syslog", "graylog", "journald", NULL};

static const char *const allowed_types[] = {
	"bool", "int", "uint", "float", "size", "secs", "millisecs", NULL};

/* Is the word of len bytes at w one of refused_words? */
static const char *
refused_word(const char *w, size_t len)
{
	int i;

	for (i = 0; refused_words[i]; i++)
		if (strlen(refused_words[i]) == len &&
			strncmp(w, refused_words[i], len) == 0)
			return refused_words[i];
	return NULL;
}

bool
option_name_allowed(const char *name, char *why, size_t whylen)
{
	const char *p = name;
	int i;

	for (i = 0; refused_prefixes[i]; i++)
		if (strncmp(name, refused_prefixes[i], strlen(refused_prefixes[i])) ==
			0)
		{
			snprintf(why, whylen,
					 "%s: tuner_ceph refuses options starting with \"%s\" "
					 "(logging, admin socket, authentication, binding, "
					 "plugins or daemon plumbing)",
					 name, refused_prefixes[i]);
			return false;
		}
	if (strstr(name, "log_to_") != NULL)
	{
		snprintf(why, whylen,
				 "%s: tuner_ceph refuses options that choose where logs go",
				 name);
		return false;
	}
	while (*p)
	{
		size_t len = strcspn(p, "_");
		const char *w = refused_word(p, len);

		if (w != NULL)
		{
			snprintf(why, whylen,
					 "%s: tuner_ceph refuses options about a \"%s\" "
					 "(paths, plugins, files, keys, sockets, commands, "
					 "addresses)",
					 name, w);
			return false;
		}
		p += len;
		if (*p == '_')
			p++;
	}
	return true;
}

bool
option_type_allowed(const char *name, const char *help, char *why,
					size_t whylen)
{
	json_t *h = json_loads(help, JSON_DECODE_ANY, NULL);
	const char *type = json_string_value(json_object_get(h, "type"));
	json_t *en = json_object_get(h, "enum_values");
	bool ok = false;
	int i;

	if (type == NULL)
		snprintf(why, whylen, "%s: Ceph's config help gives no type", name);
	else
	{
		for (i = 0; allowed_types[i] && !ok; i++)
			ok = strcmp(type, allowed_types[i]) == 0;
		if (!ok && strcmp(type, "str") == 0)
			ok = json_is_array(en) && json_array_size(en) > 0;
		if (!ok)
			snprintf(
				why, whylen,
				"%s: tuner_ceph refuses options of type %s%s (only numbers, "
				"booleans, sizes, durations and strings limited to Ceph's "
				"enum_values)",
				name, type,
				strcmp(type, "str") == 0 ? " without enum_values" : "");
	}
	json_decref(h);
	return ok;
}
