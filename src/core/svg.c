/*
 * svg.c
 *	  The SVG writer of the plots (see svg.h): buffer growth, escaping and
 *	  elements.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "svg.h"

/* Start an empty buffer. */
void
svg_init(SvgBuf *buf)
{
	buf->data = NULL;
	buf->len = 0;
	buf->cap = 0;
	buf->failed = 0;
}

/* Release the buffer's text. */
void
svg_free(SvgBuf *buf)
{
	tuner_free(buf->data);
	svg_init(buf);
}

/* Make room for extra more bytes plus the NUL; 0 on failure. */
static int
reserve(SvgBuf *buf, size_t extra)
{
	size_t need;
	size_t cap;
	char *data;

	if (buf->failed)
		return 0;
	need = buf->len + extra + 1;
	if (need <= buf->cap)
		return 1;
	cap = buf->cap > 0 ? buf->cap : 4096;
	while (cap < need)
		cap *= 2;
	data = tuner_alloc(cap);
	if (data == NULL)
	{
		buf->failed = 1;
		return 0;
	}
	if (buf->len > 0)
		memcpy(data, buf->data, buf->len);
	data[buf->len] = '\0';
	tuner_free(buf->data);
	buf->data = data;
	buf->cap = cap;
	return 1;
}

/* Append n bytes. */
static void
append(SvgBuf *buf, const char *text, size_t n)
{
	if (!reserve(buf, n))
		return;
	memcpy(buf->data + buf->len, text, n);
	buf->len += n;
	buf->data[buf->len] = '\0';
}

/* Append formatted text. */
void
svg_printf(SvgBuf *buf, const char *fmt, ...)
{
	va_list args;
	int n;

	if (buf->failed)
		return;
	va_start(args, fmt);
	n = vsnprintf(NULL, 0, fmt, args);
	va_end(args);
	if (n < 0 || !reserve(buf, (size_t)n))
	{
		buf->failed = 1;
		return;
	}
	va_start(args, fmt);
	vsnprintf(buf->data + buf->len, (size_t)n + 1, fmt, args);
	va_end(args);
	buf->len += (size_t)n;
}

/*
 * Bytes of the UTF-8 character at s (len bytes left), or 0 when s does not
 * start a well-formed one (a stray or truncated byte sequence).
 */
static int
utf8_width(const unsigned char *s, size_t len)
{
	int w;
	int k;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] < 0xE0)
		w = 2;
	else if (s[0] >= 0xE0 && s[0] < 0xF0)
		w = 3;
	else if (s[0] >= 0xF0 && s[0] < 0xF5)
		w = 4;
	else
		return 0;
	if ((size_t)w > len)
		return 0;
	for (k = 1; k < w; k++)
		if ((s[k] & 0xC0) != 0x80)
			return 0;
	return w;
}

/* Characters of a UTF-8 string. */
int
svg_utf8_length(const char *text)
{
	int n = 0;
	size_t i = 0;
	size_t len = strlen(text);

	while (i < len)
	{
		int w = utf8_width((const unsigned char *)text + i, len - i);

		i += (size_t)(w > 0 ? w : 1);
		n++;
	}
	return n;
}

/* Append text escaped for XML, at most max_chars characters (0: all). */
void
svg_escape(SvgBuf *buf, const char *text, int max_chars)
{
	size_t len = strlen(text);
	size_t i = 0;
	int chars = 0;

	while (i < len)
	{
		unsigned char c = (unsigned char)text[i];
		int w = utf8_width((const unsigned char *)text + i, len - i);

		if (max_chars > 0 && chars == max_chars - 1 &&
			svg_utf8_length(text + i) > 1)
		{
			/* a character reference: ASCII in any client encoding */
			append(buf, "&#8230;", 7);
			return;
		}
		chars++;
		switch (c)
		{
			case '&':
				append(buf, "&amp;", 5);
				break;
			case '<':
				append(buf, "&lt;", 4);
				break;
			case '>':
				append(buf, "&gt;", 4);
				break;
			case '"':
				append(buf, "&quot;", 6);
				break;
			case '\'':
				append(buf, "&apos;", 6);
				break;
			default:
				if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
					c == 0x7F)
					append(buf, "?", 1);
				else if (w == 0)
					append(buf, "?", 1); /* not UTF-8 */
				else
					append(buf, text + i, (size_t)w);
				break;
		}
		i += (size_t)(w > 0 ? w : 1);
	}
}

