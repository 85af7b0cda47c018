/*
 * program_safety.h
 *	  Is a runner program safe to exec?  Plain POSIX (no PostgreSQL
 *	  headers), shared by the server (src/pg/program_safety.c) and usable
 *	  by tuner-agent.  program_safety.c states the rule and why.
 */
#ifndef PROGRAM_SAFETY_H
#define PROGRAM_SAFETY_H

#include <stddef.h>
#include <sys/types.h>

typedef enum ProgramSafety
{
	PROGRAM_SAFE = 0,       /* resolved holds the path to exec */
	PROGRAM_MISSING,        /* some component does not exist */
	PROGRAM_NOT_EXECUTABLE, /* a directory, a device, no x bit, EACCES */
	PROGRAM_UNSAFE          /* someone else could change what runs */
} ProgramSafety;

/*
 * Walk the absolute path as exec would, following every symbolic link,
 * and check every directory looked into, every symbolic link met and the
 * file reached (the rule: program_safety.c).  trusted is the uid that
 * will run it (besides root, the only owner allowed).  On PROGRAM_SAFE,
 * resolved (resolved_len bytes) holds the path with no symbolic link left
 * in it: exec that one.  Otherwise why (why_len bytes) says what is wrong,
 * naming the offending path.
 */
extern ProgramSafety program_safety_check(const char *path, uid_t trusted,
										  char *resolved, size_t resolved_len,
										  char *why, size_t why_len);

#endif /* PROGRAM_SAFETY_H */
