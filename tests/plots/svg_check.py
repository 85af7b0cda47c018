#!/usr/bin/python3
"""svg_check.py [--categorical] SVG...: fail unless the plot hides no data.

The data of a plot are its marks with a tooltip (every circle and path
with a <title> child: trials, failed trials, front points) and its
polylines (best so far, the Pareto front).  The legend is the first
<rect> of <g class="legend">, its box; a drawing of tuner 0.1.0/0.2.0 had
no such group but one white 154 x 18 px rect per entry, and those are its
legend boxes, so that this check is shown to fail on the old drawings
(tests/plots/legacy).  It fails when any data mark's bounding box
intersects a legend box, or a polyline segment crosses one.

With --categorical (a slice over a categorical or bool parameter) it also
fails when two trials are drawn at the same place (centres within 1 px),
as every trial of a category with one value was.

Prints one line per file; exits 1 if any file fails.  Uses only the
standard library (xml.etree)."""
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def number(element, name, default=0.0):
    return float(element.get(name, default))


def legend_boxes(root):
    """The legend's boxes as (x0, y0, x1, y1)."""
    boxes = []
    for group in root.iter(NS + "g"):
        if group.get("class") == "legend":
            rect = group.find(NS + "rect")
            if rect is None:
                raise SystemExit("a legend group without its box")
            boxes.append(rect_box(rect))
    if boxes:
        return boxes
    # the legend of tuner 0.1.0/0.2.0: a white 154 x 18 px rect per entry
    for rect in root.iter(NS + "rect"):
        if (rect.get("fill") == "#ffffff" and abs(number(rect, "width") - 154) < 0.01
                and abs(number(rect, "height") - 18) < 0.01):
            boxes.append(rect_box(rect))
    return boxes


def rect_box(rect):
    x, y = number(rect, "x"), number(rect, "y")
    return (x, y, x + number(rect, "width"), y + number(rect, "height"))


def mark_box(element):
    """The bounding box of a circle or path, its stroke included."""
    stroke = number(element, "stroke-width", 1.0) / 2 if element.get("stroke") else 0.0
    if element.tag == NS + "circle":
        cx, cy, r = number(element, "cx"), number(element, "cy"), number(element, "r")
        return (cx - r - stroke, cy - r - stroke, cx + r + stroke, cy + r + stroke)
    values = [float(v) for v in re.findall(r"-?[0-9.]+", element.get("d", ""))]
    xs, ys = values[0::2], values[1::2]
    return (min(xs) - stroke, min(ys) - stroke, max(xs) + stroke, max(ys) + stroke)


def overlaps(a, b):
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def segment_crosses(p, q, box):
    """Whether segment p-q meets the box (Liang-Barsky clipping)."""
    t0, t1 = 0.0, 1.0
    dx, dy = q[0] - p[0], q[1] - p[1]
    for edge_p, edge_q in ((-dx, p[0] - box[0]), (dx, box[2] - p[0]),
                           (-dy, p[1] - box[1]), (dy, box[3] - p[1])):
        if edge_p == 0:
            if edge_q < 0:
                return False
            continue
        t = edge_q / edge_p
        if edge_p < 0:
            if t > t1:
                return False
            t0 = max(t0, t)
        else:
            if t < t0:
                return False
            t1 = min(t1, t)
    return True


def check(path, categorical):
    root = ET.parse(path).getroot()
    boxes = legend_boxes(root)
    marks = [e for e in root.iter() if e.tag in (NS + "circle", NS + "path")
             and e.find(NS + "title") is not None]
    lines = []
    for polyline in root.iter(NS + "polyline"):
        points = [tuple(map(float, p.split(","))) for p in polyline.get("points", "").split()]
        lines.extend(zip(points, points[1:]))
    problems = []
    for box in boxes:
        for mark in marks:
            if overlaps(mark_box(mark), box):
                problems.append("the legend at (%.0f, %.0f) covers %s" % (
                    box[0], box[1], mark.find(NS + "title").text))
        crossing = sum(1 for p, q in lines if segment_crosses(p, q, box))
        if crossing:
            problems.append("the legend at (%.0f, %.0f) covers %d line segments" % (
                box[0], box[1], crossing))
    if categorical:
        centres = sorted((number(m, "cx"), number(m, "cy"), m.find(NS + "title").text)
                         for m in marks if m.tag == NS + "circle")
        for i, a in enumerate(centres):
            for b in centres[i + 1:]:
                if b[0] - a[0] > 1.0:
                    break
                if abs(b[1] - a[1]) <= 1.0:
                    problems.append("%s and %s are drawn at one place" % (a[2], b[2]))
    print("%s: %d data marks, %d line segments, %s" % (
        path, len(marks), len(lines),
        "%d legend box(es)" % len(boxes) if boxes else "no legend"))
    for problem in problems:
        print("  FAIL: " + problem)
    return not problems


def main():
    args = sys.argv[1:]
    categorical = "--categorical" in args
    files = [a for a in args if a != "--categorical"]
    if not files:
        raise SystemExit(__doc__)
    results = [check(f, categorical) for f in files]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
