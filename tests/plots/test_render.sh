#!/bin/bash
# test_render.sh: draws every kind of tuner.plot of two small real studies
# (render_study.sql: Branin with a log-scaled parameter, an auxiliary
# metric and a multi-task model; render_constrained.sql: data in the top
# right, an outcome constraint, a categorical parameter with eight equal
# trials, a disabled parameter), checks that each SVG is well-formed XML
# (xmllint --noout), that its legend covers no data mark or line and that
# a categorical slice draws no two trials at one place (svg_check.py, on
# the SVG's geometry), renders it with Debian's headless Chromium and
# checks that the PNG is not blank (png_check.py: distinct colours, share
# of non-white pixels, the plot's own colours present).  Both checks are
# shown to fail: a blank SVG must fail the picture check, and tuner
# 0.2.0's drawings of the second study (tests/plots/legacy) the geometry
# check.
#
# Needs a server with tuner installed and the PG* variables of a superuser
# (scripts/test-all.sh runs it inside pg_virtualenv), xmllint and chromium.
# PLOT_OUT=dir keeps the SVG and PNG files there (default: a temporary
# directory, removed at the end).
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
DB=tuner_plots_$$
KEEP=${PLOT_OUT:-}
OUT=${PLOT_OUT:-$(mktemp -d)}
mkdir -p "$OUT"
PROFILE=$(mktemp -d)

cleanup() {
	dropdb --if-exists "$DB" >/dev/null 2>&1 || true
	rm -rf "$PROFILE"
	[ -n "$KEEP" ] || rm -rf "$OUT"
}
trap cleanup EXIT

for tool in xmllint chromium psql; do
	command -v "$tool" >/dev/null || { echo "test_render.sh: $tool is not installed" >&2; exit 1; }
done

createdb "$DB"
psql -X -q -d "$DB" -f tests/plots/render_study.sql
psql -X -q -d "$DB" -f tests/plots/render_constrained.sql

# Render an SVG file to a PNG of 800 x 600 pixels.
render() {
	rm -f "$2"
	timeout 120 chromium --headless --no-sandbox --disable-gpu \
		--disable-background-networking --hide-scrollbars \
		--user-data-dir="$PROFILE" --window-size=800,600 \
		--screenshot="$2" "file://$1" >"$OUT/chromium.log" 2>&1 || {
		cat "$OUT/chromium.log"
		return 1
	}
	[ -s "$2" ] || { echo "chromium wrote no $2"; cat "$OUT/chromium.log"; return 1; }
}

failed=0
# name, study, kind, options, svg_check flags, colours the picture must contain
check_plot() {
	local name=$1 study=$2 kind=$3 options=$4 flags=$5
	shift 5
	local svg="$OUT/$name.svg" png="$OUT/$name.png"
	if ! psql -X -A -t -q -d "$DB" -v ON_ERROR_STOP=1 \
		-c "SELECT tuner.plot('$study', '$kind', '$options')" >"$svg"; then
		echo "FAIL $name: tuner.plot failed"
		failed=$((failed + 1))
		return
	fi
	if ! xmllint --noout "$svg"; then
		echo "FAIL $name: not well-formed XML"
		failed=$((failed + 1))
		return
	fi
	# shellcheck disable=SC2086
	if ! "$PY" tests/plots/svg_check.py $flags "$svg"; then
		echo "FAIL $name: the legend covers data, or trials are drawn at one place"
		failed=$((failed + 1))
		return
	fi
	if ! render "$svg" "$png" || ! "$PY" tests/plots/png_check.py "$png" "$@"; then
		echo "FAIL $name: the rendered picture is blank or lacks its marks"
		failed=$((failed + 1))
		return
	fi
	echo "ok   $name"
}

SIZE='"width": 800, "height": 600'
# blue trial points, red best-so-far line
check_plot convergence branin convergence "{$SIZE}" '' '#1f77b4' '#d62728'
check_plot convergence_log branin convergence "{$SIZE, \"log_y\": true}" '' '#1f77b4' '#d62728'
# blue Lasso bars, orange GP bars
check_plot importance branin importance "{$SIZE}" '' '#1f77b4' '#ff7f0e'
check_plot slice_step branin slice "{$SIZE, \"parameter\": \"step\"}" '' '#1f77b4' '#d62728'
check_plot slice_x1 branin slice "{$SIZE, \"parameter\": \"x1\"}" '' '#1f77b4' '#d62728'
# red front
check_plot pareto branin pareto "{$SIZE, \"x\": \"value\", \"y\": \"cost\"}" '' '#d62728'
# the diagonal (correlation 1) in ColorBrewer's darkest red
check_plot task_correlation branin task_correlation "{$SIZE}" '' '#b2182b'
# blue learning curves, the pruned one red
check_plot progress curves progress "{$SIZE}" '' '#1f77b4' '#d62728'
# the second study: data in the top right, trials that broke a constraint,
# a categorical parameter, a parameter the model left out
check_plot constrained_convergence constrained convergence "{$SIZE}" '' '#1f77b4' '#d62728'
check_plot constrained_slice_engine constrained slice "{$SIZE, \"parameter\": \"engine\"}" --categorical '#1f77b4' '#d62728'
check_plot constrained_slice_threads constrained slice "{$SIZE, \"parameter\": \"threads\"}" '' '#1f77b4' '#d62728'
check_plot constrained_pareto constrained pareto "{$SIZE, \"x\": \"throughput\", \"y\": \"memory\"}" '' '#d62728'
check_plot constrained_importance constrained importance "{$SIZE, \"method\": \"lengthscale\"}" '' '#ff7f0e'
# small canvases: the legend's strip above a plot area full of data
check_plot constrained_convergence_small constrained convergence '{"width": 300, "height": 200}' '' '#1f77b4' '#d62728'
check_plot constrained_pareto_small constrained pareto '{"width": 240, "height": 200, "x": "throughput", "y": "memory"}' '' '#d62728'

# The geometry check must be able to fail: tuner 0.2.0 drew the second
# study's legend over data, and its hash trials at one place.
for legacy in convergence pareto; do
	if "$PY" tests/plots/svg_check.py "tests/plots/legacy/$legacy.svg" >/dev/null; then
		echo "FAIL legacy $legacy: 0.2.0's legend over data passed the check"
		failed=$((failed + 1))
	else
		echo "ok   legacy $legacy: 0.2.0's legend over data is rejected"
	fi
done
if "$PY" tests/plots/svg_check.py --categorical tests/plots/legacy/slice_engine.svg >/dev/null; then
	echo "FAIL legacy slice_engine: 0.2.0's trials at one place passed the check"
	failed=$((failed + 1))
else
	echo "ok   legacy slice_engine: 0.2.0's trials at one place are rejected"
fi

# The check must be able to fail: a white page is blank.
cat >"$OUT/blank.svg" <<'SVG'
<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600"><rect width="800" height="600" fill="#ffffff"/></svg>
SVG
render "$OUT/blank.svg" "$OUT/blank.png"
if "$PY" tests/plots/png_check.py "$OUT/blank.png" >/dev/null; then
	echo "FAIL blank: a white picture passed the check"
	failed=$((failed + 1))
else
	echo "ok   blank picture is rejected"
fi
# and a plot without its marks' colour is rejected too
if "$PY" tests/plots/png_check.py "$OUT/convergence.png" '#00ff00' >/dev/null; then
	echo "FAIL colours: a colour the plot does not use was found"
	failed=$((failed + 1))
else
	echo "ok   missing colour is rejected"
fi

echo "test_render.sh: $failed failed"
[ "$failed" -eq 0 ]
