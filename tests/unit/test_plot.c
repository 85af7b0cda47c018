/*
 * test_plot.c
 *	  Unit tests of the plots: nice ticks and their labels against
 *	  hand-worked cases, XML escaping, the Pareto front, and every kind of
 *	  plot checked for well-formed XML (a small tag-matching checker) with
 *	  names full of markup, its marks counted, and its input errors; the
 *	  legend checked against every data mark's box (it must go to a free
 *	  corner, or above the plot area when there is none), trials that
 *	  broke a constraint kept off the best so far and the front, and the
 *	  trials of a category spread across its column.
 */
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "plot_scale.h"
#include "svg.h"
#include "unit.h"

/* The ticks of a case equal the expected list. */
static int
ticks_equal(const double *got, int n, const double *want, int m)
{
	int i;

	if (n != m)
	{
		fprintf(stderr, "  got %d ticks, expected %d:", n, m);
		for (i = 0; i < n; i++)
			fprintf(stderr, " %g", got[i]);
		fprintf(stderr, "\n");
		return 0;
	}
	for (i = 0; i < n; i++)
		if (fabs(got[i] - want[i]) > 1e-12 * fmax(1.0, fabs(want[i])))
		{
			fprintf(stderr, "  tick %d is %.17g, expected %g\n", i, got[i],
					want[i]);
			return 0;
		}
	return 1;
}

static void
test_linear_ticks(void)
{
	double t[PLOT_MAX_TICKS];
	static const double a[] = {0, 2, 4, 6, 8, 10};
	static const double b[] = {0, 0.2, 0.4, 0.6, 0.8, 1.0};
	static const double c[] = {-5, 0, 5, 10};
	static const double d[] = {100, 200, 300};
	static const double e[] = {-0.3, -0.2, -0.1, 0, 0.1, 0.2, 0.3};
	static const double f[] = {1995, 2000, 2005};
	int n;

	/* (10 - 0) / 5 = 2: a step of 2 */
	n = plot_linear_ticks(0, 10, 5, t, PLOT_MAX_TICKS);
	CHECK(ticks_equal(t, n, a, 6));
	/* 0.2 exactly, not 0.2 plus rounding: six ticks, the last is 1 */
	n = plot_linear_ticks(0, 1, 5, t, PLOT_MAX_TICKS);
	CHECK(ticks_equal(t, n, b, 6));
	/* 15 / 5 = 3 rounds up to 5 */
	n = plot_linear_ticks(-5, 10, 5, t, PLOT_MAX_TICKS);
	CHECK(ticks_equal(t, n, c, 4));
	/* 307.6 / 5 = 61.5 rounds up to 100 */
	n = plot_linear_ticks(0.397, 308, 5, t, PLOT_MAX_TICKS);
	CHECK(ticks_equal(t, n, d, 3));
	/* zero is exactly zero, not 5.6e-17 */
	n = plot_linear_ticks(-0.3, 0.3, 6, t, PLOT_MAX_TICKS);
	CHECK(ticks_equal(t, n, e, 7));
	CHECK(n == 7 && t[3] == 0.0);
	/* far from zero: 12 / 3 = 4 rounds up to 5 */
	n = plot_linear_ticks(1993, 2005, 3, t, PLOT_MAX_TICKS);
	CHECK(ticks_equal(t, n, f, 3));
	CHECK_CLOSE(plot_nice_step(0, 7, 5), 2.0, 1e-15);
	CHECK_CLOSE(plot_nice_step(0, 30, 6), 5.0, 1e-15);
	CHECK_CLOSE(plot_nice_step(0, 3.1, 3), 2.0, 1e-15);
	CHECK_CLOSE(plot_nice_step(0, 0.07, 7), 0.01, 1e-15);
	/* a degenerate range still gives a positive step */
	CHECK(plot_nice_step(4, 4, 5) > 0);
	/* max bounds the output */
	CHECK(plot_linear_ticks(0, 10, 5, t, 3) == 3);
}

