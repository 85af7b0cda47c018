/*
 * query.c: the "query" subcommand: conjunctions of range conditions
 * answered from the bitmap index, or (--scan 1) by reading every value.
 *
 * Index mode, per condition and per block of the rank's slab: bins that
 * satisfy the condition entirely are ORed into the answer, bins that do not
 * at all are skipped, and the boundary bins are candidates: only their
 * particles still in the answer of the earlier conditions are read from the
 * data file (an HDF5 point selection) and checked.
 */
#include "bins.h"
#include "bitset.h"
#include "index_io.h"
#include "rng.h"
#include "wah.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A variable's index for the rank's blocks, loaded on first use. */
typedef struct VarIndex
{
	int loaded;
	double *edges;
	uint64_t *off;   /* offsets of the rank's blocks (+1) */
	uint32_t *words; /* words from off[0] */
	float *values;   /* scan mode: the rank's slab */
} VarIndex;

typedef struct Ctx
{
	const FqOptions *o;
	int rank, nranks;
	uint64_t n, block, nblocks, b0, b1, p0, p1;
	int nbins;
	hid_t data, index, dxpl;
	hid_t dset[FQ_NVARS];
	VarIndex vi[FQ_NVARS];
	uint64_t values_read;
	int read_mode;
} Ctx;

/* Read variable v's edges, offsets and words of the rank's blocks. */
static void
load_index(Ctx *C, int v)
{
	VarIndex *x = &C->vi[v];
	uint64_t noff = (C->b1 - C->b0) * C->nbins + 1;
	hid_t grp = H5Gopen2(C->index, fq_var_names[v], H5P_DEFAULT);
	hid_t d;

	if (grp < 0)
		fq_fail(1, "index has no group %s", fq_var_names[v]);
	x->edges = malloc((C->nbins + 1) * sizeof(double));
	x->off = malloc(noff * sizeof(uint64_t));
	if (x->edges == NULL || x->off == NULL)
		fq_fail(1, "out of memory");
	d = H5Dopen2(grp, "edges", H5P_DEFAULT);
	fq_read_slab(d, C->dxpl, H5T_NATIVE_DOUBLE, 0, C->nbins + 1, x->edges);
	H5Dclose(d);
	d = H5Dopen2(grp, "offsets", H5P_DEFAULT);
	fq_read_slab(d, C->dxpl, H5T_NATIVE_UINT64, C->b0 * C->nbins, noff,
				 x->off);
	H5Dclose(d);
	x->words = malloc((x->off[noff - 1] - x->off[0] + 1) * sizeof(uint32_t));
	if (x->words == NULL)
		fq_fail(1, "out of memory");
	d = H5Dopen2(grp, "words", H5P_DEFAULT);
	fq_read_slab(d, C->dxpl, H5T_NATIVE_UINT32, x->off[0],
				 x->off[noff - 1] - x->off[0], x->words);
	H5Dclose(d);
	H5Gclose(grp);
	x->loaded = 1;
}

/* Scan mode: read variable v's whole slab. */
static void
load_values(Ctx *C, int v)
{
	VarIndex *x = &C->vi[v];

	x->values = malloc((C->p1 - C->p0 + 1) * sizeof(float));
	if (x->values == NULL)
		fq_fail(1, "out of memory");
	fq_read_slab(C->dset[v], C->dxpl, H5T_NATIVE_FLOAT, C->p0, C->p1 - C->p0,
				 x->values);
	C->values_read += C->p1 - C->p0;
	x->loaded = 1;
}

