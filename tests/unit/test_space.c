/*
 * test_space.c
 *	  Encoding round trips, rounding to the grid and the space's size.
 */
#include <math.h>

#include "space.h"
#include "unit.h"

void
test_space(void)
{
	ParamSpec	p[5] = {
		{PARAM_FLOAT, -5.0, 10.0, 0, 0},
		{PARAM_FLOAT, 1e-3, 10.0, 1, 0},
		{PARAM_INT, 1, 64, 1, 0},
		{PARAM_BOOL, 0, 0, 0, 0},
		{PARAM_CATEGORICAL, 0, 0, 0, 3},
	};
	double		native[5] = {2.5, 0.1, 8, 1, 2};
	double		unit[5],
				back[5];
	TunerStatus status;
	int			i,
				counts[3] = {0, 0, 0};

	CHECK(space_validate(p, 5, &status) == TUNER_OK);
	space_to_unit(p, 5, native, unit);
	CHECK_CLOSE(unit[0], 0.5, 1e-15);
	CHECK_CLOSE(unit[1], 0.5, 1e-15);	/* 0.1 is the geometric midpoint */
	CHECK_CLOSE(unit[3], 0.75, 1e-15);
	CHECK_CLOSE(unit[4], 2.5 / 3.0, 1e-15);
	space_from_unit(p, 5, unit, back);
	for (i = 0; i < 5; i++)
		CHECK_CLOSE(back[i], native[i], 1e-12);
	CHECK(space_same_config(p, 5, native, back));

	/* every integer is reachable, bounds included, and rounding is exact */
	for (i = 0; i <= 1000; i++)
	{
		double		u[5] = {0, 0, i / 1000.0, i / 1000.0, i / 1000.0};
		double		v[5];

		space_from_unit(p, 5, u, v);
		CHECK(v[2] == floor(v[2]) && v[2] >= 1 && v[2] <= 64);
		counts[(int) v[4]]++;
	}
	{
		double		u[5] = {0, 0, 0.0, 0, 0},
					v[5];

		space_from_unit(p, 5, u, v);
		CHECK(v[2] == 1 && v[3] == 0 && v[4] == 0);
		u[2] = u[3] = u[4] = 1.0;
		space_from_unit(p, 5, u, v);
		CHECK(v[2] == 64 && v[3] == 1 && v[4] == 2);
	}
	CHECK(counts[0] > 300 && counts[1] > 300 && counts[2] > 300);

	/* snapping lands on the encoding of the rounded value */
	{
		double		u[5] = {0.123, 0.456, 0.5, 0.4, 0.9};
		double		v[5],
					w[5];

		space_snap_unit(p, 5, u);
		space_from_unit(p, 5, u, v);
		space_to_unit(p, 5, v, w);
		for (i = 0; i < 5; i++)
			CHECK_CLOSE(u[i], w[i], 1e-12);
	}

	CHECK(space_cardinality(p, 5) < 0);
	CHECK(space_cardinality(p + 2, 3) == 64 * 2 * 3);

	/* bad spaces */
	{
		ParamSpec	bad1 = {PARAM_FLOAT, 1.0, 1.0, 0, 0};
		ParamSpec	bad2 = {PARAM_FLOAT, 0.0, 1.0, 1, 0};
		ParamSpec	bad3 = {PARAM_CATEGORICAL, 0, 0, 0, 0};
		ParamSpec	bad4 = {PARAM_INT, 0.5, 3, 0, 0};
		ParamSpec	bad5 = {PARAM_FLOAT, 0.0, INFINITY, 0, 0};

		CHECK(space_validate(&bad1, 1, &status) == TUNER_ERR_INVALID);
		CHECK(space_validate(&bad2, 1, &status) == TUNER_ERR_INVALID);
		CHECK(space_validate(&bad3, 1, &status) == TUNER_ERR_INVALID);
		CHECK(space_validate(&bad4, 1, &status) == TUNER_ERR_INVALID);
		CHECK(space_validate(&bad5, 1, &status) == TUNER_ERR_INVALID);
		CHECK(space_validate(p, 0, &status) == TUNER_ERR_INVALID);
	}
}
