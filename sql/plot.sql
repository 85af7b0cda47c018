-- tuner.plot: standalone SVG plots of a study.  Structure is checked by
-- counting marks (one tooltip per trial), labels and escaping; every bad
-- input raises an error.  Well-formedness and rendering are checked by
-- tests/plots/test_render.sh (xmllint, headless Chromium).
\set SHOW_CONTEXT never

-- Occurrences of a substring.
CREATE FUNCTION pg_temp.occurrences(haystack text, needle text) RETURNS int
LANGUAGE sql IMMUTABLE AS $$
    SELECT (length(haystack) - length(replace(haystack, needle, ''))) / length(needle)
$$;

-- A study whose names need escaping: <, &, quotes.
SELECT tuner.create_study('p<&>"''s', objective => 'lat"ency', direction => 'minimize',
                          settings => '{"seed": 7, "n_initial": 4}') > 0 AS created;
SELECT tuner.add_metric('p<&>"''s', 'lat"ency', 'objective', unit => 'ms') > 0 AS declared;
SELECT tuner.add_metric('p<&>"''s', 'through<put>', 'auxiliary', 'maximize', unit => 'ops/s') > 0 AS declared;
SELECT tuner.add_metric('p<&>"''s', 'undirected', 'auxiliary') > 0 AS declared;
SELECT tuner.add_parameter('p<&>"''s', 'x<1>', 'float', low => -5, high => 10, default_value => '2.5');
SELECT tuner.add_parameter('p<&>"''s', 'rate&', 'float', low => 0.001, high => 100, log_scale => true, default_value => '1');
SELECT tuner.add_parameter('p<&>"''s', 'mode''s', 'categorical', choices => ARRAY['a<b', 'c&d', 'e'], default_value => 'e');
SELECT tuner.add_parameter('p<&>"''s', 'flag', 'bool', default_value => 'false');

-- Nothing to plot yet.
SELECT tuner.plot('p<&>"''s', 'convergence');
SELECT tuner.plot('p<&>"''s', 'slice', '{"parameter": "x<1>"}');

-- Twelve trials, a deterministic objective, two failures (trials 4 and 9).
DO $$
DECLARE
    s jsonb;
    x float8;
    r float8;
BEGIN
    FOR i IN 1 .. 12 LOOP
        s := tuner.suggest_next('p<&>"''s');
        IF i IN (4, 9) THEN
            PERFORM tuner.fail((s ->> 'trial')::bigint, 'crashed');
            CONTINUE;
        END IF;
        x := (s -> 'params' ->> 'x<1>')::float8;
        r := (s -> 'params' ->> 'rate&')::float8;
        PERFORM tuner.report((s ->> 'trial')::bigint,
            jsonb_build_object('lat"ency', 1 + (x - 1) ^ 2 + abs(ln(r)),
                               'through<put>', 100 - 5 * abs(x) + ln(r),
                               'undirected', x));
    END LOOP;
END
$$;

SELECT count(*) FILTER (WHERE state = 'complete') AS complete,
       count(*) FILTER (WHERE state = 'failed') AS failed,
       count(*) FILTER (WHERE source = 'default') AS default_trials
  FROM tuner.trials WHERE study = 'p<&>"''s';

-- convergence: one tooltip per complete trial, a cross per failed one, the
-- default's line in the legend, escaped names and the unit on the y axis.
WITH p AS (SELECT tuner.plot('p<&>"''s', 'convergence') AS svg)
SELECT svg LIKE '<?xml version="1.0" encoding="UTF-8"?>%' AS xml_declaration,
       svg LIKE '%</svg>' || E'\n' AS closed,
       pg_temp.occurrences(svg, '<title>trial') - pg_temp.occurrences(svg, 'failed</title>') AS points,
       pg_temp.occurrences(svg, 'failed</title>') AS failed_marks,
       pg_temp.occurrences(svg, '<polyline') AS best_so_far_lines,
       svg LIKE '%>default</text>%' AS default_in_legend,
       svg LIKE '%stroke-dasharray="6 4"%' AS default_line,
       svg LIKE '%>lat&quot;ency (ms)</text>%' AS y_label_with_unit,
       svg LIKE '%>p&lt;&amp;&gt;&quot;&apos;s: lat&quot;ency by trial (minimize)</text>%' AS escaped_title,
       svg LIKE '%>trial</text>%' AS x_label,
       svg NOT LIKE '%p<&>%' AS nothing_raw
  FROM p;

-- log_y and the size options
WITH p AS (SELECT tuner.plot('p<&>"''s', 'convergence', '{"log_y": true, "width": 900, "height": 300, "title": "a & b"}') AS svg)
SELECT svg LIKE '%width="900" height="300"%' AS sized,
       svg LIKE '%>a &amp; b</text>%' AS custom_title
  FROM p;

