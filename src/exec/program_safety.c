/*
 * program_safety.c
 *	  Is a runner program safe to exec (see program_safety.h)?
 *
 *	  The server execs runners as its own OS user.  If anyone else could
 *	  change what a registered path leads to, they could run code as that
 *	  user: replace the file, rename an entry of a directory on the way, or
 *	  point a symbolic link elsewhere.  So the path is walked component by
 *	  component, the way the kernel resolves it for exec, symbolic links
 *	  followed by hand, and every object met must satisfy:
 *
 *	  - owned by root or by the trusted uid (the server's user): a file,
 *	    a directory or a symbolic link;
 *	  - every directory looked into is writable only by its owner, or
 *	    also by group root; a directory writable by another group or by
 *	    everyone is refused, except a directory owned by root with the
 *	    sticky bit (like /tmp and /var/tmp): there only the owner of an
 *	    entry may rename or remove it, and the entries we go through are
 *	    themselves owned by root or the server's user;
 *	  - the file reached is a regular file, not writable by another group
 *	    or by everyone, and executable by the server's user.
 *
 *	  Checking the directories holding each symbolic link and every
 *	  directory of each link's target, as the walk does, refuses links
 *	  that lead out of safe directories.
 *
 *	  Time of check to time of use: the caller execs the resolved path,
 *	  which has no symbolic link in it, right after the check.  Every
 *	  directory on it and the file itself can be changed only by root or
 *	  the server's user (that is what was checked), so nobody we distrust
 *	  can change what that path leads to between the check and the exec;
 *	  an O_PATH descriptor and fexecve would add nothing (and fexecve of a
 *	  "#!" script needs /proc and a descriptor left open across exec).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "program_safety.h"

/* As Linux: more symbolic links than this on one path is a loop. */
#define MAX_SYMLINKS 40
#define WALK_MAX     8192

/* Is the owner root or the trusted user?  Else say so in why. */
static int
owner_ok(const char *path, const struct stat *st, uid_t trusted, char *why,
		 size_t why_len)
{
	if (st->st_uid == 0 || st->st_uid == trusted)
		return 1;
	snprintf(why, why_len,
			 "\"%s\" is owned by uid %ld, neither root nor the server's user",
			 path, (long)st->st_uid);
	return 0;
}

/*
 * May only root or the owner write to it (group root too)?  A sticky
 * directory owned by root is accepted (see the header comment).
 */
static int
writers_ok(const char *path, const struct stat *st, const char *what,
		   char *why, size_t why_len)
{
	if (S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX) && st->st_uid == 0)
		return 1;
	if (st->st_mode & S_IWOTH)
	{
		snprintf(why, why_len,
				 "%s \"%s\" is writable by every user (mode %04o)", what, path,
				 (unsigned)(st->st_mode & 07777));
		return 0;
	}
	if ((st->st_mode & S_IWGRP) && st->st_gid != 0)
	{
		snprintf(why, why_len,
				 "%s \"%s\" is writable by group %ld (mode %04o)", what, path,
				 (long)st->st_gid, (unsigned)(st->st_mode & 07777));
		return 0;
	}
	return 1;
}

/* Check the directory dir, about to be looked into. */
static ProgramSafety
check_dir(const char *dir, uid_t trusted, char *why, size_t why_len)
{
	struct stat st;

	if (lstat(dir, &st) != 0)
	{
		snprintf(why, why_len, "could not look at directory \"%s\": %s", dir,
				 strerror(errno));
		return PROGRAM_NOT_EXECUTABLE;
	}
	if (!owner_ok(dir, &st, trusted, why, why_len) ||
		!writers_ok(dir, &st, "directory", why, why_len))
		return PROGRAM_UNSAFE;
	return PROGRAM_SAFE;
}

/* Check the file reached at the end of the walk. */
static ProgramSafety
check_file(const char *path, const struct stat *st, char *why, size_t why_len)
{
	if (!S_ISREG(st->st_mode))
	{
		snprintf(why, why_len, "\"%s\" is not a regular file", path);
		return PROGRAM_NOT_EXECUTABLE;
	}
	if (!writers_ok(path, st, "file", why, why_len))
		return PROGRAM_UNSAFE;
	if (access(path, X_OK) != 0)
	{
		snprintf(why, why_len, "\"%s\" is not executable by the server's user",
				 path);
		return PROGRAM_NOT_EXECUTABLE;
	}
	return PROGRAM_SAFE;
}

/* Cut dir (canonical, absolute) back to its parent. */
static void
to_parent(char *dir)
{
	char *slash = strrchr(dir, '/');

	if (slash == dir)
		dir[1] = '\0';
	else if (slash != NULL)
		*slash = '\0';
}

