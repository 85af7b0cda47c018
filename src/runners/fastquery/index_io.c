/*
 * index_io.c: parallel HDF5 helpers (see index_io.h).
 */
#include "index_io.h"

#include <string.h>

/* MPI-IO file access with the hints; alignment applies to new objects. */
hid_t
fq_open(const char *path, const FqOptions *o, int create, MPI_Info *used)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	MPI_Info info = fq_hints_info(o);
	MPI_File *fh = NULL;
	hid_t file;

	H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, info);
	if (o->align > 0)
		H5Pset_alignment(fapl, 1, o->align);
	if (create)
		file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	else
		file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
	if (file < 0)
		fq_fail(1, "cannot %s %s", create ? "create" : "open", path);
	*used = MPI_INFO_NULL;
	if (H5Fget_vfd_handle(file, fapl, (void **)&fh) >= 0 && fh != NULL)
		MPI_File_get_info(*fh, used);
	H5Pclose(fapl);
	MPI_Info_free(&info);
	return file;
}

/* A transfer property list for collective or independent MPI-IO. */
hid_t
fq_dxpl(int collective)
{
	hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);

	H5Pset_dxpl_mpio(dxpl, collective ? H5FD_MPIO_COLLECTIVE
									  : H5FD_MPIO_INDEPENDENT);
	return dxpl;
}

/* File and memory spaces for [start, start + count), none when empty. */
static void
slab_spaces(hid_t dset, uint64_t start, uint64_t count, hid_t *fsp, hid_t *msp)
{
	hsize_t s = start, c = count;

	*fsp = H5Dget_space(dset);
	*msp = H5Screate_simple(1, &c, NULL);
	if (count > 0)
		H5Sselect_hyperslab(*fsp, H5S_SELECT_SET, &s, NULL, &c, NULL);
	else
	{
		H5Sselect_none(*fsp);
		H5Sselect_none(*msp);
	}
}

/* Read [start, start + count); an empty slab still joins collective I/O. */
void
fq_read_slab(hid_t dset, hid_t dxpl, hid_t type, uint64_t start,
			 uint64_t count, void *buf)
{
	hid_t fsp, msp;

	slab_spaces(dset, start, count, &fsp, &msp);
	if (H5Dread(dset, type, msp, fsp, dxpl, buf) < 0)
		fq_fail(1, "H5Dread of %llu elements at %llu failed",
				(unsigned long long)count, (unsigned long long)start);
	H5Sclose(fsp);
	H5Sclose(msp);
}

/* Write [start, start + count); an empty slab still joins collective I/O. */
void
fq_write_slab(hid_t dset, hid_t dxpl, hid_t type, uint64_t start,
			  uint64_t count, const void *buf)
{
	hid_t fsp, msp;

	slab_spaces(dset, start, count, &fsp, &msp);
	if (H5Dwrite(dset, type, msp, fsp, dxpl, buf) < 0)
		fq_fail(1, "H5Dwrite of %llu elements at %llu failed",
				(unsigned long long)count, (unsigned long long)start);
	H5Sclose(fsp);
	H5Sclose(msp);
}

/* Read the listed elements (an HDF5 point selection). */
void
fq_read_points(hid_t dset, hid_t dxpl, hid_t type, const hsize_t *coords,
			   uint64_t count, void *buf)
{
	hsize_t c = count;
	hid_t fsp = H5Dget_space(dset);
	hid_t msp = H5Screate_simple(1, &c, NULL);

	if (count > 0)
		H5Sselect_elements(fsp, H5S_SELECT_SET, count, coords);
	else
	{
		H5Sselect_none(fsp);
		H5Sselect_none(msp);
	}
	if (H5Dread(dset, type, msp, fsp, dxpl, buf) < 0)
		fq_fail(1, "H5Dread of %llu points failed", (unsigned long long)count);
	H5Sclose(fsp);
	H5Sclose(msp);
}

/* A 1-D dataset without modification times, so files compare equal. */
hid_t
fq_create_dataset(hid_t loc, const char *name, hid_t type, uint64_t length)
{
	hsize_t d = length;
	hid_t space = H5Screate_simple(1, &d, NULL);
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
	hid_t dset;

	H5Pset_obj_track_times(dcpl, 0);
	dset = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	if (dset < 0)
		fq_fail(1, "cannot create dataset %s", name);
	H5Pclose(dcpl);
	H5Sclose(space);
	return dset;
}

/* A scalar uint64 attribute. */
void
fq_write_attr_u64(hid_t loc, const char *name, uint64_t v)
{
	hid_t space = H5Screate(H5S_SCALAR);
	hid_t a =
		H5Acreate2(loc, name, H5T_STD_U64LE, space, H5P_DEFAULT, H5P_DEFAULT);

	if (a < 0 || H5Awrite(a, H5T_NATIVE_UINT64, &v) < 0)
		fq_fail(1, "cannot write attribute %s", name);
	H5Aclose(a);
	H5Sclose(space);
}

/* Read a scalar uint64 attribute; its absence is a wrong index file. */
uint64_t
fq_read_attr_u64(hid_t loc, const char *name)
{
	uint64_t v = 0;
	hid_t a = H5Aopen(loc, name, H5P_DEFAULT);

	if (a < 0 || H5Aread(a, H5T_NATIVE_UINT64, &v) < 0)
		fq_fail(1, "index has no attribute %s", name);
	H5Aclose(a);
	return v;
}

/* Names of H5Pget_mpio_actual_io_mode results. */
const char *
fq_io_mode_name(int mode)
{
	switch (mode)
	{
		case H5D_MPIO_NO_COLLECTIVE:
			return "no_collective";
		case H5D_MPIO_CHUNK_INDEPENDENT:
			return "chunk_independent";
		case H5D_MPIO_CHUNK_COLLECTIVE:
			return "chunk_collective";
		case H5D_MPIO_CHUNK_MIXED:
			return "chunk_mixed";
		case H5D_MPIO_CONTIGUOUS_COLLECTIVE:
			return "contiguous_collective";
	}
	return "unknown";
}
