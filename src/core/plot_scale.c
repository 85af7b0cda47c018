/*
 * plot_scale.c
 *	  Nice ticks, tick labels and the data-to-pixel mapping of the plots
 *	  (see plot_scale.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plot_scale.h"

/* The smallest 1, 2 or 5 times a power of ten that is >= raw (> 0). */
static double
nice_ceiling(double raw)
{
	double mag = pow(10.0, floor(log10(raw)));
	double frac = raw / mag;

	/* a tolerance so that 0.2 / 0.1 rounding to 2.0000000000000004 is 2 */
	if (frac <= 1.0 + 1e-9)
		return mag;
	if (frac <= 2.0 + 1e-9)
		return 2.0 * mag;
	if (frac <= 5.0 + 1e-9)
		return 5.0 * mag;
	return 10.0 * mag;
}

/* The nice step for about target ticks over [lo, hi]. */
double
plot_nice_step(double lo, double hi, int target)
{
	double span = hi - lo;

	if (target < 1)
		target = 1;
	if (!(span > 0.0))
		span = fabs(lo) > 0.0 ? fabs(lo) : 1.0;
	return nice_ceiling(span / target);
}

/* Multiples of step within [lo, hi], appended to ticks from *n on. */
static int
multiples(double lo, double hi, double step, double *ticks, int n, int max)
{
	double k = ceil(lo / step - 1e-9);

	for (; n < max; k += 1.0)
	{
		double v = k * step;

		if (v > hi + step * 1e-9)
			break;
		if (fabs(v) < step * 1e-6)
			v = 0.0;
		ticks[n++] = v;
	}
	return n;
}

/* Linear ticks over [lo, hi]. */
int
plot_linear_ticks(double lo, double hi, int target, double *ticks, int max)
{
	return multiples(lo, hi, plot_nice_step(lo, hi, target), ticks, 0, max);
}

/* Log ticks over [lo, hi]. */
int
plot_log_ticks(double lo, double hi, int target, double *ticks, int max)
{
	int first = (int)ceil(log10(lo) - 1e-9);
	int last = (int)floor(log10(hi) + 1e-9);
	int decades = last - first + 1;
	int n = 0;
	int e;

	if (target < 1)
		target = 1;
	if (decades >= 3)
	{
		int every = (decades + target - 1) / target;

		/* every k-th decade, aligned on multiples of k (so 10^0 is one) */
		for (e = first; e <= last && n < max; e++)
			if (((e % every) + every) % every == 0)
				ticks[n++] = pow(10.0, e);
		return n;
	}
	for (e = first - 1; e <= last && n < max; e++)
	{
		static const double mult[] = {1.0, 2.0, 5.0};
		int i;

		for (i = 0; i < 3 && n < max; i++)
		{
			double v = mult[i] * pow(10.0, e);

			if (v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9))
				ticks[n++] = v;
		}
	}
	if (n >= 3)
		return n;
	return plot_linear_ticks(lo, hi, target, ticks, max);
}

/* Rewrite "1e+06" as "1e6" and "1e-05" as "1e-5". */
static void
tidy_exponent(char *s)
{
	char *e = strchr(s, 'e');
	char *src;
	char *dst;

	if (e == NULL)
		return;
	src = e + 1;
	dst = e + 1;
	if (*src == '+')
		src++;
	else if (*src == '-')
		*dst++ = *src++;
	while (*src == '0' && src[1] != '\0')
		src++;
	memmove(dst, src, strlen(src) + 1);
}

/* The label of a tick value. */
void
plot_tick_label(double value, double step, int log, char *out, int size)
{
	double mag = fabs(value);

	if (value == 0.0)
	{
		snprintf(out, size, "0");
		return;
	}
	if (log || mag >= 1e6 || mag < 1e-4 || !(step > 0.0))
	{
		snprintf(out, size, "%.4g", value);
		tidy_exponent(out);
		return;
	}
	{
		int decimals = (int)-floor(log10(step) + 1e-9);

		/* a step of 2.5 or 0.25 would need one more; 1-2-5 never does */
		if (decimals < 0)
			decimals = 0;
		snprintf(out, size, "%.*f", decimals, value);
	}
}

/* The padded domain of data in [lo, hi]. */
void
plot_scale_domain(PlotScale *scale, double lo, double hi, int log, double frac)
{
	scale->log = log;
	if (log)
	{
		double a = log10(lo);
		double b = log10(hi);
		double pad = (b - a) * frac;

		if (!(b > a))
			pad = 0.5;
		scale->lo = pow(10.0, a - pad);
		scale->hi = pow(10.0, b + pad);
		return;
	}
	if (!(hi > lo))
	{
		double half = fabs(lo) > 0.0 ? fabs(lo) * 0.1 : 1.0;

		scale->lo = lo - half;
		scale->hi = hi + half;
		return;
	}
	scale->lo = lo - (hi - lo) * frac;
	scale->hi = hi + (hi - lo) * frac;
}

/* Pixel position of value. */
double
plot_scale_px(const PlotScale *scale, double value)
{
	double t;

	if (scale->log)
		t = (log10(value) - log10(scale->lo)) /
			(log10(scale->hi) - log10(scale->lo));
	else
		t = (value - scale->lo) / (scale->hi - scale->lo);
	return scale->px0 + t * (scale->px1 - scale->px0);
}

/* The ticks of a scale. */
int
plot_scale_ticks(const PlotScale *scale, int target, double *ticks, int max)
{
	if (scale->log)
		return plot_log_ticks(scale->lo, scale->hi, target, ticks, max);
	return plot_linear_ticks(scale->lo, scale->hi, target, ticks, max);
}