-- slice over a log-scaled parameter: decade ticks (which decades depends on
-- where the trials went; every label is one and there are two or more)
WITH p AS (SELECT tuner.plot('p<&>"''s', 'slice', '{"parameter": "rate&"}') AS svg)
SELECT pg_temp.occurrences(svg, '<title>trial') AS points,
       svg LIKE '%>rate&amp; (log scale)</text>%' AS x_label,
       (SELECT count(*) >= 2 AND bool_and(m[1] ~ '^(0\.0*1|10*)$')
          FROM regexp_matches(substring(svg FROM '<g class="x-ticks">(.*?)</g>'),
                              '>([^<>]*)</text>', 'g') AS m) AS decade_ticks,
       svg LIKE '%>best trial</text>%' AS best_marked
  FROM p;

-- slice over a linear, a categorical and a bool parameter
SELECT pg_temp.occurrences(tuner.plot('p<&>"''s', 'slice', '{"parameter": "x<1>"}'), '<title>trial') AS linear_points,
       tuner.plot('p<&>"''s', 'slice', '{"parameter": "mode''s"}') LIKE '%>a&lt;b</text>%>c&amp;d</text>%>e</text>%' AS category_labels,
       tuner.plot('p<&>"''s', 'slice', '{"parameter": "flag"}') LIKE '%>false</text>%>true</text>%' AS bool_labels;

-- pareto: lat"ency minimized, through<put> maximized; the front is what no
-- other trial beats in both
WITH p AS (SELECT tuner.plot('p<&>"''s', 'pareto', '{"x": "lat\"ency", "y": "through<put>"}') AS svg),
     v AS (SELECT t.number, (t.metrics ->> 'lat"ency')::float8 AS a, (t.metrics ->> 'through<put>')::float8 AS b
             FROM tuner.trials t WHERE t.study = 'p<&>"''s' AND t.state = 'complete'),
     front AS (SELECT count(*) AS n FROM v
                WHERE NOT EXISTS (SELECT 1 FROM v w WHERE w.a <= v.a AND w.b >= v.b AND (w.a < v.a OR w.b > v.b)))
SELECT pg_temp.occurrences(svg, '<title>trial') AS points,
       pg_temp.occurrences(svg, '(non-dominated)') = (SELECT n FROM front) AS front_matches_sql,
       (SELECT n FROM front) >= 1 AS has_front,
       svg LIKE '%>lat&quot;ency (ms), minimize</text>%' AS x_label,
       svg LIKE '%>through&lt;put&gt; (ops/s), maximize</text>%' AS y_label
  FROM p;

-- importance: both panels once a GP model exists, one bar per parameter each
WITH p AS (SELECT tuner.plot('p<&>"''s', 'importance') AS svg)
SELECT pg_temp.occurrences(svg, '<rect') - 1 AS bars,
       svg LIKE '%Lasso%' AS lasso_panel,
       svg LIKE '%length-scale%' AS gp_panel,
       svg LIKE '%>x&lt;1&gt;</text>%' AND svg LIKE '%>mode&apos;s</text>%' AS names
  FROM p;
SELECT pg_temp.occurrences(tuner.plot('p<&>"''s', 'importance', '{"method": "lasso"}'), '<rect') - 1 AS lasso_bars,
       pg_temp.occurrences(tuner.plot('p<&>"''s', 'importance', '{"method": "lengthscale"}'), '<rect') - 1 AS gp_bars;

-- task_correlation needs a multi-task model
SELECT tuner.plot('p<&>"''s', 'task_correlation');

