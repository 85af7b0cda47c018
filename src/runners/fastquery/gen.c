/*
 * gen.c: the "gen" subcommand: a synthetic VPIC-like particle data set.
 *
 * A magnetic-reconnection-like snapshot: most particles in a Harris current
 * sheet (density ~ sech^2(y / L)) around y = 0, the rest uniform; thermal
 * momenta; and a small accelerated population near the X-line (x = Lx / 2)
 * with a power-law momentum mostly along x.  Each value comes from the
 * counter-based generator of the particle's global index (rng.h), so the
 * file does not depend on the number of ranks.
 */
#include "fq.h"
#include "rng.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LX      330.0
#define LY      132.0
#define LZ      132.0
#define SHEET_L 2.0
#define PIECE   (1ULL << 20) /* particles generated and written per step */

/* The seven values of particle i. */
static void
particle(uint64_t seed, uint64_t i, float *out)
{
	double x = LX * fq_uniform(seed, i, 0);
	double z = LZ * fq_uniform(seed, i, 2);
	double y, sigma, ux, uy, uz;
	int sheet = fq_uniform(seed, i, 3) < 0.6;

	if (sheet)
	{
		double u = fq_uniform(seed, i, 1);

		y = SHEET_L * atanh(2.0 * u - 1.0);
		if (y < -LY / 2 || y >= LY / 2)
			y = 0.0;
		sigma = 0.1;
	}
	else
	{
		y = LY * (fq_uniform(seed, i, 1) - 0.5);
		sigma = 0.05;
	}
	ux = sigma * fq_normal(seed, i, 4);
	uy = sigma * fq_normal(seed, i, 6);
	uz = sigma * fq_normal(seed, i, 8);
	/* accelerated: 2% of the sheet particles within 20 of the X-line */
	if (sheet && fabs(x - LX / 2) < 20.0 && fq_uniform(seed, i, 10) < 0.02)
	{
		double p = 0.5 * pow(1.0 - fq_uniform(seed, i, 11), -0.5);

		if (p > 50.0)
			p = 50.0;
		ux = (fq_uniform(seed, i, 12) < 0.5 ? -p : p);
		uy += 0.2 * p * fq_normal(seed, i, 13);
		uz += 0.2 * p * fq_normal(seed, i, 15);
	}
	out[0] = (float)x;
	out[1] = (float)y;
	out[2] = (float)z;
	out[3] = (float)ux;
	out[4] = (float)uy;
	out[5] = (float)uz;
	out[6] = (float)(sqrt(1.0 + ux * ux + uy * uy + uz * uz) - 1.0);
}

/* The cache file name of a size and layout. */
static void
cache_path(const FqOptions *o, char *buf, size_t len)
{
	snprintf(buf, len, "%s/vpic-n%llu-s%llu-%s-c%llu-a%llu.h5", o->cache_dir,
			 (unsigned long long)o->n, (unsigned long long)o->seed,
			 o->chunked ? "chunked" : "contiguous",
			 (unsigned long long)(o->chunked ? o->chunk : 0),
			 (unsigned long long)o->align);
}

