/*
 * svg.h
 *	  A small SVG writer: a growing text buffer with printf, XML-escaped
 *	  text and the few elements the plots draw.  Coordinates are written
 *	  with two decimals in the "C" number format (PostgreSQL keeps
 *	  LC_NUMERIC at C).  An allocation failure sets a flag once and turns
 *	  every later call into a no-op, so renderers check only at the end.
 *	  No PostgreSQL here.
 */
#ifndef TUNER_SVG_H
#define TUNER_SVG_H

#include <stddef.h>

#include "tuner_status.h"

typedef struct SvgBuf
{
	char *data; /* NUL-terminated text (tuner_alloc) */
	size_t len;
	size_t cap;
	int failed; /* an allocation failed; data is incomplete */
} SvgBuf;

/* Text anchors of svg_text. */
#define SVG_START  0
#define SVG_MIDDLE 1
#define SVG_END    2

extern void svg_init(SvgBuf *buf);
extern void svg_free(SvgBuf *buf);

/* Append formatted text as it is (the caller escapes what needs it). */
extern void svg_printf(SvgBuf *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Append text escaped for XML character data and attribute values: & < >
 * " ' as entities, control characters XML 1.0 forbids and bytes that are
 * not UTF-8 as '?'.  At most max_chars characters (0: no limit) are
 * written, the rest replaced by an ellipsis (&#8230;).
 */
extern void svg_escape(SvgBuf *buf, const char *text, int max_chars);

/* Characters (not bytes) of a UTF-8 string. */
extern int svg_utf8_length(const char *text);

/* The <svg> root with a white background, and its end. */
extern void svg_begin(SvgBuf *buf, int width, int height);
extern void svg_end(SvgBuf *buf);

extern void svg_line(SvgBuf *buf, double x1, double y1, double x2, double y2,
					 const char *stroke, double width, const char *dash);
extern void svg_rect(SvgBuf *buf, double x, double y, double w, double h,
					 const char *fill, const char *stroke);

/*
 * A circle with an optional tooltip (<title>, escaped; NULL for none).
 */
extern void svg_circle(SvgBuf *buf, double cx, double cy, double r,
					   const char *fill, const char *stroke,
					   const char *tooltip);

/* Text at (x, y); rotate is in degrees about (x, y), 0 for none. */
extern void svg_text(SvgBuf *buf, double x, double y, int anchor, double size,
					 double rotate, const char *fill, const char *text,
					 int max_chars);

/*
 * A polyline through n points; svg_polyline_begin, then one
 * svg_polyline_point per point, then svg_polyline_end with an optional
 * tooltip (NULL for none).
 */
extern void svg_polyline_begin(SvgBuf *buf, const char *stroke, double width,
							   const char *dash);
extern void svg_polyline_point(SvgBuf *buf, double x, double y);
extern void svg_polyline_end(SvgBuf *buf, const char *tooltip);

/*
 * Hand the text to the caller (*out, tuner_free it) or report the
 * allocation failure.
 */
extern TunerErrorCode svg_finish(SvgBuf *buf, char **out, TunerStatus *status);

#endif /* TUNER_SVG_H */
