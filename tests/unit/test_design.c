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

	/*
	 * Up to 2000 dimensions (the most parameters a study may have), each
	 * coordinate the same whatever the dimension count: the first 1000 of
	 * a 2000-dimensional point are the 1000-dimensional point.
	 */
	{
		double	   *wide = malloc(sizeof(double) * 2001);
		double	   *narrow = malloc(sizeof(double) * 1000);
		int			prefix = 1,
					in_range = 1;

		CHECK(wide != NULL && narrow != NULL);
		CHECK(design_halton_point(7, 3, 2000, wide, &status) == TUNER_OK);
		CHECK(design_halton_point(7, 3, 1000, narrow, &status) == TUNER_OK);
		for (k = 0; k < 1000; k++)
			prefix &= wide[k] == narrow[k];
		for (k = 0; k < 2000; k++)
			in_range &= wide[k] >= 0.0 && wide[k] < 1.0;
		CHECK(prefix);
		CHECK(in_range);
		CHECK(design_halton_point(7, 3, 2001, wide, &status) ==
			  TUNER_ERR_INVALID);
		free(wide);
		free(narrow);
	}
}
