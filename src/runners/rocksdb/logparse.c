/*
 * logparse.c: parse db_bench's result lines and statistics dump, and the
 * EVENT_LOG_v1 JSON lines of RocksDB LOG files (see logparse.h).
 *
 * LOG events used (RocksDB 7.8):
 *   flush_started        {"job", ...}           marks a flush job
 *   table_file_creation  {"job", "file_size"}   SST written (flush or compaction)
 *   flush_finished       {"job", ...}           one flush
 *   compaction_started   {"job", "files_L0": [...], "input_data_size"}
 *   compaction_finished  {"job", "output_level", "compaction_time_micros",
 *                         "total_output_size"}  one compaction with I/O
 *   trivial_move         a file moved down a level without rewriting it
 */
#include "logparse.h"
#include "json.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EVENT_MARK "EVENT_LOG_v1 "

/* Find line starting at a line boundary with prefix; NULL if none. */
static const char *
find_line(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p = text;

	while (p != NULL && *p)
	{
		if (strncmp(p, prefix, n) == 0)
			return p;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

/* Number that follows key (e.g. "Gets:") within [p, end); false if none. */
static bool
number_after(const char *p, const char *end, const char *key, double *out)
{
	size_t n = strlen(key);
	const char *q;

	for (q = p; q + n <= end; q++)
	{
		if (strncmp(q, key, n) == 0)
		{
			char *e;
			double v = strtod(q + n, &e);

			if (e == q + n)
				return false;
			*out = v;
			return true;
		}
	}
	return false;
}

/* See logparse.h. */
bool
parse_bench_line(const char *text, const char *name, bench_line *out)
{
	const char *p = text;
	const char *end;
	size_t n = strlen(name);
	char *e;

	memset(out, 0, sizeof(*out));
	/* The line is "name" padded to 12 columns, then " : ". */
	while ((p = find_line(p, name)) != NULL)
	{
		const char *q = p + n;

		while (*q == ' ')
			q++;
		if (*q == ':')
		{
			p = q + 1;
			break;
		}
		p = strchr(p, '\n');
		if (p == NULL)
			return false;
		p++;
	}
	if (p == NULL)
		return false;
	end = strchr(p, '\n');
	if (end == NULL)
		end = p + strlen(p);

	out->micros_per_op = strtod(p, &e);
	if (e == p || strncmp(e, " micros/op ", 11) != 0)
		return false;
	p = e + 11;
	out->ops_per_sec = strtod(p, &e);
	if (e == p || strncmp(e, " ops/sec ", 9) != 0)
		return false;
	p = e + 9;
	out->seconds = strtod(p, &e);
	if (e == p || strncmp(e, " seconds ", 9) != 0)
		return false;
	p = e + 9;
	out->operations = strtod(p, &e);
	if (e == p || strncmp(e, " operations;", 12) != 0)
		return false;
	out->found = true;

	if (number_after(p, end, "Gets:", &out->gets) &&
		number_after(p, end, "Puts:", &out->puts) &&
		number_after(p, end, "Seek:", &out->seeks) &&
		number_after(p, end, "reads ", &out->reads_found) &&
		number_after(p, end, " in ", &out->reads_total))
		out->have_mix = true;
	return true;
}

/* The statistics line "name FIELD : value ..." for an exact name. */
static const char *
stat_line(const char *text, const char *name, const char **end)
{
	const char *p = text;
	size_t n = strlen(name);

	while ((p = find_line(p, name)) != NULL)
	{
		if (p[n] == ' ')
		{
			*end = strchr(p, '\n');
			if (*end == NULL)
				*end = p + strlen(p);
			return p + n;
		}
		p = strchr(p, '\n');
		if (p == NULL)
			return NULL;
		p++;
	}
	return NULL;
}

/* See logparse.h. */
bool
parse_ticker(const char *text, const char *ticker, double *out)
{
	const char *end;
	const char *p = stat_line(text, ticker, &end);

	if (p == NULL)
		return false;
	return number_after(p, end, " COUNT : ", out);
}

/* See logparse.h. */
bool
parse_histogram(const char *text, const char *hist, const char *field,
				double *out)
{
	const char *end;
	const char *p = stat_line(text, hist, &end);
	char key[64];

	if (p == NULL)
		return false;
	snprintf(key, sizeof(key), " %s : ", field);
	return number_after(p, end, key, out);
}

void
log_stats_init(log_stats *ls)
{
	memset(ls, 0, sizeof(*ls));
}

void
log_stats_free(log_stats *ls)
{
	free(ls->l0_l1_micros);
	free(ls->flush_jobs);
	free(ls->l0_jobs);
	log_stats_init(ls);
}

void
log_stats_new_file(log_stats *ls)
{
	ls->n_flush_jobs = 0;
	ls->n_l0_jobs = 0;
}

/* Append to a growable int array. */
static void
push_int(int **arr, int *n, int *cap, int v)
{
	if (*n == *cap)
	{
		*cap = *cap ? *cap * 2 : 16;
		*arr = realloc(*arr, (size_t)*cap * sizeof(int));
		if (*arr == NULL)
		{
			fprintf(stderr, "tuner_rocksdb: out of memory\n");
			exit(1);
		}
	}
	(*arr)[(*n)++] = v;
}

static bool
has_int(const int *arr, int n, int v)
{
	int i;

	for (i = 0; i < n; i++)
		if (arr[i] == v)
			return true;
	return false;
}

/* Numeric member or NaN. */
static double
num_member(const json_t *obj, const char *key)
{
	const json_t *v = json_object_get(obj, key);

	if (v == NULL || !json_is_number(v))
		return NAN;
	return json_number_value(v);
}

/* See logparse.h. */
void
log_stats_line(log_stats *ls, const char *line)
{
	const char *p = strstr(line, EVENT_MARK);
	const json_t *ev;
	const char *event;
	json_t *root;
	json_error_t error;
	double jobd;
	int job;

	if (p == NULL)
		return;
	root = json_loads(p + strlen(EVENT_MARK), 0, &error);
	if (root == NULL || !json_is_object(root))
	{
		ls->bad_lines++;
		if (root != NULL)
			json_decref(root);
		return;
	}
	ls->events++;
	ev = json_object_get(root, "event");
	jobd = num_member(root, "job");
	/* a job number past int's range is none (and casting it is undefined) */
	job = isfinite(jobd) && fabs(jobd) <= INT_MAX ? (int)jobd : -1;
	if (ev == NULL || !json_is_string(ev))
	{
		json_decref(root);
		return;
	}
	event = json_string_value(ev);
	if (strcmp(event, "flush_started") == 0)
		push_int(&ls->flush_jobs, &ls->n_flush_jobs, &ls->cap_flush_jobs, job);
	else if (strcmp(event, "flush_finished") == 0)
		ls->flush_count++;
	else if (strcmp(event, "table_file_creation") == 0)
	{
		double size = num_member(root, "file_size");

		if (isfinite(size) && has_int(ls->flush_jobs, ls->n_flush_jobs, job))
			ls->flush_bytes += size;
	}
	else if (strcmp(event, "trivial_move") == 0)
		ls->trivial_moves++;
	else if (strcmp(event, "compaction_started") == 0)
	{
		const json_t *l0 = json_object_get(root, "files_L0");
		double in = num_member(root, "input_data_size");

		if (l0 != NULL && json_is_array(l0) && json_array_size(l0) > 0)
			push_int(&ls->l0_jobs, &ls->n_l0_jobs, &ls->cap_l0_jobs, job);
		if (isfinite(in))
			ls->compaction_input_bytes += in;
	}
	else if (strcmp(event, "compaction_finished") == 0)
	{
		double out = num_member(root, "total_output_size");
		double level = num_member(root, "output_level");
		double micros = num_member(root, "compaction_time_micros");

		ls->compaction_count++;
		if (isfinite(out))
			ls->compaction_bytes += out;
		if (level == 1.0 && isfinite(micros) &&
			has_int(ls->l0_jobs, ls->n_l0_jobs, job))
		{
			if (ls->n_l0_l1 == ls->cap_l0_l1)
			{
				ls->cap_l0_l1 = ls->cap_l0_l1 ? ls->cap_l0_l1 * 2 : 16;
				ls->l0_l1_micros = realloc(
					ls->l0_l1_micros, (size_t)ls->cap_l0_l1 * sizeof(double));
				if (ls->l0_l1_micros == NULL)
				{
					fprintf(stderr, "tuner_rocksdb: out of memory\n");
					exit(1);
				}
			}
			ls->l0_l1_micros[ls->n_l0_l1++] = micros;
		}
	}
	json_decref(root);
}

/* See logparse.h. */
bool
log_stats_file(log_stats *ls, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;

	if (f == NULL)
		return false;
	log_stats_new_file(ls);
	while (getline(&line, &cap, f) >= 0)
	{
		/* The runner's LOG.excerpt separates the LOG files it joins with
		 * "== <name>" lines; job ids restart in each. */
		if (strncmp(line, "== ", 3) == 0)
			log_stats_new_file(ls);
		log_stats_line(ls, line);
	}
	free(line);
	fclose(f);
	return true;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a;
	double y = *(const double *)b;

	return (x > y) - (x < y);
}

/* See logparse.h; the "linear" method of numpy.percentile. */
double
percentile(const double *values, int n, double p)
{
	double *v;
	double rank, frac, r;
	int lo;

	if (n <= 0)
		return NAN;
	v = malloc((size_t)n * sizeof(double));
	if (v == NULL)
	{
		fprintf(stderr, "tuner_rocksdb: out of memory\n");
		exit(1);
	}
	memcpy(v, values, (size_t)n * sizeof(double));
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	rank = (p / 100.0) * (n - 1);
	lo = (int)floor(rank);
	frac = rank - lo;
	if (lo >= n - 1)
		r = v[n - 1];
	else
		r = v[lo] + frac * (v[lo + 1] - v[lo]);
	free(v);
	return r;
}

/* See logparse.h. */
char *
read_file_all(const char *path, size_t *len_out)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (f == NULL)
		return NULL;
	for (;;)
	{
		if (cap - len < 65536)
		{
			cap = cap ? cap * 2 : 131072;
			buf = realloc(buf, cap + 1);
			if (buf == NULL)
			{
				fprintf(stderr, "tuner_rocksdb: out of memory\n");
				exit(1);
			}
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	fclose(f);
	buf[len] = '\0';
	if (len_out)
		*len_out = len;
	return buf;
}
