/*
 * build.c: the "build" subcommand: read each variable's slab, find the
 * global range, index it with binned WAH bitmaps on worker threads, write
 * the index in parallel.
 *
 * Per rank, the main thread does all HDF5 and MPI calls; the worker
 * threads index disjoint runs of blocks of the variable in memory.  With
 * overlap on, the main thread reads (and range-reduces) variable v + 1
 * while the workers index variable v.  Blocks are fixed by --block, not by
 * the number of ranks or threads, so the index is the same for any of them.
 */
#include "bins.h"
#include "index_io.h"
#include "wah.h"

#include <float.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The bitmaps of one block: nbins WAH bitmaps back to back. */
typedef struct BlockIndex
{
	uint32_t *words;
	uint64_t *nw; /* words of each bin */
	uint64_t total;
} BlockIndex;

/* One worker's share of a variable. */
typedef struct Work
{
	const float *data; /* the rank's slab, from particle p0 */
	uint64_t p0;
	uint64_t first, last; /* global blocks [first, last) */
	uint64_t block, n;
	int nbins;
	const double *edges;
	BlockIndex *out; /* indexed by global block - rank's first */
	uint64_t out_base;
	int failed;
} Work;

/* Index blocks [first, last): each group of 31 particles sets one literal
 * per bin it touches; untouched bins get zero fills lazily. */
static void *
index_blocks(void *arg)
{
	Work *w = arg;
	WahBuf *bufs = calloc(w->nbins, sizeof(WahBuf));
	uint32_t *lit = calloc(w->nbins, sizeof(uint32_t));
	int *touched = malloc(WAH_GROUP_BITS * sizeof(int));
	uint64_t b;

	if (bufs == NULL || lit == NULL || touched == NULL)
	{
		w->failed = 1;
		return NULL;
	}
	for (b = w->first; b < w->last && !w->failed; b++)
	{
		uint64_t start = b * w->block;
		uint64_t count = (start + w->block <= w->n) ? w->block : w->n - start;
		uint64_t ng = wah_ngroups(count), g, total = 0;
		const float *d = w->data + (start - w->p0);
		BlockIndex *bi = &w->out[b - w->out_base];
		int k;

		for (k = 0; k < w->nbins; k++)
		{
			bufs[k].nwords = 0;
			bufs[k].groups = 0;
		}
		for (g = 0; g < ng; g++)
		{
			uint64_t j0 = g * WAH_GROUP_BITS;
			int ntouched = 0, i, t;

			for (i = 0; i < WAH_GROUP_BITS && j0 + i < count; i++)
			{
				k = fq_bin_of(w->edges, w->nbins, (double)d[j0 + i]);
				if (lit[k] == 0)
					touched[ntouched++] = k;
				lit[k] |= 1u << i;
			}
			for (t = 0; t < ntouched; t++)
			{
				k = touched[t];
				if (wah_append_at(&bufs[k], g, lit[k]) != 0)
					w->failed = 1;
				lit[k] = 0;
			}
		}
		bi->nw = malloc(w->nbins * sizeof(uint64_t));
		for (k = 0; k < w->nbins; k++)
		{
			if (wah_finish(&bufs[k], ng) != 0)
				w->failed = 1;
			total += bufs[k].nwords;
		}
		bi->words = malloc(total * sizeof(uint32_t));
		if (bi->nw == NULL || bi->words == NULL)
		{
			w->failed = 1;
			break;
		}
		bi->total = total;
		total = 0;
		for (k = 0; k < w->nbins; k++)
		{
			memcpy(bi->words + total, bufs[k].words,
				   bufs[k].nwords * sizeof(uint32_t));
			bi->nw[k] = bufs[k].nwords;
			total += bufs[k].nwords;
		}
	}
	for (b = 0; b < (uint64_t)w->nbins; b++)
		wah_free(&bufs[b]);
	free(bufs);
	free(lit);
	free(touched);
	return NULL;
}

/* State of a build on one rank. */
typedef struct Build
{
	const FqOptions *o;
	int rank, nranks;
	uint64_t nblocks, b0, b1, p0, p1;
	hid_t data, index, dxpl;
	hid_t dset[FQ_NVARS];
	double read_s, range_s, index_s, write_s;
	int read_mode, write_mode;
	uint64_t index_bytes;
} Build;