/* Answer bits of one condition in index mode: res &= condition. */
static void
cond_index(Ctx *C, const FqCond *c, uint64_t *res, uint64_t *hit,
		   uint64_t *cand)
{
	VarIndex *x = &C->vi[c->var];
	uint64_t nloc = C->p1 - C->p0, nw = bs_nwords(nloc), b, i, m = 0;
	hsize_t *coords;
	float *vals;

	memset(hit, 0, nw * sizeof(uint64_t));
	memset(cand, 0, nw * sizeof(uint64_t));
	for (b = C->b0; b < C->b1; b++)
	{
		uint64_t start = b * C->block;
		uint64_t count = start + C->block <= C->n ? C->block : C->n - start;
		int k;

		for (k = 0; k < C->nbins; k++)
		{
			uint64_t j = (b - C->b0) * C->nbins + k;
			FqBinClass cls = fq_bin_class(x->edges[k], x->edges[k + 1],
										  (FqOp)c->op, c->value);
			uint64_t *dst = cls == FQ_BIN_ALL ? hit : cand;

			if (cls == FQ_BIN_NONE)
				continue;
			if (wah_decode_or(x->words + (x->off[j] - x->off[0]),
							  x->off[j + 1] - x->off[j], count, dst,
							  start - C->p0) != 0)
				fq_fail(1, "index of %s is corrupt at block %llu bin %d",
						fq_var_names[c->var], (unsigned long long)b, k);
		}
	}
	for (i = 0; i < nw; i++)
	{
		cand[i] &= res[i];
		m += (uint64_t)__builtin_popcountll(cand[i]);
	}
	coords = malloc((m + 1) * sizeof(hsize_t));
	vals = malloc((m + 1) * sizeof(float));
	if (coords == NULL || vals == NULL)
		fq_fail(1, "out of memory");
	m = 0;
	for (i = 0; i < nw; i++)
	{
		uint64_t word = cand[i];

		while (word)
		{
			coords[m++] = C->p0 + i * 64 + __builtin_ctzll(word);
			word &= word - 1;
		}
	}
	fq_read_points(C->dset[c->var], C->dxpl, H5T_NATIVE_FLOAT, coords, m,
				   vals);
	{
		H5D_mpio_actual_io_mode_t mode = H5D_MPIO_NO_COLLECTIVE;

		H5Pget_mpio_actual_io_mode(C->dxpl, &mode);
		C->read_mode = (int)mode;
	}
	for (i = 0; i < m; i++)
		if (fq_op_eval((double)vals[i], (FqOp)c->op, c->value))
			bs_set(hit, coords[i] - C->p0);
	C->values_read += m;
	for (i = 0; i < nw; i++)
		res[i] &= hit[i];
	free(coords);
	free(vals);
}

/* Scan mode: clear the bits of particles that fail the condition. */
static void
cond_scan(Ctx *C, const FqCond *c, uint64_t *res)
{
	const float *val = C->vi[c->var].values;
	uint64_t i;

	for (i = 0; i < C->p1 - C->p0; i++)
		if (!fq_op_eval((double)val[i], (FqOp)c->op, c->value))
			res[i >> 6] &= ~(1ULL << (i & 63));
}

/* Random queries: 1 to 3 conditions, constants uniform in the range. */
static void
random_queries(const FqOptions *o, const double *lo, const double *hi,
			   FqQuery *qs, int nq)
{
	int q, c;

	for (q = 0; q < nq; q++)
	{
		uint32_t s = 0;

		qs[q].ncond = 1 + (int)(3 * fq_uniform(o->query_seed, q, s++));
		for (c = 0; c < qs[q].ncond; c++)
		{
			FqCond *k = &qs[q].cond[c];
			double u;

			k->var = (int)(FQ_NVARS * fq_uniform(o->query_seed, q, s++));
			k->op = (int)(4 * fq_uniform(o->query_seed, q, s++));
			u = fq_uniform(o->query_seed, q, s++);
			k->value =
				(double)(float)(lo[k->var] + (hi[k->var] - lo[k->var]) * u);
		}
	}
}

/* Global min and max of each variable (from the index, or the values). */
static void
ranges(Ctx *C, double *lo, double *hi)
{
	int v;

	for (v = 0; v < FQ_NVARS; v++)
	{
		if (!C->o->scan)
		{
			lo[v] = C->vi[v].edges[0];
			hi[v] = C->vi[v].edges[C->nbins];
		}
		else
		{
			float mm[2] = {FLT_MAX, FLT_MAX}, g[2];
			uint64_t i;

			for (i = 0; i < C->p1 - C->p0; i++)
			{
				mm[0] = fminf(mm[0], C->vi[v].values[i]);
				mm[1] = fminf(mm[1], -C->vi[v].values[i]);
			}
			MPI_Allreduce(mm, g, 2, MPI_FLOAT, MPI_MIN, MPI_COMM_WORLD);
			lo[v] = g[0];
			hi[v] = -g[1];
		}
	}
}