/* The root element and its white background. */
void
svg_begin(SvgBuf *buf, int width, int height)
{
	svg_printf(buf,
			   "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			   "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
			   "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
			   "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
			   width, height, width, height);
	svg_rect(buf, 0, 0, width, height, "#ffffff", NULL);
}

/* Close the root element. */
void
svg_end(SvgBuf *buf)
{
	svg_printf(buf, "</svg>\n");
}

/* A dash attribute, or nothing. */
static void
dash_attr(SvgBuf *buf, const char *dash)
{
	if (dash != NULL)
		svg_printf(buf, " stroke-dasharray=\"%s\"", dash);
}

/* A straight line. */
void
svg_line(SvgBuf *buf, double x1, double y1, double x2, double y2,
		 const char *stroke, double width, const char *dash)
{
	svg_printf(buf,
			   "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
			   "stroke=\"%s\" stroke-width=\"%.2f\"",
			   x1, y1, x2, y2, stroke, width);
	dash_attr(buf, dash);
	svg_printf(buf, "/>\n");
}

/* A rectangle; stroke NULL for none. */
void
svg_rect(SvgBuf *buf, double x, double y, double w, double h, const char *fill,
		 const char *stroke)
{
	svg_printf(buf,
			   "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
			   "fill=\"%s\"",
			   x, y, w, h, fill);
	if (stroke != NULL)
		svg_printf(buf, " stroke=\"%s\"", stroke);
	svg_printf(buf, "/>\n");
}

/* A circle, with a tooltip when given. */
void
svg_circle(SvgBuf *buf, double cx, double cy, double r, const char *fill,
		   const char *stroke, const char *tooltip)
{
	svg_printf(buf, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" fill=\"%s\"",
			   cx, cy, r, fill);
	if (stroke != NULL)
		svg_printf(buf, " stroke=\"%s\"", stroke);
	if (tooltip == NULL)
	{
		svg_printf(buf, "/>\n");
		return;
	}
	svg_printf(buf, "><title>");
	svg_escape(buf, tooltip, 0);
	svg_printf(buf, "</title></circle>\n");
}

/* Escaped text at (x, y). */
void
svg_text(SvgBuf *buf, double x, double y, int anchor, double size,
		 double rotate, const char *fill, const char *text, int max_chars)
{
	static const char *const anchors[] = {"start", "middle", "end"};

	svg_printf(buf,
			   "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"%s\" "
			   "font-size=\"%.1f\" fill=\"%s\"",
			   x, y, anchors[anchor], size, fill);
	if (rotate != 0.0)
		svg_printf(buf, " transform=\"rotate(%.1f %.2f %.2f)\"", rotate, x, y);
	svg_printf(buf, ">");
	svg_escape(buf, text, max_chars);
	svg_printf(buf, "</text>\n");
}

/* Start a polyline. */
void
svg_polyline_begin(SvgBuf *buf, const char *stroke, double width,
				   const char *dash)
{
	svg_printf(buf,
			   "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.2f\"",
			   stroke, width);
	dash_attr(buf, dash);
	svg_printf(buf, " points=\"");
}

/* One point of the polyline. */
void
svg_polyline_point(SvgBuf *buf, double x, double y)
{
	svg_printf(buf, "%.2f,%.2f ", x, y);
}

/* End the polyline, with a tooltip when given. */
void
svg_polyline_end(SvgBuf *buf, const char *tooltip)
{
	if (tooltip == NULL)
	{
		svg_printf(buf, "\"/>\n");
		return;
	}
	svg_printf(buf, "\"><title>");
	svg_escape(buf, tooltip, 0);
	svg_printf(buf, "</title></polyline>\n");
}

/* Hand over the text, or report that memory ran out. */
TunerErrorCode
svg_finish(SvgBuf *buf, char **out, TunerStatus *status)
{
	*out = NULL;
	if (buf->failed || buf->data == NULL)
	{
		svg_free(buf);
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory while writing the SVG");
	}
	*out = buf->data;
	svg_init(buf);
	return TUNER_OK;
}