/*
 * After a symbolic link: rest becomes its target followed by what was
 * still to walk (*p, inside rest), and *p its start; false when too long.
 */
static int
splice_link(char *rest, char **p, const char *target)
{
	char tmp[WALK_MAX];
	int n;

	n = snprintf(tmp, sizeof(tmp), "%s%s%s", target, **p ? "/" : "", *p);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return 0;
	memcpy(rest, tmp, (size_t)n + 1);
	*p = rest;
	return 1;
}

/* See program_safety.h. */
ProgramSafety
program_safety_check(const char *path, uid_t trusted, char *resolved,
					 size_t resolved_len, char *why, size_t why_len)
{
	char cur[WALK_MAX] = "/"; /* directory reached: no link, no "..", "." */
	char rest[WALK_MAX];      /* components still to walk */
	char *p = rest;
	int links = 0;

	why[0] = '\0';
	if (path[0] != '/')
	{
		snprintf(why, why_len, "\"%s\" is not an absolute path", path);
		return PROGRAM_NOT_EXECUTABLE;
	}
	if (strlen(path) >= sizeof(rest))
	{
		snprintf(why, why_len, "path \"%.64s...\" is too long", path);
		return PROGRAM_NOT_EXECUTABLE;
	}
	strcpy(rest, path);
	for (;;)
	{
		char comp[WALK_MAX];
		char next[WALK_MAX];
		char target[WALK_MAX];
		struct stat st;
		size_t len;
		ssize_t tlen;
		ProgramSafety s;
		int last;

		while (*p == '/')
			p++;
		len = strcspn(p, "/");
		if (len == 0)
		{
			/* the path ends in a directory */
			snprintf(why, why_len, "\"%s\" is not a regular file", cur);
			return PROGRAM_NOT_EXECUTABLE;
		}
		memcpy(comp, p, len);
		comp[len] = '\0';
		p += len;
		while (*p == '/')
			p++;
		last = (*p == '\0');

		if (strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0)
		{
			if (comp[1] == '.')
				to_parent(cur);
			if (last)
			{
				snprintf(why, why_len, "\"%s\" is not a regular file", cur);
				return PROGRAM_NOT_EXECUTABLE;
			}
			continue;
		}

		/* the directory holding the entry, then the entry */
		if ((s = check_dir(cur, trusted, why, why_len)) != PROGRAM_SAFE)
			return s;
		if ((size_t)snprintf(next, sizeof(next), "%s%s%s", cur,
							 strcmp(cur, "/") == 0 ? "" : "/",
							 comp) >= sizeof(next))
		{
			snprintf(why, why_len, "path \"%s\" is too long", path);
			return PROGRAM_NOT_EXECUTABLE;
		}
		if (lstat(next, &st) != 0)
		{
			int e = errno;

			snprintf(why, why_len, "could not look at \"%s\": %s", next,
					 strerror(e));
			return (e == ENOENT || e == ENOTDIR) ? PROGRAM_MISSING
												 : PROGRAM_NOT_EXECUTABLE;
		}
		if (!owner_ok(next, &st, trusted, why, why_len))
			return PROGRAM_UNSAFE;

		if (S_ISLNK(st.st_mode))
		{
			if (++links > MAX_SYMLINKS)
			{
				snprintf(why, why_len, "too many symbolic links in \"%s\"",
						 path);
				return PROGRAM_NOT_EXECUTABLE;
			}
			tlen = readlink(next, target, sizeof(target) - 1);
			if (tlen < 0)
			{
				snprintf(why, why_len,
						 "could not read symbolic link \"%s\": %s", next,
						 strerror(errno));
				return PROGRAM_NOT_EXECUTABLE;
			}
			target[tlen] = '\0';
			if (tlen == 0)
			{
				snprintf(why, why_len, "symbolic link \"%s\" is empty", next);
				return PROGRAM_MISSING;
			}
			if (!splice_link(rest, &p, target))
			{
				snprintf(why, why_len, "path \"%s\" is too long", path);
				return PROGRAM_NOT_EXECUTABLE;
			}
			if (target[0] == '/')
				strcpy(cur, "/");
			continue;
		}
		if (!last)
		{
			if (!S_ISDIR(st.st_mode))
			{
				snprintf(why, why_len, "\"%s\" is not a directory", next);
				return PROGRAM_MISSING;
			}
			strcpy(cur, next);
			continue;
		}
		if ((s = check_file(next, &st, why, why_len)) != PROGRAM_SAFE)
			return s;
		if (strlen(next) >= resolved_len)
		{
			snprintf(why, why_len, "path \"%s\" is too long", path);
			return PROGRAM_NOT_EXECUTABLE;
		}
		strcpy(resolved, next);
		return PROGRAM_SAFE;
	}
}
