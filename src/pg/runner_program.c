/*
 * runner_program.c
 *	  Which file a registered runner program names, and whether the server
 *	  may exec it: the lookup of bare names (PostgreSQL's bindir, then the
 *	  server's PATH) and the safety check of src/exec/program_safety.c
 *	  with the server's OS user as the trusted owner.
 *
 *	  One lookup serves both callers, so that what is checked when a
 *	  runner is registered (tuner._check_program_safe, from a trigger on
 *	  tuner.runner) is the file a worker would run; the worker checks
 *	  again right before every exec (runner_exec.c), since the file system
 *	  may have changed since.
 */
#include "postgres.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "runner_program.h"

PG_FUNCTION_INFO_V1(tuner_check_program_safe);

/* Is path an executable regular file? */
static bool
is_executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		   access(path, X_OK) == 0;
}

/*
 * The file a bare name stands for: the first executable one in
 * PostgreSQL's bindir, then the server's PATH (absolute entries only), as
 * execvp would; NULL and *why when there is none.
 */
static char *
find_bare_name(const char *program, char **why)
{
	char bindir[MAXPGPATH];
	char *candidate;
	const char *path_env;
	char *copy;
	char *save = NULL;
	char *dir;

	strlcpy(bindir, my_exec_path, sizeof(bindir));
	get_parent_directory(bindir);
	candidate = psprintf("%s/%s", bindir, program);
	if (is_executable_file(candidate))
		return candidate;

	path_env = getenv("PATH");
	if (path_env == NULL)
		path_env = "/usr/local/bin:/usr/bin:/bin"; /* execvp's default */
	copy = pstrdup(path_env);
	for (dir = strtok_r(copy, ":", &save); dir != NULL;
		 dir = strtok_r(NULL, ":", &save))
	{
		if (dir[0] != '/')
			continue; /* never relative to the data directory */
		candidate = psprintf("%s/%s", dir, program);
		if (is_executable_file(candidate))
			return candidate;
	}
	*why = psprintf(
		"runner program \"%s\" was not found in PostgreSQL's bindir (%s) or the server's PATH",
		program, bindir);
	return NULL;
}

/* See runner_program.h. */
char *
tuner_safe_program_path(const char *program, ProgramSafety *status, char **why)
{
	const char *path = program;
	char resolved[PATH_MAX];
	char reason[PATH_MAX + 256];

	if (program[0] != '/')
	{
		path = find_bare_name(program, why);
		if (path == NULL)
		{
			*status = PROGRAM_MISSING;
			return NULL;
		}
	}
	*status = program_safety_check(path, geteuid(), resolved, sizeof(resolved),
								   reason, sizeof(reason));
	switch (*status)
	{
		case PROGRAM_SAFE:
			return pstrdup(resolved);
		case PROGRAM_MISSING:
			*why = psprintf("runner program \"%s\" is not an executable file",
							program);
			break;
		case PROGRAM_NOT_EXECUTABLE:
			*why =
				psprintf("runner program \"%s\" is not an executable file: %s",
						 program, reason);
			break;
		case PROGRAM_UNSAFE:
			*why = psprintf("runner program \"%s\" is unsafe to run: %s",
							program, reason);
			break;
	}
	return NULL;
}

/*
 * tuner._check_program_safe(program text): raise an error unless the
 * server may run program (see program_safety.c for the rule).  A program
 * that does not exist (yet) passes: the worker checks again before every
 * exec, and a runner may be registered before its program is installed.
 */
Datum
tuner_check_program_safe(PG_FUNCTION_ARGS)
{
	char *program = text_to_cstring(PG_GETARG_TEXT_PP(0));
	ProgramSafety status;
	char *why = NULL;

	if (tuner_safe_program_path(program, &status, &why) != NULL ||
		status == PROGRAM_MISSING)
		PG_RETURN_VOID();
	if (status == PROGRAM_UNSAFE)
		ereport(
			ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE), errmsg("%s", why),
			 errdetail(
				 "The server runs it as its own OS user, so no one else may be able to change the file, a directory on its path, or a symbolic link leading to it."),
			 errhint(
				 "Install the program in a directory owned by root or by the server's user and writable by no one else, all the way up to /.")));
	ereport(
		ERROR,
		(errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("%s", why),
		 errhint(
			 "The program must be a regular file that the server's OS user may execute.")));
	PG_RETURN_VOID();
}