/* Write the hits of one query (rank 0 gathers every rank's ids). */
static void
write_ids(Ctx *C, FILE *f, int q, const uint64_t *res)
{
	uint64_t nloc = C->p1 - C->p0, i, m = 0;
	int cnt, *counts = NULL, *displs = NULL, r;
	uint64_t *ids = malloc((bs_count(res, bs_nwords(nloc)) + 1) * 8),
			 *all = NULL;

	for (i = 0; i < nloc; i++)
		if (bs_get(res, i))
			ids[m++] = C->p0 + i;
	cnt = (int)m;
	if (C->rank == 0)
	{
		counts = malloc(C->nranks * sizeof(int));
		displs = malloc(C->nranks * sizeof(int));
	}
	MPI_Gather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (C->rank == 0)
	{
		int tot = 0;

		for (r = 0; r < C->nranks; r++)
		{
			displs[r] = tot;
			tot += counts[r];
		}
		all = malloc(((size_t)tot + 1) * 8);
	}
	MPI_Gatherv(ids, cnt, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T, 0,
				MPI_COMM_WORLD);
	if (C->rank == 0)
	{
		int tot = displs[C->nranks - 1] + counts[C->nranks - 1];

		for (r = 0; r < tot; r++)
			fprintf(f, "%d %llu\n", q, (unsigned long long)all[r]);
	}
	free(ids);
	free(all);
	free(counts);
	free(displs);
}

