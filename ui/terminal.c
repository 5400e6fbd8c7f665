/* terminal.c - can this terminal hold the shell? (see terminal.h)
 *
 * Without this check a terminal that cannot move the cursor (TERM=dumb)
 * gets a status bar and nothing else, not even the typed text, and an
 * unknown TERM makes curses fail with "Inappropriate ioctl for device".
 * terminfo answers the question before curses starts.
 */
#include "terminal.h"
#include "util/log.h"

#include <curses.h>
#include <stdlib.h>
#include <term.h>
#include <unistd.h>

#define INSTEAD "or run without the shell: --batch FILE or -s SCRIPT"

int terminal_check(void)
{
	const char *term = getenv("TERM");
	const char *cup;
	int err = 0;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		wr_error("the interactive shell needs a terminal; use --batch FILE or -s SCRIPT");
		return 2;
	}
	if (!term || !*term) {
		wr_error("TERM is not set, so the shell cannot draw its panels; set it (for example "
			 "TERM=xterm-256color), " INSTEAD);
		return 2;
	}
	if (setupterm(NULL, STDOUT_FILENO, &err) != OK) {
		wr_error("TERM=%s is %s, so the shell cannot draw its panels; set TERM to a terminal "
			 "this system knows (`toe -a` lists them), " INSTEAD, term,
			 err == -1 ? "unknown: no terminfo database was found" : "not a terminal terminfo knows");
		return 2;
	}
	cup = tigetstr("cup");
	del_curterm(cur_term);
	if (!cup || cup == (char *)-1) {
		wr_error("TERM=%s cannot move the cursor, which the shell's panels need; use a full "
			 "terminal (for example TERM=xterm-256color), " INSTEAD, term);
		return 2;
	}
	return 0;
}