/* Read variable v's slab; then its global range and bin edges. */
static void
read_var(Build *B, int v, float *buf, double *edges)
{
	double t0 = fq_now(), t1;
	float mm[2] = {FLT_MAX, FLT_MAX}, g[2];
	H5D_mpio_actual_io_mode_t mode = H5D_MPIO_NO_COLLECTIVE;
	uint64_t i;

	fq_read_slab(B->dset[v], B->dxpl, H5T_NATIVE_FLOAT, B->p0, B->p1 - B->p0,
				 buf);
	H5Pget_mpio_actual_io_mode(B->dxpl, &mode);
	B->read_mode = (int)mode;
	t1 = fq_now();
	B->read_s += t1 - t0;
	/* min and -max, so one MPI_MIN reduces both */
	for (i = 0; i < B->p1 - B->p0; i++)
	{
		if (buf[i] < mm[0])
			mm[0] = buf[i];
		if (-buf[i] < mm[1])
			mm[1] = -buf[i];
	}
	MPI_Allreduce(mm, g, 2, MPI_FLOAT, MPI_MIN, MPI_COMM_WORLD);
	fq_bin_edges((double)g[0], (double)-g[1], B->o->nbins, edges);
	B->range_s += fq_now() - t1;
}

/* Start the workers on variable data; *threads receives their ids. */
static void
start_workers(Build *B, const float *data, const double *edges,
			  BlockIndex *out, Work *works, pthread_t *threads)
{
	uint64_t nb = B->b1 - B->b0;
	int t;

	for (t = 0; t < B->o->threads; t++)
	{
		Work *w = &works[t];

		w->data = data;
		w->p0 = B->p0;
		w->first = B->b0 + nb * t / B->o->threads;
		w->last = B->b0 + nb * (t + 1) / B->o->threads;
		w->block = B->o->block;
		w->n = B->o->n;
		w->nbins = B->o->nbins;
		w->edges = edges;
		w->out = out;
		w->out_base = B->b0;
		w->failed = 0;
		if (pthread_create(&threads[t], NULL, index_blocks, w) != 0)
			fq_fail(1, "cannot start an indexing thread");
	}
}

/* Wait for the workers; a worker out of memory fails the run. */
static void
join_workers(Build *B, Work *works, pthread_t *threads)
{
	int t;

	for (t = 0; t < B->o->threads; t++)
	{
		pthread_join(threads[t], NULL);
		if (works[t].failed)
			fq_fail(1, "out of memory while indexing");
	}
}

