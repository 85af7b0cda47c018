/*
 * work_dir.c: the runner's work directory must be its own (work_dir.h).
 * lstat, so that a symbolic link is refused rather than followed: a link
 * planted in /var/tmp could point at a directory someone else controls.
 * Only the directory itself is checked: inside it, only its owner (the
 * runner's user) can add, replace or rename entries.
 */
#include "work_dir.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool
work_dir_check(const char *dir, char *why, size_t whylen)
{
	struct stat st;

	if (lstat(dir, &st) != 0)
	{
		if (errno != ENOENT)
		{
			snprintf(why, whylen, "work directory %s: %s", dir,
					 strerror(errno));
			return false;
		}
		/* mkdir fails on anything created meanwhile: checked below */
		if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		{
			snprintf(why, whylen, "cannot create work directory %s: %s", dir,
					 strerror(errno));
			return false;
		}
		if (lstat(dir, &st) != 0)
		{
			snprintf(why, whylen, "work directory %s: %s", dir,
					 strerror(errno));
			return false;
		}
	}
	if (S_ISLNK(st.st_mode))
	{
		snprintf(why, whylen,
				 "work directory %s is a symbolic link; tuner_ceph uses only "
				 "a directory of its own",
				 dir);
		return false;
	}
	if (!S_ISDIR(st.st_mode))
	{
		snprintf(why, whylen, "work directory %s is not a directory", dir);
		return false;
	}
	if (st.st_uid != geteuid())
	{
		snprintf(why, whylen,
				 "work directory %s is owned by uid %ld, not by the runner's "
				 "uid %ld; remove it, or set cluster_dir (or TUNER_CEPH_DIR) "
				 "to a directory of the runner's user with mode 0700",
				 dir, (long)st.st_uid, (long)geteuid());
		return false;
	}
	if ((st.st_mode & 077) != 0)
	{
		snprintf(why, whylen,
				 "work directory %s has mode %04o; it must be 0700 (only its "
				 "owner, the runner's user, may use it): chmod 700 %s",
				 dir, (unsigned)(st.st_mode & 07777), dir);
		return false;
	}
	return true;
}
