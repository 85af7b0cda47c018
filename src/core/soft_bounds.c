/*
 * soft_bounds.c
 *	  Soft bounds: near and widened (see the header).
 */
#include <math.h>

#include "soft_bounds.h"

int
soft_bound_near(const SoftBound *b, double value, int high, double margin)
{
	if (isnan(value))
		return 0;
	if (b->log_scale && value > 0)
	{
		double range = log(b->high / b->low);

		return high ? log(b->high / value) <= margin * range
					: log(value / b->low) <= margin * range;
	}
	return high ? b->high - value <= margin * (b->high - b->low)
				: value - b->low <= margin * (b->high - b->low);
}

double
soft_bound_widened(const SoftBound *b, int high)
{
	double v;

	if (b->log_scale)
		v = high ? b->high * b->high / b->low : b->low * b->low / b->high;
	else
		v = high ? 2 * b->high - b->low : 2 * b->low - b->high;
	if (b->is_int)
	{
		v = high ? ceil(v) : floor(v);
		if (b->log_scale && v < 1)
			v = 1;
	}
	if (high && !isnan(b->hard_high) && v > b->hard_high)
		v = b->hard_high;
	if (!high && !isnan(b->hard_low) && v < b->hard_low)
		v = b->hard_low;
	return v;
}
