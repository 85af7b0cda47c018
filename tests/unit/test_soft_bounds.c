/*
 * test_soft_bounds.c
 *	  When a soft bound is near and where it widens to (soft_bounds.c),
 *	  against the closed forms tuner._widen_soft_bounds computed in plpgsql
 *	  before 0.3.0 moved them into C.
 */
#include <math.h>

#include "soft_bounds.h"
#include "unit.h"

static SoftBound
bound(double low, double high, int is_int, int log_scale)
{
	SoftBound b = {low, high, is_int, log_scale, NAN, NAN};

	return b;
}

static void
near_cases(void)
{
	SoftBound lin = bound(0, 10, 0, 0);
	SoftBound lg = bound(1, 1000, 0, 1);

	CHECK(soft_bound_near(&lin, 0.5, 0, 0.05));
	CHECK(!soft_bound_near(&lin, 0.51, 0, 0.05));
	CHECK(soft_bound_near(&lin, 9.5, 1, 0.05));
	CHECK(!soft_bound_near(&lin, 9.4, 1, 0.05));
	CHECK(!soft_bound_near(&lin, NAN, 0, 0.05));
	/* log space: within 5 % of 3 decades is within 10^0.15 of the bound */
	CHECK(soft_bound_near(&lg, pow(10, 0.149), 0, 0.05));
	CHECK(!soft_bound_near(&lg, pow(10, 0.16), 0, 0.05));
	CHECK(soft_bound_near(&lg, 1000 / pow(10, 0.14), 1, 0.05));
	/* a non-positive value of a log-scaled parameter is compared linearly */
	CHECK(soft_bound_near(&lg, 0, 0, 0.05));
}

static void
widen_cases(void)
{
	SoftBound b = bound(2, 10, 0, 0);

	CHECK_CLOSE(soft_bound_widened(&b, 0), -6, 0);
	CHECK_CLOSE(soft_bound_widened(&b, 1), 18, 0);
	b = bound(2, 10, 0, 1);
	CHECK_CLOSE(soft_bound_widened(&b, 0), 0.4, 1e-15);
	CHECK_CLOSE(soft_bound_widened(&b, 1), 50, 1e-13);
	/* an int parameter rounds outwards, log-scaled at least 1 */
	b = bound(3, 7, 1, 1);
	CHECK_CLOSE(soft_bound_widened(&b, 0), 1, 0);
	CHECK_CLOSE(soft_bound_widened(&b, 1), 17, 0);
	b = bound(1.5, 2.5, 1, 0);
	CHECK_CLOSE(soft_bound_widened(&b, 0), 0, 0);
	CHECK_CLOSE(soft_bound_widened(&b, 1), 4, 0);
	/* the hard limits clamp */
	b = bound(2, 10, 0, 0);
	b.hard_low = 0;
	b.hard_high = 12;
	CHECK_CLOSE(soft_bound_widened(&b, 0), 0, 0);
	CHECK_CLOSE(soft_bound_widened(&b, 1), 12, 0);
	b.hard_high = 10;
	CHECK_CLOSE(soft_bound_widened(&b, 1), 10, 0);
}

void
test_soft_bounds(void)
{
	near_cases();
	widen_cases();
}
