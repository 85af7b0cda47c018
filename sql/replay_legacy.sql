-- replay_legacy: a suggestion of tuner 0.2.0 (tuner.suggestion.canonical
-- false) is computed as 0.2.0 computed it, also in 10 and more dimensions
-- and for a skewed objective, where 0.3.0's GP-EI has other priors and
-- warps the objective (issue 28).  The configurations below are the
-- trials the 0.2.0 release (commit 51144dd, tuner.so built from it) made
-- for this study; the study is driven here as 0.2.0's suggest_next drove
-- it, through tuner._suggest with canonical false, and must make them
-- again, bit for bit.
\set SHOW_CONTEXT never

CREATE TEMP TABLE legacy_trials (number int PRIMARY KEY, config jsonb);
INSERT INTO legacy_trials VALUES
	(1, '{"x1": 0.4999999999999999, "x2": 0.6666666666666666, "x3": 0.2, "x4": 0.5952380952380953, "x5": 0.20909090909090908, "x6": 0.49358974358974356, "x7": 0.12867647058823528, "x8": 0.5877192982456141, "x9": 0.5039525691699606, "x10": 0.8743842364532018}'),
	(2, '{"x1": 0.7499999999999999, "x2": 0.3333333333333333, "x3": 0.4, "x4": 0.7380952380952381, "x5": 0.8454545454545456, "x6": 0.7243589743589743, "x7": 0.5404411764705882, "x8": 0.06140350877192981, "x9": 0.37351778656126483, "x10": 0.39162561576354676}'),
	(3, '{"x1": 0.2499999999999999, "x2": 0.2222222222222222, "x3": 0.8, "x4": 0.4523809523809522, "x5": 0.027272727272727264, "x6": 0.5705128205128206, "x7": 0.363970588235294, "x8": 0.5350877192982456, "x9": 0.7213438735177866, "x10": 0.25369458128078815}'),
	(4, '{"x1": 0.8749999999999999, "x2": 0.8888888888888888, "x3": 0.6000000000000001, "x4": 0.023809523809523787, "x5": 0.39090909090909093, "x6": 0.8782051282051283, "x7": 0.9522058823529411, "x8": 0.32456140350877183, "x9": 0.24308300395256907, "x10": 0.04679802955665022}'),
	(5, '{"x1": 0.3749999999999999, "x2": 0.5555555555555556, "x3": 0.04000000000000001, "x4": 0.30952380952380937, "x5": 0.5727272727272728, "x6": 0.18589743589743593, "x7": 0.06985294117647059, "x8": 0.6403508771929824, "x9": 0.808300395256917, "x10": 0.08128078817733989}'),
	(6, '{"x1": 0.6249999999999999, "x2": 0.1111111111111111, "x3": 0.24000000000000002, "x4": 0.880952380952381, "x5": 0.7545454545454546, "x6": 0.8012820512820513, "x7": 0.6580882352941176, "x8": 0.6929824561403508, "x9": 0.1126482213438735, "x10": 0.7364532019704433}'),
	(7, '{"x1": 0.12499999999999989, "x2": 0.7777777777777777, "x3": 0.44000000000000006, "x4": 0.22789115646258495, "x5": 0.9363636363636365, "x6": 0.3397435897435897, "x7": 0.4227941176470587, "x8": 0.956140350877193, "x9": 0.6778656126482214, "x10": 0.4605911330049261}'),
	(8, '{"x1": 0.9374999999999999, "x2": 0.4444444444444444, "x3": 0.8400000000000001, "x4": 0.6564625850340137, "x5": 0.1181818181818182, "x6": 0.9551282051282052, "x7": 0.8345588235294117, "x8": 0.7456140350877193, "x9": 0.33003952569169964, "x10": 0.564039408866995}'),
	(9, '{"x1": 0.4374999999999999, "x2": 0.07407407407407407, "x3": 0.6400000000000001, "x4": 0.7993197278911565, "x5": 0.6636363636363637, "x6": 0.108974358974359, "x7": 0.2463235294117647, "x8": 0.008771929824561396, "x9": 0.19960474308300388, "x10": 0.8399014778325122}'),
	(10, '{"x1": 0.6874999999999999, "x2": 0.7407407407407407, "x3": 0.08000000000000002, "x4": 0.5136054421768709, "x5": 0.48181818181818187, "x6": 0.032051282051282055, "x7": 0.48161764705882343, "x8": 0.4824561403508771, "x9": 0.15612648221343864, "x10": 0.9778325123152708}'),
	(11, '{"x1": 0.44986602854389685, "x2": 0.4357434460752407, "x3": 0.28870031253269257, "x4": 0.5585411173949694, "x5": 0.6128054842825856, "x6": 0.3253305809238747, "x7": 0.2918964767830034, "x8": 0.34269554154822257, "x9": 0.4780612065637657, "x10": 0.5306677259871542}'),
	(12, '{"x1": 0.2247719694693406, "x2": 0.42123107223460116, "x3": 0.460119679200645, "x4": 0.432676622778975, "x5": 0.24671082923561044, "x6": 0.22694173946743557, "x7": 0.14544850623498232, "x8": 0.5528473697832891, "x9": 0.6223572612414722, "x10": 0.5356163593503243}'),
	(13, '{"x1": 0.664788036190568, "x2": 0.4545663607630546, "x3": 0.03935722545252921, "x4": 0.7288941707690461, "x5": 0.9568238853983394, "x6": 0.3289844762402678, "x7": 0.3369394848399146, "x8": 0, "x9": 0.1911527752061924, "x10": 0.7422098919250539}'),
	(14, '{"x1": 0.43655877020332456, "x2": 0.9506547761661553, "x3": 0, "x4": 0.30143007037175074, "x5": 0.4523281869985215, "x6": 0, "x7": 0.14619657615112486, "x8": 0.5452463757507557, "x9": 0.13701342689578677, "x10": 1}'),
	(15, '{"x1": 0.27341697346699584, "x2": 0.023527359535859823, "x3": 0.4828732365543691, "x4": 0.7454468243655255, "x5": 0.4018813948668886, "x6": 1, "x7": 0.1308830854717932, "x8": 0.1957897926642599, "x9": 0.9673611950196659, "x10": 0.0038182636724293667}'),
	(16, '{"x1": 0.5957254136412444, "x2": 0.24494023095066367, "x3": 0.3392989925449839, "x4": 0.37800095139827067, "x5": 0.8821816294231692, "x6": 0, "x7": 0.7778783217698492, "x8": 0, "x9": 0.49579450904794603, "x10": 0.11342576933485826}');

