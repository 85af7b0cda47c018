/*
 * runner_program.h
 *	  Which file a registered runner program names, and whether it is safe
 *	  to exec (src/exec/program_safety.c has the rule).
 */
#ifndef RUNNER_PROGRAM_H
#define RUNNER_PROGRAM_H

#include "postgres.h"

#include "program_safety.h"

/*
 * The path to exec for a registered program (absolute path, or a bare
 * name looked up in PostgreSQL's bindir, then the server's PATH), checked
 * to be safe, with no symbolic link left in it.  NULL when it may not
 * run: *why is the message (naming the program and the reason) and
 * *status says why (PROGRAM_MISSING when it was simply not found).
 */
extern char *tuner_safe_program_path(const char *program,
									 ProgramSafety *status, char **why);

#endif /* RUNNER_PROGRAM_H */
