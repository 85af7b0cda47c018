/*
 * notify_guc.c
 *	  The tuner.notify setting: how much a trial's NOTIFY tuner_trials
 *	  payload says.  Any role may LISTEN on a channel, while row-level
 *	  security keeps a study's trials to its owner and grantees, so the
 *	  default payload carries ids and the state only; study names and
 *	  objective values go out only where a superuser says so.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/guc.h"

#include "tuner_pg.h"

typedef enum NotifyPayload
{
	NOTIFY_PAYLOAD_PRIVATE,
	NOTIFY_PAYLOAD_FULL,
	NOTIFY_PAYLOAD_OFF
} NotifyPayload;

static const struct config_enum_entry notify_payload_options[] = {
	{"private", NOTIFY_PAYLOAD_PRIVATE, false},
	{"full", NOTIFY_PAYLOAD_FULL, false},
	{"off", NOTIFY_PAYLOAD_OFF, false},
	{NULL, 0, false}};

static int notify_payload = NOTIFY_PAYLOAD_PRIVATE;

/*
 * Superuser-only: a grantee with write access must not be able to
 * broadcast the owner's values to every listener from its own session.
 */
void
tuner_define_notify_guc(void)
{
	DefineCustomEnumVariable(
		"tuner.notify", "What a NOTIFY tuner_trials payload carries.",
		"private: study id, trial id, number and state; full: also the "
		"study name and the objective value (visible to every role that "
		"LISTENs); off: no notification.",
		&notify_payload, NOTIFY_PAYLOAD_PRIVATE, notify_payload_options,
		PGC_SUSET, 0, NULL, NULL, NULL);
}

PG_FUNCTION_INFO_V1(tuner_notify_mode);

/*
 * The setting's value, read through C so that calling this loads the
 * library and with it the setting's validation; current_setting() in a
 * session that never loaded the library would return an unchecked
 * placeholder.
 */
Datum
tuner_notify_mode(PG_FUNCTION_ARGS)
{
	const struct config_enum_entry *e;

	for (e = notify_payload_options; e->name != NULL; e++)
		if (e->val == notify_payload)
			PG_RETURN_TEXT_P(cstring_to_text(e->name));
	elog(ERROR, "tuner.notify has no name for value %d", notify_payload);
	PG_RETURN_NULL();
}