/* query: answer every query, print hits and the metrics. */
int
fq_query(const FqOptions *o)
{
	Ctx C;
	MPI_Info used;
	FqQuery *qs = NULL;
	int nq = 0, q, v;
	uint64_t *hits, *res, *hit, *cand, nw;
	uint64_t *cands;
	double t0, t1, cpu0 = fq_cpu_seconds(), lo[FQ_NVARS], hi[FQ_NVARS];
	json_t *hints;
	FILE *idf = NULL;

	if (o->file == NULL || (!o->scan && o->index == NULL))
		fq_fail(2, "query needs --file DATA.h5 and --index INDEX.h5 "
				   "(or --scan 1)");
	if (o->queries == NULL && o->random_queries == 0)
		fq_fail(2, "query needs --queries TEXT or --random COUNT");
	if (o->queries)
	{
		char err[512];

		nq = fq_parse_queries(o->queries, &qs, err, sizeof(err));
		if (nq < 0)
			fq_fail(2, "%s", err);
	}
	qs = realloc(qs, (nq + o->random_queries + 1) * sizeof(FqQuery));
	memset(&C, 0, sizeof(C));
	C.o = o;
	MPI_Comm_rank(MPI_COMM_WORLD, &C.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &C.nranks);
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = fq_now();
	C.dxpl = fq_dxpl(o->collective);
	C.data = fq_open(o->file, o, 0, &used);
	for (v = 0; v < FQ_NVARS; v++)
		if ((C.dset[v] = H5Dopen2(C.data, fq_var_names[v], H5P_DEFAULT)) < 0)
			fq_fail(1, "%s has no dataset %s", o->file, fq_var_names[v]);
	{
		hid_t sp = H5Dget_space(C.dset[0]);

		C.n = (uint64_t)H5Sget_simple_extent_npoints(sp);
		H5Sclose(sp);
	}
	if (!o->scan)
	{
		MPI_Info iused;

		C.index = fq_open(o->index, o, 0, &iused);
		if (iused != MPI_INFO_NULL)
			MPI_Info_free(&iused);
		if (fq_read_attr_u64(C.index, "n") != C.n)
			fq_fail(1, "index %s is not of %s (particle counts differ)",
					o->index, o->file);
		C.block = fq_read_attr_u64(C.index, "block");
		C.nbins = (int)fq_read_attr_u64(C.index, "nbins");
		if (fq_read_attr_u64(C.index, "word_bits") != 32 || C.block == 0 ||
			C.nbins < 1)
			fq_fail(1, "index %s has an unknown format", o->index);
	}
	else
		C.block = o->block;
	C.nblocks = (C.n + C.block - 1) / C.block;
	fq_slab(C.nblocks, C.rank, C.nranks, &C.b0, &C.b1);
	C.p0 = C.b0 * C.block;
	C.p1 = C.b1 * C.block < C.n ? C.b1 * C.block : C.n;
	if (o->random_queries > 0)
	{
		for (v = 0; v < FQ_NVARS; v++)
			o->scan ? load_values(&C, v) : load_index(&C, v);
		ranges(&C, lo, hi);
		random_queries(o, lo, hi, qs + nq, o->random_queries);
		nq += o->random_queries;
	}
	nw = bs_nwords(C.p1 - C.p0);
	res = calloc(nw + 1, 8);
	hit = calloc(nw + 1, 8);
	cand = calloc(nw + 1, 8);
	hits = calloc(nq, 8);
	cands = calloc(nq, 8);
	if (!res || !hit || !cand || !hits || !cands)
		fq_fail(1, "out of memory");
	if (o->ids_file && C.rank == 0 && (idf = fopen(o->ids_file, "w")) == NULL)
		fq_fail(1, "cannot write %s", o->ids_file);
	for (q = 0; q < nq; q++)
	{
		uint64_t before, local;
		int c;

		memset(res, 0, (nw + 1) * 8);
		bs_set_range(res, 0, C.p1 - C.p0);
		/* scan mode: loading a variable is not a per-query read */
		for (c = 0; o->scan && c < qs[q].ncond; c++)
			if (!C.vi[qs[q].cond[c].var].loaded)
				load_values(&C, qs[q].cond[c].var);
		before = C.values_read;
		for (c = 0; c < qs[q].ncond; c++)
		{
			const FqCond *k = &qs[q].cond[c];

			if (!C.vi[k->var].loaded)
				o->scan ? load_values(&C, k->var) : load_index(&C, k->var);
			if (o->scan)
				cond_scan(&C, k, res);
			else
				cond_index(&C, k, res, hit, cand);
		}
		local = bs_count(res, nw);
		MPI_Allreduce(&local, &hits[q], 1, MPI_UINT64_T, MPI_SUM,
					  MPI_COMM_WORLD);
		local = C.values_read - before;
		MPI_Allreduce(&local, &cands[q], 1, MPI_UINT64_T, MPI_SUM,
					  MPI_COMM_WORLD);
		if (o->ids_file)
			write_ids(&C, idf, q, res);
	}
	if (idf)
		fclose(idf);
	hints = fq_hints_report(o, used, o->file);
	for (v = 0; v < FQ_NVARS; v++)
		H5Dclose(C.dset[v]);
	H5Fclose(C.data);
	if (!o->scan)
		H5Fclose(C.index);
	MPI_Barrier(MPI_COMM_WORLD);
	t1 = fq_now();
	{
		double cpu = fq_cpu_seconds() - cpu0, cpu_s = 0;
		uint64_t vr = 0;

		MPI_Reduce(&cpu, &cpu_s, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
		MPI_Reduce(&C.values_read, &vr, 1, MPI_UINT64_T, MPI_SUM, 0,
				   MPI_COMM_WORLD);
		if (C.rank == 0)
		{
			json_t *j = json_object(), *arr = json_array();
			char text[1024];

			for (q = 0; q < nq; q++)
			{
				json_t *e = json_object();

				fq_query_text(&qs[q], text, sizeof(text));
				json_object_set_new(e, "query", json_string(text));
				json_object_set_new(e, "hits",
									json_integer((json_int_t)hits[q]));
				if (!o->scan)
					json_object_set_new(e, "candidates_checked",
										json_integer((json_int_t)cands[q]));
				json_array_append_new(arr, e);
			}
			json_object_set_new(j, "subcommand", json_string("query"));
			json_object_set_new(j, "mode",
								json_string(o->scan ? "scan" : "index"));
			json_object_set_new(j, "n", json_integer((json_int_t)C.n));
			json_object_set_new(j, "ranks", json_integer(C.nranks));
			json_object_set_new(j, "query_count", json_integer(nq));
			json_object_set_new(j, "query_s", json_real(t1 - t0));
			json_object_set_new(j, "cpu_s", json_real(cpu_s));
			json_object_set_new(j, "values_read",
								json_integer((json_int_t)vr));
			if (!o->scan)
				json_object_set_new(j, "read_io_mode",
									json_string(fq_io_mode_name(C.read_mode)));
			json_object_set_new(j, "hints_data", hints);
			json_object_set_new(j, "queries", arr);
			fq_print_json(j);
			json_decref(j);
		}
		else
			json_decref(hints);
	}
	if (used != MPI_INFO_NULL)
		MPI_Info_free(&used);
	H5Pclose(C.dxpl);
	for (v = 0; v < FQ_NVARS; v++)
	{
		free(C.vi[v].edges);
		free(C.vi[v].off);
		free(C.vi[v].words);
		free(C.vi[v].values);
	}
	free(qs);
	free(res);
	free(hit);
	free(cand);
	free(hits);
	free(cands);
	return 0;
}
