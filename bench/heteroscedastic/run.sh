#!/bin/bash
# Known noise per value (issue 29): GP-EI on Branin with heteroscedastic
# measurement noise (sd 0.1 where x1 < 2.5, sd NOISE_SD elsewhere),
# reported with its standard error (arm "known") or without (arm
# "unknown"), same seeds, same noise draws per trial number.  Prints per
# arm the median over the seeds of the true (noise-free) Branin value of
# recommend's pick and of the best noisy observation's configuration
# after TRIALS trials; the minimum is 0.397887.
#
#   pg_virtualenv -t bash bench/heteroscedastic/run.sh [seeds] [trials]
#
# Needs the extension installed (make install).  Deterministic: the noise
# is a Box-Muller draw from md5(seed, trial number).
set -euo pipefail
SEEDS=${1:-10}
TRIALS=${2:-30}
NOISE_SD=${NOISE_SD:-5}
DB=tuner_bench_hs
dropdb --if-exists "$DB" >/dev/null 2>&1 || true
createdb "$DB"
psql -qX -v ON_ERROR_STOP=1 -d "$DB" <<SQL
CREATE EXTENSION tuner CASCADE;
CREATE FUNCTION branin(x1 float8, x2 float8) RETURNS float8 LANGUAGE sql IMMUTABLE AS \$\$
SELECT (x2 - 5.1 / (4 * pi() ^ 2) * x1 ^ 2 + 5 / pi() * x1 - 6) ^ 2
	   + 10 * (1 - 1 / (8 * pi())) * cos(x1) + 10 \$\$;
-- a standard normal from md5(seed, number), Box-Muller
CREATE FUNCTION draw(seed int, number int) RETURNS float8 LANGUAGE sql IMMUTABLE AS \$\$
SELECT sqrt(-2 * ln(greatest(u1, 1e-12))) * cos(2 * pi() * u2)
  FROM (SELECT ('x' || substr(h, 1, 8))::bit(32)::bigint / 4294967296.0 AS u1,
			   ('x' || substr(h, 9, 8))::bit(32)::bigint / 4294967296.0 AS u2
		  FROM (SELECT md5(seed || ':' || number) AS h) q) r \$\$;
CREATE TABLE result (arm text, seed int, recommended float8, best_observed float8);
DO \$\$
DECLARE
	arm text;
	seed int;
	i int;
	t jsonb;
	x1 float8;
	x2 float8;
	sd float8;
	y float8;
	s text;
	r record;
BEGIN
	FOR seed IN 1 .. $SEEDS LOOP
		FOREACH arm IN ARRAY ARRAY['known', 'unknown'] LOOP
			s := arm || seed;
			PERFORM tuner.create_study(s, 'y', 'minimize', jsonb_build_object('seed', 1000 + seed, 'n_initial', 6));
			PERFORM tuner.add_parameter(s, 'x1', 'float', -5, 10);
			PERFORM tuner.add_parameter(s, 'x2', 'float', 0, 15);
			FOR i IN 1 .. $TRIALS LOOP
				t := tuner.suggest_next(s);
				x1 := (t -> 'params' ->> 'x1')::float8;
				x2 := (t -> 'params' ->> 'x2')::float8;
				sd := CASE WHEN x1 < 2.5 THEN 0.1 ELSE $NOISE_SD END;
				y := branin(x1, x2) + sd * draw(seed, i);
				PERFORM tuner.report((t ->> 'trial')::bigint,
					CASE arm WHEN 'known'
						THEN jsonb_build_object('y', y, '_std_error', jsonb_build_object('y', sd))
						ELSE jsonb_build_object('y', y) END);
			END LOOP;
			SELECT * INTO r FROM tuner.recommend(s);
			INSERT INTO result VALUES (arm, seed,
				branin((r.params ->> 'x1')::float8, (r.params ->> 'x2')::float8),
				(SELECT branin((b.params ->> 'x1')::float8, (b.params ->> 'x2')::float8) FROM tuner.best(s) b));
		END LOOP;
	END LOOP;
END;
\$\$;
\pset footer off
SELECT arm, count(*) AS seeds,
	   round(percentile_cont(0.5) WITHIN GROUP (ORDER BY recommended)::numeric, 3) AS median_recommended,
	   round(avg(recommended)::numeric, 3) AS mean_recommended,
	   round(percentile_cont(0.5) WITHIN GROUP (ORDER BY best_observed)::numeric, 3) AS median_best_observed,
	   round(avg(best_observed)::numeric, 3) AS mean_best_observed
  FROM result GROUP BY arm ORDER BY arm;
SELECT k.seed, round(k.recommended::numeric, 3) AS known, round(u.recommended::numeric, 3) AS unknown
  FROM result k JOIN result u ON u.seed = k.seed AND u.arm = 'unknown' WHERE k.arm = 'known' ORDER BY k.seed;
SQL
dropdb "$DB"