-- Bad input.
SELECT tuner.plot(NULL, 'convergence');
SELECT tuner.plot('p<&>"''s', NULL);
SELECT tuner.plot('p<&>"''s', 'convergence', NULL);
SELECT tuner.plot('no such study', 'convergence');
SELECT tuner.plot('p<&>"''s', 'histogram');
SELECT tuner.plot('p<&>"''s', 'convergence', '[1, 2]');
SELECT tuner.plot('p<&>"''s', 'convergence', '"wide"');
SELECT tuner.plot('p<&>"''s', 'convergence', '{"parameter": "x<1>"}');
SELECT tuner.plot('p<&>"''s', 'convergence', '{"width": "wide"}');
SELECT tuner.plot('p<&>"''s', 'convergence', '{"width": 10}');
SELECT tuner.plot('p<&>"''s', 'convergence', '{"height": 1e9}');
SELECT tuner.plot('p<&>"''s', 'convergence', '{"width": 700.5}');
SELECT tuner.plot('p<&>"''s', 'convergence', '{"title": 3}');
SELECT tuner.plot('p<&>"''s', 'convergence', '{"log_y": "yes"}');
SELECT tuner.plot('p<&>"''s', 'slice');
SELECT tuner.plot('p<&>"''s', 'slice', '{"parameter": null}');
SELECT tuner.plot('p<&>"''s', 'slice', '{"parameter": 1}');
SELECT tuner.plot('p<&>"''s', 'slice', '{"parameter": "nope"}');
SELECT tuner.plot('p<&>"''s', 'slice', '{"parameter": "x<1>", "log_y": true}') LIKE '%>10</text>%' AS log_y_decades;
SELECT tuner.plot('p<&>"''s', 'pareto', '{"x": "lat\"ency"}');
SELECT tuner.plot('p<&>"''s', 'pareto', '{"x": "lat\"ency", "y": "nope"}');
SELECT tuner.plot('p<&>"''s', 'pareto', '{"x": "lat\"ency", "y": "lat\"ency"}');
SELECT tuner.plot('p<&>"''s', 'pareto', '{"x": "lat\"ency", "y": "undirected"}');
SELECT tuner.plot('p<&>"''s', 'pareto', '{"x": ["lat\"ency"], "y": "undirected"}');
SELECT tuner.plot('p<&>"''s', 'importance', '{"method": "magic"}');
SELECT tuner.plot('p<&>"''s', 'importance', '{"log_y": true}');

-- The internal drawing functions check their arrays too.
SELECT tuner._plot_convergence('{t,trial,y}', '{1,2}', '{1}', '{t,t}', '{f,f}', '{1,1}', '{}', NULL, true, false, 720, 480);
SELECT tuner._plot_convergence('{t,trial,y}', '{1,2}', '{1,NaN}', '{t,t}', '{f,f}', '{1,1}', '{}', NULL, true, false, 720, 480);
SELECT tuner._plot_convergence('{t,trial,y}', '{}', '{}', '{}', '{}', '{}', '{}', NULL, true, false, 720, 480);
SELECT tuner._plot_convergence('{t,trial,y}', '{1}', '{-1}', '{t}', '{f}', '{NULL}', '{}', NULL, true, true, 720, 480);
SELECT tuner._plot_convergence('{t,trial,y}', '{1,2}', '{1,2}', '{t}', '{f}', '{1,1}', '{}', NULL, true, false, 720, 480);
SELECT tuner._plot_convergence('{t,trial,y}', '{1,2}', '{1,2}', '{t,NULL}', '{f,f}', '{1,1}', '{}', NULL, true, false, 720, 480);
SELECT tuner._plot_convergence('{t,trial,y}', '{1,2}', '{1,2}', '{t,t}', '{f,f}', '{1,Infinity}', '{}', NULL, true, false, 720, 480);
SELECT tuner._plot_convergence('{t,trial,y}', '{1,2}', '{1,2}', '{t,t}', '{f,f}', '{1}', '{}', NULL, true, false, 720, 480);
-- (the best so far is NULL before the first feasible trial)
SELECT tuner._plot_convergence('{t,trial,y}', '{1,2}', '{1,2}', '{f,t}', '{f,f}', '{NULL,2}', '{}', NULL, true, false, 720, 480)
       LIKE '%best so far: 2</title>%' AS best_from_trial_2;
-- Trials run while the machine was busy are orange, with a legend entry.
SELECT tuner._plot_convergence('{t,trial,y}', '{1,2}', '{1,2}', '{t,t}', '{f}', '{1,1}', '{}', NULL, true, false, 720, 480);
SELECT tuner._plot_convergence('{t,y}', '{1,2}', '{1,2}', '{t,t}', '{f,f}', '{1,1}', '{}', NULL, true, false, 720, 480);
SELECT svg LIKE '%fill="#ff7f0e"><title>trial 2: 2 (disturbed)</title>%' AS disturbed_orange,
       svg LIKE '%>disturbed</text>%' AS disturbed_in_legend,
       svg NOT LIKE '%trial 1: 1 (disturbed)%' AS others_blue
  FROM tuner._plot_convergence('{t,trial,y}', '{1,2}', '{1,2}', '{t,t}', '{f,t}', '{1,1}', '{}', NULL, true, false, 720, 480) svg;
SELECT tuner._plot_convergence('{t,trial,y}', '{1,2}', '{1,2}', '{t,t}', '{f,f}', '{1,1}', '{}', NULL, true, false, 720, 480)
       NOT LIKE '%disturbed%' AS no_legend_when_none;
