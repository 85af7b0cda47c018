/*
 * text.h
 *	  What tuner-agent sends the database about a runner: its output as
 *	  valid UTF-8 text, and the description of how it ended, in the words
 *	  the server's workers use.
 */
#ifndef AGENT_TEXT_H
#define AGENT_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A malloc'ed copy of len bytes as UTF-8 text: NUL bytes and invalid
 * sequences become '?'.  With from_middle (a tail cut from a longer
 * output) continuation bytes at the start are skipped.  NULL when out of
 * memory.
 */
extern char *agent_clean_utf8(const char *buf, size_t len, bool from_middle);

/*
 * How a wait status ended, as PostgreSQL's wait_result_to_str says it
 * without "child process ": "exited with exit code 3", "was terminated by
 * signal 9: Killed", "command not found" (127).
 */
extern void agent_exit_text(int status, char *buf, size_t size);

#endif /* AGENT_TEXT_H */
