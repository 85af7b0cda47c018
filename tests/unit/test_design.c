/*
 * test_design.c
 *	  Scrambled Halton points: in range, reproducible by seed, different
 *	  across seeds, and evenly spread (each half of every axis gets its share).
 */
#include <math.h>
#include <stdlib.h>

#include "design.h"
#include "unit.h"

void
test_design(void)
{
	enum
	{
		N = 64, D = 20
	};
	double		pts[N][D];
	double		again[D];
	TunerStatus status;
	int			i,
				k,
				same = 1;

	for (i = 0; i < N; i++)
		CHECK(design_halton_point(42, i, D, pts[i], &status) == TUNER_OK);
	for (i = 0; i < N; i++)
		for (k = 0; k < D; k++)
			CHECK(pts[i][k] >= 0.0 && pts[i][k] < 1.0);

	CHECK(design_halton_point(42, 17, D, again, &status) == TUNER_OK);
	for (k = 0; k < D; k++)
		same &= again[k] == pts[17][k];
	CHECK(same);
	CHECK(design_halton_point(43, 17, D, again, &status) == TUNER_OK);
	CHECK(again[0] != pts[17][0] || again[1] != pts[17][1]);

	/* low discrepancy: in 64 points each half of each axis has 32 +- 4 */
	for (k = 0; k < D; k++)
	{
		int			low = 0;

		for (i = 0; i < N; i++)
			low += pts[i][k] < 0.5;
		CHECK(abs(low - N / 2) <= 4);
	}
	/* the first points of two high dimensions are not on one line */
	{
		double		sxy = 0,
					sx = 0,
					sy = 0,
					sxx = 0,
					syy = 0,
					corr;

		for (i = 0; i < 16; i++)
		{
			double		a = pts[i][D - 1],
						b = pts[i][D - 2];

			sx += a;
			sy += b;
			sxy += a * b;
			sxx += a * a;
			syy += b * b;
		}
		corr = (16 * sxy - sx * sy) /
			sqrt((16 * sxx - sx * sx) * (16 * syy - sy * sy));
		CHECK(fabs(corr) < 0.8);
	}
	CHECK(design_halton_point(1, 0, 0, again, &status) == TUNER_ERR_INVALID);
}
