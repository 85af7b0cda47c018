/*
 * hints.c: MPI-IO hints from the options, and the report of which of them
 * the MPI-IO layer (ROMIO) actually took, read back after the file is open.
 */
#include "fq.h"

#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>

/* An MPI_Info with every requested hint. */
MPI_Info
fq_hints_info(const FqOptions *o)
{
	MPI_Info info;
	int i;

	MPI_Info_create(&info);
	for (i = 0; i < o->nhints; i++)
		MPI_Info_set(info, o->hints[i].key, o->hints[i].value);
	return info;
}

/*
 * The file-system type from statfs(2) f_type: the same call ROMIO makes to
 * pick its driver (ADIO_FileSysType_fncall), so on Linux this is what ROMIO
 * detected, unless the file name has a "lustre:"-style prefix.
 */
const char *
fq_fs_type(const char *path)
{
	struct statfs sf;
	char *copy = strdup(path);
	int rc;

	rc = statfs(path, &sf);
	if (rc != 0)
		rc = statfs(dirname(copy), &sf);
	free(copy);
	if (rc != 0)
		return "unknown";
	switch ((unsigned long)sf.f_type)
	{
		case 0xEF53UL:
			return "ext2/3/4 (ROMIO ufs)";
		case 0x794c7630UL:
			return "overlayfs (ROMIO ufs)";
		case 0x01021994UL:
			return "tmpfs (ROMIO ufs)";
		case 0x58465342UL:
			return "xfs (ROMIO xfs)";
		case 0x9123683EUL:
			return "btrfs (ROMIO ufs)";
		case 0x0BD00BD0UL:
			return "lustre (ROMIO lustre)";
		case 0x6969UL:
			return "nfs (ROMIO nfs)";
		case 0x47504653UL:
			return "gpfs (ROMIO gpfs)";
		default:
			return "other (ROMIO ufs)";
	}
}

/*
 * {"effective": {every hint in use}, "requested": {key: {"value",
 * "effective", "honored"}}, "fs_type_romio", "fs_type_statfs"}.  A hint is honored when the file's
 * info reports the requested value; absent or different means ignored.
 */
json_t *
fq_hints_report(const FqOptions *o, MPI_Info used, const char *path)
{
	json_t *eff = json_object();
	json_t *req = json_object();
	json_t *out = json_object();
	char key[MPI_MAX_INFO_KEY + 1];
	char val[MPI_MAX_INFO_VAL + 1];
	int nkeys = 0;
	int i;

	if (used != MPI_INFO_NULL)
	{
		MPI_Info_get_nkeys(used, &nkeys);
		for (i = 0; i < nkeys; i++)
		{
			int vlen, flag;

			MPI_Info_get_nthkey(used, i, key);
			MPI_Info_get_valuelen(used, key, &vlen, &flag);
			if (!flag || vlen > MPI_MAX_INFO_VAL)
				continue;
			MPI_Info_get(used, key, MPI_MAX_INFO_VAL, val, &flag);
			if (flag)
				json_object_set_new(eff, key, json_string(val));
		}
	}
	for (i = 0; i < o->nhints; i++)
	{
		json_t *h = json_object();
		json_t *e = json_object_get(eff, o->hints[i].key);
		int honored =
			e && strcmp(json_string_value(e), o->hints[i].value) == 0;

		json_object_set_new(h, "value", json_string(o->hints[i].value));
		json_object_set_new(h, "effective", e ? json_copy(e) : json_null());
		json_object_set_new(h, "honored", json_boolean(honored));
		json_object_set_new(req, o->hints[i].key, h);
	}
	json_object_set_new(out, "effective", eff);
	json_object_set_new(out, "requested", req);
	/* ROMIO names the driver it chose in romio_filesystem_type (MPICH
	 * 3.3+); statfs gives the kernel's view of the same file system */
	{
		json_t *romio = json_object_get(eff, "romio_filesystem_type");

		json_object_set_new(out, "fs_type_romio",
							romio ? json_copy(romio) : json_null());
	}
	json_object_set_new(out, "fs_type_statfs", json_string(fq_fs_type(path)));
	return out;
}
