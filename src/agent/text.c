/*
 * text.c
 *	  Runner output as UTF-8 text, and exit descriptions (see text.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "text.h"

/*
 * Length of the valid UTF-8 sequence at s (at most avail bytes), or 0:
 * no overlong forms, no surrogates, nothing above U+10FFFF.
 */
static size_t
utf8_sequence(const unsigned char *s, size_t avail)
{
	size_t len;
	size_t i;
	unsigned int min;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xE0) == 0xC0)
		len = 2, min = 0x80, cp = s[0] & 0x1F;
	else if ((s[0] & 0xF0) == 0xE0)
		len = 3, min = 0x800, cp = s[0] & 0x0F;
	else if ((s[0] & 0xF8) == 0xF0)
		len = 4, min = 0x10000, cp = s[0] & 0x07;
	else
		return 0;
	if (len > avail)
		return 0;
	for (i = 1; i < len; i++)
	{
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return len;
}

/* See text.h. */
char *
agent_clean_utf8(const char *buf, size_t len, bool from_middle)
{
	const unsigned char *s = (const unsigned char *)buf;
	char *out = malloc(len + 1);
	size_t i = 0;
	size_t o = 0;

	if (out == NULL)
		return NULL;
	if (from_middle)
		while (i < len && (s[i] & 0xC0) == 0x80)
			i++;
	while (i < len)
	{
		size_t n = s[i] == 0 ? 0 : utf8_sequence(s + i, len - i);

		if (n == 0)
		{
			out[o++] = '?';
			i++;
		}
		else
		{
			memcpy(out + o, s + i, n);
			o += n;
			i += n;
		}
	}
	out[o] = '\0';
	return out;
}

/* See text.h. */
void
agent_exit_text(int status, char *buf, size_t size)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 126)
		snprintf(buf, size, "command not executable");
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		snprintf(buf, size, "command not found");
	else if (WIFEXITED(status))
		snprintf(buf, size, "exited with exit code %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "was terminated by signal %d: %s",
				 WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(buf, size, "exited with unrecognized status %d", status);
}