SELECT tuner.create_study('legacy10', 'cost', 'minimize', '{"seed": 11}') > 0 AS created;
SELECT count(tuner.add_parameter('legacy10', 'x' || i, 'float', 0, 1)) AS parameters
  FROM generate_series(1, 10) i;
DO $$
DECLARE
	s tuner.study;
	plan record;
	g tuner.suggestion;
	r tuner.suggest_result;
	t bigint;
	v float8;
	params jsonb;
BEGIN
	FOR i IN 1 .. 16 LOOP
		SELECT * INTO s FROM tuner.study x WHERE x.name = 'legacy10';
		plan := tuner._plan_suggestion(s, pg_catalog.hashint8extended(i, s.seed), NULL);
		g := plan.g;
		g.canonical := false;
		r := tuner._suggest(s.id, g);
		params := tuner._suggested_config(s, r.config);
		t := tuner.enqueue('legacy10', params);
		PERFORM tuner.suggest_next('legacy10');
		-- the model 0.2.0 stored, which the next step warm-starts from
		g.trial_id := t;
		PERFORM tuner._store_models(s, g, r, plan.n_observed, plan.tasks,
									plan.cluster_names, plan.constraint_names);
		SELECT exp(5 * sum(((params ->> ('x' || j))::float8 - 0.3) ^ 2)) INTO v
		  FROM generate_series(1, 10) j;
		PERFORM tuner.report(t, jsonb_build_object('cost', v));
	END LOOP;
END;
$$;
-- every trial as 0.2.0 made it (a difference is listed)
SELECT count(*) AS trials, count(*) FILTER (WHERE t.config = l.config) AS as_in_0_2_0
  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
  JOIN legacy_trials l ON l.number = t.number
 WHERE s.name = 'legacy10';
SELECT t.number, t.config AS now, l.config AS in_0_2_0
  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
  JOIN legacy_trials l ON l.number = t.number
 WHERE s.name = 'legacy10' AND t.config <> l.config
 ORDER BY t.number;
-- the next step computed both ways: 0.3.0's (canonical) has other priors
-- in 10 dimensions and warps this skewed objective, so it differs
CREATE FUNCTION pg_temp.next_config(canonical bool)
RETURNS float8[]
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
	g tuner.suggestion;
BEGIN
	SELECT * INTO s FROM tuner.study x WHERE x.name = 'legacy10';
	g := (tuner._plan_suggestion(s, pg_catalog.hashint8extended(17, s.seed), NULL)).g;
	g.canonical := canonical;
	RETURN (tuner._suggest(s.id, g)).config;
END;
$$;
SELECT pg_temp.next_config(false) <> pg_temp.next_config(true) AS canonical_differs;

SELECT tuner.drop_study('legacy10');
