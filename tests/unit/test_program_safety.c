/*
 * test_program_safety.c
 *	  The walk of src/exec/program_safety.c on real files in a temporary
 *	  directory: how paths and symbolic links resolve, and which modes are
 *	  refused.  Ownership by another user needs root to set up: the
 *	  regress test runner_program_safety covers it.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "program_safety.h"
#include "unit.h"

static char base[64];

/* Check path; returns the status, resolved and why filled. */
static ProgramSafety
walk(const char *rel, char *resolved, char *why)
{
	char path[512];

	if (rel[0] == '/')
		snprintf(path, sizeof(path), "%s", rel);
	else
		snprintf(path, sizeof(path), "%s/%s", base, rel);
	return program_safety_check(path, geteuid(), resolved, 512, why, 512);
}

static void
write_exec(const char *rel, int mode)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	f = fopen(path, "w");
	fputs("#!/bin/sh\n", f);
	fclose(f);
	chmod(path, mode);
}

static void
at(const char *rel, char *out)
{
	snprintf(out, 512, "%s/%s", base, rel);
}

void
test_program_safety(void)
{
	char resolved[512], why[512], want[512], p[512];
	int r;

	snprintf(base, sizeof(base), "/tmp/tuner_unit_safety.XXXXXX");
	CHECK(mkdtemp(base) != NULL);
	at("d", p);
	mkdir(p, 0755);
	write_exec("d/run", 0755);

	/* the plain case, and the path exec would take through . and .. */
	CHECK(walk("d/run", resolved, why) == PROGRAM_SAFE);
	at("d/run", want);
	CHECK(strcmp(resolved, want) == 0);
	CHECK(walk("d/./../d//run", resolved, why) == PROGRAM_SAFE);
	CHECK(strcmp(resolved, want) == 0);

	/* links: relative, absolute, chained; resolved has none left */
	at("d/rel", p);
	CHECK(symlink("run", p) == 0);
	CHECK(walk("d/rel", resolved, why) == PROGRAM_SAFE);
	CHECK(strcmp(resolved, want) == 0);
	at("abs", p);
	CHECK(symlink(want, p) == 0);
	at("chain", p);
	CHECK(symlink("d/../abs", p) == 0);
	CHECK(walk("chain", resolved, why) == PROGRAM_SAFE);
	CHECK(strcmp(resolved, want) == 0);
	at("dlink", p);
	CHECK(symlink("d", p) == 0);
	CHECK(walk("dlink/run", resolved, why) == PROGRAM_SAFE);
	CHECK(strcmp(resolved, want) == 0);

	/* a loop, an empty-ended path, a missing component, a file as a dir */
	at("loop", p);
	CHECK(symlink("loop", p) == 0);
	CHECK(walk("loop", resolved, why) == PROGRAM_NOT_EXECUTABLE);
	CHECK(strstr(why, "too many symbolic links") != NULL);
	CHECK(walk("d/", resolved, why) == PROGRAM_NOT_EXECUTABLE);
	CHECK(strstr(why, "is not a regular file") != NULL);
	CHECK(walk("d/none", resolved, why) == PROGRAM_MISSING);
	CHECK(walk("none/run", resolved, why) == PROGRAM_MISSING);
	CHECK(walk("d/run/x", resolved, why) == PROGRAM_MISSING);
	/* a relative path */
	CHECK(program_safety_check("d/run", geteuid(), resolved, 512, why, 512) ==
		  PROGRAM_NOT_EXECUTABLE);

	/* not executable; a file writable by everyone */
	write_exec("d/noexec", 0644);
	CHECK(walk("d/noexec", resolved, why) == PROGRAM_NOT_EXECUTABLE);
	write_exec("d/open", 0757);
	CHECK(walk("d/open", resolved, why) == PROGRAM_UNSAFE);
	CHECK(strstr(why, "is writable by every user (mode 0757)") != NULL);

	/* a directory writable by everyone, on the way or behind a link */
	at("w", p);
	mkdir(p, 0755);
	chmod(p, 0777);
	write_exec("w/run", 0755);
	CHECK(walk("w/run", resolved, why) == PROGRAM_UNSAFE);
	at("w", want);
	CHECK(strstr(why, want) != NULL);
	at("d/tow", p);
	CHECK(symlink("../w/run", p) == 0);
	CHECK(walk("d/tow", resolved, why) == PROGRAM_UNSAFE);
	/* a link living in it, even to a safe file */
	at("w/link", p);
	at("d/run", want);
	CHECK(symlink(want, p) == 0);
	CHECK(walk("w/link", resolved, why) == PROGRAM_UNSAFE);

	/* sticky and world-writable: accepted only when root owns it */
	at("w", p);
	chmod(p, 01777);
	r = walk("w/run", resolved, why);
	CHECK(r == (geteuid() == 0 ? PROGRAM_SAFE : PROGRAM_UNSAFE));

	/* the too-long path is refused, not truncated */
	{
		char *huge = malloc(10000);

		memset(huge, 'a', 9999);
		huge[0] = '/';
		huge[9999] = '\0';
		CHECK(program_safety_check(huge, geteuid(), resolved, 512, why, 512) ==
			  PROGRAM_NOT_EXECUTABLE);
		CHECK(strstr(why, "is too long") != NULL);
		free(huge);
	}

	snprintf(p, sizeof(p), "rm -rf %s", base);
	CHECK(system(p) == 0);
}