/* Write variable v's edges, offsets and words; free the block bitmaps. */
static void
write_var(Build *B, int v, const double *edges, BlockIndex *out)
{
	double t0 = fq_now();
	int nbins = B->o->nbins;
	uint64_t nb = B->b1 - B->b0, local = 0, base = 0, total = 0, b, pos;
	int last = B->rank == B->nranks - 1;
	uint64_t noff = nb * nbins + (last ? 1 : 0);
	uint64_t *off = malloc((noff + 1) * sizeof(uint64_t));
	uint32_t *words;
	hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
	hid_t grp, d;
	H5D_mpio_actual_io_mode_t mode = H5D_MPIO_NO_COLLECTIVE;
	int k;

	for (b = 0; b < nb; b++)
		local += out[b].total;
	MPI_Exscan(&local, &base, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	if (B->rank == 0)
		base = 0;
	MPI_Allreduce(&local, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	words = malloc((local + 1) * sizeof(uint32_t));
	if (off == NULL || words == NULL)
		fq_fail(1, "out of memory");
	pos = 0;
	for (b = 0; b < nb; b++)
	{
		for (k = 0; k < nbins; k++)
		{
			off[b * nbins + k] = base + pos;
			pos += out[b].nw[k];
		}
		memcpy(words + (pos - out[b].total), out[b].words,
			   out[b].total * sizeof(uint32_t));
		free(out[b].words);
		free(out[b].nw);
	}
	if (last)
		off[nb * nbins] = total;

	H5Pset_obj_track_times(gcpl, 0);
	grp =
		H5Gcreate2(B->index, fq_var_names[v], H5P_DEFAULT, gcpl, H5P_DEFAULT);
	if (grp < 0)
		fq_fail(1, "cannot create index group %s", fq_var_names[v]);
	d = fq_create_dataset(grp, "edges", H5T_IEEE_F64LE, nbins + 1);
	fq_write_slab(d, B->dxpl, H5T_NATIVE_DOUBLE, 0,
				  B->rank == 0 ? nbins + 1 : 0, edges);
	H5Dclose(d);
	d = fq_create_dataset(grp, "offsets", H5T_STD_U64LE,
						  B->nblocks * nbins + 1);
	fq_write_slab(d, B->dxpl, H5T_NATIVE_UINT64, B->b0 * nbins, noff, off);
	H5Dclose(d);
	d = fq_create_dataset(grp, "words", H5T_STD_U32LE, total);
	fq_write_slab(d, B->dxpl, H5T_NATIVE_UINT32, base, local, words);
	H5Pget_mpio_actual_io_mode(B->dxpl, &mode);
	B->write_mode = (int)mode;
	H5Dclose(d);
	H5Gclose(grp);
	H5Pclose(gcpl);
	free(off);
	free(words);
	B->index_bytes +=
		total * 4 + (B->nblocks * nbins + 1) * 8 + (nbins + 1) * 8;
	B->write_s += fq_now() - t0;
}

/* Max over ranks (parts) or sum (CPU) at rank 0. */
static double
reduce(double x, MPI_Op op)
{
	double r = 0;

	MPI_Reduce(&x, &r, 1, MPI_DOUBLE, op, 0, MPI_COMM_WORLD);
	return r;
}

/* build: read, range, index and write every variable; print the metrics. */
int
fq_build(const FqOptions *o_in)
{
	FqOptions opts = *o_in;
	FqOptions *o = &opts;
	Build B;
	MPI_Info in_used, idx_used;
	float *cur, *next;
	double *edges[2];
	BlockIndex *out;
	Work *works;
	pthread_t *threads;
	double t0, t1, cpu0 = fq_cpu_seconds();
	json_t *in_hints, *idx_hints;
	int v;

	if (o->file == NULL || o->index == NULL)
		fq_fail(2, "build needs --file DATA.h5 and --index INDEX.h5");
	memset(&B, 0, sizeof(B));
	B.o = o;
	MPI_Comm_rank(MPI_COMM_WORLD, &B.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &B.nranks);
	if (o->cold && B.rank == 0)
		fq_evict(o->file);
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = fq_now();
	B.data = fq_open(o->file, o, 0, &in_used);
	for (v = 0; v < FQ_NVARS; v++)
	{
		hid_t sp;
		hssize_t len;

		B.dset[v] = H5Dopen2(B.data, fq_var_names[v], H5P_DEFAULT);
		if (B.dset[v] < 0)
			fq_fail(1, "%s has no dataset %s", o->file, fq_var_names[v]);
		sp = H5Dget_space(B.dset[v]);
		len = H5Sget_simple_extent_npoints(sp);
		H5Sclose(sp);
		if (v == 0)
			o->n = (uint64_t)len;
		else if ((uint64_t)len != o->n)
			fq_fail(1, "datasets of %s differ in length", o->file);
	}
	B.nblocks = (o->n + o->block - 1) / o->block;
	fq_slab(B.nblocks, B.rank, B.nranks, &B.b0, &B.b1);
	B.p0 = B.b0 * o->block;
	B.p1 = B.b1 * o->block < o->n ? B.b1 * o->block : o->n;
	B.dxpl = fq_dxpl(o->collective);
	B.index = fq_open(o->index, o, 1, &idx_used);
	fq_write_attr_u64(B.index, "n", o->n);
	fq_write_attr_u64(B.index, "block", o->block);
	fq_write_attr_u64(B.index, "nbins", o->nbins);
	fq_write_attr_u64(B.index, "word_bits", 32);

	cur = malloc((B.p1 - B.p0 + 1) * sizeof(float));
	next = malloc((B.p1 - B.p0 + 1) * sizeof(float));
	edges[0] = malloc((o->nbins + 1) * sizeof(double));
	edges[1] = malloc((o->nbins + 1) * sizeof(double));
	out = calloc(B.b1 - B.b0 + 1, sizeof(BlockIndex));
	works = calloc(o->threads, sizeof(Work));
	threads = calloc(o->threads, sizeof(pthread_t));
	if (!cur || !next || !edges[0] || !edges[1] || !out || !works || !threads)
		fq_fail(1, "out of memory");

	read_var(&B, 0, cur, edges[0]);
	for (v = 0; v < FQ_NVARS; v++)
	{
		double ti = fq_now();
		float *tmp;
		double *te;

		start_workers(&B, cur, edges[0], out, works, threads);
		if (o->overlap && v + 1 < FQ_NVARS)
			read_var(&B, v + 1, next, edges[1]);
		join_workers(&B, works, threads);
		B.index_s += fq_now() - ti;
		write_var(&B, v, edges[0], out);
		if (!o->overlap && v + 1 < FQ_NVARS)
			read_var(&B, v + 1, next, edges[1]);
		tmp = cur, cur = next, next = tmp;
		te = edges[0], edges[0] = edges[1], edges[1] = te;
	}
	in_hints = fq_hints_report(o, in_used, o->file);
	idx_hints = fq_hints_report(o, idx_used, o->index);
	for (v = 0; v < FQ_NVARS; v++)
		H5Dclose(B.dset[v]);
	H5Fclose(B.data);
	if (H5Fclose(B.index) < 0)
		fq_fail(1, "cannot close %s", o->index);
	MPI_Barrier(MPI_COMM_WORLD);
	t1 = fq_now();
	{
		double read_s = reduce(B.read_s, MPI_MAX);
		double range_s = reduce(B.range_s, MPI_MAX);
		double index_s = reduce(B.index_s, MPI_MAX);
		double write_s = reduce(B.write_s, MPI_MAX);
		double cpu_s = reduce(fq_cpu_seconds() - cpu0, MPI_SUM);

		if (B.rank == 0)
		{
			json_t *j = json_object();
			double mb = (double)o->n * FQ_NVARS * sizeof(float) / 1e6;
			struct stat st;

			json_object_set_new(j, "subcommand", json_string("build"));
			json_object_set_new(j, "n", json_integer((json_int_t)o->n));
			json_object_set_new(j, "ranks", json_integer(B.nranks));
			json_object_set_new(j, "threads", json_integer(o->threads));
			json_object_set_new(j, "overlap", json_boolean(o->overlap));
			json_object_set_new(
				j, "io",
				json_string(o->collective ? "collective" : "independent"));
			json_object_set_new(j, "bins", json_integer(o->nbins));
			json_object_set_new(j, "block",
								json_integer((json_int_t)o->block));
			json_object_set_new(j, "cold", json_boolean(o->cold));
			json_object_set_new(j, "build_s", json_real(t1 - t0));
			json_object_set_new(j, "read_s", json_real(read_s));
			json_object_set_new(j, "range_s", json_real(range_s));
			json_object_set_new(j, "index_s", json_real(index_s));
			json_object_set_new(j, "write_s", json_real(write_s));
			json_object_set_new(j, "data_MB", json_real(mb));
			json_object_set_new(j, "build_MBps", json_real(mb / (t1 - t0)));
			json_object_set_new(j, "read_MBps",
								json_real(read_s > 0 ? mb / read_s : 0));
			json_object_set_new(j, "index_bytes",
								json_integer((json_int_t)B.index_bytes));
			if (stat(o->index, &st) == 0)
				json_object_set_new(j, "index_file_bytes",
									json_integer(st.st_size));
			json_object_set_new(j, "cpu_s", json_real(cpu_s));
			json_object_set_new(j, "read_io_mode",
								json_string(fq_io_mode_name(B.read_mode)));
			json_object_set_new(j, "write_io_mode",
								json_string(fq_io_mode_name(B.write_mode)));
			json_object_set_new(j, "hints_data", in_hints);
			json_object_set_new(j, "hints_index", idx_hints);
			fq_print_json(j);
			json_decref(j);
		}
		else
		{
			json_decref(in_hints);
			json_decref(idx_hints);
		}
	}
	if (in_used != MPI_INFO_NULL)
		MPI_Info_free(&in_used);
	if (idx_used != MPI_INFO_NULL)
		MPI_Info_free(&idx_used);
	H5Pclose(B.dxpl);
	free(cur);
	free(next);
	free(edges[0]);
	free(edges[1]);
	free(out);
	free(works);
	free(threads);
	return 0;
}