/* Create the file and write every rank's particles. */
static void
write_file(const FqOptions *o, const char *path, int rank, int nranks)
{
	uint64_t lo = o->n * rank / nranks, hi = o->n * (rank + 1) / nranks;
	uint64_t maxslab = 0, npieces, p;
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
	hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
	MPI_Info info = fq_hints_info(o);
	hsize_t dims = o->n;
	hid_t file, space, dset[FQ_NVARS];
	float *buf, *col;
	int r, v;

	for (r = 0; r < nranks; r++)
	{
		uint64_t s = o->n * (r + 1) / nranks - o->n * r / nranks;

		maxslab = s > maxslab ? s : maxslab;
	}
	npieces = (maxslab + PIECE - 1) / PIECE;
	H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, info);
	if (o->align > 0)
		H5Pset_alignment(fapl, 1, o->align);
	H5Pset_obj_track_times(dcpl, 0);
	H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
	if (o->chunked)
	{
		hsize_t c = o->chunk < o->n ? o->chunk : o->n;

		H5Pset_chunk(dcpl, 1, &c);
	}
	H5Pset_dxpl_mpio(dxpl, o->collective ? H5FD_MPIO_COLLECTIVE
										 : H5FD_MPIO_INDEPENDENT);
	file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	if (file < 0)
		fq_fail(1, "cannot create %s", path);
	space = H5Screate_simple(1, &dims, NULL);
	for (v = 0; v < FQ_NVARS; v++)
	{
		dset[v] = H5Dcreate2(file, fq_var_names[v], H5T_NATIVE_FLOAT, space,
							 H5P_DEFAULT, dcpl, H5P_DEFAULT);
		if (dset[v] < 0)
			fq_fail(1, "cannot create dataset %s in %s", fq_var_names[v],
					path);
	}
	buf = malloc(PIECE * FQ_NVARS * sizeof(float));
	col = malloc(PIECE * sizeof(float));
	if (buf == NULL || col == NULL)
		fq_fail(1, "out of memory");
	for (p = 0; p < npieces; p++)
	{
		uint64_t a = lo + p * PIECE, b = a + PIECE, i;
		hsize_t start, count;
		hid_t mem, fsp = H5Scopy(space);

		if (a > hi)
			a = hi;
		if (b > hi)
			b = hi;
		for (i = a; i < b; i++)
			particle(o->seed, i, buf + (i - a) * FQ_NVARS);
		start = a;
		count = b - a;
		if (count > 0)
			H5Sselect_hyperslab(fsp, H5S_SELECT_SET, &start, NULL, &count,
								NULL);
		else
			H5Sselect_none(fsp);
		mem = H5Screate_simple(1, &count, NULL);
		if (count == 0)
			H5Sselect_none(mem);
		for (v = 0; v < FQ_NVARS; v++)
		{
			for (i = 0; i < count; i++)
				col[i] = buf[i * FQ_NVARS + v];
			if (H5Dwrite(dset[v], H5T_NATIVE_FLOAT, mem, fsp, dxpl, col) < 0)
				fq_fail(1, "cannot write %s", fq_var_names[v]);
		}
		H5Sclose(mem);
		H5Sclose(fsp);
	}
	free(buf);
	free(col);
	for (v = 0; v < FQ_NVARS; v++)
		H5Dclose(dset[v]);
	H5Sclose(space);
	if (H5Fclose(file) < 0)
		fq_fail(1, "cannot close %s", path);
	H5Pclose(fapl);
	H5Pclose(dcpl);
	H5Pclose(dxpl);
	MPI_Info_free(&info);
}

/*
 * With --out the file is written there; otherwise into the cache (written
 * under a temporary name and renamed, so a cached file is always complete).
 */
int
fq_gen(const FqOptions *o)
{
	int rank, nranks, cached = 0;
	char path[4096], tmp[4200];
	double t0, t1;
	struct stat st;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (o->file)
		snprintf(path, sizeof(path), "%s", o->file);
	else
	{
		if (rank == 0 && mkdir(o->cache_dir, 0700) != 0 && errno != EEXIST)
			fq_fail(1, "cannot create cache directory %s", o->cache_dir);
		cache_path(o, path, sizeof(path));
		cached = stat(path, &st) == 0;
	}
	MPI_Bcast(&cached, 1, MPI_INT, 0, MPI_COMM_WORLD);
	t0 = fq_now();
	if (!cached)
	{
		long pid = (long)getpid();

		MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
		if (o->file)
			snprintf(tmp, sizeof(tmp), "%s", path);
		else
			snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, pid);
		write_file(o, tmp, rank, nranks);
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 0 && !o->file && rename(tmp, path) != 0)
			fq_fail(1, "cannot rename %s to %s", tmp, path);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	t1 = fq_now();
	if (rank == 0)
	{
		json_t *j = json_object();

		json_object_set_new(j, "subcommand", json_string("gen"));
		json_object_set_new(j, "path", json_string(path));
		json_object_set_new(j, "cached", json_boolean(cached));
		json_object_set_new(j, "n", json_integer((json_int_t)o->n));
		json_object_set_new(
			j, "layout", json_string(o->chunked ? "chunked" : "contiguous"));
		json_object_set_new(
			j, "chunk", json_integer(o->chunked ? (json_int_t)o->chunk : 0));
		json_object_set_new(j, "align", json_integer((json_int_t)o->align));
		json_object_set_new(j, "ranks", json_integer(nranks));
		json_object_set_new(j, "gen_s", json_real(t1 - t0));
		if (stat(path, &st) == 0)
			json_object_set_new(j, "file_bytes", json_integer(st.st_size));
		fq_print_json(j);
		json_decref(j);
	}
	return 0;
}