-- and in the progress plot (state 3: complete, disturbed): an orange curve
SELECT svg LIKE '%stroke="#ff7f0e"%<title>trial 2 (disturbed): 3 at step 2</title>%' AS disturbed_curve_orange,
       svg LIKE '%>disturbed</text>%' AS disturbed_in_legend,
       svg LIKE '%<title>trial 1: 2 at step 2</title>%' AS other_plain
  FROM tuner._plot_progress('{t,step,y}', '{1,1,2,2}', '{1,2,1,2}', '{1,2,2,3}', '{0,0,3,3}', false, 720, 480) svg;
SELECT tuner._plot_progress('{t,step,y}', '{1,1}', '{1,2}', '{1,2}', '{0,0}', false, 720, 480)
       NOT LIKE '%disturbed%' AS no_progress_legend_when_none;
SELECT tuner._plot_slice('{t,x,y}', '{1,2}', '{1,2}', '{1,2}', '{t}', NULL, NULL, false, false, true, 720, 480);
SELECT tuner._plot_slice('{t,x}', '{1,2}', '{1,2}', '{1,2}', '{t,t}', NULL, NULL, false, false, true, 720, 480);
SELECT tuner._plot_slice('{t,x,y}', '{1,2}', '{1,2}', '{1,2}', '{t,t}', 2, NULL, false, false, true, 720, 480)
       LIKE '%r="5.50" fill="#d62728"><title>trial 2:%' AS best_as_given;
SELECT tuner._plot_pareto('t', 'x', 'y', '{1,2}', '{1,2}', '{1,2}', '{t,t,t}', true, true, 720, 480);
SELECT tuner._plot_heatmap('t', '{a,b}', '{{1,0.5},{0.5,1},{0,0}}', 720, 480);
SELECT tuner._plot_heatmap('t', '{a,b}', '{{1,2},{2,1}}', 720, 480);
SELECT tuner._plot_importance('t', '{a,NULL}', '{1,2}', NULL, 720, 480);
SELECT tuner._plot_importance('t', '{a,b}', NULL, NULL, 720, 480);
SELECT tuner._plot_importance('t', '{a,b}', NULL, '{1,NaN}', 720, 480);
SELECT tuner._plot_importance('t', '{a,b}', NULL, '{1,0}', 720, 480);
-- a NULL length-scale (and 0.2.0's Infinity): a parameter the model left out
SELECT pg_temp.occurrences(tuner._plot_importance('t', '{a,b,c}', NULL, '{1,NULL,Infinity}', 720, 480),
                           '>not in the model</text>') AS left_out;

-- A study with a multi-task model (from trial 10 on, ICM_MIN_TRIALS): the
-- heat map of its task correlations.
SELECT tuner.create_study('plot_mt', objective => 'y', direction => 'minimize',
                          settings => '{"seed": 3, "n_initial": 5}') > 0 AS created;
SELECT tuner.add_metric('plot_mt', 'aux', 'auxiliary', 'minimize') > 0 AS declared;
SELECT tuner.add_parameter('plot_mt', 'a', 'float', low => 0, high => 1);
SELECT tuner.add_parameter('plot_mt', 'b', 'float', low => 0, high => 1);
SELECT tuner.set_algorithm('plot_mt', 'icm');
SELECT tuner.plot('plot_mt', 'importance');
DO $$
DECLARE
    s jsonb;
    a float8;
    b float8;
BEGIN
    FOR i IN 1 .. 12 LOOP
        s := tuner.suggest_next('plot_mt');
        a := (s -> 'params' ->> 'a')::float8;
        b := (s -> 'params' ->> 'b')::float8;
        PERFORM tuner.report((s ->> 'trial')::bigint,
            jsonb_build_object('y', (a - 0.3) ^ 2 + 0.1 * b, 'aux', 2 * (a - 0.3) ^ 2 + 0.05 * b));
    END LOOP;
END
$$;
WITH p AS (SELECT tuner.plot('plot_mt', 'task_correlation') AS svg)
SELECT pg_temp.occurrences(svg, 'stroke="#ffffff"') AS cells,
       svg LIKE '%>1.00</text>%' AS unit_diagonal,
       svg LIKE '%>y</text>%' AND svg LIKE '%>aux</text>%' AS names,
       svg LIKE '%>' || (SELECT to_char(c.correlation, 'FM0.00') FROM tuner.task_correlation('plot_mt') c
                          WHERE c.metric = 'y' AND c.other_metric = 'aux') || '</text>%' AS learned_value_shown
  FROM p;
SELECT pg_temp.occurrences(tuner.plot('plot_mt', 'importance', '{"method": "lengthscale"}'), '<rect') - 1 AS gp_bars;
SELECT pg_temp.occurrences(tuner.plot('plot_mt', 'importance', '{"method": "lasso"}'), '<rect') - 1 AS lasso_bars;

SELECT tuner.drop_study('plot_mt');
SELECT tuner.drop_study('p<&>"''s');