static void
test_log_ticks(void)
{
	double t[PLOT_MAX_TICKS];
	static const double a[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6};
	static const double b[] = {1e-3, 1, 1e3};
	static const double c[] = {5, 10, 20, 50};
	static const double d[] = {2, 2.5, 3, 3.5, 4};
	int n;

	/* seven decades, eight ticks allowed: every decade */
	n = plot_log_ticks(1, 1e6, 8, t, PLOT_MAX_TICKS);
	CHECK(ticks_equal(t, n, a, 7));
	/* nine decades, four ticks: every third, aligned on 10^0 */
	n = plot_log_ticks(1e-3, 1e5, 4, t, PLOT_MAX_TICKS);
	CHECK(ticks_equal(t, n, b, 3));
	/* less than two decades: 1-2-5 */
	n = plot_log_ticks(3, 80, 6, t, PLOT_MAX_TICKS);
	CHECK(ticks_equal(t, n, c, 4));
	/* within a factor of two: linear ticks */
	n = plot_log_ticks(2, 4, 5, t, PLOT_MAX_TICKS);
	CHECK(ticks_equal(t, n, d, 5));
}

static void
test_labels(void)
{
	char s[32];

	plot_tick_label(0.2, 0.2, 0, s, sizeof(s));
	CHECK(strcmp(s, "0.2") == 0);
	plot_tick_label(0.05, 0.05, 0, s, sizeof(s));
	CHECK(strcmp(s, "0.05") == 0);
	plot_tick_label(-5, 5, 0, s, sizeof(s));
	CHECK(strcmp(s, "-5") == 0);
	plot_tick_label(100, 50, 0, s, sizeof(s));
	CHECK(strcmp(s, "100") == 0);
	plot_tick_label(3, 0.5, 0, s, sizeof(s));
	CHECK(strcmp(s, "3.0") == 0);
	plot_tick_label(0, 0.1, 0, s, sizeof(s));
	CHECK(strcmp(s, "0") == 0);
	plot_tick_label(1e6, 1, 1, s, sizeof(s));
	CHECK(strcmp(s, "1e6") == 0);
	plot_tick_label(1e-5, 1, 1, s, sizeof(s));
	CHECK(strcmp(s, "1e-5") == 0);
	plot_tick_label(0.001, 1, 1, s, sizeof(s));
	CHECK(strcmp(s, "0.001") == 0);
	plot_tick_label(2e7, 5e6, 0, s, sizeof(s));
	CHECK(strcmp(s, "2e7") == 0);
	plot_tick_label(50, 1, 1, s, sizeof(s));
	CHECK(strcmp(s, "50") == 0);
}

static void
test_scale(void)
{
	PlotScale s;

	plot_scale_domain(&s, 0, 10, 0, 0.1);
	CHECK_CLOSE(s.lo, -1.0, 1e-15);
	CHECK_CLOSE(s.hi, 11.0, 1e-15);
	s.px0 = 100;
	s.px1 = 220;
	CHECK_CLOSE(plot_scale_px(&s, 5), 160.0, 1e-12);
	plot_scale_domain(&s, 1, 100, 1, 0.0);
	s.px0 = 0;
	s.px1 = 200;
	CHECK_CLOSE(plot_scale_px(&s, 10), 100.0, 1e-12);
	/* one value: a range around it */
	plot_scale_domain(&s, 7, 7, 0, 0.1);
	CHECK(s.lo < 7 && s.hi > 7);
	plot_scale_domain(&s, 0, 0, 0, 0.1);
	CHECK(s.lo < 0 && s.hi > 0);
}

/* Escape text into a fresh string. */
static char *
escaped(const char *text, int max_chars)
{
	SvgBuf buf;
	char *out;
	TunerStatus status;

	svg_init(&buf);
	svg_printf(&buf, "%s", "");
	svg_escape(&buf, text, max_chars);
	svg_finish(&buf, &out, &status);
	return out;
}

static void
test_escape(void)
{
	char *s;

	s = escaped("a<b&c\"d'e>", 0);
	CHECK(strcmp(s, "a&lt;b&amp;c&quot;d&apos;e&gt;") == 0);
	free(s);
	s = escaped("x\001y\177z\tw", 0);
	CHECK(strcmp(s, "x?y?z\tw") == 0);
	free(s);
	/* four characters at most: three and an ellipsis */
	s = escaped("abcdef", 4);
	CHECK(strcmp(s, "abc&#8230;") == 0);
	free(s);
	s = escaped("abcd", 4);
	CHECK(strcmp(s, "abcd") == 0);
	free(s);
	/* a cut never splits a UTF-8 character */
	s = escaped("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 3);
	CHECK(strcmp(s, "\xC3\xA9\xC3\xA9&#8230;") == 0);
	free(s);
	/* a stray byte is not passed on as invalid UTF-8 */
	s = escaped("a\xFF" "b", 0);
	CHECK(strcmp(s, "a?b") == 0);
	free(s);
	/* LATIN1 "e acute" then "x": a lead byte without its continuation */
	s = escaped("\xE9x\xC3", 0);
	CHECK(strcmp(s, "?x?") == 0);
	free(s);
	CHECK(svg_utf8_length("h\xC3\xA9llo") == 5);
}

/*
 * Whether text is well-formed XML as far as the plots go: one XML
 * declaration, then elements whose start and end tags match, attribute
 * values quoted, no '<' or bare '&' in text, one root.
 */
static int
well_formed(const char *s)
{
	const char *stack[64];
	int lens[64];
	int depth = 0;
	int roots = 0;
	const char *p = s;

	if (strncmp(p, "<?xml ", 6) != 0 || (p = strstr(p, "?>")) == NULL)
		return 0;
	p += 2;
	while (*p)
	{
		if (*p == '&')
		{
			if (strncmp(p, "&amp;", 5) && strncmp(p, "&lt;", 4) &&
				strncmp(p, "&gt;", 4) && strncmp(p, "&quot;", 6) &&
				strncmp(p, "&apos;", 6) && strncmp(p, "&#8230;", 7))
				return 0;
			p++;
			continue;
		}
		if (*p != '<')
		{
			if (*p == '>')
				return 0;
			p++;
			continue;
		}
		if (p[1] == '/')
		{
			const char *name = p + 2;
			int len = (int) strcspn(name, ">");

			if (depth == 0 || len != lens[depth - 1] ||
				strncmp(name, stack[depth - 1], len) != 0)
				return 0;
			depth--;
			p = name + len + 1;
			continue;
		}
		{
			const char *name = p + 1;
			int len = (int) strcspn(name, " />");
			const char *q = name + len;

			/* attributes: name="value" with no '<' in the value */
			while (*q == ' ')
			{
				q += strspn(q, " ");
				q += strcspn(q, "=/>");
				if (*q != '=')
					break;
				if (q[1] != '"')
					return 0;
				q = strchr(q + 2, '"');
				if (q == NULL)
					return 0;
				if (memchr(name, '<', q - name) != NULL)
					return 0;
				q++;
			}
			if (depth == 0)
				roots++;
			if (q[0] == '/' && q[1] == '>')
			{
				p = q + 2;
				continue;
			}
			if (q[0] != '>' || depth == 64)
				return 0;
			stack[depth] = name;
			lens[depth++] = len;
			p = q + 1;
		}
	}
	return depth == 0 && roots == 1;
}

/* Occurrences of needle in s. */
static int
count(const char *s, const char *needle)
{
	int n = 0;

	while ((s = strstr(s, needle)) != NULL)
	{
		n++;
		s += strlen(needle);
	}
	return n;
}

static const char *const nasty[] = {"a<b", "x&y", "q\"uote'", "</svg>"};

/* The legend's box (the first rect after <g class="legend">): 0 if none. */
static int
legend_box(const char *svg, double *box)
{
	const char *g = strstr(svg, "<g class=\"legend\">");
	double w;
	double h;

	if (g == NULL || (g = strstr(g, "<rect ")) == NULL ||
		sscanf(g, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"",
			   &box[0], &box[1], &w, &h) != 4)
		return 0;
	box[2] = box[0] + w;
	box[3] = box[1] + h;
	return 1;
}

/*
 * Whether the SVG has a legend and no data circle (one with a tooltip)
 * or polyline point lies under it (tests/plots/svg_check.py checks the
 * segments too).
 */
static int
legend_clear(const char *svg)
{
	double box[4];
	const char *p = svg;

	if (!legend_box(svg, box))
		return 0;
	while ((p = strstr(p, "<circle ")) != NULL)
	{
		double cx;
		double cy;
		double r;
		const char *end = strchr(p, '>');

		if (sscanf(p, "<circle cx=\"%lf\" cy=\"%lf\" r=\"%lf\"", &cx, &cy,
				   &r) == 3 &&
			end != NULL && strncmp(end, "><title>", 8) == 0 &&
			cx + r >= box[0] && cx - r <= box[2] && cy + r >= box[1] &&
			cy - r <= box[3])
			return 0;
		p++;
	}
	p = svg;
	while ((p = strstr(p, " points=\"")) != NULL)
	{
		double x;
		double y;
		int used;

		p += 9;
		while (sscanf(p, "%lf,%lf %n", &x, &y, &used) == 2)
		{
			if (x >= box[0] && x <= box[2] && y >= box[1] && y <= box[3])
				return 0;
			p += used;
		}
	}
	return 1;
}

/* The x of every data circle, in order: how many were found. */
static int
data_xs(const char *svg, double *xs, int max)
{
	const char *p = svg;
	int n = 0;

	while ((p = strstr(p, "<circle ")) != NULL && n < max)
	{
		double cx;
		const char *end = strchr(p, '>');

		if (sscanf(p, "<circle cx=\"%lf\"", &cx) == 1 && end != NULL &&
			strncmp(end, "><title>", 8) == 0)
			xs[n++] = cx;
		p++;
	}
	return n;
}

/*
 * The legend goes to a free corner (top right first), else to a strip
 * above the plot area; either way it covers no data.
 */
static void
test_legend_placement(void)
{
	double number[40];
	double value[40];
	double box[4];
	ConvergencePlot p = {"legend", "y", 40, number, value, 0, NULL, 0, 0,
						 1, 0, 720, 480, NULL, NULL, NULL, NULL};
	TunerStatus status;
	char *svg = NULL;
	int i;

	/* falling values, minimized: the top right is free */
	for (i = 0; i < 40; i++)
	{
		number[i] = i + 1;
		value[i] = 100 - 2 * i;
	}
	CHECK(plot_convergence(&p, &svg, &status) == TUNER_OK);
	CHECK(svg != NULL && legend_box(svg, box) && box[2] > 600 && box[1] < 100);
	CHECK(svg != NULL && legend_clear(svg));
	free(svg);
	/* rising values, maximized: the top right holds the last trials and
	 * the best so far; the legend goes to the top left */
	p.minimize = 0;
	for (i = 0; i < 40; i++)
		value[i] = 2 * i;
	CHECK(plot_convergence(&p, &svg, &status) == TUNER_OK);
	CHECK(svg != NULL && legend_box(svg, box) && box[0] < 200 && box[1] < 100);
	CHECK(svg != NULL && legend_clear(svg));
	free(svg);
	/* data in every corner: a strip above the plot area (top 48 px at
	 * least), which moves down under it */
	for (i = 0; i < 40; i++)
		value[i] = i % 2 ? 100 : 0;
	CHECK(plot_convergence(&p, &svg, &status) == TUNER_OK);
	CHECK(svg != NULL && well_formed(svg));
	CHECK(svg != NULL && legend_box(svg, box) && box[3] <= 48 + 18);
	CHECK(svg != NULL && legend_clear(svg));
	CHECK(svg != NULL && strstr(svg, "height=\"480\"") != NULL);
	free(svg);
	/* on a small canvas the strip needs more room: the canvas grows */
	p.width = 200;
	p.height = 200;
	CHECK(plot_convergence(&p, &svg, &status) == TUNER_OK);
	CHECK(svg != NULL && well_formed(svg));
	CHECK(svg != NULL && legend_clear(svg));
	CHECK(svg != NULL && strstr(svg, "height=\"200\"") == NULL);
	free(svg);
}

/*
 * The trials of a category take evenly spaced slots across its column,
 * in an order from their numbers, the same every time.
 */
static void
test_category_offsets(void)
{
	double x[] = {0, 1, 0, 0, 2, 0};
	double number[] = {1, 2, 3, 4, 5, 6};
	double offset[6];
	double again[6];
	double slots[4];
	double y[] = {5, 5, 5, 5, 5, 5};
	double xs[8];
	const char *const labels[] = {"a", "b", "c"};
	SlicePlot p = {"slice", "kind", "loss", 6, x, y, number, labels, 3, 0, 0,
				   1, 720, 480, NULL, 0, 0};
	TunerStatus status;
	char *svg = NULL;
	int n;
	int i;
	int j;

	CHECK(plot_category_offsets(6, x, number, 0.6, 42, offset, &status) ==
		  TUNER_OK);
	CHECK(plot_category_offsets(6, x, number, 0.6, 42, again, &status) ==
		  TUNER_OK);
	CHECK(memcmp(offset, again, sizeof(offset)) == 0);
	/* a lone trial stays in the middle of its column */
	CHECK(offset[1] == 0.0 && offset[4] == 0.0);
	/* the four of category 0 take the slots -0.225, -0.075, 0.075, 0.225 */
	slots[0] = offset[0];
	slots[1] = offset[2];
	slots[2] = offset[3];
	slots[3] = offset[5];
	for (i = 0; i < 4; i++)
	{
		int found = 0;

		for (j = 0; j < 4; j++)
			found += fabs(slots[j] - (-0.225 + 0.15 * i)) < 1e-12;
		CHECK(found == 1);
	}
	/* drawn: six trials of one value at six places */
	CHECK(plot_slice(&p, &svg, &status) == TUNER_OK);
	CHECK(svg != NULL && well_formed(svg));
	n = svg != NULL ? data_xs(svg, xs, 8) : 0;
	CHECK(n == 6);
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			CHECK(fabs(xs[i] - xs[j]) > 1.0);
	CHECK(svg != NULL && legend_clear(svg));
	free(svg);
}

static void
test_well_formed_checker(void)
{
	CHECK(well_formed("<?xml version=\"1.0\"?><svg a=\"1\"><g/><t>x</t></svg>"));
	CHECK(!well_formed("<?xml version=\"1.0\"?><svg><g></svg>"));
	CHECK(!well_formed("<?xml version=\"1.0\"?><svg>a<b</svg>"));
	CHECK(!well_formed("<?xml version=\"1.0\"?><svg>a&b</svg>"));
	CHECK(!well_formed("<?xml version=\"1.0\"?><svg/><svg/>"));
}

static void
test_convergence(void)
{
	double number[] = {1, 2, 3, 5};
	double value[] = {10, 4, 7, 2};
	double failed[] = {4};
	int feasible[] = {1, 1, 1, 0};
	int disturbed[] = {0, 1, 0, 1};
	double best[] = {NAN, 4, 4, 4};
	ConvergencePlot p = {"study \"a<b\" & co", "value <ms>", 4, number,
						 value, 1, failed, 1, 8.0, 1, 0, 720, 480, NULL, NULL, NULL, NULL};
	TunerStatus status;
	char *svg = NULL;

	CHECK(plot_convergence(&p, &svg, &status) == TUNER_OK);
	CHECK(svg != NULL && well_formed(svg));
	CHECK(svg != NULL && count(svg, "<title>trial") == 5);
	CHECK(svg != NULL && count(svg, "failed</title>") == 1);
	CHECK(svg != NULL && strstr(svg, "study &quot;a&lt;b&quot; &amp; co"));
	CHECK(svg != NULL && strstr(svg, "value &lt;ms&gt;"));
	CHECK(svg != NULL && strstr(svg, ">default</text>"));
	CHECK(svg != NULL && strstr(svg, "best so far: 2</title>"));
	CHECK(svg != NULL && legend_clear(svg));
	free(svg);

	/* trial 5 (value 2) broke a constraint: rings, the best stays 4 */
	p.feasible = feasible;
	CHECK(plot_convergence(&p, &svg, &status) == TUNER_OK);
	CHECK(svg != NULL && well_formed(svg));
	CHECK(svg != NULL && count(svg, "(broke a constraint)</title>") == 1);
	CHECK(svg != NULL && strstr(svg, ">broke a constraint</text>"));
	CHECK(svg != NULL && strstr(svg, "best so far: 4</title>"));
	free(svg);
	/* the best so far as given: none before trial 2, then 4 */
	p.best = best;
	CHECK(plot_convergence(&p, &svg, &status) == TUNER_OK);
	CHECK(svg != NULL && strstr(svg, "best so far: 4</title>"));
	free(svg);
	best[1] = INFINITY;
	CHECK(plot_convergence(&p, &svg, &status) == TUNER_ERR_INVALID);
	best[1] = 4;
	/* trials 2 and 5 ran on a busy machine: orange, 5 an orange ring */
	p.disturbed = disturbed;
	CHECK(plot_convergence(&p, &svg, &status) == TUNER_OK);
	CHECK(svg != NULL && well_formed(svg) && legend_clear(svg));
	CHECK(svg != NULL && count(svg, "(disturbed)</title>") == 2);
	CHECK(svg != NULL && strstr(svg, "fill=\"#ff7f0e\"><title>trial 2: 4 "
									 "(disturbed)</title>"));
	CHECK(svg != NULL && strstr(svg, "stroke=\"#ff7f0e\"") != NULL);
	CHECK(svg != NULL && strstr(svg, ">disturbed</text>"));
	free(svg);
	p.disturbed = NULL;
	p.best = NULL;
	p.feasible = NULL;

	p.log_y = 1;
	value[1] = 0;
	CHECK(plot_convergence(&p, &svg, &status) == TUNER_ERR_INVALID);
	CHECK(strstr(status.message, "trial 2") != NULL);
	value[1] = NAN;
	p.log_y = 0;
	CHECK(plot_convergence(&p, &svg, &status) == TUNER_ERR_INVALID);
	value[1] = 4;
	p.width = 50;
	CHECK(plot_convergence(&p, &svg, &status) == TUNER_ERR_INVALID);
	p.width = 720;
	p.n = 0;
	CHECK(plot_convergence(&p, &svg, &status) == TUNER_ERR_INVALID);
	CHECK(svg == NULL);
}

static void
test_slice(void)
{
	double x[] = {0.001, 0.1, 10, 1000};
	double y[] = {5, 3, 1, 4};
	double number[] = {1, 2, 3, 4};
	double idx[] = {0, 1, 2, 1};
	int feasible[] = {1, 1, 0, 1};
	SlicePlot p = {"slice", "lr", "loss", 4, x, y, number, NULL, 0, 1, 0, 1,
				   720, 480, NULL, 0, 0};
	TunerStatus status;
	char *svg = NULL;

	CHECK(plot_slice(&p, &svg, &status) == TUNER_OK);
	CHECK(svg != NULL && well_formed(svg));
	CHECK(svg != NULL && count(svg, "<title>trial") == 4);
	/* log decades as tick labels */
	CHECK(svg != NULL && strstr(svg, ">0.001</text>") != NULL);
	CHECK(svg != NULL && strstr(svg, ">1000</text>") != NULL);
	/* the best trial: trial 3 (loss 1), red and larger */
	CHECK(svg != NULL && strstr(svg, "r=\"5.50\" fill=\"#d62728\"><title>trial 3:") != NULL);
	free(svg);
	/* trial 3 broke a constraint: a ring, and the best is trial 2 */
	p.feasible = feasible;
	CHECK(plot_slice(&p, &svg, &status) == TUNER_OK);
	CHECK(svg != NULL && strstr(svg, "r=\"5.50\" fill=\"#d62728\"><title>trial 2:") != NULL);
	CHECK(svg != NULL && count(svg, "(broke a constraint)</title>") == 1);
	free(svg);
	/* the best as given (tuner.best's trial), or none */
	p.best_given = 1;
	p.best_number = 4;
	CHECK(plot_slice(&p, &svg, &status) == TUNER_OK);
	CHECK(svg != NULL && strstr(svg, "r=\"5.50\" fill=\"#d62728\"><title>trial 4:") != NULL);
	free(svg);
	p.best_number = NAN;
	CHECK(plot_slice(&p, &svg, &status) == TUNER_OK);
	CHECK(svg != NULL && strstr(svg, "r=\"5.50\"") == NULL);
	CHECK(svg != NULL && strstr(svg, ">best trial</text>") == NULL);
	free(svg);
	p.best_given = 0;
	p.feasible = NULL;

	p.categories = nasty;
	p.n_categories = 4;
	p.x = idx;
	p.x_log = 0;
	CHECK(plot_slice(&p, &svg, &status) == TUNER_OK);
	CHECK(svg != NULL && well_formed(svg));
	CHECK(svg != NULL && strstr(svg, ">&lt;/svg&gt;</text>") != NULL);
	free(svg);
	idx[3] = 7;
	CHECK(plot_slice(&p, &svg, &status) == TUNER_ERR_INVALID);
	p.categories = NULL;
	p.x = x;
	p.x_log = 1;
	x[0] = -1;
	CHECK(plot_slice(&p, &svg, &status) == TUNER_ERR_INVALID);
}

static void
test_pareto(void)
{
	double x[] = {1, 2, 3, 4, 2};
	double y[] = {5, 3, 4, 1, 3};
	double number[] = {1, 2, 3, 4, 5};
	int feasible[] = {0, 1, 1, 1, 1};
	int front[5];
	ParetoPlot p = {"pareto", "latency (ms)", "errors", 5, x, y, number, 1, 1,
					720, 480, NULL};
	TunerStatus status;
	char *svg = NULL;

	/* both minimized: (3, 4) is dominated by (2, 3); the twin (2, 3) is not */
	CHECK(pareto_front_mask(5, x, y, 1, 1, NULL, front) == 4);
	CHECK(front[0] && front[1] && !front[2] && front[3] && front[4]);
	/* both maximized: only (3, 4), (4, 1) and (1, 5) are not beaten */
	CHECK(pareto_front_mask(5, x, y, 0, 0, NULL, front) == 3);
	CHECK(front[0] && !front[1] && front[2] && front[3] && !front[4]);
	/* x minimized, y maximized: (1, 5) beats everything */
	CHECK(pareto_front_mask(5, x, y, 1, 0, NULL, front) == 1);
	CHECK(front[0]);
	/* (1, 5) broke a constraint: it is off the front, and beats nothing */
	CHECK(pareto_front_mask(5, x, y, 1, 0, feasible, front) == 3);
	CHECK(!front[0] && front[1] && front[2] && !front[3] && front[4]);

	CHECK(plot_pareto(&p, &svg, &status) == TUNER_OK);
	CHECK(svg != NULL && well_formed(svg));
	CHECK(svg != NULL && count(svg, "(non-dominated)") == 4);
	CHECK(svg != NULL && count(svg, "<title>trial") == 5);
	CHECK(svg != NULL && count(svg, "<polyline") == 1);
	CHECK(svg != NULL && legend_clear(svg));
	free(svg);
	/* a trial that broke a constraint: a ring, never on the front */
	p.feasible = feasible;
	CHECK(plot_pareto(&p, &svg, &status) == TUNER_OK);
	CHECK(svg != NULL && well_formed(svg));
	CHECK(svg != NULL && count(svg, "(non-dominated)") == 3);
	CHECK(svg != NULL && count(svg, "(broke a constraint)</title>") == 1);
	CHECK(svg != NULL && legend_clear(svg));
	free(svg);
	p.feasible = NULL;
	x[2] = INFINITY;
	CHECK(plot_pareto(&p, &svg, &status) == TUNER_ERR_INVALID);
}

static void
test_importance(void)
{
	double lasso[] = {0.8, 0.1, 0, 0.3};
	double ls[] = {0.2, 1.5, 4.0, 0.5};
	ImportancePlot p = {"importance", 4, nasty, lasso, ls, 720, 200};
	TunerStatus status;
	char *svg = NULL;

	CHECK(plot_importance(&p, &svg, &status) == TUNER_OK);
	CHECK(svg != NULL && well_formed(svg));
	/* a bar per parameter per panel */
	CHECK(svg != NULL && count(svg, "<rect") == 1 + 8);
	CHECK(svg != NULL && strstr(svg, ">a&lt;b</text>") != NULL);
	CHECK(svg != NULL && strstr(svg, "length-scale") != NULL);
	/* 4 rows of at least 24 px between margins of 56: 208 px, not 200 */
	CHECK(svg != NULL && strstr(svg, "height=\"208\"") != NULL);
	free(svg);
	/* a taller plot spreads its rows, up to 48 px each: bars of 28.8 */
	p.height = 600;
	CHECK(plot_importance(&p, &svg, &status) == TUNER_OK);
	CHECK(svg != NULL && strstr(svg, "height=\"600\"") != NULL);
	CHECK(svg != NULL && strstr(svg, "height=\"28.80\"") != NULL);
	free(svg);
	p.lasso = NULL;
	CHECK(plot_importance(&p, &svg, &status) == TUNER_OK);
	CHECK(svg != NULL && count(svg, "<rect") == 1 + 4);
	free(svg);
	p.lengthscale = NULL;
	CHECK(plot_importance(&p, &svg, &status) == TUNER_ERR_INVALID);
	p.lengthscale = ls;
	/* a parameter the model left out: no bar, "not in the model" */
	ls[2] = INFINITY;
	CHECK(plot_importance(&p, &svg, &status) == TUNER_OK);
	CHECK(svg != NULL && well_formed(svg));
	CHECK(svg != NULL && count(svg, "<rect") == 1 + 3);
	CHECK(svg != NULL && count(svg, ">not in the model</text>") == 1);
	free(svg);
	ls[1] = 0;
	CHECK(plot_importance(&p, &svg, &status) == TUNER_ERR_INVALID);
	ls[1] = NAN;
	CHECK(plot_importance(&p, &svg, &status) == TUNER_ERR_INVALID);
}

static void
test_heatmap(void)
{
	double m[] = {1, -0.5, 0.9, -0.5, 1, 0, 0.9, 0, 1};
	HeatmapPlot p = {"tasks", 3, nasty, m, 720, 480};
	TunerStatus status;
	char *svg = NULL;

	CHECK(plot_heatmap(&p, &svg, &status) == TUNER_OK);
	CHECK(svg != NULL && well_formed(svg));
	CHECK(svg != NULL && count(svg, "stroke=\"#ffffff\"") == 9);
	CHECK(svg != NULL && strstr(svg, ">-0.50</text>") != NULL);
	/* +1 is ColorBrewer's red, -1 its blue */
	CHECK(svg != NULL && strstr(svg, "fill=\"#b2182b\" stroke") != NULL);
	free(svg);
	/* a pair the model did not learn */
	m[5] = NAN;
	m[7] = NAN;
	CHECK(plot_heatmap(&p, &svg, &status) == TUNER_OK);
	CHECK(svg != NULL && well_formed(svg));
	CHECK(svg != NULL && count(svg, ">n/a</text>") == 2);
	free(svg);
	m[1] = 1.5;
	CHECK(plot_heatmap(&p, &svg, &status) == TUNER_ERR_INVALID);
	m[1] = INFINITY;
	CHECK(plot_heatmap(&p, &svg, &status) == TUNER_ERR_INVALID);
}

void
test_plot(void)
{
	test_linear_ticks();
	test_log_ticks();
	test_labels();
	test_scale();
	test_escape();
	test_well_formed_checker();
	test_convergence();
	test_legend_placement();
	test_category_offsets();
	test_slice();
	test_pareto();
	test_importance();
	test_heatmap();
}
